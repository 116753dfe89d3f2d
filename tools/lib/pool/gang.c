// SPDX-License-Identifier: MIT
/*
 * Gangs on the tree.  Groups are numbered per level (sch_host.lvl) and
 * laid out level after level in one array (gbase[l] + group), so counts
 * per group of every level sit in one buffer the picks can copy.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "gang.h"

#define NONE UINT32_MAX

struct gang {
	uint32_t *lvl;		/* per host and level: its group */
	size_t nh;
	unsigned int nl;		/* levels */
	uint32_t ngrp[GANG_MAX_LEVELS];
	size_t gbase[GANG_MAX_LEVELS];
	size_t ngtot;			/* groups over all levels */
	uint32_t *gcount;	/* per group: free hosts (twice: a copy behind) */
	uint32_t *gsize;	/* per group: its hosts */
	uint32_t *parent;	/* per group: its group a level up */
	uint32_t *uload;	/* per group: running gangs' hosts behind uplinks */
	uint32_t *cand, *sub;	/* room for every host */
	size_t nwaiting;
};

/* Host h's group at level l. */
static uint32_t grp_of(const struct gang *g, size_t h, unsigned int l)
{
	return g->lvl[h * g->nl + l];
}

int gang_new(const uint32_t *lvl, size_t n, unsigned int levels,
	     struct gang **out)
{
	struct gang *g;
	size_t i, total = 0;
	unsigned int l;
	int ret = -ENOMEM;

	if (levels > GANG_MAX_LEVELS)
		return -EINVAL;
	g = calloc(1, sizeof(*g));
	if (!g)
		return -ENOMEM;
	g->nh = n;
	g->nl = levels;
	g->lvl = malloc((n * levels + 1) * sizeof(*g->lvl));
	if (!g->lvl)
		goto out;
	if (n)	/* lvl may be NULL then */
		memcpy(g->lvl, lvl, n * levels * sizeof(*lvl));
	for (i = 0; i < n; i++)
		for (l = 0; l < levels; l++) {
			/* checked before the count, which could wrap */
			if (grp_of(g, i, l) >= 1u << 24) {
				ret = -EINVAL;
				goto out;
			}
			if (grp_of(g, i, l) >= g->ngrp[l])
				g->ngrp[l] = grp_of(g, i, l) + 1;
		}
	for (l = 0; l < levels; l++) {
		g->gbase[l] = total;
		total += g->ngrp[l];
	}
	g->ngtot = total;
	g->gcount = calloc(2 * total + 1, sizeof(*g->gcount));
	g->gsize = calloc(total + 1, sizeof(*g->gsize));
	g->parent = calloc(total + 1, sizeof(*g->parent));
	g->uload = calloc(total + 1, sizeof(*g->uload));
	g->cand = calloc(n + 1, sizeof(*g->cand));
	g->sub = calloc(n + 1, sizeof(*g->sub));
	if (!g->gcount || !g->gsize || !g->parent || !g->uload || !g->cand ||
	    !g->sub)
		goto out;
	for (i = 0; i < n; i++)
		for (l = 0; l < levels; l++) {
			g->gsize[g->gbase[l] + grp_of(g, i, l)]++;
			if (l + 1 < levels)
				g->parent[g->gbase[l] + grp_of(g, i, l)] =
					grp_of(g, i, l + 1);
		}
	*out = g;
	return 0;
out:
	gang_free(g);
	return ret;
}

void gang_free(struct gang *g)
{
	if (!g)
		return;
	free(g->lvl);
	free(g->gcount);
	free(g->gsize);
	free(g->parent);
	free(g->uload);
	free(g->cand);
	free(g->sub);
	free(g);
}

unsigned int gang_span(const struct gang *g, const uint32_t *h, size_t n)
{
	unsigned int l;
	size_t i;

	for (l = 0; l < g->nl; l++) {
		for (i = 1; i < n; i++)
			if (grp_of(g, h[i], l) != grp_of(g, h[0], l))
				break;
		if (i == n)
			return l;
	}
	return g->nl;
}

/* ---- the uplinks ---- */

void gang_load_clear(struct gang *g)
{
	memset(g->uload, 0, g->ngtot * sizeof(*g->uload));
}

void gang_load_add(struct gang *g, uint32_t h, unsigned int level)
{
	unsigned int l;

	for (l = 0; l < level && l < g->nl; l++)
		g->uload[g->gbase[l] + grp_of(g, h, l)]++;
}

/* Uplink load of group grp of level l, as a share of its hosts. */
static double uplink(const struct gang *g, unsigned int l, uint32_t grp,
		     uint32_t add)
{
	size_t gi = g->gbase[l] + grp;

	return (double)(g->uload[gi] + add) / (g->gsize[gi] ? g->gsize[gi] : 1);
}

double gang_cost(const struct gang *g, const uint32_t *h, size_t n)
{
	unsigned int l, top = gang_span(g, h, n);
	double cost = 0;
	size_t i, k;
	uint32_t m;

	for (l = 0; l < top && l < g->nl; l++)
		for (i = 0; i < n; i++) {
			for (k = 0; k < i; k++)
				if (grp_of(g, h[k], l) == grp_of(g, h[i], l))
					break;
			if (k < i)	/* group counted at its first host */
				continue;
			for (k = i, m = 0; k < n; k++)
				m += grp_of(g, h[k], l) == grp_of(g, h[i], l);
			cost += uplink(g, l, grp_of(g, h[i], l), m);
		}
	return cost;
}

/* ---- the pick ---- */

/* Whether host h lies in group grp of level l (l == levels: all do). */
static bool in_group(const struct gang *g, size_t h, unsigned int l,
		     uint32_t grp)
{
	return l >= g->nl || grp_of(g, h, l) == grp;
}

/* Whether group a of level m has less loaded uplinks than group o. */
static bool calmer(const struct gang *g, unsigned int m, uint32_t a,
		   uint32_t o)
{
	return uplink(g, m, a, 0) < uplink(g, m, o, 0);
}

/*
 * Of the candidates c[0..n), the child at level m to take r more hosts
 * from: the fullest that takes them all (best fit); else the one with
 * most room; on ties the least loaded uplinks, then the lowest number.
 */
static uint32_t pick_child(const struct gang *g, const uint32_t *c, size_t n,
			   unsigned int m, size_t r)
{
	const uint32_t *cnt = g->gcount + g->gbase[m];
	uint32_t best = NONE, most = NONE, x;
	size_t i;

	for (i = 0; i < n; i++) {
		x = grp_of(g, c[i], m);
		if (cnt[x] >= r &&
		    (best == NONE || cnt[x] < cnt[best] ||
		     (cnt[x] == cnt[best] && calmer(g, m, x, best))))
			best = x;
		if (most == NONE || cnt[x] > cnt[most] ||
		    (cnt[x] == cnt[most] && calmer(g, m, x, most)))
			most = x;
	}
	return best != NONE ? best : most;
}

/* Whether host h has fewer whole GPUs free than o (on ties: lower number). */
static bool fuller(const uint8_t *whole, uint32_t h, uint32_t o)
{
	return whole[h] < whole[o] || (whole[h] == whole[o] && h < o);
}

/* Take candidate c[i] into the placement: out of c and the counts. */
static uint32_t take_cand(struct gang *g, uint32_t *c, size_t *n, size_t i)
{
	uint32_t h = c[i];
	unsigned int l;

	for (l = 0; l < g->nl; l++)
		g->gcount[g->gbase[l] + grp_of(g, h, l)]--;
	c[i] = c[--*n];
	return h;
}

/*
 * k hosts of ok[0..nok) inside group grp of level l (l == levels: the
 * whole cluster) into out, g->gcount holding the free hosts per group:
 * from the top down, each level's child chosen by pick_child(), within
 * the leaf the fullest hosts; again until all are taken.
 */
static void fill_group(struct gang *g, const uint32_t *ok, size_t nok,
		       const uint8_t *whole, size_t need, unsigned int l,
		       uint32_t grp, uint32_t *out)
{
	uint32_t *c = g->cand, x;
	size_t n = 0, i, bi, got = 0, r, before;
	unsigned int m;

	for (i = 0; i < nok; i++)
		if (in_group(g, ok[i], l, grp))
			c[n++] = ok[i];
	while (got < need) {
		r = need - got;
		x = grp;
		for (m = l; m-- > 0;) {
			size_t k = 0;

			/* the candidates inside the group chosen above */
			for (i = 0; i < n; i++)
				if (m + 1 >= l || grp_of(g, c[i], m + 1) == x)
					g->sub[k++] = c[i];
			x = pick_child(g, g->sub, k, m, r);
		}
		before = got;
		while (got < need) {
			for (i = 0, bi = n; i < n; i++)
				if (grp_of(g, c[i], 0) == x &&
				    (bi == n || fuller(whole, c[i], c[bi])))
					bi = i;
			if (bi == n)
				break;
			out[got++] = take_cand(g, c, &n, bi);
		}
		if (before == got)	/* counts and candidates disagree */
			break;
	}
}

/* Free hosts of leaf x's pod (of the leaf, on a one-level tree). */
static uint32_t pod_free(const struct gang *g, uint32_t x)
{
	if (g->nl < 2)
		return g->gcount[x];
	return g->gcount[g->gbase[1] + g->parent[x]];
}

/*
 * The group of level l to place k hosts in: the one whose placement
 * loads the uplinks least, then leaves the fewest free hosts behind
 * (best fit); its hosts into out.  g->gcount is used up.
 */
static void pick_group(struct gang *g, const uint32_t *ok, size_t nok,
		       const uint8_t *whole, size_t k, unsigned int l,
		       uint32_t *out)
{
	const uint32_t *c = g->gcount + g->gbase[l];
	uint32_t x, bg = NONE, *save = g->gcount + g->ngtot;
	double cost, best = HUGE_VAL;

	if (!l) {	/* one leaf: no uplink; best fit, then the fullest pod */
		for (x = 0; x < g->ngrp[0]; x++)
			if (c[x] >= k &&
			    (bg == NONE || c[x] < c[bg] ||
			     (c[x] == c[bg] &&
			      pod_free(g, x) < pod_free(g, bg))))
				bg = x;
		fill_group(g, ok, nok, whole, k, 0, bg, out);
		return;
	}
	memcpy(save, g->gcount, g->ngtot * sizeof(*save));
	for (x = 0; x < g->ngrp[l]; x++) {
		if (save[g->gbase[l] + x] < k)
			continue;
		fill_group(g, ok, nok, whole, k, l, x, out);
		cost = gang_cost(g, out, k) * 1e6 +
		       (double)(save[g->gbase[l] + x] - k);
		memcpy(g->gcount, save, g->ngtot * sizeof(*save));
		if (cost < best) {
			best = cost;
			bg = x;
		}
	}
	fill_group(g, ok, nok, whole, k, l, bg, out);
}

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return x < y ? -1 : x > y;
}

int gang_pick(struct gang *g, const uint32_t *ok, size_t n,
	      const uint8_t *whole, size_t k, bool first, uint32_t *out,
	      unsigned int *lvl, unsigned int *feasible)
{
	unsigned int L = g->nl, l = L;
	uint32_t x;
	size_t i;
	bool fits = false;

	if (n < k)
		return -1;
	/* first fit's anchor counts only when asked what was feasible */
	if (!first || feasible) {
		memset(g->gcount, 0, g->ngtot * sizeof(*g->gcount));
		for (i = 0; i < n; i++)
			for (l = 0; l < L; l++)
				g->gcount[g->gbase[l] + grp_of(g, ok[i], l)]++;
		for (l = 0; l < L && !fits; l++)
			for (x = 0; x < g->ngrp[l] && !fits; x++)
				fits = g->gcount[g->gbase[l] + x] >= k;
		l -= fits;
		if (feasible)
			*feasible = l;
	}
	if (first) {
		memcpy(out, ok, k * sizeof(*out));
		*lvl = gang_span(g, out, k);
		return 0;
	}
	if (l == L)	/* no group holds it: the whole cluster, pods filled */
		fill_group(g, ok, n, whole, k, L, 0, out);
	else
		pick_group(g, ok, n, whole, k, l, out);
	qsort(out, k, sizeof(*out), cmp_u32);
	*lvl = l == L ? L : gang_span(g, out, k);
	return 0;
}

/* ---- waiting for a lower level ---- */

enum gang_verdict gang_wait_check(struct gang *g, struct gang_wait *w,
				  unsigned int lvl, double t)
{
	if (w->waiting) {
		if (lvl > w->level && t < w->until)
			return GANG_WAIT;
		w->waiting = false;
		w->expired = lvl > w->level;
		w->waited = fmin(t, w->until) - w->from;
		g->nwaiting--;
		return GANG_GO;
	}
	if (w->decided)
		return GANG_GO;
	w->decided = true;
	return GANG_ASK;
}

bool gang_wait_pays(struct gang *g, struct gang_wait *w, double run,
		    double now, double then, double at, double t,
		    double limit, unsigned int tl, uint32_t h)
{
	if (run * (now - then) <= at - t)
		return false;
	w->waiting = true;
	w->from = t;
	w->until = t + limit;
	w->level = tl;
	w->group = grp_of(g, h, tl);
	g->nwaiting++;
	return true;
}

void gang_wait_drop(struct gang *g, struct gang_wait *w)
{
	if (!w->waiting)
		return;
	w->waiting = false;
	g->nwaiting--;
}

size_t gang_waiting(const struct gang *g)
{
	return g->nwaiting;
}

void gang_wait_hold(const struct gang *g, const struct gang_wait *w,
		    uint8_t *resv)
{
	size_t h;

	for (h = 0; h < g->nh; h++)
		resv[h] = grp_of(g, h, w->level) == w->group;
}
