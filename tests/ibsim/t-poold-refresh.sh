#!/bin/sh
# SPDX-License-Identifier: MIT
# ibpoold's fabric refresh, reroute after reroute (issue 24's fault run:
# from about the fifth, discovery failed for good while `pool` said
# nothing).  OpenSM with the plugin routes ft2-tiny again for each job
# the relay sends; each time the daemon discovers the fabric anew.  Our
# MAD port's agents are unregistered before it closes, so umad2sim's
# 32 agent slots (it frees one per closed file) last past ten refreshes;
# ibnetdisc's own ports still leak two a discovery there, so a refresh
# may fail later on: then `pool` (JSON and text), the metrics and the
# log say since when the view is kept and why.
set -eu
. "$(dirname "$0")/lib.sh"
t_init poold-refresh
t_need "$BDIR/ibpoold" "$BDIR/ibpoolroute"
cd "$WORK"

plugin_ini "$WORK/gpuaware.conf" '[routing]' 'engine = auto'
sim_start "$CONFIGS/ft2-tiny.net"
osm_up ga opensm-gpuaware.conf sweep_interval 1
poold_live 200

refreshes() { count_lines "$WORK/poold.err" 'fabric refresh'; }
pr pool --json >"$WORK/st0" || t_fail "pool: $(cat "$WORK/st0")"
[ "$(json "$WORK/st0" '$r->{fabric}{refresh_failures}')" = 0 ] &&
	[ -n "$(json "$WORK/st0" '$r->{fabric}{view_at}')" ] ||
	t_fail "no view age in pool: $(cat "$WORK/st0")"

# Each job start is a reroute, and a refresh of the daemon's view.
i=0
ok=0
while [ $i -lt 16 ]; do
	i=$((i + 1))
	n=$(refreshes)
	pr jobs --start "j$i" --hosts "h0$((i % 8 + 1)),h1$((i % 6))" \
		>/dev/null || t_fail "job j$i"
	poll 30 log_has "$WORK/poold.err" 'fabric refresh' $((n + 1)) ||
		t_fail "no refresh after job j$i"
	if log_has "$WORK/poold.err" 'fabric refresh (.*failed' 1; then
		break
	fi
	ok=$((ok + 1))
done
[ $ok -ge 10 ] ||
	t_fail "only $ok refreshes before one failed: $(grep 'fabric refresh (' "$WORK/poold.err" | tail -1)"
t_log "$ok refreshes worked"

if [ $ok -lt 16 ]; then
	# umad2sim ran out of agent slots (ibnetdisc's ports): said
	# everywhere, with the kept view's time.
	grep 'fabric refresh (' "$WORK/poold.err" | tail -1 >"$WORK/fail"
	grep -q "; keeping the view of 20[0-9-]*T[0-9:]*Z, [0-9]* s old, 1 refresh failed in a row" \
		"$WORK/fail" || t_fail "log line: $(cat "$WORK/fail")"
	pr pool --json >"$WORK/st" || t_fail "pool: $(cat "$WORK/st")"
	[ "$(json "$WORK/st" '$r->{fabric}{refresh_failures} >= 1 && $r->{fabric}{refresh_error} ne "" && $r->{fabric}{refresh_error_at} =~ /Z$/ ? 1 : 0')" = 1 ] ||
		t_fail "pool --json: $(cat "$WORK/st")"
	pr pool >"$WORK/text"
	grep -q "^Refresh failing: [0-9]* in a row, the last at .*Z: " \
		"$WORK/text" || t_fail "pool: $(cat "$WORK/text")"
	t_log "then: $(grep '^Refresh failing' "$WORK/text")"
fi
pr pool >"$WORK/text"
grep -q "^View: discovered 20.*Z, [0-9]* s ago$" "$WORK/text" ||
	t_fail "pool text: $(cat "$WORK/text")"
kill "$PD"
wait "$PD" || t_fail "ibpoold exit $?: $(tail -3 "$WORK/poold.err")"
t_log "pool: $(grep '^View' "$WORK/text")"
