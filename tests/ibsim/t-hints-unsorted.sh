#!/bin/bash
# SPDX-License-Identifier: MIT
# Job hints whose host lists are not grouped by leaf (a cloud names its
# nodes by serial number): NCCL's rings follow the list, not the leaves.
# On the LFTs read back from the switches, with the jobs' routing in
# them, no job is slower than on the routing without hints set just
# before: its ring and NCCL all-to-all within rounding, its pairwise
# all-to-all within 2 % under each of five alignments of the jobs' rounds.
set -eu
. "$(dirname "$0")/lib.sh"
t_init hints-unsorted
t_need "$BDIR/ibpoolroute" "$BDIR/ibtopogen"

NET=$CONFIGS/ft3-small.net
"$BDIR/ibtopogen" jobs --net "$NET" --jobs 4-6 --seed 5 -o "$WORK/raw.json"
# each job's hosts in a seeded random order, most neighbours on other leaves
perl -MJSON::PP -0777 -ne 'srand(27); my $t = decode_json($_);
	for my $j (@{$t->{jobs}}) { my @h = @{$j->{hosts}};
		for (my $i = $#h; $i > 0; $i--) { my $k = int(rand($i + 1));
			@h[$i, $k] = @h[$k, $i] }
		$j->{hosts} = \@h }
	print encode_json($t)' "$WORK/raw.json" >"$WORK/jobs.json"
plugin_ini "$WORK/gpuaware.conf" '[log]' 'verbosity = normal'
sim_start "$NET"
osm_up ga opensm-gpuaware.conf sweep_interval 2
no_errors "$WORK/ga.log"
poll 30 sm_state_has '"routed_generation":0' || t_fail "state: $(sm state --json)"

# sims TAG: the jobs' figures on the live LFTs, each pattern and seed
sims() {
	local s
	for s in 1 2 3 4 5; do
		(cd "$WORK" && client_env "$BDIR/ibpoolroute" simulate --perms 0 \
			--json --seed "$s" --jobs "$WORK/jobs.json" \
			>"$WORK/$1-$s.sim" 2>"$WORK/$1.err") ||
			t_fail "simulate ($1, seed $s): $(tail -2 "$WORK/$1.err")"
	done
}

sims without
sm hints set "$WORK/jobs.json" --wait --timeout 60000 >"$WORK/set.out" ||
	t_fail "hints set --wait: $(cat "$WORK/set.out")"
sm state >"$WORK/state.out"
grep -q "^job model    : jobs kept" "$WORK/state.out" ||
	t_fail "job routing not kept: $(cat "$WORK/state.out")"
sims with
no_errors "$WORK/ga.log"
out=$(perl -MJSON::PP -e 'my ($bad, %gain);
	for my $s (1 .. 5) {
		my @d = map { local $/; open my $f, "<", "$ARGV[0]/$_-$s.sim" or die;
			decode_json(<$f>) } qw(with without);
		for my $j (0 .. $#{$d[0]{jobs}}) {
			for my $p (qw(ring alltoall nccl-alltoall)) {
				my ($a, $b) = ($d[0]{jobs}[$j]{$p}[0], $d[1]{jobs}[$j]{$p}[0]);
				my $min = $p eq "alltoall" ? $b * 0.98 : $b - 1e-9;
				$bad .= " $d[0]{jobs}[$j]{id} $p seed $s $a < $b" if $a < $min;
				$gain{$p} += $a / $b / 5 / @{$d[0]{jobs}} if $b > 0;
			}
		}
	}
	printf "%s ring %.3f alltoall %.3f nccl-alltoall %.3f\n", $bad ? "SLOWER$bad" : "ok",
		@gain{qw(ring alltoall nccl-alltoall)}' "$WORK")
case "$out" in
ok*) ;;
*) t_fail "jobs slower with hints: $out" ;;
esac
t_log "host lists not grouped by leaf, with over without, mean job: ${out#ok }"
osm_stop
sim_stop
