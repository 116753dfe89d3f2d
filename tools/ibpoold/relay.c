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
#include "sm/proto.h"

#define RELAY_TIMEOUT_MS 2000

struct poold_relay {
	char *path;
	char *owner;		/* of our jobs in the plugin's table */
	char *munge;		/* munged's socket, NULL: the default */
	unsigned int interval_ms;
	pthread_t thread;
	pthread_mutex_t lock;
	pthread_cond_t cv;
	bool stop;
	json_object *jobs;	/* owned; NULL until the first post */
	uint64_t ver;		/* bumped by each post */
	uint64_t sent_ver;	/* the version the plugin acknowledged */
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
 * The plugin's jobs of owner, in its order, borrowed into a new array;
 * NULL when theirs is no array or out of memory.
 */
static json_object *owned(json_object *theirs, const char *owner)
{
	json_object *mine, *j, *o;
	size_t i;

	if (!json_object_is_type(theirs, json_type_array))
		return NULL;
	mine = json_object_new_array();
	for (i = 0; mine && i < json_object_array_length(theirs); i++) {
		j = json_object_array_get_idx(theirs, i);
		o = json_object_object_get(j, "owner");
		if (!o || strcmp(json_object_get_string(o), owner))
			continue;
		if (json_object_array_add(mine, json_object_get(j))) {
			json_object_put(j);
			json_object_put(mine);
			mine = NULL;
		}
	}
	return mine;
}

/* Whether the plugin's jobs of owner are ours (ids and hosts), in order. */
static bool same_jobs(json_object *ours, json_object *all, const char *owner)
{
	size_t i, k, n = json_object_array_length(ours);
	json_object *theirs = owned(all, owner);
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

/*
 * One round: send the table when it is newer than what the plugin
 * acknowledged, else check that the plugin still has it.  Returns
 * whether the plugin has our table now; err says why not.
 */
static bool round_trip(struct poold_relay *r, json_object *jobs, bool fresh,
		       uint64_t *gen, bool *set, char *err, size_t len)
{
	json_object *req, *reply = NULL;
	bool ok = false;

	*err = '\0';
	*set = false;
	if (!fresh) {
		req = request("hints.get", NULL, NULL);
		if (!req) {
			snprintf(err, len, "out of memory");
			return false;
		}
		if (!ask(r, req, &reply, err, len)) {
			ok = generation(reply) >= *gen &&
			     same_jobs(jobs, json_object_object_get(reply,
								    "jobs"),
				       r->owner);
			if (!ok)
				poold_log(LOG_NOTICE, "relay: the plugin's table no longer holds our jobs as sent (generation %llu, ours %llu); sending them again",
					  (unsigned long long)generation(reply),
					  (unsigned long long)*gen);
			else
				*gen = generation(reply);
		}
		json_object_put(req);
		json_object_put(reply);
		reply = NULL;
		if (ok || *err)
			return ok;
	}
	req = request("hints.set", jobs, r->owner);
	if (!req) {
		snprintf(err, len, "out of memory");
		return false;
	}
	if (!ask(r, req, &reply, err, len)) {
		*gen = generation(reply);
		ok = *set = true;
	}
	json_object_put(req);
	json_object_put(reply);
	return ok;
}

static void deadline(struct timespec *ts, unsigned int ms)
{
	clock_gettime(CLOCK_MONOTONIC, ts);
	ts->tv_sec += ms / 1000;
	ts->tv_nsec += (long)(ms % 1000) * 1000000;
	if (ts->tv_nsec >= 1000000000) {
		ts->tv_sec++;
		ts->tv_nsec -= 1000000000;
	}
}

static void *relay_main(void *arg)
{
	struct poold_relay *r = arg;
	struct timespec ts;
	json_object *jobs;
	uint64_t ver, gen;
	char err[256];
	bool ok, fresh, set;

	pthread_mutex_lock(&r->lock);
	for (;;) {
		deadline(&ts, r->interval_ms);
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
		ver = r->ver;
		fresh = ver != r->sent_ver;
		gen = r->st.generation;
		pthread_mutex_unlock(&r->lock);

		ok = round_trip(r, jobs, fresh, &gen, &set, err, sizeof(err));
		json_object_put(jobs);

		pthread_mutex_lock(&r->lock);
		if (ok) {
			if (!r->st.up)
				poold_log(LOG_INFO, "relay: the plugin has the job table (generation %llu)",
					  (unsigned long long)gen);
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
		r->st.up = ok;
		r->st.synced = ok && r->sent_ver == r->ver;
		if (!ok) {
			/* Wait out the interval before trying again. */
			deadline(&ts, r->interval_ms);
			while (!r->stop &&
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
	pthread_condattr_destroy(&ca);
	ret = -pthread_create(&r->thread, NULL, relay_main, r);
	if (ret)
		goto out_sync;
	*out = r;
	return 0;
out_sync:
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

void poold_relay_stop(struct poold_relay *r)
{
	if (!r)
		return;
	pthread_mutex_lock(&r->lock);
	r->stop = true;
	pthread_cond_signal(&r->cv);
	pthread_mutex_unlock(&r->lock);
	pthread_join(r->thread, NULL);
	pthread_cond_destroy(&r->cv);
	pthread_mutex_destroy(&r->lock);
	json_object_put(r->jobs);
	free(r->path);
	free(r->owner);
	free(r->munge);
	free(r);
}
