// SPDX-License-Identifier: MIT
/*
 * Concurrent collectives on the flow model: the flows of each round walked
 * through the tables, then rated max-min fairly by progressive filling.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "../topology/rng.h"
#include "collsim.h"

static const char *const patterns[] = {
	[CS_RING] = "ring",
	[CS_ALLTOALL] = "alltoall",
	[CS_NCCL_ALLTOALL] = "nccl-alltoall",
};

int cs_pattern_parse(const char *name, enum cs_pattern *p)
{
	size_t i;

	for (i = 0; i < sizeof(patterns) / sizeof(patterns[0]); i++)
		if (name && !strcmp(name, patterns[i])) {
			*p = i;
			return 0;
		}
	return -EINVAL;
}

const char *cs_pattern_name(enum cs_pattern p)
{
	return (size_t)p < sizeof(patterns) / sizeof(patterns[0]) ?
	       patterns[p] : "?";
}

struct hent {
	double share;
	uint32_t link;		/* dense id */
};

/*
 * Progressive filling's state over the links of one round, dense ids
 * given in order of first use.  Shares only grow as flows freeze (a flow
 * frozen at the smallest share leaves the others more each), so a heap
 * with stale entries checked when popped finds the next bottleneck.
 */
struct mm {
	uint32_t nlinks;	/* link ids below this */
	uint32_t *dense;	/* per link id: dense id, UINT32_MAX unused */
	uint32_t *ids;		/* dense -> link id */
	uint32_t nused;
	double *cap_left;	/* per dense link: capacity left */
	uint32_t *active;	/* flows not frozen */
	uint32_t *loff;		/* dense links' flows, CSR */
	uint32_t *lfl;
	struct hent *heap;
	size_t nheap;
	bool *frozen;		/* per flow */
	uint32_t maxflows;
	size_t maxrefs;
};

static void mm_release(struct mm *m)
{
	free(m->dense);
	free(m->ids);
	free(m->cap_left);
	free(m->active);
	free(m->loff);
	free(m->lfl);
	free(m->heap);
	free(m->frozen);
	memset(m, 0, sizeof(*m));
}

static int mm_init(struct mm *m, uint32_t nlinks)
{
	uint32_t i;

	memset(m, 0, sizeof(*m));
	m->nlinks = nlinks;
	m->dense = malloc((nlinks ? nlinks : 1) * sizeof(*m->dense));
	m->ids = malloc((nlinks ? nlinks : 1) * sizeof(*m->ids));
	m->cap_left = malloc((nlinks ? nlinks : 1) * sizeof(*m->cap_left));
	m->active = malloc((nlinks ? nlinks : 1) * sizeof(*m->active));
	m->loff = malloc((nlinks + 1) * sizeof(*m->loff));
	if (!m->dense || !m->ids || !m->cap_left || !m->active || !m->loff) {
		mm_release(m);
		return -ENOMEM;
	}
	for (i = 0; i < nlinks; i++)
		m->dense[i] = UINT32_MAX;
	return 0;
}

/* Room for n flows crossing refs links in all. */
static int mm_reserve(struct mm *m, uint32_t n, size_t refs)
{
	void *p;

	if (n > m->maxflows) {
		p = realloc(m->frozen, n * sizeof(*m->frozen));
		if (!p)
			return -ENOMEM;
		m->frozen = p;
		m->maxflows = n;
	}
	if (refs > m->maxrefs) {
		p = realloc(m->lfl, refs * sizeof(*m->lfl));
		if (!p)
			return -ENOMEM;
		m->lfl = p;
		p = realloc(m->heap, (refs + m->nlinks + 1) * sizeof(*m->heap));
		if (!p)
			return -ENOMEM;
		m->heap = p;
		m->maxrefs = refs;
	}
	return 0;
}

static void heap_push(struct mm *m, double share, uint32_t d)
{
	size_t i = m->nheap++;

	while (i) {
		size_t up = (i - 1) / 2;

		if (m->heap[up].share <= share)
			break;
		m->heap[i] = m->heap[up];
		i = up;
	}
	m->heap[i] = (struct hent){ share, d };
}

static struct hent heap_pop(struct mm *m)
{
	struct hent top = m->heap[0], last = m->heap[--m->nheap];
	size_t i = 0, c;

	while ((c = 2 * i + 1) < m->nheap) {
		if (c + 1 < m->nheap && m->heap[c + 1].share < m->heap[c].share)
			c++;
		if (last.share <= m->heap[c].share)
			break;
		m->heap[i] = m->heap[c];
		i = c;
	}
	if (m->nheap)
		m->heap[i] = last;
	return top;
}

/* Dense ids for the round's links and the flows of each, CSR. */
static void mm_index(struct mm *m, uint32_t n, const uint32_t *off,
		     const uint32_t *lnk)
{
	uint32_t i, d;
	size_t k;

	m->nused = 0;
	for (k = 0; k < off[n]; k++) {
		d = m->dense[lnk[k]];
		if (d == UINT32_MAX) {
			d = m->dense[lnk[k]] = m->nused;
			m->ids[m->nused++] = lnk[k];
			m->active[d] = 0;
		}
		m->active[d]++;
	}
	m->loff[0] = 0;
	for (d = 0; d < m->nused; d++) {
		m->loff[d + 1] = m->loff[d] + m->active[d];
		m->cap_left[d] = 1.0;
	}
	for (d = 0; d < m->nused; d++)
		m->active[d] = m->loff[d];
	for (i = 0; i < n; i++)
		for (k = off[i]; k < off[i + 1]; k++)
			m->lfl[m->active[m->dense[lnk[k]]]++] = i;
	for (d = 0; d < m->nused; d++)
		m->active[d] -= m->loff[d];
}

/* Freeze flow i at rate r: its links give up r each. */
static void freeze(struct mm *m, uint32_t i, double r, const uint32_t *off,
		   const uint32_t *lnk, double *rate)
{
	size_t k;

	m->frozen[i] = true;
	rate[i] = r;
	for (k = off[i]; k < off[i + 1]; k++) {
		uint32_t d = m->dense[lnk[k]];

		m->cap_left[d] = m->cap_left[d] > r ? m->cap_left[d] - r : 0;
		m->active[d]--;
	}
}

static int mm_solve(struct mm *m, uint32_t n, const uint32_t *off,
		    const uint32_t *lnk, double *rate)
{
	uint32_t i, d;
	size_t k;
	int ret = mm_reserve(m, n, off[n]);

	if (ret)
		return ret;
	mm_index(m, n, off, lnk);
	for (i = 0; i < n; i++) {
		m->frozen[i] = off[i] == off[i + 1];
		rate[i] = 1.0;
	}
	m->nheap = 0;
	/*
	 * A link with one flow never holds it below line rate: the flow
	 * keeps rate 1 unless another link freezes it lower.
	 */
	for (d = 0; d < m->nused; d++)
		if (m->active[d] > 1)
			heap_push(m, m->cap_left[d] / m->active[d], d);
	while (m->nheap) {
		struct hent h = heap_pop(m);
		double share;

		d = h.link;
		if (!m->active[d])
			continue;
		share = m->cap_left[d] / m->active[d];
		if (share > h.share * (1 + 1e-12) + 1e-15) {
			heap_push(m, share, d);
			continue;
		}
		for (k = m->loff[d]; k < m->loff[d + 1]; k++)
			if (!m->frozen[m->lfl[k]])
				freeze(m, m->lfl[k], share, off, lnk, rate);
	}
	for (d = 0; d < m->nused; d++)
		m->dense[m->ids[d]] = UINT32_MAX;
	return 0;
}

int cs_maxmin(uint32_t n, const uint32_t *off, const uint32_t *lnk,
	      uint32_t nlinks, double *rate)
{
	struct mm m;
	int ret = mm_init(&m, nlinks);

	if (!ret)
		ret = mm_solve(&m, n, off, lnk, rate);
	mm_release(&m);
	return ret;
}

/* One round's flows: links as fabric port indices, CSR. */
struct round {
	uint32_t n, cap;
	uint32_t *off;		/* cap + 1 */
	uint32_t *job;		/* per flow */
	bool *lost;		/* per flow: not delivered */
	struct rt_rank *src, *dst;	/* per flow, for the oracle */
	uint32_t *lnk;
	size_t nlnk, lcap;
	double *rate;
};

static void round_release(struct round *w)
{
	free(w->src);
	free(w->dst);
	free(w->off);
	free(w->job);
	free(w->lost);
	free(w->lnk);
	free(w->rate);
}

/* Room for cap flows; round_release() frees it, also after -ENOMEM. */
static int round_init(struct round *w, uint32_t cap)
{
	memset(w, 0, sizeof(*w));
	w->cap = cap;
	w->off = malloc((cap + 1) * sizeof(*w->off));
	w->job = malloc((cap ? cap : 1) * sizeof(*w->job));
	w->lost = malloc((cap ? cap : 1) * sizeof(*w->lost));
	w->rate = malloc((cap ? cap : 1) * sizeof(*w->rate));
	w->lcap = (size_t)(cap ? cap : 1) * 8;
	w->lnk = malloc(w->lcap * sizeof(*w->lnk));
	w->src = malloc((cap ? cap : 1) * sizeof(*w->src));
	w->dst = malloc((cap ? cap : 1) * sizeof(*w->dst));
	if (!w->off || !w->job || !w->lost || !w->rate || !w->lnk || !w->src ||
	    !w->dst)
		return -ENOMEM;
	w->off[0] = 0;
	return 0;
}

static int room(struct round *w, size_t more)
{
	uint32_t *p;

	if (w->nlnk + more <= w->lcap)
		return 0;
	p = realloc(w->lnk, (w->lcap * 2 + more) * sizeof(*p));
	if (!p)
		return -ENOMEM;
	w->lnk = p;
	w->lcap = w->lcap * 2 + more;
	return 0;
}

/* Fabric port index of node n's port p. */
static uint32_t gport(const struct fabric *f, uint32_t n, unsigned int p)
{
	return f->nodes[n].port0 + p;
}

/*
 * Append flow a -> b of job j: the links it crosses, or none and lost
 * when the tables do not deliver it (a hole, a dead port, a loop).
 */
static int add_flow(struct round *w, const struct rt_tables *t,
		    struct rt_rank a, struct rt_rank b, uint32_t j)
{
	const struct fabric *f = t->fab;
	const struct fab_port *fp = fab_port(f, a.node, a.port);
	unsigned int lid = fab_port(f, b.node, b.port)->lid, hops;
	size_t start = w->nlnk;
	uint32_t s, g, peer = fp->peer;
	int ret = room(w, 1);

	if (ret)
		return ret;
	w->lnk[w->nlnk++] = gport(f, a.node, a.port);
	s = peer != FAB_NONE && fab_is_sw(f, peer) ? t->node_sw[peer] :
						     FAB_NONE;
	for (hops = 0; s != FAB_NONE && lid && lid <= t->top &&
		       hops <= t->nsw; hops++) {
		unsigned int o = rt_lft(t, s)[lid];
		uint32_t sn = t->sw_node[s];

		if (!o || o > f->nodes[sn].nports || (ret = room(w, 1)))
			break;
		g = gport(f, sn, o);
		w->lnk[w->nlnk++] = g;
		peer = f->ports[g].peer;
		fp = &f->ports[g];
		s = peer != FAB_NONE && fab_is_sw(f, peer) ? t->node_sw[peer] :
							     FAB_NONE;
	}
	if (ret)
		return ret;
	w->job[w->n] = j;
	w->lost[w->n] = peer != b.node || fp->peer_port != b.port;
	if (w->lost[w->n])
		w->nlnk = start;
	w->off[++w->n] = w->nlnk;
	return 0;
}

struct sim {
	const struct rt_tables *t;
	const struct rt_jobs *js;
	const struct cs_opts *o;
	struct cs_result *r;
	uint32_t *order;	/* per rank slot: index into js->rank */
	uint32_t *first;	/* per job: all-to-all starting shift */
	double *inv_bw;		/* per job: sum of 1 / round bandwidth */
	bool *zero;		/* per job: a round at rate 0 */
	double *round_bw;	/* per job: this round's bandwidth */
	struct round w;
	struct mm m;
	/*
	 * The pairwise all-to-all's flows walked once for all rounds and
	 * alignments (cs_alignments()): job j's flows at shift s are pool's
	 * from blk[boff[j] + s - 1] on, UINT32_MAX until walked; blk NULL
	 * walks every round's flows afresh.
	 */
	uint32_t *blk, *boff;
	struct round pool;
	const double *floor;	/* per job: stop once below it, or NULL */
	/* the oracle's: switch distances, links, loads */
	struct rt_adj adj;
	uint16_t *dist;		/* nsw x nsw hops, UINT16_MAX apart */
	uint32_t *load;		/* per fabric port, per job with CS_ORACLE_OWN */
	uint32_t *hop;		/* scratch: one flow's links */
	uint32_t *vmax, *vsum, *vnext, *vstamp;	/* per switch: best rest */
	uint32_t stamp;
};

/* Flow a -> b of job j into the round: walked now, or by the oracle. */
static int add_pair(struct sim *c, struct rt_rank a, struct rt_rank b,
		    uint32_t j)
{
	struct round *w = &c->w;

	if (c->o->oracle == CS_ORACLE_NONE)
		return add_flow(w, c->t, a, b, j);
	w->src[w->n] = a;
	w->dst[w->n] = b;
	w->job[w->n] = j;
	w->lost[w->n] = false;
	w->off[++w->n] = 0;
	return 0;
}

static uint32_t ranks(const struct rt_jobs *js, uint32_t j)
{
	return js->rank_off[j + 1] - js->rank_off[j];
}

/* The switch a rank's port is cabled to, FAB_NONE for none. */
static uint32_t leaf_of(const struct rt_tables *t, struct rt_rank k)
{
	uint32_t peer = fab_port(t->fab, k.node, k.port)->peer;

	return peer != FAB_NONE && fab_is_sw(t->fab, peer) ?
	       t->node_sw[peer] : FAB_NONE;
}

/* The rail of each of a job's ranks: its place among its host's ports. */
static void rails(const struct rt_jobs *js, uint32_t j, uint32_t *rail)
{
	const struct rt_rank *rk = js->rank + js->rank_off[j];
	uint32_t n = ranks(js, j), i;
	char a[64], b[64];

	*a = 0;
	for (i = 0; i < n; i++) {
		bool named = fab_host_name(js->fab, rk[i].node, b, sizeof(b));

		rail[i] = i && named && !strcmp(a, b) ? rail[i - 1] + 1 : 0;
		memcpy(a, b, sizeof(a));
		if (!named)
			*a = 0;
	}
}

int cs_ring_next(const struct rt_jobs *js, uint32_t j, uint32_t *next)
{
	uint32_t n = ranks(js, j), i, k, *rail = malloc((n + 1) * sizeof(*rail));

	if (!rail)
		return -ENOMEM;
	rails(js, j, rail);
	for (i = 0; i < n; i++) {
		next[i] = UINT32_MAX;
		for (k = 1; k < n && next[i] == UINT32_MAX; k++)
			if (rail[(i + k) % n] == rail[i])
				next[i] = (i + k) % n;
	}
	free(rail);
	return 0;
}

/* Every job's all-to-all rank order, seeded shuffle or as given. */
static void a2a_order(struct sim *c)
{
	const struct rt_jobs *js = c->js;
	uint64_t rng = c->o->seed ^ 0x2545f4914f6cdd1dull;
	uint32_t j, i, x, *ord;

	for (j = 0; j < js->njobs; j++) {
		uint32_t n = ranks(js, j);

		ord = c->order + js->rank_off[j];
		for (i = 0; i < n; i++)
			ord[i] = i;
		for (i = n; c->o->shuffle && i > 1; i--) {
			uint32_t k = rng_below(&rng, i);

			x = ord[i - 1];
			ord[i - 1] = ord[k];
			ord[k] = x;
		}
		c->first[j] = n > 1 ? rng_below(&rng, n - 1) : 0;
	}
}

/* Switch-to-switch hops between every pair, breadth first. */
static int oracle_init(struct sim *c)
{
	const struct rt_tables *t = c->t;
	size_t nsw = t->nsw, n = (size_t)nsw * nsw;
	uint32_t s, *q = malloc((nsw + 1) * sizeof(*q)), a, b, k;
	uint16_t *d;
	int ret = rt_adj_build(&c->adj, t);

	c->dist = malloc((n + 1) * sizeof(*c->dist));
	c->load = calloc((size_t)t->fab->nports *
			 (c->o->oracle == CS_ORACLE_OWN ? c->js->njobs : 1) + 1,
			 sizeof(*c->load));
	c->hop = malloc((nsw + 2) * sizeof(*c->hop));
	c->vmax = malloc((nsw + 1) * sizeof(*c->vmax));
	c->vsum = malloc((nsw + 1) * sizeof(*c->vsum));
	c->vnext = malloc((nsw + 1) * sizeof(*c->vnext));
	c->vstamp = calloc(nsw + 1, sizeof(*c->vstamp));
	if (ret || !q || !c->dist || !c->load || !c->hop || !c->vmax ||
	    !c->vsum || !c->vnext || !c->vstamp) {
		free(q);
		return -ENOMEM;
	}
	for (k = 0; k < n; k++)
		c->dist[k] = UINT16_MAX;
	for (s = 0; s < nsw; s++) {
		d = c->dist + (size_t)s * nsw;
		d[s] = 0;
		for (q[0] = s, a = 0, b = 1; a < b; a++)
			for (k = c->adj.off[q[a]]; k < c->adj.off[q[a] + 1];
			     k++)
				if (d[c->adj.sw[k]] == UINT16_MAX) {
					d[c->adj.sw[k]] = d[q[a]] + 1;
					q[b++] = c->adj.sw[k];
				}
	}
	free(q);
	return 0;
}

/* The loads flow i sees: its job's alone (CS_ORACLE_OWN) or everyone's. */
static uint32_t *loads_of(struct sim *c, uint32_t i)
{
	return c->o->oracle == CS_ORACLE_OWN ?
	       c->load + (size_t)c->w.job[i] * c->t->fab->nports : c->load;
}

/*
 * The best way on from switch w to switch to over shortest paths: the
 * least loaded busiest link, then the least summed load, into vmax,
 * vsum and vnext (the adjacency entry to take), memoised by stamp;
 * equal ways by a hash of the flow (salt), so equal flows do not all
 * take the first port.
 */
static void best_rest(struct sim *c, uint32_t w, uint32_t to,
		      const uint32_t *load, uint32_t salt)
{
	const struct rt_tables *t = c->t;
	const uint16_t *d = c->dist + (size_t)to * t->nsw;
	uint32_t k, q, e, m, sum;

	c->vstamp[w] = c->stamp;
	c->vmax[w] = c->vsum[w] = 0;
	c->vnext[w] = UINT32_MAX;
	if (w == to)
		return;
	c->vmax[w] = c->vsum[w] = UINT32_MAX;
	for (k = c->adj.off[w]; k < c->adj.off[w + 1]; k++) {
		q = c->adj.sw[k];
		if (d[q] + 1 != d[w])
			continue;
		if (c->vstamp[q] != c->stamp)
			best_rest(c, q, to, load, salt);
		e = t->fab->nodes[t->sw_node[w]].port0 + c->adj.port[k];
		m = load[e] > c->vmax[q] ? load[e] : c->vmax[q];
		sum = load[e] + c->vsum[q];
		if (m < c->vmax[w] || (m == c->vmax[w] &&
		    (sum < c->vsum[w] || (sum == c->vsum[w] &&
		     ((k ^ salt) & 7) < ((c->vnext[w] ^ salt) & 7))))) {
			c->vmax[w] = m;
			c->vsum[w] = sum;
			c->vnext[w] = k;
		}
	}
}

/*
 * Flow i's switch links from switch from to switch to, the best way on
 * at every switch, into c->hop; their count, or -1 when the cabling
 * does not join the two.
 */
static int oracle_path(struct sim *c, uint32_t i, uint32_t from, uint32_t to,
		       const uint32_t *load)
{
	const struct rt_tables *t = c->t;
	uint32_t w = from, h = 0, k;

	if (c->dist[(size_t)to * t->nsw + from] == UINT16_MAX)
		return -1;
	if (!++c->stamp) {
		memset(c->vstamp, 0, t->nsw * sizeof(*c->vstamp));
		c->stamp = 1;
	}
	best_rest(c, from, to, load, i * 0x9e3779b9u);
	while (w != to) {
		k = c->vnext[w];
		c->hop[h++] = t->fab->nodes[t->sw_node[w]].port0 +
			      c->adj.port[k];
		w = c->adj.sw[k];
	}
	return (int)h;
}

/* Flow i's links on (d 1) or off (-1) its loads. */
static void oracle_load(struct sim *c, uint32_t i, const uint32_t *lnk,
			uint32_t n, int d)
{
	uint32_t *load = loads_of(c, i), k;

	for (k = 0; k < n; k++)
		load[lnk[k]] += d;
}

/*
 * The round's flows routed by source: once in order, then twice more
 * each taken off and routed again against all the others; then written
 * as the round's links (the CA's up and down links around them).
 */
static int oracle_round(struct sim *c)
{
	struct round *w = &c->w;
	const struct rt_tables *t = c->t;
	uint32_t maxh = t->nsw + 2, *path, *plen, i, pass;
	int ret = -ENOMEM, h;

	path = malloc(((size_t)w->n * maxh + 1) * sizeof(*path));
	plen = calloc(w->n + 1, sizeof(*plen));
	if (!path || !plen)
		goto out;
	for (pass = 0; pass < 3; pass++)
		for (i = 0; i < w->n; i++) {
			uint32_t a = leaf_of(t, w->src[i]);
			uint32_t b = leaf_of(t, w->dst[i]);

			if (a == FAB_NONE || b == FAB_NONE) {
				w->lost[i] = true;
				continue;
			}
			oracle_load(c, i, path + (size_t)i * maxh, plen[i], -1);
			h = oracle_path(c, i, a, b, loads_of(c, i));
			w->lost[i] = h < 0;
			plen[i] = h < 0 ? 0 : (uint32_t)h;
			memcpy(path + (size_t)i * maxh, c->hop,
			       plen[i] * sizeof(*path));
			oracle_load(c, i, path + (size_t)i * maxh, plen[i], 1);
		}
	w->nlnk = 0;
	for (i = 0; i < w->n; i++) {
		const struct fabric *f = t->fab;
		uint32_t b = w->dst[i].node, sw;

		oracle_load(c, i, path + (size_t)i * maxh, plen[i], -1);
		if ((ret = room(w, plen[i] + 2)))
			goto out;
		if (!w->lost[i]) {
			w->lnk[w->nlnk++] = gport(f, w->src[i].node,
						  w->src[i].port);
			memcpy(w->lnk + w->nlnk, path + (size_t)i * maxh,
			       plen[i] * sizeof(*path));
			w->nlnk += plen[i];
			sw = fab_port(f, b, w->dst[i].port)->peer;
			w->lnk[w->nlnk++] = gport(f, sw, fab_port(f, b,
					w->dst[i].port)->peer_port);
		}
		w->off[i + 1] = w->nlnk;
	}
	w->off[0] = 0;
	ret = 0;
out:
	free(path);
	free(plen);
	return ret;
}

/* Rate the round's flows and take each job's slowest. */
static int run_round(struct sim *c)
{
	struct round *w = &c->w;
	uint32_t i, j;
	int ret = c->o->oracle == CS_ORACLE_NONE ? 0 : oracle_round(c);

	if (!ret)
		ret = mm_solve(&c->m, w->n, w->off, w->lnk, w->rate);

	if (ret)
		return ret;
	for (j = 0; j < c->js->njobs; j++)
		c->round_bw[j] = 1.0;
	for (i = 0; i < w->n; i++) {
		double r = w->lost[i] ? 0 : w->rate[i];

		c->r->lost += w->lost[i];
		if (r < c->round_bw[w->job[i]])
			c->round_bw[w->job[i]] = r;
	}
	c->r->flows += w->n;
	for (i = 0; c->r->link && i < w->nlnk; i++)
		c->r->link[w->lnk[i]]++;
	return 0;
}

static int ring(struct sim *c)
{
	const struct rt_jobs *js = c->js;
	uint32_t j, i;
	int ret = 0;

	c->w.n = 0;
	c->w.nlnk = 0;
	for (j = 0; j < js->njobs && !ret; j++) {
		const struct rt_rank *rk = js->rank + js->rank_off[j];
		uint32_t n = ranks(js, j), *nx = c->order + js->rank_off[j];

		if (n < 2)
			continue;
		ret = cs_ring_next(js, j, nx);
		for (i = 0; i < n && !ret; i++)
			if (nx[i] != UINT32_MAX)
				ret = add_pair(c, rk[i], rk[nx[i]], j);
	}
	if (!ret)
		ret = run_round(c);
	for (j = 0; !ret && j < js->njobs; j++)
		c->r->bw[j] = ranks(js, j) > 1 ? c->round_bw[j] : 0;
	c->r->rounds = 1;
	return ret;
}

/* NCCL's all-to-all: one round, every rank to every other of its job. */
static int nccl_alltoall(struct sim *c)
{
	const struct rt_jobs *js = c->js;
	uint32_t j, a, b;
	int ret = 0;

	c->w.n = 0;
	c->w.nlnk = 0;
	for (j = 0; j < js->njobs && !ret; j++) {
		const struct rt_rank *rk = js->rank + js->rank_off[j];
		uint32_t n = ranks(js, j);

		for (a = 0; a < n && !ret; a++)
			for (b = 0; b < n && !ret; b++)
				if (a != b)
					ret = add_pair(c, rk[a], rk[b], j);
	}
	if (!ret)
		ret = run_round(c);
	for (j = 0; !ret && j < js->njobs; j++)
		c->r->bw[j] = ranks(js, j) > 1 ?
			      c->round_bw[j] * (ranks(js, j) - 1) : 0;
	c->r->rounds = 1;
	return ret;
}

/* Job j's flows at shift s into the round, from the pool (walked once). */
static int add_shift(struct sim *c, uint32_t j, uint32_t s)
{
	const struct rt_rank *rk = c->js->rank + c->js->rank_off[j];
	struct round *p = &c->pool, *w = &c->w;
	uint32_t n = ranks(c->js, j), *b = c->blk + c->boff[j] + s - 1, i;
	size_t from, len;
	int ret = 0;

	if (*b == UINT32_MAX) {
		*b = p->n;
		for (i = 0; i < n && !ret; i++)
			ret = add_flow(p, c->t, rk[i], rk[(i + s) % n], j);
		if (ret)
			return ret;
	}
	from = p->off[*b];
	len = p->off[*b + n] - from;
	if ((ret = room(w, len)))
		return ret;
	memcpy(w->lnk + w->nlnk, p->lnk + from, len * sizeof(*w->lnk));
	for (i = 0; i < n; i++, w->n++) {
		w->job[w->n] = j;
		w->lost[w->n] = p->lost[*b + i];
		w->off[w->n + 1] = w->nlnk + p->off[*b + i + 1] - from;
	}
	w->nlnk += len;
	return 0;
}

/* One round's flows: job j's ranks to the ranks s on. */
static int a2a_round(struct sim *c, uint32_t j, uint32_t s)
{
	const struct rt_rank *rk = c->js->rank + c->js->rank_off[j];
	const uint32_t *ord = c->order + c->js->rank_off[j];
	uint32_t n = ranks(c->js, j), i;
	int ret = 0;

	if (c->blk)
		return add_shift(c, j, s);
	for (i = 0; i < n && !ret; i++)
		ret = add_pair(c, rk[ord[i]], rk[ord[(i + s) % n]], j);
	return ret;
}

/*
 * Whether a job already ends below its floor after some of nr rounds:
 * its figure, nr over its summed 1 / round bandwidth, only falls.
 */
static bool below_floor(const struct sim *c, uint32_t nr)
{
	uint32_t j;

	for (j = 0; c->floor && j < c->js->njobs; j++)
		if (ranks(c->js, j) > 1 &&
		    (c->zero[j] ? 0 < c->floor[j] :
		     c->inv_bw[j] > 0 && nr / c->inv_bw[j] < c->floor[j]))
			return true;
	return false;
}

/* 0, -ENOMEM, or 1 when a job fell below its floor (r->bw not filled). */
static int alltoall(struct sim *c)
{
	const struct rt_jobs *js = c->js;
	uint32_t j, rnd, nr = c->o->rounds;
	int ret = 0;

	a2a_order(c);
	for (j = 0; !c->o->rounds && j < js->njobs; j++)
		if (ranks(js, j) > nr + 1)
			nr = ranks(js, j) - 1;
	for (rnd = 0; rnd < nr && !ret; rnd++) {
		c->w.n = 0;
		c->w.nlnk = 0;
		for (j = 0; j < js->njobs && !ret; j++) {
			uint32_t n = ranks(js, j);

			if (n > 1)
				ret = a2a_round(c, j, 1 + (c->first[j] + rnd) %
						      (n - 1));
		}
		if (!ret)
			ret = run_round(c);
		for (j = 0; !ret && j < js->njobs; j++) {
			if (ranks(js, j) < 2)
				continue;
			if (c->round_bw[j] > 0)
				c->inv_bw[j] += 1 / c->round_bw[j];
			else
				c->zero[j] = true;
		}
		if (!ret && below_floor(c, nr))
			return 1;
	}
	for (j = 0; !ret && j < js->njobs; j++)
		c->r->bw[j] = ranks(js, j) < 2 || c->zero[j] || !nr ? 0 :
			      nr / c->inv_bw[j];
	c->r->rounds = nr;
	return ret;
}

static void summarise(struct cs_result *r, const struct rt_jobs *js)
{
	double sum = 0;
	uint32_t j;

	r->worst = 0;
	for (j = 0; j < js->njobs; j++) {
		if (ranks(js, j) < 2)
			continue;
		if (!r->active || r->bw[j] < r->worst)
			r->worst = r->bw[j];
		sum += r->bw[j];
		r->active++;
	}
	r->mean = r->active ? sum / r->active : 0;
}

static void sim_release(struct sim *c)
{
	rt_adj_release(&c->adj);
	free(c->vmax);
	free(c->vsum);
	free(c->vnext);
	free(c->vstamp);
	free(c->dist);
	free(c->load);
	free(c->hop);
	free(c->order);
	free(c->first);
	free(c->inv_bw);
	free(c->zero);
	free(c->round_bw);
	free(c->blk);
	free(c->boff);
	round_release(&c->pool);
	round_release(&c->w);
	mm_release(&c->m);
}

/* c's room for its run of o (c->t, c->js set); 0 or -ENOMEM. */
static int sim_init(struct sim *c, const struct cs_opts *o,
		    struct cs_result *r)
{
	const struct rt_jobs *js = c->js;
	uint32_t nj = js->njobs ? js->njobs : 1;
	uint32_t nr = js->rank_off ? js->rank_off[js->njobs] : 0, nf = 0, j;

	c->o = o;
	c->r = r;
	memset(r, 0, sizeof(*r));
	r->pattern = o->pattern;
	r->njobs = js->njobs;
	r->bw = calloc(nj, sizeof(*r->bw));
	c->order = calloc(nr ? nr : 1, sizeof(*c->order));
	c->first = calloc(nj, sizeof(*c->first));
	c->inv_bw = calloc(nj, sizeof(*c->inv_bw));
	c->zero = calloc(nj, sizeof(*c->zero));
	c->round_bw = calloc(nj, sizeof(*c->round_bw));
	if (!r->bw || !c->order || !c->first || !c->inv_bw || !c->zero ||
	    !c->round_bw)
		return -ENOMEM;
	for (j = 0; j < js->njobs; j++)
		nf += o->pattern != CS_NCCL_ALLTOALL ? ranks(js, j) :
		      ranks(js, j) * (ranks(js, j) ? ranks(js, j) - 1 : 0);
	if (round_init(&c->w, nf) || mm_init(&c->m, c->t->fab->nports))
		return -ENOMEM;
	if (o->oracle != CS_ORACLE_NONE && oracle_init(c))
		return -ENOMEM;
	if (o->links &&
	    !(r->link = calloc(c->t->fab->nports + 1, sizeof(*r->link))))
		return -ENOMEM;
	return 0;
}

int cs_run(const struct rt_tables *t, const struct rt_jobs *js,
	   const struct cs_opts *o, struct cs_result *r)
{
	struct sim c = { .t = t, .js = js };
	size_t i;
	int ret = sim_init(&c, o, r);

	if (ret)
		goto out;
	ret = o->pattern == CS_RING ? ring(&c) :
	      o->pattern == CS_NCCL_ALLTOALL ? nccl_alltoall(&c) : alltoall(&c);
	if (!ret)
		summarise(r, js);
	for (i = 0; !ret && r->link && r->rounds > 1 && i < t->fab->nports;
	     i++)
		r->link[i] /= r->rounds;
out:
	sim_release(&c);
	if (ret)
		cs_result_release(r);
	return ret;
}

/*
 * Room for every job's flows at every shift, when they fit
 * CACHE_FLOWS; else c->blk stays NULL and rounds walk their flows.
 */
#define CACHE_FLOWS (1u << 20)

static int cache_init(struct sim *c)
{
	const struct rt_jobs *js = c->js;
	uint64_t nf = 0, nb = 0;
	uint32_t j, k;

	for (j = 0; j < js->njobs; j++) {
		uint64_t n = ranks(js, j);

		nf += n * (n ? n - 1 : 0);
		nb += n;
	}
	if (nf > CACHE_FLOWS)
		return 0;
	c->boff = malloc((js->njobs + 1) * sizeof(*c->boff));
	c->blk = malloc((nb + 1) * sizeof(*c->blk));
	if (!c->boff || !c->blk || round_init(&c->pool, (uint32_t)nf))
		return -ENOMEM;
	for (j = 0, nb = 0; j < js->njobs; j++) {
		c->boff[j] = (uint32_t)nb;
		nb += ranks(js, j);
	}
	for (k = 0; k < nb; k++)
		c->blk[k] = UINT32_MAX;
	return 0;
}

int cs_alignments(const struct rt_tables *t, const struct rt_jobs *js,
		  unsigned int rounds, const uint64_t *seeds,
		  unsigned int nseeds, const double *floor, double *bw,
		  double *mean, double *worst)
{
	struct cs_opts o = { .pattern = CS_ALLTOALL, .rounds = rounds };
	struct sim c = { .t = t, .js = js };
	struct cs_result r;
	uint32_t nj = js->njobs;
	unsigned int k;
	int ret = sim_init(&c, &o, &r);

	if (!ret)
		ret = cache_init(&c);
	for (k = 0; !ret && k < nseeds; k++) {
		o.seed = seeds[k];
		c.floor = floor ? floor + (size_t)k * nj : NULL;
		memset(c.inv_bw, 0, nj * sizeof(*c.inv_bw));
		memset(c.zero, 0, nj * sizeof(*c.zero));
		ret = alltoall(&c);
		if (ret)
			break;
		r.active = 0;
		summarise(&r, js);
		memcpy(bw + (size_t)k * nj, r.bw, nj * sizeof(*bw));
		mean[k] = r.mean;
		worst[k] = r.worst;
	}
	sim_release(&c);
	cs_result_release(&r);
	return ret < 0 ? ret : (int)k;
}

void cs_result_release(struct cs_result *r)
{
	free(r->bw);
	free(r->link);
	r->bw = NULL;
	r->link = NULL;
}
