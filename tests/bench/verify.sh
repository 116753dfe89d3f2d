#!/bin/sh
# SPDX-License-Identifier: MIT
# How long `ibpoolroute verify` takes on a whole fat-tree under ibsim and
# OpenSM's ftree: the full check with the SA asked per source (GetTable)
# or per pair (Get), and a sampled check.  OpenSM and our client run with
# rmppsim.so (tests/ibsim/rmppsim.c) ahead of umad2sim, which cannot carry
# a multi-MAD SA answer otherwise.  Markdown rows for docs/benchmarks.md.
# Usage: tests/bench/verify.sh [BUILD_DIR]; RUNS, fabric:modes[,modes]
# (default "ft3-1k.net:table,pair,sample ft3-4k.net:table,sample": not per
# pair at 4,096 hosts, see docs/benchmarks.md); modes table, pair, sample
# (--sample 100000), serial (--sa table --smp-window 1: one LFT or SL2VL
# Get at a time) and old (no options, OLD_VERIFY: an older build's
# ibpoolroute to compare with); VERIFY, the ibpoolroute timed (this
# build's).
set -eu
B=${1:-build}
export B
. "$(dirname "$0")/../ibsim/lib.sh"
t_init bench-verify
cd "$WORK"

RUNS=${RUNS:-"ft3-1k.net:table,pair,sample ft3-4k.net:table,sample"}
VERIFY=${VERIFY:-$BDIR/ibpoolroute}
OLD_VERIFY=${OLD_VERIFY:-}
RMPPSIM=$BDIR/rmppsim.so
t_need "$VERIFY" "$RMPPSIM"
OSM_PRELOAD="$RMPPSIM:$OSM_PRELOAD"

ms() { echo $(($(date +%s%N) / 1000000)); }

# run NET MODE: one verify, one markdown row.
run() {
	local net=$1 mode=$2 t0 t1 rc=0 args bin
	case $mode in
	table) args="--sa table" ;;
	pair) args="--sa pair" ;;
	sample) args="--sample 100000" ;;
	serial) args="--sa table --smp-window 1" ;;
	old) args="" ;;
	esac
	bin=$VERIFY
	[ "$mode" != old ] || bin=$OLD_VERIFY
	[ "$mode" = old ] || args="$args --progress"
	t0=$(ms)
	# shellcheck disable=SC2086
	env LD_PRELOAD="$RMPPSIM:$UMAD2SIM" nice "$bin" verify --perms 0 \
		$args >"$WORK/$net-$mode.out" 2>"$WORK/$net-$mode.err" || rc=$?
	t1=$(ms)
	echo "| $net | ${args:-none (OLD_VERIFY)} | $rc | $(awk -v a="$t0" -v b="$t1" \
		'BEGIN { printf "%.1f", (b - a) / 1000 }') | $(grep -c \
		'^verify: ' "$WORK/$net-$mode.err") | $(grep '^read ' \
		"$WORK/$net-$mode.out" | sed 's/^read *: .*), //') | $(grep \
		'^path SLs' "$WORK/$net-$mode.out" | sed 's/^path SLs *: //') |"
	grep '^verify: path SLs' "$WORK/$net-$mode.err" | tail -1 >&2 || true
}

echo "| fabric | verify options | exit | seconds | progress lines | LFT and SL2VL reads | path SLs line |"
echo "|---|---|---|---|---|---|---|"
for r in $RUNS; do
	net=${r%%:*}
	sim_start "$CONFIGS/$net"
	conf=$(osm_conf "$net" routing_engine ftree)
	osm_start "$conf"
	wait_log "$WORK/$net.log" "> SUBNET UP$" 1 900
	for m in $(echo "${r#*:}" | tr , ' '); do
		run "$net" "$m"
	done
	osm_stop
	sim_stop
done
