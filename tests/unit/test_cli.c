// SPDX-License-Identifier: MIT
/* tools/lib/cli: the option table's parser, help lines and numbers. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tu.h"
#include "tools/lib/cli/cli.h"

static const struct cli_opt opts[] = {
	{ "all", 0, 'a', 1, NULL, "every one" },
	{ "bee", 1, 'b', 2, "N", "bees" },
	{ "long-only", 1, CLI_LONG_ONLY, 1, "F", "no letter" },
};

#define NOPTS (sizeof(opts) / sizeof(opts[0]))

static void test_uint(void)
{
	unsigned long long v;

	CU_ASSERT(!cli_uint("42", 10, 100, &v) && v == 42);
	CU_ASSERT(!cli_uint("0x10", 0, 100, &v) && v == 16);
	CU_ASSERT(!cli_uint("100", 10, 100, &v) && v == 100);
	CU_ASSERT_EQUAL(cli_uint("101", 10, 100, &v), -ERANGE);
	CU_ASSERT_EQUAL(cli_uint("99999999999999999999999", 10, ~0ull, &v),
			-ERANGE);
	CU_ASSERT_EQUAL(cli_uint("", 10, 100, &v), -EINVAL);
	CU_ASSERT_EQUAL(cli_uint("-1", 10, 100, &v), -EINVAL);
	CU_ASSERT_EQUAL(cli_uint(" 1", 10, 100, &v), -EINVAL);
	CU_ASSERT_EQUAL(cli_uint("+1", 10, 100, &v), -EINVAL);
	CU_ASSERT_EQUAL(cli_uint("1x", 10, 100, &v), -EINVAL);
	CU_ASSERT_EQUAL(cli_uint("0x", 0, 100, &v), -EINVAL);
}

static void test_next(void)
{
	char words[] = "prog\0-a\0--bee\0" "7\0--long-only=f\0-bx\0-z\0--nope\0--bee";
	char *argv[10], *w = words;
	int argc = 0;
	const struct cli_opt *o;
	struct cli_parser p;
	const char *bad;

	while (argc < 9) {
		argv[argc++] = w;
		w += strlen(w) + 1;
	}
	argv[argc] = NULL;
	cli_parser_init(&p, opts, NOPTS);
	optind = 1;
	CU_ASSERT_EQUAL(cli_next(&p, argc, argv, &o, &bad), 'a');
	CU_ASSERT_PTR_EQUAL(o, &opts[0]);
	CU_ASSERT_EQUAL(cli_next(&p, argc, argv, &o, &bad), 'b');
	CU_ASSERT_STRING_EQUAL(optarg, "7");
	CU_ASSERT_EQUAL(cli_next(&p, argc, argv, &o, &bad), CLI_LONG_ONLY);
	CU_ASSERT_PTR_EQUAL(o, &opts[2]);
	CU_ASSERT_STRING_EQUAL(optarg, "f");
	CU_ASSERT_EQUAL(cli_next(&p, argc, argv, &o, &bad), 'b');
	CU_ASSERT_STRING_EQUAL(optarg, "x");
	CU_ASSERT_EQUAL(cli_next(&p, argc, argv, &o, &bad), '?');
	CU_ASSERT_STRING_EQUAL(bad, "-z");
	CU_ASSERT_PTR_NULL(o);
	CU_ASSERT_EQUAL(cli_next(&p, argc, argv, &o, &bad), '?');
	CU_ASSERT_STRING_EQUAL(bad, "--nope");
	CU_ASSERT_EQUAL(cli_next(&p, argc, argv, &o, &bad), ':');
	CU_ASSERT_STRING_EQUAL(bad, "--bee");
	CU_ASSERT_EQUAL(cli_next(&p, argc, argv, &o, &bad), -1);
	CU_ASSERT_PTR_EQUAL(cli_find(opts, NOPTS, 'b'), &opts[1]);
	CU_ASSERT_PTR_NULL(cli_find(opts, NOPTS, 'q'));
}

static void test_help(void)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	CU_ASSERT_FATAL(f != NULL);
	cli_help_opt(f, &opts[1], 12, " [x]");
	cli_help_opt(f, &opts[2], 12, NULL);
	cli_help_opt(f, &opts[0], 12, NULL);
	fclose(f);
	CU_ASSERT_STRING_EQUAL(buf, "  -b, --bee N  bees [x]\n"
			       "      --long-only F no letter\n"
			       "  -a, --all    every one\n");
	free(buf);
}

/* --version's line carries the Makefile's VERSION. */
static void test_version(void)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	CU_ASSERT_FATAL(f != NULL);
	cli_version(f, "ibtool");
	fclose(f);
	CU_ASSERT_STRING_EQUAL(buf, "ibtool (gpuaware) " GPUAWARE_VERSION "\n");
	free(buf);
}

/* Each refusal a client meets names what to look at, per peer. */
static void test_socket_hints(void)
{
	CU_ASSERT_PTR_NOT_NULL(strstr(cli_socket_hint(ENOENT, CLI_PEER_SM, false),
				      "[hints] socket"));
	CU_ASSERT_PTR_NOT_NULL(strstr(cli_socket_hint(ENOENT, CLI_PEER_POOLD, false),
				      "is ibpoold running?"));
	CU_ASSERT_PTR_NOT_NULL(strstr(cli_socket_hint(EACCES, CLI_PEER_SM, false),
				      "[hints] group"));
	CU_ASSERT_PTR_NOT_NULL(strstr(cli_socket_hint(EACCES, CLI_PEER_POOLD, false),
				      "[pool] socket_mode"));
	CU_ASSERT_PTR_NOT_NULL(strstr(cli_socket_hint(ECONNREFUSED, CLI_PEER_POOLD, true),
				      "[pool] tcp"));
	CU_ASSERT_PTR_NOT_NULL(strstr(cli_socket_hint(ECONNREFUSED, CLI_PEER_SM, false),
				      "start OpenSM again"));
	CU_ASSERT_PTR_NOT_NULL(strstr(cli_socket_hint(ETIMEDOUT, CLI_PEER_SM, false),
				      "--timeout"));
	CU_ASSERT_PTR_NULL(cli_socket_hint(EPROTO, CLI_PEER_SM, false));
}

TU_SUITE(cli,
	 { "version", test_version },
	 { "socket hints", test_socket_hints },
	 { "numbers", test_uint },
	 { "options", test_next },
	 { "help lines", test_help })
