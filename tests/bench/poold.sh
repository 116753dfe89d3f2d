#!/bin/sh
# SPDX-License-Identifier: MIT
# ibpoold under load, offline source: a 1,024-host fat-tree (ibtopogen
# fattree --radix 16 --levels 3, 8 GPUs per host, LMC 1), placement
# queries and alloc+release pairs (journal fsync on, in a temporary
# directory) from concurrent clients; prints rates, latencies, the
# daemon's CPU time under the load and its resident memory.  Not part of
# make check.
# usage: tests/bench/poold.sh [BUILD_DIR] [SECONDS] [CLIENTS]; POOLD_OPS
# picks from "place alloc share list" (share: alloc of 250 milli-GPUs
# and its release; list: job.list, the socket's floor),
# POOLD_WRAP runs the daemon under a command (perf record ...),
# POOLD_SCRAPERS=N has N curl loops fetch GET /metrics over TCP meanwhile
# (their count of scrapes is printed).
set -eu
cd "$(dirname "$0")/../.."
B=${1:-build}
SECS=${2:-5}
CLIENTS=${3:-4}

w=$(mktemp -d)
pid=
scrapers=
cleanup() {
	for p in $scrapers $pid; do kill "$p" 2>/dev/null || true; done
	rm -rf "$w"
}
trap cleanup EXIT INT TERM

for f in ibpoold ibtopogen ibpoolroute poold-load; do
	if [ ! -x "$B/$f" ]; then
		echo "poold.sh: $B/$f missing (make $B/$f)" >&2
		exit 2
	fi
done
"$B/ibtopogen" fattree --radix 16 --levels 3 -o "$w/ft3.net"
hosts=$(grep -c '^Hca' "$w/ft3.net")
{
	printf '[pool]\nsocket = %s/pool.sock\nstate_dir = %s/state\nsm_socket = %s/sm.sock\n' \
		"$w" "$w" "$w"
	if [ "${POOLD_SCRAPERS:-0}" -gt 0 ]; then
		printf 'tcp = 127.0.0.1:0\n'
	fi
	grep -A1 '^caguid=' "$w/ft3.net" | perl -ne '
		$g = hex($1) if /^caguid=(0x[0-9a-f]+)/;
		printf("\n[host %s]\ngpus = 8\ngpu_type = H100\nhca = 0x%016x\n",
		       $1, $g + 1) if /^Hca\s+\d+\s+"(\S+)/;'
} > "$w/pool.conf"

${POOLD_WRAP:-} "$B/ibpoold" -c "$w/pool.conf" --net "$w/ft3.net" --lmc 1 2> "$w/log" &
pid=$!
i=0
until "$B/ibpoolroute" pool --socket "$w/pool.sock" > /dev/null 2>&1; do
	i=$((i + 1))
	if [ $i -gt 400 ] || ! kill -0 "$pid" 2>/dev/null; then
		cat "$w/log" >&2
		exit 1
	fi
	sleep 0.05
done
# the daemon's CPU seconds (user + system) so far
cpu() {
	awk -v hz="$(getconf CLK_TCK)" '{ printf "%.2f", ($14 + $15) / hz }' /proc/$pid/stat
}
if [ "${POOLD_SCRAPERS:-0}" -gt 0 ]; then
	port=$(sed -n 's/.* and tcp 127\.0\.0\.1:\([0-9]*\) .*/\1/p' "$w/log")
	curl -s -o "$w/metrics" "http://127.0.0.1:$port/metrics"
	echo "scrapers: ${POOLD_SCRAPERS} on GET /metrics, $(wc -c <"$w/metrics") bytes each"
	for k in $(seq "$POOLD_SCRAPERS"); do
		while :; do
			curl -s -o /dev/null "http://127.0.0.1:$port/metrics"
			echo >>"$w/scrapes.$k"
		done &
		scrapers="$scrapers $!"
	done
fi
cpu0=$(cpu)
echo "ibpoold: $hosts hosts, $((hosts * 8)) GPUs, $(df -T "$w" | awk 'NR == 2 { print $2 }') state directory, $(nproc) CPUs"
for op in ${POOLD_OPS:-place alloc}; do
	case $op in
	place) "$B/poold-load" "$w/pool.sock" place "$CLIENTS" "$SECS" 32 8 ;;
	alloc) "$B/poold-load" "$w/pool.sock" alloc "$CLIENTS" "$SECS" 8 ;;
	share) "$B/poold-load" "$w/pool.sock" share "$CLIENTS" "$SECS" 250 ;;
	*) "$B/poold-load" "$w/pool.sock" "$op" "$CLIENTS" "$SECS" ;;
	esac
done
if [ -n "$scrapers" ]; then
	# shellcheck disable=SC2086 # a list of pids
	kill $scrapers 2>/dev/null || true
	scrapers=
	echo "scrapes: $(cat "$w"/scrapes.* | wc -l)"
fi
echo "daemon CPU under load: $(echo "$(cpu) $cpu0" | awk '{ printf "%.2f", $1 - $2 }') s"
echo "resident memory: $(awk '/^VmRSS/ { print $2, $3 }' /proc/$pid/status), peak $(awk '/^VmHWM/ { print $2, $3 }' /proc/$pid/status)"
kill "$pid"
wait "$pid"
pid=
