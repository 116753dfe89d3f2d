// SPDX-License-Identifier: MIT
/*
 * Host grouping by fat-tree level (or switch and hop distance elsewhere)
 * and placement scoring over it.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "hostlist.h"
#include "place.h"

/* A host's HCA on a switch: tree host index, fabric switch node. */
struct att {
	uint32_t host;
	uint32_t sw;
};

static int cmp_name(const void *a, const void *b)
{
	return strcasecmp(*(char *const *)a, *(char *const *)b);
}

static int cmp_att(const void *a, const void *b)
{
	const struct att *x = a, *y = b;

	if (x->host != y->host)
		return x->host < y->host ? -1 : 1;
	return x->sw < y->sw ? -1 : x->sw > y->sw;
}

long pool_tree_host(const struct pool_tree *t, const char *name)
{
	char *const *hit = bsearch(&name, t->host, t->nhosts, sizeof(*t->host),
				   cmp_name);

	return hit ? hit - t->host : -1;
}

/* A CA with a port cabled to a switch. */
static bool cabled(const struct fabric *f, uint32_t n)
{
	unsigned int p;
	uint32_t peer;

	for (p = 1; p <= f->nodes[n].nports; p++) {
		peer = fab_port(f, n, p)->peer;
		if (peer != FAB_NONE && fab_is_sw(f, peer))
			return true;
	}
	return false;
}

/*
 * Every CA port cabled to a switch, as (host, switch) sorted by host;
 * fills t->host with the distinct names of hosts with such a port, so
 * every host has at least one.
 */
static int attachments(const struct fabric *f, struct pool_tree *t,
		       struct att **out, size_t *nout)
{
	char name[POOL_HOST_NAME_MAX + 1];
	size_t n = 0, i, k;
	struct att *a;
	unsigned int p;
	uint32_t peer;

	*out = NULL;
	for (i = 0; i < f->nnodes; i++)
		for (p = 1; !fab_is_sw(f, i) && p <= f->nodes[i].nports; p++)
			n += fab_port(f, i, p)->peer != FAB_NONE;
	t->host = calloc(f->nca + 1, sizeof(*t->host));
	a = calloc(n + 1, sizeof(*a));
	if (!t->host || !a)
		goto out_nomem;
	for (i = 0; i < f->nnodes; i++) {
		if (fab_is_sw(f, i) || !cabled(f, i))
			continue;
		fab_host_name(f, i, name, sizeof(name));
		t->host[t->nhosts] = strdup(name);
		if (!t->host[t->nhosts])
			goto out_nomem;
		t->nhosts++;
	}
	qsort(t->host, t->nhosts, sizeof(*t->host), cmp_name);
	for (i = k = 0; i < t->nhosts; i++) {
		if (k && !strcasecmp(t->host[k - 1], t->host[i]))
			free(t->host[i]);
		else
			t->host[k++] = t->host[i];
	}
	t->nhosts = k;
	for (n = 0, i = 0; i < f->nnodes; i++) {
		if (fab_is_sw(f, i))
			continue;
		fab_host_name(f, i, name, sizeof(name));
		for (p = 1; p <= f->nodes[i].nports; p++) {
			peer = fab_port(f, i, p)->peer;
			if (peer == FAB_NONE || !fab_is_sw(f, peer))
				continue;
			a[n].host = pool_tree_host(t, name);
			a[n++].sw = peer;
		}
	}
	qsort(a, n, sizeof(*a), cmp_att);
	*out = a;
	*nout = n;
	return 0;
out_nomem:
	free(a);
	return -ENOMEM;
}

/*
 * One level: join each host's switches in uf, then number the groups in
 * host order into row.  Returns the group count.
 */
static uint32_t level_row(const struct pool_tree *t, uint32_t *uf,
			  const struct att *a, size_t na, uint32_t *row,
			  uint32_t *id)
{
	uint32_t n = 0, r;
	size_t i, h;

	for (i = 1; i < na; i++)
		if (a[i].host == a[i - 1].host)
			swg_union(uf, a[i - 1].sw, a[i].sw);
	for (h = 0, i = 0; h < t->nhosts; h++) {
		while (i < na && a[i].host < h)
			i++;
		r = swg_find(uf, a[i].sw);
		if (id[r] == UINT32_MAX)
			id[r] = n++;
		row[h] = id[r];
	}
	return n;
}

/*
 * The switch naming each group of a level: the highest tier, then the
 * lowest node GUID, of the switches in the group (rep[g], FAB_NONE
 * before any).
 */
static void level_reps(const struct fabric *f, const uint8_t *tier,
		       uint32_t *uf, const uint32_t *id, uint32_t *rep)
{
	uint32_t n, g, r;

	for (n = 0; n < f->nnodes; n++) {
		if (!fab_is_sw(f, n))
			continue;
		g = id[swg_find(uf, n)];
		if (g == UINT32_MAX)
			continue;
		r = rep[g];
		if (r == FAB_NONE || tier[n] > tier[r] ||
		    (tier[n] == tier[r] && f->nodes[n].guid < f->nodes[r].guid))
			rep[g] = n;
	}
}

/* Group g's name: its switch's, "-t<l>" when that is below level l. */
static char *group_name(const struct fabric *f, char *const *swname,
			const uint8_t *tier, uint32_t rep, unsigned int l)
{
	char *s = NULL;
	int n;

	if (swname && tier[rep] >= l)
		return strdup(swname[rep]);
	if (swname)
		n = asprintf(&s, "%s-t%u", swname[rep], l);
	else if (tier[rep] >= l)
		n = asprintf(&s, "0x%016" PRIx64, f->nodes[rep].guid);
	else
		n = asprintf(&s, "0x%016" PRIx64 "-t%u", f->nodes[rep].guid, l);
	return n < 0 ? NULL : s;
}

/*
 * Keep row (level l of the fabric, n groups named after rep) as the next
 * level unless it groups as the last kept one.
 */
static int keep_level(const struct fabric *f, char *const *swname,
		      const uint8_t *tier, struct pool_tree *t,
		      const uint32_t *row, uint32_t n, const uint32_t *rep,
		      unsigned int l)
{
	char **name = t->gname + (size_t)t->nlevels * t->nhosts;
	uint32_t g;

	if (t->nlevels && t->ngroups[t->nlevels - 1] == n)
		return 0;
	for (g = 0; g < n; g++)
		if (!(name[g] = group_name(f, swname, tier, rep[g], l)))
			return -ENOMEM;
	memcpy(t->group + (size_t)t->nlevels * t->nhosts, row,
	       t->nhosts * sizeof(*row));
	t->ngroups[t->nlevels++] = n;
	return 0;
}

/*
 * Each switch's tier for naming: its fat-tree level above the leaves;
 * elsewhere 0 with hosts, 1 without.
 */
static uint8_t *tiers(const struct fabric *f, const struct ft_info *ft,
		      const struct att *a, size_t na)
{
	uint8_t *tier = calloc(f->nnodes + 1, sizeof(*tier));
	size_t i;

	if (!tier)
		return NULL;
	for (i = 0; i < f->nnodes; i++)
		if (ft->tree)
			tier[i] = ft->level[i] > ft->leaf_level ?
				  ft->level[i] - ft->leaf_level : 0;
		else
			tier[i] = 1;
	for (i = 0; !ft->tree && i < na; i++)
		tier[a[i].sw] = 0;
	return tier;
}

/*
 * Join in uf the switches whose level is at most upto by their cables;
 * every switch when level is NULL.
 */
static void join_up_to(const struct fabric *f, const uint8_t *level,
		       unsigned int upto, uint32_t *uf)
{
	size_t n;
	unsigned int p;

	for (n = 0; n < f->nnodes; n++) {
		if (!fab_is_sw(f, n) || (level && level[n] > upto))
			continue;
		for (p = 1; p <= f->nodes[n].nports; p++) {
			uint32_t q = fab_port(f, n, p)->peer;

			if (q != FAB_NONE && fab_is_sw(f, q) &&
			    (!level || level[q] <= upto))
				swg_union(uf, n, q);
		}
	}
}

static int build_levels(const struct fabric *f, char *const *swname,
			struct pool_tree *t, const struct ft_info *ft,
			const struct att *a, size_t na)
{
	uint32_t *uf, *id, *row, *rep, nl;
	unsigned int l, nfab;
	uint8_t *tier;
	size_t i;
	int ret = -ENOMEM;

	nfab = ft->tree ? ft->nlevels - ft->leaf_level : 2;
	t->group = calloc((size_t)nfab * t->nhosts + 1, sizeof(*t->group));
	/* every slot, so that a release after a failure frees them all */
	t->gname = calloc((size_t)FT_MAX_LEVELS * t->nhosts + 1,
			  sizeof(*t->gname));
	uf = malloc((f->nnodes + 1) * sizeof(*uf));
	id = malloc((f->nnodes + 1) * sizeof(*id));
	row = malloc((t->nhosts + 1) * sizeof(*row));
	rep = malloc((t->nhosts + 1) * sizeof(*rep));
	tier = tiers(f, ft, a, na);
	if (!t->group || !t->gname || !uf || !id || !row || !rep || !tier)
		goto out_free;
	for (i = 0; i < f->nnodes; i++)
		uf[i] = i;
	ret = 0;
	for (l = 0; !ret && l < nfab && l < FT_MAX_LEVELS; l++) {
		if (ft->tree)
			join_up_to(f, ft->level, ft->leaf_level + l, uf);
		else if (l)
			join_up_to(f, NULL, 0, uf);
		memset(id, 0xff, (f->nnodes + 1) * sizeof(*id));
		nl = level_row(t, uf, a, na, row, id);
		memset(rep, 0xff, (t->nhosts + 1) * sizeof(*rep));
		level_reps(f, tier, uf, id, rep);
		ret = keep_level(f, swname, tier, t, row, nl, rep, l);
	}
out_free:
	free(uf);
	free(id);
	free(row);
	free(rep);
	free(tier);
	return ret;
}

int pool_tree_build(const struct fabric *f, char *const *swname,
		    struct pool_tree *t, char *err, size_t len)
{
	struct ft_info ft;
	struct att *a = NULL;
	size_t na = 0, h, i;
	int ret;

	memset(t, 0, sizeof(*t));
	ret = attachments(f, t, &a, &na);
	if (ret)
		goto out_release;
	ret = ft_recognise(f, &ft);
	if (ret)
		goto out_release;
	t->fattree = ft.tree;
	ret = build_levels(f, swname, t, &ft, a, na);
	ft_info_release(&ft);
	if (ret || t->fattree)
		goto out_release;
	ret = swg_build(f, &t->g);
	t->host_sw = malloc((t->nhosts + 1) * sizeof(*t->host_sw));
	if (!ret && !t->host_sw)
		ret = -ENOMEM;
	if (ret)
		goto out_release;
	for (h = 0, i = 0; h < t->nhosts; h++) {
		while (i < na && a[i].host < h)
			i++;
		t->host_sw[h] = i < na && a[i].host == h ?
				t->g.loc[a[i].sw] : FAB_NONE;
	}
out_release:
	free(a);
	if (!ret)
		return 0;
	pool_tree_release(t);
	snprintf(err, len, "fabric grouping: %s", strerror(-ret));
	return ret;
}

int pool_tree_bind(struct pool_tree *t, const struct pool_config *cfg)
{
	long *ti = malloc((cfg->nhosts + 1) * sizeof(*ti));
	size_t h;

	if (!ti)
		return -ENOMEM;
	for (h = 0; h < cfg->nhosts; h++)
		ti[h] = pool_tree_host(t, cfg->hosts[h].name);
	free(t->cfg_host);
	t->cfg_host = ti;
	t->cfg = cfg;
	return 0;
}

void pool_tree_release(struct pool_tree *t)
{
	size_t h;

	for (h = 0; h < t->nhosts; h++)
		free(t->host[h]);
	for (h = 0; t->gname && h < (size_t)FT_MAX_LEVELS * t->nhosts; h++)
		free(t->gname[h]);
	free(t->gname);
	free(t->host);
	free(t->group);
	free(t->host_sw);
	free(t->cfg_host);
	swg_release(&t->g);
	memset(t, 0, sizeof(*t));
}

void pool_placement_release(struct pool_placement *pl)
{
	free(pl->hosts);
	memset(pl, 0, sizeof(*pl));
}

/* --- placement --- */

/* An eligible host and what the current ordering needs of it. */
struct elig {
	uint32_t cfg;		/* config host index */
	uint32_t tree_host;	/* tree host index */
	double load;
	uint32_t key;		/* group at the level looked at, or hops */
	uint32_t leaf;		/* level-0 key, or switch */
	uint32_t lcount;	/* eligible hosts of its leaf in the group */
	double lload;		/* their summed load */
};

/*
 * One stable counting sort of in into out by key (or leaf), values below
 * range; cnt holds range + 1 counters.
 */
static void count_sort(const struct elig *in, struct elig *out, size_t n,
		       bool leaf, uint32_t range, uint32_t *cnt)
{
	size_t i;
	uint32_t k;

	memset(cnt, 0, (range + 1) * sizeof(*cnt));
	for (i = 0; i < n; i++)
		cnt[(leaf ? in[i].leaf : in[i].key) + 1]++;
	for (k = 0; k < range; k++)
		cnt[k + 1] += cnt[k];
	for (i = 0; i < n; i++)
		out[cnt[leaf ? in[i].leaf : in[i].key]++] = in[i];
}

/* Fullest leaf first, then least loaded leaf, then host load, order. */
static int cmp_fill(const void *a, const void *b)
{
	const struct elig *x = a, *y = b;

	if (x->lcount != y->lcount)
		return x->lcount > y->lcount ? -1 : 1;
	if (x->lload != y->lload)
		return x->lload < y->lload ? -1 : 1;
	if (x->leaf != y->leaf)
		return x->leaf < y->leaf ? -1 : 1;
	if (x->load != y->load)
		return x->load < y->load ? -1 : 1;
	return x->cfg < y->cfg ? -1 : x->cfg > y->cfg;
}

/*
 * cmp_fill order, a total one (config indices differ): insertion sort
 * for the short runs of a leaf or pod, where qsort's setup was most of
 * a query, qsort for longer ones.
 */
static void sort_fill(struct elig *e, size_t n)
{
	struct elig x;
	size_t i, k;

	if (n > 16) {
		qsort(e, n, sizeof(*e), cmp_fill);
		return;
	}
	for (i = 1; i < n; i++) {
		x = e[i];
		for (k = i; k > 0 && cmp_fill(&e[k - 1], &x) > 0; k--)
			e[k] = e[k - 1];
		e[k] = x;
	}
}

/* Nearest first (key holds hops), then load, then config order. */
static int cmp_near(const void *a, const void *b)
{
	const struct elig *x = a, *y = b;

	if (x->key != y->key)
		return x->key < y->key ? -1 : 1;
	if (x->load != y->load)
		return x->load < y->load ? -1 : 1;
	return x->cfg < y->cfg ? -1 : x->cfg > y->cfg;
}

/* Score of the first need of e (in taking order): leaves and load. */
static void score(const struct elig *e, size_t need, unsigned int *groups,
		  double *load)
{
	size_t i, k;

	*groups = 0;
	*load = 0;
	for (i = 0; i < need; i++) {
		*load += e[i].load;
		for (k = 0; k < i && e[k].leaf != e[i].leaf; k++)
			;
		*groups += k == i;
	}
}

/* Better: fewer groups, then less load; ties keep the earlier one. */
static bool better(unsigned int g, double l, const struct pool_placement *b)
{
	return !b->hosts || g < b->groups || (g == b->groups && l < b->load);
}

/* The best placements found so far, in better() order. */
struct cands {
	struct pool_placement *pl;
	size_t n, max;
};

/*
 * Where a placement of span, g groups and load l would stand among c,
 * c->max when it would not; hop spans compare first (0 for trees).
 */
static size_t rank_of(const struct cands *c, unsigned int span,
		      unsigned int g, double l)
{
	size_t i;

	for (i = 0; i < c->n; i++)
		if (span < c->pl[i].span ||
		    (span == c->pl[i].span && better(g, l, &c->pl[i])))
			return i;
	return i;
}

/* Room at i for a new candidate: the last one dropped when full. */
static struct pool_placement *insert_at(struct cands *c, size_t i)
{
	if (c->n == c->max)
		pool_placement_release(&c->pl[--c->n]);
	memmove(c->pl + i + 1, c->pl + i, (c->n - i) * sizeof(*c->pl));
	memset(&c->pl[i], 0, sizeof(c->pl[i]));
	c->n++;
	return &c->pl[i];
}

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return x < y ? -1 : x > y;
}

/* Make the first need of e the placement pl (hosts by config order). */
static int take(const struct elig *e, size_t need, unsigned int span,
		struct pool_placement *pl)
{
	uint32_t *h = malloc(need * sizeof(*h));
	size_t i;

	if (!h)
		return -ENOMEM;
	for (i = 0; i < need; i++)
		h[i] = e[i].cfg;
	qsort(h, need, sizeof(*h), cmp_u32);
	free(pl->hosts);
	pl->hosts = h;
	pl->nhosts = need;
	pl->span = span;
	score(e, need, &pl->groups, &pl->load);
	return 0;
}

/* Per element of one group run: its leaf's count and load in the run. */
static void leaf_stats(struct elig *e, size_t n)
{
	size_t i, j, k;
	double s;

	for (i = 0; i < n; i = j) {
		for (s = 0, j = i; j < n && e[j].leaf == e[i].leaf; j++)
			s += e[j].load;
		for (k = i; k < j; k++) {
			e[k].lcount = j - i;
			e[k].lload = s;
		}
	}
}

/*
 * e comes in config order.  Each level orders it by group, then leaf,
 * then config order: two stable counting sorts (leaf, then group) from
 * that order, linear where a comparison sort was most of a query.
 * nonneg: no load below 0, so a placement on one leaf without load
 * cannot be bettered.
 */
static int place_tree(const struct pool_tree *t, struct elig *e, size_t ne,
		      size_t need, bool nonneg, struct cands *c)
{
	struct elig *base = malloc((ne + 1) * sizeof(*base));
	struct elig *tmp = malloc((ne + 1) * sizeof(*tmp));
	uint32_t range = 0, *cnt;
	unsigned int l, g;
	size_t i, j, k;
	double ld;
	int ret = 0;

	for (l = 0; l < t->nlevels; l++)
		if (t->ngroups[l] > range)
			range = t->ngroups[l];
	cnt = malloc((range + 1) * sizeof(*cnt));
	if (!base || !tmp || !cnt) {
		ret = -ENOMEM;
		goto out_free;
	}
	memcpy(base, e, ne * sizeof(*e));
	count_sort(base, tmp, ne, true, t->ngroups[0], cnt);
	for (l = 0; l < t->nlevels; l++) {
		for (i = 0; i < ne; i++)
			tmp[i].key = t->group[(size_t)l * t->nhosts +
					      tmp[i].tree_host];
		count_sort(tmp, e, ne, false, t->ngroups[l], cnt);
		for (i = 0; i < ne; i = j) {
			for (j = i; j < ne && e[j].key == e[i].key; j++)
				;
			if (j - i < need)
				continue;
			leaf_stats(e + i, j - i);
			sort_fill(e + i, j - i);
			score(e + i, need, &g, &ld);
			k = rank_of(c, l, g, ld);
			if (k == c->max)
				continue;
			/* the run stays contiguous for the loop */
			ret = take(e + i, need, l, insert_at(c, k));
			if (ret)
				goto out_free;
			/* one leaf, no load: no later group does better */
			if (c->pl[0].groups == 1 && c->pl[0].load == 0 &&
			    nonneg)
				break;
		}
		if (c->n)
			break;
	}
out_free:
	free(cnt);
	free(tmp);
	free(base);
	return ret;
}

/*
 * Whether the first need of e (in taking order) are the hosts of a
 * candidate already: two centres often pick the same ones.
 */
static bool same_hosts(const struct cands *c, const struct elig *e,
		       size_t need)
{
	size_t i, k, j;

	for (i = 0; i < c->n; i++) {
		for (k = 0; k < need; k++) {
			for (j = 0; j < need && c->pl[i].hosts[j] != e[k].cfg;
			     j++)
				;
			if (j == need)
				break;
		}
		if (k == need)
			return true;
	}
	return false;
}

/* Hops from local switch c to every switch, UINT32_MAX unreachable. */
static void bfs(const struct swg *g, uint32_t c, uint32_t *dist,
		uint32_t *q)
{
	size_t head = 0, tail = 0;
	uint32_t u, k;

	memset(dist, 0xff, g->n * sizeof(*dist));
	dist[c] = 0;
	q[tail++] = c;
	while (head < tail) {
		u = q[head++];
		for (k = g->off[u]; k < g->off[u + 1]; k++)
			if (dist[g->nb[k]] == UINT32_MAX) {
				dist[g->nb[k]] = dist[u] + 1;
				q[tail++] = g->nb[k];
			}
	}
}

static int place_hops(const struct pool_tree *t, struct elig *e, size_t ne,
		      size_t need, struct cands *c)
{
	uint32_t *dist = malloc((t->g.n + 1) * sizeof(*dist));
	uint32_t *q = malloc((t->g.n + 1) * sizeof(*q));
	unsigned int g;
	bool centre;
	size_t i, n, k;
	uint32_t sc;
	double ld;
	int ret = 0;

	if (!dist || !q) {
		ret = -ENOMEM;
		goto out_free;
	}
	for (sc = 0; sc < t->g.n && !ret; sc++) {
		for (centre = false, i = 0; i < ne; i++)
			centre |= e[i].leaf == sc;
		if (!centre)
			continue;
		bfs(&t->g, sc, dist, q);
		for (n = 0, i = 0; i < ne; i++) {
			e[i].key = e[i].leaf == FAB_NONE ? UINT32_MAX :
				   dist[e[i].leaf];
			n += e[i].key != UINT32_MAX;
		}
		if (n < need)
			continue;
		qsort(e, ne, sizeof(*e), cmp_near);
		score(e, need, &g, &ld);
		k = rank_of(c, e[need - 1].key, g, ld);
		if (k < c->max && (c->max == 1 || !same_hosts(c, e, need)))
			ret = take(e, need, e[need - 1].key, insert_at(c, k));
	}
out_free:
	free(dist);
	free(q);
	return ret;
}

int pool_place_cands(const struct pool *p, const struct pool_config *cfg,
		     const struct pool_tree *t, unsigned int ngpus,
		     unsigned int gpus_per_host, const double *load,
		     struct pool_placement *out, size_t max, size_t *n,
		     char *err, size_t len)
{
	struct cands c = { .pl = out, .max = max };
	size_t need, ne = 0, h;
	bool nonneg = true;
	struct elig *e;
	long ti;
	int ret;

	memset(out, 0, max * sizeof(*out));
	*n = 0;
	if (!ngpus || !gpus_per_host || gpus_per_host > POOL_MAX_GPUS) {
		snprintf(err, len, "bad request: %u GPUs, %u per host", ngpus,
			 gpus_per_host);
		return -EINVAL;
	}
	need = (ngpus + gpus_per_host - 1) / gpus_per_host;
	e = calloc(cfg->nhosts + 1, sizeof(*e));
	if (!e)
		return -ENOMEM;
	for (h = 0; h < cfg->nhosts; h++) {
		ti = t->cfg == cfg ? t->cfg_host[h] :
				     pool_tree_host(t, cfg->hosts[h].name);
		if (ti < 0 || pool_free_gpus(p, h) < gpus_per_host)
			continue;
		e[ne].cfg = h;
		e[ne].tree_host = ti;
		e[ne].load = load ? load[h] : 0;
		nonneg &= !(e[ne].load < 0);
		e[ne].leaf = t->fattree ? t->group[ti] : t->host_sw[ti];
		ne++;
	}
	ret = -ENOSPC;
	if (ne >= need)
		ret = t->fattree ? place_tree(t, e, ne, need, nonneg, &c) :
		      place_hops(t, e, ne, need, &c);
	*n = c.n;
	if (!ret && !c.n)
		ret = -ENOSPC;
	if (ret == -ENOSPC)
		snprintf(err, len, "%zu hosts with %u free GPUs needed, %zu have them%s",
			 need, gpus_per_host, ne,
			 ne >= need ? ", but not within one connected part" : "");
	free(e);
	while (ret && *n)
		pool_placement_release(&out[--*n]);
	return ret;
}

int pool_place(const struct pool *p, const struct pool_config *cfg,
	       const struct pool_tree *t, unsigned int ngpus,
	       unsigned int gpus_per_host, const double *load,
	       struct pool_placement *out, char *err, size_t len)
{
	size_t n;

	return pool_place_cands(p, cfg, t, ngpus, gpus_per_host, load, out, 1,
				&n, err, len);
}
