// SPDX-License-Identifier: MIT
/* Job-own loads of candidate route trees: walked from the job's switches. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "jobplan.h"

#define OWNER_SHARED UINT32_MAX

/* Per job, the switches its CA ports are cabled to, with their counts. */
static int sources(struct rt_jobplan *jp)
{
	const struct rt_tables *t = jp->t;
	const struct fabric *f = t->fab;
	uint32_t nj = jp->js->njobs, j, n, s, k = 0;
	uint32_t *m = calloc((size_t)nj * t->nsw + 1, sizeof(*m));
	unsigned int p;

	if (!m)
		return -ENOMEM;
	for (n = 0; n < f->nnodes; n++) {
		j = jp->js->node_job[n];
		for (p = 1; j != RT_JOB_NONE && p <= f->nodes[n].nports; p++)
			if ((s = rt_port_switch(t, n, p)) != FAB_NONE)
				k += !m[(size_t)j * t->nsw + s]++;
	}
	jp->src = malloc((k + 1) * sizeof(*jp->src));
	jp->cnt = malloc((k + 1) * sizeof(*jp->cnt));
	if (!jp->src || !jp->cnt) {
		free(m);
		return -ENOMEM;
	}
	for (j = 0, k = 0; j < nj; j++) {
		jp->soff[j] = k;
		for (s = 0; s < t->nsw; s++)
			if (m[(size_t)j * t->nsw + s]) {
				jp->src[k] = s;
				jp->cnt[k++] = m[(size_t)j * t->nsw + s];
			}
	}
	jp->soff[nj] = k;
	free(m);
	return 0;
}

int rt_jobplan_init(struct rt_jobplan *jp, const struct rt_tables *t,
		    const struct rt_jobs *js)
{
	size_t np = t->fab->nports + 1, nl = (size_t)js->njobs * np;

	memset(jp, 0, sizeof(*jp));
	if (nl > RT_JOBPLAN_MAX)
		return -E2BIG;
	jp->t = t;
	jp->js = js;
	jp->soff = calloc(js->njobs + 1, sizeof(*jp->soff));
	jp->base = calloc(nl, sizeof(*jp->base));
	jp->plan = calloc(nl, sizeof(*jp->plan));
	jp->owner = calloc(np, sizeof(*jp->owner));
	jp->add = calloc(np, sizeof(*jp->add));
	jp->touch = malloc(np * sizeof(*jp->touch));
	jp->path = malloc((t->nsw + 1) * sizeof(*jp->path));
	if (!jp->soff || !jp->base || !jp->plan || !jp->owner || !jp->add ||
	    !jp->touch || !jp->path)
		return -ENOMEM;
	return sources(jp);
}

void rt_jobplan_release(struct rt_jobplan *jp)
{
	free(jp->soff);
	free(jp->src);
	free(jp->cnt);
	free(jp->base);
	free(jp->plan);
	free(jp->owner);
	free(jp->add);
	free(jp->touch);
	free(jp->path);
	memset(jp, 0, sizeof(*jp));
}

void rt_jobplan_use(const char **use, int ret)
{
	if (use && (!ret || ret == -E2BIG))
		*use = ret ? "none (too many jobs x ports)" : "planned";
}

uint32_t rt_jobplan_job(const struct rt_jobplan *jp, unsigned int lid)
{
	const struct rt_tables *t = jp->t;
	uint32_t n = t->lid_node[lid];

	if (n == FAB_NONE || fab_is_sw(t->fab, n) ||
	    rt_port_switch(t, n, t->lid_port[lid]) == FAB_NONE)
		return RT_JOB_NONE;
	return jp->js->node_job[n];
}

/* The job's routes to lid into jp->add; the number of links touched. */
static uint32_t tree(struct rt_jobplan *jp, uint32_t j, unsigned int lid)
{
	uint32_t k, nt = 0, x;
	unsigned int i, n;

	for (k = jp->soff[j]; k < jp->soff[j + 1]; k++) {
		n = rt_route_links(jp->t, jp->src[k], lid, jp->path,
				   jp->t->nsw);
		for (i = 0; i < n; i++) {
			x = jp->path[i];
			if (!jp->add[x])
				jp->touch[nt++] = x;
			jp->add[x] += jp->cnt[k];
		}
	}
	return nt;
}

void rt_jobplan_cost(struct rt_jobplan *jp, unsigned int lid,
		     struct rt_jp_cost *c)
{
	uint32_t j = rt_jobplan_job(jp, lid), nt, i, x, own;
	const uint32_t *load;
	uint64_t l;

	memset(c, 0, sizeof(*c));
	if (j == RT_JOB_NONE)
		return;
	load = jp->plan + (size_t)j * (jp->t->fab->nports + 1);
	nt = tree(jp, j, lid);
	for (i = 0; i < nt; i++) {
		x = jp->touch[i];
		l = load[x] + jp->add[x];
		own = jp->owner[x];
		c->max = l > c->max ? l : c->max;
		c->foreign += own && own != j + 1;
		c->sq += (uint64_t)load[x] * jp->add[x];
		jp->add[x] = 0;
	}
}

bool rt_jobplan_better(const struct rt_jp_cost *a,
		       const struct rt_jp_cost *b)
{
	if (a->max != b->max)
		return a->max < b->max;
	if (a->foreign != b->foreign)
		return a->foreign < b->foreign;
	return a->sq < b->sq;
}

void rt_jobplan_add(struct rt_jobplan *jp, unsigned int lid, bool base)
{
	uint32_t j = rt_jobplan_job(jp, lid), nt, i, x, *load;

	if (j == RT_JOB_NONE)
		return;
	load = (base ? jp->base : jp->plan) +
	       (size_t)j * (jp->t->fab->nports + 1);
	nt = tree(jp, j, lid);
	for (i = 0; i < nt; i++) {
		x = jp->touch[i];
		load[x] += jp->add[x];
		jp->add[x] = 0;
		if (base)
			continue;
		if (!jp->owner[x])
			jp->owner[x] = j + 1;
		else if (jp->owner[x] != j + 1)
			jp->owner[x] = OWNER_SHARED;
	}
}

static uint32_t row_max(const struct rt_jobplan *jp, const uint32_t *l,
			uint32_t j)
{
	size_t np = jp->t->fab->nports + 1, k;
	uint32_t m = 0;

	for (k = 0; k < np; k++)
		if (l[(size_t)j * np + k] > m)
			m = l[(size_t)j * np + k];
	return m;
}

bool rt_jobplan_keep(const struct rt_jobplan *jp, uint32_t j)
{
	return row_max(jp, jp->plan, j) < row_max(jp, jp->base, j);
}
