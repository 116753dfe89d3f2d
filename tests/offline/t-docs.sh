#!/bin/sh
# SPDX-License-Identifier: MIT
# The docs follow the code: every ERR/WRN GAxx code the sources log and
# every key the config parsers take is in its man page (and nothing there
# the code no longer has, unless marked retired), the man pages render
# without warnings and are installed, and the README's make targets and
# docs/ paths exist, with its numbers left to docs/benchmarks.md.
# usage: t-docs.sh [BUILDDIR]; prints PASS/FAIL lines and a summary.
set -eu
cd "$(dirname "$0")/../.."
B=${1:-build}
CONF5=docs/gpuaware.conf.5
POOLD8=docs/ibpoold.8

. tests/offline/lib.sh

off_workdir

# same NAME WANT GOT: PASS when the two sorted lists are equal, else the
# difference: "-x" in WANT only, "+x" in GOT only.
same_set() {
	printf '%s\n' "$2" | sed '/^$/d' | sort -u >"$w/want"
	printf '%s\n' "$3" | sed '/^$/d' | sort -u >"$w/got"
	if [ ! -s "$w/want" ]; then
		bad "$1" "found nothing to compare (did the source change shape?)"
	elif cmp -s "$w/want" "$w/got"; then
		ok "$1"
	else
		bad "$1" "$(diff "$w/want" "$w/got" | sed -n 's/^</-/p; s/^>/+/p' |
			tr '\n' ' ')"
	fi
}

# man_items PAGE TITLE: the first word of each .TP item's tag in the .SS
# subsection TITLE of PAGE (through ENVIRON: awk -v would read \f).
man_items() {
	T=$2 awk '
	/^\.S[SH] / { on = (substr($0, 5) == ENVIRON["T"]); next }
	on && tp { w = $2; gsub(/"/, "", w); print w }
	{ tp = on && $0 == ".TP" }' "$1"
}

# man_codes PAGE: "ERR GAnn" / "WRN GAnn" tags of .TP items, with
# "retired " before those of the "Retired codes" subsection.
man_codes() {
	awk '
	/^\.S[SH] / { ret = ($0 == ".SS Retired codes"); next }
	tp && /^\.B (ERR|WRN) GA[0-9][0-9]$/ {
		print (ret ? "retired " : "") $2 " " $3
	}
	{ tp = $0 == ".TP" }' "$1"
}

# --- gpuaware.conf(5): codes ------------------------------------------------
src_codes=$(grep -rhoE '(ERR|WRN) GA[0-9]{2}' --include='*.c' \
	--include='*.h' plugins routing sm topology tools | sort -u)
man_codes "$CONF5" >"$w/codes"
same_set "gpuaware.conf.5: every code the sources log, and only those" \
	"$src_codes" "$(grep -v '^retired ' "$w/codes")"
retired=$(sed -n 's/^retired [A-Z]* //p' "$w/codes")
back=""
for c in $retired; do
	! printf '%s\n' "$src_codes" | grep -q " $c$" || back="$back $c"
done
[ -n "$retired" ] && [ -z "$back" ] &&
	ok "gpuaware.conf.5: retired codes are not logged" ||
	bad "gpuaware.conf.5: retired codes are not logged" \
		"retired but in the sources:${back:- (no retired codes found)}"
dup=$(awk '{ print $NF }' "$w/codes" | sort | uniq -d | tr '\n' ' ')
[ -z "$dup" ] && ok "gpuaware.conf.5: each code once" ||
	bad "gpuaware.conf.5: each code once" "twice: $dup"

# --- gpuaware.conf(5): keys -------------------------------------------------
# The parser's table: { "section:key", ... } lines, and the retired list.
keys=$(sed -n 's/^[[:space:]]*{ "\([a-z_]*:[a-z_]*\)".*/\1/p' \
	plugins/opensm/gaconfig.c)
old=$(awk '/retired\[\] = \{/ { on = 1; next } on && /^};/ { on = 0 }
	on' plugins/opensm/gaconfig.c | sed -n 's/.*"\([a-z_:]*\)".*/\1/p')
doc=""
for s in $(printf '%s\n' "$keys" | cut -d: -f1 | sort -u); do
	doc="$doc
$(man_items "$CONF5" "[$s]" | sed "s/^/$s:/")"
done
same_set "gpuaware.conf.5: every key the plugin reads, in its section" \
	"$keys" "$doc"
same_set "gpuaware.conf.5: every retired key marked retired" "$old" \
	"$(man_items "$CONF5" "Retired keys")"

# The sample names every key (set or commented out), under its section.
sample=$(awk '/^\[[a-z]+\]/ { s = substr($1, 2, length($1) - 2); next }
	/^#? ?[a-z_]+ =/ { sub(/^# ?/, ""); print s ":" $1 }' \
	plugins/opensm/gpuaware.conf)
same_set "gpuaware.conf sample: every key the plugin reads" "$keys" "$sample"

# --- ibpoold(8): pool.conf keys ---------------------------------------------
pool=$(awk '/^static int pool_key\(/ { on = 1 } on && /^}/ { on = 0 } on' \
	tools/lib/pool/config.c | grep -o 'strcmp(key, "[a-z_]*")' |
	sed 's/.*"\(.*\)")/\1/')
host=$(awk '/host_keys\[\] = \{/ { on = 1 } on { print } on && /};/ { on = 0 }' \
	tools/lib/pool/config.c | grep -o '"[a-z_]*"' | tr -d '"')
same_set "ibpoold.8: every [pool] key the daemon reads" "$pool" \
	"$(man_items "$POOLD8" "[pool]")"
same_set "ibpoold.8: every [host NAME] key the daemon reads" "$host" \
	"$(man_items "$POOLD8" '[host \fINAME\fP]')"
sched=$(awk '/^static int sched_key\(/ { on = 1 } on && /^}/ { on = 0 } on' \
	tools/lib/pool/config.c | grep -o 'strcmp(key, "[a-z_]*")' |
	sed 's/.*"\(.*\)")/\1/')
same_set "ibpoold.8: every [sched] key the daemon reads" "$sched" \
	"$(man_items "$POOLD8" "[sched]")"

# --- every man page renders without warnings, and is installed --------------
command -v mandoc >/dev/null || bad "mandoc installed" "run tools/deps.sh"
# Joined continuation lines of what make would run.
inst=$(make -s -n install DESTDIR=/D B="$B" 2>&1 |
	sed -e ':a' -e '/\\$/N; s/\\\n//; ta')
uninst=$(make -s -n uninstall DESTDIR=/D 2>&1)
for m in docs/*.[1-8]; do
	n=$(basename "$m")
	sec=${n##*.}
	# Line filling (groff's "break" warnings) is the terminal's width,
	# not the page.
	out=$({ mandoc -Tlint -W warning "$m" &&
		groff -man -Tutf8 -ww -Wbreak -z "$m"; } 2>&1) || out="$out (failed)"
	[ -z "$out" ] && ok "$n renders without warnings" ||
		bad "$n renders without warnings" "$out"
	printf '%s\n' "$inst" | grep -q "install -m 0644 $m [^ ]*/man$sec/" &&
		printf '%s\n' "$uninst" | grep -q "/man$sec/$n" &&
		ok "$n: make install and uninstall" ||
		bad "$n: make install and uninstall" "not under MANDIR/man$sec"
done

# One place for every program's man page and systemd unit: docs/.
for u in docs/*.service; do
	printf '%s\n' "$inst" | grep -q "$u > [^ ]*/$(basename "$u")" &&
		printf '%s\n' "$uninst" | grep -q "/$(basename "$u")" &&
		ok "$(basename "$u"): make install and uninstall" ||
		bad "$(basename "$u"): make install and uninstall" "not in UNITDIR"
done
stray=$(git ls-files '*.[1-8]' '*.service' | grep -v '^docs/' || true)
[ -z "$stray" ] && ok "man pages and units all in docs/" ||
	bad "man pages and units all in docs/" "$stray"

# --- README ------------------------------------------------------------------
# Its numbers are in docs/benchmarks.md, linked; no percentages here.
pc=$(grep -nE '[0-9] ?%' README.md | head -3 | tr '\n' ' ')
[ -z "$pc" ] && ok "README: no percentages" || bad "README: no percentages" "$pc"
for t in $(awk '/^```/ { code = !code; next } code' README.md |
	grep -oE '(^|[ ;&(])make [a-z][a-z-]*' | awk '{ print $2 }' | sort -u); do
	grep -q "^$t:" Makefile && ok "README: make $t is a target" ||
		bad "README: make $t is a target"
done
for p in $(grep -oE '(docs|tests|tools|ibsim-configs|plugins)/[A-Za-z0-9_./-]*[A-Za-z0-9]' \
	README.md | sort -u); do
	[ -e "$p" ] && ok "README: $p exists" || bad "README: $p exists"
done
[ "$(grep -c '^<!-- test: first-check -->$' README.md)" -ge 1 ] &&
	ok "README: first-check blocks marked for tests/ibsim/t-readme.sh" ||
	bad "README: first-check blocks marked for tests/ibsim/t-readme.sh"

echo "t-docs: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
