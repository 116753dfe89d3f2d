#!/bin/sh
# SPDX-License-Identifier: MIT
# The version matrix's own test (tests/ibsim/matrix.sh runs it with
# OSM_PREFIX set): the OpenSM under OSM_PREFIX loads the plugin built for
# it; it refuses the plugin built for the system's OpenSM, and the
# system's OpenSM refuses the one built for it, each saying so in its log
# and routing without it; and the plugin does not build against headers
# of a release it was not checked against.
set -eu
. "$(dirname "$0")/lib.sh"
t_init osm-version

[ -n "${OSM_PREFIX:-}" ] || t_fail "OSM_PREFIX names no OpenSM to test"
SYS_BIN=$(command -v opensm) || t_fail "missing command opensm"
t_need "$BDIR/libgpuaware.so"
REFUSED="Error loading plugin 'gpuaware': OpenSM version mismatch - plugin was built against"

# osm_version HEADERS: the version string <opensm/osm_version.h> defines.
osm_version() {
	sed -n 's/^#define OSM_VERSION "\(.*\)"$/\1/p' \
		"$1/opensm/osm_version.h"
}

# sweep NAME OPENSM PLUGIN_DIR [LIBDIR]: one sweep of OPENSM on the fabric,
# loading the plugin from PLUGIN_DIR (its libraries from LIBDIR); the log
# is $WORK/NAME.log.
sweep() {
	local conf
	conf=$(osm_conf "$1" routing_engine gpuaware,updn \
		event_plugin_name gpuaware \
		event_plugin_options "$WORK/gpuaware.conf")
	env LD_PRELOAD="$OSM_PRELOAD" LD_LIBRARY_PATH="$3${4:+:$4}" \
		timeout 120 "$2" -F "$conf" -o >"$conf.out" 2>&1 ||
		t_fail "$1: opensm -o failed ($?): $(tail -3 "$conf.out")"
}

# refused NAME VERSION: the OpenSM of run NAME skipped a plugin built for
# VERSION, said why, and routed with the next engine named instead.
refused() {
	local log="$WORK/$1.log"
	log_has "$log" "$REFUSED $2 version of OpenSM. Skip loading." 1 ||
		t_fail "$1: no refusal of the plugin for $2 in the log: $(grep -i plugin "$log" | head -2)"
	log_has "$log" "cannot find or setup routing engine 'gpuaware'" 1 ||
		t_fail "$1: OpenSM did not report the engine missing"
	! log_has "$log" "gpuaware: " 1 ||
		t_fail "$1: the refused plugin ran: $(grep 'gpuaware: ' "$log" | head -1)"
	log_has "$log" "updn tables configured on all switches" 1 ||
		t_fail "$1: OpenSM did not fall back to updn"
}

mine=$(osm_version "$OSM_PREFIX/include/infiniband")
sys=$(osm_version /usr/include/infiniband)
if [ -z "$mine" ] || [ -z "$sys" ]; then
	t_fail "no OSM_VERSION in the headers"
fi
[ "$mine" != "$sys" ] ||
	t_fail "$OSM_PREFIX and the system's OpenSM are both $mine: nothing to refuse"

plugin_ini "$WORK/gpuaware.conf" '[log]' 'verbosity = normal'
sim_start "$CONFIGS/ft2-tiny.net"

sweep own "$OSM_BIN" "$PLUGIN_DIR" "$OSM_PREFIX/lib"
log_has "$WORK/own.log" " $mine\$" 1 ||
	t_fail "$OSM_BIN does not log itself as $mine"
log_has "$WORK/own.log" "routing engine 'gpuaware' registered (plugin built for $mine," 1 ||
	t_fail "$mine did not load the plugin built for it"
log_has "$WORK/own.log" "$PLUGIN_LINE" 1 || t_fail "$mine: no gpuaware routing"
t_log "$mine loads the plugin built for it"

sweep sys-plugin "$OSM_BIN" "$BDIR" "$OSM_PREFIX/lib"
refused sys-plugin "$sys"
t_log "$mine refuses the plugin for $sys"

# The system's OpenSM shares libopensm's soname with the other: it must
# not see the other's libraries.
sweep other-plugin "$SYS_BIN" "$PLUGIN_DIR"
refused other-plugin "$mine"
t_log "$sys refuses the plugin for $mine"

# Headers of an unchecked release: the build stops, naming it.
mkdir -p "$WORK/inc"
cp -r "$OSM_PREFIX/include/infiniband" "$WORK/inc/"
sed -i 's/^#define OSM_VERSION ".*"$/#define OSM_VERSION "OpenSM 9.9.9"/' \
	"$WORK/inc/infiniband/opensm/osm_version.h"
if ${CC:-cc} -std=c11 -D_GNU_SOURCE -fsyntax-only -I"$TOP" \
	-I"$WORK/inc/infiniband" "$TOP/plugins/opensm/plugin.c" \
	>"$WORK/cc.out" 2>&1; then
	t_fail "plugin.c builds against OpenSM 9.9.9 headers"
fi
grep -q "OpenSM 9.9.9, not a release the plugin was checked against" \
	"$WORK/cc.out" ||
	t_fail "the build fails without naming the version: $(head -3 "$WORK/cc.out")"
t_log "headers of OpenSM 9.9.9 refused at build time"
