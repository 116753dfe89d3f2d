// SPDX-License-Identifier: MIT
/*
 * libFuzzer target: one input is one request line, through the parser
 * and then the hints set and add validation, checking their promises.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "sm/hints.h"

/* Small enough that the fuzzer reaches too_long. */
#define FUZZ_MAX_LINE 4096

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Hosts starting with x are unknown; the others are taken. */
static long host_id(void *ctx, const char *host)
{
	(void)ctx;
	return host[0] == 'x' ? SM_HOST_UNKNOWN : SM_HOST_ANY;
}

static char *table(struct sm_hints *h, bool with_gen)
{
	json_object *o = json_object_new_object();
	char *s;

	if (!o || sm_hints_get(h, o))
		abort();
	if (!with_gen)
		json_object_object_del(o, "generation");
	s = strdup(json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN));
	json_object_put(o);
	if (!s)
		abort();
	return s;
}

/* A reply is one line whose only newline ends it. */
static void check_line(json_object *reply)
{
	size_t n;
	char *line = sm_proto_line(reply, &n);

	if (!line || !n || strchr(line, '\n') != line + n - 1)
		abort();
	free(line);
	json_object_put(reply);
}

/* What get shows, fed back to set, is accepted and shows the same. */
static void check_round_trip(struct sm_hints *h)
{
	struct sm_hints *g;
	json_object *o;
	struct sm_error e;
	char *a, *b;

	a = table(h, false);
	o = json_tokener_parse(a);
	if (sm_hints_new(NULL, host_id, NULL, &g) || !o ||
	    sm_hints_set(g, o, NULL, &e))
		abort();
	b = table(g, false);
	if (strcmp(a, b))
		abort();
	json_object_put(o);
	sm_hints_free(g);
	free(a);
	free(b);
}

/* fn either changes the table and bumps the generation, or neither. */
static void check_change(struct sm_hints *h, json_object *req,
			 int (*fn)(struct sm_hints *, json_object *,
				   uint64_t *, struct sm_error *))
{
	const struct sm_hints_snap *s = sm_hints_snapshot(h);
	uint64_t gen0 = s->generation, gen = 0;
	char *before = table(h, true), *after;
	struct sm_error e;

	if (fn(h, req, &gen, &e)) {
		after = table(h, true);
		if (strcmp(before, after) || !memchr(e.msg, '\0', sizeof(e.msg)) ||
		    e.code >= SM_ERR_COUNT)
			abort();
		check_line(sm_reply_from_error(&e));
		free(after);
	} else {
		if (gen != gen0 + 1)
			abort();
		check_round_trip(h);
	}
	sm_hints_put(s);
	free(before);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char base[] =
		"{\"jobs\":[{\"id\":\"j1\",\"hosts\":[\"gpu1\",\"0x1\"]}]}";
	json_object *req, *reply = NULL, *b;
	struct sm_hints *h;
	struct sm_error e;

	if (sm_proto_parse((const char *)data, size, FUZZ_MAX_LINE, &req, &e)) {
		if (e.code != SM_ERR_BAD_JSON && e.code != SM_ERR_NOT_OBJECT &&
		    e.code != SM_ERR_MISSING_OP && e.code != SM_ERR_TOO_LONG)
			abort();
		check_line(sm_reply_from_error(&e));
		return 0;
	}
	if (!sm_proto_op(req))
		abort();
	b = json_tokener_parse(base);
	if (sm_hints_new(NULL, host_id, NULL, &h) || sm_hints_set(h, b, NULL, &e))
		abort();
	json_object_put(b);
	check_change(h, req, sm_hints_set);
	check_change(h, req, sm_hints_add);
	if (sm_hints_serve(h, req, true, &reply) == 0)
		check_line(reply);
	sm_hints_free(h);
	json_object_put(req);
	return 0;
}
