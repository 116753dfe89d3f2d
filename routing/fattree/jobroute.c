// SPDX-License-Identifier: MIT
/*
 * The collective-aware job search.  Every flow of every job's all-to-all
 * (rounds, and NCCL's all at once) and ring into a job LID is grouped by
 * its source switch; moving the entry of switch w towards the LID moves
 * the suffixes from w of the groups whose route passes w, round by round.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "../collsim.h"
#include "jobroute.h"

#define JR_EVALS_PER_LID 200	/* default entries tried per job LID */
#define JR_RING_PASSES 4	/* sweeps over the colliding ring flows */
#define JR_MAX_CELLS (1u << 26)	/* job rounds x links */
#define JR_EPS 1e-9

/* Flows into one destination from one source switch. */
struct grp {
	uint32_t sw;
	uint32_t roff;		/* their rounds: rnd[roff] up to roff + nr */
	uint32_t nr;
	bool ring;		/* the destination's ring flow starts here */
};

struct dst {
	uint32_t lid, sw, job;
	uint32_t goff, ngrp;	/* into grp */
	uint32_t ring;		/* its ring group, UINT32_MAX for none */
};

struct jr {
	struct rt_tables *t;
	const struct fabric *f;
	const struct rt_jobs *js;
	rt_cands_fn cands;
	void *cctx;
	uint32_t nsw, nl, nj;
	uint32_t *port0;	/* per switch: fabric port 0 */
	uint8_t *nports;	/* per switch: ports */
	uint32_t *nbr;		/* per fabric port: peer switch */
	uint32_t *link;		/* per fabric port: dense switch link, or NONE */
	uint32_t *lid_sw;	/* per LID: delivering switch */
	struct dst *d;
	uint32_t nd;
	struct grp *g;
	uint32_t *shifts;	/* rounds, as shift - 1 */
	uint32_t *rounds;	/* per job: n - 1 */
	uint16_t **job_load;	/* per job: its flows per [link][round] */
	double own;		/* expected pairs of one job's flows on a link */
	uint32_t *job_flows;	/* per link x job: flows over all rounds */
	double *sum, *sum_sq;	/* per link: sum and squares of mean loads */
	double cross;		/* expected pairs of two jobs' flows on a link */
	uint32_t *nccl_flows;	/* per link: the NCCL all-to-all's flows */
	double nccl;		/* their price, nccl_price() summed */
	double *nccl_jobs;	/* per link: sum of nccl_w of the jobs on it */
	double *nccl_w;		/* per job: 1 / m^8, nccl_weigh() */
	double nccl_weight;	/* of their price in the cost */
	uint16_t *ring_load;	/* per link: ring flows */
	uint64_t *ring_jobs;	/* per link: its ring flows' jobs, summed */
	uint64_t ring;		/* pairs of ring flows on a link */
	uint32_t *ring_hit;	/* per job: its ring flows sharing a link */
	uint32_t jobs_hit;	/* jobs with ring_hit */
	uint32_t ring_over;	/* ring flows past two on a link, summed */
	bool keep_rings;	/* no move may raise jobs_hit */
	uint32_t *fab_routes;	/* per destination x switch: fabric routes */
	uint32_t *a2a;		/* per link: the fabric's all-to-all routes */
	/*
	 * Per link: its routes per CA LID, squared and summed; perm: over
	 * the links, a2a^2 - sq, which is 2 hosts^2 times the pairs of a
	 * random permutation's flows expected to meet on a link (the
	 * whole fabric's, each host sending to one other at random).
	 */
	double *sq, perm, perm_cap;
	uint32_t *tmp;		/* scratch per link: one LID's routes */
	uint32_t *touched;	/* scratch: links tmp counts */
	double cap;
	uint32_t *pass;		/* scratch: groups of one destination via w */
	uint32_t *hosts;	/* per switch: CA ports */
	uint64_t x;
};

static uint64_t rng(struct jr *r)
{
	r->x ^= r->x << 13;
	r->x ^= r->x >> 7;
	r->x ^= r->x << 17;
	return r->x;
}

/* The fabric port a route takes from switch w towards lid, or NONE. */
static uint32_t next(const struct jr *r, uint32_t w, unsigned int lid)
{
	uint8_t p = rt_lft(r->t, w)[lid];
	uint32_t e;

	if (!p || p > r->nports[w])
		return UINT32_MAX;
	e = r->port0[w] + p;
	return r->nbr[e] == FAB_NONE ? UINT32_MAX : e;
}

/*
 * Job j's flows over all rounds on link l change by d: its mean load per
 * round moves, and with it the pairs it expects with other jobs' flows
 * (jobs do not run in step, so another job's flow is on l in a round with
 * the chance of its mean load).
 */
static void cross_add(struct jr *r, uint32_t j, uint32_t l, int d)
{
	uint32_t *n = &r->job_flows[(size_t)l * r->nj + j];
	double a = (double)*n / r->rounds[j], b;

	*n += d;
	b = (double)*n / r->rounds[j];
	r->cross -= (r->sum[l] * r->sum[l] - r->sum_sq[l]) / 2;
	r->sum[l] += b - a;
	r->sum_sq[l] += b * b - a * a;
	r->cross += (r->sum[l] * r->sum[l] - r->sum_sq[l]) / 2;
}

/*
 * What a link's NCCL all-to-all flows cost.  All flows run at once and
 * share a link evenly, so a job of n ranks whose busiest link carries x
 * flows runs at (n - 1) / x of line rate.  Each job on a link pays
 * (x / m)^8, m the flows of its busiest link in the routing the search
 * starts from (the one without jobs), at least n - 1: a job's busiest
 * links dominate its price, which rises steeply as one passes where it
 * started, for large and small jobs alike.
 */
static double pow8(double x)
{
	double x2 = x * x, x4 = x2 * x2;

	return x4 * x4;
}

/*
 * The NCCL all-to-all's flows of job j on link l change by d (a group
 * of flows from one switch into one destination: as many as the job's
 * sources there); job_flows already counts them.
 */
static void nccl_add(struct jr *r, uint32_t j, uint32_t l, int d)
{
	uint32_t *x = &r->nccl_flows[l];
	uint32_t now = r->job_flows[(size_t)l * r->nj + j];
	double *w = &r->nccl_jobs[l];

	r->nccl -= pow8(*x) * *w;
	*x += d;
	if (!now != !(now - d))
		*w += now ? r->nccl_w[j] : -r->nccl_w[j];
	if (!*x || *w < 0)
		*w = 0;
	r->nccl += pow8(*x) * *w;
}

/* Job j's ring flows that share a link change by d. */
static void hit_add(struct jr *r, uint64_t j, int d)
{
	uint32_t *h = &r->ring_hit[j];

	r->jobs_hit += (*h + d > 0) - (*h > 0);
	*h += d;
}

/*
 * A ring flow of job j on link l, added (d 1) or not (-1).  A ring is as
 * fast as its slowest flow: a job is hit by any of its ring flows
 * sharing a link.  With one other flow there, that one's job is the
 * link's sum of jobs.
 */
static void ring_add(struct jr *r, uint32_t j, uint32_t l, int d)
{
	uint16_t *n = &r->ring_load[l];

	if (d > 0) {
		r->ring_over += *n >= 2;
		if (*n == 1)
			hit_add(r, r->ring_jobs[l], 1);
		if (*n)
			hit_add(r, j, 1);
		r->ring += *n;
		(*n)++;
		r->ring_jobs[l] += j;
		return;
	}
	(*n)--;
	r->ring_over -= *n >= 2;
	r->ring_jobs[l] -= j;
	r->ring -= *n;
	if (*n)
		hit_add(r, j, -1);
	if (*n == 1)
		hit_add(r, r->ring_jobs[l], -1);
}

/* Group g's flows (of destination ds) on link l, added (d 1) or not (-1). */
static void grp_add(struct jr *r, const struct dst *ds, const struct grp *g,
		    uint32_t l, int d)
{
	uint16_t *ld;
	double per = 1.0 / r->rounds[ds->job];
	uint32_t k;

	if (l == UINT32_MAX)
		return;
	/* a link's rounds side by side: a group's rounds are near */
	ld = r->job_load[ds->job] + (size_t)l * r->rounds[ds->job];
	for (k = 0; k < g->nr; k++) {
		uint16_t *x = ld + r->shifts[g->roff + k];

		/* pairs of the round's flows on l: n (n - 1) / 2 */
		r->own += d > 0 ? *x * per : -(*x - 1) * per;
		*x += d;
	}
	if (g->nr) {
		cross_add(r, ds->job, l, d * (int)g->nr);
		nccl_add(r, ds->job, l, d * (int)g->nr);
	}
	if (g->ring)
		ring_add(r, ds->job, l, d);
}

/*
 * Link l's routes towards one destination become now, from now - d (its
 * a2a not yet moved by d): perm follows.
 */
static void perm_add(struct jr *r, uint32_t l, double now, double d)
{
	double a = r->a2a[l], was = now - d;

	r->perm += (a + d) * (a + d) - a * a - (now * now - was * was);
	r->sq[l] += now * now - was * was;
}

/*
 * Add (d 1) or take off (-1) destination i's routes from switch w on:
 * the groups in pass (np of them), and the fabric's all-to-all routes
 * through w.  Returns false when the route does not reach its switch.
 */
static bool suffix(struct jr *r, uint32_t i, uint32_t w, const uint32_t *pass,
		   uint32_t np, int d)
{
	const struct dst *ds = &r->d[i];
	uint32_t *fa = r->fab_routes + (size_t)i * r->nsw, flow = fa[w];
	uint32_t e, h, k, l, start = w;

	for (h = 0; h <= r->nsw && w != ds->sw; h++) {
		if ((e = next(r, w, ds->lid)) == UINT32_MAX)
			return false;
		for (k = 0; k < np; k++)
			grp_add(r, ds, &r->g[pass[k]], r->link[e], d);
		if ((l = r->link[e]) != UINT32_MAX) {
			perm_add(r, l, w == start ? (d > 0 ? flow : 0) : fa[w],
				 d * (int64_t)flow);
			r->a2a[l] += d * (int64_t)flow;
		}
		w = r->nbr[e];
		if (w != ds->sw)
			fa[w] += d * (int64_t)flow;
	}
	return w == ds->sw;
}

/* Whether destination i's route from w passes switch v. */
static bool passes(const struct jr *r, uint32_t i, uint32_t w, uint32_t v)
{
	const struct dst *ds = &r->d[i];
	uint32_t h, e;

	for (h = 0; h <= r->nsw; h++) {
		if (w == v)
			return true;
		if (w == ds->sw || (e = next(r, w, ds->lid)) == UINT32_MAX)
			return false;
		w = r->nbr[e];
	}
	return false;
}

/* Whether destination i's route from w arrives within the cap. */
static bool fits(const struct jr *r, uint32_t i, uint32_t w)
{
	const struct dst *ds = &r->d[i];
	uint32_t flow = r->fab_routes[(size_t)i * r->nsw + w], h, e;

	for (h = 0; h <= r->nsw && w != ds->sw; h++) {
		if ((e = next(r, w, ds->lid)) == UINT32_MAX)
			return false;
		if (r->link[e] != UINT32_MAX &&
		    r->a2a[r->link[e]] + flow > r->cap)
			return false;
		w = r->nbr[e];
	}
	return w == ds->sw;
}

/*
 * What a routing costs the jobs: the pairs of flows expected to meet on
 * a link in a round, their own and two jobs', plus the ring flows that
 * meet, each ring pair counted as RT_JOBROUTE_RING all-to-all pairs.
 */
static double cost(const struct jr *r)
{
	return r->own + r->cross + RT_JOBROUTE_RING * (double)r->ring +
	       r->nccl_weight * r->nccl;
}

/*
 * Try every candidate for the entry of switch w towards destination i
 * and keep the cheapest, if cheaper than the one there and within the
 * random permutation's room (perm_cap, or perm where that is past it).  Returns whether
 * the entry changed.
 */
static bool improve(struct jr *r, uint32_t i, uint32_t w)
{
	const struct dst *ds = &r->d[i];
	uint8_t cand[FAB_MAX_PORTS], *row = rt_lft(r->t, w) + ds->lid;
	uint8_t old = *row, best = old;
	uint32_t np = 0, k, hit, over;
	unsigned int n;
	double bc, room;

	n = r->cands(r->cctx, w, ds->sw, cand);
	if (n < 2)
		return false;
	for (k = 0; k < ds->ngrp; k++)
		if (passes(r, i, r->g[ds->goff + k].sw, w))
			r->pass[np++] = ds->goff + k;
	if (!np)
		return false;
	bc = cost(r) - JR_EPS;
	hit = r->jobs_hit;
	over = r->ring_over;
	room = (r->perm > r->perm_cap ? r->perm : r->perm_cap) * (1 + JR_EPS);
	for (k = 0; k < n; k++) {
		if (cand[k] == old)
			continue;
		suffix(r, i, w, r->pass, np, -1);
		*row = cand[k];
		if (fits(r, i, w)) {
			suffix(r, i, w, r->pass, np, 1);
			if (r->perm <= room &&
			    (r->keep_rings ? r->jobs_hit < hit ||
			     (r->jobs_hit == hit && r->ring_over <= over &&
			      cost(r) < bc) :
			     cost(r) < bc)) {
				bc = cost(r) - JR_EPS;
				hit = r->jobs_hit;
				over = r->ring_over;
				best = cand[k];
			}
			suffix(r, i, w, r->pass, np, -1);
		}
		*row = old;
		suffix(r, i, w, r->pass, np, 1);
	}
	if (best == old)
		return false;
	suffix(r, i, w, r->pass, np, -1);
	*row = best;
	suffix(r, i, w, r->pass, np, 1);
	return true;
}

static void jr_release(struct jr *r)
{
	uint32_t j;

	for (j = 0; r->job_load && j < r->nj; j++)
		free(r->job_load[j]);
	free(r->job_load);
	free(r->port0);
	free(r->nports);
	free(r->nbr);
	free(r->link);
	free(r->lid_sw);
	free(r->d);
	free(r->g);
	free(r->shifts);
	free(r->rounds);
	free(r->job_flows);
	free(r->sum);
	free(r->sum_sq);
	free(r->ring_load);
	free(r->ring_jobs);
	free(r->ring_hit);
	free(r->nccl_flows);
	free(r->nccl_jobs);
	free(r->nccl_w);
	free(r->fab_routes);
	free(r->a2a);
	free(r->pass);
	free(r->sq);
	free(r->tmp);
	free(r->touched);
	free(r->hosts);
}

/* Switch index of the switch a rank's port is cabled to, or FAB_NONE. */
static uint32_t rank_sw(const struct jr *r, struct rt_rank k)
{
	uint32_t peer = fab_port(r->f, k.node, k.port)->peer;

	return peer != FAB_NONE && fab_is_sw(r->f, peer) ?
	       r->t->node_sw[peer] : FAB_NONE;
}

static int alloc_base(struct jr *r)
{
	const struct rt_tables *t = r->t;
	uint32_t w, e;

	r->nj = r->js->njobs;
	r->port0 = malloc(r->nsw * sizeof(*r->port0) + 1);
	r->nports = malloc(r->nsw + 1);
	r->link = malloc((r->f->nports + 1) * sizeof(*r->link));
	r->lid_sw = malloc((t->top + 1) * sizeof(*r->lid_sw));
	r->hosts = calloc(r->nsw + 1, sizeof(*r->hosts));
	r->rounds = calloc(r->nj + 1, sizeof(*r->rounds));
	if (!r->port0 || !r->nports || !r->link || !r->lid_sw || !r->hosts ||
	    !r->rounds || rt_peer_switches(t, &r->nbr))
		return -ENOMEM;
	for (w = 0; w < r->nsw; w++) {
		r->port0[w] = r->f->nodes[t->sw_node[w]].port0;
		r->nports[w] = r->f->nodes[t->sw_node[w]].nports;
	}
	for (e = 0; e <= r->f->nports; e++)
		r->link[e] = e < r->f->nports && r->nbr[e] != FAB_NONE ?
			     r->nl++ : UINT32_MAX;
	for (e = 0; e <= t->top; e++)
		r->lid_sw[e] = e ? rt_lid_switch(t, e) : FAB_NONE;
	return 0;
}

/*
 * Destination b of job j (ranks cabled to switches rsw[]) and its groups:
 * per source switch, the rounds of the flows from there, in order of
 * first source.  gat is per switch, all UINT32_MAX, and left so.
 */
static void add_dst(struct jr *r, uint32_t j, uint32_t b, const uint32_t *rsw,
		    uint32_t pred, uint32_t *gat, uint32_t *ng,
		    uint32_t *nrnd)
{
	const struct rt_jobs *js = r->js;
	const struct rt_rank *rk = js->rank + js->rank_off[j];
	uint32_t n = js->rank_off[j + 1] - js->rank_off[j], a, k;
	struct dst *ds = &r->d[r->nd];
	struct grp *g;

	ds->lid = fab_port(r->f, rk[b].node, rk[b].port)->lid;
	ds->sw = rsw[b];
	ds->job = j;
	ds->goff = *ng;
	ds->ring = UINT32_MAX;
	if (ds->sw == FAB_NONE || !ds->lid || ds->lid > r->t->top ||
	    r->lid_sw[ds->lid] != ds->sw)
		return;
	for (a = 0; a < n; a++) {
		if (a == b || rsw[a] == FAB_NONE || rsw[a] == ds->sw)
			continue;
		if (gat[rsw[a]] == UINT32_MAX) {
			gat[rsw[a]] = *ng;
			r->g[(*ng)++] = (struct grp){ .sw = rsw[a] };
		}
		r->g[gat[rsw[a]]].nr++;
	}
	ds->ngrp = *ng - ds->goff;
	for (k = ds->goff; k < *ng; k++) {
		r->g[k].roff = *nrnd;
		*nrnd += r->g[k].nr;
		r->g[k].nr = 0;
		if (pred != UINT32_MAX && rsw[pred] == r->g[k].sw) {
			r->g[k].ring = true;
			ds->ring = k;
		}
	}
	for (a = 0; a < n; a++) {
		if (a == b || rsw[a] == FAB_NONE || rsw[a] == ds->sw)
			continue;
		g = &r->g[gat[rsw[a]]];
		r->shifts[g->roff + g->nr++] = (b + n - a) % n - 1;
	}
	for (k = ds->goff; k < *ng; k++)
		gat[r->g[k].sw] = UINT32_MAX;
	r->nd++;
}

/* The destinations: every job rank's base LID on a switch. */
static int build_groups(struct jr *r)
{
	const struct rt_jobs *js = r->js;
	uint32_t nr = js->rank_off[js->njobs], j, a, maxn = 1;
	uint32_t *ring, *pred, *rsw, *gat, ng = 0, nrnd = 0;
	int ret = -ENOMEM;

	for (j = 0; j < js->njobs; j++) {
		uint32_t n = js->rank_off[j + 1] - js->rank_off[j];

		if (n > maxn)
			maxn = n;
		r->rounds[j] = n > 1 ? n - 1 : 0;
	}
	r->d = calloc(nr + 1, sizeof(*r->d));
	/* at most one group and one round per source rank and destination */
	r->g = malloc(((size_t)nr * maxn + 1) * sizeof(*r->g));
	r->shifts = malloc(((size_t)nr * maxn + 1) * sizeof(*r->shifts));
	ring = malloc(maxn * sizeof(*ring));
	pred = malloc(maxn * sizeof(*pred));
	rsw = malloc(maxn * sizeof(*rsw));
	gat = malloc(r->nsw * sizeof(*gat) + 1);
	if (!r->d || !r->g || !r->shifts || !ring || !pred || !rsw || !gat)
		goto out;
	for (a = 0; a < r->nsw; a++)
		gat[a] = UINT32_MAX;
	for (j = 0; j < js->njobs; j++) {
		uint32_t n = js->rank_off[j + 1] - js->rank_off[j];

		if (n < 2)
			continue;
		if (cs_ring_next(js, j, ring))
			goto out;
		for (a = 0; a < n; a++)
			pred[a] = UINT32_MAX;
		for (a = 0; a < n; a++) {
			if (ring[a] != UINT32_MAX)
				pred[ring[a]] = a;
			rsw[a] = rank_sw(r, js->rank[js->rank_off[j] + a]);
		}
		for (a = 0; a < n; a++)
			add_dst(r, j, a, rsw, pred[a], gat, &ng, &nrnd);
	}
	ret = 0;
out:
	free(ring);
	free(pred);
	free(rsw);
	free(gat);
	return ret;
}

static int alloc_loads(struct jr *r)
{
	uint64_t cells = 0;
	uint32_t j;

	for (j = 0; j < r->nj; j++)
		cells += (uint64_t)r->rounds[j] * r->nl;
	if (cells > JR_MAX_CELLS)
		return -E2BIG;
	r->job_load = calloc(r->nj + 1, sizeof(*r->job_load));
	r->job_flows = calloc((size_t)r->nl * r->nj + 1, sizeof(*r->job_flows));
	r->sum = calloc(r->nl + 1, sizeof(*r->sum));
	r->sum_sq = calloc(r->nl + 1, sizeof(*r->sum_sq));
	r->ring_load = calloc(r->nl + 1, sizeof(*r->ring_load));
	r->ring_jobs = calloc(r->nl + 1, sizeof(*r->ring_jobs));
	r->ring_hit = calloc(r->nj + 1, sizeof(*r->ring_hit));
	r->nccl_flows = calloc(r->nl + 1, sizeof(*r->nccl_flows));
	r->nccl_jobs = calloc(r->nl + 1, sizeof(*r->nccl_jobs));
	r->nccl_w = calloc(r->nj + 1, sizeof(*r->nccl_w));
	r->fab_routes = calloc((size_t)r->nd * r->nsw + 1,
			       sizeof(*r->fab_routes));
	r->a2a = calloc(r->nl + 1, sizeof(*r->a2a));
	r->pass = malloc(((size_t)r->nsw + 1) * sizeof(*r->pass));
	r->sq = calloc(r->nl + 1, sizeof(*r->sq));
	r->tmp = calloc(r->nl + 1, sizeof(*r->tmp));
	r->touched = malloc((r->nl + 1) * sizeof(*r->touched));
	if (!r->sq || !r->tmp || !r->touched ||
	    !r->job_load || !r->job_flows || !r->sum || !r->sum_sq ||
	    !r->ring_load || !r->ring_jobs || !r->ring_hit ||
	    !r->nccl_flows || !r->nccl_jobs || !r->nccl_w || !r->fab_routes || !r->a2a || !r->pass)
		return -ENOMEM;
	for (j = 0; j < r->nj; j++) {
		r->job_load[j] = calloc((size_t)r->rounds[j] * r->nl + 1,
				  sizeof(**r->job_load));
		if (!r->job_load[j])
			return -ENOMEM;
	}
	return 0;
}

/* Switches with hosts: CA ports cabled to each. */
static void count_hosts(struct jr *r)
{
	uint32_t w;
	unsigned int p;

	for (w = 0; w < r->nsw; w++)
		for (p = 1; p <= r->nports[w]; p++) {
			const struct fab_port *fp =
				fab_port(r->f, r->t->sw_node[w], p);

			r->hosts[w] += fp->peer != FAB_NONE &&
				       !fab_is_sw(r->f, fp->peer);
		}
}

/*
 * Add the routes from every switch with hosts to lid along the tables:
 * to a2a per link, and to fa (per switch, may be NULL) where they pass.
 */
static void walk_lid(struct jr *r, unsigned int lid, uint32_t dsw,
		     uint32_t *fa)
{
	uint32_t w, v, e, h, l, nt = 0;

	for (w = 0; w < r->nsw; w++) {
		if (!r->hosts[w] || w == dsw)
			continue;
		for (v = w, h = 0; h <= r->nsw && v != dsw; h++) {
			if (fa)
				fa[v] += r->hosts[w];
			if ((e = next(r, v, lid)) == UINT32_MAX)
				break;
			l = r->link[e];
			if (!fa && l != UINT32_MAX) {
				r->a2a[l] += r->hosts[w];
				if (!r->tmp[l])
					r->touched[nt++] = l;
				r->tmp[l] += r->hosts[w];
			}
			v = r->nbr[e];
		}
	}
	while (nt--) {
		l = r->touched[nt];
		r->sq[l] += (double)r->tmp[l] * r->tmp[l];
		r->tmp[l] = 0;
	}
}

/*
 * The fabric's all-to-all: routes per link from every switch with hosts
 * to every CA port's base LID (the LMC LIDs carry only traffic that
 * picks a path, and stay as they are), per job destination the routes
 * through each switch, and the cap.
 */
static void measure_fabric(struct jr *r)
{
	const struct rt_tables *t = r->t;
	uint64_t total = 0, top = 0;
	uint32_t lid, i, e;

	count_hosts(r);
	for (lid = 1; lid <= t->top; lid++) {
		uint32_t n = t->lid_node[lid];

		if (n != FAB_NONE && !fab_is_sw(r->f, n) &&
		    r->lid_sw[lid] != FAB_NONE &&
		    fab_port(r->f, n, t->lid_port[lid])->lid == lid)
			walk_lid(r, lid, r->lid_sw[lid], NULL);
	}
	for (i = 0; i < r->nd; i++)
		if (r->d[i].ngrp)
			walk_lid(r, r->d[i].lid, r->d[i].sw,
				 r->fab_routes + (size_t)i * r->nsw);
	for (e = 0; e < r->nl; e++) {
		total += r->a2a[e];
		if (r->a2a[e] > top)
			top = r->a2a[e];
		r->perm += (double)r->a2a[e] * r->a2a[e] - r->sq[e];
	}
	r->cap = r->nl ? RT_JOBROUTE_CAP * total / r->nl : 0;
	if (r->cap < top)
		r->cap = top;
}

static void nccl_price(struct jr *r);

/*
 * The jobs' NCCL weights from the routing as measured (nccl_add() priced
 * nothing while they were 0), and the price with them.
 */
static void nccl_weigh(struct jr *r)
{
	uint32_t l, j;

	for (j = 0; j < r->nj; j++)
		r->nccl_w[j] = r->rounds[j];
	for (l = 0; l < r->nl; l++)
		for (j = 0; j < r->nj; j++)
			if (r->job_flows[(size_t)l * r->nj + j] &&
			    r->nccl_flows[l] > r->nccl_w[j])
				r->nccl_w[j] = r->nccl_flows[l];
	for (j = 0; j < r->nj; j++)
		r->nccl_w[j] = r->nccl_w[j] ? 1 / pow8(r->nccl_w[j]) : 0;
	nccl_price(r);
}

/* The NCCL all-to-all's price with the jobs' weights as they are. */
static void nccl_price(struct jr *r)
{
	uint32_t l, j;

	r->nccl = 0;
	for (l = 0; l < r->nl; l++) {
		r->nccl_jobs[l] = 0;
		for (j = 0; j < r->nj; j++)
			if (r->job_flows[(size_t)l * r->nj + j])
				r->nccl_jobs[l] += r->nccl_w[j];
		r->nccl += pow8(r->nccl_flows[l]) * r->nccl_jobs[l];
	}
}

/*
 * Every group's flows along its route, from its source switch; the NCCL
 * weights w (per job) where given, else from this routing.
 */
static void measure_jobs(struct jr *r, const double *w)
{
	uint32_t i, k, h, v, e;

	for (i = 0; i < r->nd; i++) {
		const struct dst *ds = &r->d[i];

		for (k = 0; k < ds->ngrp; k++) {
			const struct grp *g = &r->g[ds->goff + k];

			for (v = g->sw, h = 0; h <= r->nsw && v != ds->sw;
			     h++) {
				if ((e = next(r, v, ds->lid)) == UINT32_MAX)
					break;
				grp_add(r, ds, g, r->link[e], 1);
				v = r->nbr[e];
			}
		}
	}
	if (!w) {
		nccl_weigh(r);
		return;
	}
	memcpy(r->nccl_w, w, r->nj * sizeof(*w));
	nccl_price(r);
}

/*
 * The switches on group k's route into destination i, its own switch
 * excluded, into path (room for max); their count.
 */
static uint32_t route_of(const struct jr *r, uint32_t i, uint32_t k,
			 uint32_t *path, uint32_t max)
{
	const struct dst *ds = &r->d[i];
	uint32_t n = 0, w = r->g[k].sw, e;

	while (n < max && w != ds->sw) {
		path[n++] = w;
		if ((e = next(r, w, ds->lid)) == UINT32_MAX)
			break;
		w = r->nbr[e];
	}
	return n;
}

/* Whether the ring flow into destination i meets another on a link. */
static bool ring_collides(const struct jr *r, uint32_t i)
{
	const struct dst *ds = &r->d[i];
	uint32_t w = r->g[ds->ring].sw, h, e;

	for (h = 0; h <= r->nsw && w != ds->sw; h++) {
		if ((e = next(r, w, ds->lid)) == UINT32_MAX)
			return false;
		if (r->link[e] != UINT32_MAX && r->ring_load[r->link[e]] > 1)
			return true;
		w = r->nbr[e];
	}
	return false;
}

#define JR_PATH 64

/*
 * Rings first: every entry on the route of a ring flow that meets
 * another, a few sweeps, so rings get their own links early.  Then the
 * budget on random entries of random job flows.
 */
static void search(struct jr *r, const struct rt_jobroute_opts *o,
		   struct rt_jobroute_stats *st)
{
	uint64_t evals = o && o->evals ? o->evals :
			 (uint64_t)r->nd * JR_EVALS_PER_LID, k;
	uint32_t path[JR_PATH], n, i, q, pass;

	for (pass = 0; pass < JR_RING_PASSES && r->ring; pass++)
		for (i = 0; i < r->nd; i++) {
			if (r->d[i].ring == UINT32_MAX || !ring_collides(r, i))
				continue;
			n = route_of(r, i, r->d[i].ring, path, JR_PATH);
			for (q = 0; q < n; q++) {
				st->evals++;
				st->moves += improve(r, i, path[q]);
			}
		}
	for (k = 0; k < evals; k++) {
		if (o && o->stop && !(k & 1023) && atomic_load(o->stop))
			break;
		i = rng(r) % r->nd;
		if (!r->d[i].ngrp)
			continue;
		n = route_of(r, i, r->d[i].goff + rng(r) % r->d[i].ngrp, path,
			     JR_PATH);
		if (!n)
			continue;
		st->evals++;
		st->moves += improve(r, i, path[rng(r) % n]);
	}
}

/*
 * The most perm may reach: RT_JOBROUTE_PERM more pairs of a random
 * permutation's flows meeting per host than now.
 */
static double perm_room(const struct jr *r)
{
	double n = 0;
	uint32_t w;

	for (w = 0; w < r->nsw && r->hosts; w++)
		n += r->hosts[w];
	return r->perm + 2 * RT_JOBROUTE_PERM * n * n * n;
}

static void jr_init(struct jr *r, struct rt_tables *t,
		    const struct rt_jobs *js, rt_cands_fn cands, void *ctx)
{
	unsigned int k, run_try = js->search_try % RT_JOBROUTE_COLOURED;

	*r = (struct jr){ .t = t, .f = t->fab, .js = js, .cands = cands,
			  .cctx = ctx, .nsw = t->nsw,
			  .x = 0x9e3779b97f4a7c15ull };
	r->nccl_weight = RT_JOBROUTE_NCCL;
	for (k = run_try / 2; k; k--)
		r->nccl_weight /= RT_JOBROUTE_GENTLER;
	r->x += run_try * 0x2545f4914f6cdd1dull;
}

/*
 * The jobs' flows and the loads of the routing in t, from scratch, the
 * NCCL weights w where given: 0, -E2BIG past JR_MAX_CELLS, or -ENOMEM.
 */
static int jr_measure(struct jr *r, const double *w)
{
	int ret = alloc_base(r);

	if (!ret)
		ret = build_groups(r);
	if (!ret)
		ret = alloc_loads(r);
	if (ret || !r->nd)
		return ret;
	measure_fabric(r);
	measure_jobs(r, w);
	return 0;
}

/*
 * o->first on t; where r was measured (weigh), the NCCL weights of the
 * routing before it kept in *w (allocated here) and r measured again
 * with them.
 */
static int jr_first(struct jr *r, const struct rt_jobroute_opts *o,
		    bool weigh, double **w)
{
	struct jr fresh;
	int ret;

	if (weigh && r->nd) {
		*w = malloc((r->nj + 1) * sizeof(**w));
		if (!*w)
			return -ENOMEM;
		memcpy(*w, r->nccl_w, r->nj * sizeof(**w));
	}
	fresh = *r;
	jr_release(r);
	jr_init(r, fresh.t, fresh.js, fresh.cands, fresh.cctx);
	ret = o->first(o->first_ctx);
	return ret ? ret : jr_measure(r, *w);
}

int rt_jobroute(struct rt_tables *t, const struct rt_jobs *js,
		rt_cands_fn cands, void *ctx,
		const struct rt_jobroute_opts *o, struct rt_jobroute_stats *st)
{
	struct rt_jobroute_stats dummy;
	struct jr r;
	double *w = NULL, cap;
	int ret;

	if (!st)
		st = &dummy;
	memset(st, 0, sizeof(*st));
	jr_init(&r, t, js, cands, ctx);
	ret = jr_measure(&r, NULL);
	cap = perm_room(&r);
	if ((!ret || ret == -E2BIG) && o && o->first) {
		ret = jr_first(&r, o, !ret, &w);
		r.keep_rings = true;
	}
	if (ret == -E2BIG) {
		st->skipped = true;
		ret = 0;
	}
	if (ret || st->skipped || !r.nd)
		goto out;
	r.perm_cap = cap;
	st->pairs_before = r.own + r.cross;
	st->ring_before = r.ring;
	st->cost_before = cost(&r);
	search(&r, o, st);
	st->pairs_after = r.own + r.cross;
	st->ring_after = r.ring;
	st->cost_after = cost(&r);
out:
	free(w);
	jr_release(&r);
	return ret;
}
