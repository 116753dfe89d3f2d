// SPDX-License-Identifier: MIT
/*
 * The switches' own routes held to the data's up*-down* order, and those
 * beyond it admitted one LID at a time while the channel dependencies of
 * every switch's routes stay acyclic.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "../cdg.h"
#include "mgmt.h"

#define NONE UINT32_MAX
#define NO_LX 0xff
#define BLK 64		/* LIDs whose entries are worked on at once, in cache */
#define HUB_TRIES 16	/* hubs tried whole for a LID, second time round */
#define MV_LAYERS 3	/* VLs past the data's for switch LIDs */





/* Route states per switch for one LID. */
enum { UO_UNK, UO_BUSY, UO_DOWN, UO_UPDOWN, UO_BAD };

/*
 * Channels are directed switch links, numbered by their rt_adj entry.
 * A dependency is the bit (switch x, rank of its in link, rank of its
 * out link) among x's links.  Not cdg.c's edge lists: the up*-down*
 * turns every check starts from are nearly all of a switch's pairs, far
 * smaller as bits, and a fill is checked with one search for all its new
 * dependencies and taken back whole across layers.
 */
struct uo {
	struct rt_tables *t;
	const uint32_t *key;
	struct rt_adj adj;
	uint32_t *reverse;	/* channel -> the other direction */
	uint8_t *link_rank;	/* nsw x 256: rank of a port's link, NO_LX */
	size_t *deps_off;	/* nsw + 1: each switch's block of deps */
	uint64_t *deps;		/* a bit per (in, out) channel turn taken */
	bool *leaf;		/* switch has hosts */
	uint8_t *dirs;		/* switch has neighbours: 1 below it, 2 above */
	uint8_t *state;		/* per switch: UO_* or ES_* for the LID */
	uint8_t *color;		/* per channel, depth first: 1 grey, 2 done */
	uint32_t *queue;	/* switches breadth first, fills from nfill */
	uint32_t *stack;	/* uo_judge()'s and dfs_from()'s */
	uint32_t *next;		/* per switch: next switch of its route */
	uint32_t *seen;		/* channels dfs_from() coloured */
	uint32_t *dfs_next;	/* per stack entry: next neighbour to try */
	size_t *new_bits;	/* bits a LID's fill added */
	uint32_t nfill, nseen, nnew_bits;
	uint32_t nbad;		/* switches of the LID left to place */
	uint32_t *new_bit_sw;	/* the switch of each new_bits entry */
	uint32_t *escn;		/* per switch: escape dependencies there */
	uint32_t *esc_sw, nesc_sw;	/* switches that ever had some */
	bool *in_esc_sw;	/* per switch: in esc_sw */
	uint32_t *kept, nkept;	/* the fills esc_hosted() kept for this LID */
	uint8_t *buf;		/* nsw rows of BLK entries, from LID buf_lid0 */
	unsigned int buf_lid0;
	uint8_t *hub;		/* per switch: its data route's port to the hub */
	uint32_t *hubs, nhubs;	/* switches with hosts, most links first */
	uint32_t hub_tries;	/* hubs tried whole for a LID */
	unsigned int *ca_lid;	/* per switch: a CA LID it delivers, 0 none */
};

static uint8_t *ent(const struct uo *w, uint32_t s, unsigned int lid)
{
	return &w->buf[(size_t)s * BLK + lid - w->buf_lid0];
}

/* One past the last LID of the block from b0. */
static unsigned int blk_end(const struct uo *w, unsigned int b0)
{
	return w->t->top + 1 - b0 < BLK ? w->t->top + 1 : b0 + BLK;
}

/* The entries of LIDs b0.. into buf, or with back, out again. */
static void blk_io(struct uo *w, unsigned int b0, bool back)
{
	unsigned int n = blk_end(w, b0) - b0;
	uint32_t s;

	w->buf_lid0 = b0;
	for (s = 0; s < w->t->nsw; s++) {
		uint8_t *row = rt_lft(w->t, s) + b0, *b = w->buf + (size_t)s * BLK;

		if (back)
			memcpy(row, b, n);
		else
			memcpy(b, row, n);
	}
}

static bool uo_up(const struct uo *w, uint32_t s, uint32_t x)
{
	return w->key[x] != w->key[s] ? w->key[x] > w->key[s] : x > s;
}

static uint32_t uo_chan(const struct uo *w, uint32_t s, unsigned int lid)
{
	uint8_t x = w->link_rank[(size_t)s * 256 + *ent(w, s, lid)];

	return x == NO_LX ? NONE : w->adj.off[s] + x;
}

/* The switch s's entry for lid leads to, NONE if none. */
static uint32_t uo_next(const struct uo *w, uint32_t s, unsigned int lid)
{
	uint32_t k = uo_chan(w, s, lid);

	return k == NONE ? NONE : w->adj.sw[k];
}

/* The state of the route from s as the entries stand; loops are bad. */
static void uo_judge(struct uo *w, uint32_t s, unsigned int lid)
{
	uint32_t sp = 0, x, u;
	uint8_t v;

	for (u = s; w->state[u] == UO_UNK; u = x) {
		w->state[u] = UO_BUSY;
		w->stack[sp++] = u;
		x = uo_next(w, u, lid);
		w->next[u] = x;
		if (x == NONE)
			break;
	}
	while (sp) {
		u = w->stack[--sp];
		x = w->next[u];
		v = x == NONE || w->state[x] == UO_BUSY ? UO_BAD : w->state[x];
		if (v != UO_BAD && uo_up(w, u, x))
			v = UO_UPDOWN;
		else if (v == UO_UPDOWN)
			v = UO_BAD;
		w->state[u] = v;
	}
}

/*
 * From the switches queued in q[0..n), bad neighbours that reach one by
 * a hop up (up) or down (!up) take it.  Returns the new queue length.
 */
static uint32_t uo_spread(struct uo *w, unsigned int lid, uint32_t n,
			  bool up, long *changed)
{
	uint32_t head = 0, x, s, k;

	while (head < n && w->nbad) {
		x = w->queue[head++];
		if (!(w->dirs[x] & (up ? 1 : 2)))
			continue;
		for (k = w->adj.off[x]; k < w->adj.off[x + 1]; k++) {
			s = w->adj.sw[k];
			if (w->state[s] != UO_BAD || uo_up(w, s, x) != up)
				continue;
			*ent(w, s, lid) = w->adj.rport[k];
			w->state[s] = up ? UO_UPDOWN : UO_DOWN;
			w->queue[n++] = s;
			w->nbad--;
			(*changed)++;
		}
	}
	return n;
}

/* Up*-down* routes for lid of switch d; true when some are left bad. */
static bool uo_column(struct uo *w, unsigned int lid, uint32_t d,
		      long *changed)
{
	uint32_t s, n = 0, nsw = w->t->nsw;
	bool bad = false;

	memset(w->state, UO_UNK, nsw);
	w->state[d] = UO_DOWN;
	w->nbad = 0;
	for (s = 0; s < nsw; s++) {
		uo_judge(w, s, lid);
		w->nbad += w->state[s] == UO_BAD;
	}
	if (!w->nbad)
		return false;
	for (s = 0; s < nsw; s++)
		if (w->state[s] == UO_DOWN)
			w->queue[n++] = s;
	n = uo_spread(w, lid, n, false, changed);
	for (s = 0; w->nbad && s < nsw; s++)
		if (w->state[s] == UO_UPDOWN)
			w->queue[n++] = s;
	uo_spread(w, lid, n, true, changed);
	for (s = 0; w->nbad && s < nsw; s++) {
		if (w->state[s] != UO_BAD)
			continue;
		bad = true;
		if (*ent(w, s, lid) != RT_NO_PATH) {
			*ent(w, s, lid) = RT_NO_PATH;
			(*changed)++;
		}
	}
	return bad;
}

/* The dependency bit at x of a packet in on channel a, out on b. */
static size_t dep_bit(const struct uo *w, uint32_t a, uint32_t b)
{
	uint32_t x = w->adj.sw[a], o = w->adj.off[x];
	size_t deg = w->adj.off[x + 1] - o;

	return w->deps_off[x] + (w->reverse[a] - o) * deg + (b - o);
}

static bool bit_get(const uint64_t *bm, size_t b)
{
	return bm[b / 64] >> (b % 64) & 1;
}

/* The dependency switch s's route to lid adds at its next switch. */
static size_t dep_of(const struct uo *w, uint32_t s, unsigned int lid)
{
	uint32_t a = uo_chan(w, s, lid), b;

	if (a == NONE)
		return SIZE_MAX;
	b = uo_chan(w, w->adj.sw[a], lid);
	return b == NONE ? SIZE_MAX : dep_bit(w, a, b);
}

/*
 * Every turn an up*-down* route may take: all but down then up, and back
 * to the switch it came from.  Every route is up*-down* once the columns
 * are judged, so their dependencies are among these, which close no
 * cycle: kept escapes that close none with them close none with the
 * routes' own.
 */
static void deps_updown(struct uo *w)
{
	const uint32_t *nb;
	uint32_t x, deg, r, j;
	bool up[FAB_MAX_PORTS];	/* a switch has a link per port at most */
	size_t b;

	for (x = 0; x < w->t->nsw; x++) {
		nb = w->adj.sw + w->adj.off[x];
		deg = w->adj.off[x + 1] - w->adj.off[x];
		for (j = 0; j < deg; j++)
			up[j] = uo_up(w, x, nb[j]);
		for (r = 0; r < deg; r++)
			for (j = 0; j < deg; j++) {
				if (nb[j] == nb[r] || (up[r] && up[j]))
					continue;
				b = w->deps_off[x] + (size_t)r * deg + j;
				w->deps[b / 64] |= 1ull << (b % 64);
			}
	}
}

/* Depth first from channel c; true when it meets a grey channel. */
static bool dfs_from(struct uo *w, uint32_t c)
{
	uint32_t sp = 0, u, x, o, deg, r, j;
	size_t base;

	if (w->color[c])
		return false;
	w->color[c] = 1;
	w->seen[w->nseen++] = c;
	w->stack[sp] = c;
	w->dfs_next[sp++] = 0;
	while (sp) {
		u = w->stack[sp - 1];
		x = w->adj.sw[u];
		o = w->adj.off[x];
		deg = w->adj.off[x + 1] - o;
		r = w->reverse[u] - o;
		base = w->deps_off[x] + (size_t)r * deg;
		for (j = w->dfs_next[sp - 1];
		     j < deg && !bit_get(w->deps, base + j); j++)
			;
		if (j == deg) {
			w->color[u] = 2;
			sp--;
			continue;
		}
		w->dfs_next[sp - 1] = j + 1;
		if (w->color[o + j] == 1)
			return true;
		if (!w->color[o + j]) {
			w->color[o + j] = 1;
			w->seen[w->nseen++] = o + j;
			w->stack[sp] = o + j;
			w->dfs_next[sp++] = 0;
		}
	}
	return false;
}

/*
 * The dependencies were acyclic without new_bits[from..nnew_bits), so a
 * cycle now holds one of those and is reachable from its out channel.
 */
static bool new_cycle(struct uo *w, uint32_t from)
{
	bool cyc = false;
	uint32_t i, x;
	size_t b, rel, deg;

	for (i = from; !cyc && i < w->nnew_bits; i++) {
		b = w->new_bits[i];
		for (x = 0; w->deps_off[x + 1] <= b; x++)
			;
		deg = w->adj.off[x + 1] - w->adj.off[x];
		rel = b - w->deps_off[x];
		cyc = dfs_from(w, w->adj.off[x] + rel % deg);
	}
	for (i = 0; i < w->nseen; i++)
		w->color[w->seen[i]] = 0;
	w->nseen = 0;
	return cyc;
}

/* Count an escape dependency at x in (d 1) or out (d -1). */
static void esc_count(struct uo *w, uint32_t x, int d)
{
	if (!w->escn[x] && !w->in_esc_sw[x]) {
		w->in_esc_sw[x] = true;
		w->esc_sw[w->nesc_sw++] = x;
	}
	w->escn[x] += d;
}

/* Add the dependencies of the fills v[0..n); true if a cycle closes. */
static bool esc_add(struct uo *w, unsigned int lid, const uint32_t *v,
		    uint32_t n)
{
	uint32_t k, n0 = w->nnew_bits;
	size_t b;

	for (k = 0; k < n; k++) {
		b = dep_of(w, v[k], lid);
		if (b == SIZE_MAX || bit_get(w->deps, b))
			continue;
		w->deps[b / 64] |= 1ull << (b % 64);
		w->new_bit_sw[w->nnew_bits] = uo_next(w, v[k], lid);
		esc_count(w, w->new_bit_sw[w->nnew_bits], 1);
		w->new_bits[w->nnew_bits++] = b;
	}
	return new_cycle(w, n0);
}

/* Take back the dependencies nb[from..) added. */
static void esc_unbit(struct uo *w, uint32_t from)
{
	uint32_t k;

	for (k = from; k < w->nnew_bits; k++) {
		size_t b = w->new_bits[k];

		w->deps[b / 64] &= ~(1ull << (b % 64));
		esc_count(w, w->new_bit_sw[k], -1);
	}
	w->nnew_bits = from;
}

/*
 * Neighbours of the switches v[0..n) still marked 2 in done take them
 * where the turn there is one some kept route already takes: appended
 * to q at *end.  With esc, only switches where an escape turns count.
 */
static void esc_via(struct uo *w, unsigned int lid, const uint32_t *v,
		    uint32_t n, bool esc, uint32_t *end)
{
	uint8_t *done = w->state;
	uint32_t i, k, s, x;
	size_t b;

	for (i = 0; i < n; i++) {
		x = v[i];
		if ((esc && !w->escn[x]) || *ent(w, x, lid) == RT_NO_PATH)
			continue;
		for (k = w->adj.off[x]; k < w->adj.off[x + 1]; k++) {
			s = w->adj.sw[k];
			if (done[s] != 2)
				continue;
			*ent(w, s, lid) = w->adj.rport[k];
			b = dep_of(w, s, lid);
			if (b == SIZE_MAX || bit_get(w->deps, b)) {
				done[s] = 1;
				w->queue[(*end)++] = s;
			} else {
				*ent(w, s, lid) = RT_NO_PATH;
			}
		}
	}
}

/*
 * The fills q[from..to) again, none made yet, each only towards a
 * neighbour that routes lid through a turn some kept route already takes
 * there, so no new dependency and no cycle.  A switch whose route the
 * levels give has no such turn for a hole (the levels' turns were tried
 * first), so the neighbours looked at are the switches where some escape
 * turns, the fills of the layer before, q[prev..from), which reached
 * these (older ones were tried with the turns they had then, and a LID
 * adds none after its first refused layer), and at the first refused
 * layer (first) the fills esc_hosted() kept, routes the levels do not
 * give either.  Those filled move to q[from..); returns their end.  The
 * others stay holes, for a later layer to reach again.
 */
static uint32_t esc_reuse(struct uo *w, unsigned int lid, uint32_t prev,
			  uint32_t from, uint32_t to, bool first)
{
	uint8_t *done = w->state;
	uint32_t i, m = to - from, n = from, *layer = w->next;

	for (i = 0; i < m; i++) {
		layer[i] = w->queue[from + i];
		done[layer[i]] = 2;
	}
	esc_via(w, lid, w->queue + prev, from - prev, false, &n);
	if (first)
		esc_via(w, lid, w->kept, w->nkept, false, &n);
	esc_via(w, lid, w->esc_sw, w->nesc_sw, true, &n);
	for (i = 0; i < m; i++)
		if (done[layer[i]] == 2)
			done[layer[i]] = 0;
	return n;
}

/*
 * Holes of lid, breadth first from the switches that route it, towards
 * a neighbour that does: q[nfill..) on return, which is its end.  With
 * check, a layer's fills are kept if together they close no cycle (its
 * dependencies are fixed once the layer is, as its neighbours' routes
 * are); from the first layer that would close one on, only those
 * esc_reuse() finds, which add no dependency.
 */
static uint32_t esc_fill(struct uo *w, unsigned int lid, bool ca, bool check)
{
	uint32_t head = 0, tail = 0, prev, lend, s, k, x, n0, i;
	uint32_t nsw = w->t->nsw;
	bool closed = false;
	uint8_t *done = w->state;	/* in cache: a line per switch */

	for (s = 0; s < nsw; s++) {
		done[s] = *ent(w, s, lid) != RT_NO_PATH || (ca && w->leaf[s]);
		if (*ent(w, s, lid) != RT_NO_PATH)
			w->queue[tail++] = s;
	}
	w->nfill = prev = lend = tail;
	w->nnew_bits = 0;
	while (head < tail) {
		x = w->queue[head++];
		for (k = w->adj.off[x]; k < w->adj.off[x + 1]; k++) {
			s = w->adj.sw[k];
			if (done[s])
				continue;
			done[s] = 1;
			*ent(w, s, lid) = w->adj.rport[k];
			w->queue[tail++] = s;
		}
		if (head < lend)
			continue;
		n0 = w->nnew_bits;
		if (check && (closed || esc_add(w, lid, w->queue + lend,
						tail - lend))) {
			esc_unbit(w, n0);
			for (i = lend; i < tail; i++)
				*ent(w, w->queue[i], lid) = RT_NO_PATH;
			tail = esc_reuse(w, lid, prev, lend, tail, !closed);
			closed = true;
		}
		prev = lend;
		lend = tail;
	}
	return tail;
}

/* Whether a switch with hosts has no route to lid. */
static bool esc_leaf_hole(const struct uo *w, unsigned int lid)
{
	uint32_t s;

	for (s = 0; s < w->t->nsw; s++)
		if (w->leaf[s] && *ent(w, s, lid) == RT_NO_PATH)
			return true;
	return false;
}

/* A fill's state while the hosts' routes are tried. */
enum { ES_NONE, ES_FILL, ES_KEEP, ES_DROP };

/*
 * Of the fills q[nfill..end), those the routes from switches with hosts
 * take, switch by switch, each route kept if it closes no cycle with
 * those kept before it; the others are holes again.  Returns the new
 * end.
 */
static uint32_t esc_hosted(struct uo *w, unsigned int lid, uint32_t end)
{
	uint32_t k, n, s, i, *path = w->next;

	memset(w->state, ES_NONE, w->t->nsw);
	for (k = w->nfill; k < end; k++)
		w->state[w->queue[k]] = ES_FILL;
	for (k = w->nfill; k < end; k++) {
		if (!w->leaf[w->queue[k]] || w->state[w->queue[k]] != ES_FILL)
			continue;
		n = 0;
		for (s = w->queue[k]; s != NONE && w->state[s] == ES_FILL;
		     s = uo_next(w, s, lid)) {
			path[n++] = s;
			w->state[s] = ES_KEEP;
		}
		w->nnew_bits = 0;
		if (s != NONE && w->state[s] != ES_DROP &&
		    !esc_add(w, lid, path, n))
			continue;
		esc_unbit(w, 0);
		for (i = 0; i < n; i++)
			w->state[path[i]] = ES_DROP;
	}
	for (k = n = w->nfill; k < end; k++) {
		s = w->queue[k];
		if (w->state[s] == ES_KEEP)
			w->queue[n++] = s;
		else
			*ent(w, s, lid) = RT_NO_PATH;
	}
	w->nkept = n - w->nfill;
	memcpy(w->kept, w->queue + w->nfill, w->nkept * sizeof(*w->kept));
	return n;
}

/* Hub states of a switch for one LID. */
enum { HB_ROUTED, HB_FILL, HB_OK, HB_BAD };

/*
 * The state of the route from the filled switch s: the hub's route, then
 * the route of the first switch on it that had one (HB_OK), or a hole.
 */
static uint8_t hub_judge(struct uo *w, uint32_t s, unsigned int lid)
{
	uint32_t n = 0, x, *path = w->next;
	uint8_t v;

	for (x = s; x != NONE && w->state[x] == HB_FILL && n < w->t->nsw;
	     x = uo_next(w, x, lid)) {
		path[n++] = x;
		w->state[x] = HB_BAD;	/* a loop meets it: bad */
	}
	if (x == NONE || n == w->t->nsw)
		v = HB_BAD;
	else if (w->state[x] == HB_ROUTED)
		v = *ent(w, x, lid) == RT_NO_PATH ? HB_BAD : HB_OK;
	else
		v = w->state[x];
	while (n)
		w->state[path[--n]] = v;
	return v;
}

/*
 * Every hole of lid takes the port its switch's data route to the hub
 * takes, so its route goes as data to the hub until it meets a switch
 * that had a route to lid.  Data climbs then descends, so it turns
 * down then up (where a plain up*-down* route would not) only on the
 * hub's way down: beside the hub, and a packet that climbed away from
 * there comes back down only through the same cable, which no route
 * turns on.  That keeps every such turn of every LID in one corner of
 * the fabric, where they close no cycle together as ones spread out
 * do; the dependency check still has the last word, all or nothing per
 * LID, or with hosted, where the whole closes one, per route of a
 * switch with hosts (esc_hosted()).  Hub h is hubs[h]; the first one's
 * routes are those from before any entry changed, the others' as they
 * stand (a CA LID's entries change only where the data had none).
 * Returns the number of entries kept.
 */
static long hub_fill(struct uo *w, unsigned int lid, bool ca, uint32_t h,
		     bool hosted)
{
	uint32_t s, n = 0, k, nsw = w->t->nsw, hs = w->hubs[h];
	unsigned int hl = w->ca_lid[hs];
	bool in_blk = hl >= w->buf_lid0 && hl < w->buf_lid0 + BLK;
	uint8_t p;

	if (*ent(w, hs, lid) == RT_NO_PATH)
		return 0;
	for (s = 0; s < nsw; s++) {
		p = !h ? w->hub[s] :
			 in_blk ? *ent(w, s, hl) : rt_lft(w->t, s)[hl];
		w->state[s] = HB_ROUTED;
		if (*ent(w, s, lid) != RT_NO_PATH || (ca && w->leaf[s]) ||
		    p == RT_NO_PATH ||
		    w->link_rank[(size_t)s * 256 + p] == NO_LX)
			continue;
		*ent(w, s, lid) = p;
		w->state[s] = HB_FILL;
		w->queue[n++] = s;
	}
	for (k = 0; k < n; k++)
		if (w->state[w->queue[k]] == HB_FILL)
			hub_judge(w, w->queue[k], lid);
	for (k = 0, s = 0; k < n; k++) {
		if (w->state[w->queue[k]] == HB_OK)
			w->queue[s++] = w->queue[k];
		else
			*ent(w, w->queue[k], lid) = RT_NO_PATH;
	}
	n = s;
	w->nnew_bits = 0;
	if (n && !esc_add(w, lid, w->queue, n))
		return n;
	esc_unbit(w, 0);
	if (hosted) {
		w->nfill = 0;
		return esc_hosted(w, lid, n);
	}
	for (k = 0; k < n; k++)
		*ent(w, w->queue[k], lid) = RT_NO_PATH;
	return 0;
}

/* Whether a switch that may get a route to lid has none. */
static bool uo_holed(const struct uo *w, unsigned int lid, bool ca)
{
	uint32_t s;

	for (s = 0; s < w->t->nsw; s++)
		if (*ent(w, s, lid) == RT_NO_PATH && !(ca && w->leaf[s]))
			return true;
	return false;
}

/* What a pass of uo_escapes() does. */
enum { P_HUB, P_HUB_HOSTED, P_ESCAPE };

/*
 * Hubs' ways for lid: the first hub's, then while holes are left up to
 * w->hub_tries - 1 more, each whole (P_HUB); or every hub's for the
 * hosts' routes alone (P_HUB_HOSTED).  Returns the entries kept.
 */
static long hub_ways(struct uo *w, unsigned int lid, bool ca, unsigned int how)
{
	uint32_t h, nh = w->nhubs;
	long kept = 0;

	if (how == P_HUB && nh > w->hub_tries)
		nh = w->hub_tries;
	for (h = 0; h < nh && (!h || uo_holed(w, lid, ca)); h++)
		if (how == P_HUB || esc_leaf_hole(w, lid))
			kept += hub_fill(w, lid, ca, h, how == P_HUB_HOSTED);
	return kept;
}

/*
 * Routes beyond up*-down* for the holes of lid the hub's way left,
 * breadth first.  To a switch LID, those the hosts' packets (PerfMgt
 * from the SM) take go first, each host switch's on its own, so that a
 * cycle among the other switches', or another host switch's, does not
 * cost them.
 */
static long uo_escape(struct uo *w, unsigned int lid, bool ca)
{
	long kept = 0;
	uint32_t end;

	w->nkept = 0;
	if (!ca && esc_leaf_hole(w, lid)) {
		end = esc_fill(w, lid, false, false);
		kept += esc_hosted(w, lid, end) - w->nfill;
	}
	return kept + esc_fill(w, lid, ca, true) - w->nfill;
}

static int uo_init(struct uo *w)
{
	const struct rt_tables *t = w->t;
	size_t n = t->nsw ? t->nsw : 1, nch;
	uint32_t s, k, x, j;

	if (rt_adj_build(&w->adj, t))
		return -ENOMEM;
	nch = w->adj.off[t->nsw] + 1;
	w->reverse = malloc(nch * sizeof(*w->reverse));
	w->link_rank = malloc(n * 256);
	w->deps_off = calloc(n + 1, sizeof(*w->deps_off));
	w->leaf = malloc(n);
	w->dirs = calloc(n, 1);
	w->state = malloc(n);
	w->color = calloc(nch, 1);
	w->queue = malloc(n * sizeof(*w->queue));
	w->next = malloc(n * sizeof(*w->next));
	w->stack = malloc((n + nch) * sizeof(*w->stack));
	w->dfs_next = malloc((n + nch) * sizeof(*w->dfs_next));
	w->seen = malloc(nch * sizeof(*w->seen));
	w->new_bits = malloc(n * sizeof(*w->new_bits));
	w->new_bit_sw = malloc(n * sizeof(*w->new_bit_sw));
	w->escn = calloc(n, sizeof(*w->escn));
	w->esc_sw = malloc(n * sizeof(*w->esc_sw));
	w->in_esc_sw = calloc(n, sizeof(*w->in_esc_sw));
	w->kept = malloc(n * sizeof(*w->kept));
	w->buf = malloc(n * BLK);
	w->hub = malloc(n);
	w->hubs = malloc(n * sizeof(*w->hubs));
	w->ca_lid = calloc(n, sizeof(*w->ca_lid));
	if (!w->hub || !w->hubs || !w->ca_lid || !w->reverse ||
	    !w->link_rank || !w->deps_off || !w->leaf || !w->dirs ||
	    !w->state || !w->color || !w->queue || !w->next ||
	    !w->stack || !w->dfs_next || !w->seen || !w->new_bits ||
	    !w->new_bit_sw || !w->escn || !w->esc_sw || !w->in_esc_sw ||
	    !w->kept || !w->buf)
		return -ENOMEM;
	memset(w->link_rank, NO_LX, n * 256);
	for (s = 0; s < t->nsw; s++) {
		w->leaf[s] = rt_node_has_ca(t->fab, t->sw_node[s]);
		k = w->adj.off[s + 1] - w->adj.off[s];
		w->deps_off[s + 1] = w->deps_off[s] + (size_t)k * k;
		for (k = w->adj.off[s]; k < w->adj.off[s + 1]; k++) {
			w->link_rank[(size_t)s * 256 + w->adj.port[k]] =
				k - w->adj.off[s] < NO_LX ? k - w->adj.off[s] :
							    NO_LX;
			x = w->adj.sw[k];
			w->dirs[s] |= uo_up(w, s, x) ? 2 : 1;
			for (j = w->adj.off[x]; j < w->adj.off[x + 1]; j++)
				if (w->adj.sw[j] == s &&
				    w->adj.port[j] == w->adj.rport[k])
					w->reverse[k] = j;
		}
	}
	w->deps = calloc(w->deps_off[t->nsw] / 64 + 1, sizeof(*w->deps));
	return w->deps ? 0 : -ENOMEM;
}

static void uo_release(struct uo *w)
{
	free(w->deps);
	free(w->hub);
	free(w->hubs);
	free(w->ca_lid);
	free(w->buf);
	free(w->new_bits);
	free(w->new_bit_sw);
	free(w->escn);
	free(w->esc_sw);
	free(w->in_esc_sw);
	free(w->kept);
	free(w->seen);
	free(w->dfs_next);
	free(w->stack);
	free(w->next);
	free(w->queue);
	free(w->color);
	free(w->state);
	free(w->dirs);
	free(w->leaf);
	free(w->deps_off);
	free(w->link_rank);
	free(w->reverse);
	rt_adj_release(&w->adj);
}

/*
 * The hubs' ways for every LID (all or nothing per hub and LID) before
 * any other escape, so that those turns stay in their corners; then,
 * for switch LIDs a switch with hosts still has no route to, the hubs'
 * ways for the hosts' routes alone, each kept where it closes no cycle;
 * then the escapes.  CA LIDs first in each: switches answer the SM and
 * its PerfMgt there.
 */
static void uo_escapes(struct uo *w, uint8_t *holes, long *changed)
{
	static const struct {
		bool ca;
		uint8_t how;
	} passes[] = { { true, P_HUB }, { false, P_HUB },
		       { true, P_ESCAPE }, { false, P_ESCAPE },
		       { false, P_HUB_HOSTED } };
	const struct rt_tables *t = w->t;
	unsigned int lid, pass, b0, how;
	bool ca, load;

	for (pass = 0; pass < sizeof(passes) / sizeof(passes[0]); pass++)
		for (b0 = 1; b0 <= t->top; b0 += BLK) {
			load = false;
			how = passes[pass].how;
			for (lid = b0; lid < blk_end(w, b0); lid++) {
				if (!holes[lid])
					continue;
				ca = rt_lid_is_ca(t, lid);
				if (ca != passes[pass].ca)
					continue;
				if (!load)
					blk_io(w, b0, false);
				load = true;
				if (how == P_ESCAPE) {
					*changed += uo_escape(w, lid, ca);
					continue;
				}
				*changed += hub_ways(w, lid, ca, how);
				holes[lid] = uo_holed(w, lid, ca);
			}
			if (load)
				blk_io(w, b0, true);
		}
}

/*
 * The hubs: the switches with hosts, those with the most switch links
 * (the fewest cut) first, each with a CA LID it delivers; and every
 * switch's data route to the first, taken before any entry changes.
 */
static void hub_pick(struct uo *w)
{
	const struct rt_tables *t = w->t;
	uint32_t s, deg, maxdeg = 0;
	unsigned int lid;

	for (lid = 1; lid <= t->top; lid++) {
		s = rt_lid_is_ca(t, lid) ? rt_lid_switch(t, lid) : FAB_NONE;
		if (s != FAB_NONE && !w->ca_lid[s])
			w->ca_lid[s] = lid;
	}
	for (s = 0; s < t->nsw; s++)
		if (w->adj.off[s + 1] - w->adj.off[s] > maxdeg)
			maxdeg = w->adj.off[s + 1] - w->adj.off[s];
	w->nhubs = 0;
	for (deg = maxdeg; deg > 0; deg--)
		for (s = 0; s < t->nsw; s++)
			if (w->leaf[s] && w->ca_lid[s] &&
			    w->adj.off[s + 1] - w->adj.off[s] == deg)
				w->hubs[w->nhubs++] = s;
	for (s = 0; s < t->nsw; s++)
		w->hub[s] = w->nhubs ? rt_lft(t, s)[w->ca_lid[w->hubs[0]]] :
				       RT_NO_PATH;
}

/*
 * What the escapes change: the columns of the holed LIDs, the
 * dependencies and the escape counts, to try them again another way.
 */
struct uo_save {
	unsigned int *lids, n;
	uint8_t *col;		/* n columns of nsw entries */
	uint8_t *holes;		/* top + 1 */
	uint64_t *deps;
	uint32_t *escn, *esc_sw, nesc_sw;
	bool *in_esc_sw;
};

static void save_release(struct uo_save *v)
{
	free(v->lids);
	free(v->col);
	free(v->holes);
	free(v->deps);
	free(v->escn);
	free(v->esc_sw);
	free(v->in_esc_sw);
}

static int save_init(struct uo_save *v, const struct uo *w,
		     const uint8_t *holes)
{
	const struct rt_tables *t = w->t;
	size_t n = t->nsw ? t->nsw : 1, nd = w->deps_off[t->nsw] / 64 + 1;
	unsigned int lid;

	v->n = 0;
	for (lid = 1; lid <= t->top; lid++)
		v->n += holes[lid];
	v->lids = malloc((v->n ? v->n : 1) * sizeof(*v->lids));
	v->col = malloc((v->n ? v->n : 1) * n);
	v->holes = malloc(t->top + 1);
	v->deps = malloc(nd * sizeof(*v->deps));
	v->escn = malloc(n * sizeof(*v->escn));
	v->esc_sw = malloc(n * sizeof(*v->esc_sw));
	v->in_esc_sw = malloc(n * sizeof(*v->in_esc_sw));
	if (!v->lids || !v->col || !v->holes || !v->deps || !v->escn ||
	    !v->esc_sw || !v->in_esc_sw)
		return -ENOMEM;
	for (lid = 1, v->n = 0; lid <= t->top; lid++)
		if (holes[lid])
			v->lids[v->n++] = lid;
	return 0;
}

static void copy_io(void *live, void *saved, size_t len, bool back)
{
	if (back)
		memcpy(live, saved, len);
	else
		memcpy(saved, live, len);
}

/* Copy the state into v, or with back, out of it again. */
static void save_io(struct uo_save *v, struct uo *w, uint8_t *holes,
		    bool back)
{
	const struct rt_tables *t = w->t;
	size_t nd = w->deps_off[t->nsw] / 64 + 1, ns = t->nsw;
	unsigned int i;
	uint8_t *c;
	uint32_t s;

	for (i = 0; i < v->n; i++)
		for (s = 0, c = v->col + (size_t)i * ns; s < ns; s++)
			if (back)
				rt_lft(t, s)[v->lids[i]] = c[s];
			else
				c[s] = rt_lft(t, s)[v->lids[i]];
	copy_io(holes, v->holes, t->top + 1, back);
	copy_io(w->deps, v->deps, nd * sizeof(*v->deps), back);
	copy_io(w->escn, v->escn, ns * sizeof(*v->escn), back);
	copy_io(w->esc_sw, v->esc_sw, ns * sizeof(*v->esc_sw), back);
	copy_io(w->in_esc_sw, v->in_esc_sw, ns * sizeof(*v->in_esc_sw), back);
	if (back)
		w->nesc_sw = v->nesc_sw;
	else
		v->nesc_sw = w->nesc_sw;
}

/*
 * Holes left among v's LIDs: those of switches with hosts towards
 * switch LIDs (a CA's requests) above all others.
 */
static uint64_t save_holes(const struct uo_save *v, const struct uo *w)
{
	const struct rt_tables *t = w->t;
	uint64_t hosted = 0, all = 0;
	unsigned int i, lid;
	uint32_t s;
	bool ca;

	for (i = 0; i < v->n; i++) {
		lid = v->lids[i];
		ca = rt_lid_is_ca(t, lid);
		for (s = 0; s < t->nsw; s++) {
			if (rt_lft(t, s)[lid] != RT_NO_PATH ||
			    (ca && w->leaf[s]))
				continue;
			all++;
			hosted += !ca && w->leaf[s];
		}
	}
	return hosted << 32 | all;
}

/*
 * The escapes with the one hub; where a switch with hosts is left
 * without a route to a switch LID, again from the same start with up to
 * HUB_TRIES hubs per LID, and the way that leaves fewer such holes (then
 * fewer holes) is kept.  Neither is better on every tree: more hubs
 * spread the turns the one hub keeps in its corner, which on some
 * 3-level trees leaves holes the escapes after it would have filled;
 * past 3 levels the one hub may have no route to a whole corner.
 */
static int uo_escapes_best(struct uo *w, uint8_t *holes, long *changed)
{
	struct uo_save start = { 0 }, first = { 0 };
	uint64_t h1, h2;
	long c1 = 0, c2 = 0;
	int ret;

	ret = save_init(&start, w, holes);
	if (!ret)
		ret = save_init(&first, w, holes);
	if (ret)
		goto out;
	save_io(&start, w, holes, false);
	w->hub_tries = 1;
	uo_escapes(w, holes, &c1);
	h1 = save_holes(&start, w);
	if (h1 >> 32) {
		save_io(&first, w, holes, false);
		save_io(&start, w, holes, true);
		w->hub_tries = HUB_TRIES;
		uo_escapes(w, holes, &c2);
		h2 = save_holes(&start, w);
		if (h2 < h1)
			c1 = c2;
		else
			save_io(&first, w, holes, true);
	}
	*changed += c1;
out:
	save_release(&start);
	save_release(&first);
	return ret;
}

long rt_mgmt_updown(struct rt_tables *t, const uint32_t *key,
		    const bool *dsw)
{
	struct uo w = { .t = t, .key = key };
	uint8_t *holes = calloc(t->top + 1, 1);
	long changed = -ENOMEM;
	unsigned int lid, b0;
	bool any = false, load;
	uint32_t d;

	if (!holes || uo_init(&w))
		goto out;
	hub_pick(&w);
	changed = 0;
	for (b0 = 1; b0 <= t->top; b0 += BLK) {
		load = false;
		for (lid = b0; lid < blk_end(&w, b0); lid++) {
			d = rt_lid_switch(t, lid);
			if (d == FAB_NONE || (dsw && !dsw[d]))
				continue;
			if (!load)
				blk_io(&w, b0, false);
			load = true;
			if (uo_column(&w, lid, d, &changed))
				holes[lid] = any = true;
		}
		if (load)
			blk_io(&w, b0, true);
	}
	if (any) {
		deps_updown(&w);
		if (uo_escapes_best(&w, holes, &changed))
			changed = -ENOMEM;
	}
out:
	uo_release(&w);
	free(holes);
	return changed;
}

/*
 * VLs 1-3 for what the data's VL cannot carry: per switch LID whose
 * column keeps holes, the SL of each switch's packets to it (its own and
 * its hosts'), SL n on VL n.  Read by path_sl() after the tables are
 * gone.
 */
struct mv_vl {
	struct rt_vl vl;
	unsigned int top;
	uint32_t nsw;
	uint32_t *lid_sw;	/* LID -> delivering switch, FAB_NONE */
	uint32_t *col;		/* LID -> its column of SLs, NONE */
	uint8_t *sl;		/* ncol rows of nsw SLs, 0: the data's VL */
	uint32_t ncol;
};

static uint8_t mv_path_sl(const struct rt_tables *t, unsigned int slid,
			  unsigned int dlid)
{
	const struct mv_vl *m = t->vl->ctx;
	uint32_t s;

	if (slid > m->top || dlid > m->top || m->col[dlid] == NONE)
		return 0;
	s = m->lid_sw[slid];
	return s == FAB_NONE ? 0 : m->sl[(size_t)m->col[dlid] * m->nsw + s];
}

static uint8_t mv_sl2vl(const struct rt_tables *t, uint32_t sw,
			unsigned int in, unsigned int out, unsigned int sl)
{
	(void)t;
	(void)sw;
	(void)in;
	(void)out;
	return sl <= MV_LAYERS ? sl : 0;
}

static void mv_release(struct rt_vl *vl)
{
	struct mv_vl *m = vl->ctx;

	free(m->lid_sw);
	free(m->col);
	free(m->sl);
	free(m);
}

/* The work of rt_mgmt_vl1(): each layer's dependencies, a LID's column. */
struct mv {
	struct rt_tables *t;
	struct mv_vl *m;
	struct rt_adj adj;
	struct cdg g[MV_LAYERS];	/* VL 1 up */
	uint32_t *off, *lids;	/* rt_lids_by_switch() */
	uint32_t *reach;	/* per switch: round it reached the LID, NONE */
	uint32_t *cand;		/* switches tried in a round */
	uint32_t *path;		/* one route's out ports */
	uint32_t *from, *to;	/* a batch of dependencies */
	size_t nb;
	unsigned int maxsl;	/* the highest SL given */
	unsigned int nl;	/* layers the fabric's VLs allow */
};

/*
 * The out ports (fabric port indices) of the route from switch s to lid
 * into out, at most nsw; *end is the switch that delivers it there (the
 * switch itself, or the one a CA hangs on), FAB_NONE on a hole or loop.
 */
static uint32_t mv_walk(const struct rt_tables *t, uint32_t s,
			unsigned int lid, uint32_t *out, uint32_t *end)
{
	const struct fabric *f = t->fab;
	const struct fab_port *fp;
	uint32_t n = 0, node;
	uint8_t p;

	*end = FAB_NONE;
	while (n < t->nsw) {
		node = t->sw_node[s];
		p = rt_lft(t, s)[lid];
		if (p == 0) {
			*end = s;
			break;
		}
		if (p == RT_NO_PATH || p > f->nodes[node].nports)
			break;
		fp = fab_port(f, node, p);
		if (fp->peer == FAB_NONE)
			break;
		if (!fab_is_sw(f, fp->peer)) {
			*end = s;
			break;
		}
		out[n++] = f->nodes[node].port0 + p;
		s = t->node_sw[fp->peer];
	}
	return n;
}

/* Whether the route from s to lid arrives at switch d. */
static bool mv_arrives(struct mv *v, uint32_t s, unsigned int lid,
		       uint32_t d)
{
	uint32_t end;

	mv_walk(v->t, s, lid, v->path, &end);
	return end == d;
}

/* The dependencies of the route from s to lid, when it arrives at d. */
static bool mv_batch(struct mv *v, uint32_t s, unsigned int lid, uint32_t d)
{
	uint32_t n, i, end;

	n = mv_walk(v->t, s, lid, v->path, &end);
	if (end != d)
		return false;
	for (i = 1; i < n; i++) {
		v->from[v->nb] = v->path[i - 1];
		v->to[v->nb++] = v->path[i];
	}
	return true;
}

/*
 * The dependencies of switch s's route to lid of switch d: the route
 * itself (its hosts' requests and its own packets), and d's answers to
 * its hosts, which leave on the request's SL.  False when the route does
 * not arrive.
 */
static bool mv_deps(struct mv *v, uint32_t s, unsigned int lid, uint32_t d)
{
	uint32_t k, c;

	v->nb = 0;
	if (!mv_batch(v, s, lid, d))
		return false;
	for (k = v->off[s]; k < v->off[s + 1]; k++) {
		c = v->lids[k];
		if (rt_lid_is_ca(v->t, c))
			mv_batch(v, d, c, s);
	}
	return true;
}

/*
 * Switch s on layer l (VL l + 1) towards lid through the neighbour of
 * its link k: 1 kept, 0 it closes a cycle there, or -ENOMEM.
 */
static int mv_try(struct mv *v, uint32_t s, unsigned int lid, uint32_t d,
		  uint32_t k, unsigned int l)
{
	int ret;

	rt_lft(v->t, s)[lid] = v->adj.port[k];
	ret = mv_deps(v, s, lid, d) ?
		cdg_add(&v->g[l], v->from, v->to, v->nb, true) : 0;
	if (ret <= 0)
		rt_lft(v->t, s)[lid] = RT_NO_PATH;
	return ret;
}

/* Switch s through a neighbour reached before round, lowest layer first. */
static int mv_place(struct mv *v, uint32_t s, unsigned int lid, uint32_t d,
		    uint32_t col, uint32_t round)
{
	unsigned int l;
	uint32_t k;
	int ret;

	for (l = 0; l < v->nl; l++)
		for (k = v->adj.off[s]; k < v->adj.off[s + 1]; k++) {
			if (v->reach[v->adj.sw[k]] >= round)
				continue;
			ret = mv_try(v, s, lid, d, k, l);
			if (ret < 0)
				return ret;
			if (!ret)
				continue;
			v->m->sl[(size_t)col * v->t->nsw + s] = l + 1;
			if (l + 1 > v->maxsl)
				v->maxsl = l + 1;
			v->reach[s] = round;
			return 1;
		}
	return 0;
}

/*
 * The holes of lid (switch d's), breadth first from the switches that
 * reach it: each takes the first neighbour reached in an earlier round
 * whose way closes no cycle on the lowest layer it can.  Returns the
 * switches routed, or -ENOMEM.
 */
static long mv_column(struct mv *v, unsigned int lid, uint32_t d,
		      uint32_t col)
{
	struct rt_tables *t = v->t;
	uint32_t s, n, i, round = 0;
	long kept = 0, more;
	int ret;

	for (s = 0; s < t->nsw; s++) {
		v->reach[s] = s == d || mv_arrives(v, s, lid, d) ? 0u : NONE;
		if (v->reach[s] == NONE)
			rt_lft(t, s)[lid] = RT_NO_PATH;
	}
	do {
		round++;
		more = 0;
		for (s = n = 0; s < t->nsw; s++)
			if (v->reach[s] == NONE)
				v->cand[n++] = s;
		for (i = 0; i < n; i++) {
			ret = mv_place(v, v->cand[i], lid, d, col, round);
			if (ret < 0)
				return ret;
			more += ret;
		}
		kept += more;
	} while (more);
	return kept;
}

/*
 * Whether switch LID lid's column keeps a switch without a route to it;
 * *leaf set when one of them has hosts.
 */
static bool mv_holed(struct mv *v, unsigned int lid, uint32_t d, bool *leaf)
{
	const struct rt_tables *t = v->t;
	bool holed = false;
	uint32_t s;

	for (s = 0; s < t->nsw; s++)
		if (s != d && !mv_arrives(v, s, lid, d)) {
			holed = true;
			if (rt_node_has_ca(t->fab, t->sw_node[s]))
				*leaf = true;
		}
	return holed;
}

static void mv_free(struct mv *v)
{
	unsigned int l;

	rt_adj_release(&v->adj);
	for (l = 0; l < MV_LAYERS; l++)
		cdg_release(&v->g[l]);
	free(v->off);
	free(v->lids);
	free(v->reach);
	free(v->cand);
	free(v->path);
	free(v->from);
	free(v->to);
	if (v->m)
		mv_release(&v->m->vl);
}

static int mv_init(struct mv *v)
{
	const struct rt_tables *t = v->t;
	size_t n = t->nsw ? t->nsw : 1, maxca = 0, cap;
	uint32_t s;
	unsigned int l;

	v->m = calloc(1, sizeof(*v->m));
	if (!v->m)
		return -ENOMEM;
	v->m->vl.ctx = v->m;
	if (rt_adj_build(&v->adj, t) ||
	    rt_lids_by_switch(t, &v->off, &v->lids))
		return -ENOMEM;
	for (l = 0; l < MV_LAYERS; l++)
		if (cdg_init(&v->g[l], t->fab->nports ? t->fab->nports : 1))
			return -ENOMEM;
	v->m->top = t->top;
	v->m->nsw = t->nsw;
	v->m->lid_sw = malloc((t->top + 1) * sizeof(*v->m->lid_sw));
	v->m->col = malloc((t->top + 1) * sizeof(*v->m->col));
	for (s = 0; s < t->nsw; s++)
		if (v->off[s + 1] - v->off[s] > maxca)
			maxca = v->off[s + 1] - v->off[s];
	/* a route has fewer than nsw hops: one request, an answer a LID */
	cap = (maxca + 1) * n;
	v->reach = malloc(n * sizeof(*v->reach));
	v->cand = malloc(n * sizeof(*v->cand));
	v->path = malloc(n * sizeof(*v->path));
	v->from = malloc(cap * sizeof(*v->from));
	v->to = malloc(cap * sizeof(*v->to));
	if (!v->m->lid_sw || !v->m->col || !v->reach || !v->cand ||
	    !v->path || !v->from || !v->to)
		return -ENOMEM;
	return 0;
}

/*
 * The switch LIDs that keep holes get a column each; their count, or 0
 * when every host's switch reaches every switch LID: a few routes
 * between switches (which send no MADs to each other in practice) are
 * not worth the VLs, nor QoS, which a fabric routed on VLs needs.
 */
static long mv_cols(struct mv *v)
{
	struct mv_vl *m = v->m;
	bool leaf = false;
	unsigned int lid;
	uint32_t d;

	m->ncol = 0;
	for (lid = 0; lid <= v->t->top; lid++) {
		m->lid_sw[lid] = lid ? rt_lid_switch(v->t, lid) : FAB_NONE;
		m->col[lid] = NONE;
		d = m->lid_sw[lid];
		if (d != FAB_NONE && !rt_lid_is_ca(v->t, lid) &&
		    mv_holed(v, lid, d, &leaf))
			m->col[lid] = m->ncol++;
	}
	if (!m->ncol || !leaf)
		return 0;
	m->sl = calloc((size_t)m->ncol * m->nsw, 1);
	return m->sl ? (long)m->ncol : -ENOMEM;
}

long rt_mgmt_vl1(struct rt_tables *t)
{
	struct mv v = { .t = t,
			.nl = fab_vls_within(t->fab, MV_LAYERS + 1) - 1 };
	unsigned int lid;
	long kept = 0, ret;

	if (!v.nl)
		return 0;
	ret = mv_init(&v);
	if (!ret)
		ret = mv_cols(&v);
	for (lid = 1; ret > 0 && lid <= t->top; lid++)
		if (v.m->col[lid] != NONE) {
			ret = mv_column(&v, lid, v.m->lid_sw[lid],
					v.m->col[lid]);
			kept += ret > 0 ? ret : 0;
			ret = ret < 0 ? ret : 1;
		}
	if (ret >= 0 && kept) {
		v.m->vl.nvl = v.maxsl + 1;
		v.m->vl.path_sl = mv_path_sl;
		v.m->vl.sl2vl = mv_sl2vl;
		v.m->vl.switch_sl = true;
		v.m->vl.release = mv_release;
		t->vl = t->own_vl = &v.m->vl;
		v.m = NULL;
	}
	mv_free(&v);
	return ret < 0 ? ret : kept;
}
