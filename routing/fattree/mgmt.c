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

#include "mgmt.h"

#define NONE UINT32_MAX
#define NO_LX 0xff
#define BLK 64		/* LIDs whose entries are worked on at once, in cache */

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
	uint32_t *rev;		/* channel -> the other direction */
	uint8_t *plx;		/* nsw x 256: rank of a port's switch link, NO_LX */
	size_t *bmoff;		/* nsw + 1 */
	uint64_t *bm;
	bool *leaf;		/* switch has hosts */
	uint8_t *dirs;		/* switch has neighbours: 1 below it, 2 above */
	uint8_t *st, *color;
	uint32_t *q, *stk, *nx, *seen, *dj;
	size_t *nb;		/* bits a LID's fill added */
	uint32_t nfill, nseen, nnb;
	uint32_t nbad;		/* switches of the LID left to place */
	uint32_t *nbx;		/* the switch of each nb */
	uint32_t *escn;		/* per switch: escape dependencies there */
	uint32_t *esw, nesw;	/* switches that ever had some */
	bool *inesw;		/* per switch: in esw */
	uint32_t *hk, nhk;	/* the fills esc_hosted() kept for this LID */
	uint8_t *buf;		/* nsw rows of BLK entries, from LID b0 */
	unsigned int b0;
};

static uint8_t *ent(const struct uo *w, uint32_t s, unsigned int lid)
{
	return &w->buf[(size_t)s * BLK + lid - w->b0];
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

	w->b0 = b0;
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
	uint8_t x = w->plx[(size_t)s * 256 + *ent(w, s, lid)];

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

	for (u = s; w->st[u] == UO_UNK; u = x) {
		w->st[u] = UO_BUSY;
		w->stk[sp++] = u;
		x = uo_next(w, u, lid);
		w->nx[u] = x;
		if (x == NONE)
			break;
	}
	while (sp) {
		u = w->stk[--sp];
		x = w->nx[u];
		v = x == NONE || w->st[x] == UO_BUSY ? UO_BAD : w->st[x];
		if (v != UO_BAD && uo_up(w, u, x))
			v = UO_UPDOWN;
		else if (v == UO_UPDOWN)
			v = UO_BAD;
		w->st[u] = v;
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
		x = w->q[head++];
		if (!(w->dirs[x] & (up ? 1 : 2)))
			continue;
		for (k = w->adj.off[x]; k < w->adj.off[x + 1]; k++) {
			s = w->adj.sw[k];
			if (w->st[s] != UO_BAD || uo_up(w, s, x) != up)
				continue;
			*ent(w, s, lid) = w->adj.rport[k];
			w->st[s] = up ? UO_UPDOWN : UO_DOWN;
			w->q[n++] = s;
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

	memset(w->st, UO_UNK, nsw);
	w->st[d] = UO_DOWN;
	w->nbad = 0;
	for (s = 0; s < nsw; s++) {
		uo_judge(w, s, lid);
		w->nbad += w->st[s] == UO_BAD;
	}
	if (!w->nbad)
		return false;
	for (s = 0; s < nsw; s++)
		if (w->st[s] == UO_DOWN)
			w->q[n++] = s;
	n = uo_spread(w, lid, n, false, changed);
	for (s = 0; w->nbad && s < nsw; s++)
		if (w->st[s] == UO_UPDOWN)
			w->q[n++] = s;
	uo_spread(w, lid, n, true, changed);
	for (s = 0; w->nbad && s < nsw; s++) {
		if (w->st[s] != UO_BAD)
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

	return w->bmoff[x] + (w->rev[a] - o) * deg + (b - o);
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
				b = w->bmoff[x] + (size_t)r * deg + j;
				w->bm[b / 64] |= 1ull << (b % 64);
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
	w->stk[sp] = c;
	w->dj[sp++] = 0;
	while (sp) {
		u = w->stk[sp - 1];
		x = w->adj.sw[u];
		o = w->adj.off[x];
		deg = w->adj.off[x + 1] - o;
		r = w->rev[u] - o;
		base = w->bmoff[x] + (size_t)r * deg;
		for (j = w->dj[sp - 1]; j < deg && !bit_get(w->bm, base + j);
		     j++)
			;
		if (j == deg) {
			w->color[u] = 2;
			sp--;
			continue;
		}
		w->dj[sp - 1] = j + 1;
		if (w->color[o + j] == 1)
			return true;
		if (!w->color[o + j]) {
			w->color[o + j] = 1;
			w->seen[w->nseen++] = o + j;
			w->stk[sp] = o + j;
			w->dj[sp++] = 0;
		}
	}
	return false;
}

/*
 * The dependencies were acyclic without nb[from..nnb), so a cycle now
 * holds one of those and is reachable from its out channel.
 */
static bool new_cycle(struct uo *w, uint32_t from)
{
	bool cyc = false;
	uint32_t i, x;
	size_t b, rel, deg;

	for (i = from; !cyc && i < w->nnb; i++) {
		b = w->nb[i];
		for (x = 0; w->bmoff[x + 1] <= b; x++)
			;
		deg = w->adj.off[x + 1] - w->adj.off[x];
		rel = b - w->bmoff[x];
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
	if (!w->escn[x] && !w->inesw[x]) {
		w->inesw[x] = true;
		w->esw[w->nesw++] = x;
	}
	w->escn[x] += d;
}

/* Add the dependencies of the fills v[0..n); true if a cycle closes. */
static bool esc_add(struct uo *w, unsigned int lid, const uint32_t *v,
		    uint32_t n)
{
	uint32_t k, n0 = w->nnb;
	size_t b;

	for (k = 0; k < n; k++) {
		b = dep_of(w, v[k], lid);
		if (b == SIZE_MAX || bit_get(w->bm, b))
			continue;
		w->bm[b / 64] |= 1ull << (b % 64);
		w->nbx[w->nnb] = uo_next(w, v[k], lid);
		esc_count(w, w->nbx[w->nnb], 1);
		w->nb[w->nnb++] = b;
	}
	return new_cycle(w, n0);
}

/* Take back the dependencies nb[from..) added. */
static void esc_unbit(struct uo *w, uint32_t from)
{
	uint32_t k;

	for (k = from; k < w->nnb; k++) {
		w->bm[w->nb[k] / 64] &= ~(1ull << (w->nb[k] % 64));
		esc_count(w, w->nbx[k], -1);
	}
	w->nnb = from;
}

/*
 * Neighbours of the switches v[0..n) still marked 2 in done take them
 * where the turn there is one some kept route already takes: appended
 * to q at *end.  With esc, only switches where an escape turns count.
 */
static void esc_via(struct uo *w, unsigned int lid, const uint32_t *v,
		    uint32_t n, bool esc, uint32_t *end)
{
	uint8_t *done = w->st;
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
			if (b == SIZE_MAX || bit_get(w->bm, b)) {
				done[s] = 1;
				w->q[(*end)++] = s;
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
	uint8_t *done = w->st;
	uint32_t i, m = to - from, n = from, *layer = w->nx;

	for (i = 0; i < m; i++) {
		layer[i] = w->q[from + i];
		done[layer[i]] = 2;
	}
	esc_via(w, lid, w->q + prev, from - prev, false, &n);
	if (first)
		esc_via(w, lid, w->hk, w->nhk, false, &n);
	esc_via(w, lid, w->esw, w->nesw, true, &n);
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
	uint8_t *done = w->st;	/* in cache: the column is a line per switch */

	for (s = 0; s < nsw; s++) {
		done[s] = *ent(w, s, lid) != RT_NO_PATH || (ca && w->leaf[s]);
		if (*ent(w, s, lid) != RT_NO_PATH)
			w->q[tail++] = s;
	}
	w->nfill = prev = lend = tail;
	w->nnb = 0;
	while (head < tail) {
		x = w->q[head++];
		for (k = w->adj.off[x]; k < w->adj.off[x + 1]; k++) {
			s = w->adj.sw[k];
			if (done[s])
				continue;
			done[s] = 1;
			*ent(w, s, lid) = w->adj.rport[k];
			w->q[tail++] = s;
		}
		if (head < lend)
			continue;
		n0 = w->nnb;
		if (check && (closed || esc_add(w, lid, w->q + lend,
						tail - lend))) {
			esc_unbit(w, n0);
			for (i = lend; i < tail; i++)
				*ent(w, w->q[i], lid) = RT_NO_PATH;
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
	uint32_t k, n, s, i, *path = w->nx;

	memset(w->st, ES_NONE, w->t->nsw);
	for (k = w->nfill; k < end; k++)
		w->st[w->q[k]] = ES_FILL;
	for (k = w->nfill; k < end; k++) {
		if (!w->leaf[w->q[k]] || w->st[w->q[k]] != ES_FILL)
			continue;
		n = 0;
		for (s = w->q[k]; s != NONE && w->st[s] == ES_FILL;
		     s = uo_next(w, s, lid)) {
			path[n++] = s;
			w->st[s] = ES_KEEP;
		}
		w->nnb = 0;
		if (s != NONE && w->st[s] != ES_DROP &&
		    !esc_add(w, lid, path, n))
			continue;
		esc_unbit(w, 0);
		for (i = 0; i < n; i++)
			w->st[path[i]] = ES_DROP;
	}
	for (k = n = w->nfill; k < end; k++) {
		s = w->q[k];
		if (w->st[s] == ES_KEEP)
			w->q[n++] = s;
		else
			*ent(w, s, lid) = RT_NO_PATH;
	}
	w->nhk = n - w->nfill;
	memcpy(w->hk, w->q + w->nfill, w->nhk * sizeof(*w->hk));
	return n;
}

/*
 * Routes beyond up*-down* for the holes of lid.  To a switch LID, those
 * the hosts' packets (PerfMgt from the SM) take go first, each host
 * switch's on its own, so that a cycle among the other switches', or
 * another host switch's, does not cost them.
 */
static long uo_escape(struct uo *w, unsigned int lid, bool ca)
{
	long kept = 0;
	uint32_t end;

	w->nhk = 0;
	if (!ca && esc_leaf_hole(w, lid)) {
		end = esc_fill(w, lid, false, false);
		kept = esc_hosted(w, lid, end) - w->nfill;
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
	w->rev = malloc(nch * sizeof(*w->rev));
	w->plx = malloc(n * 256);
	w->bmoff = calloc(n + 1, sizeof(*w->bmoff));
	w->leaf = malloc(n);
	w->dirs = calloc(n, 1);
	w->st = malloc(n);
	w->color = calloc(nch, 1);
	w->q = malloc(n * sizeof(*w->q));
	w->nx = malloc(n * sizeof(*w->nx));
	w->stk = malloc((n + nch) * sizeof(*w->stk));
	w->dj = malloc((n + nch) * sizeof(*w->dj));
	w->seen = malloc(nch * sizeof(*w->seen));
	w->nb = malloc(n * sizeof(*w->nb));
	w->nbx = malloc(n * sizeof(*w->nbx));
	w->escn = calloc(n, sizeof(*w->escn));
	w->esw = malloc(n * sizeof(*w->esw));
	w->inesw = calloc(n, sizeof(*w->inesw));
	w->hk = malloc(n * sizeof(*w->hk));
	w->buf = malloc(n * BLK);
	if (!w->rev || !w->plx || !w->bmoff || !w->leaf || !w->dirs ||
	    !w->st || !w->color || !w->q || !w->nx || !w->stk || !w->dj ||
	    !w->seen || !w->nb || !w->nbx || !w->escn || !w->esw ||
	    !w->inesw || !w->hk || !w->buf)
		return -ENOMEM;
	memset(w->plx, NO_LX, n * 256);
	for (s = 0; s < t->nsw; s++) {
		w->leaf[s] = rt_node_has_ca(t->fab, t->sw_node[s]);
		k = w->adj.off[s + 1] - w->adj.off[s];
		w->bmoff[s + 1] = w->bmoff[s] + (size_t)k * k;
		for (k = w->adj.off[s]; k < w->adj.off[s + 1]; k++) {
			w->plx[(size_t)s * 256 + w->adj.port[k]] =
				k - w->adj.off[s] < NO_LX ? k - w->adj.off[s] :
							    NO_LX;
			x = w->adj.sw[k];
			w->dirs[s] |= uo_up(w, s, x) ? 2 : 1;
			for (j = w->adj.off[x]; j < w->adj.off[x + 1]; j++)
				if (w->adj.sw[j] == s &&
				    w->adj.port[j] == w->adj.rport[k])
					w->rev[k] = j;
		}
	}
	w->bm = calloc(w->bmoff[t->nsw] / 64 + 1, sizeof(*w->bm));
	return w->bm ? 0 : -ENOMEM;
}

static void uo_release(struct uo *w)
{
	free(w->bm);
	free(w->buf);
	free(w->nb);
	free(w->nbx);
	free(w->escn);
	free(w->esw);
	free(w->inesw);
	free(w->hk);
	free(w->seen);
	free(w->dj);
	free(w->stk);
	free(w->nx);
	free(w->q);
	free(w->color);
	free(w->st);
	free(w->dirs);
	free(w->leaf);
	free(w->bmoff);
	free(w->plx);
	free(w->rev);
	rt_adj_release(&w->adj);
}

/* CA LIDs first: switches answer the SM and its PerfMgt there. */
static void uo_escapes(struct uo *w, const uint8_t *holes, long *changed)
{
	const struct rt_tables *t = w->t;
	unsigned int lid, pass, b0;
	bool ca, load;

	for (pass = 0; pass < 2; pass++)
		for (b0 = 1; b0 <= t->top; b0 += BLK) {
			load = false;
			for (lid = b0; lid < blk_end(w, b0); lid++) {
				if (!holes[lid])
					continue;
				ca = rt_lid_is_ca(t, lid);
				if (ca != !pass)
					continue;
				if (!load)
					blk_io(w, b0, false);
				load = true;
				*changed += uo_escape(w, lid, ca);
			}
			if (load)
				blk_io(w, b0, true);
		}
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
		uo_escapes(&w, holes, &changed);
	}
out:
	uo_release(&w);
	free(holes);
	return changed;
}
