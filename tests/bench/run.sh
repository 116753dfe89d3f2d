#!/bin/sh
# SPDX-License-Identifier: MIT
# make bench: gpuaware against OpenSM's own engines on the same fabrics in
# the same run, under ibsim (fat-trees, 3D tori, dragonflies, GPU-job
# hints, a standby SM's takeover), the time from a link failure to new
# LFTs, then the routing core offline at 65,536 hosts, requests over TCP
# in MUNGE credentials, ibpoolroute verify's SA queries on 1,024- and
# 4,096-host trees, a Slurm hook's job.start and job.end, and the pool's
# scheduler replaying job traces (tests/bench/sched.sh) and its gang
# placement (tests/bench/gangs.sh).  Prints
# markdown tables for docs/benchmarks.md.
# Usage: tests/bench/run.sh [BUILD_DIR]; BENCH_QUICK=1 runs small
# fabrics; BENCH_SECTIONS picks from "fattree torus dragonfly jobs
# failover linkfail offline munge verify jobstart sched gangs" (default: all).
set -eu
B=${1:-build}
export B
. "$(dirname "$0")/../ibsim/lib.sh"
t_init bench
# Simulator clients leave their sys-* directories in the working one.
cd "$WORK"

ENGINES=${ENGINES:-"gpuaware ftree updn minhop dfsssp nue"}
TORUS_ENGINES=${TORUS_ENGINES:-"gpuaware torus-2QoS dor lash dfsssp nue minhop"}
DF_ENGINES=${DF_ENGINES:-"gpuaware dfsssp lash nue minhop"}
SEEDS=${SEEDS:-"1 2 3"}
DEG_SEEDS=${DEG_SEEDS:-"101 102"}
# degraded trees: fraction of the switch cables cut, switches dropped
DEG_CASES=${DEG_CASES:-"0.01:0 0.03:2 0.05:4"}
# the same at 4,096 hosts (its own seeds and cases: dfsssp takes minutes)
DEG4K_SEEDS=${DEG4K_SEEDS:-$DEG_SEEDS}
DEG4K_CASES=${DEG4K_CASES:-$DEG_CASES}
# the same on 2:1 trees (16 hosts and 8 up links per leaf): intact, then
# cut, where d-mod-k's eBB is closest to dfsssp's (issue 27)
DEG21_SEEDS=${DEG21_SEEDS:-$DEG_SEEDS}
DEG21_CASES=${DEG21_CASES:-"0.03:1 0.03:2"}
FAIL_ENGINES=${FAIL_ENGINES:-"gpuaware ftree updn dfsssp"}
SECTIONS=${BENCH_SECTIONS:-"fattree torus dragonfly jobs failover linkfail offline munge verify jobstart sched gangs"}
if [ "${BENCH_QUICK:-0}" = 1 ]; then
	BIG=$CONFIGS/ft3-small.net
	DEG_ARGS="--radix 8 --levels 3"
	DEG4K_ARGS="--radix 8 --levels 3"
	DEG21_ARGS="--levels 3 --hosts-per-leaf 8 --down 4,4 --up 4,4"
	TORUS_DIMS=${TORUS_DIMS:-"4x4x4"}
	DF_SHAPES=${DF_SHAPES:-"2,4,2"}
	OFFLINE_RADIX=16
else
	BIG=$CONFIGS/ft3-4k.net
	DEG_ARGS="--radix 16 --levels 3"
	DEG4K_ARGS="--k 16 --levels 3"
	DEG21_ARGS="--levels 3 --hosts-per-leaf 16 --down 8,8 --up 8,8"
	TORUS_DIMS=${TORUS_DIMS:-"4x4x4 8x8x8"}
	DF_SHAPES=${DF_SHAPES:-"2,4,2 4,8,4"}
	OFFLINE_RADIX=64
fi
# One switch away from the seeds and from the SM's host on every size.
TORUS_FAILED=sw-1-2-3
plugin_ini "$WORK/plugin.ini" '[log]' 'verbosity = normal'

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
		echo "| $label | $e | failed | | | | | | | | | |"
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
	echo "| $label | $e | $used | $ms | $(ratio "$ms") | $(key "$j" unreachable) | $loops | $(key "$j" efi_max) | $BOUND | $(over "$(key "$j" efi_max)") | $(key "$j" efi_ratio) / $(key "$j" efi_level_ratio) | $(key "$j" ebb) |"
}

# bound NETFILE: sets BOUND, the least busiest all-to-all link any
# routing over minimal up*-down* paths could have (build/a2a-bound).
bound() {
	BOUND=$("$BDIR/a2a-bound" "$1" | awk '{ printf "%.0f", $1 }') || BOUND=-
}

# over MAX: how far MAX is above BOUND, as a ratio.
over() {
	awk -v a="$1" -v b="$BOUND" 'BEGIN { if (a == "" || b == "-" || !b)
		print "-"; else printf "%.3f\n", a / b }'
}

ratio() {
	awk -v a="$1" -v b="${FTREE_MS:-}" 'BEGIN { if (b == "" || b == "-" ||
		a == "-" || b == 0) print "-"; else printf "%.3f\n", a / b }'
}

header() {
	echo
	echo "| fabric | engine | used | routing ms | / ftree | lost pairs | credit loops | all-to-all max | bound | max / bound | max/mean (per level) | eBB |"
	echo "|---|---|---|---|---|---|---|---|---|---|---|---|"
}

# ftree first, so the ratio column has its reference.
ordered() {
	echo ftree
	for e in $ENGINES; do
		[ "$e" = ftree ] || echo "$e"
	done
}

# section NAME: whether BENCH_SECTIONS asks for it.
section() {
	case " $SECTIONS " in *" $1 "*) return 0 ;; esac
	return 1
}

# forget PID: drop a stopped PID from the cleanup list, so the EXIT trap
# never signals a process that later got the same number.
forget() {
	T_PIDS=$(echo " $T_PIDS " | sed "s/ $1 / /; s/^ *//; s/ *$//")
}

# The routing checker that asks the running SM (LFTs, SL2VL and the SLs
# the SA hands out) may not be built yet; its columns then say n/a.
if "$BDIR/ibpoolroute" --help 2>/dev/null | grep -q '^  verify '; then
	HAVE_VERIFY=1
else
	HAVE_VERIFY=0
fi

# osm_settled LOG: the first sweep is done (dumps written before the
# SUBNET UP line) or OpenSM is gone.
osm_settled() {
	log_has "$1" "SUBNET UP" 1 || ! alive "$OSM_PID"
}

# vl_conf NAME ENGINE T2Q: opensm.conf with QoS on for every engine
# (torus-2QoS and gpuaware program SL2VL, the others' path SLs need it),
# the seed file for torus-2QoS, and the settings OpenSM documents for
# tori: LASH's mesh analysis, every VL the fabric has for Nue (default 1).
vl_conf() {
	case $2 in
	gpuaware)
		osm_conf "$1" routing_engine gpuaware qos TRUE \
			event_plugin_name gpuaware \
			event_plugin_options "$WORK/plugin.ini" ;;
	torus-2QoS)
		osm_conf "$1" routing_engine torus-2QoS qos TRUE \
			torus_config "$3" ;;
	lash)
		osm_conf "$1" routing_engine lash qos TRUE \
			do_mesh_analysis TRUE ;;
	nue)
		osm_conf "$1" routing_engine nue qos TRUE nue_max_num_vls 0 ;;
	*)
		osm_conf "$1" routing_engine "$2" qos TRUE ;;
	esac
}

# vl_engine LABEL ENGINE [T2Q]: OpenSM as a daemon until its first sweep
# is up; the live SM checked by verify (VLs, credit loops under the SA's
# path SLs), its dumps by analyze (all-to-all, eBB); then OpenSM stopped.
vl_engine() {
	local label=$1 e=$2 conf log used ms d j vj vls loops vrc
	conf=$(vl_conf "$label-$e" "$e" "${3:-}")
	log=$WORK/$label-$e.log
	d=$WORK/$label-$e.dump
	osm_start "$conf"
	if ! poll "${TORUS_TIMEOUT:-900}" osm_settled "$log" ||
		! log_has "$log" "SUBNET UP" 1; then
		osm_stop
		forget "$OSM_PID"
		echo "| $label | $e | failed | | | | | | | |"
		return
	fi
	vls=n/a
	loops=n/a
	if [ "$HAVE_VERIFY" = 1 ]; then
		vj=$d/verify.json
		vrc=0
		client_env "$BDIR/ibpoolroute" verify --json --perms 0 \
			>"$vj" 2>"$d/verify.err" || vrc=$?
		if [ "$vrc" -le 1 ]; then
			vls=$(key "$vj" vls)
			loops=$(key "$vj" credit_loops)
			[ "$loops" = true ] && loops="**yes**" || loops=no
		else
			vls=error
			loops=error
		fi
	fi
	osm_stop
	forget "$OSM_PID"
	set -- $(span "$log")
	used=$1
	ms=$2
	j=$d/analyze.json
	"$BDIR/ibpoolroute" analyze --json --perms 100 "$d" >"$j" 2>&1 || true
	echo "| $label | $e | $used | $ms | $vls | $loops | $(key "$j" unreachable) | $(key "$j" efi_max) | $(key "$j" efi_ratio) | $(key "$j" ebb) |"
}

# torus_fabric DIMS [FAILED_SWITCH]: a torus with 2 hosts per switch and
# its torus-2QoS.conf from ibtopogen, every torus engine on it.
torus_fabric() {
	local label="torus-$1" net t2q e
	if [ $# -gt 1 ]; then
		label="$label-no-$2"
		set -- --dims "$1" --fail-switch "$2"
	else
		set -- --dims "$1"
	fi
	net=$WORK/$label.net
	t2q=$WORK/$label.torus-2QoS.conf
	"$BDIR/ibtopogen" torus "$@" --hosts-per-switch 2 -o "$net" \
		--torus2qos "$t2q"
	sim_start "$net"
	for e in $TORUS_ENGINES; do
		vl_engine "$label" "$e" "$t2q"
	done
	sim_stop
	forget "$SIM_PID"
}

vl_header() {
	echo
	echo "## $1, one OpenSM daemon per engine"
	echo
	echo "| fabric | engine | used | routing ms | VLs | credit loops | lost pairs | all-to-all max | max/mean | eBB |"
	echo "|---|---|---|---|---|---|---|---|---|---|"
}

torus_section() {
	local dims
	vl_header "3D tori, 2 hosts per switch"
	for dims in $TORUS_DIMS; do
		torus_fabric "$dims"
		torus_fabric "$dims" "$TORUS_FAILED"
	done
}

# df_fabric P,A,H [DROP]: a canonical dragonfly (p hosts per switch, a
# switches per group, h global cables per switch, a*h+1 groups), with
# fraction DROP of its global cables cut, every dragonfly engine on it.
df_fabric() {
	local p a h label net e drop=${2:-}
	p=${1%%,*}
	h=${1##*,}
	a=${1#*,}
	a=${a%,*}
	label="df-$(((a * h + 1) * a * p))"
	set -- --hosts-per-switch "$p" --switches-per-group "$a" \
		--global-links "$h" ${drop:+--drop-global "$drop" --seed 1}
	[ -z "$drop" ] || label="$label-cut"
	net=$WORK/$label.net
	"$BDIR/ibtopogen" dragonfly "$@" -o "$net"
	sim_start "$net"
	for e in $DF_ENGINES; do
		vl_engine "$label" "$e"
	done
	sim_stop
	forget "$SIM_PID"
}

dragonfly_section() {
	local shape
	vl_header "Canonical dragonflies, intact and with 2 % of the global cables cut"
	for shape in $DF_SHAPES; do
		df_fabric "$shape"
		df_fabric "$shape" 0.02
	done
}

# tree_row LABEL NETFILE: every fat-tree engine on one fabric.
tree_row() {
	local e
	bound "$2"
	sim_start "$2"
	FTREE_MS=
	for e in $(ordered); do
		run_engine "$1" "$e"
	done
	sim_stop
	forget "$SIM_PID"
}

fattree_section() {
	local seed net
	header
	tree_row "$(basename "$BIG" .net)" "$BIG"
	for seed in $SEEDS; do
		net=$WORK/degraded-$seed.net
		# shellcheck disable=SC2086
		"$BDIR/ibtopogen" fattree $DEG_ARGS --drop 0.03 --seed "$seed" \
			-o "$net"
		tree_row "3%-drop-seed$seed" "$net"
	done
	# cut cables and dropped switches at both sizes, seeds the unit
	# tests do not use
	for seed in $DEG_SEEDS; do
		for c in $DEG_CASES; do
			deg_row "$DEG_ARGS" "$c" "$seed"
		done
	done
	if [ -n "$DEG21_CASES" ]; then
		net=$WORK/2to1.net
		# shellcheck disable=SC2086
		"$BDIR/ibtopogen" fattree $DEG21_ARGS -o "$net"
		tree_row "2to1-$(hosts "$net")h-intact" "$net"
	fi
	for seed in $DEG21_SEEDS; do
		for c in $DEG21_CASES; do
			deg_row "$DEG21_ARGS" "$c" "$seed" 2to1-
		done
	done
	[ "$DEG4K_ARGS" != "$DEG_ARGS" ] || return 0
	for seed in $DEG4K_SEEDS; do
		for c in $DEG4K_CASES; do
			deg_row "$DEG4K_ARGS" "$c" "$seed"
		done
	done
}

# hosts NETFILE: its CAs.
hosts() {
	grep -cE '^(Hca|Ca)[[:space:]]' "$1"
}

# deg_row ARGS DROP:SWITCHES SEED [PREFIX]: every fat-tree engine on a
# tree with that fraction of its switch cables cut and switches dropped;
# PREFIX starts the row's label.
deg_row() {
	local drop=${2%:*} sw=${2#*:} net=$WORK/cut.net
	# shellcheck disable=SC2086
	"$BDIR/ibtopogen" fattree $1 --drop "$drop" --drop-switches "$sw" \
		--seed "$3" -o "$net"
	tree_row "${4:-}$(hosts "$net")h-$(awk -v d="$drop" 'BEGIN { print d * 100 }')%-cut-${sw}sw-seed$3" "$net"
}

# now_usec: the time of day in microseconds, as OpenSM's log has it.
now_usec() {
	date +'%H %M %S %N' | awk '{
		printf "%.0f\n", (($1 * 60 + $2) * 60 + $3) * 1e6 + $4 / 1000 }'
}

# after_unlink LOG: the second sweep's routing span, the time of its
# "tables configured" line and of the last timed line before its
# SWITCHES CONFIGURED FOR UNICAST box (every LFT block acknowledged).
after_unlink() {
	awk '
	function usec(   a) { split($3, a, ":");
		return ((a[1] * 60 + a[2]) * 60 + a[3]) * 1e6 + $4 }
	/^[A-Z][a-z][a-z] [ 0-9][0-9] / { last = usec() }
	/building routing with/ { s = usec() }
	/tables configured on all switches/ && ++k == 2 {
		tc = usec(); sp = (tc - s) / 1000 }
	/SWITCHES CONFIGURED FOR UNICAST/ && ++j == 2 {
		printf "%.0f %.1f %.0f\n", tc, sp, last; exit }' "$1"
}

# first_uplink NETFILE: "SWITCH PORT" of a leaf's first switch cable.
first_uplink() {
	net_cables "$1" | awk -F '\t' '
	{ n++; from[n] = $1; port[n] = $3; up[n] = $2 == "Switch" &&
		$5 == "Switch" }
	$2 == "Switch" && $5 != "Switch" { leaf[$1] = 1 }
	END {
		for (i = 1; i <= n; i++)
			if ((from[i] in leaf) && up[i]) {
				print from[i], port[i]
				exit
			}
	}'
}

# fail_row LABEL NETFILE ENGINE: OpenSM as a daemon (no periodic sweep:
# ibsim's trap starts the next one) until the subnet is up, then a leaf
# uplink pulled on the simulator's console; the time to the next
# "tables configured" line and to every block of it acknowledged.
fail_row() {
	local conf log t0 sw port
	# shellcheck disable=SC2046
	set -- "$1" "$2" "$3" $(first_uplink "$2")
	sw=$4
	port=$5
	sim_start "$2"
	if [ "$3" = gpuaware ]; then
		conf=$(osm_conf "fail-$1-$3" routing_engine gpuaware \
			event_plugin_name gpuaware \
			event_plugin_options "$WORK/plugin.ini")
	else
		conf=$(osm_conf "fail-$1-$3" routing_engine "$3")
	fi
	log=$WORK/fail-$1-$3.log
	osm_start "$conf"
	if ! poll 1800 log_has "$log" "> SUBNET UP$" 1; then
		echo "| $1 | $3 | no subnet up | | | |"
	else
		t0=$(now_usec)
		sim_cmd "Unlink \"$sw\"[$port]"
		if poll 1800 log_has "$log" "SWITCHES CONFIGURED FOR UNICAST" 2
		then
			set -- "$1" "$3" $(after_unlink "$log")
			echo "| $1 | $2 | $(grep 'tables configured' "$log" |
				tail -1 | awk '{ for (i = 1; i <= NF; i++)
				if ($i == "tables") print $(i - 1) }') | $4 | $((($3 - t0) / 1000)) | $((($5 - t0) / 1000)) |"
		else
			echo "| $1 | $3 | no new routing | | | |"
		fi
	fi
	osm_stop
	forget "$OSM_PID"
	sim_stop
	forget "$SIM_PID"
}

linkfail_section() {
	local net=$WORK/fail-1k.net e
	echo
	echo "## From a pulled leaf uplink to new LFTs in the switches"
	echo
	echo "| fabric | engine | used | routing ms | to tables configured ms | to every block acknowledged ms |"
	echo "|---|---|---|---|---|---|"
	# shellcheck disable=SC2086
	"$BDIR/ibtopogen" fattree $DEG_ARGS -o "$net"
	for e in $FAIL_ENGINES; do
		fail_row "$(hosts "$net")h" "$net" "$e"
	done
	for e in $FAIL_ENGINES; do
		fail_row "$(basename "$BIG" .net)" "$BIG" "$e"
	done
}

offline_section() {
	local net=$WORK/offline.net j=$WORK/offline.json
	echo
	echo "## routing core offline ($OFFLINE_RADIX-port switches, 3 levels)"
	echo
	"$BDIR/ibtopogen" fattree --radix "$OFFLINE_RADIX" --levels 3 -o "$net"
	"$BDIR/ibpoolroute" route --net "$net" --extended-lids --perms 10 \
		--json >"$j"
	echo "| hosts | switches | route s | check s | peak MiB | max/mean (per level) | eBB |"
	echo "|---|---|---|---|---|---|---|"
	echo "| $(key "$j" cas) | $(key "$j" switches) | $(key "$j" route_seconds) | $(key "$j" check_seconds) | $(key "$j" peak_memory_mib) | $(key "$j" efi_ratio) / $(key "$j" efi_level_ratio) | $(key "$j" ebb) |"
}

echo "## ibsim + OpenSM $(opensm --version 2>/dev/null | awk '/OpenSM/ { print $2; exit }'), $(date -u +%Y-%m-%d), $(nproc) cores"
if section fattree; then
	fattree_section
fi
if section torus; then
	torus_section
fi
if section dragonfly; then
	dragonfly_section
fi
if section linkfail; then
	linkfail_section
fi
if section jobs; then
	echo
	if [ "${BENCH_QUICK:-0}" = 1 ]; then
		MIXES=${MIXES:-3} LATENCY=${LATENCY:-2} sh "$TOP/tests/bench/jobs.sh" "$BDIR"
	else
		sh "$TOP/tests/bench/jobs.sh" "$BDIR"
	fi
fi
if section failover; then
	echo
	echo "## a standby SM's takeover"
	echo
	if [ "${BENCH_QUICK:-0}" = 1 ]; then
		NET=ft2-tiny.net sh "$TOP/tests/bench/failover.sh" "$BDIR"
	else
		sh "$TOP/tests/bench/failover.sh" "$BDIR"
	fi
fi
if section offline; then
	offline_section
fi
if section munge; then
	echo
	echo "## requests over TCP in MUNGE credentials"
	echo
	sh "$TOP/tests/bench/munge.sh" "$BDIR"
fi
if section verify; then
	echo
	echo "## verify: path SLs from the SA, per source and per pair"
	echo
	if [ "${BENCH_QUICK:-0}" = 1 ]; then
		RUNS="ft3-small.net:table,pair,sample" \
			sh "$TOP/tests/bench/verify.sh" "$BDIR"
	else
		sh "$TOP/tests/bench/verify.sh" "$BDIR"
	fi
fi
if section jobstart; then
	echo
	echo "## a Slurm hook's job.start and job.end"
	echo
	sh "$TOP/tests/bench/jobstart.sh" "$BDIR"
fi
# trace_bench NAME TITLE: tests/bench/NAME.sh, one seed of 5,000 jobs
# with BENCH_QUICK.
trace_bench() {
	echo
	echo "## $2"
	echo
	if [ "${BENCH_QUICK:-0}" = 1 ]; then
		JOBS=${JOBS:-5000} SEEDS=${SEEDS:-1} \
			sh "$TOP/tests/bench/$1.sh" "$BDIR"
	else
		sh "$TOP/tests/bench/$1.sh" "$BDIR"
	fi
}
if section sched; then
	trace_bench sched "the pool's scheduler on job traces"
fi
if section gangs; then
	trace_bench gangs "gang placement on the fabric"
fi
