// SPDX-License-Identifier: MIT
/*
 * Journal and snapshot files: CRC-framed JSON lines, one fdatasync for a
 * group of appends, replay that cuts a torn tail, crash-safe compaction.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "journal.h"
#include "sm/durable.h"

#define CRC_PREFIX "{\"crc\":\""
#define BODY_OFF 18		/* {"crc":"12345678", */
#define SNAPSHOT_MAX (256 << 20)

/*
 * Owned: dir, the descriptors.  lock guards the counters, the flag and
 * the file's length (writes, cuts, compaction); sync_lock lets one
 * fdatasync run at a time, outside lock, so writes go on beside it.
 */
struct pool_journal {
	char *dir;
	int dirfd;
	int fd;			/* the journal, O_APPEND, flock()ed */
	off_t size;		/* written length */
	uint64_t seq;		/* last record written */
	off_t dsize;		/* durable length */
	uint64_t dseq;		/* last record durable */
	bool broken;		/* a failed write or sync could not be undone */
	bool snapshot;		/* replay found one */
	pthread_mutex_t lock, sync_lock;
	char note[512];
};

__attribute__((format(printf, 5, 6)))
static int fail(char *err, size_t len, const struct pool_journal *j,
		int ret, const char *fmt, ...)
{
	va_list ap;
	int o = snprintf(err, len, "%s/", j->dir);

	if (o >= 0 && (size_t)o < len) {
		va_start(ap, fmt);
		vsnprintf(err + o, len - o, fmt, ap);
		va_end(ap);
	}
	return ret;
}

/*
 * name in the state directory with flags: never through a symlink, never
 * a FIFO's open that waits, and only a private regular file
 * (sm_check_private).  The fd, or a negative errno with err filled but
 * for -ENOENT.
 */
static int open_state(struct pool_journal *j, const char *name, int flags,
		      char *err, size_t len)
{
	char why[128];
	int fd, ret;

	fd = openat(j->dirfd, name, flags | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC,
		    0600);
	if (fd < 0 && errno == ENOENT)
		return -ENOENT;
	if (fd < 0 && errno == ELOOP)
		return fail(err, len, j, -ELOOP, "%s: a symlink: state files are never opened through one",
			    name);
	if (fd < 0)
		return fail(err, len, j, -errno, "%s: %s", name,
			    strerror(errno));
	ret = sm_check_private(fd, false, why, sizeof(why));
	if (!ret)
		return fd;
	close(fd);
	return fail(err, len, j, ret, "%s: %s: refused", name, why);
}

/* CRC-32 as zlib and Ethernet compute it (reflected 0xedb88320). */
static uint32_t crc32_ieee(const char *p, size_t n)
{
	uint32_t c = 0xffffffffu;
	int k;

	while (n--) {
		c ^= (unsigned char)*p++;
		for (k = 0; k < 8; k++)
			c = (c >> 1) ^ (0xedb88320u & -(c & 1));
	}
	return ~c;
}

/* The framed line, newline included, in *line (caller frees). */
static int frame(uint64_t seq, const char *key, struct json_object *o,
		 char **line, size_t *n)
{
	const char *js = json_object_to_json_string_ext(o,
							JSON_C_TO_STRING_PLAIN);
	char *body;
	int k;

	*line = NULL;
	if (!js || asprintf(&body, "\"seq\":%" PRIu64 ",\"%s\":%s}", seq, key,
			    js) < 0)
		return -ENOMEM;
	k = asprintf(line, CRC_PREFIX "%08x\",%s\n",
		     crc32_ieee(body, strlen(body)), body);
	free(body);
	if (k < 0) {
		*line = NULL;
		return -ENOMEM;
	}
	*n = k;
	return k > POOL_JOURNAL_LINE_MAX ? -E2BIG : 0;
}

/*
 * Check one line (n bytes, no newline) framed with key, its seq at
 * least min_seq (a snapshot may hold the state before any record, seq
 * 0); on success *whole is the parsed line (the caller puts it),
 * *payload borrowed from it.  -EBADMSG for anything wrong.
 */
static int unframe(const char *line, size_t n, const char *key,
		   int64_t min_seq, struct json_object **whole, uint64_t *seq,
		   struct json_object **payload)
{
	struct json_tokener *tok;
	struct json_object *o = NULL, *s, *p;
	unsigned int crc;
	char hex[9];

	*whole = NULL;
	if (n <= BODY_OFF || memcmp(line, CRC_PREFIX, strlen(CRC_PREFIX)) ||
	    memcmp(line + 16, "\",", 2))
		return -EBADMSG;
	memcpy(hex, line + 8, 8);
	hex[8] = '\0';
	if (strspn(hex, "0123456789abcdef") != 8 ||
	    sscanf(hex, "%x", &crc) != 1 ||
	    crc != crc32_ieee(line + BODY_OFF, n - BODY_OFF))
		return -EBADMSG;
	tok = json_tokener_new();
	if (!tok)
		return -ENOMEM;
	o = json_tokener_parse_ex(tok, line, n);
	if (!o || json_tokener_get_parse_end(tok) != n ||
	    !json_object_is_type(o, json_type_object) ||
	    !json_object_object_get_ex(o, "seq", &s) ||
	    !json_object_is_type(s, json_type_int) ||
	    json_object_get_int64(s) < min_seq ||
	    !json_object_object_get_ex(o, key, &p) ||
	    !json_object_is_type(p, json_type_object)) {
		json_tokener_free(tok);
		json_object_put(o);
		return -EBADMSG;
	}
	json_tokener_free(tok);
	*seq = json_object_get_int64(s);
	*payload = p;
	*whole = o;
	return 0;
}

/* Snapshot, if any: restore() its state; *base is its seq, else 0. */
static int read_snapshot(struct pool_journal *j,
			 const struct pool_journal_ops *ops, void *ctx,
			 uint64_t *base, char *err, size_t len)
{
	struct json_object *whole, *state;
	char *buf = NULL;
	struct stat st;
	ssize_t r;
	size_t o;
	int fd, ret;

	*base = 0;
	fd = open_state(j, POOL_SNAPSHOT_FILE, O_RDONLY, err, len);
	if (fd == -ENOENT)
		return 0;
	if (fd < 0)
		return fd;
	if (fstat(fd, &st)) {
		ret = -errno;
		goto out_err;
	}
	if (st.st_size > SNAPSHOT_MAX || st.st_size < 1) {
		ret = -EBADMSG;
		goto out_err;
	}
	buf = malloc(st.st_size);
	if (!buf) {
		ret = -ENOMEM;
		goto out_err;
	}
	for (o = 0; o < (size_t)st.st_size; o += r) {
		r = read(fd, buf + o, st.st_size - o);
		if (r <= 0) {
			ret = r ? -errno : -EBADMSG;
			goto out_err;
		}
	}
	if (buf[o - 1] != '\n' || memchr(buf, '\n', o - 1)) {
		ret = -EBADMSG;
		goto out_err;
	}
	ret = unframe(buf, o - 1, "state", 0, &whole, base, &state);
	if (ret)
		goto out_err;
	j->snapshot = true;
	o = snprintf(err, len, "%s/" POOL_SNAPSHOT_FILE ": ", j->dir);
	ret = ops->restore(ctx, state, err + (o < len ? o : len),
			   o < len ? len - o : 0);
	json_object_put(whole);
	goto out;
out_err:
	fail(err, len, j, ret, POOL_SNAPSHOT_FILE ": %s",
	     ret == -EBADMSG ? "not one whole record with a good CRC" :
	     strerror(-ret));
out:
	free(buf);
	if (fd >= 0)
		close(fd);
	return ret;
}

/*
 * The bytes of the journal from off to end into a new file beside it,
 * journal.jsonl.cut-LINE-TIME (a record a flipped bit spoiled may still
 * be read by a person): its name into name, or a negative errno.
 */
static int keep_cut(struct pool_journal *j, off_t off, off_t end,
		    unsigned int line, char *name, size_t nlen)
{
	char *buf = malloc(end - off + 1);
	ssize_t r = -1;
	int fd = -1, ret;

	snprintf(name, nlen, POOL_JOURNAL_FILE ".cut-%u-%lld", line,
		 (long long)time(NULL));
	if (buf)
		r = pread(j->fd, buf, end - off, off);
	if (r == end - off)
		fd = openat(j->dirfd, name, O_WRONLY | O_CREAT | O_EXCL |
			    O_NOFOLLOW | O_CLOEXEC, 0600);
	ret = !buf ? -ENOMEM : r != end - off ? -EIO : fd < 0 ? -errno : 0;
	if (!ret)
		ret = sm_write_all(fd, buf, r);
	if (!ret && (fsync(fd) || fsync(j->dirfd)))
		ret = -errno;
	if (fd >= 0)
		close(fd);
	free(buf);
	return ret;
}

/* Cut the journal at off, where a torn record starts; end is its size. */
static int cut_tail(struct pool_journal *j, off_t off, off_t end,
		    unsigned int line, char *err, size_t len)
{
	char name[64];
	int ret = keep_cut(j, off, end, line, name, sizeof(name));

	if (ret)
		return fail(err, len, j, ret,
			    POOL_JOURNAL_FILE ": cannot keep the torn record at line %u in %s: %s",
			    line, name, strerror(-ret));
	if (ftruncate(j->fd, off) || fsync(j->fd))
		return fail(err, len, j, -errno,
			    POOL_JOURNAL_FILE ": cannot cut torn record at line %u: %s",
			    line, strerror(errno));
	snprintf(j->note, sizeof(j->note),
		 "%s/" POOL_JOURNAL_FILE ": cut a torn or corrupt last record at line %u; its %lld bytes are kept in %s",
		 j->dir, line, (long long)(end - off), name);
	return 0;
}

/* Apply one good record of the journal if it is newer than base. */
static int replay_one(struct pool_journal *j,
		      const struct pool_journal_ops *ops, void *ctx,
		      uint64_t base, uint64_t seq, struct json_object *rec,
		      unsigned int line, char *err, size_t len)
{
	uint64_t want = j->seq ? j->seq + 1 : seq <= base ? seq : base + 1;
	int o;

	if (seq != want)
		return fail(err, len, j, -EBADMSG,
			    POOL_JOURNAL_FILE ":%u: record %" PRIu64 " where %" PRIu64 " was due (records lost)",
			    line, seq, want);
	j->seq = seq;
	if (seq <= base)
		return 0;
	o = snprintf(err, len, "%s/" POOL_JOURNAL_FILE ":%u: ", j->dir, line);
	if (o < 0 || (size_t)o >= len)
		o = len ? len - 1 : 0;
	return ops->apply(ctx, seq, rec, err + o, len - o);
}

static int replay(struct pool_journal *j, const struct pool_journal_ops *ops,
		  void *ctx, uint64_t base, char *err, size_t len)
{
	struct json_object *whole, *rec;
	unsigned int line = 0;
	char *buf = NULL;
	size_t cap = 0;
	struct stat st;
	off_t off = 0;
	uint64_t seq;
	ssize_t n;
	FILE *in;
	int fd, ret = 0;

	fd = dup(j->fd);
	if (fd < 0 || fstat(fd, &st) || !(in = fdopen(fd, "r"))) {
		ret = -errno;
		if (fd >= 0)
			close(fd);
		return fail(err, len, j, ret, POOL_JOURNAL_FILE ": %s",
			    strerror(-ret));
	}
	while (!ret && (n = getline(&buf, &cap, in)) > 0) {
		line++;
		ret = buf[n - 1] == '\n' ?
		      unframe(buf, n - 1, "rec", 1, &whole, &seq, &rec) :
		      -EBADMSG;
		if (ret == -EBADMSG && off + n >= st.st_size) {
			ret = cut_tail(j, off, st.st_size, line, err, len);
			break;
		}
		if (ret == -EBADMSG)
			ret = fail(err, len, j, ret,
				   POOL_JOURNAL_FILE ":%u: corrupt record (bad frame or CRC) with %lld bytes after it",
				   line, (long long)(st.st_size - off - n));
		if (ret)
			break;
		ret = replay_one(j, ops, ctx, base, seq, rec, line, err, len);
		json_object_put(whole);
		off += n;
	}
	if (!ret && ferror(in))
		ret = fail(err, len, j, -EIO, POOL_JOURNAL_FILE ": read error");
	free(buf);
	fclose(in);
	if (j->seq < base)
		j->seq = base;
	j->dseq = j->seq;
	j->size = j->dsize = off;
	return ret;
}

int pool_journal_open(const char *dir, const struct pool_journal_ops *ops,
		      void *ctx, struct pool_journal **out, char *err,
		      size_t len)
{
	struct pool_journal *j;
	char why[128];
	uint64_t base;
	bool created;
	int ret;

	*out = NULL;
	j = calloc(1, sizeof(*j));
	if (!j || !(j->dir = strdup(dir))) {
		free(j);
		snprintf(err, len, "%s: out of memory", dir);
		return -ENOMEM;
	}
	pthread_mutex_init(&j->lock, NULL);
	pthread_mutex_init(&j->sync_lock, NULL);
	j->fd = -1;
	j->dirfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (j->dirfd < 0) {
		ret = fail(err, len, j, -errno, ": %s", strerror(errno));
		goto out_close;
	}
	ret = sm_check_private(j->dirfd, true, why, sizeof(why));
	if (ret) {
		fail(err, len, j, ret, ": %s: refused", why);
		goto out_close;
	}
	j->fd = open_state(j, POOL_JOURNAL_FILE, O_RDWR | O_APPEND, err, len);
	created = j->fd == -ENOENT;
	if (created)
		j->fd = open_state(j, POOL_JOURNAL_FILE,
				   O_RDWR | O_APPEND | O_CREAT | O_EXCL, err,
				   len);
	if (j->fd == -ENOENT)
		j->fd = fail(err, len, j, -ENOENT, POOL_JOURNAL_FILE ": removed while opened");
	if (j->fd < 0) {
		ret = j->fd;
		goto out_close;
	}
	if (fsync(j->dirfd)) {
		ret = fail(err, len, j, -errno, ": fsync: %s",
			   strerror(errno));
		goto out_close;
	}
	if (flock(j->fd, LOCK_EX | LOCK_NB)) {
		ret = errno == EWOULDBLOCK ? -EBUSY : -errno;
		fail(err, len, j, ret, POOL_JOURNAL_FILE ": %s", ret == -EBUSY ?
		     "in use by another ibpoold" : strerror(-ret));
		goto out_close;
	}
	/* A compaction that crashed before its rename left the old state. */
	if (unlinkat(j->dirfd, POOL_SNAPSHOT_TMP, 0) && errno != ENOENT) {
		ret = fail(err, len, j, -errno, POOL_SNAPSHOT_TMP ": %s",
			   strerror(errno));
		goto out_close;
	}
	ret = read_snapshot(j, ops, ctx, &base, err, len);
	if (!ret)
		ret = replay(j, ops, ctx, base, err, len);
	if (ret)
		goto out_close;
	/*
	 * A clean stop leaves a snapshot, so an empty journal that was there
	 * before, with none, is a crash before the first record or a lost
	 * state: the pool starts empty, which must not pass unseen.
	 */
	if (!created && !j->snapshot && !j->size && !*j->note)
		snprintf(j->note, sizeof(j->note),
			 "%s/" POOL_JOURNAL_FILE " is empty and there is no " POOL_SNAPSHOT_FILE ": starting with no allocations and no jobs; if there were any, the state was lost (restore it from a backup before changes are made)",
			 dir);
	*out = j;
	return 0;
out_close:
	pool_journal_close(j);
	return ret;
}

static int broken(struct pool_journal *j, char *err, size_t len)
{
	return fail(err, len, j, -EIO,
		    POOL_JOURNAL_FILE ": an earlier write or sync failed and could not be undone");
}

/* Append the framed line; j->lock held. */
static int write_line(struct pool_journal *j, const char *line, size_t n,
		      char *err, size_t len)
{
	int ret;

	if (j->broken)
		return broken(j, err, len);
	ret = sm_write_all(j->fd, line, n);
	if (ret) {
		/* A partial line would turn the next one into a bad record
		 * in the middle. */
		if (ftruncate(j->fd, j->size))
			j->broken = true;
		return fail(err, len, j, ret, POOL_JOURNAL_FILE ": %s",
			    strerror(-ret));
	}
	j->size += n;
	j->seq++;
	return 0;
}

int pool_journal_write(struct pool_journal *j, struct json_object *rec,
		       char *err, size_t len)
{
	char *line;
	size_t n;
	int ret;

	pthread_mutex_lock(&j->lock);
	ret = frame(j->seq + 1, "rec", rec, &line, &n);
	if (ret)
		fail(err, len, j, ret, POOL_JOURNAL_FILE ": %s",
		     ret == -E2BIG ? "record too long" : strerror(-ret));
	else
		ret = write_line(j, line, n, err, len);
	pthread_mutex_unlock(&j->lock);
	free(line);
	return ret;
}

int pool_journal_sync(struct pool_journal *j, char *err, size_t len)
{
	uint64_t seq;
	off_t size;
	int ret = 0;

	pthread_mutex_lock(&j->sync_lock);
	pthread_mutex_lock(&j->lock);
	seq = j->seq;
	size = j->size;
	if (j->broken)
		ret = broken(j, err, len);
	pthread_mutex_unlock(&j->lock);
	if (ret || seq == pool_journal_durable(j))
		goto out;
	if (fdatasync(j->fd))
		ret = -errno;
	pthread_mutex_lock(&j->lock);
	if (!ret && !j->broken) {
		/* a compaction meanwhile only moved them further */
		if (seq > j->dseq) {
			j->dseq = seq;
			j->dsize = size;
		}
	} else if (!ret) {
		ret = broken(j, err, len);
	} else {
		/* What reached the disk is unknown: cut it, or stay broken. */
		j->broken = true;
		if (!ftruncate(j->fd, j->dsize) && !fsync(j->fd))
			j->size = j->dsize;
		fail(err, len, j, ret, POOL_JOURNAL_FILE ": fdatasync: %s",
		     strerror(-ret));
	}
	pthread_mutex_unlock(&j->lock);
out:
	pthread_mutex_unlock(&j->sync_lock);
	return ret;
}

int pool_journal_append(struct pool_journal *j, struct json_object *rec,
			char *err, size_t len)
{
	int ret = pool_journal_write(j, rec, err, len);

	return ret ? ret : pool_journal_sync(j, err, len);
}

int pool_journal_compact(struct pool_journal *j, struct json_object *state,
			 char *err, size_t len)
{
	const char *step = "frame";
	char *line = NULL;
	size_t n;
	int ret;

	pthread_mutex_lock(&j->lock);
	if (j->broken) {
		ret = broken(j, err, len);
		goto out_unlock;
	}
	ret = frame(j->seq, "state", state, &line, &n);
	if (ret == -E2BIG && n <= SNAPSHOT_MAX)
		ret = 0;
	if (ret)
		goto out_free;
	ret = sm_replace_at(j->dirfd, POOL_SNAPSHOT_TMP, POOL_SNAPSHOT_FILE,
			    line, n, 0600, &step);
	if (ret)
		goto out_free;
	/* The snapshot covers every record: the journal may go. */
	if (ftruncate(j->fd, 0) || fsync(j->fd)) {
		ret = -errno;
		step = "truncate " POOL_JOURNAL_FILE;
		j->broken = true;
		goto out_free;
	}
	/* the snapshot made every record durable */
	j->size = j->dsize = 0;
	j->dseq = j->seq;
out_free:
	free(line);
	if (ret)
		fail(err, len, j, ret, POOL_SNAPSHOT_FILE ": compaction failed: %s: %s",
		     step, strerror(-ret));
out_unlock:
	pthread_mutex_unlock(&j->lock);
	return ret;
}

static uint64_t locked(struct pool_journal *j, const uint64_t *v)
{
	uint64_t seq;

	pthread_mutex_lock(&j->lock);
	seq = *v;
	pthread_mutex_unlock(&j->lock);
	return seq;
}

uint64_t pool_journal_seq(struct pool_journal *j)
{
	return locked(j, &j->seq);
}

uint64_t pool_journal_durable(struct pool_journal *j)
{
	return locked(j, &j->dseq);
}

const char *pool_journal_note(const struct pool_journal *j)
{
	return j->note;
}

void pool_journal_close(struct pool_journal *j)
{
	if (!j)
		return;
	if (j->fd >= 0)
		close(j->fd);
	if (j->dirfd >= 0)
		close(j->dirfd);
	pthread_mutex_destroy(&j->sync_lock);
	pthread_mutex_destroy(&j->lock);
	free(j->dir);
	free(j);
}
