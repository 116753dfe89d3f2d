/* SPDX-License-Identifier: MIT */
/*
 * The job search: moves single LFT entries to other ports an engine
 * allows, keeping a move only when no job's busiest own link gets
 * heavier (but by a slack, late in a search for fewer shared links), the
 * all-to-all stays within its cap, and neither the jobs' loads nor the
 * links they share get worse, whichever comes first.
 */
#ifndef GPUAWARE_JOBSEARCH_H
#define GPUAWARE_JOBSEARCH_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "jobpass.h"

/* Default moves: this many over the CA LIDs, at most RT_JOBSEARCH_MOVES. */
#define RT_JOBSEARCH_WORK 6e7
#define RT_JOBSEARCH_MOVES 1000000

/* What a kept move must not make worse, first. */
enum rt_search_goal {
	RT_SEARCH_OWN,		/* the jobs' busiest own links, half the moves */
	RT_SEARCH_SHARED,	/* shared links, never more; then own loads */
	RT_SEARCH_BOTH,		/* shared links down to a cap, then own loads */
};

/* A load step is worth this many shared links to RT_SEARCH_BOTH. */
#define RT_SEARCH_LINKS_PER_LOAD 20
/* Its overtime lets each job's busiest link grow by 1/this. */
#define RT_SEARCH_SLACK 16

struct rt_search {
	enum rt_search_goal goal;
	uint64_t moves;			/* 0: the default budget */
	uint32_t shared_cap;		/* RT_SEARCH_BOTH's */
	const atomic_bool *stop;	/* NULL, or true to end early */
};

struct rt_jobsearch_stats {
	/* as vf_jobload() measures them, before the search and after it */
	uint64_t own_before, own_after;	/* jobs' max own loads, summed */
	uint32_t shared_before, shared_after;
	uint64_t moves;			/* made: see rt_jobsearch() */
	uint64_t kept;			/* moves kept, even if undone later */
	bool skipped;			/* too large: t untouched */
	bool slack;			/* overtime's tables kept */
};

/*
 * Improve t, a complete routing made of cands ports (any mix of them
 * loop- and deadlock-free, as for rt_jobpass()), for jobs, as how (not
 * NULL) says.
 *
 * Moves, from a fixed seed so the result is reproducible: mostly a random
 * (job's CA LID, switch) entry that carries hosts' traffic, to another
 * candidate (LIDs in no job keep their routes: moving them would only
 * churn); one in 16 a random job's busiest link, and one in 16 a random
 * shared link's least loaded job, whose entries over that link are moved
 * one by one to another candidate at the switch the link leaves or,
 * failing that, at a switch further up whose route to the destination
 * crosses it.  A move onto a hole or a loop, or off a route that does
 * not reach its destination, is refused.
 *
 * A move is kept only when no job's busiest own link passes its load
 * before the search and no link's all-to-all passes the larger of 9 %
 * over the mean and the maximum before, and then by goal:
 * - RT_SEARCH_OWN, for the first half of the moves, when the jobs' maxima
 *   summed drop, or stay with fewer links at them, or stay with as many
 *   and no more links shared between jobs;
 * - RT_SEARCH_SHARED, and RT_SEARCH_OWN's second half, when no more links
 *   are shared and the summed maxima do not grow (nor, for the same sum,
 *   the links at them);
 * - RT_SEARCH_BOTH, while more links than shared_cap are shared, when the
 *   summed maxima times RT_SEARCH_LINKS_PER_LOAD plus the shared links
 *   drop (or stay with no more links at the maxima), every other move
 *   then aimed at a shared link; from there on as RT_SEARCH_OWN's first
 *   half but never past shared_cap, ending once the summed maxima have
 *   not dropped for a twelfth of the moves.  Still above shared_cap after
 *   its moves, it goes on for as many again at most in overtime: each
 *   job's busiest link may pass its load at the start of overtime by
 *   1/RT_SEARCH_SLACK (rounded down: not at all below RT_SEARCH_SLACK),
 *   and while above shared_cap a move is kept when fewer links are
 *   shared, or as many and the summed maxima no higher; once at
 *   shared_cap, as there, within the same moves.  Should overtime not
 *   reach shared_cap, the job LIDs' entries go back to where it began
 *   (st->slack false); without memory for that copy there is none.
 *
 * how->stop, when set, is polled every 1,024 moves; st->moves says how
 * many were made (fewer when stopped or ended at the cap, up to twice in
 * overtime).  moves 0: the default budget above (about 0.15 s on a
 * 1,024-host 3-level tree, 0.3 s on a 128-host one, on this project's
 * test machine).  Past 2^23 flow entries (CA LIDs x switches: a 3-level
 * tree of about 7,000 hosts) or own loads (fabric ports x jobs) it skips,
 * says so in st->skipped and leaves t as it was.  st may be NULL.
 * Returns 0 or -ENOMEM; either way t is a routing within every bound
 * above.
 */
int rt_jobsearch(struct rt_tables *t, const struct rt_jobs *jobs,
		 rt_cands_fn cands, void *ctx, const struct rt_search *how,
		 struct rt_jobsearch_stats *st);

#endif
