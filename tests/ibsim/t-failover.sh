#!/bin/sh
# SPDX-License-Identifier: MIT
# A master and a standby SM under ibsim, on two CAs of ft2-tiny (h01 with
# sm_priority 10, h02 with 1), both with the plugin and its hint service
# on TCP, and ibpoold relaying the job table to both over TCP in MUNGE
# credentials (a munged of the test's own).  A job started from "another
# host" (a TCP client with a credential) reaches both SMs and the master
# routes for it; state and the metrics say master and standby.  The master is killed:
# the standby takes over and its first sweep routes for the same jobs,
# reads the switches' LFTs back first and sends no LFT block (counted
# from its log, log flag 0x08; the same count sees the master's first
# sweep send them all), and the LFTs read back from the switches are the
# old master's to the entry.  A job started after that is routed by the
# new master; a credential replayed to it is refused.  The SMs run over
# rmppsim.so, whose send timeouts stand in for the kernel's: an SM that
# has not found its own port yet drops the other's SMInfo Get, and
# under umad2sim alone the other's sweep would wait on it for ever.
set -eu
. "$(dirname "$0")/lib.sh"
. "$TOP/tests/munge.sh"
t_init failover
t_need "$BDIR/ibpoolroute" "$BDIR/ibpoold" "$BDIR/rmppsim.so"
OSM_PRELOAD="$(san_preload)$BDIR/rmppsim.so:$UMAD2SIM"
# Simulator clients leave their sys-* directories in the working one.
cd "$WORK"
NET=$CONFIGS/ft2-tiny.net
# munged wants its socket reachable by all
chmod 755 "$WORK"
MS=$(munge_start "$WORK" munge) || t_fail "munged did not start"
T_PIDS="$T_PIDS $(cat "$WORK/munge.pid")"

# sm_up NAME HOST PRIORITY: OpenSM with the plugin at HOST's CA, its
# hint service on $WORK/NAME.sock and on TCP (a port the kernel picks),
# each LFT block it sends logged.
sm_up() {
	local conf
	printf '%s\n' "[hints]" "socket = $WORK/$1.sock" \
		"state_dir = $WORK/$1.hints" "tcp = 127.0.0.1:0" \
		"munge_socket = $MS" "[metrics]" "textfile = $WORK/$1.prom" \
		>"$WORK/$1.ini"
	# shellcheck disable=SC2046
	conf=$(osm_conf "$1" $(fragment_keys "$CONFIGS/opensm-gpuaware.conf") \
		event_plugin_options "$WORK/$1.ini" sm_priority "$3" \
		sminfo_polling_timeout 1000 polling_retry_number 2 \
		log_flags 0x4f)
	osm_at "$1" "$2" "$conf"
}

# port NAME: the TCP port NAME's hint service logged.
port() {
	sed -n 's/.*job-hint socket .* and tcp 127\.0\.0\.1:\([0-9]*\) .*/\1/p' \
		"$WORK/$1.log" | tail -1
}

# at NAME CMD...: ibpoolroute CMD on NAME's hint service over TCP.
at() {
	local n=$1
	shift
	"$BDIR/ibpoolroute" "$@" --socket "tcp:127.0.0.1:$(port "$n")" \
		--munge-socket "$MS"
}

# state_of NAME KEY: a field of NAME's state.
state_of() {
	at "$1" state --json >"$WORK/$1.state" 2>&1 &&
		json "$WORK/$1.state" "\$r->{$2} // 'null'"
}

# routed NAME JOBS: NAME's routing in the switches is for its job table
# now, with JOBS jobs.
routed() {
	[ "$(state_of "$1" routed_generation)" = \
		"$(state_of "$1" hints_generation)" ] &&
		[ "$(state_of "$1" jobs_routed)" = "$2" ]
}

# holds NAME IDS: NAME's job table holds the jobs IDS ("j1 j2").
holds() {
	at "$1" hints get --json >"$WORK/$1.hints.json" 2>&1 &&
		[ "$(json "$WORK/$1.hints.json" \
			'join " ", map { $_->{id} } @{$r->{jobs}}')" = "$2" ]
}

sim_start "$NET"
sm_up smA h01 10
PA=$OSM_PID
poll 60 sweeps_done "$WORK/smA.log" 1 || t_fail "smA: no routing"
nA=$(ft_blocks "$WORK/smA.log")
[ "$nA" -gt 0 ] || t_fail "smA's first sweep sent no LFT block: the count sees nothing"
sm_up smB h02 1
poll 60 log_has "$WORK/smB.log" "ENTERING SM STANDBY STATE" 1 ||
	t_fail "smB did not enter standby"
poll 10 sh -c '[ -n "$(sed -n "s/.*job-hint socket .* and tcp 127\.0\.0\.1:\([0-9]*\) .*/\1/p" "$1")" ]' \
	sh "$WORK/smB.log" || t_fail "smB: no TCP hint service"
[ "$(state_of smA sm_state)" = master ] || t_fail "smA: $(cat "$WORK/smA.state")"
[ "$(state_of smB sm_state)" = standby ] || t_fail "smB: $(cat "$WORK/smB.state")"
at smB state | grep -q "^sm           : standby$" ||
	t_fail "ibpoolroute state: $(at smB state)"
# the metrics say each SM's role; a standby routes nothing
poll 10 grep -q '^gpuaware_sm_role{role="standby"} 1$' "$WORK/smB.prom" ||
	t_fail "smB's role metric: $(grep sm_role "$WORK/smB.prom" 2>&1)"
grep -q '^gpuaware_sm_role{role="master"} 1$' "$WORK/smA.prom" ||
	t_fail "smA's role metric: $(grep sm_role "$WORK/smA.prom")"
! grep -q engine_in_use "$WORK/smB.prom" ||
	t_fail "a standby with an engine in use: $(grep engine_in_use "$WORK/smB.prom")"
grep -q '^gpuaware_sm_hints_table_jobs 0$' "$WORK/smB.prom" ||
	t_fail "smB's table metric before a job: $(grep table_jobs "$WORK/smB.prom")"
t_log "smA master, smB standby; smA's first sweep sent $nA LFT blocks"

# ibpoold relays to both SMs over TCP, and takes changes over TCP.
poold_live 200 "sm_socket = tcp:127.0.0.1:$(port smA), tcp:127.0.0.1:$(port smB)" \
	"tcp = 127.0.0.1:0" "munge_socket = $MS"
PP=$(sed -n 's/.* and tcp 127\.0\.0\.1:\([0-9]*\) .*/\1/p' "$WORK/poold.err")
[ -n "$PP" ] || t_fail "ibpoold: no TCP port: $(cat "$WORK/poold.err")"
remote() {
	"$BDIR/ibpoolroute" "$@" --socket "tcp:127.0.0.1:$PP" --munge-socket "$MS"
}
remote jobs --start j1 --hosts 'h[01,05,09,13]' >"$WORK/j1.out" 2>&1 ||
	t_fail "job.start over TCP: $(cat "$WORK/j1.out")"
poll 30 holds smA j1 || t_fail "smA's table: $(cat "$WORK/smA.hints.json")"
poll 30 holds smB j1 || t_fail "smB's table: $(cat "$WORK/smB.hints.json")"
# the standby routes nothing; its table's size is in its metrics still
poll 10 grep -q '^gpuaware_sm_hints_table_jobs 1$' "$WORK/smB.prom" ||
	t_fail "smB's table metric: $(grep table_jobs "$WORK/smB.prom")"
poll 30 routed smA 1 || t_fail "smA did not route for j1: $(cat "$WORK/smA.state")"
pr pool --json >"$WORK/pool.json" 2>&1 ||
	t_fail "pool.status: $(cat "$WORK/pool.json")"
[ "$(json "$WORK/pool.json" 'join " ", map { $_->{up} && $_->{synced} ? 1 : 0 } @{$r->{relay}{sms}}')" = "1 1" ] ||
	t_fail "relay: $(json "$WORK/pool.json" 'JSON::PP->new->canonical->encode($r->{relay})')"
t_log "job j1 from a TCP client in a MUNGE credential: in both SMs' tables, routed by smA"

# The LFTs in the switches, read back by directed route from h01.
dr_paths "$WORK/smA.dump/opensm-subnet.lst" >"$WORK/dr.paths" ||
	t_fail "no SM port in smA's dump"
read_lfts "$WORK/dr.paths" "$WORK/before.ibroute"
lfts_pairs "$WORK/before.ibroute" >"$WORK/before.pairs"
[ -s "$WORK/before.pairs" ] || t_fail "no LFT read back"

# The master dies; the standby takes over within one sweep.
kill -9 "$PA"
t0=$(date +%s%N)
poll 60 log_has "$WORK/smB.log" "$PLUGIN_LINE" 1 || t_fail "smB did not route"
ms=$((($(date +%s%N) - t0) / 1000000))
poll 30 sweeps_done "$WORK/smB.log" 1 || t_fail "smB: subnet not up"
[ "$(state_of smB sm_state)" = master ] || t_fail "smB: $(cat "$WORK/smB.state")"
poll 10 grep -q '^gpuaware_sm_role{role="master"} 1$' "$WORK/smB.prom" ||
	t_fail "smB's role metric after the takeover: $(grep sm_role "$WORK/smB.prom")"
grep -q '^gpuaware_sm_engine_in_use{engine="gpuaware"} 1$' "$WORK/smB.prom" ||
	t_fail "smB's engine metric: $(grep engine_in_use "$WORK/smB.prom")"
[ "$(state_of smB routings)" = 1 ] && routed smB 1 ||
	t_fail "smB's first routing is not for j1: $(cat "$WORK/smB.state")"
no_errors "$WORK/smB.log"
sent=$(ft_blocks "$WORK/smB.log")
line=$(grep "gpuaware: first sweep as master" "$WORK/smB.log" | tail -1)
[ -n "$line" ] || t_fail "smB read no LFT back"
[ "$sent" -eq 0 ] ||
	t_fail "smB sent $sent LFT blocks at takeover: ${line#*gpuaware: }"
read_lfts "$WORK/dr.paths" "$WORK/after.ibroute"
lfts_pairs "$WORK/after.ibroute" >"$WORK/after.pairs"
cmp -s "$WORK/before.pairs" "$WORK/after.pairs" ||
	t_fail "the LFTs changed at takeover: $(diff "$WORK/before.pairs" "$WORK/after.pairs" | head -4 | tr '\n' ' ')"
t_log "takeover: smB routed for j1 $ms ms after the kill, in its first sweep; LFT blocks sent: $sent (smA's first sweep: $nA); $(wc -l <"$WORK/after.pairs") LFT entries as before; ${line#*gpuaware: }"

# The new master routes for the jobs started after the takeover.
remote jobs --start j2 --hosts 'h[02,06,10,14]' >"$WORK/j2.out" 2>&1 ||
	t_fail "job.start j2: $(cat "$WORK/j2.out"); ibpoold: $(tail -5 "$WORK/poold.err" | tr '\n' ' ')"
poll 30 holds smB "j1 j2" || t_fail "smB's table: $(cat "$WORK/smB.hints.json")"
poll 30 routed smB 2 || t_fail "smB did not route for j2: $(cat "$WORK/smB.state")"
pr pool --json >"$WORK/pool.json" 2>&1 ||
	t_fail "pool.status after the kill: $(cat "$WORK/pool.json")"
[ "$(json "$WORK/pool.json" 'join " ", map { $_->{up} ? 1 : 0 } @{$r->{relay}{sms}}')" = "0 1" ] ||
	t_fail "relay after the kill: $(json "$WORK/pool.json" 'JSON::PP->new->canonical->encode($r->{relay})')"

# A credential is good once: replayed to the new master, refused.
E=$(munge_envelope "$MS" '{"op":"reroute"}') || t_fail "munge: no credential"
[ "$(tcp_ask "127.0.0.1:$(port smB)" "$E" | json /dev/stdin '$r->{ok} ? 1 : 0')" = 1 ] ||
	t_fail "a reroute in a credential was refused"
tcp_ask "127.0.0.1:$(port smB)" "$E" >"$WORK/replay.out"
[ "$(json "$WORK/replay.out" '$r->{error}{code}')" = bad_credential ] ||
	t_fail "a replayed credential: $(cat "$WORK/replay.out")"
t_log "j2 started after the takeover: routed by smB; a replayed credential: $(json "$WORK/replay.out" '$r->{error}{message}')"
