// SPDX-License-Identifier: MIT
/*
 * SVG charts: known paths for lines, steps and a log-x CDF on the default
 * 720 x 420 frame (plot from x 70 to 530, y 370 up to 40), thinning, the
 * escaping map shares, and files written whole.
 */
#include <dirent.h>
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tu.h"
#include "tools/lib/pool/chart.h"

/* The SVG of a line (cdf false) or CDF chart, malloc'd; *ret its result. */
static char *draw(bool cdf, const struct chart_opts *o,
		  const struct chart_series *s, size_t ns, int *ret)
{
	char *buf = NULL;
	size_t len;
	FILE *out = open_memstream(&buf, &len);

	CU_ASSERT_PTR_NOT_NULL_FATAL(out);
	*ret = cdf ? chart_cdf(out, o, s, ns) : chart_line(out, o, s, ns);
	fclose(out);
	return buf;
}

static size_t count(const char *s, const char *what)
{
	size_t n = 0;

	while ((s = strstr(s, what))) {
		n++;
		s += strlen(what);
	}
	return n;
}

static void test_line(void)
{
	static const double x[] = { 0, 10 }, y[] = { 0, 100 };
	static const double sx[] = { 0, 5, 10 }, sy[] = { 0, 50, 100 };
	struct chart_series s[] = { { "fifo", x, y, 2 },
				    { "a<b & \"c\"", sx, sy, 3 } };
	struct chart_opts o = { .title = "GPU utilisation",
				.xlabel = "time (h)",
				.ylabel = "allocated GPUs (%)",
				.ymin = 0, .ymax = 100 };
	char *svg;
	int ret;

	svg = draw(false, &o, s, 2, &ret);
	CU_ASSERT_EQUAL(ret, 0);
	CU_ASSERT_PTR_NOT_NULL(strstr(svg, "width=\"720\" height=\"420\""));
	CU_ASSERT_PTR_NOT_NULL(strstr(svg, "d=\"M70.0 370.0 L530.0 40.0\""));
	CU_ASSERT_PTR_NOT_NULL(strstr(svg, "d=\"M70.0 370.0 L300.0 205.0 L530.0 40.0\""));
	CU_ASSERT_PTR_NOT_NULL(strstr(svg, ">GPU utilisation</text>"));
	CU_ASSERT_PTR_NOT_NULL(strstr(svg, ">time (h)</text>"));
	CU_ASSERT_PTR_NOT_NULL(strstr(svg, ">allocated GPUs (%)</text>"));
	CU_ASSERT_PTR_NOT_NULL(strstr(svg, ">a&lt;b &amp; &quot;c&quot;</text>"));
	/* ticks at 0, 2, ..., 10 and 0, 20, ..., 100 */
	CU_ASSERT_PTR_NOT_NULL(strstr(svg, ">8</text>"));
	CU_ASSERT_PTR_NOT_NULL(strstr(svg, ">80</text>"));
	CU_ASSERT_PTR_NOT_NULL(strstr(svg, "</svg>\n"));
	free(svg);

	/* as steps, y holds until the next x */
	o.flags = CHART_STEP;
	svg = draw(false, &o, s + 1, 1, &ret);
	CU_ASSERT_EQUAL(ret, 0);
	CU_ASSERT_PTR_NOT_NULL(strstr(svg, "d=\"M70.0 370.0 L300.0 370.0 L300.0 205.0 L530.0 205.0 L530.0 40.0\""));
	free(svg);
}

static void test_cdf(void)
{
	static const double v[] = { 100, 1, 10 };
	static const double w[] = { 0, -1, 10, 100 };
	struct chart_series s[] = { { "easy", v, NULL, 3 },
				    { "fifo", w, NULL, 4 } };
	struct chart_opts o = { .title = "JCT", .xlabel = "JCT (s)",
				.flags = CHART_LOGX };
	char *svg;
	int ret;

	svg = draw(true, &o, s, 1, &ret);
	CU_ASSERT_EQUAL(ret, 0);
	CU_ASSERT_PTR_NOT_NULL(strstr(svg, "d=\"M70.0 370.0 L70.0 260.0 L300.0 260.0 L300.0 150.0 L530.0 150.0 L530.0 40.0\""));
	CU_ASSERT_PTR_NOT_NULL(strstr(svg, ">jobs (%)</text>"));
	CU_ASSERT_PTR_NOT_NULL(strstr(svg, ">100</text>"));
	/* the samples are left as they were */
	CU_ASSERT_EQUAL(v[0], 100);
	free(svg);

	/* log x: samples <= 0 drawn nowhere, the axis from 10 to 100 */
	svg = draw(true, &o, s + 1, 1, &ret);
	CU_ASSERT_EQUAL(ret, 0);
	CU_ASSERT_PTR_NULL(strstr(svg, "nan"));
	CU_ASSERT_PTR_NULL(strstr(svg, "inf"));
	CU_ASSERT_PTR_NOT_NULL(strstr(svg, "d=\"M70.0 122.5 L530.0 122.5 L530.0 40.0\""));
	free(svg);
}

static void test_thin(void)
{
	size_t n = 200000, i;
	double *x = malloc(n * sizeof(*x)), *y = malloc(n * sizeof(*y));
	struct chart_series s = { "many", x, y, n };
	struct chart_opts o = { .title = "t" };
	char *svg;
	int ret;

	CU_ASSERT_PTR_NOT_NULL_FATAL(x);
	CU_ASSERT_PTR_NOT_NULL_FATAL(y);
	for (i = 0; i < n; i++) {
		x[i] = i;
		y[i] = i % 7;
	}
	svg = draw(false, &o, &s, 1, &ret);
	CU_ASSERT_EQUAL(ret, 0);
	/* at most 4 points per half-pixel column of the 460 px plot */
	CU_ASSERT(count(svg, " L") <= 4 * 2 * 461);
	CU_ASSERT(count(svg, " L") >= 2 * 460);
	free(svg);
	free(x);
	free(y);
}

static void test_bad(void)
{
	struct chart_series s = { "x", NULL, NULL, 3 };
	struct chart_opts o = { .title = "t" };
	char *svg;
	int ret;

	svg = draw(false, &o, &s, 0, &ret);
	CU_ASSERT_EQUAL(ret, -EINVAL);
	free(svg);
	svg = draw(false, &o, &s, 1, &ret);
	CU_ASSERT_EQUAL(ret, -EINVAL);
	free(svg);
	svg = draw(true, &o, &s, 1, &ret);
	CU_ASSERT_EQUAL(ret, -EINVAL);
	free(svg);
	/* no samples at all: an empty chart, with its legend */
	s.n = 0;
	svg = draw(true, &o, &s, 1, &ret);
	CU_ASSERT_EQUAL(ret, 0);
	CU_ASSERT_PTR_NOT_NULL(strstr(svg, ">x</text>"));
	free(svg);
}

static void test_text(void)
{
	char *buf = NULL;
	size_t len;
	FILE *out = open_memstream(&buf, &len);

	chart_xml_clip(out, "abc", 2);
	fputc('|', out);
	chart_xml_clip(out, "h\xffé\x01", 10);
	fputc('|', out);
	CU_ASSERT_EQUAL(chart_xml_text(out, "<é>", 2), 3);
	fclose(out);
	CU_ASSERT_STRING_EQUAL(buf, "ab…|h?é?|&lt;é");
	free(buf);
}

static void test_colors(void)
{
	char a[32], b[32];

	chart_color(0, a, sizeof(a));
	CU_ASSERT_STRING_EQUAL(a, "#1f77b4");
	/* past the palette, hues that differ */
	chart_color(18, a, sizeof(a));
	chart_color(19, b, sizeof(b));
	CU_ASSERT_EQUAL(strncmp(a, "hsl(", 4), 0);
	CU_ASSERT_STRING_NOT_EQUAL(a, b);
}

static int write_ok(FILE *out, void *ctx)
{
	fputs(ctx, out);
	return 0;
}

static int write_fail(FILE *out, void *ctx)
{
	fputs(ctx, out);
	return -EIO;
}

/* Files in dir, "." and ".." not counted. */
static int files_in(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	int n = 0;

	while (d && (e = readdir(d)))
		n += e->d_name[0] != '.';
	if (d)
		closedir(d);
	return n;
}

static void test_write_file(void)
{
	char dir[] = "/tmp/tu-chart-XXXXXX", path[64], got[32] = "", err[256];
	char link[64];
	char first[] = "first", second[] = "second";
	FILE *f;

	CU_ASSERT_PTR_NOT_NULL_FATAL(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/c.svg", dir);
	CU_ASSERT_EQUAL(chart_write_file(path, write_ok, first, err,
					 sizeof(err)), 0);
	/* a failed write leaves the old file whole and no temporary file */
	CU_ASSERT_EQUAL(chart_write_file(path, write_fail, second, err,
					 sizeof(err)), -EIO);
	CU_ASSERT_PTR_NOT_NULL(strstr(err, "c.svg: "));
	f = fopen(path, "r");
	CU_ASSERT_PTR_NOT_NULL_FATAL(f);
	CU_ASSERT_PTR_NOT_NULL(fgets(got, sizeof(got), f));
	fclose(f);
	CU_ASSERT_STRING_EQUAL(got, "first");
	CU_ASSERT_EQUAL(files_in(dir), 1);
	/* a symlink there is refused, its target untouched (issue 24) */
	snprintf(link, sizeof(link), "%s/l.svg", dir);
	CU_ASSERT_FATAL(symlink(path, link) == 0);
	CU_ASSERT_EQUAL(chart_write_file(link, write_ok, second, err,
					 sizeof(err)), -EPERM);
	CU_ASSERT_PTR_NOT_NULL(strstr(err, "l.svg: refuse: not a regular file"));
	f = fopen(path, "r");
	CU_ASSERT_PTR_NOT_NULL_FATAL(f);
	CU_ASSERT_PTR_NOT_NULL(fgets(got, sizeof(got), f));
	fclose(f);
	CU_ASSERT_STRING_EQUAL(got, "first");
	unlink(link);
	unlink(path);
	snprintf(path, sizeof(path), "%s/no/such/c.svg", dir);
	CU_ASSERT_EQUAL(chart_write_file(path, write_ok, first, err,
					 sizeof(err)), -ENOENT);
	CU_ASSERT_PTR_NOT_NULL(strstr(err, "No such file"));
	rmdir(dir);
}

TU_SUITE(chart,
	 { "line and step", test_line },
	 { "CDF on a log axis", test_cdf },
	 { "thinning to the pixel", test_thin },
	 { "bad series", test_bad },
	 { "XML text", test_text },
	 { "colours", test_colors },
	 { "written whole", test_write_file })
