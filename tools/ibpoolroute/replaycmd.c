// SPDX-License-Identifier: MIT
/*
 * ibpoolroute replay: a job trace through the pool's scheduler core under
 * each policy asked for, on a fabric's hosts (levels from the tree) or an
 * Alibaba node list, one row per policy.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ibpoolroute.h"
#include "tools/lib/pool/chart.h"
#include "tools/lib/pool/hostlist.h"
#include "tools/lib/pool/place.h"
#include "tools/lib/pool/pool.h"
#include "tools/lib/pool/replay.h"
#include "topology/netfile.h"

/* The cluster the trace runs on; everything owned. */
struct cluster {
	struct sch_host *h;
	size_t n;
	unsigned int nlevels;
	const char *const *name;
	struct fabric *f;
	struct rt_tables t;
	bool have_t;
	struct pool_tree pt;
	bool have_pt;
	struct trc_cluster nodes;
};

static void cluster_release(struct cluster *c)
{
	free(c->h);
	if (c->have_pt)
		pool_tree_release(&c->pt);
	if (c->have_t)
		rt_tables_release(&c->t);
	fab_free(c->f);
	trc_cluster_free(&c->nodes);
}

/*
 * Each host's HCAs: the fabric's CAs of its name cabled anywhere, each
 * a rail of RDMA bandwidth, as the pool's hca list names them.
 */
static void count_hcas(struct cluster *c)
{
	char name[POOL_HOST_NAME_MAX + 1];
	const struct fabric *f = c->f;
	unsigned int p, np;
	uint32_t i;
	long h;

	for (i = 0; i < f->nnodes; i++) {
		if (fab_is_sw(f, i))
			continue;
		np = f->nodes[i].nports;
		for (p = 1; p <= np && fab_port(f, i, p)->peer == FAB_NONE; p++)
			;
		fab_host_name(f, i, name, sizeof(name));
		h = p <= np ? pool_tree_host(&c->pt, name) : -1;
		if (h >= 0 && c->h[h].rails < SCH_MAX_RAILS)
			c->h[h].rails++;
	}
}

/* The fabric's hosts, gpus each, grouped by the tree's levels. */
static int from_net(struct cluster *c, const struct pr_opts *o, char *err,
		    size_t len)
{
	struct rt_summary sum;
	size_t h;
	unsigned int l;
	int ret;

	if ((ret = fab_load_net(o->net, &c->f, err, len)))
		return ret;
	if ((ret = fab_assign_lids(c->f, o->lmc))) {
		snprintf(err, len, "%s: cannot assign LIDs: %s", o->net,
			 strerror(-ret));
		return ret;
	}
	if ((ret = rt_route(c->f, o->engine, NULL, &c->t, &sum))) {
		snprintf(err, len, "%s: routing failed: %s", o->net,
			 strerror(-ret));
		return ret;
	}
	c->have_t = true;
	if ((ret = pool_tree_build(c->f, NULL, &c->pt, err, len)))
		return ret;
	c->have_pt = true;
	c->n = c->pt.nhosts;
	c->nlevels = c->pt.nlevels < SCH_MAX_LEVELS ? c->pt.nlevels :
						      SCH_MAX_LEVELS;
	if (!c->n || !c->nlevels) {
		snprintf(err, len, "%s: no hosts", o->net);
		return -EINVAL;
	}
	c->h = calloc(c->n, sizeof(*c->h));
	if (!c->h)
		return -ENOMEM;
	for (h = 0; h < c->n; h++) {
		c->h[h].gpus = o->gpus_per_host;
		c->h[h].nic = POOL_RDMA_CAP;
		for (l = 0; l < c->nlevels; l++)
			c->h[h].lvl[l] = c->pt.group[l * c->n + h];
	}
	count_hcas(c);
	c->name = (const char *const *)c->pt.host;
	return 0;
}

/* An Alibaba node list: its GPU nodes, one level (no fabric known). */
static int from_nodes(struct cluster *c, const struct pr_opts *o, char *err,
		      size_t len)
{
	size_t i;
	int ret;

	if ((ret = trc_read_nodes(o->nodes, &c->nodes, err, len)))
		return ret;
	c->h = calloc(c->nodes.n + 1, sizeof(*c->h));
	if (!c->h)
		return -ENOMEM;
	for (i = 0; i < c->nodes.n; i++) {
		const struct trc_node *nd = &c->nodes.nodes[i];

		if (nd->gpus)
			c->h[c->n++] = (struct sch_host){
				.gpus = nd->gpus, .rails = 1,
				.nic = POOL_RDMA_CAP, .cpu = nd->cpu,
				.mem = nd->mem, .model = nd->mi };
	}
	c->nlevels = 1;
	if (!c->n) {
		snprintf(err, len, "%s: no GPU node", o->nodes);
		return -EINVAL;
	}
	return 0;
}

static int policies(const char *list, enum sch_policy *p, size_t *n,
		    char *err, size_t len)
{
	char buf[256], *tok, *save = NULL;

	*n = 0;
	snprintf(buf, sizeof(buf), "%s", list);
	for (tok = strtok_r(buf, ",", &save); tok;
	     tok = strtok_r(NULL, ",", &save)) {
		if (*n == SCH_NPOLICIES * 2 || sch_policy_parse(tok, &p[*n])) {
			snprintf(err, len, "unknown policy '%s' (fifo, priority, easy, predicted, tiresias, bestfit, fgd, fgdcpu, fgdfill, sjf or srpt)",
				 tok);
			return -EINVAL;
		}
		++*n;
	}
	if (!*n) {
		snprintf(err, len, "no policy given");
		return -EINVAL;
	}
	return 0;
}

static json_object *result_json(const struct rpl_result *r, double frag,
				size_t frag_refused)
{
	json_object *j = json_object_new_object();

#define D(k, v) json_object_object_add(j, k, json_object_new_double(v))
#define I(k, v) json_object_object_add(j, k, json_object_new_int64((int64_t)(v)))
	json_object_object_add(j, "policy",
			       json_object_new_string(sch_policy_name(r->policy)));
	I("jobs", r->jobs);
	I("done", r->done);
	I("refused", r->refused);
	D("jct_mean", r->jct.mean);
	D("jct_median", r->jct.median);
	D("jct_p99", r->jct.p99);
	D("wait_mean", r->wait.mean);
	D("wait_median", r->wait.median);
	D("wait_p99", r->wait.p99);
	D("bounded_slowdown", r->bsld);
	D("utilisation", r->util);
	D("utilisation_arrivals", r->util_arrivals);
	D("run_mean", r->run_mean);
	D("idle_while_waiting_gpu_hours", r->idle_wait);
	D("idle_while_waiting_pct", r->idle_wait_pct);
	D("unallocated_at_capacity_pct", frag);
	I("unallocated_refused", frag_refused);
	D("makespan", r->makespan);
	D("makespan_bound", r->bound);
	D("ftf_max", r->ftf_max);
	D("ftf_jain", r->ftf_jain);
	I("preemptions", r->preemptions);
	I("gangs", r->gangs);
	I("gangs_lowest_level", r->gangs_lowest);
	D("gang_level_mean", r->level_mean);
	I("gangs_waited", r->gangs_waited);
	I("gangs_wait_expired", r->gangs_expired);
	D("gang_wait_mean", r->gang_wait_mean);
	I("gangs_modelled", r->modelled);
	D("comm_slowdown", r->comm);
	D("comm_slowdown_first_fit", r->comm_first);
	D("gang_jct_mean", r->gang_jct);
	D("gang_stretch_mean", r->stretch);
	I("predicted", r->predicted);
	D("prediction_within_2x", r->pred_within2);
	D("prediction_mae", r->pred_mae);
	D("step_p99_ms", r->step_p99_ms);
	D("step_max_ms", r->step_max_ms);
	I("queue_max", r->queue_max);
	I("failures", r->failures);
	I("jobs_hit", r->jobs_hit);
	I("hits", r->hits);
	I("replaced", r->replaced);
	I("requeued", r->requeued);
	I("given_up", r->given_up);
	D("lost_gpu_hours", r->lost_gpuh);
#undef D
#undef I
	return j;
}

static void header(FILE *out)
{
	fprintf(out, "%-9s %7s %9s %9s %10s %9s %10s %7s %6s %7s %6s %9s %8s %7s %7s %6s\n",
		"policy", "done", "jct_mean", "jct_med", "jct_p99", "wait_mean",
		"wait_p99", "bsld", "util%", "idlew%", "unal%", "makespan/b",
		"lowest%", "comm", "comm_ff", "ftf");
}

static void row(FILE *out, const struct rpl_result *r, double frag)
{
	fprintf(out, "%-9s %7zu %9.0f %9.0f %10.0f %9.0f %10.0f %7.2f %6.1f %7.2f %6.1f %9.3f %8.1f %7.3f %7.3f %6.2f\n",
		sch_policy_name(r->policy), r->done, r->jct.mean, r->jct.median,
		r->jct.p99, r->wait.mean, r->wait.p99, r->bsld, 100 * r->util,
		r->idle_wait_pct, frag,
		r->bound > 0 ? r->makespan / r->bound : 0,
		r->gangs ? 100.0 * (double)r->gangs_lowest / (double)r->gangs :
			   100.0,
		r->comm, r->comm_first, r->ftf_max);
}

/* Host failures, a row a policy, under the main table. */
static void fail_rows(FILE *out, const struct rpl_result *r, size_t n)
{
	size_t i;

	fprintf(out, "\n%-9s %8s %8s %6s %8s %8s %8s %9s %10s %9s\n",
		"policy", "failures", "jobs_hit", "hits", "replaced",
		"requeued", "given_up", "lost_gpuh", "jct_mean", "wait_mean");
	for (i = 0; i < n; i++)
		fprintf(out, "%-9s %8zu %8zu %6zu %8zu %8zu %8zu %9.1f %10.0f %9.0f\n",
			sch_policy_name(r[i].policy), r[i].failures,
			r[i].jobs_hit, r[i].hits, r[i].replaced, r[i].requeued,
			r[i].given_up, r[i].lost_gpuh, r[i].jct.mean,
			r[i].wait.mean);
}

/*
 * --fail-trace: lines "time,host,down|up" (# comments, blank lines); a
 * host by its name in c or its index.  *ev owned by the caller.
 */
static int read_fails(const char *path, const struct cluster *c,
		      struct rpl_fail **ev, size_t *n, char *err, size_t len)
{
	char line[512], host[256], what[16], *end;
	struct rpl_fail *v = NULL, *p;
	size_t cap = 0, no = 0, h;
	double t;
	int ret = 0;
	FILE *f = fopen(path, "r");

	*n = 0;
	if (!f) {
		snprintf(err, len, "%s: %s", path, strerror(errno));
		return -errno;
	}
	while (fgets(line, sizeof(line), f)) {
		no++;
		if (line[0] == '#' || line[strspn(line, " \t\r\n")] == '\0')
			continue;
		if (sscanf(line, "%lf,%255[^,],%15[a-z]", &t, host, what) != 3 ||
		    !(t >= 0) || (strcmp(what, "down") && strcmp(what, "up"))) {
			snprintf(err, len, "%s:%zu: want time,host,down|up",
				 path, no);
			ret = -EINVAL;
			goto out;
		}
		for (h = 0; c->name && h < c->n && strcmp(c->name[h], host); h++)
			;
		if (!c->name || h == c->n) {
			h = strtoul(host, &end, 10);
			if (end == host || *end || h >= c->n) {
				snprintf(err, len, "%s:%zu: no host '%s'", path,
					 no, host);
				ret = -EINVAL;
				goto out;
			}
		}
		if (*n == cap) {
			cap = cap ? 2 * cap : 16;
			if (!(p = realloc(v, cap * sizeof(*p)))) {
				ret = -ENOMEM;
				snprintf(err, len, "%s: %s", path, strerror(-ret));
				goto out;
			}
			v = p;
		}
		v[(*n)++] = (struct rpl_fail){ t, (uint32_t)h, what[0] == 'u' };
	}
out:
	fclose(f);
	if (ret) {
		free(v);
		v = NULL;
		*n = 0;
	}
	*ev = v;
	return ret;
}

/* The charts: utilisation over time and the JCT CDF, one line a policy. */
struct charts {
	const struct rpl_result *r;
	size_t n;
	bool cdf;
};

static int draw(FILE *out, void *ctx)
{
	const struct charts *c = ctx;
	struct chart_series s[SCH_NPOLICIES * 2];
	struct chart_opts co = { 0 };
	size_t i;

	for (i = 0; i < c->n; i++) {
		s[i] = (struct chart_series){
			.label = sch_policy_name(c->r[i].policy),
			.x = c->cdf ? c->r[i].jct_s : c->r[i].ut_t,
			.y = c->cdf ? NULL : c->r[i].ut_pct,
			.n = c->cdf ? c->r[i].njct : c->r[i].nut,
		};
	}
	if (c->cdf) {
		co.title = "Job completion time";
		co.xlabel = "JCT (s)";
		co.flags = CHART_LOGX;
		return chart_cdf(out, &co, s, c->n);
	}
	co.title = "Allocated GPUs";
	co.xlabel = "time (h)";
	co.ylabel = "allocated GPUs (%)";
	co.ymin = 0;
	co.ymax = 100;
	co.flags = CHART_STEP;
	return chart_line(out, &co, s, c->n);
}

static int svgs(const char *dir, const struct rpl_result *r, size_t n,
		char *err, size_t len)
{
	struct charts c = { r, n, false };
	char path[4096];
	int ret;

	if (mkdir(dir, 0755) && errno != EEXIST) {
		snprintf(err, len, "%s: %s", dir, strerror(errno));
		return -errno;
	}
	snprintf(path, sizeof(path), "%s/utilisation.svg", dir);
	if ((ret = chart_write_file(path, draw, &c, err, len)))
		return ret;
	c.cdf = true;
	snprintf(path, sizeof(path), "%s/jct-cdf.svg", dir);
	return chart_write_file(path, draw, &c, err, len);
}

static int replay_all(const struct pr_opts *o, const struct trc_trace *tr,
		      const struct trc_trace *pods, const struct cluster *c,
		      const enum sch_policy *pol, size_t np, char *err,
		      size_t len)
{
	struct rpl_result r[SCH_NPOLICIES * 2];
	double frag[SCH_NPOLICIES * 2];
	size_t fref[SCH_NPOLICIES * 2], i, done = 0;
	json_object *top = NULL, *arr = NULL;
	struct rpl_opts ro = {
		.trace = tr, .hosts = c->h, .nhosts = c->n,
		.nlevels = c->nlevels, .t = c->have_t ? &c->t : NULL,
		.name = c->name, .nodes = o->nodes ? &c->nodes : NULL,
		.pods = pods, .seed = o->vf.seed,
		.restart = o->restart,
		.gang_wait = o->gang_wait,
		.comm_share = o->comm_share,
		.gang_first_fit = o->gang_first_fit,
		.mtbf = o->fail_mtbf, .repair = o->repair,
		.ckpt = o->checkpoint, .recover = o->fail_recover,
		.progress = o->progress == PR_PROGRESS_OFF ? NULL :
			    o->progress == PR_PROGRESS_ON || isatty(2) ?
			    stderr : NULL,
	};
	struct rpl_fail *fails = NULL;
	int ret = PR_ERR;

	if (o->fail_trace && read_fails(o->fail_trace, c, &fails, &ro.nfail,
					err, len))
		return PR_ERR;
	ro.fail = fails;
	if (o->progress == PR_PROGRESS_AUTO && !ro.progress && tr->njobs > 20000)
		ro.progress = stderr;
	for (i = 0; i < np; i++, done++) {
		ro.policy = pol[i];
		if (rpl_run(&ro, &r[i], err, len) ||
		    rpl_frag(&ro, &frag[i], &fref[i], err, len)) {
			rpl_result_release(&r[i]);
			goto out;
		}
	}
	if (o->json) {
		top = json_object_new_object();
		arr = json_object_new_array();
		json_object_object_add(top, "trace", json_object_new_string(o->trace));
		json_object_object_add(top, "hosts", json_object_new_int64((int64_t)c->n));
		json_object_object_add(top, "levels", json_object_new_int(c->nlevels));
		for (i = 0; i < np; i++)
			json_object_array_add(arr, result_json(&r[i], frag[i],
							       fref[i]));
		json_object_object_add(top, "policies", arr);
		puts(json_object_to_json_string_ext(top, JSON_C_TO_STRING_PLAIN));
		json_object_put(top);
	} else {
		printf("trace %s: %zu jobs on %zu hosts, %u levels\n", o->trace,
		       tr->njobs, c->n, c->nlevels);
		header(stdout);
		for (i = 0; i < np; i++)
			row(stdout, &r[i], frag[i]);
		if (ro.mtbf > 0 || ro.nfail)
			fail_rows(stdout, r, np);
	}
	ret = PR_OK;
	if (o->svg && svgs(o->svg, r, np, err, len))
		ret = PR_ERR;
out:
	for (i = 0; i < done; i++)
		rpl_result_release(&r[i]);
	free(fails);
	return ret;
}

int pr_replay(const struct pr_opts *o, char *err, size_t len)
{
	struct trc_read_opts ropts = { .fmt = TRC_FMT_AUTO,
				       .flags = 0 };
	enum sch_policy pol[SCH_NPOLICIES * 2];
	struct cluster c = { 0 };
	struct trc_trace tr = { 0 }, pods = { 0 };
	size_t np;
	int ret = PR_ERR;

	if (policies(o->policy, pol, &np, err, len))
		return PR_ERR;
	if (o->format && trc_format_parse(o->format, &ropts.fmt)) {
		snprintf(err, len, "unknown trace format '%s' (plain, alibaba2023 or alibaba2025)",
			 o->format);
		return PR_ERR;
	}
	if (trc_read(o->trace, &ropts, &tr, err, len))
		goto out;
	if (o->nodes ? from_nodes(&c, o, err, len) : from_net(&c, o, err, len))
		goto out;
	/* FGD's packing measure takes every pod: CPU-only and never-run too */
	ropts.flags |= TRC_OPT_ALL_PODS;
	if (tr.fmt != TRC_FMT_ALI2025 &&
	    trc_read(o->trace, &ropts, &pods, err, len))
		goto out;
	ret = replay_all(o, &tr, pods.njobs ? &pods : NULL, &c, pol, np, err,
			 len);
out:
	cluster_release(&c);
	trc_free(&pods);
	trc_free(&tr);
	return ret;
}
