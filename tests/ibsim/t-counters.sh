#!/bin/sh
# SPDX-License-Identifier: MIT
# ibpoolroute counters on ibsim's ft2-tiny: counters raised with the
# console's PerformanceSet between the two samples put exactly that link
# on top with the rate they imply; a saturated 32-bit PortXmitWait is
# flagged; a switch cut off between the samples is reported (status 1),
# its links gone, not a failure of the whole sweep.  map --load counters
# draws the same: that link busiest, the picture rendered.  --top N shows
# the N busiest.
set -eu
. "$(dirname "$0")/lib.sh"
t_init counters
t_need "$BDIR/ibpoolroute"
cd "$WORK"

# run_counters NAME [map] ARGS...: ibpoolroute counters (or map) in the
# background, output in NAME.out and NAME.err; returns once the first
# sample is taken.
run_counters() {
	local name="$1" cmd=counters
	shift
	if [ "$1" = map ]; then
		cmd=map
		shift
	fi
	client_env "$BDIR/ibpoolroute" $cmd "$@" >"$WORK/$name.out" \
		2>"$WORK/$name.err" &
	CPID=$!
	T_PIDS="$T_PIDS $CPID"
	poll 20 grep -q "^ibpoolroute: sampled [0-9]* links" "$WORK/$name.err" ||
		t_fail "$name: no first sample: $(tail -3 "$WORK/$name.err")"
}

# finish NAME: the exit status of the run_counters in RC.
finish() {
	RC=0
	wait "$CPID" || RC=$?
	[ "$RC" -le 1 ] || t_fail "$1: exit $RC: $(tail -3 "$WORK/$1.err")"
}

# link N FILE: "guid port peer_guid peer_port data_bytes xmit_wait
# seconds bytes_per_s xmit_wait_per_s flags" of the Nth link of a --json
# report (json-c prints one key per line).
link() {
	awk -v want="$1" '
	/"links": \[/ { in_links = 1; next }
	!in_links { next }
	/^ *\{ *$/ { k++; next }
	k != want { next }
	/"flags": \[/ { fl = 1; v["flags"] = ""; next }
	fl && /\]/ { fl = 0; if (v["flags"] == "") v["flags"] = "-"; next }
	fl { gsub(/[ ",]/, ""); v["flags"] = v["flags"] $0 " "; next }
	/^ *"[a-z_]*": / {
		key = $1; gsub(/[":]/, "", key)
		val = $2; gsub(/[",]/, "", val)
		v[key] = val
	}
	END {
		print v["guid"], v["port"], v["peer_guid"], v["peer_port"],
			v["data_bytes"], v["xmit_wait"], v["seconds"],
			v["bytes_per_s"], v["xmit_wait_per_s"], v["flags"]
	}' "$2"
}

sim_start "$CONFIGS/ft2-tiny.net"
# Any engine: the SM only has to hand out LIDs for the PMAs' addresses.
osm_once "$(osm_conf minhop routing_engine minhop)"

LEAF2=0x0002c90300000202
SPINE1=0x0002c90300000101
LEAF3=0x0002c90300000203
WAIT=3000000		# PortXmitWait ticks
DATA=250000000000	# PortXmitData words: 1 TB

# (a) leaf-2 port 5 (to spine-1 port 2) gets data and waits; leaf-3
# port 6 a PortXmitWait stuck at its 32-bit maximum.
run_counters raise --json --interval 2000
sim_cmd "PerformanceSet \"leaf-2\"[5] PortCounters.PortXmitWait=$WAIT"
sim_cmd "PerformanceSet \"leaf-2\"[5] PortCountersExtended.PortXmitData=$DATA"
sim_cmd "PerformanceSet \"leaf-3\"[6] PortCounters.PortXmitWait=4294967295"
finish raise
[ "$RC" -eq 0 ] || t_fail "raise: exit $RC"
! grep -q '"error":' "$WORK/raise.out" ||
	t_fail "raise: a switch did not answer: $(grep -A3 not_answering "$WORK/raise.out")"
[ "$(grep -c '"guid":' "$WORK/raise.out")" -eq 32 ] ||
	t_fail "raise: not the 32 switch ports of ft2-tiny"
set -- $(link 1 "$WORK/raise.out")
[ "$1:$2 $3:$4" = "$LEAF2:5 $SPINE1:2" ] ||
	t_fail "raise: top link is $1:$2 -> $3:$4, not leaf-2:5 -> spine-1:2"
[ "$6" -eq "$WAIT" ] || t_fail "raise: xmit_wait $6, not $WAIT"
[ "${10}" = "-" ] || t_fail "raise: top link flagged ${10}"
# Data: the words set, less the few MADs the port sent before, in bytes.
awk -v d="$5" -v w="$DATA" 'BEGIN { exit !(d <= 4 * w && d > 4 * w - 4e6) }' ||
	t_fail "raise: data_bytes $5, not about 4 x $DATA"
# Rates over the 2 s (plus a sweep) between this link's two reads.
awk -v s="$7" -v b="$8" -v r="$9" -v d="$5" -v w="$WAIT" 'BEGIN {
	exit !(s >= 2 && s < 2.5 && b > 0.999 * d / s && b < 1.001 * d / s &&
	       r > 0.999 * w / s && r < 1.001 * w / s) }' ||
	t_fail "raise: rates $8 B/s and $9 ticks/s over $7 s do not fit"
top="$(printf '%.0f' "$8") B/s, $(printf '%.0f' "$9") xmit-wait/s over $7 s"
# Its share of the link rate: ft2-tiny's links are 4x SDR, 10 Gb/s.
grep -q '"link_bytes_per_s": 1250000000' "$WORK/raise.out" ||
	t_fail "raise: link rate $(grep -m1 link_bytes_per_s "$WORK/raise.out")"
awk -v b="$8" '/"share_of_link"/ { gsub(/,/, "", $2); s = $2; exit }
	END { exit !(s > 0.999 * b / 1.25e9 && s < 1.001 * b / 1.25e9) }' \
	"$WORK/raise.out" || t_fail "raise: share of the link rate not $8 / 1.25e9"
[ "$(grep -c '"xmit_wait": [1-9]' "$WORK/raise.out")" -eq 2 ] ||
	t_fail "raise: xmit-wait on other links than the two set"
set -- $(link 2 "$WORK/raise.out")
awk -v b="$8" 'BEGIN { exit !(b < 1e6) }' ||
	t_fail "raise: second link $1:$2 carries $8 B/s"
grep -B12 '"saturated"' "$WORK/raise.out" | grep -q "\"guid\": \"$LEAF3\"" ||
	t_fail "raise: leaf-3's saturated PortXmitWait not flagged"
t_log "top link leaf-2:5 -> spine-1:2: $top; $(grep -o '"queries": [0-9]*' "$WORK/raise.out"), $(grep -o '"sweep_s": [0-9.]*' "$WORK/raise.out")"

# (a') the same, drawn: more data on leaf-2 port 5, busiest in the map.
run_counters map map --load counters --interval 1000 -o "$WORK/now.svg"
sim_cmd "PerformanceSet \"leaf-2\"[5] PortCountersExtended.PortXmitData=$((2 * DATA))"
finish map
[ "$RC" -eq 0 ] || t_fail "map: exit $RC"
grep -q 'busiest link leaf-2 port 5 → spine-1: ' "$WORK/now.svg" ||
	t_fail "map: busiest is not leaf-2:5: $(grep -o 'busiest link [^<]*' "$WORK/now.svg")"
[ "$(grep -c 'class="switch"' "$WORK/now.svg")" -eq 6 ] ||
	t_fail "map: not ft2-tiny's 6 switches"
# that direction's own line carries the largest load of all
top=$(grep -o 'data-load="[^"]*"' "$WORK/now.svg" | tr -dc '0-9.\n' | sort -g | tail -1)
grep -q "class=\"link\" data-load=\"$top\" data-links=\"1\"><line[^>]*/><title>leaf-2 → spine-1: " \
	"$WORK/now.svg" || t_fail "map: leaf-2 -> spine-1's line is not the busiest ($top)"
# hosts: the switch ports facing them are measured (their own are not)
! grep -q 'receives not known' "$WORK/now.svg" ||
	t_fail "map: a host's incoming traffic not known"
rsvg-convert -o "$WORK/now.png" "$WORK/now.svg" && [ -s "$WORK/now.png" ] ||
	t_fail "map: the SVG does not render"
t_log "map --load counters: $(grep -o 'busiest link [^<]*' "$WORK/now.svg")"

# (b) spine-2 unplugged between the samples: its PMA does not answer.
run_counters cut --interval 500
sim_cmd 'Unlink "spine-2"'
finish cut
[ "$RC" -eq 1 ] || t_fail "cut: exit $RC, not 1"
grep -q "^fabric      : 6 switches, 16 CAs, discovered in" "$WORK/cut.out" ||
	t_fail "cut: not ft2-tiny's 6 switches and 16 CAs"
grep -q "^not answering: 0x0002c90300000102 'spine-2' (second sample): " "$WORK/cut.out" ||
	t_fail "cut: spine-2 not reported: $(grep '^not answering' "$WORK/cut.out")"
[ "$(grep -c ' gone  *spine-2 port [0-9]* -> leaf-[0-9]* port [0-9]*$' "$WORK/cut.out")" -eq 4 ] ||
	t_fail "cut: spine-2's 4 links not gone"
[ "$(grep -c '^ *[0-9]*  0x' "$WORK/cut.out")" -eq 32 ] ||
	t_fail "cut: not every link listed"
grep -q '^   1  0x.* -  ' "$WORK/cut.out" ||
	t_fail "cut: the top link has no rate"
t_log "spine-2 cut off: reported, exit 1; $(grep '^sweep' "$WORK/cut.out")"

# (c) --top: the 3 busiest of the links left, as text; 2 in JSON, which
# still counts them all.
run_counters top --top 3 --interval 100
finish top
m=$(sed -n 's/^shown       : 3 busiest of \([0-9]*\) links$/\1/p' "$WORK/top.out")
[ -n "$m" ] && [ "$m" -gt 3 ] ||
	t_fail "top: no 'shown: 3 busiest of M links' with M > 3: $(grep '^shown' "$WORK/top.out")"
[ "$(grep -c '^ *[0-9]*  0x' "$WORK/top.out")" -eq 3 ] ||
	t_fail "top: not 3 links listed"
# Units in the header; each row's share is its data over its link rate.
grep -q '^rank  from  *to  *data Gb/s link Gb/s  of link wait ticks/s  flags  names$' \
	"$WORK/top.out" || t_fail "top: header $(grep '^rank' "$WORK/top.out")"
awk '/^ *[0-9]+  0x/ { n++; if ($5 != 10 || ($6 - $4 / $5) ^ 2 > 1e-6 ||
	$NF !~ /^[0-9]+$/) bad++ } END { exit !(n == 3 && !bad) }' \
	"$WORK/top.out" || t_fail "top: rows: $(grep '^ *[0-9]*  0x' "$WORK/top.out")"
run_counters topj --top 2 --json --interval 100
finish topj
grep -q "\"link_count\": $m," "$WORK/topj.out" ||
	t_fail "topj: link_count is not $m: $(grep link_count "$WORK/topj.out")"
[ "$(grep -c '"peer_guid":' "$WORK/topj.out")" -eq 2 ] ||
	t_fail "topj: not 2 links in the JSON"
t_log "--top: 3 (text) and 2 (JSON) of $m links"
sim_stop
