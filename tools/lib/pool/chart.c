// SPDX-License-Identifier: MIT
/*
 * SVG line and CDF charts for the replay, and the SVG pieces ibpoolroute
 * map draws with too: escaped text, the series palette, a file written
 * whole.
 */
#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "chart.h"
#include "sm/durable.h"
#include "sm/proto.h"

#define NPALETTE (sizeof(palette) / sizeof(palette[0]))
#define LEGEND_W 190.0		/* right of the plot */
#define LABEL_MAX 20		/* characters of a legend label */

/*
 * Blues, greens, purples and greys, apart from map's load ramp (oranges
 * and reds); past them, golden-angle hues.
 */
static const char *const palette[] = {
	"#1f77b4", "#2ca02c", "#9467bd", "#17becf", "#e377c2", "#bcbd22",
	"#393b79", "#637939", "#7b4173", "#6baed6", "#74c476", "#9e9ac8",
	"#636363", "#de9ed6", "#08519c", "#006d2c", "#54278f", "#b0b0b0",
};

/* The plot's frame and how data maps into it. */
struct frame {
	double x0, x1, y0, y1;	/* px: left, right, top, bottom */
	double lo, hi;		/* x data range (log10 of it with logx) */
	double ylo, yhi;
	bool logx;
};

/* A point in px and its place in the series. */
struct pt {
	double x, y;
	size_t seq;
};

/*
 * Points of one polyline, thinned to what a half-pixel column can show:
 * its first, lowest, highest and last points, in their order.
 */
struct thin {
	FILE *out;
	bool open;		/* a path has begun */
	long col;		/* the column being gathered */
	size_t seq, nin;	/* points seen, points in the column */
	struct pt first, last, min, max;
};

void chart_color(size_t i, char *buf, size_t len)
{
	if (i < NPALETTE)
		snprintf(buf, len, "%s", palette[i]);
	else
		snprintf(buf, len, "hsl(%u,65%%,45%%)",
			 (unsigned int)(i * 137.508) % 360);
}

size_t chart_xml_text(FILE *out, const char *s, size_t max)
{
	const unsigned char *u = (const unsigned char *)s;
	size_t i = 0, k, n;

	for (k = 0; u[i] && k < max; k++, i += n) {
		n = sm_utf8_len(u + i);
		switch (n ? u[i] : 0) {
		case '<': fputs("&lt;", out); break;
		case '>': fputs("&gt;", out); break;
		case '&': fputs("&amp;", out); break;
		case '"': fputs("&quot;", out); break;
		case '\'': fputs("&apos;", out); break;
		default:
			if (!n || u[i] < 0x20) {
				fputc('?', out);
				n = 1;
			} else {
				fwrite(u + i, 1, n, out);
			}
		}
	}
	return i;
}

void chart_xml_clip(FILE *out, const char *s, size_t max)
{
	if (s[chart_xml_text(out, s, max)])
		fputs("…", out);
}

void chart_svg_begin(FILE *out, double w, double h, double font,
		     const char *style)
{
	fprintf(out, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
		"<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%.0f\" height=\"%.0f\" viewBox=\"0 0 %.0f %.0f\" font-family=\"DejaVu Sans, sans-serif\" font-size=\"%g\">\n",
		w, h, w, h, font);
	if (style)
		fprintf(out, "<style>%s</style>\n", style);
	fputs("<rect width=\"100%\" height=\"100%\" fill=\"#ffffff\"/>\n", out);
}

/* The mode a new file gets from fopen(): 0666 less the umask. */
static mode_t new_file_mode(void)
{
	mode_t m = umask(0);

	umask(m);
	return 0666 & ~m;
}

/*
 * stdout for "-"; else drawn in memory and put in place whole
 * (sm_replace_path): a symlink, FIFO or device there is refused, never
 * written through.
 */
int chart_write_file(const char *path, int (*write)(FILE *out, void *ctx),
		     void *ctx, char *err, size_t errlen)
{
	const char *step = "write";
	char *buf = NULL;
	size_t n = 0;
	FILE *out = strcmp(path, "-") ? open_memstream(&buf, &n) : stdout;
	int ret;

	if (!out) {
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		return -ENOMEM;
	}
	ret = write(out, ctx);
	if (!ret && (ferror(out) || fflush(out)))
		ret = -EIO;
	if (out != stdout && fclose(out) && !ret)
		ret = -ENOMEM;
	if (!ret && out != stdout)
		ret = sm_replace_path(path, buf, n, new_file_mode(), &step);
	free(buf);
	if (ret)
		snprintf(err, errlen, "%s: %s: %s", path, step, strerror(-ret));
	return ret;
}

/* A tick label: 0.5, 20, 1500, 25k, 1.2M. */
static void num_label(FILE *out, double v)
{
	double a = fabs(v);

	if (a >= 1e9)
		fprintf(out, "%gG", v / 1e9);
	else if (a >= 1e6)
		fprintf(out, "%gM", v / 1e6);
	else if (a >= 1e4)
		fprintf(out, "%gk", v / 1e3);
	else
		fprintf(out, "%g", fabs(v) < 1e-12 ? 0 : v);
}

/* The tick step for about n ticks over [lo, hi]: 1, 2 or 5 x 10^k. */
static double nice_step(double lo, double hi, int n)
{
	double raw = (hi - lo) / n, p = pow(10, floor(log10(raw))), f = raw / p;

	return (f < 1.5 ? 1 : f < 3.5 ? 2 : f < 7.5 ? 5 : 10) * p;
}

static double px_x(const struct frame *fr, double x)
{
	double v = fr->logx ? log10(x) : x;

	return fr->x0 + (v - fr->lo) / (fr->hi - fr->lo) * (fr->x1 - fr->x0);
}

static double px_y(const struct frame *fr, double y)
{
	return fr->y1 - (y - fr->ylo) / (fr->yhi - fr->ylo) * (fr->y1 - fr->y0);
}

static bool usable(const struct frame *fr, double x, double y)
{
	return !isnan(x) && !isnan(y) && !isinf(x) && !isinf(y) &&
	       (!fr->logx || x > 0);
}

/* Data ranges over the usable points; *any false when there are none. */
static void ranges(const struct chart_series *s, size_t ns, bool logx,
		   bool cdf, double r[4], bool *any)
{
	struct frame fr = { .logx = logx };
	size_t i, k;

	r[0] = r[2] = INFINITY;
	r[1] = r[3] = -INFINITY;
	*any = false;
	for (i = 0; i < ns; i++)
		for (k = 0; k < s[i].n; k++) {
			double x = s[i].x[k], y = cdf ? 0 : s[i].y[k];

			if (!usable(&fr, x, y))
				continue;
			*any = true;
			r[0] = fmin(r[0], x);
			r[1] = fmax(r[1], x);
			r[2] = fmin(r[2], y);
			r[3] = fmax(r[3], y);
		}
}

/* [*lo, *hi] widened to a non-empty range on multiples of a nice step. */
static void nice_range(double *lo, double *hi, int n)
{
	double step;

	if (*hi <= *lo)
		*hi = *lo + 1;
	step = nice_step(*lo, *hi, n);
	*lo = floor(*lo / step) * step;
	*hi = ceil(*hi / step) * step;
}

/* Fit the axes to the data (or o's y range), on tick boundaries. */
static void fit(struct frame *fr, const struct chart_opts *o,
		const double r[4], bool any)
{
	if (fr->logx) {
		fr->lo = any ? floor(log10(r[0])) : 0;
		fr->hi = any ? ceil(log10(r[1])) : 1;
		if (fr->hi <= fr->lo)
			fr->hi = fr->lo + 1;
	} else {
		fr->lo = any ? r[0] : 0;
		fr->hi = any ? r[1] : 1;
		nice_range(&fr->lo, &fr->hi, 6);
	}
	if (o->ymin != 0 || o->ymax != 0) {
		fr->ylo = o->ymin;
		fr->yhi = o->ymax > o->ymin ? o->ymax : o->ymin + 1;
		return;
	}
	fr->ylo = any ? fmin(r[2], 0) : 0;
	fr->yhi = any ? r[3] : 1;
	nice_range(&fr->ylo, &fr->yhi, 5);
}

static void tick_x(FILE *out, const struct frame *fr, double v, double px)
{
	fprintf(out, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#e3e3e3\"/>",
		px, fr->y0, px, fr->y1);
	fprintf(out, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">", px,
		fr->y1 + 15);
	num_label(out, v);
	fputs("</text>\n", out);
}

/* Grid, tick labels and the axes' names. */
static void draw_axes(FILE *out, const struct frame *fr,
		      const struct chart_opts *o)
{
	double v, step;
	int k;

	fputs("<g class=\"axes\" font-size=\"11\" fill=\"#333333\">\n", out);
	if (fr->logx) {
		for (k = (int)fr->lo; k <= (int)fr->hi; k++)
			tick_x(out, fr, pow(10, k), px_x(fr, pow(10, k)));
	} else {
		step = nice_step(fr->lo, fr->hi, 6);
		for (v = fr->lo; v <= fr->hi + step / 2; v += step)
			tick_x(out, fr, v, px_x(fr, v));
	}
	step = nice_step(fr->ylo, fr->yhi, 5);
	for (v = fr->ylo; v <= fr->yhi + step / 2; v += step) {
		fprintf(out, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#e3e3e3\"/><text x=\"%.1f\" y=\"%.1f\" text-anchor=\"end\">",
			fr->x0, px_y(fr, v), fr->x1, px_y(fr, v), fr->x0 - 6,
			px_y(fr, v) + 4);
		num_label(out, v);
		fputs("</text>\n", out);
	}
	fprintf(out, "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"none\" stroke=\"#888888\"/>\n",
		fr->x0, fr->y0, fr->x1 - fr->x0, fr->y1 - fr->y0);
	fprintf(out, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\" font-size=\"12\">",
		(fr->x0 + fr->x1) / 2, fr->y1 + 36);
	chart_xml_clip(out, o->xlabel ? o->xlabel : "", 80);
	fprintf(out, "</text>\n<text transform=\"translate(16 %.1f) rotate(-90)\" text-anchor=\"middle\" font-size=\"12\">",
		(fr->y0 + fr->y1) / 2);
	chart_xml_clip(out, o->ylabel ? o->ylabel : "", 60);
	fputs("</text>\n</g>\n", out);
}

static void legend(FILE *out, const struct frame *fr,
		   const struct chart_series *s, size_t ns)
{
	char col[32];
	double x = fr->x1 + 16, y;
	size_t i;

	fputs("<g class=\"legend\" font-size=\"12\">\n", out);
	for (i = 0; i < ns; i++) {
		y = fr->y0 + 8 + 20.0 * i;
		chart_color(i, col, sizeof(col));
		fprintf(out, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"%s\" stroke-width=\"3\"/><text x=\"%.1f\" y=\"%.1f\">",
			x, y, x + 22, y, col, x + 28, y + 4);
		chart_xml_clip(out, s[i].label ? s[i].label : "?", LABEL_MAX);
		fputs("</text>\n", out);
	}
	fputs("</g>\n", out);
}

static void emit(struct thin *t, const struct pt *p)
{
	fprintf(t->out, "%s%.1f %.1f", t->open ? " L" : "M", p->x, p->y);
	t->open = true;
}

/* The inner point if it is neither end of the column. */
static void emit_inner(struct thin *t, const struct pt *p)
{
	if (p->seq != t->first.seq && p->seq != t->last.seq)
		emit(t, p);
}

static void flush_col(struct thin *t)
{
	bool min_first = t->min.seq < t->max.seq;

	if (!t->nin)
		return;
	emit(t, &t->first);
	emit_inner(t, min_first ? &t->min : &t->max);
	if (t->min.seq != t->max.seq)
		emit_inner(t, min_first ? &t->max : &t->min);
	if (t->last.seq != t->first.seq)
		emit(t, &t->last);
	t->nin = 0;
}

/* Add a point in px; points within half a pixel column are gathered. */
static void add_pt(struct thin *t, double x, double y)
{
	struct pt p = { x, y, t->seq++ };
	long col = lround(floor(x * 2));

	if (t->nin && col != t->col)
		flush_col(t);
	if (!t->nin) {
		t->col = col;
		t->first = t->min = t->max = p;
	}
	if (y < t->min.y)
		t->min = p;
	if (y > t->max.y)
		t->max = p;
	t->last = p;
	t->nin++;
}

/* One series as a path; with step, y holds until the next x. */
static void draw_series(FILE *out, const struct frame *fr,
			const double *x, const double *y, size_t n,
			bool step, size_t idx)
{
	struct thin t = { .out = out };
	double prev = NAN;
	char col[32];
	size_t k;

	chart_color(idx, col, sizeof(col));
	fprintf(out, "<path fill=\"none\" stroke=\"%s\" stroke-width=\"1.8\" stroke-linejoin=\"round\" d=\"",
		col);
	for (k = 0; k < n; k++) {
		double px, py;

		if (!usable(fr, x[k], y[k]))
			continue;
		px = px_x(fr, x[k]);
		py = px_y(fr, y[k]);
		if (step && !isnan(prev))
			add_pt(&t, px, prev);
		add_pt(&t, px, py);
		prev = py;
	}
	flush_col(&t);
	fputs("\"/>\n", out);
}

static double dim(double v, double def)
{
	return v > 0 ? v : def;
}

static void frame_init(struct frame *fr, const struct chart_opts *o,
		       double *w, double *h)
{
	*w = dim(o->width, 720);
	*h = dim(o->height, 420);
	fr->x0 = 70;
	fr->x1 = *w - LEGEND_W;
	fr->y0 = 40;
	fr->y1 = *h - 50;
	fr->logx = o->flags & CHART_LOGX;
}

static void head(FILE *out, const struct chart_opts *o, double w, double h)
{
	chart_svg_begin(out, w, h, 11, NULL);
	fputs("<text x=\"70\" y=\"24\" font-size=\"15\" font-weight=\"bold\">",
	      out);
	chart_xml_clip(out, o->title ? o->title : "", 90);
	fputs("</text>\n", out);
}

static int check(const struct chart_series *s, size_t ns, bool cdf)
{
	size_t i;

	if (!ns)
		return -EINVAL;
	for (i = 0; i < ns; i++)
		if (s[i].n && (!s[i].x || (!cdf && !s[i].y)))
			return -EINVAL;
	return 0;
}

int chart_line(FILE *out, const struct chart_opts *o,
	       const struct chart_series *s, size_t ns)
{
	struct frame fr;
	double r[4], w, h;
	bool any;
	size_t i;

	if (check(s, ns, false))
		return -EINVAL;
	frame_init(&fr, o, &w, &h);
	ranges(s, ns, fr.logx, false, r, &any);
	fit(&fr, o, r, any);
	head(out, o, w, h);
	draw_axes(out, &fr, o);
	fputs("<g class=\"series\">\n", out);
	for (i = 0; i < ns; i++)
		draw_series(out, &fr, s[i].x, s[i].y, s[i].n,
			    o->flags & CHART_STEP, i);
	fputs("</g>\n", out);
	legend(out, &fr, s, ns);
	fputs("</svg>\n", out);
	return ferror(out) ? -EIO : 0;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/*
 * s's samples sorted after a first point at 0 %: point k + 1 is sample
 * k at 100 (k + 1) / n %; *np points.
 */
static int cdf_points(const struct chart_series *s, double **xs, double **ys,
		      size_t *np)
{
	size_t k;

	*np = s->n ? s->n + 1 : 0;
	*xs = malloc((s->n + 1) * sizeof(**xs));
	*ys = malloc((s->n + 1) * sizeof(**ys));
	if (!*xs || !*ys)
		return -ENOMEM;
	if (!s->n)
		return 0;
	memcpy(*xs + 1, s->x, s->n * sizeof(**xs));
	qsort(*xs + 1, s->n, sizeof(**xs), cmp_double);
	(*xs)[0] = (*xs)[1];
	(*ys)[0] = 0;
	for (k = 0; k < s->n; k++)
		(*ys)[k + 1] = 100.0 * (k + 1) / s->n;
	return 0;
}

int chart_cdf(FILE *out, const struct chart_opts *o,
	      const struct chart_series *s, size_t ns)
{
	struct chart_opts co = *o;
	struct frame fr;
	double r[4], w, h, *xs = NULL, *ys = NULL;
	bool any;
	size_t i, np;
	int ret = 0;

	if (check(s, ns, true))
		return -EINVAL;
	if (!co.ylabel)
		co.ylabel = "jobs (%)";
	if (co.ymin == 0 && co.ymax == 0)
		co.ymax = 100;
	frame_init(&fr, &co, &w, &h);
	ranges(s, ns, fr.logx, true, r, &any);
	fit(&fr, &co, r, any);
	head(out, &co, w, h);
	draw_axes(out, &fr, &co);
	fputs("<g class=\"series\">\n", out);
	for (i = 0; i < ns && !ret; i++) {
		if (!(ret = cdf_points(&s[i], &xs, &ys, &np)))
			draw_series(out, &fr, xs, ys, np, true, i);
		free(xs);
		free(ys);
	}
	fputs("</g>\n", out);
	legend(out, &fr, s, ns);
	fputs("</svg>\n", out);
	if (ret)
		return ret;
	return ferror(out) ? -EIO : 0;
}
