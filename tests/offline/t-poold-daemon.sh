#!/bin/sh
# SPDX-License-Identifier: MIT
# ibpoold's process side, offline: --daemon returns 0 only once the
# detached daemon serves (its own session, cwd /, stdio on /dev/null,
# relative --net and --pid-file paths still right), SIGTERM stops it
# with the socket and pid file removed and the journal compacted; a
# start that fails returns 1 with the reason, as does a second daemon
# on the same state and a pid file path that is a symlink; --print-host without RDMA devices says so and
# exits 1; usage errors exit 2.
# usage: t-poold-daemon.sh [BUILDDIR]; prints PASS/FAIL lines and a summary.
set -eu
cd "$(dirname "$0")/../.."
B=${1:-build}

. tests/offline/lib.sh
poold_setup dpid

S=$w/run/pool.sock
poold_conf "$S" "$w/state" >"$w/pool.conf"

# gone PID: poll (up to 10 s) until PID is no more.
gone() {
	i=0
	while kill -0 "$1" 2>/dev/null; do
		i=$((i + 1))
		[ $i -le 200 ] || return 1
		sleep 0.05
	done
}

# --- --daemon: returns once serving; relative paths from the caller's cwd ---
st=0
timeout 60 "$D" -c "$w/pool.conf" --net "$NET" --lmc 1 --daemon \
	--pid-file "$(realpath --relative-to=. "$w")/pid" >"$w/out" 2>"$w/err" ||
	st=$?
if [ $st -eq 0 ] && [ -s "$w/pid" ]; then
	ok "daemon: exit 0, pid file written"
	dpid=$(cat "$w/pid")
else
	bad "daemon: exit 0, pid file written" "exit $st: $(cat "$w/err")"
	echo "t-poold-daemon: $pass passed, $fail failed"
	exit 1
fi
# No polling: the command returned, so the socket must answer now.
st=0
"$R" pool --socket "$S" --json >"$w/st" || st=$?
check "daemon: serves when the command returns" [ $st -eq 0 ]
check "daemon: the offline fabric from the relative --net" \
	[ "$(json "$w/st" '$r->{fabric}{source}')" = "offline $(pwd)/$NET" ]
check "daemon: not the command's process, still running" kill -0 "$dpid"
check "daemon: session leader of its own" \
	[ "$(ps -o sid= -p "$dpid" | tr -d ' ')" != "$(ps -o sid= -p $$ | tr -d ' ')" ]
check "daemon: cwd /" [ "$(readlink "/proc/$dpid/cwd")" = / ]
check "daemon: stdin, stdout, stderr on /dev/null" [ \
	"$(readlink "/proc/$dpid/fd/0") $(readlink "/proc/$dpid/fd/1") $(readlink "/proc/$dpid/fd/2")" = \
	"/dev/null /dev/null /dev/null" ]
check "daemon: nothing on the command's stdout" [ ! -s "$w/out" ]
# Until it serves it logs on the caller's stderr (and then to syslog).
check "daemon: its start logged on the command's stderr" \
	grep -q "^ibpoold: serving $S: 4 hosts" "$w/err"
check "daemon: socket mode 0660 by default" [ "$(stat -c %a "$S")" = 660 ]
# As nobody: the directories let it reach the socket, the mode does not
# (reads are open to any peer that connects, so a refusal is the mode's).
as_nobody() {
	setpriv --reuid=nobody --regid=nogroup --clear-groups "$@"
}
cannot_read() {
	! as_nobody "$R" pool --socket "$S" >/dev/null 2>&1
}
chmod 755 "$w"
check "daemon: nobody reaches the socket's directory" \
	as_nobody test -x "$w/run"
check "daemon: nobody cannot connect" cannot_read
"$R" alloc --socket "$S" --client node0001 --gpus 2 --json >"$w/a1"
check "daemon: allocates" [ "$(json "$w/a1" 'scalar @{$r->{gpus}}')" = 2 ]

# --- a second daemon on the same state and socket: refused, exit 1 ---
st=0
timeout 60 "$D" -c "$w/pool.conf" --net "$NET" --daemon >"$w/out2" \
	2>"$w/err2" || st=$?
check "second daemon: exit 1" [ $st -eq 1 ]
check "second daemon: says the journal is locked" grep -q "journal" "$w/err2"
check "second daemon: the first still serves" "$R" pool --socket "$S" --json \
	>/dev/null

# --- SIGTERM: clean stop ---
kill -TERM "$dpid"
check "SIGTERM: the daemon exits" gone "$dpid"
dpid=
check "SIGTERM: socket removed" [ ! -e "$S" ]
check "SIGTERM: pid file removed" [ ! -e "$w/pid" ]
compacted() { [ -s "$w/state/snapshot.json" ] && [ ! -s "$w/state/journal.jsonl" ]; }
check "SIGTERM: journal compacted" compacted

# --- a start that fails: exit 1 with the reason, nothing left behind ---
st=0
timeout 60 "$D" -c "$w/pool.conf" --net "$w/nosuch.net" --daemon \
	--pid-file "$w/pid" >"$w/out3" 2>"$w/err3" || st=$?
check "failed start: exit 1" [ $st -eq 1 ]
check "failed start: the reason on stderr" grep -q "nosuch.net" "$w/err3"
check "failed start: no socket" [ ! -e "$S" ]
check "failed start: no pid file" [ ! -e "$w/pid" ]

# --- a pid file path that is a symlink: refused, the target untouched ---
echo precious >"$w/victim"
ln -s "$w/victim" "$w/pidlink"
st=0
timeout 60 "$D" -c "$w/pool.conf" --net "$NET" --daemon \
	--pid-file "$w/pidlink" >"$w/out4" 2>"$w/err4" || st=$?
check "pid file symlink: exit 1" [ $st -eq 1 ]
check "pid file symlink: said" grep -q "pidlink: refuse: not a regular file" "$w/err4"
check "pid file symlink: its target untouched" [ "$(cat "$w/victim")" = precious ]
check "pid file symlink: no socket left" [ ! -e "$S" ]

# --- --print-host with no RDMA device (libibverbs finds no sysfs) ---
st=0
SYSFS_PATH=$w/nosys "$D" --print-host >"$w/ph.out" 2>"$w/ph.err" || st=$?
check "print-host: exit 1 without RDMA devices" [ $st -eq 1 ]
check "print-host: says so" grep -q "^ibpoold: no RDMA device found" "$w/ph.err"
check "print-host: no section printed" [ ! -s "$w/ph.out" ]

# --- usage errors: exit 2 ---
st=0
"$D" >/dev/null 2>"$w/u.err" || st=$?
check "usage: -c is required, exit 2" [ $st -eq 2 ]
check "usage: says -c is required" grep -q "^ibpoold: -c FILE is required" "$w/u.err"
st=0
"$D" -c "$w/pool.conf" --lmc 1 >/dev/null 2>"$w/u.err" || st=$?
check "usage: --lmc without --net, exit 2" [ $st -eq 2 ]

echo "t-poold-daemon: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
