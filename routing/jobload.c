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
	uint32_t *load;		/* per fabric port of a switch: routes */
	uint32_t *owner;	/* per fabric port: job + 1, 0, OWNER_SHARED */
	uint32_t *path;		/* nsw: one route's links */
};

/* The switch index a CA port is cabled to, FAB_NONE if none. */
static uint32_t ca_switch(const struct jl_ctx *c, uint32_t n, unsigned int p)
{
	const struct fab_port *cp = fab_port(c->f, n, p);

	if (cp->peer == FAB_NONE || !fab_is_sw(c->f, cp->peer))
		return FAB_NONE;
	return c->t->node_sw[cp->peer];
}

/* Add cnt routes from switch s towards lid to every link on the way. */
static void walk(struct jl_ctx *c, uint32_t s, unsigned int lid, uint32_t cnt)
{
	unsigned int i, n = rt_route_links(c->t, s, lid, c->path, c->t->nsw);

	for (i = 0; i < n; i++)
		c->load[c->path[i]] += cnt;
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
	memset(c->load, 0, (f->nports + 1) * sizeof(*c->load));
	for (n = 0; n < f->nnodes; n++)
		for (p = 1; js->node_job[n] == j && p <= f->nodes[n].nports;
		     p++)
			if ((s = ca_switch(c, n, p)) != FAB_NONE)
				c->src[s]++;
	for (lid = 1; lid <= c->t->top; lid++) {
		n = c->t->lid_node[lid];
		if (n == FAB_NONE || js->node_job[n] != j ||
		    ca_switch(c, n, c->t->lid_port[lid]) == FAB_NONE)
			continue;
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

int vf_jobload(const struct rt_tables *t, const struct rt_jobs *js,
	       struct vf_jobload *jl)
{
	struct jl_ctx c = { .t = t, .f = t->fab };
	size_t np = t->fab->nports + 1, k;
	uint32_t j;
	int ret = -ENOMEM;

	memset(jl, 0, sizeof(*jl));
	jl->max = calloc(js->njobs ? js->njobs : 1, sizeof(*jl->max));
	c.src = calloc(t->nsw ? t->nsw : 1, sizeof(*c.src));
	c.load = calloc(np, sizeof(*c.load));
	c.owner = calloc(np, sizeof(*c.owner));
	c.path = calloc(t->nsw ? t->nsw : 1, sizeof(*c.path));
	if (!jl->max || !c.src || !c.load || !c.owner || !c.path)
		goto out;
	jl->njobs = js->njobs;
	for (j = 0; j < js->njobs; j++)
		jl->max[j] = one_job(&c, js, j);
	for (k = 0; k < np; k++) {
		jl->used += c.owner[k] != 0;
		jl->shared += c.owner[k] == OWNER_SHARED;
	}
	ret = 0;
out:
	free(c.src);
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
	memset(jl, 0, sizeof(*jl));
}
