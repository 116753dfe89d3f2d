// SPDX-License-Identifier: MIT
/*
 * Fat-tree recognition by a breadth-first search from the leaves: every
 * switch link must join adjacent levels, which also rules out tori and
 * dragonflies (their switches all hold hosts and link to each other).
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fattreerec.h"

/* The caller has written ft->reason. */
static int not_tree(struct ft_info *ft)
{
	ft->tree = false;
	snprintf(ft->summary, sizeof(ft->summary), "not a fat-tree: %s",
		 ft->reason);
	return 0;
}

/* Level every switch by its distance to the nearest leaf. */
static int level_switches(const struct fabric *f, struct ft_info *ft)
{
	uint32_t *q = malloc((f->nnodes + 1) * sizeof(*q));
	size_t head = 0, tail = 0, n;
	unsigned int p;

	if (!q)
		return -ENOMEM;
	for (n = 0; n < f->nnodes; n++) {
		if (!fab_is_sw(f, n))
			continue;
		for (p = 1; p <= f->nodes[n].nports; p++) {
			const struct fab_port *fp = fab_port(f, n, p);

			if (fp->peer != FAB_NONE && !fab_is_sw(f, fp->peer))
				break;
		}
		if (p <= f->nodes[n].nports) {
			ft->level[n] = 0;
			q[tail++] = n;
		}
	}
	while (head < tail) {
		uint32_t s = q[head++];

		for (p = 1; p <= f->nodes[s].nports; p++) {
			const struct fab_port *fp = fab_port(f, s, p);

			if (fp->peer == FAB_NONE || !fab_is_sw(f, fp->peer) ||
			    ft->level[fp->peer] != FT_NO_LEVEL)
				continue;
			if (ft->level[s] + 1 >= FT_MAX_LEVELS) {
				free(q);
				return -E2BIG;
			}
			ft->level[fp->peer] = ft->level[s] + 1;
			q[tail++] = fp->peer;
		}
	}
	free(q);
	return 0;
}

/* Check links join adjacent levels; count up links and parallel links. */
static int check_links(const struct fabric *f, struct ft_info *ft)
{
	size_t n;
	unsigned int p, up, par;

	for (n = 0; n < f->nnodes; n++) {
		uint8_t l = ft->level[n];

		if (!fab_is_sw(f, n))
			continue;
		if (l == FT_NO_LEVEL) {
			if (fab_cabled_port(f, n)) {
				snprintf(ft->reason, sizeof(ft->reason),
					 "switch \"%s\" has no path to a host",
					 f->nodes[n].desc);
				return not_tree(ft);
			}
			ft->isolated++;
			continue;
		}
		up = 0;
		for (p = 1; p <= f->nodes[n].nports; p++) {
			const struct fab_port *fp = fab_port(f, n, p);
			uint8_t pl;
			unsigned int q;

			if (fp->peer == FAB_NONE || !fab_is_sw(f, fp->peer))
				continue;
			pl = ft->level[fp->peer];
			if (pl == l) {
				snprintf(ft->reason, sizeof(ft->reason),
					 "link between \"%s\" and \"%s\", both at level %u",
					 f->nodes[n].desc,
					 f->nodes[fp->peer].desc, l);
				return not_tree(ft);
			}
			if (pl != l + 1)
				continue;
			up++;
			for (par = 0, q = 1; q <= f->nodes[n].nports; q++)
				par += fab_port(f, n, q)->peer == fp->peer;
			if (par > ft->par_max)
				ft->par_max = par;
		}
		if (l + 1u > ft->nlevels)
			ft->nlevels = l + 1;
		ft->nsw_level[l]++;
		if (up > ft->up_max[l])
			ft->up_max[l] = up;
	}
	ft->tree = true;
	return 0;
}

static unsigned int up_links(const struct fabric *f, const struct ft_info *ft,
			     uint32_t n)
{
	unsigned int p, up = 0;

	for (p = 1; p <= f->nodes[n].nports; p++) {
		const struct fab_port *fp = fab_port(f, n, p);

		up += fp->peer != FAB_NONE && fab_is_sw(f, fp->peer) &&
		      ft->level[fp->peer] == ft->level[n] + 1;
	}
	return up;
}

static void count_hosts(const struct fabric *f, struct ft_info *ft)
{
	size_t n;
	unsigned int p, h;

	for (n = 0; n < f->nnodes; n++) {
		if (!fab_is_sw(f, n) || ft->level[n] == FT_NO_LEVEL)
			continue;
		if (ft->level[n] + 1u < ft->nlevels)
			ft->missing_up += ft->up_max[ft->level[n]] -
					  up_links(f, ft, n);
		if (ft->level[n])
			continue;
		for (h = 0, p = 1; p <= f->nodes[n].nports; p++) {
			const struct fab_port *fp = fab_port(f, n, p);

			h += fp->peer != FAB_NONE && !fab_is_sw(f, fp->peer);
		}
		ft->hosts += h;
		if (h > ft->hosts_max)
			ft->hosts_max = h;
	}
	for (n = 0; n < f->nnodes; n++) {
		if (!fab_is_sw(f, n) || ft->level[n])
			continue;
		for (h = 0, p = 1; p <= f->nodes[n].nports; p++) {
			const struct fab_port *fp = fab_port(f, n, p);

			h += fp->peer != FAB_NONE && !fab_is_sw(f, fp->peer);
		}
		ft->underpop += h < ft->hosts_max;
	}
}

struct hca {
	uint64_t sys, guid;
	uint32_t leaf;
};

static int cmp_hca(const void *a, const void *b)
{
	const struct hca *x = a, *y = b;

	if (x->sys != y->sys)
		return x->sys < y->sys ? -1 : 1;
	return x->guid < y->guid ? -1 : x->guid > y->guid;
}

/*
 * Rail-optimized: hosts (CAs sharing a system GUID) have several HCAs, and
 * the i-th HCA of every host (by port GUID) sits on leaves no other rail
 * uses.  Returns the rail count, 0 when the tree is not rail-optimized.
 */
static unsigned int find_rails(const struct fabric *f)
{
	struct hca *h = malloc((f->nca + 1) * sizeof(*h));
	uint8_t *rail = calloc(f->nnodes + 1, 1);
	size_t n, k = 0, i, j, a;
	unsigned int rails = 0;

	if (!h || !rail)
		goto out;
	for (n = 0; n < f->nnodes; n++) {
		const struct fab_port *fp = fab_port(f, n, 1);

		if (fab_is_sw(f, n) || fp->peer == FAB_NONE)
			continue;
		h[k].sys = f->nodes[n].sysguid;
		h[k].guid = fp->guid;
		h[k++].leaf = fp->peer;
	}
	qsort(h, k, sizeof(*h), cmp_hca);
	for (i = 0; i < k; i = j) {
		for (j = i; j < k && h[j].sys == h[i].sys; j++)
			;
		if (j - i < 2 || j - i > 254) {
			rails = 0;
			goto out;
		}
		for (a = i; a < j; a++) {
			uint8_t r = a - i + 1;

			if (rail[h[a].leaf] && rail[h[a].leaf] != r) {
				rails = 0;
				goto out;
			}
			rail[h[a].leaf] = r;
		}
		if (j - i > rails)
			rails = j - i;
	}
out:
	free(h);
	free(rail);
	return rails;
}

static void summarise(struct ft_info *ft)
{
	char *s = ft->summary;
	size_t len = sizeof(ft->summary), o;
	unsigned int l, nl = ft->nlevels - ft->leaf_level;

	o = snprintf(s, len, "%u-level fat-tree, %u hosts, switches per level",
		     nl, ft->hosts);
	for (l = 0; l < nl && o < len; l++)
		o += snprintf(s + o, len - o, "%s%u", l ? "/" : " ",
			      ft->nsw_level[l]);
	if (o < len && nl > 1) {
		o += snprintf(s + o, len - o, ", up links");
		for (l = 0; l + 1 < nl && o < len; l++)
			o += snprintf(s + o, len - o, "%s%u", l ? "/" : " ",
				      ft->up_max[l]);
	}
	if (o < len && ft->par_max > 1)
		o += snprintf(s + o, len - o, ", %u parallel", ft->par_max);
	if (o < len && ft->rails)
		o += snprintf(s + o, len - o, ", rail-optimized (%u rails)",
			      ft->rails);
	if (o < len && ft->missing_up)
		o += snprintf(s + o, len - o, ", degraded: %zu up links missing",
			      ft->missing_up);
	if (o < len && ft->relevelled)
		o += snprintf(s + o, len - o,
			      ", %u switches without a way up placed below their children",
			      ft->relevelled);
	if (o < len && ft->relevel_failed)
		o += snprintf(s + o, len - o,
			      ", switches without a way up too deep to relevel");
	if (o < len && ft->underpop)
		o += snprintf(s + o, len - o, ", %u leaves under-populated",
			      ft->underpop);
	if (o < len && ft->isolated)
		snprintf(s + o, len - o, ", %zu unlinked switches ignored",
			 ft->isolated);
}

/*
 * Levels seen from the top.  A spine that lost every up link can only be
 * reached through one of its leaves, so up/down routing needs it below
 * them (and whatever hangs only below it further down).  A breadth-first
 * search from the top level finds that order; trees where every switch
 * still has a way up keep their levels.
 */
static int relevel(const struct fabric *f, struct ft_info *ft)
{
	uint32_t *q = malloc((f->nnodes + 1) * sizeof(*q));
	int *lv = malloc((f->nnodes + 1) * sizeof(*lv));
	unsigned int top = ft->nlevels - 1, p, moved = 0;
	size_t head = 0, tail = 0, n;
	int min = 0, shift;

	if (!q || !lv) {
		free(q);
		free(lv);
		return -ENOMEM;
	}
	for (n = 0; n < f->nnodes; n++) {
		lv[n] = INT32_MIN;
		if (fab_is_sw(f, n) && ft->level[n] == top) {
			lv[n] = top;
			q[tail++] = n;
		}
	}
	while (head < tail) {
		uint32_t s = q[head++];

		for (p = 1; p <= f->nodes[s].nports; p++) {
			const struct fab_port *fp = fab_port(f, s, p);

			if (fp->peer != FAB_NONE && fab_is_sw(f, fp->peer) &&
			    lv[fp->peer] == INT32_MIN) {
				lv[fp->peer] = lv[s] - 1;
				q[tail++] = fp->peer;
			}
		}
	}
	for (n = 0; n < f->nnodes; n++) {
		if (!fab_is_sw(f, n) || ft->level[n] == FT_NO_LEVEL)
			continue;
		if (lv[n] == INT32_MIN)
			lv[n] = ft->level[n];	/* a part without a top */
		moved += lv[n] != ft->level[n];
		if (lv[n] < min)
			min = lv[n];
	}
	shift = -min;
	if (!moved)
		goto out;
	if (top + shift >= FT_MAX_LEVELS) {
		ft->relevel_failed = true;
		goto out;
	}
	/*
	 * Every link already joins adjacent levels and the search starts
	 * from one level, so the new levels of two linked switches differ
	 * by exactly one: the result is still a levelled tree.
	 */
	for (n = 0; n < f->nnodes; n++)
		if (fab_is_sw(f, n) && ft->level[n] != FT_NO_LEVEL)
			ft->level[n] = lv[n] + shift;
	ft->nlevels += shift;
	ft->leaf_level = shift;
	ft->relevelled = moved;
out:
	free(q);
	free(lv);
	return 0;
}

int ft_recognise(const struct fabric *f, struct ft_info *ft)
{
	int ret;

	memset(ft, 0, sizeof(*ft));
	ft->level = malloc(f->nnodes ? f->nnodes : 1);
	if (!ft->level)
		return -ENOMEM;
	memset(ft->level, FT_NO_LEVEL, f->nnodes);
	ret = level_switches(f, ft);
	if (ret == -E2BIG) {
		snprintf(ft->reason, sizeof(ft->reason),
			 "more than %d switch levels", FT_MAX_LEVELS);
		return not_tree(ft);
	}
	if (ret)
		return ret;
	if (!memchr(ft->level, 0, f->nnodes)) {
		snprintf(ft->reason, sizeof(ft->reason),
			 "no switch has a host");
		return not_tree(ft);
	}
	ret = check_links(f, ft);
	if (ret || !ft->tree)
		return ret;
	count_hosts(f, ft);
	ft->rails = find_rails(f);
	ret = relevel(f, ft);
	summarise(ft);
	return ret;
}

void ft_info_release(struct ft_info *ft)
{
	free(ft->level);
	ft->level = NULL;
}
