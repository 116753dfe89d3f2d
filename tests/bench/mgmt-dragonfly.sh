#!/bin/sh
# SPDX-License-Identifier: MIT
# The switches' own routes on the degraded dragonflies whose routings
# closed a credit loop through them (the unit tests' cases), offline:
# this build's routing core against another's (BEFORE, optional).
# Markdown rows for docs/benchmarks.md.  With SWEEP=1 (and BEFORE), 144
# more degraded ones (6 shapes, seeds 4-15, LMC 0 and 1): how many closed
# a loop before, how many do after, and what the engine moved.
# Usage: tests/bench/mgmt-dragonfly.sh [BUILD_DIR]; BEFORE (an ibpoolroute),
# SWEEP.
set -eu
B=${1:-build}
BEFORE=${BEFORE:-}
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
P="--plus --hosts-per-switch 4 --leaves 4 --spines 4 --global-links 2"
P5="$P --groups 5 --arrangement relative"
SWEEP=${SWEEP:-}

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

[ -n "$SWEEP" ] || exit 0
runs=0 before=0 after=0 other=0
while IFS= read -r gen; do
	for seed in 4 5 6 7 8 9 10 11 12 13 14 15; do
		# shellcheck disable=SC2086
		"$B/ibtopogen" dragonfly $gen --seed "$seed" -o "$WORK/f.net"
		for lmc in 0 1; do
			runs=$((runs + 1))
			[ -z "$BEFORE" ] || "$BEFORE" route --net "$WORK/f.net" \
				--perms 0 --lmc "$lmc" >"$WORK/before.out" || true
			"$B/ibpoolroute" route --net "$WORK/f.net" --perms 0 \
				--lmc "$lmc" >"$WORK/ga.out" || true
			! grep -q 'credit loop through switch' "$WORK/before.out" \
				2>/dev/null || before=$((before + 1))
			! grep -q 'credit loop through switch' "$WORK/ga.out" ||
				after=$((after + 1))
			grep -q '^status *: ok' "$WORK/ga.out" ||
				other=$((other + 1))
			m=$(grep -o 'own routes off credit loops: [^)]*' \
				"$WORK/ga.out" || true)
			[ -z "$m" ] || echo "$gen --seed $seed --lmc $lmc: $m"
		done
	done
done <<LIST
$P --drop-local 0.1
$P --drop-local 0.15
$P --drop-global 0.1 --drop-local 0.05
--hosts-per-switch 4 --switches-per-group 8 --global-links 4 --drop-global 0.2
--hosts-per-switch 2 --switches-per-group 4 --global-links 2 --drop-global 0.2
$P5 --drop-local 0.15
LIST
echo "sweep: $runs routings, $before with a credit loop through the switches' routes before, $after after, $other not ok after"
