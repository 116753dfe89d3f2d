# SPDX-License-Identifier: MIT
# The body of t-poold-ga.sh and t-poold-ftree.sh: ibpoold on ibsim's
# ft2-tiny routed by a resident OpenSM with ENGINE (gpuaware: the plugin
# and its hint socket; ftree: OpenSM's own, no hints) and LMC.  h01's
# leaf is filled first, so h01's next GPUs are behind one of leaf-1's
# two up-links.  Checked live:
# - the DLIDs are the GPUs' ports' and each path is the walk of the LFTs
#   read back from the switches, with SL, MTU and rate from the SA;
# - two allocations for h01 leave leaf-1 by its two up-links;
# - an up-link kept busy (PerformanceSet of PortXmitWait, then of
#   PortXmitData on the other) is avoided by the next allocations;
# - a peer of another uid (nobody, on a socket_mode 0666 socket) reads
#   but is refused root's allocation and job.start by the daemon itself;
# - job.start: gpuaware's state shows the generation the relay set, and
#   a routing for it; ftree: recorded, the relay reports the SM socket
#   absent;
# - kill -9 amid 4 clients' allocs and releases, restart: every
#   acknowledged change is in the state, nothing never asked for is.
# Source it after `set -eu` with ENGINE and LMC set.
. "$(dirname "$0")/lib.sh"
t_init "poold-$ENGINE"
t_need "$BDIR/ibpoold" "$BDIR/ibpoolroute"
cd "$WORK"
NET=$CONFIGS/ft2-tiny.net
LEAF1=0x0002c90300000201

sim_start "$NET"
if [ "$ENGINE" = gpuaware ]; then
	plugin_ini "$WORK/gpuaware.conf" '[routing]' 'engine = auto'
	osm_up sm opensm-gpuaware.conf lmc "$LMC"
	no_errors "$WORK/sm.log"
else
	osm_start "$(osm_conf sm routing_engine "$ENGINE" lmc "$LMC")"
	wait_log "$WORK/sm.log" "> SUBNET UP$" 1 60
fi
grep -q "building routing with '$ENGINE'" "$WORK/sm.log" ||
	t_fail "OpenSM did not route with $ENGINE"
# nobody must reach the socket: the daemon's own check refuses it.
chmod 755 "$WORK"
poold_live 300 "socket_mode = 0666"

pr pool --json >"$WORK/st"
case "$(json "$WORK/st" '$r->{fabric}{source}')" in
live*) ;;
*) t_fail "not the live source: $(json "$WORK/st" '$r->{fabric}{source}')" ;;
esac
[ "$(json "$WORK/st" '$r->{fabric}{hcas_missing}')" = 0 ] ||
	t_fail "configured HCAs missing from the discovered fabric"
[ "$(json "$WORK/st" '$r->{fabric}{lmc}')" = "$LMC" ] || t_fail "LMC is not $LMC"

# walk_ok FILE: FILE's paths are the walks of the LFTs in the switches.
walk_ok() {
	local w
	check_pushed "$WORK/sm.dump"
	w=$(lft_walk "$NET" "$WORK/sm.dump/opensm-lfts.dump" "$1")
	[ "$w" = ok ] || t_fail "$1: $w"
}

# --- DLIDs, paths = LFT walks, SA path records ---
fill_leaf1
LEAF=${LEAF1_IDS# }
LEAF=${LEAF%% *}
A=$(poold_alloc a --client h01 --gpus 4)
B=$(poold_alloc b --client h01 --gpus 4)
pr allocs --json >"$WORK/l1"
walk_ok "$WORK/l1"
# Each DLID one of its port's 2^LMC LIDs (the walk ended at the port).
attrs() {
	pr allocs --json >"$WORK/l1" &&
		json "$WORK/l1" 'join "\n", map { map {
			"$_->{host} $_->{dlid} " . ($_->{sl} // "null") .
			" $_->{mtu} $_->{rate}" } @{$_->{gpus}} } @{$r->{allocs}}' \
			>"$WORK/attrs" && ! grep -q ' null ' "$WORK/attrs"
}
# The SL is null while a counter sweep holds the MAD port: ask again.
poll 10 attrs || t_fail "SLs still null: $(grep null "$WORK/attrs" | head -2)"
while read -r host dlid sl mtu rate; do
	[ "$sl" = 0 ] || t_fail "$host: SL $sl on a 1-VL fat-tree"
	[ "$mtu" -ge 256 ] || t_fail "$host: MTU $mtu"
	awk -v r="$rate" 'BEGIN { exit !(r > 0) }' || t_fail "$host: rate $rate"
done <"$WORK/attrs"
[ "$(cut -d' ' -f1,2 "$WORK/attrs" | sort -u | cut -d' ' -f1 | uniq -d)" = "" ] ||
	t_fail "a host with two DLIDs for one port: $(sort -u "$WORK/attrs")"
t_log "$(wc -l <"$WORK/attrs") GPUs: DLIDs, paths = LFT walks, SA SL/MTU/rate"

# --- two allocations for one client: two up-links ---
ha=$(first_hop "$WORK/a")
hb=$(first_hop "$WORK/b")
case "$ha $hb" in
"$LEAF1:5 $LEAF1:6" | "$LEAF1:6 $LEAF1:5") ;;
*) t_fail "h01's two allocations leave leaf-1 by $ha and $hb" ;;
esac
walk_ok "$WORK/a"
walk_ok "$WORK/b"
pr release "$A" >/dev/null
pr release "$B" >/dev/null
t_log "two allocations for h01: by $ha and $hb, as the LFTs say"

# --- a busy up-link is avoided ---
# avoids PORT: the next allocation for h01 does not leave leaf-1 by PORT
# (released again).  Unloaded, ibsim's links carry only MADs, whose
# counts break the ties: the busy link must be avoided three times more.
avoids() {
	local id
	id=$(poold_alloc busy --client h01 --gpus 4)
	pr release "$id" >/dev/null
	case $(first_hop "$WORK/busy") in
	$LEAF1:$1) return 1 ;;
	$LEAF1:[56]) ;;
	*) t_fail "busy: h01's path leaves by $(first_hop "$WORK/busy")" ;;
	esac
	walk_ok "$WORK/busy"
}
busy=${ha#"$LEAF1:"}
for counter in PortXmitWait PortXmitData; do
	busy_start leaf-1 "$busy" "$counter"
	poll 20 avoids "$busy" || t_fail "busy ($counter) $LEAF1:$busy still taken"
	for i in 1 2 3; do
		avoids "$busy" || t_fail "busy ($counter) $LEAF1:$busy taken again ($i)"
	done
	stop_pid "$BUSY"
	t_log "$LEAF1:$busy busy by $counter: allocations leave by $(first_hop "$WORK/busy")"
	busy=$((11 - busy))
done

# --- a peer of another uid ---
NOB="setpriv --reuid=nobody --regid=nogroup --clear-groups"
# refused CODE CMD...: ibpoolroute exits 1 with that error code.
refused() {
	local code=$1 st=0
	shift
	"$@" >"$WORK/out" 2>&1 || st=$?
	[ $st -eq 1 ] && grep -q "^ibpoolroute: $code: " "$WORK/out" ||
		t_fail "$* as nobody: exit $st: $(cat "$WORK/out")"
}
$NOB "$BDIR/ibpoolroute" pool --socket "$WORK/pool.sock" >/dev/null ||
	t_fail "nobody cannot read the pool"
refused forbidden $NOB "$BDIR/ibpoolroute" release "$LEAF" --socket "$WORK/pool.sock"
refused forbidden $NOB "$BDIR/ibpoolroute" jobs --start jx --hosts h05 --socket "$WORK/pool.sock"
pr allocs --json >"$WORK/l2"
[ "$(json "$WORK/l2" 'join " ", map { $_->{id} } @{$r->{allocs}}')" = "${LEAF1_IDS# }" ] ||
	t_fail "nobody changed the allocations: $(cat "$WORK/l2")"
pr jobs --json >"$WORK/j0"
[ "$(json "$WORK/j0" 'scalar @{$r->{jobs}}')" = 0 ] || t_fail "nobody started a job"
t_log "nobody (uid 65534): reads, refused root's release and job.start"

# --- job.start and the SM ---
pr jobs --start j1 --hosts 'h[01,05]' >/dev/null || t_fail "job.start"
pr jobs --json >"$WORK/j1"
[ "$(json "$WORK/j1" 'my $j = $r->{jobs}[0]; "$j->{job} @{$j->{hosts}}"')" = "j1 h01 h05" ] ||
	t_fail "job j1 not recorded: $(cat "$WORK/j1")"
relay() {
	pr pool --json >"$WORK/st" && json "$WORK/st" \
		'my $x = $r->{relay}; ($x->{up} ? 1 : 0) . " " .
		($x->{synced} ? 1 : 0) . " $x->{sent} $x->{generation} $x->{error}"'
}
if [ "$ENGINE" = gpuaware ]; then
	# The plugin's state: the generation the relay set, then routed.
	relayed() {
		relay >"$WORK/relay" &&
			sm state --json >"$WORK/sm-state" &&
			read -r up synced sent gen _ <"$WORK/relay" &&
			[ "$up $synced" = "1 1" ] && [ "$sent" -ge 1 ] &&
			[ "$(json "$WORK/sm-state" '$r->{hints_generation}')" = "$gen" ] &&
			[ "$(json "$WORK/sm-state" '$r->{routed_generation} // -1')" = "$gen" ]
	}
	poll 30 relayed ||
		t_fail "j1 not routed by the plugin: relay $(cat "$WORK/relay"), state $(cat "$WORK/sm-state")"
	sm hints get --json >"$WORK/sm-hints"
	[ "$(json "$WORK/sm-hints" 'join " ", map { "$_->{id}:$_->{owner}:" . join(",", @{$_->{hosts}}) } @{$r->{jobs}}')" = "j1:ibpoold:h01,h05" ] ||
		t_fail "the plugin's table: $(cat "$WORK/sm-hints")"
	t_log "job.start: the plugin's generation $(json "$WORK/sm-state" '$r->{hints_generation}') holds j1, routed"
else
	# No plugin: the relay says the socket is absent and keeps trying.
	refusing() {
		relay >"$WORK/relay" && grep -q . "$WORK/relay" &&
			[ "$(cut -d' ' -f5- "$WORK/relay")" != "" ]
	}
	poll 10 refusing || t_fail "the relay reports nothing: $(cat "$WORK/relay")"
	[ "$(cat "$WORK/relay")" = "0 0 0 0 $WORK/sm.sock: connect: No such file or directory" ] ||
		t_fail "relay without a plugin: $(cat "$WORK/relay")"
	[ ! -e "$WORK/sm.sock" ] || t_fail "$WORK/sm.sock exists"
	t_log "job.start recorded; relay: $(cut -d' ' -f5- "$WORK/relay")"
fi

# --- kill -9 amid 4 clients' allocs and releases ---
# Each client (its own connection per request) logs "try" before a
# request and the acknowledged id after: alloc and release in turn.
burst() {
	local c=$1 i id
	for i in $(seq 1 40); do
		echo "try alloc" >>"$WORK/b.$c"
		pr alloc --client "$c" --gpus 1 --json >"$WORK/r.$c" 2>&1 || return 0
		id=$(json "$WORK/r.$c" '$r->{id}') || return 0
		echo "alloc $id" >>"$WORK/b.$c"
		echo "try release $id" >>"$WORK/b.$c"
		pr release "$id" >/dev/null 2>&1 || return 0
		echo "release $id" >>"$WORK/b.$c"
	done
}
pr allocs --json >"$WORK/before"
CLIENTS="h05 h09 h13 h14"
BURST=""
for c in $CLIENTS; do
	: >"$WORK/b.$c"
	burst "$c" &
	BURST="$BURST $!"
	T_PIDS="$T_PIDS $!"
done
acked() { cat "$WORK"/b.h* | grep -c -v '^try'; }
poll 30 eval '[ "$(acked)" -ge 12 ]' || t_fail "the burst made no progress"
kill -9 "$PD"
wait "$PD" 2>/dev/null || true
for p in $BURST; do
	wait "$p" || true
done
poll_done=$(acked)
[ "$(cat "$WORK"/b.h* | grep -c '^release')" -lt $((40 * 4)) ] ||
	t_fail "the kill came after the burst"
poold_live 300 "socket_mode = 0666"
pr allocs --json >"$WORK/after"
# Per client: acknowledged allocations present unless released (an
# unacknowledged release may have gone through), acknowledged releases
# absent, and at most its one unacknowledged alloc present beyond.
verdict=$(perl -MJSON::PP -e '
	my ($work, $before, $after, @clients) = @ARGV;
	local $/;
	my $rd = sub { open(my $f, "<", $_[0]) or die; decode_json(<$f>) };
	my %was = map { $_->{id} => 1 } @{$rd->($before)->{allocs}};
	my %now = map { $_->{id} => $_ } @{$rd->($after)->{allocs}};
	for my $id (keys %was) {
		print("allocation $id of before the burst lost\n"), exit
			unless $now{$id};
		delete $now{$id};
	}
	$/ = "\n";
	for my $c (@clients) {
		open(my $f, "<", "$work/b.$c") or die;
		my @l = map { chomp; $_ } <$f>;
		my $last = $l[-1] // "";
		my %live;
		for (@l) {
			$live{$1} = 1 if /^alloc (\d+)/;
			delete $live{$1} if /^release (\d+)/;
		}
		my $inflight = $last =~ /^try release (\d+)/ ? $1 : 0;
		for my $id (keys %live) {
			next if $now{$id} && delete $now{$id};
			next if $id eq $inflight;
			print "$c: acknowledged allocation $id lost\n"; exit;
		}
		my @mine = grep { $now{$_}{client} eq $c } keys %now;
		next if !@mine;
		if (@mine == 1 && $last eq "try alloc" &&
		    @{$now{$mine[0]}{gpus}} == 1) {
			delete $now{$mine[0]};
			next;
		}
		print "$c: never acknowledged: @mine\n"; exit;
	}
	print %now ? "never asked for: " . join(" ", keys %now) . "\n" : "ok\n";
	' "$WORK" "$WORK/before" "$WORK/after" $CLIENTS)
[ "$verdict" = ok ] || t_fail "after kill -9: $verdict"
t_log "kill -9 after $poll_done acknowledged changes of 4 clients: all in the state"

! grep -q "counters:" "$WORK/poold.err" ||
	t_fail "counter sweeps failed: $(grep counters: "$WORK/poold.err" | tail -1)"
kill "$PD"
wait "$PD" || t_fail "ibpoold exit $?: $(tail -3 "$WORK/poold.err")"
