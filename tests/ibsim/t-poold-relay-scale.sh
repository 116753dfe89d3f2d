#!/bin/sh
# SPDX-License-Identifier: MIT
# ibpoold's relay past 64 KiB (issue 24 item 5): 600 jobs of all 16
# hosts of ft2-tiny (Slurm's shared nodes), about 90 KB of hints, reach
# OpenSM's plugin as changes; once the whole table passed the plugin's
# 64 KiB line every job.start was refused and job.ends were lost.
# Every job.start is taken and routed, the plugin holds the 600, a
# job's end leaves it, and after an OpenSM restart (its state file and
# log) the plugin has them all again.
set -eu
. "$(dirname "$0")/lib.sh"
t_init poold-relay-scale
t_need "$BDIR/ibpoold" "$BDIR/ibpoolroute"
cd "$WORK"

plugin_ini "$WORK/gpuaware.conf" '[routing]' 'engine = auto'
sim_start "$CONFIGS/ft2-tiny.net"
osm_up ga opensm-gpuaware.conf sweep_interval 1
poold_live 200

ours() {
	sm hints get --json >"$WORK/hg" 2>/dev/null &&
		[ "$(json "$WORK/hg" 'scalar grep { ($_->{owner} // "") eq "ibpoold" } @{$r->{jobs}}')" = "$1" ]
}
i=0
while [ $i -lt 600 ]; do
	i=$((i + 1))
	pr jobs --start "j$i" --hosts 'h[01-16]' --json >"$WORK/js" ||
		t_fail "job j$i: $(cat "$WORK/js")"
	! grep -q routing_refused "$WORK/js" ||
		t_fail "job j$i refused by the routing: $(cat "$WORK/js")"
done
poll 60 ours 600 || t_fail "the plugin holds $(json "$WORK/hg" 'scalar @{$r->{jobs}}') jobs, not our 600"
[ "$(wc -c <"$WORK/hg")" -gt 65536 ] || t_fail "only $(wc -c <"$WORK/hg") bytes of jobs"
pr jobs --end j7 >/dev/null || t_fail "job.end j7"
poll 30 ours 599 || t_fail "j7's end did not reach the plugin"
grep -q '"id":"j7"' "$WORK/hg" && t_fail "j7 still in the plugin's table"
pr pool --json >"$WORK/st"
[ "$(json "$WORK/st" '$r->{relay}{synced} && !$r->{relay}{refused} ? 1 : 0')" = 1 ] ||
	t_fail "relay: $(cat "$WORK/st")"

# OpenSM again: the plugin loads its file and log, and the relay finds
# its 599 there.
osm_stop ga
osm_up ga opensm-gpuaware.conf sweep_interval 1
poll 60 ours 599 || t_fail "after the restart: $(json "$WORK/hg" 'scalar @{$r->{jobs}}') jobs"
t_log "599 jobs, $(wc -c <"$WORK/hg") bytes of hints, in the plugin after a restart"
kill "$PD"
wait "$PD" || t_fail "ibpoold exit $?: $(tail -3 "$WORK/poold.err")"
