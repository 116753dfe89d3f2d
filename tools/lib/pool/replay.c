// SPDX-License-Identifier: MIT
/*
 * The replay's event loop: arrivals from the trace, completions from a
 * heap (a preempted job's entry goes stale by generation), wake-ups the
 * core asks for; the core decides, the loop keeps the books.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "replay.h"
#include "routing/collsim.h"
#include "routing/jobs.h"

#define BSLD_FLOOR 10.0
#define UT_POINTS 2000
#define COMM_MAX 2000
#define COMM_A2A_ROUNDS 8
#define MAX_HITS 100	/* a job failed this often is given up */
#define FGD_TYPICAL 95.0	/* % of the requests FGD's typical types make */

/* A job as the loop sees it, by ticket. */
struct rj {
	size_t ti;		/* trace index */
	double left;		/* run time still to go, as traced */
	double stretch;		/* this run's: its wall time / left (comm_share) */
	double extra;		/* wall time run beyond the traced run time */
	double start;		/* of the current run, < 0: not running */
	double end;		/* finished at, < 0: not yet */
	uint32_t gen;		/* bumped when a run stops early */
	unsigned int bucket;	/* GPUs, rounded up: the idle-wait index */
	uint32_t *hosts;	/* gangs while running, for the model */
	size_t nhosts;
	bool gang;		/* ran on more than one host */
	unsigned int hits;	/* failures that hit it */
};

/* A completion (ticket, gen), or a host event (host, fail_kind). */
struct ev {
	double t;
	uint64_t ticket;
	uint32_t gen;
};

/* Entries stay until popped; a stale completion is skipped then. */
struct evheap {
	struct ev *v;
	size_t n, cap;
};

enum fail_kind { F_DOWN, F_UP, F_MTBF_DOWN, F_MTBF_UP };
enum { DOWN_SCRIPT = 1, DOWN_MTBF = 2 };

struct loop {
	const struct rpl_opts *o;
	struct rpl_result *r;
	struct sch *s;
	struct rj *job;		/* [ticket] */
	size_t njob;
	struct evheap done;	/* completions */
	struct evheap fail;	/* host events */
	uint8_t *down;		/* [host]: DOWN_SCRIPT | DOWN_MTBF */
	size_t ndown;
	bool *dormant;		/* [host]: its next failure not drawn yet */
	size_t ndormant;
	bool quiet;		/* nothing runs, nothing left to arrive */
	uint64_t *rng;		/* [host]: its failures' stream */
	uint32_t *waiting;	/* queued jobs per bucket */
	unsigned int nbucket;
	uint64_t cap;		/* milli */
	double busy;		/* milli-seconds allocated */
	double busy_arr;	/* the same between the first and last arrival */
	double arr0, arr1;	/* those arrivals */
	double last;		/* time of the last step */
	double *steps;		/* wall ms of each sch_step() */
	size_t nsteps, capsteps;
	uint64_t *giveup;	/* jobs hit MAX_HITS times, this step */
	size_t ngiveup;
	uint64_t *gang;		/* running gangs' tickets */
	size_t ngang;
	size_t gang_seen, comm_every;
	size_t nstretch;	/* gang runs stretched */
	double next_ut, ut_dt;
	double end_max;		/* the last completion */
};

static int heap_push(struct evheap *h, struct ev e)
{
	size_t i, p;

	if (h->n == h->cap) {
		size_t cap = h->cap ? 2 * h->cap : 16;
		struct ev *v = realloc(h->v, cap * sizeof(*v));

		if (!v)
			return -ENOMEM;
		h->v = v;
		h->cap = cap;
	}
	i = h->n++;
	while (i && h->v[p = (i - 1) / 2].t > e.t) {
		h->v[i] = h->v[p];
		i = p;
	}
	h->v[i] = e;
	return 0;
}

static struct ev heap_pop(struct evheap *h)
{
	struct ev top = h->v[0], e = h->v[--h->n];
	size_t i = 0, c;

	while ((c = 2 * i + 1) < h->n) {
		if (c + 1 < h->n && h->v[c + 1].t < h->v[c].t)
			c++;
		if (h->v[c].t >= e.t)
			break;
		h->v[i] = h->v[c];
		i = c;
	}
	h->v[i] = e;
	return top;
}

static unsigned int class_of(const char *c)
{
	static const char *const names[] = { "BE", "Burstable", "Guaranteed",
					     "LS" };
	unsigned int i;

	if (c[0] >= '0' && c[0] < '0' + SCH_CLASSES && !c[1])
		return (unsigned int)(c[0] - '0');
	for (i = 0; i < SCH_CLASSES; i++)
		if (!strcasecmp(c, names[i]))
			return i;
	return 1;
}

void rpl_request(const struct trc_trace *t, const struct trc_cluster *c,
		 const struct trc_job *j, struct sch_req *r)
{
	bool share = j->milli < SCH_MILLI && j->gpus;

	*r = (struct sch_req){
		.user = j->user, .cls = class_of(t->strs[j->cls]),
		.gpus = share ? 0 : j->gpus, .milli = share ? j->milli : 0,
		.nic = j->rdma, .limit = j->limit, .runtime = j->runtime,
		.name = t->strs[j->name], .cpu = j->cpu, .mem = j->mem,
		.models = c ? trc_spec_mask(c, t->strs[j->spec]) : 0,
	};
	if (j->hosts > 1 && j->per_host) {
		r->hosts = j->hosts;
		r->per_host = j->per_host;
	}
}

/* FGD's workload: the trace's requests, its typical ones as FGD's. */
static void expect_trace(struct sch *s, const struct trc_trace *t,
			 const struct trc_cluster *c)
{
	struct sch_req r;
	size_t i;

	for (i = 0; i < t->njobs; i++) {
		rpl_request(t, c, &t->jobs[i], &r);
		sch_expect(s, &r);
	}
	sch_expect_end(s, FGD_TYPICAL);
}

static double sched_comm(void *ctx, const uint32_t *h, size_t n,
			 const uint64_t *gone, size_t ngone);

/* Whether a job a failure hits is requeued whole under o's policy. */
static bool requeues(const struct rpl_opts *o)
{
	if (o->recover != RPL_RECOVER_AUTO)
		return o->recover == RPL_RECOVER_REQUEUE;
	return o->policy != SCH_PRIORITY && o->policy != SCH_PREDICTED &&
	       o->policy != SCH_SRPT;
}

static int loop_init(struct loop *l, const struct rpl_opts *o,
		     struct rpl_result *r)
{
	struct sch_config c;
	size_t i, n = o->trace->njobs;
	int ret;

	memset(l, 0, sizeof(*l));
	l->o = o;
	l->r = r;
	sch_config_default(&c, o->policy);
	c.nlevels = o->nlevels;
	c.record_first = o->t != NULL;
	c.restart = o->restart;
	c.gang_wait = o->gang_wait;
	c.gang_first_fit = o->gang_first_fit;
	c.requeue_lost = requeues(o);
	if (o->t) {
		c.comm = sched_comm;
		c.comm_ctx = l;
	}
	if ((ret = sch_new(o->hosts, o->nhosts, &c, &l->s)))
		return ret;
	expect_trace(l->s, o->trace, o->nodes);
	for (i = 0; i < o->nhosts; i++)
		l->cap += (uint64_t)o->hosts[i].gpus * SCH_MILLI;
	l->nbucket = (unsigned int)(l->cap / SCH_MILLI) + 2;
	l->job = calloc(n + 1, sizeof(*l->job));
	l->done.cap = n + 1;
	l->done.v = calloc(l->done.cap, sizeof(*l->done.v));
	l->waiting = calloc(l->nbucket, sizeof(*l->waiting));
	l->gang = calloc(n + 1, sizeof(*l->gang));
	l->giveup = calloc(n + 1, sizeof(*l->giveup));
	l->capsteps = 4 * n + 16;
	l->steps = calloc(l->capsteps, sizeof(*l->steps));
	r->jct_s = calloc(n + 1, sizeof(*r->jct_s));
	r->ut_t = calloc(UT_POINTS + 2, sizeof(*r->ut_t));
	r->ut_pct = calloc(UT_POINTS + 2, sizeof(*r->ut_pct));
	if (!l->job || !l->done.v || !l->waiting || !l->gang || !l->steps ||
	    !l->giveup ||
	    !r->jct_s || !r->ut_t || !r->ut_pct)
		return -ENOMEM;
	return 0;
}

static void loop_release(struct loop *l)
{
	size_t i;

	for (i = 0; l->job && i <= l->njob; i++)
		free(l->job[i].hosts);
	free(l->job);
	free(l->done.v);
	free(l->fail.v);
	free(l->down);
	free(l->dormant);
	free(l->rng);
	free(l->waiting);
	free(l->gang);
	free(l->giveup);
	free(l->steps);
	sch_free(l->s);
}

static double now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

/* ---- the flow model for gangs ---- */

static void quiet(void *ctx, const char *msg)
{
	(void)ctx;
	(void)msg;
}

static bool listed(uint64_t tk, const uint64_t *v, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (v[i] == tk)
			return true;
	return false;
}

/*
 * Slowdown of a gang on hosts h (1 / its bandwidth, ring and all-to-all
 * averaged) beside the other running gangs but those in gone[0..ngone);
 * 0 when not modelled.
 */
static double comm_slowdown(struct loop *l, const uint32_t *h, size_t nh,
			    const uint64_t *gone, size_t ngone)
{
	const struct rpl_opts *o = l->o;
	struct cs_opts co = { .pattern = CS_RING, .seed = 1 };
	struct rt_job_spec *sp;
	const char **names;
	char (*ids)[24];
	struct rt_jobs js;
	struct cs_result cr;
	size_t i, k, n = 1, at = 0, total = nh;
	double ring = 0, a2a = 0;
	char err[256];

	for (i = 0; i < l->ngang; i++)
		total += l->job[l->gang[i]].nhosts;
	sp = calloc(l->ngang + 1, sizeof(*sp));
	names = calloc(total + 1, sizeof(*names));
	ids = calloc(l->ngang + 1, sizeof(*ids));
	if (!sp || !names || !ids)
		goto out;
	sp[0] = (struct rt_job_spec){ .id = "new", .weight = 1,
				      .hosts = names, .nhosts = nh };
	for (i = 0; i < nh; i++)
		names[at++] = o->name[h[i]];
	for (i = 0; i < l->ngang; i++) {
		const struct rj *g = &l->job[l->gang[i]];

		if (listed(l->gang[i], gone, ngone))
			continue;
		snprintf(ids[n], sizeof(ids[n]), "t%llu",
			 (unsigned long long)l->gang[i]);
		sp[n] = (struct rt_job_spec){ .id = ids[n], .weight = 1,
					      .hosts = names + at,
					      .nhosts = g->nhosts };
		for (k = 0; k < g->nhosts; k++)
			names[at++] = o->name[g->hosts[k]];
		n++;
	}
	if (rt_jobs_build_drop(&js, o->t->fab, sp, n, quiet, NULL, err,
			       sizeof(err)))
		goto out;
	if (!cs_run(o->t, &js, &co, &cr)) {
		ring = cr.bw[0];
		cs_result_release(&cr);
	}
	co.pattern = CS_ALLTOALL;
	co.rounds = COMM_A2A_ROUNDS;
	if (!cs_run(o->t, &js, &co, &cr)) {
		a2a = cr.bw[0];
		cs_result_release(&cr);
	}
	rt_jobs_release(&js);
out:
	free(sp);
	free(names);
	free(ids);
	return ring > 0 && a2a > 0 ? 0.5 / ring + 0.5 / a2a : 0;
}

/* The scheduler's view of the flow model, for its gang_wait. */
static double sched_comm(void *ctx, const uint32_t *h, size_t n,
			 const uint64_t *gone, size_t ngone)
{
	double sd = comm_slowdown(ctx, h, n, gone, ngone);

	return sd > 0 ? sd : 1;
}

/*
 * Gang j starts a run: its communication share slows down as the flow
 * model says it does on its hosts beside the gangs running now.
 */
static void stretch_run(struct loop *l, struct rj *j)
{
	double sd = comm_slowdown(l, j->hosts, j->nhosts, NULL, 0);

	if (sd <= 0)
		return;
	j->stretch = 1 + l->o->comm_share * (sd - 1);
	l->r->stretch += j->stretch;
	l->nstretch++;
}

/* j's hosts from its slots, nhosts 0 unless a gang's (two or more). */
static int hosts_of(struct rj *j, const struct sch_dec *d)
{
	size_t i;

	free(j->hosts);
	j->hosts = calloc(d->nslots, sizeof(*j->hosts));
	if (!j->hosts)
		return -ENOMEM;
	j->nhosts = 0;
	for (i = 0; i < d->nslots; i++)
		if (!i || d->slot[i].host != d->slot[i - 1].host)
			j->hosts[j->nhosts++] = d->slot[i].host;
	if (j->nhosts < 2)
		j->nhosts = 0;
	j->gang |= j->nhosts > 0;
	return 0;
}

/* A gang started: its level, and the model against first fit's hosts. */
static int gang_started(struct loop *l, uint64_t tk, const struct sch_dec *d)
{
	struct rj *j = &l->job[tk];
	struct rpl_result *r = l->r;
	const uint32_t *ff;
	struct sch_info in;
	size_t nff;
	double a, b;
	int ret;

	if ((ret = hosts_of(j, d)) || !j->nhosts)
		return ret;
	sch_info(l->s, tk, &in);
	r->gangs++;
	r->gangs_lowest += in.level <= in.feasible;
	r->gangs_waited += in.gang_waited > 0;
	r->gangs_expired += in.gang_expired;
	r->gang_wait_mean += in.gang_waited;
	r->level_mean += in.level;
	if (l->o->t && l->gang_seen++ % l->comm_every == 0) {
		nff = sch_first_fit(l->s, tk, &ff);
		a = comm_slowdown(l, j->hosts, j->nhosts, NULL, 0);
		b = nff ? comm_slowdown(l, ff, nff, NULL, 0) : 0;
		if (a > 0 && b > 0) {
			r->comm += a;
			r->comm_first += b;
			r->modelled++;
		}
	}
	if (l->o->t && l->o->comm_share > 0)
		stretch_run(l, j);
	l->gang[l->ngang++] = tk;
	return 0;
}

static void gang_stopped(struct loop *l, uint64_t tk)
{
	size_t i;

	if (!l->job[tk].nhosts)
		return;
	for (i = 0; i < l->ngang; i++)
		if (l->gang[i] == tk) {
			l->gang[i] = l->gang[--l->ngang];
			break;
		}
	l->job[tk].nhosts = 0;
}

/* ---- the loop ---- */

/*
 * j's run stops at t: what of its traced run time it got through.  A
 * failure (ckpt >= 0) keeps only what its last checkpoint saved, every
 * ckpt s of the run's work (0: none); returns the wall time thrown away.
 */
static double run_stops(struct rj *j, double t, double ckpt)
{
	double wall = t - j->start, done = wall / j->stretch, kept = done;

	if (ckpt == 0)
		kept = 0;
	else if (ckpt > 0)
		kept = floor(done / ckpt) * ckpt;
	j->left -= kept;
	j->extra += wall - done;
	return (done - kept) * j->stretch;
}

/* GPUs a job holds: a share is one GPU's milli, CPU or RDMA alone none. */
static double gpus_of(const struct trc_job *tj)
{
	return tj->gpus * (double)tj->milli / SCH_MILLI;
}

/*
 * j's run ended by a failure at t: the work since its checkpoint is
 * lost, and it reloads that checkpoint before it runs on.
 */
static void run_lost(struct loop *l, struct rj *j, double t)
{
	double lost = run_stops(j, t, l->o->ckpt);

	l->r->lost_gpuh += lost * gpus_of(&l->o->trace->jobs[j->ti]) / 3600;
	j->left += l->o->restart;
}

/* Its lost GPUs replaced at t, j runs on at once on its new slots. */
static int replaced(struct loop *l, uint64_t tk, const struct sch_dec *d,
		    double t)
{
	struct rj *j = &l->job[tk];
	int ret;

	run_lost(l, j, t);
	j->gen++;
	j->start = t;
	j->stretch = 1;
	gang_stopped(l, tk);
	if ((ret = hosts_of(j, d)))
		return ret;
	if (j->nhosts) {
		if (l->o->t && l->o->comm_share > 0)
			stretch_run(l, j);
		l->gang[l->ngang++] = tk;
	}
	return heap_push(&l->done, (struct ev){ t + j->left * j->stretch, tk,
						j->gen });
}

static int on_decision(struct loop *l, const struct sch_dec *d, double t)
{
	struct rj *j = &l->job[d->ticket];
	int ret;

	switch (d->act) {
	case SCH_START:
		j->start = t;
		j->stretch = 1;
		l->waiting[j->bucket]--;
		if ((ret = gang_started(l, d->ticket, d)))
			return ret;
		return heap_push(&l->done, (struct ev){ t + j->left * j->stretch,
						 d->ticket, j->gen });
	case SCH_LOST:
		l->r->hits++;
		l->r->jobs_hit += !j->hits++;
		if (j->hits == MAX_HITS)
			l->giveup[l->ngiveup++] = d->ticket;
		return 0;
	case SCH_REPLACED:
		l->r->replaced++;
		return replaced(l, d->ticket, d, t);
	case SCH_PREEMPT:
	case SCH_REQUEUE:
		if (d->act == SCH_PREEMPT) {
			l->r->preemptions++;
			/* with notice: it checkpoints as it stops */
			run_stops(j, t, -1);
			j->left += l->o->restart;
		} else {
			l->r->requeued++;
			run_lost(l, j, t);
		}
		j->start = -1;
		j->gen++;
		l->waiting[j->bucket]++;
		gang_stopped(l, d->ticket);
		return 0;
	default:
		return 0;
	}
}

/* Whether a waiting job would fit the idle GPUs by count. */
static bool fitting_waits(const struct loop *l, uint64_t idle)
{
	unsigned int b, top = (unsigned int)(idle / SCH_MILLI);

	if (idle && l->waiting[0])
		return true;
	for (b = 1; b <= top && b < l->nbucket; b++)
		if (l->waiting[b])
			return true;
	return false;
}

/* The books between the last step and t: busy GPUs, idle-while-waiting. */
static void account(struct loop *l, double t)
{
	struct sch_stats st;
	double dt = t - l->last;

	sch_stats(l->s, &st);
	l->busy += (double)st.milli_used * dt;
	l->busy_arr += (double)st.milli_used *
		       fmax(0, fmin(t, l->arr1) - fmax(l->last, l->arr0));
	if (fitting_waits(l, st.milli_cap - st.milli_used))
		l->r->idle_wait += (double)(st.milli_cap - st.milli_used) /
				   SCH_MILLI * dt / 3600;
	if (st.queued > l->r->queue_max)
		l->r->queue_max = st.queued;
	while (l->r->nut < UT_POINTS && t >= l->next_ut) {
		l->r->ut_t[l->r->nut] = l->next_ut / 3600;
		l->r->ut_pct[l->r->nut++] = 100.0 * st.milli_used /
					    (double)l->cap;
		l->next_ut += l->ut_dt;
	}
	l->last = t;
}

/*
 * A job failures hit MAX_HITS times never finishes (its restarts
 * outrun the failures, or its checkpoints are too far apart): dropped
 * at t, as a retry limit drops it.
 */
static int give_up(struct loop *l, uint64_t tk, double t)
{
	struct rj *j = &l->job[tk];

	if (j->start >= 0) {
		j->start = -1;
		j->gen++;
		gang_stopped(l, tk);
	} else {
		l->waiting[j->bucket]--;
	}
	l->r->given_up++;
	return sch_cancel(l->s, tk, t);
}

/*
 * One step at t; again when it requeued a lost job, which the core
 * queues after its pass (ibpoold's next run takes it a moment later).
 */
static int step(struct loop *l, double t)
{
	const struct sch_dec *d;
	size_t n, i;
	double t0 = now_ms();
	bool again = false;
	int ret;

	if ((ret = sch_step(l->s, t, &d, &n)))
		return ret;
	if (l->nsteps == l->capsteps) {
		double *p = realloc(l->steps, 2 * l->capsteps * sizeof(*p));

		if (!p)
			return -ENOMEM;
		l->steps = p;
		l->capsteps *= 2;
	}
	l->steps[l->nsteps++] = now_ms() - t0;
	for (i = 0; i < n; i++) {
		if ((ret = on_decision(l, &d[i], t)))
			return ret;
		again |= d[i].act == SCH_REQUEUE;
	}
	for (; l->ngiveup; l->ngiveup--)
		if ((ret = give_up(l, l->giveup[l->ngiveup - 1], t)))
			return ret;
	return again ? step(l, t) : 0;
}

static int finish(struct loop *l, uint64_t tk, double t)
{
	struct rj *j = &l->job[tk];
	int ret;

	if ((ret = sch_finish(l->s, tk, t)))
		return ret;
	run_stops(j, t, -1);
	j->end = t;
	j->start = -1;
	gang_stopped(l, tk);
	return 0;
}

static void progress(struct loop *l, size_t next, double t, double *shown)
{
	double w = now_ms();
	struct sch_stats st;

	if (!l->o->progress || w - *shown < 5000)
		return;
	*shown = w;
	sch_stats(l->s, &st);
	fprintf(l->o->progress,
		"replay %s: %zu/%zu jobs arrived, t %.0f h, %zu queued, %zu running\n",
		sch_policy_name(l->o->policy), next, l->o->trace->njobs,
		t / 3600, st.queued, st.running);
	fflush(l->o->progress);
}

static int arrive(struct loop *l, size_t i, double t)
{
	const struct trc_job *tj = &l->o->trace->jobs[i];
	struct sch_req rq;
	uint64_t tk;
	int ret;

	rpl_request(l->o->trace, l->o->nodes, tj, &rq);
	ret = sch_submit(l->s, &rq, t, &tk);
	if (ret == -EINVAL) {
		l->r->refused++;
		return 0;
	}
	if (ret)
		return ret;
	l->njob = tk;
	l->job[tk] = (struct rj){ .ti = i, .left = tj->runtime, .start = -1,
				  .end = -1 };
	l->job[tk].bucket = rq.gpus ? rq.gpus : rq.milli ? 1 : 0;
	if (l->job[tk].bucket >= l->nbucket)
		l->job[tk].bucket = l->nbucket - 1;
	l->waiting[l->job[tk].bucket]++;
	return 0;
}

/* ---- host failures ---- */

/* The next of host h's failure stream: exponential, mean mtbf. */
static double fail_gap(struct loop *l, uint32_t h)
{
	uint64_t z = (l->rng[h] += 0x9e3779b97f4a7c15ull);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	z ^= z >> 31;
	return -l->o->mtbf * log(((double)(z >> 11) + 1) / 9007199254740992.0);
}

/* Each host's first failure, and the scripted events. */
static int fail_init(struct loop *l)
{
	const struct rpl_opts *o = l->o;
	uint32_t h;
	size_t i;
	int ret;

	if (!o->mtbf && !o->nfail)
		return 0;
	l->down = calloc(o->nhosts, sizeof(*l->down));
	l->dormant = calloc(o->nhosts, sizeof(*l->dormant));
	l->rng = calloc(o->nhosts, sizeof(*l->rng));
	if (!l->down || !l->dormant || !l->rng)
		return -ENOMEM;
	for (i = 0; i < o->nfail; i++) {
		if (o->fail[i].host >= o->nhosts)
			return -EINVAL;
		if ((ret = heap_push(&l->fail, (struct ev){ o->fail[i].t,
				     o->fail[i].host,
				     o->fail[i].up ? F_UP : F_DOWN })))
			return ret;
	}
	for (h = 0; o->mtbf > 0 && h < o->nhosts; h++) {
		l->rng[h] = o->seed ^ ((uint64_t)h << 32 | h);
		if ((ret = heap_push(&l->fail, (struct ev){
				l->arr0 + fail_gap(l, h), h, F_MTBF_DOWN })))
			return ret;
	}
	return 0;
}

/*
 * A host event at t: the host down or back; a failure's next event.
 * Scripted and seeded events keep a flag each: the host is up when
 * neither holds it down.  While the run is quiet a seeded failure is
 * not drawn (it could hit nothing, and would keep a queue that can
 * never start waiting for ever); rearm() draws it when a job runs.
 */
static int host_event(struct loop *l, struct ev e, double t)
{
	uint32_t h = (uint32_t)e.ticket;
	bool mtbf = e.gen == F_MTBF_DOWN || e.gen == F_MTBF_UP;
	bool up = e.gen == F_UP || e.gen == F_MTBF_UP;
	uint8_t bit = mtbf ? DOWN_MTBF : DOWN_SCRIPT, was = l->down[h];
	int ret = 0;

	if (e.gen == F_MTBF_DOWN && l->quiet) {
		l->dormant[h] = true;
		l->ndormant++;
		return 0;
	}
	if (e.gen == F_MTBF_DOWN)
		ret = heap_push(&l->fail, (struct ev){ t + l->o->repair, h,
						       F_MTBF_UP });
	else if (e.gen == F_MTBF_UP && !l->quiet)
		ret = heap_push(&l->fail, (struct ev){ t + fail_gap(l, h), h,
						       F_MTBF_DOWN });
	else if (e.gen == F_MTBF_UP) {
		l->dormant[h] = true;
		l->ndormant++;
	}
	if (ret)
		return ret;
	l->down[h] = up ? was & ~bit : was | bit;
	if (!was == !l->down[h])
		return 0;
	if (up) {
		l->ndown--;
		return sch_host_up(l->s, h, t);
	}
	l->ndown++;
	l->r->failures++;
	return sch_host_down(l->s, h, t);
}

/* A job runs again: the failures not drawn while quiet, from t. */
static int rearm(struct loop *l, double t)
{
	uint32_t h;
	int ret;

	for (h = 0; l->ndormant && h < l->o->nhosts; h++)
		if (l->dormant[h]) {
			l->dormant[h] = false;
			l->ndormant--;
			if ((ret = heap_push(&l->fail, (struct ev){
					t + fail_gap(l, h), h, F_MTBF_DOWN })))
				return ret;
		}
	return 0;
}

/*
 * Host events matter while a job runs, or is queued while a host is
 * down (with all up and nothing running, it can never start).
 */
static bool failing(const struct loop *l)
{
	struct sch_stats st;

	if (!l->fail.n)
		return false;
	sch_stats(l->s, &st);
	return st.running || (st.queued && l->ndown);
}

/* Quiet: nothing runs and nothing is left to arrive. */
static int settle_failures(struct loop *l, size_t next, double t)
{
	struct sch_stats st;

	if (!l->down)
		return 0;
	sch_stats(l->s, &st);
	l->quiet = next == l->o->trace->njobs && !st.running;
	return l->quiet || !l->ndormant ? 0 : rearm(l, t);
}

static int run_loop(struct loop *l)
{
	const struct trc_trace *tr = l->o->trace;
	size_t next = 0;
	double t, wake = -1, shown = now_ms();
	int ret;

	while (next < tr->njobs || l->done.n || wake >= 0 || failing(l)) {
		t = INFINITY;
		if (next < tr->njobs)
			t = tr->jobs[next].submit;
		if (l->done.n && l->done.v[0].t < t)
			t = l->done.v[0].t;
		if (l->fail.n && l->fail.v[0].t < t)
			t = l->fail.v[0].t;
		if (wake >= 0 && wake < t)
			t = wake;
		if (t == INFINITY)
			break;
		account(l, t);
		while (l->done.n && l->done.v[0].t <= t) {
			struct ev e = heap_pop(&l->done);

			if (e.gen == l->job[e.ticket].gen &&
			    l->job[e.ticket].start >= 0 &&
			    (ret = finish(l, e.ticket, t)))
				return ret;
		}
		while (l->fail.n && l->fail.v[0].t <= t)
			if ((ret = host_event(l, heap_pop(&l->fail), t)))
				return ret;
		while (next < tr->njobs && tr->jobs[next].submit <= t)
			if ((ret = arrive(l, next++, t)))
				return ret;
		if ((ret = step(l, t)) || (ret = settle_failures(l, next, t)))
			return ret;
		wake = sch_next(l->s, t);
		if (wake >= 0 && wake <= t)
			wake = t + 1e-3;
		/* nothing runs and nothing will: the rest can never start */
		if (next == tr->njobs && !l->done.n && wake < 0 && !failing(l))
			break;
		progress(l, next, t, &shown);
	}
	return 0;
}

static int dcmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static double pct(double *v, size_t n, double p)
{
	size_t i;

	if (!n)
		return 0;
	i = (size_t)ceil(p * (double)n) - 1;
	return v[i < n ? i : n - 1];
}

static int dist(const double *v, size_t n, struct rpl_dist *d)
{
	double *c = malloc((n + 1) * sizeof(*c)), sum = 0;
	size_t i;

	if (!c)
		return -ENOMEM;
	for (i = 0; i < n; i++)
		sum += c[i] = v[i];
	qsort(c, n, sizeof(*c), dcmp);
	d->mean = n ? sum / (double)n : 0;
	d->median = n ? (n % 2 ? c[n / 2] : (c[n / 2 - 1] + c[n / 2]) / 2) : 0;
	d->p99 = pct(c, n, 0.99);
	free(c);
	return 0;
}

/* Finish-time fairness per user: mean JCT over mean run time. */
static int fairness(struct loop *l, double *jct)
{
	const struct trc_trace *tr = l->o->trace;
	double *a = calloc(tr->nstrs + 1, sizeof(*a));
	double *b = calloc(tr->nstrs + 1, sizeof(*b));
	double s = 0, s2 = 0, rho;
	size_t k, n = 0, u;

	if (!a || !b) {
		free(a);
		free(b);
		return -ENOMEM;
	}
	for (k = 1, n = 0; k <= l->njob; k++)
		if (l->job[k].end >= 0) {
			const struct trc_job *tj = &tr->jobs[l->job[k].ti];
			double rt = tj->runtime > BSLD_FLOOR ? tj->runtime :
							       BSLD_FLOOR;

			a[tj->user] += jct[n++];
			b[tj->user] += rt;
		}
	for (u = 0, n = 0; u <= tr->nstrs; u++)
		if (b[u] > 0) {
			rho = a[u] / b[u];
			s += rho;
			s2 += rho * rho;
			n++;
			if (rho > l->r->ftf_max)
				l->r->ftf_max = rho;
		}
	l->r->ftf_jain = n && s2 > 0 ? s * s / ((double)n * s2) : 0;
	free(a);
	free(b);
	return 0;
}

static int summarise(struct loop *l)
{
	const struct trc_trace *tr = l->o->trace;
	struct rpl_result *r = l->r;
	double *wait = calloc(l->njob + 1, sizeof(*wait)), gs = 0, late = 0;
	double first = tr->njobs ? tr->jobs[0].submit : 0, bsld = 0;
	double err = 0, rt, jct, runs = 0;
	struct sch_info in;
	size_t k, n = 0, within = 0, ngang = 0;
	int ret;

	if (!wait)
		return -ENOMEM;
	for (k = 1; k <= l->njob; k++) {
		const struct trc_job *tj = &tr->jobs[l->job[k].ti];

		rt = tj->runtime;
		gs += rt * gpus_of(tj);
		if (tj->submit + rt - first > late)
			late = tj->submit + rt - first;
		if (l->job[k].end < 0)
			continue;
		jct = l->job[k].end - tj->submit;
		runs += rt;
		r->jct_s[n] = jct;
		wait[n++] = jct - rt - l->job[k].extra;
		if (l->job[k].gang) {
			r->gang_jct += jct;
			ngang++;
		}
		bsld += fmax(1, jct / fmax(rt, BSLD_FLOOR));
		if (l->end_max < l->job[k].end)
			l->end_max = l->job[k].end;
		if (l->o->policy == SCH_PREDICTED && !sch_info(l->s, k, &in) &&
		    rt > 0) {
			r->predicted++;
			err += fabs(in.predicted - rt);
			within += in.predicted <= 2 * rt &&
				  2 * in.predicted >= rt;
		}
	}
	r->jobs = tr->njobs;
	r->done = r->njct = n;
	r->bsld = n ? bsld / (double)n : 0;
	r->makespan = l->end_max - first;
	r->bound = fmax(gs / ((double)l->cap / SCH_MILLI), late);
	r->util = r->makespan > 0 ?
		  l->busy / ((double)l->cap * r->makespan) : 0;
	r->util_arrivals = l->arr1 > l->arr0 ?
		l->busy_arr / ((double)l->cap * (l->arr1 - l->arr0)) : 0;
	r->run_mean = n ? runs / (double)n : 0;
	r->idle_wait_pct = r->makespan > 0 ?
		100 * r->idle_wait * 3600 /
			((double)l->cap / SCH_MILLI * r->makespan) : 0;
	if (r->gangs)
		r->level_mean /= (double)r->gangs;
	if (r->gangs_waited)
		r->gang_wait_mean /= (double)r->gangs_waited;
	if (ngang)
		r->gang_jct /= (double)ngang;
	if (l->nstretch)
		r->stretch /= (double)l->nstretch;
	if (r->modelled) {
		r->comm /= (double)r->modelled;
		r->comm_first /= (double)r->modelled;
	}
	if (r->predicted) {
		r->pred_mae = err / (double)r->predicted;
		r->pred_within2 = (double)within / (double)r->predicted;
	}
	if ((ret = dist(r->jct_s, n, &r->jct)) ||
	    (ret = dist(wait, n, &r->wait)))
		goto out;
	ret = fairness(l, r->jct_s);
	qsort(l->steps, l->nsteps, sizeof(*l->steps), dcmp);
	r->step_p99_ms = pct(l->steps, l->nsteps, 0.99);
	r->step_max_ms = l->nsteps ? l->steps[l->nsteps - 1] : 0;
out:
	free(wait);
	return ret;
}

int rpl_run(const struct rpl_opts *o, struct rpl_result *r, char *err,
	    size_t len)
{
	const struct trc_trace *tr = o->trace;
	struct loop l;
	size_t gangs = 0, i;
	int ret;

	memset(r, 0, sizeof(*r));
	r->policy = o->policy;
	ret = loop_init(&l, o, r);
	if (ret) {
		snprintf(err, len, "replay: %s", strerror(-ret));
		goto out;
	}
	for (i = 0; i < tr->njobs; i++)
		gangs += tr->jobs[i].hosts > 1 ||
			 tr->jobs[i].gpus > o->hosts[0].gpus;
	l.comm_every = gangs / (o->comm_max ? o->comm_max : COMM_MAX) + 1;
	if (tr->njobs) {
		double span = tr->jobs[tr->njobs - 1].submit -
			      tr->jobs[0].submit;

		l.ut_dt = fmax(span, 1) * 1.5 / UT_POINTS;
		l.next_ut = tr->jobs[0].submit;
		l.last = tr->jobs[0].submit;
		l.arr0 = tr->jobs[0].submit;
		l.arr1 = tr->jobs[tr->njobs - 1].submit;
	}
	if ((ret = fail_init(&l)) || (ret = run_loop(&l)) ||
	    (ret = summarise(&l)))
		snprintf(err, len, "replay %s: %s", sch_policy_name(o->policy),
			 strerror(-ret));
out:
	loop_release(&l);
	return ret;
}

void rpl_result_release(struct rpl_result *r)
{
	free(r->jct_s);
	free(r->ut_t);
	free(r->ut_pct);
	r->jct_s = r->ut_t = r->ut_pct = NULL;
}

/* order[0..n): 0..n-1, shuffled with *rng unless it is 0. */
static void frag_order(size_t *order, size_t n, uint64_t *rng)
{
	size_t i, k, x;

	for (i = 0; i < n; i++)
		order[i] = i;
	if (!*rng)
		return;
	for (i = n; i > 1; i--) {
		*rng ^= *rng << 13;
		*rng ^= *rng >> 7;
		*rng ^= *rng << 17;
		k = (size_t)(*rng % i);
		x = order[i - 1];
		order[i - 1] = order[k];
		order[k] = x;
	}
}

int rpl_frag(const struct rpl_opts *o, double *unalloc, size_t *refused,
	     char *err, size_t len)
{
	const struct trc_trace *tr = o->pods ? o->pods : o->trace;
	const struct sch_dec *d;
	struct sch_config c;
	struct sch_stats st;
	struct sch_req rq;
	struct sch *s;
	uint64_t tk, arrived = 0, rng = o->seed;
	size_t i, n, *order;
	int ret;

	if (!tr->njobs) {
		*unalloc = 100;
		*refused = 0;
		return 0;
	}
	sch_config_default(&c, o->policy);
	c.nlevels = o->nlevels;
	order = calloc(tr->njobs, sizeof(*order));
	if (!order || (ret = sch_new(o->hosts, o->nhosts, &c, &s))) {
		ret = order ? ret : -ENOMEM;
		free(order);
		snprintf(err, len, "fragmentation: %s", strerror(-ret));
		return ret;
	}
	*refused = 0;
	expect_trace(s, tr, o->nodes);
	sch_stats(s, &st);
	/* a trace that asks less than the capacity is taken again, as FGD
	 * samples its workload until the requests reach the capacity */
	for (i = 0; i < tr->njobs * 1000 && arrived < st.milli_cap; i++) {
		const struct trc_job *j;

		if (i % tr->njobs == 0)
			frag_order(order, tr->njobs, &rng);
		j = &tr->jobs[order[i % tr->njobs]];
		rpl_request(tr, o->nodes, j, &rq);
		if (!rq.gpus && !rq.milli && !rq.cpu && !rq.mem)
			continue;
		arrived += rq.gpus ? (uint64_t)rq.gpus * SCH_MILLI : rq.milli;
		if (o->arrive)
			o->arrive(o->arrive_ctx, &rq);
		ret = sch_submit(s, &rq, 0, &tk);
		if (ret == -EINVAL) {
			++*refused;
			continue;
		}
		if (ret || (ret = sch_step(s, 0, &d, &n)))
			break;
		if (!n) {
			++*refused;
			sch_cancel(s, tk, 0);
		}
	}
	sch_stats(s, &st);
	*unalloc = 100.0 * (double)(st.milli_cap - st.milli_used) /
		   (double)st.milli_cap;
	sch_free(s);
	free(order);
	if (ret)
		snprintf(err, len, "fragmentation: %s", strerror(-ret));
	return ret;
}
