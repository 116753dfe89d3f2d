// SPDX-License-Identifier: MIT
/*
 * Requests to switch LIDs and their answers in layers of their own: a
 * switch answers on the request's SL, so a pair's two routes share it,
 * and where the data's SLs cannot hold both without a credit loop each
 * pair takes an SL whose VLs nothing else rides: where two are left for
 * it, the upper one for a hop that arrived on a global cable, as the
 * data's minimal routes, and (tried first) for a turn from one local
 * cable to another, the lower one for the rest.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "../cdg.h"
#include "answers.h"

/* Links a route is followed for: past the engine's longest route (8) */
#define MAX_LINKS 64
/* greedy rounds, each with the pairs the last one left first */
#define ROUNDS 8

struct pair {
	uint32_t ca, lid;
};

struct layers {
	struct cdg g[DFA_NSL];
	unsigned int n, max;
	uint8_t sl[DFA_NSL];	/* layer -> its SL */
	bool split[DFA_NSL];	/* layer -> two VLs */
	const struct fabric *f;
	const uint8_t *kind;
	const struct dfa *a;
	/* per layer: the dependencies of the pair tried, nodes by link and
	 * the upper VL */
	uint32_t from[DFA_NSL][2 * MAX_LINKS], to[DFA_NSL][2 * MAX_LINKS];
};

/*
 * The node of link l[i] in layer k: on the upper VL where dfa_upper()
 * says so for the ports the hop came in and goes out by, as SL2VL does.
 */
static uint32_t node(const struct layers *y, unsigned int k,
		     const uint32_t *l, unsigned int i)
{
	const struct fab_port *in;
	bool hi = false;

	if (y->split[k] && i) {
		in = &y->f->ports[l[i - 1]];
		hi = dfa_upper(y->a, y->kind[y->f->nodes[in->peer].port0 +
				      in->peer_port], y->kind[l[i]]);
	}
	return 2 * l[i] + hi;
}

/* The dependencies between a route's consecutive links, appended. */
static size_t deps(struct layers *y, const uint32_t *l, unsigned int n,
		   size_t k)
{
	unsigned int i, m;

	for (i = 1; i < n; i++) {
		for (m = 0; m < y->max; m++) {
			y->from[m][k] = node(y, m, l, i - 1);
			y->to[m][k] = node(y, m, l, i);
		}
		k++;
	}
	return k;
}

/* The layer that takes the batch of k deps, opening one; or -ERANGE. */
static int take(struct layers *y, size_t k, uint32_t nn)
{
	unsigned int i;
	int ret;

	for (i = 0; i < y->max; i++) {
		if (i == y->n) {
			ret = cdg_init(&y->g[i], nn);
			y->n++;
			if (ret)
				return ret;
		}
		ret = cdg_add(&y->g[i], y->from[i], y->to[i], k, true);
		if (ret)
			return ret < 0 ? ret : (int)i;
	}
	return -ERANGE;
}

/* Request from ca's switch to switch LID lid, answer back to ca. */
static int place_pair(struct dfa *a, struct layers *y,
		      const struct rt_tables *t, unsigned int ca,
		      unsigned int lid)
{
	uint32_t req[MAX_LINKS], ans[MAX_LINKS], c = rt_lid_switch(t, ca);
	uint32_t s = rt_lid_switch(t, lid);
	unsigned int nr = 0, na;
	size_t k;
	int i;

	if (c != FAB_NONE)
		nr = rt_route_links(t, c, lid, req, MAX_LINKS);
	na = rt_route_links(t, s, ca, ans, MAX_LINKS);
	k = deps(y, req, nr, 0);
	k = deps(y, ans, na, k);
	i = take(y, k, 2 * (uint32_t)t->fab->nports);
	if (i < 0)
		return i;
	a->sl[(size_t)ca * a->nsw + s] = y->sl[i];
	return 0;
}

/* Every (CA LID, switch LID) pair into *out (owned by the caller). */
static int pairs(const struct rt_tables *t, struct pair **out, size_t *n)
{
	size_t nca = 0, nsl = 0, k = 0;
	unsigned int lid, ca;

	for (lid = 1; lid <= t->top; lid++) {
		if (rt_lid_is_ca(t, lid))
			nca++;
		else if (rt_lid_switch(t, lid) != FAB_NONE)
			nsl++;
	}
	*out = malloc((nca && nsl ? nca * nsl : 1) * sizeof(**out));
	if (!*out)
		return -ENOMEM;
	for (lid = 1; lid <= t->top; lid++) {
		if (rt_lid_is_ca(t, lid) || rt_lid_switch(t, lid) == FAB_NONE)
			continue;
		for (ca = 1; ca <= t->top; ca++)
			if (rt_lid_is_ca(t, ca))
				(*out)[k++] = (struct pair){ ca, lid };
	}
	*n = k;
	return 0;
}

static void layers_reset(struct layers *y)
{
	unsigned int i;

	for (i = 0; i < y->n; i++)
		cdg_release(&y->g[i]);
	y->n = 0;
}

/*
 * One greedy round over ps[0..n); the pairs no layer takes move to the
 * front, the others keep their order after them (tmp: n entries).
 * Returns how many no layer took, or -ENOMEM.
 */
static long place_round(struct dfa *a, struct layers *y,
			const struct rt_tables *t, struct pair *ps,
			struct pair *tmp, size_t n)
{
	size_t i, nf = 0, nk = 0;
	int ret;

	layers_reset(y);
	for (i = 0; i < n; i++) {
		ret = place_pair(a, y, t, ps[i].ca, ps[i].lid);
		if (ret && ret != -ERANGE)
			return ret;
		if (ret)
			ps[nf++] = ps[i];
		else
			tmp[nk++] = ps[i];
	}
	memcpy(ps + nf, tmp, nk * sizeof(*ps));
	return (long)nf;
}

static int place_all(struct dfa *a, struct layers *y,
		     const struct rt_tables *t)
{
	struct pair *ps, *tmp = NULL;
	unsigned int r;
	long left = -ENOMEM;
	size_t n;

	if (pairs(t, &ps, &n))
		return -ENOMEM;
	tmp = malloc((n ? n : 1) * sizeof(*tmp));
	for (r = 0; tmp && r < ROUNDS; r++) {
		left = place_round(a, y, t, ps, tmp, n);
		if (left <= 0)
			break;
	}
	free(tmp);
	free(ps);
	return left > 0 ? -ERANGE : (int)left;
}

static int place(struct dfa *a, const struct rt_tables *t, uint16_t used,
		 unsigned int base, const uint8_t *kind, bool turns)
{
	struct layers *y = calloc(1, sizeof(*y));
	size_t len = (size_t)(t->top + 1) * t->nsw;
	/* no layer the SM cannot program: the pairs then stay unchecked */
	unsigned int sl, i, vl = base, lim = fab_vls_within(t->fab, DFA_MAX_VL);
	int ret = -ENOMEM;

	*a = (struct dfa){ .nsw = t->nsw, .top = t->top, .base = base,
			   .turns = turns };
	memset(a->vl, DFA_NONE, sizeof(a->vl));
	a->sl = malloc(len ? len : 1);
	if (!y || !a->sl)
		goto out;
	memset(a->sl, DFA_NONE, len);
	y->f = t->fab;
	y->kind = kind;
	y->a = a;
	for (sl = 0; sl < DFA_NSL && vl < lim; sl++)
		if (!(used >> sl & 1)) {
			y->split[y->max] = vl + 1 < lim;
			vl += 1 + y->split[y->max];
			y->sl[y->max++] = sl;
		}
	ret = place_all(a, y, t);
	if (ret)
		goto out;
	for (i = 0, vl = base; i < y->n; i++) {
		a->vl[y->sl[i]] = vl;
		a->split[y->sl[i]] = y->split[i];
		vl += 1 + y->split[i];
	}
	a->nsl = y->n;
	a->nvl = vl - base;
out:
	for (i = 0; y && i < y->n; i++)
		cdg_release(&y->g[i]);
	free(y);
	if (ret)
		dfa_release(a);
	return ret;
}

int dfa_place(struct dfa *a, const struct rt_tables *t, uint16_t used,
	      unsigned int base, const uint8_t *kind)
{
	int ret = place(a, t, used, base, kind, true);

	return ret == -ERANGE ? place(a, t, used, base, kind, false) : ret;
}

void dfa_release(struct dfa *a)
{
	free(a->sl);
	a->sl = NULL;
	a->nsl = a->nvl = 0;
	memset(a->vl, DFA_NONE, sizeof(a->vl));
	memset(a->split, 0, sizeof(a->split));
}
