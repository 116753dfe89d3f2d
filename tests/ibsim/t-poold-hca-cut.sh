#!/bin/sh
# SPDX-License-Identifier: MIT
# Continuity when one HCA of a host goes: ibsim's rail-small (hosts of
# four HCAs, one a rail) routed by OpenSM with the plugin, ibpoold with
# four of its hosts.  An allocation's GPU has its HCA unlinked in ibsim:
# at the next discovery the host stays up, the watcher is told the
# allocation is lost, and it is replaced (same id, the GPU behind the
# lost HCA swapped for a live one).  The times are asserted loosely
# (60 s each) and logged.
set -eu
. "$(dirname "$0")/lib.sh"
t_init poold-hca-cut
t_need "$BDIR/ibpoold" "$BDIR/ibpoolroute"
cd "$WORK"

plugin_ini "$WORK/gpuaware.conf" '[routing]' 'engine = auto'
NET=$CONFIGS/rail-small.net
sim_start "$NET"
osm_up ga opensm-gpuaware.conf sweep_interval 1
no_errors "$WORK/ga.log"

{
	printf '[pool]\nsocket = x\nstate_dir = x\nsm_socket = x\n'
	printf 'telemetry_interval_ms = 300\n'
	for k in 1 2 3 4; do
		h=$(printf node%04d "$k")
		printf '[host %s]\ngpus = 4\ngpu_type = H100\n' "$h"
		printf 'hca = %s mlx5_0, %s mlx5_1, %s mlx5_2, %s mlx5_3\n' \
			"$h" "$h" "$h" "$h"
	done
} >"$WORK/rail.conf"
POOL_SAMPLE=$WORK/rail.conf poold_live 300

pr watch --json >"$WORK/watch" 2>"$WORK/watch.err" &
T_PIDS="$T_PIDS $!"
pr alloc --client node0001 --gpus 4 --json >"$WORK/a1" ||
	t_fail "alloc: $(cat "$WORK/a1")"
[ "$(json "$WORK/a1" '$r->{id}')" = 1 ] || t_fail "alloc: $(cat "$WORK/a1")"
host=$(json "$WORK/a1" '$r->{gpus}[1]{host}')
gpu=$(json "$WORK/a1" '$r->{gpus}[1]{gpu}')
rail=$(json "$WORK/a1" '$r->{gpus}[1]{rail}')
ca="$host mlx5_$rail"

unlink_lost "$ca" 1
watch_has '$r->{event} eq "replaced" && @{$r->{alloc}{gpus}} == 4 &&
	!grep { $_->{host} eq "'"$host"'" && $_->{gpu} == '"$gpu"' } @{$r->{alloc}{gpus}}' ||
	t_fail "the replacement keeps GPU $gpu of $host: $(cat "$WORK/watch")"
pr pool --json >"$WORK/pool"
[ "$(json "$WORK/pool" 'join "", map { $_->{state} } grep { $_->{host} eq "'"$host"'" } @{$r->{hosts}}')" = up ] ||
	t_fail "$host is not up with three HCAs: $(cat "$WORK/pool")"
t_log "$ca cut: allocation 1 lost $LOST_S s after the unlink, replaced $REPLACED_S s later"
kill "$PD"
wait "$PD" || t_fail "ibpoold exit $?: $(tail -3 "$WORK/poold.err")"
