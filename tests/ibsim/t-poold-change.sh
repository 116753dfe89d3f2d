#!/bin/sh
# SPDX-License-Identifier: MIT
# ibpoold's live view under change: ibsim's ft2-tiny routed with LMC 1
# by OpenSM with the plugin, the daemon reading it and asking the
# plugin's state.  h01's leaf is full, so its next GPUs are behind one
# of leaf-1's two up-links.  (b) PortXmitData kept rising (PerformanceSet)
# on one up-link, then on the other, makes allocations avoid each in
# turn.  (a) Up-link leaf-1[5] and h16's cable unlinked: the daemon
# discovers again (15 CAs, h16's HCA missing, h16's GPUs without a
# path), and new allocations' hops are the switches' new LFTs, read back
# from them.
set -eu
. "$(dirname "$0")/lib.sh"
t_init poold-change
t_need "$BDIR/ibpoold" "$BDIR/ibpoolroute"
cd "$WORK"

plugin_ini "$WORK/gpuaware.conf" '[routing]' 'engine = auto'
sim_start "$CONFIGS/ft2-tiny.net"
osm_up ga opensm-gpuaware.conf lmc 1 sweep_interval 1
no_errors "$WORK/ga.log"

poold_live 300

# alloc NAME ARGS...: an allocation into $WORK/NAME; prints its id.
alloc() {
	local name=$1
	shift
	pr alloc --json "$@" >"$WORK/$name" ||
		t_fail "alloc $*: $(cat "$WORK/$name")"
	json "$WORK/$name" '$r->{id}'
}

# first_hop FILE: the first hop of the first GPU's path.
first_hop() { json "$1" '$r->{gpus}[0]{path}[0]'; }

# lfts_match FILE: every hop of every GPU's path in the allocation FILE
# is what the LFTs OpenSM dumped (read back from the switches by
# check_pushed first) say for its DLID.  Prints "ok" or the first
# mismatch.
lfts_match() {
	lfts_pairs "$WORK/ga.dump/opensm-lfts.dump" >"$WORK/lft.pairs"
	perl -MJSON::PP -e '
		my ($pairs, $file) = @ARGV;
		my %lft;
		open(my $p, "<", $pairs) or die;
		while (<$p>) {
			my ($g, $l, $port) = split;
			$lft{hex($g) . ":" . hex($l)} = $port;
		}
		local $/; open(my $f, "<", $file) or die;
		my $r = decode_json(<$f>);
		for my $gp (@{$r->{gpus}}) {
			my $hops = $gp->{path} or do { print "no path\n"; exit };
			for my $h (@$hops) {
				my ($g, $port) = split /:/, $h;
				my $want = $lft{hex($g) . ":" . $gp->{dlid}};
				next if defined $want && $want == $port;
				print "$h for DLID $gp->{dlid}: the LFT says ",
					$want // "nothing", "\n";
				exit;
			}
		}
		print "ok\n";' "$WORK/lft.pairs" "$1"
}

# h01's leaf full (h01..h04), so h01's next GPUs are behind one of
# leaf-1's up-links, port 5 (to spine-1) or 6 (to spine-2).
LEAF1=0x0002c90300000201
alloc leaf --client h01 --gpus 16 >/dev/null
alloc base --client h01 --gpus 4 >"$WORK/base.id"
case $(first_hop "$WORK/base") in
$LEAF1:[56]) ;;
*) t_fail "h01's path leaves leaf-1 by $(first_hop "$WORK/base"), not an up-link" ;;
esac
check_pushed "$WORK/ga.dump"
[ "$(lfts_match "$WORK/base")" = ok ] ||
	t_fail "intact: $(lfts_match "$WORK/base")"
pr release "$(cat "$WORK/base.id")" >/dev/null

# (b) One up-link busy, then the other, as traffic would make them, by a
# loop in the background every 0.1 s: the first sends (PortXmitData up
# by 1 TB in 4-byte words), the second stalls (PortXmitWait up by 2e7
# ticks; the 32-bit counter lasts 20 s at that rate).  Unloaded, ibsim's
# links carry only MADs, whose counts break the ties: each up-link in
# turn must be avoided, three allocations in a row (each released again).
busy_start() {
	(
		n=0
		while :; do
			n=$((n + 1))
			if [ "$1" = 5 ]; then
				sim_cmd "PerformanceSet \"leaf-1\"[$1] PortCountersExtended.PortXmitData=$((n * 250000000000))"
			else
				sim_cmd "PerformanceSet \"leaf-1\"[$1] PortCounters.PortXmitWait=$((n * 20000000))"
			fi
			sleep 0.1
		done
	) &
	BUSY=$!
	T_PIDS="$T_PIDS $BUSY"
}
avoids() {
	local id
	id=$(alloc busy --client h01 --gpus 4)
	pr release "$id" >/dev/null
	case $(first_hop "$WORK/busy") in
	$LEAF1:$1) return 1 ;;
	$LEAF1:[56]) ;;
	*) t_fail "busy: h01's path leaves by $(first_hop "$WORK/busy")" ;;
	esac
	[ "$(lfts_match "$WORK/busy")" = ok ] ||
		t_fail "busy: $(lfts_match "$WORK/busy")"
}
for port in 5 6; do
	busy_start $port
	poll 20 avoids $port ||
		t_fail "busy $LEAF1:$port still taken"
	for i in 1 2 3; do
		avoids $port || t_fail "busy $LEAF1:$port taken again ($i)"
	done
	stop_pid "$BUSY"
	t_log "(b) $LEAF1:$port busy: allocations leave by $(first_hop "$WORK/busy")"
done

# (a) The up-link and h16's cable unlinked.  Before: leaf-4's GPUs for
# h13, h16's among them.
alloc h16 --client h13 --gpus 16 >"$WORK/h16.id"
[ "$(json "$WORK/h16" 'scalar grep { $_->{host} eq "h16" } @{$r->{gpus}}')" = 4 ] ||
	t_fail "h16's allocation has not h16's 4 GPUs"
sim_cmd "Unlink \"leaf-1\"[5]"
sim_cmd 'Unlink "h16"'
wait_log "$WORK/ga.log" "gpuaware: topology fat-tree, engine fattree: 6 switches, 15 CAs, 7 switch links" 1 60
st() {
	pr pool --json >"$WORK/st" 2>/dev/null &&
		[ "$(json "$WORK/st" '$r->{fabric}{cas}')" = 15 ] &&
		[ "$(json "$WORK/st" '$r->{fabric}{hcas_missing}')" = 1 ]
}
poll 20 st || t_fail "the daemon's view did not change: $(cat "$WORK/st")"
pr allocs --json >"$WORK/list"
[ "$(json "$WORK/list" 'my ($a) = grep { $_->{id} eq "'"$(cat "$WORK/h16.id")"'" } @{$r->{allocs}};
	join " ", map { defined $_->{path} ? "path" : "$_->{host}-null" } @{$a->{gpus}}')" = \
	"path path path path path path path path path path path path h16-null h16-null h16-null h16-null" ] ||
	t_fail "h16's GPUs keep a path, or the others lost theirs: $(cat "$WORK/list")"
# OpenSM may sweep once per unlink: the paths must come to match the
# LFTs in the switches once both are in.
new_paths() {
	local id
	check_pushed "$WORK/ga.dump"
	id=$(alloc cut --client h01 --gpus 4)
	pr release "$id" >/dev/null
	[ "$(lfts_match "$WORK/cut")" = ok ]
}
poll 20 new_paths || t_fail "cut: $(lfts_match "$WORK/cut")"
[ "$(first_hop "$WORK/cut")" = "$LEAF1:6" ] ||
	t_fail "cut: the path leaves by $(first_hop "$WORK/cut"), not $LEAF1:6"
! grep -q "counters:" "$WORK/poold.err" ||
	t_fail "counter sweeps failed: $(grep counters: "$WORK/poold.err" | tail -1)"
t_log "(a) without $LEAF1:5 and h16: $(grep -c 'fabric refreshed' "$WORK/poold.err") refreshes, paths by $(first_hop "$WORK/cut") as the LFTs say"
kill "$PD"
wait "$PD" || t_fail "ibpoold exit $?: $(tail -3 "$WORK/poold.err")"
