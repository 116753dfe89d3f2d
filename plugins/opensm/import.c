// SPDX-License-Identifier: MIT
/* Subnet import: OpenSM's nodes, port LIDs and healthy links as a fabric. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <opensm/osm_node.h>
#include <opensm/osm_port.h>

#include "import.h"

/*
 * node_guid_tbl is a cl_qmap, walked in ascending key order, so the keys
 * collected in that walk are sorted and a node's fabric index is found by
 * binary search on its map key.
 */
struct index {
	uint64_t *key;
	size_t n;
};

static uint32_t node_index(const struct index *ix, const osm_node_t *nd)
{
	uint64_t k = cl_qmap_key(&nd->map_item);
	size_t lo = 0, hi = ix->n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (ix->key[mid] < k)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < ix->n && ix->key[lo] == k ? lo : FAB_NONE;
}

static unsigned int lanes(const ib_port_info_t *pi)
{
	switch (pi->link_width_active) {
	case IB_LINK_WIDTH_ACTIVE_1X:
		return 1;
	case IB_LINK_WIDTH_ACTIVE_2X:
		return 2;
	case IB_LINK_WIDTH_ACTIVE_4X:
		return 4;
	case IB_LINK_WIDTH_ACTIVE_8X:
		return 8;
	case IB_LINK_WIDTH_ACTIVE_12X:
		return 12;
	}
	return 0;
}

/* Per-lane rate in 100 Mb/s as topology/netfile.c counts it. */
static unsigned int lane_rate(const ib_port_info_t *pi)
{
	if (pi->capability_mask & IB_PORT_CAP_HAS_EXT_SPEEDS) {
		switch (ib_port_info_get_link_speed_ext_active(pi)) {
		case IB_LINK_SPEED_EXT_ACTIVE_14:
			return 140;
		case IB_LINK_SPEED_EXT_ACTIVE_25:
			return 250;
		case IB_LINK_SPEED_EXT_ACTIVE_50:
			return 500;
		}
	}
	switch (ib_port_info_get_link_speed_active(pi)) {
	case IB_LINK_SPEED_ACTIVE_2_5:
		return 25;
	case IB_LINK_SPEED_ACTIVE_5:
		return 50;
	case IB_LINK_SPEED_ACTIVE_10:
		return 100;
	}
	return 0;
}

static int add_nodes(osm_subn_t *subn, struct ga_sweep *s, struct index *ix)
{
	cl_qmap_t *tbl = &subn->node_guid_tbl;
	cl_map_item_t *it;
	char desc[IB_NODE_DESCRIPTION_SIZE + 1];
	int ret;

	for (it = cl_qmap_head(tbl); it != cl_qmap_end(tbl);
	     it = cl_qmap_next(it)) {
		osm_node_t *nd = (osm_node_t *)it;
		unsigned int np = osm_node_get_num_physp(nd);
		bool sw = osm_node_get_type(nd) == IB_NODE_TYPE_SWITCH;

		if (np < 2)
			return -EINVAL;
		memcpy(desc, nd->node_desc.description, sizeof(desc) - 1);
		desc[sizeof(desc) - 1] = '\0';
		ret = fab_add_node(s->fab, sw ? FAB_SW : FAB_CA, np - 1,
				   cl_ntoh64(osm_node_get_node_guid(nd)), desc);
		if (ret < 0)
			return ret;
		s->fab->nodes[ret].sysguid = cl_ntoh64(nd->node_info.sys_guid);
		ix->key[ix->n++] = cl_qmap_key(it);
		s->sw[ret] = nd->sw;
	}
	return 0;
}

/*
 * LIDs come from the port table, as OpenSM's own engines take them, so
 * the fabric routes exactly the LIDs OpenSM assigned this sweep.
 */
static void add_lids(osm_subn_t *subn, struct ga_sweep *s,
		     const struct index *ix)
{
	cl_qmap_t *tbl = &subn->port_guid_tbl;
	cl_map_item_t *it;

	for (it = cl_qmap_head(tbl); it != cl_qmap_end(tbl);
	     it = cl_qmap_next(it)) {
		osm_port_t *port = (osm_port_t *)it;
		osm_physp_t *pp = port->p_physp;
		uint32_t n = node_index(ix, port->p_node);
		struct fab_port *fp;

		if (n == FAB_NONE || !pp)
			continue;
		if (!fab_is_sw(s->fab, n) && (pp->port_num < 1 ||
		    pp->port_num > s->fab->nodes[n].nports))
			continue;
		fp = fab_lid_port(s->fab, n, pp->port_num);
		fp->guid = cl_ntoh64(osm_port_get_guid(port));
		fp->lid = cl_ntoh16(osm_port_get_base_lid(port));
		fp->lmc = osm_port_get_lmc(port);
	}
}

static int add_links(osm_subn_t *subn, struct ga_sweep *s,
		     const struct index *ix)
{
	cl_qmap_t *tbl = &subn->node_guid_tbl;
	cl_map_item_t *it;
	uint32_t n = 0;
	int ret;

	for (it = cl_qmap_head(tbl); it != cl_qmap_end(tbl);
	     it = cl_qmap_next(it), n++) {
		osm_node_t *nd = (osm_node_t *)it;
		unsigned int p, np = osm_node_get_num_physp(nd);

		for (p = 1; p < np; p++) {
			osm_physp_t *pp = osm_node_get_physp_ptr(nd, p);
			osm_physp_t *rp = pp ? pp->p_remote_physp : NULL;
			uint32_t m;

			if (!rp)
				continue;
			m = node_index(ix, rp->p_node);
			/* Each cable is seen from both ends: take it once. */
			if (m != FAB_NONE &&
			    (m < n || (m == n && rp->port_num < p)))
				continue;
			if (m == FAB_NONE || m == n ||
			    !osm_link_is_healthy(pp) || rp->port_num < 1 ||
			    rp->port_num > s->fab->nodes[m].nports) {
				s->dropped++;
				continue;
			}
			ret = fab_link(s->fab, n, p, m, rp->port_num,
				       lanes(&pp->port_info),
				       lane_rate(&pp->port_info));
			if (ret == -EBUSY) {
				s->dropped++;
				continue;
			}
			if (ret)
				return ret;
		}
	}
	return 0;
}

int ga_import(osm_subn_t *subn, struct ga_sweep *s)
{
	size_t nn = cl_qmap_count(&subn->node_guid_tbl);
	struct index ix = { NULL, 0 };
	int ret = -ENOMEM;

	memset(s, 0, sizeof(*s));
	s->fab = fab_new();
	s->sw = calloc(nn ? nn : 1, sizeof(*s->sw));
	ix.key = calloc(nn ? nn : 1, sizeof(*ix.key));
	if (!s->fab || !s->sw || !ix.key)
		goto out_err;
	ret = add_nodes(subn, s, &ix);
	if (ret)
		goto out_err;
	add_lids(subn, s, &ix);
	ret = add_links(subn, s, &ix);
	if (ret)
		goto out_err;
	free(ix.key);
	return 0;

out_err:
	free(ix.key);
	ga_sweep_release(s);
	return ret;
}

void ga_sweep_forget_switches(struct ga_sweep *s)
{
	free(s->sw);
	s->sw = NULL;
}

void ga_sweep_release(struct ga_sweep *s)
{
	fab_free(s->fab);
	free(s->sw);
	memset(s, 0, sizeof(*s));
}
