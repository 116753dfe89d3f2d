#!/bin/sh
# SPDX-License-Identifier: MIT
# The OpenSM version matrix: for each release in OSM_MATRIX (make check
# passes its own; tools/build-opensm.sh installs each, `make matrix` builds
# the plugin for it), the plugin's end-to-end tests against that OpenSM:
# loading and refusal across versions, the ABI, a fat-tree, a torus with
# SL2VL, job-hint reroutes, a refused fabric (OpenSM's engine in use
# read back), a standby's takeover (the LFT read-back
# touches fields that moved in 3.3.24), and a real Slurm's jobs.  Usage: matrix.sh [BUILD_DIR]
set -eu

here=$(cd "$(dirname "$0")" && pwd)
build=$here/../../tools/build-opensm.sh
B=${1:-build}
fail=0

for v in ${OSM_MATRIX:?make check sets the releases}; do
	if ! prefix=$("$build" "$v"); then
		echo "FAIL opensm-$v: cannot build it"
		fail=1
		continue
	fi
	echo "--- OpenSM $v from $prefix"
	OSM_PREFIX=$prefix "$here/run-all.sh" "$B" m-osm-version t-plugin-abi \
		FABRICS=ft2-small.net t-ftree-route \
		FABRICS=torus-6x6.net t-torus-route t-hints t-refused t-failover \
		t-slurm-e2e ||
		fail=1
done
[ "$fail" -eq 0 ]
