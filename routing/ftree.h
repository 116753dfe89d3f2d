/* SPDX-License-Identifier: MIT */
/*
 * The fat-tree engine: up/down routing over the recogniser's levels,
 * balanced d-mod-k style where the tree is intact and by load where not.
 */
#ifndef GPUAWARE_FTREE_H
#define GPUAWARE_FTREE_H

#include "../topology/fattree.h"
#include "lft.h"

/*
 * Fill t (initialised for f, local entries set) for the tree ft.
 * Returns 0 or a negative errno.  Deadlock-free on one VL: every route
 * climbs, then descends.
 */
int rt_fattree(const struct fabric *f, const struct ft_info *ft,
	       struct rt_tables *t);

#endif
