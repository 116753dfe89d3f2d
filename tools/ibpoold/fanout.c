// SPDX-License-Identifier: MIT
/* One relay per SM endpoint, posted to and read together. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "fanout.h"
#include "topology/monotime.h"

struct poold_fanout {
	size_t nrelays;
	char *endpoint[POOLD_FANOUT_MAX];	/* owned */
	struct poold_relay *relay[POOLD_FANOUT_MAX];
};

int poold_fanout_start(const char *const *sms, size_t n, const char *owner,
		       const char *munge, unsigned int interval_ms,
		       struct poold_fanout **out)
{
	struct poold_fanout *f;
	int ret = 0;
	size_t i;

	*out = NULL;
	if (!n || n > POOLD_FANOUT_MAX)
		return -EINVAL;
	f = calloc(1, sizeof(*f));
	if (!f)
		return -ENOMEM;
	for (; f->nrelays < n && !ret; f->nrelays++) {
		i = f->nrelays;
		f->endpoint[i] = strdup(sms[i]);
		ret = f->endpoint[i] ? poold_relay_start(sms[i], owner, munge,
							 interval_ms,
							 &f->relay[i]) :
				       -ENOMEM;
	}
	if (ret) {
		poold_fanout_stop(f);
		return ret;
	}
	*out = f;
	return 0;
}

int poold_fanout_post(struct poold_fanout *f, json_object *jobs)
{
	json_object *copy[POOLD_FANOUT_MAX] = { NULL };
	size_t i, n = f ? f->nrelays : 0;
	int ret = 0;

	/*
	 * json-c's reference counts and print buffers are not thread-safe:
	 * each relay thread gets a tree of its own, the last one this.
	 */
	for (i = 0; i + 1 < n && !ret; i++)
		if (json_object_deep_copy(jobs, &copy[i], NULL))
			ret = -ENOMEM;
	if (ret) {
		for (i = 0; i < n; i++)
			json_object_put(copy[i]);
		json_object_put(jobs);
		return ret;
	}
	if (n)
		copy[n - 1] = jobs;
	else
		json_object_put(jobs);
	for (i = 0; i < n; i++)
		poold_relay_post(f->relay[i], copy[i]);
	return 0;
}

/* SM i's message msg, its endpoint first when there are several SMs. */
static void from_sm(const struct poold_fanout *f, size_t i, const char *msg,
		    char *out, size_t len)
{
	snprintf(out, len, "%.64s%s%.180s", f->nrelays > 1 ? f->endpoint[i] : "",
		 f->nrelays > 1 ? ": " : "", msg);
}

void poold_fanout_status(struct poold_fanout *f,
			 struct poold_relay_status *st)
{
	struct poold_relay_status x;
	size_t i;

	for (i = 0; i < f->nrelays; i++) {
		poold_relay_status(f->relay[i], &x);
		if (!i) {
			*st = x;
			st->error[0] = '\0';
			st->refusal[0] = '\0';
		}
		st->up = st->up && x.up;
		st->synced = st->synced && x.synced;
		if (x.sent < st->sent)
			st->sent = x.sent;
		if (x.refused > st->refused)
			st->refused = x.refused;
		if (!st->error[0] && x.error[0])
			from_sm(f, i, x.error, st->error, sizeof(st->error));
		if (!st->refusal[0] && x.refusal[0])
			from_sm(f, i, x.refusal, st->refusal,
				sizeof(st->refusal));
	}
}

/* What is left of ms since t0, 0 once it is spent. */
static unsigned int left_ms(int64_t t0, unsigned int ms)
{
	int64_t spent = mono_ms() - t0;

	return spent >= ms ? 0 : ms - (unsigned int)spent;
}

bool poold_fanout_refused(struct poold_fanout *f, const char *job,
			  unsigned int ms, char *msg, size_t len)
{
	int64_t t0 = mono_ms();
	char why[256];
	size_t i;

	/* One wait for all SMs: the hook's own timeout is a few seconds. */
	for (i = 0; i < f->nrelays; i++)
		if (poold_relay_refused(f->relay[i], job, left_ms(t0, ms), why,
					sizeof(why))) {
			from_sm(f, i, why, msg, len);
			return true;
		}
	return false;
}

size_t poold_fanout_count(const struct poold_fanout *f)
{
	return f->nrelays;
}

const char *poold_fanout_endpoint(const struct poold_fanout *f, size_t i)
{
	return f->endpoint[i];
}

struct poold_relay *poold_fanout_relay(const struct poold_fanout *f,
				       size_t i)
{
	return f->relay[i];
}

void poold_fanout_stop(struct poold_fanout *f)
{
	size_t i;

	if (!f)
		return;
	for (i = 0; i < f->nrelays; i++) {
		poold_relay_stop(f->relay[i]);
		free(f->endpoint[i]);
	}
	free(f);
}
