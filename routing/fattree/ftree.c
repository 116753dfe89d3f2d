// SPDX-License-Identifier: MIT
/*
 * Fat-tree engine.  Reachability is kept as bitsets over destination
 * switches: down[s] (reachable going only down) and reach[h][s]
 * (reachable climbing to at most level h, then down).  A route at s goes
 * down when it can, else up to the lowest turning level, so it is minimal
 * and up*-down* (no credit loop on one VL).
 *
 * Up ports are slots: (position of the parent in its group, parallel
 * link).  Positions are consistent across siblings, so choosing slot
 * (key / U[level]) % slots makes every source converge on the same path
 * to a destination (d-mod-k); a slot that is missing or cannot reach the
 * destination detours over the valid one it was sent least often.  On a
 * degraded tree the all-to-all balance (balance.h) then lays each CA LID
 * that took a detour again among the same minimal up*-down* ports, by the
 * links' loads; the others keep d-mod-k's converging paths.
 * With jobs, the collective search (jobroute.h) then re-chooses the
 * entries towards the jobs' LIDs among the same minimal up*-down* ports.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "balance.h"
#include "ftree.h"
#include "mgmt.h"
#include "../jobload.h"
#include "jobroute.h"
#include "ringcol.h"

#define FT_MAX_SLOTS 4096	/* up slots of a switch: positions x parallel */

static inline uint32_t mix32(uint32_t x)
{
	x ^= x >> 16;
	x *= 0x7feb352d;
	x ^= x >> 15;
	x *= 0x846ca68b;
	return x ^ (x >> 16);
}

/*
 * Detours, counted per (LID, where they lead): the key is the peer
 * switch at the top level, else the peer's position in its group, so
 * sibling planes in different pods count as the same way down.
 */
struct dmap {
	uint64_t *key;		/* 0 = empty */
	uint32_t *cnt;
	size_t cap, n;
};

struct ftr {
	const struct fabric *f;
	struct rt_tables *t;
	uint32_t nsw;
	size_t w;		/* words per bitset */
	unsigned int nlev;
	unsigned int base;	/* leaf level; switches below it are relevelled */
	uint8_t *level;		/* level per switch index */
	uint32_t *pos;		/* position in group per switch index */
	uint32_t *gsize;	/* size of the group a switch's parents form */
	unsigned int par[FT_MAX_LEVELS];	/* parallel links per level */
	unsigned int nslot[FT_MAX_LEVELS];	/* nominal up slots */
	uint32_t *slot_off;	/* per switch into slot_port */
	uint16_t *nslots;	/* per switch */
	uint8_t *slot_port;	/* 0 = missing */
	bool *intact;		/* all nominal slots present */
	uint64_t *down;		/* nsw bitsets */
	uint64_t *reach;	/* nlev * nsw bitsets */
	uint64_t *all;		/* nlev * nsw bitsets: AND over parents */
	uint32_t *dst_off;	/* per destination switch into dst_lid */
	uint32_t *dst_lid;
	uint32_t *key;		/* per LID */
	uint16_t *slot_idx;	/* nlev * (top + 1): nominal slot per level */
	uint32_t *nbr;		/* per fabric port: peer switch or FAB_NONE */
	struct dmap detours;
	uint32_t *own;		/* per fabric port: detours it took */
	bool *unrouted;		/* per destination switch: some switch lacks a route */
	bool *detoured;		/* per LID: some switch detoured it */
	uint32_t *dcnt;		/* scratch: down candidates per destination */
	uint8_t *dport;		/* scratch: their ports, CSR by dcnt */
	uint32_t *doff;
};

static inline uint64_t *bits(const struct ftr *r, uint64_t *base, uint32_t s)
{
	return base + (size_t)s * r->w;
}

static inline bool has(const uint64_t *b, uint32_t i)
{
	return b[i >> 6] >> (i & 63) & 1;
}

static inline uint32_t peer_sw(const struct ftr *r, uint32_t s,
			       unsigned int p)
{
	return r->nbr[r->f->nodes[r->t->sw_node[s]].port0 + p];
}

static bool is_up(const struct ftr *r, uint32_t s, uint32_t q)
{
	return q != FAB_NONE && r->level[s] != FT_NO_LEVEL &&
	       r->level[q] == r->level[s] + 1;
}

static uint32_t uf_find(uint32_t *uf, uint32_t x)
{
	while (uf[x] != x)
		x = uf[x] = uf[uf[x]];
	return x;
}

struct member {
	uint64_t group, upkey, guid;
	uint32_t sw;
};

static int cmp_member(const void *a, const void *b)
{
	const struct member *x = a, *y = b;

	if (x->group != y->group)
		return x->group < y->group ? -1 : 1;
	if (x->upkey != y->upkey)
		return x->upkey < y->upkey ? -1 : 1;
	return x->guid < y->guid ? -1 : x->guid > y->guid;
}

/*
 * Group the switches of each level h >= 1 by shared children, and order
 * each group by the column its own parents' group stands in, top level
 * first, so that position i means the same subtree in every pod.  A top
 * group is a column of its own (named by its smallest GUID); a lower
 * group stands in the first column any of its members climbs to, which
 * is the same for the groups of every pod however the GUIDs run.
 */
static int place_switches(struct ftr *r)
{
	uint32_t *uf = malloc(r->nsw * sizeof(*uf));
	uint64_t *gkey = malloc(r->nsw * sizeof(*gkey));
	uint64_t *col = malloc(r->nsw * sizeof(*col));
	struct member *m = malloc(r->nsw * sizeof(*m));
	uint32_t s, q, k, i, j;
	unsigned int p;
	int h, ret = -ENOMEM;

	if (!uf || !gkey || !col || !m)
		goto out;
	for (s = 0; s < r->nsw; s++) {
		uf[s] = s;
		gkey[s] = UINT64_MAX;
		col[s] = UINT64_MAX;
	}
	for (s = 0; s < r->nsw; s++) {
		uint32_t first = FAB_NONE;

		for (p = 1; p <= r->f->nodes[r->t->sw_node[s]].nports; p++) {
			q = peer_sw(r, s, p);
			if (!is_up(r, s, q))
				continue;
			if (first == FAB_NONE)
				first = q;
			else
				uf[uf_find(uf, q)] = uf_find(uf, first);
		}
	}
	/* A group's key: its smallest GUID. */
	for (s = 0; s < r->nsw; s++) {
		uint64_t g = r->f->nodes[r->t->sw_node[s]].guid;
		uint32_t root = uf_find(uf, s);

		if (g < gkey[root])
			gkey[root] = g;
	}
	for (h = r->nlev - 1; h >= 1; h--) {
		for (k = 0, s = 0; s < r->nsw; s++) {
			uint64_t up = UINT64_MAX;

			if (r->level[s] != h)
				continue;
			for (p = 1; p <= r->f->nodes[r->t->sw_node[s]].nports;
			     p++) {
				q = peer_sw(r, s, p);
				if (is_up(r, s, q)) {
					up = col[uf_find(uf, q)];
					break;
				}
			}
			m[k].group = gkey[uf_find(uf, s)];
			m[k].upkey = up;
			m[k].guid = r->f->nodes[r->t->sw_node[s]].guid;
			m[k++].sw = s;
		}
		qsort(m, k, sizeof(*m), cmp_member);
		for (i = 0; i < k; i++) {
			uint64_t *c = &col[uf_find(uf, m[i].sw)];

			if (h + 1 == (int)r->nlev)
				*c = m[i].group;
			else if (m[i].upkey < *c)
				*c = m[i].upkey;
		}
		for (i = 0; i < k; i = j) {
			for (j = i; j < k && m[j].group == m[i].group; j++)
				r->pos[m[j].sw] = j - i;
			for (q = i; q < j; q++)
				r->gsize[m[q].sw] = j - i;
		}
	}
	ret = 0;
out:
	free(uf);
	free(gkey);
	free(col);
	free(m);
	return ret;
}

/* Up slots per switch: slot = position * par + parallel index. */
static int build_slots(struct ftr *r)
{
	uint32_t s, q, total = 0;
	unsigned int p, l;

	for (s = 0; s < r->nsw; s++) {
		uint32_t g = 0;

		l = r->level[s];
		if (l == FT_NO_LEVEL || l + 1 >= r->nlev)
			continue;
		for (p = 1; p <= r->f->nodes[r->t->sw_node[s]].nports; p++) {
			q = peer_sw(r, s, p);
			if (is_up(r, s, q) && r->gsize[q] > g)
				g = r->gsize[q];
		}
		if (g * r->par[l] > r->nslot[l])
			r->nslot[l] = g * r->par[l];
		/*
		 * Groups chained by miswired cables can grow past any
		 * regular pod: such a tree is no fat-tree to this engine.
		 */
		if (r->nslot[l] > FT_MAX_SLOTS)
			return -E2BIG;
	}
	for (s = 0; s < r->nsw; s++) {
		l = r->level[s];
		r->slot_off[s] = total;
		if (l != FT_NO_LEVEL && l + 1 < r->nlev)
			r->nslots[s] = r->nslot[l];
		total += r->nslots[s];
	}
	r->slot_port = calloc(total ? total : 1, 1);
	if (!r->slot_port)
		return -ENOMEM;
	for (s = 0; s < r->nsw; s++) {
		unsigned int present = 0;

		if (!r->nslots[s])
			continue;
		l = r->level[s];
		for (p = 1; p <= r->f->nodes[r->t->sw_node[s]].nports; p++) {
			uint32_t slot;

			q = peer_sw(r, s, p);
			if (!is_up(r, s, q))
				continue;
			/* the next free slot among q's parallel links */
			slot = r->pos[q] * r->par[l];
			while (slot < r->nslots[s] &&
			       r->slot_port[r->slot_off[s] + slot])
				slot++;
			if (slot >= r->nslots[s] ||
			    slot >= (r->pos[q] + 1) * r->par[l])
				return -EINVAL;
			r->slot_port[r->slot_off[s] + slot] = p;
			present++;
		}
		/* d-mod-k keys count from the leaves; below them, detour */
		r->intact[s] = present == r->nslots[s] && l >= r->base;
	}
	return 0;
}

static void bs_or(uint64_t *d, const uint64_t *a, size_t w)
{
	size_t i;

	for (i = 0; i < w; i++)
		d[i] |= a[i];
}

static void bs_and(uint64_t *d, const uint64_t *a, size_t w)
{
	size_t i;

	for (i = 0; i < w; i++)
		d[i] &= a[i];
}

/* down[] bottom-up, then reach[h][] and all[h][] top-down per level h. */
static void build_reach(struct ftr *r)
{
	uint32_t s, q;
	unsigned int p, h, l;

	for (l = 0; l < r->nlev; l++)
		for (s = 0; s < r->nsw; s++) {
			if (r->level[s] != l)
				continue;
			bits(r, r->down, s)[s >> 6] |= 1ull << (s & 63);
			for (p = 1; p <= r->f->nodes[r->t->sw_node[s]].nports;
			     p++) {
				q = peer_sw(r, s, p);
				if (q != FAB_NONE && r->level[q] + 1u == l)
					bs_or(bits(r, r->down, s),
					      bits(r, r->down, q), r->w);
			}
		}
	for (h = 0; h < r->nlev; h++) {
		uint64_t *rh = r->reach + h * r->nsw * r->w;
		uint64_t *ah = r->all + h * r->nsw * r->w;

		for (l = h + 1; l-- > 0;)
			for (s = 0; s < r->nsw; s++) {
				bool first = true;

				if (r->level[s] != l)
					continue;
				memcpy(bits(r, rh, s), bits(r, r->down, s),
				       r->w * sizeof(uint64_t));
				if (l == h)
					continue;
				for (p = 1;
				     p <= r->f->nodes[r->t->sw_node[s]].nports;
				     p++) {
					q = peer_sw(r, s, p);
					if (!is_up(r, s, q))
						continue;
					bs_or(bits(r, rh, s), bits(r, rh, q),
					      r->w);
					if (first)
						memcpy(bits(r, ah, s),
						       bits(r, rh, q),
						       r->w * sizeof(uint64_t));
					else
						bs_and(bits(r, ah, s),
						       bits(r, rh, q), r->w);
					first = false;
				}
			}
	}
}

/* A switch with hosts and where it sits in the tree's nesting. */
struct leaf {
	uint64_t nest[FT_MAX_LEVELS];	/* outermost subtree first */
	uint64_t guid;
	uint32_t sw;
};

static int cmp_leaf(const void *a, const void *b)
{
	const struct leaf *x = a, *y = b;
	unsigned int i;

	for (i = 0; i < FT_MAX_LEVELS; i++)
		if (x->nest[i] != y->nest[i])
			return x->nest[i] < y->nest[i] ? -1 : 1;
	return x->guid < y->guid ? -1 : x->guid > y->guid;
}

static bool has_hosts(const struct ftr *r, uint32_t s)
{
	uint32_t sn = r->t->sw_node[s];
	unsigned int p;

	for (p = 1; p <= r->f->nodes[sn].nports; p++) {
		uint32_t q = fab_port(r->f, sn, p)->peer;

		if (q != FAB_NONE && !fab_is_sw(r->f, q))
			return true;
	}
	return false;
}

/*
 * The switches with hosts, nested: by the subtree of switches up to the
 * level below the top that holds them (a pod's super-pod), then up to
 * each lower level (the pod), then by GUID.  A subtree is a connected
 * part of the levels up to h, named by its smallest GUID.  Returns the
 * count in *n; *out is the caller's to free.
 */
static int nest_leaves(const struct ftr *r, struct leaf **out, uint32_t *n)
{
	uint32_t *uf = malloc(r->nsw * sizeof(*uf));
	uint64_t *gmin = malloc(r->nsw * sizeof(*gmin));
	struct leaf *lf = calloc(r->nsw ? r->nsw : 1, sizeof(*lf));
	uint32_t s, q, k = 0;
	unsigned int p, h;

	if (!uf || !gmin || !lf) {
		free(lf);
		lf = NULL;
		goto out;
	}
	for (s = 0; s < r->nsw; s++) {
		uf[s] = s;
		if (r->level[s] != FT_NO_LEVEL && has_hosts(r, s)) {
			lf[k].guid = r->f->nodes[r->t->sw_node[s]].guid;
			lf[k++].sw = s;
		}
	}
	for (h = r->base + 1; h + 1 < r->nlev; h++) {
		for (s = 0; s < r->nsw; s++) {
			if (r->level[s] != h)
				continue;
			for (p = 1; p <= r->f->nodes[r->t->sw_node[s]].nports;
			     p++) {
				q = peer_sw(r, s, p);
				if (q != FAB_NONE && r->level[q] + 1u == h)
					uf[uf_find(uf, q)] = uf_find(uf, s);
			}
		}
		for (s = 0; s < r->nsw; s++)
			gmin[s] = UINT64_MAX;
		for (s = 0; s < r->nsw; s++) {
			uint64_t g = r->f->nodes[r->t->sw_node[s]].guid;

			q = uf_find(uf, s);
			if (g < gmin[q])
				gmin[q] = g;
		}
		/* outermost first: level h goes before every lower one */
		for (q = 0; q < k; q++)
			lf[q].nest[r->nlev - 2 - h] =
				gmin[uf_find(uf, lf[q].sw)];
	}
	qsort(lf, k, sizeof(*lf), cmp_leaf);
	*n = k;
out:
	free(uf);
	free(gmin);
	*out = lf;
	return lf ? 0 : -ENOMEM;
}

/*
 * CA LIDs numbered by the tree's nesting, not by where OpenSM's
 * discovery put the switches: leaf i's ports take keys from i times the
 * most any leaf has, in port order.  So each subtree's keys cover every
 * residue its d-mod-k digits select by; *k is past the last.  A port's
 * LID j (of 2^lmc) takes its base LID's key plus j: the base LIDs, which
 * carry the traffic that does not pick a path, stay spread as without
 * LMC, and each further LID takes the next slot up.
 */
static int ca_keys(struct ftr *r, uint32_t *k)
{
	const struct rt_tables *t = r->t;
	uint32_t i, n, stride = 0;
	struct leaf *lf;
	unsigned int p, j, pass;

	if (nest_leaves(r, &lf, &n))
		return -ENOMEM;
	for (pass = 0; pass < 2; pass++)
		for (i = 0; i < n; i++) {
			uint32_t sn = t->sw_node[lf[i].sw], c = 0;

			for (p = 1; p <= r->f->nodes[sn].nports; p++) {
				const struct fab_port *fp = fab_port(r->f, sn, p);
				const struct fab_port *cp;

				if (fp->peer == FAB_NONE ||
				    fab_is_sw(r->f, fp->peer))
					continue;
				cp = fab_port(r->f, fp->peer, fp->peer_port);
				for (j = 0; cp->lid && j < 1u << cp->lmc; j++)
					if (pass && cp->lid + j <= t->top)
						r->key[cp->lid + j] =
							i * stride + c + j;
				c += cp->lid != 0;
			}
			if (c > stride)
				stride = c;
		}
	*k = n * stride;
	free(lf);
	return 0;
}

/*
 * Destination keys: CA LIDs by ca_keys(), switch LIDs after them.
 * idx[l][lid] = (key / U_l) % nslot[l].
 */
static int build_keys(struct ftr *r)
{
	const struct rt_tables *t = r->t;
	uint32_t k = 0, n;
	unsigned int lid, l;
	uint64_t u;

	if (ca_keys(r, &k))
		return -ENOMEM;
	for (lid = 1; lid <= t->top; lid++) {
		n = t->lid_node[lid];
		if (n != FAB_NONE && fab_is_sw(r->f, n))
			r->key[lid] = k++;
	}
	for (u = 1, l = r->base; l < r->nlev; l++) {
		uint16_t *row = r->slot_idx + (size_t)l * (t->top + 1);

		for (lid = 1; r->nslot[l] && lid <= t->top; lid++)
			row[lid] = r->key[lid] / u % r->nslot[l];
		if (r->nslot[l])
			u *= r->nslot[l];
		if (u > UINT32_MAX)
			u = UINT32_MAX;
	}
	return rt_lids_by_switch(t, &r->dst_off, &r->dst_lid);
}

static uint32_t *dmap_get(struct dmap *m, uint64_t key)
{
	size_t i;

	if ((m->n + 1) * 2 > m->cap) {
		struct dmap g = { .cap = m->cap ? m->cap * 2 : 1024 };

		g.key = calloc(g.cap, sizeof(*g.key));
		g.cnt = calloc(g.cap, sizeof(*g.cnt));
		if (!g.key || !g.cnt) {
			free(g.key);
			free(g.cnt);
			return NULL;
		}
		for (i = 0; i < m->cap; i++) {
			size_t j;

			if (!m->key[i])
				continue;
			j = mix32(m->key[i] ^ m->key[i] >> 32) & (g.cap - 1);
			while (g.key[j])
				j = (j + 1) & (g.cap - 1);
			g.key[j] = m->key[i];
			g.cnt[j] = m->cnt[i];
		}
		free(m->key);
		free(m->cnt);
		g.n = m->n;
		*m = g;
	}
	for (i = mix32(key ^ key >> 32) & (m->cap - 1); m->key[i];
	     i = (i + 1) & (m->cap - 1))
		if (m->key[i] == key)
			return &m->cnt[i];
	m->key[i] = key;
	m->n++;
	return &m->cnt[i];
}

static uint64_t detour_key(const struct ftr *r, unsigned int lid, uint32_t q)
{
	uint64_t way = r->level[q] + 1u == r->nlev ? q :
		       (1ull << 31) | (uint64_t)r->level[q] << 24 | r->pos[q];

	return (uint64_t)lid << 32 | way;
}

/*
 * A detour around a missing slot: the way this LID has been sent least
 * often from any switch (siblings see the same failures, so choosing by
 * their own loads alone would pile one destination's traffic on one link
 * near it), then the port of s that took the fewest detours.  Ties start
 * at a hash of (switch, LID).  Returns the port, 0 when out of memory.
 */
static uint8_t detour(struct ftr *r, uint32_t s, unsigned int lid,
		      const uint8_t *cand, unsigned int n)
{
	unsigned int i, j, start = mix32(s * 0x9e3779b9u + lid) % n;
	uint32_t *own = r->own + r->f->nodes[r->t->sw_node[s]].port0;
	uint32_t *c, *win = NULL, best = UINT32_MAX;
	size_t cap = r->detours.cap;
	uint8_t port = 0;

	for (i = 0; i < n; i++) {
		j = (start + i) % n;
		c = dmap_get(&r->detours,
			     detour_key(r, lid, peer_sw(r, s, cand[j])));
		if (!c)
			return 0;
		if (*c < best || (*c == best && own[cand[j]] < own[port])) {
			best = *c;
			port = cand[j];
			win = c;
		}
	}
	/* A dmap_get that grew the map moved the counters: look it up again. */
	if (r->detours.cap != cap)
		win = dmap_get(&r->detours,
			       detour_key(r, lid, peer_sw(r, s, port)));
	if (!win)
		return 0;
	c = win;
	(*c)++;
	own[port]++;
	return port;
}

/* Down candidates of s per destination switch, as CSR in doff/dport. */
static void down_candidates(struct ftr *r, uint32_t s)
{
	uint32_t q, d, nd = r->nsw;
	unsigned int p, pass;
	size_t i;

	memset(r->dcnt, 0, nd * sizeof(*r->dcnt));
	for (pass = 0; pass < 2; pass++) {
		if (pass) {
			r->doff[0] = 0;
			for (d = 0; d < nd; d++) {
				r->doff[d + 1] = r->doff[d] + r->dcnt[d];
				r->dcnt[d] = 0;
			}
		}
		for (p = 1; p <= r->f->nodes[r->t->sw_node[s]].nports; p++) {
			const uint64_t *b;

			q = peer_sw(r, s, p);
			if (q == FAB_NONE || r->level[q] + 1 != r->level[s])
				continue;
			b = bits(r, r->down, q);
			for (i = 0; i < r->w; i++) {
				uint64_t x = b[i];

				while (x) {
					d = i * 64 + __builtin_ctzll(x);
					x &= x - 1;
					if (pass)
						r->dport[r->doff[d] +
							 r->dcnt[d]] = p;
					r->dcnt[d]++;
				}
			}
		}
	}
}

/*
 * Per switch being routed: the parent behind each of its up slots, so
 * each destination's candidates are bit tests on local data.
 */
struct upslots {
	const uint8_t *port;	/* slot -> port, 0 = missing */
	uint32_t parent[FT_MAX_SLOTS];	/* slot -> parent, FAB_NONE = missing */
	bool reaches[FT_MAX_SLOTS];	/* slot reaches the destination */
	const uint16_t *idx;	/* nominal slot per LID at s's level */
};

static void upslots_init(const struct ftr *r, uint32_t s, struct upslots *u)
{
	unsigned int i;

	u->port = r->slot_port + r->slot_off[s];
	for (i = 0; i < r->nslots[s]; i++)
		u->parent[i] = u->port[i] ? peer_sw(r, s, u->port[i]) :
					    FAB_NONE;
	u->idx = r->slot_idx + (size_t)r->level[s] * (r->t->top + 1);
}

static int route_up(struct ftr *r, uint32_t s, uint32_t d, unsigned int h,
		    struct upslots *u, uint8_t *row)
{
	const uint64_t *ah = r->all + ((size_t)h * r->nsw + s) * r->w;
	uint64_t *rh = r->reach + (size_t)h * r->nsw * r->w;
	uint8_t cand[FAB_MAX_PORTS + 1];
	unsigned int i, n = 0, lid;
	uint32_t k;

	if (r->intact[s] && has(ah, d)) {
		for (k = r->dst_off[d]; k < r->dst_off[d + 1]; k++) {
			lid = r->dst_lid[k];
			row[lid] = u->port[u->idx[lid]];
		}
		return 0;
	}
	/* A switch has at most one slot per port: cand cannot overflow. */
	for (i = 0; i < r->nslots[s]; i++) {
		u->reaches[i] = u->parent[i] != FAB_NONE &&
				has(bits(r, rh, u->parent[i]), d);
		if (u->reaches[i])
			cand[n++] = u->port[i];
	}
	for (k = r->dst_off[d]; n && k < r->dst_off[d + 1]; k++) {
		lid = r->dst_lid[k];
		i = r->level[s] >= r->base ? u->idx[lid] : r->nslots[s];
		if (i < r->nslots[s] && u->reaches[i]) {
			row[lid] = u->port[i];
			continue;
		}
		row[lid] = detour(r, s, lid, cand, n);
		if (!row[lid])
			return -ENOMEM;
		r->detoured[lid] = true;
	}
	return 0;
}

static int route_switch(struct ftr *r, uint32_t s)
{
	uint8_t *row = rt_lft(r->t, s);
	const uint64_t *dn = bits(r, r->down, s);
	struct upslots u;
	unsigned int h, lid;
	uint32_t d, k;
	int ret;

	down_candidates(r, s);
	upslots_init(r, s, &u);
	for (d = 0; d < r->nsw; d++) {
		if (d == s || r->dst_off[d] == r->dst_off[d + 1])
			continue;
		if (has(dn, d)) {
			const uint8_t *c = r->dport + r->doff[d];
			unsigned int n = r->doff[d + 1] - r->doff[d];

			for (k = r->dst_off[d]; k < r->dst_off[d + 1]; k++) {
				lid = r->dst_lid[k];
				row[lid] = n == 1 ? c[0] : c[r->key[lid] % n];
			}
			continue;
		}
		for (h = r->level[s] + 1; h < r->nlev; h++)
			if (has(r->reach + ((size_t)h * r->nsw + s) * r->w, d))
				break;
		if (h == r->nlev)
			r->unrouted[d] = true;
		else if ((ret = route_up(r, s, d, h, &u, row)))
			return ret;
	}
	return 0;
}

static void ftr_release(struct ftr *r)
{
	free(r->level);
	free(r->pos);
	free(r->gsize);
	free(r->slot_off);
	free(r->nslots);
	free(r->slot_port);
	free(r->intact);
	free(r->down);
	free(r->reach);
	free(r->all);
	free(r->dst_off);
	free(r->dst_lid);
	free(r->key);
	free(r->slot_idx);
	free(r->nbr);
	free(r->own);
	free(r->unrouted);
	free(r->detoured);
	free(r->detours.key);
	free(r->detours.cnt);
	free(r->dcnt);
	free(r->dport);
	free(r->doff);
}

static int ftr_init(struct ftr *r, const struct fabric *f,
		    const struct ft_info *ft, struct rt_tables *t)
{
	size_t nb, top = t->top + 1, nsw = t->nsw + 1;
	uint32_t s;
	unsigned int p, l;

	memset(r, 0, sizeof(*r));
	r->f = f;
	r->t = t;
	r->nsw = t->nsw;
	r->nlev = ft->nlevels;
	r->base = ft->leaf_level;
	r->w = (r->nsw + 63) / 64;
	nb = r->nsw * r->w;
	r->level = malloc(nsw);
	r->pos = calloc(nsw, sizeof(*r->pos));
	r->gsize = calloc(nsw, sizeof(*r->gsize));
	r->slot_off = calloc(nsw, sizeof(*r->slot_off));
	r->nslots = calloc(nsw, sizeof(*r->nslots));
	r->intact = calloc(nsw, sizeof(*r->intact));
	r->down = calloc(nb + 1, sizeof(*r->down));
	r->reach = calloc(nb * r->nlev + 1, sizeof(*r->reach));
	r->all = calloc(nb * r->nlev + 1, sizeof(*r->all));
	r->key = calloc(top, sizeof(*r->key));
	r->slot_idx = calloc(top * (r->nlev + 1), sizeof(*r->slot_idx));
	r->own = calloc(f->nports + 1, sizeof(*r->own));
	r->unrouted = calloc(nsw, sizeof(*r->unrouted));
	r->detoured = calloc(top, sizeof(*r->detoured));
	r->dcnt = calloc(nsw, sizeof(*r->dcnt));
	r->doff = calloc(nsw + 1, sizeof(*r->doff));
	/* Each destination is below at most every down port of a switch. */
	r->dport = malloc(nsw * (FAB_MAX_PORTS + 1));
	if (!r->level || !r->pos || !r->gsize || !r->slot_off || !r->nslots ||
	    !r->intact || !r->down || !r->reach || !r->all || !r->key ||
	    !r->slot_idx || !r->own || !r->unrouted || !r->detoured ||
	    !r->dcnt || !r->doff || !r->dport)
		return -ENOMEM;
	if (rt_peer_switches(t, &r->nbr))
		return -ENOMEM;
	for (s = 0; s < r->nsw; s++)
		r->level[s] = ft->level[t->sw_node[s]];
	/* Parallel links per level: the most between two switches. */
	for (s = 0; s < r->nsw; s++) {
		uint32_t q;

		l = r->level[s];
		if (l == FT_NO_LEVEL || l + 1 >= r->nlev)
			continue;
		for (p = 1; p <= f->nodes[t->sw_node[s]].nports; p++) {
			unsigned int k, c = 0;

			q = peer_sw(r, s, p);
			if (!is_up(r, s, q))
				continue;
			for (k = 1; k <= f->nodes[t->sw_node[s]].nports; k++)
				c += peer_sw(r, s, k) == q;
			if (c > r->par[l])
				r->par[l] = c;
		}
	}
	return 0;
}

/*
 * The job search's choices at s towards ds: the children ds is below, else
 * the parents that reach it turning at the lowest level, as route_switch
 * takes them, so any mix stays minimal and up*-down*.
 */
static unsigned int cands(void *ctx, uint32_t s, uint32_t ds, uint8_t *out)
{
	const struct ftr *r = ctx;
	bool dn = has(bits(r, r->down, s), ds);
	const uint64_t *rh = NULL;
	unsigned int p, h, n = 0;
	uint32_t q;

	if (r->level[s] == FT_NO_LEVEL)
		return 0;
	for (h = r->level[s] + 1; !dn && !rh && h < r->nlev; h++)
		if (has(r->reach + ((size_t)h * r->nsw + s) * r->w, ds))
			rh = r->reach + (size_t)h * r->nsw * r->w;
	if (!dn && !rh)
		return 0;
	for (p = 1; p <= r->f->nodes[r->t->sw_node[s]].nports; p++) {
		q = peer_sw(r, s, p);
		if (q == FAB_NONE)
			continue;
		if (dn ? r->level[q] + 1 == r->level[s] &&
			 has(bits(r, r->down, q), ds) :
			 is_up(r, s, q) && has(rh + (size_t)q * r->w, ds))
			out[n++] = p;
	}
	return n;
}

/*
 * Whether some switch misses an up slot: d-mod-k then detours, and the
 * tree is balanced again by the link loads.  An intact tree keeps
 * d-mod-k, which is on the topology's floor there.
 */
static bool degraded(const struct ftr *r)
{
	uint32_t s;

	for (s = 0; s < r->nsw; s++)
		if (r->nslots[s] && r->level[s] >= r->base && !r->intact[s])
			return true;
	return false;
}

/*
 * r for tree ft in t: levels, slots, reach and keys; r needs
 * ftr_release() whatever this returns.
 */
static int prepare(struct ftr *r, const struct fabric *f,
		   const struct ft_info *ft, struct rt_tables *t)
{
	int ret = ftr_init(r, f, ft, t);

	if (!ret)
		ret = place_switches(r);
	if (!ret)
		ret = build_slots(r);
	if (!ret) {
		build_reach(r);
		ret = build_keys(r);
	}
	return ret;
}

/*
 * Hold every route to the levels data climbs.  route_switch() sends a
 * LID down where its switch is below, else up to a parent that reaches
 * it turning lower, and the balancing and the job search pick among the
 * same ports (cands()): up*-down* by levels, every switch's route to
 * every LID included.  Only the LIDs of the switches some switch could
 * not reach that way, and every LID where a switch has no level, have
 * holes: rt_mgmt_updown() fills those, up*-down* where it can.
 */
static int by_levels(const struct ftr *r, struct rt_tables *t)
{
	uint32_t *key = malloc((r->nsw ? r->nsw : 1) * sizeof(*key));
	const bool *dsw = r->unrouted;
	uint32_t s;
	long ret;

	if (!key)
		return -ENOMEM;
	for (s = 0; s < r->nsw; s++) {
		key[s] = r->level[s];
		if (r->level[s] == FT_NO_LEVEL)
			dsw = NULL;
	}
	ret = rt_mgmt_updown(t, key, dsw);
	if (ret >= 0)
		ret = rt_mgmt_vl1(t);
	free(key);
	return ret < 0 ? (int)ret : 0;
}

struct colouring {
	struct ftr *r;
	const struct rt_jobs *jobs;
};

/* The jobs' rings on their own links first (ringcol.h). */
static int colour_rings(void *ctx)
{
	const struct colouring *c = ctx;
	struct rt_ringtree tree = { .level = c->r->level, .pos = c->r->pos,
				    .nlev = c->r->nlev };
	long ret = rt_ringcolour(c->r->t, c->jobs, &tree, cands, c->r);

	return ret < 0 ? (int)ret : 0;
}

int rt_fattree(const struct fabric *f, const struct ft_info *ft,
	       const struct rt_jobs *jobs, struct rt_tables *t,
	       const char **use)
{
	struct rt_jobroute_opts o = { .evals = jobs ? jobs->search_moves : 0 };
	struct rt_jobroute_stats st;
	struct colouring col = { .jobs = jobs };
	const char *u;
	struct ftr r;
	uint32_t s;
	int ret;

	if (!use)
		use = &u;
	*use = "";
	if (!ft->tree || !ft->nlevels)
		return -EINVAL;
	ret = prepare(&r, f, ft, t);
	for (s = 0; !ret && s < r.nsw; s++)
		if (r.level[s] != FT_NO_LEVEL)
			ret = route_switch(&r, s);
	if (!ret && degraded(&r))
		ret = rt_balance(t, cands, &r, r.detoured, NULL);
	if (!ret && jobs && jobs->njobs) {
		if (jobs->search_try < RT_JOBROUTE_COLOURED && !degraded(&r))
			o.first = colour_rings;
		col.r = &r;
		o.first_ctx = &col;
		ret = rt_jobroute(t, jobs, cands, &r, &o, &st);
		*use = st.skipped ? "none (too large for the collective search)" :
				    "collective search";
	}
	if (!ret)
		ret = by_levels(&r, t);
	ftr_release(&r);
	return ret;
}

static int recognise(const struct fabric *f, struct rt_fit *fit)
{
	struct ft_info *ft = calloc(1, sizeof(*ft));
	int ret;

	if (!ft)
		return -ENOMEM;
	fit->info = ft;
	ret = ft_recognise(f, ft);
	fit->fits = ft->tree;
	fit->topology = "fat-tree";
	fit->summary = ft->summary;
	return ret;
}

static void release(struct rt_fit *fit)
{
	ft_info_release(fit->info);
	free(fit->info);
}

static int route(const struct fabric *f, const void *info,
		 const struct rt_jobs *jobs, struct rt_tables *t, char *detail,
		 size_t len, const char **use)
{
	int ret = rt_fattree(f, info, jobs, t, use);

	snprintf(detail, len, "%s",
		 ret == -E2BIG ? "groups too large for fat-tree slots" : "");
	return ret;
}

const struct rt_engine rt_fattree_engine = {
	.name = "fattree",
	.recognise = recognise,
	.release = release,
	.route = route,
	.job_tries = RT_JOBROUTE_TRIES,
};
