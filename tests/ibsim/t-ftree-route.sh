#!/bin/sh
# SPDX-License-Identifier: MIT
# The plugin routes each test fat-tree in a real OpenSM under ibsim; the
# tables reach the switches, pass ibpoolroute and ibdmchk, and again after
# a spine link and a leaf uplink are pulled.  Prints the routing time next
# to OpenSM's ftree on the same fabric.
set -eu
. "$(dirname "$0")/lib.sh"
t_init ftree-route

FABRICS=${FABRICS:-"ft2-tiny.net ft2-small.net ft3-small.net rail-small.net"}

# Two switch ports to unlink, "NAME PORT" per line: a leaf uplink, and a
# link between two non-leaf switches (on a two-level tree: another
# leaf's uplink, to another spine).  Leaves are switches with CAs.
pick_unlinks() {
	awk '
	function id(s) {
		match(s, /"[^"]*"/)
		return substr(s, RSTART + 1, RLENGTH - 2)
	}
	/^(Switch|Hca|Ca|Rt)[ \t]/ { cur = id($0); type[cur] = $1; next }
	/^\[[0-9]+\]/ && cur != "" {
		n++
		from[n] = cur
		fport[n] = substr($0, 2) + 0
		to[n] = id(substr($0, index($0, "]") + 1))
		if (type[cur] == "Switch")
			sw[cur] = 1
	}
	function up(i) { return (to[i] in sw) && !(to[i] in leaf) }
	END {
		for (i = 1; i <= n; i++)
			if (!(to[i] in sw) && (from[i] in sw))
				leaf[from[i]] = 1
		for (a = 1; a <= n; a++)
			if ((from[a] in leaf) && up(a))
				break
		if (a > n)
			exit
		print from[a], fport[a]
		for (i = 1; i <= n; i++)
			if ((from[i] in sw) && !(from[i] in leaf) && up(i)) {
				print from[i], fport[i]
				exit
			}
		for (i = 1; i <= n; i++)
			if ((from[i] in leaf) && from[i] != from[a] && up(i) &&
			    to[i] != to[a]) {
				print from[i], fport[i]
				exit
			}
	}' "$1"
}

# The last sweep finished (dumps written) and none of the pulled links
# is in its opensm-subnet.lst any more.
resweep_done() {
	local log="$1" lst="$2" name port tc up
	tc=$(count_lines "$log" "$PLUGIN_LINE")
	up=$(count_lines "$log" "> SUBNET UP$")
	[ "$tc" -ge 2 ] && [ "$up" -ge "$tc" ] || return 1
	while read -r name port; do
		! grep -q "{$name} LID:[0-9A-Fa-f]* PN:$(printf %02X "$port") }" \
			"$lst" || return 1
	done <"$WORK/unlinks"
}

# Switches with CAs in a net file: multicast trees lead to them.
leaf_count() {
	net_cables "$1" | awk -F '\t' '$2 == "Switch" && $5 != "Switch" && !($1 in l) {
		l[$1] = 1; c++ } END { print c + 0 }'
}

# Every switch has an optimal hop count to every switch with CAs (the
# rows the plugin writes once OpenSM reports the unicast routing done,
# before multicast and the dumps read them).
check_hops() {
	local nsw nleaf yes
	nsw=$(grep -c '^Switch' "$SIM_NET")
	nleaf=$(leaf_count "$SIM_NET")
	yes=$(grep -c ': yes$' "$1/opensm.fdbs" || true)
	[ "$yes" -ge $((nsw * nleaf)) ] ||
		t_fail "$1: $yes optimal hop counts in opensm.fdbs, want $nsw x $nleaf"
	! grep -q ': No ' "$1/opensm.fdbs" ||
		t_fail "$1: a route longer than its hop count: $(grep ': No ' "$1/opensm.fdbs" | head -1)"
}

check_dumps() {
	check_pushed "$1"
	check_analyze "$1"
	check_ibdmchk "$1"
	check_hops "$1"
}

# The plugin's own view: no plugin error, and the verifier (verbosity 2)
# found nothing unreachable.
check_plugin_log() {
	! grep -q "gpuaware: ERR" "$1" ||
		t_fail "plugin errors: $(grep 'gpuaware: ERR' "$1" | head -2)"
	log_has "$1" "gpuaware: quality: .* 0 unreachable" "$2" ||
		t_fail "no clean quality line for routing $2 in $1"
}

plugin_ini "$WORK/gpuaware.conf" '[routing]' 'engine = auto' '[log]' \
	'verbosity = verbose'

for fab in $FABRICS; do
	net=$CONFIGS/$fab
	t_need "$net"
	t_log "$fab"
	sim_start "$net"

	# OpenSM's own fat-tree engine first, for the timing comparison.
	conf=$(osm_conf ftree routing_engine ftree)
	osm_once "$conf"
	if ms_ftree=$(route_ms "$WORK/ftree.log" ftree); then
		ms_ftree="ftree $ms_ftree ms"
	else
		ms_ftree="ftree refused the fabric"
	fi

	# shellcheck disable=SC2046
	conf=$(osm_conf ga $(fragment_keys "$CONFIGS/opensm-gpuaware.conf") \
		event_plugin_options "$WORK/gpuaware.conf" sweep_interval 2)
	osm_start "$conf"
	wait_log "$WORK/ga.log" "$PLUGIN_LINE" 1 60
	wait_log "$WORK/ga.log" "> SUBNET UP$" 1 60
	check_plugin_log "$WORK/ga.log" 1
	log_has "$WORK/ga.log" "gpuaware: topology fat-tree, engine fattree" 1 ||
		t_fail "$fab: not routed as a fat-tree"
	case $fab in
	rail*)	log_has "$WORK/ga.log" "rail-optimized (4 rails)" 1 ||
			t_fail "$fab: rails not recognised" ;;
	esac
	check_dumps "$WORK/ga.dump"
	ms_ga=$(route_ms "$WORK/ga.log" gpuaware)
	t_log "$fab: routing time gpuaware $ms_ga ms, $ms_ftree"

	pick_unlinks "$net" >"$WORK/unlinks"
	[ "$(wc -l <"$WORK/unlinks")" -eq 2 ] ||
		t_fail "$fab: cannot find a spine link and a leaf uplink"
	while read -r name port; do
		t_log "$fab: unlink ${name}[$port]"
		sim_cmd "Unlink \"$name\"[$port]"
	done <"$WORK/unlinks"
	poll 60 resweep_done "$WORK/ga.log" "$WORK/ga.dump/opensm-subnet.lst" ||
		t_fail "$fab: no rerouting without the pulled links"
	check_plugin_log "$WORK/ga.log" 2
	# Degraded now, and still the fat-tree engine.  On ft2-tiny's two
	# spines the pulled cables leave leaf-1 and leaf-2 no common spine:
	# only a down-up turn joins them, so gpuaware's up*-down* must take
	# over (and say so), never OpenSM's min-hop.
	log_has "$WORK/ga.log" "gpuaware: recogniser: .*degraded" 1 ||
		t_fail "$fab: degradation not reported"
	if [ "$fab" = ft2-tiny.net ]; then
		log_has "$WORK/ga.log" "falling back to updown" 1 ||
			t_fail "$fab: no up*-down* for the down-up pairs"
	else
		log_has "$WORK/ga.log" \
			"gpuaware: topology fat-tree, engine fattree" 2 ||
			t_fail "$fab: degraded tree not routed by the fat-tree engine"
	fi
	check_dumps "$WORK/ga.dump"
	t_log "$fab: rerouted in $(route_ms "$WORK/ga.log" gpuaware) ms"

	osm_stop
	sim_stop
	mkdir "$WORK/${fab%.net}"
	mv "$WORK"/ga.* "$WORK"/ftree.* "$WORK/unlinks" "$WORK/${fab%.net}/"
done
