// SPDX-License-Identifier: MIT
/*
 * MADs in flight through one umad agent: a window of requests, answers
 * matched by transaction ID, retries on a doubling wait.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <infiniband/mad.h>
#include <infiniband/umad.h>

#include "lfwin.h"
#include "topology/monotime.h"

int lf_win_init(struct lf_win *w, int port, int agent, unsigned int window,
		unsigned int wait_ms, unsigned int tries)
{
	memset(w, 0, sizeof(*w));
	w->port = port;
	w->agent = agent;
	w->window = window < 1 ? 1 : window > LF_WIN_MAX ? LF_WIN_MAX : window;
	w->wait_ms = wait_ms;
	w->tries = tries < 1 ? 1 : tries;
	w->buf_cap = IB_MAD_SIZE;
	w->buf = umad_alloc(1, umad_size() + w->buf_cap);
	w->req = umad_alloc(1, umad_size() + IB_MAD_SIZE);
	if (!w->buf || !w->req) {
		lf_win_release(w);
		return -ENOMEM;
	}
	return 0;
}

/* Read one answer, growing the buffer for a long one (ENOSPC). */
static int receive(struct lf_win *w, int *len, int ms)
{
	uint8_t *b;
	int ret;

	for (;;) {
		*len = w->buf_cap;
		ret = umad_recv(w->port, w->buf, len, ms);
		if (ret != -ENOSPC)
			return ret;
		b = umad_alloc(1, umad_size() + *len);
		if (!b)
			return -ENOMEM;
		umad_free(w->buf);
		w->buf = b;
		w->buf_cap = *len;
	}
}

void lf_win_release(struct lf_win *w)
{
	int n;

	while (w->stale && w->buf && receive(w, &n, w->wait_ms) >= 0)
		;
	w->stale = false;
	umad_free(w->buf);
	umad_free(w->req);
	w->buf = NULL;
	w->req = NULL;
}

static int send_slot(struct lf_win *w, const struct lf_win_ops *ops,
		     struct lf_win_slot *sl, char *err, size_t len)
{
	uint64_t trid = mad_trid();
	int wait, ret;

	memset(w->req, 0, umad_size() + IB_MAD_SIZE);
	ret = ops->build(ops->ctx, sl->tag, trid, w->req, err, len);
	if (ret)
		return ret;
	sl->trid = (uint32_t)trid;
	wait = w->wait_ms << sl->tries++;
	sl->due = mono_ms() + wait;
	/* no kernel retries: a retry here gets a new TID and a longer wait */
	if (umad_send(w->port, w->agent, w->req, IB_MAD_SIZE, wait, 0) < 0) {
		snprintf(err, len, "cannot send a MAD: %s", strerror(errno));
		return -EIO;
	}
	return 0;
}

/* Fill the window from ops->next; *more false once it has no more. */
static int fill(struct lf_win *w, const struct lf_win_ops *ops, bool *more,
		unsigned int *busy, char *err, size_t len)
{
	unsigned int i;
	int ret;

	for (i = 0; i < w->window && *more; i++) {
		if (w->slot[i].used)
			continue;
		memset(&w->slot[i], 0, sizeof(w->slot[i]));
		if (!ops->next(ops->ctx, &w->slot[i].tag)) {
			*more = false;
			break;
		}
		w->slot[i].used = true;
		(*busy)++;
		ret = send_slot(w, ops, &w->slot[i], err, len);
		if (ret)
			return ret;
	}
	return 0;
}

/*
 * Ask again the request only, or with only NULL those whose wait is over;
 * give up after the tries.
 */
static int resend(struct lf_win *w, const struct lf_win_ops *ops,
		  struct lf_win_slot *only, char *err, size_t len)
{
	uint64_t now = mono_ms();
	unsigned int i;
	int ret;

	for (i = 0; i < w->window; i++) {
		struct lf_win_slot *sl = &w->slot[i];

		if (!sl->used || (only && sl != only) ||
		    (!only && sl->due > now))
			continue;
		if (sl->tries >= w->tries) {
			ops->lost(ops->ctx, sl->tag, err, len);
			return -ETIMEDOUT;
		}
		w->resent++;
		ret = send_slot(w, ops, sl, err, len);
		if (ret)
			return ret;
	}
	return 0;
}

static struct lf_win_slot *slot_of(struct lf_win *w, uint8_t *mad)
{
	uint32_t trid = mad_get_field64(mad, 0, IB_MAD_TRID_F);
	unsigned int i;

	for (i = 0; i < w->window; i++)
		if (w->slot[i].used && w->slot[i].trid == trid)
			return &w->slot[i];
	return NULL;
}

/* One answer read into w->buf: its request done, or asked again. */
static int answer(struct lf_win *w, const struct lf_win_ops *ops, int n,
		  unsigned int *busy, char *err, size_t len)
{
	uint8_t *mad = umad_get_mad(w->buf);
	struct lf_win_slot *sl = slot_of(w, mad);
	int ret;

	if (!sl)
		return 0;	/* an answer to a request asked again */
	if (umad_status(w->buf))
		return resend(w, ops, sl, err, len);
	ret = ops->answer(ops->ctx, sl->tag, mad, n, err, len);
	if (ret == -EBUSY)
		return resend(w, ops, sl, err, len);
	sl->used = false;
	(*busy)--;
	return ret;
}

int lf_win_run(struct lf_win *w, const struct lf_win_ops *ops, char *err,
	       size_t len)
{
	unsigned int busy = 0;
	bool more = true;
	int ret, n;

	memset(w->slot, 0, sizeof(w->slot));
	ret = fill(w, ops, &more, &busy, err, len);
	while (!ret && busy) {
		/*
		 * Requests past their wait are asked again only once nothing
		 * came for a whole wait: a server answering one at a time,
		 * slower than the window asks, is not asked everything again
		 * while it works.  A lost one on hardware comes back sooner,
		 * the kernel's timeout status on it.
		 */
		ret = receive(w, &n, w->wait_ms);
		if (ret == -ETIMEDOUT || ret == -EWOULDBLOCK)
			ret = resend(w, ops, NULL, err, len);
		else if (ret == -ENOMEM)
			snprintf(err, len, "out of memory");
		else if (ret < 0)
			snprintf(err, len, "MAD receive: %s", strerror(-ret));
		else
			ret = answer(w, ops, n, &busy, err, len);
		if (!ret)
			ret = fill(w, ops, &more, &busy, err, len);
	}
	w->stale = busy;
	return ret;
}
