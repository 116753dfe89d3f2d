#!/bin/sh
# SPDX-License-Identifier: MIT
# The Debian packages gpuaware needs, in one place: what its programs need
# at run time, what building needs, what the demo and the tests need.
# Installs the lists asked for (as root; else prints the apt-get line).
#
# usage: tools/deps.sh [--build] [--demo] [--test] [--runtime] [--list]
#   --build    make, make deb (the default; debian/control's Build-Depends)
#   --demo     make demo: the build's, plus ibsim and OpenSM
#   --test     make check, make bench, make rpm: the build's and the demo's
#              too, and Slurm, Prometheus's promtool, munge (daemons: test
#              machines only, never an SM host)
#   --runtime  what the installed programs link (the packages' Depends)
#   --list     print the packages, one a line, install nothing
set -eu

# libibumad3 ... libnettle8: the libraries the plugin, ibpoold and
# ibpoolroute link; opensm: the plugin's host, pinned to the version it
# was built against; adduser: ibpoold's package makes its system group.
RUNTIME="opensm libibumad3 libibmad5 libibnetdisc5 libibverbs1 libiniparser1
libjson-c5 libmunge2 libnettle8 adduser"

# debhelper: make deb (tools/pkg/debian); nettle-dev: SHA-256 for the
# MUNGE credentials' replay cache.
BUILD="build-essential debhelper libopensm-dev libibumad-dev libibmad-dev
libibnetdisc-dev libibverbs-dev libiniparser-dev libjson-c-dev libmunge-dev
nettle-dev"

# ibsim-utils: the simulated fabric; infiniband-diags: ibroute and
# ibnetdiscover, which lib.sh checks the switches with.
DEMO="opensm ibsim-utils infiniband-diags"

# libcunit1-dev: the unit tests; ibutils: ibdmchk; clang ...: the fuzz
# targets; autoconf ... bison: tools/build-opensm.sh, the version matrix;
# slurmctld, slurmd, slurm-client: topology.conf checked by slurmctld and
# a real Slurm in t-slurm-e2e.sh; python3-yaml: topology.yaml; prometheus:
# promtool checks the metrics and the alert rules; curl: ibpoold's HTTP
# metrics; mandoc: the man pages; librsvg2-bin, libxml2-utils: the map's
# SVG rendered and parsed; munge: a munged the MUNGE tests start; xz-utils:
# the packed fabrics; lintian, fakeroot: t-package.sh builds and lints the
# .debs; rpm, cpio: make rpm and t-rpm.sh's look inside the RPMs;
# glpk-utils: glpsol solves the packing bound of tests/bench/sched.sh.
TEST="libcunit1-dev ibutils clang libclang-rt-14-dev xz-utils autoconf
automake libtool flex bison slurmctld slurmd slurm-client python3-yaml
prometheus curl mandoc librsvg2-bin libxml2-utils munge lintian fakeroot rpm
cpio glpk-utils"

want=""
list=0
[ $# -gt 0 ] || set -- --build
for a in "$@"; do
	case $a in
	--build) want="$want $BUILD" ;;
	--demo) want="$want $BUILD $DEMO" ;;
	--test) want="$want $BUILD $DEMO $TEST" ;;
	--runtime) want="$want $RUNTIME" ;;
	--list) list=1 ;;
	*)
		sed -n 's/^# usage: /usage: /p' "$0" >&2
		exit 2
		;;
	esac
done
want=$(printf '%s\n' $want | awk 'NF && !seen[$0]++')

if [ $list -eq 1 ]; then
	echo "$want"
	exit 0
fi

missing=""
for p in $want; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" ||
		missing="$missing $p"
done
[ -z "$missing" ] && exit 0

if [ "$(id -u)" -ne 0 ]; then
	echo "gpuaware: missing packages; run as root:" >&2
	echo "  apt-get install -y --no-install-recommends$missing" >&2
	exit 1
fi
echo "gpuaware: installing$missing"
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
# shellcheck disable=SC2086
apt-get install -y -qq --no-install-recommends $missing
