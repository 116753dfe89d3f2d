// SPDX-License-Identifier: MIT
/* Fabric graph and net-file loader/writer tests, including every refusal. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tu.h"
#include "topology/netfile.h"

static int load_str(const char *text, struct fabric **f, char *err,
		    size_t len)
{
	FILE *in = fmemopen((void *)text, strlen(text), "r");
	int ret;

	CU_ASSERT_FATAL(in != NULL);
	ret = fab_load_net_stream(in, "t.net", f, err, len);
	fclose(in);
	return ret;
}

static const char two_sw[] =
	"# two switches, two paths, four hosts\n"
	"Switch\t8 \"Switch1\"\n"
	"[1]\t\"Hca1\"[1]\n"
	"[2]\t\"Hca3\"[1]\n"
	"[3]\t\"Switch2\"[3]\n"
	"[5]\t\"Switch2\"[5]\n"
	"\n"
	"switchguid=0x1000\n"
	"Switch 8 \"Switch2\" # \"spine one\" lid 9\n"
	"[1]\t\"Hca2\"[1]\n"
	"[2]\t\"Hca4\"[1]\n"
	"[3]\t\"Switch1\"[3]\n"
	"[5]\t\"Switch1\"[5]\t# lid 0 4xEDR\n"
	"\n"
	"Hca\t2 \"Hca1\"\n[1]\t\"Switch1\"[1]\n\n"
	"sysimgguid=0x77\n"
	"Hca\t2 \"Hca2\"\n[1]\t\"Switch2\"[1]\n\n"
	"caguid=0x500\n"
	"Hca\t2 \"Hca3\"\n[1]\t\"Switch1\"[2]\n\n"
	"Hca 2 \"Hca4\"\n[1]\t\"Switch2\"[2]\n";

static void test_load(void)
{
	struct fabric *f;
	const struct fab_port *p;
	char err[256];

	CU_ASSERT_FATAL(!load_str(two_sw, &f, err, sizeof(err)));
	CU_ASSERT_EQUAL(f->nnodes, 6);
	CU_ASSERT_EQUAL(f->nsw, 2);
	CU_ASSERT_EQUAL(f->nca, 4);
	CU_ASSERT_EQUAL(fab_sw_links(f), 2);
	/* ibsim's GUID rules: defaults, then switchguid=/caguid= bases */
	CU_ASSERT_EQUAL(f->nodes[0].guid, 0x200000);
	CU_ASSERT_EQUAL(f->nodes[1].guid, 0x1000);
	CU_ASSERT_EQUAL(f->nodes[2].guid, 0x100000);
	CU_ASSERT_EQUAL(f->nodes[3].guid, 0x100003);
	CU_ASSERT_EQUAL(f->nodes[3].sysguid, 0x77);
	CU_ASSERT_EQUAL(f->nodes[4].guid, 0x500);
	CU_ASSERT_EQUAL(fab_port(f, 4, 1)->guid, 0x501);
	CU_ASSERT_STRING_EQUAL(f->nodes[1].desc, "spine one");
	CU_ASSERT_EQUAL(fab_port(f, 1, 0)->lid, 9);
	p = fab_port(f, 1, 5);
	CU_ASSERT_EQUAL(p->peer, 0);
	CU_ASSERT_EQUAL(p->peer_port, 5);
	CU_ASSERT_EQUAL(p->width, 4);
	CU_ASSERT_EQUAL(p->speed, 250);
	CU_ASSERT_EQUAL(fab_port(f, 0, 1)->peer, 2);
	fab_free(f);
}

static void test_lids(void)
{
	struct fabric *f;
	char err[256];

	CU_ASSERT_FATAL(!load_str(two_sw, &f, err, sizeof(err)));
	CU_ASSERT_FATAL(!fab_assign_lids(f, 2));
	CU_ASSERT_EQUAL(fab_port(f, 1, 0)->lid, 9);	/* kept */
	CU_ASSERT_EQUAL(fab_port(f, 0, 0)->lid, 10);
	/* CA LIDs aligned to 2^lmc */
	CU_ASSERT_EQUAL(fab_port(f, 2, 1)->lid, 12);
	CU_ASSERT_EQUAL(fab_port(f, 3, 1)->lid, 16);
	CU_ASSERT_EQUAL(fab_port(f, 2, 2)->lid, 0);	/* unlinked */
	CU_ASSERT_EQUAL(fab_max_lid(f), 27);
	fab_free(f);
}

static void test_roundtrip(void)
{
	struct fabric *f, *g;
	char err[256], *buf = NULL;
	size_t len = 0, n;
	FILE *out;

	CU_ASSERT_FATAL(!load_str(two_sw, &f, err, sizeof(err)));
	out = open_memstream(&buf, &len);
	CU_ASSERT_FATAL(out != NULL);
	CU_ASSERT(!fab_write_net(f, out));
	fclose(out);
	CU_ASSERT_FATAL(!load_str(buf, &g, err, sizeof(err)));
	CU_ASSERT_EQUAL(g->nnodes, f->nnodes);
	for (n = 0; n < f->nnodes; n++) {
		CU_ASSERT_EQUAL(g->nodes[n].guid, f->nodes[n].guid);
		CU_ASSERT_EQUAL(g->nodes[n].sysguid, f->nodes[n].sysguid);
		CU_ASSERT_STRING_EQUAL(g->nodes[n].desc, f->nodes[n].desc);
	}
	CU_ASSERT_EQUAL(fab_port(g, 1, 5)->peer, 0);
	CU_ASSERT_EQUAL(fab_port(g, 1, 5)->speed, 250);
	CU_ASSERT_EQUAL(fab_port(g, 4, 1)->guid, 0x501);
	free(buf);
	fab_free(f);
	fab_free(g);
}

static void expect_err(const char *text, const char *msg)
{
	struct fabric *f = (struct fabric *)1;
	char err[256] = "";

	CU_ASSERT(load_str(text, &f, err, sizeof(err)) < 0);
	CU_ASSERT_PTR_NULL(f);
	if (!strstr(err, msg))
		fprintf(stderr, "\n  got '%s', want '%s'\n", err, msg);
	CU_ASSERT_PTR_NOT_NULL(strstr(err, msg));
}

static void test_errors(void)
{
	expect_err("Switch 4 \"a\"\n[1] \"b\"[1]\n", "t.net:2: unknown node \"b\"");
	expect_err("Switch 4 \"a\"\n[9] \"b\"[1]\n", "t.net:2: bad port number");
	expect_err("Switch 4 \"a\"\n\nSwitch 4 \"a\"\n",
		   "t.net:3: duplicate node id \"a\"");
	expect_err("Switch 4 a\n", "t.net:1: node header without a quoted id");
	expect_err("[1] \"a\"[1]\n", "t.net:1: port line outside a node");
	expect_err("Bogus line\n", "t.net:1: unrecognised line");
	expect_err("", "no nodes");
	expect_err("Switch 4 \"a\"\n[1] \"b\"[1]\n\n"
		   "Switch 4 \"b\"\n[1] \"c\"[1]\n\nSwitch 4 \"c\"\n",
		   "t.net:5: link to \"c\"[1] conflicts with \"a\"[1]");
	expect_err("Hca 1 \"h\"\n[1] \"g\"[1]\n\nHca 1 \"g\"\n",
		   "CA linked to CA");
	expect_err("Switch 4 \"a\"\n[1] \"b\"[7]\n\nSwitch 4 \"b\"\n",
		   "t.net:2: \"b\" has no port 7");
	expect_err("include other.net\n", "include is not supported");
	expect_err("Switch 300 \"a\"\n", "bad port count");
}

static void test_file_errors(void)
{
	struct fabric *f;
	char err[256];

	CU_ASSERT_EQUAL(fab_load_net("/nonexistent/x.net", &f, err,
				     sizeof(err)), -ENOENT);
	CU_ASSERT_PTR_NOT_NULL(strstr(err, "/nonexistent/x.net"));
}

static void test_graph(void)
{
	struct fabric *f = fab_new();
	char buf[16];

	CU_ASSERT_FATAL(f != NULL);
	CU_ASSERT_EQUAL(fab_add_node(f, FAB_SW, 0, 1, "x"), -EINVAL);
	CU_ASSERT_EQUAL(fab_add_node(f, FAB_SW, 4, 1, "s"), 0);
	CU_ASSERT_EQUAL(fab_add_node(f, FAB_CA, 1, 2, "node7 mlx5_0"), 1);
	CU_ASSERT_EQUAL(fab_link(f, 0, 5, 1, 1, 4, 250), -EINVAL);
	CU_ASSERT_EQUAL(fab_link(f, 0, 1, 1, 1, 4, 250), 0);
	CU_ASSERT_EQUAL(fab_link(f, 0, 1, 1, 1, 4, 250), 0);
	CU_ASSERT_EQUAL(fab_link(f, 0, 2, 1, 1, 4, 250), -EBUSY);
	CU_ASSERT_EQUAL(fab_unlink(f, 1, 1), 0);
	CU_ASSERT_EQUAL(fab_unlink(f, 0, 1), -ENOENT);
	CU_ASSERT_EQUAL(fab_host_name(f, 1, buf, sizeof(buf)), 5);
	CU_ASSERT_STRING_EQUAL(buf, "node7");
	fab_free(f);
}

TU_SUITE(netfile,
	 { "load ibsim dialect", test_load },
	 { "LID assignment", test_lids },
	 { "write and read back", test_roundtrip },
	 { "malformed input names file and line", test_errors },
	 { "missing file", test_file_errors },
	 { "graph operations", test_graph })
