/* SPDX-License-Identifier: MIT */
/*
 * The wire protocol: newline-delimited JSON, one request object per line,
 * one reply object per request.  Parsing, reply building and typed field
 * access with the error messages a client sees.  docs/protocol.md is the
 * reference; the error codes below are part of it and never change.
 */
#ifndef GPUAWARE_PROTO_H
#define GPUAWARE_PROTO_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <json-c/json.h>

/* Longest request line the server accepts, newline excluded. */
#define SM_MAX_LINE_DEFAULT (64 * 1024)

/* Stable error codes; sm_err_code() gives the wire string. */
enum sm_err {
	SM_ERR_BAD_JSON,	/* the line is not one JSON text */
	SM_ERR_NOT_OBJECT,	/* valid JSON, but not an object */
	SM_ERR_MISSING_OP,	/* no "op", or "op" not a non-empty string */
	SM_ERR_UNKNOWN_OP,	/* "op" names no operation of this socket */
	SM_ERR_BAD_REQUEST,	/* a field is missing, mistyped or invalid */
	SM_ERR_TOO_LONG,	/* the line exceeds the limit; then closed */
	SM_ERR_FORBIDDEN,	/* the peer may not change state */
	SM_ERR_UNKNOWN_HOST,	/* a host is not in the fabric */
	SM_ERR_DUPLICATE_ID,	/* the id already exists or is given twice */
	SM_ERR_NOT_FOUND,	/* the id names nothing */
	SM_ERR_BUSY,		/* too many clients; connection closed */
	SM_ERR_TIMEOUT,		/* request line too slow, or idle; closed */
	SM_ERR_INTERNAL,	/* the server failed (memory, disk) */
	SM_ERR_BAD_CREDENTIAL,	/* a MUNGE credential refused */
	SM_ERR_POOL_FULL,	/* not enough free GPUs now (not queued) */
	SM_ERR_COUNT
};

/* A protocol error: its code and the message the client reads. */
struct sm_error {
	enum sm_err code;
	char msg[256];
};

/* "bad_json" ...; "internal" for an out-of-range value. */
const char *sm_err_code(enum sm_err code);

/*
 * Fill e and return the negative errno that goes with the code
 * (-EINVAL, -EMSGSIZE, -EACCES, -ENXIO, -EEXIST, -ENOENT, -EBUSY, ...), so
 * a validator can "return sm_error_set(e, ...);".
 */
__attribute__((format(printf, 3, 4)))
int sm_error_set(struct sm_error *e, enum sm_err code, const char *fmt, ...);

/* Put "prefix" (printf-style) in front of e->msg, truncating the end. */
__attribute__((format(printf, 2, 3)))
void sm_error_prefix(struct sm_error *e, const char *fmt, ...);

/*
 * Parse one request line of len bytes (no newline; it need not be
 * NUL-terminated).  On success *req is a new object (the caller puts it)
 * whose "op" is a non-empty string, and 0 is returned.  Otherwise a
 * negative errno with e filled: too_long when len > max, bad_json with
 * json-c's own description, not_object, missing_op.
 */
int sm_proto_parse(const char *line, size_t len, size_t max,
		   json_object **req, struct sm_error *e);

/*
 * Parse one JSON object of len bytes (a reply line, a state file): the
 * checks of sm_proto_parse() but the op's.
 */
int sm_proto_parse_object(const char *text, size_t len, size_t max,
			  json_object **out, struct sm_error *e);

/*
 * Parse one reply line as sm_proto_parse() does a request, but the object
 * must carry a boolean "ok" instead of an "op" (bad_request otherwise).
 */
int sm_proto_parse_reply(const char *line, size_t len, size_t max,
			 json_object **reply, struct sm_error *e);

/* The request's op string, borrowed from req; NULL when there is none. */
const char *sm_proto_op(json_object *req);

/*
 * Add v to o as key; consumes v in every case (NULL v, from a failed
 * json_object_new_*(), is -ENOMEM).  Returns 0 or -ENOMEM.
 */
int sm_json_add(json_object *o, const char *key, json_object *v);

/* A new {"ok":true} for the caller to add fields to, or NULL (ENOMEM). */
json_object *sm_reply_ok(void);

/* A new {"ok":false,"error":{"code":...,"message":...}}, or NULL. */
__attribute__((format(printf, 2, 3)))
json_object *sm_reply_error(enum sm_err code, const char *fmt, ...);

/* The same from a filled struct sm_error. */
json_object *sm_reply_from_error(const struct sm_error *e);

/*
 * Bytes of the UTF-8 character at s, 0 when it is not one (an invalid
 * byte, a cut sequence): what the protocol's strings must be made of.
 */
size_t sm_utf8_len(const unsigned char *s);

/*
 * Serialise a reply (or a client's request) as one line: plain JSON and
 * a final '\n' (json-c escapes control characters, so there is no other
 * newline).  Returns a malloc'd string the caller frees, *len set without
 * the NUL, or NULL.
 */
char *sm_proto_line(json_object *reply, size_t *len);

/*
 * Typed fields of a request or job object.  Each returns 0 with *out set
 * (borrowed from o), or a negative errno with e filled with bad_request
 * ("missing field 'id'", "field 'jobs' must be an array", "field 'weight'
 * must be an integer 1..1000").  When required is false an absent field
 * returns 0 and leaves *out as it was (the caller's default); a JSON null
 * is a type error, never "absent".
 */
int sm_get_string(json_object *o, const char *key, bool required,
		  const char **out, struct sm_error *e);
int sm_get_int(json_object *o, const char *key, bool required, int64_t min,
	       int64_t max, int64_t *out, struct sm_error *e);
int sm_get_array(json_object *o, const char *key, bool required,
		 json_object **out, struct sm_error *e);
int sm_get_object(json_object *o, const char *key, bool required,
		  json_object **out, struct sm_error *e);

/*
 * bad_request naming the first member of o not in the NULL-terminated
 * list allowed ("unknown field 'weigth'"), so typos never pass silently.
 */
int sm_check_fields(json_object *o, const char *const *allowed,
		    struct sm_error *e);

#endif
