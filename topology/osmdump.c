// SPDX-License-Identifier: MIT
/*
 * Parser for opensm-subnet.lst: one line per linked port, near end first,
 * "{ SW Ports:.. NodeGUID:.. .. {desc} LID:.. PN:.. } { far end } PHY=..".
 */
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "osmdump.h"
#include "textio.h"

/* One end of a link as a line prints it; desc points into the line. */
struct end {
	uint64_t sysguid, guid, pguid;
	const char *desc;
	unsigned int type, nports, lid, pn;
};

/* Where each port was seen, for messages and the both-ends check. */
struct seen {
	uint32_t near;		/* line with the port as near end, or 0 */
	uint32_t linked;	/* line that linked it, 0 none */
};

struct loader {
	struct tio_where at;	/* input name and line, error buffer */
	struct fabric *f;
	uint32_t *hash;		/* open addressing by node GUID: index+1 */
	size_t hcap;
	uint32_t *nline;	/* per node: line that first named it */
	size_t ncap;
	struct seen *seen;	/* per fabric port index */
	size_t scap;
};

/* "bad WHAT 'token'" with the token the parser stopped at. */
static int bad(struct loader *l, const char *what, const char *at)
{
	int len;

	at += strspn(at, " \t");
	len = strcspn(at, " \t}");

	if (!len)
		return tio_fail(&l->at, -EINVAL, "missing %s", what);
	return tio_fail(&l->at, -EINVAL, "bad %s '%.*s'", what, len > 40 ? 40 : len,
			at);
}


/* Skip blanks, then consume k; false (s unchanged) when k is not there. */
static bool key(char **s, const char *k)
{
	char *p = *s;
	size_t n = strlen(k);

	while (*p == ' ' || *p == '\t')
		p++;
	if (strncmp(p, k, n))
		return false;
	*s = p + n;
	return true;
}

/* "KEY:hex" with the value at most max. */
static int hexfield(struct loader *l, char **s, const char *k,
		    uint64_t max, uint64_t *v)
{
	if (!key(s, k))
		return bad(l, k, *s);
	if (!tio_hex((const char **)s, max, v))
		return bad(l, k, *s);
	return 0;
}

static int parse_end(struct loader *l, char **sp, struct end *e)
{
	char *s = *sp;
	uint64_t v;
	char *d;
	int ret;

	if (!key(&s, "{"))
		return bad(l, "link end", s);
	if (key(&s, "SW")) {
		e->type = FAB_SW;
	} else if (key(&s, "CA") || key(&s, "Rt")) {
		e->type = FAB_CA;
	} else {
		return bad(l, "node type", s);
	}
	if (!strncmp(s, "-SM", 3))
		s += 3;
	if ((ret = hexfield(l, &s, "Ports:", FAB_MAX_PORTS, &v)))
		return ret;
	if (!v)
		return tio_fail(&l->at, -EINVAL, "node without ports");
	e->nports = v;
	if ((ret = hexfield(l, &s, "SystemGUID:", UINT64_MAX, &e->sysguid)) ||
	    (ret = hexfield(l, &s, "NodeGUID:", UINT64_MAX, &e->guid)) ||
	    (ret = hexfield(l, &s, "PortGUID:", UINT64_MAX, &e->pguid)) ||
	    (ret = hexfield(l, &s, "VenID:", UINT32_MAX, &v)) ||
	    (ret = hexfield(l, &s, "DevID:", UINT32_MAX, &v)) ||
	    (ret = hexfield(l, &s, "Rev:", UINT32_MAX, &v)))
		return ret;
	if (!e->guid || !e->pguid)
		return tio_fail(&l->at, -EINVAL, "zero node or port GUID");
	if (!key(&s, "{"))
		return bad(l, "node description", s);
	/* Free text: it ends where "} LID:" starts; the line is ours. */
	d = strstr(s, "} LID:");
	if (!d)
		return tio_fail(&l->at, -EINVAL, "unterminated node description");
	*d = '\0';
	e->desc = s;
	s = d + 1;
	if ((ret = hexfield(l, &s, "LID:", UINT16_MAX, &v)))
		return ret;
	if (v > FAB_MAX_LID)
		return tio_fail(&l->at, -ERANGE, "LID 0x%04" PRIx64 " out of range", v);
	e->lid = v;
	if ((ret = hexfield(l, &s, "PN:", UINT8_MAX, &v)))
		return ret;
	if (v < 1 || v > e->nports)
		return tio_fail(&l->at, -EINVAL, "bad port %" PRIu64 " (node has %u)",
				v, e->nports);
	e->pn = v;
	if (!key(&s, "}"))
		return bad(l, "end of link end", s);
	*sp = s;
	return 0;
}

/* Match the word at *s against names[]; its index or -1. */
static int word(char **s, const char *const *names)
{
	size_t n = strcspn(*s, " \t");
	int i;

	for (i = 0; names[i]; i++)
		if (strlen(names[i]) == n && !strncmp(*s, names[i], n)) {
			*s += n;
			return i;
		}
	return -1;
}

/* "PHY=4x LOG=ACT SPD=2.5": lanes and per-lane rate in 100 Mb/s. */
static int parse_phy(struct loader *l, char *s, unsigned int *w,
		     unsigned int *sp)
{
	static const char *const widths[] = {
		"??", "1x", "2x", "4x", "8x", "12x", NULL
	};
	static const unsigned int lanes[] = { 0, 1, 2, 4, 8, 12 };
	static const char *const states[] = {
		"ACT", "ARM", "INI", "DWN", NULL
	};
	static const char *const speeds[] = {
		"??", "2.5", "5", "10", "FDR10", "14", "25", "50", NULL
	};
	static const unsigned int rates[] = { 0, 25, 50, 100, 100, 140, 250,
					      500 };
	int i;

	if (!key(&s, "PHY=") || (i = word(&s, widths)) < 0)
		return bad(l, "PHY", s);
	*w = lanes[i];
	if (!key(&s, "LOG=") || word(&s, states) < 0)
		return bad(l, "LOG", s);
	if (!key(&s, "SPD=") || (i = word(&s, speeds)) < 0)
		return bad(l, "SPD", s);
	*sp = rates[i];
	while (*s == ' ' || *s == '\t')
		s++;
	if (*s)
		return bad(l, "trailing text", s);
	return 0;
}


static size_t slot(uint64_t g, size_t cap)
{
	return (size_t)((g * 0x9e3779b97f4a7c15ull) >> 32) & (cap - 1);
}

static uint32_t find(const struct loader *l, uint64_t g)
{
	size_t j;

	if (!l->hcap)
		return FAB_NONE;
	for (j = slot(g, l->hcap); l->hash[j]; j = (j + 1) & (l->hcap - 1))
		if (l->f->nodes[l->hash[j] - 1].guid == g)
			return l->hash[j] - 1;
	return FAB_NONE;
}

static void hash_put(uint32_t *hash, size_t cap, uint64_t g, uint32_t v)
{
	size_t j;

	for (j = slot(g, cap); hash[j]; j = (j + 1) & (cap - 1))
		;
	hash[j] = v;
}

/* Add node n, the newest; the table stays at most half full. */
static int hash_add(struct loader *l, uint32_t n)
{
	size_t cap, i;
	uint32_t *h;

	if (l->hcap && (size_t)(n + 1) * 2 <= l->hcap) {
		hash_put(l->hash, l->hcap, l->f->nodes[n].guid, n + 1);
		return 0;
	}
	cap = l->hcap ? l->hcap * 2 : 256;
	h = calloc(cap, sizeof(*h));
	if (!h)
		return -ENOMEM;
	for (i = 0; i <= n; i++)
		hash_put(h, cap, l->f->nodes[i].guid, i + 1);
	free(l->hash);
	l->hash = h;
	l->hcap = cap;
	return 0;
}

static int new_node(struct loader *l, const struct end *e, uint32_t *out)
{
	struct fabric *f = l->f;
	int n, ret;

	n = fab_add_node(f, e->type, e->nports, e->guid, e->desc);
	if (n < 0)
		return tio_fail(&l->at, n, "cannot add node: %s", strerror(-n));
	f->nodes[n].sysguid = e->sysguid;
	if (e->type == FAB_SW) {
		fab_port(f, n, 0)->guid = e->pguid;
		fab_port(f, n, 0)->lid = e->lid;
	}
	ret = tio_grow((void **)&l->nline, &l->ncap, f->nnodes,
		       sizeof(*l->nline));
	if (!ret)
		ret = tio_grow((void **)&l->seen, &l->scap, f->nports,
			   sizeof(*l->seen));
	if (!ret)
		ret = hash_add(l, n);
	if (ret)
		return tio_fail(&l->at, ret, "out of memory");
	l->nline[n] = l->at.line;
	*out = n;
	return 0;
}

/* Find or add the node of e and check e against what earlier lines said. */
static int get_node(struct loader *l, const struct end *e, uint32_t *out)
{
	struct fabric *f = l->f;
	const struct fab_node *nd;
	struct fab_port *p;
	uint32_t n = find(l, e->guid);
	int ret;

	if (n == FAB_NONE) {
		if ((ret = new_node(l, e, &n)))
			return ret;
	} else {
		nd = &f->nodes[n];
		p = fab_port(f, n, 0);
		if (nd->type != e->type || nd->nports != e->nports ||
		    nd->sysguid != e->sysguid || strcmp(nd->desc, e->desc) ||
		    (e->type == FAB_SW &&
		     (p->guid != e->pguid || p->lid != e->lid)))
			return tio_fail(&l->at, -EINVAL,
					"node 0x%016" PRIx64 " differs from line %u",
					e->guid, l->nline[n]);
	}
	if (e->type == FAB_CA) {
		p = fab_port(f, n, e->pn);
		if (!p->guid) {
			p->guid = e->pguid;
			p->lid = e->lid;
		} else if (p->guid != e->pguid || p->lid != e->lid) {
			return tio_fail(&l->at, -EINVAL,
					"port 0x%016" PRIx64 "[%u] differs from line %u",
					e->guid, e->pn,
					l->seen[p - f->ports].linked);
		}
	}
	*out = n;
	return 0;
}

static int add_link(struct loader *l, uint32_t a, const struct end *ea,
		    uint32_t b, const struct end *eb, unsigned int w,
		    unsigned int sp)
{
	struct fabric *f = l->f;
	size_t ia = f->nodes[a].port0 + ea->pn;
	size_t ib = f->nodes[b].port0 + eb->pn;
	struct fab_port *x = &f->ports[ia], *y = &f->ports[ib];
	int ret;

	if (l->seen[ia].near)
		return tio_fail(&l->at, -EINVAL, "port 0x%016" PRIx64 "[%u] already listed on line %u",
				ea->guid, ea->pn, l->seen[ia].near);
	ret = fab_link(f, a, ea->pn, b, eb->pn, w, sp);
	if (ret == -EBUSY) {
		bool here = x->peer != FAB_NONE &&
			    (x->peer != b || x->peer_port != eb->pn);

		return tio_fail(&l->at, -EINVAL,
				"link 0x%016" PRIx64 "[%u] - 0x%016" PRIx64 "[%u] disagrees with line %u",
				ea->guid, ea->pn, eb->guid, eb->pn,
				here ? l->seen[ia].linked : l->seen[ib].linked);
	}
	if (ret)
		return tio_fail(&l->at, ret, "cannot link: %s", strerror(-ret));
	l->seen[ia].near = l->at.line;
	if (!l->seen[ia].linked)
		l->seen[ia].linked = l->seen[ib].linked = l->at.line;
	/* The two ends may print different rates; the first known wins. */
	if (!x->width)
		x->width = y->width = w;
	if (!x->speed)
		x->speed = y->speed = sp;
	return 0;
}

static int parse_line(struct loader *l, char *s)
{
	struct end a, b;
	unsigned int w = 0, sp = 0;
	uint32_t na, nb;
	int ret;

	if ((ret = parse_end(l, &s, &a)) || (ret = parse_end(l, &s, &b)) ||
	    (ret = parse_phy(l, s, &w, &sp)))
		return ret;
	if ((ret = get_node(l, &a, &na)) || (ret = get_node(l, &b, &nb)))
		return ret;
	return add_link(l, na, &a, nb, &b, w, sp);
}

/* OpenSM lists every link from both ends; one missing view is an error. */
static int check_ends(struct loader *l)
{
	const struct fabric *f = l->f;
	size_t n;
	unsigned int p;

	if (!f->nnodes)
		return tio_fail(&l->at, -EINVAL, "no links listed");
	for (n = 0; n < f->nnodes; n++) {
		const struct fab_node *nd = &f->nodes[n];

		for (p = 1; p <= nd->nports; p++) {
			const struct fab_port *x = fab_port(f, n, p);
			const struct seen *sn = &l->seen[nd->port0 + p];

			if (x->peer == FAB_NONE || sn->near)
				continue;
			l->at.line = sn->linked;
			return tio_fail(&l->at, -EINVAL,
					"link 0x%016" PRIx64 "[%u] - 0x%016" PRIx64 "[%u] listed from one end only",
					f->nodes[x->peer].guid, x->peer_port,
					nd->guid, p);
		}
	}
	return 0;
}

/* No two ports share a LID (LMC ranges are lftdump's to check). */
static int check_lids(struct loader *l)
{
	const struct fabric *f = l->f;
	uint32_t *taken = calloc(FAB_MAX_LID + 1, sizeof(*taken));
	unsigned int p, first, last;
	size_t n;
	int ret = 0;

	if (!taken)
		return tio_fail(&l->at, -ENOMEM, "out of memory");
	for (n = 0; n < f->nnodes && !ret; n++) {
		const struct fab_node *nd = &f->nodes[n];

		first = nd->type == FAB_SW ? 0 : 1;
		last = nd->type == FAB_SW ? 0 : nd->nports;
		for (p = first; p <= last; p++) {
			unsigned int lid = fab_port(f, n, p)->lid;

			if (!lid)
				continue;
			l->at.line = p ? l->seen[nd->port0 + p].linked :
				l->nline[n];
			if (taken[lid]) {
				ret = tio_fail(&l->at, -EINVAL,
					       "LID 0x%04x of 0x%016" PRIx64 "[%u] is taken on line %u",
					       lid, nd->guid, p, taken[lid]);
				break;
			}
			taken[lid] = l->at.line;
		}
	}
	free(taken);
	return ret;
}

static int parse_text(void *l, char *s)
{
	return parse_line(l, s);
}

int osmdump_load_stream(FILE *in, const char *name, struct fabric **out,
			char *err, size_t errlen)
{
	struct loader l = {
		.at = { .name = name, .err = err, .errlen = errlen },
	};
	int ret;

	*out = NULL;
	l.f = fab_new();
	if (!l.f)
		return tio_fail(&l.at, -ENOMEM, "out of memory");
	ret = tio_dump_lines(in, &l.at, parse_text, &l);
	if (!ret)
		ret = check_ends(&l);
	if (!ret)
		ret = check_lids(&l);
	free(l.hash);
	free(l.nline);
	free(l.seen);
	if (ret)
		fab_free(l.f);
	else
		*out = l.f;
	return ret;
}

int osmdump_load(const char *path, struct fabric **out, char *err,
		 size_t errlen)
{
	FILE *in = fopen(path, "r");
	int ret;

	if (!in) {
		ret = -errno;
		*out = NULL;
		snprintf(err, errlen, "%s: %s", path, strerror(-ret));
		return ret;
	}
	ret = osmdump_load_stream(in, path, out, err, errlen);
	fclose(in);
	return ret;
}
