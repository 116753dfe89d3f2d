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
#include "answers.h"
#include "deng.h"
#include "dragonfly.h"
#include "../jobplan.h"

/* The key-th of s's cables to w (of class c), RT_NO_PATH when none. */
static uint8_t port_to(const struct eng *e, uint32_t s, uint32_t w,
		       unsigned int c, unsigned int key)
{
	unsigned int p, n = 0, np = e->t->fab->nodes[e->t->sw_node[s]].nports;
	uint8_t first[FAB_MAX_PORTS + 1];

	for (p = 1; p <= np; p++)
		if (cls(e, s, p) == c && dfp_peer_sw(e, s, p) == w)
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
		w = dfp_peer_sw(e, c, p);
		for (i = 0; i < n && dfp_peer_sw(e, c, cand[i]) != w; i++)
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
			w = cls(e, s, p) == CLS_LOCAL ?
			    dfp_peer_sw(e, s, p) : NONE;
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
		w = cls(e, c, p) == CLS_LOCAL ? dfp_peer_sw(e, c, p) : NONE;
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
			    leaves_to(e, dfp_peer_sw(e, c, p), H, T, want,
				      !pass))
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
		c = dfp_peer_sw(e, c, out);
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
	int ret = dfp_trace(e, src, lid, T, &r);

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
		ret = dfp_place_around(e, &r, e->dv->top_vl, &sl);
		if (ret)
			return ret;
		e->around3++;
	}
	e->slmax = sl > e->slmax ? sl : e->slmax;
	e->dv->sl[(size_t)src * (e->t->top + 1) + lid] = sl;
	for (i = 0; i < r.hops; i++) {
		glob += r.cls[i] == CLS_GLOBAL;
		vl = sl >= SL_VAL ? 0 :
		     sl >= SL_AROUND ? dfp_around_vl(&r, i, e->dv->top_vl) :
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
		vl = dfv_hop_vl(e->dv, r->sw[i], r->in[i], r->out[i], sl);
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
		    dfp_trace(e, c, lid, T, &r))
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
		    e->transit[c] == e->stamp || dfp_trace(e, c, lid, T, &r))
			continue;
		for (g = 0, i = 0; i < r.hops; i++)
			g += r.cls[i] == CLS_GLOBAL;
		if (g > 1 && !late) {
			ret = dfp_place_around(e, &r, top, &q);
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
 * (dfv_path_sl()), so each host's request and T's answer to it take one
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
		if (c == T || e->group[c] == NONE ||
		    dfp_trace(e, c, lid, T, &r) || !turn_route(e, &r, lid))
			continue;
		/*
		 * lax, the hosts' requests may ride it with their answers on
		 * the hops without entries, on the Valiant classes' VLs there
		 */
		ret = lmc ? 0 : dfp_place_routes(e, rs, 1, top, e->turns_lax ?
						 SL_VAL : dfp_sl_end(e), &q);
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
			    dfp_trace(e, T, ca, c, &a))
				continue;
			ret = dfp_pair_place(e, &r, &a,
					     e->dv->sl[(size_t)T * w + ca],
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
		if (c != T && e->group[c] != NONE &&
		    !dfp_trace(e, c, lid, T, &r) && turn_route(e, &r, lid))
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

	ret = dfv_ovr_copy(&ov, &e->dv->ov);
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

/* turns_lid() for every switch LID, once the own routes have SLs. */
static int turns_all(struct eng *e)
{
	uint8_t *sl;
	uint32_t T, j;
	int ret = 0;

	if (!e->turns)
		return 0;
	ret = e->locks ? dfp_lock_all(e) : 0;
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
				H = e->group[dfp_peer_sw(e, s, p)];
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
			    e->group[dfp_peer_sw(e, s, p)];
			/* cable_off[k] counts up as the bucket fills */
			cb = &e->cable[e->cable_off[k]++];
			cb->u = s;
			cb->x = dfp_peer_sw(e, s, p);
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
			w = p && cls(e, s, p) >= CLS_LOCAL ?
			    dfp_peer_sw(e, s, p) : NONE;
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
	bool locks;		/* dfp_lock_all() before entries are added */
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
		ret = dfc_finish(&e, t, detail, len);
	tr->around3 = e.around3 > 0;
	tr->answers_off = e.answers_off;
	tr->nval = e.valiant ? nval : 0;

	tr->redo = e.turns && (ret || e.answers_off);
	if (e.dv) {
		e.dv->vl.ctx = e.dv;
		dfv_release(&e.dv->vl);
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
