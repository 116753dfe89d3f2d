/* SPDX-License-Identifier: MIT */
/*
 * ibpoold's queue: the scheduler core (sched.h) over the pool's hosts,
 * fed the pool's allocations and its durable queue, its decisions turned
 * into journaled pool changes (grant, replace, requeue) and events.
 */
#ifndef GPUAWARE_POOLD_QUEUE_H
#define GPUAWARE_POOLD_QUEUE_H

#include <stdbool.h>
#include <stdint.h>
#include <time.h>

#include "tools/lib/pool/config.h"
#include "tools/lib/pool/place.h"
#include "tools/lib/pool/pool.h"

/* What the queue asks of the daemon while it runs. */
struct poold_queue_ops {
	/* The LID client should address rail's port of host h; 0 unknown. */
	uint32_t (*dlid)(void *ctx, const char *client, uint32_t h,
			 unsigned int rail);
	/*
	 * An event: kind ("granted", "preempt-notice", "preempted", "lost",
	 * "replaced", "requeued", "revoked") for queued ticket (0: an
	 * allocation made at once) of uid; a the allocation (NULL once it
	 * is gone), deadline the preemption's (notice only).
	 */
	void (*event)(void *ctx, const char *kind, uint64_t ticket, uid_t uid,
		      const struct pool_alloc *a, uint64_t id, time_t deadline);
	void *ctx;
};

struct poold_queue;

/*
 * A scheduler over cfg's hosts (levels from t, which is bound to cfg;
 * hosts t lacks are down), holding pool's allocations and its queued
 * requests, its clock starting at the pool's.  All borrowed, pool and
 * cfg for its life.  0 or -ENOMEM.
 */
int poold_queue_new(const struct pool_config *cfg, struct pool *pool,
		    const struct pool_tree *t, struct poold_queue **out);
void poold_queue_free(struct poold_queue *q);

/*
 * Queue r (see pool_enqueue()) at now: 0 with *ticket; -EINVAL with err
 * when it could never fit or names an unknown class or group; pool's
 * errors.
 */
int poold_queue_submit(struct poold_queue *q, const struct pool_queued *r,
		       time_t now, uint64_t *ticket, char *err, size_t len);

/* Drop queued ticket (its owner uid, or root): pool_cancel()'s errors. */
int poold_queue_cancel(struct poold_queue *q, uint64_t ticket, uid_t uid,
		       time_t now, char *err, size_t len);

/*
 * An operator's word on host h (config index) changed in the pool
 * (pool_set_host()): drained, nothing new is granted there and its
 * allocations run on; failed, it is down and its allocations are lost
 * at the next run; or up again.  The fabric's word is kept apart
 * (poold_queue_fabric(): down while none of its HCAs is in the
 * fabric); a host is down when either says so.
 */
void poold_queue_oper(struct poold_queue *q, uint32_t h, time_t now);
/*
 * The fabric's word on rail r of host h: its HCA (or the cable to it)
 * gone or back.  While the host has another HCA it stays up; the
 * allocations with GPUs behind the lost one are lost at the next run and
 * replaced (on the same host first, then at the lowest tree level that
 * has room), else queued again or revoked, and its free GPUs are held.
 */
void poold_queue_rail(struct poold_queue *q, uint32_t h, unsigned int r,
		      bool down);
void poold_queue_fabric(struct poold_queue *q, uint32_t h, bool down,
			time_t now);
/* POOL_HOST_FAIL when the fabric lacks it, else the operator's word. */
enum pool_host_state poold_queue_host(const struct poold_queue *q,
				      uint32_t h);

/*
 * Catch up with the pool (allocations released, expired, made at once),
 * let the scheduler decide at now and carry its decisions out: each
 * a journaled change, reported through ops.  0, or the first error
 * (err says which), the rest carried on.
 */
int poold_queue_run(struct poold_queue *q, time_t now,
		    const struct poold_queue_ops *ops, char *err, size_t len);

#endif
