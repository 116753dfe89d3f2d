// SPDX-License-Identifier: MIT
/* The latency histogram: buckets by upper bound, under one lock. */
#include <string.h>

#include "hist.h"

const double pool_hist_le[POOL_HIST_BUCKETS] = {
	0.00005, 0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025,
	0.05, 0.1, 0.25, 0.5, 1,
};

void pool_hist_init(struct pool_hist *h)
{
	memset(h, 0, sizeof(*h));
	pthread_mutex_init(&h->lock, NULL);
}

void pool_hist_destroy(struct pool_hist *h)
{
	pthread_mutex_destroy(&h->lock);
}

void pool_hist_add(struct pool_hist *h, double seconds)
{
	size_t i;

	for (i = 0; i < POOL_HIST_BUCKETS && seconds > pool_hist_le[i]; i++)
		;
	pthread_mutex_lock(&h->lock);
	if (i < POOL_HIST_BUCKETS)
		h->bucket[i]++;
	h->count++;
	h->sum += seconds;
	pthread_mutex_unlock(&h->lock);
}

void pool_hist_copy(struct pool_hist *h, struct pool_hist *out)
{
	pthread_mutex_lock(&h->lock);
	memcpy(out->bucket, h->bucket, sizeof(out->bucket));
	out->count = h->count;
	out->sum = h->sum;
	pthread_mutex_unlock(&h->lock);
}
