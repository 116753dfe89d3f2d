// SPDX-License-Identifier: MIT
/* The latency histogram: buckets by upper bound, under one lock. */
#include <string.h>

#include "hist.h"

const double poold_hist_le[POOLD_HIST_BUCKETS] = {
	0.00005, 0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025,
	0.05, 0.1, 0.25, 0.5, 1,
};

void poold_hist_init(struct poold_hist *h)
{
	memset(h, 0, sizeof(*h));
	pthread_mutex_init(&h->lock, NULL);
}

void poold_hist_destroy(struct poold_hist *h)
{
	pthread_mutex_destroy(&h->lock);
}

void poold_hist_add(struct poold_hist *h, double seconds)
{
	size_t i;

	for (i = 0; i < POOLD_HIST_BUCKETS && seconds > poold_hist_le[i]; i++)
		;
	pthread_mutex_lock(&h->lock);
	if (i < POOLD_HIST_BUCKETS)
		h->bucket[i]++;
	h->count++;
	h->sum += seconds;
	pthread_mutex_unlock(&h->lock);
}

void poold_hist_copy(struct poold_hist *h, struct poold_hist *out)
{
	pthread_mutex_lock(&h->lock);
	memcpy(out->bucket, h->bucket, sizeof(out->bucket));
	out->count = h->count;
	out->sum = h->sum;
	pthread_mutex_unlock(&h->lock);
}
