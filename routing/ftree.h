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
 * job set (NULL or empty for none: the tables do not change), each leaf
 * orders its destinations so every job's spread evenly over the up slots,
 * and the leaves turn their slots apart so traffic to one destination
 * arrives over several of its leaf's links instead of one: all of them
 * (RT_JOBS_SPREAD; on a 1,024-host tree a job's busiest own link carries
 * about half as much with hosts scattered, but links carry several jobs)
 * or its job's and idle hosts' (RT_JOBS_ISOLATE; no more shared links
 * than without jobs, a few percent less load).  The routes stay
 * up*-down* and the whole fabric as balanced as without jobs.
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
