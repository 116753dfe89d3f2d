#!/bin/sh
# SPDX-License-Identifier: MIT
# Run the ibsim end-to-end tests: one "PASS t-x" / "FAIL t-x" line each,
# then "ibsim: N passed, M failed".  Usage: run-all.sh [BUILD_DIR [TEST...]]
# (default build, every t-*.sh); a TEST is a script's name without .sh,
# or VAR=VALUE set for the tests after it.  A failed test's log ends up on
# stderr.
set -eu

here=$(cd "$(dirname "$0")" && pwd)
export B="${1:-build}"
[ $# -eq 0 ] || shift
[ $# -gt 0 ] || set -- "$here"/t-*.sh
limit=${T_TIMEOUT:-300}
pass=0
fail=0
log=$(mktemp /tmp/gpuaware-run-all.XXXXXX)
trap 'rm -f "$log"' EXIT

for t in "$@"; do
	case $t in
	*=*)
		# shellcheck disable=SC2163
		export "$t"
		continue
		;;
	*/*) ;;
	*) t=$here/$t.sh ;;
	esac
	name=$(basename "$t" .sh)
	if timeout "$limit" sh "$t" >"$log" 2>&1; then
		echo "PASS $name"
		pass=$((pass + 1))
	else
		echo "FAIL $name"
		sed 's/^/    /' "$log" >&2
		fail=$((fail + 1))
	fi
done

echo "ibsim: $pass passed, $fail failed"
[ "$fail" -eq 0 ] && [ "$pass" -gt 0 ]
