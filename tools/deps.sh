#!/bin/sh
# SPDX-License-Identifier: MIT
# Install the Debian packages gpuaware builds and tests with, or say how.
set -eu

# autoconf ... bison: tools/build-opensm.sh, for the version matrix;
# slurmctld ... curl: the export and metrics tests (slurmctld checks
# topology.conf, promtool the metrics); mandoc lints the man pages;
# librsvg2-bin, libxml2-utils: the map's SVG is checked by rendering it;
# libmunge-dev and munge: MUNGE over TCP, tested against a munged the
# tests start; nettle-dev: SHA-256 for the credentials' replay cache;
# slurmd (with slurmctld and slurm-client): a real Slurm of several
# `slurmd -N` in tests/ibsim/t-slurm-e2e.sh.
PKGS="build-essential opensm libopensm-dev libibumad-dev libibmad-dev
libibnetdisc-dev libibverbs-dev libiniparser-dev libjson-c-dev libcunit1-dev
ibsim-utils infiniband-diags ibutils clang libclang-rt-14-dev xz-utils
autoconf automake libtool flex bison
slurmctld slurmd slurm-client python3-yaml prometheus curl mandoc librsvg2-bin
libxml2-utils libmunge-dev munge nettle-dev"

missing=""
for p in $PKGS; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" ||
		missing="$missing $p"
done
[ -z "$missing" ] && exit 0

if [ "$(id -u)" -ne 0 ]; then
	echo "gpuaware: missing packages; run as root:" >&2
	echo "  apt-get install -y$missing" >&2
	exit 1
fi
echo "gpuaware: installing$missing"
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
# shellcheck disable=SC2086
apt-get install -y -qq --no-install-recommends $missing
