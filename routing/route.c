// SPDX-License-Identifier: MIT
/* Recognise, pick the engine, route, and refuse a result that lost a pair. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "../topology/dflyrec.h"
#include "../topology/fattree.h"
#include "../topology/torusrec.h"
#include "collsim.h"
#include "dragonfly.h"
#include "ftree.h"
#include "route.h"
#include "torus.h"
#include "updown.h"
#include "verify.h"

static const char *const names[] = {
	[RT_ENGINE_AUTO] = "auto",
	[RT_ENGINE_FATTREE] = "fattree",
	[RT_ENGINE_UPDOWN] = "updown",
	[RT_ENGINE_TORUS] = "torus",
	[RT_ENGINE_DRAGONFLY] = "dragonfly",
};

/* What the recognisers found; each runs only when the ones before fail. */
struct recog {
	struct ft_info ft;
	struct tor_info ti;
	struct df_info di;
};

int rt_engine_parse(const char *name, enum rt_engine_id *id)
{
	size_t i;

	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (name && !strcmp(name, names[i])) {
			*id = i;
			return 0;
		}
	return -EINVAL;
}

const char *rt_engine_name(enum rt_engine_id id)
{
	return (size_t)id < sizeof(names) / sizeof(names[0]) ? names[id] :
								"?";
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
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
	double t0 = now();
	char msg[160];
	int ret;

	ret = vf_check(t, &o, &r);
	s->check_seconds += now() - t0;
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

static int updown(const struct fabric *f, struct rt_tables *t,
		  struct rt_summary *s)
{
	char roots[256], msg[300];
	int ret;

	ret = rt_updown(f, t, roots, sizeof(roots));
	if (!ret && *roots) {
		snprintf(msg, sizeof(msg), "up*-down* from %s", roots);
		append(s, msg);
	}
	return ret;
}

/* Back to local routes only, for the fallback engine. */
static void reset(struct rt_tables *t, struct rt_summary *s)
{
	rt_tables_reset(t);
	append(s, "falling back to updown");
	snprintf(s->engine, sizeof(s->engine), "%s",
		 rt_engine_name(RT_ENGINE_UPDOWN));
}

/*
 * An engine's result and what it said of it (msg, "" for nothing),
 * checked.  Level-based up/down cannot join two leaves whose only common
 * neighbours lie below them (a down-up turn), a tree with miswired pods
 * is past the slot scheme, a torus's detours can run out of VLs, a
 * dragonfly can miss a route of two global hops; there, when the engine
 * was picked automatically, the single-root up*-down* engine, which
 * reaches every connected pair, routes the whole fabric instead.  A
 * forced engine reports the failure.
 */
static int settle(const struct fabric *f, struct rt_tables *t,
		  struct rt_summary *s, int ret, const char *msg, bool forced)
{
	if (*msg)
		append(s, msg);
	if (!ret)
		ret = check(t, s);
	if (!ret || ret == -ENOMEM)
		return ret;
	if (forced)
		return ret == -EIO ? ret : -ENOTSUP;
	reset(t, s);
	ret = updown(f, t, s);
	return ret ? ret : check(t, s);
}

static int fattree(const struct fabric *f, const struct ft_info *ft,
		   const struct rt_jobs *jobs, struct rt_tables *t,
		   struct rt_summary *s, bool forced)
{
	const char *use = "";
	int ret = rt_fattree(f, ft, jobs, t, &use);

	snprintf(s->jobs, sizeof(s->jobs), "%s", use);
	return settle(f, t, s, ret, ret == -E2BIG ?
		      "groups too large for fat-tree slots" : "", forced);
}

static int torus(const struct fabric *f, const struct tor_info *ti,
		 const struct rt_jobs *jobs, struct rt_tables *t,
		 struct rt_summary *s, bool forced)
{
	char msg[200];
	const char *use = "";
	int ret = rt_torus(f, ti, jobs, t, msg, sizeof(msg), &use);

	snprintf(s->jobs, sizeof(s->jobs), "%s", use);
	return settle(f, t, s, ret, msg, forced);
}

static int dragonfly(const struct fabric *f, const struct df_info *di,
		     const struct rt_jobs *jobs, struct rt_tables *t,
		     struct rt_summary *s, bool forced)
{
	char msg[300];
	const char *use = "";
	int ret = rt_dragonfly(f, di, jobs, t, msg, sizeof(msg), &use);

	snprintf(s->jobs, sizeof(s->jobs), "%s", use);
	return settle(f, t, s, ret, msg, forced);
}

static const char *topology(const struct recog *rc)
{
	if (rc->ft.tree)
		return "fat-tree";
	if (rc->ti.torus)
		return "torus";
	if (rc->di.dragonfly)
		return rc->di.plus ? "dragonfly+" : "dragonfly";
	return "unknown";
}

/* Which engine auto picks, and what the summary says of the fabric. */
static enum rt_engine_id pick(const struct recog *rc, enum rt_engine_id id,
			      struct rt_summary *s)
{
	if (id == RT_ENGINE_AUTO)
		id = rc->ft.tree ? RT_ENGINE_FATTREE :
		     rc->ti.torus ? RT_ENGINE_TORUS :
		     rc->di.dragonfly ? RT_ENGINE_DRAGONFLY : RT_ENGINE_UPDOWN;
	snprintf(s->topology, sizeof(s->topology), "%s", topology(rc));
	snprintf(s->engine, sizeof(s->engine), "%s", rt_engine_name(id));
	snprintf(s->detail, sizeof(s->detail), "%s",
		 id == RT_ENGINE_TORUS ? rc->ti.summary :
		 id == RT_ENGINE_DRAGONFLY ? rc->di.summary : rc->ft.summary);
	if (id != RT_ENGINE_UPDOWN || rc->ft.tree)
		return id;
	if (*rc->ti.summary)
		append(s, rc->ti.summary);
	if (*rc->di.summary)
		append(s, rc->di.summary);
	return id;
}

/* The recognisers in order, each only where the ones before failed. */
static int recognise(const struct fabric *f, enum rt_engine_id id,
		     struct recog *rc)
{
	int ret = ft_recognise(f, &rc->ft);

	if (!ret && (!rc->ft.tree || id == RT_ENGINE_TORUS))
		ret = tor_recognise(f, &rc->ti);
	if (!ret && ((!rc->ft.tree && !rc->ti.torus) ||
		     id == RT_ENGINE_DRAGONFLY))
		ret = df_recognise(f, &rc->di);
	return ret;
}

static bool fits(const struct recog *rc, enum rt_engine_id id)
{
	switch (id) {
	case RT_ENGINE_FATTREE: return rc->ft.tree;
	case RT_ENGINE_TORUS: return rc->ti.torus;
	case RT_ENGINE_DRAGONFLY: return rc->di.dragonfly;
	default: return true;
	}
}

/* One routing of f for jobs (NULL: none), rt_route() without its guard. */
static int route_once(const struct fabric *f, enum rt_engine_id id,
		      const struct rt_jobs *jobs, struct rt_tables *t,
		      struct rt_summary *s)
{
	double t0 = now();
	struct recog rc;
	bool forced = id != RT_ENGINE_AUTO;
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
	id = pick(&rc, id, s);
	if (!fits(&rc, id)) {
		ret = -ENOTSUP;
		goto out;
	}
	switch (id) {
	case RT_ENGINE_FATTREE:
		ret = fattree(f, &rc.ft, jobs, t, s, forced);
		break;
	case RT_ENGINE_TORUS:
		ret = torus(f, &rc.ti, jobs, t, s, forced);
		break;
	case RT_ENGINE_DRAGONFLY:
		ret = dragonfly(f, &rc.di, jobs, t, s, forced);
		break;
	default:
		ret = updown(f, t, s);
		if (!ret)
			ret = check(t, s);
	}
out:
	if (jobs && jobs->njobs && !strcmp(s->engine, "updown"))
		snprintf(s->jobs, sizeof(s->jobs), "none (up*/down* ignores them)");
	s->nvl = t->vl && t->vl->nvl ? t->vl->nvl : 1;
	df_info_release(&rc.di);
	tor_info_release(&rc.ti);
	ft_info_release(&rc.ft);
	s->seconds = now() - t0 - s->check_seconds;
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
	struct rt_summary s2;
	struct rt_tables t2;
	double t0 = now();
	int ret;

	ret = route_once(f, id, NULL, &t2, &s2);
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
	s->model_seconds = now() - t0 - s2.check_seconds;
	return 0;
}

int rt_route(const struct fabric *f, enum rt_engine_id id,
	     const struct rt_jobs *jobs, struct rt_tables *t,
	     struct rt_summary *s)
{
	int ret = route_once(f, id, jobs, t, s);

	if (ret || !jobs || !jobs->njobs ||
	    !strcmp(s->engine, rt_engine_name(RT_ENGINE_UPDOWN)))
		return ret;
	return guard(f, id, jobs, t, s);
}
