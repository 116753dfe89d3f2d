// SPDX-License-Identifier: MIT
/* Recognise, pick the engine, route, and refuse a result that lost a pair. */
#include <errno.h>
#include <stdio.h>
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

/* Every pair the cabling connects must be delivered, without loops. */
static int check(const struct rt_tables *t, struct rt_summary *s)
{
	struct vf_opts o = { .ebb_perms = 0, .skip_cdg = true,
			     .skip_mgmt = true, .skip_efi = true,
			     .skip_sw_dests = true };
	struct vf_report r;
	double t0 = mono_s();
	char msg[160];
	int ret;

	ret = vf_check(t, &o, &r);
	s->check_seconds += mono_s() - t0;
	if (ret)
		return ret;
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

/* The seeds of the guard's all-to-all: the jobs' first shifts. */
static const uint64_t guard_seed[RT_GUARD_SEEDS] = { 0x6a0b5ull, 0x1d2e7ull };

int rt_model_score(const struct rt_tables *t, const struct rt_jobs *jobs,
		   struct rt_model *m)
{
	struct cs_opts o = { .pattern = CS_RING };
	struct cs_result r;
	unsigned int k;
	int ret;

	memset(m, 0, sizeof(*m));
	ret = cs_run(t, jobs, &o, &r);
	if (ret)
		return ret;
	m->ring = r.mean;
	m->ring_worst = r.worst;
	cs_result_release(&r);
	o.pattern = CS_ALLTOALL;
	o.rounds = RT_GUARD_ROUNDS;
	m->a2a_worst = 1;
	for (k = 0; k < RT_GUARD_SEEDS; k++) {
		o.seed = guard_seed[k];
		ret = cs_run(t, jobs, &o, &r);
		if (ret)
			return ret;
		m->a2a += r.mean / RT_GUARD_SEEDS;
		if (r.worst < m->a2a_worst)
			m->a2a_worst = r.worst;
		cs_result_release(&r);
	}
	return 0;
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
	       no_slower(a->a2a, b->a2a) &&
	       no_slower(a->a2a_worst, b->a2a_worst) &&
	       (a->ring > b->ring + 1e-9 || a->a2a > b->a2a + 1e-9);
}

/*
 * The routing t for jobs against the one without them on the model:
 * the better one ends in t.  The routing without is routed the same way
 * (the same engine, checked); when it cannot be had, t stays.
 */
static int guard(const struct fabric *f, enum rt_engine_id id,
		 const struct rt_jobs *jobs, struct rt_tables *t,
		 struct rt_summary *s)
{
	char use[sizeof(s->jobs)];
	const struct rt_engine *e;
	struct rt_summary s2;
	struct rt_tables t2;
	double t0 = mono_s();
	int ret;

	ret = route_once(f, id, NULL, &t2, &s2, &e);
	if (!ret)
		ret = rt_model_score(t, jobs, &s->with);
	if (!ret)
		ret = rt_model_score(&t2, jobs, &s->without);
	if (ret == -ENOMEM) {
		rt_tables_release(&t2);
		return ret;
	}
	s->check_seconds += s2.check_seconds;
	s->modelled = !ret;
	s->jobs_kept = ret || rt_model_better(&s->with, &s->without);
	if (s->jobs_kept) {
		rt_tables_release(&t2);
	} else {
		memcpy(use, s->jobs, sizeof(use));
		snprintf(s->jobs, sizeof(s->jobs),
			 "none (%.50s no faster on the model)", use);
		rt_tables_release(t);
		*t = t2;
		s->nvl = s2.nvl;
	}
	s->model_seconds = mono_s() - t0 - s2.check_seconds;
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
	return guard(f, id, jobs, t, s);
}
