// SPDX-License-Identifier: MIT
/* Runs every registered CUnit suite; an argument selects one suite. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <CUnit/Basic.h>

#include "tu.h"

#define TU_MAX 64

static struct {
	const char *name;
	const struct tu_test *tests;
} suites[TU_MAX];
static int nsuites;

void tu_register(const char *suite, const struct tu_test *tests)
{
	if (nsuites == TU_MAX) {
		fprintf(stderr, "tu: too many suites, raise TU_MAX\n");
		exit(2);
	}
	suites[nsuites].name = suite;
	suites[nsuites].tests = tests;
	nsuites++;
}

int main(int argc, char **argv)
{
	const struct tu_test *t;
	unsigned int fails;
	CU_pSuite s;
	int i;

	if (CU_initialize_registry() != CUE_SUCCESS)
		return 2;
	for (i = 0; i < nsuites; i++) {
		if (argc > 1 && strcmp(argv[1], suites[i].name))
			continue;
		s = CU_add_suite(suites[i].name, NULL, NULL);
		if (!s)
			goto fail;
		for (t = suites[i].tests; t->name; t++)
			if (!CU_add_test(s, t->name, t->fn))
				goto fail;
	}
	CU_basic_set_mode(CU_BRM_NORMAL);
	CU_basic_run_tests();
	fails = CU_get_number_of_failures();
	if (!CU_get_number_of_tests_run())
		fails = 1;
	CU_cleanup_registry();
	return fails ? 1 : 0;
fail:
	fprintf(stderr, "tu: %s\n", CU_get_error_msg());
	CU_cleanup_registry();
	return 2;
}
