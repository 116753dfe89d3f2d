/* SPDX-License-Identifier: MIT */
/*
 * Run times predicted from history: what finished jobs of the same user,
 * name and size ran for (Helios' QSSF), most specific match first.
 */
#ifndef GPUAWARE_POOL_PREDICT_H
#define GPUAWARE_POOL_PREDICT_H

#include <stdbool.h>
#include <stdint.h>

/* What a prediction is keyed on; name borrowed, NULL as "". */
struct prd_job {
	uint32_t user;
	uint64_t milli;		/* the job's size, milli-GPUs */
	const char *name;
	double limit;		/* the user's time limit, 0: none */
};

struct prd;

/* An empty history: 0 with *out, or -ENOMEM; prd_free() releases it. */
int prd_new(struct prd **out);
void prd_free(struct prd *p);

/*
 * j ran for runtime s: 0, or -ENOMEM (the sample is dropped, the
 * history stays as it was).
 */
int prd_learn(struct prd *p, const struct prd_job *j, double runtime);

/*
 * j's run time, s: the geometric mean of its user, name and size's
 * history, else its user and size's, else its user's; without any, its
 * limit, else every job's, else an hour.  *hist (may be NULL): whether
 * a history of the user's gave it.
 */
double prd_predict(const struct prd *p, const struct prd_job *j, bool *hist);

#endif
