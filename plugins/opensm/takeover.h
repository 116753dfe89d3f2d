/* SPDX-License-Identifier: MIT */
/*
 * The SM's state, and its first sweep as master (a standby taking over, a
 * handover, a restart): OpenSM does not know what the switches hold then
 * and rewrites every LFT block.  Read back first, the blocks the routing
 * leaves as they are need not be sent: with the same fabric and job
 * table, none.
 */
#ifndef GPUAWARE_TAKEOVER_H
#define GPUAWARE_TAKEOVER_H

#include <stdbool.h>
#include <stdint.h>

/* OpenSM's osm_opensm_t; its header needs the POSIX feature macros */
struct osm_opensm;

/*
 * One sweep's read-back, from HEAVY_SWEEP_DONE to UCAST_ROUTING_DONE, on
 * OpenSM's sweeper thread.  guid is owned.
 */
struct ga_takeover {
	uint64_t *guid;		/* switches whose blocks were asked for */
	unsigned int nsw;
	unsigned int asked;	/* LFT blocks asked for */
	bool cleared;		/* subn.need_update cleared for the LFTs */
	unsigned int need_update;	/* its value before */
	unsigned int same, differ;	/* blocks of the read switches */
};

/* "master", "standby", "discovering", "not active": safe from any thread. */
const char *ga_takeover_state(const struct osm_opensm *osm);

/*
 * On HEAVY_SWEEP_DONE: when this is the SM's first sweep as master, ask
 * every switch that has a LinearFDBTop for its LFT blocks (OpenSM's LFT
 * receiver stores the answers as what the switch holds; OpenSM waits
 * for them before assigning LIDs).  Drops what an earlier sweep left.
 */
void ga_takeover_read(struct ga_takeover *t, struct osm_opensm *osm);

/*
 * In ucast_build_fwd_tables, new_lft written and under OpenSM's lock:
 * the switches read back have OpenSM compare their blocks instead of
 * sending all (their need_update and, until ga_takeover_done(), the
 * subnet's cleared).  Counts the blocks that are the same and differ.
 * Returns whether there was a read-back to compare.
 */
bool ga_takeover_compare(struct ga_takeover *t, struct osm_opensm *osm);

/*
 * On UCAST_ROUTING_DONE, or before the next routing when OpenSM reported
 * none (a failed one): the subnet's need_update as it was, for the
 * multicast and link steps that follow; t emptied.  (OpenSM's QoS step
 * runs before that event, with the subnet's flag cleared; at a first
 * master sweep discovery marked every port for update, and QoS forces
 * its tables port by port.)
 */
void ga_takeover_done(struct ga_takeover *t, struct osm_opensm *osm);

#endif
