// SPDX-License-Identifier: MIT
/* Table walks and fabrics for the unit suites. */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

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

static uint64_t fnv(uint64_t h, const void *p, size_t n)
{
	const uint8_t *b = p;

	while (n--)
		h = (h ^ *b++) * 0x100000001b3ull;
	return h;
}

static uint64_t sl2vl_hash(const struct rt_tables *t, uint64_t h)
{
	unsigned int in, out, sl, np;
	uint32_t sw;
	uint8_t vl;

	for (sw = 0; sw < t->nsw; sw++) {
		np = t->fab->nodes[t->sw_node[sw]].nports;
		for (in = 0; in <= np; in++)
			for (out = 0; out <= np; out++)
				for (sl = 0; sl < 16; sl++) {
					vl = t->vl->sl2vl(t, sw, in, out, sl);
					h = fnv(h, &vl, 1);
				}
	}
	for (sl = 0; sl < 16; sl++) {
		vl = t->vl->sl2vl(t, FAB_NONE, 0, 1, sl);
		h = fnv(h, &vl, 1);
	}
	return h;
}

uint64_t tu_tables_hash(const struct rt_tables *t)
{
	uint64_t h = 0xcbf29ce484222325ull;
	unsigned int a, b;
	uint8_t sl;

	h = fnv(h, t->lft, (size_t)t->nsw * (t->top + 1));
	if (!t->vl)
		return h;
	h = fnv(h, &t->vl->nvl, sizeof(t->vl->nvl));
	for (a = 1; a <= t->top; a++)
		for (b = 1; b <= t->top; b++) {
			if (t->lid_node[a] == FAB_NONE ||
			    t->lid_node[b] == FAB_NONE)
				continue;
			sl = t->vl->path_sl(t, a, b);
			h = fnv(h, &sl, 1);
		}
	return sl2vl_hash(t, h);
}

void tu_golden(const struct rt_tables *t, uint64_t want, const char *what)
{
	uint64_t h = tu_tables_hash(t);

	CU_ASSERT_EQUAL(h, want);
	if (h != want)
		fprintf(stderr, "golden %#llx, want %#llx: %s\n",
			(unsigned long long)h, (unsigned long long)want, what);
}

uint32_t tu_ca_named(const struct fabric *f, const char *name, char *guid)
{
	char buf[256];
	uint32_t n;

	for (n = 0; n < f->nnodes; n++) {
		if (fab_is_sw(f, n))
			continue;
		fab_host_name(f, n, buf, sizeof(buf));
		if (!strcmp(buf, name))
			break;
	}
	CU_ASSERT_FATAL(n < f->nnodes);
	if (guid)
		snprintf(guid, 24, "0x%016" PRIx64, fab_port(f, n, 1)->guid);
	return n;
}
