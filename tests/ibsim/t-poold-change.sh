#!/bin/sh
# SPDX-License-Identifier: MIT
# ibpoold's live view under change: ibsim's ft2-tiny routed with LMC 1
# by OpenSM with the plugin, the daemon reading it and asking the
# plugin's state.  h01's leaf is full, so its next GPUs are behind one
# of leaf-1's two up-links.  Up-link leaf-1[5] and h16's cable unlinked:
# the daemon discovers again (15 CAs, h16's HCA missing, h16's
# allocation replaced elsewhere), and new allocations' hops are the walk of the
# switches' new LFTs, read back from them.  (Busy links and the rest:
# poold-suite.sh.)
set -eu
. "$(dirname "$0")/lib.sh"
t_init poold-change
t_need "$BDIR/ibpoold" "$BDIR/ibpoolroute"
cd "$WORK"

plugin_ini "$WORK/gpuaware.conf" '[routing]' 'engine = auto'
NET=$CONFIGS/ft2-tiny.net
sim_start "$NET"
osm_up ga opensm-gpuaware.conf lmc 1 sweep_interval 1
no_errors "$WORK/ga.log"

poold_live 300

LEAF1=0x0002c90300000201
fill_leaf1

# The up-link and h16's cable unlinked.  Before: GPUs on h16, 4 at a
# time for h13 until one allocation has them (the measured loads pick
# the host).
n=0
until [ "$(poold_alloc h16 --client h13 --gpus 4 >/dev/null &&
	json "$WORK/h16" '$r->{gpus}[0]{host}')" = h16 ]; do
	n=$((n + 1))
	[ $n -lt 12 ] || t_fail "no allocation on h16 in 12"
done
sim_cmd "Unlink \"leaf-1\"[5]"
sim_cmd 'Unlink "h16"'
wait_log "$WORK/ga.log" "gpuaware: topology fat-tree, engine fattree: 6 switches, 15 CAs, 7 switch links" 1 60
st() {
	pr pool --json >"$WORK/st" 2>/dev/null &&
		[ "$(json "$WORK/st" '$r->{fabric}{cas}')" = 15 ] &&
		[ "$(json "$WORK/st" '$r->{fabric}{hcas_missing}')" = 1 ]
}
poll 20 st || t_fail "the daemon's view did not change: $(cat "$WORK/st")"
# h16 is gone with its only HCA: its allocation is lost and replaced on
# a host with room (ibpoold(8), continuity); the others keep their paths.
moved() {
	pr allocs --json >"$WORK/list" &&
		[ "$(json "$WORK/list" 'my %n; for my $g (map { @{$_->{gpus}} } @{$r->{allocs}}) {
			$n{($g->{host} eq "h16" ? "h16" : "other") . "-" .
			  (defined $g->{path} ? "path" : "null")}++ }
		join " ", map { "$_:$n{$_}" } sort keys %n')" = "other-path:$((16 + 4 * (n + 1)))" ]
}
poll 20 moved ||
	t_fail "h16's allocation not replaced, or the others lost their paths: $(cat "$WORK/list")"
# OpenSM may sweep once per unlink: the paths must come to match the
# LFTs in the switches once both are in.
new_paths() {
	local id
	check_pushed "$WORK/ga.dump"
	id=$(poold_alloc cut --client h01 --gpus 4)
	pr release "$id" >/dev/null
	[ "$(lft_walk "$NET" "$WORK/ga.dump/opensm-lfts.dump" "$WORK/cut")" = ok ]
}
poll 20 new_paths ||
	t_fail "cut: $(lft_walk "$NET" "$WORK/ga.dump/opensm-lfts.dump" "$WORK/cut")"
[ "$(first_hop "$WORK/cut")" = "$LEAF1:6" ] ||
	t_fail "cut: the path leaves by $(first_hop "$WORK/cut"), not $LEAF1:6"
! grep -q "counters:" "$WORK/poold.err" ||
	t_fail "counter sweeps failed: $(grep counters: "$WORK/poold.err" | tail -1)"
t_log "without $LEAF1:5 and h16: $(grep -c 'fabric refreshed' "$WORK/poold.err") refreshes, paths by $(first_hop "$WORK/cut") as the LFTs say"
kill "$PD"
wait "$PD" || t_fail "ibpoold exit $?: $(tail -3 "$WORK/poold.err")"
