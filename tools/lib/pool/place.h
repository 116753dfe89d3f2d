/* SPDX-License-Identifier: MIT */
/*
 * Job placement: which hosts a job of N GPUs should get so it spans the
 * fewest switch levels, over a grouping of the fabric's hosts by level
 * that the topology exports (topoexport.h) write out too.
 */
#ifndef GPUAWARE_POOL_PLACE_H
#define GPUAWARE_POOL_PLACE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "pool.h"
#include "topology/fabric.h"
#include "topology/fattreerec.h"
#include "topology/swgraph.h"

/*
 * The fabric's hosts (CA node descriptions' first word, case-insensitive;
 * a host's HCAs are joined by name) grouped by level.
 *
 * Fat-tree (ft_recognise): the level-l group of a host is the connected
 * part of the switches at most l levels above the leaves that holds its
 * leaves; a rail-optimized host's rail leaves count as one.  Level 0 is
 * a leaf (or a scalable unit of rail leaves), level 1 a pod, and so on.
 *
 * Anything else: level 0 is the host's switch, level 1 the connected
 * fabric; placement then measures hop distance between switches.
 *
 * Levels that group exactly as the one below are left out, so the top
 * level is the first with one group per connected part.  Groups are
 * numbered per level in the order of their first host by name.
 *
 * Each group is named after one of its switches, so that a switch
 * failing elsewhere renames nothing: of the group's switches on its
 * highest switch level (fat-tree level above the leaves; elsewhere 0
 * for switches with hosts, 1 for the others), the one with the lowest
 * node GUID.  When that switch is below the group's own level (its
 * upper switches are gone) "-t<level>" is appended, so names stay
 * unique over all levels.
 * Everything owned; pool_tree_release() frees it.
 */
struct pool_tree {
	bool fattree;
	unsigned int nlevels;
	size_t nhosts;
	char **host;		/* sorted case-insensitively */
	uint32_t *group;	/* host h's at level l: group[l * nhosts + h] */
	uint32_t ngroups[FT_MAX_LEVELS];	/* groups per level */
	char **gname;		/* gname[l * nhosts + g], group g of level l */
	struct swg g;		/* non-tree only */
	uint32_t *host_sw;	/* non-tree: local switch of each host */
	const struct pool_config *cfg;	/* pool_tree_bind()'s, or NULL */
	long *cfg_host;		/* tree index of each of cfg's hosts, -1 */
};

/*
 * swname: the name of every switch of f by node index (swname.h), NULL
 * for "0x" and the node GUID.  Returns 0 or a negative errno with err
 * filled.
 */
int pool_tree_build(const struct fabric *f, char *const *swname,
		    struct pool_tree *t, char *err, size_t len);
void pool_tree_release(struct pool_tree *t);

/* Index of host name, or -1 when the fabric has no such host. */
long pool_tree_host(const struct pool_tree *t, const char *name);

/*
 * Look up cfg's hosts once (cfg borrowed, outliving t): pool_place()
 * with that cfg then skips a name search per host and request.
 * Returns 0 or -ENOMEM (t still usable unbound).
 */
int pool_tree_bind(struct pool_tree *t, const struct pool_config *cfg);

/* Owned hosts array; pool_placement_release() frees it. */
struct pool_placement {
	size_t nhosts;
	uint32_t *hosts;	/* config host indices */
	unsigned int span;	/* tree: group level; else hops from the centre */
	unsigned int groups;	/* level-0 groups (leaves, switches) used */
	double load;		/* summed host load */
};

/*
 * Best hosts for a job of ngpus GPUs, gpus_per_host on each (the last
 * host may need fewer but is asked for as many): hosts of the pool with
 * that many free GPUs now that the fabric knows.  Fat-trees: the lowest
 * level at which one group holds enough; among that level's groups the
 * placement using the fewest leaves, then the least summed load (load[h]
 * per config host, NULL for none), then the first group.  Within a group
 * leaves are filled fullest first (least loaded, then first, on ties),
 * hosts least loaded first, then in config order.  Other fabrics: for
 * each switch as centre, the nearest hosts by hops (then load, then
 * config order); the fewest hops from the centre, then fewest switches,
 * then least load, then the first centre.  -ENOSPC with "N hosts with G
 * free GPUs needed, M have them".
 */
int pool_place(const struct pool *p, const struct pool_config *cfg,
	       const struct pool_tree *t, unsigned int ngpus,
	       unsigned int gpus_per_host, const double *load,
	       struct pool_placement *out, char *err, size_t len);
void pool_placement_release(struct pool_placement *pl);

/*
 * pool_place()'s runners-up too: up to max placements into out (room for
 * max), best first, out[0] being pool_place()'s; *n how many.  Trees:
 * one per group of the lowest level that holds the job; other fabrics:
 * one per centre, distinct host sets.  Each needs
 * pool_placement_release(); on error none is left.
 */
int pool_place_cands(const struct pool *p, const struct pool_config *cfg,
		     const struct pool_tree *t, unsigned int ngpus,
		     unsigned int gpus_per_host, const double *load,
		     struct pool_placement *out, size_t max, size_t *n,
		     char *err, size_t len);

#endif
