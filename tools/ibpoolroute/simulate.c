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

#define NPAT CS_NPATTERNS
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
	struct pr_source src;	/* side[0]'s tables are its */
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
		ret = cs_run(&s->t, &r->src.jobs, &co, &s->res[p]);
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
	const struct rt_jobs *js = &r->src.jobs;
	json_object *a = json_object_new_array();
	unsigned int j, k, p;

	for (j = 0; j < js->njobs; j++) {
		json_object *o = json_object_new_object();

		json_object_object_add(o, "id",
				       json_object_new_string(js->job[j].id));
		json_object_object_add(o, "ranks", json_object_new_int(
			js->rank_off[j + 1] - js->rank_off[j]));
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

	json_object_object_add(o, "source", json_object_new_string(r->src.name));
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

	printf("%-16s: %s\n", "source", r->src.name);
	printf("%-16s: %u, %u ranks\n", "jobs", r->src.jobs.njobs,
	       r->src.jobs.rank_off[r->src.jobs.njobs]);
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
	static const char *const tag[NPAT] = {
		[CS_RING] = "ring", [CS_ALLTOALL] = "a2a",
		[CS_NCCL_ALLTOALL] = "nccl",
	};

	for (j = 0; j < r->src.jobs.njobs; j++)
		for (p = 0; p < NPAT; p++) {
			if (!r->side[0].ran[p])
				continue;
			for (k = 0; k < r->nside; k++)
				v[k] = r->side[k].res[p].bw[j];
			snprintf(key, sizeof(key), "%.20s %s",
				 r->src.jobs.job[j].id, tag[p]);
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
		if (r->side[k].have_t)
			rt_tables_release(&r->side[k].t);
	}
	pr_source_close(&r->src);
}

/*
 * The routings to rate: the source's; with --net also the one without
 * the jobs (the source's being with them unless --measure-only).
 */
static int sides(struct run *r, char *err, size_t len)
{
	const struct pr_opts *o = r->o;
	struct side *s = &r->side[0];
	int ret = pr_source_open(&r->src, o, !o->jobs_unrouted, err, len);

	if (ret)
		return ret;
	s->t = r->src.tables;
	s->routed = r->src.routed;
	s->sum = r->src.summary;
	s->name = !o->net ? (o->dump ? "dumped" : "live") :
		  o->jobs_unrouted ? "without jobs" : "with jobs";
	r->nside = 1;
	if (!o->net || o->jobs_unrouted)
		return 0;
	s = &r->side[r->nside++];
	s->name = "without jobs";
	s->have_t = s->routed = true;
	return pr_source_route(&r->src, o, false, &s->t, &s->sum, err, len);
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
	ret = sides(&r, err, len);
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
