// SPDX-License-Identifier: MIT
/*
 * ibpoold's request handlers (ops.c) called directly, without a socket:
 * poold_handle() on a daemon over ibsim-configs/ft2-tiny.net and its
 * pool.conf (16 hosts of 4 GPUs), with a clock the tests set.  Replies
 * are checked field by field against docs/protocol.md: allocations and
 * their owners, leases and their expiry (poold_tick()), jobs, who may
 * do what over which socket, and the per-operation counters; the
 * queue: tickets, grants on release, cancel, a restart that replays the
 * queue and grants nothing twice, watch events over a real socket, and
 * hosts taken out.
 */
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "tu.h"
#include "sm/proto.h"
#include "tools/ibpoold/ops.h"

#define OPS_NET "ibsim-configs/ft2-tiny.net"
#define OPS_CONF "ibsim-configs/pool-ft2-tiny.conf"
#define OPS_T0 1000000000

static struct pool_config cfg;
static struct pool_view *view;
static time_t clock_now;

static const struct sm_peer root = { .uid = 0, .may_write = true,
				     .may_connect = true, .ticket = 1 };
static const struct sm_peer user = { .uid = 1000, .gid = 1000,
				     .may_connect = true, .ticket = 1 };
static const struct sm_peer tcp = { .remote = true, .uid = (uid_t)-1,
				    .gid = (gid_t)-1, .ticket = 1,
				    .addr = "127.0.0.1:1" };

static time_t test_clock(time_t *t)
{
	if (t)
		*t = clock_now;
	return clock_now;
}

/* The config and the fabric's view, loaded once for every test. */
static int load_once(void)
{
	char err[1024];

	if (view)
		return 0;
	if (pool_config_load(OPS_CONF, &cfg, err, sizeof(err)) ||
	    pool_view_offline(OPS_NET, 0, RT_ENGINE_AUTO, &view, err,
			      sizeof(err))) {
		fprintf(stderr, "test_ops: %s\n", err);
		return -1;
	}
	return 0;
}

/* A daemon on a fresh in-memory pool at OPS_T0; 0 or -1. */
static int daemon_up(struct poold *d, struct pool **pool)
{
	char err[512];

	if (load_once() || pool_new(&cfg, pool))
		return -1;
	if (poold_init(d, &cfg, *pool, view, NULL, err, sizeof(err))) {
		fprintf(stderr, "test_ops: %s\n", err);
		pool_free(*pool);
		return -1;
	}
	clock_now = OPS_T0;
	d->now = test_clock;
	return 0;
}

static void daemon_down(struct poold *d, struct pool *pool)
{
	poold_release(d);
	pool_free(pool);
}

/* The reply to the request line s from p; NULL when it was not handled. */
static json_object *ask(struct poold *d, const struct sm_peer *p,
			const char *s)
{
	json_object *req = json_tokener_parse(s), *reply = NULL;
	int ret;

	CU_ASSERT_PTR_NOT_NULL_FATAL(req);
	ret = poold_handle(d, p, req, &reply);
	json_object_put(req);
	CU_ASSERT_EQUAL(ret, 0);
	CU_ASSERT_PTR_NOT_NULL(reply);
	return ret ? NULL : reply;
}

/* Member path a.b of o ("" for o), NULL when missing. */
static json_object *at(json_object *o, const char *a, const char *b)
{
	json_object *v = o;

	if (v && *a && !json_object_object_get_ex(v, a, &v))
		return NULL;
	if (v && b && !json_object_object_get_ex(v, b, &v))
		return NULL;
	return v;
}

static const char *str(json_object *o, const char *a, const char *b)
{
	json_object *v = at(o, a, b);

	return v && json_object_is_type(v, json_type_string) ?
		json_object_get_string(v) : "(none)";
}

static int64_t num(json_object *o, const char *a, const char *b)
{
	json_object *v = at(o, a, b);

	return v && json_object_is_type(v, json_type_int) ?
		json_object_get_int64(v) : -1;
}

static size_t len(json_object *o, const char *a)
{
	json_object *v = at(o, a, NULL);

	return v && json_object_is_type(v, json_type_array) ?
		json_object_array_length(v) : (size_t)-1;
}

static bool is_ok(json_object *r)
{
	json_object *v = at(r, "ok", NULL);

	return v && json_object_is_type(v, json_type_boolean) &&
	       json_object_get_boolean(v);
}

/* r is the error code with message msg; r is released. */
static void refused(json_object *r, const char *code, const char *msg)
{
	CU_ASSERT_FALSE(is_ok(r));
	CU_ASSERT_STRING_EQUAL(str(r, "error", "code"), code);
	CU_ASSERT_STRING_EQUAL(str(r, "error", "message"), msg);
	json_object_put(r);
}

/* r is ok; r is released. */
static void accepted(json_object *r)
{
	CU_ASSERT_TRUE(is_ok(r));
	json_object_put(r);
}

static void test_status(void)
{
	struct pool *pool;
	struct poold d;
	json_object *r, *h;

	CU_ASSERT_EQUAL_FATAL(daemon_up(&d, &pool), 0);
	r = ask(&d, &user, "{\"op\":\"pool.status\"}");
	CU_ASSERT_TRUE(is_ok(r));
	CU_ASSERT_EQUAL(len(r, "hosts"), 16);
	h = json_object_array_get_idx(at(r, "hosts", NULL), 0);
	CU_ASSERT_STRING_EQUAL(str(h, "host", NULL), "h01");
	CU_ASSERT_STRING_EQUAL(str(h, "gpu_type", NULL), "H100");
	CU_ASSERT_EQUAL(num(h, "gpus", NULL), 4);
	CU_ASSERT_EQUAL(num(h, "free", NULL), 4);
	CU_ASSERT_EQUAL(num(r, "gpus", NULL), 64);
	CU_ASSERT_EQUAL(num(r, "free", NULL), 64);
	CU_ASSERT_EQUAL(num(r, "allocs", NULL), 0);
	CU_ASSERT_EQUAL(num(r, "jobs", NULL), 0);
	CU_ASSERT_STRING_EQUAL(str(r, "fabric", "topology"), "fat-tree");
	CU_ASSERT_EQUAL(num(r, "fabric", "lmc"), 0);
	CU_ASSERT_EQUAL(num(r, "fabric", "cas"), 16);
	CU_ASSERT_EQUAL(num(r, "fabric", "hcas_missing"), 0);
	CU_ASSERT_TRUE(json_object_object_get_ex(r, "relay", &h) && !h);
	json_object_put(r);
	daemon_down(&d, pool);
}

static void test_alloc_release(void)
{
	struct pool *pool;
	struct poold d;
	json_object *r, *g;

	CU_ASSERT_EQUAL_FATAL(daemon_up(&d, &pool), 0);
	r = ask(&d, &user, "{\"op\":\"alloc\",\"client\":\"h01\",\"gpus\":2}");
	CU_ASSERT_TRUE(is_ok(r));
	CU_ASSERT_STRING_EQUAL(str(r, "id", NULL), "1");
	CU_ASSERT_STRING_EQUAL(str(r, "client", NULL), "h01");
	CU_ASSERT_STRING_EQUAL(str(r, "job", NULL), "");
	CU_ASSERT_EQUAL(num(r, "uid", NULL), 1000);
	CU_ASSERT_EQUAL(num(r, "expires", NULL), OPS_T0 + 3600);
	CU_ASSERT_EQUAL(len(r, "gpus"), 2);
	g = json_object_array_get_idx(at(r, "gpus", NULL), 0);
	CU_ASSERT_EQUAL(num(g, "rail", NULL), 0);
	CU_ASSERT_TRUE(num(g, "dlid", NULL) > 0);
	CU_ASSERT_EQUAL(len(g, "path"), len(json_object_array_get_idx(
		at(r, "gpus", NULL), 1), "path"));
	json_object_put(r);

	r = ask(&d, &user, "{\"op\":\"alloc.list\"}");
	CU_ASSERT_EQUAL(len(r, "allocs"), 1);
	CU_ASSERT_STRING_EQUAL(str(json_object_array_get_idx(
		at(r, "allocs", NULL), 0), "id", NULL), "1");
	json_object_put(r);
	r = ask(&d, &user, "{\"op\":\"pool.status\"}");
	CU_ASSERT_EQUAL(num(r, "free", NULL), 62);
	CU_ASSERT_EQUAL(num(r, "allocs", NULL), 1);
	json_object_put(r);

	refused(ask(&d, &user, "{\"op\":\"alloc\",\"client\":\"h01\",\"gpus\":63}"),
		"pool_full", "63 GPUs requested, 62 free");
	refused(ask(&d, &user, "{\"op\":\"alloc\",\"client\":\"nohost\",\"gpus\":1}"),
		"unknown_host", "client 'nohost' has no cabled port in the fabric");
	refused(ask(&d, &user, "{\"op\":\"alloc\",\"client\":\"h01\",\"gpus\":1,\"colour\":1}"),
		"bad_request", "unknown field 'colour'");
	refused(ask(&d, &user, "{\"op\":\"alloc\",\"client\":\"h01\"}"),
		"bad_request", "missing field 'gpus'");

	/* the owner or root; another uid is told whose it is */
	refused(ask(&d, &(struct sm_peer){ .uid = 1001, .may_connect = true,
					   .ticket = 1 },
		    "{\"op\":\"release\",\"id\":\"1\"}"),
		"forbidden", "allocation 1 belongs to uid 1000");
	r = ask(&d, &user, "{\"op\":\"release\",\"id\":\"1\"}");
	CU_ASSERT_TRUE(is_ok(r));
	CU_ASSERT_STRING_EQUAL(str(r, "id", NULL), "1");
	json_object_put(r);
	refused(ask(&d, &root, "{\"op\":\"release\",\"id\":\"1\"}"),
		"not_found", "no allocation 1");
	refused(ask(&d, &root, "{\"op\":\"release\",\"id\":\"abc\"}"),
		"bad_request", "field 'id' must be an allocation id, not 'abc'");
	daemon_down(&d, pool);
}

/* renew restarts the lease from now; a lease past its end is gone. */
static void test_leases(void)
{
	struct pool *pool;
	struct poold d;
	json_object *r;

	CU_ASSERT_EQUAL_FATAL(daemon_up(&d, &pool), 0);
	accepted(ask(&d, &user, "{\"op\":\"alloc\",\"client\":\"h02\",\"gpus\":1,\"lease_s\":10}"));
	accepted(ask(&d, &root, "{\"op\":\"alloc\",\"client\":\"h02\",\"gpus\":1,\"lease_s\":20}"));
	clock_now = OPS_T0 + 5;
	r = ask(&d, &root, "{\"op\":\"renew\",\"id\":\"1\",\"lease_s\":100}");
	CU_ASSERT_TRUE(is_ok(r));
	CU_ASSERT_STRING_EQUAL(str(r, "id", NULL), "1");
	CU_ASSERT_EQUAL(num(r, "expires", NULL), OPS_T0 + 105);
	json_object_put(r);

	clock_now = OPS_T0 + 20;
	CU_ASSERT_EQUAL(poold_tick(&d, false), 0);
	r = ask(&d, &user, "{\"op\":\"alloc.list\"}");
	CU_ASSERT_EQUAL(len(r, "allocs"), 1);
	CU_ASSERT_STRING_EQUAL(str(json_object_array_get_idx(
		at(r, "allocs", NULL), 0), "id", NULL), "1");
	json_object_put(r);
	refused(ask(&d, &root, "{\"op\":\"renew\",\"id\":\"2\"}"),
		"not_found", "no allocation 2");
	daemon_down(&d, pool);
}

/* Jobs: root's or the group's to start; ending one releases its GPUs. */
static void test_jobs(void)
{
	struct pool *pool;
	struct poold d;
	json_object *r, *j;

	CU_ASSERT_EQUAL_FATAL(daemon_up(&d, &pool), 0);
	refused(ask(&d, &user, "{\"op\":\"job.start\",\"job\":\"j1\",\"hosts\":[\"h01\"]}"),
		"forbidden", "job.start needs root or [pool] group, which is not set (uid 1000; for Slurm's hooks, SlurmUser's group: group = slurm on Debian)");
	r = ask(&d, &root, "{\"op\":\"job.start\",\"job\":\"j1\",\"hosts\":[\"h01\",\"h02\"]}");
	CU_ASSERT_TRUE(is_ok(r));
	CU_ASSERT_STRING_EQUAL(str(r, "job", NULL), "j1");
	CU_ASSERT_PTR_NULL(at(r, "routing_refused", NULL));
	json_object_put(r);
	refused(ask(&d, &root, "{\"op\":\"job.start\",\"job\":\"j2\",\"hosts\":[\"h01\",\"h01\"]}"),
		"bad_request", "job 'j2': host 'h01' listed twice");
	refused(ask(&d, &root, "{\"op\":\"job.start\",\"job\":\"j2\",\"hosts\":[\"h99\"]}"),
		"unknown_host", "job 'j2': unknown host 'h99'");
	accepted(ask(&d, &user, "{\"op\":\"alloc\",\"client\":\"h01\",\"gpus\":2,\"job\":\"j1\"}"));

	r = ask(&d, &user, "{\"op\":\"job.list\"}");
	CU_ASSERT_EQUAL_FATAL(len(r, "jobs"), 1);
	j = json_object_array_get_idx(at(r, "jobs", NULL), 0);
	CU_ASSERT_STRING_EQUAL(str(j, "job", NULL), "j1");
	CU_ASSERT_EQUAL(len(j, "hosts"), 2);
	CU_ASSERT_EQUAL(len(j, "allocs"), 1);
	json_object_put(r);

	accepted(ask(&d, &root, "{\"op\":\"job.end\",\"job\":\"j1\"}"));
	r = ask(&d, &user, "{\"op\":\"pool.status\"}");
	CU_ASSERT_EQUAL(num(r, "free", NULL), 64);
	CU_ASSERT_EQUAL(num(r, "jobs", NULL), 0);
	json_object_put(r);
	refused(ask(&d, &root, "{\"op\":\"job.end\",\"job\":\"j1\"}"),
		"not_found", "no job 'j1'");
	daemon_down(&d, pool);
}

/* Over TCP without a credential only the reads; unknown ops by name. */
static void test_access(void)
{
	struct pool *pool;
	struct poold d;
	uint64_t seq;

	CU_ASSERT_EQUAL_FATAL(daemon_up(&d, &pool), 0);
	seq = pool_seq(pool);
	refused(ask(&d, &tcp, "{\"op\":\"alloc\",\"client\":\"h01\",\"gpus\":1}"),
		"forbidden", "alloc over TCP: no credentials; send it in a MUNGE credential, or use the Unix socket");
	/* before the fields are checked */
	refused(ask(&d, &tcp, "{\"op\":\"release\",\"colour\":1}"),
		"forbidden", "release over TCP: no credentials; send it in a MUNGE credential, or use the Unix socket");
	CU_ASSERT_EQUAL(pool_seq(pool), seq);
	accepted(ask(&d, &tcp, "{\"op\":\"pool.status\"}"));
	accepted(ask(&d, &tcp, "{\"op\":\"job.list\"}"));
	refused(ask(&d, &root, "{\"op\":\"frobnicate\"}"), "unknown_op",
		"unknown op 'frobnicate'");
	refused(ask(&d, &root, "{\"op\":\"topology.export\",\"format\":\"dot\"}"),
		"bad_request", "field 'format' must be slurm-tree, slurm-block, slurm-yaml, k8s-labels, kueue, slurm-gres or k8s-hami, not 'dot'");
	daemon_down(&d, pool);
}

/*
 * A credential's uid that could not open the socket changes nothing
 * over TCP (it still reads); the per-uid caps bind every uid but root.
 */
static void test_socket_rule_and_caps(void)
{
	const struct sm_peer barred = { .remote = true, .munge = true,
					.uid = 65534, .gid = 65534,
					.ticket = 1, .addr = "127.0.0.1:1" };
	struct pool_config saved = cfg;
	struct pool *pool;
	struct poold d;

	CU_ASSERT_EQUAL_FATAL(daemon_up(&d, &pool), 0);
	refused(ask(&d, &barred, "{\"op\":\"alloc\",\"client\":\"h01\",\"gpus\":1}"),
		"forbidden", "alloc over TCP: uid 65534 could not open the pool socket (socket_mode 0660), so it may not change the pool over TCP either");
	accepted(ask(&d, &barred, "{\"op\":\"alloc.list\"}"));

	cfg.max_gpus_per_uid = 3;
	cfg.max_lease_s = 600;
	accepted(ask(&d, &user, "{\"op\":\"alloc\",\"client\":\"h01\",\"gpus\":2}"));
	refused(ask(&d, &user, "{\"op\":\"alloc\",\"client\":\"h01\",\"gpus\":2}"),
		"forbidden", "uid 1000 holds or waits for 2 GPUs and may hold 3 ([pool] max_gpus_per_uid): 2 more is too many");
	/* nor through the queue, gang or not */
	refused(ask(&d, &user, "{\"op\":\"alloc\",\"client\":\"h01\",\"gpus\":2,\"queue\":true}"),
		"forbidden", "uid 1000 holds or waits for 2 GPUs and may hold 3 ([pool] max_gpus_per_uid): 2 more is too many");
	refused(ask(&d, &user, "{\"op\":\"submit\",\"client\":\"h01\",\"gpus\":16,\"hosts\":2,\"gpus_per_host\":8}"),
		"forbidden", "uid 1000 holds or waits for 2 GPUs and may hold 3 ([pool] max_gpus_per_uid): 16 more is too many");
	refused(ask(&d, &user, "{\"op\":\"alloc\",\"client\":\"h01\",\"gpus\":1,\"queue\":true,\"lease_s\":601}"),
		"forbidden", "a lease of 601 s is longer than uid 1000 may have ([pool] max_lease_s = 600)");
	accepted(ask(&d, &user, "{\"op\":\"alloc\",\"client\":\"h01\",\"gpus\":1}"));
	refused(ask(&d, &(struct sm_peer){ .uid = 1001, .may_connect = true,
					   .ticket = 1 },
		    "{\"op\":\"alloc\",\"client\":\"h01\",\"gpus\":1,\"lease_s\":601}"),
		"forbidden", "a lease of 601 s is longer than uid 1001 may have ([pool] max_lease_s = 600)");
	refused(ask(&d, &user, "{\"op\":\"renew\",\"id\":\"1\",\"lease_s\":601}"),
		"forbidden", "a lease of 601 s is longer than uid 1000 may have ([pool] max_lease_s = 600)");
	accepted(ask(&d, &user, "{\"op\":\"renew\",\"id\":\"1\",\"lease_s\":600}"));
	/* released GPUs count no more; root has no cap */
	accepted(ask(&d, &user, "{\"op\":\"release\",\"id\":\"1\"}"));
	accepted(ask(&d, &user, "{\"op\":\"alloc\",\"client\":\"h01\",\"gpus\":2}"));
	accepted(ask(&d, &root, "{\"op\":\"alloc\",\"client\":\"h01\",\"gpus\":8,\"lease_s\":86400}"));
	cfg = saved;
	daemon_down(&d, pool);
}

/* A share counts toward max_gpus_per_uid as its milli, not a GPU. */
static void test_caps_count_shares(void)
{
	struct pool_config saved = cfg;
	struct pool *pool;
	struct poold d;
	int i;

	CU_ASSERT_EQUAL_FATAL(daemon_up(&d, &pool), 0);
	cfg.max_gpus_per_uid = 2;
	accepted(ask(&d, &user, "{\"op\":\"alloc\",\"client\":\"h01\",\"gpus\":1}"));
	for (i = 0; i < 3; i++)
		accepted(ask(&d, &user, "{\"op\":\"alloc\",\"client\":\"h01\",\"gpu_milli\":250}"));
	/* the queue counts a share the same way */
	accepted(ask(&d, &user, "{\"op\":\"alloc\",\"client\":\"h01\",\"gpu_milli\":250,\"queue\":true}"));
	refused(ask(&d, &user, "{\"op\":\"alloc\",\"client\":\"h01\",\"gpu_milli\":1}"),
		"forbidden", "uid 1000 holds or waits for 2 GPUs and may hold 2 ([pool] max_gpus_per_uid): 0.001 more is too many");
	accepted(ask(&d, &user, "{\"op\":\"release\",\"id\":\"2\"}"));
	refused(ask(&d, &user, "{\"op\":\"alloc\",\"client\":\"h01\",\"gpus\":1}"),
		"forbidden", "uid 1000 holds or waits for 1.75 GPUs and may hold 2 ([pool] max_gpus_per_uid): 1 more is too many");
	accepted(ask(&d, &user, "{\"op\":\"alloc\",\"client\":\"h01\",\"gpu_milli\":250}"));
	cfg = saved;
	daemon_down(&d, pool);
}

static void test_place(void)
{
	struct pool *pool;
	struct poold d;
	json_object *r;

	CU_ASSERT_EQUAL_FATAL(daemon_up(&d, &pool), 0);
	r = ask(&d, &user, "{\"op\":\"place\",\"gpus\":8,\"gpus_per_host\":4}");
	CU_ASSERT_TRUE(is_ok(r));
	CU_ASSERT_EQUAL(len(r, "hosts"), 2);
	CU_ASSERT_EQUAL(num(r, "score", "level"), 0);
	CU_ASSERT_EQUAL(num(r, "score", "leaves"), 1);
	json_object_put(r);
	refused(ask(&d, &user, "{\"op\":\"place\",\"gpus\":128,\"gpus_per_host\":4}"),
		"bad_request", "32 hosts with 4 free GPUs needed, 16 have them");
	CU_ASSERT_EQUAL(pool_nallocs(pool), 0);
	daemon_down(&d, pool);
}

/* Each operation counts its answers and times them. */
static void test_opstat(void)
{
	struct pool *pool;
	struct poold d;
	size_t i, alloc = POOLD_NOPS;

	CU_ASSERT_EQUAL_FATAL(daemon_up(&d, &pool), 0);
	CU_ASSERT_STRING_EQUAL(poold_op_name(0), "pool.status");
	for (i = 0; i < POOLD_NOPS; i++)
		if (!strcmp(poold_op_name(i), "alloc"))
			alloc = i;
	CU_ASSERT_FATAL(alloc < POOLD_NOPS);
	accepted(ask(&d, &user, "{\"op\":\"alloc\",\"client\":\"h01\",\"gpus\":1}"));
	refused(ask(&d, &user, "{\"op\":\"alloc\",\"client\":\"h01\",\"gpus\":64}"),
		"pool_full", "64 GPUs requested, 63 free");
	/* refused before its handler ran: not the handler's to count */
	refused(ask(&d, &tcp, "{\"op\":\"alloc\",\"client\":\"h01\",\"gpus\":1}"),
		"forbidden", "alloc over TCP: no credentials; send it in a MUNGE credential, or use the Unix socket");
	CU_ASSERT_EQUAL(d.opstat[alloc].ok, 1);
	CU_ASSERT_EQUAL(d.opstat[alloc].err, 1);
	CU_ASSERT_EQUAL(d.opstat[alloc].time.count, 2);
	CU_ASSERT_EQUAL(d.opstat[0].ok + d.opstat[0].err, 0);
	daemon_down(&d, pool);
}

/*
 * With group commit and no commit thread, a change's reply waits for
 * the handler's own sync: when it comes, the journal holds the change.
 */
static void test_durable_reply(void)
{
	char dir[] = "/tmp/gpuaware-ops-XXXXXX", path[64], err[512];
	struct pool *pool;
	struct poold d;

	CU_ASSERT_PTR_NOT_NULL_FATAL(mkdtemp(dir));
	CU_ASSERT_EQUAL_FATAL(daemon_up(&d, &pool), 0);
	CU_ASSERT_EQUAL_FATAL(pool_open_state(pool, dir, OPS_T0, err,
					      sizeof(err)), 0);
	pool_group_commit(pool);
	accepted(ask(&d, &user, "{\"op\":\"alloc\",\"client\":\"h03\",\"gpus\":1}"));
	CU_ASSERT_TRUE(pool_seq(pool) > 0);
	CU_ASSERT_EQUAL(pool_durable(pool), pool_seq(pool));
	daemon_down(&d, pool);
	snprintf(path, sizeof(path), "%s/journal.jsonl", dir);
	unlink(path);
	snprintf(path, sizeof(path), "%s/snapshot.json", dir);
	unlink(path);
	rmdir(dir);
}

/* --- the queue --- */

/* The whole pool (64 GPUs) to root: allocation 1. */
static void fill(struct poold *d)
{
	json_object *r = ask(d, &root, "{\"op\":\"alloc\",\"client\":\"h01\",\"gpus\":64}");

	CU_ASSERT_STRING_EQUAL(str(r, "id", NULL), "1");
	json_object_put(r);
}

/* The reply queued under ticket t; r is released. */
static void queued(json_object *r, const char *t)
{
	CU_ASSERT_TRUE(is_ok(r));
	CU_ASSERT_STRING_EQUAL(str(r, "ticket", NULL), t);
	CU_ASSERT_TRUE(json_object_get_boolean(at(r, "queued", NULL)));
	json_object_put(r);
}

static size_t count(struct poold *d, const char *op, const char *arr)
{
	char line[64];
	json_object *r;
	size_t n;

	snprintf(line, sizeof(line), "{\"op\":\"%s\"}", op);
	r = ask(d, &root, line);
	n = len(r, arr);
	json_object_put(r);
	return n;
}

/* Hosts of allocation id, each with its GPU count, as "h01:4 h02:4". */
static void hosts_of(struct pool *pool, uint64_t id, char *buf, size_t n)
{
	const struct pool_alloc *a = pool_alloc_find(pool, id);
	unsigned int g, k = 0;
	size_t at = 0;

	buf[0] = '\0';
	for (g = 0; a && g < a->ngpus; g++) {
		k++;
		if (g + 1 < a->ngpus && a->gpus[g + 1].host == a->gpus[g].host)
			continue;
		at += snprintf(buf + at, n - at, "%s%s:%u", at ? " " : "",
			       cfg.hosts[a->gpus[g].host].name, k);
		k = 0;
	}
}

static void test_queue(void)
{
	struct pool *pool;
	struct poold d;
	json_object *r;
	char hosts[128];

	CU_ASSERT_EQUAL_FATAL(daemon_up(&d, &pool), 0);
	fill(&d);
	refused(ask(&d, &user, "{\"op\":\"alloc\",\"client\":\"h01\",\"gpus\":1}"),
		"pool_full", "1 GPUs requested, 0 free");
	refused(ask(&d, &user, "{\"op\":\"alloc\",\"client\":\"h01\",\"gpus\":65,\"queue\":true}"),
		"bad_request", "65 GPUs can never fit this pool");
	refused(ask(&d, &user, "{\"op\":\"alloc\",\"client\":\"h01\",\"gpus\":1,\"queue\":true,\"class\":\"gold\"}"),
		"bad_request", "unknown class 'gold'");
	queued(ask(&d, &user, "{\"op\":\"alloc\",\"client\":\"h02\",\"gpus\":3,\"queue\":true,\"lease_s\":60}"), "1");
	queued(ask(&d, &user, "{\"op\":\"submit\",\"client\":\"h03\",\"gpus\":8,\"hosts\":2,\"gpus_per_host\":4}"), "2");
	queued(ask(&d, &user, "{\"op\":\"alloc\",\"client\":\"h04\",\"gpus\":1,\"queue\":true}"), "3");
	refused(ask(&d, &user, "{\"op\":\"submit\",\"client\":\"h03\",\"gpus\":9,\"hosts\":2,\"gpus_per_host\":4}"),
		"bad_request", "9 GPUs do not make 2 hosts of 4 (the last one may have fewer)");
	CU_ASSERT_EQUAL(count(&d, "queue.list", "queue"), 3);

	/* cancel: the owner's or root's */
	refused(ask(&d, &(struct sm_peer){ .uid = 1001, .may_connect = true,
					   .ticket = 1 },
		    "{\"op\":\"cancel\",\"ticket\":\"3\"}"),
		"forbidden", "ticket 3 belongs to uid 1000");
	accepted(ask(&d, &user, "{\"op\":\"cancel\",\"ticket\":\"3\"}"));
	refused(ask(&d, &user, "{\"op\":\"cancel\",\"ticket\":\"3\"}"),
		"not_found", "no queued ticket 3");
	CU_ASSERT_EQUAL(count(&d, "queue.list", "queue"), 2);

	/* a release grants, in queue order, as the journal records it */
	clock_now = OPS_T0 + 10;
	accepted(ask(&d, &root, "{\"op\":\"release\",\"id\":\"1\"}"));
	CU_ASSERT_EQUAL(count(&d, "queue.list", "queue"), 0);
	CU_ASSERT_EQUAL(count(&d, "alloc.list", "allocs"), 2);
	CU_ASSERT_EQUAL_FATAL(pool_nallocs(pool), 2);
	CU_ASSERT_EQUAL(pool_alloc_find(pool, 2)->ngpus, 3);
	CU_ASSERT_EQUAL(pool_alloc_find(pool, 2)->uid, 1000);
	CU_ASSERT_EQUAL(pool_alloc_find(pool, 2)->expires, OPS_T0 + 70);
	CU_ASSERT_STRING_EQUAL(pool_alloc_find(pool, 2)->client, "h02");
	hosts_of(pool, 3, hosts, sizeof(hosts));
	CU_ASSERT_EQUAL(strlen(hosts), strlen("h01:4 h02:4"));
	CU_ASSERT_PTR_NOT_NULL(strstr(hosts, ":4 "));

	/* granted at once when it fits: the allocation with its ticket */
	r = ask(&d, &user, "{\"op\":\"alloc\",\"client\":\"h05\",\"gpus\":2,\"queue\":true}");
	CU_ASSERT_TRUE(is_ok(r));
	CU_ASSERT_STRING_EQUAL(str(r, "ticket", NULL), "4");
	CU_ASSERT_FALSE(json_object_get_boolean(at(r, "queued", NULL)));
	CU_ASSERT_STRING_EQUAL(str(r, "id", NULL), "4");
	CU_ASSERT_EQUAL(len(r, "gpus"), 2);
	json_object_put(r);
	daemon_down(&d, pool);
}

/*
 * Where Slurm schedules: the hosts of a started job are its, and the
 * queue waits for them; an allocation naming the job takes them.
 */
static void test_queue_jobs(void)
{
	struct pool *pool;
	struct poold d;
	json_object *r;

	CU_ASSERT_EQUAL_FATAL(daemon_up(&d, &pool), 0);
	accepted(ask(&d, &root, "{\"op\":\"alloc\",\"client\":\"h01\",\"gpus\":48}"));
	accepted(ask(&d, &root, "{\"op\":\"job.start\",\"job\":\"77\",\"hosts\":[\"h13\",\"h14\",\"h15\",\"h16\"]}"));
	CU_ASSERT_EQUAL(count(&d, "alloc.list", "allocs"), 1);
	queued(ask(&d, &user, "{\"op\":\"alloc\",\"client\":\"h02\",\"gpus\":1,\"queue\":true}"), "1");
	CU_ASSERT_EQUAL(poold_tick(&d, false), 0);
	CU_ASSERT_EQUAL(pool_nqueued(pool), 1);
	r = ask(&d, &root, "{\"op\":\"alloc\",\"client\":\"h13\",\"gpus\":4,\"job\":\"77\"}");
	CU_ASSERT_TRUE(is_ok(r));
	CU_ASSERT_STRING_EQUAL(str(r, "id", NULL), "2");
	json_object_put(r);
	CU_ASSERT_EQUAL(poold_tick(&d, false), 0);
	CU_ASSERT_EQUAL(pool_nqueued(pool), 1);
	/* the job ends: its GPUs and hosts go to the queue */
	accepted(ask(&d, &root, "{\"op\":\"job.end\",\"job\":\"77\"}"));
	CU_ASSERT_EQUAL(pool_nqueued(pool), 0);
	CU_ASSERT_EQUAL(pool_nallocs(pool), 2);
	CU_ASSERT_EQUAL(pool_alloc_at(pool, 1)->id, 3);
	CU_ASSERT_EQUAL(pool_alloc_at(pool, 1)->uid, 1000);
	daemon_down(&d, pool);
}

/*
 * A drained host takes nothing new, and what runs there runs on; back
 * in the pool, its GPUs go to the queue.
 */
static void test_queue_drain(void)
{
	struct pool *pool;
	struct poold d;
	json_object *r;
	char line[96];
	const char *x;

	CU_ASSERT_EQUAL_FATAL(daemon_up(&d, &pool), 0);
	accepted(ask(&d, &root, "{\"op\":\"alloc\",\"client\":\"h01\",\"gpus\":60}"));
	r = ask(&d, &user, "{\"op\":\"alloc\",\"client\":\"h01\",\"gpus\":1}");
	x = cfg.hosts[pool_alloc_find(pool, 2)->gpus[0].host].name;
	json_object_put(r);
	snprintf(line, sizeof(line), "{\"op\":\"host.drain\",\"host\":\"%s\"}", x);
	r = ask(&d, &root, line);
	CU_ASSERT_STRING_EQUAL(str(r, "state", NULL), "drained");
	json_object_put(r);
	CU_ASSERT_PTR_NOT_NULL(pool_alloc_find(pool, 2));
	/* nor to a direct allocation: the queue is not the only way in */
	refused(ask(&d, &user, "{\"op\":\"alloc\",\"client\":\"h01\",\"gpus\":1}"),
		"pool_full", "1 GPUs requested, 3 free, 3 of them on drained or failed hosts");
	queued(ask(&d, &user, "{\"op\":\"alloc\",\"client\":\"h01\",\"gpus\":3,\"queue\":true}"), "1");
	accepted(ask(&d, &user, "{\"op\":\"release\",\"id\":\"2\"}"));
	CU_ASSERT_EQUAL(poold_tick(&d, false), 0);
	CU_ASSERT_EQUAL(pool_nqueued(pool), 1);
	snprintf(line, sizeof(line), "{\"op\":\"host.resume\",\"host\":\"%s\"}", x);
	r = ask(&d, &root, line);
	CU_ASSERT_STRING_EQUAL(str(r, "state", NULL), "up");
	json_object_put(r);
	CU_ASSERT_EQUAL(pool_nqueued(pool), 0);
	CU_ASSERT_EQUAL(pool_nallocs(pool), 2);
	/* a failed host as a drained one; resumed, it gives again */
	accepted(ask(&d, &root, "{\"op\":\"release\",\"id\":\"3\"}"));
	snprintf(line, sizeof(line), "{\"op\":\"host.fail\",\"host\":\"%s\"}", x);
	accepted(ask(&d, &root, line));
	refused(ask(&d, &user, "{\"op\":\"alloc\",\"client\":\"h01\",\"gpus\":1}"),
		"pool_full", "1 GPUs requested, 4 free, 4 of them on drained or failed hosts");
	snprintf(line, sizeof(line), "{\"op\":\"host.resume\",\"host\":\"%s\"}", x);
	accepted(ask(&d, &root, line));
	accepted(ask(&d, &user, "{\"op\":\"alloc\",\"client\":\"h01\",\"gpus\":4}"));
	daemon_down(&d, pool);
}

/* A daemon on the state in dir at now, as after a restart. */
static int restart(struct poold *d, struct pool **pool, const char *dir,
		   time_t now)
{
	char err[512];

	if (load_once() || pool_new(&cfg, pool))
		return -1;
	if (pool_open_state(*pool, dir, now, err, sizeof(err)) ||
	    poold_init(d, &cfg, *pool, view, NULL, err, sizeof(err))) {
		fprintf(stderr, "test_ops: %s\n", err);
		pool_free(*pool);
		return -1;
	}
	d->now = test_clock;
	return 0;
}

static void remove_state(const char *dir)
{
	char path[96];

	snprintf(path, sizeof(path), "%s/journal.jsonl", dir);
	unlink(path);
	snprintf(path, sizeof(path), "%s/snapshot.json", dir);
	unlink(path);
	rmdir(dir);
}

/*
 * The queue outlives a restart (the journal, then a snapshot): the same
 * tickets wait, and what was granted before is not granted again.
 */
static void test_queue_restart(void)
{
	char dir[] = "/tmp/gpuaware-queue-XXXXXX";
	struct pool *pool;
	struct poold d;
	int pass;

	CU_ASSERT_PTR_NOT_NULL_FATAL(mkdtemp(dir));
	clock_now = OPS_T0;
	CU_ASSERT_EQUAL_FATAL(restart(&d, &pool, dir, clock_now), 0);
	fill(&d);
	queued(ask(&d, &user, "{\"op\":\"alloc\",\"client\":\"h02\",\"gpus\":59,\"queue\":true}"), "1");
	queued(ask(&d, &user, "{\"op\":\"alloc\",\"client\":\"h02\",\"gpus\":4,\"queue\":true}"), "2");
	queued(ask(&d, &user, "{\"op\":\"alloc\",\"client\":\"h02\",\"gpus\":8,\"queue\":true}"), "3");
	accepted(ask(&d, &user, "{\"op\":\"cancel\",\"ticket\":\"2\"}"));
	accepted(ask(&d, &root, "{\"op\":\"host.drain\",\"host\":\"h16\"}"));
	daemon_down(&d, pool);	/* as kill -9: nothing compacted */

	for (pass = 0; pass < 2; pass++) {
		clock_now++;
		CU_ASSERT_EQUAL_FATAL(restart(&d, &pool, dir, clock_now), 0);
		CU_ASSERT_EQUAL(pool_nqueued(pool), pass ? 1 : 2);
		/* the operator's word, from the journal, then the snapshot */
		CU_ASSERT_EQUAL(pool_host(pool, 15), POOL_HOST_DRAIN);
		CU_ASSERT_EQUAL(pool_nallocs(pool), pass ? 2 : 1);
		if (!pass) {
			CU_ASSERT_EQUAL(pool_queued_at(pool, 0)->ticket, 1);
			CU_ASSERT_EQUAL(pool_queued_at(pool, 1)->ticket, 3);
			/* ticket 1 (59 GPUs) goes first, 3 waits behind it */
			accepted(ask(&d, &root, "{\"op\":\"release\",\"id\":\"1\"}"));
			CU_ASSERT_EQUAL(pool_nqueued(pool), 1);
			CU_ASSERT_EQUAL(pool_queued_at(pool, 0)->ticket, 3);
			CU_ASSERT_EQUAL(pool_nallocs(pool), 1);
			CU_ASSERT_EQUAL(pool_alloc_at(pool, 0)->ngpus, 59);
			/* a second alloc beside the grant, then a snapshot */
			accepted(ask(&d, &root, "{\"op\":\"alloc\",\"client\":\"h01\",\"gpus\":1}"));
			CU_ASSERT_EQUAL(poold_tick(&d, true), 0);
		} else {
			CU_ASSERT_EQUAL(pool_queued_at(pool, 0)->ticket, 3);
			CU_ASSERT_EQUAL(pool_alloc_at(pool, 0)->ngpus, 59);
			CU_ASSERT_PTR_NOT_NULL(pool_alloc_at(pool, 0)->req);
			/* ticket 3 (8) does not fit the 4 on drained h16 */
			CU_ASSERT_EQUAL(poold_tick(&d, false), 0);
			CU_ASSERT_EQUAL(pool_nqueued(pool), 1);
			queued(ask(&d, &user, "{\"op\":\"alloc\",\"client\":\"h02\",\"gpus\":8,\"queue\":true}"), "4");
		}
		daemon_down(&d, pool);
	}
	remove_state(dir);
}

/* A watcher's end of a real server over a socket in the temp dir. */
struct watcher {
	char dir[32], path[64];
	struct sm_server *srv;
	int fd;
	char buf[65536];
	size_t n;
};

/* w's connection to its server, sending the request line; 0 or -1. */
static int watch_connect(struct watcher *w, const char *line)
{
	struct sockaddr_un a = { .sun_family = AF_UNIX };

	w->n = 0;
	snprintf(a.sun_path, sizeof(a.sun_path), "%s", w->path);
	w->fd = socket(AF_UNIX, SOCK_STREAM, 0);
	if (w->fd < 0 || connect(w->fd, (struct sockaddr *)&a, sizeof(a)) ||
	    write(w->fd, line, strlen(line)) != (ssize_t)strlen(line))
		return -1;
	return 0;
}

/* A server for d in a temp dir and a watcher of every event on it. */
static int watch_start(struct watcher *w, struct poold *d)
{
	struct sm_server_config c = { .handler = poold_handle, .ctx = d,
				      .group = SM_NO_GROUP };
	char err[256];

	strcpy(w->dir, "/tmp/gpuaware-watch-XXXXXX");
	if (!mkdtemp(w->dir))
		return -1;
	snprintf(w->path, sizeof(w->path), "%s/pool.sock", w->dir);
	c.path = w->path;
	if (sm_server_start(&c, &w->srv, err, sizeof(err)))
		return -1;
	d->srv = w->srv;
	return watch_connect(w, "{\"op\":\"watch\"}\n");
}

static void watch_stop(struct watcher *w, struct poold *d)
{
	close(w->fd);
	sm_server_stop(w->srv);
	d->srv = NULL;
	rmdir(w->dir);
}

/*
 * The next line the watcher gets within a second, parsed; NULL when
 * none came.
 */
static json_object *next_line(struct watcher *w)
{
	struct pollfd p = { .fd = w->fd, .events = POLLIN };
	json_object *o;
	char *nl;
	ssize_t r;

	while (!(nl = memchr(w->buf, '\n', w->n))) {
		if (poll(&p, 1, 1000) <= 0)
			return NULL;
		r = read(w->fd, w->buf + w->n, sizeof(w->buf) - w->n);
		if (r <= 0)
			return NULL;
		w->n += r;
	}
	*nl = '\0';
	o = json_tokener_parse(w->buf);
	w->n -= nl + 1 - w->buf;
	memmove(w->buf, nl + 1, w->n);
	return o;
}

/* The next event is kind for ticket and allocation id; released. */
static void event(struct watcher *w, const char *kind, const char *ticket,
		  const char *id)
{
	json_object *e = next_line(w);

	CU_ASSERT_PTR_NOT_NULL_FATAL(e);
	CU_ASSERT_STRING_EQUAL(str(e, "event", NULL), kind);
	CU_ASSERT_STRING_EQUAL(str(e, "ticket", NULL), ticket);
	CU_ASSERT_STRING_EQUAL(str(e, "id", NULL), id);
	json_object_put(e);
}

/*
 * Watch: granted (with the allocation), expired, then a host failed:
 * lost and replaced at once while there is room, else requeued.
 */
static void test_watch(void)
{
	char h[128], line[64];
	struct watcher w;
	struct pool *pool;
	struct poold d;
	json_object *e;

	CU_ASSERT_EQUAL_FATAL(daemon_up(&d, &pool), 0);
	CU_ASSERT_EQUAL_FATAL(watch_start(&w, &d), 0);
	e = next_line(&w);
	CU_ASSERT_TRUE(is_ok(e));
	CU_ASSERT_TRUE(json_object_get_boolean(at(e, "watching", NULL)));
	json_object_put(e);

	accepted(ask(&d, &root, "{\"op\":\"alloc\",\"client\":\"h01\",\"gpus\":60,\"lease_s\":30}"));
	queued(ask(&d, &user, "{\"op\":\"submit\",\"client\":\"h02\",\"gpus\":8,\"hosts\":2,\"gpus_per_host\":4}"), "1");
	event(&w, "queued", "1", "(none)");
	clock_now = OPS_T0 + 30;
	CU_ASSERT_EQUAL(poold_tick(&d, false), 0);
	event(&w, "expired", "(none)", "1");
	e = next_line(&w);
	CU_ASSERT_STRING_EQUAL(str(e, "event", NULL), "granted");
	CU_ASSERT_STRING_EQUAL(str(e, "ticket", NULL), "1");
	CU_ASSERT_STRING_EQUAL(str(e, "alloc", "id"), "2");
	CU_ASSERT_EQUAL(num(e, "alloc", "uid"), 1000);
	CU_ASSERT_EQUAL(len(at(e, "alloc", NULL), "gpus"), 8);
	json_object_put(e);

	/* a host of the gang fails: replaced while hosts are free */
	CU_ASSERT_EQUAL_FATAL(pool_nallocs(pool), 1);
	refused(ask(&d, &user, "{\"op\":\"host.fail\",\"host\":\"h01\"}"),
		"forbidden", "host.fail needs root (uid 1000)");
	e = ask(&d, &root, "{\"op\":\"host.fail\",\"host\":\"nohost\"}");
	CU_ASSERT_STRING_EQUAL(str(e, "error", "code"), "unknown_host");
	json_object_put(e);
	accepted(ask(&d, &root, "{\"op\":\"host.fail\",\"host\":\"h02\"}"));
	event(&w, "lost", "1", "2");
	event(&w, "replaced", "1", "2");
	CU_ASSERT_EQUAL(pool_alloc_find(pool, 2)->ngpus, 8);
	CU_ASSERT_EQUAL(pool_free_gpus(pool, 1), 4);

	/* nowhere to go: the gang goes back to the queue, at its head */
	accepted(ask(&d, &root, "{\"op\":\"alloc\",\"client\":\"h01\",\"gpus\":52}"));
	hosts_of(pool, 2, h, sizeof(h));
	snprintf(line, sizeof(line), "{\"op\":\"host.fail\",\"host\":\"%.3s\"}", h);
	accepted(ask(&d, &root, line));
	event(&w, "lost", "1", "2");
	event(&w, "requeued", "1", "2");
	CU_ASSERT_EQUAL(pool_nqueued(pool), 1);
	CU_ASSERT_PTR_NULL(pool_alloc_find(pool, 2));
	accepted(ask(&d, &root, "{\"op\":\"host.resume\",\"host\":\"h02\"}"));
	watch_stop(&w, &d);
	daemon_down(&d, pool);
}

/*
 * [sched] priority with preemption: a high-class request takes the GPUs
 * of a low one after the notice; the low one is queued again, durably
 * (its ticket back in the pool's queue), and granted when they free.
 */
static void test_preempt(void)
{
	static char low[] = "low", high[] = "high";
	struct pool_sched_cfg keep = cfg.sched;
	struct watcher w;
	struct pool *pool;
	struct poold d;
	json_object *e;

	CU_ASSERT_EQUAL_FATAL(load_once(), 0);
	cfg.sched.policy = SCH_PRIORITY;
	cfg.sched.preempt = true;
	cfg.sched.grace_s = 10;
	cfg.sched.classes[0] = low;
	cfg.sched.classes[1] = high;
	cfg.sched.nclasses = 2;
	cfg.sched.default_class = 0;
	CU_ASSERT_EQUAL_FATAL(daemon_up(&d, &pool), 0);
	CU_ASSERT_EQUAL_FATAL(watch_start(&w, &d), 0);
	json_object_put(next_line(&w));
	e = ask(&d, &user, "{\"op\":\"alloc\",\"client\":\"h01\",\"gpus\":64,\"queue\":true}");
	CU_ASSERT_FALSE(json_object_get_boolean(at(e, "queued", NULL)));
	json_object_put(e);
	event(&w, "queued", "1", "(none)");
	event(&w, "granted", "1", "1");
	queued(ask(&d, &root, "{\"op\":\"alloc\",\"client\":\"h02\",\"gpus\":8,\"queue\":true,\"class\":\"high\"}"), "2");
	event(&w, "queued", "2", "(none)");
	e = next_line(&w);
	CU_ASSERT_STRING_EQUAL(str(e, "event", NULL), "preempt-notice");
	CU_ASSERT_STRING_EQUAL(str(e, "id", NULL), "1");
	CU_ASSERT_EQUAL(num(e, "deadline", NULL), OPS_T0 + 10);
	json_object_put(e);
	clock_now = OPS_T0 + 10;
	CU_ASSERT_EQUAL(poold_tick(&d, false), 0);
	event(&w, "preempted", "1", "1");
	event(&w, "granted", "2", "2");
	CU_ASSERT_EQUAL_FATAL(pool_nqueued(pool), 1);
	CU_ASSERT_EQUAL(pool_queued_at(pool, 0)->ticket, 1);
	CU_ASSERT_EQUAL(pool_nallocs(pool), 1);
	accepted(ask(&d, &root, "{\"op\":\"release\",\"id\":\"2\"}"));
	event(&w, "granted", "1", "3");
	watch_stop(&w, &d);
	daemon_down(&d, pool);
	cfg.sched = keep;
}

#define RAIL_NET "ibsim-configs/rail-small.net"

/* in without the cable of CA ca ("node0001 mlx5_1"), into out; 0 or -1. */
static int drop_cable(const char *in, const char *out, const char *ca)
{
	char line[256], name[64], hca[80];
	FILE *i = fopen(in, "r"), *o = fopen(out, "w");
	bool skip = false;
	int ret = i && o ? 0 : -1;

	snprintf(name, sizeof(name), "\"%s\"[", ca);
	snprintf(hca, sizeof(hca), "Hca\t1 \"%s\"", ca);
	while (!ret && fgets(line, sizeof(line), i)) {
		/* the switch's port to it, and its own port line */
		if (strstr(line, name) || skip) {
			skip = false;
			continue;
		}
		skip = !strncmp(line, hca, strlen(hca));
		if (fputs(line, o) == EOF)
			ret = -1;
	}
	if (i)
		fclose(i);
	if (o && fclose(o))
		ret = -1;
	return ret;
}

/* node0001..node0004 of rail-small: 4 GPUs behind 4 HCAs, one a rail. */
static int rail_conf(const char *path)
{
	FILE *o = fopen(path, "w");
	int k, ret;

	if (!o)
		return -1;
	fprintf(o, "[pool]\nsocket = /run/x.sock\nstate_dir = /var/lib/x\nsm_socket = /run/y.sock\n");
	for (k = 1; k <= 4; k++)
		fprintf(o, "[host node%04d]\ngpus = 4\ngpu_type = H100\nhca = node%04d mlx5_0, node%04d mlx5_1, node%04d mlx5_2, node%04d mlx5_3\n",
			k, k, k, k, k);
	ret = fclose(o) ? -1 : 0;
	return ret;
}

/* d's view becomes the fabric of net; 0 or -1. */
static int rediscover(struct poold *d, const char *net)
{
	struct pool_view *v, *old;
	char err[512];

	if (pool_view_offline(net, 0, RT_ENGINE_AUTO, &v, err, sizeof(err)) ||
	    poold_swap_view(d, v, &old, err, sizeof(err))) {
		fprintf(stderr, "test_ops: %s\n", err);
		return -1;
	}
	pool_view_free(old);
	return 0;
}

/* Whether allocation id holds GPU g of config host h. */
static bool holds_gpu(struct pool *pool, uint64_t id, uint32_t h,
		      unsigned int g)
{
	const struct pool_alloc *a = pool_alloc_find(pool, id);
	unsigned int i;

	for (i = 0; a && i < a->ngpus; i++)
		if (a->gpus[i].host == h && a->gpus[i].gpu == g)
			return true;
	return false;
}

/* A pool and daemon over rail-small in a directory of their own. */
struct rail_pool {
	char dir[32], conf[64], cut[64];
	struct pool_config rc;
	struct pool *pool;
	struct poold d;
};

/* rp up (its dir a mkdtemp() template), its clock at OPS_T0: 0 or -1. */
static int rail_up(struct rail_pool *rp)
{
	struct pool_view *v;
	char err[512];

	if (!mkdtemp(rp->dir))
		return -1;
	snprintf(rp->conf, sizeof(rp->conf), "%s/pool.conf", rp->dir);
	snprintf(rp->cut, sizeof(rp->cut), "%s/cut.net", rp->dir);
	if (rail_conf(rp->conf) ||
	    pool_config_load(rp->conf, &rp->rc, err, sizeof(err)) ||
	    pool_view_offline(RAIL_NET, 0, RT_ENGINE_AUTO, &v, err,
			      sizeof(err)))
		return -1;
	if (pool_new(&rp->rc, &rp->pool) ||
	    poold_init(&rp->d, &rp->rc, rp->pool, v, NULL, err, sizeof(err)))
		return -1;
	clock_now = OPS_T0;
	rp->d.now = test_clock;
	return 0;
}

static void rail_down(struct rail_pool *rp)
{
	daemon_down(&rp->d, rp->pool);
	pool_view_free(rp->d.view);
	pool_config_release(&rp->rc);
	unlink(rp->cut);
	unlink(rp->conf);
	rmdir(rp->dir);
}

/*
 * One HCA of a 4-rail host (its cable) leaves the fabric at a
 * rediscovery: the allocation with the GPU behind it is lost and
 * replaced, the GPU is offered to nobody, direct or queued, until the
 * HCA is back; lost again with no room, a direct allocation is revoked.
 */
static void test_rail_lost(void)
{
	struct rail_pool rp = { .dir = "/tmp/gpuaware-rail-XXXXXX" };
	struct pool_config *rc = &rp.rc;
	struct poold *d = &rp.d;
	struct pool *pool;
	struct watcher w;
	uint32_t x;
	unsigned int g;
	char ca[32];

	CU_ASSERT_EQUAL_FATAL(rail_up(&rp), 0);
	pool = rp.pool;
	CU_ASSERT_EQUAL_FATAL(watch_start(&w, d), 0);
	json_object_put(next_line(&w));

	accepted(ask(d, &user, "{\"op\":\"alloc\",\"client\":\"node0001\",\"gpus\":4}"));
	CU_ASSERT_EQUAL_FATAL(pool_alloc_find(pool, 1)->ngpus, 4);
	x = pool_alloc_find(pool, 1)->gpus[1].host;
	g = pool_alloc_find(pool, 1)->gpus[1].gpu;
	snprintf(ca, sizeof(ca), "%s mlx5_%u", rc->hosts[x].name,
		 pool_gpu_rail(&rc->hosts[x], g));
	CU_ASSERT_EQUAL_FATAL(drop_cable(RAIL_NET, rp.cut, ca), 0);

	/* the cable goes: lost, replaced, the same id and size */
	CU_ASSERT_EQUAL_FATAL(rediscover(d, rp.cut), 0);
	CU_ASSERT_EQUAL(poold_queue_host(d->queue, x), POOL_HOST_UP);
	event(&w, "lost", "(none)", "1");
	event(&w, "replaced", "(none)", "1");
	CU_ASSERT_EQUAL(pool_alloc_find(pool, 1)->ngpus, 4);
	CU_ASSERT_FALSE(holds_gpu(pool, 1, x, g));
	CU_ASSERT_EQUAL(d->lost, 1);

	/* the GPU behind it goes to nobody: 11 left of 16 */
	refused(ask(d, &root, "{\"op\":\"alloc\",\"client\":\"node0001\",\"gpus\":12}"),
		"pool_full", "12 GPUs requested, 12 free, 1 of them unreachable from node0001");
	accepted(ask(d, &root, "{\"op\":\"alloc\",\"client\":\"node0001\",\"gpus\":11}"));
	queued(ask(d, &user, "{\"op\":\"alloc\",\"client\":\"node0002\",\"gpus\":1,\"queue\":true}"), "1");
	event(&w, "queued", "1", "(none)");
	CU_ASSERT_EQUAL(poold_tick(d, false), 0);
	CU_ASSERT_EQUAL(pool_nqueued(pool), 1);

	/* back: the queue takes it */
	CU_ASSERT_EQUAL_FATAL(rediscover(d, RAIL_NET), 0);
	event(&w, "granted", "1", "3");
	CU_ASSERT_TRUE(holds_gpu(pool, 3, x, g));

	/* gone again with no room: the grant goes back to the queue */
	CU_ASSERT_EQUAL_FATAL(rediscover(d, rp.cut), 0);
	event(&w, "lost", "1", "3");
	event(&w, "requeued", "1", "3");
	CU_ASSERT_PTR_NULL(pool_alloc_find(pool, 3));
	CU_ASSERT_EQUAL(pool_nqueued(pool), 1);
	CU_ASSERT_EQUAL(pool_gpu_owner(pool, x, g), 0);
	CU_ASSERT_EQUAL(d->lost, 2);

	watch_stop(&w, d);
	rail_down(&rp);
}

/* The first GPU but not_g of not_h with lo..hi milli out, into h, g. */
static bool gpu_at(const struct pool *pool, const struct pool_config *rc,
		   unsigned int lo, unsigned int hi, uint32_t not_h,
		   unsigned int not_g, uint32_t *h, unsigned int *g)
{
	unsigned int u;

	for (*h = 0; *h < rc->nhosts; (*h)++)
		for (*g = 0; *g < rc->hosts[*h].gpus; (*g)++)
			if ((u = pool_gpu_used(pool, *h, *g)) >= lo && u <= hi &&
			    (*h != not_h || *g != not_g))
				return true;
	return false;
}

/*
 * A share behind a lost HCA keeps its shape: replaced by the same milli
 * and RDMA bandwidth on a GPU another share leaves room on (as a share
 * is placed), where no GPU is free whole; the other share stays too.
 */
static void test_rail_lost_share(void)
{
	struct rail_pool rp = { .dir = "/tmp/gpuaware-rail-XXXXXX" };
	struct pool_config *rc = &rp.rc;
	struct poold *d = &rp.d;
	const struct pool_alloc *a;
	struct pool *pool;
	uint32_t fh, zh;
	unsigned int fg, zg;
	char ca[32];

	CU_ASSERT_EQUAL_FATAL(rail_up(&rp), 0);
	pool = rp.pool;

	/* the share on F, alone; then every GPU but F and Z held whole */
	accepted(ask(d, &root, "{\"op\":\"alloc\",\"client\":\"node0001\",\"gpus\":15}"));
	CU_ASSERT_FATAL(gpu_at(pool, rc, 0, 0, UINT32_MAX, 0, &fh, &fg));
	accepted(ask(d, &user, "{\"op\":\"alloc\",\"client\":\"node0001\",\"gpu_milli\":250,\"rdma\":20}"));
	CU_ASSERT_EQUAL_FATAL(pool_gpu_used(pool, fh, fg), 250);
	accepted(ask(d, &root, "{\"op\":\"release\",\"id\":\"1\"}"));
	accepted(ask(d, &root, "{\"op\":\"alloc\",\"client\":\"node0001\",\"gpus\":14}"));
	CU_ASSERT_FATAL(gpu_at(pool, rc, 0, 0, fh, fg, &zh, &zg));
	/* a share on F or Z: none is free whole, Z is not F */
	accepted(ask(d, &root, "{\"op\":\"alloc\",\"client\":\"node0001\",\"gpu_milli\":500}"));
	CU_ASSERT_FATAL(!gpu_at(pool, rc, 0, 0, UINT32_MAX, 0, &zh, &zg));
	CU_ASSERT_FATAL(gpu_at(pool, rc, 0, POOL_MILLI - 1, fh, fg, &zh, &zg));
	snprintf(ca, sizeof(ca), "%s mlx5_%u", rc->hosts[fh].name,
		 pool_gpu_rail(&rc->hosts[fh], fg));
	CU_ASSERT_EQUAL_FATAL(drop_cable(RAIL_NET, rp.cut, ca), 0);
	CU_ASSERT_EQUAL_FATAL(rediscover(d, rp.cut), 0);

	a = pool_alloc_find(pool, 2);
	CU_ASSERT_PTR_NOT_NULL_FATAL(a);
	CU_ASSERT_EQUAL_FATAL(a->ngpus, 1);
	CU_ASSERT_EQUAL(a->gpus[0].milli, 250);
	CU_ASSERT_EQUAL(a->rdma, 20);
	CU_ASSERT_EQUAL(a->gpus[0].host, zh);
	CU_ASSERT_EQUAL(a->gpus[0].gpu, zg);
	CU_ASSERT_PTR_NOT_NULL(pool_alloc_find(pool, 4));
	CU_ASSERT_EQUAL(pool_gpu_used(pool, zh, zg), 750);
	CU_ASSERT(pool_rdma_used(pool, zh, a->gpus[0].rail) >= 20);

	rail_down(&rp);
}

/*
 * A share on a host failed before the queue ran (so before the
 * scheduler held it) is replaced by a share, its RDMA kept.
 */
static void test_host_lost_share(void)
{
	struct rail_pool rp = { .dir = "/tmp/gpuaware-rail-XXXXXX" };
	const struct pool_alloc *a;
	char req[96];
	uint32_t h;

	CU_ASSERT_EQUAL_FATAL(rail_up(&rp), 0);
	accepted(ask(&rp.d, &user, "{\"op\":\"alloc\",\"client\":\"node0001\",\"gpu_milli\":250,\"rdma\":20}"));
	h = pool_alloc_find(rp.pool, 1)->gpus[0].host;
	snprintf(req, sizeof(req), "{\"op\":\"host.fail\",\"host\":\"%s\"}",
		 rp.rc.hosts[h].name);
	accepted(ask(&rp.d, &root, req));
	CU_ASSERT_EQUAL(poold_tick(&rp.d, false), 0);
	a = pool_alloc_find(rp.pool, 1);
	CU_ASSERT_PTR_NOT_NULL_FATAL(a);
	CU_ASSERT_EQUAL_FATAL(a->ngpus, 1);
	CU_ASSERT_NOT_EQUAL(a->gpus[0].host, h);
	CU_ASSERT_EQUAL(a->gpus[0].milli, 250);
	CU_ASSERT_EQUAL(a->rdma, 20);
	CU_ASSERT_EQUAL(pool_gpu_used(rp.pool, a->gpus[0].host,
				      a->gpus[0].gpu), 250);
	rail_down(&rp);
}

/*
 * RDMA bandwidth alone on a lost HCA: lost, then replaced by the same
 * bandwidth on another HCA of its host, as such a request is placed;
 * lost again where no HCA has it free, the direct allocation is revoked.
 */
static void test_rail_lost_rdma(void)
{
	struct rail_pool rp = { .dir = "/tmp/gpuaware-rail-XXXXXX" };
	struct pool_config *rc = &rp.rc;
	struct poold *d = &rp.d;
	const struct pool_alloc *a;
	unsigned int r, k;
	struct pool *pool;
	struct watcher w;
	char ca[32];
	uint32_t h;

	CU_ASSERT_EQUAL_FATAL(rail_up(&rp), 0);
	pool = rp.pool;
	CU_ASSERT_EQUAL_FATAL(watch_start(&w, d), 0);
	json_object_put(next_line(&w));

	accepted(ask(d, &user, "{\"op\":\"alloc\",\"client\":\"node0001\",\"rdma\":60}"));
	a = pool_alloc_find(pool, 1);
	CU_ASSERT_PTR_NOT_NULL_FATAL(a);
	CU_ASSERT_TRUE_FATAL(a->has_port);
	h = a->port.host;
	r = a->port.rail;
	snprintf(ca, sizeof(ca), "%s mlx5_%u", rc->hosts[h].name, r);
	CU_ASSERT_EQUAL_FATAL(drop_cable(RAIL_NET, rp.cut, ca), 0);

	/* the cable goes: lost, replaced on the same host, same bandwidth */
	CU_ASSERT_EQUAL_FATAL(rediscover(d, rp.cut), 0);
	event(&w, "lost", "(none)", "1");
	event(&w, "replaced", "(none)", "1");
	a = pool_alloc_find(pool, 1);
	CU_ASSERT_PTR_NOT_NULL_FATAL(a);
	CU_ASSERT_TRUE_FATAL(a->has_port);
	CU_ASSERT_EQUAL(a->port.host, h);
	CU_ASSERT_NOT_EQUAL(a->port.rail, r);
	CU_ASSERT_EQUAL(a->rdma, 60);
	CU_ASSERT_EQUAL(pool_rdma_used(pool, h, a->port.rail), 60);
	CU_ASSERT_EQUAL(pool_rdma_used(pool, h, r), 0);
	CU_ASSERT_EQUAL(d->lost, 1);

	/* back; every other HCA taken whole; its own lost: no room */
	CU_ASSERT_EQUAL_FATAL(rediscover(d, RAIL_NET), 0);
	r = a->port.rail;
	for (k = 0; k < 15; k++)
		accepted(ask(d, &root, "{\"op\":\"alloc\",\"client\":\"node0001\",\"rdma\":100}"));
	CU_ASSERT_EQUAL(pool_rdma_used(pool, h, r), 60);
	snprintf(ca, sizeof(ca), "%s mlx5_%u", rc->hosts[h].name, r);
	CU_ASSERT_EQUAL_FATAL(drop_cable(RAIL_NET, rp.cut, ca), 0);
	CU_ASSERT_EQUAL_FATAL(rediscover(d, rp.cut), 0);
	event(&w, "lost", "(none)", "1");
	event(&w, "revoked", "(none)", "1");
	CU_ASSERT_PTR_NULL(pool_alloc_find(pool, 1));
	CU_ASSERT_EQUAL(pool_rdma_used(pool, h, r), 0);
	CU_ASSERT_EQUAL(d->lost, 2);

	watch_stop(&w, d);
	rail_down(&rp);
}

/* The queue's callbacks for a run the test makes: no LID, no event. */
static uint32_t no_dlid(void *ctx, const char *client, uint32_t h,
			unsigned int rail)
{
	(void)ctx, (void)client, (void)h, (void)rail;
	return 0;
}

static void no_event(void *ctx, const char *kind, uint64_t ticket, uid_t uid,
		     const struct pool_alloc *a, uint64_t id, time_t deadline)
{
	(void)ctx, (void)kind, (void)ticket, (void)uid, (void)a, (void)id,
	(void)deadline;
}

static const struct poold_queue_ops quiet = { no_dlid, no_event, NULL };

/* The HCA of host h with used of its bandwidth out, into *h, *r. */
static bool rail_at(const struct pool *pool, const struct pool_config *rc,
		    unsigned int used, uint32_t *h, unsigned int *r)
{
	for (*h = 0; *h < rc->nhosts; (*h)++)
		for (*r = 0; *r < rc->hosts[*h].nhca; (*r)++)
			if (pool_rdma_used(pool, *h, *r) == used)
				return true;
	return false;
}

/*
 * Issue 25 (sharing): RDMA bandwidth is placed per HCA, so a queued
 * request waits until one HCA has its share free, however much the
 * host's HCAs have free together (every HCA 60 % out: 160 % free on
 * each host, 80 % on none); with GPUs, one behind such an HCA.
 */
static void test_queue_rdma_per_hca(void)
{
	struct rail_pool rp = { .dir = "/tmp/gpuaware-rail-XXXXXX" };
	struct pool_config *rc = &rp.rc;
	struct poold *d = &rp.d;
	const struct pool_alloc *a, *x;
	struct pool *pool;
	char err[256];
	unsigned int k, r = 0;
	uint32_t h = 0;

	CU_ASSERT_EQUAL_FATAL(rail_up(&rp), 0);
	pool = rp.pool;
	for (k = 0; k < 16; k++)
		accepted(ask(d, &root, "{\"op\":\"alloc\",\"client\":\"node0001\",\"rdma\":60}"));
	CU_ASSERT_FALSE_FATAL(rail_at(pool, rc, 0, &h, &r));
	queued(ask(d, &user, "{\"op\":\"alloc\",\"client\":\"node0001\",\"rdma\":80,\"queue\":true}"), "1");
	queued(ask(d, &user, "{\"op\":\"alloc\",\"client\":\"node0001\",\"gpus\":1,\"rdma\":80,\"queue\":true}"), "2");
	/* nothing granted that the pool cannot place */
	CU_ASSERT_EQUAL(poold_queue_run(d->queue, OPS_T0, &quiet, err,
					sizeof(err)), 0);
	CU_ASSERT_EQUAL(pool_nqueued(pool), 2);
	CU_ASSERT_EQUAL(pool_nallocs(pool), 16);

	/* one HCA free: the bandwidth alone goes there */
	x = pool_alloc_find(pool, 7);
	CU_ASSERT_PTR_NOT_NULL_FATAL(x);
	h = x->port.host;
	r = x->port.rail;
	accepted(ask(d, &root, "{\"op\":\"release\",\"id\":\"7\"}"));
	a = pool_alloc_find(pool, 17);
	CU_ASSERT_PTR_NOT_NULL_FATAL(a);
	CU_ASSERT_TRUE(a->has_port);
	CU_ASSERT_EQUAL(a->port.host, h);
	CU_ASSERT_EQUAL(a->port.rail, r);
	CU_ASSERT_EQUAL(pool_rdma_used(pool, h, r), 80);
	CU_ASSERT_EQUAL(pool_nqueued(pool), 1);
	CU_ASSERT_EQUAL(poold_queue_run(d->queue, OPS_T0, &quiet, err,
					sizeof(err)), 0);
	CU_ASSERT_EQUAL(pool_nqueued(pool), 1);

	/* another: the GPU behind it */
	x = pool_alloc_find(pool, 12);
	CU_ASSERT_PTR_NOT_NULL_FATAL(x);
	h = x->port.host;
	r = x->port.rail;
	accepted(ask(d, &root, "{\"op\":\"release\",\"id\":\"12\"}"));
	a = pool_alloc_find(pool, 18);
	CU_ASSERT_PTR_NOT_NULL_FATAL(a);
	CU_ASSERT_EQUAL_FATAL(a->ngpus, 1);
	CU_ASSERT_EQUAL(a->gpus[0].host, h);
	CU_ASSERT_EQUAL(a->gpus[0].rail, r);
	CU_ASSERT_EQUAL(pool_rdma_used(pool, h, r), 80);
	CU_ASSERT_EQUAL(pool_nqueued(pool), 0);
	rail_down(&rp);
}

/*
 * Issue 25 (continuity): the bandwidth of an HCA its host lost is not
 * granted while it is lost, and is once it is back.
 */
static void test_queue_rdma_hca_lost(void)
{
	struct rail_pool rp = { .dir = "/tmp/gpuaware-rail-XXXXXX" };
	struct pool_config *rc = &rp.rc;
	struct poold *d = &rp.d;
	const struct pool_alloc *a;
	struct pool *pool;
	char err[256], ca[32];
	unsigned int k, r = 0;
	uint32_t h = 0;

	CU_ASSERT_EQUAL_FATAL(rail_up(&rp), 0);
	pool = rp.pool;
	for (k = 0; k < 15; k++)
		accepted(ask(d, &root, "{\"op\":\"alloc\",\"client\":\"node0001\",\"rdma\":100}"));
	CU_ASSERT_TRUE_FATAL(rail_at(pool, rc, 0, &h, &r));
	snprintf(ca, sizeof(ca), "%s mlx5_%u", rc->hosts[h].name, r);
	CU_ASSERT_EQUAL_FATAL(drop_cable(RAIL_NET, rp.cut, ca), 0);
	CU_ASSERT_EQUAL_FATAL(rediscover(d, rp.cut), 0);
	CU_ASSERT_EQUAL(poold_queue_host(d->queue, h), POOL_HOST_UP);

	queued(ask(d, &user, "{\"op\":\"alloc\",\"client\":\"node0001\",\"rdma\":50,\"queue\":true}"), "1");
	CU_ASSERT_EQUAL(poold_queue_run(d->queue, OPS_T0, &quiet, err,
					sizeof(err)), 0);
	CU_ASSERT_EQUAL(pool_nqueued(pool), 1);
	CU_ASSERT_EQUAL(pool_nallocs(pool), 15);
	CU_ASSERT_EQUAL(pool_rdma_used(pool, h, r), 0);

	/* back: granted there */
	CU_ASSERT_EQUAL_FATAL(rediscover(d, RAIL_NET), 0);
	CU_ASSERT_EQUAL(poold_tick(d, false), 0);
	CU_ASSERT_EQUAL(pool_nqueued(pool), 0);
	a = pool_alloc_find(pool, 16);
	CU_ASSERT_PTR_NOT_NULL_FATAL(a);
	CU_ASSERT_TRUE(a->has_port);
	CU_ASSERT_EQUAL(a->port.host, h);
	CU_ASSERT_EQUAL(a->port.rail, r);
	CU_ASSERT_EQUAL(pool_rdma_used(pool, h, r), 50);
	rail_down(&rp);
}

/*
 * Watchers with filters: one of its own uid's grants and expiries (the
 * test runs its socket as whoever runs it), one of a ticket and an
 * allocation id; the one of every event sees what they leave out.
 */
static void test_watch_filter(void)
{
	struct watcher w, mine, some;
	struct pool *pool;
	struct poold d;
	json_object *r;
	char line[160];

	CU_ASSERT_EQUAL_FATAL(daemon_up(&d, &pool), 0);
	refused(ask(&d, &user, "{\"op\":\"watch\",\"events\":[\"lost\",\"gone\"]}"),
		"bad_request", "field 'events': 'gone' is not an event");
	refused(ask(&d, &user, "{\"op\":\"watch\",\"tickets\":[\"x1\"]}"),
		"bad_request", "field 'tickets': 'x1' is not a ticket or allocation id");
	refused(ask(&d, &user, "{\"op\":\"watch\",\"mine\":true,\"uid\":0}"),
		"bad_request", "fields 'mine' and 'uid' exclude each other");
	refused(ask(&d, &user, "{\"op\":\"watch\",\"ids\":\"1\"}"),
		"bad_request", "field 'ids' must be an array");

	CU_ASSERT_EQUAL_FATAL(watch_start(&w, &d), 0);
	mine = w;
	some = w;
	snprintf(line, sizeof(line), "{\"op\":\"watch\",\"uid\":%u,\"events\":[\"granted\",\"expired\"]}\n",
		 (unsigned int)getuid());
	CU_ASSERT_EQUAL_FATAL(watch_connect(&mine, line), 0);
	CU_ASSERT_EQUAL_FATAL(watch_connect(&some, "{\"op\":\"watch\",\"tickets\":[\"2\"],\"ids\":[\"1\"]}\n"), 0);
	json_object_put(next_line(&w));
	json_object_put(next_line(&some));
	r = next_line(&mine);
	CU_ASSERT_TRUE(is_ok(r));
	json_object_put(r);

	accepted(ask(&d, &root, "{\"op\":\"alloc\",\"client\":\"h01\",\"gpus\":60,\"lease_s\":30}"));
	queued(ask(&d, &user, "{\"op\":\"submit\",\"client\":\"h02\",\"gpus\":8,\"hosts\":2,\"gpus_per_host\":4}"), "1");
	snprintf(line, sizeof(line), "{\"op\":\"alloc\",\"client\":\"h01\",\"gpus\":4,\"queue\":true}");
	queued(ask(&d, &(struct sm_peer){ .uid = getuid(), .may_write = true,
					  .may_connect = true, .ticket = 1 },
		   line), "2");
	clock_now = OPS_T0 + 30;
	CU_ASSERT_EQUAL(poold_tick(&d, false), 0);

	event(&w, "queued", "1", "(none)");
	event(&w, "queued", "2", "(none)");
	event(&w, "expired", "(none)", "1");
	event(&w, "granted", "1", "2");
	event(&w, "granted", "2", "3");
	event(&mine, "expired", "(none)", "1");
	event(&mine, "granted", "2", "3");
	event(&some, "queued", "2", "(none)");
	event(&some, "expired", "(none)", "1");
	event(&some, "granted", "2", "3");
	/* and nothing else */
	accepted(ask(&d, &user, "{\"op\":\"release\",\"id\":\"2\"}"));
	CU_ASSERT_PTR_NULL(next_line(&mine));
	CU_ASSERT_PTR_NULL(next_line(&some));
	close(mine.fd);
	close(some.fd);
	watch_stop(&w, &d);
	daemon_down(&d, pool);
}

TU_SUITE(ops,
	 { "pool.status", test_status },
	 { "alloc, alloc.list, release", test_alloc_release },
	 { "renew and expiry", test_leases },
	 { "job.start, job.list, job.end", test_jobs },
	 { "TCP without credentials, unknown op", test_access },
	 { "the socket's rule over TCP, per-uid caps", test_socket_rule_and_caps },
	 { "max_gpus_per_uid counts a share as its milli", test_caps_count_shares },
	 { "place", test_place },
	 { "counters per operation", test_opstat },
	 { "a change's reply waits for the journal", test_durable_reply },
	 { "queue: tickets, cancel, grant on release", test_queue },
	 { "queue: a started job's hosts are the job's", test_queue_jobs },
	 { "queue: a drained host takes nothing new", test_queue_drain },
	 { "queue: kill and restart lose nothing, grant nothing twice", test_queue_restart },
	 { "watch: granted, expired, lost, replaced, requeued", test_watch },
	 { "preemption: notice, grace, queued again", test_preempt },
	 { "an HCA lost: its GPUs' allocations lost and replaced", test_rail_lost },
	 { "an HCA lost under a share: replaced by a share", test_rail_lost_share },
	 { "an HCA lost under RDMA bandwidth alone: replaced", test_rail_lost_rdma },
	 { "a host lost under a share: replaced by a share", test_host_lost_share },
	 { "queue: RDMA bandwidth waits for one HCA with room",
	   test_queue_rdma_per_hca },
	 { "queue: a lost HCA's bandwidth is not granted", test_queue_rdma_hca_lost },
	 { "watch: a watcher's filter (events, mine, tickets, ids)", test_watch_filter })
