// SPDX-License-Identifier: MIT
/*
 * Pool state and the allocation policy.  Operations check, build a
 * journal record, make it durable, then apply() it: replay runs the same
 * apply(), so the state after a restart is the state before it.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "hist.h"
#include "hostlist.h"
#include "journal.h"
#include "pool.h"
#include "frag.h"
#include "topology/monotime.h"
#include "topology/textio.h"

struct phost {
	enum pool_host_state state;	/* the operator's word */
	unsigned int nfree;		/* GPUs with nothing out */
	uint64_t owner[POOL_MAX_GPUS];	/* allocation holding it whole, or 0 */
	uint16_t used[POOL_MAX_GPUS];	/* milli out, POOL_MILLI when whole */
	uint16_t rdma[POOL_MAX_HCAS];	/* per HCA, of POOL_RDMA_CAP */
};

/* Owns everything but cfg. */
struct pool {
	const struct pool_config *cfg;
	struct pool_hist sync_time;	/* pool_sync()s that synced */
	struct phost *hosts;
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
	/* pool_alloc()'s scratch, kept: big enough to hold every free GPU */
	struct cand *cand;
	size_t cand_cap;
	struct hcand *hc;
	struct hkey *heap;
};

__attribute__((format(printf, 4, 5)))
static int fail(char *err, size_t len, int ret, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(err, len, fmt, ap);
	va_end(ap);
	return ret;
}

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

static void queued_release(struct pool_queued *q)
{
	free(q->client);
	free(q->job);
	free(q->cls);
	free(q->group);
	free(q->name);
}

static void alloc_release(struct pool_alloc *a)
{
	unsigned int k;

	for (k = 0; k < a->nlost; k++)
		free(a->lost[k].host);
	free(a->lost);
	free(a->client);
	free(a->job);
	free(a->gpus);
	if (a->req)
		queued_release(a->req);
	free(a->req);
}

static void job_release(struct pool_job *jb)
{
	size_t i;

	for (i = 0; i < jb->nhosts; i++)
		free(jb->hosts[i]);
	free(jb->hosts);
	free(jb->id);
}

void pool_free(struct pool *p)
{
	size_t i;

	if (!p)
		return;
	for (i = 0; i < p->nallocs; i++)
		alloc_release(&p->allocs[i]);
	for (i = 0; i < p->njobs; i++)
		job_release(&p->jobs[i]);
	for (i = 0; i < p->nqueued; i++)
		queued_release(&p->queue[i]);
	free(p->queue);
	pool_journal_close(p->j);
	pool_hist_destroy(&p->sync_time);
	free(p->cand);
	free(p->hc);
	free(p->heap);
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
	struct phost *ph = &p->hosts[r->host];
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
	alloc_release(a);
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

/* --- records: one JSON shape for journal, snapshot and replay --- */

static struct json_object *queued_json(const struct pool_queued *q)
{
	struct json_object *o = json_object_new_object();

	if (!o)
		return NULL;
	json_object_object_add(o, "ticket", json_object_new_uint64(q->ticket));
	json_object_object_add(o, "uid", json_object_new_int64(q->uid));
	json_object_object_add(o, "client", json_object_new_string(q->client));
	json_object_object_add(o, "job", json_object_new_string(q->job));
	json_object_object_add(o, "class", json_object_new_string(q->cls));
	json_object_object_add(o, "group", json_object_new_string(q->group));
	json_object_object_add(o, "name", json_object_new_string(q->name));
	json_object_object_add(o, "gpus", json_object_new_int64(q->ngpus));
	/* absent when 0: records from before shares read the same */
	if (q->milli)
		json_object_object_add(o, "milli", json_object_new_int(q->milli));
	if (q->rdma)
		json_object_object_add(o, "rdma", json_object_new_int(q->rdma));
	json_object_object_add(o, "hosts", json_object_new_int64(q->hosts));
	json_object_object_add(o, "per_host",
			       json_object_new_int64(q->per_host));
	json_object_object_add(o, "lease_s", json_object_new_int64(q->lease_s));
	json_object_object_add(o, "limit_s", json_object_new_int64(q->limit_s));
	json_object_object_add(o, "submit", json_object_new_int64(q->submit));
	return o;
}

/* {"host": ..., "gpu": ...} of an orphaned GPU, or NULL. */
static struct json_object *lost_json(const struct pool_lost_gpu *l)
{
	struct json_object *x = json_object_new_object();

	if (x) {
		json_object_object_add(x, "host",
				       json_object_new_string(l->host));
		json_object_object_add(x, "gpu", json_object_new_int(l->gpu));
	}
	return x;
}

/* GPU (or, for an HCA alone, port) r as a record names it, or NULL. */
static struct json_object *ref_json(const struct pool *p,
				    const struct pool_gpu_ref *r, bool port)
{
	const struct pool_host_cfg *hc = &p->cfg->hosts[r->host];
	struct json_object *x = json_object_new_object();
	char guid[24];

	if (!x)
		return NULL;
	json_object_object_add(x, "host", json_object_new_string(hc->name));
	if (!port)
		json_object_object_add(x, "gpu", json_object_new_int(r->gpu));
	if (r->milli)
		json_object_object_add(x, "milli", json_object_new_int(r->milli));
	json_object_object_add(x, "rail", json_object_new_int(r->rail));
	if (hc->hca[r->rail].guid) {
		snprintf(guid, sizeof(guid), "0x%016" PRIx64,
			 hc->hca[r->rail].guid);
		json_object_object_add(x, "port_guid",
				       json_object_new_string(guid));
	}
	json_object_object_add(x, "dlid", json_object_new_int64(r->dlid));
	return x;
}

static struct json_object *alloc_json(const struct pool *p,
				      const struct pool_alloc *a)
{
	struct json_object *o = json_object_new_object(), *g, *x;
	unsigned int k;

	g = json_object_new_array();
	if (!o || !g)
		goto out_put;
	json_object_object_add(o, "id", json_object_new_uint64(a->id));
	json_object_object_add(o, "uid", json_object_new_int64(a->uid));
	json_object_object_add(o, "client", json_object_new_string(a->client));
	if (*a->job)
		json_object_object_add(o, "job", json_object_new_string(a->job));
	json_object_object_add(o, "expires", json_object_new_int64(a->expires));
	if (a->req)
		json_object_object_add(o, "req", queued_json(a->req));
	if (a->rdma)
		json_object_object_add(o, "rdma", json_object_new_int(a->rdma));
	if (a->has_port)
		json_object_object_add(o, "port", ref_json(p, &a->port, true));
	json_object_object_add(o, "gpus", g);
	for (k = 0; k < a->ngpus; k++) {
		x = ref_json(p, &a->gpus[k], false);
		if (!x || json_object_array_add(g, x)) {
			json_object_put(x);
			goto out_put;
		}
	}
	for (k = 0; k < a->nlost; k++) {
		x = lost_json(&a->lost[k]);
		if (!x || json_object_array_add(g, x)) {
			json_object_put(x);
			goto out_put;
		}
		json_object_object_add(x, "rail",
				       json_object_new_int(a->lost[k].rail));
		json_object_object_add(x, "dlid",
				       json_object_new_int64(a->lost[k].dlid));
	}
	return o;
out_put:
	json_object_put(o);
	if (!o)
		json_object_put(g);
	return NULL;
}

static bool get_int(struct json_object *o, const char *k, int64_t lo,
		    int64_t hi, int64_t *v)
{
	struct json_object *x;

	if (!json_object_object_get_ex(o, k, &x) ||
	    !json_object_is_type(x, json_type_int))
		return false;
	*v = json_object_get_int64(x);
	return *v >= lo && *v <= hi;
}

/* Optional k: 0 when absent, else as get_int(). */
static bool opt_int(struct json_object *o, const char *k, int64_t lo,
		    int64_t hi, int64_t *v)
{
	*v = 0;
	return !json_object_object_get_ex(o, k, NULL) ||
	       get_int(o, k, lo, hi, v);
}

static const char *get_str(struct json_object *o, const char *k)
{
	struct json_object *x;

	if (!json_object_object_get_ex(o, k, &x) ||
	    !json_object_is_type(x, json_type_string))
		return NULL;
	return json_object_get_string(x);
}

/* A queued request's fields from o into q (strings owned). */
static int take_queued(struct json_object *o, struct pool_queued *q,
		       char *err, size_t len)
{
	const char *c = get_str(o, "client"), *j = get_str(o, "job"),
		   *k = get_str(o, "class"), *g = get_str(o, "group"),
		   *n = get_str(o, "name");
	int64_t t, uid, gpus, hosts, per, lease, limit, sub, milli, rdma;

	memset(q, 0, sizeof(*q));
	if (!get_int(o, "ticket", 1, INT64_MAX, &t) ||
	    !get_int(o, "uid", 0, UINT32_MAX, &uid) ||
	    !get_int(o, "gpus", 0, UINT32_MAX, &gpus) ||
	    !opt_int(o, "milli", 1, POOL_MILLI - 1, &milli) ||
	    !opt_int(o, "rdma", 1, POOL_RDMA_CAP, &rdma) ||
	    !get_int(o, "hosts", 0, UINT32_MAX, &hosts) ||
	    !get_int(o, "per_host", 0, UINT32_MAX, &per) ||
	    !get_int(o, "lease_s", 0, POOL_CFG_LEASE_MAX, &lease) ||
	    !get_int(o, "limit_s", 0, UINT32_MAX, &limit) ||
	    !get_int(o, "submit", INT64_MIN, INT64_MAX, &sub) || !c || !j ||
	    !k || !g || !n || (!gpus && !rdma) || (milli && gpus != 1))
		return fail(err, len, -EINVAL, "malformed queued request");
	*q = (struct pool_queued){ .ticket = t, .uid = uid, .ngpus = gpus,
		.milli = milli, .rdma = rdma, .hosts = hosts, .per_host = per, .lease_s = lease,
		.limit_s = limit, .submit = sub };
	q->client = strdup(c);
	q->job = strdup(j);
	q->cls = strdup(k);
	q->group = strdup(g);
	q->name = strdup(n);
	if (q->client && q->job && q->cls && q->group && q->name)
		return 0;
	queued_release(q);
	return fail(err, len, -ENOMEM, "out of memory");
}

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
		return fail(err, len, -EEXIST, "ticket %" PRIu64 " queued twice",
			    q->ticket);
	if (tio_grow((void **)&p->queue, &p->queue_cap, p->nqueued + 1,
		     sizeof(*p->queue)))
		return fail(err, len, -ENOMEM, "out of memory");
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
	queued_release(&p->queue[i]);
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
	const char *name = get_str(o, "host"), *st = get_str(o, "state");
	long h = name ? host_index(p, name) : -1;
	int i;

	for (i = 0; st && i < POOL_HOST_NSTATES; i++)
		if (!strcmp(st, host_states[i])) {
			/* a host the config no longer has: forgotten */
			if (h >= 0)
				p->hosts[h].state = i;
			return 0;
		}
	return fail(err, len, -EINVAL, "malformed host record");
}

/* A queue record, or a snapshot's queued entry, into the queue. */
static int take_queue(struct pool *p, struct json_object *o, char *err,
		      size_t len)
{
	struct pool_queued q;
	int ret = take_queued(o, &q, err, len);

	if (ret)
		return ret;
	ret = queue_insert(p, &q, err, len);
	if (ret)
		queued_release(&q);
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
	const char *host = get_str(x, "host");
	long h = host ? host_index(p, host) : -1;
	int64_t g, rail, dlid, milli;
	unsigned int out;

	if (!host || !get_int(x, "gpu", 0, POOL_MAX_GPUS - 1, &g) ||
	    !get_int(x, "rail", 0, POOL_MAX_HCAS - 1, &rail) ||
	    !get_int(x, "dlid", 0, UINT32_MAX, &dlid) ||
	    !opt_int(x, "milli", 1, POOL_MILLI - 1, &milli))
		return fail(err, len, -EINVAL, "bad GPU of host %s",
			    host ? host : "?");
	if (h < 0 || g >= p->cfg->hosts[h].gpus) {
		l->host = strdup(host);
		l->gpu = g;
		l->rail = rail;
		l->dlid = dlid;
		return l->host ? -ENOENT : fail(err, len, -ENOMEM, "out of memory");
	}
	if (rail >= p->cfg->hosts[h].nhca)
		return fail(err, len, -EINVAL, "bad GPU of host %s (the config has %u GPUs, %u HCAs)",
			    host, p->cfg->hosts[h].gpus, p->cfg->hosts[h].nhca);
	if (rail != pool_gpu_rail(&p->cfg->hosts[h], g))
		return fail(err, len, -EINVAL, "%s GPU %" PRId64 " on rail %" PRId64 ", the config puts it on rail %u",
			    host, g, rail, pool_gpu_rail(&p->cfg->hosts[h], g));
	if (p->hosts[h].owner[g])
		return fail(err, len, -EEXIST, "%s GPU %" PRId64 " already held by allocation %" PRIu64,
			    host, g, p->hosts[h].owner[g]);
	out = p->hosts[h].used[g];
	if (out + (milli ? milli : POOL_MILLI) > POOL_MILLI)
		return fail(err, len, -EEXIST, "%s GPU %" PRId64 " has %u milli shared out",
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
	host = get_str(x, "host");
	if (!host || !get_int(x, "rail", 0, POOL_MAX_HCAS - 1, &rail) ||
	    !get_int(x, "dlid", 0, UINT32_MAX, &dlid) || !a->rdma)
		return fail(err, len, -EINVAL, "malformed port of allocation %" PRIu64,
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
	const char *client = get_str(o, "client"), *job = get_str(o, "job");
	int64_t id, uid, exp, rdma;
	size_t k, n;
	int ret;

	if (!get_int(o, "id", 1, INT64_MAX, &id) ||
	    !get_int(o, "uid", 0, UINT32_MAX, &uid) ||
	    !get_int(o, "expires", INT64_MIN, INT64_MAX, &exp) || !client ||
	    !opt_int(o, "rdma", 1, POOL_RDMA_CAP, &rdma) ||
	    !json_object_object_get_ex(o, "gpus", &g) ||
	    !json_object_is_type(g, json_type_array) ||
	    (!(n = json_object_array_length(g)) &&
	     !json_object_object_get_ex(o, "port", NULL)))
		return fail(err, len, -EINVAL, "malformed allocation");
	if ((uint64_t)id < p->next_id)
		return fail(err, len, -EINVAL, "allocation %" PRId64 " after %" PRIu64 " was handed out",
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
		ret = a.req ? take_queued(rq, a.req, err, len) : -ENOMEM;
		if (ret) {
			free(a.req);
			a.req = NULL;
			alloc_release(&a);
			return ret == -ENOMEM ? fail(err, len, ret, "out of memory") : ret;
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
		ret = fail(err, len, -EEXIST, "allocation %" PRIu64 " takes more RDMA bandwidth than an HCA of it has free",
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
	alloc_release(&a);
	return ret == -ENOMEM ? fail(err, len, ret, "out of memory") : ret;
}

static int take_job(struct pool *p, struct json_object *o, char *err,
		    size_t len)
{
	const char *id = get_str(o, "job");
	struct pool_job jb = { 0 };
	struct json_object *h, *x;
	long old;
	size_t k, n;

	if (!id || !json_object_object_get_ex(o, "hosts", &h) ||
	    !json_object_is_type(h, json_type_array))
		return fail(err, len, -EINVAL, "malformed job");
	n = json_object_array_length(h);
	jb.id = strdup(id);
	jb.hosts = calloc(n + 1, sizeof(*jb.hosts));
	if (!jb.id || !jb.hosts)
		goto out_nomem;
	for (k = 0; k < n; k++) {
		x = json_object_array_get_idx(h, k);
		if (!json_object_is_type(x, json_type_string)) {
			job_release(&jb);
			return fail(err, len, -EINVAL, "malformed job");
		}
		jb.hosts[k] = strdup(json_object_get_string(x));
		if (!jb.hosts[k])
			goto out_nomem;
		jb.nhosts++;
	}
	old = job_index(p, id);
	if (old >= 0) {
		job_release(&p->jobs[old]);
		p->jobs[old] = jb;
		return 0;
	}
	if (tio_grow((void **)&p->jobs, &p->job_cap, p->njobs + 1,
		     sizeof(*p->jobs)))
		goto out_nomem;
	p->jobs[p->njobs++] = jb;
	return 0;
out_nomem:
	job_release(&jb);
	return fail(err, len, -ENOMEM, "out of memory");
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
	    (!get_int(rec, "grant", 1, INT64_MAX, &t) ||
	     (q = queued_index(p, t)) < 0))
		return fail(err, len, -ENOENT, "grant of unknown ticket");
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
		return fail(err, len, -EINVAL, "malformed replacement");
	ret = take_port(p, rec, &np, err, len);
	if (ret)
		return ret;
	nw = calloc(n + 1, sizeof(*nw));
	lost = calloc(n + 1, sizeof(*lost));
	if (!nw || !lost) {
		free(nw);
		free(lost);
		return fail(err, len, -ENOMEM, "out of memory");
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
		ret = fail(err, len, -EEXIST, "allocation %" PRIu64 "'s RDMA share does not fit its new HCAs",
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
		return fail(err, len, -EINVAL, "requeue of allocation %" PRIu64 ", which was not queued",
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
	job_release(&p->jobs[i]);
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
		return fail(err, len, -EINVAL, "orphans.drop without gpus");
	for (k = 0; k < json_object_array_length(g); k++) {
		x = json_object_array_get_idx(g, k);
		host = get_str(x, "host");
		if (!host || !get_int(x, "id", 1, INT64_MAX, &id) ||
		    !get_int(x, "gpu", 0, POOL_MAX_GPUS - 1, &gpu))
			return fail(err, len, -EINVAL, "malformed orphans.drop");
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
	const char *op = get_str(rec, "op"), *job;
	int64_t at, id, exp;
	long i;

	if (!op || !get_int(rec, "at", INT64_MIN, INT64_MAX, &at))
		return fail(err, len, -EINVAL, "record without op or time");
	pool_expire(p, at);
	if (!strcmp(op, "alloc"))
		return take_grant(p, rec, err, len);
	if (!strcmp(op, "queue"))
		return take_queue(p, rec, err, len);
	if (!strcmp(op, "host"))
		return take_host(p, rec, err, len);
	if (!strcmp(op, "cancel")) {
		if (!get_int(rec, "ticket", 1, INT64_MAX, &id) ||
		    (i = queued_index(p, id)) < 0)
			return fail(err, len, -ENOENT, "cancel of unknown ticket");
		queue_drop(p, i);
		return 0;
	}
	if (!strcmp(op, "job.start"))
		return take_job(p, rec, err, len);
	if (!strcmp(op, "orphans.drop"))
		return drop_orphans(p, rec, err, len);
	if (!strcmp(op, "job.end")) {
		job = get_str(rec, "job");
		i = job ? job_index(p, job) : -1;
		if (i < 0)
			return fail(err, len, -ENOENT, "end of unknown job");
		end_job(p, i);
		return 0;
	}
	if (strcmp(op, "release") && strcmp(op, "renew") &&
	    strcmp(op, "replace") && strcmp(op, "requeue"))
		return fail(err, len, -EINVAL, "unknown op '%s'", op);
	if (!get_int(rec, "id", 1, INT64_MAX, &id) ||
	    (i = alloc_index(p, id)) < 0)
		return fail(err, len, -ENOENT, "%s of unknown allocation", op);
	if (!strcmp(op, "release")) {
		drop_alloc(p, i);
		return 0;
	}
	if (!strcmp(op, "replace"))
		return take_replace(p, i, rec, err, len);
	if (!strcmp(op, "requeue"))
		return take_requeue(p, i, err, len);
	if (!get_int(rec, "expires", INT64_MIN, INT64_MAX, &exp))
		return fail(err, len, -EINVAL, "renew without expiry");
	p->allocs[i].expires = exp;
	return 0;
}

/* Journal rec (consumed) if there is a journal, then apply it. */
static int commit(struct pool *p, struct json_object *rec, char *err,
		  size_t len)
{
	int ret = 0;

	if (!rec)
		return fail(err, len, -ENOMEM, "out of memory");
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
			return fail(err, len, -EINVAL, "malformed pool state");
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
	    !get_int(state, "next_ticket", 1, INT64_MAX, &next))
		return fail(err, len, -EINVAL, "malformed pool state");
	for (i = 0; i < json_object_array_length(q); i++) {
		ret = take_queue(p, json_object_array_get_idx(q, i), err, len);
		if (ret)
			return ret;
	}
	if ((uint64_t)next < p->next_ticket)
		return fail(err, len, -EINVAL, "next_ticket below a queued ticket");
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

	if (!get_int(state, "next_id", 1, INT64_MAX, &next) ||
	    !get_int(state, "clock", INT64_MIN, INT64_MAX, &clock) ||
	    !json_object_object_get_ex(state, "allocs", &a) ||
	    !json_object_object_get_ex(state, "jobs", &jb) ||
	    !json_object_is_type(a, json_type_array) ||
	    !json_object_is_type(jb, json_type_array))
		return fail(err, len, -EINVAL, "malformed pool state");
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
		return fail(err, len, -EINVAL, "next_id below an allocation");
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
		return fail(err, len, -EBUSY, "pool state already loaded");
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
		x = queued_json(&p->queue[i]);
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
		x = alloc_json(p, &p->allocs[i]);
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
		return fail(err, len, -ENOENT, "no state directory opened");
	s = state_json(p);
	if (!s)
		return fail(err, len, -ENOMEM, "out of memory");
	ret = pool_journal_compact(p->j, s, err, len);
	json_object_put(s);
	return ret;
}

const char *pool_state_note(const struct pool *p)
{
	return p->j ? pool_journal_note(p->j) : "";
}

/* --- the allocation policy --- */

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
static bool rdma_room(const struct pool *p, size_t h, unsigned int r,
		      unsigned int rdma)
{
	return p->hosts[h].rdma[r] + rdma <= POOL_RDMA_CAP;
}

/*
 * Host h's candidates into c, in taking order, behind HCAs with rdma
 * free; the cost oracle is asked once per rail.  Returns the count;
 * *unreach counts free GPUs behind unreachable ports.
 */
static size_t fill(const struct pool *p, const char *client,
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
static bool in_service(const struct pool *p, size_t h)
{
	return p->hosts[h].state == POOL_HOST_UP;
}

/* Every host's candidates, host after host; returns the count. */
static size_t candidates(const struct pool *p, const char *client,
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
static size_t survey(const struct pool *p, const char *client,
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
	const struct pool *p;
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

/* Pick a->ngpus of the candidates into a->gpus; false: k->bad. */
static bool choose(struct pick *k, size_t nh, struct pool_alloc *a)
{
	const struct cand *c = k->c;
	struct hcand *hc = k->hc;
	size_t left = a->ngpus, m, i, n = 0;
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

			a->gpus[n].host = x->host;
			a->gpus[n].gpu = x->gpu;
			a->gpus[n].rail = x->rail;
			a->gpus[n].dlid = x->dlid;
		}
		hc[h].used = true;
		left -= m;
	}
	return true;
}

static unsigned int total_free(const struct pool *p)
{
	unsigned int n = 0;
	size_t h;

	for (h = 0; h < p->cfg->nhosts; h++)
		n += p->hosts[h].nfree;
	return n;
}

/* Free GPUs on hosts out of service. */
static unsigned int free_out(const struct pool *p)
{
	unsigned int n = 0;
	size_t h;

	for (h = 0; h < p->cfg->nhosts; h++)
		if (!in_service(p, h))
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
		return fail(err, len, -EINVAL, "a GPU share is 1..%d milli of one GPU, not %u milli of %u",
			    POOL_MILLI, rq->milli, rq->ngpus);
	if (rq->rdma > POOL_RDMA_CAP)
		return fail(err, len, -EINVAL, "RDMA bandwidth is 1..%d %% of an HCA, not %u",
			    POOL_RDMA_CAP, rq->rdma);
	if ((!rq->ngpus && !rq->milli && !rq->rdma) ||
	    rq->ngpus > p->cfg->nhosts * POOL_MAX_GPUS)
		return fail(err, len, -EINVAL, "cannot allocate %u GPUs",
			    rq->ngpus);
	if (rq->lease_s > POOL_CFG_LEASE_MAX)
		return fail(err, len, -EINVAL, "lease of %u s is longer than %d s",
			    rq->lease_s, POOL_CFG_LEASE_MAX);
	if (!rq->client || !*rq->client ||
	    strlen(rq->client) > POOL_HOST_NAME_MAX)
		return fail(err, len, -EINVAL, "bad client host name");
	if (rq->job && strlen(rq->job) > POOL_JOB_MAX)
		return fail(err, len, -EINVAL, "job id longer than %d",
			    POOL_JOB_MAX);
	return 0;
}

/*
 * Choose rq->ngpus GPUs into a->gpus, lazily when k->lazy: 0, -ENOSPC
 * with its message, or -EAGAIN when the oracle broke its bound.
 */
static int pick(struct pick *k, const struct pool_request *rq,
		unsigned int nfree, struct pool_alloc *a, char *err,
		size_t len)
{
	const struct pool *p = k->p;
	unsigned int unreach, out;
	size_t n;

	memset(k->hc, 0, p->cfg->nhosts * sizeof(*k->hc));
	n = k->lazy ? survey(p, rq->client, k->o, rq->rdma, k->hc, &unreach) :
		      candidates(p, rq->client, k->o, rq->rdma, k->c, k->hc,
				 &unreach);
	if (n < rq->ngpus) {
		out = free_out(p);
		if (rq->rdma)
			return fail(err, len, -ENOSPC, "%u GPUs requested with %u%% of an HCA's RDMA bandwidth each, %u GPUs free, %zu of them behind HCAs that have it free",
				    rq->ngpus, rq->rdma, nfree, n);
		if (out)
			return fail(err, len, -ENOSPC, "%u GPUs requested, %u free, %u of them on drained or failed hosts",
				    rq->ngpus, nfree, out);
		if (unreach)
			return fail(err, len, -ENOSPC, "%u GPUs requested, %u free, %u of them unreachable from %s",
				    rq->ngpus, nfree, unreach, rq->client);
		return fail(err, len, -ENOSPC, "%u GPUs requested, %u free",
			    rq->ngpus, nfree);
	}
	a->ngpus = rq->ngpus;
	return choose(k, p->cfg->nhosts, a) ? 0 : -EAGAIN;
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
static size_t share_spots(const struct pool *p, const struct frg_mix *w,
			  size_t h, unsigned int milli, unsigned int rdma,
			  struct spot *s)
{
	const struct pool_host_cfg *cf = &p->cfg->hosts[h];
	const struct phost *ph = &p->hosts[h];
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
static size_t port_spots(const struct pool *p, size_t h, unsigned int rdma,
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
static bool reach_spot(const struct pool *p, const char *client,
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
static struct frg_mix *mix_with(const struct pool *p, unsigned int milli)
{
	struct frg_mix *w = malloc(sizeof(*w));

	if (w) {
		*w = p->fgd;
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

/*
 * A share of one GPU (rq->milli) or an HCA alone (rq->rdma) for rq
 * into a: 0, -ENOSPC with its message, -ENOMEM.
 */
static int pick_spot(struct pool *p, const struct pool_request *rq,
		     const struct pool_oracle *o, struct pool_alloc *a,
		     char *err, size_t len)
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
	if (rq->milli)
		w = mix_with(p, rq->milli);
	if (!s || (rq->milli && !w)) {
		free(s);
		free(w);
		return fail(err, len, -ENOMEM, "out of memory");
	}
	for (h = 0; h < p->cfg->nhosts; h++)
		if (in_service(p, h))
			n += rq->milli ? share_spots(p, w, h, rq->milli,
						     rq->rdma, s + n) :
					 port_spots(p, h, rq->rdma, s + n);
	qsort(s, n, sizeof(*s), cmp_spot);
	got = reach_spot(p, rq->client, o, s, n, &r, &unreach);
	free(s);
	free(w);
	if (!got && rq->milli)
		return fail(err, len, -ENOSPC, "a share of %u milli-GPUs requested%s, %zu GPUs have it free, %u of them unreachable from %s",
			    rq->milli, rq->rdma ? " with RDMA bandwidth" : "",
			    n, unreach, rq->client);
	if (!got)
		return fail(err, len, -ENOSPC, "%u%% of an HCA's RDMA bandwidth requested, %zu HCAs have it free, %u of them unreachable from %s",
			    rq->rdma, n, unreach, rq->client);
	if (rq->milli) {
		r.milli = rq->milli;
		a->gpus[0] = r;
		a->ngpus = 1;
	} else {
		a->port = r;
		a->has_port = true;
	}
	return 0;
}

bool pool_share_best(const struct pool *p, size_t h, unsigned int milli,
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

bool pool_port_best(const struct pool *p, size_t h, unsigned int rdma,
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
	struct pick k = { .p = p, .client = rq->client, .o = o,
			  .rdma = rq->rdma };
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
		return fail(err, len, -EINVAL, "%u GPUs requested, the pool has %u",
			    rq->ngpus, total_gpus(p));
	pool_expire(p, rq->now);
	now = p->clock;
	nfree = total_free(p);
	if (!p->hc)
		p->hc = malloc((p->cfg->nhosts + 1) * sizeof(*p->hc));
	if (!p->heap)
		p->heap = malloc((p->cfg->nhosts + 1) * sizeof(*p->heap));
	a.gpus = calloc(rq->ngpus + 1, sizeof(*a.gpus));
	if (!p->hc || !p->heap || !a.gpus ||
	    tio_grow((void **)&p->cand, &p->cand_cap, nfree + 1,
		     sizeof(*p->cand))) {
		ret = fail(err, len, -ENOMEM, "out of memory");
		goto out_free;
	}
	k.c = p->cand;
	k.hc = p->hc;
	k.heap = p->heap;
	k.lazy = o->bound;
	if (rq->milli || !rq->ngpus)
		ret = pick_spot(p, rq, o, &a, err, len);
	else
		ret = pick(&k, rq, nfree, &a, err, len);
	if (ret == -EAGAIN) {
		k.lazy = false;
		k.bad = false;
		ret = pick(&k, rq, nfree, &a, err, len);
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
	rec = alloc_json(p, &a);
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
		return fail(err, len, -ENOENT, "no allocation %" PRIu64, id);
	if (uid && p->allocs[i].uid != uid)
		return fail(err, len, -EPERM, "allocation %" PRIu64 " belongs to uid %u",
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
		return fail(err, len, -EINVAL, "lease of %u s is longer than %d s",
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
		return fail(err, len, -EINVAL, "job id must be 1..%d characters",
			    POOL_JOB_MAX);
	rec = record(p, "job.start", now);
	h = json_object_new_array();
	if (!rec || !h) {
		json_object_put(h);
		json_object_put(rec);
		return fail(err, len, -ENOMEM, "out of memory");
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
		return fail(err, len, -ENOENT, "no job '%s'", job);
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
		return fail(err, len, -EINVAL, "a GPU share is of one GPU, not of a gang of hosts");
	if (q->hosts && (q->hosts > p->cfg->nhosts || q->per_host > POOL_MAX_GPUS))
		return fail(err, len, -EINVAL, "a gang of %u hosts with %u GPUs each does not fit %zu hosts",
			    q->hosts, q->per_host, p->cfg->nhosts);
	rec = record(p, "queue", now);
	c.ticket = p->next_ticket;
	c.submit = p->clock;
	c.job = q->job ? q->job : (char *)"";
	c.cls = q->cls ? q->cls : (char *)"";
	c.group = q->group ? q->group : (char *)"";
	c.name = q->name ? q->name : (char *)"";
	if (rec) {
		struct json_object *x = queued_json(&c);

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
		return fail(err, len, -ENOENT, "no queued ticket %" PRIu64,
			    ticket);
	if (uid && p->queue[i].uid != uid)
		return fail(err, len, -EPERM, "ticket %" PRIu64 " belongs to uid %u",
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
			return fail(err, len, -EINVAL, "no such GPU or HCA");
		if (r->gpu == POOL_NO_GPU) {
			a->port = *r;
			a->has_port = true;
		} else {
			a->gpus[a->ngpus++] = *r;
		}
	}
	if (a->has_port && a->ngpus)
		return fail(err, len, -EINVAL, "an HCA alone is taken without GPUs");
	for (k = 0; k < a->ngpus; k++) {
		r = &a->gpus[k];
		need = r->milli ? r->milli : POOL_MILLI;
		if (p->hosts[r->host].used[r->gpu] + need > POOL_MILLI)
			ret = fail(err, len, -EEXIST, "%s GPU %u is not free",
				   p->cfg->hosts[r->host].name, r->gpu);
	}
	if (!ret && !rdma_fits(p, a))
		ret = fail(err, len, -EEXIST, "an HCA lacks the RDMA bandwidth");
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
		return fail(err, len, -ENOENT, "no queued ticket %" PRIu64,
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
		return fail(err, len, -ENOMEM, "out of memory");
	ret = refs_into(p, &a, g, n, err, len);
	if (ret) {
		free(a.gpus);
		return ret;
	}
	rec = alloc_json(p, &a);
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
		return fail(err, len, -ENOENT, "no allocation %" PRIu64, id);
	a = &p->allocs[i];
	t.rdma = a->rdma;
	t.gpus = calloc(n + 1, sizeof(*t.gpus));
	if (!t.gpus)
		return fail(err, len, -ENOMEM, "out of memory");
	/* what it holds is free to it */
	hold_all(p, a, -1);
	ret = refs_into(p, &t, g, n, err, len);
	hold_all(p, a, 1);
	if (ret) {
		free(t.gpus);
		return ret;
	}
	rec = record(p, "replace", now);
	x = alloc_json(p, &t);
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
		return fail(err, len, -ENOENT, "no allocation %" PRIu64, id);
	if (!p->allocs[i].req)
		return fail(err, len, -EINVAL, "allocation %" PRIu64 " was not queued",
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
		return fail(err, len, -EINVAL, "no such host or state");
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
		return fail(err, len, -ENOMEM, "out of memory");
	}
	json_object_object_add(rec, "gpus", g);
	for (i = 0; i < p->nallocs; i++)
		for (a = &p->allocs[i], k = 0; k < a->nlost; k++) {
			x = lost_json(&a->lost[k]);
			if (!x || json_object_array_add(g, x)) {
				json_object_put(x);
				json_object_put(rec);
				return fail(err, len, -ENOMEM, "out of memory");
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
