#!/bin/sh
# SPDX-License-Identifier: MIT
# GPU shares and RDMA bandwidth on a real ibpoold, through ibpoolroute
# over its socket: two halves packed on one GPU, whole GPUs kept off
# it, pool_full and a queued share when nothing fits, bad_request out of
# range, each HCA's bandwidth enforced; then kill -9 and a restart: the
# same shares held, nothing granted twice, and a release grants the
# queued share.
# usage: t-poold-share.sh [BUILDDIR]; prints PASS/FAIL lines and a summary.
set -eu
cd "$(dirname "$0")/../.."
B=${1:-build}

. tests/offline/lib.sh
poold_setup pid

S=$w/pool.sock
{
	printf '[pool]\nsocket = %s\nstate_dir = %s/state\nsm_socket = %s/sm.sock\n' \
		"$S" "$w" "$w"
	for k in 1 2; do
		printf '[host node%04d]\ngpus = 1\ngpu_type = H100\nhca = node%04d mlx5_0\n' \
			"$k" "$k"
	done
} >"$w/pool.conf"
poold_start "$D" "$w/pool.conf" "$NET"

same() {
	if [ "$2" = "$3" ]; then ok "$1"; else bad "$1" "want '$2', got '$3'"; fi
}

# take NAME ARGS...: alloc --json ARGS into $w/a; "HOST GPU MILLI" out.
take() {
	name=$1
	shift
	if "$R" alloc --socket "$S" --client node0001 --json "$@" \
		>"$w/a" 2>"$w/err"; then
		ok "$name"
	else
		bad "$name" "$(cat "$w/err" "$w/a")"
	fi
}
where() {
	json "$w/a" 'my $g = $r->{gpus}[0] // $r->{port};
		join " ", $g->{host}, $g->{gpu} // "-", $g->{milli} // 0'
}
shared() {
	"$R" pool --socket "$S" --json >"$w/st"
	json "$w/st" 'join " ", map { "$_->{free}/$_->{shared}" } @{$r->{hosts}}'
}

# --- shares: packed, kept apart from whole GPUs ---
take "a half GPU" --milli 500
same "the half on node0001 GPU 0" "node0001 0 500" "$(where)"
take "another half" --milli 500
same "packed on the same GPU" "node0001 0 500" "$(where)"
same "pool: node0001's GPU shared, node0002's free" "0/1 1/0" "$(shared)"
refused "two whole GPUs with one shared: pool_full" pool_full \
	"$R" alloc --socket "$S" --client node0001 --gpus 2
take "a whole GPU: the one not shared" --gpus 1
same "the whole GPU on node0002" "node0002 0 0" "$(where)"
refused "a third half: pool_full" pool_full \
	"$R" alloc --socket "$S" --client node0001 --milli 500
take "a third half queued" --milli 500 --queue
same "a ticket, queued" "1 1" \
	"$(json "$w/a" '"$r->{ticket} " . ($r->{queued} ? 1 : 0)')"
"$R" queue --socket "$S" --json >"$w/q"
same "queue.list shows the share" 500 \
	"$(json "$w/q" '$r->{queue}[0]{gpu_milli}')"

# --- out of range ---
refused "gpu_milli 1001: bad_request" bad_request \
	"$R" alloc --socket "$S" --client node0001 --milli 1001
refused "rdma 101: bad_request" bad_request \
	"$R" alloc --socket "$S" --client node0001 --rdma 101
refused "a share of two GPUs: bad_request" bad_request \
	"$R" alloc --socket "$S" --client node0001 --milli 500 --gpus 2

# --- RDMA bandwidth: each HCA holds 100 ---
take "60 % of an HCA" --rdma 60
one=$(where)
take "60 % of another" --rdma 60
same "one on each host's HCA" "node0001 - 0,node0002 - 0" \
	"$(printf '%s\n%s\n' "$one" "$(where)" | sort | paste -sd,)"
refused "41 % more: pool_full" pool_full \
	"$R" alloc --socket "$S" --client node0001 --rdma 41
take "40 % more" --rdma 40
same "40 % beside the 60" "rdma 40" "$(json "$w/a" '"rdma $r->{rdma}"')"
take "45 % queued" --rdma 45 --queue
same "45 %: a ticket, queued" "2 1" \
	"$(json "$w/a" '"$r->{ticket} " . ($r->{queued} ? 1 : 0)')"

# --- kill -9 and a restart: the same shares, nothing granted twice ---
"$R" allocs --socket "$S" --json >"$w/before"
kill -9 "$pid"
wait "$pid" 2>/dev/null || true
pid=
poold_start "$D" "$w/pool.conf" "$NET"
"$R" allocs --socket "$S" --json >"$w/after"
list='join " ", map { my $a = $_; "$a->{id}:" . ($a->{rdma} // 0) . ":" .
	join ",", map { "$_->{host}/" . ($_->{gpu} // "-") . "/" .
	($_->{milli} // 0) } @{$a->{gpus}}, $a->{port} // () } @{$r->{allocs}}'
same "kill -9: the same allocations, shares and RDMA bandwidth" \
	"$(json "$w/before" "$list")" "$(json "$w/after" "$list")"
same "kill -9: pool still shows the shared GPU" "0/1 0/0" "$(shared)"
refused "kill -9: no half granted twice" pool_full \
	"$R" alloc --socket "$S" --client node0001 --milli 1
refused "kill -9: no bandwidth granted twice" pool_full \
	"$R" alloc --socket "$S" --client node0001 --rdma 41
"$R" queue --socket "$S" --json >"$w/q"
same "kill -9: the share and the bandwidth still queued" "1 2" \
	"$(json "$w/q" 'join " ", map { $_->{ticket} } @{$r->{queue}}')"

# --- a release frees the half, and the queued share takes it ---
first=$(json "$w/after" '$r->{allocs}[0]{id}')
check "release a half" quiet "$R" release "$first" --socket "$S"
"$R" queue --socket "$S" --json >"$w/q"
same "the queued share granted, the bandwidth waits" "2" \
	"$(json "$w/q" 'join " ", map { $_->{ticket} } @{$r->{queue}}')"
"$R" allocs --socket "$S" --json >"$w/al"
same "granted on the freed half" "node0001/0/500" \
	"$(json "$w/al" 'my ($a) = grep { $_->{gpus}[0] && ($_->{gpus}[0]{milli} // 0) == 500 && $_->{id} > 6 } @{$r->{allocs}};
		"$a->{gpus}[0]{host}/$a->{gpus}[0]{gpu}/$a->{gpus}[0]{milli}"')"
# a 60 % freed: 45 % fits on its HCA now
sixty=$(json "$w/after" 'my ($a) = grep { ($_->{rdma} // 0) == 60 } @{$r->{allocs}}; $a->{id}')
check "release a 60 %" quiet "$R" release "$sixty" --socket "$S"
"$R" queue --socket "$S" --json >"$w/q"
same "the queued bandwidth granted" "" \
	"$(json "$w/q" 'join " ", map { $_->{ticket} } @{$r->{queue}}')"
"$R" allocs --socket "$S" --json >"$w/al"
same "granted 45 % of an HCA alone" "45 -" \
	"$(json "$w/al" 'my ($a) = grep { ($_->{rdma} // 0) == 45 } @{$r->{allocs}};
		"$a->{rdma} " . ($a->{port} && !@{$a->{gpus}} ? "-" : "gpus")')"
poold_stop
if grep -q "Sanitizer\|runtime error:" "$w/log"; then
	bad "the daemon sanitizer clean" "$(grep -m1 "Sanitizer\|runtime error:" "$w/log")"
fi

echo "poold-share: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
