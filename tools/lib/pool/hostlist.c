// SPDX-License-Identifier: MIT
/* Slurm hostlist expansion (recursive over brackets) and compression. */
#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hostlist.h"
#include "topology/textio.h"

#define NUM_MAX 999999999UL	/* keeps every number within 9 digits */

struct exp {
	const char *expr;
	char **v;
	size_t n, cap, max;
	char *err;
	size_t len;
};

__attribute__((format(printf, 4, 5)))
static int bad(struct exp *e, const char *at, int ret, const char *fmt, ...)
{
	va_list ap;
	int o;

	o = snprintf(e->err, e->len, "hostlist \"%s\", offset %td: ", e->expr,
		     at - e->expr);
	if (o >= 0 && (size_t)o < e->len) {
		va_start(ap, fmt);
		vsnprintf(e->err + o, e->len - o, fmt, ap);
		va_end(ap);
	}
	return ret;
}

static int push(struct exp *e, const char *name, size_t l)
{
	char *s;

	if (e->n >= e->max)
		return bad(e, e->expr, -E2BIG, "more than %zu names", e->max);
	if (tio_grow((void **)&e->v, &e->cap, e->n + 1, sizeof(*e->v)))
		return -ENOMEM;
	s = strndup(name, l);
	if (!s)
		return -ENOMEM;
	e->v[e->n++] = s;
	return 0;
}

static bool name_char(char c)
{
	return c > ' ' && c != '[' && c != ']' && c != ',' && c != 0x7f;
}

/*
 * Append the names of term t (up to end) to e, each after buf[0..plen),
 * one bracket per recursion level.
 */
static int term(struct exp *e, char *buf, size_t plen, const char *t,
		const char *end)
{
	const char *open, *close, *p, *q;
	unsigned long lo, hi, v;
	size_t lit, w;
	int ret;

	for (open = t; open < end && *open != '['; open++)
		if (!name_char(*open))
			return bad(e, open, -EINVAL, "'%c' in a name", *open);
	lit = open - t;
	if (plen + lit > POOL_HOST_NAME_MAX)
		return bad(e, t, -EINVAL, "name longer than %d",
			   POOL_HOST_NAME_MAX);
	memcpy(buf + plen, t, lit);
	if (open == end) {
		if (!plen && !lit)
			return bad(e, t, -EINVAL, "empty name");
		return push(e, buf, plen + lit);
	}
	for (close = open + 1; close < end && *close != ']'; close++)
		if (*close == '[')
			return bad(e, close, -EINVAL, "nested '['");
	if (close == end)
		return bad(e, open, -EINVAL, "'[' without ']'");
	for (p = open + 1; p <= close; p = q + 1) {
		q = p;
		if (!tio_dec(&q, NUM_MAX, &lo))
			return bad(e, p, -EINVAL, "expected a number");
		w = q - p;
		hi = lo;
		if (*q == '-') {
			p = ++q;
			if (!tio_dec(&q, NUM_MAX, &hi))
				return bad(e, p, -EINVAL, "expected a number");
			if (hi < lo)
				return bad(e, p, -EINVAL, "range %lu-%lu runs backwards",
					   lo, hi);
		}
		if (*q != ',' && *q != ']')
			return bad(e, q, -EINVAL, "expected ',', '-' or ']'");
		for (v = lo; v <= hi; v++) {
			char num[16];
			int k = snprintf(num, sizeof(num), "%0*lu", (int)w, v);

			if (plen + lit + k > POOL_HOST_NAME_MAX)
				return bad(e, open, -EINVAL, "name longer than %d",
					   POOL_HOST_NAME_MAX);
			memcpy(buf + plen + lit, num, k);
			ret = term(e, buf, plen + lit + k, close + 1, end);
			if (ret)
				return ret;
		}
	}
	return 0;
}

void pool_hostlist_free(char **names, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		free(names[i]);
	free(names);
}

int pool_hostlist_expand(const char *expr, size_t max, char ***names,
			 size_t *n, char *err, size_t len)
{
	struct exp e = { .expr = expr, .max = max, .err = err, .len = len };
	char buf[POOL_HOST_NAME_MAX + 1];
	const char *t = expr, *p;
	int depth = 0, ret = 0;

	*names = NULL;
	*n = 0;
	for (p = expr;; p++) {
		if (*p == '[')
			depth++;
		else if (*p == ']' && --depth < 0)
			ret = bad(&e, p, -EINVAL, "']' without '['");
		else if ((*p == ',' && !depth) || !*p)
			ret = term(&e, buf, 0, t, p);
		if (ret || !*p)
			break;
		if (*p == ',' && !depth)
			t = p + 1;
	}
	if (ret) {
		if (ret == -ENOMEM)
			snprintf(err, len, "out of memory");
		pool_hostlist_free(e.v, e.n);
		return ret;
	}
	*names = e.v;
	*n = e.n;
	return 0;
}

/* A name split into prefix and trailing number, for compression. */
struct split {
	const char *name;
	size_t plen;		/* prefix length; the digits follow */
	size_t dlen;		/* 0: no trailing number */
	unsigned long v;
};

static int cmp_split(const void *a, const void *b)
{
	const struct split *x = a, *y = b;
	size_t l = x->plen < y->plen ? x->plen : y->plen;
	int c = memcmp(x->name, y->name, l);

	if (c)
		return c;
	if (x->plen != y->plen)
		return x->plen < y->plen ? -1 : 1;
	if (x->v != y->v)
		return x->v < y->v ? -1 : 1;
	return x->dlen < y->dlen ? -1 : x->dlen > y->dlen;
}

static bool same_prefix(const struct split *a, const struct split *b)
{
	return a->dlen && b->dlen && a->plen == b->plen &&
	       !memcmp(a->name, b->name, a->plen);
}

/* b continues a range that starts at lo and ends at a. */
static bool continues(const struct split *lo, const struct split *a,
		      const struct split *b)
{
	char num[16];

	if (!same_prefix(a, b) || b->v != a->v + 1)
		return false;
	snprintf(num, sizeof(num), "%0*lu", (int)lo->dlen, b->v);
	return strlen(num) == b->dlen;
}

struct sbuf {
	char *s;
	size_t n, cap;
};

__attribute__((format(printf, 2, 3)))
static int put(struct sbuf *b, const char *fmt, ...)
{
	va_list ap;
	int k;

	va_start(ap, fmt);
	k = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (tio_grow((void **)&b->s, &b->cap, b->n + k + 1, 1))
		return -ENOMEM;
	va_start(ap, fmt);
	vsnprintf(b->s + b->n, k + 1, fmt, ap);
	va_end(ap);
	b->n += k;
	return 0;
}

/* Write the names with one prefix, sp[0..cnt), as "prefix[r,r]". */
static int put_group(struct sbuf *b, const struct split *sp, size_t cnt)
{
	size_t i, j;
	int ret;

	if (cnt == 1)
		return put(b, "%s", sp->name);
	ret = put(b, "%.*s[", (int)sp->plen, sp->name);
	for (i = 0; !ret && i < cnt; i = j) {
		for (j = i + 1; j < cnt && continues(&sp[i], &sp[j - 1], &sp[j]);)
			j++;
		ret = put(b, "%s%.*s", i ? "," : "", (int)sp[i].dlen,
			  sp[i].name + sp[i].plen);
		if (!ret && j - i > 1)
			ret = put(b, "-%.*s", (int)sp[j - 1].dlen,
				  sp[j - 1].name + sp[j - 1].plen);
	}
	return ret ? ret : put(b, "]");
}

int pool_hostlist_compress(char *const *names, size_t n, char **out)
{
	struct sbuf b = { 0 };
	struct split *sp;
	size_t i, j, k, l;
	int ret = 0;

	*out = NULL;
	sp = calloc(n + 1, sizeof(*sp));
	if (!sp)
		return -ENOMEM;
	for (i = 0; i < n; i++) {
		const char *s = names[i];

		l = strlen(s);
		for (k = l; k > 0 && isdigit((unsigned char)s[k - 1]); k--)
			;
		sp[i].name = s;
		sp[i].plen = l;
		/* Longer numbers than NUM_MAX stay part of the prefix. */
		if (l - k && l - k <= 9) {
			sp[i].plen = k;
			sp[i].dlen = l - k;
			sp[i].v = strtoul(s + k, NULL, 10);
		}
	}
	qsort(sp, n, sizeof(*sp), cmp_split);
	for (i = k = 0; i < n; i++)	/* drop duplicates */
		if (!k || strcmp(sp[k - 1].name, sp[i].name))
			sp[k++] = sp[i];
	ret = put(&b, "%s", "");
	for (i = 0; !ret && i < k; i = j) {
		for (j = i + 1; j < k && same_prefix(&sp[i], &sp[j]); j++)
			;
		if (i)
			ret = put(&b, ",");
		if (!ret)
			ret = put_group(&b, sp + i, j - i);
	}
	free(sp);
	if (ret) {
		free(b.s);
		return ret;
	}
	*out = b.s;
	return 0;
}
