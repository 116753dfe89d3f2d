// SPDX-License-Identifier: MIT
/* Job-hint table tests: every refusal leaves the table as it was; snapshots; files. */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "tu.h"
#include "sm/hints.h"

typedef int (*change_fn)(struct sm_hints *h, json_object *req, uint64_t *gen,
			 struct sm_error *e);

/*
 * Hosts whose name starts with "x" are not in the fabric; "dupN" and
 * port GUID 0xdN are one host, id N; the others are taken.
 */
static long host_id(void *ctx, const char *host)
{
	(void)ctx;
	if (host[0] == 'x')
		return SM_HOST_UNKNOWN;
	if (!strncmp(host, "dup", 3))
		return strtol(host + 3, NULL, 10);
	if (!strncmp(host, "0x00000000000000d", 17))
		return strtol(host + 17, NULL, 16);
	return SM_HOST_ANY;
}

static struct sm_hints *new_table(const char *dir)
{
	struct sm_hints *h = NULL;

	CU_ASSERT_FATAL(sm_hints_new(dir, host_id, NULL, &h) == 0);
	return h;
}

/* The table as get shows it: jobs and generation; the caller frees. */
static char *dump(struct sm_hints *h)
{
	json_object *o = json_object_new_object();
	char *s;

	CU_ASSERT_FATAL(sm_hints_get(h, o) == 0);
	s = strdup(json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN));
	json_object_put(o);
	return s;
}

/* The table as hints.get gives it is want. */
static void expect_table(struct sm_hints *h, const char *want)
{
	char *s = dump(h);

	CU_ASSERT_STRING_EQUAL(s, want);
	free(s);
}

static int run(struct sm_hints *h, change_fn fn, const char *text,
	       struct sm_error *e)
{
	json_object *req = json_tokener_parse(text);
	uint64_t gen = 0;
	int ret;

	CU_ASSERT_FATAL(req != NULL);
	ret = fn(h, req, &gen, e);
	json_object_put(req);
	return ret;
}

static void ok(struct sm_hints *h, change_fn fn, const char *text)
{
	struct sm_error e;

	if (run(h, fn, text, &e)) {
		fprintf(stderr, "\n%s -> %s\n", text, e.msg);
		CU_FAIL("refused");
	}
}

static void refused(struct sm_hints *h, change_fn fn, const char *text,
		    enum sm_err code, const char *msg)
{
	char *before = dump(h), *after;
	struct sm_error e;
	int ret;

	ret = run(h, fn, text, &e);
	CU_ASSERT(ret < 0);
	after = dump(h);
	CU_ASSERT_STRING_EQUAL(before, after);
	if (ret >= 0 || e.code != code || strcmp(e.msg, msg)) {
		fprintf(stderr, "\n%s -> %d %s '%s', expected %s '%s'\n", text,
			ret, sm_err_code(e.code), ret < 0 ? e.msg : "",
			sm_err_code(code), msg);
		CU_FAIL("refusal");
	}
	free(before);
	free(after);
}

static const char table[] =
	"{\"jobs\":[{\"id\":\"j1\",\"hosts\":[\"gpu1\",\"0xABC\"],\"weight\":5},"
	"{\"id\":\"train.7:a-b_c\",\"hosts\":[\"gpu2 mlx5_0\"]}]}";

static void test_set_get(void)
{
	struct sm_hints *h = new_table(NULL);

	expect_table(h, "{\"generation\":0,\"jobs\":[]}");
	ok(h, sm_hints_set, table);
	expect_table(h, "{\"generation\":1,\"jobs\":["
		     "{\"id\":\"j1\",\"hosts\":[\"gpu1\",\"0x0000000000000abc\"],\"weight\":5},"
		     "{\"id\":\"train.7:a-b_c\",\"hosts\":[\"gpu2 mlx5_0\"],\"weight\":1}]}");
	sm_hints_free(h);
}

static void test_set_refusals(void)
{
	struct sm_hints *h = new_table(NULL);
	char many[64 * 4100], *p = many;
	char id65[80];
	int i;

	ok(h, sm_hints_set, table);
	refused(h, sm_hints_set, "{}", SM_ERR_BAD_REQUEST,
		"missing field 'jobs'");
	refused(h, sm_hints_set, "{\"jobs\":{}}", SM_ERR_BAD_REQUEST,
		"field 'jobs' must be an array");
	refused(h, sm_hints_set, "{\"jobs\":[],\"job\":1}", SM_ERR_BAD_REQUEST,
		"unknown field 'job'");
	refused(h, sm_hints_set, "{\"jobs\":[{\"id\":\"a\",\"hosts\":[\"h\"]},3]}",
		SM_ERR_BAD_REQUEST, "jobs[1] must be an object");
	refused(h, sm_hints_set, "{\"jobs\":[{\"hosts\":[\"h\"]}]}",
		SM_ERR_BAD_REQUEST, "jobs[0]: missing field 'id'");
	refused(h, sm_hints_set, "{\"jobs\":[{\"id\":7,\"hosts\":[\"h\"]}]}",
		SM_ERR_BAD_REQUEST, "jobs[0]: field 'id' must be a string");
	refused(h, sm_hints_set, "{\"jobs\":[{\"id\":\"a b\",\"hosts\":[\"h\"]}]}",
		SM_ERR_BAD_REQUEST,
		"jobs[0]: field 'id' must be 1..64 characters of A-Z a-z 0-9 . _ : -");
	refused(h, sm_hints_set, "{\"jobs\":[{\"id\":\"\",\"hosts\":[\"h\"]}]}",
		SM_ERR_BAD_REQUEST,
		"jobs[0]: field 'id' must be 1..64 characters of A-Z a-z 0-9 . _ : -");
	memset(id65, 'a', 65);
	id65[65] = '\0';
	snprintf(many, sizeof(many), "{\"jobs\":[{\"id\":\"%s\",\"hosts\":[\"h\"]}]}",
		 id65);
	refused(h, sm_hints_set, many, SM_ERR_BAD_REQUEST,
		"jobs[0]: field 'id' must be 1..64 characters of A-Z a-z 0-9 . _ : -");
	refused(h, sm_hints_set, "{\"jobs\":[{\"id\":\"a\",\"hosts\":[\"h\"],\"weigth\":2}]}",
		SM_ERR_BAD_REQUEST, "job 'a': unknown field 'weigth'");
	refused(h, sm_hints_set, "{\"jobs\":[{\"id\":\"a\"}]}",
		SM_ERR_BAD_REQUEST, "job 'a': missing field 'hosts'");
	refused(h, sm_hints_set, "{\"jobs\":[{\"id\":\"a\",\"hosts\":\"h\"}]}",
		SM_ERR_BAD_REQUEST, "job 'a': field 'hosts' must be an array");
	refused(h, sm_hints_set, "{\"jobs\":[{\"id\":\"a\",\"hosts\":[]}]}",
		SM_ERR_BAD_REQUEST, "job 'a': field 'hosts' must not be empty");
	refused(h, sm_hints_set, "{\"jobs\":[{\"id\":\"a\",\"hosts\":[\"h\",1]}]}",
		SM_ERR_BAD_REQUEST, "job 'a': hosts[1] must be a string");
	refused(h, sm_hints_set, "{\"jobs\":[{\"id\":\"a\",\"hosts\":[\"\"]}]}",
		SM_ERR_BAD_REQUEST,
		"job 'a': host '' must be 1..64 bytes without control characters");
	refused(h, sm_hints_set, "{\"jobs\":[{\"id\":\"a\",\"hosts\":[\"h\\tx\"]}]}",
		SM_ERR_BAD_REQUEST,
		"job 'a': host 'h\tx' must be 1..64 bytes without control characters");
	snprintf(many, sizeof(many), "{\"jobs\":[{\"id\":\"a\",\"hosts\":[\"%s\"]}]}",
		 id65);
	refused(h, sm_hints_set, many, SM_ERR_BAD_REQUEST,
		"job 'a': host 'aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa' must be 1..64 bytes without control characters");
	refused(h, sm_hints_set, "{\"jobs\":[{\"id\":\"a\",\"hosts\":[\"0xZZ\"]}]}",
		SM_ERR_BAD_REQUEST,
		"job 'a': host '0xZZ' is not a port GUID (0x and 1..16 hex digits)");
	refused(h, sm_hints_set, "{\"jobs\":[{\"id\":\"a\",\"hosts\":[\"0x\"]}]}",
		SM_ERR_BAD_REQUEST,
		"job 'a': host '0x' is not a port GUID (0x and 1..16 hex digits)");
	refused(h, sm_hints_set, "{\"jobs\":[{\"id\":\"a\",\"hosts\":[\"0x00000000000000001\"]}]}",
		SM_ERR_BAD_REQUEST,
		"job 'a': host '0x00000000000000001' is not a port GUID (0x and 1..16 hex digits)");
	refused(h, sm_hints_set, "{\"jobs\":[{\"id\":\"a\",\"hosts\":[\"h1\",\"h2\",\"h1\"]}]}",
		SM_ERR_BAD_REQUEST, "job 'a': host 'h1' listed twice");
	refused(h, sm_hints_set, "{\"jobs\":[{\"id\":\"a\",\"hosts\":[\"0xA\",\"0X000a\"]}]}",
		SM_ERR_BAD_REQUEST,
		"job 'a': host '0x000000000000000a' listed twice");
	/* issue 24: one host by its name and by its port's GUID */
	refused(h, sm_hints_set, "{\"jobs\":[{\"id\":\"a\",\"hosts\":[\"dup1\",\"dup2\",\"0xD1\"]}]}",
		SM_ERR_BAD_REQUEST,
		"job 'a': hosts 'dup1' and '0x00000000000000d1' are one host, listed twice");
	refused(h, sm_hints_set, "{\"jobs\":[{\"id\":\"a\",\"hosts\":[\"h\"],\"weight\":0}]}",
		SM_ERR_BAD_REQUEST,
		"job 'a': field 'weight' must be an integer 1..1000");
	refused(h, sm_hints_set, "{\"jobs\":[{\"id\":\"a\",\"hosts\":[\"h\"],\"weight\":1001}]}",
		SM_ERR_BAD_REQUEST,
		"job 'a': field 'weight' must be an integer 1..1000");
	refused(h, sm_hints_set, "{\"jobs\":[{\"id\":\"a\",\"hosts\":[\"h\"],\"weight\":2.5}]}",
		SM_ERR_BAD_REQUEST,
		"job 'a': field 'weight' must be an integer 1..1000");
	refused(h, sm_hints_set, "{\"jobs\":[{\"id\":\"a\",\"hosts\":[\"h\"],\"weight\":\"2\"}]}",
		SM_ERR_BAD_REQUEST,
		"job 'a': field 'weight' must be an integer 1..1000");
	refused(h, sm_hints_set, "{\"jobs\":[{\"id\":\"a\",\"hosts\":[\"h\"]},"
		"{\"id\":\"b\",\"hosts\":[\"gpu1\",\"xgpu9\"]}]}",
		SM_ERR_UNKNOWN_HOST, "job 'b': unknown host 'xgpu9'");
	refused(h, sm_hints_set, "{\"jobs\":[{\"id\":\"a\",\"hosts\":[\"h\"]},"
		"{\"id\":\"b\",\"hosts\":[\"h\"]},{\"id\":\"a\",\"hosts\":[\"g\"]}]}",
		SM_ERR_DUPLICATE_ID, "job 'a' listed twice");
	p += sprintf(p, "{\"jobs\":[");
	for (i = 0; i <= SM_HINTS_MAX_JOBS; i++)
		p += sprintf(p, "%s{\"id\":\"j%d\",\"hosts\":[\"h\"]}",
			     i ? "," : "", i);
	sprintf(p, "]}");
	refused(h, sm_hints_set, many, SM_ERR_BAD_REQUEST, "4097 jobs, at most 4096");
	sm_hints_free(h);
}

static void test_add_remove(void)
{
	struct sm_hints *h = new_table(NULL);

	ok(h, sm_hints_set, table);
	ok(h, sm_hints_add, "{\"op\":\"hints.add\",\"job\":{\"id\":\"j3\",\"hosts\":[\"gpu3\"],\"weight\":1000}}");
	refused(h, sm_hints_add, "{}", SM_ERR_BAD_REQUEST, "missing field 'job'");
	refused(h, sm_hints_add, "{\"job\":[]}", SM_ERR_BAD_REQUEST,
		"field 'job' must be an object");
	refused(h, sm_hints_add, "{\"job\":{\"id\":\"j4\",\"hosts\":[\"h\"]},\"x\":1}",
		SM_ERR_BAD_REQUEST, "unknown field 'x'");
	refused(h, sm_hints_add, "{\"job\":{\"hosts\":[\"h\"]}}",
		SM_ERR_BAD_REQUEST, "job: missing field 'id'");
	refused(h, sm_hints_add, "{\"job\":{\"id\":\"j1\",\"hosts\":[\"h\"]}}",
		SM_ERR_DUPLICATE_ID, "job 'j1' already exists");
	refused(h, sm_hints_add, "{\"job\":{\"id\":\"j4\",\"hosts\":[\"xh\"]}}",
		SM_ERR_UNKNOWN_HOST, "job 'j4': unknown host 'xh'");
	refused(h, sm_hints_add, "{\"job\":{\"id\":\"j4\",\"hosts\":[\"h\",\"h\"]}}",
		SM_ERR_BAD_REQUEST, "job 'j4': host 'h' listed twice");
	ok(h, sm_hints_remove, "{\"op\":\"hints.remove\",\"id\":\"j1\"}");
	refused(h, sm_hints_remove, "{\"id\":\"j1\"}", SM_ERR_NOT_FOUND,
		"no job 'j1'");
	refused(h, sm_hints_remove, "{}", SM_ERR_BAD_REQUEST,
		"missing field 'id'");
	refused(h, sm_hints_remove, "{\"id\":[]}", SM_ERR_BAD_REQUEST,
		"field 'id' must be a string");
	refused(h, sm_hints_remove, "{\"id\":\"j3\",\"ids\":[]}",
		SM_ERR_BAD_REQUEST, "give field 'id' or 'ids', one of them");
	expect_table(h, "{\"generation\":3,\"jobs\":["
		     "{\"id\":\"train.7:a-b_c\",\"hosts\":[\"gpu2 mlx5_0\"],\"weight\":1},"
		     "{\"id\":\"j3\",\"hosts\":[\"gpu3\"],\"weight\":1000}]}");
	sm_hints_free(h);
}

static void test_table_full(void)
{
	struct sm_hints *h = new_table(NULL);
	json_object *req, *jobs, *job;
	struct sm_error e;
	char id[16];
	int i;

	req = json_object_new_object();
	jobs = json_object_new_array();
	json_object_object_add(req, "jobs", jobs);
	for (i = 0; i < SM_HINTS_MAX_JOBS; i++) {
		job = json_tokener_parse("{\"hosts\":[]}");
		snprintf(id, sizeof(id), "j%d", i);
		json_object_object_add(job, "id", json_object_new_string(id));
		snprintf(id, sizeof(id), "h%d", i);
		json_object_array_add(json_object_object_get(job, "hosts"),
				      json_object_new_string(id));
		json_object_array_add(jobs, job);
	}
	CU_ASSERT_EQUAL(sm_hints_set(h, req, NULL, &e), 0);
	json_object_put(req);
	refused(h, sm_hints_add, "{\"job\":{\"id\":\"one-more\",\"hosts\":[\"hx\"]}}",
		SM_ERR_BAD_REQUEST, "job 'one-more': the table is full (4096 jobs)");
	sm_hints_free(h);
}

/*
 * Jobs share hosts (cons_tres puts several jobs on a node): a host in
 * two jobs, by name or GUID, is taken by set, add and owners' sets, and
 * the only job dropped is the one that is wrong.
 */
static void test_shared_host(void)
{
	struct sm_hints *h = new_table(NULL);

	ok(h, sm_hints_set,
	   "{\"jobs\":[{\"id\":\"a\",\"hosts\":[\"g1\",\"g2\"]},{\"id\":\"b\",\"hosts\":[\"g3\",\"g2\"]}]}");
	ok(h, sm_hints_add, "{\"job\":{\"id\":\"c\",\"hosts\":[\"g1\",\"0xA\"]}}");
	ok(h, sm_hints_add,
	   "{\"job\":{\"id\":\"d\",\"hosts\":[\"0x000000000000000a\"]}}");
	ok(h, sm_hints_set,
	   "{\"owner\":\"slurm\",\"jobs\":[{\"id\":\"s1\",\"hosts\":[\"g2\"]},{\"id\":\"s2\",\"hosts\":[\"g2\",\"g3\"]}]}");
	refused(h, sm_hints_add, "{\"job\":{\"id\":\"e\",\"hosts\":[\"g1\",\"xg\"]}}",
		SM_ERR_UNKNOWN_HOST, "job 'e': unknown host 'xg'");
	expect_table(h, "{\"generation\":4,\"jobs\":["
		     "{\"id\":\"a\",\"hosts\":[\"g1\",\"g2\"],\"weight\":1},"
		     "{\"id\":\"b\",\"hosts\":[\"g3\",\"g2\"],\"weight\":1},"
		     "{\"id\":\"c\",\"hosts\":[\"g1\",\"0x000000000000000a\"],\"weight\":1},"
		     "{\"id\":\"d\",\"hosts\":[\"0x000000000000000a\"],\"weight\":1},"
		     "{\"id\":\"s1\",\"hosts\":[\"g2\"],\"weight\":1,\"owner\":\"slurm\"},"
		     "{\"id\":\"s2\",\"hosts\":[\"g2\",\"g3\"],\"weight\":1,\"owner\":\"slurm\"}]}");
	sm_hints_free(h);
}

/*
 * Owners: a set with an owner replaces that owner's jobs only and
 * refuses to touch the others'; a set without one replaces everything.
 */
static void test_owners(void)
{
	struct sm_hints *h = new_table(NULL);

	ok(h, sm_hints_add, "{\"job\":{\"id\":\"m\",\"hosts\":[\"g9\"]}}");
	ok(h, sm_hints_set, "{\"owner\":\"slurm\",\"jobs\":[{\"id\":\"s1\",\"hosts\":[\"g1\"]}]}");
	ok(h, sm_hints_set, "{\"owner\":\"ibpoold\",\"jobs\":[{\"id\":\"p1\",\"hosts\":[\"g2\"],\"owner\":\"ibpoold\"}]}");
	expect_table(h, "{\"generation\":3,\"jobs\":["
		     "{\"id\":\"m\",\"hosts\":[\"g9\"],\"weight\":1},"
		     "{\"id\":\"s1\",\"hosts\":[\"g1\"],\"weight\":1,\"owner\":\"slurm\"},"
		     "{\"id\":\"p1\",\"hosts\":[\"g2\"],\"weight\":1,\"owner\":\"ibpoold\"}]}");
	/* the relay re-syncs its own jobs: slurm's and m stay */
	ok(h, sm_hints_set, "{\"op\":\"hints.set\",\"owner\":\"ibpoold\",\"jobs\":[{\"id\":\"p2\",\"hosts\":[\"g2\",\"g3\"],\"weight\":2},{\"id\":\"p1\",\"hosts\":[\"g4\"]}]}");
	expect_table(h, "{\"generation\":4,\"jobs\":["
		     "{\"id\":\"m\",\"hosts\":[\"g9\"],\"weight\":1},"
		     "{\"id\":\"s1\",\"hosts\":[\"g1\"],\"weight\":1,\"owner\":\"slurm\"},"
		     "{\"id\":\"p2\",\"hosts\":[\"g2\",\"g3\"],\"weight\":2,\"owner\":\"ibpoold\"},"
		     "{\"id\":\"p1\",\"hosts\":[\"g4\"],\"weight\":1,\"owner\":\"ibpoold\"}]}");
	refused(h, sm_hints_set, "{\"owner\":\"ibpoold\",\"jobs\":[{\"id\":\"s1\",\"hosts\":[\"g5\"]}]}",
		SM_ERR_DUPLICATE_ID, "job 's1' (owner slurm) already exists");
	refused(h, sm_hints_set, "{\"owner\":\"ibpoold\",\"jobs\":[{\"id\":\"m\",\"hosts\":[\"g5\"]}]}",
		SM_ERR_DUPLICATE_ID, "job 'm' already exists");
	refused(h, sm_hints_set, "{\"owner\":\"ibpoold\",\"jobs\":[{\"id\":\"q\",\"hosts\":[\"g5\"],\"owner\":\"slurm\"}]}",
		SM_ERR_BAD_REQUEST, "job 'q': owner 'slurm' in a set of owner 'ibpoold'");
	refused(h, sm_hints_set, "{\"owner\":\"\",\"jobs\":[]}", SM_ERR_BAD_REQUEST,
		"field 'owner' must be 1..64 characters of A-Z a-z 0-9 . _ : -");
	refused(h, sm_hints_set, "{\"owner\":7,\"jobs\":[]}", SM_ERR_BAD_REQUEST,
		"field 'owner' must be a string");
	refused(h, sm_hints_add, "{\"job\":{\"id\":\"p1\",\"hosts\":[\"g7\"]}}",
		SM_ERR_DUPLICATE_ID, "job 'p1' (owner ibpoold) already exists");
	refused(h, sm_hints_add, "{\"job\":{\"id\":\"q\",\"hosts\":[\"g7\"],\"owner\":\"a b\"}}",
		SM_ERR_BAD_REQUEST,
		"job 'q': field 'owner' must be 1..64 characters of A-Z a-z 0-9 . _ : -");
	ok(h, sm_hints_add, "{\"job\":{\"id\":\"s2\",\"hosts\":[\"g7\"],\"owner\":\"slurm\"}}");
	/* a remove with an owner takes that owner's jobs only */
	refused(h, sm_hints_remove, "{\"id\":\"s2\",\"owner\":\"ibpoold\"}",
		SM_ERR_FORBIDDEN, "job 's2' is owner slurm's, not owner ibpoold's");
	refused(h, sm_hints_remove, "{\"id\":\"m\",\"owner\":\"ibpoold\"}",
		SM_ERR_FORBIDDEN, "job 'm' is without owner, not owner ibpoold's");
	refused(h, sm_hints_remove, "{\"id\":\"m\",\"owner\":\"a b\"}",
		SM_ERR_BAD_REQUEST,
		"field 'owner' must be 1..64 characters of A-Z a-z 0-9 . _ : -");
	ok(h, sm_hints_remove, "{\"id\":\"s2\",\"owner\":\"slurm\"}");
	ok(h, sm_hints_add, "{\"job\":{\"id\":\"s2\",\"hosts\":[\"g7\"],\"owner\":\"slurm\"}}");
	/* an owner with no jobs left: its set of none removes its jobs */
	ok(h, sm_hints_set, "{\"owner\":\"slurm\",\"jobs\":[]}");
	expect_table(h, "{\"generation\":8,\"jobs\":["
		     "{\"id\":\"m\",\"hosts\":[\"g9\"],\"weight\":1},"
		     "{\"id\":\"p2\",\"hosts\":[\"g2\",\"g3\"],\"weight\":2,\"owner\":\"ibpoold\"},"
		     "{\"id\":\"p1\",\"hosts\":[\"g4\"],\"weight\":1,\"owner\":\"ibpoold\"}]}");
	/* without an owner: the whole table, owners as the jobs give them */
	ok(h, sm_hints_set, "{\"jobs\":[{\"id\":\"p1\",\"hosts\":[\"g4\"],\"owner\":\"ibpoold\"},{\"id\":\"z\",\"hosts\":[\"g2\"]}]}");
	expect_table(h, "{\"generation\":9,\"jobs\":["
		     "{\"id\":\"p1\",\"hosts\":[\"g4\"],\"weight\":1,\"owner\":\"ibpoold\"},"
		     "{\"id\":\"z\",\"hosts\":[\"g2\"],\"weight\":1}]}");
	sm_hints_free(h);
}

/* {"jobs":[...]} of n jobs "jI" on host "hI"; the caller frees it. */
static char *many_jobs(int n)
{
	char *req = malloc(64 * (n + 1)), *p = req;
	int i;

	CU_ASSERT_FATAL(req != NULL);
	p += sprintf(p, "{\"jobs\":[");
	for (i = 0; i < n; i++)
		p += sprintf(p, "%s{\"id\":\"j%d\",\"hosts\":[\"h%d\"]}",
			     i ? "," : "", i, i);
	sprintf(p, "]}");
	return req;
}

/* An owner's set may not grow the table past its bound with the others'. */
static void test_owner_full(void)
{
	struct sm_hints *h = new_table(NULL);
	char *req = many_jobs(SM_HINTS_MAX_JOBS - 1);

	ok(h, sm_hints_set, req);
	ok(h, sm_hints_set, "{\"owner\":\"o\",\"jobs\":[{\"id\":\"a\",\"hosts\":[\"k1\"]}]}");
	refused(h, sm_hints_set, "{\"owner\":\"o\",\"jobs\":[{\"id\":\"a\",\"hosts\":[\"y1\"]},{\"id\":\"b\",\"hosts\":[\"y2\"]}]}",
		SM_ERR_BAD_REQUEST, "2 jobs and the others' 4095, at most 4096");
	free(req);
	sm_hints_free(h);
}

/*
 * Many jobs in one add or remove (the relay's deltas): all or nothing,
 * an owner's jobs only, the first job past the bound named.
 */
static void test_batch(void)
{
	struct sm_hints *h = new_table(NULL);
	char *req;

	ok(h, sm_hints_add, "{\"job\":{\"id\":\"s1\",\"hosts\":[\"g1\"],\"owner\":\"slurm\"}}");
	ok(h, sm_hints_add, "{\"op\":\"hints.add\",\"owner\":\"ibpoold\",\"jobs\":[{\"id\":\"p1\",\"hosts\":[\"g1\",\"g2\"]},{\"id\":\"p2\",\"hosts\":[\"g3\"],\"weight\":3}]}");
	refused(h, sm_hints_add, "{\"owner\":\"ibpoold\",\"jobs\":[{\"id\":\"p3\",\"hosts\":[\"g4\"]},{\"id\":\"p4\",\"hosts\":[\"xg\"]}]}",
		SM_ERR_UNKNOWN_HOST, "job 'p4': unknown host 'xg'");
	refused(h, sm_hints_add, "{\"owner\":\"ibpoold\",\"jobs\":[{\"id\":\"p3\",\"hosts\":[\"g4\"]},{\"id\":\"s1\",\"hosts\":[\"g5\"]}]}",
		SM_ERR_DUPLICATE_ID, "job 's1' (owner slurm) already exists");
	refused(h, sm_hints_add, "{\"owner\":\"ibpoold\",\"jobs\":[{\"id\":\"p3\",\"hosts\":[\"g4\"]},{\"id\":\"p3\",\"hosts\":[\"g5\"]}]}",
		SM_ERR_DUPLICATE_ID, "job 'p3' listed twice");
	refused(h, sm_hints_add, "{\"jobs\":[]}", SM_ERR_BAD_REQUEST,
		"field 'jobs' must not be empty");
	refused(h, sm_hints_add, "{\"job\":{\"id\":\"p3\",\"hosts\":[\"g4\"]},\"jobs\":[]}",
		SM_ERR_BAD_REQUEST, "give field 'job' or 'jobs', one of them");
	refused(h, sm_hints_remove, "{\"owner\":\"ibpoold\",\"ids\":[\"p1\",\"s1\"]}",
		SM_ERR_FORBIDDEN, "job 's1' is owner slurm's, not owner ibpoold's");
	refused(h, sm_hints_remove, "{\"ids\":[\"p1\",\"nope\"]}",
		SM_ERR_NOT_FOUND, "no job 'nope'");
	refused(h, sm_hints_remove, "{\"ids\":[\"p1\",7]}",
		SM_ERR_BAD_REQUEST, "ids[1] must be a string");
	refused(h, sm_hints_remove, "{\"ids\":[]}",
		SM_ERR_BAD_REQUEST, "field 'ids' must not be empty");
	expect_table(h, "{\"generation\":2,\"jobs\":["
		     "{\"id\":\"s1\",\"hosts\":[\"g1\"],\"weight\":1,\"owner\":\"slurm\"},"
		     "{\"id\":\"p1\",\"hosts\":[\"g1\",\"g2\"],\"weight\":1,\"owner\":\"ibpoold\"},"
		     "{\"id\":\"p2\",\"hosts\":[\"g3\"],\"weight\":3,\"owner\":\"ibpoold\"}]}");
	ok(h, sm_hints_remove, "{\"owner\":\"ibpoold\",\"ids\":[\"p2\",\"p1\"]}");
	expect_table(h, "{\"generation\":3,\"jobs\":["
		     "{\"id\":\"s1\",\"hosts\":[\"g1\"],\"weight\":1,\"owner\":\"slurm\"}]}");
	/* 4,094 more fit, the next two do not: the first past it named */
	req = many_jobs(SM_HINTS_MAX_JOBS - 2);
	ok(h, sm_hints_add, req);
	refused(h, sm_hints_add, "{\"jobs\":[{\"id\":\"a\",\"hosts\":[\"h\"]},{\"id\":\"b\",\"hosts\":[\"h\"]}]}",
		SM_ERR_BAD_REQUEST, "job 'b': the table is full (4096 jobs)");
	free(req);
	sm_hints_free(h);
}

static void test_generation(void)
{
	struct sm_hints *h = new_table(NULL);
	const struct sm_hints_snap *s;
	json_object *req = json_tokener_parse("{\"jobs\":[]}");
	struct sm_error e;
	uint64_t gen = 0;

	CU_ASSERT_EQUAL(sm_hints_set(h, req, &gen, &e), 0);
	CU_ASSERT_EQUAL(gen, 1);
	/* an accepted change counts even when it changes nothing */
	CU_ASSERT_EQUAL(sm_hints_set(h, req, &gen, &e), 0);
	CU_ASSERT_EQUAL(gen, 2);
	json_object_put(req);
	refused(h, sm_hints_remove, "{\"id\":\"j1\"}", SM_ERR_NOT_FOUND,
		"no job 'j1'");
	ok(h, sm_hints_add, "{\"job\":{\"id\":\"j1\",\"hosts\":[\"h\"]}}");
	ok(h, sm_hints_remove, "{\"id\":\"j1\"}");
	s = sm_hints_snapshot(h);
	CU_ASSERT_EQUAL(s->generation, 4);
	CU_ASSERT_EQUAL(s->njobs, 0);
	sm_hints_put(s);
	sm_hints_free(h);
}

static void test_snapshot(void)
{
	struct sm_hints *h = new_table(NULL);
	const struct sm_hints_snap *a, *b;

	ok(h, sm_hints_set, table);
	a = sm_hints_snapshot(h);
	ok(h, sm_hints_remove, "{\"id\":\"j1\"}");
	ok(h, sm_hints_add, "{\"job\":{\"id\":\"j9\",\"hosts\":[\"h\"]}}");
	b = sm_hints_snapshot(h);
	CU_ASSERT_EQUAL(a->generation, 1);
	CU_ASSERT_EQUAL_FATAL(a->njobs, 2);
	CU_ASSERT_STRING_EQUAL(a->jobs[0].id, "j1");
	CU_ASSERT_EQUAL(a->jobs[0].weight, 5);
	CU_ASSERT_EQUAL_FATAL(a->jobs[0].nhosts, 2);
	CU_ASSERT_STRING_EQUAL(a->jobs[0].hosts[1], "0x0000000000000abc");
	CU_ASSERT_EQUAL(b->generation, 3);
	CU_ASSERT_EQUAL_FATAL(b->njobs, 2);
	CU_ASSERT_STRING_EQUAL(b->jobs[1].id, "j9");
	/* snapshots outlive the table (ASan sees any use after free) */
	sm_hints_free(h);
	CU_ASSERT_STRING_EQUAL(a->jobs[1].hosts[0], "gpu2 mlx5_0");
	CU_ASSERT_STRING_EQUAL(b->jobs[0].id, "train.7:a-b_c");
	sm_hints_put(a);
	sm_hints_put(b);
}

struct writer {
	struct sm_hints *h;
	json_object *add, *remove;
	int refused;
};

/* No CUnit calls here: CUnit is not thread-safe. */
static void *change_often(void *arg)
{
	struct writer *w = arg;
	struct sm_error e;
	int i;

	for (i = 0; i < 300; i++) {
		w->refused += sm_hints_add(w->h, w->add, NULL, &e) != 0;
		w->refused += sm_hints_remove(w->h, w->remove, NULL, &e) != 0;
	}
	return NULL;
}

/*
 * The router's side: snapshots taken while another thread changes the
 * table are whole versions, and generations never go back.
 */
static void test_snapshot_threads(void)
{
	struct sm_hints *h = new_table(NULL);
	struct writer w = {
		.h = h,
		.add = json_tokener_parse("{\"job\":{\"id\":\"t\",\"hosts\":[\"a\",\"b\"]}}"),
		.remove = json_tokener_parse("{\"id\":\"t\"}"),
	};
	const struct sm_hints_snap *s;
	uint64_t last = 0, bad = 0;
	pthread_t t;
	int i;

	CU_ASSERT_FATAL(pthread_create(&t, NULL, change_often, &w) == 0);
	for (i = 0; i < 3000; i++) {
		s = sm_hints_snapshot(h);
		if (s->generation < last ||
		    s->njobs != (s->generation & 1) ||
		    (s->njobs && (s->jobs[0].nhosts != 2 ||
				  strcmp(s->jobs[0].hosts[1], "b"))))
			bad++;
		last = s->generation;
		sm_hints_put(s);
	}
	pthread_join(t, NULL);
	json_object_put(w.add);
	json_object_put(w.remove);
	CU_ASSERT_EQUAL(w.refused, 0);
	CU_ASSERT_EQUAL(bad, 0);
	s = sm_hints_snapshot(h);
	CU_ASSERT_EQUAL(s->generation, 600);
	sm_hints_put(s);
	sm_hints_free(h);
}

static void test_serve(void)
{
	struct sm_hints *h = new_table(NULL);
	json_object *req, *reply = NULL;
	const char *s;

	req = json_tokener_parse("{\"op\":\"hints.add\",\"job\":{\"id\":\"a\",\"hosts\":[\"h\"]}}");
	CU_ASSERT_EQUAL(sm_hints_serve(h, req, false, &reply), 0);
	s = json_object_to_json_string_ext(reply, JSON_C_TO_STRING_PLAIN);
	CU_ASSERT_STRING_EQUAL(s, "{\"ok\":false,\"error\":{\"code\":\"forbidden\","
			       "\"message\":\"hints.add needs root or the socket's group\"}}");
	json_object_put(reply);
	CU_ASSERT_EQUAL(sm_hints_serve(h, req, true, &reply), 0);
	s = json_object_to_json_string_ext(reply, JSON_C_TO_STRING_PLAIN);
	CU_ASSERT_STRING_EQUAL(s, "{\"ok\":true,\"generation\":1}");
	json_object_put(reply);
	CU_ASSERT_EQUAL(sm_hints_serve(h, req, true, &reply), 0);
	s = json_object_to_json_string_ext(reply, JSON_C_TO_STRING_PLAIN);
	CU_ASSERT_STRING_EQUAL(s, "{\"ok\":false,\"error\":{\"code\":\"duplicate_id\","
			       "\"message\":\"job 'a' already exists\"}}");
	json_object_put(reply);
	json_object_put(req);

	req = json_tokener_parse("{\"op\":\"hints.get\"}");
	CU_ASSERT_EQUAL(sm_hints_serve(h, req, false, &reply), 0);
	s = json_object_to_json_string_ext(reply, JSON_C_TO_STRING_PLAIN);
	CU_ASSERT_STRING_EQUAL(s, "{\"ok\":true,\"generation\":1,\"jobs\":"
			       "[{\"id\":\"a\",\"hosts\":[\"h\"],\"weight\":1}]}");
	json_object_put(reply);
	json_object_object_add(req, "all", json_object_new_boolean(1));
	CU_ASSERT_EQUAL(sm_hints_serve(h, req, false, &reply), 0);
	s = json_object_to_json_string_ext(reply, JSON_C_TO_STRING_PLAIN);
	CU_ASSERT_STRING_EQUAL(s, "{\"ok\":false,\"error\":{\"code\":\"bad_request\","
			       "\"message\":\"unknown field 'all'\"}}");
	json_object_put(reply);
	json_object_put(req);

	reply = NULL;
	req = json_tokener_parse("{\"op\":\"state\"}");
	CU_ASSERT_EQUAL(sm_hints_serve(h, req, true, &reply), -EOPNOTSUPP);
	CU_ASSERT_PTR_NULL(reply);
	json_object_put(req);
	sm_hints_free(h);
}

static char *tmpdir(void)
{
	char *d = strdup("/tmp/gpuaware-hints-XXXXXX");

	CU_ASSERT_FATAL(d && mkdtemp(d));
	return d;
}

static void rmdir_all(char *dir)
{
	char cmd[128];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	CU_ASSERT(system(cmd) == 0);
	free(dir);
}

static void write_file(const char *dir, const char *text, size_t n)
{
	char path[256];
	FILE *f;

	snprintf(path, sizeof(path), "%s/hints.json", dir);
	f = fopen(path, "w");
	CU_ASSERT_FATAL(f != NULL);
	CU_ASSERT(fwrite(text, 1, n, f) == n);
	fclose(f);
}

static void test_save_load(void)
{
	struct sm_hints *h = new_table(NULL), *g = new_table(NULL);
	char *dir = tmpdir(), *a, *b, err[256];

	/* a missing file is an empty table */
	CU_ASSERT_EQUAL(sm_hints_load(g, dir, err, sizeof(err)), 0);
	a = dump(g);
	CU_ASSERT_STRING_EQUAL(a, "{\"generation\":0,\"jobs\":[]}");
	free(a);
	ok(h, sm_hints_set, table);
	ok(h, sm_hints_add, "{\"job\":{\"id\":\"j3\",\"hosts\":[\"0x1\"]}}");
	ok(h, sm_hints_set, "{\"owner\":\"ibpoold\",\"jobs\":[{\"id\":\"p\",\"hosts\":[\"g\"]}]}");
	CU_ASSERT_EQUAL(sm_hints_save(h, dir, err, sizeof(err)), 0);
	CU_ASSERT_EQUAL(sm_hints_load(g, dir, err, sizeof(err)), 0);
	a = dump(h);
	b = dump(g);
	CU_ASSERT_STRING_EQUAL(a, b);
	CU_ASSERT_PTR_NOT_NULL(strstr(b, "\"generation\":3"));
	CU_ASSERT_PTR_NOT_NULL(strstr(b, "\"owner\":\"ibpoold\""));
	free(a);
	free(b);
	sm_hints_free(h);
	sm_hints_free(g);
	rmdir_all(dir);
}

/* A state file of version 1, from before owners, loads: no owners. */
static void test_load_v1(void)
{
	static const char v1[] =
		"{\"version\":1,\"generation\":9,\"jobs\":["
		"{\"id\":\"a\",\"hosts\":[\"h1\",\"0x0000000000000001\"],\"weight\":3}]}\n";
	struct sm_hints *h = new_table(NULL);
	char *dir = tmpdir(), err[256], *s;

	write_file(dir, v1, sizeof(v1) - 1);
	CU_ASSERT_EQUAL(sm_hints_load(h, dir, err, sizeof(err)), 0);
	expect_table(h, "{\"generation\":9,\"jobs\":["
		     "{\"id\":\"a\",\"hosts\":[\"h1\",\"0x0000000000000001\"],\"weight\":3}]}");
	/* an owner's set leaves the owner-less job alone */
	ok(h, sm_hints_set, "{\"owner\":\"ibpoold\",\"jobs\":[]}");
	s = dump(h);
	CU_ASSERT_PTR_NOT_NULL(strstr(s, "\"id\":\"a\""));
	free(s);
	sm_hints_free(h);
	rmdir_all(dir);
}

/*
 * The generation stops at 2^63-1 (a JSON integer, never negative): a
 * change there is refused, and the table still loads.
 */
static void test_generation_limit(void)
{
	static const char last[] =
		"{\"version\":2,\"generation\":9223372036854775807,\"jobs\":["
		"{\"id\":\"a\",\"hosts\":[\"h1\"],\"weight\":1}]}\n";
	static const char want[] =
		"{\"generation\":9223372036854775807,\"jobs\":["
		"{\"id\":\"a\",\"hosts\":[\"h1\"],\"weight\":1}]}";
	char *dir = tmpdir(), err[256];
	struct sm_hints *h = new_table(dir);

	write_file(dir, last, sizeof(last) - 1);
	CU_ASSERT_EQUAL(sm_hints_load(h, dir, err, sizeof(err)), 0);
	expect_table(h, want);
	refused(h, sm_hints_add, "{\"job\":{\"id\":\"b\",\"hosts\":[\"h2\"]}}",
		SM_ERR_INTERNAL,
		"the job table's generation is at its limit, 9223372036854775807: no change can be counted");
	refused(h, sm_hints_set, "{\"jobs\":[]}", SM_ERR_INTERNAL,
		"the job table's generation is at its limit, 9223372036854775807: no change can be counted");
	sm_hints_free(h);
	h = new_table(NULL);
	CU_ASSERT_EQUAL(sm_hints_load(h, dir, err, sizeof(err)), 0);
	expect_table(h, want);
	sm_hints_free(h);
	rmdir_all(dir);
}

/* A table bound to a directory saves each change before it counts. */
static void test_persist(void)
{
	char *dir = tmpdir(), path[256], err[256], *a, *b;
	struct sm_hints *h = new_table(dir), *g = new_table(NULL);
	struct stat st;

	ok(h, sm_hints_set, table);
	ok(h, sm_hints_remove, "{\"id\":\"j1\"}");
	CU_ASSERT_EQUAL(sm_hints_load(g, dir, err, sizeof(err)), 0);
	a = dump(h);
	b = dump(g);
	CU_ASSERT_STRING_EQUAL(a, b);
	free(a);
	free(b);
	snprintf(path, sizeof(path), "%s/hints.json", dir);
	CU_ASSERT_EQUAL(stat(path, &st), 0);
	CU_ASSERT_EQUAL(st.st_mode & 0777, 0600);
	/* no temporary file is left behind */
	snprintf(path, sizeof(path),
		 "ls -A '%s' | grep -qv '^hints\\.\\(json\\|log\\)$'", dir);
	CU_ASSERT(system(path) != 0);
	sm_hints_free(h);
	sm_hints_free(g);

	/* a change that cannot be saved is refused, table unchanged */
	snprintf(path, sizeof(path), "%s/gone", dir);
	h = new_table(path);
	snprintf(path, sizeof(path),
		 "%s/gone/hints.json: create temporary file: No such file or directory",
		 dir);
	refused(h, sm_hints_add, "{\"job\":{\"id\":\"j1\",\"hosts\":[\"h\"]}}",
		SM_ERR_INTERNAL, path);
	sm_hints_free(h);
	rmdir_all(dir);
}

/*
 * A bad file of n bytes: -EINVAL, the message first, then what loaded
 * (the table left as kept) and where the file was kept.
 */
static void load_salvages(const char *text, size_t n, const char *msg,
			  const char *kept)
{
	struct sm_hints *h = new_table(NULL);
	char *dir = tmpdir(), err[512], want[512];

	ok(h, sm_hints_set, table);
	write_file(dir, text, n);
	CU_ASSERT_EQUAL(sm_hints_load(h, dir, err, sizeof(err)), -EINVAL);
	snprintf(want, sizeof(want), "%s/hints.json: %s; ", dir, msg);
	if (strncmp(err, want, strlen(want)) ||
	    !strstr(err, "; the file is kept as hints.json.bad-")) {
		fprintf(stderr, "\n'%s', expected '%s...'\n", err, want);
		CU_FAIL("load error");
	}
	expect_table(h, kept);
	sm_hints_free(h);
	rmdir_all(dir);
}

static void load_fails(const char *text, size_t n, const char *msg)
{
	load_salvages(text, n, msg, "{\"generation\":0,\"jobs\":[]}");
}

static void test_corrupt(void)
{
	static const char bad_job[] =
		"{\"version\":1,\"generation\":4,\"jobs\":[{\"id\":\"a\",\"hosts\":[\"h\"]},"
		"{\"id\":\"b\",\"hosts\":[\"h\"],\"weight\":0}]}";
	struct sm_hints *h = new_table(NULL);
	char *dir = tmpdir(), path[256], err[256], *text;
	size_t n;
	FILE *f;

	load_fails("garbage\n", 8, "unexpected character");
	load_fails("[]", 2, "expected a JSON object, not array");
	load_fails("{\"version\":3,\"generation\":1,\"jobs\":[]}", 38,
		   "field 'version' must be an integer 1..2");
	load_fails("{\"version\":1,\"jobs\":[]}", 23,
		   "missing field 'generation'");
	load_salvages(bad_job, sizeof(bad_job) - 1,
		      "job 'b': field 'weight' must be an integer 1..1000",
		      "{\"generation\":4,\"jobs\":[{\"id\":\"a\",\"hosts\":[\"h\"],\"weight\":1}]}");

	/* a torn file: the saved table cut anywhere is refused */
	ok(h, sm_hints_set, table);
	CU_ASSERT_EQUAL(sm_hints_save(h, dir, err, sizeof(err)), 0);
	snprintf(path, sizeof(path), "%s/hints.json", dir);
	f = fopen(path, "r");
	CU_ASSERT_FATAL(f != NULL);
	text = calloc(1, 4096);
	n = fread(text, 1, 4095, f);
	fclose(f);
	CU_ASSERT(n > 100);
	load_fails(text, n / 2, "unexpected end of data");
	load_fails(text, n - 3, "unexpected end of data");
	free(text);
	sm_hints_free(h);
	rmdir_all(dir);
}

/* How many files in dir start with prefix. */
static int files_like(const char *dir, const char *prefix)
{
	char cmd[256];
	FILE *p;
	int n = -1;

	snprintf(cmd, sizeof(cmd), "ls -A '%s' | grep -c '^%s'", dir, prefix);
	p = popen(cmd, "r");
	CU_ASSERT_FATAL(p != NULL);
	CU_ASSERT(fscanf(p, "%d", &n) == 1);
	pclose(p);
	return n;
}

/* Load dir into a new table: its return, the table, err. */
static int load_into(const char *dir, struct sm_hints **h, char *err,
		     size_t len)
{
	*h = new_table(NULL);
	return sm_hints_load(*h, dir, err, len);
}

/*
 * One bad job costs that job only: the valid ones load, the file is kept
 * aside under a new name each time (never over an earlier one), and
 * hints.json holds what loaded, so the next start loads the same.
 */
static void test_salvage(void)
{
	static const char one_bad[] =
		"{\"version\":2,\"generation\":7,\"jobs\":["
		"{\"id\":\"a\",\"hosts\":[\"h1\"]},"
		"{\"id\":\"b\",\"hosts\":[\"h2\"],\"weight\":5000},"
		"{\"id\":\"c\",\"hosts\":[\"h3\"]},{\"id\":\"d\",\"hosts\":[\"h4\"]},"
		"{\"id\":\"e\",\"hosts\":[\"h5\"],\"owner\":\"slurm\"}]}\n";
	static const char clash[] =
		"{\"version\":2,\"generation\":-9223372036854775808,\"jobs\":["
		"{\"id\":\"x\",\"hosts\":[\"h1\"]},{\"id\":\"x\",\"hosts\":[\"h2\"]},"
		"{\"id\":\"y\",\"hosts\":[\"h3\",\"h1\"]},{\"id\":\"z\",\"hosts\":[\"h4\"]}]}\n";
	static const char four[] =
		"{\"generation\":7,\"jobs\":[{\"id\":\"a\",\"hosts\":[\"h1\"],\"weight\":1},"
		"{\"id\":\"c\",\"hosts\":[\"h3\"],\"weight\":1},"
		"{\"id\":\"d\",\"hosts\":[\"h4\"],\"weight\":1},"
		"{\"id\":\"e\",\"hosts\":[\"h5\"],\"weight\":1,\"owner\":\"slurm\"}]}";
	char *dir = tmpdir(), err[512], want[512];
	struct sm_hints *h;

	write_file(dir, one_bad, sizeof(one_bad) - 1);
	CU_ASSERT_EQUAL(load_into(dir, &h, err, sizeof(err)), -EINVAL);
	snprintf(want, sizeof(want), "%s/hints.json: job 'b': field 'weight' must be an integer 1..1000; 4 jobs loaded, 1 left out; the file is kept as hints.json.bad-",
		 dir);
	if (strncmp(err, want, strlen(want))) {
		fprintf(stderr, "\n'%s', expected '%s...'\n", err, want);
		CU_FAIL("salvage message");
	}
	expect_table(h, four);
	sm_hints_free(h);
	CU_ASSERT_EQUAL(files_like(dir, "hints.json.bad-"), 1);
	/* the next start loads what this one did, without complaint */
	CU_ASSERT_EQUAL(load_into(dir, &h, err, sizeof(err)), 0);
	expect_table(h, four);
	sm_hints_free(h);

	/* an id twice: the later job goes, the one sharing a host stays;
	   the generation an old version wrapped negative is the last */
	write_file(dir, clash, sizeof(clash) - 1);
	CU_ASSERT_EQUAL(load_into(dir, &h, err, sizeof(err)), -EINVAL);
	CU_ASSERT_PTR_NOT_NULL(strstr(err, "3 jobs loaded, 1 left out"));
	expect_table(h, "{\"generation\":9223372036854775807,\"jobs\":["
		     "{\"id\":\"x\",\"hosts\":[\"h1\"],\"weight\":1},"
		     "{\"id\":\"y\",\"hosts\":[\"h3\",\"h1\"],\"weight\":1},"
		     "{\"id\":\"z\",\"hosts\":[\"h4\"],\"weight\":1}]}");
	sm_hints_free(h);
	/* a second bad file, even within the same second: a second copy */
	CU_ASSERT_EQUAL(files_like(dir, "hints.json.bad-"), 2);
	rmdir_all(dir);
}

/* The size and inode of dir/name, -1 when it is not there. */
static long long file_size(const char *dir, const char *name, ino_t *ino)
{
	char path[256];
	struct stat st;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	if (stat(path, &st))
		return -1;
	if (ino)
		*ino = st.st_ino;
	return st.st_size;
}

/* Append text to dir/hints.log. */
static void log_write(const char *dir, const char *text)
{
	char path[256];
	FILE *f;

	snprintf(path, sizeof(path), "%s/hints.log", dir);
	f = fopen(path, "a");
	CU_ASSERT_FATAL(f != NULL);
	fputs(text, f);
	fclose(f);
}

/* A fresh table loaded from dir is the same as h. */
static void loads_same(struct sm_hints *h, const char *dir)
{
	struct sm_hints *g = new_table(NULL);
	char err[512], *a, *b;

	CU_ASSERT_EQUAL(sm_hints_load(g, dir, err, sizeof(err)), 0);
	a = dump(h);
	b = dump(g);
	CU_ASSERT_STRING_EQUAL(a, b);
	free(a);
	free(b);
	sm_hints_free(g);
}

/*
 * A change costs its own size: adds and removes are appended to
 * hints.log, hints.json is not rewritten until the log is as large;
 * loading replays the log, drops a last line cut short, and folds the
 * log into the file when the directory is the table's own.
 */
static void test_log(void)
{
	char *dir = tmpdir(), err[512], req[128];
	struct sm_hints *h = new_table(dir), *g;
	long long json, log;
	ino_t ino, ino2;
	int i;

	ok(h, sm_hints_set, table);
	json = file_size(dir, "hints.json", &ino);
	ok(h, sm_hints_add, "{\"job\":{\"id\":\"a\",\"hosts\":[\"g1\"]}}");
	ok(h, sm_hints_add, "{\"owner\":\"o\",\"jobs\":[{\"id\":\"b\",\"hosts\":[\"g2\"]},{\"id\":\"c\",\"hosts\":[\"g3\"]}]}");
	ok(h, sm_hints_remove, "{\"ids\":[\"j1\",\"b\"]}");
	CU_ASSERT_EQUAL(file_size(dir, "hints.json", &ino2), json);
	CU_ASSERT_EQUAL(ino2, ino);
	CU_ASSERT(file_size(dir, "hints.log", NULL) > 0);
	loads_same(h, dir);
	/* a record cut short by a crash was never acknowledged: dropped */
	log_write(dir, "{\"add\":[{\"id\":\"z\",\"hosts\":[\"g9\"]}],\"genera");
	loads_same(h, dir);
	/* the table's own directory: the log folded into hints.json */
	g = new_table(dir);
	CU_ASSERT_EQUAL(sm_hints_load(g, dir, err, sizeof(err)), 0);
	CU_ASSERT_EQUAL(file_size(dir, "hints.log", NULL), 0);
	CU_ASSERT(file_size(dir, "hints.json", &ino2) > 0);
	CU_ASSERT(ino2 != ino);
	loads_same(g, dir);
	sm_hints_free(h);
	/* adds past the file's size start a new file and an empty log */
	for (i = 0; i < 2000; i++) {
		snprintf(req, sizeof(req),
			 "{\"job\":{\"id\":\"n%d\",\"hosts\":[\"h%d\"]}}", i, i);
		ok(g, sm_hints_add, req);
	}
	json = file_size(dir, "hints.json", NULL);
	log = file_size(dir, "hints.log", NULL);
	CU_ASSERT(json > 2000 * 20);
	CU_ASSERT(log <= (json > 65536 ? json : 65536));
	loads_same(g, dir);
	sm_hints_free(g);
	rmdir_all(dir);
}

/*
 * A log record that does not apply: what came before it loads, the log
 * is kept aside, the message names its line.
 */
static void test_log_bad(void)
{
	char *dir = tmpdir(), err[512], want[512];
	struct sm_hints *h = new_table(dir), *g;

	ok(h, sm_hints_set, table);
	sm_hints_free(h);
	log_write(dir, "{\"generation\":2,\"add\":[{\"id\":\"a\",\"hosts\":[\"g1\"]}]}\n"
		  "{\"generation\":9,\"remove\":[\"a\"]}\n"
		  "{\"generation\":3,\"remove\":[\"a\"]}\n");
	g = new_table(NULL);
	CU_ASSERT_EQUAL(sm_hints_load(g, dir, err, sizeof(err)), -EINVAL);
	snprintf(want, sizeof(want), "%s/hints.log: line 2: generation 9 after 2; the changes from there are left out; the log is kept as hints.log.bad-",
		 dir);
	if (strncmp(err, want, strlen(want))) {
		fprintf(stderr, "\n'%s', expected '%s...'\n", err, want);
		CU_FAIL("bad log message");
	}
	expect_table(g, "{\"generation\":2,\"jobs\":["
		     "{\"id\":\"j1\",\"hosts\":[\"gpu1\",\"0x0000000000000abc\"],\"weight\":5},"
		     "{\"id\":\"train.7:a-b_c\",\"hosts\":[\"gpu2 mlx5_0\"],\"weight\":1},"
		     "{\"id\":\"a\",\"hosts\":[\"g1\"],\"weight\":1}]}");
	CU_ASSERT_EQUAL(files_like(dir, "hints.log.bad-"), 1);
	sm_hints_free(g);
	rmdir_all(dir);
}

/* What the file system refuses is named, and leaves nothing behind. */
static void test_file_errors(void)
{
	struct sm_hints *h = new_table(NULL);
	char *dir = tmpdir(), path[256], want[512], err[256];
	int fd;

	ok(h, sm_hints_set, table);
	snprintf(path, sizeof(path), "%s/hints.json", dir);
	CU_ASSERT_FATAL(mkdir(path, 0700) == 0);
	CU_ASSERT_EQUAL(sm_hints_save(h, dir, err, sizeof(err)), -EISDIR);
	snprintf(want, sizeof(want), "%s: rename: Is a directory", path);
	CU_ASSERT_STRING_EQUAL(err, want);
	snprintf(want, sizeof(want), "ls -A '%s' | grep -qv '^hints.json$'",
		 dir);
	CU_ASSERT(system(want) != 0);
	CU_ASSERT_EQUAL(sm_hints_load(h, dir, err, sizeof(err)), -EISDIR);
	snprintf(want, sizeof(want), "%s: read: Is a directory", path);
	CU_ASSERT_STRING_EQUAL(err, want);
	expect_table(h, "{\"generation\":0,\"jobs\":[]}");
	CU_ASSERT(rmdir(path) == 0);

	/* a sparse file past the size limit is refused unread */
	fd = open(path, O_CREAT | O_WRONLY, 0600);
	CU_ASSERT(fd >= 0 && ftruncate(fd, (64 << 20) + 1) == 0);
	close(fd);
	CU_ASSERT_EQUAL(sm_hints_load(h, dir, err, sizeof(err)), -EFBIG);
	snprintf(want, sizeof(want), "%s: larger than 67108864 bytes", path);
	CU_ASSERT_STRING_EQUAL(err, want);
	sm_hints_free(h);
	rmdir_all(dir);
}

/* The one id check: length and characters, owners as job ids. */
static void test_id_valid(void)
{
	char id[SM_HINTS_ID_MAX + 2];

	CU_ASSERT(sm_hints_id_valid("a"));
	CU_ASSERT(sm_hints_id_valid("slurm.42:step_1-x"));
	CU_ASSERT(!sm_hints_id_valid(""));
	CU_ASSERT(!sm_hints_id_valid("j 9"));
	CU_ASSERT(!sm_hints_id_valid("a/b"));
	CU_ASSERT(!sm_hints_id_valid("caf\xc3\xa9"));
	memset(id, 'x', sizeof(id));
	id[SM_HINTS_ID_MAX] = '\0';
	CU_ASSERT(sm_hints_id_valid(id));
	id[SM_HINTS_ID_MAX] = 'x';
	id[SM_HINTS_ID_MAX + 1] = '\0';
	CU_ASSERT(!sm_hints_id_valid(id));
}

TU_SUITE(hints,
	 { "ids", test_id_valid },
	 { "set and get", test_set_get },
	 { "set refusals", test_set_refusals },
	 { "add and remove", test_add_remove },
	 { "table full", test_table_full },
	 { "jobs sharing a host", test_shared_host },
	 { "owners", test_owners },
	 { "owner's set and the bound", test_owner_full },
	 { "many jobs in one add or remove", test_batch },
	 { "version 1 state file", test_load_v1 },
	 { "generation", test_generation },
	 { "generation at its limit", test_generation_limit },
	 { "snapshots", test_snapshot },
	 { "snapshots beside a writer", test_snapshot_threads },
	 { "serve", test_serve },
	 { "save and load", test_save_load },
	 { "persist each change", test_persist },
	 { "a change costs its own size: the log", test_log },
	 { "a log record that does not apply", test_log_bad },
	 { "corrupt and torn files", test_corrupt },
	 { "a bad job costs only itself", test_salvage },
	 { "file system errors", test_file_errors })
