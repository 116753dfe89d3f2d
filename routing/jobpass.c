// SPDX-License-Identifier: MIT
/*
 * The job pass.  Loads are kept per fabric port of a switch (its output
 * link): a2a, every host's traffic to every CA LID; own, the job being
 * routed; users, how many jobs routed so far send own traffic over it.
 */
#include <errno.h>
#include <float.h>
#include <stdlib.h>
#include <string.h>

#include "jobpass.h"

#define JP_TARGET 0.72		/* of a job's busiest own link before */
#define JP_SHARE 5.0		/* a new shared link, in job sizes of load */
#define JP_OVER 1e3		/* per job size above the target */
#define JP_CAP 1.09		/* a2a cap over the mean */
#define JP_FULL 1e6		/* a link at the a2a cap */
#define JP_MAX_HOPS 64

struct jp {
	struct rt_tables *t;
	const struct fabric *f;
	rt_cands_fn cands;
	void *cctx;
	uint32_t *hosts;	/* per switch: CA ports cabled to it */
	uint32_t *src;		/* per switch: the job's CA ports there */
	uint32_t *order;	/* switches with hosts, job's first */
	uint32_t nsrc;		/* of order, with the job's ports */
	uint32_t nhost;		/* of order, all */
	uint32_t nlid;		/* CA LIDs */
	uint32_t *a2a, *own, *users;	/* per fabric port */
	uint32_t *lids;		/* the job's CA LIDs */
	uint32_t *dsw;		/* per LID: switch its port is cabled to */
	bool *placed;		/* per LID: routed, in a2a */
	uint32_t *nbr;		/* per fabric port of a switch: peer switch */
	uint32_t *path;		/* nsw: one route's links */
	uint32_t *cseen;	/* per switch: destination its cands are of */
	uint8_t *cnum, *cport;	/* per switch: cands, FAB_MAX_PORTS each */
	uint32_t *seen;		/* per switch: walk that filled the memo */
	uint32_t *fixed;	/* per switch: destination that fixed it */
	double *memo;
	uint8_t *mport;
	uint32_t walk, dest;
	double cap, mean, size, target;
};

/* The switch behind port p of s, FAB_NONE if none; *e its fabric port. */
static uint32_t peer_of(const struct jp *j, uint32_t s, unsigned int p,
			uint32_t *e)
{
	const struct fab_node *n = &j->f->nodes[j->t->sw_node[s]];

	if (p == 0 || p > n->nports)
		return FAB_NONE;
	*e = n->port0 + p;
	return j->nbr[*e];
}

/* The candidates of s towards lid's switch, asked once per destination. */
static const uint8_t *cands_of(struct jp *j, uint32_t s, unsigned int lid,
			       unsigned int *n)
{
	uint8_t *c = j->cport + (size_t)s * FAB_MAX_PORTS;

	if (j->cseen[s] != j->dest) {
		j->cnum[s] = j->cands(j->cctx, s, j->dsw[lid], c);
		j->cseen[s] = j->dest;
	}
	*n = j->cnum[s];
	return c;
}

/* Add cnt to load along the current route from s to lid. */
static void follow(struct jp *j, uint32_t *load, uint32_t s,
		   unsigned int lid, int64_t cnt)
{
	unsigned int i, n = rt_route_links(j->t, s, lid, j->path, j->t->nsw);

	for (i = 0; i < n; i++)
		load[j->path[i]] += cnt;
}

/* Cost of c own and w all-to-all routes more on link e. */
static double link_cost(const struct jp *j, uint32_t e, uint32_t c,
			uint32_t w)
{
	double v = j->a2a[e] + w > j->cap ? JP_FULL : 0, o;

	if (!c)
		return v + j->a2a[e] / j->mean;
	o = j->own[e] + c;
	v += o / j->size;
	if (o > j->target)
		v += JP_OVER * (o - j->target) / j->size;
	if (!j->own[e] && j->users[e])
		v += JP_SHARE;
	return v;
}

/*
 * The cheapest way from s to lid's switch for c own and w routes: the
 * fixed port where this destination already chose one, else the best
 * candidate.  Memoised per walk (costs do not change within one).
 */
static double best(struct jp *j, uint32_t s, unsigned int lid, uint32_t c,
		   uint32_t w, unsigned int depth)
{
	const uint8_t *cand;
	double v, b = DBL_MAX;
	unsigned int i, n;
	uint32_t q, e;

	if (s == j->dsw[lid])
		return 0;
	if (j->seen[s] == j->walk)
		return j->memo[s];
	if (depth >= JP_MAX_HOPS)
		return DBL_MAX;
	if (j->fixed[s] == j->dest) {
		cand = rt_lft(j->t, s) + lid;
		n = 1;
	} else {
		cand = cands_of(j, s, lid, &n);
	}
	j->mport[s] = 0;
	for (i = 0; i < n; i++) {
		q = peer_of(j, s, cand[i], &e);
		if (q == FAB_NONE)
			continue;
		v = best(j, q, lid, c, w, depth + 1);
		if (v == DBL_MAX)
			continue;
		v += link_cost(j, e, c, w);
		if (v < b) {
			b = v;
			j->mport[s] = cand[i];
		}
	}
	j->seen[s] = j->walk;
	j->memo[s] = b;
	return b;
}

/* Route lid from s the cheapest way, fixing the switches on it. */
static void commit(struct jp *j, uint32_t s, unsigned int lid, uint32_t c,
		   uint32_t w)
{
	unsigned int h;
	uint32_t e;

	j->walk++;
	if (best(j, s, lid, c, w, 0) == DBL_MAX) {
		/* no candidate way: keep the engine's */
		follow(j, j->a2a, s, lid, w);
		follow(j, j->own, s, lid, c);
		return;
	}
	for (h = 0; h < JP_MAX_HOPS && s != j->dsw[lid]; h++) {
		uint8_t *row = rt_lft(j->t, s);

		if (j->fixed[s] != j->dest) {
			row[lid] = j->mport[s];
			j->fixed[s] = j->dest;
		}
		s = peer_of(j, s, row[lid], &e);
		if (s == FAB_NONE)
			return;
		j->a2a[e] += w;
		j->own[e] += c;
	}
}

static void route_lid(struct jp *j, unsigned int lid)
{
	uint32_t i, s;

	j->placed[lid] = true;
	j->dest++;
	for (i = 0; i < j->nhost; i++)
		if ((s = j->order[i]) != j->dsw[lid])
			commit(j, s, lid, i < j->nsrc ? j->src[s] : 0,
			       j->hosts[s]);
}

/* The busiest link of the job's own traffic as routed now. */
static uint32_t own_max(struct jp *j, uint32_t nl)
{
	uint32_t i, k, m = 0;

	memset(j->own, 0, (j->f->nports + 1) * sizeof(*j->own));
	for (k = 0; k < nl; k++)
		for (i = 0; i < j->nsrc; i++)
			if (j->order[i] != j->dsw[j->lids[k]])
				follow(j, j->own, j->order[i], j->lids[k],
				       j->src[j->order[i]]);
	for (i = 0; i <= j->f->nports; i++)
		if (j->own[i] > m)
			m = j->own[i];
	return m;
}

static int cmp_src(const void *a, const void *b, void *ctx)
{
	const uint32_t *src = ctx, x = *(const uint32_t *)a,
		       y = *(const uint32_t *)b;

	if (src[x] != src[y])
		return src[x] > src[y] ? -1 : 1;
	return x < y ? -1 : x > y;
}

/* Job jb's ports per switch, its LIDs, and the sources in their order. */
static uint32_t setup_job(struct jp *j, const struct rt_jobs *js,
			  uint32_t jb)
{
	const struct rt_tables *t = j->t;
	uint32_t i, k, nl = 0, n;

	memset(j->src, 0, t->nsw * sizeof(*j->src));
	for (i = 1; i <= t->top; i++) {
		n = t->lid_node[i];
		if (j->dsw[i] == FAB_NONE || rt_job_of(js, n) != jb)
			continue;
		j->lids[nl++] = i;
		if (fab_port(j->f, n, t->lid_port[i])->lid == i)
			j->src[j->dsw[i]]++;
	}
	for (i = 0, k = 0; i < j->nhost; i++)
		k += j->src[j->order[i]] > 0;
	j->nsrc = k;
	qsort_r(j->order, j->nhost, sizeof(*j->order), cmp_src, j->src);
	return nl;
}

/* Put the job's old routes back, with their all-to-all loads. */
static void restore(struct jp *j, uint32_t nl, const uint8_t *saved)
{
	uint32_t k, i, s, lid;

	for (k = 0; k < nl; k++) {
		lid = j->lids[k];
		for (i = 0; i < j->nhost; i++)
			if ((s = j->order[i]) != j->dsw[lid])
				follow(j, j->a2a, s, lid,
				       -(int64_t)j->hosts[s]);
		for (s = 0; s < j->t->nsw; s++)
			rt_lft(j->t, s)[lid] = saved[(size_t)k * j->t->nsw + s];
		for (i = 0; i < j->nhost; i++)
			if ((s = j->order[i]) != j->dsw[lid])
				follow(j, j->a2a, s, lid, j->hosts[s]);
	}
}

/*
 * Re-route one job; keep its old routes if its busiest link got no
 * lighter.  Returns 0 or -ENOMEM.
 */
static int one_job(struct jp *j, const struct rt_jobs *js, uint32_t jb,
		   struct rt_jobpass_stats *st)
{
	uint32_t nl = setup_job(j, js, jb), before, after, k, i, s;
	uint8_t *saved;

	if (!nl || !j->nsrc)
		return 0;
	saved = malloc((size_t)nl * j->t->nsw);
	if (!saved)
		return -ENOMEM;
	before = own_max(j, nl);
	for (k = 0; k < nl; k++)
		for (s = 0; s < j->t->nsw; s++)
			saved[(size_t)k * j->t->nsw + s] =
				rt_lft(j->t, s)[j->lids[k]];
	j->size = js->job[jb].ports ? js->job[jb].ports : 1;
	j->target = JP_TARGET * before;
	memset(j->own, 0, (j->f->nports + 1) * sizeof(*j->own));
	for (k = 0; k < nl; k++)
		route_lid(j, j->lids[k]);
	after = own_max(j, nl);
	if (after >= before) {
		restore(j, nl, saved);
		after = own_max(j, nl);
	}
	free(saved);
	for (i = 0; i <= j->f->nports; i++)
		j->users[i] += j->own[i] > 0;
	st->own_before += before;
	st->own_after += after;
	return 0;
}

/* Switch of every CA LID, hosts per switch, the switches with hosts. */
static void locate(struct jp *j)
{
	const struct rt_tables *t = j->t;
	uint32_t s, n, lid;

	for (lid = 0; lid <= t->top; lid++) {
		j->dsw[lid] = FAB_NONE;
		n = lid ? t->lid_node[lid] : FAB_NONE;
		if (n == FAB_NONE || fab_is_sw(j->f, n) ||
		    (j->dsw[lid] = rt_lid_switch(t, lid)) == FAB_NONE)
			continue;
		j->nlid++;
		if (fab_port(j->f, n, t->lid_port[lid])->lid == lid)
			j->hosts[j->dsw[lid]]++;
	}
	for (s = 0; s < t->nsw; s++)
		if (j->hosts[s])
			j->order[j->nhost++] = s;
}

/*
 * The cap from the all-to-all of the routing before: its mean over the
 * switch links, or its maximum when that is higher.
 */
static void set_cap(struct jp *j)
{
	uint64_t sum = 0, links = 0;
	uint32_t i, s, max = 0, lid;

	for (lid = 1; lid <= j->t->top; lid++)
		for (i = 0; j->dsw[lid] != FAB_NONE && i < j->nhost; i++)
			if ((s = j->order[i]) != j->dsw[lid])
				follow(j, j->a2a, s, lid, j->hosts[s]);
	for (i = 0; i <= j->f->nports; i++) {
		if (j->nbr[i] == FAB_NONE)
			continue;
		sum += j->a2a[i];
		links++;
		if (j->a2a[i] > max)
			max = j->a2a[i];
	}
	j->mean = links && sum ? (double)sum / links : 1;
	j->cap = JP_CAP * j->mean > max ? JP_CAP * j->mean : max;
	/* every LID is placed afresh: the jobs' first, then the others */
	memset(j->a2a, 0, (j->f->nports + 1) * sizeof(*j->a2a));
}

static int cmp_job(const void *a, const void *b, void *ctx)
{
	const struct rt_jobs *js = ctx;
	const struct rt_job *x = &js->job[*(const uint32_t *)a],
			    *y = &js->job[*(const uint32_t *)b];
	uint64_t kx = (uint64_t)x->ports * x->weight,
		 ky = (uint64_t)y->ports * y->weight;

	if (kx != ky)
		return kx > ky ? -1 : 1;
	return *(const uint32_t *)a < *(const uint32_t *)b ? -1 : 1;
}

static void jp_release(struct jp *j)
{
	free(j->hosts);
	free(j->src);
	free(j->order);
	free(j->a2a);
	free(j->own);
	free(j->users);
	free(j->lids);
	free(j->dsw);
	free(j->placed);
	free(j->nbr);
	free(j->path);
	free(j->cseen);
	free(j->cnum);
	free(j->cport);
	free(j->seen);
	free(j->fixed);
	free(j->memo);
	free(j->mport);
}

int rt_jobpass(struct rt_tables *t, const struct rt_jobs *jobs,
	       rt_cands_fn cands, void *ctx, struct rt_jobpass_stats *st)
{
	size_t np = t->fab->nports + 1, nl = t->top + 1, nsw = t->nsw + 1;
	struct rt_jobpass_stats dummy;
	struct jp j = { .t = t, .f = t->fab, .cands = cands, .cctx = ctx };
	uint32_t *ord = NULL, i, k;
	int ret = -ENOMEM;

	if (!st)
		st = &dummy;
	memset(st, 0, sizeof(*st));
	if (!jobs || !jobs->njobs)
		return 0;
	j.hosts = calloc(nsw, sizeof(*j.hosts));
	j.src = calloc(nsw, sizeof(*j.src));
	j.order = calloc(nsw, sizeof(*j.order));
	j.a2a = calloc(np, sizeof(*j.a2a));
	j.own = calloc(np, sizeof(*j.own));
	j.users = calloc(np, sizeof(*j.users));
	j.lids = calloc(nl, sizeof(*j.lids));
	j.dsw = calloc(nl, sizeof(*j.dsw));
	j.placed = calloc(nl, sizeof(*j.placed));
	j.path = malloc(nsw * sizeof(*j.path));
	j.cseen = calloc(nsw, sizeof(*j.cseen));
	j.cnum = calloc(nsw, 1);
	j.cport = malloc(nsw * FAB_MAX_PORTS);
	j.seen = calloc(nsw, sizeof(*j.seen));
	j.fixed = calloc(nsw, sizeof(*j.fixed));
	j.memo = calloc(nsw, sizeof(*j.memo));
	j.mport = calloc(nsw, sizeof(*j.mport));
	ord = malloc(jobs->njobs * sizeof(*ord));
	if (!j.hosts || !j.src || !j.order || !j.a2a || !j.own || !j.users ||
	    !j.lids || !j.dsw || !j.placed || !j.path || !j.cseen || !j.cnum ||
	    !j.cport || !j.seen || !j.fixed ||
	    !j.memo || !j.mport || !ord)
		goto out;
	ret = rt_peer_switches(t, &j.nbr);
	if (ret)
		goto out;
	locate(&j);
	if ((double)j.nlid * j.nhost * t->nsw > RT_JOBPASS_BUDGET) {
		st->skipped = true;
		goto out;
	}
	set_cap(&j);
	for (i = 0; i < jobs->njobs; i++)
		ord[i] = i;
	qsort_r(ord, jobs->njobs, sizeof(*ord), cmp_job, (void *)jobs);
	for (i = 0, ret = 0; !ret && i < jobs->njobs; i++)
		ret = one_job(&j, jobs, ord[i], st);
	j.nsrc = 0;
	for (k = 1; !ret && k <= t->top; k++)
		if (j.dsw[k] != FAB_NONE && !j.placed[k])
			route_lid(&j, k);
	for (k = 0, i = 0; !ret && k < np; k++) {
		st->shared += j.users[k] > 1;
		if (j.a2a[k] > i)
			i = j.a2a[k];
	}
	st->balanced = i <= j.cap;
out:
	free(ord);
	jp_release(&j);
	return ret;
}
