/* SPDX-License-Identifier: MIT */
/*
 * Unit-test registration: each test file declares its CUnit suite with
 * TU_SUITE() and main.c runs them all, so files never edit a shared list.
 */
#ifndef GPUAWARE_TU_H
#define GPUAWARE_TU_H

#include <CUnit/CUnit.h>

struct tu_test {
	const char *name;
	CU_TestFunc fn;
};

void tu_register(const char *suite, const struct tu_test *tests);

/* Usage: TU_SUITE(fabric, { "links", test_links }, { "lids", test_lids }) */
#define TU_SUITE(name, ...)						\
	static const struct tu_test tu_tests_##name[] = {		\
		__VA_ARGS__, { 0, 0 }					\
	};								\
	__attribute__((constructor)) static void tu_reg_##name(void)	\
	{								\
		tu_register(#name, tu_tests_##name);			\
	}

#endif
