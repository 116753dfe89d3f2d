/* SPDX-License-Identifier: MIT */
/*
 * The plugin's INI configuration (default /etc/opensm/gpuaware.conf).  No
 * OpenSM types: messages go through a callback so the caller picks the log.
 */
#ifndef GPUAWARE_GACONFIG_H
#define GPUAWARE_GACONFIG_H

#include <sys/types.h>

#include "../../routing/jobs.h"
#include "../../routing/route.h"

#define GA_CFG_DEFAULT_PATH "/etc/opensm/gpuaware.conf"
#define GA_HINTS_SOCKET "/run/gpuaware/sm.sock"
#define GA_HINTS_DIR "/var/lib/gpuaware"
#define GA_HINTS_INTERVAL_MS 200
#define GA_NO_GROUP ((gid_t)-1)

enum ga_verbosity {
	GA_QUIET,		/* errors only */
	GA_NORMAL,		/* one summary line per routing */
	GA_VERBOSE,		/* plus phase timings and the verifier */
	GA_DEBUG,		/* plus the recogniser's detail and eBB */
};

struct ga_cfg {
	enum rt_engine_id engine;
	enum ga_verbosity verbosity;
	uint64_t job_search_moves;	/* job search entries, 0: default */
	/* [hints]: the job-hint socket; an empty socket path turns it off */
	char hints_socket[108];		/* a sockaddr_un path */
	char hints_dir[256];		/* where the job table is kept */
	unsigned int hints_interval_ms;	/* least time between reroutes */
	gid_t hints_group;		/* may write besides root, or GA_NO_GROUP */
	char hints_group_name[64];
	/* the hint service over TCP too, "" for none: [ADDR:]PORT */
	char hints_tcp[64];
	char munge_socket[108];		/* munged's, "" for libmunge's default */
	/* [metrics]: node_exporter textfile, "" for none */
	char metrics_textfile[256];
};

enum ga_cfg_level {
	GA_CFG_ERROR,
	GA_CFG_WARN,
	GA_CFG_INFO,
};

/* One finished line, without a trailing newline; msg is only borrowed. */
typedef void (*ga_cfg_log_fn)(void *ctx, enum ga_cfg_level lvl,
			      const char *msg);

void ga_cfg_defaults(struct ga_cfg *c);

/*
 * Fill c from the file at path (NULL or "" means the default path).  Never
 * fails: a missing file gives the defaults, a bad value keeps that key's
 * default, a file that cannot be read or parsed gives all defaults; each
 * case is reported through log.  Unknown sections and keys are warnings.
 */
void ga_cfg_load(struct ga_cfg *c, const char *path, ga_cfg_log_fn log,
		 void *ctx);

const char *ga_verbosity_name(enum ga_verbosity v);

#endif
