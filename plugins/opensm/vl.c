// SPDX-License-Identifier: MIT
/*
 * Live SL / VL tables for OpenSM's SA and QoS manager, and the VL budget
 * the subnet's ports allow.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <opensm/osm_node.h>
#include <opensm/osm_switch.h>

#include "vl.h"

int ga_vl_init(struct ga_vl *v)
{
	memset(v, 0, sizeof(*v));
	return -pthread_mutex_init(&v->lock, NULL);
}

static void drop(struct rt_vl *vl, uint64_t *guid, uint32_t *sw)
{
	if (vl && vl->release)
		vl->release(vl);
	free(guid);
	free(sw);
}

void ga_vl_release(struct ga_vl *v)
{
	drop(v->vl, v->guid, v->sw);
	pthread_mutex_destroy(&v->lock);
	memset(v, 0, sizeof(*v));
}

/* Switch indices in node-GUID order, for update_sl2vl's lookups. */
static int map_switches(const struct rt_tables *t, uint64_t **guid,
			uint32_t **sw)
{
	uint64_t *g = malloc((t->nsw + 1) * sizeof(*g));
	uint32_t *s = malloc((t->nsw + 1) * sizeof(*s)), i, j;

	if (!g || !s) {
		free(g);
		free(s);
		return -ENOMEM;
	}
	/* insertion into place: import gives switches in GUID order already */
	for (i = 0; i < t->nsw; i++) {
		uint64_t x = t->fab->nodes[t->sw_node[i]].guid;

		for (j = i; j > 0 && g[j - 1] > x; j--) {
			g[j] = g[j - 1];
			s[j] = s[j - 1];
		}
		g[j] = x;
		s[j] = i;
	}
	*guid = g;
	*sw = s;
	return 0;
}

int ga_vl_swap(struct ga_vl *v, struct rt_tables *t)
{
	struct rt_vl *nvl = t->own_vl, *ovl;
	uint64_t *guid = NULL, *og;
	uint32_t *sw = NULL, *os;
	int ret;

	if (nvl) {
		ret = map_switches(t, &guid, &sw);
		if (ret)
			return ret;
		if (t->vl == t->own_vl)
			t->vl = NULL;
		t->own_vl = NULL;
	}
	pthread_mutex_lock(&v->lock);
	ovl = v->vl;
	og = v->guid;
	os = v->sw;
	v->vl = nvl;
	v->guid = guid;
	v->sw = sw;
	v->nsw = nvl ? t->nsw : 0;
	pthread_mutex_unlock(&v->lock);
	drop(ovl, og, os);
	return 0;
}

/* The callbacks read only t->vl, so a stand-in table carries it. */
static const struct rt_tables *carrier(struct rt_tables *tmp,
				       const struct rt_vl *vl)
{
	memset(tmp, 0, sizeof(*tmp));
	tmp->vl = vl;
	return tmp;
}

uint8_t ga_vl_path_sl(struct ga_vl *v, uint8_t hint, unsigned int slid,
		      unsigned int dlid)
{
	struct rt_tables tmp;
	uint8_t sl = hint;

	pthread_mutex_lock(&v->lock);
	if (v->vl)
		sl = v->vl->path_sl(carrier(&tmp, v->vl), slid, dlid);
	pthread_mutex_unlock(&v->lock);
	return sl;
}

static uint32_t find_sw(const struct ga_vl *v, uint64_t guid)
{
	uint32_t lo = 0, hi = v->nsw, mid;

	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		if (v->guid[mid] == guid)
			return v->sw[mid];
		if (v->guid[mid] < guid)
			lo = mid + 1;
		else
			hi = mid;
	}
	return FAB_NONE;
}

void ga_vl_sl2vl(struct ga_vl *v, const osm_physp_t *p, unsigned int in,
		 unsigned int out, ib_slvl_table_t *tbl)
{
	osm_node_t *n = osm_physp_get_node_ptr(p);
	struct rt_tables tmp;
	uint32_t sw = FAB_NONE;
	unsigned int sl;

	pthread_mutex_lock(&v->lock);
	if (!v->vl)
		goto out;
	if (osm_node_get_type(n) == IB_NODE_TYPE_SWITCH) {
		sw = find_sw(v, cl_ntoh64(osm_node_get_node_guid(n)));
		if (sw == FAB_NONE)
			goto out;
	}
	for (sl = 0; sl < 16; sl++)
		ib_slvl_table_set(tbl, sl,
				  v->vl->sl2vl(carrier(&tmp, v->vl), sw, in,
					       out, sl));
out:
	pthread_mutex_unlock(&v->lock);
}

/* VLCap / OperVLs codes: 1 VL0, 2 VL0-1, 3 VL0-3, 4 VL0-7, 5 VL0-14. */
static unsigned int vls_of(unsigned int code)
{
	return code >= 5 ? 15 : code ? 1u << (code - 1) : 1;
}

static unsigned int port_vls(const osm_physp_t *p, unsigned int cap)
{
	unsigned int c = ib_port_info_get_vl_cap(&p->port_info);

	return c && c < cap ? c : cap;
}

unsigned int ga_vl_available(const osm_subn_t *subn)
{
	unsigned int cap = subn->opt.max_op_vls ? subn->opt.max_op_vls : 5;
	const cl_map_item_t *it;
	const osm_node_t *n;
	unsigned int i;
	osm_physp_t *p;

	for (it = cl_qmap_head(&subn->node_guid_tbl);
	     it != cl_qmap_end(&subn->node_guid_tbl); it = cl_qmap_next(it)) {
		n = (const osm_node_t *)it;
		for (i = 1; i < osm_node_get_num_physp(n); i++) {
			p = osm_node_get_physp_ptr((osm_node_t *)n, i);
			if (!p || !osm_physp_get_remote(p))
				continue;
			cap = port_vls(p, cap);
		}
	}
	return vls_of(cap);
}
