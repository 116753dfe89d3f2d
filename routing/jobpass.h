/* SPDX-License-Identifier: MIT */
/*
 * The job pass: re-chooses, among the ports an engine allows, the routes
 * to every job's LIDs so each job's own all-to-all is balanced, at a cost
 * for every link it would newly share with another job.
 */
#ifndef GPUAWARE_JOBPASS_H
#define GPUAWARE_JOBPASS_H

#include <stdbool.h>
#include <stdint.h>

#include "jobs.h"
#include "lft.h"

/*
 * The ports switch s may use towards destination switch ds (s != ds),
 * written to out (room for FAB_MAX_PORTS entries), their count returned.
 * Any mix of choices from these sets, one per switch and destination,
 * must stay loop-free and deadlock-free: the pass checks neither.
 */
typedef unsigned int (*rt_cands_fn)(void *ctx, uint32_t s, uint32_t ds,
				    uint8_t *out);

#define RT_JOBPASS_BUDGET 1.5e8

struct rt_jobpass_stats {
	/* as vf_jobload() measures them, before the pass and after it */
	uint64_t own_before, own_after;	/* jobs' max own loads, summed */
	uint32_t shared;		/* after: directed links two jobs' own use */
	bool balanced;			/* all-to-all max within the cap */
	bool skipped;			/* too large: t untouched */
};

/*
 * Re-route every CA LID in t, which holds a complete routing of its
 * fabric: the jobs' LIDs first, biggest job (ports x weight) first, then
 * the others.  For a job LID the sources with most of its job's ports
 * choose first, the whole path at once (cost: the job's own load against
 * 72 % of its busiest link before, a fixed price for a link another job
 * already uses, a cap of 9 % over the mean all-to-all load of the routing
 * before); the other sources, and every source of a LID in no job, take
 * the ways least loaded by the all-to-all.  A job whose busiest own link
 * would not get lighter keeps its old routes.  Switches no host's route
 * to a LID passes keep their entry.  st may be NULL; st->balanced says
 * whether the all-to-all stayed within the cap (or the old maximum),
 * which small fabrics, where one route is a large step, can miss.  The
 * work grows with LIDs x switches with hosts x switches (4.2e7 for a
 * 1,024-host 3-level tree, a quarter of a second on this project's test
 * machine); past RT_JOBPASS_BUDGET the pass skips, says so in
 * st->skipped and leaves t as it was.
 * Returns 0 or -ENOMEM; either way t holds a routing made of candidate
 * ports only.
 */
int rt_jobpass(struct rt_tables *t, const struct rt_jobs *jobs,
	       rt_cands_fn cands, void *ctx, struct rt_jobpass_stats *st);

#endif
