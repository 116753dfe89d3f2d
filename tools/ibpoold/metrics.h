/* SPDX-License-Identifier: MIT */
/*
 * ibpoold's metrics in Prometheus' text format, served on the TCP
 * listener as GET /metrics (sm/server.h): the pool, the relay, the
 * journal's syncs, the requests per operation and the link loads.
 */
#ifndef GPUAWARE_POOL_METRICS_H
#define GPUAWARE_POOL_METRICS_H

#include <pthread.h>
#include <stddef.h>
#include <stdint.h>

#define POOLD_HIST_BUCKETS 14

/* Bucket upper bounds in seconds, the last finite one included. */
extern const double poold_hist_le[POOLD_HIST_BUCKETS];

/* A latency histogram; its lock lets any thread add to it. */
struct poold_hist {
	pthread_mutex_t lock;
	uint64_t bucket[POOLD_HIST_BUCKETS];	/* not cumulative */
	uint64_t count;
	double sum;
};

void poold_hist_init(struct poold_hist *h);
void poold_hist_destroy(struct poold_hist *h);
void poold_hist_add(struct poold_hist *h, double seconds);
/* The counts and sum of h into out (whose lock is left alone). */
void poold_hist_copy(struct poold_hist *h, struct poold_hist *out);

struct poold;

/*
 * The sm_server_config http callback; ctx is the struct poold.  GET
 * /metrics gives the page, other paths -ENOENT.  Takes the pool's lock
 * for the state it reads.
 */
int poold_metrics_http(void *ctx, const char *path, char **body,
		       size_t *len);

#endif
