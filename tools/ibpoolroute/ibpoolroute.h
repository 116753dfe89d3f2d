/* SPDX-License-Identifier: MIT */
/*
 * ibpoolroute's private face: the parsed command line every subcommand
 * gets and the subcommands main calls (the report is report.h's).
 */
#ifndef GPUAWARE_IBPOOLROUTE_H
#define GPUAWARE_IBPOOLROUTE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <json-c/json.h>

#include "routing/collsim.h"
#include "routing/jobload.h"
#include "routing/route.h"
#include "routing/verify.h"
#include "tools/lib/cli/cli.h"
#include "tools/lib/livefab/livefab.h"
#include "tools/lib/pool/replay.h"

/* Exit codes, as infiniband-diags use them. */
enum {
	PR_OK = 0,		/* the routing checks out */
	PR_BAD = 1,		/* it does not */
	PR_ERR = 2,		/* usage, input or internal error */
};

#define PR_SM_SOCKET "/run/gpuaware/sm.sock"

/*
 * Why a socket could not be asked, as pr_call() found it, for main to
 * print after the subcommand's message: a code for --json ("unreachable",
 * "timeout", "closed", "bad_reply") and what to check.  NULL: none.
 */
struct pr_fail {
	const char *code;
	const char *hint;
};

/* map --fold's default: past this many hosts, a box's are one bar. */
#define PR_FOLD_HOSTS 512

/* What map colours the links by. */
enum pr_load {
	PR_LOAD_A2A,		/* the routing's all-to-all */
	PR_LOAD_JOBS,		/* the jobs' collectives on the flow model */
	PR_LOAD_COUNTERS,	/* the live port counters */
};

/* How verify asks the SA for path SLs. */
enum pr_sa {
	PR_SA_AUTO,		/* a GetTable per source where answered whole */
	PR_SA_TABLE,		/* a GetTable per source */
	PR_SA_PAIR,		/* a Get per pair */
};

/* Progress lines on stderr. */
enum pr_progress {
	PR_PROGRESS_AUTO,	/* on a terminal, else once a run is long */
	PR_PROGRESS_ON,
	PR_PROGRESS_OFF,
};

/* Strings point into argv. */
struct pr_opts {
	const char *dir;	/* analyze: dump directory; release, renew: id */
	const char *net;	/* route, simulate: fabric file */
	const char *dump;	/* simulate: OpenSM's dump directory */
	enum cs_pattern pattern;	/* simulate: the one asked for */
	bool pattern_set;		/* else both */
	unsigned int rounds;	/* simulate: all-to-all rounds, 0: all */
	bool shuffle;		/* simulate: all-to-all in a random rank order */
	bool oracle;		/* simulate: the two oracles too */
	const char *jobs;	/* analyze, route: JSON job list, or NULL */
	bool jobs_unrouted;	/* route: measure the jobs, route without */
	uint64_t search_moves;		/* route: job search, 0: default */
	enum rt_engine_id engine;
	unsigned int lmc;
	unsigned int vls;	/* data VLs the SM can program, 0: no limit */
	bool ext_lids;		/* route: LIDs past 0xbfff, for scale runs */
	bool json;
	const char *ca;		/* verify: local CA, NULL for the first */
	unsigned int ca_port;	/* verify: its port, 0 for the first active */
	unsigned int interval_ms;	/* counters: between the two samples */
	size_t top;		/* counters: links shown, 0 for all */
	enum pr_sa sa;		/* verify */
	unsigned int smp_window;	/* verify: SMPs in flight */
	uint64_t sample;	/* verify: pairs asked, 0 for all */
	enum pr_progress progress;	/* verify */
	struct vf_opts vf;
	/* the sockets: the SM's hint socket or ibpoold's, NULL for each
	 * command's default */
	const char *socket;
	enum cli_peer peer;	/* whose socket it is */
	const char *munge;	/* munged's socket for TCP, NULL: default */
	struct pr_fail *fail;	/* main's, filled by pr_call() */
	/* hints, state, reroute */
	unsigned int weight;	/* hints add */
	const char *owner;	/* hints set, add: NULL for none */
	bool wait;		/* until the switches hold the new routing */
	unsigned int timeout_ms;
	char **args;		/* positional arguments after the command */
	int nargs;
	/* the pool subcommands */
	const char *client;	/* alloc: NULL for this host */
	unsigned int gpus;	/* alloc, place */
	unsigned int milli;	/* alloc: a share of one GPU, 0 none */
	unsigned int rdma;	/* alloc: percent of each HCA's bandwidth */
	unsigned int per_host;	/* place */
	unsigned int lease;	/* alloc, renew: seconds, 0 for the default */
	const char *job;	/* alloc: job of the allocation; jobs: start */
	const char *hosts;	/* jobs --start: hostlist expression */
	const char *end_job;	/* jobs: job to end */
	const char *format;	/* topology: slurm-tree or k8s-labels */
	bool queue;		/* alloc: queue when the GPUs are not free */
	const char *cls;	/* alloc --queue, submit: class, NULL default */
	const char *group;	/* and quota group, NULL none */
	const char *name;	/* and job name, NULL none */
	unsigned int limit;	/* and run-time limit, s; 0 none */
	bool drop;		/* orphans: forget them */
	/* watch: its filter, comma-separated lists or NULL */
	const char *events, *tickets, *ids;
	bool mine;
	enum pr_load load;	/* map */
	uint32_t fold;		/* map: hosts drawn one bar a box past it */
	const char *load_arg;	/* map: the load's name; trace: offered load */
	const char *output;	/* map: the SVG file, trace: the CSV; "-"
				 * for stdout */
	/* trace */
	const char *trace_gen;	/* --gen: the generator */
	const char *trace_stats;	/* --stats: the trace file */
	const char *trace_convert;	/* --convert: the trace file */
	const char *runtimes;	/* --runtimes: Philly's run times */
	unsigned int trace_users;	/* --users, 0: the generator's */
	const char *trace_mix;	/* --mix: GPU counts, NULL: Philly's */
	const char *svg;	/* trace --stats, replay: the charts' directory */
	/* replay */
	const char *trace;	/* the job trace */
	const char *nodes;	/* an Alibaba node list instead of --net */
	const char *policy;	/* comma-separated policies */
	unsigned int gpus_per_host;
	unsigned int restart;	/* s a preemption adds to its victim */
	unsigned int gang_wait;	/* --gang-wait: s a gang may wait, 0: none */
	bool gang_first_fit;	/* --gang-place first: the anchor */
	double comm_share;	/* --comm-share: a gang's communication share */
	double fail_mtbf;	/* --fail-mtbf: s per host, 0: no failures */
	double repair;		/* --repair: s a failed host is down */
	double checkpoint;	/* --checkpoint: s of work between two, 0: none */
	const char *fail_trace;	/* --fail-trace: scripted host events */
	enum rpl_recover fail_recover;	/* --fail-recover */
};

/*
 * Subcommands return an exit code; on PR_ERR err holds one line (no
 * program name, no newline) that main prints.
 */
int pr_analyze(const struct pr_opts *o, char *err, size_t len);
int pr_route(const struct pr_opts *o, char *err, size_t len);
int pr_verify(const struct pr_opts *o, char *err, size_t len);
int pr_hints(const struct pr_opts *o, char *err, size_t len);
int pr_state(const struct pr_opts *o, char *err, size_t len);
int pr_reroute(const struct pr_opts *o, char *err, size_t len);

/*
 * The jobs' collectives on the flow model (routing/collsim.h): PR_OK,
 * PR_BAD when the tables lose a flow, PR_ERR with err.
 */
int pr_simulate(const struct pr_opts *o, char *err, size_t len);

/* The fabric as an SVG picture, links coloured by o->load. */
int pr_map(const struct pr_opts *o, char *err, size_t len);

/*
 * Job traces for the scheduler's replay: --gen philly writes one as plain
 * CSV, --stats FILE prints one's statistics.
 */
int pr_trace(const struct pr_opts *o, char *err, size_t len);

/*
 * A job trace through the scheduler core (tools/lib/pool/replay.h) under
 * each policy of o->policy: one row (or JSON object) per policy.
 */
int pr_replay(const struct pr_opts *o, char *err, size_t len);

/* "a2a", "jobs" or "counters": 0 with *l, or -EINVAL. */
int pr_load_parse(const char *s, enum pr_load *l);

/*
 * A routing to look at (source.c): o->net routed here (for the jobs when
 * route_jobs, else without), o->dump (OpenSM's dumps), or neither (the
 * live switches' LFTs); with o->jobs built for its fabric.  Everything
 * owned; pr_source_close() releases it, also after an error.
 */
struct pr_source {
	const char *name;	/* the file, dump directory or live CA */
	struct fabric *fab;	/* owned unless live (then live's) */
	struct lf *live;	/* the live fabric's reader, NULL offline */
	struct rt_tables tables;	/* live: a copy of live's handle */
	bool have_tables;	/* tables are to be released */
	bool routed;		/* --net: summary is this routing's */
	struct rt_summary summary;
	struct rt_jobs jobs;	/* o->jobs built for fab */
	bool have_jobs;
};

int pr_source_open(struct pr_source *s, const struct pr_opts *o,
		   bool route_jobs, char *err, size_t len);
void pr_source_close(struct pr_source *s);

/*
 * Route s's fabric as o says, for s's jobs (jobs) or without, into t
 * (to be released also on error) and sum: 0 (also for tables that lose
 * a pair, which their checks report), or an error with err.
 */
int pr_source_route(struct pr_source *s, const struct pr_opts *o,
		    bool jobs, struct rt_tables *t, struct rt_summary *sum,
		    char *err, size_t len);

/*
 * Read the JSON job list at path ({"jobs":[{"id", "hosts", "weight"}]})
 * into js for f (hosts jobs share as rt_jobs_build() has them; a job
 * left out for it is said on stderr).  Returns 0 or a negative errno
 * with one line in err that names the file and the field, job or host;
 * js is released on error.
 */
int pr_jobs_load(const char *path, const struct fabric *f,
		 struct rt_jobs *js, char *err, size_t len);
/*
 * Requests to a socket (client.c).  pr_request() makes {"op":op} and
 * pr_with() adds a field, both NULL when out of memory (then req and v
 * are dropped).  pr_call() sends req (consumed, NULL reads as out of
 * memory) to o->socket within ms: PR_OK with *reply an ok reply to put,
 * PR_BAD when refused (with --json the error reply is printed, else err
 * holds "code: message"), PR_ERR with err and *o->fail when it could not
 * be asked.  pr_str() is a member as a string, "-" when absent.
 */
json_object *pr_request(const char *op);
json_object *pr_with(json_object *req, const char *key, json_object *v);
int pr_call(const struct pr_opts *o, json_object *req, json_object **reply,
	    int ms, char *err, size_t len);
const char *pr_str(json_object *o, const char *key);

/*
 * A failure under --json: {"ok":false,"error":{"code","message"[,
 * "hint"]}} on one line of stdout, as ibpoold's refusals come.
 */
void pr_print_error(const char *code, const char *msg, const char *hint);

/* Not a check: PR_BAD means a switch did not answer. */
int pr_counters(const struct pr_opts *o, char *err, size_t len);

/*
 * Two counter sweeps of v, ms apart (announced on stderr between them),
 * and the rates of every link into *r (*n of them, the caller frees it);
 * both samples the caller's to release, also on error.  *interval is the
 * time between the sweeps' starts.  Returns 0 or an error with err.
 */
int pr_counter_rates(struct lf *v, unsigned int ms, struct lf_sample *a,
		     struct lf_sample *b, struct lf_rate **r, size_t *n,
		     double *interval, char *err, size_t len);

/*
 * Pool subcommands (pool.c), one request to o->socket each: PR_OK, PR_BAD
 * when ibpoold refused (its error printed), PR_ERR when it was not
 * reached.
 */
int pr_pool_status(const struct pr_opts *o, char *err, size_t len);
int pr_pool_alloc(const struct pr_opts *o, char *err, size_t len);
int pr_pool_release(const struct pr_opts *o, char *err, size_t len);
int pr_pool_renew(const struct pr_opts *o, char *err, size_t len);
int pr_pool_list(const struct pr_opts *o, char *err, size_t len);
int pr_pool_place(const struct pr_opts *o, char *err, size_t len);
int pr_pool_jobs(const struct pr_opts *o, char *err, size_t len);
int pr_pool_topology(const struct pr_opts *o, char *err, size_t len);
int pr_pool_submit(const struct pr_opts *o, char *err, size_t len);
int pr_pool_cancel(const struct pr_opts *o, char *err, size_t len);
int pr_pool_queue(const struct pr_opts *o, char *err, size_t len);
int pr_pool_watch(const struct pr_opts *o, char *err, size_t len);
int pr_pool_host(const struct pr_opts *o, char *err, size_t len);
int pr_pool_orphans(const struct pr_opts *o, char *err, size_t len);

#endif
