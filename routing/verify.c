// SPDX-License-Identifier: MIT
/*
 * The routing verifier: per destination LID, resolve every switch's fate
 * once (delivered, hole, loop) and derive pair counts, edge forwarding
 * index and channel dependencies from it, never walking all pairs.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "../topology/rng.h"
#include "verify.h"

/* vf_swp.nbr: a switch index, or one of these */
#define NBR_CA 0x80000000u		/* | fabric port index of a CA port */
#define NBR_SELF (UINT32_MAX - 1)	/* port 0 */
#define NBR_DEAD UINT32_MAX		/* unlinked */
#define NO_LIDX 0xff

/* next hop of a switch for one destination: a switch index, or */
#define NX_DELIV UINT32_MAX
#define NX_HOLE (UINT32_MAX - 1)

/* fate of a switch for one destination: below ST_LOOP it is the hop count */
#define ST_UNK UINT32_MAX
#define ST_BUSY (UINT32_MAX - 1)
#define ST_HOLE (UINT32_MAX - 2)
#define ST_LOOP (UINT32_MAX - 3)

#define BLK 512		/* LIDs fetched per pass over the LFT rows */
#define NVL 16
#define NSL 16

/* CDG edges by whose routes add them; a check takes a layer and those before. */
enum { L_DATA, L_MGMT, L_ANSWER, LAYERS };
/* fetch8() reads 8 entries as a word, byte j the j-th */
#define LITTLE (__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__)

struct vf_swp {
	uint32_t nbr;
	uint8_t pport;		/* port number at the peer */
	uint8_t lidx;		/* rank among the switch's switch links */
};

/* A source: a CA port with a LID and a link. */
struct vf_src {
	uint32_t gport;		/* fabric port index */
	uint32_t sw;		/* entry switch, FAB_NONE when cabled to a CA */
	uint32_t peer;		/* fabric port index of the far end */
	uint16_t lid;
	uint8_t lmc;
	uint8_t inport;		/* port of the entry switch */
};

struct vf_dest {
	unsigned int lid;
	uint32_t tgt;		/* vf_swp.nbr that means delivered */
	uint32_t dsw;		/* owner of a switch LID, else FAB_NONE */
	uint32_t gport;		/* owner of a CA LID, else FAB_NONE */
	uint32_t selfsw;	/* entry switch of the owner if a source */
	uint32_t comp;
	bool efi;		/* base LID of a CA port */
};

/*
 * A channel is a directed switch-to-switch link, numbered chbase[s] + lidx
 * of its sending port.  CDG edges are bits (switch, in lidx, out lidx) in
 * one bitmap per (in VL, out VL), allocated when first used.
 */
struct vf_ctx {
	const struct rt_tables *t;
	const struct fabric *f;
	uint32_t nsw;
	uint32_t *swp_off;	/* nsw + 1: first swp entry of each switch */
	struct vf_swp *swp;	/* ports 0..nports of every switch */
	uint32_t nchan;
	uint32_t *chbase;	/* nsw + 1 */
	uint32_t *reverse;	/* channel -> other direction of its cable */
	uint8_t *in_rank;	/* channel -> rank of its far end's port */
	size_t *bmoff;		/* nsw + 1: first CDG bit of each switch */
	size_t bmwords;
	uint32_t ncomp;
	uint32_t *comp;		/* switch -> component of the cabling */
	uint32_t *cmp_off;	/* ncomp + 1, into cmp_sw */
	uint32_t *cmp_sw;	/* switches with sources, by component */
	uint32_t *cmp_src;	/* sources per component */
	uint32_t *all_off;	/* ncomp + 1, into all_sw */
	uint32_t *all_sw;	/* every switch by component: management sources */
	uint32_t nsrc;
	struct vf_src *src;	/* by entry switch, CA-cabled ones last */
	uint32_t *src_off;	/* nsw + 3, into src */
	/* per destination scratch */
	uint8_t *blk;		/* BLK rows of nsw out ports */
	uint32_t *nx, *st, *ord, *stk, *fl;
	uint32_t *out_chan;	/* out channel, valid when nx is a switch */
	uint8_t *mark;
	/* walk state with t->vl: per (switch port, SL) stamp and in VLs */
	uint32_t *vstamp;
	uint16_t *vxmask;
	uint32_t cur;
	unsigned int maxvl;
	bool efi_on;		/* tally the edge forwarding index */
	bool sw_dests;		/* switch LIDs are destinations */
	bool flows;		/* fl[] and out_chan[] wanted: EFI or the CDG */
	/* results */
	uint64_t *efi;
	/* what management routes add (enum layer): switch-sourced and
	 * to switch LIDs, and the switches' answers on the request's SL */
	uint64_t *lbm[LAYERS][NVL][NVL];
	int to;			/* the layer edges now go to */
};

static void *zalloc(size_t n, size_t size)
{
	return calloc(n ? n : 1, size);
}

static uint32_t sw_nports(const struct vf_ctx *c, uint32_t s)
{
	return c->swp_off[s + 1] - c->swp_off[s] - 1;
}

static const struct vf_swp *sw_port(const struct vf_ctx *c, uint32_t s,
				    unsigned int p)
{
	return &c->swp[c->swp_off[s] + p];
}

static uint32_t srcs_at(const struct vf_ctx *c, uint32_t s)
{
	return c->src_off[s + 1] - c->src_off[s];
}

static int setup_ports(struct vf_ctx *c)
{
	const struct fabric *f = c->f;
	const struct rt_tables *t = c->t;
	uint32_t s, n, k;
	unsigned int o;

	c->swp_off = zalloc(c->nsw + 1, sizeof(*c->swp_off));
	c->chbase = zalloc(c->nsw + 1, sizeof(*c->chbase));
	c->bmoff = zalloc(c->nsw + 1, sizeof(*c->bmoff));
	if (!c->swp_off || !c->chbase || !c->bmoff)
		return -ENOMEM;
	for (s = 0; s < c->nsw; s++)
		c->swp_off[s + 1] = c->swp_off[s] +
				    f->nodes[t->sw_node[s]].nports + 1;
	c->swp = zalloc(c->swp_off[c->nsw], sizeof(*c->swp));
	if (!c->swp)
		return -ENOMEM;
	for (s = 0; s < c->nsw; s++) {
		n = t->sw_node[s];
		k = 0;
		for (o = 0; o <= f->nodes[n].nports; o++) {
			struct vf_swp *e = &c->swp[c->swp_off[s] + o];
			const struct fab_port *p = fab_port(f, n, o);

			e->lidx = NO_LIDX;
			e->pport = p->peer_port;
			if (!o)
				e->nbr = NBR_SELF;
			else if (p->peer == FAB_NONE)
				e->nbr = NBR_DEAD;
			else if (!fab_is_sw(f, p->peer))
				e->nbr = NBR_CA | (f->nodes[p->peer].port0 +
						   p->peer_port);
			else {
				e->nbr = t->node_sw[p->peer];
				e->lidx = k++;
			}
		}
		c->chbase[s + 1] = c->chbase[s] + k;
		c->bmoff[s + 1] = c->bmoff[s] + (size_t)k * k;
	}
	c->nchan = c->chbase[c->nsw];
	c->bmwords = (c->bmoff[c->nsw] + 63) / 64;
	c->reverse = zalloc(c->nchan, sizeof(*c->reverse));
	c->in_rank = zalloc(c->nchan, 1);
	c->efi = zalloc(c->nchan, sizeof(*c->efi));
	if (!c->reverse || !c->in_rank || !c->efi)
		return -ENOMEM;
	for (s = 0; s < c->nsw; s++)
		for (o = 1; o <= sw_nports(c, s); o++) {
			const struct vf_swp *e = sw_port(c, s, o);

			if (e->lidx == NO_LIDX)
				continue;
			k = sw_port(c, e->nbr, e->pport)->lidx;
			c->reverse[c->chbase[s] + e->lidx] =
				c->chbase[e->nbr] + k;
			c->in_rank[c->chbase[s] + e->lidx] = k;
		}
	return 0;
}

/* Breadth-first over switch links; the queue is the grouped list. */
static int setup_comps(struct vf_ctx *c)
{
	uint32_t s, u, v, h, q = 0, nc = 0;
	unsigned int o;

	c->comp = zalloc(c->nsw, sizeof(*c->comp));
	c->cmp_off = zalloc(c->nsw + 1, sizeof(*c->cmp_off));
	c->cmp_sw = zalloc(c->nsw, sizeof(*c->cmp_sw));
	if (!c->comp || !c->cmp_off || !c->cmp_sw)
		return -ENOMEM;
	for (s = 0; s < c->nsw; s++)
		c->comp[s] = FAB_NONE;
	for (s = 0; s < c->nsw; s++) {
		if (c->comp[s] != FAB_NONE)
			continue;
		c->cmp_off[nc] = h = q;
		c->comp[s] = nc;
		c->cmp_sw[q++] = s;
		while (h < q) {
			u = c->cmp_sw[h++];
			for (o = 1; o <= sw_nports(c, u); o++) {
				v = sw_port(c, u, o)->nbr;
				if (v < c->nsw && c->comp[v] == FAB_NONE) {
					c->comp[v] = nc;
					c->cmp_sw[q++] = v;
				}
			}
		}
		nc++;
	}
	c->cmp_off[nc] = q;
	c->ncomp = nc;
	c->cmp_src = zalloc(nc, sizeof(*c->cmp_src));
	c->all_off = zalloc(nc + 1, sizeof(*c->all_off));
	c->all_sw = zalloc(c->nsw, sizeof(*c->all_sw));
	if (!c->cmp_src || !c->all_off || !c->all_sw)
		return -ENOMEM;
	memcpy(c->all_off, c->cmp_off, (nc + 1) * sizeof(*c->all_off));
	memcpy(c->all_sw, c->cmp_sw, c->nsw * sizeof(*c->all_sw));
	return 0;
}

static bool is_src(const struct fabric *f, uint32_t n, unsigned int p)
{
	const struct fab_port *fp = fab_port(f, n, p);

	return fp->lid && fp->peer != FAB_NONE;
}

/* Bucket of a source: its entry switch, or nsw when cabled to a CA. */
static uint32_t src_bucket(const struct vf_ctx *c, uint32_t n, unsigned int p)
{
	uint32_t peer = fab_port(c->f, n, p)->peer;

	return fab_is_sw(c->f, peer) ? c->t->node_sw[peer] : c->nsw;
}

static int setup_srcs(struct vf_ctx *c)
{
	const struct fabric *f = c->f;
	uint32_t n, b, s, k, i, w;
	unsigned int p;

	c->src_off = zalloc(c->nsw + 3, sizeof(*c->src_off));
	if (!c->src_off)
		return -ENOMEM;
	for (n = 0; n < f->nnodes; n++)
		for (p = 1; !fab_is_sw(f, n) && p <= f->nodes[n].nports; p++)
			if (is_src(f, n, p))
				c->src_off[src_bucket(c, n, p) + 2]++;
	for (b = 0; b <= c->nsw + 1; b++)
		c->src_off[b + 1] += c->src_off[b];
	c->nsrc = c->src_off[c->nsw + 2];
	c->src = zalloc(c->nsrc, sizeof(*c->src));
	if (!c->src)
		return -ENOMEM;
	/* src_off[b + 1] walks bucket b and ends as its end, b + 1's start */
	for (n = 0; n < f->nnodes; n++)
		for (p = 1; !fab_is_sw(f, n) && p <= f->nodes[n].nports; p++) {
			const struct fab_port *fp = fab_port(f, n, p);
			struct vf_src *a;

			if (!is_src(f, n, p))
				continue;
			b = src_bucket(c, n, p);
			a = &c->src[c->src_off[b + 1]++];
			a->gport = f->nodes[n].port0 + p;
			a->sw = b < c->nsw ? b : FAB_NONE;
			a->peer = f->nodes[fp->peer].port0 + fp->peer_port;
			a->lid = fp->lid;
			a->lmc = fp->lmc;
			a->inport = fp->peer_port;
		}
	for (s = 0; s < c->nsw; s++)
		c->cmp_src[c->comp[s]] += srcs_at(c, s);
	/*
	 * Only switches with sources start routes, and resolving from them
	 * reaches every switch that carries traffic: drop the others.
	 */
	for (k = 0, w = 0; k < c->ncomp; k++) {
		i = c->cmp_off[k];
		c->cmp_off[k] = w;
		for (; i < c->cmp_off[k + 1]; i++)
			if (srcs_at(c, c->cmp_sw[i]))
				c->cmp_sw[w++] = c->cmp_sw[i];
	}
	c->cmp_off[c->ncomp] = w;
	return 0;
}

static int setup(struct vf_ctx *c, const struct vf_opts *o)
{
	size_t nsp;
	int ret;

	if (c->f->nports >= NBR_CA || c->nsw >= NBR_CA)
		return -E2BIG;
	c->efi_on = !o->skip_efi;
	c->sw_dests = !(o->skip_sw_dests && o->skip_mgmt);
	c->flows = c->efi_on || !o->skip_cdg;
	ret = setup_ports(c);
	if (!ret)
		ret = setup_comps(c);
	if (!ret)
		ret = setup_srcs(c);
	if (ret)
		return ret;
	c->blk = zalloc((size_t)BLK * c->nsw, 1);
	c->nx = zalloc(c->nsw, sizeof(*c->nx));
	c->st = malloc((c->nsw ? c->nsw : 1) * sizeof(*c->st));
	c->ord = zalloc(c->nsw, sizeof(*c->ord));
	c->stk = zalloc(c->nsw, sizeof(*c->stk));
	c->fl = zalloc(c->nsw, sizeof(*c->fl));
	c->out_chan = zalloc(c->nsw, sizeof(*c->out_chan));
	c->mark = zalloc(c->nsw, 1);
	if (!c->blk || !c->nx || !c->st || !c->ord || !c->stk || !c->fl ||
	    !c->out_chan || !c->mark)
		return -ENOMEM;
	memset(c->st, 0xff, c->nsw * sizeof(*c->st));
	if (c->t->vl && !o->skip_cdg) {
		nsp = (size_t)c->swp_off[c->nsw] * NSL;
		c->vstamp = zalloc(nsp, sizeof(*c->vstamp));
		c->vxmask = zalloc(nsp, sizeof(*c->vxmask));
		if (!c->vstamp || !c->vxmask)
			return -ENOMEM;
	}
	return 0;
}

static void ctx_release(struct vf_ctx *c)
{
	unsigned int l, x, y;

	for (l = 0; l < LAYERS; l++)
		for (x = 0; x < NVL; x++)
			for (y = 0; y < NVL; y++)
				free(c->lbm[l][x][y]);
	free(c->efi);
	free(c->vxmask);
	free(c->vstamp);
	free(c->mark);
	free(c->out_chan);
	free(c->fl);
	free(c->stk);
	free(c->ord);
	free(c->st);
	free(c->nx);
	free(c->blk);
	free(c->src);
	free(c->src_off);
	free(c->cmp_src);
	free(c->all_sw);
	free(c->all_off);
	free(c->cmp_sw);
	free(c->cmp_off);
	free(c->comp);
	free(c->in_rank);
	free(c->reverse);
	free(c->swp);
	free(c->bmoff);
	free(c->chbase);
	free(c->swp_off);
}

/*
 * Fill ds for LID d.  False when no switch pass is needed: the LID is
 * unused, its port is unlinked, or it sits on a CA-to-CA cable.
 */
static bool dest_init(const struct vf_ctx *c, unsigned int d,
		      struct vf_dest *ds, struct vf_report *r)
{
	const struct fabric *f = c->f;
	uint32_t n = c->t->lid_node[d];
	const struct fab_port *p;
	unsigned int pn, self, peer;

	if (n == FAB_NONE)
		return false;
	memset(ds, 0, sizeof(*ds));
	ds->lid = d;
	ds->dsw = ds->gport = ds->selfsw = FAB_NONE;
	if (fab_is_sw(f, n)) {
		if (!c->sw_dests)
			return false;
		ds->dsw = c->t->node_sw[n];
		ds->tgt = NBR_SELF;
		ds->comp = c->comp[ds->dsw];
	} else {
		pn = c->t->lid_port[d];
		p = fab_port(f, n, pn);
		if (p->peer == FAB_NONE) {
			r->disconnected += c->nsrc;
			return false;
		}
		ds->gport = f->nodes[n].port0 + pn;
		self = p->lid != 0;
		if (!fab_is_sw(f, p->peer)) {
			/* back to back: only the far port reaches it */
			peer = fab_port(f, p->peer, p->peer_port)->lid != 0;
			r->pairs += peer;
			r->disconnected += c->nsrc - self - peer;
			return false;
		}
		ds->tgt = NBR_CA | ds->gport;
		ds->comp = c->comp[c->t->node_sw[p->peer]];
		if (self)
			ds->selfsw = c->t->node_sw[p->peer];
		ds->efi = d == p->lid;
	}
	if (ds->gport != FAB_NONE)
		r->disconnected += c->nsrc - c->cmp_src[ds->comp];
	return true;
}

static uint32_t next_hop(const struct vf_ctx *c, const struct vf_dest *ds,
			 uint32_t s, unsigned int o)
{
	uint32_t e;

	if (o > sw_nports(c, s))
		return NX_HOLE;
	if (!o)
		return s == ds->dsw ? NX_DELIV : NX_HOLE;
	e = sw_port(c, s, o)->nbr;
	if (e < c->nsw)
		return e;
	return e == ds->tgt ? NX_DELIV : NX_HOLE;
}

/*
 * Resolve the fate of every switch on a route from the n switches cs into
 * st[] and list them in ord[] after the no listed so far, so that a switch
 * comes after its next hop (except around loops).  Returns the number
 * listed.
 */
static uint32_t resolve(struct vf_ctx *c, const struct vf_dest *ds,
			const uint8_t *op, const uint32_t *cs, uint32_t n,
			uint32_t no)
{
	uint32_t i, sp, u, x, w, v;

	for (i = 0; i < n; i++) {
		if (c->st[cs[i]] != ST_UNK)
			continue;
		sp = 0;
		for (u = cs[i];; u = x) {
			c->stk[sp++] = u;
			c->st[u] = ST_BUSY;
			x = next_hop(c, ds, u, op[u]);
			c->nx[u] = x;
			if (x >= c->nsw)
				break;
			if (c->flows)
				c->out_chan[u] =
				    c->chbase[u] + sw_port(c, u, op[u])->lidx;
			if (c->st[x] != ST_UNK)
				break;
		}
		while (sp) {
			u = c->stk[--sp];
			x = c->nx[u];
			if (x == NX_DELIV) {
				v = 0;
			} else if (x == NX_HOLE) {
				v = ST_HOLE;
			} else {
				w = c->st[x];
				if (w == ST_BUSY || w == ST_LOOP)
					v = ST_LOOP;
				else if (w == ST_HOLE)
					v = ST_HOLE;
				else
					v = w + 1;
			}
			c->st[u] = v;
			c->ord[no++] = u;
		}
	}
	return no;
}

static uint32_t dest_srcs_at(const struct vf_ctx *c, const struct vf_dest *ds,
			     uint32_t s)
{
	return srcs_at(c, s) - (s == ds->selfsw);
}

static unsigned int sw_lid(const struct vf_ctx *c, uint32_t s)
{
	return fab_port(c->f, c->t->sw_node[s], 0)->lid;
}

/* Where the route from switch s failed: its hole, or a switch on its loop. */
static void where_bad(const struct vf_ctx *c, const uint8_t *op, uint32_t s,
		      struct vf_example *x)
{
	uint32_t k;

	if (c->st[s] == ST_HOLE) {
		while (c->nx[s] != NX_HOLE)
			s = c->nx[s];
	} else {
		/* nsw steps along a loop's next hops end on its cycle */
		for (k = 0; k < c->nsw; k++)
			s = c->nx[s];
	}
	x->sw = s;
	x->port = op[s];
}

static void note_bad(const struct vf_ctx *c, const struct vf_dest *ds,
		     const uint8_t *op, uint32_t s, struct vf_report *r)
{
	const struct vf_src *a = &c->src[c->src_off[s]];

	if (a->gport == ds->gport)
		a++;
	r->bad.slid = a->lid;
	r->bad.dlid = ds->lid;
	where_bad(c, op, s, &r->bad);
}

/*
 * Count pairs by fate and push source counts down the next-hop forest:
 * fl[s] ends as the number of sources whose route crosses s (exact except
 * on loops), which is the edge forwarding index of s's out link.
 * max_hops looks at CA destinations only: data paths, which also bounds
 * the eBB walks.
 */
static bool tally(struct vf_ctx *c, const struct vf_dest *ds,
		  const uint8_t *op, uint32_t no, struct vf_report *r)
{
	bool loops = false;
	uint32_t k, s, x, cn, v;

	for (k = no; k--;) {
		s = c->ord[k];
		v = c->st[s];
		cn = dest_srcs_at(c, ds, s);
		c->fl[s] += cn;
		loops |= v == ST_LOOP;
		if (ds->gport == FAB_NONE) {
			r->sw_pairs += cn;
			if (v >= ST_LOOP)
				r->sw_unreachable += cn;
		} else {
			r->pairs += cn;
		}
		if (cn && v < ST_LOOP && v > r->max_hops &&
		    ds->gport != FAB_NONE)
			r->max_hops = v;
		if (cn && v >= ST_LOOP && ds->gport != FAB_NONE) {
			if (!r->unreachable)
				note_bad(c, ds, op, s, r);
			r->unreachable += cn;
			if (v == ST_HOLE)
				r->holes += cn;
			else
				r->loops += cn;
		}
		x = c->nx[s];
		if (x >= c->nsw || !c->flows)
			continue;
		c->fl[x] += c->fl[s];
		if (ds->efi && c->efi_on && v < ST_LOOP)
			c->efi[c->out_chan[s]] += c->fl[s];
	}
	return loops;
}

/*
 * Switch-sourced pairs: every switch listed in ord[] (all of the
 * component) that has a LID sends to ds, but not to its own LID.
 */
static void mgmt_tally(const struct vf_ctx *c, const struct vf_dest *ds,
		       const uint8_t *op, uint32_t no, struct vf_report *r)
{
	uint32_t k, s, v;

	for (k = 0; k < no; k++) {
		s = c->ord[k];
		v = c->st[s];
		if (s == ds->dsw || !sw_lid(c, s))
			continue;
		r->mgmt_pairs++;
		if (v < ST_LOOP)
			continue;
		/* the first loop, else the first hole */
		if (!r->mgmt_loops && (v == ST_LOOP || !r->mgmt_unreachable)) {
			r->mgmt_bad.slid = sw_lid(c, s);
			r->mgmt_bad.dlid = ds->lid;
			where_bad(c, op, s, &r->mgmt_bad);
		}
		r->mgmt_unreachable++;
		r->mgmt_loops += v == ST_LOOP;
	}
}

static uint64_t *bm_get(struct vf_ctx *c, unsigned int x, unsigned int y)
{
	uint64_t **bm = &c->lbm[c->to][x][y];

	if (!*bm)
		*bm = zalloc(c->bmwords, sizeof(uint64_t));
	return *bm;
}

static void bm_set(const struct vf_ctx *c, uint64_t *bm, uint32_t s,
		   unsigned int il, unsigned int ol)
{
	size_t k = c->chbase[s + 1] - c->chbase[s];
	size_t bit = c->bmoff[s] + il * k + ol;

	bm[bit / 64] |= 1ull << (bit % 64);
}

/*
 * One VL: every switch s that carries traffic to ds and hands it to switch
 * u, which forwards it to a switch, makes u's in link depend on its out
 * link.  Traffic on loop switches comes from marking their chains.
 */
static int cdg_plain(struct vf_ctx *c, const struct vf_dest *ds,
		     uint32_t no, bool loops)
{
	uint64_t *bm = bm_get(c, 0, 0);
	uint32_t k, s, u;

	if (!bm)
		return -ENOMEM;
	for (k = 0; loops && k < no; k++) {
		s = c->ord[k];
		if (c->st[s] != ST_LOOP || !dest_srcs_at(c, ds, s))
			continue;
		for (u = s; !c->mark[u]; u = c->nx[u])
			c->mark[u] = 1;
	}
	for (k = 0; k < no; k++) {
		s = c->ord[k];
		if (c->st[s] == ST_LOOP ? !c->mark[s] : !c->fl[s])
			continue;
		u = c->nx[s];
		if (u >= c->nsw || c->nx[u] >= c->nsw)
			continue;
		bm_set(c, bm, u, c->in_rank[c->out_chan[s]],
		       c->out_chan[u] - c->chbase[u]);
	}
	return 0;
}

/*
 * One VL, switch-sourced: every switch with a LID sends (as in
 * cdg_mgmt_vl()), so every switch on its route that hands the packet to a
 * switch which forwards it adds its dependency; one without a LID sends
 * nothing, and a dependency of its own route alone would be no one's.
 * Bit 2 of mark: the route on from the switch is in.
 */
static int cdg_mgmt_plain(struct vf_ctx *c, uint32_t no)
{
	uint64_t *bm;
	uint32_t k, s, u;

	c->to = L_MGMT;
	bm = bm_get(c, 0, 0);
	c->to = L_DATA;
	if (!bm)
		return -ENOMEM;
	for (k = 0; k < no; k++) {
		for (s = c->ord[k]; s < c->nsw && !(c->mark[s] & 2);
		     s = c->nx[s]) {
			if (s == c->ord[k] && !sw_lid(c, s))
				break;
			c->mark[s] |= 2;
			u = c->nx[s];
			if (u >= c->nsw || c->nx[u] >= c->nsw)
				continue;
			bm_set(c, bm, u, c->in_rank[c->out_chan[s]],
			       c->out_chan[u] - c->chbase[u]);
		}
	}
	return 0;
}

/*
 * Follow a packet entering switch s at port i on VL x with SL sl.  The
 * route beyond s does not depend on x, so a (port, SL) state goes on only
 * when first seen; a new x there adds its edge and stops.
 */
static int vl_walk(struct vf_ctx *c, const uint8_t *op, uint32_t s,
		   unsigned int i, unsigned int sl, unsigned int x)
{
	const struct rt_tables *t = c->t;
	const struct vf_swp *e;
	unsigned int o, y, il;
	uint64_t *bm;
	size_t key;
	bool first;

	for (;;) {
		key = ((size_t)c->swp_off[s] + i) * NSL + sl;
		first = c->vstamp[key] != c->cur;
		if (first) {
			c->vstamp[key] = c->cur;
			c->vxmask[key] = 0;
		}
		if (c->vxmask[key] & (1u << x))
			return 0;
		c->vxmask[key] |= 1u << x;
		o = op[s];
		if (!o || o > sw_nports(c, s))
			return 0;
		e = sw_port(c, s, o);
		if (e->nbr >= c->nsw)
			return 0;
		y = t->vl->sl2vl(t, s, i, o, sl) % NVL;
		if (y > c->maxvl)
			c->maxvl = y;
		il = sw_port(c, s, i)->lidx;
		if (il != NO_LIDX) {
			bm = bm_get(c, x, y);
			if (!bm)
				return -ENOMEM;
			bm_set(c, bm, s, il, e->lidx);
		}
		if (!first)
			return 0;
		i = e->pport;
		s = e->nbr;
		x = y;
	}
}

/*
 * A packet with SL sl that switch s takes in at port i (0: sends it):
 * the VL s maps it to on its out link, and the walk from the next switch.
 */
static int walk_from(struct vf_ctx *c, const uint8_t *op, uint32_t s,
		     unsigned int i, unsigned int sl)
{
	const struct vf_swp *e;
	unsigned int o = op[s], y;

	if (!o || o > sw_nports(c, s))
		return 0;
	e = sw_port(c, s, o);
	if (e->nbr >= c->nsw)
		return 0;
	y = c->t->vl->sl2vl(c->t, s, i, o, sl) % NVL;
	if (y > c->maxvl)
		c->maxvl = y;
	return vl_walk(c, op, e->nbr, e->pport, sl, y);
}

/*
 * Several VLs: every source LID of every source in the component asks
 * path_sl, to a CA LID (data) or a switch's (management, c->to).
 * The first link is a CA link, which never closes a cycle, so the walk
 * starts at the entry switch.
 */
static int cdg_vl(struct vf_ctx *c, const struct vf_dest *ds,
		  const uint8_t *op)
{
	const struct rt_tables *t = c->t;
	const uint32_t *cs = c->cmp_sw + c->cmp_off[ds->comp];
	uint32_t n = c->cmp_off[ds->comp + 1] - c->cmp_off[ds->comp];
	unsigned int l, sl;
	uint32_t i, k, s;
	int ret;

	for (i = 0; i < n; i++) {
		s = cs[i];
		for (k = c->src_off[s]; k < c->src_off[s + 1]; k++) {
			const struct vf_src *a = &c->src[k];

			if (a->gport == ds->gport)
				continue;
			for (l = 0; l < 1u << a->lmc; l++) {
				sl = t->vl->path_sl(t, a->lid + l, ds->lid) %
				     NSL;
				ret = walk_from(c, op, s, a->inport, sl);
				if (ret)
					return ret;
			}
		}
	}
	return 0;
}

/*
 * Several VLs, switch-sourced: each switch sends from port 0 on the SL
 * path_sl gives for its LID, as OpenSM asks it for a switch's MasterSMSL.
 * To a switch LID, the CA ports' requests (PerfMgt, perfquery) join
 * them, on their own SLs.  A switch answers a CA's request on the
 * request's SL, path_sl from the CA's LID to the switch's: where that
 * differs, its walk goes to a layer of its own, which an engine that
 * gives no SL for answers may leave with a cycle (answer_cycle).
 */
static int cdg_mgmt_vl(struct vf_ctx *c, const struct vf_dest *ds,
		       const uint8_t *op)
{
	const struct rt_tables *t = c->t;
	const uint32_t *cs = c->all_sw + c->all_off[ds->comp];
	uint32_t n = c->all_off[ds->comp + 1] - c->all_off[ds->comp];
	unsigned int lid, sl, rsl;
	uint32_t i, s;
	int ret = 0;

	c->to = L_MGMT;
	for (i = 0; !ret && i < n; i++) {
		s = cs[i];
		lid = sw_lid(c, s);
		if (!lid || s == ds->dsw)
			continue;
		sl = t->vl->path_sl(t, lid, ds->lid) % NSL;
		ret = walk_from(c, op, s, 0, sl);
	}
	if (!ret && ds->dsw != FAB_NONE)
		ret = cdg_vl(c, ds, op);
	c->to = L_ANSWER;
	for (i = 0; !ret && ds->gport != FAB_NONE && i < n; i++) {
		s = cs[i];
		lid = sw_lid(c, s);
		if (!lid)
			continue;
		sl = t->vl->path_sl(t, lid, ds->lid) % NSL;
		rsl = t->vl->path_sl(t, ds->lid, lid) % NSL;
		if (rsl != sl)
			ret = walk_from(c, op, s, 0, rsl);
	}
	c->to = L_DATA;
	return ret;
}

static int dest_check(struct vf_ctx *c, unsigned int d, const uint8_t *op,
		      const struct vf_opts *o, struct vf_report *r)
{
	struct vf_dest ds;
	uint32_t no, k, s;
	bool loops;
	int ret = 0;

	if (!dest_init(c, d, &ds, r))
		return 0;
	no = resolve(c, &ds, op, c->cmp_sw + c->cmp_off[ds.comp],
		     c->cmp_off[ds.comp + 1] - c->cmp_off[ds.comp], 0);
	if (!o->skip_mgmt)
		no = resolve(c, &ds, op, c->all_sw + c->all_off[ds.comp],
			     c->all_off[ds.comp + 1] - c->all_off[ds.comp],
			     no);
	loops = tally(c, &ds, op, no, r);
	if (!o->skip_mgmt)
		mgmt_tally(c, &ds, op, no, r);
	c->cur++;
	/*
	 * Credit loops are a matter of CA-to-CA data, as for ibdmchk, and of
	 * the switches' own traffic, which rides the same VLs.
	 */
	if (!o->skip_cdg && ds.gport != FAB_NONE)
		ret = c->t->vl ? cdg_vl(c, &ds, op) :
				 cdg_plain(c, &ds, no, loops);
	if (!ret && r->mgmt_cdg)
		ret = c->t->vl ? cdg_mgmt_vl(c, &ds, op) :
				 cdg_mgmt_plain(c, no);
	for (k = 0; k < no; k++) {
		s = c->ord[k];
		c->st[s] = ST_UNK;
		c->fl[s] = 0;
		c->mark[s] = 0;
	}
	return ret;
}

/*
 * Swap the bytes of x[i] that mask << sh selects with those of x[i + k]
 * that mask selects: one stage of an 8 x 8 byte transpose.
 */
static void swap_bytes(uint64_t *x, unsigned int i, unsigned int k,
		       unsigned int sh, uint64_t mask)
{
	uint64_t d = ((x[i] >> sh) ^ x[i + k]) & mask;

	x[i] ^= d << sh;
	x[i + k] ^= d;
}

/*
 * Entries of LIDs d0..d0 + nb of switches s..s + 8 into blk, 8 x 8 bytes
 * at a time through registers: byte by byte, this copy weighed on every
 * sweep's check.  On a little-endian host byte j of a word
 * read from a row is the j-th entry, and of a word written the j-th
 * switch.
 */
static void fetch8(struct vf_ctx *c, unsigned int d0, unsigned int nb,
		   uint32_t s)
{
	static const uint64_t m4 = 0x00000000ffffffffull;
	static const uint64_t m2 = 0x0000ffff0000ffffull;
	static const uint64_t m1 = 0x00ff00ff00ff00ffull;
	const uint8_t *row[8];
	uint64_t x[8];
	unsigned int b, i;

	for (i = 0; i < 8; i++)
		row[i] = rt_lft(c->t, s + i) + d0;
	for (b = 0; b + 8 <= nb; b += 8) {
		for (i = 0; i < 8; i++)
			memcpy(&x[i], row[i] + b, 8);
		for (i = 0; i < 4; i++)
			swap_bytes(x, i, 4, 32, m4);
		for (i = 0; i < 8; i += i % 4 == 1 ? 3 : 1)
			swap_bytes(x, i, 2, 16, m2);
		for (i = 0; i < 8; i += 2)
			swap_bytes(x, i, 1, 8, m1);
		for (i = 0; i < 8; i++)
			memcpy(c->blk + (size_t)(b + i) * c->nsw + s, &x[i], 8);
	}
	for (; b < nb; b++)
		for (i = 0; i < 8; i++)
			c->blk[(size_t)b * c->nsw + s + i] = row[i][b];
}

/* All destination LIDs, BLK at a time so the LFT rows are read in lines. */
static int scan(struct vf_ctx *c, const struct vf_opts *o,
		struct vf_report *r)
{
	const struct rt_tables *t = c->t;
	unsigned int d0, b, nb;
	uint32_t s;
	int ret;

	for (d0 = 1; d0 <= t->top; d0 += BLK) {
		nb = t->top + 1 - d0 < BLK ? t->top + 1 - d0 : BLK;
		for (s = 0; LITTLE && s + 8 <= c->nsw; s += 8)
			fetch8(c, d0, nb, s);
		for (; s < c->nsw; s++) {
			const uint8_t *row = rt_lft(t, s) + d0;

			for (b = 0; b < nb; b++)
				c->blk[(size_t)b * c->nsw + s] = row[b];
		}
		for (b = 0; b < nb; b++) {
			ret = dest_check(c, d0 + b, c->blk + (size_t)b * c->nsw,
					 o, r);
			if (ret)
				return ret;
		}
	}
	return 0;
}

/* Hops from each switch to the nearest switch with a source. */
static int host_dist(const struct vf_ctx *c, uint8_t *dist)
{
	uint32_t *q = zalloc(c->nsw + 1, sizeof(*q));
	uint32_t head = 0, tail = 0, s, o;

	if (!q)
		return -ENOMEM;
	for (s = 0; s < c->nsw; s++) {
		dist[s] = UINT8_MAX;
		if (srcs_at(c, s)) {
			dist[s] = 0;
			q[tail++] = s;
		}
	}
	while (head < tail) {
		s = q[head++];
		for (o = 1; o <= sw_nports(c, s); o++) {
			uint32_t x = sw_port(c, s, o)->nbr;

			if (x < c->nsw && dist[x] == UINT8_MAX &&
			    dist[s] + 1 < UINT8_MAX) {
				dist[x] = dist[s] + 1;
				q[tail++] = x;
			}
		}
	}
	free(q);
	return 0;
}

#define EFI_CLASSES 256

/* Per-class max / mean, classes by (tail, head) distance to the hosts. */
static int efi_classes(const struct vf_ctx *c, struct vf_report *r)
{
	uint8_t *dist = zalloc(c->nsw + 1, 1);
	uint32_t *own = zalloc(c->nchan + 1, sizeof(*own));
	uint64_t sum[EFI_CLASSES] = { 0 }, max[EFI_CLASSES] = { 0 };
	uint32_t cnt[EFI_CLASSES] = { 0 }, s, k;
	int ret = -ENOMEM;

	if (!dist || !own || host_dist(c, dist))
		goto out;
	for (s = 0; s < c->nsw; s++)
		for (k = c->chbase[s]; k < c->chbase[s + 1]; k++)
			own[k] = s;
	for (s = 0; s < c->nsw; s++)
		for (k = c->chbase[s]; k < c->chbase[s + 1]; k++) {
			uint32_t h = own[c->reverse[k]], cl;

			cl = (dist[s] < 15 ? dist[s] : 15) * 16 +
			     (dist[h] < 15 ? dist[h] : 15);
			sum[cl] += c->efi[k];
			cnt[cl]++;
			if (c->efi[k] > max[cl])
				max[cl] = c->efi[k];
		}
	for (k = 0; k < EFI_CLASSES; k++) {
		double q;

		if (!sum[k])
			continue;
		q = max[k] / ((double)sum[k] / cnt[k]);
		if (q > r->efi_class_ratio)
			r->efi_class_ratio = q;
	}
	ret = 0;
out:
	free(dist);
	free(own);
	return ret;
}

/* The edge forwarding index per fabric port, for vf_opts.efi_link. */
static void efi_links(const struct vf_ctx *c, uint64_t *out)
{
	const struct fabric *f = c->f;
	uint32_t s, n;
	unsigned int o;

	memset(out, 0, f->nports * sizeof(*out));
	for (s = 0; s < c->nsw; s++) {
		n = c->t->sw_node[s];
		for (o = 1; o <= sw_nports(c, s); o++) {
			uint8_t k = sw_port(c, s, o)->lidx;

			if (k != NO_LIDX)
				out[f->nodes[n].port0 + o] =
					c->efi[c->chbase[s] + k];
		}
	}
}

static int efi_stats(const struct vf_ctx *c, struct vf_report *r)
{
	uint64_t sum = 0;
	uint32_t k;

	for (k = 0; k < c->nchan; k++) {
		sum += c->efi[k];
		if (c->efi[k] > r->efi_max)
			r->efi_max = c->efi[k];
	}
	if (!c->nchan || !sum)
		return 0;
	r->efi_mean = (double)sum / c->nchan;
	r->efi_ratio = r->efi_max / r->efi_mean;
	return efi_classes(c, r);
}

static uint64_t bm_word(const uint64_t *bm, size_t w)
{
	return bm ? bm[w] : 0;
}

/* Word w of the edges (x, y) of layers 0..upto. */
static uint64_t layers_word(const struct vf_ctx *c, int upto, unsigned int x,
			    unsigned int y, size_t w)
{
	uint64_t word = 0;
	int l;

	for (l = 0; l <= upto; l++)
		word |= bm_word(c->lbm[l][x][y], w);
	return word;
}

static bool layers_any(const struct vf_ctx *c, int upto, unsigned int x,
		       unsigned int y)
{
	int l;

	for (l = 0; l <= upto; l++)
		if (c->lbm[l][x][y])
			return true;
	return false;
}

/*
 * CDG edges from the bitmaps of layers 0..upto into CSR form: with adj
 * NULL count out degrees into cnt[a + 1], else place them at cnt[a]++.
 * Returns the number of edges.
 */
static size_t cdg_collect(const struct vf_ctx *c, unsigned int nv, int upto,
			  size_t *cnt, uint32_t *adj)
{
	size_t w, bit, rel, k, edges = 0;
	unsigned int x, y;
	uint32_t s, a, b;
	uint64_t word;

	for (x = 0; x < nv; x++)
		for (y = 0; y < nv; y++) {
			if (!layers_any(c, upto, x, y))
				continue;
			for (w = 0, s = 0; w < c->bmwords; w++)
				for (word = layers_word(c, upto, x, y, w);
				     word; word &= word - 1) {
					bit = w * 64 + __builtin_ctzll(word);
					while (c->bmoff[s + 1] <= bit)
						s++;
					k = c->chbase[s + 1] - c->chbase[s];
					rel = bit - c->bmoff[s];
					a = c->reverse[c->chbase[s] + rel / k] *
						    nv + x;
					b = (c->chbase[s] + rel % k) * nv + y;
					if (adj)
						adj[cnt[a]++] = b;
					else
						cnt[a + 1]++;
					edges++;
				}
		}
	return edges;
}

/* Iterative DFS; a grey successor is on a cycle, returned in *hit. */
static bool cdg_dfs(size_t nodes, const size_t *off, const uint32_t *adj,
		    size_t *cur, uint32_t *stk, uint8_t *color, uint32_t *hit)
{
	size_t v, sp;
	uint32_t u, w;

	for (v = 0; v < nodes; v++) {
		if (color[v])
			continue;
		sp = 0;
		stk[sp++] = v;
		color[v] = 1;
		cur[v] = off[v];
		while (sp) {
			u = stk[sp - 1];
			if (cur[u] == off[u + 1]) {
				color[u] = 2;
				sp--;
				continue;
			}
			w = adj[cur[u]++];
			if (color[w] == 1) {
				*hit = w;
				return true;
			}
			if (!color[w]) {
				color[w] = 1;
				cur[w] = off[w];
				stk[sp++] = w;
			}
		}
	}
	return false;
}

/* A link of channel ch, the one on a cycle, into x. */
static void note_cycle(const struct vf_ctx *c, uint32_t ch,
		       struct vf_example *x)
{
	uint32_t s = 0;
	unsigned int o;

	while (c->chbase[s + 1] <= ch)
		s++;
	for (o = 1; sw_port(c, s, o)->lidx != ch - c->chbase[s]; o++)
		;
	x->sw = s;
	x->port = o;
}

/*
 * Look for a cycle among the dependencies of layers 0..upto on nv VLs.
 * Returns 1 with a node on it in *hit, 0 for none, or -ENOMEM; *edges
 * counts the dependencies.
 */
static int cdg_find(const struct vf_ctx *c, unsigned int nv, int upto,
		    uint64_t *edges, uint32_t *hit)
{
	size_t nodes = (size_t)c->nchan * nv, k;
	size_t *off, *cur = NULL;
	uint32_t *adj = NULL, *stk = NULL;
	uint8_t *color = NULL;
	int ret = -ENOMEM;

	off = zalloc(nodes + 1, sizeof(*off));
	if (!off)
		return -ENOMEM;
	*edges = cdg_collect(c, nv, upto, off, NULL);
	if (!*edges) {
		ret = 0;
		goto out;
	}
	cur = zalloc(nodes, sizeof(*cur));
	adj = zalloc(*edges, sizeof(*adj));
	stk = zalloc(nodes, sizeof(*stk));
	color = zalloc(nodes, 1);
	if (!cur || !adj || !stk || !color)
		goto out;
	for (k = 0; k < nodes; k++)
		off[k + 1] += off[k];
	memcpy(cur, off, nodes * sizeof(*cur));
	cdg_collect(c, nv, upto, cur, adj);
	ret = cdg_dfs(nodes, off, adj, cur, stk, color, hit);
out:
	free(color);
	free(stk);
	free(adj);
	free(cur);
	free(off);
	return ret;
}

static bool has_layer(const struct vf_ctx *c, int l)
{
	unsigned int x, y;

	for (x = 0; x < NVL; x++)
		for (y = 0; y < NVL; y++)
			if (c->lbm[l][x][y])
				return true;
	return false;
}

static int cdg_check(struct vf_ctx *c, struct vf_report *r)
{
	unsigned int nv = c->maxvl + 1;
	uint64_t all;
	uint32_t hit;
	int ret;

	r->cdg_checked = true;
	if (nv > r->nvl)
		r->nvl = nv;
	ret = cdg_find(c, nv, L_DATA, &r->cdg_edges, &hit);
	if (ret < 0)
		return ret;
	if (ret) {
		r->cdg_cycle = true;
		r->cycle_vl = hit % nv;
		if (!r->unreachable)
			note_cycle(c, hit / nv, &r->bad);
		/* the routing fails already; theirs are not looked at */
		r->mgmt_cdg = false;
		return 0;
	}
	if (has_layer(c, L_MGMT)) {
		ret = cdg_find(c, nv, L_MGMT, &all, &hit);
		if (ret < 0)
			return ret;
		r->mgmt_edges = all - r->cdg_edges;
	}
	if (ret > 0) {
		r->mgmt_cycle = true;
		r->mgmt_cycle_vl = hit % nv;
		if (!r->mgmt_loops) {
			r->mgmt_bad.slid = r->mgmt_bad.dlid = 0;
			note_cycle(c, hit / nv, &r->mgmt_bad);
		}
		return 0;
	}
	if (!has_layer(c, L_ANSWER))
		return 0;
	ret = cdg_find(c, nv, L_ANSWER, &all, &hit);
	if (ret < 0)
		return ret;
	r->answer_cycle = ret;
	r->answer_cycle_vl = ret ? hit % nv : 0;
	return 0;
}

enum { EBB_WALK, EBB_DISC, EBB_FAIL, EBB_DELIV };

#define EBB_BATCH 32	/* flows walked in lockstep so their loads overlap */

/*
 * One flow being walked; its path (fabric index of each sending port) goes
 * to its own slot of maxh + 2 entries: a delivered route crosses at most
 * maxh switch links, so a longer walk is a failure.
 */
struct ebb_flow {
	const struct vf_src *b;
	uint32_t *path;
	uint32_t s, len;
	int state;
};

static void ebb_start(const struct vf_ctx *c, const struct vf_src *a,
		      const struct vf_src *b, struct ebb_flow *fw)
{
	fw->b = b;
	fw->s = a->sw;
	fw->len = 0;
	fw->state = EBB_WALK;
	if (a == b) {
		fw->state = EBB_DISC;
		return;
	}
	fw->path[fw->len++] = a->gport;
	if (a->sw == FAB_NONE)
		fw->state = a->peer == b->gport ? EBB_DELIV : EBB_DISC;
	else if (b->sw == FAB_NONE || c->comp[a->sw] != c->comp[b->sw])
		fw->state = EBB_DISC;
}

static void ebb_step(const struct vf_ctx *c, struct ebb_flow *fw)
{
	const struct rt_tables *t = c->t;
	uint32_t s = fw->s, e;
	unsigned int o = rt_lft(t, s)[fw->b->lid];

	if (!o || o > sw_nports(c, s)) {
		fw->state = EBB_FAIL;
		return;
	}
	fw->path[fw->len++] = c->f->nodes[t->sw_node[s]].port0 + o;
	e = sw_port(c, s, o)->nbr;
	if (e < c->nsw)
		fw->s = e;
	else
		fw->state = e == (NBR_CA | fw->b->gport) ? EBB_DELIV :
							   EBB_FAIL;
}

/* Walk flows g.. of perm; plen[i] ends as the delivered path length or 0. */
static void ebb_batch(const struct vf_ctx *c, const uint32_t *perm,
		      uint32_t g, uint32_t maxh, uint32_t *path,
		      uint32_t *plen, uint64_t *nflows)
{
	struct ebb_flow fw[EBB_BATCH];
	uint32_t i, h, n, live;

	n = c->nsrc - g < EBB_BATCH ? c->nsrc - g : EBB_BATCH;
	for (i = 0; i < n; i++) {
		fw[i].path = path + (size_t)(g + i) * (maxh + 2);
		ebb_start(c, &c->src[g + i], &c->src[perm[g + i]], &fw[i]);
	}
	for (h = 0, live = n; live && h <= maxh; h++)
		for (i = 0, live = 0; i < n; i++) {
			if (fw[i].state != EBB_WALK)
				continue;
			ebb_step(c, &fw[i]);
			live += fw[i].state == EBB_WALK;
		}
	for (i = 0; i < n; i++) {
		*nflows += fw[i].state != EBB_DISC;
		plen[g + i] = fw[i].state == EBB_DELIV ? fw[i].len : 0;
	}
}

/* Route one permutation; adds shares to *sum and flows to *nflows. */
static void ebb_perm(const struct vf_ctx *c, const uint32_t *perm,
		     uint32_t maxh, uint32_t *path, uint32_t *plen,
		     uint32_t *load, double *sum, uint64_t *nflows)
{
	uint32_t i, k, m;
	const uint32_t *p;

	for (i = 0; i < c->nsrc; i += EBB_BATCH)
		ebb_batch(c, perm, i, maxh, path, plen, nflows);
	for (i = 0, p = path; i < c->nsrc; i++, p += maxh + 2)
		for (k = 0; k < plen[i]; k++)
			load[p[k]]++;
	for (i = 0, p = path; i < c->nsrc; i++, p += maxh + 2) {
		if (!plen[i])
			continue;
		for (m = 0, k = 0; k < plen[i]; k++)
			if (load[p[k]] > m)
				m = load[p[k]];
		*sum += 1.0 / m;
	}
	for (i = 0, p = path; i < c->nsrc; i++, p += maxh + 2)
		for (k = 0; k < plen[i]; k++)
			load[p[k]] = 0;
}

/*
 * Flows src[i] -> src[perm[i]] to base LIDs; undelivered flows count with
 * share 0, pairs the cabling does not connect are left out.
 */
static int ebb_run(const struct vf_ctx *c, const struct vf_opts *o,
		   struct vf_report *r)
{
	uint32_t *perm, *path, *plen, *load, i, j, x;
	uint32_t maxh = r->max_hops;
	uint64_t rng = o->seed, nflows = 0;
	double sum = 0;
	unsigned int k;
	int ret = -ENOMEM;

	if (!o->ebb_perms)
		return 0;
	perm = zalloc(c->nsrc, sizeof(*perm));
	path = zalloc((size_t)c->nsrc * (maxh + 2), sizeof(*path));
	plen = zalloc(c->nsrc, sizeof(*plen));
	load = zalloc(c->f->nports, sizeof(*load));
	if (!perm || !path || !plen || !load)
		goto out;
	for (k = 0; k < o->ebb_perms; k++) {
		for (i = 0; i < c->nsrc; i++)
			perm[i] = i;
		for (i = c->nsrc; i > 1; i--) {
			j = rng_below(&rng, i);
			x = perm[i - 1];
			perm[i - 1] = perm[j];
			perm[j] = x;
		}
		ebb_perm(c, perm, maxh, path, plen, load, &sum, &nflows);
	}
	r->ebb_perms = o->ebb_perms;
	r->ebb = nflows ? sum / nflows : 0;
	ret = 0;
out:
	free(load);
	free(plen);
	free(path);
	free(perm);
	return ret;
}

int vf_check(const struct rt_tables *t, const struct vf_opts *o,
	     struct vf_report *r)
{
	static const struct vf_opts defaults = {
		.ebb_perms = VF_DEFAULT_PERMS,
	};
	struct vf_ctx c = { .t = t, .f = t->fab, .nsw = t->nsw };
	int ret;

	if (!o)
		o = &defaults;
	memset(r, 0, sizeof(*r));
	r->nvl = t->vl && t->vl->nvl ? t->vl->nvl : 1;
	r->mgmt_cdg = !o->skip_cdg && !o->skip_mgmt &&
		      (!t->vl || t->vl->switch_sl);
	ret = setup(&c, o);
	if (!ret)
		ret = scan(&c, o, r);
	if (ret)
		goto out;
	ret = efi_stats(&c, r);
	if (ret)
		goto out;
	if (o->efi_link && c.efi_on)
		efi_links(&c, o->efi_link);
	if (!o->skip_cdg) {
		ret = cdg_check(&c, r);
		if (ret)
			goto out;
	}
	ret = ebb_run(&c, o, r);
out:
	ctx_release(&c);
	return ret;
}

bool vf_ok(const struct vf_report *r)
{
	return !r->unreachable && !r->mgmt_loops &&
	       !(r->cdg_checked && (r->cdg_cycle || r->mgmt_cycle));
}
