#!/bin/sh
# SPDX-License-Identifier: MIT
# ibpoold end to end, offline: the daemon on ibsim-configs/ft2-small.net
# with LMC 1, driven by ibpoolroute: alloc, list, renew, release, place,
# jobs, topology, expiry and refusals; every GPU's path checked against
# the cabling; the job table relayed to a fake plugin, and again after
# that "plugin" restarts; kill -9 in a burst of allocations, then the
# restarted daemon must hold every acknowledged allocation and none that
# was never sent; a client running as nobody reads but cannot release
# root's allocation or start jobs; a CA given the description of a host
# the config names by description takes none of its GPUs.
# usage: t-poold.sh [BUILDDIR]; prints PASS/FAIL lines and a summary.
set -eu
cd "$(dirname "$0")/../.."
B=${1:-build}

. tests/offline/lib.sh
poold_setup pid fake burst

# The socket's directory must let any user reach the socket (the daemon
# makes it 0755 when missing); mktemp's 0700 would lock them out, and so
# would the socket's default mode 0660: the permission checks below are
# the daemon's own, for any user, so the socket is 0666.
chmod 755 "$w"
R="$(pwd)/$B/ibpoolroute"
export GPUAWARE_POOL_SOCKET="$w/run/pool.sock"

# 32 hosts of 4 GPUs, node0001 .. node0032 of the net file; ports by
# GUID (ibsim's caguid= + 1), the last two by node description.
{
	cat <<EOT
[pool]
socket = $w/run/pool.sock
state_dir = $w/state
sm_socket = $w/sm.sock
telemetry_interval_ms = 100
lease_default_s = 600
socket_mode = 0666
EOT
	for k in $(seq 1 32); do
		h=$(printf 'node%04d' "$k")
		if [ "$k" -gt 30 ]; then
			hca="$h mlx5_0"
		else
			hca=$(printf '0x%016x' $((0x0002c90300000000 + (k - 1) * 2 + 1)))
		fi
		printf '\n[host %s]\ngpus = 4\ngpu_type = H100\nhca = %s\n' \
			"$h" "$hca"
	done
} > "$w/pool.conf"

start() {
	"$B/ibpoold" -c "$w/pool.conf" --net "$NET" --lmc 1 \
		2>> "$w/daemon.log" &
	pid=$!
	i=0
	until "$R" pool > /dev/null 2>&1; do
		i=$((i + 1))
		if [ $i -gt 100 ] || ! kill -0 "$pid" 2>/dev/null; then
			echo "ibpoold did not start:"
			cat "$w/daemon.log"
			exit 1
		fi
		sleep 0.05
	done
}

# expect NAME WANT GOT
expect() {
	if [ "$2" = "$3" ]; then ok "$1"; else bad "$1" "want '$2', got '$3'"; fi
}

# The fake plugin: answers hints.set (generation + 1; with an owner
# only that owner's jobs replaced, the others kept, a kept job "direct"
# on node0032 standing for a Slurm hook's), hints.add and hints.remove
# of many jobs (the relay's) and hints.get, one request per connection,
# logging each change's line.
fake_plugin() {
	perl -MIO::Socket::UNIX -MJSON::PP -e '
		my ($path, $log) = @ARGV;
		unlink $path;
		my $l = IO::Socket::UNIX->new(Type => SOCK_STREAM(),
			Local => $path, Listen => 5) or die "listen: $!";
		my $gen = 0;
		my @jobs = ({ id => "direct", hosts => ["node0032"],
			      weight => 1 });
		while (my $c = $l->accept) {
			my $req = <$c>;
			next unless defined $req;
			my $r = decode_json($req);
			if ($r->{op} eq "hints.set") {
				$gen++;
				my $o = $r->{owner};
				@jobs = grep { defined $o &&
					(!defined $_->{owner} || $_->{owner} ne $o)
				} @jobs;
				push @jobs, map { { %$_, weight => 1,
					defined $o ? (owner => $o) : () } }
					@{$r->{jobs}};
				open(my $f, ">>", $log) or die; print $f $req;
				close $f;
				print $c "{\"ok\":true,\"generation\":$gen}\n";
			} elsif ($r->{op} eq "hints.add") {
				$gen++;
				push @jobs, map { { %$_, weight => 1,
					owner => $r->{owner} } } @{$r->{jobs}};
				open(my $f, ">>", $log) or die; print $f $req;
				close $f;
				print $c "{\"ok\":true,\"generation\":$gen}\n";
			} elsif ($r->{op} eq "hints.remove") {
				$gen++;
				my %gone = map { $_ => 1 } @{$r->{ids}};
				@jobs = grep { !$gone{$_->{id}} } @jobs;
				open(my $f, ">>", $log) or die; print $f $req;
				close $f;
				print $c "{\"ok\":true,\"generation\":$gen}\n";
			} else {
				print $c encode_json({ ok => JSON::PP::true,
					generation => $gen, jobs => \@jobs }), "\n";
			}
			close $c;
		}' "$w/sm.sock" "$w/hints.log" &
	fake=$!
}

# wait_for NAME CMD...: poll CMD (up to 5 s) until it succeeds.
wait_for() {
	name=$1
	shift
	i=0
	until "$@" 2>/dev/null; do
		i=$((i + 1))
		if [ $i -gt 100 ]; then
			bad "$name" "timed out"
			return 0
		fi
		sleep 0.05
	done
	ok "$name"
}

fake_plugin
start

"$R" pool --json > "$w/st"
expect "status: hosts" 32 "$(json "$w/st" 'scalar @{$r->{hosts}}')"
expect "status: free GPUs" 128 "$(json "$w/st" '$r->{free}')"
expect "status: HCAs found" 0 "$(json "$w/st" '$r->{fabric}{hcas_missing}')"
expect "status: LMC" 1 "$(json "$w/st" '$r->{fabric}{lmc}')"
expect "status: the view's time and no failed refresh" "1 0 " \
	"$(json "$w/st" '($r->{fabric}{view_at} =~ /^20\d\d-\d\d-\d\dT\d\d:\d\d:\d\dZ$/ ? 1 : 0) . " $r->{fabric}{refresh_failures} $r->{fabric}{refresh_error}"')"
"$R" pool > "$w/out"
if grep -q '^Pool: 32 hosts, 128 GPUs, 128 free' "$w/out"; then
	ok "status: text"
else
	bad "status: text" "$(head -1 "$w/out")"
fi
check "status: text, the view's age" \
	grep -q '^View: discovered 20.*Z, [0-9]* s ago$' "$w/out"

# --- allocations and their paths ---
"$R" alloc --client node0001 --gpus 4 --job j1 --json > "$w/a1"
"$R" alloc --client node0001 --gpus 12 --json > "$w/a2"
expect "alloc: 4 GPUs" 4 "$(json "$w/a1" 'scalar @{$r->{gpus}}')"
expect "alloc: ids from 1" "1 2" "$(json "$w/a1" '$r->{id}') $(json "$w/a2" '$r->{id}')"
expect "alloc: one host, the fewest" 1 \
	"$(json "$w/a1" 'my %h = map { $_->{host} => 1 } @{$r->{gpus}}; scalar keys %h')"
expect "alloc: the client's own leaf first" "node0001 node0002 node0003 node0004" \
	"$(cat "$w/a1" "$w/a2" | perl -MJSON::PP -ne 'my $r = decode_json($_);
		$h{$_->{host}} = 1 for @{$r->{gpus}}; END { print join(" ", sort keys %h), "\n" }')"
expect "alloc: GID is prefix and port GUID" ok "$(json "$w/a1" '
	my $g = $r->{gpus}[0]; (my $x = $g->{port_guid}) =~ s/^0x//;
	$x =~ s/(....)(?=.)/$1:/g; $g->{gid} eq "fe80:0000:0000:0000:$x" ? "ok" : $g->{gid}')"
expect "alloc: SL, MTU and rate (4x EDR)" "0 4096 100" \
	"$(json "$w/a1" 'my $g = $r->{gpus}[0]; "$g->{sl} $g->{mtu} $g->{rate}"')"

# Every hop must leave by a cabled port towards the next hop's switch,
# from the client's leaf to the GPU's HCA; the DLID one of its 2 LIDs.
check_paths() {
	perl -MJSON::PP -e '
		my ($net, $file, $client) = @ARGV;
		my (%guid, %peer, $cur, $g);
		open(my $n, "<", $net) or die;
		while (<$n>) {
			if (/^(?:switch|ca)guid=(0x[0-9a-f]+)/) { $g = hex($1); next }
			if (/^(?:Switch|Hca)\s+\d+\s+"([^"]+)"/) {
				$cur = $1; $guid{$cur} = $g; next;
			}
			$peer{"$cur:$1"} = [$2, $3] if /^\[(\d+)\]\s+"([^"]+)"\[(\d+)\]/;
		}
		my %byguid = map { $guid{$_} => $_ } keys %guid;
		local $/; open(my $f, "<", $file) or die;
		my $r = decode_json(<$f>);
		my @allocs = $r->{allocs} ? @{$r->{allocs}} : ($r);
		my $bad = 0;
		for my $a (@allocs) {
			for my $gp (@{$a->{gpus}}) {
				my $at = $peer{"$a->{client} mlx5_0:1"}[0];
				my $i = 0;
				for my $hop (@{$gp->{path}}) {
					my ($sw, $p) = split /:/, $hop;
					my $name = $byguid{hex($sw)};
					$bad++, last unless defined $name && $name eq $at;
					# the same hop as a reader names it
					$bad++ unless ($gp->{path_names}[$i++] // "") eq "$name port $p";
					$at = $peer{"$name:$p"}[0];
				}
				# ibsim: port GUID = node GUID + 1
				$bad++ unless defined $at &&
					sprintf("0x%016x", $guid{$at} + 1) eq $gp->{port_guid};
			}
		}
		print $bad ? "$bad bad paths\n" : "ok\n";' "$NET" "$1"
}
expect "alloc: paths follow the cabling" ok "$(check_paths "$w/a1")"
# As text: each allocation's line, then one line per host port its GPUs
# share (1 host for the first, 3 for the second), with units and the hops
# by switch name.
"$R" allocs > "$w/out"
if [ "$(grep -c '^Allocation' "$w/out")" = 2 ] &&
	[ "$(grep -c '^  node' "$w/out")" = 4 ] &&
	grep -q '^Allocation 1: client node0001, uid [0-9]*, job j1, 4 GPUs, expires 20[0-9-]* [0-9:]* UTC$' "$w/out" &&
	sed -n 2p "$w/out" | grep -Eq '^  node000[1-4] GPUs 0,1,2,3: DLID [0-9]+, GID fe80(:[0-9a-f]{4}){7}, SL 0, MTU 4096 bytes, 100 Gb/s, load [0-9]+\.[0-9]{2} paths on its busiest link, path leaf-0 port [0-9]+$'; then
	ok "allocs: text"
else
	bad "allocs: text" "$(cat "$w/out")"
fi

# With its leaf full, node0001's next two allocations leave the leaf,
# each by another up-link (tests/unit/test_view.c shows the load steers
# the LMC choice; here it must at least not pile up).
"$R" allocs --json > "$w/list0"
"$R" alloc --client node0001 --gpus 4 --json > "$w/a5"
"$R" alloc --client node0001 --gpus 4 --json > "$w/a6"
expect "alloc: two allocations leave the leaf by other up-links" ok "$(perl -MJSON::PP -e '
	local $/; my @u;
	for my $f (@ARGV) { open(my $h, "<", $f) or die; my $r = decode_json(<$h>);
		my $p = $r->{gpus}[0]{path}; die "short path @$p\n" unless @$p == 3;
		push @u, $p->[0]; }
	print $u[0] ne $u[1] ? "ok\n" : "same first hop $u[0]\n";' "$w/a5" "$w/a6")"
expect "alloc: paths follow the cabling, other leaves" ok "$(check_paths "$w/a5")"
"$R" release "$(json "$w/a5" '$r->{id}')" > /dev/null
"$R" release "$(json "$w/a6" '$r->{id}')" > /dev/null

"$R" allocs --json > "$w/list"
expect "allocs: the two left listed" "1 2" "$(json "$w/list" 'join " ", map { $_->{id} } @{$r->{allocs}}')"
# A release takes its own load back: the two left weigh as before.
loads='join " ", map { map { $_->{load} } @{$_->{gpus}} } @{$r->{allocs}}'
expect "release: the loads as before the two" "$(json "$w/list0" "$loads")" \
	"$(json "$w/list" "$loads")"
expect "allocs: paths follow the cabling" ok "$(check_paths "$w/list")"
expect "allocs: same shape as alloc" "$(json "$w/a1" 'join ",", sort keys %{$r->{gpus}[0]}')" \
	"$(json "$w/list" 'join ",", sort keys %{$r->{allocs}[0]{gpus}[0]}')"

# --- renew, release, refusals ---
"$R" renew 2 --lease 30 --json > "$w/rn"
now=$(date +%s)
exp=$(json "$w/rn" '$r->{expires}')
if [ "$exp" -ge $((now + 25)) ] && [ "$exp" -le $((now + 35)) ]; then
	ok "renew: 30 s lease"
else
	bad "renew: 30 s lease" "expires $exp, now $now"
fi
refused "alloc: more than the pool has is a bad request" bad_request \
	"$R" alloc --client node0002 --gpus 200
check "alloc: the pool's size in the message" \
	grep -q "200 GPUs requested, the pool has 128" "$w/err"
refused "alloc: too many for now: pool_full" pool_full \
	"$R" alloc --client node0002 --gpus 120
if grep -q "120 GPUs requested, 112 free" "$w/err"; then
	ok "alloc: free count in the message"
else
	bad "alloc: free count in the message" "$(cat "$w/err")"
fi
refused "alloc: unknown client" unknown_host "$R" alloc --client nosuch --gpus 1
refused "release: unknown id" not_found "$R" release 99
refused "release: not an id" bad_request "$R" release abc
refused "place: impossible" bad_request "$R" place --gpus 400 --per-host 4
refused "topology: bad format" bad_request "$R" topology --format dot
refused "jobs: unknown host" unknown_host "$R" jobs --start j9 --hosts nosuch
refused "jobs: bad id" bad_request "$R" jobs --start 'j 9' --hosts node0001
check "jobs: bad id names the characters" \
	grep -qF "job 'j 9': only A-Z a-z 0-9 . _ : - are allowed" "$w/err"
refused "jobs: id too long" bad_request "$R" jobs \
	--start "$(printf '%065d' 0)" --hosts node0001
check "jobs: id too long says the length" \
	grep -qF "field 'job' must be 1..64 characters" "$w/err"
refused "jobs: end unknown" not_found "$R" jobs --end nosuch
printf '%s\n' '{"op":"alloc","client":"node0001","gpus":1,"colour":"red"}' > "$w/req"
if perl -MIO::Socket::UNIX -e '
	my $s = IO::Socket::UNIX->new(Peer => $ARGV[0]) or die;
	open(my $f, "<", $ARGV[1]) or die; my $q = <$f>; print $s $q;
	my $l = <$s>;
	exit($l =~ /"code":"bad_request".*unknown field .colour./ ? 0 : 1)' \
	"$GPUAWARE_POOL_SOCKET" "$w/req"; then
	ok "alloc: unknown field refused"
else
	bad "alloc: unknown field refused"
fi
"$R" release 2 > "$w/out"
expect "release: text" "Released allocation 2" "$(cat "$w/out")"
refused "release: twice" not_found "$R" release 2

# --- expiry ---
"$R" alloc --client node0003 --gpus 1 --lease 1 --json > "$w/a3"
id3=$(json "$w/a3" '$r->{id}')
wait_for "expiry: lease of 1 s freed" sh -c \
	"! '$R' allocs --json | grep -q '\"id\":\"$id3\"'"

# --- placement and export ---
"$R" place --gpus 16 --per-host 4 --json > "$w/pl"
expect "place: 4 hosts of one leaf" "4 0 1" \
	"$(json "$w/pl" 'scalar(@{$r->{hosts}}) . " $r->{score}{level} $r->{score}{leaves}"')"
expect "place: not the leaf of node0001's GPUs" 0 \
	"$(json "$w/pl" 'scalar grep { $_ eq "node0001" } @{$r->{hosts}}')"
"$R" topology > "$w/topo"
expect "topology: slurm leaves" 8 "$(grep -c 'Nodes=node' "$w/topo")"
"$R" topology --format k8s-labels > "$w/k8s"
expect "topology: k8s labels per host" 32 "$(grep -c 'fabric.topograph.run/tier-0=' "$w/k8s")"

# --- jobs and the relay ---
"$R" jobs --start j1 --hosts 'node[0001-0004]' > /dev/null
"$R" jobs --json > "$w/jobs"
expect "jobs: listed with the allocation" "j1 node0001,node0002,node0003,node0004 1" \
	"$(json "$w/jobs" 'my $j = $r->{jobs}[0]; "$j->{job} " . join(",", @{$j->{hosts}}) . " " . join(",", @{$j->{allocs}})')"
wait_for "relay: the plugin got j1, as owner ibpoold" \
	grep -q '"owner":"ibpoold","jobs":\[{"id":"j1","hosts":\["node0001","node0002","node0003","node0004"\]}\]' "$w/hints.log"
# The plugin's table holds the direct job and j1: the relay, checking
# every 100 ms, is content and sends j1 once.
sleep 0.5
expect "relay: one set while the plugin holds its jobs" 1 \
	"$(grep -c '"id":"j1"' "$w/hints.log")"
"$R" hints get --socket "$w/sm.sock" --json > "$w/hg"
expect "relay: the direct job kept beside the pool's" "direct:- j1:ibpoold" \
	"$(json "$w/hg" 'join(" ", map { "$_->{id}:" . ($_->{owner} // "-") } @{$r->{jobs}})')"
# The plugin restarts with an empty table: the relay sends it again.
kill "$fake"
wait "$fake" 2>/dev/null || true
rm -f "$w/hints.log"
fake_plugin
wait_for "relay: sent again after a plugin restart" \
	grep -q '"id":"j1"' "$w/hints.log"
"$R" jobs --end j1 > /dev/null
wait_for "relay: job end relayed" \
	grep -q '"op":"hints.remove","owner":"ibpoold","ids":\["j1"\]' "$w/hints.log"
"$R" allocs --json > "$w/l2"
expect "jobs: end released the job's allocation" 0 \
	"$(json "$w/l2" 'scalar grep { $_->{id} eq "1" } @{$r->{allocs}}')"

# A job too large for its names in one line comes as its node list (the
# Slurm hooks'); "hosts" and "nodelist" together are refused.
line() {
	perl -MIO::Socket::UNIX -e '
		my $s = IO::Socket::UNIX->new(Peer => $ARGV[0]) or die;
		print $s "$ARGV[1]\n"; print scalar <$s>;' \
		"$GPUAWARE_POOL_SOCKET" "$1"
}
line '{"op":"job.start","job":"jn","nodelist":"node[0005-0007],node0009"}' > "$w/jn"
"$R" jobs --json > "$w/jobs"
expect "jobs: started from a node list" "jn node0005,node0006,node0007,node0009" \
	"$(json "$w/jobs" 'my ($j) = grep { $_->{job} eq "jn" } @{$r->{jobs}}; "$j->{job} " . join(",", @{$j->{hosts}})')"
line '{"op":"job.start","job":"jm","nodelist":"node0001","hosts":["node0001"]}' > "$w/jm"
check "jobs: hosts and nodelist refused" \
	grep -q "give 'hosts' or 'nodelist', one of them" "$w/jm"
line '{"op":"job.start","job":"jm","nodelist":"node[0001-0002],NODE0001"}' > "$w/jm"
check "jobs: a node list's host twice refused" \
	grep -qi "host .node0001. listed twice" "$w/jm"
"$R" jobs --end jn > /dev/null

# --- permissions: nobody reads, cannot touch root's or start jobs ---
"$R" alloc --client node0005 --gpus 2 --json > "$w/ar"
idr=$(json "$w/ar" '$r->{id}')
NOB="setpriv --reuid=nobody --regid=nogroup --clear-groups"
if $NOB "$R" pool > /dev/null 2>&1; then
	ok "nobody: reads the pool"
else
	bad "nobody: reads the pool"
fi
refused "nobody: cannot release root's allocation" forbidden $NOB "$R" release "$idr"
refused "nobody: cannot start jobs" forbidden $NOB "$R" jobs --start j2 --hosts node0001
$NOB "$R" alloc --client node0006 --gpus 1 --json > "$w/an"
expect "nobody: allocates as itself" 65534 "$(json "$w/an" '$r->{uid}')"
st=0
$NOB "$R" release "$(json "$w/an" '$r->{id}')" > /dev/null || st=$?
expect "nobody: releases its own" 0 "$st"

# A socket its mode keeps nobody out of: the refusal names the settings.
chmod 0600 "$GPUAWARE_POOL_SOCKET"
st=0
$NOB "$R" pool > "$w/out" 2> "$w/err" || st=$?
check "socket mode: nobody is refused, exit 2" [ "$st" -eq 2 ]
check "socket mode: one line naming socket_mode and group" grep -qx \
	"ibpoolroute: $GPUAWARE_POOL_SOCKET: connect: Permission denied; .*\[pool\] socket_mode .*\[pool\] group" \
	"$w/err"
st=0
$NOB "$R" pool --json > "$w/out" 2> "$w/err" || st=$?
check "socket mode: --json, one error object" grep -q \
	'^{"ok":false,"error":{"code":"unreachable",.*"hint":".*socket_mode' "$w/out"
chmod 0666 "$GPUAWARE_POOL_SOCKET"

# --- kill -9 in a burst: every acknowledged allocation survives ---
: > "$w/acks"
(
	for k in $(seq 1 40); do
		c=$(printf 'node%04d' $((k % 32 + 1)))
		"$R" alloc --client "$c" --gpus 1 --json >> "$w/acks" 2>/dev/null || true
	done
) &
burst=$!
i=0
while [ "$(wc -l < "$w/acks")" -lt 10 ] && [ $i -lt 1000 ]; do
	sleep 0.01
	i=$((i + 1))
done
kill -9 "$pid"
wait "$pid" 2>/dev/null || true
pid=
wait "$burst" 2>/dev/null || true
burst=
acked=$(perl -MJSON::PP -ne 'my $r = eval { decode_json($_) } or next;
	print "$r->{id}\n" if $r->{ok}' "$w/acks" | sort -n | tr '\n' ' ')
start
"$R" allocs --json > "$w/after"
have=$(json "$w/after" 'join " ", sort { $a <=> $b } grep { $_ > '"$idr"' + 1 } map { $_->{id} } @{$r->{allocs}}')
# The one request in flight may be durable without its reply: at most
# one id beyond the acknowledged ones, and it must be the next.
expect "crash: acknowledged allocations survive" ok "$(perl -e '
	my %have = map { $_ => 1 } split " ", $ARGV[0];
	my @acked = split " ", $ARGV[1];
	my @lost = grep { !$have{$_} } @acked;
	my %ack = map { $_ => 1 } @acked;
	my @extra = grep { !$ack{$_} } keys %have;
	my $max = @acked ? $acked[-1] : 0;
	print @lost ? "lost @lost\n" :
	      (@extra > 1 || (@extra && $extra[0] != $max + 1)) ?
	      "unacknowledged @extra\n" : "ok\n";' "$have" "$acked")"
n=$(echo "$acked" | wc -w)
if [ "$n" -ge 1 ] && [ "$n" -lt 40 ]; then
	ok "crash: the kill came within the burst"
else
	bad "crash: the kill came within the burst" "$acked"
fi
expect "crash: root's allocation kept" 1 \
	"$(json "$w/after" 'scalar grep { $_->{id} eq "'"$idr"'" } @{$r->{allocs}}')"
"$R" alloc --client node0001 --gpus 1 --json > "$w/a4"
if [ "$(json "$w/a4" '$r->{id}')" -gt "$(echo "$acked" | awk '{print $NF}')" ]; then
	ok "crash: ids are not reused"
else
	bad "crash: ids are not reused" "$(json "$w/a4" '$r->{id}')"
fi

# --- clean stop: SIGTERM compacts the journal ---
kill "$pid"
st=0
wait "$pid" || st=$?
pid=
expect "SIGTERM: exit 0" 0 "$st"
if [ -s "$w/state/snapshot.json" ] && [ ! -s "$w/state/journal.jsonl" ]; then
	ok "SIGTERM: journal compacted"
else
	bad "SIGTERM: journal compacted"
fi
if [ ! -e "$w/run/pool.sock" ]; then
	ok "SIGTERM: socket removed"
else
	bad "SIGTERM: socket removed"
fi

# --- a spoofed node description (issue 24): node0009's CA described as
# node0031's, which the config names by description ---
sed 's/^Hca	1 "node0009 mlx5_0"$/& # "node0031 mlx5_0"/' "$NET" >"$w/spoof.net"
NET=$w/spoof.net
start
"$R" pool --json >"$w/spoof-st"
expect "spoofed description: node0031's HCA counted missing" 1 \
	"$(json "$w/spoof-st" '$r->{fabric}{hcas_missing}')"
check "spoofed description: both CAs named in the log" \
	grep -q "host node0031 rail 0: CAs 0x[0-9a-f]* and 0x[0-9a-f]* are both described 'node0031 mlx5_0'" \
	"$w/daemon.log"
free=$(json "$w/spoof-st" '$r->{free}')
"$R" alloc --client node0001 --gpus "$free" >"$w/spoof-a" 2>&1 || true
check "spoofed description: node0031's GPUs not offered" \
	grep -q "$free GPUs requested, $free free, 4 of them unreachable" "$w/spoof-a"
kill "$pid"
wait "$pid" || true
pid=

echo "t-poold: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
