# SPDX-License-Identifier: MIT
# Helpers for the ibsim end-to-end tests: a private ibsim with a console
# FIFO, per-test OpenSM configs and runs with the plugin, dump checks.
# Source it from a t-*.sh after `set -eu`; call t_init first.

UMAD2SIM=${UMAD2SIM:-/usr/lib/x86_64-linux-gnu/umad2sim/libumad2sim.so}
TOP=${GPUAWARE_TOP:-$(cd "$(dirname "$0")/../.." && pwd)}
# Build directory (run-all.sh passes it on); relative paths are to TOP.
B=${B:-build}
case $B in /*) BDIR=$B ;; *) BDIR=$TOP/$B ;; esac
CONFIGS=$TOP/ibsim-configs
. "$TOP/tests/json.sh"
# The OpenSM under test: the system's, or the one installed under
# OSM_PREFIX (tools/build-opensm.sh) with the plugin `make OSM_PREFIX=...`
# built for it in $BDIR/<the prefix's last component>.  OpenSM
# dlopen()s "libgpuaware.so": the plugin's directory comes first.
if [ -n "${OSM_PREFIX:-}" ]; then
	OSM_BIN=$OSM_PREFIX/sbin/opensm
	PLUGIN_DIR=$BDIR/$(basename "$OSM_PREFIX")
	OSM_LIBS="$PLUGIN_DIR:$OSM_PREFIX/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
else
	OSM_BIN=$(command -v opensm || echo opensm)
	PLUGIN_DIR=$BDIR
	OSM_LIBS="$BDIR${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
fi
PLUGIN_LINE="gpuaware tables configured on all switches"

t_log() { echo "$T_NAME: $*" >&2; }

t_fail() {
	echo "$T_NAME: FAIL: $*" >&2
	exit 1
}

# alive PID: running and not yet a zombie.
alive() {
	[ -r "/proc/$1/stat" ] &&
		! grep -q '^[0-9]* (.*) Z' "/proc/$1/stat" 2>/dev/null
}

# stop_pid PID: SIGTERM, then SIGKILL after 5 s (OpenSM can hang in
# shutdown once ibsim is gone), then reap it.
stop_pid() {
	kill "$1" 2>/dev/null || return 0
	poll 5 not_alive "$1" || kill -9 "$1" 2>/dev/null || true
	wait "$1" 2>/dev/null || true
}

not_alive() { ! alive "$1"; }

# Everything a test starts is listed in T_PIDS; the EXIT trap stops it,
# newest first (clients before ibsim), and removes the work directory
# (kept when T_KEEP=1, for debugging).
t_cleanup() {
	local rc=$? p rev=""
	trap - EXIT INT TERM
	for p in $T_PIDS; do
		rev="$p $rev"
	done
	for p in $rev; do
		stop_pid "$p"
	done
	exec 7>&-
	if [ "${T_KEEP:-0}" = 1 ]; then
		echo "$T_NAME: work dir kept: $WORK" >&2
	else
		rm -rf "$WORK"
	fi
	exit "$rc"
}

t_init() {
	T_NAME=$1
	T_PIDS=""
	WORK=$(mktemp -d "/tmp/gpuaware-$T_NAME.XXXXXX")
	trap t_cleanup EXIT
	trap 'exit 130' INT TERM
	export IBSIM_SOCKNAME="gpuaware-$T_NAME-$$"
	export OSM_TMP_DIR="$WORK/osm-tmp" OSM_CACHE_DIR="$WORK/osm-cache"
	mkdir -p "$OSM_TMP_DIR" "$OSM_CACHE_DIR"
	# A missing prerequisite fails the test: nothing is skipped silently.
	for f in "$UMAD2SIM" "$PLUGIN_DIR/libgpuaware.so" "$OSM_BIN"; do
		[ -e "$f" ] || t_fail "missing $f"
	done
	for c in ibsim ibroute; do
		command -v "$c" >/dev/null || t_fail "missing command $c"
	done
	OSM_PRELOAD="$(san_preload)$UMAD2SIM"
	# Errors the sanitizer finds inside libc calls made by the simulator
	# shim and OpenSM's MAD layer (umad2sim reads past its buffer, the
	# vendor layer sends freed MADs) are theirs, not the plugin's.
	printf 'interceptor_via_lib:%s\n' libumad2sim.so libibumad.so.3 \
		libosmvendor.so.5 >"$WORK/asan.supp"
	# Debian's libibnetdisc leaks its port LID map (ibnetdiscover too).
	printf 'leak:%s\n' libosmvendor.so.5 libibnetdisc.so.5 \
		>"$WORK/lsan.supp"
	ASAN_OPTIONS="suppressions=$WORK/asan.supp${ASAN_OPTIONS:+:}${ASAN_OPTIONS:-}"
	LSAN_OPTIONS="suppressions=$WORK/lsan.supp${LSAN_OPTIONS:+:}${LSAN_OPTIONS:-}"
	export ASAN_OPTIONS LSAN_OPTIONS
}

t_need() {
	local f
	for f in "$@"; do
		[ -e "$f" ] || t_fail "missing $f"
	done
}

# poll SECONDS CMD...: run CMD every 0.1 s until it succeeds.
poll() {
	local end=$(($(date +%s) + $1))
	shift
	until "$@"; do
		[ "$(date +%s)" -lt "$end" ] || return 1
		sleep 0.1
	done
}

# First CA named in a net file: the SM's port (ibsim's default is the
# first node of the file, often a switch).
first_ca() {
	awk '/^(Hca|Ca)[ \t]/ { match($0, /"[^"]*"/);
		print substr($0, RSTART + 1, RLENGTH - 2); exit }' "$1"
}

# net_cables NETFILE: each cable end of a net file, one per line, fields
# separated by tabs (names hold spaces): NAME TYPE PORT PEER PEER_TYPE,
# TYPE being Switch, Hca, Ca or Rt.
net_cables() {
	awk '
	function id(s) {
		match(s, /"[^"]*"/)
		return substr(s, RSTART + 1, RLENGTH - 2)
	}
	/^(Switch|Hca|Ca|Rt)[ \t]/ { cur = id($0); type[cur] = $1; next }
	/^\[[0-9]+\]/ && cur != "" { n++; from[n] = cur
		port[n] = substr($0, 2) + 0
		to[n] = id(substr($0, index($0, "]") + 1)) }
	END {
		OFS = "\t"
		for (i = 1; i <= n; i++)
			print from[i], type[from[i]], port[i], to[i], type[to[i]]
	}' "$1"
}

sim_alive() { kill -0 "$SIM_PID" 2>/dev/null; }

sim_ready() {
	sim_alive || t_fail "ibsim died: $(tail -3 "$WORK/sim.out")"
	grep -q "Network simulator ready" "$WORK/sim.out" &&
		grep -q "@$IBSIM_SOCKNAME:ctl" /proc/net/unix
}

# ibsim's default capacities (2048 nodes, 256 switches), raised to fit
# the net file when it is bigger.
sim_caps() {
	awk '/^Switch[ \t]/ { s++; n++; p += $2 + 1 }
		/^(Hca|Ca|Rt)[ \t]/ { n++; p += $2 + 1 }
		END { s += 8; n += 8; p += 64; dp = 256 * 36 + 2048 * 2
			printf "-N %d -S %d -P %d\n", (n > 2048 ? n : 2048),
				(s > 256 ? s : 256), (p > dp ? p : dp) }' "$1"
}

# sim_start NETFILE [SM_HOST]: ibsim whose console reads the FIFO held
# open on fd 7, so tests can send commands with sim_cmd.  Clients attach
# at SM_HOST (default: the first CA of the file).
sim_start() {
	local net="$1"
	t_need "$net"
	SIM_NET=$net
	export SIM_HOST="${2:-$(first_ca "$net")}"
	[ -n "$SIM_HOST" ] || t_fail "no CA in $net for the SM"
	mkfifo "$WORK/sim.in"
	# shellcheck disable=SC2046
	ibsim -s $(sim_caps "$net") "$net" <"$WORK/sim.in" \
		>"$WORK/sim.out" 2>&1 &
	SIM_PID=$!
	T_PIDS="$T_PIDS $SIM_PID"
	# Opening the writer releases ibsim's open; keeping it open keeps
	# ibsim off an EOF loop.
	exec 7>"$WORK/sim.in"
	poll 60 sim_ready || t_fail "ibsim not ready on $net"
}

sim_cmd() {
	echo "$*" >&7
}

# Stop ibsim (before closing its console: EOF makes it spin) and forget
# OpenSM's LID cache, which belongs to that fabric.
sim_stop() {
	stop_pid "$SIM_PID"
	exec 7>&-
	rm -f "$WORK/sim.in"
	rm -rf "$OSM_CACHE_DIR" "$OSM_TMP_DIR"
	mkdir -p "$OSM_CACHE_DIR" "$OSM_TMP_DIR"
}

# fragment_keys FILE: the "key value" lines of an opensm.conf fragment,
# as arguments for osm_conf (values hold no spaces).
fragment_keys() {
	t_need "$1"
	awk '!/^[ \t]*(#|$)/ { print $1, $2 }' "$1"
}

# osm_conf NAME KEY VALUE...: an opensm.conf made by `opensm -c`, private
# paths set, then each KEY set to VALUE.  Prints the path.
osm_conf() {
	local name="$1" conf="$WORK/$1.conf" base="$WORK/opensm-default.conf"
	shift
	if [ ! -s "$base" ]; then
		"$OSM_BIN" -c "$base" >/dev/null 2>&1 || true
		[ -s "$base" ] || t_fail "opensm -c wrote no config"
	fi
	mkdir -p "$WORK/$name.dump"
	set -- log_file "$WORK/$name.log" dump_files_dir "$WORK/$name.dump" \
		log_flags 0x47 force_log_flush TRUE sweep_interval 0 \
		console off "$@"
	cp "$base" "$conf"
	while [ $# -ge 2 ]; do
		grep -q "^$1 " "$conf" || t_fail "opensm.conf has no key $1"
		awk -v k="$1" -v v="$2" '$1 == k { print k " " v; next }
			{ print }' "$conf" >"$conf.new"
		mv "$conf.new" "$conf"
		shift 2
	done
	echo "$conf"
}

# plugin_ini FILE LINE...: the plugin's INI file, with LINEs and a
# [hints] section keeping the job-hint socket and table in $WORK, so no
# run shares them with another or with the machine's.
plugin_ini() {
	local f=$1
	shift
	printf '%s\n' "$@" "[hints]" "socket = $WORK/sm.sock" \
		"state_dir = $WORK/hints" >"$f"
}

# engine_conf NAME ENGINE PLUGIN_CONF: osm_conf routing with ENGINE; for
# gpuaware, loading the plugin with PLUGIN_CONF.  Prints the path.
engine_conf() {
	if [ "$2" = gpuaware ]; then
		osm_conf "$1" routing_engine gpuaware \
			event_plugin_name gpuaware event_plugin_options "$3"
	else
		osm_conf "$1" routing_engine "$2"
	fi
}

# client_env CMD...: run CMD as an ibsim client; a sanitized build of
# ours needs its runtimes ahead of the simulator shim.
client_env() {
	env LD_PRELOAD="$(san_preload "$(command -v "$1")")$UMAD2SIM" "$@"
}

# san_preload [OBJECT]: the sanitizer runtimes OBJECT (default: the
# plugin, which OpenSM, itself not instrumented, must load them for)
# links, as an LD_PRELOAD prefix.
san_preload() {
	ldd "${1:-$PLUGIN_DIR/libgpuaware.so}" 2>/dev/null |
		awk '$1 ~ /^lib(asan|ubsan)\.so/ { printf "%s:", $3 }'
}

# osm_env CMD...: run CMD (OpenSM) as an ibsim client that finds our
# plugin.
osm_env() {
	env LD_PRELOAD="$OSM_PRELOAD" LD_LIBRARY_PATH="$OSM_LIBS" "$@"
}

# osm_once CONF: one sweep, then exit.
osm_once() {
	osm_env timeout 120 "$OSM_BIN" -F "$1" -o >"$1.out" 2>&1 ||
		t_fail "opensm -o failed ($?): $(tail -3 "$1.out")"
}

# osm_start CONF: a resident OpenSM that resweeps on traps.  Started
# without the osm_env function so that $! is OpenSM itself.
osm_start() {
	env LD_PRELOAD="$OSM_PRELOAD" LD_LIBRARY_PATH="$OSM_LIBS" \
		"$OSM_BIN" -F "$1" >"$1.out" 2>&1 &
	OSM_PID=$!
	T_PIDS="$T_PIDS $OSM_PID"
}

osm_stop() {
	stop_pid "$OSM_PID"
}

# osm_at NAME HOST CONF: a resident OpenSM on CONF as an ibsim client at
# HOST's CA, with a LID cache and temporary directory of its own, so that
# a master and a standby SM run side by side; its pid in OSM_PID.
osm_at() {
	mkdir -p "$WORK/$1.cache" "$WORK/$1.tmp"
	env SIM_HOST="$2" OSM_CACHE_DIR="$WORK/$1.cache" \
		OSM_TMP_DIR="$WORK/$1.tmp" LD_PRELOAD="$OSM_PRELOAD" \
		LD_LIBRARY_PATH="$OSM_LIBS" "$OSM_BIN" -F "$3" >"$3.out" 2>&1 &
	OSM_PID=$!
	T_PIDS="$T_PIDS $OSM_PID"
}

# ft_blocks LOG: LFT blocks the OpenSM of LOG sent (log flag 0x08 on).
ft_blocks() { count_lines "$1" "Writing FT block"; }

count_lines() {
	local n
	n=$(grep -c -- "$2" "$1" 2>/dev/null) || true
	echo "${n:-0}"
}

log_has() { [ "$(count_lines "$1" "$2")" -ge "$3" ]; }

# wait_log LOG PATTERN COUNT SECONDS
wait_log() {
	poll "$4" log_has "$1" "$2" "$3" ||
		t_fail "no $3 x '$2' in $1 after $4 s"
}

# route_ms LOG ENGINE: milliseconds from the last "building routing with
# 'ENGINE'" to the next "ENGINE tables configured" line.
route_ms() {
	awk -v e="$2" '
	function usec(l,   a) { split($3, a, ":");
		return ((a[1] * 60 + a[2]) * 60 + a[3]) * 1e6 + $4 }
	index($0, "building routing with '\''" e "'\''") { s = usec() }
	index($0, e " tables configured on all switches") && s {
		d = usec() - s
	}
	END { if (d == "") exit 1; printf "%.1f\n", d / 1000 }' "$1"
}

# lfts_pairs FILE: "GUID LID PORT" lines from opensm-lfts.dump or from
# ibroute output (same layout), sorted.
lfts_pairs() {
	awk '/^Unicast lids/ { for (i = 1; i <= NF; i++)
			if ($i == "guid") g = $(i + 1); next }
		/^0x[0-9a-fA-F]+ [0-9]+/ { printf "%s %s %d\n", g, tolower($1),
			$2 + 0 }' "$@" | sort
}

# dr_paths SUBNET_LST: "GUID PATH" per switch, breadth first from the SM's
# CA, PATH as `ibroute -D` takes it.  Directed routes read the switches
# back whatever their LFTs hold.
dr_paths() {
	awk '
	function hex(s,   i, v) {
		for (i = 1; i <= length(s); i++)
			v = v * 16 + index("0123456789abcdef",
					   tolower(substr(s, i, 1))) - 1
		return v
	}
	function field(s, key,   i) {
		i = index(s, key)
		if (!i)
			return ""
		s = substr(s, i + length(key))
		match(s, /^[0-9A-Fa-f]+/)
		return substr(s, 1, RLENGTH)
	}
	{
		i = index($0, "} {")
		a = substr($0, 1, i)
		b = substr($0, i + 2)
		na = field(a, "NodeGUID:")
		pa = hex(field(a, "PN:"))
		nb = field(b, "NodeGUID:")
		if (a ~ /^\{ SW /)
			sw[na] = 1
		if (a ~ /^\{ CA-SM /)
			sm = na
		peer[na, pa] = nb
		if (pa > np[na])
			np[na] = pa
	}
	END {
		if (sm == "")
			exit 1
		q[1] = sm
		path[sm] = "0"
		for (h = t = 1; h <= t; h++) {
			n = q[h]
			if (n != sm && !(n in sw))
				continue
			for (p = 1; p <= np[n]; p++) {
				if (!((n, p) in peer) || (peer[n, p] in path))
					continue
				m = peer[n, p]
				path[m] = path[n] "," p
				q[++t] = m
				if (m in sw)
					print "0x" tolower(m), path[m]
			}
		}
	}' "$1"
}

# read_lfts PATHS OUT: every switch of PATHS (dr_paths') read back by
# directed route with ibroute, into OUT; its warnings into OUT.err.
# Brief (-n): no LID-routed lookup of each entry's destination, whose
# failures' warnings would land inside the table lines.
read_lfts() {
	local guid path
	: >"$2"
	: >"$2.err"
	while read -r guid path; do
		client_env ibroute -n -D "$path" >>"$2" 2>>"$2.err" ||
			t_fail "ibroute -D $path ($guid) failed: $(tail -1 "$2.err")"
	done <"$1"
}

# check_pushed DUMPDIR: the LFTs in the switches, read back through ibsim
# by directed route (read_pushed), are the ones OpenSM dumped.  A loaded
# machine can catch OpenSM between a dump and the blocks of a later
# sweep: they are read again, three times a second apart, before that
# counts.
read_pushed() {
	local d="$1" skip
	t_need "$d/opensm-lfts.dump" "$d/opensm-subnet.lst"
	dr_paths "$d/opensm-subnet.lst" >"$d/dr.paths" ||
		t_fail "no SM port in $d/opensm-subnet.lst"
	[ "$(wc -l <"$d/dr.paths")" -eq "$(grep -c '^Unicast lids' \
		"$d/opensm-lfts.dump")" ] ||
		t_fail "switches in opensm-subnet.lst and opensm-lfts.dump differ"
	read_lfts "$d/dr.paths" "$d/ibroute.out"
	# ibroute reads whole 64-LID blocks below LinearFDBTop and so never
	# shows a top LID that opens a block (LID 128 of torus-small); the
	# switches have it (ibpoolroute verify reads it), so leave it out.
	skip=$(awk '/^Unicast lids \[0x0-0x/ { split($3, a, "-0x");
		v = 0; h = a[2]; sub(/\].*/, "", h)
		for (i = 1; i <= length(h); i++)
			v = v * 16 + index("0123456789abcdef",
					   tolower(substr(h, i, 1))) - 1
		if (v % 64 == 0) printf "0x%04x\n", v; exit }' "$d/ibroute.out")
	lfts_pairs "$d/opensm-lfts.dump" | awk -v s="$skip" '$2 != s' \
		>"$d/dumped.pairs"
	lfts_pairs "$d/ibroute.out" >"$d/pushed.pairs"
	[ -s "$d/dumped.pairs" ] || t_fail "no LFT entries in $d/opensm-lfts.dump"
	cmp -s "$d/dumped.pairs" "$d/pushed.pairs"
}

check_pushed() {
	local try
	for try in 1 2 3; do
		read_pushed "$1" && return 0
		sleep 1
	done
	t_fail "switch LFTs differ from opensm-lfts.dump: $(diff "$1/dumped.pairs" "$1/pushed.pairs" | head -5 | tr '\n' ' ')"
}

# check_ibdmchk DUMPDIR: ibdmchk (ibutils) finds full CA-to-CA connectivity
# and no credit loop.  Debian's build crashes on exit: judge its output.
check_ibdmchk() {
	local d="$1"
	t_need "$d/opensm-subnet.lst" "$d/opensm.fdbs" "$d/opensm.mcfdbs"
	command -v ibdmchk >/dev/null || t_fail "missing command ibdmchk"
	# In a child shell, so its report of the crash goes to the file too.
	sh -c 'cd "$1" && exec timeout 120 ibdmchk -s opensm-subnet.lst \
		-f opensm.fdbs -m opensm.mcfdbs' sh "$d" >"$d/ibdmchk.out" 2>&1 ||
		true
	grep -q -- "-I- no credit loops found" "$d/ibdmchk.out" ||
		t_fail "ibdmchk: no 'no credit loops found': $(grep -- '-E-' "$d/ibdmchk.out" | head -3)"
	grep -q -- "-I- Scanned:[0-9]* CA to CA paths" "$d/ibdmchk.out" ||
		t_fail "ibdmchk did not scan CA to CA paths"
	! grep -q -- "^-E-" "$d/ibdmchk.out" ||
		t_fail "ibdmchk errors: $(grep -- '^-E-' "$d/ibdmchk.out" | head -3)"
}

# check_analyze DUMPDIR: our own checker on what OpenSM dumped, the
# switches' own routes (switch-sourced, to every LID) included.
check_analyze() {
	t_need "$BDIR/ibpoolroute"
	"$BDIR/ibpoolroute" analyze "$1" >"$1/analyze.out" 2>&1 ||
		t_fail "ibpoolroute analyze $1 failed: $(tail -3 "$1/analyze.out")"
	mgmt_checked "$1/analyze.out"
}

# mgmt_checked REPORT: the report followed switch-sourced routes, none of
# which loops or closes a credit loop (verify, which has path SLs from
# the SA for CA pairs only, leaves their dependencies out on several VLs).
mgmt_checked() {
	grep -Eq '^mgmt routes : [1-9][0-9]* pairs \(unreachable [0-9]+, loops 0\), ([0-9]+ more dependencies|dependencies not checked \(no path SLs for switches\))$' "$1" ||
		t_fail "switch routes not checked or bad: $(grep '^mgmt' "$1" | head -2 | tr '\n' ' ')"
}

# switches NETFILE: switch names in file order.
switches() {
	awk '/^Switch[ \t]/ { match($0, /"[^"]*"/);
		print substr($0, RSTART + 1, RLENGTH - 2) }' "$1"
}

# verify_live NAME: ibpoolroute verify from the work directory (umad2sim
# leaves its sys-* directories there); must pass.
verify_live() {
	(cd "$WORK" && client_env "$BDIR/ibpoolroute" verify --perms 0 \
		>"$WORK/$1.verify" 2>&1) ||
		t_fail "$1: ibpoolroute verify failed: $(tail -4 "$WORK/$1.verify" | tr '\n' ' ')"
	grep -q "credit loops: none" "$WORK/$1.verify" ||
		t_fail "$1: verify reports no credit-loop check"
	mgmt_checked "$WORK/$1.verify"
}

# sweeps_done LOG N: N routings installed and the subnet up after them.
sweeps_done() {
	local tc up
	tc=$(count_lines "$1" "$PLUGIN_LINE")
	up=$(count_lines "$1" "> SUBNET UP$")
	[ "$tc" -ge "$2" ] && [ "$up" -ge "$2" ]
}

# sm CMD...: ibpoolroute CMD on the plugin's hint socket ($WORK/sm.sock,
# plugin_ini's).
sm() { "$BDIR/ibpoolroute" "$@" --socket "$WORK/sm.sock"; }

# sm_state_has TEXT: the plugin's state, as JSON, holds TEXT.
sm_state_has() { sm state --json 2>/dev/null | grep -q "$1"; }

# live_sim NAME JOBS: "RING ALLTOALL RING_WORST ALLTOALL_WORST" of the jobs
# in file JOBS on the LFTs read back from the switches now (simulate on
# the live fabric, the collectives model); the report is left in
# $WORK/NAME.sim.
live_sim() {
	(cd "$WORK" && client_env "$BDIR/ibpoolroute" simulate --perms 0 --json \
		--jobs "$2" >"$WORK/$1.sim" 2>"$WORK/$1.err") ||
		t_fail "simulate ($1) failed: $(tail -2 "$WORK/$1.err")"
	perl -MJSON::PP -0777 -ne 'my $r = decode_json($_)->{routings}[0];
		printf "%.6f %.6f %.6f %.6f\n", $r->{ring}{mean},
			$r->{alltoall}{mean}, $r->{ring}{worst},
			$r->{alltoall}{worst}' "$WORK/$1.sim"
}

# no_slower "A..." "B...": every number of A at least its mate in B.
no_slower() {
	perl -e 'my @a = split " ", $ARGV[0]; my @b = split " ", $ARGV[1];
		for (0 .. $#b) { exit 1 if $a[$_] < $b[$_] - 1e-9 } exit 0' \
		"$1" "$2"
}

no_errors() {
	! grep -q "gpuaware: ERR" "$1" ||
		t_fail "plugin errors: $(grep 'gpuaware: ERR' "$1" | head -2)"
}

# osm_up NAME FRAGMENT KEY VALUE...: a resident OpenSM loading the plugin
# with $WORK/gpuaware.conf, its opensm.conf the keys of
# ibsim-configs/FRAGMENT and then KEY VALUE; returns once its first
# routing is installed and the subnet up.  Its config is in CONF, its
# log in $WORK/NAME.log.
osm_up() {
	local name=$1 frag=$2
	shift 2
	# shellcheck disable=SC2046
	CONF=$(osm_conf "$name" $(fragment_keys "$CONFIGS/$frag") \
		event_plugin_options "$WORK/gpuaware.conf" "$@")
	osm_start "$CONF"
	poll 60 sweeps_done "$WORK/$name.log" 1 ||
		t_fail "$name: no routing"
}

# qos_off_refused NET TOPOLOGY NVL: with QoS off a routing that needs NVL
# data VLs is refused with the line saying what to set, and up*-down*
# routes on VL 0 meanwhile (checked live).  Uses $WORK/gpuaware.conf.
qos_off_refused() {
	sim_start "$1"
	osm_up noqos opensm-gpuaware-torus.conf qos FALSE
	log_has "$WORK/noqos.log" "ERR GA23: $2 routing needs $3 data VLs, but QoS is off .* set 'qos TRUE'" 1 ||
		t_fail "no refusal line without QoS"
	log_has "$WORK/noqos.log" "gpuaware: topology $2, engine updown" 1 ||
		t_fail "without QoS the $2 is not routed by up*-down*"
	verify_live noqos
	grep -q "credit loops: none (1 VL" "$WORK/noqos.verify" ||
		t_fail "without QoS the routing uses more than VL 0"
	osm_stop
	sim_stop
	t_log "QoS off: refused with ERR GA23, up*-down* on VL 0 verified"
}

# poold_live TELEMETRY_MS [LINE...]: ibpoold on the live fabric with
# ibsim-configs/pool-ft2-tiny.conf (or the file $POOL_SAMPLE) and LINEs ("key = value") added to
# its [pool] in place of the sample's same keys, its
# socket and state in $WORK and $WORK/sm.sock (the plugin's, given
# plugin_ini) as sm_socket; returns once it serves, its pid in PD, its
# log in $WORK/poold.err.  pr runs ibpoolroute on its socket.
poold_live() {
	local ms=$1
	shift
	sed -e "s#^socket = .*#socket = $WORK/pool.sock#" \
		-e "s#^state_dir = .*#state_dir = $WORK/state#" \
		-e "s#^sm_socket = .*#sm_socket = $WORK/sm.sock#" \
		-e "s#^telemetry_interval_ms = .*#telemetry_interval_ms = $ms#" \
		"${POOL_SAMPLE:-$CONFIGS/pool-ft2-tiny.conf}" >"$WORK/pool.conf.in"
	# a LINE's key replaces the sample's
	awk 'NR == FNR { add = add $0 "\n"; if ($2 == "=") key[$1]; next }
		$2 == "=" && ($1 in key) { next }
		{ print } /^\[pool\]/ { printf "%s", add }' \
		- "$WORK/pool.conf.in" >"$WORK/pool.conf" <<EOT
$(printf '%s\n' "$@")
EOT
	# Not through client_env, a function: $! must be the daemon itself.
	env LD_PRELOAD="$(san_preload "$BDIR/ibpoold")$UMAD2SIM" \
		"$BDIR/ibpoold" -c "$WORK/pool.conf" 2>"$WORK/poold.err" &
	PD=$!
	T_PIDS="$T_PIDS $PD"
	poll 30 poold_up ||
		t_fail "ibpoold did not serve: $(tail -3 "$WORK/poold.err")"
}

pr() { "$BDIR/ibpoolroute" "$@" --socket "$WORK/pool.sock"; }

# watch_has PERL: a line of $WORK/watch (pr watch --json) for which PERL
# (on $r) holds.
watch_has() {
	perl -MJSON::PP -ne '
		BEGIN { $f = 1 }
		$r = eval { decode_json($_) } or next;
		if ('"$1"') { $f = 0; last }
		END { exit $f }' "$WORK/watch"
}

# unlink_lost NODE ID: NODE unlinked in ibsim, then the watcher's lost
# and replaced events of allocation ID, 60 s each at most; LOST_S and
# REPLACED_S the seconds from the unlink to lost, from lost to replaced.
unlink_lost() {
	local t0 t1 t2
	t0=$(date +%s.%N)
	sim_cmd "Unlink \"$1\""
	poll 60 watch_has '$r->{event} eq "lost" && $r->{id} eq "'"$2"'"' ||
		t_fail "no lost event for allocation $2 within 60 s: $(cat "$WORK/watch"; tail -3 "$WORK/poold.err")"
	t1=$(date +%s.%N)
	poll 60 watch_has '$r->{event} eq "replaced" && $r->{id} eq "'"$2"'"' ||
		t_fail "no replaced event within 60 s: $(tail -3 "$WORK/poold.err")"
	t2=$(date +%s.%N)
	LOST_S=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.2f", b - a }')
	REPLACED_S=$(awk -v a="$t1" -v b="$t2" 'BEGIN { printf "%.2f", b - a }')
}

poold_up() { pr pool >/dev/null 2>&1; }

# poold_alloc NAME ARGS...: an allocation into $WORK/NAME; prints its id.
poold_alloc() {
	local name=$1
	shift
	pr alloc --json "$@" >"$WORK/$name" ||
		t_fail "alloc $*: $(cat "$WORK/$name")"
	json "$WORK/$name" '$r->{id}'
}

# first_hop FILE: the first hop of the first GPU's path.
first_hop() { json "$1" '$r->{gpus}[0]{path}[0]'; }

# lft_walk NETFILE LFTDUMP FILE: walks the LFTs in LFTDUMP (as OpenSM
# dumps them or ibroute reads them) from each allocation's client to
# each GPU's DLID, following NETFILE's cables, for the allocation (or
# alloc.list) FILE: each path must be that walk hop by hop and end at
# the GPU's port.  Prints "ok" or the first mismatch.
lft_walk() {
	lfts_pairs "$2" >"$WORK/walk.pairs"
	perl -MJSON::PP -e '
		my ($net, $pairs, $file) = @ARGV;
		my (%guid, %sw, %peer, %lft, $cur, $g);
		open(my $n, "<", $net) or die "$net: $!";
		while (<$n>) {
			if (/^(?:switch|ca)guid=(0x[0-9a-fA-F]+)/) { $g = hex($1); next }
			if (/^(Switch|Hca|Ca)\s+\d+\s+"([^"]+)"/) {
				$cur = $2; $guid{$cur} = $g;
				$sw{$cur} = $1 eq "Switch";
				next;
			}
			$peer{"$cur:$1"} = [$2, $3] if /^\[(\d+)\]\s+"([^"]+)"\[(\d+)\]/;
		}
		open(my $p, "<", $pairs) or die "$pairs: $!";
		while (<$p>) {
			my ($sw, $l, $port) = split;
			$lft{hex($sw) . ":" . hex($l)} = $port;
		}
		local $/; open(my $f, "<", $file) or die "$file: $!";
		my $r = decode_json(<$f>);
		for my $a ($r->{allocs} ? @{$r->{allocs}} : ($r)) {
			for my $gp (@{$a->{gpus}}) {
				my $at = $peer{"$a->{client}:1"}[0];
				my @walk;
				while (defined $at && $sw{$at} && @walk < 16) {
					my $port = $lft{$guid{$at} . ":" . $gp->{dlid}};
					last unless defined $port;
					push @walk, sprintf("%d:%d", $guid{$at}, $port);
					$at = $peer{"$at:$port"}[0];
				}
				my @path = map { my ($s, $q) = split /:/;
					sprintf("%d:%d", hex($s), $q) } @{$gp->{path} // []};
				# ibsim: port GUID = node GUID + 1
				my $end = defined $at && sprintf("0x%016x",
					$guid{$at} + 1) eq $gp->{port_guid};
				next if "@walk" eq "@path" && $end;
				print "alloc $a->{id} $gp->{host} DLID $gp->{dlid}: path ",
					join(",", @{$gp->{path} // []}), ", the LFTs lead ",
					join(",", map { sprintf "0x%x:%d", split /:/ } @walk),
					" to ", $at // "nowhere", "\n";
				exit;
			}
		}
		print "ok\n";' "$1" "$WORK/walk.pairs" "$3"
}

# busy_start SWITCH PORT COUNTER: a loop in the background (its pid in
# BUSY) makes the link leaving SWITCH by PORT busy as traffic would,
# every 0.1 s: PortXmitData sends (PortXmitData up by 1 TB in 4-byte words),
# "wait" stalls (PortXmitWait up by 2e7 ticks; the 32-bit counter lasts
# 20 s at that rate).
busy_start() {
	(
		n=0
		while :; do
			n=$((n + 1))
			if [ "$3" = PortXmitData ]; then
				sim_cmd "PerformanceSet \"$1\"[$2] PortCountersExtended.PortXmitData=$((n * 250000000000))"
			else
				sim_cmd "PerformanceSet \"$1\"[$2] PortCounters.PortXmitWait=$((n * 20000000))"
			fi
			sleep 0.1
		done
	) &
	BUSY=$!
	T_PIDS="$T_PIDS $BUSY"
}

# fill_leaf1: h01's leaf (h01..h04 of ft2-tiny) full, by allocations of
# 4 GPUs (one host each) for h01 until it is; those the daemon put
# elsewhere (the measured loads decide) are released again.  Their ids,
# all on leaf-1, are in LEAF1_IDS, so h01's next GPUs are behind one of
# leaf-1's up-links.
fill_leaf1() {
	local n=0 id off=""
	LEAF1_IDS=""
	until pr pool --json >"$WORK/fill.st" &&
		[ "$(json "$WORK/fill.st" 'join " ", map { $_->{free} }
			grep { $_->{host} =~ /^h0[1-4]$/ } @{$r->{hosts}}')" = "0 0 0 0" ]; do
		n=$((n + 1))
		[ $n -le 16 ] || t_fail "leaf-1 not full after 16 allocations"
		id=$(poold_alloc fill --client h01 --gpus 4)
		case $(json "$WORK/fill" '$r->{gpus}[0]{host}') in
		h0[1-4]) LEAF1_IDS="$LEAF1_IDS $id" ;;
		*) off="$off $id" ;;
		esac
	done
	for id in $off; do
		pr release "$id" >/dev/null || t_fail "release $id"
	done
}
