// SPDX-License-Identifier: MIT
/*
 * SA PathRecords in bulk: GetTables and Gets through a umad agent of our
 * own, a window of them in flight, answers matched by transaction ID.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <infiniband/mad.h>
#include <infiniband/umad.h>

#include "lfsa.h"
#include "topology/monotime.h"

#define SA_CLASS_VERSION 2
#define RMPP_VERSION 1
#define PR_REC_SIZE 64		/* PathRecord bytes (IBA 1.3 table 209) */

/* RMPP header flags; a DATA payload length counts the SA header's tail. */
#define RMPP_ACTIVE 0x01
#define RMPP_FIRST 0x02
#define RMPP_LAST 0x04
#define RMPP_HDR_END 36
#define PAY_EXTRA (IB_SA_DATA_OFFS - RMPP_HDR_END)

/*
 * A query's first wait for its answer; each retry waits twice as long, so
 * an SA that answers one query at a time, slower than the window asks,
 * is not asked everything again while it works.
 */
#define WAIT_MS 1000
#define TRIES 4
#define MAD_STATUS_BUSY 0x0001
#define WINDOW_MAX 64

/* A query in flight. */
struct slot {
	bool used;
	struct lf_sa_query query;
	uint32_t trid;		/* the low half: the kernel owns the high */
	unsigned int tries;
	uint64_t due;		/* CLOCK_MONOTONIC ms its wait ends */
};

/* One agent, owned by its opener; buf grows to the largest answer. */
struct lf_sa {
	int port;
	int agent;
	ib_portid_t sa_addr;
	unsigned int window;
	struct slot slot[WINDOW_MAX];
	uint8_t *buf;		/* umad header, then the answer */
	int buf_cap;		/* MAD bytes buf holds */
	uint8_t *req;		/* umad header, then one MAD */
	bool stale;		/* a run ended with answers still to come */
};

int lf_sa_open(struct lf_sa **out, struct lf *v, unsigned int window,
	       char *err, size_t len)
{
	struct lf_sa *s = NULL;
	unsigned int lid;
	int ret = -ENOMEM;

	if (lf_sm_lid(v, &lid)) {
		snprintf(err, len, "no SM LID on the local port: is an SM running?");
		return -EIO;
	}
	s = calloc(1, sizeof(*s));
	if (!s)
		goto out_mem;
	s->port = -1;
	s->window = window < 1 ? 1 : window > WINDOW_MAX ? WINDOW_MAX : window;
	s->buf_cap = IB_MAD_SIZE;
	s->buf = umad_alloc(1, umad_size() + s->buf_cap);
	s->req = umad_alloc(1, umad_size() + IB_MAD_SIZE);
	if (!s->buf || !s->req)
		goto out_mem;
	s->sa_addr.lid = lid;
	s->sa_addr.qp = 1;
	s->sa_addr.qkey = IB_DEFAULT_QP1_QKEY;
	ret = umad_open_port(lf_ca_name(v), lf_local_port(v));
	if (ret < 0) {
		snprintf(err, len, "cannot open the local port for SA queries: %s",
			 strerror(-ret));
		ret = -ENODEV;
		goto out;
	}
	s->port = ret;
	s->agent = umad_register(s->port, IB_SA_CLASS, SA_CLASS_VERSION,
				 RMPP_VERSION, NULL);
	if (s->agent < 0) {
		snprintf(err, len, "cannot register an SA agent: %s",
			 strerror(-s->agent));
		ret = -EIO;
		goto out;
	}
	*out = s;
	return 0;
out_mem:
	snprintf(err, len, "out of memory");
out:
	lf_sa_close(s);
	return ret;
}

static int receive(struct lf_sa *s, int *len);

void lf_sa_close(struct lf_sa *s)
{
	int n;

	if (!s)
		return;
	/*
	 * Read what is still coming first: ibsim's umad2sim deadlocks at
	 * exit when a MAD arrives while it tears its receiver down.
	 */
	while (s->stale && receive(s, &n) >= 0)
		;
	if (s->port >= 0)
		umad_close_port(s->port);
	umad_free(s->buf);
	umad_free(s->req);
	free(s);
}

/*
 * The record bytes of an answer.  The kernel hands on an RMPP answer whole
 * under its first segment's header (FIRST) with its exact length; over
 * several segments that header's PayloadLength cannot check it, for
 * Linux counts the SA header's tail once per segment in it.  A segment
 * passed on as it came lacks FIRST (umad2sim alone: OpenSM leaves the
 * RMPP header to the kernel) or, the first of several, fits in one MAD.
 */
static size_t rmpp_data(uint8_t *mad, size_t len)
{
	unsigned int flags = mad_get_field(mad, 0, IB_SA_RMPP_FLAGS_F);
	size_t pay = mad_get_field(mad, 0, IB_SA_RMPP_LEN_F);
	size_t data = len - IB_SA_DATA_OFFS;

	if (!(flags & RMPP_ACTIVE))
		return data;
	if (!(flags & RMPP_FIRST))
		return SIZE_MAX;
	if (!(flags & RMPP_LAST))
		return len > IB_MAD_SIZE ? data : SIZE_MAX;
	if (!pay)
		return data;
	/* one segment, maybe padded: the tail counted once */
	if (pay < PAY_EXTRA || pay - PAY_EXTRA > data)
		return SIZE_MAX;
	return pay - PAY_EXTRA;
}

int lf_sa_parse(const uint8_t *mad, size_t len,
		int (*fn)(void *ctx, unsigned int slid, unsigned int dlid,
			  const struct lf_path *p),
		void *ctx)
{
	uint8_t *m = (uint8_t *)mad;	/* mad_get_field takes no const */
	size_t data, rec, i, n;
	unsigned int s, d, st;
	struct lf_path p;
	int ret;

	if (len < IB_SA_DATA_OFFS ||
	    mad_get_field(m, 0, IB_MAD_MGMTCLASS_F) != IB_SA_CLASS ||
	    mad_get_field(m, 0, IB_MAD_ATTRID_F) != IB_SA_ATTR_PATHRECORD ||
	    !mad_get_field(m, 0, IB_MAD_RESPONSE_F))
		return -EPROTO;
	st = mad_get_field(m, 0, IB_MAD_STATUS_F);
	if (st & MAD_STATUS_BUSY)
		return -EBUSY;
	if (st)
		return -ENOENT;
	data = rmpp_data(m, len);
	if (data == SIZE_MAX)
		return -EMSGSIZE;
	rec = mad_get_field(m, 0, IB_SA_ATTROFFS_F) * 8;
	if (!rec)
		rec = PR_REC_SIZE;
	if (rec < PR_REC_SIZE)
		return -EPROTO;
	n = data / rec;
	/* a Get's answer: one record, in a MAD padded to its full size */
	if (n > 1 && !(mad_get_field(m, 0, IB_SA_RMPP_FLAGS_F) & RMPP_ACTIVE))
		n = 1;
	for (i = 0; i < n; i++) {
		lf_path_decode(mad + IB_SA_DATA_OFFS + i * rec, &s, &d, &p);
		ret = fn(ctx, s, d, &p);
		if (ret)
			return ret;
	}
	return n;
}

static int send_query(struct lf_sa *s, struct slot *sl, char *err,
		      size_t len)
{
	const struct lf_sa_query *q = &sl->query;
	uint8_t data[IB_SA_DATA_SIZE];
	ib_rpc_t rpc;
	uint64_t trid = mad_trid();
	int wait;

	memset(&rpc, 0, sizeof(rpc));
	memset(data, 0, sizeof(data));
	rpc.mgtclass = IB_SA_CLASS;
	rpc.method = q->dlid ? IB_MAD_METHOD_GET : IB_MAD_METHOD_GET_TABLE;
	rpc.attr.id = IB_SA_ATTR_PATHRECORD;
	rpc.mask = lf_path_encode(data, q->slid, q->dlid);
	rpc.datasz = IB_SA_DATA_SIZE;
	rpc.dataoffs = IB_SA_DATA_OFFS;
	rpc.trid = trid;
	memset(s->req, 0, umad_size() + IB_MAD_SIZE);
	if (mad_build_pkt(s->req, &rpc, &s->sa_addr, NULL, data) < 0) {
		snprintf(err, len, "cannot build a PathRecord query");
		return -EINVAL;
	}
	sl->trid = (uint32_t)trid;
	wait = WAIT_MS << sl->tries++;
	sl->due = mono_ms() + wait;
	if (umad_send(s->port, s->agent, s->req, IB_MAD_SIZE, wait, 0) < 0) {
		snprintf(err, len, "cannot send to the SA at LID %u",
			 s->sa_addr.lid);
		return -EIO;
	}
	return 0;
}

/* Fill the window from ops->next; *more false once it has no more. */
static int fill(struct lf_sa *s, const struct lf_sa_ops *ops, bool *more,
		unsigned int *busy, char *err, size_t len)
{
	unsigned int i;
	int ret;

	for (i = 0; i < s->window && *more; i++) {
		if (s->slot[i].used)
			continue;
		memset(&s->slot[i], 0, sizeof(s->slot[i]));
		if (!ops->next(ops->ctx, &s->slot[i].query)) {
			*more = false;
			break;
		}
		s->slot[i].used = true;
		(*busy)++;
		ret = send_query(s, &s->slot[i], err, len);
		if (ret)
			return ret;
	}
	return 0;
}

/*
 * Ask again the query only, or with only NULL those whose wait is over;
 * give up after TRIES.
 */
static int resend(struct lf_sa *s, struct slot *only, char *err, size_t len)
{
	uint64_t now = mono_ms();
	unsigned int i;
	int ret;

	for (i = 0; i < s->window; i++) {
		struct slot *sl = &s->slot[i];
		const struct lf_sa_query *q = &sl->query;

		if (!sl->used || (only && sl != only) ||
		    (!only && sl->due > now))
			continue;
		if (sl->tries >= TRIES) {
			if (q->dlid)
				snprintf(err, len, "PathRecord LID %u to LID %u from the SA at LID %u: %s",
					 q->slid, q->dlid, s->sa_addr.lid,
					 strerror(ETIMEDOUT));
			else
				snprintf(err, len, "PathRecord LID %u to every LID from the SA at LID %u: %s",
					 q->slid, s->sa_addr.lid,
					 strerror(ETIMEDOUT));
			return -ETIMEDOUT;
		}
		ret = send_query(s, sl, err, len);
		if (ret)
			return ret;
	}
	return 0;
}

static struct slot *slot_of(struct lf_sa *s, uint8_t *mad)
{
	uint32_t trid = mad_get_field64(mad, 0, IB_MAD_TRID_F);
	unsigned int i;

	for (i = 0; i < s->window; i++)
		if (s->slot[i].used && s->slot[i].trid == trid)
			return &s->slot[i];
	return NULL;
}

/* What lf_sa_parse() gives each record: the query's callback. */
struct rec_ctx {
	const struct lf_sa_ops *ops;
	const struct lf_sa_query *q;
	bool pair_ok;
};

static int one_rec(void *ctx, unsigned int slid, unsigned int dlid,
		   const struct lf_path *p)
{
	struct rec_ctx *c = ctx;

	if (c->q->dlid && (slid != c->q->slid || dlid != c->q->dlid))
		return -EPROTO;
	c->pair_ok = true;
	return c->ops->rec(c->ops->ctx, c->q, slid, dlid, p);
}

/* One answer read into s->buf: its query's records, then done. */
static int answer(struct lf_sa *s, const struct lf_sa_ops *ops, int len,
		  unsigned int *busy, char *err, size_t elen)
{
	uint8_t *mad = umad_get_mad(s->buf);
	struct slot *sl = slot_of(s, mad);
	struct rec_ctx c = { .ops = ops };
	int ret;

	if (!sl)
		return 0;	/* an answer to a query asked again */
	if (umad_status(s->buf))
		return resend(s, sl, err, elen);
	c.q = &sl->query;
	ret = lf_sa_parse(mad, len, one_rec, &c);
	if (ret == -EBUSY)
		return resend(s, sl, err, elen);
	if (ret == -EMSGSIZE)
		snprintf(err, elen, "the SA's GetTable answer for LID %u came cut at one MAD: no RMPP between the SA and us",
			 sl->query.slid);
	else if (ret == -EPROTO)
		snprintf(err, elen, "PathRecord LID %u to LID %u: the SA answered another query",
			 sl->query.slid, sl->query.dlid);
	if (ret < 0 && ret != -ENOENT)
		return ret;
	ret = ops->done(ops->ctx, &sl->query, ret == -ENOENT ||
			(sl->query.dlid && !c.pair_ok) ? -ENOENT : 0);
	sl->used = false;
	(*busy)--;
	return ret;
}

/* Read one answer, growing the buffer for a long one (ENOSPC). */
static int receive(struct lf_sa *s, int *len)
{
	uint8_t *b;
	int ret;

	for (;;) {
		*len = s->buf_cap;
		ret = umad_recv(s->port, s->buf, len, WAIT_MS);
		if (ret != -ENOSPC)
			return ret;
		b = umad_alloc(1, umad_size() + *len);
		if (!b)
			return -ENOMEM;
		umad_free(s->buf);
		s->buf = b;
		s->buf_cap = *len;
	}
}

int lf_sa_run(struct lf_sa *s, const struct lf_sa_ops *ops, char *err,
	      size_t len)
{
	unsigned int busy = 0;
	bool more = true;
	int ret, n;

	memset(s->slot, 0, sizeof(s->slot));
	ret = fill(s, ops, &more, &busy, err, len);
	while (!ret && busy) {
		ret = receive(s, &n);
		if (ret == -ETIMEDOUT || ret == -EWOULDBLOCK)
			ret = resend(s, NULL, err, len);
		else if (ret == -ENOMEM)
			snprintf(err, len, "out of memory");
		else if (ret < 0)
			snprintf(err, len, "SA answer: %s", strerror(-ret));
		else
			ret = answer(s, ops, n, &busy, err, len);
		if (!ret)
			ret = fill(s, ops, &more, &busy, err, len);
	}
	s->stale = busy;
	return ret;
}
