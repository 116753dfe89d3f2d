/* SPDX-License-Identifier: MIT */
/*
 * The torus engine's own state, which torus.c (the routes) and
 * answers.c (the SLs of the hosts' requests to switch LIDs) share.
 * Private to routing/torus/.
 */
#ifndef GPUAWARE_RT_TENG_H
#define GPUAWARE_RT_TENG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "../../topology/torusrec.h"
#include "../lft.h"

#define NSLOT (2 * TOR_MAX_DIMS)	/* (dimension, direction) per switch */
#define CVL 4			/* VLs the dependency graph tracks */
#define MAX_DATELINES 3		/* SL bits: datelines, then the layer */
#define NOSLOT 0xff

/* What path_sl and sl2vl read; owned by the tables (t->own_vl). */
struct tvl {
	struct rt_vl vl;
	unsigned int ndatelines;	/* dateline bits below the layer bit */
	unsigned int vl_per_layer;	/* 2 with datelines, else 1 */
	bool layer1;		/* some detour rides the second layer */
	unsigned int top;
	uint32_t nsw;
	uint32_t *lid_sw;	/* LID -> the switch that sends or delivers it */
	uint8_t *sl;		/* nsw x (top + 1): SL by (source switch, DLID) */
	/* nsw x 256: 1 + dateline bit of a port's ring */
	uint8_t *port_dateline;
	/* hosts' requests to switch LIDs not on sl's, by (slid, dlid) */
	struct tans *ans;
	size_t nans;
};

/* The SL a host LID's requests to a switch LID and the answers ride. */
struct tans {
	uint32_t slid, dlid;
	uint8_t sl;
};

/* A pair dimension order cannot join, routed by shortest detour. */
struct det {
	uint32_t src, dst;
	unsigned int lid;	/* one DLID of dst of this class */
	uint8_t par;		/* the class */
};

struct eng {
	const struct tor_info *ti;
	struct rt_tables *t;
	struct tvl *tv;
	unsigned int nd;
	int dateline[TOR_MAX_DIMS];	/* per dimension: its bit, -1 none */
	uint8_t dateline_dim[MAX_DATELINES];	/* per bit: its dimension */
	/* per destination, by dimension and coordinate: see dest_tables() */
	uint8_t dir[TOR_MAX_DIMS][256], wb[TOR_MAX_DIMS][256];
	uint8_t *coord;		/* nsw x TOR_MAX_DIMS */
	uint32_t *next_sw;	/* nsw x NSLOT: next switch, FAB_NONE */
	uint8_t *npar;		/* nsw x NSLOT: parallel cables */
	uint8_t *port;		/* nsw x NSLOT x par */
	unsigned int par;
	uint8_t *pslot;		/* nsw x 256: slot of a port */
	bool *whole;		/* nsw x TOR_MAX_DIMS: the switch's line is intact */
	uint32_t *loff, *lids;	/* LIDs by delivering switch */
	/* per entry of lids: its class and its parallel-cable key */
	uint8_t *lcls;
	uint32_t *lkey;
	unsigned int ties;	/* classes' bits that turn something */
	/* per destination */
	uint8_t *st, *hop;
	uint32_t *len, *lab, *qa, *qb;
	/* channel dependencies: (switch, slot, VL) -> (slot, VL) at the next */
	uint64_t *succ;
	uint32_t *seen, stamp, *stk;
	uint64_t *stkm;
	struct det *det;
	size_t ndet, cap, layer1;
	unsigned int maxvl;
	size_t ans_cap;
	bool unanswered;
	bool overflow;		/* the pairs need more VLs than there are */
	bool few_vls;		/* more than the SM can program (fab->vls) */
};

static inline uint8_t *co(const struct eng *e, uint32_t s)
{
	return e->coord + (size_t)s * TOR_MAX_DIMS;
}

static inline uint32_t *nbr(const struct eng *e, uint32_t s)
{
	return e->next_sw + (size_t)s * NSLOT;
}

static inline unsigned int vl_for(const struct tvl *tv, unsigned int k,
			   unsigned int sl)
{
	unsigned int vl = tv->layer1 ?
			  (sl >> tv->ndatelines & 1) * tv->vl_per_layer : 0;

	return k ? vl + (sl >> (k - 1) & 1) : vl;
}

static inline uint64_t *succ(const struct eng *e, uint32_t s, unsigned int k,
		      unsigned int vl)
{
	return &e->succ[((size_t)s * NSLOT + k) * CVL + vl];
}

/* Dependencies a route added, to take back when a later one fails. */
#define UNDO_MAX 128
struct undo {
	uint64_t *m[UNDO_MAX], b[UNDO_MAX];
	unsigned int n;
};

/* Take back what u logged. */
void rt_torus_undo(struct undo *u);

/*
 * Add the dependencies of the route src -> dst that DLID lid takes, on
 * SL sl, logging each in u, unless one would close a cycle: then return
 * false (the caller takes back what u holds).
 */
bool rt_torus_walk(struct eng *e, uint32_t src, uint32_t dst,
		   unsigned int lid, unsigned int sl, struct undo *u);

/* struct tans by (slid, dlid), for qsort() and bsearch(). */
int rt_torus_ans_cmp(const void *a, const void *b);

/*
 * SLs for the hosts' requests to switch LIDs whose answers the routes'
 * own SLs would not keep loop-free (tv->ans, sorted), after the
 * detours are placed; e->unanswered when none were found.  Returns 0
 * or -ENOMEM.
 */
int rt_torus_answers(struct eng *e);

#endif
