// SPDX-License-Identifier: MIT
/* Recognise, pick the engine, route, and refuse a result that lost a pair. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "../topology/fattree.h"
#include "../topology/torus.h"
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
	struct vf_opts o = { .ebb_perms = 0, .skip_cdg = true };
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
	memset(t->lft, RT_NO_PATH, (size_t)t->nsw * (t->top + 1));
	rt_tables_set_local(t);
	if (t->own_vl && t->own_vl->release)
		t->own_vl->release(t->own_vl);
	t->vl = t->own_vl = NULL;
	append(s, "falling back to updown");
	snprintf(s->engine, sizeof(s->engine), "%s",
		 rt_engine_name(RT_ENGINE_UPDOWN));
}

/*
 * An engine's result, checked.  Level-based up/down cannot join two
 * leaves whose only common neighbours lie below them (a down-up turn), a
 * tree with miswired pods is past the slot scheme, a torus's detours can
 * run out of VLs; there, when the engine was picked automatically, the
 * single-root up*-down* engine, which reaches every connected pair,
 * routes the whole fabric instead.  A forced engine reports the failure.
 */
static int settle(const struct fabric *f, struct rt_tables *t,
		  struct rt_summary *s, int ret, bool forced)
{
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
		   struct rt_tables *t, struct rt_summary *s, bool forced)
{
	int ret = rt_fattree(f, ft, t);

	if (ret == -E2BIG)
		append(s, "groups too large for fat-tree slots");
	return settle(f, t, s, ret, forced);
}

static int torus(const struct fabric *f, const struct tor_info *ti,
		 struct rt_tables *t, struct rt_summary *s, bool forced)
{
	char msg[200];
	int ret = rt_torus(f, ti, t, msg, sizeof(msg));

	if (*msg)
		append(s, msg);
	return settle(f, t, s, ret, forced);
}

/* Which engine auto picks, and what the summary says of the fabric. */
static enum rt_engine_id pick(const struct ft_info *ft,
			      const struct tor_info *ti, enum rt_engine_id id,
			      struct rt_summary *s)
{
	const char *topo = ft->tree ? "fat-tree" : ti->torus ? "torus" :
							    "unknown";

	if (id == RT_ENGINE_AUTO)
		id = ft->tree ? RT_ENGINE_FATTREE :
		     ti->torus ? RT_ENGINE_TORUS : RT_ENGINE_UPDOWN;
	snprintf(s->topology, sizeof(s->topology), "%s", topo);
	snprintf(s->engine, sizeof(s->engine), "%s", rt_engine_name(id));
	snprintf(s->detail, sizeof(s->detail), "%s",
		 ti->torus && id != RT_ENGINE_FATTREE ? ti->summary :
							 ft->summary);
	if (!ft->tree && !ti->torus && *ti->summary)
		append(s, ti->summary);
	return id;
}

int rt_route(const struct fabric *f, enum rt_engine_id id,
	     struct rt_tables *t, struct rt_summary *s)
{
	double t0 = now();
	struct tor_info ti = { 0 };
	struct ft_info ft;
	bool forced = id != RT_ENGINE_AUTO;
	int ret;

	memset(s, 0, sizeof(*s));
	ret = rt_tables_init(t, f);
	if (ret)
		return ret;
	rt_tables_set_local(t);
	ret = ft_recognise(f, &ft);
	if (ret)
		goto out;
	if (!ft.tree || id == RT_ENGINE_TORUS) {
		ret = tor_recognise(f, &ti);
		if (ret)
			goto out;
	}
	id = pick(&ft, &ti, id, s);
	if ((id == RT_ENGINE_FATTREE && !ft.tree) ||
	    (id == RT_ENGINE_TORUS && !ti.torus)) {
		ret = -ENOTSUP;
		goto out;
	}
	if (id == RT_ENGINE_FATTREE) {
		ret = fattree(f, &ft, t, s, forced);
	} else if (id == RT_ENGINE_TORUS) {
		ret = torus(f, &ti, t, s, forced);
	} else {
		ret = updown(f, t, s);
		if (!ret)
			ret = check(t, s);
	}
out:
	s->nvl = t->vl && t->vl->nvl ? t->vl->nvl : 1;
	tor_info_release(&ti);
	ft_info_release(&ft);
	s->seconds = now() - t0 - s->check_seconds;
	return ret;
}
