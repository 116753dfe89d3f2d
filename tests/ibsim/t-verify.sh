#!/bin/sh
# SPDX-License-Identifier: MIT
# ibpoolroute verify against a running OpenSM: passes OpenSM's ftree on a
# fat-tree, finds min-hop's credit loop on a 4x4x4 torus, passes
# torus-2QoS there (two VLs, SLs from the SA), fails when the SL2VL
# tables put SL 0 on VL 15, and fails with status 2 once the SA stops
# answering.  Plain umad2sim: the SA is asked per pair (t-verify-sa.sh
# covers GetTables).
set -eu
. "$(dirname "$0")/lib.sh"
t_init verify
t_need "$BDIR/ibpoolroute"
cd "$WORK"

verify() {
	client_env "$BDIR/ibpoolroute" verify "$@"
}

now_ms() { echo $(($(date +%s%N) / 1000000)); }

# run_verify NAME ARGS...: verify into NAME.out; sets RC and MS.
run_verify() {
	local name="$1" t0
	shift
	t0=$(now_ms)
	RC=0
	verify "$@" >"$WORK/$name.out" 2>&1 || RC=$?
	MS=$(($(now_ms) - t0))
}

has() { grep -q -- "$2" "$WORK/$1.out"; }

expect() {
	has "$1" "$2" || t_fail "$1: no '$2' in: $(tr '\n' '|' <"$WORK/$1.out")"
}

# sm NAME ENGINE KEY VALUE...: a resident OpenSM routing with ENGINE, up
# and done with its first sweep.
sm() {
	local name="$1" eng="$2" conf
	shift 2
	conf=$(osm_conf "$name" routing_engine "$eng" "$@")
	osm_start "$conf"
	wait_log "$WORK/$name.log" "$eng tables configured on all switches" 1 60
	wait_log "$WORK/$name.log" "> SUBNET UP$" 1 60
}

# start NET ENGINE KEY VALUE...: ibsim on NET and sm.
start() {
	local net="$1" eng="$2"
	shift 2
	sim_start "$CONFIGS/$net"
	sm "$eng" "$eng" "$@"
}

stop() {
	osm_stop
	sim_stop
}

still_up() {
	alive "$OSM_PID" || t_fail "$1: OpenSM died under verify"
}

# (a) A pure fat-tree under ftree: everything delivered, no credit loop.
start ft2-small.net ftree
run_verify ftree --perms 10
[ "$RC" -eq 0 ] || t_fail "ftree: exit $RC: $(tail -3 "$WORK/ftree.out")"
expect ftree "^status *: ok$"
expect ftree "^credit loops: none (1 VL"
expect ftree "^pairs *: 992 (unreachable 0,"
expect ftree "^path SLs *: from the SA at LID [0-9]*: 992 PathRecord queries"
# umad2sim alone has no RMPP: auto's first GetTable comes cut, Gets follow.
expect ftree "for 992 of 992 pairs (GetTable answers came cut), SLs 0,"
still_up ftree
t_log "ft2-small ftree: exit 0 in $MS ms; $(grep '^path SLs' "$WORK/ftree.out")"

# (b) The same with QoS mapping SL 0 onto VL 15: OpenSM's SA then has no
# path for any pair, and verify must fail on it.
osm_stop
sm vl15 ftree qos TRUE qos_sl2vl 15,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15
run_verify vl15 --perms 0
[ "$RC" -eq 1 ] || t_fail "SL 0 on VL 15: exit $RC, not 1: $(tail -3 "$WORK/vl15.out")"
expect vl15 "^path SLs .* 992 pairs without a path$"
expect vl15 "^status *: FAIL (pairs without a PathRecord)$"
still_up vl15
t_log "ft2-small SL 0 on VL 15: exit 1 in $MS ms"
stop

# (c) Min-hop on a torus deadlocks on VL 0: verify must say so and fail.
start torus-small.net minhop
run_verify minhop --json --perms 0
[ "$RC" -eq 1 ] || t_fail "minhop: exit $RC, not 1: $(tail -3 "$WORK/minhop.out")"
expect minhop '"credit_loops": true'
expect minhop '"unreachable": 0,'
expect minhop '"sa_queries": 4032,'
expect minhop '"ok": false'
still_up minhop
t_log "torus-small minhop: exit 1 (credit loop) in $MS ms; $(grep '"sa_seconds"' "$WORK/minhop.out" | tr -d ' ,')"
stop

# (d) torus-2QoS routes the same torus on two VLs by path SL.  Its seed
# names both directions of each ring: the radix is 4.
cat >"$WORK/seed.torus-2QoS" <<EOF
torus 4 4 4
xp_link 0x0002c90200000000 0x0002c90200000001
xm_link 0x0002c90200000000 0x0002c90200000003
yp_link 0x0002c90200000000 0x0002c90200000004
ym_link 0x0002c90200000000 0x0002c9020000000c
zp_link 0x0002c90200000000 0x0002c90200000010
zm_link 0x0002c90200000000 0x0002c90200000030
EOF
start torus-small.net torus-2QoS qos TRUE torus_config "$WORK/seed.torus-2QoS"
run_verify t2qos --perms 10
[ "$RC" -eq 0 ] || t_fail "torus-2QoS: exit $RC: $(tail -3 "$WORK/t2qos.out")"
expect t2qos "^status *: ok$"
expect t2qos "^credit loops: none (2 VLs"
expect t2qos "^path SLs .*SLs 0,1,"
still_up t2qos
t_log "torus-small torus-2QoS: exit 0 in $MS ms; $(grep '^path SLs' "$WORK/t2qos.out")"

# (e) Without the SA the check cannot run: status 2, not a verdict.
osm_stop
run_verify nosa --perms 0
[ "$RC" -eq 2 ] || t_fail "no SA: exit $RC, not 2: $(tail -3 "$WORK/nosa.out")"
expect nosa "PathRecord LID [0-9]* to .* from the SA at LID"
t_log "no SA: exit 2 in $MS ms"
sim_stop
