// SPDX-License-Identifier: MIT
/*
 * frag-bound PODS NODES SEED: the requests that arrive in FGD's measure
 * (rpl_frag(), the same shuffle) as a linear program for glpsol (CPLEX
 * LP format, on stdout): the most GPU milli any placement of them could
 * allocate, GPUs alone.  Each GPU is a path of the arc-flow model of
 * bin packing (Valerio de Carvalho): arcs of each share size, of a
 * whole GPU, and of waste; a size's arcs at most its requests.  Hosts,
 * CPU, memory and models are left out, a pod of several GPUs may split
 * and the program is solved as an LP (fractions of a GPU's path), so no
 * placement allocates more: 100 - objective / capacity is a lower bound
 * on the unallocated %.  tests/bench/sched.sh prints it.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tools/lib/pool/replay.h"

struct want {
	uint64_t share[SCH_MILLI + 1];	/* requests by share, milli */
	uint64_t whole;			/* GPUs of whole-GPU requests */
};

static void arrive(void *ctx, const struct sch_req *r)
{
	struct want *w = ctx;

	if (r->gpus)
		w->whole += r->gpus;
	else if (r->milli)
		w->share[r->milli]++;
}

static unsigned int gcd(unsigned int a, unsigned int b)
{
	while (b) {
		unsigned int t = a % b;

		a = b;
		b = t;
	}
	return a;
}

/* The arc-flow program over nodes 0..SCH_MILLI / q of q milli each. */
static void program(const struct want *w, uint64_t gpus, unsigned int q)
{
	unsigned int n = SCH_MILLI / q, v, m;

	printf("\\ capacity %llu milli\nMaximize\n obj: %u whole",
	       (unsigned long long)gpus * SCH_MILLI, SCH_MILLI);
	for (m = 1; m < SCH_MILLI; m++)
		for (v = 0; w->share[m] && v + m / q <= n; v++)
			printf("\n + %u a%u_%u", m, v, m);
	printf("\nSubject To\n gpus: z + whole <= %llu\n",
	       (unsigned long long)gpus);
	for (v = 0; v <= n; v++) {	/* out of v less into v */
		printf(" n%u:%s", v, v == 0 ? " - z" : v == n ? " z" : "");
		if (v < n)
			printf(" + l%u", v);
		if (v)
			printf(" - l%u", v - 1);
		for (m = 1; m < SCH_MILLI; m++) {
			if (!w->share[m])
				continue;
			if (v + m / q <= n)
				printf(" + a%u_%u", v, m);
			if (v >= m / q)
				printf(" - a%u_%u", v - m / q, m);
		}
		printf(" = 0\n");
	}
	for (m = 1; m < SCH_MILLI; m++) {
		if (!w->share[m])
			continue;
		printf(" s%u:", m);
		for (v = 0; v + m / q <= n; v++)
			printf(" + a%u_%u", v, m);
		printf(" <= %llu\n", (unsigned long long)w->share[m]);
	}
	printf("Bounds\n whole <= %llu\nEnd\n",
	       (unsigned long long)w->whole);
}

int main(int argc, char **argv)
{
	struct trc_read_opts ro = { .fmt = TRC_FMT_AUTO,
				    .flags = TRC_OPT_ALL_PODS };
	struct trc_trace tr = { 0 };
	struct trc_cluster c = { 0 };
	struct sch_host *h = NULL;
	struct want *w = calloc(1, sizeof(*w));
	struct rpl_opts o = { .nlevels = 1, .policy = SCH_FIFO };
	uint64_t gpus = 0;
	unsigned int q = SCH_MILLI, m;
	size_t i, refused;
	double un;
	char err[256], *end = NULL;
	int ret = 1;

	if (argc == 4)
		o.seed = strtoull(argv[3], &end, 10);
	if (argc != 4 || !w || end == argv[3] || *end) {
		fprintf(stderr, "usage: frag-bound PODS NODES SEED\n");
		free(w);
		return 2;
	}
	if (trc_read(argv[1], &ro, &tr, err, sizeof(err)) ||
	    trc_read_nodes(argv[2], &c, err, sizeof(err)))
		goto out;
	h = calloc(c.n, sizeof(*h));
	if (!h) {
		snprintf(err, sizeof(err), "out of memory");
		goto out;
	}
	for (i = 0; i < c.n; i++) {	/* GPUs are all the bound needs */
		h[i].gpus = c.nodes[i].gpus;
		gpus += h[i].gpus;
	}
	o.trace = &tr;
	o.hosts = h;
	o.nhosts = c.n;
	o.nodes = &c;
	o.arrive = arrive;
	o.arrive_ctx = w;
	if (rpl_frag(&o, &un, &refused, err, sizeof(err)))
		goto out;
	for (m = 1; m < SCH_MILLI; m++)
		if (w->share[m])
			q = gcd(q, m);
	program(w, gpus, q);
	ret = 0;
out:
	if (ret)
		fprintf(stderr, "frag-bound: %s\n", err);
	free(h);
	free(w);
	trc_cluster_free(&c);
	trc_free(&tr);
	return ret;
}
