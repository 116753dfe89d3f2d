// SPDX-License-Identifier: MIT
/*
 * Fabric generators.  Each lays out a plan (switches, HCAs, cables with a
 * sort key at each end), numbers the ports of the full plan, degrades it and
 * only then builds the fabric, so omitted parts leave no orphans and a
 * degraded fabric keeps the port numbers of the intact one.
 */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gen.h"
#include "rng.h"
#include "textio.h"

/* Sort keys: host ports first, then down, up (local), global ports. */
#define KEY_UP (1u << 20)
#define KEY_GLOBAL (2u << 20)

/* Random streams, so one degradation never shifts another's choices. */
enum { RNG_SWITCHES = 1, RNG_LINKS, RNG_LOCAL, RNG_GLOBAL, RNG_HOSTS,
	RNG_PORTS = 0x100 };

enum { LK_PLAIN, LK_LOCAL, LK_GLOBAL, LK_NCLS };

struct psw {
	char desc[40];
	uint32_t nports;
	bool gone;
	bool hosts;		/* some HCA sits on it */
};

struct pca {
	uint32_t host, sw, key;
	uint8_t hca;
	uint8_t port;		/* on sw, once numbered */
	bool gone;
};

struct plink {
	uint32_t a, b, ka, kb;
	uint8_t pa, pb;		/* once numbered */
	uint8_t cls;
	bool gone;
};

/* Owns its arrays; err points at the caller's buffer. */
struct plan {
	struct psw *sw;
	struct pca *ca;
	struct plink *lk;
	size_t nsw, swcap, nca, cacap, nlk, lkcap;
	uint32_t nhosts;
	char *err;
	size_t errlen;
};

/* Adjacency of the plan's switch graph with BFS scratch space. */
struct graph {
	uint32_t *off;		/* nsw + 1 */
	uint32_t *adj;		/* cable indices */
	uint32_t *mark;
	uint32_t *queue;
	uint32_t stamp;
};

__attribute__((format(printf, 4, 5)))
static int seterr(char *err, size_t errlen, int ret, const char *fmt, ...)
{
	va_list ap;

	if (errlen) {
		va_start(ap, fmt);
		vsnprintf(err, errlen, fmt, ap);
		va_end(ap);
	}
	return ret;
}

#define fail(p, ret, ...) seterr((p)->err, (p)->errlen, ret, __VA_ARGS__)

void gen_opts_init(struct gen_opts *o)
{
	memset(o, 0, sizeof(*o));
	o->width = 4;
	o->speed = 250;
	o->hcas = 1;
	o->ca_ports = 1;
}

static uint64_t rng_seed(uint64_t seed, uint64_t stream)
{
	uint64_t s = seed ^ (stream * 0xd1b54a32d192ed03ULL);

	return rng_next(&s);
}

static void shuffle(uint32_t *a, size_t n, uint64_t *s)
{
	size_t i, j;
	uint32_t t;

	for (i = n; i > 1; i--) {
		j = rng_next(s) % i;
		t = a[i - 1];
		a[i - 1] = a[j];
		a[j] = t;
	}
}


static void plan_init(struct plan *p, char *err, size_t errlen)
{
	memset(p, 0, sizeof(*p));
	p->err = err;
	p->errlen = errlen;
	if (errlen)
		err[0] = '\0';
}

static void plan_free(struct plan *p)
{
	free(p->sw);
	free(p->ca);
	free(p->lk);
}

static int plan_size(struct plan *p, uint64_t nsw, uint64_t nca)
{
	if (nsw + nca > GEN_MAX_NODES)
		return fail(p, -E2BIG, "fabric too large: %llu nodes (max %u)",
			    (unsigned long long)(nsw + nca), GEN_MAX_NODES);
	return 0;
}

__attribute__((format(printf, 2, 3)))
static int add_sw(struct plan *p, const char *fmt, ...)
{
	struct psw *s;
	va_list ap;

	if (tio_grow((void **)&p->sw, &p->swcap, p->nsw + 1, sizeof(*p->sw)))
		return -ENOMEM;
	s = &p->sw[p->nsw];
	memset(s, 0, sizeof(*s));
	va_start(ap, fmt);
	vsnprintf(s->desc, sizeof(s->desc), fmt, ap);
	va_end(ap);
	return p->nsw++;
}

/* HCAs must be added host by host: drop_hosts relies on it. */
static int add_ca(struct plan *p, uint32_t host, unsigned int hca,
		  uint32_t sw, uint32_t key)
{
	struct pca *c;

	if (tio_grow((void **)&p->ca, &p->cacap, p->nca + 1, sizeof(*p->ca)))
		return -ENOMEM;
	c = &p->ca[p->nca++];
	memset(c, 0, sizeof(*c));
	c->host = host;
	c->hca = hca;
	c->sw = sw;
	c->key = key;
	p->sw[sw].hosts = true;
	if (host >= p->nhosts)
		p->nhosts = host + 1;
	return 0;
}

static int add_link(struct plan *p, uint32_t a, uint32_t ka, uint32_t b,
		    uint32_t kb, unsigned int cls)
{
	struct plink *l;

	if (tio_grow((void **)&p->lk, &p->lkcap, p->nlk + 1, sizeof(*p->lk)))
		return -ENOMEM;
	l = &p->lk[p->nlk++];
	memset(l, 0, sizeof(*l));
	l->a = a;
	l->ka = ka;
	l->b = b;
	l->kb = kb;
	l->cls = cls;
	return 0;
}

/* Port numbering: one entry per port-to-be, sorted by key per switch. */
struct pend {
	uint32_t key, seq;
	uint8_t *dst;
};

static int pend_cmp(const void *x, const void *y)
{
	const struct pend *a = x, *b = y;

	if (a->key != b->key)
		return a->key < b->key ? -1 : 1;
	return a->seq < b->seq ? -1 : a->seq > b->seq;
}

static int number_ports(struct plan *p, const struct gen_opts *o)
{
	size_t n = p->nca + 2 * p->nlk, i, s, j, cnt;
	uint32_t *off, *pos, perm[FAB_MAX_PORTS];
	struct pend *e;
	uint64_t rs;
	int ret = 0;

	off = calloc(p->nsw + 1, sizeof(*off));
	pos = calloc(p->nsw + 1, sizeof(*pos));
	e = calloc(n ? n : 1, sizeof(*e));
	if (!off || !pos || !e) {
		ret = -ENOMEM;
		goto out;
	}
	for (i = 0; i < p->nca; i++)
		off[p->ca[i].sw + 1]++;
	for (i = 0; i < p->nlk; i++) {
		off[p->lk[i].a + 1]++;
		off[p->lk[i].b + 1]++;
	}
	for (s = 0; s < p->nsw; s++) {
		cnt = off[s + 1];
		if (cnt > FAB_MAX_PORTS) {
			ret = fail(p, -E2BIG,
				   "switch %s needs %zu ports (max %u)",
				   p->sw[s].desc, cnt, FAB_MAX_PORTS);
			goto out;
		}
		off[s + 1] += off[s];
		pos[s] = off[s];
	}
	j = 0;
	for (i = 0; i < p->nca; i++)
		e[pos[p->ca[i].sw]++] = (struct pend){ p->ca[i].key, j++,
						       &p->ca[i].port };
	for (i = 0; i < p->nlk; i++) {
		struct plink *l = &p->lk[i];

		e[pos[l->a]++] = (struct pend){ l->ka, j++, &l->pa };
		e[pos[l->b]++] = (struct pend){ l->kb, j++, &l->pb };
	}
	for (s = 0; s < p->nsw; s++) {
		cnt = off[s + 1] - off[s];
		qsort(e + off[s], cnt, sizeof(*e), pend_cmp);
		for (j = 0; j < cnt; j++)
			perm[j] = j + 1;
		if (o->shuffle) {
			rs = rng_seed(o->shuffle_seed, RNG_PORTS + s);
			shuffle(perm, cnt, &rs);
		}
		for (j = 0; j < cnt; j++)
			*e[off[s] + j].dst = perm[j];
		p->sw[s].nports = cnt ? cnt : 1;
	}
out:
	free(off);
	free(pos);
	free(e);
	return ret;
}

static bool link_up(const struct plan *p, const struct plink *l)
{
	return !l->gone && !p->sw[l->a].gone && !p->sw[l->b].gone;
}

static void graph_free(struct graph *g)
{
	free(g->off);
	free(g->adj);
	free(g->mark);
	free(g->queue);
}

static int graph_init(struct graph *g, const struct plan *p)
{
	uint32_t *pos;
	size_t i;

	memset(g, 0, sizeof(*g));
	g->off = calloc(p->nsw + 1, sizeof(*g->off));
	g->adj = calloc(2 * p->nlk + 1, sizeof(*g->adj));
	g->mark = calloc(p->nsw + 1, sizeof(*g->mark));
	g->queue = calloc(p->nsw + 1, sizeof(*g->queue));
	pos = calloc(p->nsw + 1, sizeof(*pos));
	if (!g->off || !g->adj || !g->mark || !g->queue || !pos) {
		free(pos);
		graph_free(g);
		return -ENOMEM;
	}
	for (i = 0; i < p->nlk; i++) {
		g->off[p->lk[i].a + 1]++;
		g->off[p->lk[i].b + 1]++;
	}
	for (i = 0; i < p->nsw; i++) {
		g->off[i + 1] += g->off[i];
		pos[i] = g->off[i];
	}
	for (i = 0; i < p->nlk; i++) {
		g->adj[pos[p->lk[i].a]++] = i;
		g->adj[pos[p->lk[i].b]++] = i;
	}
	free(pos);
	return 0;
}

/*
 * Breadth-first over live switches and cables from `from`, marking with
 * the current stamp; true as soon as `to` is reached.
 */
static bool bfs(const struct plan *p, struct graph *g, uint32_t from,
		uint32_t to)
{
	size_t head = 0, tail = 0;
	uint32_t s, t, i;

	g->mark[from] = g->stamp;
	g->queue[tail++] = from;
	while (head < tail) {
		s = g->queue[head++];
		for (i = g->off[s]; i < g->off[s + 1]; i++) {
			const struct plink *l = &p->lk[g->adj[i]];

			if (!link_up(p, l))
				continue;
			t = l->a == s ? l->b : l->a;
			if (g->mark[t] == g->stamp)
				continue;
			if (t == to)
				return true;
			g->mark[t] = g->stamp;
			g->queue[tail++] = t;
		}
	}
	return false;
}

static bool reachable(const struct plan *p, struct graph *g, uint32_t a,
		      uint32_t b)
{
	g->stamp++;
	return bfs(p, g, a, b);
}

static size_t components(const struct plan *p, struct graph *g)
{
	size_t s, n = 0;

	g->stamp++;
	for (s = 0; s < p->nsw; s++) {
		if (p->sw[s].gone || g->mark[s] == g->stamp)
			continue;
		n++;
		bfs(p, g, s, FAB_NONE);
	}
	return n;
}

static int find_sw(const struct plan *p, const char *name, size_t len)
{
	size_t s;

	for (s = 0; s < p->nsw; s++)
		if (!p->sw[s].gone && strlen(p->sw[s].desc) == len &&
		    !memcmp(p->sw[s].desc, name, len))
			return s;
	return -1;
}

static int fail_switches(struct plan *p, const struct gen_opts *o)
{
	size_t i;
	int s;

	for (i = 0; i < o->nfail_switch; i++) {
		s = find_sw(p, o->fail_switch[i], strlen(o->fail_switch[i]));
		if (s < 0)
			return fail(p, -ENOENT, "--fail-switch: no switch %s",
				    o->fail_switch[i]);
		p->sw[s].gone = true;
	}
	return 0;
}

static int fail_named_links(struct plan *p, const struct gen_opts *o)
{
	const char *name, *colon;
	size_t i, k;
	int a, b;

	for (i = 0; i < o->nfail_link; i++) {
		name = o->fail_link[i];
		colon = strchr(name, ':');
		if (!colon)
			return fail(p, -EINVAL,
				    "--fail-link %s: want SWA:SWB or a count",
				    name);
		a = find_sw(p, name, colon - name);
		b = find_sw(p, colon + 1, strlen(colon + 1));
		if (a < 0 || b < 0)
			return fail(p, -ENOENT, "--fail-link %s: no switch %s",
				    name, a < 0 ? "before ':'" : "after ':'");
		for (k = 0; k < p->nlk; k++) {
			struct plink *l = &p->lk[k];

			if (link_up(p, l) &&
			    ((l->a == (uint32_t)a && l->b == (uint32_t)b) ||
			     (l->a == (uint32_t)b && l->b == (uint32_t)a)))
				break;
		}
		if (k == p->nlk)
			return fail(p, -ENOENT, "--fail-link %s: no cable left",
				    name);
		p->lk[k].gone = true;
	}
	return 0;
}

static int drop_switches(struct plan *p, struct graph *g, unsigned int want,
			 uint64_t seed)
{
	size_t s, n = 0, i, c0, c1;
	unsigned int left = want;
	uint32_t *c;
	uint64_t rs;

	if (!want)
		return 0;
	c = calloc(p->nsw + 1, sizeof(*c));
	if (!c)
		return -ENOMEM;
	for (s = 0; s < p->nsw; s++)
		if (!p->sw[s].gone && !p->sw[s].hosts)
			c[n++] = s;
	rs = rng_seed(seed, RNG_SWITCHES);
	shuffle(c, n, &rs);
	c0 = components(p, g);
	for (i = 0; i < n && left; i++) {
		p->sw[c[i]].gone = true;
		c1 = components(p, g);
		if (c1 > c0) {
			p->sw[c[i]].gone = false;
			continue;
		}
		c0 = c1;
		left--;
	}
	free(c);
	if (left)
		return fail(p, -EDOM,
			    "--drop-switches %u: only %u of %zu switches without hosts can go without disconnecting the fabric",
			    want, want - left, n);
	return 0;
}

/*
 * Remove round(frac * live cables of class cls) + extra live cables at
 * random, skipping any whose loss would split the switch graph further.
 * cls LK_NCLS means every class.
 */
static int drop_links(struct plan *p, struct graph *g, unsigned int cls,
		      double frac, unsigned int extra, uint64_t seed,
		      unsigned int stream, const char *what)
{
	size_t i, n = 0, want, left;
	uint32_t *c;
	uint64_t rs;
	int ret = 0;

	c = calloc(p->nlk + 1, sizeof(*c));
	if (!c)
		return -ENOMEM;
	for (i = 0; i < p->nlk; i++)
		if (link_up(p, &p->lk[i]) &&
		    (cls == LK_NCLS || p->lk[i].cls == cls))
			c[n++] = i;
	want = (size_t)llround(frac * n) + extra;
	if (want > n) {
		ret = fail(p, -EDOM, "%s: %zu cables asked, %zu present",
			   what, want, n);
		goto out;
	}
	rs = rng_seed(seed, stream);
	shuffle(c, n, &rs);
	left = want;
	for (i = 0; i < n && left; i++) {
		struct plink *l = &p->lk[c[i]];

		l->gone = true;
		if (reachable(p, g, l->a, l->b))
			left--;
		else
			l->gone = false;
	}
	if (left)
		ret = fail(p, -EDOM,
			   "%s: only %zu of %zu cables can go without disconnecting the fabric",
			   what, want - left, want);
out:
	free(c);
	return ret;
}

static int drop_hosts(struct plan *p, double frac, uint64_t seed)
{
	uint32_t *h = NULL;
	uint8_t *st = NULL;	/* 1 present, 2 dropped */
	size_t i, n = 0, want;
	uint64_t rs;
	int ret = 0;

	if (frac <= 0 || !p->nhosts)
		return 0;
	h = calloc(p->nhosts, sizeof(*h));
	st = calloc(p->nhosts, sizeof(*st));
	if (!h || !st) {
		ret = -ENOMEM;
		goto out;
	}
	for (i = 0; i < p->nca; i++)
		if (!p->ca[i].gone && !p->sw[p->ca[i].sw].gone)
			st[p->ca[i].host] = 1;
	for (i = 0; i < p->nhosts; i++)
		if (st[i])
			h[n++] = i;
	want = (size_t)llround(frac * n);
	if (want >= n) {
		ret = fail(p, -EDOM, "--drop-hosts %g leaves no host", frac);
		goto out;
	}
	rs = rng_seed(seed, RNG_HOSTS);
	shuffle(h, n, &rs);
	for (i = 0; i < want; i++)
		st[h[i]] = 2;
	for (i = 0; i < p->nca; i++)
		if (st[p->ca[i].host] == 2)
			p->ca[i].gone = true;
out:
	free(h);
	free(st);
	return ret;
}

/* cls_frac, when set, holds per-class drop fractions (dragonfly). */
static int degrade(struct plan *p, const struct gen_opts *o,
		   const double *cls_frac)
{
	static const char *const cls_name[LK_NCLS] = {
		"--drop", "--drop-local", "--drop-global",
	};
	static const unsigned int cls_rng[LK_NCLS] = {
		RNG_LINKS, RNG_LOCAL, RNG_GLOBAL,
	};
	struct graph g;
	unsigned int c;
	int ret;

	ret = graph_init(&g, p);
	if (ret)
		return ret;
	for (c = 0; cls_frac && c < LK_NCLS && !ret; c++)
		if (cls_frac[c] > 0)
			ret = drop_links(p, &g, c, cls_frac[c], 0, o->seed,
					 cls_rng[c], cls_name[c]);
	if (!ret)
		ret = fail_switches(p, o);
	if (!ret)
		ret = fail_named_links(p, o);
	if (!ret)
		ret = drop_switches(p, &g, o->drop_switches, o->seed);
	if (!ret && (o->drop > 0 || o->fail_links))
		ret = drop_links(p, &g, LK_NCLS, o->drop, o->fail_links,
				 o->seed, RNG_LINKS,
				 o->drop > 0 ? "--drop" : "--fail-link");
	if (!ret)
		ret = drop_hosts(p, o->drop_hosts, o->seed);
	graph_free(&g);
	return ret;
}

static int build(const struct plan *p, const struct gen_opts *o,
		 struct fabric **out)
{
	struct fabric *f;
	uint32_t *map;
	char desc[64];
	uint64_t guid;
	size_t i;
	unsigned int q;
	int ret = 0, n;

	f = fab_new();
	map = calloc(p->nsw + 1, sizeof(*map));
	if (!f || !map) {
		ret = -ENOMEM;
		goto out;
	}
	for (i = 0; i < p->nsw; i++) {
		map[i] = FAB_NONE;
		if (p->sw[i].gone)
			continue;
		n = fab_add_node(f, FAB_SW, p->sw[i].nports, GEN_SW_GUID + i,
				 p->sw[i].desc);
		if (n < 0) {
			ret = n;
			goto out;
		}
		map[i] = n;
	}
	for (i = 0; i < p->nlk; i++) {
		const struct plink *l = &p->lk[i];

		if (!link_up(p, l))
			continue;
		ret = fab_link(f, map[l->a], l->pa, map[l->b], l->pb, o->width,
			       o->speed);
		if (ret)
			goto out;
	}
	for (i = 0; i < p->nca; i++) {
		const struct pca *c = &p->ca[i];

		if (c->gone || p->sw[c->sw].gone)
			continue;
		snprintf(desc, sizeof(desc), "node%04u mlx5_%u", c->host + 1,
			 c->hca);
		guid = GEN_CA_GUID + (uint64_t)i * (o->ca_ports + 1);
		n = fab_add_node(f, FAB_CA, o->ca_ports, guid, desc);
		if (n < 0) {
			ret = n;
			goto out;
		}
		f->nodes[n].sysguid = GEN_SYS_GUID + c->host;
		for (q = 1; q <= o->ca_ports; q++)
			fab_port(f, n, q)->guid = guid + q;
		ret = fab_link(f, n, 1, map[c->sw], c->port, o->width,
			       o->speed);
		if (ret)
			goto out;
	}
out:
	free(map);
	if (ret) {
		fab_free(f);
		f = NULL;
	}
	*out = f;
	return ret;
}

static bool frac_ok(double x)
{
	return x >= 0 && x < 1;
}

static int check_opts(struct plan *p, const struct gen_opts *o)
{
	unsigned int w = o->width;

	if (w != 1 && w != 2 && w != 4 && w != 8 && w != 12)
		return fail(p, -EINVAL, "--width must be 1, 2, 4, 8 or 12");
	if (o->speed != 25 && o->speed != 50 && o->speed != 100 &&
	    o->speed != 140 && o->speed != 250 && o->speed != 500 &&
	    o->speed != 1000)
		return fail(p, -EINVAL,
			    "--speed must be 25, 50, 100, 140, 250, 500 or 1000");
	if (o->hcas < 1 || o->hcas > FAB_MAX_PORTS)
		return fail(p, -EINVAL, "--hcas must be 1..254");
	if (o->ca_ports < 1 || o->ca_ports > FAB_MAX_PORTS)
		return fail(p, -EINVAL, "--ca-ports must be 1..254");
	if (!frac_ok(o->drop))
		return fail(p, -EINVAL, "--drop must be in [0, 1)");
	if (!frac_ok(o->drop_hosts))
		return fail(p, -EINVAL, "--drop-hosts must be in [0, 1)");
	return 0;
}

/* Number, degrade, build; frees the plan in every case. */
static int finish(struct plan *p, const struct gen_opts *o,
		  const double *cls_frac, struct fabric **out)
{
	int ret;

	ret = number_ports(p, o);
	if (!ret)
		ret = degrade(p, o, cls_frac);
	if (!ret)
		ret = build(p, o, out);
	plan_free(p);
	return ret;
}

int gen_fattree_kary(struct gen_fattree *ft, unsigned int k,
		     unsigned int levels, char *err, size_t errlen)
{
	unsigned int s;

	if (levels < 2 || levels > GEN_MAX_LEVELS)
		return seterr(err, errlen, -EINVAL, "--levels must be 2..%u",
			      GEN_MAX_LEVELS);
	if (k < 1 || k > FAB_MAX_PORTS / 2)
		return seterr(err, errlen, -EINVAL, "--k must be 1..%u",
			      FAB_MAX_PORTS / 2);
	memset(ft, 0, sizeof(*ft));
	ft->levels = levels;
	ft->parallel = 1;
	for (s = 0; s < levels; s++) {
		ft->down[s] = k;
		if (s + 1 < levels)
			ft->up[s] = k;
	}
	return 0;
}

int gen_fattree_radix(struct gen_fattree *ft, unsigned int radix,
		      unsigned int levels, char *err, size_t errlen)
{
	unsigned int s;

	if (levels < 2 || levels > GEN_MAX_LEVELS)
		return seterr(err, errlen, -EINVAL, "--levels must be 2..%u",
			      GEN_MAX_LEVELS);
	if (radix < 4 || radix > FAB_MAX_PORTS || radix % 2)
		return seterr(err, errlen, -EINVAL,
			      "--radix must be even and 4..%u", FAB_MAX_PORTS);
	memset(ft, 0, sizeof(*ft));
	ft->levels = levels;
	ft->parallel = 1;
	for (s = 0; s < levels; s++) {
		ft->down[s] = s + 1 < levels ? radix / 2 : radix;
		if (s + 1 < levels)
			ft->up[s] = radix / 2;
	}
	return 0;
}

static int check_fattree(struct plan *p, const struct gen_fattree *ft)
{
	unsigned int s;

	if (ft->levels < 2 || ft->levels > GEN_MAX_LEVELS)
		return fail(p, -EINVAL, "--levels must be 2..%u",
			    GEN_MAX_LEVELS);
	if (ft->down[0] < 1 || ft->down[0] > FAB_MAX_PORTS - 1)
		return fail(p, -EINVAL, "--hosts-per-leaf must be 1..%u",
			    FAB_MAX_PORTS - 1);
	for (s = 1; s < ft->levels; s++)
		if (ft->down[s] < 1 || ft->down[s] > FAB_MAX_PORTS)
			return fail(p, -EINVAL, "--down values must be 1..%u",
				    FAB_MAX_PORTS);
	for (s = 0; s + 1 < ft->levels; s++)
		if (ft->up[s] < 1 || ft->up[s] > FAB_MAX_PORTS)
			return fail(p, -EINVAL, "--up values must be 1..%u",
				    FAB_MAX_PORTS);
	if (ft->parallel < 1 || ft->parallel > FAB_MAX_PORTS)
		return fail(p, -EINVAL, "--parallel must be 1..%u",
			    FAB_MAX_PORTS);
	return 0;
}

/*
 * A level-s switch is (A, B): A over the down digits of levels s+1..L-1
 * (the lowest digit says which child of its parents it is), B over the up
 * choices made below it.  Index within the level: A * bcnt[s] + B.
 */
struct ft_shape {
	uint64_t acnt[GEN_MAX_LEVELS], bcnt[GEN_MAX_LEVELS];
	uint64_t first[GEN_MAX_LEVELS];
};

static int ft_switches(struct plan *p, const struct gen_fattree *ft,
		       const struct ft_shape *sh)
{
	static const char *const names[GEN_MAX_LEVELS - 1][GEN_MAX_LEVELS] = {
		{ "leaf", "spine" },
		{ "leaf", "spine", "core" },
		{ "leaf", "spine", "agg", "core" },
	};
	unsigned int L = ft->levels, s;
	const char *nm;
	uint64_t i, cnt, podsz;
	int ret;

	for (s = 0; s < L; s++) {
		nm = names[L - 2][s];
		cnt = sh->acnt[s] * sh->bcnt[s];
		podsz = sh->acnt[s] / ft->down[L - 1] * sh->bcnt[s];
		for (i = 0; i < cnt; i++) {
			if (L == 2 || s == L - 1)
				ret = add_sw(p, "%s-%llu", nm,
					     (unsigned long long)i);
			else
				ret = add_sw(p, "%s-p%llu-%llu", nm,
					     (unsigned long long)(i / podsz),
					     (unsigned long long)(i % podsz));
			if (ret < 0)
				return ret;
		}
	}
	return 0;
}

static int ft_links(struct plan *p, const struct gen_fattree *ft,
		    const struct ft_shape *sh)
{
	unsigned int P = ft->parallel, s, c, k;
	uint64_t A, B, a, rest, child, parent;
	int ret;

	for (s = 0; s + 1 < ft->levels; s++) {
		for (A = 0; A < sh->acnt[s]; A++) {
			a = A % ft->down[s + 1];
			rest = A / ft->down[s + 1];
			for (B = 0; B < sh->bcnt[s]; B++) {
				child = sh->first[s] + A * sh->bcnt[s] + B;
				for (c = 0; c < ft->up[s]; c++) {
					parent = sh->first[s + 1] +
						 rest * sh->bcnt[s + 1] +
						 B * ft->up[s] + c;
					for (k = 0; k < P; k++) {
						ret = add_link(p, child,
							KEY_UP + c * P + k,
							parent, a * P + k,
							LK_PLAIN);
						if (ret)
							return ret;
					}
				}
			}
		}
	}
	return 0;
}

int gen_fattree(const struct gen_fattree *ft, const struct gen_opts *o,
		struct fabric **out, char *err, size_t errlen)
{
	unsigned int L = ft->levels, s, h, i;
	struct ft_shape sh;
	struct plan p;
	uint64_t nsw = 0, leaf;
	int ret;

	*out = NULL;
	plan_init(&p, err, errlen);
	ret = check_opts(&p, o);
	if (!ret)
		ret = check_fattree(&p, ft);
	if (ret)
		return ret;
	for (s = 0; s < L; s++) {
		sh.acnt[s] = 1;
		for (i = s + 1; i < L; i++)
			sh.acnt[s] *= ft->down[i];
		sh.bcnt[s] = 1;
		for (i = 0; i < s; i++)
			sh.bcnt[s] *= ft->up[i];
		sh.first[s] = nsw;
		nsw += sh.acnt[s] * sh.bcnt[s];
	}
	ret = plan_size(&p, nsw, sh.acnt[0] * ft->down[0] * o->hcas);
	if (ret)
		return ret;
	ret = ft_switches(&p, ft, &sh);
	for (leaf = 0; !ret && leaf < sh.acnt[0]; leaf++)
		for (h = 0; !ret && h < ft->down[0]; h++)
			for (i = 0; !ret && i < o->hcas; i++)
				ret = add_ca(&p, leaf * ft->down[0] + h, i,
					     leaf, h * o->hcas + i);
	if (!ret)
		ret = ft_links(&p, ft, &sh);
	if (ret) {
		plan_free(&p);
		return ret;
	}
	return finish(&p, o, NULL, out);
}

void gen_rail_init(struct gen_rail *r)
{
	r->sus = 4;
	r->hosts_per_su = 32;
	r->rails = 8;
	r->spines = 32;
	r->spine_groups = 1;
	r->cores = 0;
	r->parallel = 1;
}

static int check_rail(struct plan *p, const struct gen_rail *r,
		      const struct gen_opts *o)
{
	if (o->hcas != 1)
		return fail(p, -EINVAL, "--hcas does not apply to rail: use --rails");
	if (r->sus < 1 || r->sus > GEN_MAX_NODES)
		return fail(p, -EINVAL, "--sus must be at least 1");
	if (r->hosts_per_su < 1 || r->hosts_per_su > FAB_MAX_PORTS - 1)
		return fail(p, -EINVAL, "--hosts-per-su must be 1..%u",
			    FAB_MAX_PORTS - 1);
	if (r->rails < 1 || r->rails > FAB_MAX_PORTS)
		return fail(p, -EINVAL, "--rails must be 1..%u",
			    FAB_MAX_PORTS);
	if (r->spines < 1 || r->spines > GEN_MAX_NODES)
		return fail(p, -EINVAL, "--spines must be at least 1");
	if (r->spine_groups < 1 || r->rails % r->spine_groups ||
	    r->spines % r->spine_groups)
		return fail(p, -EINVAL,
			    "--spine-groups must divide --rails and --spines");
	if (r->spine_groups > 1 && !r->cores)
		return fail(p, -EINVAL,
			    "--spine-groups %u needs --cores: the rail planes would not be joined",
			    r->spine_groups);
	if (r->cores > GEN_MAX_NODES)
		return fail(p, -EINVAL, "--cores: too many");
	if (r->parallel < 1 || r->parallel > FAB_MAX_PORTS)
		return fail(p, -EINVAL, "--parallel must be 1..%u",
			    FAB_MAX_PORTS);
	return 0;
}

/* Leaf (su, rl) to the spines of its group, spines to every core. */
static int rail_links(struct plan *p, const struct gen_rail *r)
{
	unsigned int su, rl, t, c, k, P = r->parallel;
	unsigned int per = r->spines / r->spine_groups;
	unsigned int rpg = r->rails / r->spine_groups;
	uint32_t leaf, spine, down, sp0 = r->sus * r->rails;
	int ret = 0;

	for (leaf = 0; !ret && leaf < sp0; leaf++) {
		su = leaf / r->rails;
		rl = leaf % r->rails;
		/* the spine's down port: which of its leaves this is */
		down = su * rpg + rl / r->spine_groups;
		for (t = 0; !ret && t < per; t++)
			for (k = 0; !ret && k < P; k++) {
				spine = sp0 + (rl % r->spine_groups) * per + t;
				ret = add_link(p, leaf, KEY_UP + t * P + k,
					       spine, down * P + k, LK_PLAIN);
			}
	}
	for (t = 0; !ret && t < r->spines; t++)
		for (c = 0; !ret && c < r->cores; c++)
			for (k = 0; !ret && k < P; k++)
				ret = add_link(p, sp0 + t, KEY_UP + c * P + k,
					       sp0 + r->spines + c, t * P + k,
					       LK_PLAIN);
	return ret;
}

int gen_rail(const struct gen_rail *r, const struct gen_opts *o,
	     struct fabric **out, char *err, size_t errlen)
{
	unsigned int su, rl, h, t;
	struct plan p;
	int ret;

	*out = NULL;
	plan_init(&p, err, errlen);
	ret = check_opts(&p, o);
	if (!ret)
		ret = check_rail(&p, r, o);
	if (!ret)
		ret = plan_size(&p, (uint64_t)r->sus * r->rails + r->spines +
				r->cores,
				(uint64_t)r->sus * r->hosts_per_su * r->rails);
	if (ret)
		return ret;
	for (su = 0; !ret && su < r->sus; su++)
		for (rl = 0; !ret && rl < r->rails; rl++)
			ret = add_sw(&p, "leaf-su%u-r%u", su, rl) < 0;
	for (t = 0; !ret && t < r->spines; t++)
		ret = add_sw(&p, "spine-%u", t) < 0;
	for (t = 0; !ret && t < r->cores; t++)
		ret = add_sw(&p, "core-%u", t) < 0;
	for (su = 0; !ret && su < r->sus; su++)
		for (h = 0; !ret && h < r->hosts_per_su; h++)
			for (rl = 0; !ret && rl < r->rails; rl++)
				ret = add_ca(&p, su * r->hosts_per_su + h, rl,
					     su * r->rails + rl, h);
	if (!ret)
		ret = rail_links(&p, r);
	if (ret) {
		plan_free(&p);
		return -ENOMEM;
	}
	return finish(&p, o, NULL, out);
}

void gen_torus_init(struct gen_torus *t, bool wrap)
{
	unsigned int d;

	memset(t, 0, sizeof(*t));
	t->ndims = 3;
	for (d = 0; d < 3; d++) {
		t->dim[d] = 4;
		t->wrap[d] = wrap;
	}
	t->hosts = 1;
	t->parallel = 1;
}

static int check_torus(struct plan *p, const struct gen_torus *t)
{
	unsigned int d;

	if (t->ndims < 1 || t->ndims > GEN_MAX_DIMS)
		return fail(p, -EINVAL, "--dims needs 1..%u values",
			    GEN_MAX_DIMS);
	for (d = 0; d < t->ndims; d++)
		if (t->dim[d] < 2 || t->dim[d] > 4096)
			return fail(p, -EINVAL, "--dims values must be 2..4096");
	if (t->hosts < 1 || t->hosts > FAB_MAX_PORTS - 1)
		return fail(p, -EINVAL, "--hosts-per-switch must be 1..%u",
			    FAB_MAX_PORTS - 1);
	if (t->parallel < 1 || t->parallel > FAB_MAX_PORTS)
		return fail(p, -EINVAL, "--parallel must be 1..%u",
			    FAB_MAX_PORTS);
	return 0;
}

static int torus_name(struct plan *p, const struct gen_torus *t,
		      uint32_t idx)
{
	char buf[40];
	unsigned int d;
	size_t len = 2;

	memcpy(buf, "sw", 3);
	for (d = 0; d < t->ndims; d++) {
		len += snprintf(buf + len, sizeof(buf) - len, "-%u",
				idx % t->dim[d]);
		idx /= t->dim[d];
	}
	return add_sw(p, "%s", buf);
}

int gen_torus(const struct gen_torus *t, const struct gen_opts *o,
	      struct fabric **out, char *err, size_t errlen)
{
	unsigned int d, h, i, k, c, P = t->parallel;
	uint32_t s, n = 1, stride, nb;
	struct plan p;
	int ret;

	*out = NULL;
	plan_init(&p, err, errlen);
	ret = check_opts(&p, o);
	if (!ret)
		ret = check_torus(&p, t);
	if (ret)
		return ret;
	for (d = 0; d < t->ndims; d++) {
		if ((uint64_t)n * t->dim[d] > GEN_MAX_NODES)
			return plan_size(&p, (uint64_t)n * t->dim[d], 0);
		n *= t->dim[d];
	}
	ret = plan_size(&p, n, (uint64_t)n * t->hosts * o->hcas);
	if (ret)
		return ret;
	for (s = 0; !ret && s < n; s++)
		ret = torus_name(&p, t, s) < 0;
	for (s = 0; !ret && s < n; s++)
		for (h = 0; !ret && h < t->hosts; h++)
			for (i = 0; !ret && i < o->hcas; i++)
				ret = add_ca(&p, s * t->hosts + h, i, s,
					     h * o->hcas + i);
	for (s = 0; !ret && s < n; s++) {
		stride = 1;
		for (d = 0; !ret && d < t->ndims; stride *= t->dim[d++]) {
			c = s / stride % t->dim[d];
			if (c + 1 == t->dim[d] && !t->wrap[d])
				continue;
			nb = c + 1 == t->dim[d] ? s - c * stride : s + stride;
			for (k = 0; !ret && k < P; k++)
				ret = add_link(&p, s, KEY_UP + 2 * d * P + k,
					       nb, KEY_UP + (2 * d + 1) * P + k,
					       LK_PLAIN);
		}
	}
	if (ret) {
		plan_free(&p);
		return -ENOMEM;
	}
	return finish(&p, o, NULL, out);
}

/*
 * build() appends the live switches first, in plan order, so their GUIDs
 * rise with the node index and a binary search finds one.
 */
uint32_t gen_torus_switch(const struct fabric *f, const struct gen_torus *t,
			  const unsigned int *coord)
{
	uint64_t idx = 0, stride = 1, guid;
	size_t lo = 0, hi = f->nsw, mid;
	unsigned int d;

	for (d = 0; d < t->ndims; stride *= t->dim[d++]) {
		if (coord[d] >= t->dim[d])
			return FAB_NONE;
		idx += coord[d] * stride;
	}
	guid = GEN_SW_GUID + idx;
	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		if (f->nodes[mid].guid < guid)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < f->nsw && f->nodes[lo].guid == guid ? lo : FAB_NONE;
}

void gen_dragonfly_init(struct gen_dragonfly *d, bool plus)
{
	memset(d, 0, sizeof(*d));
	d->plus = plus;
	d->hosts = plus ? 4 : 2;
	d->switches = 4;
	d->spines = plus ? 4 : 0;
	d->global = 2;
	d->arrangement = GEN_DF_ABSOLUTE;
}

/*
 * Where group gi's global port k leads with g groups of nport global
 * ports each: false when the port stays unused.
 */
static bool df_peer(const struct gen_dragonfly *d, unsigned int g,
		    unsigned int nport, unsigned int gi, unsigned int k,
		    unsigned int *gt, unsigned int *kt)
{
	unsigned int n = g - 1, off = k % n, r = k / n, lim, back;

	lim = r < nport / n ? n : nport % n;
	if (off >= lim)
		return false;
	if (d->arrangement == GEN_DF_ABSOLUTE) {
		*gt = off < gi ? off : off + 1;
		back = gi < *gt ? gi : gi - 1;
	} else {
		*gt = (gi + 1 + off) % g;
		back = g - 2 - off;
	}
	if (back >= lim)
		return false;
	*kt = r * n + back;
	return true;
}

static int check_dragonfly(struct plan *p, const struct gen_dragonfly *d,
			   unsigned int g)
{
	unsigned int a = d->plus ? d->spines : d->switches;

	if (d->hosts < 1 || d->hosts > FAB_MAX_PORTS - 1)
		return fail(p, -EINVAL, "--hosts-per-switch must be 1..%u",
			    FAB_MAX_PORTS - 1);
	if (d->switches < 1 || d->switches > FAB_MAX_PORTS)
		return fail(p, -EINVAL, d->plus ? "--leaves must be 1..%u" :
			    "--switches-per-group must be 1..%u",
			    FAB_MAX_PORTS);
	if (d->plus && (d->spines < 1 || d->spines > FAB_MAX_PORTS))
		return fail(p, -EINVAL, "--spines must be 1..%u",
			    FAB_MAX_PORTS);
	if (d->global < 1 || d->global > FAB_MAX_PORTS)
		return fail(p, -EINVAL, "--global-links must be 1..%u",
			    FAB_MAX_PORTS);
	if (g < 2 || g > a * d->global + 1)
		return fail(p, -EINVAL, "--groups must be 2..%u",
			    a * d->global + 1);
	if (d->arrangement != GEN_DF_ABSOLUTE &&
	    d->arrangement != GEN_DF_RELATIVE)
		return fail(p, -EINVAL,
			    "--arrangement must be absolute or relative");
	if (!frac_ok(d->drop_global) || !frac_ok(d->drop_local))
		return fail(p, -EINVAL,
			    "--drop-global and --drop-local must be in [0, 1)");
	return 0;
}

/* Local cables: all-to-all, or leaf-to-spine for Dragonfly+. */
static int df_local(struct plan *p, const struct gen_dragonfly *d,
		    uint32_t base)
{
	unsigned int i, j;
	int ret = 0;

	for (i = 0; !ret && i < d->switches; i++) {
		if (d->plus) {
			for (j = 0; !ret && j < d->spines; j++)
				ret = add_link(p, base + i, KEY_UP + j,
					       base + d->switches + j, i,
					       LK_LOCAL);
			continue;
		}
		for (j = i + 1; !ret && j < d->switches; j++)
			ret = add_link(p, base + i, KEY_UP + j, base + j,
				       KEY_UP + i, LK_LOCAL);
	}
	return ret;
}

int gen_dragonfly(const struct gen_dragonfly *d, const struct gen_opts *o,
		  struct fabric **out, char *err, size_t errlen)
{
	unsigned int a = d->plus ? d->spines : d->switches, h = d->global;
	unsigned int g, gi, gt, k, kt, i, x, y;
	unsigned int per = d->switches + (d->plus ? d->spines : 0);
	unsigned int gsw = d->plus ? d->switches : 0;	/* 1st global one */
	double cls[LK_NCLS] = { 0, d->drop_local, d->drop_global };
	struct plan p;
	uint32_t host = 0;
	int ret;

	*out = NULL;
	g = d->groups ? d->groups : a * h + 1;
	plan_init(&p, err, errlen);
	ret = check_opts(&p, o);
	if (!ret)
		ret = check_dragonfly(&p, d, g);
	if (!ret)
		ret = plan_size(&p, (uint64_t)g * per, (uint64_t)g *
				d->switches * d->hosts * o->hcas);
	if (ret)
		return ret;
	for (gi = 0; !ret && gi < g; gi++)
		for (i = 0; !ret && i < per; i++) {
			if (!d->plus)
				ret = add_sw(&p, "g%u-sw%u", gi, i) < 0;
			else if (i < d->switches)
				ret = add_sw(&p, "g%u-leaf%u", gi, i) < 0;
			else
				ret = add_sw(&p, "g%u-spine%u", gi,
					     i - d->switches) < 0;
		}
	for (gi = 0; !ret && gi < g; gi++)
		for (i = 0; !ret && i < d->switches; i++)
			for (x = 0; !ret && x < d->hosts; x++, host++)
				for (y = 0; !ret && y < o->hcas; y++)
					ret = add_ca(&p, host, y, gi * per + i,
						     x * o->hcas + y);
	for (gi = 0; !ret && gi < g; gi++) {
		ret = df_local(&p, d, gi * per);
		for (k = 0; !ret && k < a * h; k++) {
			if (!df_peer(d, g, a * h, gi, k, &gt, &kt) || gt < gi)
				continue;
			ret = add_link(&p, gi * per + gsw + k / h,
				       KEY_GLOBAL + k % h,
				       gt * per + gsw + kt / h,
				       KEY_GLOBAL + kt % h, LK_GLOBAL);
		}
	}
	if (ret) {
		plan_free(&p);
		return -ENOMEM;
	}
	return finish(&p, o, cls, out);
}
