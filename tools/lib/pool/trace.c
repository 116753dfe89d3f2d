// SPDX-License-Identifier: MIT
/*
 * Job traces: the plain CSV and the two Alibaba GPU traces as published
 * read into one job array, written back as plain CSV, and summed up.
 * What each reader keeps, skips and flags: docs/traces.md.
 */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "topology/rng.h"
#include "trace.h"

#define MAX_FIELDS 64
#define MAX_GPUS 1000000u

/* Reader-internal job flags, cleared when the window is known. */
#define J_END_OPEN	0x10000u	/* runtime holds the start: ends at
					 * the window's end */
#define J_START_OPEN	0x20000u	/* submit unknown: the window's start;
					 * runtime holds the end */

/* The string index: open addressing over strs, by FNV-1a. */
struct intern {
	uint32_t *slot;		/* strs index + 1, 0 empty */
	size_t cap;		/* power of two */
};

enum col {
	/* plain */
	C_SUBMIT, C_GPUS, C_RUNTIME, C_USER, C_CLASS, C_LIMIT, C_MILLI,
	C_HOSTS, C_PER_HOST, C_NAME, C_RDMA, C_ID, C_FLAGS,
	/* alibaba 2023 pods */
	C_POD, C_NUM_GPU, C_GPU_MILLI, C_QOS, C_PHASE, C_CPU, C_MEM, C_SPEC,
	/* alibaba 2025 instances */
	C_INSTANCE, C_ROLE, C_APP, C_GPU_REQ, C_RDMA_REQ,
	/* both Alibaba traces */
	C_CREATED, C_SCHEDULED, C_DELETED,
	C_COUNT
};

static const char *const col_names[C_COUNT] = {
	[C_SUBMIT] = "submit", [C_GPUS] = "gpus", [C_RUNTIME] = "runtime",
	[C_USER] = "user", [C_CLASS] = "class", [C_LIMIT] = "limit",
	[C_MILLI] = "milli", [C_HOSTS] = "hosts", [C_PER_HOST] = "per_host",
	[C_NAME] = "name", [C_RDMA] = "rdma", [C_ID] = "id",
	[C_FLAGS] = "flags",
	[C_POD] = "name", [C_NUM_GPU] = "num_gpu",
	[C_GPU_MILLI] = "gpu_milli", [C_QOS] = "qos", [C_PHASE] = "pod_phase",
	[C_CPU] = "cpu_milli", [C_MEM] = "memory_mib", [C_SPEC] = "gpu_spec",
	[C_INSTANCE] = "instance_sn", [C_ROLE] = "role",
	[C_APP] = "app_name", [C_GPU_REQ] = "gpu_request",
	[C_RDMA_REQ] = "rdma_request", [C_CREATED] = "creation_time",
	[C_SCHEDULED] = "scheduled_time", [C_DELETED] = "deletion_time",
};

/* The columns a format needs; the first of each names it in detection. */
static const enum col need_plain[] = { C_SUBMIT, C_GPUS, C_RUNTIME };
static const enum col need_2023[] = { C_NUM_GPU, C_GPU_MILLI, C_QOS,
	C_PHASE, C_CREATED, C_SCHEDULED, C_DELETED, C_POD };
static const enum col need_2025[] = { C_ROLE, C_GPU_REQ, C_RDMA_REQ,
	C_CREATED, C_SCHEDULED, C_DELETED, C_INSTANCE, C_APP };
static const enum col opt_plain[] = { C_USER, C_CLASS, C_LIMIT, C_MILLI,
	C_HOSTS, C_PER_HOST, C_NAME, C_RDMA, C_ID, C_CPU, C_MEM, C_SPEC,
	C_FLAGS };

/* The TRC_JOB_* flags a plain CSV carries. */
#define JOB_FLAGS (TRC_JOB_CENSORED | TRC_JOB_PRESENT | TRC_JOB_CN | \
		   TRC_JOB_UNSCHEDULED)

#define NELEM(a) (sizeof(a) / sizeof((a)[0]))

static const char *const fmt_names[] = {
	[TRC_FMT_AUTO] = "auto", [TRC_FMT_PLAIN] = "plain",
	[TRC_FMT_ALI2023] = "alibaba2023", [TRC_FMT_ALI2025] = "alibaba2025",
};

static const char *const skip_names[TRC_SKIP_COUNT] = {
	[TRC_SKIP_UNSCHEDULED] = "unscheduled",
	[TRC_SKIP_NO_GPU] = "no_gpu",
	[TRC_SKIP_BEFORE_WINDOW] = "before_window",
	[TRC_SKIP_GPU_ONLY] = "gpu_only",
};

/* One reading: where we are, for messages, and the 2025 window. */
struct rd {
	const char *name;
	size_t line;
	char *err;
	size_t errlen;
	struct trc_trace *t;
	uint32_t flags;
	size_t cap;
	int col[C_COUNT];	/* field index, -1 absent */
	size_t nfields;
	double wstart, wend;	/* known times seen, for the window */
};

const char *trc_format_name(enum trc_format f)
{
	return (unsigned int)f < NELEM(fmt_names) ? fmt_names[f] : "?";
}

int trc_format_parse(const char *s, enum trc_format *f)
{
	size_t i;

	for (i = 0; i < NELEM(fmt_names); i++)
		if (!strcmp(s, fmt_names[i])) {
			*f = (enum trc_format)i;
			return 0;
		}
	return -1;
}

const char *trc_skip_name(enum trc_skip r)
{
	return (unsigned int)r < TRC_SKIP_COUNT ? skip_names[r] : "?";
}

__attribute__((format(printf, 2, 3)))
static int rd_err(struct rd *r, const char *fmt, ...)
{
	size_t n = 0;
	va_list ap;

	if (r->line)
		n = snprintf(r->err, r->errlen, "%s:%zu: ", r->name, r->line);
	else
		n = snprintf(r->err, r->errlen, "%s: ", r->name);
	if (n < r->errlen) {
		va_start(ap, fmt);
		vsnprintf(r->err + n, r->errlen - n, fmt, ap);
		va_end(ap);
	}
	return -EINVAL;
}

static uint64_t fnv(const char *s)
{
	uint64_t h = 0xcbf29ce484222325ULL;

	while (*s)
		h = (h ^ (unsigned char)*s++) * 0x100000001b3ULL;
	return h;
}

static int intern_grow(struct trc_trace *t, struct intern *in)
{
	size_t cap = in->cap ? 2 * in->cap : 64, i, k;
	uint32_t *slot = calloc(cap, sizeof(*slot));

	if (!slot)
		return -ENOMEM;
	for (i = 0; i < t->nstrs; i++) {
		for (k = fnv(t->strs[i]) & (cap - 1); slot[k];
		     k = (k + 1) & (cap - 1))
			;
		slot[k] = i + 1;
	}
	free(in->slot);
	in->slot = slot;
	in->cap = cap;
	return 0;
}

int64_t trc_intern(struct trc_trace *t, const char *s)
{
	struct intern *in = t->intern;
	char **strs, *dup;
	size_t k;

	if (!in) {
		if (!(in = calloc(1, sizeof(*in))))
			return -ENOMEM;
		t->intern = in;
	}
	if (!t->nstrs && strcmp(s, "") && trc_intern(t, "") < 0)
		return -ENOMEM;
	if (2 * (t->nstrs + 1) > in->cap && intern_grow(t, in))
		return -ENOMEM;
	for (k = fnv(s) & (in->cap - 1); in->slot[k]; k = (k + 1) & (in->cap - 1))
		if (!strcmp(t->strs[in->slot[k] - 1], s))
			return in->slot[k] - 1;
	if (t->nstrs >= UINT32_MAX - 1)
		return -E2BIG;
	strs = realloc(t->strs, (t->nstrs + 1) * sizeof(*strs));
	if (!strs)
		return -ENOMEM;
	t->strs = strs;
	if (!(dup = strdup(s)))
		return -ENOMEM;
	strs[t->nstrs] = dup;
	in->slot[k] = ++t->nstrs;
	return t->nstrs - 1;
}

const char *trc_str(const struct trc_trace *t, uint32_t idx)
{
	return idx < t->nstrs ? t->strs[idx] : "";
}

void trc_free(struct trc_trace *t)
{
	struct intern *in = t->intern;
	size_t i;

	for (i = 0; i < t->nstrs; i++)
		free(t->strs[i]);
	free(t->strs);
	free(t->jobs);
	if (in)
		free(in->slot);
	free(in);
	memset(t, 0, sizeof(*t));
}

/* Split line (changed in place) at commas into at most max fields. */
static size_t split(char *line, char **f, size_t max)
{
	size_t n = 0, len = strcspn(line, "\r\n");
	char *p = line;

	line[len] = '\0';
	for (;;) {
		if (n == max)
			return max + 1;
		f[n++] = p;
		if (!(p = strchr(p, ',')))
			return n;
		*p++ = '\0';
	}
}

/* A finite number, the whole string. */
static int num(const char *s, double *v)
{
	char *end;

	if (!*s)
		return -EINVAL;
	errno = 0;
	*v = strtod(s, &end);
	if (*end || errno || !isfinite(*v))
		return -EINVAL;
	return 0;
}

/* A field as a number >= 0, or an error naming its column. */
static int field_num(struct rd *r, char **f, enum col c, double *v)
{
	if (num(f[r->col[c]], v) || *v < 0)
		return rd_err(r, "%s: '%s' is not a number >= 0", col_names[c],
			      f[r->col[c]]);
	return 0;
}

/* A field as a whole number in 0..max. */
static int field_uint(struct rd *r, char **f, enum col c, double max,
		      uint32_t *v)
{
	double d;

	if (num(f[r->col[c]], &d) || d < 0 || d != floor(d) || d > max)
		return rd_err(r, "%s: '%s' is not a whole number 0-%.0f",
			      col_names[c], f[r->col[c]], max);
	*v = (uint32_t)d;
	return 0;
}

/* A time field: *known false for "", "nan" or "NaN" (outside the trace). */
static int field_time(struct rd *r, char **f, enum col c, double *v,
		      bool *known)
{
	const char *s = f[r->col[c]];

	*known = *s && strcasecmp(s, "nan");
	if (!*known)
		return 0;
	if (field_num(r, f, c, v))
		return -EINVAL;
	if (*v < r->wstart)
		r->wstart = *v;
	if (*v > r->wend)
		r->wend = *v;
	return 0;
}

/* The number at the end of a name ("openb-pod-0017": 17), else the row. */
static uint32_t name_id(const char *s, size_t row)
{
	const char *p = s + strlen(s);
	unsigned long v;

	while (p > s && p[-1] >= '0' && p[-1] <= '9')
		p--;
	if (!*p || strlen(p) > 9)
		return (uint32_t)row;
	v = strtoul(p, NULL, 10);
	return (uint32_t)v;
}

static int intern_field(struct rd *r, char **f, enum col c, uint32_t *idx)
{
	int64_t i;

	if (r->col[c] < 0) {
		*idx = 0;
		return 0;
	}
	if ((i = trc_intern(r->t, f[r->col[c]])) < 0)
		return (int)i;
	*idx = (uint32_t)i;
	return 0;
}

static int push(struct rd *r, const struct trc_job *j)
{
	struct trc_trace *t = r->t;
	struct trc_job *jobs;

	if (t->njobs == r->cap) {
		size_t cap = r->cap ? 2 * r->cap : 256;

		if (!(jobs = realloc(t->jobs, cap * sizeof(*jobs))))
			return -ENOMEM;
		t->jobs = jobs;
		r->cap = cap;
	}
	t->jobs[t->njobs++] = *j;
	return 0;
}

static int skip(struct rd *r, enum trc_skip why)
{
	r->t->rs.skipped[why]++;
	return 0;
}

/* An optional whole-number column: 0 where the trace has none. */
static int field_opt(struct rd *r, char **f, enum col c, uint32_t *v)
{
	*v = 0;
	return r->col[c] < 0 ? 0 : field_uint(r, f, c, UINT32_MAX, v);
}

/* The same where a plain CSV's field may be empty (0). */
static int plain_opt(struct rd *r, char **f, enum col c, uint32_t *v)
{
	*v = 0;
	return r->col[c] < 0 || !*f[r->col[c]] ? 0 : field_opt(r, f, c, v);
}

/*
 * Whether plain job j is one the reader's options keep (1), or skipped
 * (0): the rows an Alibaba trace skips by default, carried by a CSV
 * converted from it, are skipped for the same reasons.
 */
static int plain_skips(struct rd *r, const struct trc_job *j)
{
	bool all = r->flags & TRC_OPT_ALL_PODS;

	if (!j->gpus && !j->rdma && (!all || (!j->cpu && !j->mem)))
		return skip(r, TRC_SKIP_NO_GPU);
	if (!j->gpus && j->rdma && (r->flags & TRC_OPT_GPU_ONLY))
		return skip(r, TRC_SKIP_GPU_ONLY);
	if ((j->flags & TRC_JOB_UNSCHEDULED) && !all)
		return skip(r, TRC_SKIP_UNSCHEDULED);
	if ((j->flags & TRC_JOB_PRESENT) &&
	    !(r->flags & TRC_OPT_KEEP_PRESENT))
		return skip(r, TRC_SKIP_BEFORE_WINDOW);
	return 1;
}

/* A plain CSV row: submit,gpus,runtime and the optional columns. */
static int row_plain(struct rd *r, char **f)
{
	struct trc_job j = { .milli = 1000 };
	uint32_t v;
	int ret;

	if (field_num(r, f, C_SUBMIT, &j.submit) ||
	    field_uint(r, f, C_GPUS, MAX_GPUS, &j.gpus) ||
	    field_num(r, f, C_RUNTIME, &j.runtime))
		return -EINVAL;
	if (r->col[C_LIMIT] >= 0 && *f[r->col[C_LIMIT]] &&
	    field_num(r, f, C_LIMIT, &j.limit))
		return -EINVAL;
	if (r->col[C_MILLI] >= 0 && *f[r->col[C_MILLI]]) {
		if (field_uint(r, f, C_MILLI, 1000, &v) || !v)
			return rd_err(r, "milli: '%s' is not 1-1000",
				      f[r->col[C_MILLI]]);
		j.milli = v;
		if (v < 1000 && j.gpus != 1)
			return rd_err(r, "milli %u < 1000 needs gpus 1, not %u",
				      v, j.gpus);
	}
	if (r->col[C_RDMA] >= 0 && *f[r->col[C_RDMA]]) {
		if (field_uint(r, f, C_RDMA, 100, &v))
			return -EINVAL;
		j.rdma = v;
	}
	if (r->col[C_HOSTS] >= 0 && *f[r->col[C_HOSTS]]) {
		if (field_uint(r, f, C_HOSTS, UINT16_MAX, &v))
			return -EINVAL;
		j.hosts = v;
	}
	if (r->col[C_PER_HOST] >= 0 && *f[r->col[C_PER_HOST]]) {
		if (field_uint(r, f, C_PER_HOST, UINT16_MAX, &v))
			return -EINVAL;
		j.per_host = v;
	}
	if (j.hosts && j.per_host && (uint64_t)j.hosts * j.per_host != j.gpus)
		return rd_err(r, "hosts %u x per_host %u is not gpus %u",
			      j.hosts, j.per_host, j.gpus);
	if (r->col[C_ID] >= 0 && *f[r->col[C_ID]]) {
		if (field_uint(r, f, C_ID, UINT32_MAX, &j.id))
			return -EINVAL;
	} else {
		j.id = (uint32_t)r->t->rs.rows;
	}
	if (plain_opt(r, f, C_CPU, &j.cpu) || plain_opt(r, f, C_MEM, &j.mem) ||
	    plain_opt(r, f, C_FLAGS, &j.flags))
		return -EINVAL;
	if (j.flags & ~JOB_FLAGS)
		return rd_err(r, "flags: %u is not a mask of %u", j.flags,
			      JOB_FLAGS);
	if ((ret = plain_skips(r, &j)) <= 0)
		return ret;
	if ((ret = intern_field(r, f, C_USER, &j.user)) ||
	    (ret = intern_field(r, f, C_NAME, &j.name)) ||
	    (ret = intern_field(r, f, C_CLASS, &j.cls)) ||
	    (ret = intern_field(r, f, C_SPEC, &j.spec)))
		return ret;
	return push(r, &j);
}

/* The Alibaba traces' three times, each perhaps unknown (NaN). */
struct times {
	double created, sched, deleted;
	bool kc, ks, kd;	/* known */
};

static int row_times(struct rd *r, char **f, struct times *tm)
{
	return field_time(r, f, C_CREATED, &tm->created, &tm->kc) ||
	       field_time(r, f, C_SCHEDULED, &tm->sched, &tm->ks) ||
	       field_time(r, f, C_DELETED, &tm->deleted, &tm->kd) ?
	       -EINVAL : 0;
}

/*
 * A 2023 pod: submitted at creation, ran from scheduled to deletion.
 * Pending pods never ran; Running ones were still running when the
 * trace was taken (their deletion time is its end): censored.
 */
static int row_2023(struct rd *r, char **f)
{
	struct trc_job j = { .hosts = 1 };
	bool all = r->flags & TRC_OPT_ALL_PODS;
	struct times tm;
	uint32_t v;
	int ret;

	if (row_times(r, f, &tm) ||
	    field_uint(r, f, C_NUM_GPU, MAX_GPUS, &j.gpus) ||
	    field_uint(r, f, C_GPU_MILLI, 1000, &v) ||
	    field_opt(r, f, C_CPU, &j.cpu) || field_opt(r, f, C_MEM, &j.mem))
		return -EINVAL;
	if (!tm.kc || !tm.kd)
		return rd_err(r, "%s time missing", !tm.kc ? "creation" :
			      "deletion");
	if (!j.gpus && (!all || (!j.cpu && !j.mem)))
		return skip(r, TRC_SKIP_NO_GPU);
	if (!v && j.gpus)
		return rd_err(r, "gpu_milli 0 with num_gpu %u", j.gpus);
	if (v < 1000 && j.gpus > 1)
		return rd_err(r, "gpu_milli %u < 1000 needs num_gpu 1, not %u",
			      v, j.gpus);
	if (!tm.ks && !all)
		return skip(r, TRC_SKIP_UNSCHEDULED);
	if (!tm.ks) {
		tm.sched = tm.deleted = tm.created;
		j.flags |= TRC_JOB_UNSCHEDULED;
	}
	if (tm.sched < tm.created || tm.deleted < tm.sched)
		return rd_err(r, "times out of order: created %.0f, scheduled %.0f, deleted %.0f",
			      tm.created, tm.sched, tm.deleted);
	j.submit = tm.created;
	j.milli = j.gpus ? v : 1000;
	j.per_host = j.gpus;
	j.runtime = tm.deleted - tm.sched;
	j.id = name_id(f[r->col[C_POD]], r->t->rs.rows);
	if ((ret = intern_field(r, f, C_SPEC, &j.spec)))
		return ret;
	if (!strcmp(f[r->col[C_PHASE]], "Running"))
		j.flags |= TRC_JOB_CENSORED;
	if ((ret = intern_field(r, f, C_QOS, &j.cls)))
		return ret;
	return push(r, &j);
}

/*
 * A 2025 instance.  NaN times lie outside the trace's window: no
 * creation time, it ran before the window began (skipped unless
 * TRC_OPT_KEEP_PRESENT); no deletion time, it ran past its end
 * (censored at the window's end, fixed once all rows are read).
 */
static int row_2025(struct rd *r, char **f)
{
	struct trc_job j = { .hosts = 1, .milli = 1000 };
	struct times tm;
	uint32_t v;
	int ret;

	if (row_times(r, f, &tm) ||
	    field_uint(r, f, C_GPU_REQ, MAX_GPUS, &j.gpus) ||
	    field_uint(r, f, C_RDMA_REQ, 100, &v))
		return -EINVAL;
	j.rdma = v;
	if (strcmp(f[r->col[C_ROLE]], "HN") && strcmp(f[r->col[C_ROLE]], "CN"))
		return rd_err(r, "role: '%s' is not HN or CN",
			      f[r->col[C_ROLE]]);
	if (!strcmp(f[r->col[C_ROLE]], "CN"))
		j.flags |= TRC_JOB_CN;
	if (!tm.kc && tm.ks)
		return rd_err(r, "scheduled time without a creation time");
	if (tm.kc && tm.ks && (tm.sched < tm.created ||
			       (tm.kd && tm.deleted < tm.sched)))
		return rd_err(r, "times out of order: created %.0f, scheduled %.0f, deleted %.0f",
			      tm.created, tm.sched, tm.kd ? tm.deleted : NAN);
	if (!j.gpus && !j.rdma)
		return skip(r, TRC_SKIP_NO_GPU);
	if (!j.gpus && (r->flags & TRC_OPT_GPU_ONLY))
		return skip(r, TRC_SKIP_GPU_ONLY);
	if (tm.kc && !tm.ks)
		return skip(r, TRC_SKIP_UNSCHEDULED);
	if (!tm.kc && !(r->flags & TRC_OPT_KEEP_PRESENT))
		return skip(r, TRC_SKIP_BEFORE_WINDOW);
	j.submit = tm.created;
	j.per_host = j.gpus;
	j.id = name_id(f[r->col[C_INSTANCE]], r->t->rs.rows);
	if (!tm.kc) {
		j.flags |= TRC_JOB_PRESENT | J_START_OPEN;
		j.runtime = tm.kd ? tm.deleted : 0;	/* the end, if known */
	} else {
		j.runtime = tm.kd ? tm.deleted - tm.sched : tm.sched;
	}
	if (!tm.kd)
		j.flags |= TRC_JOB_CENSORED | J_END_OPEN;
	if ((ret = intern_field(r, f, C_APP, &j.name)))
		return ret;
	return push(r, &j);
}

/* Close the jobs that start or end outside the window, now it is known. */
static void close_window(struct rd *r)
{
	struct trc_trace *t = r->t;
	size_t i;

	for (i = 0; i < t->njobs; i++) {
		struct trc_job *j = &t->jobs[i];
		double start = j->submit, end = j->runtime;

		if (j->flags & J_START_OPEN)
			j->submit = start = r->wstart;
		else if (j->flags & J_END_OPEN)
			start = j->runtime;
		if (j->flags & J_END_OPEN)
			end = r->wend;
		if (j->flags & (J_START_OPEN | J_END_OPEN))
			j->runtime = end - start;
		j->flags &= ~(J_START_OPEN | J_END_OPEN);
		t->rs.censored += !!(j->flags & TRC_JOB_CENSORED);
		t->rs.present += !!(j->flags & TRC_JOB_PRESENT);
	}
}

/* Job indexes by submit; ties in file order (qsort is not stable). */
static int by_submit(const void *a, const void *b, void *jobs)
{
	const struct trc_job *j = jobs;
	size_t x = *(const size_t *)a, y = *(const size_t *)b;
	double s = j[x].submit, u = j[y].submit;

	if (s != u)
		return s < u ? -1 : 1;
	return x < y ? -1 : x > y;
}

/* Sort t's jobs by submit and count time from the first. */
static int sort_jobs(struct trc_trace *t)
{
	struct trc_job *out;
	size_t *idx, i;
	double t0;

	if (!t->njobs)
		return 0;
	idx = malloc(t->njobs * sizeof(*idx));
	out = malloc(t->njobs * sizeof(*out));
	if (!idx || !out) {
		free(idx);
		free(out);
		return -ENOMEM;
	}
	for (i = 0; i < t->njobs; i++)
		idx[i] = i;
	qsort_r(idx, t->njobs, sizeof(*idx), by_submit, t->jobs);
	t0 = t->jobs[idx[0]].submit;
	for (i = 0; i < t->njobs; i++) {
		out[i] = t->jobs[idx[i]];
		out[i].submit -= t0;
	}
	free(idx);
	free(t->jobs);
	t->jobs = out;
	return 0;
}

/* Map the header's columns; 0 or -1 when a column appears twice. */
static int map_header(struct rd *r, char **f, size_t n)
{
	size_t i, c;

	for (c = 0; c < C_COUNT; c++)
		r->col[c] = -1;
	for (i = 0; i < n; i++)
		for (c = 0; c < C_COUNT; c++) {
			if (strcmp(f[i], col_names[c]))
				continue;
			if (r->col[c] >= 0)
				return rd_err(r, "column '%s' twice", f[i]);
			r->col[c] = (int)i;
		}
	r->nfields = n;
	return 0;
}

static bool has_all(const struct rd *r, const enum col *c, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (r->col[c[i]] < 0)
			return false;
	return true;
}

static enum trc_format detect(const struct rd *r)
{
	if (has_all(r, need_plain, NELEM(need_plain)))
		return TRC_FMT_PLAIN;
	if (has_all(r, need_2023, NELEM(need_2023)))
		return TRC_FMT_ALI2023;
	if (has_all(r, need_2025, NELEM(need_2025)))
		return TRC_FMT_ALI2025;
	return TRC_FMT_AUTO;
}

enum trc_format trc_detect(const char *header)
{
	char *copy = strdup(header), *f[MAX_FIELDS];
	struct rd r = { .name = "", .err = NULL, .errlen = 0 };
	enum trc_format fmt = TRC_FMT_AUTO;
	size_t n;

	if (!copy)
		return TRC_FMT_AUTO;
	n = split(copy, f, MAX_FIELDS);
	if (n <= MAX_FIELDS && !map_header(&r, f, n))
		fmt = detect(&r);
	free(copy);
	return fmt;
}

/* The plain format's columns must all be known ones: typos are errors. */
static int check_plain_cols(struct rd *r, char **f, size_t n)
{
	size_t i, k;

	for (i = 0; i < n; i++) {
		bool known = false;

		for (k = 0; k < NELEM(need_plain) && !known; k++)
			known = !strcmp(f[i], col_names[need_plain[k]]);
		for (k = 0; k < NELEM(opt_plain) && !known; k++)
			known = !strcmp(f[i], col_names[opt_plain[k]]);
		if (!known)
			return rd_err(r, "unknown column '%s' (plain: submit,gpus,runtime[,user,class,limit,milli,hosts,per_host,name,rdma,id,cpu_milli,memory_mib,gpu_spec,flags])",
				      f[i]);
	}
	return 0;
}

/* Which columns the format needs; NULL for auto. */
static const enum col *needs(enum trc_format fmt, size_t *n)
{
	switch (fmt) {
	case TRC_FMT_PLAIN:
		*n = NELEM(need_plain);
		return need_plain;
	case TRC_FMT_ALI2023:
		*n = NELEM(need_2023);
		return need_2023;
	case TRC_FMT_ALI2025:
		*n = NELEM(need_2025);
		return need_2025;
	default:
		*n = 0;
		return NULL;
	}
}

static int read_header(struct rd *r, char *line, enum trc_format want)
{
	char *f[MAX_FIELDS];
	const enum col *need;
	size_t n = split(line, f, MAX_FIELDS), k;
	int ret;

	if (n > MAX_FIELDS)
		return rd_err(r, "header has more than %d columns", MAX_FIELDS);
	if ((ret = map_header(r, f, n)))
		return ret;
	r->t->fmt = want != TRC_FMT_AUTO ? want : detect(r);
	if (r->t->fmt == TRC_FMT_AUTO)
		return rd_err(r, "unknown trace format: the header names none of submit,gpus,runtime (plain), the Alibaba 2023 pods' or the 2025 instances' columns");
	need = needs(r->t->fmt, &n);
	for (k = 0; k < n; k++)
		if (r->col[need[k]] < 0)
			return rd_err(r, "%s trace without a '%s' column",
				      trc_format_name(r->t->fmt),
				      col_names[need[k]]);
	if (r->t->fmt == TRC_FMT_PLAIN)
		return check_plain_cols(r, f, r->nfields);
	return 0;
}

static int read_rows(struct rd *r, FILE *in, enum trc_format want)
{
	char *line = NULL, *f[MAX_FIELDS];
	size_t cap = 0, n;
	bool header = false;
	int ret = 0;

	while (!ret && getline(&line, &cap, in) >= 0) {
		r->line++;
		if (!line[strspn(line, "\r\n")] || line[0] == '#')
			continue;	/* blank lines and comments are no rows */
		if (!header) {
			header = true;
			ret = read_header(r, line, want);
			continue;
		}
		n = split(line, f, MAX_FIELDS);
		if (n > MAX_FIELDS)
			ret = rd_err(r, "more than %d fields", MAX_FIELDS);
		else if (n != r->nfields)
			ret = rd_err(r, "%zu fields, the header has %zu", n,
				     r->nfields);
		if (ret)
			break;
		r->t->rs.rows++;
		if (r->t->fmt == TRC_FMT_PLAIN)
			ret = row_plain(r, f);
		else if (r->t->fmt == TRC_FMT_ALI2023)
			ret = row_2023(r, f);
		else
			ret = row_2025(r, f);
	}
	if (!ret && ferror(in)) {
		r->line = 0;
		rd_err(r, "%s", strerror(EIO));
		ret = -EIO;
	}
	if (!ret && !header) {
		r->line = 0;
		ret = rd_err(r, "empty: no header line");
	}
	free(line);
	return ret;
}

int trc_read_stream(FILE *in, const char *name,
		    const struct trc_read_opts *opts, struct trc_trace *t,
		    char *err, size_t errlen)
{
	struct rd r = {
		.name = name, .err = err, .errlen = errlen, .t = t,
		.flags = opts ? opts->flags : 0,
		.wstart = INFINITY, .wend = -INFINITY,
	};
	int ret;

	memset(t, 0, sizeof(*t));
	if (trc_intern(t, "") < 0)
		ret = -ENOMEM;
	else
		ret = read_rows(&r, in, opts ? opts->fmt : TRC_FMT_AUTO);
	if (!ret) {
		close_window(&r);
		ret = sort_jobs(t);
	}
	if (ret == -ENOMEM)
		snprintf(err, errlen, "%s: %s", name, strerror(ENOMEM));
	return ret;
}

/* fopen for reading, or NULL with "PATH: why" in err and errno kept. */
static FILE *open_in(const char *path, char *err, size_t errlen)
{
	FILE *in = fopen(path, "r");
	int e = errno;

	if (!in)
		snprintf(err, errlen, "%s: %s", path, strerror(e));
	errno = e;
	return in;
}

int trc_read(const char *path, const struct trc_read_opts *opts,
	     struct trc_trace *t, char *err, size_t errlen)
{
	FILE *in = open_in(path, err, errlen);
	int ret;

	memset(t, 0, sizeof(*t));
	if (!in)
		return -errno;
	ret = trc_read_stream(in, path, opts, t, err, errlen);
	fclose(in);
	return ret;
}

/* A string for a plain CSV: no comma, quote or line break in it. */
static bool csv_safe(const char *s)
{
	return !s[strcspn(s, ",\"\r\n")];
}

int trc_write_plain(const struct trc_trace *t, FILE *out)
{
	size_t i;

	for (i = 0; i < t->nstrs; i++)
		if (!csv_safe(t->strs[i]))
			return -EINVAL;
	fputs("submit,gpus,runtime,user,class,limit,milli,hosts,per_host,name,rdma,id,cpu_milli,memory_mib,gpu_spec,flags\n",
	      out);
	for (i = 0; i < t->njobs; i++) {
		const struct trc_job *j = &t->jobs[i];

		fprintf(out, "%.3f,%u,%.3f,%s,%s,%.3f,%u,%u,%u,%s,%u,%u,%u,%u,%s,%u\n",
			j->submit, j->gpus, j->runtime, trc_str(t, j->user),
			trc_str(t, j->cls), j->limit, j->milli, j->hosts,
			j->per_host, trc_str(t, j->name), j->rdma, j->id,
			j->cpu, j->mem, trc_str(t, j->spec),
			j->flags & JOB_FLAGS);
	}
	return ferror(out) ? -EIO : 0;
}

/* A node column that is a whole number, 0 where absent. */
static int node_uint(struct rd *r, char **f, int col, const char *what,
		     double max, uint32_t *v)
{
	double d;

	*v = 0;
	if (col < 0)
		return 0;
	if (num(f[col], &d) || d < 0 || d != floor(d) || d > max)
		return rd_err(r, "%s: '%s' is not a whole number 0-%.0f", what,
			      f[col], max);
	*v = (uint32_t)d;
	return 0;
}

/* Node nd's model: its index in c->models + 1, the model added if new. */
static int node_model(struct rd *r, struct trc_cluster *c, struct trc_node *nd)
{
	char **m;
	size_t i;

	nd->mi = 0;
	if (!*nd->model)
		return 0;
	for (i = 0; i < c->nmodels; i++)
		if (!strcmp(c->models[i], nd->model))
			break;
	if (i == c->nmodels) {
		if (i == TRC_MAX_MODELS)
			return rd_err(r, "more than %d GPU models",
				      TRC_MAX_MODELS);
		if (!(m = realloc(c->models, (i + 1) * sizeof(*m))))
			return -ENOMEM;
		c->models = m;
		c->models[c->nmodels++] = nd->model;
	}
	nd->mi = (unsigned int)i + 1;
	return 0;
}

/* The node list: sn and gpu needed; model, cpu_milli, memory_mib if there. */
static int node_row(struct rd *r, char **f, int *col, struct trc_cluster *c,
		    size_t *cap)
{
	struct trc_node *nodes, *nd;
	uint32_t g, cpu, mem;

	if (node_uint(r, f, col[1], "gpu", MAX_GPUS, &g) ||
	    node_uint(r, f, col[3], "cpu_milli", UINT32_MAX, &cpu) ||
	    node_uint(r, f, col[4], "memory_mib", UINT32_MAX, &mem))
		return -EINVAL;
	if (c->n == *cap) {
		size_t nc = *cap ? 2 * *cap : 64;

		if (!(nodes = realloc(c->nodes, nc * sizeof(*nodes))))
			return -ENOMEM;
		c->nodes = nodes;
		*cap = nc;
	}
	nd = &c->nodes[c->n];
	*nd = (struct trc_node){ .gpus = g, .cpu = cpu, .mem = mem };
	nd->name = strdup(f[col[0]]);
	nd->model = strdup(col[2] >= 0 ? f[col[2]] : "");
	c->n++;
	if (!nd->name || !nd->model)
		return -ENOMEM;
	c->gpus += nd->gpus;
	return node_model(r, c, nd);
}

#define NODE_COLS 5	/* sn, gpu, model, cpu_milli, memory_mib */

static int node_header(struct rd *r, char **f, size_t n, int *col)
{
	static const char *const names[NODE_COLS] = { "sn", "gpu", "model",
						      "cpu_milli",
						      "memory_mib" };
	size_t i, k;

	for (k = 0; k < NODE_COLS; k++)
		col[k] = -1;
	for (i = 0; i < n; i++)
		for (k = 0; k < NODE_COLS; k++)
			if (!strcmp(f[i], names[k]))
				col[k] = (int)i;
	if (col[0] < 0 || col[1] < 0)
		return rd_err(r, "node list without a '%s' column",
			      col[0] < 0 ? "sn" : "gpu");
	r->nfields = n;
	return 0;
}

int trc_read_nodes_stream(FILE *in, const char *name, struct trc_cluster *c,
			  char *err, size_t errlen)
{
	struct rd r = { .name = name, .err = err, .errlen = errlen };
	char *line = NULL, *f[MAX_FIELDS];
	size_t cap = 0, ncap = 0, n;
	bool header = false;
	int col[NODE_COLS], ret = 0;

	memset(c, 0, sizeof(*c));
	while (!ret && getline(&line, &cap, in) >= 0) {
		r.line++;
		if (!line[strspn(line, "\r\n")] || line[0] == '#')
			continue;
		n = split(line, f, MAX_FIELDS);
		if (n > MAX_FIELDS)
			ret = rd_err(&r, "more than %d fields", MAX_FIELDS);
		else if (!header)
			ret = node_header(&r, f, n, col);
		else if (n != r.nfields)
			ret = rd_err(&r, "%zu fields, the header has %zu", n,
				     r.nfields);
		else
			ret = node_row(&r, f, col, c, &ncap);
		header = true;
	}
	if (!ret && !header) {
		r.line = 0;
		ret = rd_err(&r, "empty: no header line");
	}
	if (ret == -ENOMEM)
		snprintf(err, errlen, "%s: %s", name, strerror(ENOMEM));
	free(line);
	return ret;
}

int trc_read_nodes(const char *path, struct trc_cluster *c, char *err,
		   size_t errlen)
{
	FILE *in = open_in(path, err, errlen);
	int ret;

	memset(c, 0, sizeof(*c));
	if (!in)
		return -errno;
	ret = trc_read_nodes_stream(in, path, c, err, errlen);
	fclose(in);
	return ret;
}

void trc_cluster_free(struct trc_cluster *c)
{
	size_t i;

	for (i = 0; i < c->n; i++) {
		free(c->nodes[i].name);
		free(c->nodes[i].model);
	}
	free(c->nodes);
	free(c->models);
	memset(c, 0, sizeof(*c));
}

uint64_t trc_spec_mask(const struct trc_cluster *c, const char *spec)
{
	uint64_t m = 0;
	size_t i, len;

	if (!*spec)
		return 0;
	while (*spec) {
		len = strcspn(spec, "|");
		for (i = 0; i < c->nmodels; i++)
			if (strlen(c->models[i]) == len &&
			    !strncmp(c->models[i], spec, len))
				m |= 1ull << (i + 1);
		spec += len + (spec[len] == '|');
	}
	return m ? m : 1;
}

uint32_t trc_size_lo(unsigned int i)
{
	return i < 2 ? i : (1u << (i - 2)) + 1;
}

static unsigned int size_class(uint32_t g)
{
	unsigned int i = 0;

	while (i + 1 < TRC_NSIZE && g >= trc_size_lo(i + 1))
		i++;
	return i;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return (x > y) - (x < y);
}

/* Run times and GPU counts: sorted for medians and percentiles. */
static int sorted_stats(const struct trc_trace *t, struct trc_stats *s)
{
	double *rt = malloc(t->njobs * sizeof(*rt));
	uint32_t *g = malloc(t->njobs * sizeof(*g));
	size_t i, n = t->njobs;

	if (!rt || !g) {
		free(rt);
		free(g);
		return -ENOMEM;
	}
	for (i = 0; i < n; i++) {
		rt[i] = t->jobs[i].runtime;
		g[i] = t->jobs[i].gpus;
	}
	qsort(rt, n, sizeof(*rt), cmp_double);
	qsort(g, n, sizeof(*g), cmp_u32);
	s->rt_median = n % 2 ? rt[n / 2] : (rt[n / 2 - 1] + rt[n / 2]) / 2;
	s->rt_p99 = rt[(size_t)ceil(0.99 * n) - 1];	/* nearest rank */
	s->rt_max = rt[n - 1];
	s->gpus_median = g[(n - 1) / 2];
	s->gpus_max = g[n - 1];
	free(rt);
	free(g);
	return 0;
}

/* Distinct users given (index 0, "", is none). */
static int count_users(const struct trc_trace *t, struct trc_stats *s)
{
	bool *seen = calloc(t->nstrs ? t->nstrs : 1, sizeof(*seen));
	size_t i;

	if (!seen)
		return -ENOMEM;
	for (i = 0; i < t->njobs; i++) {
		uint32_t u = t->jobs[i].user;

		if (u && u < t->nstrs && !seen[u]) {
			seen[u] = true;
			s->users++;
		}
	}
	free(seen);
	return 0;
}

int trc_stats(const struct trc_trace *t, uint32_t capacity,
	      struct trc_stats *s)
{
	double rt_sum = 0, eq_sum = 0, first, last;
	size_t i;

	memset(s, 0, sizeof(*s));
	s->rs = t->rs;
	s->jobs = t->njobs;
	s->capacity = capacity;
	if (!t->njobs)
		return 0;
	first = last = t->jobs[0].submit;
	for (i = 0; i < t->njobs; i++) {
		const struct trc_job *j = &t->jobs[i];
		double eq = j->gpus * (j->milli / 1000.0);

		s->fractional += j->milli < 1000;
		s->multi_host += j->hosts > 1;
		s->size_jobs[size_class(j->gpus)]++;
		eq_sum += eq;
		rt_sum += j->runtime;
		s->gpu_seconds += eq * j->runtime;
		if (j->submit < first)
			first = j->submit;
		if (j->submit > last)
			last = j->submit;
	}
	s->gpus_mean = eq_sum / t->njobs;
	s->rt_mean = rt_sum / t->njobs;
	s->span = last - first;
	if (capacity && s->span > 0)
		s->load = s->gpu_seconds / ((double)capacity * s->span);
	if (sorted_stats(t, s) || count_users(t, s))
		return -ENOMEM;
	return 0;
}

/*
 * The Philly GPU-count mix, shares of jobs.  1, 2, 4 and 8 GPUs as Gavel
 * (Narayanan et al., OSDI'20) samples "the Philly distribution": 70 %,
 * 10 %, 15 %, 5 %, mean 1.90.  The Philly summary DESIGN.md quotes has
 * mean 1.93 and max 128: the gangs of 16-128 GPUs take 0.115 % from the
 * 8-GPU share, halving per doubling of size, for mean 1.930
 * (docs/traces.md).
 */
static const struct trc_mix philly_mix[] = {
	{ 1, 0.70000 }, { 2, 0.10000 }, { 4, 0.15000 }, { 8, 0.04885 },
	{ 16, 0.00061 }, { 32, 0.00031 }, { 64, 0.00015 }, { 128, 0.00008 },
};

#define HOST_GPUS 8		/* a gang's hosts are whole 8-GPU hosts */
#define ZIPF_S 1.0		/* user k submits in proportion to 1/k^s */

const struct trc_mix *trc_philly_mix(size_t *n)
{
	*n = NELEM(philly_mix);
	return philly_mix;
}

/* Uniform in [0, 1) from the project's random numbers (topology/rng.h). */
static double rng_unit(uint64_t *s)
{
	return (rng_next(s) >> 11) * 0x1.0p-53;
}

static double ms(double v)
{
	return round(v * 1000) / 1000;
}

/* The first index whose cumulative weight exceeds u (cum ascending). */
static size_t pick(const double *cum, size_t n, double u)
{
	size_t lo = 0, hi = n - 1;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;

		if (cum[mid] > u)
			hi = mid;
		else
			lo = mid + 1;
	}
	return lo;
}

/*
 * The run-time pool: the file's positive run times.  A run time of 0 is
 * no job that held a GPU: left out (counted in *zeros), so draws are
 * from the jobs that ran.
 */
static int read_runtimes(const char *path, double **out, size_t *n,
			 size_t *zeros, char *err, size_t errlen)
{
	struct rd r = { .name = path, .err = err, .errlen = errlen };
	char *line = NULL, *end;
	size_t cap = 0, vcap = 0;
	double *v = NULL, *nv, x;
	FILE *in = open_in(path, err, errlen);
	int ret = 0;

	*n = *zeros = 0;
	if (!in)
		return -errno;
	while (!ret && getline(&line, &cap, in) >= 0) {
		if (!r.line++)
			continue;	/* the header */
		line[strcspn(line, "\r\n")] = '\0';
		errno = 0;
		x = strtod(line, &end);
		if (!*line || *end || errno || !isfinite(x) || x < 0) {
			ret = rd_err(&r, "'%s' is not a run time >= 0", line);
		} else if (x == 0) {
			(*zeros)++;
		} else if (*n == vcap) {
			vcap = vcap ? 2 * vcap : 4096;
			if (!(nv = realloc(v, vcap * sizeof(*v))))
				ret = -ENOMEM;
			else
				v = nv;
		}
		if (!ret && x > 0)
			v[(*n)++] = x;
	}
	if (!ret && !*n) {
		r.line = 0;
		ret = rd_err(&r, "no positive run time");
	}
	if (ret == -ENOMEM)
		snprintf(err, errlen, "%s: %s", path, strerror(ENOMEM));
	free(line);
	fclose(in);
	if (ret)
		free(v);
	else
		*out = v;
	return ret;
}

static int gen_check(const struct trc_gen_opts *o, char *err, size_t errlen)
{
	const char *why = NULL;
	size_t i;

	if (o->jobs < 2 || o->jobs > UINT32_MAX)
		why = "--jobs must be 2 or more";
	else if (!(o->load > 0) || !isfinite(o->load))
		why = "--load must be above 0";
	else if (!o->gpus)
		why = "--gpus must be 1 or more";
	else if (!o->runtimes)
		why = "no run-time file";
	else if (o->mix && (!o->nmix || o->nmix > 64))
		why = "a GPU mix has 1-64 sizes";
	for (i = 0; !why && o->mix && i < o->nmix; i++)
		if (!o->mix[i].gpus || !(o->mix[i].share > 0) ||
		    (o->mix[i].gpus > HOST_GPUS && o->mix[i].gpus % HOST_GPUS))
			why = "bad GPU mix: shares above 0, sizes above 8 whole 8-GPU hosts";
	if (!why)
		return 0;
	snprintf(err, errlen, "%s", why);
	return -EINVAL;
}

/* Users "u1".."uN", interned in order: user k is strs index k. */
static int gen_users(struct trc_trace *t, uint32_t n, double **cum)
{
	char name[16];
	double sum = 0;
	uint32_t k;

	if (!(*cum = malloc(n * sizeof(**cum))))
		return -ENOMEM;
	for (k = 0; k < n; k++) {
		snprintf(name, sizeof(name), "u%u", k + 1);
		if (trc_intern(t, name) != k + 1)
			return -ENOMEM;
		sum += 1 / pow(k + 1, ZIPF_S);
		(*cum)[k] = sum;
	}
	for (k = 0; k < n; k++)
		(*cum)[k] /= sum;
	return 0;
}

/* Sizes, run times, users and limits of the jobs; *gs their GPU-seconds. */
static void gen_jobs(const struct trc_gen_opts *o, struct trc_trace *t,
		     const double *rt, size_t nrt, const double *ucum,
		     uint64_t *seed, double *gs)
{
	const struct trc_mix *mix = o->mix ? o->mix : philly_mix;
	size_t nmix = o->mix ? o->nmix : NELEM(philly_mix), i;
	uint64_t s_size = rng_next(seed), s_rt = rng_next(seed);
	uint64_t s_user = rng_next(seed), s_lim = rng_next(seed);
	uint32_t users = o->users ? o->users : 100;
	double cum[64], sum = 0;

	for (i = 0; i < nmix; i++)
		cum[i] = sum += mix[i].share;
	*gs = 0;
	for (i = 0; i < o->jobs; i++) {
		struct trc_job *j = &t->jobs[i];
		uint32_t g = mix[pick(cum, nmix, rng_unit(&s_size) * sum)].gpus;

		memset(j, 0, sizeof(*j));
		j->id = i + 1;
		j->gpus = g;
		j->milli = 1000;
		if (g > HOST_GPUS) {
			j->hosts = g / HOST_GPUS;
			j->per_host = HOST_GPUS;
		}
		j->runtime = rt[(size_t)(rng_unit(&s_rt) * nrt)];
		j->user = 1 + pick(ucum, users, rng_unit(&s_user));
		j->limit = ms(j->runtime * (2 + 3 * rng_unit(&s_lim)));
		*gs += g * j->runtime;
	}
}

/*
 * Poisson arrivals: exponential gaps of mean 1, then scaled so that the
 * drawn jobs' GPU-seconds over gpus x the span of arrivals is the load.
 */
static void gen_arrivals(const struct trc_gen_opts *o, struct trc_trace *t,
			 uint64_t *seed, double gs)
{
	uint64_t s = rng_next(seed);
	double at = 0, scale;
	size_t i;

	t->jobs[0].submit = 0;
	for (i = 1; i < o->jobs; i++)
		t->jobs[i].submit = at += -log1p(-rng_unit(&s));
	scale = gs / (o->load * o->gpus * at);
	for (i = 0; i < o->jobs; i++)
		t->jobs[i].submit = ms(t->jobs[i].submit * scale);
}

int trc_gen_philly(const struct trc_gen_opts *o, struct trc_trace *t,
		   char *err, size_t errlen)
{
	uint32_t users = o->users ? o->users : 100;
	double *rt = NULL, *ucum = NULL, gs;
	uint64_t seed = o->seed;	/* one stream per drawn quantity */
	size_t nrt, zeros;
	int ret;

	memset(t, 0, sizeof(*t));
	if ((ret = gen_check(o, err, errlen)))
		return ret;
	if ((ret = read_runtimes(o->runtimes, &rt, &nrt, &zeros, err,
				 errlen)))
		return ret;
	t->fmt = TRC_FMT_PLAIN;
	t->jobs = calloc(o->jobs, sizeof(*t->jobs));
	if (!t->jobs || trc_intern(t, "") < 0 ||
	    (ret = gen_users(t, users, &ucum))) {
		ret = -ENOMEM;
		snprintf(err, errlen, "%s", strerror(ENOMEM));
		goto out;
	}
	t->njobs = o->jobs;
	t->rs.rows = o->jobs;
	gen_jobs(o, t, rt, nrt, ucum, &seed, &gs);
	gen_arrivals(o, t, &seed, gs);
out:
	free(rt);
	free(ucum);
	return ret;
}
