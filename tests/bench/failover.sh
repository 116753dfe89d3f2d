#!/bin/sh
# SPDX-License-Identifier: MIT
# A standby SM's takeover, per engine: two OpenSMs on the first two CAs
# of a fabric (sm_priority 10 and 1, SMInfo polled every second, 2
# retries), the master killed once the standby is in standby; how long
# until the new master's routing is configured, how many LFT blocks it
# sends then (its log, flag 0x08) against the master's first push, and
# how many LFT entries differ, read back from the switches by directed
# route before and after.  gpuaware reads the blocks back first and
# sends those that differ; OpenSM's own engines resend every block.
# Markdown rows for docs/benchmarks.md.
# Usage: tests/bench/failover.sh [BUILD_DIR]; NET (ft3-small.net),
# ENGINES ("gpuaware ftree updn minhop").
set -eu
B=${1:-build}
export B
. "$(dirname "$0")/../ibsim/lib.sh"
t_init bench-failover
cd "$WORK"

NET=$CONFIGS/${NET:-ft3-small.net}
ENGINES=${ENGINES:-"gpuaware ftree updn minhop"}
plugin_ini "$WORK/plugin.ini"
hosts=$(awk '/^(Hca|Ca)[ \t]/ { match($0, /"[^"]*"/);
	print substr($0, RSTART + 1, RLENGTH - 2) }' "$NET" | head -2)
HA=${hosts%%
*}
HB=${hosts##*
}

# conf NAME ENGINE PRIORITY: an opensm.conf for one of the two SMs.
conf() {
	if [ "$2" = gpuaware ]; then
		osm_conf "$1" routing_engine gpuaware event_plugin_name gpuaware \
			event_plugin_options "$WORK/plugin.ini" sm_priority "$3" \
			sminfo_polling_timeout 1000 polling_retry_number 2 \
			log_flags 0x4f
	else
		osm_conf "$1" routing_engine "$2" sm_priority "$3" \
			sminfo_polling_timeout 1000 polling_retry_number 2 \
			log_flags 0x4f
	fi
}

# lfts NAME: the switches' LFTs now, as sorted pairs in $WORK/NAME.pairs.
lfts() {
	read_lfts "$WORK/dr.paths" "$WORK/$1.ibroute"
	lfts_pairs "$WORK/$1.ibroute" >"$WORK/$1.pairs"
}

row() {
	local e=$1 a b ms first sent diff
	a=$(conf "$e-A" "$e" 10)
	b=$(conf "$e-B" "$e" 1)
	sim_start "$NET" "$HA"
	osm_at "$e-A" "$HA" "$a"
	pa=$OSM_PID
	poll 120 log_has "$WORK/$e-A.log" "> SUBNET UP$" 1 ||
		t_fail "$e: the master did not bring the subnet up"
	osm_at "$e-B" "$HB" "$b"
	poll 60 log_has "$WORK/$e-B.log" "ENTERING SM STANDBY STATE" 1 ||
		t_fail "$e: no standby"
	dr_paths "$WORK/$e-A.dump/opensm-subnet.lst" >"$WORK/dr.paths"
	lfts "$e-before"
	first=$(ft_blocks "$WORK/$e-A.log")
	kill -9 "$pa"
	t0=$(date +%s%N)
	poll 120 log_has "$WORK/$e-B.log" "tables configured on all switches" 1 ||
		t_fail "$e: the standby did not route"
	ms=$((($(date +%s%N) - t0) / 1000000))
	poll 60 log_has "$WORK/$e-B.log" "> SUBNET UP$" 1 ||
		t_fail "$e: the new master did not bring the subnet up"
	sent=$(ft_blocks "$WORK/$e-B.log")
	lfts "$e-after"
	diff=$(comm -3 "$WORK/$e-before.pairs" "$WORK/$e-after.pairs" |
		awk '{ print $1, $2 }' | sort -u | wc -l)
	echo "| $(basename "$NET" .net) | $e | $first | $sent | $diff | $(echo "$ms" | awk '{ printf "%.1f", $1 / 1000 }') |"
	stop_pid "$OSM_PID"
	sim_stop
}

echo "| fabric | engine | LFT blocks, master's first push | LFT blocks sent at takeover | LFT entries changed | kill to routed, s |"
echo "|---|---|---|---|---|---|"
for e in $ENGINES; do
	row "$e"
done
