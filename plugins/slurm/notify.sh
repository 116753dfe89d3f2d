#!/bin/sh
# SPDX-License-Identifier: MIT
# Shared body of the Slurm hooks: send one job.start or job.end request to
# ibpoold's socket.  Never fails the job: every problem is logged to
# syslog (logger -t gpuaware) and the exit status is 0.
#
# usage: notify.sh job.start|job.end   (SLURM_JOB_ID, SLURM_JOB_NODELIST)
# settings, from the environment or else from /etc/gpuaware/slurm-hooks.conf
# (slurmctld gives its hooks an environment of its own; GPUAWARE_HOOK_CONFIG
# names another file), "key = value" lines, ';' or '#' comments:
#   socket        GPUAWARE_POOL_SOCKET (/run/gpuaware/pool.sock; or
#                 tcp:HOST:PORT, ibpoold's [pool] tcp on another host, the
#                 request then in a MUNGE credential)
#   munge_socket  GPUAWARE_MUNGE_SOCKET (munge's default socket)
#   timeout       GPUAWARE_TIMEOUT seconds for the whole exchange (3)
#   log           GPUAWARE_HOOK_LOG: a file to append each problem to,
#                 besides syslog (none)
#
# The client is perl-base (Essential in Debian, so always installed) with
# IO::Socket::UNIX; hostlists are expanded by "scontrol show hostnames",
# or by "ibpoolroute --expand-hostlist" where scontrol is missing or
# fails (no slurm.conf on this host, slurmctld unreachable): the one
# installed beside the hooks (PREFIX/bin), else the one on PATH.
# -f: host names are split on blanks, never globbed against the cwd.
set -uf
op=${1:-}
job=${SLURM_JOB_ID:-}
here=$(dirname "$0")
conf=${GPUAWARE_HOOK_CONFIG:-/etc/gpuaware/slurm-hooks.conf}

# setting KEY: KEY's value in $conf ("" when missing).
setting() {
	[ -r "$conf" ] || return 0
	sed -n "s/[;#].*//; s/^[[:space:]]*$1[[:space:]]*=[[:space:]]*//p" \
		"$conf" | sed 's/[[:space:]]*$//' | tail -n 1
}

sock=${GPUAWARE_POOL_SOCKET:-$(setting socket)}
sock=${sock:-/run/gpuaware/pool.sock}
munge_sock=${GPUAWARE_MUNGE_SOCKET:-$(setting munge_socket)}
timeout=${GPUAWARE_TIMEOUT:-$(setting timeout)}
timeout=${timeout:-3}
logfile=${GPUAWARE_HOOK_LOG:-$(setting log)}

log() {
	[ -z "$logfile" ] ||
		echo "$(date '+%Y-%m-%dT%H:%M:%S') gpuaware: $*" >> "$logfile" ||
		true
	logger -t gpuaware -p daemon.warning -- "$*" 2>/dev/null ||
		echo "gpuaware: $*" >&2
}

# perl's alarm takes whole seconds and 0 turns it off: a timeout of
# "0.5" or "3s" would leave slurmctld's prolog waiting on ibpoold forever.
case $timeout in
'' | *[!0-9]* | 0)
	log "timeout '$timeout' is not a whole number of seconds, 1 or more; 3 used"
	timeout=3
	;;
esac

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
	if ! command -v scontrol >/dev/null 2>&1 ||
		! hosts=$(scontrol show hostnames "${SLURM_JOB_NODELIST:-}" \
			2>/dev/null) || [ -z "$hosts" ]; then
		expand=ibpoolroute
		[ ! -x "$here/../../../bin/ibpoolroute" ] ||
			expand=$here/../../../bin/ibpoolroute
		hosts=$("$expand" --expand-hostlist \
			"${SLURM_JOB_NODELIST:-}" 2>&1) || {
			log "$op for job $job: cannot expand nodelist '${SLURM_JOB_NODELIST:-}': $hosts"
			exit 0
		}
	fi
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

# Over TCP the request travels as a MUNGE credential's payload, as
# Slurm's daemons authenticate: ibpoold knows it is SlurmUser's.
case $sock in
tcp:*)
	# shellcheck disable=SC2086 # no -S, or -S and the socket
	if ! cred=$(printf '%s' "$req" | munge \
		${munge_sock:+-S "$munge_sock"} 2>&1); then
		log "$op for job $job: no MUNGE credential for $sock: $cred"
		exit 0
	fi
	req="{\"op\":\"munge\",\"cred\":\"$cred\"}"
	;;
esac

# One request line, one reply line; the alarm bounds connect, send, reply.
reply=$(printf '%s\n' "$req" | perl -MIO::Socket::UNIX -MIO::Socket::IP -e '
	$SIG{ALRM} = sub { print "timed out\n"; exit 3 };
	alarm $ARGV[1];
	my ($tcp) = $ARGV[0] =~ /^tcp:(.*)$/;
	$tcp = "127.0.0.1:$tcp" if defined $tcp && $tcp =~ /^\d+$/;
	my $s = (defined $tcp ? IO::Socket::IP->new(PeerAddr => $tcp) :
		 IO::Socket::UNIX->new(Type => SOCK_STREAM(), Peer => $ARGV[0]))
		or do { print "cannot connect: $!\n"; exit 2 };
	my $req = <STDIN>;
	print $s $req or do { print "cannot send: $!\n"; exit 2 };
	my $rep = <$s>;
	defined $rep or do { print "no reply\n"; exit 4 };
	$rep =~ /^\s*\{\s*"ok"\s*:\s*true\b/ or do { print $rep; exit 5 };
	# Taken, but the routing plugin refused it: say why.
	my ($why) = $rep =~ /"routing_refused"\s*:\s*"((?:[^"\\]|\\.)*)"/;
	defined $why or exit 0;
	print "$why\n";
	exit 6;
' "$sock" "$timeout" 2>&1)
rc=$?
case $rc in
0) ;;
5) log "$op for job $job: ibpoold refused: $reply" ;;
6) log "$op for job $job: in the pool, but the routing refused it: $reply" ;;
*) log "$op for job $job: ibpoold at $sock unavailable: $reply" ;;
esac
exit 0
