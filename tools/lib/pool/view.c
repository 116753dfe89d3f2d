// SPDX-License-Identifier: MIT
/*
 * The fabric view: LFT walks, the DLID choice over a port's LMC LIDs and
 * the per-link loads the choice weighs.  The offline source routes a net
 * file with the routing core, exactly as the plugin would route it.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "view.h"
#include "topology/netfile.h"
#include "topology/textio.h"

/* Offline paths: the net file has no MTU, and 4096 is what IB allows. */
#define VIEW_DEFAULT_MTU 4096

/*
 * The walk cache: rows of walks that share one end, from one source port
 * to any DLID (an allocation's forward paths, its client the source) or
 * from any source port to one DLID (the reply paths, to the client), so
 * that asking about every GPU port reads one row in order.  A row holds
 * per other end an offset into its arena of paths (n, then n links);
 * the least recently used of WALK_ROWS rows makes room for a new one.
 */
#define WALK_ROWS 64
#define WALK_TO 0x80000000u	/* key of a row to one DLID */
#define WALK_NEW 0u		/* at[] of an end not walked yet */
#define WALK_UNREACH UINT32_MAX	/* arena n of a cached -EHOSTUNREACH */
#define REACH_ROWS 32		/* clients whose reachable ports are kept */

/* A path's cost as one number: busiest link, then (a thousandth) the sum. */
#define VIEW_SUM_WEIGHT 1e-3

struct walk_row {
	uint32_t key;		/* source port, or DLID | WALK_TO */
	bool used;
	uint64_t stamp;		/* last use, for eviction */
	uint32_t *slot;		/* per other end: 1 + arena offset */
	size_t nslots;
	uint32_t *arena;
	size_t n, cap;
};

/*
 * Whether pool_view_choose() finds a DLID from one source port, per
 * destination port, and whether the paths' end links are known (both
 * ports own their LIDs): as fixed as the walks, and one byte to read
 * where the walks are four rows.
 */
enum { REACH_NEW, REACH_YES, REACH_ENDS, REACH_NO };

struct reach_row {
	uint32_t src;
	bool used;
	uint64_t stamp;
	uint8_t *state;		/* per port, enum above */
};

struct pool_walk_cache {
	struct walk_row row[WALK_ROWS];
	uint64_t clock;
	uint8_t hint[256];	/* by key hash: where its row was last */
	struct reach_row reach[REACH_ROWS];
	struct reach_row *reach_last;	/* asked last, asked first */
};

_Static_assert(WALK_ROWS <= 256, "a hint names a row in a byte");

/* A view of f (owned from here, also on error), without routing yet. */
static struct pool_view *view_new(struct fabric *f, const char *source,
				  char *err, size_t len)
{
	struct pool_view *v = calloc(1, sizeof(*v));
	unsigned int p;
	size_t n;

	if (!v) {
		fab_free(f);
		snprintf(err, len, "out of memory");
		return NULL;
	}
	v->fab = f;
	v->subnet_prefix = POOL_GID_PREFIX;
	snprintf(v->source, sizeof(v->source), "%s", source);
	v->port_node = calloc(f->nports + 1, sizeof(*v->port_node));
	v->alloc = calloc(f->nports + 1, sizeof(*v->alloc));
	v->meas = calloc(f->nports + 1, sizeof(*v->meas));
	if (!v->port_node || !v->alloc || !v->meas) {
		snprintf(err, len, "out of memory");
		pool_view_free(v);
		return NULL;
	}
	for (n = 0; n < f->nnodes; n++)
		for (p = 0; p <= f->nodes[n].nports; p++)
			v->port_node[f->nodes[n].port0 + p] = n;
	return v;
}

int pool_view_build(struct fabric *f, unsigned int lmc, enum rt_engine_id e,
		    const char *source, struct pool_view **out, char *err,
		    size_t len)
{
	struct pool_view *v;
	int ret;

	*out = NULL;
	v = view_new(f, source, err, len);
	if (!v)
		return -ENOMEM;
	v->lmc = lmc;
	ret = fab_assign_lids(f, lmc);
	if (ret) {
		snprintf(err, len, "%s: LIDs with LMC %u: %s", source, lmc,
			 strerror(-ret));
		goto out_free;
	}
	ret = rt_route(f, e, NULL, &v->rt, &v->route);
	if (ret) {
		snprintf(err, len, "%s: routing (%s) failed: %s%s%s", source,
			 rt_engine_name(e), strerror(-ret),
			 *v->route.detail ? ": " : "", v->route.detail);
		goto out_free;
	}
	*out = v;
	return 0;
out_free:
	pool_view_free(v);
	return ret;
}

int pool_view_offline(const char *net, unsigned int lmc, enum rt_engine_id e,
		      struct pool_view **out, char *err, size_t len)
{
	struct fabric *f;
	char src[160];
	int ret;

	*out = NULL;
	ret = fab_load_net(net, &f, err, len);
	if (ret)
		return ret;
	snprintf(src, sizeof(src), "offline %s", net);
	return pool_view_build(f, lmc, e, src, out, err, len);
}

int pool_view_adopt(struct fabric *f, const struct rt_tables *t,
		    const char *source, struct pool_view **out, char *err,
		    size_t len)
{
	struct pool_view *v;
	unsigned int p;
	size_t n;
	int ret;

	*out = NULL;
	v = view_new(f, source, err, len);
	if (!v)
		return -ENOMEM;
	ret = rt_tables_init(&v->rt, f);
	if (ret) {
		snprintf(err, len, "out of memory");
		goto out_free;
	}
	if (v->rt.nsw != t->nsw || v->rt.top != t->top) {
		snprintf(err, len, "%s: tables of another fabric (%u switches, top LID %u; the fabric has %u, %u)",
			 source, t->nsw, t->top, v->rt.nsw, v->rt.top);
		ret = -EINVAL;
		goto out_free;
	}
	memcpy(v->rt.lft, t->lft, (size_t)t->nsw * (t->top + 1));
	for (n = 0; n < f->nnodes; n++)
		for (p = 1; p <= f->nodes[n].nports && !fab_is_sw(f, n); p++)
			if (fab_port(f, n, p)->lmc > v->lmc)
				v->lmc = fab_port(f, n, p)->lmc;
	snprintf(v->route.topology, sizeof(v->route.topology), "live");
	snprintf(v->route.engine, sizeof(v->route.engine), "the SM's");
	*out = v;
	return 0;
out_free:
	pool_view_free(v);
	return ret;
}

static void walks_free(struct pool_walk_cache *c)
{
	unsigned int i;

	if (!c)
		return;
	for (i = 0; i < WALK_ROWS; i++) {
		free(c->row[i].slot);
		free(c->row[i].arena);
	}
	for (i = 0; i < REACH_ROWS; i++)
		free(c->reach[i].state);
	free(c);
}

void pool_view_free(struct pool_view *v)
{
	if (!v)
		return;
	walks_free(v->walks);
	rt_tables_release(&v->rt);
	fab_free(v->fab);
	free(v->port_node);
	free(v->alloc);
	free(v->meas);
	free(v);
}

/* The GUID a CA is known by: its cabled port's, else its first port's. */
static uint64_t ca_guid(const struct fabric *f, size_t n)
{
	unsigned int p = fab_cabled_port(f, n);

	return fab_port(f, n, p ? p : 1)->guid;
}

/*
 * By description: one CA must have it (anyone's root can set a
 * NodeDescription), on the port it had before when pinned.
 */
static long hca_by_desc(const struct fabric *f, const char *desc,
			uint64_t *pin, uint64_t seen[2])
{
	size_t n, hit = SIZE_MAX;
	unsigned int p;

	seen[0] = seen[1] = 0;
	for (n = 0; n < f->nnodes; n++) {
		if (fab_is_sw(f, n) || strcmp(f->nodes[n].desc, desc))
			continue;
		if (hit != SIZE_MAX) {
			seen[1] = ca_guid(f, n);
			return -EEXIST;
		}
		hit = n;
		seen[0] = ca_guid(f, n);
	}
	if (hit == SIZE_MAX)
		return -ENOENT;
	p = fab_cabled_port(f, hit);
	if (!p)
		return -ENOLINK;
	if (pin && *pin && *pin != seen[0])
		return -EPERM;
	if (pin)
		*pin = seen[0];
	return f->nodes[hit].port0 + p;
}

long pool_view_hca(const struct pool_view *v, const struct pool_hca *h,
		   uint64_t *pin, uint64_t seen[2])
{
	const struct fabric *f = v->fab;
	unsigned int p;
	size_t n;

	if (h->desc)
		return hca_by_desc(f, h->desc, pin, seen);
	seen[0] = seen[1] = 0;
	for (n = 0; n < f->nnodes; n++) {
		if (fab_is_sw(f, n))
			continue;
		for (p = 1; p <= f->nodes[n].nports; p++) {
			const struct fab_port *fp = fab_port(f, n, p);

			if (fp->guid != h->guid)
				continue;
			if (fp->peer == FAB_NONE)
				return -ENOLINK;
			return f->nodes[n].port0 + p;
		}
	}
	return -ENOENT;
}

size_t pool_view_host_ports(const struct pool_view *v, const char *name,
			    uint32_t *idx, size_t max)
{
	const struct fabric *f = v->fab;
	char host[128];
	unsigned int p;
	size_t n, k = 0;

	for (n = 0; n < f->nnodes && k < max; n++) {
		if (fab_is_sw(f, n))
			continue;
		fab_host_name(f, n, host, sizeof(host));
		if (strcasecmp(host, name))
			continue;
		p = fab_cabled_port(f, n);
		if (p)
			idx[k++] = f->nodes[n].port0 + p;
	}
	return k;
}

int pool_view_walk(const struct pool_view *v, uint32_t src, uint32_t dlid,
		   struct pool_path *p)
{
	const struct fabric *f = v->fab;
	const struct rt_tables *t = &v->rt;
	const struct fab_port *fp = &f->ports[src];
	uint32_t node, sw, at = src;
	unsigned int out;

	p->dlid = dlid;
	p->n = 0;
	if (dlid == 0 || dlid > t->top || t->lid_node[dlid] == FAB_NONE)
		return -EHOSTUNREACH;
	for (;;) {
		if (p->n == POOL_PATH_MAX || fp->peer == FAB_NONE)
			return -EHOSTUNREACH;
		p->link[p->n++] = at;
		node = fp->peer;
		if (!fab_is_sw(f, node))
			break;
		sw = t->node_sw[node];
		out = rt_lft(t, sw)[dlid];
		if (out == RT_NO_PATH || out == 0 ||
		    out > f->nodes[node].nports)
			return -EHOSTUNREACH;
		at = f->nodes[node].port0 + out;
		fp = &f->ports[at];
	}
	/* Delivered to a CA: it must own dlid on the port it came in by. */
	if (t->lid_node[dlid] != node || t->lid_port[dlid] != fp->peer_port)
		return -EHOSTUNREACH;
	return 0;
}

/* The row of key, emptied for it if it was not cached; NULL: no memory. */
static struct walk_row *walk_row(struct pool_view *v, uint32_t key)
{
	struct pool_walk_cache *c = v->walks;
	struct walk_row *r, *old;
	unsigned int i, h;
	size_t need;

	if (!c && !(c = v->walks = calloc(1, sizeof(*c))))
		return NULL;
	h = (key * 0x9e3779b1u) >> 24;
	r = &c->row[c->hint[h]];
	if (!r->used || r->key != key) {
		old = &c->row[0];
		for (i = 0; i < WALK_ROWS; i++) {
			r = &c->row[i];
			if (r->used && r->key == key)
				break;
			if (!r->used || (old->used && r->stamp < old->stamp))
				old = r;
		}
		if (i == WALK_ROWS) {
			r = old;
			need = key & WALK_TO ? v->fab->nports + 1 :
			      (size_t)v->rt.top + 1;
			if (!r->slot || r->nslots < need) {
				free(r->slot);
				r->slot = malloc(need * sizeof(*r->slot));
				if (!r->slot) {
					r->used = false;
					return NULL;
				}
			}
			memset(r->slot, 0, need * sizeof(*r->slot));
			r->nslots = need;
			r->n = 0;
			r->key = key;
			r->used = true;
		}
		c->hint[h] = r - c->row;
	}
	r->stamp = ++c->clock;
	return r;
}

/* Walk src to dlid into row r at other end k, keeping the answer there. */
static int walk_keep(struct pool_view *v, struct walk_row *r, uint32_t k,
		     uint32_t src, uint32_t dlid, struct pool_path *p)
{
	int ret = pool_view_walk(v, src, dlid, p);
	size_t need = r->n + 1 + (ret ? 0 : p->n);

	if (need > UINT32_MAX - 1 ||
	    tio_grow((void **)&r->arena, &r->cap, need, sizeof(*r->arena)))
		return ret;
	r->slot[k] = r->n + 1;
	r->arena[r->n] = ret ? WALK_UNREACH : p->n;
	if (!ret)
		memcpy(r->arena + r->n + 1, p->link, p->n * sizeof(*p->link));
	r->n = need;
	return ret;
}

/* A walk's links: in the cache or in the caller's path. */
struct links {
	const uint32_t *link;
	unsigned int n;
};

/*
 * pool_view_walk() through the cache: by_dlid keeps it in the row of
 * walks to dlid, else in the row of walks from src.  l points into the
 * row (valid until that row changes: a walk kept in it, or its eviction,
 * which spares the row used last) or into p, which is filled only then.
 */
static int walk_cached(struct pool_view *v, uint32_t src, uint32_t dlid,
		       bool by_dlid, struct pool_path *p, struct links *l)
{
	struct walk_row *r;
	uint32_t k = by_dlid ? src : dlid, *x;
	int ret;

	l->link = p->link;
	if (dlid >= WALK_TO || src > v->fab->nports || dlid > v->rt.top ||
	    !(r = walk_row(v, by_dlid ? dlid | WALK_TO : src))) {
		ret = pool_view_walk(v, src, dlid, p);
	} else if (r->slot[k] == WALK_NEW) {
		ret = walk_keep(v, r, k, src, dlid, p);
	} else {
		x = r->arena + r->slot[k] - 1;
		if (*x == WALK_UNREACH)
			return -EHOSTUNREACH;
		l->link = x + 1;
		l->n = *x;
		return 0;
	}
	l->n = p->n;
	return ret;
}

static inline double link_load(const struct pool_view *v, uint32_t link)
{
	return v->alloc[link] + v->meas[link];
}

static void links_cost(const struct pool_view *v, const struct links *l,
		       double *max, double *sum)
{
	unsigned int i;
	double x;

	*max = 0;
	*sum = 0;
	for (i = 0; i < l->n; i++) {
		x = link_load(v, l->link[i]);
		if (x > *max)
			*max = x;
		*sum += x;
	}
}

void pool_view_cost(const struct pool_view *v, const struct pool_path *p,
		    double *max, double *sum)
{
	struct links l = { p->link, p->n };

	links_cost(v, &l, max, sum);
}

/* The links of both paths of (src, dst, dlid); fwd and rev as scratch. */
static int pair_links(struct pool_view *v, uint32_t src, uint32_t dst,
		      uint32_t dlid, struct pool_path *fwd,
		      struct pool_path *rev, struct links *f, struct links *r)
{
	const struct fab_port *s = &v->fab->ports[src];
	const struct fab_port *d = &v->fab->ports[dst];
	uint32_t off = dlid - d->lid;
	int ret;

	if (dlid < d->lid || off >= (1u << d->lmc))
		return -EINVAL;
	ret = walk_cached(v, src, dlid, false, fwd, f);
	if (ret)
		return ret;
	return walk_cached(v, dst, s->lid + (off & ((1u << s->lmc) - 1)),
			   true, rev, r);
}

static void fill(struct pool_path *p, uint32_t dlid, const struct links *l)
{
	p->dlid = dlid;
	p->n = l->n;
	if (l->link != p->link)
		memcpy(p->link, l->link, l->n * sizeof(*l->link));
}

int pool_view_pair(struct pool_view *v, uint32_t src, uint32_t dst,
		   uint32_t dlid, struct pool_path *fwd,
		   struct pool_path *rev)
{
	const struct fab_port *s = &v->fab->ports[src];
	struct links f, r;
	int ret;

	ret = pair_links(v, src, dst, dlid, fwd, rev, &f, &r);
	if (ret)
		return ret;
	fill(fwd, dlid, &f);
	fill(rev, s->lid + ((dlid - v->fab->ports[dst].lid) &
			    ((1u << s->lmc) - 1)), &r);
	return 0;
}

int pool_view_choose(struct pool_view *v, uint32_t src, uint32_t dst,
		     struct pool_path *fwd, struct pool_path *rev)
{
	const struct fab_port *d = &v->fab->ports[dst];
	double bmax = 0, bsum = 0, m1, s1, m2, s2;
	struct links f, r;
	bool found = false;
	uint32_t i, best = 0;

	for (i = 0; i < (1u << d->lmc); i++) {
		if (pair_links(v, src, dst, d->lid + i, fwd, rev, &f, &r))
			continue;
		links_cost(v, &f, &m1, &s1);
		links_cost(v, &r, &m2, &s2);
		if (m2 > m1)
			m1 = m2;
		s1 += s2;
		/* Strictly better only: the lowest LID wins ties. */
		if (!found || m1 < bmax || (m1 == bmax && s1 < bsum)) {
			found = true;
			bmax = m1;
			bsum = s1;
			best = d->lid + i;
		}
	}
	return found ? pool_view_pair(v, src, dst, best, fwd, rev) :
		       -EHOSTUNREACH;
}

static double pair_cost(double m1, double s1, double m2, double s2)
{
	return (m1 > m2 ? m1 : m2) + VIEW_SUM_WEIGHT * (s1 + s2);
}

double pool_view_pair_cost(const struct pool_view *v,
			   const struct pool_path *fwd,
			   const struct pool_path *rev)
{
	double m1, s1, m2, s2;

	pool_view_cost(v, fwd, &m1, &s1);
	pool_view_cost(v, rev, &m2, &s2);
	return pair_cost(m1, s1, m2, s2);
}

/* The reachability row of source port src; NULL: no memory. */
static uint8_t *reach_row(struct pool_view *v, uint32_t src)
{
	struct pool_walk_cache *c = v->walks;
	struct reach_row *r, *old;
	unsigned int i;

	if (!c && !(c = v->walks = calloc(1, sizeof(*c))))
		return NULL;
	r = c->reach_last;
	if (r && r->used && r->src == src)
		return r->state;
	old = &c->reach[0];
	for (i = 0; i < REACH_ROWS; i++) {
		r = &c->reach[i];
		if (r->used && r->src == src)
			break;
		if (!r->used || (old->used && r->stamp < old->stamp))
			old = r;
	}
	if (i == REACH_ROWS) {
		r = old;
		if (!r->state)
			r->state = malloc(v->fab->nports + 1);
		if (!r->state) {
			r->used = false;
			return NULL;
		}
		memset(r->state, REACH_NEW, v->fab->nports + 1);
		r->src = src;
		r->used = true;
	}
	r->stamp = ++c->clock;
	c->reach_last = r;
	return r->state;
}

/* Port p's LIDs all its own in the routing (where walks to them end). */
static bool owns_lids(const struct pool_view *v, uint32_t p)
{
	const struct fab_port *fp = &v->fab->ports[p];
	uint32_t n = v->port_node[p], i, lid;

	for (i = 0; i < (1u << fp->lmc); i++) {
		lid = fp->lid + i;
		if (lid > v->rt.top || v->rt.lid_node[lid] != n ||
		    v->rt.lid_port[lid] != p - v->fab->nodes[n].port0)
			return false;
	}
	return true;
}

/* reach_row()'s answer for (src, dst), found and kept if not known. */
static uint8_t reaches(struct pool_view *v, uint32_t src, uint32_t dst)
{
	const struct fab_port *d = &v->fab->ports[dst];
	uint8_t *st = src <= v->fab->nports && dst <= v->fab->nports ?
		      reach_row(v, src) : NULL, x;
	struct pool_path fwd, rev;
	struct links f, r;
	uint32_t i;
	bool ok = false;

	if (st && st[dst] != REACH_NEW)
		return st[dst];
	for (i = 0; i < (1u << d->lmc) && !ok; i++)
		ok = !pair_links(v, src, dst, d->lid + i, &fwd, &rev, &f, &r);
	x = !ok ? REACH_NO : owns_lids(v, src) && owns_lids(v, dst) ?
	    REACH_ENDS : REACH_YES;
	if (st)
		st[dst] = x;
	return x;
}

/* Port index of the far end of CA port p's cable. */
static uint32_t far_end(const struct pool_view *v, uint32_t p)
{
	const struct fabric *f = v->fab;

	return fab_port(f, f->ports[p].peer, f->ports[p].peer_port) -
	       f->ports;
}

/*
 * One path's (max, sum) from its first and last link, as links_cost()
 * adds them: the links between count as 0, so the sum is made in the
 * same order and, loads being at least 0, rounds to no more.  A path
 * of one link starts and ends on it.
 */
static void ends_cost(const struct pool_view *v, uint32_t first,
		      uint32_t last, double *max, double *sum)
{
	double x = link_load(v, first);

	*max = x > 0 ? x : 0;
	*sum = 0 + x;
	if (first == last)
		return;
	x = link_load(v, last);
	if (x > *max)
		*max = x;
	*sum += x;
}

int pool_view_bound(struct pool_view *v, uint32_t src, uint32_t dst,
		    double *lb)
{
	uint8_t x = reaches(v, src, dst);
	double m1, s1, m2, s2;

	if (x == REACH_NO)
		return -EHOSTUNREACH;
	*lb = 0;
	if (x != REACH_ENDS)
		return 0;
	ends_cost(v, src, far_end(v, dst), &m1, &s1);
	ends_cost(v, dst, far_end(v, src), &m2, &s2);
	*lb = pair_cost(m1, s1, m2, s2);
	return 0;
}

void pool_view_charge(struct pool_view *v, const struct pool_path *p,
		      double w)
{
	unsigned int i;

	for (i = 0; i < p->n; i++)
		v->alloc[p->link[i]] += w;
}

void pool_view_clear_alloc(struct pool_view *v)
{
	memset(v->alloc, 0, (v->fab->nports + 1) * sizeof(*v->alloc));
}

void pool_view_attr(const struct pool_view *v, uint32_t src,
		    const struct pool_path *p, struct pool_path_attr *a)
{
	const struct fabric *f = v->fab;
	const struct rt_tables *t = &v->rt;
	unsigned int i;
	double r;

	if (v->path_attr &&
	    !v->path_attr(v->path_ctx, f->ports[src].lid, p->dlid, a))
		return;
	if (v->path_attr)
		a->sl = POOL_SL_UNKNOWN;
	else
		a->sl = t->vl ? t->vl->path_sl(t, f->ports[src].lid,
					       p->dlid) : 0;
	a->mtu = VIEW_DEFAULT_MTU;
	a->rate = 0;
	for (i = 0; i < p->n; i++) {
		const struct fab_port *fp = &f->ports[p->link[i]];

		/* width lanes of speed * 100 Mb/s */
		r = fp->width * fp->speed / 10.0;
		if (r > 0 && (a->rate == 0 || r < a->rate))
			a->rate = r;
	}
}

void pool_view_hop(const struct pool_view *v, uint32_t link, char *buf,
		   size_t len)
{
	const struct fabric *f = v->fab;
	uint32_t n = v->port_node[link];

	if (!fab_is_sw(f, n)) {
		snprintf(buf, len, "%s", "");
		return;
	}
	snprintf(buf, len, "0x%016" PRIx64 ":%u", f->nodes[n].guid,
		 link - f->nodes[n].port0);
}

void pool_view_hop_name(const struct pool_view *v, uint32_t link, char *buf,
			size_t len)
{
	const struct fabric *f = v->fab;
	uint32_t n = v->port_node[link];
	const char *d = f->nodes[n].desc;

	if (d && *d)
		snprintf(buf, len, "%s port %u", d, link - f->nodes[n].port0);
	else
		pool_view_hop(v, link, buf, len);
}
