// SPDX-License-Identifier: MIT
/* Fat-tree recogniser: pure, degraded, rail, under-populated and non-trees. */
#include <string.h>

#include "tu.h"
#include "topology/fattreerec.h"
#include "topology/gen.h"

static struct fabric *kary(unsigned int k, unsigned int n,
			   const struct gen_opts *o)
{
	struct gen_fattree ft;
	struct fabric *f = NULL;
	char err[256];

	CU_ASSERT_FATAL(!gen_fattree_kary(&ft, k, n, err, sizeof(err)));
	CU_ASSERT_FATAL(!gen_fattree(&ft, o, &f, err, sizeof(err)));
	return f;
}

static void test_pure(void)
{
	struct gen_opts o;
	struct ft_info ft;
	struct fabric *f;

	gen_opts_init(&o);
	f = kary(4, 3, &o);
	CU_ASSERT_FATAL(!ft_recognise(f, &ft));
	CU_ASSERT(ft.tree);
	CU_ASSERT_EQUAL(ft.nlevels, 3);
	CU_ASSERT_EQUAL(ft.nsw_level[0], 16);
	CU_ASSERT_EQUAL(ft.nsw_level[1], 16);
	CU_ASSERT_EQUAL(ft.nsw_level[2], 16);
	CU_ASSERT_EQUAL(ft.hosts, 64);
	CU_ASSERT_EQUAL(ft.up_max[0], 4);
	CU_ASSERT_EQUAL(ft.up_max[1], 4);
	CU_ASSERT_EQUAL(ft.missing_up, 0);
	CU_ASSERT_EQUAL(ft.underpop, 0);
	CU_ASSERT_EQUAL(ft.rails, 0);
	CU_ASSERT_PTR_NOT_NULL(strstr(ft.summary, "3-level fat-tree"));
	ft_info_release(&ft);
	fab_free(f);
}

/* Port numbering carries no meaning: shuffled ports, same answer. */
static void test_shuffled(void)
{
	struct gen_opts o;
	struct ft_info a, b;
	struct fabric *f, *g;

	gen_opts_init(&o);
	f = kary(4, 3, &o);
	o.shuffle = true;
	o.shuffle_seed = 7;
	g = kary(4, 3, &o);
	CU_ASSERT_FATAL(!ft_recognise(f, &a) && !ft_recognise(g, &b));
	CU_ASSERT(b.tree);
	CU_ASSERT_STRING_EQUAL(a.summary, b.summary);
	ft_info_release(&a);
	ft_info_release(&b);
	fab_free(f);
	fab_free(g);
}

static void test_degraded(void)
{
	struct gen_opts o;
	struct ft_info ft;
	struct fabric *f;

	gen_opts_init(&o);
	o.drop = 0.05;
	o.seed = 3;
	f = kary(4, 3, &o);
	CU_ASSERT_FATAL(!ft_recognise(f, &ft));
	CU_ASSERT(ft.tree);
	/* 5 % of 128 cables, each missing as an up link of its child */
	CU_ASSERT_EQUAL(ft.missing_up, 6);
	CU_ASSERT_PTR_NOT_NULL(strstr(ft.summary, "degraded"));
	ft_info_release(&ft);
	fab_free(f);

	gen_opts_init(&o);
	o.drop_hosts = 0.25;
	o.seed = 1;
	f = kary(4, 2, &o);
	CU_ASSERT_FATAL(!ft_recognise(f, &ft));
	CU_ASSERT(ft.tree);
	CU_ASSERT(ft.underpop > 0);
	CU_ASSERT_EQUAL(ft.hosts, 12);
	ft_info_release(&ft);
	fab_free(f);
}

static void test_rails(void)
{
	struct gen_rail r = { .sus = 2, .hosts_per_su = 4, .rails = 4,
			      .spines = 4, .spine_groups = 1, .parallel = 1 };
	struct gen_opts o;
	struct ft_info ft;
	struct fabric *f;
	char err[256];

	gen_opts_init(&o);
	CU_ASSERT_FATAL(!gen_rail(&r, &o, &f, err, sizeof(err)));
	CU_ASSERT_FATAL(!ft_recognise(f, &ft));
	CU_ASSERT(ft.tree);
	CU_ASSERT_EQUAL(ft.rails, 4);
	CU_ASSERT_EQUAL(ft.nlevels, 2);
	CU_ASSERT_EQUAL(ft.nsw_level[0], 8);
	CU_ASSERT_PTR_NOT_NULL(strstr(ft.summary, "rail-optimized (4 rails)"));
	ft_info_release(&ft);
	fab_free(f);
}

static void test_parallel(void)
{
	struct gen_fattree g = { .levels = 2, .down = { 4, 4 },
				 .up = { 2 }, .parallel = 2 };
	struct gen_opts o;
	struct ft_info ft;
	struct fabric *f;
	char err[256];

	gen_opts_init(&o);
	CU_ASSERT_FATAL(!gen_fattree(&g, &o, &f, err, sizeof(err)));
	CU_ASSERT_FATAL(!ft_recognise(f, &ft));
	CU_ASSERT(ft.tree);
	CU_ASSERT_EQUAL(ft.par_max, 2);
	CU_ASSERT_EQUAL(ft.up_max[0], 4);
	ft_info_release(&ft);
	fab_free(f);
}

/* A spine cut off from every core is reachable only below its leaves. */
static void test_relevel(void)
{
	struct gen_opts o;
	struct ft_info ft;
	struct fabric *f;
	uint32_t n, sp = FAB_NONE;
	unsigned int p;

	gen_opts_init(&o);
	f = kary(4, 3, &o);
	for (n = 0; n < f->nnodes; n++)
		if (!strcmp(f->nodes[n].desc, "spine-p0-0"))
			sp = n;
	CU_ASSERT_FATAL(sp != FAB_NONE);
	for (p = 1; p <= f->nodes[sp].nports; p++) {
		uint32_t q = fab_port(f, sp, p)->peer;

		if (q != FAB_NONE && !strncmp(f->nodes[q].desc, "core-", 5))
			CU_ASSERT(!fab_unlink(f, sp, p));
	}
	CU_ASSERT_FATAL(!ft_recognise(f, &ft));
	CU_ASSERT(ft.tree);
	CU_ASSERT_EQUAL(ft.relevelled, 1);
	CU_ASSERT_EQUAL(ft.leaf_level, 1);
	CU_ASSERT_EQUAL(ft.nlevels, 4);
	CU_ASSERT_EQUAL(ft.level[sp], 0);
	CU_ASSERT_PTR_NOT_NULL(strstr(ft.summary, "3-level fat-tree"));
	CU_ASSERT_PTR_NOT_NULL(strstr(ft.summary,
				      "1 switches without a way up"));
	ft_info_release(&ft);
	fab_free(f);
}

static void test_not_trees(void)
{
	struct gen_torus t;
	struct gen_dragonfly d;
	struct gen_opts o;
	struct ft_info ft;
	struct fabric *f;
	char err[256];

	gen_opts_init(&o);
	gen_torus_init(&t, true);
	CU_ASSERT_FATAL(!gen_torus(&t, &o, &f, err, sizeof(err)));
	CU_ASSERT_FATAL(!ft_recognise(f, &ft));
	CU_ASSERT(!ft.tree);
	CU_ASSERT_PTR_NOT_NULL(strstr(ft.reason, "both at level 0"));
	CU_ASSERT_PTR_NOT_NULL(strstr(ft.summary, "not a fat-tree"));
	ft_info_release(&ft);
	fab_free(f);

	gen_dragonfly_init(&d, false);
	CU_ASSERT_FATAL(!gen_dragonfly(&d, &o, &f, err, sizeof(err)));
	CU_ASSERT_FATAL(!ft_recognise(f, &ft));
	CU_ASSERT(!ft.tree);
	ft_info_release(&ft);
	fab_free(f);

	/* switches only: nothing to call a leaf */
	f = fab_new();
	CU_ASSERT_FATAL(f != NULL);
	CU_ASSERT(fab_add_node(f, FAB_SW, 4, 1, "a") == 0);
	CU_ASSERT(fab_add_node(f, FAB_SW, 4, 2, "b") == 1);
	CU_ASSERT(!fab_link(f, 0, 1, 1, 1, 4, 250));
	CU_ASSERT_FATAL(!ft_recognise(f, &ft));
	CU_ASSERT(!ft.tree);
	CU_ASSERT_STRING_EQUAL(ft.reason, "no switch has a host");
	ft_info_release(&ft);
	fab_free(f);
}

TU_SUITE(fattreerec,
	 { "pure k-ary 3-tree", test_pure },
	 { "shuffled ports", test_shuffled },
	 { "degraded and under-populated", test_degraded },
	 { "rail-optimized", test_rails },
	 { "parallel links", test_parallel },
	 { "spine without up links relevelled", test_relevel },
	 { "torus, dragonfly, no hosts", test_not_trees })
