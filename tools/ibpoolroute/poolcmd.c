// SPDX-License-Identifier: MIT
/*
 * The pool subcommands: one request to ibpoold's socket each, the reply
 * printed as text like infiniband-diags, or as it came with --json.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "ibpoolroute.h"
#include "sm/server.h"
#include "tools/lib/pool/hostlist.h"

#define POOL_TIMEOUT_MS 10000

static int64_t num(json_object *o, const char *k)
{
	return json_object_get_int64(json_object_object_get(o, k));
}

static double dbl(json_object *o, const char *k)
{
	return json_object_get_double(json_object_object_get(o, k));
}

static json_object *arr(json_object *o, const char *k)
{
	json_object *v = json_object_object_get(o, k);

	return json_object_is_type(v, json_type_array) ? v : NULL;
}

static size_t len_of(json_object *a)
{
	return a ? json_object_array_length(a) : 0;
}

static int call(const struct pr_opts *o, json_object *req,
		json_object **reply, char *err, size_t len)
{
	return pr_call(o, req, reply, POOL_TIMEOUT_MS, err, len);
}

/* Print the reply and drop it: JSON as it came, or text by print. */
static int show(const struct pr_opts *o, json_object *reply,
		void (*print)(json_object *))
{
	if (o->json)
		puts(json_object_to_json_string_ext(reply,
						    JSON_C_TO_STRING_PLAIN));
	else
		print(reply);
	json_object_put(reply);
	return fflush(stdout) ? PR_ERR : PR_OK;
}

static void print_alloc(json_object *a)
{
	json_object *gpus = arr(a, "gpus"), *g, *path;
	time_t t = num(a, "expires");
	char when[32];
	size_t i, k;

	strftime(when, sizeof(when), "%Y-%m-%d %H:%M:%S UTC", gmtime(&t));
	printf("Allocation %s: client %s, uid %" PRId64 ", job %s, %zu GPUs, expires %s\n",
	       pr_str(a, "id"), pr_str(a, "client"), num(a, "uid"),
	       *pr_str(a, "job") ? pr_str(a, "job") : "-", len_of(gpus), when);
	for (i = 0; i < len_of(gpus); i++) {
		g = json_object_array_get_idx(gpus, i);
		path = arr(g, "path");
		/* "-": SL not known (null), never shown as 0 */
		printf("  %-12s gpu %-2" PRId64 " port %s DLID %" PRId64 " SL %s MTU %" PRId64 " rate %g load %.3f\n",
		       pr_str(g, "host"), num(g, "gpu"), pr_str(g, "port_guid"),
		       num(g, "dlid"), pr_str(g, "sl"), num(g, "mtu"),
		       dbl(g, "rate"), dbl(g, "load"));
		printf("  %-12s GID %s path", "", pr_str(g, "gid"));
		if (!path)
			printf(" lost (the fabric changed)");
		for (k = 0; k < len_of(path); k++)
			printf("%s%s", k ? " -> " : " ",
			       json_object_get_string(
				       json_object_array_get_idx(path, k)));
		putchar('\n');
	}
}

static void print_status(json_object *r)
{
	json_object *hosts = arr(r, "hosts"), *h;
	json_object *fab = json_object_object_get(r, "fabric");
	json_object *rel = json_object_object_get(r, "relay");
	size_t i;

	printf("Pool: %zu hosts, %" PRId64 " GPUs, %" PRId64 " free, %" PRId64 " allocations, %" PRId64 " jobs\n",
	       len_of(hosts), num(r, "gpus"), num(r, "free"),
	       num(r, "allocs"), num(r, "jobs"));
	printf("Fabric: %s: %s, engine %s, LMC %" PRId64 ", %" PRId64 " switches, %" PRId64 " CAs, %" PRId64 " configured HCAs missing\n",
	       pr_str(fab, "source"), pr_str(fab, "topology"), pr_str(fab, "engine"),
	       num(fab, "lmc"), num(fab, "switches"), num(fab, "cas"),
	       num(fab, "hcas_missing"));
	if (json_object_object_get(fab, "view_at"))
		printf("View: discovered %s, %" PRId64 " s ago\n",
		       pr_str(fab, "view_at"), num(fab, "view_age_s"));
	if (num(fab, "refresh_failures"))
		printf("Refresh failing: %" PRId64 " in a row, the last at %s: %s\n",
		       num(fab, "refresh_failures"),
		       pr_str(fab, "refresh_error_at"),
		       pr_str(fab, "refresh_error"));
	if (rel)
		printf("Relay: plugin %s, %s, %" PRId64 " tables sent, generation %" PRId64 "%s%s\n",
		       json_object_get_boolean(json_object_object_get(rel, "up")) ? "up" : "down",
		       json_object_get_boolean(json_object_object_get(rel, "synced")) ? "in sync" : "behind",
		       num(rel, "sent"), num(rel, "generation"),
		       *pr_str(rel, "error") ? ": " : "", pr_str(rel, "error"));
	if (rel && num(rel, "refused"))
		printf("Refused by the plugin: %" PRId64 " job%s, not routed: %s\n",
		       num(rel, "refused"), num(rel, "refused") > 1 ? "s" : "",
		       pr_str(rel, "refusal"));
	printf("%-16s %-10s %5s %5s\n", "Host", "Type", "GPUs", "Free");
	for (i = 0; i < len_of(hosts); i++) {
		h = json_object_array_get_idx(hosts, i);
		printf("%-16s %-10s %5" PRId64 " %5" PRId64 "\n",
		       pr_str(h, "host"), pr_str(h, "gpu_type"), num(h, "gpus"),
		       num(h, "free"));
	}
}

static void print_allocs(json_object *r)
{
	json_object *a = arr(r, "allocs");
	size_t i;

	if (!len_of(a))
		printf("No allocations\n");
	for (i = 0; i < len_of(a); i++)
		print_alloc(json_object_array_get_idx(a, i));
}

static void print_released(json_object *r)
{
	printf("Released allocation %s\n", pr_str(r, "id"));
}

/* Names of a JSON array of strings, as one hostlist expression. */
static void print_hostlist(json_object *a)
{
	size_t i, n = len_of(a);
	char **names = calloc(n + 1, sizeof(*names)), *s = NULL;

	for (i = 0; names && i < n; i++)
		names[i] = (char *)json_object_get_string(
			json_object_array_get_idx(a, i));
	if (names && !pool_hostlist_compress(names, n, &s))
		fputs(s, stdout);
	else
		for (i = 0; i < n; i++)
			printf("%s%s", i ? "," : "", json_object_get_string(
				json_object_array_get_idx(a, i)));
	free(s);
	free(names);
}

static void print_place(json_object *r)
{
	json_object *sc = json_object_object_get(r, "score");
	json_object *lv = json_object_object_get(sc, "level"), *m;

	printf("Hosts: ");
	print_hostlist(arr(r, "hosts"));
	printf("\nScore: %s %" PRId64 ", %" PRId64 " leaves, load %.3f\n",
	       lv ? "level" : "hops", lv ? num(sc, "level") : num(sc, "hops"),
	       num(sc, "leaves"), dbl(sc, "load"));
	if (!json_object_object_get_ex(sc, "model", &m) || !m)
		return;
	printf("Model: %s placement of %" PRId64 " candidates; beside the running jobs its ring %.3f, all-to-all %.3f (compact: %.3f, %.3f)\n",
	       pr_str(m, "placement"), num(m, "candidates"), dbl(m, "ring"),
	       dbl(m, "alltoall"), dbl(m, "compact_ring"),
	       dbl(m, "compact_alltoall"));
}

static void print_jobs(json_object *r)
{
	json_object *jobs = arr(r, "jobs"), *j, *al;
	size_t i, k;

	if (!len_of(jobs))
		printf("No jobs\n");
	for (i = 0; i < len_of(jobs); i++) {
		j = json_object_array_get_idx(jobs, i);
		al = arr(j, "allocs");
		printf("%-16s ", pr_str(j, "job"));
		print_hostlist(arr(j, "hosts"));
		printf(" allocations:");
		if (!len_of(al))
			printf(" none");
		for (k = 0; k < len_of(al); k++)
			printf(" %s", json_object_get_string(
				json_object_array_get_idx(al, k)));
		putchar('\n');
	}
}

static void print_job_done(json_object *r)
{
	printf("Job %s recorded\n", pr_str(r, "job"));
}

static void print_text(json_object *r)
{
	fputs(pr_str(r, "text"), stdout);
}

int pr_pool_status(const struct pr_opts *o, char *err, size_t len)
{
	json_object *reply;
	int ret = call(o, pr_request("pool.status"), &reply, err, len);

	return ret ? ret : show(o, reply, print_status);
}

int pr_pool_alloc(const struct pr_opts *o, char *err, size_t len)
{
	char host[256];
	json_object *req, *reply;
	const char *client = o->client;
	int ret;

	if (!client) {
		if (gethostname(host, sizeof(host))) {
			snprintf(err, len, "gethostname: %s", strerror(errno));
			return PR_ERR;
		}
		host[sizeof(host) - 1] = '\0';
		host[strcspn(host, ".")] = '\0';
		client = host;
	}
	req = pr_with(pr_request("alloc"), "client", json_object_new_string(client));
	req = pr_with(req, "gpus", json_object_new_int64(o->gpus));
	if (o->lease)
		req = pr_with(req, "lease_s", json_object_new_int64(o->lease));
	if (o->job)
		req = pr_with(req, "job", json_object_new_string(o->job));
	ret = call(o, req, &reply, err, len);
	return ret ? ret : show(o, reply, print_alloc);
}

int pr_pool_release(const struct pr_opts *o, char *err, size_t len)
{
	json_object *reply;
	int ret = call(o, pr_with(pr_request("release"), "id",
			       json_object_new_string(o->dir)),
		       &reply, err, len);

	return ret ? ret : show(o, reply, print_released);
}

int pr_pool_renew(const struct pr_opts *o, char *err, size_t len)
{
	json_object *req, *reply;
	int ret;

	req = pr_with(pr_request("renew"), "id", json_object_new_string(o->dir));
	if (o->lease)
		req = pr_with(req, "lease_s", json_object_new_int64(o->lease));
	ret = call(o, req, &reply, err, len);
	return ret ? ret : show(o, reply, print_alloc);
}

int pr_pool_list(const struct pr_opts *o, char *err, size_t len)
{
	json_object *reply;
	int ret = call(o, pr_request("alloc.list"), &reply, err, len);

	return ret ? ret : show(o, reply, print_allocs);
}

int pr_pool_place(const struct pr_opts *o, char *err, size_t len)
{
	json_object *req, *reply;
	int ret;

	req = pr_with(pr_request("place"), "gpus", json_object_new_int64(o->gpus));
	req = pr_with(req, "gpus_per_host", json_object_new_int64(o->per_host));
	ret = call(o, req, &reply, err, len);
	return ret ? ret : show(o, reply, print_place);
}

/* jobs: list; --start JOB --hosts EXPR or --end JOB change the table. */
int pr_pool_jobs(const struct pr_opts *o, char *err, size_t len)
{
	json_object *req, *reply, *hosts;
	char **names;
	size_t n, i;
	int ret;

	if (o->end_job) {
		req = pr_with(pr_request("job.end"), "job",
			   json_object_new_string(o->end_job));
		ret = call(o, req, &reply, err, len);
		return ret ? ret : show(o, reply, print_job_done);
	}
	if (!o->job) {
		ret = call(o, pr_request("job.list"), &reply, err, len);
		return ret ? ret : show(o, reply, print_jobs);
	}
	if (pool_hostlist_expand(o->hosts, POOL_HOSTLIST_MAX, &names, &n, err,
				 len))
		return PR_ERR;
	hosts = json_object_new_array();
	for (i = 0; hosts && i < n; i++)
		if (json_object_array_add(hosts,
					  json_object_new_string(names[i]))) {
			json_object_put(hosts);
			hosts = NULL;
		}
	pool_hostlist_free(names, n);
	req = pr_with(pr_request("job.start"), "job", json_object_new_string(o->job));
	req = pr_with(req, "hosts", hosts);
	ret = call(o, req, &reply, err, len);
	return ret ? ret : show(o, reply, print_job_done);
}

int pr_pool_topology(const struct pr_opts *o, char *err, size_t len)
{
	json_object *reply;
	int ret = call(o, pr_with(pr_request("topology.export"), "format",
			       json_object_new_string(o->format)),
		       &reply, err, len);

	return ret ? ret : show(o, reply, print_text);
}
