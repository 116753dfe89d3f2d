/* SPDX-License-Identifier: MIT */
/*
 * An incremental channel dependency graph: edges between numbered channel
 * nodes, added in batches that are refused whole when one closes a cycle.
 */
#ifndef GPUAWARE_CDG_H
#define GPUAWARE_CDG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/*
 * The caller owns the struct; its arrays are the graph's, from cdg_init()
 * until cdg_release().  Fields are private to cdg.c.
 */
struct cdg {
	uint32_t nn;		/* nodes */
	uint32_t *head;		/* per node: its last edge, UINT32_MAX */
	uint32_t *from, *to, *next;	/* per edge */
	size_t ne, cap;
	uint32_t *seen, *stk, stamp;
};

/*
 * An empty graph on nodes 0..nn).  0 or -ENOMEM; on error too, g is to
 * be released.
 */
int cdg_init(struct cdg *g, uint32_t nn);

/* Frees what g holds; g may be released twice, or after a failed init. */
void cdg_release(struct cdg *g);

/* Whether node b reaches node a along the edges (a node reaches itself). */
bool cdg_reach(struct cdg *g, uint32_t b, uint32_t a);

/*
 * Adds the edges from[i] -> to[i], i < n, those not yet present.  With
 * check, when the graph was acyclic and one of them closes a cycle, none
 * is kept.  1 added, 0 refused, or -ENOMEM (the batch not kept).
 */
int cdg_add(struct cdg *g, const uint32_t *from, const uint32_t *to,
	    size_t n, bool check);

#endif
