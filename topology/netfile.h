/* SPDX-License-Identifier: MIT */
/*
 * ibsim net files and ibnetdiscover output: load them into a fabric graph,
 * and write a fabric back as an ibsim net file with fixed GUIDs.
 */
#ifndef GPUAWARE_NETFILE_H
#define GPUAWARE_NETFILE_H

#include <stddef.h>
#include <stdio.h>

#include "fabric.h"

/*
 * Load path into a new fabric (*out, caller frees with fab_free()).
 * On error returns a negative errno and puts "FILE:LINE: what" into err.
 * Links must be consistent from both ends when both ends list them.
 */
int fab_load_net(const char *path, struct fabric **out, char *err,
		 size_t errlen);

/* Same, from an open stream; name is used in messages. */
int fab_load_net_stream(FILE *in, const char *name, struct fabric **out,
			char *err, size_t errlen);

/*
 * Write f as an ibsim net file: a switchguid=/caguid= line before each node
 * fixes its GUIDs, each link is listed from both ends, node descriptions
 * become the quoted ids.  Returns 0 or a negative errno.
 */
int fab_write_net(const struct fabric *f, FILE *out);

#endif
