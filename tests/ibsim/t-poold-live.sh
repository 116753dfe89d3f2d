#!/bin/sh
# SPDX-License-Identifier: MIT
# ibpoold on the live fabric: ibsim's ft2-tiny routed by a resident
# OpenSM with LMC 1; the daemon discovers it, reads the LFTs, and an
# allocation's GPUs get a DLID per port (the daemon's walk of the LFTs it
# read delivers each to its port), a switch path, and the SL, MTU and
# rate of an SA PathRecord; counter sweeps run without errors.
set -eu
. "$(dirname "$0")/lib.sh"
t_init poold-live
t_need "$BDIR/ibpoold"
t_need "$BDIR/ibpoolroute"
cd "$WORK"

sim_start "$CONFIGS/ft2-tiny.net"
conf=$(osm_conf live routing_engine minhop lmc 1)
osm_start "$conf"
wait_log "$WORK/live.log" "> SUBNET UP$" 1 30

poold_live 500
R="$BDIR/ibpoolroute"

"$R" pool --socket "$WORK/pool.sock" --json >"$WORK/st"
case "$(json "$WORK/st" '$r->{fabric}{source}')" in
live*) ;;
*) t_fail "not the live source: $(json "$WORK/st" '$r->{fabric}{source}')" ;;
esac
[ "$(json "$WORK/st" '$r->{fabric}{hcas_missing}')" = 0 ] ||
	t_fail "configured HCAs missing from the discovered fabric"
[ "$(json "$WORK/st" '$r->{fabric}{lmc}')" = 1 ] || t_fail "LMC is not 1"

# 8 GPUs: h01's 4 and another host's, across the fabric.
"$R" alloc --socket "$WORK/pool.sock" --client h01 --gpus 8 --json \
	>"$WORK/a1" || t_fail "alloc: $(cat "$WORK/a1")"
gpus() {
	json "$1" 'my @g = $r->{allocs} ? @{$r->{allocs}[0]{gpus}} : @{$r->{gpus}};
		join "\n", map { "$_->{host} $_->{dlid} " . scalar(@{$_->{path}}) .
		" " . ($_->{sl} // "null") . " $_->{mtu} $_->{rate}" } @g' >"$WORK/gpus"
}
gpus "$WORK/a1"
# The SL is null when a counter sweep held the MAD port: ask again.
i=0
while grep -q ' null ' "$WORK/gpus" && [ $i -lt 20 ]; do
	sleep 0.2
	"$R" allocs --socket "$WORK/pool.sock" --json >"$WORK/l1"
	gpus "$WORK/l1"
	i=$((i + 1))
done
while read -r host dlid hops sl mtu rate; do
	[ "$dlid" -gt 0 ] || t_fail "$host: DLID $dlid"
	[ "$host" = h01 ] || [ "$hops" -ge 1 ] || t_fail "$host: no switch path"
	[ "$mtu" -ge 256 ] || t_fail "$host: MTU $mtu"
	[ "$sl" = 0 ] || t_fail "$host: SL $sl from minhop"
	awk -v r="$rate" 'BEGIN { exit !(r > 0) }' || t_fail "$host: rate $rate"
done <"$WORK/gpus"
# h01 and the other host: other ports, so other LIDs.
[ "$(cut -d' ' -f2 "$WORK/gpus" | sort -u | wc -l)" -eq 2 ] ||
	t_fail "not one DLID per host: $(cut -d' ' -f1,2 "$WORK/gpus" | sort -u)"
"$R" release --socket "$WORK/pool.sock" 1 >/dev/null || t_fail "release"
# A few telemetry rounds (counters, the plugin asked) leave it serving.
sleep 1.5
poold_up || t_fail "ibpoold stopped serving: $(tail -3 "$WORK/poold.err")"
! grep -q "counters:" "$WORK/poold.err" ||
	t_fail "counter sweeps failed: $(grep counters: "$WORK/poold.err" | tail -1)"
kill "$PD"
wait "$PD" || t_fail "ibpoold exit $?: $(tail -3 "$WORK/poold.err")"
t_log "ok: $(wc -l <"$WORK/gpus") GPUs with live DLIDs and path records"
