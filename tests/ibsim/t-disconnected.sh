#!/bin/sh
# SPDX-License-Identifier: MIT
# Two islands, joined only by a dual-port host (CAs do not forward).
#
# What OpenSM sees: only the island of its own port.  Discovery runs by
# directed route from the SM's port and never crosses a CA, so the other
# island is not in its subnet and an SM there routes it.  The plugin must
# route its island fully from either side, route both once a cable joins
# them, and only its own island again when the cable is pulled.  The
# routing core the plugin calls, run offline on the whole file, must count
# the cross-island pairs as disconnected, not as routing failures.
set -eu
. "$(dirname "$0")/lib.sh"
t_init disconnected

NET=$CONFIGS/islands-tiny.net
plugin_ini "$WORK/gpuaware.conf" '[log]' 'verbosity = verbose'

# plugin_conf NAME [KEY VALUE]...
plugin_conf() {
	local name="$1"
	shift
	# shellcheck disable=SC2046
	osm_conf "$name" $(fragment_keys "$CONFIGS/opensm-gpuaware.conf") \
		event_plugin_options "$WORK/gpuaware.conf" "$@"
}

# island_only NAME OWN OTHER: run NAME routed all of island OWN and saw
# nothing of island OTHER (node names start with "OWN-" / "OTHER-").
island_only() {
	local d="$WORK/$1.dump"
	grep -q -- "$PLUGIN_LINE" "$WORK/$1.log" || t_fail "$1: not routed"
	! grep -q "gpuaware: ERR" "$WORK/$1.log" || t_fail "$1: plugin errors"
	grep -q "gpuaware: quality: .* 0 unreachable .* 0 disconnected" \
		"$WORK/$1.log" || t_fail "$1: verifier found lost pairs"
	grep -q "{$2-spine}" "$d/opensm-subnet.lst" ||
		t_fail "$1: island $2 missing"
	! grep -q "{$3-" "$d/opensm-subnet.lst" ||
		t_fail "$1: OpenSM saw island $3 through a CA"
	check_pushed "$d"
	check_analyze "$d"
	check_ibdmchk "$d"
}

# The core's own view of the whole file: every pair the cabling connects
# is routed; the rest, and only the rest, is disconnected.  The same
# fabric with the islands cabled together counts the whole.
t_need "$BDIR/ibpoolroute"
offline() {
	"$BDIR/ibpoolroute" route --json --perms 0 --net "$1" >"$2" ||
		t_fail "offline routing of $1 failed: $(cat "$2")"
}
num() {
	sed -n "s/^ *\"$1\": \([0-9]*\),*$/\1/p" "$2"
}
awk '{ print }
	/^Switch.*"a-spine"/ { print "[8]\t\"b-spine\"[8]" }
	/^Switch.*"b-spine"/ { print "[8]\t\"a-spine\"[8]" }' "$NET" \
	>"$WORK/joined.net"
offline "$NET" "$WORK/split.json"
offline "$WORK/joined.net" "$WORK/joined.json"
pairs=$(num pairs "$WORK/split.json")
disc=$(num disconnected "$WORK/split.json")
all=$(num pairs "$WORK/joined.json")
[ -n "$pairs" ] && [ -n "$disc" ] && [ -n "$all" ] ||
	t_fail "offline reports lack pairs or disconnected"
[ "$(num unreachable "$WORK/split.json")" = 0 ] ||
	t_fail "offline: unreachable pairs in the islands"
[ "$(num disconnected "$WORK/joined.json")" = 0 ] ||
	t_fail "offline: joined islands still disconnected"
[ "$disc" -gt 0 ] || t_fail "offline: the islands are not disconnected"
[ $((pairs + disc)) -eq "$all" ] ||
	t_fail "offline: $pairs routed + $disc disconnected, joined $all"

# Each island by the SM inside it.
sim_start "$NET" a1
osm_once "$(plugin_conf a)"
island_only a a b
sim_stop
sim_start "$NET" b1
osm_once "$(plugin_conf b)"
island_only b b a

# One SM in island A while a cable joins and then splits the islands.
sim_stop
sim_start "$NET" a1
conf=$(plugin_conf live sweep_interval 2)
osm_start "$conf"
wait_log "$WORK/live.log" "> SUBNET UP$" 1 30
sim_cmd 'Link "a-spine"[8] "b-spine"[8]'
joined() {
	log_has "$WORK/live.log" "> SUBNET UP$" 2 &&
		grep -q "{b-spine}" "$WORK/live.dump/opensm-subnet.lst"
}
poll 30 joined || t_fail "island B not routed after the join"
check_pushed "$WORK/live.dump"
check_analyze "$WORK/live.dump"
check_ibdmchk "$WORK/live.dump"
! grep -q "gpuaware: ERR" "$WORK/live.log" || t_fail "live: plugin errors"

n=$(count_lines "$WORK/live.log" "> SUBNET UP$")
sim_cmd 'Unlink "a-spine"[8]'
split_again() {
	log_has "$WORK/live.log" "> SUBNET UP$" $((n + 1)) &&
		! grep -q "{b-" "$WORK/live.dump/opensm-subnet.lst"
}
poll 30 split_again || t_fail "island B still in the subnet after the split"
log_has "$WORK/live.log" "$PLUGIN_LINE" 3 || t_fail "split: not rerouted"
check_pushed "$WORK/live.dump"
check_analyze "$WORK/live.dump"
check_ibdmchk "$WORK/live.dump"
! grep -q "gpuaware: ERR" "$WORK/live.log" || t_fail "live: plugin errors"
