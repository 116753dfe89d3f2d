// SPDX-License-Identifier: MIT
/*
 * Ring flows coloured level by level: König's alternating paths on the
 * bipartite multigraph of the flows' source and destination switches.
 */
#include <errno.h>
#include <stdlib.h>

#include "../../topology/fattreerec.h"
#include "../collsim.h"
#include "ringcol.h"

#define RC_NONE UINT32_MAX

/* One ring flow: into lid (on leaf dsw), now between x and y. */
struct rflow {
	uint32_t lid, dsw, job;
	uint32_t x, y;		/* its ancestors at the level coloured */
	uint32_t u, v;		/* their copies: graph vertices */
	uint32_t col;
	bool live;		/* still apart at this level */
};

/* A ring flow's entry at x moved, from one port to another. */
struct move {
	uint32_t x, y, job;
	uint32_t through;	/* hosts whose route climbs through x */
	uint8_t from, to;
};

/* A flow by one of its ends, for copies(). */
struct end {
	uint32_t sw, job, i;
};

struct rc {
	struct rt_tables *t;
	const struct fabric *f;
	const struct rt_ringtree *tree;
	rt_cands_fn cands;
	void *cctx;
	uint32_t *nbr;		/* per fabric port: peer switch */
	struct rflow *fl;
	uint32_t nf;
	uint32_t *ord;		/* scratch: the live flows */
	uint32_t *path;		/* scratch: flows on an alternating path */
	struct end *ends;	/* scratch: flows by one end */
	uint32_t *at;		/* per vertex x colour: its flow, or RC_NONE */
	uint32_t *lid_sw;	/* per LID: its CA port's switch, or RC_NONE */
	uint32_t *lid_job;	/* per LID: its job, or RT_JOB_NONE */
	/*
	 * Per CA LID at the level coloured: the switch its routes come down
	 * through (RC_NONE for none), its colour there (the position they
	 * climb to elsewhere) and the one it gets; the LIDs by that switch.
	 */
	uint32_t *anc, *cur, *want;
	uint32_t *aoff, *byanc;
	uint32_t *ring_of;	/* per LID: its ring flow, or RC_NONE */
	uint32_t *fixed;	/* per LID: its ring flow's switch x, or RC_NONE */
	uint32_t *hosts;	/* per switch: CA ports cabled to it */
	struct move *moves;	/* scratch: entries place_at_source() moved */
	bool at_source;		/* every ring flow moves at its source alone */
	uint32_t *lvl, nlvl;	/* the switches of the level coloured */
	int *avail;		/* per colour: scratch for settle() */
	uint32_t k;		/* colours: positions at the level above */
	uint32_t nj, pass_no;
	bool *victim;		/* per job: its ring flows may share links */
	uint32_t *need;		/* per switch side: flows to share, repair() */
	uint32_t *cnt;		/* per switch side x job: flows */
	uint16_t *load;		/* per link_of(): flows */
	uint16_t *clean;	/* per link_of(): flows of no victim */
	uint32_t *xoff, *yoff;	/* per switch: into byx, byy */
	uint32_t *byx, *byy;	/* the live flows by source, destination */
};

/* Switch index on the far side of switch s's port p, or FAB_NONE. */
static uint32_t peer(const struct rc *r, uint32_t s, unsigned int p)
{
	const struct fabric *f = r->f;

	return r->nbr[f->nodes[r->t->sw_node[s]].port0 + p];
}

/* The port of s up to its parent at position c, 0 for none. */
static unsigned int up_port(const struct rc *r, uint32_t s, uint32_t c)
{
	const uint8_t *lv = r->tree->level;
	unsigned int p, np = r->f->nodes[r->t->sw_node[s]].nports;
	uint32_t q;

	for (p = 1; p <= np; p++) {
		q = peer(r, s, p);
		if (q != FAB_NONE && lv[q] == lv[s] + 1 && r->tree->pos[q] == c)
			return p;
	}
	return 0;
}

/* Switch index of the switch a rank's port is cabled to, or FAB_NONE. */
static uint32_t rank_leaf(const struct rc *r, struct rt_rank k)
{
	uint32_t q = fab_port(r->f, k.node, k.port)->peer;

	return q != FAB_NONE && fab_is_sw(r->f, q) ? r->t->node_sw[q] :
						     FAB_NONE;
}

/* Job j's ring flows between two leaves, each destination LID once. */
static int add_job(struct rc *r, const struct rt_jobs *js, uint32_t j,
		   uint32_t *next, bool *seen)
{
	const struct rt_rank *rk = js->rank + js->rank_off[j];
	uint32_t n = js->rank_off[j + 1] - js->rank_off[j], a, x, y, lid;
	int ret = cs_ring_next(js, j, next);

	for (a = 0; !ret && a < n; a++) {
		if (next[a] == UINT32_MAX)
			continue;
		x = rank_leaf(r, rk[a]);
		y = rank_leaf(r, rk[next[a]]);
		lid = fab_port(r->f, rk[next[a]].node, rk[next[a]].port)->lid;
		if (x == FAB_NONE || y == FAB_NONE || x == y || !lid ||
		    lid > r->t->top || seen[lid] ||
		    rt_lid_switch(r->t, lid) != y ||
		    r->tree->level[x] != r->tree->level[y])
			continue;
		seen[lid] = true;
		r->ring_of[lid] = r->nf;
		r->fl[r->nf++] = (struct rflow){ .lid = lid, .dsw = y,
			.job = j, .x = x, .y = y, .live = true };
	}
	return ret;
}

/* Per base LID of a CA port: its switch and job; the per-LID scratch. */
static int index_lids(struct rc *r, const struct rt_jobs *js)
{
	const struct rt_tables *t = r->t;
	size_t n1 = t->top + 1;
	uint32_t lid, n;

	r->lid_sw = malloc(n1 * sizeof(*r->lid_sw));
	r->lid_job = malloc(n1 * sizeof(*r->lid_job));
	r->anc = malloc(n1 * sizeof(*r->anc));
	r->cur = malloc(n1 * sizeof(*r->cur));
	r->want = malloc(n1 * sizeof(*r->want));
	r->byanc = malloc(n1 * sizeof(*r->byanc));
	r->ring_of = malloc(n1 * sizeof(*r->ring_of));
	r->aoff = malloc((t->nsw + 2) * sizeof(*r->aoff));
	r->lvl = malloc((t->nsw + 1) * sizeof(*r->lvl));
	r->fixed = malloc(n1 * sizeof(*r->fixed));
	r->hosts = calloc(t->nsw + 1, sizeof(*r->hosts));
	if (!r->lid_sw || !r->lid_job || !r->anc || !r->cur || !r->want ||
	    !r->byanc || !r->ring_of || !r->aoff || !r->lvl || !r->fixed ||
	    !r->hosts)
		return -ENOMEM;
	for (lid = 0; lid <= t->top; lid++) {
		n = t->lid_node[lid];
		r->lid_sw[lid] = RC_NONE;
		r->lid_job[lid] = RT_JOB_NONE;
		r->ring_of[lid] = RC_NONE;
		r->fixed[lid] = RC_NONE;
		if (lid && n != FAB_NONE && !fab_is_sw(r->f, n) &&
		    fab_port(r->f, n, t->lid_port[lid])->lid == lid) {
			r->lid_sw[lid] = rt_lid_switch(t, lid);
			r->lid_job[lid] = rt_job_of(js, n);
			if (r->lid_sw[lid] != FAB_NONE)
				r->hosts[r->lid_sw[lid]]++;
		}
		r->anc[lid] = r->lid_sw[lid];
	}
	return 0;
}

static int gather(struct rc *r, const struct rt_jobs *js)
{
	uint32_t nr = js->rank_off[js->njobs], j, maxn = 1;
	uint32_t *next;
	bool *seen;
	int ret = -ENOMEM;

	for (j = 0; j < js->njobs; j++)
		if (js->rank_off[j + 1] - js->rank_off[j] > maxn)
			maxn = js->rank_off[j + 1] - js->rank_off[j];
	r->fl = malloc((nr + 1) * sizeof(*r->fl));
	r->ord = malloc((nr + 1) * sizeof(*r->ord));
	r->path = malloc((nr + 1) * sizeof(*r->path));
	r->ends = malloc((nr + 1) * sizeof(*r->ends));
	r->byx = malloc((nr + 1) * sizeof(*r->byx));
	r->byy = malloc((nr + 1) * sizeof(*r->byy));
	r->moves = malloc((nr + 1) * sizeof(*r->moves));
	r->xoff = malloc((r->t->nsw + 2) * sizeof(*r->xoff));
	r->yoff = malloc((r->t->nsw + 2) * sizeof(*r->yoff));
	r->need = malloc((2 * r->t->nsw + 1) * sizeof(*r->need));
	r->victim = calloc(js->njobs + 1, sizeof(*r->victim));
	r->nj = js->njobs;
	next = malloc(maxn * sizeof(*next));
	seen = calloc(r->t->top + 1, sizeof(*seen));
	if (!r->fl || !r->ord || !r->path || !r->ends || !r->moves ||
	    !r->byx || !r->byy || !r->xoff || !r->yoff || !r->need ||
	    !r->victim || !next || !seen)
		goto out;
	ret = 0;
	for (j = 0; !ret && j < js->njobs; j++)
		if (js->rank_off[j + 1] - js->rank_off[j] > 1)
			ret = add_job(r, js, j, next, seen);
out:
	free(next);
	free(seen);
	return ret;
}

/* By switch, then job: a job's flows share copies, and so links. */
static int cmp_end(const void *a, const void *b)
{
	const struct end *x = a, *y = b;

	if (x->sw != y->sw)
		return x->sw < y->sw ? -1 : 1;
	if (x->job != y->job)
		return x->job < y->job ? -1 : 1;
	return (x->i > y->i) - (x->i < y->i);
}

/*
 * Number from *nv on the copies of one side's switches, k flows each at
 * most, for the live flows ord[0..n): each flow's u (or v with by_y).
 */
static void copies(struct rc *r, uint32_t n, bool by_y, uint32_t *nv)
{
	struct end *e = r->ends;
	uint32_t i, run = 0;

	for (i = 0; i < n; i++) {
		const struct rflow *fl = &r->fl[r->ord[i]];

		e[i] = (struct end){ by_y ? fl->y : fl->x, fl->job, r->ord[i] };
	}
	qsort(e, n, sizeof(*e), cmp_end);
	for (i = 0; i < n; i++) {
		if (!i || e[i].sw != e[i - 1].sw || run == r->k) {
			(*nv)++;
			run = 0;
		}
		run++;
		*(by_y ? &r->fl[e[i].i].v : &r->fl[e[i].i].u) = *nv - 1;
	}
}

static uint32_t *slot(struct rc *r, uint32_t v, uint32_t c)
{
	return &r->at[(size_t)v * r->k + c];
}

static uint32_t free_at(struct rc *r, uint32_t v)
{
	uint32_t c;

	for (c = 0; c < r->k && *slot(r, v, c) != RC_NONE; c++)
		;
	return c;
}

static void paint(struct rc *r, uint32_t i, uint32_t c)
{
	r->fl[i].col = c;
	*slot(r, r->fl[i].u, c) = i;
	*slot(r, r->fl[i].v, c) = i;
}

/*
 * Swap colours a and b along the path from v that starts with a (b is
 * free at v, so it is a path, not a cycle): after it a is free at v.  On
 * a bipartite graph the path never reaches the other side's vertex that
 * misses a.
 */
static void flip(struct rc *r, uint32_t v, uint32_t a, uint32_t b)
{
	uint32_t w = v, c = a, i, n = 0, k;

	while ((i = *slot(r, w, c)) != RC_NONE) {
		r->path[n++] = i;
		w = r->fl[i].u == w ? r->fl[i].v : r->fl[i].u;
		c = c == a ? b : a;
	}
	for (k = 0; k < n; k++) {
		i = r->path[k];
		*slot(r, r->fl[i].u, r->fl[i].col) = RC_NONE;
		*slot(r, r->fl[i].v, r->fl[i].col) = RC_NONE;
	}
	for (k = 0; k < n; k++) {
		i = r->path[k];
		paint(r, i, r->fl[i].col == a ? b : a);
	}
}

/*
 * Give flow i a colour free at both its ends: its position now if that
 * is, else any, else a free at its source made free at its destination.
 */
static void colour(struct rc *r, uint32_t i, uint32_t pref)
{
	struct rflow *fl = &r->fl[i];
	uint32_t a, b, c;

	if (pref < r->k && *slot(r, fl->u, pref) == RC_NONE &&
	    *slot(r, fl->v, pref) == RC_NONE) {
		paint(r, i, pref);
		return;
	}
	for (c = 0; c < r->k; c++)
		if (*slot(r, fl->u, c) == RC_NONE &&
		    *slot(r, fl->v, c) == RC_NONE) {
			paint(r, i, c);
			return;
		}
	a = pref < r->k && *slot(r, fl->u, pref) == RC_NONE ? pref :
	    free_at(r, fl->u);
	b = free_at(r, fl->v);
	flip(r, fl->v, a, b);
	paint(r, i, a);
}

/* The position of the parent s's entry for lid climbs to, or RC_NONE. */
static uint32_t up_pos(const struct rc *r, uint32_t s, uint32_t lid)
{
	const uint8_t *lv = r->tree->level;
	uint8_t p = rt_lft(r->t, s)[lid];
	uint32_t q;

	if (!p || p > r->f->nodes[r->t->sw_node[s]].nports)
		return RC_NONE;
	q = peer(r, s, p);
	return q != FAB_NONE && lv[q] == lv[s] + 1 ? r->tree->pos[q] : RC_NONE;
}

/* The port among cands' from s towards switch dsw up to position c, or 0. */
static unsigned int cand_port(const struct rc *r, uint32_t s, uint32_t dsw,
			      uint32_t c)
{
	uint8_t cand[FAB_MAX_PORTS];
	unsigned int n = r->cands(r->cctx, s, dsw, cand), k;
	uint32_t q;

	for (k = 0; k < n; k++) {
		q = peer(r, s, cand[k]);
		if (q != FAB_NONE &&
		    r->tree->level[q] == r->tree->level[s] + 1 &&
		    r->tree->pos[q] == c)
			return cand[k];
	}
	return 0;
}

/* Whether the route from y to lid goes down (or lid is on y). */
static bool below(const struct rc *r, uint32_t y, uint32_t lid)
{
	uint8_t p = rt_lft(r->t, y)[lid];
	uint32_t q;

	if (r->lid_sw[lid] == y)
		return true;
	if (!p || p > r->f->nodes[r->t->sw_node[y]].nports)
		return false;
	q = peer(r, y, p);
	return q != FAB_NONE && r->tree->level[q] < r->tree->level[y];
}

/* Hosts whose route to lid climbs through x from below (x's own not). */
static uint32_t through(const struct rc *r, uint32_t x, uint32_t lid)
{
	const struct fabric *f = r->f;
	unsigned int p, np = f->nodes[r->t->sw_node[x]].nports;
	uint32_t c, n = 0;
	uint8_t q;

	for (p = 1; p <= np; p++) {
		c = peer(r, x, p);
		if (c == FAB_NONE || r->tree->level[c] + 1 != r->tree->level[x])
			continue;
		q = rt_lft(r->t, c)[lid];
		if (q && q <= f->nodes[r->t->sw_node[c]].nports &&
		    peer(r, c, q) == x)
			n += r->hosts[c] + through(r, c, lid);
	}
	return n;
}

/*
 * A CA LID whose entry at x is port p, below y, and no ring flow's to
 * place at x: of job where there is one, and of those the one with
 * hosts' routes through x nearest to want (as many: the trade moves no
 * load above x either); 0 for none.
 */
static uint32_t partner(const struct rc *r, uint32_t x, uint32_t y,
			unsigned int p, uint32_t job, uint32_t want)
{
	const uint8_t *row = rt_lft(r->t, x);
	uint32_t lid, best = 0, gap = UINT32_MAX, g;

	for (lid = 1; lid <= r->t->top && gap; lid++) {
		if (row[lid] != p || r->lid_sw[lid] == RC_NONE ||
		    r->fixed[lid] == x || !below(r, y, lid))
			continue;
		g = through(r, x, lid);
		g = (g > want ? g - want : want - g) +
		    (r->lid_job[lid] != job ? r->t->top : 0);
		if (g < gap) {
			gap = g;
			best = lid;
		}
	}
	return best;
}

/* Whether port p of x is among cands' towards lid. */
static bool allowed(const struct rc *r, uint32_t x, uint32_t lid,
		    unsigned int p)
{
	uint8_t cand[FAB_MAX_PORTS];
	unsigned int n = r->cands(r->cctx, x, r->lid_sw[lid], cand), k;

	for (k = 0; k < n && cand[k] != p; k++)
		;
	return k < n;
}

static int cmp_move(const void *a, const void *b)
{
	const struct move *x = a, *y = b;

	if (x->x != y->x)
		return x->x < y->x ? -1 : 1;
	return (x->y > y->y) - (x->y < y->y);
}

/*
 * The ring flows from x down through y moved mv[0..n) between x's
 * ports: as many other CA LIDs below y move back the other way, so no
 * link's load in the fabric's all-to-all changes at x's up links nor at
 * y's down links (each such LID draws as many flows from x as a ring
 * flow's).  Of the moved flows' jobs where there are, so their own
 * loads stay too.  Returns the entries changed.
 */
static long trade(struct rc *r, const struct move *mv, uint32_t n)
{
	int delta[FAB_MAX_PORTS + 1] = { 0 };
	uint32_t job[FAB_MAX_PORTS + 1], want[FAB_MAX_PORTS + 1], k, d;
	unsigned int a, b = 0;
	uint8_t *row = rt_lft(r->t, mv->x);
	long changed = 0;

	for (k = 0; k < n; k++) {
		delta[mv[k].to]++;
		delta[mv[k].from]--;
		job[mv[k].to] = mv[k].job;
		want[mv[k].to] = mv[k].through;
	}
	for (a = 1; a <= FAB_MAX_PORTS; a++)
		while (delta[a] > 0) {
			while (b <= FAB_MAX_PORTS && delta[b] >= 0)
				b++;
			if (b > FAB_MAX_PORTS)
				return changed;
			d = partner(r, mv->x, mv->y, a, job[a], want[a]);
			if (!d || !allowed(r, mv->x, d, b))
				break;
			row[d] = (uint8_t)b;
			changed++;
			delta[a]--;
			delta[b]++;
		}
	return changed;
}

/*
 * Each CA LID's colour at level h: the position its routes climb to
 * from the switches there without it below (d-mod-k on an intact tree
 * gives one per level, the same at each), and the LIDs by the switch
 * of level h their routes come down through (byanc, aoff).
 */
static void lid_colours(struct rc *r, unsigned int h)
{
	uint32_t lid, s, k, c, *o = r->aoff;

	for (r->nlvl = 0, s = 0; s < r->t->nsw; s++)
		if (r->tree->level[s] == h)
			r->lvl[r->nlvl++] = s;
	for (s = 0; s <= r->t->nsw + 1; s++)
		o[s] = 0;
	for (lid = 0; lid <= r->t->top; lid++) {
		r->want[lid] = r->cur[lid] = RC_NONE;
		if (r->anc[lid] == RC_NONE)
			continue;
		for (c = RC_NONE, k = 0; k < r->nlvl && c == RC_NONE; k++)
			c = up_pos(r, r->lvl[k], lid);
		r->cur[lid] = c;
			if (c != RC_NONE)
			o[r->anc[lid] + 1]++;
	}
	for (s = 0; s < r->t->nsw; s++)
		o[s + 1] += o[s];
	for (lid = 0; lid <= r->t->top; lid++)
		if (r->cur[lid] != RC_NONE)
			r->byanc[o[r->anc[lid]]++] = lid;
	for (s = r->t->nsw; s > 0; s--)
		o[s] = o[s - 1];
	o[0] = 0;
}

/* Whether a ring flow of job j among l[0..n) leaves colour c. */
static bool vacates(const struct rc *r, const uint32_t *l, uint32_t n,
		    uint32_t j, uint32_t c)
{
	uint32_t i;

	for (i = 0; j != RT_JOB_NONE && i < n; i++)
		if (r->lid_job[l[i]] == j && r->cur[l[i]] == c &&
		    r->want[l[i]] != RC_NONE && r->want[l[i]] != c &&
		    r->ring_of[l[i]] != RC_NONE)
			return true;
	return false;
}

/*
 * Which LIDs keep their colour first: of a job no ring flow here moves
 * away from (its loads stay as they are), then of no job, then of a job
 * whose ring flow leaves a colour (which they can fill).
 */
static unsigned int keep_rank(const struct rc *r, const uint32_t *l,
			      uint32_t n, uint32_t lid)
{
	uint32_t j = r->lid_job[lid], i;

	if (j == RT_JOB_NONE)
		return 1;
	for (i = 0; i < n; i++)
		if (r->lid_job[l[i]] == j && r->ring_of[l[i]] != RC_NONE &&
		    r->want[l[i]] != RC_NONE && r->want[l[i]] != r->cur[l[i]])
			return 2;
	return 0;
}

/*
 * The colours of the LIDs coming down through y, l[0..n): each ring
 * flow's where as many LIDs had it (ring[i], the flows' wants, in want
 * already, RC_NONE where it does not fit), the others a permutation of
 * what is left, so every link at this level carries as many of these
 * LIDs as before and the fabric's loads stay as the engine balanced
 * them.  A ring flow whose colour does not fit keeps its LID's and is
 * moved at its source alone (local[]).
 */
static void settle(struct rc *r, const uint32_t *l, uint32_t n, bool *local)
{
	uint32_t i, c, rank, lid;
	int *av = r->avail;

	for (c = 0; c < r->k; c++)
		av[c] = 0;
	for (i = 0; i < n; i++)
		if (r->cur[l[i]] < r->k)
			av[r->cur[l[i]]]++;
	for (i = 0; i < n; i++) {
		lid = l[i];
		if (r->want[lid] == RC_NONE)
			continue;
		if (r->want[lid] < r->k && av[r->want[lid]] > 0) {
			av[r->want[lid]]--;
			continue;
		}
		local[r->ring_of[lid]] = true;
		r->want[lid] = RC_NONE;
	}
	for (rank = 0; rank < 3; rank++)
		for (i = 0; i < n; i++) {
			lid = l[i];
			if (r->want[lid] != RC_NONE || r->cur[lid] >= r->k ||
			    !av[r->cur[lid]] || keep_rank(r, l, n, lid) != rank)
				continue;
			av[r->cur[lid]]--;
			r->want[lid] = r->cur[lid];
		}
	for (i = 0; i < n; i++) {
		lid = l[i];
		if (r->want[lid] != RC_NONE || r->cur[lid] >= r->k)
			continue;
		for (c = 0; c < r->k && !(av[c] > 0 &&
		     vacates(r, l, n, r->lid_job[lid], c)); c++)
			;
		if (c == r->k)
			for (c = 0; c < r->k && av[c] <= 0; c++)
				;
		if (c == r->k)
			continue;
		av[c]--;
		r->want[lid] = c;
	}
}

/*
 * lid from colour cur to want at every switch of the level that climbs
 * with it: the entries changed.
 */
static long recolour(struct rc *r, uint32_t lid)
{
	uint32_t k, s;
	unsigned int p;
	long changed = 0;

	for (k = 0; k < r->nlvl; k++) {
		s = r->lvl[k];
		if (up_pos(r, s, lid) != r->cur[lid])
			continue;
		p = cand_port(r, s, r->lid_sw[lid], r->want[lid]);
		if (p) {
			rt_lft(r->t, s)[lid] = (uint8_t)p;
			changed++;
		}
	}
	return changed;
}

/*
 * The flows ord[0..n) marked local to their colours' parents at their
 * sources alone, with trade()'s entries beside: the entries changed.
 */
static long at_source(struct rc *r, uint32_t n, const bool *local)
{
	uint32_t k, nm = 0, i;
	unsigned int p;
	long changed = 0;

	for (k = 0; k < n; k++)
		r->fixed[r->fl[r->ord[k]].lid] = r->fl[r->ord[k]].x;
	for (k = 0; k < n; k++) {
		struct rflow *fl = &r->fl[r->ord[k]];
		uint8_t *row = rt_lft(r->t, fl->x);

		p = cand_port(r, fl->x, fl->dsw, fl->col);
		if (!local[r->ord[k]] || row[fl->lid] == p)
			continue;
		r->moves[nm++] = (struct move){ fl->x, fl->y, fl->job,
						through(r, fl->x, fl->lid),
						row[fl->lid], (uint8_t)p };
		row[fl->lid] = (uint8_t)p;
		changed++;
	}
	qsort(r->moves, nm, sizeof(*r->moves), cmp_move);
	for (k = 0; k < nm; k = i) {
		for (i = k + 1; i < nm && !cmp_move(&r->moves[k],
						    &r->moves[i]); i++)
			;
		changed += trade(r, r->moves + k, i - k);
	}
	for (k = 0; k < n; k++)
		r->fixed[r->fl[r->ord[k]].lid] = RC_NONE;
	return changed;
}

/*
 * The live flows' colours into the tables: per switch the ring flows
 * come down through, settle() its LIDs' colours and recolour() them
 * everywhere; a ring flow that does not fit so, and every one where
 * at_source is set, moves at its source alone.  Then each flow one
 * level up, at the two parents, or done where they are one switch; and
 * each LID's switch one level up.
 */
static long climb(struct rc *r, unsigned int h, uint32_t n)
{
	uint32_t k, i, y, lid, c;
	unsigned int p, py;
	long changed = 0;
	bool *local = calloc(r->nf + 1, sizeof(*local));

	r->avail = malloc((r->k + 1) * sizeof(*r->avail));
	if (!local || !r->avail) {
		free(local);
		return -ENOMEM;
	}
	lid_colours(r, h);
	for (k = 0; k < n; k++) {
		struct rflow *fl = &r->fl[r->ord[k]];

		p = cand_port(r, fl->x, fl->dsw, fl->col);
		py = up_port(r, fl->y, fl->col);
		fl->live = p && py;
		if (fl->live && !r->at_source && r->anc[fl->lid] == fl->y &&
		    r->cur[fl->lid] != RC_NONE)
			r->want[fl->lid] = fl->col;
		else
			local[r->ord[k]] = fl->live;
	}
	for (k = 0; k < r->nlvl; k++) {
		y = r->lvl[k];
		for (i = r->aoff[y]; i < r->aoff[y + 1] &&
		     r->want[r->byanc[i]] == RC_NONE; i++)
			;
		if (i < r->aoff[y + 1])
			settle(r, r->byanc + r->aoff[y],
			       r->aoff[y + 1] - r->aoff[y], local);
	}
	for (lid = 1; lid <= r->t->top; lid++)
		if (r->want[lid] != RC_NONE && r->want[lid] != r->cur[lid])
			changed += recolour(r, lid);
	changed += at_source(r, n, local);
	for (k = 0; k < n; k++) {
		struct rflow *fl = &r->fl[r->ord[k]];

		if (!fl->live)
			continue;
		fl->x = peer(r, fl->x, rt_lft(r->t, fl->x)[fl->lid]);
		fl->y = peer(r, fl->y, up_port(r, fl->y, fl->col));
		fl->live = fl->x != fl->y;
	}
	for (lid = 0; lid <= r->t->top; lid++) {
		c = r->want[lid] != RC_NONE ? r->want[lid] : r->cur[lid];
		i = r->anc[lid];
		p = c == RC_NONE || i == RC_NONE ? 0 : up_port(r, i, c);
		r->anc[lid] = p ? peer(r, i, p) : RC_NONE;
	}
	free(local);
	free(r->avail);
	r->avail = NULL;
	return changed;
}

/*
 * Where a switch has more ring flows than links, some must share one,
 * and a ring is as fast as its slowest flow: better a few rings at half
 * speed than every one.  The victims are the jobs whose flows share;
 * repair() then keeps every other job's flows on links of their own.
 */
#define RC_HIT 16	/* a flow of no victim on a shared link */
#define RC_OVER 64	/* each flow past two on a link */

/* Link (switch s, its up side 0 or down side 1, colour c). */
static size_t link_of(const struct rc *r, uint32_t s, int side, uint32_t c)
{
	return ((size_t)s * 2 + side) * r->k + c;
}

static uint32_t link_cost(const struct rc *r, size_t l)
{
	uint32_t n = r->load[l];

	return n * (n - !!n) / 2 + (n > 1 ? RC_HIT * r->clean[l] : 0) +
	       (n > 2 ? RC_OVER * (n - 2) : 0);
}

/* Flow i on its two links at this level, added (d 1) or not (-1). */
static void flow_add(struct rc *r, uint32_t i, int d)
{
	const struct rflow *fl = &r->fl[i];
	size_t a = link_of(r, fl->x, 0, fl->col);
	size_t b = link_of(r, fl->y, 1, fl->col);
	int c = !r->victim[fl->job];

	r->load[a] += d;
	r->load[b] += d;
	r->clean[a] += d * c;
	r->clean[b] += d * c;
}

/* The cost of links ls[0..n), each once. */
static uint32_t links_cost(const struct rc *r, const size_t *ls, unsigned n)
{
	uint32_t sum = 0;
	unsigned int i, j;

	for (i = 0; i < n; i++) {
		for (j = 0; j < i && ls[j] != ls[i]; j++)
			;
		if (j == i)
			sum += link_cost(r, ls[i]);
	}
	return sum;
}

/*
 * Recolour flow i to c and, unless g is RC_NONE, g to i's colour: kept
 * when the links they touch cost less (or as much, with same).
 */
static bool try_move(struct rc *r, uint32_t i, uint32_t c, uint32_t g,
		     bool same)
{
	struct rflow *f = &r->fl[i], *h = g == RC_NONE ? NULL : &r->fl[g];
	uint32_t a = f->col, before, after;
	size_t ls[8];
	unsigned int n = 0;

	ls[n++] = link_of(r, f->x, 0, a);
	ls[n++] = link_of(r, f->y, 1, a);
	ls[n++] = link_of(r, f->x, 0, c);
	ls[n++] = link_of(r, f->y, 1, c);
	if (h) {
		ls[n++] = link_of(r, h->x, 0, a);
		ls[n++] = link_of(r, h->y, 1, a);
		ls[n++] = link_of(r, h->x, 0, c);
		ls[n++] = link_of(r, h->y, 1, c);
	}
	before = links_cost(r, ls, n);
	flow_add(r, i, -1);
	f->col = c;
	flow_add(r, i, 1);
	if (h) {
		flow_add(r, g, -1);
		h->col = a;
		flow_add(r, g, 1);
	}
	after = links_cost(r, ls, n);
	if (after < before || (same && after == before))
		return true;
	if (h) {
		flow_add(r, g, -1);
		h->col = c;
		flow_add(r, g, 1);
	}
	flow_add(r, i, -1);
	f->col = a;
	flow_add(r, i, 1);
	return false;
}

/* Whether flow i shares a link. */
static bool shares(const struct rc *r, uint32_t i)
{
	const struct rflow *fl = &r->fl[i];

	return r->load[link_of(r, fl->x, 0, fl->col)] > 1 ||
	       r->load[link_of(r, fl->y, 1, fl->col)] > 1;
}

/*
 * Flow i to a cheaper colour, or traded with another flow from its
 * switch or into its destination's (which leaves that switch's loads
 * as they are): whether one was found.
 */
static bool improve(struct rc *r, uint32_t i, bool same)
{
	const struct rflow *fl = &r->fl[i];
	uint32_t c, k, g, o = same ? r->pass_no : 0;

	for (c = 0; c < r->k; c++)
		if ((c + o) % r->k != fl->col &&
		    try_move(r, i, (c + o) % r->k, RC_NONE, same))
			return true;
	for (k = r->xoff[fl->x]; k < r->xoff[fl->x + 1]; k++) {
		g = r->byx[k];
		if (g != i && r->fl[g].col != fl->col &&
		    try_move(r, i, r->fl[g].col, g, same))
			return true;
	}
	for (k = r->yoff[fl->y]; k < r->yoff[fl->y + 1]; k++) {
		g = r->byy[k];
		if (g != i && r->fl[g].col != fl->col &&
		    try_move(r, i, r->fl[g].col, g, same))
			return true;
	}
	return false;
}

#define RC_PASSES 64

/* Whether a flow of no victim shares a link. */
static bool dirty(const struct rc *r, uint32_t n)
{
	uint32_t i;

	for (i = 0; i < n; i++)
		if (!r->victim[r->fl[r->ord[i]].job] && shares(r, r->ord[i]))
			return true;
	return false;
}

/*
 * The live flows ord[0..n) by source and by destination switch
 * (counting sort into byx and byy, offsets per switch).
 */
static void index_ends(struct rc *r, uint32_t n)
{
	uint32_t i, s, *xo = r->xoff, *yo = r->yoff;

	for (s = 0; s <= r->t->nsw; s++)
		xo[s] = yo[s] = 0;
	for (i = 0; i < n; i++) {
		xo[r->fl[r->ord[i]].x + 1]++;
		yo[r->fl[r->ord[i]].y + 1]++;
	}
	for (s = 0; s < r->t->nsw; s++) {
		xo[s + 1] += xo[s];
		yo[s + 1] += yo[s];
	}
	for (i = 0; i < n; i++) {
		const struct rflow *fl = &r->fl[r->ord[i]];

		r->byx[xo[fl->x]++] = r->ord[i];
		r->byy[yo[fl->y]++] = r->ord[i];
	}
	for (s = r->t->nsw; s > 0; s--) {
		xo[s] = xo[s - 1];
		yo[s] = yo[s - 1];
	}
	xo[0] = yo[0] = 0;
}

/* Victim j's flows take their share of every switch's need. */
static void take(struct rc *r, uint32_t j)
{
	uint32_t s, k;

	for (s = 0; s < 2 * r->t->nsw; s++) {
		k = r->cnt[(size_t)s * r->nj + j];
		r->need[s] -= k < r->need[s] ? k : r->need[s];
	}
}

/*
 * The fewest jobs (greedily) whose flows can take the sharing at every
 * overloaded switch: one with d flows and k links needs 2 (d - k) of
 * them on shared links.  Returns whether some switch is overloaded.
 */
static bool pick_victims(struct rc *r)
{
	uint32_t s, j, best, *cnt = r->cnt;
	uint64_t gain, top;
	bool any = false;

	for (s = 0; s < r->t->nsw; s++) {
		uint32_t dx = r->xoff[s + 1] - r->xoff[s];
		uint32_t dy = r->yoff[s + 1] - r->yoff[s];

		r->need[2 * s] = dx > r->k ? 2 * (dx - r->k) : 0;
		r->need[2 * s + 1] = dy > r->k ? 2 * (dy - r->k) : 0;
		any |= dx > r->k || dy > r->k;
	}
	for (j = 0; j < r->nj; j++)
		if (r->victim[j])
			take(r, j);
	while (any) {
		for (best = RC_NONE, top = 0, j = 0; j < r->nj; j++) {
			for (gain = 0, s = 0; !r->victim[j] && s < 2 * r->t->nsw; s++)
				gain += cnt[(size_t)s * r->nj + j] < r->need[s] ?
					cnt[(size_t)s * r->nj + j] : r->need[s];
			if (gain > top) {
				top = gain;
				best = j;
			}
		}
		if (best == RC_NONE)
			break;
		r->victim[best] = true;
		take(r, best);
	}
	return any;
}

/*
 * Where some switch has more flows than links: victims, then single
 * moves and trades until no flow that shares a link finds a cheaper
 * place (RC_PASSES sweeps at most).  Returns 0 or -ENOMEM.
 */
static int repair(struct rc *r, uint32_t n)
{
	size_t nl = (size_t)r->t->nsw * 2 * r->k;
	uint32_t i, pass;
	bool moved = true;

	index_ends(r, n);
	r->cnt = calloc((size_t)2 * r->t->nsw * r->nj + 1, sizeof(*r->cnt));
	r->load = calloc(nl + 1, sizeof(*r->load));
	r->clean = calloc(nl + 1, sizeof(*r->clean));
	if (!r->cnt || !r->load || !r->clean)
		return -ENOMEM;
	for (i = 0; i < n; i++) {
		const struct rflow *fl = &r->fl[r->ord[i]];

		r->cnt[(size_t)(2 * fl->x) * r->nj + fl->job]++;
		r->cnt[(size_t)(2 * fl->y + 1) * r->nj + fl->job]++;
	}
	if (!pick_victims(r))
		return 0;
	for (i = 0; i < n; i++)
		flow_add(r, r->ord[i], 1);
	for (pass = 0; pass < RC_PASSES && dirty(r, n); pass++) {
		r->pass_no = pass;
		for (moved = false, i = 0; i < n; i++)
			if (shares(r, r->ord[i]))
				moved |= improve(r, r->ord[i], false);
		for (i = 0; !moved && i < n; i++)
			if (shares(r, r->ord[i]) &&
			    !r->victim[r->fl[r->ord[i]].job])
				improve(r, r->ord[i], true);
	}
	return 0;
}

/* Colour the live flows whose ends are at level h, and climb. */
static long level(struct rc *r, unsigned int h)
{
	const uint8_t *lv = r->tree->level;
	uint32_t n = 0, i, s, nv = 0;
	long ret;

	for (i = 0; i < r->nf; i++)
		if (r->fl[i].live && lv[r->fl[i].x] == h)
			r->ord[n++] = i;
	for (s = 0, r->k = 0; s < r->t->nsw; s++)
		if (lv[s] == h + 1 && r->tree->pos[s] + 1 > r->k)
			r->k = r->tree->pos[s] + 1;
	if (!n || !r->k)
		return 0;
	copies(r, n, false, &nv);
	copies(r, n, true, &nv);
	r->at = malloc((size_t)nv * r->k * sizeof(*r->at));
	if (!r->at)
		return -ENOMEM;
	for (i = 0; i < nv * r->k; i++)
		r->at[i] = RC_NONE;
	for (i = 0; i < n; i++)
		colour(r, r->ord[i], up_pos(r, r->fl[r->ord[i]].x,
					    r->fl[r->ord[i]].lid));
	free(r->at);
	r->at = NULL;
	ret = repair(r, n);
	free(r->cnt);
	free(r->load);
	free(r->clean);
	r->cnt = NULL;
	r->load = r->clean = NULL;
	return ret ? ret : climb(r, h, n);
}

long rt_ringcolour(struct rt_tables *t, const struct rt_jobs *js,
		   const struct rt_ringtree *tree, rt_cands_fn cands,
		   void *ctx)
{
	struct rc r = { .t = t, .f = t->fab, .tree = tree, .cands = cands,
			.cctx = ctx,
			.at_source = js->search_try % RT_JOBROUTE_COLOURED >=
				     RT_JOBROUTE_COLOURED / 2 };
	long ret, changed = 0;
	unsigned int h;

	ret = rt_peer_switches(t, &r.nbr) ? -ENOMEM : index_lids(&r, js);
	if (!ret)
		ret = gather(&r, js);
	for (h = 0; !ret && h + 1 < tree->nlev; h++) {
		ret = level(&r, h);
		if (ret > 0) {
			changed += ret;
			ret = 0;
		}
	}
	free(r.nbr);
	free(r.fl);
	free(r.ord);
	free(r.path);
	free(r.ends);
	free(r.byx);
	free(r.byy);
	free(r.xoff);
	free(r.yoff);
	free(r.need);
	free(r.victim);
	free(r.lid_sw);
	free(r.lid_job);
	free(r.anc);
	free(r.cur);
	free(r.want);
	free(r.aoff);
	free(r.byanc);
	free(r.ring_of);
	free(r.lvl);
	free(r.fixed);
	free(r.hosts);
	free(r.moves);
	return ret ? ret : changed;
}
