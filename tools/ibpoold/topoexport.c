// SPDX-License-Identifier: MIT
/* The Slurm and Kubernetes exports of the host grouping. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#include "hostlist.h"
#include "topoexport.h"

/*
 * Hosts bucketed by their group at level l, a counting sort: group g's
 * are ord[off[g] .. off[g + 1]), in name order.
 */
static int buckets(const struct pool_tree *t, unsigned int l, uint32_t **off,
		   uint32_t **ord)
{
	const uint32_t *row = t->grp + (size_t)l * t->nhosts;
	size_t h;
	uint32_t g;

	*off = calloc(t->ngrp[l] + 2, sizeof(**off));
	*ord = malloc((t->nhosts + 1) * sizeof(**ord));
	if (!*off || !*ord) {
		free(*off);
		free(*ord);
		return -ENOMEM;
	}
	for (h = 0; h < t->nhosts; h++)
		(*off)[row[h] + 2]++;
	for (g = 0; g < t->ngrp[l]; g++)
		(*off)[g + 2] += (*off)[g + 1];
	for (h = 0; h < t->nhosts; h++)
		(*ord)[(*off)[row[h] + 1]++] = h;
	return 0;
}

/* Group g of level l as Slurm names it: s<k>, k counted from the leaves. */
static uint32_t switch_no(const struct pool_tree *t, unsigned int l,
			  uint32_t g)
{
	unsigned int i;

	for (i = 0; i < l; i++)
		g += t->ngrp[i];
	return g;
}

/* One SwitchName line for group g of level l, members ord[a .. b). */
static int slurm_line(const struct pool_tree *t, unsigned int l, uint32_t g,
		      const uint32_t *ord, uint32_t a, uint32_t b, FILE *out)
{
	char **names = calloc(b - a + 1, sizeof(*names)), *list = NULL;
	const uint32_t *below = t->grp + (size_t)(l ? l - 1 : 0) * t->nhosts;
	size_t n = 0, i;
	int ret = -ENOMEM;

	if (!names)
		return ret;
	for (i = a; i < b; i++) {
		if (!l) {
			names[n++] = t->host[ord[i]];
			continue;
		}
		if (asprintf(&names[n], "s%u",
			     switch_no(t, l - 1, below[ord[i]])) < 0)
			goto out_free;
		n++;
	}
	ret = pool_hostlist_compress(names, n, &list);
	if (!ret && fprintf(out, "SwitchName=s%u %s=%s\n", switch_no(t, l, g),
			    l ? "Switches" : "Nodes", list) < 0)
		ret = -EIO;
	free(list);
out_free:
	for (i = 0; l && i < n; i++)
		free(names[i]);
	free(names);
	return ret;
}

int pool_export_slurm(const struct pool_tree *t, FILE *out)
{
	uint32_t *off, *ord, g;
	unsigned int l;
	int ret = 0;

	for (l = 0; l < t->nlevels && !ret; l++) {
		ret = buckets(t, l, &off, &ord);
		if (ret)
			break;
		for (g = 0; !ret && g < t->ngrp[l]; g++)
			ret = slurm_line(t, l, g, ord, off[g], off[g + 1], out);
		free(off);
		free(ord);
	}
	return ret;
}

int pool_export_k8s(const struct pool_tree *t, FILE *out)
{
	unsigned int l;
	size_t h;

	for (h = 0; h < t->nhosts; h++) {
		if (fprintf(out, "%s", t->host[h]) < 0)
			return -EIO;
		for (l = 0; l < t->nlevels; l++)
			if (fprintf(out, " fabric.topograph.run/tier-%u=s%u",
				    l + 1, switch_no(t, l,
				    t->grp[(size_t)l * t->nhosts + h])) < 0)
				return -EIO;
		if (fputc('\n', out) == EOF)
			return -EIO;
	}
	return 0;
}
