// SPDX-License-Identifier: MIT
/*
 * The pool library without the daemon: linked against libgppool.a and
 * libgpcore.a only, it loads a pool.conf, allocates GPUs with a flat cost
 * oracle and checks the pool's count of free GPUs.  Its link map shows
 * what the library pulls in (tests/link/t-pool-link.sh).
 */
#include <stdio.h>
#include <string.h>

#include "tools/lib/pool/config.h"
#include "tools/lib/pool/pool.h"

/* Every port reachable at its first LID, all equally loaded. */
static int flat_cost(void *ctx, const char *client,
		     const struct pool_port *port, uint32_t *dlid,
		     double *load)
{
	(void)ctx;
	(void)client;
	*dlid = (uint32_t)port->index + 1;
	*load = 0;
	return 0;
}

/* Two GPUs for the first host: they come from it, its count drops. */
static int alloc_two(const struct pool_config *cfg, struct pool *p,
		     char *err, size_t len)
{
	const struct pool_oracle o = { .cost = flat_cost };
	const struct pool_request rq = {
		.client = cfg->hosts[0].name, .ngpus = 2, .now = 1000,
	};
	const struct pool_alloc *a;
	unsigned int before = pool_free_gpus(p, 0);
	int ret;

	ret = pool_alloc(p, &rq, &o, &a, err, len);
	if (ret)
		return ret;
	if (a->ngpus != 2 || a->gpus[0].host != 0 ||
	    pool_free_gpus(p, 0) != before - 2 || pool_nallocs(p) != 1) {
		snprintf(err, len, "allocation of 2 GPUs on %s not as asked",
			 cfg->hosts[0].name);
		return -1;
	}
	return 0;
}

int main(int argc, char **argv)
{
	struct pool_config cfg;
	struct pool *p;
	char err[512];
	int ret;

	if (argc != 2) {
		fprintf(stderr, "usage: pool-only POOL.CONF\n");
		return 2;
	}
	if (pool_config_load(argv[1], &cfg, err, sizeof(err))) {
		fprintf(stderr, "pool-only: %s\n", err);
		return 1;
	}
	ret = pool_new(&cfg, &p);
	if (ret) {
		fprintf(stderr, "pool-only: pool_new: %s\n", strerror(-ret));
		goto out_cfg;
	}
	ret = alloc_two(&cfg, p, err, sizeof(err));
	if (ret)
		fprintf(stderr, "pool-only: %s\n", err);
	else
		printf("pool-only: %zu hosts, 2 GPUs allocated on %s\n",
		       cfg.nhosts, cfg.hosts[0].name);
	pool_free(p);
out_cfg:
	pool_config_release(&cfg);
	return ret ? 1 : 0;
}
