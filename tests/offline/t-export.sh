#!/bin/sh
# SPDX-License-Identifier: MIT
# ibpoold's topology exports, offline on a 3-level fat-tree: the real
# slurmctld (Debian's Slurm, topology/tree) accepts the tree export and
# loads every switch of it; topology.yaml and the Kueue Topology are YAML
# of the documented shape; the block export puts every host in one block
# with power-of-two block sizes; the accelerator domains of the config
# become the blocks and a Kueue level; gres.conf has each host's GPUs
# and Slurm shards (the real Slurm takes it in tests/ibsim/t-slurm-gres.sh),
# HAMi's config.json each host split in 10; switch names come from the
# node-name-map, else the NodeDescription; --json has the structure.  A
# failed leaf or core switch renames no other group (ibtopogen
# --fail-switch, the exports compared).
# usage: t-export.sh [BUILDDIR]; prints PASS/FAIL lines and a summary.
set -eu
cd "$(dirname "$0")/../.."
B=${1:-build}

. tests/offline/lib.sh
. tests/slurm.sh
poold_setup pid ctld

G=$B/ibtopogen
S=$w/pool.sock

expect() {
	if [ "$2" = "$3" ]; then ok "$1"; else bad "$1" "want '$2', got '$3'"; fi
}

# conf [DOMAINS]: every host of the 16 (two per accelerator domain with
# DOMAINS), and the node-name-map.
conf() {
	printf '[pool]\nsocket = %s\nstate_dir = %s/state\nsm_socket = %s/sm.sock\nnode_name_map = %s/names.map\n' \
		"$S" "$w" "$w" "$w"
	for k in $(seq 1 16); do
		printf '[host node%04d]\ngpus = 4\ngpu_type = H100\nhca = node%04d mlx5_0\n' \
			"$k" "$k"
		if [ $# -gt 0 ]; then
			printf 'accelerator_domain = nvl%d\n' $(((k + 1) / 2))
		fi
	done
}

topo() {
	"$R" topology --socket "$S" "$@"
}

# 16 hosts, 8 leaves in 4 pods of 2 spines, 4 cores
"$G" fattree --levels 3 --radix 4 -o "$w/full.net"
"$G" fattree --levels 3 --radix 4 --fail-switch leaf-p0-0 -o "$w/noleaf.net"
"$G" fattree --levels 3 --radix 4 --fail-switch core-1 -o "$w/nocore.net"
printf '# ours\n0x0002c90200000002 "ib-leaf-p1a"  # rack 2\n' >"$w/names.map"

conf >"$w/pool.conf"
poold_start "$D" "$w/pool.conf" "$w/full.net"
for f in slurm-tree slurm-block slurm-yaml k8s-labels kueue slurm-gres k8s-hami; do
	topo --format "$f" >"$w/$f"
	topo --format "$f" --json >"$w/$f.json"
done
poold_stop

# --- names: the map's, else the NodeDescription ---
check "tree: the map names leaf-p1-0" \
	grep -q '^SwitchName=ib-leaf-p1a Nodes=node\[0005-0006\]$' "$w/slurm-tree"
check "tree: a pod by its first spine" \
	grep -q '^SwitchName=spine-p0-0 Switches=leaf-p0-\[0-1\]$' "$w/slurm-tree"
check "tree: the root by its first core" \
	grep -q '^SwitchName=core-0 Switches=' "$w/slurm-tree"
expect "tree: 8 leaves, 4 pods, a root" 13 "$(grep -c '^SwitchName=' "$w/slurm-tree")"

# --- gres.conf: GPUs whole and as Slurm shards, 10 a GPU ---
expect "gres: the 16 hosts' 4 GPUs, NVIDIA's files" \
	'NodeName=node[0001-0016] Name=gpu Type=H100 Count=4 File=/dev/nvidia[0-3]' \
	"$(grep '^NodeName=.* Name=gpu ' "$w/slurm-gres")"
expect "gres: the 16 hosts' 40 shards" 'NodeName=node[0001-0016] Name=shard Count=40' \
	"$(grep '^NodeName=.* Name=shard ' "$w/slurm-gres")"
expect "gres: the slurm.conf lines it needs" \
	'# slurm.conf: GresTypes=gpu,shard
# slurm.conf: NodeName=node[0001-0016] Gres=gpu:H100:4,shard:40' \
	"$(grep '^# slurm.conf: ' "$w/slurm-gres")"
expect "json: a host's GPUs and shares" "4 40" \
	"$(json "$w/slurm-gres.json" '"$r->{hosts}[0]{gpus} $r->{hosts}[0]{shares}"')"

# --- HAMi: every host split in 10, scaling 1 ---
expect "hami: each host split in 10" \
	"$(seq -f 'node%04g 10 1 1 none' 1 16)" \
	"$(json "$w/k8s-hami" 'join "\n", map { "$_->{name} $_->{devicesplitcount} $_->{devicememoryscaling} $_->{devicecorescaling} $_->{migstrategy}" } @{$r->{nodeconfig}}')"

# --- the real slurmctld takes the tree ---
mkdir "$w/slurm" "$w/slurm/state"
cp "$w/slurm-tree" "$w/slurm/topology.conf"
# shellcheck disable=SC2046 # one word a port
set -- $(slurm_ports 2)
{
	printf 'ClusterName=gpuaware\nSlurmctldHost=localhost\n'
	printf 'SlurmctldPort=%d\nSlurmdPort=%d\n' "$1" "$2"
	printf 'AuthType=auth/none\nCredType=cred/none\nSlurmUser=root\n'
	printf 'StateSaveLocation=%s/slurm/state\n' "$w"
	printf 'SlurmctldPidFile=%s/slurm/slurmctld.pid\n' "$w"
	printf 'SlurmctldLogFile=%s/slurm/slurmctld.log\n' "$w"
	printf 'SlurmctldDebug=info\nTopologyPlugin=topology/tree\n'
	printf 'SelectType=select/cons_tres\nProctrackType=proctrack/linuxproc\n'
	printf 'TaskPlugin=task/none\nMpiDefault=none\n'
	for k in $(seq 1 16); do
		printf 'NodeName=node%04d NodeAddr=127.0.0.1 CPUs=1 State=UNKNOWN\n' "$k"
	done
	printf 'PartitionName=all Nodes=ALL Default=YES State=UP\n'
} >"$w/slurm/slurm.conf"
SLURM_CONF=$w/slurm/slurm.conf
export SLURM_CONF
slurmctld -D -i -f "$SLURM_CONF" >"$w/slurm/out" 2>&1 &
ctld=$!
i=0
until scontrol show topology >"$w/slurm/topo" 2>/dev/null; do
	i=$((i + 1))
	if [ $i -gt 100 ] || ! kill -0 "$ctld" 2>/dev/null; then
		break
	fi
	sleep 0.1
done
check "slurmctld: runs with the tree" kill -0 "$ctld"
expect "slurmctld: loaded every switch" \
	"$(sed 's/ .*//' "$w/slurm-tree" | sort)" \
	"$(grep -o '^SwitchName=[^ ]*' "$w/slurm/topo" | sort)"
check "slurmctld: the root reaches all 16 nodes" \
	grep -q '^SwitchName=core-0 Level=2 .*Nodes=node\[0001-0016\]' "$w/slurm/topo"
expect "slurmctld: no topology complaint" "" \
	"$(grep -i -E 'switch|topolog|fatal' "$w/slurm/slurmctld.log" || true)"
kill "$ctld"
wait "$ctld" || true
ctld=

# --- YAML and Kueue: documented shapes ---
python3 - "$w" >"$w/yaml.out" 2>&1 <<'EOF' && ok "yaml: topology.yaml and Kueue shapes" || bad "yaml: topology.yaml and Kueue shapes" "$(cat "$w/yaml.out")"
import sys, yaml
w = sys.argv[1]
t = yaml.safe_load(open(w + "/slurm-yaml"))
tree, block = t
assert tree["topology"] == "fabric" and tree["cluster_default"] is True
sw = tree["tree"]["switches"]
conf = [l.split()[0].split("=")[1] for l in open(w + "/slurm-tree")]
assert [s["switch"] for s in sw] == conf, (sw, conf)
assert all(("nodes" in s) != ("children" in s) for s in sw)
assert block["block"]["block_sizes"] == [2, 4, 8, 16], block["block"]
assert len(block["block"]["blocks"]) == 8
k = yaml.safe_load(open(w + "/kueue"))
assert k["apiVersion"] == "kueue.x-k8s.io/v1alpha1" and k["kind"] == "Topology"
levels = [l["nodeLabel"] for l in k["spec"]["levels"]]
assert levels == ["fabric.topograph.run/tier-1", "fabric.topograph.run/tier-0",
		  "kubernetes.io/hostname"], levels
EOF

# --- blocks: every host once, sizes doubling from the smallest block ---
expect "block: 8 blocks" 8 "$(grep -c '^BlockName=' "$w/slurm-block")"
expect "block: sizes" "BlockSizes=2,4,8,16" "$(tail -1 "$w/slurm-block")"
"$R" --expand-hostlist "$(sed -n 's/^BlockName=[^ ]* Nodes=//p' "$w/slurm-block" |
	paste -sd, -)" >"$w/blockhosts"
expect "block: every host once" "16 16" \
	"$(sort -u "$w/blockhosts" | wc -l) $(wc -l <"$w/blockhosts")"

# --- labels: tier 0 nearest, the one-valued root left out ---
check "labels: tier-0 is the leaf, tier-1 the pod" grep -q \
	'^node0001 fabric.topograph.run/tier-0=leaf-p0-0 fabric.topograph.run/tier-1=spine-p0-0$' \
	"$w/k8s-labels"
expect "labels: no tier-2" 0 "$(grep -c 'tier-2' "$w/k8s-labels" || true)"

# --- JSON: structure ---
expect "json: switches as in the tree" 13 \
	"$(json "$w/slurm-tree.json" 'scalar @{$r->{switches}}')"
expect "json: a leaf's nodes" "node0005 node0006" \
	"$(json "$w/slurm-tree.json" 'join " ", map { @{$_->{nodes}} } grep { $_->{name} eq "ib-leaf-p1a" } @{$r->{switches}}')"
expect "json: a host's labels" "leaf-p0-0" \
	"$(json "$w/k8s-labels.json" '$r->{hosts}[0]{labels}{"fabric.topograph.run/tier-0"}')"
expect "json: block sizes" "2 4 8 16" \
	"$(json "$w/slurm-block.json" 'join " ", @{$r->{block_sizes}}')"

# --- accelerator domains: blocks, a label, a Kueue level ---
conf domains >"$w/pool.conf"
poold_start "$D" "$w/pool.conf" "$w/full.net"
topo --format slurm-block >"$w/dom-block"
topo --format k8s-labels >"$w/dom-labels"
topo --format kueue >"$w/dom-kueue"
poold_stop
check "domains: the blocks" grep -q '^BlockName=nvl3 Nodes=node\[0005-0006\]$' "$w/dom-block"
check "domains: the label" grep -q \
	'^node0003 .* accelerator.topograph.run/domain=nvl2$' "$w/dom-labels"
check "domains: a Kueue level below tier 0" grep -A1 -q \
	'tier-0"$' "$w/dom-kueue"
expect "domains: the Kueue level" '  - nodeLabel: "accelerator.topograph.run/domain"' \
	"$(grep -A1 'tier-0"$' "$w/dom-kueue" | tail -1)"

# --- a failed switch renames nothing else ---
conf >"$w/pool.conf"
for x in noleaf nocore; do
	poold_start "$D" "$w/pool.conf" "$w/$x.net"
	topo --format k8s-labels >"$w/$x-labels"
	topo --format slurm-tree >"$w/$x-tree"
	poold_stop
done
expect "leaf failed: the others' labels unchanged" "" \
	"$(grep -v '^node000[12] ' "$w/k8s-labels" | diff - "$w/noleaf-labels")"
expect "leaf failed: the other leaves and pods unchanged" "" \
	"$(grep -v -e '^SwitchName=leaf-p0-0 ' -e '^SwitchName=spine-p0-0 ' -e '^SwitchName=core-0 ' \
		"$w/slurm-tree" | diff - "$(grep -v -e '^SwitchName=spine-p0-0 ' \
		-e '^SwitchName=core-0 ' "$w/noleaf-tree" >"$w/noleaf-rest" && echo "$w/noleaf-rest")")"
expect "core failed: every name unchanged" "" \
	"$(diff "$w/slurm-tree" "$w/nocore-tree")"
expect "core failed: labels unchanged" "" "$(diff "$w/k8s-labels" "$w/nocore-labels")"

# --- hostile host names (issue 24): each format reads them as one name ---
sed -e 's/"node0013 /"h[1-100] /' -e 's/"node0014 /"ALL,h08=x;# /' \
	-e 's/"node0015 /"$(touch${IFS}\/tmp\/PWNX) /' \
	-e "s/\"node0016 /\"a\&b'c\\\\\\\\d /" -e 's/"node0012 /"-rf /' \
	-e 's/"node0011 /"h\xff /' "$w/full.net" >"$w/hostile.net"
poold_start "$D" "$w/pool.conf" "$w/hostile.net"
for f in slurm-tree slurm-block slurm-yaml k8s-labels kueue slurm-gres k8s-hami; do
	if topo --format "$f" >"$w/h-$f" 2>"$w/h-$f.err"; then
		ok "hostile names: $f exported"
	else
		bad "hostile names: $f exported" "$(cat "$w/h-$f.err")"
	fi
done
topo --format slurm-tree --json >"$w/h-tree.json"
poold_stop
check "hostile names: the tree's node lists are names and hostlists only" \
	sh -c "! grep -v '^SwitchName=[A-Za-z0-9._-]* \(Nodes\|Switches\)=[][A-Za-z0-9._,-]*\$' '$w/h-slurm-tree'"
check "hostile names: the changed ones said on stderr" \
	grep -qxF "ibpoolroute: topology: host 'h[1-100]' written as 'h-1-100'" "$w/h-slurm-tree.err"
check "hostile names: the byte that is not UTF-8 said as \\xff" \
	grep -qF "host 'h\\xff' written as 'h'" "$w/h-slurm-tree.err"
check "hostile names: labels' hosts are DNS names, values label values" \
	sh -c "! grep -v '^[a-z0-9]\([a-z0-9.-]*[a-z0-9]\)\?\( [a-z0-9./-]*=[A-Za-z0-9][A-Za-z0-9._-]*[A-Za-z0-9]\)*\$' '$w/h-k8s-labels'"
expect "hostile names: renamed in the reply" 6 \
	"$(json "$w/h-tree.json" 'scalar @{$r->{renamed}}')"

echo "t-export: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
