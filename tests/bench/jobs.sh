#!/bin/sh
# SPDX-License-Identifier: MIT
# Job-aware routing on a 1,024-host 3-level fat-tree: per seeded random
# mix of 4-16 jobs, the jobs' busiest own links and the links two jobs
# share, routed with the jobs (policies spread and isolate), without
# them, and by OpenSM's ftree (one
# ibsim + OpenSM sweep, its dumps analyzed against every mix).  Prints a
# markdown table and the averages; spread refined as the plugin does in
# the background (REFINE moves, the plugin's default 6000000); then the
# time from hints.set on the plugin's socket to the new LFTs in the
# switches, and to the refined ones.
# Usage: tests/bench/jobs.sh [BUILD_DIR]; MIXES (20) mixes, FRAGMENT (4)
# for ibtopogen jobs --fragment, LATENCY (5) mixes timed live.
set -eu
B=${1:-build}
export B
. "$(dirname "$0")/../ibsim/lib.sh"
t_init bench-jobs
cd "$WORK"

MIXES=${MIXES:-20}
REFINE=${REFINE:-6000000}
FRAGMENT=${FRAGMENT:-4}
NET=$WORK/ft3-1k.net
"$BDIR/ibtopogen" fattree --radix 16 --levels 3 -o "$NET"

# key JSON NAME: a top-level scalar of ibpoolroute --json output.
key() {
	awk -v k="\"$2\":" '$1 == k { v = $2; sub(/,$/, "", v);
		gsub(/"/, "", v); print v; exit }' "$1"
}

# pr CMD...: ibpoolroute CMD; exit 1 (the routing has a problem) is
# still a report, 2 is an error.
pr() {
	"$BDIR/ibpoolroute" "$@" || [ $? -eq 1 ]
}

# own JSON: the jobs' max own link loads, summed over the jobs.
own() {
	awk '$1 == "\"max_link_load\":" { s += $2 } END { print s + 0 }' "$1"
}

# bound JSON: the loads no routing gets the jobs' busiest links below.
bound() {
	awk '$1 == "\"load_bound\":" { s += $2 } END { print s + 0 }' "$1"
}

# OpenSM's ftree, once: its tables do not depend on the jobs.
sim_start "$NET"
conf=$(engine_conf ftree ftree "")
osm_once "$conf"
sim_stop
FTREE=$WORK/ftree.dump
t_need "$FTREE/opensm-lfts.dump" "$FTREE/opensm-subnet.lst"

echo "## Job-aware routing: 1,024-host 3-level fat-tree (radix 16), $MIXES mixes of 4-16 jobs, hosts in runs of 1-$FRAGMENT"
echo
echo "Job-own load: each job's busiest directed switch link under its own all-to-all, summed over the jobs; bound: the load no routing gets below (ibpoolroute's load_bound); shared: directed switch links with own traffic of two or more jobs; refined: spread after the plugin's background refinement ($REFINE moves; s: its time here)."
echo
echo "| mix | jobs | own load without | spread | isolate | ftree | bound | spread / without | isolate / without | bound / without | shared without | spread | isolate | ftree | all-to-all max/mean spread, isolate | refined / without | refined shared | refined / without shared | refine s |"
echo "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|"
mix=1
while [ "$mix" -le "$MIXES" ]; do
	j=$WORK/mix$mix.json
	"$BDIR/ibtopogen" jobs --net "$NET" --jobs 4-16 --seed "$mix" \
		--fragment "$FRAGMENT" -o "$j"
	pr route --json --perms 0 --net "$NET" --jobs "$j" --measure-only \
		>"$WORK/without.json"
	pr route --json --perms 0 --net "$NET" --jobs "$j" >"$WORK/with.json"
	pr route --json --perms 0 --net "$NET" --jobs "$j" \
		--job-policy isolate >"$WORK/iso.json"
	pr analyze --json --perms 0 --jobs "$j" "$FTREE" >"$WORK/ftree.json"
	pr route --json --perms 0 --net "$NET" --jobs "$j" \
		--refine-moves "$REFINE" >"$WORK/ref.json"
	echo "$mix $(grep -c '"id":' "$j") $(own "$WORK/without.json") $(own "$WORK/with.json") $(own "$WORK/iso.json") $(own "$WORK/ftree.json") $(key "$WORK/without.json" shared_links) $(key "$WORK/with.json" shared_links) $(key "$WORK/iso.json" shared_links) $(key "$WORK/ftree.json" shared_links) $(key "$WORK/with.json" efi_ratio) $(key "$WORK/iso.json" efi_ratio) $(bound "$WORK/without.json") $(own "$WORK/ref.json") $(key "$WORK/ref.json" shared_links) $(key "$WORK/ref.json" refine_seconds) $(key "$WORK/ref.json" efi_ratio)"
	mix=$((mix + 1))
done | awk '
	function max(a, b) { return a > b ? a : b }
	{ rs = $4 / $3; ri = $5 / $3; rb = $13 / $3; rr = $14 / $3
	  rq = $15 / $7
	  printf "| %d | %d | %d | %d | %d | %d | %d | %.3f | %.3f | %.3f | %d | %d | %d | %d | %s, %s | %.3f | %d | %.3f | %.1f |\n",
		$1, $2, $3, $4, $5, $6, $13, rs, ri, rb, $7, $8, $9, $10, $11, $12, rr, $15, rq, $16
	  n++; for (i = 2; i <= 10; i++) s[i] += $i; s[13] += $13
	  srs += rs; sri += ri; srb += rb; srr += rr; srq += rq; s[15] += $15
	  s[16] += $16; above += $15 > $7
	  a2a = max(a2a, max(max($11, $12), $17)) }
	END { if (!n) exit 1
	  printf "| **mean** | %.1f | %.1f | %.1f | %.1f | %.1f | %.1f | **%.3f** | **%.3f** | **%.3f** | %.1f | %.1f | %.1f | %.1f | max %s | **%.3f** | %.1f | **%.3f** (%d above) | %.1f |\n",
		s[2] / n, s[3] / n, s[4] / n, s[5] / n, s[6] / n, s[13] / n,
		srs / n, sri / n, srb / n, s[7] / n, s[8] / n, s[9] / n,
		s[10] / n, a2a, srr / n, s[15] / n, srq / n, above, s[16] / n }'

# hints.set to LFTs in the switches: OpenSM with the plugin on the same
# fabric, each of the first LATENCY mixes sent with --wait, which returns
# once OpenSM reports the new routing acknowledged by every switch.
LATENCY=${LATENCY:-5}
[ "$LATENCY" -le "$MIXES" ] || LATENCY=$MIXES
plugin_ini "$WORK/ga.ini" '[log]' 'verbosity = normal'
sim_start "$NET"
conf=$(engine_conf ga gpuaware "$WORK/ga.ini")
osm_start "$conf"
poll 300 log_has "$WORK/ga.log" "SUBNET UP" 1 || t_fail "OpenSM did not come up"
mix=1
while [ "$mix" -le "$LATENCY" ]; do
	t0=$(date +%s%N)
	sm hints set "$WORK/mix$mix.json" --wait >/dev/null ||
		t_fail "hints set mix $mix did not reach the switches"
	t1=$(date +%s%N)
	poll 300 refined_at "$mix" || t_fail "mix $mix not refined"
	echo $(((t1 - t0) / 1000000)) $((($(date +%s%N) - t0) / 1000000))
	mix=$((mix + 1))
done >"$WORK/latency"
# spread KIND COLUMN: min, median and max of one column, in ms
spread() {
	cut -d' ' -f"$2" "$WORK/latency" | sort -n | awk -v k="$1" '
		{ v[NR] = $1 } END { if (!NR) exit 1
		printf "%s (%d mixes): min %d ms, median %d ms, max %d ms\n",
			k, NR, v[1], v[int((NR + 1) / 2)], v[NR] }'
}
echo
spread "hints.set to the new LFTs in the switches (ibpoolroute hints set --wait)" 1
spread "hints.set to the refined LFTs in the switches (state: refined)" 2
osm_stop
sim_stop
