// SPDX-License-Identifier: MIT
/* The all-to-all balance on degraded fat-trees, against the bound. */
#include <string.h>

#include "tu.h"
#include "tu_route.h"
#include "tests/bench/a2abound.h"
#include "routing/fattree/balance.h"
#include "routing/route.h"
#include "routing/verify.h"

/*
 * The least busiest link: the bound, raised to the next multiple of a
 * leaf's hosts, since a leaf's routes to one LID take one way.
 */
static double floor_of(const struct fabric *f, unsigned int hosts)
{
	struct ab_result r;
	struct ft_info ft;
	double units;

	CU_ASSERT_FATAL(!ft_recognise(f, &ft) && ft.tree);
	CU_ASSERT_FATAL(!ab_alltoall(f, &ft, 0.002, 5000, &r));
	ft_info_release(&ft);
	units = (uint64_t)(r.lower / hosts + 1 - 1e-9);
	return units * hosts;
}

/*
 * Degraded 3-level trees, cut cables and dropped switches: the fat-tree
 * engine's busiest link within 5 % of the floor, every pair delivered
 * minimally, no credit loop.
 */
static void test_near_bound(void)
{
	static const struct {
		unsigned int r;
		double drop;
		unsigned int sw;
		uint64_t seed;
	} cases[] = {
		{ 16, 0.03, 0, 1 }, { 16, 0.03, 0, 4 }, { 16, 0.02, 2, 2 },
		{ 16, 0.05, 4, 3 }, { 8, 0.03, 2, 2 }, { 8, 0.05, 1, 3 },
	};
	struct vf_opts o = { .ebb_perms = 0 };
	struct rt_summary s;
	struct rt_tables t;
	struct vf_report r;
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		unsigned int rad = cases[i].r;
		struct fabric *f;
		double fl;

		f = tu_radix_degraded(rad, 3, cases[i].drop, cases[i].sw,
			       cases[i].seed);
		fl = floor_of(f, rad / 2);
		CU_ASSERT_FATAL(!rt_route(f, RT_ENGINE_AUTO, NULL, &t, &s));
		CU_ASSERT_FATAL(!vf_check(&t, &o, &r));
		CU_ASSERT_STRING_EQUAL(s.engine, "fattree");
		CU_ASSERT(vf_ok(&r) && r.cdg_checked && !r.cdg_cycle);
		CU_ASSERT_EQUAL(r.max_hops, 4);
		CU_ASSERT(r.efi_max <= fl * 1.05);
		if (r.efi_max > fl * 1.05)
			fprintf(stderr, "radix %u seed %llu: max %llu, floor %.0f\n",
				rad, (unsigned long long)cases[i].seed,
				(unsigned long long)r.efi_max, fl);
		rt_tables_release(&t);
		fab_free(f);
	}
}

static bool has_hosts(const struct fabric *f, uint32_t n)
{
	unsigned int p;

	for (p = 1; p <= f->nodes[n].nports; p++) {
		uint32_t q = fab_port(f, n, p)->peer;

		if (q != FAB_NONE && !fab_is_sw(f, q))
			return true;
	}
	return false;
}

static uint32_t peer(const struct rt_tables *t, uint32_t s, unsigned int p)
{
	return rt_port_switch(t, t->sw_node[s], p);
}

/* Minimal up*-down* moves of a 2-level tree: up to a parent of ds, down. */
static unsigned int two_level(void *ctx, uint32_t s, uint32_t ds,
			      uint8_t *out)
{
	const struct rt_tables *t = ctx;
	const struct fabric *f = t->fab;
	uint32_t n = t->sw_node[s];
	unsigned int p, k, c = 0;

	for (p = 1; p <= f->nodes[n].nports; p++) {
		uint32_t q = peer(t, s, p);

		if (q == FAB_NONE)
			continue;
		if (!has_hosts(f, n)) {
			if (q == ds)
				out[c++] = p;
			continue;
		}
		for (k = 1; k <= f->nodes[t->sw_node[q]].nports; k++)
			if (peer(t, q, k) == ds) {
				out[c++] = p;
				break;
			}
	}
	return c;
}

/*
 * The balance alone, from the worst start (every LID over the first
 * parent that reaches it) on 2-level trees with cut cables: it stays a
 * routing of the moves given, delivers every pair, never ends above
 * where it started and ends within 5 % of the floor; run again on its
 * own result it counts the loads it left, and after a few runs the
 * routes of each LID have gathered as the engine's did (its eBB).
 */
static void test_from_worst(void)
{
	struct vf_opts o = { .ebb_perms = 200, .seed = 1 };
	struct rt_balance_stats st, again;
	struct vf_report r, engine;
	struct rt_summary s;
	struct rt_tables t;
	uint8_t port[FAB_MAX_PORTS + 1];
	uint64_t seed;

	for (seed = 1; seed <= 4; seed++) {
		struct fabric *f = tu_radix_degraded(8, 2, 0.1, 0, seed);
		double fl = floor_of(f, 4);
		unsigned int lid, k;
		uint32_t sw, ds;

		CU_ASSERT_FATAL(!rt_route(f, RT_ENGINE_AUTO, NULL, &t, &s));
		CU_ASSERT_STRING_EQUAL(s.engine, "fattree");
		CU_ASSERT_FATAL(!vf_check(&t, &o, &engine));
		for (lid = 1; lid <= t.top; lid++) {
			ds = rt_lid_switch(&t, lid);
			if (ds == FAB_NONE || fab_is_sw(f, t.lid_node[lid]))
				continue;
			for (sw = 0; sw < t.nsw; sw++)
				if (sw != ds && two_level(&t, sw, ds, port))
					rt_lft(&t, sw)[lid] = port[0];
		}
		CU_ASSERT_FATAL(!rt_balance(&t, two_level, &t, NULL, &st));
		CU_ASSERT(!st.skipped && st.passes >= 1);
		CU_ASSERT(st.max_after <= st.max_before);
		CU_ASSERT(st.max_after <= fl * 1.05);
		/* more passes, each counting what the last one left */
		for (k = 0; k < 3; k++) {
			CU_ASSERT_FATAL(!rt_balance(&t, two_level, &t, NULL, &again));
			CU_ASSERT_EQUAL(again.max_before, st.max_after);
			CU_ASSERT(again.max_after <= again.max_before);
			st = again;
		}
		CU_ASSERT_FATAL(!vf_check(&t, &o, &r));
		CU_ASSERT(vf_ok(&r) && !r.cdg_cycle);
		CU_ASSERT_EQUAL(r.max_hops, 2);
		CU_ASSERT_EQUAL(r.efi_max, st.max_after);
		CU_ASSERT(r.ebb >= engine.ebb - 0.01);
		if (r.ebb < engine.ebb - 0.01)
			fprintf(stderr, "seed %llu: eBB %.4f, engine %.4f\n",
				(unsigned long long)seed, r.ebb, engine.ebb);
		for (lid = 1; lid <= t.top; lid++) {
			ds = rt_lid_switch(&t, lid);
			if (ds == FAB_NONE || fab_is_sw(f, t.lid_node[lid]))
				continue;
			for (sw = 0; sw < t.nsw; sw++) {
				unsigned int n = sw == ds ? 0 :
					two_level(&t, sw, ds, port);

				CU_ASSERT(!n || memchr(port, rt_lft(&t, sw)[lid],
						       n));
			}
		}
		rt_tables_release(&t);
		fab_free(f);
	}
}

TU_SUITE(balance,
	 { "degraded trees within 5 % of the bound", test_near_bound },
	 { "from the worst start", test_from_worst })
