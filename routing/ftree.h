/* SPDX-License-Identifier: MIT */
/*
 * The fat-tree engine: up/down routing over the recogniser's levels,
 * balanced d-mod-k style where the tree is intact and by load where not.
 */
#ifndef GPUAWARE_FTREE_H
#define GPUAWARE_FTREE_H

#include "../topology/fattree.h"
#include "jobs.h"
#include "lft.h"

/*
 * Fill t (initialised for f, local entries set) for the tree ft.  With a
 * job set (NULL for none: the tables do not change), each leaf orders its
 * destinations so every job's spread evenly over the up slots, and the
 * leaves turn their slots apart so a job's traffic to one destination
 * arrives over all of its leaf's links; the routes stay up*-down*.
 * Returns 0, -E2BIG when parent groups outgrow the slot scheme, or
 * -ENOMEM.  CA-to-CA routes are deadlock-free on one VL: each climbs,
 * then descends.  Switch LIDs up/down cannot reach, and LIDs a switch
 * without hosts cannot reach, get management routes (rt_fill_unrouted):
 * loop-free, but they may turn down-up, so MADs to and from switches are
 * not covered by that guarantee.
 */
int rt_fattree(const struct fabric *f, const struct ft_info *ft,
	       const struct rt_jobs *jobs, struct rt_tables *t);

#endif
