// SPDX-License-Identifier: MIT
/* Slurm hostlist expansion, its errors, and compression round trips. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "tu.h"
#include "tools/lib/pool/hostlist.h"

/* Expand expr and compare with the space-separated names in want. */
static void expect(const char *expr, const char *want)
{
	char err[256] = "", got[1024] = "", **v;
	size_t n, i;
	int ret;

	ret = pool_hostlist_expand(expr, 100, &v, &n, err, sizeof(err));
	CU_ASSERT_EQUAL_FATAL(ret, 0);
	for (i = 0; i < n; i++) {
		strcat(got, i ? " " : "");
		strcat(got, v[i]);
	}
	CU_ASSERT_STRING_EQUAL(got, want);
	pool_hostlist_free(v, n);
}

static void test_expand(void)
{
	expect("gpu01", "gpu01");
	expect("gpu[01-04,07]", "gpu01 gpu02 gpu03 gpu04 gpu07");
	expect("a[1-2]b[3-4]", "a1b3 a1b4 a2b3 a2b4");
	expect("n[8-11]", "n8 n9 n10 n11");
	expect("n[08-11]", "n08 n09 n10 n11");
	expect("n[098-101]", "n098 n099 n100 n101");
	expect("a,b", "a b");
	expect("x[1-2],y,z[5]", "x1 x2 y z5");
	expect("[1-3]", "1 2 3");
	expect("r[1-2]-s[0]", "r1-s0 r2-s0");
	/* Slurm keeps order and duplicates */
	expect("b,a,b", "b a b");
}

static void expect_err(const char *expr, int want, const char *msg)
{
	char err[256] = "", **v = (char **)1;
	size_t n = 7;

	CU_ASSERT_EQUAL(pool_hostlist_expand(expr, 100, &v, &n, err,
					     sizeof(err)), want);
	CU_ASSERT_PTR_NULL(v);
	CU_ASSERT_EQUAL(n, 0);
	CU_ASSERT_PTR_NOT_NULL(strstr(err, msg));
}

static void test_errors(void)
{
	expect_err("", -EINVAL, "empty name");
	expect_err("a,,b", -EINVAL, "offset 2: empty name");
	expect_err("a,", -EINVAL, "empty name");
	expect_err("gpu[01-04", -EINVAL, "'[' without ']'");
	expect_err("gpu01-04]", -EINVAL, "']' without '['");
	expect_err("gpu[4-1]", -EINVAL, "runs backwards");
	expect_err("gpu[]", -EINVAL, "expected a number");
	expect_err("gpu[1,]", -EINVAL, "expected a number");
	expect_err("gpu[a]", -EINVAL, "expected a number");
	expect_err("gpu[1-2x]", -EINVAL, "expected ',', '-' or ']'");
	expect_err("gpu[[1]]", -EINVAL, "nested '['");
	expect_err("a b", -EINVAL, "' ' in a name");
	expect_err("n[1-9999999999]", -EINVAL, "expected a number");
	/* the cap: 101 names with max 100, and a huge range stops early */
	expect_err("n[0-100]", -E2BIG, "more than 100 names");
	expect_err("n[0-999999999]", -E2BIG, "more than 100 names");
	expect_err("a[0-9]b[0-10]", -E2BIG, "more than 100 names");
}

static void test_long_name(void)
{
	char expr[POOL_HOST_NAME_MAX + 8], err[1024], **v;
	size_t n;

	memset(expr, 'a', POOL_HOST_NAME_MAX);
	expr[POOL_HOST_NAME_MAX] = '\0';
	CU_ASSERT_EQUAL(pool_hostlist_expand(expr, 10, &v, &n, err,
					     sizeof(err)), 0);
	CU_ASSERT_EQUAL(n, 1);
	pool_hostlist_free(v, n);
	strcpy(expr + POOL_HOST_NAME_MAX, "[1]");
	CU_ASSERT_EQUAL(pool_hostlist_expand(expr, 10, &v, &n, err,
					     sizeof(err)), -EINVAL);
	CU_ASSERT_PTR_NOT_NULL(strstr(err, "name longer than"));
}

/* compress(names) == want, and want expands back to the sorted set. */
static void round_trip(const char *names, const char *want)
{
	char *copy = strdup(names), *v[32], *out, err[256], **back;
	size_t n = 0, nb, i;
	char *tok, *save;

	for (tok = strtok_r(copy, " ", &save); tok;
	     tok = strtok_r(NULL, " ", &save))
		v[n++] = tok;
	CU_ASSERT_EQUAL_FATAL(pool_hostlist_compress(v, n, &out), 0);
	CU_ASSERT_STRING_EQUAL(out, want);
	CU_ASSERT_EQUAL_FATAL(pool_hostlist_expand(out, 100, &back, &nb, err,
						   sizeof(err)), 0);
	/* every input name comes back, and nothing else */
	for (i = 0; i < nb; i++)
		CU_ASSERT_PTR_NOT_NULL(strstr(names, back[i]));
	CU_ASSERT(nb <= n);
	pool_hostlist_free(back, nb);
	free(out);
	free(copy);
}

static void test_compress(void)
{
	round_trip("gpu04 gpu01 gpu02 gpu03 gpu07", "gpu[01-04,07]");
	round_trip("n8 n9 n10 n11", "n[8-11]");
	round_trip("n08 n09 n10 n11", "n[08-11]");
	round_trip("n9 n09 n10", "n[9,09-10]");
	round_trip("s3 s0 s1 s2", "s[0-3]");
	round_trip("b a gpu1 gpu1", "a,b,gpu1");
	round_trip("x1y2 x1y3 x2y2", "x1y[2-3],x2y2");
	round_trip("gpu01", "gpu01");
}

TU_SUITE(hostlist,
	 { "expand", test_expand },
	 { "errors", test_errors },
	 { "long names", test_long_name },
	 { "compress", test_compress })
