// SPDX-License-Identifier: MIT
/*
 * ibpoold's /metrics page, rendered off the server thread and kept for
 * the scrapes that follow.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "metrics.h"
#include "ops.h"
#include "topology/monotime.h"
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

/*
 * What the page shows of the state under the poold's lock, copied so
 * that the page is written without it: the server thread waits on that
 * lock, and a large fabric's page is long to write.
 */
struct snap {
	unsigned int *free;	/* per configured host */
	size_t nallocs, njobs, nqueued, nsw, nca, missing;
	double view_age;	/* seconds */
	unsigned int refresh_failed;
	time_t refresh_err_at;
	size_t orphaned;	/* GPUs orphaned records name */
	uint64_t lost;		/* allocations marked lost */
	struct link_load {
		uint64_t guid;
		unsigned int port;
		double alloc, meas;
	} *link;		/* every switch port with a peer */
	size_t nlinks;
	uint64_t ok[POOLD_NOPS], err[POOLD_NOPS];
};

static void snap_release(struct snap *sn)
{
	free(sn->free);
	free(sn->link);
}

/* The directed links switch ports send on, their loads; -ENOMEM. */
static int snap_links(struct snap *sn, const struct pool_view *v)
{
	const struct fabric *f = v->fab;
	unsigned int p;
	size_t n = 0, i;
	uint32_t k;

	for (k = 0; k < f->nnodes; k++)
		if (fab_is_sw(f, k))
			n += f->nodes[k].nports;
	sn->link = calloc(n + 1, sizeof(*sn->link));
	if (!sn->link)
		return -ENOMEM;
	for (k = 0; k < f->nnodes; k++) {
		if (!fab_is_sw(f, k))
			continue;
		for (p = 1; p <= f->nodes[k].nports; p++) {
			i = f->nodes[k].port0 + p;
			if (f->ports[i].peer == FAB_NONE)
				continue;
			sn->link[sn->nlinks++] = (struct link_load){
				f->nodes[k].guid, p, v->alloc[i], v->meas[i]
			};
		}
	}
	return 0;
}

/* Copy the state the page shows, under the lock; -ENOMEM. */
static int snap_take(struct snap *sn, struct poold *d)
{
	size_t i;
	int ret = -ENOMEM;

	memset(sn, 0, sizeof(*sn));
	sn->free = calloc(d->cfg->nhosts + 1, sizeof(*sn->free));
	if (!sn->free)
		return ret;
	pthread_mutex_lock(&d->lock);
	for (i = 0; i < d->cfg->nhosts; i++)
		sn->free[i] = pool_free_gpus(d->pool, i);
	sn->nallocs = pool_nallocs(d->pool);
	sn->njobs = pool_njobs(d->pool);
	sn->nqueued = pool_nqueued(d->pool);
	sn->nsw = d->view->fab->nsw;
	sn->nca = d->view->fab->nca;
	for (i = 0; i < d->nhcas; i++)
		sn->missing += d->port[i] < 0;
	sn->view_age = difftime(d->now(NULL), d->view_at);
	sn->refresh_failed = d->refresh_failed;
	sn->refresh_err_at = d->refresh_err_at;
	pool_orphans(d->pool, &sn->orphaned);
	sn->lost = d->lost;
	for (i = 0; i < POOLD_NOPS; i++) {
		sn->ok[i] = d->opstat[i].ok;
		sn->err[i] = d->opstat[i].err;
	}
	ret = snap_links(sn, d->view);
	pthread_mutex_unlock(&d->lock);
	if (ret)
		snap_release(sn);
	return ret;
}

static void hosts(FILE *out, const struct pool_config *cfg,
		  const struct snap *sn)
{
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
			fr = sn->free[h];
			fprintf(out, "%s{host=\"", name);
			label(out, cfg->hosts[h].name);
			fputs("\",gpu_type=\"", out);
			label(out, cfg->hosts[h].gpu_type);
			fprintf(out, "\"} %u\n", !k ? cfg->hosts[h].gpus :
				k == 1 ? fr : cfg->hosts[h].gpus - fr);
		}
	}
	gauge(out, "gpuaware_pool_allocations", "Allocations held now.",
	      sn->nallocs);
	gauge(out, "gpuaware_pool_jobs", "Jobs the pool knows (job.start).",
	      sn->njobs);
	gauge(out, "gpuaware_pool_requests_waiting",
	      "Requests queued for GPUs (alloc --queue, submit).", sn->nqueued);
}

/* Every directed link a switch port sends on: its two loads. */
static void links(FILE *out, const struct snap *sn)
{
	static const char *const name[] = {
		"gpuaware_pool_link_allocation_paths",
		"gpuaware_pool_link_utilization_ratio",
	};
	static const char *const help[] = {
		"Allocation paths crossing the link the switch port sends on.",
		"Measured transmit rate over the link rate (live fabric; 0 offline).",
	};
	const struct link_load *l;
	size_t k, i;

	for (k = 0; k < 2; k++) {
		head(out, name[k], "gauge", help[k]);
		for (i = 0; i < sn->nlinks; i++) {
			l = &sn->link[i];
			fprintf(out, "%s{switch=\"0x%016" PRIx64 "\",port=\"%u\"} %.9g\n",
				name[k], l->guid, l->port,
				k ? l->meas : l->alloc);
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

static void requests(FILE *out, struct poold *d, const struct snap *sn)
{
	char labels[64];
	size_t i;

	head(out, "gpuaware_pool_requests_total", "counter",
	     "Requests answered per operation, by result (error: refused).");
	for (i = 0; i < POOLD_NOPS; i++)
		fprintf(out, "gpuaware_pool_requests_total{op=\"%s\",result=\"ok\"} %" PRIu64 "\ngpuaware_pool_requests_total{op=\"%s\",result=\"error\"} %" PRIu64 "\n",
			poold_op_name(i), sn->ok[i], poold_op_name(i),
			sn->err[i]);
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

static void page(FILE *out, struct poold *d, const struct snap *sn)
{
	struct pool_hist sync;

	hosts(out, d->cfg, sn);
	gauge(out, "gpuaware_pool_fabric_switches",
	      "Switches in the fabric view.", sn->nsw);
	gauge(out, "gpuaware_pool_fabric_cas",
	      "Channel adapters in the fabric view.", sn->nca);
	gauge(out, "gpuaware_pool_hcas_missing",
	      "Configured HCA ports the fabric lacks (their GPUs not offered).",
	      sn->missing);
	gauge(out, "gpuaware_pool_fabric_view_age_seconds",
	      "Seconds since the fabric view was discovered.", sn->view_age);
	gauge(out, "gpuaware_pool_fabric_refresh_failures",
	      "Fabric refreshes failed in a row, the older view kept (0: the last one worked).",
	      sn->refresh_failed);
	gauge(out, "gpuaware_pool_fabric_refresh_error_timestamp_seconds",
	      "Unix time of the last failed fabric refresh, 0: none.",
	      (double)sn->refresh_err_at);
	gauge(out, "gpuaware_pool_orphaned_gpus",
	      "GPUs allocations name that the config no longer has (ibpoolroute orphans).",
	      sn->orphaned);
	head(out, "gpuaware_pool_allocations_lost_total", "counter",
	     "Allocations marked lost (event lost): their host, HCA or cable left the fabric, or host.fail.");
	fprintf(out, "gpuaware_pool_allocations_lost_total %" PRIu64 "\n",
		sn->lost);
	links(out, sn);
	relay(out, d);
	head(out, "gpuaware_pool_journal_sync_seconds", "histogram",
	     "fdatasync of the journal for the replies waiting on it (group commit).");
	/* a copy whose lock hist() takes: initialised, not stack garbage */
	pool_hist_init(&sync);
	pool_sync_times(d->pool, &sync);
	hist(out, "gpuaware_pool_journal_sync_seconds", "", &sync);
	pool_hist_destroy(&sync);
	requests(out, d, sn);
	server(out, d);
}

/* A new rendering of the page into *body (malloc'ed, *len bytes). */
static int render(struct poold *d, char **body, size_t *len)
{
	struct snap sn;
	FILE *m;
	int ret;

	ret = snap_take(&sn, d);
	if (ret)
		return ret;
	*body = NULL;
	m = open_memstream(body, len);
	if (m) {
		page(m, d, &sn);
		ret = fclose(m) ? -ENOMEM : 0;
	} else {
		ret = -ENOMEM;
	}
	snap_release(&sn);
	if (ret) {
		free(*body);
		*body = NULL;
	}
	return ret;
}

/*
 * The last rendering, and the scrapes waiting for the next, which the
 * metrics thread makes: neither the server thread nor the pool's lock
 * waits while a page is written.
 */
struct poold_metrics {
	struct poold *d;
	pthread_mutex_t lock;	/* all below */
	pthread_cond_t cv;
	bool stop;
	char *page;		/* owned; NULL: none yet */
	size_t len;
	double at;		/* when it was begun (monotonic s) */
	uint64_t seq;		/* the pool's changes it shows */
	uint64_t *wait;		/* tickets of scrapes for the next one */
	size_t nwait, cap;
	pthread_t th;
	bool joined;		/* the caller's: stopped */
};

static uint64_t pool_changes(struct poold *d)
{
	uint64_t seq;

	pthread_mutex_lock(&d->lock);
	seq = pool_seq(d->pool);
	pthread_mutex_unlock(&d->lock);
	return seq;
}

/*
 * A copy of the last rendering for each waiting scrape; without the
 * lock, which the server thread takes: this thread alone replaces it.
 */
static void answer_all(struct poold_metrics *m, const uint64_t *t, size_t n,
		       int ret)
{
	char *copy;
	size_t i;

	for (i = 0; i < n; i++) {
		copy = ret ? NULL : malloc(m->len + 1);
		if (copy)
			memcpy(copy, m->page, m->len);
		sm_server_answer_http(m->d->srv, t[i],
				      ret ? ret : copy ? 0 : -ENOMEM, copy,
				      m->len);
	}
}

static void *renderer(void *arg)
{
	struct poold_metrics *m = arg;
	uint64_t *t, seq;
	size_t n, len;
	char *body;
	double at;
	int ret;

	pthread_mutex_lock(&m->lock);
	for (;;) {
		while (!m->stop && !m->nwait)
			pthread_cond_wait(&m->cv, &m->lock);
		if (m->stop)
			break;
		t = m->wait;
		n = m->nwait;
		m->wait = NULL;
		m->nwait = m->cap = 0;
		pthread_mutex_unlock(&m->lock);
		/* begun after every waiting scrape came: fresh for them all */
		at = mono_s();
		seq = pool_changes(m->d);
		ret = render(m->d, &body, &len);
		pthread_mutex_lock(&m->lock);
		if (!ret) {
			free(m->page);
			m->page = body;
			m->len = len;
			m->at = at;
			m->seq = seq;
		}
		pthread_mutex_unlock(&m->lock);
		answer_all(m, t, n, ret);
		free(t);
		pthread_mutex_lock(&m->lock);
	}
	pthread_mutex_unlock(&m->lock);
	return NULL;
}

int poold_metrics_start(struct poold *d, struct poold_metrics **out)
{
	struct poold_metrics *m = calloc(1, sizeof(*m));
	int ret;

	*out = NULL;
	if (!m)
		return -ENOMEM;
	m->d = d;
	pthread_mutex_init(&m->lock, NULL);
	pthread_cond_init(&m->cv, NULL);
	ret = -pthread_create(&m->th, NULL, renderer, m);
	if (ret) {
		pthread_cond_destroy(&m->cv);
		pthread_mutex_destroy(&m->lock);
		free(m);
		return ret;
	}
	*out = m;
	return 0;
}

void poold_metrics_stop(struct poold_metrics *m)
{
	if (!m || m->joined)
		return;
	pthread_mutex_lock(&m->lock);
	m->stop = true;
	pthread_cond_signal(&m->cv);
	pthread_mutex_unlock(&m->lock);
	pthread_join(m->th, NULL);
	m->joined = true;
}

void poold_metrics_free(struct poold_metrics *m)
{
	if (!m)
		return;
	pthread_cond_destroy(&m->cv);
	pthread_mutex_destroy(&m->lock);
	free(m->wait);
	free(m->page);
	free(m);
}

/* Have ticket wait for the next rendering: SM_DEFERRED, or -errno. */
static int defer(struct poold_metrics *m, uint64_t ticket)
{
	uint64_t *t;
	size_t cap;

	if (m->stop)
		return -ESHUTDOWN;
	if (m->nwait == m->cap) {
		cap = m->cap ? 2 * m->cap : 8;
		t = realloc(m->wait, cap * sizeof(*t));
		if (!t)
			return -ENOMEM;
		m->wait = t;
		m->cap = cap;
	}
	m->wait[m->nwait++] = ticket;
	pthread_cond_signal(&m->cv);
	return SM_DEFERRED;
}

int poold_metrics_http(void *ctx, uint64_t ticket, const char *path,
		       char **body, size_t *len)
{
	struct poold *d = ctx;
	struct poold_metrics *m = d->metrics;
	uint64_t seq;
	int ret;

	if (strcmp(path, "/metrics"))
		return -ENOENT;
	if (!m)
		return render(d, body, len);
	seq = pool_changes(d);
	pthread_mutex_lock(&m->lock);
	if (m->page && m->seq == seq &&
	    mono_s() - m->at < POOLD_METRICS_MAX_AGE_MS / 1000.0) {
		*body = malloc(m->len + 1);
		*len = m->len;
		if (*body)
			memcpy(*body, m->page, m->len);
		ret = *body ? 0 : -ENOMEM;
	} else {
		ret = defer(m, ticket);
	}
	pthread_mutex_unlock(&m->lock);
	return ret;
}
