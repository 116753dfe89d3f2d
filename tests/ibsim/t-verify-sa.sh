#!/bin/sh
# SPDX-License-Identifier: MIT
# ibpoolroute verify's SA queries on a 4x4x4 torus routed by torus-2QoS
# (several path SLs, by pair), OpenSM and verify both over rmppsim.so, the
# kernel's RMPP that umad2sim lacks: one GetTable per source and one Get
# per pair give the same report; auto takes the GetTables; a client
# without RMPP gets cut answers, which --sa table refuses; --sample N asks
# about N pairs and leaves credit loops unchecked; progress lines come on
# stderr with --progress only (the runs are short); empty GetTables (SL 0
# mapped to VL 15) leave every pair without a path, and send auto to Gets;
# rmppsim's compact segments carry the GetTables in fewer MADs than full
# ones (RMPPSIM_COMPACT=0), for the same report.
set -eu
. "$(dirname "$0")/lib.sh"
t_init verify-sa
RMPPSIM=$BDIR/rmppsim.so
t_need "$BDIR/ibpoolroute" "$RMPPSIM"
cd "$WORK"
OSM_PRELOAD="$(san_preload)$RMPPSIM:$UMAD2SIM"

# run NAME PRELOAD ARGS...: verify --perms 0 into NAME.out and NAME.err,
# rmppsim's counts into NAME.stats; COMPACT=0 asks for full segments.
run() {
	local name=$1 pre=$2
	shift 2
	RC=0
	env LD_PRELOAD="$(san_preload "$BDIR/ibpoolroute")$pre" \
		RMPPSIM_STATS="$WORK/$name.stats" \
		RMPPSIM_COMPACT="${COMPACT:-1}" \
		"$BDIR/ibpoolroute" verify --perms 0 "$@" >"$WORK/$name.out" \
		2>"$WORK/$name.err" || RC=$?
}

# segs NAME: "ANSWERS SEGMENTS FULL" from NAME's rmppsim counts.
segs() {
	sed -n 's/^rmppsim: \([0-9]*\) answers in \([0-9]*\) segments (\([0-9]*\) full ones)$/\1 \2 \3/p' \
		"$WORK/$1.stats"
}

shim() {
	local name=$1
	shift
	run "$name" "$RMPPSIM:$UMAD2SIM" "$@"
}

expect() {
	grep -q -- "$2" "$WORK/$1" ||
		t_fail "$1: no '$2' in: $(tr '\n' '|' <"$WORK/$1")"
}

ok() {
	[ "$RC" -eq 0 ] ||
		t_fail "$1: exit $RC: $(tail -n 3 "$WORK/$1.out" "$WORK/$1.err")"
}

# The report without what differs by how the SA was asked.
same() {
	grep -v -e '"sa_mode"' -e '"sa_queries"' -e '_seconds"' -e '"peak_memory' \
		"$WORK/$1.out"
}

sim_start "$CONFIGS/torus-small.net"
osm_start "$(osm_conf t2qos routing_engine torus-2QoS qos TRUE \
	torus_config "$CONFIGS/torus-small.torus-2QoS.conf")"
wait_log "$WORK/t2qos.log" "torus-2QoS tables configured on all switches" 1 60
wait_log "$WORK/t2qos.log" "> SUBNET UP$" 1 60

# (a) Per source and per pair: the same SLs, pairs and verdict.
shim table --sa table --json
ok table
expect table.out '"sa_mode": "table",'
expect table.out '"sa_queries": 64,'
expect table.out '"pairs": 4032,'
expect table.out '"sa_pairs": 4032,'
expect table.out '"no_path_pairs": 0,'
expect table.out '"ok": true'
tr -d ' \n' <"$WORK/table.out" | grep -q '"path_sls":\[0,[1-9]' ||
	t_fail "table: not several path SLs"
shim pair --sa pair --json
ok pair
expect pair.out '"sa_mode": "pair",'
expect pair.out '"sa_queries": 4032,'
same table >"$WORK/table.same"
same pair >"$WORK/pair.same"
cmp -s "$WORK/table.same" "$WORK/pair.same" ||
	t_fail "table and pair differ: $(diff "$WORK/table.same" "$WORK/pair.same" | head -5 | tr '\n' '|')"
t_log "GetTable and Get agree: $(grep '"sa_seconds"' "$WORK/table.out" "$WORK/pair.out" | tr -d ' ,' | tr '\n' ' ')"
# The 64 answers in compact segments, fewer than full ones; asked for
# full segments, as many as that and the same report.
set -- $(segs table)
[ "${1:-0}" -eq 64 ] && [ "$2" -lt "$3" ] ||
	t_fail "table: not 64 answers in compact segments: $(cat "$WORK/table.stats")"
COMPACT=0 shim full --sa table --json
ok full
set -- $(segs full)
[ "${1:-0}" -eq 64 ] && [ "$2" -eq "$3" ] ||
	t_fail "full: not 64 answers in full segments: $(cat "$WORK/full.stats")"
same full >"$WORK/full.same"
cmp -s "$WORK/table.same" "$WORK/full.same" ||
	t_fail "compact and full segments differ: $(diff "$WORK/table.same" "$WORK/full.same" | head -5 | tr '\n' '|')"
t_log "64 GetTable answers in $(segs table | cut -d' ' -f2) compact segments, $(segs full | cut -d' ' -f2) full ones"

# (b) auto takes the GetTables; without RMPP on our side they come cut.
shim auto
ok auto
expect auto.out "^path SLs .*: 64 PathRecord GetTables .* for 4032 of 4032 pairs, SLs 0,[1-9].*, 0 pairs without a path$"
run cut "$UMAD2SIM" --sa table
[ "$RC" -eq 2 ] || t_fail "cut: exit $RC, not 2: $(tail -3 "$WORK/cut.err")"
expect cut.err "GetTable answer for LID [0-9]* came cut at one MAD"

# (c) A sample: N pairs asked, no credit-loop verdict without every SL.
shim sample --sample 50
ok sample
expect sample.out "^path SLs .*: 50 PathRecord queries .* for 50 of 4032 pairs, .* 0 pairs without a path$"
expect sample.out "^credit loops: not checked$"
expect sample.out "^status *: ok$"
# Not on a terminal, no line before 5 s; a slow run may print later ones.
early=$(sed -n -e 's/^verify: .* (\([0-9]*\) s)$/\1/p' \
	-e 's/^verify: .*%), \([0-9]*\) s, about .*/\1/p' "$WORK/sample.err" |
	awk '$1 < 5' | head -1)
[ -z "$early" ] ||
	t_fail "sample: progress at $early s without --progress: $(head -2 "$WORK/sample.err")"

# (d) Progress on stderr when asked, and none with --no-progress.
shim prog --sample 50 --progress
ok prog
expect prog.err "^verify: discovering the fabric"
expect prog.err "^verify: reading LFTs and SL2VL tables"
expect prog.err "^verify: LFT blocks: 192 of 192 read (100%)"
expect prog.err "^verify: SL2VL tables: 3200 of 3200 read (100%)"
expect prog.err "^verify: asking the SA for path SLs"
expect prog.err "^verify: path SLs: 50 of 50 pairs (100%)"
expect prog.err "^verify: checking the routing"
grep -q "^verify: " "$WORK/prog.out" && t_fail "progress lines on stdout"
# auto's first GetTable counts among the sources, with no line of its own.
shim progauto --progress
ok progauto
expect progauto.err "^verify: path SLs: 64 of 64 sources (100%)"
! grep -q " of 1 sources" "$WORK/progauto.err" ||
	t_fail "progauto: a line for the first GetTable: $(grep ' of 1 sources' "$WORK/progauto.err")"
shim quiet --sample 50 --no-progress
ok quiet
! grep -q '^verify: ' "$WORK/quiet.err" ||
	t_fail "quiet: progress lines: $(head -2 "$WORK/quiet.err")"

# (e) SL 0 on VL 15: the SA has no path for any pair, its GetTables come
# empty (one MAD each), and every pair counts as without a PathRecord.
osm_stop
osm_start "$(osm_conf vl15 routing_engine minhop qos TRUE \
	qos_sl2vl 15,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15)"
wait_log "$WORK/vl15.log" "> SUBNET UP$" 1 60
shim vl15 --sa table
[ "$RC" -eq 1 ] || t_fail "vl15: exit $RC, not 1: $(tail -3 "$WORK/vl15.err")"
expect vl15.out "^path SLs .*: 64 PathRecord GetTables .* for 4032 of 4032 pairs, SLs none, 4032 pairs without a path$"
expect vl15.out "^status *: FAIL (.*pairs without a PathRecord)$"
# auto: the first GetTable comes empty, so every pair is asked by Get.
shim vl15auto
[ "$RC" -eq 1 ] || t_fail "vl15auto: exit $RC, not 1: $(tail -3 "$WORK/vl15auto.err")"
expect vl15auto.out "^path SLs .*: 4032 PathRecord queries .* for 4032 of 4032 pairs, SLs none, 4032 pairs without a path$"
t_log "table, pair, auto, cut, sample, progress and empty tables checked"
