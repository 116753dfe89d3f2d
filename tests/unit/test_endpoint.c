// SPDX-License-Identifier: MIT
/* sm/endpoint.c: TCP endpoints parsed, named and judged local. */
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "tu.h"
#include "sm/endpoint.h"

/* sm_tcp_parse(s) as sm_tcp_name() prints it, or "EINVAL". */
static const char *parsed(const char *s, char *buf, size_t len)
{
	struct sockaddr_storage a;
	socklen_t al;

	if (sm_tcp_parse(s, &a, &al))
		snprintf(buf, len, "EINVAL");
	else
		sm_tcp_name(&a, buf, len);
	return buf;
}

static bool loopback(const char *s)
{
	struct sockaddr_storage a;
	socklen_t al;

	CU_ASSERT_FATAL(sm_tcp_parse(s, &a, &al) == 0);
	return sm_tcp_loopback(&a);
}

static void test_tcp_parse(void)
{
	static const char *const bad[] = {
		"", ":", ":80", "1.2.3.4:", "1.2.3.4:65536", "1.2.3.4:-1",
		"1.2.3.4:+1", "1.2.3.4: 1", "1.2.3.4:1x", "localhost:80",
		"1.2.3:80", "::1:80", "[::1]", "[::1]80", "[::1:80",
		"[1.2.3.4]:80", "[]:80", "abc", "99999999999999999999",
	};
	char b[SM_ADDR_LEN];
	size_t i;

	CU_ASSERT_STRING_EQUAL(parsed("5000", b, sizeof(b)), "127.0.0.1:5000");
	CU_ASSERT_STRING_EQUAL(parsed("0", b, sizeof(b)), "127.0.0.1:0");
	CU_ASSERT_STRING_EQUAL(parsed("10.1.2.3:65535", b, sizeof(b)),
			       "10.1.2.3:65535");
	CU_ASSERT_STRING_EQUAL(parsed("[::1]:7", b, sizeof(b)), "[::1]:7");
	CU_ASSERT_STRING_EQUAL(parsed("[FE80::1:2]:7", b, sizeof(b)),
			       "[fe80::1:2]:7");
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		if (strcmp(parsed(bad[i], b, sizeof(b)), "EINVAL"))
			CU_FAIL_FATAL(bad[i]);
	CU_ASSERT(loopback("80"));
	CU_ASSERT(loopback("127.9.9.9:80"));
	CU_ASSERT(loopback("[::1]:80"));
	CU_ASSERT(loopback("[::ffff:127.0.0.2]:80"));
	CU_ASSERT(!loopback("0.0.0.0:80"));
	CU_ASSERT(!loopback("128.0.0.1:80"));
	CU_ASSERT(!loopback("[::]:80"));
	CU_ASSERT(!loopback("[::ffff:10.0.0.1]:80"));
}

TU_SUITE(endpoint,
	 { "parse, name, loopback", test_tcp_parse })
