// SPDX-License-Identifier: MIT
/* Hashes of whole routings and the golden checks on them. */
#include <stdio.h>

#include "tu.h"
#include "tu_golden.h"

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
