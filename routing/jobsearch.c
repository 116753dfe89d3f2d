// SPDX-License-Identifier: MIT
/*
 * The job search.  Per CA LID the routes form a tree into its switch; a
 * switch's flow is what its entry for the LID carries (own: the LID's
 * job's ports behind it, all: every CA port), so moving one entry moves
 * that flow from one tail of the tree to another, and only the links of
 * the two tails change load.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "jobsearch.h"

#define JS_CAP 1.09
#define JS_AIMED 16		/* one move in this many unshares, one relieves */
#define JS_UNSHARE_BOTH 2	/* RT_SEARCH_BOTH above its cap: unshares */
#define JS_IDLE 12		/* RT_SEARCH_BOTH at its cap: idle moves/this */
#define JS_MAX_ENTRIES (1u << 23)	/* flows, own loads: 32 MiB each */

struct js {
	struct rt_tables *t;
	const struct fabric *f;
	rt_cands_fn cands;
	void *cctx;
	uint32_t nj, ncl;
	uint32_t *nbr;		/* per fabric port: peer switch */
	uint32_t *p0;		/* per switch: its fabric port 0 */
	uint8_t *np;		/* per switch: its ports */
	uint32_t *up, *seen;	/* per switch: feeders(); stamp()'s marks */
	uint32_t stamp;
	uint32_t *dsw;		/* per LID: its switch, FAB_NONE */
	uint32_t *djob;		/* per LID: its job */
	uint32_t *clid;		/* the CA LIDs */
	uint32_t *joff, *jcl;	/* per job: its CA LIDs' indices in clid */
	uint32_t *hosts;	/* per switch: CA ports */
	uint32_t *src;		/* per switch x job: the job's CA ports */
	uint32_t *fo, *fa;	/* per CA LID x switch: own, all flow */
	uint32_t *a2a;		/* per fabric port */
	uint32_t *own;		/* per fabric port x job */
	uint32_t *njob;		/* per fabric port: jobs with own routes */
	uint32_t **hist;	/* per job: links per own load, 1..cap */
	uint32_t *max, *cap;	/* per job: busiest now; the start's, overtime's */
	uint64_t summax, atmax;
	uint32_t shared, shared_cap;
	double a2a_cap;
	enum rt_search_goal goal;
	uint8_t *undo;		/* overtime: job LIDs' entries before it */
	uint64_t undo_own;	/* and their summed maxima, shared links */
	uint32_t undo_shared;
	uint64_t idle_low, idle_at;	/* at the cap: lowest summax, when */
	uint64_t x;
};

static uint64_t rnd(struct js *s)
{
	s->x ^= s->x << 13;
	s->x ^= s->x >> 7;
	s->x ^= s->x << 17;
	return s->x;
}

static void own_add(struct js *s, uint32_t e, uint32_t a, int64_t d)
{
	uint32_t *o = &s->own[(size_t)e * s->nj + a], *h = s->hist[a];
	uint32_t old = *o, nw = (uint32_t)(old + d);

	s->summax -= s->max[a];
	s->atmax -= s->max[a] ? h[s->max[a]] : 0;
	if (old)
		h[old]--;
	if (nw)
		h[nw]++;
	*o = nw;
	if (!old && nw && ++s->njob[e] == 2)
		s->shared++;
	if (old && !nw && s->njob[e]-- == 2)
		s->shared--;
	if (nw > s->max[a])
		s->max[a] = nw;
	while (s->max[a] && !h[s->max[a]])
		s->max[a]--;
	s->summax += s->max[a];
	s->atmax += s->max[a] ? h[s->max[a]] : 0;
}

/* The next link on c's route from w: its fabric port, or FAB_NONE. */
static uint32_t next(const struct js *s, uint32_t w, uint32_t c)
{
	uint8_t p = rt_lft(s->t, w)[s->clid[c]];

	if (!p || p > s->np[w] || s->nbr[s->p0[w] + p] == FAB_NONE)
		return FAB_NONE;
	return s->p0[w] + p;
}

/* A fresh mark for s->seen. */
static uint32_t stamp(struct js *s)
{
	if (!++s->stamp) {
		memset(s->seen, 0, s->t->nsw * sizeof(*s->seen));
		s->stamp = 1;
	}
	return s->stamp;
}

/*
 * Add ob own and ab all routes along c's route from w on, up to switch
 * to or the LID's switch (the flows there unchanged).
 */
static void tail(struct js *s, uint32_t w, uint32_t to, uint32_t c,
		 int64_t ob, int64_t ab)
{
	uint32_t a = s->djob[s->clid[c]], ds = s->dsw[s->clid[c]], e, h;

	for (h = 0; h < s->t->nsw && w != ds; h++) {
		if ((e = next(s, w, c)) == FAB_NONE)
			return;
		s->a2a[e] += ab;
		if (a != RT_JOB_NONE && ob)
			own_add(s, e, a, ob);
		w = s->nbr[e];
		if (w == ds || w == to)
			return;
		s->fo[(size_t)c * s->t->nsw + w] += ob;
		s->fa[(size_t)c * s->t->nsw + w] += ab;
	}
}

/*
 * A fresh mark on the switches of c's route from w; the mark, or 0 when
 * the route does not reach the LID's switch (a move there is refused).
 */
static uint32_t mark(struct js *s, uint32_t w, uint32_t c)
{
	uint32_t ds = s->dsw[s->clid[c]], m = stamp(s), e, h;

	s->seen[w] = m;
	for (h = 0; h < s->t->nsw && w != ds; h++) {
		if ((e = next(s, w, c)) == FAB_NONE)
			return 0;
		w = s->nbr[e];
		s->seen[w] = m;
	}
	return w == ds ? m : 0;
}

/*
 * Where c's route from w, its entry at w changed, meets the route it had,
 * whose switches carry mark m: past there nothing changes.  On the way,
 * links only the new route takes; whether they take ob own and ab all
 * routes more.  FAB_NONE for a hole, a loop or a cap passed.
 */
static uint32_t meets(const struct js *s, uint32_t w, uint32_t c,
		      uint32_t m, uint32_t ob, uint32_t ab)
{
	uint32_t a = s->djob[s->clid[c]], x = w, e, h;

	for (h = 0; h < s->t->nsw; h++) {
		if ((e = next(s, x, c)) == FAB_NONE)
			return FAB_NONE;
		if (s->a2a[e] + ab > s->a2a_cap)
			return FAB_NONE;
		if (a != RT_JOB_NONE &&
		    s->own[(size_t)e * s->nj + a] + ob > s->cap[a])
			return FAB_NONE;
		x = s->nbr[e];
		if (s->seen[x] == m)
			return x == w ? FAB_NONE : x;
	}
	return FAB_NONE;
}

/* RT_SEARCH_BOTH with more links shared than its cap. */
static bool above_cap(const struct js *s)
{
	return s->goal == RT_SEARCH_BOTH && s->shared > s->shared_cap;
}

/* Summed maxima below sm, or as many with no more links at them. */
static bool no_heavier(const struct js *s, uint64_t sm, uint64_t am)
{
	return s->summax < sm || (s->summax == sm && s->atmax <= am);
}

/* Whether the state now is to be kept against sm, am and sh before. */
static bool better(const struct js *s, uint64_t sm, uint64_t am,
		   uint32_t sh)
{
	uint64_t now, was;

	/* overtime: the loads' slack is spent on unsharing first */
	if (s->undo && sh > s->shared_cap)
		return s->shared < sh ||
		       (s->shared == sh && no_heavier(s, sm, am));
	if (s->goal == RT_SEARCH_BOTH && sh > s->shared_cap) {
		now = s->summax * RT_SEARCH_LINKS_PER_LOAD + s->shared;
		was = sm * RT_SEARCH_LINKS_PER_LOAD + sh;
		return now < was || (now == was && s->atmax <= am);
	}
	if (above_cap(s))
		return false;
	if (s->goal == RT_SEARCH_SHARED)
		return s->shared <= sh && no_heavier(s, sm, am);
	if (s->summax != sm)
		return s->summax < sm;
	return s->atmax < am || (s->atmax == am && s->shared <= sh);
}

/*
 * Move entry (w, c) to port p; keep it if nothing got worse.  Only the
 * two routes' parts before they meet change load.
 */
static bool try_move(struct js *s, uint32_t c, uint32_t w, uint8_t p)
{
	size_t k = (size_t)c * s->t->nsw + w;
	uint32_t ob = s->fo[k], ab = s->fa[k], sh = s->shared, m, x;
	uint64_t sm = s->summax, am = s->atmax;
	uint8_t *row = rt_lft(s->t, w) + s->clid[c], old = *row;

	m = mark(s, w, c);
	if (!m)
		return false;
	*row = p;
	x = meets(s, w, c, m, ob, ab);
	*row = old;
	if (x == FAB_NONE)
		return false;
	tail(s, w, x, c, -(int64_t)ob, -(int64_t)ab);
	*row = p;
	tail(s, w, x, c, ob, ab);
	if (better(s, sm, am, sh))
		return true;
	tail(s, w, x, c, -(int64_t)ob, -(int64_t)ab);
	*row = old;
	tail(s, w, x, c, ob, ab);
	return false;
}

static int alloc(struct js *s, const struct rt_jobs *jobs)
{
	size_t np = s->f->nports + 1, nl = s->t->top + 1, nsw = s->t->nsw, w;

	s->nj = jobs->njobs;
	s->dsw = malloc(nl * sizeof(*s->dsw));
	s->djob = malloc(nl * sizeof(*s->djob));
	s->clid = malloc(nl * sizeof(*s->clid));
	s->hosts = calloc(nsw, sizeof(*s->hosts));
	s->src = calloc(nsw * s->nj, sizeof(*s->src));
	s->a2a = calloc(np, sizeof(*s->a2a));
	s->own = calloc(np * s->nj, sizeof(*s->own));
	s->njob = calloc(np, sizeof(*s->njob));
	s->hist = calloc(s->nj, sizeof(*s->hist));
	s->max = calloc(s->nj, sizeof(*s->max));
	s->cap = calloc(s->nj, sizeof(*s->cap));
	s->joff = calloc(s->nj + 1, sizeof(*s->joff));
	s->jcl = calloc(nl, sizeof(*s->jcl));
	s->p0 = malloc(nsw * sizeof(*s->p0));
	s->np = malloc(nsw ? nsw : 1);
	s->up = malloc(nsw * sizeof(*s->up));
	s->seen = calloc(nsw, sizeof(*s->seen));
	if (!s->dsw || !s->djob || !s->clid || !s->hosts || !s->src ||
	    !s->a2a || !s->own || !s->njob || !s->hist || !s->max ||
	    !s->cap || !s->joff || !s->jcl || !s->p0 || !s->np || !s->up ||
	    !s->seen)
		return -ENOMEM;
	for (w = 0; w < nsw; w++) {
		s->p0[w] = s->f->nodes[s->t->sw_node[w]].port0;
		s->np[w] = s->f->nodes[s->t->sw_node[w]].nports;
	}
	return rt_peer_switches(s->t, &s->nbr);
}

/* Flows per CA LID and switch, once locate() has counted the LIDs. */
static int alloc_flows(struct js *s)
{
	size_t n = (size_t)s->ncl * s->t->nsw;

	s->fo = calloc(n ? n : 1, sizeof(*s->fo));
	s->fa = calloc(n ? n : 1, sizeof(*s->fa));
	return s->fo && s->fa ? 0 : -ENOMEM;
}

/* The CA LIDs, their switches and jobs, and the ports per switch. */
static void locate(struct js *s, const struct rt_jobs *jobs)
{
	const struct rt_tables *t = s->t;
	uint32_t lid, n, a, c;

	for (lid = 0; lid <= t->top; lid++) {
		s->dsw[lid] = FAB_NONE;
		s->djob[lid] = RT_JOB_NONE;
		n = lid ? t->lid_node[lid] : FAB_NONE;
		if (n == FAB_NONE || fab_is_sw(s->f, n) ||
		    (s->dsw[lid] = rt_lid_switch(t, lid)) == FAB_NONE)
			continue;
		s->clid[s->ncl++] = lid;
		a = s->djob[lid] = rt_job_of(jobs, n);
		if (fab_port(s->f, n, t->lid_port[lid])->lid != lid)
			continue;
		s->hosts[s->dsw[lid]]++;
		if (a != RT_JOB_NONE)
			s->src[(size_t)s->dsw[lid] * s->nj + a]++;
	}
	for (c = 0; c < s->ncl; c++)
		if ((a = s->djob[s->clid[c]]) != RT_JOB_NONE)
			s->joff[a + 1]++;
	for (a = 0; a < s->nj; a++)
		s->joff[a + 1] += s->joff[a];
	/* placed at joff[a]++, which then holds where job a + 1 starts */
	for (c = 0; c < s->ncl; c++)
		if ((a = s->djob[s->clid[c]]) != RT_JOB_NONE)
			s->jcl[s->joff[a]++] = c;
	memmove(s->joff + 1, s->joff, s->nj * sizeof(*s->joff));
	s->joff[0] = 0;
}

/* Add ob own and ab all routes from switch w on, along c's route. */
static void walk(struct js *s, uint32_t w, uint32_t c, uint32_t ob,
		 uint32_t ab)
{
	uint32_t a = s->djob[s->clid[c]], ds = s->dsw[s->clid[c]], e, h;
	size_t k = (size_t)c * s->t->nsw;

	for (h = 0; h < s->t->nsw && w != ds; h++) {
		s->fo[k + w] += ob;
		s->fa[k + w] += ab;
		if ((e = next(s, w, c)) == FAB_NONE)
			return;
		s->a2a[e] += ab;
		if (ob)
			s->own[(size_t)e * s->nj + a] += ob;
		w = s->nbr[e];
	}
}

/*
 * Every host's routes to every CA LID: flows and loads; per job a
 * histogram of its links' loads up to its busiest, which caps it; the
 * all-to-all cap.
 */
static int measure(struct js *s)
{
	uint64_t sum = 0, links = 0, top = 0;
	uint32_t c, w, a, lid, *o;
	size_t e;

	for (c = 0; c < s->ncl; c++) {
		lid = s->clid[c];
		a = s->djob[lid];
		for (w = 0; w < s->t->nsw; w++)
			if (s->hosts[w] && w != s->dsw[lid])
				walk(s, w, c, a == RT_JOB_NONE ? 0 :
				     s->src[(size_t)w * s->nj + a],
				     s->hosts[w]);
	}
	for (e = 0; e <= s->f->nports; e++) {
		o = s->own + e * s->nj;
		for (a = 0; a < s->nj; a++) {
			s->njob[e] += o[a] > 0;
			if (o[a] > s->max[a])
				s->max[a] = o[a];
		}
		s->shared += s->njob[e] > 1;
		if (s->nbr[e] == FAB_NONE)
			continue;
		sum += s->a2a[e];
		links++;
		if (s->a2a[e] > top)
			top = s->a2a[e];
	}
	for (a = 0; a < s->nj; a++) {
		s->hist[a] = calloc(s->max[a] + s->max[a] / RT_SEARCH_SLACK + 1,
				    sizeof(**s->hist));
		if (!s->hist[a])
			return -ENOMEM;
		s->cap[a] = s->max[a];
	}
	for (e = 0; e <= s->f->nports; e++)
		for (a = 0, o = s->own + e * s->nj; a < s->nj; a++)
			s->hist[a][o[a]] += o[a] > 0;
	for (a = 0; a < s->nj; a++) {
		s->summax += s->max[a];
		s->atmax += s->max[a] ? s->hist[a][s->max[a]] : 0;
	}
	s->a2a_cap = links ? JS_CAP * sum / links : 0;
	if (s->a2a_cap < top)
		s->a2a_cap = top;
	return 0;
}

/*
 * A random entry towards a job's LID that carries hosts' traffic, moved
 * to another candidate.  LIDs in no job keep the engine's routes: moving
 * them would change no job's load, only churn tables.
 */
static unsigned int one_move(struct js *s)
{
	uint8_t cand[FAB_MAX_PORTS];
	uint32_t c, lid, w, k;
	unsigned int n;

	if (!s->joff[s->nj])
		return 0;
	c = s->jcl[rnd(s) % s->joff[s->nj]];
	lid = s->clid[c];

	for (k = 0; k < 16; k++) {
		w = rnd(s) % s->t->nsw;
		if (w != s->dsw[lid] && s->fa[(size_t)c * s->t->nsw + w])
			break;
	}
	if (k == 16)
		return 0;
	n = s->cands(s->cctx, w, s->dsw[lid], cand);
	if (n < 2)
		return 0;
	k = rnd(s) % n;
	if (cand[k] == rt_lft(s->t, w)[lid])
		k = (k + 1) % n;
	return try_move(s, c, w, cand[k]);
}

/* Whether c's route from switch u crosses link e. */
static bool crosses(const struct js *s, uint32_t u, uint32_t c, uint32_t e)
{
	uint32_t ds = s->dsw[s->clid[c]], x, h;

	for (h = 0; h < s->t->nsw && u != ds; h++) {
		if ((x = next(s, u, c)) == FAB_NONE)
			return false;
		if (x == e)
			return true;
		u = s->nbr[x];
	}
	return false;
}

/*
 * The switches with own flow whose route for c leads into w, nearest
 * first, into s->up (w itself first); their count.  The routes are a
 * tree, walked backwards from w: much less than asking every switch.
 */
static uint32_t feeders(struct js *s, uint32_t w, uint32_t c)
{
	size_t row = (size_t)c * s->t->nsw;
	uint32_t n = 0, h = 0, x, v, e, m;
	unsigned int p;

	m = stamp(s);
	s->up[n++] = w;
	s->seen[w] = m;
	while (h < n) {
		x = s->up[h++];
		for (p = 1; p <= s->np[x]; p++) {
			v = s->nbr[s->p0[x] + p];
			if (v == FAB_NONE || s->seen[v] == m ||
			    !s->fo[row + v])
				continue;
			e = next(s, v, c);
			if (e != FAB_NONE && s->nbr[e] == x) {
				s->seen[v] = m;
				s->up[n++] = v;
			}
		}
	}
	return n;
}

/* Move entry (u, c) to the first other candidate that is kept. */
static unsigned int move_any(struct js *s, uint32_t u, uint32_t c)
{
	uint8_t cand[FAB_MAX_PORTS], cur = rt_lft(s->t, u)[s->clid[c]];
	unsigned int n = s->cands(s->cctx, u, s->dsw[s->clid[c]], cand), j;

	for (j = 0; j < n; j++)
		if (cand[j] != cur && try_move(s, c, u, cand[j]))
			return 1;
	return 0;
}

/*
 * Move job b's routes off link e, a destination at a time, at the switch
 * e leaves or, where that has no other way (a down link), at switches
 * further up whose routes lead into it, nearest first; until b's load on
 * e is under below.
 */
static unsigned int evict(struct js *s, uint32_t e, uint32_t b,
			  uint32_t below)
{
	const struct fab_port *fp = &s->f->ports[e];
	const struct fab_port *rp = fab_port(s->f, fp->peer, fp->peer_port);
	uint32_t w = s->t->node_sw[rp->peer], k, c, u, i, n;
	uint32_t *o = s->own + (size_t)e * s->nj + b;
	unsigned int p = e - s->p0[w], moved = 0;
	size_t row;

	for (k = s->joff[b]; k < s->joff[b + 1] && *o >= below; k++) {
		c = s->jcl[k];
		row = (size_t)c * s->t->nsw;
		if (rt_lft(s->t, w)[s->clid[c]] != p || !s->fo[row + w])
			continue;
		moved += move_any(s, w, c);
		if (rt_lft(s->t, w)[s->clid[c]] != p)
			continue;
		n = feeders(s, w, c);
		for (i = 1; i < n && *o >= below && s->fo[row + w]; i++) {
			u = s->up[i];
			/* an earlier move here may have taken u's route away */
			if (s->fo[row + u] && crosses(s, u, c, e))
				moved += move_any(s, u, c);
		}
	}
	return moved;
}

/* A random shared link: its least loaded job's routes off it. */
static unsigned int unshare(struct js *s)
{
	uint32_t e, k, a, b = RT_JOB_NONE, *o;

	for (k = 0; k < 64; k++) {
		e = rnd(s) % (s->f->nports + 1);
		if (s->njob[e] > 1)
			break;
	}
	if (k == 64)
		return 0;
	o = s->own + (size_t)e * s->nj;
	for (a = 0; a < s->nj; a++)
		if (o[a] && (b == RT_JOB_NONE || o[a] < o[b]))
			b = a;
	return evict(s, e, b, 1);
}

/* A random job's first busiest link from a random port on: lightened. */
static unsigned int relieve(struct js *s)
{
	uint32_t a = rnd(s) % s->nj, n = s->f->nports + 1, m = s->max[a];
	const uint32_t *o = s->own + a;
	uint32_t start, e;

	if (!m)
		return 0;
	start = rnd(s) % n;
	for (e = start; e < n; e++)
		if (o[(size_t)e * s->nj] == m)
			return evict(s, e, a, m);
	for (e = 0; e < start; e++)
		if (o[(size_t)e * s->nj] == m)
			return evict(s, e, a, m);
	return 0;
}

/*
 * Whether to go on: the moves; RT_SEARCH_BOTH still above its cap after
 * them goes on for as many again at most (the mixes that need it get
 * there in about that), and, once overtime got there, lowers the loads
 * as at its cap, within those.
 */
static bool more(const struct js *s, uint64_t i, uint64_t moves)
{
	return i < moves || ((above_cap(s) || s->undo) && i < 2 * moves);
}

/* Job LIDs' entries into s->undo, or back from it. */
static void undo_copy(struct js *s, bool back)
{
	uint32_t k, w, nsw = s->t->nsw;
	uint8_t *u = s->undo, *e;

	for (k = 0; k < s->joff[s->nj]; k++)
		for (w = 0; w < nsw; w++, u++) {
			e = rt_lft(s->t, w) + s->clid[s->jcl[k]];
			if (back)
				*e = *u;
			else
				*u = *e;
		}
}

/*
 * Overtime: the search's single-entry moves seldom unshare a link
 * without some job's busiest link getting heavier, so each job may now
 * grow by 1/RT_SEARCH_SLACK of its load; the job LIDs' entries (the only
 * ones moved) are kept to go back to should the cap still not be
 * reached.  Whether it began: without memory for that, the search ends.
 */
static bool overtime(struct js *s)
{
	size_t n = (size_t)s->joff[s->nj] * s->t->nsw;
	uint32_t a;

	s->undo = malloc(n ? n : 1);
	if (!s->undo)
		return false;
	undo_copy(s, false);
	s->undo_own = s->summax;
	s->undo_shared = s->shared;
	for (a = 0; a < s->nj; a++)
		s->cap[a] = s->max[a] + s->max[a] / RT_SEARCH_SLACK;
	return true;
}

/*
 * Notes move i's progress; whether RT_SEARCH_BOTH, at its cap, is to end:
 * its jobs' loads have not dropped for moves / JS_IDLE.  From there on it
 * mostly unshares a few links more, which the cap does not ask for, at
 * the cost of seconds.
 */
static bool settled(struct js *s, uint64_t i, uint64_t moves)
{
	if (s->goal != RT_SEARCH_BOTH)
		return false;
	if (s->shared > s->shared_cap) {
		s->idle_low = UINT64_MAX;
		s->idle_at = i;
	} else if (s->summax < s->idle_low) {
		s->idle_low = s->summax;
		s->idle_at = i;
	}
	return i - s->idle_at > moves / JS_IDLE;
}

static void js_release(struct js *s)
{
	uint32_t a;

	for (a = 0; s->hist && a < s->nj; a++)
		free(s->hist[a]);
	free(s->hist);
	free(s->nbr);
	free(s->p0);
	free(s->np);
	free(s->up);
	free(s->seen);
	free(s->dsw);
	free(s->djob);
	free(s->clid);
	free(s->hosts);
	free(s->src);
	free(s->fo);
	free(s->fa);
	free(s->a2a);
	free(s->own);
	free(s->njob);
	free(s->max);
	free(s->cap);
	free(s->joff);
	free(s->jcl);
	free(s->undo);
}

int rt_jobsearch(struct rt_tables *t, const struct rt_jobs *jobs,
		 rt_cands_fn cands, void *ctx, const struct rt_search *how,
		 struct rt_jobsearch_stats *st)
{
	struct js s = { .t = t, .f = t->fab, .cands = cands, .cctx = ctx,
			.goal = how->goal, .shared_cap = how->shared_cap,
			.x = 0x9e3779b97f4a7c15ULL };
	struct rt_jobsearch_stats dummy;
	uint64_t i, moves = how->moves;
	int ret;

	if (!st)
		st = &dummy;
	memset(st, 0, sizeof(*st));
	if (!jobs || !jobs->njobs)
		return 0;
	if ((uint64_t)(t->fab->nports + 1) * jobs->njobs > JS_MAX_ENTRIES) {
		st->skipped = true;
		return 0;
	}
	ret = alloc(&s, jobs);
	if (ret)
		goto out;
	locate(&s, jobs);
	if ((uint64_t)s.ncl * t->nsw > JS_MAX_ENTRIES) {
		st->skipped = true;
		goto out;
	}
	ret = alloc_flows(&s);
	/* stopped already: measuring is the search's longest setup step */
	if (!ret && how->stop && atomic_load(how->stop))
		goto out;
	if (!ret)
		ret = measure(&s);
	if (ret)
		goto out;
	st->own_before = s.summax;
	s.idle_low = UINT64_MAX;
	st->shared_before = s.shared;
	if (!moves && s.ncl)
		moves = RT_JOBSEARCH_WORK / s.ncl < RT_JOBSEARCH_MOVES ?
			(uint64_t)(RT_JOBSEARCH_WORK / s.ncl) :
			RT_JOBSEARCH_MOVES;
	for (i = 0; s.ncl && more(&s, i, moves); i++) {
		if (how->stop && !(i & 1023) && atomic_load(how->stop))
			break;
		if (settled(&s, i, moves))
			break;
		if (i == moves && !overtime(&s))
			break;
		/* loads first: half the moves, then the links they share */
		if (i == moves / 2 && s.goal == RT_SEARCH_OWN)
			s.goal = RT_SEARCH_SHARED;
		/* above its cap RT_SEARCH_BOTH gains most by unsharing */
		if (above_cap(&s) && i % JS_UNSHARE_BOTH == 1) {
			st->kept += unshare(&s);
			continue;
		}
		switch (i % JS_AIMED) {
		case JS_AIMED - 1:
			st->kept += unshare(&s);
			break;
		case JS_AIMED / 2 - 1:
			st->kept += relieve(&s);
			break;
		default:
			st->kept += one_move(&s);
		}
	}
	st->moves = i;
	st->own_after = s.summax;
	st->shared_after = s.shared;
	st->slack = s.undo && !above_cap(&s);
	if (s.undo && above_cap(&s)) {
		undo_copy(&s, true);
		st->own_after = s.undo_own;
		st->shared_after = s.undo_shared;
	}
out:
	js_release(&s);
	return ret;
}
