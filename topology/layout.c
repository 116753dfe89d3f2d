// SPDX-License-Identifier: MIT
/*
 * Fabric layout for a picture: switches ordered so cables stay short,
 * placed as rows, planes or a circle of groups, big fabrics grouped.
 */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dflyrec.h"
#include "fattreerec.h"
#include "layout.h"
#include "swgraph.h"
#include "torusrec.h"

#define BOX_W 40.0
#define BOX_W_MAX 104.0
#define BOX_H 14.0		/* the name band; host cells below it */
#define GROUP_W 64.0		/* a dragonfly group drawn as one box */
#define GAP 10.0
#define ROW_GAP 90.0		/* between tree rows: room for the cables */
#define PLANE_GAP 70.0		/* between torus planes: their wrap arcs */
#define LABEL_W 110.0		/* row labels left of the boxes */
#define STUB 7.0
#define TAU 6.283185307179586

/* One switch while the layout is made. */
struct item {
	uint32_t node;
	unsigned int row;	/* level, plane or group */
	uint32_t blk;		/* items of a row with one blk share a box */
	double k;		/* order within the row */
	const char *name;
};

struct ctx {
	const struct fabric *f;
	const struct lay_opts *o;
	struct lay *l;
	struct item *it;
	uint32_t n;
	uint32_t *hosts;	/* per node: CA ports cabled to it */
	double bw;		/* a one-switch box: room for the longest name */
	struct tor_info ti;	/* LAY_TORUS */
	struct tor_view tv;	/* its dimensions as the shape names them */
	struct df_info di;	/* LAY_DRAGONFLY */
	/* torus: blocks of q x q switches on a bx x by grid per plane */
	unsigned int tx, ty, q, bx, by, planes;
	double px, py;		/* grid pitch */
	unsigned int groups;	/* dragonfly: slots on the circle, unlinked last */
	bool df_rows;		/* Dragonfly+ groups as spines over leaves */
};

static int cmp_item(const void *x, const void *y)
{
	const struct item *a = x, *b = y;
	int c;

	if (a->row != b->row)
		return a->row < b->row ? -1 : 1;
	if (a->blk != b->blk)
		return a->blk < b->blk ? -1 : 1;
	if (a->k != b->k)
		return a->k < b->k ? -1 : 1;
	c = strverscmp(a->name, b->name);
	return c ? c : (a->node < b->node ? -1 : a->node > b->node);
}

__attribute__((format(printf, 4, 5)))
static int add_label(struct lay *l, double x, double y, const char *fmt, ...)
{
	struct lay_label *nl = realloc(l->label,
				       (l->nlabel + 1) * sizeof(*nl));
	va_list ap;

	if (!nl)
		return -ENOMEM;
	l->label = nl;
	nl += l->nlabel++;
	nl->x = x;
	nl->y = y;
	va_start(ap, fmt);
	vsnprintf(nl->text, sizeof(nl->text), fmt, ap);
	va_end(ap);
	return 0;
}

/* The switches, each with its name and the hosts cabled to it. */
static int collect(struct ctx *c)
{
	const struct fabric *f = c->f;
	uint32_t n;
	unsigned int p;

	c->it = calloc(f->nsw + 1, sizeof(*c->it));
	c->hosts = calloc(f->nnodes + 1, sizeof(*c->hosts));
	if (!c->it || !c->hosts)
		return -ENOMEM;
	for (n = 0; n < f->nnodes; n++) {
		if (!fab_is_sw(f, n)) {
			for (p = 1; p <= f->nodes[n].nports; p++) {
				uint32_t m = fab_port(f, n, p)->peer;

				if (m != FAB_NONE && fab_is_sw(f, m))
					c->hosts[m]++;
			}
			continue;
		}
		c->it[c->n].node = n;
		c->it[c->n].name = f->nodes[n].desc ? f->nodes[n].desc : "";
		if (LAY_CHAR_W * strlen(c->it[c->n].name) + 8 > c->bw)
			c->bw = LAY_CHAR_W * strlen(c->it[c->n].name) + 8;
		c->n++;
	}
	c->bw = c->bw < BOX_W ? BOX_W : c->bw > BOX_W_MAX ? BOX_W_MAX : c->bw;
	return 0;
}

/* Host cells of a box w wide: columns and cell size; returns the rows. */
static unsigned int host_grid(struct lay_box *b, double w)
{
	unsigned int n = b->nhosts;

	b->cols = n <= 8 ? n : n <= 64 ? 8 : n <= 256 ? 16 : 32;
	if (!n)
		return 0;
	b->cell = w / b->cols < 8 ? w / b->cols : 8;
	return (n + b->cols - 1) / b->cols;
}

/* Boxes from the sorted items: one per run of equal (row, blk). */
static int make_boxes(struct ctx *c, double w)
{
	struct lay *l = c->l;
	uint32_t i, k;

	l->sw = malloc((c->n + 1) * sizeof(*l->sw));
	l->box = calloc(c->n + 1, sizeof(*l->box));
	l->box_of = malloc((c->f->nnodes + 1) * sizeof(*l->box_of));
	if (!l->sw || !l->box || !l->box_of)
		return -ENOMEM;
	for (i = 0; i < c->f->nnodes; i++)
		l->box_of[i] = LAY_NONE;
	for (i = 0; i < c->n; i++) {
		struct lay_box *b;

		if (!i || c->it[i].row != c->it[i - 1].row ||
		    c->it[i].blk != c->it[i - 1].blk) {
			b = &l->box[l->nbox++];
			b->first = i;
			b->row = c->it[i].row;
		}
		b = &l->box[l->nbox - 1];
		b->nsw++;
		b->nhosts += c->hosts[c->it[i].node];
		l->sw[i] = c->it[i].node;
		l->box_of[c->it[i].node] = l->nbox - 1;
		l->grouped |= b->nsw > 1;
	}
	/* a group's label adds "{NN..NN} (NN)" to its names' common start */
	if (l->grouped && w == c->bw)
		w = c->bw = c->bw + 10 * LAY_CHAR_W;
	for (k = 0; k < l->nbox; k++) {
		struct lay_box *b = &l->box[k];
		unsigned int rows = host_grid(b, w - 4);

		b->w = w;
		b->h = BOX_H + (rows ? rows * b->cell + 3 : 0);
	}
	return 0;
}

/* Place box b at (x, y), its host cells centred under its name. */
static void place(struct lay_box *b, double x, double y)
{
	b->x = x;
	b->y = y;
	b->hx = x + (b->w - b->cols * b->cell) / 2;
	b->hy = y + BOX_H;
}

static double cx_of(const struct lay_box *b)
{
	return b->x + b->w / 2;
}

static double cy_of(const struct lay_box *b)
{
	return b->y + BOX_H / 2;
}

/* --- rows: fat-tree levels, or hops from the hosts --- */

/*
 * Order each row by where its cables go down: the lowest row by name,
 * every later one by the mean position of its neighbours below.
 */
static int order_rows(struct ctx *c)
{
	const struct fabric *f = c->f;
	double *pos = malloc((f->nnodes + 1) * sizeof(*pos));
	uint32_t i, j, k;
	unsigned int p;

	if (!pos)
		return -ENOMEM;
	for (i = 0; i < f->nnodes; i++)
		pos[i] = -1;
	qsort(c->it, c->n, sizeof(*c->it), cmp_item);
	for (i = 0; i < c->n; i = j) {
		for (j = i; j < c->n && c->it[j].row == c->it[i].row; j++) {
			struct item *e = &c->it[j];
			double sum = 0;
			unsigned int cnt = 0;

			for (p = 1; p <= f->nodes[e->node].nports; p++) {
				uint32_t m = fab_port(f, e->node, p)->peer;

				if (m != FAB_NONE && pos[m] >= 0) {
					sum += pos[m];
					cnt++;
				}
			}
			e->k = cnt ? sum / cnt : 2;
		}
		qsort(c->it + i, j - i, sizeof(*c->it), cmp_item);
		for (k = i; k < j; k++)
			pos[c->it[k].node] = (k - i + 0.5) / (j - i);
	}
	free(pos);
	return 0;
}

/*
 * What a row's switch is drawn with when the row is too long: below the
 * top row, its pod (its component without the top row); in the top row,
 * the switches with the same neighbours.
 */
static uint64_t group_key(const struct swg *g, uint32_t *uf, uint32_t n,
			  bool top)
{
	uint64_t h = 0xcbf29ce484222325ull;
	uint32_t u = g->loc[n], k;

	if (u == FAB_NONE)
		return (uint64_t)1 << 32 | n;
	if (!top)
		return swg_find(uf, u);
	for (k = g->off[u]; k < g->off[u + 1]; k++)
		h = (h ^ g->nb[k]) * 0x100000001b3ull;	/* FNV-1a */
	return h;
}

/* The pods: switches joined by cables below the top row. */
static void pods(const struct swg *g, const unsigned int *row,
		 unsigned int top, uint32_t *uf)
{
	uint32_t u, k;

	for (u = 0; u < g->n; u++)
		uf[u] = u;
	for (u = 0; u < g->n; u++)
		for (k = g->off[u]; k < g->off[u + 1]; k++)
			if (row[g->node[u]] < top &&
			    row[g->node[g->nb[k]]] < top)
				swg_union(uf, u, g->nb[k]);
}

/*
 * Items i..j of one row into at most max blocks: by group, several whole
 * groups a block where they are too many (a pod never split), else runs
 * of consecutive switches.
 */
static void row_split(struct ctx *c, uint32_t i, uint32_t j,
		      unsigned int max, const uint64_t *key)
{
	uint32_t k, x, nk = 0, per;

	for (k = i; k < j; k++) {
		for (x = i; x < k && key[x - i] != key[k - i]; x++)
			;
		c->it[k].blk = x < k ? c->it[x].blk : nk++;
	}
	if (nk > 1) {
		per = (nk + max - 1) / max;
		for (k = i; k < j; k++)
			c->it[k].blk /= per;
		qsort(c->it + i, j - i, sizeof(*c->it), cmp_item);
		return;
	}
	per = (j - i + max - 1) / max;
	for (k = i; k < j; k++)
		c->it[k].blk = (k - i) / per;
}

/* Group a row's switches into boxes when it has too many. */
static int row_blocks(struct ctx *c, const unsigned int *row)
{
	unsigned int max = c->o->row_max ? c->o->row_max : LAY_ROW_MAX, top;
	uint64_t *key = malloc((c->n + 1) * sizeof(*key));
	uint32_t *uf = NULL, i, j, k;
	struct swg g = { 0 };
	int ret = -ENOMEM;

	if (!key || swg_build(c->f, &g) ||
	    !(uf = malloc((g.n + 1) * sizeof(*uf))))
		goto out;
	/* the highest row but the unlinked switches' */
	for (top = 0, i = 0; i < c->n; i++)
		if (c->it[i].row != UINT32_MAX && c->it[i].row > top)
			top = c->it[i].row;
	pods(&g, row, top, uf);
	for (i = 0; i < c->n; i = j) {
		for (j = i; j < c->n && c->it[j].row == c->it[i].row; j++)
			;
		if (j - i <= max) {
			for (k = i; k < j; k++)
				c->it[k].blk = k - i;
			continue;
		}
		for (k = i; k < j; k++)
			key[k - i] = group_key(&g, uf, c->it[k].node,
					       c->it[k].row == top);
		row_split(c, i, j, max, key);
	}
	ret = 0;
out:
	free(key);
	free(uf);
	swg_release(&g);
	return ret;
}

/* Boxes i..j (one row) across width at *y, labelled; *y moves below. */
static int place_row(struct ctx *c, uint32_t i, uint32_t j, double width,
		     double *y)
{
	struct lay *l = c->l;
	unsigned int r = l->box[i].row;
	double pitch = width / (j - i), h = 0;
	uint32_t k;
	int ret;

	for (k = i; k < j; k++) {
		place(&l->box[k], LABEL_W + pitch * (k - i + 0.5) - c->bw / 2,
		      *y);
		if (l->box[k].h > h)
			h = l->box[k].h;
	}
	if (r == UINT32_MAX && l->kind == LAY_TREE)
		ret = add_label(l, 0, *y + BOX_H - 3, "unlinked");
	else if (r == UINT32_MAX)
		ret = add_label(l, 0, *y + BOX_H - 3, "unlinked or %u+ hops",
				FT_MAX_LEVELS);
	else if (l->kind == LAY_TREE)
		ret = add_label(l, 0, *y + BOX_H - 3, "level %u (%u)", r,
				l->box[j - 1].first + l->box[j - 1].nsw -
				l->box[i].first);
	else
		ret = add_label(l, 0, *y + BOX_H - 3, "%u hops from hosts", r);
	*y += h + ROW_GAP;
	return ret;
}

/* The highest row on top, the unlinked switches (if any) at the bottom. */
static int place_rows(struct ctx *c)
{
	struct lay *l = c->l;
	uint32_t i, j, most = 1, end = l->nbox;
	double y = 0, width;
	int ret = 0;

	for (i = 0; i < l->nbox; i = j) {
		for (j = i; j < l->nbox && l->box[j].row == l->box[i].row; j++)
			;
		if (j - i > most)
			most = j - i;
		if (l->box[i].row == UINT32_MAX)
			end = i;
	}
	width = most * (c->bw + GAP);
	for (j = end; j > 0 && !ret; j = i) {
		for (i = j; i > 0 && l->box[i - 1].row == l->box[j - 1].row; i--)
			;
		ret = place_row(c, i, j, width, &y);
	}
	if (!ret && end < l->nbox)
		ret = place_row(c, end, l->nbox, width, &y);
	return ret;
}

/*
 * Rows: the fat-tree's levels, or for another fabric the same search's
 * hops from the nearest switch with hosts.
 */
static int lay_rows(struct ctx *c, const struct ft_info *ft)
{
	unsigned int *row = malloc((c->f->nnodes + 1) * sizeof(*row));
	uint32_t i;
	int ret = -ENOMEM;

	if (!row)
		goto out;
	for (i = 0; i < c->f->nnodes; i++)
		row[i] = ft->level[i] == FT_NO_LEVEL ? UINT32_MAX :
						      ft->level[i];
	for (i = 0; i < c->n; i++)
		c->it[i].row = row[c->it[i].node];
	if ((ret = order_rows(c)))
		goto out;
	if ((ret = row_blocks(c, row)))
		goto out;
	if (!(ret = make_boxes(c, c->bw)))
		ret = place_rows(c);
out:
	free(row);
	return ret;
}

/* --- torus: planes of the first two dimensions --- */

/* Switch n's coordinate in the shape's dimension d, 0 past the last. */
static unsigned int vc(const struct ctx *c, uint32_t n, unsigned int d)
{
	return d < c->tv.ndims ? tor_view_coord(&c->ti, &c->tv.dim[d], n) : 0;
}

static unsigned int plane_of(const struct ctx *c, uint32_t n)
{
	unsigned int d, p = 0;

	for (d = c->tv.ndims; d-- > 2;)
		p = p * c->tv.dim[d].radix + vc(c, n, d);
	return p;
}

/* Smallest block side that keeps the boxes within the limit. */
static void torus_blocks(struct ctx *c)
{
	unsigned int max = c->o->sw_max ? c->o->sw_max : LAY_SW_MAX, d;

	tor_view(&c->ti, &c->tv);
	c->tx = c->tv.dim[0].radix;
	c->ty = c->tv.ndims > 1 ? c->tv.dim[1].radix : 1;
	c->planes = 1;
	for (d = 2; d < c->tv.ndims; d++)
		c->planes *= c->tv.dim[d].radix;
	for (c->q = 1;; c->q++) {
		c->bx = (c->tx + c->q - 1) / c->q;
		c->by = (c->ty + c->q - 1) / c->q;
		if ((size_t)c->bx * c->by * c->planes <= max ||
		    (c->bx == 1 && c->by == 1))
			break;
	}
}

static void torus_items(struct ctx *c)
{
	uint32_t i;

	for (i = 0; i < c->n; i++) {
		struct item *e = &c->it[i];
		unsigned int x, y;

		if (!c->ti.placed[e->node]) {
			e->row = c->planes;
			e->blk = e->node;
			continue;
		}
		x = vc(c, e->node, 0);
		y = vc(c, e->node, 1);
		e->row = plane_of(c, e->node);
		e->blk = (y / c->q) * c->bx + x / c->q;
		e->k = y * c->tx + x;
	}
}

static int place_torus(struct ctx *c)
{
	struct lay *l = c->l;
	unsigned int pc = 1, p, gx, gy;
	double hmax = 0, ox, oy, y0 = 0;
	uint32_t k, un = 0;
	int ret;

	while (pc * pc < c->planes)
		pc++;
	for (k = 0; k < l->nbox; k++)
		if (l->box[k].h > hmax)
			hmax = l->box[k].h;
	c->px = c->bw + 2 * GAP;
	c->py = hmax + 3 * GAP;
	for (k = 0; k < l->nbox; k++) {
		struct lay_box *b = &l->box[k];
		uint32_t n = l->sw[b->first];

		p = b->row;
		if (p == c->planes) {
			y0 = ((c->planes + pc - 1) / pc) *
			     (c->by * c->py + PLANE_GAP);
			place(b, LABEL_W + un++ * c->px, y0);
			continue;
		}
		gx = vc(c, n, 0) / c->q;
		gy = vc(c, n, 1) / c->q;
		ox = LABEL_W + (p % pc) * (c->bx * c->px + PLANE_GAP);
		oy = (p / pc) * (c->by * c->py + PLANE_GAP);
		place(b, ox + gx * c->px, oy + gy * c->py);
		if (k == 0 || l->box[k - 1].row != p) {
			ret = c->planes > 1 ?
			      add_label(l, ox, oy - 12, "plane %u", p) : 0;
			if (ret)
				return ret;
		}
	}
	return un ? add_label(l, 0, y0 + BOX_H - 3, "not in the grid") : 0;
}

static void torus_edge(const struct ctx *c, struct lay_edge *e)
{
	const struct lay_box *a = &c->l->box[e->a], *b = &c->l->box[e->b];
	double dx = fabs(a->x - b->x), dy = fabs(a->y - b->y);
	unsigned int next;

	if (a->row == c->planes || b->row == c->planes)
		return;
	if (a->row != b->row) {
		/* a's tick leans to the next plane, b's to the one before */
		next = (b->row + c->planes - a->row) % c->planes == 1;
		e->path = LAY_STUB;
		e->x1 = next ? a->x + a->w : a->x;
		e->y1 = next ? a->y : a->y + a->h;
		e->x2 = next ? b->x : b->x + b->w;
		e->y2 = next ? b->y + b->h : b->y;
		e->cx = next ? STUB : -STUB;
		e->cy = -e->cx;
		return;
	}
	if (dy < 1 && dx > c->px * 1.5) {
		e->path = LAY_ARC;
		e->cx = (e->x1 + e->x2) / 2;
		e->cy = e->y1 - c->py * 0.6;
	} else if (dx < 1 && dy > c->py * 1.5) {
		e->path = LAY_ARC;
		e->cx = e->x1 - c->px * 0.7;
		e->cy = (e->y1 + e->y2) / 2;
	}
}

static int lay_torus(struct ctx *c)
{
	int ret;

	torus_blocks(c);
	torus_items(c);
	qsort(c->it, c->n, sizeof(*c->it), cmp_item);
	ret = make_boxes(c, c->bw);
	return ret ? ret : place_torus(c);
}

/* --- dragonfly: groups around a circle --- */

/* A dragonfly's switches: each group's slot on the circle, spines first. */
static void dragonfly_items(struct ctx *c, unsigned int per)
{
	unsigned int slots = (c->di.ngroups + per - 1) / per;
	uint32_t i, g;

	c->groups = slots;
	for (i = 0; i < c->n; i++) {
		struct item *e = &c->it[i];

		g = c->di.group[e->node];
		e->row = g == DF_NONE ? slots : g / per;
		if (g == DF_NONE)
			c->groups = slots + 1;
		e->k = c->di.spine && c->di.spine[e->node] ? 0 : 1;
	}
}

/*
 * The size of slot boxes i..j drawn as a panel: a column, or for a
 * Dragonfly+ group drawn switch by switch its spines in a row above its
 * leaves.
 */
static void panel_size(const struct ctx *c, uint32_t i, uint32_t j,
		       double *pw, double *ph)
{
	const struct lay *l = c->l;
	double hs = 0, hl = 0, h = 0;
	uint32_t k, ns = 0;

	for (k = i; k < j; k++) {
		double bh = l->box[k].h;

		h += bh + 4;
		if (c->it[l->box[k].first].k == 0) {
			ns++;
			hs = bh > hs ? bh : hs;
		} else {
			hl = bh > hl ? bh : hl;
		}
	}
	*pw = l->box[i].w;
	*ph = h;
	if (c->df_rows) {
		k = ns > j - i - ns ? ns : j - i - ns;
		*pw = k * (l->box[i].w + 4);
		*ph = hs + 30 + hl;
	}
}

/* Place slot boxes i..j as a panel centred on (x, y). */
static void place_panel(struct ctx *c, uint32_t i, uint32_t j, double x,
			double y, double pw, double ph)
{
	struct lay *l = c->l;
	double cy = y - ph / 2, sx = x - pw / 2, lx = sx, hs = 0;
	uint32_t k;

	for (k = i; k < j; k++) {
		struct lay_box *b = &l->box[k];

		if (!c->df_rows) {
			place(b, x - b->w / 2, cy);
			cy += b->h + 4;
		} else if (c->it[b->first].k == 0) {
			place(b, sx, y - ph / 2);
			sx += b->w + 4;
			hs = b->h > hs ? b->h : hs;
		}
	}
	for (k = i; c->df_rows && k < j; k++)
		if (c->it[l->box[k].first].k != 0) {
			place(&l->box[k], lx, y - ph / 2 + hs + 30);
			lx += l->box[k].w + 4;
		}
}

static int dragonfly_label(struct ctx *c, uint32_t slot, unsigned int per,
			   double x, double y)
{
	unsigned int g0 = slot * per, g1 = g0 + per - 1;

	if (slot * per >= c->di.ngroups)
		return add_label(c->l, x, y, "unlinked");
	if (per == 1)
		return add_label(c->l, x, y, "group %u", g0);
	if (g1 >= c->di.ngroups)
		g1 = c->di.ngroups - 1;
	return add_label(c->l, x, y, "groups %u-%u", g0, g1);
}

/*
 * Groups around a circle: switch by switch, or past sw_max switches a box
 * per group, several groups a box past LAY_GROUPS_MAX groups.
 */
static int lay_dragonfly(struct ctx *c)
{
	unsigned int max = c->o->sw_max ? c->o->sw_max : LAY_SW_MAX, per = 1;
	bool one = c->n > max;
	struct lay *l = c->l;
	double w = one ? GROUP_W : c->bw, pmax = 0, pw, ph, r, th;
	uint32_t i, j;
	int ret;

	if (one)
		per = (c->di.ngroups + LAY_GROUPS_MAX - 1) / LAY_GROUPS_MAX;
	c->df_rows = c->di.plus && !one;
	dragonfly_items(c, per);
	qsort(c->it, c->n, sizeof(*c->it), cmp_item);
	for (i = 0; !one && i < c->n; i++)
		c->it[i].blk = i;
	if ((ret = make_boxes(c, w)))
		return ret;
	for (i = 0; i < l->nbox; i = j) {
		for (j = i; j < l->nbox && l->box[j].row == l->box[i].row; j++)
			;
		panel_size(c, i, j, &pw, &ph);
		pmax = pw > pmax ? pw : pmax;
		pmax = ph > pmax ? ph : pmax;
	}
	r = c->groups * (pmax + 80) / TAU;
	r = r < 150 ? 150 : r;
	for (i = 0; i < l->nbox && !ret; i = j) {
		double x, y;

		for (j = i; j < l->nbox && l->box[j].row == l->box[i].row; j++)
			;
		panel_size(c, i, j, &pw, &ph);
		th = -TAU / 4 + TAU * l->box[i].row / c->groups;
		x = r + pmax + r * cos(th);
		y = r + pmax + r * sin(th);
		place_panel(c, i, j, x, y, pw, ph);
		ret = dragonfly_label(c, l->box[i].row, per, x - pw / 2,
				      y - ph / 2 - 6);
	}
	return ret;
}

/*
 * Cables inside a group: between a Dragonfly+ group's rows straight, in
 * a column from its side, bowing away from the circle's centre.
 */
static void dragonfly_edge(const struct ctx *c, struct lay_edge *e)
{
	const struct lay_box *a = &c->l->box[e->a], *b = &c->l->box[e->b];
	double th = -TAU / 4 + TAU * a->row / c->groups, bow;
	bool right = cos(th) >= 0;

	if (a->row != b->row || c->df_rows)
		return;
	/* a quadratic curve reaches half way to its control point */
	bow = 2 * (8 + 5.0 * (e->b - e->a));
	e->path = LAY_ARC;
	e->x1 = right ? a->x + a->w : a->x;
	e->x2 = right ? b->x + b->w : b->x;
	e->cx = right ? e->x1 + bow : e->x1 - bow;
	e->cy = (e->y1 + e->y2) / 2;
}

/* --- the cables --- */

struct pair {
	uint32_t a, b;
};

static int cmp_pair(const void *x, const void *y)
{
	const struct pair *p = x, *q = y;

	if (p->a != q->a)
		return p->a < q->a ? -1 : 1;
	return p->b < q->b ? -1 : p->b > q->b;
}

/* Each switch-to-switch cable once, as its pair of boxes. */
static int cable_pairs(const struct ctx *c, struct pair **out, size_t *np)
{
	const struct fabric *f = c->f;
	const struct lay *l = c->l;
	struct pair *pr = malloc((f->nports + 1) * sizeof(*pr));
	size_t n = 0;
	uint32_t i, s;
	unsigned int p;

	if (!pr)
		return -ENOMEM;
	for (i = 0; i < c->n; i++) {
		s = l->sw[i];
		for (p = 1; p <= f->nodes[s].nports; p++) {
			const struct fab_port *fp = fab_port(f, s, p);
			uint32_t x = l->box_of[s], y;

			if (fp->peer == FAB_NONE || !fab_is_sw(f, fp->peer) ||
			    fp->peer < s || (fp->peer == s && fp->peer_port < p))
				continue;
			y = l->box_of[fp->peer];
			pr[n].a = x < y ? x : y;
			pr[n++].b = x < y ? y : x;
		}
	}
	qsort(pr, n, sizeof(*pr), cmp_pair);
	*out = pr;
	*np = n;
	return 0;
}

static void edge_geometry(const struct ctx *c, struct lay_edge *e)
{
	const struct lay_box *a = &c->l->box[e->a], *b = &c->l->box[e->b];

	e->path = e->a == e->b ? LAY_INSIDE : LAY_LINE;
	e->x1 = cx_of(a);
	e->y1 = cy_of(a);
	e->x2 = cx_of(b);
	e->y2 = cy_of(b);
	if (e->path == LAY_INSIDE)
		return;
	if (c->l->kind == LAY_TORUS)
		torus_edge(c, e);
	else if (c->l->kind == LAY_DRAGONFLY)
		dragonfly_edge(c, e);
	else if (a->row != b->row) {
		/* rows: from the bottom of the upper box to the lower's top */
		e->y1 = a->row > b->row ? a->y + a->h : a->y;
		e->y2 = a->row > b->row ? b->y : b->y + b->h;
	} else {
		e->path = LAY_ARC;
		e->cx = (e->x1 + e->x2) / 2;
		e->cy = a->y - 30 - fabs(e->x2 - e->x1) / 10;
	}
}

static int make_edges(struct ctx *c)
{
	const struct fabric *f = c->f;
	struct lay *l = c->l;
	struct pair *pr, key;
	size_t np, i;
	uint32_t n;
	unsigned int p;
	int ret = cable_pairs(c, &pr, &np);

	if (ret)
		return ret;
	l->edge = calloc(np + 1, sizeof(*l->edge));
	l->edge_of = malloc((f->nports + 1) * sizeof(*l->edge_of));
	if (!l->edge || !l->edge_of) {
		free(pr);
		return -ENOMEM;
	}
	for (i = 0; i < np; i++) {
		if (!i || cmp_pair(&pr[i], &pr[i - 1])) {
			pr[l->nedge] = pr[i];
			l->edge[l->nedge].a = pr[i].a;
			l->edge[l->nedge++].b = pr[i].b;
		}
		l->edge[l->nedge - 1].cables++;
	}
	for (i = 0; i < f->nports; i++)
		l->edge_of[i] = LAY_NONE;
	for (n = 0; n < f->nnodes; n++)
		for (p = 1; fab_is_sw(f, n) && p <= f->nodes[n].nports; p++) {
			const struct fab_port *fp = fab_port(f, n, p);
			struct pair *hit;

			if (fp->peer == FAB_NONE || !fab_is_sw(f, fp->peer))
				continue;
			key.a = l->box_of[n];
			key.b = l->box_of[fp->peer];
			if (key.a > key.b) {
				key.a = key.b;
				key.b = l->box_of[n];
			}
			hit = bsearch(&key, pr, l->nedge, sizeof(*pr),
				      cmp_pair);
			l->edge_of[f->nodes[n].port0 + p] = hit - pr;
		}
	for (i = 0; i < l->nedge; i++)
		edge_geometry(c, &l->edge[i]);
	free(pr);
	return 0;
}

/* --- the whole --- */

static void grow(double *lo, double *hi, double v)
{
	if (v < *lo)
		*lo = v;
	if (v > *hi)
		*hi = v;
}

/* Move everything by (dx, dy). */
static void shift(struct lay *l, double dx, double dy)
{
	uint32_t i;

	for (i = 0; i < l->nbox; i++) {
		l->box[i].x += dx;
		l->box[i].y += dy;
		l->box[i].hx += dx;
		l->box[i].hy += dy;
	}
	for (i = 0; i < l->nedge; i++) {
		struct lay_edge *e = &l->edge[i];

		e->x1 += dx;
		e->y1 += dy;
		e->x2 += dx;
		e->y2 += dy;
		if (e->path == LAY_ARC) {
			e->cx += dx;
			e->cy += dy;
		}
	}
	for (i = 0; i < l->nlabel; i++) {
		l->label[i].x += dx;
		l->label[i].y += dy;
	}
}

/* Bring the drawing to 10 units from the origin; measure it. */
static void frame(struct lay *l)
{
	double x0 = INFINITY, x1 = -INFINITY, y0 = INFINITY, y1 = -INFINITY;
	uint32_t i;

	if (!l->nbox)
		x0 = x1 = y0 = y1 = 0;

	for (i = 0; i < l->nbox; i++) {
		grow(&x0, &x1, l->box[i].x);
		grow(&x0, &x1, l->box[i].x + l->box[i].w);
		grow(&y0, &y1, l->box[i].y);
		grow(&y0, &y1, l->box[i].y + l->box[i].h);
	}
	for (i = 0; i < l->nedge; i++) {
		const struct lay_edge *e = &l->edge[i];

		if (e->path == LAY_ARC) {
			grow(&x0, &x1, e->cx);
			grow(&y0, &y1, e->cy);
		} else if (e->path == LAY_STUB) {
			grow(&x0, &x1, e->x1 + e->cx);
			grow(&y0, &y1, e->y1 + e->cy);
			grow(&x0, &x1, e->x2 - e->cx);
			grow(&y0, &y1, e->y2 - e->cy);
		}
	}
	for (i = 0; i < l->nlabel; i++) {
		grow(&x0, &x1, l->label[i].x);
		grow(&x0, &x1, l->label[i].x + 7 * strlen(l->label[i].text));
		grow(&y0, &y1, l->label[i].y - 12);
	}
	shift(l, 10 - x0, 10 - y0);
	l->width = x1 - x0 + 20;
	l->height = y1 - y0 + 20;
}

static int recognise(struct ctx *c, struct ft_info *ft)
{
	const struct fabric *f = c->f;
	struct lay *l = c->l;
	int ret = ft_recognise(f, ft);

	if (!ret && ft->tree) {
		l->kind = LAY_TREE;
		snprintf(l->what, sizeof(l->what), "%u-level fat-tree",
			 ft->nlevels);
		return lay_rows(c, ft);
	}
	if (!ret && !(ret = tor_recognise(f, &c->ti)) && c->ti.torus) {
		l->kind = LAY_TORUS;
		snprintf(l->what, sizeof(l->what), "%s", c->ti.shape);
		return lay_torus(c);
	}
	if (!ret && !(ret = df_recognise(f, &c->di)) && c->di.dragonfly) {
		l->kind = LAY_DRAGONFLY;
		snprintf(l->what, sizeof(l->what), "%s of %u groups",
			 c->di.plus ? "Dragonfly+" : "dragonfly",
			 c->di.ngroups);
		return lay_dragonfly(c);
	}
	if (ret)
		return ret;
	l->kind = LAY_LAYERS;
	snprintf(l->what, sizeof(l->what), "%zu switches in rows by hops",
		 f->nsw);
	return lay_rows(c, ft);
}

int lay_build(const struct fabric *f, const struct lay_opts *o,
	      struct lay *l)
{
	static const struct lay_opts def;
	struct ctx c = { .f = f, .o = o ? o : &def, .l = l };
	struct ft_info ft = { 0 };
	int ret;

	memset(l, 0, sizeof(*l));
	ret = collect(&c);
	if (!ret)
		ret = recognise(&c, &ft);
	if (!ret)
		ret = make_edges(&c);
	if (!ret)
		frame(l);
	ft_info_release(&ft);
	tor_info_release(&c.ti);
	df_info_release(&c.di);
	free(c.it);
	free(c.hosts);
	if (ret)
		lay_release(l);
	return ret;
}

void lay_release(struct lay *l)
{
	free(l->box);
	free(l->edge);
	free(l->label);
	free(l->sw);
	free(l->box_of);
	free(l->edge_of);
	memset(l, 0, sizeof(*l));
}
