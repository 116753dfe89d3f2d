#!/bin/sh
# SPDX-License-Identifier: MIT
# make demo: ibsim on a rail-optimized fat-tree, OpenSM with the plugin and
# with its own ftree on the same fabric, both checked, one path traced;
# then a job mix's collectives with job hints and without; pictures of
# both (SVG, kept in BUILD_DIR/demo) and the plugin's metrics.
# Stops everything it started, also on Ctrl-C.  Usage: demo.sh [BUILD_DIR]
set -eu
B=${1:-build}
export B
GPUAWARE_TOP=$(cd "$(dirname "$0")/.." && pwd)
export GPUAWARE_TOP
. "$GPUAWARE_TOP/tests/ibsim/lib.sh"
t_init demo
NET=${DEMO_NET:-$CONFIGS/rail-small.net}

say() { printf '\n== %s\n' "$*"; }

say "fabric: $(basename "$NET") under ibsim"
sim_start "$NET"
OUT=$B/demo
mkdir -p "$OUT"
plugin_ini "$WORK/plugin.conf" '[routing]' 'engine = auto' '[log]' \
	'verbosity = verbose' '[metrics]' "textfile = $WORK/gpuaware.prom"

for e in gpuaware ftree; do
	conf=$(engine_conf "$e" "$e" "$WORK/plugin.conf")
	osm_once "$conf"
done

say "what gpuaware recognised and how it routed (OpenSM log)"
grep -o 'gpuaware: .*' "$WORK/gpuaware.log" | grep -v '^gpuaware: ERR' | cut -c1-220
grep -o '[a-z0-9-]* tables configured on all switches' "$WORK/gpuaware.log" | head -1

for e in gpuaware ftree; do
	say "$e: routing time $(route_ms "$WORK/$e.log" "$e" || echo '?') ms; tables read back from OpenSM's dumps"
	"$BDIR/ibpoolroute" analyze "$WORK/$e.dump" | grep -E \
		'^(pairs|max hops|credit loops|all-to-all|eBB|status)'
done

say "metrics for Prometheus (node_exporter textfile collector)"
echo "  $(wc -l < "$WORK/gpuaware.prom") lines in [metrics] textfile, e.g.:"
grep -E '^gpuaware_sm_(routing_info|routings_total|last_routing_seconds)' \
	"$WORK/gpuaware.prom" | head -3 | sed 's/^/    /'

say "a picture of the fabric, links by the routing's all-to-all"
"$BDIR/ibpoolroute" map --dump "$WORK/gpuaware.dump" -o "$OUT/fabric.svg" \
	2>&1 | sed 's/^/  /'

# GPU jobs: a random mix on a 128-host 3-level tree, each job's ring and
# all-to-all at once, routed for the jobs and without them (offline: the
# routing core the plugin runs).
JNET=$CONFIGS/ft3-small.net
"$BDIR/ibtopogen" jobs --net "$JNET" --jobs 4-6 --sizes 8-32 --seed 1 \
	-o "$WORK/jobs.json"
say "$(basename "$JNET"): a mix of jobs' collectives at once, with job hints and without (ibpoolroute simulate)"
"$BDIR/ibpoolroute" simulate --net "$JNET" --jobs "$WORK/jobs.json" \
	--perms 0 | grep -E '^(jobs|with jobs|routing|ring|alltoall) ' |
	sed 's/^/  /'
say "the jobs on the fabric: hosts by job, links by the jobs' all-to-all flows"
"$BDIR/ibpoolroute" map --net "$JNET" --jobs "$WORK/jobs.json" \
	-o "$OUT/jobs.svg" 2>&1 | sed 's/^/  /'

# A path between two HCAs of the same rail in different scalable units,
# traced by infiniband-diags through the switches' real tables.
src=$(awk '/^\{ CA/ && /mlx5_0/ { if (match($0, /LID:[0-9A-Fa-f]+/)) {
	print substr($0, RSTART + 4, RLENGTH - 4); exit } }' \
	"$WORK/gpuaware.dump/opensm-subnet.lst")
dst=$(awk '/^\{ CA/ && /mlx5_0/ { if (match($0, /LID:[0-9A-Fa-f]+/))
	l = substr($0, RSTART + 4, RLENGTH - 4) } END { print l }' \
	"$WORK/gpuaware.dump/opensm-subnet.lst")
say "ibtracert LID 0x$src -> LID 0x$dst (rail 0, first and last host)"
client_env ibtracert "0x$src" "0x$dst" 2>&1 | sed 's/^/  /'
say "done; everything started is stopped; open $OUT/fabric.svg and $OUT/jobs.svg in a browser"
