// SPDX-License-Identifier: MIT
/* Job sets: resolve the scheduler's host names and port GUIDs to CA nodes. */
#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "jobs.h"

#define HOST_LEN 256

/* A CA node under its host name, sorted for lookups. */
struct host {
	char *name;
	uint32_t node;
};

struct ctx {
	struct rt_jobs *js;
	const struct fabric *f;
	struct host *h;		/* nh entries, sorted by name, then node */
	size_t nh;
	rt_jobs_drop_fn drop;	/* NULL: jobs left out silently */
	void *dctx;
	uint32_t *seq;		/* CA nodes as claimed: jobs in order, hosts */
	size_t nseq;		/* in the order listed */
	uint32_t holder;	/* an earlier job holding a host of this one */
	char *err;
	size_t len;
};

static int cmp_host(const void *a, const void *b)
{
	const struct host *x = a, *y = b;
	int c = strcmp(x->name, y->name);

	return c ? c : (x->node > y->node) - (x->node < y->node);
}

static int index_hosts(struct ctx *c)
{
	const struct fabric *f = c->f;
	char buf[HOST_LEN];
	size_t n;

	c->h = calloc(f->nca ? f->nca : 1, sizeof(*c->h));
	if (!c->h)
		return -ENOMEM;
	for (n = 0; n < f->nnodes; n++) {
		if (fab_is_sw(f, n))
			continue;
		fab_host_name(f, n, buf, sizeof(buf));
		c->h[c->nh].name = strdup(buf);
		if (!c->h[c->nh].name)
			return -ENOMEM;
		c->h[c->nh++].node = n;
	}
	qsort(c->h, c->nh, sizeof(*c->h), cmp_host);
	return 0;
}

/* The CA node with a port of GUID g, FAB_NONE if none. */
static uint32_t guid_node(const struct fabric *f, uint64_t g)
{
	unsigned int p;
	size_t n;

	for (n = 0; n < f->nnodes; n++)
		for (p = 1; !fab_is_sw(f, n) && p <= f->nodes[n].nports; p++)
			if (fab_port(f, n, p)->guid == g)
				return n;
	return FAB_NONE;
}

static bool parse_guid(const char *s, uint64_t *g)
{
	char *end;

	if (s[0] != '0' || (s[1] != 'x' && s[1] != 'X') || !s[2])
		return false;
	errno = 0;
	*g = strtoull(s + 2, &end, 16);
	return !errno && !*end;
}

/* First index of name in the sorted host index, or nh. */
static size_t find_host(const struct ctx *c, const char *name)
{
	size_t lo = 0, hi = c->nh;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (strcmp(c->h[mid].name, name) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < c->nh && !strcmp(c->h[lo].name, name) ? lo : c->nh;
}

/*
 * Put node n into job j: 1, or 0 when an earlier job holds it (a node
 * two jobs share routes with the first, c->holder says which).
 */
static int claim(struct ctx *c, uint32_t n, uint32_t j)
{
	struct rt_jobs *js = c->js;
	const struct fabric *f = c->f;
	unsigned int p;

	if (js->node_job[n] != RT_JOB_NONE) {
		c->holder = js->node_job[n];
		return js->node_job[n] == j;
	}
	js->node_job[n] = j;
	c->seq[c->nseq++] = n;
	for (p = 1; p <= f->nodes[n].nports; p++)
		js->job[j].ports += fab_port(f, n, p)->peer != FAB_NONE;
	return 1;
}

/*
 * One hosts entry: a host name (every HCA of it) or a port GUID's host
 * (that HCA alone when it has no host name: nameless CAs are no host).
 */
static int add_host(struct ctx *c, uint32_t j, const char *as)
{
	char name[HOST_LEN];
	const char *s = as;
	uint64_t g;
	uint32_t n;
	size_t i;
	int ret;

	if (parse_guid(s, &g)) {
		n = guid_node(c->f, g);
		if (n == FAB_NONE) {
			snprintf(c->err, c->len, "job '%s': no CA port has GUID %s",
				 c->js->job[j].id, s);
			return -ENOENT;
		}
		if (!fab_host_name(c->f, n, name, sizeof(name))) {
			c->js->job[j].hosts += claim(c, n, j);
			return 0;
		}
		s = name;
	}
	i = find_host(c, s);
	if (i == c->nh) {
		snprintf(c->err, c->len, "job '%s': unknown host '%s'",
			 c->js->job[j].id, s);
		return -ENOENT;
	}
	if (c->js->node_job[c->h[i].node] == j)
		return 0;	/* named twice, or by a GUID and a name */
	for (ret = 0; i < c->nh && !strcmp(c->h[i].name, s); i++)
		ret |= claim(c, c->h[i].node, j);
	c->js->job[j].hosts += ret;
	return 0;
}

/*
 * Take job j, the last one added, back out: every host of it is held by
 * earlier jobs, so it has claimed no node.
 */
static void drop_job(struct ctx *c, uint32_t j)
{
	struct rt_jobs *js = c->js;
	char msg[512];

	if (c->drop) {
		snprintf(msg, sizeof(msg), "job '%s' has no host of its own: its hosts route with job '%s'",
			 js->job[j].id, js->job[c->holder].id);
		c->drop(c->dctx, msg);
	}
	free(js->job[j].id);
	memset(&js->job[j], 0, sizeof(js->job[j]));
	js->njobs = j;
}

static int add_job(struct ctx *c, const struct rt_job_spec *sp)
{
	struct rt_jobs *js = c->js;
	uint32_t j = js->njobs;
	size_t i;
	int ret = 0;

	if (!sp->id || !*sp->id) {
		snprintf(c->err, c->len, "job %u: empty id", j + 1);
		return -EINVAL;
	}
	for (i = 0; i < j; i++)
		if (!strcmp(js->job[i].id, sp->id)) {
			snprintf(c->err, c->len, "job '%s' given twice", sp->id);
			return -EEXIST;
		}
	if (sp->weight < 1 || sp->weight > RT_JOB_WEIGHT_MAX) {
		snprintf(c->err, c->len, "job '%s': weight %u not in 1-%u",
			 sp->id, sp->weight, RT_JOB_WEIGHT_MAX);
		return -EINVAL;
	}
	js->job[j].id = strdup(sp->id);
	if (!js->job[j].id)
		return -ENOMEM;
	js->job[j].weight = sp->weight;
	js->njobs = j + 1;
	c->holder = RT_JOB_NONE;
	for (i = 0; i < sp->nhosts && !ret; i++)
		ret = add_host(c, j, sp->hosts[i]);
	if (!ret && !js->job[j].hosts && c->holder != RT_JOB_NONE)
		drop_job(c, j);
	return ret;
}

/* Each job's ranks: its nodes' linked ports, in claim order. */
static int rank_jobs(struct ctx *c)
{
	struct rt_jobs *js = c->js;
	const struct fabric *f = c->f;
	uint32_t j, *at;
	unsigned int p;
	size_t i;

	js->rank_off = calloc(js->njobs + 1, sizeof(*js->rank_off));
	at = calloc(js->njobs + 1, sizeof(*at));
	if (!js->rank_off || !at) {
		free(at);
		return -ENOMEM;
	}
	for (j = 0; j < js->njobs; j++)
		js->rank_off[j + 1] = js->rank_off[j] + js->job[j].ports;
	js->rank = calloc(js->rank_off[js->njobs] + 1, sizeof(*js->rank));
	if (!js->rank) {
		free(at);
		return -ENOMEM;
	}
	memcpy(at, js->rank_off, js->njobs * sizeof(*at));
	for (i = 0; i < c->nseq; i++) {
		uint32_t n = c->seq[i];

		j = js->node_job[n];
		for (p = 1; p <= f->nodes[n].nports; p++)
			if (fab_port(f, n, p)->peer != FAB_NONE)
				js->rank[at[j]++] = (struct rt_rank){ n, p };
	}
	free(at);
	return 0;
}

int rt_jobs_build_drop(struct rt_jobs *js, const struct fabric *f,
		       const struct rt_job_spec *spec, size_t n,
		       rt_jobs_drop_fn drop, void *ctx, char *err, size_t len)
{
	struct ctx c = { .js = js, .f = f, .drop = drop, .dctx = ctx,
			 .err = err, .len = len };
	size_t i;
	int ret;

	memset(js, 0, sizeof(*js));
	*err = '\0';
	js->fab = f;
	js->job = calloc(n ? n : 1, sizeof(*js->job));
	js->node_job = malloc((f->nnodes ? f->nnodes : 1) *
			      sizeof(*js->node_job));
	c.seq = malloc((f->nnodes ? f->nnodes : 1) * sizeof(*c.seq));
	ret = -ENOMEM;
	if (!js->job || !js->node_job || !c.seq)
		goto out;
	for (i = 0; i < f->nnodes; i++)
		js->node_job[i] = RT_JOB_NONE;
	ret = index_hosts(&c);
	for (i = 0; !ret && i < n; i++)
		ret = add_job(&c, &spec[i]);
	if (!ret)
		ret = rank_jobs(&c);
out:
	if (ret == -ENOMEM && !*err)
		snprintf(err, len, "out of memory");
	for (i = 0; c.h && i < c.nh; i++)
		free(c.h[i].name);
	free(c.h);
	free(c.seq);
	if (ret)
		rt_jobs_release(js);
	return ret;
}

int rt_jobs_build(struct rt_jobs *js, const struct fabric *f,
		  const struct rt_job_spec *spec, size_t n, char *err,
		  size_t len)
{
	return rt_jobs_build_drop(js, f, spec, n, NULL, NULL, err, len);
}

void rt_jobs_release(struct rt_jobs *js)
{
	unsigned int j;

	for (j = 0; js->job && j < js->njobs; j++)
		free(js->job[j].id);
	free(js->job);
	free(js->node_job);
	free(js->rank_off);
	free(js->rank);
	memset(js, 0, sizeof(*js));
}
