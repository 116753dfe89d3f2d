/* SPDX-License-Identifier: MIT */
/*
 * Job-own link loads: per job, the routes of its own all-to-all on each
 * directed switch-to-switch link, and the links two or more jobs share.
 * The same definitions serve tests, bench and CLI.
 */
#ifndef GPUAWARE_JOBLOAD_H
#define GPUAWARE_JOBLOAD_H

#include <stdint.h>

#include "jobs.h"
#include "lft.h"

/* Owned; vf_jobload_release() frees it. */
struct vf_jobload {
	unsigned int njobs;
	uint64_t *max;		/* per job: its most routes on one link */
	uint64_t *bound;	/* per job: what no routing gets max below */
	uint64_t used;		/* directed switch links with own traffic */
	uint64_t shared;	/* of those, links of two or more jobs */
};

/*
 * Measure tables t (of js's fabric) for job set js: every linked CA port
 * of a job to every LID of every other CA port of that job, along t.
 * Routes that hit a hole or loop stop there (vf_check reports them).
 * The bound holds for any routing of the fabric: a switch with c of the
 * job's ports sends c x (the job's LIDs elsewhere) routes, and receives
 * (its ports elsewhere) x (its LIDs here), over its u switch links, so
 * one of them carries at least a u-th of either.
 * Returns 0 or -ENOMEM; jl needs vf_jobload_release() only after 0.
 */
int vf_jobload(const struct rt_tables *t, const struct rt_jobs *js,
	       struct vf_jobload *jl);
void vf_jobload_release(struct vf_jobload *jl);

#endif
