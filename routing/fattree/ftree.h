/* SPDX-License-Identifier: MIT */
/*
 * The fat-tree engine: up/down routing over the recogniser's levels,
 * balanced d-mod-k style where the tree is intact and by load where not.
 */
#ifndef GPUAWARE_FTREE_H
#define GPUAWARE_FTREE_H

#include "../../topology/fattreerec.h"
#include "../engine.h"
#include "../jobs.h"
#include "../lft.h"

/*
 * Fill t (initialised for f, local entries set) for the tree ft: d-mod-k
 * on an intact tree; where a switch misses an up link, the all-to-all
 * balance (balance.h) lays the CA LIDs some switch detoured again by the
 * links' loads (but on trees past its work limit, which keep d-mod-k's
 * detours).  With a
 * job set (NULL or empty for none), the collective search (jobroute.h,
 * jobs->search_moves entries, 0 for its default) then re-chooses the
 * entries towards the jobs' LIDs among the minimal up*-down* ports, so
 * the jobs' rings and all-to-all rounds meet fewer flows; the fabric's
 * all-to-all stays within 15 % of its mean link load.  *use (use may be
 * NULL) says how the jobs were used: "" without jobs, "collective
 * search", or why not.
 * Returns 0, -E2BIG when parent groups outgrow the slot scheme, or
 * -ENOMEM.  CA-to-CA routes are deadlock-free on one VL: each climbs,
 * then descends.  So do the switches' own routes to every LID
 * (rt_mgmt_updown()), and the management routes beyond up*-down* it
 * keeps close no cycle with them, so MADs from switches, which ride the
 * data VL, share the guarantee.  Those beyond up*-down* turn down then
 * up beside one hub switch first, so that on 3-level trees every switch
 * and CA reaches every switch LID.  Where a switch with hosts still has
 * no route to a switch LID (deeper or badly cut trees), the switch LIDs
 * left so are routed on VLs 1-3 of their own (rt_mgmt_vl1(), t->vl
 * set); else t->vl stays NULL, one VL.  A few pairs may still get no
 * route (rt_summary.sw_unreachable counts the CAs' pairs, and the
 * plugin logs them).
 */
int rt_fattree(const struct fabric *f, const struct ft_info *ft,
	       const struct rt_jobs *jobs, struct rt_tables *t,
	       const char **use);

/* rt_fattree() for route.c, on the recogniser's ft_info. */
extern const struct rt_engine rt_fattree_engine;

#endif
