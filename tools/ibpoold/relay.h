/* SPDX-License-Identifier: MIT */
/*
 * The job relay: a thread of its own that keeps the jobs of one owner in
 * the plugin's hint table equal to the pool's job table, so the server
 * thread never waits on the plugin; jobs other clients set directly are
 * left alone.  It sends what changed (hints.remove and hints.add with
 * "owner", many jobs to a request, each well within the plugin's line),
 * and the whole difference from what hints.get shows when the plugin was
 * down or its jobs of that owner went back (a lower generation, or other
 * jobs: a restart that lost them, a hints.set without owner).  A job the
 * plugin refuses is left out and the others sent: one bad job never
 * keeps the rest from the routing; past the table's bound
 * (SM_HINTS_MAX_JOBS with the other owners') the first jobs are kept and
 * the later ones left out, each refused as "the table is full".
 */
#ifndef GPUAWARE_POOL_RELAY_H
#define GPUAWARE_POOL_RELAY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <json-c/json.h>

struct poold_relay_status {
	bool up;		/* the plugin answered the last exchange */
	bool synced;		/* the plugin has the latest table, but the
				   jobs it refused */
	uint64_t sent;		/* tables sent and acknowledged */
	uint64_t generation;	/* the plugin's, from its last answer */
	unsigned int refused;	/* jobs of the table the plugin refused or
				   that did not fit in it */
	char refusal[256];	/* the first of them: "job 'ID': why" */
	char error[256];	/* the last failure, "" for none: the plugin
				   down, or its refusal of the whole table */
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

/*
 * Whether the plugin refused job, waiting up to ms for its answer to the
 * table last posted (not at all while it is down): true with msg the
 * refusal ("job 'ID': why", or the whole table's).  For job.start's
 * reply, so the Slurm hook logs it.
 */
bool poold_relay_refused(struct poold_relay *r, const char *job,
			 unsigned int ms, char *msg, size_t len);

/* Stop and join the thread, free everything; NULL is a no-op. */
void poold_relay_stop(struct poold_relay *r);

#endif
