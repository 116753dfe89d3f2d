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
#include "sm/client.h"
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

/*
 * A GPU's path: its hops by switch name and out port, else (an older
 * ibpoold) by GUID.
 */
static void print_path(json_object *g)
{
	json_object *path = arr(g, "path_names"), *hop;
	size_t k;

	if (!path)
		path = arr(g, "path");
	if (!path) {
		printf("path lost (the fabric changed)");
		return;
	}
	printf("path");
	for (k = 0; k < len_of(path); k++) {
		hop = json_object_array_get_idx(path, k);
		printf("%s%s", k ? " -> " : " ", json_object_get_string(hop));
	}
	if (!len_of(path))
		printf(" within the client's switch");
}

/* GPUs a and b reach the same port by the same path: one line. */
static bool same_port(json_object *a, json_object *b)
{
	json_object *pa = arr(a, "path"), *pb = arr(b, "path");

	return !strcmp(pr_str(a, "host"), pr_str(b, "host")) &&
	       num(a, "dlid") == num(b, "dlid") && pa && pb &&
	       !strcmp(json_object_to_json_string(pa),
		       json_object_to_json_string(pb));
}

/* GPU g's number, and its share when it has one ("2 (250 milli)"). */
static void print_gpu(json_object *g, bool comma)
{
	printf("%s%" PRId64, comma ? "," : "", num(g, "gpu"));
	if (num(g, "milli"))
		printf(" (%" PRId64 " milli)", num(g, "milli"));
}

/*
 * An allocation's line, then one line per host port its GPUs use.  load counts the
 * allocation paths on the busiest link of the GPU's paths, its traffic
 * added as a share of the link rate (docs/protocol.md).
 */
static void print_alloc(json_object *a)
{
	json_object *gpus = arr(a, "gpus"), *g;
	time_t t = num(a, "expires");
	char when[32];
	size_t i, j, k;

	strftime(when, sizeof(when), "%Y-%m-%d %H:%M:%S UTC", gmtime(&t));
	printf("Allocation %s: client %s, uid %" PRId64 ", job %s, %zu GPU%s, ",
	       pr_str(a, "id"), pr_str(a, "client"), num(a, "uid"),
	       *pr_str(a, "job") ? pr_str(a, "job") : "-", len_of(gpus),
	       len_of(gpus) == 1 ? "" : "s");
	if (num(a, "rdma"))
		printf("RDMA %" PRId64 "%% of each HCA, ", num(a, "rdma"));
	printf("expires %s\n", when);
	if (json_object_object_get_ex(a, "port", &g) && g) {
		printf("  %s HCA %" PRId64 ": DLID %" PRId64 ", ",
		       pr_str(g, "host"), num(g, "rail"), num(g, "dlid"));
		print_path(g);
		putchar('\n');
	}
	for (i = 0; i < len_of(gpus); i = k) {
		g = json_object_array_get_idx(gpus, i);
		for (k = i + 1; k < len_of(gpus) &&
		     same_port(g, json_object_array_get_idx(gpus, k)); k++)
			;
		printf("  %s GPU%s ", pr_str(g, "host"), k - i > 1 ? "s" : "");
		for (j = i; j < k; j++)
			print_gpu(json_object_array_get_idx(gpus, j), j > i);
		printf(": ");
		if (arr(g, "path"))
			/* "-": SL not known (null), never shown as 0 */
			printf("DLID %" PRId64 ", GID %s, SL %s, MTU %" PRId64 " bytes, %g Gb/s, load %.2f paths on its busiest link, ",
			       num(g, "dlid"), pr_str(g, "gid"), pr_str(g, "sl"),
			       num(g, "mtu"), dbl(g, "rate"), dbl(g, "load"));
		else
			printf("DLID %" PRId64 ", ", num(g, "dlid"));
		print_path(g);
		putchar('\n');
	}
}

static void print_status(json_object *r)
{
	json_object *hosts = arr(r, "hosts"), *h;
	json_object *fab = json_object_object_get(r, "fabric");
	json_object *rel = json_object_object_get(r, "relay");
	json_object *orph = json_object_object_get(r, "orphans");
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
	if (num(orph, "gpus"))
		printf("Orphans: %" PRId64 " allocations name %" PRId64 " GPUs the config does not have (ibpoolroute orphans)\n",
		       num(orph, "allocs"), num(orph, "gpus"));
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

/* The export's text; the names it had to change said on stderr. */
static void print_export(json_object *r)
{
	json_object *ren = arr(r, "renamed"), *x;
	size_t i;

	print_text(r);
	for (i = 0; i < len_of(ren); i++) {
		x = json_object_array_get_idx(ren, i);
		fprintf(stderr, "ibpoolroute: topology: %s '%s' written as '%s'\n",
			pr_str(x, "kind"), pr_str(x, "name"), pr_str(x, "as"));
	}
}

int pr_pool_status(const struct pr_opts *o, char *err, size_t len)
{
	json_object *reply;
	int ret = call(o, pr_request("pool.status"), &reply, err, len);

	return ret ? ret : show(o, reply, print_status);
}

/* A granted allocation, or the ticket of a queued request. */
static void print_granted(json_object *r)
{
	if (json_object_get_boolean(json_object_object_get(r, "queued")))
		printf("Queued: ticket %s\n", pr_str(r, "ticket"));
	else
		print_alloc(r);
}

/*
 * An alloc or submit request: its client (this host by default), GPUs,
 * lease, job and the queue's fields.  NULL with err when out of memory
 * or without a host name.
 */
static json_object *gpu_request(const struct pr_opts *o, const char *op,
				char *err, size_t len)
{
	char host[256];
	json_object *req;
	const char *client = o->client;

	if (!client) {
		if (gethostname(host, sizeof(host))) {
			snprintf(err, len, "gethostname: %s", strerror(errno));
			return NULL;
		}
		host[sizeof(host) - 1] = '\0';
		host[strcspn(host, ".")] = '\0';
		client = host;
	}
	req = pr_with(pr_request(op), "client", json_object_new_string(client));
	if (o->gpus)
		req = pr_with(req, "gpus", json_object_new_int64(o->gpus));
	if (o->milli)
		req = pr_with(req, "gpu_milli", json_object_new_int64(o->milli));
	if (o->rdma)
		req = pr_with(req, "rdma", json_object_new_int64(o->rdma));
	if (o->lease)
		req = pr_with(req, "lease_s", json_object_new_int64(o->lease));
	if (o->job)
		req = pr_with(req, "job", json_object_new_string(o->job));
	if (o->queue)
		req = pr_with(req, "queue", json_object_new_boolean(true));
	if (o->cls)
		req = pr_with(req, "class", json_object_new_string(o->cls));
	if (o->group)
		req = pr_with(req, "group", json_object_new_string(o->group));
	if (o->name)
		req = pr_with(req, "name", json_object_new_string(o->name));
	if (o->limit)
		req = pr_with(req, "limit_s", json_object_new_int64(o->limit));
	if (!req)
		snprintf(err, len, "out of memory");
	return req;
}

int pr_pool_alloc(const struct pr_opts *o, char *err, size_t len)
{
	json_object *req = gpu_request(o, "alloc", err, len), *reply;
	int ret;

	if (!req)
		return PR_ERR;
	ret = call(o, req, &reply, err, len);
	return ret ? ret : show(o, reply, print_granted);
}

int pr_pool_submit(const struct pr_opts *o, char *err, size_t len)
{
	json_object *req = gpu_request(o, "submit", err, len), *reply;
	int ret;

	if (!req)
		return PR_ERR;
	req = pr_with(req, "hosts", json_object_new_int64(
		(o->gpus + o->per_host - 1) / o->per_host));
	req = pr_with(req, "gpus_per_host", json_object_new_int64(o->per_host));
	ret = call(o, req, &reply, err, len);
	return ret ? ret : show(o, reply, print_granted);
}

static void print_cancelled(json_object *r)
{
	printf("Cancelled ticket %s\n", pr_str(r, "ticket"));
}

int pr_pool_cancel(const struct pr_opts *o, char *err, size_t len)
{
	json_object *reply;
	int ret = call(o, pr_with(pr_request("cancel"), "ticket",
			       json_object_new_string(o->dir)),
		       &reply, err, len);

	return ret ? ret : show(o, reply, print_cancelled);
}

static void print_queue(json_object *r)
{
	json_object *q = arr(r, "queue"), *x;
	time_t t;
	char when[32];
	size_t i;

	if (!len_of(q))
		printf("Nothing queued\n");
	else
		printf("%-8s %6s %5s %5s %-10s %-10s %-12s %s\n", "Ticket",
		       "uid", "GPUs", "Hosts", "Class", "Group", "Client",
		       "Since");
	for (i = 0; i < len_of(q); i++) {
		x = json_object_array_get_idx(q, i);
		t = num(x, "submit");
		strftime(when, sizeof(when), "%Y-%m-%d %H:%M:%S UTC",
			 gmtime(&t));
		printf("%-8s %6" PRId64 " %5" PRId64 " %5" PRId64 " %-10s %-10s %-12s %s\n",
		       pr_str(x, "ticket"), num(x, "uid"), num(x, "gpus"),
		       num(x, "hosts"), *pr_str(x, "class") ? pr_str(x, "class") : "-",
		       *pr_str(x, "group") ? pr_str(x, "group") : "-",
		       pr_str(x, "client"), when);
	}
}

int pr_pool_queue(const struct pr_opts *o, char *err, size_t len)
{
	json_object *reply;
	int ret = call(o, pr_request("queue.list"), &reply, err, len);

	return ret ? ret : show(o, reply, print_queue);
}

struct watching {
	const struct pr_opts *o;
	char *err;
	size_t len;
};

/* One line of a watch: the reply first, then events. */
static int watch_line(void *ctx, json_object *l)
{
	const struct watching *w = ctx;
	const struct pr_opts *o = w->o;
	json_object *e, *a;

	if (json_object_object_get_ex(l, "ok", NULL)) {
		if (json_object_get_boolean(json_object_object_get(l, "ok")))
			return 0;
		e = json_object_object_get(l, "error");
		if (o->json)
			puts(json_object_to_json_string_ext(l,
						JSON_C_TO_STRING_PLAIN));
		else
			snprintf(w->err, w->len, "%s: %s", pr_str(e, "code"),
				 pr_str(e, "message"));
		return PR_BAD;
	}
	if (o->json) {
		puts(json_object_to_json_string_ext(l, JSON_C_TO_STRING_PLAIN));
	} else {
		printf("%s ticket %s allocation %s uid %s", pr_str(l, "event"),
		       pr_str(l, "ticket"), pr_str(l, "id"), pr_str(l, "uid"));
		if (json_object_object_get_ex(l, "deadline", NULL))
			printf(" deadline %s", pr_str(l, "deadline"));
		putchar('\n');
		if (json_object_object_get_ex(l, "alloc", &a) && a)
			print_alloc(a);
	}
	return fflush(stdout) ? PR_ERR : 0;
}

/* The comma-separated list s as a JSON array of strings (NULL: ENOMEM). */
static json_object *split(const char *s)
{
	json_object *arr = json_object_new_array();
	const char *c;
	size_t n;

	for (; arr && *s; s += n + (s[n] == ',')) {
		c = strchr(s, ',');
		n = c ? (size_t)(c - s) : strlen(s);
		if (n && json_object_array_add(
				 arr, json_object_new_string_len(s, (int)n))) {
			json_object_put(arr);
			return NULL;
		}
	}
	return arr;
}

/* watch's request, with the filter the options ask for. */
static json_object *watch_request(const struct pr_opts *o)
{
	json_object *req = pr_request("watch");

	if (req && o->events)
		req = pr_with(req, "events", split(o->events));
	if (req && o->tickets)
		req = pr_with(req, "tickets", split(o->tickets));
	if (req && o->ids)
		req = pr_with(req, "ids", split(o->ids));
	if (req && o->mine)
		req = pr_with(req, "mine", json_object_new_boolean(true));
	return req;
}

int pr_pool_watch(const struct pr_opts *o, char *err, size_t len)
{
	json_object *req = watch_request(o);
	struct watching w = { o, err, len };
	int ret;

	if (!req) {
		snprintf(err, len, "out of memory");
		return PR_ERR;
	}
	ret = sm_stream_as(o->socket, o->munge, req, POOL_TIMEOUT_MS,
			   watch_line, &w, err, len);
	json_object_put(req);
	if (ret > 0)
		return ret;
	return PR_ERR;
}

static void print_host(json_object *r)
{
	printf("Host %s: %s\n", pr_str(r, "host"), pr_str(r, "state"));
}

int pr_pool_host(const struct pr_opts *o, char *err, size_t len)
{
	static const char *const verbs[] = { "drain", "fail", "resume" };
	char op[32];
	json_object *reply;
	size_t i;
	int ret;

	for (i = 0; i < sizeof(verbs) / sizeof(verbs[0]); i++)
		if (!strcmp(o->args[0], verbs[i]))
			break;
	if (i == sizeof(verbs) / sizeof(verbs[0])) {
		snprintf(err, len, "host: '%s' is not drain, fail or resume",
			 o->args[0]);
		return PR_ERR;
	}
	snprintf(op, sizeof(op), "host.%s", verbs[i]);
	ret = call(o, pr_with(pr_request(op), "host",
			      json_object_new_string(o->args[1])),
		   &reply, err, len);
	return ret ? ret : show(o, reply, print_host);
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

	return ret ? ret : show(o, reply, print_export);
}

static void print_orphans(json_object *r)
{
	json_object *orph = arr(r, "orphans"), *a, *g, *x;
	size_t i, k;

	if (!len_of(orph))
		printf("No allocation holds a GPU the config lacks.\n");
	for (i = 0; i < len_of(orph); i++) {
		a = json_object_array_get_idx(orph, i);
		g = arr(a, "gpus");
		printf("Allocation %s: client %s, uid %" PRId64 ", job %s, %" PRId64 " GPUs held; not in the config:",
		       pr_str(a, "id"), pr_str(a, "client"), num(a, "uid"),
		       *pr_str(a, "job") ? pr_str(a, "job") : "-",
		       num(a, "gpus_held"));
		for (k = 0; k < len_of(g); k++) {
			x = json_object_array_get_idx(g, k);
			printf("%s %s gpu %" PRId64, k ? "," : "",
			       pr_str(x, "host"), num(x, "gpu"));
		}
		putchar('\n');
	}
	if (json_object_object_get(r, "dropped"))
		printf("Dropped %" PRId64 " orphaned GPUs.\n", num(r, "dropped"));
}

int pr_pool_orphans(const struct pr_opts *o, char *err, size_t len)
{
	json_object *req = pr_request("pool.orphans"), *reply;
	int ret;

	if (o->drop)
		req = pr_with(req, "drop", json_object_new_boolean(true));
	ret = call(o, req, &reply, err, len);
	return ret ? ret : show(o, reply, print_orphans);
}
