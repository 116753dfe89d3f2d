/* SPDX-License-Identifier: MIT */
/*
 * A latency histogram any thread adds to: the pool's journal syncs and
 * the daemon's requests per operation, read by the /metrics page.
 */
#ifndef GPUAWARE_POOL_HIST_H
#define GPUAWARE_POOL_HIST_H

#include <pthread.h>
#include <stdint.h>

#define POOL_HIST_BUCKETS 14

/* Bucket upper bounds in seconds, the last finite one included. */
extern const double pool_hist_le[POOL_HIST_BUCKETS];

/* A latency histogram; its lock lets any thread add to it. */
struct pool_hist {
	pthread_mutex_t lock;
	uint64_t bucket[POOL_HIST_BUCKETS];	/* not cumulative */
	uint64_t count;
	double sum;
};

void pool_hist_init(struct pool_hist *h);
void pool_hist_destroy(struct pool_hist *h);
void pool_hist_add(struct pool_hist *h, double seconds);
/* The counts and sum of h into out (whose lock is left alone). */
void pool_hist_copy(struct pool_hist *h, struct pool_hist *out);

#endif
