#!/bin/sh
# SPDX-License-Identifier: MIT
# The plugin's node_exporter textfile ([metrics] textfile): OpenSM with
# the plugin on a fat-tree writes it after its routing, and again after a
# job-hint reroute; promtool check metrics passes on both; they say the
# routings, the engine and VLs, the engine OpenSM used and the SM's
# role, the job table's generation, the guard's choice and scores once
# there are jobs, the reroute, and count the
# ERR code a bad config value logged.  No temporary file is left.
set -eu
. "$(dirname "$0")/lib.sh"
t_init metrics
command -v promtool >/dev/null || t_fail "missing command promtool"
t_need "$BDIR/ibpoolroute"

PROM=$WORK/prom/gpuaware.prom
mkdir "$WORK/prom"
plugin_ini "$WORK/gpuaware.conf" '[metrics]' "textfile = $PROM" \
	'[log]' 'verbosity = loud'
sim_start "$CONFIGS/ft2-tiny.net"
osm_up ga opensm-gpuaware.conf

# value METRIC_WITH_LABELS: its value in the file, "" when absent.
value() {
	awk -v m="$1" '$1 == m { print $2 }' "$PROM"
}

promtool_ok() {
	promtool check metrics <"$PROM" >"$WORK/promtool.out" 2>&1 ||
		t_fail "$1: promtool: $(head -3 "$WORK/promtool.out")"
}

poll 10 test -s "$PROM" || t_fail "no textfile after the routing"
promtool_ok "first routing"
[ "$(value 'gpuaware_sm_routings_total{result="ok"}')" -ge 1 ] ||
	t_fail "routings: $(grep routings_total "$PROM")"
[ "$(value 'gpuaware_sm_routing_info{topology="fat-tree",engine="fattree"}')" = 1 ] ||
	t_fail "engine: $(grep routing_info "$PROM")"
[ "$(value gpuaware_sm_data_vls)" = 1 ] || t_fail "VLs: $(value gpuaware_sm_data_vls)"
[ "$(value gpuaware_sm_hints_generation)" = 0 ] ||
	t_fail "generation: $(value gpuaware_sm_hints_generation)"
[ "$(value 'gpuaware_sm_log_codes_total{code="GA10",level="error"}')" = 1 ] ||
	t_fail "ERR GA10 not counted: $(grep log_codes "$PROM")"
[ -z "$(value gpuaware_sm_job_routing_kept)" ] ||
	t_fail "a guard's choice without jobs"
poll 10 sh -c "grep -q '^gpuaware_sm_engine_in_use{engine=\"gpuaware\"} 1$' '$PROM'" ||
	t_fail "engine in use: $(grep engine_in_use "$PROM")"
[ "$(value 'gpuaware_sm_role{role="master"}')" = 1 ] ||
	t_fail "role: $(grep sm_role "$PROM")"

# a job across the leaves: a reroute, the guard's scores
printf '{"jobs":[{"id":"j1","hosts":["h01","h05","h09","h13"]}]}\n' >"$WORK/jobs.json"
sm hints set "$WORK/jobs.json" --wait --timeout 30000 >"$WORK/set.out" ||
	t_fail "hints set: $(cat "$WORK/set.out")"
poll 10 sh -c "grep -q '^gpuaware_sm_hints_generation 1$' '$PROM'" ||
	t_fail "no textfile for generation 1: $(grep generation "$PROM")"
promtool_ok "after the reroute"
[ "$(value gpuaware_sm_reroutes_total)" -ge 1 ] ||
	t_fail "reroutes: $(value gpuaware_sm_reroutes_total)"
[ "$(value gpuaware_sm_jobs_routed)" = 1 ] || t_fail "jobs routed: $(value gpuaware_sm_jobs_routed)"
kept=$(value gpuaware_sm_job_routing_kept)
[ "$kept" = 0 ] || [ "$kept" = 1 ] || t_fail "guard's choice: '$kept'"
[ "$(grep -c '^gpuaware_sm_job_model_ratio{' "$PROM")" = 12 ] ||
	t_fail "guard's scores: $(grep job_model "$PROM")"
# the state request says the same
sm state --json >"$WORK/state.json"
[ "$(json "$WORK/state.json" '$r->{job_model}{kept} eq "jobs" ? 1 : 0')" = "$kept" ] ||
	t_fail "kept $kept, state: $(cat "$WORK/state.json")"
[ -z "$(ls "$WORK/prom" | grep -v '^gpuaware.prom$')" ] ||
	t_fail "left in the directory: $(ls "$WORK/prom")"
t_log "textfile: $(grep -c -v '^#' "$PROM") series"
