#!/bin/sh
# SPDX-License-Identifier: MIT
# Background refinement end to end, with the default budget: after a job
# table's routing is in the switches, the plugin goes on searching and
# installs the result by a reroute of the same generation (state: "job
# pass, refined").  The LFTs read back from the switches are the ones the
# log reports, every pair is delivered without credit loops, the jobs
# share no more links than without them (or else 20 x their busiest links
# + shared links dropped) and their busiest links are no heavier than the
# first routing's (but by the search's overtime slack).  A later reroute
# of the same fabric and table keeps the refined tables; a table change
# routes afresh and refines again.
set -eu
. "$(dirname "$0")/lib.sh"
t_init refine
t_need "$BDIR/ibpoolroute" "$BDIR/ibtopogen"

NET=$CONFIGS/ft3-small.net
LINE="gpuaware: job routing refined in"

# logged N: "SHARED_BEFORE SHARED_AFTER OWN_BEFORE OWN_AFTER" of the Nth
# refinement line.
logged() {
	grep -- "$LINE" "$WORK/ga.log" | sed -n "$1p" | perl -ne \
		'/share (\d+) -> (\d+), .* summed (\d+) -> (\d+);/ and print "$1 $2 $3 $4"'
}

"$BDIR/ibtopogen" jobs --net "$NET" --jobs 4-8 --seed 3 -o "$WORK/jobs.json"
plugin_ini "$WORK/gpuaware.conf" '[log]' 'verbosity = verbose'
sim_start "$NET"
osm_up ga opensm-gpuaware.conf sweep_interval 2
poll 30 sm_state_has '"routed_generation":0' || t_fail "state: $(sm state --json)"
# no jobs, nothing to refine
sm_state_has '"refinement":"none"' || t_fail "refinement: $(sm state --json)"
set -- $(live_jobs without "$WORK/jobs.json")
ow=$1 sw=$2

sm hints set "$WORK/jobs.json" --wait --timeout 30000 >"$WORK/set.out" ||
	t_fail "hints set --wait: $(cat "$WORK/set.out")"
log_has "$WORK/ga.log" "refining the job routing in the background (6000000 moves)" 1 ||
	t_fail "no refinement started"
# the first routing says a refined one follows (unless that is in already)
sm_state_has '"refinement":"running"' || sm_state_has '"refinement":"installed"' ||
	t_fail "refinement: $(sm state --json)"
poll 120 refined_at 1 || t_fail "not refined: $(sm state --json)"
sm state >"$WORK/state.out"
grep -q "in switches  : generation 1 (5 jobs routed: job pass, refined)$" \
	"$WORK/state.out" || t_fail "state: $(cat "$WORK/state.out")"
grep -q "^refinement   : installed" "$WORK/state.out" ||
	t_fail "state: $(cat "$WORK/state.out")"
no_errors "$WORK/ga.log"
set -- $(logged 1)
[ $# -eq 4 ] || t_fail "refinement line: $(grep -- "$LINE" "$WORK/ga.log")"
sh0=$1 sh1=$2 o0=$3 o1=$4
set -- $(live_jobs refined "$WORK/jobs.json")
[ "$1" -eq "$o1" ] && [ "$2" -eq "$sh1" ] ||
	t_fail "switches hold own $1, shared $2; the log said $o1, $sh1"
# summed, the jobs' busiest links are no heavier, but by overtime's slack
# (1/16) when that met the cap
[ "$o1" -le "$o0" ] || { [ "$sh1" -le "$sw" ] && [ $((16 * o1)) -le $((17 * o0)) ]; } ||
	t_fail "refined jobs heavier: $o0 -> $o1 (shared $sh1, without jobs $sw)"
# what RT_SEARCH_BOTH keeps: at most as many shared links as without
# jobs, or else 20 x own + shared lower than the first routing's
[ "$sh1" -le "$sw" ] || [ $((20 * o1 + sh1)) -lt $((20 * o0 + sh0)) ] ||
	t_fail "refined: shared $sh0 -> $sh1 (without jobs $sw), own $o0 -> $o1"
[ "$o1" -lt "$ow" ] || t_fail "refined no lighter than without jobs: $o1 vs $ow"
verify_live refined
t_log "refined: shared $sh0 -> $sh1 (without jobs $sw), own $o0 -> $o1 (without $ow)"

# the same fabric and table: the refined tables stay
sm reroute --wait --timeout 30000 >"$WORK/rr.out" ||
	t_fail "reroute --wait: $(cat "$WORK/rr.out")"
sm_state_has '"job_routing":"job pass, refined"' &&
	sm_state_has '"refinement":"installed"' ||
	t_fail "reroute lost the refinement: $(sm state --json)"
set -- $(live_jobs again "$WORK/jobs.json")
[ "$1" -eq "$o1" ] && [ "$2" -eq "$sh1" ] ||
	t_fail "after a reroute: own $1, shared $2 (refined $o1, $sh1)"
log_has "$WORK/ga.log" "refining the job routing in the background" 2 &&
	t_fail "a refined routing was refined again"

# a new table: routed afresh, then refined again
sm hints remove j1 --wait --timeout 30000 >"$WORK/rm.out" ||
	t_fail "remove: $(cat "$WORK/rm.out")"
poll 120 refined_at 2 ||
	t_fail "generation 2 not refined: $(sm state --json)"
grep -q '"job_routing":"job pass, refined"' "$WORK/state.json" ||
	t_fail "generation 2: $(cat "$WORK/state.json")"
log_has "$WORK/ga.log" "$LINE" 2 || t_fail "no second refinement line"
no_errors "$WORK/ga.log"
t_log "kept over a reroute; refined again for a new table"
osm_stop
sim_stop
