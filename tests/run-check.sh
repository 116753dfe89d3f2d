#!/bin/sh
# SPDX-License-Identifier: MIT
# The whole suite: unit tests, offline CLI, Slurm hook, ibpoold, docs, alert
# rules, then (unless --offline) the ibsim end-to-end tests (the Debian
# packages' among them) against the system's OpenSM, the releases of the
# version matrix (OSM_MATRIX) and the RPMs built against its sources'
# 3.3.24.  Ends with one "N passed, N failed" line, after a SKIP line when
# OSM_MATRIX is empty or the matrix's sources are missing.
set -u
B=${1:-build}
MODE=${2:-}
cd "$(dirname "$0")/.."

pass=0
fail=0
run() {
	name=$1
	shift
	echo "=== $name"
	if "$@"; then
		pass=$((pass + 1))
		echo "PASS $name"
	else
		fail=$((fail + 1))
		echo "FAIL $name"
	fi
}

run unit "$B/unit-tests"
run pool-link tests/link/t-pool-link.sh "$B"
run offline tests/offline/t-cli.sh "$B"
run map tests/offline/t-map.sh "$B"
run trace tests/offline/t-trace.sh "$B"
run replay tests/offline/t-replay.sh "$B"
run slurm tests/offline/t-slurm.sh "$B"
run install tests/offline/t-install.sh "$B"
run poold tests/offline/t-poold.sh "$B"
run poold-daemon tests/offline/t-poold-daemon.sh "$B"
run poold-restart tests/offline/t-poold-restart.sh "$B"
run poold-tcp tests/offline/t-poold-tcp.sh "$B"
run poold-queue tests/offline/t-poold-queue.sh "$B"
run poold-share tests/offline/t-poold-share.sh "$B"
run munge tests/offline/t-munge.sh "$B"
run export tests/offline/t-export.sh "$B"
run docs tests/offline/t-docs.sh "$B"
run layers tests/offline/t-layers.sh "$B"
run alerts tests/offline/t-alerts.sh "$B"
skip=""
if [ "$MODE" != "--offline" ]; then
	run ibsim tests/ibsim/run-all.sh "$B"
	src=$(tools/build-opensm.sh --sources)
	if [ -z "${OSM_MATRIX:-}" ]; then
		skip="SKIP opensm-matrix: OSM_MATRIX is empty: the plugin was tested against the system's OpenSM only"
	elif [ -d "$src" ]; then
		run opensm-matrix tests/ibsim/matrix.sh "$B"
	else
		skip="SKIP opensm-matrix: no OpenSM sources at $src (set OSM_SOURCES): the plugin was tested against the system's OpenSM only, no RPM built"
	fi
	[ ! -d "$src" ] || run rpm tests/offline/t-rpm.sh "$B"
fi
[ -z "$skip" ] || echo "$skip"
echo "check: $pass passed, $fail failed${skip:+, 1 skipped}"
[ "$fail" -eq 0 ]
