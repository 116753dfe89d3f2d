#!/bin/sh
# SPDX-License-Identifier: MIT
# The folder rules (docs/development.md, "Who may use whom") hold on the
# tree and on the built objects, and the check fails on planted breaches.
set -eu
B=${1:-build}
cd "$(dirname "$0")/../.."
. tests/offline/lib.sh
w=$(mktemp -d)
trap 'rm -rf "$w"' EXIT

if python3 tests/offline/layers.py --objects "$B" \
	--prefixes docs/development.md . > "$w/out" 2>&1; then
	ok "layers: the tree and its objects"
else
	bad "layers: the tree and its objects" "$(cat "$w/out")"
fi

# A copy with one upward include and one include circle planted.
for d in topology routing sm plugins tools; do
	cp -r "$d" "$w/$d"
done
printf '#include "../routing/lft.h"\n' >> "$w/topology/fabric.h"
printf '#include "plantb.h"\n' > "$w/topology/planta.h"
printf '#include "planta.h"\n' > "$w/topology/plantb.h"
st=0
python3 tests/offline/layers.py "$w" > "$w/out" 2>&1 || st=$?
if [ $st -eq 1 ] &&
	grep -q '^topology/fabric.h:[0-9]*: topology/ may not include routing/' "$w/out" &&
	grep -q '^include circle: topology/planta <-> topology/plantb$' "$w/out"; then
	ok "layers: planted breaches found"
else
	bad "layers: planted breaches found" "exit $st: $(cat "$w/out")"
fi

# The toy engine of development.md, "Adding an engine", compiles as it
# would in routing/onesw/ (its "../engine.h" reached through updown's).
sed -n '/<!-- test: toy-engine -->/,/^```$/p' docs/development.md |
	sed '1,2d;$d' > "$w/onesw.c"
if [ -s "$w/onesw.c" ] && ${CC:-cc} -std=c11 -D_GNU_SOURCE -Wall -Wextra \
	-Werror -Wmissing-prototypes -Wshadow -Wstrict-prototypes \
	-Wwrite-strings -I. -Irouting/updown -fsyntax-only -x c "$w/onesw.c" \
	> "$w/out" 2>&1; then
	ok "layers: the toy engine of development.md compiles"
else
	bad "layers: the toy engine of development.md compiles" "$(cat "$w/out")"
fi

echo "layers: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
