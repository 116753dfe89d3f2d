// SPDX-License-Identifier: MIT
/*
 * The live source.  Views get copies of the discovered fabric and LFTs,
 * so a new discovery never pulls them from under a request.  Path
 * records are cached per (SLID, DLID) for the discovery; a request that
 * finds the MAD port busy (a discovery or counter sweep running) falls
 * back to the ports' attributes instead of waiting.
 */
#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "live.h"
#include "tools/lib/livefab/livefab.h"

#define PR_CACHE 4096		/* path records kept, by hash */

struct pr_entry {
	uint32_t slid, dlid;	/* 0: empty */
	struct pool_path_attr a;
};

struct pool_live {
	struct lf *h;
	pthread_mutex_t lock;	/* the handle and everything below */
	uint64_t epoch;		/* discoveries made */
	bool stale;		/* the handle's discovery made no view */
	struct lf_sample prev;
	bool have_prev;
	struct lf_rate *rates;	/* last delta, for pool_live_apply() */
	size_t nrates;
	uint64_t rates_epoch;
	struct pr_entry cache[PR_CACHE];
};

int pool_live_open(const char *ca, unsigned int port, struct pool_live **out,
		   char *err, size_t len)
{
	struct pool_live *l = calloc(1, sizeof(*l));
	int ret;

	*out = NULL;
	if (!l) {
		snprintf(err, len, "out of memory");
		return -ENOMEM;
	}
	ret = lf_open(&l->h, ca, port, err, len);
	if (ret) {
		free(l);
		return ret;
	}
	pthread_mutex_init(&l->lock, NULL);
	*out = l;
	return 0;
}

void pool_live_close(struct pool_live *l)
{
	if (!l)
		return;
	if (l->have_prev)
		lf_sample_release(&l->prev);
	free(l->rates);
	lf_close(l->h);
	pthread_mutex_destroy(&l->lock);
	free(l);
}

/* A copy of f: same nodes in the same order, ports as they are. */
static int fab_copy(const struct fabric *f, struct fabric **out)
{
	struct fabric *g = fab_new();
	size_t n;
	int ret;

	*out = NULL;
	if (!g)
		return -ENOMEM;
	for (n = 0; n < f->nnodes; n++) {
		const struct fab_node *x = &f->nodes[n];

		ret = fab_add_node(g, x->type, x->nports, x->guid, x->desc);
		if (ret < 0) {
			fab_free(g);
			return ret;
		}
		g->nodes[n].sysguid = x->sysguid;
		memcpy(&g->ports[g->nodes[n].port0], &f->ports[x->port0],
		       (x->nports + 1) * sizeof(*f->ports));
	}
	*out = g;
	return 0;
}

/* IBA PathRecord rate encodings in Gb/s; 0 unknown. */
static double rate_gbps(unsigned int r)
{
	static const double gb[] = {
		[2] = 2.5, [3] = 10, [4] = 30, [5] = 5, [6] = 20, [7] = 40,
		[8] = 60, [9] = 80, [10] = 120, [11] = 14, [12] = 56,
		[13] = 112, [14] = 168, [15] = 25, [16] = 100, [17] = 200,
		[18] = 300, [19] = 28, [20] = 50, [21] = 400, [22] = 600,
	};

	return r < sizeof(gb) / sizeof(gb[0]) ? gb[r] : 0;
}

static int path_attr(void *ctx, unsigned int slid, unsigned int dlid,
		     struct pool_path_attr *a)
{
	struct pool_live *l = ctx;
	struct pr_entry *e = &l->cache[(slid * 40503u ^ dlid) % PR_CACHE];
	struct lf_path pr;
	int ret;

	if (pthread_mutex_trylock(&l->lock))
		return -EBUSY;
	if (e->slid == slid && e->dlid == dlid) {
		*a = e->a;
		pthread_mutex_unlock(&l->lock);
		return 0;
	}
	ret = lf_path_record(l->h, slid, dlid, &pr);
	if (!ret) {
		a->sl = pr.sl;
		a->mtu = pr.mtu >= 1 && pr.mtu <= 5 ? 128u << pr.mtu : 0;
		a->rate = rate_gbps(pr.rate);
		e->slid = slid;
		e->dlid = dlid;
		e->a = *a;
	}
	pthread_mutex_unlock(&l->lock);
	return ret;
}

int pool_live_view(struct pool_live *l, struct pool_view **out, char *err,
		   size_t len)
{
	struct fabric *f;
	int ret;

	*out = NULL;
	pthread_mutex_lock(&l->lock);
	l->stale = true;
	ret = lf_discover(l->h, err, len);
	if (!ret)
		ret = lf_read_lfts(l->h, err, len);
	if (ret)
		goto out_unlock;
	ret = fab_copy(lf_fabric(l->h), &f);
	if (ret) {
		snprintf(err, len, "out of memory");
		goto out_unlock;
	}
	ret = pool_view_adopt(f, lf_tables(l->h), lf_source(l->h), out, err,
			      len);
	if (ret)
		goto out_unlock;
	l->epoch++;
	l->stale = false;
	(*out)->epoch = l->epoch;
	(*out)->path_attr = path_attr;
	(*out)->path_ctx = l;
	memset(l->cache, 0, sizeof(l->cache));
	/* Counter samples name nodes of the discovery they were taken on. */
	if (l->have_prev)
		lf_sample_release(&l->prev);
	l->have_prev = false;
out_unlock:
	pthread_mutex_unlock(&l->lock);
	return ret;
}

/*
 * The handle's tables are a copy of v's until read again: the same
 * switches and LIDs, so the rows compare byte for byte.
 */
int pool_live_lfts_changed(struct pool_live *l, const struct pool_view *v,
			   char *err, size_t len)
{
	const struct rt_tables *t;
	int ret;

	pthread_mutex_lock(&l->lock);
	ret = 1;
	if (l->stale || l->epoch != v->epoch)
		goto out_unlock;
	ret = lf_read_lfts(l->h, err, len);
	if (ret)
		goto out_unlock;
	t = lf_tables(l->h);
	ret = memcmp(t->lft, v->rt.lft, (size_t)t->nsw * (t->top + 1)) != 0;
out_unlock:
	pthread_mutex_unlock(&l->lock);
	return ret;
}

int pool_live_sample(struct pool_live *l, char *err, size_t len)
{
	struct lf_sample s = { 0 };
	struct lf_rate *r = NULL;
	size_t n = 0, i;
	int ret, changed = 0;

	pthread_mutex_lock(&l->lock);
	ret = lf_read_counters(l->h, &s, err, len);
	if (ret)
		goto out_unlock;
	lf_sample_sort(&s);
	if (l->have_prev) {
		ret = lf_counter_delta(&l->prev, &s, &r, &n);
		if (ret) {
			snprintf(err, len, "out of memory");
			lf_sample_release(&s);
			goto out_unlock;
		}
		for (i = 0; i < n; i++)
			if (r[i].flags & (LF_RATE_NEW | LF_RATE_GONE))
				changed = 1;
		lf_sample_release(&l->prev);
		free(l->rates);
		l->rates = r;
		l->nrates = n;
		l->rates_epoch = l->epoch;
	}
	l->prev = s;
	l->have_prev = true;
	ret = changed;
out_unlock:
	pthread_mutex_unlock(&l->lock);
	return ret;
}

/*
 * A link's share of stalls: PortXmitWait ticks against the 4-byte words
 * it sent meanwhile.  A tick's length is the device's, so this is no
 * time fraction, but a link that mostly waits for credits comes near 1
 * whatever its data rate, which is what allocations should avoid.
 */
static double stall(const struct lf_rate *r)
{
	double w = (double)r->wait_ticks;

	if ((r->flags & LF_RATE_NO_WAIT) || w <= 0)
		return 0;
	return w / (w + r->data_bytes / 4.0);
}

void pool_live_apply(struct pool_live *l, struct pool_view *v)
{
	const struct fabric *f = v->fab;
	double cap;
	size_t i;

	pthread_mutex_lock(&l->lock);
	if (l->rates_epoch != v->epoch)
		goto out_unlock;
	memset(v->meas, 0, (f->nports + 1) * sizeof(*v->meas));
	for (i = 0; i < l->nrates; i++) {
		const struct lf_rate *r = &l->rates[i];
		const struct fab_port *fp;

		if (r->node >= f->nnodes || f->nodes[r->node].guid != r->guid ||
		    r->port > f->nodes[r->node].nports ||
		    (r->flags & (LF_RATE_NEW | LF_RATE_GONE)))
			continue;
		fp = fab_port(f, r->node, r->port);
		cap = fab_port_rate(fp);
		if (cap > 0)
			v->meas[f->nodes[r->node].port0 + r->port] =
				fmax(r->bytes_per_s / cap, stall(r));
	}
out_unlock:
	pthread_mutex_unlock(&l->lock);
}
