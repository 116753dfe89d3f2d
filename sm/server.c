// SPDX-License-Identifier: MIT
/*
 * The poll() loop serving JSON lines on a Unix socket and optionally a
 * TCP one; peer checks, MUNGE credentials handed to the decoder and
 * back.
 */
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <pthread.h>
#include <pwd.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "../topology/monotime.h"
#include "mungeauth.h"
#include "server.h"

#define BACKLOG 64
#define ACCEPT_PAUSE_MS 100	/* out of descriptors: retry accept later */
#define NFIXED 3		/* pollfds before the clients' */

/*
 * Who a peer is decides whose slots it takes: each class has max_clients
 * of its own, so readers, local or over TCP, never lock out root or the
 * group, nor each other.
 */
enum peer_class {
	CLASS_WRITER,		/* may change state: root or the group */
	CLASS_READER,		/* a local peer that may not */
	CLASS_REMOTE,		/* a TCP peer */
	NCLASSES
};

static const char *const class_names[NCLASSES] = {
	[CLASS_WRITER] = "clients that may write",
	[CLASS_READER] = "local clients that may not write",
	[CLASS_REMOTE] = "TCP clients",
};

struct client {
	int fd;
	struct sm_peer peer;
	enum peer_class cls;
	char *in;		/* max_in + 1 bytes: a line and its '\n' */
	size_t nin;
	size_t max_in;		/* max_line, or over TCP a credential's */
	char *out;		/* replies not yet sent: out[off] up to nout */
	size_t off, nout, cap;
	int64_t line_start;	/* when the pending partial line began, or 0 */
	int64_t last;		/* when a byte last moved either way */
	uint64_t born;		/* accepted as the server's born-th */
	bool authed;		/* TCP: showed a valid MUNGE credential */
	bool closing;		/* send what is queued, read nothing, close */
	bool started;		/* its first byte came: http is decided */
	bool http;		/* an HTTP request, not JSON lines */
	bool eof;		/* read nothing more, answer what came, close */
	bool watch;		/* gets sm_server_publish()'s lines */
	json_object *filter;	/* of them, owned (server thread); NULL all */
	/*
	 * HTTP refused (431) while it may still send: its bytes are read
	 * and dropped until it closes or the line deadline, since closing
	 * with unread input would reset the connection before the client
	 * reads the response.
	 */
	bool draining;
	bool shut;		/* draining: our side is shut down */
	/* Under the server's lock, for sm_server_answer(): */
	uint64_t wait;		/* the deferred request's ticket, 0: none */
	bool answered;		/* its reply was posted: */
	json_object *answer;	/* that reply, owned */
	int http_ret;		/* or an HTTP one: http()'s result, */
	char *body;		/* its body, owned, */
	size_t blen;		/* of blen bytes */
	struct sm_munge_cred *cred;	/* or its credential came back, owned */
	bool cred_write;	/* and its uid or gid may write */
	bool cred_connect;	/* and could open the socket */
};

struct sm_server {
	struct sm_server_config cfg;
	char *path;
	dev_t dev;
	ino_t ino;
	uid_t sock_uid;		/* the socket file's owner and group */
	gid_t sock_gid;
	int lfd, efd;
	int tfd;		/* the TCP socket, -1: none */
	struct sockaddr_storage taddr;	/* its bound address */
	int64_t accept_after;
	int64_t busy_next;	/* the next busy refusal logged from then on */
	uint64_t busy_quiet;	/* busy refusals not logged since */
	pthread_t thread;
	struct client *cl;	/* NCLASSES * max_clients slots, ncl in use */
	unsigned int ncl;
	unsigned int nclass[NCLASSES];	/* clients in use per class */
	struct pollfd *pfd;	/* event fd, listeners (Unix, TCP), clients */
	uint64_t tickets;	/* the last request's ticket */
	uint64_t born;		/* the last client's serial */
	struct sm_munge *munge;	/* with TCP: the credentials' decoder */
	/*
	 * Guards stats, stop, and what sm_server_answer() reads: the
	 * clients' slots up to ncl and their wait and answer.  The server
	 * thread reads what it alone writes without it.
	 */
	pthread_mutex_t lock;
	bool stop;
	struct sm_server_stats stats;
	unsigned int nwatch;	/* watchers */
	char *pub;		/* published lines not yet queued to them */
	size_t npub, pubcap;
};

static void count(struct sm_server *s, uint64_t *field)
{
	pthread_mutex_lock(&s->lock);
	++*field;
	pthread_mutex_unlock(&s->lock);
}

static void wake(struct sm_server *s)
{
	uint64_t one = 1;

	while (write(s->efd, &one, sizeof(one)) < 0 && errno == EINTR)
		;
}

void sm_server_stats(struct sm_server *s, struct sm_server_stats *st)
{
	pthread_mutex_lock(&s->lock);
	*st = s->stats;
	st->connected = s->ncl;
	pthread_mutex_unlock(&s->lock);
}

bool sm_peer_may_write(const struct sm_peer *p, gid_t gid)
{
	struct passwd pw, *res = NULL;
	gid_t *groups = NULL;
	char buf[16384];
	int n = 64, i;
	bool ok = false;

	if (p->uid == 0)
		return true;
	if (gid == SM_NO_GROUP)
		return false;
	if (p->gid == gid)
		return true;
	if (getpwuid_r(p->uid, &pw, buf, sizeof(buf), &res) || !res)
		return false;
	if (pw.pw_gid == gid)
		return true;
	for (;;) {
		gid_t *g = realloc(groups, n * sizeof(*groups));
		int want = n;

		if (!g)
			goto out_free;
		groups = g;
		if (getgrouplist(pw.pw_name, pw.pw_gid, groups, &want) >= 0) {
			n = want;
			break;
		}
		/* glibc says how many it needs; others may not grow it */
		n = want > n ? want : n * 2;
	}
	for (i = 0; i < n && !ok; i++)
		ok = groups[i] == gid;
out_free:
	free(groups);
	return ok;
}

__attribute__((format(printf, 3, 4)))
static void logf_client(struct sm_server *s, const struct client *c,
			const char *fmt, ...)
{
	char msg[256];
	va_list ap;
	int n;

	if (!s->cfg.log)
		return;
	if (c->peer.remote)
		n = snprintf(msg, sizeof(msg), "client %s: ", c->peer.addr);
	else
		n = snprintf(msg, sizeof(msg), "client pid %d uid %u: ",
			     (int)c->peer.pid, (unsigned int)c->peer.uid);
	va_start(ap, fmt);
	vsnprintf(msg + n, sizeof(msg) - n, fmt, ap);
	va_end(ap);
	s->cfg.log(s->cfg.ctx, msg);
}

static void drop(struct sm_server *s, unsigned int i)
{
	struct client *c = &s->cl[i];
	struct sm_munge_cred *cred;
	json_object *late;
	char *body;

	close(c->fd);
	free(c->in);
	free(c->out);
	json_object_put(c->filter);
	pthread_mutex_lock(&s->lock);
	late = c->answer;
	body = c->body;
	cred = c->cred;
	s->nwatch -= c->watch;
	s->stats.abandoned += c->answered || cred;
	s->nclass[c->cls]--;
	s->cl[i] = s->cl[--s->ncl];
	pthread_mutex_unlock(&s->lock);
	json_object_put(late);
	free(body);
	sm_munge_cred_free(cred);
}

/* Sent all it asked for, and nothing more will come: close it. */
static bool done(const struct client *c)
{
	return (c->closing || (c->eof && !c->wait)) && c->off == c->nout;
}

/* Send what the client can take now; -1 when the connection is gone. */
static int flush(struct client *c, int64_t now)
{
	ssize_t w;

	while (c->off < c->nout) {
		w = send(c->fd, c->out + c->off, c->nout - c->off,
			 MSG_NOSIGNAL | MSG_DONTWAIT);
		if (w < 0 && errno == EINTR)
			continue;
		if (w < 0)
			return errno == EAGAIN || errno == EWOULDBLOCK ? 0 : -1;
		c->off += w;
		c->last = now;
	}
	c->off = c->nout = 0;
	return 0;
}

/* Queue n bytes of data on c as they are; -ENOMEM as queue(). */
static int queue_raw(struct client *c, const char *data, size_t n)
{
	size_t need;

	if (c->off) {
		memmove(c->out, c->out + c->off, c->nout - c->off);
		c->nout -= c->off;
		c->off = 0;
	}
	need = c->nout + n;
	if (need > c->cap) {
		size_t cap = need > 2 * c->cap ? need : 2 * c->cap;
		char *p = realloc(c->out, cap);

		if (!p)
			return -ENOMEM;
		c->out = p;
		c->cap = cap;
	}
	memcpy(c->out + c->nout, data, n);
	c->nout += n;
	return 0;
}

/* Queue reply (consumed) on c; -ENOMEM leaves the client to be dropped. */
static int queue(struct client *c, json_object *reply)
{
	size_t n;
	char *line;
	int ret;

	line = reply ? sm_proto_line(reply, &n) : NULL;
	json_object_put(reply);
	if (!line)
		return -ENOMEM;
	ret = queue_raw(c, line, n);
	free(line);
	return ret;
}

/*
 * Queue e as c's final reply (to an HTTP client, 503 and e's message),
 * try to send it, and have c closed.
 */
static void close_with(struct client *c, const struct sm_error *e)
{
	char head[384];
	int hl;

	if (c->http) {
		hl = snprintf(head, sizeof(head), "HTTP/1.1 503 Service Unavailable\r\nContent-Length: 0\r\nConnection: close\r\nX-Reason: %s\r\n\r\n",
			      e->msg);
		if (hl > 0 && (size_t)hl < sizeof(head) &&
		    !queue_raw(c, head, hl))
			flush(c, mono_ms());
	} else if (!queue(c, sm_reply_from_error(e))) {
		flush(c, mono_ms());
	}
	c->closing = true;
}

/* Log why c is closed, and close it with that error. */
__attribute__((format(printf, 4, 5)))
static void refuse(struct sm_server *s, struct client *c, enum sm_err code,
		   const char *fmt, ...)
{
	struct sm_error e;
	va_list ap;

	e.code = code;
	va_start(ap, fmt);
	vsnprintf(e.msg, sizeof(e.msg), fmt, ap);
	va_end(ap);
	logf_client(s, c, "closed: %s: %s", sm_err_code(code), e.msg);
	close_with(c, &e);
}

/*
 * Close c as busy.  A burst of these would flood the log: the first
 * after a quiet interval is logged, the others are counted and told in
 * one line when the interval ends (busy_summary()).
 */
static void close_busy(struct sm_server *s, struct client *c,
		       const struct sm_error *e, int64_t now)
{
	if (now < s->busy_next) {
		s->busy_quiet++;
	} else {
		logf_client(s, c, "closed: busy: %s", e->msg);
		s->busy_next = now + s->cfg.busy_log_ms;
	}
	close_with(c, e);
}

static void refuse_busy(struct sm_server *s, struct client *c, int64_t now)
{
	struct sm_error e;

	count(s, &s->stats.busy);
	sm_error_set(&e, SM_ERR_BUSY, "%u %s connected, try again",
		     s->cfg.max_clients, class_names[c->cls]);
	close_busy(s, c, &e, now);
}

static void busy_summary(struct sm_server *s, int64_t now)
{
	char msg[128];

	if (!s->busy_quiet || now < s->busy_next)
		return;
	snprintf(msg, sizeof(msg), "busy: %llu more connections refused in %d ms",
		 (unsigned long long)s->busy_quiet, s->cfg.busy_log_ms);
	if (s->cfg.log)
		s->cfg.log(s->cfg.ctx, msg);
	s->busy_quiet = 0;
	s->busy_next = now + s->cfg.busy_log_ms;
}

/* A new ticket for c's request, which waits on it from now. */
static uint64_t new_ticket(struct sm_server *s, struct client *c)
{
	uint64_t t;

	pthread_mutex_lock(&s->lock);
	t = c->wait = ++s->tickets;
	pthread_mutex_unlock(&s->lock);
	return t;
}

/*
 * The handler's reply to req from peer p (c's, or c's as a credential
 * names it); or NULL with c->wait set when the handler deferred it.  The
 * ticket is c's before the handler runs: an answer may come before the
 * handler returns.
 */
static json_object *handle(struct sm_server *s, struct client *c,
			   struct sm_peer *p, json_object *req)
{
	json_object *reply = NULL, *stray;
	int ret;

	p->ticket = new_ticket(s, c);
	ret = s->cfg.handler(s->cfg.ctx, p, req, &reply);
	if (ret == SM_DEFERRED) {
		json_object_put(reply);
		return NULL;
	}
	/* an answer to a ticket the handler did not defer goes nowhere */
	pthread_mutex_lock(&s->lock);
	stray = c->answer;
	s->stats.abandoned += c->answered;
	c->wait = 0;
	c->answered = false;
	c->answer = NULL;
	pthread_mutex_unlock(&s->lock);
	json_object_put(stray);
	if (ret >= 0 && reply)
		return reply;
	json_object_put(reply);
	return sm_reply_error(SM_ERR_INTERNAL, "the server failed: %s",
			      strerror(ret < 0 ? -ret : EIO));
}

/*
 * An envelope from a TCP peer: its credential goes to the decoder, and
 * c waits (NULL) until authed() answers; or the reply refusing it.
 */
static json_object *authenticate(struct sm_server *s, struct client *c,
				 json_object *req)
{
	static const char *const fields[] = { "op", "cred", NULL };
	const char *cred;
	struct sm_error e;
	uint64_t t;

	if (sm_check_fields(req, fields, &e) ||
	    sm_get_string(req, "cred", true, &cred, &e))
		return sm_reply_from_error(&e);
	t = new_ticket(s, c);
	if (!sm_munge_submit(s->munge, t, cred))
		return NULL;
	pthread_mutex_lock(&s->lock);
	c->wait = 0;
	pthread_mutex_unlock(&s->lock);
	return sm_reply_error(SM_ERR_INTERNAL, "the server failed: %s",
			      strerror(ENOMEM));
}

/*
 * The reply to one line; or NULL with c->wait set while its credential
 * is decoded or the handler deferred it.  Over TCP the buffer takes a
 * credential's envelope: a plain line beyond max_line is too long all
 * the same.  Over the Unix socket the kernel says who the peer is.
 */
static json_object *answer(struct sm_server *s, struct client *c,
			   const char *line, size_t len)
{
	json_object *req, *reply;
	struct sm_error e;

	if (sm_proto_parse(line, len, c->max_in, &req, &e))
		return sm_reply_from_error(&e);
	if (c->peer.remote && sm_munge_envelope(req)) {
		reply = authenticate(s, c, req);
	} else if (sm_munge_envelope(req)) {
		reply = sm_reply_error(SM_ERR_BAD_REQUEST, "a MUNGE credential is for TCP: on this socket the kernel says who you are");
	} else if (len > s->cfg.max_line) {
		count(s, &s->stats.too_long);
		logf_client(s, c, "closed: %s: request line longer than %zu bytes",
			    sm_err_code(SM_ERR_TOO_LONG), s->cfg.max_line);
		reply = sm_reply_error(SM_ERR_TOO_LONG, "request line longer than %zu bytes",
				       s->cfg.max_line);
		c->closing = true;
	} else {
		reply = handle(s, c, &c->peer, req);
	}
	json_object_put(req);
	return reply;
}

/*
 * c's credential came back: its request, as the peer the credential
 * names (NULL: deferred by the handler), or the refusal.
 */
static json_object *authed(struct sm_server *s, struct client *c,
			   struct sm_munge_cred *mc, bool may_write,
			   bool connect)
{
	struct sm_peer p = c->peer;
	json_object *req, *reply;
	struct sm_error e;

	if (mc->status == -EACCES) {
		count(s, &s->stats.munge_refused);
		logf_client(s, c, "MUNGE credential refused: %s", mc->msg);
		reply = sm_reply_error(SM_ERR_BAD_CREDENTIAL, "MUNGE credential refused: %s",
				       mc->msg);
		goto out;
	}
	if (mc->status) {
		/* munged's message names its socket: the log's, not the peer's */
		count(s, &s->stats.munge_refused);
		logf_client(s, c, "cannot decode the MUNGE credential: %s",
			    mc->msg);
		reply = sm_reply_error(SM_ERR_INTERNAL, "cannot decode the MUNGE credential: munged does not answer on this server (its log says why)");
		goto out;
	}
	count(s, &s->stats.munge_ok);
	c->authed = true;
	if (sm_proto_parse(mc->payload, mc->len, s->cfg.max_line, &req, &e)) {
		sm_error_prefix(&e, "the credential's request: ");
		reply = sm_reply_from_error(&e);
		goto out;
	}
	if (sm_munge_envelope(req)) {
		reply = sm_reply_error(SM_ERR_BAD_REQUEST, "the credential's request is another credential");
	} else {
		p.uid = mc->uid;
		p.gid = mc->gid;
		p.may_write = may_write;
		p.may_connect = connect;
		p.munge = true;
		reply = handle(s, c, &p, req);
	}
	json_object_put(req);
out:
	sm_munge_cred_free(mc);
	return reply;
}

/*
 * Hand what ticket waits for to its client, from any thread: a deferred
 * reply, or (mc) a decoded credential; false, counted abandoned, when no
 * client waits on it any more.
 */
static struct client *waiting(struct sm_server *s, uint64_t ticket)
{
	unsigned int i;

	for (i = 0; ticket && i < s->ncl; i++)
		if (s->cl[i].wait == ticket && !s->cl[i].answered &&
		    !s->cl[i].cred)
			return &s->cl[i];
	return NULL;
}

static bool post(struct sm_server *s, uint64_t ticket, json_object *reply,
		 struct sm_munge_cred *mc, const struct sm_peer *who)
{
	struct client *c;

	pthread_mutex_lock(&s->lock);
	c = waiting(s, ticket);
	if (c && mc) {
		c->cred = mc;
		c->cred_write = who->may_write;
		c->cred_connect = who->may_connect;
	} else if (c) {
		c->answer = reply;
		c->answered = true;
	} else {
		s->stats.abandoned++;
	}
	pthread_mutex_unlock(&s->lock);
	if (c)
		wake(s);
	return c;
}

/*
 * On a decoder thread: who may write is decided here (NSS may wait),
 * and the credential posted to its client, if still there.
 */
/*
 * Whether p could open the socket: write permission on it, as the
 * kernel decides from its mode, owner and group (root always).
 */
static bool may_connect(const struct sm_server *s, const struct sm_peer *p)
{
	if (p->uid == 0)
		return true;
	if (p->uid == s->sock_uid)
		return s->cfg.mode & S_IWUSR;
	if (sm_peer_may_write(p, s->sock_gid))
		return s->cfg.mode & S_IWGRP;
	return s->cfg.mode & S_IWOTH;
}

static void decoded(void *ctx, struct sm_munge_cred *mc)
{
	struct sm_server *s = ctx;
	struct sm_peer p = { .uid = mc->uid, .gid = mc->gid };

	if (!mc->status) {
		p.may_write = sm_peer_may_write(&p, s->cfg.group);
		p.may_connect = may_connect(s, &p);
	}
	if (!post(s, mc->ticket, NULL, mc, &p))
		sm_munge_cred_free(mc);
}

/* Whether p[0..n) is only blanks: neither a request nor activity. */
static bool blank(const char *p, size_t n)
{
	while (n && (*p == ' ' || *p == '\t' || *p == '\r' || *p == '\n')) {
		p++;
		n--;
	}
	return !n;
}

/*
 * Answer every complete line in c's input, up to one whose reply is
 * deferred.  A client whose unsent replies still hold max_out bytes when
 * another is due, after a try to send them, reads none of them: it is
 * dropped (-1), so its memory stays bounded by max_out and one reply.
 */
static int serve_lines(struct sm_server *s, struct client *c, int64_t now)
{
	size_t start = 0, len;
	json_object *reply;
	char *line, *nl;

	while (!c->closing && !c->wait &&
	       (nl = memchr(c->in + start, '\n', c->nin - start))) {
		line = c->in + start;
		len = nl - line;
		start += len + 1;
		/* over TCP a line may be longer: if it is a credential */
		if (len > s->cfg.max_line && blank(line, len)) {
			count(s, &s->stats.too_long);
			refuse(s, c, SM_ERR_TOO_LONG,
			       "request line longer than %zu bytes",
			       s->cfg.max_line);
			break;
		}
		if (blank(line, len))
			continue;
		if (c->nout - c->off >= s->cfg.max_out && flush(c, now))
			return -1;
		if (c->nout - c->off >= s->cfg.max_out) {
			logf_client(s, c, "closed: %zu bytes of replies unread",
				    c->nout - c->off);
			count(s, &s->stats.overflows);
			return -1;
		}
		reply = answer(s, c, line, len);
		c->line_start = 0;
		if (c->wait)
			continue;
		if (queue(c, reply))
			return -1;
		count(s, &s->stats.requests);
	}
	memmove(c->in, c->in + start, c->nin - start);
	c->nin -= start;
	if (!c->nin)
		c->line_start = 0;
	else if (!c->line_start)
		c->line_start = now;
	if (c->nin > c->max_in && !c->closing && !c->wait) {
		count(s, &s->stats.too_long);
		refuse(s, c, SM_ERR_TOO_LONG,
		       "request line longer than %zu bytes",
		       c->max_in > s->cfg.max_line ? c->max_in :
		       s->cfg.max_line);
	}
	return flush(c, now);
}

static const char *http_reason(int status)
{
	switch (status) {
	case 200:
		return "OK";
	case 404:
		return "Not Found";
	case 431:
		return "Request Header Fields Too Large";
	default:
		return "Internal Server Error";
	}
}

/* Queue the response to http()'s ret and body (consumed). */
static int http_reply(struct client *c, int ret, char *body, size_t blen)
{
	int status = !ret ? 200 : ret == -ENOENT ? 404 : 500, hl;
	char head[192];

	if (status != 200)
		blen = 0;
	hl = snprintf(head, sizeof(head),
		      "HTTP/1.1 %d %s\r\nContent-Type: text/plain; version=0.0.4; charset=utf-8\r\nContent-Length: %zu\r\nConnection: close\r\n\r\n",
		      status, http_reason(status), blen);
	ret = queue_raw(c, head, hl);
	if (!ret && blen)
		ret = queue_raw(c, body, blen);
	free(body);
	c->closing = true;
	return ret;
}

/*
 * The response to the request line in c->in, or none yet (c waits)
 * when http() defers it.
 */
static int http_respond(struct sm_server *s, struct client *c,
			const char *line, size_t n)
{
	const char *sp = memchr(line, ' ', n), *sp2;
	char *path = NULL, *body = NULL;
	size_t blen = 0;
	uint64_t t;
	int ret = -ENOENT;

	sp2 = sp ? memchr(sp + 1, ' ', n - (sp + 1 - line)) : NULL;
	if (sp && sp2 && sp - line == 3 && !memcmp(line, "GET", 3) &&
	    s->cfg.http) {
		path = strndup(sp + 1, sp2 - sp - 1);
		t = new_ticket(s, c);
		ret = path ? s->cfg.http(s->cfg.ctx, t, path, &body, &blen) :
			     -ENOMEM;
		free(path);
		if (ret == SM_DEFERRED)
			return 0;
		pthread_mutex_lock(&s->lock);
		c->wait = 0;
		pthread_mutex_unlock(&s->lock);
	}
	return http_reply(c, ret, body, blen);
}

/*
 * An HTTP client: once its header is in (the line deadline bounds the
 * wait, max_line its size), one response, then close.
 */
static int serve_http(struct sm_server *s, struct client *c, int64_t now)
{
	const char *end = memmem(c->in, c->nin, "\r\n\r\n", 4);
	const char *nl;
	char head[160];
	int hl;

	if (!end)
		end = memmem(c->in, c->nin, "\n\n", 2);
	if (!end && c->nin <= s->cfg.max_line) {
		if (!c->line_start)
			c->line_start = now;
		return 0;
	}
	count(s, &s->stats.requests);
	/* the buffer holds a credential's worth: the header gets max_line */
	if (!end || (size_t)(end - c->in) > s->cfg.max_line) {
		count(s, &s->stats.too_long);
		c->draining = true;
		c->line_start = now;
		hl = snprintf(head, sizeof(head), "HTTP/1.1 431 %s\r\nContent-Length: 0\r\nConnection: close\r\n\r\n",
			      http_reason(431));
		return queue_raw(c, head, hl) ? -1 : flush(c, now);
	}
	c->line_start = 0;
	nl = memchr(c->in, '\n', c->nin);
	if (http_respond(s, c, c->in, nl - c->in - (nl > c->in &&
						      nl[-1] == '\r')))
		return -1;
	return flush(c, now);
}

/* One read per wakeup, so a fast client cannot starve the others. */
static int read_client(struct sm_server *s, struct client *c, int64_t now)
{
	ssize_t r;

	if (c->draining)
		c->nin = 0;
	r = recv(c->fd, c->in + c->nin, c->max_in + 1 - c->nin,
		 MSG_DONTWAIT);
	if (r < 0)
		return errno == EAGAIN || errno == EINTR ? 0 : -1;
	if (r == 0) {
		/* a half-closed client still gets the replies it asked for */
		c->eof = true;
		return 0;
	}
	if (c->draining)
		return 0;
	/* blanks alone would hold a slot for ever: they are no activity */
	if (!blank(c->in + c->nin, r))
		c->last = now;
	if (!c->started)
		c->http = c->peer.remote && c->in[0] >= 'A' && c->in[0] <= 'Z';
	c->started = true;
	c->nin += r;
	return c->http ? serve_http(s, c, now) : serve_lines(s, c, now);
}

static int64_t deadline(const struct sm_server *s, const struct client *c)
{
	int64_t d = c->last + s->cfg.idle_ms;

	if (c->line_start && c->line_start + s->cfg.line_ms < d)
		d = c->line_start + s->cfg.line_ms;
	return d;
}

static void expire(struct sm_server *s, unsigned int i, int64_t now)
{
	struct client *c = &s->cl[i];

	if (c->wait || c->watch || deadline(s, c) > now)
		return;
	if (c->draining) {
		/* its response went out: no more to say */
	} else if (!c->closing && !c->eof && c->http) {
		count(s, &s->stats.timeouts);
		logf_client(s, c, "closed: timeout: HTTP request not completed within %d ms",
			    s->cfg.line_ms);
	} else if (!c->closing && !c->eof) {
		count(s, &s->stats.timeouts);
		if (c->line_start &&
		    c->line_start + s->cfg.line_ms <= c->last + s->cfg.idle_ms)
			refuse(s, c, SM_ERR_TIMEOUT,
			       "request line not completed within %d ms",
			       s->cfg.line_ms);
		else
			refuse(s, c, SM_ERR_TIMEOUT, "idle for %d ms",
			       s->cfg.idle_ms);
	}
	drop(s, i);
}

/*
 * Who is at fd: SO_PEERCRED on the Unix socket; over TCP only the
 * address a, no credentials and no write permission.
 */
static int identify(struct sm_server *s, struct sm_peer *p, int fd,
		    const struct sockaddr_storage *a)
{
	struct ucred uc;
	socklen_t sl = sizeof(uc);
	int one = 1;

	if (a) {
		p->remote = true;
		p->uid = SM_NO_UID;
		p->gid = SM_NO_GROUP;
		sm_tcp_name(a, p->addr, sizeof(p->addr));
		/* one small reply per line: Nagle would only delay them */
		setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
		return 0;
	}
	if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &uc, &sl))
		return -1;
	p->pid = uc.pid;
	p->uid = uc.uid;
	p->gid = uc.gid;
	p->may_write = sm_peer_may_write(p, s->cfg.group);
	p->may_connect = true;
	return 0;
}

static enum peer_class peer_class(const struct sm_peer *p)
{
	if (p->remote)
		return CLASS_REMOTE;
	return p->may_write ? CLASS_WRITER : CLASS_READER;
}

/*
 * The TCP client to close for a newcomer when every TCP slot is taken:
 * the longest connected of those that showed no valid credential and
 * are owed nothing (no reply or response due), so anonymous peers,
 * slow HTTP headers included, cannot keep an authenticated one out;
 * -1: none.
 */
static long evictable(const struct sm_server *s)
{
	long v = -1;
	unsigned int i;

	for (i = 0; i < s->ncl; i++) {
		const struct client *c = &s->cl[i];

		if (c->cls != CLASS_REMOTE || c->authed || c->wait ||
		    c->closing || c->draining)
			continue;
		if (v < 0 || c->born < s->cl[v].born)
			v = i;
	}
	return v;
}

/* Close client i for a newcomer: a burst too, logged as busy ones. */
static void evict(struct sm_server *s, unsigned int i, int64_t now)
{
	struct client *c = &s->cl[i];
	struct sm_error e;

	count(s, &s->stats.evicted);
	sm_error_set(&e, SM_ERR_BUSY, "%u %s connected: the longest connected without a MUNGE credential makes room for a new one",
		     s->cfg.max_clients, class_names[c->cls]);
	close_busy(s, c, &e, now);
	drop(s, i);
}

/* Take fd, or refuse it busy; c is scratch space for it. */
static void admit(struct sm_server *s, struct client *c, int fd, bool tcp,
		  const struct sockaddr_storage *a, int64_t now)
{
	long v = -1;

	memset(c, 0, sizeof(*c));
	c->fd = fd;
	c->last = now;
	c->born = ++s->born;
	if (identify(s, &c->peer, fd, tcp ? a : NULL)) {
		close(fd);
		return;
	}
	c->cls = peer_class(&c->peer);
	if (s->nclass[c->cls] == s->cfg.max_clients &&
	    (c->cls != CLASS_REMOTE || (v = evictable(s)) < 0)) {
		refuse_busy(s, c, now);
		free(c->out);
		close(fd);
		return;
	}
	if (s->nclass[c->cls] == s->cfg.max_clients)
		evict(s, v, now);
	c->max_in = tcp ? sm_munge_line_max(s->cfg.max_line) :
			  s->cfg.max_line;
	c->in = malloc(c->max_in + 1);
	if (!c->in) {
		close(fd);
		return;
	}
	pthread_mutex_lock(&s->lock);
	s->cl[s->ncl++] = *c;
	s->nclass[c->cls]++;
	s->stats.accepted++;
	pthread_mutex_unlock(&s->lock);
}

static void accept_clients(struct sm_server *s, int lfd, bool tcp,
			   int64_t now)
{
	struct sockaddr_storage a;
	struct client c;
	socklen_t al;
	int fd, n;

	for (n = 0; n < BACKLOG; n++) {
		al = sizeof(a);
		fd = accept4(lfd, (struct sockaddr *)&a, &al,
			     SOCK_NONBLOCK | SOCK_CLOEXEC);
		if (fd < 0) {
			if (errno == EMFILE || errno == ENFILE ||
			    errno == ENOBUFS || errno == ENOMEM)
				s->accept_after = now + ACCEPT_PAUSE_MS;
			return;
		}
		admit(s, &c, fd, tcp, &a, now);
	}
}

/* The poll timeout: until the nearest client deadline, or forever. */
static int poll_timeout(const struct sm_server *s, int64_t now)
{
	int64_t d = -1, t;
	unsigned int i;

	if (s->accept_after > now)
		d = s->accept_after;
	if (s->busy_quiet && (d < 0 || s->busy_next < d))
		d = s->busy_next;
	for (i = 0; i < s->ncl; i++) {
		if (s->cl[i].wait || s->cl[i].watch)
			continue;
		t = deadline(s, &s->cl[i]);
		if (d < 0 || t < d)
			d = t;
	}
	return d < 0 ? -1 : d <= now ? 0 : (int)(d - now);
}

static void serve_client(struct sm_server *s, unsigned int i, short rev,
			 int64_t now)
{
	struct client *c = &s->cl[i];
	int ret = 0;

	if (rev & POLLOUT)
		ret = flush(c, now);
	if (!ret && (rev & (POLLIN | POLLHUP | POLLERR)) && !c->closing &&
	    !c->eof && !c->wait)
		ret = read_client(s, c, now);
	else if (!ret && (rev & (POLLHUP | POLLERR)))
		ret = -1;
	if (!ret && c->draining && !c->shut && c->off == c->nout) {
		shutdown(c->fd, SHUT_WR);
		c->shut = true;
	}
	if (ret || done(c))
		drop(s, i);
}

/* Client i's deferred HTTP response came: send it, then close. */
static void deliver_http(struct sm_server *s, unsigned int i, int64_t now)
{
	struct client *c = &s->cl[i];
	char *body;

	pthread_mutex_lock(&s->lock);
	body = c->body;
	c->body = NULL;
	pthread_mutex_unlock(&s->lock);
	c->last = now;
	if (http_reply(c, c->http_ret, body, c->blen) || flush(c, now) ||
	    done(c))
		drop(s, i);
}

/*
 * Queue the deferred replies posted since the last round, and answer
 * the lines their clients sent meanwhile.
 */
static void deliver(struct sm_server *s, int64_t now)
{
	struct sm_munge_cred *mc;
	struct client *c;
	json_object *r;
	unsigned int i;
	bool got, w, cn;

	for (i = s->ncl; i-- > 0;) {
		c = &s->cl[i];
		pthread_mutex_lock(&s->lock);
		got = c->answered;
		r = c->answer;
		mc = c->cred;
		w = c->cred_write;
		cn = c->cred_connect;
		if (got || mc) {
			c->wait = 0;
			c->answered = false;
			c->answer = NULL;
			c->cred = NULL;
		}
		pthread_mutex_unlock(&s->lock);
		if (got && c->http) {
			json_object_put(r);	/* a JSON answer to HTTP: none */
			deliver_http(s, i, now);
			continue;
		}
		if (mc) {
			r = authed(s, c, mc, w, cn);
			if (c->wait)
				continue;
		} else if (!got) {
			continue;
		}
		if (!r)
			r = sm_reply_error(SM_ERR_INTERNAL, "the server failed: no reply");
		c->last = now;
		count(s, &s->stats.requests);
		if (queue(c, r) || serve_lines(s, c, now) || done(c))
			drop(s, i);
	}
}

int sm_server_watch(struct sm_server *s, uint64_t ticket,
		    json_object *filter)
{
	unsigned int i;

	for (i = 0; i < s->ncl; i++)
		if (s->cl[i].wait == ticket && !s->cl[i].watch) {
			pthread_mutex_lock(&s->lock);
			s->cl[i].watch = true;
			s->cl[i].filter = filter;
			s->nwatch++;
			s->stats.watchers++;
			pthread_mutex_unlock(&s->lock);
			return 0;
		}
	json_object_put(filter);
	return -ENOENT;
}

int sm_server_publish(struct sm_server *s, json_object *ev)
{
	size_t n;
	char *line;
	int ret = 0;

	pthread_mutex_lock(&s->lock);
	if (!s->nwatch)
		goto out_unlock;
	line = sm_proto_line(ev, &n);
	if (line && s->npub + n > s->pubcap) {
		size_t cap = 2 * (s->npub + n);
		char *p = realloc(s->pub, cap);

		if (p) {
			s->pub = p;
			s->pubcap = cap;
		}
	}
	if (!line || s->npub + n > s->pubcap) {
		free(line);
		ret = -ENOMEM;
		goto out_unlock;
	}
	memcpy(s->pub + s->npub, line, n);
	s->npub += n;
	s->stats.published++;
	free(line);
out_unlock:
	pthread_mutex_unlock(&s->lock);
	if (!ret)
		wake(s);
	return ret;
}

/* Whether ev passes filter: each clause has a member listing ev's value. */
static bool passes(json_object *filter, json_object *ev)
{
	json_object *v, *ok;
	size_t i, k;
	bool any;

	for (i = 0; i < json_object_array_length(filter); i++) {
		json_object *clause = json_object_array_get_idx(filter, i);

		any = false;
		json_object_object_foreach(clause, key, vals) {
			if (!json_object_object_get_ex(ev, key, &v) || !v)
				continue;
			for (k = 0; !any && k < json_object_array_length(vals);
			     k++) {
				ok = json_object_array_get_idx(vals, k);
				any = !strcmp(json_object_get_string(ok),
					      json_object_get_string(v));
			}
		}
		if (!any)
			return false;
	}
	return true;
}

/* The lines of buf[0..n) c's filter passes (evs: them parsed); -ENOMEM. */
static int queue_kept(struct client *c, const char *buf, size_t n,
		      json_object *const *evs)
{
	size_t at = 0, k = 0, len;
	const char *nl;

	for (; at < n; at += len, k++) {
		nl = memchr(buf + at, '\n', n - at);
		len = nl ? (size_t)(nl - buf - at) + 1 : n - at;
		if (evs[k] && passes(c->filter, evs[k]) &&
		    queue_raw(c, buf + at, len))
			return -ENOMEM;
	}
	return 0;
}

/* Every line of buf[0..n) parsed into *evs (NULL for none); the count. */
static size_t parse_lines(const char *buf, size_t n, json_object ***evs)
{
	size_t at = 0, nl = 0, len;
	const char *e;

	for (at = 0; at < n; at += len, nl++) {
		e = memchr(buf + at, '\n', n - at);
		len = e ? (size_t)(e - buf - at) + 1 : n - at;
	}
	*evs = calloc(nl + 1, sizeof(**evs));
	for (at = 0, nl = 0; *evs && at < n; at += len, nl++) {
		struct json_tokener *t = json_tokener_new();

		e = memchr(buf + at, '\n', n - at);
		len = e ? (size_t)(e - buf - at) + 1 : n - at;
		if (t)
			(*evs)[nl] = json_tokener_parse_ex(t, buf + at,
							   (int)len);
		json_tokener_free(t);
	}
	return nl;
}

/*
 * Queue the published lines to every watcher, those its filter passes;
 * one that still holds max_out bytes unread after a try to send is
 * dropped: a slow watcher never holds the server or the others up.
 */
static void publish_out(struct sm_server *s, int64_t now)
{
	json_object **evs = NULL;
	struct client *c;
	unsigned int i;
	size_t n, nl = 0, k;
	char *buf;

	pthread_mutex_lock(&s->lock);
	buf = s->pub;
	n = s->npub;
	s->pub = NULL;
	s->npub = s->pubcap = 0;
	pthread_mutex_unlock(&s->lock);
	/* parsed once for all the filtered watchers, if any */
	for (i = 0; n && !evs && i < s->ncl; i++)
		if (s->cl[i].watch && s->cl[i].filter)
			nl = parse_lines(buf, n, &evs);
	for (i = s->ncl; n && i-- > 0;) {
		c = &s->cl[i];
		if (!c->watch || c->closing)
			continue;
		if (c->nout - c->off >= s->cfg.max_out && flush(c, now)) {
			drop(s, i);
			continue;
		}
		if (c->nout - c->off >= s->cfg.max_out) {
			logf_client(s, c, "closed: watcher with %zu bytes of events unread",
				    c->nout - c->off);
			count(s, &s->stats.overflows);
			drop(s, i);
			continue;
		}
		if (c->filter && !evs) {
			/* parse_lines() ran out of memory */
			logf_client(s, c, "closed: out of memory for its filtered events");
			drop(s, i);
			continue;
		}
		if ((c->filter ? queue_kept(c, buf, n, evs) :
				 queue_raw(c, buf, n)) || flush(c, now))
			drop(s, i);
	}
	for (k = 0; evs && k < nl; k++)
		json_object_put(evs[k]);
	free(evs);
	free(buf);
}

void sm_server_answer(struct sm_server *s, uint64_t ticket,
		      json_object *reply)
{
	if (!post(s, ticket, reply, NULL, NULL))
		json_object_put(reply);
}

void sm_server_answer_http(struct sm_server *s, uint64_t ticket, int ret,
			   char *body, size_t len)
{
	struct client *c;

	pthread_mutex_lock(&s->lock);
	c = waiting(s, ticket);
	if (c && c->http) {
		c->http_ret = ret;
		c->body = body;
		c->blen = len;
		c->answered = true;
		body = NULL;
	} else {
		s->stats.abandoned++;
	}
	pthread_mutex_unlock(&s->lock);
	free(body);
	if (c)
		wake(s);
}

/* Reset the event fd; whether it asked the thread to stop. */
static bool woken(struct sm_server *s)
{
	uint64_t n;
	bool stop;

	while (read(s->efd, &n, sizeof(n)) < 0 && errno == EINTR)
		;
	pthread_mutex_lock(&s->lock);
	stop = s->stop;
	pthread_mutex_unlock(&s->lock);
	return stop;
}

static void log_poll_error(struct sm_server *s)
{
	char msg[128];

	if (!s->cfg.log)
		return;
	snprintf(msg, sizeof(msg), "poll: %s; the server stops", strerror(errno));
	s->cfg.log(s->cfg.ctx, msg);
}

static void *run(void *arg)
{
	struct sm_server *s = arg;
	unsigned int i, n;
	int64_t now;

	for (;;) {
		now = mono_ms();
		s->pfd[0] = (struct pollfd){ .fd = s->efd, .events = POLLIN };
		s->pfd[1] = (struct pollfd){
			.fd = s->accept_after > now ? -1 : s->lfd,
			.events = POLLIN
		};
		s->pfd[2] = (struct pollfd){
			.fd = s->accept_after > now ? -1 : s->tfd,
			.events = POLLIN
		};
		for (i = 0; i < s->ncl; i++) {
			struct client *c = &s->cl[i];

			s->pfd[i + NFIXED] = (struct pollfd){
				.fd = c->fd,
				.events = (c->closing || c->eof || c->wait ?
					   0 : POLLIN) |
					  (c->off < c->nout ? POLLOUT : 0)
			};
		}
		n = s->ncl;
		if (poll(s->pfd, n + NFIXED, poll_timeout(s, now)) < 0 &&
		    errno != EINTR) {
			log_poll_error(s);
			break;
		}
		if (s->pfd[0].revents && woken(s))
			break;
		now = mono_ms();
		/* backwards: drop() moves the last client into the hole */
		for (i = n; i-- > 0;)
			if (s->pfd[i + NFIXED].revents)
				serve_client(s, i, s->pfd[i + NFIXED].revents,
					     now);
		for (i = s->ncl; i-- > 0;)
			expire(s, i, now);
		if (s->pfd[0].revents) {
			deliver(s, now);
			publish_out(s, now);
		}
		if (s->pfd[1].revents)
			accept_clients(s, s->lfd, false, now);
		if (s->pfd[2].revents)
			accept_clients(s, s->tfd, true, now);
		busy_summary(s, mono_ms());
	}
	return NULL;
}

static int sys_err(char *err, size_t len, const char *path, const char *what)
{
	int ret = -errno;

	snprintf(err, len, "%s: %s: %s", path, what, strerror(errno));
	return ret;
}

/* Remove a socket file nobody listens on; anything else stays. */
static int clear_stale(const char *path, const struct sockaddr_un *a,
		       char *err, size_t len)
{
	struct stat st;
	int fd, ret;

	if (lstat(path, &st))
		return errno == ENOENT ? 0 : sys_err(err, len, path, "stat");
	if (!S_ISSOCK(st.st_mode)) {
		snprintf(err, len, "%s: exists and is not a socket", path);
		return -EEXIST;
	}
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return sys_err(err, len, path, "socket");
	ret = connect(fd, (const struct sockaddr *)a, sizeof(*a));
	if (!ret || errno == EAGAIN) {
		snprintf(err, len, "%s: another server is listening on it",
			 path);
		ret = -EADDRINUSE;
	} else if (errno == ECONNREFUSED) {
		ret = unlink(path) ? sys_err(err, len, path, "unlink stale") : 0;
	} else {
		ret = sys_err(err, len, path, "probe");
	}
	close(fd);
	return ret;
}

/*
 * Bind, set group and mode, then listen: until listen() nobody can
 * connect, so the umask's mode is never usable.
 */
static int listen_socket(struct sm_server *s, char *err, size_t len)
{
	struct sockaddr_un a = { .sun_family = AF_UNIX };
	const char *path = s->path;
	struct stat st;
	int ret;

	if (strlen(path) >= sizeof(a.sun_path)) {
		snprintf(err, len, "%s: socket path longer than %zu bytes",
			 path, sizeof(a.sun_path) - 1);
		return -ENAMETOOLONG;
	}
	strcpy(a.sun_path, path);
	ret = clear_stale(path, &a, err, len);
	if (ret)
		return ret;
	s->lfd = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (s->lfd < 0)
		return sys_err(err, len, path, "socket");
	if (bind(s->lfd, (struct sockaddr *)&a, sizeof(a)))
		return sys_err(err, len, path, "bind");
	if (stat(path, &st)) {
		ret = sys_err(err, len, path, "stat");
		goto out_unlink;
	}
	s->dev = st.st_dev;
	s->ino = st.st_ino;
	s->sock_uid = st.st_uid;
	s->sock_gid = st.st_gid;
	if (s->cfg.group != SM_NO_GROUP && chown(path, -1, s->cfg.group)) {
		ret = sys_err(err, len, path, "chgrp");
		goto out_unlink;
	}
	if (s->cfg.group != SM_NO_GROUP)
		s->sock_gid = s->cfg.group;
	if (chmod(path, s->cfg.mode)) {
		ret = sys_err(err, len, path, "chmod");
		goto out_unlink;
	}
	if (listen(s->lfd, BACKLOG)) {
		ret = sys_err(err, len, path, "listen");
		goto out_unlink;
	}
	return 0;
out_unlink:
	unlink(path);
	return ret;
}

void sm_server_tcp_name(struct sm_server *s, char *buf, size_t len)
{
	if (s->tfd < 0)
		snprintf(buf, len, "%s", "");
	else
		sm_tcp_name(&s->taddr, buf, len);
}

/*
 * The TCP socket, SO_REUSEADDR so a restart does not wait out the last
 * connections' TIME_WAIT; its bound address kept for port 0.
 */
static int listen_tcp(struct sm_server *s, const char *ep, char *err,
		      size_t len)
{
	struct sockaddr_storage a;
	socklen_t al;
	char what[SM_ADDR_LEN + 8];
	int one = 1;

	snprintf(what, sizeof(what), "tcp %s", ep);
	if (sm_tcp_parse(ep, &a, &al)) {
		snprintf(err, len, "%s: not [ADDR:]PORT with a numeric address and a port in 0..65535",
			 what);
		return -EINVAL;
	}
	s->tfd = socket(a.ss_family, SOCK_STREAM | SOCK_NONBLOCK |
			SOCK_CLOEXEC, 0);
	if (s->tfd < 0)
		return sys_err(err, len, what, "socket");
	if (setsockopt(s->tfd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one)))
		return sys_err(err, len, what, "SO_REUSEADDR");
	if (bind(s->tfd, (struct sockaddr *)&a, al))
		return sys_err(err, len, what, "bind");
	al = sizeof(s->taddr);
	if (getsockname(s->tfd, (struct sockaddr *)&s->taddr, &al))
		return sys_err(err, len, what, "getsockname");
	if (listen(s->tfd, BACKLOG))
		return sys_err(err, len, what, "listen");
	return 0;
}

/* Unlink the socket only if it is still the one this server made. */
static void remove_socket(struct sm_server *s)
{
	struct stat st;

	if (!stat(s->path, &st) && st.st_dev == s->dev && st.st_ino == s->ino)
		unlink(s->path);
}

static void server_free(struct sm_server *s)
{
	while (s->ncl)
		drop(s, s->ncl - 1);
	if (s->lfd >= 0)
		close(s->lfd);
	if (s->tfd >= 0)
		close(s->tfd);
	if (s->efd >= 0)
		close(s->efd);
	sm_munge_stop(s->munge);
	pthread_mutex_destroy(&s->lock);
	free(s->cl);
	free(s->pfd);
	free(s->pub);
	free(s->path);
	free(s);
}

static void set_defaults(struct sm_server_config *c)
{
	if (!c->max_line)
		c->max_line = SM_MAX_LINE_DEFAULT;
	if (!c->max_out)
		c->max_out = SM_MAX_OUT_DEFAULT;
	if (!c->max_clients)
		c->max_clients = SM_MAX_CLIENTS_DEFAULT;
	if (c->line_ms <= 0)
		c->line_ms = SM_LINE_MS_DEFAULT;
	if (c->idle_ms <= 0)
		c->idle_ms = SM_IDLE_MS_DEFAULT;
	if (c->busy_log_ms <= 0)
		c->busy_log_ms = SM_BUSY_LOG_MS_DEFAULT;
	if (!c->mode)
		c->mode = SM_SOCKET_MODE;
}

int sm_server_start(const struct sm_server_config *cfg,
		    struct sm_server **out, char *err, size_t len)
{
	struct sm_server *s;
	sigset_t all, old;
	int ret;

	if (!cfg->path || !cfg->handler) {
		snprintf(err, len, "server: no socket path or no handler");
		return -EINVAL;
	}
	s = calloc(1, sizeof(*s));
	if (!s)
		goto out_nomem;
	s->cfg = *cfg;
	set_defaults(&s->cfg);
	s->lfd = s->efd = s->tfd = -1;
	pthread_mutex_init(&s->lock, NULL);
	s->path = strdup(cfg->path);
	s->cl = calloc(NCLASSES * s->cfg.max_clients, sizeof(*s->cl));
	s->pfd = calloc(NCLASSES * s->cfg.max_clients + NFIXED,
			sizeof(*s->pfd));
	if (!s->path || !s->cl || !s->pfd)
		goto out_nomem;
	s->efd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	if (s->efd < 0) {
		ret = sys_err(err, len, cfg->path, "eventfd");
		goto out_free;
	}
	/* TCP first: its failure leaves no socket file behind */
	if (cfg->tcp && (ret = listen_tcp(s, cfg->tcp, err, len)))
		goto out_free;
	ret = listen_socket(s, err, len);
	if (ret)
		goto out_free;
	/* signals stay with the SM's own threads */
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	*out = s;
	ret = cfg->tcp ? sm_munge_start(cfg->munge_socket, decoded, s,
					&s->munge) : 0;
	if (!ret)
		ret = -pthread_create(&s->thread, NULL, run, s);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (ret) {
		*out = NULL;
		snprintf(err, len, "%s: thread: %s", cfg->path, strerror(-ret));
		remove_socket(s);
		goto out_free;
	}
	return 0;
out_nomem:
	snprintf(err, len, "%s: out of memory", cfg->path);
	ret = -ENOMEM;
out_free:
	if (s)
		server_free(s);
	return ret;
}

void sm_server_stop(struct sm_server *s)
{
	if (!s)
		return;
	pthread_mutex_lock(&s->lock);
	s->stop = true;
	pthread_mutex_unlock(&s->lock);
	wake(s);
	pthread_join(s->thread, NULL);
	/* decodes under way post to clients that are still there */
	sm_munge_stop(s->munge);
	s->munge = NULL;
	remove_socket(s);
	server_free(s);
}
