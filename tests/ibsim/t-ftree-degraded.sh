#!/bin/sh
# SPDX-License-Identifier: MIT
# A damaged 3-level tree (1,024 hosts, 5 % of the switch cables cut, 4
# switches dropped) routed by OpenSM's dfsssp and by the plugin, one real
# OpenSM each under ibsim.  From the LFTs in the switches: the plugin's
# busiest all-to-all link is within 5 % of the bound and at or below
# dfsssp's, its eBB at least 1.1 times dfsssp's (issue 15's targets), on
# one VL with no credit loop and every pair delivered.
set -eu
. "$(dirname "$0")/lib.sh"
t_init ftree-degraded
t_need "$BDIR/ibtopogen" "$BDIR/ibpoolroute" "$BDIR/a2a-bound"

SEED=${SEED:-12}
net=$WORK/tree.net
"$BDIR/ibtopogen" fattree --radix 16 --levels 3 --drop 0.05 \
	--drop-switches 4 --seed "$SEED" -o "$net"
bound=$("$BDIR/a2a-bound" "$net" | awk '{ print $1 }')
sim_start "$net"
plugin_ini "$WORK/plugin.ini" '[log]' 'verbosity = normal'
for e in dfsssp gpuaware; do
	conf=$(engine_conf "$e" "$e" "$WORK/plugin.ini")
	osm_once "$conf"
	d=$WORK/$e.dump
	# dfsssp's switch routes close credit loops on VL 0 (ibpoolroute
	# has no SLs for them): judged below on what the file says
	"$BDIR/ibpoolroute" analyze --json --perms 100 "$d" >"$d/a.json" ||
		true
	[ -n "$(json "$d/a.json" '$r->{ebb}')" ] ||
		t_fail "$e: ibpoolroute analyze gave no eBB"
done
log_has "$WORK/dfsssp.log" "dfsssp tables configured on all switches" 1 ||
	t_fail "OpenSM did not route with dfsssp: $(grep 'tables configured' "$WORK/dfsssp.log" | head -1)"
log_has "$WORK/gpuaware.log" "$PLUGIN_LINE" 1 || t_fail "no plugin routing"
check_pushed "$WORK/gpuaware.dump"
check_analyze "$WORK/gpuaware.dump"

g=$WORK/gpuaware.dump/a.json
f=$WORK/dfsssp.dump/a.json
[ "$(json "$g" '$r->{unreachable}')" = 0 ] || t_fail "pairs not delivered"
[ "$(json "$g" '$r->{credit_loops} ? 1 : 0')" = 0 ] || t_fail "credit loop"
[ "$(json "$g" '$r->{vls}')" = 1 ] || t_fail "more than one VL"
[ "$(json "$f" '$r->{unreachable}')" = 0 ] || t_fail "dfsssp lost pairs"
gmax=$(json "$g" '$r->{efi_max}')
fmax=$(json "$f" '$r->{efi_max}')
gebb=$(json "$g" '$r->{ebb}')
febb=$(json "$f" '$r->{ebb}')
t_log "seed $SEED: bound $bound; busiest link gpuaware $gmax, dfsssp $fmax; eBB gpuaware $gebb, dfsssp $febb"
awk -v m="$gmax" -v b="$bound" 'BEGIN { exit !(m <= b * 1.05) }' ||
	t_fail "busiest link $gmax more than 5 % above the bound $bound"
[ "$gmax" -le "$fmax" ] || t_fail "busiest link $gmax above dfsssp's $fmax"
awk -v g="$gebb" -v f="$febb" 'BEGIN { exit !(g >= 1.1 * f) }' ||
	t_fail "eBB $gebb below 1.1 times dfsssp's $febb"
