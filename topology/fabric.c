// SPDX-License-Identifier: MIT
/* The fabric graph: growable node and port arrays, links, LID assignment. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "fabric.h"
#include "textio.h"

struct fabric *fab_new(void)
{
	return calloc(1, sizeof(struct fabric));
}

void fab_free(struct fabric *f)
{
	size_t i;

	if (!f)
		return;
	for (i = 0; i < f->nnodes; i++)
		free(f->nodes[i].desc);
	free(f->nodes);
	free(f->ports);
	free(f);
}


int fab_add_node(struct fabric *f, enum fab_type type, unsigned int nports,
		 uint64_t guid, const char *desc)
{
	struct fab_node *nd;
	size_t i;
	int ret;

	if (nports < 1 || nports > FAB_MAX_PORTS ||
	    (type != FAB_SW && type != FAB_CA))
		return -EINVAL;
	if (f->nnodes >= FAB_NONE)
		return -ERANGE;
	ret = tio_grow((void **)&f->nodes, &f->node_cap, f->nnodes + 1,
		   sizeof(*f->nodes));
	if (!ret)
		ret = tio_grow((void **)&f->ports, &f->port_cap,
			   f->nports + nports + 1, sizeof(*f->ports));
	if (ret)
		return ret;
	nd = &f->nodes[f->nnodes];
	memset(nd, 0, sizeof(*nd));
	nd->desc = strdup(desc ? desc : "");
	if (!nd->desc)
		return -ENOMEM;
	nd->guid = guid;
	nd->sysguid = guid;
	nd->type = type;
	nd->nports = nports;
	nd->port0 = f->nports;
	for (i = 0; i <= nports; i++) {
		struct fab_port *p = &f->ports[f->nports + i];

		memset(p, 0, sizeof(*p));
		p->peer = FAB_NONE;
	}
	/* ibsim's convention: a switch's port GUID is its node GUID. */
	if (type == FAB_SW)
		f->ports[f->nports].guid = guid;
	f->nports += nports + 1;
	if (type == FAB_SW)
		f->nsw++;
	else
		f->nca++;
	return f->nnodes++;
}

static bool port_ok(const struct fabric *f, uint32_t n, unsigned int p)
{
	return n < f->nnodes && p >= 1 && p <= f->nodes[n].nports;
}

int fab_link(struct fabric *f, uint32_t a, unsigned int pa, uint32_t b,
	     unsigned int pb, unsigned int width, unsigned int speed)
{
	struct fab_port *x, *y;

	if (!port_ok(f, a, pa) || !port_ok(f, b, pb) || (a == b && pa == pb))
		return -EINVAL;
	x = fab_port(f, a, pa);
	y = fab_port(f, b, pb);
	if (x->peer == b && x->peer_port == pb && y->peer == a &&
	    y->peer_port == pa)
		return 0;
	if (x->peer != FAB_NONE || y->peer != FAB_NONE)
		return -EBUSY;
	x->peer = b;
	x->peer_port = pb;
	y->peer = a;
	y->peer_port = pa;
	x->width = y->width = width;
	x->speed = y->speed = speed;
	return 0;
}

int fab_unlink(struct fabric *f, uint32_t a, unsigned int pa)
{
	struct fab_port *x, *y;

	if (!port_ok(f, a, pa))
		return -EINVAL;
	x = fab_port(f, a, pa);
	if (x->peer == FAB_NONE)
		return -ENOENT;
	y = fab_port(f, x->peer, x->peer_port);
	y->peer = FAB_NONE;
	y->peer_port = 0;
	x->peer = FAB_NONE;
	x->peer_port = 0;
	return 0;
}

static int take_lid(unsigned int *next, unsigned int lmc, unsigned int max,
		    uint32_t *lid)
{
	unsigned int span = 1u << lmc;
	unsigned int l = (*next + span - 1) & ~(span - 1);

	if (l + span - 1 > max)
		return -ERANGE;
	*lid = l;
	*next = l + span;
	return 0;
}

int fab_assign_lids(struct fabric *f, unsigned int lmc)
{
	return fab_assign_lids_upto(f, lmc, FAB_MAX_LID);
}

int fab_assign_lids_upto(struct fabric *f, unsigned int lmc,
			 unsigned int max)
{
	unsigned int next = fab_max_lid(f) + 1;
	size_t n;
	unsigned int p;
	int ret;

	if (lmc > 7 || max > FAB_MAX_LID_EXT)
		return -EINVAL;
	for (n = 0; n < f->nnodes; n++) {
		struct fab_node *nd = &f->nodes[n];

		if (nd->type == FAB_SW) {
			struct fab_port *p0 = fab_port(f, n, 0);

			if (!p0->lid &&
			    (ret = take_lid(&next, 0, max, &p0->lid)))
				return ret;
			continue;
		}
		for (p = 1; p <= nd->nports; p++) {
			struct fab_port *cp = fab_port(f, n, p);

			if (cp->peer == FAB_NONE || cp->lid)
				continue;
			if ((ret = take_lid(&next, lmc, max, &cp->lid)))
				return ret;
			cp->lmc = lmc;
		}
	}
	return 0;
}

unsigned int fab_max_lid(const struct fabric *f)
{
	unsigned int max = 0, top;
	size_t i;

	for (i = 0; i < f->nports; i++) {
		const struct fab_port *p = &f->ports[i];

		if (!p->lid)
			continue;
		top = p->lid + (1u << p->lmc) - 1;
		if (top > max)
			max = top;
	}
	return max;
}

size_t fab_sw_links(const struct fabric *f)
{
	size_t n, cnt = 0;
	unsigned int p;

	for (n = 0; n < f->nnodes; n++) {
		if (!fab_is_sw(f, n))
			continue;
		for (p = 1; p <= f->nodes[n].nports; p++) {
			const struct fab_port *x = fab_port(f, n, p);

			if (x->peer != FAB_NONE && fab_is_sw(f, x->peer) &&
			    (x->peer > n || (x->peer == n && x->peer_port > p)))
				cnt++;
		}
	}
	return cnt;
}

size_t fab_host_name(const struct fabric *f, uint32_t n, char *buf,
		     size_t len)
{
	const char *d = f->nodes[n].desc;
	size_t l = strcspn(d, " \t");

	if (!len)
		return l;
	if (l >= len)
		l = len - 1;
	memcpy(buf, d, l);
	buf[l] = '\0';
	return l;
}

bool fab_same(const struct fabric *a, const struct fabric *b)
{
	const struct fab_node *x, *y;
	const struct fab_port *p, *q;
	size_t i;

	if (a->nnodes != b->nnodes || a->nports != b->nports)
		return false;
	for (i = 0; i < a->nnodes; i++) {
		x = &a->nodes[i];
		y = &b->nodes[i];
		if (x->guid != y->guid || x->sysguid != y->sysguid ||
		    x->type != y->type ||
		    x->nports != y->nports || x->port0 != y->port0 ||
		    strcmp(x->desc ? x->desc : "", y->desc ? y->desc : ""))
			return false;
	}
	for (i = 0; i < a->nports; i++) {
		p = &a->ports[i];
		q = &b->ports[i];
		if (p->guid != q->guid || p->peer != q->peer ||
		    p->peer_port != q->peer_port || p->lid != q->lid ||
		    p->lmc != q->lmc)
			return false;
	}
	return true;
}
