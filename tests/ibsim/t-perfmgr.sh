#!/bin/sh
# SPDX-License-Identifier: MIT
# OpenSM's PerfMgr on a degraded 3-level tree routed by the plugin: its
# queries go by LID from the SM's host, which sits on the leaf that lost
# the most up cables.  Every port of every switch answers (OpenSM logs
# each answer at log flag 0x04), no query fails, and the plugin logs no
# unreachable switch LID.  Before issue 27 the routing left 192 pairs of
# CA ports and switch LIDs of this tree without a route.
#
# t-perfmgr-vl.sh runs it on a tree that needs VLs of their own for
# switch LIDs: PM_NAME, PM_TREE (ibtopogen fattree's arguments), PM_OSM
# (more opensm.conf keys) and PM_WAIT (seconds for the answers).
set -eu
. "$(dirname "$0")/lib.sh"
t_init "${PM_NAME:-perfmgr}"
t_need "$BDIR/ibtopogen"

net=$WORK/tree.net
# shellcheck disable=SC2086
"$BDIR/ibtopogen" fattree ${PM_TREE:---radix 8 --levels 3 --drop 0.05 \
	--drop-switches 1 --seed 4} -o "$net"
# the first host of the leaf with the fewest cables to switches
host=$(net_cables "$net" | awk -F '\t' '
	$2 == "Switch" && $5 == "Switch" { up[$1]++ }
	$2 == "Switch" && $5 != "Switch" && !($1 in h) { h[$1] = $4 }
	END { for (l in h) if (best == "" || up[l] < up[best] ||
			       (up[l] == up[best] && l < best)) best = l
		print h[best] }')
[ -n "$host" ] || t_fail "no host on a leaf in $net"
sim_start "$net" "$host"
plugin_ini "$WORK/plugin.ini" '[log]' 'verbosity = normal'
# a few queries in flight: with OpenSM's default (500) the simulator
# answered none of PerfMgr's second sweep, cabled or not
# shellcheck disable=SC2086
conf=$(osm_conf gpuaware routing_engine gpuaware \
	event_plugin_name gpuaware event_plugin_options "$WORK/plugin.ini" \
	perfmgr TRUE perfmgr_sweep_time_s 1 perfmgr_max_outstanding_queries 4 \
	${PM_OSM:-})
osm_start "$conf"
log=$WORK/gpuaware.log
wait_log "$log" "$PLUGIN_LINE" 1 120

# "GUID PORT" of every cabled switch port (GUIDs in hex, no leading 0s)
want=$WORK/want
net_cables "$net" | awk -F '\t' '$2 == "Switch" { print $1 "\t" $3 }' |
	sort -u >"$WORK/sw-ports"
nsw=$(grep -c '^Switch' "$net")
awk '/^switchguid=/ { g = tolower(substr($0, 12)); next }
	/^Switch[ \t]/ { match($0, /"[^"]*"/)
		print substr($0, RSTART + 1, RLENGTH - 2) "\t" g }' "$net" \
	>"$WORK/sw-guid"
awk -F '\t' 'NR == FNR { g[$1] = $2; next }
	{ sub(/^0x0*/, "", g[$1]); print g[$1] " " $2 }' \
	"$WORK/sw-guid" "$WORK/sw-ports" | sort -u >"$want"

# switch GUID and port of every answer PerfMgr processed
answered() {
	sed -n 's/.*Processing received MAD status 0x0 context 0x0*\([0-9a-f]*\) port \([0-9]*\)$/\1 \2/p' \
		"$log" | sort -u >"$WORK/got"
	[ -z "$(comm -23 "$want" "$WORK/got")" ]
}
poll "${PM_WAIT:-60}" answered ||
	t_fail "PerfMgr has no answer from $(comm -23 "$want" "$WORK/got" | wc -l) of $(wc -l <"$want") switch ports, e.g. $(comm -23 "$want" "$WORK/got" | head -3 | tr '\n' ' ')"
n=$(count_lines "$log" "ERR 5402")
[ "$n" = 0 ] || t_fail "$n PerfMgr queries failed: $(grep 'ERR 5402' "$log" | head -3)"
count_lines "$log" "GA43" | grep -qx 0 ||
	t_fail "the plugin says switch LIDs are unreachable: $(grep 'GA43' "$log" | head -1)"
log_has "$log" "gpuaware: topology fat-tree, engine fattree" 1 ||
	t_fail "not routed by the fat-tree engine: $(grep -E 'GA2[34]|engine' "$log" | head -2)"
t_log "$nsw switches: all $(wc -l <"$want") cabled switch ports answered PerfMgr at $host"
