#!/bin/sh
# SPDX-License-Identifier: MIT
# A real Slurm end to end: munged (a key of its own), slurmctld and one
# `slurmd -N` per node on ports of their own, cons_tres with a gres.conf
# of four GPUs a node; the hooks from `make install DESTDIR=...` as
# PrologSlurmctld/EpilogSlurmctld, ibpoold on a pool.conf from its
# --print-config, OpenSM with the plugin on ibsim's ft2-small.  sbatch'ed
# jobs flow through the hooks, ibpoold and its relay into the plugin:
# - an exclusive two-node job is in the plugin's table and routed (the
#   plugin's routed generation and reroutes rise);
# - two one-GPU jobs and a two-node one share a node, all are taken and
#   routed, the later ones on their other hosts, and the plugin stays up;
# - a job the routing refuses (ghost01: a host ibpoold's fabric has and
#   the SM's lacks) and one ibpoold refuses (cpu01: not on the fabric)
#   are each logged in the hook's log, the first counted in ibpoold's
#   metrics with the plugin up, and a later job still routes;
# - jobs that end leave ibpoold's and the plugin's tables.
set -eu
. "$(dirname "$0")/lib.sh"
t_init slurm-e2e
. "$TOP/tests/munge.sh"
. "$TOP/tests/slurm.sh"
for c in slurmctld slurmd sbatch squeue scancel munged; do
	command -v "$c" >/dev/null || t_fail "missing command $c (tools/deps.sh)"
done
# slurmd launches job steps as their user: it runs as root (SlurmdUser).
[ "$(id -u)" = 0 ] || t_fail "slurmd needs root (SlurmdUser=root)"
NET=$CONFIGS/ft2-small.net
NODES="node0001 node0005 node0009 node0013 ghost01 cpu01"
chmod 755 "$WORK"
cd "$WORK"

# --- installed as an admin would: DESTDIR, config under SYSCONFDIR ---
D=$WORK/root
make -C "$TOP" --no-print-directory B="$BDIR" DESTDIR="$D" PREFIX=/usr \
	SYSCONFDIR="$WORK/etc" install >"$WORK/install.log" 2>&1 ||
	t_fail "make install: $(tail -3 "$WORK/install.log")"
HOOKS=$D/usr/lib/gpuaware/slurm
t_need "$HOOKS/prolog-slurmctld.sh" "$HOOKS/epilog-slurmctld.sh"
mkdir -p "$WORK/etc/gpuaware"
printf 'socket = %s\nlog = %s\ntimeout = 5\n' "$WORK/pool.sock" \
	"$WORK/hook.log" >"$WORK/etc/gpuaware/slurm-hooks.conf"
: >"$WORK/hook.log"

# --- the fabric, OpenSM with the plugin ---
plugin_ini "$WORK/gpuaware.conf" '[log]' 'verbosity = verbose'
sim_start "$NET"
osm_up ga opensm-gpuaware.conf
no_errors "$WORK/ga.log"

# --- ibpoold: its fabric names node0017 ghost01, which the SM lacks ---
sed 's/"node0017 /"ghost01 /' "$NET" >"$WORK/pool.net"
"$D/usr/bin/ibpoold" --print-config --net "$WORK/pool.net" --gpus 2 \
	--gpu-type T4 --group "$(id -gn)" >"$WORK/pool.conf" 2>"$WORK/gen.err" ||
	t_fail "--print-config: $(cat "$WORK/gen.err")"
sed -i "/^\[pool\]/a socket = $WORK/pool.sock\nstate_dir = $WORK/state\nsm_socket = $WORK/sm.sock\ntelemetry_interval_ms = 200\ntcp = 127.0.0.1:0" \
	"$WORK/pool.conf"
"$D/usr/bin/ibpoold" -c "$WORK/pool.conf" --net "$WORK/pool.net" \
	2>"$WORK/poold.err" &
T_PIDS="$T_PIDS $!"
poll 30 poold_up || t_fail "ibpoold did not serve: $(tail -3 "$WORK/poold.err")"
PP=$(sed -n 's/.* and tcp 127\.0\.0\.1:\([0-9]*\) .*/\1/p' "$WORK/poold.err")
[ -n "$PP" ] || t_fail "ibpoold: no TCP port: $(cat "$WORK/poold.err")"
# metric NAME: its value on ibpoold's GET /metrics.
metric() {
	curl -sf "http://127.0.0.1:$PP/metrics" | awk -v m="$1" '$1 == m { print $2 }'
}

# --- munged, slurmctld, one slurmd per node ---
mkdir -m 755 "$WORK/munge"
MS=$(munge_start "$WORK/munge" m) || t_fail "munged did not start"
T_PIDS="$T_PIDS $(cat "$WORK/munge/m.pid")"
# free TCP ports: slurmctld's, then one per slurmd
# shellcheck disable=SC2046 # one word a port
set -- $(slurm_ports 7)
S=$WORK/slurm
mkdir -p "$S/dev"
for i in 0 1 2 3; do : >"$S/dev/gpu$i"; done
slurm_conf "$S" "$MS" "$1" >"$S/slurm.conf"
cat >>"$S/slurm.conf" <<EOT
GresTypes=gpu
PrologSlurmctld=$HOOKS/prolog-slurmctld.sh
EpilogSlurmctld=$HOOKS/epilog-slurmctld.sh
EOT
shift
for n in $NODES; do
	echo "NodeName=$n NodeHostname=localhost Port=$1 CPUs=4 Gres=gpu:4" \
		>>"$S/slurm.conf"
	shift
done
echo "PartitionName=gpu Nodes=ALL Default=YES MaxTime=INFINITE State=UP" \
	>>"$S/slurm.conf"
echo "Name=gpu File=$S/dev/gpu[0-3]" >"$S/gres.conf"
export SLURM_CONF="$S/slurm.conf"
# shellcheck disable=SC2154 # rc is set in the trap
trap 'rc=$?; set +e; slurm_cancel_all; (exit $rc); t_cleanup' EXIT
# shellcheck disable=SC2086 # one word a node
slurm_start "$S" $NODES
t_log "slurmctld and slurmds up: $(sinfo -h -o '%D nodes %T')"

# --- helpers ---
sub() { sbatch --parsable -o /dev/null "$@" --wrap "sleep 300"; }
# running JOB NODE: the job runs, on NODE among others.
running() {
	# shellcheck disable=SC2046 # state and node list
	set -- "$1" "$2" $(squeue -h -j "$1" -o '%T %N')
	[ "${3:-}" = RUNNING ] && scontrol show hostnames "$4" | grep -qx "$2"
}
sm hints get --json >/dev/null 2>&1 || t_fail "plugin socket: $(sm state 2>&1)"
# in_table JOB: the plugin's table holds JOB as ibpoold's.
in_table() {
	sm hints get --json >"$WORK/tbl" 2>/dev/null &&
		[ "$(json "$WORK/tbl" "scalar grep { \$_->{id} eq '$1' &&
			(\$_->{owner} // '') eq 'ibpoold' } @{\$r->{jobs}}")" = 1 ]
}
not_in_table() { sm hints get --json >"$WORK/tbl" 2>/dev/null &&
	[ "$(json "$WORK/tbl" "scalar grep { \$_->{id} eq '$1' } @{\$r->{jobs}}")" = 0 ]; }
state_num() {
	sm state --json >"$WORK/st" 2>/dev/null && json "$WORK/st" "\$r->{$1} // -1"
}
# routed_at GEN: the switches hold a routing of table generation GEN+.
routed_at() { [ "$(state_num routed_generation)" -ge "$1" ]; }
hook_says() { grep -q -- "$1" "$WORK/hook.log"; }

# --- an exclusive two-node job ---
r0=$(state_num reroutes_routed)
A=$(sub --exclusive -N2 -w node0001,node0005) || t_fail "sbatch A"
poll 20 running "$A" node0001 || t_fail "job $A not running: $(squeue)"
poll 20 in_table "$A" || t_fail "job $A not in the plugin's table: $(sm hints get)"
g=$(state_num hints_generation)
poll 30 routed_at "$g" || t_fail "generation $g not routed: $(sm state)"
[ "$(state_num reroutes_routed)" -gt "$r0" ] ||
	t_fail "no reroute routed for job $A: $(sm state)"
[ "$(state_num jobs_routed)" = 1 ] || t_fail "jobs routed: $(sm state)"
t_log "exclusive job $A: in the table, routed at generation $g"

# --- jobs sharing node0009: two one-GPU jobs and a two-node one ---
B=$(sub -n1 --gres=gpu:1 -w node0009) || t_fail "sbatch B"
C=$(sub -n1 --gres=gpu:1 -w node0009) || t_fail "sbatch C"
poll 20 running "$B" node0009 || t_fail "job $B not running: $(squeue)"
poll 20 running "$C" node0009 || t_fail "job $C not running: $(squeue)"
E=$(sub -N2 -n2 --gres=gpu:1 -w node0009,node0013) || t_fail "sbatch E"
poll 20 running "$E" node0013 ||
	t_fail "job $E not running beside $B and $C: $(squeue)"
for j in "$B" "$C" "$E"; do
	poll 20 in_table "$j" || t_fail "shared-node job $j not in the table: $(sm hints get)"
done
g=$(state_num hints_generation)
poll 30 routed_at "$g" || t_fail "shared jobs not routed: $(sm state)"
# A, the first of B and C in the table (their prologs race), E on
# node0013; the second of B and C has no host of its own
[ "$(state_num jobs_routed)" = 3 ] || t_fail "jobs routed: $(sm state)"
sm hints get --json >"$WORK/tbl"
# shellcheck disable=SC2046 # two ids
set -- $(json "$WORK/tbl" "join ' ', grep { \$_ eq '$B' || \$_ eq '$C' }
	map { \$_->{id} } @{\$r->{jobs}}")
log_has "$WORK/ga.log" "job '$2' has no host of its own: its hosts route with job '$1'" 1 ||
	t_fail "no word of $2 routing with $1"
pr pool >"$WORK/pool.out"
grep -q "^Relay: plugin up, in sync" "$WORK/pool.out" ||
	t_fail "relay: $(grep Relay "$WORK/pool.out")"
no_errors "$WORK/ga.log"
t_log "jobs $B $C $E share node0009: all in the table, routed, plugin up"

# --- refused jobs are logged by the hook, the others route ---
G=$(sub -n1 --gres=gpu:1 -w ghost01) || t_fail "sbatch ghost01"
poll 20 hook_says "job.start for job $G: in the pool, but the routing refused it: job '$G': unknown host 'ghost01'" ||
	t_fail "no routing refusal in the hook's log: $(cat "$WORK/hook.log")"
X=$(sub -n1 --gres=gpu:1 -w cpu01) || t_fail "sbatch cpu01"
poll 20 hook_says "job.start for job $X: ibpoold refused: .*unknown host 'cpu01'" ||
	t_fail "no ibpoold refusal in the hook's log: $(cat "$WORK/hook.log")"
pr pool >"$WORK/pool.out"
grep -q "^Refused by the plugin: 1 job, not routed: job '$G': unknown host 'ghost01'" \
	"$WORK/pool.out" || t_fail "pool: $(cat "$WORK/pool.out")"
grep -q "^Relay: plugin up, in sync" "$WORK/pool.out" ||
	t_fail "relay after a refusal: $(grep Relay "$WORK/pool.out")"
[ "$(metric gpuaware_pool_relay_refused_jobs)" = 1 ] &&
	[ "$(metric gpuaware_pool_relay_up)" = 1 ] ||
	t_fail "metrics after a refusal: $(curl -s "http://127.0.0.1:$PP/metrics" | grep relay_)"
L=$(sub -n1 --gres=gpu:1 -w node0013) || t_fail "sbatch L"
poll 20 in_table "$L" || t_fail "job $L after the refusals not in the table: $(sm hints get)"
not_in_table "$G" || t_fail "refused job $G in the plugin's table"
g=$(state_num hints_generation)
poll 30 routed_at "$g" || t_fail "job $L not routed: $(sm state)"
t_log "job $G refused by the routing, $X by ibpoold, both in the hook's log; $L routed"

# --- the jobs end: they leave both tables ---
scancel "$A" "$B" "$C" "$E" "$G" "$X" "$L"
no_pool_jobs() {
	pr jobs --json >"$WORK/jl" 2>/dev/null &&
		[ "$(json "$WORK/jl" 'scalar @{$r->{jobs}}')" = 0 ]
}
no_plugin_jobs() { sm hints get --json >"$WORK/tbl" 2>/dev/null &&
	[ "$(json "$WORK/tbl" 'scalar @{$r->{jobs}}')" = 0 ]; }
poll 30 no_pool_jobs || t_fail "ibpoold still has jobs: $(pr jobs 2>&1)"
poll 30 no_plugin_jobs || t_fail "the plugin still has jobs: $(sm hints get)"
g=$(state_num hints_generation)
poll 30 routed_at "$g" || t_fail "the empty table not routed: $(sm state)"
[ "$(state_num jobs_routed)" -le 0 ] || t_fail "jobs routed after the end: $(sm state)"
# the hook said nothing else (cpu01's job ends unknown to ibpoold too)
! grep -v "job.start for job $X: ibpoold refused\|job.end for job $X: ibpoold refused: .*no job\|job $G: in the pool, but" \
	"$WORK/hook.log" | grep -q . ||
	t_fail "unexpected hook log lines: $(cat "$WORK/hook.log")"
no_errors "$WORK/ga.log"
t_log "jobs ended: ibpoold's and the plugin's tables empty, routed at generation $g"
