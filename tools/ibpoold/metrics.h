/* SPDX-License-Identifier: MIT */
/*
 * ibpoold's metrics in Prometheus' text format, served on the TCP
 * listener as GET /metrics (sm/server.h): the pool, the relay, the
 * journal's syncs, the requests per operation and the link loads.
 */
#ifndef GPUAWARE_POOL_METRICS_H
#define GPUAWARE_POOL_METRICS_H

#include <stddef.h>
#include <stdint.h>

/*
 * A scrape is answered from the last rendering when it began less than
 * this long ago and the pool has not changed since; else it waits for
 * the next, which the metrics thread begins after it came.
 */
#define POOLD_METRICS_MAX_AGE_MS 1000

struct poold;
struct poold_metrics;

/*
 * Start the thread rendering d's page for the scrapes (d->srv answers
 * them, set before the first).  Returns 0 with *out set, or -errno.
 */
int poold_metrics_start(struct poold *d, struct poold_metrics **out);

/*
 * Join the thread (scrapes waiting stay unanswered; later ones get 500);
 * before sm_server_stop(), since it answers through the server.  Once
 * stopped, a call more does nothing.
 */
void poold_metrics_stop(struct poold_metrics *m);

/* Free m, after sm_server_stop().  NULL is fine. */
void poold_metrics_free(struct poold_metrics *m);

/*
 * The sm_server_config http callback; ctx is the struct poold.  GET
 * /metrics gives the page (from d->metrics' last rendering, or deferred
 * to the next; rendered here without d->metrics), other paths -ENOENT.
 * Takes the pool's lock only to read its change count.
 */
int poold_metrics_http(void *ctx, uint64_t ticket, const char *path,
		       char **body, size_t *len);

#endif
