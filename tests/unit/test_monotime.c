// SPDX-License-Identifier: MIT
/* The shared monotonic clock: units agree, deadlines carry. */
#include "tu.h"
#include "topology/monotime.h"

static void test_units(void)
{
	double s = mono_s();
	int64_t ms = mono_ms();

	CU_ASSERT(ms >= (int64_t)(s * 1e3) - 1);
	CU_ASSERT(mono_s() >= s);
}

static void test_add_ms(void)
{
	struct timespec t = { .tv_sec = 5, .tv_nsec = 999500000 };
	struct timespec u = mono_add_ms(t, 2001);

	CU_ASSERT_EQUAL(u.tv_sec, 8);
	CU_ASSERT_EQUAL(u.tv_nsec, 500000);
	u = mono_add_ms(t, 0);
	CU_ASSERT(u.tv_sec == 5 && u.tv_nsec == 999500000);
	u = mono_deadline(1000);
	CU_ASSERT((int64_t)u.tv_sec * 1000 + u.tv_nsec / 1000000 >=
		  mono_ms() + 999);
}

TU_SUITE(monotime,
	 { "seconds and milliseconds agree", test_units },
	 { "deadlines carry nanoseconds", test_add_ms })
