// SPDX-License-Identifier: MIT
/* The job-hint table: validated all-or-nothing changes, snapshots, a state file. */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "durable.h"
#include "hints.h"

#define FILE_VERSION 2	/* 2 added owners; 1 still loads */
#define FILE_MAX (64u << 20)
#define LOG_MIN (64u << 10)	/* the log may pass the table's size up to it */

/*
 * Writers (changes, load, save) hold wlock throughout, so cur only moves
 * under wlock; lock guards the pointer itself against snapshot readers
 * and is held for a pointer swap or a reference count only.
 */
struct sm_hints {
	pthread_mutex_t lock;
	pthread_mutex_t wlock;
	struct sm_hints_snap *cur;
	sm_host_id_fn host_id;
	void *ctx;
	char *dir;
	/*
	 * Under wlock: based when dir's hints.json and hints.log together
	 * hold cur (this table wrote or loaded them), so a change may be
	 * appended to the log (log_bytes long, logfd open or -1) instead
	 * of rewriting the file (snap_bytes long).
	 */
	bool based;
	int logfd;
	size_t log_bytes;
	size_t snap_bytes;
};

/*
 * What loading a bad state file left out: the jobs dropped, and the
 * first thing found wrong, for the operator.
 */
struct salvage {
	bool bad;
	size_t dropped;
	struct sm_error first;
};

/* Something in the file is wrong: e; dropped more jobs are left out. */
static void salvage_note(struct salvage *sv, const struct sm_error *e,
			 size_t dropped)
{
	if (!sv->bad)
		sv->first = *e;
	sv->bad = true;
	sv->dropped += dropped;
}

/* Drop j's hold on its strings; the last snapshot holding them frees them. */
static void job_release(struct sm_job *j)
{
	size_t i;

	if (j->shared && atomic_fetch_sub(j->shared, 1) != 1)
		return;
	free(j->shared);
	for (i = 0; i < j->nhosts; i++)
		free(j->hosts[i]);
	free(j->hosts);
	free(j->id);
	free(j->owner);
}

static void snap_free(struct sm_hints_snap *s)
{
	size_t i;

	for (i = 0; i < s->njobs; i++)
		job_release(&s->jobs[i]);
	free(s->jobs);
	free(s);
}

/* A table with room for cap jobs and one reference, or NULL. */
static struct sm_hints_snap *snap_alloc(size_t cap)
{
	struct sm_hints_snap *s = calloc(1, sizeof(*s));

	if (!s)
		return NULL;
	s->jobs = calloc(cap ? cap : 1, sizeof(*s->jobs));
	if (!s->jobs) {
		free(s);
		return NULL;
	}
	atomic_init(&s->refs, 1);
	return s;
}

/* Take job i out of s; the slot freed at the end is zeroed for reuse. */
static void remove_job(struct sm_hints_snap *s, size_t i)
{
	job_release(&s->jobs[i]);
	memmove(&s->jobs[i], &s->jobs[i + 1],
		(s->njobs - i - 1) * sizeof(*s->jobs));
	memset(&s->jobs[--s->njobs], 0, sizeof(*s->jobs));
}

void sm_hints_put(const struct sm_hints_snap *cs)
{
	struct sm_hints_snap *s = (struct sm_hints_snap *)cs;

	if (s && atomic_fetch_sub(&s->refs, 1) == 1)
		snap_free(s);
}

const struct sm_hints_snap *sm_hints_snapshot(struct sm_hints *h)
{
	struct sm_hints_snap *s;

	pthread_mutex_lock(&h->lock);
	s = h->cur;
	atomic_fetch_add(&s->refs, 1);
	pthread_mutex_unlock(&h->lock);
	return s;
}

int sm_hints_new(const char *dir, sm_host_id_fn host_id, void *ctx,
		 struct sm_hints **out)
{
	struct sm_hints *h = calloc(1, sizeof(*h));

	if (!h)
		return -ENOMEM;
	h->cur = snap_alloc(0);
	h->dir = dir ? strdup(dir) : NULL;
	if (!h->cur || (dir && !h->dir)) {
		sm_hints_put(h->cur);
		free(h->dir);
		free(h);
		return -ENOMEM;
	}
	pthread_mutex_init(&h->lock, NULL);
	pthread_mutex_init(&h->wlock, NULL);
	h->logfd = -1;
	h->host_id = host_id;
	h->ctx = ctx;
	*out = h;
	return 0;
}

void sm_hints_free(struct sm_hints *h)
{
	if (!h)
		return;
	sm_hints_put(h->cur);
	if (h->logfd >= 0)
		close(h->logfd);
	pthread_mutex_destroy(&h->lock);
	pthread_mutex_destroy(&h->wlock);
	free(h->dir);
	free(h);
}

bool sm_hints_id_valid(const char *id)
{
	size_t n = strspn(id, "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
			  "abcdefghijklmnopqrstuvwxyz0123456789._:-");

	_Static_assert(SM_HINTS_ID_MAX == SM_HINTS_OWNER_MAX,
		       "one check for ids and owners");
	return n && n <= SM_HINTS_ID_MAX && !id[n];
}

/*
 * o's optional "owner" into *owner (left alone when absent): 0, or
 * bad_request for a non-string or an invalid owner.  The one check of
 * an owner, for a set's, a removal's and a job's own.
 */
static int get_owner(json_object *o, const char **owner, struct sm_error *e)
{
	int ret = sm_get_string(o, "owner", false, owner, e);

	if (ret || !*owner || sm_hints_id_valid(*owner))
		return ret;
	return sm_error_set(e, SM_ERR_BAD_REQUEST,
			    "field 'owner' must be 1..%d characters of "
			    SM_HINTS_ID_CHARS, SM_HINTS_OWNER_MAX);
}

/* A malloc'd canonical copy of host, or NULL with e filled. */
static char *canon_host(const char *host, struct sm_error *e)
{
	size_t n = strlen(host), i;
	char *c;

	if (host[0] == '0' && (host[1] == 'x' || host[1] == 'X')) {
		n = strspn(host + 2, "0123456789abcdefABCDEF");
		if (!n || n > 16 || host[n + 2]) {
			sm_error_set(e, SM_ERR_BAD_REQUEST,
				     "host '%.80s' is not a port GUID (0x and 1..16 hex digits)",
				     host);
			return NULL;
		}
		c = malloc(19);
		if (c)
			snprintf(c, 19, "0x%016llx", strtoull(host, NULL, 16));
		goto out;
	}
	for (i = 0; i < n && !iscntrl((unsigned char)host[i]); i++)
		;
	if (!n || n > SM_HINTS_HOST_MAX || i < n) {
		sm_error_set(e, SM_ERR_BAD_REQUEST,
			     "host '%.80s' must be 1..%d bytes without control characters",
			     host, SM_HINTS_HOST_MAX);
		return NULL;
	}
	c = strdup(host);
out:
	if (!c)
		sm_error_set(e, SM_ERR_INTERNAL, "out of memory");
	return c;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* *dup is a string that occurs twice in v, or NULL.  0 or -ENOMEM. */
static int find_dup(char *const *v, size_t n, const char **dup)
{
	char **s;
	size_t i;

	*dup = NULL;
	if (n < 2)
		return 0;
	s = malloc(n * sizeof(*s));
	if (!s)
		return -ENOMEM;
	memcpy(s, v, n * sizeof(*s));
	qsort(s, n, sizeof(*s), cmp_str);
	for (i = 1; i < n && !*dup; i++)
		if (!strcmp(s[i - 1], s[i]))
			*dup = s[i];
	free(s);
	return 0;
}

/* "'j1'", or "'j1' (owner slurm)": a job as messages name it. */
static const char *who(const struct sm_job *j, char *buf, size_t len)
{
	if (j->owner)
		snprintf(buf, len, "'%s' (owner %s)", j->id, j->owner);
	else
		snprintf(buf, len, "'%s'", j->id);
	return buf;
}

static int parse_hosts(json_object *arr, struct sm_job *j, struct sm_error *e)
{
	size_t i, n = json_object_array_length(arr);
	const char *dup;
	json_object *v;

	if (!n)
		return sm_error_set(e, SM_ERR_BAD_REQUEST,
				    "field 'hosts' must not be empty");
	j->hosts = calloc(n, sizeof(*j->hosts));
	if (!j->hosts)
		return sm_error_set(e, SM_ERR_INTERNAL, "out of memory");
	for (i = 0; i < n; i++) {
		v = json_object_array_get_idx(arr, i);
		if (!json_object_is_type(v, json_type_string))
			return sm_error_set(e, SM_ERR_BAD_REQUEST,
					    "hosts[%zu] must be a string", i);
		j->hosts[i] = canon_host(json_object_get_string(v), e);
		if (!j->hosts[i])
			return e->code == SM_ERR_INTERNAL ? -ENOMEM : -EINVAL;
		j->nhosts++;
	}
	if (find_dup(j->hosts, n, &dup))
		return sm_error_set(e, SM_ERR_INTERNAL, "out of memory");
	if (dup)
		return sm_error_set(e, SM_ERR_BAD_REQUEST,
				    "host '%s' listed twice", dup);
	return 0;
}

/*
 * j's owner: the job's own "owner", which must be owner when that is not
 * NULL (an owner's set makes every job its own).
 */
static int parse_owner(json_object *o, const char *owner, struct sm_job *j,
		       struct sm_error *e)
{
	const char *mine = NULL;
	int ret = get_owner(o, &mine, e);

	if (!ret && mine && owner && strcmp(mine, owner))
		ret = sm_error_set(e, SM_ERR_BAD_REQUEST,
				   "owner '%s' in a set of owner '%s'", mine,
				   owner);
	mine = owner ? owner : mine;
	if (ret || !mine)
		return ret;
	j->owner = strdup(mine);
	return j->owner ? 0 : sm_error_set(e, SM_ERR_INTERNAL,
					   "out of memory");
}

struct hid {
	long id;
	size_t i;	/* into the job's hosts */
};

static int cmp_hid(const void *a, const void *b)
{
	const struct hid *x = a, *y = b;

	if (x->id != y->id)
		return x->id < y->id ? -1 : 1;
	return (x->i > y->i) - (x->i < y->i);
}

/*
 * Every host of j in the fabric, and no host named twice (by its name
 * and a port GUID, or two GUIDs): 0, or a negative errno with e filled.
 */
static int check_hosts(const struct sm_job *j, sm_host_id_fn host_id,
		       void *ctx, struct sm_error *e)
{
	struct hid *v = calloc(j->nhosts + 1, sizeof(*v));
	size_t i;
	int ret = 0;

	if (!v)
		return sm_error_set(e, SM_ERR_INTERNAL, "out of memory");
	for (i = 0; !ret && i < j->nhosts; i++) {
		v[i].id = host_id(ctx, j->hosts[i]);
		v[i].i = i;
		if (v[i].id == SM_HOST_UNKNOWN)
			ret = sm_error_set(e, SM_ERR_UNKNOWN_HOST,
					   "unknown host '%s'", j->hosts[i]);
	}
	if (!ret)
		qsort(v, j->nhosts, sizeof(*v), cmp_hid);
	for (i = 1; !ret && i < j->nhosts; i++)
		if (v[i].id >= 0 && v[i].id == v[i - 1].id)
			ret = sm_error_set(e, SM_ERR_BAD_REQUEST,
					   "hosts '%s' and '%s' are one host, listed twice",
					   j->hosts[v[i - 1].i], j->hosts[v[i].i]);
	free(v);
	return ret;
}

/*
 * Fill j from the job object o; where ("jobs[3]", "job") names it until
 * its id is known; owner, when not NULL, is the set's.  host_id NULL
 * skips the fabric check.  On error j holds what was built so far for the
 * caller to release.
 */
static int parse_job(json_object *o, const char *where, const char *owner,
		     sm_host_id_fn host_id, void *ctx, struct sm_job *j,
		     struct sm_error *e)
{
	static const char *const fields[] = {
		"id", "hosts", "weight", "owner", NULL
	};
	json_object *hosts;
	int64_t weight = 1;
	const char *id;
	int ret;

	if (!json_object_is_type(o, json_type_object))
		return sm_error_set(e, SM_ERR_BAD_REQUEST,
				    "%s must be an object", where);
	ret = sm_get_string(o, "id", true, &id, e);
	if (ret)
		goto out_where;
	if (!sm_hints_id_valid(id)) {
		ret = sm_error_set(e, SM_ERR_BAD_REQUEST,
				   "field 'id' must be 1..%d characters of " SM_HINTS_ID_CHARS,
				   SM_HINTS_ID_MAX);
		goto out_where;
	}
	j->id = strdup(id);
	j->shared = malloc(sizeof(*j->shared));
	if (!j->id || !j->shared)
		return sm_error_set(e, SM_ERR_INTERNAL, "out of memory");
	atomic_init(j->shared, 1);
	ret = sm_check_fields(o, fields, e);
	if (!ret)
		ret = sm_get_array(o, "hosts", true, &hosts, e);
	if (!ret)
		ret = parse_hosts(hosts, j, e);
	if (!ret)
		ret = sm_get_int(o, "weight", false, 1, SM_HINTS_WEIGHT_MAX,
				 &weight, e);
	if (!ret)
		ret = parse_owner(o, owner, j, e);
	if (!ret && host_id)
		ret = check_hosts(j, host_id, ctx, e);
	j->weight = weight;
	if (ret && e->code != SM_ERR_INTERNAL)
		sm_error_prefix(e, "job '%s': ", j->id);
	return ret;
out_where:
	sm_error_prefix(e, "%s: ", where);
	return ret;
}

/*
 * An id twice in s: duplicate_id; with sv, the later jobs of such ids
 * are left out instead.  0, or a negative errno with e filled.
 */
static int check_ids(struct sm_hints_snap *s, struct salvage *sv,
		     struct sm_error *e)
{
	const char *dup = NULL;
	size_t i, last;
	char **ids;
	int ret;

	do {
		ids = calloc(s->njobs + 1, sizeof(*ids));
		if (!ids)
			return sm_error_set(e, SM_ERR_INTERNAL, "out of memory");
		for (i = 0; i < s->njobs; i++)
			ids[i] = s->jobs[i].id;
		ret = find_dup(ids, s->njobs, &dup);
		free(ids);
		if (ret)
			return sm_error_set(e, SM_ERR_INTERNAL, "out of memory");
		if (!dup)
			return 0;
		ret = sm_error_set(e, SM_ERR_DUPLICATE_ID,
				   "job '%s' listed twice", dup);
		for (i = last = 0; sv && i < s->njobs; i++)
			if (!strcmp(s->jobs[i].id, dup))
				last = i;
		if (sv) {
			salvage_note(sv, e, 1);
			remove_job(s, last);
		}
	} while (sv);
	return ret;
}

/*
 * *out is a new table of the jobs in arr (set, or a state file), ids
 * unique, owner's when owner is not NULL (jobs may share hosts).  0, or
 * a negative errno with e filled when any job is wrong; with sv (a
 * state file) wrong jobs, and those past the bound, are left out
 * instead, and only memory fails.
 */
static int parse_jobs(json_object *arr, const char *owner,
		      sm_host_id_fn host_id, void *ctx, struct salvage *sv,
		      struct sm_hints_snap **out, struct sm_error *e)
{
	size_t i, n = json_object_array_length(arr);
	struct sm_hints_snap *s;
	char where[32];
	int ret = 0;

	if (n > SM_HINTS_MAX_JOBS) {
		ret = sm_error_set(e, SM_ERR_BAD_REQUEST,
				   "%zu jobs, at most %d", n, SM_HINTS_MAX_JOBS);
		if (!sv)
			return ret;
		salvage_note(sv, e, n - SM_HINTS_MAX_JOBS);
		n = SM_HINTS_MAX_JOBS;
	}
	s = snap_alloc(n);
	if (!s)
		return sm_error_set(e, SM_ERR_INTERNAL, "out of memory");
	for (i = 0; i < n; i++) {
		snprintf(where, sizeof(where), "jobs[%zu]", i);
		s->njobs++;
		ret = parse_job(json_object_array_get_idx(arr, i), where,
				owner, host_id, ctx, &s->jobs[s->njobs - 1], e);
		if (!ret)
			continue;
		if (!sv || e->code == SM_ERR_INTERNAL)
			goto out_free;
		salvage_note(sv, e, 1);
		remove_job(s, s->njobs - 1);
	}
	ret = check_ids(s, sv, e);
	if (ret)
		goto out_free;
	*out = s;
	return 0;
out_free:
	snap_free(s);
	return ret;
}

/* d is s, sharing its strings (a snapshot's jobs never change). */
static void job_copy(struct sm_job *d, const struct sm_job *s)
{
	*d = *s;
	atomic_fetch_add(s->shared, 1);
}

static bool owned_by(const struct sm_job *j, const char *owner)
{
	return owner && j->owner && !strcmp(j->owner, owner);
}

/*
 * A copy of s with room for extra more jobs, leaving out the jobs drop
 * marks (NULL: none) and those of owner (NULL: none).
 */
static struct sm_hints_snap *snap_copy(const struct sm_hints_snap *s,
				       size_t extra, const bool *drop,
				       const char *owner)
{
	struct sm_hints_snap *c = snap_alloc(s->njobs + extra);
	size_t i;

	if (!c)
		return NULL;
	for (i = 0; i < s->njobs; i++) {
		if ((drop && drop[i]) || owned_by(&s->jobs[i], owner))
			continue;
		job_copy(&c->jobs[c->njobs++], &s->jobs[i]);
	}
	return c;
}

static json_object *job_json(const struct sm_job *j)
{
	json_object *o = json_object_new_object(), *hosts;
	size_t i;

	hosts = json_object_new_array_ext(j->nhosts);
	if (!o || !hosts)
		goto out_put;
	for (i = 0; i < j->nhosts; i++)
		if (json_object_array_add(hosts,
					  json_object_new_string(j->hosts[i])))
			goto out_put;
	if (sm_json_add(o, "id", json_object_new_string(j->id)) ||
	    sm_json_add(o, "hosts", hosts))
		goto out_put_o;
	if (sm_json_add(o, "weight", json_object_new_int(j->weight)))
		goto out_put_o;
	if (j->owner &&
	    sm_json_add(o, "owner", json_object_new_string(j->owner)))
		goto out_put_o;
	return o;
out_put:
	json_object_put(hosts);
out_put_o:
	json_object_put(o);
	return NULL;
}

/* Add "generation" and "jobs" of s to o. */
static int snap_json(const struct sm_hints_snap *s, json_object *o)
{
	json_object *jobs = json_object_new_array_ext(s->njobs);
	size_t i;

	if (!jobs)
		return -ENOMEM;
	for (i = 0; i < s->njobs; i++) {
		json_object *j = job_json(&s->jobs[i]);

		if (!j || json_object_array_add(jobs, j)) {
			json_object_put(j);
			json_object_put(jobs);
			return -ENOMEM;
		}
	}
	if (sm_json_add(o, "generation", json_object_new_int64(s->generation)))
		return -ENOMEM;
	return sm_json_add(o, "jobs", jobs);
}

int sm_hints_get(struct sm_hints *h, json_object *reply)
{
	const struct sm_hints_snap *s = sm_hints_snapshot(h);
	int ret = snap_json(s, reply);

	sm_hints_put(s);
	return ret;
}

static int sys_error(char *err, size_t len, const char *path,
		     const char *step)
{
	int ret = errno ? -errno : -EIO;

	snprintf(err, len, "%s: %s: %s", path, step, strerror(-ret));
	return ret;
}

/*
 * The whole table and its generation, replacing dir/hints.json; its
 * size in *bytes (may be NULL).
 */
static int save_snap(const struct sm_hints_snap *s, const char *dir,
		     size_t *bytes, char *err, size_t len)
{
	char path[PATH_MAX], *buf = NULL;
	json_object *o = json_object_new_object();
	const char *text, *step = "open directory";
	int dfd = -1, ret;
	size_t n;

	snprintf(path, sizeof(path), "%s/%s", dir, SM_HINTS_FILE);
	if (!o || sm_json_add(o, "version", json_object_new_int(FILE_VERSION)) ||
	    snap_json(s, o))
		goto out_nomem;
	text = json_object_to_json_string_length(o, JSON_C_TO_STRING_PRETTY |
						 JSON_C_TO_STRING_NOSLASHESCAPE,
						 &n);
	buf = malloc(n + 1);
	if (!text || !buf)
		goto out_nomem;
	memcpy(buf, text, n);
	buf[n] = '\n';
	dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	ret = dfd < 0 ? -errno : sm_replace_at(dfd, "." SM_HINTS_FILE ".tmp",
					       SM_HINTS_FILE, buf, n + 1, 0600,
					       &step);
	if (dfd < 0)
		step = "create temporary file";
	if (ret)
		snprintf(err, len, "%s: %s: %s",
			 strcmp(step, "fsync directory") ? path : dir, step,
			 strerror(-ret));
	else if (bytes)
		*bytes = n + 1;
	goto out;
out_nomem:
	snprintf(err, len, "%s: out of memory", path);
	ret = -ENOMEM;
out:
	if (dfd >= 0)
		close(dfd);
	free(buf);
	json_object_put(o);
	return ret;
}

int sm_hints_save(struct sm_hints *h, const char *dir, char *err, size_t len)
{
	int ret;

	pthread_mutex_lock(&h->wlock);
	ret = save_snap(h->cur, dir, NULL, err, len);
	pthread_mutex_unlock(&h->wlock);
	return ret;
}

/* ret (-errno, 0: -EIO) of step on the log, said in err. */
static int log_error(const struct sm_hints *h, const char *step, int ret,
		     char *err, size_t len)
{
	ret = ret ? ret : -EIO;
	snprintf(err, len, "%s/%s: %s: %s", h->dir, SM_HINTS_LOG, step,
		 strerror(-ret));
	return ret;
}

/* The log opened (created empty) for appending; 0 or -errno. */
static int log_open(struct sm_hints *h)
{
	char path[PATH_MAX];

	snprintf(path, sizeof(path), "%s/%s", h->dir, SM_HINTS_LOG);
	if (h->logfd < 0)
		h->logfd = open(path, O_WRONLY | O_APPEND | O_CREAT |
				O_NOFOLLOW | O_CLOEXEC, 0600);
	return h->logfd < 0 ? -errno : 0;
}

/* dir/hints.log emptied, durably: the table file holds all it had. */
static int log_reset(struct sm_hints *h, char *err, size_t len)
{
	int ret = log_open(h);

	h->log_bytes = 0;
	if (ret)
		return log_error(h, "open", ret, err, len);
	if (ftruncate(h->logfd, 0) || fdatasync(h->logfd))
		return log_error(h, "truncate", -errno, err, len);
	return 0;
}

/*
 * The whole table written (hints.json), then the log emptied.  Records
 * the file covers are skipped by loading, so a crash in between, or a
 * log that could not be emptied, costs nothing but the next change
 * rewriting the file again.
 */
static int rebase(struct sm_hints *h, const struct sm_hints_snap *s,
		  char *err, size_t len)
{
	char lerr[64];
	int ret = save_snap(s, h->dir, &h->snap_bytes, err, len);

	h->based = !ret && !log_reset(h, lerr, sizeof(lerr));
	return ret;
}

/*
 * rec, one line, appended to the log and synced; a failed write is cut
 * off again (or, if that fails too, the next change rewrites all).
 */
static int log_append(struct sm_hints *h, const char *rec, size_t n,
		      char *err, size_t len)
{
	int ret = sm_write_all(h->logfd, rec, n);

	if (!ret && fdatasync(h->logfd))
		ret = -errno;
	if (!ret) {
		h->log_bytes += n;
		return 0;
	}
	if (ftruncate(h->logfd, h->log_bytes))
		h->based = false;
	return log_error(h, "write", ret, err, len);
}

/*
 * s saved: as rec (the change, a log record without its generation)
 * appended to the log while the log is smaller than the table file (so
 * that rewrites cost O(1) per change on average), else the whole table.
 */
static int persist(struct sm_hints *h, const struct sm_hints_snap *s,
		   json_object *rec, char *err, size_t len)
{
	const char *text;
	char *line;
	size_t n;
	int ret;

	if (!rec || !h->based || h->logfd < 0)
		return rebase(h, s, err, len);
	if (sm_json_add(rec, "generation",
			json_object_new_int64(s->generation)))
		goto out_nomem;
	text = json_object_to_json_string_length(rec, JSON_C_TO_STRING_PLAIN |
						 JSON_C_TO_STRING_NOSLASHESCAPE,
						 &n);
	if (!text)
		goto out_nomem;
	if (h->log_bytes + n + 1 > (h->snap_bytes > LOG_MIN ? h->snap_bytes :
				    LOG_MIN))
		return rebase(h, s, err, len);
	line = malloc(n + 1);
	if (!line)
		goto out_nomem;
	memcpy(line, text, n);
	line[n] = '\n';
	ret = log_append(h, line, n + 1, err, len);
	free(line);
	return ret;
out_nomem:
	snprintf(err, len, "%s/%s: out of memory", h->dir, SM_HINTS_LOG);
	return -ENOMEM;
}

/*
 * Publish s (consumed) as the next generation; caller holds wlock.  rec
 * (borrowed, may be NULL: the whole table is written) is the change as
 * the log records it.
 */
static int commit(struct sm_hints *h, struct sm_hints_snap *s,
		  json_object *rec, uint64_t *gen, struct sm_error *e)
{
	struct sm_hints_snap *old;
	char err[sizeof(e->msg)];
	int ret;

	/* JSON readers take integers as int64: past it they turn negative */
	if (h->cur->generation >= INT64_MAX) {
		snap_free(s);
		return sm_error_set(e, SM_ERR_INTERNAL,
				    "the job table's generation is at its limit, %" PRId64 ": no change can be counted",
				    INT64_MAX);
	}
	s->generation = h->cur->generation + 1;
	if (h->dir) {
		ret = persist(h, s, rec, err, sizeof(err));
		if (ret) {
			snap_free(s);
			sm_error_set(e, SM_ERR_INTERNAL, "%s", err);
			return ret;
		}
	}
	pthread_mutex_lock(&h->lock);
	old = h->cur;
	h->cur = s;
	pthread_mutex_unlock(&h->lock);
	sm_hints_put(old);
	if (gen)
		*gen = s->generation;
	return 0;
}

static struct sm_job *find_job(const struct sm_hints_snap *s, const char *id)
{
	size_t i;

	for (i = 0; i < s->njobs; i++)
		if (!strcmp(s->jobs[i].id, id))
			return &s->jobs[i];
	return NULL;
}

/*
 * An owner's set: *s (its new jobs, replaced) after the jobs of cur that
 * are not owner's.  0, or a negative errno with e filled
 * (an id another owner holds, too many jobs) and *s freed.
 */
static int keep_others(const struct sm_hints_snap *cur, const char *owner,
		       struct sm_hints_snap **s, struct sm_error *e)
{
	struct sm_hints_snap *m, *n = *s;
	char w[SM_HINTS_ID_MAX + SM_HINTS_OWNER_MAX + 16];
	const struct sm_job *j;
	size_t i;
	int ret = 0;

	*s = NULL;
	for (i = 0; i < n->njobs && !ret; i++) {
		j = find_job(cur, n->jobs[i].id);
		if (j && !owned_by(j, owner))
			ret = sm_error_set(e, SM_ERR_DUPLICATE_ID,
					   "job %s already exists",
					   who(j, w, sizeof(w)));
	}
	m = ret ? NULL : snap_copy(cur, n->njobs, NULL, owner);
	if (!ret && !m)
		ret = sm_error_set(e, SM_ERR_INTERNAL, "out of memory");
	if (!ret && m->njobs + n->njobs > SM_HINTS_MAX_JOBS)
		ret = sm_error_set(e, SM_ERR_BAD_REQUEST,
				   "%zu jobs and the others' %zu, at most %d",
				   n->njobs, m->njobs, SM_HINTS_MAX_JOBS);
	if (ret) {
		if (m)
			snap_free(m);
		snap_free(n);
		return ret;
	}
	memcpy(m->jobs + m->njobs, n->jobs, n->njobs * sizeof(*n->jobs));
	m->njobs += n->njobs;
	n->njobs = 0;
	snap_free(n);
	*s = m;
	return 0;
}

int sm_hints_set(struct sm_hints *h, json_object *req, uint64_t *gen,
		 struct sm_error *e)
{
	static const char *const fields[] = { "op", "jobs", "owner", NULL };
	struct sm_hints_snap *s = NULL;
	const char *owner = NULL;
	json_object *jobs;
	int ret;

	ret = sm_check_fields(req, fields, e);
	if (!ret)
		ret = sm_get_array(req, "jobs", true, &jobs, e);
	if (!ret)
		ret = get_owner(req, &owner, e);
	if (ret)
		return ret;
	pthread_mutex_lock(&h->wlock);
	ret = parse_jobs(jobs, owner, h->host_id, h->ctx, NULL, &s, e);
	if (!ret && owner)
		ret = keep_others(h->cur, owner, &s, e);
	if (!ret)
		ret = commit(h, s, NULL, gen, e);
	else if (s)
		snap_free(s);
	pthread_mutex_unlock(&h->wlock);
	return ret;
}

/* The jobs of n as a log record's "add" (or ids only: "remove"). */
static json_object *record(const struct sm_hints_snap *n, const char *key)
{
	json_object *rec = json_object_new_object(), *arr, *x;
	size_t i;

	arr = json_object_new_array_ext(n->njobs);
	if (!rec || sm_json_add(rec, key, arr))
		goto out_put;
	for (i = 0; i < n->njobs; i++) {
		x = strcmp(key, "add") ? json_object_new_string(n->jobs[i].id) :
					 job_json(&n->jobs[i]);
		if (!x || json_object_array_add(arr, x)) {
			json_object_put(x);
			goto out_put;
		}
	}
	return rec;
out_put:
	json_object_put(rec);
	return NULL;
}

/*
 * The jobs of an add: {"job":JOB} or {"jobs":[JOB, ...]}, with
 * "owner" the jobs' owner; into *n.
 */
static int parse_add(struct sm_hints *h, json_object *req,
		     struct sm_hints_snap **n, struct sm_error *e)
{
	json_object *o = NULL, *arr = NULL;
	const char *owner = NULL;
	int ret;

	*n = NULL;
	if ((ret = sm_get_object(req, "job", false, &o, e)) ||
	    (ret = sm_get_array(req, "jobs", false, &arr, e)) ||
	    (ret = get_owner(req, &owner, e)))
		return ret;
	if (!o == !arr)
		return sm_error_set(e, SM_ERR_BAD_REQUEST, o ?
				    "give field 'job' or 'jobs', one of them" :
				    "missing field 'job'");
	if (arr && !json_object_array_length(arr))
		return sm_error_set(e, SM_ERR_BAD_REQUEST,
				    "field 'jobs' must not be empty");
	if (arr)
		return parse_jobs(arr, owner, h->host_id, h->ctx, NULL, n, e);
	*n = snap_alloc(1);
	if (!*n)
		return sm_error_set(e, SM_ERR_INTERNAL, "out of memory");
	(*n)->njobs = 1;
	return parse_job(o, "job", owner, h->host_id, h->ctx, (*n)->jobs, e);
}

int sm_hints_add(struct sm_hints *h, json_object *req, uint64_t *gen,
		 struct sm_error *e)
{
	static const char *const fields[] = {
		"op", "job", "jobs", "owner", NULL
	};
	char w[SM_HINTS_ID_MAX + SM_HINTS_OWNER_MAX + 16];
	struct sm_hints_snap *s, *n = NULL;
	const struct sm_job *old;
	json_object *rec = NULL;
	size_t i;
	int ret;

	ret = sm_check_fields(req, fields, e);
	if (ret)
		return ret;
	pthread_mutex_lock(&h->wlock);
	ret = parse_add(h, req, &n, e);
	for (i = 0; !ret && i < n->njobs; i++) {
		old = find_job(h->cur, n->jobs[i].id);
		if (old)
			ret = sm_error_set(e, SM_ERR_DUPLICATE_ID,
					   "job %s already exists",
					   who(old, w, sizeof(w)));
	}
	if (!ret && h->cur->njobs + n->njobs > SM_HINTS_MAX_JOBS)
		ret = sm_error_set(e, SM_ERR_BAD_REQUEST,
				   "job '%s': the table is full (%d jobs)",
				   n->jobs[h->cur->njobs < SM_HINTS_MAX_JOBS ?
					   SM_HINTS_MAX_JOBS - h->cur->njobs :
					   0].id, SM_HINTS_MAX_JOBS);
	if (ret)
		goto out_unlock;
	rec = h->dir ? record(n, "add") : NULL;
	s = snap_copy(h->cur, n->njobs, NULL, NULL);
	if (!s || (h->dir && !rec)) {
		if (s)
			snap_free(s);
		ret = sm_error_set(e, SM_ERR_INTERNAL, "out of memory");
		goto out_unlock;
	}
	memcpy(s->jobs + s->njobs, n->jobs, n->njobs * sizeof(*n->jobs));
	s->njobs += n->njobs;
	n->njobs = 0;
	ret = commit(h, s, rec, gen, e);
out_unlock:
	pthread_mutex_unlock(&h->wlock);
	json_object_put(rec);
	if (n)
		snap_free(n);
	return ret;
}

/*
 * Mark in drop the job id names (an owner removes its own jobs only;
 * without, anybody's); 0 or a negative errno with e filled.
 */
static int mark(const struct sm_hints_snap *cur, const char *id,
		const char *owner, bool *drop, struct sm_error *e)
{
	struct sm_job *j = find_job(cur, id);

	if (!j)
		return sm_error_set(e, SM_ERR_NOT_FOUND, "no job '%.80s'", id);
	if (owner && !owned_by(j, owner))
		return sm_error_set(e, SM_ERR_FORBIDDEN,
				    "job '%.80s' is %s%s%s, not owner %s's",
				    id, j->owner ? "owner " : "",
				    j->owner ? j->owner : "without owner",
				    j->owner ? "'s" : "", owner);
	drop[j - cur->jobs] = true;
	return 0;
}

/* The ids of a remove: {"id":"ID"} or {"ids":["ID", ...]}, into drop. */
static int parse_remove(const struct sm_hints_snap *cur, json_object *req,
			bool *drop, struct sm_error *e)
{
	json_object *ids = NULL, *x;
	const char *id = NULL, *owner = NULL;
	size_t i;
	int ret;

	if ((ret = sm_get_string(req, "id", false, &id, e)) ||
	    (ret = sm_get_array(req, "ids", false, &ids, e)) ||
	    (ret = get_owner(req, &owner, e)))
		return ret;
	if (!id == !ids)
		return sm_error_set(e, SM_ERR_BAD_REQUEST, id ?
				    "give field 'id' or 'ids', one of them" :
				    "missing field 'id'");
	if (id)
		return mark(cur, id, owner, drop, e);
	if (!json_object_array_length(ids))
		return sm_error_set(e, SM_ERR_BAD_REQUEST,
				    "field 'ids' must not be empty");
	for (i = 0; !ret && i < json_object_array_length(ids); i++) {
		x = json_object_array_get_idx(ids, i);
		ret = json_object_is_type(x, json_type_string) ?
		      mark(cur, json_object_get_string(x), owner, drop, e) :
		      sm_error_set(e, SM_ERR_BAD_REQUEST,
				   "ids[%zu] must be a string", i);
	}
	return ret;
}

int sm_hints_remove(struct sm_hints *h, json_object *req, uint64_t *gen,
		    struct sm_error *e)
{
	static const char *const fields[] = {
		"op", "id", "ids", "owner", NULL
	};
	struct sm_hints_snap *s = NULL, *gone = NULL;
	json_object *rec = NULL;
	bool *drop = NULL;
	size_t i;
	int ret;

	ret = sm_check_fields(req, fields, e);
	if (ret)
		return ret;
	pthread_mutex_lock(&h->wlock);
	drop = calloc(h->cur->njobs + 1, sizeof(*drop));
	ret = drop ? parse_remove(h->cur, req, drop, e) :
		     sm_error_set(e, SM_ERR_INTERNAL, "out of memory");
	if (ret)
		goto out_unlock;
	s = snap_copy(h->cur, 0, drop, NULL);
	gone = s ? snap_alloc(h->cur->njobs - s->njobs) : NULL;
	for (i = 0; gone && i < h->cur->njobs; i++)
		if (drop[i])
			gone->jobs[gone->njobs++].id = h->cur->jobs[i].id;
	rec = gone && h->dir ? record(gone, "remove") : NULL;
	if (gone)
		gone->njobs = 0;	/* its ids are borrowed */
	if (!s || !gone || (h->dir && !rec)) {
		ret = sm_error_set(e, SM_ERR_INTERNAL, "out of memory");
		goto out_unlock;
	}
	ret = commit(h, s, rec, gen, e);
	s = NULL;
out_unlock:
	pthread_mutex_unlock(&h->wlock);
	if (s)
		snap_free(s);
	if (gone)
		snap_free(gone);
	json_object_put(rec);
	free(drop);
	return ret;
}

/* Read path whole into a malloc'd *buf; -ENOENT without a message. */
static int read_file(const char *path, char **buf, size_t *n, char *err,
		     size_t len)
{
	struct stat st;
	ssize_t r;
	size_t got = 0;
	int fd, ret;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return errno == ENOENT ? -ENOENT : sys_error(err, len, path, "open");
	if (fstat(fd, &st)) {
		ret = sys_error(err, len, path, "stat");
		goto out_close;
	}
	if ((uintmax_t)st.st_size > FILE_MAX) {
		snprintf(err, len, "%s: larger than %u bytes", path, FILE_MAX);
		ret = -EFBIG;
		goto out_close;
	}
	*buf = malloc(st.st_size + 1);
	if (!*buf) {
		snprintf(err, len, "%s: out of memory", path);
		ret = -ENOMEM;
		goto out_close;
	}
	while (got < (size_t)st.st_size) {
		r = read(fd, *buf + got, st.st_size - got);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			break;
		got += r;
	}
	ret = got == (size_t)st.st_size ? 0 : sys_error(err, len, path, "read");
	if (ret) {
		free(*buf);
		*buf = NULL;
	}
	*n = got;
out_close:
	close(fd);
	return ret;
}

/*
 * The file's generation.  One JSON readers would not take as an int64
 * (2^63 or more, or negative: an older version wrapped it) is the last,
 * INT64_MAX, so that the jobs still load.
 */
static int file_generation(json_object *o, int64_t *gen, struct sm_error *e)
{
	json_object *v;
	int ret = sm_get_int(o, "generation", true, 0, INT64_MAX, gen, e);

	if (ret && json_object_object_get_ex(o, "generation", &v) &&
	    json_object_is_type(v, json_type_int))
		*gen = INT64_MAX;
	return ret;
}

/*
 * *out is the table text (n bytes) holds, what is wrong with it noted in
 * sv: a job that is not valid is left out, the others kept; a text that
 * is no table of a known version leaves *out empty.  0, or -ENOMEM.
 */
static int parse_file(const char *text, size_t n, struct salvage *sv,
		      struct sm_hints_snap **out)
{
	static const char *const fields[] = {
		"version", "generation", "jobs", NULL
	};
	json_object *o = NULL, *jobs = NULL;
	int64_t version, gen = 0;
	struct sm_error e;
	int ret;

	*out = NULL;
	ret = sm_proto_parse_object(text, n, FILE_MAX, &o, &e);
	if (!ret)
		ret = sm_get_int(o, "version", true, 1, FILE_VERSION,
				 &version, &e);
	if (ret) {
		salvage_note(sv, &e, 0);
		goto out_empty;
	}
	if (sm_check_fields(o, fields, &e))
		salvage_note(sv, &e, 0);
	if (file_generation(o, &gen, &e))
		salvage_note(sv, &e, 0);
	if (sm_get_array(o, "jobs", true, &jobs, &e))
		salvage_note(sv, &e, 0);
	if (!jobs)
		goto out_empty;
	ret = parse_jobs(jobs, NULL, NULL, NULL, sv, out, &e);
	goto out;
out_empty:
	*out = snap_alloc(0);
	ret = *out ? 0 : -ENOMEM;
out:
	if (ret && *out)
		snap_free(*out);
	if (ret)
		*out = NULL;
	else
		(*out)->generation = gen;
	json_object_put(o);
	return ret;
}

/*
 * Link dir's file to file.bad-YYYYMMDDTHHMMSSZ, with .1, .2, ... when
 * that is taken: never over another file.  Its name in name.
 */
static int keep_aside(const char *dir, const char *file, char *name,
		      size_t len)
{
	char stamp[32];
	struct tm tm;
	time_t t = time(NULL);
	int dfd, i, ret = -EEXIST;
	size_t k;

	gmtime_r(&t, &tm);
	strftime(stamp, sizeof(stamp), "%Y%m%dT%H%M%SZ", &tm);
	dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dfd < 0)
		return -errno;
	for (i = 0; i < 1000 && ret == -EEXIST; i++) {
		k = snprintf(name, len, "%s.bad-%s", file, stamp);
		if (i && k < len)
			snprintf(name + k, len - k, ".%d", i);
		ret = linkat(dfd, file, dfd, name, 0) ? -errno : 0;
	}
	close(dfd);
	return ret;
}

/*
 * A bad file loaded as s: keep it aside and save s in its place, so the
 * next start loads the same jobs; err tells the operator.  -EINVAL.
 */
static int salvaged(const struct sm_hints_snap *s, const char *dir,
		    const char *path, const struct salvage *sv, char *err,
		    size_t len)
{
	char aside[96], serr[256];
	int n, ret;

	n = snprintf(err, len, "%s: %s; %zu jobs loaded, %zu left out; ",
		     path, sv->first.msg, s->njobs, sv->dropped);
	if (n < 0 || (size_t)n >= len)
		return -EINVAL;
	ret = keep_aside(dir, SM_HINTS_FILE, aside, sizeof(aside));
	if (ret) {
		snprintf(err + n, len - n, "the file stays, it could not be kept aside: %s",
			 strerror(-ret));
		return -EINVAL;
	}
	if (save_snap(s, dir, NULL, serr, sizeof(serr)))
		snprintf(err + n, len - n, "the file is kept as %s, but what loaded was not saved: %s",
			 aside, serr);
	else
		snprintf(err + n, len - n, "the file is kept as %s", aside);
	return -EINVAL;
}

/* The jobs of n (emptied) after those of s, ids new, the bound kept. */
static int append_jobs(struct sm_hints_snap *s, struct sm_hints_snap *n,
		       struct sm_error *e)
{
	struct sm_job *grown;
	size_t i;

	for (i = 0; i < n->njobs; i++)
		if (find_job(s, n->jobs[i].id))
			return sm_error_set(e, SM_ERR_DUPLICATE_ID,
					    "job '%s' already exists",
					    n->jobs[i].id);
	if (s->njobs + n->njobs > SM_HINTS_MAX_JOBS)
		return sm_error_set(e, SM_ERR_BAD_REQUEST,
				    "more than %d jobs", SM_HINTS_MAX_JOBS);
	grown = realloc(s->jobs, (s->njobs + n->njobs) * sizeof(*s->jobs));
	if (!grown)
		return sm_error_set(e, SM_ERR_INTERNAL, "out of memory");
	s->jobs = grown;
	memcpy(s->jobs + s->njobs, n->jobs, n->njobs * sizeof(*n->jobs));
	s->njobs += n->njobs;
	n->njobs = 0;
	return 0;
}

/* The ids of arr taken out of s, each there. */
static int remove_ids(struct sm_hints_snap *s, json_object *arr,
		      struct sm_error *e)
{
	const struct sm_job *j;
	const char *id;
	size_t i;

	for (i = 0; i < json_object_array_length(arr); i++) {
		id = json_object_get_string(json_object_array_get_idx(arr, i));
		j = id ? find_job(s, id) : NULL;
		if (!j)
			return sm_error_set(e, SM_ERR_NOT_FOUND,
					    "no job '%.80s'", id ? id : "");
		remove_job(s, j - s->jobs);
	}
	return 0;
}

/*
 * One log record (n bytes, no newline) applied to s: its change when
 * it is the next generation, nothing when s has it already.  0, or a
 * negative errno with e filled (-ENOMEM: internal).
 */
static int replay_one(struct sm_hints_snap *s, const char *line, size_t n,
		      struct sm_error *e)
{
	static const char *const fields[] = {
		"generation", "add", "remove", NULL
	};
	json_object *o = NULL, *add = NULL, *rm = NULL;
	struct sm_hints_snap *jobs = NULL;
	int64_t gen = 0;
	int ret;

	ret = sm_proto_parse_object(line, n, FILE_MAX, &o, e);
	if (!ret)
		ret = sm_check_fields(o, fields, e);
	if (!ret)
		ret = sm_get_int(o, "generation", true, 1, INT64_MAX, &gen, e);
	if (ret || (uint64_t)gen <= s->generation)
		goto out;
	if ((uint64_t)gen != s->generation + 1) {
		ret = sm_error_set(e, SM_ERR_BAD_REQUEST,
				   "generation %" PRId64 " after %" PRIu64,
				   gen, s->generation);
		goto out;
	}
	if ((ret = sm_get_array(o, "add", false, &add, e)) ||
	    (ret = sm_get_array(o, "remove", false, &rm, e)))
		goto out;
	if (!add == !rm)
		ret = sm_error_set(e, SM_ERR_BAD_REQUEST,
				   "one of 'add' and 'remove' needed");
	else if (add)
		ret = parse_jobs(add, NULL, NULL, NULL, NULL, &jobs, e);
	if (!ret)
		ret = add ? append_jobs(s, jobs, e) : remove_ids(s, rm, e);
	if (!ret)
		s->generation = gen;
out:
	if (jobs)
		snap_free(jobs);
	json_object_put(o);
	return ret;
}

/*
 * dir/hints.log's changes past s's generation applied to s; *bytes its
 * size (0: none).  A record that does not apply ends the replay: noted
 * in sv, naming its line.  0, or -ENOMEM, or the read's errno with err.
 */
static int replay_log(struct sm_hints_snap *s, const char *dir,
		      struct salvage *sv, size_t *bytes, char *err,
		      size_t len)
{
	char path[PATH_MAX], *buf = NULL, *p, *nl;
	struct sm_error e;
	size_t n = 0, line = 0;
	int ret;

	*bytes = 0;
	snprintf(path, sizeof(path), "%s/%s", dir, SM_HINTS_LOG);
	ret = read_file(path, &buf, &n, err, len);
	if (ret)
		return ret == -ENOENT ? 0 : ret;
	*bytes = n;
	/* a last line without its newline is a change never acknowledged */
	for (p = buf; (nl = memchr(p, '\n', buf + n - p)); p = nl + 1) {
		line++;
		ret = replay_one(s, p, nl - p, &e);
		if (ret == -ENOMEM)
			break;
		if (ret) {
			sm_error_prefix(&e, "line %zu: ", line);
			salvage_note(sv, &e, 0);
			ret = 0;
			break;
		}
	}
	if (ret)
		snprintf(err, len, "%s/%s: out of memory", dir, SM_HINTS_LOG);
	free(buf);
	return ret;
}

/* A bad log: kept aside (its bad line and what follows are lost). */
static int log_salvaged(const char *dir, const struct salvage *sv, char *err,
			size_t len)
{
	char aside[96];
	int n, ret;

	n = snprintf(err, len, "%s/%s: %s; the changes from there are left out; ",
		     dir, SM_HINTS_LOG, sv->first.msg);
	if (n < 0 || (size_t)n >= len)
		return -EINVAL;
	ret = keep_aside(dir, SM_HINTS_LOG, aside, sizeof(aside));
	if (ret)
		snprintf(err + n, len - n, "it could not be kept aside: %s",
			 strerror(-ret));
	else
		snprintf(err + n, len - n, "the log is kept as %s", aside);
	return -EINVAL;
}

/*
 * After loading dir, the table's own: a log with changes folded into
 * hints.json, so the next changes append to an empty one.
 */
static int load_base(struct sm_hints *h, size_t file, size_t log, char *err,
		     size_t len)
{
	h->based = false;
	if (h->logfd >= 0)
		close(h->logfd);
	h->logfd = -1;
	if (log)
		return rebase(h, h->cur, err, len);
	if (!file)
		return 0;
	h->based = !log_open(h);
	h->snap_bytes = file;
	h->log_bytes = 0;
	return 0;
}

int sm_hints_load(struct sm_hints *h, const char *dir, char *err, size_t len)
{
	struct sm_hints_snap *s = NULL, *old;
	struct salvage sv = { 0 }, lsv = { 0 };
	char path[PATH_MAX], *buf = NULL, berr[256];
	size_t n = 0, logn = 0;
	int ret, lret = 0;

	snprintf(path, sizeof(path), "%s/%s", dir, SM_HINTS_FILE);
	ret = read_file(path, &buf, &n, err, len);
	if (!ret) {
		ret = parse_file(buf, n, &sv, &s);
		if (ret)
			snprintf(err, len, "%s: out of memory", path);
	}
	free(buf);
	if (!s && (!ret || ret == -ENOENT))
		s = snap_alloc(0);
	if (s && (!ret || ret == -ENOENT))
		lret = replay_log(s, dir, &lsv, &logn, berr, sizeof(berr));
	if (lret == -ENOMEM && s) {
		snap_free(s);
		s = NULL;
	}
	if (!ret && sv.bad)
		ret = salvaged(s, dir, path, &sv, err, len);
	else if ((!ret || ret == -ENOENT) && lret)
		ret = lret, snprintf(err, len, "%s", berr);
	else if ((!ret || ret == -ENOENT) && lsv.bad)
		ret = log_salvaged(dir, &lsv, err, len);
	if (!s)
		s = snap_alloc(0);
	if (!s)
		return -ENOMEM;
	pthread_mutex_lock(&h->wlock);
	pthread_mutex_lock(&h->lock);
	old = h->cur;
	h->cur = s;
	pthread_mutex_unlock(&h->lock);
	if (h->dir && !strcmp(h->dir, dir) &&
	    load_base(h, n, logn || sv.bad, berr, sizeof(berr)) && !ret) {
		snprintf(err, len, "%s", berr);
		ret = -EIO;
	}
	pthread_mutex_unlock(&h->wlock);
	sm_hints_put(old);
	return ret == -ENOENT ? 0 : ret;
}

int sm_hints_serve(struct sm_hints *h, json_object *req, bool may_write,
		   json_object **reply)
{
	static const struct {
		const char *op;
		int (*fn)(struct sm_hints *h, json_object *req, uint64_t *gen,
			  struct sm_error *e);
	} ops[] = {
		{ "hints.set", sm_hints_set },
		{ "hints.add", sm_hints_add },
		{ "hints.remove", sm_hints_remove },
	};
	static const char *const get_fields[] = { "op", NULL };
	const char *op = sm_proto_op(req);
	struct sm_error e;
	json_object *r;
	uint64_t gen;
	size_t i;

	if (op && !strcmp(op, "hints.get")) {
		if (sm_check_fields(req, get_fields, &e))
			goto out_error;
		r = sm_reply_ok();
		if (r && sm_hints_get(h, r))
			goto out_put;
		*reply = r;
		return r ? 0 : -ENOMEM;
	}
	for (i = 0; op && i < sizeof(ops) / sizeof(ops[0]); i++)
		if (!strcmp(op, ops[i].op))
			break;
	if (!op || i == sizeof(ops) / sizeof(ops[0]))
		return -EOPNOTSUPP;
	if (!may_write) {
		sm_error_set(&e, SM_ERR_FORBIDDEN,
			     "%s needs root or the socket's group", op);
		goto out_error;
	}
	if (ops[i].fn(h, req, &gen, &e))
		goto out_error;
	r = sm_reply_ok();
	if (r && sm_json_add(r, "generation", json_object_new_int64(gen)))
		goto out_put;
	*reply = r;
	return r ? 0 : -ENOMEM;
out_put:
	json_object_put(r);
	return -ENOMEM;
out_error:
	*reply = sm_reply_from_error(&e);
	return *reply ? 0 : -ENOMEM;
}
