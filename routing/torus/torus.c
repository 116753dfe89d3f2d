// SPDX-License-Identifier: MIT
/*
 * Dimension-order routing on a torus or mesh.  Minimal hops in a ring never
 * wrap past the antipode, so a ring's channels only close a cycle through
 * its wrap cable: paths that cross it ride VL 1 of that ring, the rest VL
 * 0, one SL bit per ring says which.  A ring missing a cable or switch is
 * a line, so routes may go the long way round it on either VL.  Pairs that
 * dimension order cannot join (a failed switch in their turn) detour by
 * shortest paths; each takes the first of layer 0 or layer 1 (VLs 2-3)
 * where its channel dependencies close no cycle, checked as it is added.
 *
 * A destination's LIDs fall in classes routed alike: a class's bit d says
 * which way a tie (half-way round an even ring) goes in dimension d, its
 * bit 0 also turns the detours' ties.  Without jobs the LIDs of a switch
 * alternate between class 0 and the class of every tie bit; with jobs
 * each job LID takes the class and parallel-cable key whose routes load
 * its job's own links least (jobplan.h), minimal and on the same VLs
 * either way.
 *
 * A switch answers a host's request (PerfMgt, perfquery) on the
 * request's SL.  Where a tie sends the answer on round the ring rather
 * than back, the two need other SLs than the routes' own: without
 * detours, all on layer 1 by a rule that leaves a place of every ring
 * free on each VL (place_free(), proven loop-free); else pair by pair,
 * on layer 0 or layer 1, where neither closes a cycle; or none, said up
 * front where a ring's pairs need more VLs than there are.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../topology/textio.h"
#include "../../topology/torusrec.h"
#include "../jobplan.h"
#include "teng.h"
#include "torus.h"

#define ST_UNK 0
#define ST_DOR 1
#define ST_DET 2
#define INF UINT32_MAX

static struct tvl *tvl_of(const struct rt_tables *t)
{
	return t->vl->ctx;
}

static uint8_t tor_path_sl(const struct rt_tables *t, unsigned int slid,
			   unsigned int dlid)
{
	const struct tvl *tv = tvl_of(t);
	struct tans key = { .slid = slid, .dlid = dlid }, *a;
	uint32_t s;

	if (slid > tv->top || dlid > tv->top)
		return 0;
	if (tv->nans) {
		a = bsearch(&key, tv->ans, tv->nans, sizeof(key), rt_torus_ans_cmp);
		if (a)
			return a->sl;
	}
	s = tv->lid_sw[slid];
	return s == FAB_NONE ? 0 : tv->sl[(size_t)s * (tv->top + 1) + dlid];
}

static uint8_t tor_sl2vl(const struct rt_tables *t, uint32_t sw,
			 unsigned int in, unsigned int out, unsigned int sl)
{
	const struct tvl *tv = tvl_of(t);
	unsigned int k = 0;

	(void)in;
	if (sw < tv->nsw && out < 256)
		k = tv->port_dateline[(size_t)sw * 256 + out];
	return vl_for(tv, k, sl & 15);
}

static void tvl_release(struct rt_vl *vl)
{
	struct tvl *tv = vl->ctx;

	free(tv->lid_sw);
	free(tv->sl);
	free(tv->port_dateline);
	free(tv->ans);
	free(tv);
}

/* Slot of the cable s -> q: its dimension and direction (0 is +1). */
static unsigned int slot_to(const struct eng *e, uint32_t s, uint32_t q)
{
	const uint8_t *a = co(e, s), *b = co(e, q);
	unsigned int d;

	unsigned int n;

	for (d = 0; d < e->nd; d++) {
		if (a[d] == b[d])
			continue;
		n = e->ti->radix[d];
		if (!e->ti->wrap[d] || n == 2)
			return 2 * d + (b[d] < a[d]);
		return 2 * d + (b[d] != (a[d] + 1) % n);
	}
	return NOSLOT;
}

static int add_port(struct eng *e, uint32_t s, unsigned int p, uint32_t q)
{
	unsigned int k = slot_to(e, s, q);
	size_t i = (size_t)s * NSLOT + k;

	if (k == NOSLOT || (e->next_sw[i] != FAB_NONE && e->next_sw[i] != q))
		return -EINVAL;
	e->next_sw[i] = q;
	e->port[i * e->par + e->npar[i]++] = p;
	e->pslot[(size_t)s * 256 + p] = k;
	return 0;
}

static int map_ports(struct eng *e)
{
	const struct fabric *f = e->t->fab;
	uint32_t s, n;
	unsigned int p;
	int ret;

	for (s = 0; s < e->t->nsw; s++)
		memcpy(co(e, s), tor_coord(e->ti, e->t->sw_node[s]),
		       TOR_MAX_DIMS);
	for (s = 0; s < e->t->nsw; s++) {
		n = e->t->sw_node[s];
		for (p = 1; p <= f->nodes[n].nports; p++) {
			const struct fab_port *fp = fab_port(f, n, p);

			if (fp->peer == FAB_NONE || !fab_is_sw(f, fp->peer) ||
			    !e->ti->placed[fp->peer] || !e->ti->placed[n])
				continue;
			ret = add_port(e, s, p, e->t->node_sw[fp->peer]);
			if (ret)
				return ret;
		}
	}
	return 0;
}

/* Every position of s's line in d holds a switch, every cable is there. */
static bool line_whole(const struct eng *e, uint32_t s, unsigned int d)
{
	unsigned int n = e->ti->radix[d], i, k;
	uint32_t cur = s;

	/* back to the line's start (a ring has none: go round once) */
	for (i = 0; i < n && co(e, cur)[d] && nbr(e, cur)[2 * d + 1] != FAB_NONE;
	     i++)
		cur = nbr(e, cur)[2 * d + 1];
	if (co(e, cur)[d])
		return false;
	for (k = 1; k < n; k++) {
		cur = nbr(e, cur)[2 * d];
		if (cur == FAB_NONE)
			return false;
	}
	return !e->ti->wrap[d] || n == 2 || nbr(e, cur)[2 * d] != FAB_NONE;
}

/* The minimal direction from a to b in d; ties split by the class. */
static unsigned int pick_dir(const struct eng *e, unsigned int d,
			     unsigned int a, unsigned int b, unsigned int cl)
{
	unsigned int n = e->ti->radix[d], fwd;

	if (!e->ti->wrap[d] || n == 2)
		return b < a;
	fwd = (b + n - a) % n;
	if (2 * fwd != n)
		return 2 * fwd > n;
	return (a + (cl >> d & 1)) & 1;
}

static bool arc_open(const struct eng *e, uint32_t c, unsigned int d,
		     unsigned int dir, unsigned int b)
{
	unsigned int i;

	for (i = 0; c != FAB_NONE && co(e, c)[d] != b; i++) {
		if (i > e->ti->radix[d])
			return false;
		c = nbr(e, c)[2 * d + dir];
	}
	return c != FAB_NONE;
}

/*
 * Next slot of dimension order from c to T, NOSLOT when it is cut off;
 * dest_tables() of T's.
 */
static unsigned int dor_slot(const struct eng *e, uint32_t c, uint32_t T)
{
	unsigned int d, a, b, dir;

	for (d = 0; d < e->nd; d++) {
		a = co(e, c)[d];
		b = co(e, T)[d];
		if (a == b)
			continue;
		dir = e->dir[d][a];
		if (e->whole[(size_t)c * TOR_MAX_DIMS + d] ||
		    arc_open(e, c, d, dir, b))
			return 2 * d + dir;
		if (e->ti->wrap[d] && e->ti->radix[d] > 2 &&
		    arc_open(e, c, d, dir ^ 1, b))
			return 2 * d + (dir ^ 1);
		return NOSLOT;
	}
	return NOSLOT;
}

/* The SL bit of d's ring when the minimal route from a to b wraps in it. */
static unsigned int ring_bit(const struct eng *e, unsigned int d,
			     unsigned int a, unsigned int b, unsigned int par)
{
	unsigned int dir;

	if (e->dateline[d] < 0 || a == b)
		return 0;
	dir = pick_dir(e, d, a, b, par);
	if ((dir == 0 && b < a) || (dir == 1 && b > a))
		return 1u << e->dateline[d];
	return 0;
}

/* SL bits of the intact torus: which rings the minimal route wraps in. */
static unsigned int dateline_bits(const struct eng *e, uint32_t c,
				  uint32_t T, unsigned int par)
{
	unsigned int d, bits = 0;

	for (d = 0; d < e->nd; d++)
		bits |= ring_bit(e, d, co(e, c)[d], co(e, T)[d], par);
	return bits;
}

/*
 * pick_dir() and dateline_bits() towards one destination, by coordinate:
 * each switch then reads a table entry per dimension instead of picking
 * directions.
 */
static void dest_tables(struct eng *e, uint32_t T, unsigned int par)
{
	unsigned int d, a, b;

	for (d = 0; d < e->nd; d++) {
		b = co(e, T)[d];
		for (a = 0; a < e->ti->radix[d]; a++) {
			e->dir[d][a] = pick_dir(e, d, a, b, par);
			e->wb[d][a] = ring_bit(e, d, a, b, par);
		}
	}
}

static unsigned int table_bits(const struct eng *e, uint32_t c)
{
	const uint8_t *a = co(e, c);
	unsigned int i, d, bits = 0;

	for (i = 0; i < e->tv->ndatelines; i++) {
		d = e->dateline_dim[i];
		bits |= e->wb[d][a[d]];
	}
	return bits;
}

/* Dimension order from every switch to T, memoised along each walk. */
static void dor_tree(struct eng *e, uint32_t T)
{
	uint32_t c, cur, n = e->t->nsw, depth;
	unsigned int k;
	uint8_t out;

	memset(e->st, ST_UNK, n);
	e->st[T] = ST_DOR;
	e->len[T] = 0;
	e->hop[T] = NOSLOT;
	for (c = 0; c < n; c++) {
		for (cur = c, depth = 0; e->st[cur] == ST_UNK; depth++) {
			k = dor_slot(e, cur, T);
			e->hop[cur] = k;
			e->qa[depth] = cur;
			if (k == NOSLOT || depth >= n) {
				depth++;
				break;
			}
			cur = nbr(e, cur)[k];
		}
		out = e->st[cur] == ST_DOR ? ST_DOR : ST_DET;
		if (e->st[cur] == ST_UNK)
			out = ST_DET;
		while (depth-- > 0) {
			uint32_t s = e->qa[depth];

			if (out == ST_DOR && e->hop[s] != NOSLOT) {
				e->len[s] = e->len[nbr(e, s)[e->hop[s]]] + 1;
			} else {
				out = ST_DET;
			}
			e->st[s] = out;
		}
	}
}

static uint32_t label(const struct eng *e, uint32_t s)
{
	return e->st[s] == ST_DOR ? e->len[s] : e->lab[s];
}

/*
 * Switches dimension order cannot serve take a shortest way to a switch
 * it can (or to T), breadth first from those in order of their own
 * distance; ties spread by destination and parity.
 */
static void detour(struct eng *e, uint32_t T, unsigned int par)
{
	uint32_t n = e->t->nsw, na = 0, nb = 0, ia = 0, ib = 0, s, u, L;
	uint32_t maxlen = 0, *cnt;
	unsigned int k, best, bl, i, rot;

	for (s = 0; s < n; s++) {
		e->lab[s] = INF;
		if (e->st[s] == ST_DOR && e->len[s] > maxlen)
			maxlen = e->len[s];
	}
	/* counting sort of the dimension-order switches by distance */
	cnt = e->qb;
	memset(cnt, 0, (maxlen + 2) * sizeof(*cnt));
	for (s = 0; s < n; s++)
		if (e->st[s] == ST_DOR)
			cnt[e->len[s] + 1]++;
	for (L = 0; L <= maxlen; L++)
		cnt[L + 1] += cnt[L];
	for (s = 0; s < n; s++)
		if (e->st[s] == ST_DOR)
			e->qa[cnt[e->len[s]]++] = s, na++;
	while (ia < na || ib < nb) {
		if (ib < nb && (ia == na ||
				e->lab[e->qb[ib]] < e->len[e->qa[ia]]))
			u = e->qb[ib++];
		else
			u = e->qa[ia++];
		L = label(e, u);
		for (k = 0; k < NSLOT; k++) {
			s = nbr(e, u)[k];
			if (s == FAB_NONE || e->st[s] != ST_DET ||
			    e->lab[s] != INF)
				continue;
			e->lab[s] = L + 1;
			e->qb[nb++] = s;
		}
	}
	for (s = 0; s < n; s++) {
		if (e->st[s] != ST_DET)
			continue;
		e->hop[s] = NOSLOT;
		if (e->lab[s] == INF)
			continue;
		best = NOSLOT;
		bl = INF;
		rot = (T + (par & 1) + s) % NSLOT;
		for (i = 0; i < NSLOT; i++) {
			k = (i + rot) % NSLOT;
			u = nbr(e, s)[k];
			if (u != FAB_NONE && label(e, u) < bl) {
				bl = label(e, u);
				best = k;
			}
		}
		e->hop[s] = best;
	}
}

/*
 * The rest of a dimension-order route from s2 on, whose next hop is slot
 * k2, has the dependencies of s2's own route (added for it, dest_tables()
 * of the same destination): both take the same hops, and on SL sl the
 * same VLs when sl and s2's SL agree on the ring of k2, the only one
 * left whose dateline bit can differ (later rings' coordinates are the
 * source's, earlier ones take no more hops).
 */
static bool rest_shared(const struct eng *e, uint32_t s2, unsigned int k2,
			unsigned int sl)
{
	unsigned int d = k2 / 2;

	return e->dateline[d] < 0 || !((sl ^ e->wb[d][co(e, s2)[d]]) &
				 1u << e->dateline[d]);
}

/* VL of a hop on slot k with SL sl before any detour takes layer 1. */
static unsigned int slot_vl(const struct eng *e, unsigned int k,
			    unsigned int sl)
{
	int dl = e->dateline[k / 2];

	return dl < 0 ? 0 : sl >> dl & 1;
}

/*
 * Add the dependencies of c's dimension-order route to T on SL sl, from
 * dor_tree()'s hops, as far as they are not those of a switch on the way
 * (each served switch adds its own).
 */
static void add_dor(struct eng *e, uint32_t c, uint32_t T, unsigned int sl)
{
	unsigned int k = e->hop[c], k2, vl = slot_vl(e, k, sl), vl2;
	uint32_t s2;

	if (vl > e->maxvl)
		e->maxvl = vl;
	/* len[] falls by one a hop: the walk ends at T */
	for (s2 = nbr(e, c)[k]; s2 != T; s2 = nbr(e, c)[k]) {
		k2 = e->hop[s2];
		vl2 = slot_vl(e, k2, sl);
		*succ(e, c, k, vl) |= 1ull << (k2 * CVL + vl2);
		if (rest_shared(e, s2, k2, sl))
			return;
		if (vl2 > e->maxvl)
			e->maxvl = vl2;
		c = s2;
		k = k2;
		vl = vl2;
	}
}

/* rt_torus_walk() alone: what it added taken back when it fails. */
static bool add_path(struct eng *e, uint32_t src, uint32_t dst,
		     unsigned int lid, unsigned int sl)
{
	struct undo u = { .n = 0 };

	if (rt_torus_walk(e, src, dst, lid, sl, &u))
		return true;
	rt_torus_undo(&u);
	return false;
}

/* Any cycle among the dependencies?  Iterative depth first, three colours. */
static bool has_cycle(struct eng *e)
{
	size_t n = (size_t)e->t->nsw * NSLOT * CVL, x, y, top;
	uint64_t m;
	unsigned int b;

	/* seen: 0 white, 1 on the stack, 2 done */
	memset(e->seen, 0, n * sizeof(*e->seen));
	for (x = 0; x < n; x++) {
		if (e->seen[x] || !e->succ[x])
			continue;
		top = 0;
		e->stk[top] = x;
		e->stkm[top++] = e->succ[x];
		e->seen[x] = 1;
		while (top) {
			m = e->stkm[top - 1];
			if (!m) {
				e->seen[e->stk[--top]] = 2;
				continue;
			}
			b = __builtin_ctzll(m);
			e->stkm[top - 1] = m & (m - 1);
			y = ((size_t)e->next_sw[e->stk[top - 1] / CVL] * NSLOT +
			     b / CVL) * CVL + b % CVL;
			if (e->seen[y] == 1)
				return true;
			if (e->seen[y])
				continue;
			e->seen[y] = 1;
			e->stk[top] = y;
			e->stkm[top++] = e->succ[y];
		}
	}
	e->stamp = 2;
	return false;
}

static int note_detour(struct eng *e, uint32_t c, uint32_t T,
		       unsigned int lid, unsigned int par)
{
	struct det *d;

	if (e->ndet == e->cap) {
		size_t cap = e->cap ? 2 * e->cap : 256;

		d = realloc(e->det, cap * sizeof(*d));
		if (!d)
			return -ENOMEM;
		e->det = d;
		e->cap = cap;
	}
	d = &e->det[e->ndet++];
	d->src = c;
	d->dst = T;
	d->lid = lid;
	d->par = par;
	return 0;
}

/*
 * Of parallel cables, the one for T: a cable carries the most routes to
 * the nearest destinations (every source behind it) and the fewest to
 * the farthest, so ranks by the distance still to go, dealt back and
 * forth over the cables, even out; the destination's position across
 * the cable's dimension and its key j (its LID rank without jobs) shift
 * the deal.  (Ties split by the parity of the rank, not of the LID, which
 * the SM may hand out in coordinate order.)
 */
static uint8_t pick_port(const struct eng *e, uint32_t c, unsigned int k,
			 uint32_t T, unsigned int j)
{
	size_t i = (size_t)c * NSLOT + k;
	unsigned int np = e->npar[i], d = k / 2, n = e->ti->radix[d], r, q, m;
	unsigned int key = j >> 1, x, stride;

	if (np == 1)
		return e->port[i * e->par];
	r = k & 1 ? co(e, c)[d] + n - co(e, T)[d] :
		    co(e, T)[d] + n - co(e, c)[d];
	r = (r + n - 1) % n;
	q = r / np;
	m = r % np;
	for (x = 0, stride = 1; x < e->nd; x++)
		if (x != d) {
			key += co(e, T)[x] * stride;
			stride *= e->ti->radix[x];
		}
	return e->port[i * e->par + ((q & 1 ? np - 1 - m : m) + key) % np];
}

/* c's LFT and SL entries for the DLIDs of T of class par. */
static void fill_rows(struct eng *e, uint32_t c, uint32_t T,
		      unsigned int par, unsigned int bits)
{
	uint8_t *lft = rt_lft(e->t, c);
	uint8_t *sl = e->tv->sl + (size_t)c * (e->t->top + 1);
	uint32_t j, lid;

	for (j = e->loff[T]; j < e->loff[T + 1]; j++) {
		if (e->lcls[j] != par)
			continue;
		lid = e->lids[j];
		lft[lid] = pick_port(e, c, e->hop[c], T, e->lkey[j]);
		sl[lid] = bits;
	}
}

/* dest_tables(), dor_tree() and detour() towards T for class par. */
static void hops_to(struct eng *e, uint32_t T, unsigned int par)
{
	uint32_t c, n = e->t->nsw;
	bool det = false;

	dest_tables(e, T, par);
	dor_tree(e, T);
	for (c = 0; c < n && !det; c++)
		det = e->st[c] == ST_DET;
	if (det)
		detour(e, T, par);
}

/* Rows, SLs and dependencies for the DLIDs of T of class par. */
static int route_dest(struct eng *e, uint32_t T, unsigned int par)
{
	uint32_t c, n = e->t->nsw, first;
	unsigned int bits;
	int ret;

	for (first = e->loff[T]; first < e->loff[T + 1] &&
	     e->lcls[first] != par; first++)
		;
	if (first >= e->loff[T + 1])
		return 0;
	hops_to(e, T, par);
	first = e->lids[first];
	for (c = 0; c < n; c++) {
		if (c == T || e->hop[c] == NOSLOT)
			continue;
		bits = table_bits(e, c);
		fill_rows(e, c, T, par, bits);
		if (e->st[c] == ST_DOR) {
			add_dor(e, c, T, bits);
			continue;
		}
		ret = note_detour(e, c, T, first, par);
		if (ret)
			return ret;
	}
	return 0;
}

/*
 * A detour keeps its intact-torus SL when its dependencies fit there, else
 * moves to layer 1 (VLs mul..2 mul-1), with the dateline bits or without.
 */
static int place_detours(struct eng *e)
{
	struct tvl *tv = e->tv;
	size_t i, row = e->t->top + 1;
	unsigned int cand[3], nc, c, sl, j, bits;

	/* SLs of layer 0 never set the layer bit: turning it on is safe */
	tv->layer1 = true;
	for (i = 0; i < e->ndet; i++) {
		const struct det *d = &e->det[i];

		bits = dateline_bits(e, d->src, d->dst, d->par);
		cand[0] = bits;
		cand[1] = bits | 1u << tv->ndatelines;
		cand[2] = 1u << tv->ndatelines;
		nc = bits ? 3 : 2;
		for (c = 0; c < nc; c++)
			if (add_path(e, d->src, d->dst, d->lid, cand[c]))
				break;
		if (c == nc)
			return -ELOOP;
		sl = cand[c];
		e->layer1 += c > 0;
		for (j = e->loff[d->dst]; j < e->loff[d->dst + 1]; j++)
			if (e->lcls[j] == d->par)
				e->tv->sl[(size_t)d->src * row + e->lids[j]] =
					sl;
	}
	tv->layer1 = e->layer1 > 0;
	return 0;
}

/*
 * The classes that route differently: a tie bit per even ring of more
 * than two switches, and bit 0 for the detours.  Each switch's LIDs
 * alternate between class 0 and the last, their keys count up.
 */
static int default_classes(struct eng *e)
{
	uint32_t n = e->loff[e->t->nsw], s, j;
	unsigned int d;

	e->ties = 1;
	for (d = 0; d < e->nd; d++)
		if (e->ti->wrap[d] && e->ti->radix[d] > 2 &&
		    !(e->ti->radix[d] & 1))
			e->ties |= 1u << d;
	e->lcls = malloc(n + 1);
	e->lkey = malloc((n + 1) * sizeof(*e->lkey));
	if (!e->lcls || !e->lkey)
		return -ENOMEM;
	for (s = 0; s < e->t->nsw; s++)
		for (j = e->loff[s]; j < e->loff[s + 1]; j++) {
			e->lkey[j] = j - e->loff[s];
			e->lcls[j] = e->lkey[j] & 1 ? e->ties : 0;
		}
	return 0;
}

static int setup(struct eng *e, const struct tor_info *ti,
		 struct rt_tables *t)
{
	uint32_t n = t->nsw, s;
	unsigned int d, k, lid;
	size_t nodes = (size_t)n * NSLOT * CVL;
	struct tvl *tv;
	int ret;

	e->ti = ti;
	e->t = t;
	e->nd = ti->ndims;
	e->par = ti->par_max ? ti->par_max : 1;
	tv = e->tv = calloc(1, sizeof(*tv));
	if (!tv)
		return -ENOMEM;
	for (d = 0; d < e->nd; d++) {
		e->dateline[d] = -1;
		if (ti->wrap[d] && ti->radix[d] >= 5) {
			if (tv->ndatelines == MAX_DATELINES)
				return -ENOTSUP;
			e->dateline_dim[tv->ndatelines] = d;
			e->dateline[d] = tv->ndatelines++;
		}
	}
	tv->vl_per_layer = tv->ndatelines ? 2 : 1;
	tv->top = t->top;
	tv->nsw = n;
	tv->lid_sw = malloc((t->top + 1) * sizeof(*tv->lid_sw));
	tv->sl = calloc((size_t)n * (t->top + 1), 1);
	tv->port_dateline = calloc((size_t)n * 256, 1);
	e->coord = calloc((size_t)n * TOR_MAX_DIMS + 1, 1);
	e->next_sw = malloc(((size_t)n * NSLOT + 1) * sizeof(*e->next_sw));
	e->npar = calloc((size_t)n * NSLOT + 1, 1);
	e->port = calloc((size_t)n * NSLOT * e->par + 1, 1);
	e->pslot = malloc((size_t)n * 256 + 1);
	e->whole = calloc((size_t)n * TOR_MAX_DIMS + 1, sizeof(*e->whole));
	e->st = malloc(n + 1);
	e->hop = malloc(n + 1);
	e->len = malloc((n + 1) * sizeof(*e->len));
	e->lab = malloc((n + 1) * sizeof(*e->lab));
	e->qa = malloc((n + 2) * sizeof(*e->qa));
	e->qb = malloc((n + 258) * sizeof(*e->qb));
	e->succ = calloc(nodes + 1, sizeof(*e->succ));
	e->seen = calloc(nodes + 1, sizeof(*e->seen));
	e->stk = malloc((nodes + 1) * sizeof(*e->stk));
	e->stkm = malloc((nodes + 1) * sizeof(*e->stkm));
	if (!tv->lid_sw || !tv->sl || !tv->port_dateline || !e->coord ||
	    !e->next_sw || !e->npar || !e->port || !e->pslot || !e->whole ||
	    !e->st || !e->hop || !e->len || !e->lab || !e->qa || !e->qb ||
	    !e->succ || !e->seen || !e->stk || !e->stkm)
		return -ENOMEM;
	for (s = 0; s < (size_t)n * NSLOT; s++)
		e->next_sw[s] = FAB_NONE;
	memset(e->pslot, NOSLOT, (size_t)n * 256);
	ret = map_ports(e);
	if (ret)
		return ret;
	for (s = 0; s < n; s++) {
		for (d = 0; d < e->nd; d++)
			e->whole[(size_t)s * TOR_MAX_DIMS + d] = line_whole(e, s, d);
		for (k = 0; k < 256; k++) {
			unsigned int sk = e->pslot[(size_t)s * 256 + k];

			if (sk != NOSLOT && e->dateline[sk / 2] >= 0)
				tv->port_dateline[(size_t)s * 256 + k] =
					e->dateline[sk / 2] + 1;
		}
	}
	for (lid = 0; lid <= t->top; lid++)
		tv->lid_sw[lid] = t->lid_node[lid] == FAB_NONE ? FAB_NONE :
				  rt_lid_switch(t, lid);
	ret = rt_lids_by_switch(t, &e->loff, &e->lids);
	return ret ? ret : default_classes(e);
}

static void eng_release(struct eng *e)
{
	free(e->coord);
	free(e->next_sw);
	free(e->npar);
	free(e->port);
	free(e->pslot);
	free(e->whole);
	free(e->loff);
	free(e->lids);
	free(e->lcls);
	free(e->lkey);
	free(e->st);
	free(e->hop);
	free(e->len);
	free(e->lab);
	free(e->qa);
	free(e->qb);
	free(e->succ);
	free(e->seen);
	free(e->stk);
	free(e->stkm);
	free(e->det);
}

/* LFT entries of every switch but T for lid along hop (from hops_to()). */
static void write_column(struct eng *e, uint32_t T, unsigned int lid,
			 const uint8_t *hop, uint32_t key)
{
	uint32_t c;

	for (c = 0; c < e->t->nsw; c++)
		if (c != T)
			rt_lft(e->t, c)[lid] = hop[c] == NOSLOT ? RT_NO_PATH :
					       pick_port(e, c, hop[c], T, key);
}

/*
 * The job LID at entry j of T's: the class and parallel-cable key whose
 * routes (hops: every class's, from hops_to()) cost its job least, the
 * default unless another is strictly better.  Its column is left empty
 * for route_dest().
 */
static void plan_lid(struct eng *e, struct rt_jobplan *jp, uint32_t T,
		     uint32_t j, const uint8_t *hops)
{
	size_t n = e->t->nsw;
	unsigned int lid = e->lids[j], cl, o, bc = e->lcls[j];
	uint32_t bk = e->lkey[j], key;
	struct rt_jp_cost best, c;

	write_column(e, T, lid, hops + bc * n, bk);
	rt_jobplan_add(jp, lid, true);
	rt_jobplan_cost(jp, lid, &best);
	for (cl = 0; cl <= e->ties; cl++)
		for (o = 0; !(cl & ~e->ties) && o < e->par; o++) {
			key = e->lkey[j] + 2 * o;
			if (cl == e->lcls[j] && !o)
				continue;
			write_column(e, T, lid, hops + cl * n, key);
			rt_jobplan_cost(jp, lid, &c);
			if (rt_jobplan_better(&c, &best)) {
				best = c;
				bc = cl;
				bk = key;
			}
		}
	write_column(e, T, lid, hops + bc * n, bk);
	rt_jobplan_add(jp, lid, false);
	e->lcls[j] = bc;
	e->lkey[j] = bk;
	for (o = 0; o < n; o++)
		if (o != T)
			rt_lft(e->t, o)[lid] = RT_NO_PATH;
}

/*
 * Classes and keys of the job LIDs, destination by destination; a job
 * whose busiest own link the choice does not lower keeps the defaults.
 */
static int plan(struct eng *e, const struct rt_jobs *js)
{
	uint32_t n = e->t->nsw, nl = e->loff[n], T, j, jb;
	struct rt_jobplan jp;
	uint8_t *hops, *dcls;
	uint32_t *dkey;
	unsigned int cl;
	bool *keep;
	int ret;

	ret = rt_jobplan_init(&jp, e->t, js);
	hops = malloc((size_t)n * (e->ties + 1));
	dcls = malloc(nl + 1);
	dkey = malloc((nl + 1) * sizeof(*dkey));
	keep = calloc(js->njobs, sizeof(*keep));
	if (!ret && (!hops || !dcls || !dkey || !keep))
		ret = -ENOMEM;
	if (ret)
		goto out;
	memcpy(dcls, e->lcls, nl);
	memcpy(dkey, e->lkey, nl * sizeof(*dkey));
	for (T = 0; T < n; T++) {
		for (j = e->loff[T]; j < e->loff[T + 1] &&
		     rt_jobplan_job(&jp, e->lids[j]) == RT_JOB_NONE; j++)
			;
		if (j == e->loff[T + 1])
			continue;
		for (cl = 0; cl <= e->ties; cl++)
			if (!(cl & ~e->ties)) {
				hops_to(e, T, cl);
				memcpy(hops + (size_t)cl * n, e->hop, n);
			}
		for (; j < e->loff[T + 1]; j++)
			if (rt_jobplan_job(&jp, e->lids[j]) != RT_JOB_NONE)
				plan_lid(e, &jp, T, j, hops);
	}
	for (jb = 0; jb < js->njobs; jb++)
		keep[jb] = rt_jobplan_keep(&jp, jb);
	for (j = 0; j < nl; j++) {
		jb = rt_jobplan_job(&jp, e->lids[j]);
		if (jb != RT_JOB_NONE && !keep[jb]) {
			e->lcls[j] = dcls[j];
			e->lkey[j] = dkey[j];
		}
	}
out:
	free(hops);
	free(dcls);
	free(dkey);
	free(keep);
	rt_jobplan_release(&jp);
	return ret;
}

/* Appended to route()'s detail where hosts' switch requests moved. */
static void answers_detail(const struct eng *e, char *detail, size_t len)
{
	size_t n = strlen(detail);

	if (e->tv->nans && n < len)
		snprintf(detail + n, len - n,
			 ", %zu host-switch LID pairs on SLs of their own",
			 e->tv->nans);
	n = strlen(detail);
	if (e->unanswered && n < len)
		snprintf(detail + n, len - n,
			 ", switch answers unchecked (%s)", e->overflow ?
			 "a ring's hosts' requests to switch LIDs need more than 4 VLs" :
			 e->few_vls ?
			 "their VLs are more than the SM can program" :
			 "no SLs for the hosts' requests to switch LIDs");
}

static int route(const struct fabric *f, const void *info,
		 const struct rt_jobs *jobs, struct rt_tables *t, char *detail,
		 size_t len, const char **use)
{
	const struct tor_info *ti = info;
	struct eng e = { 0 };
	unsigned int cl;
	uint32_t T;
	int ret;

	(void)f;
	*detail = 0;
	if (!ti->torus)
		return -ENOTSUP;
	ret = setup(&e, ti, t);
	if (ret == -ENOTSUP)
		snprintf(detail, len, "more than %d rings need a dateline",
			 MAX_DATELINES);
	if (!ret && jobs && jobs->njobs) {
		ret = plan(&e, jobs);
		rt_jobplan_use(use, ret);
	}
	if (ret == -E2BIG)	/* too many jobs to plan for: none */
		ret = 0;
	for (T = 0; !ret && T < t->nsw; T++)
		for (cl = 0; !ret && cl <= e.ties; cl++)
			if (!(cl & ~e.ties))
				ret = route_dest(&e, T, cl);
	if (!ret && has_cycle(&e)) {
		snprintf(detail, len, "dimension-order routes close a credit loop");
		ret = -ELOOP;
	}
	if (!ret) {
		ret = place_detours(&e);
		if (ret == -ELOOP)
			snprintf(detail, len, "detours need more than %u VLs",
				 2 * e.tv->vl_per_layer);
	}
	if (!ret)
		ret = rt_torus_answers(&e);
	if (!ret) {
		e.tv->vl.nvl = e.maxvl + 1;
		e.tv->vl.path_sl = tor_path_sl;
		e.tv->vl.switch_sl = true;
		e.tv->vl.sl2vl = tor_sl2vl;
		e.tv->vl.ctx = e.tv;
		e.tv->vl.release = tvl_release;
		t->vl = t->own_vl = &e.tv->vl;
		snprintf(detail, len,
			 "dimension order on %u VL%s, %u dateline ring%s, %zu switch pairs detoured (%zu on VLs %u-%u)",
			 e.tv->vl.nvl, e.tv->vl.nvl > 1 ? "s" : "", e.tv->ndatelines,
			 e.tv->ndatelines == 1 ? "" : "s", e.ndet, e.layer1,
			 e.tv->vl_per_layer, 2 * e.tv->vl_per_layer - 1);
		answers_detail(&e, detail, len);
		e.tv = NULL;
	}
	if (e.tv) {
		e.tv->vl.ctx = e.tv;
		tvl_release(&e.tv->vl);
	}
	eng_release(&e);
	return ret;
}

static int recognise(const struct fabric *f, struct rt_fit *fit)
{
	struct tor_info *ti = calloc(1, sizeof(*ti));
	int ret;

	if (!ti)
		return -ENOMEM;
	fit->info = ti;
	ret = tor_recognise(f, ti);
	fit->fits = ti->torus;
	fit->topology = "torus";
	fit->summary = ti->summary;
	return ret;
}

static void release(struct rt_fit *fit)
{
	tor_info_release(fit->info);
	free(fit->info);
}

const struct rt_engine rt_torus_engine = {
	.name = "torus",
	.recognise = recognise,
	.release = release,
	.route = route,
};
