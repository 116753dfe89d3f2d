/* SPDX-License-Identifier: MIT */
/* Routing helpers the unit suites share. */
#ifndef GPUAWARE_TU_ROUTE_H
#define GPUAWARE_TU_ROUTE_H

#include <stdbool.h>
#include <stdint.h>

#include "routing/jobs.h"
#include "routing/lft.h"
#include "routing/route.h"
#include "routing/verify.h"
#include "topology/fabric.h"

/*
 * Follow t from switch index sw towards lid: true when it arrives at the
 * owning port (port 0 of a switch LID's switch), false on a hole, a wrong
 * delivery or a loop.
 */
bool tu_reaches(const struct rt_tables *t, uint32_t sw, unsigned int lid);

/*
 * A k-ary n-tree with fraction drop of its switch cables removed (seeded)
 * and LIDs at LMC lmc; fails the test when it cannot be built.  The
 * caller frees it with fab_free().
 */
struct fabric *tu_tree(unsigned int k, unsigned int n, double drop,
		       uint64_t seed, unsigned int lmc);

/* A folded Clos of radix r switches, as ibtopogen fattree --radix makes. */
struct fabric *tu_radix_tree(unsigned int r, unsigned int levels);

/*
 * The same with fraction drop of its switch cables and switches of its
 * switches without hosts removed (seeded), as --drop and --drop-switches.
 */
struct fabric *tu_radix_degraded(unsigned int r, unsigned int levels,
				 double drop, unsigned int switches,
				 uint64_t seed);

/* A rail-optimized tree: 2 SUs of 8 hosts, 4 rails, 4 spines. */
struct fabric *tu_rail(void);

/*
 * f as another discovery could present it: nodes in a random order,
 * the switch GUIDs dealt out anew, every switch's port numbers permuted
 * and LIDs (CA ports at LMC lmc) assigned in a random order; names,
 * cables and host GUIDs stay.  The caller frees it with fab_free().
 */
struct fabric *tu_shuffled(const struct fabric *f, uint64_t seed,
			   unsigned int lmc);

#define TU_MAX_JOBS 16
#define TU_NAME_LEN 64

/*
 * A seeded job mix: the hosts shuffled (each job's host list in that
 * order, not the fabric's), cut into jobs of random sizes that take
 * busy percent of them.  tu_mix_free() releases it.
 */
struct tu_mix {
	char (*name)[TU_NAME_LEN];	/* distinct host names, node order */
	const char **host;	/* into name, in placement order */
	size_t nhost;
	char id[TU_MAX_JOBS][16];
	struct rt_job_spec spec[TU_MAX_JOBS];
	unsigned int njobs;
};

void tu_mix_make(struct tu_mix *m, const struct fabric *f,
		 unsigned int njobs, uint64_t seed, unsigned int busy);
void tu_mix_free(struct tu_mix *m);

/* The job set of m for f; fails the test when it cannot be built. */
void tu_mix_jobs(const struct tu_mix *m, const struct fabric *f,
		 struct rt_jobs *js);

/*
 * The first CA whose host name is name, and its port 1's GUID as
 * "0x" and 16 digits in guid (24 bytes) unless guid is NULL; fails the
 * test when there is none.
 */
uint32_t tu_ca_named(const struct fabric *f, const char *name, char *guid);

/* Route f with id, verify, and hand back the report; tables released. */
int tu_route_check(struct fabric *f, enum rt_engine_id id, struct vf_report *r,
		   struct rt_summary *s);

/*
 * Route f and three reshuffles of it (tu_shuffled: node order, switch
 * GUIDs, port numbers, LIDs): the same engine, every pair delivered
 * without a credit loop, the worst class's max/mean at most a fraction
 * tol above f's, and the same eBB but for sampling (400 permutations).
 */
void tu_shuffled_like(const struct fabric *f, enum rt_engine_id id,
		      unsigned int lmc, double tol, const char *what);

#endif
