#!/bin/sh
# SPDX-License-Identifier: MIT
# ibpoold starts again after every way of stopping, with its state: a
# clean stop (SIGTERM, SIGINT) that journaled nothing or some changes,
# SIGKILL idle and in the middle of a record (a torn last line), a kill
# while the snapshot was written (its temporary file left, cut or whole),
# and a state directory with an empty or only a torn journal.  Then a
# full disk (a small tmpfs, where mount is allowed): a change answers
# internal with the cause in the log, and goes on once there is room.
# Then a host removed from the config and one with fewer GPUs: it starts,
# reports the orphans, keeps them until root drops them.
# usage: t-poold-restart.sh [BUILDDIR]; prints PASS/FAIL lines and a summary.
set -eu
cd "$(dirname "$0")/../.."
B=${1:-build}

. tests/offline/lib.sh
poold_setup pid
trap 'umount "$w/state" 2>/dev/null || true; off_cleanup' EXIT INT TERM

S=$w/pool.sock
ST=$w/state
poold_conf "$S" "$ST" >"$w/pool.conf"

# start: the daemon serves (0), or it exited or never answered (1).
start() {
	"$B/ibpoold" -c "$w/pool.conf" --net "$NET" 2>>"$w/daemon.log" &
	pid=$!
	i=0
	until "$R" pool --socket "$S" >/dev/null 2>&1; do
		i=$((i + 1))
		if [ $i -gt 200 ] || ! kill -0 "$pid" 2>/dev/null; then
			kill -9 "$pid" 2>/dev/null || true
			pid=
			return 1
		fi
		sleep 0.05
	done
}

# stop SIG: send it and wait for the end (nothing when none runs).
stop() {
	[ -n "$pid" ] || return 0
	kill "-$1" "$pid"
	wait "$pid" 2>/dev/null || true
	pid=
}

alloc() {
	"$R" alloc --socket "$S" --client node0001 --gpus 1 >"$w/out" \
		2>"$w/err"
}

# restarts NAME N: the daemon starts again and holds N allocations.
restarts() {
	if ! start; then
		bad "$1: starts again" "$(tail -n 3 "$w/daemon.log")"
		return 0
	fi
	ok "$1: starts again"
	"$R" pool --socket "$S" --json >"$w/st"
	got=$(json "$w/st" '$r->{allocs}')
	if [ "$got" = "$2" ]; then
		ok "$1: $2 allocations kept"
	else
		bad "$1: $2 allocations kept" "got $got"
	fi
}

start || { echo "ibpoold did not start:"; cat "$w/daemon.log"; exit 1; }
stop TERM
restarts "SIGTERM, nothing journaled" 0
stop TERM
restarts "SIGTERM again, nothing journaled since the last start" 0
alloc
stop INT
restarts "SIGINT after a change" 1
alloc
stop KILL
restarts "SIGKILL idle" 2

alloc
stop KILL
# a record the kill cut short, as a write in progress leaves it
printf '{"crc":"0123abcd","seq":4,"rec":{"op":"al' >>"$ST/journal.jsonl"
restarts "SIGKILL in the middle of a record" 3
check "SIGKILL in the middle of a record: the torn record logged" \
	grep -q "cut a torn or corrupt last record" "$w/daemon.log"

stop KILL
# a kill while the snapshot was written: its temporary file, cut ...
head -c 20 "$ST/journal.jsonl" >"$ST/snapshot.json.tmp"
restarts "killed while writing the snapshot (cut)" 3
check "killed while writing the snapshot: the temporary file removed" \
	[ ! -e "$ST/snapshot.json.tmp" ]
stop TERM
# ... or whole, before its rename (the state it holds is the journal's)
cp "$ST/snapshot.json" "$ST/snapshot.json.tmp"
restarts "killed before the snapshot's rename" 3
stop TERM

# a first start killed once the journal existed, nothing in it
rm -rf "$ST"
mkdir "$ST"
: >"$ST/journal.jsonl"
restarts "an empty journal, no snapshot" 0
check "an empty journal, no snapshot: said, the state may be lost" \
	grep -q "journal.jsonl is empty and there is no snapshot.json: .*the state was lost" \
	"$w/daemon.log"
stop KILL
rm -rf "$ST"
mkdir "$ST"
printf '{"crc":"0123abcd","seq":1,"re' >"$ST/journal.jsonl"
restarts "a journal of one torn record, no snapshot" 0
check "a torn record: its bytes kept beside the journal" \
	grep -qxF '{"crc":"0123abcd","seq":1,"re' "$ST"/journal.jsonl.cut-1-*
stop TERM

# --- a full disk ---
rm -rf "$ST"
mkdir "$ST"
if mount -t tmpfs -o size=256k,mode=0700 tmpfs "$ST" 2>/dev/null; then
	start
	dd if=/dev/zero of="$ST/fill" bs=4k 2>/dev/null || true
	refused "full disk: alloc answers internal" internal alloc
	check "full disk: the message says why" \
		grep -q "No space left on device" "$w/err"
	check "full disk: the cause in the daemon's log" \
		grep -q "alloc: .*journal.jsonl: No space left on device" \
		"$w/daemon.log"
	rm "$ST/fill"
	check "full disk: room again, alloc works" alloc
	stop TERM
	restarts "full disk: after the stop" 1
	stop TERM
	umount "$ST"
else
	echo "SKIP full disk: cannot mount a tmpfs here"
fi

# --- a host gone from the config, another with fewer GPUs (issue 24) ---
rm -rf "$ST"
mkdir "$ST"
start
"$R" alloc --socket "$S" --client node0001 --gpus 16 >"$w/out" 2>"$w/err"
stop TERM
cp "$w/pool.conf" "$w/pool.conf.full"
{
	printf '[pool]\nsocket = %s\nstate_dir = %s\nsm_socket = %s/sm.sock\n' \
		"$S" "$ST" "$w"
	for k in 1 2 3; do
		printf '[host node%04d]\ngpus = %d\ngpu_type = H100\nhca = node%04d mlx5_0\n' \
			"$k" $((k < 3 ? 4 : 2)) "$k"
	done
} >"$w/pool.conf"
restarts "node0004 removed, node0003 down to 2 GPUs" 1
"$R" pool --socket "$S" --json >"$w/st"
expect_eq() {
	if [ "$2" = "$3" ]; then ok "$1"; else bad "$1" "want '$2', got '$3'"; fi
}
expect_eq "orphans: pool.status counts the 6 GPUs" 6 "$(json "$w/st" '$r->{orphans}{gpus}')"
check "orphans: logged at start" \
	grep -q "orphans: 1 allocations hold 6 GPUs the config does not have" "$w/daemon.log"
"$R" orphans --socket "$S" >"$w/orph"
check "orphans: listed by host and GPU" \
	grep -q "not in the config: node0003 gpu 2, node0003 gpu 3, node0004 gpu 0" "$w/orph"
stop TERM
restarts "orphans: kept through a clean stop's snapshot" 1
"$R" orphans --socket "$S" --drop --json >"$w/drop"
expect_eq "orphans --drop: 6 dropped" 6 "$(json "$w/drop" '$r->{dropped}')"
"$R" pool --socket "$S" --json >"$w/st"
expect_eq "orphans --drop: none left" 0 "$(json "$w/st" '$r->{orphans}{gpus}')"
expect_eq "orphans --drop: the GPUs the config has stay held" 0 "$(json "$w/st" '$r->{free}')"
stop TERM
cp "$w/pool.conf.full" "$w/pool.conf"
restarts "orphans: the drop replays under the old config" 1
"$R" pool --socket "$S" --json >"$w/st"
expect_eq "orphans: the dropped GPUs are free under the old config" 6 \
	"$(json "$w/st" '$r->{free}')"
stop TERM

echo "t-poold-restart: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
