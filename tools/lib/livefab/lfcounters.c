// SPDX-License-Identifier: MIT
/*
 * Counter arithmetic: two switch port samples into per-directed-link
 * rates, robust to cleared and saturated counters and to links that came
 * or went between the samples.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>

#include "lfcounters.h"

void lf_sample_release(struct lf_sample *s)
{
	free(s->c);
	free(s->fail);
	s->c = NULL;
	s->fail = NULL;
	s->n = s->nfail = 0;
}

static int cmp_key(uint64_t ga, unsigned int pa, uint64_t gb, unsigned int pb)
{
	if (ga != gb)
		return ga < gb ? -1 : 1;
	return (pa > pb) - (pa < pb);
}

static int cmp_ctr(const void *x, const void *y)
{
	const struct lf_ctr *a = x, *b = y;

	return cmp_key(a->guid, a->port, b->guid, b->port);
}

void lf_sample_sort(struct lf_sample *s)
{
	if (s->n)
		qsort(s->c, s->n, sizeof(*s->c), cmp_ctr);
}

/*
 * What a counter advanced by from old to new.  A 32-bit counter that
 * reached its maximum stays there (SAT: the difference is a lower bound).
 * One that went down was cleared in between (by an SM's PerfMgr or
 * perfquery -r): it counted from 0 (RESET).  A 64-bit counter is taken to
 * be cleared too, never wrapped: at 800 Gb/s it wraps after 20 years.
 */
static uint64_t advance(uint64_t old, uint64_t new, bool wide,
			unsigned int *flags)
{
	if (!wide && (old >= LF_CTR32_MAX || new >= LF_CTR32_MAX))
		*flags |= LF_RATE_SAT;
	if (!wide && old >= LF_CTR32_MAX)
		return 0;
	if (new < old) {
		*flags |= LF_RATE_RESET;
		return new;
	}
	return new - old;
}

static void link_of(struct lf_rate *r, const struct lf_ctr *c,
		    unsigned int flags)
{
	*r = (struct lf_rate){
		.guid = c->guid, .peer_guid = c->peer_guid,
		.node = c->node, .peer = c->peer,
		.port = c->port, .peer_port = c->peer_port,
		.flags = flags,
	};
}

static void rate_of(struct lf_rate *r, const struct lf_ctr *a,
		    const struct lf_ctr *b)
{
	unsigned int flags = 0;

	link_of(r, b, 0);
	/* One sample in 64 bits, the other in 32: their data do not compare. */
	if ((a->flags ^ b->flags) & LF_CTR_EXT)
		flags |= LF_RATE_RESET;
	else
		r->data_bytes = 4 * advance(a->xmit_data, b->xmit_data,
					    b->flags & LF_CTR_EXT, &flags);
	if ((a->flags | b->flags) & LF_CTR_NO_WAIT)
		flags |= LF_RATE_NO_WAIT;
	else
		r->wait_ticks = advance(a->xmit_wait, b->xmit_wait, false,
					&flags);
	r->flags = flags;
	r->seconds = b->read_at - a->read_at;
	if (r->seconds > 0) {
		r->bytes_per_s = r->data_bytes / r->seconds;
		r->wait_per_s = r->wait_ticks / r->seconds;
	}
}

int lf_counter_delta(const struct lf_sample *a, const struct lf_sample *b,
		     struct lf_rate **out, size_t *n)
{
	struct lf_rate *r;
	size_t i = 0, j = 0, k = 0;
	int c;

	r = calloc(a->n + b->n + 1, sizeof(*r));
	if (!r)
		return -ENOMEM;
	while (i < a->n || j < b->n) {
		const struct lf_ctr *x = i < a->n ? &a->c[i] : NULL;
		const struct lf_ctr *y = j < b->n ? &b->c[j] : NULL;

		if (!x)
			c = 1;
		else if (!y)
			c = -1;
		else
			c = cmp_key(x->guid, x->port, y->guid, y->port);
		if (!c && (x->peer_guid != y->peer_guid ||
			   x->peer_port != y->peer_port)) {
			/* Recabled: the old link went, a new one came. */
			link_of(&r[k++], x, LF_RATE_GONE);
			link_of(&r[k++], y, LF_RATE_NEW);
			i++;
			j++;
		} else if (!c) {
			rate_of(&r[k++], x, y);
			i++;
			j++;
		} else if (c < 0) {
			link_of(&r[k++], x, LF_RATE_GONE);
			i++;
		} else {
			link_of(&r[k++], y, LF_RATE_NEW);
			j++;
		}
	}
	*out = r;
	*n = k;
	return 0;
}
