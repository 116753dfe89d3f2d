#!/bin/sh
# SPDX-License-Identifier: MIT
# Run every ibsim end-to-end test: one "PASS t-x" / "FAIL t-x" line each,
# then "ibsim: N passed, M failed".  Usage: run-all.sh [BUILD_DIR]
# (default build).  A failed test's log ends up on stderr.
set -eu

here=$(cd "$(dirname "$0")" && pwd)
export B="${1:-build}"
limit=${T_TIMEOUT:-300}
pass=0
fail=0
log=$(mktemp /tmp/gpuaware-run-all.XXXXXX)
trap 'rm -f "$log"' EXIT

for t in "$here"/t-*.sh; do
	[ -e "$t" ] || continue
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
