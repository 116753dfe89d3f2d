/* SPDX-License-Identifier: MIT */
/*
 * The least busiest-link load any routing of a fat-tree's all-to-all
 * could have over minimal up*-down* paths: the fractional
 * multicommodity-flow bound, to measure engines against.
 */
#ifndef GPUAWARE_A2ABOUND_H
#define GPUAWARE_A2ABOUND_H

#include <stdint.h>

#include "../../topology/fattreerec.h"

struct ab_result {
	double lower;		/* no routing's busiest link carries less */
	double upper;		/* a fractional routing reaching this exists */
	unsigned int iters;
	uint64_t pairs;		/* (source port, destination LID) counted */
	uint64_t unroutable;	/* pairs no minimal up*-down* path joins */
};

/*
 * Bound the all-to-all (every CA port to every CA LID of another port,
 * as the verifier's edge forwarding index counts it) on the directed
 * switch links of f, levelled by ft (ft->tree).  The flow problem is
 * solved by Frank-Wolfe on a smoothed maximum.  lower is the best of
 * the cuts (the links out of each leaf, pod, ... and the pairs that must
 * cross them) and of weak duality (routes times link prices over the
 * price sum); upper is the busiest link of the fractional flow found.
 * It stops when they are within gap (0.005 for half a percent) or after
 * max_iters.  Returns 0, -EINVAL when ft is no tree, or -ENOMEM.
 */
int ab_alltoall(const struct fabric *f, const struct ft_info *ft, double gap,
		unsigned int max_iters, struct ab_result *r);

#endif
