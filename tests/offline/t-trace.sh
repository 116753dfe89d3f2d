#!/bin/sh
# SPDX-License-Identifier: MIT
# ibpoolroute trace: a generated Philly-shaped trace is the same for a
# seed, has the asked load and reads back with the same statistics; the
# published traces (when ../shared/traces is there) read with the counts
# docs/traces.md gives; the charts are XML that renders; usage and input
# errors are one line naming the file and line.
# usage: t-trace.sh [BUILDDIR]
set -eu
cd "$(dirname "$0")/../.."
B=${1:-build}
BIN=$B/ibpoolroute
T=${GPUAWARE_TRACES:-../shared/traces}

. tests/offline/lib.sh
off_workdir

# jget KEY: a value of the one-line JSON in $w/out.
jget() {
	jq -r "$1" "$w/out"
}

# A run-time file of 1..500 s and a zero, so the test needs no traces.
{
	echo runtime
	echo 0.0
	seq 1 500
} > "$w/rt.csv"

gen() {
	run "$BIN" trace --gen philly --runtimes "$w/rt.csv" "$@"
}

gen --jobs 2000 --load 0.9 --gpus 64 --seed 5 -o "$w/a.csv"
expect "gen: writes the file" 0 "wrote $w/a.csv: 2000 Philly-shaped jobs" "$w/err"
gen --jobs 2000 --load 0.9 --gpus 64 --seed 5
expect "gen: to stdout" 0 "submit,gpus,runtime,user,class,limit,milli,hosts,per_host,name,rdma,id"
check "gen: the same for a seed" cmp -s "$w/out" "$w/a.csv"
gen --jobs 2000 --load 0.9 --gpus 64 --seed 6 -o "$w/b.csv"
check "gen: another seed, another trace" sh -c "! cmp -s '$w/a.csv' '$w/b.csv'"
check "gen: 2000 jobs and the header" test "$(wc -l < "$w/a.csv")" -eq 2001

run "$BIN" trace --stats "$w/a.csv" --gpus 64 --json
expect "stats: json" 0 '"format":"plain"'
check "stats: the offered load asked" test "$(jget '.load * 1000 | round')" = 900
check "stats: 2000 jobs, none skipped" test "$(jget '[.jobs, (.skipped | add)] | @csv')" = "2000,0"
check "stats: run times from the file" test "$(jget '.runtime_max_s <= 500 and .runtime_median_s >= 1')" = true
check "stats: mostly 1-GPU jobs" test "$(jget '.gpu_mix["1"] > 1200')" = true

run "$BIN" trace --stats "$w/a.csv" --gpus 64
expect "stats: text" 0 "offered load on 64 GPUs: 0.9000"
expect "stats: text mix" 0 "GPUs per job: mean"

run "$BIN" trace --stats "$w/a.csv" --gpus 64 --svg "$w/svg"
expect "stats --svg" 0
for f in demand runtime-cdf; do
	if ! xmllint --noout "$w/svg/$f.svg" 2> "$w/xml"; then
		bad "chart $f: well-formed" "$(head -3 "$w/xml")"
	elif ! rsvg-convert -o "$w/$f.png" "$w/svg/$f.svg" || [ ! -s "$w/$f.png" ]; then
		bad "chart $f: renders"
	else
		ok "chart $f: XML that renders"
	fi
done
check "chart: axis labels with units" grep -q "time since the first submit (h)" "$w/svg/demand.svg"
check "chart: legend" grep -q ">capacity</text>" "$w/svg/demand.svg"

gen --jobs 500 --load 1 --gpus 64 --mix 1:1,16:1 -o "$w/m.csv"
run "$BIN" trace --stats "$w/m.csv" --json
check "gen --mix: only the sizes asked, gangs of 8-GPU hosts" test "$(jget '[.gpu_mix["1"] + .gpu_mix["9-16"], .multi_host == .gpu_mix["9-16"]] | @csv')" = "500,true"
gen --jobs 10 --load 1 --gpus 8 --mix 1:70,12:1
expect "gen --mix: gangs of whole hosts" 2 "bad GPU mix" "$w/err"
gen --jobs 10 --load 1 --gpus 8 --mix 1:70,
expect "gen --mix: malformed" 2 "bad GPU mix '1:70,'" "$w/err"

# errors: one line, naming the file and line
printf 'submit,gpus,runtime\n0,1,10\n5,x,10\n' > "$w/bad.csv"
run "$BIN" trace --stats "$w/bad.csv"
expect "bad row: file and line" 2 "$w/bad.csv:3: gpus: 'x' is not a whole number" "$w/err"
run "$BIN" trace --stats "$w/bad.csv" --format alibaba2023
expect "forced format" 2 "alibaba2023 trace without a 'num_gpu' column" "$w/err"
run "$BIN" trace --stats "$w/bad.csv" --format csv
expect "unknown format" 2 "unknown trace format 'csv'" "$w/err"
run "$BIN" trace --stats "$w/none.csv"
expect "missing file" 2 "none.csv: No such file or directory" "$w/err"
run "$BIN" trace --gen philly --jobs 10 --load 1
expect "gen needs --gpus" 2 "trace --gen needs --jobs N, --load L and --gpus G" "$w/err"
gen --jobs 10 --load 1 --gpus 8 --json
expect "gen --json needs -o" 2 "needs -o FILE"
gen --jobs 1 --load 1 --gpus 8
expect "gen: one job" 2 "bad job count '1'" "$w/err"
gen --jobs 10 --load -1 --gpus 8
expect "gen: bad load" 2 "bad offered load '-1'" "$w/err"
run "$BIN" trace --gen philly --runtimes "$w/none.csv" --jobs 10 --load 1 --gpus 8
expect "gen: missing run times" 2 "none.csv: No such file or directory" "$w/err"
run "$BIN" trace --gen slurm --jobs 10 --load 1 --gpus 8
expect "gen: unknown generator" 2 "unknown generator 'slurm'" "$w/err"
run "$BIN" trace --stats "$w/a.csv" --gen philly
expect "gen and stats" 2 "trace takes --gen NAME, --stats FILE or --convert FILE" "$w/err"
run "$BIN" trace --stats "$w/a.csv" --net x.net
expect "not an option of trace" 2 "--net is not an option of trace" "$w/err"
check "no temporary files left" sh -c "! ls '$w' '$w/svg' | grep -q '\.tmp'"

# The published traces, as docs/traces.md counts them.
if [ -r "$T/alibaba-gpu-v2023-pods.csv" ]; then
	run "$BIN" trace --stats "$T/alibaba-gpu-v2023-pods.csv" --json
	expect "alibaba 2023" 0 '"format":"alibaba2023"'
	check "alibaba 2023: jobs and skips" test "$(jget '[.rows, .jobs, .skipped.unscheduled, .skipped.no_gpu, .censored, .fractional] | @csv')" = "8152,6203,861,1088,4149,2573"
	# converted to plain CSV, the pods read as the same jobs
	run "$BIN" trace --convert "$T/alibaba-gpu-v2023-pods.csv" -o "$w/a23.csv"
	run "$BIN" trace --stats "$w/a23.csv" --json
	check "alibaba 2023 as plain CSV: jobs and skips" test "$(jget '[.rows, .jobs, .skipped.unscheduled, .skipped.no_gpu, .censored, .fractional] | @csv')" = "8152,6203,861,1088,4149,2573"
	run "$BIN" trace --stats "$T/alibaba-gpu-v2025-disaggregated.csv" --json
	check "alibaba 2025: jobs and skips" test "$(jget '[.rows, .jobs, .skipped.before_window, .censored] | @csv')" = "23871,16591,7280,4201"
	GPUAWARE_TRACES=$T run "$BIN" trace --gen philly --jobs 20000 --load 1.05 --gpus 512 -o "$w/p.csv"
	run "$BIN" trace --stats "$w/p.csv" --gpus 512 --json
	check "philly: 20000 jobs up to 128 GPUs at load 1.05" test "$(jget '[.jobs, .gpus_max, (.load * 100 | round)] | @csv')" = "20000,128,105"
else
	echo "SKIP the published traces: none in $T"
fi

echo "trace: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
