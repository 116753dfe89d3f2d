#!/bin/sh
# SPDX-License-Identifier: MIT
# Gang placement on the fabric (issue 25 item 3): Philly-shaped traces
# with many multi-host jobs (--mix) on a 2:1 3-level tree of 64 hosts x
# 8 GPUs, each policy run three ways: gangs placed by the tree (ours),
# with a bounded wait for a lower level (--gang-wait), and by first fit
# in host order for the whole run (the anchor: a cluster that knows no
# topology).  Prints markdown tables for docs/benchmarks.md.
# Usage: tests/bench/gangs.sh [BUILD_DIR]; JOBS (20000) jobs a trace,
# SEEDS ("1 2 3"), WAIT (1800 s), POLICIES (easy,priority,tiresias,bestfit,sjf),
# MIX (GPUs:share; 30 % of jobs multi-host), TRACES (../shared/traces),
# COMM (0.62: the communication share of a gang's run time, stretched by
# its slowdown on the flow model, Wang et al. IISWC 2019; 0: as traced).
set -eu
B=${1:-build}
TOP=$(cd "$(dirname "$0")/../.." && pwd)
case $B in /*) BDIR=$B ;; *) BDIR=$TOP/$B ;; esac
JOBS=${JOBS:-20000}
SEEDS=${SEEDS:-"1 2 3"}
WAIT=${WAIT:-1800}
POLICIES=${POLICIES:-easy,priority,tiresias,bestfit,sjf}
MIX=${MIX:-1:40,2:10,4:10,8:10,16:15,32:10,64:5}
COMM=${COMM:-0.62}
TRACES=${TRACES:-${GPUAWARE_TRACES:-$TOP/../shared/traces}}
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT INT TERM

"$BDIR/ibtopogen" fattree --levels 3 --hosts-per-leaf 4 --down 4,4 \
	--up 2,2 -o "$WORK/tree64.net" >/dev/null
echo "### Gangs on 64 hosts x 8 GPUs (2:1, 3 levels), $JOBS jobs at load 1.05, mix $MIX, comm share $COMM"
echo
echo "Slowdowns as excess (slowdown - 1).  ff now: first fit's hosts for the same gang at the same moment of our run; ff run: a whole run placing gangs by first fit."
echo
echo "| seed | policy | gangs | at lowest level, % (ff run) | comm excess: ours | with wait | ff now | ff run | ours / ff run | with wait / ff run | JCT mean: ours | with wait | ff run | gang JCT mean: ours | ff run | gangs waited (expired) | wait mean s |"
echo "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|"
for s in $SEEDS; do
	"$BDIR/ibpoolroute" trace --gen philly --jobs "$JOBS" --load 1.05 \
		--gpus 512 --seed "$s" --mix "$MIX" \
		--runtimes "$TRACES/philly-2017-runtimes.csv" \
		-o "$WORK/mix-$s.csv" >/dev/null
	for run in tree wait first; do
		case $run in
		tree) extra="" ;;
		wait) extra="--gang-wait $WAIT" ;;
		first) extra="--gang-place first" ;;
		esac
		# shellcheck disable=SC2086
		"$BDIR/ibpoolroute" replay --trace "$WORK/mix-$s.csv" \
			--net "$WORK/tree64.net" --policy "$POLICIES" $extra \
			--comm-share "$COMM" \
			--json --no-progress >"$WORK/$run-$s.json"
	done
	python3 - "$WORK" "$s" <<'EOF'
import json, sys
w, s = sys.argv[1], sys.argv[2]
run = {r: {p["policy"]: p for p in json.load(open("%s/%s-%s.json" % (w, r, s)))["policies"]}
       for r in ("tree", "wait", "first")}
for name, t in run["tree"].items():
    wt, ff = run["wait"][name], run["first"][name]
    x = lambda p, k="comm_slowdown": p[k] - 1
    low = lambda p: 100.0 * p["gangs_lowest_level"] / p["gangs"] if p["gangs"] else 100
    print("| %s | %s | %d | %.1f (%.1f) | %.3f | %.3f | %.3f | %.3f | %.2f | %.2f | %.0f | %.0f | %.0f | %.0f | %.0f | %d (%d) | %.0f |" % (
        s, name, t["gangs"], low(t), low(ff), x(t), x(wt),
        x(t, "comm_slowdown_first_fit"), x(ff), x(t) / x(ff), x(wt) / x(ff),
        t["jct_mean"], wt["jct_mean"], ff["jct_mean"],
        t["gang_jct_mean"], ff["gang_jct_mean"],
        wt["gangs_waited"], wt["gangs_wait_expired"], wt["gang_wait_mean"]))
EOF
done
