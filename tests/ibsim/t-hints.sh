#!/bin/sh
# SPDX-License-Identifier: MIT
# GPU-job hints end to end: OpenSM with the plugin's hint socket routes a
# 128-host 3-level fat-tree; a job table sent with `ibpoolroute hints set
# --wait` comes back only once its routing is in the switches, and the
# jobs' own all-to-all link loads on the LFTs read back from the switches
# (`ibpoolroute verify --jobs`) are lower than before.  The table survives an OpenSM restart (routed
# then with job_policy isolate: no more shared links than without jobs); a client
# that may not write is refused and changes nothing; a client that
# connects and says nothing does not hold up a reroute.  A port GUID and
# its host's name are one host; an owner's set keeps the others' jobs.
set -eu
. "$(dirname "$0")/lib.sh"
t_init hints
t_need "$BDIR/ibpoolroute" "$BDIR/ibtopogen"

NET=$CONFIGS/ft3-small.net
SOCK=$WORK/sm.sock

"$BDIR/ibtopogen" jobs --net "$NET" --jobs 4-8 --seed 3 -o "$WORK/jobs.json"
# t-refine covers the background refinement: off here, so the tables
# read back are the first routing's
plugin_ini "$WORK/gpuaware.conf" '[log]' 'verbosity = verbose' \
	'[routing]' 'job_refine_moves = 0'
sim_start "$NET"
osm_up ga opensm-gpuaware.conf sweep_interval 2
no_errors "$WORK/ga.log"
log_has "$WORK/ga.log" "gpuaware: job-hint socket $SOCK" 1 ||
	t_fail "no hint socket line"
[ "$(stat -c %a "$SOCK")" = 660 ] || t_fail "socket mode $(stat -c %a "$SOCK")"
poll 30 sm_state_has '"routed_generation":0' || t_fail "state: $(sm state --json)"
check_pushed "$WORK/ga.dump"
set -- $(live_jobs before "$WORK/jobs.json")
b=$1
# the table as it is after j5's removal below, for isolate after restart
perl -MJSON::PP -0777 -ne '$t = decode_json($_);
	$t->{jobs} = [grep { $_->{id} ne "j5" } @{$t->{jobs}}];
	print encode_json($t)' "$WORK/jobs.json" >"$WORK/jobs4.json"
set -- $(live_jobs before4 "$WORK/jobs4.json")
sb=$2

t0=$(date +%s%N)
sm hints set "$WORK/jobs.json" --wait --timeout 30000 >"$WORK/set.out" ||
	t_fail "hints set --wait: $(cat "$WORK/set.out")"
ms=$((($(date +%s%N) - t0) / 1000000))
grep -q "generation 1, routed and in the switches" "$WORK/set.out" ||
	t_fail "hints set: $(cat "$WORK/set.out")"
sm state >"$WORK/state.out"
grep -Eq "in switches  : generation 1 \(5 jobs routed: (job pass|turned slots \(.+\))\)$" "$WORK/state.out" ||
	t_fail "state after set: $(cat "$WORK/state.out")"
grep -q "^refinement   : off" "$WORK/state.out" ||
	t_fail "refinement after set: $(cat "$WORK/state.out")"
set -- $(live_jobs after "$WORK/jobs.json")
a=$1
[ "$a" -lt "$b" ] || t_fail "jobs' own load not lower with hints: $a vs $b"
t_log "hints set to LFTs in the switches: $ms ms; jobs' own load $b -> $a"
verify_live hinted

# Refused: a peer that may not write changes nothing, whether the
# socket's mode keeps it out or, opened to it, the server says no.
nobody() {
	setpriv --reuid=nobody --regid=nogroup --clear-groups \
		"$BDIR/ibpoolroute" "$@" --socket "$SOCK"
}
chmod 711 "$WORK"
nobody hints remove j1 >"$WORK/nobody.out" 2>&1 &&
	t_fail "nobody removed a job: $(cat "$WORK/nobody.out")"
grep -q "Permission denied" "$WORK/nobody.out" ||
	t_fail "nobody: $(cat "$WORK/nobody.out")"
chmod 666 "$SOCK"
rc=0
nobody hints remove j1 >"$WORK/nobody.out" 2>&1 || rc=$?
chmod 660 "$SOCK"
chmod 700 "$WORK"
[ "$rc" -eq 1 ] && grep -q "forbidden: " "$WORK/nobody.out" ||
	t_fail "nobody on an open socket: exit $rc: $(cat "$WORK/nobody.out")"
sm hints get | grep -q "^5 jobs" || t_fail "the table changed: $(sm hints get)"
sm hints add j1 node0001 >"$WORK/dup.out" 2>&1 && t_fail "duplicate id taken"
grep -q "duplicate_id" "$WORK/dup.out" || t_fail "dup: $(cat "$WORK/dup.out")"
sm hints add jx nosuchhost >"$WORK/unk.out" 2>&1 && t_fail "unknown host taken"
grep -q "unknown_host" "$WORK/unk.out" || t_fail "unknown: $(cat "$WORK/unk.out")"

# A client that connects and sends nothing holds up nobody.
perl -MIO::Socket::UNIX -e '
	my $s = IO::Socket::UNIX->new(Peer => $ARGV[0]) or die "connect: $!";
	sleep 20;' "$SOCK" &
SILENT=$!
T_PIDS="$T_PIDS $SILENT"
t0=$(date +%s%N)
sm hints remove j5 --wait --timeout 10000 >"$WORK/rm.out" ||
	t_fail "remove with a silent client connected: $(cat "$WORK/rm.out")"
rm_ms=$((($(date +%s%N) - t0) / 1000000))
kill "$SILENT" 2>/dev/null || true
r0=$(sm state --json | awk -F: '/"routings"/ { gsub(/[ ,]/, "", $2); print $2 }')
sm reroute --wait --timeout 10000 >"$WORK/rr.out" ||
	t_fail "reroute --wait: $(cat "$WORK/rr.out")"
r1=$(sm state --json | awk -F: '/"routings"/ { gsub(/[ ,]/, "", $2); print $2 }')
[ "$r1" -gt "$r0" ] || t_fail "reroute --wait returned with no new routing ($r0, $r1)"
t_log "remove + reroute with a silent client connected: $rm_ms ms"

# The table outlives OpenSM; restarted with job_policy isolate, the jobs
# share no more links than without them.
osm_stop
[ -s "$WORK/hints/hints.json" ] || t_fail "no kept table"
printf '%s\n' '[routing]' 'job_policy = isolate' >>"$WORK/gpuaware.conf"
osm_start "$CONF"
poll 60 sm_state_has '"routed_generation":2' ||
	t_fail "after restart: $(sm state --json 2>&1)"
sm hints get | grep -q "^4 jobs" || t_fail "after restart: $(sm hints get)"
no_errors "$WORK/ga.log"
sm state | grep -q "in switches  : generation 2 (4 jobs routed: isolated)$" ||
	t_fail "state after restart: $(sm state)"
set -- $(live_jobs isolated "$WORK/jobs4.json")
si=$2
[ "$si" -le "$sb" ] ||
	t_fail "isolate shares more links than no jobs: $si vs $sb"
t_log "restart: job table at generation 2 back and routed; isolate shares $si links, without jobs $sb"

# A host's port GUID is that host: a job naming it beside the job that
# names the host is refused, naming both.  ibsim's port GUID is the
# caguid + 1.
host=$(perl -MJSON::PP -0777 -ne 'print decode_json($_)->{jobs}[1]{hosts}[0]' "$WORK/jobs.json")
cg=$(awk -v h="\"$host " '/^caguid=/ { g = substr($0, 8) }
	/^Hca/ && index($0, h) { print g; exit }' "$NET")
guid=$(printf '0x%016x' $((cg + 1)))
sm hints add ja "$guid" >"$WORK/alias.out" 2>&1 && t_fail "$guid taken beside $host"
grep -q "bad_request: host '$host' is in jobs 'j2' and 'ja' (as '$guid', the same node)" \
	"$WORK/alias.out" || t_fail "alias: $(cat "$WORK/alias.out")"

# An owner's set touches its own jobs only.
idle=$(perl -MJSON::PP -0777 -ne 'my %u = map { $_ => 1 }
	map { @{$_->{hosts}} } @{decode_json($_)->{jobs}};
	for (1 .. 128) { my $h = sprintf("node%04d", $_);
		if (!$u{$h}) { print $h; last } }' "$WORK/jobs.json")
printf '{"jobs":[{"id":"p1","hosts":["%s"]}]}\n' "$idle" >"$WORK/own.json"
sm hints set --owner ibpoold "$WORK/own.json" --wait --timeout 30000 \
	>"$WORK/own.out" 2>&1 || t_fail "owner set: $(cat "$WORK/own.out")"
sm hints get >"$WORK/own.get"
grep -q "^5 jobs" "$WORK/own.get" && grep -q "p1 .*owner ibpoold 1 host: $idle" \
	"$WORK/own.get" || t_fail "owner set: $(cat "$WORK/own.get")"
sm state | grep -q "in switches  : generation 3 (5 jobs routed: " ||
	t_fail "owner's job not routed: $(sm state)"
printf '{"jobs":[{"id":"j2","hosts":["%s"]}]}\n' "$idle" >"$WORK/own2.json"
sm hints set --owner ibpoold "$WORK/own2.json" >"$WORK/own2.out" 2>&1 &&
	t_fail "an owner's set took j2"
grep -q "duplicate_id: job 'j2' already exists" "$WORK/own2.out" ||
	t_fail "owner clash: $(cat "$WORK/own2.out")"
echo '{"jobs":[]}' >"$WORK/own3.json"
sm hints set --owner ibpoold "$WORK/own3.json" >/dev/null
sm hints get | grep -q "^4 jobs" || t_fail "owner's jobs not gone: $(sm hints get)"
no_errors "$WORK/ga.log"
t_log "aliases refused, an owner's set kept the others' jobs"
osm_stop
sim_stop
