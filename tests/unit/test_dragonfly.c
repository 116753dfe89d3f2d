// SPDX-License-Identifier: MIT
/*
 * Dragonfly recogniser and engine on generated dragonflies and
 * Dragonfly+: shapes and arrangements, every single cable failure of the
 * 9-group ones, LMC LIDs on other global cables, all checked by the
 * verifier's per-VL dependency graph.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tu.h"
#include "tu_golden.h"
#include "tu_route.h"
#include "routing/dragonfly/answers.h"
#include "routing/route.h"
#include "routing/verify.h"
#include "topology/dflyrec.h"
#include "topology/gen.h"
#include "topology/torusrec.h"

struct shape {
	bool plus;
	unsigned int hosts, switches, spines, global, groups;
	enum gen_df_arrangement arr;
	/* what the recogniser must report */
	unsigned int g, a, p, h;
	const char *arrangement;
};

static const struct shape shapes[] = {
	{ false, 2, 4, 0, 2, 0, GEN_DF_ABSOLUTE, 9, 4, 2, 2, "canonical" },
	{ false, 2, 4, 0, 2, 0, GEN_DF_RELATIVE, 9, 4, 2, 2, "canonical" },
	{ false, 1, 4, 0, 2, 5, GEN_DF_ABSOLUTE, 5, 4, 1, 2, "2 per group pair" },
	{ false, 2, 4, 0, 2, 3, GEN_DF_ABSOLUTE, 3, 4, 2, 2, "4 per group pair" },
	{ false, 4, 8, 0, 4, 0, GEN_DF_ABSOLUTE, 33, 8, 4, 4, "canonical" },
	{ false, 2, 6, 0, 3, 0, GEN_DF_RELATIVE, 19, 6, 2, 3, "canonical" },
	{ true, 4, 4, 4, 2, 0, GEN_DF_ABSOLUTE, 9, 4, 4, 2, "canonical" },
	{ true, 2, 4, 2, 2, 5, GEN_DF_ABSOLUTE, 5, 4, 2, 2, "canonical" },
	{ true, 4, 4, 4, 2, 5, GEN_DF_RELATIVE, 5, 4, 4, 2, "2 per group pair" },
};

#define NSHAPES (sizeof(shapes) / sizeof(shapes[0]))

static struct fabric *build(const struct shape *sh, const struct gen_opts *o,
			    double drop_global, double drop_local,
			    unsigned int lmc)
{
	struct gen_dragonfly d;
	struct fabric *f = NULL;
	char err[256];

	gen_dragonfly_init(&d, sh->plus);
	d.hosts = sh->hosts;
	d.switches = sh->switches;
	if (sh->plus)
		d.spines = sh->spines;
	d.global = sh->global;
	d.groups = sh->groups;
	d.arrangement = sh->arr;
	d.drop_global = drop_global;
	d.drop_local = drop_local;
	if (gen_dragonfly(&d, o, &f, err, sizeof(err)))
		fprintf(stderr, "gen_dragonfly: %s\n", err);
	CU_ASSERT_FATAL(f != NULL);
	CU_ASSERT_FATAL(!fab_assign_lids(f, lmc));
	return f;
}

static struct fabric *plain(const struct shape *sh, bool shuffle)
{
	struct gen_opts o;

	gen_opts_init(&o);
	o.shuffle = shuffle;
	o.shuffle_seed = 11;
	return build(sh, &o, 0, 0, 0);
}

/* Global cables the recogniser marked, each counted once. */
static size_t globals(const struct fabric *f, const struct df_info *di)
{
	size_t n = 0, i;

	for (i = 0; i < f->nports; i++)
		n += di->global[i];
	return n / 2;
}

static void test_recognise_shapes(void)
{
	const struct shape *sh;
	struct df_info di;
	size_t i;
	int s;

	for (i = 0; i < NSHAPES; i++)
		for (s = 0; s < 2; s++) {
			struct fabric *f = plain(&shapes[i], s);

			sh = &shapes[i];
			CU_ASSERT_FATAL(!df_recognise(f, &di));
			CU_ASSERT(di.dragonfly);
			CU_ASSERT_EQUAL(di.plus, sh->plus);
			CU_ASSERT_EQUAL(di.ngroups, sh->g);
			CU_ASSERT_EQUAL(di.a, sh->a);
			CU_ASSERT_EQUAL(di.p, sh->p);
			CU_ASSERT_EQUAL(di.h, sh->h);
			CU_ASSERT_EQUAL(di.spines, sh->plus ? sh->spines : 0);
			CU_ASSERT_EQUAL(di.unjoined, 0);
			CU_ASSERT_EQUAL(di.missing_local, 0);
			CU_ASSERT_STRING_EQUAL(di.arrangement, sh->arrangement);
			if (!di.dragonfly) {
				fprintf(stderr, "shape %zu: %s\n", i,
					di.summary);
			} else {
				CU_ASSERT_EQUAL(globals(f, &di),
						(size_t)sh->g * sh->h *
						(sh->plus ? sh->spines :
						 sh->switches) / 2);
			}
			df_info_release(&di);
			fab_free(f);
		}
}

/* Every switch of one group in one group, for each group. */
static void check_groups(const struct fabric *f, const struct df_info *di)
{
	char name[64];
	uint32_t n, seen[64];
	unsigned int g;

	memset(seen, 0xff, sizeof(seen));
	for (n = 0; n < f->nnodes; n++) {
		if (!fab_is_sw(f, n))
			continue;
		CU_ASSERT_EQUAL_FATAL(sscanf(f->nodes[n].desc, "g%u-%63s", &g,
					     name), 2);
		CU_ASSERT_FATAL(g < 64);
		if (seen[g] == UINT32_MAX)
			seen[g] = di->group[n];
		CU_ASSERT_EQUAL(di->group[n], seen[g]);
	}
}

static void test_recognise_failures(void)
{
	static const struct {
		size_t shape;
		double drop_global, drop_local;
		uint64_t seed;
	} cases[] = {
		{ 0, 0.1, 0, 2 }, { 0, 0, 0.1, 2 }, { 0, 0.05, 0.05, 3 },
		{ 4, 0.02, 0, 1 }, { 4, 0, 0.03, 1 }, { 6, 0.1, 0, 4 },
		{ 6, 0, 0.1, 4 }, { 1, 0.1, 0.05, 7 },
		/* switches left with global triangles only, once groups */
		{ 4, 0, 0.1, 1 }, { 4, 0, 0.1, 4 }, { 4, 0, 0.1, 12 },
	};
	const struct shape *sh;
	struct gen_opts o;
	struct df_info di;
	size_t i, full, have;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct fabric *f;

		sh = &shapes[cases[i].shape];
		gen_opts_init(&o);
		o.seed = cases[i].seed;
		f = build(sh, &o, cases[i].drop_global, cases[i].drop_local,
			  0);
		CU_ASSERT_FATAL(!df_recognise(f, &di));
		CU_ASSERT(di.dragonfly);
		if (!di.dragonfly) {
			fprintf(stderr, "case %zu: %s\n", i, di.summary);
			fab_free(f);
			continue;
		}
		CU_ASSERT_EQUAL(di.ngroups, sh->g);
		check_groups(f, &di);
		full = (size_t)sh->g * sh->h *
		       (sh->plus ? sh->spines : sh->switches) / 2;
		have = globals(f, &di);
		CU_ASSERT_EQUAL(have < full, cases[i].drop_global > 0);
		/* canonical: one cable per pair, so each lost one unjoins */
		CU_ASSERT_EQUAL(di.unjoined, full - have);
		CU_ASSERT_EQUAL(di.missing_local > 0, cases[i].drop_local > 0);
		CU_ASSERT(strstr(di.summary, "missing") != NULL ||
			  !cases[i].drop_local);
		df_info_release(&di);
		fab_free(f);
	}
}

static void test_not_dragonfly(void)
{
	struct gen_fattree ft;
	struct gen_torus tg;
	struct gen_opts o;
	struct fabric *f = NULL;
	struct df_info di;
	char err[256];

	gen_opts_init(&o);
	CU_ASSERT_FATAL(!gen_fattree_kary(&ft, 4, 3, err, sizeof(err)));
	CU_ASSERT_FATAL(!gen_fattree(&ft, &o, &f, err, sizeof(err)));
	CU_ASSERT_FATAL(!df_recognise(f, &di));
	CU_ASSERT(!di.dragonfly);
	CU_ASSERT(strstr(di.summary, "not a dragonfly: ") == di.summary);
	CU_ASSERT(*di.reason);
	df_info_release(&di);
	fab_free(f);

	CU_ASSERT_FATAL(!gen_fattree_kary(&ft, 4, 2, err, sizeof(err)));
	CU_ASSERT_FATAL(!gen_fattree(&ft, &o, &f, err, sizeof(err)));
	CU_ASSERT_FATAL(!df_recognise(f, &di));
	CU_ASSERT(!di.dragonfly);
	CU_ASSERT(strstr(di.reason, "fat-tree") != NULL);
	df_info_release(&di);
	fab_free(f);

	gen_torus_init(&tg, true);
	tg.ndims = 3;
	tg.dim[0] = tg.dim[1] = tg.dim[2] = 4;
	CU_ASSERT_FATAL(!gen_torus(&tg, &o, &f, err, sizeof(err)));
	CU_ASSERT_FATAL(!df_recognise(f, &di));
	CU_ASSERT(!di.dragonfly);
	CU_ASSERT(*di.reason);
	df_info_release(&di);
	fab_free(f);
}

/*
 * Route f with engine id and verify it with the engine's own SLs and
 * SL2VL: every pair delivered, no credit loop, the switches' own
 * routes included, at most max_vl VLs and max_hops switch hops (0: no
 * bound), and the tables made by engine (NULL: any).
 */
static void route_with(struct fabric *f, enum rt_engine_id id,
		       const char *engine, unsigned int max_vl,
		       unsigned int max_hops, const char *what)
{
	struct vf_opts o = { .ebb_perms = 0 };
	unsigned int lo = 0, hi = 0;
	struct rt_summary s;
	struct vf_report r;
	struct rt_tables t;
	const char *own;
	int ret;

	ret = rt_route(f, id, NULL, &t, &s);
	CU_ASSERT_EQUAL(ret, 0);
	if (ret) {
		fprintf(stderr, "%s: %d %s\n", what, ret, s.detail);
		rt_tables_release(&t);
		return;
	}
	if (engine)
		CU_ASSERT_STRING_EQUAL(s.engine, engine);
	if (engine && strcmp(s.engine, engine))
		fprintf(stderr, "%s: engine %s, want %s: %s\n", what, s.engine,
			engine, s.detail);
	CU_ASSERT_FATAL(!vf_check(&t, &o, &r));
	/* the switches' own packets ride the data VLs: no credit loop */
	CU_ASSERT(r.mgmt_cdg);
	CU_ASSERT(vf_ok(&r));
	CU_ASSERT(!r.mgmt_cycle);
	/*
	 * The switches' answers to hosts ride the request's SL: free of a
	 * credit loop, on the data's SLs or on SLs of their own.
	 */
	CU_ASSERT(!r.answer_cycle);
	if (r.answer_cycle)
		fprintf(stderr, "%s: answer cycle on VL %u: %s\n", what,
			r.answer_cycle_vl, s.detail);
	CU_ASSERT_EQUAL(r.mgmt_loops, 0);
	CU_ASSERT_EQUAL(r.unreachable, 0);
	CU_ASSERT_EQUAL(r.disconnected, 0);
	CU_ASSERT(r.cdg_checked && !r.cdg_cycle);
	/* the answers' own VLs above the data's, within the ports' */
	own = strstr(s.detail, "switch answers on own VLs ");
	if (own) {
		CU_ASSERT_EQUAL(sscanf(own, "switch answers on own VLs %u-%u",
				       &lo, &hi), 2);
		CU_ASSERT(lo <= max_vl && hi + 1 == s.nvl);
		max_vl = DFA_MAX_VL;
	}
	CU_ASSERT(s.nvl <= max_vl);
	CU_ASSERT(r.nvl <= s.nvl);
	if (max_hops) {
		CU_ASSERT(r.max_hops <= max_hops);
	}
	if (!vf_ok(&r) || s.nvl > max_vl ||
	    (max_hops && r.max_hops > max_hops))
		fprintf(stderr, "%s: %u VLs, %u hops, %llu unreachable, cycle %d, mgmt cycle %d: %s\n",
			what, s.nvl, r.max_hops,
			(unsigned long long)r.unreachable, r.cdg_cycle,
			r.mgmt_cycle, s.detail);
	rt_tables_release(&t);
}

static void route_verify(struct fabric *f, unsigned int max_vl,
			 unsigned int max_hops, const char *what)
{
	route_with(f, RT_ENGINE_DRAGONFLY, "dragonfly", max_vl, max_hops,
		   what);
}

static void test_engine_intact(void)
{
	char what[64];
	size_t i;

	for (i = 0; i < NSHAPES; i++) {
		struct fabric *f = plain(&shapes[i], i % 2);

		snprintf(what, sizeof(what), "shape %zu", i);
		/* local, global, local: three switch-to-switch hops */
		route_verify(f, 2, 3, what);
		fab_free(f);
	}
}

/*
 * Intact Dragonfly+ at LMC 0 and 1: every CA and every switch reaches
 * every switch LID (PerfMgr, perfquery), and the switches' answers on
 * the requests' SLs close no credit loop.  A spine's LID is two local
 * hops from the far end of most global cables into its group.  On 9
 * groups at LMC 1 the LMC LIDs' answers through a third group leave
 * too few SLs for most spines' requests (docs/benchmarks.md): there
 * only the answers are checked.
 */
static void test_plus_switch_lids(void)
{
	struct vf_opts vo = { .ebb_perms = 0 };
	struct rt_summary s;
	struct vf_report r;
	struct rt_tables t;
	struct gen_opts o;
	unsigned int lmc;
	size_t i;

	for (i = 0; i < NSHAPES; i++)
		for (lmc = 0; shapes[i].plus && lmc < 2; lmc++) {
			struct fabric *f;

			gen_opts_init(&o);
			o.shuffle = i % 2;
			o.shuffle_seed = 11;
			f = build(&shapes[i], &o, 0, 0, lmc);
			CU_ASSERT_FATAL(!rt_route(f, RT_ENGINE_DRAGONFLY, NULL,
						  &t, &s));
			CU_ASSERT_FATAL(!vf_check(&t, &vo, &r));
			CU_ASSERT(vf_ok(&r) && r.mgmt_cdg && !r.mgmt_cycle);
			if (!lmc || shapes[i].g < 9) {
				CU_ASSERT_EQUAL(r.sw_unreachable, 0);
				CU_ASSERT_EQUAL(r.mgmt_unreachable, 0);
			}
			CU_ASSERT(!r.answer_cycle);
			CU_ASSERT(!strstr(s.detail, "switch answers unchecked"));
			if (((!lmc || shapes[i].g < 9) &&
			     (r.sw_unreachable || r.mgmt_unreachable)) ||
			    r.answer_cycle)
				fprintf(stderr, "shape %zu LMC %u: %llu CA-switch, %llu switch-sourced without a route, answer cycle %d: %s\n",
					i, lmc,
					(unsigned long long)r.sw_unreachable,
					(unsigned long long)r.mgmt_unreachable,
					r.answer_cycle, s.detail);
			rt_tables_release(&t);
			fab_free(f);
		}
}

/*
 * Every cable of one kind of an intact shape with LIDs at LMC lmc cut in
 * turn, then routed by the dragonfly engine and verified: every pair
 * delivered, no credit loop, two VLs (three with LMC).  A Dragonfly+ leaf
 * that lost a spine leaves through its other spines, and the spine
 * reaches it through another leaf.
 */
static void cut_one(const struct shape *sh, bool global, unsigned int lmc)
{
	struct gen_opts o;
	struct fabric *f = plain(sh, false);
	struct df_info di;
	char what[96];
	size_t cut = 0;
	uint32_t n;
	unsigned int p;

	CU_ASSERT_FATAL(!df_recognise(f, &di));
	CU_ASSERT_FATAL(di.dragonfly);
	for (n = 0; n < f->nnodes; n++) {
		for (p = 1; fab_is_sw(f, n) && p <= f->nodes[n].nports; p++) {
			const struct fab_port *fp = fab_port(f, n, p);
			struct fabric *g;

			if (fp->peer == FAB_NONE || !fab_is_sw(f, fp->peer) ||
			    fp->peer < n ||
			    di.global[f->nodes[n].port0 + p] != global)
				continue;
			gen_opts_init(&o);
			g = build(sh, &o, 0, 0, lmc);
			CU_ASSERT_FATAL(!fab_unlink(g, n, p));
			snprintf(what, sizeof(what), "%s LMC %u without %s[%u]",
				 sh->plus ? "Dragonfly+" : "dragonfly", lmc,
				 f->nodes[n].desc, p);
			route_verify(g, lmc ? 3 : 2, 0, what);
			fab_free(g);
			cut++;
		}
	}
	CU_ASSERT(cut > 0);
	df_info_release(&di);
	fab_free(f);
}

/* Every single global and every single local cable of 9-group ones. */
static void test_engine_one_cable_cut(void)
{
	cut_one(&shapes[0], true, 0);
	cut_one(&shapes[0], false, 0);
	cut_one(&shapes[6], true, 0);
	cut_one(&shapes[6], false, 0);
	cut_one(&shapes[7], false, 0);
	cut_one(&shapes[8], false, 0);
	cut_one(&shapes[7], false, 1);
	cut_one(&shapes[6], false, 1);
	cut_one(&shapes[8], false, 1);
}

/*
 * Several cables cut: where no switch of a third group is cabled to
 * both ends of a lost global cable the way round takes a local hop
 * there and a third VL.  Many lost local cables can leave detours that
 * close a credit loop, which the engine finds and refuses; auto then
 * routes up*-down*, as it does Dragonfly+ with lost leaf-spine cables
 * (see cut_one()).  Either way every pair is delivered without a loop.
 */
static void test_engine_degraded(void)
{
	static const double drops[][2] = {
		{ 0.1, 0 }, { 0, 0.1 }, { 0.05, 0.05 }, { 0.2, 0 },
	};
	static const size_t which[] = { 0, 1, 4, 6 };
	struct gen_opts o;
	char what[64];
	size_t i, w, s;
	uint64_t seed;

	for (w = 0; w < sizeof(which) / sizeof(which[0]); w++)
		for (i = 0; i < sizeof(drops) / sizeof(drops[0]); i++)
			for (seed = 1; seed <= 3; seed++) {
				struct fabric *f;

				gen_opts_init(&o);
				o.seed = seed;
				s = which[w];
				f = build(&shapes[s], &o, drops[i][0],
					  drops[i][1], 0);
				snprintf(what, sizeof(what),
					 "shape %zu drop %g/%g seed %llu", s,
					 drops[i][0], drops[i][1],
					 (unsigned long long)seed);
				route_with(f, drops[i][1] > 0 ?
					   RT_ENGINE_AUTO : RT_ENGINE_DRAGONFLY,
					   drops[i][1] > 0 ? NULL : "dragonfly",
					   3, 0, what);
				fab_free(f);
			}
}

/*
 * A degraded dragonfly whose answers take VLs of their own, where the SM
 * can program only the data's VLs: the engine keeps within them and
 * says its answers are unchecked, rather than needing more VLs and
 * being replaced by up*-down*.
 */
static void test_answers_vl_budget(void)
{
	unsigned int lo = 0, hi = 0;
	struct rt_summary s;
	struct vf_report r;
	struct rt_tables t;
	struct gen_opts o;
	struct fabric *f;
	const char *own;

	gen_opts_init(&o);
	o.seed = 1;
	f = build(&shapes[6], &o, 0, 0.1, 0);
	CU_ASSERT_FATAL(!rt_route(f, RT_ENGINE_DRAGONFLY, NULL, &t, &s));
	own = strstr(s.detail, "switch answers on own VLs ");
	CU_ASSERT_PTR_NOT_NULL_FATAL(own);
	CU_ASSERT_EQUAL_FATAL(sscanf(own, "switch answers on own VLs %u-%u",
				     &lo, &hi), 2);
	rt_tables_release(&t);
	f->vls = lo;
	CU_ASSERT_FATAL(!rt_route(f, RT_ENGINE_DRAGONFLY, NULL, &t, &s));
	CU_ASSERT(s.nvl <= lo);
	CU_ASSERT_FATAL(!vf_check(&t, &(struct vf_opts){ .ebb_perms = 0 }, &r));
	CU_ASSERT(vf_ok(&r) && !r.cdg_cycle && !r.mgmt_cycle);
	CU_ASSERT(!r.answer_cycle || strstr(s.detail, "unchecked"));
	CU_ASSERT_PTR_NULL(strstr(s.detail, "switch answers on own VLs "));
	rt_tables_release(&t);
	fab_free(f);
}

/*
 * Dragonfly+ with several leaf-spine cables lost (two to twenty-two), at
 * LMC 0 and 1.  The engine routes most, on 3 VLs at most: ways round
 * that take a local hop in a third group may need the third VL at LMC 0
 * too.  Where the ways round clash on every SL it has for them, or the
 * routes off the pattern would close a credit loop (the dependency check
 * finds it), it refuses and up*-down* routes.  The engine is recorded
 * per case; every routing is verified clean either way.
 */
static void test_plus_cuts(void)
{
	static const struct {
		size_t shape;
		unsigned int lmc;
		double drop_local;
		uint64_t seed;
		const char *engine;
	} cases[] = {
		{ 6, 0, 0.02, 1, "dragonfly" },
		{ 6, 0, 0.02, 2, "dragonfly" },
		{ 6, 0, 0.04, 1, "dragonfly" },
		{ 6, 0, 0.04, 2, "dragonfly" },
		{ 6, 0, 0.08, 1, "dragonfly" },
		{ 6, 0, 0.08, 2, "dragonfly" },
		{ 6, 0, 0.15, 1, "updown" },
		{ 6, 0, 0.15, 2, "dragonfly" },
		{ 7, 0, 0.04, 1, "dragonfly" },
		{ 7, 0, 0.04, 2, "dragonfly" },
		{ 7, 0, 0.08, 1, "dragonfly" },
		{ 7, 0, 0.08, 2, "dragonfly" },
		{ 7, 0, 0.15, 1, "dragonfly" },
		{ 7, 0, 0.15, 2, "dragonfly" },
		{ 8, 0, 0.02, 1, "dragonfly" },
		{ 8, 0, 0.02, 2, "dragonfly" },
		{ 8, 0, 0.04, 1, "dragonfly" },
		{ 8, 0, 0.04, 2, "dragonfly" },
		{ 8, 0, 0.08, 1, "dragonfly" },
		{ 8, 0, 0.08, 2, "dragonfly" },
		{ 8, 0, 0.15, 1, "dragonfly" },
		{ 8, 0, 0.15, 2, "dragonfly" },
		{ 6, 1, 0.02, 1, "dragonfly" },
		{ 6, 1, 0.02, 2, "dragonfly" },
		{ 6, 1, 0.04, 1, "dragonfly" },
		{ 6, 1, 0.04, 2, "updown" },
		{ 6, 1, 0.08, 1, "updown" },
		{ 6, 1, 0.08, 2, "updown" },
		{ 6, 1, 0.15, 1, "updown" },
		{ 6, 1, 0.15, 2, "updown" },
		{ 7, 1, 0.04, 1, "dragonfly" },
		{ 7, 1, 0.04, 2, "dragonfly" },
		{ 7, 1, 0.08, 1, "dragonfly" },
		{ 7, 1, 0.08, 2, "dragonfly" },
		{ 7, 1, 0.15, 1, "dragonfly" },
		{ 7, 1, 0.15, 2, "dragonfly" },
		{ 8, 1, 0.02, 1, "dragonfly" },
		{ 8, 1, 0.02, 2, "dragonfly" },
		{ 8, 1, 0.04, 1, "dragonfly" },
		{ 8, 1, 0.04, 2, "dragonfly" },
		{ 8, 1, 0.08, 1, "dragonfly" },
		{ 8, 1, 0.08, 2, "dragonfly" },
		{ 8, 1, 0.15, 1, "dragonfly" },
		{ 8, 1, 0.15, 2, "dragonfly" },
	};
	struct gen_opts o;
	struct df_info di;
	char what[64];
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct fabric *f;

		gen_opts_init(&o);
		o.seed = cases[i].seed;
		f = build(&shapes[cases[i].shape], &o, 0, cases[i].drop_local,
			  cases[i].lmc);
		CU_ASSERT_FATAL(!df_recognise(f, &di));
		CU_ASSERT(di.missing_local >= 2);
		snprintf(what, sizeof(what), "Dragonfly+ case %zu, %zu cuts", i,
			 di.missing_local);
		route_with(f, RT_ENGINE_AUTO, cases[i].engine, 3, 0, what);
		df_info_release(&di);
		fab_free(f);
	}
}

/*
 * Degraded dragonflies whose switches' own routes closed a credit loop
 * (see route_with()): the engine moves a spine's own packets to another
 * SL, an entry no host's route passes to another neighbour, or, on the
 * last, leaves a few entries empty; each way is taken, and the routing
 * is clean.
 */
static void test_own_repair(void)
{
	static const struct {
		size_t shape;
		unsigned int lmc;
		double drop_global, drop_local;
		uint64_t seed;
		unsigned int way;	/* 0 SL, 1 port, 2 cut */
	} cases[] = {
		{ 6, 0, 0, 0.04, 2, 0 },
		{ 4, 0, 0.2, 0, 1, 1 },
		{ 8, 1, 0, 0.15, 5, 2 },
	};
	struct rt_summary s;
	struct rt_tables t;
	struct gen_opts o;
	size_t n[3], i;
	char what[64];
	const char *p;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct fabric *f;

		gen_opts_init(&o);
		o.seed = cases[i].seed;
		f = build(&shapes[cases[i].shape], &o, cases[i].drop_global,
			  cases[i].drop_local, cases[i].lmc);
		snprintf(what, sizeof(what), "own routes case %zu", i);
		route_with(f, RT_ENGINE_DRAGONFLY, "dragonfly", 3, 0, what);
		CU_ASSERT_FATAL(!rt_route(f, RT_ENGINE_DRAGONFLY, NULL, &t, &s));
		p = strstr(s.detail, "own routes off credit loops: ");
		CU_ASSERT_PTR_NOT_NULL(p);
		if (p) {
			CU_ASSERT_EQUAL(sscanf(p, "own routes off credit loops: %zu SL, %zu port, %zu cut",
					       &n[0], &n[1], &n[2]), 3);
			CU_ASSERT(n[cases[i].way] > 0);
		}
		rt_tables_release(&t);
		fab_free(f);
	}
}

/*
 * Follow t from switch sw to lid; the first global cable crossed, as
 * the port index in the fabric, or SIZE_MAX when none is.
 */
static size_t first_global(const struct rt_tables *t,
			   const struct df_info *di, uint32_t sw,
			   unsigned int lid)
{
	const struct fabric *f = t->fab;
	unsigned int hops, p;
	uint32_t n;

	for (hops = 0; hops < 16; hops++) {
		n = t->sw_node[sw];
		p = rt_lft(t, sw)[lid];
		if (p == RT_NO_PATH || p == 0)
			return SIZE_MAX;
		if (di->global[f->nodes[n].port0 + p])
			return f->nodes[n].port0 + p;
		n = fab_port(f, n, p)->peer;
		if (n == FAB_NONE || !fab_is_sw(f, n))
			return SIZE_MAX;
		sw = t->node_sw[n];
	}
	return SIZE_MAX;
}

/*
 * The SL and VL callbacks answer the same through a carrier that holds
 * only the VL tables, as the plugin calls them after the sweep (the
 * fabric is gone by then; touching it here would crash).
 */
static void carrier_agrees(const struct rt_tables *t)
{
	struct rt_tables c = { .vl = t->vl };
	unsigned int in, out, sl, lid;
	uint32_t sw;

	CU_ASSERT_FATAL(t->vl != NULL);
	for (sw = 0; sw < t->nsw; sw++)
		for (in = 0; in <= 8; in++)
			for (out = 1; out <= 8; out++)
				for (sl = 0; sl < 16; sl++)
					CU_ASSERT_EQUAL(t->vl->sl2vl(&c, sw, in, out, sl),
							t->vl->sl2vl(t, sw, in, out, sl));
	for (lid = 1; lid <= t->top; lid++)
		CU_ASSERT_EQUAL(t->vl->path_sl(&c, 1, lid),
				t->vl->path_sl(t, 1, lid));
}

/*
 * With LMC, a host's other LIDs leave the source group on another
 * global cable than the base LID: a sender that picks another DLID gets
 * another path.  Counted over every hosted switch and every CA port of
 * another group; every LMC index is checked against the base.
 */
static void lmc_spread(const struct shape *sh, unsigned int lmc)
{
	struct vf_opts vo = { .ebb_perms = 0 };
	struct fabric *f;
	struct df_info di;
	struct rt_summary s;
	struct vf_report r;
	struct rt_tables t;
	size_t pairs = 0, differ = 0, lids = 0, spread = 0, base, other;
	bool some;
	uint32_t sw, n, c;
	unsigned int li;

	{
		struct gen_opts o;

		gen_opts_init(&o);
		f = build(sh, &o, 0, 0, lmc);
	}
	CU_ASSERT_FATAL(!df_recognise(f, &di));
	CU_ASSERT_FATAL(!rt_route(f, RT_ENGINE_DRAGONFLY, NULL, &t, &s));
	CU_ASSERT_FATAL(!vf_check(&t, &vo, &r));
	/* the switches' own routes: see route_with() */
	CU_ASSERT(vf_ok(&r) && r.mgmt_cdg);
	CU_ASSERT(s.nvl <= 3);
	for (sw = 0; sw < t.nsw; sw++) {
		n = t.sw_node[sw];
		if (di.spine[n])
			continue;
		for (c = 0; c < f->nnodes; c++) {
			const struct fab_port *cp;
			uint32_t leaf;

			if (fab_is_sw(f, c))
				continue;
			cp = fab_port(f, c, 1);
			leaf = cp->peer;
			if (leaf == FAB_NONE || di.group[leaf] == di.group[n])
				continue;
			base = first_global(&t, &di, sw, cp->lid);
			CU_ASSERT(base != SIZE_MAX);
			some = false;
			for (li = 1; li < 1u << lmc; li++) {
				other = first_global(&t, &di, sw, cp->lid + li);
				CU_ASSERT(other != SIZE_MAX);
				lids++;
				differ += other != base;
				some |= other != base;
			}
			pairs++;
			spread += some;
		}
	}
	/*
	 * Each LMC LID goes through a group I from every group but its
	 * own, I and E = I + delta: (g - 3) / (g - 1) of the sources; with
	 * three LMC LIDs of different classes every pair has another
	 * cable on one of them.
	 */
	CU_ASSERT(pairs > 0);
	CU_ASSERT(differ * (di.ngroups - 1) >= lids * (di.ngroups - 3));
	if (lmc > 1)
		CU_ASSERT_EQUAL(spread, pairs);
	if (getenv("TU_VERBOSE") ||
	    differ * (di.ngroups - 1) < lids * (di.ngroups - 3))
		fprintf(stderr, "LMC %u: %zu of %zu LMC routes, %zu of %zu pairs on another cable\n",
			lmc, differ, lids, spread, pairs);
	carrier_agrees(&t);
	rt_tables_release(&t);
	df_info_release(&di);
	fab_free(f);
}

static void test_lmc_other_global(void)
{
	lmc_spread(&shapes[0], 1);
	lmc_spread(&shapes[0], 2);
	lmc_spread(&shapes[6], 1);
	lmc_spread(&shapes[6], 2);
	lmc_spread(&shapes[5], 2);
}

/* LMC on degraded fabrics: every pair delivered, no credit loop. */
static void test_lmc_degraded(void)
{
	static const double drops[][2] = { { 0.1, 0 }, { 0, 0.05 }, { 0.05, 0.05 } };
	static const size_t which[] = { 0, 4, 6 };
	struct gen_opts o;
	char what[64];
	size_t i, w;

	for (w = 0; w < sizeof(which) / sizeof(which[0]); w++)
		for (i = 0; i < sizeof(drops) / sizeof(drops[0]); i++) {
			struct fabric *f;

			gen_opts_init(&o);
			o.seed = 1 + i;
			f = build(&shapes[which[w]], &o, drops[i][0],
				  drops[i][1], 1);
			snprintf(what, sizeof(what), "LMC 1 shape %zu drop %g/%g",
				 which[w], drops[i][0], drops[i][1]);
			route_with(f, RT_ENGINE_AUTO, NULL, 3, 0, what);
			fab_free(f);
		}
}

/*
 * The dragonfly engine's whole output (LFTs, path SLs, SL2VL) on every
 * intact shape, at LMC 0, 1 and 2, and with lost global cables or lost
 * local cables of plain dragonflies, against recorded hashes: a change
 * of the engine must not move a table entry of these unless it means to
 * (the Dragonfly+ ones were recorded again when switches without hosts
 * stopped taking SLs for their ways round, which changed only their
 * path SLs and the SL2VL entries those SLs held, and again when their own
 * routes were held to the data's VLs, which changed only their path SLs,
 * their entries no host's route passes and the SL2VL entries of the ways
 * round they took; all again when a host's request to a switch LID took
 * the SL of the switch's route back, which changed only those path SLs;
 * the Dragonfly+ ones again when spines' LIDs were reached down a leaf
 * and up after the global hop, which changed only switch LIDs' entries,
 * the path SLs from and to switch LIDs and SL2VL entries).
 */
static void test_golden(void)
{
	static const struct {
		size_t shape;
		unsigned int lmc;
		double drop_global, drop_local;
		uint64_t hash;
	} cases[] = {
		{ 0, 0, 0, 0, 0xb16950cc8f2a573ull },
		{ 1, 0, 0, 0, 0x8b15a69e9e16a087ull },
		{ 2, 0, 0, 0, 0xd5642f7b9dff9ffbull },
		{ 3, 0, 0, 0, 0x7cbb332156de109dull },
		{ 4, 0, 0, 0, 0xe453ff91aca16597ull },
		{ 5, 0, 0, 0, 0xec921fd5507df925ull },
		{ 6, 0, 0, 0, 0x6a3505963aeec64full },
		{ 7, 0, 0, 0, 0xcac9e59a1eb9443bull },
		{ 8, 0, 0, 0, 0x6fb3ad17518d840bull },
		{ 0, 1, 0, 0, 0xf88fd686425a0d07ull },
		{ 0, 2, 0, 0, 0x25e3c3ede87225d2ull },
		{ 6, 1, 0, 0, 0x973e46fa7ffcf678ull },
		{ 7, 2, 0, 0, 0xbe927caecf0a9179ull },
		{ 8, 1, 0, 0, 0x02c0f9aa7c6b943full },
		{ 5, 2, 0, 0, 0x608d4a4b0115b8eeull },
		{ 0, 0, 0.2, 0, 0x39f0f1d4ac10702aull },
		{ 6, 0, 0.2, 0, 0x10ba22e4a340eb83ull },
		{ 4, 0, 0.1, 0, 0xfd0fff872eccbe46ull },
		{ 0, 0, 0, 0.05, 0x7487e2c6ee32372eull },
		{ 6, 1, 0.1, 0, 0xf4e2de20d6bc5030ull },
	};
	struct rt_summary s;
	struct rt_tables t;
	struct gen_opts o;
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct fabric *f;

		gen_opts_init(&o);
		o.shuffle = i % 2;
		o.shuffle_seed = 11;
		o.seed = 1;
		f = build(&shapes[cases[i].shape], &o, cases[i].drop_global,
			  cases[i].drop_local, cases[i].lmc);
		CU_ASSERT_FATAL(!rt_route(f, RT_ENGINE_DRAGONFLY, NULL, &t,
					  &s));
		tu_golden(&t, cases[i].hash, s.detail);
		rt_tables_release(&t);
		fab_free(f);
	}
}

TU_SUITE(dragonfly,
	 { "recognise shapes", test_recognise_shapes },
	 { "recognise failures", test_recognise_failures },
	 { "not a dragonfly", test_not_dragonfly },
	 { "engine intact", test_engine_intact },
	 { "Dragonfly+ reaches every switch LID", test_plus_switch_lids },
	 { "engine one cable cut", test_engine_one_cable_cut },
	 { "engine degraded", test_engine_degraded },
	 { "LMC LIDs on other global cables", test_lmc_other_global },
	 { "LMC on degraded fabrics", test_lmc_degraded },
	 { "output unchanged", test_golden },
	 { "Dragonfly+ with several leaf-spine cuts", test_plus_cuts },
	 { "switches' own routes repaired", test_own_repair },
	 { "answers within the VLs there are", test_answers_vl_budget })
