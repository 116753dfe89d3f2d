/* SPDX-License-Identifier: MIT */
/*
 * The routing front door: recognise the fabric, pick the engine, route and
 * check that no connected pair was lost.
 */
#ifndef GPUAWARE_ROUTE_H
#define GPUAWARE_ROUTE_H

#include <stdatomic.h>

#include "jobs.h"
#include "jobsearch.h"
#include "lft.h"

enum rt_engine_id {
	RT_ENGINE_AUTO,
	RT_ENGINE_FATTREE,
	RT_ENGINE_UPDOWN,
	RT_ENGINE_TORUS,
	RT_ENGINE_DRAGONFLY,
};

/* "auto", "fattree", "updown", "torus", "dragonfly"; 0 or -EINVAL. */
int rt_engine_parse(const char *name, enum rt_engine_id *id);
const char *rt_engine_name(enum rt_engine_id id);

struct rt_summary {
	char topology[32];	/* "fat-tree", "torus", "dragonfly", ... */
	char engine[16];	/* engine that produced the tables */
	char detail[512];	/* what the recogniser found, or why not */
	double seconds;		/* wall time of recognise + route */
	double check_seconds;	/* wall time of the connectivity check */
	unsigned int nvl;	/* data VLs the tables need (t->vl), 1 without */
	char jobs[96];		/* how the engine used the jobs, "" for none */
	bool unsearched;	/* fat-tree: too large for the job search */
	double refine_seconds;	/* wall time of rt_refine(), 0 without */
};

/*
 * Route f with engine id into t (initialised here; release it with
 * rt_tables_release() also on error).  A forced engine that does not fit
 * the fabric gives -ENOTSUP with the reason in s->detail.  The result is
 * checked: a CA pair the cabling connects but the tables do not gives
 * -EIO; with RT_ENGINE_AUTO a fat-tree that up/down by levels cannot
 * connect, a torus whose detours need more than four VLs, or a dragonfly
 * with a pair beyond two global hops, is routed by updown instead
 * (s->engine and s->detail say so).  Fat-trees are tried first, then tori
 * and meshes, then dragonflies.  jobs (NULL for none, else built for f)
 * steers the fat-tree, torus and dragonfly engines; up*-down* routes as
 * without.
 */
int rt_route(const struct fabric *f, enum rt_engine_id id,
	     const struct rt_jobs *jobs, struct rt_tables *t,
	     struct rt_summary *s);

/*
 * Refine t, the routing rt_route() made of f for jobs as s tells, with
 * the fat-tree engine's long job search (rt_fattree_refine(): shared
 * links traded against load steps until no more are shared than without
 * jobs, then lighter job links; moves of it, 0 for its default).  It can
 * take seconds; *stop (may be NULL) ends it early.  Then checked as
 * rt_route() checks, and s->jobs gets ", refined"; s->refine_seconds is
 * its time.  Returns 0; -ENOTSUP when t is not the fat-tree engine's
 * routing for jobs, -E2BIG when the tree is past the search's limit or
 * the slot scheme, -EINVAL for no tree (t unchanged in these three);
 * -ECANCELED when stopped or -ENOMEM (t valid, partly refined); -EIO when
 * a pair was lost (t is to be dropped, s->detail says which; the search
 * should make that impossible).  s->jobs changes only on 0.  st may be
 * NULL.
 */
int rt_refine(const struct fabric *f, struct rt_summary *s,
	      const struct rt_jobs *jobs, struct rt_tables *t,
	      uint64_t moves, const atomic_bool *stop,
	      struct rt_jobsearch_stats *st);

#endif
