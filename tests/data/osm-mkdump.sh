#!/bin/sh
# SPDX-License-Identifier: MIT
# Regenerate an OpenSM dump fixture: one OpenSM sweep over NETFILE under
# ibsim, keeping the net file and the dumps the offline tests read.
# usage: osm-mkdump.sh NETFILE OUTDIR ENGINE [LMC [QOS]]
# IBSIM_FLAGS adds ibsim options, e.g. "-S 512" for bigger fabrics.
#
# The fixtures here (OpenSM 3.3.23, ibsim 0.10), each with its net file:
#   osm-2sw-minhop  ibsim's net.2sw2path4hca example, minhop
#   osm-2sw-lmc1    the same with LMC 1
#   osm-ft2-ftree   2 spines, 2 leaves, 4 hosts, fixed GUIDs; ftree
#   osm-ring5-qos   5-switch ring, a host on each; minhop, QoS on, so
#                   OpenSM also writes opensm-sl2vl.dump
set -eu

[ $# -ge 3 ] || { echo "usage: $0 NETFILE OUTDIR ENGINE [LMC [QOS]]" >&2; exit 2; }
net=$(readlink -f "$1") out=$2 eng=$3 lmc=${4:-0} qos=${5:-FALSE}
umad2sim=/usr/lib/x86_64-linux-gnu/umad2sim/libumad2sim.so

w=$(mktemp -d)
sim=""
cleanup() {
	if [ -n "$sim" ]; then
		kill "$sim" 2>/dev/null || true
		wait "$sim" 2>/dev/null || true
	fi
	rm -rf "$w"
}
trap cleanup EXIT INT TERM

mkdir -p "$w/dump" "$out"
export IBSIM_SOCKNAME="osmdump$$"
opensm -c "$w/base.conf" >/dev/null 2>&1
sed -e "s|^log_flags .*|log_flags 0x47|" \
    -e "s|^dump_files_dir .*|dump_files_dir $w/dump|" \
    -e "s|^log_file .*|log_file $w/opensm.log|" \
    -e "s|^force_log_flush .*|force_log_flush TRUE|" \
    -e "s|^routing_engine .*|routing_engine $eng|" \
    -e "s|^lmc .*|lmc $lmc|" \
    -e "s|^qos .*|qos $qos|" "$w/base.conf" > "$w/opensm.conf"

# shellcheck disable=SC2086
ibsim -n ${IBSIM_FLAGS:-} -s "$net" > "$w/ibsim.log" 2>&1 &
sim=$!
i=0
until grep -q "simulator ready" "$w/ibsim.log" 2>/dev/null; do
	i=$((i + 1))
	[ $i -le 100 ] || { echo "ibsim did not start" >&2; exit 1; }
	sleep 0.1
done

OSM_TMP_DIR=$w OSM_CACHE_DIR=$w LD_PRELOAD=$umad2sim \
	timeout 120 opensm -F "$w/opensm.conf" -o > "$w/opensm.out" 2>&1
grep -q "tables configured on all switches" "$w/opensm.log" ||
	{ echo "opensm did not route" >&2; exit 1; }

cp "$net" "$out/net"
for f in opensm-subnet.lst opensm-lfts.dump opensm-sl2vl.dump; do
	[ -f "$w/dump/$f" ] && cp "$w/dump/$f" "$out/"
done
grep -o "building routing with '[^']*'" "$w/opensm.log" | head -1
