#!/bin/sh
# SPDX-License-Identifier: MIT
# Regenerate the test fabrics in this directory from build/ibtopogen.
# Usage: ibsim-configs/regen.sh [BUILD_DIR]   (default: build)
set -eu

cd "$(dirname "$0")/.."
G=${1:-build}/ibtopogen
D=ibsim-configs

if [ ! -x "$G" ]; then
	echo "regen.sh: $G not found; run make first" >&2
	exit 1
fi
# 2-level: 8 leaves x 4 hosts, every leaf to each of 4 spines (32 hosts)
"$G" fattree --leaves 8 --hosts-per-leaf 4 --spines 4 -o $D/ft2-small.net
# 3-level folded Clos of radix-8 switches: 8 pods, 16 cores (128 hosts)
"$G" fattree --radix 8 --levels 3 -o $D/ft3-small.net
# rail-optimised: 2 SUs x 8 hosts x 4 rails, 4 spines (16 hosts, 64 HCAs)
"$G" rail --sus 2 --hosts-per-su 8 --rails 4 --spines 4 -o $D/rail-small.net
# 3-level folded Clos of radix-16 switches: 320 switches (1,024 hosts)
"$G" fattree --radix 16 --levels 3 -o $D/ft3-1k.net
# 16-ary 3-tree: 3 levels of 256 switches (4,096 hosts)
"$G" fattree --k 16 --levels 3 -o $D/ft3-4k.net
# 4x4x4 torus, one host per switch (64 hosts), with OpenSM's torus-2QoS seed
"$G" torus --dims 4x4x4 -o $D/torus-small.net \
	--torus2qos $D/torus-small.torus-2QoS.conf
# 6x6 torus, two hosts per switch (72 hosts): radix 6 needs the dateline
"$G" torus --dims 6x6 --hosts-per-switch 2 -o $D/torus-6x6.net
# 4x4x4 mesh, two hosts per switch (128 hosts)
"$G" mesh --dims 4x4x4 --hosts-per-switch 2 -o $D/mesh-small.net \
	--torus2qos $D/mesh-small.torus-2QoS.conf
# canonical dragonfly: 9 groups of 4 switches, 2 hosts each (72 hosts)
"$G" dragonfly --hosts-per-switch 2 --switches-per-group 4 \
	--global-links 2 -o $D/dragonfly-small.net
