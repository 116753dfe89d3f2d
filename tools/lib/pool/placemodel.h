/* SPDX-License-Identifier: MIT */
/*
 * Placement on the collectives model: of pool_place()'s candidates, the
 * one where the new job's collectives run fastest beside the running
 * jobs, none of whom it makes slower than the compact placement would.
 */
#ifndef GPUAWARE_POOL_PLACEMODEL_H
#define GPUAWARE_POOL_PLACEMODEL_H

#include <stdbool.h>
#include <stddef.h>

#include "place.h"
#include "routing/jobs.h"
#include "routing/lft.h"

/* Candidates scored at most. */
#define POOL_PLACE_CANDS 8

/*
 * The routing the jobs run on (t, of the fabric the tree was built
 * from) and the jobs running now (specs over host names; hosts the
 * fabric lacks are left out).  All borrowed.
 */
struct pool_model {
	const struct rt_tables *t;
	const struct rt_job_spec *running;
	size_t nrunning;
};

/* What the model made of a placement; both bandwidths fractions of line rate. */
struct pool_model_score {
	bool modelled;		/* scored: more than one candidate */
	bool compact;		/* the compact placement (pool_place()'s) won */
	unsigned int candidates;
	double ring, a2a;	/* the new job's, placed where chosen */
	double compact_ring, compact_a2a;	/* and where compact put it */
};

/*
 * As pool_place(), then each candidate of pool_place_cands() runs on the
 * collectives model (collsim.h, 64 all-to-all rounds) with the running
 * jobs: the new job's ring and all-to-all are summed, and a candidate
 * that makes any running job slower on either pattern than the compact
 * placement does is out.  The fastest for the new job is *out, the
 * compact one on ties.  A placement on one leaf, or a fabric the model
 * cannot run (no tables), is pool_place()'s unscored.  sc may be NULL.
 */
int pool_place_model(const struct pool *p, const struct pool_config *cfg,
		     const struct pool_tree *t, unsigned int ngpus,
		     unsigned int gpus_per_host, const double *load,
		     const struct pool_model *m, struct pool_placement *out,
		     struct pool_model_score *sc, char *err, size_t len);

#endif
