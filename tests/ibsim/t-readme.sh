#!/bin/sh
# SPDX-License-Identifier: MIT
# The README's first check, as written: the sh blocks marked
# "<!-- test: first-check -->" run in order in one shell from the
# checkout (`make`, ibsim on a generated fat-tree, OpenSM with the
# plugin from build/, ibpoolroute state and verify, a job hint, verify
# again, stop).  Any command that fails fails the test; then what they
# printed must show a verified gpuaware routing with the job in it.
set -eu
. "$(dirname "$0")/lib.sh"
t_init readme
cd "$TOP"

# readme_blocks FILE: each ```sh block right after a marker line, in
# order; a marker without its block is an error (status 1).
readme_blocks() {
	awk '
	$0 == "<!-- test: first-check -->" { want = 1; n++; next }
	want && /^```sh$/ { code = 1; want = 0; next }
	want { exit 1 }
	code && /^```$/ { code = 0; print ""; next }
	code { print }
	END { if (want || code || !n) exit 1 }' "$1"
}

# stop_group PGID: what is left of the group, as stop_pid does (OpenSM
# can hang in shutdown once ibsim is gone).
group_gone() { ! kill -0 "-$1" 2>/dev/null; }
stop_group() {
	kill -TERM "-$1" 2>/dev/null || return 0
	poll 5 group_gone "$1" || kill -KILL "-$1" 2>/dev/null || true
}

readme_blocks README.md >"$WORK/readme.sh" ||
	t_fail "README.md: a '<!-- test: first-check -->' line not followed by a sh block"
t_log "$(grep -c '^<!-- test: first-check -->$' README.md) blocks, $(grep -c . "$WORK/readme.sh") lines"
[ "$B" = build ] ||
	t_log "the README builds and runs build/, not $B"

# An admin's shell: no make of ours around it.  IBSIM_SOCKNAME (t_init)
# keeps this ibsim apart from other tests', TMPDIR its mktemp -d in
# $WORK.  Its own session, so that whatever a failed run leaves behind
# is stopped with the group.
unset MAKEFLAGS MFLAGS MAKELEVEL
export TMPDIR=$WORK
setsid sh -c 'exec timeout 150 sh -eux "$1"' sh "$WORK/readme.sh" \
	>"$WORK/readme.out" 2>&1 &
RUN=$!
T_PIDS="$T_PIDS $RUN"
rc=0
wait "$RUN" || rc=$?
# The README's last line stops what it started.
left=""
[ "$rc" -ne 0 ] || poll 10 group_gone "$RUN" || left=$(pgrep -g "$RUN" -a)
stop_group "$RUN"
[ "$rc" -eq 0 ] ||
	t_fail "README first check: exit $rc at: $(grep '^+ ' "$WORK/readme.out" | tail -1); $(tail -4 "$WORK/readme.out" | tr '\n' ' ')"

[ -z "$left" ] || t_fail "README: still running after its kill: $left"
out=$WORK/readme.out
log_has "$out" "^gpuaware: topology fat-tree, engine fattree" 1 ||
	t_fail "no fat-tree routed by the plugin's fattree engine"
log_has "$out" "^gpuaware tables configured on all switches$" 1 ||
	t_fail "OpenSM did not install the plugin's tables"
log_has "$out" "^status *: ok$" 2 ||
	t_fail "verify did not pass twice: $(grep '^status' "$out" | tr '\n' ' ')"
log_has "$out" "^pairs *: [1-9][0-9]* (unreachable 0, holes 0, loops 0" 2 ||
	t_fail "verify did not find every pair delivered twice"
log_has "$out" "^in switches *: generation 1, routing \(for 1 job (\|without jobs (for 1 job: \)" 1 ||
	t_fail "the job hint was not routed: $(grep '^in switches' "$out" | tr '\n' ' ')"
t_log "README first check passes: $(grep '^path SLs' "$out" | tail -1)"
