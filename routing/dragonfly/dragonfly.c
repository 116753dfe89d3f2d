// SPDX-License-Identifier: MIT
/*
 * Dragonfly routing.  A minimal route is local, global, local; the VL is
 * raised when a packet arrives on a global cable, so VL 0 carries hops
 * before the global one and VL 1 those after.  Routes with two global
 * hops through a switch of a third group cabled to both ends (an LMC
 * LID's Valiant route, or a way round a failed global cable) go local,
 * global, global, local: on VL 1 a global hop then leads only to a local
 * one and a local one only to a host, so two VLs carry them too.  Two
 * local hops alone (leaf, spine, leaf in Dragonfly+, or round a failed
 * local cable) get SL 1, which puts the second on VL 1.
 *
 * Where no such third-group switch exists the way round takes a local
 * hop inside the third group: local, global, local, global, local on
 * SL 2 or above, VL 0 up to the first global hop, VL 1 up to the second,
 * VL 2 after it.  A port pair's class cannot tell the middle local hop
 * from the last, so those SLs carry per-port-pair entries, and a route
 * whose entries clash with another's takes the next SL.
 *
 * An LMC LID of a host in group D goes through one intermediate group,
 * I = D + delta (group numbers modulo g), for a delta per Valiant class
 * (SL_VAL + class): every other group sends it to I, I and D route it
 * minimally, so every switch has one next hop whatever the source.  Its
 * hops take VL 0 up to the first global one, VL 1 up to the second and
 * VL 2 after it; a switch of group X tells them apart by the far group
 * of the port: a global cable from X + delta is the second hop, a local
 * one heading out to X - delta is I's.  Group E = I + delta would be
 * read wrongly on both counts, so it keeps the minimal route.
 *
 * A Dragonfly+ leaf that lost its cable to a spine is not reached
 * through that spine: no global cable landing there is picked for it.
 * The spine itself reaches it through another leaf and spine (three
 * local hops), for management traffic only; two leaves that lost their
 * common spines go up, down and up (SL 1, checked).  Sources on the
 * leaf that need a cable of that spine (minimal, Valiant or a way
 * round) leave through another spine with a cable to the same group,
 * else go up another spine, down another leaf and up to it, all on VL 0
 * before the global hop: off the pattern, so the dependency check
 * clears them.
 *
 * The switches' own packets ride the data VLs too.  Off the intact
 * pattern their routes are checked with the data's, and those that close
 * a credit loop move to another SL or neighbour, else lose their entry
 * (own_repair()); the hosts' routes stay as they are.
 *
 * A Dragonfly+ spine's LID, two local hops from where a group's global
 * cable lands, is reached down a leaf and up (a turn route, on VL 1
 * after the global hop), on a way round's SL whose entries say so; a
 * host's request there shares its SL with the spine's answer, both
 * placed together (turns_place()).
 *
 * Where the requests and answers on the data's SLs still close a credit
 * loop, they go on SLs the data leaves free and VLs above the data's
 * (answers_layer(), answers.c), with half the Valiant classes where no
 * SL is free.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../topology/dflyrec.h"
#include "../cdg.h"
#include "answers.h"
#include "dragonfly.h"
#include "../jobplan.h"
#include "../verify.h"

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

static struct dvl *dvl_of(const struct rt_tables *t)
{
	return t->vl->ctx;
}

static uint8_t df_path_sl(const struct rt_tables *t, unsigned int slid,
			  unsigned int dlid)
{
	const struct dvl *dv = dvl_of(t);
	uint32_t s;

	if (slid > dv->top || dlid > dv->top)
		return 0;
	s = dv->lid_sw[slid];
	if (s != NONE && dv->lid_sw[dlid] != NONE && dv->is_sw[dlid] &&
	    !dv->is_sw[slid]) {
		uint8_t q = dfa_sl(&dv->ans, slid, dv->lid_sw[dlid]);

		if (q != DFA_NONE)
			return q;
	}
	/* a host's request to a switch: the SL the answer comes back on */
	if (dv->answer_sl && s != NONE && dv->lid_sw[dlid] != NONE &&
	    dv->is_sw[dlid] && !dv->is_sw[slid])
		return dv->sl[(size_t)dv->lid_sw[dlid] * (dv->top + 1) + slid];
	return s == NONE ? 0 : dv->sl[(size_t)s * (dv->top + 1) + dlid];
}

/*
 * The VL of a hop by the classes of its ports: VL 1 after a global hop
 * and after a local one on SL 1; on the ways round VL top after a global
 * hop unless an entry says otherwise.
 */
static unsigned int vl_for(unsigned int in, unsigned int sl,
			   unsigned int top)
{
	if (sl >= SL_AROUND)
		return in == CLS_GLOBAL ? top : 0;
	return in == CLS_GLOBAL || (in == CLS_LOCAL && sl == 1);
}

static uint64_t ovr_key(uint32_t sw, unsigned int sl, unsigned int in,
			unsigned int out)
{
	return ((uint64_t)sw << 24 | sl << 16 | in << 8 | out) + 1;
}

/* The slot holding k, or the empty one where it would go. */
static size_t ovr_slot(const struct ovr *o, uint64_t k)
{
	size_t i = (k * 0x9e3779b97f4a7c15ull) & (o->cap - 1);

	while (o->key[i] && o->key[i] != k)
		i = (i + 1) & (o->cap - 1);
	return i;
}

/* The VL stored for k, or -1. */
static int ovr_get(const struct ovr *o, uint64_t k)
{
	size_t i;

	if (!o->cap)
		return -1;
	i = ovr_slot(o, k);
	return o->key[i] ? o->vl[i] : -1;
}

static int ovr_grow(struct ovr *o)
{
	struct ovr n = { .cap = o->cap ? 2 * o->cap : 1024 };
	size_t i, j;

	n.key = calloc(n.cap, sizeof(*n.key));
	n.vl = malloc(n.cap);
	if (!n.key || !n.vl) {
		free(n.key);
		free(n.vl);
		return -ENOMEM;
	}
	for (i = 0; i < o->cap; i++)
		if (o->key[i]) {
			j = ovr_slot(&n, o->key[i]);
			n.key[j] = o->key[i];
			n.vl[j] = o->vl[i];
			n.n++;
		}
	free(o->key);
	free(o->vl);
	*o = n;
	return 0;
}

/* *to, a copy of o, to put back; empty when it fails. */
static int ovr_copy(struct ovr *to, const struct ovr *o)
{
	*to = (struct ovr){ .cap = o->cap, .n = o->n };
	if (!o->cap)
		return 0;
	to->key = malloc(o->cap * sizeof(*to->key));
	to->vl = malloc(o->cap);
	if (!to->key || !to->vl) {
		free(to->key);
		free(to->vl);
		/* the callers free *to on their way out */
		*to = (struct ovr){ 0 };
		return -ENOMEM;
	}
	memcpy(to->key, o->key, o->cap * sizeof(*to->key));
	memcpy(to->vl, o->vl, o->cap);
	return 0;
}

static int ovr_put(struct ovr *o, uint64_t k, uint8_t vl)
{
	size_t i;
	int ret;

	if (2 * (o->n + 1) > o->cap) {
		ret = ovr_grow(o);
		if (ret)
			return ret;
	}
	i = ovr_slot(o, k);
	if (!o->key[i]) {
		o->key[i] = k;
		o->n++;
	}
	o->vl[i] = vl;
	return 0;
}

/* The VL of a hop on Valiant class c's SL (see the top of the file). */
static uint8_t val_vl(const struct dvl *dv, uint32_t sw, unsigned int in,
		      unsigned int out, unsigned int c)
{
	const uint8_t *k = dv->cls + (size_t)sw * 256;
	const uint32_t *far = dv->far + (size_t)sw * 256;
	uint32_t X = dv->group[sw], d = dv->delta[c];

	if (X == NONE || c >= dv->nval)
		return 0;
	if (k[in] == CLS_GLOBAL)
		return far[in] == (X + d) % dv->ngroups ? 2 : 1;
	if (k[in] != CLS_LOCAL)
		return 0;
	if (k[out] == CLS_CA)
		return 2;
	if (k[out] == CLS_GLOBAL)
		return far[out] == (X + dv->ngroups - d) % dv->ngroups;
	return 1;
}

/* The VL of a hop from in to out of switch sw on SL sl. */
static uint8_t hop_vl(const struct dvl *dv, uint32_t sw, unsigned int in,
		      unsigned int out, unsigned int sl)
{
	int vl;

	if (sl >= SL_AROUND) {
		vl = ovr_get(&dv->ov, ovr_key(sw, sl, in, out));
		if (vl >= 0)
			return vl;
	}
	if (sl >= SL_VAL)
		return val_vl(dv, sw, in, out, sl - SL_VAL);
	return vl_for(dv->cls[(size_t)sw * 256 + in], sl, dv->top_vl);
}

/* A port's class as answers.h names it. */
static uint8_t kind(uint8_t c)
{
	return c == CLS_GLOBAL ? DFA_GLOBAL :
	       c == CLS_LOCAL ? DFA_LOCAL : DFA_OTHER;
}

static uint8_t df_sl2vl(const struct rt_tables *t, uint32_t sw,
			unsigned int in, unsigned int out, unsigned int sl)
{
	const struct dvl *dv = dvl_of(t);
	uint8_t vl = dfa_vl(&dv->ans, sl);
	const uint8_t *k;

	if (sw >= dv->nsw || in > 255 || out > 255 || sl > SL_MAX)
		/* on an answers' SL the CA ports too send on its VL */
		return vl != DFA_NONE ? vl : 0;
	if (vl == DFA_NONE)
		return hop_vl(dv, sw, in, out, sl);
	k = dv->cls + (size_t)sw * 256;
	return vl + (dv->ans.split[sl] &&
		     dfa_upper(&dv->ans, kind(k[in]), kind(k[out])));
}

static void dvl_release(struct rt_vl *vl)
{
	struct dvl *dv = vl->ctx;

	free(dv->group);
	free(dv->far);
	free(dv->lid_sw);
	free(dv->is_sw);
	free(dv->sl);
	free(dv->cls);
	free(dv->ov.key);
	free(dv->ov.vl);
	dfa_release(&dv->ans);
	free(dv);
}

static uint8_t cls(const struct eng *e, uint32_t s, unsigned int p)
{
	return e->dv->cls[(size_t)s * 256 + p];
}

/* The peer switch on port p of s, NONE for hosts and free ports. */
static uint32_t peer_sw(const struct eng *e, uint32_t s, unsigned int p)
{
	const struct fabric *f = e->t->fab;
	const struct fab_port *fp = fab_port(f, e->t->sw_node[s], p);

	if (fp->peer == FAB_NONE || !fab_is_sw(f, fp->peer))
		return NONE;
	return e->t->node_sw[fp->peer];
}

/* The key-th of s's cables to w (of class c), RT_NO_PATH when none. */
static uint8_t port_to(const struct eng *e, uint32_t s, uint32_t w,
		       unsigned int c, unsigned int key)
{
	unsigned int p, n = 0, np = e->t->fab->nodes[e->t->sw_node[s]].nports;
	uint8_t first[FAB_MAX_PORTS + 1];

	for (p = 1; p <= np; p++)
		if (cls(e, s, p) == c && peer_sw(e, s, p) == w)
			first[n++] = p;
	return n ? first[key % n] : RT_NO_PATH;
}

static bool joined(const struct eng *e, uint32_t s, uint32_t w)
{
	return s == w || port_to(e, s, w, CLS_LOCAL, 0) != RT_NO_PATH;
}

/*
 * Inside one group: the local cable to T, else through a switch cabled
 * to both (the leaf-spine-leaf of Dragonfly+, or round a failed cable).
 */
static uint8_t local_next(const struct eng *e, uint32_t c, uint32_t T,
			  unsigned int key)
{
	const struct fabric *f = e->t->fab;
	unsigned int p, np = f->nodes[e->t->sw_node[c]].nports, n = 0, i;
	uint8_t cand[FAB_MAX_PORTS + 1], out;
	uint32_t w;

	out = port_to(e, c, T, CLS_LOCAL, key);
	if (out != RT_NO_PATH)
		return out;
	for (p = 1; p <= np; p++) {
		if (cls(e, c, p) != CLS_LOCAL)
			continue;
		w = peer_sw(e, c, p);
		for (i = 0; i < n && peer_sw(e, c, cand[i]) != w; i++)
			;
		if (i == n && joined(e, w, T))
			cand[n++] = p;
	}
	return n ? cand[key % n] : RT_NO_PATH;
}

/* s's way to the switch u of its group: a cable, or two local hops. */
static uint8_t to_switch(struct eng *e, uint32_t s, uint32_t u,
			 unsigned int key)
{
	return s == u ? RT_NO_PATH : local_next(e, s, u, key);
}

/*
 * Local hops from every switch to T inside T's group, breadth first,
 * into e->ldist (NONE: no way there); kept while T is the same.
 */
static void local_dist(struct eng *e, uint32_t T)
{
	uint32_t *q = e->lq, nq = 0, i, s, w;
	unsigned int p, np;

	if (e->ldist_of == T)
		return;
	e->ldist_of = T;
	for (s = 0; s < e->nsw; s++)
		e->ldist[s] = NONE;
	e->ldist[T] = 0;
	q[nq++] = T;
	for (i = 0; i < nq; i++) {
		s = q[i];
		np = e->t->fab->nodes[e->t->sw_node[s]].nports;
		for (p = 1; p <= np; p++) {
			w = cls(e, s, p) == CLS_LOCAL ? peer_sw(e, s, p) : NONE;
			if (w == NONE || e->ldist[w] != NONE)
				continue;
			e->ldist[w] = e->ldist[s] + 1;
			q[nq++] = w;
		}
	}
}

/*
 * c's way to T in their group: local_next(), else a local hop one step
 * nearer T (a Dragonfly+ spine that lost its cable to leaf T goes down
 * to another leaf, which goes up to a spine of T's; two leaves with no
 * spine in common go up, down and up).  Each hop is one nearer T, so no
 * route comes back.
 */
static uint8_t to_dest(struct eng *e, uint32_t c, uint32_t T,
		       unsigned int key)
{
	const struct fabric *f = e->t->fab;
	unsigned int p, np = f->nodes[e->t->sw_node[c]].nports, n = 0;
	uint8_t cand[FAB_MAX_PORTS + 1], out;
	uint32_t w;

	out = local_next(e, c, T, key);
	if (out != RT_NO_PATH)
		return out;
	local_dist(e, T);
	if (e->ldist[c] == NONE)
		return RT_NO_PATH;
	for (p = 1; p <= np; p++) {
		w = cls(e, c, p) == CLS_LOCAL ? peer_sw(e, c, p) : NONE;
		if (w != NONE && e->ldist[w] != NONE &&
		    e->ldist[w] + 1 == e->ldist[c])
			cand[n++] = p;
	}
	return n ? cand[key % n] : RT_NO_PATH;
}

static const struct cable *cables(const struct eng *e, uint32_t G,
				  uint32_t D, uint32_t *n)
{
	size_t k = (size_t)G * e->ngroups + D;

	*n = e->cable_off[k + 1] - e->cable_off[k];
	return e->cable + e->cable_off[k];
}

/*
 * Whether cable cb may carry a route from c (NONE: from anywhere in its
 * group) to T (NONE: into the far group only): its far end reaches T in
 * one local hop, and c reaches its near end in at most two (not so from
 * a Dragonfly+ leaf that lost its cable to that spine).
 */
static bool usable(const struct eng *e, const struct cable *cb, uint32_t c,
		   uint32_t T)
{
	return (T == NONE || joined(e, cb->x, T) ||
		(e->turn[e->group[cb->u]] == e->stamp &&
		 local_next(e, cb->x, T, 0) != RT_NO_PATH)) &&
	       (c == NONE || cb->u == c || !e->short_of[c] ||
		local_next(e, c, cb->u, 0) != RT_NO_PATH);
}

/*
 * The cable from group G to T's group for key: c's own when it has one
 * (then the route is minimal from c), else the key-th of G's that are
 * usable().  NULL when there is none.
 */
static const struct cable *pick(const struct eng *e, uint32_t G,
				uint32_t c, uint32_t T, unsigned int key)
{
	uint32_t n, i, own = 0, ok = 0;
	const struct cable *cb = cables(e, G, e->group[T], &n);

	for (i = 0; i < n; i++)
		if (usable(e, &cb[i], c, T)) {
			ok++;
			own += cb[i].u == c;
		}
	if (!ok)
		return NULL;
	key %= own ? own : ok;
	for (i = 0; i < n; i++)
		if (usable(e, &cb[i], c, T) && (!own || cb[i].u == c) &&
		    !key--)
			return &cb[i];
	return NULL;
}

/*
 * How a cable to a third group may carry a route: its far end has a
 * cable of its own to T's group that lands next to T (VIA_DIRECT), and
 * strictly also neither leaves from a switch that lands another group's
 * route (that one goes straight to T) nor lands on one that leaves its
 * own group (that one would not); or the third group has any minimal
 * route to T, the far end taking a local hop to it (VIA_LOCAL).
 */
enum via_kind { VIA_STRICT, VIA_DIRECT, VIA_LOCAL };

static bool via_ok(const struct eng *e, const struct cable *cb, uint32_t T,
		   enum via_kind k)
{
	const struct cable *on;

	if (k == VIA_LOCAL)
		return pick(e, e->group[cb->x], NONE, T, 0) != NULL;
	if (!e->to_group[(size_t)cb->x * e->ngroups + e->group[T]])
		return false;
	if (k == VIA_STRICT && (e->mark[cb->u] == e->stamp ||
				e->dep[cb->x] == e->stamp))
		return false;
	on = pick(e, e->group[cb->x], cb->x, T, 0);
	return on && on->u == cb->x;
}

/*
 * Intermediate for group G towards T: the key-th cable via_ok() takes
 * from G to a third group.  Index into e->cable or NONE.
 */
static uint32_t pick_via(const struct eng *e, uint32_t G, uint32_t T,
			 unsigned int key, enum via_kind k)
{
	uint32_t D = e->group[T], I, n, i, cnt = 0, pass;
	const struct cable *cb;

	for (pass = 0; pass < 2; pass++) {
		if (pass == 1) {
			if (!cnt)
				return NONE;
			key %= cnt;
		}
		for (I = 0; I < e->ngroups; I++) {
			if (I == G || I == D)
				continue;
			cb = cables(e, G, I, &n);
			for (i = 0; i < n; i++) {
				if (!via_ok(e, &cb[i], T, k))
					continue;
				if (pass == 0)
					cnt++;
				else if (!key--)
					return (uint32_t)(cb - e->cable) + i;
			}
		}
	}
	return NONE;
}

/*
 * Has s a cable to group H usable() for T, of its own or any?  With want,
 * only that cable counts.
 */
static bool leaves_to(const struct eng *e, uint32_t s, uint32_t H,
		      uint32_t T, const struct cable *want, bool own)
{
	uint32_t n, i;
	const struct cable *cb = cables(e, e->group[s], H, &n);

	for (i = 0; i < n; i++)
		if ((!want || &cb[i] == want) && usable(e, &cb[i], s, T) &&
		    (!own || cb[i].u == s))
			return true;
	return false;
}

/*
 * From c, which reaches none of its group's cables to group H usable()
 * for T (or not cable want), as a Dragonfly+ leaf that lost its cable to
 * the spine that has them: a local hop to a switch that does, one with
 * such a cable of its own, else one a local hop from it.  The route then
 * goes down and up again before its global hop, off the pattern, for the
 * dependency check.
 */
static uint8_t stranded_hop(const struct eng *e, uint32_t c, uint32_t H,
			    uint32_t T, const struct cable *want,
			    unsigned int key)
{
	unsigned int p, np = e->t->fab->nodes[e->t->sw_node[c]].nports;
	unsigned int n = 0, pass;
	uint8_t cand[FAB_MAX_PORTS + 1];

	for (pass = 0; pass < 2 && !n; pass++)
		for (p = 1; p <= np; p++)
			if (cls(e, c, p) == CLS_LOCAL &&
			    leaves_to(e, peer_sw(e, c, p), H, T, want, !pass))
				cand[n++] = p;
	return n ? cand[key % n] : RT_NO_PATH;
}

/* Minimal next hop from c (not in T's group) towards T. */
static uint8_t minimal(struct eng *e, uint32_t c, uint32_t T,
		       unsigned int key)
{
	const struct cable *cb = pick(e, e->group[c], c, T, key);

	if (!cb)
		return pick(e, e->group[c], NONE, T, 0) ?
			stranded_hop(e, c, e->group[T], T, NULL, key) :
			RT_NO_PATH;
	if (cb->u == c)
		return cb->port;
	return to_switch(e, c, cb->u, key);
}

/*
 * Next hop from c for T's LID of LMC index li: minimal for li 0 when
 * the groups are cabled, else through the group's intermediate.
 */
static uint8_t next_hop(struct eng *e, uint32_t c, uint32_t T,
			unsigned int li, unsigned int key)
{
	uint32_t G = e->group[c], v;
	uint8_t out;

	if (G == e->group[T])
		return to_dest(e, c, T, key);
	if (e->mark[c] == e->stamp)
		return minimal(e, c, T, key);
	if (!li) {
		out = minimal(e, c, T, key);
		if (out != RT_NO_PATH)
			return out;
	}
	v = e->via_cable[G];
	if (v == NONE)
		return li ? minimal(e, c, T, key) : RT_NO_PATH;
	if (e->cable[v].u == c)
		return e->cable[v].port;
	out = to_switch(e, c, e->cable[v].u, key);
	if (out == RT_NO_PATH)
		out = stranded_hop(e, c, e->group[e->cable[v].x], NONE,
				   &e->cable[v], key);
	return out != RT_NO_PATH || !li ? out : minimal(e, c, T, key);
}

/*
 * Mark the switches of c's minimal route to T up to its global hop, so
 * that they all go minimal: one that took its own group's Valiant route
 * instead could send the packet back.
 */
static void mark_minimal(struct eng *e, uint32_t c, uint32_t T,
			 unsigned int key)
{
	unsigned int hops;
	uint8_t out;

	for (hops = 0; c != NONE && hops < MAX_LOCAL; hops++) {
		e->mark[c] = e->stamp;
		out = minimal(e, c, T, key);
		if (out == RT_NO_PATH || cls(e, c, out) == CLS_GLOBAL)
			return;
		c = peer_sw(e, c, out);
	}
}

/*
 * Intermediates of every group for one DLID: for its LMC LIDs, and for
 * the base LID where no cable of the group lands next to T.  A group
 * whose routes must go round takes a conflicting intermediate, then one
 * with a local hop inside, rather than none; for an LMC LID of a group
 * with a minimal route only a strict one will do.  Switch LIDs take no
 * local hop there: what has no route gets a management one, or in
 * Dragonfly+, where the far end of a cable is two local hops from a
 * spine, a turn route (turns_place()).  The far ends go minimal from
 * there.
 */
static void choose_vias(struct eng *e, uint32_t T, unsigned int lid,
			unsigned int li, unsigned int key)
{
	uint32_t G, D = e->group[T], v;
	bool around;

	e->stamp++;
	for (G = 0; G < e->ngroups; G++) {
		e->via_cable[G] = NONE;
		if (G == D)
			continue;
		around = !pick(e, G, NONE, T, 0);
		if (!li && !around)
			continue;
		v = pick_via(e, G, T, key + G, VIA_STRICT);
		if (v == NONE && around)
			v = pick_via(e, G, T, key + G, VIA_DIRECT);
		if (v == NONE && around &&
		    !fab_is_sw(e->t->fab, e->t->lid_node[lid]))
			v = pick_via(e, G, T, key + G, VIA_LOCAL);
		e->via_cable[G] = v;
		if (v == NONE)
			continue;
		e->dep[e->cable[v].u] = e->stamp;
		mark_minimal(e, e->cable[v].x, T, key);
	}
	/* after the loop: no intermediate above may lead into a turn */
	for (G = 0; e->turns_on && e->di->plus && G < e->ngroups; G++)
		if (G != D && e->via_cable[G] == NONE &&
		    fab_is_sw(e->t->fab, e->t->lid_node[lid]) &&
		    !pick(e, G, NONE, T, 0))
			e->turn[G] = e->stamp;
}

/*
 * Set up T's LMC LID of index li as a Valiant one: its class from key,
 * its groups I and E, which must reach T minimally, and every other group
 * cabled to I or reaching T minimally itself.  False (e->vcls -1) when
 * the LID is routed the other way.
 */
static bool valiant_lid(struct eng *e, uint32_t T, unsigned int li,
			unsigned int key)
{
	uint32_t D = e->group[T], G, I, E, n;
	unsigned int c;

	e->vcls = -1;
	if (!li || !e->dv->nval)
		return false;
	c = (key + li) % e->dv->nval;
	I = (D + e->dv->delta[c]) % e->ngroups;
	E = (I + e->dv->delta[c]) % e->ngroups;
	if (!pick(e, I, NONE, T, 0) || !pick(e, E, NONE, T, 0))
		return false;
	for (G = 0; G < e->ngroups; G++) {
		if (G == D || G == I || G == E)
			continue;
		cables(e, G, I, &n);
		if (!n && !pick(e, G, NONE, T, 0))
			return false;
	}
	e->vcls = (int)c;
	e->val_mid = I;
	e->val_exit = E;
	return true;
}

/*
 * Next hop from c for a Valiant LID: minimal in D, I and E and from a
 * group with no cable to I; else c's own cable to I, or a local hop to
 * the switch of the key-th.
 */
static uint8_t valiant_hop(struct eng *e, uint32_t c, uint32_t T,
			   unsigned int key)
{
	uint32_t G = e->group[c], n, i, own = 0, ok = 0;
	unsigned int k = key;
	const struct cable *cb;

	if (G == e->group[T])
		return to_dest(e, c, T, key);
	cb = cables(e, G, e->val_mid, &n);
	if (G == e->val_mid || G == e->val_exit || !n)
		return minimal(e, c, T, key);
	for (i = 0; i < n; i++) {
		own += cb[i].u == c;
		ok += usable(e, &cb[i], c, NONE);
	}
	if (!ok)
		return stranded_hop(e, c, e->val_mid, NONE, NULL, key);
	k %= own ? own : ok;
	for (i = 0; i < n; i++) {
		if (own ? cb[i].u != c : !usable(e, &cb[i], c, NONE))
			continue;
		if (!k--)
			break;
	}
	return own ? cb[i].port : to_switch(e, c, cb[i].u, key);
}

/* LMC index of lid: its offset from the base LID of its port. */
static unsigned int lmc_index(const struct rt_tables *t, unsigned int lid)
{
	uint32_t n = t->lid_node[lid];
	const struct fab_port *fp;

	if (n == FAB_NONE || fab_is_sw(t->fab, n))
		return 0;
	fp = fab_port(t->fab, n, t->lid_port[lid]);
	return lid - fp->lid;
}

#define MAX_HOPS 8

/* A route from one switch to one LID, hop by hop. */
struct route {
	unsigned int hops;
	uint32_t sw[MAX_HOPS];
	uint8_t in[MAX_HOPS], out[MAX_HOPS];	/* ports; in 0 from a host */
	uint8_t cls[MAX_HOPS];			/* class of the out port */
};

/* -EHOSTUNREACH at a hole, -ELOOP when it does not arrive in MAX_HOPS. */
static int trace(const struct eng *e, uint32_t src, unsigned int lid,
		 uint32_t T, struct route *r)
{
	const struct fabric *f = e->t->fab;
	unsigned int p, in = 0;
	uint32_t s = src;

	for (r->hops = 0; s != T; r->hops++) {
		p = rt_lft(e->t, s)[lid];
		if (p == RT_NO_PATH)
			return -EHOSTUNREACH;
		if (r->hops == MAX_HOPS)
			return -ELOOP;
		r->sw[r->hops] = s;
		r->in[r->hops] = in;
		r->out[r->hops] = p;
		r->cls[r->hops] = cls(e, s, p);
		in = fab_port(f, e->t->sw_node[s], p)->peer_port;
		s = peer_sw(e, s, p);
		if (s == NONE)
			return -ELOOP;
	}
	return 0;
}

/*
 * The route's shape: local hops alone (SL 1 for two), local, one or two
 * global, local (SL 0), or local, global, local, global, local (a way
 * round, SL_AROUND).  *regular is false for anything else: its SL is
 * still the one its global hops ask for, and the dependency check must
 * clear it.
 */
static unsigned int shape(const struct route *r, bool *regular)
{
	const uint8_t *c = r->cls;
	unsigned int i = 0, g = 0, n = r->hops, first = n, last = 0;

	for (i = 0; i < n; i++)
		if (c[i] == CLS_GLOBAL) {
			g++;
			first = i < first ? i : first;
			last = i;
		}
	if (!g) {
		*regular = n <= 2;
		return n > 1;
	}
	*regular = first <= 1 && last + 2 >= n && g <= 2 &&
		   last - first <= 2;
	return last - first > 1 ? SL_AROUND : 0;
}

/*
 * The VL hop i of a way round needs: 0 up to the first global hop, 1 up
 * to the second, top_vl after it.
 */
static unsigned int around_vl(const struct route *r, unsigned int i,
			      unsigned int top)
{
	unsigned int j, g = 0;

	for (j = 0; j < i; j++)
		g += r->cls[j] == CLS_GLOBAL;
	return g < 2 ? g : top;
}

/* Whether r's entries on SL sl agree with what its hops need. */
static bool fits_around(const struct eng *e, const struct route *r,
			unsigned int top, unsigned int sl)
{
	unsigned int i;
	int have;

	for (i = 0; i < r->hops; i++) {
		if (!r->in[i])
			continue;
		have = ovr_get(&e->dv->ov, ovr_key(r->sw[i], sl, r->in[i],
						   r->out[i]));
		if (have >= 0 && (unsigned int)have != around_vl(r, i, top))
			return false;
	}
	return true;
}

/*
 * The SLs past the last that takes entries: the Valiant classes' take
 * them too while no route rides one (no LMC LID routed through a third
 * group).
 */
static unsigned int sl_end(const struct eng *e)
{
	return e->vroutes ? SL_VAL : SL_MAX + 1;
}

/* The entries of the n routes rs on SL sl, which fits_around() each. */
static int put_routes(struct eng *e, const struct route *const *rs,
		      unsigned int n, unsigned int top, unsigned int sl)
{
	unsigned int i, k;
	int ret;

	for (k = 0; k < n; k++)
		for (i = 0; i < rs[k]->hops; i++) {
			if (!rs[k]->in[i])
				continue;
			ret = ovr_put(&e->dv->ov, ovr_key(rs[k]->sw[i], sl,
							  rs[k]->in[i],
							  rs[k]->out[i]),
				      around_vl(rs[k], i, top));
			if (ret)
				return ret;
		}
	return 0;
}

/*
 * The first SL from SL_AROUND below end on whose entries agree with the
 * needs of the n routes rs, which all ride it, and their entries added
 * to it.  -ERANGE when every SL clashes.
 */
static int place_routes(struct eng *e, const struct route *const *rs,
			unsigned int n, unsigned int top, unsigned int end,
			unsigned int *slp)
{
	unsigned int sl, k;

	for (sl = SL_AROUND; sl < end; sl++) {
		for (k = 0; k < n && fits_around(e, rs[k], top, sl); k++)
			;
		if (k < n)
			continue;
		*slp = sl;
		return put_routes(e, rs, n, top, sl);
	}
	return -ERANGE;
}

/*
 * Whether r rides SL sl on the VLs around_vl() gives it: VL 0 up to its
 * global hop, VL 1 after it.
 */
static bool follows(const struct eng *e, const struct route *r,
		    unsigned int sl, unsigned int top)
{
	unsigned int i;

	for (i = 0; i < r->hops; i++)
		if (r->in[i] && hop_vl(e->dv, r->sw[i], r->in[i], r->out[i],
				       sl) != around_vl(r, i, top))
			return false;
	return true;
}

/*
 * A host's request r to a switch and the switch's answer a, which ride
 * one SL: s, the answer's now, where a follows() it and r does too or
 * can with entries of its own there (what takes entries is fixed by
 * them); else one place_routes() finds for both.  *slp: the SL taken;
 * -ERANGE when none.
 */
static int pair_place(struct eng *e, const struct route *r,
		      const struct route *a, unsigned int s, unsigned int top,
		      unsigned int *slp)
{
	const struct route *rs[2] = { r, a };
	bool ent = s >= SL_AROUND && s < sl_end(e);

	*slp = s;
	/* not past the VLs the routing has (a way round's answer) */
	if (a->hops && around_vl(a, a->hops - 1, top) > e->maxvl)
		return -ERANGE;
	if (follows(e, a, s, top) &&
	    (follows(e, r, s, top) || (ent && fits_around(e, r, top, s))))
		return ent ? put_routes(e, rs, 2, top, s) : 0;
	return place_routes(e, rs, 2, top, sl_end(e), slp);
}

static int place_around(struct eng *e, const struct route *r,
			unsigned int top, unsigned int *slp)
{
	return place_routes(e, &r, 1, top, SL_VAL, slp);
}

/*
 * Whether r is a Valiant route val_vl() reads right: from a group other
 * than I, E and D, at most one local hop, a global one into I, one or
 * two local ones there, the global one into D, at most one local one.
 * Two local hops in I are the pattern only in Dragonfly+; round a failed
 * cable of a plain dragonfly *regular is false, for the dependency check.
 */
static bool valiant_route(const struct eng *e, const struct route *r,
			  uint32_t T, bool *regular)
{
	unsigned int i, g1 = 0, g2 = 0, n = 0;
	uint32_t G = e->group[r->sw[0]];

	if (e->vcls < 0 || G == e->val_mid || G == e->val_exit ||
	    G == e->group[T])
		return false;
	for (i = 0; i < r->hops; i++)
		if (r->cls[i] == CLS_GLOBAL) {
			if (n++)
				g2 = i;
			else
				g1 = i;
		}
	if (n != 2 || g1 > 1 || g2 - g1 > 3 || r->hops - g2 > 2 ||
	    e->group[r->sw[g1 + 1]] != e->val_mid)
		return false;
	*regular = g2 - g1 < 3 || e->di->plus;
	return true;
}

/*
 * Whether r, to a switch LID, goes down to a leaf and up to it after its
 * one global hop: on SL 0 its turn would take VL 0 after VL 1.
 */
static bool turn_route(const struct eng *e, const struct route *r,
		       unsigned int lid)
{
	unsigned int i, g = 0, at = 0;

	if (!e->dv->is_sw[lid])
		return false;
	for (i = 0; i < r->hops; i++)
		if (r->cls[i] == CLS_GLOBAL) {
			g++;
			at = i;
		}
	return g == 1 && r->hops == at + 3 && r->cls[at + 1] == CLS_LOCAL &&
	       r->cls[at + 2] == CLS_LOCAL;
}

/*
 * Walk src -> lid: its SL and the VLs it rides.  Routes from hosts the
 * scheme does not order by itself are counted in irregular, for the
 * dependency check to clear; routes a switch alone sends on are
 * management traffic.  A hole to a switch LID is left for the management
 * routes; one to a host is counted.
 */
static int walk(struct eng *e, uint32_t src, unsigned int lid, uint32_t T,
		unsigned int li)
{
	unsigned int i, vl, sl, glob = 0;
	struct route r;
	bool regular;
	int ret = trace(e, src, lid, T, &r);

	if (ret == -EHOSTUNREACH) {
		if (fab_is_sw(e->t->fab, e->t->lid_node[lid]))
			e->fill[T] = true;
		else
			e->holes++;
		return 0;
	}
	if (ret)
		return ret;
	if (valiant_route(e, &r, T, &regular)) {
		sl = SL_VAL + e->vcls;
		e->vroutes++;
		e->irregular += !regular;
		/* the host link after the second global hop */
		e->maxvl = 2;
	} else if (turn_route(e, &r, lid)) {
		/* turns_place() gives it an SL */
		sl = 0;
		e->turns++;
	} else {
		sl = shape(&r, &regular);
		if (e->hosted[src] && !regular)
			e->irregular++;
	}
	/*
	 * A switch with no host sends no data: own_routes() gives its own
	 * packets an SL once the hosts' ways round have theirs.
	 */
	if (sl >= SL_AROUND && sl < SL_VAL && !e->hosted[src])
		sl = 0;
	if (sl >= SL_AROUND && sl < SL_VAL) {
		ret = place_around(e, &r, e->dv->top_vl, &sl);
		if (ret)
			return ret;
		e->around3++;
	}
	e->slmax = sl > e->slmax ? sl : e->slmax;
	e->dv->sl[(size_t)src * (e->t->top + 1) + lid] = sl;
	for (i = 0; i < r.hops; i++) {
		glob += r.cls[i] == CLS_GLOBAL;
		vl = sl >= SL_VAL ? 0 :
		     sl >= SL_AROUND ? around_vl(&r, i, e->dv->top_vl) :
		     vl_for(i ? r.cls[i - 1] : CLS_CA, sl, 1);
		e->maxvl = vl > e->maxvl ? vl : e->maxvl;
	}
	if (glob > 1) {
		e->valiant += li > 0;
		e->around += !li;
	}
	return 0;
}

/* Every switch's LFT entry for lid of T (LMC index li) by key. */
static void column(struct eng *e, uint32_t T, unsigned int lid,
		   unsigned int li, unsigned int key)
{
	bool val = valiant_lid(e, T, li, key);
	uint32_t c;

	if (val)
		e->stamp++;	/* no group's turn from the last LID */
	else
		choose_vias(e, T, lid, li, key);
	for (c = 0; c < e->nsw; c++)
		if (c != T && e->group[c] != NONE)
			rt_lft(e->t, c)[lid] = val ?
				valiant_hop(e, c, T, key) :
				next_hop(e, c, T, li, key);
}

/* Whether r's VLs on SL sl never go down. */
static bool rising(const struct eng *e, const struct route *r,
		   unsigned int sl)
{
	unsigned int i, vl, last = 0;

	for (i = 0; i < r->hops; i++) {
		vl = hop_vl(e->dv, r->sw[i], r->in[i], r->out[i], sl);
		if (vl < last)
			return false;
		last = vl;
	}
	return true;
}

/*
 * The own routes of the switches without hosts to lid of T, which ride
 * the data VLs.  One that a host's route passes sends with that route's
 * SL: from there on its packets take the data's VLs, and their first hop,
 * on VL 0 from port 0, leads where the data's does or to a higher VL, so
 * they add no dependency within a VL.  Of the others, first (!late) those
 * with two global hops take a way round's SL whose last hops are on the
 * highest VL, where data only descends to hosts; none is left when every
 * SL clashes.  Then (late, once every way round's VLs are known) one
 * going down to a leaf and up again with no global hop (a spine to a leaf
 * that lost its cable) has no entry, and the rest take the SL of the
 * first switch on their way that a host sends from or passes, else their
 * own, else 0 or 1, whichever keeps their VLs from going down.  Hosts'
 * routes pass none of these entries, so they do not change.
 */
static int own_routes(struct eng *e, uint32_t T, unsigned int lid,
		      bool late)
{
	uint8_t *sl = e->dv->sl + lid;
	size_t w = e->t->top + 1;
	unsigned int i, g, q, top = e->maxvl > e->dv->top_vl ?
				    e->maxvl : e->dv->top_vl;
	struct route r;
	uint32_t c, s;
	int ret;

	e->stamp++;
	for (c = 0; c < e->nsw; c++) {
		if (!e->hosted[c] || c == T || e->group[c] == NONE ||
		    trace(e, c, lid, T, &r))
			continue;
		for (i = 1; i < r.hops; i++) {
			s = r.sw[i];
			if (e->hosted[s] || e->transit[s] == e->stamp)
				continue;
			e->transit[s] = e->stamp;
			sl[(size_t)s * w] = sl[(size_t)c * w];
		}
	}
	for (c = 0; c < e->nsw; c++) {
		if (e->hosted[c] || c == T || e->group[c] == NONE ||
		    e->transit[c] == e->stamp || trace(e, c, lid, T, &r))
			continue;
		for (g = 0, i = 0; i < r.hops; i++)
			g += r.cls[i] == CLS_GLOBAL;
		if (g > 1 && !late) {
			ret = place_around(e, &r, top, &q);
			if (ret && ret != -ERANGE)
				return ret;
			if (ret)
				rt_lft(e->t, c)[lid] = RT_NO_PATH;
			else
				sl[(size_t)c * w] = q;
		}
		if (g > 1 || !late)
			continue;
		if (!g && r.hops > 2) {
			rt_lft(e->t, c)[lid] = RT_NO_PATH;
			continue;
		}
		for (i = 1; i < r.hops; i++) {
			s = r.sw[i];
			if (e->hosted[s] || e->transit[s] == e->stamp)
				break;
		}
		if (i < r.hops && rising(e, &r, sl[(size_t)s * w]))
			sl[(size_t)c * w] = sl[(size_t)s * w];
		else if (!rising(e, &r, sl[(size_t)c * w]))
			sl[(size_t)c * w] = rising(e, &r, 0) ? 0 : 1;
	}
	return 0;
}

/* own_routes() for every LID, in its two passes. */
static int own_all(struct eng *e)
{
	unsigned int late;
	uint32_t T, j;
	int ret = 0;

	for (late = 0; late < 2; late++)
		for (T = 0; T < e->nsw; T++)
			for (j = e->loff[T]; e->group[T] != NONE &&
			     j < e->loff[T + 1]; j++) {
				ret = own_routes(e, T, e->lids[j], late);
				if (ret)
					return ret;
			}
	return 0;
}

/*
 * The routes to switch LID lid of T that turn at a leaf after their
 * global hop (turn_route()) need VL 1 on the turn, which the port pair's
 * class puts on VL 0: each takes a way round's SL whose entries say so.
 * A host's request to lid rides the SL of the answer's route back
 * (df_path_sl()), so each host's request and T's answer to it take one
 * SL together: on it the answer's own turn (down from T, up to the spine
 * with the cable home) keeps VL 0, and no port pair carries both turns,
 * which on VL 1 would let answers climb to a global cable there and
 * close a loop.  A route no SL takes stays on SL 0 (turn_left) for the
 * check to judge.
 */
static int turns_place(struct eng *e, uint32_t T, unsigned int lid,
		       bool lmc)
{
	size_t w = e->t->top + 1;
	unsigned int q, ca, top = e->maxvl > e->dv->top_vl ? e->maxvl :
						e->dv->top_vl;
	const struct route *rs[2];
	struct route r, a;
	uint32_t c, j;
	int ret;

	rs[0] = &r;
	rs[1] = &a;
	for (c = 0; c < e->nsw; c++) {
		if (c == T || e->group[c] == NONE || trace(e, c, lid, T, &r) ||
		    !turn_route(e, &r, lid))
			continue;
		/*
		 * lax, the hosts' requests may ride it with their answers on
		 * the hops without entries, on the Valiant classes' VLs there
		 */
		ret = lmc ? 0 : place_routes(e, rs, 1, top, e->turns_lax ?
					     SL_VAL : sl_end(e), &q);
		if (ret && ret != -ERANGE)
			return ret;
		if (ret) {
			e->turn_left++;
			continue;
		}
		if (!lmc)
			e->dv->sl[(size_t)c * w + lid] = q;
		/* a leaf's SL to a CA LID is its hosts' too */
		for (j = e->loff[c]; !e->hosted[T] && j < e->loff[c + 1]; j++) {
			ca = e->lids[j];
			if (!rt_lid_is_ca(e->t, ca) ||
			    !lmc_index(e->t, ca) != !lmc ||
			    trace(e, T, ca, c, &a))
				continue;
			ret = pair_place(e, &r, &a, e->dv->sl[(size_t)T * w + ca],
					 top, &q);
			if (ret && ret != -ERANGE)
				return ret;
			e->turn_left += ret != 0;
			e->turn_cas += !ret;
			if (!ret)
				e->dv->sl[(size_t)T * w + ca] = q;
		}
	}
	return 0;
}

/*
 * Take back the turn routes to lid of T: their entries left empty and
 * their SLs 0, as before them, for the management routes to fill where
 * they can.
 */
static void turns_cut(struct eng *e, uint32_t T, unsigned int lid)
{
	struct route r;
	uint32_t c;

	e->stamp++;
	for (c = 0; c < e->nsw; c++)
		if (c != T && e->group[c] != NONE && !trace(e, c, lid, T, &r) &&
		    turn_route(e, &r, lid))
			e->transit[c] = e->stamp;
	for (c = 0; c < e->nsw; c++)
		if (e->transit[c] == e->stamp) {
			rt_lft(e->t, c)[lid] = RT_NO_PATH;
			e->dv->sl[(size_t)c * (e->t->top + 1) + lid] = 0;
		}
	e->fill[T] = true;
}

/*
 * turns_place() for switch LID lid of T, its requests from base LIDs
 * first, then those from LMC LIDs, whose answers go through a third
 * group; when some are left, its turn routes are taken back with their
 * SLs and entries.  *sl and *ov hold what to put back.
 */
static int turns_lid(struct eng *e, uint32_t T, unsigned int lid,
		     uint8_t *sl)
{
	size_t w = e->t->top + 1, left = e->turn_left, cas = e->turn_cas;
	struct ovr ov;
	uint32_t c;
	int ret;

	ret = ovr_copy(&ov, &e->dv->ov);
	if (ret)
		return ret;
	memcpy(sl, e->dv->sl + (size_t)T * w, w);
	for (c = 0; c < e->nsw; c++)
		sl[w + c] = e->dv->sl[(size_t)c * w + lid];
	ret = turns_place(e, T, lid, false);
	if (!ret)
		ret = turns_place(e, T, lid, true);
	if (ret || e->turn_left == left || e->turns_lax)
		goto out;
	e->turn_left = left;
	e->turn_cas = cas;
	e->turn_cut++;
	memcpy(e->dv->sl + (size_t)T * w, sl, w);
	for (c = 0; c < e->nsw; c++)
		e->dv->sl[(size_t)c * w + lid] = sl[w + c];
	free(e->dv->ov.key);
	free(e->dv->ov.vl);
	e->dv->ov = ov;
	ov = (struct ovr){ 0 };
	turns_cut(e, T, lid);
out:
	free(ov.key);
	free(ov.vl);
	return ret;
}

/*
 * The VLs r takes on SL sl where no entry says: made entries, so that no
 * entry placed later moves them.
 */
static int lock_route(struct eng *e, const struct route *r, unsigned int sl)
{
	unsigned int i;
	uint64_t k;
	int ret;

	if (sl < SL_AROUND || sl >= sl_end(e))
		return 0;
	for (i = 0; i < r->hops; i++) {
		k = ovr_key(r->sw[i], sl, r->in[i], r->out[i]);
		if (!r->in[i] || ovr_get(&e->dv->ov, k) >= 0)
			continue;
		ret = ovr_put(&e->dv->ov, k,
			      hop_vl(e->dv, r->sw[i], r->in[i], r->out[i], sl));
		if (ret)
			return ret;
	}
	return 0;
}

/*
 * lock_route() for every switch's route to every LID, and for the hosts'
 * requests to switch LIDs on their answers' SLs: routes that ride a way
 * round's SL on its classes' VLs in part (a switch's own route through
 * hops no host's route passes, a request) keep them when turns_lid() or
 * answers_place() add entries there.
 */
static int lock_all(struct eng *e)
{
	size_t w = e->t->top + 1;
	unsigned int lid, a;
	struct route r;
	uint32_t T, c, j;
	int ret = 0;

	for (lid = 1; !ret && lid <= e->t->top; lid++) {
		T = e->dv->lid_sw[lid];
		if (T == NONE || e->group[T] == NONE)
			continue;
		for (c = 0; !ret && c < e->nsw; c++) {
			if (c == T || e->group[c] == NONE ||
			    trace(e, c, lid, T, &r))
				continue;
			ret = lock_route(e, &r, e->dv->sl[c * w + lid]);
			for (j = e->loff[c]; !ret && e->hosted[c] &&
			     e->dv->is_sw[lid] && j < e->loff[c + 1]; j++) {
				a = e->lids[j];
				if (rt_lid_is_ca(e->t, a))
					ret = lock_route(e, &r,
							 e->dv->sl[T * w + a]);
			}
		}
	}
	return ret;
}

/* turns_lid() for every switch LID, once the own routes have SLs. */
static int turns_all(struct eng *e)
{
	uint8_t *sl;
	uint32_t T, j;
	int ret = 0;

	if (!e->turns)
		return 0;
	ret = e->locks ? lock_all(e) : 0;
	if (ret)
		return ret;
	sl = malloc(e->t->top + 1 + e->nsw);
	if (!sl)
		return -ENOMEM;
	for (T = 0; T < e->nsw; T++)
		for (j = e->loff[T]; !ret && e->group[T] != NONE &&
		     j < e->loff[T + 1]; j++)
			if (e->dv->is_sw[e->lids[j]])
				ret = turns_lid(e, T, e->lids[j], sl);
	free(sl);
	return ret;
}

static int route_lid(struct eng *e, uint32_t T, unsigned int lid,
		     unsigned int key)
{
	unsigned int li = lmc_index(e->t, lid);
	uint32_t c;
	int ret;

	column(e, T, lid, li, key);
	for (c = 0; c < e->nsw; c++) {
		if (c == T || e->group[c] == NONE)
			continue;
		ret = walk(e, c, lid, T, li);
		if (ret)
			return ret;
		e->pairs++;
	}
	return 0;
}

static int index_cables(struct eng *e)
{
	uint32_t s, G, H, n = 0;
	unsigned int p, np;
	size_t k;

	e->cable_off = calloc((size_t)e->ngroups * e->ngroups + 2,
			      sizeof(*e->cable_off));
	e->to_group = calloc((size_t)e->nsw * e->ngroups + 1,
			     sizeof(*e->to_group));
	if (!e->cable_off || !e->to_group)
		return -ENOMEM;
	for (s = 0; s < e->nsw; s++) {
		np = e->t->fab->nodes[e->t->sw_node[s]].nports;
		for (p = 1; p <= np; p++)
			if (cls(e, s, p) == CLS_GLOBAL) {
				G = e->group[s];
				H = e->group[peer_sw(e, s, p)];
				e->cable_off[(size_t)G * e->ngroups + H + 1]++;
				e->to_group[(size_t)s * e->ngroups + H]++;
				n++;
			}
	}
	for (k = 0; k < (size_t)e->ngroups * e->ngroups; k++)
		e->cable_off[k + 1] += e->cable_off[k];
	e->cable = malloc((n + 1) * sizeof(*e->cable));
	if (!e->cable)
		return -ENOMEM;
	for (s = 0; s < e->nsw; s++) {
		np = e->t->fab->nodes[e->t->sw_node[s]].nports;
		for (p = 1; p <= np; p++) {
			struct cable *cb;

			if (cls(e, s, p) != CLS_GLOBAL)
				continue;
			k = (size_t)e->group[s] * e->ngroups +
			    e->group[peer_sw(e, s, p)];
			/* cable_off[k] counts up as the bucket fills */
			cb = &e->cable[e->cable_off[k]++];
			cb->u = s;
			cb->x = peer_sw(e, s, p);
			cb->port = p;
		}
	}
	for (k = (size_t)e->ngroups * e->ngroups; k > 0; k--)
		e->cable_off[k] = e->cable_off[k - 1];
	e->cable_off[0] = 0;
	return 0;
}

/* Mark the switches usable() must look at closer. */
static void find_short(struct eng *e)
{
	uint32_t s, H, n, i;
	const struct cable *cb;

	for (s = 0; s < e->nsw; s++)
		for (H = 0; e->group[s] != NONE && H < e->ngroups; H++) {
			cb = cables(e, e->group[s], H, &n);
			for (i = 0; i < n; i++)
				e->short_of[s] |= cb[i].u != s &&
					local_next(e, s, cb[i].u, 0) ==
					RT_NO_PATH;
		}
}

/*
 * The Valiant classes: deltas 1, 2, ... for which D, I and E are three
 * groups, at most NVAL; none with fewer than four groups, where no
 * group would be left to send through I.
 */
static int valiant_classes(struct eng *e)
{
	struct dvl *dv = e->dv;
	uint32_t d, s, w;
	unsigned int p;

	dv->ngroups = e->ngroups;
	dv->group = malloc((e->nsw + 1) * sizeof(*dv->group));
	dv->far = malloc(((size_t)e->nsw * 256 + 1) * sizeof(*dv->far));
	if (!dv->group || !dv->far)
		return -ENOMEM;
	memcpy(dv->group, e->group, e->nsw * sizeof(*dv->group));
	for (s = 0; s < e->nsw; s++)
		for (p = 0; p < 256; p++) {
			w = p && cls(e, s, p) >= CLS_LOCAL ? peer_sw(e, s, p) :
							    NONE;
			dv->far[(size_t)s * 256 + p] = w == NONE ? NONE :
						       e->group[w];
		}
	for (d = 1; e->ngroups >= 4 && d < e->ngroups &&
	     dv->nval < e->val_max; d++)
		if (2 * d % e->ngroups)
			dv->delta[dv->nval++] = d;
	return 0;
}

/* Each switch's LIDs by its index plus their rank there. */
static int default_keys(struct eng *e)
{
	uint32_t s, j;
	int ret = rt_lids_by_switch(e->t, &e->loff, &e->lids);

	if (ret)
		return ret;
	e->lkey = malloc((e->loff[e->nsw] + 1) * sizeof(*e->lkey));
	if (!e->lkey)
		return -ENOMEM;
	for (s = 0; s < e->nsw; s++)
		for (j = e->loff[s]; j < e->loff[s + 1]; j++)
			e->lkey[j] = s + j - e->loff[s];
	return 0;
}

static int setup(struct eng *e, const struct df_info *di,
		 struct rt_tables *t, unsigned int top_vl)
{
	const struct fabric *f = t->fab;
	struct dvl *dv;
	uint32_t s, n, q;
	unsigned int p, lid;
	int ret;

	e->di = di;
	e->t = t;
	e->nsw = t->nsw;
	e->ngroups = di->ngroups;
	dv = e->dv = calloc(1, sizeof(*dv));
	if (!dv)
		return -ENOMEM;
	dv->top = t->top;
	dv->nsw = t->nsw;
	dv->top_vl = top_vl;
	dv->lid_sw = malloc((t->top + 1) * sizeof(*dv->lid_sw));
	dv->is_sw = calloc(t->top + 1, 1);
	dv->sl = calloc((size_t)t->nsw * (t->top + 1) + 1, 1);
	dv->cls = calloc((size_t)t->nsw * 256 + 1, 1);
	e->group = malloc((t->nsw + 1) * sizeof(*e->group));
	e->mark = calloc(t->nsw + 1, sizeof(*e->mark));
	e->dep = calloc(t->nsw + 1, sizeof(*e->dep));
	e->hosted = calloc(t->nsw + 1, sizeof(*e->hosted));
	e->fill = calloc(t->nsw + 1, sizeof(*e->fill));
	e->short_of = calloc(t->nsw + 1, sizeof(*e->short_of));
	e->transit = calloc(t->nsw + 1, sizeof(*e->transit));
	e->ldist = malloc((t->nsw + 1) * sizeof(*e->ldist));
	e->lq = malloc((t->nsw + 1) * sizeof(*e->lq));
	e->ldist_of = NONE;
	e->via_cable = malloc((e->ngroups + 1) * sizeof(*e->via_cable));
	e->turn = calloc(e->ngroups + 1, sizeof(*e->turn));
	if (!dv->lid_sw || !dv->is_sw || !dv->sl || !dv->cls || !e->group || !e->mark ||
	    !e->dep || !e->hosted || !e->fill || !e->short_of ||
	    !e->transit ||
	    !e->ldist || !e->lq || !e->via_cable || !e->turn)
		return -ENOMEM;
	for (s = 0; s < t->nsw; s++) {
		n = t->sw_node[s];
		e->group[s] = di->group[n] == DF_NONE ? NONE : di->group[n];
		for (p = 1; p <= f->nodes[n].nports; p++) {
			const struct fab_port *fp = fab_port(f, n, p);

			q = fp->peer;
			if (q == FAB_NONE)
				continue;
			e->hosted[s] |= !fab_is_sw(f, q);
			dv->cls[(size_t)s * 256 + p] =
				!fab_is_sw(f, q) ? CLS_CA :
				di->global[f->nodes[n].port0 + p] ? CLS_GLOBAL :
								    CLS_LOCAL;
		}
	}
	for (lid = 0; lid <= t->top; lid++) {
		dv->lid_sw[lid] = t->lid_node[lid] == FAB_NONE ? NONE :
				  rt_lid_switch(t, lid);
		dv->is_sw[lid] = t->lid_node[lid] != FAB_NONE &&
				 fab_is_sw(f, t->lid_node[lid]);
	}
	ret = index_cables(e);
	if (!ret) {
		find_short(e);
		ret = valiant_classes(e);
	}
	return ret ? ret : default_keys(e);
}

static void eng_release(struct eng *e)
{
	free(e->group);
	free(e->cable_off);
	free(e->cable);
	free(e->to_group);
	free(e->loff);
	free(e->lids);
	free(e->lkey);
	free(e->mark);
	free(e->dep);
	free(e->hosted);
	free(e->fill);
	free(e->short_of);
	free(e->transit);
	free(e->ldist);
	free(e->lq);
	free(e->via_cable);
	free(e->turn);
}

/*
 * Management routes to switch LIDs off the scheme (rt_fill_unrouted) for
 * the switches that have none, dropped again, holes left, when they loop
 * or close a credit loop: the switches' own packets ride the data VLs.
 * With data, the same run of the verifier checks the hosts' routes too:
 * those off the scheme's pattern (round failed local cables) and ways
 * round on two VLs, alone or beside Valiant ones, may close a cycle on
 * one VL, which only the dependency graph can clear.  -EDEADLK when the
 * hosts' routes close one.  *clean: the tables left were checked, the
 * switches' own routes with them, and found free of credit loops.
 */
static int fill_checked(struct eng *e, struct rt_tables *t, bool data,
			bool *clean)
{
	size_t len = (size_t)t->nsw * (t->top + 1);
	uint8_t *keep = malloc(len + 1);
	struct vf_opts o = { .ebb_perms = 0 };
	struct vf_report r;
	long got;
	int ret = -ENOMEM;

	*clean = false;
	if (!keep)
		return -ENOMEM;
	memcpy(keep, t->lft, len);
	got = rt_fill_unrouted(t, e->fill);
	if (got < 0)
		goto out;
	ret = 0;
	if (!got && !data)
		goto out;
	o.skip_mgmt = !got;
	ret = vf_check(t, &o, &r);
	if (ret)
		goto out;
	if (got && (r.cdg_cycle || r.mgmt_cycle || r.mgmt_loops))
		memcpy(t->lft, keep, len);
	else
		*clean = got && vf_ok(&r);
	if (data && r.cdg_cycle)
		ret = -EDEADLK;
out:
	free(keep);
	return ret;
}

/*
 * The repair of the switches' own routes: a channel dependency graph on
 * (switch port, VL) nodes, node (pb[s] + port) * nv + VL.
 */
struct own_cdg {
	uint32_t *pb;		/* nsw + 1 */
	uint32_t nv;
	struct cdg g;
	uint32_t *pass;		/* per switch: a host's route passes it */
	uint32_t *kept;		/* per switch: a route kept passes it */
};

static uint32_t oc_node(const struct own_cdg *g, uint32_t s, unsigned int p,
			unsigned int vl)
{
	return (g->pb[s] + p) * g->nv + vl;
}

/*
 * Add r's dependencies on SL sl; with check, only if they close no
 * cycle and its VLs stay below nvl.  1 added, 0 refused, or -ENOMEM.
 */
static int oc_add(struct own_cdg *g, const struct dvl *dv,
		  const struct route *r, unsigned int sl, bool check)
{
	uint32_t from[MAX_HOPS], to[MAX_HOPS], a = NONE, b;
	unsigned int i, n = 0, vl;

	for (i = 0; i < r->hops; i++) {
		vl = hop_vl(dv, r->sw[i], r->in[i], r->out[i], sl);
		if (vl >= g->nv)
			return 0;
		b = oc_node(g, r->sw[i], r->out[i], vl);
		if (a != NONE) {
			from[n] = a;
			to[n++] = b;
		}
		a = b;
	}
	return cdg_add(&g->g, from, to, n, check);
}

static void oc_release(struct own_cdg *g)
{
	free(g->pb);
	cdg_release(&g->g);
	free(g->pass);
	free(g->kept);
}

static int oc_init(struct own_cdg *g, const struct rt_tables *t)
{
	const struct fabric *f = t->fab;
	uint32_t s;

	memset(g, 0, sizeof(*g));
	g->nv = t->vl->nvl;
	g->pb = malloc((t->nsw + 1) * sizeof(*g->pb));
	g->pass = calloc(t->nsw + 1, sizeof(*g->pass));
	g->kept = calloc(t->nsw + 1, sizeof(*g->kept));
	if (!g->pb || !g->pass || !g->kept)
		return -ENOMEM;
	g->pb[0] = 0;
	for (s = 0; s < t->nsw; s++)
		g->pb[s + 1] = g->pb[s] + f->nodes[t->sw_node[s]].nports + 1;
	return cdg_init(&g->g, g->pb[t->nsw] * g->nv);
}

/* The hosts' routes to every CA LID, whose graph the check found acyclic. */
static int own_data(struct eng *e, struct own_cdg *g)
{
	const struct dvl *dv = dvl_of(e->t);
	size_t w = e->t->top + 1;
	unsigned int lid;
	struct route r;
	uint32_t c, T;
	int ret;

	for (lid = 1; lid <= e->t->top; lid++) {
		T = dv->lid_sw[lid];
		if (!rt_lid_is_ca(e->t, lid) || T == NONE)
			continue;
		for (c = 0; c < e->nsw; c++) {
			if (!e->hosted[c] || c == T || trace(e, c, lid, T, &r))
				continue;
			ret = oc_add(g, dv, &r, dv->sl[c * w + lid], false);
			if (ret < 0)
				return ret;
		}
	}
	return 0;
}

/*
 * r, switch c's own route, on its SL, else (a switch without hosts) on
 * the first SL that closes no cycle.  1 added, 0 refused, or -ENOMEM.
 */
static int own_try(struct eng *e, struct own_cdg *g, uint32_t c,
		   unsigned int lid, const struct route *r)
{
	struct dvl *dv = dvl_of(e->t);
	uint8_t *sl = dv->sl + (size_t)c * (e->t->top + 1) + lid;
	unsigned int q;
	int ret;

	ret = oc_add(g, dv, r, *sl, true);
	for (q = 0; !ret && !e->hosted[c] && q <= SL_MAX; q++) {
		ret = oc_add(g, dv, r, q, true);
		if (ret > 0) {
			*sl = q;
			e->own_sl++;
		}
	}
	return ret;
}

/*
 * Switch c's own route to lid of T, judged against the graph: kept when
 * own_try() takes it; else, when no host's route and no route kept
 * passes c, through another neighbour of c that own_try() takes; else,
 * when no host's route passes c, c's entry is left empty: management
 * traffic only, to lid, through c has none.  -EDEADLK when none of those
 * is open.
 */
static int own_judge(struct eng *e, struct own_cdg *g, uint32_t c,
		     unsigned int lid, uint32_t T)
{
	uint8_t *ent = rt_lft(e->t, c) + lid, was = *ent;
	unsigned int p, np = e->t->fab->nodes[e->t->sw_node[c]].nports;
	struct route r;
	int ret;

	if (trace(e, c, lid, T, &r))
		return 0;
	ret = own_try(e, g, c, lid, &r);
	for (p = 1; !ret && g->pass[c] != lid && g->kept[c] != lid &&
	     p <= np; p++) {
		if (p == was || peer_sw(e, c, p) == NONE)
			continue;
		*ent = p;
		if (trace(e, c, lid, T, &r))
			continue;
		ret = own_try(e, g, c, lid, &r);
		e->own_port += ret > 0;
	}
	if (ret > 0) {
		for (p = 1; p < r.hops; p++)
			g->kept[r.sw[p]] = lid;
		return 0;
	}
	if (ret < 0)
		return ret;
	if (g->pass[c] == lid)
		return -EDEADLK;
	*ent = RT_NO_PATH;
	e->own_cut++;
	return 0;
}

/* Mark the switches a host's route to CA LID lid of T passes. */
static void own_pass(struct eng *e, struct own_cdg *g, unsigned int lid,
		     uint32_t T)
{
	struct route r;
	unsigned int i;
	uint32_t c;

	for (c = 0; c < e->nsw; c++) {
		if (!e->hosted[c] || c == T || trace(e, c, lid, T, &r))
			continue;
		for (i = 0; i < r.hops; i++)
			g->pass[r.sw[i]] = lid;
	}
}

/*
 * Every switch's own routes judged one by one, CA LIDs first (the
 * switches' routes to them are mostly the hosts'), then switch LIDs.
 * Each (switch, LID) is judged once against a graph that only grows, on
 * at most SL_MAX + 2 SLs through each of its ports, so the work is
 * bounded; an entry left empty only takes routes away, so what was kept
 * stays acyclic.
 */
static int own_repair(struct eng *e)
{
	const struct dvl *dv = dvl_of(e->t);
	struct own_cdg g;
	unsigned int lid, pass;
	uint32_t c, T;
	int ret;

	ret = oc_init(&g, e->t);
	if (!ret)
		ret = own_data(e, &g);
	for (pass = 0; !ret && pass < 2; pass++)
		for (lid = 1; !ret && lid <= e->t->top; lid++) {
			T = dv->lid_sw[lid];
			if (T == NONE || rt_lid_is_ca(e->t, lid) == pass)
				continue;
			if (!pass)
				own_pass(e, &g, lid, T);
			for (c = 0; !ret && c < e->nsw; c++)
				if (c != T && e->group[c] != NONE &&
				    !(e->hosted[c] && !pass))
					ret = own_judge(e, &g, c, lid, T);
		}
	oc_release(&g);
	return ret;
}

/*
 * Whether a switch that carries global cables (every one of a dragonfly,
 * a Dragonfly+ spine) has fewer than the most any has.
 */
static bool lost_global(const struct eng *e)
{
	const struct fabric *f = e->t->fab;
	unsigned int p, n;
	uint32_t s, node;

	for (s = 0; s < e->nsw; s++) {
		node = e->t->sw_node[s];
		if (e->group[s] == NONE || (e->di->plus && !e->di->spine[node]))
			continue;
		for (n = 0, p = 1; p <= f->nodes[node].nports; p++)
			n += e->di->global[f->nodes[node].port0 + p];
		if (n < e->di->h)
			return true;
	}
	return false;
}

/*
 * The switches' own packets ride the data VLs: where their routes close a
 * credit loop with the data's, own_repair() changes or cuts them.  On the
 * scheme's own pattern (every cable there, no Valiant route, nothing off
 * the pattern) own_routes() keeps them free of one by construction and
 * the check, as long as routing a large fabric, is spared.
 */
static int own_clean(struct eng *e, struct rt_tables *t)
{
	struct vf_opts o = { .ebb_perms = 0 };
	struct vf_report r;
	int ret;

	if (!e->irregular && !e->around && !e->valiant && !e->vroutes &&
	    !e->turns && !e->di->missing_local && !lost_global(e))
		return 0;
	ret = vf_check(t, &o, &r);
	if (ret || r.cdg_cycle || (!r.mgmt_cycle && !r.mgmt_loops))
		return ret;
	/* trace() reads the classes, which t owns by now */
	e->dv = dvl_of(t);
	ret = own_repair(e);
	e->dv = NULL;
	if (!ret)
		ret = vf_check(t, &o, &r);
	if (!ret && (r.mgmt_cycle || r.mgmt_loops))
		ret = -EDEADLK;
	return ret;
}

/*
 * Each host's request to the LID of a switch without hosts that does not
 * follow() the SL of the switch's route back, placed with that route
 * (pair_place()), with locks once the rest are locked (lock_all());
 * pairs no SL takes stay as they were.
 */
static int answers_place(struct eng *e)
{
	unsigned int lid, a, q, top = e->maxvl > e->dv->top_vl ? e->maxvl :
						   e->dv->top_vl;
	size_t w = e->t->top + 1;
	struct route r, b;
	uint32_t T, c, j;
	int ret = e->locks ? lock_all(e) : 0;

	if (ret)
		return ret;
	for (lid = 1; lid <= e->t->top; lid++) {
		T = e->dv->lid_sw[lid];
		/* a leaf's SL to a CA LID is its hosts' too */
		if (T == NONE || !e->dv->is_sw[lid] || e->hosted[T] ||
		    e->group[T] == NONE)
			continue;
		for (c = 0; c < e->nsw; c++) {
			if (c == T || !e->hosted[c] || e->group[c] == NONE ||
			    trace(e, c, lid, T, &r))
				continue;
			for (j = e->loff[c]; j < e->loff[c + 1]; j++) {
				a = e->lids[j];
				if (!rt_lid_is_ca(e->t, a) ||
				    trace(e, T, a, c, &b))
					continue;
				ret = pair_place(e, &r, &b, e->dv->sl[T * w + a],
						 top, &q);
				if (ret && ret != -ERANGE)
					return ret;
				if (!ret && q != e->dv->sl[T * w + a]) {
					e->dv->sl[T * w + a] = q;
					e->answers_moved++;
				}
			}
		}
	}
	return 0;
}

/*
 * The hosts' requests to switch LIDs and the answers on SLs the data
 * leaves free, each on a VL above the data's (dfa_place()); where a pair
 * finds none, as they were, unchecked.
 */
static int answers_layer(struct eng *e, struct rt_tables *t)
{
	const struct fabric *f = t->fab;
	struct dvl *dv = dvl_of(t);
	size_t i, len = (size_t)t->nsw * (t->top + 1);
	unsigned int base = (e->maxvl > dv->top_vl ? e->maxvl : dv->top_vl) + 1;
	uint16_t used = 1;
	unsigned int p;
	uint32_t s, n;
	uint8_t *up;
	int ret;

	for (i = 0; i < len; i++)
		used |= (uint16_t)(1u << (dv->sl[i] & SL_MAX));
	up = calloc(f->nports + 1, sizeof(*up));
	if (!up)
		return -ENOMEM;
	for (s = 0; s < t->nsw; s++) {
		n = t->sw_node[s];
		for (p = 1; p <= f->nodes[n].nports; p++)
			up[f->nodes[n].port0 + p] =
				kind(dv->cls[(size_t)s * 256 + p]);
	}
	ret = dfa_place(&dv->ans, t, used, base, up);
	free(up);
	if (ret)
		return ret == -ERANGE ? 0 : ret;
	e->answers_off = false;
	e->answer_sls = dv->ans.nsl;
	dv->vl.nvl = base + dv->ans.nvl;
	return 0;
}

/*
 * own_clean() with the hosts' requests to switch LIDs on the SL of the
 * answer's route (answer_sl), then with those requests that do not
 * follow it placed with their answers; where the repair cannot clear
 * them so, the
 * tables as before it and the requests on the SL of their own switch's
 * route, whose answers the verifier may then find closing a loop.
 */
static int own_settle(struct eng *e, struct rt_tables *t)
{
	struct dvl *dv = dvl_of(t);
	size_t len = (size_t)t->nsw * (t->top + 1);
	size_t n_sl = e->own_sl, n_port = e->own_port, n_cut = e->own_cut;
	uint8_t *lft = malloc(len + 1), *sl = malloc(len + 1);
	struct ovr ov = { 0 };
	int ret = -ENOMEM;

	if (!lft || !sl || ovr_copy(&ov, &dv->ov))
		goto out;
	memcpy(lft, t->lft, len);
	memcpy(sl, dv->sl, len);
	dv->answer_sl = true;
	ret = own_clean(e, t);
	if (ret == -EDEADLK) {
		memcpy(t->lft, lft, len);
		memcpy(dv->sl, sl, len);
		e->own_sl = n_sl;
		e->own_port = n_port;
		e->own_cut = n_cut;
		e->dv = dv;
		ret = answers_place(e);
		e->dv = NULL;
		if (!ret)
			ret = own_clean(e, t);
	}
	if (ret != -EDEADLK && ret != -ENOTSUP)
		goto out;
	memcpy(t->lft, lft, len);
	memcpy(dv->sl, sl, len);
	free(dv->ov.key);
	free(dv->ov.vl);
	dv->ov = ov;
	ov = (struct ovr){ 0 };
	e->own_sl = n_sl;
	e->own_port = n_port;
	e->own_cut = n_cut;
	e->answers_moved = 0;
	dv->answer_sl = false;
	e->answers_off = true;
	ret = own_clean(e, t);
	if (!ret && e->layer)
		ret = answers_layer(e, t);
out:
	free(ov.key);
	free(ov.vl);
	free(lft);
	free(sl);
	return ret;
}

static void say(const struct eng *e, const struct rt_tables *t,
		char *detail, size_t len)
{
	size_t n;

	/* first, as the summary is cut to its length */
	snprintf(detail, len, "%s", e->answers_off ?
		 "switch answers unchecked; " :
		 "");
	n = strlen(detail);
	if (e->answer_sls) {
		snprintf(detail + n, len - n,
			 "switch answers on own VLs %u-%u; ",
			 t->vl->nvl - dvl_of(t)->ans.nvl, t->vl->nvl - 1);
		n = strlen(detail);
	}
	snprintf(detail + n, len - n,
		 "local-global-local on %u VL%s, SLs 0-%u; of %zu switch-to-LID routes %zu take an LMC LID through a third group, %zu go round a missing global cable (%zu with a local hop there), %zu off the pattern%s",
		 t->vl->nvl, t->vl->nvl > 1 ? "s" : "", e->slmax, e->pairs,
		 e->valiant, e->around, e->around3, e->irregular,
		 e->irregular || e->around3 ? " (dependencies checked)" : "");
	if (e->own_sl || e->own_port || e->own_cut) {
		n = strlen(detail);
		snprintf(detail + n, len - n,
			 "; own routes off credit loops: %zu SL, %zu port, %zu cut",
			 e->own_sl, e->own_port, e->own_cut);
	}
	if (e->answers_moved) {
		n = strlen(detail);
		snprintf(detail + n, len - n,
			 "; %zu requests to switches moved with their answers",
			 e->answers_moved);
	}
	if (e->turns) {
		n = strlen(detail);
		snprintf(detail + n, len - n,
			 "; %zu turn at a leaf to a spine, %zu requests with their answers, %zu spines not",
			 e->turns, e->turn_cas, e->turn_cut);
	}
}

/* Hand the SL and VL tables to t; the check may still refuse them. */
static int finish(struct eng *e, struct rt_tables *t, char *detail,
		  size_t len)
{
	bool clean;
	int ret;

	e->dv->vl.nvl = e->maxvl + 1;
	e->dv->vl.path_sl = df_path_sl;
	e->dv->vl.switch_sl = true;
	e->dv->vl.sl2vl = df_sl2vl;
	e->dv->vl.ctx = e->dv;
	e->dv->vl.release = dvl_release;
	e->dv->answer_sl = true;
	t->vl = t->own_vl = &e->dv->vl;
	e->dv = NULL;
	ret = fill_checked(e, t, e->irregular || e->around3 ||
				 (e->vroutes && e->around), &clean);
	if (!ret && !clean) {
		ret = own_settle(e, t);
		if (ret == -EDEADLK)
			ret = -ENOTSUP;
		if (ret == -ENOTSUP)
			snprintf(detail, len, "the switches' own routes close a credit loop");
	}
	if (ret == -EDEADLK)
		snprintf(detail, len, "routes round failed cables close a credit loop");
	if (ret)
		return ret;
	say(e, t, detail, len);
	return 0;
}

/*
 * The job LID at entry j of T's: of JOB_KEYS keys from its default on,
 * the one whose routes cost its job least, the default unless another is
 * strictly better.  route_lid() overwrites the entries tried.
 */
static void plan_lid(struct eng *e, struct rt_jobplan *jp, uint32_t T,
		     uint32_t j)
{
	unsigned int lid = e->lids[j], li = lmc_index(e->t, lid), o;
	uint32_t bk = e->lkey[j];
	struct rt_jp_cost best, c;

	column(e, T, lid, li, bk);
	rt_jobplan_add(jp, lid, true);
	rt_jobplan_cost(jp, lid, &best);
	for (o = 1; o < JOB_KEYS; o++) {
		column(e, T, lid, li, e->lkey[j] + o);
		rt_jobplan_cost(jp, lid, &c);
		if (rt_jobplan_better(&c, &best)) {
			best = c;
			bk = e->lkey[j] + o;
		}
	}
	column(e, T, lid, li, bk);
	rt_jobplan_add(jp, lid, false);
	e->lkey[j] = bk;
}

/*
 * Keys of the job LIDs; a job whose busiest own link they do not lower
 * keeps the defaults.
 */
static int plan(struct eng *e, const struct rt_jobs *js)
{
	uint32_t nl = e->loff[e->nsw], T, j, jb, *dkey;
	struct rt_jobplan jp;
	bool *keep;
	int ret;

	ret = rt_jobplan_init(&jp, e->t, js);
	dkey = malloc((nl + 1) * sizeof(*dkey));
	keep = calloc(js->njobs, sizeof(*keep));
	if (!ret && (!dkey || !keep))
		ret = -ENOMEM;
	if (ret)
		goto out;
	memcpy(dkey, e->lkey, nl * sizeof(*dkey));
	for (T = 0; T < e->nsw; T++)
		for (j = e->loff[T]; e->group[T] != NONE && j < e->loff[T + 1];
		     j++)
			if (rt_jobplan_job(&jp, e->lids[j]) != RT_JOB_NONE)
				plan_lid(e, &jp, T, j);
	for (jb = 0; jb < js->njobs; jb++)
		keep[jb] = rt_jobplan_keep(&jp, jb);
	for (j = 0; j < nl; j++) {
		jb = rt_jobplan_job(&jp, e->lids[j]);
		if (jb != RT_JOB_NONE && !keep[jb])
			e->lkey[j] = dkey[j];
	}
out:
	free(dkey);
	free(keep);
	rt_jobplan_release(&jp);
	return ret;
}

/* How route_once() routes, and what it found. */
struct df_try {
	unsigned int top_vl;	/* the ways round's last hops' VL */
	bool turns;		/* turn routes to spines' LIDs allowed */
	bool lax;		/* ... kept where requests miss their SL */
	bool locks;		/* lock_all() before entries are added */
	bool around3;		/* ways round with a local hop took SLs */
	bool answers_off;	/* the switches' answers left unchecked */
	unsigned int val_max;	/* Valiant classes (SLs) at most */
	bool layer;		/* answers_layer() where they stay unchecked */
	unsigned int nval;	/* ... LMC LIDs took, 0 when none did */
	/* turn routes taken, the answers unchecked or the routing failed:
	 * without them the routing is as before */
	bool redo;
};

static int route_once(const struct df_info *di, const struct rt_jobs *js,
		      struct rt_tables *t, struct df_try *tr, char *detail,
		      size_t len, const char **use)
{
	struct eng e = { .turns_on = tr->turns, .turns_lax = tr->lax,
			 .locks = tr->locks, .val_max = tr->val_max,
			 .layer = tr->layer };
	unsigned int nval;
	uint32_t T, j;
	int ret;

	ret = setup(&e, di, t, tr->top_vl);
	nval = e.dv ? e.dv->nval : 0;
	if (!ret && js && js->njobs) {
		ret = plan(&e, js);
		rt_jobplan_use(use, ret);
	}
	if (ret == -E2BIG)	/* too many jobs to plan for: none */
		ret = 0;
	for (T = 0; !ret && T < t->nsw; T++) {
		if (e.group[T] == NONE)
			continue;
		for (j = e.loff[T]; !ret && j < e.loff[T + 1]; j++)
			ret = route_lid(&e, T, e.lids[j], e.lkey[j]);
	}
	if (ret == -ELOOP)
		snprintf(detail, len, "a route does not arrive within %u hops",
			 MAX_HOPS);
	if (ret == -ERANGE) {
		snprintf(detail, len, "ways round failed global cables clash on every SL");
		ret = -ENOTSUP;
	}
	if (!ret && e.holes) {
		snprintf(detail, len,
			 "%zu switch-to-host routes have none with at most two global hops",
			 e.holes);
		ret = -ENOTSUP;
	}
	if (!ret)
		ret = own_all(&e);
	if (!ret)
		ret = turns_all(&e);
	if (!ret)
		ret = finish(&e, t, detail, len);
	tr->around3 = e.around3 > 0;
	tr->answers_off = e.answers_off;
	tr->nval = e.valiant ? nval : 0;

	tr->redo = e.turns && (ret || e.answers_off);
	if (e.dv) {
		e.dv->vl.ctx = e.dv;
		dvl_release(&e.dv->vl);
	}
	eng_release(&e);
	return ret;
}

/*
 * route_once() with turn routes, and without them where they leave a
 * request off its answer's SL or the answers unchecked, unless the
 * answers stay unchecked without them too; on each, ways
 * round with a local hop inside the third group try two VLs first and
 * when they close a cycle there, their last hops move to VL 2.
 */
static int route_tops(const struct df_info *di, const struct rt_jobs *js,
		      struct rt_tables *t, struct df_try *tr, char *detail,
		      size_t len, const char **use)
{
	int ret;

	tr->top_vl = 1;
	ret = route_once(di, js, t, tr, detail, len, use);
	if (ret == -EDEADLK && tr->around3) {
		rt_tables_reset(t);
		tr->top_vl = 2;
		ret = route_once(di, js, t, tr, detail, len, use);
	}
	return ret;
}

/* route_tops() on tables reset. */
static int route_again(const struct df_info *di, const struct rt_jobs *js,
		       struct rt_tables *t, struct df_try *tr, char *detail,
		       size_t len, const char **use)
{
	rt_tables_reset(t);
	*detail = 0;
	return route_tops(di, js, t, tr, detail, len, use);
}

/*
 * Turn routes where every request of a spine's rides its answer's SL,
 * else none of that spine's; where the answers stay unchecked, so again
 * with the routes that ride a way round's SL locked first (which leaves
 * fewer SLs to the turns), then without turn routes, and where the
 * answers stay unchecked without them too, every turn route there is.
 */
static int route_chain(const struct df_info *di, const struct rt_jobs *jobs,
		       struct rt_tables *t, struct df_try *tr, char *detail,
		       size_t len, const char **use)
{
	int ret;

	ret = route_tops(di, jobs, t, tr, detail, len, use);
	if (!tr->redo)
		return ret;
	tr->locks = true;
	ret = route_again(di, jobs, t, tr, detail, len, use);
	if (!tr->redo)
		return ret;
	tr->turns = tr->locks = false;
	ret = route_again(di, jobs, t, tr, detail, len, use);
	if (ret || !tr->answers_off)
		return ret;
	/* the answers unchecked anyway: every turn route, placed or not */
	tr->turns = tr->lax = true;
	ret = route_again(di, jobs, t, tr, detail, len, use);
	if (ret) {
		tr->turns = tr->lax = tr->locks = false;
		ret = route_again(di, jobs, t, tr, detail, len, use);
	}
	return ret;
}

/*
 * route_again() with the answers on SLs of their own where they stay
 * unchecked (answers_layer()); chain: route_chain() so.  Where the
 * answers stay unchecked with every SL taken, again with half the
 * Valiant classes, whose SLs they may take (the summary says so).
 */
static int route_layered(const struct df_info *di, const struct rt_jobs *js,
			 struct rt_tables *t, struct df_try *tr, bool chain,
			 char *detail, size_t len, const char **use)
{
	unsigned int i;
	size_t n;
	int ret;

	tr->layer = true;
	for (i = 0; i < 2; i++) {
		if (chain) {
			rt_tables_reset(t);
			*detail = 0;
			ret = route_chain(di, js, t, tr, detail, len, use);
		} else {
			ret = route_again(di, js, t, tr, detail, len, use);
		}
		if (ret || !tr->answers_off || tr->nval < 2 || i)
			break;
		tr->val_max = tr->nval / 2;
	}
	if (!ret && !tr->answers_off && i) {
		n = strlen(detail);
		snprintf(detail + n, len - n,
			 "; LMC LIDs through %u Valiant classes, the others' SLs left to the answers",
			 tr->nval);
	}
	return ret;
}

/*
 * route_chain(); where the answers stay unchecked, its last routing
 * with them on SLs of their own, else the chain so (whose first turn
 * routes are those whose requests take their answers' SLs: fewer switch
 * LIDs reached, but no credit loop), else the chain's.
 */
static int route(const struct fabric *f, const void *info,
		 const struct rt_jobs *jobs, struct rt_tables *t, char *detail,
		 size_t len, const char **use)
{
	const struct df_info *di = info;
	struct df_try tr = { .turns = true, .val_max = NVAL }, last;
	int ret;

	(void)f;
	*detail = 0;
	if (!di->dragonfly)
		return -ENOTSUP;
	ret = route_chain(di, jobs, t, &tr, detail, len, use);
	if (ret || !tr.answers_off)
		goto out;
	last = tr;
	ret = route_layered(di, jobs, t, &tr, false, detail, len, use);
	if (!ret && !tr.answers_off)
		goto out;
	tr = (struct df_try){ .turns = true, .val_max = NVAL };
	ret = route_layered(di, jobs, t, &tr, true, detail, len, use);
	if (!ret && !tr.answers_off)
		goto out;
	tr = last;
	ret = route_again(di, jobs, t, &tr, detail, len, use);
out:
	return ret == -EDEADLK ? -ELOOP : ret;
}

static int recognise(const struct fabric *f, struct rt_fit *fit)
{
	struct df_info *di = calloc(1, sizeof(*di));
	int ret;

	if (!di)
		return -ENOMEM;
	fit->info = di;
	ret = df_recognise(f, di);
	fit->fits = di->dragonfly;
	fit->topology = di->plus ? "dragonfly+" : "dragonfly";
	fit->summary = di->summary;
	return ret;
}

static void release(struct rt_fit *fit)
{
	df_info_release(fit->info);
	free(fit->info);
}

const struct rt_engine rt_dragonfly_engine = {
	.name = "dragonfly",
	.recognise = recognise,
	.release = release,
	.route = route,
};
