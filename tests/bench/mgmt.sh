#!/bin/sh
# SPDX-License-Identifier: MIT
# The switches' own routes (switch-sourced, to every LID) on fat-trees,
# intact and degraded: OpenSM's updn, its LFTs as dumped under ibsim,
# against gpuaware's routing core on the same fabric (BEFORE: the
# ibpoolroute of another build, for the routing before a change).
# Pairs without a route, loops, and whether they close a credit loop the
# CA-to-CA routes alone do not.  Markdown rows for docs/benchmarks.md.
# Usage: tests/bench/mgmt.sh [BUILD_DIR]; FABRICS (ibtopogen arguments,
# ";" between fabrics), BEFORE (an ibpoolroute, optional), KEEP (a
# directory to keep the reports in), ENGINES (OpenSM's engines to run,
# default updn).
set -eu
B=${1:-build}
export B
. "$(dirname "$0")/../ibsim/lib.sh"
t_init bench-mgmt
cd "$WORK"

FABRICS=${FABRICS:-"fattree --k 4 --levels 3;fattree --k 4 --levels 3 --drop 0.1 --seed 1;fattree --k 8 --levels 2 --drop 0.2 --seed 1;fattree --radix 16 --levels 3 --drop 0.1 --drop-switches 2 --seed 3"}
BEFORE=${BEFORE:-}
KEEP=${KEEP:-}
ENGINES=${ENGINES:-updn}

# cells REPORT: switch-sourced pairs, without a route, loops, credit
# loop through them, CA-to-switch-LID pairs without a route.
cells() {
	awk '
	/^mgmt routes :/ {
		pairs = $4; un = $7; sub(/,/, "", un); lp = $9; sub(/\),?/, "", lp)
		cyc = /credit loop on VL/ ? "**yes**" : "no"
	}
	/^switch LIDs :/ { sw = $7; sub(/,/, "", sw) }
	END { printf "%s | %s | %s | %s | %s", pairs, un, lp, cyc, sw }' "$1"
}

echo "| fabric | routing | switch-sourced pairs | without a route | loops | credit loop through them | CA-to-switch-LID pairs without a route |"
echo "|---|---|---|---|---|---|---|"
i=0
old_ifs=$IFS
IFS=';'
for args in $FABRICS; do
	IFS=$old_ifs
	i=$((i + 1))
	# shellcheck disable=SC2086
	"$BDIR/ibtopogen" $args -o "$WORK/f$i.net"
	if [ -n "$BEFORE" ]; then
		"$BEFORE" route --net "$WORK/f$i.net" --perms 0 >"$WORK/before$i.out" || true
		echo "| $args | gpuaware before | $(cells "$WORK/before$i.out") |"
	fi
	"$BDIR/ibpoolroute" route --net "$WORK/f$i.net" --perms 0 >"$WORK/ga$i.out" || true
	echo "| $args | gpuaware | $(cells "$WORK/ga$i.out") |"
	sim_start "$WORK/f$i.net"
	for e in $ENGINES; do
		conf=$(osm_conf "$e$i" routing_engine "$e")
		osm_once "$conf"
		"$BDIR/ibpoolroute" analyze "$WORK/$e$i.dump" >"$WORK/$e$i.out" || true
		# OpenSM falls back to minhop when an engine fails; say which routed.
		used=$(sed -n 's/.* \([a-zA-Z0-9_]*\) tables configured on all switches$/\1/p' \
			"$WORK/$e$i.log" | tail -1)
		echo "| $args | OpenSM $e (${used:-none} routed) | $(cells "$WORK/$e$i.out") |"
	done
	sim_stop
	[ -z "$KEEP" ] || cp "$WORK"/*"$i".out "$KEEP"/
	IFS=';'
done
IFS=$old_ifs
