#!/bin/sh
# SPDX-License-Identifier: MIT
# The plugin's config never stops routing: bad values are logged with
# their key and fall back to the default, unknown keys are warned about,
# a missing, unparsable or non-regular file means defaults (and no hang),
# and a forced engine that does not fit lets OpenSM fall back to min-hop.
set -eu
. "$(dirname "$0")/lib.sh"
t_init bad-config

# Without a config the plugin uses the machine's socket and state
# directories (/run/gpuaware, /var/lib/gpuaware): those made here are
# taken away after, and t-package.sh, which installs them, waits.
exec 8>/var/lock/gpuaware-default-paths.lock
flock 8
made=""
for d in /run/gpuaware /var/lib/gpuaware; do
	[ -e "$d" ] || made="$made $d"
done
trap 'rc=$?; for d in $made; do rm -f "$d/sm.sock"; rmdir "$d" 2>/dev/null || true; done; (exit $rc); t_cleanup' EXIT

# run_case NAME CONFIG_PATH: one OpenSM sweep with the plugin reading
# CONFIG_PATH; its log is $WORK/NAME.log.
run_case() {
	local conf
	conf=$(osm_conf "$1" routing_engine gpuaware \
		event_plugin_name gpuaware event_plugin_options "$2")
	osm_once "$conf"
}

expect() {
	grep -q -- "$2" "$WORK/$1.log" || t_fail "$1: no '$2' in the log"
}

reject() {
	! grep -q -- "$2" "$WORK/$1.log" || t_fail "$1: unexpected '$2' in the log"
}

# Routed by the plugin with the default engine (auto picks fattree on
# this tree) at the default verbosity (a summary line, no verifier line).
routed_by_defaults() {
	expect "$1" "$PLUGIN_LINE"
	expect "$1" "gpuaware: routing engine 'gpuaware' registered (.*engine auto, verbosity normal)"
	expect "$1" "gpuaware: topology fat-tree, engine fattree:"
	reject "$1" "gpuaware: quality:"
	check_pushed "$WORK/$1.dump"
}

sim_start "$CONFIGS/ft2-tiny.net"

# Bad values, unknown keys and sections.
cat >"$WORK/bad.ini" <<'EOI'
stray = 1
[routing]
engine = sideways
job_search_moves = lots
job_refine_moves = -5
colour = blue
[log]
verbosity = 7
[hints]
tcp = localhost:7071
munge_socket = munge.sock
[nosuch]
key = value
EOI
run_case bad "$WORK/bad.ini"
expect bad "gpuaware: ERR GA10: .*bad value 'sideways' for key routing:engine .*using the default 'auto'"
expect bad "gpuaware: ERR GA10: .*bad value '7' for key log:verbosity .*using the default 'normal'"
expect bad "gpuaware: ERR GA10: .*bad value 'lots' for key routing:job_search_moves .*using the default '0'"
expect bad "gpuaware: ERR GA10: .*bad value 'localhost:7071' for key hints:tcp .*using the default '(off)'"
expect bad "gpuaware: ERR GA10: .*bad value 'munge.sock' for key hints:munge_socket .*using the default '(munge's default)'"
expect bad "gpuaware: WRN GA40: .*key 'routing:job_refine_moves' is no longer used"
expect bad "gpuaware: WRN GA16: .*unknown key 'routing:colour'"
expect bad "gpuaware: WRN GA14: .*unknown section \[nosuch\]"
expect bad "gpuaware: WRN GA15: .*key 'stray' outside any section"
routed_by_defaults bad

# Good values are taken: the verifier line proves verbosity 2, the
# summary line the forced engine.
printf '[routing]\nengine = UpDown\njob_search_moves = 5000\n[log]\nverbosity = verbose\n' \
	>"$WORK/good.ini"
run_case good "$WORK/good.ini"
reject good "gpuaware: ERR"
reject good "gpuaware: WRN"
expect good "gpuaware: topology fat-tree, engine updown:"
expect good "gpuaware: quality: .* 0 unreachable"
expect good "$PLUGIN_LINE"

# A missing file is the defaults, quietly.
run_case missing "$WORK/does-not-exist.ini"
expect missing "gpuaware: no config file $WORK/does-not-exist.ini, using defaults"
reject missing "gpuaware: ERR"
routed_by_defaults missing

# Unparsable.
printf '[routing\nengine = updown\n' >"$WORK/broken.ini"
run_case broken "$WORK/broken.ini"
expect broken "gpuaware: ERR GA13: cannot parse config file $WORK/broken.ini"
routed_by_defaults broken

# A FIFO nobody writes to must not block OpenSM's start-up.
mkfifo "$WORK/fifo.ini"
run_case fifo "$WORK/fifo.ini"
expect fifo "gpuaware: ERR GA12: config file $WORK/fifo.ini is not a regular file"
routed_by_defaults fifo

# A forced engine that cannot route the fabric: the plugin says why and
# refuses, OpenSM falls back to min-hop, the subnet still comes up.
sim_stop
sim_start "$CONFIGS/ring3-tiny.net"
printf '[routing]\nengine = fattree\n' >"$WORK/ring.ini"
run_case ring "$WORK/ring.ini"
expect ring "gpuaware: ERR GA01: engine 'fattree' does not fit this fabric"
reject ring "$PLUGIN_LINE"
expect ring "minhop tables configured on all switches"
check_pushed "$WORK/ring.dump"
