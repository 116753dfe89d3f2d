/* SPDX-License-Identifier: MIT */
/*
 * The dragonfly engine's own state, which dragonfly.c (the routes),
 * vl.c (the SL and VL tables), place.c (the SLs of the ways round) and
 * check.c (the dependency check of the tables) share.  Private to
 * routing/dragonfly/.
 */
#ifndef GPUAWARE_RT_DENG_H
#define GPUAWARE_RT_DENG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "../../topology/dflyrec.h"
#include "../lft.h"
#include "answers.h"

#define CLS_NONE 0
#define CLS_CA 1
#define CLS_LOCAL 2
#define CLS_GLOBAL 3
#define NONE UINT32_MAX
#define SL_AROUND 2		/* first SL of the three-VL ways round */
#define SL_VAL 8		/* first SL of the Valiant classes */
#define SL_MAX 15
#define NVAL (SL_MAX - SL_VAL + 1)
#define MAX_LOCAL 4		/* local hops a minimal route takes at most */
#define JOB_KEYS 8		/* keys a job LID tries (cables, classes turn) */

/*
 * VLs of the ways round, per (switch, SL, in port, out port): open
 * addressing, key 0 empty.  A pair with no entry takes its class's VL.
 */
struct ovr {
	uint64_t *key;
	uint8_t *vl;
	size_t cap, n;
};

/* What path_sl and sl2vl read; owned by the tables (t->own_vl). */
struct dvl {
	struct rt_vl vl;
	unsigned int top;
	uint32_t nsw;
	uint32_t *lid_sw;	/* LID -> the switch that sends or delivers it */
	uint8_t *is_sw;		/* LID -> a switch's */
	/*
	 * A host's request to a switch LID on the SL of the switch's own
	 * route back, which its answer (on the request's SL) then rides;
	 * else on the SL of its own switch's route there.
	 */
	bool answer_sl;
	uint8_t *sl;		/* nsw x (top + 1) */
	uint8_t *cls;		/* nsw x 256: class of each switch port */
	struct ovr ov;
	unsigned int top_vl;	/* VL after the second global hop: 1 or 2 */
	uint32_t ngroups;
	uint32_t *group;	/* switch -> group, NONE */
	/* nsw x 256: the group at the far end of each switch port, NONE;
	 * kept here since the tables, and so the fabric, go with the sweep */
	uint32_t *far;
	unsigned int nval;	/* Valiant classes in use */
	uint32_t delta[NVAL];	/* per class: I = D + delta */
	/* the requests to switch LIDs and their answers, where the
	 * data's SLs cannot carry them (answers_layer()) */
	struct dfa ans;
};

/* A global cable: from switch u on port, to switch x. */
struct cable {
	uint32_t u, x;
	uint8_t port;
};

struct eng {
	const struct df_info *di;
	struct rt_tables *t;
	struct dvl *dv;
	uint32_t ngroups, nsw;
	uint32_t *group;	/* switch -> group, NONE */
	/* ngroups^2 + 1: cable[] by (from group, to group) */
	uint32_t *cable_off;
	struct cable *cable;
	uint16_t *to_group;	/* nsw x ngroups: a switch's cables to each */
	uint32_t *loff, *lids;	/* LIDs by delivering switch */
	uint32_t *lkey;		/* per entry of lids: the key it is routed by */
	/* per LID: switches that go straight to D (they land a third
	 * group's Valiant route), and those that leave their group on one */
	uint32_t *mark, *dep, stamp;
	uint32_t *via_cable;	/* per group: cable to its intermediate, NONE */
	/*
	 * per group: == stamp when its cables to a switch LID's group may
	 * land two local hops from it (a Dragonfly+ spine reached down a
	 * leaf and up again)
	 */
	uint32_t *turn;
	bool *hosted;		/* per switch: has a host to send from */
	bool *fill;		/* per switch: some switch has no route to it */
	/* per switch: some switch of its group with a global cable is more
	 * than two local hops away (a Dragonfly+ leaf that lost a spine) */
	bool *short_of;
	uint32_t *transit;	/* per switch: a host's route passes it */
	uint32_t *ldist, *lq, ldist_of;	/* local_dist() */
	size_t valiant, around, around3, irregular, holes, pairs;
	/* routes to a switch LID that turn at a leaf after the global hop;
	 * hosts' requests on them placed with their answers; left on SL 0,
	 * then the switch LIDs whose turn routes were taken back */
	size_t turns, turn_cas, turn_left, turn_cut;
	/* own_repair(): switches' own routes moved to another SL, entries
	 * moved to another port, entries left empty */
	size_t own_sl, own_port, own_cut;
	bool answers_off;	/* own_settle() fell back: dvl.answer_sl off */
	bool turns_on, turns_lax, locks;	/* struct df_try's */
	unsigned int val_max;			/* struct df_try's */
	bool layer;				/* struct df_try's */
	size_t answers_moved;	/* answers_place(): requests on new SLs */
	unsigned int answer_sls;	/* answers_layer(): SLs of their own */
	unsigned int slmax;
	unsigned int maxvl;
	/* the LID being routed, when Valiant: its class, I and E */
	int vcls;
	uint32_t val_mid, val_exit;
	size_t vroutes;		/* routes of a Valiant class */
};

static inline struct dvl *dvl_of(const struct rt_tables *t)
{
	return t->vl->ctx;
}

/*
 * The VL of a hop by the classes of its ports: VL 1 after a global hop
 * and after a local one on SL 1; on the ways round VL top after a global
 * hop unless an entry says otherwise.
 */
static inline unsigned int vl_for(unsigned int in, unsigned int sl,
				  unsigned int top)
{
	if (sl >= SL_AROUND)
		return in == CLS_GLOBAL ? top : 0;
	return in == CLS_GLOBAL || (in == CLS_LOCAL && sl == 1);
}

static inline uint64_t ovr_key(uint32_t sw, unsigned int sl,
			       unsigned int in, unsigned int out)
{
	return ((uint64_t)sw << 24 | sl << 16 | in << 8 | out) + 1;
}

/* A port's class as answers.h names it. */
static inline uint8_t kind(uint8_t c)
{
	return c == CLS_GLOBAL ? DFA_GLOBAL :
	       c == CLS_LOCAL ? DFA_LOCAL : DFA_OTHER;
}

static inline uint8_t cls(const struct eng *e, uint32_t s, unsigned int p)
{
	return e->dv->cls[(size_t)s * 256 + p];
}

#define MAX_HOPS 8

/* A route from one switch to one LID, hop by hop. */
struct route {
	unsigned int hops;
	uint32_t sw[MAX_HOPS];
	uint8_t in[MAX_HOPS], out[MAX_HOPS];	/* ports; in 0 from a host */
	uint8_t cls[MAX_HOPS];			/* class of the out port */
};

/* vl.c: path_sl, sl2vl and release of the tables' struct dvl. */
uint8_t dfv_path_sl(const struct rt_tables *t, unsigned int slid,
		    unsigned int dlid);
uint8_t dfv_sl2vl(const struct rt_tables *t, uint32_t sw,
		  unsigned int in, unsigned int out, unsigned int sl);
void dfv_release(struct rt_vl *vl);
/* The VL stored for k, or -1. */
int dfv_ovr_get(const struct ovr *o, uint64_t k);
/* 0 or -ENOMEM. */
int dfv_ovr_put(struct ovr *o, uint64_t k, uint8_t vl);
/* *to, a copy of o, to put back; empty when it fails (-ENOMEM). */
int dfv_ovr_copy(struct ovr *to, const struct ovr *o);
/* The VL of a hop from in to out of switch sw on SL sl. */
uint8_t dfv_hop_vl(const struct dvl *dv, uint32_t sw, unsigned int in,
		   unsigned int out, unsigned int sl);

/* place.c: the walk of a route and the SLs of the ways round. */
uint32_t dfp_peer_sw(const struct eng *e, uint32_t s, unsigned int p);
int dfp_trace(const struct eng *e, uint32_t src, unsigned int lid,
	      uint32_t T, struct route *r);
unsigned int dfp_around_vl(const struct route *r, unsigned int i,
			   unsigned int top);
unsigned int dfp_sl_end(const struct eng *e);
int dfp_place_routes(struct eng *e, const struct route *const *rs,
		     unsigned int n, unsigned int top, unsigned int end,
		     unsigned int *slp);
int dfp_pair_place(struct eng *e, const struct route *r,
		   const struct route *a, unsigned int s, unsigned int top,
		   unsigned int *slp);
int dfp_place_around(struct eng *e, const struct route *r,
		     unsigned int top, unsigned int *slp);
int dfp_lock_all(struct eng *e);

/* check.c: the SL and VL tables handed to t; the check may refuse them. */
int dfc_finish(struct eng *e, struct rt_tables *t, char *detail,
	       size_t len);

#endif
