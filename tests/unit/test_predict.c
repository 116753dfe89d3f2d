// SPDX-License-Identifier: MIT
/*
 * The run-time history: geometric means by hand, and which key answers
 * when the specific ones have no history.
 */
#include "tu.h"
#include "tools/lib/pool/predict.h"

/*
 * User 1's "train" on one GPU ran 100 s and 400 s: 200 s predicted for
 * it, for its other names on one GPU and, with no more specific match,
 * for its other sizes.  User 2 has no history: its limit, else every
 * job's geometric mean (with "eval" 25 s: (100 * 400 * 25) ^ (1/3)).
 */
static void test_history(void)
{
	struct prd *p = NULL;
	struct prd_job j = { .user = 1, .milli = 1000, .name = "train" };
	bool hist = false;

	CU_ASSERT_EQUAL_FATAL(prd_new(&p), 0);
	CU_ASSERT_DOUBLE_EQUAL(prd_predict(p, &j, &hist), 3600, 1e-9);
	CU_ASSERT_FALSE(hist);
	CU_ASSERT_EQUAL(prd_learn(p, &j, 100), 0);
	CU_ASSERT_EQUAL(prd_learn(p, &j, 400), 0);
	CU_ASSERT_DOUBLE_EQUAL(prd_predict(p, &j, &hist), 200, 1e-6);
	CU_ASSERT_TRUE(hist);
	j.name = NULL;
	CU_ASSERT_DOUBLE_EQUAL(prd_predict(p, &j, NULL), 200, 1e-6);
	j.milli = 8000;
	CU_ASSERT_DOUBLE_EQUAL(prd_predict(p, &j, NULL), 200, 1e-6);
	j = (struct prd_job){ .user = 1, .milli = 8000, .name = "eval" };
	CU_ASSERT_EQUAL(prd_learn(p, &j, 25), 0);
	CU_ASSERT_DOUBLE_EQUAL(prd_predict(p, &j, NULL), 25, 1e-6);
	j.name = "train";	/* user and size: eval's only */
	CU_ASSERT_DOUBLE_EQUAL(prd_predict(p, &j, NULL), 25, 1e-6);
	j = (struct prd_job){ .user = 2, .milli = 1000, .limit = 50 };
	CU_ASSERT_DOUBLE_EQUAL(prd_predict(p, &j, &hist), 50, 1e-9);
	CU_ASSERT_FALSE(hist);
	j.limit = 0;
	CU_ASSERT_DOUBLE_EQUAL(prd_predict(p, &j, NULL), 100, 1e-6);
	prd_free(p);
}

/* Enough keys to grow the table several times: none is lost. */
static void test_grow(void)
{
	struct prd *p = NULL;
	struct prd_job j = { .milli = 1000, .name = "x" };
	uint32_t u;
	bool ok = true;

	CU_ASSERT_EQUAL_FATAL(prd_new(&p), 0);
	for (u = 0; u < 5000; u++) {
		j.user = u;
		CU_ASSERT_EQUAL_FATAL(prd_learn(p, &j, 10 + u), 0);
	}
	for (u = 0; u < 5000; u++) {
		j.user = u;
		ok &= prd_predict(p, &j, NULL) > 9.5 + u &&
		      prd_predict(p, &j, NULL) < 10.5 + u;
	}
	CU_ASSERT_TRUE(ok);
	prd_free(p);
}

TU_SUITE(predict,
	 { "history by key", test_history },
	 { "grown table", test_grow })
