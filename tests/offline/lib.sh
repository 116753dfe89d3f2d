# SPDX-License-Identifier: MIT
# PASS/FAIL counting and the helpers the offline tests share; source it
# after `set -eu`.
# refused writes $w/out and $w/err: $w is the script's work directory.

pass=0
fail=0
ok() {
	pass=$((pass + 1))
	echo "PASS $1"
}
bad() {
	fail=$((fail + 1))
	echo "FAIL $1${2:+: $2}"
}

# refused NAME CODE CMD...: ibpoolroute exits 1 with that error code;
# its output stays in $w/out and $w/err.
refused() {
	name=$1
	code=$2
	shift 2
	st=0
	"$@" > "$w/out" 2> "$w/err" || st=$?
	if [ $st -eq 1 ] && grep -q "^ibpoolroute: $code: " "$w/err"; then
		ok "$name"
	else
		bad "$name" "exit $st: $(cat "$w/err" "$w/out")"
	fi
}

# run CMD...: stdout in $w/out, stderr in $w/err, exit status in $rc.
# A sanitizer report is a failure of its own, whatever the status.
run() {
	rc=0
	"$@" > "$w/out" 2> "$w/err" || rc=$?
	if grep -q "Sanitizer\|runtime error:" "$w/err"; then
		bad "sanitizer clean: $*" "$(grep -m1 "Sanitizer\|runtime error:" "$w/err")"
	fi
}

# expect NAME RC [PATTERN [FILE]]: status RC and PATTERN (fixed) in FILE
# ($w/out), which is quoted when PATTERN is not there.
expect() {
	name=$1 want=$2 pat=${3:-} file=${4:-$w/out}
	if [ "$rc" -ne "$want" ]; then
		bad "$name" "exit $rc, want $want; $(head -c 300 "$w/err")"
	elif [ -n "$pat" ] && ! grep -qF -- "$pat" "$file"; then
		bad "$name" "no '$pat' in $(basename "$file"): $(head -c 300 "$file")"
	else
		ok "$name"
	fi
}

# quiet CMD...: CMD with its output dropped.
quiet() {
	"$@" >/dev/null 2>&1
}

# check NAME CMD...: PASS when CMD succeeds.
check() {
	name=$1
	shift
	if "$@"; then ok "$name"; else bad "$name"; fi
}

# off_workdir VAR...: $w, a fresh work directory, removed on exit, when
# the processes whose pids the variables VAR... hold then are killed.
off_workdir() {
	w=$(mktemp -d)
	off_pidvars=$*
	trap off_cleanup EXIT INT TERM
}

off_cleanup() {
	for v in $off_pidvars; do
		eval "p=\${$v:-}"
		if [ -n "$p" ]; then
			# shellcheck disable=SC2086 # a variable may hold several
			kill -9 $p 2>/dev/null || true
		fi
	done
	rm -rf "$w"
}

# poold_start DAEMON CONF NET: ibpoold on CONF, offline on NET, polled
# (up to 10 s) until it logs that it serves; its pid in $pid, its log in
# $w/log.
poold_start() {
	: >"$w/log"
	"$1" -c "$2" --net "$3" 2>"$w/log" &
	pid=$!
	i=0
	until grep -q "serving" "$w/log"; do
		i=$((i + 1))
		if [ $i -gt 200 ] || ! kill -0 "$pid" 2>/dev/null; then
			echo "ibpoold did not start:"
			cat "$w/log"
			exit 1
		fi
		sleep 0.05
	done
}

# poold_stop: SIGTERM to $pid, reaped.
poold_stop() {
	kill "$pid"
	wait "$pid" || true
	pid=
}

# poold_setup VAR...: what the ibpoold tests start with, after sourcing
# this file from the tree's top with $B set: NET the fabric, D and R the
# daemon and client, tests/json.sh's json, and off_workdir VAR... with
# each VAR (a pid to kill on exit) set empty.
poold_setup() {
	NET=ibsim-configs/ft2-small.net
	D=$B/ibpoold
	R=$B/ibpoolroute
	. tests/json.sh
	for v in "$@"; do
		eval "$v="
	done
	off_workdir "$@"
}

# poold_conf SOCKET STATE_DIR [LINE...]: a pool.conf on stdout: [pool]
# with SOCKET, STATE_DIR and $w/sm.sock, then each LINE ("key = value"),
# then hosts node0001..node0004 of NET, 4 H100s each, HCAs by node
# description.
poold_conf() {
	printf '[pool]\nsocket = %s\nstate_dir = %s\nsm_socket = %s/sm.sock\n' \
		"$1" "$2" "$w"
	shift 2
	for l in "$@"; do
		printf '%s\n' "$l"
	done
	for k in 1 2 3 4; do
		printf '[host node%04d]\ngpus = 4\ngpu_type = H100\nhca = node%04d mlx5_0\n' \
			"$k" "$k"
	done
}
