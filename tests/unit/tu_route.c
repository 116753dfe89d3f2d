// SPDX-License-Identifier: MIT
/* Table walks for the unit suites. */
#include "tu_route.h"

bool tu_reaches(const struct rt_tables *t, uint32_t sw, unsigned int lid)
{
	const struct fabric *f = t->fab;
	uint32_t n = t->sw_node[sw];
	unsigned int hops;

	for (hops = 0; hops <= t->nsw; hops++) {
		uint8_t p = rt_lft(t, t->node_sw[n])[lid];
		const struct fab_port *fp;

		if (p == RT_NO_PATH)
			return false;
		if (p == 0)
			return t->lid_node[lid] == n;
		fp = fab_port(f, n, p);
		if (fp->peer == FAB_NONE)
			return false;
		if (!fab_is_sw(f, fp->peer))
			return t->lid_node[lid] == fp->peer &&
			       t->lid_port[lid] == fp->peer_port;
		n = fp->peer;
	}
	return false;
}
