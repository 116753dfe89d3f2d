/* SPDX-License-Identifier: MIT */
/*
 * What the routing core (route.c) knows of an engine: one table of
 * operations, filled by each engine in its own file, after OpenSM's
 * struct osm_routing_engine.  Adding an engine is that file and a line
 * at the end of route.c's table (and its name in route.h's
 * RT_ENGINE_NAMES, which help texts list; a unit test checks).
 */
#ifndef GPUAWARE_RT_ENGINE_H
#define GPUAWARE_RT_ENGINE_H

#include <stdbool.h>
#include <stddef.h>

#include "jobs.h"
#include "lft.h"

/* What an engine's recogniser found in a fabric; all owned by the engine. */
struct rt_fit {
	bool fits;		/* the engine can route the fabric */
	const char *topology;	/* the fabric's kind when it fits: "torus" */
	const char *summary;	/* what was found, or why it does not fit */
	void *info;		/* the engine's own, for route and release */
};

struct rt_engine {
	const char *name;	/* as rt_engine_parse() takes it */
	/*
	 * Recognise f into fit (zeroed by the caller), which holds what it
	 * allocated even on error; 0 or a negative errno.  release frees
	 * it.  NULL for the engine that fits any fabric: it routes what no
	 * recogniser claims and what an automatically picked engine failed.
	 */
	int (*recognise)(const struct fabric *f, struct rt_fit *fit);
	void (*release)(struct rt_fit *fit);
	/*
	 * Route f (recognised into info, NULL without a recogniser) into t,
	 * initialised with its local routes set.  jobs: NULL or empty for
	 * none, else built for f.  detail gets what the summary adds ("" for
	 * nothing), *use how the jobs were used ("" for not at all).  The
	 * engine sets t->vl when its paths need SLs and SL2VL tables.
	 * Returns 0 or a negative errno.
	 */
	int (*route)(const struct fabric *f, const void *info,
		     const struct rt_jobs *jobs, struct rt_tables *t,
		     char *detail, size_t len, const char **use);
	/*
	 * What rt_summary.jobs says when jobs are given to an engine that
	 * ignores them; NULL when it routes for them, and rt_route() then
	 * guards its job routing on the model.
	 */
	const char *ignores_jobs;
	/*
	 * Routings for jobs the guard may ask for while it refuses them,
	 * rt_jobs.search_try 0 up to job_tries - 1, each gentler on the
	 * routing without; 0 or 1: one.
	 */
	unsigned int job_tries;
};

#endif
