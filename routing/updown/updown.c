// SPDX-License-Identifier: MIT
/*
 * up*-down* routing.  Switches are totally ordered by a breadth-first
 * search from the root; a hop towards a smaller order is "up".  For each destination
 * switch, a switch that can reach it going only down does so, others climb
 * towards the parent nearest to it: every route is up* then down*, so the
 * channel dependency graph has no cycle.  Ties are broken by port load.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "updown.h"

#define UD_INF UINT32_MAX
/* Above this many switches, root by degree instead of eccentricity. */
#define UD_ECC_MAX 512

struct udr {
	const struct fabric *f;
	struct rt_tables *t;
	uint32_t nsw;
	struct rt_adj adj;	/* switch links */
	uint32_t *rank;		/* rank in the total order per switch */
	uint32_t *by_ord;	/* switch per order position */
	uint32_t *comp;		/* component id per switch */
	/* per destination: down-only and up-down distance */
	uint32_t *down_dist, *updown_dist;
	uint32_t *load;		/* per fabric port */
	uint32_t *queue, *dist;
};


/* BFS from src over switches; returns the eccentricity, fills r->dist. */
static uint32_t bfs(struct udr *r, uint32_t src)
{
	uint32_t head = 0, tail = 0, s, k, ecc = 0;

	for (s = 0; s < r->nsw; s++)
		r->dist[s] = UD_INF;
	r->dist[src] = 0;
	r->queue[tail++] = src;
	while (head < tail) {
		s = r->queue[head++];
		ecc = r->dist[s];
		for (k = r->adj.off[s]; k < r->adj.off[s + 1]; k++) {
			uint32_t q = r->adj.sw[k];

			if (r->dist[q] == UD_INF) {
				r->dist[q] = r->dist[s] + 1;
				r->queue[tail++] = q;
			}
		}
	}
	return ecc;
}

static uint64_t guid_of(const struct udr *r, uint32_t s)
{
	return r->f->nodes[r->t->sw_node[s]].guid;
}

/* Is a a better root than b: smaller eccentricity, more links, GUID. */
static bool better_root(const struct udr *r, uint32_t a, uint32_t ea,
			uint32_t b, uint32_t eb)
{
	uint32_t da = r->adj.off[a + 1] - r->adj.off[a];
	uint32_t db = r->adj.off[b + 1] - r->adj.off[b];

	if (ea != eb)
		return ea < eb;
	if (da != db)
		return da > db;
	return guid_of(r, a) < guid_of(r, b);
}

/*
 * Pick a root per component and order its switches as a breadth-first
 * search from the root meets them: by rank, and within a rank the
 * children of one switch together, so a group of switches the cabling
 * binds stays together whatever GUIDs it has.
 */
static int rank_switches(struct udr *r, char *detail, size_t len)
{
	uint32_t *memb = malloc((r->nsw + 1) * sizeof(*memb));
	uint32_t s, ncomp = 0, i, tail, c = 0;
	size_t off = 0;

	if (!memb)
		return -ENOMEM;
	for (s = 0; s < r->nsw; s++)
		r->comp[s] = UD_INF;
	for (s = 0; s < r->nsw; s++) {
		uint32_t root = s, er;

		if (r->comp[s] != UD_INF)
			continue;
		er = bfs(r, s);
		tail = 0;
		for (i = 0; i < r->nsw; i++)
			if (r->dist[i] != UD_INF) {
				r->comp[i] = ncomp;
				memb[tail++] = i;
			}
		for (i = 0; i < tail; i++) {
			uint32_t q = memb[i], e;

			if (tail > UD_ECC_MAX) {
				if (better_root(r, q, 0, root, 0))
					root = q;
				continue;
			}
			e = bfs(r, q);
			if (better_root(r, q, e, root, er)) {
				root = q;
				er = e;
			}
		}
		bfs(r, root);
		for (i = 0; i < tail; i++) {
			r->by_ord[c] = r->queue[i];
			r->rank[r->queue[i]] = c++;
		}
		if (off < len && tail > 1)
			off += snprintf(detail + off, len - off, "%sroot %s",
					off ? ", " : "",
					r->f->nodes[r->t->sw_node[root]].desc);
		ncomp++;
	}
	free(memb);
	return 0;
}

/* Distances to destination switch d: down-only, then up*-down*. */
static void distances(struct udr *r, uint32_t d)
{
	uint32_t i, s, k, best;

	for (s = 0; s < r->nsw; s++)
		r->down_dist[s] = r->updown_dist[s] = UD_INF;
	r->down_dist[d] = 0;
	for (i = r->nsw; i-- > 0;) {
		s = r->by_ord[i];
		if (s == d || r->comp[s] != r->comp[d])
			continue;
		for (best = UD_INF, k = r->adj.off[s]; k < r->adj.off[s + 1];
		     k++) {
			uint32_t q = r->adj.sw[k];

			if (r->rank[q] > r->rank[s] && r->down_dist[q] < best)
				best = r->down_dist[q];
		}
		if (best != UD_INF)
			r->down_dist[s] = best + 1;
	}
	for (i = 0; i < r->nsw; i++) {
		s = r->by_ord[i];
		if (r->comp[s] != r->comp[d])
			continue;
		if (r->down_dist[s] != UD_INF) {
			r->updown_dist[s] = r->down_dist[s];
			continue;
		}
		for (best = UD_INF, k = r->adj.off[s]; k < r->adj.off[s + 1];
		     k++) {
			uint32_t q = r->adj.sw[k];

			if (r->rank[q] < r->rank[s] && r->updown_dist[q] < best)
				best = r->updown_dist[q];
		}
		if (best != UD_INF)
			r->updown_dist[s] = best + 1;
	}
}

static uint32_t *port_load(const struct udr *r, uint32_t s, unsigned int p)
{
	return &r->load[r->f->nodes[r->t->sw_node[s]].port0 + p];
}

/* Route the LIDs delivered at switch d from every other switch. */
static void route_dest(struct udr *r, uint32_t d, const uint32_t *lids,
		       uint32_t nlids)
{
	uint8_t cand[FAB_MAX_PORTS + 1];
	uint32_t s, k, i;

	distances(r, d);
	for (s = 0; s < r->nsw; s++) {
		bool down = r->down_dist[s] != UD_INF;
		uint32_t want = (down ? r->down_dist[s] :
					r->updown_dist[s]) - 1;
		unsigned int n = 0;
		uint8_t *row;

		if (s == d || r->updown_dist[s] == UD_INF)
			continue;
		for (k = r->adj.off[s]; k < r->adj.off[s + 1]; k++) {
			uint32_t q = r->adj.sw[k];

			if (down ? r->rank[q] > r->rank[s] &&
				   r->down_dist[q] == want :
				   r->rank[q] < r->rank[s] &&
				   r->updown_dist[q] == want)
				cand[n++] = r->adj.port[k];
		}
		row = rt_lft(r->t, s);
		for (i = 0; i < nlids; i++) {
			unsigned int b = 0, c;

			for (c = 1; c < n; c++)
				if (*port_load(r, s, cand[c]) <
				    *port_load(r, s, cand[b]))
					b = c;
			row[lids[i]] = cand[b];
			(*port_load(r, s, cand[b]))++;
		}
	}
}

static int updown(const struct fabric *f, struct rt_tables *t, char *detail,
		  size_t len)
{
	struct udr r = { .f = f, .t = t, .nsw = t->nsw };
	uint32_t *off = NULL, *lids = NULL, d, n = t->nsw + 1;
	int ret;

	if (len)
		detail[0] = '\0';
	r.rank = malloc(n * sizeof(*r.rank));
	r.by_ord = malloc(n * sizeof(*r.by_ord));
	r.comp = malloc(n * sizeof(*r.comp));
	r.down_dist = malloc(n * sizeof(*r.down_dist));
	r.updown_dist = malloc(n * sizeof(*r.updown_dist));
	r.queue = malloc(n * sizeof(*r.queue));
	r.dist = malloc(n * sizeof(*r.dist));
	r.load = calloc(f->nports + 1, sizeof(*r.load));
	ret = -ENOMEM;
	if (!r.rank || !r.by_ord || !r.comp || !r.down_dist ||
	    !r.updown_dist || !r.queue || !r.dist || !r.load)
		goto out;
	ret = rt_adj_build(&r.adj, t);
	if (!ret)
		ret = rank_switches(&r, detail, len);
	if (!ret)
		ret = rt_lids_by_switch(t, &off, &lids);
	for (d = 0; !ret && d < r.nsw; d++)
		if (off[d + 1] > off[d])
			route_dest(&r, d, lids + off[d], off[d + 1] - off[d]);
out:
	free(off);
	free(lids);
	rt_adj_release(&r.adj);
	free(r.rank);
	free(r.by_ord);
	free(r.comp);
	free(r.down_dist);
	free(r.updown_dist);
	free(r.queue);
	free(r.dist);
	free(r.load);
	return ret;
}

/* No recogniser: up*-down* fits any fabric, and ignores jobs. */
static int route(const struct fabric *f, const void *info,
		 const struct rt_jobs *jobs, struct rt_tables *t, char *detail,
		 size_t len, const char **use)
{
	char roots[256];
	int ret = updown(f, t, roots, sizeof(roots));

	(void)info;
	(void)jobs;
	(void)use;
	snprintf(detail, len, "%s%s", !ret && *roots ? "up*-down* from " : "",
		 !ret ? roots : "");
	return ret;
}

const struct rt_engine rt_updown_engine = {
	.name = "updown",
	.route = route,
	.ignores_jobs = "none (up*/down* ignores them)",
};
