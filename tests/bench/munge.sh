#!/bin/sh
# SPDX-License-Identifier: MIT
# Requests per second to ibpoold (offline view of ft2-small) as clients
# send them, a connection each (build/auth-load, sm_call_as()): over its
# Unix socket, over TCP without a credential, and over TCP in a MUNGE
# credential (a munged of this run's own: an encode in the client, a
# decode in the daemon, each a round trip to munged); job.list reads and
# job.start/job.end writes (journal fsync on, in a temporary directory).
# Prints a markdown table for docs/benchmarks.md.
# usage: tests/bench/munge.sh [BUILD_DIR] [SECONDS] [CLIENTS]
set -eu
cd "$(dirname "$0")/../.."
B=${1:-build}
SECS=${2:-5}
CLIENTS=${3:-4}
. tests/munge.sh
. tests/offline/lib.sh

w=$(mktemp -d)
pid=
cleanup() {
	if [ -n "$pid" ]; then kill "$pid" 2>/dev/null || true; fi
	munge_stop "$w" munge
	rm -rf "$w"
}
trap cleanup EXIT INT TERM

for f in ibpoold ibpoolroute auth-load; do
	if [ ! -x "$B/$f" ]; then
		echo "munge.sh: $B/$f missing (make $B/$f)" >&2
		exit 2
	fi
done
chmod 755 "$w"
MS=$(munge_start "$w" munge)
{
	printf '[pool]\nsocket = %s/pool.sock\nstate_dir = %s/state\nsm_socket = %s/sm.sock\ntcp = 127.0.0.1:0\nmunge_socket = %s\n' \
		"$w" "$w" "$w" "$MS"
	for k in 1 2 3 4 5 6 7 8; do
		printf '[host node%04d]\ngpus = 4\ngpu_type = H100\nhca = node%04d mlx5_0\n' \
			"$k" "$k"
	done
} >"$w/pool.conf"
poold_start "$B/ibpoold" "$w/pool.conf" ibsim-configs/ft2-small.net
port=$(sed -n 's/.* and tcp 127\.0\.0\.1:\([0-9]*\) .*/\1/p' "$w/log")

# row PATH ENDPOINT MUNGE: reads, then writes.
row() {
	local r x
	r=$("$B/auth-load" "$2" "$3" read "$CLIENTS" "$SECS") ||
		r="failed - - -"
	x=$("$B/auth-load" "$2" "$3" write "$CLIENTS" "$SECS" \
		node0001 node0002 node0003 node0004 node0005 node0006 \
		node0007 node0008 2>"$w/err") || x="- - - -"
	set -- "$1" $r $x
	echo "| $1 | $2 | $3 / $4 | $6 | $7 / $8 |"
}

echo "ibpoold, $CLIENTS clients, ${SECS} s each, a connection per request, $(nproc) CPUs, munge $(munged -V 2>&1 | awk '{ print $1; exit }')"
echo
echo "| path | job.list req/s | p50 / p99 ms | job.start+end req/s | p50 / p99 ms |"
echo "|---|---|---|---|---|"
row "Unix socket" "$w/pool.sock" "$w/none.sock"
row "TCP, no credential (reads only)" "tcp:127.0.0.1:$port" "$w/none.sock"
row "TCP + MUNGE" "tcp:127.0.0.1:$port" "$MS"
