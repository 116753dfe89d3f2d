// SPDX-License-Identifier: MIT
/*
 * The dragonfly's routes walked hop by hop, and the SLs of the ways
 * round whose entries (struct ovr) say each hop's VL.
 */
#include <errno.h>

#include "deng.h"

/* The peer switch on port p of s, NONE for hosts and free ports. */
uint32_t dfp_peer_sw(const struct eng *e, uint32_t s, unsigned int p)
{
	const struct fabric *f = e->t->fab;
	const struct fab_port *fp = fab_port(f, e->t->sw_node[s], p);

	if (fp->peer == FAB_NONE || !fab_is_sw(f, fp->peer))
		return NONE;
	return e->t->node_sw[fp->peer];
}

/* -EHOSTUNREACH at a hole, -ELOOP when it does not arrive in MAX_HOPS. */
int dfp_trace(const struct eng *e, uint32_t src, unsigned int lid,
	      uint32_t T, struct route *r)
{
	const struct fabric *f = e->t->fab;
	unsigned int p, in = 0;
	uint32_t s = src;

	for (r->hops = 0; s != T; r->hops++) {
		p = rt_lft(e->t, s)[lid];
		if (p == RT_NO_PATH)
			return -EHOSTUNREACH;
		if (r->hops == MAX_HOPS)
			return -ELOOP;
		r->sw[r->hops] = s;
		r->in[r->hops] = in;
		r->out[r->hops] = p;
		r->cls[r->hops] = cls(e, s, p);
		in = fab_port(f, e->t->sw_node[s], p)->peer_port;
		s = dfp_peer_sw(e, s, p);
		if (s == NONE)
			return -ELOOP;
	}
	return 0;
}

/*
 * The VL hop i of a way round needs: 0 up to the first global hop, 1 up
 * to the second, top_vl after it.
 */
unsigned int dfp_around_vl(const struct route *r, unsigned int i,
			   unsigned int top)
{
	unsigned int j, g = 0;

	for (j = 0; j < i; j++)
		g += r->cls[j] == CLS_GLOBAL;
	return g < 2 ? g : top;
}

/* Whether r's entries on SL sl agree with what its hops need. */
static bool fits_around(const struct eng *e, const struct route *r,
			unsigned int top, unsigned int sl)
{
	unsigned int i;
	int have;

	for (i = 0; i < r->hops; i++) {
		if (!r->in[i])
			continue;
		have = dfv_ovr_get(&e->dv->ov, ovr_key(r->sw[i], sl, r->in[i],
						       r->out[i]));
		if (have >= 0 && (unsigned int)have != dfp_around_vl(r, i, top))
			return false;
	}
	return true;
}

/*
 * The SLs past the last that takes entries: the Valiant classes' take
 * them too while no route rides one (no LMC LID routed through a third
 * group).
 */
unsigned int dfp_sl_end(const struct eng *e)
{
	return e->vroutes ? SL_VAL : SL_MAX + 1;
}

/* The entries of the n routes rs on SL sl, which fits_around() each. */
static int put_routes(struct eng *e, const struct route *const *rs,
		      unsigned int n, unsigned int top, unsigned int sl)
{
	unsigned int i, k;
	int ret;

	for (k = 0; k < n; k++)
		for (i = 0; i < rs[k]->hops; i++) {
			if (!rs[k]->in[i])
				continue;
			ret = dfv_ovr_put(&e->dv->ov, ovr_key(rs[k]->sw[i], sl,
							      rs[k]->in[i],
							      rs[k]->out[i]),
					  dfp_around_vl(rs[k], i, top));
			if (ret)
				return ret;
		}
	return 0;
}

/*
 * The first SL from SL_AROUND below end on whose entries agree with the
 * needs of the n routes rs, which all ride it, and their entries added
 * to it.  -ERANGE when every SL clashes.
 */
int dfp_place_routes(struct eng *e, const struct route *const *rs,
		     unsigned int n, unsigned int top, unsigned int end,
		     unsigned int *slp)
{
	unsigned int sl, k;

	for (sl = SL_AROUND; sl < end; sl++) {
		for (k = 0; k < n && fits_around(e, rs[k], top, sl); k++)
			;
		if (k < n)
			continue;
		*slp = sl;
		return put_routes(e, rs, n, top, sl);
	}
	return -ERANGE;
}

/*
 * Whether r rides SL sl on the VLs dfp_around_vl() gives it: VL 0 up to its
 * global hop, VL 1 after it.
 */
static bool follows(const struct eng *e, const struct route *r,
		    unsigned int sl, unsigned int top)
{
	unsigned int i;

	for (i = 0; i < r->hops; i++)
		if (r->in[i] && dfv_hop_vl(e->dv, r->sw[i], r->in[i], r->out[i],
					   sl) != dfp_around_vl(r, i, top))
			return false;
	return true;
}

/*
 * A host's request r to a switch and the switch's answer a, which ride
 * one SL: s, the answer's now, where a follows() it and r does too or
 * can with entries of its own there (what takes entries is fixed by
 * them); else one dfp_place_routes() finds for both.  *slp: the SL taken;
 * -ERANGE when none.
 */
int dfp_pair_place(struct eng *e, const struct route *r,
		   const struct route *a, unsigned int s, unsigned int top,
		   unsigned int *slp)
{
	const struct route *rs[2] = { r, a };
	bool ent = s >= SL_AROUND && s < dfp_sl_end(e);

	*slp = s;
	/* not past the VLs the routing has (a way round's answer) */
	if (a->hops && dfp_around_vl(a, a->hops - 1, top) > e->maxvl)
		return -ERANGE;
	if (follows(e, a, s, top) &&
	    (follows(e, r, s, top) || (ent && fits_around(e, r, top, s))))
		return ent ? put_routes(e, rs, 2, top, s) : 0;
	return dfp_place_routes(e, rs, 2, top, dfp_sl_end(e), slp);
}

int dfp_place_around(struct eng *e, const struct route *r,
		     unsigned int top, unsigned int *slp)
{
	return dfp_place_routes(e, &r, 1, top, SL_VAL, slp);
}

/*
 * The VLs r takes on SL sl where no entry says: made entries, so that no
 * entry placed later moves them.
 */
static int lock_route(struct eng *e, const struct route *r, unsigned int sl)
{
	unsigned int i;
	uint64_t k;
	int ret;

	if (sl < SL_AROUND || sl >= dfp_sl_end(e))
		return 0;
	for (i = 0; i < r->hops; i++) {
		k = ovr_key(r->sw[i], sl, r->in[i], r->out[i]);
		if (!r->in[i] || dfv_ovr_get(&e->dv->ov, k) >= 0)
			continue;
		ret = dfv_ovr_put(&e->dv->ov, k,
				  dfv_hop_vl(e->dv, r->sw[i], r->in[i],
					     r->out[i], sl));
		if (ret)
			return ret;
	}
	return 0;
}

/*
 * lock_route() for every switch's route to every LID, and for the hosts'
 * requests to switch LIDs on their answers' SLs: routes that ride a way
 * round's SL on its classes' VLs in part (a switch's own route through
 * hops no host's route passes, a request) keep them when turns_lid() or
 * answers_place() add entries there.
 */
int dfp_lock_all(struct eng *e)
{
	size_t w = e->t->top + 1;
	unsigned int lid, a;
	struct route r;
	uint32_t T, c, j;
	int ret = 0;

	for (lid = 1; !ret && lid <= e->t->top; lid++) {
		T = e->dv->lid_sw[lid];
		if (T == NONE || e->group[T] == NONE)
			continue;
		for (c = 0; !ret && c < e->nsw; c++) {
			if (c == T || e->group[c] == NONE ||
			    dfp_trace(e, c, lid, T, &r))
				continue;
			ret = lock_route(e, &r, e->dv->sl[c * w + lid]);
			for (j = e->loff[c]; !ret && e->hosted[c] &&
			     e->dv->is_sw[lid] && j < e->loff[c + 1]; j++) {
				a = e->lids[j];
				if (rt_lid_is_ca(e->t, a))
					ret = lock_route(e, &r,
							 e->dv->sl[T * w + a]);
			}
		}
	}
	return ret;
}
