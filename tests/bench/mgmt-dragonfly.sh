#!/bin/sh
# SPDX-License-Identifier: MIT
# The switches' own routes on the degraded dragonflies whose routings
# closed a credit loop through them (the unit tests' cases), offline:
# this build's routing core against another's (BEFORE, optional).
# Markdown rows for docs/benchmarks.md.
# Usage: tests/bench/mgmt-dragonfly.sh [BUILD_DIR]; BEFORE (an ibpoolroute).
set -eu
B=${1:-build}
BEFORE=${BEFORE:-}
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
P="--plus --hosts-per-switch 4 --leaves 4 --spines 4 --global-links 2"
P5="$P --groups 5 --arrangement relative"

# row NAME ROUTING REPORT: switch-sourced pairs, without a route, credit
# loop through them, CA-to-switch-LID pairs without a route, what moved.
row() {
	awk -v name="$1" -v who="$2" '
	/^mgmt routes :/ {
		pairs = $4; un = $7; sub(/,/, "", un)
		cyc = /credit loop on VL/ ? "**yes**" : "no"
	}
	/^switch LIDs :/ { sw = $7; sub(/,/, "", sw) }
	/own routes off credit loops:/ {
		mv = $0; sub(/.*own routes off credit loops: /, "", mv)
		sub(/\).*/, "", mv)
	}
	END {
		printf "| %s | %s | %s | %s | %s | %s | %s |\n", name, who,
		       pairs, un, cyc, sw, mv ? mv : "-"
	}' "$3"
}

echo "| fabric (ibtopogen dragonfly ...) | routing | switch-sourced pairs | without a route | credit loop through them | CA-to-switch-LID pairs without a route | own routes moved: SL, port, cut |"
echo "|---|---|---|---|---|---|---|"
while IFS='|' read -r gen lmc; do
	# shellcheck disable=SC2086
	"$B/ibtopogen" dragonfly $gen -o "$WORK/f.net"
	name="$gen${lmc:+, --lmc $lmc}"
	if [ -n "$BEFORE" ]; then
		"$BEFORE" route --net "$WORK/f.net" --perms 0 --lmc "${lmc:-0}" \
			>"$WORK/before.out" || true
		row "$name" "before" "$WORK/before.out"
	fi
	"$B/ibpoolroute" route --net "$WORK/f.net" --perms 0 --lmc "${lmc:-0}" \
		>"$WORK/ga.out" || true
	row "$name" "gpuaware" "$WORK/ga.out"
done <<LIST
--hosts-per-switch 4 --switches-per-group 8 --global-links 4 --drop-global 0.2 --seed 1|
$P --drop-local 0.1 --seed 2|
$P --drop-local 0.1 --seed 3|
$P --drop-global 0.05 --drop-local 0.05 --seed 2|
$P --drop-local 0.04 --seed 2|
$P --drop-local 0.08 --seed 2|
$P --drop-local 0.15 --seed 2|
$P5 --drop-local 0.15 --seed 2|
$P5 --drop-local 0.15 --seed 2|1
LIST
