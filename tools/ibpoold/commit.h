/* SPDX-License-Identifier: MIT */
/*
 * ibpoold's group commit: replies that must wait for the journal queue
 * here, and one thread makes the journal durable for all of them with
 * one fdatasync, then posts them to the server (sm_server_answer).
 */
#ifndef GPUAWARE_POOL_COMMIT_H
#define GPUAWARE_POOL_COMMIT_H

#include <stdint.h>

#include <json-c/json.h>

#include "sm/server.h"
#include "tools/lib/pool/pool.h"

struct poold_commit;

/*
 * Start the commit thread on pool (borrowed, in group commit mode).
 * When a sync fails, every reply of its batch becomes an internal error
 * and fail(ctx, msg) is called once, on that thread: the journal is
 * broken, so every later batch fails too.
 */
int poold_commit_start(struct pool *pool,
		       void (*fail)(void *ctx, const char *msg), void *ctx,
		       struct poold_commit **out);

/*
 * Queue reply (consumed on success) to the deferred request ticket of
 * srv, to be posted once every change written so far is durable.
 * -ESHUTDOWN once stopping, -ENOMEM: reply is the caller's again.
 */
int poold_commit_queue(struct poold_commit *c, struct sm_server *srv,
		       uint64_t ticket, json_object *reply);

/* Sync and post what is queued, then end the thread; queue is refused. */
void poold_commit_stop(struct poold_commit *c);

void poold_commit_free(struct poold_commit *c);

#endif
