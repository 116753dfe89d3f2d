/* SPDX-License-Identifier: MIT */
/*
 * The plugin's node_exporter textfile-collector metrics: after each
 * routing, a file of Prometheus text (gpuaware.conf [metrics] textfile)
 * replaced atomically.  No OpenSM types.
 */
#ifndef GPUAWARE_GA_METRICS_H
#define GPUAWARE_GA_METRICS_H

#include <stdbool.h>
#include <stdint.h>

#include "gahints.h"

/*
 * Count the ERR or WRN code a log line starts with ("ERR GA07: ..."),
 * from any thread.  The counts are the process's: OpenSM loads the
 * plugin once.
 */
void ga_metrics_count(const char *line);

/* What the plugin's routings came to since OpenSM started. */
struct ga_metrics {
	uint64_t ok, failed;	/* routings handed to OpenSM, refused */
	double seconds;		/* their wall time, summed */
	double last_s;		/* the last one's */
	bool have;		/* last: the last successful one */
	struct ga_hints_routing last;
	uint64_t reroutes;	/* reroutes the hint socket asked for */
	/* OpenSM's engine at its last unicast routing, "" before one */
	char engine_used[32];
	const char *role;	/* the SM's state ("master", ...); static */
	bool table;		/* the hint socket runs: table_jobs is shown */
	size_t table_jobs;	/* jobs in its table when written */
};

/*
 * Write m to path as Prometheus text: path.tmp beside it, synced and
 * renamed over it (sm_replace_at).  Returns 0, or a negative errno with
 * err saying which step failed.
 */
int ga_metrics_write(const char *path, const struct ga_metrics *m,
		     char *err, size_t len);

#endif
