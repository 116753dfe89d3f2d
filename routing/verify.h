/* SPDX-License-Identifier: MIT */
/*
 * The verifier: checks a routing (rt_tables over a fabric) for
 * connectivity, loops, black holes and channel-dependency cycles per VL,
 * and measures it: edge forwarding index and effective bisection bandwidth.
 * Definitions are those of docs/engines.md ("Reading a report") and
 * ibpoolroute(1); tests, bench and CLI share them.
 */
#ifndef GPUAWARE_VERIFY_H
#define GPUAWARE_VERIFY_H

#include <stdbool.h>
#include <stdint.h>

#include "lft.h"

struct vf_opts {
	unsigned int ebb_perms;	/* random permutations for eBB; 0 skips eBB */
	uint64_t seed;		/* permutation seed */
	bool skip_cdg;		/* skip the dependency-cycle check */
	bool skip_mgmt;		/* skip the switch-sourced paths */
	/*
	 * Leave the efi_* fields 0 (and efi_link untouched): a check of
	 * connectivity and loops only, without the per-link tallies.
	 */
	bool skip_efi;
	/*
	 * With skip_mgmt: CA ports' routes to switch LIDs are not walked
	 * (sw_pairs and sw_unreachable stay 0), as they never fail a
	 * routing (vf_ok()).  Without skip_mgmt the switches' own routes
	 * need them, and this is ignored.
	 */
	bool skip_sw_dests;
	/*
	 * Optional, the caller's, room for one per fabric port: the
	 * all-to-all routes leaving on each switch-to-switch port (its
	 * link's edge forwarding index), 0 on every other port.
	 */
	uint64_t *efi_link;
};

#define VF_DEFAULT_PERMS 100

/* A failing pair or dependency, so a report can show one example. */
struct vf_example {
	unsigned int slid, dlid;
	uint32_t sw;		/* switch index where it went wrong */
	unsigned int port;
};

struct vf_report {
	/*
	 * Connectivity: (source CA port, destination CA LID) pairs the
	 * cabling connects, every LMC LID a destination.  A port's own LIDs
	 * are skipped.
	 */
	uint64_t pairs;
	uint64_t unreachable;	/* pairs not delivered (holes + loops) */
	uint64_t holes;		/* pairs hitting RT_NO_PATH or a dead port */
	uint64_t loops;		/* pairs that cycle among switches */
	uint64_t disconnected;	/* pairs the cabling itself does not connect */
	/* management traffic: CA ports to switch LIDs, kept apart */
	uint64_t sw_pairs;
	uint64_t sw_unreachable;
	/*
	 * Management traffic from switches (PerfMgt and SA replies, traps):
	 * from every switch's port 0 to every CA LID and other switch LID of
	 * its component, on the SL path_sl gives for the switch's LID as
	 * source, as OpenSM sets a switch's MasterSMSL.  Their channel
	 * dependencies join the CDG; mgmt_cycle says they close a cycle the
	 * data alone does not.
	 */
	uint64_t mgmt_pairs;
	uint64_t mgmt_unreachable;	/* holes + loops */
	uint64_t mgmt_loops;
	bool mgmt_cdg;		/* checked: not when the data closes a cycle */
	bool mgmt_cycle;
	unsigned int mgmt_cycle_vl;
	uint64_t mgmt_edges;	/* dependencies only they add */
	/*
	 * A switch answers a CA's request (PerfMgt, SA) on the request's
	 * SL, path_sl from the CA's LID to the switch's: with several VLs,
	 * where that differs from the switch's own SL, those answers close
	 * a cycle with the rest (checked after mgmt_cycle, not failed by
	 * vf_ok(): an engine may give no SL for answers yet).
	 */
	bool answer_cycle;
	unsigned int answer_cycle_vl;
	/*
	 * The first switch-sourced pair that loops, else a link on the
	 * cycle they close (slid = dlid = 0), else the first hole.
	 */
	struct vf_example mgmt_bad;
	/*
	 * First failing CA pair and the switch where it went wrong; for a
	 * dependency cycle alone, slid = dlid = 0 and sw:port is a link on it.
	 */
	struct vf_example bad;
	uint32_t max_hops;	/* longest switch-to-switch path, CA LIDs */

	/* deadlock freedom */
	bool cdg_checked;
	bool cdg_cycle;		/* a cycle exists in some VL's CDG */
	unsigned int cycle_vl;
	unsigned int nvl;	/* VLs the routing uses */
	uint64_t cdg_edges;

	/* all-to-all edge forwarding index on directed switch-switch links */
	uint64_t efi_max;
	double efi_mean;	/* over links that exist, used or not */
	double efi_ratio;	/* max / mean */
	/*
	 * The same within each link class, class = (hops from the tail
	 * switch to the nearest host, from the head): a fat-tree's levels.
	 * The worst class's max / mean; 1.0 is a perfectly balanced routing
	 * even where the topology loads levels differently.
	 */
	double efi_class_ratio;

	/* effective bisection bandwidth, 0..1 */
	double ebb;
	unsigned int ebb_perms;
};

/*
 * Fill r for tables t.  Returns 0 when the check ran (whatever it found)
 * or a negative errno (-ENOMEM).  Pairs the cabling does not connect are
 * counted in disconnected, not in unreachable.
 */
int vf_check(const struct rt_tables *t, const struct vf_opts *o,
	     struct vf_report *r);

/*
 * True when every connected CA pair is delivered, no switch-sourced route
 * loops and (if checked) there is no CDG cycle, with or without the
 * switch-sourced dependencies.  Switch LIDs unreachable by a deadlock-free
 * route, and holes in switch-sourced routes, do not make a routing bad;
 * sw_unreachable and mgmt_unreachable report them.
 */
bool vf_ok(const struct vf_report *r);

#endif
