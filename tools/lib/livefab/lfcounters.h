/* SPDX-License-Identifier: MIT */
/*
 * Switch port counter samples (PerfMgt PortXmitData, PortXmitWait) and the
 * per-directed-link rates between two of them.  Plain data: livefab.c
 * fills samples, this module only does the arithmetic.
 */
#ifndef GPUAWARE_LFCOUNTERS_H
#define GPUAWARE_LFCOUNTERS_H

#include <stddef.h>
#include <stdint.h>

/*
 * lf_ctr.flags: EXT, xmit_data is 64-bit (PortCountersExtended); NO_WAIT,
 * the port does not count PortXmitWait.
 */
#define LF_CTR_EXT	(1u << 0)
#define LF_CTR_NO_WAIT	(1u << 1)

/* 32-bit PortCounters stop at this value instead of wrapping (IBA 16.1.3.5). */
#define LF_CTR32_MAX UINT32_MAX

/*
 * One directed link, switch port -> peer, as read at time t.  Links are
 * named by GUIDs, so samples of two discoveries compare; node and peer
 * are fabric indices of the discovery the sample was taken on.
 */
struct lf_ctr {
	uint64_t guid;		/* the sending switch */
	uint64_t peer_guid;	/* the node its port is cabled to */
	double read_at;		/* CLOCK_MONOTONIC seconds of the read */
	uint64_t xmit_data;	/* PortXmitData: 4-byte words */
	uint64_t xmit_wait;	/* PortXmitWait: ticks waiting for credit */
	uint32_t node, peer;
	uint8_t port, peer_port;
	uint8_t flags;		/* LF_CTR_* */
};

/* A switch whose PMA did not answer: its links are not in the sample. */
struct lf_ctr_fail {
	uint64_t guid;
	uint32_t node;
	int err;		/* -EIO no answer, -EADDRNOTAVAIL no LID */
};

/*
 * One sweep over every switch.  c is sorted by (guid, port); the sample
 * owns c and fail, lf_sample_release() frees them.
 */
struct lf_sample {
	struct lf_ctr *c;
	size_t n;
	struct lf_ctr_fail *fail;
	size_t nfail;
	uint64_t queries;	/* PerfMgt Gets sent */
	double seconds;		/* the sweep's duration */
};

void lf_sample_release(struct lf_sample *s);

/* Sort s->c by (guid, port), as lf_counter_delta() expects. */
void lf_sample_sort(struct lf_sample *s);

/*
 * lf_rate.flags.  NEW: only in the later sample, GONE: only in the
 * earlier; neither has a rate.  RESET: a counter went down (cleared in
 * between) and is counted from 0, a lower bound; or the data changed width
 * (PortCountersExtended came or went) and has no difference.  SAT: a
 * 32-bit counter hit its maximum, a lower bound.  NO_WAIT: the port does
 * not count PortXmitWait.
 */
#define LF_RATE_NEW	(1u << 0)
#define LF_RATE_GONE	(1u << 1)
#define LF_RATE_RESET	(1u << 2)
#define LF_RATE_SAT	(1u << 3)
#define LF_RATE_NO_WAIT (1u << 4)

/* One directed link's traffic between two samples. */
struct lf_rate {
	uint64_t guid, peer_guid;
	uint32_t node, peer;	/* the later sample's (GONE: the earlier's) */
	uint8_t port, peer_port;
	unsigned int flags;	/* LF_RATE_* */
	uint64_t data_bytes;	/* PortXmitData difference, in bytes */
	uint64_t wait_ticks;	/* PortXmitWait difference */
	double seconds;		/* between the two reads of this link */
	double bytes_per_s;	/* 0 when NEW, GONE or seconds is 0 */
	double wait_per_s;
};

/*
 * The rates of every link of a or b, a taken before b; a link cabled to
 * another peer in b counts as gone and new.  Both samples sorted.  *out
 * (owned by the caller, free()) holds *n entries in (guid, port) order.
 * Returns 0 or -ENOMEM.
 */
int lf_counter_delta(const struct lf_sample *a, const struct lf_sample *b,
		     struct lf_rate **out, size_t *n);

#endif
