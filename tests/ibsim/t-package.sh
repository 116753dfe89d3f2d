#!/bin/sh
# SPDX-License-Identifier: MIT
# The Debian packages as an admin gets them: make deb, lintian clean, the
# Depends the three lists of tools/deps.sh say, dpkg -i, the alert rules
# installed; the stock OpenSM loads the plugin from where the package put
# it (no LD_LIBRARY_PATH) with the packaged /etc/opensm/gpuaware.conf and routes ft2-tiny; ibpoold runs
# as its unit's ExecStart says, allocates and relays a job to the plugin;
# a reinstall (the upgrade path) keeps the pool's state and the edited
# pool.conf; remove keeps them, purge leaves no file, group or state.
# Needs root (dpkg); runs one at a time per machine.
set -eu
. "$(dirname "$0")/lib.sh"
t_init package
[ "$(id -u)" -eq 0 ] || t_fail "needs root: it installs the packages"
for c in dpkg-buildpackage dh lintian; do
	command -v "$c" >/dev/null ||
		t_fail "missing command $c (tools/deps.sh --test)"
done
PKGS="gpuaware-opensm-plugin ibpoold gpuaware-tools gpuaware-slurm-hooks"
UNIT=/lib/systemd/system/ibpoold.service
WANTS=/etc/systemd/system/multi-user.target.wants/ibpoold.service
MA=$(dpkg-architecture -qDEB_HOST_MULTIARCH)
# The socket directory systemd's RuntimeDirectory= would make.
RUN=/run/gpuaware

# Another checkout's t-package.sh installs the same packages, and
# t-bad-config.sh runs the plugin on the default paths; the daemons
# started below get no copy of the lock (8>&-).
exec 8>/var/lock/gpuaware-default-paths.lock
flock 8

# installed PKG: dpkg knows PKG, installed or its conffiles left.
installed() {
	dpkg-query -W -f='${db:Status-Status}\n' "$1" 2>/dev/null |
		grep -qvx not-installed
}
for p in $PKGS; do
	! installed "$p" || t_fail "$p is installed on this machine already"
done
for d in /etc/gpuaware /etc/opensm/gpuaware.conf; do
	[ ! -e "$d" ] || t_fail "$d exists on this machine already"
done
# Empty socket and state directories (what an ibpoold or a plugin run
# without a config leaves) are taken over, as on an SM host that ran
# make install's ibpoold; the package adopts the state directory.
for d in "$RUN" /var/lib/gpuaware; do
	[ ! -e "$d" ] || rmdir "$d" 2>/dev/null ||
		t_fail "$d exists on this machine already, not empty"
done
! getent group gpuaware >/dev/null || t_fail "group gpuaware exists already"

PD=
OSM_PID=
pkg_cleanup() {
	[ -z "$PD" ] || stop_pid "$PD"
	[ -z "$OSM_PID" ] || stop_pid "$OSM_PID"
	# shellcheck disable=SC2086
	dpkg --purge $PKGS >/dev/null 2>&1 || true
	rm -rf "$RUN"
}
trap 'rc=$?; pkg_cleanup; (exit $rc); t_cleanup' EXIT

# --- the state files purge removes: every one the sources name ---
for f in $(sed -n 's/^#define \(SM_HINTS_FILE\|SM_HINTS_LOG\|POOL_JOURNAL_FILE\|POOL_SNAPSHOT_FILE\|POOL_SNAPSHOT_TMP\) "\([^"]*\)".*/\2/p' \
	"$TOP"/sm/*.h "$TOP"/tools/lib/pool/*.h); do
	grep -q "/var/lib/gpuaware/$f\( \|\$\)" "$TOP"/tools/pkg/debian/*.postrm ||
		t_fail "no postrm removes /var/lib/gpuaware/$f"
done

# --- build, lint, what the packages depend on ---
(cd "$TOP" && tools/pkg/build-deb.sh "$WORK/deb") >"$WORK/deb.out" 2>&1 ||
	t_fail "make deb: $(tail -5 "$WORK/deb.out")"
DEBS=$(ls "$WORK"/deb/*.deb | grep -v -- '-dbgsym_')
lintian --fail-on error,warning "$WORK"/deb/*.changes >"$WORK/lintian" 2>&1 ||
	t_fail "lintian: $(grep -v '^running with root' "$WORK/lintian")"

deb_of() { ls "$WORK/deb/$1"_*.deb; }
osmv=$(dpkg-query -W -f='${Version}' opensm)
dpkg-deb -f "$(deb_of gpuaware-opensm-plugin)" Depends |
	grep -q "opensm (= $osmv)" ||
	t_fail "the plugin is not pinned to opensm $osmv"

# words LIST: one package name a line, sorted, versions dropped.
words() { tr ',' '\n' | sed 's/(.*)//; s/[[:space:]]//g' | grep . | sort -u; }
for d in $DEBS; do
	dpkg-deb -f "$d" Depends
done | words | grep -v -e '^libc6$' -e '^gpuaware-' -e '^ibpoold$' \
	>"$WORK/depends"
"$TOP/tools/deps.sh" --runtime --list | words >"$WORK/runtime"
cmp -s "$WORK/depends" "$WORK/runtime" ||
	t_fail "the packages' Depends are not tools/deps.sh --runtime: $(diff "$WORK/runtime" "$WORK/depends" | grep '^[<>]' | tr '\n' ' ')"
awk '/^Build-Depends:/ { on = 1; sub(/^Build-Depends:/, "") }
	on && /^[A-Z]/ && !/^Build-Depends:/ { on = 0 }
	on' "$TOP/tools/pkg/debian/control" | words |
	grep -v '^debhelper-compat$' >"$WORK/bdeps"
"$TOP/tools/deps.sh" --build --list | words |
	grep -v -e '^build-essential$' -e '^debhelper$' >"$WORK/build"
cmp -s "$WORK/bdeps" "$WORK/build" ||
	t_fail "Build-Depends are not tools/deps.sh --build: $(diff "$WORK/build" "$WORK/bdeps" | grep '^[<>]' | tr '\n' ' ')"

# --- install: enabled, not started; group, state directory, conffiles ---
# shellcheck disable=SC2086
dpkg -i $DEBS >"$WORK/dpkg.out" 2>&1 || t_fail "dpkg -i: $(tail -5 "$WORK/dpkg.out")"
for p in $PKGS; do
	dpkg-query -L "$p" >>"$WORK/files"
done
getent group gpuaware >/dev/null || t_fail "no group gpuaware"
[ "$(stat -c '%a %G' /var/lib/gpuaware)" = "750 gpuaware" ] ||
	t_fail "/var/lib/gpuaware: $(stat -c '%a %G' /var/lib/gpuaware)"
[ -L "$WANTS" ] || t_fail "ibpoold.service not enabled"
grep -q '_dh_action' /var/lib/dpkg/info/ibpoold.postinst &&
	t_fail "ibpoold's postinst starts the service"
for f in /etc/gpuaware/pool.conf /etc/gpuaware/slurm-hooks.conf; do
	grep -qx "$f" /var/lib/dpkg/info/ibpoold.conffiles \
		/var/lib/dpkg/info/gpuaware-slurm-hooks.conffiles ||
		t_fail "$f is no conffile"
done
grep -qx /etc/opensm/gpuaware.conf \
	/var/lib/dpkg/info/gpuaware-opensm-plugin.conffiles ||
	t_fail "/etc/opensm/gpuaware.conf is no conffile"
grep -q '^group = gpuaware$' /etc/gpuaware/pool.conf ||
	t_fail "pool.conf does not name the group"
A=/usr/share/gpuaware/prometheus/gpuaware-alerts.yml
promtool check rules "$A" >/dev/null 2>&1 || t_fail "$A: not shipped or bad"

# --- the stock OpenSM with the packaged plugin and its config ---
unset LD_LIBRARY_PATH
NET=$CONFIGS/ft2-tiny.net
sim_start "$NET" 8>&-
CONF=$(osm_conf sm routing_engine gpuaware event_plugin_name gpuaware \
	event_plugin_options /etc/opensm/gpuaware.conf)
env LD_PRELOAD="$UMAD2SIM" /usr/sbin/opensm -F "$CONF" >"$CONF.out" 2>&1 8>&- &
OSM_PID=$!
poll 60 sweeps_done "$WORK/sm.log" 1 || t_fail "no gpuaware routing: $(grep -E 'gpuaware|ERR' "$WORK/sm.log" | tail -3)"
grep -q " /usr/lib/$MA/libgpuaware.so$" "/proc/$OSM_PID/maps" ||
	t_fail "OpenSM did not load /usr/lib/$MA/libgpuaware.so"
/usr/bin/ibpoolroute state >"$WORK/state" 2>&1 ||
	t_fail "state on the packaged socket: $(cat "$WORK/state")"

# --- ibpoold by its unit's command line, on an edited pool.conf ---
env LD_PRELOAD="$UMAD2SIM" /usr/bin/ibpoold --print-config --gpus 4 \
	--gpu-type H100 --group gpuaware >"$WORK/pool.conf" 2>"$WORK/pc.err" ||
	t_fail "ibpoold --print-config: $(cat "$WORK/pc.err")"
cp "$WORK/pool.conf" /etc/gpuaware/pool.conf
exec_start=$(sed -n 's/^ExecStart=//p' "$UNIT")
[ -n "$exec_start" ] || t_fail "no ExecStart in $UNIT"
mode=$(sed -n 's/^RuntimeDirectoryMode=//p' "$UNIT")
install -d -m "${mode:-0755}" "$RUN"
poold_start() {
	# shellcheck disable=SC2086 # the unit's words
	env LD_PRELOAD="$UMAD2SIM" $exec_start 2>>"$WORK/poold.err" 8>&- &
	PD=$!
	poll 30 poold_serves ||
		t_fail "ibpoold did not serve: $(tail -3 "$WORK/poold.err")"
}
poold_serves() { /usr/bin/ibpoolroute pool >/dev/null 2>&1; }
poold_start
host=$(sed -n 's/^\[host \(.*\)\]$/\1/p' /etc/gpuaware/pool.conf | head -1)
/usr/bin/ibpoolroute alloc --gpus 4 --job j1 --client "$host" \
	>"$WORK/alloc" 2>&1 || t_fail "alloc: $(cat "$WORK/alloc")"
hosts=$(sed -n 's/^\[host \(.*\)\]$/\1/p' /etc/gpuaware/pool.conf |
	head -4 | paste -sd, -)
/usr/bin/ibpoolroute jobs --start j1 --hosts "$hosts" >"$WORK/jobs" 2>&1 ||
	t_fail "jobs --start: $(cat "$WORK/jobs")"
plugin_has_job() {
	/usr/bin/ibpoolroute hints get --json >"$WORK/hints" 2>&1 &&
		[ "$(json "$WORK/hints" 'join " ", map { "$_->{id}:$_->{owner}" } @{$r->{jobs}}')" = j1:ibpoold ]
}
poll 30 plugin_has_job ||
	t_fail "the relay did not give the plugin the job: $(cat "$WORK/hints")"
allocs() {
	/usr/bin/ibpoolroute allocs --json >"$WORK/allocs" &&
		json "$WORK/allocs" 'scalar @{$r->{allocs}}'
}
[ "$(allocs)" = 1 ] || t_fail "no allocation in the pool"

# --- the upgrade path: reinstall over a stopped ibpoold ---
stop_pid "$PD"
PD=
# shellcheck disable=SC2086
dpkg -i $DEBS >"$WORK/dpkg.out" 2>&1 ||
	t_fail "dpkg -i again: $(tail -5 "$WORK/dpkg.out")"
cmp -s "$WORK/pool.conf" /etc/gpuaware/pool.conf ||
	t_fail "the reinstall replaced the edited pool.conf"
poold_start
[ "$(allocs)" = 1 ] || t_fail "the reinstall lost the allocation"
stop_pid "$PD"
PD=
stop_pid "$OSM_PID"
OSM_PID=

# --- remove keeps conffiles and state; purge leaves nothing ---
# shellcheck disable=SC2086
dpkg --remove $PKGS >"$WORK/dpkg.out" 2>&1 ||
	t_fail "dpkg --remove: $(tail -5 "$WORK/dpkg.out")"
[ -s /etc/gpuaware/pool.conf ] && [ -d /var/lib/gpuaware ] ||
	t_fail "remove took the config or the state"
[ ! -e /usr/bin/ibpoold ] || t_fail "remove left /usr/bin/ibpoold"
# shellcheck disable=SC2086
dpkg --purge $PKGS >"$WORK/dpkg.out" 2>&1 ||
	t_fail "dpkg --purge: $(tail -5 "$WORK/dpkg.out")"
rm -rf "$RUN"
left=""
# A directory another package owns (/usr/bin, /etc/opensm) stays.
while read -r f; do
	[ -d "$f" ] && [ "$f" = /. ] || dpkg -S "$f" >/dev/null 2>&1 &&
		continue
	[ ! -e "$f" ] || left="$left $f"
done <"$WORK/files"
[ -z "$left" ] || t_fail "purge left:$left"
for f in /etc/gpuaware /etc/opensm/gpuaware.conf "$WANTS"; do
	[ ! -e "$f" ] && [ ! -L "$f" ] || t_fail "purge left $f"
done
# The package's state directory has the group gpuaware, gone now; an
# empty one of root's group is a plugin's or ibpoold's of another test
# run on the default paths, made since.
S=/var/lib/gpuaware
if [ -e "$S" ]; then
	[ "$(stat -c %G "$S")" = root ] && [ -z "$(ls -A "$S")" ] ||
		t_fail "purge left $S: $(ls -la "$S")"
	t_log "an empty $S of root's group came back after the purge: another test run's"
fi
! getent group gpuaware >/dev/null || t_fail "purge left the group"
for p in $PKGS; do
	! installed "$p" || t_fail "$p still known to dpkg"
done
t_log "ok: built, lintian clean, installed, routed, allocated, upgraded, purged"
