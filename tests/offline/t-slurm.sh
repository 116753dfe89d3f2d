#!/bin/sh
# SPDX-License-Identifier: MIT
# The Slurm hooks against a fake ibpoold (a perl-base Unix socket server
# that records the request and answers as told): the request lines, and
# exit 0 with a syslog line when the daemon is down, silent or refusing.
# usage: t-slurm.sh [BUILDDIR]; prints PASS/FAIL lines and a summary.
set -eu
cd "$(dirname "$0")/../.."
B=${1:-build}
S=plugins/slurm

. tests/offline/lib.sh

srv=
off_workdir srv

# A logger that appends to a file, ibpoolroute for the expansion, and an
# scontrol that cannot reach a slurmctld (as on a host with Slurm's
# commands but not its config), which the hooks must get past; one that
# works is tried further down.
mkdir "$w/bin"
cat > "$w/bin/logger" <<EOT
#!/bin/sh
echo "\$*" >> "$w/syslog"
EOT
cat > "$w/bin/scontrol" <<'EOT'
#!/bin/sh
echo "scontrol: error: resolve_ctls_from_dns_srv: res_nsearch error: Unknown host" >&2
exit 1
EOT
chmod +x "$w/bin/logger" "$w/bin/scontrol"
ln -s "$(pwd)/$B/ibpoolroute" "$w/bin/ibpoolroute"
PATH="$w/bin:$PATH"
export PATH
export GPUAWARE_POOL_SOCKET="$w/pool.sock" GPUAWARE_TIMEOUT=1

# serve REPLY: answer one connection with REPLY ("" : never answer),
# recording the request line in $w/req; ready once the socket exists.
serve() {
	rm -f "$w/pool.sock" "$w/req"
	perl -MIO::Socket::UNIX -e '
		my $l = IO::Socket::UNIX->new(Type => SOCK_STREAM(),
			Local => $ARGV[0], Listen => 1) or die "listen: $!";
		my $c = $l->accept or die "accept: $!";
		my $req = <$c>;
		open(my $f, ">", $ARGV[1]) or die; print $f $req; close $f;
		if ($ARGV[2] eq "") { sleep 10; exit 0 }
		print $c "$ARGV[2]\n";
	' "$w/pool.sock" "$w/req" "$1" &
	srv=$!
	i=0
	while [ ! -S "$w/pool.sock" ] && [ $i -lt 100 ]; do
		sleep 0.05
		i=$((i + 1))
	done
}

# hook NAME SCRIPT: run it; it must exit 0.  Seconds taken in $took;
# the server has recorded the request before it answers, so stop it.
hook() {
	rm -f "$w/syslog"
	t0=$(date +%s)
	if "$S/$2" > "$w/out" 2>&1; then
		ok "$1: exit 0"
	else
		bad "$1: exit 0" "exit $?"
	fi
	took=$(($(date +%s) - t0))
	if [ -n "$srv" ]; then
		kill "$srv" 2>/dev/null || true
		wait "$srv" 2>/dev/null || true
		srv=
	fi
}

# expect_req NAME LINE: the server got exactly LINE.
expect_req() {
	if [ "$(cat "$w/req" 2>/dev/null)" = "$2" ]; then
		ok "$1"
	else
		bad "$1" "got '$(head -c 200 "$w/req" 2>/dev/null)'"
	fi
}

# expect_log NAME PATTERN: syslog got a gpuaware line with PATTERN.
expect_log() {
	if grep -q -- "-t gpuaware .*$2" "$w/syslog" 2>/dev/null; then
		ok "$1"
	else
		bad "$1" "syslog: $(cat "$w/syslog" 2>/dev/null)"
	fi
}

export SLURM_JOB_ID=42 SLURM_JOB_NODELIST='gpu[01-02],cpu1'

serve '{ "ok": true }'
hook "prolog, daemon up" prolog-slurmctld.sh
expect_req "prolog request" \
	'{"op":"job.start","job":"42","hosts":["gpu01","gpu02","cpu1"]}'
if [ -s "$w/syslog" ]; then
	bad "prolog, daemon up: nothing logged" "$(cat "$w/syslog")"
else
	ok "prolog, daemon up: nothing logged"
fi

serve '{"ok":true}'
hook "epilog, daemon up" epilog-slurmctld.sh
expect_req "epilog request" '{"op":"job.end","job":"42"}'

rm -f "$w/pool.sock"
hook "prolog, daemon down" prolog-slurmctld.sh
expect_log "prolog, daemon down: logged" "job.start for job 42: ibpoold at $w/pool.sock unavailable: cannot connect"

serve ''
hook "epilog, daemon silent" epilog-slurmctld.sh
if [ "$took" -le 3 ]; then
	ok "epilog, daemon silent: bounded by the timeout"
else
	bad "epilog, daemon silent: bounded by the timeout"
fi
expect_log "epilog, daemon silent: logged" "job.end for job 42: .*timed out"

serve '{"ok":false,"error":{"code":"ENOENT","message":"no job"}}'
hook "epilog, refused" epilog-slurmctld.sh
expect_log "epilog, refused: logged" "ibpoold refused: .*no job"

SLURM_JOB_NODELIST='gpu[01-' hook "prolog, bad nodelist" prolog-slurmctld.sh
expect_log "prolog, bad nodelist: logged" "cannot expand nodelist 'gpu\[01-'"

# An scontrol that works is the one that expands.
cat > "$w/bin/scontrol" <<'EOT'
#!/bin/sh
[ "$1 $2" = "show hostnames" ] || exit 1
echo fromscontrol1
echo fromscontrol2
EOT
serve '{"ok":true}'
hook "prolog, scontrol works" prolog-slurmctld.sh
expect_req "prolog: scontrol's names" \
	'{"op":"job.start","job":"42","hosts":["fromscontrol1","fromscontrol2"]}'
rm -f "$w/bin/scontrol"

SLURM_JOB_ID='4"2' hook "prolog, bad job id" prolog-slurmctld.sh
expect_log "prolog, bad job id: logged" "bad or missing SLURM_JOB_ID"

# The job is the pool's, but the routing plugin refused it: logged, also
# to the log file of the hook's config, which slurmctld's hooks read as
# they get no environment of ours.
cat > "$w/hooks.conf" <<EOT
; the Slurm hooks' settings
socket = $w/pool.sock   ; ibpoold's
log = $w/hook.log
timeout=2
EOT
serve '{"ok":true,"job":"42","routing_refused":"job '"'"'42'"'"': unknown host '"'"'gpu9'"'"'"}'
(
	unset GPUAWARE_POOL_SOCKET GPUAWARE_TIMEOUT
	export GPUAWARE_HOOK_CONFIG="$w/hooks.conf" SLURM_JOB_NODELIST=gpu9
	hook "prolog, routing refused" prolog-slurmctld.sh
	echo "$pass $fail" > "$w/counts"
)
read -r pass fail < "$w/counts"
expect_req "prolog, config file: its socket" \
	'{"op":"job.start","job":"42","hosts":["gpu9"]}'
expect_log "prolog, routing refused: logged" \
	"job.start for job 42: in the pool, but the routing refused it: job '42': unknown host 'gpu9'"
if grep -q "gpuaware: job.start for job 42: in the pool, but the routing refused it: job '42': unknown host 'gpu9'" \
	"$w/hook.log" 2>/dev/null; then
	ok "prolog, routing refused: in the config's log file"
else
	bad "prolog, routing refused: in the config's log file" \
		"$(cat "$w/hook.log" 2>/dev/null)"
fi

# A timeout perl's alarm would take as none (whole seconds only): said,
# and the default used, so the exchange is still bounded.
sed -i 's/^timeout=2$/timeout = 0.5/' "$w/hooks.conf"
serve '{"ok":true}'
(
	unset GPUAWARE_POOL_SOCKET GPUAWARE_TIMEOUT
	export GPUAWARE_HOOK_CONFIG="$w/hooks.conf" SLURM_JOB_NODELIST=gpu9
	hook "prolog, timeout 0.5" prolog-slurmctld.sh
	echo "$pass $fail" > "$w/counts"
)
read -r pass fail < "$w/counts"
expect_req "prolog, timeout 0.5: request sent" \
	'{"op":"job.start","job":"42","hosts":["gpu9"]}'
expect_log "prolog, timeout 0.5: logged" \
	"timeout '0.5' is not a whole number of seconds, 1 or more; 3 used"

# A 65,536-host job: expanded in linear time inside the timeout, and
# sent as its node list, which does not fit in ibpoold's line expanded.
serve '{"ok":true}'
SLURM_JOB_NODELIST='h[1-65536]' hook "prolog, 65536 hosts" prolog-slurmctld.sh
if [ "$took" -le 2 ]; then
	ok "prolog, 65536 hosts: within the timeout"
else
	bad "prolog, 65536 hosts: within the timeout" "$took s"
fi
expect_req "prolog, 65536 hosts: the node list sent" \
	'{"op":"job.start","job":"42","nodelist":"h[1-65536]"}'

# 5,000 hosts still fit: their names are sent.
serve '{"ok":true}'
SLURM_JOB_NODELIST='h[1-5000]' hook "prolog, 5000 hosts" prolog-slurmctld.sh
n=$(tr ',' '\n' < "$w/req" | grep -c '"h[0-9]*"' || true)
if [ "$n" = 5000 ] && grep -q '"hosts":\["h1",' "$w/req"; then
	ok "prolog, 5000 hosts: each name sent"
else
	bad "prolog, 5000 hosts: each name sent" "$n names"
fi

# A node list that fits neither way is refused with a reason.
big=$(perl -e 'print join(",", map { "node${_}x" } 1..9000)')
rm -f "$w/pool.sock"
SLURM_JOB_NODELIST=$big hook "prolog, 9000 names" prolog-slurmctld.sh
expect_log "prolog, 9000 names: refused with a reason" \
	"job.start for job 42: 9000 hosts: the request is over ibpoold's 65536-byte line"

# An scontrol that hangs is bounded by the timeout too.
cat > "$w/bin/scontrol" <<'EOT'
#!/bin/sh
sleep 20
EOT
chmod +x "$w/bin/scontrol"
serve '{"ok":true}'
hook "prolog, scontrol hangs" prolog-slurmctld.sh
if [ "$took" -le 3 ]; then
	ok "prolog, scontrol hangs: bounded by the timeout"
else
	bad "prolog, scontrol hangs: bounded by the timeout" "$took s"
fi
expect_log "prolog, scontrol hangs: logged" "job.start for job 42: .*timed out"
rm -f "$w/bin/scontrol"

# 2^32 seconds would wrap perl's alarm to none: clamped, and said.
serve '{"ok":true}'
GPUAWARE_TIMEOUT=4294967296 hook "prolog, timeout 2^32" prolog-slurmctld.sh
expect_log "prolog, timeout 2^32: clamped" \
	"timeout '4294967296' is over 600 seconds; 600 used"
expect_req "prolog, timeout 2^32: request sent" \
	'{"op":"job.start","job":"42","hosts":["gpu01","gpu02","cpu1"]}'

# A newline in the job id is no second log line.
SLURM_JOB_ID='42
gpuaware: forged' GPUAWARE_HOOK_LOG="$w/forge.log" \
	hook "prolog, newline in job id" prolog-slurmctld.sh
if [ "$(wc -l < "$w/syslog")" = 1 ] && [ "$(wc -l < "$w/forge.log")" = 1 ] &&
	grep -q "SLURM_JOB_ID '42?gpuaware: forged'" "$w/forge.log"; then
	ok "prolog, newline in job id: one escaped line"
else
	bad "prolog, newline in job id: one escaped line" \
		"$(cat "$w/syslog" "$w/forge.log")"
fi

echo "t-slurm: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
