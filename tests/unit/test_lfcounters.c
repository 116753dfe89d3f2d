// SPDX-License-Identifier: MIT
/* Counter delta tests on made-up samples: rates, saturation, clears, links that come and go. */
#include <stdlib.h>

#include "tu.h"
#include "tools/lib/livefab/lfcounters.h"

#define SW1 0x0002c90300000101ull
#define SW2 0x0002c90300000102ull
#define CA1 0x0002c90300001001ull

#define EPS 1e-9

/* One link sw:port -> peer:1 read at time t. */
static struct lf_ctr ctr(uint64_t sw, unsigned int port, uint64_t peer,
			 double t, uint64_t data, uint64_t wait,
			 unsigned int flags)
{
	return (struct lf_ctr){
		.guid = sw, .peer_guid = peer, .read_at = t, .xmit_data = data,
		.xmit_wait = wait, .node = sw == SW1 ? 0 : 1, .peer = 2,
		.port = port, .peer_port = 1, .flags = flags,
	};
}

/* The delta of one-link samples x (at t 10) and y (at t 12). */
static struct lf_rate one(struct lf_ctr x, struct lf_ctr y)
{
	struct lf_sample a = { .c = &x, .n = 1 }, b = { .c = &y, .n = 1 };
	struct lf_rate *r = NULL, got;
	size_t n = 0;

	CU_ASSERT_FATAL(lf_counter_delta(&a, &b, &r, &n) == 0);
	CU_ASSERT_FATAL(n == 1);
	got = r[0];
	free(r);
	return got;
}

static void test_rate(void)
{
	struct lf_rate r = one(ctr(SW1, 3, SW2, 10, 1000, 50, LF_CTR_EXT),
			       ctr(SW1, 3, SW2, 12, 501000, 2050,
				   LF_CTR_EXT));

	CU_ASSERT_EQUAL(r.flags, 0);
	CU_ASSERT_EQUAL(r.guid, SW1);
	CU_ASSERT_EQUAL(r.port, 3);
	CU_ASSERT_EQUAL(r.peer_guid, SW2);
	/* XmitData counts 4-byte words. */
	CU_ASSERT_EQUAL(r.data_bytes, 2000000);
	CU_ASSERT_EQUAL(r.wait_ticks, 2000);
	CU_ASSERT_DOUBLE_EQUAL(r.seconds, 2.0, EPS);
	CU_ASSERT_DOUBLE_EQUAL(r.bytes_per_s, 1000000.0, EPS);
	CU_ASSERT_DOUBLE_EQUAL(r.wait_per_s, 1000.0, EPS);
}

static void test_saturation(void)
{
	struct lf_rate r;

	/* A 32-bit counter that reaches its maximum: a lower bound. */
	r = one(ctr(SW1, 1, SW2, 10, 100, LF_CTR32_MAX - 10, 0),
		ctr(SW1, 1, SW2, 12, 300, LF_CTR32_MAX, 0));
	CU_ASSERT_EQUAL(r.flags, LF_RATE_SAT);
	CU_ASSERT_EQUAL(r.data_bytes, 800);
	CU_ASSERT_EQUAL(r.wait_ticks, 10);
	/* One stuck there already says nothing about the interval. */
	r = one(ctr(SW1, 1, SW2, 10, LF_CTR32_MAX, 0, 0),
		ctr(SW1, 1, SW2, 12, LF_CTR32_MAX, 7, 0));
	CU_ASSERT_EQUAL(r.flags, LF_RATE_SAT);
	CU_ASSERT_EQUAL(r.data_bytes, 0);
	CU_ASSERT_EQUAL(r.wait_ticks, 7);
	/* 64-bit data past 2^32 is no saturation. */
	r = one(ctr(SW1, 1, SW2, 10, LF_CTR32_MAX, 0, LF_CTR_EXT),
		ctr(SW1, 1, SW2, 12, LF_CTR32_MAX + 1000ull, 0, LF_CTR_EXT));
	CU_ASSERT_EQUAL(r.flags, 0);
	CU_ASSERT_EQUAL(r.data_bytes, 4000);
}

static void test_reset(void)
{
	struct lf_rate r;

	/* Cleared between the samples: counted from zero, never negative. */
	r = one(ctr(SW1, 2, SW2, 10, 5000, 900, 0),
		ctr(SW1, 2, SW2, 12, 40, 3, 0));
	CU_ASSERT_EQUAL(r.flags, LF_RATE_RESET);
	CU_ASSERT_EQUAL(r.data_bytes, 160);
	CU_ASSERT_EQUAL(r.wait_ticks, 3);
	/* A 64-bit counter that went down near its top was cleared, not
	 * wrapped: no 2^64-sized rate. */
	r = one(ctr(SW1, 2, SW2, 10, UINT64_MAX - 5, 0, LF_CTR_EXT),
		ctr(SW1, 2, SW2, 12, 10, 0, LF_CTR_EXT));
	CU_ASSERT_EQUAL(r.flags, LF_RATE_RESET);
	CU_ASSERT_EQUAL(r.data_bytes, 40);
	/* Data that changed width does not compare. */
	r = one(ctr(SW1, 2, SW2, 10, 100, 0, 0),
		ctr(SW1, 2, SW2, 12, 900000, 4, LF_CTR_EXT));
	CU_ASSERT_EQUAL(r.flags, LF_RATE_RESET);
	CU_ASSERT_EQUAL(r.data_bytes, 0);
	CU_ASSERT_EQUAL(r.wait_ticks, 4);
}

static void test_no_wait_and_time(void)
{
	struct lf_rate r;

	r = one(ctr(SW1, 2, SW2, 10, 0, 5, LF_CTR_NO_WAIT),
		ctr(SW1, 2, SW2, 12, 10, 9, LF_CTR_NO_WAIT));
	CU_ASSERT_EQUAL(r.flags, LF_RATE_NO_WAIT);
	CU_ASSERT_EQUAL(r.wait_ticks, 0);
	CU_ASSERT_EQUAL(r.data_bytes, 40);
	/* No time between the reads: differences, but no rate. */
	r = one(ctr(SW1, 2, SW2, 12, 0, 0, 0), ctr(SW1, 2, SW2, 12, 10, 1, 0));
	CU_ASSERT_EQUAL(r.data_bytes, 40);
	CU_ASSERT_DOUBLE_EQUAL(r.bytes_per_s, 0.0, EPS);
	CU_ASSERT_DOUBLE_EQUAL(r.wait_per_s, 0.0, EPS);
}

/*
 * a: SW1:1 -> SW2, SW1:2 -> CA1, SW2:1 -> SW1.  b (given unsorted):
 * SW1:1 gone, SW1:2 recabled to SW2, SW2:1 kept, SW2:4 new.
 */
static void test_links_come_and_go(void)
{
	struct lf_ctr ca[] = {
		ctr(SW2, 1, SW1, 10, 0, 0, LF_CTR_EXT),
		ctr(SW1, 2, CA1, 10, 0, 0, LF_CTR_EXT),
		ctr(SW1, 1, SW2, 10, 0, 0, LF_CTR_EXT),
	};
	struct lf_ctr cb[] = {
		ctr(SW2, 4, CA1, 12, 7, 0, LF_CTR_EXT),
		ctr(SW2, 1, SW1, 12, 100, 2, LF_CTR_EXT),
		ctr(SW1, 2, SW2, 12, 50, 0, LF_CTR_EXT),
	};
	struct lf_sample a = { .c = ca, .n = 3 }, b = { .c = cb, .n = 3 };
	struct lf_rate *r = NULL;
	size_t n = 0;

	lf_sample_sort(&a);
	lf_sample_sort(&b);
	CU_ASSERT_EQUAL(a.c[0].port, 1);
	CU_ASSERT_EQUAL(a.c[2].guid, SW2);
	CU_ASSERT_FATAL(lf_counter_delta(&a, &b, &r, &n) == 0);
	CU_ASSERT_FATAL(n == 5);
	CU_ASSERT(r[0].guid == SW1 && r[0].port == 1 &&
		  r[0].flags == LF_RATE_GONE);
	CU_ASSERT(r[1].guid == SW1 && r[1].port == 2 &&
		  r[1].peer_guid == CA1 && r[1].flags == LF_RATE_GONE);
	CU_ASSERT(r[2].guid == SW1 && r[2].port == 2 &&
		  r[2].peer_guid == SW2 && r[2].flags == LF_RATE_NEW);
	CU_ASSERT(r[3].guid == SW2 && r[3].port == 1 && r[3].flags == 0 &&
		  r[3].data_bytes == 400 && r[3].wait_ticks == 2);
	CU_ASSERT(r[4].guid == SW2 && r[4].port == 4 &&
		  r[4].flags == LF_RATE_NEW);
	/* Links without two reads carry no rate. */
	CU_ASSERT(r[0].data_bytes == 0 && r[2].bytes_per_s == 0.0 &&
		  r[4].data_bytes == 0);
	free(r);
	/* Against an empty sample every link is new. */
	a.n = 0;
	CU_ASSERT_FATAL(lf_counter_delta(&a, &b, &r, &n) == 0);
	CU_ASSERT_EQUAL(n, 3);
	CU_ASSERT(r[0].flags == LF_RATE_NEW && r[2].flags == LF_RATE_NEW);
	free(r);
}

TU_SUITE(lfcounters,
	 { "rate", test_rate },
	 { "saturation", test_saturation },
	 { "reset", test_reset },
	 { "no xmit-wait, no time", test_no_wait_and_time },
	 { "links come and go", test_links_come_and_go });
