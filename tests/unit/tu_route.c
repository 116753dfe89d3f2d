// SPDX-License-Identifier: MIT
/* Table walks and fabrics for the unit suites. */
#include "tu.h"
#include "tu_route.h"
#include "topology/gen.h"

struct fabric *tu_tree(unsigned int k, unsigned int n, double drop,
		       uint64_t seed, unsigned int lmc)
{
	struct gen_fattree ft;
	struct gen_opts o;
	struct fabric *f = NULL;
	char err[256];

	gen_opts_init(&o);
	o.drop = drop;
	o.seed = seed;
	CU_ASSERT_FATAL(!gen_fattree_kary(&ft, k, n, err, sizeof(err)));
	CU_ASSERT_FATAL(!gen_fattree(&ft, &o, &f, err, sizeof(err)));
	CU_ASSERT_FATAL(!fab_assign_lids(f, lmc));
	return f;
}

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
