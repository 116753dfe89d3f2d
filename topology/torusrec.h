/* SPDX-License-Identifier: MIT */
/*
 * Torus and mesh recogniser: finds the dimensions from the cabling alone
 * (no seed file) and gives every switch its coordinates.  It says what it
 * found, or why the fabric is no torus.
 */
#ifndef GPUAWARE_TORUSREC_H
#define GPUAWARE_TORUSREC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "fabric.h"

/*
 * Routing dimensions.  A 4-ring is the product of two 2-rings, and no
 * cabling can tell them apart, so a 4x4x4 torus has six radix-2
 * dimensions here (and is shown as 4x4x4).
 */
#define TOR_MAX_DIMS 8

struct tor_info {
	bool torus;		/* a torus or mesh was found */
	char reason[256];	/* why not, when !torus */
	unsigned int ndims;
	unsigned int radix[TOR_MAX_DIMS];
	bool wrap[TOR_MAX_DIMS];	/* ring, else line */
	/*
	 * Per fabric node, its coordinates: coord[n * TOR_MAX_DIMS + d].
	 * Only placed switches have them (placed[n]).  Both owned; see
	 * tor_info_release().
	 */
	uint8_t *coord;
	bool *placed;
	size_t nplaced;
	size_t isolated;	/* switches with no switch link (ignored) */
	size_t missing_sw;	/* grid positions without a switch */
	size_t missing_links;	/* neighbour positions both present, unlinked */
	unsigned int par_max;	/* most parallel cables between two switches */
	unsigned int hosts_max;	/* most CA ports on one switch */
	char shape[64];		/* as a user names it: "4x4x4 torus" */
	char summary[512];
};

/*
 * Classify f.  Returns 0 (ti->torus says whether it is one) or a
 * negative errno; release ti with tor_info_release() either way.
 */
int tor_recognise(const struct fabric *f, struct tor_info *ti);
void tor_info_release(struct tor_info *ti);

static inline const uint8_t *tor_coord(const struct tor_info *ti,
				       uint32_t n)
{
	return ti->coord + (size_t)n * TOR_MAX_DIMS;
}

/*
 * The dimensions a user sees (the shape's): the recogniser's radix-2
 * lines paired into 4-rings as the shape names them, largest first.
 */
struct tor_vdim {
	unsigned int radix;
	bool wrap;
	unsigned int d0, d1;	/* the recogniser's dimensions: d0 == d1, or
				 * the two lines of a 4-ring */
};

struct tor_view {
	unsigned int ndims;
	struct tor_vdim dim[TOR_MAX_DIMS];
};

void tor_view(const struct tor_info *ti, struct tor_view *v);

/* Placed switch n's coordinate in the view's dimension vd. */
unsigned int tor_view_coord(const struct tor_info *ti,
			    const struct tor_vdim *vd, uint32_t n);

#endif
