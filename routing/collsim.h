/* SPDX-License-Identifier: MIT */
/*
 * The flow-level model of concurrent collectives: every job runs its ring
 * all-reduce or its all-to-all at the same time over a routing's tables,
 * links shared max-min fairly.  What a job feels, not a link count.
 */
#ifndef GPUAWARE_COLLSIM_H
#define GPUAWARE_COLLSIM_H

#include <stdbool.h>
#include <stdint.h>

#include "jobs.h"
#include "lft.h"

/*
 * The model.  Every directed link, a CA's own link in each direction
 * included, has capacity 1 (line rate).  A flow follows the tables from
 * its source CA port to its destination's base LID.  All flows of a round
 * run at once and share links max-min fairly (progressive filling: every
 * flow grows at the same pace until a link it crosses is full).  A job's
 * bandwidth in a round is its slowest flow's; a flow the tables do not
 * deliver has rate 0.
 *
 * CS_RING: NCCL's ring, the hosts in rank order (the order of each
 * host's first rank, as the scheduler listed them: NCCL does not regroup
 * hosts by switch), each sending to the next, the last to the first.  A
 * host with several HCA ports runs one ring per rail: its i-th port
 * sends to the next host's i-th port (cs_ring_next()).  One round: a
 * ring's steps all move the same flows.
 *
 * CS_ALLTOALL: MPI's pairwise all-to-all, shift rounds, rank i sending
 * to rank i + s (mod n) in round s, over the job's rank order (the
 * scheduler's host order, or a seeded random one).  Jobs are not in step
 * with each other: each starts at a seeded random shift and they run the
 * same number of rounds, the largest job's n - 1 unless told, smaller
 * jobs starting over.  A job's all-to-all bandwidth is rounds over the
 * sum of 1 / its round bandwidth: the rate at which its collective
 * completes.
 *
 * CS_NCCL_ALLTOALL: NCCL's all-to-all (ncclGroupStart, a send and a
 * receive to every peer), as mixture-of-experts training runs it: every
 * rank sends to every other at once, one round.  A job's figure is its
 * slowest flow's rate times n - 1 (line rate when no flow waits on
 * anything but its own host links).
 */
enum cs_pattern {
	CS_RING,
	CS_ALLTOALL,
	CS_NCCL_ALLTOALL,
	CS_NPATTERNS
};

/* "ring", "alltoall", "nccl-alltoall"; 0 or -EINVAL. */
int cs_pattern_parse(const char *name, enum cs_pattern *p);
const char *cs_pattern_name(enum cs_pattern p);

/*
 * Not a routing: what one could reach, round by round.  The oracle
 * routes every flow of a round by its source, hop by hop over the least
 * loaded link that gets it a switch closer (then twice more, each flow
 * taken off and routed again against the others), knowing every job's
 * round (CS_ORACLE_ALL: as no routing can, since jobs do not run in step)
 * or its own job's only (CS_ORACLE_OWN: what a routing for the jobs could
 * know at best, without the tables' limit of one port per destination).
 * Ignores VLs and credit loops.  A heuristic: a reference, not a bound.
 */
enum cs_oracle {
	CS_ORACLE_NONE,		/* the tables' routes */
	CS_ORACLE_ALL,
	CS_ORACLE_OWN,
};

struct cs_opts {
	enum cs_pattern pattern;
	unsigned int rounds;	/* all-to-all rounds, 0: the largest job's */
	uint64_t seed;		/* the jobs' first shifts (and shuffle) */
	bool shuffle;		/* all-to-all over a seeded random rank order */
	enum cs_oracle oracle;	/* routes by round instead of t's */
	bool links;		/* fill cs_result.link */
};

/* Owned; cs_result_release() frees it. */
struct cs_result {
	enum cs_pattern pattern;
	unsigned int njobs;
	double *bw;		/* per job, fraction of line rate */
	double mean, worst;	/* over the jobs with two ranks or more */
	unsigned int active;	/* those jobs */
	unsigned int rounds;
	uint64_t flows;		/* simulated, over all rounds */
	uint64_t lost;		/* of those, not delivered by the tables */
	/*
	 * With cs_opts.links, per fabric port (the directed link it sends
	 * on): the flows on it in a round, over the rounds; else NULL.
	 */
	double *link;
};

/*
 * Run js's jobs (of t's fabric) on t as o says into r (with an oracle, t
 * gives only the fabric's switches).  Returns 0 or -ENOMEM; r needs
 * cs_result_release() only after 0.
 */
int cs_run(const struct rt_tables *t, const struct rt_jobs *js,
	   const struct cs_opts *o, struct cs_result *r);
void cs_result_release(struct cs_result *r);

/*
 * The pairwise all-to-all (CS_ALLTOALL, rounds as cs_opts.rounds, the
 * host lists' rank order) under nseeds alignments, seeds[k] as
 * cs_opts.seed, each flow walked through t once for all of them.  Per
 * alignment k, what cs_run() would give: the jobs' figures into
 * bw + k * njobs, their mean into mean[k], the worst into worst[k].
 * With floor (per alignment and job, as bw), the run stops as soon as a
 * job's figure is sure to end below its floor (figures only fall round
 * by round).  Returns the alignments run in full (nseeds, or the one
 * where a job fell below its floor), or -ENOMEM.
 */
int cs_alignments(const struct rt_tables *t, const struct rt_jobs *js,
		  unsigned int rounds, const uint64_t *seeds,
		  unsigned int nseeds, const double *floor, double *bw,
		  double *mean, double *worst);

/*
 * The ring of job j: per rank (index from js->rank_off[j]) the rank it
 * sends to, UINT32_MAX for none (a rail no other host has), into next
 * (room for the job's ranks).  The routing that serves rings uses the
 * same ring.  Returns 0 or -ENOMEM.
 */
int cs_ring_next(const struct rt_jobs *js, uint32_t j, uint32_t *next);

/*
 * Max-min fair rates of n flows over links of capacity 1: flow i crosses
 * the links lnk[off[i]] up to lnk[off[i + 1]] (ids below nlinks, each at
 * most once per flow); rate[i] gets its rate, 1 for a flow that crosses
 * none.  Returns 0 or -ENOMEM.
 */
int cs_maxmin(uint32_t n, const uint32_t *off, const uint32_t *lnk,
	      uint32_t nlinks, double *rate);

#endif
