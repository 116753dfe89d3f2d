#!/bin/sh
# SPDX-License-Identifier: MIT
# The plugin routes a 9-group dragonfly (72 hosts) in a real OpenSM under
# ibsim, LMC 1 so every host's second LID goes through an intermediate
# group: the tables reach the switches, and `ibpoolroute verify` (LFTs
# and SL2VL read from the switches, the SA's path SL for every LID pair)
# finds every pair connected and no credit loop on 3 VLs; again after a
# global cable is unlinked from the ibsim console.  A Dragonfly+ the
# same (2 VLs, LMC 0) after a leaf-spine cable is unlinked.  Without QoS
# the routing is refused with a line saying what to set, and up*-down*
# on VL 0 routes meanwhile.
set -eu
. "$(dirname "$0")/lib.sh"
t_init dragonfly-route

NET=$CONFIGS/dragonfly-small.net
t_need "$BDIR/ibpoolroute" "$NET"

# global_cable NETFILE: "NAME PORT" of the first cable between switches
# of two groups (switches are named g<group>-...).
global_cable() {
	awk '
	/^(Switch|Hca|Ca)[ \t]/ { match($0, /"[^"]*"/);
		cur = substr($0, RSTART + 1, RLENGTH - 2); next }
	cur ~ /^g[0-9]+-/ && /^\[[0-9]+\][ \t]*"g[0-9]+-/ {
		match($0, /"[^"]*"/); peer = substr($0, RSTART + 1, RLENGTH - 2)
		split(cur, a, "-"); split(peer, b, "-")
		if (a[1] != b[1]) { print cur, substr($0, 2) + 0; exit } }' "$1"
}

plugin_ini "$WORK/gpuaware.conf" '[routing]' 'engine = auto' '[log]' \
	'verbosity = verbose'

sim_start "$NET"
osm_up ga opensm-gpuaware-torus.conf lmc 1 sweep_interval 2
no_errors "$WORK/ga.log"
log_has "$WORK/ga.log" "gpuaware: topology dragonfly, engine dragonfly" 1 ||
	t_fail "not routed as a dragonfly: $(grep 'gpuaware: topology' "$WORK/ga.log" | head -1)"
log_has "$WORK/ga.log" "gpuaware: recogniser: dragonfly: 9 groups of 4 switches (p=2 a=4 h=2 g=9), 36 global cables, canonical" 1 ||
	t_fail "the recogniser line is not the fabric's: $(grep 'gpuaware: recogniser' "$WORK/ga.log" | head -1)"
log_has "$WORK/ga.log" "gpuaware: quality: .* 0 unreachable .* no credit loop" 1 ||
	t_fail "the plugin's verifier is not clean"
check_pushed "$WORK/ga.dump"
verify_live intact
grep -q "credit loops: none (3 VLs" "$WORK/intact.verify" ||
	t_fail "intact: not 3 VLs (LMC 1): $(grep 'credit loops' "$WORK/intact.verify")"
t_log "intact: $(grep -o '[0-9]* take an LMC LID through a third group' "$WORK/ga.log" | head -1), routed in $(route_ms "$WORK/ga.log" gpuaware) ms, $(grep 'credit loops' "$WORK/intact.verify")"

set -- $(global_cable "$NET")
[ $# -eq 2 ] || t_fail "no global cable in $NET"
t_log "unlink global cable $1[$2]"
sim_cmd "Unlink \"$1\"[$2]"
poll 60 sweeps_done "$WORK/ga.log" 2 || t_fail "no rerouting without $1[$2]"
no_errors "$WORK/ga.log"
log_has "$WORK/ga.log" "gpuaware: topology dragonfly, engine dragonfly" 2 ||
	t_fail "without $1[$2] not routed as a dragonfly"
log_has "$WORK/ga.log" "gpuaware: recogniser: .* 35 global cables, canonical, 1 group pairs without a global cable" 1 ||
	t_fail "the lost global cable is not reported"
verify_live global
t_log "without $1[$2]: $(grep -o '[0-9]* go round a missing global cable' "$WORK/ga.log" | tail -1), $(grep 'credit loops' "$WORK/global.verify")"
osm_stop
sim_stop

# Dragonfly+ (leaf/spine groups), then one leaf-spine cable cut: still
# the dragonfly engine, verified live.
"$BDIR/ibtopogen" dragonfly --plus -o "$WORK/dfplus.net"
sim_start "$WORK/dfplus.net"
osm_up plus opensm-gpuaware-torus.conf sweep_interval 2
no_errors "$WORK/plus.log"
log_has "$WORK/plus.log" "gpuaware: topology dragonfly+, engine dragonfly" 1 ||
	t_fail "Dragonfly+ not routed as one: $(grep 'gpuaware: topology' "$WORK/plus.log" | head -1)"
verify_live plus
set -- $(awk '/^Switch/ { match($0, /"[^"]*"/);
	cur = substr($0, RSTART + 1, RLENGTH - 2); next }
	cur ~ /-leaf/ && /^\[[0-9]+\][ \t]*"g[0-9]+-spine/ {
		print cur, substr($0, 2) + 0; exit }' "$WORK/dfplus.net")
[ $# -eq 2 ] || t_fail "no leaf-spine cable in the Dragonfly+"
t_log "Dragonfly+: unlink leaf-spine cable $1[$2]"
sim_cmd "Unlink \"$1\"[$2]"
poll 60 sweeps_done "$WORK/plus.log" 2 ||
	t_fail "Dragonfly+: no rerouting without $1[$2]"
no_errors "$WORK/plus.log"
log_has "$WORK/plus.log" "gpuaware: topology dragonfly+, engine dragonfly" 2 ||
	t_fail "Dragonfly+ without $1[$2] not routed by the dragonfly engine: $(grep 'gpuaware: recogniser' "$WORK/plus.log" | tail -1)"
verify_live plus-cut
t_log "Dragonfly+ without $1[$2]: $(grep 'credit loops' "$WORK/plus-cut.verify")"
osm_stop
sim_stop

# QoS off: refused with what to set, up*-down* on VL 0 meanwhile.
qos_off_refused "$NET" dragonfly 2
