// SPDX-License-Identifier: MIT
/* Job-own all-to-all loads: sources counted per leaf, walked per LID. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "jobload.h"

#define OWNER_SHARED UINT32_MAX

struct jl_ctx {
	const struct rt_tables *t;
	const struct fabric *f;
	uint32_t *src;		/* per switch index: the job's CA ports there */
	uint32_t *dst;		/* per switch index: the job's LIDs there */
	uint32_t *links;	/* per switch index: its switch links */
	uint32_t *load;		/* per fabric port of a switch: routes */
	uint32_t *owner;	/* per fabric port: job + 1, 0, OWNER_SHARED */
	uint32_t *path;		/* nsw: one route's links */
};

/* Add cnt routes from switch s towards lid to every link on the way. */
static void walk(struct jl_ctx *c, uint32_t s, unsigned int lid, uint32_t cnt)
{
	unsigned int i, n = rt_route_links(c->t, s, lid, c->path, c->t->nsw);

	for (i = 0; i < n; i++)
		c->load[c->path[i]] += cnt;
}

static uint64_t ceil_div(uint64_t a, uint64_t b)
{
	return b ? (a + b - 1) / b : 0;
}

/* The job's routes out of or into its busiest switch, per switch link. */
static uint64_t bound(const struct jl_ctx *c)
{
	uint64_t ports = 0, lids = 0, b = 0, x;
	uint32_t s;

	for (s = 0; s < c->t->nsw; s++) {
		ports += c->src[s];
		lids += c->dst[s];
	}
	for (s = 0; s < c->t->nsw; s++) {
		x = ceil_div((uint64_t)c->src[s] * (lids - c->dst[s]),
			     c->links[s]);
		if (x > b)
			b = x;
		x = ceil_div((ports - c->src[s]) * c->dst[s], c->links[s]);
		if (x > b)
			b = x;
	}
	return b;
}

/* Job j's all-to-all into c->load, then its max and link owners. */
static uint64_t one_job(struct jl_ctx *c, const struct rt_jobs *js,
			uint32_t j)
{
	const struct fabric *f = c->f;
	unsigned int p, lid, k;
	uint64_t max = 0;
	uint32_t n, s;

	memset(c->src, 0, c->t->nsw * sizeof(*c->src));
	memset(c->dst, 0, c->t->nsw * sizeof(*c->dst));
	memset(c->load, 0, (f->nports + 1) * sizeof(*c->load));
	for (n = 0; n < f->nnodes; n++)
		for (p = 1; js->node_job[n] == j && p <= f->nodes[n].nports;
		     p++)
			if ((s = rt_port_switch(c->t, n, p)) != FAB_NONE)
				c->src[s]++;
	for (lid = 1; lid <= c->t->top; lid++) {
		n = c->t->lid_node[lid];
		if (n == FAB_NONE || js->node_job[n] != j ||
		    (k = rt_port_switch(c->t, n, c->t->lid_port[lid])) == FAB_NONE)
			continue;
		c->dst[k]++;
		for (s = 0; s < c->t->nsw; s++)
			if (c->src[s])
				walk(c, s, lid, c->src[s]);
	}
	for (k = 0; k <= f->nports; k++) {
		if (!c->load[k])
			continue;
		if (c->load[k] > max)
			max = c->load[k];
		if (!c->owner[k])
			c->owner[k] = j + 1;
		else if (c->owner[k] != j + 1)
			c->owner[k] = OWNER_SHARED;
	}
	return max;
}

static void count_links(struct jl_ctx *c)
{
	uint32_t s, n;
	unsigned int p;

	for (s = 0; s < c->t->nsw; s++) {
		n = c->t->sw_node[s];
		for (p = 1; p <= c->f->nodes[n].nports; p++) {
			const struct fab_port *fp = fab_port(c->f, n, p);

			c->links[s] += fp->peer != FAB_NONE &&
				       fab_is_sw(c->f, fp->peer);
		}
	}
}

int vf_jobload(const struct rt_tables *t, const struct rt_jobs *js,
	       struct vf_jobload *jl)
{
	struct jl_ctx c = { .t = t, .f = t->fab };
	size_t np = t->fab->nports + 1, k;
	uint32_t j;
	int ret = -ENOMEM;

	memset(jl, 0, sizeof(*jl));
	jl->max = calloc(js->njobs ? js->njobs : 1, sizeof(*jl->max));
	jl->bound = calloc(js->njobs ? js->njobs : 1, sizeof(*jl->bound));
	c.src = calloc(t->nsw ? t->nsw : 1, sizeof(*c.src));
	c.dst = calloc(t->nsw ? t->nsw : 1, sizeof(*c.dst));
	c.links = calloc(t->nsw ? t->nsw : 1, sizeof(*c.links));
	c.load = calloc(np, sizeof(*c.load));
	c.owner = calloc(np, sizeof(*c.owner));
	c.path = calloc(t->nsw ? t->nsw : 1, sizeof(*c.path));
	if (!jl->max || !jl->bound || !c.src || !c.dst || !c.links ||
	    !c.load || !c.owner || !c.path)
		goto out;
	count_links(&c);
	jl->njobs = js->njobs;
	for (j = 0; j < js->njobs; j++) {
		jl->max[j] = one_job(&c, js, j);
		jl->bound[j] = bound(&c);
	}
	for (k = 0; k < np; k++) {
		jl->used += c.owner[k] != 0;
		jl->shared += c.owner[k] == OWNER_SHARED;
	}
	ret = 0;
out:
	free(c.src);
	free(c.dst);
	free(c.links);
	free(c.load);
	free(c.owner);
	free(c.path);
	if (ret)
		vf_jobload_release(jl);
	return ret;
}

void vf_jobload_release(struct vf_jobload *jl)
{
	free(jl->max);
	free(jl->bound);
	memset(jl, 0, sizeof(*jl));
}
