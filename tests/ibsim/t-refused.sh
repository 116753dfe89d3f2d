#!/bin/sh
# SPDX-License-Identifier: MIT
# A fabric the plugin refuses (a forced torus engine on a fat-tree), with
# OpenSM's fallback named (routing_engine gpuaware,updn): the subnet
# comes up on updn; `ibpoolroute state` names the refusal, its GA code
# and the engine used instead; `hints add --wait` fails with that reason
# long before its timeout; the metrics say which engine routed and that
# this SM is master.  A saved `hints get --json` restores the table as
# it is.
set -eu
. "$(dirname "$0")/lib.sh"
t_init refused
t_need "$BDIR/ibpoolroute"

PROM=$WORK/gpuaware.prom
plugin_ini "$WORK/gpuaware.conf" '[routing]' 'engine = torus' \
	'[metrics]' "textfile = $PROM"
sim_start "$CONFIGS/ft2-tiny.net"
CONF=$(osm_conf refused routing_engine gpuaware,updn \
	event_plugin_name gpuaware event_plugin_options "$WORK/gpuaware.conf")
osm_start "$CONF"
wait_log "$WORK/refused.log" "updn tables configured on all switches" 1 60 ||
	t_fail "no fallback routing: $(grep 'tables configured' "$WORK/refused.log")"
log_has "$WORK/refused.log" "gpuaware: ERR GA01: engine 'torus' does not fit" 1 ||
	t_fail "no GA01 in the log"
check_pushed "$WORK/refused.dump"

poll 10 sh -c "\"$BDIR/ibpoolroute\" state --socket '$WORK/sm.sock' | grep -q '^refused'" ||
	t_fail "state names no refusal: $(sm state 2>&1)"
sm state >"$WORK/state.out"
grep -q "^in switches  : OpenSM's engine updn$" "$WORK/state.out" ||
	t_fail "state: $(cat "$WORK/state.out")"
grep -q "^refused      : GA01: engine 'torus' does not fit this fabric (fat-tree): not a torus: .* (job table generation 0)$" \
	"$WORK/state.out" || t_fail "state: $(cat "$WORK/state.out")"

# --wait: the sweep for the new table is refused too; said at once.
t0=$(date +%s%N)
rc=0
sm hints add j1 h01 h05 --wait --timeout 60000 >"$WORK/wait.out" 2>&1 || rc=$?
ms=$((($(date +%s%N) - t0) / 1000000))
[ "$rc" -eq 1 ] || t_fail "hints add --wait: exit $rc: $(cat "$WORK/wait.out")"
grep -q "the job table at generation 1 was not routed: the plugin refused the fabric (GA01: engine 'torus' does not fit .*); OpenSM routed with updn" \
	"$WORK/wait.out" || t_fail "hints add --wait: $(cat "$WORK/wait.out")"
[ "$ms" -lt 30000 ] || t_fail "--wait took $ms ms of its 60000 ms"
t_log "hints add --wait on a refused fabric: failed after $ms ms"

# the metrics: the engine OpenSM used, the SM's role
poll 10 sh -c "grep -q '^gpuaware_sm_engine_in_use{engine=\"updn\"} 1$' '$PROM'" ||
	t_fail "engine in use: $(grep engine_in_use "$PROM")"
grep -q '^gpuaware_sm_role{role="master"} 1$' "$PROM" ||
	t_fail "role: $(grep sm_role "$PROM")"
grep -q '^gpuaware_sm_routings_total{result="failed"} [1-9]' "$PROM" ||
	t_fail "failed routings: $(grep routings_total "$PROM")"

# the documented backup and restore: get --json feeds set as it is
sm hints get --json >"$WORK/backup.json"
sm hints remove j1 >/dev/null
sm hints set - <"$WORK/backup.json" >"$WORK/restore.out" 2>&1 ||
	t_fail "hints set from hints get --json: $(cat "$WORK/restore.out")"
sm hints get | grep -q '^  j1 .* 2 hosts: h01 h05$' ||
	t_fail "restored: $(sm hints get)"
