// SPDX-License-Identifier: MIT
/* ibpoold's /metrics page. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "metrics.h"
#include "ops.h"
#include "tools/lib/pool/hist.h"

/* A label value with \, " and newline escaped as the format wants. */
static void label(FILE *out, const char *v)
{
	for (; *v; v++) {
		if (*v == '\\' || *v == '"')
			fputc('\\', out);
		if (*v == '\n')
			fputs("\\n", out);
		else
			fputc(*v, out);
	}
}

static void head(FILE *out, const char *name, const char *type,
		 const char *help)
{
	fprintf(out, "# HELP %s %s\n# TYPE %s %s\n", name, help, name, type);
}

/* One histogram's series; labels "" or `op="x",` (with the comma). */
static void hist(FILE *out, const char *name, const char *labels,
		 struct pool_hist *h)
{
	struct pool_hist c;
	uint64_t cum = 0;
	size_t i;

	pool_hist_copy(h, &c);
	for (i = 0; i < POOL_HIST_BUCKETS; i++) {
		cum += c.bucket[i];
		fprintf(out, "%s_bucket{%sle=\"%g\"} %" PRIu64 "\n", name,
			labels, pool_hist_le[i], cum);
	}
	fprintf(out, "%s_bucket{%sle=\"+Inf\"} %" PRIu64 "\n", name, labels,
		c.count);
	if (*labels) {
		/* "op=\"x\"," without its comma for the plain series */
		int n = (int)strlen(labels) - 1;

		fprintf(out, "%s_sum{%.*s} %.9g\n%s_count{%.*s} %" PRIu64 "\n",
			name, n, labels, c.sum, name, n, labels, c.count);
	} else {
		fprintf(out, "%s_sum %.9g\n%s_count %" PRIu64 "\n", name,
			c.sum, name, c.count);
	}
}

static void gauge(FILE *out, const char *name, const char *help, double v)
{
	head(out, name, "gauge", help);
	fprintf(out, "%s %.17g\n", name, v);
}

static void hosts(FILE *out, const struct poold *d)
{
	const struct pool_config *cfg = d->cfg;
	static const char *const what[] = { "gpus", "gpus_free", "gpus_held" };
	static const char *const help[] = {
		"GPUs configured in the host.",
		"GPUs of the host no allocation holds.",
		"GPUs of the host held by allocations.",
	};
	unsigned int fr;
	size_t h, k;

	for (k = 0; k < 3; k++) {
		char name[64];

		snprintf(name, sizeof(name), "gpuaware_pool_%s", what[k]);
		head(out, name, "gauge", help[k]);
		for (h = 0; h < cfg->nhosts; h++) {
			fr = pool_free_gpus(d->pool, h);
			fprintf(out, "%s{host=\"", name);
			label(out, cfg->hosts[h].name);
			fputs("\",gpu_type=\"", out);
			label(out, cfg->hosts[h].gpu_type);
			fprintf(out, "\"} %u\n", !k ? cfg->hosts[h].gpus :
				k == 1 ? fr : cfg->hosts[h].gpus - fr);
		}
	}
	gauge(out, "gpuaware_pool_allocations", "Allocations held now.",
	      pool_nallocs(d->pool));
	gauge(out, "gpuaware_pool_jobs", "Jobs the pool knows (job.start).",
	      pool_njobs(d->pool));
}

/* Every directed link a switch port sends on: its two loads. */
static void links(FILE *out, const struct pool_view *v)
{
	static const char *const name[] = {
		"gpuaware_pool_link_allocation_paths",
		"gpuaware_pool_link_utilization_ratio",
	};
	static const char *const help[] = {
		"Allocation paths crossing the link the switch port sends on.",
		"Measured transmit rate over the link rate (live fabric; 0 offline).",
	};
	const struct fabric *f = v->fab;
	unsigned int p;
	size_t k;
	uint32_t n;

	for (k = 0; k < 2; k++) {
		head(out, name[k], "gauge", help[k]);
		for (n = 0; n < f->nnodes; n++) {
			if (!fab_is_sw(f, n))
				continue;
			for (p = 1; p <= f->nodes[n].nports; p++) {
				size_t i = f->nodes[n].port0 + p;

				if (f->ports[i].peer == FAB_NONE)
					continue;
				fprintf(out, "%s{switch=\"0x%016" PRIx64 "\",port=\"%u\"} %.9g\n",
					name[k], f->nodes[n].guid, p,
					k ? v->meas[i] : v->alloc[i]);
			}
		}
	}
}

static void relay(FILE *out, struct poold *d)
{
	struct poold_relay_status st = { 0 };

	if (d->relay)
		poold_fanout_status(d->relay, &st);
	gauge(out, "gpuaware_pool_relay_up",
	      "1 when the plugin's hint socket answered the last exchange.",
	      st.up);
	gauge(out, "gpuaware_pool_relay_synced",
	      "1 when the plugin has the pool's current job table, but the jobs it refused.",
	      st.synced);
	gauge(out, "gpuaware_pool_relay_refused_jobs",
	      "Jobs of the pool's table the plugin refused: not routed.",
	      st.refused);
	head(out, "gpuaware_pool_relay_tables_sent_total", "counter",
	     "Job tables the plugin acknowledged.");
	fprintf(out, "gpuaware_pool_relay_tables_sent_total %" PRIu64 "\n",
		st.sent);
	gauge(out, "gpuaware_pool_relay_hints_generation",
	      "The plugin's hint-table generation at the last exchange.",
	      st.generation);
}

static void requests(FILE *out, struct poold *d)
{
	char labels[64];
	size_t i;

	head(out, "gpuaware_pool_requests_total", "counter",
	     "Requests answered per operation, by result (error: refused).");
	for (i = 0; i < POOLD_NOPS; i++)
		fprintf(out, "gpuaware_pool_requests_total{op=\"%s\",result=\"ok\"} %" PRIu64 "\ngpuaware_pool_requests_total{op=\"%s\",result=\"error\"} %" PRIu64 "\n",
			poold_op_name(i), d->opstat[i].ok, poold_op_name(i),
			d->opstat[i].err);
	head(out, "gpuaware_pool_request_duration_seconds", "histogram",
	     "Time the server thread spent on a request, per operation (the journal sync it may wait for is apart).");
	for (i = 0; i < POOLD_NOPS; i++) {
		snprintf(labels, sizeof(labels), "op=\"%s\",",
			 poold_op_name(i));
		hist(out, "gpuaware_pool_request_duration_seconds", labels,
		     &d->opstat[i].time);
	}
}

static void server(FILE *out, struct poold *d)
{
	struct sm_server_stats st = { 0 };

	if (d->srv)
		sm_server_stats(d->srv, &st);
	head(out, "gpuaware_pool_connections_total", "counter",
	     "Connections served, Unix and TCP.");
	fprintf(out, "gpuaware_pool_connections_total %" PRIu64 "\n",
		st.accepted);
	head(out, "gpuaware_pool_connections_closed_total", "counter",
	     "Connections refused or closed by the server, by reason.");
	fprintf(out, "gpuaware_pool_connections_closed_total{reason=\"busy\"} %" PRIu64 "\ngpuaware_pool_connections_closed_total{reason=\"evicted\"} %" PRIu64 "\ngpuaware_pool_connections_closed_total{reason=\"timeout\"} %" PRIu64 "\ngpuaware_pool_connections_closed_total{reason=\"too_long\"} %" PRIu64 "\ngpuaware_pool_connections_closed_total{reason=\"unread_replies\"} %" PRIu64 "\n",
		st.busy, st.evicted, st.timeouts, st.too_long, st.overflows);
}

static void page(FILE *out, struct poold *d)
{
	struct pool_hist sync;
	size_t i, missing = 0;

	pthread_mutex_lock(&d->lock);
	hosts(out, d);
	for (i = 0; i < d->nhcas; i++)
		missing += d->port[i] < 0;
	gauge(out, "gpuaware_pool_fabric_switches",
	      "Switches in the fabric view.", d->view->fab->nsw);
	gauge(out, "gpuaware_pool_fabric_cas",
	      "Channel adapters in the fabric view.", d->view->fab->nca);
	gauge(out, "gpuaware_pool_hcas_missing",
	      "Configured HCA ports the fabric lacks (their GPUs not offered).",
	      missing);
	gauge(out, "gpuaware_pool_fabric_view_age_seconds",
	      "Seconds since the fabric view was discovered.",
	      difftime(d->now(NULL), d->view_at));
	gauge(out, "gpuaware_pool_fabric_refresh_failures",
	      "Fabric refreshes failed in a row, the older view kept (0: the last one worked).",
	      d->refresh_failed);
	gauge(out, "gpuaware_pool_fabric_refresh_error_timestamp_seconds",
	      "Unix time of the last failed fabric refresh, 0: none.",
	      (double)d->refresh_err_at);
	links(out, d->view);
	pthread_mutex_unlock(&d->lock);
	relay(out, d);
	head(out, "gpuaware_pool_journal_sync_seconds", "histogram",
	     "fdatasync of the journal for the replies waiting on it (group commit).");
	/* a copy whose lock hist() takes: initialised, not stack garbage */
	pool_hist_init(&sync);
	pool_sync_times(d->pool, &sync);
	hist(out, "gpuaware_pool_journal_sync_seconds", "", &sync);
	pool_hist_destroy(&sync);
	requests(out, d);
	server(out, d);
}

int poold_metrics_http(void *ctx, const char *path, char **body,
		       size_t *len)
{
	FILE *m;

	if (strcmp(path, "/metrics"))
		return -ENOENT;
	*body = NULL;
	m = open_memstream(body, len);
	if (!m)
		return -ENOMEM;
	page(m, ctx);
	if (fclose(m)) {
		free(*body);
		*body = NULL;
		return -ENOMEM;
	}
	return 0;
}
