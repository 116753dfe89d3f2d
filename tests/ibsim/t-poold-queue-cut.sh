#!/bin/sh
# SPDX-License-Identifier: MIT
# Continuity on a live fabric: ibsim's ft2-tiny routed by OpenSM with
# the plugin, ibpoold reading it.  A gang of two hosts is granted from
# the queue; a host of it has its cable cut in ibsim.  At the next
# discovery the daemon finds the host gone, the watcher is told the
# gang is lost, and it is replaced on another host at the same level
# (same allocation, the cut host's GPUs swapped).  The times are asserted
# loosely (60 s each) and logged.
set -eu
. "$(dirname "$0")/lib.sh"
t_init poold-queue-cut
t_need "$BDIR/ibpoold" "$BDIR/ibpoolroute"
cd "$WORK"

plugin_ini "$WORK/gpuaware.conf" '[routing]' 'engine = auto'
NET=$CONFIGS/ft2-tiny.net
sim_start "$NET"
osm_up ga opensm-gpuaware.conf sweep_interval 1
no_errors "$WORK/ga.log"

poold_live 300

pr watch --json >"$WORK/watch" 2>"$WORK/watch.err" &
T_PIDS="$T_PIDS $!"
pr submit --client h01 --gpus 8 --per-host 4 --json >"$WORK/sub" ||
	t_fail "submit: $(cat "$WORK/sub")"
[ "$(json "$WORK/sub" '$r->{queued} ? "queued" : $r->{id}')" = 1 ] ||
	t_fail "the gang was not granted at once: $(cat "$WORK/sub")"
hosts=$(json "$WORK/sub" 'my %h; $h{$_->{host}} = 1 for @{$r->{gpus}};
	join " ", sort keys %h')
cut=$(json "$WORK/sub" 'my ($g) = grep { $_->{host} ne "h01" } @{$r->{gpus}};
	$g->{host}')
[ -n "$cut" ] || t_fail "no host of the gang but the client's: $hosts"

unlink_lost "$cut" 1
watch_has '$r->{event} eq "replaced" && @{$r->{alloc}{gpus}} == 8 &&
	!grep { $_->{host} eq "'"$cut"'" } @{$r->{alloc}{gpus}}' ||
	t_fail "the replacement keeps $cut or lost GPUs: $(cat "$WORK/watch")"
pr allocs --json >"$WORK/list"
[ "$(json "$WORK/list" 'scalar grep { $_->{host} eq "'"$cut"'" }
	map { @{$_->{gpus}} } @{$r->{allocs}}')" = 0 ] ||
	t_fail "allocation 1 still holds $cut: $(cat "$WORK/list")"
t_log "$cut of $hosts cut: lost $LOST_S s after the unlink, replaced $REPLACED_S s later"
kill "$PD"
wait "$PD" || t_fail "ibpoold exit $?: $(tail -3 "$WORK/poold.err")"
