// SPDX-License-Identifier: MIT
/* The plugin's textfile metrics and its count of logged codes. */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <libgen.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "../../sm/durable.h"
#include "gametrics.h"

#define NCODES 100	/* GA00 .. GA99 */

static _Atomic uint64_t errs[NCODES], wrns[NCODES];

void ga_metrics_count(const char *line)
{
	bool err = !strncmp(line, "ERR GA", 6);
	unsigned int n;

	if ((!err && strncmp(line, "WRN GA", 6)) || line[6] < '0' ||
	    line[6] > '9' || line[7] < '0' || line[7] > '9')
		return;
	n = (line[6] - '0') * 10 + line[7] - '0';
	atomic_fetch_add(err ? &errs[n] : &wrns[n], 1);
}

static void head(FILE *out, const char *name, const char *type,
		 const char *help)
{
	fprintf(out, "# HELP %s %s\n# TYPE %s %s\n", name, help, name, type);
}

static void codes(FILE *out)
{
	unsigned int n;
	uint64_t e, w;

	head(out, "gpuaware_sm_log_codes_total", "counter",
	     "ERR and WRN lines the plugin logged, by code (codes never logged are left out).");
	for (n = 0; n < NCODES; n++) {
		e = atomic_load(&errs[n]);
		w = atomic_load(&wrns[n]);
		if (e)
			fprintf(out, "gpuaware_sm_log_codes_total{code=\"GA%02u\",level=\"error\"} %" PRIu64 "\n",
				n, e);
		if (w)
			fprintf(out, "gpuaware_sm_log_codes_total{code=\"GA%02u\",level=\"warning\"} %" PRIu64 "\n",
				n, w);
	}
}

static void gauge(FILE *out, const char *name, const char *help, double v)
{
	head(out, name, "gauge", help);
	fprintf(out, "%s %.17g\n", name, v);
}

/* The guard's scores: pattern x statistic x routing. */
static void model(FILE *out, const struct ga_hints_routing *r)
{
	const struct rt_model *m[2] = { &r->with, &r->without };
	static const char *const rt[2] = { "with_jobs", "without_jobs" };
	unsigned int k;

	gauge(out, "gpuaware_sm_job_routing_kept",
	      "1: the routing for the jobs is in the switches, 0: the routing without them won on the collectives model.",
	      r->jobs_kept);
	head(out, "gpuaware_sm_job_model_ratio", "gauge",
	     "The jobs' collectives on the model the guard ran, as fractions of line rate: mean or worst job, per pattern and routing.");
	for (k = 0; k < 2; k++)
		fprintf(out, "gpuaware_sm_job_model_ratio{pattern=\"ring\",job=\"mean\",routing=\"%s\"} %.9g\ngpuaware_sm_job_model_ratio{pattern=\"ring\",job=\"worst\",routing=\"%s\"} %.9g\ngpuaware_sm_job_model_ratio{pattern=\"alltoall\",job=\"mean\",routing=\"%s\"} %.9g\ngpuaware_sm_job_model_ratio{pattern=\"alltoall\",job=\"worst\",routing=\"%s\"} %.9g\ngpuaware_sm_job_model_ratio{pattern=\"nccl-alltoall\",job=\"mean\",routing=\"%s\"} %.9g\ngpuaware_sm_job_model_ratio{pattern=\"nccl-alltoall\",job=\"worst\",routing=\"%s\"} %.9g\n",
			rt[k], m[k]->ring, rt[k], m[k]->ring_worst, rt[k],
			m[k]->a2a, rt[k], m[k]->a2a_worst, rt[k], m[k]->nccl,
			rt[k], m[k]->nccl_worst);
}

static void last(FILE *out, const struct ga_hints_routing *r)
{
	head(out, "gpuaware_sm_routing_info", "gauge",
	     "The last routing handed to OpenSM: its topology and engine (value 1).");
	fprintf(out, "gpuaware_sm_routing_info{topology=\"%s\",engine=\"%s\"} 1\n",
		r->topology, r->engine);
	gauge(out, "gpuaware_sm_data_vls", "Data VLs the last routing uses.",
	      r->nvl);
	gauge(out, "gpuaware_sm_jobs_routed", "Jobs the last routing was made for.",
	      r->jobs);
	gauge(out, "gpuaware_sm_hints_generation",
	      "The job-table generation the last routing was made for.",
	      r->generation);
	if (r->modelled)
		model(out, r);
}

/*
 * Which engine configured the switches (the plugin, or OpenSM's fallback
 * when it refused) and whether this SM is the master; role and engine
 * are labels of one series each, so an alert reads them by name.
 */
static void sm_now(FILE *out, const struct ga_metrics *m)
{
	if (m->engine_used[0]) {
		head(out, "gpuaware_sm_engine_in_use", "gauge",
		     "The engine OpenSM configured the switches with at its last unicast routing (value 1): gpuaware, or the fallback it used when the plugin refused.");
		fprintf(out, "gpuaware_sm_engine_in_use{engine=\"%s\"} 1\n",
			m->engine_used);
	}
	if (m->role) {
		head(out, "gpuaware_sm_role", "gauge",
		     "This OpenSM's state (value 1): master, standby, discovering or not active.");
		fprintf(out, "gpuaware_sm_role{role=\"%s\"} 1\n", m->role);
	}
	/* a standby routes nothing: its table is the job count it has */
	if (m->table)
		gauge(out, "gpuaware_sm_hints_table_jobs",
		      "Jobs in the plugin's hint table, routed or not (master and standby alike).",
		      m->table_jobs);
}

static void page(FILE *out, const struct ga_metrics *m)
{
	head(out, "gpuaware_sm_routings_total", "counter",
	     "Routings the plugin handed to OpenSM (ok) or could not make (failed).");
	fprintf(out, "gpuaware_sm_routings_total{result=\"ok\"} %" PRIu64 "\ngpuaware_sm_routings_total{result=\"failed\"} %" PRIu64 "\n",
		m->ok, m->failed);
	head(out, "gpuaware_sm_routing_seconds_total", "counter",
	     "Wall time of the plugin's routings, summed.");
	fprintf(out, "gpuaware_sm_routing_seconds_total %.9g\n", m->seconds);
	gauge(out, "gpuaware_sm_last_routing_seconds",
	      "Wall time of the last routing.", m->last_s);
	gauge(out, "gpuaware_sm_last_routing_timestamp_seconds",
	      "When this file was written, after a routing (Unix time).",
	      (double)time(NULL));
	head(out, "gpuaware_sm_reroutes_total", "counter",
	     "Reroutes the job-hint socket asked of OpenSM.");
	fprintf(out, "gpuaware_sm_reroutes_total %" PRIu64 "\n", m->reroutes);
	if (m->have)
		last(out, &m->last);
	sm_now(out, m);
	codes(out);
}

int ga_metrics_write(const char *path, const struct ga_metrics *m,
		     char *err, size_t len)
{
	char *copy = strdup(path), *buf = NULL, *dir, *name, tmp[300];
	const char *step = "out of memory";
	size_t n = 0;
	FILE *out;
	int fd = -1, ret = -ENOMEM;

	out = copy ? open_memstream(&buf, &n) : NULL;
	if (!out)
		goto out_free;
	page(out, m);
	if (fclose(out))
		goto out_free;
	dir = dirname(copy);
	fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0) {
		ret = -errno;
		step = "open directory";
		goto out_free;
	}
	strcpy(copy, path);
	name = basename(copy);
	snprintf(tmp, sizeof(tmp), "%s.tmp", name);
	ret = sm_replace_at(fd, tmp, name, buf, n, 0644, &step);
out_free:
	if (ret)
		snprintf(err, len, "%s: %s: %s", path, step, strerror(-ret));
	if (fd >= 0)
		close(fd);
	free(buf);
	free(copy);
	return ret;
}
