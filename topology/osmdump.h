/* SPDX-License-Identifier: MIT */
/*
 * OpenSM's opensm-subnet.lst (written with log flag 0x40 into
 * dump_files_dir): load the nodes, ports, LIDs and links it lists.
 */
#ifndef GPUAWARE_OSMDUMP_H
#define GPUAWARE_OSMDUMP_H

#include <stddef.h>
#include <stdio.h>

#include "fabric.h"

/*
 * Load path into a new fabric (*out, caller frees with fab_free()).
 * Nodes appear in the order the file first names them.  Every link must
 * be listed once from each end, and both views must agree; routers load
 * as CAs (they are endpoints to unicast routing).  The file carries base
 * LIDs only, so every LMC is 0 here: lftdump_load() infers it.
 * On error returns a negative errno and puts "FILE:LINE: what" into err.
 */
int osmdump_load(const char *path, struct fabric **out, char *err,
		 size_t errlen);

/* Same, from an open stream; name is used in messages. */
int osmdump_load_stream(FILE *in, const char *name, struct fabric **out,
			char *err, size_t errlen);

#endif
