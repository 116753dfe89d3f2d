// SPDX-License-Identifier: MIT
/*
 * Torus recogniser and engine on generated tori and meshes: shapes, port
 * shuffles, every single cable and switch failure of small ones, checked
 * by the verifier's per-VL dependency graph.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tu.h"
#include "tu_golden.h"
#include "tu_route.h"
#include "routing/route.h"
#include "routing/torus/torus.h"
#include "routing/verify.h"
#include "topology/gen.h"
#include "topology/torusrec.h"

struct shape {
	const char *dims;	/* "4x4x4" */
	bool wrap;
	unsigned int hosts, parallel;
	const char *want;	/* the shape the recogniser names */
	unsigned int nvl;	/* VLs the intact routing needs */
};

static const struct shape shapes[] = {
	{ "4x4x4", true, 2, 1, "4x4x4 torus", 1 },
	{ "8x8x8", true, 1, 1, "8x8x8 torus", 2 },
	{ "5x5", true, 2, 1, "5x5 torus", 2 },
	/* 6-rings: the hosts' requests to switch LIDs need layer 1 too */
	{ "6x6", true, 1, 2, "6x6 torus", 4 },
	{ "3x3x3", true, 1, 1, "3x3x3 torus", 1 },
	{ "2x2x2", true, 2, 1, "2x2x2 torus", 1 },
	{ "6x4x3", true, 1, 1, "6x4x3 torus", 4 },
	{ "7x5x2", true, 1, 1, "7x5x2 torus", 2 },
	{ "4x4x4", false, 2, 1, "4x4x4 mesh", 1 },
	{ "5x3", false, 1, 1, "5x3 mesh", 1 },
	{ "6x5x4", false, 1, 2, "6x5x4 mesh", 1 },
};

static struct fabric *grid(const struct shape *sh, bool shuffle,
			   const char *fail_sw, const char *fail_link)
{
	struct gen_torus g;
	struct gen_opts o;
	struct fabric *f = NULL;
	char err[256], buf[32], *p, *tok;
	unsigned int d;

	gen_opts_init(&o);
	gen_torus_init(&g, sh->wrap);
	snprintf(buf, sizeof(buf), "%s", sh->dims);
	g.ndims = 0;
	for (tok = strtok_r(buf, "x", &p); tok; tok = strtok_r(NULL, "x", &p))
		g.dim[g.ndims++] = (unsigned int)atoi(tok);
	for (d = 0; d < g.ndims; d++)
		g.wrap[d] = sh->wrap;
	g.hosts = sh->hosts;
	g.parallel = sh->parallel;
	o.shuffle = shuffle;
	o.shuffle_seed = 7;
	if (fail_sw) {
		o.fail_switch = &fail_sw;
		o.nfail_switch = 1;
	}
	if (fail_link) {
		o.fail_link = &fail_link;
		o.nfail_link = 1;
	}
	CU_ASSERT_FATAL(!gen_torus(&g, &o, &f, err, sizeof(err)));
	CU_ASSERT_FATAL(!fab_assign_lids(f, 0));
	return f;
}

static void test_recognise_shapes(void)
{
	struct tor_info ti;
	size_t i;
	int s;

	for (i = 0; i < sizeof(shapes) / sizeof(shapes[0]); i++)
		for (s = 0; s < 2; s++) {
			struct fabric *f = grid(&shapes[i], s, NULL, NULL);

			CU_ASSERT_FATAL(!tor_recognise(f, &ti));
			CU_ASSERT(ti.torus);
			CU_ASSERT_STRING_EQUAL(ti.shape, shapes[i].want);
			CU_ASSERT_EQUAL(ti.nplaced, f->nsw);
			CU_ASSERT_EQUAL(ti.missing_sw + ti.missing_links, 0);
			CU_ASSERT_EQUAL(ti.hosts_max, shapes[i].hosts);
			if (!ti.torus)
				fprintf(stderr, "%s: %s\n", shapes[i].dims,
					ti.summary);
			tor_info_release(&ti);
			fab_free(f);
		}
}

static void test_recognise_failures(void)
{
	static const struct {
		struct shape sh;
		const char *sw, *link;
		size_t msw, mlink;
	} cases[] = {
		{ { "8x8x8", true, 1, 1, "8x8x8 torus", 0 }, "sw-3-3-3", NULL, 1, 0 },
		{ { "8x8x8", true, 1, 1, "8x8x8 torus", 0 }, NULL, "sw-0-0-0:sw-1-0-0", 0, 1 },
		{ { "4x4x4", true, 2, 1, "4x4x4 torus", 0 }, "sw-0-0-0", NULL, 1, 0 },
		{ { "5x5", true, 1, 1, "5x5 torus", 0 }, "sw-2-2", NULL, 1, 0 },
		{ { "4x4", false, 1, 1, "4x4 mesh", 0 }, "sw-1-1", NULL, 1, 0 },
		{ { "4x4", false, 1, 1, "4x4 mesh", 0 }, "sw-0-0", NULL, 1, 0 },
		{ { "4x4", false, 1, 1, "4x4 mesh", 0 }, NULL, "sw-0-0:sw-1-0", 0, 1 },
		{ { "4x4x4", false, 1, 1, "4x4x4 mesh", 0 }, "sw-1-2-0", NULL, 1, 0 },
	};
	struct tor_info ti;
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct fabric *f = grid(&cases[i].sh, true, cases[i].sw,
					cases[i].link);

		CU_ASSERT_FATAL(!tor_recognise(f, &ti));
		CU_ASSERT(ti.torus);
		if (ti.torus) {
			CU_ASSERT_STRING_EQUAL(ti.shape, cases[i].sh.want);
			CU_ASSERT_EQUAL(ti.missing_sw, cases[i].msw);
			CU_ASSERT_EQUAL(ti.missing_links, cases[i].mlink);
		} else {
			fprintf(stderr, "case %zu: %s\n", i, ti.summary);
		}
		tor_info_release(&ti);
		fab_free(f);
	}
}

static void test_not_torus(void)
{
	struct gen_fattree ft;
	struct gen_dragonfly df;
	struct gen_opts o;
	struct fabric *f = NULL;
	struct tor_info ti;
	char err[256];

	gen_opts_init(&o);
	CU_ASSERT_FATAL(!gen_fattree_kary(&ft, 4, 2, err, sizeof(err)));
	CU_ASSERT_FATAL(!gen_fattree(&ft, &o, &f, err, sizeof(err)));
	CU_ASSERT_FATAL(!tor_recognise(f, &ti));
	CU_ASSERT(!ti.torus);
	CU_ASSERT(strstr(ti.summary, "not a torus: ") == ti.summary);
	tor_info_release(&ti);
	fab_free(f);

	gen_dragonfly_init(&df, false);
	CU_ASSERT_FATAL(!gen_dragonfly(&df, &o, &f, err, sizeof(err)));
	CU_ASSERT_FATAL(!tor_recognise(f, &ti));
	CU_ASSERT(!ti.torus);
	tor_info_release(&ti);
	fab_free(f);
}

/* Route f as a torus and verify with the engine's own SLs and SL2VL. */
static void route_verify(struct fabric *f, unsigned int max_vl,
			 const char *what)
{
	struct vf_opts o = { .ebb_perms = 0 };
	struct rt_summary s;
	struct vf_report r;
	struct rt_tables t;
	int ret;

	ret = rt_route(f, RT_ENGINE_TORUS, NULL, &t, &s);
	CU_ASSERT_EQUAL(ret, 0);
	if (!ret) {
		CU_ASSERT_FATAL(!vf_check(&t, &o, &r));
		CU_ASSERT(vf_ok(&r));
		CU_ASSERT_EQUAL(r.unreachable, 0);
		CU_ASSERT(r.cdg_checked && !r.cdg_cycle);
		CU_ASSERT(s.nvl <= max_vl);
		CU_ASSERT(r.nvl <= s.nvl);
		if (!vf_ok(&r) || s.nvl > max_vl)
			fprintf(stderr, "%s: %u VLs, %llu unreachable, cycle %d: %s\n",
				what, s.nvl, (unsigned long long)r.unreachable,
				r.cdg_cycle, s.detail);
	} else {
		fprintf(stderr, "%s: %d %s\n", what, ret, s.detail);
	}
	rt_tables_release(&t);
}

static void test_engine_intact(void)
{
	struct vf_opts o = { .ebb_perms = 0 };
	struct rt_summary s;
	struct vf_report r;
	struct rt_tables t;
	size_t i;

	for (i = 0; i < sizeof(shapes) / sizeof(shapes[0]); i++) {
		struct fabric *f = grid(&shapes[i], true, NULL, NULL);

		CU_ASSERT_FATAL(!rt_route(f, RT_ENGINE_AUTO, NULL, &t, &s));
		CU_ASSERT_STRING_EQUAL(s.engine, "torus");
		CU_ASSERT_EQUAL(s.nvl, shapes[i].nvl);
		CU_ASSERT_FATAL(!vf_check(&t, &o, &r));
		CU_ASSERT(vf_ok(&r) && r.cdg_checked && !r.cdg_cycle);
		/* minimal: the diameter of the grid, not more */
		CU_ASSERT(r.max_hops <= 3 * 8);
		/* dimension order on a whole torus loads every link alike */
		if (shapes[i].wrap && shapes[i].parallel == 1 &&
		    !strcmp(shapes[i].dims, "8x8x8"))
			CU_ASSERT_DOUBLE_EQUAL(r.efi_ratio, 1.0, 1e-9);
		rt_tables_release(&t);
		fab_free(f);
	}
}

/*
 * A switch answers a host on the request's SL: on torus-6x6.net's shape
 * (two hosts a switch, so a host LID of each class) no answer may close
 * a credit loop; on every intact shape one that does is said.
 */
static void test_switch_answers(void)
{
	static const struct shape six = { "6x6", true, 2, 1, "", 0 };
	struct vf_opts o = { .ebb_perms = 0 };
	struct rt_summary s;
	struct vf_report r;
	struct rt_tables t;
	size_t i, n = sizeof(shapes) / sizeof(shapes[0]);

	for (i = 0; i <= n; i++) {
		const struct shape *sh = i < n ? &shapes[i] : &six;
		struct fabric *f = grid(sh, true, NULL, NULL);

		CU_ASSERT_FATAL(!rt_route(f, RT_ENGINE_TORUS, NULL, &t, &s));
		CU_ASSERT_FATAL(!vf_check(&t, &o, &r));
		CU_ASSERT(vf_ok(&r) && !r.cdg_cycle);
		if (sh == &six)
			CU_ASSERT_FALSE(r.answer_cycle);
		CU_ASSERT(!r.answer_cycle || strstr(s.detail, "unchecked"));
		if (r.answer_cycle && (sh == &six ||
				       !strstr(s.detail, "unchecked")))
			fprintf(stderr, "%s: answers close a loop: %s\n",
				sh->dims, s.detail);
		rt_tables_release(&t);
		fab_free(f);
	}
}

/*
 * Rings of 8 with a host LID of each class on every switch: the hosts'
 * requests to switch LIDs and the answers go on layer 1 by free
 * positions, no cycle (before: greedy rounds found no SLs, 165-200 ms
 * at 8x8x8, and the answers closed a cycle on VL 0).  Rings of 10: five
 * places modulo 5 each need a VL of their own, said up front.
 */
static void test_answers_rings_of_8(void)
{
	static const struct shape sh[] = {
		{ "8x8", true, 2, 1, "8x8 torus", 4 },
		{ "8x8x8", true, 2, 1, "8x8x8 torus", 4 },
		{ "10x4", true, 2, 1, "10x2x2 torus", 2 },
	};
	struct vf_opts o = { .ebb_perms = 0 };
	struct rt_summary s;
	struct vf_report r;
	struct rt_tables t;
	bool ten;
	size_t i;

	for (i = 0; i < sizeof(sh) / sizeof(sh[0]); i++) {
		struct fabric *f = grid(&sh[i], true, NULL, NULL);

		ten = !strcmp(sh[i].dims, "10x4");
		CU_ASSERT_FATAL(!rt_route(f, RT_ENGINE_TORUS, NULL, &t, &s));
		CU_ASSERT_FATAL(!vf_check(&t, &o, &r));
		CU_ASSERT(vf_ok(&r) && !r.cdg_cycle && !r.mgmt_cycle);
		CU_ASSERT_EQUAL(t.vl ? t.vl->nvl : 1, sh[i].nvl);
		CU_ASSERT_EQUAL(r.answer_cycle, ten);
		CU_ASSERT_EQUAL(!!strstr(s.detail, "unchecked"), ten);
		CU_ASSERT_EQUAL(!!strstr(s.detail, "need more than 4 VLs"), ten);
		if (r.answer_cycle != ten)
			fprintf(stderr, "%s: %s\n", sh[i].dims, s.detail);
		rt_tables_release(&t);
		fab_free(f);
	}
}

/*
 * 8x8 where the SM can program only 2 VLs: the torus keeps its 2 and
 * says its answers are unchecked, as before they had VLs of their own,
 * rather than needing 4 and being replaced by up*-down*.
 */
static void test_answers_vl_budget(void)
{
	static const struct shape sh = { "8x8", true, 2, 1, "8x8 torus", 4 };
	struct vf_opts o = { .ebb_perms = 0 };
	struct fabric *f = grid(&sh, true, NULL, NULL);
	struct rt_summary s;
	struct vf_report r;
	struct rt_tables t;

	f->vls = 2;
	CU_ASSERT_FATAL(!rt_route(f, RT_ENGINE_TORUS, NULL, &t, &s));
	CU_ASSERT_FATAL(!vf_check(&t, &o, &r));
	CU_ASSERT(vf_ok(&r) && !r.cdg_cycle);
	CU_ASSERT_EQUAL(t.vl ? t.vl->nvl : 1, 2);
	CU_ASSERT_PTR_NOT_NULL(strstr(s.detail, "more than the SM can program"));
	rt_tables_release(&t);
	fab_free(f);
}

/*
 * Fail what cut() names in a fresh copy of each shape, in turn, and route
 * and verify each: cut(f, n, p) unlinks and says what it did, or returns
 * NULL to skip (n, p).
 */
typedef const char *(*cut_fn)(struct fabric *f, uint32_t n, unsigned int p);

static void each_failure(const struct shape *sh, size_t nsh, cut_fn cut)
{
	char what[96];
	const char *how;
	size_t i;
	uint32_t n;
	unsigned int p;

	for (i = 0; i < nsh; i++) {
		struct fabric *base = grid(&sh[i], false, NULL, NULL);

		for (n = 0; n < base->nnodes; n++)
			for (p = 1; fab_is_sw(base, n) &&
				    p <= base->nodes[n].nports; p++) {
				struct fabric *f = grid(&sh[i], false, NULL, NULL);

				how = cut(f, n, p);
				if (how) {
					snprintf(what, sizeof(what), "%s minus %s %s",
						 sh[i].dims, base->nodes[n].desc, how);
					route_verify(f, 4, what);
				}
				fab_free(f);
			}
		fab_free(base);
	}
}

static const char *cut_link(struct fabric *f, uint32_t n, unsigned int p)
{
	const struct fab_port *fp = fab_port(f, n, p);

	if (fp->peer == FAB_NONE || !fab_is_sw(f, fp->peer) || fp->peer < n)
		return NULL;
	CU_ASSERT_FATAL(!fab_unlink(f, n, p));
	return "one cable";
}

/* A whole switch, as ibsim's Unlink "switch" does (once per switch). */
static const char *cut_switch(struct fabric *f, uint32_t n, unsigned int p)
{
	if (p != 1)
		return NULL;
	for (p = 1; p <= f->nodes[n].nports; p++)
		if (fab_port(f, n, p)->peer != FAB_NONE)
			CU_ASSERT_FATAL(!fab_unlink(f, n, p));
	return "switch";
}

/* Every single cable of small tori and a mesh, failed in turn. */
static void test_every_link_failure(void)
{
	static const struct shape sh[] = {
		{ "5x5", true, 1, 1, "", 0 },
		{ "6x3x2", true, 1, 1, "", 0 },
		{ "5x5x3", true, 1, 1, "", 0 },
		{ "5x4", false, 1, 1, "", 0 },
	};

	each_failure(sh, sizeof(sh) / sizeof(sh[0]), cut_link);
}

/* Every switch of small tori and a mesh unlinked in turn. */
static void test_every_switch_failure(void)
{
	static const struct shape sh[] = {
		{ "5x5", true, 2, 1, "", 0 },
		{ "3x3x3", true, 1, 1, "", 0 },
		{ "6x4x2", true, 1, 1, "", 0 },
		{ "4x4x4", true, 1, 1, "", 0 },
		{ "5x5x5", true, 1, 1, "", 0 },
		{ "4x4", false, 1, 1, "", 0 },
	};

	each_failure(sh, sizeof(sh) / sizeof(sh[0]), cut_switch);
}

/* SL of every pair whose switches both survive, before and after. */
static void test_sl_stable(void)
{
	static const struct shape sh = { "8x8", true, 1, 1, "", 0 };
	struct fabric *f0 = grid(&sh, false, NULL, NULL);
	struct fabric *f1 = grid(&sh, false, NULL, "sw-2-3:sw-3-3");
	struct rt_summary s0, s1;
	struct rt_tables t0, t1;
	unsigned int a, b, changed = 0, pairs = 0;

	CU_ASSERT_FATAL(!rt_route(f0, RT_ENGINE_TORUS, NULL, &t0, &s0));
	CU_ASSERT_FATAL(!rt_route(f1, RT_ENGINE_TORUS, NULL, &t1, &s1));
	CU_ASSERT_EQUAL(t0.top, t1.top);
	for (a = 1; a <= t0.top; a++)
		for (b = 1; b <= t0.top; b++) {
			if (a == b || t0.lid_node[a] == FAB_NONE ||
			    t0.lid_node[b] == FAB_NONE)
				continue;
			pairs++;
			changed += t0.vl->path_sl(&t0, a, b) !=
				   t1.vl->path_sl(&t1, a, b);
		}
	/* a lost cable in a ring leaves dimension order intact: no detour */
	CU_ASSERT(strstr(s1.detail, " 0 switch pairs detoured") != NULL);
	CU_ASSERT_EQUAL(changed, 0);
	CU_ASSERT(pairs > 0);
	rt_tables_release(&t0);
	rt_tables_release(&t1);
	fab_free(f0);
	fab_free(f1);
}

/* An SL2VL that ignores the dateline bits. */
static uint8_t vl_zero(const struct rt_tables *t, uint32_t sw,
		       unsigned int in, unsigned int out, unsigned int sl)
{
	(void)t;
	(void)sw;
	(void)in;
	(void)out;
	(void)sl;
	return 0;
}

/*
 * The same dimension-order tables with every hop on VL 0: the wrap-around
 * routes close a ring, which the verifier must call a credit loop.
 */
static void test_cycle_flagged(void)
{
	static const struct shape sh = { "6x6", true, 1, 1, "", 0 };
	struct fabric *f = grid(&sh, false, NULL, NULL);
	struct vf_opts o = { .ebb_perms = 0 };
	struct rt_summary s;
	struct vf_report r;
	struct rt_tables t;
	struct rt_vl flat;

	CU_ASSERT_FATAL(!rt_route(f, RT_ENGINE_TORUS, NULL, &t, &s));
	CU_ASSERT_FATAL(!vf_check(&t, &o, &r));
	CU_ASSERT(!r.cdg_cycle);
	flat = *t.vl;
	flat.sl2vl = vl_zero;
	t.vl = &flat;
	CU_ASSERT_FATAL(!vf_check(&t, &o, &r));
	CU_ASSERT(r.cdg_checked && r.cdg_cycle);
	CU_ASSERT(!vf_ok(&r));
	rt_tables_release(&t);
	fab_free(f);
}

/*
 * The engine's whole output (LFTs, path SLs, SL2VL) on tori and meshes,
 * intact and with failures that detour on one or two layers, against
 * hashes recorded from the engine before it was sped up: a change of
 * the code must not change a table entry.
 */
static void test_golden(void)
{
	static const struct {
		struct shape sh;
		const char *sw, *link;
		uint64_t hash;
	} cases[] = {
		/* 4 VLs: the answers on layer 1 by free positions */
		{ { "8x8x8", true, 2, 1, "", 0 }, NULL, NULL,
		  0x1b3389dc2360faf1ull },
		{ { "8x8x8", true, 2, 1, "", 0 }, "sw-1-2-3", NULL,
		  0x2db87f33f4047037ull },
		{ { "4x4x4", true, 2, 1, "", 0 }, NULL, NULL,
		  0x4f22844d07012b64ull },
		{ { "4x4x4", true, 2, 1, "", 0 }, "sw-1-2-3", NULL,
		  0x26ca1f199a61fb35ull },
		{ { "5x5x5", true, 1, 1, "", 0 }, "sw-0-0-0", NULL,
		  0xfaa4e6b38cc091d1ull },
		{ { "5x5x3", true, 1, 1, "", 0 }, NULL, "sw-0-0-0:sw-1-0-0",
		  0xa171a4ab803ade47ull },
		{ { "6x6", true, 1, 2, "", 0 }, "sw-2-2", NULL,
		  0xf01dcbeeaf69d660ull },
		{ { "7x5x2", true, 1, 1, "", 0 }, NULL, NULL,
		  0x9478342aa0233deaull },
		{ { "6x5x4", false, 1, 2, "", 0 }, "sw-1-2-1", NULL,
		  0x8e130570930df53dull },
		{ { "4x4", false, 1, 1, "", 0 }, "sw-1-1", NULL,
		  0xee430c5cdf300aa0ull },
	};
	struct rt_summary s;
	struct rt_tables t;
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct fabric *f = grid(&cases[i].sh, i % 2, cases[i].sw,
					cases[i].link);

		CU_ASSERT_FATAL(!rt_route(f, RT_ENGINE_TORUS, NULL, &t, &s));
		tu_golden(&t, cases[i].hash, s.detail);
		rt_tables_release(&t);
		fab_free(f);
	}
}

/* The tables t2 stands for, with one path SL and one SL2VL entry moved. */
static const struct rt_tables *moved_of;

static uint8_t moved_sl(const struct rt_tables *t, unsigned int slid,
			unsigned int dlid)
{
	uint8_t sl = moved_of->vl->path_sl(t, slid, dlid);

	return slid == 3 && dlid == 5 ? sl ^ 1 : sl;
}

static uint8_t moved_vl(const struct rt_tables *t, uint32_t sw,
		       unsigned int in, unsigned int out, unsigned int sl)
{
	uint8_t vl = moved_of->vl->sl2vl(t, sw, in, out, sl);

	return sw == 1 && in == 2 && out == 3 && sl == 4 ? vl ^ 1 : vl;
}

/*
 * A golden check that fails names the first entry that moved: an LFT
 * entry by switch and LID, a path SL by its LIDs, an SL2VL entry by
 * switch, ports and SL, each with its value now and as recorded; other
 * tables' shape, or no recording, are said as such.
 */
static void test_golden_diff(void)
{
	static const struct shape sh = { "4x4", true, 1, 1, "", 0 };
	struct fabric *f = grid(&sh, false, NULL, NULL), *g;
	struct rt_tables t, t2, u;
	struct rt_summary s;
	struct rt_vl vl;
	char dir[] = "/tmp/golden-XXXXXX", path[64], msg[512], want[256];
	uint8_t *e, was;

	CU_ASSERT_FATAL(mkdtemp(dir) != NULL);
	snprintf(path, sizeof(path), "%s/t.xz", dir);
	CU_ASSERT_FATAL(!rt_route(f, RT_ENGINE_TORUS, NULL, &t, &s));
	CU_ASSERT_FATAL(t.vl != NULL);
	CU_ASSERT_FATAL(!tu_golden_record(&t, path));
	CU_ASSERT_EQUAL(tu_golden_diff(&t, path, msg, sizeof(msg)), 0);
	CU_ASSERT_STRING_EQUAL(msg, "");

	e = rt_lft(&t, 2) + 7;
	was = *e;
	*e = was == 1 ? 2 : 1;
	CU_ASSERT_EQUAL(tu_golden_diff(&t, path, msg, sizeof(msg)), 1);
	snprintf(want, sizeof(want), "switch 2 (%s, GUID 0x%016" PRIx64 ") LID 7: port %u, recorded %u",
		 f->nodes[t.sw_node[2]].desc, f->nodes[t.sw_node[2]].guid,
		 *e, was);
	CU_ASSERT_STRING_EQUAL(msg, want);
	*e = was;

	moved_of = &t;
	vl = *t.vl;
	vl.path_sl = moved_sl;
	t2 = t;
	t2.vl = &vl;
	CU_ASSERT_EQUAL(tu_golden_diff(&t2, path, msg, sizeof(msg)), 1);
	snprintf(want, sizeof(want), "path SL of LID 3 to LID 5: %u, recorded %u",
		 t.vl->path_sl(&t, 3, 5) ^ 1, t.vl->path_sl(&t, 3, 5));
	CU_ASSERT_STRING_EQUAL(msg, want);
	vl = *t.vl;
	vl.sl2vl = moved_vl;
	CU_ASSERT_EQUAL(tu_golden_diff(&t2, path, msg, sizeof(msg)), 1);
	CU_ASSERT_PTR_NOT_NULL(strstr(msg, "SL2VL of switch 1 ("));
	CU_ASSERT_PTR_NOT_NULL(strstr(msg, ") in port 2 out port 3, SL 4: VL "));

	g = grid(&shapes[3], false, NULL, NULL);
	CU_ASSERT_FATAL(!rt_route(g, RT_ENGINE_TORUS, NULL, &u, &s));
	CU_ASSERT_EQUAL(tu_golden_diff(&u, path, msg, sizeof(msg)), 1);
	CU_ASSERT_PTR_NOT_NULL(strstr(msg, "recorded: gpuaware golden 1: 16 switches"));
	rt_tables_release(&u);
	fab_free(g);

	unlink(path);
	CU_ASSERT(tu_golden_diff(&t, path, msg, sizeof(msg)) < 0);
	CU_ASSERT_PTR_NOT_NULL(strstr(msg, "cannot read the recording"));
	rmdir(dir);
	rt_tables_release(&t);
	fab_free(f);
}

TU_SUITE(torus,
	 { "golden: the first difference", test_golden_diff },
	 { "recognise shapes", test_recognise_shapes },
	 { "recognise failures", test_recognise_failures },
	 { "not a torus", test_not_torus },
	 { "engine intact", test_engine_intact },
	 { "switch answers", test_switch_answers },
	 { "switch answers on rings of 8", test_answers_rings_of_8 },
	 { "switch answers within the VLs there are", test_answers_vl_budget },
	 { "every link failure", test_every_link_failure },
	 { "every switch failure", test_every_switch_failure },
	 { "path SLs stable", test_sl_stable },
	 { "credit loop flagged", test_cycle_flagged },
	 { "output unchanged", test_golden })
