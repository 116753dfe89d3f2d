/* SPDX-License-Identifier: MIT */
/*
 * The switch graph the recognisers share: switches with a switch link,
 * each with its distinct switch neighbours in ascending order (CSR), and
 * a union-find over plain indices.
 */
#ifndef GPUAWARE_SWGRAPH_H
#define GPUAWARE_SWGRAPH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "fabric.h"

/* Arrays owned; see swg_release(). */
struct swg {
	uint32_t n;		/* switches with a switch link */
	uint32_t *node;		/* local -> fabric node */
	uint32_t *loc;		/* fabric node -> local, FAB_NONE */
	uint32_t *off;		/* n + 1 */
	uint32_t *nb;		/* neighbours, ascending per switch */
	uint16_t *hosts;	/* CA ports cabled to each switch */
	size_t isolated;	/* switches with no switch link */
	unsigned int par_max;	/* most parallel cables between two switches */
	unsigned int hosts_max;	/* most CA ports on one switch */
	unsigned int deg_max;	/* most distinct neighbours of one switch */
};

/* Build g from f's cabling.  Returns 0 or -ENOMEM. */
int swg_build(const struct fabric *f, struct swg *g);
void swg_release(struct swg *g);

/* Slot of v in u's neighbour list (an index into nb), or -1. */
long swg_slot(const struct swg *g, uint32_t u, uint32_t v);

static inline bool swg_adj(const struct swg *g, uint32_t u, uint32_t v)
{
	return swg_slot(g, u, v) >= 0;
}

/* Node description of local switch u, "?" when it has none. */
const char *swg_name(const struct fabric *f, const struct swg *g,
		     uint32_t u);

/* Union-find over uf[0..n-1], uf[i] = i initially; roots are smallest. */
/*
 * A recogniser's verdict that the fabric is not its shape: fmt into
 * reason, "not a <shape>: <reason>" into summary.  Returns 1, the
 * recognisers' "not this shape".  SWG_REFUSE() takes an info struct
 * with both arrays (tor_info, df_info).
 */
__attribute__((format(printf, 6, 7)))
int swg_refuse(char *reason, size_t rlen, char *summary, size_t slen,
	       const char *shape, const char *fmt, ...);
#define SWG_REFUSE(info, shape, ...)					\
	swg_refuse((info)->reason, sizeof((info)->reason), (info)->summary, \
		   sizeof((info)->summary), shape, __VA_ARGS__)

uint32_t swg_find(uint32_t *uf, uint32_t x);
void swg_union(uint32_t *uf, uint32_t a, uint32_t b);

#endif
