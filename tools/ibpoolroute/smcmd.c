// SPDX-License-Identifier: MIT
/*
 * ibpoolroute hints / state / reroute: requests to the SM's hint socket
 * (docs/protocol.md), printed as text or as the reply's JSON.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "ibpoolroute.h"
#include "sm/proto.h"
#include "sm/server.h"
#include "topology/monotime.h"

#define TIMEOUT_MS 5000
#define WAIT_MS 60000

static unsigned int timeout(const struct pr_opts *o)
{
	return o->timeout_ms ? o->timeout_ms : o->wait ? WAIT_MS : TIMEOUT_MS;
}

static int call(const struct pr_opts *o, json_object *req,
		json_object **reply, char *err, size_t len)
{
	return pr_call(o, req, reply, (int)timeout(o), err, len);
}

static uint64_t u64(json_object *o, const char *key)
{
	json_object *v;

	return json_object_object_get_ex(o, key, &v) ?
	       (uint64_t)json_object_get_int64(v) : 0;
}

/*
 * The refusal of a sweep that answered the change (its field rkey,
 * generation or reroutes, reached want), into err; false when there is
 * none.
 */
static bool refused(json_object *r, const char *rkey, uint64_t want,
		    const char *what, char *err, size_t len)
{
	json_object *x, *fb;

	if (!json_object_object_get_ex(r, "refused", &x) || !x ||
	    u64(x, rkey) < want)
		return false;
	fb = json_object_object_get(x, "fallback");
	snprintf(err, len, "%s was not routed: the plugin refused the fabric (%s: %s); %s%s",
		 what, pr_str(x, "code"), pr_str(x, "message"),
		 fb ? "OpenSM routed with " : "no engine configured the switches",
		 fb ? json_object_get_string(fb) : "");
	return true;
}

/*
 * Poll state until its field key (routed_generation, reroutes_routed)
 * reaches want, all within the one --timeout; PR_OK, PR_ERR saying
 * what was accepted and is not in the switches yet, or at once PR_BAD
 * saying why a sweep that answered it was refused (rkey: the refusal's
 * field to compare).
 */
static int wait_routed(const struct pr_opts *o, const char *key,
		       const char *rkey, uint64_t want, const char *what,
		       char *err, size_t len)
{
	double end = (mono_s() * 1e3) + timeout(o), left;
	json_object *r, *v;
	bool done, no;
	int ret;

	for (;;) {
		left = end - (mono_s() * 1e3);
		ret = left < 1 ? PR_ERR :
		      pr_call(o, pr_request("state"), &r, (int)left, err, len);
		if (ret == PR_BAD)
			return ret;
		if (ret) {
			snprintf(err, len, "%s accepted, not yet in the switches after %u ms",
				 what, timeout(o));
			return PR_ERR;
		}
		done = json_object_object_get_ex(r, key, &v) && v &&
		       (uint64_t)json_object_get_int64(v) >= want;
		no = !done && refused(r, rkey, want, what, err, len);
		json_object_put(r);
		if (done)
			return PR_OK;
		if (no)
			return PR_BAD;
		usleep(20000);
	}
}

static void print_json(json_object *r)
{
	puts(json_object_to_json_string_ext(r, JSON_C_TO_STRING_PRETTY |
					    JSON_C_TO_STRING_NOSLASHESCAPE));
}

static void print_jobs(json_object *r)
{
	json_object *jobs, *j, *hosts;
	char own[80];
	size_t i, k, n;

	printf("generation %" PRIu64 "\n", u64(r, "generation"));
	if (!json_object_object_get_ex(r, "jobs", &jobs))
		return;
	n = json_object_array_length(jobs);
	printf("%zu job%s\n", n, n == 1 ? "" : "s");
	for (i = 0; i < n; i++) {
		j = json_object_array_get_idx(jobs, i);
		json_object_object_get_ex(j, "hosts", &hosts);
		own[0] = '\0';
		if (json_object_object_get_ex(j, "owner", NULL))
			snprintf(own, sizeof(own), "owner %s ",
				 pr_str(j, "owner"));
		printf("  %-16s weight %-4" PRIu64 " %s%zu host%s:",
		       pr_str(j, "id"), u64(j, "weight"), own,
		       json_object_array_length(hosts),
		       json_object_array_length(hosts) == 1 ? "" : "s");
		for (k = 0; k < json_object_array_length(hosts); k++)
			printf(" %s", json_object_get_string(
				       json_object_array_get_idx(hosts, k)));
		putchar('\n');
	}
}

/*
 * The request for hints set FILE|-: the file's {"jobs":[...]}, with
 * --owner its "owner".  A saved hints get --json is taken as it is: its
 * reply fields "ok" and "generation" are not the request's.
 */
static json_object *set_request(const char *path, const char *owner,
				char *err, size_t len)
{
	json_object *req = strcmp(path, "-") ?
			   json_object_from_file(path) :
			   json_object_from_fd(STDIN_FILENO);

	if (!req || !json_object_is_type(req, json_type_object)) {
		snprintf(err, len, "%s: not a JSON object: %s", path,
			 json_util_get_last_err() ? json_util_get_last_err() :
			 "wrong type");
		json_object_put(req);
		return NULL;
	}
	json_object_object_del(req, "ok");
	json_object_object_del(req, "generation");
	if (sm_json_add(req, "op", json_object_new_string("hints.set")) ||
	    (owner && sm_json_add(req, "owner",
				  json_object_new_string(owner)))) {
		json_object_put(req);
		snprintf(err, len, "out of memory");
		return NULL;
	}
	return req;
}

/* hints add ID HOST...: one job; NULL when out of memory. */
static json_object *add_request(const struct pr_opts *o)
{
	json_object *hosts = json_object_new_array(), *h, *job;
	int i;

	for (i = 2; hosts && i < o->nargs; i++) {
		h = json_object_new_string(o->args[i]);
		if (!h || json_object_array_add(hosts, h)) {
			json_object_put(h);
			json_object_put(hosts);
			hosts = NULL;
		}
	}
	job = pr_with(json_object_new_object(), "id",
		      json_object_new_string(o->args[1]));
	job = pr_with(job, "weight", json_object_new_int(o->weight));
	job = pr_with(job, "hosts", hosts);
	if (o->owner)
		job = pr_with(job, "owner", json_object_new_string(o->owner));
	return pr_with(pr_request("hints.add"), "job", job);
}

static json_object *remove_request(const char *id, const char *owner)
{
	json_object *req = pr_with(pr_request("hints.remove"), "id",
				   json_object_new_string(id));

	return owner ? pr_with(req, "owner", json_object_new_string(owner)) :
		       req;
}

/* A change done: say its generation, wait for it when asked. */
static int changed(const struct pr_opts *o, json_object *r, char *err,
		   size_t len)
{
	uint64_t gen = u64(r, "generation");
	char what[64];
	int ret = PR_OK;

	snprintf(what, sizeof(what), "the job table at generation %" PRIu64,
		 gen);
	if (o->wait)
		ret = wait_routed(o, "routed_generation", "generation", gen,
				  what, err, len);
	if (o->json)
		print_json(r);
	else if (!ret)
		printf("job table at generation %" PRIu64 "%s\n", gen,
		       o->wait ? ", routed and in the switches" : "");
	return ret;
}

int pr_hints(const struct pr_opts *o, char *err, size_t len)
{
	const char *what = o->args[0];
	json_object *req, *r;
	int ret;

	if (!strcmp(what, "get") && o->nargs == 1)
		req = pr_request("hints.get");
	else if (!strcmp(what, "set") && o->nargs == 2)
		req = set_request(o->args[1], o->owner, err, len);
	else if (!strcmp(what, "add") && o->nargs >= 3)
		req = add_request(o);
	else if (!strcmp(what, "remove") && o->nargs == 2)
		req = remove_request(o->args[1], o->owner);
	else {
		snprintf(err, len, "hints: use get, set FILE, add ID HOST... or remove ID");
		return PR_ERR;
	}
	if (!req && *err)
		return PR_ERR;
	ret = call(o, req, &r, err, len);
	if (ret)
		return ret;
	if (!strcmp(what, "get")) {
		if (o->json)
			print_json(r);
		else
			print_jobs(r);
	} else {
		ret = changed(o, r, err, len);
	}
	json_object_put(r);
	return ret;
}

/* One pattern's with/without pair of the job_model reply, for print_state. */
static void model_line(json_object *m, const char *key, const char *worst,
		       const char *name)
{
	json_object *p, *w;

	if (!json_object_object_get_ex(m, key, &p) ||
	    !json_object_object_get_ex(m, worst, &w))
		return;
	printf("%-13s: %.3f with the job routing, %.3f without (worst job %.3f, %.3f)\n",
	       name,
	       json_object_get_double(json_object_object_get(p, "with")),
	       json_object_get_double(json_object_object_get(p, "without")),
	       json_object_get_double(json_object_object_get(w, "with")),
	       json_object_get_double(json_object_object_get(w, "without")));
}

/* What the plugin's guard saw on the collectives model, if it ran. */
static void print_model(json_object *r)
{
	json_object *m;

	if (!json_object_object_get_ex(r, "job_model", &m) || !m)
		return;
	printf("job model    : %s kept (jobs' collectives at once, fraction of line rate)\n",
	       pr_str(m, "kept"));
	model_line(m, "ring", "ring_worst", "  ring");
	model_line(m, "alltoall", "alltoall_worst", "  all-to-all");
	model_line(m, "nccl_alltoall", "nccl_alltoall_worst",
		   "  NCCL all-to-all");
}

/* Nothing of ours in the switches: the refusal and the fallback, if any. */
static void print_refusal(json_object *r)
{
	json_object *x, *fb;

	if (!json_object_object_get_ex(r, "refused", &x) || !x) {
		printf("in switches  : %s\n", u64(r, "routings") ?
		       "not gpuaware's routing (an LFT block failed, or OpenSM routed with another engine)" :
		       "no gpuaware routing yet");
		return;
	}
	fb = json_object_object_get(x, "fallback");
	printf("in switches  : %s%s\n", fb ? "OpenSM's engine " :
	       "no routing: no engine configured the switches",
	       fb ? json_object_get_string(fb) : "");
	printf("refused      : %s: %s (job table generation %" PRIu64 ")\n",
	       pr_str(x, "code"), pr_str(x, "message"), u64(x, "generation"));
}

static void print_state(json_object *r)
{
	json_object *rg, *q;
	const char *jr;
	uint64_t n;
	bool none;

	json_object_object_get_ex(r, "routed_generation", &rg);
	if (json_object_object_get_ex(r, "sm_state", NULL))
		printf("sm           : %s\n", pr_str(r, "sm_state"));
	printf("job table    : generation %" PRIu64 ", %" PRIu64 " job%s%s\n",
	       u64(r, "hints_generation"), u64(r, "jobs"),
	       u64(r, "jobs") == 1 ? "" : "s",
	       json_object_get_boolean(json_object_object_get(r, "reroute_pending")) ?
	       ", reroute pending" : "");
	if (!rg) {
		print_refusal(r);
		return;
	}
	jr = json_object_object_get(r, "job_routing") ?
	     pr_str(r, "job_routing") : "";
	n = u64(r, "jobs_routed");
	/* "none (why)": the engine or the guard left the jobs out */
	none = !strncmp(jr, "none (", 6);
	printf("in switches  : generation %" PRIu64 ", ",
	       u64(r, "routed_generation"));
	if (!n)
		printf("routing without jobs (no jobs)\n");
	else if (none)
		printf("routing without jobs (for %" PRIu64 " job%s: %.*s)\n",
		       n, n == 1 ? "" : "s", (int)strlen(jr) - 7, jr + 6);
	else
		printf("routing for %" PRIu64 " job%s (%s)\n", n,
		       n == 1 ? "" : "s", *jr ? jr : "as they are");
	print_model(r);
	printf("routing      : topology %s, engine %s, %" PRIu64 " VL%s, %.1f ms\n",
	       pr_str(r, "topology"), pr_str(r, "engine"), u64(r, "vls"),
	       u64(r, "vls") == 1 ? "" : "s",
	       json_object_get_double(json_object_object_get(r, "route_ms")));
	if (json_object_object_get_ex(r, "quality", &q) && q)
		printf("quality      : %" PRIu64 " pairs, %" PRIu64 " unreachable, %s, max %" PRIu64 " hops, all-to-all max %" PRIu64 " (%.3f x mean)\n",
		       u64(q, "pairs"), u64(q, "unreachable"),
		       json_object_get_boolean(json_object_object_get(q, "credit_loops")) ?
		       "CREDIT LOOP" : "no credit loop", u64(q, "max_hops"),
		       u64(q, "efi_max"),
		       json_object_get_double(json_object_object_get(q, "efi_max_mean")));
	else
		printf("quality      : not checked (plugin verbosity below verbose)\n");
}

int pr_state(const struct pr_opts *o, char *err, size_t len)
{
	json_object *r;
	int ret = call(o, pr_request("state"), &r, err, len);

	if (ret)
		return ret;
	if (o->json)
		print_json(r);
	else
		print_state(r);
	json_object_put(r);
	return PR_OK;
}

/*
 * The reply names the reroute (a ticket); --wait polls until a routing
 * begun after it is in the switches, not one that was already under way.
 */
int pr_reroute(const struct pr_opts *o, char *err, size_t len)
{
	json_object *r;
	uint64_t ticket;
	int ret = call(o, pr_request("reroute"), &r, err, len);

	if (ret)
		return ret;
	ticket = u64(r, "reroute");
	ret = o->wait ? wait_routed(o, "reroutes_routed", "reroutes", ticket,
				    "the reroute", err, len) : PR_OK;
	if (o->json)
		print_json(r);
	else if (!ret)
		printf("%s\n", o->wait ? "rerouted, the switches hold the new routing" :
		       "reroute requested");
	json_object_put(r);
	return ret;
}
