// SPDX-License-Identifier: MIT
/* The commit thread: one fdatasync for every reply waiting, then post them. */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stdlib.h>

#include "commit.h"

struct waiter {
	struct waiter *next;
	struct sm_server *srv;
	uint64_t ticket;
	json_object *reply;	/* owned */
};

/* lock guards the queue and the flags; the thread owns a batch taken. */
struct poold_commit {
	struct pool *pool;
	void (*fail)(void *ctx, const char *msg);
	void *ctx;
	pthread_t thread;
	pthread_mutex_t lock;
	pthread_cond_t cond;
	struct waiter *head, **tail;
	bool stop, failed;
};

/* Post the batch: its replies when the sync went well, else errors. */
static void post(struct poold_commit *c, struct waiter *w, int ret,
		 const char *err)
{
	struct waiter *next;

	if (ret && !c->failed) {
		c->failed = true;
		c->fail(c->ctx, err);
	}
	for (; w; w = next) {
		next = w->next;
		if (ret) {
			json_object_put(w->reply);
			w->reply = sm_reply_error(SM_ERR_INTERNAL, "journal: %s",
						  err);
		}
		sm_server_answer(w->srv, w->ticket, w->reply);
		free(w);
	}
}

static void *run(void *arg)
{
	struct poold_commit *c = arg;
	struct waiter *batch;
	char err[512];
	int ret;

	pthread_mutex_lock(&c->lock);
	for (;;) {
		while (!c->head && !c->stop)
			pthread_cond_wait(&c->cond, &c->lock);
		if (!c->head)
			break;
		/* all that queued while the last sync ran: one sync for all */
		batch = c->head;
		c->head = NULL;
		c->tail = &c->head;
		pthread_mutex_unlock(&c->lock);
		ret = pool_sync(c->pool, err, sizeof(err));
		post(c, batch, ret, err);
		pthread_mutex_lock(&c->lock);
	}
	pthread_mutex_unlock(&c->lock);
	return NULL;
}

int poold_commit_start(struct pool *pool,
		       void (*fail)(void *ctx, const char *msg), void *ctx,
		       struct poold_commit **out)
{
	struct poold_commit *c = calloc(1, sizeof(*c));
	sigset_t all, old;
	int ret;

	*out = NULL;
	if (!c)
		return -ENOMEM;
	c->pool = pool;
	c->fail = fail;
	c->ctx = ctx;
	c->tail = &c->head;
	pthread_mutex_init(&c->lock, NULL);
	pthread_cond_init(&c->cond, NULL);
	/* signals stay with the main thread */
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	ret = -pthread_create(&c->thread, NULL, run, c);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (ret) {
		pthread_cond_destroy(&c->cond);
		pthread_mutex_destroy(&c->lock);
		free(c);
		return ret;
	}
	*out = c;
	return 0;
}

int poold_commit_queue(struct poold_commit *c, struct sm_server *srv,
		       uint64_t ticket, json_object *reply)
{
	struct waiter *w = malloc(sizeof(*w));
	int ret = 0;

	if (!w)
		return -ENOMEM;
	*w = (struct waiter){ .srv = srv, .ticket = ticket, .reply = reply };
	pthread_mutex_lock(&c->lock);
	if (c->stop) {
		ret = -ESHUTDOWN;
	} else {
		*c->tail = w;
		c->tail = &w->next;
		pthread_cond_signal(&c->cond);
	}
	pthread_mutex_unlock(&c->lock);
	if (ret)
		free(w);
	return ret;
}

void poold_commit_stop(struct poold_commit *c)
{
	bool join;

	if (!c)
		return;
	pthread_mutex_lock(&c->lock);
	join = !c->stop;
	c->stop = true;
	pthread_cond_signal(&c->cond);
	pthread_mutex_unlock(&c->lock);
	if (join)
		pthread_join(c->thread, NULL);
}

void poold_commit_free(struct poold_commit *c)
{
	if (!c)
		return;
	poold_commit_stop(c);
	pthread_cond_destroy(&c->cond);
	pthread_mutex_destroy(&c->lock);
	free(c);
}
