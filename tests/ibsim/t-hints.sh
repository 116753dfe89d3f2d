#!/bin/sh
# SPDX-License-Identifier: MIT
# GPU-job hints end to end: OpenSM with the plugin's hint socket routes a
# 128-host 3-level fat-tree.  A job the job routing cannot speed up (all
# on one leaf) leaves the routing without jobs in the switches, the
# plugin's guard says so.  A job table sent with `ibpoolroute hints set
# --wait` comes back only once its routing is in the switches, and on the
# LFTs read back from the switches the jobs' collectives (`ibpoolroute
# simulate` on the live fabric) run no slower than before, rings faster.
# The table survives an OpenSM restart (a retired key in the config is
# warned about, nothing more); a client that may not write is refused
# and changes nothing; a client that connects and says nothing does not
# hold up a reroute.  A port GUID and its host's name are one host; an
# owner's set keeps the others' jobs.
set -eu
. "$(dirname "$0")/lib.sh"
t_init hints
t_need "$BDIR/ibpoolroute" "$BDIR/ibtopogen"

NET=$CONFIGS/ft3-small.net
SOCK=$WORK/sm.sock

"$BDIR/ibtopogen" jobs --net "$NET" --jobs 4-8 --seed 3 -o "$WORK/jobs.json"
plugin_ini "$WORK/gpuaware.conf" '[log]' 'verbosity = verbose'
sim_start "$NET"
osm_up ga opensm-gpuaware.conf sweep_interval 2
no_errors "$WORK/ga.log"
log_has "$WORK/ga.log" "gpuaware: job-hint socket $SOCK" 1 ||
	t_fail "no hint socket line"
[ "$(stat -c %a "$SOCK")" = 660 ] || t_fail "socket mode $(stat -c %a "$SOCK")"
poll 30 sm_state_has '"routed_generation":0' || t_fail "state: $(sm state --json)"
check_pushed "$WORK/ga.dump"
before=$(live_sim before "$WORK/jobs.json")

# One job on one leaf: nothing of it crosses a switch link, the job
# routing cannot be faster, and the switches keep the routing OpenSM
# dumped without jobs.
leaf=$(awk '/^Switch/ { sw = $0 } /^\[[0-9]+\][ \t]+"node/ && sw ~ /"leaf-p0-0"/ {
	sub(/^[^"]*"/, ""); sub(/ .*/, ""); printf "%s\"%s\"", n++ ? "," : "", $0 }' "$NET")
printf '{"jobs":[{"id":"local","hosts":[%s]}]}\n' "$leaf" >"$WORK/local.json"
sm hints set "$WORK/local.json" --wait --timeout 30000 >"$WORK/local.out" ||
	t_fail "hints set local: $(cat "$WORK/local.out")"
sm state >"$WORK/state.out"
grep -q "in switches  : generation 1, routing without jobs (for 1 job: collective search no faster on the model)$" \
	"$WORK/state.out" && grep -q "^job model    : without jobs kept" \
	"$WORK/state.out" || t_fail "state for one leaf: $(cat "$WORK/state.out")"
log_has "$WORK/ga.log" "gpuaware: routing without jobs kept (the job routing is no faster) for 1 jobs" 1 ||
	t_fail "no guard line in the log"
check_pushed "$WORK/ga.dump"

# the table as it is after j5's removal below, for the restart
perl -MJSON::PP -0777 -ne '$t = decode_json($_);
	$t->{jobs} = [grep { $_->{id} ne "j5" } @{$t->{jobs}}];
	print encode_json($t)' "$WORK/jobs.json" >"$WORK/jobs4.json"

t0=$(date +%s%N)
sm hints set "$WORK/jobs.json" --wait --timeout 30000 >"$WORK/set.out" ||
	t_fail "hints set --wait: $(cat "$WORK/set.out")"
ms=$((($(date +%s%N) - t0) / 1000000))
grep -q "generation 2, routed and in the switches" "$WORK/set.out" ||
	t_fail "hints set: $(cat "$WORK/set.out")"
sm state >"$WORK/state.out"
grep -q "in switches  : generation 2, routing for 5 jobs (collective search)$" "$WORK/state.out" &&
	grep -q "^job model    : jobs kept" "$WORK/state.out" ||
	t_fail "state after set: $(cat "$WORK/state.out")"
read_pushed "$WORK/ga.dump" && t_fail "the switches still hold the routing without jobs"
after=$(live_sim after "$WORK/jobs.json")
no_slower "$after" "$before" ||
	t_fail "jobs slower with hints (ring, all-to-all, worsts): $after vs $before"
no_slower "${after%% *}" "$(echo "$before" | awk '{ print $1 + 0.001 }')" ||
	t_fail "rings no faster with hints: $after vs $before"
t_log "hints set to LFTs in the switches: $ms ms; jobs' ring, all-to-all (mean, then worst) $before -> $after"
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

# The table outlives OpenSM; a key of an earlier release (job_policy)
# is warned about and ignored.
osm_stop
[ -s "$WORK/hints/hints.json" ] || t_fail "no kept table"
printf '%s\n' '[routing]' 'job_policy = isolate' >>"$WORK/gpuaware.conf"
osm_start "$CONF"
poll 60 sm_state_has '"routed_generation":3' ||
	t_fail "after restart: $(sm state --json 2>&1)"
sm hints get | grep -q "^4 jobs" || t_fail "after restart: $(sm hints get)"
no_errors "$WORK/ga.log"
log_has "$WORK/ga.log" "WRN GA40: .*key 'routing:job_policy' is no longer used" 1 ||
	t_fail "no word on the retired key"
sm state | grep -q "in switches  : generation 3, routing for 4 jobs (collective search)$" ||
	t_fail "state after restart: $(sm state)"
restarted=$(live_sim restarted "$WORK/jobs4.json")
t_log "restart: job table at generation 3 back and routed; jobs4 $restarted"

# Jobs share hosts: a job naming j2's host by its port GUID is taken,
# and with no host of its own it routes with j2 (said, no error).
# ibsim's port GUID is the caguid + 1.
host=$(perl -MJSON::PP -0777 -ne 'print decode_json($_)->{jobs}[1]{hosts}[0]' "$WORK/jobs.json")
cg=$(awk -v h="\"$host " '/^caguid=/ { g = substr($0, 8) }
	/^Hca/ && index($0, h) { print g; exit }' "$NET")
guid=$(printf '0x%016x' $((cg + 1)))
sm hints add ja "$guid" --wait --timeout 30000 >"$WORK/alias.out" 2>&1 ||
	t_fail "$guid of j2's $host refused: $(cat "$WORK/alias.out")"
log_has "$WORK/ga.log" "gpuaware: job 'ja' has no host of its own: its hosts route with job 'j2'" 1 ||
	t_fail "ja not said to route with j2"
sm state | grep -q "in switches  : generation 4, routing \(for 4 jobs (\|without jobs (for 4 jobs: \)" ||
	t_fail "shared host: $(sm state)"
sm hints remove ja >/dev/null || t_fail "ja not removed"

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
sm state | grep -q "in switches  : generation 6, routing \(for 5 jobs (\|without jobs (for 5 jobs: \)" ||
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
t_log "a shared host routed with its first job, an owner's set kept the others' jobs"
osm_stop
sim_stop
