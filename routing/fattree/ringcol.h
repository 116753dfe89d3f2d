/* SPDX-License-Identifier: MIT */
/*
 * The jobs' rings on an intact fat-tree, coloured: every ring flow given
 * its own up and down links where the tree has room for them.
 */
#ifndef GPUAWARE_RINGCOL_H
#define GPUAWARE_RINGCOL_H

#include <stdint.h>

#include "../jobs.h"
#include "../lft.h"
#include "jobroute.h"

/*
 * The tree as the engine placed it: per switch index its level (leaves
 * lowest, FT_NO_LEVEL for none) and its position in its group, which
 * names the same subtree in every pod; nlev levels in all.
 */
struct rt_ringtree {
	const uint8_t *level;
	const uint32_t *pos;
	unsigned int nlev;
};

/*
 * Re-choose, in t, the up entries of every job's ring flows (NCCL's ring
 * in rank order, cs_ring_next(), all jobs at once) so that no two of them
 * leave or enter a switch on one link where the tree has room.  Level by
 * level from the leaves: a flow from switch x to switch y (its source's
 * and destination's ancestors at that level) climbs to the parent of x
 * at some position c and comes down into y from y's parent at c, so
 * giving the flows of a level positions is an edge colouring of the
 * bipartite multigraph of sources and destinations, which König's
 * alternating paths do with as many colours as the largest degree.  A
 * switch with more ring flows than parents is split into as few copies
 * as take them, so each link carries ceil(flows / parents) at most.
 * There some rings must lose half their speed: the fewest jobs (picked
 * greedily) whose flows can take all the sharing become the victims,
 * and single moves and trades of colours then keep every other job's
 * ring flows on links of their own where they find a way.  The
 * colours go into the tables as d-mod-k has them: one position per CA
 * LID at each level, the same from every switch there.  A ring flow's
 * LID takes its colour that way, and the other LIDs whose routes come
 * down through the same switch are permuted among the positions it left
 * (of its job first), so every link carries as many LIDs as before: the
 * fabric's all-to-all loads, and a random permutation's, stay as the
 * engine balanced them.  A flow whose colour has no room there (more
 * of them than LIDs at it) moves at its source alone, and so does every
 * flow on the second half of the guard's coloured tries (js->search_try,
 * jobroute.h): that moves the jobs' all-to-all rounds less, where the
 * permuted LIDs made some job slower.  There another CA LID that climbs
 * from the same switch and comes down through the same one trades
 * places with it (of its job where one is), so the all-to-all loads
 * stay on those links.  Only entries
 * among cands' ports change; on a tree where a position is missing the
 * flow keeps its route.  Returns the entries
 * changed, or -ENOMEM with t a valid routing.
 */
long rt_ringcolour(struct rt_tables *t, const struct rt_jobs *js,
		   const struct rt_ringtree *tree, rt_cands_fn cands,
		   void *ctx);

#endif
