/* SPDX-License-Identifier: MIT */
/*
 * Replay: a trace through the real scheduler core (sched.h) on a virtual
 * clock, arrivals and completions in one event order, and what users
 * and operators measure of the schedule it made.
 */
#ifndef GPUAWARE_POOL_REPLAY_H
#define GPUAWARE_POOL_REPLAY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "routing/lft.h"
#include "sched.h"
#include "trace.h"

/* A scripted host event: host (index into rpl_opts.hosts) down or up at t. */
struct rpl_fail {
	double t;
	uint32_t host;
	bool up;
};

/* What becomes of a job a host failure hits. */
enum rpl_recover {
	RPL_RECOVER_AUTO,	/* the anchors requeue, the pool's replace */
	RPL_RECOVER_REPLACE,	/* as ibpoold: new GPUs where there are */
	RPL_RECOVER_REQUEUE,	/* requeued whole (Slurm, Kubernetes) */
};

/* What a replay runs on; all borrowed. */
struct rpl_opts {
	const struct trc_trace *trace;
	const struct sch_host *hosts;
	size_t nhosts;
	unsigned int nlevels;
	enum sch_policy policy;
	/*
	 * The flow model for gangs (t routed over the fabric whose host
	 * names name[] index as hosts do); t NULL: not modelled.
	 */
	const struct rt_tables *t;
	const char *const *name;
	size_t comm_max;	/* gangs modelled at most, evenly spread; 0: 2000 */
	/* the node list whose models the pods' gpu_spec names; NULL: none */
	const struct trc_cluster *nodes;
	/* rpl_frag(): the requests (NULL: trace), and their order: 0 the
	 * trace's, else a shuffle drawn from this seed at each pass */
	const struct trc_trace *pods;
	uint64_t seed;
	/* rpl_frag(): told each request that arrives, placed or not; NULL */
	void (*arrive)(void *ctx, const struct sch_req *r);
	void *arrive_ctx;
	double gang_wait;	/* sch_config.gang_wait, on the flow model */
	bool gang_first_fit;	/* sch_config.gang_first_fit: the anchor */
	FILE *progress;		/* a line every few seconds, NULL: none */
	/*
	 * Run time a preemption or a requeue after a loss adds to the
	 * job, s (the scheduler's restart, which it also weighs); 0: free.
	 */
	double restart;
	/*
	 * With t: the share of a multi-host job's run time that is
	 * communication.  Each run of a gang takes the rest of its run
	 * time plus that share x its slowdown on the flow model when it
	 * starts (beside the gangs running then); 0: run times as traced.
	 */
	double comm_share;
	/*
	 * Host failures, the same under every policy: each host fails
	 * after an exponential time of mean mtbf s (0: never) drawn from
	 * seed, from the first arrival on, and is back repair s later;
	 * and the events fail[0..nfail) besides.  The scheduler recovers
	 * the jobs a failure hits (replaced or requeued, as recover says:
	 * auto requeues under fifo, easy, tiresias, bestfit, fgd, fgdcpu,
	 * fgdfill and sjf, as the schedulers they stand for do; seeded
	 * failures pause while nothing runs and nothing is left to
	 * arrive, and a host is up when neither kind holds it down); each
	 * loses the work since its run's last checkpoint (every ckpt s of
	 * work, 0: none, its run's start) and pays restart.
	 */
	double mtbf, repair, ckpt;
	enum rpl_recover recover;
	const struct rpl_fail *fail;
	size_t nfail;
};

/* Percentiles of one measure over the jobs. */
struct rpl_dist {
	double mean, median, p99;
};

/*
 * What one policy made of the trace.  Times in s; jct and util are
 * owned arrays for charts; rpl_result_release() frees them.
 */
struct rpl_result {
	enum sch_policy policy;
	size_t jobs, done, refused;	/* refused: can never fit */
	struct rpl_dist jct, wait;	/* wait: JCT less the run time */
	double bsld;			/* mean bounded slowdown, 10 s floor */
	double util;			/* allocated GPU-time / capacity x makespan */
	double util_arrivals;		/* the same from the first arrival to the last */
	double run_mean;		/* of the finished jobs: mean JCT's floor */
	double idle_wait;		/* GPU-hours idle while a fitting job waited */
	double idle_wait_pct;		/* of capacity x makespan */
	double makespan, bound;		/* bound: max(GPU-time / GPUs, arrival + run) */
	double ftf_max, ftf_jain;	/* per-user JCT / run time: worst, Jain */
	size_t preemptions;
	/* host failures: hosts gone down, jobs they hit (once each) and
	 * hits in all, of those replaced at once or requeued, and the work
	 * thrown away (run since the last checkpoint) x its GPUs */
	size_t failures, jobs_hit, hits, replaced, requeued;
	size_t given_up;	/* hit 100 times: dropped, never done */
	double lost_gpuh;
	/* gangs: placed at the lowest level that had room, and the model */
	size_t gangs, gangs_lowest;
	double level_mean;		/* tree level spanned, mean */
	size_t gangs_waited, gangs_expired;	/* for a better placement */
	double gang_wait_mean;		/* s, of those that waited */
	size_t modelled;
	double comm, comm_first;	/* mean slowdown ours, first fit's */
	double gang_jct;		/* mean JCT of the finished gangs */
	double stretch;			/* mean run time stretch of gang runs */
	/* predictions against true run times (policies that predict) */
	size_t predicted;
	double pred_within2;		/* fraction within a factor of 2 */
	double pred_mae;		/* mean absolute error, s */
	double step_p99_ms, step_max_ms;	/* one sch_step(), wall time */
	size_t queue_max;
	double *jct_s;			/* per finished job, njct */
	size_t njct;
	double *ut_t, *ut_pct;		/* utilisation over time (h, %) */
	size_t nut;
};

/*
 * Replay o->trace under o->policy into r (zeroed first).  Returns 0, or
 * a negative errno with err; r needs rpl_result_release() either way.
 */
int rpl_run(const struct rpl_opts *o, struct rpl_result *r, char *err,
	    size_t len);
void rpl_result_release(struct rpl_result *r);

/*
 * FGD's fragmentation measure: o->pods' requests arrive in order, or
 * shuffled with o->seed (from the start again, reshuffled, when they ask
 * less than the capacity) and never leave; each is placed at once or
 * refused (and skipped) until the GPUs the requests that arrived ask add
 * up to the capacity.  *unalloc gets the share of GPUs then unallocated
 * (%), *refused the requests skipped.  Returns 0 or a negative errno
 * with err.
 */
int rpl_frag(const struct rpl_opts *o, double *unalloc, size_t *refused,
	     char *err, size_t len);

/*
 * The sched request a trace job makes (name borrowed from the trace);
 * its gpu_spec as a mask over c's models (c NULL: any model).
 */
void rpl_request(const struct trc_trace *t, const struct trc_cluster *c,
		 const struct trc_job *j, struct sch_req *r);

#endif
