#!/bin/sh
# SPDX-License-Identifier: MIT
# The plugin routes tori and a mesh in a real OpenSM under ibsim, with no
# seed file: the tables reach the switches, and `ibpoolroute verify`
# (LFTs and SL2VL read from the switches, path SLs from the SA) finds
# every pair connected and no credit loop, the plugin's own check no loop
# through the switches' answers either (no WRN GA44); again after a cable
# and then a whole switch are unlinked from the ibsim console.  Without QoS the
# torus routing is refused with a line saying what to set, and the
# fabric gets up*-down* on VL 0, never a routing that can deadlock.
set -eu
. "$(dirname "$0")/lib.sh"
t_init torus-route

FABRICS=${FABRICS:-"torus-small.net torus-6x6.net mesh-small.net"}
t_need "$BDIR/ibpoolroute"

# "NAME PORT" of the first switch-to-switch cable of switch NAME.
sw_port() {
	awk -v sw="$2" '
	/^(Switch|Hca|Ca)[ \t]/ { match($0, /"[^"]*"/);
		cur = substr($0, RSTART + 1, RLENGTH - 2); next }
	cur == sw && /^\[[0-9]+\][ \t]*"sw-/ {
		print sw, substr($0, 2) + 0; exit }' "$1"
}

plugin_ini "$WORK/gpuaware.conf" '[routing]' 'engine = auto' '[log]' \
	'verbosity = verbose'

for fab in $FABRICS; do
	net=$CONFIGS/$fab
	name=${fab%.net}
	t_need "$net"
	t_log "$fab"
	sim_start "$net"
	osm_up ga opensm-gpuaware-torus.conf sweep_interval 2
	no_errors "$WORK/ga.log"
	log_has "$WORK/ga.log" "gpuaware: topology torus, engine torus" 1 ||
		t_fail "$fab: not routed as a torus: $(grep 'gpuaware: topology' "$WORK/ga.log" | head -1)"
	log_has "$WORK/ga.log" "gpuaware: quality: .* 0 unreachable .* no credit loop" 1 ||
		t_fail "$fab: the plugin's verifier is not clean"
	check_pushed "$WORK/ga.dump"
	verify_live "$name"
	t_log "$fab: $(grep -o 'recogniser: [^;]*' "$WORK/ga.log" | head -1), routed in $(route_ms "$WORK/ga.log" gpuaware) ms, $(grep 'credit loops' "$WORK/$name.verify")"

	set -- $(switches "$net")
	set -- $(sw_port "$net" "$3")
	t_log "$fab: unlink $1[$2]"
	sim_cmd "Unlink \"$1\"[$2]"
	poll 60 sweeps_done "$WORK/ga.log" 2 ||
		t_fail "$fab: no rerouting without $1[$2]"
	no_errors "$WORK/ga.log"
	log_has "$WORK/ga.log" "gpuaware: recogniser: .* 1 cables missing" 1 ||
		t_fail "$fab: the lost cable is not reported"
	verify_live "$name-link"

	set -- $(switches "$net")
	shift $(($# / 2))
	t_log "$fab: unlink switch $1"
	sim_cmd "Unlink \"$1\""
	poll 60 sweeps_done "$WORK/ga.log" 3 ||
		t_fail "$fab: no rerouting without switch $1"
	no_errors "$WORK/ga.log"
	log_has "$WORK/ga.log" "gpuaware: topology torus, engine torus" 3 ||
		t_fail "$fab: the degraded fabric is not routed as a torus"
	log_has "$WORK/ga.log" "gpuaware: recogniser: .* 1 switches and 1 cables missing" 1 ||
		t_fail "$fab: the lost switch is not reported"
	verify_live "$name-switch"
	t_log "$fab: after both failures $(grep 'credit loops' "$WORK/$name-switch.verify")"
	# the switches' answers to the hosts' requests close no credit loop
	count_lines "$WORK/ga.log" "WRN GA44" | grep -qx 0 ||
		t_fail "$fab: $(grep 'WRN GA44' "$WORK/ga.log" | head -1)"

	osm_stop
	sim_stop
	mkdir "$WORK/$name"
	mv "$WORK"/ga.* "$WORK/$name/"
done

# QoS off: refused with what to set, up*-down* on VL 0 meanwhile (2
# VLs: with one VL to program the answers' layer is left out first).
qos_off_refused "$CONFIGS/torus-6x6.net" torus 2
