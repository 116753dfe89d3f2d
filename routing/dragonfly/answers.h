/* SPDX-License-Identifier: MIT */
/*
 * The hosts' requests to switch LIDs and the switches' answers, which
 * ride the request's SL, on SLs and VLs of their own above the data's.
 */
#ifndef GPUAWARE_RT_DF_ANSWERS_H
#define GPUAWARE_RT_DF_ANSWERS_H

#include <stdbool.h>
#include <stdint.h>

#include "../lft.h"

#define DFA_NONE 0xff
#define DFA_NSL 16
/* VLs of the ports the layers may fill: VL 0-7, what most HCAs and
 * switches run; the plugin refuses a routing the ports cannot carry */
#define DFA_MAX_VL 8

/*
 * Where each (CA LID, switch) pair's request and answer go.  Owned by
 * the caller's struct; dfa_release() frees sl.
 */
struct dfa {
	uint32_t nsw;
	unsigned int top;
	/* (top + 1) x nsw: the SL of CA LID a's request to switch s at
	 * a * nsw + s; NULL until placed */
	uint8_t *sl;
	/* per SL: the VL of its hops, DFA_NONE; split: the next VL for
	 * hops that arrive on a global cable (up in dfa_place()) */
	uint8_t vl[DFA_NSL];
	bool split[DFA_NSL];
	unsigned int nsl, nvl;	/* SLs and VLs the pairs take */
	unsigned int base;	/* the first of those VLs */
	bool turns;		/* dfa_upper()'s */
};

/*
 * Each pair of a CA LID and a switch LID of t in turn on the first of
 * the SLs not in used (bit per SL) whose layer its request's and
 * answer's routes do not close a cycle in; a new layer when none takes
 * it, while an SL is free and a VL below DFA_MAX_VL and t->fab->vls
 * (when known).  The layers' VLs
 * count from base; a layer takes two where two are left, the upper one
 * for the hops dfa_upper() says, by the kind (DFA_LOCAL ...) of each
 * fabric port (indexed as t->fab->ports), turns on, else off.  0 (a
 * filled), -ERANGE when a pair finds no layer (a left empty), or
 * -ENOMEM.
 */
int dfa_place(struct dfa *a, const struct rt_tables *t, uint16_t used,
	      unsigned int base, const uint8_t *kind);

enum { DFA_OTHER, DFA_LOCAL, DFA_GLOBAL };

/*
 * Whether a hop from a port of kind in to one of kind out takes a split
 * layer's upper VL: after a global hop, and with turns on a turn from
 * one local cable to another (a Dragonfly+ leaf's down and up).
 */
static inline bool dfa_upper(const struct dfa *a, uint8_t in, uint8_t out)
{
	return in == DFA_GLOBAL ||
	       (a->turns && in == DFA_LOCAL && out == DFA_LOCAL);
}

/* The SL of CA LID ca's request to switch sw, DFA_NONE when not placed. */
static inline uint8_t dfa_sl(const struct dfa *a, unsigned int ca,
			     uint32_t sw)
{
	if (!a->sl || ca > a->top || sw >= a->nsw)
		return DFA_NONE;
	return a->sl[(size_t)ca * a->nsw + sw];
}

/* The VL of every hop on an SL of a's, DFA_NONE for the others. */
static inline uint8_t dfa_vl(const struct dfa *a, unsigned int sl)
{
	return a->sl && sl < DFA_NSL ? a->vl[sl] : DFA_NONE;
}

void dfa_release(struct dfa *a);

#endif
