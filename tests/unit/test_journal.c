// SPDX-License-Identifier: MIT
/*
 * Journal: the framing, replay, a torn or corrupt last record, a corrupt
 * middle one, lost records, the lock, every crash point of a compaction,
 * rebuilt file by file, and group commit (a failed fdatasync injected),
 * on a toy state (a running sum).
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include "tu.h"
#include "tools/lib/pool/journal.h"

struct sum {
	long sum;
	long count;
};

/* The unit tests link with --wrap=fdatasync: fail it with this errno. */
static int sync_errno;
static unsigned int nsyncs;

int __real_fdatasync(int fd);
int __wrap_fdatasync(int fd);

int __wrap_fdatasync(int fd)
{
	__atomic_add_fetch(&nsyncs, 1, __ATOMIC_SEQ_CST);
	if (sync_errno) {
		errno = sync_errno;
		return -1;
	}
	return __real_fdatasync(fd);
}

static int restore(void *ctx, struct json_object *state, char *err,
		   size_t len)
{
	struct sum *s = ctx;
	struct json_object *v, *c;

	if (!json_object_object_get_ex(state, "sum", &v) ||
	    !json_object_object_get_ex(state, "count", &c)) {
		snprintf(err, len, "no sum");
		return -EINVAL;
	}
	s->sum = json_object_get_int64(v);
	s->count = json_object_get_int64(c);
	return 0;
}

static int apply(void *ctx, uint64_t seq, struct json_object *rec,
		 char *err, size_t len)
{
	struct sum *s = ctx;
	struct json_object *v;

	(void)seq;
	if (!json_object_object_get_ex(rec, "add", &v)) {
		snprintf(err, len, "no add");
		return -EINVAL;
	}
	s->sum += json_object_get_int64(v);
	s->count++;
	return 0;
}

static const struct pool_journal_ops ops = { restore, apply };

static char dir[64];

static void path_of(char *buf, const char *name)
{
	snprintf(buf, 128, "%s/%s", dir, name);
}

/* Whole file at path into a new buffer (NULL, *n 0 when missing). */
static char *slurp_path(const char *p, size_t *n)
{
	char *buf;
	FILE *f;
	long l;

	*n = 0;
	f = fopen(p, "r");
	if (!f)
		return NULL;
	fseek(f, 0, SEEK_END);
	l = ftell(f);
	rewind(f);
	buf = malloc(l + 1);
	CU_ASSERT_FATAL(buf != NULL);
	*n = fread(buf, 1, l, f);
	buf[*n] = '\0';
	fclose(f);
	return buf;
}

/* File name of the state directory, as slurp_path(). */
static char *slurp(const char *name, size_t *n)
{
	char p[128];

	path_of(p, name);
	return slurp_path(p, n);
}

/* Replace file name by n bytes of data; NULL data removes it. */
static void put_file(const char *name, const char *data, size_t n)
{
	char p[128];
	FILE *f;

	path_of(p, name);
	unlink(p);
	if (!data)
		return;
	f = fopen(p, "w");
	CU_ASSERT_FATAL(f != NULL);
	CU_ASSERT(fwrite(data, 1, n, f) == n);
	fclose(f);
}

static void new_dir(void)
{
	strcpy(dir, "/tmp/journal-XXXXXX");
	CU_ASSERT_FATAL(mkdtemp(dir) != NULL);
}

static void rm_dir(void)
{
	char cmd[128];

	snprintf(cmd, sizeof(cmd), "rm -f %s/" POOL_JOURNAL_FILE ".cut-*", dir);
	CU_ASSERT(system(cmd) == 0);
	put_file(POOL_JOURNAL_FILE, NULL, 0);
	put_file(POOL_SNAPSHOT_FILE, NULL, 0);
	put_file(POOL_SNAPSHOT_TMP, NULL, 0);
	CU_ASSERT(rmdir(dir) == 0);
}

static struct pool_journal *open_sum(struct sum *s)
{
	struct pool_journal *j;
	char err[256] = "";

	memset(s, 0, sizeof(*s));
	CU_ASSERT_EQUAL_FATAL(pool_journal_open(dir, &ops, s, &j, err,
						sizeof(err)), 0);
	return j;
}

typedef int (*append_fn)(struct pool_journal *j, struct json_object *rec,
			 char *err, size_t len);

/* Journal v with fn, then apply it to s as the pool would. */
static void add_with(struct pool_journal *j, struct sum *s, long v,
		     append_fn fn)
{
	struct json_object *r = json_object_new_object();
	char err[256];

	json_object_object_add(r, "add", json_object_new_int64(v));
	CU_ASSERT_EQUAL(fn(j, r, err, sizeof(err)), 0);
	json_object_put(r);
	s->sum += v;
	s->count++;
}

/* Durable before it is applied. */
static void add(struct pool_journal *j, struct sum *s, long v)
{
	add_with(j, s, v, pool_journal_append);
}

static void compact(struct pool_journal *j, const struct sum *s)
{
	struct json_object *st = json_object_new_object();
	char err[256];

	json_object_object_add(st, "sum", json_object_new_int64(s->sum));
	json_object_object_add(st, "count", json_object_new_int64(s->count));
	CU_ASSERT_EQUAL(pool_journal_compact(j, st, err, sizeof(err)), 0);
	json_object_put(st);
}

/* Reopen dir and expect sum, count and the last seq. */
static void expect_state(long sum, long count, uint64_t seq)
{
	struct pool_journal *j;
	struct sum s;

	j = open_sum(&s);
	CU_ASSERT_EQUAL(s.sum, sum);
	CU_ASSERT_EQUAL(s.count, count);
	CU_ASSERT_EQUAL(pool_journal_seq(j), seq);
	pool_journal_close(j);
}

/* Reopening fails with ret and a message containing msg. */
static void expect_refused(int ret, const char *msg)
{
	struct pool_journal *j = (struct pool_journal *)1;
	char err[256] = "";
	struct sum s = { 0 };

	CU_ASSERT_EQUAL(pool_journal_open(dir, &ops, &s, &j, err,
					  sizeof(err)), ret);
	CU_ASSERT_PTR_NULL(j);
	CU_ASSERT_PTR_NOT_NULL(strstr(err, msg));
}

static void test_frame(void)
{
	struct pool_journal *j;
	struct sum s;
	size_t n;
	char *b;

	new_dir();
	j = open_sum(&s);
	add(j, &s, 5);
	pool_journal_close(j);
	b = slurp(POOL_JOURNAL_FILE, &n);
	/* CRC-32 of "seq":1,"rec":{"add":5}} from zlib.crc32 */
	CU_ASSERT_STRING_EQUAL(b, "{\"crc\":\"ae9ab9a1\",\"seq\":1,\"rec\":{\"add\":5}}\n");
	free(b);
	rm_dir();
}

static void test_replay(void)
{
	struct pool_journal *j;
	struct sum s;
	int i;

	new_dir();
	j = open_sum(&s);
	CU_ASSERT_EQUAL(pool_journal_seq(j), 0);
	for (i = 1; i <= 5; i++)
		add(j, &s, i);
	CU_ASSERT_EQUAL(pool_journal_seq(j), 5);
	pool_journal_close(j);
	expect_state(15, 5, 5);
	/* an apply error stops the replay, with file and line */
	j = open_sum(&s);
	{
		struct json_object *r = json_object_new_object();
		char err[256];

		CU_ASSERT_EQUAL(pool_journal_append(j, r, err, sizeof(err)), 0);
		json_object_put(r);
	}
	pool_journal_close(j);
	expect_refused(-EINVAL, POOL_JOURNAL_FILE ":6: no add");
	rm_dir();
}

static void test_lock(void)
{
	struct pool_journal *j;
	struct sum s;

	new_dir();
	j = open_sum(&s);
	expect_refused(-EBUSY, "in use by another ibpoold");
	pool_journal_close(j);
	expect_state(0, 0, 0);
	rm_dir();
}

/* Three records 1, 2, 4; then damage applied by the caller. */
static char *three(size_t *n)
{
	struct pool_journal *j;
	struct sum s;

	new_dir();
	j = open_sum(&s);
	add(j, &s, 1);
	add(j, &s, 2);
	add(j, &s, 4);
	pool_journal_close(j);
	return slurp(POOL_JOURNAL_FILE, n);
}

static void test_torn(void)
{
	struct pool_journal *j;
	const char *kept;
	struct sum s;
	size_t n, m;
	char *b, *c;

	/* the last write stopped half way */
	b = three(&n);
	put_file(POOL_JOURNAL_FILE, b, n - 5);
	j = open_sum(&s);
	CU_ASSERT_EQUAL(s.sum, 3);
	CU_ASSERT_EQUAL(pool_journal_seq(j), 2);
	CU_ASSERT_PTR_NOT_NULL(strstr(pool_journal_note(j), "line 3"));
	/* cut where line 3 starts */
	c = slurp(POOL_JOURNAL_FILE, &m);
	CU_ASSERT_EQUAL(m, (size_t)(strchr(strchr(b, '\n') + 1, '\n') + 1 - b));
	free(c);
	/* the next record follows the good ones, not the torn bytes */
	add(j, &s, 8);
	pool_journal_close(j);
	expect_state(11, 3, 3);
	free(b);
	rm_dir();

	/* a whole last line with a flipped byte is cut too, kept beside */
	b = three(&n);
	b[n - 4] ^= 1;
	put_file(POOL_JOURNAL_FILE, b, n);
	j = open_sum(&s);
	CU_ASSERT_EQUAL(s.sum, 3);
	kept = strstr(pool_journal_note(j), "kept in ");
	CU_ASSERT_FATAL(kept != NULL);
	c = slurp(kept + 8, &m);
	CU_ASSERT_PTR_NOT_NULL_FATAL(c);
	CU_ASSERT_EQUAL(m, n - (strchr(strchr(b, '\n') + 1, '\n') + 1 - b));
	CU_ASSERT_EQUAL(memcmp(c, b + n - m, m), 0);
	free(c);
	pool_journal_close(j);
	expect_state(3, 2, 2);
	free(b);
	rm_dir();
}

static void test_corrupt_middle(void)
{
	size_t n;
	char *b, *l2;

	b = three(&n);
	l2 = strchr(b, '\n') + 1;
	l2[30] ^= 1;
	put_file(POOL_JOURNAL_FILE, b, n);
	expect_refused(-EBADMSG, POOL_JOURNAL_FILE ":2: corrupt record");
	free(b);
	rm_dir();

	/* a lost line between good ones is a gap, not a torn tail */
	b = three(&n);
	l2 = strchr(b, '\n') + 1;
	memmove(l2, strchr(l2, '\n') + 1, strlen(strchr(l2, '\n') + 1) + 1);
	put_file(POOL_JOURNAL_FILE, b, strlen(b));
	expect_refused(-EBADMSG, ":2: record 3 where 2 was due");
	free(b);
	rm_dir();
}

/*
 * A write cut short (here by RLIMIT_FSIZE, as a full disk would) leaves
 * no partial line behind: the next record must not follow torn bytes,
 * which replay would take for a corrupt record in the middle.
 */
static void test_failed_append(void)
{
	struct json_object *r = json_object_new_object();
	struct rlimit old, lim;
	struct pool_journal *j;
	void (*prev)(int);
	char err[256] = "", *b;
	size_t n, m;
	struct sum s;

	new_dir();
	j = open_sum(&s);
	add(j, &s, 1);
	free(slurp(POOL_JOURNAL_FILE, &n));
	json_object_object_add(r, "add", json_object_new_int64(2));
	CU_ASSERT_FATAL(getrlimit(RLIMIT_FSIZE, &old) == 0);
	lim = old;
	lim.rlim_cur = n + 10;
	prev = signal(SIGXFSZ, SIG_IGN);
	CU_ASSERT_FATAL(setrlimit(RLIMIT_FSIZE, &lim) == 0);
	CU_ASSERT_EQUAL(pool_journal_append(j, r, err, sizeof(err)), -EFBIG);
	CU_ASSERT(setrlimit(RLIMIT_FSIZE, &old) == 0);
	signal(SIGXFSZ, prev);
	json_object_put(r);
	CU_ASSERT_PTR_NOT_NULL(strstr(err, POOL_JOURNAL_FILE ": File too large"));
	CU_ASSERT_EQUAL(pool_journal_seq(j), 1);
	b = slurp(POOL_JOURNAL_FILE, &m);
	CU_ASSERT_EQUAL(m, n);
	free(b);
	add(j, &s, 4);
	CU_ASSERT_EQUAL(pool_journal_seq(j), 2);
	pool_journal_close(j);
	expect_state(5, 2, 2);
	rm_dir();
}

/*
 * Compaction's steps are: write the temporary snapshot, rename it, fsync
 * the directory, truncate the journal.  Rebuild the files as a crash
 * after each step leaves them and check replay gives the same state.
 */
static void test_compaction_crashes(void)
{
	char *snap_a, *snap_b, *j34, *j56, *p;
	size_t na, nb, n34, n56;
	struct pool_journal *j;
	struct sum s;

	new_dir();
	j = open_sum(&s);
	add(j, &s, 1);
	add(j, &s, 2);
	compact(j, &s);		/* snapshot A: seq 2, sum 3 */
	add(j, &s, 4);
	add(j, &s, 8);		/* journal: records 3 and 4, sum 15 */
	pool_journal_close(j);
	snap_a = slurp(POOL_SNAPSHOT_FILE, &na);
	j34 = slurp(POOL_JOURNAL_FILE, &n34);
	CU_ASSERT_PTR_NOT_NULL(strstr(snap_a, "\"seq\":2,\"state\":{\"sum\":3,\"count\":2}"));
	CU_ASSERT_PTR_NOT_NULL(strstr(j34, "\"seq\":3,"));
	j = open_sum(&s);
	compact(j, &s);		/* snapshot B: seq 4, sum 15 */
	pool_journal_close(j);
	snap_b = slurp(POOL_SNAPSHOT_FILE, &nb);
	CU_ASSERT_PTR_NOT_NULL(strstr(snap_b, "\"seq\":4,\"state\":{\"sum\":15,\"count\":4}"));
	free(slurp(POOL_JOURNAL_FILE, &n56));
	CU_ASSERT_EQUAL(n56, 0);
	expect_state(15, 4, 4);

	/* crash while the temporary file is written: A and 3, 4 */
	put_file(POOL_SNAPSHOT_FILE, snap_a, na);
	put_file(POOL_JOURNAL_FILE, j34, n34);
	put_file(POOL_SNAPSHOT_TMP, snap_b, nb / 2);
	expect_state(15, 4, 4);
	free(slurp(POOL_SNAPSHOT_TMP, &n56));
	CU_ASSERT_EQUAL(n56, 0);	/* the leftover was removed */
	/* ... or after it was written whole, before the rename */
	put_file(POOL_SNAPSHOT_TMP, snap_b, nb);
	expect_state(15, 4, 4);

	/* renamed, journal not yet truncated: records 3, 4 are skipped */
	put_file(POOL_SNAPSHOT_FILE, snap_b, nb);
	expect_state(15, 4, 4);
	/* ... and appending there continues the sequence */
	j = open_sum(&s);
	add(j, &s, 16);
	pool_journal_close(j);
	expect_state(31, 5, 5);

	/* truncated: snapshot B alone */
	put_file(POOL_JOURNAL_FILE, "", 0);
	expect_state(15, 4, 4);

	/* a snapshot is renamed whole or not at all: damage is fatal */
	snap_b[nb / 2] ^= 1;
	put_file(POOL_SNAPSHOT_FILE, snap_b, nb);
	expect_refused(-EBADMSG, POOL_SNAPSHOT_FILE ": not one whole record");
	snap_b[nb / 2] ^= 1;

	/* B, then record 6 without record 5: records were lost */
	put_file(POOL_SNAPSHOT_FILE, snap_b, nb);
	put_file(POOL_JOURNAL_FILE, "", 0);
	j = open_sum(&s);
	add(j, &s, 16);
	add(j, &s, 32);
	pool_journal_close(j);
	j56 = slurp(POOL_JOURNAL_FILE, &n56);
	p = strchr(j56, '\n') + 1;
	put_file(POOL_JOURNAL_FILE, p, strlen(p));
	expect_refused(-EBADMSG, ":1: record 6 where 5 was due");
	free(snap_a);
	free(snap_b);
	free(j34);
	free(j56);
	rm_dir();
}

/*
 * A clean stop that journaled nothing compacts to a snapshot of seq 0,
 * the state before any record: the next start loads it and numbers
 * records from 1.
 */
static void test_compact_nothing(void)
{
	struct pool_journal *j;
	struct sum s;
	size_t n;
	char *b;

	new_dir();
	j = open_sum(&s);
	compact(j, &s);
	pool_journal_close(j);
	b = slurp(POOL_SNAPSHOT_FILE, &n);
	CU_ASSERT_PTR_NOT_NULL(strstr(b, "\"seq\":0,\"state\":{\"sum\":0,"));
	free(b);
	expect_state(0, 0, 0);
	j = open_sum(&s);
	add(j, &s, 7);
	compact(j, &s);
	pool_journal_close(j);
	expect_state(7, 1, 1);
	rm_dir();
}

/* Applied before it is durable, as with group commit. */
static void add_unsynced(struct pool_journal *j, struct sum *s, long v)
{
	add_with(j, s, v, pool_journal_write);
}

static void test_group(void)
{
	struct pool_journal *j;
	char err[256], *b;
	unsigned int n0;
	struct sum s;
	size_t n;

	new_dir();
	j = open_sum(&s);
	add(j, &s, 1);
	add_unsynced(j, &s, 2);
	add_unsynced(j, &s, 4);
	add_unsynced(j, &s, 8);
	CU_ASSERT_EQUAL(pool_journal_seq(j), 4);
	CU_ASSERT_EQUAL(pool_journal_durable(j), 1);
	/* one fdatasync for the three */
	n0 = nsyncs;
	CU_ASSERT_EQUAL(pool_journal_sync(j, err, sizeof(err)), 0);
	CU_ASSERT_EQUAL(nsyncs - n0, 1);
	CU_ASSERT_EQUAL(pool_journal_durable(j), 4);
	/* nothing new: no fdatasync at all */
	CU_ASSERT_EQUAL(pool_journal_sync(j, err, sizeof(err)), 0);
	CU_ASSERT_EQUAL(nsyncs - n0, 1);
	/* a compaction makes the records written before it durable */
	add_unsynced(j, &s, 16);
	compact(j, &s);
	CU_ASSERT_EQUAL(pool_journal_durable(j), 5);
	add_unsynced(j, &s, 32);
	add_unsynced(j, &s, 64);
	pool_journal_close(j);
	expect_state(127, 7, 7);

	/* a crash tore the last record of a group: the rest replays */
	b = slurp(POOL_JOURNAL_FILE, &n);
	put_file(POOL_JOURNAL_FILE, b, n - 3);
	j = open_sum(&s);
	CU_ASSERT_EQUAL(s.sum, 63);
	CU_ASSERT_EQUAL(pool_journal_seq(j), 6);
	CU_ASSERT_PTR_NOT_NULL(strstr(pool_journal_note(j), "line 2"));
	pool_journal_close(j);
	free(b);
	rm_dir();
}

struct writer {
	struct pool_journal *j;
	struct sum s;
};

static void *write_many(void *arg)
{
	struct writer *w = arg;
	long v;

	for (v = 1; v <= 300; v++)
		add_unsynced(w->j, &w->s, v);
	return NULL;
}

/* Syncs beside writes: every record ends up durable, in order. */
static void test_group_threads(void)
{
	struct writer w = { 0 };
	pthread_t th;
	char err[256];
	int i;

	new_dir();
	w.j = open_sum(&w.s);
	CU_ASSERT_FATAL(pthread_create(&th, NULL, write_many, &w) == 0);
	for (i = 0; i < 50; i++)
		CU_ASSERT_EQUAL(pool_journal_sync(w.j, err, sizeof(err)), 0);
	pthread_join(th, NULL);
	CU_ASSERT(pool_journal_durable(w.j) <= 300);
	CU_ASSERT_EQUAL(pool_journal_sync(w.j, err, sizeof(err)), 0);
	CU_ASSERT_EQUAL(pool_journal_durable(w.j), 300);
	pool_journal_close(w.j);
	expect_state(300 * 301 / 2, 300, 300);
	rm_dir();
}

/*
 * A failed fdatasync: the records not durable are cut off (no replay
 * brings back what nobody was told of), the journal refuses everything
 * after, and the durable ones stay.
 */
static void test_group_sync_fails(void)
{
	struct json_object *r = json_object_new_object();
	struct pool_journal *j;
	char err[256] = "", *b;
	struct sum s;
	size_t n, m;

	new_dir();
	j = open_sum(&s);
	add(j, &s, 1);
	add(j, &s, 2);
	free(slurp(POOL_JOURNAL_FILE, &n));
	add_unsynced(j, &s, 4);
	add_unsynced(j, &s, 8);
	sync_errno = EIO;
	CU_ASSERT_EQUAL(pool_journal_sync(j, err, sizeof(err)), -EIO);
	sync_errno = 0;
	CU_ASSERT_PTR_NOT_NULL(strstr(err, "fdatasync: Input/output error"));
	CU_ASSERT_EQUAL(pool_journal_durable(j), 2);
	CU_ASSERT_EQUAL(pool_journal_seq(j), 4);
	b = slurp(POOL_JOURNAL_FILE, &m);
	CU_ASSERT_EQUAL(m, n);
	free(b);
	/* broken: no write, sync or compaction any more */
	json_object_object_add(r, "add", json_object_new_int64(16));
	CU_ASSERT_EQUAL(pool_journal_write(j, r, err, sizeof(err)), -EIO);
	CU_ASSERT_PTR_NOT_NULL(strstr(err, "could not be undone"));
	CU_ASSERT_EQUAL(pool_journal_sync(j, err, sizeof(err)), -EIO);
	CU_ASSERT_EQUAL(pool_journal_append(j, r, err, sizeof(err)), -EIO);
	CU_ASSERT_EQUAL(pool_journal_compact(j, r, err, sizeof(err)), -EIO);
	CU_ASSERT_EQUAL(pool_journal_durable(j), 2);
	json_object_put(r);
	pool_journal_close(j);
	expect_state(3, 2, 2);
	rm_dir();
}

/*
 * Issue 24: a journal or snapshot that is a symlink, a FIFO, or a file or
 * directory others can write is refused, and the victim a symlink
 * points at is left as it was.
 */
static void test_untrusted(void)
{
	char victim[] = "/tmp/journal-victim-XXXXXX", p[128], *b;
	struct pool_journal *j;
	struct sum s;
	size_t n;
	int fd;

	fd = mkstemp(victim);
	CU_ASSERT_FATAL(fd >= 0);
	CU_ASSERT(write(fd, "precious\n", 9) == 9);
	close(fd);
	new_dir();
	path_of(p, POOL_JOURNAL_FILE);
	CU_ASSERT_FATAL(symlink(victim, p) == 0);
	expect_refused(-ELOOP, POOL_JOURNAL_FILE ": a symlink");
	unlink(p);
	path_of(p, POOL_SNAPSHOT_FILE);
	CU_ASSERT_FATAL(symlink(victim, p) == 0);
	expect_refused(-ELOOP, POOL_SNAPSHOT_FILE ": a symlink");
	unlink(p);
	/* a FIFO: refused at once, not waited on */
	CU_ASSERT_FATAL(mkfifo(p, 0600) == 0);
	expect_refused(-EPERM, POOL_SNAPSHOT_FILE ": not a regular file");
	unlink(p);
	/* a journal others can write */
	j = open_sum(&s);
	add(j, &s, 1);
	pool_journal_close(j);
	path_of(p, POOL_JOURNAL_FILE);
	CU_ASSERT(chmod(p, 0666) == 0);
	expect_refused(-EPERM, "mode 0666: group or others can write it");
	CU_ASSERT(chmod(p, 0600) == 0);
	/* a state directory others can write */
	CU_ASSERT(chmod(dir, 0777) == 0);
	expect_refused(-EPERM, "mode 0777: group or others can write it");
	CU_ASSERT(chmod(dir, 0700) == 0);
	/* ... or another user owns (the issue's: nobody's) */
	if (!geteuid()) {
		CU_ASSERT(chown(dir, 65534, -1) == 0);
		expect_refused(-EPERM, "owned by uid 65534");
		CU_ASSERT(chown(dir, 0, -1) == 0);
	}
	expect_state(1, 1, 1);
	b = slurp_path(victim, &n);
	CU_ASSERT_STRING_EQUAL(b, "precious\n");
	free(b);
	unlink(victim);
	rm_dir();
}

/*
 * An empty journal left from before with no snapshot: the pool starts
 * empty, and says the state may be lost; a first start says nothing,
 * nor does a start after a compaction of nothing.
 */
static void test_empty_no_snapshot(void)
{
	struct pool_journal *j;
	struct sum s;

	new_dir();
	j = open_sum(&s);
	CU_ASSERT_STRING_EQUAL(pool_journal_note(j), "");
	pool_journal_close(j);
	j = open_sum(&s);
	CU_ASSERT_PTR_NOT_NULL(strstr(pool_journal_note(j),
				      "is empty and there is no " POOL_SNAPSHOT_FILE));
	compact(j, &s);
	pool_journal_close(j);
	j = open_sum(&s);
	CU_ASSERT_STRING_EQUAL(pool_journal_note(j), "");
	pool_journal_close(j);
	rm_dir();
}

TU_SUITE(pool_journal,
	 { "frame", test_frame },
	 { "replay", test_replay },
	 { "lock", test_lock },
	 { "symlinks and files others can write", test_untrusted },
	 { "torn last record", test_torn },
	 { "empty journal, no snapshot", test_empty_no_snapshot },
	 { "corrupt middle record", test_corrupt_middle },
	 { "failed append", test_failed_append },
	 { "compaction crash points", test_compaction_crashes },
	 { "compaction with nothing journaled", test_compact_nothing },
	 { "group commit", test_group },
	 { "group commit: syncs beside writes", test_group_threads },
	 { "group commit: failed fdatasync", test_group_sync_fails })
