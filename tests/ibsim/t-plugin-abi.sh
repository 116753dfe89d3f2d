#!/bin/sh
# SPDX-License-Identifier: MIT
# The plugin's ABI: it exports only osm_event_plugin, and every symbol it
# needs is there when OpenSM dlopen()s it (OpenSM resolves lazily, so a
# core function left out of the link would kill the SM on first call).
set -eu
. "$(dirname "$0")/lib.sh"
t_init plugin-abi

so=$PLUGIN_DIR/libgpuaware.so
command -v nm >/dev/null || t_fail "missing command nm"
nm -D --defined-only "$so" | awk '{ print $NF }' >"$WORK/exported"
[ "$(cat "$WORK/exported")" = osm_event_plugin ] ||
	t_fail "exports more than osm_event_plugin: $(tr '\n' ' ' <"$WORK/exported")"

# What the running SM offers: the opensm binary, the libraries it and the
# plugin load (ldd), minus weak references.
providers=$OSM_BIN
for l in $( (ldd "$OSM_BIN"; ldd "$so") |
	awk '$3 ~ /^\// { print $3 }' | sort -u); do
	providers="$providers $l"
done
for p in $providers; do
	nm -D --defined-only "$p" 2>/dev/null | awk '{ sub(/@.*/, "", $NF);
		print $NF }'
done | sort -u >"$WORK/provided"
nm -D --undefined-only "$so" | awk '$1 == "U" { sub(/@.*/, "", $2);
	print $2 }' | sort -u >"$WORK/needed"
[ -s "$WORK/needed" ] || t_fail "no undefined symbols listed for $so"
missing=$(comm -23 "$WORK/needed" "$WORK/provided" | tr '\n' ' ')
[ -z "$missing" ] || t_fail "unresolved in OpenSM: $missing"
grep -qx osm_register_external_routing_engine "$WORK/needed" ||
	t_fail "does not register a routing engine"
