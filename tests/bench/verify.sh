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
# Get at a time), old (no options, OLD_VERIFY: an older build's
# ibpoolroute to compare with), full (--sa table with RMPPSIM_COMPACT=0:
# GetTable answers in full segments, each with its SA header, not
# rmppsim's compact ones) and niced (--sa table with verify 10 nice
# levels below ibsim and OpenSM, as this script ran it before: ibsim
# retries at once a write to a client whose socket queue is full, so a
# client that gets less CPU than ibsim makes it spin; every other mode
# runs verify at their priority); VERIFY, the ibpoolroute timed (this
# build's).  The CPU columns: what ibsim, OpenSM and verify used.
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
HZ=$(getconf CLK_TCK)
# ticks PID: the CPU time a process has used, in clock ticks.
ticks() { awk '{ print $14 + $15 }' "/proc/$1/stat"; }
# kids FILE: the CPU seconds this shell's waited-for children have used,
# from times's second line in FILE (times in a subshell sees none).
kids() {
	awk 'NR == 2 { s = 0; for (i = 1; i <= 2; i++) {
		split($i, a, /[ms]/); s += a[1] * 60 + a[2] } printf "%.2f", s }' "$1"
}
# secs A B: clock ticks B - A as seconds.
secs() { awk -v a="$1" -v b="$2" -v hz="$HZ" 'BEGIN { printf "%.1f", (b - a) / hz }'; }

# run NET MODE: one verify, one markdown row.
run() {
	local net=$1 mode=$2 t0 t1 rc=0 args bin pri="" s0 o0 s1 o1 k0 k1
	local compact=1
	case $mode in
	table) args="--sa table" ;;
	niced) args="--sa table"; pri=nice ;;
	full) args="--sa table"; compact=0 ;;
	pair) args="--sa pair" ;;
	sample) args="--sample 100000" ;;
	serial) args="--sa table --smp-window 1" ;;
	old) args="" ;;
	esac
	bin=$VERIFY
	[ "$mode" != old ] || bin=$OLD_VERIFY
	[ "$mode" = old ] || args="$args --progress"
	s0=$(ticks "$SIM_PID")
	o0=$(ticks "$OSM_PID")
	times >"$WORK/times0"
	t0=$(ms)
	# shellcheck disable=SC2086
	env LD_PRELOAD="$RMPPSIM:$UMAD2SIM" RMPPSIM_COMPACT=$compact \
		$pri "$bin" verify --perms 0 \
		$args >"$WORK/$net-$mode.out" 2>"$WORK/$net-$mode.err" || rc=$?
	t1=$(ms)
	times >"$WORK/times1"
	k0=$(kids "$WORK/times0")
	k1=$(kids "$WORK/times1")
	s1=$(ticks "$SIM_PID")
	o1=$(ticks "$OSM_PID")
	echo "| $net | ${pri:+nice, }${args:-none (OLD_VERIFY)}$([ $compact = 1 ] || echo ', full segments') | $rc | $(awk -v a="$t0" -v b="$t1" \
		'BEGIN { printf "%.1f", (b - a) / 1000 }') | $(secs "$s0" "$s1") | $(secs "$o0" "$o1") | $(awk \
		-v a="$k0" -v b="$k1" 'BEGIN { printf "%.1f", b - a }') | $(grep -c \
		'^verify: ' "$WORK/$net-$mode.err") | $(grep '^read ' \
		"$WORK/$net-$mode.out" | sed 's/^read *: .*), //') | $(grep \
		'^path SLs' "$WORK/$net-$mode.out" | sed 's/^path SLs *: //') |"
	grep '^verify: path SLs' "$WORK/$net-$mode.err" | tail -1 >&2 || true
}

echo "| fabric | verify options | exit | seconds | ibsim CPU s | OpenSM CPU s | verify CPU s | progress lines | LFT and SL2VL reads | path SLs line |"
echo "|---|---|---|---|---|---|---|---|---|---|"
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
