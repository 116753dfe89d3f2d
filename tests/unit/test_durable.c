// SPDX-License-Identifier: MIT
/* Crash-safe file replacement: what a stale temporary file cannot do. */
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "tu.h"
#include "sm/durable.h"

static void put(const char *path, const char *text, mode_t mode)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, mode);

	CU_ASSERT_FATAL(fd >= 0);
	CU_ASSERT(sm_write_all(fd, text, strlen(text)) == 0);
	CU_ASSERT(fchmod(fd, mode) == 0);
	close(fd);
}

/* path holds exactly text. */
static bool holds(const char *path, const char *text)
{
	char buf[256];
	ssize_t n;
	int fd = open(path, O_RDONLY);

	if (fd < 0)
		return false;
	n = read(fd, buf, sizeof(buf));
	close(fd);
	return n == (ssize_t)strlen(text) && !memcmp(buf, text, n);
}

static void replace(int dfd, mode_t mode)
{
	const char *step = "";

	CU_ASSERT_EQUAL(sm_replace_at(dfd, "f.tmp", "f", "new", 3, mode,
				      &step), 0);
}

/*
 * A temporary file a crash left (or someone put there) never passes its
 * mode on, is never written through, and is gone afterwards; the new
 * file has the mode asked for, whatever the umask.
 */
static void test_stale_tmp(void)
{
	char dir[] = "/tmp/tu-durable.XXXXXX", p[128], tmp[128], victim[128];
	struct stat st;
	mode_t old;
	int dfd;

	CU_ASSERT_FATAL(mkdtemp(dir) != NULL);
	dfd = open(dir, O_RDONLY | O_DIRECTORY);
	CU_ASSERT_FATAL(dfd >= 0);
	snprintf(p, sizeof(p), "%s/f", dir);
	snprintf(tmp, sizeof(tmp), "%s/f.tmp", dir);
	snprintf(victim, sizeof(victim), "%s/victim", dir);

	put(tmp, "stale and longer", 0644);
	replace(dfd, 0600);
	CU_ASSERT(holds(p, "new"));
	CU_ASSERT(stat(p, &st) == 0 && (st.st_mode & 07777) == 0600);
	CU_ASSERT(access(tmp, F_OK) && errno == ENOENT);

	/* a symlink at the temporary name: the file it names stays */
	put(victim, "precious", 0644);
	CU_ASSERT_FATAL(symlink(victim, tmp) == 0);
	replace(dfd, 0600);
	CU_ASSERT(holds(victim, "precious"));
	CU_ASSERT(lstat(p, &st) == 0 && S_ISREG(st.st_mode) &&
		  (st.st_mode & 07777) == 0600);
	CU_ASSERT(lstat(tmp, &st) && errno == ENOENT);

	/* the mode asked for, not what the umask leaves of it */
	old = umask(0277);
	replace(dfd, 0640);
	umask(old);
	CU_ASSERT(stat(p, &st) == 0 && (st.st_mode & 07777) == 0640);
	close(dfd);
	CU_ASSERT(unlink(p) == 0 && unlink(victim) == 0 && rmdir(dir) == 0);
}

/*
 * By path: a regular file is replaced; a symlink or a FIFO at the path
 * is refused and nothing is written through it (issue 24).
 */
static void test_replace_path(void)
{
	char dir[] = "/tmp/tu-durable.XXXXXX", p[128], link[128], fifo[128];
	char victim[128];
	const char *step = "";

	CU_ASSERT_FATAL(mkdtemp(dir) != NULL);
	snprintf(p, sizeof(p), "%s/pid", dir);
	snprintf(link, sizeof(link), "%s/link", dir);
	snprintf(fifo, sizeof(fifo), "%s/fifo", dir);
	snprintf(victim, sizeof(victim), "%s/victim", dir);
	put(p, "old and longer", 0644);
	CU_ASSERT_EQUAL(sm_replace_path(p, "42\n", 3, 0644, &step), 0);
	CU_ASSERT(holds(p, "42\n"));
	put(victim, "precious", 0644);
	CU_ASSERT_FATAL(symlink(victim, link) == 0);
	CU_ASSERT_EQUAL(sm_replace_path(link, "42\n", 3, 0644, &step),
			-EPERM);
	CU_ASSERT_STRING_EQUAL(step, "refuse: not a regular file");
	CU_ASSERT(holds(victim, "precious"));
	CU_ASSERT_FATAL(mkfifo(fifo, 0600) == 0);
	CU_ASSERT_EQUAL(sm_replace_path(fifo, "42\n", 3, 0644, &step),
			-EPERM);
	CU_ASSERT(unlink(p) == 0 && unlink(link) == 0 && unlink(fifo) == 0 &&
		  unlink(victim) == 0 && rmdir(dir) == 0);
}

TU_SUITE(durable,
	 { "a stale temporary file", test_stale_tmp },
	 { "replaced by path, never through a symlink", test_replace_path })
