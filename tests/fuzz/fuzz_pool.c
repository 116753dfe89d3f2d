// SPDX-License-Identifier: MIT
/*
 * libFuzzer target: one input is one request line to ibpoold, through
 * the protocol parser and the pool socket's operations, on a daemon of
 * ibsim-configs/ft2-tiny.net (paths from the source tree's root) holding
 * one allocation and one job.  Each request is asked by a reader over
 * TCP, by nobody on the Unix socket, and by root, each on a fresh pool,
 * checking that every answer is one reply line and that no refusal, nor
 * any request of those that may only read, changes the pool.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sm/proto.h"
#include "tools/ibpoold/ops.h"

#define FUZZ_MAX_LINE 4096
#define FUZZ_NET "ibsim-configs/ft2-tiny.net"
#define FUZZ_CONF "ibsim-configs/pool-ft2-tiny.conf"
#define FUZZ_NOW 1000000000

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Set up once: the fabric's view outlives every input's daemon. */
static struct pool_config cfg;
static struct pool_view *view;

static time_t fixed_now(time_t *t)
{
	if (t)
		*t = FUZZ_NOW;
	return FUZZ_NOW;
}

static void setup(void)
{
	char err[1024];

	if (pool_config_load(FUZZ_CONF, &cfg, err, sizeof(err)) ||
	    pool_view_offline(FUZZ_NET, 0, RT_ENGINE_AUTO, &view, err,
			      sizeof(err))) {
		fprintf(stderr, "fuzz_pool: %s (run from the source tree)\n",
			err);
		abort();
	}
}

/* A reply is one line whose only newline ends it, ok or a coded error. */
static void check_reply(json_object *reply)
{
	json_object *ok, *e, *code;
	size_t n;
	char *line;

	if (!reply || !json_object_object_get_ex(reply, "ok", &ok) ||
	    !json_object_is_type(ok, json_type_boolean))
		abort();
	if (!json_object_get_boolean(ok) &&
	    (!json_object_object_get_ex(reply, "error", &e) ||
	     !json_object_object_get_ex(e, "code", &code) ||
	     !json_object_is_type(code, json_type_string)))
		abort();
	line = sm_proto_line(reply, &n);
	if (!line || !n || strchr(line, '\n') != line + n - 1)
		abort();
	free(line);
}

/* req (fixed, known good) answered ok, else the harness is wrong. */
static void must(struct poold *d, const struct sm_peer *root, const char *s)
{
	json_object *req = json_tokener_parse(s), *reply = NULL;

	if (!req || poold_handle(d, root, req, &reply) ||
	    !json_object_get_boolean(json_object_object_get(reply, "ok")))
		abort();
	json_object_put(reply);
	json_object_put(req);
}

/* Whether op only reads, whoever asks. */
static bool reads_only(const char *op)
{
	static const char *const reads[] = {
		"pool.status", "alloc.list", "place", "job.list",
		"topology.export",
	};
	size_t i;

	for (i = 0; i < sizeof(reads) / sizeof(reads[0]); i++)
		if (!strcmp(op, reads[i]))
			return true;
	return false;
}

/* req from peer p on a pool holding root's allocation and a job. */
static void ask(json_object *req, const struct sm_peer *p)
{
	const struct sm_peer root = { .uid = 0, .may_write = true,
				      .may_connect = true, .ticket = 1 };
	json_object *reply = NULL;
	struct pool *pool;
	struct poold d;
	char err[512];
	uint64_t seq;

	if (pool_new(&cfg, &pool) ||
	    poold_init(&d, &cfg, pool, view, NULL, err, sizeof(err)))
		abort();
	d.now = fixed_now;
	must(&d, &root, "{\"op\":\"alloc\",\"client\":\"h01\",\"gpus\":2,\"job\":\"j1\"}");
	must(&d, &root, "{\"op\":\"job.start\",\"job\":\"j1\",\"hosts\":[\"h01\",\"h02\"]}");
	seq = pool_seq(pool);
	if (poold_handle(&d, p, req, &reply))
		abort();
	check_reply(reply);
	if (pool_seq(pool) != seq &&
	    (!json_object_get_boolean(json_object_object_get(reply, "ok")) ||
	     p->remote || reads_only(sm_proto_op(req))))
		abort();
	json_object_put(reply);
	poold_release(&d);
	pool_free(pool);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const struct sm_peer tcp = { .remote = true, .uid = (uid_t)-1,
				     .gid = (gid_t)-1, .ticket = 1,
				     .addr = "127.0.0.1:1" };
	const struct sm_peer nobody = { .uid = 65534, .gid = 65534,
					.may_connect = true, .ticket = 1 };
	const struct sm_peer root = { .uid = 0, .may_write = true,
				      .may_connect = true, .ticket = 1 };
	json_object *req;
	struct sm_error e;

	if (!view)
		setup();
	if (sm_proto_parse((const char *)data, size, FUZZ_MAX_LINE, &req, &e))
		return 0;
	ask(req, &tcp);
	ask(req, &nobody);
	ask(req, &root);
	json_object_put(req);
	return 0;
}
