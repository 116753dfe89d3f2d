/* SPDX-License-Identifier: MIT */
/*
 * The routing front door: recognise the fabric, pick the engine, route and
 * check that no connected pair was lost.
 */
#ifndef GPUAWARE_ROUTE_H
#define GPUAWARE_ROUTE_H

#include "jobs.h"
#include "lft.h"

/*
 * An engine's id is 1 + its index in route.c's table (engine.h says what
 * an engine fills in); these name the built-in ones for callers that
 * force one.  A new engine is its own file and a line at the end of that
 * table, picked by name, and its name in RT_ENGINE_NAMES.
 */
enum rt_engine_id {
	RT_ENGINE_AUTO,
	RT_ENGINE_FATTREE,
	RT_ENGINE_UPDOWN,
	RT_ENGINE_TORUS,
	RT_ENGINE_DRAGONFLY,
};

/*
 * Every engine name, as help texts and messages list them; a unit test
 * holds it to the names rt_engine_parse() takes.
 */
#define RT_ENGINE_NAMES "auto, fattree, torus, dragonfly or updown"

/* A name of RT_ENGINE_NAMES to its id; 0 or -EINVAL. */
int rt_engine_parse(const char *name, enum rt_engine_id *id);
const char *rt_engine_name(enum rt_engine_id id);

/* The jobs' collectives on the model (collsim.h): mean and worst job. */
struct rt_model {
	double ring, ring_worst;
	double a2a, a2a_worst;		/* over the guard's alignments */
	double nccl, nccl_worst;	/* NCCL's all-to-all */
};

struct rt_summary {
	char topology[32];	/* "fat-tree", "torus", "dragonfly", ... */
	char engine[16];	/* engine that produced the tables */
	char detail[512];	/* what the recogniser found, or why not */
	double seconds;		/* wall time of recognise + route */
	double check_seconds;	/* wall time of the connectivity checks */
	unsigned int nvl;	/* data VLs the tables need (t->vl), 1 without */
	/*
	 * CA ports' routes to switch LIDs (PerfMgt, perfquery): pairs and
	 * those without a route, which a routing may leave where any
	 * would close a credit loop (vf_report's sw_*).
	 */
	uint64_t sw_pairs, sw_unreachable;
	char jobs[96];		/* how the jobs were used, "" for none */
	/* with jobs, what the collectives model made of the choice */
	bool modelled;		/* with and without are set */
	bool jobs_kept;		/* the job routing won and is in t */
	unsigned int tries;	/* routings for the jobs the guard judged */
	struct rt_model with, without;
	double model_seconds;	/* routing without jobs and modelling both */
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
 * and meshes, then dragonflies.
 *
 * jobs (NULL for none, else built for f) steers the fat-tree, torus and
 * dragonfly engines; up*-down* routes as without.  A routing for jobs is
 * never worse for them than the routing without: both run the jobs'
 * rings, NCCL all-to-alls and pairwise all-to-alls on the collectives
 * model (rt_model_judge()), and the job routing is kept only when no job
 * is slower.  While it is refused, an engine with gentler routings for
 * jobs (rt_engine.job_tries, rt_jobs.search_try) routes again.  Else t
 * holds the routing without jobs and s->jobs says why; s->with and
 * s->without hold the scores.
 */
int rt_route(const struct fabric *f, enum rt_engine_id id,
	     const struct rt_jobs *jobs, struct rt_tables *t,
	     struct rt_summary *s);

/*
 * The guard's pairwise all-to-all: rounds, and the alignments of the
 * jobs' rounds (seeds of their first shifts) it is judged under.  Jobs do
 * not run in step, so a routing must hold under alignments it was not
 * made for: a job may lose RT_GUARD_SLACK of its figure under one.
 */
#define RT_GUARD_ROUNDS 64
#define RT_GUARD_SEEDS 20
#define RT_GUARD_SLACK 0.02

/*
 * Score the jobs' collectives on t into m: ring and NCCL all-to-all mean
 * and worst job, pairwise all-to-all mean over the alignments and worst
 * job under any.  Returns 0 or -ENOMEM.
 */
int rt_model_score(const struct rt_tables *t, const struct rt_jobs *jobs,
		   struct rt_model *m);

/*
 * Whether a is no slower than b in any pattern's mean or worst job, and
 * faster in one of the means.
 */
bool rt_model_better(const struct rt_model *a, const struct rt_model *b);

/*
 * The guard's verdict on a (a routing for jobs) against b (the routing
 * without): 1 when a is kept, 0 when not, or -ENOMEM; ma and mb get the
 * scores.  a is kept when rt_model_better() holds and no job is slower
 * on a: its ring and its NCCL all-to-all within rounding, its pairwise
 * all-to-all within RT_GUARD_SLACK under every alignment.
 */
int rt_model_judge(const struct rt_tables *a, const struct rt_tables *b,
		   const struct rt_jobs *jobs, struct rt_model *ma,
		   struct rt_model *mb);

#endif
