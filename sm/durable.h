/* SPDX-License-Identifier: MIT */
/*
 * Durable file writes for state that must survive a crash: the hint
 * table's file and the pool daemon's journal and snapshot.
 */
#ifndef GPUAWARE_DURABLE_H
#define GPUAWARE_DURABLE_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

/*
 * Whether fd, a state file (dir: a state directory), is safe to trust
 * and write: a regular file (a directory), owned by this process's
 * effective uid or root, that neither group nor others can write (who
 * can write the directory can swap its files for symlinks).  0, or
 * -EPERM with why ("owned by uid 65534") filled; -errno from fstat.
 */
int sm_check_private(int fd, bool dir, char *why, size_t len);

/* Write all n bytes of p to fd, retrying short writes; 0 or -errno. */
int sm_write_all(int fd, const void *p, size_t n);

/*
 * Replace name in directory dirfd by data, so that a crash leaves either
 * the old file or the new one whole: data goes to tmp in the same
 * directory, created exclusively with exactly mode (a stale tmp is
 * removed first, a symlink there never followed), is synced, renamed
 * over name, and the directory is synced.  Returns 0, or a negative errno with *step
 * naming what failed ("create temporary file", "write temporary file",
 * "fsync temporary file", "close temporary file", "rename", "fsync
 * directory"); tmp is removed then and name is as it was.
 */
int sm_replace_at(int dirfd, const char *tmp, const char *name,
		  const void *data, size_t len, mode_t mode,
		  const char **step);

/*
 * sm_replace_at() by path, in its directory, the temporary file
 * ".NAME.tmpPID": what is at path is replaced, never written through (a
 * symlink there is replaced, not followed).  An existing path that is
 * not a regular file (a symlink, FIFO, device, directory) is refused
 * with -EPERM and *step "refuse: not a regular file"; else as
 * sm_replace_at(), *step "open directory" too.
 */
int sm_replace_path(const char *path, const void *data, size_t len,
		    mode_t mode, const char **step);

#endif
