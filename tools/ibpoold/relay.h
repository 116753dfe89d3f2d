/* SPDX-License-Identifier: MIT */
/*
 * The job relay: a thread of its own that keeps the jobs of one owner in
 * the plugin's hint table (hints.set with "owner" on the SM socket) equal
 * to the pool's job table, so the server thread never waits on the
 * plugin; jobs other clients set directly are left alone.  It re-sends
 * the table when it changes, when the plugin was down, and when the
 * plugin's jobs of that owner went back (a lower generation, or other
 * jobs: a restart that lost them, a hints.set without owner).
 */
#ifndef GPUAWARE_POOL_RELAY_H
#define GPUAWARE_POOL_RELAY_H

#include <stdbool.h>
#include <stdint.h>

#include <json-c/json.h>

struct poold_relay_status {
	bool up;		/* the last exchange with the plugin worked */
	bool synced;		/* the plugin has the latest table */
	uint64_t sent;		/* tables sent and acknowledged */
	uint64_t generation;	/* the plugin's, from its last answer */
	char error[256];	/* the last failure, "" for none */
};

struct poold_relay;

/*
 * Start the thread talking to sm_socket (a path, or tcp:HOST:PORT with
 * the requests in MUNGE credentials from munged at munge, NULL: munge's
 * default), relaying as owner (all copied; owner as the plugin takes a
 * job id), checking the plugin every interval_ms.  Returns 0 or a
 * negative errno.
 */
int poold_relay_start(const char *sm_socket, const char *owner,
		      const char *munge, unsigned int interval_ms,
		      struct poold_relay **out);

/*
 * The whole job table to relay: an array of {"id","hosts"} objects,
 * consumed (also on a NULL relay).  Never blocks on the plugin.
 */
void poold_relay_post(struct poold_relay *r, json_object *jobs);

void poold_relay_status(struct poold_relay *r, struct poold_relay_status *st);

/* Stop and join the thread, free everything; NULL is a no-op. */
void poold_relay_stop(struct poold_relay *r);

#endif
