// SPDX-License-Identifier: MIT
/*
 * The incremental channel dependency graph: batches that close a cycle
 * are refused whole, unconditional ones are kept, reachability follows.
 */
#include <stdint.h>

#include "tu.h"
#include "routing/cdg.h"

/* A chain 0->1->2, then batches closing and not closing a cycle. */
static void test_refuse(void)
{
	static const uint32_t f1[] = { 0, 1 }, t1[] = { 1, 2 };
	static const uint32_t f2[] = { 2, 3 }, t2[] = { 3, 0 };
	static const uint32_t f3[] = { 2 }, t3[] = { 3 };
	struct cdg g;

	CU_ASSERT_FATAL(!cdg_init(&g, 4));
	CU_ASSERT_EQUAL(cdg_add(&g, f1, t1, 2, true), 1);
	CU_ASSERT(cdg_reach(&g, 0, 2));
	CU_ASSERT(!cdg_reach(&g, 2, 0));
	/* 2->3->0 closes 0->1->2->3->0: neither edge stays */
	CU_ASSERT_EQUAL(cdg_add(&g, f2, t2, 2, true), 0);
	CU_ASSERT(!cdg_reach(&g, 2, 3));
	CU_ASSERT(!cdg_reach(&g, 3, 0));
	CU_ASSERT_EQUAL(g.ne, 2);
	/* 2->3 alone closes none */
	CU_ASSERT_EQUAL(cdg_add(&g, f3, t3, 1, true), 1);
	CU_ASSERT(cdg_reach(&g, 0, 3));
	/* an edge already present is not added again */
	CU_ASSERT_EQUAL(cdg_add(&g, f3, t3, 1, true), 1);
	CU_ASSERT_EQUAL(g.ne, 3);
	/* unconditional: the cycle is kept */
	CU_ASSERT_EQUAL(cdg_add(&g, f2 + 1, t2 + 1, 1, false), 1);
	CU_ASSERT(cdg_reach(&g, 3, 2));
	cdg_release(&g);
	cdg_release(&g);
}

/* A self loop is a cycle; the graph grows past its first edge block. */
static void test_grow(void)
{
	enum { N = 10000 };
	uint32_t a, b;
	struct cdg g;

	CU_ASSERT_FATAL(!cdg_init(&g, N));
	a = 5;
	CU_ASSERT_EQUAL(cdg_add(&g, &a, &a, 1, true), 0);
	for (a = 0; a + 1 < N; a++) {
		b = a + 1;
		CU_ASSERT_EQUAL_FATAL(cdg_add(&g, &a, &b, 1, true), 1);
	}
	CU_ASSERT(cdg_reach(&g, 0, N - 1));
	a = N - 1;
	b = 0;
	CU_ASSERT_EQUAL(cdg_add(&g, &a, &b, 1, true), 0);
	CU_ASSERT(!cdg_reach(&g, N - 1, 0));
	cdg_release(&g);
}

TU_SUITE(cdg,
	 { "a batch closing a cycle is refused whole", test_refuse },
	 { "self loop, long chain", test_grow })
