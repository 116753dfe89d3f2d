/* SPDX-License-Identifier: MIT */
/*
 * The live SL and VL tables: what the SA's path_sl and the QoS manager's
 * update_sl2vl read between sweeps, swapped in when a sweep's LFTs are.
 */
#ifndef GPUAWARE_VL_H
#define GPUAWARE_VL_H

#include <pthread.h>
#include <stdint.h>

#include <opensm/osm_port.h>
#include <opensm/osm_subnet.h>

#include "../../routing/lft.h"

/*
 * vl is owned (NULL while the routing needs no VLs: SLs and SL2VL are left
 * as OpenSM's QoS set them); guid/sw map node GUIDs to the switch indices
 * vl's tables use.  lock guards all three: the SA calls path_sl from its
 * own thread while a sweep swaps them.
 */
struct ga_vl {
	pthread_mutex_t lock;
	struct rt_vl *vl;
	uint64_t *guid;		/* ascending */
	uint32_t *sw;
	uint32_t nsw;
};

int ga_vl_init(struct ga_vl *v);
void ga_vl_release(struct ga_vl *v);

/*
 * Make t's VL tables live (taken from t->own_vl, which is cleared so the
 * tables can be released), or none when t has none.  Returns 0 or
 * -ENOMEM (then the old state stays).
 */
int ga_vl_swap(struct ga_vl *v, struct rt_tables *t);

/* The SL for slid -> dlid (host order); hint when no VL tables are live. */
uint8_t ga_vl_path_sl(struct ga_vl *v, uint8_t hint, unsigned int slid,
		      unsigned int dlid);

/* Overwrite tbl for (in, out) of port p's node when VL tables are live. */
void ga_vl_sl2vl(struct ga_vl *v, const osm_physp_t *p, unsigned int in,
		 unsigned int out, ib_slvl_table_t *tbl);

/*
 * Data VLs every linked port of the subnet runs: the least of VLCap and
 * max_op_vls over them (1, 2, 4, 8 or 15).
 */
unsigned int ga_vl_available(const osm_subn_t *subn);

#endif
