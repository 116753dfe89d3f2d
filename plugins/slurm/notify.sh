#!/bin/sh
# SPDX-License-Identifier: MIT
# Shared body of the Slurm hooks: send one job.start or job.end request to
# ibpoold's socket.  Never fails the job: every problem is logged to
# syslog (logger -t gpuaware) and the exit status is 0.
#
# usage: notify.sh job.start|job.end   (SLURM_JOB_ID, SLURM_JOB_NODELIST)
# environment: GPUAWARE_POOL_SOCKET (/run/gpuaware/pool.sock),
#              GPUAWARE_TIMEOUT seconds for the whole exchange (3)
#
# The client is perl-base (Essential in Debian, so always installed) with
# IO::Socket::UNIX; hostlists are expanded by "scontrol show hostnames",
# or by "ibpoolroute --expand-hostlist" where scontrol is missing or fails.
set -u
op=${1:-}
sock=${GPUAWARE_POOL_SOCKET:-/run/gpuaware/pool.sock}
timeout=${GPUAWARE_TIMEOUT:-3}
job=${SLURM_JOB_ID:-}

log() {
	logger -t gpuaware -p daemon.warning -- "$*" 2>/dev/null ||
		echo "gpuaware: $*" >&2
}

# Job ids and host names go into JSON unescaped: allow only safe bytes.
safe() {
	case $1 in
	'' | *[!A-Za-z0-9._-]*) return 1 ;;
	esac
}

case $op in
job.start | job.end) ;;
*)
	log "notify.sh: unknown operation '$op'"
	exit 0
	;;
esac
if ! safe "$job"; then
	log "$op: bad or missing SLURM_JOB_ID '$job'"
	exit 0
fi
req="{\"op\":\"$op\",\"job\":\"$job\""
if [ "$op" = job.start ]; then
	# scontrol may be there without a slurm.conf to read (a client
	# package on a host that is no controller): then ibpoolroute expands
	if ! command -v scontrol >/dev/null 2>&1 ||
		! hosts=$(scontrol show hostnames "${SLURM_JOB_NODELIST:-}" 2>/dev/null); then
		hosts=$(ibpoolroute --expand-hostlist "${SLURM_JOB_NODELIST:-}" 2>&1)
	fi || {
		log "$op for job $job: cannot expand nodelist '${SLURM_JOB_NODELIST:-}': $hosts"
		exit 0
	}
	list=
	for h in $hosts; do
		if ! safe "$h"; then
			log "$op for job $job: bad host name '$h'"
			exit 0
		fi
		list="$list${list:+,}\"$h\""
	done
	req="$req,\"hosts\":[$list]"
fi
req="$req}"

# One request line, one reply line; the alarm bounds connect, send, reply.
reply=$(printf '%s\n' "$req" | perl -MIO::Socket::UNIX -e '
	$SIG{ALRM} = sub { print "timed out\n"; exit 3 };
	alarm $ARGV[1];
	my $s = IO::Socket::UNIX->new(Type => SOCK_STREAM(), Peer => $ARGV[0])
		or do { print "cannot connect: $!\n"; exit 2 };
	my $req = <STDIN>;
	print $s $req or do { print "cannot send: $!\n"; exit 2 };
	my $rep = <$s>;
	defined $rep or do { print "no reply\n"; exit 4 };
	print $rep;
	exit($rep =~ /^\s*\{\s*"ok"\s*:\s*true\b/ ? 0 : 5);
' "$sock" "$timeout" 2>&1)
rc=$?
case $rc in
0) ;;
5) log "$op for job $job: ibpoold refused: $reply" ;;
*) log "$op for job $job: ibpoold at $sock unavailable: $reply" ;;
esac
exit 0
