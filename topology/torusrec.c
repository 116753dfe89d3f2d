// SPDX-License-Identifier: MIT
/*
 * Torus recognition as a Cartesian product: the opposite sides of every
 * square run in one direction, edges at a switch that share no square run
 * along one line, and coordinates follow from one switch whose lines are
 * whole.  Failed cables and switches only remove squares, never add false
 * ones, so they cost coverage, not correctness.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "swgraph.h"
#include "torusrec.h"

#define MAX_DEG 16		/* distinct switch neighbours of one switch */
#define MAX_POS (1u << 24)	/* grid positions */

/* The switch graph without CAs and parallel cables, as CSR. */
struct rec {
	const struct fabric *f;
	struct tor_info *ti;
	struct swg g;
	uint32_t *eid;		/* edge of each slot */
	uint16_t *span;		/* slot i: bit j when slots i, j span a square */
	uint32_t ne;
	uint32_t *uf;		/* edge union-find */
	uint32_t *edim;		/* edge -> dimension, FAB_NONE unknown */
	uint32_t *dim_nbr;	/* n * TOR_MAX_DIMS * 2 neighbours per dim */
	uint8_t *coord;		/* n * TOR_MAX_DIMS coordinates */
	bool *placed;		/* per switch: has its coordinates */
	uint32_t *grid;		/* position -> local, FAB_NONE */
	size_t npos;
	/*
	 * Lines whose end cables a failure left in no square are measured
	 * short; the second try gives open dimensions room on both sides.
	 */
	bool expand;
	unsigned int base[TOR_MAX_DIMS];
};

static const char *name(const struct rec *r, uint32_t u)
{
	return swg_name(r->f, &r->g, u);
}

static long slot(const struct rec *r, uint32_t u, uint32_t v)
{
	return swg_slot(&r->g, u, v);
}

static bool adj(const struct rec *r, uint32_t u, uint32_t v)
{
	return swg_adj(&r->g, u, v);
}

static int build_graph(struct rec *r)
{
	uint32_t u;
	int ret = swg_build(r->f, &r->g);

	if (ret)
		return ret;
	r->ti->isolated = r->g.isolated;
	r->ti->hosts_max = r->g.hosts_max;
	r->ti->par_max = r->g.par_max;
	if (r->g.deg_max <= MAX_DEG)
		return 0;
	for (u = 0; r->g.off[u + 1] - r->g.off[u] <= MAX_DEG; u++)
		;
	return SWG_REFUSE(r->ti, "torus", "switch %s has %u switch neighbours",
			  name(r, u), r->g.off[u + 1] - r->g.off[u]);
}

static int number_edges(struct rec *r)
{
	uint32_t u, k, m = r->g.off[r->g.n];

	r->eid = malloc((m + 1) * sizeof(*r->eid));
	r->span = calloc(m + 1, sizeof(*r->span));
	if (!r->eid || !r->span)
		return -ENOMEM;
	for (u = 0; u < r->g.n; u++)
		for (k = r->g.off[u]; k < r->g.off[u + 1]; k++)
			r->eid[k] = r->g.nb[k] > u ? r->ne++ :
				    r->eid[slot(r, r->g.nb[k], u)];
	r->uf = malloc((r->ne + 1) * sizeof(*r->uf));
	r->edim = malloc((r->ne + 1) * sizeof(*r->edim));
	if (!r->uf || !r->edim)
		return -ENOMEM;
	for (k = 0; k < r->ne; k++) {
		r->uf[k] = k;
		r->edim[k] = FAB_NONE;
	}
	return 0;
}

static uint32_t edge(const struct rec *r, uint32_t u, uint32_t v)
{
	return r->eid[slot(r, u, v)];
}

/*
 * Chordless squares u-v-x-w: opposite sides are parallel.  Each square is
 * seen from all four corners; the unions are idempotent.
 */
static void squares(struct rec *r)
{
	uint32_t u, i, j, a, b;

	for (u = 0; u < r->g.n; u++)
		for (i = r->g.off[u]; i < r->g.off[u + 1]; i++)
			for (j = i + 1; j < r->g.off[u + 1]; j++) {
				uint32_t v = r->g.nb[i], w = r->g.nb[j];

				if (adj(r, v, w))
					continue;
				a = r->g.off[v];
				b = r->g.off[w];
				while (a < r->g.off[v + 1] && b < r->g.off[w + 1]) {
					uint32_t x = r->g.nb[a];

					if (x != r->g.nb[b]) {
						x < r->g.nb[b] ? a++ : b++;
						continue;
					}
					a++;
					b++;
					if (x == u || adj(r, u, x))
						continue;
					swg_union(r->uf, r->eid[i], edge(r, w, x));
					swg_union(r->uf, r->eid[j], edge(r, v, x));
					r->span[i] |= 1u << (j - r->g.off[u]);
					r->span[j] |= 1u << (i - r->g.off[u]);
				}
			}
}

struct vote {
	uint32_t a, b;
	bool orth;
};

static int cmp_vote(const void *x, const void *y)
{
	const struct vote *p = x, *q = y;

	if (p->a != q->a)
		return p->a < q->a ? -1 : 1;
	if (p->b != q->b)
		return p->b < q->b ? -1 : 1;
	return (int)p->orth - (int)q->orth;
}

/*
 * Two classes of parallel edges that meet at a switch lie on one line
 * when no meeting spans a square.  A meeting only counts as straight when
 * some third edge there spans a square with both, so two edges whose
 * common square a failure took are not mistaken for one line.
 */
static int collect_votes(struct rec *r, struct vote **out, size_t *nv)
{
	size_t cap = 0, k = 0;
	struct vote *v = NULL;
	uint32_t u, i, j;

	for (u = 0; u < r->g.n; u++) {
		uint32_t d = r->g.off[u + 1] - r->g.off[u];

		cap += (size_t)d * d / 2 + 1;
	}
	v = malloc(cap * sizeof(*v));
	if (!v)
		return -ENOMEM;
	for (u = 0; u < r->g.n; u++)
		for (i = r->g.off[u]; i < r->g.off[u + 1]; i++)
			for (j = i + 1; j < r->g.off[u + 1]; j++) {
				uint32_t a = swg_find(r->uf, r->eid[i]);
				uint32_t b = swg_find(r->uf, r->eid[j]);
				bool orth = r->span[i] >> (j - r->g.off[u]) & 1;

				if (!orth && !(r->span[i] & r->span[j]))
					continue;
				if (a == b) {
					free(v);
					return SWG_REFUSE(r->ti, "torus",
							  "switch %s joins two parallel cables",
							  name(r, u));
				}
				v[k].a = a < b ? a : b;
				v[k].b = a < b ? b : a;
				v[k++].orth = orth;
			}
	qsort(v, k, sizeof(*v), cmp_vote);
	*out = v;
	*nv = k;
	return 0;
}

static int join_lines(struct rec *r)
{
	struct vote *v = NULL;
	size_t nv = 0, i, j;
	int ret = collect_votes(r, &v, &nv);

	if (ret)
		return ret;
	for (i = 0; i < nv; i = j) {
		bool orth = false;

		for (j = i; j < nv && v[j].a == v[i].a && v[j].b == v[i].b; j++)
			orth |= v[j].orth;
		if (!orth)
			swg_union(r->uf, v[i].a, v[i].b);
	}
	for (i = 0; i < nv; i++)
		if (v[i].orth && swg_find(r->uf, v[i].a) == swg_find(r->uf, v[i].b))
			break;
	free(v);
	if (i < nv)
		return SWG_REFUSE(r->ti, "torus", "cables cross a line at right angles");
	return 0;
}

/* Dimensions are the classes of edges that lie on some square. */
static int name_dims(struct rec *r)
{
	uint32_t root[TOR_MAX_DIMS], u, k, e, d;
	unsigned int nd = 0;

	for (u = 0; u < r->g.n; u++)
		for (k = r->g.off[u]; k < r->g.off[u + 1]; k++) {
			if (!r->span[k])
				continue;
			e = swg_find(r->uf, r->eid[k]);
			for (d = 0; d < nd && root[d] != e; d++)
				;
			if (d == nd) {
				if (nd == TOR_MAX_DIMS)
					return SWG_REFUSE(r->ti, "torus",
							  "more than %d dimensions",
							  TOR_MAX_DIMS);
				root[nd++] = e;
			}
		}
	if (nd < 2)
		return SWG_REFUSE(r->ti, "torus", "no grid of squares (%s)",
				  nd ? "one direction only" : "no squares");
	for (e = 0; e < r->ne; e++) {
		uint32_t c = swg_find(r->uf, e);

		for (d = 0; d < nd && root[d] != c; d++)
			;
		if (d < nd)
			r->edim[e] = d;
	}
	r->ti->ndims = nd;
	return 0;
}

static uint32_t *dnb(const struct rec *r, uint32_t u, unsigned int d)
{
	return r->dim_nbr + ((size_t)u * TOR_MAX_DIMS + d) * 2;
}

static int line_neighbours(struct rec *r)
{
	size_t size = (size_t)r->g.n * TOR_MAX_DIMS * 2 * sizeof(*r->dim_nbr);
	uint32_t u, k, d, *p;

	r->dim_nbr = malloc(size);
	if (!r->dim_nbr)
		return -ENOMEM;
	memset(r->dim_nbr, 0xff, size);
	for (u = 0; u < r->g.n; u++)
		for (k = r->g.off[u]; k < r->g.off[u + 1]; k++) {
			d = r->edim[r->eid[k]];
			if (d == FAB_NONE)
				continue;
			p = dnb(r, u, d);
			if (p[1] != FAB_NONE)
				return SWG_REFUSE(r->ti, "torus",
						  "switch %s has three neighbours on one line",
						  name(r, u));
			p[p[0] != FAB_NONE] = r->g.nb[k];
		}
	return 0;
}

/* Walk u's line in dimension d; returns its length, *ring if closed. */
static uint32_t line_len(const struct rec *r, uint32_t u, unsigned int d,
			 bool *ring, uint32_t *end)
{
	uint32_t prev = u, cur = dnb(r, u, d)[0], len = 1, nx, *p;

	*ring = false;
	*end = u;
	while (cur != FAB_NONE && cur != u && len <= r->g.n) {
		len++;
		p = dnb(r, cur, d);
		nx = p[0] == prev ? p[1] : p[0];
		prev = cur;
		cur = nx;
	}
	if (cur == u && len > 2) {
		*ring = true;
		return len;
	}
	*end = prev;
	if (cur == u)
		return len;
	/* an open line: count the other side from u */
	prev = u;
	cur = dnb(r, u, d)[1];
	while (cur != FAB_NONE && len <= r->g.n) {
		len++;
		p = dnb(r, cur, d);
		nx = p[0] == prev ? p[1] : p[0];
		prev = cur;
		cur = nx;
	}
	if (prev != u)
		*end = prev;
	return len;
}

/* Radix per dimension: the longest line; a ring when one such is closed. */
static int measure(struct rec *r, uint32_t *rootp)
{
	struct tor_info *ti = r->ti;
	uint32_t u, end, len;
	unsigned int d;
	bool ring;
	size_t npos = 1;

	memset(ti->radix, 0, sizeof(ti->radix));
	memset(ti->wrap, 0, sizeof(ti->wrap));
	memset(r->base, 0, sizeof(r->base));
	for (d = 0; d < ti->ndims; d++)
		for (u = 0; u < r->g.n; u++) {
			len = line_len(r, u, d, &ring, &end);
			if (len > ti->radix[d] ||
			    (len == ti->radix[d] && ring))
				ti->radix[d] = len, ti->wrap[d] = ring;
		}
	for (d = 0; d < ti->ndims; d++) {
		if (r->expand && !ti->wrap[d] && ti->radix[d] < 85) {
			r->base[d] = ti->radix[d];
			ti->radix[d] *= 3;
		}
		if (ti->radix[d] > 255)
			return SWG_REFUSE(ti, "torus", "a line of %u switches",
					  ti->radix[d]);
		npos *= ti->radix[d];
		if (npos > MAX_POS)
			return SWG_REFUSE(ti, "torus", "grid too large");
	}
	r->npos = npos;
	for (u = 0; u < r->g.n; u++) {
		for (d = 0; d < ti->ndims; d++)
			if (line_len(r, u, d, &ring, &end) !=
			    (r->base[d] ? r->base[d] : ti->radix[d]) ||
			    ring != ti->wrap[d])
				break;
		if (d == ti->ndims) {
			*rootp = u;
			return 0;
		}
	}
	return SWG_REFUSE(ti, "torus", "no switch has whole lines in every direction");
}

static size_t pos_of(const struct tor_info *ti, const uint8_t *c)
{
	size_t p = 0;
	unsigned int d;

	for (d = ti->ndims; d-- > 0;)
		p = p * ti->radix[d] + c[d];
	return p;
}

static uint8_t *co(const struct rec *r, uint32_t u)
{
	return r->coord + (size_t)u * TOR_MAX_DIMS;
}

static int put(struct rec *r, uint32_t u, const uint8_t *c, uint32_t *q,
	       size_t *tail)
{
	size_t p = pos_of(r->ti, c);

	if (r->grid[p] != FAB_NONE)
		return SWG_REFUSE(r->ti, "torus", "switches %s and %s at one position",
				  name(r, u), name(r, r->grid[p]));
	memcpy(co(r, u), c, TOR_MAX_DIMS);
	r->placed[u] = true;
	r->grid[p] = u;
	q[(*tail)++] = u;
	return 0;
}

/* Coordinates of the root's lines: the axes. */
static int place_axes(struct rec *r, uint32_t root, uint32_t *q,
		      size_t *tail)
{
	const struct tor_info *ti = r->ti;
	uint8_t c0[TOR_MAX_DIMS] = { 0 }, c[TOR_MAX_DIMS];
	uint32_t prev, cur, nx, end, *p;
	unsigned int d, i;
	bool ring;
	int ret;

	/* on an open line the root sits where its end puts it */
	for (d = 0; d < ti->ndims; d++) {
		line_len(r, root, d, &ring, &end);
		if (ring)
			continue;
		for (prev = FAB_NONE, cur = end, i = 0; cur != root; i++) {
			p = dnb(r, cur, d);
			nx = p[0] == prev ? p[1] : p[0];
			prev = cur;
			cur = nx;
		}
		c0[d] = r->base[d] + i;
	}
	ret = put(r, root, c0, q, tail);
	for (d = 0; !ret && d < ti->ndims; d++) {
		line_len(r, root, d, &ring, &end);
		prev = FAB_NONE;
		cur = ring ? root : end;
		for (i = 0; !ret && cur != FAB_NONE &&
			    i < (r->base[d] ? r->base[d] : ti->radix[d]); i++) {
			if (cur != root) {
				memcpy(c, c0, sizeof(c));
				c[d] = r->base[d] + i;
				ret = put(r, cur, c, q, tail);
			}
			p = dnb(r, cur, d);
			nx = p[0] == prev ? p[1] : p[0];
			prev = cur;
			cur = nx;
		}
	}
	return ret;
}

/* Ring or line distance of one step; true when a and b are neighbours. */
static bool step(const struct tor_info *ti, unsigned int d, unsigned int a,
		 unsigned int b)
{
	unsigned int n = ti->radix[d];

	if (a == b)
		return false;
	if (a + 1 == b || b + 1 == a)
		return true;
	return ti->wrap[d] && ((a + 1) % n == b || (b + 1) % n == a);
}

/* Differ by one step in exactly one dimension (d when known). */
static bool grid_adj(const struct tor_info *ti, const uint8_t *a,
		     const uint8_t *b, uint32_t dim)
{
	unsigned int d, diff = 0;
	bool ok = true;

	for (d = 0; d < ti->ndims; d++) {
		if (a[d] == b[d])
			continue;
		diff++;
		ok &= step(ti, d, a[d], b[d]) && (dim == FAB_NONE || dim == d);
	}
	return ok && diff == 1;
}

/* Candidate c fits every placed neighbour of x, at a free position. */
static bool fits(const struct rec *r, uint32_t x, const uint8_t *c)
{
	uint32_t k;

	if (r->grid[pos_of(r->ti, c)] != FAB_NONE)
		return false;
	for (k = r->g.off[x]; k < r->g.off[x + 1]; k++) {
		uint32_t z = r->g.nb[k];

		if (r->placed[z] &&
		    !grid_adj(r->ti, c, co(r, z), r->edim[r->eid[k]]))
			return false;
	}
	return true;
}

/* Grid neighbours of position c: what a switch there can link to. */
static unsigned int grid_deg(const struct tor_info *ti, const uint8_t *c)
{
	unsigned int d, k = 0, n;

	for (d = 0; d < ti->ndims; d++) {
		n = ti->radix[d];
		if (n == 2)
			k++;
		else if (ti->wrap[d])
			k += 2;
		else
			k += (c[d] > 0) + (c[d] + 1u < n);
	}
	return k;
}

/*
 * x is next to placed z: of the steps from z along the cable's dimension
 * (any dimension when unknown), place x if exactly one fits.  When
 * guessing (nothing else fits anywhere: a failure took the squares that
 * would decide), take the one whose grid degree is closest to x's.
 */
static int try_place(struct rec *r, uint32_t x, uint32_t z, bool guess,
		     uint32_t *q, size_t *tail)
{
	const struct tor_info *ti = r->ti;
	uint8_t c[TOR_MAX_DIMS], best[TOR_MAX_DIMS];
	uint32_t dim = r->edim[edge(r, x, z)];
	unsigned int d, s, nfit = 0, n, deg = r->g.off[x + 1] - r->g.off[x];
	unsigned int gap, best_gap = ~0u;

	for (d = 0; d < ti->ndims; d++) {
		if (dim != FAB_NONE && dim != d)
			continue;
		n = ti->radix[d];
		for (s = 0; s < 2; s++) {
			unsigned int v = co(r, z)[d];

			if (s == 0 && v + 1 < n)
				v++;
			else if (s == 0 && ti->wrap[d])
				v = 0;
			else if (s == 1 && v > 0)
				v--;
			else if (s == 1 && ti->wrap[d])
				v = n - 1;
			else
				continue;
			memcpy(c, co(r, z), sizeof(c));
			c[d] = v;
			if (!fits(r, x, c) || (nfit && !memcmp(c, best, sizeof(c))))
				continue;
			gap = grid_deg(ti, c) - deg;
			if (grid_deg(ti, c) < deg)
				continue;
			if (!guess || gap < best_gap) {
				memcpy(best, c, sizeof(best));
				nfit = 1 + (guess ? 0 : nfit);
				best_gap = gap;
			} else if (gap == best_gap) {
				nfit++;
			}
		}
	}
	return nfit == 1 ? put(r, x, best, q, tail) : 0;
}

/* One pass over unplaced switches next to placed ones; true on progress. */
static int retry(struct rec *r, bool guess, uint32_t *q, size_t *tail)
{
	size_t before = *tail;
	uint32_t u, k;
	int ret;

	for (u = 0; u < r->g.n; u++)
		for (k = r->g.off[u]; !r->placed[u] && k < r->g.off[u + 1];
		     k++) {
			if (!r->placed[r->g.nb[k]])
				continue;
			ret = try_place(r, u, r->g.nb[k], guess, q, tail);
			if (ret)
				return ret;
			if (guess && *tail > before)
				return -EAGAIN;
		}
	return *tail > before ? -EAGAIN : 0;
}

static int place_all(struct rec *r)
{
	uint32_t root = 0, *q, u, k;
	size_t head = 0, tail = 0, i;
	int ret;

	ret = measure(r, &root);
	if (ret)
		return ret;
	r->coord = calloc((size_t)r->g.n * TOR_MAX_DIMS, 1);
	r->placed = calloc(r->g.n, sizeof(*r->placed));
	r->grid = malloc(r->npos * sizeof(*r->grid));
	q = malloc(((size_t)r->g.n + 1) * sizeof(*q));
	if (!r->coord || !r->placed || !r->grid || !q) {
		free(q);
		return -ENOMEM;
	}
	for (i = 0; i < r->npos; i++)
		r->grid[i] = FAB_NONE;
	ret = place_axes(r, root, q, &tail);
	while (!ret) {
		while (!ret && head < tail) {
			u = q[head++];
			for (k = r->g.off[u]; !ret && k < r->g.off[u + 1]; k++)
				if (!r->placed[r->g.nb[k]])
					ret = try_place(r, r->g.nb[k], u, false,
							q, &tail);
		}
		if (ret || tail == r->g.n)
			break;
		ret = retry(r, false, q, &tail);
		if (!ret)
			ret = retry(r, true, q, &tail);
		if (ret != -EAGAIN)
			break;
		ret = 0;
	}
	free(q);
	if (ret)
		return ret;
	r->ti->nplaced = tail;
	if (tail < r->g.n)
		return SWG_REFUSE(r->ti, "torus", "%zu of %u switches do not fit the grid",
				  r->g.n - tail, r->g.n);
	return 0;
}

/* After an expanded try: open dimensions shrink to what is used. */
static int normalise(struct rec *r)
{
	struct tor_info *ti = r->ti;
	unsigned int d, mn, mx;
	uint32_t u;
	size_t i;

	for (d = 0; d < ti->ndims; d++) {
		if (!r->base[d])
			continue;
		mn = 255;
		mx = 0;
		for (u = 0; u < r->g.n; u++) {
			mn = co(r, u)[d] < mn ? co(r, u)[d] : mn;
			mx = co(r, u)[d] > mx ? co(r, u)[d] : mx;
		}
		for (u = 0; u < r->g.n; u++)
			co(r, u)[d] -= mn;
		ti->radix[d] = mx - mn + 1;
		r->base[d] = 0;
	}
	for (r->npos = 1, d = 0; d < ti->ndims; d++)
		r->npos *= ti->radix[d];
	free(r->grid);
	r->grid = malloc(r->npos * sizeof(*r->grid));
	if (!r->grid)
		return -ENOMEM;
	for (i = 0; i < r->npos; i++)
		r->grid[i] = FAB_NONE;
	for (u = 0; u < r->g.n; u++)
		r->grid[pos_of(ti, co(r, u))] = u;
	return 0;
}

/* Place with exact line lengths, else with room along open dimensions. */
static int place(struct rec *r)
{
	unsigned int d;
	int ret = place_all(r);

	for (d = 0; ret == 1 && d < r->ti->ndims; d++)
		if (!r->ti->wrap[d])
			break;
	if (ret != 1 || d == r->ti->ndims)
		return ret;
	free(r->coord);
	free(r->placed);
	free(r->grid);
	r->coord = NULL;
	r->placed = NULL;
	r->grid = NULL;
	r->ti->nplaced = 0;
	r->expand = true;
	ret = place_all(r);
	return ret ? ret : normalise(r);
}

/* Every cable must join grid neighbours; count what failed. */
static int check_cables(struct rec *r)
{
	struct tor_info *ti = r->ti;
	size_t want = 0;
	uint32_t u, k, v;
	unsigned int d;
	uint8_t c[TOR_MAX_DIMS];

	for (u = 0; u < r->g.n; u++)
		for (k = r->g.off[u]; k < r->g.off[u + 1]; k++)
			if (!grid_adj(ti, co(r, u), co(r, r->g.nb[k]), FAB_NONE))
				return SWG_REFUSE(ti, "torus", "cable %s - %s is not between grid neighbours",
						  name(r, u), name(r, r->g.nb[k]));
	for (u = 0; u < r->g.n; u++)
		for (d = 0; d < ti->ndims; d++) {
			memcpy(c, co(r, u), sizeof(c));
			if (c[d] + 1u < ti->radix[d])
				c[d]++;
			else if (ti->wrap[d] && ti->radix[d] > 2)
				c[d] = 0;
			else
				continue;
			v = r->grid[pos_of(ti, c)];
			if (v == FAB_NONE)
				continue;
			want++;
			if (!adj(r, u, v))
				ti->missing_links++;
		}
	ti->missing_sw = r->npos - ti->nplaced;
	if (ti->missing_sw * 8 > r->npos || ti->missing_links * 8 > want)
		return SWG_REFUSE(ti, "torus", "too degraded for a grid: %zu of %zu positions empty, %zu of %zu cables missing",
				  ti->missing_sw, r->npos, ti->missing_links, want);
	return 0;
}

/*
 * The shape a user gives: radix-2 dimensions pair up into 4-rings while
 * more than three dimensions remain, or all of them when that leaves a
 * whole number of 4-rings (a 4x4 torus, not 4x2x2); largest first.
 */
void tor_view(const struct tor_info *ti, struct tor_view *v)
{
	unsigned int two[TOR_MAX_DIMS], k2 = 0, pairs = 0, d, i;
	struct tor_vdim t;

	memset(v, 0, sizeof(*v));
	for (d = 0; d < ti->ndims; d++) {
		if (ti->radix[d] == 2 && !ti->wrap[d]) {
			two[k2++] = d;
			continue;
		}
		v->dim[v->ndims++] = (struct tor_vdim){ ti->radix[d],
							ti->wrap[d], d, d };
	}
	if (k2 >= 4 && k2 % 2 == 0)
		pairs = k2 / 2;
	else
		while (v->ndims + k2 - pairs > 3 && 2 * (pairs + 1) <= k2)
			pairs++;
	for (i = 0; i < k2; i += i < 2 * pairs ? 2 : 1)
		v->dim[v->ndims++] = i < 2 * pairs ?
			(struct tor_vdim){ 4, true, two[i], two[i + 1] } :
			(struct tor_vdim){ 2, false, two[i], two[i] };
	/* insertion sort: stable, radix descending */
	for (i = 1; i < v->ndims; i++)
		for (d = i; d > 0 && v->dim[d - 1].radix < v->dim[d].radix;
		     d--) {
			t = v->dim[d];
			v->dim[d] = v->dim[d - 1];
			v->dim[d - 1] = t;
		}
}

unsigned int tor_view_coord(const struct tor_info *ti,
			    const struct tor_vdim *vd, uint32_t n)
{
	const uint8_t *x = tor_coord(ti, n);

	if (vd->d0 == vd->d1)
		return x[vd->d0];
	/* two radix-2 lines make a 4-ring in Gray code order */
	return x[vd->d0] ? 3 - x[vd->d1] : x[vd->d1];
}

static void describe(struct tor_info *ti)
{
	struct tor_view v;
	unsigned int lines = 0, rings = 0, d;
	size_t len = 0;

	tor_view(ti, &v);
	for (d = 0; d < v.ndims; d++) {
		/* a 2-ring is a 2-line: it names neither */
		if (v.dim[d].radix != 2 || v.dim[d].wrap)
			v.dim[d].wrap ? rings++ : lines++;
		len += snprintf(ti->shape + len, sizeof(ti->shape) - len,
				"%s%u", d ? "x" : "", v.dim[d].radix);
	}
	snprintf(ti->shape + len, sizeof(ti->shape) - len, " %s",
		 !lines ? "torus" : !rings ? "mesh" : "torus/mesh");
	len = snprintf(ti->summary, sizeof(ti->summary),
		       "%s, %zu switches, up to %u hosts per switch", ti->shape,
		       ti->nplaced, ti->hosts_max);
	if (ti->par_max > 1)
		len += snprintf(ti->summary + len, sizeof(ti->summary) - len,
				", up to %u parallel cables", ti->par_max);
	if (ti->missing_sw || ti->missing_links)
		len += snprintf(ti->summary + len, sizeof(ti->summary) - len,
				", %zu switches and %zu cables missing",
				ti->missing_sw, ti->missing_links);
	len += snprintf(ti->summary + len, sizeof(ti->summary) - len,
			"; routing dimensions");
	for (d = 0; d < ti->ndims; d++)
		len += snprintf(ti->summary + len, sizeof(ti->summary) - len,
				"%s%u%s", d ? "x" : " ", ti->radix[d],
				ti->wrap[d] ? "r" : "");
}

static int export(struct rec *r)
{
	struct tor_info *ti = r->ti;
	uint32_t u;

	ti->coord = calloc(r->f->nnodes * TOR_MAX_DIMS + 1, 1);
	ti->placed = calloc(r->f->nnodes + 1, sizeof(*ti->placed));
	if (!ti->coord || !ti->placed)
		return -ENOMEM;
	for (u = 0; u < r->g.n; u++) {
		memcpy(ti->coord + (size_t)r->g.node[u] * TOR_MAX_DIMS, co(r, u),
		       TOR_MAX_DIMS);
		ti->placed[r->g.node[u]] = true;
	}
	ti->torus = true;
	describe(ti);
	return 0;
}

static void rec_release(struct rec *r)
{
	swg_release(&r->g);
	free(r->eid);
	free(r->span);
	free(r->uf);
	free(r->edim);
	free(r->dim_nbr);
	free(r->coord);
	free(r->placed);
	free(r->grid);
}

int tor_recognise(const struct fabric *f, struct tor_info *ti)
{
	struct rec r = { .f = f, .ti = ti };
	int ret;

	memset(ti, 0, sizeof(*ti));
	ret = build_graph(&r);
	if (!ret && r.g.n < 4)
		ret = SWG_REFUSE(ti, "torus", "%u linked switches", r.g.n);
	if (!ret)
		ret = number_edges(&r);
	if (!ret) {
		squares(&r);
		ret = join_lines(&r);
	}
	if (!ret)
		ret = name_dims(&r);
	if (!ret)
		ret = line_neighbours(&r);
	if (!ret)
		ret = place(&r);
	if (!ret)
		ret = check_cables(&r);
	if (!ret)
		ret = export(&r);
	rec_release(&r);
	if (ret > 0)
		ret = 0;
	if (ret < 0)
		snprintf(ti->summary, sizeof(ti->summary),
			 "torus recogniser failed: %s", strerror(-ret));
	return ret;
}

void tor_info_release(struct tor_info *ti)
{
	free(ti->coord);
	free(ti->placed);
	ti->coord = NULL;
	ti->placed = NULL;
}
