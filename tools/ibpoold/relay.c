// SPDX-License-Identifier: MIT
/*
 * The relay thread.  The table to send is a json array replaced by
 * post() under the lock; the thread takes a reference, talks to the
 * plugin without the lock, and records what happened.
 */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "log.h"
#include "relay.h"
#include "sm/client.h"
#include "sm/hints.h"
#include "sm/proto.h"
#include "topology/monotime.h"

#define RELAY_TIMEOUT_MS 2000
#define REFUSED "refused: "	/* ask()'s errors: "hints.add refused: MSG" */
#define TABLE_FULL "the table is full (%d jobs)"	/* as the plugin says it */
/*
 * The jobs of one hints.add (ids of one hints.remove), well within the
 * plugin's 64 KiB line also in a MUNGE credential; a larger job goes
 * alone, up to RELAY_LINE_MAX.
 */
#define RELAY_CHUNK (32u << 10)
#define RELAY_LINE_MAX 60000u

struct poold_relay {
	char *path;
	char *owner;		/* of our jobs in the plugin's table */
	char *munge;		/* munged's socket, NULL: the default */
	unsigned int interval_ms;
	pthread_t thread;
	pthread_mutex_t lock;
	pthread_cond_t cv;
	pthread_cond_t done;	/* a round ended: done_ver moved */
	bool stop;
	json_object *jobs;	/* owned; NULL until the first post */
	uint64_t ver;		/* bumped by each post */
	uint64_t sent_ver;	/* the version the plugin acknowledged */
	uint64_t done_ver;	/* the version the last round tried */
	json_object *refused;	/* owned: {"job","error"} left out of it */
	size_t room;		/* relay thread: jobs of ours the plugin's
				   table holds, as its last hints.get showed */
	struct poold_relay_status st;
};

/* One request to the plugin; 0 with *reply an ok reply, else -errno. */
static int ask(struct poold_relay *r, json_object *req, json_object **reply,
	       char *err, size_t len)
{
	json_object *e, *m;
	int ret;

	ret = sm_call_as(r->path, r->munge, req, reply, RELAY_TIMEOUT_MS,
			 err, len);
	if (ret)
		return ret;
	if (json_object_get_boolean(json_object_object_get(*reply, "ok")))
		return 0;
	e = json_object_object_get(*reply, "error");
	m = e ? json_object_object_get(e, "message") : NULL;
	snprintf(err, len, "%s refused: %s", sm_proto_op(req),
		 m ? json_object_get_string(m) : "no message");
	json_object_put(*reply);
	*reply = NULL;
	return -EPROTO;
}

static uint64_t generation(json_object *reply)
{
	return json_object_get_int64(json_object_object_get(reply,
							     "generation"));
}

static bool same_str(json_object *a, json_object *b)
{
	return a && b && !strcmp(json_object_get_string(a),
				 json_object_get_string(b));
}

static const char *job_id(json_object *j)
{
	return json_object_get_string(json_object_object_get(j, "id"));
}

/* Whether jobs a and b have the same hosts, in order. */
static bool same_hosts(json_object *a, json_object *b)
{
	json_object *ha = json_object_object_get(a, "hosts");
	json_object *hb = json_object_object_get(b, "hosts");
	size_t k, n = json_object_array_length(ha);
	bool same = json_object_is_type(hb, json_type_array) &&
		    n == json_object_array_length(hb);

	for (k = 0; same && k < n; k++)
		same = same_str(json_object_array_get_idx(ha, k),
				json_object_array_get_idx(hb, k));
	return same;
}

/*
 * The jobs of arr that keep(job, arg) takes, in order, borrowed into a
 * new array; NULL when arr is no array or out of memory.
 */
static json_object *pick(json_object *arr,
			 bool (*keep)(json_object *j, const void *arg),
			 const void *arg)
{
	json_object *out, *j;
	size_t i;

	if (!json_object_is_type(arr, json_type_array))
		return NULL;
	out = json_object_new_array();
	for (i = 0; out && i < json_object_array_length(arr); i++) {
		j = json_object_array_get_idx(arr, i);
		if (!keep(j, arg))
			continue;
		if (json_object_array_add(out, json_object_get(j))) {
			json_object_put(j);
			json_object_put(out);
			out = NULL;
		}
	}
	return out;
}

static bool of_owner(json_object *j, const void *owner)
{
	json_object *o = json_object_object_get(j, "owner");

	return o && !strcmp(json_object_get_string(o), owner);
}

/* The members of arr by their key (borrowed); NULL: out of memory. */
static json_object *index_by(json_object *arr, const char *key)
{
	json_object *m = json_object_new_object(), *j;
	const char *k;
	size_t i;

	for (i = 0; m && i < json_object_array_length(arr); i++) {
		j = json_object_array_get_idx(arr, i);
		k = json_object_get_string(json_object_object_get(j, key));
		if (k && json_object_object_add(m, k, json_object_get(j))) {
			json_object_put(j);
			json_object_put(m);
			m = NULL;
		}
	}
	return m;
}

static json_object *by_id(json_object *arr)
{
	return index_by(arr, "id");
}

/*
 * The refusals of refused in the order of their jobs in jobs (the
 * plugin's may come after ours), borrowed into a new array; NULL: ENOMEM.
 */
static json_object *in_order(json_object *refused, json_object *jobs)
{
	json_object *m = index_by(refused, "job"), *out, *x;
	size_t i;

	out = m ? json_object_new_array() : NULL;
	for (i = 0; out && i < json_object_array_length(jobs); i++) {
		x = json_object_object_get(m, job_id(
				json_object_array_get_idx(jobs, i)));
		if (x && json_object_array_add(out, json_object_get(x))) {
			json_object_put(x);
			json_object_put(out);
			out = NULL;
		}
	}
	json_object_put(m);
	return out;
}

static bool in(json_object *j, const void *map)
{
	json_object *x = json_object_object_get((json_object *)map,
						job_id(j));

	return x && same_hosts(j, x);
}

static bool not_in(json_object *j, const void *map)
{
	return !in(j, map);
}

/*
 * Whether the plugin's jobs (theirs) are ours, ids and hosts, in any
 * order: changes are added at the end of its table.
 */
static bool same_jobs(json_object *ours, json_object *theirs)
{
	json_object *m = by_id(theirs), *missing = m ? pick(ours, not_in, m)
						     : NULL;
	bool same = missing && !json_object_array_length(missing) &&
		    json_object_array_length(ours) ==
		    json_object_array_length(theirs);

	json_object_put(missing);
	json_object_put(m);
	return same;
}

/* The member of arr whose key is id, NULL if none (arr may be NULL). */
static json_object *find_id(const json_object *arr, const char *key,
			    const char *id)
{
	json_object *x;
	const char *s;
	size_t i;

	for (i = 0; arr && id && i < json_object_array_length(arr); i++) {
		x = json_object_array_get_idx(arr, i);
		s = json_object_get_string(json_object_object_get(x, key));
		if (s && !strcmp(s, id))
			return x;
	}
	return NULL;
}

static bool not_refused(json_object *j, const void *refused)
{
	return !find_id(refused, "job", job_id(j));
}

/* jobs but those refused holds, borrowed into a new array; NULL: ENOMEM. */
static json_object *unrefused(json_object *jobs, json_object *refused)
{
	return pick(jobs, not_refused, refused);
}

/* The plugin's message in an ask() error: after "OP refused: ". */
static const char *refusal(const char *err)
{
	const char *m = strstr(err, REFUSED);

	return m ? m + strlen(REFUSED) : err;
}

/*
 * The job a refused request blames (the plugin's messages about one
 * job begin "job 'ID': " or "job 'ID' ", docs/protocol.md), into id;
 * false when the refusal is about no one job.
 */
static bool culprit(const char *err, char *id, size_t len)
{
	static const char pre[] = "job '";
	const char *s = refusal(err), *q;

	if (s == err || strncmp(s, pre, sizeof(pre) - 1))
		return false;
	s += sizeof(pre) - 1;
	q = strchr(s, '\'');
	if (!q || q == s || (size_t)(q - s) >= len ||
	    (q[1] != ':' && q[1] != ' '))
		return false;
	memcpy(id, s, q - s);
	id[q - s] = '\0';
	return true;
}

static int add_refusal(json_object *refused, const char *id, const char *why)
{
	json_object *x = json_object_new_object();

	if (!x || sm_json_add(x, "job", json_object_new_string(id)) ||
	    sm_json_add(x, "error", json_object_new_string(why)) ||
	    json_object_array_add(refused, x)) {
		json_object_put(x);
		return -ENOMEM;
	}
	return 0;
}

/* hints.get, or a change of ours: op with owner and key set to arr. */
static json_object *request(const char *op, const char *owner,
			    const char *key, json_object *arr)
{
	json_object *req = json_object_new_object();

	if (!req || sm_json_add(req, "op", json_object_new_string(op)) ||
	    (arr && sm_json_add(req, "owner",
				json_object_new_string(owner))) ||
	    (arr && sm_json_add(req, key, json_object_get(arr)))) {
		json_object_put(req);
		return NULL;
	}
	return req;
}

/* What one round is to do: the plugin's jobs of ours, what to change. */
struct sync {
	json_object *keep;	/* ours the plugin has as they are */
	json_object *gone;	/* ids the plugin has that we no longer do */
	json_object *add;	/* ours to add, in order, room permitting */
	json_object *refused;	/* {"job","error"} left out */
	uint64_t gen;		/* the plugin's generation */
	bool sent;
};

static void sync_free(struct sync *y)
{
	json_object_put(y->keep);
	json_object_put(y->gone);
	json_object_put(y->add);
	json_object_put(y->refused);
}

/* The bytes of j as a request carries it. */
static size_t json_len(json_object *j)
{
	size_t n = 0;

	json_object_to_json_string_length(j, JSON_C_TO_STRING_PLAIN, &n);
	return n;
}

/*
 * Plan the change from base (the plugin's jobs of ours) to jobs, room
 * the jobs of ours the plugin's table may hold: y's lists, the jobs
 * past room, or too large for one request line, refused.
 */
static int plan(json_object *base, json_object *jobs, size_t room,
		struct sync *y)
{
	json_object *mine = by_id(jobs), *have = by_id(base), *j;
	char why[200];
	size_t i, n;
	int ret = -ENOMEM;

	y->keep = have ? pick(jobs, in, have) : NULL;
	y->add = json_object_new_array();
	y->gone = json_object_new_array();
	y->refused = json_object_new_array();
	if (!mine || !y->keep || !y->add || !y->gone || !y->refused)
		goto out;
	for (i = 0; i < json_object_array_length(base); i++) {
		j = json_object_array_get_idx(base, i);
		if (!in(j, mine) && json_object_array_add(
			    y->gone, json_object_new_string(job_id(j))))
			goto out;
	}
	n = json_object_array_length(y->keep);
	for (i = 0; i < json_object_array_length(jobs); i++) {
		j = json_object_array_get_idx(jobs, i);
		if (in(j, have))
			continue;
		if (json_len(j) > RELAY_LINE_MAX)
			snprintf(why, sizeof(why), "job '%s': %zu hosts, more than one request line to the plugin holds",
				 job_id(j), json_object_array_length(
					 json_object_object_get(j, "hosts")));
		else if (n >= room)
			snprintf(why, sizeof(why), "job '%s': " TABLE_FULL,
				 job_id(j), SM_HINTS_MAX_JOBS);
		else
			why[0] = '\0';
		if (why[0] ? add_refusal(y->refused, job_id(j), why) :
		    json_object_array_add(y->add, json_object_get(j)))
			goto out;
		n += !why[0];
	}
	ret = 0;
out:
	json_object_put(mine);
	json_object_put(have);
	return ret;
}

/*
 * One change request of arr[*from, ...) as large as a chunk takes; *to
 * the end of it.  NULL: out of memory.
 */
static json_object *chunk(json_object *arr, size_t from, size_t *to)
{
	json_object *c = json_object_new_array(), *x;
	size_t n = 0, len;

	for (*to = from; c && *to < json_object_array_length(arr); (*to)++) {
		x = json_object_array_get_idx(arr, *to);
		len = json_len(x) + 1;
		if (n && n + len > RELAY_CHUNK)
			break;
		if (json_object_array_add(c, json_object_get(x))) {
			json_object_put(x);
			json_object_put(c);
			return NULL;
		}
		n += len;
	}
	return c;
}

/* Ask for op with key set to part; the generation into y. */
static int change(struct poold_relay *r, const char *op, const char *key,
		  json_object *part, struct sync *y, char *err, size_t len)
{
	json_object *req = request(op, r->owner, key, part), *reply = NULL;
	int ret;

	if (!req)
		return -ENOMEM;
	ret = ask(r, req, &reply, err, len);
	json_object_put(req);
	if (!ret) {
		y->gen = generation(reply);
		y->sent = true;
	}
	json_object_put(reply);
	return ret;
}

/* Leave add[i] out, and with full those after it too: refused. */
static int leave_out(struct sync *y, size_t i, bool full, const char *why)
{
	json_object *j;
	char msg[200];
	int ret = 0;

	while (!ret && i < json_object_array_length(y->add)) {
		j = json_object_array_get_idx(y->add, i);
		if (full)
			snprintf(msg, sizeof(msg), "job '%s': " TABLE_FULL,
				 job_id(j), SM_HINTS_MAX_JOBS);
		ret = add_refusal(y->refused, job_id(j), full ? msg : why);
		if (!ret)
			ret = json_object_array_del_idx(y->add, i, 1) ? -ENOMEM
								       : 0;
		if (!full)
			break;
	}
	return ret;
}

/*
 * Send y's adds in chunks; a job the plugin refuses is left out and its
 * chunk sent again (a full table: that job and the rest).
 */
static int send_adds(struct poold_relay *r, struct sync *y, char *err,
		     size_t len)
{
	char id[SM_HINTS_ID_MAX + 1];
	size_t from = 0, to, i;
	json_object *part;
	int ret = 0;

	while (!ret && from < json_object_array_length(y->add)) {
		part = chunk(y->add, from, &to);
		ret = part ? change(r, "hints.add", "jobs", part, y, err, len)
			   : -ENOMEM;
		json_object_put(part);
		if (!ret) {
			from = to;
			continue;
		}
		if (ret != -EPROTO || !culprit(err, id, sizeof(id)))
			break;
		for (i = from; i < to && strcmp(job_id(
			json_object_array_get_idx(y->add, i)), id); i++)
			;
		if (i == to)
			break;
		ret = leave_out(y, i, strstr(err, "the table is full") != NULL,
				refusal(err));
	}
	return ret;
}

/* Send y's removes, then its adds: 0, or why not, err saying so. */
static int apply(struct poold_relay *r, struct sync *y, char *err,
		 size_t len)
{
	size_t from = 0, to;
	json_object *part;
	int ret = 0;

	while (!ret && from < json_object_array_length(y->gone)) {
		part = chunk(y->gone, from, &to);
		ret = part ? change(r, "hints.remove", "ids", part, y, err,
				    len) : -ENOMEM;
		json_object_put(part);
		from = to;
	}
	return ret ? ret : send_adds(r, y, err, len);
}

/* The plugin's jobs of ours (*theirs) and the room for them, by hints.get. */
static int fetch(struct poold_relay *r, json_object **theirs, size_t *room,
		 uint64_t *gen, char *err, size_t len)
{
	json_object *req = request("hints.get", NULL, NULL, NULL), *reply = NULL;
	json_object *all;
	size_t others;
	int ret;

	if (!req)
		return -ENOMEM;
	ret = ask(r, req, &reply, err, len);
	json_object_put(req);
	if (ret)
		return ret;
	all = json_object_object_get(reply, "jobs");
	*theirs = pick(all, of_owner, r->owner);
	*gen = generation(reply);
	others = *theirs ? json_object_array_length(all) -
			   json_object_array_length(*theirs) : 0;
	json_object_put(reply);
	if (!*theirs)
		return -ENOMEM;
	*room = others < SM_HINTS_MAX_JOBS ? SM_HINTS_MAX_JOBS - others : 0;
	return 0;
}

/*
 * A round that worked: what the plugin now holds of ours into *acked,
 * its generation into *gen, the jobs left out into *refused, in the
 * order of jobs.  0 or -ENOMEM (*acked dropped).
 */
static int settle(struct sync *y, json_object *jobs, uint64_t *gen,
		  json_object **acked, json_object **refused)
{
	json_object *out = in_order(y->refused, jobs);
	size_t i;
	int ret = out ? 0 : -ENOMEM;

	json_object_put(*acked);
	*acked = y->keep;
	y->keep = NULL;
	for (i = 0; !ret && i < json_object_array_length(y->add); i++)
		ret = json_object_array_add(*acked, json_object_get(
			json_object_array_get_idx(y->add, i))) ? -ENOMEM : 0;
	if (ret) {
		json_object_put(out);
		json_object_put(*acked);
		*acked = NULL;
		return ret;
	}
	json_object_put(*refused);
	*refused = out;
	*gen = y->gen;
	return 0;
}

/*
 * One round: bring the plugin's jobs of ours to jobs (but those it
 * refuses), from what it acknowledged (*acked, when fresh) or else from
 * what hints.get shows.  0 with *acked, *refused (replaced) and *gen
 * the plugin's now; else a negative errno, err saying why, *acked
 * dropped.
 */
static int round_trip(struct poold_relay *r, json_object *jobs, bool fresh,
		      uint64_t *gen, bool *set, json_object **acked,
		      json_object **refused, char *err, size_t len)
{
	struct sync y = { 0 };
	json_object *base = NULL, *ours;
	uint64_t g = *gen;
	int ret = 0, tries;

	*err = '\0';
	*set = false;
	for (tries = 0; tries < 2; tries++) {
		if (!fresh || !*acked || tries) {
			ret = fetch(r, &base, &r->room, &g, err, len);
			if (ret)
				break;
			ours = fresh ? NULL : unrefused(jobs, *refused);
			if (!fresh && ours && g >= *gen &&
			    same_jobs(ours, base)) {
				json_object_put(ours);
				*gen = g;
				json_object_put(*acked);
				*acked = base;
				return 0;
			}
			if (!fresh && ours)
				poold_log(LOG_NOTICE, "relay: the plugin's table no longer holds our jobs as sent (generation %llu, ours %llu); sending them again",
					  (unsigned long long)g,
					  (unsigned long long)*gen);
			json_object_put(ours);
		} else {
			base = json_object_get(*acked);
		}
		y.gen = g;
		ret = plan(base, jobs, r->room, &y);
		json_object_put(base);
		base = NULL;
		if (!ret)
			ret = apply(r, &y, err, len);
		*set = *set || y.sent;
		/* a job we thought it had is gone: look again */
		if (ret != -EPROTO || !strstr(err, "refused: no job '"))
			break;
		sync_free(&y);
		memset(&y, 0, sizeof(y));
	}
	if (!ret)
		ret = settle(&y, jobs, gen, acked, refused);
	if (ret == -ENOMEM)
		snprintf(err, len, "out of memory");
	if (ret) {
		/* what the plugin holds is unknown: ask it next time */
		json_object_put(*acked);
		*acked = NULL;
	}
	sync_free(&y);
	return ret;
}

/*
 * Say each job in now that was not in before: refused since; those left
 * out as the plugin's table is full in one line, as they come in runs.
 */
static void log_refused(json_object *before, json_object *now)
{
	const char *id, *why, *first = NULL, *last = NULL;
	size_t i, full = 0;
	json_object *x;

	for (i = 0; i < json_object_array_length(now); i++) {
		x = json_object_array_get_idx(now, i);
		id = json_object_get_string(json_object_object_get(x, "job"));
		why = json_object_get_string(json_object_object_get(x,
								    "error"));
		if (find_id(before, "job", id))
			continue;
		if (strstr(why, "the table is full")) {
			first = first ? first : id;
			last = id;
			full++;
			continue;
		}
		poold_log(LOG_WARNING, "relay: the plugin refused job '%s' (%s); the other jobs are sent",
			  id, why);
	}
	if (full)
		poold_log(LOG_WARNING, "relay: the plugin's table is full (%d jobs with the other owners'): %zu more jobs left out, not routed, '%s' to '%s'",
			  SM_HINTS_MAX_JOBS, full, first, last);
}

static void note_refused(struct poold_relay *r, json_object *refused)
{
	json_object *x = json_object_array_get_idx(refused, 0);

	log_refused(r->refused, refused);
	json_object_put(r->refused);
	r->refused = refused;
	r->st.refused = json_object_array_length(refused);
	snprintf(r->st.refusal, sizeof(r->st.refusal), "%s",
		 x ? json_object_get_string(json_object_object_get(x, "error"))
		   : "");
}

static void *relay_main(void *arg)
{
	struct poold_relay *r = arg;
	struct timespec ts;
	json_object *jobs, *refused, *acked = NULL;
	uint64_t ver, gen;
	char err[256];
	bool fresh, set;
	int ret;

	pthread_mutex_lock(&r->lock);
	for (;;) {
		ts = mono_deadline(r->interval_ms);
		/* Wake early only for a table the plugin has not seen. */
		while (!r->stop && (!r->jobs || r->ver == r->sent_ver))
			if (pthread_cond_timedwait(&r->cv, &r->lock, &ts) ==
			    ETIMEDOUT)
				break;
		if (r->stop)
			break;
		if (!r->jobs)
			continue;
		jobs = json_object_get(r->jobs);
		refused = json_object_get(r->refused);
		ver = r->ver;
		fresh = ver != r->sent_ver;
		gen = r->st.generation;
		pthread_mutex_unlock(&r->lock);

		ret = round_trip(r, jobs, fresh, &gen, &set, &acked, &refused,
				 err, sizeof(err));
		json_object_put(jobs);

		pthread_mutex_lock(&r->lock);
		if (!ret) {
			if (!r->st.up || r->st.error[0])
				poold_log(LOG_INFO, "relay: the plugin has the job table (generation %llu)",
					  (unsigned long long)gen);
			if (refused != r->refused)
				note_refused(r, json_object_get(refused));
			r->st.sent += set;
			r->sent_ver = ver;
			r->st.generation = gen;
			r->st.error[0] = '\0';
		} else {
			if (r->st.up || strcmp(err, r->st.error))
				poold_log(LOG_WARNING, "relay: %s", err);
			snprintf(r->st.error, sizeof(r->st.error), "%s", err);
			/* Send the whole table again once it is back. */
			r->sent_ver = 0;
		}
		json_object_put(refused);
		/* A refusal is an answer: the plugin is up, not in step. */
		r->st.up = !ret || ret == -EPROTO;
		r->st.synced = !ret && r->sent_ver == r->ver;
		r->done_ver = ver;
		pthread_cond_broadcast(&r->done);
		if (ret) {
			/*
			 * Wait out the interval before trying again; a table
			 * the plugin refused gives way to a newer one at once
			 * (job.start waits on it).
			 */
			ts = mono_deadline(r->interval_ms);
			while (!r->stop && !(ret == -EPROTO && r->ver != ver) &&
			       pthread_cond_timedwait(&r->cv, &r->lock, &ts) !=
			       ETIMEDOUT)
				;
			if (r->stop)
				break;
		}
	}
	pthread_mutex_unlock(&r->lock);
	json_object_put(acked);
	return NULL;
}

int poold_relay_start(const char *sm_socket, const char *owner,
		      const char *munge, unsigned int interval_ms,
		      struct poold_relay **out)
{
	struct poold_relay *r = calloc(1, sizeof(*r));
	pthread_condattr_t ca;
	int ret;

	*out = NULL;
	if (!r)
		return -ENOMEM;
	r->path = strdup(sm_socket);
	r->owner = strdup(owner);
	r->munge = munge ? strdup(munge) : NULL;
	if (!r->path || !r->owner || (munge && !r->munge)) {
		ret = -ENOMEM;
		goto out_free;
	}
	r->interval_ms = interval_ms;
	pthread_mutex_init(&r->lock, NULL);
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&r->cv, &ca);
	pthread_cond_init(&r->done, &ca);
	pthread_condattr_destroy(&ca);
	ret = -pthread_create(&r->thread, NULL, relay_main, r);
	if (ret)
		goto out_sync;
	*out = r;
	return 0;
out_sync:
	pthread_cond_destroy(&r->done);
	pthread_cond_destroy(&r->cv);
	pthread_mutex_destroy(&r->lock);
out_free:
	free(r->path);
	free(r->owner);
	free(r->munge);
	free(r);
	return ret;
}

void poold_relay_post(struct poold_relay *r, json_object *jobs)
{
	if (!r) {
		json_object_put(jobs);
		return;
	}
	pthread_mutex_lock(&r->lock);
	json_object_put(r->jobs);
	r->jobs = jobs;
	r->ver++;
	r->st.synced = false;
	pthread_cond_signal(&r->cv);
	pthread_mutex_unlock(&r->lock);
}

void poold_relay_status(struct poold_relay *r, struct poold_relay_status *st)
{
	pthread_mutex_lock(&r->lock);
	*st = r->st;
	pthread_mutex_unlock(&r->lock);
}

bool poold_relay_refused(struct poold_relay *r, const char *job,
			 unsigned int ms, char *msg, size_t len)
{
	struct timespec ts;
	json_object *x;
	bool ret = false;

	ts = mono_deadline(ms);
	pthread_mutex_lock(&r->lock);
	while (r->st.up && r->done_ver < r->ver)
		if (pthread_cond_timedwait(&r->done, &r->lock, &ts) ==
		    ETIMEDOUT)
			break;
	x = find_id(r->refused, "job", job);
	if (r->done_ver == r->ver && r->st.synced && x) {
		snprintf(msg, len, "%s", json_object_get_string(
				 json_object_object_get(x, "error")));
		ret = true;
	} else if (r->done_ver == r->ver && r->st.up && !r->st.synced &&
		   r->st.error[0]) {
		snprintf(msg, len, "%s", r->st.error);
		ret = true;
	}
	pthread_mutex_unlock(&r->lock);
	return ret;
}

void poold_relay_stop(struct poold_relay *r)
{
	if (!r)
		return;
	pthread_mutex_lock(&r->lock);
	r->stop = true;
	pthread_cond_signal(&r->cv);
	pthread_mutex_unlock(&r->lock);
	pthread_join(r->thread, NULL);
	pthread_cond_destroy(&r->done);
	pthread_cond_destroy(&r->cv);
	pthread_mutex_destroy(&r->lock);
	json_object_put(r->jobs);
	json_object_put(r->refused);
	free(r->path);
	free(r->owner);
	free(r->munge);
	free(r);
}
