// SPDX-License-Identifier: MIT
/* Unit tests of the fabric generators: shapes against their formulas, the
 * GUID and naming rules, degradations, determinism and connectivity. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "topology/gen.h"
#include "topology/netfile.h"
#include "tu.h"

#define ERRLEN 256

static int cmp_u64(const void *x, const void *y)
{
	uint64_t a = *(const uint64_t *)x, b = *(const uint64_t *)y;

	return a < b ? -1 : a > b;
}

static int cmp_str(const void *x, const void *y)
{
	return strcmp(*(char *const *)x, *(char *const *)y);
}

static bool prefix(const char *s, const char *p)
{
	return !strncmp(s, p, strlen(p));
}

static unsigned int linked(const struct fabric *f, uint32_t n)
{
	unsigned int p, c = 0;

	for (p = 1; p <= f->nodes[n].nports; p++)
		c += fab_port(f, n, p)->peer != FAB_NONE;
	return c;
}

/* Switch cables between nodes a and b. */
static unsigned int cables(const struct fabric *f, uint32_t a, uint32_t b)
{
	unsigned int p, c = 0;

	for (p = 1; p <= f->nodes[a].nports; p++)
		c += fab_port(f, a, p)->peer == b;
	return c;
}

static int find(const struct fabric *f, const char *desc)
{
	size_t n;

	for (n = 0; n < f->nnodes; n++)
		if (!strcmp(f->nodes[n].desc, desc))
			return n;
	return -1;
}

/* Every CA reaches every other through the switch graph. */
static bool connected(const struct fabric *f)
{
	uint32_t *q = calloc(f->nnodes, sizeof(*q));
	bool *seen = calloc(f->nnodes, sizeof(*seen));
	size_t head = 0, tail = 0, n;
	bool ok = true;
	unsigned int p;

	if (!q || !seen)
		goto out;
	for (n = 0; n < f->nnodes && !tail; n++)
		if (fab_is_sw(f, n)) {
			seen[n] = true;
			q[tail++] = n;
		}
	while (head < tail) {
		n = q[head++];
		for (p = 1; p <= f->nodes[n].nports; p++) {
			uint32_t t = fab_port(f, n, p)->peer;

			if (t == FAB_NONE || seen[t] || !fab_is_sw(f, t))
				continue;
			seen[t] = true;
			q[tail++] = t;
		}
	}
	for (n = 0; n < f->nnodes; n++) {
		uint32_t t;

		if (fab_is_sw(f, n))
			continue;
		t = fab_port(f, n, 1)->peer;
		ok = ok && t != FAB_NONE && seen[t];
	}
out:
	free(q);
	free(seen);
	return ok && q && seen;
}

/*
 * The conventions every generated fabric keeps: unique GUIDs and
 * descriptions, G+p port GUIDs with room between CAs, shared host
 * sysguids, symmetric links, every CA linked on port 1 only, no orphan.
 */
static void check_rules(const struct fabric *f, unsigned int ca_ports)
{
	uint64_t *g = calloc(f->nports + 1, sizeof(*g));
	char **d = calloc(f->nnodes + 1, sizeof(*d));
	char host[64], host2[64];
	size_t n, ng = 0, i;
	unsigned int p;

	CU_ASSERT_FATAL(g && d);
	for (n = 0; n < f->nnodes; n++) {
		const struct fab_node *nd = &f->nodes[n];

		d[n] = nd->desc;
		CU_ASSERT(!strchr(nd->desc, '"'));
		CU_ASSERT(linked(f, n) > 0);
		if (nd->type == FAB_SW) {
			CU_ASSERT(fab_port(f, n, 0)->guid == nd->guid);
			CU_ASSERT(nd->sysguid == nd->guid);
			CU_ASSERT(!fab_port(f, n, 0)->lid);
			g[ng++] = nd->guid;
		} else {
			CU_ASSERT(nd->nports == ca_ports);
			CU_ASSERT(nd->sysguid != nd->guid);
			CU_ASSERT(strchr(nd->desc, ' ') != NULL);
			/* node GUID and port GUIDs G+1..G+n: n+1 in a row */
			for (p = 0; p <= nd->nports; p++)
				g[ng++] = nd->guid + p;
			for (p = 1; p <= nd->nports; p++) {
				CU_ASSERT(fab_port(f, n, p)->guid ==
					  nd->guid + p);
				CU_ASSERT(!fab_port(f, n, p)->lid);
				CU_ASSERT((fab_port(f, n, p)->peer !=
					   FAB_NONE) == (p == 1));
			}
		}
		for (p = 1; p <= nd->nports; p++) {
			const struct fab_port *x = fab_port(f, n, p), *y;

			if (x->peer == FAB_NONE)
				continue;
			y = fab_port(f, x->peer, x->peer_port);
			CU_ASSERT(y->peer == n && y->peer_port == p);
			CU_ASSERT(x->width == 4 && x->speed == 250);
			CU_ASSERT(nd->type == FAB_SW || fab_is_sw(f, x->peer));
		}
	}
	qsort(g, ng, sizeof(*g), cmp_u64);
	for (i = 1; i < ng; i++)
		CU_ASSERT(g[i] != g[i - 1]);
	qsort(d, f->nnodes, sizeof(*d), cmp_str);
	for (i = 1; i < f->nnodes; i++)
		CU_ASSERT(strcmp(d[i], d[i - 1]));
	/* CAs of one host, and only those, share a sysguid. */
	for (n = 0; n < f->nnodes; n++) {
		if (fab_is_sw(f, n))
			continue;
		fab_host_name(f, n, host, sizeof(host));
		for (i = n + 1; i < f->nnodes && i < n + 16; i++) {
			if (fab_is_sw(f, i))
				continue;
			fab_host_name(f, i, host2, sizeof(host2));
			CU_ASSERT((f->nodes[n].sysguid ==
				   f->nodes[i].sysguid) ==
				  !strcmp(host, host2));
		}
	}
	CU_ASSERT(connected(f));
	free(g);
	free(d);
}

static bool same(const struct fabric *a, const struct fabric *b)
{
	size_t n;

	if (a->nnodes != b->nnodes || a->nports != b->nports)
		return false;
	for (n = 0; n < a->nnodes; n++)
		if (a->nodes[n].guid != b->nodes[n].guid ||
		    a->nodes[n].sysguid != b->nodes[n].sysguid ||
		    a->nodes[n].nports != b->nodes[n].nports ||
		    strcmp(a->nodes[n].desc, b->nodes[n].desc))
			return false;
	for (n = 0; n < a->nports; n++)
		if (a->ports[n].peer != b->ports[n].peer ||
		    a->ports[n].peer_port != b->ports[n].peer_port ||
		    a->ports[n].guid != b->ports[n].guid)
			return false;
	return true;
}

/* Node of full with the GUID of node n of f. */
static uint32_t by_guid(const struct fabric *full, const struct fabric *f,
			uint32_t n)
{
	size_t i;

	for (i = 0; i < full->nnodes; i++)
		if (full->nodes[i].guid == f->nodes[n].guid)
			return i;
	return FAB_NONE;
}

/* Every cable of f is in full, between the same GUIDs on the same ports. */
static bool subset(const struct fabric *f, const struct fabric *full)
{
	size_t n;
	unsigned int p;

	for (n = 0; n < f->nnodes; n++) {
		uint32_t m = by_guid(full, f, n);

		if (m == FAB_NONE || f->nodes[n].nports !=
		    full->nodes[m].nports)
			return false;
		for (p = 1; p <= f->nodes[n].nports; p++) {
			const struct fab_port *x = fab_port(f, n, p);
			const struct fab_port *y = fab_port(full, m, p);

			if (x->peer == FAB_NONE)
				continue;
			if (y->peer == FAB_NONE ||
			    full->nodes[y->peer].guid !=
			    f->nodes[x->peer].guid ||
			    y->peer_port != x->peer_port)
				return false;
		}
	}
	return true;
}

static struct fabric *ft(const struct gen_fattree *t,
			 const struct gen_opts *o)
{
	struct fabric *f = NULL;
	char err[ERRLEN];
	int ret = gen_fattree(t, o, &f, err, sizeof(err));

	if (ret)
		fprintf(stderr, "gen_fattree: %s\n", err);
	CU_ASSERT_FATAL(!ret && f);
	return f;
}

static const char *const lvl_name[3][4] = {
	{ "leaf", "spine" },
	{ "leaf", "spine", "core" },
	{ "leaf", "spine", "agg", "core" },
};

/* Counts, degrees and port order of an intact XGFT against formulas. */
static void check_fattree(const struct gen_fattree *t, unsigned int hcas)
{
	unsigned int L = t->levels, s, i, P = t->parallel, deg, low, p;
	uint64_t cnt[GEN_MAX_LEVELS], nsw = 0, links = 0, seen[4] = { 0 };
	struct gen_opts o;
	struct fabric *f;
	size_t n;

	gen_opts_init(&o);
	o.hcas = hcas;
	f = ft(t, &o);
	for (s = 0; s < L; s++) {
		cnt[s] = 1;
		for (i = s + 1; i < L; i++)
			cnt[s] *= t->down[i];
		for (i = 0; i < s; i++)
			cnt[s] *= t->up[i];
		nsw += cnt[s];
		if (s + 1 < L)
			links += cnt[s] * t->up[s] * P;
	}
	CU_ASSERT(f->nsw == nsw);
	CU_ASSERT(f->nca == cnt[0] * t->down[0] * hcas);
	CU_ASSERT(fab_sw_links(f) == links);
	for (n = 0; n < f->nnodes; n++) {
		if (!fab_is_sw(f, n))
			continue;
		for (s = 0; s < L; s++)
			if (prefix(f->nodes[n].desc, lvl_name[L - 2][s]))
				break;
		CU_ASSERT_FATAL(s < L);
		seen[s]++;
		low = s ? t->down[s] * P : t->down[0] * hcas;
		deg = low + (s + 1 < L ? t->up[s] * P : 0);
		CU_ASSERT(f->nodes[n].nports == deg);
		CU_ASSERT(linked(f, n) == deg);
		/* hosts (or lower level) first, then uplinks */
		for (p = 1; p <= deg; p++) {
			uint32_t q = fab_port(f, n, p)->peer;
			const char *want = p <= low ?
				(s ? lvl_name[L - 2][s - 1] : "node") :
				lvl_name[L - 2][s + 1];

			CU_ASSERT(prefix(f->nodes[q].desc, want));
		}
	}
	for (s = 0; s < L; s++)
		CU_ASSERT(seen[s] == cnt[s]);
	check_rules(f, 1);
	fab_free(f);
}

static void test_fattree_shapes(void)
{
	static const unsigned int kary[][2] = {
		{ 2, 2 }, { 4, 2 }, { 4, 3 }, { 3, 3 }, { 2, 4 }, { 16, 3 },
	};
	static const unsigned int radix[][2] = {
		{ 8, 2 }, { 8, 3 }, { 4, 4 }, { 16, 3 }, { 36, 2 },
	};
	struct gen_fattree t;
	char err[ERRLEN];
	size_t i;

	for (i = 0; i < sizeof(kary) / sizeof(kary[0]); i++) {
		CU_ASSERT_FATAL(!gen_fattree_kary(&t, kary[i][0], kary[i][1],
						  err, sizeof(err)));
		check_fattree(&t, 1);
	}
	for (i = 0; i < sizeof(radix) / sizeof(radix[0]); i++) {
		CU_ASSERT_FATAL(!gen_fattree_radix(&t, radix[i][0],
						   radix[i][1], err,
						   sizeof(err)));
		check_fattree(&t, 1);
	}
	/* oversubscribed 3-level with parallel cables and 2-HCA hosts */
	memset(&t, 0, sizeof(t));
	t.levels = 3;
	t.down[0] = 6;
	t.down[1] = 3;
	t.down[2] = 2;
	t.up[0] = 2;
	t.up[1] = 3;
	t.parallel = 2;
	check_fattree(&t, 2);
}

/* The classic definitions, spelled out as numbers. */
static void test_fattree_known(void)
{
	struct gen_fattree t;
	struct gen_opts o;
	struct fabric *f;
	char err[ERRLEN];
	size_t n;
	unsigned int maxp = 0;
	int c;

	gen_opts_init(&o);
	CU_ASSERT_FATAL(!gen_fattree_radix(&t, 8, 3, err, sizeof(err)));
	f = ft(&t, &o);
	CU_ASSERT(f->nca == 128 && f->nsw == 32 + 32 + 16);
	for (n = 0; n < f->nnodes; n++)
		if (fab_is_sw(f, n) && f->nodes[n].nports > maxp)
			maxp = f->nodes[n].nports;
	CU_ASSERT(maxp == 8);
	/* every core reaches each of the 8 pods exactly once */
	c = find(f, "core-5");
	CU_ASSERT_FATAL(c >= 0);
	for (n = 0; n < 8; n++) {
		char nm[32];
		unsigned int j, hits = 0;

		for (j = 0; j < 4; j++) {
			int sp;

			snprintf(nm, sizeof(nm), "spine-p%zu-%u", n, j);
			sp = find(f, nm);
			CU_ASSERT_FATAL(sp >= 0);
			hits += cables(f, c, sp);
		}
		CU_ASSERT(hits == 1);
	}
	fab_free(f);
	CU_ASSERT_FATAL(!gen_fattree_kary(&t, 4, 3, err, sizeof(err)));
	f = ft(&t, &o);
	CU_ASSERT(f->nca == 64 && f->nsw == 48);
	CU_ASSERT(f->nodes[find(f, "core-0")].nports == 4);
	fab_free(f);
}

static void test_rail(void)
{
	static const struct gen_rail cfg[] = {
		{ 2, 4, 2, 2, 1, 0, 1 }, { 2, 8, 4, 4, 1, 0, 1 },
		{ 3, 5, 4, 8, 4, 3, 2 }, { 2, 4, 4, 4, 2, 2, 1 },
		{ 4, 32, 8, 32, 1, 0, 1 }, { 2, 4, 2, 2, 1, 2, 1 },
	};
	char err[ERRLEN], want[48], host[32];
	struct gen_opts o;
	struct fabric *f;
	size_t i, n;
	unsigned int p;

	gen_opts_init(&o);
	for (i = 0; i < sizeof(cfg) / sizeof(cfg[0]); i++) {
		const struct gen_rail *r = &cfg[i];
		unsigned int per = r->spines / r->spine_groups;

		CU_ASSERT_FATAL(!gen_rail(r, &o, &f, err, sizeof(err)));
		CU_ASSERT(f->nsw == r->sus * r->rails + r->spines + r->cores);
		CU_ASSERT(f->nca == r->sus * r->hosts_per_su * r->rails);
		CU_ASSERT(fab_sw_links(f) ==
			  (r->sus * r->rails * per + r->spines * r->cores) *
			  r->parallel);
		for (n = 0; n < f->nnodes; n++) {
			const char *d = f->nodes[n].desc;
			unsigned int hn, rl, su, sp;

			if (!fab_is_sw(f, n)) {
				/* HCA r of a host of SU s on leaf-su<s>-r<r> */
				CU_ASSERT_FATAL(sscanf(d, "node%u mlx5_%u", &hn,
						       &rl) == 2);
				snprintf(want, sizeof(want), "leaf-su%u-r%u",
					 (hn - 1) / r->hosts_per_su, rl);
				CU_ASSERT(!strcmp(f->nodes[fab_port(f, n, 1)->
						  peer].desc, want));
				continue;
			}
			if (sscanf(d, "leaf-su%u-r%u", &su, &rl) != 2)
				continue;
			CU_ASSERT(linked(f, n) ==
				  r->hosts_per_su + per * r->parallel);
			for (p = r->hosts_per_su + 1;
			     p <= f->nodes[n].nports; p++) {
				const char *sd = f->nodes[fab_port(f, n, p)->
							  peer].desc;

				CU_ASSERT_FATAL(sscanf(sd, "spine-%u", &sp) ==
						1);
				CU_ASSERT(sp / per == rl % r->spine_groups);
			}
		}
		check_rules(f, 1);
		fab_free(f);
	}
	/* one host's HCAs: one sysguid, different rails */
	CU_ASSERT_FATAL(!gen_rail(&cfg[1], &o, &f, err, sizeof(err)));
	n = find(f, "node0003 mlx5_0");
	fab_host_name(f, n, host, sizeof(host));
	CU_ASSERT(!strcmp(host, "node0003"));
	CU_ASSERT(f->nodes[n].sysguid ==
		  f->nodes[find(f, "node0003 mlx5_3")].sysguid);
	fab_free(f);
}

/* Coordinates from "sw-x-y-z". */
static unsigned int coords(const char *d, unsigned int *c)
{
	unsigned int n = 0;

	CU_ASSERT_FATAL(prefix(d, "sw"));
	for (d += 2; *d == '-'; n++)
		c[n] = strtoul(d + 1, (char **)&d, 10);
	return n;
}

static void check_torus(const struct gen_torus *t)
{
	unsigned int ca[GEN_MAX_DIMS], cb[GEN_MAX_DIMS], d, k, p, diff;
	unsigned int deg[GEN_MAX_DIMS];
	uint64_t nsw = 1, links = 0;
	struct gen_opts o;
	struct fabric *f;
	char err[ERRLEN];
	size_t n;

	gen_opts_init(&o);
	CU_ASSERT_FATAL(!gen_torus(t, &o, &f, err, sizeof(err)));
	for (d = 0; d < t->ndims; d++)
		nsw *= t->dim[d];
	for (d = 0; d < t->ndims; d++)
		links += nsw / t->dim[d] *
			 (t->dim[d] - !t->wrap[d]) * t->parallel;
	CU_ASSERT(f->nsw == nsw);
	CU_ASSERT(f->nca == nsw * t->hosts);
	CU_ASSERT(fab_sw_links(f) == links);
	for (n = 0; n < f->nnodes; n++) {
		if (!fab_is_sw(f, n))
			continue;
		CU_ASSERT(coords(f->nodes[n].desc, ca) == t->ndims);
		memset(deg, 0, sizeof(deg));
		for (p = t->hosts + 1; p <= f->nodes[n].nports; p++) {
			uint32_t q = fab_port(f, n, p)->peer;

			if (q == FAB_NONE)
				continue;
			coords(f->nodes[q].desc, cb);
			for (d = 0, diff = 0; d < t->ndims; d++) {
				unsigned int R = t->dim[d];

				if (ca[d] == cb[d])
					continue;
				diff++;
				k = (cb[d] + R - ca[d]) % R;
				CU_ASSERT(k == 1 || k == R - 1);
				CU_ASSERT(t->wrap[d] || cb[d] == ca[d] + 1 ||
					  cb[d] + 1 == ca[d]);
				deg[d]++;
			}
			CU_ASSERT(diff == 1);
		}
		for (d = 0; d < t->ndims; d++) {
			bool lo = ca[d] == 0, hi = ca[d] + 1 == t->dim[d];
			unsigned int want = t->parallel *
					    (t->wrap[d] ? 2 : 2 - lo - hi);

			CU_ASSERT(deg[d] == want);
		}
		for (p = 1; p <= t->hosts; p++)
			CU_ASSERT(!fab_is_sw(f, fab_port(f, n, p)->peer));
	}
	check_rules(f, 1);
	fab_free(f);
}

static void test_torus(void)
{
	static const struct gen_torus cfg[] = {
		{ 3, { 4, 4, 4 }, { 1, 1, 1 }, 1, 1 },
		{ 3, { 2, 3, 2 }, { 1, 1, 1 }, 2, 1 },
		{ 2, { 2, 2 }, { 1, 1 }, 1, 2 },
		{ 2, { 3, 5 }, { 0, 0 }, 1, 1 },
		{ 3, { 4, 2, 3 }, { 1, 0, 1 }, 3, 2 },
		{ 1, { 5 }, { 1 }, 1, 1 },
	};
	struct gen_torus t;
	struct gen_opts o;
	struct fabric *f;
	char err[ERRLEN];
	size_t i;
	int a, b;

	for (i = 0; i < sizeof(cfg) / sizeof(cfg[0]); i++)
		check_torus(&cfg[i]);
	/* radix 2 ring: two cables between the pair, one per direction */
	gen_opts_init(&o);
	gen_torus_init(&t, true);
	t.ndims = 2;
	t.dim[0] = 2;
	t.dim[1] = 3;
	CU_ASSERT_FATAL(!gen_torus(&t, &o, &f, err, sizeof(err)));
	a = find(f, "sw-0-1");
	b = find(f, "sw-1-1");
	CU_ASSERT(cables(f, a, b) == 2);
	CU_ASSERT(cables(f, a, find(f, "sw-0-2")) == 1);
	fab_free(f);
}

static void test_torus_failures(void)
{
	const char *fl[] = { "sw-0-0-0:sw-1-0-0", "sw-3-3-3:sw-3-3-0" };
	const char *fs[] = { "sw-1-1-1" };
	struct fabric *full, *f;
	struct gen_torus t;
	struct gen_opts o;
	char err[ERRLEN];

	gen_opts_init(&o);
	gen_torus_init(&t, true);
	t.hosts = 2;
	CU_ASSERT_FATAL(!gen_torus(&t, &o, &full, err, sizeof(err)));
	o.fail_link = fl;
	o.nfail_link = 2;
	o.fail_switch = fs;
	o.nfail_switch = 1;
	CU_ASSERT_FATAL(!gen_torus(&t, &o, &f, err, sizeof(err)));
	CU_ASSERT(f->nsw == 63 && f->nca == 126);
	CU_ASSERT(find(f, "sw-1-1-1") < 0);
	CU_ASSERT(fab_sw_links(f) == 192 - 6 - 2);
	CU_ASSERT(cables(f, find(f, "sw-0-0-0"), find(f, "sw-1-0-0")) == 0);
	CU_ASSERT(subset(f, full));
	check_rules(f, 1);
	fab_free(f);
	/* random ones: connected, as many as asked */
	o.nfail_link = 0;
	o.nfail_switch = 0;
	o.fail_links = 40;
	o.seed = 3;
	CU_ASSERT_FATAL(!gen_torus(&t, &o, &f, err, sizeof(err)));
	CU_ASSERT(fab_sw_links(f) == 192 - 40);
	CU_ASSERT(subset(f, full));
	check_rules(f, 1);
	fab_free(f);
	/* names that do not exist */
	fl[0] = "sw-0-0-0:sw-2-2-2";
	o.nfail_link = 1;
	CU_ASSERT(gen_torus(&t, &o, &f, err, sizeof(err)) == -ENOENT);
	CU_ASSERT(f == NULL);
	o.nfail_link = 0;
	fs[0] = "sw-9-9-9";
	o.nfail_switch = 1;
	CU_ASSERT(gen_torus(&t, &o, &f, err, sizeof(err)) == -ENOENT);
	CU_ASSERT(strstr(err, "sw-9-9-9") != NULL);
	fab_free(full);
}

static int group_of(const char *d)
{
	unsigned int g;

	CU_ASSERT_FATAL(sscanf(d, "g%u-", &g) == 1);
	return g;
}

/*
 * Global cables per group pair must lie in [lo, hi]; local cabling is
 * all-to-all (or complete leaf/spine for plus).
 */
static void check_dragonfly(const struct gen_dragonfly *d, unsigned int lo,
			    unsigned int hi)
{
	unsigned int a = d->plus ? d->spines : d->switches, h = d->global;
	unsigned int g = d->groups ? d->groups : a * h + 1, *pair, gl, loc;
	unsigned int per = d->switches + (d->plus ? d->spines : 0), x, y, p;
	struct gen_opts o;
	struct fabric *f;
	char err[ERRLEN];
	size_t n;

	gen_opts_init(&o);
	CU_ASSERT_FATAL(!gen_dragonfly(d, &o, &f, err, sizeof(err)));
	CU_ASSERT(f->nsw == g * per);
	CU_ASSERT(f->nca == g * d->switches * d->hosts);
	pair = calloc(g * g, sizeof(*pair));
	CU_ASSERT_FATAL(pair != NULL);
	for (n = 0; n < f->nnodes; n++) {
		const char *nd = f->nodes[n].desc;
		bool leaf = d->plus && strstr(nd, "-leaf");

		if (!fab_is_sw(f, n))
			continue;
		gl = loc = 0;
		for (p = 1; p <= f->nodes[n].nports; p++) {
			uint32_t q = fab_port(f, n, p)->peer;

			if (q == FAB_NONE || !fab_is_sw(f, q))
				continue;
			x = group_of(nd);
			y = group_of(f->nodes[q].desc);
			if (x == y) {
				loc++;
				if (d->plus)
					CU_ASSERT(!strstr(f->nodes[q].desc,
							  "-leaf") == leaf);
				continue;
			}
			gl++;
			pair[x * g + y]++;
		}
		if (d->plus) {
			CU_ASSERT(loc == (leaf ? d->spines : d->switches));
			CU_ASSERT(gl <= (leaf ? 0 : h));
			CU_ASSERT((linked(f, n) - loc - gl == d->hosts) ==
				  leaf);
		} else {
			CU_ASSERT(loc == d->switches - 1);
			CU_ASSERT(gl <= h);
		}
	}
	for (x = 0; x < g; x++)
		for (y = 0; y < g; y++) {
			if (x == y)
				continue;
			CU_ASSERT(pair[x * g + y] == pair[y * g + x]);
			CU_ASSERT(pair[x * g + y] >= lo &&
				  pair[x * g + y] <= hi);
		}
	check_rules(f, 1);
	free(pair);
	fab_free(f);
}

static void test_dragonfly(void)
{
	struct gen_dragonfly d;
	struct gen_opts o;
	struct fabric *f;
	char err[ERRLEN];

	gen_dragonfly_init(&d, false);
	check_dragonfly(&d, 1, 1);
	d.arrangement = GEN_DF_RELATIVE;
	check_dragonfly(&d, 1, 1);
	d.switches = 3;
	d.global = 3;
	d.hosts = 1;
	check_dragonfly(&d, 1, 1);
	d.groups = 5;			/* 9 ports over 4 others, 1 spare */
	check_dragonfly(&d, 2, 2);
	d.arrangement = GEN_DF_ABSOLUTE;
	check_dragonfly(&d, 2, 3);
	d.groups = 4;			/* 9 ports over 3 others: 3 each */
	check_dragonfly(&d, 3, 3);
	d.switches = 4;
	d.global = 2;
	d.groups = 4;			/* 8 over 3: 2 rounds, 2 spare */
	check_dragonfly(&d, 2, 3);
	gen_dragonfly_init(&d, true);
	check_dragonfly(&d, 1, 1);
	d.arrangement = GEN_DF_RELATIVE;
	d.switches = 3;
	d.spines = 2;
	d.global = 3;
	check_dragonfly(&d, 1, 1);
	/* groups beyond a*h+1 cannot all be joined */
	gen_opts_init(&o);
	gen_dragonfly_init(&d, false);
	d.groups = 10;
	CU_ASSERT(gen_dragonfly(&d, &o, &f, err, sizeof(err)) == -EINVAL);
	CU_ASSERT(strstr(err, "--groups") != NULL);
}

static size_t count_cls(const struct fabric *f, bool global)
{
	size_t n, c = 0;
	unsigned int p;

	for (n = 0; n < f->nnodes; n++) {
		if (!fab_is_sw(f, n))
			continue;
		for (p = 1; p <= f->nodes[n].nports; p++) {
			uint32_t q = fab_port(f, n, p)->peer;

			if (q != FAB_NONE && q > n && fab_is_sw(f, q) &&
			    (group_of(f->nodes[n].desc) !=
			     group_of(f->nodes[q].desc)) == global)
				c++;
		}
	}
	return c;
}

static void test_dragonfly_drop(void)
{
	struct gen_dragonfly d;
	struct fabric *full, *f;
	struct gen_opts o;
	char err[ERRLEN];
	size_t gl, loc;

	gen_opts_init(&o);
	gen_dragonfly_init(&d, false);
	CU_ASSERT_FATAL(!gen_dragonfly(&d, &o, &full, err, sizeof(err)));
	gl = count_cls(full, true);
	loc = count_cls(full, false);
	CU_ASSERT(gl == 36 && loc == 9 * 6);
	d.drop_global = 0.5;
	o.seed = 11;
	CU_ASSERT_FATAL(!gen_dragonfly(&d, &o, &f, err, sizeof(err)));
	CU_ASSERT(count_cls(f, true) == gl - 18);
	CU_ASSERT(count_cls(f, false) == loc);
	CU_ASSERT(subset(f, full));
	check_rules(f, 1);
	fab_free(f);
	d.drop_global = 0;
	d.drop_local = 0.25;
	CU_ASSERT_FATAL(!gen_dragonfly(&d, &o, &f, err, sizeof(err)));
	CU_ASSERT(count_cls(f, false) == loc - 14);	/* round(13.5) */
	CU_ASSERT(count_cls(f, true) == gl);
	check_rules(f, 1);
	fab_free(f);
	fab_free(full);
}

static void test_drop_links(void)
{
	struct fabric *full, *a, *b, *c;
	struct gen_fattree t;
	struct gen_opts o;
	char err[ERRLEN];
	size_t L, n, leaves = 0;

	gen_opts_init(&o);
	CU_ASSERT_FATAL(!gen_fattree_radix(&t, 8, 3, err, sizeof(err)));
	full = ft(&t, &o);
	L = fab_sw_links(full);
	o.drop = 0.3;
	o.seed = 42;
	a = ft(&t, &o);
	b = ft(&t, &o);
	o.seed = 43;
	c = ft(&t, &o);
	CU_ASSERT(fab_sw_links(a) == L - (size_t)llround(0.3 * L));
	CU_ASSERT(same(a, b));
	CU_ASSERT(!same(a, c));
	CU_ASSERT(subset(a, full) && subset(c, full));
	for (n = 0; n < a->nnodes; n++)
		if (fab_is_sw(a, n) && prefix(a->nodes[n].desc, "leaf")) {
			leaves++;
			CU_ASSERT(linked(a, n) > 4);	/* an uplink left */
		}
	CU_ASSERT(leaves == 32);
	check_rules(a, 1);
	check_rules(c, 1);
	fab_free(a);
	fab_free(b);
	fab_free(c);
	/* a pure tree cannot lose a third of its cables and stay whole */
	t.levels = 2;
	t.down[0] = 2;
	t.down[1] = 4;
	t.up[0] = 1;
	o.drop = 0.3;
	CU_ASSERT(gen_fattree(&t, &o, &a, err, sizeof(err)) == -EDOM);
	CU_ASSERT(a == NULL && strstr(err, "--drop") != NULL);
	fab_free(full);
}

static void test_drop_switches_hosts(void)
{
	struct fabric *full, *f, *g;
	struct gen_fattree t;
	struct gen_rail r;
	struct gen_opts o;
	char err[ERRLEN], host[32];
	size_t n, i, hosts;

	gen_opts_init(&o);
	CU_ASSERT_FATAL(!gen_fattree_radix(&t, 8, 3, err, sizeof(err)));
	full = ft(&t, &o);
	o.drop_switches = 6;
	o.seed = 5;
	f = ft(&t, &o);
	CU_ASSERT(f->nsw == full->nsw - 6 && f->nca == full->nca);
	for (n = 0; n < 32; n++) {
		char nm[32];

		snprintf(nm, sizeof(nm), "leaf-p%zu-%zu", n / 4, n % 4);
		CU_ASSERT(find(f, nm) >= 0);
	}
	CU_ASSERT(subset(f, full));
	check_rules(f, 1);
	g = ft(&t, &o);
	CU_ASSERT(same(f, g));
	fab_free(g);
	fab_free(f);
	fab_free(full);
	/* more switches than can go */
	o.drop_switches = 49;
	CU_ASSERT(gen_fattree(&t, &o, &f, err, sizeof(err)) == -EDOM);

	/* dropped hosts take all their rails with them */
	gen_opts_init(&o);
	gen_rail_init(&r);
	r.sus = 2;
	r.hosts_per_su = 8;
	r.rails = 4;
	r.spines = 4;
	o.drop_hosts = 0.25;
	o.seed = 9;
	CU_ASSERT_FATAL(!gen_rail(&r, &o, &f, err, sizeof(err)));
	CU_ASSERT(f->nca == 12 * 4);
	CU_ASSERT(f->nsw == 12);
	for (n = 0, hosts = 0; n < f->nnodes; n++) {
		unsigned int same_host = 0;

		if (fab_is_sw(f, n) || !strstr(f->nodes[n].desc, "mlx5_0"))
			continue;
		hosts++;
		fab_host_name(f, n, host, sizeof(host));
		for (i = 0; i < f->nnodes; i++)
			same_host += !fab_is_sw(f, i) &&
				     prefix(f->nodes[i].desc, host);
		CU_ASSERT(same_host == 4);
	}
	CU_ASSERT(hosts == 12);
	check_rules(f, 1);
	fab_free(f);
}

static void test_shuffle(void)
{
	struct fabric *a, *b, *c;
	struct gen_fattree t;
	struct gen_opts o;
	char err[ERRLEN];
	size_t n, moved = 0;
	unsigned int p, q;

	gen_opts_init(&o);
	CU_ASSERT_FATAL(!gen_fattree_kary(&t, 4, 3, err, sizeof(err)));
	a = ft(&t, &o);
	o.shuffle = true;
	o.shuffle_seed = 7;
	b = ft(&t, &o);
	c = ft(&t, &o);
	CU_ASSERT(same(b, c));
	CU_ASSERT(!same(a, b));
	CU_ASSERT(a->nnodes == b->nnodes && a->nports == b->nports);
	/* same neighbours per switch, other port numbers */
	for (n = 0; n < a->nnodes; n++) {
		if (!fab_is_sw(a, n))
			continue;
		for (p = 1; p <= a->nodes[n].nports; p++) {
			uint32_t x = fab_port(a, n, p)->peer;

			moved += fab_port(b, n, p)->peer != x;
			for (q = 1; q <= b->nodes[n].nports; q++)
				if (fab_port(b, n, q)->peer == x)
					break;
			CU_ASSERT(q <= b->nodes[n].nports);
		}
		for (p = 1; p <= a->nodes[n].nports; p++)
			CU_ASSERT(cables(a, n, fab_port(a, n, p)->peer) ==
				  cables(b, n, fab_port(a, n, p)->peer));
	}
	CU_ASSERT(moved > a->nsw);
	check_rules(b, 1);
	fab_free(a);
	fab_free(b);
	fab_free(c);
}

static void test_guids(void)
{
	struct gen_fattree t;
	struct gen_opts o;
	struct fabric *f;
	char err[ERRLEN];
	size_t n, ca = 0;
	uint64_t prev = 0;

	gen_opts_init(&o);
	o.hcas = 2;
	o.ca_ports = 2;
	CU_ASSERT_FATAL(!gen_fattree_kary(&t, 2, 3, err, sizeof(err)));
	f = ft(&t, &o);
	CU_ASSERT(f->nca == 16);
	for (n = 0; n < f->nnodes; n++) {
		if (fab_is_sw(f, n)) {
			CU_ASSERT(f->nodes[n].guid >> 32 == GEN_SW_GUID >> 32);
			continue;
		}
		/* consecutive CAs leave room for node + 2 port GUIDs */
		if (ca++)
			CU_ASSERT(f->nodes[n].guid - prev == 3);
		prev = f->nodes[n].guid;
		CU_ASSERT(f->nodes[n].guid >> 32 == GEN_CA_GUID >> 32);
	}
	check_rules(f, 2);
	fab_free(f);
}

static void test_errors(void)
{
	struct gen_fattree t;
	struct gen_torus tor;
	struct gen_opts o;
	struct fabric *f = NULL;
	char err[ERRLEN];

	gen_opts_init(&o);
	CU_ASSERT_FATAL(!gen_fattree_radix(&t, 8, 2, err, sizeof(err)));
	t.down[0] = 0;
	CU_ASSERT(gen_fattree(&t, &o, &f, err, sizeof(err)) == -EINVAL);
	CU_ASSERT(!strcmp(err, "--hosts-per-leaf must be 1..253"));
	t.down[0] = 4;
	t.parallel = 100;
	CU_ASSERT(gen_fattree(&t, &o, &f, err, sizeof(err)) == -E2BIG);
	CU_ASSERT(strstr(err, "ports") != NULL);
	CU_ASSERT(gen_fattree_radix(&t, 7, 2, err, sizeof(err)) == -EINVAL);
	CU_ASSERT(gen_fattree_kary(&t, 4, 5, err, sizeof(err)) == -EINVAL);
	CU_ASSERT_FATAL(!gen_fattree_kary(&t, 64, 4, err, sizeof(err)));
	CU_ASSERT(gen_fattree(&t, &o, &f, err, sizeof(err)) == -E2BIG);
	CU_ASSERT(strstr(err, "too large") != NULL);
	CU_ASSERT_FATAL(!gen_fattree_radix(&t, 8, 2, err, sizeof(err)));
	o.width = 3;
	CU_ASSERT(gen_fattree(&t, &o, &f, err, sizeof(err)) == -EINVAL);
	gen_opts_init(&o);
	o.drop = 1.0;
	CU_ASSERT(gen_fattree(&t, &o, &f, err, sizeof(err)) == -EINVAL);
	gen_opts_init(&o);
	o.drop_hosts = 0.99;
	CU_ASSERT(gen_fattree(&t, &o, &f, err, sizeof(err)) == -EDOM);
	gen_opts_init(&o);
	gen_torus_init(&tor, true);
	tor.dim[1] = 1;
	CU_ASSERT(gen_torus(&tor, &o, &f, err, sizeof(err)) == -EINVAL);
	CU_ASSERT(strstr(err, "--dims") != NULL);
	CU_ASSERT(f == NULL);
}

/* What ibtopogen writes loads back as the same fabric. */
static void test_netfile_round_trip(void)
{
	struct fabric *f, *g;
	struct gen_torus t;
	struct gen_opts o;
	char err[ERRLEN], *buf = NULL;
	size_t len = 0, n, m;
	unsigned int p;
	FILE *mem, *in;

	gen_opts_init(&o);
	gen_torus_init(&t, true);
	t.dim[2] = 2;
	t.hosts = 2;
	o.hcas = 2;
	o.shuffle = true;
	o.drop = 0.1;
	CU_ASSERT_FATAL(!gen_torus(&t, &o, &f, err, sizeof(err)));
	mem = open_memstream(&buf, &len);
	CU_ASSERT_FATAL(mem != NULL);
	CU_ASSERT(fab_write_net(f, mem) == 0);
	fclose(mem);
	in = fmemopen(buf, len, "r");
	CU_ASSERT_FATAL(in != NULL);
	CU_ASSERT_FATAL(!fab_load_net_stream(in, "gen", &g, err, sizeof(err)));
	fclose(in);
	CU_ASSERT(g->nsw == f->nsw && g->nca == f->nca);
	CU_ASSERT(fab_sw_links(g) == fab_sw_links(f));
	for (n = 0; n < f->nnodes; n++) {
		m = by_guid(g, f, n);
		CU_ASSERT_FATAL(m != FAB_NONE);
		CU_ASSERT(!strcmp(g->nodes[m].desc, f->nodes[n].desc));
		CU_ASSERT(g->nodes[m].nports == f->nodes[n].nports);
		for (p = 0; p <= f->nodes[n].nports; p++)
			CU_ASSERT(fab_lid_port(f, n, p)->guid ==
				  fab_lid_port(g, m, p)->guid);
	}
	CU_ASSERT(subset(g, f) && subset(f, g));
	fab_free(g);
	fab_free(f);
	free(buf);
}

TU_SUITE(gen,
	 { "fattree shapes", test_fattree_shapes },
	 { "fattree known sizes", test_fattree_known },
	 { "rail", test_rail },
	 { "torus and mesh", test_torus },
	 { "torus failures", test_torus_failures },
	 { "dragonfly", test_dragonfly },
	 { "dragonfly drops", test_dragonfly_drop },
	 { "drop links", test_drop_links },
	 { "drop switches and hosts", test_drop_switches_hosts },
	 { "shuffle ports", test_shuffle },
	 { "guids", test_guids },
	 { "errors", test_errors },
	 { "netfile round trip", test_netfile_round_trip })
