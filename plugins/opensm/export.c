// SPDX-License-Identifier: MIT
/* Table export: LFTs into new_lft, route lengths into OpenSM's hop tables. */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "export.h"

_Static_assert(RT_NO_PATH == OSM_NO_PATH, "LFT hole markers differ");

/* Route lengths per switch for one LID; finite values are below D_NONE. */
#define D_UNKNOWN 0xff
#define D_BUSY 0xfe		/* on the walk being resolved: a loop */
#define D_NONE 0xfd		/* the route is lost on the way */

/* Next switch on sw's route to lid, FAB_NONE where the route leaves. */
static uint32_t next_sw(const struct rt_tables *t, uint32_t sw,
			unsigned int lid)
{
	const struct fabric *f = t->fab;
	uint32_t n = t->sw_node[sw];
	unsigned int p = rt_lft(t, sw)[lid];
	const struct fab_port *fp;

	if (p == 0 || p > f->nodes[n].nports)
		return FAB_NONE;
	fp = fab_port(f, n, p);
	if (fp->peer == FAB_NONE || !fab_is_sw(f, fp->peer))
		return FAB_NONE;
	return t->node_sw[fp->peer];
}

/*
 * Resolve dist[from] by following the LFTs until a known switch, then
 * fill in every switch passed; each switch is walked once per LID.
 */
static void walk(const struct rt_tables *t, unsigned int lid, uint32_t from,
		 uint8_t *dist, uint32_t *stack)
{
	uint32_t j = from, x;
	bool dead = false;
	size_t k = 0;
	uint8_t h;

	while (dist[j] == D_UNKNOWN) {
		dist[j] = D_BUSY;
		stack[k++] = j;
		x = next_sw(t, j, lid);
		if (x == FAB_NONE) {
			dead = true;
			break;
		}
		j = x;
	}
	h = dead || dist[j] >= D_NONE ? D_NONE : dist[j];
	if (dead)
		dist[stack[--k]] = D_NONE;
	while (k--) {
		if (h < D_NONE - 1)
			h++;
		else
			h = D_NONE;
		dist[stack[k]] = h;
	}
}

static int set_hops(osm_switch_t *sw, unsigned int lid, unsigned int port,
		    unsigned int hops)
{
	if (lid > sw->max_lid_ho || port >= sw->num_ports)
		return -ERANGE;
	return osm_switch_set_hops(sw, lid, port, hops) ? -ENOMEM : 0;
}

/* Switches that CAs hang off: the only targets of multicast trees. */
static uint32_t *leaf_switches(const struct rt_tables *t, uint32_t *n)
{
	const struct fabric *f = t->fab;
	uint32_t *out = calloc(t->nsw ? t->nsw : 1, sizeof(*out));
	uint32_t i;
	unsigned int p;

	if (!out)
		return NULL;
	*n = 0;
	for (i = 0; i < t->nsw; i++) {
		uint32_t nd = t->sw_node[i];
		unsigned int lid = fab_port(f, nd, 0)->lid;

		if (!lid || lid > t->top)
			continue;
		for (p = 1; p <= f->nodes[nd].nports; p++) {
			uint32_t peer = fab_port(f, nd, p)->peer;

			if (peer != FAB_NONE && !fab_is_sw(f, peer)) {
				out[(*n)++] = i;
				break;
			}
		}
	}
	return out;
}

int ga_export_hops(osm_subn_t *subn, const struct rt_tables *t)
{
	uint32_t nleaf = 0, k, i, *leaf = leaf_switches(t, &nleaf);
	uint32_t *stack = calloc(t->nsw ? t->nsw : 1, sizeof(*stack));
	/* dist[k * nsw + i]: switch i to leaf k; a column per walk. */
	uint8_t *dist = malloc((size_t)nleaf * t->nsw + 1);
	int ret = -ENOMEM;

	if (!leaf || !stack || !dist)
		goto out;
	memset(dist, D_UNKNOWN, (size_t)nleaf * t->nsw);
	for (k = 0; k < nleaf; k++) {
		uint8_t *col = dist + (size_t)k * t->nsw;
		unsigned int lid =
			fab_port(t->fab, t->sw_node[leaf[k]], 0)->lid;

		col[leaf[k]] = 0;
		for (i = 0; i < t->nsw; i++)
			walk(t, lid, i, col, stack);
	}
	/* Switch by switch: OpenSM's rows of one switch stay in cache. */
	ret = 0;
	for (i = 0; i < t->nsw && ret >= 0; i++) {
		uint64_t guid = t->fab->nodes[t->sw_node[i]].guid;
		osm_switch_t *sw = osm_get_switch_by_guid(subn,
							  cl_hton64(guid));
		const uint8_t *row = rt_lft(t, i);
		int err = 0;

		if (!sw) {
			ret++;
			continue;
		}
		for (k = 0; k < nleaf && !err; k++) {
			unsigned int lid =
				fab_port(t->fab, t->sw_node[leaf[k]], 0)->lid;
			uint8_t h = dist[(size_t)k * t->nsw + i];

			if (h < D_NONE)
				err = set_hops(sw, lid, row[lid], h);
		}
		if (err)
			ret = err;
	}
out:
	free(dist);
	free(stack);
	free(leaf);
	return ret;
}

/*
 * Whether an entry of row names a port sw lacks.  RT_NO_PATH is 0xff, so
 * entry + 1 wraps it to 0 and a port p < nports becomes p + 1 <= nports:
 * the largest entry + 1 of the row decides: a reduction without a branch
 * per entry, as every sweep checks every entry.
 */
static bool bad_port(const uint8_t *row, unsigned int top, uint8_t nports)
{
	unsigned int lid;
	uint8_t m = 0, v;

	for (lid = 1; lid <= top; lid++) {
		v = row[lid] + 1;
		m = v > m ? v : m;
	}
	return m > nports;
}

int ga_export_lfts(const struct ga_sweep *s, const struct rt_tables *t)
{
	uint32_t i;

	for (i = 0; i < t->nsw; i++) {
		const osm_switch_t *sw = s->sw[t->sw_node[i]];

		if (!sw)
			return -ENODEV;
		if (t->top > sw->max_lid_ho || t->top >= sw->lft_size)
			return -ERANGE;
		if (bad_port(rt_lft(t, i), t->top, sw->num_ports))
			return -ERANGE;
	}
	for (i = 0; i < t->nsw; i++) {
		osm_switch_t *sw = s->sw[t->sw_node[i]];

		memcpy(sw->new_lft + 1, rt_lft(t, i) + 1, t->top);
	}
	return 0;
}
