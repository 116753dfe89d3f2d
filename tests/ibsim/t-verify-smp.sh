#!/bin/sh
# SPDX-License-Identifier: MIT
# The LFT and SL2VL reads with several SMPs in flight (livefab's window)
# on a 4x4x4 torus under torus-2QoS (two VLs): the tables read 8 at a
# time are the ones read one at a time, their LFTs OpenSM's dump; Gets
# that rmppsim.so loses are asked again and the tables stay the same;
# Gets never answered fail the read and verify, naming the SMP; verify's
# report is the same whatever the window.
set -eu
. "$(dirname "$0")/lib.sh"
t_init verify-smp
RMPPSIM=$BDIR/rmppsim.so
t_need "$BDIR/ibpoolroute" "$BDIR/lfdump" "$RMPPSIM"
cd "$WORK"
OSM_PRELOAD="$(san_preload)$RMPPSIM:$UMAD2SIM"
PRE="$RMPPSIM:$UMAD2SIM"

# dump NAME WINDOW [DROP]: lfdump's lines sorted into NAME.out, its
# stderr in NAME.err, its status in RC; DROP is RMPPSIM_DROP_SMP.
dump() {
	RC=0
	env LD_PRELOAD="$(san_preload "$BDIR/lfdump")$PRE" \
		RMPPSIM_DROP_SMP="${3:-0}" "$BDIR/lfdump" "$2" \
		>"$WORK/$1.raw" 2>"$WORK/$1.err" || RC=$?
	sort "$WORK/$1.raw" >"$WORK/$1.out"
}

# verify NAME ARGS...: verify --perms 0 --json into NAME.out.
verify() {
	local name=$1
	shift
	RC=0
	env LD_PRELOAD="$(san_preload "$BDIR/ibpoolroute")$PRE" \
		RMPPSIM_DROP_SMP="${DROP:-0}" "$BDIR/ibpoolroute" verify \
		--perms 0 --json "$@" >"$WORK/$name.out" 2>"$WORK/$name.err" ||
		RC=$?
}

same() {
	cmp -s "$WORK/$1.out" "$WORK/$2.out" ||
		t_fail "$1 and $2 differ: $(diff "$WORK/$1.out" "$WORK/$2.out" | head -5 | tr '\n' '|')"
}

sim_start "$CONFIGS/torus-small.net"
osm_start "$(osm_conf t2qos routing_engine torus-2QoS qos TRUE \
	torus_config "$CONFIGS/torus-small.torus-2QoS.conf")"
wait_log "$WORK/t2qos.log" "torus-2QoS tables configured on all switches" 1 60
wait_log "$WORK/t2qos.log" "> SUBNET UP$" 1 60

# (a) One at a time and eight in flight: the same tables; the LFTs are
# OpenSM's, the SL2VL tables use two VLs.
dump one 1
[ "$RC" -eq 0 ] || t_fail "window 1: exit $RC: $(cat "$WORK/one.err")"
dump eight 8
[ "$RC" -eq 0 ] || t_fail "window 8: exit $RC: $(cat "$WORK/eight.err")"
same one eight
grep -v '^sl2vl ' "$WORK/eight.out" >"$WORK/eight.lft"
lfts_pairs "$WORK/t2qos.dump/opensm-lfts.dump" >"$WORK/dumped.lft"
[ -s "$WORK/dumped.lft" ] || t_fail "no LFT entries in OpenSM's dump"
cmp -s "$WORK/dumped.lft" "$WORK/eight.lft" ||
	t_fail "LFTs read differ from OpenSM's dump: $(diff "$WORK/dumped.lft" "$WORK/eight.lft" | head -5 | tr '\n' '|')"
[ "$(grep -c '^sl2vl ' "$WORK/eight.out")" -eq $((3200 * 16)) ] ||
	t_fail "not 3200 SL2VL tables: $(grep -c '^sl2vl ' "$WORK/eight.out")"
[ "$(awk '$1 == "sl2vl" { print $6 }' "$WORK/eight.out" | sort -u | wc -l)" -ge 2 ] ||
	t_fail "the SL2VL tables read use one VL"
t_log "window 1 and 8: $(wc -l <"$WORK/eight.out") entries alike; $(cat "$WORK/eight.err")"

# (b) Every 200th Get lost: asked again, the same tables.
dump lossy 8 200
[ "$RC" -eq 0 ] || t_fail "lossy: exit $RC: $(cat "$WORK/lossy.err")"
same one lossy
grep -q ' SMPs, [1-9][0-9]* sent again$' "$WORK/lossy.err" ||
	t_fail "lossy: nothing sent again: $(cat "$WORK/lossy.err")"
t_log "every 200th Get lost: $(cat "$WORK/lossy.err")"

# (c) Every Get from the 100th on lost: the read fails, naming one.
dump dead 8 100+
[ "$RC" -ne 0 ] || t_fail "dead: exit 0"
grep -q '^lfdump: cannot read \(LFT block [0-9]* of switch\|SL2VL in [0-9]* out [0-9]* of switch\) 0x[0-9a-f]* (.*): no answer$' \
	"$WORK/dead.err" || t_fail "dead: $(cat "$WORK/dead.err")"
DROP=100+ verify vdead
[ "$RC" -eq 2 ] && grep -q ': no answer' "$WORK/vdead.out" "$WORK/vdead.err" ||
	t_fail "verify with Gets lost: exit $RC: $(cat "$WORK/vdead.out" "$WORK/vdead.err" | head -3)"

# (d) verify's report: the same with 1, 8 and 64 in flight, but for
# the window, the SMPs' time and the SA's.
for w in 1 8 64; do
	verify "v$w" --smp-window "$w"
	[ "$RC" -eq 0 ] || t_fail "verify --smp-window $w: exit $RC: $(head -3 "$WORK/v$w.out")"
	grep -v -e '"smp_window"' -e '_seconds"' -e '"peak_memory' \
		"$WORK/v$w.out" >"$WORK/v$w.same"
	grep -q "\"smp_window\": $w," "$WORK/v$w.out" ||
		t_fail "v$w: no smp_window $w"
done
cmp -s "$WORK/v1.same" "$WORK/v8.same" && cmp -s "$WORK/v1.same" "$WORK/v64.same" ||
	t_fail "verify differs by window: $(diff "$WORK/v1.same" "$WORK/v64.same" | head -5 | tr '\n' '|')"
t_log "verify: $(grep -h '"smp_seconds"' "$WORK/v1.out" "$WORK/v8.out" "$WORK/v64.out" | tr -d ' \n')"
echo "verify-smp: ok"
