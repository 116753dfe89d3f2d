#!/bin/sh
# SPDX-License-Identifier: MIT
# ibpoold's optional TCP listener, offline: with [pool] tcp = 127.0.0.1:0
# the daemon logs the port it got, listens there on loopback only, and
# answers the reads over TCP as over the Unix socket while every change
# without a MUNGE credential is forbidden (t-munge.sh has them with one),
# and GET /metrics on the same port (promtool-clean); a non-loopback address starts with a warning; a bad tcp
# value is refused with its file, line and key; without tcp the daemon
# has no TCP socket at all; 8 scrapers of a 1,024-host /metrics leave
# the Unix socket's latency alone.
# usage: t-poold-tcp.sh [BUILDDIR]; prints PASS/FAIL lines and a summary.
set -eu
cd "$(dirname "$0")/../.."
B=${1:-build}

. tests/offline/lib.sh
poold_setup pid
# no munged here, whatever the machine runs: the requests go anonymous
export GPUAWARE_MUNGE_SOCKET="$w/no-munged.sock"

S=$w/pool.sock

# conf [TCP]: the config, with "tcp = TCP" when given.
conf() {
	if [ $# -gt 0 ]; then
		poold_conf "$S" "$w/state" "tcp = $1"
	else
		poold_conf "$S" "$w/state"
	fi
}

expect() {
	if [ "$2" = "$3" ]; then ok "$1"; else bad "$1" "want '$2', got '$3'"; fi
}

# tcp_sockets PID STATE: the local "ADDR:PORT" (hex, as /proc/net/tcp
# and tcp6 write them) of PID's TCP sockets in STATE (0A: listening;
# "": any).
tcp_sockets() {
	inodes=$(ls -l "/proc/$1/fd" | sed -n 's/.*socket:\[\([0-9]*\)\]$/\1/p' |
		tr '\n' ' ')
	awk -v list=" $inodes " -v st="$2" \
		'FNR > 1 && (st == "" || $4 == st) && index(list, " " $10 " ") { print $2 }' \
		/proc/net/tcp /proc/net/tcp6 2>/dev/null
}

# forbidden OP CMD...: CMD (a change over TCP) is forbidden for want of
# credentials.
forbidden() {
	op=$1
	shift
	refused "change over TCP: $op forbidden" forbidden "$@"
	check "change over TCP: $op: the reason" grep -q \
		"^ibpoolroute: forbidden: $op over TCP: no credentials; send it in a MUNGE credential, or use the Unix socket (sent without a MUNGE credential: MUNGE: " \
		"$w/err"
}

# --- tcp = 127.0.0.1:0: the port the kernel gave, logged ---
conf 127.0.0.1:0 >"$w/pool.conf"
poold_start "$D" "$w/pool.conf" "$NET"
port=$(sed -n 's/.* and tcp 127\.0\.0\.1:\([0-9]*\) (reads; changes in a MUNGE credential).*/\1/p' "$w/log")
check "tcp: the bound port is logged" [ -n "$port" ]
check "tcp: not port 0" [ "${port:-0}" -ne 0 ]
T=tcp:127.0.0.1:$port
expect "tcp: one listening socket, on 127.0.0.1:$port" \
	"$(printf '0100007F:%04X' "$port")" "$(tcp_sockets "$pid" 0A)"
expect "tcp: no warning for loopback" 0 \
	"$(grep -c "reachable from other hosts" "$w/log" || true)"

# a change over the Unix socket, seen over TCP
"$R" alloc --socket "$S" --client node0001 --gpus 2 --json >"$w/a1"
id=$(json "$w/a1" '$r->{id}')
"$R" pool --socket "$S" --json >"$w/unix"
"$R" pool --socket "$T" --json >"$w/tcp"
check "read over TCP: pool as over the Unix socket" cmp -s "$w/unix" "$w/tcp"
expect "read over TCP: free GPUs" 14 "$(json "$w/tcp" '$r->{free}')"
"$R" allocs --socket "$T" --json >"$w/out"
expect "read over TCP: allocs" "$id" "$(json "$w/out" '$r->{allocs}[0]{id}')"
"$R" place --socket "$T" --gpus 4 --per-host 4 --json >"$w/out"
expect "read over TCP: place" 1 "$(json "$w/out" 'scalar @{$r->{hosts}}')"
"$R" jobs --socket "$T" --json >"$w/out"
expect "read over TCP: jobs" 0 "$(json "$w/out" 'scalar @{$r->{jobs}}')"
check "read over TCP: topology" quiet "$R" topology --socket "$T"
check "read over TCP: tcp:PORT means 127.0.0.1" \
	quiet "$R" pool --socket "tcp:$port"

# --- GET /metrics on the same port: Prometheus' format, promtool-clean ---
curl -sS -D "$w/mhead" -o "$w/metrics" "http://127.0.0.1:$port/metrics" 2>"$w/err" ||
	bad "metrics: fetched" "$(cat "$w/err")"
check "metrics: 200, text format 0.0.4" grep -q \
	'^Content-Type: text/plain; version=0.0.4' "$w/mhead"
if promtool check metrics <"$w/metrics" >"$w/prom" 2>&1; then
	ok "metrics: promtool check metrics"
else
	bad "metrics: promtool check metrics" "$(head -5 "$w/prom")"
fi
expect "metrics: GPUs held on node0001" 2 \
	"$(sed -n 's/^gpuaware_pool_gpus_held{host="node0001",gpu_type="H100"} //p' "$w/metrics")"
expect "metrics: allocations" 1 "$(sed -n 's/^gpuaware_pool_allocations //p' "$w/metrics")"
expect "metrics: alloc requests" 1 \
	"$(sed -n 's/^gpuaware_pool_requests_total{op="alloc",result="ok"} //p' "$w/metrics")"
check "metrics: the view's age" grep -q \
	'^gpuaware_pool_fabric_view_age_seconds [0-9]' "$w/metrics"
expect "metrics: no failed refresh" "0 0" \
	"$(sed -n 's/^gpuaware_pool_fabric_refresh_failures //p; s/^gpuaware_pool_fabric_refresh_error_timestamp_seconds //p' "$w/metrics" | tr '\n' ' ' | sed 's/ $//')"
check "metrics: the alloc's journal sync" grep -q \
	'^gpuaware_pool_journal_sync_seconds_count [1-9]' "$w/metrics"
check "metrics: a link's allocation paths" grep -q \
	'^gpuaware_pool_link_allocation_paths{switch="0x[0-9a-f]*",port="[0-9]*"} [1-9]' \
	"$w/metrics"
expect "metrics: another path is 404" 404 \
	"$(curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:$port/")"
check "metrics: JSON lines still served" quiet "$R" pool --socket "$T"

forbidden alloc "$R" alloc --socket "$T" --client node0001 --gpus 1
forbidden release "$R" release "$id" --socket "$T"
forbidden renew "$R" renew "$id" --socket "$T"
forbidden job.start "$R" jobs --start j1 --hosts node0001 --socket "$T"
forbidden job.end "$R" jobs --end j1 --socket "$T"
"$R" pool --socket "$S" --json >"$w/out"
expect "changes over TCP: nothing changed" "14 1 0" \
	"$(json "$w/out" '"$r->{free} $r->{allocs} $r->{jobs}"')"
check "the Unix socket still changes: release" \
	quiet "$R" release "$id" --socket "$S"
poold_stop
check "stopped: the port is free" \
	[ -z "$(awk -v p="$(printf ':%04X' "$port")" \
		'FNR > 1 && $4 == "0A" && substr($2, length($2) - 4) == p' \
		/proc/net/tcp)" ]

# --- a non-loopback address: an explicit choice, warned about ---
conf 0.0.0.0:0 >"$w/pool.conf"
poold_start "$D" "$w/pool.conf" "$NET"
check "any address: warned at start" \
	grep -q "tcp 0.0.0.0:[0-9]* is reachable from other hosts" "$w/log"
poold_stop

# --- bad values: refused with file, line and key ---
for v in localhost:7070 70000 '::1:7070'; do
	conf "$v" >"$w/pool.conf"
	st=0
	"$D" -c "$w/pool.conf" --net "$NET" >/dev/null 2>"$w/err" || st=$?
	check "bad tcp '$v': exit 1" [ $st -eq 1 ]
	check "bad tcp '$v': file, line and key" \
		grep -q "^ibpoold: $w/pool.conf:5: \[pool\] tcp: '$v' is not \[ADDR:\]PORT" "$w/err"
done

# --- unset: no TCP socket at all ---
conf >"$w/pool.conf"
poold_start "$D" "$w/pool.conf" "$NET"
check "unset: the Unix socket serves" quiet "$R" pool --socket "$S"
expect "unset: no TCP socket" "" "$(tcp_sockets "$pid" "")"
check "unset: not logged" [ -z "$(grep " and tcp " "$w/log" || true)" ]
poold_stop

# --- scrapes of a 1,024-host page do not hold up the Unix socket ---
# (rendered off the server thread: before, 8 scrapers made the socket's
# p50 about 70 ms; compared as a ratio within this run)
"$B/ibtopogen" fattree --radix 16 --levels 3 -o "$w/ft3.net"
{
	printf '[pool]\nsocket = %s\nstate_dir = %s/state3\nsm_socket = %s/sm.sock\ntcp = 127.0.0.1:0\n' \
		"$S" "$w" "$w"
	grep -A1 '^caguid=' "$w/ft3.net" | perl -ne '
		$g = hex($1) if /^caguid=(0x[0-9a-f]+)/;
		printf("[host %s]\ngpus = 8\ngpu_type = H100\nhca = 0x%016x\n",
		       $1, $g + 1) if /^Hca\s+\d+\s+"(\S+)/;'
} >"$w/pool.conf"
poold_start "$D" "$w/pool.conf" "$w/ft3.net"
port=$(sed -n 's/.* and tcp 127\.0\.0\.1:\([0-9]*\) (reads.*/\1/p' "$w/log")
# p50 SECONDS: job.list's median latency in ms over the Unix socket
p50() {
	"$B/poold-load" "$S" list 1 "$1" | sed -n 's/.* p50 \([0-9.]*\) ms.*/\1/p'
}
quiet_p50=$(p50 1)
scrapers=
for k in 1 2 3 4 5 6 7 8; do
	while :; do
		curl -s -o /dev/null "http://127.0.0.1:$port/metrics" || true
	done &
	scrapers="$scrapers $!"
done
pid="$pid$scrapers"
busy_p50=$(p50 2)
# shellcheck disable=SC2086 # a list of pids
kill $scrapers
pid=${pid%%$scrapers}
curl -s -o "$w/metrics" "http://127.0.0.1:$port/metrics"
check "8 scrapers: a full page of $(wc -c <"$w/metrics") bytes" \
	[ "$(grep -c '^gpuaware_pool_gpus{' "$w/metrics")" -eq 1024 ]
if awk -v q="$quiet_p50" -v b="$busy_p50" 'BEGIN { exit !(b != "" && b <= 20 * q + 1) }'; then
	ok "8 scrapers: Unix-socket p50 $busy_p50 ms (quiet $quiet_p50 ms)"
else
	bad "8 scrapers: Unix-socket p50" "$busy_p50 ms against $quiet_p50 ms quiet"
fi
poold_stop

echo "t-poold-tcp: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
