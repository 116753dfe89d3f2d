# SPDX-License-Identifier: MIT
# PASS/FAIL counting the offline tests share; source it after `set -eu`.
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
