// SPDX-License-Identifier: MIT
/*
 * The torus engine's SLs for the hosts' requests to switch LIDs whose
 * answers (on the request's SL) go on round a ring where the request
 * turned a tie: by free places on layer 1, else pair by pair where no
 * cycle closes, or none where a ring asks more VLs than there are.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "../../topology/textio.h"
#include "teng.h"

#define ANSWER_ROUNDS 16	/* greedy tries at hosts' switch answers */

int rt_torus_ans_cmp(const void *a, const void *b)
{
	const struct tans *x = a, *y = b;

	if (x->slid != y->slid)
		return x->slid < y->slid ? -1 : 1;
	return (x->dlid > y->dlid) - (x->dlid < y->dlid);
}

static int note_answer(struct eng *e, unsigned int slid, unsigned int dlid,
		       unsigned int sl)
{
	struct tvl *tv = e->tv;
	struct tans *a;

	if (tio_grow((void **)&tv->ans, &e->ans_cap, tv->nans + 1,
		     sizeof(*a)))
		return -ENOMEM;
	a = &tv->ans[tv->nans++];
	a->slid = slid;
	a->dlid = dlid;
	a->sl = sl;
	return 0;
}

/* A host LID l behind c and switch LID tl of T, on different SLs. */
struct tpair {
	uint32_t c;
	unsigned int l;
	uint32_t T;
	unsigned int tl;
	bool fail;		/* the last round placed it on no SL */
};

/* Both the request c -> T to tl and the answer T -> c to l on SL sl? */
static bool try_answer(struct eng *e, uint32_t c, unsigned int l, uint32_t T,
		       unsigned int tl, unsigned int sl)
{
	struct undo u = { .n = 0 };
	unsigned int maxvl = e->maxvl;

	if (rt_torus_walk(e, c, T, tl, sl, &u) && rt_torus_walk(e, T, c, l, sl, &u))
		return true;
	rt_torus_undo(&u);
	e->maxvl = maxvl;
	return false;
}

/*
 * Host LID l's requests to switch LID tl of T and T's answers.  Where the
 * host's class turns a tie other than the switch LID's, the answer goes
 * round the ring the way the request went on, so its own SL's dateline
 * bits differ from the request's: the pair then takes the first SL, on
 * layer 0 then layer 1, whose bits for those rings neither route's
 * dependencies close a cycle with.
 */
static int place_answer(struct eng *e, const struct tpair *p,
			unsigned int lay)
{
	struct tvl *tv = e->tv;
	size_t row = e->t->top + 1;
	unsigned int rq = tv->sl[(size_t)p->c * row + p->tl];
	unsigned int an = tv->sl[(size_t)p->T * row + p->l];
	unsigned int L = 1u << tv->ndatelines, x, v, i, sl, cand[2];

	x = (rq ^ an) & (L - 1);
	cand[0] = rq & x;
	cand[1] = an & x;
	for (i = 0; i < 2 + (1u << tv->ndatelines); i++) {
		v = i < 2 ? cand[i] : (i - 2) & x;
		if (i == 1 && v == cand[0])
			continue;
		if (i >= 2 && ((i - 2) & ~x || v == cand[0] || v == cand[1]))
			continue;
		sl = (rq & ~x & ~L) | v | (lay ? L : 0);
		if (!try_answer(e, p->c, p->l, p->T, p->tl, sl))
			continue;
		if (sl == rq)
			return 1;
		return note_answer(e, p->l, p->tl, sl) ? -ENOMEM : 1;
	}
	return 0;
}

/* Host-switch LID pairs whose request's and answer's SLs differ. */
static int pending_answers(struct eng *e, struct tpair **out, size_t *np)
{
	const struct rt_tables *t = e->t;
	const struct tvl *tv = e->tv;
	size_t row = t->top + 1, n = 0, cap = 0;
	struct tpair *ps = NULL;
	unsigned int l, j, tl;
	uint32_t c, T;

	for (l = 1; l <= t->top; l++) {
		c = tv->lid_sw[l];
		if (c == FAB_NONE || !rt_lid_is_ca(t, l))
			continue;
		for (T = 0; T < t->nsw; T++)
			for (j = e->loff[T]; j < e->loff[T + 1]; j++) {
				tl = e->lids[j];
				if (T == c || t->lid_node[tl] != t->sw_node[T] ||
				    tv->sl[(size_t)c * row + tl] ==
				    tv->sl[(size_t)T * row + l])
					continue;
				if (tio_grow((void **)&ps, &cap, n + 1,
					     sizeof(*ps))) {
					free(ps);
					return -ENOMEM;
				}
				ps[n++] = (struct tpair){ c, l, T, tl, false };
			}
	}
	*out = ps;
	*np = n;
	return 0;
}

/*
 * Every pair on layer 0 where it fits, then what is left on layer 1:
 * layer 0 first keeps layer 1 free for the pairs no SL of layer 0 takes.
 * Marks and counts the pairs neither takes; stops at more than 1 in 16
 * (the tie rings want more VLs than there are, another round will not
 * find them).
 */
static int place_round(struct eng *e, struct tpair *ps, size_t n,
		       size_t *left)
{
	unsigned int lay;
	size_t i;
	int ret;

	for (i = 0; i < n; i++)
		ps[i].fail = true;
	*left = 0;
	for (lay = 0; lay < 2; lay++)
		for (i = 0; i < n && *left * 16 <= n; i++) {
			if (!ps[i].fail)
				continue;
			ret = place_answer(e, &ps[i], lay);
			if (ret < 0)
				return ret;
			ps[i].fail = !ret;
			*left += lay && !ret;
		}
	for (i = *left = 0; i < n; i++)
		*left += ps[i].fail;
	return 0;
}

/* The pairs a round left first, the others after them, each in order. */
static void failed_first(struct tpair *ps, struct tpair *tmp, size_t n)
{
	size_t i, k = 0;

	for (i = 0; i < n; i++)
		if (ps[i].fail)
			tmp[k++] = ps[i];
	for (i = 0; i < n; i++)
		if (!ps[i].fail)
			tmp[k++] = ps[i];
	memcpy(ps, tmp, n * sizeof(*ps));
}

/* Back to the dependencies and VLs from before any answer was placed. */
static void answers_undo(struct eng *e, const uint64_t *succ0, size_t nodes,
			 unsigned int maxvl)
{
	memcpy(e->succ, succ0, nodes * sizeof(*succ0));
	e->maxvl = maxvl;
	e->tv->nans = 0;
}

/*
 * The position of d's ring that no route of a pair on layer 1's VL v
 * passes straight through, going dir (0 is +1): 0 and 2 going up, the
 * last and the third last going down.  The four are two apart or more,
 * and those of VL 0 at least three from those of VL 1 (rings of 6 or
 * more), so a run of one or two positions misses both of VL 0's or both
 * of VL 1's.
 */
static unsigned int free_pos(const struct eng *e, unsigned int d,
			     unsigned int dir, unsigned int v)
{
	return dir ? e->ti->radix[d] - 1 - 2 * v : 2 * v;
}

/*
 * Clear in ok[d] the layer-1 VLs of d (bit v) whose free position the
 * route from src to dst for lid passes straight through.  False when
 * the route has a hole.
 */
static bool free_walk(const struct eng *e, uint32_t src, uint32_t dst,
		      unsigned int lid, uint8_t *ok)
{
	unsigned int p, k, k2, d, v, i;
	uint32_t s = src, s2;

	p = rt_lft(e->t, s)[lid];
	k = p == RT_NO_PATH ? NOSLOT : e->pslot[(size_t)s * 256 + p];
	for (i = 0; s != dst && i <= e->t->nsw; i++) {
		if (k == NOSLOT)
			return false;
		s2 = nbr(e, s)[k];
		if (s2 == dst)
			return true;
		p = rt_lft(e->t, s2)[lid];
		k2 = p == RT_NO_PATH ? NOSLOT : e->pslot[(size_t)s2 * 256 + p];
		d = k / 2;
		for (v = 0; k2 == k && e->ti->wrap[d] && v < 2; v++)
			if (co(e, s2)[d] == free_pos(e, d, k & 1, v))
				ok[d] &= ~(1u << v);
		s = s2;
		k = k2;
	}
	return s == dst;
}

/*
 * The SL of pair p on layer 1 by free positions: per ring, the first VL
 * whose free positions neither the request nor the answer passes
 * straight through (a ring without a dateline bit has VL 0 alone).
 * False when a ring has none.
 */
static bool free_sl(const struct eng *e, const struct tpair *p,
		    unsigned int *sl, unsigned int *maxv)
{
	uint8_t ok[TOR_MAX_DIMS];
	unsigned int d, v;

	for (d = 0; d < e->nd; d++)
		ok[d] = e->dateline[d] < 0 ? 1 : 3;
	if (!free_walk(e, p->c, p->T, p->tl, ok) ||
	    !free_walk(e, p->T, p->c, p->l, ok))
		return false;
	*sl = 1u << e->tv->ndatelines;
	for (d = 0; d < e->nd; d++) {
		if (!ok[d])
			return false;
		v = !(ok[d] & 1);
		if (e->dateline[d] >= 0)
			*sl |= v << e->dateline[d];
		*maxv = v > *maxv ? v : *maxv;
	}
	return true;
}

/*
 * Every pair on layer 1 by free positions, when no detour is routed:
 * each VL of layer 1 then carries those pairs' requests and answers
 * alone, dimension-order routes, which turn only from a dimension to a
 * later one; and on each, in every ring and direction, one position is
 * never passed straight through, so the ring's channels there make a
 * line.  So layer 1 closes no cycle, proven, and needs no dependency
 * check; layer 0 only loses the requests that moved.  On rings of 8
 * this places pairs the greedy rounds cannot.  Returns 1 when every
 * pair is placed, 0 when some pair has no SL (nothing changed), or
 * -ENOMEM.
 */
static int place_free(struct eng *e, const struct tpair *ps, size_t n)
{
	struct tvl *tv = e->tv;
	unsigned int maxv = 0, sl;
	size_t i, n0 = tv->nans;

	if (e->ndet || !tv->ndatelines)
		return 0;
	for (i = 0; i < n; i++) {
		if (!free_sl(e, &ps[i], &sl, &maxv)) {
			tv->nans = n0;
			return 0;
		}
		if (note_answer(e, ps[i].l, ps[i].tl, sl))
			return -ENOMEM;
	}
	if (tv->vl_per_layer + maxv > e->maxvl)
		e->maxvl = tv->vl_per_layer + maxv;
	return 1;
}

/*
 * Hops of the route from src to dst for lid when all leave by one slot
 * (*k), else 0.
 */
static unsigned int straight_hops(const struct eng *e, uint32_t src,
				  uint32_t dst, unsigned int lid,
				  unsigned int *k)
{
	unsigned int p, h;
	uint32_t s = src;

	*k = NOSLOT;
	for (h = 0; s != dst && h <= e->t->nsw; h++) {
		p = rt_lft(e->t, s)[lid];
		if (p == RT_NO_PATH || e->pslot[(size_t)s * 256 + p] == NOSLOT ||
		    (h && e->pslot[(size_t)s * 256 + p] != *k))
			return 0;
		*k = e->pslot[(size_t)s * 256 + p];
		s = nbr(e, s)[*k];
	}
	return s == dst ? h : 0;
}

/* A pair whose request and answer go once round one ring, one way. */
struct round_pair {
	uint64_t ring;		/* its coordinates, the ring's own zeroed */
	uint8_t slot;		/* the ring's dimension and the way round */
	uint8_t res;		/* the host's switch's place, modulo half */
};

static int round_cmp(const void *a, const void *b)
{
	const struct round_pair *x = a, *y = b;

	if (x->ring != y->ring)
		return x->ring < y->ring ? -1 : 1;
	if (x->slot != y->slot)
		return x->slot - y->slot;
	return x->res - y->res;
}

/*
 * Whether the pairs ask more VLs than there are: a pair whose host's
 * switch c and switch T lie half a ring of n apart in one ring, whose
 * request and answer both go the same way round it, has every
 * dependency of that ring's channels that way on its VL (all of its
 * hops in the ring take the one VL its SL gives the ring) but those at
 * c and at T.  Two such pairs whose c differ other than by n / 2 leave
 * none out between them: a cycle.  So each place of c modulo n / 2 needs
 * a VL of its own, and a ring that way with more than CVL of them (on
 * rings of 10, 14, ..., where a tie's way alternates with the place)
 * cannot be placed on the VLs there are, whatever the SLs.  Returns 1
 * when so, 0 when not, or -ENOMEM.
 */
static int answers_overflow(const struct eng *e, const struct tpair *ps,
			    size_t n)
{
	struct round_pair *rp = malloc((n ? n : 1) * sizeof(*rp));
	unsigned int k, k2, d, j, h, nres = 0;
	size_t i, m = 0;
	int ret = 0;

	if (!rp)
		return -ENOMEM;
	for (i = 0; i < n; i++) {
		const uint8_t *a = co(e, ps[i].c), *b = co(e, ps[i].T);

		h = straight_hops(e, ps[i].c, ps[i].T, ps[i].tl, &k);
		d = k / 2;
		if (!h || 2 * h != e->ti->radix[d] ||
		    straight_hops(e, ps[i].T, ps[i].c, ps[i].l, &k2) != h ||
		    k2 != k)
			continue;
		rp[m] = (struct round_pair){ 0, k, a[d] % h };
		for (j = 0; j < e->nd; j++)
			if (j != d)
				rp[m].ring |= (uint64_t)a[j] << 8 * j;
		m += !memcmp(a, b, d) &&
		     !memcmp(a + d + 1, b + d + 1, e->nd - d - 1);
	}
	qsort(rp, m, sizeof(*rp), round_cmp);
	for (i = 0; i < m && !ret; i++) {
		if (i && (rp[i].ring != rp[i - 1].ring ||
			  rp[i].slot != rp[i - 1].slot))
			nres = 0;
		nres += !i || round_cmp(&rp[i], &rp[i - 1]);
		ret = nres > CVL;
	}
	free(rp);
	return ret;
}

/*
 * Greedy rounds: a round that leaves a few pairs is taken back and the
 * next tries those first, as they are the ones with the fewest SLs open.
 * When the last still leaves some, every pair keeps its request's SL,
 * as before, and the routing says its answers are unchecked; so too
 * when their layer needs more VLs than the fabric's (fab->vls).
 */
int rt_torus_answers(struct eng *e)
{
	struct tvl *tv = e->tv;
	size_t nodes = (size_t)e->t->nsw * NSLOT * CVL, n, left = 0, i;
	bool layer1 = tv->layer1;
	unsigned int maxvl = e->maxvl, round;
	struct tpair *ps = NULL, *tmp = NULL;
	uint64_t *succ0 = NULL;
	int ret;

	ret = pending_answers(e, &ps, &n);
	if (ret || !n)
		goto out;
	/* a layer the SM cannot program would cost the torus routing itself */
	if (!layer1 && fab_vls_within(e->t->fab, 2 * tv->vl_per_layer) <
	    2 * tv->vl_per_layer) {
		e->unanswered = e->few_vls = true;
		goto out;
	}
	ret = place_free(e, ps, n);
	if (ret) {
		ret = ret < 0 ? ret : 0;
		goto sort;
	}
	ret = answers_overflow(e, ps, n);
	if (ret) {
		e->unanswered = e->overflow = ret > 0;
		ret = ret < 0 ? ret : 0;
		goto sort;
	}
	succ0 = malloc(nodes * sizeof(*succ0));
	tmp = malloc(n * sizeof(*tmp));
	ret = -ENOMEM;
	if (!succ0 || !tmp)
		goto out;
	memcpy(succ0, e->succ, nodes * sizeof(*succ0));
	tv->layer1 = true;
	for (round = 0; round < ANSWER_ROUNDS; round++) {
		if (round) {
			answers_undo(e, succ0, nodes, maxvl);
			failed_first(ps, tmp, n);
		}
		ret = place_round(e, ps, n, &left);
		if (ret || !left || left * 16 > n)
			break;
	}
	e->unanswered = left > 0;
	if (left)	/* no VLs spent on a routing that keeps a cycle */
		answers_undo(e, succ0, nodes, maxvl);
sort:
	qsort(tv->ans, tv->nans, sizeof(*tv->ans), rt_torus_ans_cmp);
	for (i = 0; i < tv->nans && !layer1; i++)
		layer1 = tv->ans[i].sl & 1u << tv->ndatelines;
out:
	tv->layer1 = layer1;
	free(succ0);
	free(tmp);
	free(ps);
	return ret;
}
