/* SPDX-License-Identifier: MIT */
/*
 * The fabric's host grouping (pool_tree, place.h) written for schedulers,
 * with the groups' stable names: Slurm's topology.conf (tree and block
 * plugins) and topology.yaml, topograph's node labels and a Kueue
 * Topology; the hosts' GPUs as Slurm GRES and HAMi's vGPUs.  A host's
 * GPUs and accelerator domain come from the configuration the tree is
 * bound to (pool_tree_bind), when it has one.
 */
#ifndef GPUAWARE_POOL_TOPOEXPORT_H
#define GPUAWARE_POOL_TOPOEXPORT_H

#include <stdio.h>

#include <json-c/json.h>

#include "place.h"

#define POOL_EXPORT_TIER_LABEL "fabric.topograph.run/tier-"
#define POOL_EXPORT_DOMAIN_LABEL "accelerator.topograph.run/domain"

enum pool_export_format {
	POOL_EXPORT_SLURM_TREE,	/* topology.conf, topology/tree */
	POOL_EXPORT_SLURM_BLOCK,	/* topology.conf, topology/block */
	POOL_EXPORT_SLURM_YAML,	/* topology.yaml: a tree and a block one */
	POOL_EXPORT_K8S_LABELS,	/* "HOST label=value ..." per host */
	POOL_EXPORT_KUEUE,	/* a Kueue Topology over those labels */
	POOL_EXPORT_SLURM_GRES,	/* gres.conf: GPUs whole and as shards */
	POOL_EXPORT_K8S_HAMI,	/* HAMi's device-plugin config.json */
};

#define POOL_EXPORT_FORMATS "slurm-tree, slurm-block, slurm-yaml, k8s-labels, kueue, slurm-gres or k8s-hami"
/*
 * Shares per GPU: Slurm shards in slurm-gres, HAMi vGPUs in k8s-hami;
 * one is 100 milli-GPUs.
 */
#define POOL_EXPORT_SHARDS 10
/* slurm-gres: GPU i of a host is File=POOL_EXPORT_GPU_DEV "i" (NVIDIA's). */
#define POOL_EXPORT_GPU_DEV "/dev/nvidia"

/* The format named s: 0, or -EINVAL. */
int pool_export_parse(const char *s, enum pool_export_format *fmt);

/*
 * Write t in fmt to out.  Tree: level-0 groups are switches with Nodes=,
 * higher ones with Switches=.  Blocks: the accelerator domains when every
 * host has one, else the level-0 groups; block sizes from the smallest
 * block's host count D doubling up to D * 2^k for the largest 2^k no
 * more than the blocks.  Labels: tier-N names the host's level-N group;
 * a top level with one group on every host (above level 0) tells nothing
 * and is left out.  GRES and HAMi (-EINVAL unless t is bound): each
 * configured host's GPUs; gres.conf opens with the slurm.conf lines
 * it needs as comments ("# slurm.conf: GresTypes=..." and one
 * "# slurm.conf: NodeName=H Gres=..." per host).
 *
 * Names come from NodeDescriptions, which root on any host sets: each is
 * written as the format allows or changed to fit.  Slurm (node, switch,
 * block names): letters, digits and . _ - with a letter or digit at each
 * end, not ALL or DEFAULT; Kubernetes (labels, HAMi): node names as DNS
 * names (lower case, no _, a dot only between letters or digits), label
 * values of at most 63.  Any other byte becomes '-', the ends are
 * trimmed; a name so changed that meets another, a keyword,
 * an empty or too long one ends in "-" and 8 hex digits of a hash of the
 * name as it was (the same at every export).  Each changed name is
 * appended to renamed (NULL: not said) as {"kind": "host", "switch" or
 * "domain", "name": as it was (bytes that are not UTF-8 as \xNN),
 * "as": as written}.  Returns 0 or a negative errno, err saying why
 * (-EEXIST: two names still written alike).
 */
int pool_export_text(const struct pool_tree *t, enum pool_export_format fmt,
		     FILE *out, json_object *renamed, char *err, size_t len);

/*
 * The grouping as structure into obj: "switches" (name, tier, "nodes"
 * or "switches": arrays of names), "blocks" (name, nodes),
 * "block_sizes", "hosts" (host, "labels": an object of label: value,
 * and for a configured host "gpus" and "shares", POOL_EXPORT_SHARDS a
 * GPU).
 * Names as the fabric has them, bytes that are not UTF-8 written \xNN.
 * Returns 0 or -ENOMEM.
 */
int pool_export_json(const struct pool_tree *t, json_object *obj);

#endif
