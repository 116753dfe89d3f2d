// SPDX-License-Identifier: MIT
/*
 * Parsers for OpenSM's opensm-lfts.dump (one "Unicast lids" table per
 * switch) and opensm-sl2vl.dump (one SL2VL block per port).
 */
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "../topology/textio.h"
#include "lftdump.h"

struct swkey {
	uint64_t guid;
	uint32_t node;
};

/* What the LFT dump said, kept until the tables can be sized. */
struct loader {
	struct tio_where at;	/* input name and line, error buffer */
	struct fabric *f;
	struct swkey *keys;	/* switches sorted by GUID */
	size_t nkeys;
	uint8_t **row;		/* per node: the switch's entries or NULL */
	unsigned int *rlen;	/* per node: entries in row */
	uint32_t *tline;	/* per node: line of its table header */
	uint64_t *owner;	/* per LID: port GUID the comments name, 0 */
	uint32_t *oline;	/* per LID: line of the first such comment */
	size_t ocap;
	uint32_t cur;		/* node whose table is open, FAB_NONE */
	unsigned int cur_max;	/* last LID of the open table */
	int prev;		/* last LID read in it, -1 none */
};

static int tok_len(const char *at)
{
	int len = strcspn(at, " \t:");

	return len > 40 ? 40 : len;
}



static bool lit(const char **s, const char *k)
{
	size_t n = strlen(k);

	if (strncmp(*s, k, n))
		return false;
	*s += n;
	return true;
}

static void skip_blank(const char **s)
{
	while (**s == ' ' || **s == '\t')
		(*s)++;
}

static int cmp_key(const void *a, const void *b)
{
	const struct swkey *x = a, *y = b;

	return x->guid < y->guid ? -1 : x->guid > y->guid;
}

/* Switches of f sorted by node GUID (port0 false) or port 0 GUID. */
static int make_keys(const struct fabric *f, bool port0, struct swkey **out)
{
	struct swkey *k = calloc(f->nsw ? f->nsw : 1, sizeof(*k));
	size_t n, i = 0;

	if (!k)
		return -ENOMEM;
	for (n = 0; n < f->nnodes && i < f->nsw; n++) {
		if (!fab_is_sw(f, n))
			continue;
		k[i].guid = port0 ? fab_port(f, n, 0)->guid : f->nodes[n].guid;
		k[i++].node = n;
	}
	qsort(k, i, sizeof(*k), cmp_key);
	*out = k;
	return 0;
}

static uint32_t find_sw(const struct swkey *keys, size_t n, uint64_t guid)
{
	struct swkey k = { .guid = guid };
	const struct swkey *hit = bsearch(&k, keys, n, sizeof(k), cmp_key);

	return hit ? hit->node : FAB_NONE;
}

/* Port GUID of the port that owns a LID: port 0 for switches. */
static uint64_t port_guid(const struct fabric *f, uint32_t n, unsigned int p)
{
	return fab_lid_port(f, n, p)->guid;
}

static int grow_owner(struct loader *l, size_t need)
{
	size_t n = l->ocap ? l->ocap : 256;
	uint64_t *o;
	uint32_t *ol;

	if (need <= l->ocap)
		return 0;
	while (n < need)
		n *= 2;
	o = realloc(l->owner, n * sizeof(*o));
	if (!o)
		return -ENOMEM;
	l->owner = o;
	ol = realloc(l->oline, n * sizeof(*ol));
	if (!ol)
		return -ENOMEM;
	l->oline = ol;
	memset(o + l->ocap, 0, (n - l->ocap) * sizeof(*o));
	memset(ol + l->ocap, 0, (n - l->ocap) * sizeof(*ol));
	l->ocap = n;
	return 0;
}

/* "Unicast lids [0-MAX] of switch Lid LID guid 0xGUID ('desc'):" */
static int parse_header(struct loader *l, const char *s)
{
	const struct fabric *f = l->f;
	unsigned long max, lid;
	uint64_t guid;
	uint32_t n;
	size_t len;
	int ret;

	if (l->cur != FAB_NONE)
		return tio_fail(&l->at, -EINVAL, "table of switch 0x%016" PRIx64 " (line %u) is not terminated",
				f->nodes[l->cur].guid, l->tline[l->cur]);
	if (!lit(&s, "Unicast lids [0-") || !tio_dec(&s, ULONG_MAX, &max))
		return tio_fail(&l->at, -EINVAL, "bad table header");
	if (max > FAB_MAX_LID)
		return tio_fail(&l->at, -ERANGE, "LID %lu out of range", max);
	if (!lit(&s, "] of switch Lid ") || !tio_dec(&s, UINT16_MAX, &lid) ||
	    !lit(&s, " guid 0x") || !tio_hex(&s, UINT64_MAX, &guid) ||
	    !lit(&s, " ('"))
		return tio_fail(&l->at, -EINVAL, "bad table header");
	len = strlen(s);
	if (len < 3 || strcmp(s + len - 3, "'):"))
		return tio_fail(&l->at, -EINVAL, "bad table header");
	n = find_sw(l->keys, l->nkeys, guid);
	if (n == FAB_NONE)
		return tio_fail(&l->at, -ENOENT, "unknown switch GUID 0x%016" PRIx64,
				guid);
	if (l->row[n])
		return tio_fail(&l->at, -EINVAL, "second table for switch 0x%016" PRIx64 " (first on line %u)",
				guid, l->tline[n]);
	if (lid != fab_port(f, n, 0)->lid)
		return tio_fail(&l->at, -EINVAL, "switch 0x%016" PRIx64 " has LID %lu here but %u in the subnet",
				guid, lid, fab_port(f, n, 0)->lid);
	l->row[n] = malloc(max + 1);
	if (!l->row[n] || (ret = grow_owner(l, max + 1)))
		return tio_fail(&l->at, -ENOMEM, "out of memory");
	memset(l->row[n], RT_NO_PATH, max + 1);
	l->rlen[n] = max + 1;
	l->tline[n] = l->at.line;
	l->cur = n;
	l->cur_max = max;
	l->prev = -1;
	return 0;
}

/* "0xLID PORT # Type portguid 0xGUID: 'desc'" or "# unknown node ..." */
static int parse_entry(struct loader *l, const char *s)
{
	const struct fab_node *nd;
	unsigned long port;
	uint64_t lid, guid = 0;
	const char *c;

	if (l->cur == FAB_NONE)
		return tio_fail(&l->at, -EINVAL, "LFT entry outside a switch table");
	nd = &l->f->nodes[l->cur];
	s += 2;
	if (!tio_hex(&s, UINT16_MAX, &lid) || (*s != ' ' && *s != '\t'))
		return tio_fail(&l->at, -EINVAL, "bad LID '0x%.*s'", tok_len(s), s);
	if (lid > l->cur_max)
		return tio_fail(&l->at, -ERANGE, "LID 0x%04" PRIx64 " out of range (table ends at 0x%04x)",
				lid, l->cur_max);
	if ((int)lid <= l->prev)
		return tio_fail(&l->at, -EINVAL, "LID 0x%04" PRIx64 " out of order",
				lid);
	skip_blank(&s);
	if (!tio_dec(&s, UINT8_MAX, &port) || (*s && *s != ' ' && *s != '\t'))
		return tio_fail(&l->at, -EINVAL, "bad port '%.*s'", tok_len(s), s);
	if (port > nd->nports)
		return tio_fail(&l->at, -EINVAL, "bad port '%lu' (switch has %u)", port,
				nd->nports);
	skip_blank(&s);
	if (!lit(&s, "#"))
		return tio_fail(&l->at, -EINVAL, "missing '#' comment");
	skip_blank(&s);
	c = strstr(s, "portguid 0x");
	if (c) {
		c += strlen("portguid 0x");
		if (!tio_hex(&c, UINT64_MAX, &guid) || !guid)
			return tio_fail(&l->at, -EINVAL, "bad port GUID '%.*s'",
					tok_len(c), c);
	} else if (strcmp(s, "unknown node and type")) {
		return tio_fail(&l->at, -EINVAL, "bad comment '%.*s'", tok_len(s), s);
	}
	l->row[l->cur][lid] = port;
	l->prev = lid;
	if (!guid)
		return 0;
	if (!l->owner[lid]) {
		l->owner[lid] = guid;
		l->oline[lid] = l->at.line;
	} else if (l->owner[lid] != guid) {
		return tio_fail(&l->at, -EINVAL, "LID 0x%04" PRIx64 " belongs to 0x%016" PRIx64 " here but to 0x%016" PRIx64 " on line %u",
				lid, guid, l->owner[lid], l->oline[lid]);
	}
	return 0;
}

/* "MAX lids dumped" closes a table. */
static int parse_trailer(struct loader *l, const char *s)
{
	unsigned long cnt;

	if (!tio_dec(&s, ULONG_MAX, &cnt) || strcmp(s, " lids dumped"))
		return tio_fail(&l->at, -EINVAL, "unexpected line");
	if (l->cur == FAB_NONE)
		return tio_fail(&l->at, -EINVAL, "trailer outside a switch table");
	if (cnt != l->cur_max)
		return tio_fail(&l->at, -EINVAL, "trailer says %lu LIDs, header %u",
				cnt, l->cur_max);
	l->cur = FAB_NONE;
	return 0;
}

static int parse_line(struct loader *l, const char *s)
{
	if (!strncmp(s, "Unicast lids", 12))
		return parse_header(l, s);
	if (!strncmp(s, "0x", 2))
		return parse_entry(l, s);
	return parse_trailer(l, s);
}

/* LIDs routed to port (n, p) from its base on: 2^LMC when all are. */
static unsigned int span(const struct loader *l, uint32_t n, unsigned int p)
{
	const struct fab_port *fp = fab_lid_port(l->f, n, p);
	uint64_t g = port_guid(l->f, n, p);
	unsigned int k = 1;

	while (fp->lid + k < l->ocap && k < 256 && l->owner[fp->lid + k] == g)
		k++;
	return k;
}

static int lmc_of(unsigned int k)
{
	int lmc = 0;

	while ((1u << lmc) < k)
		lmc++;
	return (1u << lmc) == k && lmc <= 7 ? lmc : -1;
}

/*
 * OpenSM gives every CA port the same LMC (switch port 0 its own), so the
 * widest LID range routed to any CA port is the CAs' LMC; a port whose
 * later LIDs are unrouted still gets them and shows up as holes.
 */
static int infer_lmc(struct loader *l)
{
	struct fabric *f = l->f;
	unsigned int p, k, camax = 1;
	int lmc, calmc;
	size_t n;

	for (n = 0; n < f->nnodes; n++) {
		if (fab_is_sw(f, n)) {
			struct fab_port *p0 = fab_port(f, n, 0);

			if (!p0->lid)
				continue;
			k = span(l, n, 0);
			if ((lmc = lmc_of(k)) < 0 || p0->lid & (k - 1))
				return tio_fail(&l->at, -EINVAL, "switch 0x%016" PRIx64 " has %u LIDs from 0x%04x: not an LMC range",
						f->nodes[n].guid, k, p0->lid);
			p0->lmc = lmc;
			continue;
		}
		for (p = 1; p <= f->nodes[n].nports; p++) {
			if (!fab_port(f, n, p)->lid)
				continue;
			k = span(l, n, p);
			if (k > camax)
				camax = k;
		}
	}
	if ((calmc = lmc_of(camax)) < 0)
		return tio_fail(&l->at, -EINVAL, "CA ports have %u LIDs: not an LMC range",
				camax);
	for (n = 0; n < f->nnodes; n++) {
		if (fab_is_sw(f, n))
			continue;
		for (p = 1; p <= f->nodes[n].nports; p++) {
			struct fab_port *cp = fab_port(f, n, p);

			if (!cp->lid)
				continue;
			if (cp->lid & (camax - 1))
				return tio_fail(&l->at, -EINVAL, "port 0x%016" PRIx64 " base LID 0x%04x is not aligned to LMC %d",
						cp->guid, cp->lid, calmc);
			cp->lmc = calmc;
		}
	}
	return 0;
}

/* Every LID a comment names must be that port's LID in the fabric too. */
static int check_owners(struct loader *l, const struct rt_tables *t)
{
	unsigned int lid;
	uint64_t g;

	for (lid = 0; lid < l->ocap; lid++) {
		if (!l->owner[lid])
			continue;
		g = 0;
		if (lid <= t->top && t->lid_node[lid] != FAB_NONE)
			g = port_guid(l->f, t->lid_node[lid], t->lid_port[lid]);
		if (g == l->owner[lid])
			continue;
		l->at.line = l->oline[lid];
		if (!g)
			return tio_fail(&l->at, -EINVAL, "LID 0x%04x of port 0x%016" PRIx64 " is not in the subnet",
					lid, l->owner[lid]);
		return tio_fail(&l->at, -EINVAL, "LID 0x%04x belongs to 0x%016" PRIx64 " here but to 0x%016" PRIx64 " in the subnet",
				lid, l->owner[lid], g);
	}
	return 0;
}

static int finish(struct loader *l, struct rt_tables *t)
{
	const struct fabric *f = l->f;
	uint32_t s, n;
	unsigned int len;
	int ret;

	for (n = 0; n < f->nnodes; n++)
		if (fab_is_sw(f, n) && !l->row[n])
			return tio_fail(&l->at, -ENOENT, "no table for switch 0x%016" PRIx64 " ('%s')",
					f->nodes[n].guid, f->nodes[n].desc);
	if ((ret = grow_owner(l, 1)) || (ret = infer_lmc(l)))
		return ret == -ENOMEM ? tio_fail(&l->at, ret, "out of memory") : ret;
	if ((ret = rt_tables_init(t, f)))
		return tio_fail(&l->at, ret, "out of memory");
	if ((ret = check_owners(l, t))) {
		rt_tables_release(t);
		return ret;
	}
	for (s = 0; s < t->nsw; s++) {
		n = t->sw_node[s];
		len = l->rlen[n] < t->top + 1 ? l->rlen[n] : t->top + 1;
		memcpy(rt_lft(t, s), l->row[n], len);
	}
	return 0;
}

static int parse_text(void *l, char *s)
{
	return parse_line(l, s);
}

int lftdump_load_stream(FILE *in, const char *name, struct fabric *f,
			struct rt_tables *t, char *err, size_t errlen)
{
	struct loader l = {
		.at = { .name = name, .err = err, .errlen = errlen }, .f = f,
		.cur = FAB_NONE,
	};
	size_t n;
	int ret;

	memset(t, 0, sizeof(*t));
	l.row = calloc(f->nnodes ? f->nnodes : 1, sizeof(*l.row));
	l.rlen = calloc(f->nnodes ? f->nnodes : 1, sizeof(*l.rlen));
	l.tline = calloc(f->nnodes ? f->nnodes : 1, sizeof(*l.tline));
	if (!l.row || !l.rlen || !l.tline ||
	    make_keys(f, false, &l.keys)) {
		ret = tio_fail(&l.at, -ENOMEM, "out of memory");
		goto out;
	}
	l.nkeys = f->nsw;
	ret = tio_dump_lines(in, &l.at, parse_text, &l);
	if (ret)
		goto out;
	if (l.cur != FAB_NONE) {
		ret = tio_fail(&l.at, -EINVAL, "truncated table of switch 0x%016" PRIx64,
			       f->nodes[l.cur].guid);
		goto out;
	}
	ret = finish(&l, t);
out:
	if (l.row)
		for (n = 0; n < f->nnodes; n++)
			free(l.row[n]);
	free(l.row);
	free(l.rlen);
	free(l.tline);
	free(l.keys);
	free(l.owner);
	free(l.oline);
	return ret;
}

int lftdump_load(const char *path, struct fabric *f, struct rt_tables *t,
		 char *err, size_t errlen)
{
	FILE *in = fopen(path, "r");
	int ret;

	if (!in) {
		ret = -errno;
		memset(t, 0, sizeof(*t));
		snprintf(err, errlen, "%s: %s", path, strerror(-ret));
		return ret;
	}
	ret = lftdump_load_stream(in, path, f, t, err, errlen);
	fclose(in);
	return ret;
}

/* SL2VL: 16 VL nibbles per (switch, in, out), SL 0 in the low bits. */
struct vltab {
	struct rt_vl vl;	/* handed out; vl.ctx points back here */
	size_t *base;		/* per switch: index of its (0, 0) entry */
	uint16_t *np;		/* per switch: ports + 1 */
	uint64_t *ent;
};

#define VL_UNSET UINT64_MAX	/* every SL to VL 15 */

static uint8_t vt_path_sl(const struct rt_tables *t, unsigned int slid,
			  unsigned int dlid)
{
	(void)t;
	(void)slid;
	(void)dlid;
	return 0;
}

static uint8_t vt_sl2vl(const struct rt_tables *t, uint32_t sw,
			unsigned int in, unsigned int out, unsigned int sl)
{
	const struct vltab *v = t->vl->ctx;
	unsigned int np = v->np[sw];

	if (in >= np || out >= np || sl > 15)
		return 15;
	return v->ent[v->base[sw] + (size_t)in * np + out] >> (4 * sl) & 0xf;
}

void lftdump_vl_free(struct rt_vl *vl)
{
	struct vltab *v;

	if (!vl)
		return;
	v = vl->ctx;
	free(v->base);
	free(v->np);
	free(v->ent);
	free(v);
}

static struct vltab *vt_new(const struct rt_tables *t)
{
	struct vltab *v = calloc(1, sizeof(*v));
	size_t total = 0, i;
	uint32_t s;

	if (!v)
		return NULL;
	v->vl.nvl = 1;
	v->vl.path_sl = vt_path_sl;
	v->vl.switch_sl = true;
	v->vl.sl2vl = vt_sl2vl;
	v->vl.ctx = v;
	v->base = calloc(t->nsw ? t->nsw : 1, sizeof(*v->base));
	v->np = calloc(t->nsw ? t->nsw : 1, sizeof(*v->np));
	if (!v->base || !v->np)
		goto fail;
	for (s = 0; s < t->nsw; s++) {
		v->np[s] = t->fab->nodes[t->sw_node[s]].nports + 1;
		v->base[s] = total;
		total += (size_t)v->np[s] * v->np[s];
	}
	v->ent = malloc((total ? total : 1) * sizeof(*v->ent));
	if (!v->ent)
		goto fail;
	for (i = 0; i < total; i++)
		v->ent[i] = VL_UNSET;
	return v;
fail:
	lftdump_vl_free(&v->vl);
	return NULL;
}

#define VL_NONE (-2)	/* no block open */
#define VL_CA (-1)	/* a CA's or router's block: read, not kept */

struct vloader {
	struct tio_where at;	/* input name and line, error buffer */
	const struct rt_tables *t;
	struct vltab *v;
	struct swkey *keys;	/* switches sorted by port 0 GUID */
	uint32_t *hline;	/* per switch: line of its block, 0 none */
	int64_t cur;		/* switch of the open block, VL_CA, VL_NONE */
};

/* "Switch 0xGUID, base LID N, "desc"" (port GUID, decimal LID). */
static int vl_header(struct vloader *l, const char *s)
{
	static const char *const types[] = {
		"Switch ", "Channel Adapter ", "Router ", "UNKNOWN ", NULL
	};
	const struct fabric *f = l->t->fab;
	unsigned long lid;
	uint64_t guid;
	uint32_t n, sw;
	int i;

	for (i = 0; types[i]; i++)
		if (lit(&s, types[i]))
			break;
	if (!types[i] || !lit(&s, "0x") || !tio_hex(&s, UINT64_MAX, &guid) ||
	    !lit(&s, ", base LID ") || !tio_dec(&s, UINT16_MAX, &lid) ||
	    !lit(&s, ", \"") || !*s || s[strlen(s) - 1] != '"')
		return tio_fail(&l->at, -EINVAL, "bad SL2VL header");
	if (i) {
		l->cur = VL_CA;
		return 0;
	}
	n = find_sw(l->keys, l->t->nsw, guid);
	if (n == FAB_NONE)
		return tio_fail(&l->at, -ENOENT, "unknown switch port GUID 0x%016" PRIx64,
				guid);
	sw = l->t->node_sw[n];
	if (l->hline[sw])
		return tio_fail(&l->at, -EINVAL, "second SL2VL block for switch 0x%016" PRIx64 " (first on line %u)",
				guid, l->hline[sw]);
	if (lid != fab_port(f, n, 0)->lid)
		return tio_fail(&l->at, -EINVAL, "switch 0x%016" PRIx64 " has LID %lu here but %u in the subnet",
				guid, lid, fab_port(f, n, 0)->lid);
	l->hline[sw] = l->at.line;
	l->cur = sw;
	return 0;
}

/* "IN  OUT : vl0 vl1 ... vl15" */
static int vl_row(struct vloader *l, const char *s)
{
	unsigned long in, out, vl;
	uint64_t e = 0;
	unsigned int np, sl;

	if (l->cur == VL_NONE)
		return tio_fail(&l->at, -EINVAL, "SL2VL row outside a port block");
	if (!tio_dec(&s, UINT8_MAX, &in))
		return tio_fail(&l->at, -EINVAL, "bad port '%.*s'", tok_len(s), s);
	skip_blank(&s);
	if (!tio_dec(&s, UINT8_MAX, &out))
		return tio_fail(&l->at, -EINVAL, "bad port '%.*s'", tok_len(s), s);
	skip_blank(&s);
	if (!lit(&s, ":"))
		return tio_fail(&l->at, -EINVAL, "missing ':'");
	for (sl = 0; sl < 16; sl++) {
		skip_blank(&s);
		if (!tio_dec(&s, 15, &vl))
			return tio_fail(&l->at, -EINVAL, "bad VL '%.*s' for SL %u",
					tok_len(s), s, sl);
		e |= (uint64_t)vl << (4 * sl);
	}
	skip_blank(&s);
	if (*s)
		return tio_fail(&l->at, -EINVAL, "trailing text '%.*s'", tok_len(s),
				s);
	if (l->cur == VL_CA)
		return 0;
	np = l->v->np[l->cur];
	if (in >= np || out >= np)
		return tio_fail(&l->at, -EINVAL, "bad port %lu/%lu (switch has %u)", in,
				out, np - 1);
	l->v->ent[l->v->base[l->cur] + in * np + out] = e;
	return 0;
}

/* VLs that SL 0 (every path's SL) uses between linked ports. */
static unsigned int vl_count(const struct rt_tables *t, const struct vltab *v)
{
	const struct fabric *f = t->fab;
	unsigned int in, out, np, vl, nvl = 1;
	uint32_t s;

	for (s = 0; s < t->nsw; s++) {
		uint32_t n = t->sw_node[s];

		np = v->np[s];
		for (in = 1; in < np; in++) {
			if (fab_port(f, n, in)->peer == FAB_NONE)
				continue;
			for (out = 1; out < np; out++) {
				if (fab_port(f, n, out)->peer == FAB_NONE)
					continue;
				vl = v->ent[v->base[s] + in * np + out] & 0xf;
				if (vl + 1 > nvl)
					nvl = vl + 1;
			}
		}
	}
	return nvl;
}

static int vl_text(void *ctx, char *s)
{
	/* Column headers and separators are comments. */
	if (s[0] == '#')
		return 0;
	return isdigit((unsigned char)s[0]) ? vl_row(ctx, s) :
					      vl_header(ctx, s);
}

int lftdump_load_sl2vl_stream(FILE *in, const char *name,
			      const struct rt_tables *t, struct rt_vl **out,
			      char *err, size_t errlen)
{
	struct vloader l = {
		.at = { .name = name, .err = err, .errlen = errlen }, .t = t,
		.cur = VL_NONE,
	};
	uint32_t s;
	int ret;

	*out = NULL;
	l.v = vt_new(t);
	l.hline = calloc(t->nsw ? t->nsw : 1, sizeof(*l.hline));
	if (!l.v || !l.hline || make_keys(t->fab, true, &l.keys)) {
		ret = tio_fail(&l.at, -ENOMEM, "out of memory");
		goto out;
	}
	ret = tio_dump_lines(in, &l.at, vl_text, &l);
	if (ret)
		goto out;
	for (s = 0; s < t->nsw; s++) {
		const struct fab_node *nd = &t->fab->nodes[t->sw_node[s]];

		if (!l.hline[s]) {
			ret = tio_fail(&l.at, -ENOENT, "no SL2VL block for switch 0x%016" PRIx64 " ('%s')",
				       nd->guid, nd->desc);
			goto out;
		}
	}
	l.v->vl.nvl = vl_count(t, l.v);
	*out = &l.v->vl;
	l.v = NULL;
	ret = 0;
out:
	if (l.v)
		lftdump_vl_free(&l.v->vl);
	free(l.hline);
	free(l.keys);
	return ret;
}

int lftdump_load_sl2vl(const char *path, const struct rt_tables *t,
		       struct rt_vl **out, char *err, size_t errlen)
{
	FILE *in = fopen(path, "r");
	int ret;

	if (!in) {
		ret = -errno;
		*out = NULL;
		snprintf(err, errlen, "%s: %s", path, strerror(-ret));
		return ret;
	}
	ret = lftdump_load_sl2vl_stream(in, path, t, out, err, errlen);
	fclose(in);
	return ret;
}
