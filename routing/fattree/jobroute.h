/* SPDX-License-Identifier: MIT */
/*
 * Job routing for the traffic jobs really send: each job's all-to-all
 * rounds and its ring, as the collectives model (collsim.h) runs them,
 * chosen among the ports an engine allows.
 */
#ifndef GPUAWARE_JOBROUTE_H
#define GPUAWARE_JOBROUTE_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "../jobs.h"
#include "../lft.h"

/*
 * The ports switch s may use towards destination switch ds (s != ds),
 * written to out (room for FAB_MAX_PORTS entries), their count returned.
 * Any mix of choices from these sets, one per switch and destination,
 * must stay loop-free and deadlock-free: the search checks neither.
 */
typedef unsigned int (*rt_cands_fn)(void *ctx, uint32_t s, uint32_t ds,
				    uint8_t *out);

struct rt_jobroute_opts {
	uint64_t evals;			/* entries tried, 0: the default */
	const atomic_bool *stop;	/* NULL, or true to end early */
	/*
	 * NULL, or run on the routing before the search (0 or a negative
	 * errno): the search prices each job's NCCL all-to-all against its
	 * busiest link as it was before this.
	 */
	int (*first)(void *ctx);
	void *first_ctx;
};

/* No link's all-to-all routes past this times the mean (or its maximum). */
#define RT_JOBROUTE_CAP 1.15
/*
 * Nor may the search let a random permutation's flows (every host to
 * one other, as eBB measures) meet on links more than this many pairs
 * per host over the routing it was given.
 */
#define RT_JOBROUTE_PERM 0.15
/* A pair of ring flows on a link costs as many all-to-all pairs. */
#define RT_JOBROUTE_RING 4
/*
 * The NCCL all-to-all's price (jobroute.c's nccl_add()) in pairs.  The
 * guard may ask for RT_JOBROUTE_TRIES routings (js->search_try counts
 * them) in two runs of RT_JOBROUTE_COLOURED: the first run starts from
 * the rings coloured (ringcol.h; on its first half of tries as d-mod-k
 * places LIDs, on the second at the flows' sources), the second from
 * the engine's routing as it is, with the same random moves as the
 * first.  In each run, each try has its own random moves, and every
 * second one the price RT_JOBROUTE_GENTLER times lower than the one
 * before.
 */
#define RT_JOBROUTE_NCCL 1.0
#define RT_JOBROUTE_GENTLER 10
#define RT_JOBROUTE_COLOURED 4
#define RT_JOBROUTE_TRIES (2 * RT_JOBROUTE_COLOURED)

struct rt_jobroute_stats {
	/* flows expected to meet on a link per all-to-all round, in pairs */
	double pairs_before, pairs_after;
	uint64_t ring_before, ring_after;	/* ring flows meeting, in pairs */
	double cost_before, cost_after;	/* the search's whole price */
	uint64_t evals;			/* entries tried */
	uint64_t moves;			/* kept */
	bool skipped;			/* too large: t untouched */
};

/*
 * Re-choose, among cands' ports, the entries towards the jobs' base LIDs
 * in t (a complete routing of its fabric) so the jobs' collectives meet
 * fewer other flows on the way.  Each job's all-to-all is its shift
 * rounds over its rank order (the order its hosts were listed in); its
 * ring goes in rank order too (cs_ring_next()).  The search knows every round of
 * every job: per round and link, the job's own flows.  It does not know
 * how the jobs' rounds line up (they do not run in step), so a pair of
 * two jobs' flows on a link is priced by chance: the product of their
 * mean loads per round.  The cost of a routing is the pairs expected per
 * round, a job's own and two jobs', plus RT_JOBROUTE_RING per pair of
 * ring flows on a link (all jobs' rings at once), plus the NCCL
 * all-to-all's price: all its flows at once, a destination weighing at a
 * switch as many flows as its job has sources there, each job on a link
 * paying (flows there / flows on its busiest link before)^8, times
 * RT_JOBROUTE_NCCL (lower on the guard's later tries).
 *
 * Moves are single entries, each to its cheapest candidate, kept when
 * the cost drops (after o->first: when fewer jobs have ring flows
 * sharing a link, a ring being as fast as its slowest flow, or as many
 * and the cost drops): first along every ring
 * flow that meets another, a few sweeps, then random entries of random
 * job flows.  No link's all-to-all
 * route count may pass the larger of 15 % over the mean and its maximum
 * before, so the fabric stays balanced for everything else; nor may the
 * flows of a random permutation (every host to one other) expect to
 * meet on links RT_JOBROUTE_PERM pairs per host more than in t as given
 * (before o->first), which a move off d-mod-k's one position per LID
 * costs even where the link counts stay within the cap.  LIDs in no
 * job, and LMC's further LIDs, keep their routes.
 *
 * With o->first, that runs on t first (where the search skips, too);
 * the search starts from what it leaves, the NCCL price's busiest links
 * those before it, and keeps the rings it leaves apart.
 *
 * Past 2^26 job rounds x links the search skips (st->skipped) and leaves
 * t as it was.  *stop, when set, ends it early with t valid.  st may be
 * NULL.  Returns 0 or -ENOMEM; either way t is a routing made of
 * candidate ports.
 */
int rt_jobroute(struct rt_tables *t, const struct rt_jobs *js,
		rt_cands_fn cands, void *ctx,
		const struct rt_jobroute_opts *o,
		struct rt_jobroute_stats *st);

#endif
