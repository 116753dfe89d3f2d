/* SPDX-License-Identifier: MIT */
/*
 * The plugin's job-hint socket: the sm/ server on its own thread, the job
 * table it changes, the reroutes those changes ask for, and the state it
 * reports.  No OpenSM types: the reroute is a callback.
 */
#ifndef GPUAWARE_GA_HINTS_H
#define GPUAWARE_GA_HINTS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "../../routing/jobs.h"
#include "../../routing/route.h"
#include "gaconfig.h"

struct ga_hints;

/*
 * What the plugin gives the hint socket.  kick starts a reroute and must
 * not block (it runs on the socket's own threads); log gets one finished
 * line, error or not; sm_state (optional) names the SM's state now
 * ("master", "standby", ...) for the state request, from any thread.
 */
struct ga_hints_ops {
	void (*kick)(void *ctx);
	void (*log)(void *ctx, bool error, const char *msg);
	void *ctx;
	const char *(*sm_state)(void *ctx);
};

/*
 * Load the kept job table from cfg->hints_dir, create the socket and start
 * its threads.  A table that cannot be read is logged and replaced by an
 * empty one; a socket that cannot be made is an error (-errno, err says
 * why) and nothing runs.  cfg and ops are copied.
 */
int ga_hints_start(const struct ga_cfg *cfg, const struct ga_hints_ops *ops,
		   struct ga_hints **out, char *err, size_t len);

/* Stop the threads, remove the socket, free everything.  NULL is fine. */
void ga_hints_stop(struct ga_hints *h);

/*
 * Per sweep, on OpenSM's routing thread, first thing: a routing starts
 * that answers every reroute asked so far, and nothing of this sweep is
 * in the switches yet.
 */
void ga_hints_sweep_begin(struct ga_hints *h);

/*
 * Then ga_hints_jobs() records the fabric's host names and CA port GUIDs
 * (what later requests are checked against) and builds js for f from the
 * current table, leaving out the hosts f does not have; a host jobs
 * share routes with the first of them, a job with none of its own is
 * left out (said, no error); *gen is that table's generation.  Returns
 * 1 with js to release when there are jobs, 0 when there are none (js
 * untouched), or a negative errno with err filled.
 */
int ga_hints_jobs(struct ga_hints *h, const struct fabric *f,
		  struct rt_jobs *js, uint64_t *gen, char *err, size_t len);

/* What the last routing handed to OpenSM was, for the state request. */
struct ga_hints_routing {
	uint64_t generation;	/* of the job table it was routed for */
	uint64_t reroutes;	/* reroutes asked before it began (set here) */
	char topology[32];
	char engine[16];
	unsigned int nvl;
	unsigned int jobs;	/* jobs routed for */
	char job_routing[96];	/* how the engine used them (rt_summary) */
	/* the jobs' collectives on the model, with and without the jobs */
	bool modelled;
	bool jobs_kept;		/* the routing for the jobs won */
	struct rt_model with, without;
	double ms;		/* wall time of the plugin's routing */
	/* the verifier's numbers when it ran (verbosity verbose or more) */
	bool checked;
	uint64_t pairs, unreachable;
	bool credit_loop;
	unsigned int max_hops;
	uint64_t efi_max;
	double efi_ratio;
};

/* The TCP endpoint it serves, "ADDR:PORT", into buf; "" without one. */
void ga_hints_tcp_name(struct ga_hints *h, char *buf, size_t len);

/* Jobs in the table now, routed or not; from any thread. */
size_t ga_hints_table_jobs(struct ga_hints *h);

/* Reroutes the socket has asked of OpenSM so far. */
uint64_t ga_hints_reroutes(struct ga_hints *h);

/* Tables for r went to OpenSM; not yet in the switches. */
void ga_hints_routed(struct ga_hints *h, const struct ga_hints_routing *r);

/*
 * This sweep's routing was refused; line is the ERR line logged, "ERR
 * GAxx: why".  State reports it, with the engine OpenSM used instead,
 * until a routing of ours reaches the switches.
 */
void ga_hints_refused(struct ga_hints *h, const char *line);

/*
 * OpenSM says the unicast routing is done, by engine (its name; NULL
 * when no engine configured the switches).  With ok (every LFT block was
 * acknowledged) the routing this sweep handed over is what state reports
 * from now on; after a sweep the plugin did not route (OpenSM fell back
 * to another engine), or with !ok, nothing of ours is known to be in the
 * switches and routed_generation is null.
 */
void ga_hints_in_switches(struct ga_hints *h, bool ok, const char *engine);

#endif
