/* SPDX-License-Identifier: MIT */
/*
 * The fabric's host grouping (pool_tree, place.h) written for schedulers:
 * a Slurm topology.conf (tree plugin) and Kubernetes node labels.
 */
#ifndef GPUAWARE_POOL_TOPOEXPORT_H
#define GPUAWARE_POOL_TOPOEXPORT_H

#include <stdio.h>

#include "place.h"

/*
 * Slurm topology.conf for the tree plugin: group g of level l is switch
 * "s<k>" with k counting groups level by level from the leaves;
 * "SwitchName=s0 Nodes=gpu[01-04]" for level 0, "SwitchName=s10
 * Switches=s[0-3]" above.  Returns 0 or a negative errno.
 */
int pool_export_slurm(const struct pool_tree *t, FILE *out);

/*
 * One line per host: "NAME fabric.topograph.run/tier-1=s0
 * fabric.topograph.run/tier-2=s4 ...", tier l+1 naming its level-l group
 * as the Slurm export does; ready for "kubectl label node".
 */
int pool_export_k8s(const struct pool_tree *t, FILE *out);

#endif
