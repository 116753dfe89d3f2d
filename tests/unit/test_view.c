// SPDX-License-Identifier: MIT
/*
 * ibpoold's fabric view on generated fat-trees routed with LMC 1 and 2:
 * LFT walks end at the port owning the DLID, the DLID choice spreads a
 * client's allocations over its leaf's up-links and avoids a loaded
 * link, and ties go to the lowest LID.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "tu.h"
#include "tools/ibpoold/view.h"
#include "topology/gen.h"

/* Folded Clos of radix 8, two levels: 8 leaves of 4 hosts, 4 spines. */
static struct pool_view *clos(unsigned int lmc)
{
	struct gen_fattree ft;
	struct pool_view *v = NULL;
	struct fabric *f = NULL;
	struct gen_opts o;
	char err[256];

	gen_opts_init(&o);
	CU_ASSERT_FATAL(!gen_fattree_radix(&ft, 8, 2, err, sizeof(err)));
	CU_ASSERT_FATAL(!gen_fattree(&ft, &o, &f, err, sizeof(err)));
	CU_ASSERT_FATAL(!pool_view_build(f, lmc, RT_ENGINE_AUTO, "test", &v,
					 err, sizeof(err)));
	CU_ASSERT_STRING_EQUAL(v->route.engine, "fattree");
	return v;
}

/* Port index of host k's HCA (hosts count from 1). */
static uint32_t host_port(const struct pool_view *v, unsigned int k)
{
	uint32_t idx[4];
	char name[16];

	snprintf(name, sizeof(name), "node%04u", k);
	CU_ASSERT_FATAL(pool_view_host_ports(v, name, idx, 4) == 1);
	return idx[0];
}

/* The switch port a path leaves the client's leaf by. */
static uint32_t uplink(const struct pool_path *p)
{
	CU_ASSERT_FATAL(p->n >= 3);
	return p->link[1];
}

static void walks(unsigned int lmc)
{
	struct pool_view *v = clos(lmc);
	const struct fabric *f = v->fab;
	struct pool_path p;
	unsigned int a, b, i;

	for (a = 1; a <= 32; a += 5)
		for (b = 1; b <= 32; b++) {
			uint32_t s = host_port(v, a), d = host_port(v, b);
			const struct fab_port *dp = &f->ports[d];

			for (i = 0; i < (1u << lmc); i++) {
				CU_ASSERT_EQUAL_FATAL(pool_view_walk(v, s,
					dp->lid + i, &p), 0);
				/* The last link enters the destination. */
				CU_ASSERT_EQUAL(f->ports[p.link[p.n - 1]].peer,
						v->port_node[d]);
				/* Same leaf: CA, leaf, CA; else via a spine. */
				CU_ASSERT_EQUAL(p.n, (a - 1) / 4 == (b - 1) / 4 ?
						2u : 4u);
			}
		}
	/* A LID nobody owns is unreachable. */
	CU_ASSERT_EQUAL(pool_view_walk(v, host_port(v, 1), v->rt.top + 1, &p),
			-EHOSTUNREACH);
	pool_view_free(v);
}

static void test_walk_lmc1(void)
{
	walks(1);
}

static void test_walk_lmc2(void)
{
	walks(2);
}

/*
 * Allocations from one client to one GPU port, charged as the daemon
 * charges them: each of the 2^LMC allocations takes another up-link,
 * then the next one goes back to the least loaded, the lowest LID.
 */
static void spread(unsigned int lmc)
{
	struct pool_view *v = clos(lmc);
	uint32_t s = host_port(v, 1), d = host_port(v, 17);
	uint32_t seen[4], base = v->fab->ports[d].lid;
	struct pool_path f, r;
	unsigned int i, k;

	for (i = 0; i < (1u << lmc); i++) {
		CU_ASSERT_EQUAL_FATAL(pool_view_choose(v, s, d, &f, &r), 0);
		seen[i] = uplink(&f);
		for (k = 0; k < i; k++)
			CU_ASSERT_NOT_EQUAL(seen[k], seen[i]);
		pool_view_charge(v, &f, 1);
		pool_view_charge(v, &r, 1);
	}
	CU_ASSERT_EQUAL(pool_view_choose(v, s, d, &f, &r), 0);
	CU_ASSERT_EQUAL(f.dlid, base);
	pool_view_clear_alloc(v);
	CU_ASSERT_EQUAL(pool_view_choose(v, s, d, &f, &r), 0);
	CU_ASSERT_EQUAL(f.dlid, base);
	pool_view_free(v);
}

static void test_spread_lmc1(void)
{
	spread(1);
}

static void test_spread_lmc2(void)
{
	spread(2);
}

/*
 * A measured load on the up-link (or the reply's down-link) the idle
 * choice takes moves the choice to another LID and up-link.
 */
static void test_avoid_loaded(void)
{
	struct pool_view *v = clos(1);
	uint32_t s = host_port(v, 2), d = host_port(v, 30);
	struct pool_path f, r, f2, r2;
	double max, sum;

	CU_ASSERT_EQUAL_FATAL(pool_view_choose(v, s, d, &f, &r), 0);
	CU_ASSERT_EQUAL(f.dlid, v->fab->ports[d].lid);
	v->meas[uplink(&f)] = 0.5;
	CU_ASSERT_EQUAL_FATAL(pool_view_choose(v, s, d, &f2, &r2), 0);
	CU_ASSERT_EQUAL(f2.dlid, f.dlid + 1);
	CU_ASSERT_NOT_EQUAL(uplink(&f2), uplink(&f));
	pool_view_cost(v, &f2, &max, &sum);
	CU_ASSERT_EQUAL(max, 0);
	/* Loading the reply path of the other LID tips it back. */
	v->meas[r2.link[1]] = 0.9;
	CU_ASSERT_EQUAL_FATAL(pool_view_choose(v, s, d, &f2, &r2), 0);
	CU_ASSERT_EQUAL(f2.dlid, f.dlid);
	pool_view_free(v);
}

/* SL, MTU and rate of a path; hops named by switch GUID and port. */
static void test_attr(void)
{
	struct pool_view *v = clos(0);
	uint32_t s = host_port(v, 1), d = host_port(v, 9);
	struct pool_path_attr at;
	struct pool_path f, r;
	char hop[64];

	CU_ASSERT_EQUAL_FATAL(pool_view_choose(v, s, d, &f, &r), 0);
	pool_view_attr(v, s, &f, &at);
	CU_ASSERT_EQUAL(at.sl, 0);
	CU_ASSERT_EQUAL(at.mtu, 4096);
	CU_ASSERT_DOUBLE_EQUAL(at.rate, 100.0, 1e-9);	/* 4x EDR */
	pool_view_hop(v, f.link[0], hop, sizeof(hop));
	CU_ASSERT_STRING_EQUAL(hop, "");
	pool_view_hop(v, f.link[1], hop, sizeof(hop));
	/* leaf-0 is the first switch; its up-links are ports 5..8 */
	CU_ASSERT_EQUAL(strncmp(hop, "0x0002c90200000000:", 19), 0);
	CU_ASSERT(hop[19] >= '5' && hop[19] <= '8' && !hop[20]);
	pool_view_free(v);
}

TU_SUITE(pool_view,
	 { "walk_lmc1", test_walk_lmc1 },
	 { "walk_lmc2", test_walk_lmc2 },
	 { "spread_lmc1", test_spread_lmc1 },
	 { "spread_lmc2", test_spread_lmc2 },
	 { "avoid_loaded", test_avoid_loaded },
	 { "attr", test_attr })
