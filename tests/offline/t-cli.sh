#!/bin/sh
# SPDX-License-Identifier: MIT
# ibpoolroute without ibsim: analyze on OpenSM dumps in tests/data (and
# broken copies of them), route on net files, usage errors, --jobs;
# ibtopogen's torus-2QoS.conf against the net file it wrote, its job mixes.
# usage: t-cli.sh [BUILDDIR]; prints PASS/FAIL lines and a summary.
set -eu
cd "$(dirname "$0")/../.."
B=${1:-build}
BIN=$B/ibpoolroute
TG=$B/ibtopogen
D=tests/data

. tests/offline/lib.sh
off_workdir

# jval KEY FILE: a top-level scalar of the pretty JSON report.
jval() {
	sed -n "s/^  \"$1\": \(.*\)$/\1/p" "$2" | sed 's/,$//; s/^"//; s/"$//'
}

# json NAME: the last output is one valid JSON object.
json() {
	if command -v jq > /dev/null; then
		if jq -e 'type == "object"' "$w/out" > /dev/null 2>&1; then
			ok "$1"
		else
			bad "$1" "not a JSON object"
		fi
	elif head -1 "$w/out" | grep -qx '{' && tail -1 "$w/out" | grep -qx '}'
	then
		ok "$1"
	else
		bad "$1" "not a JSON object"
	fi
}

# same NAME A B: A and B are equal, non-empty numbers or strings.
same() {
	if [ -n "$2" ] && [ "$2" = "$3" ]; then ok "$1"
	else bad "$1" "'$2' != '$3'"; fi
}

[ -x "$BIN" ] || { echo "FAIL $BIN not built"; echo "offline: 0 passed, 1 failed"; exit 1; }

# --- usage ---------------------------------------------------------------
run "$BIN" --help
expect "help" 0 "Examples:"
for c in analyze route; do
	check "help lists $c" grep -q "^  $c " "$w/out"
done
run "$BIN" analyze --help
expect "subcommand help" 0 "Usage:"
run "$BIN"
expect "no command" 2 "ibpoolroute: no command given (try 'ibpoolroute --help')" "$w/err"
run "$BIN" frobnicate
expect "unknown command" 2 "unknown command 'frobnicate'" "$w/err"
run "$BIN" analyze --bogus "$D/osm-ft2-ftree"
expect "unknown option" 2 "unknown option '--bogus' (try 'ibpoolroute --help')" "$w/err"
check "unknown option: one line, no help" [ "$(wc -l < "$w/err")" -eq 1 ]
run "$BIN" analyze --net x "$D/osm-ft2-ftree"
expect "option of another command" 2 "not an option of analyze" "$w/err"
run "$BIN" route --net
expect "missing argument" 2 "needs an argument" "$w/err"
run "$BIN" route
expect "route without --net" 2 "needs --net" "$w/err"
run "$BIN" analyze
expect "analyze without DIR" 2 "wrong number of arguments" "$w/err"
for a in "--perms abc" "--perms -1" "--seed 1x" "--lmc 8"; do
	# shellcheck disable=SC2086
	run "$BIN" route --net "$D/osm-ft2-ftree/net" $a
	expect "bad number $a" 2 "bad" "$w/err"
done
run "$BIN" route --net "$D/osm-ft2-ftree/net" --engine minhop
expect "unknown engine" 2 "unknown engine 'minhop'" "$w/err"
run "$BIN" verify --sa table2
expect "unknown SA mode" 2 "unknown SA mode 'table2' (auto, table or pair)" "$w/err"
for a in "verify --sample 0" "verify --sample x" "counters --top 0" \
	"counters --top -3"; do
	# shellcheck disable=SC2086
	run "$BIN" $a
	expect "bad number $a" 2 "bad" "$w/err"
done
run "$BIN" route --net "$D/osm-ft2-ftree/net" --sample 5
expect "--sample is verify's" 2 "not an option of route" "$w/err"

# One engine list: both tools' --help and both man pages name the same
# engines, and route takes each of them.
el=$("$BIN" --help | sed -n 's/^.*--engine NAME *\(.*\) (auto).*$/\1/p')
same "engine list: ibpoolroute and ibpoold --help" "$el" \
	"$("$B/ibpoold" --help | sed -n 's/^.*--engine NAME *offline: \(.*\) (auto)$/\1/p')"
roff=".BR $(echo "$el" | sed 's/, / ", " /g; s/ or / " or " /')"
for m in docs/ibpoolroute.1 docs/ibpoold.8; do
	check "engine list: $m as --help" grep -qxF "$roff" "$m"
done
for e in $(echo "$el" | sed 's/,//g; s/ or / /'); do
	run "$BIN" route --net "$D/osm-ft2-ftree/net" --engine "$e" --perms 0
	check "engine list: route takes $e" sh -c "! grep -q 'unknown engine' '$w/err'"
done

# --- CLI conventions, all three tools ----------------------------------------
# one_line NAME: the last command failed with 2 and one line on stderr
# that points to --help.
one_line() {
	if [ "$rc" -eq 2 ] && [ "$(wc -l < "$w/err")" -eq 1 ] &&
	   grep -q " (try '[a-z ]* --help')$" "$w/err"; then
		ok "$1"
	else
		bad "$1" "exit $rc: $(head -c 300 "$w/err")"
	fi
}
# json_error NAME CODE: the last command failed with 2, said nothing on
# stderr and printed one error object of CODE on stdout.
json_error() {
	if [ "$rc" -eq 2 ] && [ ! -s "$w/err" ] && [ "$(wc -l < "$w/out")" -eq 1 ] &&
	   grep -q "^{\"ok\":false,\"error\":{\"code\":\"$2\",\"message\":\"" "$w/out"; then
		json "$1"
	else
		bad "$1" "exit $rc: $(head -c 300 "$w/out" "$w/err")"
	fi
}

version=$(sed -n 's/^VERSION := //p' Makefile)
for t in "$BIN --version" "$BIN -V" "$BIN state --version" \
	 "$B/ibpoold --version" "$B/ibpoold -V" "$TG --version" \
	 "$TG torus --version" "$TG jobs --version"; do
	# shellcheck disable=SC2086
	run $t
	name=$(basename "${t%% *}")
	expect "$t" 0 "$name (gpuaware) $version"
done

run "$BIN" route --net
one_line "ibpoolroute: missing argument"
run "$BIN" route --net "$D/osm-ft2-ftree/net" --lmc 9
one_line "ibpoolroute: bad number"
run "$B/ibpoold"
one_line "ibpoold: no -c"
run "$B/ibpoold" --bogus
one_line "ibpoold: unknown option"
run "$B/ibpoold" -c x --lmc 1
one_line "ibpoold: --lmc without --net"
run "$TG"
one_line "ibtopogen: no fabric type"
run "$TG" frob
one_line "ibtopogen: unknown fabric type"
run "$TG" torus --levels 3
one_line "ibtopogen: option of another fabric"
run "$TG" jobs --net
one_line "ibtopogen jobs: missing argument"
check "ibtopogen jobs: points to jobs --help" grep -q "(try 'ibtopogen jobs --help')" "$w/err"
run "$TG" jobs --bogus
one_line "ibtopogen jobs: unknown option"

# --json: usage errors and failures as one error object on stdout
run "$BIN" analyze --json --bogus "$D/osm-ft2-ftree"
json_error "--json: usage error" usage
run "$BIN" route --json
json_error "--json: route without --net" usage
run "$BIN" route --json --net "$w/no-such.net"
json_error "--json: a missing file" failed
check "--json: the failure's message" grep -q 'no-such.net: No such file' "$w/out"

# Sockets that refuse say what to check, in text and in JSON.
run "$BIN" state --socket "$w/none.sock"
check "SM socket missing: is OpenSM running, which setting" grep -qx \
	"ibpoolroute: $w/none.sock: connect: No such file or directory; is OpenSM running .*\[hints\] socket in /etc/opensm/gpuaware.conf.*" "$w/err"
run "$BIN" pool --socket "$w/none.sock"
check "pool socket missing: is ibpoold running, which setting" grep -q \
	"No such file or directory; is ibpoold running? Its socket is \[pool\] socket" "$w/err"
: > "$w/stale.sock"
run "$BIN" allocs --socket "$w/stale.sock"
expect "pool socket nobody serves" 2 "Connection refused; nobody listens on it" "$w/err"
run "$BIN" pool --socket tcp:127.0.0.1:1
expect "TCP port nobody serves" 2 "Connection refused; nothing listens on that port" "$w/err"
run "$BIN" pool --json --socket "$w/none.sock"
json_error "--json: socket missing" unreachable
check "--json: socket missing, with its hint" grep -q '"hint":"is ibpoold running?' "$w/out"
run "$BIN" hints get --json --socket "$w/stale.sock"
json_error "--json: SM socket nobody serves" unreachable
check "--json: SM socket nobody serves, with its hint" grep -q '"hint":"nobody listens on it: OpenSM' "$w/out"

# The man pages and --help name the same options (and --help has them).
# opts_of FILE: the long options a --help output or a man page names.
opts_of() {
	sed 's/\\-/-/g; s/\\f[BIRP]//g' "$1" | grep -oE -- '--[a-zA-Z][a-zA-Z0-9-]*' |
		sort -u
}
for t in ibpoolroute:1 ibpoold:8 ibtopogen:1; do
	tool=${t%:*}
	"$B/$tool" --help > "$w/help"
	[ "$tool" = ibtopogen ] && "$TG" jobs --help >> "$w/help"
	opts_of "$w/help" > "$w/h"
	opts_of "docs/$tool.${t#*:}" > "$w/m"
	same "$tool: --help and $tool.${t#*:} name the same options" \
		"$(comm -3 "$w/h" "$w/m" | tr -d '\t' | tr '\n' ' ')x" x
done

# --- analyze on real dumps -------------------------------------------------
for dir in "$D"/osm-*/; do
	dir=${dir%/}
	n=$(basename "$dir")
	run "$BIN" analyze "$dir"
	cp "$w/out" "$w/text"
	trc=$rc
	if [ $rc -eq 0 ] && grep -q "^status      : ok$" "$w/text"; then
		ok "$n: exit 0 and status ok"
	elif [ $rc -eq 1 ] && grep -q "^status      : FAIL" "$w/text"; then
		ok "$n: exit 1 and status FAIL"
	else
		bad "$n: exit status matches report" "exit $rc"
	fi
	check "$n: OpenSM's tables deliver" \
		grep -q "unreachable 0, holes 0, loops 0" "$w/text"
	run "$BIN" analyze --json "$dir"
	json "$n: --json"
	same "$n: --json exit" "$rc" "$trc"
	same "$n: switches" "$(jval switches "$w/out")" \
		"$(grep -c '^Unicast lids' "$dir/opensm-lfts.dump")"
	same "$n: CAs" "$(jval cas "$w/out")" \
		"$(grep -o '{ CA[^}]*NodeGUID:[0-9a-f]*' "$dir/opensm-subnet.lst" |
			sed 's/.*NodeGUID://' | sort -u | wc -l)"
	same "$n: text and JSON pairs" "$(jval pairs "$w/out")" \
		"$(sed -n 's/^pairs       : \([0-9]*\) .*/\1/p' "$w/text")"
	same "$n: text and JSON switch routes" "$(jval mgmt_pairs "$w/out")" \
		"$(sed -n 's/^mgmt routes : \([0-9]*\) .*/\1/p' "$w/text")"
	[ "$(jval ok "$w/out")" = true ] && jok=0 || jok=1
	same "$n: JSON ok matches exit" "$jok" "$rc"
done

# OpenSM's ftree on a pure tree is complete and deadlock-free (ibdmchk
# agrees on these dumps).
run "$BIN" analyze "$D/osm-ft2-ftree"
expect "ftree dump checks out" 0 "credit loops: none"
run "$BIN" analyze --json "$D/osm-2sw-lmc1"
same "LMC inferred from the LFTs" "$(jval lmc "$w/out")" 1
same "max LID with LMC 1" "$(jval max_lid "$w/out")" \
	"$(printf '%d' "$(sed -n 's/^\(0x[0-9a-f]*\) .*/\1/p' \
		"$D/osm-2sw-lmc1/opensm-lfts.dump" | sort | tail -1)")"

run "$BIN" analyze --perms 0 "$D/osm-ft2-ftree"
expect "--perms 0 skips eBB" 0 "not measured"
run "$BIN" analyze --json --perms 20 --seed 7 "$D/osm-ft2-ftree"
e1=$(jval ebb "$w/out")
run "$BIN" analyze --json --perms 20 --seed 7 "$D/osm-ft2-ftree"
same "eBB repeats for a seed" "$(jval ebb "$w/out")" "$e1"
same "seed reported" "$(jval seed "$w/out")" 7

# --- analyze on broken copies ------------------------------------------------
# copy NAME: a scratch copy of fixture NAME in $w/NAME.
copy() {
	rm -rf "${w:?}/$1"
	cp -r "$D/$1" "$w/$1"
}

# Switch1 reaches Hca2 (LID 4) over port 3; port 7 has no cable.
copy osm-2sw-minhop
lf=$w/osm-2sw-minhop/opensm-lfts.dump
ln=$(grep -n '^0x0004 003' "$lf" | head -1 | cut -d: -f1)
sed -i "${ln}s/^0x0004 003/0x0004 007/" "$lf"
run "$BIN" analyze "$w/osm-2sw-minhop"
expect "hole: exit 1" 1 "first bad"
check "hole counted" grep -q "holes [1-9]" "$w/out"

# Switch1 sends Hca1's LID 2 to Switch2, which sends it back.
copy osm-2sw-minhop
ln=$(grep -n '^0x0002 001' "$lf" | head -1 | cut -d: -f1)
sed -i "${ln}s/^0x0002 001/0x0002 005/" "$lf"
run "$BIN" analyze --json "$w/osm-2sw-minhop"
expect "loop: exit 1" 1
check "loop counted" [ "$(jval loops "$w/out")" -gt 0 ]

copy osm-2sw-minhop
ln=$(grep -n '^0x0004 003' "$lf" | head -1 | cut -d: -f1)
sed -i "${ln}s/^0x0004 003/0x0004 x/" "$lf"
run "$BIN" analyze "$w/osm-2sw-minhop"
expect "bad port: exit 2 with file:line" 2 \
	"ibpoolroute: $lf:$ln: bad port 'x'" "$w/err"

copy osm-2sw-minhop
sl=$w/osm-2sw-minhop/opensm-subnet.lst
last=$(wc -l < "$sl")
size=$(wc -c < "$D/osm-2sw-minhop/opensm-subnet.lst")
head -c $((size - 30)) "$D/osm-2sw-minhop/opensm-subnet.lst" > "$sl"
run "$BIN" analyze "$w/osm-2sw-minhop"
expect "truncated subnet.lst" 2 "$sl:$last: truncated line" "$w/err"

copy osm-2sw-minhop
rm "$lf"
run "$BIN" analyze "$w/osm-2sw-minhop"
expect "missing lfts dump" 2 "opensm-lfts.dump: No such file" "$w/err"

# The LMC 0 sweep's tables do not fit the LMC 1 sweep's LIDs.
copy osm-2sw-lmc1
cp "$D/osm-2sw-minhop/opensm-lfts.dump" "$w/osm-2sw-lmc1/"
run "$BIN" analyze "$w/osm-2sw-lmc1"
expect "dumps of different sweeps" 2 "opensm-lfts.dump:" "$w/err"

# SL2VL is read.  On a 5-switch ring minhop sends every 2-hop route the
# short way round: a VL 0 cycle of CA-to-CA data each way; putting sw0's
# sw4->sw1 and sw1->sw4 hops on VL 1 breaks both.
run "$BIN" analyze --json "$D/osm-ring5-qos"
expect "ring: minhop credit loop" 1
same "ring: loop reported" "$(jval credit_loops "$w/out")" true
same "ring: switch routes' dependencies not looked at" \
	"$(jval mgmt_cdg_checked "$w/out")" false
run "$BIN" analyze "$D/osm-ring5-qos"
expect "ring: no count of switch routes' dependencies" 1 \
	"), dependencies not checked (credit loop without them)"
copy osm-ring5-qos
vf=$w/osm-ring5-qos/opensm-sl2vl.dump
for io in "3   2" "2   3"; do
	ln=$(grep -n "^$io   :" "$vf" | head -1 | cut -d: -f1)
	sed -i "${ln}s/^$io   : 0 /$io   : 1 /" "$vf"
	run "$BIN" analyze --json "$w/osm-ring5-qos"
	[ "$io" = "3   2" ] && expect "ring: one dateline leaves a loop" 1
done
expect "ring: two datelines break the loops" 0
same "ring: two VLs" "$(jval vls "$w/out")" 2
sed -i "${ln}s/   : 1 /   : 16/" "$vf"
run "$BIN" analyze "$w/osm-ring5-qos"
expect "bad SL2VL entry" 2 "$vf:$ln: bad VL" "$w/err"
rm "$vf"
run "$BIN" analyze "$w/osm-ring5-qos"
expect "no SL2VL dump: VL 0" 1 "SL2VL       : none"

# --- a report that cannot be written ----------------------------------------
# One message for analyze, route and verify (counters needs a fabric);
# under --json it goes to stdout as the error object, lost with the rest.
if [ -w /dev/full ]; then
	for c in "analyze $D/osm-ft2-ftree" "route --net $D/osm-ft2-ftree/net"
	do
		rc=0
		# shellcheck disable=SC2086
		"$BIN" $c >/dev/full 2>"$w/err" || rc=$?
		expect "$c to a full disk" 2 \
			"ibpoolroute: cannot write the report: No space left on device" \
			"$w/err"
	done
	rc=0
	"$BIN" route --json --net "$D/osm-ft2-ftree/net" >/dev/full 2>&1 || rc=$?
	expect "route --json to a full disk" 2
fi

# --- route --vls: within the VLs the SM can program, as the plugin ----------
"$TG" torus --dims 8x8 --hosts-per-switch 2 -o "$w/t8.net"
run "$BIN" route --net "$w/t8.net" --perms 0
expect "8x8 torus, answers on VLs of their own" 0 "(4 data VLs)"
run "$BIN" route --net "$w/t8.net" --perms 0 --vls 2
expect "8x8 torus within 2 VLs" 0 "(2 data VLs)"
check "answers said unchecked within 2 VLs" \
	grep -q "switch answers unchecked (their VLs are more than the SM can program)" "$w/out"
run "$BIN" route --net "$w/t8.net" --vls 0
one_line "ibpoolroute: --vls 0"

# --- route -------------------------------------------------------------------
net=$D/osm-ft2-ftree/net
run "$BIN" route --net "$net"
expect "route fat-tree" 0 "engine      : fattree"
check "route time shown" grep -q "^route time  : " "$w/out"
check "peak memory shown" grep -q "^peak memory : [0-9.]* MiB" "$w/out"
run "$BIN" route --json --net "$net"
json "route --json"
p0=$(jval pairs "$w/out")
ports=$(jval ca_ports "$w/out")
check "route_seconds" [ -n "$(jval route_seconds "$w/out")" ]
run "$BIN" route --json --lmc 1 --net "$net"
expect "route --lmc 1" 0
same "LMC 1 adds a LID per CA port" "$(jval pairs "$w/out")" \
	"$((p0 + ports * (ports - 1)))"
same "route lmc" "$(jval lmc "$w/out")" 1

ring=$D/osm-ring5-qos/net
run "$BIN" route --net "$ring" --engine fattree
expect "fattree refuses a ring" 2 "does not fit" "$w/err"
run "$BIN" route --json --net "$ring"
expect "auto routes a ring" 0 '"engine": "updown"'
same "updown ring has no loop" "$(jval credit_loops "$w/out")" false
run "$BIN" route --net "$w/no-such.net"
expect "missing net file" 2 "no-such.net" "$w/err"

# --- --jobs ------------------------------------------------------------------
# jobs FILE JSON: write a job list.
jobs() {
	printf '%s\n' "$2" > "$1"
}
jf=$w/jobs.json
jobs "$jf" '{"jobs":[{"id":"a","hosts":["node00","node02"],"weight":2},
	{"id":"b","hosts":["node01"]}]}'
run "$BIN" route --net "$net" --jobs "$jf"
expect "route --jobs" 0 "job a       : 2 hosts (2 CA ports), weight 2, max own link load"
check "route --jobs: job b, weight 1" grep -q "^job b       : 1 hosts (1 CA ports), weight 1," "$w/out"
check "route --jobs: shared links" grep -q "^shared links: [0-9]* of [0-9]* directed" "$w/out"
run "$BIN" route --json --net "$net" --jobs "$jf"
json "route --jobs --json"
check "route --jobs: the guard's choice" grep -q '"kept": "' "$w/out"
check "route --jobs: modelled with and without" sh -c \
	"[ \$(grep -c '\"alltoall_worst\": [0-9]' '$w/out') -eq 2 ]"
check "route --jobs --json: job ids" grep -q '"id": "b"' "$w/out"
check "route --jobs --json: max load" grep -q '"max_link_load": [0-9]' "$w/out"
check "route --jobs --json: shared_links" [ -n "$(jval shared_links "$w/out")" ]
run "$BIN" route --json --net "$net"
check "no --jobs, no job fields" sh -c "! grep -q shared_links '$w/out'"
a2a=$(grep '"efi_' "$w/out")
run "$BIN" route --json --net "$net" --jobs "$jf" --measure-only
same "--measure-only routes as without jobs" "$(grep '"efi_' "$w/out")" "$a2a"
check "--measure-only: no job model" sh -c "! grep -q job_model '$w/out'"
run "$BIN" route --net "$net" --jobs "$jf" --job-policy isolate
expect "no job policies any more" 2 "unknown option '--job-policy'" "$w/err"
run "$BIN" route --net "$net" --jobs "$jf" --search-moves 100000001
expect "search moves past the limit" 2 "bad search moves '100000001' (0-100000000)" "$w/err"
run "$BIN" route --net "$net" --jobs "$jf" --search-moves -1
expect "negative search moves" 2 "bad search moves '-1'" "$w/err"
run "$BIN" route --json --net "$net" --jobs "$jf" --search-moves 500
expect "route --search-moves" 0 '"unreachable": 0,'
run "$BIN" analyze --jobs "$jf" "$D/osm-ft2-ftree"
expect "analyze --jobs" 0 "job b       : 1 hosts"
run "$BIN" verify --jobs "$jf" --lmc 1
expect "verify takes no --lmc" 2 "not an option of verify" "$w/err"
run "$BIN" state --perms 3
expect "state takes no --perms" 2 "not an option of state" "$w/err"
run "$BIN" hints frob --socket "$w/none.sock"
expect "hints: unknown request" 2 "use get, set FILE" "$w/err"
run "$BIN" hints add j1 --socket "$w/none.sock"
expect "hints add needs hosts" 2 "use get, set FILE" "$w/err"
run "$BIN" hints get --socket "$w/none.sock"
expect "hints: no socket" 2 "none.sock: connect: No such file" "$w/err"
run "$BIN" hints add j1 h1 --weight 0 --socket "$w/none.sock"
expect "hints add: bad weight" 2 "bad weight '0'" "$w/err"

# jobs_error NAME JSON MESSAGE: --jobs with JSON fails with MESSAGE.
jobs_error() {
	jobs "$jf" "$2"
	run "$BIN" route --net "$net" --jobs "$jf"
	expect "$1" 2 "$jf: $3" "$w/err"
}
jobs_error "jobs: unknown host" '{"jobs":[{"id":"a","hosts":["node09"]}]}' \
	"job 'a': unknown host 'node09'"
jobs_error "jobs: duplicate id" \
	'{"jobs":[{"id":"a","hosts":["node00"]},{"id":"a","hosts":[]}]}' \
	"job 'a' given twice"
# Jobs sharing a host: the host routes with the first, c (none of its
# own) is left out, said.
jobs "$jf" '{"jobs":[{"id":"a","hosts":["node00","node02"]},{"id":"b","hosts":["node02","node01"]},{"id":"c","hosts":["node00"]}]}'
run "$BIN" route --net "$net" --jobs "$jf"
expect "jobs sharing hosts: routed" 0 "job b       : 1 hosts (1 CA ports)"
expect "jobs sharing hosts: c said to route with a" 0 \
	"ibpoolroute: $jf: job 'c' has no host of its own: its hosts route with job 'a'" \
	"$w/err"
jobs_error "jobs: bad weight" '{"jobs":[{"id":"a","hosts":[],"weight":0}]}' \
	"job 'a': \"weight\" must be an integer 1-1000"
jobs_error "jobs: no hosts" '{"jobs":[{"id":"a"}]}' \
	"job 'a': \"hosts\" missing or not an array"
jobs_error "jobs: host not a string" '{"jobs":[{"id":"a","hosts":[1]}]}' \
	"job 'a': hosts[0] is not a string"
jobs_error "jobs: no id" '{"jobs":[{"hosts":[]}]}' \
	"jobs[0]: \"id\" missing or not a string"
jobs_error "jobs: no list" '{"job":[]}' "\"jobs\" missing or not an array"
jobs "$jf" '{"jobs":[{"id":"a",'
run "$BIN" route --net "$net" --jobs "$jf"
expect "jobs: bad JSON" 2 "$jf: " "$w/err"
run "$BIN" route --net "$net" --jobs "$w/no-such.json"
expect "jobs: missing file" 2 "no-such.json" "$w/err"

# ibtopogen jobs: seeded, valid, routable
if [ -x "$TG" ]; then
	"$TG" fattree --radix 8 --levels 3 -o "$w/ft3.net"
	run "$TG" jobs --net "$w/ft3.net" --jobs 4-6 --seed 9 -o "$w/mix1.json"
	expect "ibtopogen jobs" 0
	"$TG" jobs --net "$w/ft3.net" --jobs 4-6 --seed 9 -o "$w/mix2.json"
	check "ibtopogen jobs: same seed, same mix" cmp -s "$w/mix1.json" "$w/mix2.json"
	"$TG" jobs --net "$w/ft3.net" --jobs 4-6 --seed 10 -o "$w/mix2.json"
	check "ibtopogen jobs: other seed, other mix" \
		sh -c "! cmp -s '$w/mix1.json' '$w/mix2.json'"
	n=$(grep -c '"id":' "$w/mix1.json")
	check "ibtopogen jobs: 4 to 6 jobs" [ "$n" -ge 4 -a "$n" -le 6 ]
	run "$BIN" route --net "$w/ft3.net" --perms 0 --jobs "$w/mix1.json"
	expect "route a generated mix" 0 "credit loops: none"
	same "generated mix: every job reported" "$(grep -c 'max own link load' "$w/out")" "$n"
	# The switches' own routes on a degraded 3-level tree (48 switches,
	# 64 hosts): followed from each switch to every other LID, and no
	# loop or credit loop through them.
	"$TG" fattree --k 4 --levels 3 --drop 0.1 --seed 1 -o "$w/ft3d.net"
	run "$BIN" route --net "$w/ft3d.net" --perms 0 --json
	same "switch routes: pairs of a degraded tree" \
		"$(jval mgmt_pairs "$w/out")" $((48 * (64 + 47)))
	same "switch routes: no loop" "$(jval mgmt_loops "$w/out")" 0
	same "switch routes: no credit loop" \
		"$(jval mgmt_credit_loops "$w/out")" false
	run "$TG" jobs --net "$w/ft3.net" --jobs 5-4
	expect "ibtopogen jobs: bad range" 2 "bad --jobs '5-4'" "$w/err"
	run "$TG" jobs --net "$w/ft3.net" --jobs 3 --sizes 4-8 --seed 2 \
		-o "$w/sized.json"
	expect "ibtopogen jobs --sizes" 0
	check "ibtopogen jobs --sizes: 3 jobs of 4-8 hosts" awk '
		/"id":/ { n++; h = gsub(/"node/, ""); if (h < 4 || h > 8) bad = 1 }
		END { exit bad || n != 3 }' "$w/sized.json"
	"$TG" jobs --net "$w/ft3.net" --jobs 8 --sizes 30-40 -o "$w/full.json"
	check "ibtopogen jobs --sizes: hosts run out, no empty job" sh -c \
		"! grep -q '\"hosts\":\[\]' '$w/full.json' &&
		 [ \$(grep -c '\"id\":' '$w/full.json') -lt 8 ]"
	run "$TG" jobs --net "$w/ft3.net" --sizes 8-4
	expect "ibtopogen jobs: bad sizes" 2 "bad --sizes '8-4'" "$w/err"
	run "$TG" jobs --net "$w/ft3.net" --fragment -1
	expect "ibtopogen jobs: negative fragment" 2 "bad --fragment '-1'" "$w/err"

	# simulate: routed here with and without the jobs
	run "$BIN" simulate --net "$w/ft3.net" --jobs "$w/mix1.json" --perms 5
	expect "simulate --net" 0 "alltoall mean"
	check "simulate: ring, eBB and a line per job and pattern" sh -c "
		grep -q '^ring worst *:' '$w/out' && grep -q '^ebb *:' '$w/out' &&
		grep -q '^nccl-alltoall mean *:' '$w/out' &&
		[ \$(grep -c ' a2a *:' '$w/out') -eq $n ] &&
		[ \$(grep -c ' nccl *:' '$w/out') -eq $n ] &&
		[ \$(grep -c ' ring *:' '$w/out') -eq $n ]"
	run "$BIN" simulate --net "$w/ft3.net" --jobs "$w/mix1.json" --json \
		--pattern ring --perms 0
	expect "simulate --json" 0
	json "simulate --json: one object"
	nw=$(grep -c '"name": "with jobs"' "$w/out" || :)
	no=$(grep -c '"name": "without jobs"' "$w/out" || :)
	check "simulate --json: two routings, ring only" sh -c "
		[ '$nw' = 1 ] && [ '$no' = 1 ] && grep -q ring_mean '$w/out' &&
		! grep -q alltoall '$w/out'"
	run "$BIN" simulate --net "$w/ft3.net" --jobs "$w/mix1.json" \
		--measure-only --perms 0 --pattern alltoall --rounds 3
	expect "simulate --measure-only" 0 "without jobs"
	check "simulate --measure-only: one routing" sh -c \
		"! grep -q 'with jobs' '$w/out'"
	run "$BIN" simulate --net "$w/ft3.net" --jobs "$w/mix1.json" --oracle \
		--perms 0 --pattern ring
	expect "simulate --oracle" 0 "oracle all"
	check "simulate --oracle: four routings" grep -q \
		"with jobs without jobs   oracle all   oracle own" "$w/out"
	run "$BIN" simulate --net "$w/ft3.net"
	expect "simulate: needs --jobs" 2 "needs --jobs" "$w/err"
	run "$BIN" simulate --net "$w/ft3.net" --dump "$D/osm-2sw-minhop" \
		--jobs "$w/mix1.json"
	expect "simulate: --net or --dump" 2 "not both" "$w/err"
	run "$BIN" simulate --net "$w/ft3.net" --jobs "$w/mix1.json" \
		--pattern allreduce
	expect "simulate: bad pattern" 2 "unknown pattern 'allreduce'" "$w/err"
	run "$BIN" simulate --net "$w/ft3.net" --jobs "$w/mix1.json" --rounds 0
	expect "simulate: bad rounds" 2 "bad rounds '0'" "$w/err"
fi

# simulate on OpenSM's dump: two hosts a switch apart, then a hole.
jobs "$w/pair.json" '{"jobs":[{"id":"a","hosts":["Hca1","Hca2"]}]}'
run "$BIN" simulate --dump "$D/osm-2sw-minhop" --jobs "$w/pair.json"
expect "simulate --dump" 0 "a ring"
check "simulate --dump: line rate alone" grep -q '^ring mean *: *1.000' "$w/out"
copy osm-2sw-minhop
lf=$w/osm-2sw-minhop/opensm-lfts.dump
ln=$(grep -n '^0x0004 003' "$lf" | head -1 | cut -d: -f1)
sed -i "${ln}s/^0x0004 003/0x0004 007/" "$lf"
run "$BIN" simulate --dump "$w/osm-2sw-minhop" --jobs "$w/pair.json"
expect "simulate: a lost flow, exit 1" 1 "LOST"
check "simulate: the lost job gets nothing" grep -q '^ring worst *: *0.000' "$w/out"

# --- ibtopogen --torus2qos --------------------------------------------------
# t2q_check NET CONF: CONF has one size line and a seed; every seed link
# joins two switches of NET that a cable joins, the second one step from
# the first in the stated direction (by their sw-x-y-z names, modulo the
# radix of the size line); the links of a seed share their first switch,
# which its datelines put at its own coordinates.  Prints "ok" or the
# first thing wrong.
t2q_check() {
	awk '
	function err(m) { if (e == "") e = m }
	function quoted(   s) { match($0, /"[^"]*"/)
		return substr($0, RSTART + 1, RLENGTH - 2) }
	function coords(nm, c,   n, a, i) { n = split(nm, a, "-")
		for (i = 0; i < 3; i++) c[i] = i + 2 <= n ? a[i + 2] + 0 : 0 }
	function seed_end(   i) {
		if (from == "")
			return
		seeds++
		coords(name[from], c)
		for (i = 0; i < 3; i++)
			if (c[i] != (r[i] - dl[i]) % r[i])
				err("seed " name[from] ": dateline " i " is " dl[i])
		from = ""
		split("", dl)
	}
	FNR == 1 { file++ }
	file == 1 && /^switchguid=/ { g = tolower(substr($0, 12)); next }
	file == 1 && /^Switch[ \t]/ { cur = quoted(); name[g] = cur; next }
	file == 1 && /^(Hca|Ca|Rt)[ \t]/ { cur = ""; next }
	file == 1 && /^\[/ && cur != "" { cab[cur, quoted()] = 1; next }
	file == 1 { next }
	/^[ \t]*(#|$)/ { next }
	$1 == "torus" || $1 == "mesh" {
		if (sized++) err("two size lines")
		for (i = 0; i < 3; i++) r[i] = $(i + 2) + 0
		next
	}
	$1 == "next_seed" { seed_end(); next }
	$1 == "portgroup_max_ports" { next }
	$1 ~ /^[xyz]_dateline$/ { dl[index("xyz", substr($1, 1, 1)) - 1] = $2 + 0
		next }
	$1 ~ /^[xyz][pm]_link$/ {
		a = tolower($2); b = tolower($3)
		d = index("xyz", substr($1, 1, 1)) - 1
		st = substr($1, 2, 1) == "p" ? 1 : -1
		if (!(a in name) || !(b in name)) {
			err($1 " " $2 " " $3 ": not a switch of the net file")
			next
		}
		if (from == "") from = a
		if (a != from) err($1 ": from " name[a] ", not " name[from])
		if (!cab[name[a], name[b]])
			err($1 ": no cable " name[a] " - " name[b])
		coords(name[a], ca)
		coords(name[b], cb)
		for (i = 0; i < 3; i++) {
			want = i == d ? (ca[i] + st + r[i]) % r[i] : ca[i]
			if (cb[i] != want)
				err($1 ": " name[b] " is not " name[a] (st > 0 ? " +" : " -") "1 in " substr("xyz", d + 1, 1))
		}
		next
	}
	{ err("unknown line: " $0) }
	END { seed_end()
		if (!sized) err("no size line")
		if (!seeds) err("no seed")
		print e == "" ? "ok" : e }' "$1" "$2"
}

# t2q NAME SIZE ARGS...: ibtopogen ARGS with --torus2qos writes a
# torus-2QoS.conf whose size line is SIZE and whose seeds check out.
t2q() {
	tn=$1 size=$2
	shift 2
	run "$TG" "$@" -o "$w/t2q.net" --torus2qos "$w/t2q.conf"
	expect "$tn: exit 0" 0
	if [ ! -s "$w/t2q.conf" ]; then
		bad "$tn: conf written"
		return
	fi
	same "$tn: size line" "$(grep -E '^(torus|mesh) ' "$w/t2q.conf")" \
		"$size"
	same "$tn: seed links" "$(t2q_check "$w/t2q.net" "$w/t2q.conf")" ok
}

# first_seed CONF: the "Xy_link FROM TO" lines before any next_seed.
first_seed() {
	awk '$1 == "next_seed" { exit } $1 ~ /_link$/ { print $1, $2, $3 }' "$1"
}

if [ -x "$TG" ]; then
	sw0=0x0002c90200000000
	t2q "t2q torus" "torus 4 4 4" torus --dims 4x4x4 --hosts-per-switch 2
	same "t2q torus: radix 4 seeds both ways" \
		"$(first_seed "$w/t2q.conf" | awk '{ print $1 }' | tr '\n' ' ')" \
		"xp_link xm_link yp_link ym_link zp_link zm_link "
	same "t2q torus: seed at sw-0-0-0" \
		"$(first_seed "$w/t2q.conf" | awk '{ print $2 }' | sort -u)" "$sw0"
	check "t2q torus: a backup seed" grep -q '^next_seed$' "$w/t2q.conf"
	"$TG" torus --dims 4x4x4 --hosts-per-switch 2 -o "$w/plain.net"
	check "t2q: net file unchanged by --torus2qos" \
		cmp -s "$w/plain.net" "$w/t2q.net"

	t2q "t2q failed switch" "torus 4 4 4" torus --fail-switch sw-0-0-0
	check "t2q failed switch: not in the seeds" \
		sh -c "! grep -qi '$sw0' '$w/t2q.conf'"
	check "t2q failed switch: dateline moves the origin" \
		grep -q '^x_dateline -' "$w/t2q.conf"

	t2q "t2q failed link" "torus 8 8 8" torus --dims 8x8x8 \
		--hosts-per-switch 2 --fail-link sw-0-0-0:sw-1-0-0
	same "t2q failed link: seed moves on" \
		"$(first_seed "$w/t2q.conf" | awk '{ print $2 }' | sort -u)" \
		0x0002c90200000001
	same "t2q failed link: radix 8 seeds one way" \
		"$(first_seed "$w/t2q.conf" | wc -l)" 3

	t2q "t2q mesh" "mesh 4 4 2" mesh --dims 4x4x2 --hosts-per-switch 2
	check "t2q mesh: + links only" \
		sh -c "! grep -q '^[xyz]m_link' '$w/t2q.conf'"
	t2q "t2q 2D mixed wrap" "torus 4 4M 1" torus --dims 4x4 --wrap 1,0
	check "t2q 2D: no z link" sh -c "! grep -q '^z' '$w/t2q.conf'"
	t2q "t2q many hosts" "torus 4 4 4" torus --hosts-per-switch 16
	check "t2q many hosts: port groups grow" \
		grep -qx 'portgroup_max_ports 17' "$w/t2q.conf"

	# The checker itself notices a seed link named the wrong way round.
	sed 's/^xp_link/xm_link/' "$w/t2q.conf" >"$w/bad.conf"
	case $(t2q_check "$w/t2q.net" "$w/bad.conf") in
	ok) bad "t2q check catches a wrong direction" ;;
	*) ok "t2q check catches a wrong direction" ;;
	esac

	run "$TG" torus --dims 2x2 --fail-link sw-0-0:sw-1-0 \
		--fail-link sw-0-0:sw-1-0 -o "$w/none.net" --torus2qos "$w/none.conf"
	expect "t2q: no seed left" 2 "no switch has the cables" "$w/err"
	check "t2q: nothing written without a seed" \
		sh -c "[ ! -e '$w/none.conf' ] && [ ! -e '$w/none.net' ]"
	run "$TG" fattree --torus2qos "$w/ft.conf"
	expect "t2q: not for a fat-tree" 2 "does not apply to fattree" "$w/err"
else
	bad "$TG built"
fi

echo "offline: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
