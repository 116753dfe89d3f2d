/* SPDX-License-Identifier: MIT */
/*
 * All-to-all balance: re-choose the CA LID entries of a complete routing,
 * among the ports an engine allows, so the busiest switch link of the
 * all-to-all comes close to the least any routing could have
 * (a2abound.h).  Per destination LID the routes form an in-tree; its
 * sources are split between the ways in by what the links already carry.
 */
#ifndef GPUAWARE_BALANCE_H
#define GPUAWARE_BALANCE_H

#include <stdbool.h>
#include <stdint.h>

#include "jobroute.h"
#include "../lft.h"

struct rt_balance_stats {
	uint64_t max_before, max_after;	/* busiest switch link, routes */
	unsigned int passes;	/* over every CA LID */
	bool skipped;		/* too large: t untouched */
};

/*
 * Re-route the CA LIDs of t (a complete routing of its fabric made of
 * cands' ports) marked in only (NULL: every one) towards less loaded
 * links: the LID's in-tree is laid
 * again source switch by source switch, each along its cheapest way
 * given the entries this LID already fixed, costs convex in the links'
 * all-to-all route counts.  A LID whose new tree costs more than its old
 * one keeps the old.  Entries no route of a CA takes keep their port.
 * st may be NULL.  Returns 0 or -ENOMEM; either way t is a routing made
 * of cands' ports.
 */
int rt_balance(struct rt_tables *t, rt_cands_fn cands, void *ctx,
	       const bool *only, struct rt_balance_stats *st);

#endif
