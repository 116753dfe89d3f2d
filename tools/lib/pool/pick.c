// SPDX-License-Identifier: MIT
/*
 * pool_alloc()'s policy: which free GPUs, shares or HCAs a request
 * takes, from what the hosts hold and what the cost oracle answers.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "pick.h"
#include "topology/textio.h"

/* A free GPU the client can reach. */
struct cand {
	uint32_t host;
	unsigned int gpu, rail, ord;	/* ord: free GPUs before it on its rail */
	uint32_t dlid;
	double load;
};

static int cmp_cand(const void *a, const void *b)
{
	const struct cand *x = a, *y = b;

	if (x->host != y->host)
		return x->host < y->host ? -1 : 1;
	if (x->ord != y->ord)
		return x->ord < y->ord ? -1 : 1;
	if (x->load != y->load)
		return x->load < y->load ? -1 : 1;
	return x->gpu < y->gpu ? -1 : x->gpu > y->gpu;
}

/* One host's few candidates (POOL_MAX_GPUS at most) into taking order. */
static void sort_host(struct cand *c, size_t n)
{
	struct cand x;
	size_t i, k;

	for (i = 1; i < n; i++) {
		x = c[i];
		for (k = i; k > 0 && cmp_cand(&c[k - 1], &x) > 0; k--)
			c[k] = c[k - 1];
		c[k] = x;
	}
}

/* Per host: its candidates c[first..first+n), in the order to take them. */
struct hcand {
	size_t first, n;
	double lower_bound;		/* no candidate's load is below it */
	bool used;
	bool known;		/* candidates asked of the cost oracle */
};

/* Whether host h's HCA r has rdma of its RDMA bandwidth free. */
static bool rdma_room(const struct pick_view *p, size_t h, unsigned int r,
		      unsigned int rdma)
{
	return p->hosts[h].rdma[r] + rdma <= POOL_RDMA_CAP;
}

/*
 * Host h's candidates into c, in taking order, behind HCAs with rdma
 * free; the cost oracle is asked once per rail.  Returns the count;
 * *unreach counts free GPUs behind unreachable ports.
 */
static size_t fill(const struct pick_view *p, const char *client,
		   const struct pool_oracle *o, size_t h, unsigned int rdma,
		   struct cand *c, unsigned int *unreach)
{
	const struct pool_host_cfg *cf = &p->cfg->hosts[h];
	unsigned int g, r, ord[POOL_MAX_HCAS];
	uint32_t dlid[POOL_MAX_HCAS];
	double load[POOL_MAX_HCAS];
	bool ok[POOL_MAX_HCAS], asked[POOL_MAX_HCAS];
	size_t n = 0;

	memset(asked, 0, cf->nhca * sizeof(*asked));
	memset(ord, 0, cf->nhca * sizeof(*ord));
	for (g = 0; g < cf->gpus; g++) {
		if (p->held[h] >> g & 1)
			continue;
		r = pool_gpu_rail(cf, g);
		if (!rdma_room(p, h, r, rdma))
			continue;
		if (!asked[r]) {
			struct pool_port port = { cf->name, r, &cf->hca[r], h };

			asked[r] = true;
			ok[r] = !o->cost(o->ctx, client, &port, &dlid[r],
					 &load[r]);
		}
		if (!ok[r]) {
			(*unreach)++;
			continue;
		}
		c[n].host = h;
		c[n].gpu = g;
		c[n].rail = r;
		c[n].ord = ord[r]++;
		c[n].dlid = dlid[r];
		c[n++].load = load[r];
	}
	sort_host(c, n);
	return n;
}

/*
 * A drained or failed host keeps what it holds but gives nothing new,
 * to a direct allocation as to the queue.
 */
static bool in_service(const struct pick_view *p, size_t h)
{
	return p->hosts[h].state == POOL_HOST_UP;
}

/* Every host's candidates, host after host; returns the count. */
static size_t candidates(const struct pick_view *p, const char *client,
			 const struct pool_oracle *o, unsigned int rdma,
			 struct cand *c, struct hcand *hc,
			 unsigned int *unreach)
{
	size_t h, n = 0;

	*unreach = 0;
	for (h = 0; h < p->cfg->nhosts; h++) {
		hc[h].first = n;
		if (!in_service(p, h))
			continue;
		hc[h].n = fill(p, client, o, h, rdma, c + n, unreach);
		hc[h].known = true;
		n += hc[h].n;
	}
	return n;
}

/* The GPUs of cf on rail r as bits: g * nhca / gpus == r. */
static uint64_t rail_gpus(const struct pool_host_cfg *cf, unsigned int r)
{
	unsigned int lo = (r * cf->gpus + cf->nhca - 1) / cf->nhca;
	unsigned int hi = ((r + 1) * cf->gpus + cf->nhca - 1) / cf->nhca;

	return (hi >= 64 ? ~0ull : (1ull << hi) - 1) & ~((1ull << lo) - 1);
}

/*
 * Every host's candidate count and the least of its rails' bounds, from
 * the bound alone, rail by rail as fill() asks; slots for the
 * candidates are laid out as candidates() would.  Returns the count.
 */
static size_t survey(const struct pick_view *p, const char *client,
		     const struct pool_oracle *o, unsigned int rdma,
		     struct hcand *hc, unsigned int *unreach)
{
	unsigned int r, k;
	uint64_t idle;
	double lb;
	size_t h, n = 0;

	*unreach = 0;
	for (h = 0; h < p->cfg->nhosts; h++) {
		const struct pool_host_cfg *cf = &p->cfg->hosts[h];

		hc[h].first = n;
		idle = in_service(p, h) ? ~p->held[h] : 0;
		for (r = 0; r < cf->nhca; r++) {
			struct pool_port port = { cf->name, r, &cf->hca[r], h };

			k = __builtin_popcountll(idle & rail_gpus(cf, r));
			if (!k || !rdma_room(p, h, r, rdma))
				continue;
			if (o->bound(o->ctx, client, &port, &lb)) {
				*unreach += k;
				continue;
			}
			if (!hc[h].n || lb < hc[h].lower_bound)
				hc[h].lower_bound = lb;
			hc[h].n += k;
		}
		n += hc[h].n;
	}
	return n;
}

static double take_cost(const struct cand *c, const struct hcand *h,
			size_t m)
{
	double s = 0;
	size_t i;

	for (i = 0; i < m; i++)
		s += c[h->first + i].load;
	return s;
}

/*
 * take_cost() with every load at the host's bound: added in the same
 * order, so it rounds to no more.
 */
static double take_bound(const struct hcand *h, size_t m)
{
	double s = 0;
	size_t i;

	for (i = 0; i < m; i++)
		s += h->lower_bound;
	return s;
}

/*
 * The host to take m GPUs from: among unused hosts with m candidates,
 * the cheapest for m, then the one with fewest spare (keeps big hosts
 * whole), then config order.  -1 when none has m.
 */
static long best_fit(const struct cand *c, const struct hcand *hc,
		     size_t nh, size_t m)
{
	double best = 0, x;
	long b = -1;
	size_t h;

	for (h = 0; h < nh; h++) {
		if (hc[h].used || hc[h].n < m)
			continue;
		x = take_cost(c, &hc[h], m);
		if (b < 0 || x < best || (x == best && hc[h].n < hc[b].n)) {
			best = x;
			b = h;
		}
	}
	return b;
}

/*
 * The host to take whole when none can hold the rest: most candidates,
 * then the cheapest per GPU, then config order.
 */
static long biggest(const struct cand *c, const struct hcand *hc, size_t nh)
{
	double best = 0, x;
	long b = -1;
	size_t h;

	for (h = 0; h < nh; h++) {
		if (hc[h].used || !hc[h].n)
			continue;
		x = take_cost(c, &hc[h], hc[h].n) / hc[h].n;
		if (b < 0 || hc[h].n > hc[b].n ||
		    (hc[h].n == hc[b].n && x < best)) {
			best = x;
			b = h;
		}
	}
	return b;
}

/*
 * best_fit() and biggest() both take the least of a key (cost, count,
 * config order); the lazy forms pop hosts in order of the key with the
 * bound for cost and ask the oracle about each popped until the next
 * one's key exceeds the best found: its cost can only be higher.
 */
struct hkey {
	double x;
	size_t n;
	uint32_t h;
};

static bool key_lt(const struct hkey *a, const struct hkey *b)
{
	if (a->x != b->x)
		return a->x < b->x;
	if (a->n != b->n)
		return a->n < b->n;
	return a->h < b->h;
}

static void sift_down(struct hkey *k, size_t n, size_t i)
{
	struct hkey x = k[i];
	size_t j;

	while ((j = 2 * i + 1) < n) {
		if (j + 1 < n && key_lt(&k[j + 1], &k[j]))
			j++;
		if (!key_lt(&k[j], &x))
			break;
		k[i] = k[j];
		i = j;
	}
	k[i] = x;
}

/* What choose() works on: every host known, or bounds (lazy). */
struct pick {
	const struct pick_view *p;
	const char *client;
	const struct pool_oracle *o;
	struct cand *c;
	struct hcand *hc;
	struct hkey *heap;	/* lazy: one key per host */
	unsigned int rdma;	/* the request's, per HCA */
	bool lazy;
	bool bad;		/* the oracle broke its bound: start over */
};

/*
 * Ask the oracle about host h if not done yet.  false (and k->bad) when
 * it disagrees with the bound; its candidates may then have run into
 * the next host's slots, which the exhaustive pass lays out afresh.
 */
static bool known(struct pick *k, size_t h)
{
	struct hcand *x = &k->hc[h];
	unsigned int unreach = 0;
	size_t i;

	if (x->known)
		return true;
	x->known = true;
	if (fill(k->p, k->client, k->o, h, k->rdma, k->c + x->first,
		 &unreach) !=
	    x->n)
		k->bad = true;
	for (i = 0; i < x->n && !k->bad; i++)
		k->bad = k->c[x->first + i].load < x->lower_bound;
	return !k->bad;
}

/* The least key's host among the n in k->heap, by their costs; -1: none. */
static long least(struct pick *k, size_t n, size_t m, bool per_gpu)
{
	struct hkey *q = k->heap, top, best = { 0, 0, 0 };
	long b = -1;
	size_t i;

	for (i = n / 2; i-- > 0;)
		sift_down(q, n, i);
	while (n) {
		top = q[0];
		if (b >= 0 && key_lt(&best, &top))
			break;
		q[0] = q[--n];
		sift_down(q, n, 0);
		if (!known(k, top.h))
			return -1;
		top.x = take_cost(k->c, &k->hc[top.h], per_gpu ? top.n : m);
		if (per_gpu)
			top.x /= top.n;
		if (b < 0 || key_lt(&top, &best)) {
			best = top;
			b = top.h;
		}
	}
	return b;
}

static long fit_lazy(struct pick *k, size_t nh, size_t m)
{
	size_t h, n = 0;
	double lb = 0, x = 0;

	for (h = 0; h < nh; h++) {
		if (k->hc[h].used || k->hc[h].n < m)
			continue;
		/* hosts mostly share a bound: add it up once for them */
		if (!n || k->hc[h].lower_bound != lb) {
			lb = k->hc[h].lower_bound;
			x = take_bound(&k->hc[h], m);
		}
		k->heap[n].x = x;
		k->heap[n].n = k->hc[h].n;
		k->heap[n++].h = h;
	}
	return least(k, n, m, false);
}

/* biggest(): the most candidates first, then as fit_lazy() per GPU. */
static long biggest_lazy(struct pick *k, size_t nh)
{
	size_t h, n = 0, most = 0;

	for (h = 0; h < nh; h++)
		if (!k->hc[h].used && k->hc[h].n > most)
			most = k->hc[h].n;
	for (h = 0; h < nh && most; h++) {
		if (k->hc[h].used || k->hc[h].n != most)
			continue;
		k->heap[n].x = take_bound(&k->hc[h], most) / most;
		k->heap[n].n = most;
		k->heap[n++].h = h;
	}
	return least(k, n, most, true);
}

/* Pick ngpus of the candidates into gpus; false: k->bad. */
static bool choose(struct pick *k, size_t nh, unsigned int ngpus,
		   struct pool_gpu_ref *gpus)
{
	const struct cand *c = k->c;
	struct hcand *hc = k->hc;
	size_t left = ngpus, m, i, n = 0;
	long h;

	while (left) {
		h = k->lazy ? fit_lazy(k, nh, left) : best_fit(c, hc, nh, left);
		if (h < 0 && !k->bad)
			h = k->lazy ? biggest_lazy(k, nh) : biggest(c, hc, nh);
		if (k->bad)
			return false;
		m = hc[h].n < left ? hc[h].n : left;
		for (i = 0; i < m; i++, n++) {
			const struct cand *x = &c[hc[h].first + i];

			gpus[n].host = x->host;
			gpus[n].gpu = x->gpu;
			gpus[n].rail = x->rail;
			gpus[n].dlid = x->dlid;
		}
		hc[h].used = true;
		left -= m;
	}
	return true;
}

/* Free GPUs on hosts out of service. */
static unsigned int free_out(const struct pick_view *p)
{
	unsigned int n = 0;
	size_t h;

	for (h = 0; h < p->cfg->nhosts; h++)
		if (!in_service(p, h))
			n += p->hosts[h].nfree;
	return n;
}

/*
 * Choose ngpus GPUs into gpus, lazily when k->lazy: 0, -ENOSPC
 * with its message, or -EAGAIN when the oracle broke its bound.
 */
static int pick(struct pick *k, unsigned int ngpus, unsigned int nfree,
		struct pool_gpu_ref *gpus, char *err, size_t len)
{
	const struct pick_view *p = k->p;
	unsigned int unreach, out;
	size_t n;

	memset(k->hc, 0, p->cfg->nhosts * sizeof(*k->hc));
	n = k->lazy ? survey(p, k->client, k->o, k->rdma, k->hc, &unreach) :
		      candidates(p, k->client, k->o, k->rdma, k->c, k->hc,
				 &unreach);
	if (n < ngpus) {
		out = free_out(p);
		if (k->rdma)
			return tio_err(err, len, -ENOSPC, "%u GPUs requested with %u%% of an HCA's RDMA bandwidth each, %u GPUs free, %zu of them behind HCAs that have it free",
				       ngpus, k->rdma, nfree, n);
		if (out)
			return tio_err(err, len, -ENOSPC, "%u GPUs requested, %u free, %u of them on drained or failed hosts",
				       ngpus, nfree, out);
		if (unreach)
			return tio_err(err, len, -ENOSPC, "%u GPUs requested, %u free, %u of them unreachable from %s",
				       ngpus, nfree, unreach, k->client);
		return tio_err(err, len, -ENOSPC, "%u GPUs requested, %u free",
			       ngpus, nfree);
	}
	return choose(k, p->cfg->nhosts, ngpus, gpus) ? 0 : -EAGAIN;
}

struct pick_scratch {
	struct cand *cand;
	size_t cand_cap;
	struct hcand *hc;
	struct hkey *heap;
};

int pick_scratch(struct pick_scratch **s, size_t nhosts, unsigned int nfree)
{
	struct pick_scratch *x = *s;

	if (!x)
		x = *s = calloc(1, sizeof(*x));
	if (!x)
		return -ENOMEM;
	if (!x->hc)
		x->hc = malloc((nhosts + 1) * sizeof(*x->hc));
	if (!x->heap)
		x->heap = malloc((nhosts + 1) * sizeof(*x->heap));
	if (!x->hc || !x->heap ||
	    tio_grow((void **)&x->cand, &x->cand_cap, nfree + 1,
		     sizeof(*x->cand)))
		return -ENOMEM;
	return 0;
}

void pick_scratch_free(struct pick_scratch *s)
{
	if (!s)
		return;
	free(s->cand);
	free(s->hc);
	free(s->heap);
	free(s);
}

int pick_gpus(const struct pick_view *v, struct pick_scratch *s,
	      const char *client, const struct pool_oracle *o,
	      unsigned int ngpus, unsigned int rdma, unsigned int nfree,
	      struct pool_gpu_ref *gpus, char *err, size_t len)
{
	struct pick k = { .p = v, .client = client, .o = o, .rdma = rdma,
			  .c = s->cand, .hc = s->hc, .heap = s->heap,
			  .lazy = o->bound };
	int ret;

	ret = pick(&k, ngpus, nfree, gpus, err, len);
	if (ret == -EAGAIN) {
		k.lazy = false;
		k.bad = false;
		ret = pick(&k, ngpus, nfree, gpus, err, len);
	}
	return ret;
}

/* --- GPU shares and HCAs alone: packed against fragmentation --- */

_Static_assert(POOL_MILLI == FRG_MILLI, "the pool's milli are FGD's");

/* Where a share (gpu) or an HCA alone (gpu POOL_NO_GPU) could go. */
struct spot {
	uint32_t host;
	unsigned int gpu, rail;
	double key;		/* lower is better */
};

static int cmp_spot(const void *a, const void *b)
{
	const struct spot *x = a, *y = b;

	if (x->key != y->key)
		return x->key < y->key ? -1 : 1;
	if (x->host != y->host)
		return x->host < y->host ? -1 : 1;
	if (x->gpu != y->gpu)
		return x->gpu < y->gpu ? -1 : 1;
	return x->rail < y->rail ? -1 : x->rail > y->rail;
}

/*
 * Host h's GPUs that could take milli (none held whole, rdma free on
 * its HCA) into s, keyed as the scheduler's FGD placement: the
 * fragmentation it adds for the workload w, then the share left on
 * the GPU (best fit).  Returns the count.
 */
static size_t share_spots(const struct pick_view *p, const struct frg_mix *w,
			  size_t h, unsigned int milli, unsigned int rdma,
			  struct spot *s)
{
	const struct pool_host_cfg *cf = &p->cfg->hosts[h];
	const struct pick_host *ph = &p->hosts[h];
	uint16_t g[POOL_MAX_GPUS];
	struct frg_host fh = { g, cf->gpus, FRG_NOCPU, 0 };
	unsigned int i, r;
	double before;
	size_t n = 0;

	for (i = 0; i < cf->gpus; i++)
		g[i] = POOL_MILLI - ph->used[i];
	before = frg_amount(w, &fh);
	for (i = 0; i < cf->gpus; i++) {
		r = pool_gpu_rail(cf, i);
		if (ph->owner[i] || g[i] < milli || !rdma_room(p, h, r, rdma))
			continue;
		g[i] -= milli;
		s[n++] = (struct spot){ .host = h, .gpu = i, .rail = r,
			.key = (frg_amount(w, &fh) - before) * 1e4 +
			       g[i] / 1e3 };
		g[i] += milli;
	}
	return n;
}

/* Host h's HCAs with rdma free into s, the least left after first. */
static size_t port_spots(const struct pick_view *p, size_t h, unsigned int rdma,
			 struct spot *s)
{
	unsigned int r;
	size_t n = 0;

	for (r = 0; r < p->cfg->hosts[h].nhca; r++)
		if (rdma_room(p, h, r, rdma))
			s[n++] = (struct spot){ .host = h, .gpu = POOL_NO_GPU,
				.rail = r,
				.key = POOL_RDMA_CAP - p->hosts[h].rdma[r] - rdma };
	return n;
}

/*
 * Of the n spots, in order, the first the client reaches, or among
 * those keyed alike the one with the cheapest path, into *r: false when
 * none is reachable (*unreach counts those asked).  A port is asked of
 * the oracle once in a row, and not at all when its bound cannot beat
 * the cheapest found.
 */
static bool reach_spot(const struct pick_view *p, const char *client,
		       const struct pool_oracle *o, const struct spot *s,
		       size_t n, struct pool_gpu_ref *r, unsigned int *unreach)
{
	double best = 0, key = 0, load = 0, lb;
	bool got = false, ok = false;
	uint32_t dlid = 0;
	size_t i;

	for (i = 0; i < n && (!got || s[i].key <= key); i++) {
		const struct pool_host_cfg *cf = &p->cfg->hosts[s[i].host];
		struct pool_port port = { cf->name, s[i].rail,
					  &cf->hca[s[i].rail], s[i].host };

		if (!i || s[i].host != s[i - 1].host ||
		    s[i].rail != s[i - 1].rail) {
			if (got && o->bound &&
			    (o->bound(o->ctx, client, &port, &lb) || lb >= best)) {
				ok = false;
				continue;
			}
			ok = !o->cost(o->ctx, client, &port, &dlid, &load);
			*unreach += !ok;
		}
		if (!ok || (got && load >= best))
			continue;
		got = true;
		best = load;
		key = s[i].key;
		*r = (struct pool_gpu_ref){ .host = s[i].host,
			.gpu = s[i].gpu, .rail = s[i].rail, .dlid = dlid };
	}
	return got;
}

/*
 * The pool's workload with a share of milli added, as at the
 * scheduler's submit (the request's own shape counts); NULL: out of
 * memory.  The caller frees it.
 */
static struct frg_mix *mix_with(const struct pick_view *p, unsigned int milli)
{
	struct frg_mix *w = malloc(sizeof(*w));

	if (w) {
		*w = *p->fgd;
		frg_mix_add(w, &(struct frg_req){ .milli = milli });
	}
	return w;
}

/*
 * Of the n spots, the first with the lowest key whose GPU (by_rail:
 * HCA) skip does not mark; NULL: none.
 */
static const struct spot *best_spot(const struct spot *s, size_t n,
				    uint64_t skip, bool by_rail)
{
	const struct spot *b = NULL;
	size_t i;

	for (i = 0; i < n; i++)
		if (!(skip >> (by_rail ? s[i].rail : s[i].gpu) & 1) &&
		    (!b || s[i].key < b->key))
			b = &s[i];
	return b;
}

int pick_spot(const struct pick_view *p, const char *client,
	      const struct pool_oracle *o, unsigned int milli,
	      unsigned int rdma, struct pool_gpu_ref *out, char *err,
	      size_t len)
{
	struct frg_mix *w = NULL;
	unsigned int unreach = 0;
	struct pool_gpu_ref r;
	struct spot *s;
	size_t h, n = 0, room = 0;
	bool got;

	for (h = 0; h < p->cfg->nhosts; h++)
		room += p->cfg->hosts[h].gpus + p->cfg->hosts[h].nhca;
	s = malloc((room + 1) * sizeof(*s));
	if (milli)
		w = mix_with(p, milli);
	if (!s || (milli && !w)) {
		free(s);
		free(w);
		return tio_err(err, len, -ENOMEM, "out of memory");
	}
	for (h = 0; h < p->cfg->nhosts; h++)
		if (in_service(p, h))
			n += milli ? share_spots(p, w, h, milli,
						     rdma, s + n) :
					 port_spots(p, h, rdma, s + n);
	qsort(s, n, sizeof(*s), cmp_spot);
	got = reach_spot(p, client, o, s, n, &r, &unreach);
	free(s);
	free(w);
	if (!got && milli)
		return tio_err(err, len, -ENOSPC, "a share of %u milli-GPUs requested%s, %zu GPUs have it free, %u of them unreachable from %s",
			       milli, rdma ? " with RDMA bandwidth" : "",
			       n, unreach, client);
	if (!got)
		return tio_err(err, len, -ENOSPC, "%u%% of an HCA's RDMA bandwidth requested, %zu HCAs have it free, %u of them unreachable from %s",
			       rdma, n, unreach, client);
	r.milli = milli;
	*out = r;
	return 0;
}

bool pick_share_best(const struct pick_view *p, size_t h, unsigned int milli,
		     unsigned int rdma, uint64_t skip, unsigned int *gpu,
		     double *key)
{
	struct spot s[POOL_MAX_GPUS];
	const struct spot *b;
	struct frg_mix *w;
	size_t n;

	if (h >= p->cfg->nhosts || !milli || milli >= POOL_MILLI ||
	    !(w = mix_with(p, milli)))
		return false;
	n = share_spots(p, w, h, milli, rdma, s);
	free(w);
	b = best_spot(s, n, skip, false);
	if (!b)
		return false;
	*gpu = b->gpu;
	*key = b->key;
	return true;
}

bool pick_port_best(const struct pick_view *p, size_t h, unsigned int rdma,
		    uint64_t skip, unsigned int *rail, double *key)
{
	struct spot s[POOL_MAX_HCAS];
	const struct spot *b;

	if (h >= p->cfg->nhosts || !rdma)
		return false;
	b = best_spot(s, port_spots(p, h, rdma, s), skip, true);
	if (!b)
		return false;
	*rail = b->rail;
	*key = b->key;
	return true;
}
