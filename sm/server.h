/* SPDX-License-Identifier: MIT */
/*
 * The Unix-socket server of the JSON-lines protocol, on its own thread,
 * that no client can stall, optionally on a TCP socket too (its client
 * is client.h).  Who may change state is decided from SO_PEERCRED, and
 * over TCP from the MUNGE credential a request may come in.
 */
#ifndef GPUAWARE_SERVER_H
#define GPUAWARE_SERVER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>
#include <sys/types.h>

#include "endpoint.h"
#include "proto.h"

#define SM_SOCKET_MODE 0660
#define SM_MAX_OUT_DEFAULT (1024 * 1024)
#define SM_MAX_CLIENTS_DEFAULT 32
#define SM_LINE_MS_DEFAULT 5000
#define SM_IDLE_MS_DEFAULT 60000
#define SM_BUSY_LOG_MS_DEFAULT 10000
#define SM_NO_GROUP ((gid_t)-1)
#define SM_NO_UID ((uid_t)-1)

/*
 * The connecting process's credentials, as the kernel saw them at
 * connect, and sm_peer_may_write() for the server's group, decided once
 * per connection; and the ticket of the request being handled.  A TCP
 * peer is remote: no credentials (pid 0, uid SM_NO_UID, gid SM_NO_GROUP,
 * may_write false), only its address; what it may do is the handler's
 * call.  A request that came in a MUNGE credential (mungeauth.h) is the
 * credential's: munge set, uid and gid its, may_write decided from them
 * as for a local peer, for that one request.
 */
struct sm_peer {
	pid_t pid;
	uid_t uid;
	gid_t gid;
	bool may_write;
	/*
	 * Whether it could open the Unix socket: a local peer did; a
	 * credential's uid as the socket's mode, owner and group would
	 * let it (sm_server_config mode); an anonymous TCP peer never.
	 */
	bool may_connect;
	bool remote;		/* came over TCP */
	bool munge;		/* remote, in a valid MUNGE credential */
	char addr[SM_ADDR_LEN];	/* remote: "ADDR:PORT", else "" */
	uint64_t ticket;	/* this request's, for SM_DEFERRED; never 0 */
};

/*
 * Whether the peer may change state: root, or a peer whose gid, or whose
 * uid's primary or supplementary groups (its passwd entry and
 * getgrouplist()), include gid.  SM_NO_GROUP: root only.  It may consult
 * NSS (and wait on LDAP); the server calls it once per connection.
 */
bool sm_peer_may_write(const struct sm_peer *p, gid_t gid);

/*
 * Called on the server thread for each request line that parsed (the
 * server answers parse errors itself).  It must not block: every client
 * waits while it runs.  It sets *reply to a new ok or error reply the
 * server consumes, and returns 0; a negative errno (any *reply dropped)
 * answers internal.  req is borrowed for the call.
 *
 * Or it returns SM_DEFERRED (any *reply dropped) and the reply comes
 * later: whoever holds p->ticket passes it to sm_server_answer(), from
 * any thread, even before the handler returns.  Until then the server
 * reads nothing more from that client (lines it already sent wait in
 * its buffer), so replies keep the order of the requests, and the
 * client's idle and line deadlines do not run.  A Unix client gone
 * meanwhile frees its slot at once; a TCP one when the reply is sent
 * (its FIN may be a half-close that still wants the reply).
 */
typedef int (*sm_handler_fn)(void *ctx, const struct sm_peer *p,
			     json_object *req, json_object **reply);

#define SM_DEFERRED 1

/*
 * Zero limits take the SM_*_DEFAULT values; group is always applied
 * (SM_NO_GROUP to leave the socket's group alone).
 */
struct sm_server_config {
	const char *path;	/* socket path, copied */
	const char *tcp;	/* "[ADDR:]PORT" to listen on too, NULL: not */
	gid_t group;		/* socket's group, SM_NO_GROUP: leave it */
	mode_t mode;		/* socket's mode, 0: SM_SOCKET_MODE */
	size_t max_line;	/* request bytes, '\n' excluded */
	size_t max_out;		/* unsent reply bytes a client may hold */
	unsigned int max_clients;	/* per class of peer */
	int line_ms;		/* a started request line must end within it */
	int idle_ms;		/* a client moving only blanks is closed after it */
	int busy_log_ms;	/* one busy line per interval, with a count */
	sm_handler_fn handler;
	void *ctx;		/* for handler and log */
	/*
	 * Optional: one line on each client closed by force (busy ones: the
	 * first per busy_log_ms, then a count of the others); server thread.
	 */
	void (*log)(void *ctx, const char *msg);
	/*
	 * Optional, TCP only: a connection whose first byte is an upper-case
	 * letter is an HTTP request (a JSON line starts with '{' or a
	 * blank), answered once and closed.  For GET, http(ctx, ticket,
	 * path, &body, &len) returns 0 with a new malloc'ed *body of *len
	 * bytes, sent as text/plain (Prometheus' text format, version
	 * 0.0.4); -ENOENT or another method answers 404, other errors 500.
	 * Server thread, must not block: SM_DEFERRED has the response
	 * wait for sm_server_answer_http() with ticket, as a handler's
	 * deferred reply does.  NULL: every HTTP request is a 404.
	 */
	int (*http)(void *ctx, uint64_t ticket, const char *path, char **body,
		    size_t *len);
	/*
	 * With tcp: munged's socket for the credentials TCP requests may
	 * come in (NULL: libmunge's default, /run/munge/munge.socket.2).
	 */
	const char *munge_socket;
};

/* Counters since start (each closed client counts in one reason). */
struct sm_server_stats {
	uint64_t accepted;	/* connections served (busy ones excluded) */
	uint64_t requests;	/* lines answered */
	uint64_t busy;		/* refused: their class had max_clients */
	uint64_t evicted;	/* anonymous TCP ones closed for a newcomer */
	uint64_t too_long;	/* closed after a too_long line */
	uint64_t timeouts;	/* closed at the line or idle deadline */
	uint64_t overflows;	/* closed with max_out bytes unread */
	uint64_t abandoned;	/* deferred replies whose client had gone */
	uint64_t munge_ok;	/* TCP requests in a valid MUNGE credential */
	uint64_t munge_refused;	/* credentials refused (or munged down) */
	uint64_t published;	/* lines sm_server_publish() sent */
	uint64_t watchers;	/* clients that became watchers */
	unsigned int connected;	/* clients holding a slot now */
};

struct sm_server;

/*
 * Create the socket (mode cfg->mode whatever the umask, group
 * cfg->group; a stale socket file nobody listens on is replaced, anything
 * else at path is an error), the TCP one when cfg->tcp is set (port 0:
 * one the kernel picks, see sm_server_tcp_name()), and start the server
 * thread.  Both sockets share the limits; max_clients is per class of
 * peer (those that may write, local ones that may not, TCP ones), so no
 * class takes another's slots; when the TCP ones are full, a newcomer
 * takes the slot of the longest connected TCP client that showed no
 * valid MUNGE credential and is owed no reply (evicted: busy, or 503 to
 * an unfinished HTTP header), so anonymous peers never keep an
 * authenticated one out.  Returns 0 with *out set, or a negative
 * errno with err saying what failed.  *out is set before the thread
 * starts, so a handler may read the server from it.
 */
int sm_server_start(const struct sm_server_config *cfg,
		    struct sm_server **out, char *err, size_t len);

/*
 * Wake the thread, join it, close every client (those waiting for a
 * deferred reply without it), remove the socket, free.  Nobody may call
 * sm_server_answer() once it has begun.
 */
void sm_server_stop(struct sm_server *s);

/*
 * The reply (consumed; NULL answers internal) to the deferred request
 * ticket, from any thread: the server thread sends it and goes on with
 * that client's next lines.  When the client has gone meanwhile, or the
 * ticket is not deferred, the reply is dropped (and counted abandoned).
 */
void sm_server_answer(struct sm_server *s, uint64_t ticket,
		      json_object *reply);

/*
 * The deferred HTTP response to ticket, from any thread: ret and body
 * (malloc'ed, consumed) as http() would have returned them.  Dropped
 * and counted abandoned when the client has gone.
 */
void sm_server_answer_http(struct sm_server *s, uint64_t ticket, int ret,
			   char *body, size_t len);

void sm_server_stats(struct sm_server *s, struct sm_server_stats *st);

/*
 * From the handler, on the server thread: the client whose request
 * ticket it handles becomes a watcher.  Its reply goes first, then every
 * line sm_server_publish() sends that filter passes; its idle deadline
 * stops.  filter (owned from here on; NULL: every line) is an array of
 * clauses, objects whose members are arrays of strings: a line passes
 * when, in each clause, one member's array holds the line's value of
 * that member (as a string; {"event":["lost"]} or {"ticket":["3"],
 * "id":["7"]}).  A watcher with max_out bytes unread when a line comes
 * is dropped, never waited for.  0, or -ENOENT when no client has that
 * ticket.
 */
int sm_server_watch(struct sm_server *s, uint64_t ticket,
		    json_object *filter);

/*
 * ev (borrowed) as one line to every watcher, from any thread; nothing
 * when there is none.  0 or -ENOMEM.
 */
int sm_server_publish(struct sm_server *s, json_object *ev);

/* The TCP socket's bound "ADDR:PORT" into buf, "" without one. */
void sm_server_tcp_name(struct sm_server *s, char *buf, size_t len);

#endif
