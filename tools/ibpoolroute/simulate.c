// SPDX-License-Identifier: MIT
/*
 * simulate: the jobs' collectives run at once on a routing (a fabric file
 * routed here with and without the jobs, OpenSM's dumps, or the live
 * switches' LFTs), rated by the flow model of routing/collsim.h.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <json-c/json.h>

#include "ibpoolroute.h"
#include "routing/collsim.h"
#include "routing/lftdump.h"
#include "tools/livefab/livefab.h"
#include "topology/netfile.h"
#include "topology/osmdump.h"

#define NPAT 2
#define MAXR 4	/* with, without, the two oracles */

/* One routing under test and what the model made of it. */
struct side {
	const char *name;
	struct rt_tables t;
	bool have_t;
	struct rt_summary sum;
	bool routed;		/* sum is valid */
	struct cs_result res[NPAT];
	bool ran[NPAT];
	double ebb;
	enum cs_oracle oracle;	/* CS_ORACLE_NONE: t's routes */
};

struct run {
	const struct pr_opts *o;
	const char *source;
	struct fabric *f;	/* owned unless live */
	struct lf *v;
	struct rt_jobs js;
	struct side side[MAXR];
	unsigned int nside;
	unsigned int nbase;	/* routings with tables, before the oracles */
};

static bool wanted(const struct pr_opts *o, enum cs_pattern p)
{
	return !o->pattern_set || o->pattern == p;
}

/* The model and eBB for one routing. */
static int rate(struct run *r, struct side *s, char *err, size_t len)
{
	const struct pr_opts *o = r->o;
	struct vf_opts vo = o->vf;
	struct vf_report vr;
	unsigned int p;
	int ret;

	for (p = 0; p < NPAT; p++) {
		struct cs_opts co = { .pattern = p, .rounds = o->rounds,
				      .seed = o->vf.seed,
				      .shuffle = o->shuffle,
				      .oracle = s->oracle };

		if (!wanted(o, p))
			continue;
		ret = cs_run(&s->t, &r->js, &co, &s->res[p]);
		if (ret) {
			snprintf(err, len, "model: %s", strerror(-ret));
			return ret;
		}
		s->ran[p] = true;
	}
	if (!vo.ebb_perms || s->oracle != CS_ORACLE_NONE)
		return 0;
	vo.skip_cdg = true;
	ret = vf_check(&s->t, &vo, &vr);
	if (ret) {
		snprintf(err, len, "verifier: %s", strerror(-ret));
		return ret;
	}
	s->ebb = vr.ebb;
	return 0;
}

/* Route r->f into s, with the jobs or without. */
static int route(struct run *r, struct side *s, bool jobs, char *err,
		 size_t len)
{
	int ret;

	s->name = jobs ? "with jobs" : "without jobs";
	ret = rt_route(r->f, r->o->engine, jobs ? &r->js : NULL, &s->t,
		       &s->sum);
	s->have_t = true;
	if (ret == -ENOTSUP)
		snprintf(err, len, "%s: engine %s does not fit: %s", r->source,
			 rt_engine_name(r->o->engine), s->sum.detail);
	else if (ret && ret != -EIO)
		snprintf(err, len, "%s: routing failed: %s", r->source,
			 strerror(-ret));
	s->routed = !ret || ret == -EIO;
	return s->routed ? 0 : ret;
}

static int load_jobs(struct run *r, char *err, size_t len)
{
	int ret = pr_jobs_load(r->o->jobs, r->f, &r->js, err, len);

	r->js.search_moves = r->o->search_moves;
	return ret;
}

static int from_net(struct run *r, char *err, size_t len)
{
	const struct pr_opts *o = r->o;
	int ret;

	r->source = o->net;
	if (fab_load_net(o->net, &r->f, err, len))
		return -EINVAL;
	ret = fab_assign_lids(r->f, o->lmc);
	if (ret) {
		snprintf(err, len, "%s: cannot assign LIDs with LMC %u: %s",
			 o->net, o->lmc, strerror(-ret));
		return ret;
	}
	if ((ret = load_jobs(r, err, len)))
		return ret;
	if (!o->jobs_unrouted &&
	    (ret = route(r, &r->side[r->nside++], true, err, len)))
		return ret;
	return route(r, &r->side[r->nside++], false, err, len);
}

static int from_dump(struct run *r, char *err, size_t len)
{
	char path[4096];

	r->source = r->o->dump;
	snprintf(path, sizeof(path), "%s/opensm-subnet.lst", r->o->dump);
	if (osmdump_load(path, &r->f, err, len))
		return -EINVAL;
	snprintf(path, sizeof(path), "%s/opensm-lfts.dump", r->o->dump);
	r->side[0].name = "dumped";
	r->side[0].have_t = true;
	r->nside = 1;
	if (lftdump_load(path, r->f, &r->side[0].t, err, len))
		return -EINVAL;
	return load_jobs(r, err, len);
}

/* The live switches' LFTs; the fabric and tables stay owned by r->v. */
static int from_live(struct run *r, char *err, size_t len)
{
	const struct pr_opts *o = r->o;
	int ret;

	if ((ret = lf_open(&r->v, o->ca, o->ca_port, err, len)) ||
	    (ret = lf_discover(r->v, err, len)) ||
	    (ret = lf_read_lfts(r->v, err, len)))
		return ret;
	r->source = lf_source(r->v);
	r->f = (struct fabric *)lf_fabric(r->v);
	r->side[0].name = "live";
	r->side[0].t = *lf_tables(r->v);
	r->nside = 1;
	return load_jobs(r, err, len);
}

static json_object *pattern_json(const struct cs_result *c)
{
	json_object *o = json_object_new_object();

	json_object_object_add(o, "mean", json_object_new_double(c->mean));
	json_object_object_add(o, "worst", json_object_new_double(c->worst));
	json_object_object_add(o, "rounds", json_object_new_int(c->rounds));
	json_object_object_add(o, "flows", json_object_new_int64(c->flows));
	json_object_object_add(o, "lost", json_object_new_int64(c->lost));
	return o;
}

static json_object *side_json(const struct run *r, const struct side *s)
{
	json_object *o = json_object_new_object();
	unsigned int p;

	json_object_object_add(o, "name", json_object_new_string(s->name));
	if (s->routed) {
		json_object_object_add(o, "engine",
				       json_object_new_string(s->sum.engine));
		json_object_object_add(o, "job_routing",
				       json_object_new_string(s->sum.jobs));
	}
	for (p = 0; p < NPAT; p++)
		if (s->ran[p])
			json_object_object_add(o, cs_pattern_name(p),
					       pattern_json(&s->res[p]));
	if (r->o->vf.ebb_perms && s->oracle == CS_ORACLE_NONE)
		json_object_object_add(o, "ebb", json_object_new_double(s->ebb));
	return o;
}

static json_object *jobs_json(const struct run *r)
{
	json_object *a = json_object_new_array();
	unsigned int j, k, p;

	for (j = 0; j < r->js.njobs; j++) {
		json_object *o = json_object_new_object();

		json_object_object_add(o, "id",
				       json_object_new_string(r->js.job[j].id));
		json_object_object_add(o, "ranks", json_object_new_int(
			r->js.rank_off[j + 1] - r->js.rank_off[j]));
		for (p = 0; p < NPAT; p++) {
			json_object *bw;

			if (!r->side[0].ran[p])
				continue;
			bw = json_object_new_array();
			for (k = 0; k < r->nside; k++)
				json_object_array_add(bw, json_object_new_double(
					r->side[k].res[p].bw[j]));
			json_object_object_add(o, cs_pattern_name(p), bw);
		}
		json_object_array_add(a, o);
	}
	return a;
}

static double ratio(double a, double b)
{
	return b > 0 ? a / b : 0;
}

static int print_json(const struct run *r)
{
	json_object *o = json_object_new_object(), *rs, *ra;
	unsigned int k, p;
	int ret = 0;

	json_object_object_add(o, "source", json_object_new_string(r->source));
	rs = json_object_new_array();
	for (k = 0; k < r->nside; k++)
		json_object_array_add(rs, side_json(r, &r->side[k]));
	json_object_object_add(o, "routings", rs);
	json_object_object_add(o, "jobs", jobs_json(r));
	if (r->nbase == 2) {
		ra = json_object_new_object();
		for (p = 0; p < NPAT; p++) {
			char key[32];

			if (!r->side[0].ran[p])
				continue;
			snprintf(key, sizeof(key), "%s_mean", cs_pattern_name(p));
			json_object_object_add(ra, key, json_object_new_double(
				ratio(r->side[0].res[p].mean,
				      r->side[1].res[p].mean)));
			snprintf(key, sizeof(key), "%s_worst", cs_pattern_name(p));
			json_object_object_add(ra, key, json_object_new_double(
				ratio(r->side[0].res[p].worst,
				      r->side[1].res[p].worst)));
		}
		if (r->o->vf.ebb_perms)
			json_object_object_add(ra, "ebb", json_object_new_double(
				ratio(r->side[0].ebb, r->side[1].ebb)));
		json_object_object_add(o, "with_over_without", ra);
	}
	if (puts(json_object_to_json_string_ext(o, JSON_C_TO_STRING_PRETTY |
						 JSON_C_TO_STRING_SPACED |
						 JSON_C_TO_STRING_NOSLASHESCAPE)) < 0)
		ret = -EIO;
	json_object_put(o);
	return ret;
}

/* One "key : v1 v2 ... [ratio]" line over the first n routings. */
static void line(const struct run *r, const char *key, const double *v,
		 unsigned int n)
{
	unsigned int k;

	printf("%-16s:", key);
	for (k = 0; k < n; k++)
		printf(" %12.3f", v[k]);
	for (; k < r->nside; k++)
		printf(" %12s", "-");
	if (r->nbase == 2)
		printf(" %8.3f", ratio(v[0], v[1]));
	putchar('\n');
}

static void print_text(const struct run *r)
{
	double v[MAXR];
	unsigned int k, p, j;
	char key[40];

	printf("%-16s: %s\n", "source", r->source);
	printf("%-16s: %u, %u ranks\n", "jobs", r->js.njobs,
	       r->js.rank_off[r->js.njobs]);
	for (k = 0; k < r->nside; k++)
		if (r->side[k].routed)
			printf("%-16s: engine %s%s%s\n", r->side[k].name,
			       r->side[k].sum.engine,
			       *r->side[k].sum.jobs ? ", jobs: " : "",
			       r->side[k].sum.jobs);
	printf("%-16s:", "routing");
	for (k = 0; k < r->nside; k++)
		printf(" %12s", r->side[k].name);
	printf(r->nbase == 2 ? " %8s\n" : "\n", "ratio");
	for (p = 0; p < NPAT; p++) {
		if (!r->side[0].ran[p])
			continue;
		for (k = 0; k < r->nside; k++)
			v[k] = r->side[k].res[p].mean;
		snprintf(key, sizeof(key), "%s mean", cs_pattern_name(p));
		line(r, key, v, r->nside);
		for (k = 0; k < r->nside; k++)
			v[k] = r->side[k].res[p].worst;
		snprintf(key, sizeof(key), "%s worst", cs_pattern_name(p));
		line(r, key, v, r->nside);
		for (k = 0; k < r->nside; k++)
			if (r->side[k].res[p].lost)
				printf("%-16s: %s: %llu of %llu flows not delivered\n",
				       "LOST", r->side[k].name,
				       (unsigned long long)r->side[k].res[p].lost,
				       (unsigned long long)r->side[k].res[p].flows);
	}
	if (r->o->vf.ebb_perms) {
		for (k = 0; k < r->nbase; k++)
			v[k] = r->side[k].ebb;
		line(r, "ebb", v, r->nbase);
	}
	for (j = 0; j < r->js.njobs; j++)
		for (p = 0; p < NPAT; p++) {
			if (!r->side[0].ran[p])
				continue;
			for (k = 0; k < r->nside; k++)
				v[k] = r->side[k].res[p].bw[j];
			snprintf(key, sizeof(key), "%.20s %s", r->js.job[j].id,
				 p == CS_RING ? "ring" : "a2a");
			line(r, key, v, r->nside);
		}
}

static void run_release(struct run *r)
{
	unsigned int k, p;

	for (k = 0; k < MAXR; k++) {
		for (p = 0; p < NPAT; p++)
			if (r->side[k].ran[p])
				cs_result_release(&r->side[k].res[p]);
		if (r->side[k].have_t && !r->v)
			rt_tables_release(&r->side[k].t);
	}
	rt_jobs_release(&r->js);
	if (r->v)
		lf_close(r->v);
	else
		fab_free(r->f);
}

/* The oracles ride on the first routing's tables for the fabric alone. */
static void add_oracles(struct run *r)
{
	static const char *const name[] = { "oracle all", "oracle own" };
	static const enum cs_oracle kind[] = { CS_ORACLE_ALL, CS_ORACLE_OWN };
	unsigned int k;

	for (k = 0; k < 2; k++) {
		struct side *s = &r->side[r->nside++];

		s->name = name[k];
		s->t = r->side[0].t;
		s->oracle = kind[k];
	}
}

int pr_simulate(const struct pr_opts *o, char *err, size_t len)
{
	struct run r = { .o = o };
	unsigned int k, p;
	bool lost = false;
	int ret, code = PR_ERR;

	if (!o->jobs) {
		snprintf(err, len, "simulate needs --jobs FILE");
		return PR_ERR;
	}
	ret = o->net ? from_net(&r, err, len) :
	      o->dump ? from_dump(&r, err, len) : from_live(&r, err, len);
	r.nbase = r.nside;
	if (!ret && o->oracle)
		add_oracles(&r);
	for (k = 0; !ret && k < r.nside; k++)
		ret = rate(&r, &r.side[k], err, len);
	if (ret)
		goto out;
	for (k = 0; k < r.nside; k++)
		for (p = 0; p < NPAT; p++)
			lost |= r.side[k].ran[p] && r.side[k].res[p].lost;
	if (o->json) {
		if (print_json(&r)) {
			snprintf(err, len, "cannot write the report");
			goto out;
		}
	} else {
		print_text(&r);
	}
	code = lost ? PR_BAD : PR_OK;
out:
	run_release(&r);
	return code;
}
