// SPDX-License-Identifier: MIT
/* Switch names for the exports: node-name-map, NodeDescription or GUID. */
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "swname.h"
#include "topology/textio.h"

__attribute__((format(printf, 6, 7)))
static int map_error(char *err, size_t len, const char *path,
		     unsigned int line, int ret, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	tio_verror(err, len, path, line, ret, fmt, ap);
	va_end(ap);
	return ret;
}

bool pool_swname_valid(const char *s)
{
	size_t n = strlen(s), i;

	if (!n || n > POOL_SWNAME_MAX || !isalnum((unsigned char)s[0]) ||
	    !isalnum((unsigned char)s[n - 1]))
		return false;
	for (i = 0; i < n; i++)
		if (!isalnum((unsigned char)s[i]) && !strchr("-_.", s[i]))
			return false;
	return true;
}

void pool_swname_map_release(struct pool_swname_map *m)
{
	size_t i;

	for (i = 0; i < m->n; i++)
		free(m->name[i]);
	free(m->guid);
	free(m->name);
	memset(m, 0, sizeof(*m));
}

/*
 * One map line (newline gone) into guid and name (pointing into line,
 * quotes removed); 0 for a blank or comment line, 1 for an entry, or a
 * message in why.  A '#' starts a comment outside the name only.
 */
static int map_line(char *line, uint64_t *guid, char **name,
		    const char **why)
{
	char *p = line, *end, *q;

	while (isspace((unsigned char)*p))
		p++;
	if (!*p || *p == '#')
		return 0;
	errno = 0;
	*guid = strtoull(p, &end, 0);
	if (end == p || errno || !isspace((unsigned char)*end)) {
		*why = "expected a node GUID, then a quoted name";
		return -EINVAL;
	}
	while (isspace((unsigned char)*end))
		end++;
	if (*end != '"' || !(q = strchr(end + 1, '"'))) {
		*why = "expected a quoted name after the GUID";
		return -EINVAL;
	}
	*q = '\0';
	for (p = q + 1; isspace((unsigned char)*p); p++)
		;
	if (*p && *p != '#') {
		*why = "text after the quoted name";
		return -EINVAL;
	}
	*name = end + 1;
	return 1;
}

/* Sort m's entries by GUID (insertion by index, the file's size). */
static int map_sort(struct pool_swname_map *m, const char *path, char *err,
		    size_t len)
{
	size_t i, k;
	uint64_t g;
	char *s;

	for (i = 1; i < m->n; i++) {
		g = m->guid[i];
		s = m->name[i];
		for (k = i; k > 0 && m->guid[k - 1] > g; k--) {
			m->guid[k] = m->guid[k - 1];
			m->name[k] = m->name[k - 1];
		}
		m->guid[k] = g;
		m->name[k] = s;
	}
	for (i = 1; i < m->n; i++)
		if (m->guid[i] == m->guid[i - 1])
			return map_error(err, len, path, 0, -EINVAL,
					 "GUID 0x%016" PRIx64 " named twice",
					 m->guid[i]);
	return 0;
}

int pool_swname_map_load(const char *path, struct pool_swname_map *m,
			 char *err, size_t len)
{
	size_t cap = 0, ncap = 0, llen = 0;
	char *line = NULL, *name;
	unsigned int no = 0;
	const char *why;
	uint64_t guid;
	FILE *in;
	int ret = 0;

	memset(m, 0, sizeof(*m));
	in = fopen(path, "r");
	if (!in)
		return map_error(err, len, path, 0, -errno, "%s",
				 strerror(errno));
	while (!ret && getline(&line, &llen, in) >= 0) {
		no++;
		line[strcspn(line, "\r\n")] = '\0';
		ret = map_line(line, &guid, &name, &why);
		if (ret < 0) {
			map_error(err, len, path, no, ret, "%s", why);
			break;
		}
		if (!ret)
			continue;
		if (!pool_swname_valid(name)) {
			ret = map_error(err, len, path, no, -EINVAL,
					"name '%s' is not 1..%d of A-Z a-z 0-9 - _ . starting and ending with a letter or digit",
					name, POOL_SWNAME_MAX);
			break;
		}
		ret = tio_grow((void **)&m->guid, &cap, m->n + 1,
			       sizeof(*m->guid));
		ret = ret ? ret : tio_grow((void **)&m->name, &ncap, m->n + 1,
					   sizeof(*m->name));
		if (!ret && !(m->name[m->n] = strdup(name)))
			ret = -ENOMEM;
		if (ret) {
			map_error(err, len, path, no, ret, "out of memory");
			break;
		}
		m->guid[m->n++] = guid;
	}
	if (!ret && ferror(in))
		ret = map_error(err, len, path, no, -EIO, "read error");
	free(line);
	fclose(in);
	if (!ret)
		ret = map_sort(m, path, err, len);
	if (ret)
		pool_swname_map_release(m);
	return ret;
}

static const char *map_find(const struct pool_swname_map *m, uint64_t guid)
{
	size_t lo = 0, hi = m ? m->n : 0, mid;

	while (lo < hi) {
		mid = (lo + hi) / 2;
		if (m->guid[mid] == guid)
			return m->name[mid];
		if (m->guid[mid] < guid)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

void pool_swname_free(char **names, size_t n)
{
	size_t i;

	for (i = 0; names && i < n; i++)
		free(names[i]);
	free(names);
}

/* Whether another switch of f has n's description. */
static bool shared_desc(const struct fabric *f, uint32_t n)
{
	uint32_t k;

	for (k = 0; k < f->nnodes; k++)
		if (k != n && fab_is_sw(f, k) && f->nodes[k].desc &&
		    !strcmp(f->nodes[k].desc, f->nodes[n].desc))
			return true;
	return false;
}

int pool_swname_build(const struct fabric *f, const struct pool_swname_map *m,
		      char ***names)
{
	char **v = calloc(f->nnodes + 1, sizeof(*v)), guid[20];
	const char *d, *s;
	uint32_t n;

	*names = NULL;
	if (!v)
		return -ENOMEM;
	for (n = 0; n < f->nnodes; n++) {
		if (!fab_is_sw(f, n))
			continue;
		d = f->nodes[n].desc;
		snprintf(guid, sizeof(guid), "0x%016" PRIx64,
			 f->nodes[n].guid);
		s = map_find(m, f->nodes[n].guid);
		if (!s)
			s = d && pool_swname_valid(d) && !shared_desc(f, n) ?
			    d : guid;
		v[n] = strdup(s);
		if (!v[n]) {
			pool_swname_free(v, f->nnodes);
			return -ENOMEM;
		}
	}
	*names = v;
	return 0;
}
