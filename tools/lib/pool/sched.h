/* SPDX-License-Identifier: MIT */
/*
 * The pool's scheduler core: a queue of GPU requests over a cluster of
 * hosts grouped by fabric level, and the policies that choose what runs.
 * No sockets, clock or journal: the caller passes the time in, and the
 * same calls in the same order give the same decisions.
 */
#ifndef GPUAWARE_POOL_SCHED_H
#define GPUAWARE_POOL_SCHED_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define SCH_MILLI 1000		/* one whole GPU */
#define SCH_MAX_LEVELS 8
#define SCH_CLASSES 4		/* 0 lowest (best effort) .. 3 highest */
#define SCH_NONE UINT32_MAX
#define SCH_MODELS 64		/* GPU models a request's mask names */
#define SCH_MAX_RAILS 64	/* NICs a host has */

enum sch_policy {
	SCH_FIFO,		/* submit order, the head blocks the rest */
	SCH_PRIORITY,		/* multifactor order, EASY backfill, class preemption */
	SCH_EASY,		/* submit order, EASY backfill from time limits */
	SCH_PREDICTED,		/* shortest predicted first, backfill on limits */
	SCH_TIRESIAS,		/* 2D-LAS, discretized queues, preemptive */
	SCH_BESTFIT,		/* submit order, whatever fits starts, best-fit hosts */
	SCH_FGD,		/* as bestfit, placed by fragmentation gradient */
	SCH_SJF,		/* oracle: true run times, with backfill */
	SCH_SRPT,		/* shortest predicted remaining, preemptive */
	SCH_FGDCPU,		/* as fgd, first stranding fewest GPUs without CPU */
	SCH_FGDFILL,		/* as fgdcpu, shares where least stays unused */
	SCH_NPOLICIES,
};

/* "fifo", "priority", ...: 0 with *p, or -EINVAL. */
int sch_policy_parse(const char *name, enum sch_policy *p);
const char *sch_policy_name(enum sch_policy p);

/* How a job's hosts are chosen (the policy's default unless set). */
enum sch_place {
	SCH_PLACE_DEFAULT,
	SCH_PLACE_TREE,		/* lowest level, calmest uplinks, best-fit pods */
	SCH_PLACE_FIRST,	/* first hosts in index order that fit */
	SCH_PLACE_BEST,		/* least room left on the host or GPU */
	SCH_PLACE_FGD,		/* least fragmentation added */
	SCH_PLACE_FGDCPU,	/* fewest GPUs stranded, then as FGD */
	SCH_PLACE_FILL,		/* as FGDCPU, shares least expected unused first */
};

/*
 * One host: gpus GPUs of SCH_MILLI each; rails RDMA NICs (HCAs, 0:
 * none, at most SCH_MAX_RAILS) of nic units of share each, GPU g
 * sending through rail g * rails / gpus (the pool's pool_gpu_rail());
 * and its group at each fabric level (lvl[0] its leaf, lvl[1] its pod,
 * ...; groups numbered per level, as pool_tree's).  cpu (milli-cores)
 * and mem (MiB) bound what requests take of them, 0: not modelled,
 * never short; model is its GPU model (1..SCH_MODELS - 1, the caller's
 * numbering), 0 none given.
 */
struct sch_host {
	unsigned int gpus;
	unsigned int rails, nic;
	uint32_t cpu, mem;
	unsigned int model;
	uint32_t lvl[SCH_MAX_LEVELS];
};

struct sch_config {
	enum sch_policy policy;
	enum sch_place place;
	unsigned int nlevels;		/* of sch_host.lvl, 1..SCH_MAX_LEVELS */
	double grace;			/* notice before a preemption, s */
	/*
	 * What a preemption costs its victim, s: the run time it adds (a
	 * checkpoint's reload and warm-up), which the replay charges and
	 * the preemptive policies weigh before they preempt.  A job
	 * requeued after a host loss pays it too.
	 */
	double restart;
	bool preempt;			/* classes preempt lower ones (priority) */
	/* multifactor weights and shapes (priority); w_cls[c] of class c */
	double w_cls[SCH_CLASSES], w_age, w_fair, w_size;
	double age_max;			/* age factor saturates here, s */
	double fair_halflife;		/* usage decay, s */
	double recalc;			/* priorities re-sorted this often, s */
	double starve;			/* a job waiting this long goes first, s; 0 never */
	/* tiresias */
	double las_thresh[2];		/* attained GPU-seconds of queue 1 and 2 */
	double las_starve;		/* promote after waiting this x its run time */
	/*
	 * srpt: a running job is preempted for a queued one only when its
	 * predicted remaining GPU-seconds exceed this many times the queued
	 * one's (plus its restart), so that near-equals do not trade places.
	 */
	double srpt_ratio;
	/*
	 * For comparison: where first fit would have put each gang when it
	 * started (sch_first_fit()).
	 */
	bool record_first;
	/*
	 * The anchor of a cluster without topology awareness: gangs take
	 * the lowest-numbered hosts with room, whatever place says.
	 */
	bool gang_first_fit;
	/*
	 * A job a host loss hits is always requeued whole, never given
	 * replacement GPUs (Slurm's requeue on node failure, a pod
	 * recreated by Kubernetes): the anchors' behaviour.
	 */
	bool requeue_lost;
	/*
	 * A gang that could start now but spans a higher tree level than it
	 * would once running jobs end (as the policy expects them to) may
	 * wait up to gang_wait s for that, when comm says the gain pays:
	 * its expected run time x (slowdown now - slowdown then) exceeds
	 * the expected wait.  0: never waits.
	 */
	double gang_wait;
	/*
	 * The flow model: a gang's slowdown (>= 1) on hosts h[0..n) beside
	 * the running gangs, leaving out the tickets gone[0..ngone) (ended
	 * by then); ctx is comm_ctx.  NULL: the core's own count of the
	 * gangs' hosts behind each group's uplinks.
	 */
	double (*comm)(void *ctx, const uint32_t *h, size_t n,
		       const uint64_t *gone, size_t ngone);
	void *comm_ctx;
	/* per-group quota in milli-GPUs, ngroups of them; NULL: none */
	const uint64_t *quota;
	/*
	 * Kueue's limits per group, milli-GPUs (NULL: none; UINT64_MAX: a
	 * group without): a group runs at most borrow beyond its quota,
	 * and of its idle quota at most lend is taken by groups beyond
	 * theirs (the rest stays free for it).  With quota only.
	 */
	const uint64_t *borrow, *lend;
	unsigned int ngroups;
};

/* The defaults for policy p. */
void sch_config_default(struct sch_config *c, enum sch_policy p);

/*
 * A request.  gpus whole GPUs, or (gpus 0) milli of one GPU, or
 * neither: nic share, CPU or memory only.  cpu (milli-cores) and mem
 * (MiB) are taken on each of its hosts that models them; models is the
 * mask of host models it may run on (bit m: model m; 0 any).  A gang
 * of hosts hosts (all or none) takes per_host GPUs on each but the
 * last, which takes the rest; hosts 0 makes one of ceil(gpus / the
 * largest host's GPUs) hosts.  limit: the
 * user's time limit (0: none); runtime: the true run time, which only
 * the oracle reads (0: unknown).  name is copied.
 */
struct sch_req {
	uint32_t user, group;
	unsigned int cls;		/* < SCH_CLASSES */
	unsigned int gpus;
	unsigned int milli;
	unsigned int hosts, per_host;
	/*
	 * NIC share on each rail its GPUs send through (one rail holds
	 * it all: a share is never split); without GPUs, on one rail of
	 * each host.
	 */
	unsigned int nic;
	uint32_t cpu, mem;		/* per host */
	uint64_t models;
	double limit, runtime;
	const char *name;
};

#define SCH_NO_GPU UINT16_MAX	/* a slot of NIC share (CPU, memory) only */

/*
 * One GPU (or share of one) of an allocation; with gpu SCH_NO_GPU, rail
 * is the NIC its share takes (a GPU's is its own, rail unread).
 */
struct sch_slot {
	uint32_t host;
	uint16_t gpu;
	uint16_t milli;
	uint16_t rail;
};

enum sch_act {
	SCH_START,		/* run ticket on slots */
	SCH_NOTICE,		/* ticket will be preempted at deadline */
	SCH_PREEMPT,		/* ticket stopped, queued again */
	SCH_LOST,		/* a host of ticket went down */
	SCH_REPLACED,		/* ticket's lost GPUs replaced: slots are all of them */
	SCH_REQUEUE,		/* ticket lost and queued again at its class's head */
};

/* A decision; slots borrowed from the scheduler until its next call. */
struct sch_dec {
	enum sch_act act;
	uint64_t ticket;
	double deadline;		/* SCH_NOTICE */
	const struct sch_slot *slot;
	size_t nslots;
};

/* What the scheduler knows of a ticket, for the caller's reports. */
struct sch_info {
	bool queued, running;
	double submit, first_start;	/* first_start < 0: never ran */
	double predicted;		/* run time the policy assumed, s */
	unsigned int level;		/* of the last placement */
	unsigned int feasible;		/* the lowest level that had room then */
	unsigned int nhosts;
	unsigned int preemptions;
	double attained;		/* GPU-seconds run so far */
	double gang_waited;		/* s waited for a better placement */
	bool gang_expired;		/* and started when gang_wait ran out */
};

struct sch;

/*
 * A scheduler over n hosts (copied) as c says (copied; c->quota too).
 * Returns 0 with *out, or -ENOMEM/-EINVAL; sch_free() releases it.
 */
int sch_new(const struct sch_host *h, size_t n, const struct sch_config *c,
	    struct sch **out);
void sch_free(struct sch *s);

/*
 * The workload FGD weighs (SCH_PLACE_FGD): by default the requests
 * submitted so far.  sch_expect() counts r as one request of the
 * workload to expect instead (FGD's typical requests, from a trace or a
 * history), and sch_expect_end() closes it: its pct % most popular
 * types kept, and what is submitted no longer counts.  fgdfill's
 * expected waste weighs the shares submitted so far, whatever
 * sch_expect() counted.
 */
void sch_expect(struct sch *s, const struct sch_req *r);
void sch_expect_end(struct sch *s, double pct);

/*
 * Queue r at time t: 0 with *ticket (1, 2, ... in submit order), or
 * -EINVAL when it can never fit (more than the cluster, a class or
 * group out of range), -ENOMEM.
 */
int sch_submit(struct sch *s, const struct sch_req *r, double t,
	       uint64_t *ticket);

/*
 * r already runs on slots sl[0..n) (distinct, free, each host's
 * consecutive), placed by the caller: an allocation made outside the
 * queue, or one replayed after a restart.  It holds them as a running ticket until sch_finish() or
 * sch_cancel(); no decision is made for it, but on a host down it is
 * lost, recovered at the next sch_step().  0 with *ticket, -EINVAL
 * (r never fits, or a slot is unknown or not free), -ENOMEM.
 */
int sch_hold(struct sch *s, const struct sch_req *r,
	     const struct sch_slot *sl, size_t n, double t, uint64_t *ticket);

/* Drop a queued or running ticket: 0, or -ENOENT. */
int sch_cancel(struct sch *s, uint64_t ticket, double t);

/* A running ticket ended at t: its GPUs are free.  0 or -ENOENT. */
int sch_finish(struct sch *s, uint64_t ticket, double t);

/* Host h went down or came back (allocations decided at the next step). */
int sch_host_down(struct sch *s, uint32_t h, double t);
int sch_host_up(struct sch *s, uint32_t h, double t);

/*
 * NIC rail r of host h lost or back, its host up: while lost no share
 * is placed on it, nor GPUs sending through it for a request with NIC
 * share.  What holds it runs on: the caller moves it (sch_cancel(),
 * sch_hold() elsewhere).  0, or -ENOENT (no such host or rail).
 */
int sch_rail_down(struct sch *s, uint32_t h, unsigned int r);
int sch_rail_up(struct sch *s, uint32_t h, unsigned int r);

/*
 * Decide at time t (never before the last call's): *d gets *n decisions,
 * valid until the next call.  Returns 0 or -ENOMEM.
 */
int sch_step(struct sch *s, double t, const struct sch_dec **d, size_t *n);

/*
 * The earliest time after t at which a step would decide something
 * without any other call (a grace deadline, a LAS demotion, a priority
 * re-sort); -1 for none.
 */
double sch_next(const struct sch *s, double t);

/* 0 with *i, or -ENOENT. */
int sch_info(const struct sch *s, uint64_t ticket, struct sch_info *i);

/*
 * Where r would be placed now by placement p, without allocating:
 * hosts into out (room for n), returns how many (0: does not fit now)
 * and *level the tree level spanned.  Uses s's scratch space.
 */
size_t sch_preview(struct sch *s, const struct sch_req *r,
		   enum sch_place p, uint32_t *out, size_t n,
		   unsigned int *level);

/* User u's fair-share usage at t: GPU-seconds, decayed by half-life. */
double sch_usage(const struct sch *s, uint32_t u, double t);

/*
 * With record_first: the hosts first fit would have given gang ticket at
 * its last start, *hosts borrowed until the ticket starts again; 0 when
 * none (not a gang, never started).
 */
size_t sch_first_fit(const struct sch *s, uint64_t ticket,
		     const uint32_t **hosts);

/* Cluster totals: GPUs up, milli-GPUs allocated, and queued requests. */
struct sch_stats {
	uint64_t milli_cap, milli_used;
	size_t queued, running;
};
void sch_stats(const struct sch *s, struct sch_stats *st);

#endif
