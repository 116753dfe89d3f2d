// SPDX-License-Identifier: MIT
/*
 * Pool state and the allocation policy.  Operations check, build a
 * journal record, make it durable, then apply() it: replay runs the same
 * apply(), so the state after a restart is the state before it.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "hist.h"
#include "hostlist.h"
#include "journal.h"
#include "pool.h"
#include "frag.h"
#include "pick.h"
#include "topology/monotime.h"
#include "topology/textio.h"

/* Owns everything but cfg. */
struct pool {
	const struct pool_config *cfg;
	struct pool_hist sync_time;	/* pool_sync()s that synced */
	struct pick_host *hosts;
	/* per host, bit g: GPU g held or shared; dense, for the scan */
	uint64_t *held;
	struct frg_mix fgd;	/* the allocations' shapes, shares packed by */
	struct pool_alloc *allocs;	/* ascending id */
	size_t nallocs, alloc_cap;
	struct pool_job *jobs;
	size_t njobs, job_cap;
	struct pool_queued *queue;	/* ascending ticket */
	size_t nqueued, queue_cap;
	uint64_t next_ticket;
	uint64_t next_id;
	/*
	 * The latest time any call or record named: records carry it, not
	 * the caller's clock, so a clock stepping back cannot make replay
	 * keep a lease that a timer freed before (that is not journaled).
	 */
	time_t clock;
	struct pool_journal *j;
	bool group;		/* records are synced by pool_sync() */
	struct pick_scratch *scratch;	/* pool_alloc()'s, kept */
};

int pool_new(const struct pool_config *cfg, struct pool **out)
{
	struct pool *p = calloc(1, sizeof(*p));
	size_t h;

	*out = NULL;
	if (!p)
		return -ENOMEM;
	p->hosts = calloc(cfg->nhosts + 1, sizeof(*p->hosts));
	p->held = calloc(cfg->nhosts + 1, sizeof(*p->held));
	if (!p->hosts || !p->held) {
		free(p->hosts);
		free(p->held);
		free(p);
		return -ENOMEM;
	}
	p->cfg = cfg;
	p->next_id = 1;
	p->next_ticket = 1;
	pool_hist_init(&p->sync_time);
	for (h = 0; h < cfg->nhosts; h++)
		p->hosts[h].nfree = cfg->hosts[h].gpus;
	*out = p;
	return 0;
}

void pool_free(struct pool *p)
{
	size_t i;

	if (!p)
		return;
	for (i = 0; i < p->nallocs; i++)
		prec_alloc_release(&p->allocs[i]);
	for (i = 0; i < p->njobs; i++)
		prec_job_release(&p->jobs[i]);
	for (i = 0; i < p->nqueued; i++)
		prec_queued_release(&p->queue[i]);
	free(p->queue);
	pool_journal_close(p->j);
	pool_hist_destroy(&p->sync_time);
	pick_scratch_free(p->scratch);
	free(p->allocs);
	free(p->jobs);
	free(p->held);
	free(p->hosts);
	free(p);
}

static long host_index(const struct pool *p, const char *name)
{
	size_t h;

	for (h = 0; h < p->cfg->nhosts; h++)
		if (!strcmp(p->cfg->hosts[h].name, name))
			return h;
	return -1;
}

static long alloc_index(const struct pool *p, uint64_t id)
{
	size_t lo = 0, hi = p->nallocs;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (p->allocs[mid].id == id)
			return mid;
		if (p->allocs[mid].id < id)
			lo = mid + 1;
		else
			hi = mid;
	}
	return -1;
}

static long job_index(const struct pool *p, const char *job)
{
	size_t i;

	for (i = 0; i < p->njobs; i++)
		if (!strcmp(p->jobs[i].id, job))
			return i;
	return -1;
}

_Static_assert(POOL_MAX_GPUS <= 64, "a host's GPUs are bits of a word");

/* GPU (or share) r taken by allocation id (sign 1) or given back (-1). */
static void hold_gpu(struct pool *p, const struct pool_gpu_ref *r,
		     uint64_t id, int sign)
{
	struct pick_host *ph = &p->hosts[r->host];
	bool was = ph->used[r->gpu];

	ph->used[r->gpu] += sign * (int)(r->milli ? r->milli : POOL_MILLI);
	if (!r->milli)
		ph->owner[r->gpu] = sign > 0 ? id : 0;
	if (ph->used[r->gpu])
		p->held[r->host] |= 1ull << r->gpu;
	else
		p->held[r->host] &= ~(1ull << r->gpu);
	ph->nfree += was && !ph->used[r->gpu];
	ph->nfree -= !was && ph->used[r->gpu];
}

/*
 * Whether ref k of g is the first naming its HCA: an allocation's RDMA
 * share is taken once on each HCA it uses.
 */
static bool first_port(const struct pool_gpu_ref *g, unsigned int k)
{
	unsigned int i;

	for (i = 0; i < k; i++)
		if (g[i].host == g[k].host && g[i].rail == g[k].rail)
			return false;
	return true;
}

/* a's RDMA share taken (sign 1) or given back (-1) on its HCAs. */
static void hold_rdma(struct pool *p, const struct pool_alloc *a, int sign)
{
	unsigned int k;

	if (!a->rdma)
		return;
	if (a->has_port)
		p->hosts[a->port.host].rdma[a->port.rail] += sign * (int)a->rdma;
	for (k = 0; k < a->ngpus; k++)
		if (first_port(a->gpus, k))
			p->hosts[a->gpus[k].host].rdma[a->gpus[k].rail] +=
				sign * (int)a->rdma;
}

/* Whether a's RDMA share fits each of its HCAs (held by others). */
static bool rdma_fits(const struct pool *p, const struct pool_alloc *a)
{
	unsigned int k;

	if (a->has_port &&
	    p->hosts[a->port.host].rdma[a->port.rail] + a->rdma > POOL_RDMA_CAP)
		return false;
	for (k = 0; k < a->ngpus; k++)
		if (p->hosts[a->gpus[k].host].rdma[a->gpus[k].rail] +
		    a->rdma > POOL_RDMA_CAP)
			return false;
	return true;
}

/* Drop allocation i, its GPUs and RDMA shares back to free. */
static void drop_alloc(struct pool *p, size_t i)
{
	struct pool_alloc *a = &p->allocs[i];
	unsigned int k;

	hold_rdma(p, a, -1);
	for (k = 0; k < a->ngpus; k++)
		hold_gpu(p, &a->gpus[k], a->id, -1);
	prec_alloc_release(a);
	memmove(a, a + 1, (p->nallocs - i - 1) * sizeof(*a));
	p->nallocs--;
}

/* Advance the pool's clock to now; returns the clock. */
static time_t tick(struct pool *p, time_t now)
{
	if (now > p->clock)
		p->clock = now;
	return p->clock;
}

size_t pool_expire(struct pool *p, time_t now)
{
	size_t i = 0, n = 0;

	now = tick(p, now);
	while (i < p->nallocs) {
		if (p->allocs[i].expires <= now) {
			drop_alloc(p, i);
			n++;
		} else {
			i++;
		}
	}
	return n;
}

/* --- records into the state (record.c has their JSON shape) --- */

static long queued_index(const struct pool *p, uint64_t ticket)
{
	size_t lo = 0, hi = p->nqueued;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (p->queue[mid].ticket == ticket)
			return mid;
		if (p->queue[mid].ticket < ticket)
			lo = mid + 1;
		else
			hi = mid;
	}
	return -1;
}

/* Queue q (taken over), in ticket order; -EEXIST for a ticket queued. */
static int queue_insert(struct pool *p, struct pool_queued *q, char *err,
			size_t len)
{
	size_t at = p->nqueued;

	if (queued_index(p, q->ticket) >= 0)
		return tio_err(err, len, -EEXIST, "ticket %" PRIu64 " queued twice",
			       q->ticket);
	if (tio_grow((void **)&p->queue, &p->queue_cap, p->nqueued + 1,
		     sizeof(*p->queue)))
		return tio_err(err, len, -ENOMEM, "out of memory");
	while (at && p->queue[at - 1].ticket > q->ticket)
		at--;
	memmove(&p->queue[at + 1], &p->queue[at],
		(p->nqueued - at) * sizeof(*p->queue));
	p->queue[at] = *q;
	p->nqueued++;
	if (q->ticket >= p->next_ticket)
		p->next_ticket = q->ticket + 1;
	return 0;
}

static void queue_drop(struct pool *p, size_t i)
{
	prec_queued_release(&p->queue[i]);
	memmove(&p->queue[i], &p->queue[i + 1],
		(p->nqueued - i - 1) * sizeof(*p->queue));
	p->nqueued--;
}

static const char *const host_states[POOL_HOST_NSTATES] = {
	[POOL_HOST_UP] = "up",
	[POOL_HOST_DRAIN] = "drained",
	[POOL_HOST_FAIL] = "failed",
};

const char *pool_host_state_name(enum pool_host_state st)
{
	return st < POOL_HOST_NSTATES ? host_states[st] : "?";
}

/* A host record, or a snapshot's entry: {"host":NAME,"state":STATE}. */
static int take_host(struct pool *p, struct json_object *o, char *err,
		     size_t len)
{
	const char *name = prec_get_str(o, "host"),
		   *st = prec_get_str(o, "state");
	long h = name ? host_index(p, name) : -1;
	int i;

	for (i = 0; st && i < POOL_HOST_NSTATES; i++)
		if (!strcmp(st, host_states[i])) {
			/* a host the config no longer has: forgotten */
			if (h >= 0)
				p->hosts[h].state = i;
			return 0;
		}
	return tio_err(err, len, -EINVAL, "malformed host record");
}

/* A queue record, or a snapshot's queued entry, into the queue. */
static int take_queue(struct pool *p, struct json_object *o, char *err,
		      size_t len)
{
	struct pool_queued q;
	int ret = prec_take_queued(o, &q, err, len);

	if (ret)
		return ret;
	ret = queue_insert(p, &q, err, len);
	if (ret)
		prec_queued_release(&q);
	return ret;
}

/*
 * One GPU of an alloc record into r, checking it names a free GPU;
 * -ENOENT (err untouched) when the config has no such GPU: an orphan,
 * into l.
 */
static int take_gpu(struct pool *p, struct json_object *x,
		    struct pool_gpu_ref *r, struct pool_lost_gpu *l,
		    char *err, size_t len)
{
	const char *host = prec_get_str(x, "host");
	long h = host ? host_index(p, host) : -1;
	int64_t g, rail, dlid, milli;
	unsigned int out;

	if (!host || !prec_get_int(x, "gpu", 0, POOL_MAX_GPUS - 1, &g) ||
	    !prec_get_int(x, "rail", 0, POOL_MAX_HCAS - 1, &rail) ||
	    !prec_get_int(x, "dlid", 0, UINT32_MAX, &dlid) ||
	    !prec_opt_int(x, "milli", 1, POOL_MILLI - 1, &milli))
		return tio_err(err, len, -EINVAL, "bad GPU of host %s",
			       host ? host : "?");
	if (h < 0 || g >= p->cfg->hosts[h].gpus) {
		l->host = strdup(host);
		l->gpu = g;
		l->rail = rail;
		l->dlid = dlid;
		return l->host ? -ENOENT : tio_err(err, len, -ENOMEM, "out of memory");
	}
	if (rail >= p->cfg->hosts[h].nhca)
		return tio_err(err, len, -EINVAL, "bad GPU of host %s (the config has %u GPUs, %u HCAs)",
			       host, p->cfg->hosts[h].gpus,
			       p->cfg->hosts[h].nhca);
	if (rail != pool_gpu_rail(&p->cfg->hosts[h], g))
		return tio_err(err, len, -EINVAL, "%s GPU %" PRId64 " on rail %" PRId64 ", the config puts it on rail %u",
			       host, g, rail,
			       pool_gpu_rail(&p->cfg->hosts[h], g));
	if (p->hosts[h].owner[g])
		return tio_err(err, len, -EEXIST, "%s GPU %" PRId64 " already held by allocation %" PRIu64,
			       host, g, p->hosts[h].owner[g]);
	out = p->hosts[h].used[g];
	if (out + (milli ? milli : POOL_MILLI) > POOL_MILLI)
		return tio_err(err, len, -EEXIST, "%s GPU %" PRId64 " has %u milli shared out",
			       host, g, out);
	r->host = h;
	r->gpu = g;
	r->rail = rail;
	r->dlid = dlid;
	r->milli = milli;
	return 0;
}

/*
 * An allocation's "port" (an HCA its RDMA share alone takes) into a;
 * one the config lacks is no port (the allocation holds nothing).
 */
static int take_port(struct pool *p, struct json_object *o,
		     struct pool_alloc *a, char *err, size_t len)
{
	struct json_object *x;
	const char *host;
	int64_t rail, dlid;
	long h;

	if (!json_object_object_get_ex(o, "port", &x))
		return 0;
	host = prec_get_str(x, "host");
	if (!host || !prec_get_int(x, "rail", 0, POOL_MAX_HCAS - 1, &rail) ||
	    !prec_get_int(x, "dlid", 0, UINT32_MAX, &dlid) || !a->rdma)
		return tio_err(err, len, -EINVAL, "malformed port of allocation %" PRIu64,
			       a->id);
	h = host_index(p, host);
	if (h < 0 || rail >= p->cfg->hosts[h].nhca)
		return 0;
	a->has_port = true;
	a->port = (struct pool_gpu_ref){ .host = h, .gpu = POOL_NO_GPU,
					 .rail = rail, .dlid = dlid };
	return 0;
}

/* Insert the allocation an alloc record (or snapshot entry) describes. */
static int take_alloc(struct pool *p, struct json_object *o, char *err,
		      size_t len)
{
	struct pool_alloc a = { 0 }, *slot;
	struct json_object *g, *rq;
	const char *client = prec_get_str(o, "client"),
		   *job = prec_get_str(o, "job");
	int64_t id, uid, exp, rdma;
	size_t k, n;
	int ret;

	if (!prec_get_int(o, "id", 1, INT64_MAX, &id) ||
	    !prec_get_int(o, "uid", 0, UINT32_MAX, &uid) ||
	    !prec_get_int(o, "expires", INT64_MIN, INT64_MAX, &exp) || !client ||
	    !prec_opt_int(o, "rdma", 1, POOL_RDMA_CAP, &rdma) ||
	    !json_object_object_get_ex(o, "gpus", &g) ||
	    !json_object_is_type(g, json_type_array) ||
	    (!(n = json_object_array_length(g)) &&
	     !json_object_object_get_ex(o, "port", NULL)))
		return tio_err(err, len, -EINVAL, "malformed allocation");
	if ((uint64_t)id < p->next_id)
		return tio_err(err, len, -EINVAL, "allocation %" PRId64 " after %" PRIu64 " was handed out",
			       id, p->next_id - 1);
	a.id = id;
	a.uid = uid;
	a.expires = exp;
	a.rdma = rdma;
	ret = take_port(p, o, &a, err, len);
	if (ret)
		return ret;
	a.client = strdup(client);
	a.job = strdup(job ? job : "");
	a.gpus = calloc(n + 1, sizeof(*a.gpus));
	if (json_object_object_get_ex(o, "req", &rq)) {
		a.req = calloc(1, sizeof(*a.req));
		ret = a.req ? prec_take_queued(rq, a.req, err, len) : -ENOMEM;
		if (ret) {
			free(a.req);
			a.req = NULL;
			prec_alloc_release(&a);
			return ret == -ENOMEM ? tio_err(err, len, ret, "out of memory") : ret;
		}
	}
	a.lost = calloc(n + 1, sizeof(*a.lost));
	ret = -ENOMEM;
	if (!a.client || !a.job || !a.gpus || !a.lost ||
	    tio_grow((void **)&p->allocs, &p->alloc_cap, p->nallocs + 1,
		     sizeof(*p->allocs)))
		goto out_release;
	for (k = 0; k < n; k++) {
		ret = take_gpu(p, json_object_array_get_idx(g, k),
			       &a.gpus[a.ngpus], &a.lost[a.nlost], err, len);
		if (ret == -ENOENT) {
			a.nlost++;
			continue;
		}
		if (ret)
			goto out_undo;
		/* claimed now, so a GPU named twice in one record fails */
		hold_gpu(p, &a.gpus[a.ngpus], a.id, 1);
		a.ngpus++;
	}
	if (!rdma_fits(p, &a)) {
		ret = tio_err(err, len, -EEXIST, "allocation %" PRIu64 " takes more RDMA bandwidth than an HCA of it has free",
			      a.id);
		goto out_undo;
	}
	hold_rdma(p, &a, 1);
	if (a.ngpus)
		frg_mix_add(&p->fgd, &(struct frg_req){
			.gpus = a.gpus[0].milli ? 0 : a.ngpus,
			.milli = a.gpus[0].milli });
	slot = &p->allocs[p->nallocs++];
	*slot = a;
	p->next_id = a.id + 1;
	return 0;
out_undo:
	for (k = 0; k < a.ngpus; k++)
		hold_gpu(p, &a.gpus[k], a.id, -1);
out_release:
	prec_alloc_release(&a);
	return ret == -ENOMEM ? tio_err(err, len, ret, "out of memory") : ret;
}

static int take_job(struct pool *p, struct json_object *o, char *err,
		    size_t len)
{
	const char *id = prec_get_str(o, "job");
	struct pool_job jb = { 0 };
	struct json_object *h, *x;
	long old;
	size_t k, n;

	if (!id || !json_object_object_get_ex(o, "hosts", &h) ||
	    !json_object_is_type(h, json_type_array))
		return tio_err(err, len, -EINVAL, "malformed job");
	n = json_object_array_length(h);
	jb.id = strdup(id);
	jb.hosts = calloc(n + 1, sizeof(*jb.hosts));
	if (!jb.id || !jb.hosts)
		goto out_nomem;
	for (k = 0; k < n; k++) {
		x = json_object_array_get_idx(h, k);
		if (!json_object_is_type(x, json_type_string)) {
			prec_job_release(&jb);
			return tio_err(err, len, -EINVAL, "malformed job");
		}
		jb.hosts[k] = strdup(json_object_get_string(x));
		if (!jb.hosts[k])
			goto out_nomem;
		jb.nhosts++;
	}
	old = job_index(p, id);
	if (old >= 0) {
		prec_job_release(&p->jobs[old]);
		p->jobs[old] = jb;
		return 0;
	}
	if (tio_grow((void **)&p->jobs, &p->job_cap, p->njobs + 1,
		     sizeof(*p->jobs)))
		goto out_nomem;
	p->jobs[p->njobs++] = jb;
	return 0;
out_nomem:
	prec_job_release(&jb);
	return tio_err(err, len, -ENOMEM, "out of memory");
}

/*
 * An alloc record; with "grant": TICKET, the queued ticket it is granted
 * to leaves the queue in the same step.
 */
static int take_grant(struct pool *p, struct json_object *rec, char *err,
		      size_t len)
{
	int64_t t = 0;
	long q = -1;
	int ret;

	if (json_object_object_get_ex(rec, "grant", NULL) &&
	    (!prec_get_int(rec, "grant", 1, INT64_MAX, &t) ||
	     (q = queued_index(p, t)) < 0))
		return tio_err(err, len, -ENOENT, "grant of unknown ticket");
	ret = take_alloc(p, rec, err, len);
	if (!ret && q >= 0)
		queue_drop(p, q);
	return ret;
}

/*
 * A replace record: allocation i's GPUs become the record's (those the
 * config lacks its orphans).
 */
static int take_replace(struct pool *p, size_t i, struct json_object *rec,
			char *err, size_t len)
{
	struct pool_alloc *a = &p->allocs[i], np = { .id = a->id,
						      .rdma = a->rdma };
	struct pool_gpu_ref *old = a->gpus, *nw, oport = a->port;
	struct pool_lost_gpu *lost;
	struct json_object *g;
	unsigned int k, n, m, good = 0, nl = 0, on = a->ngpus;
	bool ohas = a->has_port;
	int ret;

	if (!json_object_object_get_ex(rec, "gpus", &g) ||
	    !json_object_is_type(g, json_type_array) ||
	    (!(n = json_object_array_length(g)) &&
	     !json_object_object_get_ex(rec, "port", NULL)))
		return tio_err(err, len, -EINVAL, "malformed replacement");
	ret = take_port(p, rec, &np, err, len);
	if (ret)
		return ret;
	nw = calloc(n + 1, sizeof(*nw));
	lost = calloc(n + 1, sizeof(*lost));
	if (!nw || !lost) {
		free(nw);
		free(lost);
		return tio_err(err, len, -ENOMEM, "out of memory");
	}
	hold_rdma(p, a, -1);
	for (k = 0; k < on; k++)
		hold_gpu(p, &old[k], a->id, -1);
	for (m = 0; m < n && !ret; m++) {
		ret = take_gpu(p, json_object_array_get_idx(g, m), &nw[good],
			       &lost[nl], err, len);
		if (ret == -ENOENT) {
			nl++;
			ret = 0;
		} else if (!ret) {
			hold_gpu(p, &nw[good], a->id, 1);
			good++;
		}
	}
	a->gpus = nw;
	a->ngpus = good;
	a->has_port = np.has_port;
	a->port = np.port;
	if (!ret && !rdma_fits(p, a))
		ret = tio_err(err, len, -EEXIST, "allocation %" PRIu64 "'s RDMA share does not fit its new HCAs",
			      a->id);
	a->gpus = old;
	a->ngpus = on;
	a->has_port = ohas;
	a->port = oport;
	if (ret) {
		for (k = 0; k < good; k++)
			hold_gpu(p, &nw[k], a->id, -1);
		for (k = 0; k < on; k++)
			hold_gpu(p, &old[k], a->id, 1);
		hold_rdma(p, a, 1);
		for (k = 0; k < nl; k++)
			free(lost[k].host);
		free(lost);
		free(nw);
		return ret;
	}
	for (k = 0; k < a->nlost; k++)
		free(a->lost[k].host);
	free(a->lost);
	a->gpus = nw;
	a->ngpus = good;
	a->lost = lost;
	a->nlost = nl;
	a->has_port = np.has_port;
	a->port = np.port;
	hold_rdma(p, a, 1);
	free(old);
	return 0;
}

/* A requeue record: allocation i ends, its request is queued again. */
static int take_requeue(struct pool *p, size_t i, char *err, size_t len)
{
	struct pool_alloc *a = &p->allocs[i];
	int ret;

	if (!a->req)
		return tio_err(err, len, -EINVAL, "requeue of allocation %" PRIu64 ", which was not queued",
			       a->id);
	ret = queue_insert(p, a->req, err, len);
	if (ret)
		return ret;
	free(a->req);
	a->req = NULL;
	drop_alloc(p, i);
	return 0;
}

static void end_job(struct pool *p, size_t i)
{
	size_t k = 0;

	while (k < p->nallocs) {
		if (!strcmp(p->allocs[k].job, p->jobs[i].id))
			drop_alloc(p, k);
		else
			k++;
	}
	prec_job_release(&p->jobs[i]);
	memmove(&p->jobs[i], &p->jobs[i + 1],
		(p->njobs - i - 1) * sizeof(*p->jobs));
	p->njobs--;
}

/*
 * GPU host:g of allocation i gone: an orphan forgotten, or, when a replay
 * under another config holds it, freed.  True when it was there.
 */
static bool forget_gpu(struct pool *p, size_t i, const char *host, int64_t g)
{
	struct pool_alloc *a = &p->allocs[i];
	unsigned int k;

	for (k = 0; k < a->nlost; k++)
		if (!strcmp(a->lost[k].host, host) && a->lost[k].gpu == g) {
			free(a->lost[k].host);
			a->lost[k] = a->lost[--a->nlost];
			return true;
		}
	for (k = 0; k < a->ngpus; k++)
		if (!strcmp(p->cfg->hosts[a->gpus[k].host].name, host) &&
		    a->gpus[k].gpu == g) {
			hold_rdma(p, a, -1);
			hold_gpu(p, &a->gpus[k], a->id, -1);
			a->gpus[k] = a->gpus[--a->ngpus];
			hold_rdma(p, a, 1);
			return true;
		}
	return false;
}

/* An orphans.drop record: each {"id", "host", "gpu"} it names forgotten. */
static int drop_orphans(struct pool *p, struct json_object *rec, char *err,
			size_t len)
{
	struct json_object *g, *x;
	const char *host;
	int64_t id, gpu;
	size_t k;
	long i;

	if (!json_object_object_get_ex(rec, "gpus", &g) ||
	    !json_object_is_type(g, json_type_array))
		return tio_err(err, len, -EINVAL, "orphans.drop without gpus");
	for (k = 0; k < json_object_array_length(g); k++) {
		x = json_object_array_get_idx(g, k);
		host = prec_get_str(x, "host");
		if (!host || !prec_get_int(x, "id", 1, INT64_MAX, &id) ||
		    !prec_get_int(x, "gpu", 0, POOL_MAX_GPUS - 1, &gpu))
			return tio_err(err, len, -EINVAL, "malformed orphans.drop");
		i = alloc_index(p, id);
		/* an allocation that ended meanwhile took its GPUs along */
		if (i < 0 || !forget_gpu(p, i, host, gpu))
			continue;
		if (!p->allocs[i].ngpus && !p->allocs[i].nlost &&
		    !p->allocs[i].has_port)
			drop_alloc(p, i);
	}
	return 0;
}

/* The one place records change the state, live and on replay. */
static int apply(struct pool *p, struct json_object *rec, char *err,
		 size_t len)
{
	const char *op = prec_get_str(rec, "op"), *job;
	int64_t at, id, exp;
	long i;

	if (!op || !prec_get_int(rec, "at", INT64_MIN, INT64_MAX, &at))
		return tio_err(err, len, -EINVAL, "record without op or time");
	pool_expire(p, at);
	if (!strcmp(op, "alloc"))
		return take_grant(p, rec, err, len);
	if (!strcmp(op, "queue"))
		return take_queue(p, rec, err, len);
	if (!strcmp(op, "host"))
		return take_host(p, rec, err, len);
	if (!strcmp(op, "cancel")) {
		if (!prec_get_int(rec, "ticket", 1, INT64_MAX, &id) ||
		    (i = queued_index(p, id)) < 0)
			return tio_err(err, len, -ENOENT, "cancel of unknown ticket");
		queue_drop(p, i);
		return 0;
	}
	if (!strcmp(op, "job.start"))
		return take_job(p, rec, err, len);
	if (!strcmp(op, "orphans.drop"))
		return drop_orphans(p, rec, err, len);
	if (!strcmp(op, "job.end")) {
		job = prec_get_str(rec, "job");
		i = job ? job_index(p, job) : -1;
		if (i < 0)
			return tio_err(err, len, -ENOENT, "end of unknown job");
		end_job(p, i);
		return 0;
	}
	if (strcmp(op, "release") && strcmp(op, "renew") &&
	    strcmp(op, "replace") && strcmp(op, "requeue"))
		return tio_err(err, len, -EINVAL, "unknown op '%s'", op);
	if (!prec_get_int(rec, "id", 1, INT64_MAX, &id) ||
	    (i = alloc_index(p, id)) < 0)
		return tio_err(err, len, -ENOENT, "%s of unknown allocation", op);
	if (!strcmp(op, "release")) {
		drop_alloc(p, i);
		return 0;
	}
	if (!strcmp(op, "replace"))
		return take_replace(p, i, rec, err, len);
	if (!strcmp(op, "requeue"))
		return take_requeue(p, i, err, len);
	if (!prec_get_int(rec, "expires", INT64_MIN, INT64_MAX, &exp))
		return tio_err(err, len, -EINVAL, "renew without expiry");
	p->allocs[i].expires = exp;
	return 0;
}

/* Journal rec (consumed) if there is a journal, then apply it. */
static int commit(struct pool *p, struct json_object *rec, char *err,
		  size_t len)
{
	int ret = 0;

	if (!rec)
		return tio_err(err, len, -ENOMEM, "out of memory");
	if (p->j && p->group)
		ret = pool_journal_write(p->j, rec, err, len);
	else if (p->j)
		ret = pool_journal_append(p->j, rec, err, len);
	/* a full disk (ENOSPC) is the server's failure, not the request's */
	if (ret)
		ret = -EIO;
	if (!ret) {
		ret = apply(p, rec, err, len);
		/* durable but not applied: state and journal now differ */
		if (ret)
			ret = -EIO;
	}
	json_object_put(rec);
	return ret;
}

/* A record of op at the pool's clock, advanced to now. */
static struct json_object *record(struct pool *p, const char *op,
				  time_t now)
{
	struct json_object *o = json_object_new_object();

	if (o) {
		json_object_object_add(o, "op", json_object_new_string(op));
		json_object_object_add(o, "at",
				       json_object_new_int64(tick(p, now)));
	}
	return o;
}

/* --- state files --- */

/* The snapshot's queue; one written before there was a queue has none. */
static int restore_queue(struct pool *p, struct json_object *state,
			 char *err, size_t len)
{
	struct json_object *q, *out;
	int64_t next;
	size_t i;
	int ret;

	if (json_object_object_get_ex(state, "hosts_out", &out)) {
		if (!json_object_is_type(out, json_type_array))
			return tio_err(err, len, -EINVAL, "malformed pool state");
		for (i = 0; i < json_object_array_length(out); i++) {
			ret = take_host(p, json_object_array_get_idx(out, i),
					err, len);
			if (ret)
				return ret;
		}
	}
	if (!json_object_object_get_ex(state, "queue", &q))
		return 0;
	if (!json_object_is_type(q, json_type_array) ||
	    !prec_get_int(state, "next_ticket", 1, INT64_MAX, &next))
		return tio_err(err, len, -EINVAL, "malformed pool state");
	for (i = 0; i < json_object_array_length(q); i++) {
		ret = take_queue(p, json_object_array_get_idx(q, i), err, len);
		if (ret)
			return ret;
	}
	if ((uint64_t)next < p->next_ticket)
		return tio_err(err, len, -EINVAL, "next_ticket below a queued ticket");
	p->next_ticket = next;
	return 0;
}

static int restore_cb(void *ctx, struct json_object *state, char *err,
		      size_t len)
{
	struct pool *p = ctx;
	struct json_object *a, *jb;
	int64_t next, clock;
	size_t i;
	int ret;

	if (!prec_get_int(state, "next_id", 1, INT64_MAX, &next) ||
	    !prec_get_int(state, "clock", INT64_MIN, INT64_MAX, &clock) ||
	    !json_object_object_get_ex(state, "allocs", &a) ||
	    !json_object_object_get_ex(state, "jobs", &jb) ||
	    !json_object_is_type(a, json_type_array) ||
	    !json_object_is_type(jb, json_type_array))
		return tio_err(err, len, -EINVAL, "malformed pool state");
	for (i = 0; i < json_object_array_length(a); i++) {
		ret = take_alloc(p, json_object_array_get_idx(a, i), err, len);
		if (ret)
			return ret;
	}
	for (i = 0; i < json_object_array_length(jb); i++) {
		ret = take_job(p, json_object_array_get_idx(jb, i), err, len);
		if (ret)
			return ret;
	}
	if ((uint64_t)next < p->next_id)
		return tio_err(err, len, -EINVAL, "next_id below an allocation");
	p->next_id = next;
	ret = restore_queue(p, state, err, len);
	if (ret)
		return ret;
	tick(p, clock);
	return 0;
}

static int apply_cb(void *ctx, uint64_t seq, struct json_object *rec,
		    char *err, size_t len)
{
	(void)seq;
	return apply(ctx, rec, err, len);
}

int pool_open_state(struct pool *p, const char *dir, time_t now,
		    char *err, size_t len)
{
	static const struct pool_journal_ops ops = { restore_cb, apply_cb };
	int ret;

	if (p->j || p->nallocs || p->njobs || p->nqueued)
		return tio_err(err, len, -EBUSY, "pool state already loaded");
	ret = pool_journal_open(dir, &ops, p, &p->j, err, len);
	if (ret)
		return ret;
	pool_expire(p, now);
	return 0;
}

static int queue_state(const struct pool *p, struct json_object *s)
{
	struct json_object *q = json_object_new_array(), *x;
	struct json_object *out = json_object_new_array();
	size_t i;

	if (!out || json_object_object_add(s, "hosts_out", out)) {
		json_object_put(out);
		json_object_put(q);
		return -ENOMEM;
	}
	for (i = 0; i < p->cfg->nhosts; i++) {
		if (p->hosts[i].state == POOL_HOST_UP)
			continue;
		x = json_object_new_object();
		if (!x || json_object_array_add(out, x)) {
			json_object_put(x);
			json_object_put(q);
			return -ENOMEM;
		}
		json_object_object_add(x, "host", json_object_new_string(
					       p->cfg->hosts[i].name));
		json_object_object_add(x, "state", json_object_new_string(
					       host_states[p->hosts[i].state]));
	}
	if (!q || json_object_object_add(s, "queue", q)) {
		json_object_put(q);
		return -ENOMEM;
	}
	json_object_object_add(s, "next_ticket",
			       json_object_new_uint64(p->next_ticket));
	for (i = 0; i < p->nqueued; i++) {
		x = prec_queued_json(&p->queue[i]);
		if (!x || json_object_array_add(q, x)) {
			json_object_put(x);
			return -ENOMEM;
		}
	}
	return 0;
}

static struct json_object *state_json(const struct pool *p)
{
	struct json_object *s = json_object_new_object(), *a, *jb, *x, *h;
	size_t i, k;

	a = json_object_new_array();
	jb = json_object_new_array();
	if (!s || !a || !jb) {
		json_object_put(a);
		json_object_put(jb);
		json_object_put(s);
		return NULL;
	}
	json_object_object_add(s, "next_id", json_object_new_uint64(p->next_id));
	json_object_object_add(s, "clock", json_object_new_int64(p->clock));
	json_object_object_add(s, "allocs", a);
	json_object_object_add(s, "jobs", jb);
	for (i = 0; i < p->nallocs; i++) {
		x = prec_alloc_json(p->cfg, &p->allocs[i]);
		if (!x || json_object_array_add(a, x))
			goto out_put;
	}
	if (queue_state(p, s))
		goto out_put;
	for (i = 0; i < p->njobs; i++) {
		x = json_object_new_object();
		h = json_object_new_array();
		if (!x || !h || json_object_array_add(jb, x)) {
			json_object_put(x);
			json_object_put(h);
			goto out_put;
		}
		json_object_object_add(x, "job",
				       json_object_new_string(p->jobs[i].id));
		json_object_object_add(x, "hosts", h);
		for (k = 0; k < p->jobs[i].nhosts; k++)
			json_object_array_add(h, json_object_new_string(
						      p->jobs[i].hosts[k]));
	}
	return s;
out_put:
	json_object_put(s);
	return NULL;
}

void pool_group_commit(struct pool *p)
{
	p->group = true;
}

int pool_sync(struct pool *p, char *err, size_t len)
{
	bool due = p->j && pool_journal_durable(p->j) < pool_journal_seq(p->j);
	double t = mono_s();

	if (p->j && pool_journal_sync(p->j, err, len))
		return -EIO;
	if (due)
		pool_hist_add(&p->sync_time, mono_s() - t);
	return 0;
}

void pool_sync_times(struct pool *p, struct pool_hist *out)
{
	pool_hist_copy(&p->sync_time, out);
}

uint64_t pool_seq(const struct pool *p)
{
	return p->j ? pool_journal_seq(p->j) : 0;
}

uint64_t pool_durable(const struct pool *p)
{
	return p->j ? pool_journal_durable(p->j) : 0;
}

int pool_compact(struct pool *p, char *err, size_t len)
{
	struct json_object *s;
	int ret;

	if (!p->j)
		return tio_err(err, len, -ENOENT, "no state directory opened");
	s = state_json(p);
	if (!s)
		return tio_err(err, len, -ENOMEM, "out of memory");
	ret = pool_journal_compact(p->j, s, err, len);
	json_object_put(s);
	return ret;
}

const char *pool_state_note(const struct pool *p)
{
	return p->j ? pool_journal_note(p->j) : "";
}

static unsigned int total_free(const struct pool *p)
{
	unsigned int n = 0;
	size_t h;

	for (h = 0; h < p->cfg->nhosts; h++)
		n += p->hosts[h].nfree;
	return n;
}

static unsigned int total_gpus(const struct pool *p)
{
	unsigned int n = 0;
	size_t h;

	for (h = 0; h < p->cfg->nhosts; h++)
		n += p->cfg->hosts[h].gpus;
	return n;
}

static int check_request(const struct pool *p, const struct pool_request *rq,
			 char *err, size_t len)
{
	if (rq->milli > POOL_MILLI || (rq->milli && rq->ngpus > 1))
		return tio_err(err, len, -EINVAL, "a GPU share is 1..%d milli of one GPU, not %u milli of %u",
			       POOL_MILLI, rq->milli, rq->ngpus);
	if (rq->rdma > POOL_RDMA_CAP)
		return tio_err(err, len, -EINVAL, "RDMA bandwidth is 1..%d %% of an HCA, not %u",
			       POOL_RDMA_CAP, rq->rdma);
	if ((!rq->ngpus && !rq->milli && !rq->rdma) ||
	    rq->ngpus > p->cfg->nhosts * POOL_MAX_GPUS)
		return tio_err(err, len, -EINVAL, "cannot allocate %u GPUs",
			       rq->ngpus);
	if (rq->lease_s > POOL_CFG_LEASE_MAX)
		return tio_err(err, len, -EINVAL, "lease of %u s is longer than %d s",
			       rq->lease_s, POOL_CFG_LEASE_MAX);
	if (!rq->client || !*rq->client ||
	    strlen(rq->client) > POOL_HOST_NAME_MAX)
		return tio_err(err, len, -EINVAL, "bad client host name");
	if (rq->job && strlen(rq->job) > POOL_JOB_MAX)
		return tio_err(err, len, -EINVAL, "job id longer than %d",
			       POOL_JOB_MAX);
	return 0;
}

/* The holdings pick.c's policy reads. */
static struct pick_view view(const struct pool *p)
{
	return (struct pick_view){ p->cfg, p->hosts, p->held, &p->fgd };
}

bool pool_share_best(const struct pool *p, size_t h, unsigned int milli,
		     unsigned int rdma, uint64_t skip, unsigned int *gpu,
		     double *key)
{
	struct pick_view v = view(p);

	return pick_share_best(&v, h, milli, rdma, skip, gpu, key);
}

bool pool_port_best(const struct pool *p, size_t h, unsigned int rdma,
		    uint64_t skip, unsigned int *rail, double *key)
{
	struct pick_view v = view(p);

	return pick_port_best(&v, h, rdma, skip, rail, key);
}

/* rq with POOL_MILLI as one whole GPU, a share as ngpus 1. */
static struct pool_request norm_request(const struct pool_request *rq)
{
	struct pool_request r = *rq;

	if (r.milli == POOL_MILLI)
		r.milli = 0;
	if (rq->milli)
		r.ngpus = 1;
	return r;
}

int pool_alloc(struct pool *p, const struct pool_request *rq0,
	       const struct pool_oracle *o, const struct pool_alloc **out,
	       char *err, size_t len)
{
	struct pool_request r = norm_request(rq0), *rq = &r;
	struct pick_view v = view(p);
	struct pool_gpu_ref spot;
	unsigned int nfree, lease;
	struct pool_alloc a = { 0 };
	struct json_object *rec;
	time_t now;
	int ret;

	*out = NULL;
	ret = check_request(p, rq0, err, len);
	if (ret)
		return ret;
	if (rq->ngpus > total_gpus(p))
		return tio_err(err, len, -EINVAL, "%u GPUs requested, the pool has %u",
			       rq->ngpus, total_gpus(p));
	pool_expire(p, rq->now);
	now = p->clock;
	nfree = total_free(p);
	a.gpus = calloc(rq->ngpus + 1, sizeof(*a.gpus));
	if (!a.gpus || pick_scratch(&p->scratch, p->cfg->nhosts, nfree)) {
		ret = tio_err(err, len, -ENOMEM, "out of memory");
		goto out_free;
	}
	if (rq->milli || !rq->ngpus) {
		ret = pick_spot(&v, rq->client, o, rq->milli, rq->rdma, &spot,
				err, len);
		if (!ret && rq->milli) {
			a.gpus[0] = spot;
			a.ngpus = 1;
		} else if (!ret) {
			a.port = spot;
			a.has_port = true;
		}
	} else {
		ret = pick_gpus(&v, p->scratch, rq->client, o, rq->ngpus,
				rq->rdma, nfree, a.gpus, err, len);
		a.ngpus = rq->ngpus;
	}
	if (ret)
		goto out_free;
	lease = rq->lease_s ? rq->lease_s : p->cfg->lease_default_s;
	a.id = p->next_id;
	a.uid = rq->uid;
	a.client = (char *)rq->client;
	a.job = (char *)(rq->job ? rq->job : "");
	a.expires = now + lease;
	a.rdma = rq->rdma;
	rec = prec_alloc_json(p->cfg, &a);
	if (rec) {
		json_object_object_add(rec, "op", json_object_new_string("alloc"));
		json_object_object_add(rec, "at", json_object_new_int64(now));
	}
	ret = commit(p, rec, err, len);
	if (!ret)
		*out = &p->allocs[p->nallocs - 1];
out_free:
	free(a.gpus);
	return ret;
}

/* Allocation id for a change by uid, or a negative errno. */
static long owned(const struct pool *p, uint64_t id, uid_t uid, char *err,
		  size_t len)
{
	long i = alloc_index(p, id);

	if (i < 0)
		return tio_err(err, len, -ENOENT, "no allocation %" PRIu64, id);
	if (uid && p->allocs[i].uid != uid)
		return tio_err(err, len, -EPERM, "allocation %" PRIu64 " belongs to uid %u",
			       id, (unsigned int)p->allocs[i].uid);
	return i;
}

int pool_release(struct pool *p, uint64_t id, uid_t uid, time_t now,
		 char *err, size_t len)
{
	struct json_object *rec;
	long i;

	pool_expire(p, now);
	i = owned(p, id, uid, err, len);
	if (i < 0)
		return i;
	rec = record(p, "release", now);
	if (rec)
		json_object_object_add(rec, "id", json_object_new_uint64(id));
	return commit(p, rec, err, len);
}

int pool_renew(struct pool *p, uint64_t id, uid_t uid, unsigned int lease_s,
	       time_t now, char *err, size_t len)
{
	struct json_object *rec;
	long i;

	if (lease_s > POOL_CFG_LEASE_MAX)
		return tio_err(err, len, -EINVAL, "lease of %u s is longer than %d s",
			       lease_s, POOL_CFG_LEASE_MAX);
	pool_expire(p, now);
	i = owned(p, id, uid, err, len);
	if (i < 0)
		return i;
	rec = record(p, "renew", now);
	if (rec) {
		json_object_object_add(rec, "id", json_object_new_uint64(id));
		json_object_object_add(rec, "expires", json_object_new_int64(
			p->clock + (lease_s ? lease_s :
				    p->cfg->lease_default_s)));
	}
	return commit(p, rec, err, len);
}

int pool_job_start(struct pool *p, const char *job, char *const *hosts,
		   size_t nhosts, time_t now, char *err, size_t len)
{
	struct json_object *rec, *h;
	size_t i;

	if (!job || !*job || strlen(job) > POOL_JOB_MAX)
		return tio_err(err, len, -EINVAL, "job id must be 1..%d characters",
			       POOL_JOB_MAX);
	rec = record(p, "job.start", now);
	h = json_object_new_array();
	if (!rec || !h) {
		json_object_put(h);
		json_object_put(rec);
		return tio_err(err, len, -ENOMEM, "out of memory");
	}
	json_object_object_add(rec, "job", json_object_new_string(job));
	json_object_object_add(rec, "hosts", h);
	for (i = 0; i < nhosts; i++)
		json_object_array_add(h, json_object_new_string(hosts[i]));
	return commit(p, rec, err, len);
}

int pool_job_end(struct pool *p, const char *job, time_t now, char *err,
		 size_t len)
{
	struct json_object *rec;

	if (job_index(p, job) < 0)
		return tio_err(err, len, -ENOENT, "no job '%s'", job);
	rec = record(p, "job.end", now);
	if (rec)
		json_object_object_add(rec, "job", json_object_new_string(job));
	return commit(p, rec, err, len);
}

int pool_enqueue(struct pool *p, const struct pool_queued *q, time_t now,
		 uint64_t *ticket, char *err, size_t len)
{
	struct pool_queued c = *q;
	struct pool_request rq = { .client = q->client, .ngpus = q->ngpus,
				   .milli = q->milli, .rdma = q->rdma,
				   .lease_s = q->lease_s, .job = q->job }, n;
	struct json_object *rec;
	int ret;

	ret = check_request(p, &rq, err, len);
	if (ret)
		return ret;
	n = norm_request(&rq);
	c.ngpus = n.ngpus;
	c.milli = n.milli;
	if (c.milli && c.hosts)
		return tio_err(err, len, -EINVAL, "a GPU share is of one GPU, not of a gang of hosts");
	if (q->hosts && (q->hosts > p->cfg->nhosts || q->per_host > POOL_MAX_GPUS))
		return tio_err(err, len, -EINVAL, "a gang of %u hosts with %u GPUs each does not fit %zu hosts",
			       q->hosts, q->per_host, p->cfg->nhosts);
	rec = record(p, "queue", now);
	c.ticket = p->next_ticket;
	c.submit = p->clock;
	c.job = q->job ? q->job : (char *)"";
	c.cls = q->cls ? q->cls : (char *)"";
	c.group = q->group ? q->group : (char *)"";
	c.name = q->name ? q->name : (char *)"";
	if (rec) {
		struct json_object *x = prec_queued_json(&c);

		json_object_object_foreach(x, k, v)
			json_object_object_add(rec, k, json_object_get(v));
		json_object_put(x);
	}
	ret = commit(p, rec, err, len);
	if (!ret)
		*ticket = c.ticket;
	return ret;
}

int pool_cancel(struct pool *p, uint64_t ticket, uid_t uid, time_t now,
		char *err, size_t len)
{
	struct json_object *rec;
	long i = queued_index(p, ticket);

	if (i < 0)
		return tio_err(err, len, -ENOENT, "no queued ticket %" PRIu64,
			       ticket);
	if (uid && p->queue[i].uid != uid)
		return tio_err(err, len, -EPERM, "ticket %" PRIu64 " belongs to uid %u",
			       ticket, (unsigned int)p->queue[i].uid);
	rec = record(p, "cancel", now);
	if (rec)
		json_object_object_add(rec, "ticket",
				       json_object_new_uint64(ticket));
	return commit(p, rec, err, len);
}

/*
 * The n refs g into a's GPUs (a->gpus has room for n) and port, then
 * whether they are free enough for a: 0, -EINVAL, or -EEXIST with why.  Checked
 * before a record is written, since apply() refusing one breaks the
 * journal.
 */
static int refs_into(struct pool *p, struct pool_alloc *a,
		     const struct pool_gpu_ref *g, unsigned int n, char *err,
		     size_t len)
{
	const struct pool_gpu_ref *r;
	unsigned int k, need;
	int ret = 0;

	a->ngpus = 0;
	a->has_port = false;
	for (k = 0; k < n; k++) {
		r = &g[k];
		if (r->host >= p->cfg->nhosts ||
		    r->rail >= p->cfg->hosts[r->host].nhca ||
		    (r->gpu == POOL_NO_GPU ? a->has_port || !a->rdma :
		     r->gpu >= p->cfg->hosts[r->host].gpus) ||
		    r->milli >= POOL_MILLI)
			return tio_err(err, len, -EINVAL, "no such GPU or HCA");
		if (r->gpu == POOL_NO_GPU) {
			a->port = *r;
			a->has_port = true;
		} else {
			a->gpus[a->ngpus++] = *r;
		}
	}
	if (a->has_port && a->ngpus)
		return tio_err(err, len, -EINVAL, "an HCA alone is taken without GPUs");
	for (k = 0; k < a->ngpus; k++) {
		r = &a->gpus[k];
		need = r->milli ? r->milli : POOL_MILLI;
		if (p->hosts[r->host].used[r->gpu] + need > POOL_MILLI)
			ret = tio_err(err, len, -EEXIST, "%s GPU %u is not free",
				      p->cfg->hosts[r->host].name, r->gpu);
	}
	if (!ret && !rdma_fits(p, a))
		ret = tio_err(err, len, -EEXIST, "an HCA lacks the RDMA bandwidth");
	return ret;
}

int pool_grant(struct pool *p, uint64_t ticket, const struct pool_gpu_ref *g,
	       unsigned int n, time_t now, const struct pool_alloc **out,
	       char *err, size_t len)
{
	long i = queued_index(p, ticket);
	struct pool_queued *q;
	struct pool_alloc a = { 0 };
	struct json_object *rec;
	int ret;

	*out = NULL;
	if (i < 0)
		return tio_err(err, len, -ENOENT, "no queued ticket %" PRIu64,
			       ticket);
	q = &p->queue[i];
	tick(p, now);
	a.id = p->next_id;
	a.uid = q->uid;
	a.client = q->client;
	a.job = q->job;
	a.expires = p->clock + (q->lease_s ? q->lease_s :
				p->cfg->lease_default_s);
	a.rdma = q->rdma;
	a.req = q;
	a.gpus = calloc(n + 1, sizeof(*a.gpus));
	if (!a.gpus)
		return tio_err(err, len, -ENOMEM, "out of memory");
	ret = refs_into(p, &a, g, n, err, len);
	if (ret) {
		free(a.gpus);
		return ret;
	}
	rec = prec_alloc_json(p->cfg, &a);
	if (rec) {
		json_object_object_add(rec, "op", json_object_new_string("alloc"));
		json_object_object_add(rec, "at", json_object_new_int64(p->clock));
		json_object_object_add(rec, "grant",
				       json_object_new_uint64(ticket));
	}
	ret = commit(p, rec, err, len);
	free(a.gpus);
	if (!ret)
		*out = &p->allocs[p->nallocs - 1];
	return ret;
}

/* a's GPUs and shares taken again (sign 1) or given back (-1). */
static void hold_all(struct pool *p, const struct pool_alloc *a, int sign)
{
	unsigned int k;

	hold_rdma(p, a, sign);
	for (k = 0; k < a->ngpus; k++)
		hold_gpu(p, &a->gpus[k], a->id, sign);
}

int pool_replace(struct pool *p, uint64_t id, const struct pool_gpu_ref *g,
		 unsigned int n, time_t now, char *err, size_t len)
{
	struct pool_alloc t = { .client = (char *)"", .job = (char *)"" };
	struct json_object *rec, *x = NULL;
	struct pool_alloc *a;
	long i;
	int ret;

	pool_expire(p, now);
	i = alloc_index(p, id);
	if (i < 0)
		return tio_err(err, len, -ENOENT, "no allocation %" PRIu64, id);
	a = &p->allocs[i];
	t.rdma = a->rdma;
	t.gpus = calloc(n + 1, sizeof(*t.gpus));
	if (!t.gpus)
		return tio_err(err, len, -ENOMEM, "out of memory");
	/* what it holds is free to it */
	hold_all(p, a, -1);
	ret = refs_into(p, &t, g, n, err, len);
	hold_all(p, a, 1);
	if (ret) {
		free(t.gpus);
		return ret;
	}
	rec = record(p, "replace", now);
	x = prec_alloc_json(p->cfg, &t);
	free(t.gpus);
	if (rec && x) {
		json_object_object_add(rec, "id", json_object_new_uint64(id));
		json_object_object_foreach(x, k, v)
			if (!strcmp(k, "gpus") || !strcmp(k, "port"))
				json_object_object_add(rec, k,
						       json_object_get(v));
	}
	json_object_put(x);
	return commit(p, rec, err, len);
}

int pool_requeue(struct pool *p, uint64_t id, time_t now, char *err,
		 size_t len)
{
	struct json_object *rec;
	long i;

	pool_expire(p, now);
	i = alloc_index(p, id);
	if (i < 0)
		return tio_err(err, len, -ENOENT, "no allocation %" PRIu64, id);
	if (!p->allocs[i].req)
		return tio_err(err, len, -EINVAL, "allocation %" PRIu64 " was not queued",
			       id);
	rec = record(p, "requeue", now);
	if (rec)
		json_object_object_add(rec, "id", json_object_new_uint64(id));
	return commit(p, rec, err, len);
}

int pool_set_host(struct pool *p, size_t h, enum pool_host_state st,
		  time_t now, char *err, size_t len)
{
	struct json_object *rec;

	if (h >= p->cfg->nhosts || st >= POOL_HOST_NSTATES)
		return tio_err(err, len, -EINVAL, "no such host or state");
	rec = record(p, "host", now);
	if (rec) {
		json_object_object_add(rec, "host", json_object_new_string(
					       p->cfg->hosts[h].name));
		json_object_object_add(rec, "state",
				       json_object_new_string(host_states[st]));
	}
	return commit(p, rec, err, len);
}

enum pool_host_state pool_host(const struct pool *p, size_t h)
{
	return h < p->cfg->nhosts ? p->hosts[h].state : POOL_HOST_UP;
}

time_t pool_clock(const struct pool *p)
{
	return p->clock;
}

size_t pool_nqueued(const struct pool *p)
{
	return p->nqueued;
}

const struct pool_queued *pool_queued_at(const struct pool *p, size_t i)
{
	return i < p->nqueued ? &p->queue[i] : NULL;
}

const struct pool_queued *pool_queued_find(const struct pool *p,
					   uint64_t ticket)
{
	long i = queued_index(p, ticket);

	return i < 0 ? NULL : &p->queue[i];
}

size_t pool_orphans(const struct pool *p, size_t *ngpus)
{
	size_t i, n = 0, g = 0;

	for (i = 0; i < p->nallocs; i++) {
		n += p->allocs[i].nlost > 0;
		g += p->allocs[i].nlost;
	}
	if (ngpus)
		*ngpus = g;
	return n;
}

int pool_orphans_drop(struct pool *p, time_t now, size_t *ngpus, char *err,
		      size_t len)
{
	struct json_object *rec, *g, *x;
	const struct pool_alloc *a;
	size_t i, k;

	*ngpus = 0;
	pool_expire(p, now);
	if (!pool_orphans(p, NULL))
		return 0;
	rec = record(p, "orphans.drop", now);
	g = json_object_new_array();
	if (!rec || !g) {
		json_object_put(rec);
		json_object_put(g);
		return tio_err(err, len, -ENOMEM, "out of memory");
	}
	json_object_object_add(rec, "gpus", g);
	for (i = 0; i < p->nallocs; i++)
		for (a = &p->allocs[i], k = 0; k < a->nlost; k++) {
			x = prec_lost_json(&a->lost[k]);
			if (!x || json_object_array_add(g, x)) {
				json_object_put(x);
				json_object_put(rec);
				return tio_err(err, len, -ENOMEM, "out of memory");
			}
			json_object_object_add(x, "id",
					       json_object_new_uint64(a->id));
			(*ngpus)++;
		}
	return commit(p, rec, err, len);
}

size_t pool_nallocs(const struct pool *p)
{
	return p->nallocs;
}

const struct pool_alloc *pool_alloc_at(const struct pool *p, size_t i)
{
	return i < p->nallocs ? &p->allocs[i] : NULL;
}

const struct pool_alloc *pool_alloc_find(const struct pool *p, uint64_t id)
{
	long i = alloc_index(p, id);

	return i < 0 ? NULL : &p->allocs[i];
}

const struct pool_job *pool_job_find(const struct pool *p, const char *job)
{
	long i = job_index(p, job);

	return i < 0 ? NULL : &p->jobs[i];
}

size_t pool_njobs(const struct pool *p)
{
	return p->njobs;
}

const struct pool_job *pool_job_at(const struct pool *p, size_t i)
{
	return &p->jobs[i];
}

unsigned int pool_free_gpus(const struct pool *p, size_t h)
{
	return h < p->cfg->nhosts ? p->hosts[h].nfree : 0;
}

uint64_t pool_gpu_owner(const struct pool *p, size_t h, unsigned int g)
{
	return h < p->cfg->nhosts && g < POOL_MAX_GPUS ?
	       p->hosts[h].owner[g] : 0;
}

unsigned int pool_gpu_used(const struct pool *p, size_t h, unsigned int g)
{
	return h < p->cfg->nhosts && g < POOL_MAX_GPUS ?
	       p->hosts[h].used[g] : 0;
}

unsigned int pool_rdma_used(const struct pool *p, size_t h, unsigned int rail)
{
	return h < p->cfg->nhosts && rail < POOL_MAX_HCAS ?
	       p->hosts[h].rdma[rail] : 0;
}
