#!/bin/sh
# SPDX-License-Identifier: MIT
# Routing time of the plugin against OpenSM's own engines on one fabric
# under ibsim: the span between "building routing with 'X'" and "X tables
# configured on all switches" (log flags 0x47), one sweep each.
# Usage: route-time.sh NETFILE [ENGINE...]   (default engines: ftree)
# Prints "ENGINE MS" lines; gpuaware runs at verbosity $VERBOSITY
# (default normal: no verifier in the timed span).
set -eu
. "$(dirname "$0")/lib.sh"
[ $# -ge 1 ] || { echo "usage: $0 NETFILE [ENGINE...]" >&2; exit 2; }
t_init route-time

net=$1
shift
[ $# -gt 0 ] || set -- ftree
sim_start "$net"
plugin_ini "$WORK/plugin.ini" '[log]' "verbosity = ${VERBOSITY:-normal}"
for e in gpuaware "$@"; do
	conf=$(engine_conf "$e" "$e" "$WORK/plugin.ini")
	osm_env timeout 600 "$OSM_BIN" -F "$conf" -o >"$conf.out" 2>&1 ||
		t_fail "opensm ($e) failed: $(tail -2 "$conf.out")"
	if ms=$(route_ms "$WORK/$e.log" "$e"); then
		echo "$e $ms"
	else
		echo "$e refused ($(grep -o '[a-z0-9-]* tables configured' \
			"$WORK/$e.log" | head -1))"
	fi
	grep "gpuaware: \(topology\|ERR\)" "$WORK/$e.log" >&2 || true
done
