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
#define REFUSED_PREFIX "hints.set refused: "

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

/* Whether the plugin's jobs of owner are ours (ids and hosts), in order. */
static bool same_jobs(json_object *ours, json_object *all, const char *owner)
{
	size_t i, k, n = json_object_array_length(ours);
	json_object *theirs = pick(all, of_owner, owner);
	bool same = theirs && json_object_array_length(theirs) == n;

	for (i = 0; same && i < n; i++) {
		json_object *a = json_object_array_get_idx(ours, i);
		json_object *b = json_object_array_get_idx(theirs, i);
		json_object *ha = json_object_object_get(a, "hosts");
		json_object *hb = json_object_object_get(b, "hosts");

		same = same_str(json_object_object_get(a, "id"),
				json_object_object_get(b, "id")) &&
		       json_object_is_type(hb, json_type_array) &&
		       json_object_array_length(ha) ==
		       json_object_array_length(hb);
		for (k = 0; same && k < json_object_array_length(ha); k++)
			same = same_str(json_object_array_get_idx(ha, k),
					json_object_array_get_idx(hb, k));
	}
	json_object_put(theirs);
	return same;
}

/* hints.get, or with jobs our hints.set: our jobs, the others' kept. */
static json_object *request(const char *op, json_object *jobs,
			    const char *owner)
{
	json_object *req = json_object_new_object();

	if (!req || sm_json_add(req, "op", json_object_new_string(op)) ||
	    (jobs && sm_json_add(req, "owner",
				 json_object_new_string(owner))) ||
	    (jobs && sm_json_add(req, "jobs", json_object_get(jobs)))) {
		json_object_put(req);
		return NULL;
	}
	return req;
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
	return !find_id(refused, "job", json_object_get_string(
				json_object_object_get(j, "id")));
}

/* jobs but those refused holds, borrowed into a new array; NULL: ENOMEM. */
static json_object *unrefused(json_object *jobs, json_object *refused)
{
	return pick(jobs, not_refused, refused);
}

/*
 * The job a refused hints.set blames (the plugin's messages about one
 * job begin "job 'ID': " or "job 'ID' ", docs/protocol.md), into id;
 * false when the refusal is about no one job.
 */
static bool culprit(const char *err, char *id, size_t len)
{
	static const char pre[] = REFUSED_PREFIX "job '";
	const char *s = err + sizeof(pre) - 1, *q;

	if (strncmp(err, pre, sizeof(pre) - 1))
		return false;
	q = strchr(s, '\'');
	if (!q || q == s || (size_t)(q - s) >= len ||
	    (q[1] != ':' && q[1] != ' '))
		return false;
	memcpy(id, s, q - s);
	id[q - s] = '\0';
	return true;
}

static int add_refusal(json_object *refused, const char *id, const char *err)
{
	json_object *x = json_object_new_object();

	if (!x || sm_json_add(x, "job", json_object_new_string(id)) ||
	    sm_json_add(x, "error", json_object_new_string(
				err + strlen(REFUSED_PREFIX))) ||
	    json_object_array_add(refused, x)) {
		json_object_put(x);
		return -ENOMEM;
	}
	return 0;
}

/*
 * Our hints.set: a job the plugin refuses is left out and the rest sent
 * again, so one bad job never keeps the others from the routing.  0 with
 * *gen the plugin's generation and *refused (replaced) the jobs left
 * out; -EPROTO when the plugin refused the table for no one job; another
 * negative errno when it did not answer.
 */
static int send_table(struct poold_relay *r, json_object *jobs,
		      uint64_t *gen, json_object **refused, char *err,
		      size_t len)
{
	json_object *out = json_object_new_array(), *send, *req, *reply;
	char id[SM_HINTS_ID_MAX + 1];
	size_t tries;
	int ret = -ENOMEM;

	for (tries = 0; out && tries <= json_object_array_length(jobs);
	     tries++) {
		send = unrefused(jobs, out);
		req = send ? request("hints.set", send, r->owner) : NULL;
		json_object_put(send);
		if (!req) {
			ret = -ENOMEM;
			break;
		}
		reply = NULL;
		ret = ask(r, req, &reply, err, len);
		json_object_put(req);
		if (!ret)
			*gen = generation(reply);
		json_object_put(reply);
		if (ret != -EPROTO || !culprit(err, id, sizeof(id)) ||
		    !find_id(jobs, "id", id) || find_id(out, "job", id))
			break;
		ret = add_refusal(out, id, err);
		if (ret)
			break;
	}
	if (ret == -ENOMEM)
		snprintf(err, len, "out of memory");
	if (!ret) {
		json_object_put(*refused);
		*refused = out;
	} else {
		json_object_put(out);
	}
	return ret;
}

/*
 * One round: send the table when it is newer than what the plugin
 * acknowledged, else check that the plugin still has it (but the jobs
 * *refused holds, which it refused).  0 when the plugin has our table
 * now, else as send_table(), err saying why.
 */
static int round_trip(struct poold_relay *r, json_object *jobs, bool fresh,
		      uint64_t *gen, bool *set, json_object **refused,
		      char *err, size_t len)
{
	json_object *req, *reply = NULL, *ours;
	bool same;
	int ret;

	*err = '\0';
	*set = false;
	if (!fresh) {
		req = request("hints.get", NULL, NULL);
		ours = unrefused(jobs, *refused);
		if (!req || !ours) {
			json_object_put(req);
			json_object_put(ours);
			snprintf(err, len, "out of memory");
			return -ENOMEM;
		}
		ret = ask(r, req, &reply, err, len);
		json_object_put(req);
		same = !ret && generation(reply) >= *gen &&
		       same_jobs(ours, json_object_object_get(reply, "jobs"),
				 r->owner);
		json_object_put(ours);
		if (!ret && !same)
			poold_log(LOG_NOTICE, "relay: the plugin's table no longer holds our jobs as sent (generation %llu, ours %llu); sending them again",
				  (unsigned long long)generation(reply),
				  (unsigned long long)*gen);
		else if (!ret)
			*gen = generation(reply);
		json_object_put(reply);
		if (ret || same)
			return ret;
	}
	ret = send_table(r, jobs, gen, refused, err, len);
	*set = !ret;
	return ret;
}

/* Say each job in now that was not in before: refused since. */
static void log_refused(json_object *before, json_object *now)
{
	json_object *x;
	const char *id;
	size_t i;

	for (i = 0; i < json_object_array_length(now); i++) {
		x = json_object_array_get_idx(now, i);
		id = json_object_get_string(json_object_object_get(x, "job"));
		if (!find_id(before, "job", id))
			poold_log(LOG_WARNING, "relay: the plugin refused job '%s' (%s); the other jobs are sent",
				  id, json_object_get_string(
					  json_object_object_get(x, "error")));
	}
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
	json_object *jobs, *refused;
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

		ret = round_trip(r, jobs, fresh, &gen, &set, &refused, err,
				 sizeof(err));
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
