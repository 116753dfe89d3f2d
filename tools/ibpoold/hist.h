/* SPDX-License-Identifier: MIT */
/*
 * A latency histogram any thread adds to: the pool's journal syncs and
 * the daemon's requests per operation, read by the /metrics page.
 */
#ifndef GPUAWARE_POOL_HIST_H
#define GPUAWARE_POOL_HIST_H

#include <pthread.h>
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

#endif
