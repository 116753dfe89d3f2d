/* SPDX-License-Identifier: MIT */
/*
 * The one-call client of the JSON-lines protocol that the CLI and the
 * daemon use to reach the plugin's hint socket or ibpoold's pool socket.
 */
#ifndef GPUAWARE_SM_CLIENT_H
#define GPUAWARE_SM_CLIENT_H

#include <stddef.h>

#include <json-c/json.h>

#define SM_TCP_PREFIX "tcp:"	/* sm_call's path for a TCP endpoint */

/*
 * Connect to path (SM_TCP_PREFIX "[ADDR:]PORT" or "HOST:PORT": that TCP
 * endpoint), send req as one line, read one reply line, all within
 * timeout_ms.  Returns 0 with *reply a new object the caller puts (ok or
 * error reply alike), or a negative errno with err filled:
 * -ENOENT/-ECONNREFUSED (no server), -EACCES (the socket's mode or group
 * keeps the caller out), -ETIMEDOUT, -ECONNRESET (closed without a
 * reply), -EPROTO (the reply is not a reply line), -EINVAL (a bad TCP
 * endpoint), -EHOSTUNREACH (a host name that does not resolve).
 *
 * Over TCP the request goes in a MUNGE credential from munged at munge
 * (NULL: libmunge's default socket), so the server knows the caller's
 * uid and gid; without one (no munged here) it goes as it is, and a
 * forbidden reply's message then says why none was sent.
 */
int sm_call_as(const char *path, const char *munge, json_object *req,
	       json_object **reply, int timeout_ms, char *err, size_t len);

/*
 * As sm_call_as(), for a request whose reply is followed by more lines
 * (a watch): each line, the reply first, goes to fn (borrowed for the
 * call) until fn returns non-zero (returned), the server closes
 * (-ECONNRESET) or an error; no deadline after the request is sent.
 * Errors as sm_call_as(), with err.
 */
int sm_stream_as(const char *path, const char *munge, json_object *req,
		 int timeout_ms, int (*fn)(void *ctx, json_object *line),
		 void *ctx, char *err, size_t len);

/* sm_call_as() with libmunge's default munged. */
int sm_call(const char *path, json_object *req, json_object **reply,
	    int timeout_ms, char *err, size_t len);

#endif
