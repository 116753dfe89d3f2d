/* SPDX-License-Identifier: MIT */
/* Routing helpers the unit suites share. */
#ifndef GPUAWARE_TU_ROUTE_H
#define GPUAWARE_TU_ROUTE_H

#include <stdbool.h>
#include <stdint.h>

#include "routing/lft.h"
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

#endif
