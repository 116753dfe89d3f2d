#!/bin/sh
# SPDX-License-Identifier: MIT
# `ibpoolroute topology --format slurm-gres` taken by the real Slurm
# (Debian's 22.05: gres/shard is there since 22.05): ibpoold offline on
# ft2-small with two hosts of 4 H100s and one of a GPU whose type Slurm
# cannot take; its gres.conf as written (the device files moved under the
# work directory, character devices there) and slurm.conf from the
# export's "# slurm.conf:" lines.  slurmctld and a slurmd per host run
# without a GRES complaint, `scontrol show node` counts the GPUs and 10
# shards a GPU, and shard jobs start until a GPU's 10 are taken: 4 jobs
# of 10 shards on 4 GPUs and the fifth waits, 12 of 3 and the 13th
# waits, 10 on the one-GPU host.
set -eu
. "$(dirname "$0")/lib.sh"
t_init slurm-gres
. "$TOP/tests/munge.sh"
. "$TOP/tests/slurm.sh"
for c in slurmctld slurmd sbatch squeue scancel scontrol munged mknod; do
	command -v "$c" >/dev/null || t_fail "missing command $c (tools/deps.sh)"
done
[ "$(id -u)" = 0 ] || t_fail "slurmd needs root (SlurmdUser=root)"
[ -e /usr/lib/x86_64-linux-gnu/slurm-wlm/gres_shard.so ] ||
	t_fail "Slurm without gres/shard: $(slurmctld -V)"
chmod 755 "$WORK"
S=$WORK/slurm
mkdir -p "$S/dev"

# --- the export, from ibpoold's config ---
{
	printf '[pool]\nsocket = %s/pool.sock\nstate_dir = %s/state\nsm_socket = %s/sm.sock\n' \
		"$WORK" "$WORK" "$WORK"
	for k in 1 2; do
		printf '[host node%04d]\ngpus = 4\ngpu_type = H100\nhca = node%04d mlx5_0\n' \
			"$k" "$k"
	done
	printf '[host node0003]\ngpus = 1\ngpu_type = A100 80GB\nhca = node0003 mlx5_0\n'
} >"$WORK/pool.conf"
"$BDIR/ibpoold" -c "$WORK/pool.conf" --net "$CONFIGS/ft2-small.net" \
	2>"$WORK/poold.err" &
pd=$!
T_PIDS="$T_PIDS $pd"
poll 10 poold_up || t_fail "ibpoold did not serve: $(tail -3 "$WORK/poold.err")"
pr topology --format slurm-gres >"$WORK/gres.conf" ||
	t_fail "export: $(cat "$WORK/gres.conf")"
stop_pid "$pd"
t_log "exported: $(grep -v '^#' "$WORK/gres.conf" | tr '\n' ' ')"

# --- gres.conf as exported, its NVIDIA device files under $S/dev ---
grep -q "File=/dev/nvidia\[0-3\]$" "$WORK/gres.conf" ||
	t_fail "no NVIDIA device files: $(cat "$WORK/gres.conf")"
sed "s#File=/dev/nvidia#File=$S/dev/nvidia#" "$WORK/gres.conf" >"$S/gres.conf"
for i in 0 1 2 3; do
	mknod "$S/dev/nvidia$i" c 1 3 # /dev/null's numbers
done

# --- slurm.conf: the common lines, then the export's ---
MS=$(munge_start "$WORK" m) || t_fail "munged did not start"
T_PIDS="$T_PIDS $(cat "$WORK/m.pid")"
# shellcheck disable=SC2046 # one word a port
set -- $(slurm_ports 4)
slurm_conf "$S" "$MS" "$1" >"$S/slurm.conf"
shift
sed -n 's/^# slurm.conf: \(GresTypes=.*\)/\1/p' "$WORK/gres.conf" >>"$S/slurm.conf"
sed -n 's/^# slurm.conf: NodeName=\([^ ]*\) \(Gres=.*\)/\1 \2/p' \
	"$WORK/gres.conf" >"$WORK/hints"
while read -r list gres; do
	for n in $("$BDIR/ibpoolroute" --expand-hostlist "$list"); do
		echo "NodeName=$n NodeHostname=localhost Port=$1 CPUs=16 $gres"
		shift
	done
done <"$WORK/hints" >>"$S/slurm.conf"
echo "PartitionName=gpu Nodes=ALL Default=YES MaxTime=INFINITE State=UP" \
	>>"$S/slurm.conf"
grep -q '^GresTypes=gpu,shard$' "$S/slurm.conf" ||
	t_fail "no GresTypes in the export: $(cat "$WORK/gres.conf")"
[ "$(grep -c '^NodeName=' "$S/slurm.conf")" = 3 ] ||
	t_fail "slurm.conf nodes: $(grep NodeName "$S/slurm.conf")"
export SLURM_CONF="$S/slurm.conf"
# shellcheck disable=SC2154 # rc is set in the trap
trap 'rc=$?; set +e; slurm_cancel_all; (exit $rc); t_cleanup' EXIT
slurm_start "$S" node0001 node0002 node0003
t_log "slurmctld and 3 slurmds up: $(sinfo -h -o '%D nodes %T')"

# --- what Slurm made of it ---
gres_of() { scontrol show node "$1" | sed -n 's/^ *Gres=//p'; }
[ "$(gres_of node0001)" = gpu:H100:4,shard:H100:40 ] ||
	t_fail "node0001: Gres=$(gres_of node0001)"
[ "$(gres_of node0003)" = gpu:1,shard:10 ] ||
	t_fail "node0003: Gres=$(gres_of node0003)"
! grep -E "SHARING|SHARED|more configured than expected|fix your gres.conf|gres.*(error|invalid)" \
	"$S"/slurmd-node000?.log "$S/slurmctld.log" >"$WORK/complaints" ||
	t_fail "GRES complaints: $(head -5 "$WORK/complaints")"
t_log "scontrol: node0001 $(gres_of node0001), node0003 $(gres_of node0003)"

# --- shard jobs: a GPU's 10 shards, no more ---
# shards N NODE COUNT: COUNT jobs of N shards on NODE, their ids in
# $jobs, comma-separated.
shards() {
	jobs=
	for _ in $(seq "$3"); do
		id=$(sbatch --parsable -o /dev/null -w "$2" --gres="shard:$1" \
			--wrap 'sleep 300') || t_fail "sbatch --gres=shard:$1 -w $2 refused"
		jobs=${jobs:+$jobs,}$id
	done
}
# settled P R: P of $jobs pending for resources, R running (the
# scheduler has looked at every job: none waits for another reason).
count() { squeue -h -j "$jobs" -t "$1" | wc -l; }
settled() {
	[ "$(count PD)" = "$1" ] && [ "$(count R)" = "$2" ] &&
		! squeue -h -j "$jobs" -t PD -o '%r' | grep -qv Resources
}
expect_jobs() {
	poll 20 settled "$1" "$2" ||
		t_fail "$3: want $2 running, $1 waiting for resources: $(squeue)"
	t_log "$3: $2 running, $1 waiting for resources"
}
shards 10 node0001 5
expect_jobs 1 4 "5 jobs of 10 shards on 4 GPUs"
slurm_cancel_all
shards 3 node0002 13
expect_jobs 1 12 "13 jobs of 3 shards on 4 GPUs"
slurm_cancel_all
shards 10 node0003 1
expect_jobs 0 1 "10 shards on the one-GPU host"
slurm_cancel_all
