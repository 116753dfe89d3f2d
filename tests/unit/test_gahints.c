// SPDX-License-Identifier: MIT
/*
 * The plugin's hint socket without OpenSM: requests over the real socket,
 * reroutes coalesced into kicks, the state of what reached the switches,
 * and the job set built for a fabric from the table.
 */
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "tu.h"
#include "tu_route.h"
#include "plugins/opensm/gaconfig.h"
#include "plugins/opensm/gahints.h"
#include "sm/client.h"
#include "sm/hints.h"
#include "sm/server.h"
#include "tools/ibpoold/fanout.h"
#include "tools/ibpoold/relay.h"
#include "topology/gen.h"

static atomic_uint kicks;

static void kick(void *ctx)
{
	(void)ctx;
	atomic_fetch_add(&kicks, 1);
}

/* The last error line, for tests that expect one; the others print it. */
static pthread_mutex_t said_lock = PTHREAD_MUTEX_INITIALIZER;
static char said[512];
static bool expect_said;

static void quiet(void *ctx, bool error, const char *msg)
{
	(void)ctx;
	pthread_mutex_lock(&said_lock);
	if (error || expect_said)
		snprintf(said, sizeof(said), "%s", msg);
	if (error && !expect_said)
		fprintf(stderr, "hints: %s\n", msg);
	pthread_mutex_unlock(&said_lock);
}

/* The SM state the fixture's hint sockets report. */
static const char *standby(void *ctx)
{
	(void)ctx;
	return "standby";
}

struct fix {
	char dir[64];
	struct ga_cfg cfg;
	struct ga_hints *h;
};

static void start(struct fix *x, unsigned int interval_ms)
{
	const struct ga_hints_ops ops = { kick, quiet, NULL, standby };
	char err[256];

	snprintf(x->dir, sizeof(x->dir), "/tmp/tu-gahints.XXXXXX");
	CU_ASSERT_FATAL(mkdtemp(x->dir) != NULL);
	ga_cfg_defaults(&x->cfg);
	snprintf(x->cfg.hints_socket, sizeof(x->cfg.hints_socket),
		 "%s/run/sm.sock", x->dir);
	snprintf(x->cfg.hints_dir, sizeof(x->cfg.hints_dir), "%s/state",
		 x->dir);
	x->cfg.hints_interval_ms = interval_ms;
	atomic_store(&kicks, 0);
	CU_ASSERT_FATAL(!ga_hints_start(&x->cfg, &ops, &x->h, err,
					sizeof(err)));
}

static void stop(struct fix *x)
{
	char cmd[128];

	ga_hints_stop(x->h);
	snprintf(cmd, sizeof(cmd), "rm -rf %s", x->dir);
	CU_ASSERT(system(cmd) == 0);
}

/* One request line to the socket; the reply, owned by the caller. */
static json_object *ask(const struct fix *x, const char *line)
{
	json_object *req = json_tokener_parse(line), *r = NULL;
	char err[256];

	CU_ASSERT_FATAL(req != NULL);
	CU_ASSERT_EQUAL_FATAL(sm_call(x->cfg.hints_socket, req, &r, 2000,
				      err, sizeof(err)), 0);
	json_object_put(req);
	return r;
}

static bool ok(json_object *r)
{
	return json_object_get_boolean(json_object_object_get(r, "ok"));
}

static const char *code(json_object *r)
{
	json_object *e = json_object_object_get(r, "error");

	return e ? json_object_get_string(json_object_object_get(e, "code")) :
		   "";
}

static int64_t num(json_object *r, const char *k)
{
	return json_object_get_int64(json_object_object_get(r, k));
}

static void sleep_ms(unsigned int ms)
{
	struct timespec ts = { ms / 1000, (long)(ms % 1000) * 1000000 };

	nanosleep(&ts, NULL);
}

static struct fabric *tree(void)
{
	struct gen_fattree g;
	struct gen_opts o;
	struct fabric *f = NULL;
	char err[256];

	gen_opts_init(&o);
	CU_ASSERT_FATAL(!gen_fattree_kary(&g, 4, 2, err, sizeof(err)));
	CU_ASSERT_FATAL(!gen_fattree(&g, &o, &f, err, sizeof(err)));
	CU_ASSERT_FATAL(!fab_assign_lids(f, 0));
	return f;
}

static void test_socket_and_state(void)
{
	struct stat st;
	struct fix x;
	json_object *r;

	start(&x, 0);
	CU_ASSERT_FATAL(!stat(x.cfg.hints_socket, &st));
	CU_ASSERT_EQUAL(st.st_mode & 0777, 0660);
	r = ask(&x, "{\"op\":\"state\"}");
	CU_ASSERT(ok(r));
	CU_ASSERT_EQUAL(num(r, "hints_generation"), 0);
	CU_ASSERT(json_object_object_get_ex(r, "routed_generation", NULL));
	CU_ASSERT(json_object_object_get(r, "routed_generation") == NULL);
	CU_ASSERT(!json_object_object_get_ex(r, "engine", NULL));
	json_object_put(r);
	r = ask(&x, "{\"op\":\"state\",\"verbose\":true}");
	CU_ASSERT_STRING_EQUAL(code(r), "bad_request");
	json_object_put(r);
	r = ask(&x, "{\"op\":\"frobnicate\"}");
	CU_ASSERT_STRING_EQUAL(code(r), "unknown_op");
	json_object_put(r);
	/* root may write: a change kicks a reroute at once */
	r = ask(&x, "{\"op\":\"hints.set\",\"jobs\":[{\"id\":\"j1\",\"hosts\":[\"node0001\",\"node0002\"]}]}");
	CU_ASSERT(ok(r));
	CU_ASSERT_EQUAL(num(r, "generation"), 1);
	json_object_put(r);
	sleep_ms(100);
	CU_ASSERT_EQUAL(atomic_load(&kicks), 1);
	r = ask(&x, "{\"op\":\"reroute\"}");
	CU_ASSERT(ok(r));
	CU_ASSERT_EQUAL(num(r, "hints_generation"), 1);
	json_object_put(r);
	sleep_ms(100);
	CU_ASSERT_EQUAL(atomic_load(&kicks), 2);
	stop(&x);
}

/*
 * Changes within the interval make one reroute at its end.  Each change
 * is synced to disk first, so a few stay well inside 1.5 s.
 */
static void test_coalesced(void)
{
	struct fix x;
	json_object *r;
	int i;

	start(&x, 1500);
	r = ask(&x, "{\"op\":\"reroute\"}");
	json_object_put(r);
	sleep_ms(100);
	CU_ASSERT_EQUAL(atomic_load(&kicks), 1);
	for (i = 0; i < 3; i++) {
		r = ask(&x, "{\"op\":\"hints.add\",\"job\":{\"id\":\"j0\",\"hosts\":[\"a\"]}}");
		json_object_put(r);
		r = ask(&x, "{\"op\":\"hints.remove\",\"id\":\"j0\"}");
		CU_ASSERT(ok(r));
		json_object_put(r);
	}
	r = ask(&x, "{\"op\":\"state\"}");
	CU_ASSERT(json_object_get_boolean(
		json_object_object_get(r, "reroute_pending")));
	CU_ASSERT_EQUAL(num(r, "hints_generation"), 6);
	json_object_put(r);
	CU_ASSERT_EQUAL(atomic_load(&kicks), 1);
	sleep_ms(1800);
	CU_ASSERT_EQUAL(atomic_load(&kicks), 2);
	r = ask(&x, "{\"op\":\"hints.get\"}");
	CU_ASSERT(ok(r));
	json_object_put(r);
	sleep_ms(300);
	CU_ASSERT_EQUAL(atomic_load(&kicks), 2);
	stop(&x);
}

/* One sweep of the routing thread: begin, jobs, routed, done. */
static void sweep(struct fix *x, const struct fabric *f, bool ours, bool ok)
{
	struct ga_hints_routing hr = { .nvl = 1 };
	struct rt_jobs js;
	uint64_t gen = 0;
	char err[256];
	int ret;

	ga_hints_sweep_begin(x->h);
	ret = ga_hints_jobs(x->h, f, &js, &gen, err,
			    sizeof(err));
	CU_ASSERT(ret >= 0);
	if (ret > 0) {
		hr.jobs = js.njobs;
		rt_jobs_release(&js);
	}
	hr.generation = gen;
	snprintf(hr.topology, sizeof(hr.topology), "fat-tree");
	snprintf(hr.engine, sizeof(hr.engine), "fattree");
	if (ours)
		ga_hints_routed(x->h, &hr);
	ga_hints_in_switches(x->h, ok, "gpuaware");
}

/* The job_model reply's with or without value of one pattern, -1 without. */
static double modelled(json_object *r, const char *pattern, const char *side)
{
	json_object *m, *p, *v;

	if (!json_object_object_get_ex(r, "job_model", &m) || !m ||
	    !json_object_object_get_ex(m, pattern, &p) ||
	    !json_object_object_get_ex(p, side, &v))
		return -1;
	return json_object_get_double(v);
}

/*
 * The routing thread's side: the job set from the table (hosts the
 * fabric lacks left out), then state once it is in the switches, with
 * what the guard saw on the collectives model; a sweep the plugin did
 * not route, or whose blocks did not all arrive, leaves no routed
 * generation.
 */
static void test_routed_generation(void)
{
	struct ga_hints_routing hr = { 0 };
	struct fabric *f = tree();
	struct rt_jobs js;
	uint64_t gen;
	char err[256];
	struct fix x;
	json_object *r;

	start(&x, 0);
	r = ask(&x, "{\"op\":\"hints.set\",\"jobs\":[{\"id\":\"j1\",\"hosts\":[\"node0001\",\"gone\"]},{\"id\":\"j2\",\"hosts\":[\"gone2\"]}]}");
	CU_ASSERT(ok(r));
	json_object_put(r);
	ga_hints_sweep_begin(x.h);
	CU_ASSERT_EQUAL(ga_hints_jobs(x.h, f, &js, &gen, err,
				      sizeof(err)), 1);
	CU_ASSERT_EQUAL(gen, 1);
	CU_ASSERT_EQUAL(js.njobs, 1);
	CU_ASSERT_STRING_EQUAL(js.job[0].id, "j1");
	CU_ASSERT_EQUAL(js.job[0].hosts, 1);
	rt_jobs_release(&js);
	/* now the fabric is known: hosts are checked */
	r = ask(&x, "{\"op\":\"hints.add\",\"job\":{\"id\":\"j3\",\"hosts\":[\"nosuch\"]}}");
	CU_ASSERT_STRING_EQUAL(code(r), "unknown_host");
	json_object_put(r);
	/* j3 shares j1's host, which routes with j1: j3 is not routed */
	r = ask(&x, "{\"op\":\"hints.add\",\"job\":{\"id\":\"j3\",\"hosts\":[\"node0001\"]}}");
	CU_ASSERT(ok(r));
	json_object_put(r);
	r = ask(&x, "{\"op\":\"hints.add\",\"job\":{\"id\":\"j4\",\"hosts\":[\"node0003\"]}}");
	CU_ASSERT(ok(r));
	json_object_put(r);
	sweep(&x, f, true, true);
	r = ask(&x, "{\"op\":\"state\"}");
	CU_ASSERT_EQUAL(num(r, "routed_generation"), 3);
	CU_ASSERT_EQUAL(num(r, "jobs_routed"), 2);
	CU_ASSERT_EQUAL(num(r, "routings"), 1);
	CU_ASSERT_STRING_EQUAL(json_object_get_string(
		json_object_object_get(r, "engine")), "fattree");
	CU_ASSERT(json_object_object_get_ex(r, "quality", NULL));
	CU_ASSERT(json_object_object_get_ex(r, "job_model", NULL));
	CU_ASSERT(json_object_object_get(r, "job_model") == NULL);
	json_object_put(r);
	/* OpenSM fell back (import failed, another engine): none of ours */
	ga_hints_sweep_begin(x.h);
	ga_hints_in_switches(x.h, true, "gpuaware");
	r = ask(&x, "{\"op\":\"state\"}");
	CU_ASSERT(json_object_object_get(r, "routed_generation") == NULL);
	CU_ASSERT_EQUAL(num(r, "routings"), 1);
	json_object_put(r);
	/* ours, but an LFT block failed */
	sweep(&x, f, true, false);
	r = ask(&x, "{\"op\":\"state\"}");
	CU_ASSERT(json_object_object_get(r, "routed_generation") == NULL);
	json_object_put(r);
	/* a done event with no sweep begun reports nothing twice */
	sweep(&x, f, true, true);
	ga_hints_in_switches(x.h, true, "gpuaware");
	r = ask(&x, "{\"op\":\"state\"}");
	CU_ASSERT(json_object_object_get(r, "routed_generation") == NULL);
	CU_ASSERT_EQUAL(num(r, "routings"), 2);
	json_object_put(r);
	/* the guard kept the routing without jobs: state says so */
	ga_hints_sweep_begin(x.h);
	hr.generation = 2;
	hr.modelled = true;
	hr.with = (struct rt_model){ 0.5, 0.25, 0.3, 0.2, 0.4, 0.35 };
	hr.without = (struct rt_model){ 0.75, 0.5, 0.3, 0.2, 0.45, 0.4 };
	ga_hints_routed(x.h, &hr);
	ga_hints_in_switches(x.h, true, "gpuaware");
	r = ask(&x, "{\"op\":\"state\"}");
	CU_ASSERT_EQUAL(num(r, "routed_generation"), 2);
	CU_ASSERT_STRING_EQUAL(json_object_get_string(json_object_object_get(
		json_object_object_get(r, "job_model"), "kept")),
		"without jobs");
	CU_ASSERT_DOUBLE_EQUAL(modelled(r, "ring", "with"), 0.5, 1e-9);
	CU_ASSERT_DOUBLE_EQUAL(modelled(r, "ring", "without"), 0.75, 1e-9);
	CU_ASSERT_DOUBLE_EQUAL(modelled(r, "ring_worst", "with"), 0.25, 1e-9);
	CU_ASSERT_DOUBLE_EQUAL(modelled(r, "alltoall", "without"), 0.3, 1e-9);
	CU_ASSERT_DOUBLE_EQUAL(modelled(r, "alltoall_worst", "with"), 0.2,
			       1e-9);
	CU_ASSERT_DOUBLE_EQUAL(modelled(r, "nccl_alltoall", "without"), 0.45,
			       1e-9);
	CU_ASSERT_DOUBLE_EQUAL(modelled(r, "nccl_alltoall_worst", "with"),
			       0.35, 1e-9);
	json_object_put(r);
	stop(&x);
	fab_free(f);
}

/*
 * A reroute's ticket is answered only by a routing begun after the kick
 * it asked for, not by one already under way.
 */
static void test_reroute_ticket(void)
{
	struct fabric *f = tree();
	struct fix x;
	json_object *r;
	int64_t ticket;

	start(&x, 0);
	sweep(&x, f, true, true);
	r = ask(&x, "{\"op\":\"state\"}");
	CU_ASSERT_EQUAL(num(r, "reroutes_routed"), 0);
	json_object_put(r);
	ga_hints_sweep_begin(x.h);	/* a routing under way ... */
	r = ask(&x, "{\"op\":\"reroute\"}");
	ticket = num(r, "reroute");
	CU_ASSERT_EQUAL(ticket, 1);
	json_object_put(r);
	sleep_ms(100);
	CU_ASSERT_EQUAL(atomic_load(&kicks), 1);
	ga_hints_in_switches(x.h, true, "gpuaware");	/* ... lands: not the answer */
	r = ask(&x, "{\"op\":\"state\"}");
	CU_ASSERT(json_object_get_boolean(
		json_object_object_get(r, "reroute_pending")));
	json_object_put(r);
	sweep(&x, f, true, true);		/* the kicked one */
	r = ask(&x, "{\"op\":\"state\"}");
	CU_ASSERT(num(r, "reroutes_routed") >= ticket);
	CU_ASSERT(!json_object_get_boolean(
		json_object_object_get(r, "reroute_pending")));
	json_object_put(r);
	stop(&x);
	fab_free(f);
}

/* A field of the state reply's "refused", NULL when it has none. */
static const char *refused(json_object *r, const char *k)
{
	json_object *x = json_object_object_get(r, "refused");

	return x ? json_object_get_string(json_object_object_get(x, k)) : NULL;
}

/*
 * A sweep the plugin refused: state names the code, the reason, the
 * table generation and the engine OpenSM used instead, until a routing
 * of ours reaches the switches.
 */
static void test_refusal(void)
{
	struct fabric *f = tree();
	struct fix x;
	json_object *r;

	start(&x, 0);
	r = ask(&x, "{\"op\":\"state\"}");
	CU_ASSERT(json_object_object_get_ex(r, "refused", NULL));
	CU_ASSERT(refused(r, "code") == NULL);
	json_object_put(r);
	json_object_put(ask(&x, "{\"op\":\"hints.add\",\"job\":{\"id\":\"j1\",\"hosts\":[\"node0001\"]}}"));
	ga_hints_sweep_begin(x.h);
	ga_hints_refused(x.h, "ERR GA01: engine 'fattree' does not fit this fabric (torus): no levels\n");
	ga_hints_in_switches(x.h, true, "updn");
	r = ask(&x, "{\"op\":\"state\"}");
	CU_ASSERT(json_object_object_get(r, "routed_generation") == NULL);
	CU_ASSERT_STRING_EQUAL(refused(r, "code"), "GA01");
	CU_ASSERT_STRING_EQUAL(refused(r, "message"),
			       "engine 'fattree' does not fit this fabric (torus): no levels");
	CU_ASSERT_STRING_EQUAL(refused(r, "fallback"), "updn");
	CU_ASSERT_STRING_EQUAL(refused(r, "generation"), "1");
	json_object_put(r);
	/* no engine configured the switches: no fallback named */
	ga_hints_sweep_begin(x.h);
	ga_hints_refused(x.h, "ERR GA04: cannot import the subnet: Cannot allocate memory\n");
	ga_hints_in_switches(x.h, false, NULL);
	r = ask(&x, "{\"op\":\"state\"}");
	CU_ASSERT_STRING_EQUAL(refused(r, "code"), "GA04");
	CU_ASSERT(json_object_object_get(json_object_object_get(r, "refused"),
					 "fallback") == NULL);
	json_object_put(r);
	sweep(&x, f, true, true);
	r = ask(&x, "{\"op\":\"state\"}");
	CU_ASSERT_EQUAL(num(r, "routed_generation"), 1);
	CU_ASSERT(refused(r, "code") == NULL);
	json_object_put(r);
	stop(&x);
	fab_free(f);
}

static const char *message(json_object *r)
{
	json_object *e = json_object_object_get(r, "error");

	return e ? json_object_get_string(json_object_object_get(e,
								 "message")) :
		   "";
}

/*
 * Jobs sharing a host, by its name or a port GUID, are accepted; the
 * sweep routes the host with the first job naming it, the second job on
 * its other host, and leaves out (said, not an error) a job whose only
 * host the first holds.
 */
static void test_shared_routed(void)
{
	struct fabric *f = tree();
	char guid[24], line[512];
	struct rt_jobs js;
	uint64_t gen;
	uint32_t n2, n4;
	char err[256];
	struct fix x;
	json_object *r;

	n2 = tu_ca_named(f, "node0002", guid);
	n4 = tu_ca_named(f, "node0004", NULL);
	start(&x, 0);
	sweep(&x, f, true, true);
	snprintf(line, sizeof(line),
		 "{\"op\":\"hints.set\",\"jobs\":[{\"id\":\"j1\",\"hosts\":[\"node0001\",\"node0002\"]},{\"id\":\"j2\",\"hosts\":[\"%s\",\"node0004\"]},{\"id\":\"j3\",\"hosts\":[\"node0002\"]}]}",
		 guid);
	r = ask(&x, line);
	CU_ASSERT(ok(r));
	json_object_put(r);
	r = ask(&x, "{\"op\":\"hints.add\",\"job\":{\"id\":\"j4\",\"hosts\":[\"node0001\",\"nosuch\"]}}");
	CU_ASSERT_STRING_EQUAL(code(r), "unknown_host");
	CU_ASSERT_STRING_EQUAL(message(r), "job 'j4': unknown host 'nosuch'");
	json_object_put(r);
	said[0] = '\0';
	expect_said = true;
	ga_hints_sweep_begin(x.h);
	CU_ASSERT_EQUAL_FATAL(ga_hints_jobs(x.h, f, &js, &gen,
					    err, sizeof(err)), 1);
	expect_said = false;
	CU_ASSERT_EQUAL(gen, 1);
	CU_ASSERT_EQUAL_FATAL(js.njobs, 2);
	CU_ASSERT_STRING_EQUAL(js.job[0].id, "j1");
	CU_ASSERT_STRING_EQUAL(js.job[1].id, "j2");
	CU_ASSERT_EQUAL(js.job[0].hosts, 2);
	CU_ASSERT_EQUAL(js.job[1].hosts, 1);
	CU_ASSERT_EQUAL(js.node_job[n2], 0);
	CU_ASSERT_EQUAL(js.node_job[n4], 1);
	pthread_mutex_lock(&said_lock);
	CU_ASSERT_STRING_EQUAL(said,
			       "job 'j3' has no host of its own: its hosts route with job 'j1'");
	said[0] = '\0';
	pthread_mutex_unlock(&said_lock);
	rt_jobs_release(&js);
	/* the next sweep leaves out the same job: said once is enough */
	expect_said = true;
	CU_ASSERT_EQUAL_FATAL(ga_hints_jobs(x.h, f, &js, &gen,
					    err, sizeof(err)), 1);
	rt_jobs_release(&js);
	pthread_mutex_lock(&said_lock);
	CU_ASSERT_STRING_EQUAL(said, "");
	pthread_mutex_unlock(&said_lock);
	/* another job left out: said again */
	r = ask(&x, "{\"op\":\"hints.add\",\"job\":{\"id\":\"j5\",\"hosts\":[\"node0004\"]}}");
	CU_ASSERT(ok(r));
	json_object_put(r);
	CU_ASSERT_EQUAL_FATAL(ga_hints_jobs(x.h, f, &js, &gen,
					    err, sizeof(err)), 1);
	expect_said = false;
	rt_jobs_release(&js);
	pthread_mutex_lock(&said_lock);
	CU_ASSERT_STRING_EQUAL(said,
			       "job 'j5' has no host of its own: its hosts route with job 'j2'");
	pthread_mutex_unlock(&said_lock);
	stop(&x);
	fab_free(f);
}

/* The jobs of the table now, as "id/owner id/owner ..." ("-": none). */
static void table_of(const struct fix *x, char *buf, size_t len)
{
	json_object *r = ask(x, "{\"op\":\"hints.get\"}"), *jobs, *j, *o;
	size_t i, at = 0;

	jobs = json_object_object_get(r, "jobs");
	buf[0] = '\0';
	for (i = 0; i < json_object_array_length(jobs) && at < len; i++) {
		j = json_object_array_get_idx(jobs, i);
		o = json_object_object_get(j, "owner");
		at += snprintf(buf + at, len - at, "%s%s/%s", i ? " " : "",
			       json_object_get_string(
				       json_object_object_get(j, "id")),
			       o ? json_object_get_string(o) : "-");
	}
	json_object_put(r);
}

/* Poll (up to 5 s) until the table reads want; false if it never does. */
static bool table_becomes(const struct fix *x, const char *want)
{
	char now[256];
	int i;

	for (i = 0; i < 250; i++) {
		table_of(x, now, sizeof(now));
		if (!strcmp(now, want))
			return true;
		sleep_ms(20);
	}
	fprintf(stderr, "\ntable '%s', expected '%s'\n", now, want);
	return false;
}

static void relay_post(struct poold_relay *rl, const char *jobs)
{
	json_object *j = json_tokener_parse(jobs);

	CU_ASSERT_FATAL(j != NULL);
	poold_relay_post(rl, j);
}

/*
 * ibpoold's relay against the real hint socket: it sets its own jobs
 * and leaves those set directly alone; a hints.set without owner that
 * drops them is undone at its next check, the direct jobs kept; a job
 * of its that the plugin refuses is left out, said in its status and to
 * job.start, and the relay's other jobs are set all the same.
 */
/*
 * Issue 24: one host by its name and by its port's GUID.  Before the
 * fabric is known the table takes it, and routing counts the host once;
 * after, such a job is refused.
 */
static void test_name_and_guid(void)
{
	struct fabric *f = tree();
	char guid[24], line[512], want[160];
	struct rt_jobs js;
	uint64_t gen;
	char err[256];
	struct fix x;
	json_object *r;

	tu_ca_named(f, "node0002", guid);
	start(&x, 0);
	snprintf(line, sizeof(line),
		 "{\"op\":\"hints.set\",\"jobs\":[{\"id\":\"j1\",\"hosts\":[\"node0001\",\"node0002\",\"%s\"]}]}",
		 guid);
	r = ask(&x, line);
	CU_ASSERT(ok(r));
	json_object_put(r);
	ga_hints_sweep_begin(x.h);
	CU_ASSERT_EQUAL_FATAL(ga_hints_jobs(x.h, f, &js, &gen, err,
					    sizeof(err)), 1);
	CU_ASSERT_EQUAL_FATAL(js.njobs, 1);
	CU_ASSERT_EQUAL(js.job[0].hosts, 2);
	rt_jobs_release(&js);
	snprintf(line, sizeof(line),
		 "{\"op\":\"hints.add\",\"job\":{\"id\":\"j2\",\"hosts\":[\"%s\",\"node0003\",\"node0002\"]}}",
		 guid);
	r = ask(&x, line);
	CU_ASSERT_STRING_EQUAL(code(r), "bad_request");
	snprintf(want, sizeof(want),
		 "job 'j2': hosts '%s' and 'node0002' are one host, listed twice",
		 guid);
	CU_ASSERT_STRING_EQUAL(message(r), want);
	json_object_put(r);
	stop(&x);
	fab_free(f);
}

static void test_relay_owner(void)
{
	struct poold_relay_status st;
	struct poold_relay *rl;
	char line[256];
	struct fix x;
	json_object *r;
	int i;

	start(&x, 0);
	r = ask(&x, "{\"op\":\"hints.add\",\"job\":{\"id\":\"s1\",\"hosts\":[\"node0001\"],\"owner\":\"slurm\"}}");
	CU_ASSERT(ok(r));
	json_object_put(r);
	CU_ASSERT_FATAL(!poold_relay_start(x.cfg.hints_socket, "ibpoold", NULL,
					   50, &rl));
	relay_post(rl, "[{\"id\":\"p1\",\"hosts\":[\"node0002\",\"node0003\"]}]");
	CU_ASSERT(table_becomes(&x, "s1/slurm p1/ibpoold"));
	/* someone replaces the whole table: the relay puts its job back */
	r = ask(&x, "{\"op\":\"hints.set\",\"jobs\":[{\"id\":\"s1\",\"hosts\":[\"node0001\"]},{\"id\":\"d\",\"hosts\":[\"node0005\"]}]}");
	CU_ASSERT(ok(r));
	json_object_put(r);
	CU_ASSERT(table_becomes(&x, "s1/- d/- p1/ibpoold"));
	relay_post(rl, "[{\"id\":\"p1\",\"hosts\":[\"node0002\"]},{\"id\":\"p2\",\"hosts\":[\"node0004\"]}]");
	CU_ASSERT(table_becomes(&x, "s1/- d/- p1/ibpoold p2/ibpoold"));
	/* a job whose id a direct job holds: refused, that job only */
	relay_post(rl, "[{\"id\":\"p1\",\"hosts\":[\"node0002\"]},{\"id\":\"d\",\"hosts\":[\"node0003\"]},{\"id\":\"p3\",\"hosts\":[\"node0005\"]}]");
	for (i = 0; i < 250; i++) {
		poold_relay_status(rl, &st);
		if (st.refused && st.synced)
			break;
		sleep_ms(20);
	}
	CU_ASSERT(st.up);
	CU_ASSERT(st.synced);
	CU_ASSERT_EQUAL(st.refused, 1);
	CU_ASSERT_STRING_EQUAL(st.refusal, "job 'd' already exists");
	CU_ASSERT_STRING_EQUAL(st.error, "");
	CU_ASSERT(table_becomes(&x, "s1/- d/- p1/ibpoold p3/ibpoold"));
	CU_ASSERT(poold_relay_refused(rl, "d", 1000, line, sizeof(line)));
	CU_ASSERT_STRING_EQUAL(line, "job 'd' already exists");
	CU_ASSERT(!poold_relay_refused(rl, "p3", 1000, line, sizeof(line)));
	/* once the direct job is gone, the next table takes it */
	r = ask(&x, "{\"op\":\"hints.remove\",\"id\":\"d\"}");
	json_object_put(r);
	relay_post(rl, "[{\"id\":\"p1\",\"hosts\":[\"node0002\"]},{\"id\":\"d\",\"hosts\":[\"node0003\"]}]");
	CU_ASSERT(table_becomes(&x, "s1/- p1/ibpoold d/ibpoold"));
	CU_ASSERT(!poold_relay_refused(rl, "d", 1000, line, sizeof(line)));
	poold_relay_status(rl, &st);
	CU_ASSERT_EQUAL(st.refused, 0);
	poold_relay_stop(rl);
	stop(&x);
}

/* n jobs of k hosts each, ids "pI" from I = from, hosts "hI-K". */
static json_object *many_jobs(int from, int n, int k)
{
	json_object *jobs = json_object_new_array(), *j, *hs;
	char name[32];
	int i, h;

	CU_ASSERT_FATAL(jobs != NULL);
	for (i = from; i < from + n; i++) {
		j = json_object_new_object();
		hs = json_object_new_array();
		for (h = 0; h < k; h++) {
			snprintf(name, sizeof(name), "h%d-%d", i, h);
			json_object_array_add(hs, json_object_new_string(name));
		}
		snprintf(name, sizeof(name), "p%d", i);
		json_object_object_add(j, "id", json_object_new_string(name));
		json_object_object_add(j, "hosts", hs);
		CU_ASSERT_FATAL(!json_object_array_add(jobs, j));
	}
	return jobs;
}

/* Jobs in the plugin's table, and of them owner's, and whether id is. */
static int count_jobs(const struct fix *x, const char *owner, int *mine,
		      const char *id)
{
	json_object *r = ask(x, "{\"op\":\"hints.get\"}"), *jobs, *j, *o;
	int n, i, has = 0;

	jobs = json_object_object_get(r, "jobs");
	n = json_object_array_length(jobs);
	*mine = 0;
	for (i = 0; i < n; i++) {
		j = json_object_array_get_idx(jobs, i);
		o = json_object_object_get(j, "owner");
		*mine += o && !strcmp(json_object_get_string(o), owner);
		has |= id && !strcmp(json_object_get_string(
				json_object_object_get(j, "id")), id);
	}
	json_object_put(r);
	return has ? -n : n;
}

/* Poll (up to 10 s) until the relay is in step with total jobs there, mine ours. */
static bool holds(const struct fix *x, struct poold_relay *rl, int total,
		  int mine)
{
	struct poold_relay_status st;
	int i, n = 0, m = 0;

	for (i = 0; i < 500; i++) {
		poold_relay_status(rl, &st);
		n = count_jobs(x, "ibpoold", &m, NULL);
		if (st.synced && n == total && m == mine)
			return true;
		sleep_ms(20);
	}
	fprintf(stderr, "\n%d jobs, %d ours; expected %d, %d (%s)\n", n, m,
		total, mine, st.error);
	return false;
}

/*
 * The relay at scale: 600 jobs of 16 hosts (past the plugin's 64 KiB
 * request line) reach it in chunks, and a job's end as one removal; past
 * the plugin's 4,096 jobs with the other owners' the first are kept and
 * the rest left out, each told to job.start, counted and logged; a
 * table that lost them all is brought back.
 */
static void test_relay_scale(void)
{
	struct poold_relay_status st;
	struct poold_relay *rl;
	char line[256];
	struct fix x;
	json_object *r;
	int mine;

	start(&x, 0);
	CU_ASSERT_FATAL(!poold_relay_start(x.cfg.hints_socket, "ibpoold",
					   NULL, 50, &rl));
	poold_relay_post(rl, many_jobs(0, 600, 16));
	CU_ASSERT(holds(&x, rl, 600, 600));
	poold_relay_post(rl, many_jobs(1, 599, 16));
	CU_ASSERT(holds(&x, rl, 599, 599));
	CU_ASSERT(count_jobs(&x, "ibpoold", &mine, "p0") > 0);
	poold_relay_status(rl, &st);
	CU_ASSERT_EQUAL(st.refused, 0);
	CU_ASSERT_STRING_EQUAL(st.error, "");

	/* 4,100 jobs and another owner's: 4,095 of ours fit */
	r = ask(&x, "{\"op\":\"hints.add\",\"job\":{\"id\":\"s1\",\"hosts\":[\"node0001\"],\"owner\":\"slurm\"}}");
	CU_ASSERT(ok(r));
	json_object_put(r);
	poold_relay_post(rl, many_jobs(0, 4100, 1));
	CU_ASSERT(holds(&x, rl, 4096, 4095));
	poold_relay_status(rl, &st);
	CU_ASSERT(st.up);
	CU_ASSERT_EQUAL(st.refused, 5);
	CU_ASSERT_STRING_EQUAL(st.refusal, "job 'p4095': the table is full (4096 jobs)");
	CU_ASSERT_STRING_EQUAL(st.error, "");
	CU_ASSERT(poold_relay_refused(rl, "p4099", 1000, line, sizeof(line)));
	CU_ASSERT_STRING_EQUAL(line, "job 'p4099': the table is full (4096 jobs)");
	CU_ASSERT(!poold_relay_refused(rl, "p4094", 1000, line, sizeof(line)));
	/* a job ends: the next one left out takes its place */
	poold_relay_post(rl, many_jobs(1, 4099, 1));
	CU_ASSERT(holds(&x, rl, 4096, 4095));
	CU_ASSERT(count_jobs(&x, "ibpoold", &mine, "p4095") < 0);
	CU_ASSERT(!poold_relay_refused(rl, "p4095", 1000, line, sizeof(line)));
	poold_relay_status(rl, &st);
	CU_ASSERT_EQUAL(st.refused, 4);
	/* the plugin lost its table (a restart without state): all back */
	r = ask(&x, "{\"op\":\"hints.set\",\"jobs\":[]}");
	CU_ASSERT(ok(r));
	json_object_put(r);
	CU_ASSERT(holds(&x, rl, 4096, 4096));
	poold_relay_status(rl, &st);
	CU_ASSERT_EQUAL(st.refused, 3);
	poold_relay_stop(rl);
	stop(&x);
}

/* rl (or, NULL, every relay of fo) up and in step within 5 s. */
static bool synced(struct poold_fanout *fo, struct poold_relay *rl)
{
	struct poold_relay_status st;
	int i;

	for (i = 0; i < 250; i++) {
		if (rl)
			poold_relay_status(rl, &st);
		else
			poold_fanout_status(fo, &st);
		if (st.up && st.synced)
			return true;
		sleep_ms(20);
	}
	return false;
}

/*
 * ibpoold's relay to a master and its standby: both tables get the
 * pool's jobs, one that loses them gets them back, one that goes away
 * is said down with its endpoint while the other stays in step; state
 * says the SM's state.
 */
static void test_fanout(void)
{
	struct poold_relay_status st;
	struct poold_fanout *fo;
	const char *sms[2];
	struct fix a, b;
	json_object *r;
	int i;

	start(&a, 0);
	start(&b, 0);
	r = ask(&b, "{\"op\":\"state\"}");
	CU_ASSERT_STRING_EQUAL(json_object_get_string(
		json_object_object_get(r, "sm_state")), "standby");
	json_object_put(r);
	sms[0] = a.cfg.hints_socket;
	sms[1] = b.cfg.hints_socket;
	CU_ASSERT_FATAL(!poold_fanout_start(sms, 2, "ibpoold", NULL, 50, &fo));
	CU_ASSERT_EQUAL(poold_fanout_count(fo), 2);
	CU_ASSERT_STRING_EQUAL(poold_fanout_endpoint(fo, 1), sms[1]);
	poold_fanout_post(fo, json_tokener_parse("[{\"id\":\"p1\",\"hosts\":[\"node0002\"]}]"));
	CU_ASSERT(table_becomes(&a, "p1/ibpoold"));
	CU_ASSERT(table_becomes(&b, "p1/ibpoold"));
	r = ask(&b, "{\"op\":\"hints.set\",\"jobs\":[]}");
	json_object_put(r);
	CU_ASSERT(table_becomes(&b, "p1/ibpoold"));
	ga_hints_stop(b.h);
	b.h = NULL;
	poold_fanout_post(fo, json_tokener_parse("[{\"id\":\"p2\",\"hosts\":[\"node0003\"]}]"));
	CU_ASSERT(table_becomes(&a, "p2/ibpoold"));
	for (i = 0; i < 250; i++) {
		poold_fanout_status(fo, &st);
		if (!st.up && st.error[0])
			break;
		sleep_ms(20);
	}
	CU_ASSERT(!st.up && !st.synced);
	CU_ASSERT_EQUAL(strncmp(st.error, sms[1], strlen(sms[1])), 0);
	/* a's table may hold p2 a moment before its relay reads the reply */
	CU_ASSERT(synced(fo, poold_fanout_relay(fo, 0)));
	poold_fanout_stop(fo);
	stop(&a);
	stop(&b);
}

/*
 * The relays of a fanout run on their own threads: tables posted one
 * after another while both serialise the last must not share json-c
 * objects between them (its reference counts are not atomic).
 */
static void test_fanout_threads(void)
{
	struct poold_fanout *fo;
	const char *sms[2];
	json_object *jobs, *j;
	char line[64];
	struct fix a, b;
	int i, k;

	start(&a, 0);
	start(&b, 0);
	sms[0] = a.cfg.hints_socket;
	sms[1] = b.cfg.hints_socket;
	CU_ASSERT_FATAL(!poold_fanout_start(sms, 2, "ibpoold", NULL, 5, &fo));
	for (k = 0; k < 50; k++) {
		jobs = json_object_new_array();
		CU_ASSERT_FATAL(jobs != NULL);
		for (i = 0; i < 2000; i++) {
			snprintf(line, sizeof(line),
				 "{\"id\":\"t%d-%d\",\"hosts\":[\"h%d\"]}",
				 k, i, i);
			j = json_tokener_parse(line);
			CU_ASSERT_FATAL(j && !json_object_array_add(jobs, j));
		}
		CU_ASSERT(!poold_fanout_post(fo, jobs));
		sleep_ms(1 + k % 2);
	}
	CU_ASSERT(!poold_fanout_post(fo, json_tokener_parse("[{\"id\":\"end\",\"hosts\":[\"h1\"]}]")));
	CU_ASSERT(table_becomes(&a, "end/ibpoold"));
	CU_ASSERT(table_becomes(&b, "end/ibpoold"));
	CU_ASSERT(synced(fo, NULL));
	poold_fanout_stop(fo);
	stop(&a);
	stop(&b);
}

/* The table outlives the socket: a new start reloads it. */
static void test_kept(void)
{
	const struct ga_hints_ops ops = { kick, quiet, NULL, NULL };
	struct ga_hints *h2;
	char err[256];
	struct fix x;
	json_object *r;

	start(&x, 0);
	r = ask(&x, "{\"op\":\"hints.add\",\"job\":{\"id\":\"keep\",\"hosts\":[\"h1\"],\"weight\":3}}");
	CU_ASSERT(ok(r));
	json_object_put(r);
	ga_hints_stop(x.h);
	CU_ASSERT_FATAL(!ga_hints_start(&x.cfg, &ops, &h2, err, sizeof(err)));
	x.h = h2;
	r = ask(&x, "{\"op\":\"hints.get\"}");
	CU_ASSERT_EQUAL(num(r, "generation"), 1);
	CU_ASSERT_EQUAL(json_object_array_length(
		json_object_object_get(r, "jobs")), 1);
	json_object_put(r);
	stop(&x);
}

/* A change that cannot be saved is refused, and OpenSM's log says why. */
static void test_save_fails(void)
{
	char path[sizeof(((struct ga_cfg *)0)->hints_dir) + 16];
	struct fix x;
	json_object *r;

	start(&x, 0);
	/* a directory where the table goes: the rename over it fails */
	snprintf(path, sizeof(path), "%s/hints.json", x.cfg.hints_dir);
	CU_ASSERT_FATAL(mkdir(path, 0700) == 0);
	pthread_mutex_lock(&said_lock);
	said[0] = '\0';
	expect_said = true;
	pthread_mutex_unlock(&said_lock);
	r = ask(&x, "{\"op\":\"hints.add\",\"job\":{\"id\":\"j\",\"hosts\":[\"h1\"]}}");
	CU_ASSERT_STRING_EQUAL(code(r), "internal");
	json_object_put(r);
	pthread_mutex_lock(&said_lock);
	expect_said = false;
	CU_ASSERT_PTR_NOT_NULL(strstr(said, "ERR GA35: hints.add refused: "));
	CU_ASSERT_PTR_NOT_NULL(strstr(said, "hints.json: rename: Is a directory"));
	pthread_mutex_unlock(&said_lock);
	CU_ASSERT(rmdir(path) == 0);
	stop(&x);
}

TU_SUITE(gahints,
	 { "socket and state", test_socket_and_state },
	 { "reroutes coalesced", test_coalesced },
	 { "routed generation", test_routed_generation },
	 { "reroute ticket", test_reroute_ticket },
	 { "a refusal in state", test_refusal },
	 { "table kept", test_kept },
	 { "a failed save in the log", test_save_fails },
	 { "jobs sharing a host are routed", test_shared_routed },
	 { "the relay at scale: chunks, the bound, a lost table", test_relay_scale },
	 { "one host by name and by GUID", test_name_and_guid },
	 { "the relay keeps to its own jobs", test_relay_owner },
	 { "the relay feeds every SM", test_fanout },
	 { "the relays share no json-c object", test_fanout_threads })
