// SPDX-License-Identifier: MIT
/* Whole writes and crash-safe file replacement (see durable.h). */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <unistd.h>

#include "durable.h"

int sm_write_all(int fd, const void *p, size_t n)
{
	const char *c = p;
	ssize_t w;

	while (n) {
		w = write(fd, c, n);
		if (w < 0 && errno == EINTR)
			continue;
		if (w < 0)
			return -errno;
		if (!w)
			return -EIO;
		c += w;
		n -= (size_t)w;
	}
	return 0;
}

int sm_replace_at(int dirfd, const char *tmp, const char *name,
		  const void *data, size_t len, mode_t mode,
		  const char **step)
{
	int fd, ret;

	*step = "create temporary file";
	fd = openat(dirfd, tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC,
		    mode);
	if (fd < 0)
		return -errno;
	*step = "write temporary file";
	ret = sm_write_all(fd, data, len);
	if (!ret) {
		*step = "fsync temporary file";
		ret = fsync(fd) ? -errno : 0;
	}
	if (close(fd) && !ret) {
		*step = "close temporary file";
		ret = -errno;
	}
	if (!ret) {
		*step = "rename";
		ret = renameat(dirfd, tmp, dirfd, name) ? -errno : 0;
	}
	if (ret) {
		unlinkat(dirfd, tmp, 0);
		return ret;
	}
	/* the rename itself is durable only once the directory is synced */
	*step = "fsync directory";
	return fsync(dirfd) ? -errno : 0;
}
