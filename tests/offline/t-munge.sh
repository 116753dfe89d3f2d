#!/bin/sh
# SPDX-License-Identifier: MIT
# Changes over TCP in a MUNGE credential, against real munged's started
# here (Debian's munge, each with a key of its own): ibpoold takes
# job.start and alloc over TCP from a credential and holds them to the
# credential's uid (nobody's allocation is nobody's, nobody may not
# start a job); without a credential a change is forbidden and the
# client says why; a credential of another key (forged), one decoded
# before (replayed), one expired, an envelope with another field, one
# inside another, and one on the Unix socket are refused and change
# nothing; the Slurm hook reaches ibpoold over TCP; with socket_mode
# 0660 a uid that cannot open the socket (nobody) cannot change the pool
# over TCP either; max_gpus_per_uid and max_lease_s bind every uid but
# root's on both sockets; 32 anonymous peers asking job.list keep out
# neither a credential's request nor a scrape; with munged down a
# credential cannot be decoded (internal, munged's socket in the log
# only) and the client sends none.
# usage: t-munge.sh [BUILDDIR]; prints PASS/FAIL lines and a summary.
set -eu
cd "$(dirname "$0")/../.."
B=${1:-build}

. tests/offline/lib.sh
. tests/munge.sh
poold_setup pid mpid xpid flood
chmod 755 "$w"
MS=$(munge_start "$w" good) || exit 1
mpid=$(cat "$w/good.pid")
MX=$(munge_start "$w" other) || exit 1
xpid=$(cat "$w/other.pid")

S=$w/pool.sock

poold_conf "$S" "$w/state" "tcp = 127.0.0.1:0" "munge_socket = $MS" \
	"socket_mode = 0666" >"$w/pool.conf"
poold_start "$D" "$w/pool.conf" "$NET"
port=$(sed -n 's/.* and tcp 127\.0\.0\.1:\([0-9]*\) .*/\1/p' "$w/log")
check "tcp: the port is logged" [ -n "$port" ]
T=tcp:127.0.0.1:$port
EP=127.0.0.1:$port

expect() {
	if [ "$2" = "$3" ]; then ok "$1"; else bad "$1" "want '$2', got '$3'"; fi
}

# reply_is NAME CODE MESSAGE_PART LINE: LINE over TCP is answered with
# error CODE whose message holds MESSAGE_PART.
reply_is() {
	tcp_ask "$EP" "$4" >"$w/reply" || true
	if [ "$(json "$w/reply" '$r->{error}{code}' 2>/dev/null)" = "$2" ] &&
		grep -qF -- "$3" "$w/reply"; then
		ok "$1"
	else
		bad "$1" "$(cat "$w/reply")"
	fi
}

jobs_now() {
	"$R" jobs --socket "$S" --json >"$w/jobs"
	json "$w/jobs" 'join " ", map { $_->{job} } @{$r->{jobs}}'
}

nobody() {
	setpriv --reuid=nobody --regid=nogroup --clear-groups "$@"
}

# --- a credential: the change is the credential's uid's ---
check "job.start over TCP in a credential" \
	quiet "$R" jobs --start j1 --hosts node0001 --socket "$T" --munge-socket "$MS"
expect "job.start over TCP: recorded" j1 "$(jobs_now)"
"$R" alloc --client node0002 --gpus 1 --socket "$T" --munge-socket "$MS" \
	--json >"$w/a0"
expect "alloc over TCP as root: root's" 0 "$(json "$w/a0" '$r->{uid}')"
nobody "$R" alloc --client node0002 --gpus 1 --socket "$T" \
	--munge-socket "$MS" --json >"$w/a1" 2>&1 || true
expect "alloc over TCP as nobody: nobody's" 65534 \
	"$(json "$w/a1" '$r->{uid}' 2>/dev/null)"
refused "release over TCP as nobody: root's allocation" forbidden \
	nobody "$R" release "$(json "$w/a0" '$r->{id}')" --socket "$T" \
	--munge-socket "$MS"
refused "job.start over TCP as nobody: not root nor the group" forbidden \
	nobody "$R" jobs --start jn --hosts node0003 --socket "$T" \
	--munge-socket "$MS"
check "forbidden: says which uid and what to set for Slurm" grep -q \
	"job.start needs root or \[pool\] group, which is not set (uid 65534; for Slurm's hooks, SlurmUser's group: group = slurm on Debian)" \
	"$w/err"
check "the Unix socket as before: nobody's release" \
	quiet nobody "$R" release "$(json "$w/a1" '$r->{id}')" --socket "$S"

# --- no credential: forbidden, and the client says why ---
refused "job.start over TCP without munged: forbidden" forbidden \
	"$R" jobs --start j0 --hosts node0003 --socket "$T" \
	--munge-socket "$w/none.sock"
check "without munged: the client says why" grep -q \
	"sent without a MUNGE credential: MUNGE: .*none.sock" "$w/err"

# --- forged: a credential of another key ---
reply_is "forged (another key): refused" bad_credential "Invalid credential" \
	"$(munge_envelope "$MX" '{"op":"job.start","job":"jf","hosts":["node0003"]}')"
expect "forged: nothing started" j1 "$(jobs_now)"

# --- replayed: the same credential twice ---
E=$(munge_envelope "$MS" '{"op":"job.start","job":"j2","hosts":["node0003"]}')
tcp_ask "$EP" "$E" >"$w/reply"
expect "a credential's request: ok" 1 "$(json "$w/reply" '$r->{ok} ? 1 : 0')"
"$R" jobs --end j2 --socket "$S" >/dev/null
reply_is "replayed: refused" bad_credential "Replayed credential" "$E"
expect "replayed: j2 stays ended" j1 "$(jobs_now)"

# --- bound: the envelope carries nothing else, holds one request ---
E=$(munge_envelope "$MS" '{"op":"job.list"}')
reply_is "an envelope with another field: refused" bad_request \
	"unknown field 'job'" "${E%\}},\"job\":\"j9\"}"
reply_is "an envelope in a credential: refused" bad_request \
	"another credential" "$(munge_envelope "$MS" "$E")"
E=$(munge_envelope "$MS" '{"op":"job.end","job":"j1"}' -t 1)
sleep 2
reply_is "expired (TTL 1 s): refused" bad_credential "Expired credential" "$E"
E=$(munge_envelope "$MS" '{"op":"job.end","job":"j1"}')
printf '%s\n' "$E" | perl -MIO::Socket::UNIX -e '
	my $s = IO::Socket::UNIX->new(Peer => $ARGV[0]) or die "$!";
	print $s scalar <STDIN>; print scalar <$s>;' "$S" >"$w/reply"
expect "an envelope on the Unix socket: refused" bad_request \
	"$(json "$w/reply" '$r->{error}{code}')"
expect "refusals changed nothing" j1 "$(jobs_now)"

# --- the Slurm hook over TCP ---
GPUAWARE_POOL_SOCKET=$T GPUAWARE_MUNGE_SOCKET=$MS SLURM_JOB_ID=77 \
	SLURM_JOB_NODELIST=node0004 PATH="$(pwd)/$B:$PATH" \
	plugins/slurm/prolog-slurmctld.sh 2>"$w/hook.err"
expect "the prolog over TCP: job 77 started" "j1 77" "$(jobs_now)"

# --- socket_mode 0660: who cannot open the socket cannot change over TCP ---
poold_stop
sed -i 's/^socket_mode = 0666$/socket_mode = 0660/' "$w/pool.conf"
poold_start "$D" "$w/pool.conf" "$NET"
port=$(sed -n 's/.* and tcp 127\.0\.0\.1:\([0-9]*\) .*/\1/p' "$w/log")
T=tcp:127.0.0.1:$port
st=0
nobody "$R" pool --socket "$S" >/dev/null 2>&1 || st=$?
check "0660: nobody cannot open the Unix socket" [ $st -ne 0 ]
refused "0660: nobody's alloc over TCP in a credential: forbidden" forbidden \
	nobody "$R" alloc --client node0002 --gpus 1 --socket "$T" \
	--munge-socket "$MS"
check "0660: says why" grep -q \
	"alloc over TCP: uid 65534 could not open the pool socket (socket_mode 0660)" \
	"$w/err"
check "0660: nobody may still read over TCP" \
	quiet nobody "$R" pool --socket "$T" --munge-socket "$MS"
check "0660: root's alloc over TCP" quiet "$R" alloc --client node0002 \
	--gpus 1 --socket "$T" --munge-socket "$MS"
poold_stop

# --- per-uid caps on GPUs held and on leases, TCP and Unix alike ---
sed -i 's/^socket_mode = 0660$/socket_mode = 0666\nmax_gpus_per_uid = 2\nmax_lease_s = 600\nlease_default_s = 300/' \
	"$w/pool.conf"
poold_start "$D" "$w/pool.conf" "$NET"
port=$(sed -n 's/.* and tcp 127\.0\.0\.1:\([0-9]*\) .*/\1/p' "$w/log")
T=tcp:127.0.0.1:$port
EP=127.0.0.1:$port
refused "cap: nobody asks 3 GPUs of at most 2" forbidden \
	nobody "$R" alloc --client node0002 --gpus 3 --socket "$T" \
	--munge-socket "$MS"
check "cap: says which key" grep -q \
	"uid 65534 holds or waits for 0 GPUs and may hold 2 (\[pool\] max_gpus_per_uid): 3 more is too many" \
	"$w/err"
nobody "$R" alloc --client node0002 --gpus 2 --socket "$T" \
	--munge-socket "$MS" --json >"$w/a2"
expect "cap: 2 GPUs are nobody's" 65534 "$(json "$w/a2" '$r->{uid}')"
refused "cap: a third, on the Unix socket" forbidden \
	nobody "$R" alloc --client node0002 --gpus 1 --socket "$S"
refused "cap: a lease of 30 days over TCP" forbidden \
	nobody "$R" alloc --client node0003 --gpus 1 --lease 2592000 \
	--socket "$T" --munge-socket "$MS"
refused "cap: a renewal beyond max_lease_s" forbidden \
	nobody "$R" renew "$(json "$w/a2" '$r->{id}')" --lease 601 \
	--socket "$S"
check "cap: root has none" quiet "$R" alloc --client node0003 --gpus 3 \
	--lease 2592000 --socket "$T" --munge-socket "$MS"

# --- 32 anonymous peers asking job.list keep no credential's request out ---
perl -MIO::Socket::IP -e '
	my @s = map { IO::Socket::IP->new(PeerAddr => $ARGV[0]) or die "$!" } 1 .. 32;
	$| = 1;
	for my $round (1 .. 30) {
		for my $c (@s) {
			print $c "{\"op\":\"job.list\"}\n";
			my $r = <$c>;
			$n++ if defined $r && $r =~ /"ok":true/;
		}
		print "$n\n" if $round == 1;
		sleep 1;
	}' "$EP" >"$w/flood" 2>&1 &
flood=$!
i=0
until [ -s "$w/flood" ] || [ $i -gt 100 ]; do
	sleep 0.05
	i=$((i + 1))
done
expect "flood: 32 anonymous peers served" 32 "$(head -1 "$w/flood")"
check "flood: a credential's job.start gets in" quiet "$R" jobs --start jf \
	--hosts node0004 --socket "$T" --munge-socket "$MS"
expect "flood: a scrape gets in" 200 \
	"$(curl -s -o /dev/null -w '%{http_code}' "http://$EP/metrics")"
kill "$flood" 2>/dev/null || true
wait "$flood" 2>/dev/null || true
flood=
check "flood: the evictions are counted" grep -q \
	'^gpuaware_pool_connections_closed_total{reason="evicted"} [1-9]' \
	"$(curl -s -o "$w/metrics" "http://$EP/metrics"; echo "$w/metrics")"
"$R" jobs --end jf --socket "$S" >/dev/null

# --- munged down: nothing decodes, nothing is sent in a credential ---
E=$(munge_envelope "$MS" '{"op":"job.end","job":"j1"}')
munge_stop "$w" good
i=0
while [ -S "$MS" ] && [ $i -lt 100 ]; do
	sleep 0.05
	i=$((i + 1))
done
reply_is "munged down: the credential cannot be decoded" internal \
	"cannot decode the MUNGE credential" "$E"
check "munged down: the reply does not show munged's socket" \
	[ -z "$(grep -F "$MS" "$w/reply" || true)" ]
check "munged down: the log does" grep -qF "$MS" "$w/log"
refused "munged down: the client sends none, forbidden" forbidden \
	"$R" jobs --end j1 --socket "$T" --munge-socket "$MS"
expect "munged down: j1 still running" "j1 77" "$(jobs_now)"
poold_stop

echo "t-munge: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
