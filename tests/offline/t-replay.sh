#!/bin/sh
# SPDX-License-Identifier: MIT
# ibpoolroute replay without ibsim: a hand-made trace on a generated tree
# gives one row per policy and the JSON the bench reads; the schedule of
# a three-job trace is the one worked out by hand, and with a host
# failure scripted; the charts are XML;
# the packing bound (frag-bound, glpsol) of a known case; usage errors
# are one line.
# usage: t-replay.sh [BUILDDIR]
set -eu
cd "$(dirname "$0")/../.."
B=${1:-build}
BIN=$B/ibpoolroute

. tests/offline/lib.sh
off_workdir

"$B/ibtopogen" fattree --levels 3 --hosts-per-leaf 2 --down 2,2 --up 2,2 \
	-o "$w/tree.net"
# 8 hosts of 4 GPUs: a whole-cluster job blocks the second, the third
# backfills; a gang of 3 hosts; a fractional share
cat > "$w/trace.csv" <<'CSV'
submit,gpus,runtime,user,class,limit,milli
0,16,100,u1,,200,1000
10,32,50,u2,,100,1000
20,4,30,u3,,60,1000
30,12,40,u1,,80,1000
40,1,10,u2,,20,500
CSV

rc=0
"$BIN" replay --trace "$w/trace.csv" --net "$w/tree.net" --gpus-per-host 4 \
	--policy fifo,easy,tiresias,fgd,sjf --svg "$w" > "$w/out" 2> "$w/err" ||
	rc=$?
if [ $rc -eq 0 ] && [ "$(grep -c '^\(fifo\|easy\|tiresias\|fgd\|sjf\) ' "$w/out")" -eq 5 ]; then
	ok "replay: one row per policy"
else
	bad "replay: one row per policy" "exit $rc: $(cat "$w/err" "$w/out")"
fi
for f in utilisation jct-cdf; do
	if xmllint --noout "$w/$f.svg" 2> "$w/xml"; then
		ok "replay --svg: $f.svg is XML"
	else
		bad "replay --svg: $f.svg is XML" "$(head -3 "$w/xml")"
	fi
done

# EASY by hand: job 1 (16 GPUs) runs 0-100 on 4 hosts; job 2 (all 32)
# reserves the cluster at 200 (job 1's limit); job 3 (4 GPUs, limit 60)
# and job 4 (3 hosts, limit 80) end before it: backfilled at 20 and 30,
# which fills every host.  Job 5's share waits for job 3's host (50-60).
# Job 2 starts when job 1 ends at 100: JCTs 100, 140, 30, 40, 20: mean
# 66.
"$BIN" replay --trace "$w/trace.csv" --net "$w/tree.net" --gpus-per-host 4 \
	--policy easy --json > "$w/easy.json"
if python3 - "$w/easy.json" <<'PY'
import json, sys
p = json.load(open(sys.argv[1]))["policies"][0]
assert p["done"] == 5, p
assert abs(p["jct_mean"] - 66) < 1e-6, p["jct_mean"]
assert abs(p["makespan"] - 150) < 1e-6, p["makespan"]
assert p["gangs"] == 3 and p["gangs_lowest_level"] == 3, p
PY
then
	ok "replay easy: the hand-computed schedule"
else
	bad "replay easy: the hand-computed schedule"
fi

# --comm-share: a gang of 8 hosts (64 GPUs) alone on a 2:1 tree spans
# two leaves; its run of 1000 s takes 500 + 500 x its slowdown with a
# share of 0.5, 1000 s with none, and neither counts as waiting.
"$B/ibtopogen" fattree --levels 3 --hosts-per-leaf 4 --down 4,4 --up 2,2 \
	-o "$w/tree64.net"
printf 'submit,gpus,runtime,user,class,limit,milli\n0,64,1000,u1,,2000,1000\n' \
	> "$w/gang.csv"
for cs in 0 0.5; do
	"$BIN" replay --trace "$w/gang.csv" --net "$w/tree64.net" \
		--policy easy --comm-share $cs --json > "$w/cs$cs.json"
done
if python3 - "$w/cs0.json" "$w/cs0.5.json" <<'PY'
import json, sys
a, b = (json.load(open(f))["policies"][0] for f in sys.argv[1:])
assert a["jct_mean"] == 1000 and a["wait_mean"] == 0, a
sd = b["comm_slowdown"]
assert sd > 1.1, sd
assert abs(b["jct_mean"] - 1000 * (0.5 + 0.5 * sd)) < 1e-6, b
assert b["wait_mean"] == 0 and b["gang_jct_mean"] == b["jct_mean"], b
PY
then
	ok "replay --comm-share: a gang's run stretched by its slowdown"
else
	bad "replay --comm-share: a gang's run stretched by its slowdown"
fi

# Host failures by hand: a job of all 32 GPUs (100 s) from 0; node0003
# fails at 30 and is back at 80.  The job is requeued (no host to
# replace it), runs again from 80 with its 30 s redone and a restart of
# 10: JCT 190, 30 s x 32 GPUs lost.  A checkpoint every 20 s keeps 20 s
# of it: JCT 170, 10 s x 32 lost.  J2 (4 GPUs, 10 s) at 40 runs on the
# hosts left, JCT 10.
printf 'submit,gpus,runtime,user,class,limit,milli\n0,32,100,u1,,200,1000\n40,4,10,u2,,20,1000\n' \
	> "$w/fail.csv"
printf '# node0003 down for 50 s\n30,node0003,down\n80,node0003,up\n' \
	> "$w/fails.csv"
for c in 0 20; do
	"$BIN" replay --trace "$w/fail.csv" --net "$w/tree.net" \
		--gpus-per-host 4 --policy easy,priority --restart 10 \
		--fail-trace "$w/fails.csv" --checkpoint $c --json \
		> "$w/fail$c.json"
done
if python3 - "$w/fail0.json" "$w/fail20.json" <<'PY'
import json, sys
for f, jct, lost in zip(sys.argv[1:], (190, 170), (30, 10)):
    for p in json.load(open(f))["policies"]:
        assert p["done"] == 2 and p["refused"] == 0, p
        assert abs(p["jct_mean"] - (jct + 10) / 2) < 1e-6, (f, p["jct_mean"])
        assert p["failures"] == 1 and p["jobs_hit"] == 1, p
        assert p["requeued"] == 1 and p["replaced"] == 0, p
        assert abs(p["lost_gpu_hours"] - lost * 32 / 3600) < 1e-9, p
PY
then
	ok "replay --fail-trace: the hand-computed schedule"
else
	bad "replay --fail-trace: the hand-computed schedule"
fi

# Seeded failures: every host fails every 300 s on average, the same
# twice from one seed; under easy (Slurm's requeue) no job is replaced,
# under priority (ibpoold's) some are.
for i in 1 2; do
	"$BIN" replay --trace "$w/trace.csv" --net "$w/tree.net" \
		--gpus-per-host 4 --policy easy,priority --fail-mtbf 300 \
		--repair 10 --checkpoint 5 --restart 10 --seed 3 --json > "$w/mtbf$i.json"
done
if python3 - "$w/mtbf1.json" "$w/mtbf2.json" <<'PY'
import json, sys
a, b = ([{k: v for k, v in p.items() if not k.startswith("step_")}
         for p in json.load(open(f))["policies"]] for f in sys.argv[1:])
assert a == b, (a, b)
easy, prio = a
for p in easy, prio:
    assert p["done"] == 5 and p["failures"] > 0 and p["hits"] > 0, p
    assert p["hits"] == p["replaced"] + p["requeued"], p
    assert p["lost_gpu_hours"] > 0 and p["given_up"] == 0, p
assert easy["replaced"] == 0 and prio["replaced"] > 0, (easy, prio)
PY
then
	ok "replay --fail-mtbf: seeded, the same twice"
else
	bad "replay --fail-mtbf: seeded, the same twice"
fi
"$BIN" replay --trace "$w/fail.csv" --net "$w/tree.net" --gpus-per-host 4 \
	--policy easy --fail-trace "$w/fails.csv" > "$w/out"
if grep -q '^easy  *1  *1  *1  *0  *1  *0 ' "$w/out"; then
	ok "replay --fail-trace: the failures' table"
else
	bad "replay --fail-trace: the failures' table" "$(cat "$w/out")"
fi

# RDMA bandwidth per HCA, as many as the fabric gives each host: 16 jobs
# of 60 % of one HCA alone on 8 hosts run together behind two HCAs a
# host (JCT 100), half of them after the rest behind one (mean 150).
"$B/ibtopogen" fattree --levels 3 --hosts-per-leaf 2 --down 2,2 --up 2,2 \
	--hcas 2 -o "$w/tree2.net"
echo submit,gpus,runtime,rdma > "$w/rdma.csv"
for i in $(seq 16); do echo 0,0,100,60; done >> "$w/rdma.csv"
for n in 1 2; do
	net=$w/tree.net
	[ $n = 1 ] || net=$w/tree2.net
	"$BIN" replay --trace "$w/rdma.csv" --net "$net" --policy fifo \
		--json > "$w/rdma$n.json"
done
if python3 - "$w/rdma1.json" "$w/rdma2.json" <<'PY'
import json, sys
jct = [json.load(open(f))["policies"][0]["jct_mean"] for f in sys.argv[1:]]
assert jct == [150, 100], jct
PY
then
	ok "replay: RDMA bandwidth on each HCA of a host"
else
	bad "replay: RDMA bandwidth on each HCA of a host"
fi

# tests/bench/frag-bound: two shares of 600 for one GPU, asked again
# until they reach it (two), fit one at a time: the bound is 600 of
# 1000 milli, 40 % unallocated.
printf 'submit,gpus,runtime,milli\n0,1,10,600\n1,1,10,600\n' > "$w/two.csv"
printf 'sn,cpu_milli,memory_mib,gpu,model\nn1,96000,786432,1,V100M32\n' \
	> "$w/gpu1.csv"
command -v glpsol >/dev/null || bad "glpsol installed" "run tools/deps.sh"
# bound_is NAME PODS MILLI: frag-bound of PODS on gpu1.csv, seed 1, solved
bound_is() {
	if "$B/frag-bound" "$2" "$w/gpu1.csv" 1 > "$w/bound.lp" &&
		glpsol --lp "$w/bound.lp" -o "$w/bound.out" >/dev/null &&
		grep -q "^Objective: *obj = $3 " "$w/bound.out"; then
		ok "frag-bound: $1"
	else
		bad "frag-bound: $1" \
			"$(grep '^Objective' "$w/bound.out" 2>/dev/null)"
	fi
}
bound_is "two shares of 600 on one GPU, at most 600" "$w/two.csv" 600

# its arrivals are the measure's: every pod, never-scheduled ones too.
# A share of 400 that ran and one of 600 never scheduled fill the GPU.
printf '%s\n' \
	name,cpu_milli,memory_mib,num_gpu,gpu_milli,gpu_spec,qos,pod_phase,creation_time,deletion_time,scheduled_time \
	p0,1000,1024,1,400,,LS,Succeeded,0,100,0 \
	p1,1000,1024,1,600,,LS,Pending,0,100, > "$w/pods.csv"
bound_is "a pod never scheduled arrives too" "$w/pods.csv" 1000

usage() {
	st=0
	"$BIN" replay "$@" > "$w/out" 2> "$w/err" || st=$?
	if [ $st -eq 2 ] && [ "$(wc -l < "$w/err")" -eq 1 ]; then
		ok "replay $*: usage error"
	else
		bad "replay $*: usage error" "exit $st: $(cat "$w/err")"
	fi
}
usage --trace "$w/trace.csv" --policy easy
usage --trace "$w/trace.csv" --net "$w/tree.net" --policy nope
usage --trace "$w/trace.csv" --net "$w/tree.net" --nodes x --policy easy
usage --trace "$w/trace.csv" --net "$w/tree.net" --policy easy --gpus-per-host 0
usage --trace "$w/none.csv" --net "$w/tree.net" --policy easy
usage --trace "$w/trace.csv" --net "$w/tree.net" --policy easy --comm-share 1.5
usage --trace "$w/trace.csv" --net "$w/tree.net" --policy easy --fail-recover x
usage --trace "$w/trace.csv" --net "$w/tree.net" --policy easy --fail-mtbf -1
printf '30,nosuchhost,down\n' > "$w/badfail.csv"
st=0
"$BIN" replay --trace "$w/trace.csv" --net "$w/tree.net" --policy easy \
	--fail-trace "$w/badfail.csv" > "$w/out" 2> "$w/err" || st=$?
if [ $st -ne 0 ] && [ "$(wc -l < "$w/err")" -eq 1 ] &&
	grep -q "badfail.csv:1: no host 'nosuchhost'" "$w/err"; then
	ok "replay --fail-trace: an unknown host is one line"
else
	bad "replay --fail-trace: an unknown host is one line" "exit $st: $(cat "$w/err")"
fi
# the flow model's options without a fabric to model
printf 'sn,cpu_milli,memory_mib,gpu,model\nn1,96000,786432,8,V100M32\n' \
	> "$w/nodes.csv"
printf 'submit,gpus,runtime\n0,1,10\n' > "$w/one.csv"
"$BIN" replay --trace "$w/one.csv" --nodes "$w/nodes.csv" --policy easy \
	--json > "$w/out"
usage --trace "$w/one.csv" --nodes "$w/nodes.csv" --policy easy --comm-share 0.5
usage --trace "$w/one.csv" --nodes "$w/nodes.csv" --policy easy --gang-wait 60

echo "replay: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
