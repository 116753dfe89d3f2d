/* SPDX-License-Identifier: MIT */
/*
 * The GPU pool: hosts and GPUs from the config, allocations with leases,
 * jobs.  Every change is a journal record, durable before the call
 * returns (or, with group commit, after the next pool_sync()) and
 * applied by the same code on replay.  Its types: pick.h (units, GPU
 * refs, the cost oracle, host states) and record.h (allocations, jobs,
 * queued requests), both included here.
 */
#ifndef GPUAWARE_POOL_POOL_H
#define GPUAWARE_POOL_POOL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <time.h>

#include "config.h"
#include "pick.h"
#include "record.h"

#define POOL_JOB_MAX 64		/* longest job id */

/*
 * ngpus whole GPUs; or milli (1..POOL_MILLI, ngpus 0 or 1) of one GPU,
 * POOL_MILLI being one whole GPU; and rdma (0..POOL_RDMA_CAP) of each
 * HCA it uses, alone (ngpus and milli 0) on one HCA.
 */
struct pool_request {
	uid_t uid;
	const char *client;	/* host name of the client */
	unsigned int ngpus;
	unsigned int milli;
	unsigned int rdma;
	unsigned int lease_s;	/* 0: the config's lease_default_s */
	const char *job;	/* NULL or "": none */
	time_t now;
};

struct pool;

/* A pool over cfg, which is borrowed and must outlive it. */
int pool_new(const struct pool_config *cfg, struct pool **out);
void pool_free(struct pool *p);

/*
 * Replay the state in dir (see journal.h), then free the leases expired
 * at now; from here on every change is journaled there.  Without this
 * call the pool lives in memory only.  Errors carry file and line.
 */
int pool_open_state(struct pool *p, const char *dir, time_t now,
		    char *err, size_t len);

/*
 * Group commit: from here on a change's record is written when its call
 * returns but durable only after a pool_sync(), which makes every
 * record written before it durable at once.  The state runs ahead of
 * the journal meanwhile: the caller tells nobody anything the state
 * says before pool_durable() reaches the pool_seq() of that moment.
 */
void pool_group_commit(struct pool *p);

/*
 * pool_sync() may run on another thread than the rest, beside them (it
 * touches only the journal).  It fails with -EIO, err saying why; after
 * a failure every later change and sync fails with -EIO (the journal is broken) and the state is ahead of
 * any replay for good: the caller should stop.  Without a state
 * directory it does nothing, and both counts are 0.
 */
int pool_sync(struct pool *p, char *err, size_t len);
uint64_t pool_seq(const struct pool *p);	/* changes written */

struct pool_hist;
/* How long the pool_sync()s that had records to sync took. */
void pool_sync_times(struct pool *p, struct pool_hist *out);
uint64_t pool_durable(const struct pool *p);	/* changes durable */

/* Snapshot the state and empty the journal (pool_journal_compact). */
int pool_compact(struct pool *p, char *err, size_t len);

/* Replay note of the journal (a cut torn record), "" for none. */
const char *pool_state_note(const struct pool *p);

/*
 * Allocate rq->ngpus GPUs after freeing expired leases.  Each free GPU
 * costs its HCA's path load (the oracle is asked once per host and rail);
 * the GPUs come from as few hosts as can hold them, the cheapest such
 * hosts, and within a host spread over its HCAs before doubling up on
 * one (two GPUs behind one HCA share its port), cheapest first.  Ties go
 * to config order, then GPU number.  With a bound, cost is asked only
 * about hosts whose bound could still beat the best host found, in
 * order of bound; the choice is the same (a cost below its bound
 * or disagreeing on reachability is caught on the hosts asked, and
 * then every host is asked).  With rq->rdma only GPUs behind HCAs with
 * that much RDMA bandwidth free are offered.  A share of one GPU
 * (rq->milli) goes on a GPU not held whole, where FGD (frag.h) finds
 * the least fragmentation for the shapes allocated so far, then on the
 * GPU with the least left, then the cheapest; RDMA bandwidth alone on
 * the HCA left fullest, then the cheapest.  *out points at the new
 * allocation.
 * -ENOSPC with "N GPUs requested, M free" (and how many of those the
 * client cannot reach), -EINVAL for a bad request, or -EIO when the
 * journal could not take it (a full disk too; err says why).
 */
int pool_alloc(struct pool *p, const struct pool_request *rq,
	       const struct pool_oracle *o, const struct pool_alloc **out,
	       char *err, size_t len);

/*
 * Release or renew (lease_s 0: the default) allocation id, by its owner
 * or root: -ENOENT unknown or expired, -EPERM someone else's.
 */
int pool_release(struct pool *p, uint64_t id, uid_t uid, time_t now,
		 char *err, size_t len);
int pool_renew(struct pool *p, uint64_t id, uid_t uid, unsigned int lease_s,
	       time_t now, char *err, size_t len);

/*
 * A job started on hosts (replacing an earlier start of the same id), or
 * ended: its allocations are released with it; -ENOENT for an unknown job.
 */
int pool_job_start(struct pool *p, const char *job, char *const *hosts,
		   size_t nhosts, time_t now, char *err, size_t len);
int pool_job_end(struct pool *p, const char *job, time_t now, char *err,
		 size_t len);

/*
 * Free the allocations whose lease ended at or before now; returns how
 * many.  Not journaled: every record carries its time and replay expires
 * leases before applying it, so replay frees them at the same point.
 * That time is the pool's clock, the latest now any call gave (kept in
 * the snapshot too): leases count from it, and a clock stepping back
 * cannot make replay keep a lease a timer freed.
 */
size_t pool_expire(struct pool *p, time_t now);

/*
 * Queue q (see struct pool_queued) at now: 0 with *ticket, -EINVAL for a
 * bad request, -EIO as pool_alloc().
 */
int pool_enqueue(struct pool *p, const struct pool_queued *q, time_t now,
		 uint64_t *ticket, char *err, size_t len);

/* Drop queued ticket, by its owner or root: -ENOENT, -EPERM. */
int pool_cancel(struct pool *p, uint64_t ticket, uid_t uid, time_t now,
		char *err, size_t len);

/*
 * Grant queued ticket the n GPUs g (free; dlid and rail as the caller
 * found them): one record takes the ticket out of the queue and makes
 * the allocation, so a restart replays both or neither.  *out as
 * pool_alloc(); -ENOENT unknown ticket, -EEXIST a GPU held.
 */
int pool_grant(struct pool *p, uint64_t ticket, const struct pool_gpu_ref *g,
	       unsigned int n, time_t now, const struct pool_alloc **out,
	       char *err, size_t len);

/*
 * Replace allocation id's GPUs by the n GPUs g (those it keeps and new
 * free ones), its id, owner and lease unchanged: -ENOENT, -EEXIST.
 */
int pool_replace(struct pool *p, uint64_t id, const struct pool_gpu_ref *g,
		 unsigned int n, time_t now, char *err, size_t len);

/*
 * Granted allocation id ends and its request is queued again (same
 * ticket and submit time), in one record: -ENOENT, -EINVAL when it was
 * not granted from the queue.
 */
int pool_requeue(struct pool *p, uint64_t id, time_t now, char *err,
		 size_t len);

/*
 * An operator's word on a host: drained (nothing new is taken there,
 * queued or direct; its allocations run on) or failed (down);
 * journaled, so a restart keeps it.  pool_set_host(): -EINVAL for a
 * bad state, -EIO.  The states: enum pool_host_state (pick.h).
 */
int pool_set_host(struct pool *p, size_t h, enum pool_host_state st,
		  time_t now, char *err, size_t len);
enum pool_host_state pool_host(const struct pool *p, size_t h);
/* "up", "drained", "failed" */
const char *pool_host_state_name(enum pool_host_state st);

/* The pool's clock: the latest time a call or a record named (0: none). */
time_t pool_clock(const struct pool *p);

/* Queued requests by ascending ticket, i < pool_nqueued(). */
size_t pool_nqueued(const struct pool *p);
const struct pool_queued *pool_queued_at(const struct pool *p, size_t i);
const struct pool_queued *pool_queued_find(const struct pool *p,
					   uint64_t ticket);
/* Allocations with orphaned GPUs; *ngpus how many GPUs (may be NULL). */
size_t pool_orphans(const struct pool *p, size_t *ngpus);

/*
 * Forget every orphaned GPU (one journal record naming each, so a replay
 * under another config drops the same ones); an allocation left with no
 * GPU at all goes.  *ngpus how many were dropped.  0, or -EIO as
 * pool_alloc().
 */
int pool_orphans_drop(struct pool *p, time_t now, size_t *ngpus, char *err,
		      size_t len);

/* Allocations by ascending id, i < pool_nallocs(). */
size_t pool_nallocs(const struct pool *p);
const struct pool_alloc *pool_alloc_at(const struct pool *p, size_t i);
const struct pool_alloc *pool_alloc_find(const struct pool *p, uint64_t id);

const struct pool_job *pool_job_find(const struct pool *p, const char *job);

/* Jobs in the order they started, i < pool_njobs(). */
size_t pool_njobs(const struct pool *p);
const struct pool_job *pool_job_at(const struct pool *p, size_t i);

/*
 * Free GPUs of config host h (nothing of them out); the allocation
 * holding GPU g whole, 0 if none; the milli of g out, whole or shared.
 */
unsigned int pool_free_gpus(const struct pool *p, size_t h);
uint64_t pool_gpu_owner(const struct pool *p, size_t h, unsigned int g);
unsigned int pool_gpu_used(const struct pool *p, size_t h, unsigned int g);

/*
 * The GPU of host h a share of milli (1..POOL_MILLI - 1) with rdma
 * would go on, as pool_alloc() places one (FGD, then best fit), none of
 * those in mask skip: true with *gpu and *key (lower is better, alike
 * across hosts); false when none has room or out of memory.
 */
bool pool_share_best(const struct pool *p, size_t h, unsigned int milli,
		     unsigned int rdma, uint64_t skip, unsigned int *gpu,
		     double *key);

/*
 * The HCA rail of host h an RDMA-only request of rdma would go on, as
 * pool_alloc() places one (best fit), none of those in mask skip: true
 * with *rail and *key (lower is better, alike across hosts); false when
 * none has room.
 */
bool pool_port_best(const struct pool *p, size_t h, unsigned int rdma,
		    uint64_t skip, unsigned int *rail, double *key);

/* RDMA bandwidth out on host h's HCA rail, of POOL_RDMA_CAP. */
unsigned int pool_rdma_used(const struct pool *p, size_t h, unsigned int rail);

#endif
