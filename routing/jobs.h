/* SPDX-License-Identifier: MIT */
/*
 * The running jobs the engines route for: which CA node belongs to which
 * job, and each job's id and weight.  Built from host names or port GUIDs.
 */
#ifndef GPUAWARE_JOBS_H
#define GPUAWARE_JOBS_H

#include <stddef.h>
#include <stdint.h>

#include "../topology/fabric.h"

#define RT_JOB_NONE UINT32_MAX
#define RT_JOB_WEIGHT_MAX 1000
#define RT_JOB_SEARCH_MAX 100000000u	/* search entries a user may ask for */

/*
 * One job as the scheduler names it; all borrowed.  An entry of hosts is
 * a port GUID when it reads as 0x and hex digits, else a host name (the
 * first word of a CA's node description).
 */
struct rt_job_spec {
	const char *id;
	unsigned int weight;		/* 1..RT_JOB_WEIGHT_MAX */
	const char *const *hosts;	/* nhosts entries */
	size_t nhosts;
};

struct rt_job {
	char *id;			/* owned */
	unsigned int weight;		/* size x weight: who is balanced first */
	unsigned int hosts;		/* distinct hosts */
	unsigned int ports;		/* linked CA ports of those hosts */
};

/* One rank of a job: a linked CA port. */
struct rt_rank {
	uint32_t node;
	uint8_t port;
};

/*
 * A job set for one fabric, which it borrows and must outlive it.  A job
 * holds whole hosts: every HCA whose host name matches (a rail-optimized
 * host's HCAs sit on different leaves but run one job), so the map is per
 * CA node, not per port.  Its ranks are its hosts' linked CA ports in the
 * order the scheduler listed the hosts (a host's HCAs in node order, an
 * HCA's ports in port order): the rank order a launcher gives them.
 * Owned; rt_jobs_release() frees it.
 */
struct rt_jobs {
	const struct fabric *fab;
	unsigned int njobs;
	uint64_t search_moves;		/* job search entries, 0: default */
	unsigned int search_try;	/* the guard's retry (engine.h) */
	struct rt_job *job;
	uint32_t *node_job;		/* per fabric node: job index or RT_JOB_NONE */
	uint32_t *rank_off;		/* njobs + 1: job j's ranks in rank[] */
	struct rt_rank *rank;
};

/*
 * Build js for f from n specs.  A host several jobs name (jobs sharing a
 * node) is routed as a member of the first of them, the job that started
 * first: its routes stay as they were when a later job joins the host.
 * The later jobs are routed on their other hosts; one with none is left
 * out of js.  Returns 0, -ENOMEM, or -EINVAL/-ENOENT/-EEXIST with one
 * line in err naming the job and the host: a bad id or weight, an
 * unknown host or GUID, a duplicate id.  js needs rt_jobs_release() only
 * after success.
 */
int rt_jobs_build(struct rt_jobs *js, const struct fabric *f,
		  const struct rt_job_spec *spec, size_t n, char *err,
		  size_t len);
/* Told one line for each job rt_jobs_build_drop() leaves out. */
typedef void (*rt_jobs_drop_fn)(void *ctx, const char *msg);

/*
 * rt_jobs_build(), with drop told of each job left out because earlier
 * jobs hold all its hosts ("job 'b' has no host of its own: its hosts
 * route with job 'a'").  js may end with no jobs; it needs
 * rt_jobs_release() after success all the same.
 */
int rt_jobs_build_drop(struct rt_jobs *js, const struct fabric *f,
		       const struct rt_job_spec *spec, size_t n,
		       rt_jobs_drop_fn drop, void *ctx, char *err, size_t len);
void rt_jobs_release(struct rt_jobs *js);

/* Job of fabric node, RT_JOB_NONE without one or without a job set. */
static inline uint32_t rt_job_of(const struct rt_jobs *js, uint32_t node)
{
	return js && node != FAB_NONE ? js->node_job[node] : RT_JOB_NONE;
}

#endif
