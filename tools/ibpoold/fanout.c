// SPDX-License-Identifier: MIT
/* One relay per SM endpoint, posted to and read together. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fanout.h"

struct poold_fanout {
	size_t n;
	char *ep[POOLD_FANOUT_MAX];		/* owned */
	struct poold_relay *r[POOLD_FANOUT_MAX];
};

int poold_fanout_start(const char *const *sms, size_t n, const char *owner,
		       const char *munge, unsigned int interval_ms,
		       struct poold_fanout **out)
{
	struct poold_fanout *f;
	int ret = 0;

	*out = NULL;
	if (!n || n > POOLD_FANOUT_MAX)
		return -EINVAL;
	f = calloc(1, sizeof(*f));
	if (!f)
		return -ENOMEM;
	for (; f->n < n && !ret; f->n++) {
		f->ep[f->n] = strdup(sms[f->n]);
		ret = f->ep[f->n] ? poold_relay_start(sms[f->n], owner, munge,
						      interval_ms,
						      &f->r[f->n]) : -ENOMEM;
	}
	if (ret) {
		poold_fanout_stop(f);
		return ret;
	}
	*out = f;
	return 0;
}

void poold_fanout_post(struct poold_fanout *f, json_object *jobs)
{
	size_t i;

	for (i = 0; f && i < f->n; i++)
		poold_relay_post(f->r[i], json_object_get(jobs));
	json_object_put(jobs);
}

void poold_fanout_status(struct poold_fanout *f,
			 struct poold_relay_status *st)
{
	struct poold_relay_status x;
	size_t i;

	for (i = 0; i < f->n; i++) {
		poold_relay_status(f->r[i], &x);
		if (!i) {
			*st = x;
			st->error[0] = '\0';
		}
		st->up = st->up && x.up;
		st->synced = st->synced && x.synced;
		if (x.sent < st->sent)
			st->sent = x.sent;
		if (!st->error[0] && x.error[0])
			snprintf(st->error, sizeof(st->error), "%.64s%s%.180s",
				 f->n > 1 ? f->ep[i] : "", f->n > 1 ? ": " : "",
				 x.error);
	}
}

size_t poold_fanout_count(const struct poold_fanout *f)
{
	return f->n;
}

const char *poold_fanout_endpoint(const struct poold_fanout *f, size_t i)
{
	return f->ep[i];
}

struct poold_relay *poold_fanout_relay(const struct poold_fanout *f,
				       size_t i)
{
	return f->r[i];
}

void poold_fanout_stop(struct poold_fanout *f)
{
	size_t i;

	if (!f)
		return;
	for (i = 0; i < f->n; i++) {
		poold_relay_stop(f->r[i]);
		free(f->ep[i]);
	}
	free(f);
}
