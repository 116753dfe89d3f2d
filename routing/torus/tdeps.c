// SPDX-License-Identifier: MIT
/*
 * The torus engine's channel dependencies: routes added one at a time
 * unless one would close a cycle, for the detours and the answers.
 */
#include "teng.h"

/* Is (s, k, vl) reachable from (s2, k2, vl2)?  Depth first, stamped. */
static bool reach(struct eng *e, uint32_t s2, unsigned int k2,
		  unsigned int vl2, uint32_t s, unsigned int k,
		  unsigned int vl)
{
	size_t goal = ((size_t)s * NSLOT + k) * CVL + vl, x, y, top = 0;
	uint64_t m;
	unsigned int b;
	uint32_t h;

	e->stamp++;
	x = ((size_t)s2 * NSLOT + k2) * CVL + vl2;
	e->seen[x] = e->stamp;
	e->stk[top++] = x;
	while (top) {
		x = e->stk[--top];
		if (x == goal)
			return true;
		h = e->next_sw[x / CVL];
		for (m = e->succ[x]; m; m &= m - 1) {
			b = __builtin_ctzll(m);
			y = ((size_t)h * NSLOT + b / CVL) * CVL + b % CVL;
			if (e->seen[y] == e->stamp)
				continue;
			e->seen[y] = e->stamp;
			e->stk[top++] = y;
		}
	}
	return false;
}

void rt_torus_undo(struct undo *u)
{
	while (u->n > 0) {
		u->n--;
		*u->m[u->n] &= ~u->b[u->n];
	}
}

/*
 * Add the dependencies of the route src -> dst that DLID lid takes, on
 * SL sl, logging each in u, unless one would close a cycle: then return
 * false (the caller takes back what u holds).
 */
bool rt_torus_walk(struct eng *e, uint32_t src, uint32_t dst,
		   unsigned int lid, unsigned int sl, struct undo *u)
{
	unsigned int k, k2, vl, vl2, i, maxvl, p;
	uint32_t s = src, s2;
	uint64_t bit, *m;

	p = rt_lft(e->t, s)[lid];
	k = p == RT_NO_PATH ? NOSLOT : e->pslot[(size_t)s * 256 + p];
	if (s == dst || k == NOSLOT)
		return true;
	vl = vl_for(e->tv, e->tv->port_dateline[(size_t)s * 256 + p], sl);
	maxvl = vl;
	for (i = 0; i < e->t->nsw; i++) {
		s2 = nbr(e, s)[k];
		if (s2 == dst)
			break;
		p = rt_lft(e->t, s2)[lid];
		k2 = p == RT_NO_PATH ? NOSLOT : e->pslot[(size_t)s2 * 256 + p];
		if (k2 == NOSLOT)
			break;
		vl2 = vl_for(e->tv,
			     e->tv->port_dateline[(size_t)s2 * 256 + p], sl);
		m = succ(e, s, k, vl);
		bit = 1ull << (k2 * CVL + vl2);
		if (!(*m & bit)) {
			if (u->n == UNDO_MAX || reach(e, s2, k2, vl2, s, k, vl))
				return false;
			*m |= bit;
			u->m[u->n] = m;
			u->b[u->n++] = bit;
		}
		s = s2;
		k = k2;
		vl = vl2;
		maxvl = vl > maxvl ? vl : maxvl;
	}
	if (maxvl > e->maxvl)
		e->maxvl = maxvl;
	return true;
}
