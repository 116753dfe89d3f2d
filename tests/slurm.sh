# SPDX-License-Identifier: MIT
# A private Slurm for the tests (Debian's slurmctld and slurmd): one
# slurmctld and one `slurmd -N` per node, all on localhost on ports of
# their own, MUNGE through a munged of tests/munge.sh, state, spool and
# logs under a directory the test owns.  slurm_start and
# slurm_cancel_all want tests/ibsim/lib.sh's poll, t_fail and T_PIDS.

# slurm_ports N: N free TCP ports of 127.0.0.1, one a word.
slurm_ports() {
	perl -MIO::Socket::IP -e 'my @s = map { IO::Socket::IP->new(
		LocalHost => "127.0.0.1", LocalPort => 0, Listen => 1) or die $!
		} 1 .. $ARGV[0]; print join(" ", map { $_->sockport } @s), "\n"' "$1"
}

# slurm_conf DIR MUNGE_SOCKET PORT: the slurm.conf lines every test
# cluster shares, slurmctld on PORT, files under DIR, cons_tres; the
# caller appends GresTypes, its nodes (NodeHostname=localhost and a Port
# each) and partitions.
slurm_conf() {
	cat <<EOT
ClusterName=gpuaware
SlurmctldHost=localhost
SlurmctldPort=$3
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
AuthInfo=socket=$2
CredType=cred/munge
StateSaveLocation=$1/state
SlurmdSpoolDir=$1/spool-%n
SlurmctldPidFile=$1/slurmctld.pid
SlurmdPidFile=$1/slurmd-%n.pid
SlurmctldLogFile=$1/slurmctld.log
SlurmdLogFile=$1/slurmd-%n.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
MpiDefault=none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
ReturnToService=2
SlurmdParameters=config_overrides
SchedulerType=sched/builtin
JobCompType=jobcomp/none
SwitchType=switch/none
EOT
}

# slurm_start DIR NODE...: slurmctld on $SLURM_CONF (files under DIR as
# slurm_conf put them), then a slurmd per NODE, each pid in T_PIDS; back
# once every node is idle (30 s), else the test fails with the logs.
slurm_start() {
	local d=$1 n
	shift
	mkdir -p "$d/state"
	slurmctld -i >"$d/ctld.out" 2>&1 || t_fail "slurmctld: $(cat "$d/ctld.out")"
	poll 10 test -s "$d/slurmctld.pid" || t_fail "slurmctld wrote no pid"
	T_PIDS="$T_PIDS $(cat "$d/slurmctld.pid")"
	for n in "$@"; do
		slurmd -N "$n" >"$d/d-$n.out" 2>&1 ||
			t_fail "slurmd -N $n: $(cat "$d/d-$n.out"; grep error: "$d/slurmd-$n.log")"
		poll 10 test -s "$d/slurmd-$n.pid" || t_fail "slurmd $n wrote no pid"
		T_PIDS="$T_PIDS $(cat "$d/slurmd-$n.pid")"
	done
	poll 30 slurm_idle ||
		t_fail "nodes not idle: $(sinfo -N 2>&1; tail -3 "$d/slurmctld.log")"
}

slurm_idle() { [ "$(sinfo -h -o '%T' | sort -u)" = idle ]; }

# slurm_cancel_all: every job of this cluster cancelled, squeue empty
# (10 s): job steps outlive their slurmd, so before the daemons stop.
slurm_cancel_all() {
	scancel --quiet -u "$(id -un)" 2>/dev/null || return 0
	poll 10 slurm_no_jobs || true
}

slurm_no_jobs() { [ -z "$(squeue -h 2>/dev/null)" ]; }
