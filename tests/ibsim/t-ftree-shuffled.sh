#!/bin/sh
# SPDX-License-Identifier: MIT
# Balance does not follow discovery order: a 3-level tree whose switch
# GUIDs are dealt out at random and whose switches are listed in a
# random order (OpenSM numbers nodes and LIDs by GUID) is routed by the
# plugin in a real OpenSM under ibsim; the LFTs in the switches are the
# dumped ones, and every level of the all-to-all is balanced (max/mean
# 1.000), as on the same tree with its generated GUIDs.
set -eu
. "$(dirname "$0")/lib.sh"
t_init ftree-shuffled
t_need "$BDIR/ibtopogen" "$BDIR/ibpoolroute"

# shuffle_net IN OUT SEED: the switch GUIDs permuted among the switches
# and the node blocks in a random order; cabling, names and CAs kept.
shuffle_net() {
	perl -e '
		my ($in, $out, $seed) = @ARGV;
		srand($seed);
		local $/ = "";
		open(my $f, "<", $in) or die "$in: $!";
		my @b = <$f>;
		my @sw = grep { /^switchguid=/m } @b;
		my @ca = grep { !/^switchguid=/m } @b;
		my @g = map { /^(switchguid=\S+)/m; $1 } @sw;
		for (my $i = @g - 1; $i > 0; $i--) {
			my $j = int(rand($i + 1));
			@g[$i, $j] = @g[$j, $i];
		}
		s/^switchguid=\S+/shift @g/me for @sw;
		my @all = (@sw, @ca);
		for (my $i = @all - 1; $i > 0; $i--) {
			my $j = int(rand($i + 1));
			@all[$i, $j] = @all[$j, $i];
		}
		open(my $o, ">", $out) or die "$out: $!";
		print $o map { /\n\n\z/ ? $_ : "$_\n" } @all;
	' "$@"
}

"$BDIR/ibtopogen" fattree --levels 3 --hosts-per-leaf 6 --down 6,6 \
	--up 6,6 -o "$WORK/tree.net"
shuffle_net "$WORK/tree.net" "$WORK/shuffled.net" 15
cmp -s "$WORK/tree.net" "$WORK/shuffled.net" && t_fail "nothing shuffled"
# The SM on a host of the first leaf, as on the generated file.
sim_start "$WORK/shuffled.net" "$(first_ca "$WORK/tree.net")"
plugin_ini "$WORK/plugin.ini" '[log]' 'verbosity = normal'
conf=$(engine_conf gpuaware gpuaware "$WORK/plugin.ini")
osm_once "$conf"
log_has "$WORK/gpuaware.log" "$PLUGIN_LINE" 1 || t_fail "no plugin routing"
d=$WORK/gpuaware.dump
check_pushed "$d"
check_analyze "$d"
"$BDIR/ibpoolroute" analyze --json --perms 0 "$d" >"$d/analyze.json"
level=$(json "$d/analyze.json" '$r->{efi_level_ratio}')
loops=$(json "$d/analyze.json" '$r->{credit_loops} ? 1 : 0')
[ "$loops" = 0 ] || t_fail "credit loop"
awk -v l="$level" 'BEGIN { exit !(l <= 1.0005) }' ||
	t_fail "shuffled GUIDs: worst level max/mean $level, not 1.000"
t_log "shuffled GUIDs and node order: per level $level, LFTs in the switches"
