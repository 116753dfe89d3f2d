// SPDX-License-Identifier: MIT
/*
 * The verifier against hand-made fabrics and hand-set LFT entries: it must
 * count what is broken, and only that, and measure EFI and eBB exactly.
 */
#include <stdlib.h>

#include "routing/verify.h"
#include "tu.h"

static const struct vf_opts no_ebb = { 0 };

static uint32_t add(struct fabric *f, enum fab_type ty, unsigned int np)
{
	static uint64_t guid = 0x1000;
	int n = fab_add_node(f, ty, np, guid++, ty == FAB_SW ? "sw" : "h hca");

	CU_ASSERT_FATAL(n >= 0);
	return n;
}

static void cable(struct fabric *f, uint32_t a, unsigned int pa, uint32_t b,
		  unsigned int pb)
{
	CU_ASSERT_FATAL(fab_link(f, a, pa, b, pb, 4, 25) == 0);
}

static unsigned int lid_of(const struct fabric *f, uint32_t n)
{
	return fab_lid_port(f, n, 1)->lid;
}

/* Switch node n forwards LID lid out of port. */
static void set(struct rt_tables *t, uint32_t n, unsigned int lid,
		unsigned int port)
{
	rt_lft(t, t->node_sw[n])[lid] = port;
}

static uint8_t get(const struct rt_tables *t, uint32_t n, unsigned int lid)
{
	return rt_lft(t, t->node_sw[n])[lid];
}

static void tables(struct fabric *f, struct rt_tables *t, unsigned int lmc)
{
	CU_ASSERT_FATAL(fab_assign_lids(f, lmc) == 0);
	CU_ASSERT_FATAL(rt_tables_init(t, f) == 0);
	rt_tables_set_local(t);
}

/*
 * Two leaves, two spines.  Leaf ports 1-2 hosts, 3 to s0, 4 to s1, 5 free;
 * spine port 1 to l1, 2 to l2.  h[0], h[1] on l1; h[2], h[3] on l2.
 */
struct tree {
	struct fabric *f;
	struct rt_tables t;
	uint32_t s0, s1, l1, l2, h[4];
};

static void tree_build(struct tree *x)
{
	int i;

	x->f = fab_new();
	CU_ASSERT_FATAL(x->f != NULL);
	x->s0 = add(x->f, FAB_SW, 2);
	x->s1 = add(x->f, FAB_SW, 2);
	x->l1 = add(x->f, FAB_SW, 5);
	x->l2 = add(x->f, FAB_SW, 5);
	for (i = 0; i < 4; i++) {
		x->h[i] = add(x->f, FAB_CA, 1);
		cable(x->f, x->h[i], 1, i < 2 ? x->l1 : x->l2, i % 2 + 1);
	}
	cable(x->f, x->l1, 3, x->s0, 1);
	cable(x->f, x->l1, 4, x->s1, 1);
	cable(x->f, x->l2, 3, x->s0, 2);
	cable(x->f, x->l2, 4, x->s1, 2);
	tables(x->f, &x->t, 0);
}

/*
 * Up/down.  Balanced: h[i] is reached through s0 for even i, s1 for odd;
 * otherwise everything goes through s0.
 */
static void tree_route(struct tree *x, bool balanced)
{
	struct rt_tables *t = &x->t;
	unsigned int lid, up, down;
	int i;

	for (i = 0; i < 4; i++) {
		lid = lid_of(x->f, x->h[i]);
		up = balanced && i % 2 ? 4 : 3;
		down = i < 2 ? 1 : 2;
		set(t, i < 2 ? x->l2 : x->l1, lid, up);
		set(t, x->s0, lid, down);
		set(t, x->s1, lid, down);
	}
	lid = lid_of(x->f, x->l1);
	set(t, x->l2, lid, 3);
	set(t, x->s0, lid, 1);
	set(t, x->s1, lid, 1);
	lid = lid_of(x->f, x->l2);
	set(t, x->l1, lid, 3);
	set(t, x->s0, lid, 2);
	set(t, x->s1, lid, 2);
	lid = lid_of(x->f, x->s0);
	set(t, x->l1, lid, 3);
	set(t, x->l2, lid, 3);
	set(t, x->s1, lid, 1);
	lid = lid_of(x->f, x->s1);
	set(t, x->l1, lid, 4);
	set(t, x->l2, lid, 4);
	set(t, x->s0, lid, 1);
}

static void tree_free(struct tree *x)
{
	rt_tables_release(&x->t);
	fab_free(x->f);
}

static void check(const struct rt_tables *t, const struct vf_opts *o,
		  struct vf_report *r)
{
	CU_ASSERT_FATAL(vf_check(t, o, r) == 0);
	CU_ASSERT_EQUAL(r->unreachable, r->holes + r->loops);
}

static void test_tree_ok(void)
{
	struct vf_report r;
	struct tree x;

	tree_build(&x);
	tree_route(&x, true);
	check(&x.t, &no_ebb, &r);
	CU_ASSERT_TRUE(vf_ok(&r));
	/* 4 sources x 4 host LIDs minus each host itself; 4 switch LIDs */
	CU_ASSERT_EQUAL(r.pairs, 12);
	CU_ASSERT_EQUAL(r.sw_pairs, 16);
	CU_ASSERT_EQUAL(r.sw_unreachable, 0);
	CU_ASSERT_EQUAL(r.unreachable, 0);
	CU_ASSERT_EQUAL(r.disconnected, 0);
	CU_ASSERT_EQUAL(r.max_hops, 2);
	/*
	 * Balanced: each host is reached by the 2 hosts of the other leaf
	 * through its own spine, so each of the 8 directed leaf-spine links
	 * carries exactly 2 routes.
	 */
	CU_ASSERT_EQUAL(r.efi_max, 2);
	CU_ASSERT_DOUBLE_EQUAL(r.efi_mean, 2.0, 1e-9);
	CU_ASSERT_DOUBLE_EQUAL(r.efi_ratio, 1.0, 1e-9);
	/* (l1->s0, s0->l2), (l1->s1, s1->l2) and the mirror pair */
	CU_ASSERT_TRUE(r.cdg_checked);
	CU_ASSERT_FALSE(r.cdg_cycle);
	CU_ASSERT_EQUAL(r.cdg_edges, 4);
	CU_ASSERT_EQUAL(r.nvl, 1);

	/*
	 * Through s0 only: l1->s0, s0->l2, l2->s0, s0->l1 carry 4 routes
	 * each, the s1 links none: max 4, mean 16 / 8 = 2.
	 */
	tree_route(&x, false);
	check(&x.t, &no_ebb, &r);
	CU_ASSERT_TRUE(vf_ok(&r));
	CU_ASSERT_EQUAL(r.efi_max, 4);
	CU_ASSERT_DOUBLE_EQUAL(r.efi_mean, 2.0, 1e-9);
	CU_ASSERT_DOUBLE_EQUAL(r.efi_ratio, 2.0, 1e-9);
	CU_ASSERT_EQUAL(r.cdg_edges, 2);

	/* a detour to a switch LID (l1 -> s0 -> l2 -> s1) is no data path */
	set(&x.t, x.l1, lid_of(x.f, x.s1), 3);
	set(&x.t, x.s0, lid_of(x.f, x.s1), 2);
	check(&x.t, &no_ebb, &r);
	CU_ASSERT_TRUE(vf_ok(&r));
	CU_ASSERT_EQUAL(r.max_hops, 2);
	tree_free(&x);
}

/* Break one entry, expect n holes first seen at switch node at, restore. */
static void expect_holes(struct tree *x, uint32_t n, unsigned int lid,
			 unsigned int port, uint64_t holes, uint32_t at)
{
	uint8_t old = get(&x->t, n, lid);
	struct vf_report r;

	set(&x->t, n, lid, port);
	check(&x->t, &no_ebb, &r);
	CU_ASSERT_FALSE(vf_ok(&r));
	CU_ASSERT_EQUAL(r.holes, holes);
	CU_ASSERT_EQUAL(r.loops, 0);
	CU_ASSERT_EQUAL(r.pairs, 12);
	CU_ASSERT_EQUAL(r.disconnected, 0);
	CU_ASSERT_EQUAL(r.bad.dlid, lid);
	CU_ASSERT_EQUAL(r.bad.sw, x->t.node_sw[at]);
	set(&x->t, n, lid, old);
}

/* Break a switch LID's entry: n sources lose it, CA pairs unharmed. */
static void expect_sw_holes(struct tree *x, uint32_t n, unsigned int lid,
			    unsigned int port, uint64_t lost)
{
	uint8_t old = get(&x->t, n, lid);
	struct vf_report r;

	set(&x->t, n, lid, port);
	check(&x->t, &no_ebb, &r);
	CU_ASSERT_TRUE(vf_ok(&r));
	CU_ASSERT_EQUAL(r.sw_unreachable, lost);
	CU_ASSERT_EQUAL(r.unreachable, 0);
	CU_ASSERT_EQUAL(r.sw_pairs, 16);
	set(&x->t, n, lid, old);
}

static void test_holes(void)
{
	unsigned int h0, h2;
	struct vf_report r;
	struct tree x;

	tree_build(&x);
	tree_route(&x, true);
	h0 = lid_of(x.f, x.h[0]);
	h2 = lid_of(x.f, x.h[2]);

	/* h2 and h3 lose h0 at their own leaf */
	set(&x.t, x.l2, h0, RT_NO_PATH);
	check(&x.t, &no_ebb, &r);
	CU_ASSERT_EQUAL(r.unreachable, 2);
	CU_ASSERT_EQUAL(r.holes, 2);
	CU_ASSERT_EQUAL(r.bad.slid, lid_of(x.f, x.h[2]));
	CU_ASSERT_EQUAL(r.bad.dlid, h0);
	CU_ASSERT_EQUAL(r.bad.sw, x.t.node_sw[x.l2]);
	CU_ASSERT_EQUAL(r.bad.port, RT_NO_PATH);
	set(&x.t, x.l2, h0, 3);

	/* the hole is one hop up, at the spine */
	expect_holes(&x, x.s0, h2, RT_NO_PATH, 2, x.s0);
	/* an unlinked port, a port beyond the switch, port 0 */
	expect_holes(&x, x.l1, h2, 5, 2, x.l1);
	expect_holes(&x, x.l1, h2, 200, 2, x.l1);
	expect_holes(&x, x.l1, h2, 0, 2, x.l1);
	/* switch LIDs are checked, reported apart, and do not fail */
	expect_sw_holes(&x, x.l1, lid_of(x.f, x.s1), RT_NO_PATH, 2);
	/* the owner must take it on port 0 */
	expect_sw_holes(&x, x.s0, lid_of(x.f, x.s0), 5, 4);

	check(&x.t, &no_ebb, &r);
	CU_ASSERT_TRUE(vf_ok(&r));
	tree_free(&x);
}

static void test_wrong_port(void)
{
	unsigned int h0;
	struct vf_report r;
	struct tree x;

	tree_build(&x);
	tree_route(&x, true);
	h0 = lid_of(x.f, x.h[0]);
	/* l1 hands h0's packets to h1: h1 itself, h2 and h3 miss */
	set(&x.t, x.l1, h0, 2);
	check(&x.t, &no_ebb, &r);
	CU_ASSERT_FALSE(vf_ok(&r));
	CU_ASSERT_EQUAL(r.holes, 3);
	CU_ASSERT_EQUAL(r.loops, 0);
	CU_ASSERT_EQUAL(r.bad.sw, x.t.node_sw[x.l1]);
	CU_ASSERT_EQUAL(r.bad.port, 2);
	CU_ASSERT_EQUAL(r.bad.dlid, h0);
	tree_free(&x);
}

static void test_loop(void)
{
	unsigned int h2, s1;
	struct vf_report r;
	struct tree x;

	tree_build(&x);
	tree_route(&x, true);
	h2 = lid_of(x.f, x.h[2]);
	/* l1 and s0 point at each other for h2: h0 and h1 loop */
	set(&x.t, x.s0, h2, 1);
	check(&x.t, &no_ebb, &r);
	CU_ASSERT_FALSE(vf_ok(&r));
	CU_ASSERT_EQUAL(r.loops, 2);
	CU_ASSERT_EQUAL(r.holes, 0);
	CU_ASSERT_EQUAL(r.bad.dlid, h2);
	CU_ASSERT_TRUE(r.bad.sw == x.t.node_sw[x.l1] ||
		       r.bad.sw == x.t.node_sw[x.s0]);
	/* a routing loop is also a dependency cycle */
	CU_ASSERT_TRUE(r.cdg_cycle);
	set(&x.t, x.s0, h2, 2);

	/*
	 * s1's LID: l1 -> s0 -> l2 -> s0 -> ...: l1 leads into the cycle,
	 * all four hosts loop.
	 */
	s1 = lid_of(x.f, x.s1);
	set(&x.t, x.l1, s1, 3);
	set(&x.t, x.s0, s1, 2);
	set(&x.t, x.l2, s1, 3);
	check(&x.t, &no_ebb, &r);
	/*
	 * A loop to a switch LID loses management traffic only: counted
	 * apart, and no credit loop of CA-to-CA data; but the switches' own
	 * packets to s1 loop, and that fails the routing.
	 */
	CU_ASSERT_EQUAL(r.sw_unreachable, 4);
	CU_ASSERT_EQUAL(r.loops, 0);
	CU_ASSERT_EQUAL(r.holes, 0);
	CU_ASSERT_FALSE(r.cdg_cycle);
	CU_ASSERT_EQUAL(r.mgmt_loops, 3);
	CU_ASSERT_EQUAL(r.mgmt_unreachable, 3);
	CU_ASSERT_EQUAL(r.mgmt_bad.dlid, s1);
	CU_ASSERT_FALSE(vf_ok(&r));
	tree_free(&x);
}

/* Counts of a connectivity check, which skip_efi must leave alone. */
static void expect_same_fates(const struct rt_tables *t)
{
	const struct vf_opts full = { .skip_cdg = true, .skip_mgmt = true };
	const struct vf_opts lean = { .skip_cdg = true, .skip_mgmt = true,
				      .skip_efi = true };
	struct vf_report a, b;

	check(t, &full, &a);
	check(t, &lean, &b);
	CU_ASSERT_EQUAL(b.pairs, a.pairs);
	CU_ASSERT_EQUAL(b.unreachable, a.unreachable);
	CU_ASSERT_EQUAL(b.holes, a.holes);
	CU_ASSERT_EQUAL(b.loops, a.loops);
	CU_ASSERT_EQUAL(b.sw_pairs, a.sw_pairs);
	CU_ASSERT_EQUAL(b.sw_unreachable, a.sw_unreachable);
	CU_ASSERT_EQUAL(b.max_hops, a.max_hops);
	CU_ASSERT_EQUAL(b.bad.slid, a.bad.slid);
	CU_ASSERT_EQUAL(b.bad.dlid, a.bad.dlid);
	CU_ASSERT_EQUAL(b.bad.sw, a.bad.sw);
	CU_ASSERT_EQUAL(b.efi_max, 0);
	CU_ASSERT_TRUE(a.efi_max > 0);
}

/* skip_efi drops the link tallies, not a lost pair, hole or loop. */
static void test_skip_efi(void)
{
	uint64_t link[64];
	const struct vf_opts o = { .skip_cdg = true, .skip_mgmt = true,
				   .skip_efi = true, .efi_link = link };
	unsigned int h2;
	struct vf_report r;
	struct tree x;

	tree_build(&x);
	tree_route(&x, true);
	CU_ASSERT_FATAL(x.f->nports <= 64);
	expect_same_fates(&x.t);
	memset(link, 0xab, sizeof(link));
	check(&x.t, &o, &r);
	CU_ASSERT_EQUAL(link[0], 0xababababababababull);
	h2 = lid_of(x.f, x.h[2]);
	set(&x.t, x.l1, h2, RT_NO_PATH);
	expect_same_fates(&x.t);
	set(&x.t, x.l1, h2, 3);
	set(&x.t, x.s0, h2, 1);
	expect_same_fates(&x.t);
	check(&x.t, &o, &r);
	CU_ASSERT_EQUAL(r.loops, 2);
	CU_ASSERT_FALSE(vf_ok(&r));
	tree_free(&x);
}

/*
 * skip_sw_dests leaves switch LIDs out as destinations with skip_mgmt,
 * and only then: CA pairs and their faults are counted as before.
 */
static void test_skip_sw_dests(void)
{
	const struct vf_opts full = { .skip_cdg = true, .skip_mgmt = true };
	const struct vf_opts lean = { .skip_cdg = true, .skip_mgmt = true,
				      .skip_sw_dests = true };
	const struct vf_opts mgmt = { .skip_cdg = true,
				      .skip_sw_dests = true };
	struct vf_report a, b;
	unsigned int h2;
	struct tree x;

	tree_build(&x);
	tree_route(&x, true);
	/* a hole to a switch LID, and h0, h1 looping to h2 */
	set(&x.t, x.l1, lid_of(x.f, x.s1), RT_NO_PATH);
	h2 = lid_of(x.f, x.h[2]);
	set(&x.t, x.s0, h2, 1);
	check(&x.t, &full, &a);
	check(&x.t, &lean, &b);
	CU_ASSERT_EQUAL(a.sw_pairs, 16);
	CU_ASSERT_EQUAL(a.sw_unreachable, 2);
	CU_ASSERT_EQUAL(b.sw_pairs, 0);
	CU_ASSERT_EQUAL(b.sw_unreachable, 0);
	CU_ASSERT_EQUAL(b.pairs, a.pairs);
	CU_ASSERT_EQUAL(b.unreachable, a.unreachable);
	CU_ASSERT_EQUAL(b.loops, 2);
	CU_ASSERT_EQUAL(b.bad.dlid, a.bad.dlid);
	CU_ASSERT_EQUAL(b.max_hops, a.max_hops);
	CU_ASSERT_EQUAL(vf_ok(&b), vf_ok(&a));
	/* the switches' own routes need the switch LIDs: ignored */
	check(&x.t, &mgmt, &b);
	CU_ASSERT_EQUAL(b.sw_pairs, 16);
	CU_ASSERT_TRUE(b.mgmt_pairs > 0);
	tree_free(&x);
}

/*
 * Only switches with a LID send: s0 to h3 through l1 and s1 to h0
 * through l2, both turning down then up, close a cycle with the data's
 * l1 -> s1 -> l2 and l2 -> s0 -> l1 when the spines have LIDs, and no
 * dependency at all when they have none.
 */
static void test_mgmt_lidless(void)
{
	struct vf_report r;
	struct tree x;

	tree_build(&x);
	tree_route(&x, true);
	set(&x.t, x.s0, lid_of(x.f, x.h[3]), 1);
	set(&x.t, x.s1, lid_of(x.f, x.h[0]), 2);
	check(&x.t, &no_ebb, &r);
	CU_ASSERT_FALSE(r.cdg_cycle);
	CU_ASSERT_TRUE(r.mgmt_cycle);
	CU_ASSERT_FALSE(vf_ok(&r));

	fab_port(x.f, x.s0, 0)->lid = 0;
	fab_port(x.f, x.s1, 0)->lid = 0;
	check(&x.t, &no_ebb, &r);
	CU_ASSERT_EQUAL(r.mgmt_pairs, 2 * (4 + 3));
	CU_ASSERT_FALSE(r.mgmt_cycle);
	CU_ASSERT_EQUAL(r.mgmt_edges, 0);
	CU_ASSERT_TRUE(vf_ok(&r));
	tree_free(&x);
}

/*
 * Switch-sourced routes: every switch to every host LID and every other
 * switch LID.  s0 reaches s1 through l1 and s1 reaches s0 through l2,
 * both turning down then up; with the data's l1 -> s1 -> l2 (h0 to h3)
 * and l2 -> s0 -> l1 (h2 to h0) they close a cycle no CA pair closes.
 */
static void test_mgmt_cycle(void)
{
	struct vf_report r;
	struct tree x;
	unsigned int s0;

	tree_build(&x);
	tree_route(&x, true);
	check(&x.t, &no_ebb, &r);
	CU_ASSERT_EQUAL(r.mgmt_pairs, 4 * (4 + 3));
	CU_ASSERT_EQUAL(r.mgmt_unreachable, 0);
	CU_ASSERT_FALSE(r.mgmt_cycle);
	CU_ASSERT_TRUE(vf_ok(&r));

	s0 = lid_of(x.f, x.s0);
	set(&x.t, x.s1, s0, 2);
	check(&x.t, &no_ebb, &r);
	CU_ASSERT_EQUAL(r.unreachable, 0);
	CU_ASSERT_EQUAL(r.mgmt_unreachable, 0);
	CU_ASSERT_FALSE(r.cdg_cycle);
	CU_ASSERT_TRUE(r.mgmt_cycle);
	CU_ASSERT_EQUAL(r.mgmt_cycle_vl, 0);
	CU_ASSERT_TRUE(r.mgmt_edges > 0);
	CU_ASSERT_FALSE(vf_ok(&r));

	/* the same without the check of switch-sourced routes */
	{
		struct vf_opts o = { .skip_mgmt = true };

		check(&x.t, &o, &r);
		CU_ASSERT_EQUAL(r.mgmt_pairs, 0);
		CU_ASSERT_FALSE(r.mgmt_cycle);
		CU_ASSERT_TRUE(vf_ok(&r));
	}

	/* a hole in a switch's route is reported, not failed */
	set(&x.t, x.s1, s0, RT_NO_PATH);
	check(&x.t, &no_ebb, &r);
	CU_ASSERT_EQUAL(r.mgmt_unreachable, 1);
	CU_ASSERT_EQUAL(r.mgmt_loops, 0);
	CU_ASSERT_EQUAL(r.mgmt_bad.slid, lid_of(x.f, x.s1));
	CU_ASSERT_EQUAL(r.mgmt_bad.dlid, s0);
	CU_ASSERT_FALSE(r.mgmt_cycle);
	CU_ASSERT_TRUE(vf_ok(&r));
	tree_free(&x);
}

/*
 * Three islands: switch a with 2 hosts, switch b with 1 host, and two CAs
 * cabled back to back.  5 sources; LIDs: a 3, b 2, back to back 2.
 */
static void test_disconnected(void)
{
	struct fabric *f = fab_new();
	uint32_t a, b, ha[2], hb, c1, c2;
	struct rt_tables t;
	struct vf_report r;

	CU_ASSERT_FATAL(f != NULL);
	a = add(f, FAB_SW, 4);
	b = add(f, FAB_SW, 4);
	ha[0] = add(f, FAB_CA, 1);
	ha[1] = add(f, FAB_CA, 1);
	hb = add(f, FAB_CA, 1);
	c1 = add(f, FAB_CA, 1);
	c2 = add(f, FAB_CA, 1);
	cable(f, ha[0], 1, a, 1);
	cable(f, ha[1], 1, a, 2);
	cable(f, hb, 1, b, 1);
	cable(f, c1, 1, c2, 1);
	tables(f, &t, 0);
	check(&t, &no_ebb, &r);
	CU_ASSERT_TRUE(vf_ok(&r));
	CU_ASSERT_EQUAL(r.unreachable, 0);
	/* a: 2 x 2 - 2; b: 1 x 1 - 1; back to back: one each way */
	CU_ASSERT_EQUAL(r.pairs, 2 + 0 + 2);
	CU_ASSERT_EQUAL(r.sw_pairs, 2 + 1);
	/* a's 2 host LIDs miss 3 sources, hb's 4, the pair's 2 miss 3 */
	CU_ASSERT_EQUAL(r.disconnected, 2 * 3 + 1 * 4 + 2 * 3);
	CU_ASSERT_EQUAL(r.efi_max, 0);

	set(&t, a, lid_of(f, ha[1]), RT_NO_PATH);
	check(&t, &no_ebb, &r);
	CU_ASSERT_EQUAL(r.holes, 1);
	CU_ASSERT_EQUAL(r.disconnected, 16);
	rt_tables_release(&t);
	fab_free(f);
}

/*
 * LMC 1, switches a - b (port 3), CA x with port 1 on a and port 2 on b,
 * CA y on a.  Every LID is a destination; EFI counts base LIDs only.
 */
static void test_lmc(void)
{
	struct fabric *f = fab_new();
	unsigned int x1, x2, ly, i;
	struct rt_tables t;
	struct vf_report r;
	uint32_t a, b, x, y;

	CU_ASSERT_FATAL(f != NULL);
	a = add(f, FAB_SW, 3);
	b = add(f, FAB_SW, 3);
	x = add(f, FAB_CA, 2);
	y = add(f, FAB_CA, 1);
	cable(f, a, 3, b, 3);
	cable(f, x, 1, a, 1);
	cable(f, x, 2, b, 1);
	cable(f, y, 1, a, 2);
	tables(f, &t, 1);
	x1 = fab_port(f, x, 1)->lid;
	x2 = fab_port(f, x, 2)->lid;
	ly = lid_of(f, y);
	for (i = 0; i < 2; i++) {
		set(&t, a, x2 + i, 3);
		set(&t, b, x1 + i, 3);
		set(&t, b, ly + i, 3);
	}
	set(&t, a, lid_of(f, b), 3);
	set(&t, b, lid_of(f, a), 3);
	check(&t, &no_ebb, &r);
	CU_ASSERT_TRUE(vf_ok(&r));
	/* 3 sources x 6 CA LIDs minus each port's own 2; 2 switch LIDs */
	CU_ASSERT_EQUAL(r.pairs, 3 * 6 - 3 * 2);
	CU_ASSERT_EQUAL(r.sw_pairs, 3 * 2);
	/* base LIDs: x1 <- x2 over b->a, x2 <- x1, y over a->b, y <- x2 */
	CU_ASSERT_EQUAL(r.efi_max, 2);
	CU_ASSERT_DOUBLE_EQUAL(r.efi_mean, 2.0, 1e-9);
	CU_ASSERT_EQUAL(r.max_hops, 1);

	/*
	 * x's port 1 reaches its own port 2 through the fabric; the a->b
	 * link loses its only routes, b->a keeps 2.
	 */
	set(&t, a, x2, RT_NO_PATH);
	check(&t, &no_ebb, &r);
	CU_ASSERT_EQUAL(r.holes, 2);
	CU_ASSERT_EQUAL(r.efi_max, 2);
	CU_ASSERT_DOUBLE_EQUAL(r.efi_mean, 1.0, 1e-9);
	set(&t, a, x2, 3);

	/* the second LID alone broken still counts */
	set(&t, a, x2 + 1, RT_NO_PATH);
	check(&t, &no_ebb, &r);
	CU_ASSERT_EQUAL(r.holes, 2);
	CU_ASSERT_EQUAL(r.bad.dlid, x2 + 1);
	CU_ASSERT_EQUAL(r.efi_max, 2);
	rt_tables_release(&t);
	fab_free(f);
}

/*
 * A ring of 4 switches, one host each; switch i: port 1 host, port 2 to
 * switch i + 1, port 3 from switch i - 1.  Everything goes clockwise.
 */
struct ring {
	struct fabric *f;
	struct rt_tables t;
	uint32_t s[4], h[4];
};

static void ring_build(struct ring *x)
{
	unsigned int lid;
	uint32_t i, j;

	x->f = fab_new();
	CU_ASSERT_FATAL(x->f != NULL);
	for (i = 0; i < 4; i++)
		x->s[i] = add(x->f, FAB_SW, 3);
	for (i = 0; i < 4; i++) {
		x->h[i] = add(x->f, FAB_CA, 1);
		cable(x->f, x->h[i], 1, x->s[i], 1);
		cable(x->f, x->s[i], 2, x->s[(i + 1) % 4], 3);
	}
	tables(x->f, &x->t, 0);
	for (lid = 1; lid <= x->t.top; lid++)
		for (j = 0; j < 4; j++)
			if (get(&x->t, x->s[j], lid) == RT_NO_PATH)
				set(&x->t, x->s[j], lid, 2);
}

/* The ring with vl, whose callbacks read the ring's positions. */
static void ring_with(struct ring *x, struct rt_vl *vl)
{
	ring_build(x);
	vl->ctx = x->s;
	x->t.vl = vl;
}

static void ring_free(struct ring *x)
{
	rt_tables_release(&x->t);
	fab_free(x->f);
}

/* SL: the ring position of the source's switch (a switch is its own). */
static uint8_t ring_sl(const struct rt_tables *t, unsigned int slid,
		       unsigned int dlid)
{
	const uint32_t *pos = t->vl->ctx;
	uint32_t i, n = t->lid_node[slid];

	(void)dlid;
	if (!fab_is_sw(t->fab, n))
		n = fab_port(t->fab, n, t->lid_port[slid])->peer;
	for (i = 0; pos[i] != n; i++)
		;
	return i;
}

/*
 * Dateline between position 3 and 0: the out link is VL 1 once the packet
 * has wrapped, i.e. at a switch before its source's position.
 */
static uint8_t ring_dateline(const struct rt_tables *t, uint32_t sw,
			     unsigned int in, unsigned int out,
			     unsigned int sl)
{
	const uint32_t *pos = t->vl->ctx;
	uint32_t i;

	(void)in;
	(void)out;
	for (i = 0; pos[i] != t->sw_node[sw]; i++)
		;
	return i < sl;
}

static uint8_t ring_vl1(const struct rt_tables *t, uint32_t sw,
			unsigned int in, unsigned int out, unsigned int sl)
{
	(void)t;
	(void)sw;
	(void)in;
	(void)out;
	(void)sl;
	return 1;
}

static void test_ring(void)
{
	struct vf_opts o = { .skip_cdg = true };
	struct vf_report r;
	struct ring x;

	ring_build(&x);
	check(&x.t, &no_ebb, &r);
	CU_ASSERT_EQUAL(r.unreachable, 0);
	CU_ASSERT_EQUAL(r.pairs, 4 * 4 - 4);
	CU_ASSERT_EQUAL(r.sw_pairs, 4 * 4);
	CU_ASSERT_EQUAL(r.max_hops, 3);
	/*
	 * Host a reaches the others over 1 + 2 + 3 clockwise links: 24
	 * link crossings spread evenly over the 4 clockwise links (6
	 * each), none on the 4 counter-clockwise ones: mean 24 / 8 = 3.
	 */
	CU_ASSERT_EQUAL(r.efi_max, 6);
	CU_ASSERT_DOUBLE_EQUAL(r.efi_mean, 3.0, 1e-9);
	CU_ASSERT_DOUBLE_EQUAL(r.efi_ratio, 2.0, 1e-9);
	/* every clockwise link waits on the next one */
	CU_ASSERT_TRUE(r.cdg_checked);
	CU_ASSERT_TRUE(r.cdg_cycle);
	CU_ASSERT_EQUAL(r.cycle_vl, 0);
	CU_ASSERT_EQUAL(r.cdg_edges, 4);
	CU_ASSERT_FALSE(vf_ok(&r));
	/* the cycle is made of the port 2 links */
	CU_ASSERT_TRUE(r.bad.sw < 4);
	CU_ASSERT_EQUAL(r.bad.port, 2);

	check(&x.t, &o, &r);
	CU_ASSERT_FALSE(r.cdg_checked);
	CU_ASSERT_TRUE(vf_ok(&r));
	ring_free(&x);
}

static void test_ring_dateline(void)
{
	struct rt_vl vl = { .nvl = 2, .path_sl = ring_sl, .switch_sl = true,
			    .sl2vl = ring_dateline };
	struct vf_report r;
	struct ring x;

	ring_with(&x, &vl);
	check(&x.t, &no_ebb, &r);
	CU_ASSERT_TRUE(r.cdg_checked);
	CU_ASSERT_FALSE(r.cdg_cycle);
	CU_ASSERT_EQUAL(r.nvl, 2);
	/*
	 * With c_i the link i -> i + 1: (c0,0)->(c1,0), (c1,0)->(c2,0),
	 * (c2,0)->(c3,0), (c3,0)->(c0,1) at the dateline and (c0,1)->(c1,1)
	 * for the one route that goes on after it (3 -> 2).
	 */
	CU_ASSERT_EQUAL(r.cdg_edges, 5);
	CU_ASSERT_TRUE(vf_ok(&r));

	/* the same clockwise routing all on VL 1 closes the cycle there */
	vl.sl2vl = ring_vl1;
	check(&x.t, &no_ebb, &r);
	CU_ASSERT_TRUE(r.cdg_cycle);
	CU_ASSERT_EQUAL(r.cycle_vl, 1);
	CU_ASSERT_EQUAL(r.cdg_edges, 4);
	CU_ASSERT_FALSE(vf_ok(&r));
	ring_free(&x);
}

/*
 * Management on SL 15: a CA's requests to a switch LID, and so the
 * switch's answers; the rest as ring_sl().
 */
static uint8_t mgmt_sl(const struct rt_tables *t, unsigned int slid,
		       unsigned int dlid)
{
	if (!fab_is_sw(t->fab, t->lid_node[slid]) &&
	    fab_is_sw(t->fab, t->lid_node[dlid]))
		return 15;
	return ring_sl(t, slid, dlid);
}

/* SL 15 on VL 2, the rest over the dateline. */
static uint8_t mgmt_vl(const struct rt_tables *t, uint32_t sw,
		       unsigned int in, unsigned int out, unsigned int sl)
{
	return sl == 15 ? 2 : ring_dateline(t, sw, in, out, sl);
}

/*
 * The CDG holds the management routes on the VLs they ride: a CA's
 * requests to switch LIDs on their own SL, and the switches' answers on
 * that SL too (a GMP is answered on the request's SL), not only the
 * switches' own packets on the SL path_sl gives for a switch's LID.
 * Going round the ring on VL 2, each closes a cycle there: the requests'
 * fails the routing, the answers' is reported.
 */
static void test_mgmt_requests_vl(void)
{
	struct rt_vl vl = { .nvl = 3, .path_sl = mgmt_sl, .switch_sl = true,
			    .sl2vl = mgmt_vl };
	struct vf_report r;
	struct ring x;
	unsigned int d;
	uint32_t i, j;

	ring_with(&x, &vl);
	check(&x.t, &no_ebb, &r);
	CU_ASSERT_FALSE(r.cdg_cycle);
	CU_ASSERT_TRUE(r.mgmt_cycle);
	CU_ASSERT_EQUAL(r.mgmt_cycle_vl, 2);
	CU_ASSERT_FALSE(vf_ok(&r));

	/*
	 * Switch LIDs only from the switch before: the requests take one
	 * hop, no dependency; the answers still go round on VL 2.
	 */
	for (j = 0; j < 4; j++) {
		d = lid_of(x.f, x.s[j]);
		for (i = 0; i < 4; i++)
			if (i != j && (i + 1) % 4 != j)
				set(&x.t, x.s[i], d, RT_NO_PATH);
	}
	check(&x.t, &no_ebb, &r);
	CU_ASSERT_FALSE(r.cdg_cycle);
	CU_ASSERT_FALSE(r.mgmt_cycle);
	CU_ASSERT_TRUE(r.answer_cycle);
	CU_ASSERT_EQUAL(r.answer_cycle_vl, 2);
	CU_ASSERT_TRUE(vf_ok(&r));

	/* requests on the dateline's SLs: no cycle */
	vl.path_sl = ring_sl;
	check(&x.t, &no_ebb, &r);
	CU_ASSERT_FALSE(r.mgmt_cycle);
	CU_ASSERT_FALSE(r.answer_cycle);
	CU_ASSERT_TRUE(vf_ok(&r));
	ring_free(&x);
}

/* One switch, n hosts on ports 1..n. */
static void star(struct fabric **f, struct rt_tables *t, unsigned int n)
{
	uint32_t s, h;
	unsigned int i;

	*f = fab_new();
	CU_ASSERT_FATAL(*f != NULL);
	s = add(*f, FAB_SW, n);
	for (i = 1; i <= n; i++) {
		h = add(*f, FAB_CA, 1);
		cable(*f, h, 1, s, i);
	}
	tables(*f, t, 0);
}

static void test_ebb_star(void)
{
	struct vf_opts o = { .ebb_perms = 50, .seed = 7 };
	struct rt_tables t;
	struct vf_report r;
	struct fabric *f;

	star(&f, &t, 4);
	check(&t, &o, &r);
	CU_ASSERT_TRUE(vf_ok(&r));
	CU_ASSERT_EQUAL(r.ebb_perms, 50);
	CU_ASSERT_DOUBLE_EQUAL(r.ebb, 1.0, 1e-12);

	check(&t, NULL, &r);
	CU_ASSERT_EQUAL(r.ebb_perms, VF_DEFAULT_PERMS);
	CU_ASSERT_DOUBLE_EQUAL(r.ebb, 1.0, 1e-12);

	/*
	 * Flows into the last host are lost and count 0: of the 72 flows of
	 * the 24 permutations of 4, 18 end there, so eBB tends to 54 / 72.
	 */
	set(&t, t.sw_node[0], lid_of(f, 4), RT_NO_PATH);
	o.ebb_perms = 4000;
	check(&t, &o, &r);
	CU_ASSERT_DOUBLE_EQUAL(r.ebb, 0.75, 0.02);
	rt_tables_release(&t);
	fab_free(f);
}

/*
 * Switches a and b joined by one cable (port 3), two hosts on each.  Over
 * the 24 permutations of 4 hosts: 72 flows, 24 stay on their switch
 * (share 1); of the 48 that cross, 16 come from the 4 permutations that
 * send both hosts of each side across (2 flows per direction, share 1/2),
 * 32 cross alone (share 1).  eBB tends to (24 + 8 + 32) / 72 = 8 / 9.
 */
static void test_ebb_bottleneck(void)
{
	struct vf_opts o = { .ebb_perms = 4000, .seed = 42 };
	struct fabric *f = fab_new();
	struct vf_report r, r2;
	struct rt_tables t;
	uint32_t a, b, h;
	unsigned int i;

	CU_ASSERT_FATAL(f != NULL);
	a = add(f, FAB_SW, 3);
	b = add(f, FAB_SW, 3);
	cable(f, a, 3, b, 3);
	for (i = 0; i < 4; i++) {
		h = add(f, FAB_CA, 1);
		cable(f, h, 1, i < 2 ? a : b, i % 2 + 1);
	}
	tables(f, &t, 0);
	for (i = 1; i <= t.top; i++) {
		if (get(&t, a, i) == RT_NO_PATH)
			set(&t, a, i, 3);
		if (get(&t, b, i) == RT_NO_PATH)
			set(&t, b, i, 3);
	}
	check(&t, &o, &r);
	CU_ASSERT_TRUE(vf_ok(&r));
	CU_ASSERT_EQUAL(r.ebb_perms, 4000);
	CU_ASSERT_TRUE(r.ebb < 1.0);
	CU_ASSERT_DOUBLE_EQUAL(r.ebb, 8.0 / 9.0, 0.02);
	/* 2 x 2 routes each way over the single cable */
	CU_ASSERT_EQUAL(r.efi_max, 4);

	check(&t, &o, &r2);
	CU_ASSERT_EQUAL(r.ebb, r2.ebb);
	o.ebb_perms = 0;
	check(&t, &o, &r2);
	CU_ASSERT_EQUAL(r2.ebb, 0);
	CU_ASSERT_EQUAL(r2.ebb_perms, 0);
	rt_tables_release(&t);
	fab_free(f);
}

TU_SUITE(verify,
	 { "tree_ok", test_tree_ok },
	 { "holes", test_holes },
	 { "wrong_port", test_wrong_port },
	 { "loop", test_loop },
	 { "skip_efi keeps every fate", test_skip_efi },
	 { "skip_sw_dests keeps every CA pair", test_skip_sw_dests },
	 { "mgmt_cycle", test_mgmt_cycle },
	 { "switches without a LID send nothing", test_mgmt_lidless },
	 { "disconnected", test_disconnected },
	 { "lmc", test_lmc },
	 { "ring", test_ring },
	 { "ring_dateline", test_ring_dateline },
	 { "management requests and answers on their VL", test_mgmt_requests_vl },
	 { "ebb_star", test_ebb_star },
	 { "ebb_bottleneck", test_ebb_bottleneck })
