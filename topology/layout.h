/* SPDX-License-Identifier: MIT */
/*
 * Where a picture of the fabric puts each switch: fat-tree levels as rows,
 * torus planes as grids, dragonfly groups around a circle, anything else
 * in rows by hops from the hosts.  Big fabrics draw several switches as
 * one box.  Geometry only (SVG user units, y down); drawing is the
 * caller's.
 */
#ifndef GPUAWARE_LAYOUT_H
#define GPUAWARE_LAYOUT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "fabric.h"

#define LAY_NONE UINT32_MAX

enum lay_kind {
	LAY_TREE,		/* recognised fat-tree: rows are its levels */
	LAY_TORUS,		/* planes of the first two dimensions */
	LAY_DRAGONFLY,		/* groups on a circle */
	LAY_LAYERS,		/* rows by hops from the nearest host */
};

/* One box: a switch, or consecutive switches of a row, block or group. */
struct lay_box {
	double x, y, w, h;	/* top left corner and size */
	uint32_t first, nsw;	/* its switches: lay.sw[first .. first + nsw) */
	uint32_t nhosts;	/* CA ports cabled to them */
	unsigned int row;	/* level, plane or group */
	/* its hosts' cells: cols a row, cell units square, from hx, hy */
	double hx, hy, cell;
	unsigned int cols;
};

enum lay_path {
	LAY_LINE,		/* straight from (x1, y1) to (x2, y2) */
	LAY_ARC,		/* quadratic curve through control (cx, cy) */
	LAY_STUB,		/* off the drawing's plane: a tick (cx, cy) long
				 * from (x1, y1), the reverse from (x2, y2) */
	LAY_INSIDE,		/* both ends in box a (= b): not drawn */
};

/* The cables between two boxes, drawn as one. */
struct lay_edge {
	uint32_t a, b;		/* boxes, a <= b */
	uint32_t cables;
	enum lay_path path;
	double x1, y1, x2, y2;	/* the ends: at a, at b */
	double cx, cy;
};

struct lay_label {
	double x, y;		/* text anchor: its start, on the baseline */
	char text[48];
};

/* Owned; lay_release() frees it. */
struct lay {
	enum lay_kind kind;
	char what[96];		/* what was recognised, for a title */
	bool grouped;		/* some box holds several switches */
	double width, height;
	uint32_t nbox, nedge, nlabel;
	struct lay_box *box;
	struct lay_edge *edge;	/* by (a, b) */
	struct lay_label *label;
	uint32_t *sw;		/* switch node indices, box by box */
	uint32_t *box_of;	/* per fabric node: its box; LAY_NONE for CAs */
	/* per fabric port cabling two switches: its edge, else LAY_NONE;
	 * the port sends towards b when its node is in box a */
	uint32_t *edge_of;
};

/*
 * The most boxes a tree row holds and the most switches a torus or
 * dragonfly draws one by one, before switches share boxes; 0: defaults
 * (LAY_ROW_MAX, LAY_SW_MAX).
 */
struct lay_opts {
	unsigned int row_max;
	unsigned int sw_max;
};

#define LAY_ROW_MAX 12
#define LAY_GROUPS_MAX 32	/* dragonfly groups drawn before they share boxes */
#define LAY_FONT 9.0		/* switch names' font size */
#define LAY_CHAR_W 5.4		/* a name's characters in it */
#define LAY_SW_MAX 512

/* Lay f out into l.  Returns 0 or -ENOMEM; l needs lay_release() then. */
int lay_build(const struct fabric *f, const struct lay_opts *o,
	      struct lay *l);
void lay_release(struct lay *l);

/*
 * The edge of the directed link that leaves node n by fabric port gp
 * (LAY_NONE: not a switch-to-switch cable), and whether it runs from the
 * edge's a to its b (always, for LAY_INSIDE).
 */
static inline uint32_t lay_edge_dir(const struct lay *l, uint32_t n,
				    uint32_t gp, bool *ab)
{
	uint32_t e = l->edge_of[gp];

	*ab = e == LAY_NONE || l->box_of[n] == l->edge[e].a;
	return e;
}

#endif
