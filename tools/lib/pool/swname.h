/* SPDX-License-Identifier: MIT */
/*
 * The names schedulers see for switches: from a node-name-map (the
 * infiniband-diags file of `GUID "name"` lines), else the switch's
 * NodeDescription, else its node GUID.  A name is a function of its
 * switch and the map alone, so it stays when other switches fail.
 */
#ifndef GPUAWARE_POOL_SWNAME_H
#define GPUAWARE_POOL_SWNAME_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "topology/fabric.h"

#define POOL_SWNAME_MAX 63	/* a Kubernetes label value's limit */

/* A node-name-map, sorted by GUID; everything owned. */
struct pool_swname_map {
	size_t n;
	uint64_t *guid;
	char **name;
};

/*
 * Load the node-name-map at path: '#' comments, blank lines, and lines
 * `GUID "NAME"` (GUID as strtoull base 0 reads it, the node GUID).  Every
 * NAME must pass pool_swname_valid() and name one GUID.  Returns 0, or a
 * negative errno with m empty and err "PATH:LINE: what is wrong".
 */
int pool_swname_map_load(const char *path, struct pool_swname_map *m,
			 char *err, size_t len);
void pool_swname_map_release(struct pool_swname_map *m);

/*
 * A name both Slurm (a switch or block name) and Kubernetes (a label
 * value) take: 1 to POOL_SWNAME_MAX of A-Z a-z 0-9 - _ ., starting and
 * ending with a letter or digit.
 */
bool pool_swname_valid(const char *s);

/*
 * The name of every switch of f into *names (f->nnodes entries, NULL for
 * CAs; owned, pool_swname_free() releases): its map entry (m may be
 * NULL), else its NodeDescription when valid and no other switch of f
 * has the same one, else "0x" and its node GUID in 16 hex digits.
 * Returns 0 or -ENOMEM.
 */
int pool_swname_build(const struct fabric *f, const struct pool_swname_map *m,
		      char ***names);
void pool_swname_free(char **names, size_t n);

#endif
