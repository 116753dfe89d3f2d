// SPDX-License-Identifier: MIT
/* Recognise, pick the engine, route, and refuse a result that lost a pair. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../topology/monotime.h"
#include "collsim.h"
#include "dragonfly/dragonfly.h"
#include "engine.h"
#include "fattree/ftree.h"
#include "route.h"
#include "torus/torus.h"
#include "updown/updown.h"
#include "verify.h"

/*
 * The engines; an engine's id (route.h) is 1 + its index.  Auto tries the
 * recognisers in this order; the engine without one routes what none
 * claims and what an automatically picked engine failed.
 */
static const struct rt_engine *const engines[] = {
	&rt_fattree_engine,
	&rt_updown_engine,
	&rt_torus_engine,
	&rt_dragonfly_engine,
};

#define NENGINES (sizeof(engines) / sizeof(engines[0]))

/* What the recognisers found, by index; unrun ones stay zeroed. */
struct recog {
	struct rt_fit fit[NENGINES];
};

int rt_engine_parse(const char *name, enum rt_engine_id *id)
{
	size_t i;

	if (name && !strcmp(name, "auto")) {
		*id = RT_ENGINE_AUTO;
		return 0;
	}
	for (i = 0; i < NENGINES; i++)
		if (name && !strcmp(name, engines[i]->name)) {
			*id = i + 1;
			return 0;
		}
	return -EINVAL;
}

const char *rt_engine_name(enum rt_engine_id id)
{
	if (id == RT_ENGINE_AUTO)
		return "auto";
	return (size_t)id <= NENGINES ? engines[id - 1]->name : "?";
}

/* The engine that fits any fabric. */
static const struct rt_engine *fallback(void)
{
	size_t i;

	for (i = 0; engines[i]->recognise; i++)
		;
	return engines[i];
}

/* The engine of id, NULL for auto; an unknown id routes as the fallback. */
static const struct rt_engine *engine_of(enum rt_engine_id id)
{
	if (id == RT_ENGINE_AUTO)
		return NULL;
	return (size_t)id <= NENGINES ? engines[id - 1] : fallback();
}

static size_t index_of(const struct rt_engine *e)
{
	size_t i;

	for (i = 0; engines[i] != e; i++)
		;
	return i;
}

static void append(struct rt_summary *s, const char *what)
{
	size_t len = strlen(s->detail);

	snprintf(s->detail + len, sizeof(s->detail) - len, "%s%s",
		 len ? "; " : "", what);
}

/*
 * Every pair the cabling connects must be delivered, without loops; the
 * CA ports' routes to switch LIDs are counted.
 */
static int check(const struct rt_tables *t, struct rt_summary *s)
{
	struct vf_opts o = { .ebb_perms = 0, .skip_cdg = true,
			     .skip_mgmt = true, .skip_efi = true };
	struct vf_report r;
	double t0 = mono_s();
	char msg[160];
	int ret;

	ret = vf_check(t, &o, &r);
	s->check_seconds += mono_s() - t0;
	if (ret)
		return ret;
	s->sw_pairs = r.sw_pairs;
	s->sw_unreachable = r.sw_unreachable;
	if (!r.unreachable)
		return 0;
	snprintf(msg, sizeof(msg),
		 "%s lost %llu connected pairs (%llu holes, %llu loops), e.g. LID %u to %u",
		 s->engine, (unsigned long long)r.unreachable,
		 (unsigned long long)r.holes, (unsigned long long)r.loops,
		 r.bad.slid, r.bad.dlid);
	append(s, msg);
	return -EIO;
}

/* e's routing of f into t, what it said of it, checked. */
static int run(const struct rt_engine *e, const struct fabric *f,
	       const void *info, const struct rt_jobs *jobs,
	       struct rt_tables *t, struct rt_summary *s)
{
	const char *use = "";
	char msg[300] = "";
	int ret = e->route(f, info, jobs, t, msg, sizeof(msg), &use);

	snprintf(s->jobs, sizeof(s->jobs), "%s", use);
	if (*msg)
		append(s, msg);
	return ret ? ret : check(t, s);
}

/*
 * e's routing, checked.  Level-based up/down cannot join two leaves
 * whose only common neighbours lie below them (a down-up turn), a tree
 * with miswired pods is past the slot scheme, a torus's detours can run
 * out of VLs, a dragonfly can miss a route of two global hops; there,
 * when the engine was picked automatically, the single-root up*-down*
 * engine, which reaches every connected pair, routes the whole fabric
 * instead (*used says so).  A forced engine reports the failure.
 */
static int settle(const struct rt_engine *e, const struct fabric *f,
		  const void *info, const struct rt_jobs *jobs,
		  struct rt_tables *t, struct rt_summary *s, bool forced,
		  const struct rt_engine **used)
{
	char msg[64];
	int ret = run(e, f, info, jobs, t, s);

	if (!ret || ret == -ENOMEM || !e->recognise)
		return ret;
	if (forced)
		return ret == -EIO ? ret : -ENOTSUP;
	*used = fallback();
	rt_tables_reset(t);
	snprintf(msg, sizeof(msg), "falling back to %s", (*used)->name);
	append(s, msg);
	snprintf(s->engine, sizeof(s->engine), "%s", (*used)->name);
	return run(*used, f, NULL, jobs, t, s);
}

/*
 * Which engine routes (id, or for auto the first whose recogniser
 * claims f, else the fallback), and what the summary says of the fabric.
 */
static const struct rt_engine *pick(const struct recog *rc,
				    enum rt_engine_id id,
				    struct rt_summary *s)
{
	const struct rt_engine *e = engine_of(id);
	const char *kind = "unknown";
	size_t i;

	for (i = 0; i < NENGINES; i++)
		if (rc->fit[i].fits) {
			kind = rc->fit[i].topology;
			if (!e)
				e = engines[i];
			break;
		}
	if (!e)
		e = fallback();
	snprintf(s->topology, sizeof(s->topology), "%s", kind);
	snprintf(s->engine, sizeof(s->engine), "%s", e->name);
	if (e->recognise) {
		snprintf(s->detail, sizeof(s->detail), "%s",
			 rc->fit[index_of(e)].summary);
		return e;
	}
	for (i = 0; i < NENGINES; i++)
		if (rc->fit[i].summary && *rc->fit[i].summary)
			append(s, rc->fit[i].summary);
	return e;
}

/*
 * The recognisers in order, each only where the ones before found
 * nothing, and the forced engine's (id) in any case.
 */
static int recognise(const struct fabric *f, enum rt_engine_id id,
		     struct recog *rc)
{
	bool found = false;
	size_t i;
	int ret;

	for (i = 0; i < NENGINES; i++) {
		if (!engines[i]->recognise || (found && (size_t)id != i + 1))
			continue;
		ret = engines[i]->recognise(f, &rc->fit[i]);
		if (ret)
			return ret;
		found |= rc->fit[i].fits;
	}
	return 0;
}

static void recog_release(struct recog *rc)
{
	size_t i;

	for (i = NENGINES; i--;)
		if (rc->fit[i].info)
			engines[i]->release(&rc->fit[i]);
}

/*
 * One routing of f for jobs (NULL: none), rt_route() without its guard;
 * *used is the engine whose tables t holds.
 */
static int route_once(const struct fabric *f, enum rt_engine_id id,
		      const struct rt_jobs *jobs, struct rt_tables *t,
		      struct rt_summary *s, const struct rt_engine **used)
{
	const struct rt_engine *e = NULL;
	double t0 = mono_s();
	struct recog rc;
	int ret;

	memset(s, 0, sizeof(*s));
	memset(&rc, 0, sizeof(rc));
	ret = rt_tables_init(t, f);
	if (ret)
		return ret;
	rt_tables_set_local(t);
	ret = recognise(f, id, &rc);
	if (ret)
		goto out;
	e = pick(&rc, id, s);
	if (e->recognise && !rc.fit[index_of(e)].fits) {
		ret = -ENOTSUP;
		goto out;
	}
	ret = settle(e, f, e->recognise ? rc.fit[index_of(e)].info : NULL,
		     jobs, t, s, id != RT_ENGINE_AUTO, &e);
out:
	if (jobs && jobs->njobs && e && e->ignores_jobs)
		snprintf(s->jobs, sizeof(s->jobs), "%s", e->ignores_jobs);
	s->nvl = t->vl && t->vl->nvl ? t->vl->nvl : 1;
	recog_release(&rc);
	s->seconds = mono_s() - t0 - s->check_seconds;
	*used = e;
	return ret;
}

/*
 * The jobs' figures on t, each row njobs wide: ring, NCCL's all-to-all,
 * then the pairwise all-to-all under each of the guard's alignments.
 */
enum { ROW_RING, ROW_NCCL, ROW_A2A, NROWS = ROW_A2A + RT_GUARD_SEEDS };

/* The guard's alignments of the jobs' rounds: their first shifts. */
static uint64_t guard_seed(unsigned int k)
{
	return 0x6a0b5ull + k * 0x9e3779b97f4a7c15ull;
}

/* Pattern p on t into m's mean and worst, and per job into row. */
static int score_one(const struct rt_tables *t, const struct rt_jobs *jobs,
		     enum cs_pattern p, double *row, double *mean,
		     double *worst)
{
	struct cs_opts o = { .pattern = p };
	struct cs_result r;
	int ret = cs_run(t, jobs, &o, &r);

	if (ret)
		return ret;
	memcpy(row, r.bw, jobs->njobs * sizeof(*row));
	*mean += r.mean;
	*worst = r.worst < 1 ? r.worst : 1;
	cs_result_release(&r);
	return 0;
}

/* No job below its floor in rows from row from to row to. */
static bool above(const double *rows, const double *floor, size_t nj,
		  unsigned int from, unsigned int to)
{
	size_t i;

	for (i = from * nj; floor && i < to * nj; i++)
		if (!(rows[i] >= floor[i]))
			return false;
	return true;
}

/*
 * The pairwise all-to-all under the guard's alignments on t into m, per
 * job into rows; 1 when a job fell below floor (NULL: none) first.
 */
static int score_a2a(const struct rt_tables *t, const struct rt_jobs *jobs,
		     struct rt_model *m, double *rows, const double *floor)
{
	double mean[RT_GUARD_SEEDS], worst[RT_GUARD_SEEDS];
	uint64_t seed[RT_GUARD_SEEDS];
	unsigned int k;
	int ret;

	for (k = 0; k < RT_GUARD_SEEDS; k++)
		seed[k] = guard_seed(k);
	ret = cs_alignments(t, jobs, RT_GUARD_ROUNDS, seed, RT_GUARD_SEEDS,
			    floor, rows, mean, worst);
	if (ret < 0)
		return ret;
	if (ret < RT_GUARD_SEEDS)
		return 1;
	for (k = 0; k < RT_GUARD_SEEDS; k++) {
		m->a2a += mean[k] / RT_GUARD_SEEDS;
		if (worst[k] < m->a2a_worst)
			m->a2a_worst = worst[k];
	}
	return 0;
}

/*
 * The model on t into m, and per job into rows (NROWS rows).  With floor
 * (as rows: the figures below which a job is slower), it stops at the
 * first pattern where a job falls below: 1 then, m and rows partial.
 */
static int score(const struct rt_tables *t, const struct rt_jobs *jobs,
		 struct rt_model *m, double *rows, const double *floor)
{
	size_t nj = jobs->njobs;
	int ret;

	memset(m, 0, sizeof(*m));
	m->a2a_worst = 1;
	ret = score_one(t, jobs, CS_RING, rows + ROW_RING * nj, &m->ring,
			&m->ring_worst);
	if (!ret && !above(rows, floor, nj, ROW_RING, ROW_NCCL))
		ret = 1;
	if (!ret)
		ret = score_one(t, jobs, CS_NCCL_ALLTOALL, rows + ROW_NCCL * nj,
				&m->nccl, &m->nccl_worst);
	if (!ret && !above(rows, floor, nj, ROW_NCCL, ROW_A2A))
		ret = 1;
	if (!ret)
		ret = score_a2a(t, jobs, m, rows + ROW_A2A * nj,
				floor ? floor + ROW_A2A * nj : NULL);
	return ret;
}

int rt_model_score(const struct rt_tables *t, const struct rt_jobs *jobs,
		   struct rt_model *m)
{
	double *rows = malloc((size_t)NROWS * (jobs->njobs ? jobs->njobs : 1) *
			      sizeof(*rows));
	int ret = rows ? score(t, jobs, m, rows, NULL) : -ENOMEM;

	free(rows);
	return ret;
}

/* a no slower than b, within rounding. */
static bool no_slower(double a, double b)
{
	return a >= b - 1e-9;
}

bool rt_model_better(const struct rt_model *a, const struct rt_model *b)
{
	return no_slower(a->ring, b->ring) &&
	       no_slower(a->ring_worst, b->ring_worst) &&
	       no_slower(a->nccl, b->nccl) &&
	       no_slower(a->nccl_worst, b->nccl_worst) &&
	       no_slower(a->a2a, b->a2a) &&
	       no_slower(a->a2a_worst, b->a2a_worst) &&
	       (a->ring > b->ring + 1e-9 || a->nccl > b->nccl + 1e-9 ||
		a->a2a > b->a2a + 1e-9);
}

/*
 * The judge's work: both sides' scores per job, and the floor below
 * which a job is slower on a than on b (its ring and NCCL all-to-all
 * within rounding, its pairwise all-to-all within RT_GUARD_SLACK under
 * each alignment); zeroed, it holds none.
 */
struct judge {
	const struct rt_jobs *jobs;
	double *ra, *rb, *floor;
};

static void judge_release(struct judge *jd)
{
	free(jd->ra);
	free(jd->rb);
	free(jd->floor);
	jd->ra = jd->rb = jd->floor = NULL;
}

/* Room for both sides, and b's scores (into mb); 0 or -ENOMEM. */
static int judge_init(struct judge *jd, const struct rt_jobs *jobs,
		      const struct rt_tables *b, struct rt_model *mb)
{
	size_t n = (size_t)NROWS * (jobs->njobs ? jobs->njobs : 1), i;
	int ret;

	jd->jobs = jobs;
	jd->ra = malloc(n * sizeof(*jd->ra));
	jd->rb = malloc(n * sizeof(*jd->rb));
	jd->floor = malloc(n * sizeof(*jd->floor));
	if (!jd->ra || !jd->rb || !jd->floor)
		return -ENOMEM;
	ret = score(b, jobs, mb, jd->rb, NULL);
	for (i = 0; !ret && i < NROWS * jobs->njobs; i++)
		jd->floor[i] = i < ROW_A2A * jobs->njobs ? jd->rb[i] - 1e-9 :
			       jd->rb[i] * (1 - RT_GUARD_SLACK) - 1e-9;
	return ret;
}

/*
 * a against the scores judge_init() took: 1 kept, 0 not, or -ENOMEM.
 * Unless full, the scoring stops at the first job slower on a (ma is
 * then partial).
 */
static int judge_run(struct judge *jd, const struct rt_tables *a,
		     struct rt_model *ma, const struct rt_model *mb, bool full)
{
	int ret = score(a, jd->jobs, ma, jd->ra, full ? NULL : jd->floor);

	if (ret)
		return ret < 0 ? ret : 0;
	return above(jd->ra, jd->floor, jd->jobs->njobs, 0, NROWS) &&
	       rt_model_better(ma, mb);
}

int rt_model_judge(const struct rt_tables *a, const struct rt_tables *b,
		   const struct rt_jobs *jobs, struct rt_model *ma,
		   struct rt_model *mb)
{
	struct judge jd = { 0 };
	int ret = judge_init(&jd, jobs, b, mb);

	if (!ret)
		ret = judge_run(&jd, a, ma, mb, true);
	judge_release(&jd);
	return ret;
}

/*
 * The routing t for jobs (by engine used) against the one without them
 * on the model: the better one ends in t.  While the guard refuses it,
 * an engine that offers gentler routings for the jobs (job_tries) routes
 * again with the next.  The routing without is routed the same way (the
 * same engine, checked); when it cannot be had, t stays.
 */
static int guard(const struct fabric *f, enum rt_engine_id id,
		 const struct rt_jobs *jobs, const struct rt_engine *used,
		 struct rt_tables *t, struct rt_summary *s)
{
	char use[sizeof(s->jobs)];
	struct rt_jobs again = *jobs;
	const struct rt_engine *e;
	struct rt_summary s2;
	struct rt_model without = { 0 };
	struct rt_tables t2;
	struct judge jd = { 0 };
	double t0 = mono_s(), check = s->check_seconds;
	int ret;

	ret = route_once(f, id, NULL, &t2, &s2, &e);
	check += s2.check_seconds;
	if (!ret)
		ret = judge_init(&jd, jobs, &t2, &without);
	while (!ret) {
		ret = judge_run(&jd, t, &s->with, &without,
				again.search_try + 1 >= used->job_tries);
		if (ret || ++again.search_try >= used->job_tries)
			break;
		rt_tables_release(t);
		ret = route_once(f, id, &again, t, s, &used);
		check += s->check_seconds;
		if (ret && ret != -ENOMEM)
			ret = 0;	/* refused: the routing without */
		if (ret || used->ignores_jobs)
			break;
	}
	judge_release(&jd);
	if (ret == -ENOMEM) {
		rt_tables_release(&t2);
		return ret;
	}
	s->without = without;
	s->check_seconds = check;
	s->modelled = ret >= 0;
	s->jobs_kept = ret != 0;
	s->tries = again.search_try + !!s->jobs_kept;
	if (s->jobs_kept) {
		rt_tables_release(&t2);
	} else {
		memcpy(use, s->jobs, sizeof(use));
		snprintf(s->jobs, sizeof(s->jobs),
			 "none (%.50s no faster on the model)", use);
		rt_tables_release(t);
		*t = t2;
		s->nvl = s2.nvl;
		s->sw_pairs = s2.sw_pairs;
		s->sw_unreachable = s2.sw_unreachable;
	}
	s->model_seconds = mono_s() - t0 - check;
	return 0;
}

int rt_route(const struct fabric *f, enum rt_engine_id id,
	     const struct rt_jobs *jobs, struct rt_tables *t,
	     struct rt_summary *s)
{
	const struct rt_engine *e;
	int ret = route_once(f, id, jobs, t, s, &e);

	if (ret || !jobs || !jobs->njobs || e->ignores_jobs)
		return ret;
	return guard(f, id, jobs, e, t, s);
}
