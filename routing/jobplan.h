/* SPDX-License-Identifier: MIT */
/*
 * Job-aware choice among an engine's candidate routes to one LID: each
 * job's own all-to-all loads (vf_jobload's definition) kept as the engine
 * commits routes, so it can give each job LID the candidate that loads
 * the job's own links least and keeps off other jobs' links.
 */
#ifndef GPUAWARE_JOBPLAN_H
#define GPUAWARE_JOBPLAN_H

#include <stdbool.h>
#include <stdint.h>

#include "jobs.h"
#include "lft.h"

/* What one candidate route tree to a LID costs its job, compared in order. */
struct rt_jp_cost {
	uint64_t max;		/* its busiest link, the job's load added */
	uint64_t foreign;	/* its links that carry another job's traffic */
	uint64_t sq;		/* sum over its links of load before x added */
};

/*
 * The loads of the default routes (base, what the engine does without
 * jobs) and of the chosen ones (plan), per job and fabric port.  Borrows
 * t and js, which must outlive it; the rest is owned, freed by
 * rt_jobplan_release().
 */
struct rt_jobplan {
	const struct rt_tables *t;
	const struct rt_jobs *js;
	uint32_t *soff;		/* njobs + 1: each job's sources in src/cnt */
	uint32_t *src, *cnt;	/* source switch, the job's CA ports there */
	uint32_t *base, *plan;	/* njobs x (nports + 1) routes */
	uint32_t *owner;	/* per port, in plan: job + 1, 0, shared */
	uint32_t *add, *touch, *path;	/* scratch of one route tree */
};

/*
 * Jobs x fabric ports past which the two load tables (4 bytes an entry)
 * are not built: 64 MiB each, so 8,192 fabric ports take 2,048 jobs.
 */
#define RT_JOBPLAN_MAX (1u << 24)

/*
 * js must hold at least one job.  0, -E2BIG past RT_JOBPLAN_MAX (the
 * engines then route as without jobs) or -ENOMEM; release also after
 * that.
 */
int rt_jobplan_init(struct rt_jobplan *jp, const struct rt_tables *t,
		    const struct rt_jobs *js);
void rt_jobplan_release(struct rt_jobplan *jp);

/*
 * Say in *use (if use is not NULL) what plan's result ret means for the
 * jobs: "planned" for 0, "none (too many jobs x ports)" for -E2BIG.
 */
void rt_jobplan_use(const char **use, int ret);

/* The job whose own traffic goes to lid (a linked CA port's), or RT_JOB_NONE. */
uint32_t rt_jobplan_job(const struct rt_jobplan *jp, unsigned int lid);

/* The cost of the routes to job LID lid now in t's LFTs. */
void rt_jobplan_cost(struct rt_jobplan *jp, unsigned int lid,
		     struct rt_jp_cost *c);
bool rt_jobplan_better(const struct rt_jp_cost *a,
		       const struct rt_jp_cost *b);

/* Count the routes to job LID lid now in t into the base or the plan. */
void rt_jobplan_add(struct rt_jobplan *jp, unsigned int lid, bool base);

/*
 * Whether job j's plan lowers its busiest own link below the base: a job
 * whose does not keeps the default routes (its own loads depend on its
 * LIDs' routes alone).
 */
bool rt_jobplan_keep(const struct rt_jobplan *jp, uint32_t j);

#endif
