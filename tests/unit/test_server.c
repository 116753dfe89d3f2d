// SPDX-License-Identifier: MIT
/*
 * Socket server tests over real sockets, Unix and TCP: framing, limits,
 * deadlines, peers, and sm_call (client.c) against the server.
 */
#include <errno.h>
#include <fcntl.h>
#include <arpa/inet.h>
#include <grp.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <pwd.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "topology/monotime.h"
#include "tu.h"
#include "sm/client.h"
#include "sm/mungeauth.h"
#include "sm/server.h"

/* No munged: TCP calls go anonymous whatever the machine runs. */
#define NO_MUNGE "/nonexistent/munge.socket"

struct fixture {
	char dir[64];
	char path[96];
	struct sm_server *srv;
};

/*
 * Deferred requests the tests answer: their tickets and "n"s in handler
 * order, and how many requests the handler saw.
 */
static struct {
	pthread_mutex_t lock;
	uint64_t ticket[8];
	int n[8];
	unsigned int ndeferred, calls;
} later = { .lock = PTHREAD_MUTEX_INITIALIZER };

static void later_reset(void)
{
	pthread_mutex_lock(&later.lock);
	later.ndeferred = later.calls = 0;
	pthread_mutex_unlock(&later.lock);
}

static unsigned int later_calls(void)
{
	unsigned int n;

	pthread_mutex_lock(&later.lock);
	n = later.calls;
	pthread_mutex_unlock(&later.lock);
	return n;
}

/* The ticket of the k-th deferred request, waiting up to 2 s for it. */
static uint64_t later_ticket(unsigned int k)
{
	uint64_t t = 0;
	int i;

	for (i = 0; i < 2000 && !t; i++) {
		pthread_mutex_lock(&later.lock);
		if (k < later.ndeferred)
			t = later.ticket[k];
		pthread_mutex_unlock(&later.lock);
		if (!t)
			usleep(1000);
	}
	CU_ASSERT_FATAL(t != 0);
	return t;
}

/* An ok reply carrying n, as a deferred request's answer. */
static json_object *reply_n(int n)
{
	json_object *r = sm_reply_ok();

	sm_json_add(r, "n", json_object_new_int(n));
	return r;
}

/*
 * "later" defers its reply (the test answers it), "early" answers its
 * own ticket before it returns SM_DEFERRED, "stray" answers its ticket
 * and still replies at once.
 */
static int defer(struct sm_server *srv, const struct sm_peer *p,
		 json_object *req, const char *op, json_object **reply)
{
	json_object *v;
	int n = json_object_object_get_ex(req, "n", &v) ?
		json_object_get_int(v) : 0;

	if (!strcmp(op, "early")) {
		sm_server_answer(srv, p->ticket, reply_n(n));
		return SM_DEFERRED;
	}
	if (!strcmp(op, "stray")) {
		sm_server_answer(srv, p->ticket, reply_n(-1));
		*reply = reply_n(n);
		return 0;
	}
	pthread_mutex_lock(&later.lock);
	if (later.ndeferred < 8) {
		later.ticket[later.ndeferred] = p->ticket;
		later.n[later.ndeferred++] = n;
	}
	pthread_mutex_unlock(&later.lock);
	return SM_DEFERRED;
}

/*
 * "echo" answers with the peer and the request's "n" and "pad"; "fail"
 * fails; "mute" returns no reply; "later", "early" and "stray" see
 * defer(); anything else is unknown_op.  ctx is the fixture (for those
 * three; a test with a log callback has its buffer there).
 */
static int handler(void *ctx, const struct sm_peer *p, json_object *req,
		   json_object **reply)
{
	const struct fixture *f = ctx;
	const char *op = sm_proto_op(req);
	json_object *v;

	pthread_mutex_lock(&later.lock);
	later.calls++;
	pthread_mutex_unlock(&later.lock);
	if (!strcmp(op, "later") || !strcmp(op, "early") ||
	    !strcmp(op, "stray"))
		return defer(f->srv, p, req, op, reply);
	if (!strcmp(op, "fail"))
		return -EIO;
	if (!strcmp(op, "mute"))
		return 0;
	if (strcmp(op, "echo")) {
		*reply = sm_reply_error(SM_ERR_UNKNOWN_OP, "unknown op '%s'", op);
		return 0;
	}
	*reply = sm_reply_ok();
	sm_json_add(*reply, "uid", json_object_new_int64(p->uid));
	sm_json_add(*reply, "pid", json_object_new_int64(p->pid));
	sm_json_add(*reply, "may_write", json_object_new_boolean(p->may_write));
	sm_json_add(*reply, "remote", json_object_new_boolean(p->remote));
	sm_json_add(*reply, "munge", json_object_new_boolean(p->munge));
	sm_json_add(*reply, "addr", json_object_new_string(p->addr));
	if (json_object_object_get_ex(req, "n", &v))
		sm_json_add(*reply, "n", json_object_get(v));
	if (json_object_object_get_ex(req, "pad", &v))
		sm_json_add(*reply, "pad", json_object_get(v));
	return 0;
}

static void start(struct fixture *f, struct sm_server_config *cfg)
{
	char err[256];
	int ret;

	strcpy(f->dir, "/tmp/gpuaware-srv-XXXXXX");
	CU_ASSERT_FATAL(mkdtemp(f->dir) != NULL);
	snprintf(f->path, sizeof(f->path), "%s/sock", f->dir);
	cfg->path = f->path;
	cfg->handler = handler;
	if (!cfg->ctx)
		cfg->ctx = f;
	later_reset();
	if (!cfg->group)
		cfg->group = SM_NO_GROUP;
	ret = sm_server_start(cfg, &f->srv, err, sizeof(err));
	if (ret)
		fprintf(stderr, "\nstart: %s\n", err);
	CU_ASSERT_FATAL(ret == 0);
}

static void stop(struct fixture *f)
{
	struct stat st;

	sm_server_stop(f->srv);
	/* the server removes its socket */
	CU_ASSERT(stat(f->path, &st) && errno == ENOENT);
	CU_ASSERT(rmdir(f->dir) == 0);
}

static int connect_to(const char *path)
{
	struct sockaddr_un a = { .sun_family = AF_UNIX };
	int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);

	CU_ASSERT_FATAL(fd >= 0);
	strcpy(a.sun_path, path);
	CU_ASSERT_FATAL(connect(fd, (struct sockaddr *)&a, sizeof(a)) == 0);
	return fd;
}

/* A connection to "tcp:ADDR:PORT" (SM_TCP_PREFIX). */
static int connect_tcp(const char *tcp)
{
	struct sockaddr_storage a;
	socklen_t al;
	int fd;

	CU_ASSERT_FATAL(sm_tcp_parse(tcp + strlen(SM_TCP_PREFIX), &a,
				     &al) == 0);
	fd = socket(a.ss_family, SOCK_STREAM | SOCK_CLOEXEC, 0);
	CU_ASSERT_FATAL(fd >= 0);
	CU_ASSERT_FATAL(connect(fd, (struct sockaddr *)&a, al) == 0);
	return fd;
}

/* A connection to the Unix socket path or to SM_TCP_PREFIX "ADDR:PORT". */
static int connect_any(const char *where)
{
	return strncmp(where, SM_TCP_PREFIX, strlen(SM_TCP_PREFIX)) ?
	       connect_to(where) : connect_tcp(where);
}

static void send_str(int fd, const char *s)
{
	CU_ASSERT(send(fd, s, strlen(s), MSG_NOSIGNAL) == (ssize_t)strlen(s));
}

/*
 * Read one line into buf (without '\n') within timeout_ms: its length,
 * -1 on EOF or a reset, -2 on timeout.  Reads byte by byte so the next
 * line stays in the socket.
 */
static int read_line(int fd, char *buf, size_t len, int timeout_ms)
{
	struct pollfd p = { .fd = fd, .events = POLLIN };
	int64_t end = mono_ms() + timeout_ms;
	size_t n = 0;
	ssize_t r;

	while (n + 1 < len) {
		if (poll(&p, 1, (int)(end - mono_ms() > 0 ? end - mono_ms() : 0)) <= 0)
			return -2;
		r = recv(fd, buf + n, 1, 0);
		if (r <= 0)
			return -1;
		if (buf[n] == '\n')
			break;
		n++;
	}
	buf[n] = '\0';
	return (int)n;
}

/* A reply line's error code, or "ok". */
static const char *code_of(const char *line, char *code, size_t len)
{
	json_object *o = json_tokener_parse(line), *v;

	snprintf(code, len, "unparsable");
	if (o && json_object_object_get_ex(o, "error", &v) &&
	    json_object_object_get_ex(v, "code", &v))
		snprintf(code, len, "%s", json_object_get_string(v));
	else if (o && json_object_object_get_ex(o, "ok", &v) &&
		 json_object_get_boolean(v))
		snprintf(code, len, "ok");
	json_object_put(o);
	return code;
}

static void expect_reply(int fd, const char *code)
{
	char line[1024], c[32];

	CU_ASSERT_FATAL(read_line(fd, line, sizeof(line), 2000) >= 0);
	CU_ASSERT_STRING_EQUAL(code_of(line, c, sizeof(c)), code);
}

static void expect_closed(int fd, int timeout_ms)
{
	char line[1024];

	CU_ASSERT_EQUAL(read_line(fd, line, sizeof(line), timeout_ms), -1);
}

static json_object *call(const char *path, const char *text, int *ret)
{
	json_object *req = json_tokener_parse(text), *reply = NULL;
	char err[256];

	*ret = sm_call_as(path, NO_MUNGE, req, &reply, 2000, err, sizeof(err));
	json_object_put(req);
	return reply;
}

static void test_request_reply(void)
{
	struct sm_server_config cfg = { 0 };
	struct sm_server_stats st;
	struct fixture f;
	json_object *r, *v;
	int ret, fd;

	start(&f, &cfg);
	r = call(f.path, "{\"op\":\"echo\",\"n\":7}", &ret);
	CU_ASSERT_EQUAL_FATAL(ret, 0);
	CU_ASSERT(json_object_get_boolean(json_object_object_get(r, "ok")));
	CU_ASSERT_EQUAL(json_object_get_int(json_object_object_get(r, "n")), 7);
	/* SO_PEERCRED: this very process */
	v = json_object_object_get(r, "pid");
	CU_ASSERT_EQUAL(json_object_get_int64(v), getpid());
	v = json_object_object_get(r, "uid");
	CU_ASSERT_EQUAL(json_object_get_int64(v), getuid());
	v = json_object_object_get(r, "may_write");
	CU_ASSERT_EQUAL(json_object_get_boolean(v), getuid() == 0);
	json_object_put(r);
	r = call(f.path, "{\"op\":\"nope\"}", &ret);
	CU_ASSERT_EQUAL(ret, 0);
	CU_ASSERT_STRING_EQUAL(json_object_get_string(json_object_object_get(
		json_object_object_get(r, "error"), "code")), "unknown_op");
	json_object_put(r);

	/* errors keep the connection; handler failures answer internal */
	fd = connect_to(f.path);
	send_str(fd, "{\"op\":\n");
	expect_reply(fd, "bad_json");
	send_str(fd, "[]\n");
	expect_reply(fd, "not_object");
	send_str(fd, "{\"x\":1}\n");
	expect_reply(fd, "missing_op");
	send_str(fd, "{\"op\":\"fail\"}\n");
	expect_reply(fd, "internal");
	send_str(fd, "{\"op\":\"mute\"}\n");
	expect_reply(fd, "internal");
	send_str(fd, "{\"op\":\"echo\"}\n");
	expect_reply(fd, "ok");
	/* a half-closed client still gets its reply */
	send_str(fd, "{\"op\":\"echo\"}\n");
	shutdown(fd, SHUT_WR);
	expect_reply(fd, "ok");
	expect_closed(fd, 2000);
	close(fd);
	sm_server_stats(f.srv, &st);
	CU_ASSERT_EQUAL(st.accepted, 3);
	CU_ASSERT_EQUAL(st.requests, 9);
	stop(&f);
}

static void test_sequence_and_pipeline(void)
{
	struct sm_server_config cfg = { 0 };
	char line[256], want[64];
	struct fixture f;
	int fd, i;

	start(&f, &cfg);
	fd = connect_to(f.path);
	for (i = 0; i < 3; i++) {
		snprintf(line, sizeof(line), "{\"op\":\"echo\",\"n\":%d}\n", i);
		send_str(fd, line);
		expect_reply(fd, "ok");
	}
	/* one write, four lines and a blank one: four replies in order */
	send_str(fd, "{\"op\":\"echo\",\"n\":10}\n{\"op\":\"echo\",\"n\":11}\n"
		 "\r\n{\"op\":\"echo\",\"n\":12}\n[]\n");
	for (i = 10; i < 13; i++) {
		CU_ASSERT_FATAL(read_line(fd, line, sizeof(line), 2000) > 0);
		snprintf(want, sizeof(want), "\"n\":%d", i);
		CU_ASSERT_PTR_NOT_NULL(strstr(line, want));
	}
	expect_reply(fd, "not_object");
	/* a line split over writes is one request */
	send_str(fd, "{\"op\":\"ec");
	usleep(20000);
	send_str(fd, "ho\",\"n\":5}\n");
	CU_ASSERT_FATAL(read_line(fd, line, sizeof(line), 2000) > 0);
	CU_ASSERT_PTR_NOT_NULL(strstr(line, "\"n\":5"));
	close(fd);
	stop(&f);
}

/* A blank line of n bytes: too_long, then the server closes fd. */
static void expect_too_long(int fd, size_t n)
{
	char *line = malloc(n + 2);

	CU_ASSERT_FATAL(line != NULL);
	memset(line, ' ', n);
	strcpy(line + n, "\n");
	send_str(fd, line);
	free(line);
	expect_reply(fd, "too_long");
	expect_closed(fd, 2000);
	close(fd);
}

static void test_too_long(void)
{
	struct sm_server_config cfg = { .max_line = 1024 };
	struct sm_server_stats st;
	char line[1100];
	struct fixture f;
	int fd;

	start(&f, &cfg);
	/* exactly the limit is fine */
	fd = connect_to(f.path);
	memset(line, ' ', 1024);
	memcpy(line, "{\"op\":\"echo\"}", 13);
	strcpy(line + 1024, "\n");
	send_str(fd, line);
	expect_reply(fd, "ok");
	/* one more byte is not */
	expect_too_long(fd, 1025);
	sm_server_stats(f.srv, &st);
	CU_ASSERT_EQUAL(st.too_long, 1);
	stop(&f);
}

/* A client that stays silent (or half-way) delays nobody. */
static void test_silent_client(void)
{
	struct sm_server_config cfg = { 0 };
	struct fixture f;
	json_object *r;
	int a, b, ret;
	int64_t t;

	start(&f, &cfg);
	a = connect_to(f.path);
	b = connect_to(f.path);
	send_str(b, "{\"op\":\"echo\",");
	t = mono_ms();
	r = call(f.path, "{\"op\":\"echo\"}", &ret);
	t = mono_ms() - t;
	CU_ASSERT_EQUAL(ret, 0);
	json_object_put(r);
	fprintf(stderr, "[reply beside a silent client: %lld ms] ",
		(long long)t);
	CU_ASSERT(t < 100);
	close(a);
	close(b);
	stop(&f);
}

/* Collects the server's log lines; read only after the server stopped. */
static void log_line(void *ctx, const char *msg)
{
	char *buf = ctx;
	size_t n = strlen(buf);

	snprintf(buf + n, 1024 - n, "%s\n", msg);
}

static void test_deadlines(void)
{
	char log[1024] = "", want[128];
	struct sm_server_config cfg = {
		.line_ms = 150, .idle_ms = 400, .log = log_line, .ctx = log
	};
	char line[256], c[32];
	struct sm_server_stats st;
	struct fixture f;
	int64_t t0, ta, tb;
	int a, b;

	start(&f, &cfg);
	t0 = mono_ms();
	a = connect_to(f.path);
	b = connect_to(f.path);
	send_str(a, "{\"op\":\"echo\"");
	CU_ASSERT_FATAL(read_line(a, line, sizeof(line), 2000) > 0);
	ta = mono_ms() - t0;
	CU_ASSERT_STRING_EQUAL(code_of(line, c, sizeof(c)), "timeout");
	CU_ASSERT_PTR_NOT_NULL(strstr(line, "not completed within 150 ms"));
	expect_closed(a, 1000);
	CU_ASSERT_FATAL(read_line(b, line, sizeof(line), 2000) > 0);
	tb = mono_ms() - t0;
	CU_ASSERT_PTR_NOT_NULL(strstr(line, "idle for 400 ms"));
	expect_closed(b, 1000);
	fprintf(stderr, "[slow line closed at %lld ms, idle at %lld ms] ",
		(long long)ta, (long long)tb);
	CU_ASSERT(ta >= 140 && ta < 400);
	CU_ASSERT(tb >= 390 && tb < 800);
	close(a);
	close(b);
	sm_server_stats(f.srv, &st);
	CU_ASSERT_EQUAL(st.timeouts, 2);
	stop(&f);
	snprintf(want, sizeof(want), "client pid %d uid %u: closed: timeout: "
		 "request line not completed within 150 ms\n", (int)getpid(),
		 (unsigned int)getuid());
	CU_ASSERT_PTR_NOT_NULL(strstr(log, want));
	CU_ASSERT_PTR_NOT_NULL(strstr(log, "closed: timeout: idle for 400 ms\n"));
}

/*
 * Blank lines are no activity: sent every 100 ms for ten times the idle
 * deadline, they meet it all the same.
 */
static void test_blank_idle(void)
{
	struct sm_server_config cfg = { .idle_ms = 300 };
	char line[256], c[32];
	struct fixture f;
	int fd, i, n = -2;

	start(&f, &cfg);
	fd = connect_to(f.path);
	for (i = 0; i < 30 && n == -2; i++) {
		/* not send_str(): the server may have closed meanwhile */
		send(fd, " \t\r\n", 4, MSG_NOSIGNAL);
		n = read_line(fd, line, sizeof(line), 100);
	}
	CU_ASSERT_FATAL(n > 0);
	CU_ASSERT_STRING_EQUAL(code_of(line, c, sizeof(c)), "timeout");
	CU_ASSERT_PTR_NOT_NULL(strstr(line, "idle for 300 ms"));
	close(fd);
	stop(&f);
}

/*
 * Wait up to 2 s until n clients hold a slot: the server has seen the
 * others close (a newcomer before that may find their slots taken).
 */
static void wait_connected(struct sm_server *srv, unsigned int n)
{
	struct sm_server_stats st;
	int i;

	for (i = 0; i < 2000; i++) {
		sm_server_stats(srv, &st);
		if (st.connected == n)
			return;
		usleep(1000);
	}
	CU_FAIL_FATAL("clients not closed");
}

static void test_max_clients(void)
{
	struct sm_server_config cfg = { .max_clients = 2 };
	struct sm_server_stats st;
	struct fixture f;
	int a, b, c;

	start(&f, &cfg);
	a = connect_to(f.path);
	b = connect_to(f.path);
	send_str(a, "{\"op\":\"echo\"}\n");
	expect_reply(a, "ok");
	send_str(b, "{\"op\":\"echo\"}\n");
	expect_reply(b, "ok");
	c = connect_to(f.path);
	expect_reply(c, "busy");
	expect_closed(c, 2000);
	close(c);
	/* a slot freed is a slot to have */
	close(a);
	wait_connected(f.srv, 1);
	c = connect_to(f.path);
	send_str(c, "{\"op\":\"echo\"}\n");
	expect_reply(c, "ok");
	close(b);
	close(c);
	sm_server_stats(f.srv, &st);
	CU_ASSERT_EQUAL(st.busy, 1);
	CU_ASSERT_EQUAL(st.accepted, 3);
	stop(&f);
}

/* How often needle is in haystack. */
static int occurrences(const char *haystack, const char *needle)
{
	int n = 0;

	while ((haystack = strstr(haystack, needle))) {
		haystack++;
		n++;
	}
	return n;
}

/*
 * A burst of busy refusals is one log line, then one with the count of
 * the others once the interval is over.
 */
static void test_busy_log(void)
{
	char log[1024] = "";
	struct sm_server_config cfg = {
		.max_clients = 1, .busy_log_ms = 300, .log = log_line,
		.ctx = log
	};
	struct sm_server_stats st;
	struct fixture f;
	int a, b, i;

	start(&f, &cfg);
	a = connect_to(f.path);
	send_str(a, "{\"op\":\"echo\"}\n");
	expect_reply(a, "ok");
	for (i = 0; i < 5; i++) {
		b = connect_to(f.path);
		expect_reply(b, "busy");
		close(b);
	}
	usleep(500000);
	close(a);
	sm_server_stats(f.srv, &st);
	CU_ASSERT_EQUAL(st.busy, 5);
	stop(&f);
	CU_ASSERT_EQUAL(occurrences(log, ": closed: busy: "), 1);
	CU_ASSERT_EQUAL(occurrences(log, "\n"), 2);
	CU_ASSERT_PTR_NOT_NULL(strstr(log, "busy: 4 more connections refused in 300 ms\n"));
}

/* A client that never reads is dropped at max_out; others go on. */
static void test_unread_replies(void)
{
	struct sm_server_config cfg = { .max_out = 16384 };
	struct timeval tv = { .tv_sec = 2 };
	struct sm_server_stats st;
	char req[4200], buf[65536];
	struct fixture f;
	int a, i, ret = 0;
	json_object *r;
	ssize_t n;
	int64_t t;

	start(&f, &cfg);
	/* a burst whose replies exceed max_out is fine while they can go */
	snprintf(req, sizeof(req), "{\"op\":\"echo\",\"pad\":\"%3000d\"}\n", 0);
	for (i = 0; i < 10; i++)
		memcpy(buf + i * strlen(req), req, strlen(req) + 1);
	a = connect_to(f.path);
	send_str(a, buf);
	for (i = 0; i < 10; i++)
		CU_ASSERT_FATAL(read_line(a, buf, sizeof(buf), 2000) > 3000);
	close(a);

	a = connect_to(f.path);
	/* a blocked server would block these sends: fail, do not hang */
	setsockopt(a, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
	snprintf(req, sizeof(req), "{\"op\":\"echo\",\"pad\":\"%4000d\"}\n", 0);
	for (i = 0; i < 1000; i++) {
		n = send(a, req, strlen(req), MSG_NOSIGNAL);
		if (n < 0)
			break;
	}
	CU_ASSERT(i < 1000);
	CU_ASSERT(errno == EPIPE || errno == ECONNRESET);
	t = mono_ms();
	r = call(f.path, "{\"op\":\"echo\"}", &ret);
	t = mono_ms() - t;
	CU_ASSERT_EQUAL(ret, 0);
	CU_ASSERT(t < 100);
	json_object_put(r);
	/* what was sent before the drop can be read, then the end */
	while ((n = recv(a, buf, sizeof(buf), 0)) > 0)
		;
	CU_ASSERT(n == 0 || errno == ECONNRESET);
	close(a);
	sm_server_stats(f.srv, &st);
	CU_ASSERT_EQUAL(st.overflows, 1);
	fprintf(stderr, "[dropped after %d requests; next reply %lld ms] ",
		i, (long long)t);
	stop(&f);
}

static void test_socket_file(void)
{
	struct sm_server_config cfg = { .group = 4242 };
	struct sockaddr_un a = { .sun_family = AF_UNIX };
	struct sm_server *other;
	char err[256], path[200];
	struct fixture f;
	struct stat st;
	mode_t old;
	int fd;

	old = umask(0);
	start(&f, &cfg);
	umask(old);
	CU_ASSERT_FATAL(stat(f.path, &st) == 0);
	CU_ASSERT(S_ISSOCK(st.st_mode));
	CU_ASSERT_EQUAL(st.st_mode & 07777, 0660);
	CU_ASSERT_EQUAL(st.st_gid, 4242);
	/* a live server's socket is not taken over */
	cfg.group = SM_NO_GROUP;
	CU_ASSERT_EQUAL(sm_server_start(&cfg, &other, err, sizeof(err)),
			-EADDRINUSE);
	CU_ASSERT_PTR_NOT_NULL(strstr(err, "another server is listening"));
	CU_ASSERT_EQUAL(stat(f.path, &st), 0);
	sm_server_stop(f.srv);

	/* a stale socket nobody listens on is replaced, under umask 077 */
	fd = socket(AF_UNIX, SOCK_STREAM, 0);
	strcpy(a.sun_path, f.path);
	CU_ASSERT_FATAL(bind(fd, (struct sockaddr *)&a, sizeof(a)) == 0);
	close(fd);
	old = umask(077);
	CU_ASSERT_EQUAL(sm_server_start(&cfg, &f.srv, err, sizeof(err)), 0);
	umask(old);
	CU_ASSERT_FATAL(stat(f.path, &st) == 0);
	CU_ASSERT_EQUAL(st.st_mode & 07777, 0660);
	sm_server_stop(f.srv);

	/* anything else at the path stays */
	fd = open(f.path, O_CREAT | O_WRONLY, 0600);
	close(fd);
	CU_ASSERT_EQUAL(sm_server_start(&cfg, &other, err, sizeof(err)),
			-EEXIST);
	CU_ASSERT_PTR_NOT_NULL(strstr(err, "exists and is not a socket"));
	CU_ASSERT(stat(f.path, &st) == 0 && S_ISREG(st.st_mode));
	unlink(f.path);
	memset(path, 'x', sizeof(path) - 1);
	path[sizeof(path) - 1] = '\0';
	cfg.path = path;
	CU_ASSERT_EQUAL(sm_server_start(&cfg, &other, err, sizeof(err)),
			-ENAMETOOLONG);
	cfg.handler = NULL;
	CU_ASSERT_EQUAL(sm_server_start(&cfg, &other, err, sizeof(err)),
			-EINVAL);
	CU_ASSERT(rmdir(f.dir) == 0);
}

/*
 * sm_call from a child running as nobody (uid and gid 65534): 0 when it
 * is answered with may_write, 1 when the socket refuses it (EACCES), 2
 * for anything else.
 */
static int call_as_nobody(const char *path)
{
	json_object *req, *r = NULL;
	char err[256];
	int status, ret;
	pid_t pid;

	pid = fork();
	CU_ASSERT_FATAL(pid >= 0);
	if (!pid) {
		if (setgroups(0, NULL) || setgid(65534) || setuid(65534))
			_exit(3);
		req = json_tokener_parse("{\"op\":\"echo\"}");
		ret = sm_call(path, req, &r, 2000, err, sizeof(err));
		if (ret == -EACCES)
			_exit(1);
		_exit(!ret && json_object_get_boolean(
			json_object_object_get(r, "may_write")) ? 0 : 2);
	}
	CU_ASSERT_FATAL(waitpid(pid, &status, 0) == pid);
	return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

/* The mode is what keeps others out; the group lets its members in. */
static void test_permissions(void)
{
	struct sm_server_config cfg = { .group = 4242 };
	struct fixture f;
	char err[256];

	if (getuid()) {
		fprintf(stderr, "[not root: cannot act as another user] ");
		return;
	}
	start(&f, &cfg);
	CU_ASSERT_FATAL(chmod(f.dir, 0755) == 0);
	CU_ASSERT_EQUAL(call_as_nobody(f.path), 1);
	sm_server_stop(f.srv);
	cfg.group = 65534;
	CU_ASSERT_FATAL(sm_server_start(&cfg, &f.srv, err, sizeof(err)) == 0);
	CU_ASSERT_EQUAL(call_as_nobody(f.path), 0);
	stop(&f);
}

/* A group with a member whose primary group is another: *uid, gid. */
static bool find_supplementary(uid_t *uid, gid_t *gid)
{
	struct passwd *pw;
	struct group *g;
	bool found = false;

	setgrent();
	while (!found && (g = getgrent())) {
		if (!g->gr_mem[0])
			continue;
		pw = getpwnam(g->gr_mem[0]);
		if (pw && pw->pw_gid != g->gr_gid && pw->pw_uid) {
			*uid = pw->pw_uid;
			*gid = g->gr_gid;
			found = true;
		}
	}
	endgrent();
	return found;
}

static void test_may_write(void)
{
	struct sm_peer root = { .pid = 1, .uid = 0, .gid = 0 };
	struct sm_peer nobody = { .pid = 2, .uid = 65534, .gid = 65534 };
	struct sm_peer stranger = { .pid = 3, .uid = 4242424, .gid = 4242 };
	struct passwd *pw = getpwuid(65534);
	struct sm_peer p = { .pid = 4 };

	CU_ASSERT(sm_peer_may_write(&root, 4242));
	CU_ASSERT(sm_peer_may_write(&root, SM_NO_GROUP));
	CU_ASSERT(!sm_peer_may_write(&nobody, SM_NO_GROUP));
	/* nobody is not in group 4242, nor in root's group */
	CU_ASSERT(!sm_peer_may_write(&nobody, 4242));
	CU_ASSERT(!sm_peer_may_write(&nobody, 0));
	/* the process's own gid counts */
	CU_ASSERT(sm_peer_may_write(&nobody, 65534));
	CU_ASSERT(sm_peer_may_write(&stranger, 4242));
	CU_ASSERT(!sm_peer_may_write(&stranger, 4243));
	/* the passwd entry's primary group, whatever the process's gid */
	CU_ASSERT_FATAL(pw != NULL);
	p.uid = pw->pw_uid;
	p.gid = 4242;
	CU_ASSERT(sm_peer_may_write(&p, pw->pw_gid));
	/* a supplementary group from /etc/group */
	if (find_supplementary(&p.uid, &p.gid)) {
		gid_t g = p.gid;

		p.gid = 4242;
		CU_ASSERT(sm_peer_may_write(&p, g));
		CU_ASSERT(!sm_peer_may_write(&p, 4243));
	} else {
		fprintf(stderr, "[no supplementary group here to check] ");
	}
}

static void test_call_errors(void)
{
	struct sockaddr_un a = { .sun_family = AF_UNIX };
	json_object *req = json_tokener_parse("{\"op\":\"echo\"}"), *r = NULL;
	char dir[] = "/tmp/gpuaware-call-XXXXXX", path[96], err[256];
	int64_t t;
	int fd;

	CU_ASSERT_FATAL(mkdtemp(dir) != NULL);
	snprintf(path, sizeof(path), "%s/sock", dir);
	CU_ASSERT_EQUAL(sm_call(path, req, &r, 500, err, sizeof(err)), -ENOENT);
	CU_ASSERT_PTR_NOT_NULL(strstr(err, "connect"));
	/* bound, not listening: refused */
	fd = socket(AF_UNIX, SOCK_STREAM, 0);
	strcpy(a.sun_path, path);
	CU_ASSERT_FATAL(bind(fd, (struct sockaddr *)&a, sizeof(a)) == 0);
	CU_ASSERT_EQUAL(sm_call(path, req, &r, 500, err, sizeof(err)),
			-ECONNREFUSED);
	/* listening, never answering: the deadline holds */
	CU_ASSERT_FATAL(listen(fd, 4) == 0);
	t = mono_ms();
	CU_ASSERT_EQUAL(sm_call(path, req, &r, 200, err, sizeof(err)),
			-ETIMEDOUT);
	t = mono_ms() - t;
	fprintf(stderr, "[sm_call timeout 200 ms took %lld ms] ", (long long)t);
	CU_ASSERT(t >= 195 && t < 500);
	CU_ASSERT_PTR_NOT_NULL(strstr(err, "no reply within 200 ms"));
	CU_ASSERT_PTR_NULL(r);
	close(fd);
	unlink(path);
	CU_ASSERT(rmdir(dir) == 0);
	json_object_put(req);
}

/* Lines from fd, each checked to carry "n":want[i]. */
static void expect_ns(int fd, const int *want, int k)
{
	char line[256], n[32];
	int i;

	for (i = 0; i < k; i++) {
		CU_ASSERT_FATAL(read_line(fd, line, sizeof(line), 2000) > 0);
		snprintf(n, sizeof(n), "\"n\":%d", want[i]);
		CU_ASSERT_PTR_NOT_NULL(strstr(line, n));
	}
}

/*
 * Pipelined on fd: two echoes wait unread behind a deferred request
 * while other is served; the answer, from this thread, not the
 * server's, lets all three replies go, in order.
 */
static void deferred_pipeline(struct fixture *f, int fd, int other)
{
	static const int want[] = { 1, 2, 3 };
	char line[256];

	send_str(fd, "{\"op\":\"later\",\"n\":1}\n{\"op\":\"echo\",\"n\":2}\n"
		 "{\"op\":\"echo\",\"n\":3}\n");
	later_ticket(0);
	send_str(other, "{\"op\":\"echo\"}\n");
	expect_reply(other, "ok");
	CU_ASSERT_EQUAL(read_line(fd, line, sizeof(line), 100), -2);
	CU_ASSERT_EQUAL(later_calls(), 2);
	sm_server_answer(f->srv, later_ticket(0), reply_n(1));
	expect_ns(fd, want, 3);
	CU_ASSERT_EQUAL(later_calls(), 4);
}

static void test_deferred_order(void)
{
	static const int second[] = { 4, 5 };
	struct sm_server_config cfg = { 0 };
	struct sm_server_stats st;
	struct fixture f;
	int fd, other;

	start(&f, &cfg);
	fd = connect_to(f.path);
	other = connect_to(f.path);
	deferred_pipeline(&f, fd, other);
	/* an answer posted before the handler returned */
	send_str(fd, "{\"op\":\"early\",\"n\":4}\n{\"op\":\"echo\",\"n\":5}\n");
	expect_ns(fd, second, 2);
	/* a NULL answer is an internal error; the client goes on */
	send_str(fd, "{\"op\":\"later\"}\n");
	sm_server_answer(f.srv, later_ticket(1), NULL);
	expect_reply(fd, "internal");
	send_str(fd, "{\"op\":\"echo\"}\n");
	expect_reply(fd, "ok");
	sm_server_stats(f.srv, &st);
	CU_ASSERT_EQUAL(st.requests, 8);
	CU_ASSERT_EQUAL(st.abandoned, 0);
	close(fd);
	close(other);
	stop(&f);
}

/* Connect until a slot is free again (busy before). */
static int connect_when_free(const char *path)
{
	char line[256], c[32];
	int fd, i;

	for (i = 0; i < 200; i++) {
		fd = connect_any(path);
		send_str(fd, "{\"op\":\"echo\",\"n\":0}\n");
		CU_ASSERT_FATAL(read_line(fd, line, sizeof(line), 2000) > 0);
		if (!strcmp(code_of(line, c, sizeof(c)), "ok"))
			return fd;
		close(fd);
		usleep(10000);
	}
	CU_FAIL_FATAL("the slot stayed busy");
	return -1;
}

static void test_deferred_gone(void)
{
	struct sm_server_config cfg = { .max_clients = 1 };
	struct sm_server_stats st;
	struct fixture f;
	char line[256];
	int fd;

	start(&f, &cfg);
	fd = connect_to(f.path);
	send_str(fd, "{\"op\":\"later\",\"n\":1}\n");
	later_ticket(0);
	close(fd);
	/* the slot frees: the waiting client was closed, not kept */
	fd = connect_when_free(f.path);
	sm_server_answer(f.srv, later_ticket(0), reply_n(1));
	/* unknown tickets go nowhere too */
	sm_server_answer(f.srv, 0, reply_n(2));
	sm_server_answer(f.srv, 999999, reply_n(3));
	/* a ticket answered but not deferred is dropped */
	send_str(fd, "{\"op\":\"stray\",\"n\":7}\n");
	CU_ASSERT_FATAL(read_line(fd, line, sizeof(line), 2000) > 0);
	CU_ASSERT_PTR_NOT_NULL(strstr(line, "\"n\":7"));
	/* and nothing else reaches the new client */
	CU_ASSERT_EQUAL(read_line(fd, line, sizeof(line), 100), -2);
	sm_server_stats(f.srv, &st);
	CU_ASSERT_EQUAL(st.abandoned, 4);
	close(fd);
	stop(&f);
}

static void test_deferred_half_closed(void)
{
	static const int want[] = { 1, 2 };
	struct sm_server_config cfg = { .idle_ms = 100, .line_ms = 100 };
	struct fixture f;
	int fd;

	start(&f, &cfg);
	fd = connect_to(f.path);
	/* EOF behind a deferred request: both replies still come */
	send_str(fd, "{\"op\":\"later\",\"n\":1}\n{\"op\":\"echo\",\"n\":2}\n");
	shutdown(fd, SHUT_WR);
	later_ticket(0);
	/* well past both deadlines: a waiting client is not timed out */
	usleep(300000);
	sm_server_answer(f.srv, later_ticket(0), reply_n(1));
	expect_ns(fd, want, 2);
	expect_closed(fd, 2000);
	close(fd);
	stop(&f);
}

static void test_deferred_stop(void)
{
	struct sm_server_config cfg = { 0 };
	struct fixture f;
	char line[256];
	int fd, ans, n;

	start(&f, &cfg);
	fd = connect_to(f.path);
	ans = connect_to(f.path);
	send_str(fd, "{\"op\":\"later\"}\n");
	later_ticket(0);
	send_str(ans, "{\"op\":\"later\",\"n\":1}\n");
	/* one answer posted, perhaps not yet sent; one never */
	sm_server_answer(f.srv, later_ticket(1), reply_n(1));
	stop(&f);
	/* the client still waiting is closed without a reply */
	expect_closed(fd, 2000);
	/* the other got its reply or was closed before it went */
	n = read_line(ans, line, sizeof(line), 2000);
	CU_ASSERT(n == -1 || (n > 0 && strstr(line, "\"n\":1")));
	if (n > 0)
		expect_closed(ans, 2000);
	close(fd);
	close(ans);
}

/* Start f with a TCP socket on ep too; its "tcp:ADDR:PORT" in tcp. */
static void start_tcp(struct fixture *f, struct sm_server_config *cfg,
		      const char *ep, char *tcp, size_t len)
{
	char name[SM_ADDR_LEN];

	cfg->tcp = ep;
	start(f, cfg);
	sm_server_tcp_name(f->srv, name, sizeof(name));
	CU_ASSERT_FATAL(strncmp(name, "127.0.0.1:", 10) == 0 ||
			strncmp(name, "[::1]:", 6) == 0);
	/* port 0 asked the kernel for one */
	CU_ASSERT_FATAL(strcmp(strrchr(name, ':'), ":0") != 0);
	snprintf(tcp, len, SM_TCP_PREFIX "%s", name);
}

/* Over TCP: the same protocol, no credentials, the address instead. */
static void test_tcp_peer(void)
{
	struct sm_server_config cfg = { 0 };
	char tcp[SM_ADDR_LEN + 8];
	const char *addr;
	struct fixture f;
	json_object *r;
	int ret, fd;

	start_tcp(&f, &cfg, "0", tcp, sizeof(tcp));
	r = call(tcp, "{\"op\":\"echo\",\"n\":3}", &ret);
	CU_ASSERT_EQUAL_FATAL(ret, 0);
	CU_ASSERT_EQUAL(json_object_get_int(json_object_object_get(r, "n")), 3);
	CU_ASSERT(json_object_get_boolean(json_object_object_get(r, "remote")));
	CU_ASSERT(!json_object_get_boolean(json_object_object_get(r,
								  "may_write")));
	CU_ASSERT_EQUAL(json_object_get_int64(json_object_object_get(r, "uid")),
			(int64_t)SM_NO_UID);
	CU_ASSERT_EQUAL(json_object_get_int64(json_object_object_get(r, "pid")),
			0);
	addr = json_object_get_string(json_object_object_get(r, "addr"));
	CU_ASSERT(addr && !strncmp(addr, "127.0.0.1:", 10) &&
		  strcmp(addr + 10, "0") && strcmp(addr, tcp + 4));
	json_object_put(r);
	/* the Unix socket serves beside it, with credentials */
	r = call(f.path, "{\"op\":\"echo\"}", &ret);
	CU_ASSERT_EQUAL_FATAL(ret, 0);
	CU_ASSERT(!json_object_get_boolean(json_object_object_get(r, "remote")));
	CU_ASSERT_STRING_EQUAL(json_object_get_string(
		json_object_object_get(r, "addr")), "");
	json_object_put(r);
	/* framing and errors as on the Unix socket */
	fd = connect_tcp(tcp);
	send_str(fd, "{\"op\":\"echo\"}\n\n[]\n{\"op\":\n{\"op\":\"fail\"}\n");
	expect_reply(fd, "ok");
	expect_reply(fd, "not_object");
	expect_reply(fd, "bad_json");
	expect_reply(fd, "internal");
	send_str(fd, "{\"op\":\"echo\"}\n");
	shutdown(fd, SHUT_WR);
	expect_reply(fd, "ok");
	expect_closed(fd, 2000);
	close(fd);
	stop(&f);
}

/* Deferred replies, limits and deadlines hold for TCP clients too. */
static void test_tcp_deferred(void)
{
	struct sm_server_config cfg = { .max_clients = 2 };
	char tcp[SM_ADDR_LEN + 8];
	struct sm_server_stats st;
	struct fixture f;
	int fd, other;

	start_tcp(&f, &cfg, "127.0.0.1:0", tcp, sizeof(tcp));
	fd = connect_tcp(tcp);
	other = connect_tcp(tcp);
	deferred_pipeline(&f, fd, other);
	/*
	 * Gone while waiting: a TCP FIN may be a half-close, so the slot
	 * is held until the answer goes, then freed.
	 */
	send_str(other, "{\"op\":\"later\"}\n");
	later_ticket(1);
	close(other);
	sm_server_answer(f.srv, later_ticket(1), reply_n(9));
	wait_connected(f.srv, 1);
	other = connect_when_free(tcp);
	send_str(fd, "{\"op\":\"echo\"}\n");
	expect_reply(fd, "ok");
	sm_server_stats(f.srv, &st);
	CU_ASSERT_EQUAL(st.requests, 7);
	close(other);
	close(fd);
	stop(&f);
}

static void test_tcp_limits(void)
{
	char log[1024] = "";
	struct sm_server_config cfg = {
		.max_clients = 1, .max_line = 64, .idle_ms = 300,
		.log = log_line, .ctx = log
	};
	char tcp[SM_ADDR_LEN + 8], line[256];
	struct sm_server_stats st;
	struct fixture f;
	int u, t;

	start_tcp(&f, &cfg, "0", tcp, sizeof(tcp));
	/* max_clients TCP peers; the Unix socket's writers are apart */
	u = connect_tcp(tcp);
	send_str(u, "{\"op\":\"echo\"}\n");
	expect_reply(u, "ok");
	/* a newcomer evicts an anonymous peer rather than be refused */
	t = connect_tcp(tcp);
	expect_reply(u, "busy");
	expect_closed(u, 2000);
	close(u);
	close(t);
	wait_connected(f.srv, 0);
	/* the slot freed: too long, then closed */
	expect_too_long(connect_when_free(tcp), 100);
	/* a silent TCP client meets the idle deadline */
	t = connect_tcp(tcp);
	CU_ASSERT_FATAL(read_line(t, line, sizeof(line), 2000) > 0);
	CU_ASSERT_PTR_NOT_NULL(strstr(line, "idle for 300 ms"));
	close(t);
	sm_server_stats(f.srv, &st);
	CU_ASSERT_EQUAL(st.evicted, 1);
	CU_ASSERT_EQUAL(st.too_long, 1);
	CU_ASSERT_EQUAL(st.timeouts, 1);
	stop(&f);
	/* the log names TCP clients by address */
	CU_ASSERT_PTR_NOT_NULL(strstr(log, "client 127.0.0.1:"));
	CU_ASSERT_PTR_NOT_NULL(strstr(log, ": closed: timeout: idle for 300 ms\n"));
}

/*
 * A child running as nobody connects k times to path and sends an echo
 * on each; what each got ('o' ok, 'b' busy, 'x' anything else) comes
 * back on *res, and the connections stay open until *hold is closed.
 */
static pid_t nobody_holds(const char *path, int k, int *res, int *hold)
{
	int up[2], down[2], fd, i;
	char line[256], c[32];
	pid_t pid;

	CU_ASSERT_FATAL(pipe(up) == 0 && pipe(down) == 0);
	pid = fork();
	CU_ASSERT_FATAL(pid >= 0);
	if (!pid) {
		close(up[0]);
		close(down[1]);
		if (setgroups(0, NULL) || setgid(65534) || setuid(65534))
			_exit(3);
		for (i = 0; i < k; i++) {
			fd = connect_to(path);
			send_str(fd, "{\"op\":\"echo\"}\n");
			c[0] = 'x';
			if (read_line(fd, line, sizeof(line), 2000) > 0)
				code_of(line, c, sizeof(c));
			c[0] = !strcmp(c, "ok") ? 'o' : !strcmp(c, "busy") ?
			       'b' : 'x';
			if (write(up[1], c, 1) != 1)
				_exit(4);
		}
		/* hold them until the parent is done */
		while (read(down[0], c, 1) > 0)
			;
		_exit(0);
	}
	close(up[1]);
	close(down[0]);
	*res = up[0];
	*hold = down[1];
	return pid;
}

/*
 * Each peer class has max_clients slots of its own: local peers that may
 * not write and TCP peers cannot starve root or the group, nor each other.
 */
static void test_slots_per_class(void)
{
	struct sm_server_config cfg = { .max_clients = 2, .group = 4242 };
	char tcp[SM_ADDR_LEN + 8], got[4] = "";
	int res, hold, t[3], u, i;
	struct fixture f;
	pid_t pid;

	if (getuid()) {
		fprintf(stderr, "[not root: cannot act as another user] ");
		return;
	}
	start_tcp(&f, &cfg, "0", tcp, sizeof(tcp));
	/* as ibpoold's socket_mode 0666: anyone connects, the group writes */
	CU_ASSERT_FATAL(chmod(f.dir, 0755) == 0 && chmod(f.path, 0666) == 0);
	pid = nobody_holds(f.path, 3, &res, &hold);
	for (i = 0; i < 3 && read(res, got + i, 1) == 1; i++)
		;
	CU_ASSERT_STRING_EQUAL(got, "oob");
	/* the third TCP peer takes the slot of the first (anonymous) one */
	for (i = 0; i < 3; i++) {
		t[i] = connect_tcp(tcp);
		send_str(t[i], "{\"op\":\"echo\"}\n");
		expect_reply(t[i], "ok");
	}
	expect_reply(t[0], "busy");
	expect_closed(t[0], 2000);
	u = connect_to(f.path);
	send_str(u, "{\"op\":\"echo\"}\n");
	expect_reply(u, "ok");
	close(hold);
	CU_ASSERT(waitpid(pid, NULL, 0) == pid);
	close(res);
	for (i = 0; i < 3; i++)
		close(t[i]);
	close(u);
	stop(&f);
}

static void test_tcp_ipv6(void)
{
	struct sm_server_config cfg = { .tcp = "[::1]:0" };
	char tcp[SM_ADDR_LEN + 8], err[256];
	struct fixture f;
	json_object *r;
	int ret;

	strcpy(f.dir, "/tmp/gpuaware-srv-XXXXXX");
	CU_ASSERT_FATAL(mkdtemp(f.dir) != NULL);
	snprintf(f.path, sizeof(f.path), "%s/sock", f.dir);
	cfg.path = f.path;
	cfg.handler = handler;
	cfg.ctx = &f;
	cfg.group = SM_NO_GROUP;
	ret = sm_server_start(&cfg, &f.srv, err, sizeof(err));
	if (ret == -EAFNOSUPPORT || ret == -EADDRNOTAVAIL) {
		fprintf(stderr, "[no IPv6 loopback here: %s] ", err);
		CU_ASSERT(rmdir(f.dir) == 0);
		return;
	}
	CU_ASSERT_EQUAL_FATAL(ret, 0);
	sm_server_tcp_name(f.srv, tcp + 4, sizeof(tcp) - 4);
	memcpy(tcp, SM_TCP_PREFIX, 4);
	CU_ASSERT(!strncmp(tcp, "tcp:[::1]:", 10));
	r = call(tcp, "{\"op\":\"echo\"}", &ret);
	CU_ASSERT_EQUAL(ret, 0);
	CU_ASSERT(!strncmp(json_object_get_string(json_object_object_get(
		r, "addr")), "[::1]:", 6));
	json_object_put(r);
	stop(&f);
}

/* A TCP socket that cannot be had leaves no Unix socket behind. */
static void test_tcp_start_errors(void)
{
	struct sm_server_config cfg = { .tcp = "nowhere:80" };
	struct sockaddr_in a = { .sin_family = AF_INET };
	char err[256], name[SM_ADDR_LEN] = "x", busy[32];
	socklen_t al = sizeof(a);
	struct sm_server *other;
	struct fixture f;
	struct stat st;
	int fd;

	start(&f, &(struct sm_server_config){ 0 });
	sm_server_tcp_name(f.srv, name, sizeof(name));
	CU_ASSERT_STRING_EQUAL(name, "");
	stop(&f);
	CU_ASSERT_FATAL(mkdir(f.dir, 0700) == 0);
	cfg.path = f.path;
	cfg.handler = handler;
	cfg.group = SM_NO_GROUP;
	CU_ASSERT_EQUAL(sm_server_start(&cfg, &other, err, sizeof(err)),
			-EINVAL);
	CU_ASSERT_PTR_NOT_NULL(strstr(err, "tcp nowhere:80: not [ADDR:]PORT"));
	/* a port another socket listens on */
	fd = socket(AF_INET, SOCK_STREAM, 0);
	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	CU_ASSERT_FATAL(bind(fd, (struct sockaddr *)&a, sizeof(a)) == 0);
	CU_ASSERT_FATAL(listen(fd, 1) == 0);
	CU_ASSERT_FATAL(getsockname(fd, (struct sockaddr *)&a, &al) == 0);
	snprintf(busy, sizeof(busy), "%u", ntohs(a.sin_port));
	cfg.tcp = busy;
	CU_ASSERT_EQUAL(sm_server_start(&cfg, &other, err, sizeof(err)),
			-EADDRINUSE);
	CU_ASSERT_PTR_NOT_NULL(strstr(err, "bind"));
	CU_ASSERT(stat(f.path, &st) && errno == ENOENT);
	close(fd);
	CU_ASSERT(rmdir(f.dir) == 0);
}

static void test_tcp_call_errors(void)
{
	json_object *req = json_tokener_parse("{\"op\":\"echo\"}"), *r = NULL;
	struct sockaddr_in a = { .sin_family = AF_INET };
	char err[256], ep[64];
	socklen_t al = sizeof(a);
	int fd;

	CU_ASSERT_EQUAL(sm_call("tcp:localhost", req, &r, 500, err,
				sizeof(err)), -EINVAL);
	CU_ASSERT_PTR_NOT_NULL(strstr(err, "not [ADDR:]PORT or HOST:PORT"));
	CU_ASSERT_EQUAL(sm_call("tcp:nowhere.invalid:80", req, &r, 500, err,
				sizeof(err)), -EHOSTUNREACH);
	CU_ASSERT_PTR_NOT_NULL(strstr(err, "nowhere.invalid"));
	/* bound, not listening: refused */
	fd = socket(AF_INET, SOCK_STREAM, 0);
	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	CU_ASSERT_FATAL(bind(fd, (struct sockaddr *)&a, sizeof(a)) == 0);
	CU_ASSERT_FATAL(getsockname(fd, (struct sockaddr *)&a, &al) == 0);
	snprintf(ep, sizeof(ep), "tcp:%u", ntohs(a.sin_port));
	CU_ASSERT_EQUAL(sm_call(ep, req, &r, 500, err, sizeof(err)),
			-ECONNREFUSED);
	CU_ASSERT_PTR_NOT_NULL(strstr(err, "connect"));
	/* listening, never answering: the deadline holds */
	CU_ASSERT_FATAL(listen(fd, 4) == 0);
	CU_ASSERT_EQUAL(sm_call(ep, req, &r, 200, err, sizeof(err)),
			-ETIMEDOUT);
	CU_ASSERT_PTR_NOT_NULL(strstr(err, "no reply within 200 ms"));
	CU_ASSERT_PTR_NULL(r);
	close(fd);
	json_object_put(req);
}

/*
 * The HTTP side: /metrics has a body, /later waits for the test to
 * answer it, every other path has none.
 */
static int http_page(void *ctx, uint64_t ticket, const char *path,
		     char **body, size_t *len)
{
	(void)ctx;
	if (!strcmp(path, "/later")) {
		pthread_mutex_lock(&later.lock);
		if (later.ndeferred < 8)
			later.ticket[later.ndeferred++] = ticket;
		pthread_mutex_unlock(&later.lock);
		return SM_DEFERRED;
	}
	if (strcmp(path, "/metrics"))
		return -ENOENT;
	*body = strdup("# TYPE x gauge\nx 1\n");
	*len = *body ? strlen(*body) : 0;
	return *body ? 0 : -ENOMEM;
}

/* Everything fd sends until it closes, into buf (NUL-terminated). */
static size_t read_all(int fd, char *buf, size_t len)
{
	size_t n = 0;
	ssize_t r;

	while (n + 1 < len && (r = recv(fd, buf + n, len - 1 - n, 0)) > 0)
		n += r;
	buf[n] = '\0';
	return n;
}

static void http_get(const char *tcp, const char *req, char *buf, size_t len)
{
	struct timeval tv = { .tv_sec = 2 };
	int fd = connect_tcp(tcp);

	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	send_str(fd, req);
	read_all(fd, buf, len);
	close(fd);
}

/*
 * One TCP listener, two protocols told apart by the first byte: GET
 * /metrics answered and closed, anything else 404, a header that never
 * ends closed at the line deadline, JSON lines as ever.
 */
static void test_tcp_http(void)
{
	struct sm_server_config cfg = { .http = http_page, .line_ms = 200 };
	char tcp[SM_ADDR_LEN + 8], buf[4096];
	struct sm_server_stats st;
	struct fixture f;
	json_object *r;
	int ret, fd;

	start_tcp(&f, &cfg, "0", tcp, sizeof(tcp));
	http_get(tcp, "GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n", buf,
		 sizeof(buf));
	CU_ASSERT(!strncmp(buf, "HTTP/1.1 200 OK\r\n", 17));
	CU_ASSERT_PTR_NOT_NULL(strstr(buf,
		"\r\nContent-Type: text/plain; version=0.0.4; charset=utf-8\r\n"));
	CU_ASSERT_PTR_NOT_NULL(strstr(buf, "\r\nContent-Length: 19\r\n"));
	CU_ASSERT_PTR_NOT_NULL(strstr(buf, "\r\n\r\n# TYPE x gauge\nx 1\n"));
	http_get(tcp, "GET /other HTTP/1.0\n\n", buf, sizeof(buf));
	CU_ASSERT(!strncmp(buf, "HTTP/1.1 404 Not Found\r\n", 24));
	CU_ASSERT_PTR_NOT_NULL(strstr(buf, "\r\nContent-Length: 0\r\n"));
	http_get(tcp, "POST /metrics HTTP/1.1\r\n\r\n", buf, sizeof(buf));
	CU_ASSERT(!strncmp(buf, "HTTP/1.1 404 ", 13));
	/* a header never finished: closed at the line deadline, no JSON */
	fd = connect_tcp(tcp);
	send_str(fd, "GET /metrics HTTP/1.1\r\n");
	expect_closed(fd, 2000);
	close(fd);
	/* JSON lines on the same listener */
	r = call(tcp, "{\"op\":\"echo\",\"n\":5}", &ret);
	CU_ASSERT_EQUAL_FATAL(ret, 0);
	CU_ASSERT_EQUAL(json_object_get_int(json_object_object_get(r, "n")), 5);
	json_object_put(r);
	sm_server_stats(f.srv, &st);
	CU_ASSERT_EQUAL(st.timeouts, 1);
	stop(&f);
}

/* An HTTP header of n bytes of one field, ended by a blank line. */
static char *big_header(size_t n)
{
	char *h = malloc(n + 64);
	size_t k;

	CU_ASSERT_FATAL(h != NULL);
	k = (size_t)sprintf(h, "GET /metrics HTTP/1.1\r\nX-Pad: ");
	memset(h + k, 'a', n - k);
	strcpy(h + n, "\r\n\r\n");
	return h;
}

/*
 * The header gets max_line bytes, whatever the buffer holds for a
 * credential: one longer is answered 431, and the response arrives
 * even while the client still sends (no reset).
 */
static void test_tcp_http_431(void)
{
	struct sm_server_config cfg = { .http = http_page };
	char tcp[SM_ADDR_LEN + 8], buf[4096];
	struct timeval tv = { .tv_sec = 3 };
	struct fixture f;
	size_t n, sent;
	ssize_t w;
	char *h;
	int fd;

	start_tcp(&f, &cfg, "0", tcp, sizeof(tcp));
	/* just within: served */
	h = big_header(SM_MAX_LINE_DEFAULT - 8);
	http_get(tcp, h, buf, sizeof(buf));
	CU_ASSERT(!strncmp(buf, "HTTP/1.1 200 OK\r\n", 17));
	free(h);
	/* 80 KiB, ended: what the buffer would take, still 431 */
	h = big_header(80 * 1024);
	http_get(tcp, h, buf, sizeof(buf));
	CU_ASSERT(!strncmp(buf, "HTTP/1.1 431 ", 13));
	free(h);
	/* 16 MiB that never end, more than the sockets buffer: all sent */
	n = 16 * 1024 * 1024;
	h = big_header(n);
	fd = connect_tcp(tcp);
	setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	for (sent = 0; sent < n; sent += w) {
		w = send(fd, h + sent, n - sent, MSG_NOSIGNAL);
		if (w <= 0)
			break;
	}
	CU_ASSERT_EQUAL(sent, n);
	shutdown(fd, SHUT_WR);
	read_all(fd, buf, sizeof(buf));
	CU_ASSERT(!strncmp(buf, "HTTP/1.1 431 ", 13));
	close(fd);
	free(h);
	stop(&f);
}

/* Open a TCP connection and have one echo answered on it. */
static int echoed(const char *tcp, const char *line)
{
	int fd = connect_tcp(tcp);

	send_str(fd, line);
	expect_reply(fd, "ok");
	return fd;
}

/* An HTTP response deferred: sent when answered, to its client only. */
static void test_tcp_http_deferred(void)
{
	struct sm_server_config cfg = { .http = http_page };
	char tcp[SM_ADDR_LEN + 8], buf[4096];
	struct timeval tv = { .tv_sec = 2 };
	struct sm_server_stats st;
	struct fixture f;
	uint64_t t;
	int fd, g;

	start_tcp(&f, &cfg, "0", tcp, sizeof(tcp));
	fd = connect_tcp(tcp);
	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	send_str(fd, "GET /later HTTP/1.1\r\n\r\n");
	t = later_ticket(0);
	g = connect_tcp(tcp);
	send_str(g, "GET /later HTTP/1.1\r\n\r\n");
	/* JSON lines go on meanwhile */
	close(echoed(tcp, "{\"op\":\"echo\"}\n"));
	sm_server_answer_http(f.srv, t, 0, strdup("y 2\n"), 4);
	read_all(fd, buf, sizeof(buf));
	CU_ASSERT(!strncmp(buf, "HTTP/1.1 200 OK\r\n", 17));
	CU_ASSERT_PTR_NOT_NULL(strstr(buf, "\r\nContent-Length: 4\r\n"));
	CU_ASSERT_PTR_NOT_NULL(strstr(buf, "\r\n\r\ny 2\n"));
	close(fd);
	/* one that left: the response is sent into its FIN, then closed */
	close(g);
	sm_server_answer_http(f.srv, later_ticket(1), 0, strdup("z"), 1);
	/* a ticket nobody waits for */
	sm_server_answer_http(f.srv, t, 0, strdup("z"), 1);
	close(echoed(tcp, "{\"op\":\"echo\"}\n"));
	sm_server_stats(f.srv, &st);
	CU_ASSERT_EQUAL(st.abandoned, 1);
	stop(&f);
}

/*
 * A munged of the test's own in dir (mode 0755, as munged wants), with
 * the key dir/key: its socket into sock, its pid returned (0 when it
 * did not start).
 */
static pid_t munged_again(const char *dir, char *sock, size_t len)
{
	char cmd[1024], pidf[128];
	FILE *f;
	int pid = 0, i;

	snprintf(sock, len, "%s/munge.sock", dir);
	snprintf(pidf, sizeof(pidf), "%s/munge.pid", dir);
	snprintf(cmd, sizeof(cmd),
		 "munged -f -S %s --key-file=%s/key --log-file=%s/log --pid-file=%s --seed-file=%s/seed",
		 sock, dir, dir, pidf, dir);
	if (chmod(dir, 0755) || system(cmd))
		return 0;
	for (i = 0; i < 200 && access(sock, F_OK); i++)
		usleep(10000);
	f = fopen(pidf, "r");
	if (f && fscanf(f, "%d", &pid) != 1)
		pid = 0;
	if (f)
		fclose(f);
	return pid;
}

/* munged_again() with a new key. */
static pid_t munged_up(const char *dir, char *sock, size_t len)
{
	char cmd[256];

	snprintf(cmd, sizeof(cmd), "mungekey -c -f -k %s/key -b 1024", dir);
	if (system(cmd))
		return 0;
	return munged_again(dir, sock, len);
}

/*
 * Stop the munged munged_up() started and wait until it is gone: it
 * writes its seed file on the way out, into the directory we remove.
 */
static void munged_down(pid_t pid)
{
	int i;

	kill(pid, SIGTERM);
	for (i = 0; i < 500 && !kill(pid, 0); i++)
		usleep(10000);
}

/* munged_up() in dir, a mkdtemp() template; its pid. */
static pid_t munged_tmp(char *dir, char *sock, size_t len)
{
	pid_t md;

	CU_ASSERT_FATAL(mkdtemp(dir) != NULL);
	md = munged_up(dir, sock, len);
	CU_ASSERT_FATAL(md > 0);
	return md;
}

/* Stop munged md and remove its directory. */
static void munged_gone(pid_t md, const char *dir)
{
	char cmd[128];

	munged_down(md);
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	CU_ASSERT(system(cmd) == 0);
}

/* The envelope of request line text from munged at sock, as uid. */
static char *envelope_as(const char *sock, const char *text, uid_t uid)
{
	char err[256], *line = NULL, buf[4096];
	int fd[2];
	size_t n;
	ssize_t r;
	pid_t pid;

	if (!uid) {
		CU_ASSERT_FATAL(!sm_munge_wrap(sock, text, strlen(text), &line,
					       &n, err, sizeof(err)));
		return line;
	}
	CU_ASSERT_FATAL(pipe(fd) == 0);
	pid = fork();
	CU_ASSERT_FATAL(pid >= 0);
	if (!pid) {
		close(fd[0]);
		if (setgroups(0, NULL) || setgid(uid) || setuid(uid) ||
		    sm_munge_wrap(sock, text, strlen(text), &line, &n, err,
				  sizeof(err)) ||
		    write(fd[1], line, n) != (ssize_t)n)
			_exit(1);
		_exit(0);
	}
	close(fd[1]);
	n = 0;
	while ((r = read(fd[0], buf + n, sizeof(buf) - 1 - n)) > 0)
		n += r;
	close(fd[0]);
	waitpid(pid, NULL, 0);
	buf[n] = '\0';
	CU_ASSERT_FATAL(n > 0);
	return strdup(buf);
}

static int64_t field(const char *line, const char *key)
{
	json_object *o = json_tokener_parse(line), *v;
	int64_t x = -1;

	if (o && json_object_object_get_ex(o, key, &v))
		x = json_object_get_int64(v);
	json_object_put(o);
	return x;
}

/*
 * Requests over TCP in a MUNGE credential (a munged of the test's own):
 * the handler sees the credential's uid, may_write from it and munge
 * set, for that request only; envelopes pipeline in order with plain
 * lines; a deferred reply after one comes; a credential decoded before
 * or of no munged's is bad_credential; sm_call_as() wraps for TCP.
 */
static void test_tcp_munge(void)
{
	struct sm_server_config cfg = { 0 };
	char tcp[SM_ADDR_LEN + 8], sock[128], line[2048], all[16384];
	char dir[] = "/tmp/gpuaware-munge-XXXXXX", *e1, *e2, *en;
	struct sm_server_stats st;
	struct fixture f;
	json_object *r, *req;
	pid_t md;
	int fd;

	md = munged_tmp(dir, sock, sizeof(sock));
	cfg.munge_socket = sock;
	cfg.tcp = "0";
	start(&f, &cfg);
	sm_server_tcp_name(f.srv, tcp + strlen(SM_TCP_PREFIX),
			   sizeof(tcp) - strlen(SM_TCP_PREFIX));
	memcpy(tcp, SM_TCP_PREFIX, strlen(SM_TCP_PREFIX));

	/* sm_call_as() puts it in a credential: root's, may write */
	req = json_tokener_parse("{\"op\":\"echo\",\"n\":1}");
	CU_ASSERT_EQUAL_FATAL(sm_call_as(tcp, sock, req, &r, 2000, line,
					 sizeof(line)), 0);
	json_object_put(req);
	CU_ASSERT(json_object_get_boolean(json_object_object_get(r, "munge")));
	CU_ASSERT(json_object_get_boolean(json_object_object_get(r,
								  "may_write")));
	CU_ASSERT_EQUAL(json_object_get_int64(json_object_object_get(r, "uid")),
			0);
	json_object_put(r);

	/* pipelined: credentials and a plain line, replies in order */
	e1 = envelope_as(sock, "{\"op\":\"echo\",\"n\":2}", 0);
	e2 = envelope_as(sock, "{\"op\":\"echo\",\"n\":3}", 65534);
	en = envelope_as(sock, "{\"op\":\"later\",\"n\":5}", 0);
	snprintf(all, sizeof(all), "%s%s{\"op\":\"echo\",\"n\":4}\n%s", e1,
		 e2, en);
	fd = connect_tcp(tcp);
	send_str(fd, all);
	CU_ASSERT_FATAL(read_line(fd, line, sizeof(line), 3000) > 0);
	CU_ASSERT_EQUAL(field(line, "n"), 2);
	CU_ASSERT_EQUAL(field(line, "uid"), 0);
	CU_ASSERT_FATAL(read_line(fd, line, sizeof(line), 3000) > 0);
	CU_ASSERT_EQUAL(field(line, "n"), 3);
	CU_ASSERT_EQUAL(field(line, "uid"), 65534);
	CU_ASSERT_PTR_NOT_NULL(strstr(line, "\"may_write\":false"));
	CU_ASSERT_PTR_NOT_NULL(strstr(line, "\"munge\":true"));
	/* the credential was that request's: the next line is anonymous */
	CU_ASSERT_FATAL(read_line(fd, line, sizeof(line), 3000) > 0);
	CU_ASSERT_EQUAL(field(line, "n"), 4);
	CU_ASSERT_EQUAL(field(line, "uid"), (int64_t)SM_NO_UID);
	CU_ASSERT_PTR_NOT_NULL(strstr(line, "\"munge\":false"));
	/* a deferred request in a credential: answered later, in order */
	sm_server_answer(f.srv, later_ticket(0), reply_n(5));
	CU_ASSERT_FATAL(read_line(fd, line, sizeof(line), 3000) > 0);
	CU_ASSERT_EQUAL(field(line, "n"), 5);
	/* once decoded, never again; nor a credential of no munged's */
	send_str(fd, e1);
	expect_reply(fd, "bad_credential");
	send_str(fd, "{\"op\":\"munge\",\"cred\":\"MUNGE:AAAA:\"}\n");
	expect_reply(fd, "bad_credential");
	close(fd);
	sm_server_stats(f.srv, &st);
	CU_ASSERT_EQUAL(st.munge_ok, 4);
	CU_ASSERT_EQUAL(st.munge_refused, 2);
	free(e1);
	free(e2);
	free(en);
	stop(&f);
	munged_gone(md, dir);
}

/*
 * Anonymous TCP peers that fill every TCP slot and keep asking cannot
 * keep out a request in a MUNGE credential nor a /metrics scrape: the
 * longest connected of them makes room.  Peers that showed a credential
 * keep their slots: with those full, a newcomer is busy.
 */
static void test_tcp_evict(void)
{
	struct sm_server_config cfg = { .max_clients = 4, .http = http_page };
	char tcp[SM_ADDR_LEN + 8], sock[128], line[2048], buf[4096];
	char dir[] = "/tmp/gpuaware-munge-XXXXXX", *env;
	struct sm_server_stats st;
	struct fixture f;
	json_object *r, *req;
	int fd[4], x, i;
	pid_t md;

	md = munged_tmp(dir, sock, sizeof(sock));
	cfg.munge_socket = sock;
	start_tcp(&f, &cfg, "0", tcp, sizeof(tcp));
	for (i = 0; i < 4; i++)
		fd[i] = echoed(tcp, "{\"op\":\"echo\"}\n");
	/* all four keep asking; a scrape still gets in */
	for (i = 0; i < 4; i++) {
		send_str(fd[i], "{\"op\":\"echo\"}\n");
		expect_reply(fd[i], "ok");
	}
	http_get(tcp, "GET /metrics HTTP/1.1\r\n\r\n", buf, sizeof(buf));
	CU_ASSERT(!strncmp(buf, "HTTP/1.1 200 OK\r\n", 17));
	/* the oldest anonymous peer went, told why */
	expect_reply(fd[0], "busy");
	expect_closed(fd[0], 2000);
	close(fd[0]);
	fd[0] = echoed(tcp, "{\"op\":\"echo\"}\n");
	/* full again: a header sent slowly is no better than a line */
	x = connect_tcp(tcp);
	send_str(x, "GET /metrics HTTP/1.1\r\n");
	expect_reply(fd[1], "busy");
	close(fd[1]);
	fd[1] = x;
	/* a credential's request gets in as well */
	req = json_tokener_parse("{\"op\":\"echo\",\"n\":7}");
	CU_ASSERT_EQUAL(sm_call_as(tcp, sock, req, &r, 2000, line,
				   sizeof(line)), 0);
	CU_ASSERT_EQUAL(json_object_get_int(json_object_object_get(r, "n")), 7);
	json_object_put(r);
	json_object_put(req);
	expect_reply(fd[2], "busy");
	for (i = 0; i < 4; i++)
		close(fd[i]);
	wait_connected(f.srv, 0);

	/* peers that authenticated keep their slots */
	for (i = 0; i < 4; i++) {
		env = envelope_as(sock, "{\"op\":\"echo\"}", 0);
		fd[i] = echoed(tcp, env);
		free(env);
	}
	x = connect_tcp(tcp);
	expect_reply(x, "busy");
	close(x);
	for (i = 0; i < 4; i++) {
		send_str(fd[i], "{\"op\":\"echo\"}\n");
		expect_reply(fd[i], "ok");
		close(fd[i]);
	}
	sm_server_stats(f.srv, &st);
	CU_ASSERT_EQUAL(st.evicted, 3);
	CU_ASSERT_EQUAL(st.busy, 1);
	stop(&f);
	munged_gone(md, dir);
}

/* An HTTP client evicted mid-header is told so in HTTP: 503. */
static void test_tcp_evict_http(void)
{
	struct sm_server_config cfg = { .max_clients = 1, .http = http_page };
	char tcp[SM_ADDR_LEN + 8], buf[1024];
	struct timeval tv = { .tv_sec = 2 };
	struct fixture f;
	int h, fd;

	start_tcp(&f, &cfg, "0", tcp, sizeof(tcp));
	h = connect_tcp(tcp);
	setsockopt(h, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	send_str(h, "GET /metrics HTTP/1.1\r\n");
	wait_connected(f.srv, 1);
	fd = echoed(tcp, "{\"op\":\"echo\"}\n");
	read_all(h, buf, sizeof(buf));
	CU_ASSERT(!strncmp(buf, "HTTP/1.1 503 ", 13));
	CU_ASSERT_PTR_NOT_NULL(strstr(buf, "makes room"));
	close(h);
	close(fd);
	stop(&f);
}

/*
 * munged unreachable: internal, without its socket's path (the peer
 * may be anyone), which the log gets.
 */
static void test_tcp_munge_down(void)
{
	char log[1024] = "";
	struct sm_server_config cfg = {
		.munge_socket = "/nonexistent/secret-munge.sock",
		.log = log_line, .ctx = log
	};
	char tcp[SM_ADDR_LEN + 8], line[1024], c[32];
	struct fixture f;
	int fd;

	start_tcp(&f, &cfg, "0", tcp, sizeof(tcp));
	fd = connect_tcp(tcp);
	send_str(fd, "{\"op\":\"munge\",\"cred\":\"MUNGE:AAAA:\"}\n");
	CU_ASSERT_FATAL(read_line(fd, line, sizeof(line), 3000) > 0);
	CU_ASSERT_STRING_EQUAL(code_of(line, c, sizeof(c)), "internal");
	CU_ASSERT_PTR_NOT_NULL(strstr(line, "cannot decode the MUNGE credential"));
	CU_ASSERT_PTR_NULL(strstr(line, "secret-munge"));
	close(fd);
	stop(&f);
	CU_ASSERT_PTR_NOT_NULL(strstr(log, "secret-munge"));
}

/*
 * A credential is taken once even when munged restarts in between (its
 * replay cache is in its memory), the same key still valid; spelled
 * otherwise (blanks munged skips) it is the same credential.
 */
static void test_tcp_munge_once(void)
{
	struct sm_server_config cfg = { 0 };
	char tcp[SM_ADDR_LEN + 8], sock[128], line[2048], all[8192];
	char dir[] = "/tmp/gpuaware-munge-XXXXXX", *e1, *e2, *p;
	struct fixture f;
	pid_t md;
	int fd;

	md = munged_tmp(dir, sock, sizeof(sock));
	cfg.munge_socket = sock;
	start_tcp(&f, &cfg, "0", tcp, sizeof(tcp));
	e1 = envelope_as(sock, "{\"op\":\"echo\",\"n\":1}", 0);
	e2 = envelope_as(sock, "{\"op\":\"echo\",\"n\":2}", 0);
	fd = connect_tcp(tcp);
	send_str(fd, e1);
	expect_reply(fd, "ok");
	munged_down(md);
	md = munged_again(dir, sock, sizeof(sock));
	CU_ASSERT_FATAL(md > 0);
	/* munged forgot e1; the server did not */
	send_str(fd, e1);
	CU_ASSERT_FATAL(read_line(fd, line, sizeof(line), 3000) > 0);
	CU_ASSERT_PTR_NOT_NULL(strstr(line, "bad_credential"));
	CU_ASSERT_PTR_NOT_NULL(strstr(line, "Replayed credential"));
	/* nor when blanks are put in its base64 */
	p = strstr(e1, "MUNGE:") + 10;
	snprintf(all, sizeof(all), "%.*s \\t%s", (int)(p - e1), e1, p);
	send_str(fd, all);
	expect_reply(fd, "bad_credential");
	/* one it never saw is taken */
	send_str(fd, e2);
	expect_reply(fd, "ok");
	close(fd);
	free(e1);
	free(e2);
	stop(&f);
	munged_gone(md, dir);
}

TU_SUITE(server,
	 { "request and reply", test_request_reply },
	 { "sequence and pipeline", test_sequence_and_pipeline },
	 { "too long", test_too_long },
	 { "silent client", test_silent_client },
	 { "deadlines", test_deadlines },
	 { "blank lines are no activity", test_blank_idle },
	 { "max clients", test_max_clients },
	 { "busy refusals logged once per interval", test_busy_log },
	 { "unread replies", test_unread_replies },
	 { "socket file", test_socket_file },
	 { "permissions", test_permissions },
	 { "may write", test_may_write },
	 { "sm_call errors", test_call_errors },
	 { "deferred: order and pipelining", test_deferred_order },
	 { "deferred: client gone", test_deferred_gone },
	 { "deferred: half-closed, no deadline", test_deferred_half_closed },
	 { "deferred: stop while pending", test_deferred_stop },
	 { "tcp: peer and framing", test_tcp_peer },
	 { "tcp: deferred replies", test_tcp_deferred },
	 { "tcp: limits and deadlines", test_tcp_limits },
	 { "slots per peer class", test_slots_per_class },
	 { "tcp: IPv6 loopback", test_tcp_ipv6 },
	 { "tcp: start errors", test_tcp_start_errors },
	 { "tcp: sm_call errors", test_tcp_call_errors },
	 { "tcp: HTTP beside JSON lines", test_tcp_http },
	 { "tcp: HTTP header limit, 431 without a reset", test_tcp_http_431 },
	 { "tcp: HTTP response deferred", test_tcp_http_deferred },
	 { "tcp: MUNGE credentials", test_tcp_munge },
	 { "tcp: anonymous peers make room", test_tcp_evict },
	 { "tcp: an HTTP client making room gets 503", test_tcp_evict_http },
	 { "tcp: munged down, its path kept from the peer", test_tcp_munge_down },
	 { "tcp: a credential once, across munged restarts", test_tcp_munge_once })
