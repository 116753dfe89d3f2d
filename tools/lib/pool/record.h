/* SPDX-License-Identifier: MIT */
/*
 * What the pool keeps (allocations, jobs, queued requests) and their
 * records in JSON, one shape for journal, snapshot and replay.
 */
#ifndef GPUAWARE_POOL_RECORD_H
#define GPUAWARE_POOL_RECORD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <time.h>

#include "config.h"
#include "pick.h"

struct json_object;

/*
 * A GPU the journal or snapshot gives an allocation that the config no
 * longer has (its host gone, or an index past the host's gpus): an
 * orphan.  Kept with its allocation, holding nothing, until an admin
 * drops it (pool_orphans_drop()) or the allocation ends; written back
 * in every snapshot, so a config that has the GPU again takes it back.
 */
struct pool_lost_gpu {
	char *host;		/* as recorded */
	unsigned int gpu, rail;
	uint32_t dlid;
};

/* Owned by the pool; valid until the next call that changes it. */
struct pool_alloc {
	uint64_t id;		/* from 1, never reused */
	uid_t uid;		/* owner */
	char *client;		/* host the GPUs were chosen for */
	char *job;		/* "" when none */
	time_t expires;		/* wall clock */
	unsigned int ngpus;	/* may be 0 when every GPU is lost */
	struct pool_gpu_ref *gpus;
	/* the queued request it was granted to (its ticket); NULL: none */
	struct pool_queued *req;
	unsigned int nlost;
	struct pool_lost_gpu *lost;	/* orphans */
	/*
	 * RDMA bandwidth (POOL_RDMA_CAP units) taken on every HCA its GPUs
	 * send through, or, without GPUs, on port (has_port).
	 */
	unsigned int rdma;
	bool has_port;
	struct pool_gpu_ref port;	/* gpu unused */
};

struct pool_job {
	char *id;
	char **hosts;
	size_t nhosts;
};
/*
 * A request waiting in the queue.  Given to pool_enqueue() its strings
 * are borrowed (NULL: ""); in the pool they are its own.  The scheduler
 * reads class, group, name and limit_s; the pool only keeps them.
 */
struct pool_queued {
	uint64_t ticket;	/* from 1, never reused; set by the pool */
	uid_t uid;
	char *client;		/* host the GPUs are chosen for */
	char *job;
	char *cls;		/* class name, "" the default */
	char *group;		/* quota group, "" none */
	char *name;		/* job name for run-time predictions */
	unsigned int ngpus;
	unsigned int milli, rdma;	/* as struct pool_request's */
	unsigned int hosts;	/* gang of hosts, all or none; 0 any */
	unsigned int per_host;	/* GPUs on each gang host but the last */
	unsigned int lease_s;	/* of the allocation once granted */
	unsigned int limit_s;	/* run-time limit, 0 none */
	time_t submit;		/* set by the pool */
};

/* Free what q, a or jb owns (not the struct itself). */
void prec_queued_release(struct pool_queued *q);
void prec_alloc_release(struct pool_alloc *a);
void prec_job_release(struct pool_job *jb);

/*
 * q, orphan l ({"host", "gpu"}) or a (its GPUs named by cfg's hosts) as
 * a record's object: new, the caller's; NULL when out of memory.
 */
struct json_object *prec_queued_json(const struct pool_queued *q);
struct json_object *prec_lost_json(const struct pool_lost_gpu *l);
struct json_object *prec_alloc_json(const struct pool_config *cfg,
				    const struct pool_alloc *a);

/*
 * Field k of o: an integer in lo..hi into *v (prec_opt_int(): 0 when
 * absent) or a string (borrowed from o; NULL when absent or no string).
 */
bool prec_get_int(struct json_object *o, const char *k, int64_t lo,
		  int64_t hi, int64_t *v);
bool prec_opt_int(struct json_object *o, const char *k, int64_t lo,
		  int64_t hi, int64_t *v);
const char *prec_get_str(struct json_object *o, const char *k);

/*
 * A queued request's fields from o into q, its strings owned by q:
 * 0, -EINVAL or -ENOMEM with err.
 */
int prec_take_queued(struct json_object *o, struct pool_queued *q,
		     char *err, size_t len);

#endif
