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

/* Offline paths: the net file has no MTU, and 4096 is what IB allows. */
#define VIEW_DEFAULT_MTU 4096

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

void pool_view_free(struct pool_view *v)
{
	if (!v)
		return;
	rt_tables_release(&v->rt);
	fab_free(v->fab);
	free(v->port_node);
	free(v->alloc);
	free(v->meas);
	free(v);
}

/* First cabled port of CA node n, or 0. */
static unsigned int cabled_port(const struct fabric *f, uint32_t n)
{
	unsigned int p;

	for (p = 1; p <= f->nodes[n].nports; p++)
		if (fab_port(f, n, p)->peer != FAB_NONE)
			return p;
	return 0;
}

long pool_view_hca(const struct pool_view *v, const struct pool_hca *h)
{
	const struct fabric *f = v->fab;
	unsigned int p;
	size_t n;

	for (n = 0; n < f->nnodes; n++) {
		if (fab_is_sw(f, n))
			continue;
		if (h->desc) {
			if (strcmp(f->nodes[n].desc, h->desc))
				continue;
			p = cabled_port(f, n);
			return p ? (long)(f->nodes[n].port0 + p) : -ENOLINK;
		}
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
		p = cabled_port(f, n);
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

void pool_view_cost(const struct pool_view *v, const struct pool_path *p,
		    double *max, double *sum)
{
	unsigned int i;
	double x;

	*max = 0;
	*sum = 0;
	for (i = 0; i < p->n; i++) {
		x = v->alloc[p->link[i]] + v->meas[p->link[i]];
		if (x > *max)
			*max = x;
		*sum += x;
	}
}

int pool_view_pair(const struct pool_view *v, uint32_t src, uint32_t dst,
		   uint32_t dlid, struct pool_path *fwd,
		   struct pool_path *rev)
{
	const struct fab_port *s = &v->fab->ports[src];
	const struct fab_port *d = &v->fab->ports[dst];
	uint32_t off = dlid - d->lid;
	int ret;

	if (dlid < d->lid || off >= (1u << d->lmc))
		return -EINVAL;
	ret = pool_view_walk(v, src, dlid, fwd);
	if (ret)
		return ret;
	return pool_view_walk(v, dst, s->lid + (off & ((1u << s->lmc) - 1)),
			      rev);
}

int pool_view_choose(const struct pool_view *v, uint32_t src, uint32_t dst,
		     struct pool_path *fwd, struct pool_path *rev)
{
	const struct fab_port *d = &v->fab->ports[dst];
	struct pool_path f, r;
	double bmax = 0, bsum = 0, m1, s1, m2, s2;
	bool found = false;
	uint32_t i;

	for (i = 0; i < (1u << d->lmc); i++) {
		if (pool_view_pair(v, src, dst, d->lid + i, &f, &r))
			continue;
		pool_view_cost(v, &f, &m1, &s1);
		pool_view_cost(v, &r, &m2, &s2);
		if (m2 > m1)
			m1 = m2;
		s1 += s2;
		/* Strictly better only: the lowest LID wins ties. */
		if (!found || m1 < bmax || (m1 == bmax && s1 < bsum)) {
			found = true;
			bmax = m1;
			bsum = s1;
			*fwd = f;
			*rev = r;
		}
	}
	return found ? 0 : -EHOSTUNREACH;
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
