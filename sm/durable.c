// SPDX-License-Identifier: MIT
/* Whole writes and crash-safe file replacement (see durable.h). */
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "durable.h"

int sm_check_private(int fd, bool dir, char *why, size_t len)
{
	struct stat st;

	if (fstat(fd, &st)) {
		snprintf(why, len, "%s", strerror(errno));
		return -errno;
	}
	if (dir ? !S_ISDIR(st.st_mode) : !S_ISREG(st.st_mode))
		snprintf(why, len, "not a %s", dir ? "directory" : "regular file");
	else if (st.st_uid != geteuid() && st.st_uid != 0)
		snprintf(why, len, "owned by uid %u, neither root nor uid %u",
			 (unsigned int)st.st_uid, (unsigned int)geteuid());
	else if (st.st_mode & (S_IWGRP | S_IWOTH))
		snprintf(why, len, "mode %04o: group or others can write it",
			 (unsigned int)(st.st_mode & 07777));
	else
		return 0;
	return -EPERM;
}

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

/*
 * A new tmp with exactly mode: created exclusively, so neither a symlink
 * there nor an old file (whose mode and owner would pass on) is written
 * through.  One left by a crash is removed first.  The fd, or -errno.
 */
static int create_tmp(int dirfd, const char *tmp, mode_t mode)
{
	const int flags = O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC;
	int fd = openat(dirfd, tmp, flags, mode), ret;

	if (fd < 0 && errno == EEXIST && !unlinkat(dirfd, tmp, 0))
		fd = openat(dirfd, tmp, flags, mode);
	if (fd < 0)
		return -errno;
	/* the umask may have taken bits the caller asked for */
	if (!fchmod(fd, mode))
		return fd;
	ret = -errno;
	close(fd);
	unlinkat(dirfd, tmp, 0);
	return ret;
}

int sm_replace_at(int dirfd, const char *tmp, const char *name,
		  const void *data, size_t len, mode_t mode,
		  const char **step)
{
	int fd, ret;

	*step = "create temporary file";
	fd = create_tmp(dirfd, tmp, mode);
	if (fd < 0)
		return fd;
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

int sm_replace_path(const char *path, const void *data, size_t len,
		    mode_t mode, const char **step)
{
	char *d = strdup(path), *b = strdup(path), tmp[NAME_MAX + 1];
	struct stat st;
	int dirfd = -1, ret = -ENOMEM;

	*step = "out of memory";
	if (!d || !b)
		goto out;
	*step = "refuse: not a regular file";
	ret = -EPERM;
	if (!lstat(path, &st) && !S_ISREG(st.st_mode))
		goto out;
	*step = "temporary file name";
	ret = -ENAMETOOLONG;
	if ((size_t)snprintf(tmp, sizeof(tmp), ".%s.tmp%ld", basename(b),
			     (long)getpid()) >= sizeof(tmp))
		goto out;
	*step = "open directory";
	dirfd = open(dirname(d), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	ret = dirfd < 0 ? -errno : sm_replace_at(dirfd, tmp, basename(b),
						 data, len, mode, step);
out:
	if (dirfd >= 0)
		close(dirfd);
	free(d);
	free(b);
	return ret;
}
