// SPDX-License-Identifier: MIT
/* The all-to-all bound against known floors and against the engines. */
#include <string.h>

#include "tu.h"
#include "tu_route.h"
#include "tests/bench/a2abound.h"
#include "routing/route.h"
#include "routing/verify.h"

static void bound(const struct fabric *f, struct ab_result *r)
{
	struct ft_info ft;

	CU_ASSERT_FATAL(!ft_recognise(f, &ft) && ft.tree);
	CU_ASSERT_FATAL(!ab_alltoall(f, &ft, 0.002, 5000, r));
	ft_info_release(&ft);
	CU_ASSERT(r->lower <= r->upper);
	CU_ASSERT(r->upper <= r->lower * 1.002 + 1e-9);
	CU_ASSERT_EQUAL(r->unroutable, 0);
}

/*
 * An intact k-ary n-tree: each leaf's k up links carry its k hosts'
 * routes to every host outside it, and no routing does better.
 */
static void test_intact(void)
{
	static const unsigned int shapes[][2] = { { 4, 2 }, { 4, 3 }, { 3, 4 } };
	struct ab_result r;
	size_t i;

	for (i = 0; i < sizeof(shapes) / sizeof(shapes[0]); i++) {
		unsigned int k = shapes[i][0], n = shapes[i][1], N = 1;
		struct fabric *f = tu_tree(k, n, 0, 0, 0);
		unsigned int j;

		for (j = 0; j < n; j++)
			N *= k;
		bound(f, &r);
		CU_ASSERT_DOUBLE_EQUAL(r.lower, (double)(N - k), 1e-6);
		CU_ASSERT_EQUAL(r.pairs, (uint64_t)N * (N - 1));
		fab_free(f);
	}
}

/* No engine's busiest link beats the bound; shuffling leaves it be. */
static void test_below_engines(void)
{
	struct vf_opts o = { .ebb_perms = 0 };
	struct ab_result r, r2;
	struct rt_summary s;
	struct vf_report v;
	struct rt_tables t;
	uint64_t seed;

	for (seed = 1; seed <= 4; seed++) {
		struct fabric *f = tu_tree(4, 3, 0.06, seed, 0);
		struct fabric *g = tu_shuffled(f, seed, 0);

		bound(f, &r);
		bound(g, &r2);
		CU_ASSERT_DOUBLE_EQUAL(r.lower, r2.lower, r.lower * 0.002);
		CU_ASSERT_FATAL(!rt_route(f, RT_ENGINE_AUTO, NULL, &t, &s));
		CU_ASSERT_FATAL(!vf_check(&t, &o, &v));
		rt_tables_release(&t);
		CU_ASSERT_STRING_EQUAL(s.engine, "fattree");
		CU_ASSERT(v.efi_max >= r.lower - 1e-6);
		fab_free(f);
		fab_free(g);
	}
}

TU_SUITE(a2abound,
	 { "intact trees: the leaf up-link floor", test_intact },
	 { "no engine beats it", test_below_engines })
