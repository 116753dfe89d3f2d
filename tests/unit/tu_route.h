/* SPDX-License-Identifier: MIT */
/* Routing helpers the unit suites share. */
#ifndef GPUAWARE_TU_ROUTE_H
#define GPUAWARE_TU_ROUTE_H

#include <stdbool.h>
#include <stdint.h>

#include "routing/lft.h"

/*
 * Follow t from switch index sw towards lid: true when it arrives at the
 * owning port (port 0 of a switch LID's switch), false on a hole, a wrong
 * delivery or a loop.
 */
bool tu_reaches(const struct rt_tables *t, uint32_t sw, unsigned int lid);

#endif
