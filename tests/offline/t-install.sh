#!/bin/sh
# SPDX-License-Identifier: MIT
# make install into a DESTDIR: the Slurm hooks (reading the config under
# SYSCONFDIR), the sample pool.conf and hooks config, docs/' man pages
# and systemd unit, and ibpoold
# --print-config, whose pool.conf for a fabric loads in ibpoold as it is;
# make uninstall takes them all away again.
# usage: t-install.sh [BUILDDIR]; prints PASS/FAIL lines and a summary.
set -eu
cd "$(dirname "$0")/../.."
B=${1:-build}
NET=ibsim-configs/ft2-small.net

. tests/offline/lib.sh

pid=
off_workdir pid
D=$w/root
H=$D/usr/lib/gpuaware/slurm

if make --no-print-directory B="$B" DESTDIR="$D" PREFIX=/usr \
	SYSCONFDIR=/etc/site install >"$w/make.log" 2>&1; then
	ok "make install DESTDIR"
else
	bad "make install DESTDIR" "$(tail -5 "$w/make.log")"
fi
for f in notify.sh prolog-slurmctld.sh epilog-slurmctld.sh; do
	check "hook $f installed, executable" test -x "$H/$f"
done
check "the hooks read SYSCONFDIR's config" \
	grep -q 'GPUAWARE_HOOK_CONFIG:-/etc/site/gpuaware/slurm-hooks.conf}' \
	"$H/notify.sh"
check "sample pool.conf installed" \
	test -s "$D/etc/site/gpuaware/pool.conf.sample"
check "sample hooks config installed" \
	test -s "$D/etc/site/gpuaware/slurm-hooks.conf.sample"
check "ibpoold installed" test -x "$D/usr/bin/ibpoold"
for m in docs/*.[1-8]; do
	check "$(basename "$m") installed" \
		cmp -s "$m" "$D/usr/share/man/man${m##*.}/$(basename "$m")"
done
check "ibpoold.service installed, ExecStart in BINDIR" \
	grep -q '^ExecStart=/usr/bin/ibpoold ' \
	"$D/usr/lib/systemd/system/ibpoold.service"

# The generator: one [host] per named CA of the fabric, its port GUIDs.
P=$D/usr/bin/ibpoold
grp=$(id -gn)
if "$P" --print-config --net "$NET" --gpus 4 --gpu-type H100 \
	--group "$grp" >"$w/pool.conf" 2>"$w/err"; then
	ok "--print-config --net: exit 0"
else
	bad "--print-config --net: exit 0" "$(cat "$w/err")"
fi
cas=$(grep -c '^Hca\|^Ca' "$NET" || true)
hosts=$(grep -c '^\[host ' "$w/pool.conf" || true)
if [ "$hosts" -gt 0 ] && [ "$hosts" -eq "$cas" ]; then
	ok "a [host] section per CA ($hosts)"
else
	bad "a [host] section per CA" "$hosts sections, $cas CAs"
fi
check "the group line" grep -q "^group = $grp\$" "$w/pool.conf"

# Loads in ibpoold as written, once where to put its files is said.
sed -i "/^\[pool\]/a socket = $w/pool.sock\nstate_dir = $w/state\nsm_socket = $w/none.sock" \
	"$w/pool.conf"
poold_start "$P" "$w/pool.conf" "$NET"
if "$D/usr/bin/ibpoolroute" pool --socket "$w/pool.sock" >"$w/status" 2>&1 &&
	grep -q "^Pool: $hosts hosts, $((hosts * 4)) GPUs" "$w/status" &&
	grep -q " 0 configured HCAs missing" "$w/status"; then
	ok "ibpoold serves the generated pool.conf, every HCA found"
else
	bad "ibpoold serves the generated pool.conf" "$(cat "$w/status" "$w/log")"
fi
kill "$pid"
wait "$pid" 2>/dev/null || true
pid=

# Without --gpus the counts are to fill in, and ibpoold says so.
"$P" --print-config --net "$NET" >"$w/bare.conf" 2>"$w/err" || true
check "without --gpus: gpus to fill in" \
	grep -q '^gpus = 0 .*; fill in' "$w/bare.conf"
check "without --group: the Debian hint" grep -q '^; group = slurm' \
	"$w/bare.conf"
sed -i "/^\[pool\]/a state_dir = $w/state2" "$w/bare.conf"
if "$P" -c "$w/bare.conf" --net "$NET" >"$w/err" 2>&1; then
	bad "ibpoold refuses gpus = 0" "it started"
else
	check "ibpoold refuses gpus = 0" grep -q "gpus" "$w/err"
fi
refusedp() {
	if "$P" "$@" >"$w/err" 2>&1; then
		bad "refused: $*" "exit 0"
	else
		ok "refused: $*"
	fi
}
refusedp --print-config --net "$NET" --gpus 65
refusedp --print-config --net "$NET" --gpu-type "a b"
refusedp --gpus 4 -c "$w/pool.conf"
refusedp --print-config --net "$w/nosuch.net"

if make --no-print-directory B="$B" DESTDIR="$D" PREFIX=/usr \
	SYSCONFDIR=/etc/site uninstall >"$w/make.log" 2>&1; then
	ok "make uninstall DESTDIR"
else
	bad "make uninstall DESTDIR" "$(tail -5 "$w/make.log")"
fi
left=$(find "$D" -type f | sed "s|^$D||")
if [ -z "$left" ]; then
	ok "uninstall leaves no file"
else
	bad "uninstall leaves no file" "$left"
fi
check "uninstall removes the hook directory" test ! -e "$H"

echo "t-install: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
