// SPDX-License-Identifier: MIT
/*
 * The map's layout on generated fabrics: every switch drawn once, every
 * cable on the edge of its two boxes, levels as rows, torus neighbours
 * side by side, dragonfly groups together, big trees grouped by pod.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tu.h"
#include "tu_route.h"
#include "topology/gen.h"
#include "topology/layout.h"

static struct fabric *torus(unsigned int x, unsigned int y, unsigned int z)
{
	struct gen_torus t;
	struct gen_opts o;
	struct fabric *f = NULL;
	char err[256];

	gen_opts_init(&o);
	gen_torus_init(&t, true);
	t.ndims = z ? 3 : 2;
	t.dim[0] = x;
	t.dim[1] = y;
	t.dim[2] = z;
	CU_ASSERT_FATAL(!gen_torus(&t, &o, &f, err, sizeof(err)));
	return f;
}

static struct fabric *dragonfly(void)
{
	struct gen_dragonfly d;
	struct gen_opts o;
	struct fabric *f = NULL;
	char err[256];

	gen_opts_init(&o);
	gen_dragonfly_init(&d, false);
	CU_ASSERT_FATAL(!gen_dragonfly(&d, &o, &f, err, sizeof(err)));
	return f;
}

/* What holds for any layout: each switch once, cables on their edges,
 * boxes apart and inside the drawing. */
static void check_common(const struct fabric *f, const struct lay *l)
{
	uint32_t *seen = calloc(f->nnodes, sizeof(*seen)), n, b, k, e;
	size_t cables = 0;
	unsigned int p;

	CU_ASSERT_FATAL(seen != NULL);
	for (b = 0; b < l->nbox; b++) {
		const struct lay_box *x = &l->box[b];

		CU_ASSERT(x->x >= 0 && x->y >= 0);
		CU_ASSERT(x->x + x->w <= l->width && x->y + x->h <= l->height);
		for (k = x->first; k < x->first + x->nsw; k++) {
			seen[l->sw[k]]++;
			CU_ASSERT(l->box_of[l->sw[k]] == b);
		}
		for (k = b + 1; k < l->nbox; k++) {
			const struct lay_box *y = &l->box[k];

			CU_ASSERT(x->x + x->w <= y->x || y->x + y->w <= x->x ||
				  x->y + x->h <= y->y || y->y + y->h <= x->y);
		}
	}
	for (n = 0; n < f->nnodes; n++)
		CU_ASSERT(seen[n] == (fab_is_sw(f, n) ? 1u : 0u));
	for (e = 0; e < l->nedge; e++)
		cables += l->edge[e].cables;
	CU_ASSERT(cables == fab_sw_links(f));
	for (n = 0; n < f->nnodes; n++)
		for (p = 1; fab_is_sw(f, n) && p <= f->nodes[n].nports; p++) {
			uint32_t m = fab_port(f, n, p)->peer, gp;
			bool ab;

			gp = f->nodes[n].port0 + p;
			if (m == FAB_NONE || !fab_is_sw(f, m)) {
				CU_ASSERT(l->edge_of[gp] == LAY_NONE);
				continue;
			}
			e = lay_edge_dir(l, n, gp, &ab);
			CU_ASSERT_FATAL(e < l->nedge);
			CU_ASSERT(l->box_of[n] == (ab ? l->edge[e].a :
							l->edge[e].b));
			CU_ASSERT(l->box_of[m] == (ab ? l->edge[e].b :
							l->edge[e].a));
		}
	free(seen);
}

static const char *name_of(const struct fabric *f, const struct lay *l,
			   uint32_t b)
{
	return f->nodes[l->sw[l->box[b].first]].desc;
}

static void test_tree_rows(void)
{
	struct fabric *f = tu_radix_tree(8, 3);
	/* rows of 32, each switch in a box of its own (the default groups
	 * rows of more than LAY_ROW_MAX) */
	struct lay_opts o = { .row_max = 32 };
	struct lay l;
	uint32_t b;

	CU_ASSERT_FATAL(!lay_build(f, &o, &l));
	check_common(f, &l);
	CU_ASSERT(l.kind == LAY_TREE);
	CU_ASSERT(!strcmp(l.what, "3-level fat-tree"));
	CU_ASSERT(!l.grouped);
	CU_ASSERT(l.nbox == f->nsw);
	/* leaves on the bottom row, cores on top, each row one height */
	for (b = 0; b < l.nbox; b++) {
		const char *nm = name_of(f, &l, b);
		unsigned int want = !strncmp(nm, "leaf", 4) ? 0 :
				    !strncmp(nm, "spine", 5) ? 1 : 2;

		CU_ASSERT(l.box[b].row == want);
		if (b && l.box[b].row == l.box[b - 1].row)
			CU_ASSERT(l.box[b].y == l.box[b - 1].y);
		if (b && l.box[b].row > l.box[b - 1].row)
			CU_ASSERT(l.box[b].y < l.box[b - 1].y);
		CU_ASSERT(l.box[b].nhosts == (want ? 0u : 4u));
	}
	/* leaves in name order, pods' spines above their leaves */
	CU_ASSERT(!strcmp(name_of(f, &l, 0), "leaf-p0-0"));
	CU_ASSERT(!strcmp(name_of(f, &l, 1), "leaf-p0-1"));
	CU_ASSERT(!strcmp(name_of(f, &l, 32), "spine-p0-0"));
	lay_release(&l);
	fab_free(f);
}

/* Pods of box b's switches: "leaf-p3-*" is pod 3's. */
static unsigned int box_pods(const struct fabric *f, const struct lay *l,
			     uint32_t b)
{
	const char *a, *z;
	unsigned int n = 1;
	uint32_t k;

	for (k = 1; k < l->box[b].nsw; k++) {
		a = f->nodes[l->sw[l->box[b].first + k - 1]].desc;
		z = f->nodes[l->sw[l->box[b].first + k]].desc;
		n += !!strncmp(a, z, strchr(strchr(a, '-') + 1, '-') - a + 1);
	}
	return n;
}

/*
 * A 1,024-host tree with rows of 128 switches: with rows of 16 boxes one
 * box per pod; by default (rows of 12) two whole pods a box.
 */
static void test_tree_pods(void)
{
	struct fabric *f = tu_radix_tree(16, 3);
	struct lay_opts o = { .row_max = 16 };
	struct lay l;
	uint32_t b, k;
	unsigned int per_row[3] = { 0 };

	CU_ASSERT_FATAL(!lay_build(f, &o, &l));
	check_common(f, &l);
	CU_ASSERT(l.grouped);
	for (b = 0; b < l.nbox; b++) {
		const char *a = name_of(f, &l, b);

		per_row[l.box[b].row]++;
		CU_ASSERT(l.box[b].nsw == 8);
		if (l.box[b].row == 2)
			continue;
		/* one pod: "leaf-p3-*" all */
		for (k = 1; k < l.box[b].nsw; k++) {
			const char *z = f->nodes[l.sw[l.box[b].first + k]].desc;

			CU_ASSERT(!strncmp(a, z, strchr(strchr(a, '-') + 1,
							'-') - a + 1));
		}
	}
	CU_ASSERT(per_row[0] == 16 && per_row[1] == 16 && per_row[2] == 8);
	lay_release(&l);
	memset(per_row, 0, sizeof(per_row));
	CU_ASSERT_FATAL(!lay_build(f, NULL, &l));
	check_common(f, &l);
	for (b = 0; b < l.nbox; b++) {
		per_row[l.box[b].row]++;
		if (l.box[b].row == 2)
			continue;
		CU_ASSERT(l.box[b].nsw == 16);
		CU_ASSERT(box_pods(f, &l, b) == 2);
	}
	CU_ASSERT(per_row[0] == 8 && per_row[1] == 8 && per_row[2] <= 12);
	lay_release(&l);
	fab_free(f);
}

/* A switch with no cable: drawn at the bottom, the pods still found. */
static void test_tree_unlinked(void)
{
	struct fabric *f = tu_radix_tree(16, 3);
	struct lay_opts o = { .row_max = 16 };	/* a box per pod */
	unsigned int leaves = 0;
	struct lay l;
	uint32_t b, lone;
	int n = fab_add_node(f, FAB_SW, 8, 0x0002c9fffffffff0ull, "lonely");

	CU_ASSERT_FATAL(n >= 0);
	lone = (uint32_t)n;
	CU_ASSERT_FATAL(!lay_build(f, &o, &l));
	check_common(f, &l);
	for (b = 0; b < l.nbox; b++) {
		if (l.box[b].row == 0) {
			leaves++;
			CU_ASSERT(l.box[b].y < l.box[l.box_of[lone]].y);
		}
	}
	CU_ASSERT(leaves == 16);
	CU_ASSERT(l.box[l.box_of[lone]].nsw == 1);
	lay_release(&l);
	fab_free(f);
}

/* Degraded: the cores' neighbour sets differ, rows stay within limits. */
static void test_tree_limits(void)
{
	struct lay_opts o = { .row_max = 10 };
	struct fabric *f = tu_tree(4, 3, 0.05, 5, 0);
	unsigned int per_row[4] = { 0 };
	struct lay l;
	uint32_t b;

	CU_ASSERT_FATAL(!lay_build(f, &o, &l));
	check_common(f, &l);
	for (b = 0; b < l.nbox; b++)
		per_row[l.box[b].row < 3 ? l.box[b].row : 3]++;
	CU_ASSERT(per_row[0] <= 10 && per_row[1] <= 10 && per_row[2] <= 10);
	CU_ASSERT(per_row[3] == 0);
	lay_release(&l);
	fab_free(f);
}

static void test_torus(void)
{
	struct fabric *f = torus(4, 4, 4);
	unsigned int paths[4] = { 0 };
	struct lay l;
	uint32_t e;

	CU_ASSERT_FATAL(!lay_build(f, NULL, &l));
	check_common(f, &l);
	CU_ASSERT(l.kind == LAY_TORUS);
	CU_ASSERT(!strcmp(l.what, "4x4x4 torus"));
	CU_ASSERT(l.nbox == 64 && l.nedge == 192);
	for (e = 0; e < l.nedge; e++) {
		const struct lay_edge *x = &l.edge[e];
		const struct lay_box *a = &l.box[x->a], *b = &l.box[x->b];

		paths[x->path]++;
		/* neighbours in a plane are one grid step apart */
		if (x->path == LAY_LINE)
			CU_ASSERT((a->x == b->x) != (a->y == b->y));
		CU_ASSERT((x->path == LAY_STUB) == (a->row != b->row));
	}
	/* in each of 4 planes: 16 + 16 cables, 8 of them wrapping */
	CU_ASSERT(paths[LAY_LINE] == 96);
	CU_ASSERT(paths[LAY_ARC] == 32);
	CU_ASSERT(paths[LAY_STUB] == 64);
	CU_ASSERT(paths[LAY_INSIDE] == 0);
	lay_release(&l);
	fab_free(f);
}

/* 32 x 32: too many boxes; 2 x 2 blocks, cables inside them kept. */
static void test_torus_blocks(void)
{
	struct lay_opts o = { .sw_max = 300 };
	struct fabric *f = torus(32, 32, 0);
	unsigned int inside = 0;
	struct lay l;
	uint32_t e;

	CU_ASSERT_FATAL(!lay_build(f, &o, &l));
	check_common(f, &l);
	CU_ASSERT(l.grouped && l.nbox == 256);
	for (e = 0; e < l.nedge; e++)
		if (l.edge[e].path == LAY_INSIDE) {
			inside += l.edge[e].cables;
			CU_ASSERT(l.edge[e].a == l.edge[e].b);
		}
	CU_ASSERT(inside == 256 * 4);
	lay_release(&l);
	fab_free(f);
}

static void test_dragonfly(void)
{
	struct lay_opts o = { .sw_max = 8 };
	struct fabric *f = dragonfly();
	struct lay l;
	uint32_t b, e;

	CU_ASSERT_FATAL(!lay_build(f, NULL, &l));
	check_common(f, &l);
	CU_ASSERT(l.kind == LAY_DRAGONFLY);
	CU_ASSERT(!strcmp(l.what, "dragonfly of 9 groups"));
	for (b = 1; b < l.nbox; b++)
		CU_ASSERT(l.box[b].row >= l.box[b - 1].row);
	for (e = 0; e < l.nedge; e++)
		CU_ASSERT((l.edge[e].path == LAY_ARC) ==
			  (l.box[l.edge[e].a].row == l.box[l.edge[e].b].row));
	lay_release(&l);
	/* a box per group: its local cables inside, the globals between */
	CU_ASSERT_FATAL(!lay_build(f, &o, &l));
	check_common(f, &l);
	CU_ASSERT(l.nbox == 9 && l.grouped);
	for (e = 0; e < l.nedge; e++)
		CU_ASSERT((l.edge[e].path == LAY_INSIDE) ==
			  (l.edge[e].a == l.edge[e].b));
	lay_release(&l);
	fab_free(f);
}

/* A leaf's port that holds a host, freed for another cable. */
static unsigned int free_host_port(struct fabric *f, uint32_t n)
{
	unsigned int p;

	for (p = 1; p <= f->nodes[n].nports; p++) {
		uint32_t m = fab_port(f, n, p)->peer;

		if (m != FAB_NONE && !fab_is_sw(f, m)) {
			CU_ASSERT_FATAL(!fab_unlink(f, n, p));
			return p;
		}
	}
	return 0;
}

/* Two leaves cabled together: no fat-tree, rows by hops from hosts. */
static void test_layers(void)
{
	struct fabric *f = tu_radix_tree(8, 2);
	uint32_t a = FAB_NONE, b = FAB_NONE, n;
	unsigned int pa, pb;
	struct lay l;

	for (n = 0; n < f->nnodes && b == FAB_NONE; n++)
		if (fab_is_sw(f, n) && !strncmp(f->nodes[n].desc, "leaf", 4))
			*(a == FAB_NONE ? &a : &b) = n;
	CU_ASSERT_FATAL(b != FAB_NONE);
	pa = free_host_port(f, a);
	pb = free_host_port(f, b);
	CU_ASSERT_FATAL(pa && pb && !fab_link(f, a, pa, b, pb, 4, 250));
	CU_ASSERT_FATAL(!lay_build(f, NULL, &l));
	check_common(f, &l);
	CU_ASSERT(l.kind == LAY_LAYERS);
	/* the leaf-to-leaf cable runs along its row, as an arc */
	CU_ASSERT(l.box[l.box_of[a]].row == 0 && l.box[l.box_of[b]].row == 0);
	CU_ASSERT(l.edge[l.edge_of[f->nodes[a].port0 + pa]].path == LAY_ARC);
	lay_release(&l);
	fab_free(f);
}

TU_SUITE(layout,
	 { "tree rows", test_tree_rows },
	 { "tree pods", test_tree_pods },
	 { "tree unlinked", test_tree_unlinked },
	 { "tree limits", test_tree_limits },
	 { "torus", test_torus },
	 { "torus blocks", test_torus_blocks },
	 { "dragonfly", test_dragonfly },
	 { "layers", test_layers })
