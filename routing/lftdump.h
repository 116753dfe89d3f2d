/* SPDX-License-Identifier: MIT */
/*
 * OpenSM's routing dumps: opensm-lfts.dump into rt_tables, and
 * opensm-sl2vl.dump into an rt_vl, for a fabric read from the same sweep's
 * opensm-subnet.lst (topology/osmdump.h).
 */
#ifndef GPUAWARE_LFTDUMP_H
#define GPUAWARE_LFTDUMP_H

#include <stddef.h>
#include <stdio.h>

#include "lft.h"

/*
 * Load path into t (initialised here; on success release it with
 * rt_tables_release(), on error it is left released).  Switches are
 * matched by node GUID; every switch of f needs exactly one table, and
 * the file's LID owners must be the ports f gives those LIDs.  The dump
 * is the only place that shows LMC, so this sets the lmc of f's ports
 * from the LIDs routed to them before it sizes t; f must outlive t.
 * On error returns a negative errno and puts "FILE:LINE: what" into err.
 */
int lftdump_load(const char *path, struct fabric *f, struct rt_tables *t,
		 char *err, size_t errlen);

/* Same, from an open stream; name is used in messages. */
int lftdump_load_stream(FILE *in, const char *name, struct fabric *f,
			struct rt_tables *t, char *err, size_t errlen);

/*
 * Load the SL2VL tables of t's switches (matched by port GUID) into a new
 * rt_vl (*out, caller frees with lftdump_vl_free() after clearing any
 * t->vl that points at it).  OpenSM dumps no path SLs, so path_sl()
 * answers 0 for every pair and nvl counts the VLs SL 0 maps to.
 * (in, out) pairs the file does not list map every SL to VL 15.
 * Errors as for lftdump_load().
 */
int lftdump_load_sl2vl(const char *path, const struct rt_tables *t,
		       struct rt_vl **out, char *err, size_t errlen);

/* Same, from an open stream; name is used in messages. */
int lftdump_load_sl2vl_stream(FILE *in, const char *name,
			      const struct rt_tables *t, struct rt_vl **out,
			      char *err, size_t errlen);

void lftdump_vl_free(struct rt_vl *vl);

#endif
