// SPDX-License-Identifier: MIT
/*
 * The dragonfly's SL and VL tables: the SL of each path and the VL of
 * each hop, by port class, Valiant class and the ways round's entries.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "deng.h"

uint8_t dfv_path_sl(const struct rt_tables *t, unsigned int slid,
		    unsigned int dlid)
{
	const struct dvl *dv = dvl_of(t);
	uint32_t s;

	if (slid > dv->top || dlid > dv->top)
		return 0;
	s = dv->lid_sw[slid];
	if (s != NONE && dv->lid_sw[dlid] != NONE && dv->is_sw[dlid] &&
	    !dv->is_sw[slid]) {
		uint8_t q = dfa_sl(&dv->ans, slid, dv->lid_sw[dlid]);

		if (q != DFA_NONE)
			return q;
	}
	/* a host's request to a switch: the SL the answer comes back on */
	if (dv->answer_sl && s != NONE && dv->lid_sw[dlid] != NONE &&
	    dv->is_sw[dlid] && !dv->is_sw[slid])
		return dv->sl[(size_t)dv->lid_sw[dlid] * (dv->top + 1) + slid];
	return s == NONE ? 0 : dv->sl[(size_t)s * (dv->top + 1) + dlid];
}

/* The slot holding k, or the empty one where it would go. */
static size_t ovr_slot(const struct ovr *o, uint64_t k)
{
	size_t i = (k * 0x9e3779b97f4a7c15ull) & (o->cap - 1);

	while (o->key[i] && o->key[i] != k)
		i = (i + 1) & (o->cap - 1);
	return i;
}

/* The VL stored for k, or -1. */
int dfv_ovr_get(const struct ovr *o, uint64_t k)
{
	size_t i;

	if (!o->cap)
		return -1;
	i = ovr_slot(o, k);
	return o->key[i] ? o->vl[i] : -1;
}

static int ovr_grow(struct ovr *o)
{
	struct ovr n = { .cap = o->cap ? 2 * o->cap : 1024 };
	size_t i, j;

	n.key = calloc(n.cap, sizeof(*n.key));
	n.vl = malloc(n.cap);
	if (!n.key || !n.vl) {
		free(n.key);
		free(n.vl);
		return -ENOMEM;
	}
	for (i = 0; i < o->cap; i++)
		if (o->key[i]) {
			j = ovr_slot(&n, o->key[i]);
			n.key[j] = o->key[i];
			n.vl[j] = o->vl[i];
			n.n++;
		}
	free(o->key);
	free(o->vl);
	*o = n;
	return 0;
}

/* *to, a copy of o, to put back; empty when it fails. */
int dfv_ovr_copy(struct ovr *to, const struct ovr *o)
{
	*to = (struct ovr){ .cap = o->cap, .n = o->n };
	if (!o->cap)
		return 0;
	to->key = malloc(o->cap * sizeof(*to->key));
	to->vl = malloc(o->cap);
	if (!to->key || !to->vl) {
		free(to->key);
		free(to->vl);
		/* the callers free *to on their way out */
		*to = (struct ovr){ 0 };
		return -ENOMEM;
	}
	memcpy(to->key, o->key, o->cap * sizeof(*to->key));
	memcpy(to->vl, o->vl, o->cap);
	return 0;
}

int dfv_ovr_put(struct ovr *o, uint64_t k, uint8_t vl)
{
	size_t i;
	int ret;

	if (2 * (o->n + 1) > o->cap) {
		ret = ovr_grow(o);
		if (ret)
			return ret;
	}
	i = ovr_slot(o, k);
	if (!o->key[i]) {
		o->key[i] = k;
		o->n++;
	}
	o->vl[i] = vl;
	return 0;
}

/* The VL of a hop on Valiant class c's SL (see the top of dragonfly.c). */
static uint8_t val_vl(const struct dvl *dv, uint32_t sw, unsigned int in,
		      unsigned int out, unsigned int c)
{
	const uint8_t *k = dv->cls + (size_t)sw * 256;
	const uint32_t *far = dv->far + (size_t)sw * 256;
	uint32_t X = dv->group[sw], d = dv->delta[c];

	if (X == NONE || c >= dv->nval)
		return 0;
	if (k[in] == CLS_GLOBAL)
		return far[in] == (X + d) % dv->ngroups ? 2 : 1;
	if (k[in] != CLS_LOCAL)
		return 0;
	if (k[out] == CLS_CA)
		return 2;
	if (k[out] == CLS_GLOBAL)
		return far[out] == (X + dv->ngroups - d) % dv->ngroups;
	return 1;
}

/* The VL of a hop from in to out of switch sw on SL sl. */
uint8_t dfv_hop_vl(const struct dvl *dv, uint32_t sw, unsigned int in,
		   unsigned int out, unsigned int sl)
{
	int vl;

	if (sl >= SL_AROUND) {
		vl = dfv_ovr_get(&dv->ov, ovr_key(sw, sl, in, out));
		if (vl >= 0)
			return vl;
	}
	if (sl >= SL_VAL)
		return val_vl(dv, sw, in, out, sl - SL_VAL);
	return vl_for(dv->cls[(size_t)sw * 256 + in], sl, dv->top_vl);
}

uint8_t dfv_sl2vl(const struct rt_tables *t, uint32_t sw,
		  unsigned int in, unsigned int out, unsigned int sl)
{
	const struct dvl *dv = dvl_of(t);
	uint8_t vl = dfa_vl(&dv->ans, sl);
	const uint8_t *k;

	if (sw >= dv->nsw || in > 255 || out > 255 || sl > SL_MAX)
		/* on an answers' SL the CA ports too send on its VL */
		return vl != DFA_NONE ? vl : 0;
	if (vl == DFA_NONE)
		return dfv_hop_vl(dv, sw, in, out, sl);
	k = dv->cls + (size_t)sw * 256;
	return vl + (dv->ans.split[sl] &&
		     dfa_upper(&dv->ans, kind(k[in]), kind(k[out])));
}

void dfv_release(struct rt_vl *vl)
{
	struct dvl *dv = vl->ctx;

	free(dv->group);
	free(dv->far);
	free(dv->lid_sw);
	free(dv->is_sw);
	free(dv->sl);
	free(dv->cls);
	free(dv->ov.key);
	free(dv->ov.vl);
	dfa_release(&dv->ans);
	free(dv);
}
