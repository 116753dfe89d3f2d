# SPDX-License-Identifier: MIT
# A private munged for the tests: its own key, socket, log, PID and seed
# files under a directory the test owns, nothing of the machine's
# (/etc/munge, /run/munge) touched.  Source it; the caller stops what it
# started (the PID is in $DIR/NAME.pid).

# munge_start DIR NAME: munged with a new key DIR/NAME.key; prints its
# socket DIR/NAME.sock once it answers.  DIR must let everyone through
# (munged refuses a socket others cannot reach) and be writable by no
# one else.
munge_start() {
	local d=$1 n=$2 i=0
	command -v munged >/dev/null && command -v mungekey >/dev/null || {
		echo "munge_start: munged or mungekey missing (Debian package munge)" >&2
		return 1
	}
	mungekey -c -f -k "$d/$n.key" -b 1024 || return 1
	munged -f -S "$d/$n.sock" --key-file="$d/$n.key" \
		--log-file="$d/$n.log" --pid-file="$d/$n.pid" \
		--seed-file="$d/$n.seed" || {
		echo "munge_start: munged failed: $(tail -2 "$d/$n.log" 2>/dev/null)" >&2
		return 1
	}
	until munge -S "$d/$n.sock" -n >/dev/null 2>&1; do
		i=$((i + 1))
		[ $i -le 100 ] || {
			echo "munge_start: $d/$n.sock does not answer" >&2
			return 1
		}
		sleep 0.05
	done
	echo "$d/$n.sock"
}

# munge_stop DIR NAME: stop that munged (SIGTERM), and wait up to 5 s
# for it to be gone (it writes its seed file on the way out).
munge_stop() {
	local pid i=0
	pid=$(cat "$1/$2.pid" 2>/dev/null) || return 0
	kill "$pid" 2>/dev/null || return 0
	while kill -0 "$pid" 2>/dev/null && [ $i -lt 100 ]; do
		sleep 0.05
		i=$((i + 1))
	done
}

# munge_envelope SOCKET REQUEST [MUNGE_OPTION...]: REQUEST (one JSON line)
# as the protocol's MUNGE envelope, its credential from munged at SOCKET.
munge_envelope() {
	local s=$1 r=$2 cred
	shift 2
	cred=$(printf '%s' "$r" | munge -S "$s" "$@") || return 1
	printf '{"op":"munge","cred":"%s"}\n' "$cred"
}

# tcp_ask HOST:PORT LINE: LINE to that TCP endpoint; prints the reply
# line (nothing when none came within 5 s).
tcp_ask() {
	printf '%s\n' "$2" | perl -MIO::Socket::IP -e '
		$SIG{ALRM} = sub { exit 3 };
		alarm 5;
		my $s = IO::Socket::IP->new(PeerAddr => $ARGV[0])
			or die "connect $ARGV[0]: $!\n";
		print $s scalar <STDIN>;
		my $r = <$s>;
		print $r if defined $r;' "$1"
}
