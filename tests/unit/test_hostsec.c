// SPDX-License-Identifier: MIT
/*
 * --print-host's section from made-up ports: the comment per port, the
 * hca list of the InfiniBand ones in order, and a section the config
 * loader takes once gpus is filled in.  --print-config's file for a
 * rail-optimized fabric: one section a host, its rails in order.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tu.h"
#include "tools/lib/pool/config.h"
#include "tools/lib/pool/hostsec.h"
#include "topology/netfile.h"

/* The section for p into a malloc'ed string (*s); returns the result. */
static int section(const char *name, const struct pool_rdma_port *p,
		   size_t n, char **s)
{
	size_t len;
	FILE *f = open_memstream(s, &len);
	int ret;

	CU_ASSERT_FATAL(f != NULL);
	ret = pool_host_section(f, name, p, n);
	fclose(f);
	return ret;
}

static const struct pool_rdma_port mixed[] = {
	{ .device = "mlx5_0", .port = 1, .guid = 0x0002c90300001002ULL,
	  .lid = 2, .state = "ACTIVE" },
	{ .device = "mlx5_1", .open_err = EACCES },
	{ .device = "mlx5_2", .port = 1, .guid = 0x0c42a10300ab0001ULL,
	  .state = "ACTIVE", .ethernet = true },
	{ .device = "mlx5_3", .port = 2, .guid = 0x0002c9030000100aULL,
	  .lid = 17, .state = "DOWN" },
};

static void test_mixed(void)
{
	char *s = NULL;

	CU_ASSERT_EQUAL(section("gpu07", mixed, 4, &s), 0);
	CU_ASSERT_STRING_EQUAL(s,
		"; RDMA ports of gpu07, from libibverbs\n"
		"; mlx5_0 port 1: guid 0x0002c90300001002 lid 2 state ACTIVE link InfiniBand\n"
		"; mlx5_1: cannot open: Permission denied\n"
		"; mlx5_2 port 1: guid 0x0c42a10300ab0001 lid 0 state ACTIVE link Ethernet\n"
		"; mlx5_3 port 2: guid 0x0002c9030000100a lid 17 state DOWN link InfiniBand\n"
		"[host gpu07]\n"
		"gpus = 0            ; fill in: GPUs in this host, 1..64\n"
		"gpu_type = unknown  ; fill in: H100, A100, ...\n"
		"hca = 0x0002c90300001002, 0x0002c9030000100a\n");
	free(s);
}

/* Ethernet only: the ports listed, no section, -ENOENT. */
static void test_no_ib(void)
{
	char *s = NULL;

	CU_ASSERT_EQUAL(section("gpu07", mixed + 1, 2, &s), -ENOENT);
	CU_ASSERT_PTR_NULL(strstr(s, "[host"));
	CU_ASSERT_PTR_NOT_NULL(strstr(s, "mlx5_2 port 1:"));
	free(s);
}

/* More InfiniBand ports than a host may have: the first 32 are hca. */
static void test_many(void)
{
	struct pool_rdma_port p[POOL_MAX_HCAS + 2];
	char *s = NULL, *hca;
	size_t i;

	for (i = 0; i < POOL_MAX_HCAS + 2; i++)
		p[i] = (struct pool_rdma_port){ .device = "mlx5_0",
			.port = i + 1, .guid = 0x100 + i, .state = "ACTIVE" };
	CU_ASSERT_EQUAL(section("big", p, POOL_MAX_HCAS + 2, &s), 0);
	CU_ASSERT_PTR_NOT_NULL(strstr(s, "; 34 InfiniBand ports: the config takes the first 32\n"));
	hca = strstr(s, "\nhca = ");
	CU_ASSERT_PTR_NOT_NULL_FATAL(hca);
	CU_ASSERT_PTR_NOT_NULL(strstr(hca, ", 0x000000000000011f\n"));
	CU_ASSERT_PTR_NULL(strstr(hca, "0x0000000000000120"));
	free(s);
}

/* The config loader on text, through a temporary file; 0 or its error. */
static int load_text(const char *text, struct pool_config *c)
{
	char path[] = "/tmp/hostsec-XXXXXX", err[512] = "";
	size_t len = strlen(text);
	int fd, ret;

	fd = mkstemp(path);
	CU_ASSERT_FATAL(fd >= 0);
	CU_ASSERT_FATAL(write(fd, text, len) == (ssize_t)len);
	close(fd);
	ret = pool_config_load(path, c, err, sizeof(err));
	if (ret)
		fprintf(stderr, "\n%s\n", err);
	unlink(path);
	return ret;
}

/* With gpus filled in, the output is a config ibpoold loads. */
static void test_loads(void)
{
	struct pool_config c;
	char *s = NULL, *g;

	CU_ASSERT_EQUAL_FATAL(section("gpu07", mixed, 4, &s), 0);
	g = strstr(s, "gpus = 0 ");
	CU_ASSERT_PTR_NOT_NULL_FATAL(g);
	g[7] = '8';
	CU_ASSERT_EQUAL_FATAL(load_text(s, &c), 0);
	CU_ASSERT_EQUAL(c.nhosts, 1);
	CU_ASSERT_STRING_EQUAL(c.hosts[0].name, "gpu07");
	CU_ASSERT_EQUAL(c.hosts[0].gpus, 8);
	CU_ASSERT_STRING_EQUAL(c.hosts[0].gpu_type, "unknown");
	CU_ASSERT_EQUAL_FATAL(c.hosts[0].nhca, 2);
	CU_ASSERT_EQUAL(c.hosts[0].hca[0].guid, 0x0002c90300001002ULL);
	CU_ASSERT_EQUAL(c.hosts[0].hca[1].guid, 0x0002c9030000100aULL);
	pool_config_release(&c);
	free(s);
}

/* pool_config_print()'s file for fab, which must hold hosts hosts. */
static char *config_text(const struct fabric *fab, const struct pool_gen *g,
			 size_t hosts)
{
	char *s = NULL;
	size_t len;
	FILE *f;

	f = open_memstream(&s, &len);
	CU_ASSERT_FATAL(f != NULL);
	CU_ASSERT_EQUAL(pool_config_print(f, fab, g), hosts);
	fclose(f);
	return s;
}

/*
 * rail-small's hosts have four HCAs each, one a rail, on four leaves:
 * one [host] a host, its hca the four port GUIDs in node order, a file
 * the config loader takes as it is, the group line written.
 */
static void test_fabric_config(void)
{
	struct pool_gen g = { .source = "rail-small", .gpus = 8,
			      .gpu_type = "H100", .group = "root" };
	char err[512] = "", *s;
	struct pool_config c;
	struct fabric *fab;
	size_t k = 0;
	uint32_t n;

	CU_ASSERT_EQUAL_FATAL(fab_load_net("ibsim-configs/rail-small.net", &fab,
					   err, sizeof(err)), 0);
	s = config_text(fab, &g, 16);
	CU_ASSERT_PTR_NOT_NULL(strstr(s, "[pool]\n"));
	CU_ASSERT_PTR_NOT_NULL(strstr(s, "\ngroup = root\n"));
	CU_ASSERT_EQUAL_FATAL(load_text(s, &c), 0);
	CU_ASSERT_EQUAL(c.nhosts, 16);
	CU_ASSERT_STRING_EQUAL(c.hosts[0].name, "node0001");
	CU_ASSERT_EQUAL(c.hosts[0].gpus, 8);
	CU_ASSERT_STRING_EQUAL(c.hosts[0].gpu_type, "H100");
	CU_ASSERT_EQUAL_FATAL(c.hosts[0].nhca, 4);
	for (n = 0; n < fab->nnodes && k < 4; n++)
		if (!fab_is_sw(fab, n) && !strncmp(fab->nodes[n].desc,
						    "node0001 ", 9))
			CU_ASSERT_EQUAL(c.hosts[0].hca[k++].guid,
					fab_port(fab, n, 1)->guid);
	CU_ASSERT_EQUAL(k, 4);
	pool_config_release(&c);
	free(s);
	fab_free(fab);
}

/*
 * A CA whose description's first word is no [host NAME] name is a
 * comment, so the file still loads, with the other hosts.
 */
static void test_fabric_bad_name(void)
{
	struct pool_gen g = { .source = "rail-small", .gpus = 8,
			      .gpu_type = "H100" };
	char err[512] = "", *s;
	struct pool_config c;
	struct fabric *fab;
	uint32_t n;
	size_t i;

	CU_ASSERT_EQUAL_FATAL(fab_load_net("ibsim-configs/rail-small.net", &fab,
					   err, sizeof(err)), 0);
	for (n = 0; n < fab->nnodes; n++)
		if (!fab_is_sw(fab, n) && !strncmp(fab->nodes[n].desc,
						    "node0001 ", 9))
			fab->nodes[n].desc[4] = ':';
	s = config_text(fab, &g, 15);
	CU_ASSERT_PTR_NULL(strstr(s, "[host node:001]"));
	CU_ASSERT_PTR_NOT_NULL(strstr(s, ": no host name"));
	CU_ASSERT_EQUAL_FATAL(load_text(s, &c), 0);
	CU_ASSERT_EQUAL(c.nhosts, 15);
	for (i = 0; i < c.nhosts; i++)
		CU_ASSERT_PTR_NULL(strchr(c.hosts[i].name, ':'));
	pool_config_release(&c);
	free(s);
	fab_free(fab);
}

static void test_name(void)
{
	char b[16];

	pool_host_name("GPU07.cluster.example", b, sizeof(b));
	CU_ASSERT_STRING_EQUAL(b, "gpu07");
	pool_host_name("a-very-long-host-name", b, sizeof(b));
	CU_ASSERT_STRING_EQUAL(b, "a-very-long-hos");
}

TU_SUITE(hostsec, { "mixed", test_mixed }, { "no_ib", test_no_ib },
	 { "many", test_many }, { "loads", test_loads },
	 { "name", test_name }, { "fabric config", test_fabric_config },
	 { "fabric bad name", test_fabric_bad_name })
