// SPDX-License-Identifier: MIT
/*
 * map: the fabric as an SVG picture.  Switches where topology/layout puts
 * them, each cable drawn as its two directions coloured by a load (the
 * routing's all-to-all, the jobs' collectives on the flow model, or the
 * port counters), hosts coloured by their jobs.
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "ibpoolroute.h"
#include "tools/lib/pool/chart.h"
#include "topology/layout.h"

#define HEAD 76.0		/* title and legends above the drawing */
#define HEAD_MISSING 14.0	/* and the missing cables' legend line */
#define MISSING "#d00000"	/* a box short of cables */

static const char *const load_names[] = {
	[PR_LOAD_A2A] = "a2a",
	[PR_LOAD_JOBS] = "jobs",
	[PR_LOAD_COUNTERS] = "counters",
};

/* One direction of an edge: its links' loads, summed up. */
struct dir {
	double max, sum;
	uint32_t n, known;	/* links, and those with a load */
	uint32_t node;		/* the busiest link: sending node, port */
	unsigned int port;
};

/*
 * Cables a degraded tree lacks between two boxes: from box a up to box b,
 * where the tree's shape expects them; b LAY_NONE where no switch of the
 * level shows which (a switch above lost: a stub up from a).
 */
struct gap {
	uint32_t a, b, n;
};

/* Everything map makes; all released by map_release(). */
struct map {
	const struct pr_opts *o;
	struct pr_source src;
	struct lay l;
	double *load;		/* per fabric port: the link it sends on, NAN
				 * where the source does not say */
	double *shade;		/* what the colour shows: load, or for the
				 * all-to-all load / the mean of its kind */
	double full;		/* the shade drawn red */
	const char *unit;
	const char *scale;	/* what the shade is, for the legend */
	bool host_loads;	/* the source loads hosts' links too */
	struct dir *dirs;	/* 2 per edge: a to b, b to a */
	uint32_t busy_node;	/* the busiest link, FAB_NONE for none */
	unsigned int busy_port;
	/* per box, a tree's: up-links its switches lack against the most a
	 * switch of their level has; the sum of them */
	uint32_t *missing;
	uint32_t nmissing;
	struct gap *gap;	/* the missing cables drawn */
	uint32_t ngap;
	bool fold;		/* hosts one bar a box */
};

int pr_load_parse(const char *s, enum pr_load *l)
{
	size_t i;

	for (i = 0; i < sizeof(load_names) / sizeof(load_names[0]); i++)
		if (!strcmp(s, load_names[i])) {
			*l = i;
			return 0;
		}
	return -EINVAL;
}

static double *nan_array(size_t n)
{
	double *a = malloc((n + 1) * sizeof(*a));
	size_t i;

	for (i = 0; a && i < n; i++)
		a[i] = NAN;
	return a;
}

/*
 * A link's kind, whose links a balanced routing loads alike: its rows
 * (levels) in a tree, in or between groups in a dragonfly, all one in a
 * torus.
 */
static uint64_t kind(const struct map *m, uint32_t n, unsigned int p)
{
	const struct lay *l = &m->l;
	uint32_t peer = fab_port(m->src.fab, n, p)->peer;
	uint64_t a = l->box[l->box_of[n]].row, b = l->box[l->box_of[peer]].row;

	if (l->kind == LAY_TORUS)
		return 0;
	if (l->kind == LAY_DRAGONFLY)
		return a != b;
	return a << 32 | b;
}

/* The links of one kind so far. */
struct kinds {
	struct kind_sum {
		uint64_t kind;
		double sum;
		uint32_t n;
	} *k;
	size_t n;
};

/* Kind k's entry, added when new; NULL when out of memory. */
static struct kind_sum *kind_get(struct kinds *ks, uint64_t k)
{
	struct kind_sum *nk;
	size_t i;

	for (i = 0; i < ks->n; i++)
		if (ks->k[i].kind == k)
			return &ks->k[i];
	nk = realloc(ks->k, (ks->n + 1) * sizeof(*nk));
	if (!nk)
		return NULL;
	ks->k = nk;
	nk[ks->n] = (struct kind_sum){ k, 0, 0 };
	return &nk[ks->n++];
}

/* Shade each switch link by its load over the mean of its kind. */
static int by_kind(struct map *m)
{
	const struct fabric *f = m->src.fab;
	struct kinds ks = { NULL, 0 };
	struct kind_sum *e;
	uint32_t n;
	unsigned int p;
	size_t gp;
	int pass, ret = 0;

	for (pass = 0; pass < 2 && !ret; pass++)
		for (n = 0; n < f->nnodes && !ret; n++)
			for (p = 1; fab_is_sw(f, n) && p <= f->nodes[n].nports;
			     p++) {
				gp = f->nodes[n].port0 + p;
				if (m->l.edge_of[gp] == LAY_NONE)
					continue;
				if (!(e = kind_get(&ks, kind(m, n, p)))) {
					ret = -ENOMEM;
					break;
				}
				if (pass)
					m->shade[gp] = e->sum ? m->load[gp] /
						(e->sum / e->n) : 0;
				e->sum += pass ? 0 : m->load[gp];
				e->n += !pass;
			}
	free(ks.k);
	m->full = 2;
	m->scale = "x the mean of links of its kind (1: balanced)";
	return ret;
}

/* The row of switch n's box, UINT32_MAX for none. */
static uint32_t row_of(const struct map *m, uint32_t n)
{
	const struct lay *l = &m->l;

	if (n == FAB_NONE || !fab_is_sw(m->src.fab, n) ||
	    l->box_of[n] == LAY_NONE)
		return UINT32_MAX;
	return l->box[l->box_of[n]].row;
}

/*
 * The switches of a higher row of the tree that switch n's cables reach,
 * once per cable, into q (FAB_MAX_PORTS + 1 long); their count.
 */
static uint32_t up_peers(const struct map *m, uint32_t n, uint32_t *q)
{
	const struct fabric *f = m->src.fab;
	uint32_t r = row_of(m, n), k = 0, t, pr;
	unsigned int p;

	for (p = 1; p <= f->nodes[n].nports; p++) {
		t = fab_port(f, n, p)->peer;
		pr = row_of(m, t);
		if (pr != UINT32_MAX && pr > r)
			q[k++] = t;
	}
	return k;
}

/* Scratch for placing missing cables: per node counts, peer lists. */
struct place {
	uint32_t *cnt, *use, *qa, *qb, *qc;
};

/*
 * How many of t's up-peers (qb, nb of them) switch n has too (counted in
 * s->cnt); those t has beyond them into qc, their count into *extra.
 */
static uint32_t overlap(struct place *s, uint32_t nb, uint32_t *extra)
{
	uint32_t j, o = 0, x = 0;

	for (j = 0; j < nb; j++) {
		if (s->use[s->qb[j]] < s->cnt[s->qb[j]]) {
			s->use[s->qb[j]]++;
			o++;
		} else {
			s->qc[x++] = s->qb[j];
		}
	}
	for (j = 0; j < nb; j++)
		s->use[s->qb[j]] = 0;
	*extra = x;
	return o;
}

static int add_gap(struct map *m, uint32_t a, uint32_t b, uint32_t n)
{
	struct gap *g;
	uint32_t i;

	for (i = 0; i < m->ngap; i++)
		if (m->gap[i].a == a && m->gap[i].b == b) {
			m->gap[i].n += n;
			return 0;
		}
	g = realloc(m->gap, (m->ngap + 1) * sizeof(*g));
	if (!g)
		return -ENOMEM;
	m->gap = g;
	g[m->ngap++] = (struct gap){ a, b, n };
	return 0;
}

/*
 * Where switch n's d missing cables go: to the up-peers its twin has and
 * it lacks, the twin being the switch of its row sharing most up-peers
 * with it among those with peers it lacks (a leaf's pod mate, a spine's
 * namesake in another pod).  A twin sharing none says nothing (a spine
 * of another core group); what no twin shows (a switch above lost): a
 * stub.
 */
static int place_missing(struct map *m, struct place *s, uint32_t n,
			 uint32_t d)
{
	const struct lay *l = &m->l;
	uint32_t na = up_peers(m, n, s->qa), r = row_of(m, n);
	uint32_t i, t, o, x, twin = FAB_NONE, bo = 0, bx = 0;
	int ret = 0;

	for (i = 0; i < na; i++)
		s->cnt[s->qa[i]]++;
	for (i = 0; i < l->box[l->nbox - 1].first + l->box[l->nbox - 1].nsw;
	     i++) {
		t = l->sw[i];
		if (t == n || row_of(m, t) != r)
			continue;
		o = overlap(s, up_peers(m, t, s->qb), &x);
		if (o && x && (twin == FAB_NONE || o > bo ||
				(o == bo && x < bx))) {
			twin = t;
			bo = o;
			bx = x;
		}
	}
	if (twin != FAB_NONE) {
		overlap(s, up_peers(m, twin, s->qb), &x);
		for (i = 0; i < x && i < d && !ret; i++)
			ret = add_gap(m, l->box_of[n], l->box_of[s->qc[i]], 1);
		d -= i;
	}
	if (d && !ret)
		ret = add_gap(m, l->box_of[n], LAY_NONE, d);
	for (i = 0; i < na; i++)
		s->cnt[s->qa[i]] = 0;
	return ret;
}

/*
 * A degraded tree's missing cables: a switch with fewer up-links than
 * the most of its level lacks the difference (a switch gone from a row
 * above shows on every switch below it).  Rows without a tree: none.
 */
static int find_missing(struct map *m)
{
	const struct lay *l = &m->l;
	size_t nn = m->src.fab->nnodes + 1;
	struct place s = {
		calloc(nn, sizeof(*s.cnt)), calloc(nn, sizeof(*s.use)),
		malloc((FAB_MAX_PORTS + 1) * sizeof(*s.qa)),
		malloc((FAB_MAX_PORTS + 1) * sizeof(*s.qb)),
		malloc((FAB_MAX_PORTS + 1) * sizeof(*s.qc)),
	};
	uint32_t *most = NULL, i, n, b, up, nsw, rows = 0;
	int ret = -ENOMEM;

	m->missing = calloc(l->nbox + 1, sizeof(*m->missing));
	if (!m->missing || !s.cnt || !s.use || !s.qa || !s.qb || !s.qc)
		goto out;
	ret = 0;
	if (l->kind != LAY_TREE)
		goto out;
	for (b = 0; b < l->nbox; b++)
		if (l->box[b].row != UINT32_MAX && l->box[b].row + 1 > rows)
			rows = l->box[b].row + 1;
	ret = -ENOMEM;
	if (!(most = calloc(rows + 1, sizeof(*most))))
		goto out;
	ret = 0;
	nsw = l->box[l->nbox - 1].first + l->box[l->nbox - 1].nsw;
	for (i = 0; i < nsw; i++) {
		n = l->sw[i];
		b = l->box_of[n];
		up = up_peers(m, n, s.qa);
		if (l->box[b].row != UINT32_MAX && up > most[l->box[b].row])
			most[l->box[b].row] = up;
	}
	for (i = 0; i < nsw && !ret; i++) {
		n = l->sw[i];
		b = l->box_of[n];
		if (l->box[b].row == UINT32_MAX)
			continue;
		up = most[l->box[b].row] - up_peers(m, n, s.qa);
		m->missing[b] += up;
		m->nmissing += up;
		if (up)
			ret = place_missing(m, &s, n, up);
	}
out:
	free(most);
	free(s.cnt);
	free(s.use);
	free(s.qa);
	free(s.qb);
	free(s.qc);
	return ret;
}

/* The routing's all-to-all: routes on each switch-to-switch link. */
static int load_a2a(struct map *m, char *err, size_t len)
{
	const struct fabric *f = m->src.fab;
	uint64_t *efi = calloc(f->nports + 1, sizeof(*efi));
	struct vf_opts vo = { .skip_cdg = true, .efi_link = efi };
	struct vf_report r;
	size_t i;
	int ret = -ENOMEM;

	if (efi && (ret = vf_check(&m->src.tables, &vo, &r)) == 0)
		for (i = 0; i < f->nports; i++)
			if (m->l.edge_of[i] != LAY_NONE)
				m->load[i] = efi[i];
	free(efi);
	if (ret)
		snprintf(err, len, "all-to-all loads: %s", strerror(-ret));
	m->unit = "all-to-all routes";
	return ret ? ret : by_kind(m);
}

/* The jobs' collectives at once: flows on each link a round. */
static int load_jobs(struct map *m, char *err, size_t len)
{
	const struct pr_opts *o = m->o;
	struct cs_opts co = {
		.pattern = o->pattern_set ? o->pattern : CS_ALLTOALL,
		.rounds = o->rounds,
		.seed = o->vf.seed,
		.shuffle = o->shuffle,
		.links = true,
	};
	struct cs_result r;
	size_t i;
	int ret = cs_run(&m->src.tables, &m->src.jobs, &co, &r);

	if (ret) {
		snprintf(err, len, "jobs' loads: %s", strerror(-ret));
		return ret;
	}
	for (i = 0; i < m->src.fab->nports; i++)
		m->load[i] = r.link[i];
	cs_result_release(&r);
	m->unit = co.pattern == CS_RING ? "ring flows a round" :
		  co.pattern == CS_ALLTOALL ? "all-to-all flows a round" :
					      "NCCL all-to-all flows";
	m->full = 2;	/* one flow fills a link; red: shared */
	m->host_loads = true;
	return 0;
}

/* The port counters, twice: each link's share of its line rate. */
static int load_counters(struct map *m, char *err, size_t len)
{
	const struct fabric *f = m->src.fab;
	struct lf_sample a = { 0 }, b = { 0 };
	struct lf_rate *r = NULL;
	size_t n = 0, i;
	bool rated = true;
	double t;
	int ret;

	if ((ret = pr_counter_rates(m->src.live, m->o->interval_ms, &a, &b, &r,
				    &n, &t, err, len)))
		goto out;
	for (i = 0; i < n; i++)
		if (!(r[i].flags & (LF_RATE_NEW | LF_RATE_GONE)) &&
		    !fab_port_rate(fab_port(f, r[i].node, r[i].port)))
			rated = false;
	for (i = 0; i < n; i++) {
		if (r[i].flags & (LF_RATE_NEW | LF_RATE_GONE))
			continue;
		m->load[f->nodes[r[i].node].port0 + r[i].port] = rated ?
			r[i].bytes_per_s /
			fab_port_rate(fab_port(f, r[i].node, r[i].port)) :
			r[i].bytes_per_s;
	}
	m->unit = rated ? "of line rate" : "bytes/s";
	m->full = rated ? 1 : 0;
	m->host_loads = true;
out:
	free(r);
	lf_sample_release(&a);
	lf_sample_release(&b);
	return ret;
}

static void tally(struct dir *d, const struct map *m, uint32_t n,
		  unsigned int p)
{
	double v = m->shade[m->src.fab->nodes[n].port0 + p];

	d->n++;
	if (isnan(v))
		return;
	d->known++;
	d->sum += v;
	if (d->known == 1 || v > d->max) {
		d->max = v;
		d->node = n;
		d->port = p;
	}
}

/* Each edge direction's loads, and the busiest link of all. */
static int sum_edges(struct map *m)
{
	const struct fabric *f = m->src.fab;
	double top = -1;
	uint32_t n, e;
	unsigned int p;
	bool ab;

	m->dirs = calloc(2 * (size_t)m->l.nedge + 1, sizeof(*m->dirs));
	if (!m->dirs)
		return -ENOMEM;
	m->busy_node = FAB_NONE;
	for (n = 0; n < f->nnodes; n++) {
		for (p = 1; p <= f->nodes[n].nports; p++) {
			double v = m->load[f->nodes[n].port0 + p];

			e = fab_is_sw(f, n) ?
			    lay_edge_dir(&m->l, n, f->nodes[n].port0 + p, &ab) :
			    LAY_NONE;
			if (e != LAY_NONE)
				tally(&m->dirs[2 * e + !ab], m, n, p);
			if (!isnan(v) && v > top) {
				top = v;
				m->busy_node = n;
				m->busy_port = p;
			}
		}
	}
	if (!m->full)
		m->full = top > 0 ? top : 1;
	return 0;
}

/*
 * A host's link: the CA port (n, p) sends on it, its switch port sends
 * back; the busier direction of those known, NAN for neither.
 */
static double host_shade(const struct map *m, uint32_t n, unsigned int p)
{
	const struct fabric *f = m->src.fab;
	const struct fab_port *fp = fab_port(f, n, p);
	double up = m->shade[f->nodes[n].port0 + p], down = NAN;

	if (fp->peer != FAB_NONE)
		down = m->shade[f->nodes[fp->peer].port0 + fp->peer_port];
	return isnan(up) || down > up ? down : up;
}

/*
 * The load ramp, light to dark (ColorBrewer OrRd): the middle, a balanced
 * all-to-all or one flow a round, a plain orange; an idle link grey, an
 * unknown one dark grey.
 */
static void ramp(double v, double full, char *buf, size_t len)
{
	static const unsigned char stop[5][3] = {
		{ 0xfd, 0xd4, 0x9e }, { 0xfd, 0xbb, 0x84 },
		{ 0xfc, 0x8d, 0x59 }, { 0xe3, 0x4a, 0x33 },
		{ 0xb3, 0x00, 0x00 },
	};
	double x;
	unsigned int i, c[3], k;

	if (isnan(v)) {
		snprintf(buf, len, "#707070");
		return;
	}
	if (v <= 0) {
		snprintf(buf, len, "#d0d0d0");
		return;
	}
	x = v / full > 1 ? 4 : 4 * v / full;
	i = x >= 4 ? 3 : (unsigned int)x;
	x -= i;
	for (k = 0; k < 3; k++)
		c[k] = (unsigned int)lround(stop[i][k] +
					    (stop[i + 1][k] - stop[i][k]) * x);
	snprintf(buf, len, "#%02x%02x%02x", c[0], c[1], c[2]);
}

static void job_color(uint32_t j, char *buf, size_t len)
{
	if (j == RT_JOB_NONE)
		snprintf(buf, len, "#e8e8e8");
	else
		chart_color(j, buf, len);
}

static const char *name(const struct map *m, uint32_t n)
{
	const char *d = m->src.fab->nodes[n].desc;

	return d && *d ? d : "?";
}

static void load_text(FILE *out, const struct map *m, double v)
{
	if (isnan(v))
		fputs("not known", out);
	else if (!strcmp(m->unit, "of line rate"))
		fprintf(out, "%.1f %% of line rate", 100 * v);
	else
		fprintf(out, "%.4g %s", v, m->unit);
}

/* The load of the link leaving node n by port p, with its shade. */
static void link_text(FILE *out, const struct map *m, uint32_t n,
		      unsigned int p)
{
	size_t gp = m->src.fab->nodes[n].port0 + p;

	load_text(out, m, m->load[gp]);
	if (m->scale && !isnan(m->shade[gp]))
		fprintf(out, ", %.2f %s", m->shade[gp], m->scale);
}

/* A box's switches as "first" or "first .. last (n)". */
static void box_names(FILE *out, const struct map *m,
		      const struct lay_box *b, size_t max)
{
	chart_xml_clip(out, name(m, m->l.sw[b->first]), max);
	if (b->nsw < 2)
		return;
	fputs(" .. ", out);
	chart_xml_clip(out, name(m, m->l.sw[b->first + b->nsw - 1]), max);
	fprintf(out, " (%u switches)", b->nsw);
}

static void dir_title(FILE *out, const struct map *m, uint32_t e, int k)
{
	const struct lay_edge *ed = &m->l.edge[e];
	const struct dir *d = &m->dirs[2 * e + k];

	box_names(out, m, &m->l.box[k ? ed->b : ed->a], 64);
	fputs(" → ", out);
	box_names(out, m, &m->l.box[k ? ed->a : ed->b], 64);
	fputs(": ", out);
	if (d->n > 1)
		fputs("busiest ", out);
	if (d->known)
		link_text(out, m, d->node, d->port);
	else
		load_text(out, m, NAN);
	if (d->n > 1 && d->known) {
		fputs("; mean ", out);
		if (m->scale)
			fprintf(out, "%.2f %s", d->sum / d->known, m->scale);
		else
			load_text(out, m, d->sum / d->known);
		fprintf(out, " over %u links", d->known);
	}
}

/* One direction of edge e (k: 0 a to b, 1 b to a), drawn beside the other. */
static void draw_dir(FILE *out, const struct map *m, uint32_t e, int k)
{
	const struct lay_edge *ed = &m->l.edge[e];
	const struct dir *d = &m->dirs[2 * e + k];
	double dx = ed->x2 - ed->x1, dy = ed->y2 - ed->y1;
	double len = hypot(dx, dy), w, ox = 0, oy = 0;
	char col[24];

	ramp(d->known ? d->max : NAN, m->full, col, sizeof(col));
	w = 1.2 + 0.6 * log2(d->n ? d->n : 1);
	/* many edges: thin, or they hide each other */
	w = fmin(w, m->l.nedge > 200 ? 1.5 : 3.5);
	if (len > 0) {
		/* each direction on its own side of the cable */
		ox = (k ? 1 : -1) * -dy / len * (w / 2 + 0.3);
		oy = (k ? 1 : -1) * dx / len * (w / 2 + 0.3);
	}
	fprintf(out, "<g class=\"link\" data-load=\"%.6g\" data-links=\"%u\">",
		d->known ? d->max : -1.0, d->n);
	if (ed->path == LAY_STUB) {
		double x = k ? ed->x2 : ed->x1, y = k ? ed->y2 : ed->y1;
		double sx = k ? -ed->cx : ed->cx, sy = k ? -ed->cy : ed->cy;

		fprintf(out, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"%s\" stroke-width=\"%.2f\"/>",
			x, y, x + sx, y + sy, col, w + 1);
	} else if (ed->path == LAY_ARC) {
		fprintf(out, "<path d=\"M%.1f %.1fQ%.1f %.1f %.1f %.1f\" fill=\"none\" stroke=\"%s\" stroke-width=\"%.2f\"/>",
			ed->x1 + ox, ed->y1 + oy, ed->cx + ox, ed->cy + oy,
			ed->x2 + ox, ed->y2 + oy, col, w);
	} else {
		fprintf(out, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"%s\" stroke-width=\"%.2f\"/>",
			ed->x1 + ox, ed->y1 + oy, ed->x2 + ox, ed->y2 + oy, col,
			w);
	}
	fputs("<title>", out);
	dir_title(out, m, e, k);
	fputs("</title></g>\n", out);
}

/* The busiest load inside box b (cables between its own switches). */
static double inside(const struct map *m, uint32_t b)
{
	double v = NAN;
	uint32_t e;
	int k;

	for (e = 0; e < m->l.nedge; e++)
		for (k = 0; k < 2 && m->l.edge[e].a == b &&
			    m->l.edge[e].path == LAY_INSIDE; k++)
			if (m->dirs[2 * e + k].known &&
			    (isnan(v) || m->dirs[2 * e + k].max > v))
				v = m->dirs[2 * e + k].max;
	return v;
}

/*
 * The missing cables: a dashed red line from the box lacking them to the
 * box the tree's shape expects at their other end, or a stub up from it.
 */
static void draw_gaps(FILE *out, const struct map *m)
{
	const struct lay_box *a, *b;
	double x1, y1, x2, y2;
	uint32_t i;

	for (i = 0; i < m->ngap; i++) {
		a = &m->l.box[m->gap[i].a];
		b = m->gap[i].b == LAY_NONE ? NULL : &m->l.box[m->gap[i].b];
		x1 = a->x + a->w / 2;
		y1 = b && b->y > a->y ? a->y + a->h : a->y;
		x2 = b ? b->x + b->w / 2 : x1;
		y2 = !b ? y1 - 24 : b->y > a->y ? b->y : b->y + b->h;
		fprintf(out, "<g class=\"gap\" data-cables=\"%u\"><line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"" MISSING "\" stroke-width=\"%.1f\" stroke-dasharray=\"4 2\"/><title>",
			m->gap[i].n, x1, y1, x2, y2,
			m->gap[i].n > 1 ? 2.5 : 1.5);
		box_names(out, m, a, 64);
		fputs(" → ", out);
		if (b)
			box_names(out, m, b, 64);
		else
			fputs("a switch not in the fabric", out);
		fprintf(out, ": %u cable%s missing (the tree's shape has them)</title></g>\n",
			m->gap[i].n, m->gap[i].n == 1 ? "" : "s");
	}
}

static void draw_hosts(FILE *out, const struct map *m, uint32_t b,
		       const uint32_t *hosts, size_t nh)
{
	const struct lay_box *bx = &m->l.box[b];
	const struct fabric *f = m->src.fab;
	char col[24];
	size_t i;

	for (i = 0; i < nh; i++) {
		uint32_t n = hosts[2 * i], j = rt_job_of(
			m->src.have_jobs ? &m->src.jobs : NULL, n);
		unsigned int p = hosts[2 * i + 1];
		const struct fab_port *fp = fab_port(f, n, p);
		double v = host_shade(m, n, p);

		if (m->src.have_jobs)
			job_color(j, col, sizeof(col));
		else if (m->host_loads)
			ramp(v, m->full, col, sizeof(col));
		else
			snprintf(col, sizeof(col), "#b0b0b0");
		fprintf(out, "<rect class=\"host\" x=\"%.2f\" y=\"%.2f\" width=\"%.2f\" height=\"%.2f\" fill=\"%s\" stroke=\"#ffffff\" stroke-width=\"0.3\"",
			bx->hx + (i % bx->cols) * bx->cell,
			bx->hy + (i / bx->cols) * bx->cell, bx->cell, bx->cell,
			col);
		if (j != RT_JOB_NONE) {
			fputs(" data-job=\"", out);
			chart_xml_text(out, m->src.jobs.job[j].id, SIZE_MAX);
			fputs("\"", out);
		}
		fputs("><title>", out);
		chart_xml_clip(out, name(m, n), 64);
		fprintf(out, " port %u, LID %u", p, fp->lid);
		if (j != RT_JOB_NONE) {
			fputs(", job ", out);
			chart_xml_clip(out, m->src.jobs.job[j].id, 64);
		}
		if (m->host_loads) {
			fputs(", sends ", out);
			link_text(out, m, n, p);
			fputs(", receives ", out);
			link_text(out, m, fp->peer, fp->peer_port);
		}
		fputs("</title></rect>\n", out);
	}
}

/* A box's hosts per job (the last entry: in none); the caller frees. */
static uint32_t *job_counts(const struct map *m, const uint32_t *hosts,
			    size_t nh)
{
	uint32_t nj = m->src.jobs.njobs, *c = calloc(nj + 2, sizeof(*c)), j;
	size_t i;

	for (i = 0; c && i < nh; i++) {
		j = rt_job_of(&m->src.jobs, hosts[2 * i]);
		c[j == RT_JOB_NONE ? nj : j]++;
	}
	return c;
}

/* Folded: the jobs' shares of the bar, in their colours. */
static int fold_jobs(FILE *out, const struct map *m, const uint32_t *hosts,
		     size_t nh, double x, double y, double w, double h)
{
	uint32_t nj = m->src.jobs.njobs, *c = job_counts(m, hosts, nh), j;
	char col[24];

	if (!c)
		return -ENOMEM;
	for (j = 0; j <= nj; j++) {
		if (!c[j])
			continue;
		job_color(j < nj ? j : RT_JOB_NONE, col, sizeof(col));
		fprintf(out, "<rect x=\"%.2f\" y=\"%.2f\" width=\"%.2f\" height=\"%.2f\" fill=\"%s\"",
			x, y, w * c[j] / nh, h, col);
		if (j < nj) {
			fputs(" data-job=\"", out);
			chart_xml_text(out, m->src.jobs.job[j].id, SIZE_MAX);
			fputs("\"", out);
		}
		fprintf(out, " data-hosts=\"%u\"><title>", c[j]);
		if (j < nj)
			chart_xml_clip(out, m->src.jobs.job[j].id, 64);
		else
			fputs("no job", out);
		fprintf(out, ": %u of the %zu hosts</title></rect>", c[j], nh);
		x += w * c[j] / nh;
	}
	free(c);
	return 0;
}

/*
 * A box's hosts folded into one bar where their cells were: the jobs'
 * shares, or the busiest host link's load, and the count in the font of
 * the switch names.
 */
static int draw_folded(FILE *out, const struct map *m, uint32_t b,
		       const uint32_t *hosts, size_t nh)
{
	const struct lay_box *bx = &m->l.box[b];
	double w, h, v = NAN, x, sum = 0;
	uint32_t known = 0;
	char col[24], text[64];
	size_t i;
	int ret = 0;

	if (!nh || !bx->cols)
		return 0;	/* no hosts, no cells laid out */
	w = (nh < bx->cols ? nh : bx->cols) * bx->cell;
	h = (double)((nh + bx->cols - 1) / bx->cols) * bx->cell;
	for (i = 0; i < nh; i++) {
		x = host_shade(m, hosts[2 * i], hosts[2 * i + 1]);
		if (isnan(x))
			continue;
		known++;
		sum += x;
		if (isnan(v) || x > v)
			v = x;
	}
	if (h > LAY_FONT + 5)
		h = LAY_FONT + 5;
	fprintf(out, "<g class=\"hosts\" data-hosts=\"%zu\">", nh);
	if (m->src.have_jobs) {
		ret = fold_jobs(out, m, hosts, nh, bx->hx, bx->hy, w, h);
	} else {
		if (m->host_loads)
			ramp(v, m->full, col, sizeof(col));
		else
			snprintf(col, sizeof(col), "#b0b0b0");
		fprintf(out, "<rect x=\"%.2f\" y=\"%.2f\" width=\"%.2f\" height=\"%.2f\" fill=\"%s\"/>",
			bx->hx, bx->hy, w, h, col);
	}
	snprintf(text, sizeof(text), "%zu hosts", nh);
	if (m->host_loads && known && !m->src.have_jobs &&
	    (strlen(text) + 16) * LAY_CHAR_W < w)
		snprintf(text + strlen(text), sizeof(text) - strlen(text),
			 ", busiest %.3g", v);
	if (strlen(text) * LAY_CHAR_W < w && h >= LAY_FONT + 1)
		fprintf(out, "<text class=\"halo\" x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">%s</text>",
			bx->hx + w / 2, bx->hy + h / 2 + LAY_FONT / 3, text);
	fprintf(out, "<title>%zu hosts", nh);
	if (m->host_loads && known) {
		fputs("; busiest host link ", out);
		load_text(out, m, v);
		fputs(", mean ", out);
		load_text(out, m, sum / known);
	}
	fputs("</title></g>\n", out);
	return ret;
}

/*
 * The CA ports cabled to each box's switches, as (node, port) pairs:
 * box b's from (*off)[b]; both arrays the caller's to free.
 */
static int hosts_by_box(const struct map *m, uint32_t **off, uint32_t **hp)
{
	const struct fabric *f = m->src.fab;
	uint32_t *o = calloc(m->l.nbox + 2, sizeof(*o)), *h, n, b;
	unsigned int p;

	h = malloc((2 * f->nports + 1) * sizeof(*h));
	if (!o || !h) {
		free(o);
		free(h);
		return -ENOMEM;
	}
	for (n = 0; n < f->nnodes; n++)
		for (p = 1; !fab_is_sw(f, n) && p <= f->nodes[n].nports; p++) {
			uint32_t s = fab_port(f, n, p)->peer;

			if (s != FAB_NONE && fab_is_sw(f, s))
				o[m->l.box_of[s] + 2]++;
		}
	for (b = 0; b < m->l.nbox; b++)
		o[b + 2] += o[b + 1];
	for (n = 0; n < f->nnodes; n++)
		for (p = 1; !fab_is_sw(f, n) && p <= f->nodes[n].nports; p++) {
			uint32_t s = fab_port(f, n, p)->peer;

			if (s == FAB_NONE || !fab_is_sw(f, s))
				continue;
			b = m->l.box_of[s];
			h[2 * o[b + 1]] = n;
			h[2 * o[b + 1]++ + 1] = p;
		}
	*off = o;
	*hp = h;
	return 0;
}

/*
 * A group's label: what its first and last names differ in, after their
 * common start, "leaf-p3-{0..7} (8)"; cut to the box by its caller.
 */
static void group_label(FILE *out, const struct map *m,
			const struct lay_box *b)
{
	const char *a = name(m, m->l.sw[b->first]);
	const char *z = name(m, m->l.sw[b->first + b->nsw - 1]);
	size_t pre = 0;

	while (a[pre] && a[pre] == z[pre])
		pre++;
	while (pre && ((unsigned char)a[pre] & 0xc0) == 0x80)
		pre--;		/* not inside a UTF-8 character */
	/* nor inside a number: leaf-{10..11}, not leaf-1{0..1} */
	while (pre && a[pre - 1] >= '0' && a[pre - 1] <= '9')
		pre--;
	chart_xml_text(out, a, pre);
	fputs("{", out);
	chart_xml_text(out, a + pre, 12);
	fputs("..", out);
	chart_xml_text(out, z + pre, 12);
	fprintf(out, "} (%u)", b->nsw);
}

static int draw_box(FILE *out, const struct map *m, uint32_t b)
{
	const struct lay_box *bx = &m->l.box[b];
	double v = inside(m, b);
	char col[24], *label;
	uint32_t sw = m->l.sw[bx->first];
	size_t n;
	FILE *lb;

	if (isnan(v))
		snprintf(col, sizeof(col), "#505050");
	else
		ramp(v, m->full, col, sizeof(col));
	fprintf(out, "<g class=\"switch\" data-switches=\"%u\" data-missing=\"%u\"><rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" rx=\"2\" fill=\"#f7f7f7\" stroke=\"%s\" stroke-width=\"%s\"%s/>",
		bx->nsw, m->missing[b], bx->x, bx->y, bx->w, bx->h,
		m->missing[b] ? MISSING : col,
		isnan(v) && !m->missing[b] ? "0.8" : "2",
		m->missing[b] ? " stroke-dasharray=\"4 2\"" : "");
	if (m->missing[b])
		fprintf(out, "<text class=\"halo\" x=\"%.1f\" y=\"%.1f\" text-anchor=\"end\" fill=\"" MISSING "\">%u cable%s missing</text>",
			bx->x + bx->w, bx->y - 2, m->missing[b],
			m->missing[b] == 1 ? "" : "s");
	if (!(lb = open_memstream(&label, &n)))
		return -errno;
	if (bx->nsw > 1)
		group_label(lb, m, bx);
	else
		chart_xml_clip(lb, name(m, sw), (size_t)((bx->w - 6) / LAY_CHAR_W));
	if (fclose(lb))
		return -ENOMEM;
	fprintf(out, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\"",
		bx->x + bx->w / 2, bx->y + 10);
	/* a long group label in a smaller font, to fit its box */
	if (n * LAY_CHAR_W > bx->w - 4)
		fprintf(out, " font-size=\"%.2f\"",
			LAY_FONT * (bx->w - 4) / (n * LAY_CHAR_W));
	fprintf(out, ">%s", label);
	free(label);
	fputs("</text><title>", out);
	box_names(out, m, bx, 64);
	if (bx->nsw == 1)
		fprintf(out, ", GUID 0x%016" PRIx64 ", LID %u",
			m->src.fab->nodes[sw].guid,
			fab_port(m->src.fab, sw, 0)->lid);
	fprintf(out, ", %u hosts", bx->nhosts);
	if (m->missing[b])
		fprintf(out, "; %u up-link%s fewer than its level's best-cabled switch",
			m->missing[b], m->missing[b] == 1 ? "" : "s");
	if (!isnan(v)) {
		fputs("; cables inside: busiest ", out);
		load_text(out, m, v);
	}
	fputs("</title></g>\n", out);
	return 0;
}

/*
 * What the shades mean, under the ramp: where balanced sits on it, grey;
 * the missing cables' mark on a line of its own.
 */
static void legend_line(FILE *out, const struct map *m)
{
	char col[24];

	ramp(m->full / 2, m->full, col, sizeof(col));
	fprintf(out, "<text x=\"10\" y=\"64\"><tspan fill=\"%s\">■</tspan> ",
		col);
	if (m->scale)
		fputs("1 = balanced: the mean load of links of its kind (same levels or dimension, same way)",
		      out);
	else
		load_text(out, m, m->full / 2);
	fputs("; grey: idle</text>", out);
	if (m->nmissing)
		fprintf(out, "<text x=\"10\" y=\"78\"><tspan fill=\"" MISSING "\">dashed red: %u cable%s missing</tspan> (fewer up-links than the level's best; lines to where the tree has them)</text>",
			m->nmissing, m->nmissing == 1 ? "" : "s");
}

/* Title lines, the load ramp and the jobs' colours. */
static void draw_head(FILE *out, const struct map *m, double width)
{
	const struct fabric *f = m->src.fab;
	char col[24];
	unsigned int i, nj = m->src.have_jobs ? m->src.jobs.njobs : 0;
	double x;

	fputs("<text class=\"title\" x=\"10\" y=\"18\">", out);
	/* a file's name, not where it was: often a scratch directory */
	chart_xml_clip(out, strrchr(m->src.name, '/') && m->src.name[1] ?
		       strrchr(m->src.name, '/') + 1 : m->src.name, 80);
	fprintf(out, ": %s, %zu switches, %zu CAs%s</text>\n", m->l.what,
		f->nsw, f->nca, m->l.grouped ? " (switches grouped)" : "");
	fprintf(out, "<text x=\"10\" y=\"34\">load: %s", m->unit);
	if (m->busy_node != FAB_NONE) {
		uint32_t peer = fab_port(f, m->busy_node, m->busy_port)->peer;

		fputs("; busiest link ", out);
		chart_xml_clip(out, name(m, m->busy_node), 40);
		fprintf(out, " port %u → ", m->busy_port);
		chart_xml_clip(out, peer == FAB_NONE ? "?" : name(m, peer), 40);
		fputs(": ", out);
		link_text(out, m, m->busy_node, m->busy_port);
	}
	fputs("</text>\n<g class=\"legend\">", out);
	for (i = 0; i <= 40; i++) {
		ramp(i ? m->full * i / 40 : 0, m->full, col, sizeof(col));
		fprintf(out, "<rect x=\"%.1f\" y=\"42\" width=\"3\" height=\"8\" fill=\"%s\"/>",
			10 + 3.0 * i, col);
	}
	fputs("<text x=\"136\" y=\"50\">0 .. ", out);
	if (m->scale)
		fprintf(out, "%g %s", m->full, m->scale);
	else
		load_text(out, m, m->full);
	fputs("</text>", out);
	legend_line(out, m);
	x = 330;
	for (i = 0; i < nj && x + 20 + 6.0 * strlen(m->src.jobs.job[i].id) <
			       width - 60; i++) {
		job_color(i, col, sizeof(col));
		fprintf(out, "<rect x=\"%.1f\" y=\"42\" width=\"8\" height=\"8\" fill=\"%s\"/><text x=\"%.1f\" y=\"50\">",
			x, col, x + 11);
		chart_xml_clip(out, m->src.jobs.job[i].id, 16);
		fputs("</text>", out);
		x += 20 + 6.0 * (strlen(m->src.jobs.job[i].id) < 16 ?
				 strlen(m->src.jobs.job[i].id) : 17);
	}
	if (i < nj)
		fprintf(out, "<text x=\"%.1f\" y=\"50\">+%u jobs</text>", x,
			nj - i);
	fputs("</g>\n", out);
}

static int draw(FILE *out, const struct map *m)
{
	const struct lay *l = &m->l;
	double top = HEAD + (m->nmissing ? HEAD_MISSING : 0);
	double w = l->width < 520 ? 520 : l->width, h = l->height + top;
	uint32_t *off, *hp, b, e, i;
	int ret = hosts_by_box(m, &off, &hp);

	if (ret)
		return ret;
	chart_svg_begin(out, w, h, LAY_FONT,
			".title{font-size:12px;font-weight:bold}.legend text,.row{font-size:9px}"
			".halo{stroke:#ffffff;stroke-width:2.5px;paint-order:stroke}");
	draw_head(out, m, w);
	fprintf(out, "<g transform=\"translate(0 %.0f)\">\n<g class=\"links\">\n",
		top);
	for (e = 0; e < l->nedge; e++)
		for (i = 0; i < 2 && l->edge[e].path != LAY_INSIDE; i++)
			draw_dir(out, m, e, i);
	draw_gaps(out, m);
	fputs("</g>\n<g class=\"switches\">\n", out);
	for (b = 0; b < l->nbox && !ret; b++) {
		ret = draw_box(out, m, b);
		if (ret)
			break;
		if (m->fold)
			ret = draw_folded(out, m, b, hp + 2 * off[b],
					  off[b + 1] - off[b]);
		else
			draw_hosts(out, m, b, hp + 2 * off[b],
				   off[b + 1] - off[b]);
	}
	fputs("</g>\n", out);
	for (i = 0; i < l->nlabel; i++) {
		fprintf(out, "<text class=\"row\" x=\"%.1f\" y=\"%.1f\">",
			l->label[i].x, l->label[i].y);
		chart_xml_clip(out, l->label[i].text, sizeof(l->label[i].text));
		fputs("</text>\n", out);
	}
	fputs("</g>\n</svg>\n", out);
	free(off);
	free(hp);
	return ret;
}

static int draw_map(FILE *out, void *m)
{
	return draw(out, m);
}

static int summary(const struct map *m)
{
	const struct pr_opts *o = m->o;
	json_object *j;
	int ret = 0;

	if (!o->json) {
		fprintf(stderr, "ibpoolroute: wrote %s: %s, %u boxes, %u cable groups, load %s\n",
			strcmp(o->output, "-") ? o->output : "the map",
			m->l.what, m->l.nbox, m->l.nedge,
			load_names[o->load]);
		return 0;
	}
	j = json_object_new_object();
	if (!j)
		return -ENOMEM;
	json_object_object_add(j, "output", json_object_new_string(o->output));
	json_object_object_add(j, "source", json_object_new_string(m->src.name));
	json_object_object_add(j, "layout", json_object_new_string(m->l.what));
	json_object_object_add(j, "switches",
			       json_object_new_uint64(m->src.fab->nsw));
	json_object_object_add(j, "cas",
			       json_object_new_uint64(m->src.fab->nca));
	json_object_object_add(j, "boxes", json_object_new_int64(m->l.nbox));
	json_object_object_add(j, "edges", json_object_new_int64(m->l.nedge));
	json_object_object_add(j, "grouped",
			       json_object_new_boolean(m->l.grouped));
	json_object_object_add(j, "missing_cables",
			       json_object_new_int64(m->nmissing));
	json_object_object_add(j, "hosts_folded",
			       json_object_new_boolean(m->fold));
	json_object_object_add(j, "load", json_object_new_string(
				       load_names[o->load]));
	json_object_object_add(j, "unit", json_object_new_string(m->unit));
	json_object_object_add(j, "full", json_object_new_double(m->full));
	if (printf("%s\n", json_object_to_json_string_ext(
			   j, JSON_C_TO_STRING_PLAIN)) < 0)
		ret = -EIO;
	json_object_put(j);
	return ret;
}

static void map_release(struct map *m)
{
	if (m->shade != m->load)
		free(m->shade);
	free(m->load);
	free(m->dirs);
	free(m->missing);
	free(m->gap);
	lay_release(&m->l);
	pr_source_close(&m->src);
}

/* CA ports cabled to switches: the hosts drawn. */
static uint64_t hosts(const struct lay *l)
{
	uint64_t n = 0;
	uint32_t b;

	for (b = 0; b < l->nbox; b++)
		n += l->box[b].nhosts;
	return n;
}

int pr_map(const struct pr_opts *o, char *err, size_t len)
{
	struct map m = { .o = o };
	int ret;

	if ((ret = pr_source_open(&m.src, o, !o->jobs_unrouted, err, len)))
		goto out;
	if ((ret = lay_build(m.src.fab, NULL, &m.l))) {
		snprintf(err, len, "layout: %s", strerror(-ret));
		goto out;
	}
	m.load = nan_array(m.src.fab->nports);
	m.shade = o->load == PR_LOAD_A2A ? nan_array(m.src.fab->nports) :
					   m.load;
	if (!m.load || !m.shade) {
		ret = -ENOMEM;
		snprintf(err, len, "%s", strerror(ENOMEM));
		goto out;
	}
	if (o->load == PR_LOAD_A2A)
		ret = load_a2a(&m, err, len);
	else if (o->load == PR_LOAD_JOBS)
		ret = load_jobs(&m, err, len);
	else
		ret = load_counters(&m, err, len);
	if (!ret && (ret = sum_edges(&m)))
		snprintf(err, len, "%s", strerror(-ret));
	if (!ret && (ret = find_missing(&m)))
		snprintf(err, len, "%s", strerror(-ret));
	m.fold = hosts(&m.l) > o->fold;
	if (!ret)
		ret = chart_write_file(o->output, draw_map, &m, err, len);
	if (!ret)
		ret = summary(&m);
out:
	map_release(&m);
	return ret ? PR_ERR : PR_OK;
}
