#!/bin/sh
# SPDX-License-Identifier: MIT
# Job-aware routing as the jobs feel it.  Seeded random mixes of 4-8 jobs
# of 32-128 hosts on a 1,024-host 3-level fat-tree with 2:1 leaves and a
# 512-host one with 1:1: every job's ring and all-to-all at once on the
# LFTs read back from the ibsim switches (`ibpoolroute simulate` on the
# live fabric), with the plugin's routing for the mix against its routing
# without hints in the same run (an empty table set before each mix), and
# OpenSM's ANCHORS on the same fabric (their dumps; they ignore jobs).
# Then mixes four times as large offline on a 4,096-host tree, and tori
# and dragonflies offline.  Markdown tables for docs/benchmarks.md.
# Usage: tests/bench/jobs.sh [BUILD_DIR]; MIXES (10) mixes a fabric,
# ANCHORS ("ftree updn dfsssp"), OFFLINE (1: the offline tables too).
set -eu
B=${1:-build}
export B
. "$(dirname "$0")/../ibsim/lib.sh"
t_init bench-jobs
cd "$WORK"

MIXES=${MIXES:-10}
ANCHORS=${ANCHORS:-"ftree updn dfsssp"}
OFFLINE=${OFFLINE:-1}

# cols JSON K: "RING RING_WORST A2A A2A_WORST EBB NCCL NCCL_WORST" of
# routing K of a simulate --json report (NCCL: NCCL's all-to-all).
cols() {
	perl -MJSON::PP -0777 -ne 'my $r = decode_json($_)->{routings}['"$2"'];
		my $n = $r->{"nccl-alltoall"};
		printf "%.4f %.4f %.4f %.4f %.4f %.4f %.4f\n", $r->{ring}{mean},
			$r->{ring}{worst}, $r->{alltoall}{mean},
			$r->{alltoall}{worst}, $r->{ebb} // 0, $n->{mean},
			$n->{worst}' "$1"
}

# live NAME JOBS [ARGS]: cols of the jobs on the switches' LFTs now.
live() {
	local n=$1 j=$2
	shift 2
	client_env "$BDIR/ibpoolroute" simulate --json --perms 100 --jobs "$j" \
		"$@" >"$WORK/$n.json" 2>"$WORK/$n.err" ||
		t_fail "simulate $n: $(tail -2 "$WORK/$n.err")"
	cols "$WORK/$n.json" 0
}

# offline NAME NET JOBS: cols with the jobs, then without, routed here.
offline() {
	local r=0
	"$BDIR/ibpoolroute" simulate --json --perms 100 --net "$2" \
		--jobs "$3" >"$WORK/$1.json" 2>"$WORK/$1.err" || r=$?
	[ "$r" -eq 0 ] || t_fail "simulate $1: exit $r: $(tail -2 "$WORK/$1.err")"
	echo "$(cols "$WORK/$1.json" 0) $(cols "$WORK/$1.json" 1)"
}

# kept: which routing the plugin's guard put in the switches.
kept() {
	sm state --json | perl -MJSON::PP -0777 -ne '
		my $m = decode_json($_)->{job_model};
		print $m ? ($m->{kept} eq "jobs" ? "jobs" : "without") : "-"'
}

# Rows "mix njobs ranks w(7) wo(7) ms kept [shuffled w(7) wo(7)]" into
# a table, with the means and the issue's targets.
table() {
	awk '
	function r(a, b) { return b > 0 ? a / b : 0 }
	{ n++
	  printf "| %d | %d | %d | %.3f | %.3f | **%.3f** | %.3f | %.3f | %.3f | %.3f | **%.3f** | %.3f | %.3f | %.3f | %.3f | **%.3f** | %.3f | %.3f | %.3f | %.3f | **%.3f** | %s | %s |\n",
		$1, $2, $3, $13, $6, r($6, $13), $14, $7,
		$16, $9, r($9, $16), $17, $10,
		$11, $4, r($4, $11), $12, $5, $15, $8, r($8, $15), $19, $18
	  a2a += r($6, $13); nccl += r($9, $16); ring += r($4, $11)
	  ebb += r($8, $15)
	  aw += $7 >= $14 - 1e-9; nw += $10 >= $17 - 1e-9
	  rw += $5 >= $12 - 1e-9
	  sa += r($22 + 0, $29 + 0); ms[n] = $18 }
	END { if (!n) exit 1
	  printf "| **mean** | | | | | **%.3f** | | | | | **%.3f** | | | | | **%.3f** | | | | | **%.3f** | | |\n",
		a2a / n, nccl / n, ring / n, ebb / n
	  printf "\nMean of the ratios over %d mixes: all-to-all %.3f, NCCL all-to-all %.3f, ring %.3f, eBB %.3f; worst job no slower than without on %d of %d mixes (all-to-all), %d of %d (NCCL all-to-all) and %d of %d (ring).\n",
		n, a2a / n, nccl / n, ring / n, ebb / n, aw, n, nw, n, rw, n
	  if (sa > 0)
		printf "All-to-all over a rank order the routing did not know (--shuffle): %.3f of without, mean over the mixes.\n", sa / n
	}'
}

table_head() {
	echo
	echo "| mix | jobs | ranks | a2a without | a2a with | ratio | worst without | worst with | NCCL a2a without | NCCL a2a with | ratio | worst without | worst with | ring without | ring with | ratio | worst without | worst with | eBB without | eBB with | ratio | kept | hints.set ms |"
	echo "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|"
}

# fabric LABEL NET: the live comparison and the anchors on one fabric.
fabric() {
	local label=$1 net=$2 e m j t0 ms w wo sw swo conf
	for m in $(seq 1 "$MIXES"); do
		"$BDIR/ibtopogen" jobs --net "$net" --jobs 4-8 --sizes 32-128 \
			--seed "$m" -o "$WORK/$label-mix$m.json"
	done
	sim_start "$net"
	for e in $ANCHORS; do
		osm_once "$(engine_conf "$label-$e" "$e" "")"
	done
	plugin_ini "$WORK/ga.ini" '[log]' 'verbosity = normal'
	conf=$(engine_conf "$label-ga" gpuaware "$WORK/ga.ini")
	osm_start "$conf"
	poll 300 log_has "$WORK/$label-ga.log" "SUBNET UP" 1 ||
		t_fail "$label: OpenSM did not come up"
	echo '{"jobs":[]}' >"$WORK/none.json"
	for m in $(seq 1 "$MIXES"); do
		j=$WORK/$label-mix$m.json
		sm hints set "$WORK/none.json" --wait --timeout 120000 >/dev/null ||
			t_fail "$label mix $m: no routing without jobs"
		wo=$(live "$label-$m-without" "$j")
		swo=$(live "$label-$m-without-shuffled" "$j" --shuffle)
		t0=$(date +%s%N)
		sm hints set "$j" --wait --timeout 120000 >/dev/null ||
			t_fail "$label mix $m: the routing for it did not reach the switches"
		ms=$((($(date +%s%N) - t0) / 1000000))
		w=$(live "$label-$m-with" "$j")
		sw=$(live "$label-$m-with-shuffled" "$j" --shuffle)
		echo "$m $(grep -c '"id":' "$j") $(perl -MJSON::PP -0777 -ne \
			'my $n = 0; $n += @{$_->{hosts}} for @{decode_json($_)->{jobs}};
			 print $n' "$j") $w $wo $ms $(kept) $sw $swo" >>"$WORK/$label.rows"
		for e in $ANCHORS; do
			"$BDIR/ibpoolroute" simulate --json --perms 100 \
				--dump "$WORK/$label-$e.dump" --jobs "$j" \
				>"$WORK/$label-$m-$e.json" 2>&1 || true
			echo "$m $e $(cols "$WORK/$label-$m-$e.json" 0)" \
				>>"$WORK/$label.anchors"
		done
	done
	osm_stop
	forget_pid "$OSM_PID"
	sim_stop
	forget_pid "$SIM_PID"
	echo
	echo "### $label: the plugin live, $MIXES mixes of 4-8 jobs of 32-128 hosts"
	echo
	echo "Fractions of line rate, every job's collective at once on the LFTs read back from the switches; \"without\": the plugin's routing with an empty job table, set just before; kept: the routing the plugin's guard installed; hints.set ms: \`ibpoolroute hints set --wait\` to the LFTs in the switches."
	table_head
	table <"$WORK/$label.rows"
	echo
	echo "OpenSM's engines on the same fabric and mixes (their dumps; mean over the mixes of the mean job, and the plugin's for reference):"
	echo
	echo "| engine | ring | ring worst | all-to-all | all-to-all worst | eBB | NCCL a2a | NCCL a2a worst |"
	echo "|---|---|---|---|---|---|---|---|"
	awk '{ n++; r += $4; rw += $5; a += $6; aw += $7; e += $8; c += $9
		cw += $10 }
		END { printf "| gpuaware, job routing | %.3f | %.3f | %.3f | %.3f | %.3f | %.3f | %.3f |\n",
			r / n, rw / n, a / n, aw / n, e / n, c / n, cw / n }' \
		"$WORK/$label.rows"
	awk '{ n++; r += $11; rw += $12; a += $13; aw += $14; e += $15
		c += $16; cw += $17 }
		END { printf "| gpuaware, no hints | %.3f | %.3f | %.3f | %.3f | %.3f | %.3f | %.3f |\n",
			r / n, rw / n, a / n, aw / n, e / n, c / n, cw / n }' \
		"$WORK/$label.rows"
	for e in $ANCHORS; do
		awk -v e="$e" '$2 == e { n++; r += $3; rw += $4; a += $5;
			aw += $6; b += $7; c += $8; cw += $9 }
			END { if (n) printf "| %s | %.3f | %.3f | %.3f | %.3f | %.3f | %.3f | %.3f |\n",
				e, r / n, rw / n, a / n, aw / n, b / n, c / n,
				cw / n }' \
			"$WORK/$label.anchors"
	done
}

# forget_pid PID: drop a stopped PID from the cleanup list.
forget_pid() {
	T_PIDS=$(echo " $T_PIDS " | sed "s/ $1 / /; s/^ *//; s/ *$//")
}

# offline_fabric LABEL NET SIZES: mixes routed here with and without.
offline_fabric() {
	local label=$1 net=$2 sizes=$3 m j
	for m in $(seq 1 "$MIXES"); do
		j=$WORK/$label-mix$m.json
		"$BDIR/ibtopogen" jobs --net "$net" --jobs 4-8 --sizes "$sizes" \
			--seed "$m" -o "$j"
		echo "$m $(grep -c '"id":' "$j") $(perl -MJSON::PP -0777 -ne \
			'my $n = 0; $n += @{$_->{hosts}} for @{decode_json($_)->{jobs}};
			 print $n' "$j") $(offline "$label-$m" "$net" "$j") - $(perl \
			-MJSON::PP -0777 -ne 'my $r = decode_json($_)->{routings}[0];
			print $r->{job_routing} =~ /^none/ ? "without" : "jobs"' \
			"$WORK/$label-$m.json")"
	done >"$WORK/$label.rows"
	echo
	echo "### $label: offline, $MIXES mixes of 4-8 jobs of $sizes hosts"
	table_head
	table <"$WORK/$label.rows"
}

echo "## Concurrent collectives: job routing against no hints, $(date -u +%Y-%m-%d)"
NET2=$WORK/ft-1k-2to1.net
"$BDIR/ibtopogen" fattree --levels 3 --hosts-per-leaf 16 --down 8,8 \
	--up 8,8 -o "$NET2"
fabric ft-1k-2to1 "$NET2"
NET1=$WORK/ft-512.net
"$BDIR/ibtopogen" fattree --levels 3 --hosts-per-leaf 8 --down 8,8 \
	--up 8,8 -o "$NET1"
fabric ft-512 "$NET1"
[ "$OFFLINE" = 1 ] || exit 0
NET4=$WORK/ft-4k.net
"$BDIR/ibtopogen" fattree --levels 3 --hosts-per-leaf 16 --down 16,16 \
	--up 16,16 -o "$NET4"
offline_fabric ft-4k "$NET4" 128-512
TOR=$WORK/torus-6x6x4.net
"$BDIR/ibtopogen" torus --dims 6x6x4 --hosts-per-switch 2 -o "$TOR"
offline_fabric torus-6x6x4 "$TOR" 8-64
DF=$WORK/df-288.net
"$BDIR/ibtopogen" dragonfly --switches-per-group 8 --global-links 4 \
	--hosts-per-switch 4 --groups 9 -o "$DF"
offline_fabric dragonfly-288 "$DF" 8-64
