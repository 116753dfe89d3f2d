// SPDX-License-Identifier: MIT
/*
 * Reads ibsim net files and ibnetdiscover topology output into a fabric,
 * and writes fabrics back in the ibsim dialect (GUIDs pinned per node).
 */
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "netfile.h"
#include "textio.h"

/* ibsim's default GUID bases, so offline runs see the GUIDs ibsim uses. */
#define NET_CA_GUID 0x100000ull
#define NET_SW_GUID 0x200000ull

struct pend {			/* one port line, resolved after all nodes */
	uint32_t node;
	unsigned int port, rport, line;
	unsigned int width, speed;
	char *rid;		/* remote node id, owned */
};

struct loader {
	struct tio_where at;	/* input name and line, error buffer */
	struct fabric *f;
	char **ids;		/* node id per node index, owned */
	uint32_t *hash;		/* open addressing: node index + 1, 0 empty */
	size_t hcap;
	struct pend *pend;
	size_t npend, pcap;
	uint64_t guid[3];	/* next GUID per enum fab_type */
	uint64_t sysguid;
};

static uint64_t str_hash(const char *s)
{
	uint64_t h = 1469598103934665603ull;

	while (*s)
		h = (h ^ (unsigned char)*s++) * 1099511628211ull;
	return h;
}

static int hash_grow(struct loader *l)
{
	size_t cap = l->hcap ? l->hcap * 2 : 1024, i, j;
	uint32_t *h = calloc(cap, sizeof(*h));

	if (!h)
		return -ENOMEM;
	for (i = 0; i < l->hcap; i++) {
		if (!l->hash[i])
			continue;
		j = str_hash(l->ids[l->hash[i] - 1]) & (cap - 1);
		while (h[j])
			j = (j + 1) & (cap - 1);
		h[j] = l->hash[i];
	}
	free(l->hash);
	l->hash = h;
	l->hcap = cap;
	return 0;
}

/* Index node n by its id; the table has room (see hash_grow). */
static void hash_insert(struct loader *l, uint32_t n)
{
	size_t j = str_hash(l->ids[n]) & (l->hcap - 1);

	while (l->hash[j])
		j = (j + 1) & (l->hcap - 1);
	l->hash[j] = n + 1;
}

static uint32_t find_id(const struct loader *l, const char *id)
{
	size_t j;

	if (!l->hcap)
		return FAB_NONE;
	for (j = str_hash(id) & (l->hcap - 1); l->hash[j];
	     j = (j + 1) & (l->hcap - 1))
		if (!strcmp(l->ids[l->hash[j] - 1], id))
			return l->hash[j] - 1;
	return FAB_NONE;
}

/* Text between the first pair of double quotes at or after s. */
static char *quoted(char *s, char **rest)
{
	char *a = strchr(s, '"'), *b;

	if (!a || !(b = strchr(a + 1, '"')))
		return NULL;
	*b = '\0';
	if (rest)
		*rest = b + 1;
	return a + 1;
}

/* "lid N" and "lmc N" within s, when present. */
static void lid_lmc(const char *s, unsigned long *lid, unsigned long *lmc)
{
	const char *p;

	if ((p = strstr(s, "lid ")))
		*lid = strtoul(p + 4, NULL, 0);
	if ((p = strstr(s, "lmc ")))
		*lmc = strtoul(p + 4, NULL, 0);
}

static int add_node(struct loader *l, enum fab_type type, char *s)
{
	char *id, *rest, *desc = NULL, *hash;
	unsigned long nports, lid = 0, lmc = 0;
	uint64_t guid = l->guid[type];
	int n, ret;

	while (*s && !isdigit((unsigned char)*s))
		s++;
	nports = strtoul(s, NULL, 10);
	if (nports < 1 || nports > FAB_MAX_PORTS)
		return tio_fail(&l->at, -EINVAL, "bad port count in node header");
	id = quoted(s, &rest);
	if (!id || !*id)
		return tio_fail(&l->at, -EINVAL, "node header without a quoted id");
	if (find_id(l, id) != FAB_NONE)
		return tio_fail(&l->at, -EEXIST, "duplicate node id \"%s\"", id);
	hash = strchr(rest, '#');
	if (hash) {
		desc = quoted(hash, &rest);
		lid_lmc(rest, &lid, &lmc);
	}
	if (lid > FAB_MAX_LID || lmc > 7)
		return tio_fail(&l->at, -ERANGE, "LID or LMC out of range");
	/* Room for the id first, so ids[] always covers the nodes. */
	if (l->f->nnodes % 512 == 0) {
		char **ids = realloc(l->ids,
				     (l->f->nnodes + 512) * sizeof(*ids));

		if (!ids)
			return tio_fail(&l->at, -ENOMEM, "out of memory");
		l->ids = ids;
	}
	l->ids[l->f->nnodes] = NULL;
	n = fab_add_node(l->f, type, nports, guid, desc ? desc : id);
	if (n < 0)
		return tio_fail(&l->at, n, "cannot add node: %s", strerror(-n));
	/* Like ibsim, a sysimgguid= line holds for the next node only. */
	l->f->nodes[n].sysguid = l->sysguid ? l->sysguid : guid;
	l->sysguid = 0;
	l->guid[type] += type == FAB_SW ? 1 : nports + 1;
	if (type == FAB_SW) {
		fab_port(l->f, n, 0)->lid = lid;
	} else {
		unsigned int p;

		for (p = 1; p <= nports; p++)
			fab_port(l->f, n, p)->guid = guid + p;
	}
	l->ids[n] = strdup(id);
	if (!l->ids[n])
		return tio_fail(&l->at, -ENOMEM, "out of memory");
	if ((size_t)(n + 1) * 2 > l->hcap && (ret = hash_grow(l)))
		return tio_fail(&l->at, ret, "out of memory");
	hash_insert(l, n);
	return n;
}

/* "4xEDR"-style token -> lanes and per-lane rate in 100 Mb/s. */
static void width_speed(const char *s, unsigned int *w, unsigned int *sp)
{
	static const struct {
		const char *name;
		unsigned int rate;
	} rates[] = {
		{ "SDR", 25 }, { "DDR", 50 }, { "QDR", 100 }, { "FDR10", 100 },
		{ "FDR", 140 }, { "EDR", 250 }, { "HDR", 500 }, { "NDR", 1000 },
	};
	const char *x, *d;
	size_t i, len;

	for (x = strchr(s, 'x'); x; x = strchr(x + 1, 'x')) {
		for (d = x; d > s && isdigit((unsigned char)d[-1]); d--)
			;
		if (d == x)
			continue;
		for (i = 0; i < sizeof(rates) / sizeof(rates[0]); i++) {
			len = strlen(rates[i].name);
			if (!strncmp(x + 1, rates[i].name, len) &&
			    !isalnum((unsigned char)x[1 + len])) {
				*w = strtoul(d, NULL, 10);
				*sp = rates[i].rate;
				return;
			}
		}
	}
}

static int add_port(struct loader *l, uint32_t node, char *s)
{
	struct fab_node *nd = &l->f->nodes[node];
	struct pend *pd;
	char *p = s + 1, *rid, *rest, *hash;
	unsigned long port, rport = 1, lid = 0, lmc = 0;
	struct fab_port *fp;

	if (*s == '@')
		return tio_fail(&l->at, -ENOTSUP, "port aliases are not supported");
	port = strtoul(p, &p, 10);
	if (*p != ']' || port < 1 || port > nd->nports)
		return tio_fail(&l->at, -EINVAL, "bad port number (node has %u ports)",
				nd->nports);
	fp = fab_port(l->f, node, port);
	if (p[1] == '(') {
		uint64_t g = strtoull(p + 2, NULL, 16);

		if (nd->type == FAB_CA)
			fp->guid = g;
	}
	rid = quoted(p, &rest);
	if (!rid || !*rid)
		return tio_fail(&l->at, -EINVAL, "port line without a quoted remote id");
	if (*rest == '[') {
		rport = strtoul(rest + 1, &rest, 10);
		if (*rest != ']' || rport < 1 || rport > FAB_MAX_PORTS)
			return tio_fail(&l->at, -EINVAL, "bad remote port number");
	}
	if (l->npend == l->pcap) {
		size_t cap = l->pcap ? l->pcap * 2 : 1024;

		pd = realloc(l->pend, cap * sizeof(*pd));
		if (!pd)
			return tio_fail(&l->at, -ENOMEM, "out of memory");
		l->pend = pd;
		l->pcap = cap;
	}
	pd = &l->pend[l->npend];
	memset(pd, 0, sizeof(*pd));
	hash = strchr(rest, '#');
	if (hash) {
		width_speed(hash, &pd->width, &pd->speed);
		/* A CA's own "lid N lmc M" comes before the remote's name. */
		if (nd->type == FAB_CA) {
			char *q = strchr(hash, '"');

			if (q)
				*q = '\0';
			lid_lmc(hash, &lid, &lmc);
			if (lid > FAB_MAX_LID || lmc > 7)
				return tio_fail(&l->at, -ERANGE,
						"LID or LMC out of range");
			fp->lid = lid;
			fp->lmc = lmc;
		}
	}
	pd->rid = strdup(rid);
	if (!pd->rid)
		return tio_fail(&l->at, -ENOMEM, "out of memory");
	pd->node = node;
	pd->port = port;
	pd->rport = rport;
	pd->line = l->at.line;
	l->npend++;
	return 0;
}

static int set_guid(struct loader *l, enum fab_type type, const char *s)
{
	const char *v = strpbrk(s, "=+");
	char *end;
	uint64_t g;

	if (!v)
		return tio_fail(&l->at, -EINVAL, "expected '=' or '+'");
	g = strtoull(v + 1, &end, 0);
	if (end == v + 1)
		return tio_fail(&l->at, -EINVAL, "bad GUID");
	if (*v == '+')
		g += type == FAB_SW ? NET_SW_GUID : NET_CA_GUID;
	l->guid[type] = g;
	return 0;
}

static bool starts(const char *s, const char *w)
{
	return !strncmp(s, w, strlen(w));
}

static int parse_line(struct loader *l, char *s, uint32_t *cur)
{
	int n;

	if (*s == '[' || *s == '@') {
		if (*cur == FAB_NONE)
			return tio_fail(&l->at, -EINVAL, "port line outside a node");
		return add_port(l, *cur, s);
	}
	*cur = FAB_NONE;
	if (starts(s, "Switch") || starts(s, "Hca") || starts(s, "Ca") ||
	    starts(s, "Rt")) {
		enum fab_type t = *s == 'S' ? FAB_SW : FAB_CA;

		n = add_node(l, t, s + (t == FAB_SW ? 6 : 2));
		if (n < 0)
			return n;
		*cur = n;
		return 0;
	}
	if (starts(s, "switchguid"))
		return set_guid(l, FAB_SW, s);
	if (starts(s, "caguid") || starts(s, "hcaguids") ||
	    starts(s, "rtguid"))
		return set_guid(l, FAB_CA, s);
	if (starts(s, "sysimgguid")) {
		const char *v = strchr(s, '=');

		if (!v)
			return tio_fail(&l->at, -EINVAL, "expected '='");
		l->sysguid = strtoull(v + 1, NULL, 0);
		return 0;
	}
	if (starts(s, "include"))
		return tio_fail(&l->at, -ENOTSUP, "include is not supported");
	if (starts(s, "vendid") || starts(s, "devid") || starts(s, "width") ||
	    starts(s, "speed") || starts(s, "extspeed") ||
	    starts(s, "module") || starts(s, "pdebug") || starts(s, "do"))
		return 0;
	return tio_fail(&l->at, -EINVAL, "unrecognised line");
}

static int resolve(struct loader *l)
{
	size_t i;
	int ret;

	for (i = 0; i < l->npend; i++) {
		struct pend *pd = &l->pend[i];
		uint32_t r = find_id(l, pd->rid);
		struct fab_port *fp;

		l->at.line = pd->line;
		if (r == FAB_NONE)
			return tio_fail(&l->at, -ENOENT, "unknown node \"%s\"", pd->rid);
		if (pd->rport > l->f->nodes[r].nports)
			return tio_fail(&l->at, -EINVAL, "\"%s\" has no port %u",
					pd->rid, pd->rport);
		if (l->f->nodes[r].type == FAB_CA &&
		    l->f->nodes[pd->node].type == FAB_CA)
			return tio_fail(&l->at, -EINVAL, "CA linked to CA \"%s\"",
					pd->rid);
		ret = fab_link(l->f, pd->node, pd->port, r, pd->rport,
			       pd->width, pd->speed);
		if (ret == -EBUSY) {
			fp = fab_port(l->f, pd->node, pd->port);
			if (fp->peer == FAB_NONE)
				fp = fab_port(l->f, r, pd->rport);
			return tio_fail(&l->at, -EINVAL,
					"link to \"%s\"[%u] conflicts with \"%s\"[%u] listed before",
					pd->rid, pd->rport,
					l->ids[fp->peer], fp->peer_port);
		}
		if (ret)
			return tio_fail(&l->at, ret, "cannot link: %s", strerror(-ret));
		/* The second listing of a link may be the one with a rate. */
		if (pd->width) {
			fp = fab_port(l->f, pd->node, pd->port);
			fp->width = pd->width;
			fp->speed = pd->speed;
			fp = fab_port(l->f, r, pd->rport);
			fp->width = pd->width;
			fp->speed = pd->speed;
		}
	}
	return 0;
}

int fab_load_net_stream(FILE *in, const char *name, struct fabric **out,
			char *err, size_t errlen)
{
	struct loader l = {
		.at = { .name = name, .err = err, .errlen = errlen },
		.guid = { 0, NET_SW_GUID, NET_CA_GUID },
	};
	uint32_t cur = FAB_NONE;
	char *buf = NULL, *s, *e;
	size_t cap = 0, i;
	ssize_t len;
	int ret = 0;

	*out = NULL;
	l.f = fab_new();
	if (!l.f)
		return -ENOMEM;
	while ((len = getline(&buf, &cap, in)) >= 0) {
		l.at.line++;
		for (s = buf; isspace((unsigned char)*s); s++)
			;
		for (e = s + strlen(s); e > s && isspace((unsigned char)e[-1]);)
			*--e = '\0';
		if (!*s) {
			cur = FAB_NONE;
			continue;
		}
		if (*s == '#')
			continue;
		if ((ret = parse_line(&l, s, &cur)))
			break;
	}
	if (!ret && ferror(in))
		ret = tio_fail(&l.at, -EIO, "read error");
	if (!ret && !l.f->nnodes)
		ret = tio_fail(&l.at, -EINVAL, "no nodes");
	if (!ret)
		ret = resolve(&l);
	free(buf);
	for (i = 0; i < l.f->nnodes && l.ids; i++)
		free(l.ids[i]);
	free(l.ids);
	free(l.hash);
	for (i = 0; i < l.npend; i++)
		free(l.pend[i].rid);
	free(l.pend);
	if (ret) {
		fab_free(l.f);
		return ret;
	}
	*out = l.f;
	return 0;
}

int fab_load_net(const char *path, struct fabric **out, char *err,
		 size_t errlen)
{
	FILE *in = fopen(path, "r");
	int ret;

	if (!in) {
		ret = -errno;
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		*out = NULL;
		return ret;
	}
	ret = fab_load_net_stream(in, path, out, err, errlen);
	fclose(in);
	return ret;
}

static const char *speed_name(unsigned int sp)
{
	if (sp >= 1000)
		return "NDR";
	if (sp >= 500)
		return "HDR";
	if (sp >= 250)
		return "EDR";
	if (sp >= 140)
		return "FDR";
	if (sp >= 100)
		return "QDR";
	if (sp >= 50)
		return "DDR";
	return "SDR";
}

int fab_write_net(const struct fabric *f, FILE *out)
{
	size_t n;
	unsigned int p;

	for (n = 0; n < f->nnodes; n++) {
		const struct fab_node *nd = &f->nodes[n];

		if (strchr(nd->desc, '"') || !*nd->desc)
			return -EINVAL;
		/* ibsim forgets sysimgguid= after each node: repeat it. */
		if (nd->sysguid != nd->guid)
			fprintf(out, "sysimgguid=0x%016" PRIx64 "\n",
				nd->sysguid);
		fprintf(out, "%s=0x%016" PRIx64 "\n%s\t%u \"%s\"\n",
			nd->type == FAB_SW ? "switchguid" : "caguid", nd->guid,
			nd->type == FAB_SW ? "Switch" : "Hca", nd->nports,
			nd->desc);
		for (p = 1; p <= nd->nports; p++) {
			const struct fab_port *fp = fab_port(f, n, p);

			if (fp->peer == FAB_NONE)
				continue;
			fprintf(out, "[%u]\t\"%s\"[%u]", p,
				f->nodes[fp->peer].desc, fp->peer_port);
			if (fp->width && fp->speed)
				fprintf(out, "\t# lid 0 %ux%s", fp->width,
					speed_name(fp->speed));
			fputc('\n', out);
		}
		fputc('\n', out);
	}
	return ferror(out) ? -EIO : 0;
}
