#!/bin/sh
# SPDX-License-Identifier: MIT
# The queue of a real ibpoold, through ibpoolroute, over the Unix socket
# and over TCP in MUNGE credentials (a munged started here): a full pool
# answers pool_full, alloc --queue and submit get tickets, watch streams
# granted when a release frees the GPUs, cancel drops a ticket (only its
# owner's), host fail and resume; then kill -9 with a full queue and a
# restart: the same tickets wait, nothing granted twice, and a release
# grants them.
# usage: t-poold-queue.sh [BUILDDIR]; prints PASS/FAIL lines and a summary.
set -eu
cd "$(dirname "$0")/../.."
B=${1:-build}

. tests/offline/lib.sh
. tests/munge.sh
poold_setup pid mpid wpid
chmod 755 "$w"
MS=$(munge_start "$w" good) || exit 1
mpid=$(cat "$w/good.pid")

S=$w/pool.sock
poold_conf "$S" "$w/state" "tcp = 127.0.0.1:0" "munge_socket = $MS" \
	"socket_mode = 0666" "[sched]" "policy = fifo" \
	"classes = low,high" "default_class = low" >"$w/pool.conf"
poold_start "$D" "$w/pool.conf" "$NET"
port=$(sed -n 's/.* and tcp 127\.0\.0\.1:\([0-9]*\) .*/\1/p' "$w/log")
T=tcp:127.0.0.1:$port

expect() {
	if [ "$2" = "$3" ]; then ok "$1"; else bad "$1" "want '$2', got '$3'"; fi
}

nobody() {
	setpriv --reuid=nobody --regid=nogroup --clear-groups "$@"
}

# waitfor FILE PERL: until the JSON lines of FILE hold one for which PERL
# (on $r) is true, 5 s at most.
waitfor() {
	i=0
	while [ $i -lt 100 ]; do
		if perl -MJSON::PP -ne '
			BEGIN { $f = 1 }
			$r = eval { decode_json($_) } or next;
			if ('"$2"') { $f = 0; last }
			END { exit $f }' "$1" 2>/dev/null; then
			return 0
		fi
		sleep 0.05
		i=$((i + 1))
	done
	return 1
}

queued_now() {
	"$R" queue --socket "$S" --json >"$w/q"
	json "$w/q" 'join " ", map { $_->{ticket} } @{$r->{queue}}'
}

# --- a full pool: pool_full, or a ticket ---
"$R" watch --socket "$S" --json >"$w/watch" 2>"$w/watch.err" &
wpid=$!
"$R" watch --socket "$T" --munge-socket "$MS" --json >"$w/watch2" \
	2>"$w/watch2.err" &
wpid="$wpid $!"
"$R" watch --socket "$S" --tickets 2 --events granted,lost --json \
	>"$w/watch3" 2>"$w/watch3.err" &
wpid="$wpid $!"
"$R" alloc --socket "$S" --client node0001 --gpus 16 --json >"$w/a1"
expect "the pool filled: allocation 1" 1 "$(json "$w/a1" '$r->{id}')"
refused "a full pool: pool_full, not bad_request" pool_full \
	"$R" alloc --socket "$S" --client node0001 --gpus 1
refused "more GPUs than the pool has: bad_request" bad_request \
	"$R" alloc --socket "$S" --client node0001 --gpus 17 --queue
"$R" alloc --socket "$S" --client node0002 --gpus 2 --queue --json >"$w/t1"
expect "alloc --queue: ticket 1, queued" "1 1" \
	"$(json "$w/t1" '"$r->{ticket} " . ($r->{queued} ? 1 : 0)')"
"$R" submit --socket "$T" --munge-socket "$MS" --client node0003 \
	--gpus 8 --per-host 4 --class high --json >"$w/t2"
expect "submit over TCP in a credential: ticket 2" 2 \
	"$(json "$w/t2" '$r->{ticket}')"
nobody "$R" alloc --socket "$S" --client node0002 --gpus 1 --queue \
	--json >"$w/t3"
expect "a queued request of nobody: ticket 3" 3 "$(json "$w/t3" '$r->{ticket}')"
refused "cancel of another uid's ticket: forbidden" forbidden \
	nobody "$R" cancel 1 --socket "$S"
refused "a class the config lacks: bad_request" bad_request \
	"$R" alloc --socket "$S" --client node0002 --gpus 1 --queue --class gold
expect "queue: three tickets" "1 2 3" "$(queued_now)"
check "cancel over TCP in a credential (nobody's own)" \
	quiet nobody "$R" cancel 3 --socket "$T" --munge-socket "$MS"
expect "queue: ticket 3 dropped" "1 2" "$(queued_now)"

# --- a release grants them; watch says so with the allocation ---
check "release" quiet "$R" release 1 --socket "$S"
expect "queue: empty after the release" "" "$(queued_now)"
check "watch: granted ticket 1 with its allocation" waitfor "$w/watch" \
	'$r->{event} eq "granted" && $r->{ticket} eq "1" && @{$r->{alloc}{gpus}} == 2'
check "watch: granted ticket 2, a gang of 8 GPUs" waitfor "$w/watch" \
	'$r->{event} eq "granted" && $r->{ticket} eq "2" && @{$r->{alloc}{gpus}} == 8'
check "watch over TCP: the same grants" waitfor "$w/watch2" \
	'$r->{event} eq "granted" && $r->{ticket} eq "2"'
"$R" allocs --socket "$S" --json >"$w/al"
expect "allocations: the two grants" "2 3" \
	"$(json "$w/al" 'join " ", map { $_->{id} } @{$r->{allocs}}')"

# --- a host fails: its allocation is lost and replaced, root only ---
gang=$(json "$w/al" '$r->{allocs}[1]{gpus}[0]{host}')
refused "host fail as nobody: forbidden" forbidden \
	nobody "$R" host fail "$gang" --socket "$S"
check "host fail $gang" quiet "$R" host fail "$gang" --socket "$S"
check "watch: lost" waitfor "$w/watch" \
	'$r->{event} eq "lost" && $r->{ticket} eq "2"'
check "watch: replaced on other hosts" waitfor "$w/watch" \
	'$r->{event} eq "replaced" && !grep { $_->{host} eq "'"$gang"'" } @{$r->{alloc}{gpus}}'
expect "metrics: one allocation lost" 1 "$(curl -s "http://127.0.0.1:$port/metrics" |
	sed -n 's/^gpuaware_pool_allocations_lost_total \([0-9]*\)$/\1/p')"
check "host resume $gang" quiet "$R" host resume "$gang" --socket "$S"
check "watch --tickets 2 --events granted,lost: ticket 2's lost" \
	waitfor "$w/watch3" '$r->{event} eq "lost" && $r->{ticket} eq "2"'
expect "watch --tickets 2 --events granted,lost: its granted and lost alone" \
	"granted 2 lost 2" "$(perl -MJSON::PP -ne '$r = eval { decode_json($_) } or next;
		print " " if $n++; print "$r->{event} ", $r->{ticket} // "-"' "$w/watch3")"
refused "watch --events of no such kind: bad_request" bad_request \
	"$R" watch --socket "$S" --events granted,gone

# --- kill -9 with a full queue, then a restart ---
"$R" alloc --socket "$S" --client node0001 --gpus 6 >/dev/null
for g in 3 2 1; do
	"$R" alloc --socket "$S" --client node0002 --gpus $g --queue >/dev/null
done
expect "before the kill: three queued" "4 5 6" "$(queued_now)"
expect "metrics: three requests waiting" 3 "$(curl -s "http://127.0.0.1:$port/metrics" |
	sed -n 's/^gpuaware_pool_requests_waiting \([0-9]*\)$/\1/p')"
"$R" allocs --socket "$S" --json >"$w/before"
kill -9 "$pid"
wait "$pid" 2>/dev/null || true
pid=
# shellcheck disable=SC2086 # two pids
kill $wpid 2>/dev/null || true
wpid=
poold_start "$D" "$w/pool.conf" "$NET"
expect "after the restart: the same tickets" "4 5 6" "$(queued_now)"
"$R" allocs --socket "$S" --json >"$w/after"
expect "after the restart: the same allocations" \
	"$(json "$w/before" 'join " ", map { $_->{id} } @{$r->{allocs}}')" \
	"$(json "$w/after" 'join " ", map { $_->{id} } @{$r->{allocs}}')"
check "release after the restart" quiet "$R" release 4 --socket "$S"
expect "granted in order, once" "" "$(queued_now)"
"$R" allocs --socket "$S" --json >"$w/al"
expect "allocations: three grants more, no id twice" "2 3 5 6 7" \
	"$(json "$w/al" 'join " ", map { $_->{id} } @{$r->{allocs}}')"
poold_stop
poold_start "$D" "$w/pool.conf" "$NET"
"$R" allocs --socket "$S" --json >"$w/al2"
expect "a second restart: the same allocations" "2 3 5 6 7" \
	"$(json "$w/al2" 'join " ", map { $_->{id} } @{$r->{allocs}}')"
poold_stop

echo "t-poold-queue: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
