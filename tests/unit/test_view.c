// SPDX-License-Identifier: MIT
/*
 * ibpoold's fabric view on generated fat-trees routed with LMC 1 and 2:
 * LFT walks end at the port owning the DLID, the DLID choice spreads a
 * client's allocations over its leaf's up-links and avoids a loaded
 * link, and ties go to the lowest LID.  The walk cache answers as the
 * LFTs do, through evictions and in a view of changed cabling.  The
 * allocation bound stays at or below the chosen pair's cost and agrees
 * with the choice on reachability.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tu.h"
#include "tools/lib/pool/view.h"
#include "topology/gen.h"

/*
 * Folded Clos of radix 8, two levels: 8 leaves of 4 hosts, 4 spines
 * (three levels: 128 hosts); port cut_port (0: none) of node cut_node
 * left uncabled.
 */
static struct pool_view *clos_cut(unsigned int levels, unsigned int lmc,
				  uint32_t cut_node, unsigned int cut_port)
{
	struct gen_fattree ft;
	struct pool_view *v = NULL;
	struct fabric *f = NULL;
	struct gen_opts o;
	char err[256];

	gen_opts_init(&o);
	CU_ASSERT_FATAL(!gen_fattree_radix(&ft, 8, levels, err, sizeof(err)));
	CU_ASSERT_FATAL(!gen_fattree(&ft, &o, &f, err, sizeof(err)));
	if (cut_port)
		CU_ASSERT_FATAL(!fab_unlink(f, cut_node, cut_port));
	CU_ASSERT_FATAL(!pool_view_build(f, lmc, RT_ENGINE_AUTO, "test", &v,
					 err, sizeof(err)));
	CU_ASSERT_STRING_EQUAL(v->route.engine, "fattree");
	return v;
}

static struct pool_view *clos(unsigned int lmc)
{
	return clos_cut(2, lmc, 0, 0);
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

static bool same_path(const struct pool_path *a, const struct pool_path *b)
{
	return a->dlid == b->dlid && a->n == b->n &&
	       !memcmp(a->link, b->link, a->n * sizeof(*a->link));
}

/*
 * Every pair's cached paths against fresh LFT walks, twice over: more
 * rows (a row per source, one per client LID) than the cache keeps, so
 * the second round meets evicted and kept rows alike.
 */
static void check_cache(struct pool_view *v, unsigned int *diff_from_walk)
{
	const struct fabric *f = v->fab;
	struct pool_path fw, rv, f2, r2;
	unsigned int a, b, i, round;

	*diff_from_walk = 0;
	for (round = 0; round < 2; round++)
		for (a = 1; a <= 32; a++)
			for (b = 1; b <= 32; b++) {
				uint32_t s = host_port(v, a), d = host_port(v, b);

				for (i = 0; i < (1u << v->lmc); i++) {
					uint32_t dl = f->ports[d].lid + i;
					uint32_t sl = f->ports[s].lid + i;
					int ret = pool_view_pair(v, s, d, dl,
								 &fw, &rv);

					CU_ASSERT_EQUAL(ret,
						pool_view_walk(v, s, dl, &f2) ?:
						pool_view_walk(v, d, sl, &r2));
					if (!ret && (!same_path(&fw, &f2) ||
						     !same_path(&rv, &r2)))
						(*diff_from_walk)++;
				}
			}
}

static void test_cache(void)
{
	struct pool_view *v = clos(1);
	unsigned int diff;

	check_cache(v, &diff);
	CU_ASSERT_EQUAL(diff, 0);
	pool_view_free(v);
}

/*
 * The cache is the view's: a view of the fabric with an up-link cut (new
 * LFTs) walks its own paths, none over the cut cable, while the old
 * view's cached paths still cross it.
 */
static void test_cache_new_view(void)
{
	struct pool_view *old = clos(1), *v;
	struct pool_path f, r;
	uint32_t s, d, cut, leaf;
	unsigned int i, diff, crossed = 0;

	s = host_port(old, 1);
	d = host_port(old, 17);
	CU_ASSERT_EQUAL_FATAL(pool_view_choose(old, s, d, &f, &r), 0);
	cut = uplink(&f);
	leaf = old->port_node[cut];
	v = clos_cut(2, 1, leaf, cut - old->fab->nodes[leaf].port0);
	check_cache(v, &diff);
	CU_ASSERT_EQUAL(diff, 0);
	for (i = 0; i < 2; i++) {
		CU_ASSERT_EQUAL_FATAL(pool_view_pair(v, host_port(v, 1),
			host_port(v, 17), v->fab->ports[host_port(v, 17)].lid + i,
			&f, &r), 0);
		CU_ASSERT_NOT_EQUAL(uplink(&f), cut);
		CU_ASSERT_EQUAL_FATAL(pool_view_pair(old, s, d,
			old->fab->ports[d].lid + i, &f, &r), 0);
		crossed += uplink(&f) == cut;
	}
	CU_ASSERT_EQUAL(crossed, 1);
	pool_view_free(v);
	pool_view_free(old);
}

/*
 * pool_view_bound() against pool_view_choose() for every pair of CA
 * ports, one host's cable cut, under random whole allocation loads and
 * fractional measured ones, on a 3-level tree of 128 hosts; twice, the
 * second time from the caches (more sources than the reachability rows
 * hold).
 */
static void bound_vs_choose(unsigned int lmc)
{
	struct pool_view *v = clos_cut(3, lmc, 0, 0);
	uint32_t cut = host_port(v, 6), ca[128], s, d;
	unsigned int n = 0, i, j, pass, unreach = 0, tight = 0;
	struct pool_path f, r;
	double lb, cost;
	int rb, rc;

	s = v->fab->ports[cut].peer;
	d = v->fab->ports[cut].peer_port;
	pool_view_free(v);
	v = clos_cut(3, lmc, s, d);
	for (i = 0; i < v->fab->nnodes; i++)
		if (!fab_is_sw(v->fab, i) && n < 128)
			ca[n++] = v->fab->nodes[i].port0 + 1;
	srand(lmc);
	for (i = 0; i <= v->fab->nports; i++) {
		v->alloc[i] = rand() % 3;
		v->meas[i] = (rand() % 5) * 0.13;
	}
	for (pass = 0; pass < 2; pass++)
		for (i = 0; i < n; i++)
			for (j = 0; j < n; j++) {
				rb = pool_view_bound(v, ca[i], ca[j], &lb);
				rc = pool_view_choose(v, ca[i], ca[j], &f, &r);
				CU_ASSERT_EQUAL_FATAL(rb, rc);
				if (rc) {
					unreach++;
					continue;
				}
				cost = pool_view_pair_cost(v, &f, &r);
				CU_ASSERT(lb <= cost);
				tight += lb == cost;
			}
	/* the cut host, both ways, both passes */
	CU_ASSERT_EQUAL(n, 128);
	CU_ASSERT_EQUAL(unreach, 2 * (2 * n - 1));
	CU_ASSERT(tight > 0);
	pool_view_free(v);
}

static void test_bound_lmc1(void)
{
	bound_vs_choose(1);
}

static void test_bound_lmc2(void)
{
	bound_vs_choose(2);
}

/* Node index of the CA described desc, FAB_NONE when none. */
static uint32_t ca_named(const struct fabric *f, const char *desc)
{
	uint32_t n;

	for (n = 0; n < f->nnodes; n++)
		if (!fab_is_sw(f, n) && !strcmp(f->nodes[n].desc, desc))
			return n;
	return FAB_NONE;
}

static void describe(struct fabric *f, uint32_t n, const char *desc)
{
	free(f->nodes[n].desc);
	f->nodes[n].desc = strdup(desc);
	CU_ASSERT_FATAL(f->nodes[n].desc != NULL);
}

/*
 * Issue 24: an HCA configured by description, and another host's CA
 * given that description.  Two CAs with it: refused, both named; the
 * impostor alone on a port other than the one first matched: refused.
 */
static void test_spoofed_desc(void)
{
	struct pool_view *v = clos(0);
	struct fabric *f = v->fab;
	struct pool_hca h = { .desc = (char *)"node0015 mlx5_0" };
	uint32_t real = ca_named(f, "node0015 mlx5_0");
	uint32_t fake = ca_named(f, "node0009 mlx5_0");
	uint64_t pin = 0, seen[2];
	long port;

	CU_ASSERT_FATAL(real != FAB_NONE && fake != FAB_NONE);
	port = pool_view_hca(v, &h, &pin, seen);
	CU_ASSERT_EQUAL(port, (long)host_port(v, 15));
	CU_ASSERT_EQUAL(pin, seen[0]);
	CU_ASSERT_EQUAL(pin, f->ports[port].guid);
	describe(f, fake, "node0015 mlx5_0");
	CU_ASSERT_EQUAL(pool_view_hca(v, &h, &pin, seen), -EEXIST);
	CU_ASSERT(seen[0] != seen[1]);
	CU_ASSERT(seen[0] == pin || seen[1] == pin);
	/* the real one gone quiet: the impostor alone, on another port */
	describe(f, real, "node0015-old mlx5_0");
	CU_ASSERT_EQUAL(pool_view_hca(v, &h, &pin, seen), -EPERM);
	CU_ASSERT(seen[0] != pin && seen[0] != 0);
	/* the real one back: taken again */
	describe(f, fake, "node0009 mlx5_0");
	describe(f, real, "node0015 mlx5_0");
	CU_ASSERT_EQUAL(pool_view_hca(v, &h, &pin, seen), port);
	pool_view_free(v);
}

TU_SUITE(pool_view,
	 { "HCA by a spoofed description", test_spoofed_desc },
	 { "cache", test_cache },
	 { "cache_new_view", test_cache_new_view },
	 { "walk_lmc1", test_walk_lmc1 },
	 { "walk_lmc2", test_walk_lmc2 },
	 { "spread_lmc1", test_spread_lmc1 },
	 { "spread_lmc2", test_spread_lmc2 },
	 { "avoid_loaded", test_avoid_loaded },
	 { "attr", test_attr },
	 { "bound_lmc1", test_bound_lmc1 },
	 { "bound_lmc2", test_bound_lmc2 })
