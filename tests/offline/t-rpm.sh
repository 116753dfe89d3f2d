#!/bin/sh
# SPDX-License-Identifier: MIT
# make rpm against OpenSM 3.3.24 (RHEL/AlmaLinux 10, SLES) built by
# tools/build-opensm.sh: the plugin in the RPM carries 3.3.24's version
# string and requires exactly that opensm; ibpoold's RPM holds the unit,
# the group's state directory and pool.conf as a kept config; the alert
# rules are in the tools' RPM.  Needs the matrix's OpenSM sources.
# usage: t-rpm.sh [BUILDDIR]; prints PASS/FAIL lines and a summary.
set -eu
cd "$(dirname "$0")/../.."
B=${1:-build}

. tests/offline/lib.sh
off_workdir

command -v rpmbuild >/dev/null ||
	{ bad "rpmbuild installed" "tools/deps.sh --test"; exit 1; }
prefix=$(tools/build-opensm.sh 3.3.24) ||
	{ bad "OpenSM 3.3.24 built" "tools/build-opensm.sh 3.3.24"; exit 1; }
if OSM_PREFIX=$prefix tools/pkg/build-rpm.sh "$w/rpm" >"$w/out" 2>&1; then
	ok "make rpm OSM_PREFIX=opensm-3.3.24"
else
	bad "make rpm" "$(tail -5 "$w/out")"
	exit 1
fi
R=$w/rpm/RPMS
plugin=$(ls "$R"/*/gpuaware-opensm-plugin-*.rpm)
mkdir "$w/x"
(cd "$w/x" && rpm2cpio "$plugin" | cpio -id --quiet)
check "the plugin is built for OpenSM 3.3.24" \
	grep -q 'OpenSM 3\.3\.24' "$w/x/usr/lib64/libgpuaware.so"
rpm -qp --requires "$plugin" 2>/dev/null >"$w/req"
check "the plugin requires opensm = 3.3.24" grep -qx 'opensm = 3.3.24' "$w/req"
rpm -qp --configfiles "$R"/*/gpuaware-opensm-plugin-*.rpm \
	"$R"/*/ibpoold-*.rpm "$R"/*/gpuaware-slurm-hooks-*.rpm 2>/dev/null |
	sort >"$w/conf"
printf '%s\n' /etc/gpuaware/pool.conf /etc/gpuaware/slurm-hooks.conf \
	/etc/opensm/gpuaware.conf >"$w/conf.want"
check "config files: pool.conf, slurm-hooks.conf, gpuaware.conf" \
	cmp -s "$w/conf" "$w/conf.want"
rpm -qplv "$R"/*/ibpoold-*.rpm 2>/dev/null >"$w/files"
check "ibpoold's unit" grep -q ' /usr/lib/systemd/system/ibpoold.service$' \
	"$w/files"
check "the state directory, group gpuaware, 0750" \
	grep -q '^drwxr-x--- .* root *gpuaware .* /var/lib/gpuaware$' "$w/files"
rpm -qp --scripts "$R"/*/ibpoold-*.rpm 2>/dev/null >"$w/scripts"
check "enabled, never started" sh -c "grep -q 'systemctl --no-reload enable ibpoold' '$w/scripts' && ! grep -Eq 'systemctl (--no-reload )?start' '$w/scripts'"
rpm -qpl "$R"/*/gpuaware-tools-*.rpm 2>/dev/null >"$w/tools"
check "the alert rules in the tools" \
	grep -qx /usr/share/gpuaware/prometheus/gpuaware-alerts.yml "$w/tools"

echo "t-rpm: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
