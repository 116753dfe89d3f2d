/* SPDX-License-Identifier: MIT */
/*
 * Linear forwarding tables for every switch of a fabric, plus the LID owner
 * map the engines and the verifier share.  No OpenSM types.
 */
#ifndef GPUAWARE_LFT_H
#define GPUAWARE_LFT_H

#include <stdbool.h>
#include <stdint.h>

#include "../topology/fabric.h"

#define RT_NO_PATH 0xff		/* OpenSM's OSM_NO_PATH */

struct rt_tables;

/*
 * Optional virtual-lane data; a NULL rt_tables.vl means every packet uses
 * SL 0 and VL 0.  Both callbacks must be cheap: the verifier calls them per
 * hop, OpenSM's SA calls path_sl per PathRecord.  sl2vl with sw FAB_NONE
 * asks for a CA port's table (the VL a packet is sent on).  They may read
 * t->vl and nothing else of t: the plugin keeps the rt_vl after the
 * tables and their fabric are gone, and calls them with a carrier.
 */
struct rt_vl {
	unsigned int nvl;	/* data VLs the routing needs */
	uint8_t (*path_sl)(const struct rt_tables *t, unsigned int slid,
			   unsigned int dlid);
	uint8_t (*sl2vl)(const struct rt_tables *t, uint32_t sw,
			 unsigned int in, unsigned int out, unsigned int sl);
	/*
	 * path_sl answers for a switch's LID as source too (the SL of the
	 * packets it sends, its MasterSMSL for the SM's LID); false when
	 * it knows CA sources only, and the verifier then leaves the
	 * switches' own routes off the CDG.
	 */
	bool switch_sl;
	void *ctx;		/* owned by whoever set vl */
	void (*release)(struct rt_vl *vl);	/* frees vl and ctx, or NULL */
};

/*
 * Tables for one routing of one fabric.  The fabric is borrowed and must
 * outlive the tables; everything else is owned and freed by
 * rt_tables_release().
 */
struct rt_tables {
	const struct fabric *fab;
	uint32_t nsw;
	uint32_t *sw_node;	/* switch index -> fabric node */
	uint32_t *node_sw;	/* fabric node -> switch index, FAB_NONE for CAs */
	unsigned int top;	/* highest LID; rows have top + 1 entries */
	uint8_t *lft;		/* nsw rows: out port per LID, RT_NO_PATH */
	uint32_t *lid_node;	/* LID -> owning node, FAB_NONE if unused */
	uint8_t *lid_port;	/* LID -> owning port (0 for switches) */
	const struct rt_vl *vl;
	struct rt_vl *own_vl;	/* an engine's, released with the tables */
};

/* Build the switch index and LID maps for f, all LFT entries RT_NO_PATH. */
int rt_tables_init(struct rt_tables *t, const struct fabric *f);
void rt_tables_release(struct rt_tables *t);

static inline uint8_t *rt_lft(const struct rt_tables *t, uint32_t sw)
{
	return t->lft + (size_t)sw * (t->top + 1);
}

/*
 * Each LID's own switch row points at port 0 (switch LIDs) or the CA
 * link; engines call this once and fill in the rest.
 */
void rt_tables_set_local(struct rt_tables *t);

/* Back to local routes only, the engine's VL tables released. */
void rt_tables_reset(struct rt_tables *t);

/*
 * Switch-to-switch links as CSR: switch s's links are off[s] up to
 * off[s + 1], in port order; each names the neighbour switch, the port at
 * s and the port at the neighbour.  Owned; rt_adj_release() frees it.
 */
struct rt_adj {
	uint32_t *off;		/* nsw + 1 */
	uint32_t *sw;
	uint8_t *port;
	uint8_t *rport;
};

int rt_adj_build(struct rt_adj *a, const struct rt_tables *t);
void rt_adj_release(struct rt_adj *a);

/*
 * The switch-to-switch hops from switch s towards lid along t: each as the
 * fabric port index (node's port0 + port) it leaves by, at most max of
 * them into out.  Stops at a hole, a CA port or a free one (the route
 * arrived or ends there) and after nsw hops (a loop).  Returns the count.
 */
unsigned int rt_route_links(const struct rt_tables *t, uint32_t s,
			    unsigned int lid, uint32_t *out, unsigned int max);

/* Switch index that delivers lid, FAB_NONE when no linked port owns it. */
uint32_t rt_lid_switch(const struct rt_tables *t, unsigned int lid);

/* Whether lid belongs to a CA port (not to a switch, nor to nobody). */
bool rt_lid_is_ca(const struct rt_tables *t, unsigned int lid);

/* Whether node n has a port cabled to a CA (a switch with hosts). */
bool rt_node_has_ca(const struct fabric *f, uint32_t n);

/* Switch index port p of node n is cabled to, FAB_NONE if none. */
uint32_t rt_port_switch(const struct rt_tables *t, uint32_t n,
			unsigned int p);

/*
 * *out: per fabric port of a switch, the switch index it is cabled to,
 * FAB_NONE for every other port.  Owned by the caller (free()).
 * Returns 0 or -ENOMEM.
 */
int rt_peer_switches(const struct rt_tables *t, uint32_t **out);

/*
 * LIDs grouped by delivering switch: switch s delivers (*lids)[(*off)[s]]
 * up to (*off)[s + 1], ascending.  The caller frees both arrays.
 */
int rt_lids_by_switch(const struct rt_tables *t, uint32_t **off,
		      uint32_t **lids);

/*
 * Management routes: every switch that has no entry for a LID of a
 * switch marked in dsw (NULL: every LID) gets one, one hop towards a
 * neighbour that has, breadth first from the routed switches, so the
 * result stays loop-free.  Switches with hosts get none to CA LIDs.  So
 * data between CAs never uses them (no routed switch forwards to an
 * unrouted one); MADs to and from switches do.
 * Returns the number of entries filled, or -ENOMEM.
 */
long rt_fill_unrouted(struct rt_tables *t, const bool *dsw);

/* Number of (switch, LID) entries that differ; tables of the same fabric. */
uint64_t rt_tables_churn(const struct rt_tables *a, const struct rt_tables *b);

#endif
