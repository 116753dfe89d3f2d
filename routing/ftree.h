/* SPDX-License-Identifier: MIT */
/*
 * The fat-tree engine: up/down routing over the recogniser's levels,
 * balanced d-mod-k style where the tree is intact and by load where not.
 */
#ifndef GPUAWARE_FTREE_H
#define GPUAWARE_FTREE_H

#include <stdatomic.h>

#include "../topology/fattree.h"
#include "jobs.h"
#include "jobsearch.h"
#include "lft.h"

/*
 * Fill t (initialised for f, local entries set) for the tree ft.  With a
 * job set (NULL or empty for none: the tables do not change):
 * RT_JOBS_SPREAD routes as without jobs, then lets the job pass
 * (jobpass.h) re-choose every CA LID's routes among the minimal up*-down*
 * ports, so traffic to a job's host arrives over several of its leaf's
 * links, at a price per link newly shared between jobs (the turned slots
 * below where the pass does worse); RT_JOBS_ISOLATE orders each leaf's
 * destinations so every job's spread evenly over the up slots and turns
 * the leaves' slots apart so a destination is reached over its job's and
 * idle hosts' down links only, or keeps the routes without jobs where
 * those share fewer links (as many: where they load the jobs less).
 * Both then run the job search (jobsearch.h; skipped past its limit, a
 * 3-level tree of about 7,000 hosts), which moves single entries only
 * where no job's busiest link gets heavier: spread's lowers the jobs'
 * loads first, isolate's never shares more links, so isolate never
 * shares more than without jobs.  On a
 * 1,024-host tree with jobs in runs of 1-4 hosts (docs/benchmarks.md)
 * spread's busiest own links are about a quarter lighter at half as many
 * shared links again, isolate's a few percent at fewer.  The routes stay
 * up*-down* and the whole fabric within 10 % of its mean all-to-all link
 * load.
 * *use (use may be NULL) says how the jobs were used: "" without jobs,
 * "job pass", "turned slots (...why)" or "isolated", each saying "too
 * large for the job search" where the search skipped, as does
 * rt_fattree_unsearched() of *use.
 * Returns 0, -E2BIG when parent groups outgrow the slot scheme, or
 * -ENOMEM.  CA-to-CA routes are deadlock-free on one VL: each climbs,
 * then descends.  Switch LIDs up/down cannot reach, and LIDs a switch
 * without hosts cannot reach, get management routes (rt_fill_unrouted):
 * loop-free, but they may turn down-up, so MADs to and from switches are
 * not covered by that guarantee.
 */
int rt_fattree(const struct fabric *f, const struct ft_info *ft,
	       const struct rt_jobs *jobs, struct rt_tables *t,
	       const char **use);

/* Whether use, from rt_fattree(), says the job search skipped. */
bool rt_fattree_unsearched(const char *use);

/*
 * Go on from t, rt_fattree()'s routing of f for jobs, with a longer job
 * search (RT_SEARCH_BOTH, moves of them, 0 for the default budget): while
 * more links are shared between jobs than when routed without them, a
 * trade of one load step on the jobs' busiest links for
 * RT_SEARCH_LINKS_PER_LOAD shared links, and in overtime a slack of
 * 1/RT_SEARCH_SLACK on each job for fewer (undone if that does not get
 * there); from there on lighter busiest links, never sharing more, until
 * they stop getting lighter (rt_jobsearch() has the details).  It can
 * take seconds: the tables stay valid
 * throughout, and *stop (may be NULL) ends the search early (returning
 * 0).  Returns 0 (st->skipped: too large for the search, t unchanged),
 * -EINVAL (no tree or no jobs), -E2BIG (parent groups past the slot
 * scheme) or -ENOMEM; st may be NULL.
 */
int rt_fattree_refine(const struct fabric *f, const struct ft_info *ft,
		      const struct rt_jobs *jobs, struct rt_tables *t,
		      uint64_t moves, const atomic_bool *stop,
		      struct rt_jobsearch_stats *st);

#endif
