/* SPDX-License-Identifier: MIT */
/*
 * Subnet import: copy OpenSM's view of the subnet (nodes, ports, LIDs,
 * healthy links) into a fabric graph the routing core can work on.
 */
#ifndef GPUAWARE_IMPORT_H
#define GPUAWARE_IMPORT_H

#include <opensm/osm_subnet.h>
#include <opensm/osm_switch.h>

#include "../../topology/fabric.h"

/*
 * One sweep's fabric and the way back to OpenSM.  fab and the sw array
 * are owned; the osm_switch_t pointers in sw are borrowed and valid only
 * while the routing callbacks of the sweep that built them run: OpenSM
 * frees switches between sweeps, so sw never outlives them (the fabric
 * may, for what is done after the routing by GUID).
 */
struct ga_sweep {
	struct fabric *fab;
	osm_switch_t **sw;	/* by fabric node, NULL for CAs and routers */
	unsigned int dropped;	/* links left out: unhealthy, looped... */
};

/*
 * Build s from subn (nodes in GUID order; routers become CAs).  Returns 0
 * or a negative errno; on error s is left empty.
 */
int ga_import(osm_subn_t *subn, struct ga_sweep *s);

/* Free what s owns and forget its OpenSM pointers; s may be empty. */
void ga_sweep_release(struct ga_sweep *s);

/* Forget s's OpenSM pointers, keeping its fabric. */
void ga_sweep_forget_switches(struct ga_sweep *s);

#endif
