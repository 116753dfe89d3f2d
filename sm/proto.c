// SPDX-License-Identifier: MIT
/* Request parsing, reply building and typed fields of the JSON-lines protocol. */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "proto.h"

static const struct {
	const char *code;
	int err;
} errs[SM_ERR_COUNT] = {
	[SM_ERR_BAD_JSON] = { "bad_json", EINVAL },
	[SM_ERR_NOT_OBJECT] = { "not_object", EINVAL },
	[SM_ERR_MISSING_OP] = { "missing_op", EINVAL },
	[SM_ERR_UNKNOWN_OP] = { "unknown_op", EOPNOTSUPP },
	[SM_ERR_BAD_REQUEST] = { "bad_request", EINVAL },
	[SM_ERR_TOO_LONG] = { "too_long", EMSGSIZE },
	[SM_ERR_FORBIDDEN] = { "forbidden", EACCES },
	[SM_ERR_UNKNOWN_HOST] = { "unknown_host", ENXIO },
	[SM_ERR_DUPLICATE_ID] = { "duplicate_id", EEXIST },
	[SM_ERR_NOT_FOUND] = { "not_found", ENOENT },
	[SM_ERR_BUSY] = { "busy", EBUSY },
	[SM_ERR_TIMEOUT] = { "timeout", ETIMEDOUT },
	[SM_ERR_INTERNAL] = { "internal", EIO },
	[SM_ERR_BAD_CREDENTIAL] = { "bad_credential", EACCES },
	[SM_ERR_POOL_FULL] = { "pool_full", ENOSPC },
};

const char *sm_err_code(enum sm_err code)
{
	return (unsigned int)code < SM_ERR_COUNT ? errs[code].code :
		errs[SM_ERR_INTERNAL].code;
}

int sm_error_set(struct sm_error *e, enum sm_err code, const char *fmt, ...)
{
	va_list ap;

	if ((unsigned int)code >= SM_ERR_COUNT)
		code = SM_ERR_INTERNAL;
	e->code = code;
	va_start(ap, fmt);
	vsnprintf(e->msg, sizeof(e->msg), fmt, ap);
	va_end(ap);
	return -errs[code].err;
}

void sm_error_prefix(struct sm_error *e, const char *fmt, ...)
{
	char old[sizeof(e->msg)];
	va_list ap;
	int n;

	memcpy(old, e->msg, sizeof(old));
	va_start(ap, fmt);
	n = vsnprintf(e->msg, sizeof(e->msg), fmt, ap);
	va_end(ap);
	if (n >= 0 && (size_t)n < sizeof(e->msg))
		snprintf(e->msg + n, sizeof(e->msg) - n, "%s", old);
}

/*
 * Members in text, valid JSON (a ':' outside strings begins one), into
 * *n; bad_json at a \u0000, which json-c takes but that cuts every C
 * string short ("tr2\u0000 bad" would pass as "tr2").
 */
static int scan_text(const char *p, size_t len, size_t *n,
		     struct sm_error *e)
{
	bool in = false;
	size_t i;

	*n = 0;
	for (i = 0; i < len; i++) {
		if (!in) {
			*n += p[i] == ':';
			in = p[i] == '"';
		} else if (p[i] == '"') {
			in = false;
		} else if (p[i] == '\\') {
			if (len - i >= 6 && !memcmp(p + i + 1, "u0000", 5))
				return sm_error_set(e, SM_ERR_BAD_JSON,
						    "\\u0000 (NUL) in a string at offset %zu",
						    i);
			i++;	/* the escaped character */
		}
	}
	return 0;
}

/*
 * The members of o's objects, at every depth, added to *n; false at a
 * number that is not finite (NaN, Infinity, or beyond a double).
 */
static bool walk_tree(json_object *o, size_t *n)
{
	size_t i;

	switch (json_object_get_type(o)) {
	case json_type_double:
		return isfinite(json_object_get_double(o));
	case json_type_array:
		for (i = 0; i < json_object_array_length(o); i++)
			if (!walk_tree(json_object_array_get_idx(o, i), n))
				return false;
		return true;
	case json_type_object: {
		*n += json_object_object_length(o);
		json_object_object_foreach(o, key, val) {
			(void)key;
			if (!walk_tree(val, n))
				return false;
		}
		return true;
	}
	default:
		return true;
	}
}

/*
 * What json-c takes but strict JSON for a request does not: \u0000,
 * NaN and Infinity, and a key twice in one object (json-c keeps the
 * last; fewer members in the tree than in the text tell it).
 */
static int check_strict(const char *text, size_t len, json_object *o,
			struct sm_error *e)
{
	size_t in_text, in_tree = 0;
	int ret = scan_text(text, len, &in_text, e);

	if (ret)
		return ret;
	if (!walk_tree(o, &in_tree))
		return sm_error_set(e, SM_ERR_BAD_JSON,
				    "a number is not finite (NaN, Infinity, or beyond the range of a double)");
	if (in_tree != in_text)
		return sm_error_set(e, SM_ERR_BAD_JSON,
				    "duplicate key in an object");
	return 0;
}

/*
 * One JSON text filling the line: strict (no comments, single quotes,
 * trailing garbage, \u0000, NaN or duplicate keys) and valid UTF-8.  Feeding a final NUL tells json-c the
 * input ended, so a cut text gets json-c's own "unexpected end of data".
 */
int sm_proto_parse_object(const char *line, size_t len, size_t max,
			  json_object **out, struct sm_error *e)
{
	enum json_tokener_error jerr;
	struct json_tokener *tok;
	json_object *o;
	const char *nul;
	int ret;

	if (len > max)
		return sm_error_set(e, SM_ERR_TOO_LONG,
				    "line of %zu bytes exceeds the limit of %zu",
				    len, max);
	nul = memchr(line, '\0', len);
	if (nul)
		return sm_error_set(e, SM_ERR_BAD_JSON, "NUL byte at offset %td",
				    nul - line);
	if (len > INT32_MAX)
		return sm_error_set(e, SM_ERR_TOO_LONG, "line too long");
	tok = json_tokener_new();
	if (!tok)
		return sm_error_set(e, SM_ERR_INTERNAL, "out of memory");
	json_tokener_set_flags(tok, JSON_TOKENER_STRICT |
			       JSON_TOKENER_VALIDATE_UTF8);
	o = json_tokener_parse_ex(tok, line, (int)len);
	jerr = json_tokener_get_error(tok);
	if (jerr == json_tokener_continue)
		o = json_tokener_parse_ex(tok, "", 1);
	jerr = json_tokener_get_error(tok);
	json_tokener_free(tok);
	if (jerr != json_tokener_success || !o) {
		json_object_put(o);
		if (jerr == json_tokener_success)
			return sm_error_set(e, SM_ERR_NOT_OBJECT,
					    "expected a JSON object, not null");
		return sm_error_set(e, SM_ERR_BAD_JSON, "%s",
				    json_tokener_error_desc(jerr));
	}
	if (!json_object_is_type(o, json_type_object))
		ret = sm_error_set(e, SM_ERR_NOT_OBJECT,
				   "expected a JSON object, not %s",
				   json_type_to_name(json_object_get_type(o)));
	else
		ret = check_strict(line, len, o, e);
	if (ret) {
		json_object_put(o);
		return ret;
	}
	*out = o;
	return 0;
}

int sm_proto_parse(const char *line, size_t len, size_t max,
		   json_object **req, struct sm_error *e)
{
	json_object *o, *op;
	int ret;

	ret = sm_proto_parse_object(line, len, max, &o, e);
	if (ret)
		return ret;
	if (!json_object_object_get_ex(o, "op", &op))
		ret = sm_error_set(e, SM_ERR_MISSING_OP, "missing field 'op'");
	else if (!json_object_is_type(op, json_type_string) ||
		 !json_object_get_string_len(op))
		ret = sm_error_set(e, SM_ERR_MISSING_OP,
				   "field 'op' must be a non-empty string");
	if (ret) {
		json_object_put(o);
		return ret;
	}
	*req = o;
	return 0;
}

int sm_proto_parse_reply(const char *line, size_t len, size_t max,
			 json_object **reply, struct sm_error *e)
{
	json_object *o, *ok;
	int ret;

	ret = sm_proto_parse_object(line, len, max, &o, e);
	if (ret)
		return ret;
	if (!json_object_object_get_ex(o, "ok", &ok) ||
	    !json_object_is_type(ok, json_type_boolean)) {
		json_object_put(o);
		return sm_error_set(e, SM_ERR_BAD_REQUEST,
				    "reply has no boolean field 'ok'");
	}
	*reply = o;
	return 0;
}

const char *sm_proto_op(json_object *req)
{
	json_object *op;

	if (!json_object_object_get_ex(req, "op", &op) ||
	    !json_object_is_type(op, json_type_string))
		return NULL;
	return json_object_get_string(op);
}

int sm_json_add(json_object *o, const char *key, json_object *v)
{
	if (!v)
		return -ENOMEM;
	if (json_object_object_add(o, key, v)) {
		json_object_put(v);
		return -ENOMEM;
	}
	return 0;
}

json_object *sm_reply_ok(void)
{
	json_object *r = json_object_new_object();

	if (r && sm_json_add(r, "ok", json_object_new_boolean(1))) {
		json_object_put(r);
		return NULL;
	}
	return r;
}

json_object *sm_reply_from_error(const struct sm_error *e)
{
	json_object *r, *err;

	r = json_object_new_object();
	err = json_object_new_object();
	if (!r || !err)
		goto out_put_err;
	if (sm_json_add(err, "code",
			json_object_new_string(sm_err_code(e->code))) ||
	    sm_json_add(err, "message", json_object_new_string(e->msg)) ||
	    sm_json_add(r, "ok", json_object_new_boolean(0)))
		goto out_put_err;
	if (sm_json_add(r, "error", err))
		goto out_put;
	return r;
out_put_err:
	json_object_put(err);
out_put:
	json_object_put(r);
	return NULL;
}

json_object *sm_reply_error(enum sm_err code, const char *fmt, ...)
{
	struct sm_error e;
	va_list ap;

	e.code = (unsigned int)code < SM_ERR_COUNT ? code : SM_ERR_INTERNAL;
	va_start(ap, fmt);
	vsnprintf(e.msg, sizeof(e.msg), fmt, ap);
	va_end(ap);
	return sm_reply_from_error(&e);
}

size_t sm_utf8_len(const unsigned char *s)
{
	size_t n = *s < 0x80 ? 1 : *s >= 0xc2 && *s < 0xe0 ? 2 :
		   *s >= 0xe0 && *s < 0xf0 ? 3 : *s >= 0xf0 && *s < 0xf5 ? 4 : 0;
	size_t i;

	for (i = 1; i < n; i++)
		if ((s[i] & 0xc0) != 0x80)
			return 0;
	/* overlong forms, UTF-16 surrogates, past U+10FFFF */
	if ((s[0] == 0xe0 && s[1] < 0xa0) || (s[0] == 0xed && s[1] > 0x9f) ||
	    (s[0] == 0xf0 && s[1] < 0x90) || (s[0] == 0xf4 && s[1] > 0x8f))
		return 0;
	return n;
}

char *sm_proto_line(json_object *reply, size_t *len)
{
	const char *s;
	size_t n;
	char *line;

	s = json_object_to_json_string_length(reply, JSON_C_TO_STRING_PLAIN |
					      JSON_C_TO_STRING_NOSLASHESCAPE, &n);
	if (!s)
		return NULL;
	line = malloc(n + 2);
	if (!line)
		return NULL;
	memcpy(line, s, n);
	line[n] = '\n';
	line[n + 1] = '\0';
	*len = n + 1;
	return line;
}

/*
 * The member key of o if it has type t: 1 with *out set, 0 when absent
 * and optional, or bad_request saying what was expected.
 */
static int get_typed(json_object *o, const char *key, bool required,
		     json_type t, const char *what, json_object **out,
		     struct sm_error *e)
{
	json_object *v = NULL;

	if (!json_object_object_get_ex(o, key, &v)) {
		if (required)
			return sm_error_set(e, SM_ERR_BAD_REQUEST,
					    "missing field '%s'", key);
		return 0;
	}
	if (!json_object_is_type(v, t))
		return sm_error_set(e, SM_ERR_BAD_REQUEST,
				    "field '%s' must be %s", key, what);
	*out = v;
	return 1;
}

int sm_get_string(json_object *o, const char *key, bool required,
		  const char **out, struct sm_error *e)
{
	json_object *v = NULL;
	int ret;

	ret = get_typed(o, key, required, json_type_string, "a string", &v, e);
	if (ret > 0)
		*out = json_object_get_string(v);
	return ret < 0 ? ret : 0;
}

int sm_get_int(json_object *o, const char *key, bool required, int64_t min,
	       int64_t max, int64_t *out, struct sm_error *e)
{
	json_object *v = NULL;
	char what[64];
	int64_t x;
	int ret;

	snprintf(what, sizeof(what), "an integer %" PRId64 "..%" PRId64,
		 min, max);
	ret = get_typed(o, key, required, json_type_int, what, &v, e);
	if (ret <= 0)
		return ret;
	/* json-c keeps integers above INT64_MAX as uint64 */
	x = json_object_get_int64(v);
	if (x < min || x > max || json_object_get_uint64(v) > INT64_MAX)
		return sm_error_set(e, SM_ERR_BAD_REQUEST,
				    "field '%s' must be %s", key, what);
	*out = x;
	return 0;
}

int sm_get_array(json_object *o, const char *key, bool required,
		 json_object **out, struct sm_error *e)
{
	int ret = get_typed(o, key, required, json_type_array, "an array",
			    out, e);

	return ret < 0 ? ret : 0;
}

int sm_get_object(json_object *o, const char *key, bool required,
		  json_object **out, struct sm_error *e)
{
	int ret = get_typed(o, key, required, json_type_object, "an object",
			    out, e);

	return ret < 0 ? ret : 0;
}

int sm_check_fields(json_object *o, const char *const *allowed,
		    struct sm_error *e)
{
	const char *const *a;

	json_object_object_foreach(o, key, val) {
		(void)val;
		for (a = allowed; *a && strcmp(*a, key); a++)
			;
		if (!*a)
			return sm_error_set(e, SM_ERR_BAD_REQUEST,
					    "unknown field '%s'", key);
	}
	return 0;
}
