#!/bin/sh
# SPDX-License-Identifier: MIT
# ibpoolroute map without ibsim: the SVG is well-formed XML that rsvg
# renders; its switches, hosts and links are the fabric's; the busiest
# link and the shading agree with the verifier's numbers; jobs colour
# their hosts; big trees are grouped, their hosts folded; missing cables
# are drawn where they ran; usage errors are one line.
# usage: t-map.sh [BUILDDIR]
set -eu
cd "$(dirname "$0")/../.."
B=${1:-build}
BIN=$B/ibpoolroute
TG=$B/ibtopogen
C=ibsim-configs

. tests/offline/lib.sh
off_workdir

# map NAME ARGS...: ibpoolroute map into $w/NAME.svg; its status in $rc.
map() {
	name=$1
	shift
	rc=0
	"$BIN" map "$@" -o "$w/$name.svg" > "$w/out" 2> "$w/err" || rc=$?
	if grep -q "Sanitizer\|runtime error:" "$w/err"; then
		bad "sanitizer clean: map $name" "$(grep -m1 "Sanitizer\|runtime error:" "$w/err")"
	fi
}

# drawn NAME: NAME.svg is XML and renders to a PNG.
drawn() {
	if [ "$rc" -ne 0 ]; then
		bad "map $1" "exit $rc: $(head -c 300 "$w/err")"
	elif ! xmllint --noout "$w/$1.svg" 2> "$w/xml"; then
		bad "map $1: well-formed" "$(head -3 "$w/xml")"
	elif ! rsvg-convert -o "$w/$1.png" "$w/$1.svg" 2> "$w/rsvg" ||
		[ ! -s "$w/$1.png" ]; then
		bad "map $1: renders" "$(head -3 "$w/rsvg")"
	else
		ok "map $1: XML that renders"
	fi
}

# count PATTERN NAME: lines of NAME.svg with PATTERN.
count() {
	grep -c -- "$1" "$w/$2.svg" || true
}

# loads NAME: every link's shade, one a line.
loads() {
	grep -o 'class="link" data-load="[^"]*"' "$w/$1.svg" |
		sed 's/.*data-load="//; s/"//'
}

# same NAME A B
same() {
	if [ -n "$2" ] && [ "$2" = "$3" ]; then ok "$1"; else bad "$1" "'$2' != '$3'"; fi
}

# gaps NAME: the missing cables the dashed red lines stand for.
gaps() {
	grep -o 'class="gap" data-cables="[0-9]*"' "$w/$1.svg" |
		tr -dc '0-9\n' | awk '{ s += $1 } END { print s + 0 }'
}

# gap_titles NAME: each gap line's "from → to", one a line, sorted.
gap_titles() {
	grep -o 'class="gap"[^<]*<line[^>]*/><title>[^:<]*' "$w/$1.svg" |
		sed 's/.*<title>//' | sort
}

# cables NET: "lower → upper" for each switch-to-switch cable of an
# ibtopogen fat-tree, sorted.
cables() {
	awk 'function lvl(s) { return s ~ /^"leaf/ ? 0 : s ~ /^"spine/ ? 1 : 2 }
	/^Switch/ { sw = $0; sub(/^[^"]*/, "", sw); next }
	/^\[/ && sw != "" {
		p = $0; sub(/^[^"]*/, "", p); sub(/\[.*/, "", p)
		if (p ~ /^"(leaf|spine|core)/ && lvl(sw) < lvl(p)) {
			a = sw; b = p; gsub(/"/, "", a); gsub(/"/, "", b)
			print a " → " b
		}
	}
	/^$/ { sw = "" }' "$1" | sort
}

# hosts NAME [PATTERN]: the hosts the folded bars (or their PATTERN
# parts) stand for.
folded() {
	grep -o "${2:-class=\"hosts\"} data-hosts=\"[0-9]*\"" "$w/$1.svg" |
		sed 's/.*data-hosts="//; s/"//' | awk '{ s += $1 } END { print s + 0 }'
}

# fonts NAME: the smallest font size the picture sets.
fonts() {
	grep -o 'font-size[=:]"\{0,1\}[0-9.]*' "$w/$1.svg" | tr -dc '0-9.\n' |
		sort -g | head -1
}

jval() {
	sed -n "s/^  \"$1\": \(.*\)$/\1/p" "$2" | sed 's/,$//'
}

# ft2-tiny: 6 switches, 16 hosts, 8 cables; balanced, so all shades 1.
map tiny --net $C/ft2-tiny.net
drawn tiny
same "tiny: a box per switch" "$(count 'class="switch"' tiny)" 6
same "tiny: a cell per host" "$(count 'class="host"' tiny)" 16
same "tiny: both directions of 8 cables" "$(count 'class="link"' tiny)" 16
same "tiny: every link at its kind's mean" "$(loads tiny | sort -u)" 1
grep -q "^ibpoolroute: wrote $w/tiny.svg: 2-level fat-tree, 6 boxes" "$w/err" &&
	ok "tiny: says where it wrote" || bad "tiny: says where it wrote" "$(cat "$w/err")"
grep -q '<text x="10" y="64"><tspan fill="#[0-9a-f]*">■</tspan> 1 = balanced: the mean load of links of its kind (same levels or dimension, same way); grey: idle' \
	"$w/tiny.svg" && ok "tiny: the legend says what balanced is" ||
	bad "tiny: the legend says what balanced is" "$(grep -o '<text x="10" y="64">[^<]*' "$w/tiny.svg")"
same "tiny: no cable missing" "$(grep -o 'data-missing="[0-9]*"' "$w/tiny.svg" | sort -u)" 'data-missing="0"'

# A degraded tree: the worst shade is the verifier's worst level ratio.
"$TG" fattree --radix 8 --levels 3 --fail-link 6 --seed 3 -o "$w/deg.net"
map deg --net "$w/deg.net"
drawn deg
# its 6 missing cables marked: dashed red boxes, their sum in the legend;
# the title names the file, not the scratch directory it was in
same "deg: 6 missing cables marked" "$(grep -o 'data-missing="[0-9]*"' "$w/deg.svg" |
	tr -dc '0-9\n' | awk '{ s += $1 } END { print s }')" 6
same "deg: 6 missing cables drawn as gaps" "$(gaps deg)" 6
grep -q 'dashed red: 6 cables missing' "$w/deg.svg" &&
	[ "$(grep -c 'stroke-dasharray="4 2"' "$w/deg.svg")" -ge 1 ] &&
	ok "deg: the legend and the boxes mark them" ||
	bad "deg: the legend and the boxes mark them"
grep -q '<text class="title" x="10" y="18">deg.net: 3-level fat-tree' "$w/deg.svg" &&
	! grep -q "$w" "$w/deg.svg" && ok "deg: the title names the file alone" ||
	bad "deg: the title names the file alone" "$(grep -o '<text class="title"[^<]*' "$w/deg.svg")"
"$BIN" route --net "$w/deg.net" --json --perms 0 > "$w/route.json"
worst=$(loads deg | sort -g | tail -1)
awk -v a="$worst" -v b="$(jval efi_level_ratio "$w/route.json")" \
	'BEGIN { exit !(a > 1 && a - b < 0.001 && b - a < 0.001) }' &&
	ok "deg: worst shade $worst = efi_level_ratio" ||
	bad "deg: worst shade $worst = efi_level_ratio" \
		"$(jval efi_level_ratio "$w/route.json")"
busy=$(grep -o 'busiest link [^:]*: [0-9]* all-to-all routes' "$w/deg.svg" |
	sed 's/.*: \([0-9]*\) all.*/\1/')
same "deg: busiest link = the verifier's efi_max" "$busy" \
	"$(jval efi_max "$w/route.json")"
# each direction's title names the link its shade is of (the busiest of
# a group's): the busiest link's direction carries the largest route
# count of all titles
top=$(grep -o 'class="link" data-load="[^"]*" data-links="[0-9]*"><line[^>]*/><title>[^<]*' "$w/deg.svg" |
	sed 's/.*<title>//' | grep -o ': \(busiest \)\{0,1\}[0-9]* all-to-all' |
	tr -dc '0-9\n' | sort -n | tail -1)
same "deg: the busiest link's own title" "$top" "$busy"

# Each gap runs where the cut cable ran: a tree of single-switch boxes
# with a leaf's and a spine's up-link cut, and one that lost a core
# switch (its spines' up-links there: stubs to no switch).
"$TG" fattree --radix 4 --levels 3 -o "$w/r4.net"
"$TG" fattree --radix 4 --levels 3 --fail-link 2 --seed 5 -o "$w/r4cut.net"
map r4cut --net "$w/r4cut.net"
drawn r4cut
cables "$w/r4.net" > "$w/whole"
cables "$w/r4cut.net" > "$w/cut"
same "r4cut: the gaps are the cut cables" "$(gap_titles r4cut | tr '\n' ';')" \
	"$(comm -23 "$w/whole" "$w/cut" | tr '\n' ';')"
grep -q 'leaf-.*→ spine-' "$w/whole" && [ "$(comm -23 "$w/whole" "$w/cut" | wc -l)" -eq 2 ] &&
	ok "r4cut: two cables cut" || bad "r4cut: two cables cut"
"$TG" fattree --radix 4 --levels 3 --fail-switch core-1 -o "$w/r4lost.net"
map r4lost --net "$w/r4lost.net"
drawn r4lost
same "r4lost: a stub from each spine that lost core-1" "$(gap_titles r4lost | tr '\n' ';')" \
	"spine-p0-0 → a switch not in the fabric;spine-p1-0 → a switch not in the fabric;spine-p2-0 → a switch not in the fabric;spine-p3-0 → a switch not in the fabric;"
same "tiny: no gaps" "$(gaps tiny)" 0

# Jobs: their hosts in their colours, links by the flows a round.
"$TG" jobs --net $C/ft3-small.net --jobs 4-16 --seed 3 -o "$w/jobs.json"
map jobs --net $C/ft3-small.net --jobs "$w/jobs.json"
drawn jobs
j1=$(grep -o '"id":"j1","weight":[0-9]*,"hosts":\[[^]]*\]' "$w/jobs.json" |
	grep -o '"node[0-9]*"' | wc -l)
same "jobs: j1's hosts in its colour" "$(count 'data-job="j1"' jobs)" "$j1"
grep -q 'load: all-to-all flows a round' "$w/jobs.svg" &&
	ok "jobs: coloured by the jobs' flows" || bad "jobs: coloured by the jobs' flows"
[ "$(loads jobs | sort -g | tail -1)" != "0" ] &&
	ok "jobs: some link carries flows" || bad "jobs: some link carries flows"
map jfold --net $C/ft3-small.net --jobs "$w/jobs.json" --fold 0
drawn jfold
same "jobs --fold 0: j1's hosts in its share of the bars" \
	"$(folded jfold 'data-job="j1"')" "$j1"
same "jobs --fold 0: no host cells" "$(count 'class="host"' jfold)" 0
map ring --net $C/ft3-small.net --jobs "$w/jobs.json" --pattern ring
grep -q 'load: ring flows a round' "$w/ring.svg" &&
	ok "jobs: --pattern ring" || bad "jobs: --pattern ring"

# The other shapes.
map torus --net $C/torus-small.net
drawn torus
grep -q ': 4x4x4 torus, 64 switches' "$w/torus.svg" &&
	[ "$(count 'class="switch"' torus)" -eq 64 ] &&
	[ "$(grep -c '>plane [0-3]</text>' "$w/torus.svg")" -eq 4 ] &&
	ok "torus: 64 switches in 4 planes" || bad "torus: 64 switches in 4 planes"
map df --net $C/dragonfly-small.net
drawn df
grep -q ': dragonfly of 9 groups' "$w/df.svg" &&
	ok "dragonfly: 9 groups" || bad "dragonfly: 9 groups"
map dump --dump tests/data/osm-ft2-ftree
drawn dump

# 1,024 hosts on a 2-level tree: no row of more than 12 boxes, so the
# picture stays within a screen's width, switch names in their full
# font (none shrunk to fit), group labels keeping whole numbers; the
# hosts folded, one bar a box with its count, no text under 9 units.
"$TG" fattree --k 32 --levels 2 -o "$w/k32.net"
map k32 --net "$w/k32.net"
drawn k32
width=$(grep -o '^<svg [^>]*width="[0-9]*"' "$w/k32.svg" | sed 's/.*width="//; s/"//')
[ "$(count 'class="switch"' k32)" -le 24 ] && [ "$width" -lt 1400 ] &&
	[ "$(count 'text-anchor="middle" font-size=' k32)" -eq 0 ] &&
	grep -q '>leaf-{9..11} (3)</text>' "$w/k32.svg" &&
	ok "k32: 1,024 hosts in rows of 12 boxes, $width wide" ||
	bad "k32: 1,024 hosts in rows of 12 boxes" "$(count 'class="switch"' k32) boxes, $width wide"
[ "$(count 'class="host"' k32)" -eq 0 ] && [ "$(folded k32)" -eq 1024 ] &&
	grep -q '>96 hosts</text>' "$w/k32.svg" &&
	ok "k32: hosts folded, a bar a box, 1024 in all" ||
	bad "k32: hosts folded" "$(count 'class="host"' k32) cells, $(folded k32) folded"
awk -v f="$(fonts k32)" 'BEGIN { exit !(f >= 9) }' &&
	ok "k32: no text under 9 units" || bad "k32: no text under 9 units" "$(fonts k32)"
map k32cells --net "$w/k32.net" --fold 1024
[ "$(count 'class="host"' k32cells)" -eq 1024 ] && [ "$(folded k32cells)" -eq 0 ] &&
	ok "k32 --fold 1024: a cell a host" || bad "k32 --fold 1024: a cell a host"
# a 3-level tree of 1,024 hosts: whole pods a box, 8 boxes a row
map k1 --net $C/ft3-1k.net
drawn k1
same "ft3-1k: two whole pods a box" "$(grep -o '>leaf-p{[^<]*<' "$w/k1.svg" | head -2 | tr -d '<>' | tr '\n' ' ')" \
	"leaf-p{0-0..1-7} (16) leaf-p{2-0..3-7} (16) "

# 4,096 hosts: switches share boxes, the hosts folded into their bars.
map big --net $C/ft3-4k.net --json
drawn big
n=$(count 'class="switch"' big)
[ "$n" -le 144 ] && grep -q '"grouped":true' "$w/out" &&
	grep -q '"hosts_folded":true' "$w/out" && [ "$(folded big)" -eq 4096 ] &&
	ok "big: $n boxes for 768 switches, 4096 hosts folded" ||
	bad "big: grouped" "$n boxes; $(cat "$w/out")"

# Names that are not ASCII, or not UTF-8 at all, still give XML.
printf '%s\n' 'Switch 4 "sw-ääää-long-name-über"' \
	'[1] "sw-\344\344"[1]' '[2] "node-<&>"[1]' '' \
	'Switch 4 "sw-\344\344"' \
	'[1] "sw-ääää-long-name-über"[1]' '[2] "node-2"[1]' '' \
	'Ca 1 "node-<&>"' '[1] "sw-ääää-long-name-über"[2]' '' \
	'Ca 1 "node-2"' '[1] "sw-\344\344"[2]' > "$w/names.net"
map names --net "$w/names.net"
drawn names

# Over an existing file: a new file renamed into place (an interrupted
# map never leaves half a picture); a symlink or a FIFO there is refused,
# never written through (issue 24).
before=$(ls -i "$w/tiny.svg" | cut -d' ' -f1)
map tiny --net $C/ft2-tiny.net
[ "$rc" -eq 0 ] && [ "$(ls -i "$w/tiny.svg" | cut -d' ' -f1)" != "$before" ] &&
	ok "an existing picture replaced whole" || bad "an existing picture replaced whole"
: > "$w/target.svg"
ln -s "$w/target.svg" "$w/link.svg"
map link --net $C/ft2-tiny.net
[ "$rc" -eq 2 ] && [ -L "$w/link.svg" ] && [ ! -s "$w/target.svg" ] &&
	grep -q "link.svg: refuse: not a regular file" "$w/err" &&
	ok "a symlink refused, its target untouched" ||
	bad "a symlink refused, its target untouched" "exit $rc: $(cat "$w/err")"
mkfifo "$w/fifo.svg"
rc=0
timeout 10 "$BIN" map --net $C/ft2-tiny.net -o "$w/fifo.svg" 2>"$w/err" || rc=$?
[ "$rc" -eq 2 ] && grep -q "fifo.svg: refuse: not a regular file" "$w/err" &&
	ok "a FIFO refused at once" || bad "a FIFO refused at once" "exit $rc: $(cat "$w/err")"

# stdout by default
"$BIN" map --net $C/ft2-tiny.net > "$w/std.svg" 2> "$w/err" &&
	cmp -s "$w/std.svg" "$w/tiny.svg" && ok "stdout: the same picture" ||
	bad "stdout: the same picture"

# Errors: one line (under --json on stdout), exit 2, an earlier picture
# kept.
cp "$w/tiny.svg" "$w/keep.svg"
err() {
	name=$1 pat=$2
	shift 2
	rc=0
	"$BIN" map "$@" > "$w/out" 2> "$w/err" || rc=$?
	cat "$w/out" "$w/err" > "$w/both"
	if [ "$rc" -eq 2 ] && grep -qF -- "$pat" "$w/both" &&
		[ "$(wc -l < "$w/both")" -eq 1 ]; then
		ok "$name"
	else
		bad "$name" "exit $rc: $(cat "$w/both")"
	fi
}
err "no --jobs for --load jobs" "needs --jobs" --net $C/ft2-tiny.net --load jobs
err "counters are live only" "live fabric" --net $C/ft2-tiny.net --load counters
err "unknown load" "unknown load 'bytes'" --net $C/ft2-tiny.net --load bytes
err "--json needs a file" '"code":"usage","message":"map --json needs -o FILE' \
	--net $C/ft2-tiny.net --json
err "missing directory" "$w/no/such.svg" --net $C/ft2-tiny.net -o "$w/no/such.svg"
mkdir "$w/adir"
err "a directory" "$w/adir: refuse: not a regular file" --net $C/ft2-tiny.net -o "$w/adir"
err "bad jobs file" "$w/none.json" --net $C/ft2-tiny.net --jobs "$w/none.json" -o "$w/keep.svg"
cmp -s "$w/keep.svg" "$w/tiny.svg" && ok "a failed map leaves the old file" ||
	bad "a failed map leaves the old file"
[ -z "$(ls -A "$w" | grep '\.tmp')" ] && ok "no temporary files left" ||
	bad "no temporary files left" "$(ls "$w")"

echo "map: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
