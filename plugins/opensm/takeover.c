// SPDX-License-Identifier: MIT
/*
 * LFT read-back at the SM's first master sweep, through OpenSM's own MAD
 * layer, and the SM's state by name.
 */
#include <stdlib.h>
#include <string.h>

/*
 * First: osm_subn_opt_t has fields under ENABLE_OSM_PERF_MGR, which only
 * osm_config.h defines (osm_event_plugin.h includes it, the others do
 * not); without it every field of osm_subn_t after opt is read 56 bytes
 * early, and osm_opensm_t's sm with them.
 */
#include <opensm/osm_config.h>
#include <opensm/osm_node.h>
#include <opensm/osm_opensm.h>
#include <opensm/osm_sm.h>
#include <opensm/osm_switch.h>

#include "takeover.h"

const char *ga_takeover_state(const osm_opensm_t *osm)
{
	/* written by OpenSM's state manager: one byte, read as it stands */
	switch (__atomic_load_n(&osm->subn.sm_state, __ATOMIC_RELAXED)) {
	case IB_SMINFO_STATE_MASTER:
		return "master";
	case IB_SMINFO_STATE_STANDBY:
		return "standby";
	case IB_SMINFO_STATE_DISCOVERING:
		return "discovering";
	case IB_SMINFO_STATE_NOTACTIVE:
		return "not active";
	default:
		return "unknown";
	}
}

/*
 * Discovery ends in DISCOVERING on a start or a standby's takeover (the
 * state turns master after the event), with first_time_master_sweep set
 * after a handover.
 */
static bool first_master_sweep(const osm_subn_t *subn)
{
	return subn->sm_state == IB_SMINFO_STATE_DISCOVERING ||
	       subn->first_time_master_sweep || subn->coming_out_of_standby;
}

/*
 * Ask for sw's blocks up to its LinearFDBTop; the answers land in
 * sw->lft (OpenSM's receiver stores any LFT response there), sized
 * first as OpenSM's routing will size it.  A block that gets no answer
 * stays all OSM_NO_PATH, which a block routing some LID never is (one
 * routing none is not sent then: those LIDs are nobody's).  Returns the
 * blocks asked for.
 */
static unsigned int ask(osm_opensm_t *osm, osm_switch_t *sw)
{
	uint16_t top = cl_ntoh16(sw->switch_info.lin_top);
	osm_physp_t *p0 = osm_node_get_physp_ptr(sw->p_node, 0);
	unsigned int b, nb = top / IB_SMP_DATA_SIZE + 1, n = 0;
	osm_madw_context_t ctx;

	if (!top || !p0 || osm_switch_prepare_path_rebuild(sw, top))
		return 0;
	memset(sw->lft, OSM_NO_PATH, (size_t)nb * IB_SMP_DATA_SIZE);
	memset(&ctx, 0, sizeof(ctx));
	ctx.lft_context.node_guid = osm_node_get_node_guid(sw->p_node);
	ctx.lft_context.set_method = FALSE;
	for (b = 0; b < nb; b++)
		n += osm_req_get(&osm->sm, osm_physp_get_dr_path_ptr(p0),
				 IB_MAD_ATTR_LIN_FWD_TBL, cl_hton32(b), TRUE,
				 0, 0, CL_DISP_MSGID_NONE, &ctx) == IB_SUCCESS;
	return n;
}

void ga_takeover_read(struct ga_takeover *t, osm_opensm_t *osm)
{
	cl_qmap_t *tbl = &osm->subn.sw_guid_tbl;
	cl_map_item_t *it;
	unsigned int n;

	ga_takeover_done(t, osm);
	if (!first_master_sweep(&osm->subn))
		return;
	CL_PLOCK_ACQUIRE(&osm->lock);
	t->guid = calloc(cl_qmap_count(tbl) + 1, sizeof(*t->guid));
	for (it = cl_qmap_head(tbl); t->guid && it != cl_qmap_end(tbl);
	     it = cl_qmap_next(it)) {
		osm_switch_t *sw = (osm_switch_t *)it;

		n = ask(osm, sw);
		if (!n)
			continue;
		t->asked += n;
		t->guid[t->nsw++] =
			cl_ntoh64(osm_node_get_node_guid(sw->p_node));
	}
	CL_PLOCK_RELEASE(&osm->lock);
}

/* The blocks OpenSM will consider for sw: up to its top LID's. */
static void count_blocks(struct ga_takeover *t, const osm_switch_t *sw)
{
	unsigned int b, nb = sw->max_lid_ho / IB_SMP_DATA_SIZE + 1;

	for (b = 0; b < nb; b++) {
		if (memcmp(sw->new_lft + b * IB_SMP_DATA_SIZE,
			   sw->lft + b * IB_SMP_DATA_SIZE, IB_SMP_DATA_SIZE))
			t->differ++;
		else
			t->same++;
	}
}

bool ga_takeover_compare(struct ga_takeover *t, osm_opensm_t *osm)
{
	osm_switch_t *sw;
	unsigned int i;

	if (!t->nsw)
		return false;
	for (i = 0; i < t->nsw; i++) {
		sw = osm_get_switch_by_guid(&osm->subn, cl_hton64(t->guid[i]));
		if (!sw || !sw->new_lft || !sw->lft ||
		    sw->lft_size <= sw->max_lid_ho)
			continue;
		sw->need_update = 0;
		count_blocks(t, sw);
	}
	t->need_update = osm->subn.need_update;
	osm->subn.need_update = 0;
	t->cleared = true;
	return true;
}

void ga_takeover_done(struct ga_takeover *t, osm_opensm_t *osm)
{
	if (t->cleared)
		osm->subn.need_update = t->need_update;
	free(t->guid);
	memset(t, 0, sizeof(*t));
}
