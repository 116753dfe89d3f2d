// SPDX-License-Identifier: MIT
/*
 * The incremental channel dependency graph: edges as per-node lists, so
 * that a refused batch, pushed last, comes off their heads again.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "cdg.h"

#define NONE UINT32_MAX

int cdg_init(struct cdg *g, uint32_t nn)
{
	memset(g, 0, sizeof(*g));
	g->nn = nn;
	g->head = malloc(((size_t)nn + 1) * sizeof(*g->head));
	g->seen = calloc((size_t)nn + 1, sizeof(*g->seen));
	g->stk = malloc(((size_t)nn + 1) * sizeof(*g->stk));
	if (!g->head || !g->seen || !g->stk)
		return -ENOMEM;
	memset(g->head, 0xff, ((size_t)nn + 1) * sizeof(*g->head));
	return 0;
}

void cdg_release(struct cdg *g)
{
	free(g->head);
	free(g->from);
	free(g->to);
	free(g->next);
	free(g->seen);
	free(g->stk);
	memset(g, 0, sizeof(*g));
}

bool cdg_reach(struct cdg *g, uint32_t b, uint32_t a)
{
	uint32_t n, sp = 0, k;

	g->stamp++;
	g->seen[b] = g->stamp;
	g->stk[sp++] = b;
	while (sp) {
		n = g->stk[--sp];
		if (n == a)
			return true;
		for (k = g->head[n]; k != NONE; k = g->next[k])
			if (g->seen[g->to[k]] != g->stamp) {
				g->seen[g->to[k]] = g->stamp;
				g->stk[sp++] = g->to[k];
			}
	}
	return false;
}

static bool cdg_has(const struct cdg *g, uint32_t a, uint32_t b)
{
	uint32_t k;

	for (k = g->head[a]; k != NONE; k = g->next[k])
		if (g->to[k] == b)
			return true;
	return false;
}

static int cdg_grow(struct cdg *g)
{
	size_t n = g->cap ? 2 * g->cap : 4096;
	uint32_t *p;

	p = realloc(g->from, n * sizeof(*p));
	if (!p)
		return -ENOMEM;
	g->from = p;
	p = realloc(g->to, n * sizeof(*p));
	if (!p)
		return -ENOMEM;
	g->to = p;
	p = realloc(g->next, n * sizeof(*p));
	if (!p)
		return -ENOMEM;
	g->next = p;
	g->cap = n;
	return 0;
}

/* Takes off the edges pushed since there were ne, last first. */
static void cdg_pop(struct cdg *g, size_t ne)
{
	while (g->ne > ne) {
		g->ne--;
		g->head[g->from[g->ne]] = g->next[g->ne];
	}
}

int cdg_add(struct cdg *g, const uint32_t *from, const uint32_t *to,
	    size_t n, bool check)
{
	size_t ne = g->ne, i;
	int ret;

	for (i = 0; i < n; i++) {
		if (cdg_has(g, from[i], to[i]))
			continue;
		if (g->ne == g->cap) {
			ret = cdg_grow(g);
			if (ret)
				goto fail;
		}
		g->from[g->ne] = from[i];
		g->to[g->ne] = to[i];
		g->next[g->ne] = g->head[from[i]];
		g->head[from[i]] = g->ne++;
	}
	/* acyclic before, so a cycle now runs through a new edge */
	for (i = ne; check && i < g->ne; i++)
		if (cdg_reach(g, g->to[i], g->from[i])) {
			ret = 0;
			goto fail;
		}
	return 1;
fail:
	cdg_pop(g, ne);
	return ret;
}
