// SPDX-License-Identifier: MIT
/* sm_call: one request line to a server, one reply line back. */
#include <errno.h>
#include <poll.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "../topology/monotime.h"
#include "client.h"
#include "endpoint.h"
#include "mungeauth.h"
#include "proto.h"

#define CALL_MAX_REPLY (64u << 20)

/* Wait for events on fd until the deadline: 0, -ETIMEDOUT or -errno. */
static int wait_fd(int fd, short events, int64_t end)
{
	struct pollfd p = { .fd = fd, .events = events };
	int64_t left;
	int n;

	for (;;) {
		left = end - mono_ms();
		if (left <= 0)
			return -ETIMEDOUT;
		n = poll(&p, 1, (int)left);
		if (n > 0)
			return 0;
		if (n < 0 && errno != EINTR)
			return -errno;
	}
}

static int send_line(int fd, const char *line, size_t n, int64_t end)
{
	ssize_t w;
	int ret;

	while (n) {
		ret = wait_fd(fd, POLLOUT, end);
		if (ret)
			return ret;
		w = send(fd, line, n, MSG_NOSIGNAL | MSG_DONTWAIT);
		if (w < 0 && (errno == EAGAIN || errno == EINTR))
			continue;
		if (w < 0)
			return -errno;
		line += w;
		n -= w;
	}
	return 0;
}

/* Read up to the first '\n' into a malloc'd *buf; *n excludes it. */
static int recv_line(int fd, char **buf, size_t *n, int64_t end)
{
	size_t cap = 0, got = 0;
	char *nl = NULL, *p;
	ssize_t r;
	int ret;

	*buf = NULL;
	while (!nl) {
		if (got == cap) {
			if (cap >= CALL_MAX_REPLY)
				return -EMSGSIZE;
			cap = cap ? cap * 2 : 4096;
			p = realloc(*buf, cap);
			if (!p)
				return -ENOMEM;
			*buf = p;
		}
		ret = wait_fd(fd, POLLIN, end);
		if (ret)
			return ret;
		r = recv(fd, *buf + got, cap - got, MSG_DONTWAIT);
		if (r < 0 && (errno == EAGAIN || errno == EINTR))
			continue;
		if (r < 0)
			return -errno;
		if (r == 0)
			return -ECONNRESET;
		nl = memchr(*buf + got, '\n', r);
		got += r;
	}
	*n = nl - *buf;
	return 0;
}

/* path's address: a Unix socket's, or after SM_TCP_PREFIX a TCP one. */
static int call_addr(const char *path, struct sockaddr_storage *a,
		     socklen_t *alen, char *err, size_t len)
{
	struct sockaddr_un *un = (struct sockaddr_un *)a;
	size_t pl = strlen(SM_TCP_PREFIX);

	if (!strncmp(path, SM_TCP_PREFIX, pl))
		return sm_tcp_resolve(path + pl, a, alen, err, len);
	if (strlen(path) >= sizeof(un->sun_path)) {
		snprintf(err, len, "%s: socket path too long", path);
		return -ENAMETOOLONG;
	}
	memset(un, 0, sizeof(*un));
	un->sun_family = AF_UNIX;
	strcpy(un->sun_path, path);
	*alen = sizeof(*un);
	return 0;
}

/* Connect fd to a by the deadline; TCP's connect completes later. */
static int dial(int fd, const struct sockaddr_storage *a, socklen_t alen,
		int64_t end)
{
	socklen_t sl = sizeof(int);
	int ret, e = 0;

	if (!connect(fd, (const struct sockaddr *)a, alen))
		return 0;
	if (errno != EINPROGRESS)
		return -errno;
	ret = wait_fd(fd, POLLOUT, end);
	if (ret)
		return ret;
	if (getsockopt(fd, SOL_SOCKET, SO_ERROR, &e, &sl))
		return -errno;
	return -e;
}

/*
 * A TCP request in its MUNGE envelope (*line replaced); without munged
 * it stays as it is and anon says why.  0 or -ENOMEM.
 */
static int wrap(const char *munge, char **line, size_t *n, char *anon,
		size_t len)
{
	char *env;
	size_t en;
	int ret = sm_munge_wrap(munge, *line, *n - 1, &env, &en, anon, len);

	if (ret == -ENOMEM)
		return ret;
	if (!ret) {
		free(*line);
		*line = env;
		*n = en;
	}
	return 0;
}

/* A forbidden reply to an anonymous request says why it was one. */
static void note_anonymous(json_object *reply, const char *why)
{
	json_object *e, *c, *m;
	char *msg;

	if (!json_object_object_get_ex(reply, "error", &e) ||
	    !json_object_object_get_ex(e, "code", &c) ||
	    strcmp(json_object_get_string(c), sm_err_code(SM_ERR_FORBIDDEN)) ||
	    !json_object_object_get_ex(e, "message", &m) ||
	    asprintf(&msg, "%s (sent without a MUNGE credential: %s)",
		     json_object_get_string(m), why) < 0)
		return;
	json_object_object_add(e, "message", json_object_new_string(msg));
	free(msg);
}

int sm_call(const char *path, json_object *req, json_object **reply,
	    int timeout_ms, char *err, size_t len)
{
	return sm_call_as(path, NULL, req, reply, timeout_ms, err, len);
}

/* Why a request or its reply did not cross, as err says it. */
static void say_io(const char *path, int timeout_ms, int ret, char *err,
		   size_t len)
{
	if (ret == -ETIMEDOUT)
		snprintf(err, len, "%s: no reply within %d ms", path,
			 timeout_ms);
	else if (ret == -ECONNRESET || ret == -EPIPE)
		snprintf(err, len, "%s: connection closed without a reply",
			 path);
	else
		snprintf(err, len, "%s: %s", path, strerror(-ret));
}

/*
 * Connect to path and send req (in a MUNGE envelope over TCP; anon says
 * why not) by end: 0 with *fd, or a negative errno with err.
 */
static int call_open(const char *path, const char *munge, json_object *req,
		     int64_t end, int timeout_ms, int *fdp, char *anon,
		     size_t alen_anon, char *err, size_t len)
{
	struct sockaddr_storage a;
	char *line;
	socklen_t alen;
	size_t n;
	int fd, ret;

	*fdp = -1;
	ret = call_addr(path, &a, &alen, err, len);
	if (ret)
		return ret;
	line = sm_proto_line(req, &n);
	if (line && a.ss_family != AF_UNIX &&
	    wrap(munge, &line, &n, anon, alen_anon)) {
		free(line);
		line = NULL;
	}
	if (!line) {
		snprintf(err, len, "%s: out of memory", path);
		return -ENOMEM;
	}
	fd = socket(a.ss_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (fd < 0) {
		ret = -errno;
		snprintf(err, len, "%s: socket: %s", path, strerror(errno));
		goto out_free;
	}
	ret = dial(fd, &a, alen, end);
	if (ret == -ETIMEDOUT)
		snprintf(err, len, "%s: connect: no answer within %d ms", path,
			 timeout_ms);
	else if (ret)
		snprintf(err, len, "%s: connect: %s", path, strerror(-ret));
	if (ret)
		goto out_close;
	ret = send_line(fd, line, n, end);
	if (ret) {
		say_io(path, timeout_ms, ret, err, len);
		goto out_close;
	}
	*fdp = fd;
	free(line);
	return 0;
out_close:
	close(fd);
out_free:
	free(line);
	return ret;
}

int sm_call_as(const char *path, const char *munge, json_object *req,
	       json_object **reply, int timeout_ms, char *err, size_t len)
{
	int64_t end = mono_ms() + timeout_ms;
	char *buf = NULL, anon[256] = "";
	struct sm_error e;
	size_t n = 0;
	int fd, ret;

	ret = call_open(path, munge, req, end, timeout_ms, &fd, anon,
			sizeof(anon), err, len);
	if (ret)
		return ret;
	ret = recv_line(fd, &buf, &n, end);
	if (ret)
		say_io(path, timeout_ms, ret, err, len);
	else if (sm_proto_parse_reply(buf, n, CALL_MAX_REPLY, reply, &e)) {
		snprintf(err, len, "%s: bad reply: %s", path, e.msg);
		ret = -EPROTO;
	} else if (*anon) {
		note_anonymous(*reply, anon);
	}
	free(buf);
	close(fd);
	return ret;
}

/* Lines from fd to fn until it stops, the peer closes, or an error. */
static int stream_lines(int fd, const char *path,
			int (*fn)(void *ctx, json_object *line), void *ctx,
			char *err, size_t len)
{
	size_t cap = 4096, got = 0, start;
	char *buf = malloc(cap), *nl, *p;
	struct pollfd pf = { .fd = fd, .events = POLLIN };
	struct sm_error e;
	json_object *o;
	ssize_t r;
	int ret = 0;

	while (buf && !ret) {
		if (got == cap) {
			p = cap < CALL_MAX_REPLY ? realloc(buf, cap * 2) : NULL;
			if (!p)
				break;
			buf = p;
			cap *= 2;
		}
		if (poll(&pf, 1, -1) < 0 && errno != EINTR) {
			ret = -errno;
			break;
		}
		r = recv(fd, buf + got, cap - got, MSG_DONTWAIT);
		if (r < 0 && (errno == EAGAIN || errno == EINTR))
			continue;
		if (r <= 0) {
			ret = r ? -errno : -ECONNRESET;
			break;
		}
		got += r;
		start = 0;
		while (!ret && (nl = memchr(buf + start, '\n', got - start))) {
			if (sm_proto_parse_object(buf + start, nl - buf - start,
						 CALL_MAX_REPLY, &o, &e)) {
				snprintf(err, len, "%s: bad line: %s", path,
					 e.msg);
				ret = -EPROTO;
				break;
			}
			ret = fn(ctx, o);
			json_object_put(o);
			start = nl - buf + 1;
		}
		memmove(buf, buf + start, got - start);
		got -= start;
	}
	if (!buf || (!ret && got == cap)) {
		snprintf(err, len, "%s: out of memory", path);
		ret = -ENOMEM;
	} else if (ret == -ECONNRESET) {
		snprintf(err, len, "%s: the server closed the connection",
			 path);
	} else if (ret < 0 && ret != -EPROTO) {
		snprintf(err, len, "%s: %s", path, strerror(-ret));
	}
	free(buf);
	return ret;
}

int sm_stream_as(const char *path, const char *munge, json_object *req,
		 int timeout_ms, int (*fn)(void *ctx, json_object *line),
		 void *ctx, char *err, size_t len)
{
	char anon[256] = "";
	int fd, ret;

	ret = call_open(path, munge, req, mono_ms() + timeout_ms, timeout_ms,
			&fd, anon, sizeof(anon), err, len);
	if (ret)
		return ret;
	ret = stream_lines(fd, path, fn, ctx, err, len);
	close(fd);
	return ret;
}
