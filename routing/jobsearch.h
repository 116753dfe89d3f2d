/* SPDX-License-Identifier: MIT */
/*
 * The job search: moves single LFT entries to other ports an engine
 * allows, keeping a move only when no job's busiest own link gets
 * heavier, no more links are shared between jobs and the all-to-all
 * stays within its cap.
 */
#ifndef GPUAWARE_JOBSEARCH_H
#define GPUAWARE_JOBSEARCH_H

#include <stdbool.h>
#include <stdint.h>

#include "jobpass.h"

/* Default moves: this many over the CA LIDs, at most RT_JOBSEARCH_MOVES. */
#define RT_JOBSEARCH_WORK 1.25e8
#define RT_JOBSEARCH_MOVES 1000000

struct rt_jobsearch_stats {
	/* as vf_jobload() measures them, before the search and after it */
	uint64_t own_before, own_after;	/* jobs' max own loads, summed */
	uint32_t shared_before, shared_after;
	uint64_t kept;			/* moves kept */
	bool skipped;			/* too large: t untouched */
};

/*
 * Improve t, a complete routing made of cands ports (any mix of them
 * loop- and deadlock-free, as for rt_jobpass()), for jobs.  Two kinds of
 * move, from a fixed seed, so the result is reproducible: a random
 * (CA LID, switch) entry that carries hosts' traffic to another
 * candidate; and, one move in 16, a random shared link's least loaded
 * job's entries over it, each to another candidate at the switch the
 * link leaves or, failing that, at a switch further up whose route to
 * that destination crosses it.  A move is kept when
 * no job's busiest own link passes its load before the search, the jobs'
 * maxima summed do not grow (nor, for the same sum, the links at them),
 * the links two jobs share do not grow, and no link's all-to-all passes
 * the larger of 9 % over the mean and the maximum before.  moves 0: the
 * default budget above (about 0.3 s on a 1,024-host or a 128-host
 * 3-level tree on this project's test machine).  Past 2^23 flow entries
 * (CA LIDs x switches) or own loads (ports x jobs) it skips, says so in
 * st->skipped and leaves t as it was.  st may be NULL.
 * Returns 0 or -ENOMEM; either way t is a routing within every bound
 * above.
 */
int rt_jobsearch(struct rt_tables *t, const struct rt_jobs *jobs,
		 rt_cands_fn cands, void *ctx, uint64_t moves,
		 struct rt_jobsearch_stats *st);

#endif
