/* SPDX-License-Identifier: MIT */
/*
 * Background refinement: once a routing for jobs is in the switches, a
 * worker thread goes on with the fat-tree job search (rt_refine()) on
 * that sweep's fabric and tables, then asks for a reroute that installs
 * the result, for as long as the fabric and the job table stay the same.
 */
#ifndef GPUAWARE_REFINE_H
#define GPUAWARE_REFINE_H

#include <stdbool.h>
#include <stdint.h>

#include "../../routing/route.h"

struct ga_refine;

/*
 * Called on the worker thread when a refinement ends by itself: ret is
 * rt_refine()'s, gen the hint generation it was for, st its search,
 * seconds its wall time.  Not called when stopped before the search
 * ended.
 */
typedef void (*ga_refine_done_fn)(void *ctx, int ret, uint64_t gen,
				  const struct rt_jobsearch_stats *st,
				  double seconds);

/* *r is the caller's, for ga_refine_free(); 0 or -ENOMEM. */
int ga_refine_new(struct ga_refine **r, ga_refine_done_fn done, void *ctx);

/* Stop, wait for and free everything; r may be NULL. */
void ga_refine_free(struct ga_refine *r);

/* Stop as ga_refine_stop() and drop any result too; r may be NULL. */
void ga_refine_drop(struct ga_refine *r);

/*
 * Refine t (the routing of f for jobs, for hint generation gen, as sum
 * tells) with moves moves, in the background.  Takes over f, t and jobs
 * (left empty: the caller must not use or release them) whatever the
 * result; what an earlier start left is dropped.  0 or -errno (then all
 * three are already released).
 */
int ga_refine_start(struct ga_refine *r, struct fabric *f,
		    struct rt_tables *t, struct rt_jobs *jobs,
		    const struct rt_summary *sum, uint64_t gen,
		    uint64_t moves);

/*
 * Stop a running refinement, if any, and wait for it (a few ms: the
 * search looks at the stop flag every 1,024 moves and between its
 * phases); a finished one's result is kept, an unfinished one's lost.
 * r may be NULL.
 */
void ga_refine_stop(struct ga_refine *r);

/*
 * Whether a refinement still searching is for gen and a fabric
 * fab_same() as f: one a new sweep of the same fabric and table can let
 * run.  r may be NULL.
 */
bool ga_refine_busy_with(struct ga_refine *r, const struct fabric *f,
			 uint64_t gen);

/*
 * Whether the refinement last started has ended by itself without a
 * result; safe while it runs (its callback may be about to say so).
 * r may be NULL.
 */
bool ga_refine_failed(struct ga_refine *r);

/*
 * Whether a finished refinement is for gen and a fabric fab_same() as f;
 * if so t (uninitialised) gets a copy of its tables, built for f, and
 * sum its summary, and true is returned (t then needs
 * rt_tables_release()).  Kept for later sweeps of the same fabric and
 * table until the next start or ga_refine_drop().  Call after
 * ga_refine_stop().
 */
bool ga_refine_take(struct ga_refine *r, const struct fabric *f,
		    uint64_t gen, struct rt_tables *t,
		    struct rt_summary *sum);

#endif
