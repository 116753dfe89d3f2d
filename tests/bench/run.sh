#!/bin/sh
# SPDX-License-Identifier: MIT
# make bench: gpuaware against OpenSM's own engines on the same fabrics in
# the same run, under ibsim, then the routing core offline at 65,536 hosts.
# Prints markdown tables for docs/benchmarks.md.
# Usage: tests/bench/run.sh [BUILD_DIR]; BENCH_QUICK=1 runs small fabrics.
set -eu
B=${1:-build}
export B
. "$(dirname "$0")/../ibsim/lib.sh"
t_init bench

ENGINES=${ENGINES:-"gpuaware ftree updn minhop dfsssp nue"}
SEEDS=${SEEDS:-"1 2 3"}
if [ "${BENCH_QUICK:-0}" = 1 ]; then
	BIG=$CONFIGS/ft3-small.net
	DEG_ARGS="--radix 8 --levels 3"
	OFFLINE_RADIX=16
else
	BIG=$CONFIGS/ft3-4k.net
	DEG_ARGS="--radix 16 --levels 3"
	OFFLINE_RADIX=64
fi
printf '[log]\nverbosity = normal\n' >"$WORK/plugin.ini"

# span LOG: engine used and ms from the sweep's first "building routing
# with" to its "tables configured on all switches" (log flags 0x47).
span() {
	awk '
	function usec(   a) { split($3, a, ":");
		return ((a[1] * 60 + a[2]) * 60 + a[3]) * 1e6 + $4 }
	/building routing with/ && !s { s = usec() }
	/tables configured on all switches/ && s && !d {
		d = usec() - s
		for (i = 1; i <= NF; i++)
			if ($i == "tables") e = $(i - 1)
	}
	END { if (!d) { print "none -"; exit }
		printf "%s %.1f\n", e, d / 1000 }' "$1"
}

# key JSON NAME: a scalar from ibpoolroute --json output.
key() {
	awk -v k="\"$2\":" '$1 == k { v = $2; sub(/,$/, "", v);
		gsub(/"/, "", v); print v; exit }' "$1"
}

# run_engine FABRIC_LABEL ENGINE: one OpenSM sweep, then its dumps checked.
run_engine() {
	local label=$1 e=$2 conf used ms d j loops
	conf=$(engine_conf "$label-$e" "$e" "$WORK/plugin.ini")
	if ! osm_env timeout 900 opensm -F "$conf" -o >"$conf.out" 2>&1; then
		echo "| $label | $e | failed | | | | | | | |"
		return
	fi
	set -- $(span "$WORK/$label-$e.log")
	used=$1
	ms=$2
	d=$WORK/$label-$e.dump
	j=$d/analyze.json
	"$BDIR/ibpoolroute" analyze --json --perms 100 "$d" >"$j" 2>&1 || true
	loops=$(key "$j" credit_loops)
	[ "$loops" = true ] && loops="**yes**" || loops=no
	if [ "$e" = ftree ]; then
		FTREE_MS=$ms
	fi
	echo "| $label | $e | $used | $ms | $(ratio "$ms") | $(key "$j" unreachable) | $loops | $(key "$j" efi_max) | $(key "$j" efi_ratio) / $(key "$j" efi_level_ratio) | $(key "$j" ebb) |"
}

ratio() {
	awk -v a="$1" -v b="${FTREE_MS:-}" 'BEGIN { if (b == "" || b == "-" ||
		a == "-" || b == 0) print "-"; else printf "%.3f\n", a / b }'
}

header() {
	echo
	echo "| fabric | engine | used | routing ms | / ftree | lost pairs | credit loops | all-to-all max | max/mean (per level) | eBB |"
	echo "|---|---|---|---|---|---|---|---|---|---|"
}

# ftree first, so the ratio column has its reference.
ordered() {
	echo ftree
	for e in $ENGINES; do
		[ "$e" = ftree ] || echo "$e"
	done
}

echo "## ibsim + OpenSM $(opensm --version 2>/dev/null | awk '/OpenSM/ { print $2; exit }'), $(date -u +%Y-%m-%d), $(nproc) cores"
header
sim_start "$BIG"
FTREE_MS=
for e in $(ordered); do
	run_engine "$(basename "$BIG" .net)" "$e"
done
sim_stop

for seed in $SEEDS; do
	net=$WORK/degraded-$seed.net
	# shellcheck disable=SC2086
	"$BDIR/ibtopogen" fattree $DEG_ARGS --drop 0.03 --seed "$seed" -o "$net"
	sim_start "$net"
	FTREE_MS=
	for e in $(ordered); do
		run_engine "3%-drop-seed$seed" "$e"
	done
	sim_stop
done

echo
echo "## routing core offline ($OFFLINE_RADIX-port switches, 3 levels)"
echo
net=$WORK/offline.net
"$BDIR/ibtopogen" fattree --radix "$OFFLINE_RADIX" --levels 3 -o "$net"
"$BDIR/ibpoolroute" route --net "$net" --extended-lids --perms 10 --json \
	>"$WORK/offline.json"
j=$WORK/offline.json
echo "| hosts | switches | route s | check s | peak MiB | max/mean (per level) | eBB |"
echo "|---|---|---|---|---|---|---|"
echo "| $(key "$j" cas) | $(key "$j" switches) | $(key "$j" route_seconds) | $(key "$j" check_seconds) | $(key "$j" peak_memory_mib) | $(key "$j" efi_ratio) / $(key "$j" efi_level_ratio) | $(key "$j" ebb) |"
