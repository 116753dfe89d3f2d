// SPDX-License-Identifier: MIT
/*
 * The exports of the host grouping: Slurm's tree, block and YAML
 * topologies, topograph labels, a Kueue Topology, and their structure
 * as JSON.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hostlist.h"
#include "sm/proto.h"
#include "topoexport.h"

/* What every format derives from the tree; export_release() frees it. */
struct exp {
	const struct pool_tree *t;
	const char **domain;	/* each host's accelerator domain, or NULL */
	bool all_domains;	/* every host has one */
	bool nested;		/* all_domains, each domain in one level-0 group */
	unsigned int ntier;	/* levels labelled: the top one may say nothing */
	uint32_t *off[FT_MAX_LEVELS], *ord[FT_MAX_LEVELS];	/* buckets() */
	/* blocks: block b holds hosts bord[boff[b] .. boff[b + 1]) */
	size_t nblk;
	uint32_t *boff, *bord;
	const char **bname;	/* borrowed from the tree or the config */
	size_t nsize;
	size_t size[64];	/* block sizes, smallest first */
};

static const char *const fmt_names[] = {
	[POOL_EXPORT_SLURM_TREE] = "slurm-tree",
	[POOL_EXPORT_SLURM_BLOCK] = "slurm-block",
	[POOL_EXPORT_SLURM_YAML] = "slurm-yaml",
	[POOL_EXPORT_K8S_LABELS] = "k8s-labels",
	[POOL_EXPORT_KUEUE] = "kueue",
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

static void export_release(struct exp *e)
{
	unsigned int l;

	for (l = 0; l < FT_MAX_LEVELS; l++) {
		free(e->off[l]);
		free(e->ord[l]);
	}
	free(e->domain);
	free(e->boff);
	free(e->bord);
	free(e->bname);
}

/* Each host's domain from the configuration the tree is bound to. */
static int domains(struct exp *e)
{
	const struct pool_tree *t = e->t;
	size_t h;

	e->domain = calloc(t->nhosts + 1, sizeof(*e->domain));
	if (!e->domain)
		return -ENOMEM;
	for (h = 0; t->cfg && h < t->cfg->nhosts; h++)
		if (t->cfg_host[h] >= 0)
			e->domain[t->cfg_host[h]] = t->cfg->hosts[h].domain;
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
			e->bname[e->nblk] = e->domain[e->bord[h]];
			e->boff[e->nblk++] = h;
		}
	} else {
		memcpy(e->bord, e->ord[0], t->nhosts * sizeof(*e->bord));
		for (b = 0; b < t->ngroups[0]; b++) {
			e->bname[b] = gname(t, 0, b);
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

static int export_init(struct exp *e, const struct pool_tree *t)
{
	unsigned int l;
	int ret = 0;

	memset(e, 0, sizeof(*e));
	e->t = t;
	for (l = 0; !ret && l < t->nlevels; l++)
		ret = buckets(t, l, &e->off[l], &e->ord[l]);
	ret = ret ? ret : domains(e);
	/* blocks: after domains, which they may be */
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
			names[n++] = t->host[e->ord[l][i]];
			continue;
		}
		c = gname(t, l - 1, grp(t, l - 1, e->ord[l][i]));
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
		names[n++] = e->t->host[e->bord[i]];
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
	return io(fprintf(out, "SwitchName=%s %s=%s\n", gname(e->t, l, g),
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
			  gname(e->t, l, g), l ? "children" : "nodes", list));
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
		ret = io(fputs(t->host[h], out));
		for (l = 0; !ret && l < e->ntier; l++)
			ret = io(fprintf(out, " " POOL_EXPORT_TIER_LABEL "%u=%s",
					 l, gname(t, l, grp(t, l, h))));
		if (!ret && e->domain[h])
			ret = io(fprintf(out, " " POOL_EXPORT_DOMAIN_LABEL "=%s",
					 e->domain[h]));
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

int pool_export_text(const struct pool_tree *t, enum pool_export_format fmt,
		     FILE *out)
{
	struct exp e;
	int ret = export_init(&e, t);

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
	default:
		ret = -EINVAL;
	}
	export_release(&e);
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
	if (sm_json_add(o, "host", json_object_new_string(t->host[h])) ||
	    sm_json_add(o, "labels", lab))
		return -ENOMEM;
	for (l = 0; l < e->ntier; l++) {
		snprintf(key, sizeof(key), POOL_EXPORT_TIER_LABEL "%u", l);
		if (sm_json_add(lab, key, json_object_new_string(
					gname(t, l, grp(t, l, h)))))
			return -ENOMEM;
	}
	if (e->domain[h] && sm_json_add(lab, POOL_EXPORT_DOMAIN_LABEL,
				     json_object_new_string(e->domain[h])))
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
			ret = add_entry(sw, gname(t, l, g), l,
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
	int ret = names ? export_init(&e, t) : -ENOMEM;

	if (!ret) {
		ret = json_fill(&e, obj, names);
		export_release(&e);
	}
	free(names);
	return ret;
}
