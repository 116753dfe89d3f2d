// SPDX-License-Identifier: MIT
/*
 * trace: write a Philly-shaped job trace as plain CSV (--gen philly),
 * print a trace's statistics (--stats FILE) or turn a trace into plain
 * CSV (--convert FILE), for the scheduler's replay.
 */
#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "ibpoolroute.h"
#include "tools/lib/pool/chart.h"
#include "tools/lib/pool/trace.h"

/* Where the published traces are unless --runtimes or the environment. */
#define TRACES_DIR "../shared/traces"
#define PHILLY_RUNTIMES "philly-2017-runtimes.csv"
#define MAX_MIX 64		/* sizes in a --mix, as trc_gen_philly() takes */

static int write_trace(FILE *out, void *t)
{
	return trc_write_plain(t, out);
}

static json_object *dbl(double v)
{
	return json_object_new_double(v);
}

/* One size class's name: "1", "3-4", "129+". */
static void size_name(unsigned int i, char *buf, size_t len)
{
	uint32_t lo = trc_size_lo(i);

	if (i + 1 == TRC_NSIZE)
		snprintf(buf, len, "%u+", lo);
	else if (trc_size_lo(i + 1) - 1 > lo)
		snprintf(buf, len, "%u-%u", lo, trc_size_lo(i + 1) - 1);
	else
		snprintf(buf, len, "%u", lo);
}

static json_object *stats_json(const char *name, const struct trc_trace *t,
			       const struct trc_stats *s)
{
	json_object *j = json_object_new_object(), *sk, *sz;
	char key[32];
	unsigned int i;

	if (!j)
		return NULL;
	json_object_object_add(j, "trace", json_object_new_string(name));
	json_object_object_add(j, "format", json_object_new_string(
				       trc_format_name(t->fmt)));
	json_object_object_add(j, "rows", json_object_new_uint64(s->rs.rows));
	json_object_object_add(j, "jobs", json_object_new_uint64(s->jobs));
	sk = json_object_new_object();
	for (i = 0; sk && i < TRC_SKIP_COUNT; i++)
		json_object_object_add(sk, trc_skip_name(i),
				       json_object_new_uint64(s->rs.skipped[i]));
	json_object_object_add(j, "skipped", sk);
	json_object_object_add(j, "censored",
			       json_object_new_uint64(s->rs.censored));
	json_object_object_add(j, "present",
			       json_object_new_uint64(s->rs.present));
	json_object_object_add(j, "fractional",
			       json_object_new_uint64(s->fractional));
	json_object_object_add(j, "multi_host",
			       json_object_new_uint64(s->multi_host));
	sz = json_object_new_object();
	for (i = 0; sz && i < TRC_NSIZE; i++) {
		size_name(i, key, sizeof(key));
		json_object_object_add(sz, key,
				       json_object_new_uint64(s->size_jobs[i]));
	}
	json_object_object_add(j, "gpu_mix", sz);
	json_object_object_add(j, "gpus_mean", dbl(s->gpus_mean));
	json_object_object_add(j, "gpus_median",
			       json_object_new_uint64(s->gpus_median));
	json_object_object_add(j, "gpus_max", json_object_new_uint64(s->gpus_max));
	json_object_object_add(j, "runtime_median_s", dbl(s->rt_median));
	json_object_object_add(j, "runtime_mean_s", dbl(s->rt_mean));
	json_object_object_add(j, "runtime_p99_s", dbl(s->rt_p99));
	json_object_object_add(j, "runtime_max_s", dbl(s->rt_max));
	json_object_object_add(j, "span_s", dbl(s->span));
	json_object_object_add(j, "gpu_seconds", dbl(s->gpu_seconds));
	json_object_object_add(j, "users", json_object_new_uint64(s->users));
	if (s->capacity) {
		json_object_object_add(j, "capacity_gpus",
				       json_object_new_uint64(s->capacity));
		json_object_object_add(j, "load", dbl(s->load));
	}
	return j;
}

static void stats_text(const char *name, const struct trc_trace *t,
		       const struct trc_stats *s)
{
	char sz[16];
	unsigned int i;

	printf("Trace %s (%s): %zu rows, %zu jobs\n", name,
	       trc_format_name(t->fmt), s->rs.rows, s->jobs);
	printf("  skipped:");
	for (i = 0; i < TRC_SKIP_COUNT; i++)
		printf(" %zu %s%s", s->rs.skipped[i], trc_skip_name(i),
		       i + 1 < TRC_SKIP_COUNT ? "," : "\n");
	printf("  censored (ran past the trace's end): %zu; running before its start: %zu\n",
	       s->rs.censored, s->rs.present);
	printf("  GPUs per job: mean %.3f, median %u, max %u; fractional %zu, multi-host %zu\n",
	       s->gpus_mean, s->gpus_median, s->gpus_max, s->fractional,
	       s->multi_host);
	printf("  %-8s %8s %7s\n", "GPUs", "jobs", "share");
	for (i = 0; i < TRC_NSIZE; i++) {
		if (!s->size_jobs[i])
			continue;
		size_name(i, sz, sizeof(sz));
		printf("  %-8s %8zu %6.2f%%\n", sz, s->size_jobs[i],
		       100.0 * s->size_jobs[i] / s->jobs);
	}
	printf("  run time: median %.0f s, mean %.0f s, p99 %.0f s, max %.0f s\n",
	       s->rt_median, s->rt_mean, s->rt_p99, s->rt_max);
	printf("  span of submits: %.0f s (%.1f h); GPU-seconds %.4g; users %zu\n",
	       s->span, s->span / 3600, s->gpu_seconds, s->users);
	if (s->capacity)
		printf("  offered load on %u GPUs: %.4f\n", s->capacity, s->load);
}

static int print_stats(const struct pr_opts *o, const char *name,
		       const struct trc_trace *t, uint32_t capacity, char *err,
		       size_t len)
{
	struct trc_stats s;
	json_object *j;
	int ret;

	if ((ret = trc_stats(t, capacity, &s))) {
		snprintf(err, len, "%s", strerror(-ret));
		return PR_ERR;
	}
	if (!o->json) {
		stats_text(name, t, &s);
		return fflush(stdout) ? PR_ERR : PR_OK;
	}
	if (!(j = stats_json(name, t, &s))) {
		snprintf(err, len, "%s", strerror(ENOMEM));
		return PR_ERR;
	}
	ret = puts(json_object_to_json_string_ext(j, JSON_C_TO_STRING_PLAIN));
	json_object_put(j);
	return ret < 0 || fflush(stdout) ? PR_ERR : PR_OK;
}

/* A job's start (+) or end (-) of its GPU-equivalents. */
struct step {
	double t, d;
};

static int by_time(const void *a, const void *b)
{
	const struct step *x = a, *y = b;

	return (x->t > y->t) - (x->t < y->t);
}

/* What a chart file gets: the chart, its options and series. */
struct drawing {
	bool cdf;
	const struct chart_opts *o;
	const struct chart_series *s;
	size_t ns;
};

static int draw(FILE *out, void *ctx)
{
	const struct drawing *d = ctx;

	return d->cdf ? chart_cdf(out, d->o, d->s, d->ns) :
			chart_line(out, d->o, d->s, d->ns);
}

/* dir/file, dir made if it is not there. */
static int draw_file(const char *dir, const char *file,
		     const struct drawing *d, char *err, size_t len)
{
	char path[4096];

	if (mkdir(dir, 0777) && errno != EEXIST) {
		snprintf(err, len, "%s: %s", dir, strerror(errno));
		return -errno;
	}
	if ((size_t)snprintf(path, sizeof(path), "%s/%s", dir, file) >=
	    sizeof(path)) {
		snprintf(err, len, "%s: %s", dir, strerror(ENAMETOOLONG));
		return -ENAMETOOLONG;
	}
	return chart_write_file(path, draw, (void *)d, err, len);
}

/*
 * The GPUs the jobs ask for over time had each started on arrival, and
 * the capacity when given: demand.svg.  Points: x in h, y in GPUs.
 */
static int demand_chart(const struct pr_opts *o, const struct trc_trace *t,
			char *err, size_t len)
{
	size_t n = 2 * t->njobs, i;
	struct step *ev = malloc((n ? n : 1) * sizeof(*ev));
	double *x = malloc((n + 1) * sizeof(*x)), *y = malloc((n + 1) * sizeof(*y));
	double cx[2] = { 0, 0 }, cy[2] = { o->gpus, o->gpus }, use = 0;
	struct chart_series s[2] = { { "asked on arrival", x, y, n },
				     { "capacity", cx, cy, 2 } };
	struct chart_opts co = { .title = "GPUs the trace asks for",
				 .xlabel = "time since the first submit (h)",
				 .ylabel = "GPUs", .flags = CHART_STEP };
	struct drawing d = { false, &co, s, o->gpus ? 2 : 1 };
	int ret = -ENOMEM;

	if (!ev || !x || !y) {
		snprintf(err, len, "%s", strerror(ENOMEM));
		goto out;
	}
	for (i = 0; i < t->njobs; i++) {
		const struct trc_job *j = &t->jobs[i];
		double g = j->gpus * (j->milli / 1000.0);

		ev[2 * i] = (struct step){ j->submit, g };
		ev[2 * i + 1] = (struct step){ j->submit + j->runtime, -g };
	}
	qsort(ev, n, sizeof(*ev), by_time);
	for (i = 0; i < n; i++) {
		use += ev[i].d;
		x[i] = ev[i].t / 3600;
		y[i] = use < 0 ? 0 : use;	/* rounding, never below 0 */
	}
	cx[1] = n ? x[n - 1] : 1;
	ret = draw_file(o->svg, "demand.svg", &d, err, len);
out:
	free(ev);
	free(x);
	free(y);
	return ret;
}

/* The run times' CDF: runtime-cdf.svg. */
static int runtime_chart(const struct pr_opts *o, const struct trc_trace *t,
			 char *err, size_t len)
{
	double *rt = malloc((t->njobs ? t->njobs : 1) * sizeof(*rt));
	struct chart_series s = { "run time", rt, NULL, t->njobs };
	struct chart_opts co = { .title = "Run times of the trace's jobs",
				 .xlabel = "run time (s, log scale)",
				 .flags = CHART_LOGX };
	struct drawing d = { true, &co, &s, 1 };
	size_t i;
	int ret;

	if (!rt) {
		snprintf(err, len, "%s", strerror(ENOMEM));
		return -ENOMEM;
	}
	for (i = 0; i < t->njobs; i++)
		rt[i] = t->jobs[i].runtime;
	ret = draw_file(o->svg, "runtime-cdf.svg", &d, err, len);
	free(rt);
	return ret;
}

/* Read path as --format says (or its header), with flags: 0 or PR_ERR. */
static int read_as(const struct pr_opts *o, const char *path, uint32_t flags,
		   struct trc_trace *t, char *err, size_t len)
{
	struct trc_read_opts ro = { .fmt = TRC_FMT_AUTO, .flags = flags };

	memset(t, 0, sizeof(*t));
	if (o->format && trc_format_parse(o->format, &ro.fmt)) {
		snprintf(err, len, "unknown trace format '%s' (plain, alibaba2023 or alibaba2025)",
			 o->format);
		return PR_ERR;
	}
	if (trc_read(path, &ro, t, err, len)) {
		trc_free(t);
		return PR_ERR;
	}
	return 0;
}

static int stats(const struct pr_opts *o, char *err, size_t len)
{
	struct trc_trace t;
	int ret;

	if (read_as(o, o->trace_stats, 0, &t, err, len))
		return PR_ERR;
	ret = print_stats(o, o->trace_stats, &t, o->gpus, err, len);
	if (!ret && o->svg && (demand_chart(o, &t, err, len) ||
			       runtime_chart(o, &t, err, len)))
		ret = PR_ERR;
	trc_free(&t);
	return ret;
}

/* --runtimes, else $GPUAWARE_TRACES/, else ../shared/traces/. */
static const char *runtimes_path(const struct pr_opts *o, char *buf,
				 size_t len)
{
	const char *dir = getenv("GPUAWARE_TRACES");

	if (o->runtimes)
		return o->runtimes;
	snprintf(buf, len, "%s/%s", dir && *dir ? dir : TRACES_DIR,
		 PHILLY_RUNTIMES);
	return buf;
}

/*
 * --mix "1:70,2:10,...": GPUs:share pairs into mix (at most max), the
 * shares in any unit; 0 with *n, or -EINVAL with err set.
 */
static int parse_mix(const char *arg, struct trc_mix *mix, size_t max,
		     size_t *n, char *err, size_t len)
{
	const char *p = arg;
	char *end;

	for (*n = 0; *n < max; p = end + 1) {
		unsigned long g = strtoul(p, &end, 10);

		if (end == p || *end != ':' || !g || g > UINT32_MAX)
			break;
		p = end + 1;
		mix[*n].gpus = (uint32_t)g;
		mix[*n].share = strtod(p, &end);
		if (end == p || (*end && *end != ',') ||
		    !(mix[*n].share > 0) || !isfinite(mix[*n].share))
			break;
		++*n;
		if (!*end)
			return 0;
	}
	snprintf(err, len, "bad GPU mix '%s' (GPUS:SHARE,... at most %zu sizes, shares above 0)",
		 arg, max);
	return -EINVAL;
}

static int gen(const struct pr_opts *o, char *err, size_t len)
{
	char path[4096], *end;
	struct trc_mix mix[MAX_MIX];
	struct trc_gen_opts g = { .gpus = o->gpus, .seed = o->vf.seed,
				  .users = o->trace_users };
	struct trc_trace t;
	const char *out = o->output ? o->output : "-";
	int ret = PR_ERR;

	if (strcmp(o->trace_gen, "philly")) {
		snprintf(err, len, "unknown generator '%s' (philly)",
			 o->trace_gen);
		return PR_ERR;
	}
	g.jobs = strtoull(o->jobs, &end, 10);
	if (*end || !*o->jobs || g.jobs < 2 || g.jobs > 100000000) {
		snprintf(err, len, "bad job count '%s' (2-100000000)", o->jobs);
		return PR_ERR;
	}
	g.load = strtod(o->load_arg, &end);
	if (*end || !*o->load_arg || !(g.load > 0) || g.load > 1000) {
		snprintf(err, len, "bad offered load '%s' (above 0, at most 1000)",
			 o->load_arg);
		return PR_ERR;
	}
	if (o->trace_mix && parse_mix(o->trace_mix, mix, MAX_MIX, &g.nmix,
				      err, len))
		return PR_ERR;
	g.mix = o->trace_mix ? mix : NULL;
	g.runtimes = runtimes_path(o, path, sizeof(path));
	if (trc_gen_philly(&g, &t, err, len))
		goto out;
	if (chart_write_file(out, write_trace, &t, err, len))
		goto out;
	ret = PR_OK;
	if (o->json)
		ret = print_stats(o, out, &t, o->gpus, err, len);
	else if (strcmp(out, "-"))
		fprintf(stderr, "ibpoolroute: wrote %s: %zu Philly-shaped jobs, offered load %g on %u GPUs, seed %llu%s%s\n",
			out, t.njobs, g.load, g.gpus,
			(unsigned long long)g.seed, g.mix ? ", GPU mix " : "",
			g.mix ? o->trace_mix : "");
out:
	trc_free(&t);
	return ret;
}

/*
 * Every row the readers know, flagged (never scheduled, before the
 * window, ...), so that replay skips in the CSV what it skips in FILE.
 */
static int convert(const struct pr_opts *o, char *err, size_t len)
{
	struct trc_trace t;
	int ret = PR_OK;

	if (read_as(o, o->trace_convert,
		    TRC_OPT_ALL_PODS | TRC_OPT_KEEP_PRESENT, &t, err, len))
		return PR_ERR;
	if (chart_write_file(o->output ? o->output : "-", write_trace, &t,
			     err, len))
		ret = PR_ERR;
	trc_free(&t);
	return ret;
}

int pr_trace(const struct pr_opts *o, char *err, size_t len)
{
	if (!!o->trace_gen + !!o->trace_stats + !!o->trace_convert != 1) {
		snprintf(err, len, "trace takes --gen NAME, --stats FILE or --convert FILE");
		return PR_ERR;
	}
	if (o->trace_stats)
		return stats(o, err, len);
	if (o->trace_convert)
		return convert(o, err, len);
	if (!o->jobs || !o->load_arg || !o->gpus) {
		snprintf(err, len, "trace --gen needs --jobs N, --load L and --gpus G");
		return PR_ERR;
	}
	if (o->json && (!o->output || !strcmp(o->output, "-"))) {
		snprintf(err, len, "trace --gen --json needs -o FILE: the trace would share stdout");
		return PR_ERR;
	}
	return gen(o, err, len);
}
