/* SPDX-License-Identifier: MIT */
/*
 * ibpoold's view of the fabric: the graph, the routing in the switches
 * (LFTs, LMC), path SL, MTU and rate per (SLID, DLID), and a load per
 * directed link, from allocations and from measured counters.  One
 * interface over two sources: an ibsim net file routed here by the
 * routing core (offline), or the live fabric.
 */
#ifndef GPUAWARE_POOL_VIEW_H
#define GPUAWARE_POOL_VIEW_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "config.h"
#include "routing/route.h"
#include "topology/fabric.h"

#define POOL_PATH_MAX 64	/* links on one path, both CA links included */
#define POOL_GID_PREFIX 0xfe80000000000000ULL	/* default subnet prefix */

struct pool_path_attr;

/*
 * A directed link is named by the port it leaves: an index into
 * fab->ports.  Loads are per such index: alloc[] counts the allocation
 * paths crossing the link (both directions of each client-GPU pair are
 * charged), meas[] the measured transmit rate over the link's rate
 * (0..1, one saturated link weighs as much as one allocation path).
 * Owns fab, the tables and the arrays; pool_view_free() releases all.
 */
struct pool_view {
	struct fabric *fab;
	struct rt_tables rt;
	struct rt_summary route;	/* offline: what rt_route() said */
	unsigned int lmc;
	uint64_t subnet_prefix;
	char source[160];	/* "offline FILE" or the live CA */
	uint32_t *port_node;	/* port index -> node */
	double *alloc;
	double *meas;
	/*
	 * The live source's path records (SL, MTU, rate from the SA), or
	 * NULL: then from the routing's path_sl and the ports.  Nonzero
	 * return falls back the same way.
	 */
	int (*path_attr)(void *ctx, unsigned int slid, unsigned int dlid,
			 struct pool_path_attr *a);
	void *path_ctx;
	uint64_t epoch;		/* the live discovery it came from */
	/*
	 * Walks already made, by (source port, DLID): a view's LFTs never
	 * change (new routing comes as a new view), so neither do its
	 * paths, whatever the loads do.  Private to view.c.
	 */
	struct pool_walk_cache *walks;
};

/* A path from a CA port towards a LID: the links it leaves, in order. */
struct pool_path {
	uint32_t dlid;
	unsigned int n;
	uint32_t link[POOL_PATH_MAX];
};

/* SL not known: the live source's SA was not asked (busy); never guess 0. */
#define POOL_SL_UNKNOWN 0xffu

/* What a client needs to address a path. */
struct pool_path_attr {
	unsigned int sl;	/* or POOL_SL_UNKNOWN */
	unsigned int mtu;	/* bytes */
	double rate;		/* Gb/s: the slowest link */
};

/*
 * Take f (owned from here, also on error), give its ports LIDs with lmc
 * and route it with engine e.  Errors name the step in err.
 */
int pool_view_build(struct fabric *f, unsigned int lmc, enum rt_engine_id e,
		    const char *source, struct pool_view **out, char *err,
		    size_t len);

/*
 * Take f (owned from here, also on error) with the routing t of a fabric
 * of the same nodes in the same order (the live source's copy), LFT rows
 * copied.  -EINVAL when t does not fit f.
 */
int pool_view_adopt(struct fabric *f, const struct rt_tables *t,
		    const char *source, struct pool_view **out, char *err,
		    size_t len);

/* The offline source: an ibsim net file, routed here. */
int pool_view_offline(const char *net, unsigned int lmc, enum rt_engine_id e,
		      struct pool_view **out, char *err, size_t len);

void pool_view_free(struct pool_view *v);

/*
 * The CA port of a configured HCA (by port GUID, or the first linked
 * port of the CA whose node description is h->desc): its port index, or
 * -ENOENT when the fabric has none, -ENOLINK when it is not cabled.  A
 * description is anyone's root to set, so by description: -EEXIST when
 * two CAs have it (seen[] their GUIDs); with pin (NULL: none), the port
 * GUID it matched before (0: none yet, then set), a match on another
 * port is -EPERM (seen[0] that port's GUID, *pin kept).  seen[0] is the
 * match's GUID otherwise, 0 by port GUID.
 */
long pool_view_hca(const struct pool_view *v, const struct pool_hca *h,
		   uint64_t *pin, uint64_t seen[2]);

/*
 * The linked CA ports of host name (first word of the node description)
 * into idx[] in node order, at most max; returns how many.
 */
size_t pool_view_host_ports(const struct pool_view *v, const char *name,
			    uint32_t *idx, size_t max);

/*
 * Follow the LFTs from CA port src to dlid: 0 with p filled, or
 * -EHOSTUNREACH (no entry, a loop, or delivered to another port).
 */
int pool_view_walk(const struct pool_view *v, uint32_t src, uint32_t dlid,
		   struct pool_path *p);

/* Busiest link and summed load of a path: alloc + meas per link. */
void pool_view_cost(const struct pool_view *v, const struct pool_path *p,
		    double *max, double *sum);

/*
 * The DLID to reach CA port dst from CA port src: among dst's 2^LMC LIDs
 * the one whose forward path and reply path (to src's LID with the same
 * LMC offset, the source path bits the client uses) have the least load,
 * busiest link first, then summed load, then the lowest LID.  Fills fwd
 * and rev and returns 0, or -EHOSTUNREACH when no LID is reachable.
 * Both walk through the view's cache (see struct pool_view): the same
 * paths as pool_view_walk(); not thread-safe, the cache changes.
 */
int pool_view_choose(struct pool_view *v, uint32_t src, uint32_t dst,
		     struct pool_path *fwd, struct pool_path *rev);

/*
 * The cost of a pair of paths as one number, what allocation weighs:
 * the busiest link of either, then a thousandth of their summed load.
 */
double pool_view_pair_cost(const struct pool_view *v,
			   const struct pool_path *fwd,
			   const struct pool_path *rev);

/*
 * A lower bound on pool_view_pair_cost() of the paths
 * pool_view_choose(v, src, dst) gives, from the four links every pair
 * of paths between the two ports crosses (each port's cable, both
 * ways), as long as no link's load is below 0: 0 with *lb set, or
 * -EHOSTUNREACH exactly when pool_view_choose() fails.  Reachability is
 * cached per source port, so this reads a few words where the choice
 * walks every LID; not thread-safe either.
 */
int pool_view_bound(struct pool_view *v, uint32_t src, uint32_t dst,
		    double *lb);

/* The same pair's paths for a DLID already chosen. */
int pool_view_pair(struct pool_view *v, uint32_t src, uint32_t dst,
		   uint32_t dlid, struct pool_path *fwd,
		   struct pool_path *rev);

/* Add w to the allocation load of every link of p. */
void pool_view_charge(struct pool_view *v, const struct pool_path *p,
		      double w);

/* Forget every allocation load (before charging them all again). */
void pool_view_clear_alloc(struct pool_view *v);

/*
 * SL of (SLID of src, p->dlid), MTU and rate of path p from src: the
 * live source's path record, else the routing's path_sl and the ports;
 * POOL_SL_UNKNOWN when the live source could not answer (the SL matters
 * on tori and dragonflies: a guess could close a credit loop).
 */
void pool_view_attr(const struct pool_view *v, uint32_t src,
		    const struct pool_path *p, struct pool_path_attr *a);

/* "0x<switch guid>:<out port>" of link i of p, or "" for a CA's link. */
void pool_view_hop(const struct pool_view *v, uint32_t link, char *buf,
		   size_t len);

/*
 * The same hop as a reader names it: "<switch NodeDescription> port
 * <out port>" (the GUID when the switch has no description).
 */
void pool_view_hop_name(const struct pool_view *v, uint32_t link, char *buf,
			size_t len);

static inline bool pool_view_is_ca_link(const struct pool_view *v,
					uint32_t link)
{
	return !fab_is_sw(v->fab, v->port_node[link]);
}

#endif
