// SPDX-License-Identifier: MIT
/*
 * SA PathRecords in bulk: GetTables and Gets through a umad agent of our
 * own, a window of them in flight (lfwin.c).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <infiniband/mad.h>
#include <infiniband/umad.h>

#include "lfsa.h"
#include "lfwin.h"

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

/* One agent, owned by its opener. */
struct lf_sa {
	int port;
	int agent;
	ib_portid_t sa_addr;
	unsigned int window;
	struct lf_win win;
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
	s->window = window;
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
	if (lf_win_init(&s->win, s->port, s->agent, s->window, WAIT_MS, TRIES))
		goto out_mem;
	*out = s;
	return 0;
out_mem:
	snprintf(err, len, "out of memory");
out:
	lf_sa_close(s);
	return ret;
}

void lf_sa_close(struct lf_sa *s)
{
	if (!s)
		return;
	/* what is still coming read first, while the port is open */
	lf_win_release(&s->win);
	if (s->port >= 0)
		umad_close_port(s->port);
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

/* A query as the window's tag and back. */
static uint64_t tag_of(const struct lf_sa_query *q)
{
	return (uint64_t)q->slid << 32 | q->dlid;
}

static struct lf_sa_query query_of(uint64_t tag)
{
	return (struct lf_sa_query){ .slid = tag >> 32,
				     .dlid = (uint32_t)tag };
}

/* What a run's window callbacks share. */
struct run {
	struct lf_sa *s;
	const struct lf_sa_ops *ops;
};

static bool next(void *ctx, uint64_t *tag)
{
	struct run *r = ctx;
	struct lf_sa_query q;

	if (!r->ops->next(r->ops->ctx, &q))
		return false;
	*tag = tag_of(&q);
	return true;
}

static int build(void *ctx, uint64_t tag, uint64_t trid, void *umad,
		 char *err, size_t len)
{
	struct run *r = ctx;
	struct lf_sa_query q = query_of(tag);
	uint8_t data[IB_SA_DATA_SIZE];
	ib_rpc_t rpc;

	memset(&rpc, 0, sizeof(rpc));
	memset(data, 0, sizeof(data));
	rpc.mgtclass = IB_SA_CLASS;
	rpc.method = q.dlid ? IB_MAD_METHOD_GET : IB_MAD_METHOD_GET_TABLE;
	rpc.attr.id = IB_SA_ATTR_PATHRECORD;
	rpc.mask = lf_path_encode(data, q.slid, q.dlid);
	rpc.datasz = IB_SA_DATA_SIZE;
	rpc.dataoffs = IB_SA_DATA_OFFS;
	rpc.trid = trid;
	if (mad_build_pkt(umad, &rpc, &r->s->sa_addr, NULL, data) < 0) {
		snprintf(err, len, "cannot build a PathRecord query");
		return -EINVAL;
	}
	return 0;
}

static void lost(void *ctx, uint64_t tag, char *err, size_t len)
{
	struct run *r = ctx;
	struct lf_sa_query q = query_of(tag);

	if (q.dlid)
		snprintf(err, len, "PathRecord LID %u to LID %u from the SA at LID %u: %s",
			 q.slid, q.dlid, r->s->sa_addr.lid, strerror(ETIMEDOUT));
	else
		snprintf(err, len, "PathRecord LID %u to every LID from the SA at LID %u: %s",
			 q.slid, r->s->sa_addr.lid, strerror(ETIMEDOUT));
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

/* One answer: its query's records, then done. */
static int answer(void *ctx, uint64_t tag, uint8_t *mad, int len, char *err,
		  size_t elen)
{
	struct run *r = ctx;
	struct lf_sa_query q = query_of(tag);
	struct rec_ctx c = { .ops = r->ops, .q = &q };
	int ret = lf_sa_parse(mad, len, one_rec, &c);

	if (ret == -EBUSY)
		return ret;
	if (ret == -EMSGSIZE)
		snprintf(err, elen, "the SA's GetTable answer for LID %u came cut at one MAD: no RMPP between the SA and us",
			 q.slid);
	else if (ret == -EPROTO)
		snprintf(err, elen, "PathRecord LID %u to LID %u: the SA answered another query",
			 q.slid, q.dlid);
	if (ret < 0 && ret != -ENOENT)
		return ret;
	return r->ops->done(r->ops->ctx, &q, ret == -ENOENT ||
			    (q.dlid && !c.pair_ok) ? -ENOENT : 0);
}

int lf_sa_run(struct lf_sa *s, const struct lf_sa_ops *ops, char *err,
	      size_t len)
{
	struct run r = { s, ops };
	const struct lf_win_ops wo = {
		.next = next, .build = build, .answer = answer, .lost = lost,
		.ctx = &r,
	};

	return lf_win_run(&s->win, &wo, err, len);
}
