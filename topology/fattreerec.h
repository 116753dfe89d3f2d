/* SPDX-License-Identifier: MIT */
/*
 * Fat-tree recogniser: levels from the hosts up, roles, rails, parallel and
 * missing links.  It says what it found, or why the fabric is no fat-tree.
 */
#ifndef GPUAWARE_FATTREEREC_H
#define GPUAWARE_FATTREEREC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "fabric.h"

#define FT_MAX_LEVELS 8
#define FT_NO_LEVEL 0xff	/* CAs, and switches with no switch link or host */

struct ft_info {
	bool tree;
	char reason[256];	/* why not, when !tree */
	/*
	 * Routing levels: leaves are level leaf_level (0 unless relevelled),
	 * every switch link joins adjacent levels.
	 */
	unsigned int nlevels;
	uint8_t *level;		/* per fabric node; owned, see ft_info_release */
	unsigned int leaf_level;
	unsigned int relevelled;	/* switches placed below their children */
	bool relevel_failed;	/* would need more than FT_MAX_LEVELS */
	/* by the levels seen from the hosts, before any relevelling: */
	unsigned int nsw_level[FT_MAX_LEVELS];
	unsigned int up_max[FT_MAX_LEVELS];	/* most up links of a switch */
	unsigned int par_max;	/* most parallel links between two switches */
	size_t missing_up;	/* up links short of up_max, summed */
	size_t isolated;	/* switches with no link at all (ignored) */
	unsigned int hosts;	/* linked CA ports */
	unsigned int hosts_max;	/* most CA ports on one leaf */
	unsigned int underpop;	/* leaves with fewer than hosts_max */
	unsigned int rails;	/* HCAs per host on a rail-optimized tree, else 0 */
	char summary[512];
};

/*
 * Classify f.  Returns 0 (ft->tree says whether it is one) or a negative
 * errno; release ft with ft_info_release() either way.
 */
int ft_recognise(const struct fabric *f, struct ft_info *ft);
void ft_info_release(struct ft_info *ft);

#endif
