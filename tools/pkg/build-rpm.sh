#!/bin/sh
# SPDX-License-Identifier: MIT
# make rpm: the checkout's files (tracked and new, not ignored) as
# gpuaware-VERSION.tar.gz, built by rpmbuild -bb with tools/pkg/gpuaware.spec
# into OUT/RPMS.  With OSM_PREFIX (an OpenSM tools/build-opensm.sh
# installed, e.g. 3.3.24 on a Debian host) the plugin is built against it
# and pinned to its version, and the BuildRequires, RHEL's and SLES's
# package names, are not checked.
# usage: tools/pkg/build-rpm.sh [OUT] (default build/rpm)
set -eu
top=$(cd "$(dirname "$0")/../.." && pwd)
out=${1:-$top/build/rpm}
case $out in /*) ;; *) out=$PWD/$out ;; esac
cd "$top"
command -v rpmbuild >/dev/null ||
	{ echo "build-rpm: no rpmbuild (tools/deps.sh --test installs rpm)" >&2; exit 1; }

ver=$(sed -n 's/^VERSION := //p' Makefile)
spec=$(sed -n 's/^Version: *//p' tools/pkg/gpuaware.spec)
if [ "$spec" != "$ver" ]; then
	echo "build-rpm: tools/pkg/gpuaware.spec says $spec, the Makefile $ver" >&2
	exit 1
fi

rm -rf "$out"
mkdir -p "$out/SOURCES" "$out/gpuaware-$ver"
if git rev-parse --git-dir >/dev/null 2>&1; then
	git ls-files -z -c -o --exclude-standard |
		xargs -0 cp --parents -t "$out/gpuaware-$ver"
else
	tar -C "$top" --exclude=./build\* -cf - . | tar -C "$out/gpuaware-$ver" -xf -
fi
tar -C "$out" -czf "$out/SOURCES/gpuaware-$ver.tar.gz" "gpuaware-$ver"
rm -rf "${out:?}/gpuaware-$ver"

set -- --define "_topdir $out"
if [ -n "${OSM_PREFIX:-}" ]; then
	h=$OSM_PREFIX/include/infiniband/opensm/osm_version.h
	v=$(sed -n 's/^#define OSM_VERSION "OpenSM \([^"]*\)"$/\1/p' "$h")
	[ -n "$v" ] || { echo "build-rpm: no OSM_VERSION in $h" >&2; exit 1; }
	set -- "$@" --nodeps --define "osm_prefix $OSM_PREFIX" \
		--define "osm_version $v"
fi
# Debian's rpm has no debugedit: no -debuginfo packages there.
if ! rpm --eval '%{__find_debuginfo}' | grep -q /; then
	set -- "$@" --define 'debug_package %{nil}'
fi
rpmbuild "$@" -bb tools/pkg/gpuaware.spec >"$out/build.log" 2>&1 || {
	tail -30 "$out/build.log" >&2
	echo "build-rpm: rpmbuild failed, log in $out/build.log" >&2
	exit 1
}
find "$out/RPMS" -name '*.rpm' | sort
