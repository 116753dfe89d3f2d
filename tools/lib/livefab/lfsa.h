/* SPDX-License-Identifier: MIT */
/*
 * SA PathRecords in bulk: every path of a source in one GetTable, or one
 * Get per pair, several queries in flight through a umad agent of its
 * own (libibumad, which leaves RMPP to the kernel).
 */
#ifndef GPUAWARE_LFSA_H
#define GPUAWARE_LFSA_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "tools/lib/livefab/livefab.h"

struct lf_sa;

/* One query: every path from slid (dlid 0, a GetTable) or one pair (Get). */
struct lf_sa_query {
	unsigned int slid;
	unsigned int dlid;
};

/*
 * What lf_sa_run() asks and where the answers go.  A non-zero return
 * from rec or done stops the run with that value.
 */
struct lf_sa_ops {
	/* the next query into *q; false when there are no more */
	bool (*next)(void *ctx, struct lf_sa_query *q);
	/* one record of q's answer */
	int (*rec)(void *ctx, const struct lf_sa_query *q, unsigned int slid,
		   unsigned int dlid, const struct lf_path *p);
	/* q answered: 0, or -ENOENT for an answer with an error status */
	int (*done)(void *ctx, const struct lf_sa_query *q, int status);
	void *ctx;
};

/*
 * An agent for the SA class on v's local port, addressing the SA at the
 * SM's LID, with up to window queries in flight.  *out is the caller's,
 * released with lf_sa_close(); err gets one line on failure.
 */
int lf_sa_open(struct lf_sa **out, struct lf *v, unsigned int window,
	       char *err, size_t len);
void lf_sa_close(struct lf_sa *s);

/*
 * Ask every query ops->next gives.  0 once all are answered; -EMSGSIZE
 * when a GetTable answer arrived cut (an RMPP segment without RMPP, as
 * from ibsim's umad2sim alone); -ETIMEDOUT when the SA stops answering
 * (after retries); an ops return value; another negative errno.
 */
int lf_sa_run(struct lf_sa *s, const struct lf_sa_ops *ops, char *err,
	      size_t len);

/*
 * The records of one SA answer (mad: len bytes from the MAD header on),
 * each passed to fn with its SLID, DLID and path.  The number of records,
 * -ENOENT for an error status, -EBUSY when the SA says it is busy (ask
 * again), -EMSGSIZE for an answer cut short,
 * -EPROTO when it is not a PathRecord answer, or fn's non-zero return.
 */
int lf_sa_parse(const uint8_t *mad, size_t len,
		int (*fn)(void *ctx, unsigned int slid, unsigned int dlid,
			  const struct lf_path *p),
		void *ctx);

#endif
