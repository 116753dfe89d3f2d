/* SPDX-License-Identifier: MIT */
/*
 * SVG charts for the replay (--svg DIR): lines over time and CDFs, one
 * series per policy, with a legend and axes labelled with their units;
 * and the SVG helpers ibpoolroute map shares (escaping, palette, writing
 * a file whole).
 */
#ifndef GPUAWARE_POOL_CHART_H
#define GPUAWARE_POOL_CHART_H

#include <stddef.h>
#include <stdio.h>

/* One series: n points (x[i], y[i]); the caller keeps the arrays. */
struct chart_series {
	const char *label;	/* the legend's text, e.g. the policy */
	const double *x;	/* chart_line: x; chart_cdf: the samples */
	const double *y;	/* chart_line: y; chart_cdf: unused */
	size_t n;
};

#define CHART_LOGX	0x1u	/* log10 x axis; values <= 0 are left out */
#define CHART_STEP	0x2u	/* chart_line: hold y until the next x */

struct chart_opts {
	const char *title;
	const char *xlabel;	/* with its unit: "time (h)" */
	const char *ylabel;	/* with its unit: "allocated GPUs (%)" */
	unsigned int flags;	/* CHART_* */
	double ymin, ymax;	/* y range; both 0: from the data */
	double width, height;	/* px; 0: 720 x 420 */
};

/*
 * Write an SVG line chart of ns series to out.  Points with a NaN x or y
 * are left out.  Returns 0, -EINVAL (no series, n > 0 without arrays) or
 * -EIO.
 */
int chart_line(FILE *out, const struct chart_opts *o,
	       const struct chart_series *s, size_t ns);

/*
 * Write an SVG chart of the empirical CDFs of ns sample sets (s[i].x,
 * s[i].n samples, any order; y is the fraction of samples <= x, in %).
 * ylabel and the y range default to "jobs (%)" and 0..100.  Returns as
 * chart_line(); the samples are not changed.
 */
int chart_cdf(FILE *out, const struct chart_opts *o,
	      const struct chart_series *s, size_t ns);

/*
 * Write path whole: what write(out, ctx) wrote goes to a temporary file
 * beside it, renamed over it when write returned 0 (so a failure leaves
 * an earlier file as it was); "-" is stdout; an existing path that is
 * not a regular file (a symlink, FIFO, device, directory) is refused
 * and never written through (sm_replace_path()).  Returns 0 or the
 * negative errno, with "PATH: step: why" in err.
 */
int chart_write_file(const char *path, int (*write)(FILE *out, void *ctx),
		     void *ctx, char *err, size_t errlen);

/*
 * The start of an SVG picture w x h px: the XML declaration, the svg
 * element (DejaVu Sans at font px), style (NULL: none) as its style
 * sheet, a white background.  The caller closes it with "</svg>\n".
 */
void chart_svg_begin(FILE *out, double w, double h, double font,
		     const char *style);

/* Series colour i: a fixed palette, then golden-angle hues. */
void chart_color(size_t i, char *buf, size_t len);

/*
 * Write at most max characters of UTF-8 text s escaped for XML; bytes
 * that are not UTF-8 or are control characters become '?'.  Returns the
 * bytes of s consumed.
 */
size_t chart_xml_text(FILE *out, const char *s, size_t max);

/* Same, ending in an ellipsis when s has more than max characters. */
void chart_xml_clip(FILE *out, const char *s, size_t max);

#endif
