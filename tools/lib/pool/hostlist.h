/* SPDX-License-Identifier: MIT */
/*
 * Slurm hostlist expressions: "gpu[01-04,07]", "a[1-2]b[3-4]", "a,b"
 * expanded into names, and names compressed back into that form.
 */
#ifndef GPUAWARE_POOL_HOSTLIST_H
#define GPUAWARE_POOL_HOSTLIST_H

#include <stddef.h>

#define POOL_HOSTLIST_MAX 65536	/* default cap on expanded names */
#define POOL_HOST_NAME_MAX 255	/* longest name produced or accepted */

/*
 * Expand expr into *names (an array of *n strings, all owned by the caller
 * and freed with pool_hostlist_free()).  Terms are separated by commas
 * outside brackets; a bracket holds comma-separated numbers and ranges
 * "lo-hi", zero-padded to the width of lo ("n[08-11]": n08 .. n11,
 * "n[8-11]": n8 .. n11); several brackets in one term give their
 * cartesian product, leftmost varying slowest.  Order is kept, duplicates
 * too (Slurm's order).  Returns 0, or -EINVAL (malformed: message in err),
 * -E2BIG (more than max names) or -ENOMEM; *names is NULL on error.
 */
int pool_hostlist_expand(const char *expr, size_t max, char ***names,
			 size_t *n, char *err, size_t len);

void pool_hostlist_free(char **names, size_t n);

/*
 * The shortest form this module writes for names: names that differ only
 * in a trailing number of one width become "prefix[lo-hi,...]", sorted by
 * prefix, width and number; duplicates are dropped; other names stay as
 * they are.  *out is a new string the caller frees.  Returns 0 or -ENOMEM.
 */
int pool_hostlist_compress(char *const *names, size_t n, char **out);

#endif
