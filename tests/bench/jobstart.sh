#!/bin/sh
# SPDX-License-Identifier: MIT
# What a Slurm hook waits for: job.start then job.end on ibpoold's Unix
# socket, one `ibpoolroute jobs` each, with the plugin up (job.start
# waits for the relay's hints.set to say whether the plugin refused the
# job) and with the plugin's socket absent (no wait).  ibsim's ft2-small,
# OpenSM with the plugin, ibpoold offline on the same net file.  Prints
# a markdown table for docs/benchmarks.md.
# Usage: tests/bench/jobstart.sh [BUILD_DIR]; N (50) jobs a case.
set -eu
B=${1:-build}
export B
. "$(dirname "$0")/../ibsim/lib.sh"
t_init bench-jobstart
cd "$WORK"
N=${N:-50}
NET=$CONFIGS/ft2-small.net

plugin_ini "$WORK/gpuaware.conf"
sim_start "$NET"
osm_up ga opensm-gpuaware.conf

# run SM_SOCKET: ibpoold relaying to SM_SOCKET, N starts and ends timed;
# prints "start p50 p99 end p50 p99" in ms.
run() {
	rm -rf "$WORK/state" "$WORK/pool.sock"
	"$BDIR/ibpoold" --print-config --net "$NET" --gpus 4 --gpu-type T4 \
		>"$WORK/pool.conf"
	sed -i "/^\[pool\]/a socket = $WORK/pool.sock\nstate_dir = $WORK/state\nsm_socket = $1" \
		"$WORK/pool.conf"
	"$BDIR/ibpoold" -c "$WORK/pool.conf" --net "$NET" 2>"$WORK/poold.err" &
	PD=$!
	T_PIDS="$T_PIDS $PD"
	poll 30 poold_up || t_fail "ibpoold: $(tail -2 "$WORK/poold.err")"
	: >"$WORK/times"
	i=0
	while [ $i -lt "$N" ]; do
		h=$(printf 'node%04d' $((i % 32 + 1)))
		t0=$(date +%s%N)
		pr jobs --start "j$i" --hosts "$h" >/dev/null
		t1=$(date +%s%N)
		pr jobs --end "j$i" >/dev/null
		t2=$(date +%s%N)
		echo "$(((t1 - t0) / 1000)) $(((t2 - t1) / 1000))" >>"$WORK/times"
		i=$((i + 1))
	done
	stop_pid "$PD"
	perl -e 'my (@s, @e); while (<>) { my ($a, $b) = split; push @s, $a;
		push @e, $b }
		sub quant { my ($p, @v) = @_; @v = sort { $a <=> $b } @v;
			$v[int($p * $#v + 0.5)] / 1000 }
		printf "%.1f %.1f %.1f %.1f\n", quant(0.5, @s), quant(0.99, @s),
			quant(0.5, @e), quant(0.99, @e)' "$WORK/times"
}

up=$(run "$WORK/sm.sock")
down=$(run "$WORK/none.sock")
echo "$N job.start and job.end a case, \`ibpoolroute jobs\` each (a process per request), $(nproc) CPUs"
echo
echo "| plugin | job.start p50 / p99 ms | job.end p50 / p99 ms |"
echo "|---|---|---|"
# shellcheck disable=SC2086 # four numbers
set -- $up
echo "| up: job.start waits for its hints.set | $1 / $2 | $3 / $4 |"
# shellcheck disable=SC2086 # four numbers
set -- $down
echo "| socket absent: no wait | $1 / $2 | $3 / $4 |"
