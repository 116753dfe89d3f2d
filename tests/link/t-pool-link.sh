#!/bin/sh
# SPDX-License-Identifier: MIT
# The pool library links and runs without the daemon: build/pool-only,
# linked against libgppool.a and libgpcore.a alone, allocates from a
# pool.conf, and its link map holds no daemon object, no socket server
# or client and no routing module.
set -eu
B=${1:-build}
cd "$(dirname "$0")/../.."

fail() {
	echo "t-pool-link: $*" >&2
	exit 1
}

[ -x "$B/pool-only" ] && [ -f "$B/pool-only.map" ] ||
	fail "$B/pool-only or its map missing (make $B/pool-only)"
"$B/pool-only" ibsim-configs/pool-ft2-tiny.conf ||
	fail "pool-only failed"

# The archive members the linker took, one "lib.a(member.o)" a line.
members=$(awk '/^Archive member included/ { on = 1; next }
	/^(Discarded input sections|Allocating common|Memory Configuration)/ { on = 0 }
	on && /^[^ ]+\.a\(/ { sub(/\).*/, ")"); print }' "$B/pool-only.map")
[ -n "$members" ] || fail "no archive members in $B/pool-only.map"
echo "$members" | grep -q 'libgppool\.a(pool\.o)' ||
	fail "pool.o not linked from libgppool.a: the map is not read right"

bad=""
for m in $members; do
	case $m in
	*libpoold.a\(*|*liblivefab.a\(*|*libgpcli.a\(*) bad="$bad $m" ;;
	*libgpcore.a\(server.o\)|*libgpcore.a\(client.o\)) bad="$bad $m" ;;
	esac
done
for f in $(find routing -name '*.c'); do
	o=$(basename "$f" .c).o
	case " $(echo $members) " in
	*"libgpcore.a($o)"*) bad="$bad routing:$o" ;;
	esac
done
[ -z "$bad" ] || fail "the pool library pulled in:$bad"
echo "t-pool-link: pool-only links $(echo "$members" | wc -l) members, none of the daemon's"
