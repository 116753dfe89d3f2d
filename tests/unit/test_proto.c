// SPDX-License-Identifier: MIT
/* Protocol tests: every parse error, reply lines and the typed getters. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tu.h"
#include "sm/proto.h"

static int parse(const char *s, json_object **req, struct sm_error *e)
{
	return sm_proto_parse(s, strlen(s), SM_MAX_LINE_DEFAULT, req, e);
}

static void expect_error(const char *line, enum sm_err code, const char *msg)
{
	json_object *req = NULL;
	struct sm_error e;

	CU_ASSERT_EQUAL(parse(line, &req, &e), -EINVAL);
	CU_ASSERT_PTR_NULL(req);
	CU_ASSERT_EQUAL(e.code, code);
	if (msg && !strstr(e.msg, msg)) {
		fprintf(stderr, "\n%s -> '%s', expected '%s'\n", line, e.msg,
			msg);
		CU_FAIL("message");
	}
}

static void test_parse_ok(void)
{
	const char line[] = "{\"op\":\"hints.get\",\"x\":[1,2]}";
	json_object *req = NULL;
	struct sm_error e;

	CU_ASSERT_EQUAL(sm_proto_parse(line, strlen(line), 100, &req, &e),
			0);
	CU_ASSERT_STRING_EQUAL(sm_proto_op(req), "hints.get");
	json_object_put(req);
	CU_ASSERT_EQUAL(parse("  {\"op\":\"state\"}\r ", &req, &e), 0);
	CU_ASSERT_STRING_EQUAL(sm_proto_op(req), "state");
	json_object_put(req);
	/* the line is len bytes, whatever follows them */
	CU_ASSERT_EQUAL(sm_proto_parse("{\"op\":\"a\"}{\"op\":\"b\"}", 10,
				       100, &req, &e), 0);
	CU_ASSERT_STRING_EQUAL(sm_proto_op(req), "a");
	json_object_put(req);
}

static void test_parse_errors(void)
{
	expect_error("", SM_ERR_BAD_JSON, "unexpected end of data");
	expect_error("{\"op\":", SM_ERR_BAD_JSON, "unexpected end of data");
	expect_error("{op:1}", SM_ERR_BAD_JSON, "");
	expect_error("{'op':'x'}", SM_ERR_BAD_JSON, "");
	expect_error("{\"op\":\"x\",}", SM_ERR_BAD_JSON, "");
	expect_error("{\"op\":\"x\"} junk", SM_ERR_BAD_JSON, "");
	expect_error("{\"op\":\"x\"}{}", SM_ERR_BAD_JSON, "");
	expect_error("{\"op\":\"\xff\"}", SM_ERR_BAD_JSON, "");
	expect_error("/* c */{\"op\":\"x\"}", SM_ERR_BAD_JSON, "");
	expect_error("[1,2]", SM_ERR_NOT_OBJECT, "not array");
	expect_error("\"op\"", SM_ERR_NOT_OBJECT, "not string");
	expect_error("42", SM_ERR_NOT_OBJECT, "not int");
	expect_error("null", SM_ERR_NOT_OBJECT, "not null");
	expect_error("{}", SM_ERR_MISSING_OP, "missing field 'op'");
	expect_error("{\"Op\":\"x\"}", SM_ERR_MISSING_OP, "missing field");
	expect_error("{\"op\":1}", SM_ERR_MISSING_OP, "non-empty string");
	expect_error("{\"op\":\"\"}", SM_ERR_MISSING_OP, "non-empty string");
	expect_error("{\"op\":null}", SM_ERR_MISSING_OP, "non-empty string");
}

static void test_parse_nul_and_depth(void)
{
	const char line[] = "{\"op\":\"x\"}\0 ";
	char deep[400];
	json_object *req = NULL;
	struct sm_error e;
	int i;

	CU_ASSERT_EQUAL(sm_proto_parse(line, sizeof(line) - 1, 100, &req, &e),
			-EINVAL);
	CU_ASSERT_EQUAL(e.code, SM_ERR_BAD_JSON);
	CU_ASSERT_PTR_NOT_NULL(strstr(e.msg, "NUL byte at offset 10"));
	for (i = 0; i < 199; i++)
		deep[i] = '[';
	for (; i < 398; i++)
		deep[i] = ']';
	deep[i] = '\0';
	/* json-c's own text: its depth limit, not a crash */
	expect_error(deep, SM_ERR_BAD_JSON, "nesting too deep");
}

/*
 * What json-c takes but a strict request does not: \u0000, which cuts
 * every C string short, numbers that are not finite, and a key given
 * twice, of which json-c keeps the last.
 */
static void test_parse_strict(void)
{
	const char ok[] = "{\"op\":\"x\",\"s\":\"NaN \\\\u0000 a:b \\\"\",\"t\":[{\"a\":1.5},{\"a\":2}]}";
	json_object *req = NULL;
	struct sm_error e;

	expect_error("{\"op\":\"hints.remove\",\"id\":\"tr2\\u0000 bad id!\"}",
		     SM_ERR_BAD_JSON, "\\u0000 (NUL) in a string at offset 30");
	expect_error("{\"op\":\"x\",\"hosts\":[\"node0001\\u0000evil\"]}",
		     SM_ERR_BAD_JSON, "\\u0000 (NUL) in a string");
	expect_error("{\"op\":\"release\",\"id\":\"1\\u0000\"}", SM_ERR_BAD_JSON,
		     "\\u0000 (NUL) in a string");
	expect_error("{\"op\\u0000x\":\"y\"}", SM_ERR_BAD_JSON,
		     "\\u0000 (NUL) in a string at offset 4");
	expect_error("{\"op\":\"x\",\"n\":NaN}", SM_ERR_BAD_JSON,
		     "a number is not finite");
	expect_error("{\"op\":\"x\",\"n\":[Infinity]}", SM_ERR_BAD_JSON,
		     "a number is not finite");
	expect_error("{\"op\":\"x\",\"n\":{\"m\":-Infinity}}", SM_ERR_BAD_JSON,
		     "a number is not finite");
	expect_error("{\"op\":\"x\",\"n\":1e999}", SM_ERR_BAD_JSON,
		     "a number is not finite");
	expect_error("{\"op\":\"x\",\"a\":1,\"a\":2}", SM_ERR_BAD_JSON,
		     "duplicate key in an object");
	expect_error("{\"op\":\"x\",\"op\":\"y\"}", SM_ERR_BAD_JSON,
		     "duplicate key in an object");
	expect_error("{\"op\":\"x\",\"job\":{\"id\":\"a\",\"id\":\"b\"}}",
		     SM_ERR_BAD_JSON, "duplicate key in an object");
	expect_error("{\"op\":\"x\",\"a\":1,\"\\u0061\":2}", SM_ERR_BAD_JSON,
		     "duplicate key in an object");
	/* look-alikes inside strings, and one key in two objects, are fine */
	CU_ASSERT_EQUAL(sm_proto_parse(ok, strlen(ok), 100, &req, &e), 0);
	json_object_put(req);
}

static void test_too_long(void)
{
	const char line[] = "{\"op\":\"hints.get\"}";
	size_t n = strlen(line);
	json_object *req = NULL;
	struct sm_error e;

	CU_ASSERT_EQUAL(sm_proto_parse(line, n, n, &req, &e), 0);
	json_object_put(req);
	req = NULL;
	CU_ASSERT_EQUAL(sm_proto_parse(line, n, n - 1, &req, &e), -EMSGSIZE);
	CU_ASSERT_PTR_NULL(req);
	CU_ASSERT_EQUAL(e.code, SM_ERR_TOO_LONG);
	CU_ASSERT_STRING_EQUAL(sm_err_code(e.code), "too_long");
	CU_ASSERT_PTR_NOT_NULL(strstr(e.msg, "18 bytes exceeds the limit of 17"));
}

static void test_parse_reply(void)
{
	json_object *r = NULL;
	struct sm_error e;

	CU_ASSERT_EQUAL(sm_proto_parse_reply("{\"ok\":true,\"n\":1}", 17, 100,
					     &r, &e), 0);
	json_object_put(r);
	r = NULL;
	CU_ASSERT_EQUAL(sm_proto_parse_reply("{\"ok\":1}", 8, 100, &r, &e),
			-EINVAL);
	CU_ASSERT_EQUAL(e.code, SM_ERR_BAD_REQUEST);
	CU_ASSERT_EQUAL(sm_proto_parse_reply("{\"ok\"", 5, 100, &r, &e),
			-EINVAL);
	CU_ASSERT_EQUAL(e.code, SM_ERR_BAD_JSON);
	CU_ASSERT_PTR_NULL(r);
}

static void test_codes(void)
{
	static const char *const want[SM_ERR_COUNT] = {
		"bad_json", "not_object", "missing_op", "unknown_op",
		"bad_request", "too_long", "forbidden", "unknown_host",
		"duplicate_id", "not_found", "busy", "timeout", "internal",
		"bad_credential", "pool_full",
	};
	struct sm_error e;
	int i;

	for (i = 0; i < SM_ERR_COUNT; i++)
		CU_ASSERT_STRING_EQUAL(sm_err_code(i), want[i]);
	CU_ASSERT_STRING_EQUAL(sm_err_code(SM_ERR_COUNT), "internal");
	CU_ASSERT_EQUAL(sm_error_set(&e, SM_ERR_NOT_FOUND, "no %s", "j1"),
			-ENOENT);
	CU_ASSERT_STRING_EQUAL(e.msg, "no j1");
	CU_ASSERT_EQUAL(sm_error_set(&e, SM_ERR_DUPLICATE_ID, "x"), -EEXIST);
	CU_ASSERT_EQUAL(sm_error_set(&e, SM_ERR_FORBIDDEN, "x"), -EACCES);
	CU_ASSERT_EQUAL(sm_error_set(&e, SM_ERR_BUSY, "x"), -EBUSY);
	sm_error_prefix(&e, "job '%s': ", "j2");
	CU_ASSERT_STRING_EQUAL(e.msg, "job 'j2': x");
	CU_ASSERT_EQUAL(e.code, SM_ERR_BUSY);
}

static void test_reply_lines(void)
{
	json_object *r;
	size_t n;
	char *s;

	r = sm_reply_ok();
	CU_ASSERT_FATAL(r != NULL);
	CU_ASSERT_EQUAL(sm_json_add(r, "path", json_object_new_string("a/b")),
			0);
	s = sm_proto_line(r, &n);
	CU_ASSERT_STRING_EQUAL(s, "{\"ok\":true,\"path\":\"a/b\"}\n");
	CU_ASSERT_EQUAL(n, strlen(s));
	free(s);
	json_object_put(r);

	r = sm_reply_error(SM_ERR_UNKNOWN_HOST, "job '%s': unknown host '%s'",
			   "j1", "gpu\n7");
	s = sm_proto_line(r, &n);
	CU_ASSERT_STRING_EQUAL(s, "{\"ok\":false,\"error\":{\"code\":"
			       "\"unknown_host\",\"message\":\"job 'j1': "
			       "unknown host 'gpu\\n7'\"}}\n");
	/* the only newline is the terminator */
	CU_ASSERT_PTR_EQUAL(strchr(s, '\n'), s + n - 1);
	free(s);
	json_object_put(r);
}

static void test_getters(void)
{
	json_object *o = json_tokener_parse(
		"{\"id\":\"j1\",\"jobs\":[],\"weight\":1001,\"w\":5,"
		"\"f\":1.5,\"n\":null,\"big\":18446744073709551615,"
		"\"neg\":-3,\"obj\":{}}");
	const char *s = "default";
	json_object *v = NULL;
	struct sm_error e;
	int64_t x = 7;

	CU_ASSERT_FATAL(o != NULL);
	CU_ASSERT_EQUAL(sm_get_string(o, "id", true, &s, &e), 0);
	CU_ASSERT_STRING_EQUAL(s, "j1");
	CU_ASSERT_EQUAL(sm_get_string(o, "absent", false, &s, &e), 0);
	CU_ASSERT_STRING_EQUAL(s, "j1");
	CU_ASSERT_EQUAL(sm_get_string(o, "absent", true, &s, &e), -EINVAL);
	CU_ASSERT_STRING_EQUAL(e.msg, "missing field 'absent'");
	CU_ASSERT_EQUAL(e.code, SM_ERR_BAD_REQUEST);
	CU_ASSERT_EQUAL(sm_get_string(o, "n", false, &s, &e), -EINVAL);
	CU_ASSERT_STRING_EQUAL(e.msg, "field 'n' must be a string");

	CU_ASSERT_EQUAL(sm_get_array(o, "id", true, &v, &e), -EINVAL);
	CU_ASSERT_STRING_EQUAL(e.msg, "field 'id' must be an array");
	CU_ASSERT_EQUAL(sm_get_array(o, "jobs", true, &v, &e), 0);
	CU_ASSERT(json_object_is_type(v, json_type_array));
	CU_ASSERT_EQUAL(sm_get_object(o, "jobs", true, &v, &e), -EINVAL);
	CU_ASSERT_STRING_EQUAL(e.msg, "field 'jobs' must be an object");
	CU_ASSERT_EQUAL(sm_get_object(o, "obj", true, &v, &e), 0);

	CU_ASSERT_EQUAL(sm_get_int(o, "w", true, 1, 1000, &x, &e), 0);
	CU_ASSERT_EQUAL(x, 5);
	CU_ASSERT_EQUAL(sm_get_int(o, "absent", false, 1, 1000, &x, &e), 0);
	CU_ASSERT_EQUAL(x, 5);
	CU_ASSERT_EQUAL(sm_get_int(o, "weight", true, 1, 1000, &x, &e),
			-EINVAL);
	CU_ASSERT_STRING_EQUAL(e.msg, "field 'weight' must be an integer 1..1000");
	CU_ASSERT_EQUAL(sm_get_int(o, "f", true, 1, 1000, &x, &e), -EINVAL);
	CU_ASSERT_STRING_EQUAL(e.msg, "field 'f' must be an integer 1..1000");
	CU_ASSERT_EQUAL(sm_get_int(o, "id", true, 1, 1000, &x, &e), -EINVAL);
	CU_ASSERT_EQUAL(sm_get_int(o, "neg", true, 0, INT64_MAX, &x, &e),
			-EINVAL);
	CU_ASSERT_EQUAL(sm_get_int(o, "big", true, 0, INT64_MAX, &x, &e),
			-EINVAL);
	CU_ASSERT_EQUAL(sm_get_int(o, "neg", true, -5, 5, &x, &e), 0);
	CU_ASSERT_EQUAL(x, -3);
	json_object_put(o);
}

static void test_check_fields(void)
{
	static const char *const allowed[] = { "op", "id", NULL };
	json_object *o = json_tokener_parse("{\"op\":\"x\",\"id\":\"a\"}");
	struct sm_error e;

	CU_ASSERT_EQUAL(sm_check_fields(o, allowed, &e), 0);
	json_object_object_add(o, "weigth", json_object_new_int(2));
	CU_ASSERT_EQUAL(sm_check_fields(o, allowed, &e), -EINVAL);
	CU_ASSERT_EQUAL(e.code, SM_ERR_BAD_REQUEST);
	CU_ASSERT_STRING_EQUAL(e.msg, "unknown field 'weigth'");
	json_object_put(o);
}

TU_SUITE(proto,
	 { "parse ok", test_parse_ok },
	 { "parse errors", test_parse_errors },
	 { "NUL byte and nesting", test_parse_nul_and_depth },
	 { "strict: NUL in strings, NaN, duplicate keys", test_parse_strict },
	 { "too long", test_too_long },
	 { "parse reply", test_parse_reply },
	 { "error codes", test_codes },
	 { "reply lines", test_reply_lines },
	 { "typed getters", test_getters },
	 { "unknown fields", test_check_fields })
