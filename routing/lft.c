// SPDX-License-Identifier: MIT
/* LFT storage and the LID owner map shared by engines and the verifier. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "lft.h"

static void own_lids(struct rt_tables *t, uint32_t n, unsigned int p)
{
	const struct fab_port *fp = fab_port(t->fab, n, p);
	unsigned int i, span = 1u << fp->lmc;

	for (i = 0; i < span && fp->lid + i <= t->top; i++) {
		t->lid_node[fp->lid + i] = n;
		t->lid_port[fp->lid + i] = p;
	}
}

/*
 * Tables of a big fabric are hundreds of MiB that are written once; huge
 * pages cut the page-fault cost, which dominates on virtual machines.
 */
static void *big_alloc(size_t len)
{
	const size_t huge = 2u << 20;
	void *p;

	if (len < 2 * huge)
		return malloc(len ? len : 1);
	if (posix_memalign(&p, huge, (len + huge - 1) & ~(huge - 1)))
		return NULL;
	madvise(p, (len + huge - 1) & ~(huge - 1), MADV_HUGEPAGE);
	return p;
}

int rt_tables_init(struct rt_tables *t, const struct fabric *f)
{
	size_t n, rows;
	unsigned int p;
	uint32_t s = 0;

	memset(t, 0, sizeof(*t));
	t->fab = f;
	t->nsw = f->nsw;
	t->top = fab_max_lid(f);
	rows = (size_t)t->nsw * (t->top + 1);
	t->sw_node = calloc(t->nsw ? t->nsw : 1, sizeof(*t->sw_node));
	t->node_sw = calloc(f->nnodes ? f->nnodes : 1, sizeof(*t->node_sw));
	t->lft = big_alloc(rows);
	t->lid_node = malloc((t->top + 1) * sizeof(*t->lid_node));
	t->lid_port = calloc(t->top + 1, sizeof(*t->lid_port));
	if (!t->sw_node || !t->node_sw || !t->lft || !t->lid_node ||
	    !t->lid_port) {
		rt_tables_release(t);
		return -ENOMEM;
	}
	memset(t->lft, RT_NO_PATH, rows);
	for (p = 0; p <= t->top; p++)
		t->lid_node[p] = FAB_NONE;
	for (n = 0; n < f->nnodes; n++) {
		if (!fab_is_sw(f, n)) {
			t->node_sw[n] = FAB_NONE;
			for (p = 1; p <= f->nodes[n].nports; p++)
				if (fab_port(f, n, p)->lid)
					own_lids(t, n, p);
			continue;
		}
		t->node_sw[n] = s;
		t->sw_node[s++] = n;
		if (fab_port(f, n, 0)->lid)
			own_lids(t, n, 0);
	}
	return 0;
}

void rt_tables_release(struct rt_tables *t)
{
	if (t->own_vl && t->own_vl->release)
		t->own_vl->release(t->own_vl);
	free(t->sw_node);
	free(t->node_sw);
	free(t->lft);
	free(t->lid_node);
	free(t->lid_port);
	memset(t, 0, sizeof(*t));
}

void rt_tables_set_local(struct rt_tables *t)
{
	const struct fabric *f = t->fab;
	unsigned int lid;

	for (lid = 1; lid <= t->top; lid++) {
		uint32_t n = t->lid_node[lid];
		const struct fab_port *cp;

		if (n == FAB_NONE)
			continue;
		if (fab_is_sw(f, n)) {
			rt_lft(t, t->node_sw[n])[lid] = 0;
			continue;
		}
		cp = fab_port(f, n, t->lid_port[lid]);
		if (cp->peer != FAB_NONE && fab_is_sw(f, cp->peer))
			rt_lft(t, t->node_sw[cp->peer])[lid] = cp->peer_port;
	}
}

void rt_tables_reset(struct rt_tables *t)
{
	memset(t->lft, RT_NO_PATH, (size_t)t->nsw * (t->top + 1));
	rt_tables_set_local(t);
	if (t->own_vl && t->own_vl->release)
		t->own_vl->release(t->own_vl);
	t->vl = t->own_vl = NULL;
}

void rt_adj_release(struct rt_adj *a)
{
	free(a->off);
	free(a->sw);
	free(a->port);
	free(a->rport);
	memset(a, 0, sizeof(*a));
}

int rt_adj_build(struct rt_adj *a, const struct rt_tables *t)
{
	const struct fabric *f = t->fab;
	uint32_t s, k = 0, pass;
	unsigned int p;

	memset(a, 0, sizeof(*a));
	a->off = calloc(t->nsw + 1, sizeof(*a->off));
	if (!a->off)
		return -ENOMEM;
	for (pass = 0; pass < 2; pass++) {
		for (k = 0, s = 0; s < t->nsw; s++) {
			uint32_t n = t->sw_node[s];

			for (p = 1; p <= f->nodes[n].nports; p++) {
				const struct fab_port *fp = fab_port(f, n, p);

				if (fp->peer == FAB_NONE ||
				    !fab_is_sw(f, fp->peer))
					continue;
				if (pass) {
					a->sw[k] = t->node_sw[fp->peer];
					a->port[k] = p;
					a->rport[k] = fp->peer_port;
				}
				k++;
			}
			a->off[s + 1] = k;
		}
		if (pass)
			break;
		a->sw = malloc((k + 1) * sizeof(*a->sw));
		a->port = malloc(k + 1);
		a->rport = malloc(k + 1);
		if (!a->sw || !a->port || !a->rport) {
			rt_adj_release(a);
			return -ENOMEM;
		}
	}
	return 0;
}

unsigned int rt_route_links(const struct rt_tables *t, uint32_t s,
			    unsigned int lid, uint32_t *out, unsigned int max)
{
	const struct fabric *f = t->fab;
	const struct fab_port *fp;
	unsigned int n = 0;
	uint32_t hops, node;
	uint8_t p;

	for (hops = 0; hops < t->nsw && n < max; hops++) {
		node = t->sw_node[s];
		p = rt_lft(t, s)[lid];
		if (p == 0 || p == RT_NO_PATH || p > f->nodes[node].nports)
			break;
		fp = fab_port(f, node, p);
		if (fp->peer == FAB_NONE || !fab_is_sw(f, fp->peer))
			break;
		out[n++] = f->nodes[node].port0 + p;
		s = t->node_sw[fp->peer];
	}
	return n;
}

uint32_t rt_port_switch(const struct rt_tables *t, uint32_t n,
			unsigned int p)
{
	const struct fab_port *fp = fab_port(t->fab, n, p);

	if (fp->peer == FAB_NONE || !fab_is_sw(t->fab, fp->peer))
		return FAB_NONE;
	return t->node_sw[fp->peer];
}

uint32_t rt_lid_switch(const struct rt_tables *t, unsigned int lid)
{
	uint32_t n = t->lid_node[lid];

	if (n == FAB_NONE || fab_is_sw(t->fab, n))
		return n == FAB_NONE ? FAB_NONE : t->node_sw[n];
	return rt_port_switch(t, n, t->lid_port[lid]);
}

int rt_peer_switches(const struct rt_tables *t, uint32_t **out)
{
	const struct fabric *f = t->fab;
	uint32_t s, n, *nbr = malloc((f->nports + 1) * sizeof(*nbr));
	unsigned int p;

	if (!nbr)
		return -ENOMEM;
	for (s = 0; s <= f->nports; s++)
		nbr[s] = FAB_NONE;
	for (s = 0; s < t->nsw; s++) {
		n = t->sw_node[s];
		for (p = 1; p <= f->nodes[n].nports; p++)
			nbr[f->nodes[n].port0 + p] = rt_port_switch(t, n, p);
	}
	*out = nbr;
	return 0;
}

int rt_lids_by_switch(const struct rt_tables *t, uint32_t **off,
		      uint32_t **lids)
{
	uint32_t *o = calloc(t->nsw + 1, sizeof(*o));
	uint32_t *cur = calloc(t->nsw + 1, sizeof(*cur));
	uint32_t *l = malloc((t->top + 1) * sizeof(*l));
	unsigned int lid;
	uint32_t s;

	if (!o || !cur || !l) {
		free(o);
		free(cur);
		free(l);
		return -ENOMEM;
	}
	for (lid = 1; lid <= t->top; lid++)
		if ((s = rt_lid_switch(t, lid)) != FAB_NONE)
			o[s + 1]++;
	for (s = 0; s < t->nsw; s++) {
		o[s + 1] += o[s];
		cur[s] = o[s];
	}
	for (lid = 1; lid <= t->top; lid++)
		if ((s = rt_lid_switch(t, lid)) != FAB_NONE)
			l[cur[s]++] = lid;
	free(cur);
	*off = o;
	*lids = l;
	return 0;
}

bool rt_lid_is_ca(const struct rt_tables *t, unsigned int lid)
{
	return t->lid_node[lid] != FAB_NONE &&
	       !fab_is_sw(t->fab, t->lid_node[lid]);
}

bool rt_node_has_ca(const struct fabric *f, uint32_t n)
{
	unsigned int p;

	for (p = 1; p <= f->nodes[n].nports; p++) {
		const struct fab_port *fp = fab_port(f, n, p);

		if (fp->peer != FAB_NONE && !fab_is_sw(f, fp->peer))
			return true;
	}
	return false;
}

/* LFT columns are filled FILL_BLK LIDs at a time from a copy in cache. */
#define FILL_BLK 64

struct fill {
	struct rt_tables *t;
	struct rt_adj adj;
	bool *leaf;		/* switch has hosts */
	uint32_t *q;
	uint8_t *buf;		/* nsw rows of FILL_BLK entries */
};

static int fill_init(struct fill *w, struct rt_tables *t)
{
	uint32_t s;
	int ret;

	memset(w, 0, sizeof(*w));
	w->t = t;
	ret = rt_adj_build(&w->adj, t);
	if (ret)
		return ret;
	w->leaf = malloc(t->nsw + 1);
	w->q = malloc((t->nsw + 1) * sizeof(*w->q));
	w->buf = malloc((size_t)(t->nsw + 1) * FILL_BLK);
	if (!w->leaf || !w->q || !w->buf)
		return -ENOMEM;
	for (s = 0; s < t->nsw; s++)
		w->leaf[s] = rt_node_has_ca(t->fab, t->sw_node[s]);
	return 0;
}

static void fill_release(struct fill *w)
{
	rt_adj_release(&w->adj);
	free(w->leaf);
	free(w->q);
	free(w->buf);
}

/*
 * Column c of the block, breadth first from the switches that route it.
 * A switch with hosts keeps a missing route to a CA LID: its hosts' data
 * would take it, and the engine's connectivity check must see that.
 */
static long fill_column(struct fill *w, unsigned int c, bool ca)
{
	/* Locals: stores through buf may alias anything reached via w. */
	const uint32_t *off = w->adj.off, *nb = w->adj.sw;
	const uint8_t *rport = w->adj.rport;
	const bool *leaf = w->leaf;
	uint8_t *col = w->buf + c;
	uint32_t *q = w->q;
	uint32_t head = 0, tail = 0, s, k, nsw = w->t->nsw;
	long filled = 0;

	for (s = 0; s < nsw; s++)
		if (col[(size_t)s * FILL_BLK] != RT_NO_PATH)
			q[tail++] = s;
	if (tail == nsw || !tail)
		return 0;
	while (head < tail) {
		uint32_t r = q[head++];

		for (k = off[r]; k < off[r + 1]; k++) {
			uint32_t x = nb[k];
			uint8_t *e = &col[(size_t)x * FILL_BLK];

			if (*e != RT_NO_PATH || (ca && leaf[x]))
				continue;
			*e = rport[k];
			q[tail++] = x;
			filled++;
		}
	}
	return filled;
}

long rt_fill_unrouted(struct rt_tables *t, const bool *dsw)
{
	unsigned int b, c, n, lid;
	struct fill w;
	long filled = 0, got;
	uint32_t s;
	bool want[FILL_BLK];

	if (fill_init(&w, t)) {
		fill_release(&w);
		return -ENOMEM;
	}
	for (b = 1; b <= t->top; b += FILL_BLK) {
		n = t->top + 1 - b < FILL_BLK ? t->top + 1 - b : FILL_BLK;
		for (got = 0, c = 0; c < n; c++) {
			s = rt_lid_switch(t, b + c);
			want[c] = s != FAB_NONE && (!dsw || dsw[s]);
			got += want[c];
		}
		if (!got)
			continue;
		for (s = 0; s < t->nsw; s++)
			memcpy(w.buf + (size_t)s * FILL_BLK, rt_lft(t, s) + b, n);
		for (got = 0, c = 0; c < n; c++) {
			lid = b + c;
			if (want[c])
				got += fill_column(&w, c,
						   rt_lid_is_ca(t, lid));
		}
		if (!got)
			continue;
		filled += got;
		for (s = 0; s < t->nsw; s++)
			memcpy(rt_lft(t, s) + b, w.buf + (size_t)s * FILL_BLK, n);
	}
	fill_release(&w);
	return filled;
}

uint64_t rt_tables_churn(const struct rt_tables *a, const struct rt_tables *b)
{
	unsigned int top = a->top > b->top ? a->top : b->top;
	uint64_t diff = 0;
	uint32_t s, m;
	unsigned int l;

	for (s = 0; s < a->nsw; s++) {
		const uint8_t *ra = rt_lft(a, s), *rb = NULL;
		uint64_t guid = a->fab->nodes[a->sw_node[s]].guid;

		for (m = 0; m < b->nsw; m++)
			if (b->fab->nodes[b->sw_node[m]].guid == guid)
				break;
		if (m < b->nsw)
			rb = rt_lft(b, m);
		for (l = 1; l <= top; l++) {
			uint8_t x = l <= a->top ? ra[l] : RT_NO_PATH;
			uint8_t y = rb && l <= b->top ? rb[l] : RT_NO_PATH;

			diff += x != y;
		}
	}
	return diff;
}
