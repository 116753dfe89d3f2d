// SPDX-License-Identifier: MIT
/*
 * The exports of the host grouping: Slurm's tree, block and YAML
 * topologies, topograph labels, a Kueue Topology, the GPUs as Slurm
 * GRES and HAMi vGPUs, and their structure as JSON.
 */
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "hostlist.h"
#include "sm/proto.h"
#include "topoexport.h"

/* What every format derives from the tree; export_release() frees it. */
struct exp {
	const struct pool_tree *t;
	const char **domain;	/* each host's accelerator domain, or NULL */
	const struct pool_host_cfg **hcfg;	/* each host's config, or NULL */
	/* the names as the format writes them (map_all()), owned */
	char **out_host;	/* per host */
	char **out_group;	/* as t->gname */
	char **out_domain;	/* per host, NULL where domain is */
	bool all_domains;	/* every host has one */
	bool nested;		/* all_domains, each domain in one level-0 group */
	unsigned int ntier;	/* levels labelled: the top one may say nothing */
	uint32_t *off[FT_MAX_LEVELS], *ord[FT_MAX_LEVELS];	/* buckets() */
	/* blocks: block b holds hosts bord[boff[b] .. boff[b + 1]) */
	size_t nblk;
	uint32_t *boff, *bord;
	const char **bname;	/* borrowed from out_domain or out_group */
	size_t nsize;
	size_t size[64];	/* block sizes, smallest first */
};

static const char *const fmt_names[] = {
	[POOL_EXPORT_SLURM_TREE] = "slurm-tree",
	[POOL_EXPORT_SLURM_BLOCK] = "slurm-block",
	[POOL_EXPORT_SLURM_YAML] = "slurm-yaml",
	[POOL_EXPORT_K8S_LABELS] = "k8s-labels",
	[POOL_EXPORT_KUEUE] = "kueue",
	[POOL_EXPORT_SLURM_GRES] = "slurm-gres",
	[POOL_EXPORT_K8S_HAMI] = "k8s-hami",
};

int pool_export_parse(const char *s, enum pool_export_format *fmt)
{
	size_t i;

	for (i = 0; i < sizeof(fmt_names) / sizeof(fmt_names[0]); i++)
		if (!strcmp(s, fmt_names[i])) {
			*fmt = i;
			return 0;
		}
	return -EINVAL;
}

static const char *gname(const struct pool_tree *t, unsigned int l,
			 uint32_t g)
{
	return t->gname[(size_t)l * t->nhosts + g];
}

static uint32_t grp(const struct pool_tree *t, unsigned int l, size_t h)
{
	return t->group[(size_t)l * t->nhosts + h];
}

/* Host h, group g of level l, as the format writes them. */
static const char *hname(const struct exp *e, size_t h)
{
	return e->out_host[h];
}

static const char *sname(const struct exp *e, unsigned int l, uint32_t g)
{
	return e->out_group[(size_t)l * e->t->nhosts + g];
}

/* --- names, as each target's syntax allows them --- */

/*
 * What a target accepts.  Slurm node, switch and block names: no
 * hostlist or config syntax ([ ] , = # ; blanks), so letters, digits and
 * . _ - between a letter or digit at each end, and not a keyword.
 * Kubernetes: node names are DNS subdomains (lower case, no _, dots
 * between letters or digits), label values at most 63 of the same set
 * as Slurm's.
 */
struct rule {
	bool lower;		/* upper case folded */
	bool under;		/* '_' allowed inside */
	bool labels;		/* '.' only between letters or digits (DNS) */
	size_t max;
	const char *const *reserved;	/* compared ignoring case */
};

#define NAME_MAX_OUT 253	/* a DNS name's */
#define HASH_LEN 9		/* "-" and 8 hex digits */

static const char *const slurm_words[] = { "ALL", "DEFAULT", NULL };
static const struct rule slurm_rule = { false, true, false, NAME_MAX_OUT,
					slurm_words };
static const struct rule label_rule = { false, true, false, 63, NULL };
static const struct rule node_rule = { true, false, true, NAME_MAX_OUT,
				       NULL };

/* FNV-1a: a changed name's suffix, the same at every export. */
static uint32_t fnv1a(const char *s)
{
	uint32_t h = 2166136261u;

	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 16777619u;
	return h;
}

static bool alnum(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
	       (c >= '0' && c <= '9');
}

static bool reserved(const struct rule *r, const char *s)
{
	const char *const *w;

	for (w = r->reserved; w && *w; w++)
		if (!strcasecmp(*w, s))
			return true;
	return false;
}

/*
 * s under r into buf (NAME_MAX_OUT + 1 bytes): every byte outside the
 * set becomes '-', the ends are trimmed to a letter or digit; with hash,
 * or when that leaves nothing, a keyword or too long a name, "-" and
 * s's hash end it (the hash alone for nothing).
 */
static void map_name(const char *s, const struct rule *r, bool hash,
		     char *buf)
{
	size_t n = 0, i, b, e;
	bool cut;
	char c;

	for (i = 0; s[i] && n < NAME_MAX_OUT; i++) {
		c = s[i];
		if (r->lower && c >= 'A' && c <= 'Z')
			c += 'a' - 'A';
		if (!alnum(c) && c != '.' && c != '-' && (c != '_' || !r->under))
			c = '-';
		buf[n++] = c;
	}
	cut = s[i];
	for (b = 0; b < n && !alnum(buf[b]); b++)
		;
	for (e = n; e > b && !alnum(buf[e - 1]); e--)
		;
	memmove(buf, buf + b, e - b);
	n = e - b;
	buf[n] = '\0';
	for (i = 1; r->labels && i + 1 < n; i++)
		if (buf[i] == '.' && (!alnum(buf[i - 1]) || !alnum(buf[i + 1])))
			buf[i] = '-';
	hash |= !n || cut || n > r->max || reserved(r, buf);
	if (!hash)
		return;
	if (n > r->max - HASH_LEN)
		n = r->max - HASH_LEN;
	while (n && !alnum(buf[n - 1]))
		n--;
	snprintf(buf + n, NAME_MAX_OUT + 1 - n, "%s%08" PRIx32, n ? "-" : "",
		 fnv1a(s));
}

/* s as valid UTF-8, malloc'ed: each byte that is not written "\xNN". */
static char *utf8_clean(const char *s)
{
	const unsigned char *u = (const unsigned char *)s;
	size_t i, k = 0, n, len = strlen(s);
	char *c = malloc(4 * len + 1);

	if (!c)
		return NULL;
	for (i = 0; i < len; i += n) {
		n = sm_utf8_len(u + i);
		if (n) {
			memcpy(c + k, u + i, n);
			k += n;
		} else {
			k += sprintf(c + k, "\\x%02x", u[i]);
			n = 1;
		}
	}
	c[k] = '\0';
	return c;
}

/* One name of a kind: where it comes from and how it is written. */
struct nm {
	const char *src;	/* borrowed */
	char *as;		/* owned until handed to the exp */
};

static int cmp_nm(const void *a, const void *b)
{
	const struct nm *x = *(const struct nm *const *)a;
	const struct nm *y = *(const struct nm *const *)b;
	int c = strcmp(x->as, y->as);

	return c ? c : strcmp(x->src, y->src);
}

/* ix[i] written with the hash suffix when map_name() changed it. */
static int rehash(struct nm *x, const struct rule *r)
{
	char buf[NAME_MAX_OUT + 1];

	if (!strcmp(x->src, x->as))
		return 0;
	map_name(x->src, r, true, buf);
	free(x->as);
	x->as = strdup(buf);
	return x->as ? 0 : -ENOMEM;
}

/*
 * Sort ix by written name, then by name.  Each run of names written
 * alike that holds two names (sorted, its first and last differ): with
 * fix, its changed names get the hash suffix; else *a and *b are such
 * names.
 */
static int clashes(struct nm **ix, size_t n, const struct rule *r, bool fix,
		   const struct nm **a, const struct nm **b)
{
	size_t lo, hi, k;
	int ret = 0;

	qsort(ix, n, sizeof(*ix), cmp_nm);
	for (lo = 0; !ret && lo < n; lo = hi) {
		for (hi = lo + 1; hi < n && !strcmp(ix[lo]->as, ix[hi]->as);
		     hi++)
			;
		if (!strcmp(ix[lo]->src, ix[hi - 1]->src))
			continue;
		if (!fix) {
			*a = ix[lo];
			*b = ix[hi - 1];
			return -EEXIST;
		}
		for (k = lo; !ret && k < hi; k++)
			ret = rehash(ix[k], r);
	}
	return ret;
}

/* The changed names of ix (sorted by clashes()) into renamed, once each. */
static int report(json_object *renamed, const char *kind, struct nm **ix,
		  size_t n)
{
	json_object *o;
	size_t i;
	char *c;
	int ret = 0;

	for (i = 0; renamed && !ret && i < n; i++) {
		if ((i && !strcmp(ix[i]->src, ix[i - 1]->src)) ||
		    !strcmp(ix[i]->src, ix[i]->as))
			continue;
		o = json_object_new_object();
		c = utf8_clean(ix[i]->src);
		if (!o || !c || json_object_array_add(renamed, o)) {
			json_object_put(o);
			free(c);
			return -ENOMEM;
		}
		ret = sm_json_add(o, "kind", json_object_new_string(kind));
		ret = ret ? ret : sm_json_add(o, "name", json_object_new_string(c));
		ret = ret ? ret : sm_json_add(o, "as",
					      json_object_new_string(ix[i]->as));
		free(c);
	}
	return ret;
}

/* "two hosts ('a b' and 'a_b') would both be written 'a-b'" into err. */
static int clash_err(const char *kind, const struct nm *a, const struct nm *b,
		     char *err, size_t len)
{
	char *x = utf8_clean(a->src), *y = utf8_clean(b->src);

	if (x && y)
		snprintf(err, len, "two %s names ('%s' and '%s') would both be written '%s': rename one",
			 kind, x, y, a->as);
	free(x);
	free(y);
	return x && y ? -EEXIST : -ENOMEM;
}

/*
 * The n names src[] of kind (NULL entries: none) as rule r writes them
 * (NULL: valid UTF-8 only) into out[] (room for n; its strings the
 * caller's).  Changed names are appended to renamed (NULL: not said);
 * two names the export cannot keep apart are -EEXIST, err saying which.
 */
static int map_kind(const char *kind, const char *const *src, size_t n,
		    const struct rule *r, char **out, json_object *renamed,
		    char *err, size_t len)
{
	char buf[NAME_MAX_OUT + 1];
	struct nm *v = calloc(n + 1, sizeof(*v));
	struct nm **ix = calloc(n + 1, sizeof(*ix));
	const struct nm *a = NULL, *b = NULL;
	size_t i, m = 0;
	int ret = v && ix ? 0 : -ENOMEM;

	for (i = 0; !ret && i < n; i++) {
		if (!src[i])
			continue;
		v[i].src = src[i];
		if (r)
			map_name(src[i], r, false, buf);
		v[i].as = r ? strdup(buf) : utf8_clean(src[i]);
		if (!v[i].as)
			ret = -ENOMEM;
		ix[m++] = &v[i];
	}
	if (!ret && r)
		ret = clashes(ix, m, r, true, &a, &b);
	if (!ret && r && clashes(ix, m, r, false, &a, &b))
		ret = clash_err(kind, a, b, err, len);
	if (!ret && r)
		ret = report(renamed, kind, ix, m);
	for (i = 0; v && i < n; i++) {
		if (ret)
			free(v[i].as);
		else
			out[i] = v[i].as;
	}
	free(ix);
	free(v);
	return ret;
}

/* Every name of the tree as hr (hosts) and gr (groups, domains) write them. */
static int map_all(struct exp *e, const struct rule *hr,
		   const struct rule *gr, json_object *renamed, char *err,
		   size_t len)
{
	const struct pool_tree *t = e->t;
	size_t n = t->nhosts, ng = (size_t)t->nlevels * n;
	const char **gsrc = calloc(ng + 1, sizeof(*gsrc));
	unsigned int l;
	uint32_t g;
	int ret;

	e->out_host = calloc(n + 1, sizeof(*e->out_host));
	e->out_group = calloc(ng + 1, sizeof(*e->out_group));
	e->out_domain = calloc(n + 1, sizeof(*e->out_domain));
	if (!gsrc || !e->out_host || !e->out_group || !e->out_domain) {
		free(gsrc);
		return -ENOMEM;
	}
	for (l = 0; l < t->nlevels; l++)
		for (g = 0; g < t->ngroups[l]; g++)
			gsrc[(size_t)l * n + g] = gname(t, l, g);
	ret = map_kind("host", (const char *const *)t->host, n, hr, e->out_host,
		       renamed, err, len);
	ret = ret ? ret : map_kind("switch", gsrc, ng, gr, e->out_group, renamed,
				   err, len);
	ret = ret ? ret : map_kind("domain", e->domain, n, gr, e->out_domain, renamed,
				   err, len);
	free(gsrc);
	return ret;
}

/*
 * Hosts bucketed by their group at level l, a counting sort: group g's
 * are ord[off[g] .. off[g + 1]), in name order.
 */
static int buckets(const struct pool_tree *t, unsigned int l, uint32_t **off,
		   uint32_t **ord)
{
	size_t h;
	uint32_t g;

	*off = calloc(t->ngroups[l] + 2, sizeof(**off));
	*ord = malloc((t->nhosts + 1) * sizeof(**ord));
	if (!*off || !*ord)
		return -ENOMEM;
	for (h = 0; h < t->nhosts; h++)
		(*off)[grp(t, l, h) + 2]++;
	for (g = 0; g < t->ngroups[l]; g++)
		(*off)[g + 2] += (*off)[g + 1];
	for (h = 0; h < t->nhosts; h++)
		(*ord)[(*off)[grp(t, l, h) + 1]++] = h;
	return 0;
}

static void free_names(char **v, size_t n)
{
	size_t i;

	for (i = 0; v && i < n; i++)
		free(v[i]);
	free(v);
}

static void export_release(struct exp *e)
{
	size_t n = e->t->nhosts;
	unsigned int l;

	for (l = 0; l < FT_MAX_LEVELS; l++) {
		free(e->off[l]);
		free(e->ord[l]);
	}
	free_names(e->out_host, n);
	free_names(e->out_group, (size_t)e->t->nlevels * n);
	free_names(e->out_domain, n);
	free(e->domain);
	free(e->hcfg);
	free(e->boff);
	free(e->bord);
	free(e->bname);
}

/* Each host's config and domain from the config the tree is bound to. */
static int domains(struct exp *e)
{
	const struct pool_tree *t = e->t;
	size_t h;

	e->domain = calloc(t->nhosts + 1, sizeof(*e->domain));
	e->hcfg = calloc(t->nhosts + 1, sizeof(*e->hcfg));
	if (!e->domain || !e->hcfg)
		return -ENOMEM;
	for (h = 0; t->cfg && h < t->cfg->nhosts; h++)
		if (t->cfg_host[h] >= 0) {
			e->hcfg[t->cfg_host[h]] = &t->cfg->hosts[h];
			e->domain[t->cfg_host[h]] = t->cfg->hosts[h].domain;
		}
	e->all_domains = t->nhosts > 0;
	for (h = 0; h < t->nhosts; h++)
		e->all_domains &= e->domain[h] != NULL;
	return 0;
}

static int cmp_dom_ctx(const void *a, const void *b, void *ctx)
{
	const char **dom = ctx;
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	int c = strcmp(dom[x], dom[y]);

	return c ? c : (x > y) - (x < y);
}

/* The blocks: accelerator domains when every host has one, else leaves. */
static int blocks(struct exp *e)
{
	const struct pool_tree *t = e->t;
	size_t b, h, least;

	e->boff = calloc(t->nhosts + 2, sizeof(*e->boff));
	e->bord = malloc((t->nhosts + 1) * sizeof(*e->bord));
	e->bname = calloc(t->nhosts + 1, sizeof(*e->bname));
	if (!e->boff || !e->bord || !e->bname)
		return -ENOMEM;
	if (e->all_domains) {
		for (h = 0; h < t->nhosts; h++)
			e->bord[h] = h;
		qsort_r(e->bord, t->nhosts, sizeof(*e->bord), cmp_dom_ctx,
			e->domain);
		e->nested = true;
		for (h = 0; h < t->nhosts; h++) {
			if (h && !strcmp(e->domain[e->bord[h]],
					 e->domain[e->bord[h - 1]])) {
				e->nested &= grp(t, 0, e->bord[h]) ==
					     grp(t, 0, e->bord[h - 1]);
				continue;
			}
			e->bname[e->nblk] = e->out_domain[e->bord[h]];
			e->boff[e->nblk++] = h;
		}
	} else {
		memcpy(e->bord, e->ord[0], t->nhosts * sizeof(*e->bord));
		for (b = 0; b < t->ngroups[0]; b++) {
			e->bname[b] = sname(e, 0, b);
			e->boff[b] = e->off[0][b];
		}
		e->nblk = t->ngroups[0];
	}
	e->boff[e->nblk] = t->nhosts;
	least = SIZE_MAX;
	for (b = 0; b < e->nblk; b++)
		if (e->boff[b + 1] - e->boff[b] < least)
			least = e->boff[b + 1] - e->boff[b];
	for (b = 1; e->nblk && b <= e->nblk && e->nsize < 64; b *= 2)
		e->size[e->nsize++] = least * b;
	return 0;
}

/*
 * The tree's derived form, its names written as hr (hosts) and gr
 * (groups, domains) say; -EEXIST when two names cannot be kept apart
 * (err says which).
 */
static int export_init(struct exp *e, const struct pool_tree *t,
		       const struct rule *hr, const struct rule *gr,
		       json_object *renamed, char *err, size_t len)
{
	unsigned int l;
	int ret = 0;

	memset(e, 0, sizeof(*e));
	e->t = t;
	for (l = 0; !ret && l < t->nlevels; l++)
		ret = buckets(t, l, &e->off[l], &e->ord[l]);
	ret = ret ? ret : domains(e);
	ret = ret ? ret : map_all(e, hr, gr, renamed, err, len);
	/* blocks: after the names and domains, which they may be */
	ret = ret ? ret : blocks(e);
	e->ntier = t->nlevels;
	if (e->ntier > 1 && t->ngroups[e->ntier - 1] == 1)
		e->ntier--;
	if (ret)
		export_release(e);
	return ret;
}

/*
 * The members of group g of level l into names (room for its hosts):
 * its hosts at level 0, else its child groups once each.  Returns how
 * many.
 */
static size_t members(const struct exp *e, unsigned int l, uint32_t g,
		      const char **names)
{
	const struct pool_tree *t = e->t;
	size_t n = 0, i, k;
	const char *c;

	for (i = e->off[l][g]; i < e->off[l][g + 1]; i++) {
		if (!l) {
			names[n++] = hname(e, e->ord[l][i]);
			continue;
		}
		c = sname(e, l - 1, grp(t, l - 1, e->ord[l][i]));
		for (k = 0; k < n && names[k] != c; k++)
			;
		if (k == n)
			names[n++] = c;
	}
	return n;
}

/* Block b's hosts into names; how many. */
static size_t block_hosts(const struct exp *e, size_t b, const char **names)
{
	size_t i, n = 0;

	for (i = e->boff[b]; i < e->boff[b + 1]; i++)
		names[n++] = hname(e, e->bord[i]);
	return n;
}

/* names as a Slurm hostlist expression, into *list (malloc'ed). */
static int compress(const char **names, size_t n, char **list)
{
	return pool_hostlist_compress((char *const *)names, n, list);
}

/* One line per group or block: fn(e, out, l, g, list) with its members. */
typedef int (*line_fn)(const struct exp *e, FILE *out, unsigned int l,
		       uint32_t g, const char *list);

static int each_group(const struct exp *e, FILE *out, line_fn fn)
{
	const char **names = calloc(e->t->nhosts + 1, sizeof(*names));
	unsigned int l;
	uint32_t g;
	char *list;
	int ret = names ? 0 : -ENOMEM;

	for (l = 0; !ret && l < e->t->nlevels; l++)
		for (g = 0; !ret && g < e->t->ngroups[l]; g++) {
			ret = compress(names, members(e, l, g, names), &list);
			ret = ret ? ret : fn(e, out, l, g, list);
			free(list);
		}
	free(names);
	return ret;
}

static int each_block(const struct exp *e, FILE *out, line_fn fn)
{
	const char **names = calloc(e->t->nhosts + 1, sizeof(*names));
	char *list;
	size_t b;
	int ret = names ? 0 : -ENOMEM;

	for (b = 0; !ret && b < e->nblk; b++) {
		ret = compress(names, block_hosts(e, b, names), &list);
		ret = ret ? ret : fn(e, out, 0, b, list);
		free(list);
	}
	free(names);
	return ret;
}

static int io(int n)
{
	return n < 0 ? -EIO : 0;
}

static int tree_line(const struct exp *e, FILE *out, unsigned int l,
		     uint32_t g, const char *list)
{
	return io(fprintf(out, "SwitchName=%s %s=%s\n", sname(e, l, g),
			  l ? "Switches" : "Nodes", list));
}

static int block_line(const struct exp *e, FILE *out, unsigned int l,
		      uint32_t b, const char *list)
{
	(void)l;
	return io(fprintf(out, "BlockName=%s Nodes=%s\n", e->bname[b], list));
}

static int yaml_switch(const struct exp *e, FILE *out, unsigned int l,
		       uint32_t g, const char *list)
{
	return io(fprintf(out, "      - switch: \"%s\"\n        %s: \"%s\"\n",
			  sname(e, l, g), l ? "children" : "nodes", list));
}

static int yaml_block(const struct exp *e, FILE *out, unsigned int l,
		      uint32_t b, const char *list)
{
	(void)l;
	return io(fprintf(out, "      - block: \"%s\"\n        nodes: \"%s\"\n",
			  e->bname[b], list));
}

static int block_sizes(const struct exp *e, FILE *out, const char *sep)
{
	size_t i;
	int ret = 0;

	for (i = 0; !ret && i < e->nsize; i++)
		ret = io(fprintf(out, "%s%zu", i ? sep : "", e->size[i]));
	return ret;
}

static int slurm_block(const struct exp *e, FILE *out)
{
	int ret = each_block(e, out, block_line);

	ret = ret ? ret : io(fputs("BlockSizes=", out));
	ret = ret ? ret : block_sizes(e, out, ",");
	return ret ? ret : io(fputc('\n', out));
}

/* Strings quoted: a GUID name would otherwise read as a YAML number. */
static int slurm_yaml(const struct exp *e, FILE *out)
{
	int ret;

	ret = io(fputs("# Slurm topology.yaml (Slurm 25.05 and later)\n---\n- topology: fabric\n  cluster_default: true\n  tree:\n    switches:\n",
		       out));
	ret = ret ? ret : each_group(e, out, yaml_switch);
	ret = ret ? ret : io(fputs("- topology: blocks\n  cluster_default: false\n  block:\n    block_sizes: [",
				   out));
	ret = ret ? ret : block_sizes(e, out, ", ");
	ret = ret ? ret : io(fputs("]\n    blocks:\n", out));
	return ret ? ret : each_block(e, out, yaml_block);
}

static int k8s_labels(const struct exp *e, FILE *out)
{
	const struct pool_tree *t = e->t;
	unsigned int l;
	size_t h;
	int ret = 0;

	for (h = 0; !ret && h < t->nhosts; h++) {
		ret = io(fputs(hname(e, h), out));
		for (l = 0; !ret && l < e->ntier; l++)
			ret = io(fprintf(out, " " POOL_EXPORT_TIER_LABEL "%u=%s",
					 l, sname(e, l, grp(t, l, h))));
		if (!ret && e->out_domain[h])
			ret = io(fprintf(out, " " POOL_EXPORT_DOMAIN_LABEL "=%s",
					 e->out_domain[h]));
		ret = ret ? ret : io(fputc('\n', out));
	}
	return ret;
}

/*
 * Kueue's levels go broadest first and must nest: the domain only where
 * each lies within one tier-0 group, the host last.
 */
static int kueue(const struct exp *e, FILE *out)
{
	unsigned int l;
	int ret;

	ret = io(fputs("apiVersion: kueue.x-k8s.io/v1alpha1\nkind: Topology\nmetadata:\n  name: gpuaware-fabric\nspec:\n  levels:\n",
		       out));
	for (l = e->ntier; !ret && l-- > 0;)
		ret = io(fprintf(out, "  - nodeLabel: \"" POOL_EXPORT_TIER_LABEL "%u\"\n",
				 l));
	if (!ret && e->nested)
		ret = io(fputs("  - nodeLabel: \"" POOL_EXPORT_DOMAIN_LABEL "\"\n",
			       out));
	return ret ? ret : io(fputs("  - nodeLabel: \"kubernetes.io/hostname\"\n",
				    out));
}

/* Whether a GPU type can be Slurm's GRES Type as it is. */
static bool gres_type(const char *s)
{
	if (!*s)
		return false;
	for (; *s; s++)
		if (!isalnum((unsigned char)*s) && !strchr("._-", *s))
			return false;
	return true;
}

/* A host's GPU type as written: "" when Slurm could not take it. */
static const char *gres_typename(const struct pool_host_cfg *c)
{
	return gres_type(c->gpu_type) ? c->gpu_type : "";
}

/* Hosts x and y by GPU count, then type. */
static int cmp_gres_key(const struct exp *e, uint32_t x, uint32_t y)
{
	const struct pool_host_cfg *p = e->hcfg[x], *q = e->hcfg[y];
	int c = (p->gpus > q->gpus) - (p->gpus < q->gpus);

	return c ? c : strcmp(gres_typename(p), gres_typename(q));
}

/* Configured hosts by GPU count, then type, then name. */
static int cmp_gres(const void *a, const void *b, void *ctx)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	int c = cmp_gres_key(ctx, x, y);

	return c ? c : (x > y) - (x < y);
}

/* One line per set of hosts alike: fn(out, c, list) with its hosts. */
typedef int (*gres_fn)(FILE *out, const struct pool_host_cfg *c,
		       const char *list);

/*
 * The configured hosts in runs of the same GPU count and type, each
 * run's hosts a hostlist, so a cluster of one kind of host is a line.
 */
static int each_gres(const struct exp *e, FILE *out, gres_fn fn)
{
	size_t n = e->t->nhosts, h, m = 0, lo, hi, k;
	uint32_t *ord = malloc((n + 1) * sizeof(*ord));
	const char **names = calloc(n + 1, sizeof(*names));
	char *list;
	int ret = ord && names ? 0 : -ENOMEM;

	for (h = 0; !ret && h < n; h++)
		if (e->hcfg[h])
			ord[m++] = h;
	if (!ret)
		qsort_r(ord, m, sizeof(*ord), cmp_gres, (void *)e);
	for (lo = 0; !ret && lo < m; lo = hi) {
		for (hi = lo; hi < m && !cmp_gres_key(e, ord[lo], ord[hi]); hi++)
			;
		for (k = lo; k < hi; k++)
			names[k - lo] = hname(e, ord[k]);
		ret = compress(names, hi - lo, &list);
		ret = ret ? ret : fn(out, e->hcfg[ord[lo]], list);
		free(list);
	}
	free(names);
	free(ord);
	return ret;
}

/* "# slurm.conf: NodeName=gpu[01-04] Gres=gpu:H100:4,shard:40" */
static int gres_hint(FILE *out, const struct pool_host_cfg *c,
		     const char *list)
{
	const char *ty = gres_typename(c);

	return io(fprintf(out, "# slurm.conf: NodeName=%s Gres=gpu:%s%s%u,shard:%u\n",
			  list, ty, *ty ? ":" : "", c->gpus,
			  c->gpus * POOL_EXPORT_SHARDS));
}

/* The gpu line, File= "/dev/nvidia[0-3]" or "/dev/nvidia0", and the shards. */
static int gres_lines(FILE *out, const struct pool_host_cfg *c,
		      const char *list)
{
	const char *ty = gres_typename(c);
	int ret;

	ret = io(fprintf(out, "NodeName=%s Name=gpu%s%s Count=%u File=", list,
			 *ty ? " Type=" : "", ty, c->gpus));
	if (!ret && c->gpus == 1)
		ret = io(fputs(POOL_EXPORT_GPU_DEV "0", out));
	else if (!ret)
		ret = io(fprintf(out, POOL_EXPORT_GPU_DEV "[0-%u]", c->gpus - 1));
	return ret ? ret : io(fprintf(out, "\nNodeName=%s Name=shard Count=%u\n",
				      list, c->gpus * POOL_EXPORT_SHARDS));
}

/*
 * gres.conf: each host's GPUs whole (gpu) and as shards, Slurm's GRES
 * for GPUs shared by several jobs; POOL_EXPORT_SHARDS per GPU, so that
 * a shard is the same fraction of a GPU as the pool's shares count in.
 * slurmd shares a GPU's shards out only when its gpu line has File=
 * (it refuses "SHARED specified without any SHARING found" else), and
 * ignores typed GPUs that slurm.conf's Gres= counts untyped: so the
 * files, and the slurm.conf lines first, as comments.
 */
static int slurm_gres(const struct exp *e, FILE *out)
{
	int ret;

	ret = io(fprintf(out, "# gres.conf for Slurm 22.05 and later: %d shards a GPU (100 milli-GPUs each)\n# File= are NVIDIA's device names: change them for other GPUs\n# slurm.conf: GresTypes=gpu,shard\n",
			 POOL_EXPORT_SHARDS));
	ret = ret ? ret : each_gres(e, out, gres_hint);
	return ret ? ret : each_gres(e, out, gres_lines);
}

/*
 * HAMi's device-plugin config.json: each host's GPUs split into
 * POOL_EXPORT_SHARDS vGPUs, memory and cores as they are (scaling 1:
 * the pool oversubscribes nothing), so that a pool share of M milli-GPUs
 * is one vGPU with nvidia.com/gpucores M / 10.  Every key written,
 * as releases that read them into plain numbers take 0 for a missing
 * one.  Names are DNS names here: nothing to escape.
 */
static int k8s_hami(const struct exp *e, FILE *out)
{
	bool first = true;
	size_t h;
	int ret;

	ret = io(fputs("{\n  \"nodeconfig\": [", out));
	for (h = 0; !ret && h < e->t->nhosts; h++) {
		if (!e->hcfg[h])
			continue;
		ret = io(fprintf(out, "%s\n    {\"name\": \"%s\", \"devicesplitcount\": %d, \"devicememoryscaling\": 1, \"devicecorescaling\": 1, \"migstrategy\": \"none\"}",
				 first ? "" : ",", hname(e, h),
				 POOL_EXPORT_SHARDS));
		first = false;
	}
	return ret ? ret : io(fputs("\n  ]\n}\n", out));
}

int pool_export_text(const struct pool_tree *t, enum pool_export_format fmt,
		     FILE *out, json_object *renamed, char *err, size_t len)
{
	const struct rule *hr = NULL, *gr = NULL;
	struct exp e;
	int ret;

	if (fmt == POOL_EXPORT_SLURM_TREE || fmt == POOL_EXPORT_SLURM_BLOCK ||
	    fmt == POOL_EXPORT_SLURM_YAML || fmt == POOL_EXPORT_SLURM_GRES)
		hr = gr = &slurm_rule;
	else if (fmt == POOL_EXPORT_K8S_LABELS || fmt == POOL_EXPORT_K8S_HAMI) {
		hr = &node_rule;
		gr = &label_rule;
	}
	if ((fmt == POOL_EXPORT_SLURM_GRES || fmt == POOL_EXPORT_K8S_HAMI) &&
	    !t->cfg) {
		snprintf(err, len, "no host configuration to take the GPUs from");
		return -EINVAL;
	}
	ret = export_init(&e, t, hr, gr, renamed, err, len);
	if (ret == -ENOMEM)
		snprintf(err, len, "out of memory");
	if (ret)
		return ret;
	switch (fmt) {
	case POOL_EXPORT_SLURM_TREE:
		ret = each_group(&e, out, tree_line);
		break;
	case POOL_EXPORT_SLURM_BLOCK:
		ret = slurm_block(&e, out);
		break;
	case POOL_EXPORT_SLURM_YAML:
		ret = slurm_yaml(&e, out);
		break;
	case POOL_EXPORT_K8S_LABELS:
		ret = k8s_labels(&e, out);
		break;
	case POOL_EXPORT_KUEUE:
		ret = kueue(&e, out);
		break;
	case POOL_EXPORT_SLURM_GRES:
		ret = slurm_gres(&e, out);
		break;
	case POOL_EXPORT_K8S_HAMI:
		ret = k8s_hami(&e, out);
		break;
	default:
		ret = -EINVAL;
	}
	export_release(&e);
	if (ret)
		snprintf(err, len, "%s", strerror(-ret));
	return ret;
}

/* --- JSON --- */

static json_object *str_array(const char **names, size_t n)
{
	json_object *a = json_object_new_array();
	size_t i;

	for (i = 0; a && i < n; i++)
		if (json_object_array_add(a, json_object_new_string(names[i]))) {
			json_object_put(a);
			return NULL;
		}
	return a;
}

/* {"name": name, key: names[0..n)} appended to arr, with tier when >= 0. */
static int add_entry(json_object *arr, const char *name, long tier,
		     const char *key, const char **names, size_t n)
{
	json_object *o = json_object_new_object();

	if (!o || json_object_array_add(arr, o)) {
		json_object_put(o);
		return -ENOMEM;
	}
	if (sm_json_add(o, "name", json_object_new_string(name)) ||
	    (tier >= 0 && sm_json_add(o, "tier", json_object_new_int(tier))))
		return -ENOMEM;
	return sm_json_add(o, key, str_array(names, n));
}

static int json_host(const struct exp *e, size_t h, json_object *arr)
{
	const struct pool_tree *t = e->t;
	json_object *o = json_object_new_object(), *lab;
	char key[64];
	unsigned int l;

	if (!o || json_object_array_add(arr, o)) {
		json_object_put(o);
		return -ENOMEM;
	}
	lab = json_object_new_object();
	if (sm_json_add(o, "host", json_object_new_string(hname(e, h))) ||
	    sm_json_add(o, "labels", lab))
		return -ENOMEM;
	for (l = 0; l < e->ntier; l++) {
		snprintf(key, sizeof(key), POOL_EXPORT_TIER_LABEL "%u", l);
		if (sm_json_add(lab, key, json_object_new_string(
					sname(e, l, grp(t, l, h)))))
			return -ENOMEM;
	}
	if (e->out_domain[h] && sm_json_add(lab, POOL_EXPORT_DOMAIN_LABEL,
				    json_object_new_string(e->out_domain[h])))
		return -ENOMEM;
	if (e->hcfg[h] &&
	    (sm_json_add(o, "gpus", json_object_new_int64(e->hcfg[h]->gpus)) ||
	     sm_json_add(o, "shares", json_object_new_int64(
				(int64_t)e->hcfg[h]->gpus * POOL_EXPORT_SHARDS))))
		return -ENOMEM;
	return 0;
}

static int json_fill(const struct exp *e, json_object *obj,
		     const char **names)
{
	const struct pool_tree *t = e->t;
	json_object *sw, *bl, *sz, *hs;
	unsigned int l;
	uint32_t g;
	size_t b, h;
	int ret = 0;

	sw = json_object_new_array();
	bl = json_object_new_array();
	sz = json_object_new_array();
	hs = json_object_new_array();
	if (sm_json_add(obj, "switches", sw) || sm_json_add(obj, "blocks", bl) ||
	    sm_json_add(obj, "block_sizes", sz) || sm_json_add(obj, "hosts", hs))
		return -ENOMEM;
	for (l = 0; !ret && l < t->nlevels; l++)
		for (g = 0; !ret && g < t->ngroups[l]; g++)
			ret = add_entry(sw, sname(e, l, g), l,
					l ? "switches" : "nodes", names,
					members(e, l, g, names));
	for (b = 0; !ret && b < e->nblk; b++)
		ret = add_entry(bl, e->bname[b], -1, "nodes", names,
				block_hosts(e, b, names));
	for (b = 0; !ret && b < e->nsize; b++)
		if (json_object_array_add(sz, json_object_new_int64(e->size[b])))
			ret = -ENOMEM;
	for (h = 0; !ret && h < t->nhosts; h++)
		ret = json_host(e, h, hs);
	return ret;
}

int pool_export_json(const struct pool_tree *t, json_object *obj)
{
	const char **names = calloc(t->nhosts + 1, sizeof(*names));
	struct exp e;
	int ret = names ? export_init(&e, t, NULL, NULL, NULL, NULL, 0) :
			  -ENOMEM;

	if (!ret) {
		ret = json_fill(&e, obj, names);
		export_release(&e);
	}
	free(names);
	return ret;
}
