// SPDX-License-Identifier: MIT
/*
 * Dragonfly recognition.  Dragonfly+ first: hosted leaves cabled only to
 * unhosted spines, one group per leaf/spine component, the spine-to-spine
 * cables between components global.  Otherwise the groups are the dense
 * parts of the switch graph.  The triangles of an all-to-all group share
 * cables with each other, so they form one block when triangles that
 * share a cable are joined, even with a cable failed; global cables can
 * close triangles too (switch 0 of three groups cabled in a ring), but
 * fewer, sparse and apart from the groups'.  Each switch joins the dense
 * block where it has the most triangles; one that failed cables left in
 * none, or in a block of its own, joins the neighbouring group it fits
 * best.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dflyrec.h"
#include "swgraph.h"

#define MIN_A 4			/* triangles of smaller groups share no cable */
#define MIN_DENSITY 0.6		/* local cables over a full clique */
#define MIN_TRI_SHARE 0.05	/* a group block's triangles over a clique's */

struct dfr {
	const struct fabric *f;
	struct df_info *di;
	struct swg g;
	uint32_t *first;	/* per slot: a triangle on that cable, or NONE */
	uint32_t (*tri)[3];	/* triangles, switches ascending */
	size_t ntri, tri_cap;
	uint32_t *uf;		/* per switch, then per triangle */
	uint32_t *group;	/* per switch: group, FAB_NONE */
	uint32_t *size;		/* per group: switches (leaves for D+) */
	uint32_t *nspine;	/* per group: spines (D+) */
	uint32_t *pairs;	/* ng x ng global cables */
	uint32_t ng;
	bool plus;
};

static const char *name(const struct dfr *r, uint32_t u)
{
	return swg_name(r->f, &r->g, u);
}

static bool hosted(const struct dfr *r, uint32_t u)
{
	return r->g.hosts[u] > 0;
}

static int add_tri(struct dfr *r, uint32_t u, uint32_t v, uint32_t w)
{
	uint32_t (*nt)[3];
	size_t cap;

	if (r->ntri == r->tri_cap) {
		cap = r->tri_cap ? 2 * r->tri_cap : 1024;
		nt = realloc(r->tri, cap * sizeof(*nt));
		if (!nt)
			return -ENOMEM;
		r->tri = nt;
		r->tri_cap = cap;
	}
	r->tri[r->ntri][0] = u;
	r->tri[r->ntri][1] = v;
	r->tri[r->ntri][2] = w;
	r->ntri++;
	return 0;
}

/* Every triangle u < v < w once: w a common neighbour of u and v. */
static int triangles(struct dfr *r)
{
	const struct swg *g = &r->g;
	uint32_t u, v, i, j, k;
	int ret;

	for (u = 0; u < g->n; u++)
		for (k = g->off[u]; k < g->off[u + 1]; k++) {
			v = g->nb[k];
			if (v < u)
				continue;
			i = k + 1;
			j = g->off[v];
			while (i < g->off[u + 1] && j < g->off[v + 1]) {
				if (g->nb[i] < g->nb[j]) {
					i++;
				} else if (g->nb[i] > g->nb[j]) {
					j++;
				} else {
					ret = add_tri(r, u, v, g->nb[i]);
					if (ret)
						return ret;
					i++;
					j++;
				}
			}
		}
	return 0;
}

/* Join triangle t with the others on its cable from a to b (a < b). */
static void share(struct dfr *r, uint32_t t, uint32_t a, uint32_t b)
{
	long k = swg_slot(&r->g, a, b);

	if (r->first[k] == FAB_NONE)
		r->first[k] = t;
	else
		swg_union(r->uf, t, r->first[k]);
}

/* Blocks of cable-sharing triangles: uf over triangles. */
static int blocks(struct dfr *r)
{
	uint32_t t, i;

	r->first = malloc((r->g.off[r->g.n] + 1) * sizeof(*r->first));
	free(r->uf);
	r->uf = malloc((r->ntri + 1) * sizeof(*r->uf));
	if (!r->first || !r->uf)
		return -ENOMEM;
	for (i = 0; i < r->g.off[r->g.n]; i++)
		r->first[i] = FAB_NONE;
	for (t = 0; t < r->ntri; t++)
		r->uf[t] = t;
	for (t = 0; t < r->ntri; t++) {
		share(r, t, r->tri[t][0], r->tri[t][1]);
		share(r, t, r->tri[t][0], r->tri[t][2]);
		share(r, t, r->tri[t][1], r->tri[t][2]);
	}
	return 0;
}

/* (switch, block) of every triangle corner, to count by sorting. */
struct corner {
	uint32_t sw, blk;
};

static int cmp_corner(const void *x, const void *y)
{
	const struct corner *a = x, *b = y;

	if (a->sw != b->sw)
		return a->sw < b->sw ? -1 : 1;
	return a->blk < b->blk ? -1 : a->blk > b->blk;
}

/*
 * A group's block is dense: its triangles are a fair share of all its
 * switches could close (a clique closes every one).  The triangles that
 * global cables close chain into sparse blocks across the groups.
 */
static bool dense(uint32_t tris, uint32_t sws)
{
	double all = (double)sws * (sws - 1) * (sws - 2) / 6;

	return sws >= 3 && tris >= MIN_TRI_SHARE * all;
}

/* Switches per block, from the corners sorted by switch then block. */
static void block_switches(const struct corner *c, size_t n, uint32_t *sws)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (!i || c[i].sw != c[i - 1].sw || c[i].blk != c[i - 1].blk)
			sws[c[i].blk]++;
}

/*
 * Each switch's block: of the dense ones it has triangles in, the one
 * with most of them, then the larger, then the lower; none when it has
 * no triangle in a dense block (adopt() places it).  Blocks are
 * numbered as groups in switch order.
 */
static int choose(struct dfr *r)
{
	struct corner *c = malloc((3 * r->ntri + 1) * sizeof(*c));
	uint32_t *weight = calloc(r->ntri + 1, sizeof(*weight));
	uint32_t *sws = calloc(r->ntri + 1, sizeof(*sws));
	uint32_t *gid = malloc((r->ntri + 1) * sizeof(*gid));
	size_t n = 0, i, j, k, best, bn;
	uint32_t t, b;
	int ret = -ENOMEM;

	if (!c || !weight || !sws || !gid)
		goto out;
	for (t = 0; t < r->ntri; t++) {
		b = swg_find(r->uf, t);
		weight[b]++;
		gid[t] = FAB_NONE;
		for (i = 0; i < 3; i++)
			c[n++] = (struct corner){ r->tri[t][i], b };
	}
	qsort(c, n, sizeof(*c), cmp_corner);
	block_switches(c, n, sws);
	for (i = 0; i < r->g.n; i++)
		r->group[i] = FAB_NONE;
	r->ng = 0;
	for (i = 0; i < n; i = j) {
		best = n;
		bn = 0;
		for (j = i; j < n && c[j].sw == c[i].sw; j = k) {
			for (k = j; k < n && c[k].sw == c[j].sw &&
				    c[k].blk == c[j].blk; k++)
				;
			b = c[j].blk;
			if (!dense(weight[b], sws[b]))
				continue;
			if (k - j > bn || (k - j == bn &&
					   weight[b] > weight[c[best].blk])) {
				best = j;
				bn = k - j;
			}
		}
		if (best == n)
			continue;
		b = c[best].blk;
		if (gid[b] == FAB_NONE)
			gid[b] = r->ng++;
		r->group[c[i].sw] = gid[b];
	}
	ret = 0;
out:
	free(c);
	free(weight);
	free(sws);
	free(gid);
	return ret;
}

/*
 * How well group G fits switch u, which lies in no triangle (failed
 * local cables left it one or none): better the more switches G lacks,
 * then the fewer of u's other neighbours' groups G is already cabled to,
 * since a group pair rarely has a second global cable.
 */
static long fit(const struct dfr *r, uint32_t u, uint32_t G,
		const uint32_t *size, uint32_t most, const uint8_t *joined)
{
	const struct swg *g = &r->g;
	uint32_t k, H;
	long dup = 0;

	for (k = g->off[u]; k < g->off[u + 1]; k++) {
		H = r->group[g->nb[k]];
		if (H != FAB_NONE && H != G)
			dup += joined[(size_t)G * r->ng + H];
	}
	return (long)(most - size[G]) * (g->deg_max + 1) - dup;
}

/* The best group of u's neighbours' for u, or FAB_NONE. */
static uint32_t adoptive(const struct dfr *r, uint32_t u,
			 const uint32_t *size, uint32_t most,
			 const uint8_t *joined)
{
	const struct swg *g = &r->g;
	uint32_t k, G, best = FAB_NONE;
	long sc, top = 0;

	for (k = g->off[u]; k < g->off[u + 1]; k++) {
		G = r->group[g->nb[k]];
		if (G == FAB_NONE || G == best)
			continue;
		sc = fit(r, u, G, size, most, joined);
		if (best == FAB_NONE || sc > top) {
			best = G;
			top = sc;
		}
	}
	return best;
}

/*
 * A switch that lost most of its local cables can close triangles only
 * with global ones and so head a "group" of its own: groups of less
 * than half the largest one's switches are taken apart for adopt(), the
 * rest renumbered in switch order.
 */
static int dissolve(struct dfr *r)
{
	uint32_t *size = calloc(r->ng + 1, sizeof(*size));
	uint32_t *gid = malloc((r->ng + 1) * sizeof(*gid));
	uint32_t u, G, most = 0, ng = 0;

	if (!size || !gid) {
		free(size);
		free(gid);
		return -ENOMEM;
	}
	for (u = 0; u < r->g.n; u++)
		if (r->group[u] != FAB_NONE && ++size[r->group[u]] > most)
			most = size[r->group[u]];
	for (G = 0; G < r->ng; G++)
		gid[G] = 2 * size[G] < most ? FAB_NONE : FAB_NONE - 1;
	for (u = 0; u < r->g.n; u++) {
		G = r->group[u];
		if (G == FAB_NONE)
			continue;
		if (gid[G] == FAB_NONE - 1)
			gid[G] = ng++;
		r->group[u] = gid[G];
	}
	r->ng = ng;
	free(size);
	free(gid);
	return 0;
}

/*
 * Switches in no group join a neighbour's group (see fit()), in rounds,
 * each on the groups as the round before left them.
 */
static int adopt(struct dfr *r)
{
	const struct swg *g = &r->g;
	uint32_t *size = calloc(r->ng + 1, sizeof(*size));
	uint8_t *joined = calloc((size_t)r->ng * r->ng + 1, 1);
	uint32_t u, k, most, G, H, moved = 1;
	int ret = -ENOMEM;

	if (!size || !joined)
		goto out;
	while (moved) {
		moved = 0;
		memset(size, 0, r->ng * sizeof(*size));
		memset(joined, 0, (size_t)r->ng * r->ng);
		for (u = 0, most = 0; u < g->n; u++) {
			G = r->group[u];
			if (G == FAB_NONE)
				continue;
			if (++size[G] > most)
				most = size[G];
			for (k = g->off[u]; k < g->off[u + 1]; k++) {
				H = r->group[g->nb[k]];
				if (H != FAB_NONE && H != G)
					joined[(size_t)G * r->ng + H] = 1;
			}
		}
		for (u = 0; u < g->n; u++) {
			if (r->group[u] != FAB_NONE)
				continue;
			r->group[u] = adoptive(r, u, size, most, joined);
			moved += r->group[u] != FAB_NONE;
		}
	}
	ret = 0;
out:
	free(size);
	free(joined);
	return ret;
}

/* Dragonfly+ groups: components of the leaf-to-spine cables. */
static void plus_groups(struct dfr *r)
{
	const struct swg *g = &r->g;
	uint32_t u, k, root;

	for (u = 0; u < g->n; u++)
		r->uf[u] = u;
	for (u = 0; u < g->n; u++)
		for (k = g->off[u]; k < g->off[u + 1]; k++)
			if (hosted(r, u) != hosted(r, g->nb[k]))
				swg_union(r->uf, u, g->nb[k]);
	r->ng = 0;
	for (u = 0; u < g->n; u++) {
		root = swg_find(r->uf, u);
		r->group[u] = root == u ? r->ng++ : r->group[root];
	}
}

/* Cables between groups, counted per port (parallel cables count). */
static int count_pairs(struct dfr *r)
{
	const struct fabric *f = r->f;
	uint32_t u, v, n;
	unsigned int p;

	free(r->pairs);
	r->pairs = calloc((size_t)r->ng * r->ng + 1, sizeof(*r->pairs));
	if (!r->pairs)
		return -ENOMEM;
	for (u = 0; u < r->g.n; u++) {
		n = r->g.node[u];
		for (p = 1; p <= f->nodes[n].nports; p++) {
			const struct fab_port *fp = fab_port(f, n, p);

			if (fp->peer == FAB_NONE || !fab_is_sw(f, fp->peer))
				continue;
			v = r->g.loc[fp->peer];
			if (r->group[u] != r->group[v])
				r->pairs[(size_t)r->group[u] * r->ng +
					 r->group[v]]++;
		}
	}
	return 0;
}

/* Every pair of groups cabled directly or through one other group. */
static int check_reach(struct dfr *r)
{
	size_t words = (r->ng + 63) / 64, i;
	uint64_t *row = calloc((size_t)r->ng * words + 1, sizeof(*row));
	uint32_t a, b;
	int ret = 0;

	if (!row)
		return -ENOMEM;
	for (a = 0; a < r->ng; a++)
		for (b = 0; b < r->ng; b++)
			if (r->pairs[(size_t)a * r->ng + b])
				row[a * words + b / 64] |= 1ull << (b % 64);
	for (a = 0; a < r->ng && !ret; a++)
		for (b = a + 1; b < r->ng && !ret; b++) {
			if (r->pairs[(size_t)a * r->ng + b])
				continue;
			for (i = 0; i < words; i++)
				if (row[a * words + i] & row[b * words + i])
					break;
			if (i == words)
				ret = SWG_REFUSE(r->di, "dragonfly", "groups %u and %u are more than two global hops apart",
						 a, b);
		}
	free(row);
	return ret;
}

/* Switches per group, and spines for Dragonfly+. */
static void sizes(struct dfr *r)
{
	uint32_t u;

	memset(r->size, 0, r->g.n * sizeof(*r->size));
	memset(r->nspine, 0, r->g.n * sizeof(*r->nspine));
	for (u = 0; u < r->g.n; u++) {
		if (r->plus && !hosted(r, u))
			r->nspine[r->group[u]]++;
		else
			r->size[r->group[u]]++;
	}
}

/* Local cables each group lacks: a clique, or leaves x spines for D+. */
static size_t missing(const struct dfr *r, uint32_t G, size_t have)
{
	size_t full = r->plus ? (size_t)r->size[G] * r->nspine[G] :
				(size_t)r->size[G] * (r->size[G] - 1) / 2;

	return full > have ? full - have : 0;
}

/* Distinct local neighbour pairs per group into have[]. */
static void local_pairs(const struct dfr *r, size_t *have)
{
	const struct swg *g = &r->g;
	uint32_t u, k;

	memset(have, 0, r->ng * sizeof(*have));
	for (u = 0; u < g->n; u++)
		for (k = g->off[u]; k < g->off[u + 1]; k++)
			if (g->nb[k] > u && r->group[g->nb[k]] == r->group[u])
				have[r->group[u]]++;
}

/*
 * The size most groups have (the smaller on a tie).  Failures only take
 * switches away, so a group above it holds a switch of another one.
 */
static uint32_t usual_size(const struct dfr *r)
{
	uint32_t G, H, n, best = 0, size = 0;

	for (G = 0; G < r->ng; G++) {
		for (H = 0, n = 0; H < r->ng; H++)
			n += r->size[H] == r->size[G];
		if (n > best || (n == best && r->size[G] < size)) {
			best = n;
			size = r->size[G];
		}
	}
	return size;
}

/* The groups' shape: 0 when they make a dragonfly, 1 with a reason. */
static int check_groups(struct dfr *r)
{
	size_t *have;
	uint32_t u, G, usual;
	int ret = 0;

	for (u = 0; u < r->g.n; u++)
		if (r->group[u] == FAB_NONE)
			return SWG_REFUSE(r->di, "dragonfly", "switch %s is in no group: none of its cables lies in a triangle",
					  name(r, u));
	if (r->ng < 2)
		return SWG_REFUSE(r->di, "dragonfly", "all %u switches form one group",
				  r->g.n);
	sizes(r);
	have = malloc(r->ng * sizeof(*have));
	if (!have)
		return -ENOMEM;
	local_pairs(r, have);
	usual = usual_size(r);
	r->di->missing_local = 0;
	for (G = 0; G < r->ng && !ret; G++) {
		if (r->size[G] > usual)
			ret = SWG_REFUSE(r->di, "dragonfly", "group %u has %u %s, most have %u: the groups are unclear",
					 G, r->size[G],
					 r->plus ? "leaves" : "switches", usual);
		else if (!r->plus && r->size[G] < MIN_A)
			ret = SWG_REFUSE(r->di, "dragonfly", "group %u has %u switches", G,
					 r->size[G]);
		else if (!r->plus && have[G] < MIN_DENSITY * (r->size[G] *
							     (r->size[G] - 1) / 2.0))
			ret = SWG_REFUSE(r->di, "dragonfly", "group %u: %zu of %u possible local cables, not a dense group",
					 G, have[G],
					 r->size[G] * (r->size[G] - 1) / 2);
		r->di->missing_local += missing(r, G, have[G]);
	}
	free(have);
	if (!ret)
		ret = count_pairs(r);
	return ret ? ret : check_reach(r);
}

/*
 * Dragonfly+: every hosted switch cabled only to unhosted ones, every
 * unhosted one to some hosted one.  1 when the fabric is not built so
 * (nothing said), else check_groups()'s verdict.
 */
static int try_plus(struct dfr *r)
{
	const struct swg *g = &r->g;
	uint32_t u, k, leaves = 0;
	bool leaf_nb;

	for (u = 0; u < g->n; u++) {
		leaf_nb = false;
		for (k = g->off[u]; k < g->off[u + 1]; k++) {
			if (hosted(r, u) && hosted(r, g->nb[k]))
				return 1;
			leaf_nb |= hosted(r, g->nb[k]);
		}
		if (!hosted(r, u) && !leaf_nb)
			return 1;
		leaves += hosted(r, u);
	}
	if (!leaves || leaves == g->n)
		return 1;
	r->plus = true;
	plus_groups(r);
	if (r->ng < 2) {
		r->plus = false;
		return SWG_REFUSE(r->di, "dragonfly", "one leaf/spine block of %u switches: a two-level fat-tree",
				  g->n);
	}
	return check_groups(r);
}

static int try_canonical(struct dfr *r)
{
	int ret = triangles(r);

	if (ret)
		return ret;
	if (!r->ntri)
		return SWG_REFUSE(r->di, "dragonfly", "no switch cable lies in a triangle, so there are no dense groups");
	ret = blocks(r);
	if (!ret)
		ret = choose(r);
	if (!ret)
		ret = dissolve(r);
	if (!ret)
		ret = adopt(r);
	return ret ? ret : check_groups(r);
}

static void arrangement(struct df_info *di)
{
	if (di->pair_max == 1)
		snprintf(di->arrangement, sizeof(di->arrangement),
			 "canonical");
	else if (di->pair_min == di->pair_max)
		snprintf(di->arrangement, sizeof(di->arrangement),
			 "%u per group pair", di->pair_max);
	else
		snprintf(di->arrangement, sizeof(di->arrangement),
			 "%u-%u per group pair", di->pair_min, di->pair_max);
}

static void describe(const struct dfr *r, size_t globals)
{
	struct df_info *di = r->di;
	size_t n;

	if (di->plus)
		n = snprintf(di->summary, sizeof(di->summary),
			     "Dragonfly+: %u groups of %u leaves and %u spines (p=%u a=%u h=%u g=%u), %zu global cables, %s",
			     di->ngroups, di->a, di->spines, di->p, di->a,
			     di->h, di->ngroups, globals, di->arrangement);
	else
		n = snprintf(di->summary, sizeof(di->summary),
			     "dragonfly: %u groups of %u switches (p=%u a=%u h=%u g=%u), %zu global cables, %s",
			     di->ngroups, di->a, di->p, di->a, di->h,
			     di->ngroups, globals, di->arrangement);
	if (n < sizeof(di->summary) && di->unjoined)
		n += snprintf(di->summary + n, sizeof(di->summary) - n,
			      ", %zu group pairs without a global cable",
			      di->unjoined);
	if (n < sizeof(di->summary) && di->missing_local)
		snprintf(di->summary + n, sizeof(di->summary) - n,
			 ", %zu local cables missing", di->missing_local);
}

/* Per-pair counts into pair_min/max and unjoined. */
static size_t pair_stats(const struct dfr *r)
{
	struct df_info *di = r->di;
	uint32_t a, b, c;
	size_t total = 0;

	di->pair_min = UINT32_MAX;
	for (a = 0; a < r->ng; a++)
		for (b = a + 1; b < r->ng; b++) {
			c = r->pairs[(size_t)a * r->ng + b];
			total += c;
			di->unjoined += !c;
			if (c < di->pair_min)
				di->pair_min = c;
			if (c > di->pair_max)
				di->pair_max = c;
		}
	return total;
}

static int export(struct dfr *r)
{
	const struct fabric *f = r->f;
	struct df_info *di = r->di;
	uint32_t u, n, G;
	unsigned int p, h;
	size_t total;

	di->group = malloc((f->nnodes + 1) * sizeof(*di->group));
	di->spine = calloc(f->nnodes + 1, sizeof(*di->spine));
	di->global = calloc(f->nports + 1, sizeof(*di->global));
	if (!di->group || !di->spine || !di->global)
		return -ENOMEM;
	for (n = 0; n < f->nnodes; n++)
		di->group[n] = DF_NONE;
	for (u = 0; u < r->g.n; u++) {
		n = r->g.node[u];
		di->group[n] = r->group[u];
		di->spine[n] = r->plus && !hosted(r, u);
		for (h = 0, p = 1; p <= f->nodes[n].nports; p++) {
			const struct fab_port *fp = fab_port(f, n, p);

			if (fp->peer == FAB_NONE || !fab_is_sw(f, fp->peer) ||
			    r->group[r->g.loc[fp->peer]] == r->group[u])
				continue;
			di->global[f->nodes[n].port0 + p] = true;
			h++;
		}
		if (h > di->h)
			di->h = h;
	}
	for (G = 0; G < r->ng; G++) {
		if (r->size[G] > di->a)
			di->a = r->size[G];
		if (r->nspine[G] > di->spines)
			di->spines = r->nspine[G];
	}
	di->dragonfly = true;
	di->plus = r->plus;
	di->ngroups = r->ng;
	di->p = r->g.hosts_max;
	di->isolated = r->g.isolated;
	total = pair_stats(r);
	arrangement(di);
	describe(r, total);
	return 0;
}

static int alloc(struct dfr *r)
{
	size_t n = r->g.n + 1;

	r->uf = malloc(n * sizeof(*r->uf));
	r->group = malloc(n * sizeof(*r->group));
	r->size = malloc(n * sizeof(*r->size));
	r->nspine = malloc(n * sizeof(*r->nspine));
	return r->uf && r->group && r->size && r->nspine ? 0 : -ENOMEM;
}

static void dfr_release(struct dfr *r)
{
	swg_release(&r->g);
	free(r->tri);
	free(r->first);
	free(r->uf);
	free(r->group);
	free(r->size);
	free(r->nspine);
	free(r->pairs);
}

int df_recognise(const struct fabric *f, struct df_info *di)
{
	struct dfr r = { .f = f, .di = di };
	int ret;

	memset(di, 0, sizeof(*di));
	ret = swg_build(f, &r.g);
	if (!ret)
		ret = alloc(&r);
	if (!ret && r.g.n < 2 * MIN_A)
		ret = SWG_REFUSE(di, "dragonfly", "%u linked switches", r.g.n);
	if (!ret) {
		ret = try_plus(&r);
		if (ret == 1 && !*di->reason)
			ret = try_canonical(&r);
	}
	if (!ret)
		ret = export(&r);
	dfr_release(&r);
	if (ret > 0)
		ret = 0;
	if (ret < 0)
		snprintf(di->summary, sizeof(di->summary),
			 "dragonfly recogniser failed: %s", strerror(-ret));
	return ret;
}

void df_info_release(struct df_info *di)
{
	free(di->group);
	free(di->global);
	free(di->spine);
	di->group = NULL;
	di->global = NULL;
	di->spine = NULL;
}
