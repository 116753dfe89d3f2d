/* SPDX-License-Identifier: MIT */
/*
 * ibpoold's operations on the pool socket (docs/protocol.md, "Pool
 * daemon"), the cost oracle pool_alloc() asks, and the periodic work:
 * lease expiry and journal compaction.  One lock serialises the server
 * thread's requests and the main thread's timers.
 */
#ifndef GPUAWARE_POOL_OPS_H
#define GPUAWARE_POOL_OPS_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>

#include <json-c/json.h>

#include "commit.h"
#include "fanout.h"
#include "queue.h"
#include "sm/server.h"
#include "tools/lib/pool/config.h"
#include "tools/lib/pool/hist.h"
#include "tools/lib/pool/place.h"
#include "tools/lib/pool/pool.h"
#include "tools/lib/pool/swname.h"
#include "tools/lib/pool/view.h"

/* Operations of the pool socket (the table in ops.c). */
#define POOLD_NOPS 18

/* Requests of one operation answered, and the handler's time. */
struct poold_opstat {
	uint64_t ok, err;	/* under the poold's lock */
	struct pool_hist time;
};

/*
 * How long job.start waits for the plugin's answer to the table (on the
 * server thread, without the lock), to say in its reply whether the
 * plugin refused the job; well within the Slurm hook's timeout.
 */
#define POOLD_REFUSAL_WAIT_MS 1000

/* Compact the journal after this many acknowledged changes. */
#define POOLD_COMPACT_RECORDS 4096

/*
 * Borrows cfg, pool, view and relay (NULL: no relay), which must outlive
 * it; owns the rest.  now() is the clock (time() by default), replaced
 * by tests.  commit and srv, set by the caller before the server starts
 * (NULL: none), are borrowed too: with both, a reply that must wait for
 * the journal waits on the commit thread; without, the handler syncs.
 */
struct poold {
	const struct pool_config *cfg;
	struct pool *pool;
	struct pool_view *view;
	struct poold_fanout *relay;	/* the job table to the SMs */
	struct pool_tree tree;
	struct pool_swname_map names;	/* cfg's node_name_map, loaded */
	size_t nhcas;		/* configured HCAs, all hosts */
	/* port of host h's rail r, port[hoff[h] + r] (-errno: not found) */
	long *port;
	/*
	 * The port GUID each HCA configured by description matched first,
	 * as port[] (0: none yet): a later match elsewhere is refused.
	 */
	uint64_t *pin;
	size_t *hoff;
	uint32_t *byname;	/* config hosts sorted by name */
	pthread_mutex_t lock;
	bool loads_stale;	/* allocation loads to recompute */
	uint64_t changes;	/* acknowledged since the last compaction */
	time_t (*now)(time_t *);
	struct poold_commit *commit;
	struct sm_server *srv;
	struct poold_queue *queue;	/* owned */
	json_object *events;	/* the queue's, published once durable */
	struct poold_opstat opstat[POOLD_NOPS];	/* server thread */
	/* under lock: the view's time and the refreshes failed since */
	time_t view_at;
	unsigned int refresh_failed;	/* in a row; 0 after a success */
	time_t refresh_err_at;		/* the last failure's, 0: none yet */
	char refresh_err[256];
	/* allocations marked lost since start (lock): hosts, HCAs gone */
	uint64_t lost;
	struct poold_metrics *metrics;	/* GET /metrics, set by the caller */
};

/* The name of operation i < POOLD_NOPS. */
const char *poold_op_name(size_t i);

/*
 * Build the host tree and find every configured HCA in the view (one
 * log line per HCA it lacks), charge the replayed allocations and post
 * the job table to the relay.
 */
int poold_init(struct poold *d, const struct pool_config *cfg,
	       struct pool *pool, struct pool_view *view,
	       struct poold_fanout *relay, char *err, size_t len);
void poold_release(struct poold *d);

/*
 * Replace the view (a new discovery): HCAs found again, the host tree
 * rebuilt, allocation loads charged on the new paths.  *old is the view
 * to free: the previous one, or view itself when it was refused.
 */
int poold_swap_view(struct poold *d, struct pool_view *view,
		    struct pool_view **old, char *err, size_t len);

/*
 * A fabric refresh failed with err, the view kept: counted and kept
 * for pool.status and the metrics; msg says how old the kept view is
 * ("the view of 2026-12-05T20:31:02Z, 312 s old, 46 refreshes failed
 * in a row").
 */
void poold_refresh_failed(struct poold *d, const char *err, char *msg,
			  size_t len);

/* t as "2026-12-05T20:31:02Z" into buf (21 bytes hold it). */
void poold_iso_time(time_t t, char *buf, size_t len);

/*
 * The sm_handler_fn of the pool socket; ctx is the struct poold.  No
 * reply is sent before the journal holds every change it may reflect:
 * one built while changes were written but not yet durable is deferred
 * (SM_DEFERRED) to the commit thread, reads included.
 */
int poold_handle(void *ctx, const struct sm_peer *p, json_object *req,
		 json_object **reply);

/*
 * Timer work at now: expire leases (an "expired" event each), let the
 * queue decide, and compact the journal after
 * POOLD_COMPACT_RECORDS changes (always when force).  Returns 0 or the
 * compaction's negative errno (logged).
 */
int poold_tick(struct poold *d, bool force);

#endif
