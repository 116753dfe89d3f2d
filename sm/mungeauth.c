// SPDX-License-Identifier: MIT
/*
 * libmunge for the protocol: the client's envelope, and a small pool of
 * decoder threads fed by a queue the server's clients bound (one request
 * of each waits at a time).
 */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <munge.h>
#include <nettle/sha2.h>

#include "mungeauth.h"
#include "proto.h"

/* munged itself serves with a few threads: more would only queue there */
#define DECODERS 4
#define SEEN_BUCKETS 64		/* to start with; doubled as it fills */
#define SEEN_TTL_UNKNOWN 3600	/* munged's longest TTL by default */
#define B64 "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"

/* A credential decoded before, kept until it expires. */
struct seen {
	uint8_t digest[SHA256_DIGEST_SIZE];
	time_t until;
	struct seen *next;
};

struct job {
	uint64_t ticket;
	char *cred;
	struct job *next;
};

struct sm_munge {
	char *socket;		/* NULL: libmunge's default */
	sm_munge_done_fn done;
	void *ctx;
	pthread_mutex_t lock;	/* the queue and stop */
	pthread_cond_t cv;
	struct job *head, **tail;
	bool stop;
	unsigned int nthreads;
	pthread_t th[DECODERS];
	/*
	 * The credentials decoded, as long as munged could take them: its
	 * own replay cache is lost when it restarts.  Under seen_lock.
	 */
	pthread_mutex_t seen_lock;
	struct seen **seen;
	size_t nbuckets, nseen;
	time_t pruned;		/* when the expired ones last went */
};

size_t sm_munge_line_max(size_t n)
{
	/* base64 of payload + header (< 256 bytes), the JSON around it */
	return (n + 256 + 2) / 3 * 4 + 64;
}

bool sm_munge_envelope(json_object *req)
{
	return !strcmp(sm_proto_op(req), SM_MUNGE_OP);
}

/* A context asking munged at socket, or NULL (out of memory). */
static munge_ctx_t context(const char *socket)
{
	munge_ctx_t ctx = munge_ctx_create();

	if (ctx && socket && *socket &&
	    munge_ctx_set(ctx, MUNGE_OPT_SOCKET, socket) != EMUNGE_SUCCESS) {
		munge_ctx_destroy(ctx);
		return NULL;
	}
	return ctx;
}

/* munge's own message for e, the context's when it has a fuller one. */
static const char *why(munge_ctx_t ctx, munge_err_t e)
{
	const char *s = ctx ? munge_ctx_strerror(ctx) : NULL;

	return s ? s : munge_strerror(e);
}

static json_object *envelope(const char *cred)
{
	json_object *o = json_object_new_object();

	if (!o || sm_json_add(o, "op", json_object_new_string(SM_MUNGE_OP)) ||
	    sm_json_add(o, "cred", json_object_new_string(cred))) {
		json_object_put(o);
		return NULL;
	}
	return o;
}

int sm_munge_wrap(const char *socket, const char *line, size_t n,
		  char **out, size_t *outn, char *err, size_t len)
{
	munge_ctx_t ctx = context(socket);
	json_object *env = NULL;
	char *cred = NULL;
	munge_err_t e;
	int ret = -ENOMEM;

	*out = NULL;
	if (!ctx)
		goto out_nomem;
	if (n > INT32_MAX) {
		snprintf(err, len, "MUNGE: a request of %zu bytes is too long",
			 n);
		ret = -EACCES;
		goto out;
	}
	e = munge_encode(&cred, ctx, line, (int)n);
	if (e == EMUNGE_NO_MEMORY)
		goto out_nomem;
	if (e != EMUNGE_SUCCESS) {
		snprintf(err, len, "MUNGE: %s", why(ctx, e));
		ret = -EACCES;
		goto out;
	}
	env = envelope(cred);
	*out = env ? sm_proto_line(env, outn) : NULL;
	if (!*out)
		goto out_nomem;
	ret = 0;
	goto out;
out_nomem:
	snprintf(err, len, "MUNGE: out of memory");
out:
	json_object_put(env);
	free(cred);
	if (ctx)
		munge_ctx_destroy(ctx);
	return ret;
}

void sm_munge_cred_free(struct sm_munge_cred *c)
{
	if (!c)
		return;
	free(c->payload);
	free(c);
}

/*
 * What the credential's fault is (refused), against what is munged's or
 * this host's (munged down, out of memory).
 */
static bool refused(munge_err_t e)
{
	switch (e) {
	case EMUNGE_SNAFU:
	case EMUNGE_NO_MEMORY:
	case EMUNGE_SOCKET:
	case EMUNGE_TIMEOUT:
		return false;
	default:
		return true;
	}
}

static void decode(munge_ctx_t ctx, const char *cred,
		   struct sm_munge_cred *c)
{
	void *buf = NULL;
	int n = 0;
	munge_err_t e;

	if (!ctx) {
		c->status = -EIO;
		snprintf(c->msg, sizeof(c->msg), "out of memory");
		return;
	}
	e = munge_decode(cred, ctx, &buf, &n, &c->uid, &c->gid);
	if (e == EMUNGE_SUCCESS) {
		c->payload = buf;
		c->len = n > 0 ? (size_t)n : 0;
		return;
	}
	/* replayed and expired credentials come with their payload */
	free(buf);
	c->status = refused(e) ? -EACCES : -EIO;
	snprintf(c->msg, sizeof(c->msg), "%s", why(ctx, e));
}

/*
 * What identifies a credential whatever its spelling: munged skips
 * whitespace and '=' in the base64 between "MUNGE:" and ':', and the
 * unused low bits of a last partial character; so does the digest.
 */
static void cred_digest(const char *cred, uint8_t *d)
{
	const char *p = strstr(cred, "MUNGE:"), *x;
	struct sha256_ctx h;
	size_t n = 0;
	char last = 0;

	sha256_init(&h);
	for (p = p ? p + 6 : cred; *p && *p != ':'; p++) {
		if (!strchr(B64, *p))
			continue;
		if (last)
			sha256_update(&h, 1, (const uint8_t *)&last);
		last = *p;
		n++;
	}
	if (last && (n % 4 == 2 || n % 4 == 3)) {
		/* 2 (of 6) bits used after 2 characters, 4 after 3 */
		x = strchr(B64, last);
		last = B64[(x - B64) & (n % 4 == 2 ? 0x30 : 0x3c)];
	}
	if (last)
		sha256_update(&h, 1, (const uint8_t *)&last);
	sha256_digest(&h, SHA256_DIGEST_SIZE, d);
}

static size_t bucket(const struct sm_munge *m, const uint8_t *d)
{
	size_t k;

	memcpy(&k, d, sizeof(k));
	return k & (m->nbuckets - 1);
}

/* Drop the credentials munged would refuse as expired by now (all). */
static void prune(struct sm_munge *m, time_t now, bool all)
{
	struct seen **pp, *e;
	size_t i;

	m->pruned = now;
	for (i = 0; i < m->nbuckets; i++) {
		for (pp = &m->seen[i]; (e = *pp);) {
			if (!all && e->until >= now) {
				pp = &e->next;
				continue;
			}
			*pp = e->next;
			free(e);
			m->nseen--;
		}
	}
}

/* Twice the buckets; -ENOMEM leaves the table as it was. */
static int grow(struct sm_munge *m)
{
	size_t n = m->nbuckets ? 2 * m->nbuckets : SEEN_BUCKETS, i, old;
	struct seen **b = calloc(n, sizeof(*b)), **ob = m->seen, *e;

	if (!b)
		return -ENOMEM;
	old = m->nbuckets;
	m->seen = b;
	m->nbuckets = n;
	for (i = 0; i < old; i++) {
		while ((e = ob[i])) {
			ob[i] = e->next;
			e->next = b[bucket(m, e->digest)];
			b[bucket(m, e->digest)] = e;
		}
	}
	free(ob);
	return 0;
}

/*
 * Record credential d, valid until until: 0; -EACCES when it came
 * before; -ENOMEM.
 */
static int first_use(struct sm_munge *m, const uint8_t *d, time_t until,
		     time_t now)
{
	struct seen *e;
	int ret = 0;

	pthread_mutex_lock(&m->seen_lock);
	if (now != m->pruned)
		prune(m, now, false);
	/* no room to grow: longer chains, still right */
	if (m->nseen >= 2 * m->nbuckets)
		grow(m);
	for (e = m->seen[bucket(m, d)]; e && !ret; e = e->next)
		if (!memcmp(e->digest, d, sizeof(e->digest)))
			ret = -EACCES;
	if (ret)
		goto out;
	e = malloc(sizeof(*e));
	if (!e) {
		ret = -ENOMEM;
		goto out;
	}
	memcpy(e->digest, d, sizeof(e->digest));
	e->until = until;
	e->next = m->seen[bucket(m, d)];
	m->seen[bucket(m, d)] = e;
	m->nseen++;
out:
	pthread_mutex_unlock(&m->seen_lock);
	return ret;
}

/*
 * A credential munged took is refused when this server took it before
 * (munged restarted meanwhile); kept until munged would find it expired
 * by now, whatever the encoding host's clock said.
 */
static void once(struct sm_munge *m, munge_ctx_t ctx, const char *cred,
		 struct sm_munge_cred *c)
{
	uint8_t d[SHA256_DIGEST_SIZE];
	time_t now = time(NULL), enc = 0;
	int ttl = 0, ret;

	if (munge_ctx_get(ctx, MUNGE_OPT_ENCODE_TIME, &enc) != EMUNGE_SUCCESS ||
	    munge_ctx_get(ctx, MUNGE_OPT_TTL, &ttl) != EMUNGE_SUCCESS) {
		enc = now;
		ttl = SEEN_TTL_UNKNOWN;
	}
	cred_digest(cred, d);
	ret = first_use(m, d, (enc > now ? enc : now) + ttl + 1, now);
	if (!ret)
		return;
	free(c->payload);
	c->payload = NULL;
	c->len = 0;
	c->status = ret == -EACCES ? -EACCES : -EIO;
	snprintf(c->msg, sizeof(c->msg), "%s", ret == -EACCES ?
		 "Replayed credential (this server took it before)" :
		 "out of memory");
}

/* The next job, or NULL once stopped. */
static struct job *take(struct sm_munge *m)
{
	struct job *j;

	pthread_mutex_lock(&m->lock);
	while (!m->stop && !m->head)
		pthread_cond_wait(&m->cv, &m->lock);
	j = m->stop ? NULL : m->head;
	if (j) {
		m->head = j->next;
		if (!m->head)
			m->tail = &m->head;
	}
	pthread_mutex_unlock(&m->lock);
	return j;
}

static void *decoder(void *arg)
{
	struct sm_munge *m = arg;
	struct sm_munge_cred *c;
	munge_ctx_t ctx;
	struct job *j;

	while ((j = take(m))) {
		/* a context per credential: decode fills it with the cred's */
		ctx = context(m->socket);
		c = calloc(1, sizeof(*c));
		if (c) {
			c->ticket = j->ticket;
			decode(ctx, j->cred, c);
			if (!c->status)
				once(m, ctx, j->cred, c);
			m->done(m->ctx, c);
		}
		if (ctx)
			munge_ctx_destroy(ctx);
		free(j->cred);
		free(j);
	}
	return NULL;
}

int sm_munge_submit(struct sm_munge *m, uint64_t ticket, const char *cred)
{
	struct job *j = calloc(1, sizeof(*j));

	if (!j || !(j->cred = strdup(cred))) {
		free(j);
		return -ENOMEM;
	}
	j->ticket = ticket;
	pthread_mutex_lock(&m->lock);
	*m->tail = j;
	m->tail = &j->next;
	pthread_cond_signal(&m->cv);
	pthread_mutex_unlock(&m->lock);
	return 0;
}

int sm_munge_start(const char *socket, sm_munge_done_fn done, void *ctx,
		   struct sm_munge **out)
{
	struct sm_munge *m = calloc(1, sizeof(*m));
	int ret = 0;

	*out = NULL;
	if (!m)
		return -ENOMEM;
	m->done = done;
	m->ctx = ctx;
	m->tail = &m->head;
	pthread_mutex_init(&m->lock, NULL);
	pthread_mutex_init(&m->seen_lock, NULL);
	pthread_cond_init(&m->cv, NULL);
	if ((socket && *socket && !(m->socket = strdup(socket))) || grow(m))
		ret = -ENOMEM;
	while (!ret && m->nthreads < DECODERS) {
		ret = -pthread_create(&m->th[m->nthreads], NULL, decoder, m);
		m->nthreads += !ret;
	}
	if (ret) {
		sm_munge_stop(m);
		return ret;
	}
	*out = m;
	return 0;
}

void sm_munge_stop(struct sm_munge *m)
{
	struct job *j;
	unsigned int i;

	if (!m)
		return;
	pthread_mutex_lock(&m->lock);
	m->stop = true;
	pthread_cond_broadcast(&m->cv);
	pthread_mutex_unlock(&m->lock);
	for (i = 0; i < m->nthreads; i++)
		pthread_join(m->th[i], NULL);
	while ((j = m->head)) {
		m->head = j->next;
		free(j->cred);
		free(j);
	}
	prune(m, 0, true);
	free(m->seen);
	pthread_cond_destroy(&m->cv);
	pthread_mutex_destroy(&m->lock);
	pthread_mutex_destroy(&m->seen_lock);
	free(m->socket);
	free(m);
}
