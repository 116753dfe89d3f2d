#!/bin/sh
# SPDX-License-Identifier: MIT
# ibpoold's LFT check without the plugin: ibsim's ft2-tiny routed by
# OpenSM's ftree, the daemon with lft_check_s = 1.  Unchanged LFTs make
# no new view; OpenSM restarted with dor on the same fabric (no link
# comes or goes, the LIDs stay in OSM_CACHE_DIR) routes anew, and the
# daemon notices it by the LFTs alone: its allocations' paths, some
# across the spines (ftree spreads leaf-1's up-links, dor takes the
# first), become the walks of dor's LFTs, read back from the switches.
set -eu
. "$(dirname "$0")/lib.sh"
t_init poold-lftcheck
t_need "$BDIR/ibpoold" "$BDIR/ibpoolroute"
cd "$WORK"
NET=$CONFIGS/ft2-tiny.net
MSG="fabric refreshed (LFTs changed)"

sim_start "$NET"
osm_start "$(osm_conf ft routing_engine ftree)"
wait_log "$WORK/ft.log" "> SUBNET UP$" 1 60
poold_live 300 "lft_check_s = 1"
fill_leaf1
poold_alloc a --client h01 --gpus 4 >/dev/null
poold_alloc b --client h01 --gpus 4 >/dev/null
pr allocs --json >"$WORK/l1"
check_pushed "$WORK/ft.dump"
[ "$(lft_walk "$NET" "$WORK/ft.dump/opensm-lfts.dump" "$WORK/l1")" = ok ] ||
	t_fail "ftree: $(lft_walk "$NET" "$WORK/ft.dump/opensm-lfts.dump" "$WORK/l1")"
# Three checks of unchanged LFTs: no refresh.
sleep 3
! grep -q "fabric refreshed" "$WORK/poold.err" ||
	t_fail "refreshed with nothing changed: $(grep 'fabric refreshed' "$WORK/poold.err")"

osm_stop
osm_start "$(osm_conf dor routing_engine dor)"
wait_log "$WORK/dor.log" "> SUBNET UP$" 1 60
grep -q "building routing with 'dor'" "$WORK/dor.log" ||
	t_fail "OpenSM did not route with dor"
check_pushed "$WORK/dor.dump"
lfts_pairs "$WORK/ft.dump/opensm-lfts.dump" >"$WORK/ft.pairs"
lfts_pairs "$WORK/dor.dump/opensm-lfts.dump" >"$WORK/dor.pairs"
! cmp -s "$WORK/ft.pairs" "$WORK/dor.pairs" || t_fail "dor routed as ftree"
# The test's own check: some path crosses a changed entry.
[ "$(lft_walk "$NET" "$WORK/dor.dump/opensm-lfts.dump" "$WORK/l1")" != ok ] ||
	t_fail "no allocation's path changes with dor"
poll 10 grep -q "$MSG" "$WORK/poold.err" ||
	t_fail "no '$MSG': $(tail -3 "$WORK/poold.err")"
# The existing allocations' paths follow the new LFTs.
walked() {
	pr allocs --json >"$WORK/l2" &&
		[ "$(lft_walk "$NET" "$WORK/dor.dump/opensm-lfts.dump" "$WORK/l2")" = ok ]
}
poll 10 walked ||
	t_fail "dor: $(lft_walk "$NET" "$WORK/dor.dump/opensm-lfts.dump" "$WORK/l2")"
t_log "dor's LFTs noticed ($(grep -c "$MSG" "$WORK/poold.err") refresh), paths = the new walks"
kill "$PD"
wait "$PD" || t_fail "ibpoold exit $?: $(tail -3 "$WORK/poold.err")"
