// SPDX-License-Identifier: MIT
/*
 * The pool's queue.  The pool holds the truth (allocations and queued
 * requests, journaled); the scheduler holds the same set as its running
 * and queued tickets, rebuilt from the pool at start, so a restart
 * replays the queue and a grant, one record, happens once.  Allocations
 * made at once (alloc without queue, or replayed) are held in the
 * scheduler at the top class: a queued request never preempts them.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "log.h"
#include "queue.h"
#include "tools/lib/pool/sched.h"

/*
 * One scheduler ticket: a queued pool ticket, an allocation, or the free
 * GPUs of the hosts a started job (Slurm's) runs on.
 */
struct ent {
	uint64_t sch;		/* the scheduler's ticket */
	uint64_t ticket;	/* the pool's queued ticket, 0: made at once */
	uint64_t id;		/* allocation while running, else 0 */
	bool job;		/* a started job's hosts */
};

struct poold_queue {
	const struct pool_config *cfg;
	struct pool *pool;
	struct sch *s;
	struct ent *e;
	size_t n, cap;
	uint64_t seen;		/* highest allocation id known */
	bool *fabric;		/* per host: gone from the fabric */
	uint64_t *dead;		/* per host: GPUs behind an HCA it lost */
	uint64_t *rdead;	/* per host: the HCA rails it lost */
	struct sch_host *hosts;	/* the scheduler's, for their levels */
	unsigned int nlevels;
	uint64_t *quota;	/* milli per group, the last one for "" */
	uint64_t *borrow, *lend;	/* the same: Kueue's limits */
	uint64_t jobs_sig;	/* of the jobs and allocations held for */
	bool *taken;		/* scratch: per host, held for a job */
	double t;
};

static double clock_of(struct poold_queue *q, time_t now)
{
	if ((double)now > q->t)
		q->t = (double)now;
	return q->t;
}

static struct ent *ent_add(struct poold_queue *q)
{
	if (q->n == q->cap) {
		size_t cap = q->cap ? 2 * q->cap : 64;
		struct ent *e = realloc(q->e, cap * sizeof(*e));

		if (!e)
			return NULL;
		q->e = e;
		q->cap = cap;
	}
	memset(&q->e[q->n], 0, sizeof(q->e[0]));
	return &q->e[q->n++];
}

static struct ent *ent_by_sch(struct poold_queue *q, uint64_t sch)
{
	size_t i;

	for (i = 0; i < q->n; i++)
		if (q->e[i].sch == sch)
			return &q->e[i];
	return NULL;
}

static void ent_del(struct poold_queue *q, struct ent *e)
{
	*e = q->e[--q->n];
}

/* A class or group name's index; "" the default; -1 unknown. */
static long cls_index(const struct pool_sched_cfg *c, const char *name)
{
	unsigned int i;

	if (!*name)
		return c->default_class;
	for (i = 0; i < c->nclasses; i++)
		if (!strcmp(c->classes[i], name))
			return i;
	return -1;
}

static long group_index(const struct pool_sched_cfg *c, const char *name)
{
	size_t i;

	if (!*name)
		return c->ngroups;
	for (i = 0; i < c->ngroups; i++)
		if (!strcmp(c->groups[i], name))
			return i;
	return -1;
}

/* r as the scheduler takes it; -EINVAL naming what is unknown. */
static int req_of(const struct poold_queue *q, const struct pool_queued *r,
		      struct sch_req *out, char *err, size_t len)
{
	const struct pool_sched_cfg *c = &q->cfg->sched;
	long k = cls_index(c, r->cls), g = group_index(c, r->group);

	if (k < 0) {
		snprintf(err, len, "unknown class '%s'", r->cls);
		return -EINVAL;
	}
	if (g < 0) {
		snprintf(err, len, "unknown group '%s'", r->group);
		return -EINVAL;
	}
	*out = (struct sch_req){ .user = r->uid, .group = g, .cls = k,
		.gpus = r->milli ? 0 : r->ngpus, .milli = r->milli,
		.nic = r->rdma, .hosts = r->hosts, .per_host = r->per_host,
		.limit = r->limit_s, .name = r->name };
	return 0;
}

static int slot_cmp(const void *a, const void *b)
{
	const struct sch_slot *x = a, *y = b;

	if (x->host != y->host)
		return x->host < y->host ? -1 : 1;
	return (int)x->gpu - (int)y->gpu;
}

/*
 * Allocation a held in the scheduler as it is placed: its GPUs, a share
 * of one, or (RDMA bandwidth alone) its HCA.  The scheduler counts the
 * bandwidth per HCA as the pool does: on each its GPUs send through.
 */
static int hold(struct poold_queue *q, const struct pool_alloc *a)
{
	unsigned int i, n = a->has_port ? 1 : a->ngpus;
	struct sch_slot *sl = calloc(n + 1, sizeof(*sl));
	bool part = a->ngpus == 1 && a->gpus[0].milli;
	struct sch_req r = { .user = a->uid, .group = q->cfg->sched.ngroups,
			     .cls = SCH_CLASSES - 1,
			     .gpus = part ? 0 : a->ngpus,
			     .milli = part ? a->gpus[0].milli : 0,
			     .nic = a->rdma };
	struct ent *e;
	int ret;

	if (!sl)
		return -ENOMEM;
	for (i = 0; i < a->ngpus; i++)
		sl[i] = (struct sch_slot){ .host = a->gpus[i].host,
			.gpu = a->gpus[i].gpu,
			.milli = part ? a->gpus[0].milli : SCH_MILLI };
	if (a->has_port)
		sl[0] = (struct sch_slot){ .host = a->port.host,
					   .gpu = SCH_NO_GPU,
					   .rail = a->port.rail };
	qsort(sl, n, sizeof(*sl), slot_cmp);
	/* granted from the queue: its class may be preempted, as queued */
	if (a->req) {
		struct sch_req x;
		char msg[128];

		if (!req_of(q, a->req, &x, msg, sizeof(msg))) {
			r.cls = x.cls;
			r.group = x.group;
			r.limit = x.limit;
		}
	}
	e = ent_add(q);
	ret = e ? sch_hold(q->s, &r, sl, n, q->t, &e->sch) : -ENOMEM;
	free(sl);
	/* seen either way: one that could not be held is not tried again */
	if (a->id > q->seen)
		q->seen = a->id;
	if (ret) {
		if (e)
			q->n--;
		poold_log(LOG_ERR, "queue: allocation %" PRIu64 " not held by the scheduler: %s",
			  a->id, strerror(-ret));
		return ret == -ENOMEM ? ret : 0;
	}
	e->ticket = a->req ? a->req->ticket : 0;
	e->id = a->id;
	return 0;
}

/* Queued request r into the scheduler. */
static int enter(struct poold_queue *q, const struct pool_queued *r,
		 double t, char *err, size_t len)
{
	struct sch_req sr;
	struct ent *e;
	int ret;

	ret = req_of(q, r, &sr, err, len);
	if (ret)
		return ret;
	e = ent_add(q);
	if (!e)
		return -ENOMEM;
	ret = sch_submit(q->s, &sr, t, &e->sch);
	if (ret) {
		q->n--;
		if (ret == -EINVAL)
			snprintf(err, len, "%u GPUs%s can never fit this pool",
				 r->ngpus, r->hosts ? " on that gang" : "");
		return ret;
	}
	e->ticket = r->ticket;
	return 0;
}

static void host_levels(const struct pool_tree *t, size_t h,
			struct sch_host *sh, unsigned int nl)
{
	long ti = t->cfg_host ? t->cfg_host[h] : -1;
	unsigned int l;

	for (l = 0; l < nl && ti >= 0; l++)
		sh->lvl[l] = t->fattree ? t->group[(size_t)l * t->nhosts + ti] :
					  t->host_sw[ti];
}

/* Group i's limit of v (GPUs, NULL: none) in milli; UINT64_MAX none. */
static uint64_t milli_limit(const unsigned int *v, size_t i)
{
	if (!v || v[i] == POOL_CFG_NO_LIMIT)
		return UINT64_MAX;
	return (uint64_t)v[i] * SCH_MILLI;
}

static int build(struct poold_queue *q, const struct pool_tree *t)
{
	const struct pool_config *cfg = q->cfg;
	const struct pool_sched_cfg *sc = &cfg->sched;
	struct sch_host *h = calloc(cfg->nhosts + 1, sizeof(*h));
	struct sch_config c;
	size_t i;
	int ret = -ENOMEM;

	if (!h)
		return ret;
	sch_config_default(&c, sc->policy);
	c.nlevels = t->fattree && t->nlevels ? t->nlevels : 1;
	if (c.nlevels > SCH_MAX_LEVELS)
		c.nlevels = SCH_MAX_LEVELS;
	c.grace = sc->grace_s;
	c.restart = sc->restart_s;
	c.preempt = sc->preempt;
	if (sc->starve_s)
		c.starve = sc->starve_s;
	for (i = 0; sc->class_weight >= 0 && i < SCH_CLASSES; i++)
		c.w_cls[i] = sc->class_weight * (double)i / (SCH_CLASSES - 1);
	for (i = 0; i < sc->nclass_weights; i++)
		c.w_cls[i] = sc->class_weights[i];
	c.gang_wait = sc->gang_wait_s;
	for (i = 0; i < sc->ngroups; i++) {
		q->quota[i] = (uint64_t)sc->quota[i] * SCH_MILLI;
		q->borrow[i] = milli_limit(sc->borrow, i);
		q->lend[i] = milli_limit(sc->lend, i);
	}
	q->quota[sc->ngroups] = UINT64_MAX / 4;
	q->borrow[sc->ngroups] = q->lend[sc->ngroups] = UINT64_MAX;
	c.quota = sc->ngroups ? q->quota : NULL;
	c.borrow = sc->borrow ? q->borrow : NULL;
	c.lend = sc->lend ? q->lend : NULL;
	c.ngroups = sc->ngroups + 1;
	for (i = 0; i < cfg->nhosts; i++) {
		h[i].gpus = cfg->hosts[i].gpus;
		h[i].rails = cfg->hosts[i].nhca;
		h[i].nic = POOL_RDMA_CAP;
		host_levels(t, i, &h[i], c.nlevels);
	}
	ret = sch_new(h, cfg->nhosts, &c, &q->s);
	q->hosts = h;
	q->nlevels = c.nlevels;
	return ret;
}

int poold_queue_new(const struct pool_config *cfg, struct pool *pool,
		    const struct pool_tree *t, struct poold_queue **out)
{
	time_t now = pool_clock(pool);
	struct poold_queue *q = calloc(1, sizeof(*q));
	char err[256];
	size_t i;
	int ret = -ENOMEM;

	*out = NULL;
	if (!q)
		return ret;
	q->cfg = cfg;
	q->pool = pool;
	q->t = (double)now;
	q->fabric = calloc(cfg->nhosts + 1, sizeof(*q->fabric));
	q->quota = calloc(cfg->sched.ngroups + 1, sizeof(*q->quota));
	q->borrow = calloc(cfg->sched.ngroups + 1, sizeof(*q->borrow));
	q->lend = calloc(cfg->sched.ngroups + 1, sizeof(*q->lend));
	q->taken = calloc(cfg->nhosts + 1, sizeof(*q->taken));
	q->dead = calloc(cfg->nhosts + 1, sizeof(*q->dead));
	q->rdead = calloc(cfg->nhosts + 1, sizeof(*q->rdead));
	if (!q->fabric || !q->quota || !q->borrow || !q->lend || !q->taken ||
	    !q->dead || !q->rdead ||
	    (ret = build(q, t)))
		goto out_free;
	/* the queue first, at its submit times; then what runs, now */
	for (i = 0; i < pool_nqueued(pool); i++) {
		const struct pool_queued *r = pool_queued_at(pool, i);

		ret = enter(q, r, r->submit < now ? (double)r->submit : q->t,
			    err, sizeof(err));
		if (ret == -ENOMEM)
			goto out_free;
		if (ret)
			poold_log(LOG_WARNING, "queue: ticket %" PRIu64 " stays queued but is never granted: %s (the config changed?)",
				  r->ticket, err);
	}
	for (i = 0; i < pool_nallocs(pool); i++)
		if ((ret = hold(q, pool_alloc_at(pool, i))))
			goto out_free;
	/* the hosts the tree lacks, and those an operator failed */
	for (i = 0; i < cfg->nhosts; i++)
		poold_queue_fabric(q, i, !t->cfg_host || t->cfg_host[i] < 0,
				   now);
	*out = q;
	return 0;
out_free:
	poold_queue_free(q);
	return ret;
}

void poold_queue_free(struct poold_queue *q)
{
	if (!q)
		return;
	sch_free(q->s);
	free(q->e);
	free(q->fabric);
	free(q->quota);
	free(q->borrow);
	free(q->lend);
	free(q->taken);
	free(q->dead);
	free(q->rdead);
	free(q->hosts);
	free(q);
}

int poold_queue_submit(struct poold_queue *q, const struct pool_queued *r,
		       time_t now, uint64_t *ticket, char *err, size_t len)
{
	struct pool_queued c = *r;
	double t = clock_of(q, now);
	struct ent *e;
	int ret;

	c.cls = r->cls ? r->cls : (char *)"";
	c.group = r->group ? r->group : (char *)"";
	c.name = r->name ? r->name : (char *)"";
	ret = enter(q, &c, t, err, len);
	if (ret)
		return ret;
	e = &q->e[q->n - 1];
	ret = pool_enqueue(q->pool, &c, now, ticket, err, len);
	if (ret) {
		sch_cancel(q->s, e->sch, t);
		ent_del(q, e);
		return ret;
	}
	e->ticket = *ticket;
	return 0;
}

int poold_queue_cancel(struct poold_queue *q, uint64_t ticket, uid_t uid,
		       time_t now, char *err, size_t len)
{
	size_t i;
	int ret;

	ret = pool_cancel(q->pool, ticket, uid, now, err, len);
	if (ret)
		return ret;
	for (i = 0; i < q->n; i++)
		if (q->e[i].ticket == ticket && !q->e[i].id) {
			sch_cancel(q->s, q->e[i].sch, clock_of(q, now));
			ent_del(q, &q->e[i]);
			break;
		}
	return 0;
}

/* Up to the scheduler: not failed by an operator, in the fabric. */
static bool host_up(const struct poold_queue *q, size_t h)
{
	return !q->fabric[h] && pool_host(q->pool, h) != POOL_HOST_FAIL;
}

/* Down (not drained) to the scheduler when the operator or the fabric says. */
static void host_sync(struct poold_queue *q, uint32_t h, double t)
{
	if (!host_up(q, h))
		sch_host_down(q->s, h, t);
	else
		sch_host_up(q->s, h, t);
}

void poold_queue_oper(struct poold_queue *q, uint32_t h, time_t now)
{
	double t = clock_of(q, now);

	if (h >= q->cfg->nhosts)
		return;
	q->jobs_sig = 0;	/* a drained host's holds change */
	host_sync(q, h, t);
}

void poold_queue_fabric(struct poold_queue *q, uint32_t h, bool down,
			time_t now)
{
	double t = clock_of(q, now);

	if (h >= q->cfg->nhosts)
		return;
	q->fabric[h] = down;
	host_sync(q, h, t);
}

void poold_queue_rail(struct poold_queue *q, uint32_t h, unsigned int r,
		      bool down)
{
	const struct pool_host_cfg *c;
	uint64_t was;
	unsigned int g;

	if (h >= q->cfg->nhosts || r >= q->cfg->hosts[h].nhca)
		return;
	c = &q->cfg->hosts[h];
	was = q->dead[h];
	if (down) {
		q->rdead[h] |= 1ull << r;
		sch_rail_down(q->s, h, r);
	} else {
		q->rdead[h] &= ~(1ull << r);
		sch_rail_up(q->s, h, r);
	}
	for (g = 0; g < c->gpus; g++)
		if (pool_gpu_rail(c, g) == r) {
			if (down)
				q->dead[h] |= 1ull << g;
			else
				q->dead[h] &= ~(1ull << g);
		}
	if (q->dead[h] != was)
		q->jobs_sig = 0;	/* the free ones behind it are held */
}

enum pool_host_state poold_queue_host(const struct poold_queue *q,
				      uint32_t h)
{
	if (h < q->cfg->nhosts && q->fabric[h])
		return POOL_HOST_FAIL;
	return pool_host(q->pool, h);
}

/* Allocations gone from the pool end their tickets; new ones are held. */
static int catch_up(struct poold_queue *q)
{
	size_t i, n = pool_nallocs(q->pool);
	int ret;

	for (i = 0; i < q->n;) {
		struct ent *e = &q->e[i];

		if (e->id && !pool_alloc_find(q->pool, e->id)) {
			sch_finish(q->s, e->sch, q->t);
			ent_del(q, e);
		} else {
			i++;
		}
	}
	while (n && pool_alloc_at(q->pool, n - 1)->id > q->seen)
		n--;
	for (i = n; i < pool_nallocs(q->pool); i++)
		if ((ret = hold(q, pool_alloc_at(q->pool, i))))
			return ret;
	return 0;
}

#define FNV_PRIME 1099511628211ull

/* What the job holds depend on: the jobs' hosts and the allocations. */
static uint64_t jobs_signature(const struct pool *p)
{
	uint64_t h = 14695981039346656037ull;
	size_t i, k;

	for (i = 0; i < pool_njobs(p); i++) {
		const struct pool_job *j = pool_job_at(p, i);

		for (k = 0; k < j->nhosts; k++) {
			const char *c = j->hosts[k];

			while (*c)
				h = (h ^ (unsigned char)*c++) * FNV_PRIME;
			h = (h ^ 0xff) * FNV_PRIME;
		}
	}
	for (i = 0; i < pool_nallocs(p); i++)
		h = (h ^ pool_alloc_at(p, i)->id) * FNV_PRIME;
	return (h ^ pool_njobs(p)) * FNV_PRIME ^ pool_nallocs(p);
}

static long host_named(const struct pool_config *cfg, const char *name)
{
	size_t h;

	for (h = 0; h < cfg->nhosts; h++)
		if (!strcasecmp(cfg->hosts[h].name, name))
			return h;
	return -1;
}

static void drop_jobs(struct poold_queue *q)
{
	size_t i;

	for (i = 0; i < q->n;) {
		if (q->e[i].job) {
			sch_cancel(q->s, q->e[i].sch, q->t);
			ent_del(q, &q->e[i]);
		} else {
			i++;
		}
	}
}

/*
 * Slurm schedules the cluster: a job it started holds its hosts, so
 * their free GPUs are held in the scheduler, out of the queue's reach,
 * until the job ends (allocations naming the job are the job's own).
 */
/* Host h's free GPUs of mask into sl[*n]. */
static void free_gpus(struct poold_queue *q, size_t h, uint64_t mask,
		      struct sch_slot *sl, size_t *n)
{
	unsigned int g;

	for (g = 0; g < q->cfg->hosts[h].gpus; g++)
		if ((mask >> g & 1) && !pool_gpu_used(q->pool, h, g))
			sl[(*n)++] = (struct sch_slot){ .host = h, .gpu = g,
							.milli = SCH_MILLI };
}

/* All of host h's free GPUs into sl[*n], once per run (q->taken). */
static void take_host(struct poold_queue *q, long h, struct sch_slot *sl,
		      size_t *n)
{
	if (h < 0 || q->taken[h])
		return;
	q->taken[h] = true;
	free_gpus(q, h, ~0ull, sl, n);
}

/* sl[0..n) held in the scheduler, for a job or a drained host. */
static int hold_slots(struct poold_queue *q, struct sch_slot *sl, size_t n)
{
	struct sch_req r = { .group = q->cfg->sched.ngroups,
			     .cls = SCH_CLASSES - 1, .gpus = n };
	struct ent *e;
	int ret;

	if (!n)
		return 0;
	qsort(sl, n, sizeof(*sl), slot_cmp);
	e = ent_add(q);
	ret = e ? sch_hold(q->s, &r, sl, n, q->t, &e->sch) : -ENOMEM;
	if (ret && e)
		q->n--;
	else if (!ret)
		e->job = true;
	return ret;
}

static int hold_jobs(struct poold_queue *q)
{
	const struct pool_config *cfg = q->cfg;
	struct sch_slot *sl;
	size_t i, k, n;
	int ret = 0;

	memset(q->taken, 0, cfg->nhosts * sizeof(*q->taken));
	sl = calloc((size_t)cfg->nhosts * POOL_MAX_GPUS + 1, sizeof(*sl));
	if (!sl)
		return -ENOMEM;
	for (i = 0; i < pool_njobs(q->pool) && !ret; i++) {
		const struct pool_job *j = pool_job_at(q->pool, i);

		n = 0;
		for (k = 0; k < j->nhosts; k++)
			take_host(q, host_named(cfg, j->hosts[k]), sl, &n);
		ret = hold_slots(q, sl, n);
	}
	/*
	 * A drained host takes nothing new, what runs there runs on; nor
	 * do the GPUs behind an HCA its host lost (a whole host lost is
	 * down to the scheduler).
	 */
	for (i = 0; i < cfg->nhosts && !ret; i++) {
		n = 0;
		if (pool_host(q->pool, i) == POOL_HOST_DRAIN)
			take_host(q, i, sl, &n);
		else if (q->dead[i] && host_up(q, i) && !q->taken[i])
			free_gpus(q, i, q->dead[i], sl, &n);
		ret = hold_slots(q, sl, n);
	}
	free(sl);
	return ret;
}

/*
 * The scheduler's slots as the pool's GPUs (shares, or the HCA of
 * RDMA bandwidth alone, the scheduler's choice), dlids asked of ops.
 */
static struct pool_gpu_ref *gpus_of(const struct poold_queue *q,
				    const struct sch_dec *d,
				    const char *client,
				    const struct poold_queue_ops *ops)
{
	struct pool_gpu_ref *g = calloc(d->nslots + 1, sizeof(*g));
	size_t i;

	for (i = 0; g && i < d->nslots; i++) {
		const struct sch_slot *s = &d->slot[i];
		const struct pool_host_cfg *h = &q->cfg->hosts[s->host];

		g[i].host = s->host;
		g[i].gpu = s->gpu == SCH_NO_GPU ? POOL_NO_GPU : s->gpu;
		g[i].rail = s->gpu == SCH_NO_GPU ? s->rail :
			    pool_gpu_rail(h, g[i].gpu);
		g[i].milli = s->milli < SCH_MILLI && s->gpu != SCH_NO_GPU ?
			     s->milli : 0;
		g[i].dlid = ops->dlid(ops->ctx, client, g[i].host, g[i].rail);
	}
	return g;
}

static int grant(struct poold_queue *q, struct ent *e,
		 const struct sch_dec *d, time_t now,
		 const struct poold_queue_ops *ops, char *err, size_t len)
{
	const struct pool_queued *r = pool_queued_find(q->pool, e->ticket);
	const struct pool_alloc *a;
	struct pool_gpu_ref *g;
	int ret;

	if (!r)
		return 0;
	g = gpus_of(q, d, r->client, ops);
	if (!g)
		return -ENOMEM;
	ret = pool_grant(q->pool, e->ticket, g, d->nslots, now, &a, err, len);
	free(g);
	if (ret) {
		/* the scheduler thinks it runs: queue it there again */
		char msg[128];
		uint64_t t = e->ticket;

		sch_cancel(q->s, e->sch, q->t);
		ent_del(q, e);
		if (enter(q, r, q->t, msg, sizeof(msg)))
			poold_log(LOG_ERR, "queue: ticket %" PRIu64 " not queued again: %s",
				  t, msg);
		return ret;
	}
	e->id = a->id;
	q->seen = a->id;
	ops->event(ops->ctx, "granted", e->ticket, a->uid, a, a->id, 0);
	return 0;
}

static int replace(struct poold_queue *q, struct ent *e,
		   const struct sch_dec *d, time_t now,
		   const struct poold_queue_ops *ops, char *err, size_t len)
{
	const struct pool_alloc *a = pool_alloc_find(q->pool, e->id);
	struct pool_gpu_ref *g;
	int ret;

	if (!a)
		return 0;
	g = gpus_of(q, d, a->client, ops);
	if (!g)
		return -ENOMEM;
	ret = pool_replace(q->pool, e->id, g, d->nslots, now, err, len);
	free(g);
	if (ret)
		return ret;
	a = pool_alloc_find(q->pool, e->id);
	ops->event(ops->ctx, "replaced", e->ticket, a->uid, a, a->id, 0);
	return 0;
}

/*
 * e stopped running and the scheduler queued it again (preempted, or
 * lost without a replacement): a queued request goes back to the pool's
 * queue; an allocation made at once has no request to queue, and ends.
 */
static int stopped(struct poold_queue *q, struct ent *e, const char *kind,
		   time_t now, const struct poold_queue_ops *ops, char *err,
		   size_t len)
{
	const struct pool_alloc *a = pool_alloc_find(q->pool, e->id);
	uint64_t id = e->id;
	uid_t uid;
	int ret;

	if (!a)
		return 0;
	uid = a->uid;
	if (e->ticket) {
		ret = pool_requeue(q->pool, id, now, err, len);
		if (ret)
			return ret;
		e->id = 0;
		ops->event(ops->ctx, kind, e->ticket, uid, NULL, id, 0);
		return 0;
	}
	sch_cancel(q->s, e->sch, q->t);
	ent_del(q, e);
	ret = pool_release(q->pool, id, 0, now, err, len);
	if (!ret)
		ops->event(ops->ctx, "revoked", 0, uid, NULL, id, 0);
	return ret;
}

static int carry_out(struct poold_queue *q, const struct sch_dec *d,
		     time_t now, const struct poold_queue_ops *ops, char *err,
		     size_t len)
{
	struct ent *e = ent_by_sch(q, d->ticket);
	const struct pool_alloc *a;

	if (!e)
		return 0;
	if (e->job) {
		/* a job's hold that moved: hold its hosts afresh next run */
		if (d->act == SCH_REQUEUE || d->act == SCH_REPLACED) {
			sch_cancel(q->s, e->sch, q->t);
			ent_del(q, e);
			q->jobs_sig = 0;
		}
		return 0;
	}
	a = e->id ? pool_alloc_find(q->pool, e->id) : NULL;
	switch (d->act) {
	case SCH_START:
		return grant(q, e, d, now, ops, err, len);
	case SCH_NOTICE:
		if (a)
			ops->event(ops->ctx, "preempt-notice", e->ticket,
				   a->uid, a, a->id, (time_t)d->deadline);
		return 0;
	case SCH_LOST:
		if (a)
			ops->event(ops->ctx, "lost", e->ticket, a->uid, a,
				   a->id, 0);
		return 0;
	case SCH_REPLACED:
		return replace(q, e, d, now, ops, err, len);
	case SCH_PREEMPT:
		return stopped(q, e, "preempted", now, ops, err, len);
	case SCH_REQUEUE:
		return stopped(q, e, "requeued", now, ops, err, len);
	}
	return 0;
}

/* --- an HCA lost, its host up: the queue moves what it held --- */

/*
 * a's GPUs (or its RDMA-only HCA) behind a lost HCA of a host still up,
 * 0 when none or when a host of a is down (the scheduler's loss; the
 * rest is seen next run).
 */
static unsigned int on_dead(const struct poold_queue *q,
			    const struct pool_alloc *a)
{
	unsigned int i, n = 0;

	if (a->has_port)
		return host_up(q, a->port.host) &&
		       (q->rdead[a->port.host] >> a->port.rail & 1);
	for (i = 0; i < a->ngpus; i++) {
		if (!host_up(q, a->gpus[i].host))
			return 0;
		n += q->dead[a->gpus[i].host] >> a->gpus[i].gpu & 1;
	}
	return n;
}

/* Host h can take a lost GPU's place: up, in service, not a job's. */
static bool usable(const struct poold_queue *q, size_t h)
{
	return host_up(q, h) && !q->taken[h] &&
	       pool_host(q->pool, h) == POOL_HOST_UP;
}

/*
 * HCA rail of host h has rdma free for an allocation that already
 * sends through g[0..n) (there it holds its share of the HCA).
 */
static bool rdma_spare(const struct poold_queue *q, size_t h,
		       unsigned int rail, unsigned int rdma,
		       const struct pool_gpu_ref *g, size_t n)
{
	size_t i;

	for (i = 0; rdma && i < n; i++)
		if (g[i].host == h && g[i].rail == rail)
			return true;
	return pool_rdma_used(q->pool, h, rail) + rdma <= POOL_RDMA_CAP;
}

/* A whole GPU to take for a lost one: free, live, rdma free on its HCA. */
static bool spare(const struct poold_queue *q, size_t h, unsigned int g,
		  unsigned int rdma, const struct pool_gpu_ref *got, size_t n)
{
	size_t i;

	if (!usable(q, h) || (q->dead[h] >> g & 1) ||
	    pool_gpu_used(q->pool, h, g) ||
	    !rdma_spare(q, h, pool_gpu_rail(&q->cfg->hosts[h], g), rdma, got,
			n))
		return false;
	for (i = 0; i < n; i++)
		if (got[i].host == h && got[i].gpu == g)
			return false;
	return true;
}

/* Host h is at level l of host at: 0 at itself, past the top anywhere. */
static bool near(const struct poold_queue *q, size_t h, size_t at,
		 unsigned int l)
{
	if (!l)
		return h == at;
	return l > q->nlevels ||
	       q->hosts[h].lvl[l - 1] == q->hosts[at].lvl[l - 1];
}

/*
 * Host h's GPU for lost x of an allocation with rdma and g[0..n), into
 * r: a whole free one, the first; a share where pool_alloc() would
 * place it, with its key; an HCA alone (x has no GPU) as pool_alloc()
 * places RDMA bandwidth alone, with its key.  False: none.
 */
static bool spot_on(const struct poold_queue *q, size_t h,
		    const struct pool_gpu_ref *x, unsigned int rdma,
		    const struct pool_gpu_ref *g, size_t n,
		    struct pool_gpu_ref *r, double *key)
{
	const struct pool_host_cfg *c = &q->cfg->hosts[h];
	unsigned int i;

	*key = 0;
	*r = (struct pool_gpu_ref){ .host = h, .gpu = POOL_NO_GPU,
				    .milli = x->milli };
	if (x->gpu == POOL_NO_GPU)
		return usable(q, h) &&
		       pool_port_best(q->pool, h, rdma, q->rdead[h], &r->rail,
				      key);
	if (x->milli) {
		if (!usable(q, h) ||
		    !pool_share_best(q->pool, h, x->milli, rdma, q->dead[h],
				     &r->gpu, key))
			return false;
		r->rail = pool_gpu_rail(c, r->gpu);
		return true;
	}
	for (i = 0; i < c->gpus; i++)
		if (spare(q, h, i, rdma, g, n)) {
			r->gpu = i;
			r->rail = pool_gpu_rail(c, i);
			return true;
		}
	return false;
}

/*
 * A GPU (an HCA for x without one) nearest lost x's host for it, not
 * one of g[0..n), into g[n] with x's share; among hosts alike near,
 * the lowest key.  False: none.
 */
static bool nearest(const struct poold_queue *q, const struct pool_gpu_ref *x,
		    unsigned int rdma, struct pool_gpu_ref *g, size_t n)
{
	struct pool_gpu_ref r;
	double key, best = 0;
	bool got = false;
	unsigned int l;
	size_t h;

	for (l = 0; !got && l <= q->nlevels + 1; l++)
		for (h = 0; h < q->cfg->nhosts; h++) {
			if (!near(q, h, x->host, l) ||
			    !spot_on(q, h, x, rdma, g, n, &r, &key) ||
			    (got && key >= best))
				continue;
			got = true;
			best = key;
			g[n] = r;
		}
	return got;
}

/*
 * The GPUs of a after its lost ones are replaced into g (a->ngpus), of
 * the same shape (a share as a share, placed as one, its RDMA
 * bandwidth free): each on its own host first, then on hosts that share
 * a tree level with it, lowest first, then anywhere.  False when the
 * pool lacks them.
 */
static bool respread(const struct poold_queue *q, const struct pool_alloc *a,
		     struct pool_gpu_ref *g, const struct poold_queue_ops *ops)
{
	const struct pool_gpu_ref *x;
	size_t n = 0, i;

	if (a->has_port) {
		struct pool_gpu_ref p = a->port;

		p.gpu = POOL_NO_GPU;
		if (!nearest(q, &p, a->rdma, g, 0))
			return false;
		g[0].dlid = ops->dlid(ops->ctx, a->client, g[0].host,
				      g[0].rail);
		return true;
	}
	for (i = 0; i < a->ngpus; i++)
		if (!(q->dead[a->gpus[i].host] >> a->gpus[i].gpu & 1))
			g[n++] = a->gpus[i];
	for (i = 0; i < a->ngpus; i++) {
		x = &a->gpus[i];
		if (!(q->dead[x->host] >> x->gpu & 1))
			continue;
		if (!nearest(q, x, a->rdma, g, n))
			return false;
		g[n].dlid = ops->dlid(ops->ctx, a->client, g[n].host,
				      g[n].rail);
		n++;
	}
	return true;
}

/*
 * e's allocation a lost GPUs behind an HCA: lost, then replaced (the
 * scheduler holds it afresh), else queued again (a queued request, at
 * its first submit time) or revoked (one made at once), as for a host.
 */
static int rail_lost(struct poold_queue *q, struct ent *e,
		     const struct pool_alloc *a, time_t now,
		     const struct poold_queue_ops *ops, char *err, size_t len)
{
	unsigned int ng = a->has_port ? 1 : a->ngpus;
	struct pool_gpu_ref *g = calloc(ng, sizeof(*g));
	uint64_t id = a->id, ticket = e->ticket;
	const struct pool_queued *r;
	uid_t uid = a->uid;
	int ret;

	if (!g) {
		snprintf(err, len, "out of memory");
		return -ENOMEM;
	}
	ops->event(ops->ctx, "lost", ticket, uid, a, id, 0);
	sch_cancel(q->s, e->sch, q->t);
	ent_del(q, e);
	if (respread(q, a, g, ops)) {
		ret = pool_replace(q->pool, id, g, ng, now, err, len);
		if (!ret)
			ops->event(ops->ctx, "replaced", ticket, uid,
				   pool_alloc_find(q->pool, id), id, 0);
	} else if (ticket) {
		ret = pool_requeue(q->pool, id, now, err, len);
		r = pool_queued_find(q->pool, ticket);
		if (!ret && r)
			ret = enter(q, r, (double)r->submit, err, len);
		if (!ret)
			ops->event(ops->ctx, "requeued", ticket, uid, NULL, id,
				   0);
	} else {
		ret = pool_release(q->pool, id, 0, now, err, len);
		if (!ret)
			ops->event(ops->ctx, "revoked", 0, uid, NULL, id, 0);
	}
	free(g);
	/* replaced, or kept by a failure: held as it is now */
	a = pool_alloc_find(q->pool, id);
	if (a && (!ticket || !pool_queued_find(q->pool, ticket)))
		return hold(q, a) ? -ENOMEM : ret;
	return ret;
}

/*
 * Every running allocation on a lost HCA (of a host up): how many, each
 * failure logged.
 */
static size_t rails_lost(struct poold_queue *q, time_t now,
			 const struct poold_queue_ops *ops)
{
	const struct pool_alloc *a;
	size_t i, n = 0;
	char err[256];
	uint64_t id;

	for (i = 0; i < q->n;) {
		struct ent *e = &q->e[i];

		a = e->id && !e->job ? pool_alloc_find(q->pool, e->id) : NULL;
		if (!a || !on_dead(q, a)) {
			i++;
			continue;
		}
		/* e leaves the table: what moves into slot i is seen next */
		id = a->id;
		n++;
		if (rail_lost(q, e, a, now, ops, err, sizeof(err))) {
			poold_log(LOG_ERR, "queue: allocation %" PRIu64 " on a lost HCA: %s",
				  id, err);
			i++;
		}
	}
	return n;
}

int poold_queue_run(struct poold_queue *q, time_t now,
		    const struct poold_queue_ops *ops, char *err, size_t len)
{
	const struct sch_dec *d;
	double t = clock_of(q, now);
	char msg[256];
	uint64_t sig;
	size_t i, n;
	int ret, first = 0;

	/* the jobs' holds go first: an allocation may take their GPUs */
	sig = jobs_signature(q->pool);
	if (sig != q->jobs_sig)
		drop_jobs(q);
	ret = catch_up(q);
	if (!ret && sig != q->jobs_sig) {
		ret = hold_jobs(q);
		q->jobs_sig = sig;
	}
	/* the GPUs it left behind are held before anything is granted */
	if (!ret && rails_lost(q, now, ops)) {
		drop_jobs(q);
		ret = hold_jobs(q);
		q->jobs_sig = jobs_signature(q->pool);
	}
	if (!ret)
		ret = sch_step(q->s, t, &d, &n);
	if (ret) {
		snprintf(err, len, "scheduler: %s", strerror(-ret));
		return ret;
	}
	for (i = 0; i < n; i++) {
		ret = carry_out(q, &d[i], now, ops, msg, sizeof(msg));
		if (ret)
			poold_log(LOG_ERR, "queue: ticket %" PRIu64 ": %s",
				  d[i].ticket, msg);
		if (ret && !first) {
			first = ret;
			snprintf(err, len, "%s", msg);
		}
	}
	return first;
}
