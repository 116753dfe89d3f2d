// SPDX-License-Identifier: MIT
/*
 * All-to-all balance.  The all-to-all's route count on a link is the
 * sum, over destination LIDs, of the sources whose route to the LID
 * crosses it.  With one port per LID per switch a LID's routes form an
 * in-tree, and the only way to split its traffic between the ways into
 * a degraded switch is to send different sources different ways.  So a
 * LID is laid source switch by source switch: each takes the cheapest
 * way to the destination under the link loads of everything laid so far
 * (this LID's earlier sources included), following the entries those
 * sources fixed and fixing the ones it sets.
 *
 * A link's cost has two parts.  exp(KAPPA * load / scale) prices the
 * busiest links far above the rest, so its sum approximates the
 * maximum.  The other part is what a random permutation feels (eBB): two
 * routes on a link collide in a permutation unless they share their
 * source or their destination, so it counts the pairs of routes to
 * different LIDs on each link, less BETA times the pairs to one LID: a
 * route added to a link costs MU times the routes of other LIDs there,
 * less BETA times those of its own.  A LID's routes gather on the links
 * it already uses, which leaves whole links to the LIDs laid after it.
 * Routes to another LID of the same destination switch cost nothing on a
 * link from whose far end the way to that switch is forced (a core's or
 * an aggregation switch's way down): they go on together to the last
 * link, where their meeting is counted, and a flow's share is set by its
 * busiest link, so meeting the same flows twice costs no more than once.
 * Not on a link out of a switch with CAs, though: a leaf's LIDs that all
 * start over one parent would find it free and stay there together.
 *
 * The cheapest way from each switch is remembered between the sources
 * of one group (switches with a common neighbour: a pod's leaves) and
 * forgotten, with every switch whose way leads over it, where a source
 * was laid.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "balance.h"

#define BAL_KAPPA 48.0
#define BAL_MU 0.3
#define BAL_BETA 1.0
#define BAL_INF 1e300
/*
 * Work, in LIDs times source switches: every pass lays that many ways.
 * Passes after the first gain less each; as many are spent as fit in
 * BAL_PASS_WORK, up to BAL_MAX_PASSES.  Past the last limit the
 * engine's routing is left as it is.
 */
#define BAL_PASS_WORK (1u << 21)
#define BAL_MAX_PASSES 4
#define BAL_MAX_WORK (1u << 25)

struct bal {
	struct rt_tables *t;
	rt_cands_fn cands;
	void *ctx;
	uint32_t nsw;
	uint32_t *port0;	/* per switch: fabric port index of port 0 */
	uint32_t *nbr;		/* per fabric port: peer switch */
	uint32_t *src;		/* per switch: CA ports sending */
	uint32_t *srcs, nsrc;	/* switches with sources, by group */
	uint32_t *group;	/* per switch: its group of sources */
	uint32_t *load;		/* per fabric port: all-to-all routes */
	double *cost;		/* per fabric port: exp cost of its load */
	double scale;		/* routes a switch's cut forces on a link */
	/* the moves towards one destination switch, and their reverse */
	uint32_t ds;
	/* per switch: fabric port of each move */
	uint32_t *move_off, *move_port;
	uint32_t *poff, *pred;	/* per switch: switches that move to it */
	/* cheapest way per switch, valid while bgen is gen */
	double *best;
	uint32_t *bsel;		/* its first move, a fabric port */
	uint32_t *bgen, gen;
	/* the current source's routes: cost factors, half their count */
	double em, vw, half;
	/* the LID being laid: fixed switches (fgen is lgen), old ports */
	uint32_t *fgen, lgen;
	uint32_t *fixed_port;	/* per fixed switch: its fabric port */
	uint32_t *fixed, nfixed;
	uint8_t *oport;
	/* its routes per link, before and after, on the links touched */
	uint32_t *oflow, *nflow;
	uint32_t *touched, ntouched;
	uint32_t *path;		/* the way just laid */
	/* per fabric port: routes to ds's CA LIDs but the one being laid */
	uint32_t *sib;
	uint32_t *sibset, nsibset;	/* the ports sib was counted on */
	bool *insib;		/* per fabric port: in sibset */
	uint8_t *forced;	/* per switch: FORCED_YES, _NO or 0 (not known) */
	bool *free_sib;		/* per fabric port: sib's routes cost nothing */
};

enum { FORCED_YES = 1, FORCED_NO = 2 };

static double phi(const struct bal *b, uint32_t load)
{
	double x = BAL_KAPPA * (load / b->scale - 1);

	return exp(x < 700 ? x : 700);
}

/* Routes of other LIDs on link pi that a route added there would meet. */
static inline double others(const struct bal *b, uint32_t pi)
{
	uint32_t o = b->load[pi] - b->nflow[pi];

	return b->free_sib[pi] ? (double)o - b->sib[pi] : o;
}

/* What the current source's routes add on link pi. */
static inline double cost(const struct bal *b, uint32_t pi)
{
	return b->cost[pi] * b->em +
	       b->vw * (others(b, pi) - BAL_BETA * (b->nflow[pi] + b->half));
}

static void touch(struct bal *b, uint32_t pi)
{
	if (!b->oflow[pi] && !b->nflow[pi])
		b->touched[b->ntouched++] = pi;
}

/* The fabric port s's entry for lid leaves by, or FAB_NONE at a hole. */
static uint32_t hop(const struct bal *b, uint32_t s, unsigned int lid)
{
	unsigned int p = rt_lft(b->t, s)[lid];
	uint32_t pi;

	if (p == 0 || p == RT_NO_PATH)
		return FAB_NONE;
	pi = b->port0[s] + p;
	return b->nbr[pi] == FAB_NONE ? FAB_NONE : pi;
}

/*
 * Source switch x's f routes to lid along the tables: added to the link
 * loads, or taken off them and counted in oflow.  Stops at a hole or
 * after nsw hops.
 */
static void walk(struct bal *b, uint32_t x, unsigned int lid, uint32_t f,
		 bool add)
{
	uint32_t s = x, hops, pi;

	for (hops = 0; s != b->ds && hops < b->nsw; hops++) {
		if ((pi = hop(b, s, lid)) == FAB_NONE)
			return;
		if (add) {
			b->load[pi] += f;
		} else {
			touch(b, pi);
			b->oflow[pi] += f;
			b->load[pi] -= f;
		}
		s = b->nbr[pi];
	}
}

/* The cheapest way from s to the destination for the current source. */
static double way(struct bal *b, uint32_t s)
{
	double c = BAL_INF, v;
	uint32_t k, pi, sel = 0;

	if (s == b->ds)
		return 0;
	if (b->bgen[s] == b->gen)
		return b->best[s];
	if (b->fgen[s] == b->lgen) {
		sel = b->fixed_port[s];
		c = cost(b, sel) + way(b, b->nbr[sel]);
	} else {
		for (k = b->move_off[s]; k < b->move_off[s + 1]; k++) {
			pi = b->move_port[k];
			v = cost(b, pi) + way(b, b->nbr[pi]);
			if (v < c) {
				c = v;
				sel = pi;
			}
		}
	}
	b->best[s] = c;
	b->bsel[s] = sel;
	b->bgen[s] = b->gen;
	return c;
}

/*
 * Forget s's way and every remembered way that leads to s.  A way is
 * only remembered with the ways it was made of, so the walk ends at
 * switches already forgotten.
 */
static void forget(struct bal *b, uint32_t s)
{
	uint32_t k;

	if (b->bgen[s] != b->gen)
		return;
	b->bgen[s] = 0;
	for (k = b->poff[s]; k < b->poff[s + 1]; k++)
		forget(b, b->pred[k]);
}

/* Lay source x's f routes to lid along the way just found. */
static void lay(struct bal *b, uint32_t x, unsigned int lid, uint32_t f)
{
	uint32_t s = x, pi, n = 0, i;

	while (s != b->ds) {
		b->path[n++] = s;
		if (b->fgen[s] != b->lgen) {
			uint8_t *e = &rt_lft(b->t, s)[lid];

			pi = b->bsel[s];
			b->fgen[s] = b->lgen;
			b->fixed_port[s] = pi;
			b->fixed[b->nfixed] = s;
			b->oport[b->nfixed++] = *e;
			*e = pi - b->port0[s];
		}
		pi = b->fixed_port[s];
		touch(b, pi);
		b->nflow[pi] += f;
		b->load[pi] += f;
		b->cost[pi] = phi(b, b->load[pi]);
		s = b->nbr[pi];
	}
	for (i = 0; i < n; i++)
		forget(b, b->path[i]);
}

/* The sum of both cost parts over the links touched, flows as given. */
static double tree_cost(const struct bal *b, const uint32_t *flow)
{
	double c = 0;
	uint32_t i, pi, base;

	for (i = 0; i < b->ntouched; i++) {
		pi = b->touched[i];
		base = b->load[pi] - b->nflow[pi];
		c += phi(b, base + flow[pi]) +
		     BAL_MU * BAL_KAPPA / b->scale / b->scale *
		     (others(b, pi) - BAL_BETA * flow[pi] / 2) * flow[pi];
	}
	return c;
}

static void add_sib(struct bal *b, uint32_t pi, uint32_t f)
{
	if (!b->insib[pi]) {
		b->insib[pi] = true;
		b->sibset[b->nsibset++] = pi;
	}
	b->sib[pi] += f;
}

/*
 * Lay lid's in-tree again.  Returns true when it changed; a tree that
 * costs more than the old one, or leaves a source without a way, is put
 * back.
 */
static bool relay(struct bal *b, unsigned int lid)
{
	uint32_t i, x, pi, f = 0, grp = FAB_NONE;
	bool whole = true, better;

	b->ntouched = 0;
	b->nfixed = 0;
	b->lgen++;
	for (i = 0; i < b->nsrc; i++)
		if ((x = b->srcs[i]) != b->ds)
			walk(b, x, lid, b->src[x], false);
	for (i = 0; i < b->ntouched; i++) {
		pi = b->touched[i];
		b->cost[pi] = phi(b, b->load[pi]);
		b->sib[pi] -= b->oflow[pi];
	}
	for (i = 0; i < b->nsrc && whole; i++) {
		x = b->srcs[i];
		if (x == b->ds)
			continue;
		if (b->src[x] != f || b->group[x] != grp || i == 0) {
			f = b->src[x];
			grp = b->group[x];
			b->gen++;
			b->em = expm1(BAL_KAPPA * f / b->scale);
			b->vw = BAL_MU * BAL_KAPPA * f / b->scale / b->scale;
			b->half = f / 2.0;
		}
		whole = way(b, x) < BAL_INF;
		if (whole)
			lay(b, x, lid, f);
	}
	better = whole && tree_cost(b, b->nflow) < tree_cost(b, b->oflow);
	if (!better) {
		for (i = 0; i < b->nfixed; i++)
			rt_lft(b->t, b->fixed[i])[lid] = b->oport[i];
		for (i = 0; i < b->ntouched; i++) {
			pi = b->touched[i];
			b->load[pi] += b->oflow[pi] - b->nflow[pi];
		}
	}
	for (i = 0; i < b->ntouched; i++) {
		pi = b->touched[i];
		b->cost[pi] = phi(b, b->load[pi]);
		add_sib(b, pi, better ? b->nflow[pi] : b->oflow[pi]);
		b->oflow[pi] = b->nflow[pi] = 0;
	}
	return better;
}

/*
 * Whether s has a single way to ds: one move, to a switch that has one.
 * s counts as not forced while its move is followed, so a chain of single
 * moves that came back to s would end there.
 */
static bool forced(struct bal *b, uint32_t s)
{
	if (s == b->ds)
		return true;
	if (!b->forced[s]) {
		b->forced[s] = FORCED_NO;
		if (b->move_off[s + 1] - b->move_off[s] == 1 &&
		    forced(b, b->nbr[b->move_port[b->move_off[s]]]))
			b->forced[s] = FORCED_YES;
	}
	return b->forced[s] == FORCED_YES;
}

/* The moves of every switch towards destination switch ds, and back. */
static void moves(struct bal *b, uint32_t ds)
{
	uint8_t port[FAB_MAX_PORTS + 1];
	uint32_t s, k, q, n;
	unsigned int i;

	b->ds = ds;
	memset(b->poff, 0, (b->nsw + 2) * sizeof(*b->poff));
	for (k = 0, s = 0; s < b->nsw; s++) {
		b->move_off[s] = k;
		n = s == ds ? 0 : b->cands(b->ctx, s, ds, port);
		for (i = 0; i < n; i++) {
			q = b->nbr[b->port0[s] + port[i]];
			if (q == FAB_NONE)
				continue;
			b->move_port[k++] = b->port0[s] + port[i];
			b->poff[q + 2]++;
		}
	}
	b->move_off[s] = k;
	for (s = 0; s < b->nsw; s++)
		b->poff[s + 2] += b->poff[s + 1];
	for (s = 0; s < b->nsw; s++)
		for (k = b->move_off[s]; k < b->move_off[s + 1]; k++)
			b->pred[b->poff[b->nbr[b->move_port[k]] + 1]++] = s;
	memset(b->forced, 0, b->nsw);
	for (s = 0; s < b->nsw; s++) {
		const struct fab_node *nd = &b->t->fab->nodes[b->t->sw_node[s]];

		for (i = 1; i <= nd->nports; i++) {
			k = b->port0[s] + i;
			q = b->nbr[k];
			b->free_sib[k] = q != FAB_NONE && q != ds && !b->src[s] &&
					 forced(b, q);
		}
	}
}

/* The routes to the CA LIDs of ds, lids[from..to), per link, in sib. */
static void count_sib(struct bal *b, const uint32_t *lids, uint32_t from,
		      uint32_t to)
{
	uint32_t i, k, s, hops, pi;

	while (b->nsibset) {
		pi = b->sibset[--b->nsibset];
		b->sib[pi] = 0;
		b->insib[pi] = false;
	}
	for (k = from; k < to; k++) {
		if (!rt_lid_is_ca(b->t, lids[k]))
			continue;
		for (i = 0; i < b->nsrc; i++) {
			s = b->srcs[i];
			for (hops = 0; s != b->ds && hops < b->nsw; hops++) {
				if ((pi = hop(b, s, lids[k])) == FAB_NONE)
					break;
				add_sib(b, pi, b->src[b->srcs[i]]);
				s = b->nbr[pi];
			}
		}
	}
}

/* Whether lid is to be laid again. */
static bool wanted(const struct rt_tables *t, const bool *only,
		   unsigned int lid)
{
	return rt_lid_is_ca(t, lid) && (!only || only[lid]);
}

static uint64_t busiest(const struct bal *b)
{
	uint64_t m = 0;
	size_t i;

	for (i = 0; i <= b->t->fab->nports; i++)
		if (b->nbr[i] != FAB_NONE && b->load[i] > m)
			m = b->load[i];
	return m;
}

static uint32_t uf_find(uint32_t *uf, uint32_t x)
{
	while (uf[x] != x)
		x = uf[x] = uf[uf[x]];
	return x;
}

static int cmp_group(const void *x, const void *y, void *ctx)
{
	const uint32_t *group = ctx;
	uint32_t a = *(const uint32_t *)x, b = *(const uint32_t *)y;

	if (group[a] != group[b])
		return group[a] < group[b] ? -1 : 1;
	return a < b ? -1 : a > b;
}

/* Source switches in groups: those with a common neighbour switch. */
static void group_sources(struct bal *b)
{
	uint32_t *uf = b->group, s, i, first;
	unsigned int p;

	for (s = 0; s < b->nsw; s++)
		uf[s] = s;
	for (s = 0; s < b->nsw; s++) {
		const struct fab_node *nd = &b->t->fab->nodes[b->t->sw_node[s]];

		first = FAB_NONE;
		for (p = 1; p <= nd->nports; p++) {
			uint32_t q = b->nbr[b->port0[s] + p];

			if (q == FAB_NONE || !b->src[q])
				continue;
			if (first == FAB_NONE)
				first = q;
			else
				uf[uf_find(uf, q)] = uf_find(uf, first);
		}
	}
	for (i = 0; i < b->nsrc; i++)
		b->group[b->srcs[i]] = uf_find(uf, b->srcs[i]);
	qsort_r(b->srcs, b->nsrc, sizeof(*b->srcs), cmp_group, b->group);
}

/*
 * Sources per switch, and the scale: the routes a switch's own LIDs and
 * ports force on each of its switch links, at the busiest switch.
 */
static int sources(struct bal *b)
{
	const struct rt_tables *t = b->t;
	const struct fabric *f = t->fab;
	uint32_t s, *lids = calloc(b->nsw + 1, sizeof(*lids));
	uint64_t nsrc = 0, nlid = 0;	/* CA ports sending, LIDs */
	unsigned int lid, p;

	if (!lids)
		return -ENOMEM;
	for (lid = 1; lid <= t->top; lid++) {
		uint32_t n = t->lid_node[lid];

		if (n != FAB_NONE && !fab_is_sw(f, n) &&
		    (s = rt_lid_switch(t, lid)) != FAB_NONE) {
			lids[s]++;
			nlid++;
		}
	}
	for (s = 0; s < b->nsw; s++) {
		uint32_t n = t->sw_node[s];

		b->port0[s] = f->nodes[n].port0;
		for (p = 1; p <= f->nodes[n].nports; p++) {
			const struct fab_port *fp = fab_port(f, n, p);

			if (fp->peer != FAB_NONE && !fab_is_sw(f, fp->peer) &&
			    fab_port(f, fp->peer, fp->peer_port)->lid)
				b->src[s]++;
		}
		if (b->src[s])
			b->srcs[b->nsrc++] = s;
		nsrc += b->src[s];
	}
	for (s = 0; s < b->nsw; s++) {
		unsigned int links = 0;
		double out, in;

		for (p = 1; p <= f->nodes[t->sw_node[s]].nports; p++)
			links += b->nbr[b->port0[s] + p] != FAB_NONE;
		if (!links)
			continue;
		out = (double)b->src[s] * (nlid - lids[s]) / links;
		in = (double)lids[s] * (nsrc - b->src[s]) / links;
		if (out > b->scale)
			b->scale = out;
		if (in > b->scale)
			b->scale = in;
	}
	free(lids);
	group_sources(b);
	return 0;
}

static void bal_release(struct bal *b)
{
	free(b->port0);
	free(b->nbr);
	free(b->src);
	free(b->srcs);
	free(b->group);
	free(b->load);
	free(b->cost);
	free(b->move_off);
	free(b->move_port);
	free(b->poff);
	free(b->pred);
	free(b->best);
	free(b->bsel);
	free(b->bgen);
	free(b->fgen);
	free(b->fixed_port);
	free(b->fixed);
	free(b->oport);
	free(b->oflow);
	free(b->nflow);
	free(b->touched);
	free(b->path);
	free(b->sib);
	free(b->sibset);
	free(b->insib);
	free(b->forced);
	free(b->free_sib);
}

static int bal_init(struct bal *b, struct rt_tables *t, rt_cands_fn cands,
		    void *ctx)
{
	size_t np = t->fab->nports + 1, nsw = t->nsw + 1;

	memset(b, 0, sizeof(*b));
	b->t = t;
	b->cands = cands;
	b->ctx = ctx;
	b->nsw = t->nsw;
	b->port0 = calloc(nsw, sizeof(*b->port0));
	b->src = calloc(nsw, sizeof(*b->src));
	b->srcs = calloc(nsw, sizeof(*b->srcs));
	b->group = calloc(nsw, sizeof(*b->group));
	b->load = calloc(np, sizeof(*b->load));
	b->cost = calloc(np, sizeof(*b->cost));
	b->move_off = calloc(nsw, sizeof(*b->move_off));
	/* a move per switch link at most */
	b->move_port = calloc(np, sizeof(*b->move_port));
	b->poff = calloc(nsw + 1, sizeof(*b->poff));
	b->pred = calloc(np, sizeof(*b->pred));
	b->best = calloc(nsw, sizeof(*b->best));
	b->bsel = calloc(nsw, sizeof(*b->bsel));
	b->bgen = calloc(nsw, sizeof(*b->bgen));
	b->fgen = calloc(nsw, sizeof(*b->fgen));
	b->fixed_port = calloc(nsw, sizeof(*b->fixed_port));
	b->fixed = calloc(nsw, sizeof(*b->fixed));
	b->oport = calloc(nsw, sizeof(*b->oport));
	b->oflow = calloc(np, sizeof(*b->oflow));
	b->nflow = calloc(np, sizeof(*b->nflow));
	b->touched = calloc(np, sizeof(*b->touched));
	b->path = calloc(nsw, sizeof(*b->path));
	b->sib = calloc(np, sizeof(*b->sib));
	b->sibset = calloc(np, sizeof(*b->sibset));
	b->insib = calloc(np, sizeof(*b->insib));
	b->forced = calloc(nsw, sizeof(*b->forced));
	b->free_sib = calloc(np, sizeof(*b->free_sib));
	if (!b->port0 || !b->src || !b->srcs || !b->group || !b->load ||
	    !b->cost || !b->move_off || !b->move_port || !b->poff || !b->pred ||
	    !b->best || !b->bsel || !b->bgen || !b->fgen || !b->fixed_port ||
	    !b->fixed || !b->oport || !b->oflow || !b->nflow ||
	    !b->touched || !b->path || !b->sib || !b->sibset || !b->insib ||
	    !b->forced || !b->free_sib)
		return -ENOMEM;
	if (rt_peer_switches(t, &b->nbr))
		return -ENOMEM;
	return sources(b);
}

int rt_balance(struct rt_tables *t, rt_cands_fn cands, void *ctx,
	       const bool *only, struct rt_balance_stats *st)
{
	uint32_t *off = NULL, *lids = NULL, s, k, i;
	struct rt_balance_stats local;
	unsigned int passes;
	bool changed = true;
	uint64_t work;
	struct bal b;
	int ret;

	if (!st)
		st = &local;
	memset(st, 0, sizeof(*st));
	ret = bal_init(&b, t, cands, ctx);
	if (!ret)
		ret = rt_lids_by_switch(t, &off, &lids);
	if (ret || !b.scale)
		goto out;
	for (work = 0, k = 0; k < off[b.nsw]; k++)
		work += wanted(t, only, lids[k]);
	work *= b.nsrc;
	if (work > BAL_MAX_WORK) {
		st->skipped = true;
		goto out;
	}
	passes = work ? BAL_PASS_WORK / work : BAL_MAX_PASSES;
	passes = passes < 1 ? 1 :
		 passes > BAL_MAX_PASSES ? BAL_MAX_PASSES : passes;
	for (s = 0; s < b.nsw; s++) {
		b.ds = s;
		for (k = off[s]; k < off[s + 1]; k++)
			for (i = 0; rt_lid_is_ca(t, lids[k]) && i < b.nsrc; i++)
				if (b.srcs[i] != s)
					walk(&b, b.srcs[i], lids[k],
					     b.src[b.srcs[i]], true);
	}
	st->max_before = busiest(&b);
	for (i = 0; i <= t->fab->nports; i++)
		b.cost[i] = phi(&b, b.load[i]);
	while (changed && st->passes < passes) {
		changed = false;
		for (s = 0; s < b.nsw; s++) {
			for (k = off[s]; k < off[s + 1]; k++)
				if (wanted(t, only, lids[k]))
					break;
			if (k == off[s + 1])
				continue;
			moves(&b, s);
			count_sib(&b, lids, off[s], off[s + 1]);
			for (; k < off[s + 1]; k++)
				if (wanted(t, only, lids[k]) &&
				    relay(&b, lids[k]))
					changed = true;
		}
		st->passes++;
	}
	st->max_after = busiest(&b);
out:
	free(off);
	free(lids);
	bal_release(&b);
	return ret;
}
