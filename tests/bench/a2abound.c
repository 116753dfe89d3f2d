// SPDX-License-Identifier: MIT
/*
 * All-to-all lower bound.  The flow towards one destination leaf may
 * take any minimal up*-down* path, which is any walk along the DAG of
 * moves the fat-tree engine also chooses from: down to a child that
 * reaches the leaf, else up to a parent that reaches it turning at the
 * lowest level.  Commodities are destination leaves (their LIDs share
 * the DAG), sources are leaves (their ports share every path); splitting
 * a commodity among paths is free.  Minimising the busiest link is then
 * a linear program whose optimum lies between the two numbers returned.
 */
#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "a2abound.h"

#define AB_INF 1e300

struct ab {
	const struct fabric *f;
	uint32_t nsw, nleaf;
	uint32_t *sw_node;	/* switch -> fabric node */
	uint32_t *node_sw;	/* fabric node -> switch, UINT32_MAX else */
	uint8_t *lv;		/* per switch */
	uint32_t *order;	/* switches by ascending level */
	uint32_t *leaf_sw;	/* leaf -> switch */
	uint32_t *sw_leaf;	/* switch -> leaf, UINT32_MAX */
	double *src, *dst;	/* per leaf: CA ports, CA LIDs */
	size_t w;		/* words per leaf bitset */
	uint64_t *down;		/* per switch: leaves below */
	uint64_t *reach;	/* per level, per switch */
	uint32_t narc;		/* directed switch links */
	uint32_t *aoff;		/* per switch into arc_to / arc_up */
	uint32_t *arc_to;	/* head switch of each arc (arcs by tail) */
	/* per destination leaf and switch: candidate arcs, CSR */
	uint32_t *coff, *carc;
};

static bool has(const uint64_t *b, uint32_t i)
{
	return b[i >> 6] >> (i & 63) & 1;
}

static uint32_t uf_find(uint32_t *uf, uint32_t x)
{
	while (uf[x] != x)
		x = uf[x] = uf[uf[x]];
	return x;
}

static void uf_union(uint32_t *uf, uint32_t x, uint32_t y)
{
	uf[uf_find(uf, x)] = uf_find(uf, y);
}

static uint64_t *bits(const struct ab *a, uint64_t *base, uint32_t s)
{
	return base + (size_t)s * a->w;
}

static int cmp_level(const void *x, const void *y, void *ctx)
{
	const uint8_t *lv = ctx;
	uint32_t a = *(const uint32_t *)x, b = *(const uint32_t *)y;

	if (lv[a] != lv[b])
		return lv[a] < lv[b] ? -1 : 1;
	return a < b ? -1 : a > b;
}

/* Switches, leaves, their ports and LIDs, and the directed links. */
static int ab_nodes(struct ab *a, const struct ft_info *ft)
{
	const struct fabric *f = a->f;
	uint32_t n, s, k = 0;
	unsigned int p;

	a->node_sw = malloc((f->nnodes + 1) * sizeof(*a->node_sw));
	a->sw_node = malloc((f->nnodes + 1) * sizeof(*a->sw_node));
	a->lv = malloc(f->nnodes + 1);
	a->order = malloc((f->nnodes + 1) * sizeof(*a->order));
	a->sw_leaf = malloc((f->nnodes + 1) * sizeof(*a->sw_leaf));
	a->leaf_sw = malloc((f->nnodes + 1) * sizeof(*a->leaf_sw));
	a->src = calloc(f->nnodes + 1, sizeof(*a->src));
	a->dst = calloc(f->nnodes + 1, sizeof(*a->dst));
	a->aoff = calloc(f->nnodes + 2, sizeof(*a->aoff));
	if (!a->node_sw || !a->sw_node || !a->lv || !a->order ||
	    !a->sw_leaf || !a->leaf_sw || !a->src || !a->dst || !a->aoff)
		return -ENOMEM;
	for (n = 0; n < f->nnodes; n++) {
		a->node_sw[n] = UINT32_MAX;
		if (!fab_is_sw(f, n) || ft->level[n] == FT_NO_LEVEL)
			continue;
		a->node_sw[n] = a->nsw;
		a->lv[a->nsw] = ft->level[n];
		a->order[a->nsw] = a->nsw;
		a->sw_node[a->nsw++] = n;
	}
	for (s = 0; s < a->nsw; s++) {
		uint32_t sn = a->sw_node[s];

		a->sw_leaf[s] = UINT32_MAX;
		for (p = 1; p <= f->nodes[sn].nports; p++) {
			const struct fab_port *fp = fab_port(f, sn, p);
			const struct fab_port *cp;

			if (fp->peer == FAB_NONE)
				continue;
			if (fab_is_sw(f, fp->peer)) {
				k += a->node_sw[fp->peer] != UINT32_MAX;
				continue;
			}
			cp = fab_port(f, fp->peer, fp->peer_port);
			if (!cp->lid)
				continue;
			if (a->sw_leaf[s] == UINT32_MAX) {
				a->sw_leaf[s] = a->nleaf;
				a->leaf_sw[a->nleaf++] = s;
			}
			a->src[a->sw_leaf[s]] += 1;
			a->dst[a->sw_leaf[s]] += 1u << cp->lmc;
		}
		a->aoff[s + 1] = k;
	}
	a->narc = k;
	a->arc_to = malloc((k + 1) * sizeof(*a->arc_to));
	if (!a->arc_to)
		return -ENOMEM;
	for (k = 0, s = 0; s < a->nsw; s++) {
		uint32_t sn = a->sw_node[s];

		for (p = 1; p <= f->nodes[sn].nports; p++) {
			uint32_t q = fab_port(f, sn, p)->peer;

			if (q != FAB_NONE && fab_is_sw(f, q) &&
			    a->node_sw[q] != UINT32_MAX)
				a->arc_to[k++] = a->node_sw[q];
		}
	}
	qsort_r(a->order, a->nsw, sizeof(*a->order), cmp_level, a->lv);
	return 0;
}

/* down[] bottom-up, reach[h][] top-down, as the engine builds them. */
static int ab_reach(struct ab *a, unsigned int nlev)
{
	uint32_t i, s, k;
	unsigned int h;

	a->w = (a->nleaf + 63) / 64;
	a->down = calloc((size_t)a->nsw * a->w + 1, sizeof(*a->down));
	a->reach = calloc((size_t)nlev * a->nsw * a->w + 1,
			  sizeof(*a->reach));
	if (!a->down || !a->reach)
		return -ENOMEM;
	for (i = 0; i < a->nsw; i++) {
		s = a->order[i];
		if (a->sw_leaf[s] != UINT32_MAX)
			bits(a, a->down, s)[a->sw_leaf[s] >> 6] |=
				1ull << (a->sw_leaf[s] & 63);
		for (k = a->aoff[s]; k < a->aoff[s + 1]; k++) {
			uint32_t q = a->arc_to[k];
			size_t j;

			if (a->lv[q] + 1u != a->lv[s])
				continue;
			for (j = 0; j < a->w; j++)
				bits(a, a->down, s)[j] |= bits(a, a->down, q)[j];
		}
	}
	for (h = 0; h < nlev; h++) {
		uint64_t *rh = a->reach + (size_t)h * a->nsw * a->w;

		for (i = a->nsw; i-- > 0;) {
			s = a->order[i];
			if (a->lv[s] > h)
				continue;
			memcpy(bits(a, rh, s), bits(a, a->down, s),
			       a->w * sizeof(uint64_t));
			if (a->lv[s] == h)
				continue;
			for (k = a->aoff[s]; k < a->aoff[s + 1]; k++) {
				uint32_t q = a->arc_to[k];
				size_t j;

				if (a->lv[q] != a->lv[s] + 1u)
					continue;
				for (j = 0; j < a->w; j++)
					bits(a, rh, s)[j] |= bits(a, rh, q)[j];
			}
		}
	}
	return 0;
}

/* The arcs s may take towards leaf d; *n their count, into out. */
static uint32_t moves(const struct ab *a, unsigned int nlev, uint32_t s,
		      uint32_t d, uint32_t *out)
{
	bool dn = has(bits(a, a->down, s), d);
	const uint64_t *rh = NULL;
	uint32_t k, q, n = 0;
	unsigned int h;

	for (h = a->lv[s] + 1; !dn && h < nlev; h++)
		if (has(a->reach + ((size_t)h * a->nsw + s) * a->w, d)) {
			rh = a->reach + (size_t)h * a->nsw * a->w;
			break;
		}
	if (!dn && !rh)
		return 0;
	for (k = a->aoff[s]; k < a->aoff[s + 1]; k++) {
		q = a->arc_to[k];
		if (dn ? a->lv[q] + 1u == a->lv[s] && has(bits(a, a->down, q), d) :
			 a->lv[q] == a->lv[s] + 1u && has(rh + (size_t)q * a->w, d))
			out[n++] = k;
	}
	return n;
}

/* Every destination's moves per switch, as CSR over (leaf, switch). */
static int ab_moves(struct ab *a, unsigned int nlev)
{
	size_t cells = (size_t)a->nleaf * a->nsw, cap = a->narc + 1, n = 0;
	uint32_t d, s;

	a->coff = malloc((cells + 1) * sizeof(*a->coff));
	a->carc = malloc(cap * sizeof(*a->carc));
	if (!a->coff || !a->carc)
		return -ENOMEM;
	for (d = 0; d < a->nleaf; d++)
		for (s = 0; s < a->nsw; s++) {
			if (n + FAB_MAX_PORTS + 1 > cap) {
				uint32_t *g;

				cap = cap * 2 + FAB_MAX_PORTS + 1;
				g = realloc(a->carc, cap * sizeof(*g));
				if (!g)
					return -ENOMEM;
				a->carc = g;
			}
			a->coff[(size_t)d * a->nsw + s] = n;
			n += moves(a, nlev, s, d, a->carc + n);
		}
	a->coff[cells] = n;
	return 0;
}

static void ab_release(struct ab *a)
{
	free(a->node_sw);
	free(a->sw_node);
	free(a->lv);
	free(a->order);
	free(a->sw_leaf);
	free(a->leaf_sw);
	free(a->src);
	free(a->dst);
	free(a->aoff);
	free(a->arc_to);
	free(a->down);
	free(a->reach);
	free(a->coff);
	free(a->carc);
}

/* s's cheapest move towards the destination of off, after its heads'. */
static void relax(const struct ab *a, const uint32_t *off, uint32_t s,
		  const double *price, double *dist, uint32_t *next)
{
	uint32_t k;

	for (k = off[s]; k < off[s + 1]; k++) {
		uint32_t e = a->carc[k];
		double c = price[e] + dist[a->arc_to[e]];

		if (c < dist[s]) {
			dist[s] = c;
			next[s] = e;
		}
	}
}

/*
 * Every pair on its cheapest path under price: the loads into add, the
 * priced route total returned (the numerator of the dual bound).
 */
static double all_or_nothing(const struct ab *a, const double *price,
			     double *add, double *dist, double *flow,
			     uint32_t *next, uint64_t *lost)
{
	double total = 0;
	uint32_t d, i, s;

	memset(add, 0, a->narc * sizeof(*add));
	for (d = 0; d < a->nleaf; d++) {
		const uint32_t *off = a->coff + (size_t)d * a->nsw;
		uint32_t ds = a->leaf_sw[d];

		/* below the destination first, then above: levels order it */
		for (i = 0; i < a->nsw; i++) {
			s = a->order[i];
			dist[s] = AB_INF;
			next[s] = UINT32_MAX;
			flow[s] = 0;
		}
		dist[ds] = 0;
		for (i = 0; i < a->nsw; i++) {
			s = a->order[i];
			if (s == ds || !has(bits(a, a->down, s), d))
				continue;
			relax(a, off, s, price, dist, next);
		}
		for (i = a->nsw; i-- > 0;) {
			s = a->order[i];
			if (has(bits(a, a->down, s), d))
				continue;
			relax(a, off, s, price, dist, next);
		}
		for (i = 0; i < a->nleaf; i++) {
			s = a->leaf_sw[i];
			if (i == d)
				continue;
			if (dist[s] >= AB_INF) {
				if (lost)
					*lost += (uint64_t)a->src[i] * a->dst[d];
				continue;
			}
			flow[s] = a->src[i] * a->dst[d];
			total += flow[s] * dist[s];
		}
		/* up switches climbing, then the down part descending */
		for (i = 0; i < a->nsw; i++) {
			s = a->order[i];
			if (has(bits(a, a->down, s), d) || !flow[s])
				continue;
			add[next[s]] += flow[s];
			flow[a->arc_to[next[s]]] += flow[s];
		}
		for (i = a->nsw; i-- > 0;) {
			s = a->order[i];
			if (s == ds || !has(bits(a, a->down, s), d) || !flow[s])
				continue;
			add[next[s]] += flow[s];
			flow[a->arc_to[next[s]]] += flow[s];
		}
	}
	return total;
}

static double max_of(const double *x, uint32_t n)
{
	double m = 0;
	uint32_t i;

	for (i = 0; i < n; i++)
		if (x[i] > m)
			m = x[i];
	return m;
}

/* The smoothed maximum of (1 - g) load + g add, prices' scale. */
static double smooth(const double *load, const double *add, uint32_t n,
		     double g, double beta, double m)
{
	double sum = 0;
	uint32_t i;

	for (i = 0; i < n; i++)
		sum += exp(beta * ((1 - g) * load[i] + g * add[i] - m) / m);
	return log(sum);
}

/* The step in [0, 1] that makes the smoothed maximum least (convex). */
static double line_search(const double *load, const double *add, uint32_t n,
			  double beta, double m)
{
	double lo = 0, hi = 1;
	int i;

	for (i = 0; i < 30; i++) {
		double m1 = lo + (hi - lo) / 3, m2 = hi - (hi - lo) / 3;

		if (smooth(load, add, n, m1, beta, m) <=
		    smooth(load, add, n, m2, beta, m))
			hi = m2;
		else
			lo = m1;
	}
	return (lo + hi) / 2;
}

/*
 * The lowest level at which d is reachable from leaf switch s (the level
 * its minimal paths turn at), nlev when none.
 */
static unsigned int turn(const struct ab *a, unsigned int nlev, uint32_t s,
			 uint32_t d)
{
	unsigned int h;

	for (h = a->lv[s]; h < nlev; h++)
		if (has(a->reach + ((size_t)h * a->nsw + s) * a->w, d))
			return h;
	return nlev;
}

/*
 * Cut bounds: for every connected part T of the levels up to h, the
 * pairs that start in T and turn above h all climb out of T over the
 * links from its level-h switches, and those that end in T and turn
 * above h all come down over them; so some such link carries their
 * count over the link count.  Level h = 0 is a leaf's up links.
 */
static double cut_bound(const struct ab *a, unsigned int nlev)
{
	uint32_t *uf = malloc((a->nsw + 1) * sizeof(*uf));
	uint8_t *tl = malloc((size_t)a->nleaf * a->nleaf + 1);
	double *out = calloc(a->nsw + 1, sizeof(*out));
	double *in = calloc(a->nsw + 1, sizeof(*in));
	uint32_t *arcs = calloc(a->nsw + 1, sizeof(*arcs));
	double best = 0;
	uint32_t i, j, s, k, x, y;
	unsigned int h;

	if (!uf || !tl || !out || !in || !arcs)
		goto out;
	for (i = 0; i < a->nleaf; i++)
		for (j = 0; j < a->nleaf; j++)
			tl[(size_t)i * a->nleaf + j] =
				turn(a, nlev, a->leaf_sw[i], j);
	for (s = 0; s < a->nsw; s++)
		uf[s] = s;
	for (h = 0; h + 1 < nlev; h++) {
		for (s = 0; s < a->nsw; s++) {
			if (a->lv[s] != h)
				continue;
			for (k = a->aoff[s]; k < a->aoff[s + 1]; k++)
				if (a->lv[a->arc_to[k]] + 1u == h)
					uf_union(uf, s, a->arc_to[k]);
		}
		memset(out, 0, a->nsw * sizeof(*out));
		memset(in, 0, a->nsw * sizeof(*in));
		memset(arcs, 0, a->nsw * sizeof(*arcs));
		for (s = 0; s < a->nsw; s++)
			for (k = a->aoff[s]; a->lv[s] == h && k < a->aoff[s + 1];
			     k++)
				arcs[uf_find(uf, s)] +=
					a->lv[a->arc_to[k]] == h + 1u;
		for (i = 0; i < a->nleaf; i++)
			for (j = 0; j < a->nleaf; j++) {
				if (tl[(size_t)i * a->nleaf + j] <= h ||
				    tl[(size_t)i * a->nleaf + j] >= nlev)
					continue;
				x = uf_find(uf, a->leaf_sw[i]);
				y = uf_find(uf, a->leaf_sw[j]);
				out[x] += a->src[i] * a->dst[j];
				in[y] += a->src[i] * a->dst[j];
			}
		for (s = 0; s < a->nsw; s++) {
			if (!arcs[s])
				continue;
			if (out[s] / arcs[s] > best)
				best = out[s] / arcs[s];
			if (in[s] / arcs[s] > best)
				best = in[s] / arcs[s];
		}
	}
out:
	free(uf);
	free(tl);
	free(out);
	free(in);
	free(arcs);
	return best;
}

static void solve(const struct ab *a, unsigned int nlev, double gap,
		  unsigned int max_iters,
		  double *load, double *add, double *price, double *dist,
		  double *flow, uint32_t *next, struct ab_result *r)
{
	double beta = 8, lb, ub, m, sum, num, g;
	uint32_t e;
	unsigned int it;

	r->lower = cut_bound(a, nlev);
	for (e = 0; e < a->narc; e++)
		price[e] = 1;
	all_or_nothing(a, price, load, dist, flow, next, &r->unroutable);
	r->upper = max_of(load, a->narc);
	for (it = 1; it <= max_iters; it++) {
		m = max_of(load, a->narc);
		if (m <= 0)
			break;
		/* prices: the smoothed maximum's gradient */
		for (sum = 0, e = 0; e < a->narc; e++) {
			price[e] = exp(beta * (load[e] - m) / m);
			sum += price[e];
		}
		num = all_or_nothing(a, price, add, dist, flow, next, NULL);
		lb = num / sum;
		if (lb > r->lower)
			r->lower = lb;
		g = line_search(load, add, a->narc, beta, m);
		for (e = 0; e < a->narc; e++)
			load[e] = (1 - g) * load[e] + g * add[e];
		ub = max_of(load, a->narc);
		if (ub < r->upper)
			r->upper = ub;
		r->iters = it;
		if (r->upper <= r->lower * (1 + gap))
			break;
		/* sharper as the steps shrink: the bound needs it */
		if (g < 1e-3 && beta < 2048)
			beta *= 1.1;
	}
}

int ab_alltoall(const struct fabric *f, const struct ft_info *ft, double gap,
		unsigned int max_iters, struct ab_result *r)
{
	struct ab a = { .f = f };
	double *load = NULL, *add = NULL, *price = NULL, *dist = NULL;
	double *flow = NULL;
	uint32_t *next = NULL, d, i;
	int ret;

	memset(r, 0, sizeof(*r));
	if (!ft->tree || !ft->nlevels)
		return -EINVAL;
	ret = ab_nodes(&a, ft);
	if (!ret)
		ret = ab_reach(&a, ft->nlevels);
	if (!ret)
		ret = ab_moves(&a, ft->nlevels);
	if (ret)
		goto out;
	ret = -ENOMEM;
	load = calloc(a.narc + 1, sizeof(*load));
	add = calloc(a.narc + 1, sizeof(*add));
	price = calloc(a.narc + 1, sizeof(*price));
	dist = calloc(a.nsw + 1, sizeof(*dist));
	flow = calloc(a.nsw + 1, sizeof(*flow));
	next = calloc(a.nsw + 1, sizeof(*next));
	if (!load || !add || !price || !dist || !flow || !next)
		goto out;
	for (d = 0; d < a.nleaf; d++)
		for (i = 0; i < a.nleaf; i++)
			r->pairs += (uint64_t)(a.src[i] * a.dst[d]) -
				    (i == d ? a.dst[d] : 0);
	solve(&a, ft->nlevels, gap, max_iters, load, add, price, dist, flow, next, r);
	ret = 0;
out:
	free(load);
	free(add);
	free(price);
	free(dist);
	free(flow);
	free(next);
	ab_release(&a);
	return ret;
}
