/* SPDX-License-Identifier: MIT */
/*
 * The routing front door: recognise the fabric, pick the engine, route and
 * check that no connected pair was lost.
 */
#ifndef GPUAWARE_ROUTE_H
#define GPUAWARE_ROUTE_H

#include "jobs.h"
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

#endif
