#!/bin/sh
# SPDX-License-Identifier: MIT
# Build an upstream OpenSM from its release tarball and install it under a
# private prefix, for the version matrix: `make OSM_PREFIX=<prefix>` builds
# the plugin against it, OSM_PREFIX=<prefix> tests/ibsim/run-all.sh runs
# the end-to-end tests with its opensm.  Prints the prefix.
#
# Usage: tools/build-opensm.sh NAME     (NAME: 3.3.24, master, ...)
#        tools/build-opensm.sh --sources (prints the sources directory)
#   OSM_SOURCES  where opensm-NAME.tar.gz or opensm-NAME-*.tar.gz is
#                (default: ../shared/opensm beside the checkout)
#   OSM_CACHE    where opensm-*/ prefixes are kept
#                (default: ${XDG_CACHE_HOME:-$HOME/.cache}/gpuaware-opensm)
# A prefix built from the same tarball is reused as it is.  Status 2 when
# the sources directory does not exist, 1 on any other failure.
set -eu

top=$(cd "$(dirname "$0")/.." && pwd)
name=${1:?usage: build-opensm.sh NAME | --sources}
src=${OSM_SOURCES:-$(dirname "$top")/shared/opensm}
cache=${OSM_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/gpuaware-opensm}

if [ "$name" = --sources ]; then
	echo "$src"
	exit 0
fi
if [ ! -d "$src" ]; then
	echo "build-opensm: no OpenSM sources at $src (set OSM_SOURCES)" >&2
	exit 2
fi
tarball=""
for f in "$src/opensm-$name.tar.gz" "$src/opensm-$name"-*.tar.gz; do
	[ -e "$f" ] && tarball=$f && break
done
if [ -z "$tarball" ]; then
	echo "build-opensm: no opensm-$name tarball in $src" >&2
	exit 1
fi
base=$(basename "$tarball" .tar.gz)
prefix=$cache/$base
sum=$(sha256sum "$tarball" | awk '{ print $1 }')
if [ -r "$src/SHA256SUMS" ] && grep -q " $base.tar.gz\$" "$src/SHA256SUMS" &&
	! grep -q "^$sum  $base.tar.gz\$" "$src/SHA256SUMS"; then
	echo "build-opensm: $tarball does not match $src/SHA256SUMS" >&2
	exit 1
fi
stamp=$prefix/.gpuaware-built

mkdir -p "$cache"
# Test suites of several checkouts may ask for the same build at once.
exec 9>"$cache/.lock-$base"
flock 9

if [ -x "$prefix/sbin/opensm" ] && [ "$(cat "$stamp" 2>/dev/null)" = "$sum" ]
then
	echo "$prefix"
	exit 0
fi

for c in autoreconf automake libtoolize flex bison make cc; do
	command -v "$c" >/dev/null || {
		echo "build-opensm: missing command $c (tools/deps.sh installs it)" >&2
		exit 1
	}
done

work=$(mktemp -d "$cache/.build-$base.XXXXXX")
trap 'rm -rf "$work"' EXIT
trap 'exit 130' INT TERM
echo "build-opensm: building $base into $prefix" >&2
rm -rf "$prefix"
tar xzf "$tarball" -C "$work"
dir=$(find "$work" -mindepth 1 -maxdepth 1 -type d | head -1)
# OpenSM's version script appends a git revision to OSM_VERSION when it
# finds a repository around the sources; a tarball build must not.
(
	cd "$dir"
	export GIT_DIR=/nonexistent GIT_CEILING_DIRECTORIES="$work"
	autoreconf -fi >"$work/build.log" 2>&1 &&
		./configure --prefix="$prefix" -q >>"$work/build.log" 2>&1 &&
		make -j"$(nproc)" >>"$work/build.log" 2>&1 &&
		make install >>"$work/build.log" 2>&1
) || {
	echo "build-opensm: building $base failed:" >&2
	tail -20 "$work/build.log" >&2
	rm -rf "$prefix"
	exit 1
}
echo "$sum" >"$stamp"
echo "$prefix"
