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

/*
 * Writers (changes, load, save) hold wlock throughout, so cur only moves
 * under wlock; lock guards the pointer itself against snapshot readers
 * and is held for a pointer swap or a reference count only.
 */
struct sm_hints {
	pthread_mutex_t lock;
	pthread_mutex_t wlock;
	struct sm_hints_snap *cur;
	sm_host_known_fn known;
	void *ctx;
	char *dir;
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

static void job_release(struct sm_job *j)
{
	size_t i;

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

int sm_hints_new(const char *dir, sm_host_known_fn known, void *ctx,
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
	h->known = known;
	h->ctx = ctx;
	*out = h;
	return 0;
}

void sm_hints_free(struct sm_hints *h)
{
	if (!h)
		return;
	sm_hints_put(h->cur);
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

/*
 * Fill j from the job object o; where ("jobs[3]", "job") names it until
 * its id is known; owner, when not NULL, is the set's.  known NULL skips
 * the fabric check.  On error j holds what was built so far for the
 * caller to release.
 */
static int parse_job(json_object *o, const char *where, const char *owner,
		     sm_host_known_fn known, void *ctx, struct sm_job *j,
		     struct sm_error *e)
{
	static const char *const fields[] = {
		"id", "hosts", "weight", "owner", NULL
	};
	json_object *hosts;
	int64_t weight = 1;
	const char *id;
	size_t i;
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
	if (!j->id)
		return sm_error_set(e, SM_ERR_INTERNAL, "out of memory");
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
	for (i = 0; !ret && known && i < j->nhosts; i++)
		if (!known(ctx, j->hosts[i]))
			ret = sm_error_set(e, SM_ERR_UNKNOWN_HOST,
					   "unknown host '%s'", j->hosts[i]);
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
		      sm_host_known_fn known, void *ctx, struct salvage *sv,
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
				owner, known, ctx, &s->jobs[s->njobs - 1], e);
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

static int job_copy(struct sm_job *d, const struct sm_job *s)
{
	size_t i;

	d->weight = s->weight;
	d->id = strdup(s->id);
	d->owner = s->owner ? strdup(s->owner) : NULL;
	d->hosts = calloc(s->nhosts, sizeof(*d->hosts));
	if (!d->id || !d->hosts || (s->owner && !d->owner))
		return -ENOMEM;
	for (i = 0; i < s->nhosts; i++) {
		d->hosts[i] = strdup(s->hosts[i]);
		if (!d->hosts[i])
			return -ENOMEM;
		d->nhosts++;
	}
	return 0;
}

static bool owned_by(const struct sm_job *j, const char *owner)
{
	return owner && j->owner && !strcmp(j->owner, owner);
}

/*
 * A copy of s with room for extra more jobs, leaving out job skip and
 * the jobs of owner (NULL: none).
 */
static struct sm_hints_snap *snap_copy(const struct sm_hints_snap *s,
				       size_t extra, const struct sm_job *skip,
				       const char *owner)
{
	struct sm_hints_snap *c = snap_alloc(s->njobs + extra);
	size_t i;

	if (!c)
		return NULL;
	for (i = 0; i < s->njobs; i++) {
		if (&s->jobs[i] == skip || owned_by(&s->jobs[i], owner))
			continue;
		if (job_copy(&c->jobs[c->njobs++], &s->jobs[i])) {
			snap_free(c);
			return NULL;
		}
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

/* The whole table and its generation, replacing dir/hints.json. */
static int save_snap(const struct sm_hints_snap *s, const char *dir,
		     char *err, size_t len)
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
	ret = save_snap(h->cur, dir, err, len);
	pthread_mutex_unlock(&h->wlock);
	return ret;
}

/* Publish s (consumed) as the next generation; caller holds wlock. */
static int commit(struct sm_hints *h, struct sm_hints_snap *s, uint64_t *gen,
		  struct sm_error *e)
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
		ret = save_snap(s, h->dir, err, sizeof(err));
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
	ret = parse_jobs(jobs, owner, h->known, h->ctx, NULL, &s, e);
	if (!ret && owner)
		ret = keep_others(h->cur, owner, &s, e);
	if (!ret)
		ret = commit(h, s, gen, e);
	else if (s)
		snap_free(s);
	pthread_mutex_unlock(&h->wlock);
	return ret;
}

int sm_hints_add(struct sm_hints *h, json_object *req, uint64_t *gen,
		 struct sm_error *e)
{
	static const char *const fields[] = { "op", "job", NULL };
	char w[SM_HINTS_ID_MAX + SM_HINTS_OWNER_MAX + 16];
	const struct sm_job *old;
	struct sm_hints_snap *s;
	struct sm_job j = { 0 };
	json_object *o;
	int ret;

	ret = sm_check_fields(req, fields, e);
	if (!ret)
		ret = sm_get_object(req, "job", true, &o, e);
	if (ret)
		return ret;
	pthread_mutex_lock(&h->wlock);
	ret = parse_job(o, "job", NULL, h->known, h->ctx, &j, e);
	if (ret)
		goto out_unlock;
	old = find_job(h->cur, j.id);
	if (old) {
		ret = sm_error_set(e, SM_ERR_DUPLICATE_ID,
				   "job %s already exists",
				   who(old, w, sizeof(w)));
		goto out_unlock;
	}
	if (h->cur->njobs >= SM_HINTS_MAX_JOBS) {
		ret = sm_error_set(e, SM_ERR_BAD_REQUEST,
				   "job '%s': the table is full (%d jobs)",
				   j.id, SM_HINTS_MAX_JOBS);
		goto out_unlock;
	}
	s = snap_copy(h->cur, 1, NULL, NULL);
	if (!s) {
		ret = sm_error_set(e, SM_ERR_INTERNAL, "out of memory");
		goto out_unlock;
	}
	s->jobs[s->njobs++] = j;
	memset(&j, 0, sizeof(j));
	ret = commit(h, s, gen, e);
out_unlock:
	pthread_mutex_unlock(&h->wlock);
	job_release(&j);
	return ret;
}

int sm_hints_remove(struct sm_hints *h, json_object *req, uint64_t *gen,
		    struct sm_error *e)
{
	static const char *const fields[] = { "op", "id", "owner", NULL };
	const char *id, *owner = NULL;
	struct sm_hints_snap *s;
	struct sm_job *j;
	int ret;

	ret = sm_check_fields(req, fields, e);
	if (!ret)
		ret = sm_get_string(req, "id", true, &id, e);
	if (!ret)
		ret = get_owner(req, &owner, e);
	if (ret)
		return ret;
	pthread_mutex_lock(&h->wlock);
	j = find_job(h->cur, id);
	if (!j) {
		ret = sm_error_set(e, SM_ERR_NOT_FOUND, "no job '%.80s'", id);
		goto out_unlock;
	}
	/* an owner removes its own jobs only; no owner, anybody's */
	if (owner && !owned_by(j, owner)) {
		ret = sm_error_set(e, SM_ERR_FORBIDDEN,
				   "job '%.80s' is %s%s%s, not owner %s's",
				   id, j->owner ? "owner " : "",
				   j->owner ? j->owner : "without owner",
				   j->owner ? "'s" : "", owner);
		goto out_unlock;
	}
	s = snap_copy(h->cur, 0, j, NULL);
	ret = s ? commit(h, s, gen, e) :
		sm_error_set(e, SM_ERR_INTERNAL, "out of memory");
out_unlock:
	pthread_mutex_unlock(&h->wlock);
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
 * Link dir's hints.json to hints.json.bad-YYYYMMDDTHHMMSSZ, with .1, .2,
 * ... when that is taken: never over another file.  Its name in name.
 */
static int keep_aside(const char *dir, char *name, size_t len)
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
		k = snprintf(name, len, "%s.bad-%s", SM_HINTS_FILE, stamp);
		if (i && k < len)
			snprintf(name + k, len - k, ".%d", i);
		ret = linkat(dfd, SM_HINTS_FILE, dfd, name, 0) ? -errno : 0;
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
	ret = keep_aside(dir, aside, sizeof(aside));
	if (ret) {
		snprintf(err + n, len - n, "the file stays, it could not be kept aside: %s",
			 strerror(-ret));
		return -EINVAL;
	}
	if (save_snap(s, dir, serr, sizeof(serr)))
		snprintf(err + n, len - n, "the file is kept as %s, but what loaded was not saved: %s",
			 aside, serr);
	else
		snprintf(err + n, len - n, "the file is kept as %s", aside);
	return -EINVAL;
}

int sm_hints_load(struct sm_hints *h, const char *dir, char *err, size_t len)
{
	struct sm_hints_snap *s = NULL, *old;
	struct salvage sv = { 0 };
	char path[PATH_MAX], *buf = NULL;
	size_t n;
	int ret;

	snprintf(path, sizeof(path), "%s/%s", dir, SM_HINTS_FILE);
	ret = read_file(path, &buf, &n, err, len);
	if (!ret) {
		ret = parse_file(buf, n, &sv, &s);
		if (ret)
			snprintf(err, len, "%s: out of memory", path);
	}
	if (!ret && sv.bad)
		ret = salvaged(s, dir, path, &sv, err, len);
	free(buf);
	if (!s)
		s = snap_alloc(0);
	if (!s)
		return -ENOMEM;
	pthread_mutex_lock(&h->wlock);
	pthread_mutex_lock(&h->lock);
	old = h->cur;
	h->cur = s;
	pthread_mutex_unlock(&h->lock);
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
