#!/bin/sh
# SPDX-License-Identifier: MIT
# No import circle between files: a module is a .c with its .h (one
# node, path without extension), an edge is a #include "..." of another
# module's header, resolved beside the file first, then from the top as
# the compiler does with -I.  tsort names every loop it finds.  With a
# directory argument it checks that tree instead (for a planted loop).
set -eu
cd "$(dirname "$0")/../.."
ROOT=${1:-.}
cd "$ROOT"

edges() {
	find topology routing sm plugins tools tests -name '*.[ch]' 2>/dev/null |
	while read -r f; do
		d=$(dirname "$f")
		m=${f%.*}
		echo "$m $m"
		sed -n 's/^#[ \t]*include[ \t]*"\([^"]*\)".*/\1/p' "$f" |
		while read -r h; do
			if [ -f "$d/$h" ]; then
				t=$d/$h
			elif [ -f "$h" ]; then
				t=$h
			else
				continue
			fi
			t=${t%.h}
			[ "$t" = "$m" ] || echo "$m $t"
		done
	done
}

out=$(edges | tsort 2>&1 >/dev/null || true)
n=$(edges | wc -l)
if [ -n "$out" ]; then
	echo "t-cycles: import circles between files:" >&2
	echo "$out" >&2
	exit 1
fi
echo "t-cycles: $n include edges, no circle"
