#!/bin/sh
# SPDX-License-Identifier: MIT
# The send timeouts of build/rmppsim.so, which t-failover's SMs rely on:
# OpenSM with the plugin at h01 under ibsim, then an SM port at h03 that
# answers nothing (as a second OpenSM that has not found its own port
# yet).  The master's heavy sweep asks it for its SMInfo; the Get comes
# back timed out, as the kernel hands it back on hardware, and the sweep
# ends with the plugin's routing.  Under umad2sim alone the sweep waits
# on that answer for ever (T_PLAIN=1 runs it so: this test then fails).
set -eu
. "$(dirname "$0")/lib.sh"
t_init sm-timeout
t_need "$BDIR/rmppsim.so" "$BDIR/issmhold"
[ "${T_PLAIN:-0}" = 1 ] ||
	OSM_PRELOAD="$(san_preload)$BDIR/rmppsim.so:$UMAD2SIM"
cd "$WORK"
NET=$CONFIGS/ft2-tiny.net

sim_start "$NET"
printf '%s\n' "[hints]" "socket = $WORK/sm.sock" \
	"state_dir = $WORK/hints" >"$WORK/sm.ini"
# shellcheck disable=SC2046
conf=$(osm_conf smA $(fragment_keys "$CONFIGS/opensm-gpuaware.conf") \
	event_plugin_options "$WORK/sm.ini" sm_priority 10 log_flags 0x4f)
osm_at smA h01 "$conf"
PA=$OSM_PID
poll 60 sweeps_done "$WORK/smA.log" 1 || t_fail "smA: no routing"
# An SM port that answers nothing: h03's issm device held open, as an
# SM holds it, by a process with no MAD agent.
env SIM_HOST=h03 LD_PRELOAD="$UMAD2SIM" "$BDIR/issmhold" \
	2>"$WORK/issm.err" &
T_PIDS="$T_PIDS $!"
poll 30 log_has "$WORK/smA.log" "Detected another SM. Requesting SMInfo" 1 ||
	t_fail "smA asked h03 nothing: $(cat "$WORK/issm.err")"
poll 30 sweeps_done "$WORK/smA.log" 2 ||
	t_fail "smA's sweep did not end: it waits on h03's SMInfo ($(grep -c 'ERR 54' "$WORK/smA.log") MAD errors logged)"
grep -q "ERR 5411: .*IB_TIMEOUT" "$WORK/smA.log" ||
	t_fail "smA logged no timed-out SMP: $(grep 'ERR 54' "$WORK/smA.log" | tail -2)"
kill -0 "$PA" || t_fail "smA is gone"
t_log "an SM port that answers nothing: the master's SMInfo Get timed out ($(grep -c 'ERR 5411' "$WORK/smA.log") logged) and its sweep routed"
