/* SPDX-License-Identifier: MIT */
/*
 * The generic engine: up*-down* over breadth-first ranks from a central
 * root per switch component.  Routes any fabric deadlock-free on one VL.
 */
#ifndef GPUAWARE_UPDOWN_H
#define GPUAWARE_UPDOWN_H

#include <stddef.h>

#include "lft.h"

/*
 * Fill t (initialised for f, local entries set).  detail receives a short
 * description (roots chosen).  Returns 0 or a negative errno.
 */
int rt_updown(const struct fabric *f, struct rt_tables *t, char *detail,
	      size_t len);

#endif
