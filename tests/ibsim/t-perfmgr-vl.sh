#!/bin/sh
# SPDX-License-Identifier: MIT
# t-perfmgr.sh on the 4-level tree with 2 switches lost, whose switch
# LIDs 16 to 19 leaves reach only on VLs of their own (1,296 pairs of CA
# ports and switch LIDs had no route before): QoS on, so OpenSM programs
# the engine's SL2VL; every switch port answers PerfMgr, and verify
# reads the tables back and finds no credit loop.
set -eu
export PM_NAME=perfmgr-vl
export PM_TREE="--radix 8 --levels 4 --drop 0.04 --drop-switches 2 --seed 11"
export PM_OSM="qos TRUE"
export PM_WAIT=120
. "$(dirname "$0")/t-perfmgr.sh"
verify_live live
grep -q "switch LIDs : [0-9]* pairs (unreachable 0," "$WORK/live.verify" ||
	t_fail "verify: $(grep 'switch LIDs' "$WORK/live.verify")"
t_log "verify: $(grep -E 'credit loops' "$WORK/live.verify")"
