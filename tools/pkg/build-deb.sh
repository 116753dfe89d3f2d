#!/bin/sh
# SPDX-License-Identifier: MIT
# make deb: the checkout's files (tracked and new, not ignored) copied to
# OUT/src with tools/pkg/debian/ as its debian/, built there with
# dpkg-buildpackage -us -uc -b; the .debs, .buildinfo and .changes land
# in OUT.  usage: tools/pkg/build-deb.sh [OUT] (default build/pkg)
set -eu
top=$(cd "$(dirname "$0")/../.." && pwd)
out=${1:-$top/build/pkg}
case $out in /*) ;; *) out=$PWD/$out ;; esac
cd "$top"

ver=$(sed -n 's/^VERSION := //p' Makefile)
deb=$(dpkg-parsechangelog -l tools/pkg/debian/changelog -S Version)
if [ "${deb%-*}" != "$ver" ]; then
	echo "build-deb: tools/pkg/debian/changelog says $deb, the Makefile $ver" >&2
	exit 1
fi

rm -rf "$out"
mkdir -p "$out/src"
if git rev-parse --git-dir >/dev/null 2>&1; then
	git ls-files -z -c -o --exclude-standard | grep -zv '^tools/pkg/debian/' |
		xargs -0 cp --parents -t "$out/src"
else
	tar -C "$top" --exclude=./build\* --exclude=./tools/pkg/debian -cf - . |
		tar -C "$out/src" -xf -
fi
cp -r tools/pkg/debian "$out/src/debian"
cd "$out/src"
dpkg-buildpackage -us -uc -b >"$out/build.log" 2>&1 || {
	tail -30 "$out/build.log" >&2
	echo "build-deb: dpkg-buildpackage failed, log in $out/build.log" >&2
	exit 1
}
ls "$out"/*.deb
