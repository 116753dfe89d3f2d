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
# installed beside the hooks (PREFIX/bin), else the one on PATH.  A job
# whose host names do not fit in ibpoold's request line (about 5,900)
# goes as its node list, which ibpoold expands.  The timeout (1..600 s)
# covers the expansion, MUNGE and the exchange.
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
max_timeout=600
logfile=${GPUAWARE_HOOK_LOG:-$(setting log)}

# log MESSAGE: to the log file and syslog, each control character (a
# newline from the environment would start a forged line) as '?'.
log() {
	msg=$(printf '%s' "$*" | tr -c '[:print:]' '?')
	[ -z "$logfile" ] ||
		echo "$(date '+%Y-%m-%dT%H:%M:%S') gpuaware: $msg" >> "$logfile" ||
		true
	logger -t gpuaware -p daemon.warning -- "$msg" 2>/dev/null ||
		echo "gpuaware: $msg" >&2
}

# perl's alarm takes whole seconds, 0 turns it off and it wraps at 2^32:
# a timeout of "0.5", "3s" or 4294967296 would leave slurmctld's prolog
# waiting on ibpoold forever.
case $timeout in
'' | *[!0-9]*) secs= ;;
*) secs=${timeout#"${timeout%%[!0]*}"} ;;
esac
case $secs in
'')
	log "timeout '$timeout' is not a whole number of seconds, 1 or more; 3 used"
	timeout=3
	;;
????* | [6-9]?? | 6[1-9]? | 60[1-9])
	log "timeout '$timeout' is over $max_timeout seconds; $max_timeout used"
	timeout=$max_timeout
	;;
*) timeout=$secs ;;
esac

# Job ids go into JSON unescaped: allow only safe bytes.
case $job in
'' | *[!A-Za-z0-9._-]*)
	log "$op: bad or missing SLURM_JOB_ID '$job'"
	exit 0
	;;
esac
case $op in
job.start | job.end) ;;
*)
	log "notify.sh: unknown operation '$op'"
	exit 0
	;;
esac
expand=ibpoolroute
[ ! -x "$here/../../../bin/ibpoolroute" ] ||
	expand=$here/../../../bin/ibpoolroute
command -v scontrol >/dev/null 2>&1 && scontrol=scontrol || scontrol=

# Everything from here, the node list's expansion too, runs under one
# alarm.  Names are checked and joined in one linear pass; a request
# line over ibpoold's limit sends the node list unexpanded ("nodelist"),
# which ibpoold expands itself.  Over TCP the request travels as a MUNGE
# credential's payload, as Slurm's daemons authenticate: ibpoold knows
# it is SlurmUser's.  One request line, one reply line.
reply=$(perl -MIO::Socket::UNIX -MIO::Socket::IP -MIPC::Open2 -e '
	my ($sock, $tmo, $op, $job, $list, $scontrol, $expand, $msock) = @ARGV;
	my $max = 65536;
	my $kid;
	$SIG{ALRM} = sub { kill "KILL", $kid if $kid; print "timed out\n"; exit 3 };
	$SIG{PIPE} = "IGNORE";
	alarm $tmo;
	sub fail { print "$_[1]\n"; exit $_[0] }
	# run CMD...: its output (stderr too when asked) and exit status.
	sub run {
		my ($err, @cmd) = @_;
		$kid = open(my $fh, "-|") // fail(7, "cannot fork: $!");
		if (!$kid) {
			open(STDERR, $err ? ">&STDOUT" : ">/dev/null");
			exec { $cmd[0] } @cmd or do { print "$cmd[0]: $!\n"; exit 127 };
		}
		local $/;
		my $out = <$fh> // "";
		close $fh;
		$kid = undef;
		return ($?, $out);
	}
	my $req = "{\"op\":\"$op\",\"job\":\"$job\"";
	if ($op eq "job.start") {
		my ($rc, $out) = (1, "");
		($rc, $out) = run(0, $scontrol, "show", "hostnames", $list)
			if $scontrol;
		($rc, $out) = run(1, $expand, "--expand-hostlist", $list)
			if $rc || $out !~ /\S/;
		$out =~ s/\s+$//;
		$rc and fail(7, "cannot expand nodelist \x27$list\x27: $out");
		my @h = split " ", $out;
		for (@h) {
			/^[A-Za-z0-9._-]+\z/ or fail(8, "bad host name \x27$_\x27");
		}
		my $hosts = "$req,\"hosts\":[\"" . join("\",\"", @h) . "\"]}";
		if (length($hosts) <= $max) {
			$req = $hosts;
		} elsif ($list =~ /^[A-Za-z0-9._,\[\]-]+\z/ &&
			 length($req) + length($list) + 14 <= $max) {
			$req .= ",\"nodelist\":\"$list\"}";
		} else {
			fail(8, scalar(@h) . " hosts: the request is over ibpoold\x27s $max-byte line, and so is the node list \x27" . substr($list, 0, 80) . "...\x27");
		}
	} else {
		$req .= "}";
	}
	my ($tcp) = $sock =~ /^tcp:(.*)$/;
	if (defined $tcp) {
		my @m = ("munge", defined $msock && $msock ne "" ? ("-S", $msock) : ());
		my ($out, $in);
		$kid = eval { open2($out, $in, @m) } or
			fail(9, "no MUNGE credential for $sock: $@");
		print $in $req;
		close $in;
		local $/;
		my $cred = <$out> // "";
		waitpid($kid, 0);
		$kid = undef;
		$cred =~ s/\s+$//;
		$? == 0 && $cred =~ /^[A-Za-z0-9+\/=:]+\z/ or
			fail(9, "no MUNGE credential for $sock: $cred");
		$req = "{\"op\":\"munge\",\"cred\":\"$cred\"}";
		$tcp = "127.0.0.1:$tcp" if $tcp =~ /^\d+$/;
	}
	my $s = (defined $tcp ? IO::Socket::IP->new(PeerAddr => $tcp) :
		 IO::Socket::UNIX->new(Type => SOCK_STREAM(), Peer => $sock))
		or fail(2, "cannot connect: $!");
	# A refusal may come before the whole line is taken: read it.
	my $sent = print $s "$req\n";
	my $rep = <$s>;
	defined $rep or fail(4, $sent ? "no reply" : "cannot send: $!");
	$rep =~ /^\s*\{\s*"ok"\s*:\s*true\b/ or do { print $rep; exit 5 };
	# Taken, but the routing plugin refused it: say why.
	my ($why) = $rep =~ /"routing_refused"\s*:\s*"((?:[^"\\]|\\.)*)"/;
	defined $why or exit 0;
	print "$why\n";
	exit 6;
' "$sock" "$timeout" "$op" "$job" "${SLURM_JOB_NODELIST:-}" "$scontrol" \
	"$expand" "$munge_sock" 2>&1)
rc=$?
case $rc in
0) ;;
5) log "$op for job $job: ibpoold refused: $reply" ;;
6) log "$op for job $job: in the pool, but the routing refused it: $reply" ;;
7 | 8 | 9) log "$op for job $job: $reply" ;;
*) log "$op for job $job: ibpoold at $sock unavailable: $reply" ;;
esac
exit 0
