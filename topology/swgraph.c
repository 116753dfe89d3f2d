// SPDX-License-Identifier: MIT
/* The switch graph the torus and dragonfly recognisers work on. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "swgraph.h"

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return x < y ? -1 : x > y;
}

/* Peers of node n that are switches, with multiplicity, into buf. */
static unsigned int sw_peers(const struct fabric *f, uint32_t n,
			     uint32_t *buf, unsigned int *hosts)
{
	unsigned int p, k = 0;

	*hosts = 0;
	for (p = 1; p <= f->nodes[n].nports; p++) {
		const struct fab_port *fp = fab_port(f, n, p);

		if (fp->peer == FAB_NONE)
			continue;
		if (fab_is_sw(f, fp->peer))
			buf[k++] = fp->peer;
		else
			(*hosts)++;
	}
	return k;
}

/* u's distinct neighbours into nb from off[u + 1] on. */
static void fill(const struct fabric *f, struct swg *g, uint32_t u,
		 uint32_t *buf)
{
	unsigned int k, i, run, hosts, deg;

	k = sw_peers(f, g->node[u], buf, &hosts);
	qsort(buf, k, sizeof(*buf), cmp_u32);
	g->off[u + 1] = g->off[u];
	for (i = 0; i < k; i += run) {
		for (run = 1; i + run < k && buf[i + run] == buf[i];)
			run++;
		if (run > g->par_max)
			g->par_max = run;
		g->nb[g->off[u + 1]++] = g->loc[buf[i]];
	}
	deg = g->off[u + 1] - g->off[u];
	if (deg > g->deg_max)
		g->deg_max = deg;
}

int swg_build(const struct fabric *f, struct swg *g)
{
	uint32_t buf[FAB_MAX_PORTS + 1], n, u;
	unsigned int k, hosts;
	size_t tot = 0;

	memset(g, 0, sizeof(*g));
	g->loc = malloc((f->nnodes + 1) * sizeof(*g->loc));
	g->node = malloc((f->nsw + 1) * sizeof(*g->node));
	g->hosts = calloc(f->nsw + 1, sizeof(*g->hosts));
	if (!g->loc || !g->node || !g->hosts)
		return -ENOMEM;
	for (n = 0; n < f->nnodes; n++) {
		g->loc[n] = FAB_NONE;
		if (!fab_is_sw(f, n))
			continue;
		k = sw_peers(f, n, buf, &hosts);
		if (!k) {
			g->isolated++;
			continue;
		}
		if (hosts > g->hosts_max)
			g->hosts_max = hosts;
		g->hosts[g->n] = hosts;
		g->loc[n] = g->n;
		g->node[g->n++] = n;
		tot += k;
	}
	g->off = calloc(g->n + 1, sizeof(*g->off));
	g->nb = malloc((tot + 1) * sizeof(*g->nb));
	if (!g->off || !g->nb)
		return -ENOMEM;
	for (u = 0; u < g->n; u++)
		fill(f, g, u, buf);
	return 0;
}

void swg_release(struct swg *g)
{
	free(g->node);
	free(g->loc);
	free(g->off);
	free(g->nb);
	free(g->hosts);
	memset(g, 0, sizeof(*g));
}

long swg_slot(const struct swg *g, uint32_t u, uint32_t v)
{
	uint32_t lo = g->off[u], hi = g->off[u + 1];

	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;

		if (g->nb[mid] == v)
			return mid;
		if (g->nb[mid] < v)
			lo = mid + 1;
		else
			hi = mid;
	}
	return -1;
}

const char *swg_name(const struct fabric *f, const struct swg *g,
		     uint32_t u)
{
	const char *d = f->nodes[g->node[u]].desc;

	return d && *d ? d : "?";
}

uint32_t swg_find(uint32_t *uf, uint32_t x)
{
	while (uf[x] != x) {
		uf[x] = uf[uf[x]];
		x = uf[x];
	}
	return x;
}

void swg_union(uint32_t *uf, uint32_t a, uint32_t b)
{
	a = swg_find(uf, a);
	b = swg_find(uf, b);
	if (a != b)
		uf[a < b ? b : a] = a < b ? a : b;
}

int swg_refuse(char *reason, size_t rlen, char *summary, size_t slen,
	       const char *shape, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(reason, rlen, fmt, ap);
	va_end(ap);
	snprintf(summary, slen, "not a %s: %s", shape, reason);
	return 1;
}
