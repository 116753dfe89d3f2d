/* SPDX-License-Identifier: MIT */
/*
 * Table export: hand a routing back to OpenSM, the LFTs into each switch's
 * new_lft and hop counts along the chosen routes for multicast and dumps.
 */
#ifndef GPUAWARE_EXPORT_H
#define GPUAWARE_EXPORT_H

#include "../../routing/lft.h"
#include "import.h"

/*
 * Record in OpenSM's hop tables, at every switch of subn that t routes
 * (found by GUID, so t may outlive the sweep's switch pointers), the
 * port and length of the route to each switch that CAs hang off.
 * OpenSM reads hops only for multicast trees, which it builds toward
 * the switches of the members, and for its dumps, both after the unicast
 * routing is done; other LIDs get no rows, which keeps this to switches
 * x leaf switches small allocations.  opensm.fdbs then says "HOPS
 * UNKNOWN" for the other switches' LIDs (ibdmchk reads only the ports),
 * and a switch's own port 0 cannot be a multicast member.  The caller
 * holds OpenSM's lock.  Returns how many of t's switches subn no longer
 * has, -ENOMEM, or -ERANGE for a LID or port beyond a switch.
 */
int ga_export_hops(osm_subn_t *subn, const struct rt_tables *t);

/*
 * Copy t into every switch's new_lft.  Refuses, writing nothing, with
 * -ENODEV when a switch has no OpenSM switch object yet and -ERANGE when
 * a LID lies beyond a switch's table or a port beyond the switch.
 */
int ga_export_lfts(const struct ga_sweep *s, const struct rt_tables *t);

#endif
