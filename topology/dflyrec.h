/* SPDX-License-Identifier: MIT */
/*
 * Dragonfly recogniser: groups of densely cabled switches (all-to-all, or
 * leaf/spine blocks for Dragonfly+), local and global cables, hosts per
 * switch, and how the global cables join the groups.  It says what it
 * found, or why the fabric is no dragonfly.
 */
#ifndef GPUAWARE_DFLYREC_H
#define GPUAWARE_DFLYREC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "fabric.h"

#define DF_NONE UINT32_MAX

struct df_info {
	bool dragonfly;		/* a dragonfly or Dragonfly+ was found */
	bool plus;		/* Dragonfly+: leaf/spine groups */
	char reason[256];	/* why not, when !dragonfly */
	/*
	 * Per fabric node: its group (DF_NONE for CAs and switches with no
	 * switch link) and, per port, whether the cable on it is global
	 * (joins two groups).  Owned; see df_info_release().
	 */
	uint32_t *group;
	bool *global;		/* indexed like fabric.ports */
	bool *spine;		/* per node: a Dragonfly+ spine */
	uint32_t ngroups;	/* g */
	unsigned int a;		/* most switches in a group (leaves for D+) */
	unsigned int spines;	/* most spines in a group (D+), else 0 */
	unsigned int p;		/* most hosts (CA ports) on one switch */
	unsigned int h;		/* most global cables on one switch */
	/* global cables per pair of groups, over the pairs */
	unsigned int pair_min, pair_max;
	size_t unjoined;	/* group pairs with no global cable */
	/* local cables short of full groups (all-to-all, or every leaf to
	 * every spine of its group for Dragonfly+) */
	size_t missing_local;
	size_t isolated;	/* switches with no switch link (ignored) */
	char arrangement[64];	/* "canonical", "2 per group pair", ... */
	char summary[512];
};

/*
 * Classify f.  Returns 0 (di->dragonfly says whether it is one) or a
 * negative errno; release di with df_info_release() either way.
 */
int df_recognise(const struct fabric *f, struct df_info *di);
void df_info_release(struct df_info *di);

#endif
