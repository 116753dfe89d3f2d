// SPDX-License-Identifier: MIT
/*
 * The collective search on its own (correct, cheaper by its cost, other
 * LIDs untouched, the fabric balanced), and the engines behind the guard:
 * a routing for jobs is never slower for them on the collectives model
 * than the routing without, which stays where the job routing loses.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tu.h"
#include "tu_golden.h"
#include "tu_route.h"
#include "routing/collsim.h"
#include "routing/fattree/ftree.h"
#include "routing/fattree/jobroute.h"
#include "routing/route.h"
#include "routing/verify.h"
#include "topology/gen.h"

/* Switch hop distances, for candidates that only ever get closer. */
struct hops {
	const struct rt_tables *t;
	uint32_t *d;		/* nsw x nsw */
};

static void hops_make(struct hops *h, const struct rt_tables *t)
{
	const struct fabric *f = t->fab;
	uint32_t *q = malloc(t->nsw * sizeof(*q)), a, b, s, n, x;
	unsigned int p;

	h->t = t;
	h->d = malloc((size_t)t->nsw * t->nsw * sizeof(*h->d));
	CU_ASSERT_FATAL(q && h->d);
	memset(h->d, 0xff, (size_t)t->nsw * t->nsw * sizeof(*h->d));
	for (s = 0; s < t->nsw; s++) {
		uint32_t *d = h->d + (size_t)s * t->nsw;

		d[s] = 0;
		for (q[0] = s, a = 0, b = 1; a < b; a++) {
			n = t->sw_node[q[a]];
			for (p = 1; p <= f->nodes[n].nports; p++) {
				const struct fab_port *fp = fab_port(f, n, p);

				if (fp->peer == FAB_NONE ||
				    !fab_is_sw(f, fp->peer))
					continue;
				x = t->node_sw[fp->peer];
				if (d[x] == UINT32_MAX) {
					d[x] = d[q[a]] + 1;
					q[b++] = x;
				}
			}
		}
	}
	free(q);
}

/* Every port one hop closer to ds: min-hop, which on a tree is up-down. */
static unsigned int closer(void *ctx, uint32_t s, uint32_t ds, uint8_t *out)
{
	const struct hops *h = ctx;
	const struct fabric *f = h->t->fab;
	const uint32_t *d = h->d + (size_t)ds * h->t->nsw;
	uint32_t n = h->t->sw_node[s];
	unsigned int p, k = 0;

	for (p = 1; p <= f->nodes[n].nports; p++) {
		const struct fab_port *fp = fab_port(f, n, p);

		if (fp->peer != FAB_NONE && fab_is_sw(f, fp->peer) &&
		    d[h->t->node_sw[fp->peer]] + 1 == d[s])
			out[k++] = p;
	}
	return k;
}

/* Tori and dragonflies the engines have room on: ties, cables, classes. */
static struct fabric *vl_fabric(unsigned int i, enum rt_engine_id *id)
{
	struct gen_torus g;
	struct gen_dragonfly d;
	struct gen_opts o;
	struct fabric *f = NULL;
	char err[256];
	unsigned int lmc = 0;

	gen_opts_init(&o);
	gen_torus_init(&g, true);
	gen_dragonfly_init(&d, false);
	*id = i < 3 ? RT_ENGINE_TORUS : RT_ENGINE_DRAGONFLY;
	switch (i) {
	case 0:			/* 4x4x4, 2 hosts: ties in every ring */
		g.hosts = 2;
		break;
	case 1:			/* 6x4 with 2 cables a pair, failed switch */
		g.ndims = 2;
		g.dim[0] = 6;
		g.hosts = 2;
		g.parallel = 2;
		break;
	case 2:			/* 8x8 with 3 hosts, LMC 1 */
		g.ndims = 2;
		g.dim[0] = g.dim[1] = 8;
		g.hosts = 3;
		lmc = 1;
		break;
	case 3:			/* canonical, 9 groups: Valiant classes */
		lmc = 1;
		break;
	default:		/* 5 groups: 2 global cables a group pair */
		d.groups = 5;
		break;
	}
	if (i < 3) {
		CU_ASSERT_FATAL(!gen_torus(&g, &o, &f, err, sizeof(err)));
	} else {
		CU_ASSERT_FATAL(!gen_dragonfly(&d, &o, &f, err, sizeof(err)));
	}
	CU_ASSERT_FATAL(!fab_assign_lids(f, lmc));
	return f;
}

#define NVL_FABRICS 5

/* Fat-trees: intact 2- and 3-level, degraded, rail, LMC 1. */
static struct fabric *tree_fabric(unsigned int i)
{
	switch (i) {
	case 0: return tu_tree(8, 2, 0, 0, 0);
	case 1: return tu_radix_tree(8, 3);
	case 2: return tu_tree(6, 3, 0.05, 3, 0);
	case 3: return tu_rail();
	default: return tu_tree(6, 3, 0, 0, 1);
	}
}

#define NTREES 5

/* Every connected pair delivered, no loop, no credit loop. */
static void expect_correct(const struct rt_tables *t, struct vf_report *vr)
{
	struct vf_opts o = { .ebb_perms = 0 };

	CU_ASSERT_FATAL(!vf_check(t, &o, vr));
	CU_ASSERT_EQUAL(vr->unreachable, 0);
	CU_ASSERT_EQUAL(vr->loops, 0);
	CU_ASSERT(vr->cdg_checked && !vr->cdg_cycle);
}

/* Whether lid is the base LID of a port in a job of js. */
static bool job_lid(const struct rt_tables *t, const struct rt_jobs *js,
		    unsigned int lid)
{
	uint32_t n = t->lid_node[lid];

	return n != FAB_NONE && !fab_is_sw(t->fab, n) &&
	       rt_job_of(js, n) != RT_JOB_NONE &&
	       fab_port(t->fab, n, t->lid_port[lid])->lid == lid;
}

/*
 * The switch link (fabric port) the route from switch *w towards lid
 * takes, *w moved to its far end; UINT32_MAX where it leaves the
 * switches or has no entry.
 */
static uint32_t hop(const struct rt_tables *t, uint32_t *w, unsigned int lid)
{
	const struct fabric *f = t->fab;
	uint8_t p = rt_lft(t, *w)[lid];
	const struct fab_port *fp;
	uint32_t e;

	if (!p)
		return UINT32_MAX;
	fp = fab_port(f, t->sw_node[*w], p);
	if (fp->peer == FAB_NONE || !fab_is_sw(f, fp->peer))
		return UINT32_MAX;
	e = f->nodes[t->sw_node[*w]].port0 + p;
	*w = t->node_sw[fp->peer];
	return e;
}

/*
 * The fabric's all-to-all per switch link (fabric port): routes from
 * every host to every CA base LID (a), the CA LIDs among them (lids),
 * and each LID's routes squared, summed (sq).  A random permutation's
 * flows (every host to one other) expect to meet on a link
 * (a^2 - sq) / 2 hosts^2 times: *perm is a^2 - sq over the links.
 */
struct links {
	double *a, *sq, perm, hosts;
	uint32_t *lids;
};

static void links_measure(const struct rt_tables *t, struct links *k)
{
	const struct fabric *f = t->fab;
	uint32_t np = f->nports, *host = calloc(t->nsw + 1, sizeof(*host));
	double *one = calloc(np + 1, sizeof(*one));
	uint32_t s, w, e, lid, h, n;
	unsigned int p;

	k->a = calloc(np + 1, sizeof(*k->a));
	k->sq = calloc(np + 1, sizeof(*k->sq));
	k->lids = calloc(np + 1, sizeof(*k->lids));
	CU_ASSERT_FATAL(host && one && k->a && k->sq && k->lids);
	k->perm = k->hosts = 0;
	for (s = 0; s < t->nsw; s++)
		for (p = 1; p <= f->nodes[t->sw_node[s]].nports; p++) {
			const struct fab_port *fp = fab_port(f, t->sw_node[s], p);

			host[s] += fp->peer != FAB_NONE && !fab_is_sw(f, fp->peer);
		}
	for (s = 0; s < t->nsw; s++)
		k->hosts += host[s];
	for (lid = 1; lid <= t->top; lid++) {
		n = t->lid_node[lid];
		if (n == FAB_NONE || fab_is_sw(f, n) ||
		    fab_port(f, n, t->lid_port[lid])->lid != lid)
			continue;
		for (s = 0; s < t->nsw; s++)
			for (w = s, h = 0; host[s] && h < t->nsw &&
			     (e = hop(t, &w, lid)) != UINT32_MAX; h++) {
				k->a[e] += host[s];
				one[e] += host[s];
			}
		for (e = 0; e < np; e++) {
			k->sq[e] += one[e] * one[e];
			k->lids[e] += one[e] > 0;
			one[e] = 0;
		}
	}
	for (e = 0; e < np; e++)
		k->perm += k->a[e] * k->a[e] - k->sq[e];
	free(one);
	free(host);
}

static void links_free(struct links *k)
{
	free(k->a);
	free(k->sq);
	free(k->lids);
}

/*
 * The search over the engine's routing without jobs, with min-hop
 * candidates: still correct, no costlier by its own measure (strictly
 * cheaper on most mixes), every LID of no job and every LMC LID routed
 * as before, no switch link's all-to-all past 15 % over the mean or
 * the maximum before, and a random permutation's flows meeting at most
 * RT_JOBROUTE_PERM pairs per host more than before (eBB).
 */
static void test_search(void)
{
	unsigned int i, seed, cheaper = 0, runs = 0, lid, s;

	for (i = 0; i < NTREES; i++) {
		struct fabric *f = tree_fabric(i);

		for (seed = 1; seed <= 3; seed++) {
			struct rt_jobroute_stats st;
			struct vf_report va, vb;
			struct links la, lb;
			struct rt_summary sum;
			struct rt_tables t;
			struct rt_jobs js;
			struct tu_mix m;
			uint8_t *before;
			struct hops h;
			size_t row;

			tu_mix_make(&m, f, 3 + seed, seed, 60);
			tu_mix_jobs(&m, f, &js);
			CU_ASSERT_FATAL(!rt_route(f, RT_ENGINE_AUTO, NULL, &t,
						  &sum));
			expect_correct(&t, &va);
			row = (size_t)t.nsw * (t.top + 1);
			before = malloc(row);
			CU_ASSERT_FATAL(before != NULL);
			memcpy(before, t.lft, row);
			hops_make(&h, &t);
			links_measure(&t, &la);
			CU_ASSERT_FATAL(!rt_jobroute(&t, &js, closer, &h, NULL,
						     &st));
			links_measure(&t, &lb);
			CU_ASSERT(lb.perm <= la.perm + 2 * RT_JOBROUTE_PERM *
				  la.hosts * la.hosts * la.hosts + 1e-6);
			links_free(&la);
			links_free(&lb);
			CU_ASSERT(!st.skipped);
			CU_ASSERT(st.cost_after <= st.cost_before + 1e-9);
			cheaper += st.cost_after < st.cost_before - 1e-9;
			runs++;
			expect_correct(&t, &vb);
			CU_ASSERT_EQUAL(vb.pairs, va.pairs);
			CU_ASSERT(vb.efi_max <= va.efi_max ||
				  vb.efi_max <= RT_JOBROUTE_CAP * vb.efi_mean);
			for (lid = 1; lid <= t.top; lid++) {
				if (job_lid(&t, &js, lid))
					continue;
				for (s = 0; s < t.nsw; s++)
					CU_ASSERT_EQUAL(rt_lft(&t, s)[lid],
						before[(size_t)s * (t.top + 1) +
						       lid]);
			}
			free(h.d);
			free(before);
			rt_tables_release(&t);
			rt_jobs_release(&js);
			tu_mix_free(&m);
		}
		fab_free(f);
	}
	CU_ASSERT(cheaper * 2 > runs);
}

/* Ring flows past two on a switch link, summed over the links. */
static unsigned int rings_over_two(const struct rt_tables *t,
				   const struct rt_jobs *js)
{
	const struct fabric *f = t->fab;
	uint32_t *on = calloc(f->nports + 1, sizeof(*on));
	uint32_t *next = malloc((js->rank_off[js->njobs] + 1) * sizeof(*next));
	uint32_t j, a, n, w, h, e, lid;
	unsigned int over = 0;

	CU_ASSERT_FATAL(on && next);
	for (j = 0; j < js->njobs; j++) {
		const struct rt_rank *rk = js->rank + js->rank_off[j];

		n = js->rank_off[j + 1] - js->rank_off[j];
		CU_ASSERT_FATAL(!cs_ring_next(js, j, next));
		for (a = 0; n > 1 && a < n; a++) {
			const struct fab_port *src = fab_port(f, rk[a].node,
							      rk[a].port);

			if (next[a] == UINT32_MAX || src->peer == FAB_NONE)
				continue;
			lid = fab_port(f, rk[next[a]].node,
				       rk[next[a]].port)->lid;
			for (w = t->node_sw[src->peer], h = 0; h < t->nsw &&
			     (e = hop(t, &w, lid)) != UINT32_MAX; h++)
				over += ++on[e] > 2;
		}
	}
	free(on);
	free(next);
	return over;
}

/* Nothing to do first: the search keeps the rings as it finds them. */
static int nothing_first(void *ctx)
{
	(void)ctx;
	return 0;
}

/*
 * Told to keep the rings (o->first), the search never puts a third
 * ring flow on a link, even of a job whose ring is already slowed.
 */
static void test_rings_kept(void)
{
	struct rt_jobroute_opts o = { .first = nothing_first };
	struct gen_fattree g = { .levels = 2, .down = { 8, 8 }, .up = { 4 },
				 .parallel = 1 };
	unsigned int i, seed, over = 0;
	struct gen_opts go;
	char err[256];

	gen_opts_init(&go);
	for (i = 0; i < NTREES + 1; i++) {
		struct fabric *f = NULL;

		if (i < NTREES) {
			f = tree_fabric(i);
		} else {
			CU_ASSERT_FATAL(!gen_fattree(&g, &go, &f, err,
						     sizeof(err)));
			CU_ASSERT_FATAL(!fab_assign_lids(f, 0));
		}
		for (seed = 1; seed <= 6; seed++) {
			struct rt_summary sum;
			struct rt_tables t;
			struct rt_jobs js;
			struct tu_mix m;
			struct hops h;
			unsigned int before;

			tu_mix_make(&m, f, 2 + seed, seed, 80);
			tu_mix_jobs(&m, f, &js);
			CU_ASSERT_FATAL(!rt_route(f, RT_ENGINE_AUTO, NULL, &t,
						  &sum));
			hops_make(&h, &t);
			before = rings_over_two(&t, &js);
			CU_ASSERT_FATAL(!rt_jobroute(&t, &js, closer, &h, &o,
						     NULL));
			CU_ASSERT(rings_over_two(&t, &js) <= before);
			over += before;
			free(h.d);
			rt_tables_release(&t);
			rt_jobs_release(&js);
			tu_mix_free(&m);
		}
		fab_free(f);
	}
	CU_ASSERT(over > 0);
}

struct guarded {
	unsigned int runs, kept, gained_ring;
};

/*
 * rt_route() for a mix against the routing without jobs: correct, and
 * never slower on the model.  Kept, its scores are the model's on the
 * tables and beat the ones without; not kept, the tables are those
 * without jobs, byte for byte, and the summary says why.
 */
static void guarded_run(const struct fabric *f, enum rt_engine_id id,
			const struct rt_jobs *js, struct guarded *g)
{
	struct rt_model with, without;
	struct rt_summary s, s0;
	struct rt_tables t, t0;
	struct vf_report vr, v0;

	CU_ASSERT_FATAL(!rt_route(f, id, NULL, &t0, &s0));
	CU_ASSERT_FATAL(!rt_route(f, id, js, &t, &s));
	expect_correct(&t, &vr);
	expect_correct(&t0, &v0);
	CU_ASSERT_EQUAL(vr.pairs, v0.pairs);
	CU_ASSERT_FATAL(s.modelled);
	CU_ASSERT_FATAL(!rt_model_score(&t, js, &with));
	CU_ASSERT_FATAL(!rt_model_score(&t0, js, &without));
	CU_ASSERT(with.ring >= without.ring - 1e-9);
	CU_ASSERT(with.ring_worst >= without.ring_worst - 1e-9);
	CU_ASSERT(with.a2a >= without.a2a - 1e-9);
	CU_ASSERT(with.a2a_worst >= without.a2a_worst - 1e-9);
	CU_ASSERT(with.nccl >= without.nccl - 1e-9);
	CU_ASSERT(with.nccl_worst >= without.nccl_worst - 1e-9);
	if (s.jobs_kept) {
		CU_ASSERT(rt_model_better(&s.with, &s.without));
		CU_ASSERT(with.ring == s.with.ring && with.a2a == s.with.a2a);
		CU_ASSERT(without.a2a == s.without.a2a);
		g->kept++;
		g->gained_ring += with.ring > without.ring;
	} else {
		CU_ASSERT_EQUAL(tu_tables_hash(&t), tu_tables_hash(&t0));
		CU_ASSERT(!strncmp(s.jobs, "none (", 6));
	}
	g->runs++;
	rt_tables_release(&t);
	rt_tables_release(&t0);
}

/*
 * Fat-trees: the collective search wins on most mixes, and where it
 * loses the guard keeps the routing without jobs.
 */
static void test_trees(void)
{
	struct guarded g = { 0 };
	unsigned int i, seed;

	for (i = 0; i < NTREES; i++) {
		struct fabric *f = tree_fabric(i);

		for (seed = 1; seed <= 3; seed++) {
			struct rt_jobs js;
			struct tu_mix m;

			tu_mix_make(&m, f, 3 + seed, seed, 60);
			tu_mix_jobs(&m, f, &js);
			guarded_run(f, RT_ENGINE_AUTO, &js, &g);
			rt_jobs_release(&js);
			tu_mix_free(&m);
		}
		fab_free(f);
	}
	fprintf(stderr, "trees: %u of %u kept, %u faster rings\n", g.kept,
		g.runs, g.gained_ring);
	CU_ASSERT(g.kept * 2 > g.runs);
	CU_ASSERT(g.gained_ring * 2 >= g.kept);
}

/* The fat-tree engine's routing for js, before the guard, on the model. */
static void engine_model(const struct fabric *f, const struct rt_jobs *js,
			 struct rt_model *m)
{
	struct rt_tables t;
	struct ft_info ft;
	const char *use;

	CU_ASSERT_FATAL(!ft_recognise(f, &ft) && ft.tree);
	CU_ASSERT_FATAL(!rt_tables_init(&t, f));
	rt_tables_set_local(&t);
	CU_ASSERT_FATAL(!rt_fattree(f, &ft, js, &t, &use));
	CU_ASSERT_FATAL(!rt_model_score(&t, js, m));
	rt_tables_release(&t);
	ft_info_release(&ft);
}

/*
 * Rings whose hosts are listed in no order of leaves (hosts shuffled:
 * names by serial number) on intact 1:1 trees, two and three levels.
 * Each leaf sends and receives at most as many ring flows as it has up
 * links, so a colouring gives every ring flow links of its own: every
 * job's ring at line rate in the engine's routing.  The guard keeps it
 * unless a job's all-to-all pays, which on these small trees it seldom
 * does: where the LIDs permuted by d-mod-k's positions slow a job's
 * rounds, the tries that move the flows at their sources alone are
 * kept.
 */
static void test_shuffled_rings(void)
{
	struct fabric *f[] = { tu_tree(8, 2, 0, 0, 0), tu_tree(4, 3, 0, 0, 0) };
	unsigned int i, seed, jobs, runs = 0, kept = 0;

	for (i = 0; i < sizeof(f) / sizeof(*f); i++) {
		for (seed = 1; seed <= 3; seed++) {
			for (jobs = 1; jobs <= 4; jobs += 3) {
				struct rt_summary s;
				struct rt_tables t;
				struct rt_jobs js;
				struct rt_model m;
				struct tu_mix mx;

				tu_mix_make(&mx, f[i], jobs, seed, 60);
				tu_mix_jobs(&mx, f[i], &js);
				engine_model(f[i], &js, &m);
				CU_ASSERT(m.ring_worst > 1 - 1e-9);
				CU_ASSERT_FATAL(!rt_route(f[i], RT_ENGINE_AUTO,
							  &js, &t, &s));
				CU_ASSERT(s.without.ring_worst < 1);
				runs++;
				kept += s.jobs_kept &&
					s.with.ring_worst > 1 - 1e-9;
				rt_tables_release(&t);
				rt_jobs_release(&js);
				tu_mix_free(&mx);
			}
		}
		fab_free(f[i]);
	}
	fprintf(stderr, "shuffled rings: %u of %u kept at line rate\n", kept,
		runs);
	CU_ASSERT(kept * 6 >= runs * 5);
}

/*
 * The colouring on those trees leaves every switch link as many CA LIDs
 * as d-mod-k gave it (those below a switch permuted, none added), so a
 * random permutation's flows meet as often as without jobs: the
 * engine's routing with one search move after the colouring (which may
 * add a LID on the few links of one route) against the one without.
 */
static void test_colour_keeps_links(void)
{
	struct fabric *f[] = { tu_tree(8, 2, 0, 0, 0), tu_tree(4, 3, 0, 0, 0) };
	unsigned int i, seed, grown, moved;
	uint32_t e;

	for (i = 0; i < sizeof(f) / sizeof(*f); i++) {
		struct rt_tables t0, t;
		struct links l0, l;
		struct ft_info ft;
		const char *use;

		CU_ASSERT_FATAL(!ft_recognise(f[i], &ft) && ft.tree);
		CU_ASSERT_FATAL(!rt_tables_init(&t0, f[i]));
		rt_tables_set_local(&t0);
		CU_ASSERT_FATAL(!rt_fattree(f[i], &ft, NULL, &t0, &use));
		links_measure(&t0, &l0);
		for (seed = 1; seed <= 3; seed++) {
			struct rt_jobs js;
			struct rt_model m;
			struct tu_mix mx;
			size_t b;

			tu_mix_make(&mx, f[i], 4, seed, 60);
			tu_mix_jobs(&mx, f[i], &js);
			js.search_moves = 1;
			CU_ASSERT_FATAL(!rt_tables_init(&t, f[i]));
			rt_tables_set_local(&t);
			CU_ASSERT_FATAL(!rt_fattree(f[i], &ft, &js, &t, &use));
			CU_ASSERT_FATAL(!rt_model_score(&t, &js, &m));
			CU_ASSERT(m.ring_worst > 1 - 1e-9);
			links_measure(&t, &l);
			for (grown = 0, e = 0; e < f[i]->nports; e++)
				grown += l.lids[e] > l0.lids[e];
			for (moved = 0, b = 0; b < (size_t)t.nsw * (t.top + 1);
			     b++)
				moved += t.lft[b] != t0.lft[b];
			CU_ASSERT(moved > 0);
			CU_ASSERT(grown <= 4);
			CU_ASSERT(l.perm <= l0.perm + 2 * RT_JOBROUTE_PERM *
				  l0.hosts * l0.hosts * l0.hosts + 1e-6);
			links_free(&l);
			rt_tables_release(&t);
			rt_jobs_release(&js);
			tu_mix_free(&mx);
		}
		links_free(&l0);
		rt_tables_release(&t0);
		ft_info_release(&ft);
		fab_free(f[i]);
	}
}

/*
 * A 2:1 two-level tree (4 leaves of 4 hosts, 2 spines).  Job a's ring
 * crosses between leaves 0 and 1 four times, job b's between leaves 0
 * and 2 twice: leaf 0 has three ring flows out and three in for its two
 * up links, so two must share each way.  When a's two take the sharing,
 * b's ring runs at line rate and a's at half: mean 0.75, the best any
 * routing gets.  The engine's routing for the jobs, before the guard
 * (which may keep the one without: a's all-to-all pays for it).
 */
static void test_rings_2to1(void)
{
	static const char *const a[] = { "node0001", "node0005", "node0002",
					 "node0006" };
	static const char *const b[] = { "node0003", "node0009" };
	const struct rt_job_spec sp[] = { { "a", 1, a, 4 }, { "b", 1, b, 2 } };
	struct gen_fattree g = { .levels = 2, .down = { 4, 4 }, .up = { 2 },
				 .parallel = 1 };
	struct fabric *f = NULL;
	struct rt_model m;
	struct rt_jobs js;
	struct gen_opts o;
	char err[256];

	gen_opts_init(&o);
	CU_ASSERT_FATAL(!gen_fattree(&g, &o, &f, err, sizeof(err)));
	CU_ASSERT_FATAL(!fab_assign_lids(f, 0));
	CU_ASSERT_FATAL(!rt_jobs_build(&js, f, sp, 2, err, sizeof(err)));
	engine_model(f, &js, &m);
	CU_ASSERT(m.ring > 0.75 - 1e-9 && m.ring < 0.75 + 1e-9);
	CU_ASSERT(m.ring_worst > 0.5 - 1e-9);
	rt_jobs_release(&js);
	fab_free(f);
}

/*
 * Tori and dragonflies: never slower, the losing branch taken (their
 * planned ties gain nothing on these), and an empty job set routes as
 * none, byte for byte.
 */
static void test_vl_engines(void)
{
	struct guarded g = { 0 };
	unsigned int i, seed;
	char err[64];

	for (i = 0; i < NVL_FABRICS; i++) {
		enum rt_engine_id id;
		struct fabric *f = vl_fabric(i, &id);
		struct rt_tables a, b;
		struct rt_summary s;
		struct rt_jobs js;

		CU_ASSERT_FATAL(!rt_jobs_build(&js, f, NULL, 0, err,
					       sizeof(err)));
		CU_ASSERT_FATAL(!rt_route(f, id, NULL, &a, &s));
		CU_ASSERT_FATAL(!rt_route(f, id, &js, &b, &s));
		CU_ASSERT_EQUAL(tu_tables_hash(&a), tu_tables_hash(&b));
		CU_ASSERT(!s.modelled);
		rt_tables_release(&a);
		rt_tables_release(&b);
		rt_jobs_release(&js);
		for (seed = 1; seed <= 3; seed++) {
			struct tu_mix m;

			tu_mix_make(&m, f, 3 + seed, seed, 60);
			tu_mix_jobs(&m, f, &js);
			guarded_run(f, id, &js, &g);
			rt_jobs_release(&js);
			tu_mix_free(&m);
		}
		fab_free(f);
	}
	fprintf(stderr, "tori, dragonflies: %u of %u kept\n", g.kept, g.runs);
	CU_ASSERT(g.kept < g.runs);
}

/* The guard's rule, case by case. */
static void test_better(void)
{
	const struct rt_model base = { 0.5, 0.4, 0.3, 0.2, 0.45, 0.35 };
	struct rt_model m = base;

	CU_ASSERT(!rt_model_better(&m, &base));
	m.ring = 0.6;
	CU_ASSERT(rt_model_better(&m, &base));
	m.a2a_worst = 0.19;
	CU_ASSERT(!rt_model_better(&m, &base));
	m = base;
	m.a2a = 0.31;
	CU_ASSERT(rt_model_better(&m, &base));
	m.ring_worst = 0.39;
	CU_ASSERT(!rt_model_better(&m, &base));
	m = base;
	m.ring_worst = 0.45;
	CU_ASSERT(!rt_model_better(&m, &base));
	m = base;
	m.nccl = 0.5;
	CU_ASSERT(rt_model_better(&m, &base));
	m.nccl_worst = 0.34;
	CU_ASSERT(!rt_model_better(&m, &base));
	m = base;
	m.ring = 0.6;
	m.nccl = 0.44;
	CU_ASSERT(!rt_model_better(&m, &base));
}

/*
 * Two leaves of four hosts (a1-a4, b1-b4) under two spines: each leaf's
 * entry towards a host of the other leaf picks a spine (port 5 or 6).
 */
static struct fabric *two_leaves(void)
{
	static const char *const name[] = { "a1 hca", "a2 hca", "a3 hca",
		"a4 hca", "b1 hca", "b2 hca", "b3 hca", "b4 hca" };
	struct fabric *f = fab_new();
	uint32_t k;

	CU_ASSERT_FATAL(f != NULL);
	CU_ASSERT_FATAL(fab_add_node(f, FAB_SW, 6, 0x10, "leaf1") == 0);
	CU_ASSERT_FATAL(fab_add_node(f, FAB_SW, 6, 0x20, "leaf2") == 1);
	CU_ASSERT_FATAL(fab_add_node(f, FAB_SW, 2, 0x30, "spine1") == 2);
	CU_ASSERT_FATAL(fab_add_node(f, FAB_SW, 2, 0x40, "spine2") == 3);
	for (k = 0; k < 8; k++) {
		CU_ASSERT_FATAL(fab_add_node(f, FAB_CA, 1, 0x100 + k,
					     name[k]) == (int)(4 + k));
		CU_ASSERT_FATAL(!fab_link(f, k / 4, 1 + k % 4, 4 + k, 1, 4,
					  250));
	}
	for (k = 0; k < 4; k++)
		CU_ASSERT_FATAL(!fab_link(f, k / 2, 5 + k % 2, 2 + k % 2,
					  1 + k / 2, 4, 250));
	CU_ASSERT_FATAL(!fab_assign_lids(f, 0));
	return f;
}

/* Routing c of the two leaves: bit k picks the spine towards host k. */
static void two_leaves_route(struct rt_tables *t, unsigned int c)
{
	const struct fabric *f = t->fab;
	uint32_t k;

	for (k = 0; k < 8; k++) {
		uint32_t leaf = t->node_sw[k < 4 ? 1 : 0];
		unsigned int lid = fab_port(f, 4 + k, 1)->lid;

		rt_lft(t, leaf)[lid] = c >> k & 1 ? 6 : 5;
	}
}

/* Per job, pattern p's figure on t into bw (room for njobs). */
static void job_figures(const struct rt_tables *t, const struct rt_jobs *js,
			enum cs_pattern p, double *bw)
{
	struct cs_opts o = { .pattern = p };
	struct cs_result r;

	CU_ASSERT_FATAL(!cs_run(t, js, &o, &r));
	memcpy(bw, r.bw, js->njobs * sizeof(*bw));
	cs_result_release(&r);
}

/* A routing of the two leaves on the model: scores, and per job. */
struct two_run {
	struct rt_model m;
	double ring[2], nccl[2];
};

/*
 * Among the routings of the two leaves, pairs where one (a, for the
 * jobs) beats the other (b, without) on the rings, slows no job's ring,
 * is no slower on the pairwise all-to-all's mean and worst job over the
 * alignments, and yet slows a job's NCCL all-to-all: the rule on means
 * and worst jobs of the rings and pairwise all-to-all alone keeps a,
 * the guard must not.  Against such a b, whatever the guard keeps slows
 * no job's ring or NCCL all-to-all.
 */
static void test_guard_nccl(void)
{
	static const char *const h1[] = { "a1", "b1" };
	static const char *const h2[] = { "a2", "a3", "a4", "b2", "b3", "b4" };
	const struct rt_job_spec sp[] = {
		{ "j1", 1, h1, 2 }, { "j2", 1, h2, 6 },
	};
	struct fabric *f = two_leaves();
	struct two_run *x = calloc(256, sizeof(*x));
	unsigned int a, b, j, only = 0, kept = 0, fb = 256;
	struct rt_model ma, mb, oa, ob;
	struct rt_tables ta, tb;
	struct rt_summary s;
	struct rt_jobs js;
	char err[128];

	CU_ASSERT_FATAL(x != NULL);
	CU_ASSERT_FATAL(!rt_jobs_build(&js, f, sp, 2, err, sizeof(err)));
	CU_ASSERT_FATAL(!rt_route(f, RT_ENGINE_UPDOWN, NULL, &ta, &s));
	CU_ASSERT_FATAL(!rt_route(f, RT_ENGINE_UPDOWN, NULL, &tb, &s));
	for (a = 0; a < 256; a++) {
		two_leaves_route(&ta, a);
		CU_ASSERT_FATAL(!rt_model_score(&ta, &js, &x[a].m));
		job_figures(&ta, &js, CS_RING, x[a].ring);
		job_figures(&ta, &js, CS_NCCL_ALLTOALL, x[a].nccl);
	}
	for (a = 0; a < 256; a++)
		for (b = 0; b < 256; b++) {
			bool ring_ok = true, nccl_ok = true;

			for (j = 0; j < js.njobs; j++) {
				ring_ok &= x[a].ring[j] >= x[b].ring[j] - 1e-9;
				nccl_ok &= x[a].nccl[j] >= x[b].nccl[j] - 1e-9;
			}
			if (!ring_ok || nccl_ok ||
			    x[a].m.ring <= x[b].m.ring + 1e-9 ||
			    x[a].m.a2a < x[b].m.a2a - 1e-9 ||
			    x[a].m.a2a_worst < x[b].m.a2a_worst - 1e-9)
				continue;
			oa = x[a].m;
			ob = x[b].m;
			oa.nccl = oa.nccl_worst = ob.nccl = ob.nccl_worst = 0;
			CU_ASSERT(rt_model_better(&oa, &ob));
			if (only++ % 64)
				continue;
			two_leaves_route(&ta, a);
			two_leaves_route(&tb, b);
			CU_ASSERT(rt_model_judge(&ta, &tb, &js, &ma, &mb) == 0);
			CU_ASSERT(ma.nccl == x[a].m.nccl);
			fb = b;
		}
	CU_ASSERT_FATAL(fb < 256);
	two_leaves_route(&tb, fb);
	for (a = 0; a < 256; a++) {
		int v;

		two_leaves_route(&ta, a);
		v = rt_model_judge(&ta, &tb, &js, &ma, &mb);
		CU_ASSERT_FATAL(v >= 0);
		kept += v;
		for (j = 0; v && j < js.njobs; j++) {
			CU_ASSERT(x[a].ring[j] >= x[fb].ring[j] - 1e-9);
			CU_ASSERT(x[a].nccl[j] >= x[fb].nccl[j] - 1e-9);
		}
	}
	fprintf(stderr, "two leaves: %u pairs lose only on NCCL's all-to-all; against one, %u of 256 kept\n",
		only, kept);
	CU_ASSERT(kept > 0);
	rt_tables_release(&ta);
	rt_tables_release(&tb);
	rt_jobs_release(&js);
	fab_free(f);
	free(x);
}

TU_SUITE(jobroute,
	 { "search: correct, cheaper, others untouched", test_search },
	 { "search: no third ring flow on a link", test_rings_kept },
	 { "fat-trees: never slower on the model", test_trees },
	 { "fat-trees: shuffled rings at line rate", test_shuffled_rings },
	 { "fat-trees: coloured rings add no LID to a link",
	   test_colour_keeps_links },
	 { "fat-trees: 2:1, the sharing on one ring", test_rings_2to1 },
	 { "tori, dragonflies: never slower on the model", test_vl_engines },
	 { "guard: the rule", test_better },
	 { "guard: a job slower on NCCL's all-to-all", test_guard_nccl })
