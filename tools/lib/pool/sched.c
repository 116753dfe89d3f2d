// SPDX-License-Identifier: MIT
/*
 * The scheduler core.  Jobs live in one array indexed by ticket - 1; the
 * queue is an array kept sorted by the policy's key; free GPUs are kept
 * per GPU with counts by free amount, so "could it fit" costs no scan.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "frag.h"
#include "gang.h"
#include "predict.h"
#include "sched.h"

#define MAXG FRG_MAXG
#define INF HUGE_VAL
#define NO_GPU SCH_NO_GPU
#define PREEMPT_TRIES 16	/* blocked jobs picking victims, per step */
#define HEAD_KEY 1e13		/* how far a requeued job jumps ahead */
#define STARVE_KEY 1e15
#define NSHAPES 64		/* shapes a pass remembers as not placeable */

_Static_assert(SCH_MAX_LEVELS <= GANG_MAX_LEVELS, "gang.c holds the levels");

enum jst { J_QUEUED, J_RUN, J_DONE };

struct job {
	struct sch_req r;
	uint64_t milli;		/* all its GPUs' */
	unsigned int k, per;	/* hosts; whole GPUs on each but the last */
	enum jst st;
	double submit, start, first_start;
	double pred, ran, attained, deadline, key;
	double qsince;		/* queued since */
	unsigned int level, feasible, preempts, lasq;
	uint32_t *alt;		/* record_first: first fit's hosts */
	size_t nalt;
	struct gang_wait gw;	/* waiting for a lower level (gang_wait) */
	bool head, borrowed, lost;
	bool hist;		/* pred is from the user's history */
	bool reload;		/* preempted or requeued: its next run restarts */
	double work;		/* s of its run time that were not restarts */
	double waited;		/* s queued before its last start */
	struct sch_slot *slot;	/* room for max(gpus, 1) */
	size_t nslots;
	size_t rpos;
};

/* Free capacity: the live one, or a copy a reservation plays forward. */
struct view {
	uint16_t *gfree;	/* per GPU, goff[h] + i */
	uint8_t *whole;		/* per host: GPUs wholly free */
	uint32_t *nicfree;	/* per rail, roff[h] + r */
	uint32_t *cpufree, *memfree;	/* UINT32_MAX where not modelled */
};

struct end {
	double end;
	uint32_t j;
};

struct user {
	double use, at;		/* decayed GPU-seconds, as of at */
	bool seen;
};

/* A request's shape, as far as placement tells requests apart. */
struct shape {
	unsigned int k, per, gpus, milli, nic;
	uint32_t cpu, mem;
	uint64_t models;
	bool masked;
};

/* A host state FGD scored in this pick (fgd_memo()). */
struct fmemo {
	uint64_t key;
	uint32_t host, gen;
	double score;
	uint16_t free;		/* the chosen GPU's free milli, NO_GPU none */
};

struct sch {
	struct sch_config c;
	uint64_t *quota, *borrow, *lend;
	struct sch_host *h;
	size_t nh, ngpu, nrail;
	size_t *goff, *roff;
	bool *up;
	uint64_t *rdown;	/* per host: its rails lost */
	unsigned int maxg;
	uint32_t maxcpu;	/* the largest host's, 0: none models CPU */
	struct view v, rv;	/* live; reservation scratch */
	uint32_t cntw[MAXG + 1];	/* up hosts by whole free GPUs */
	uint32_t gcnt[SCH_MILLI + 1];	/* up GPUs by free milli */
	uint64_t free_milli, cap_milli;
	uint64_t all_milli;	/* down hosts too: what can ever fit */
	struct job *job;
	size_t njob, capjob;
	uint32_t *q;
	size_t nq, capq;
	uint32_t *run;
	size_t nrun;
	uint32_t *pend, *lost;
	size_t npend, nlost;
	uint64_t *gused;	/* per group, milli running */
	uint64_t *want;		/* per group, milli queued within its quota */
	struct user *usr;
	size_t nusr, nseen;
	double tot_use, tot_at;
	struct prd *hist;	/* run times of finished jobs */
	struct frg_mix mix;	/* FGD's workload: expected, else seen */
	struct frg_mix seen;	/* the requests submitted so far */
	/* fgdfill: frg_waste() of seen for shares asking <= wcut[i] cores */
	double (*waste)[SCH_MILLI + 1];	/* FRG_TYPES tables */
	uint32_t wcut[FRG_TYPES];	/* ascending */
	size_t nwcut;
	uint64_t waste_n;	/* seen.n when they were computed */
	bool expected;		/* sch_expect_end() called: mix is fixed */
	struct fmemo *memo;	/* 2 x the hosts or more, a power of two */
	size_t nmemo;
	uint32_t mgen;		/* the current pick's entries */
	double now, last_recalc;
	struct sch_dec *dec;
	size_t ndec, capdec;
	/* scratch */
	struct gang *gang;	/* the tree and its uplinks' load */
	bool uload_ok;		/* the load matches the running jobs */
	unsigned int feasible;	/* the last gang placement's lowest level */
	struct shape failed[NSHAPES];	/* this pass's, see failed_before() */
	size_t nfailed;
	uint32_t *cand, *pick;
	uint32_t *vict;		/* room for every job */
	uint8_t *resv, *inuse;
	struct end *ends;
};

static const char *const names[SCH_NPOLICIES] = {
	"fifo", "priority", "easy", "predicted", "tiresias", "bestfit",
	"fgd", "sjf", "srpt", "fgdcpu", "fgdfill",
};

int sch_policy_parse(const char *name, enum sch_policy *p)
{
	int i;

	for (i = 0; i < SCH_NPOLICIES; i++)
		if (!strcmp(name, names[i])) {
			*p = (enum sch_policy)i;
			return 0;
		}
	return -EINVAL;
}

const char *sch_policy_name(enum sch_policy p)
{
	return (unsigned int)p < SCH_NPOLICIES ? names[p] : "?";
}

void sch_config_default(struct sch_config *c, enum sch_policy p)
{
	*c = (struct sch_config){
		.policy = p,
		.nlevels = 1,
		.grace = p == SCH_TIRESIAS || p == SCH_SRPT ? 0 : 60,
		.restart = 60,
		.preempt = p == SCH_PRIORITY,
		.w_cls = { 0, 10000 / 3.0, 20000 / 3.0, 10000 },
		.w_age = 1000, .w_fair = 1000, .w_size = 100,
		.age_max = 7 * 86400.0,
		.fair_halflife = 7 * 86400.0,
		.recalc = 300,
		/*
		 * The oracle and QSSF order by run time alone, as published;
		 * srpt's bound is Slurm's PriorityMaxAge: shorter ones let
		 * the backlog of an overload take the cluster in turn.
		 */
		.starve = p == SCH_PRIORITY ? 86400.0 :
			  p == SCH_SRPT ? 7 * 86400.0 : 0,
		/* Tiresias' two thresholds: an hour and ten of one GPU */
		.las_thresh = { 3600, 36000 },
		.las_starve = p == SCH_TIRESIAS ? 4 : 0,
		.srpt_ratio = 2,
	};
}

static enum sch_place placement(const struct sch *s)
{
	if (s->c.place != SCH_PLACE_DEFAULT)
		return s->c.place;
	if (s->c.policy == SCH_FGD)
		return SCH_PLACE_FGD;
	if (s->c.policy == SCH_FGDCPU)
		return SCH_PLACE_FGDCPU;
	if (s->c.policy == SCH_FGDFILL)
		return SCH_PLACE_FILL;
	return SCH_PLACE_TREE;
}

/* ---- capacity ---- */

/* GPU g of host h goes from its free amount to f. */
static void gpu_set(struct sch *s, struct view *v, size_t h, unsigned int g,
		    unsigned int f)
{
	uint16_t *p = &v->gfree[s->goff[h] + g];
	bool live = v == &s->v && s->up[h];
	unsigned int w = v->whole[h];

	if (*p == SCH_MILLI)
		w--;
	if (f == SCH_MILLI)
		w++;
	if (live) {
		s->gcnt[*p]--;
		s->gcnt[f]++;
		s->free_milli += f;
		s->free_milli -= *p;
		s->cntw[v->whole[h]]--;
		s->cntw[w]++;
	}
	*p = (uint16_t)f;
	v->whole[h] = (uint8_t)w;
}

/* The rail GPU g of host h sends through (pool_gpu_rail()'s rule). */
static unsigned int rail_of(const struct sch *s, size_t h, unsigned int g)
{
	return g * s->h[h].rails / s->h[h].gpus;
}

/* The rail slot sl takes NIC share on. */
static unsigned int slot_rail(const struct sch *s, const struct sch_slot *sl)
{
	return sl->gpu == NO_GPU ? sl->rail : rail_of(s, sl->host, sl->gpu);
}

/* n rails as bits. */
static uint64_t rail_bits(unsigned int n)
{
	return n >= 64 ? ~0ull : (1ull << n) - 1;
}

/*
 * Host h's rails that cannot take nic (lost, or with less free) as
 * bits; 0 when nic is 0.
 */
static uint64_t rails_short(const struct sch *s, const struct view *v,
			    size_t h, unsigned int nic)
{
	const uint32_t *f = &v->nicfree[s->roff[h]];
	uint64_t m = s->rdown[h];
	unsigned int r;

	if (!nic)
		return 0;
	for (r = 0; r < s->h[h].rails; r++)
		if (f[r] < nic)
			m |= 1ull << r;
	return m;
}

/*
 * Take (sign 1) or give back (-1) slots, and r's NIC share (once on each
 * rail of a host, as the pool counts it), CPU and memory (once a host).
 * A host's slots are consecutive.
 */
static void slots_apply(struct sch *s, struct view *v,
			const struct sch_slot *sl, size_t n,
			const struct sch_req *r, int sign)
{
	uint64_t done = 0;
	unsigned int rail;
	size_t i;

	for (i = 0; i < n; i++) {
		size_t h = sl[i].host;
		bool again = i && sl[i - 1].host == h;

		if (sl[i].gpu != NO_GPU)
			gpu_set(s, v, h, sl[i].gpu,
				v->gfree[s->goff[h] + sl[i].gpu] -
					sign * sl[i].milli);
		if (!again)
			done = 0;
		rail = slot_rail(s, &sl[i]);
		if (r->nic && !(done >> rail & 1)) {
			done |= 1ull << rail;
			v->nicfree[s->roff[h] + rail] -= sign * (int)r->nic;
		}
		if (again)
			continue;
		if (s->h[h].cpu)
			v->cpufree[h] -= sign * (int32_t)r->cpu;
		if (s->h[h].mem)
			v->memfree[h] -= sign * (int32_t)r->mem;
	}
}

static void view_copy(struct sch *s, struct view *to)
{
	memcpy(to->gfree, s->v.gfree, s->ngpu * sizeof(*to->gfree));
	memcpy(to->whole, s->v.whole, s->nh);
	memcpy(to->nicfree, s->v.nicfree, s->nrail * sizeof(*to->nicfree));
	memcpy(to->cpufree, s->v.cpufree, s->nh * sizeof(*to->cpufree));
	memcpy(to->memfree, s->v.memfree, s->nh * sizeof(*to->memfree));
}

/* Whole GPUs free on host h, those sending through rails bad left out. */
static unsigned int whole_ok(const struct sch *s, const struct view *v,
			     size_t h, uint64_t bad)
{
	const uint16_t *g = &v->gfree[s->goff[h]];
	unsigned int i, n = 0;

	if (!bad)
		return v->whole[h];
	for (i = 0; i < s->h[h].gpus; i++)
		n += g[i] == SCH_MILLI && !(bad >> rail_of(s, h, i) & 1);
	return n;
}

/*
 * Whether j could go on host h (a share: GPUs permitting).  With NIC
 * share its GPUs must send through rails that have it free, as the
 * pool places it; without GPUs one rail must.
 */
static bool host_ok(const struct sch *s, const struct view *v, size_t h,
		    const struct job *j, const uint8_t *mask)
{
	uint64_t bad;

	if (!s->up[h] || (mask && mask[h]) ||
	    (j->r.nic && !s->h[h].rails) ||
	    v->cpufree[h] < j->r.cpu || v->memfree[h] < j->r.mem ||
	    (j->r.models && !(j->r.models >> s->h[h].model & 1)))
		return false;
	bad = rails_short(s, v, h, j->r.nic);
	if (j->r.gpus)
		return whole_ok(s, v, h, bad) >= (j->k > 1 ? j->per : j->r.gpus);
	if (!j->r.milli)
		return !j->r.nic || bad != rail_bits(s->h[h].rails);
	return true;
}

/* Could j fit now at all (counts only: placement may still refuse). */
static bool quick_fit(const struct sch *s, const struct job *j)
{
	unsigned int need = j->k > 1 ? j->per : j->r.gpus, w, m, n = 0;

	if (s->free_milli < j->milli)
		return false;
	if (j->r.gpus) {
		for (w = need; w <= s->maxg && n < j->k; w++)
			n += s->cntw[w];
		return n >= j->k;
	}
	if (!j->r.milli)
		return true;
	for (m = j->r.milli; m <= SCH_MILLI; m++)
		if (s->gcnt[m])
			return true;
	return false;
}

/* ---- placement ---- */

/* Host h of view v as the packing measures see it. */
static struct frg_host fhost(const struct sch *s, const struct view *v,
			     size_t h)
{
	return (struct frg_host){ .g = &v->gfree[s->goff[h]],
				  .n = s->h[h].gpus, .cpu = v->cpufree[h],
				  .model = s->h[h].model };
}

/*
 * Host h as a share of j sees it: GPUs sending through rails bad show
 * none free (their copy in g).
 */
static struct frg_host fhost_for(const struct sch *s, const struct view *v,
				 size_t h, uint64_t bad, uint16_t *g)
{
	struct frg_host fh = fhost(s, v, h);
	unsigned int i;

	if (!bad)
		return fh;
	for (i = 0; i < fh.n; i++)
		g[i] = bad >> rail_of(s, h, i) & 1 ? 0 : fh.g[i];
	fh.g = g;
	return fh;
}

static struct frg_req freq(const struct job *j)
{
	return (struct frg_req){ .gpus = j->r.gpus, .milli = j->r.milli,
				 .cpu = j->r.cpu, .models = j->r.models };
}

/* Host h's free GPUs sorted into g: its state as FGD's score sees it. */
static unsigned int host_state(const struct sch *s, const struct view *v,
			       size_t h, uint16_t *g)
{
	unsigned int n = s->h[h].gpus, i, k;
	uint16_t x;

	memcpy(g, &v->gfree[s->goff[h]], n * sizeof(*g));
	for (i = 1; i < n; i++)
		for (k = i, x = g[i]; k && g[k - 1] > x; k--) {
			g[k] = g[k - 1];
			g[k - 1] = x;
		}
	return n;
}

static bool same_state(const struct sch *s, const struct view *v, size_t a,
		       size_t b, const uint16_t *gb, unsigned int nb)
{
	uint16_t ga[MAXG];

	return s->h[a].model == s->h[b].model &&
	       v->cpufree[a] == v->cpufree[b] &&
	       host_state(s, v, a, ga) == nb &&
	       !memcmp(ga, gb, nb * sizeof(*ga));
}

/*
 * frg_score() once per host state in a pick: hosts alike (the many
 * empty ones, the full ones) score alike, so each state is weighed once
 * and a share goes to the first GPU as free as the one chosen then.
 */
static double fgd_memo(struct sch *s, const struct view *v, size_t h,
		       const struct job *j, int *gpu)
{
	uint16_t g[MAXG];
	unsigned int n = host_state(s, v, h, g), i;
	uint64_t key = 0xcbf29ce484222325ull;
	size_t at, mask = s->nmemo - 1;
	struct fmemo *m;
	struct frg_host fh;
	struct frg_req fr;
	double sc;

	key = (key ^ s->h[h].model) * 0x100000001b3ull;
	key = (key ^ v->cpufree[h]) * 0x100000001b3ull;
	for (i = 0; i < n; i++)
		key = (key ^ g[i]) * 0x100000001b3ull;
	for (at = key & mask; s->memo[at].gen == s->mgen; at = (at + 1) & mask) {
		m = &s->memo[at];
		if (m->key != key || !same_state(s, v, m->host, h, g, n))
			continue;
		*gpu = -1;
		for (i = 0; m->free != NO_GPU && i < n; i++)
			if (v->gfree[s->goff[h] + i] == m->free) {
				*gpu = (int)i;
				break;
			}
		return m->score;
	}
	fh = fhost(s, v, h);
	fr = freq(j);
	sc = frg_score(&s->mix, &fh, &fr, gpu);
	s->memo[at] = (struct fmemo){
		.key = key, .host = (uint32_t)h, .gen = s->mgen, .score = sc,
		.free = *gpu >= 0 ? v->gfree[s->goff[h] + *gpu] : NO_GPU,
	};
	return sc;
}

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return x < y ? -1 : x > y;
}

/*
 * The waste tables again from the requests seen, one per CPU a share
 * type asks (the shares a host's free CPU can still take).
 */
static void waste_update(struct sch *s)
{
	const struct frg_mix *m = &s->seen;
	size_t t, k, n = 0;

	for (t = 0; t < m->nt; t++) {
		if (m->t[t].gpus != 1 || m->t[t].milli >= SCH_MILLI)
			continue;
		for (k = 0; k < n && s->wcut[k] != m->t[t].cpu; k++)
			;
		if (k == n)
			s->wcut[n++] = m->t[t].cpu;
	}
	qsort(s->wcut, n, sizeof(*s->wcut), cmp_u32);
	for (k = 0; k < n; k++)
		frg_waste(m, s->wcut[k], s->waste[k]);
	s->nwcut = n;
	s->waste_n = m->n;
}

/* Expected waste of the partly used GPUs g[0..n) beside cpu free. */
static double host_waste(const struct sch *s, const uint16_t *g,
			 unsigned int n, uint32_t cpu)
{
	size_t lo = 0, hi = s->nwcut, mid;
	double w = 0;
	unsigned int i;

	while (lo < hi) {	/* lo: the cuts at or below cpu */
		mid = (lo + hi) / 2;
		if (s->wcut[mid] <= cpu)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (i = 0; i < n; i++)
		if (g[i] && g[i] < SCH_MILLI)
			w += lo ? s->waste[lo - 1][g[i]] : g[i];
	return w;
}

/*
 * What a share or a CPU-only request r adds to host fh's expected
 * waste (its GPUs' gaps, and the CPU they need); *gpu: a share's GPU,
 * the fullest of those adding least.
 */
static double fill_cost(const struct sch *s, const struct frg_host *fh,
			const struct frg_req *r, int *gpu)
{
	uint16_t g[MAXG];
	uint32_t c = fh->cpu == FRG_NOCPU ? FRG_NOCPU : fh->cpu - r->cpu;
	double before = host_waste(s, fh->g, fh->n, fh->cpu), best = INF, d;
	unsigned int i;
	uint16_t keep;

	*gpu = -1;
	if (!r->milli)
		return host_waste(s, fh->g, fh->n, c) - before;
	memcpy(g, fh->g, fh->n * sizeof(*g));
	for (i = 0; i < fh->n; i++) {
		keep = g[i];
		if (keep < r->milli)
			continue;
		g[i] = (uint16_t)(keep - r->milli);
		d = host_waste(s, g, fh->n, c) - before;
		g[i] = keep;
		if (d < best - 1e-9 || (d < best + 1e-9 && keep < g[*gpu])) {
			best = d;
			*gpu = (int)i;
		}
	}
	return best;
}

/* One host for a job of one host: its index, or -1; *gpu for shares. */
static long pick_one(struct sch *s, const struct view *v,
		     const struct job *j, enum sch_place p,
		     const uint8_t *mask, int *gpu)
{
	struct frg_req fr = freq(j);
	struct frg_host fh;
	double best = INF, sc;
	uint16_t mg[MAXG];
	uint64_t bad = 0;
	long bh = -1;
	size_t h;
	int g = -1, fg;
	bool cpu = p == SCH_PLACE_FGDCPU || p == SCH_PLACE_FILL;
	double cpg = cpu ? frg_mix_cpu(&s->mix) : 0;
	/* whole-GPU requests as fgdcpu: their CPU weighed did worse */
	bool fill = p == SCH_PLACE_FILL && !j->r.gpus;

	if (++s->mgen == 0) {	/* wrapped: no entry may look current */
		memset(s->memo, 0, s->nmemo * sizeof(*s->memo));
		s->mgen = 1;
	}
	/* the seen mix moves slowly: a table lags it by 1/64 at most */
	if (fill && s->seen.n > s->waste_n + s->waste_n / 64)
		waste_update(s);
	for (h = 0; h < s->nh; h++) {
		if (!host_ok(s, v, h, j, mask))
			continue;
		if (j->r.milli && !j->r.gpus)
			bad = rails_short(s, v, h, j->r.nic);
		fh = fhost_for(s, v, h, bad, mg);
		if (j->r.milli && !j->r.gpus) {
			g = frg_best_gpu(&fh, j->r.milli);
			if (g < 0)
				continue;
		}
		if (p == SCH_PLACE_FIRST) {
			*gpu = g;
			return (long)h;
		}
		sc = 0;
		/*
		 * A GPU whose host has no CPU left for it is lost to every
		 * request: stranding fewer outranks all else; then the
		 * expected waste (milli), FGD's points (0..100), best fit
		 */
		if (cpu)
			sc = 1e12 * frg_strand(&fh, &fr, cpg);
		/* the memo knows hosts by their GPUs, not their rails */
		if (p == SCH_PLACE_FGD || cpu)
			sc -= 1e4 * frg_points(bad ? frg_score(&s->mix, &fh,
							       &fr, &g) :
						     fgd_memo(s, v, h, j, &g));
		if (fill) {
			sc += 1e6 * fill_cost(s, &fh, &fr, &fg);
			g = fg;
		}
		sc += frg_left(&fh, &fr, g, s->maxg, s->maxcpu);
		if (sc < best) {
			best = sc;
			bh = (long)h;
			*gpu = g;
		}
	}
	return bh;
}

/* ---- gangs on the tree ---- */

/* The running gangs' load on the uplinks, counted again when stale. */
static struct gang *gang_of(struct sch *s)
{
	size_t i, k;

	if (s->uload_ok)
		return s->gang;
	gang_load_clear(s->gang);
	for (i = 0; i < s->nrun; i++) {
		const struct job *j = &s->job[s->run[i]];

		for (k = 0; j->k >= 2 && k < j->nslots; k++)
			if (!k || j->slot[k - 1].host != j->slot[k].host)
				gang_load_add(s->gang, j->slot[k].host,
					      j->level);
	}
	s->uload_ok = true;
	return s->gang;
}

/* A gang's hosts into out: 0, or -1 when it does not fit; *lvl spanned. */
static int pick_gang(struct sch *s, const struct view *v, const struct job *j,
		     enum sch_place p, const uint8_t *mask, uint32_t *out,
		     unsigned int *lvl)
{
	bool first = p == SCH_PLACE_FIRST;
	size_t h, n = 0;

	for (h = 0; h < s->nh; h++)
		if (host_ok(s, v, h, j, mask))
			s->cand[n++] = (uint32_t)h;
	return gang_pick(gang_of(s), s->cand, n, v->whole, j->k, first, out,
			 lvl, first && !s->c.record_first ? NULL : &s->feasible);
}

/*
 * Whole GPUs of host h for j, n of them, lowest free first, into sl:
 * with NIC share, behind rails that have it.
 */
static size_t take_whole(const struct sch *s, const struct view *v, uint32_t h,
			 const struct job *j, unsigned int n,
			 struct sch_slot *sl)
{
	const uint16_t *g = &v->gfree[s->goff[h]];
	uint64_t bad = rails_short(s, v, h, j->r.nic);
	unsigned int i;
	size_t k = 0;

	for (i = 0; i < s->h[h].gpus && k < n; i++)
		if (g[i] == SCH_MILLI && !(bad >> rail_of(s, h, i) & 1))
			sl[k++] = (struct sch_slot){ h, (uint16_t)i, SCH_MILLI,
				(uint16_t)rail_of(s, h, i) };
	return k;
}

/*
 * The rail of host h a NIC share alone (nic) takes: of those with it
 * free, the one left with the least, the first of equals (as the pool
 * places it, packed); 0 without one.
 */
static unsigned int take_rail(const struct sch *s, const struct view *v,
			      size_t h, unsigned int nic)
{
	uint64_t bad = rails_short(s, v, h, nic);
	uint32_t least = UINT32_MAX, f;
	unsigned int r, best = 0;

	for (r = 0; nic && r < s->h[h].rails; r++) {
		f = v->nicfree[s->roff[h] + r];
		if (!(bad >> r & 1) && f < least) {
			least = f;
			best = r;
		}
	}
	return best;
}

/* Place j on view v: its slots into sl, how many (0: does not fit). */
static size_t place(struct sch *s, const struct view *v, const struct job *j,
		    enum sch_place p, const uint8_t *mask, struct sch_slot *sl,
		    unsigned int *lvl)
{
	size_t n = 0, i;
	int gpu = -1;
	long h;

	*lvl = 0;
	if (j->k > 1) {
		if (s->c.gang_first_fit)
			p = SCH_PLACE_FIRST;
		if (pick_gang(s, v, j, p, mask, s->pick, lvl))
			return 0;
		for (i = 0; i < j->k; i++)
			n += take_whole(s, v, s->pick[i], j,
					i + 1 < j->k ? j->per :
						j->r.gpus - j->per * (j->k - 1),
					sl + n);
		return n;
	}
	h = pick_one(s, v, j, p, mask, &gpu);
	if (h < 0)
		return 0;
	if (j->r.gpus)
		return take_whole(s, v, (uint32_t)h, j, j->r.gpus, sl);
	sl[0] = (struct sch_slot){ .host = (uint32_t)h,
		.gpu = j->r.milli ? (uint16_t)gpu : NO_GPU,
		.milli = (uint16_t)j->r.milli,
		.rail = (uint16_t)(j->r.milli ? rail_of(s, (size_t)h,
							(unsigned int)gpu) :
				   take_rail(s, v, (size_t)h, j->r.nic)) };
	return 1;
}

size_t sch_preview(struct sch *s, const struct sch_req *r, enum sch_place p,
		   uint32_t *out, size_t n, unsigned int *level)
{
	struct job j = { .r = *r };
	struct sch_slot *sl;
	size_t k, i, m = 0;

	if (!r->gpus && !r->milli && !r->nic && !r->cpu && !r->mem)
		return 0;
	j.k = r->hosts ? r->hosts : 1;
	if (!r->hosts && r->gpus > s->maxg)
		j.k = (r->gpus + s->maxg - 1) / s->maxg;
	j.per = r->per_host ? r->per_host : (r->gpus + j.k - 1) / j.k;
	sl = calloc(r->gpus ? r->gpus : 1, sizeof(*sl));
	if (!sl)
		return 0;
	if (p == SCH_PLACE_DEFAULT)
		p = placement(s);
	k = place(s, &s->v, &j, p, NULL, sl, level);
	for (i = 0; i < k && m < n; i++)
		if (!i || sl[i].host != sl[i - 1].host)
			out[m++] = sl[i].host;
	free(sl);
	return m;
}

/* ---- fair share and prediction ---- */

static double decay(const struct sch *s, double v, double from, double to)
{
	if (s->c.fair_halflife <= 0 || to <= from)
		return v;
	return v * exp2(-(to - from) / s->c.fair_halflife);
}

static int user_slot(struct sch *s, uint32_t u)
{
	size_t n;

	if (u < s->nusr)
		return 0;
	if (u >= 1u << 24)
		return -EINVAL;
	n = s->nusr ? s->nusr : 64;
	while (n <= u)
		n *= 2;
	struct user *p = realloc(s->usr, n * sizeof(*p));

	if (!p)
		return -ENOMEM;
	memset(p + s->nusr, 0, (n - s->nusr) * sizeof(*p));
	s->usr = p;
	s->nusr = n;
	return 0;
}

double sch_usage(const struct sch *s, uint32_t u, double t)
{
	if (u >= s->nusr)
		return 0;
	return decay(s, s->usr[u].use, s->usr[u].at, t);
}

static void charge(struct sch *s, const struct job *j, double t)
{
	struct user *u = &s->usr[j->r.user];
	double gs = (double)j->milli / SCH_MILLI * (t - j->start);

	u->use = decay(s, u->use, u->at, t) + gs;
	u->at = t;
	s->tot_use = decay(s, s->tot_use, s->tot_at, t) + gs;
	s->tot_at = t;
}

static struct prd_job prd_of(const struct job *j)
{
	return (struct prd_job){ .user = j->r.user, .milli = j->milli,
				 .name = j->r.name, .limit = j->r.limit };
}

/* ---- queue ---- */

static double prio(const struct sch *s, const struct job *j, double t)
{
	const struct user *u = &s->usr[j->r.user];
	double age = (t - j->submit) / s->c.age_max, fs = 1, tot;

	/* Slurm's classic factor 2^(-usage/shares), equal shares */
	tot = decay(s, s->tot_use, s->tot_at, t);
	if (tot > 0)
		fs = exp2(-(decay(s, u->use, u->at, t) / tot) *
			  (double)s->nseen);
	/* the head of its class: above what any factor adds in it */
	if (j->head)
		return s->c.w_cls[j->r.cls] + s->c.w_age + s->c.w_fair +
		       s->c.w_size + 1;
	return s->c.w_cls[j->r.cls] +
	       s->c.w_age * (age < 1 ? age : 1) + s->c.w_fair * fs +
	       s->c.w_size * (double)j->milli / (double)s->cap_milli;
}

/*
 * srpt's measure of j at t: its predicted remaining GPU-seconds, the
 * restarts its preemptions cost included.  Without a history, or once
 * it ran past its prediction, what it attained instead (2D-LAS): run
 * times are heavy-tailed, so the longer a job ran the longer it is
 * likely to run on.
 */
static double remaining(const struct sch *s, const struct job *j, double t)
{
	double ran = j->ran, run = 0, reload, left;

	if (j->st == J_RUN) {
		run = t - j->start;
		ran += run;
	}
	reload = j->reload ? s->c.restart : 0;
	/* past its prediction in work done, restarts aside: for good */
	left = j->pred - (j->work + fmax(run - reload, 0));
	if (!j->hist || left <= 0)
		left = ran;
	else
		left += fmax(reload - run, 0);
	return left * (double)j->milli / SCH_MILLI;
}

/* srpt: j waited its bound, queued now or before it last started. */
static bool starved(const struct sch *s, const struct job *j, double t)
{
	double w = j->st == J_QUEUED ? t - j->submit - j->ran : j->waited;

	return s->c.starve > 0 && w >= s->c.starve;
}

/* The job's place in the queue: lower first. */
static double key_of(const struct sch *s, const struct job *j, double t)
{
	double k;

	switch (s->c.policy) {
	case SCH_SRPT:
		if (j->head || starved(s, j, t))
			return j->submit - STARVE_KEY;
		return remaining(s, j, t);
	case SCH_PRIORITY:
		return -prio(s, j, t);
	case SCH_PREDICTED:
		k = j->pred - j->ran;
		break;
	case SCH_SJF:
		k = (j->r.runtime > 0 ? j->r.runtime : j->r.limit) - j->ran;
		break;
	case SCH_TIRESIAS:
		return (j->head ? 0 : j->lasq) * 1e12 + j->submit;
	default:
		k = j->submit;
		break;
	}
	if (j->head)
		return k - HEAD_KEY;
	if (s->c.starve > 0 && t - j->submit >= s->c.starve)
		return j->submit - STARVE_KEY;
	return k;
}

static int qcmp(const struct sch *s, uint32_t a, uint32_t b)
{
	const struct job *x = &s->job[a], *y = &s->job[b];

	if (x->key != y->key)
		return x->key < y->key ? -1 : 1;
	return a < b ? -1 : a > b;
}

static size_t qfind(const struct sch *s, uint32_t j)
{
	size_t lo = 0, hi = s->nq, mid;

	while (lo < hi) {
		mid = (lo + hi) / 2;
		if (qcmp(s, s->q[mid], j) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

static int qinsert(struct sch *s, uint32_t j, double t)
{
	size_t at;

	if (s->nq == s->capq) {
		size_t n = s->capq ? s->capq * 2 : 256;
		uint32_t *p = realloc(s->q, n * sizeof(*p));

		if (!p)
			return -ENOMEM;
		s->q = p;
		s->capq = n;
	}
	s->job[j].st = J_QUEUED;
	s->job[j].key = key_of(s, &s->job[j], t);
	s->job[j].qsince = t;
	at = qfind(s, j);
	memmove(s->q + at + 1, s->q + at, (s->nq - at) * sizeof(*s->q));
	s->q[at] = j;
	s->nq++;
	return 0;
}

static void qremove(struct sch *s, uint32_t j)
{
	size_t at = qfind(s, j);

	if (at < s->nq && s->q[at] == j) {
		memmove(s->q + at, s->q + at + 1,
			(s->nq - at - 1) * sizeof(*s->q));
		s->nq--;
	}
}

static const struct sch *sort_ctx;

static int qsort_cmp(const void *a, const void *b)
{
	return qcmp(sort_ctx, *(const uint32_t *)a, *(const uint32_t *)b);
}

static void resort(struct sch *s, double t)
{
	size_t i;

	for (i = 0; i < s->nq; i++) {
		struct job *j = &s->job[s->q[i]];

		if (s->c.policy == SCH_TIRESIAS && s->c.las_starve > 0 &&
		    j->ran > 0 && t - j->qsince >= s->c.las_starve * j->ran)
			j->lasq = 0;
		j->key = key_of(s, j, t);
	}
	sort_ctx = s;
	qsort(s->q, s->nq, sizeof(*s->q), qsort_cmp);
	s->last_recalc = t;
}

static bool recalcs(const struct sch *s)
{
	return s->c.policy == SCH_PRIORITY || s->c.starve > 0 ||
	       s->c.las_starve > 0;
}

/* ---- decisions ---- */

static int decide(struct sch *s, enum sch_act a, const struct job *j)
{
	if (s->ndec == s->capdec) {
		size_t n = s->capdec ? s->capdec * 2 : 64;
		struct sch_dec *p = realloc(s->dec, n * sizeof(*p));

		if (!p)
			return -ENOMEM;
		s->dec = p;
		s->capdec = n;
	}
	s->dec[s->ndec++] = (struct sch_dec){
		.act = a, .ticket = (uint64_t)(j - s->job) + 1,
		.deadline = j->deadline,
		.slot = a == SCH_START || a == SCH_REPLACED ? j->slot : NULL,
		.nslots = a == SCH_START || a == SCH_REPLACED ? j->nslots : 0,
	};
	return 0;
}

static unsigned int las_queue(const struct sch *s, const struct job *j,
			      double t)
{
	double a = j->attained;

	if (j->st == J_RUN)
		a += (double)j->milli / SCH_MILLI * (t - j->start);
	return a >= s->c.las_thresh[1] ? 2 : a >= s->c.las_thresh[0];
}

static void run_add(struct sch *s, uint32_t ji)
{
	s->job[ji].rpos = s->nrun;
	s->run[s->nrun++] = ji;
}

static void run_del(struct sch *s, struct job *j)
{
	uint32_t last = s->run[--s->nrun];

	s->run[j->rpos] = last;
	s->job[last].rpos = j->rpos;
}

/* Start j now on its slots (already chosen). */
/* Where first fit would put gang j now, into j->alt. */
static int record_first(struct sch *s, struct job *j)
{
	unsigned int lvl, feasible = s->feasible;

	if (!j->alt && !(j->alt = calloc(j->k, sizeof(*j->alt))))
		return -ENOMEM;
	j->nalt = pick_gang(s, &s->v, j, SCH_PLACE_FIRST, NULL, j->alt,
			    &lvl) ? 0 : j->k;
	s->feasible = feasible;
	return 0;
}

static int start(struct sch *s, struct job *j, unsigned int lvl, double t)
{
	uint32_t ji = (uint32_t)(j - s->job);
	int ret;

	j->feasible = j->k > 1 ? s->feasible : 0;
	if (j->k > 1 && s->c.record_first && (ret = record_first(s, j)))
		return ret;

	slots_apply(s, &s->v, j->slot, j->nslots, &j->r, 1);
	s->uload_ok = false;
	j->st = J_RUN;
	j->start = t;
	j->head = false;
	j->deadline = -1;
	j->level = lvl;
	j->waited = t - j->submit - j->ran;
	if (j->first_start < 0)
		j->first_start = t;
	if (s->quota)
		j->borrowed = s->gused[j->r.group] + j->milli >
			      s->quota[j->r.group];
	s->gused[j->r.group] += j->milli;
	run_add(s, ji);
	return decide(s, SCH_START, j);
}

/*
 * Whether a request of j's shape (masked or not) already failed to place
 * in this pass: starting jobs only takes capacity, so it fails again.
 */
static bool failed_before(const struct sch *s, const struct job *j,
			  bool masked)
{
	size_t i;

	for (i = 0; i < s->nfailed; i++) {
		const struct shape *f = &s->failed[i];

		if (f->k == j->k && f->per == j->per &&
		    f->gpus == j->r.gpus && f->milli == j->r.milli &&
		    f->nic == j->r.nic && f->cpu == j->r.cpu &&
		    f->mem == j->r.mem && f->models == j->r.models &&
		    f->masked == masked)
			return true;
	}
	return false;
}

static void failed_add(struct sch *s, const struct job *j, bool masked)
{
	if (s->nfailed < NSHAPES)
		s->failed[s->nfailed++] = (struct shape){
			j->k, j->per, j->r.gpus, j->r.milli, j->r.nic,
			j->r.cpu, j->r.mem, j->r.models, masked };
}

static bool gang_waits(struct sch *s, struct job *j, unsigned int lvl,
		       double t);

static bool try_start(struct sch *s, struct job *j, double t,
		      const uint8_t *mask, int *err)
{
	unsigned int lvl;

	if (!quick_fit(s, j) || failed_before(s, j, mask != NULL))
		return false;
	j->nslots = place(s, &s->v, j, placement(s), mask, j->slot, &lvl);
	if (!j->nslots) {
		failed_add(s, j, mask != NULL);
		return false;
	}
	if (gang_waits(s, j, lvl, t))
		return false;
	*err = start(s, j, lvl, t);
	return true;
}

/* j stops running at t: its GPUs freed, its usage charged. */
static void stop(struct sch *s, struct job *j, double t)
{
	slots_apply(s, &s->v, j->slot, j->nslots, &j->r, -1);
	s->uload_ok = false;
	charge(s, j, t);
	j->work += fmax(t - j->start - (j->reload ? s->c.restart : 0), 0);
	j->reload = false;
	j->ran += t - j->start;
	j->attained += (double)j->milli / SCH_MILLI * (t - j->start);
	s->gused[j->r.group] -= j->milli;
	j->deadline = -1;
	run_del(s, j);
}

static int pend_add(struct sch *s, uint32_t ji)
{
	s->pend[s->npend++] = ji;	/* room for every job: see sch_submit */
	return 0;
}

/* Stop j and queue it again (after this step's pass). */
static int preempt(struct sch *s, struct job *j, double t)
{
	stop(s, j, t);
	j->preempts++;
	j->reload = true;
	j->st = J_DONE;		/* out of both lists until queued */
	j->lasq = las_queue(s, j, t);
	pend_add(s, (uint32_t)(j - s->job));
	return decide(s, SCH_PREEMPT, j);
}

/* ---- preemption ---- */

static bool victim_of(const struct sch *s, const struct job *j,
		      const struct job *v, double t)
{
	if (v->deadline >= 0)
		return false;
	if (s->c.policy == SCH_TIRESIAS)
		return las_queue(s, v, t) > j->lasq;
	if (s->c.policy == SCH_SRPT) {
		if (starved(s, v, t))
			return false;
		/* age orders the starved: only younger jobs make room */
		if (j->key < 0)
			return v->submit > j->submit;
		return v->key > s->c.srpt_ratio * j->key +
				s->c.restart * (double)v->milli / SCH_MILLI;
	}
	if (s->c.preempt && v->r.cls < j->r.cls)
		return true;
	return s->quota && v->borrowed && v->r.group != j->r.group &&
	       s->gused[j->r.group] + j->milli <= s->quota[j->r.group] &&
	       s->gused[v->r.group] > s->quota[v->r.group];
}

static int vcmp(const void *a, const void *b)
{
	const struct job *x = &sort_ctx->job[*(const uint32_t *)a];
	const struct job *y = &sort_ctx->job[*(const uint32_t *)b];

	if (x->r.cls != y->r.cls)
		return x->r.cls < y->r.cls ? -1 : 1;
	if (sort_ctx->c.policy == SCH_SRPT && x->key != y->key)
		return x->key > y->key ? -1 : 1;
	if (x->lasq != y->lasq)
		return x->lasq > y->lasq ? -1 : 1;
	if (x->start != y->start)
		return x->start > y->start ? -1 : 1;
	return *(const uint32_t *)a > *(const uint32_t *)b ? -1 : 1;
}

/*
 * Make room for blocked j: victims (lowest class, then latest started)
 * taken on a copy of the free GPUs until j would fit there; none when
 * it would not fit even then.  With a grace they get a notice, else
 * they stop now.  *drain: what notices already free, for the jobs ahead;
 * j waits on it before picking more.
 */
static int make_room(struct sch *s, struct job *j, double t, uint64_t *drain)
{
	size_t n = 0, i, k, take = 0;
	uint64_t fm = s->free_milli;
	unsigned int lvl;
	int ret;

	if (*drain >= j->milli) {
		*drain -= j->milli;
		return 0;
	}
	*drain = 0;
	for (i = 0; i < s->nrun; i++) {
		struct job *v = &s->job[s->run[i]];

		if (s->c.policy == SCH_TIRESIAS)
			v->lasq = las_queue(s, v, t);
		if (s->c.policy == SCH_SRPT)	/* the key is free while it runs */
			v->key = remaining(s, v, t);
		if (victim_of(s, j, v, t))
			s->vict[n++] = s->run[i];
	}
	if (!n)
		return 0;
	sort_ctx = s;
	view_copy(s, &s->rv);
	for (i = 0; i < n && !take; i++) {
		const struct job *v;
		uint32_t x;

		/* the next victim by selection: few are taken of many */
		for (k = i + 1; k < n; k++)
			if (vcmp(&s->vict[k], &s->vict[i]) < 0) {
				x = s->vict[i];
				s->vict[i] = s->vict[k];
				s->vict[k] = x;
			}
		v = &s->job[s->vict[i]];

		slots_apply(s, &s->rv, v->slot, v->nslots, &v->r, -1);
		fm += v->milli;
		if (fm >= j->milli &&
		    place(s, &s->rv, j, placement(s), NULL, j->slot, &lvl))
			take = i + 1;
	}
	for (k = 0; k < take; k++) {
		struct job *v = &s->job[s->vict[k]];

		if (s->c.grace > 0) {
			v->deadline = t + s->c.grace;
			ret = decide(s, SCH_NOTICE, v);
		} else {
			ret = preempt(s, v, t);
		}
		if (ret)
			return ret;
	}
	return 0;
}

/* ---- the passes ---- */

/* When running job v is expected to end, as the policy believes. */
static double expect_end(const struct sch *s, const struct job *v, double t)
{
	double est, e;

	switch (s->c.policy) {
	case SCH_PREDICTED:
		est = v->r.limit > 0 ? v->r.limit : v->pred;
		break;
	case SCH_SJF:
		est = v->r.runtime > 0 ? v->r.runtime : v->r.limit;
		break;
	default:
		est = v->r.limit;
		break;
	}
	e = est > 0 ? v->start + est - v->ran : INF;
	if (e < t)
		e = t;
	if (v->deadline >= 0 && v->deadline < e)
		e = v->deadline;
	return e;
}

static int end_cmp(const void *a, const void *b)
{
	const double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/* Running jobs in the order the policy expects them to end, in s->ends. */
static void sort_ends(struct sch *s, double t)
{
	size_t i;

	for (i = 0; i < s->nrun; i++) {
		s->ends[i].end = expect_end(s, &s->job[s->run[i]], t);
		s->ends[i].j = s->run[i];
	}
	qsort(s->ends, s->nrun, sizeof(*s->ends), end_cmp);
}

/* The distinct hosts of slots sl[0..n) into h: how many. */
static size_t slot_hosts(const struct sch_slot *sl, size_t n, uint32_t *h)
{
	size_t i, k = 0;

	for (i = 0; i < n; i++)
		if (!i || sl[i].host != sl[i - 1].host)
			h[k++] = sl[i].host;
	return k;
}

/* A gang's slowdown on hosts h[0..n): the flow model's, or the count's. */
static double slowdown(struct sch *s, const uint32_t *h, size_t n,
		       const uint64_t *gone, size_t ngone)
{
	if (s->c.comm)
		return s->c.comm(s->c.comm_ctx, h, n, gone, ngone);
	return 1 + gang_cost(gang_of(s), h, n);
}

/*
 * Gang j could start now at level lvl on j->slot.  Running jobs end as
 * the policy expects, on a copy, until j fits at a lower level within
 * gang_wait; then whether its expected run time x the slowdown it
 * saves there exceeds that wait.  Sets j waiting if so.
 */
static bool wait_pays(struct sch *s, struct job *j, unsigned int lvl,
		      double t)
{
	struct sch_slot *sl = calloc(j->r.gpus + 1, sizeof(*sl));
	uint32_t *now = calloc(2 * j->k, sizeof(*now)), *then = now + j->k;
	uint64_t *gone = calloc(s->nrun + 1, sizeof(*gone));
	unsigned int tl = lvl, feasible = s->feasible;
	size_t i, n = 0, nn, ng = 0;
	double at = t, a, b;
	bool wait = false;

	if (!sl || !now || !gone)
		goto out;
	view_copy(s, &s->rv);
	sort_ends(s, t);
	for (i = 0; i < s->nrun && tl >= lvl; i++) {
		const struct job *v = &s->job[s->ends[i].j];

		at = s->ends[i].end;
		if (at > t + s->c.gang_wait)
			break;
		slots_apply(s, &s->rv, v->slot, v->nslots, &v->r, -1);
		gone[ng++] = (uint64_t)s->ends[i].j + 1;
		if (i + 1 < s->nrun && s->ends[i + 1].end == at)
			continue;
		n = place(s, &s->rv, j, placement(s), NULL, sl, &tl);
		if (!n)
			tl = lvl;
	}
	if (tl >= lvl)
		goto out;
	nn = slot_hosts(j->slot, j->nslots, now);
	a = slowdown(s, now, nn, NULL, 0);
	n = slot_hosts(sl, n, then);
	b = slowdown(s, then, n, gone, ng);
	wait = gang_wait_pays(s->gang, &j->gw, j->pred - j->ran, a, b, at, t,
			      s->c.gang_wait, tl, then[0]);
out:
	s->feasible = feasible;
	free(sl);
	free(now);
	free(gone);
	return wait;
}

/*
 * Whether gang j, which could start now at level lvl, waits instead:
 * decided once (wait_pays()), then until it fits as low as it waits
 * for or gang_wait has passed.
 */
static bool gang_waits(struct sch *s, struct job *j, unsigned int lvl,
		       double t)
{
	if (s->c.gang_wait <= 0 || j->k < 2 || !lvl)
		return false;
	switch (gang_wait_check(s->gang, &j->gw, lvl, t)) {
	case GANG_WAIT:
		return true;
	case GANG_ASK:
		return wait_pays(s, j, lvl, t);
	default:
		return false;
	}
}

/*
 * The head's reservation: running jobs end as expected, in order, on a
 * copy, until j fits; the hosts it would take are marked in s->resv.
 * Returns that time, INF when it never fits.
 */
static double reserve(struct sch *s, const struct job *j, double t)
{
	uint64_t fm = s->free_milli;
	struct sch_slot *sl = j->slot;	/* unused while queued */
	unsigned int lvl;
	size_t i, k, n;

	memset(s->resv, 0, s->nh);
	view_copy(s, &s->rv);
	sort_ends(s, t);
	for (i = 0; i < s->nrun; i++) {
		const struct job *v = &s->job[s->ends[i].j];

		if (s->ends[i].end == INF)
			break;
		slots_apply(s, &s->rv, v->slot, v->nslots, &v->r, -1);
		fm += v->milli;
		if (i + 1 < s->nrun && s->ends[i + 1].end == s->ends[i].end)
			continue;
		if (fm < j->milli)
			continue;
		n = place(s, &s->rv, j, placement(s), NULL, sl, &lvl);
		if (n) {
			for (k = 0; k < n; k++)
				s->resv[sl[k].host] = 1;
			return s->ends[i].end;
		}
	}
	return INF;
}

/*
 * What backfill believes j runs for.  Predictions only order the queue:
 * a reservation holds on the limits, as a prediction too short would
 * let backfilled jobs delay the head again and again.
 */
static double backfill_len(const struct sch *s, const struct job *j)
{
	if (s->c.policy == SCH_PREDICTED && j->r.limit <= 0)
		return j->pred - j->ran;
	if (s->c.policy == SCH_SJF && j->r.runtime > 0)
		return j->r.runtime - j->ran;
	return j->r.limit > 0 ? j->r.limit - j->ran : INF;
}

/*
 * Gang j waits for a group: its hosts are held as a reservation is,
 * until the wait ends.  Returns that time.
 */
static double hold_group(struct sch *s, const struct job *j)
{
	gang_wait_hold(s->gang, &j->gw, s->resv);
	return j->gw.until;
}

/* What of their idle quota the groups' queued jobs would start in. */
static void wants(struct sch *s)
{
	size_t i;

	if (!s->quota)
		return;
	memset(s->want, 0, s->c.ngroups * sizeof(*s->want));
	for (i = 0; i < s->nq; i++) {
		const struct job *j = &s->job[s->q[i]];

		if (s->gused[j->r.group] + j->milli <= s->quota[j->r.group])
			s->want[j->r.group] += j->milli;
	}
}

/*
 * Whether j may start as its group's limits go (Kueue's borrowingLimit
 * and lendingLimit): within its quota always; beyond it, no more than
 * its borrowing limit beyond, and leaving free what of each other
 * group's idle quota that group does not lend or its queued jobs would
 * start in (as Kueue admits those that do not borrow first).
 */
static bool limits_ok(const struct sch *s, const struct job *j)
{
	uint32_t g = j->r.group, h;
	uint64_t u, idle, keep = 0, k;

	if (!s->quota || (u = s->gused[g] + j->milli) <= s->quota[g])
		return true;
	if (s->borrow && u - s->quota[g] > s->borrow[g])
		return false;
	for (h = 0; h < s->c.ngroups; h++) {
		if (h == g || s->gused[h] >= s->quota[h])
			continue;
		idle = s->quota[h] - s->gused[h];
		k = s->want[h] < idle ? s->want[h] : idle;
		if (s->lend && idle > s->lend[h] && idle - s->lend[h] > k)
			k = idle - s->lend[h];
		keep += k;
	}
	return s->free_milli >= j->milli + keep;
}

/* The policies that preempt for order, not only for class or quota. */
static bool reorders(const struct sch *s)
{
	return s->c.policy == SCH_TIRESIAS || s->c.policy == SCH_SRPT;
}

static bool can_preempt(const struct sch *s)
{
	return s->c.preempt || s->quota || reorders(s);
}

/*
 * One pass over the queue in order.  fifo stops at the first job that
 * does not fit; the backfill policies reserve for it and start later
 * jobs only where they cannot delay that reservation; the packing
 * policies, tiresias and srpt start whatever fits.
 */
/* Queue position of the last job that needs no GPU, or SIZE_MAX. */
static size_t last_gpuless(const struct sch *s)
{
	size_t i = s->nq;

	while (i--)
		if (!s->job[s->q[i]].milli)
			return i;
	return SIZE_MAX;
}

static int pass(struct sch *s, double t)
{
	enum sch_policy p = s->c.policy;
	bool backfill = p == SCH_EASY || p == SCH_PRIORITY ||
			p == SCH_PREDICTED || p == SCH_SJF;
	bool resv = false;
	double shadow = INF;
	uint64_t drain = 0;
	int tries = PREEMPT_TRIES, ret = 0;
	size_t i, o, gl = SIZE_MAX - 1;	/* last_gpuless(), once needed */

	s->nfailed = 0;
	wants(s);
	for (i = 0; i < s->nrun; i++)
		if (s->job[s->run[i]].deadline >= 0)
			drain += s->job[s->run[i]].milli;
	for (i = 0; i < s->nq && !ret; i++) {
		struct job *j = &s->job[s->q[i]];

		/* no GPU free: only what needs none (a NIC share) may start */
		if (!s->free_milli && j->milli && !can_preempt(s)) {
			if (gl == SIZE_MAX - 1)
				gl = last_gpuless(s);
			if (p == SCH_FIFO || gl == SIZE_MAX || i > gl)
				break;
			continue;
		}
		if (!limits_ok(s, j))	/* inadmissible: the next one may go */
			continue;
		if (resv) {
			try_start(s, j, t, t + backfill_len(s, j) <=
					 shadow ? NULL : s->resv, &ret);
			continue;
		}
		if (try_start(s, j, t, NULL, &ret))
			continue;
		if (j->gw.waiting) {	/* could start: preempts no one */
			if (p == SCH_FIFO)
				break;
			shadow = hold_group(s, j);
			resv = true;
			continue;
		}
		if (can_preempt(s) && tries > 0) {
			uint64_t had = s->free_milli;

			tries--;
			if ((ret = make_room(s, j, t, &drain)))
				break;
			if (s->free_milli != had)	/* capacity came back */
				s->nfailed = 0;
			if (reorders(s) && try_start(s, j, t, NULL, &ret))
				continue;
		}
		if (p == SCH_FIFO)
			break;
		if (backfill) {
			shadow = reserve(s, j, t);
			resv = true;
		}
	}
	for (i = 0, o = 0; i < s->nq; i++)
		if (s->job[s->q[i]].st == J_QUEUED)
			s->q[o++] = s->q[i];
	s->nq = o;
	return ret;
}

/* Noticed jobs whose grace is over stop now. */
static int expire(struct sch *s, double t)
{
	size_t i;
	int ret;

	for (i = 0; i < s->nrun; i++) {
		struct job *j = &s->job[s->run[i]];

		if (j->deadline >= 0 && j->deadline <= t) {
			if ((ret = preempt(s, j, t)))
				return ret;
			i--;	/* run_del moved the last one here */
		}
	}
	return 0;
}

/* ---- continuity ---- */

/*
 * Lost job j: its GPUs on down hosts are gone.  Replace them at the
 * level it was placed at (a host with as many GPUs in the same group),
 * else (or with requeue_lost) stop it and queue it at the head of its
 * class.
 */
static int recover(struct sch *s, struct job *j, double t)
{
	struct sch_slot *sl = j->slot;
	uint32_t anchor = SCH_NONE, h;
	unsigned int lvl = j->level < s->c.nlevels ? j->level : 0, unit;
	size_t i, n = 0, o = 0, lost = 0, lh = 0;
	int ret;

	if ((ret = decide(s, SCH_LOST, j)))
		return ret;
	s->uload_ok = false;
	memset(s->inuse, 0, s->nh);
	for (i = 0; i < j->nslots; i++) {
		s->inuse[sl[i].host] = 1;
		if (s->up[sl[i].host]) {
			anchor = sl[i].host;
			continue;
		}
		lost++;
		lh += !i || sl[i - 1].host != sl[i].host;
	}
	/* the down hosts' GPUs go back to them, not to the pool */
	slots_apply(s, &s->v, sl, j->nslots, &j->r, -1);
	if (j->k > 1 && anchor != SCH_NONE && j->r.gpus &&
	    !s->c.requeue_lost) {
		for (h = 0; h < s->nh && n < lh; h++)
			if (!s->inuse[h] &&
			    s->h[h].lvl[lvl] == s->h[anchor].lvl[lvl] &&
			    host_ok(s, &s->v, h, j, NULL))
				s->pick[n++] = h;
	}
	if (n == lh && n) {
		for (i = 0; i < j->nslots; i++)
			if (s->up[sl[i].host])
				sl[o++] = sl[i];
		for (i = 0; i < n; i++, lost -= unit) {
			unit = lost < j->per ? (unsigned int)lost : j->per;
			o += take_whole(s, &s->v, s->pick[i], j, unit, sl + o);
		}
		j->nslots = o;
		slots_apply(s, &s->v, sl, o, &j->r, 1);
		return decide(s, SCH_REPLACED, j);
	}
	if (j->k == 1 && !s->c.requeue_lost) {
		o = place(s, &s->v, j, placement(s), NULL, sl, &lvl);
		if (o) {
			j->nslots = o;
			slots_apply(s, &s->v, sl, o, &j->r, 1);
			return decide(s, SCH_REPLACED, j);
		}
	}
	/* stop() gives the slots back: take them once more first */
	slots_apply(s, &s->v, sl, j->nslots, &j->r, 1);
	stop(s, j, t);
	j->head = true;
	j->reload = true;	/* from its checkpoint, as a preempted one */
	j->st = J_DONE;
	pend_add(s, (uint32_t)(j - s->job));
	return decide(s, SCH_REQUEUE, j);
}

int sch_step(struct sch *s, double t, const struct sch_dec **d, size_t *n)
{
	size_t i;
	int ret = 0;

	s->ndec = 0;
	s->npend = 0;
	s->now = t;
	for (i = 0; i < s->nlost && !ret; i++) {
		struct job *j = &s->job[s->lost[i]];

		j->lost = false;
		if (j->st == J_RUN)
			ret = recover(s, j, t);
	}
	s->nlost = 0;
	if (!ret)
		ret = expire(s, t);
	if (!ret && recalcs(s) && t >= s->last_recalc + s->c.recalc)
		resort(s, t);
	if (!ret)
		ret = pass(s, t);
	for (i = 0; i < s->npend && !ret; i++)
		ret = qinsert(s, s->pend[i], t);
	*d = s->dec;
	*n = s->ndec;
	return ret;
}

double sch_next(const struct sch *s, double t)
{
	double best = -1, e;
	size_t i;

	if (s->nlost)
		return t;
	for (i = 0; i < s->nrun; i++) {
		const struct job *j = &s->job[s->run[i]];
		unsigned int q;

		if (j->deadline >= 0 && (best < 0 || j->deadline < best))
			best = j->deadline;
		if (s->c.policy != SCH_TIRESIAS || !s->nq)
			continue;
		q = las_queue(s, j, t);
		if (q >= 2)
			continue;
		e = j->start + (s->c.las_thresh[q] - j->attained) /
				       ((double)j->milli / SCH_MILLI);
		if (e > t && (best < 0 || e < best))
			best = e;
	}
	for (i = 0; gang_waiting(s->gang) && i < s->nq; i++) {
		const struct gang_wait *w = &s->job[s->q[i]].gw;

		if (w->waiting && w->until > t && (best < 0 || w->until < best))
			best = w->until;
	}
	if (s->nq && recalcs(s)) {
		e = s->last_recalc + s->c.recalc;
		if (e <= t)
			e = t + s->c.recalc;
		if (best < 0 || e < best)
			best = e;
	}
	return best;
}

/* ---- the API ---- */

static int job_init(struct sch *s, struct job *j, const struct sch_req *r,
		    double t)
{
	struct prd_job pj;

	memset(j, 0, sizeof(*j));
	j->r = *r;
	j->r.name = NULL;
	if (r->name && !(j->r.name = strdup(r->name)))
		return -ENOMEM;
	j->slot = calloc(r->gpus ? r->gpus : 1, sizeof(*j->slot));
	if (!j->slot) {
		free((char *)j->r.name);
		return -ENOMEM;
	}
	j->k = r->hosts ? r->hosts : 1;
	if (!r->hosts && r->gpus > s->maxg)
		j->k = (r->gpus + s->maxg - 1) / s->maxg;
	j->per = r->per_host ? r->per_host : (r->gpus + j->k - 1) / j->k;
	j->milli = r->gpus ? (uint64_t)r->gpus * SCH_MILLI : r->milli;
	j->submit = t;
	j->first_start = -1;
	j->deadline = -1;
	pj = prd_of(j);
	j->pred = prd_predict(s->hist, &pj, &j->hist);
	return 0;
}

static bool req_ok(const struct sch *s, const struct sch_req *r)
{
	unsigned int k;

	if (r->cls >= SCH_CLASSES || r->milli > SCH_MILLI ||
	    (!r->gpus && !r->milli && !r->nic && !r->cpu && !r->mem) ||
	    (s->quota ? r->group >= s->c.ngroups : r->group >= 1u << 20) ||
	    (uint64_t)r->gpus * SCH_MILLI > s->all_milli)
		return false;
	k = r->hosts ? r->hosts : 1;
	if (!r->hosts && r->gpus > s->maxg)
		k = (r->gpus + s->maxg - 1) / s->maxg;
	if (r->hosts && (!r->per_host || r->per_host * (r->hosts - 1) >=
						 r->gpus ||
			 r->per_host * r->hosts < r->gpus))
		return false;
	return k <= s->nh && (k == 1 ? r->gpus : (r->gpus + k - 1) / k) <=
					    s->maxg;
}

static int resize(void **p, size_t n, size_t size)
{
	void *q = realloc(*p, n * size);

	if (!q)
		return -ENOMEM;
	*p = q;
	return 0;
}

/* Room for twice the jobs, in the job array and every list of jobs. */
static int jobs_grow(struct sch *s)
{
	uint32_t **lists[] = { &s->pend, &s->lost, &s->run, &s->vict };
	size_t n = s->capjob ? s->capjob * 2 : 256, i;

	if (resize((void **)&s->job, n, sizeof(*s->job)) ||
	    resize((void **)&s->ends, n, sizeof(*s->ends)))
		return -ENOMEM;
	for (i = 0; i < sizeof(lists) / sizeof(lists[0]); i++)
		if (resize((void **)lists[i], n, sizeof(**lists[i])))
			return -ENOMEM;
	s->capjob = n;
	return 0;
}

/* Count r in m, unless it is a gang (FGD weighs one host's room). */
static void mix_count(const struct sch *s, struct frg_mix *m,
		      const struct sch_req *r)
{
	if (!r->hosts && r->gpus <= s->maxg)
		frg_mix_add(m, &(struct frg_req){ .gpus = r->gpus,
			    .milli = r->milli, .cpu = r->cpu,
			    .models = r->models });
}

void sch_expect(struct sch *s, const struct sch_req *r)
{
	mix_count(s, &s->mix, r);
}

int sch_submit(struct sch *s, const struct sch_req *r, double t,
	       uint64_t *ticket)
{
	uint64_t *g;
	int ret;

	if (!req_ok(s, r))
		return -EINVAL;
	if ((ret = user_slot(s, r->user)))
		return ret;
	if (!s->usr[r->user].seen) {
		s->usr[r->user].seen = true;
		s->nseen++;
	}
	if (!s->quota && r->group >= s->c.ngroups) {
		size_t n = r->group + 1;

		g = realloc(s->gused, n * sizeof(*g));
		if (!g)
			return -ENOMEM;
		memset(g + s->c.ngroups, 0, (n - s->c.ngroups) * sizeof(*g));
		s->gused = g;
		s->c.ngroups = (unsigned int)n;
	}
	if (s->njob == s->capjob && (ret = jobs_grow(s)))
		return ret;
	if ((ret = job_init(s, &s->job[s->njob], r, t)))
		return ret;
	if ((ret = qinsert(s, (uint32_t)s->njob, t))) {
		free(s->job[s->njob].slot);
		free((char *)s->job[s->njob].r.name);
		return ret;
	}
	if (!s->expected)
		sch_expect(s, r);
	mix_count(s, &s->seen, r);
	*ticket = ++s->njob;
	return 0;
}

void sch_expect_end(struct sch *s, double pct)
{
	frg_mix_trim(&s->mix, pct);
	s->expected = true;
}

/* Slots sl[0..n) free for r: their GPUs, and r's CPU and memory. */
static bool slots_free(const struct sch *s, const struct sch_req *r,
		       const struct sch_slot *sl, size_t n, size_t room)
{
	size_t i, h;

	if (!n || n > room)
		return false;
	for (i = 0; i < n; i++) {
		h = sl[i].host;
		if (h >= s->nh || s->v.cpufree[h] < r->cpu ||
		    s->v.memfree[h] < r->mem)
			return false;
		if (sl[i].gpu == NO_GPU ? r->gpus || r->milli :
		    sl[i].gpu >= s->h[h].gpus ||
		    s->v.gfree[s->goff[h] + sl[i].gpu] < sl[i].milli)
			return false;
		/* a lost rail is no matter: held there, it is the caller's */
		if (r->nic && (slot_rail(s, &sl[i]) >= s->h[h].rails ||
			       s->v.nicfree[s->roff[h] + slot_rail(s, &sl[i])] <
				       r->nic))
			return false;
	}
	return true;
}

/* Running job k lost: the next sch_step() recovers it. */
static void lose(struct sch *s, uint32_t k)
{
	s->job[k].lost = true;
	s->lost[s->nlost++] = k;
}

/* Whether each host's slots of sl[0..n) are consecutive. */
static bool hosts_together(const struct sch_slot *sl, size_t n)
{
	size_t i, k;

	for (i = 1; i < n; i++)
		if (sl[i].host != sl[i - 1].host)
			for (k = 0; k + 1 < i; k++)
				if (sl[k].host == sl[i].host)
					return false;
	return true;
}

int sch_hold(struct sch *s, const struct sch_req *r,
	     const struct sch_slot *sl, size_t n, double t, uint64_t *ticket)
{
	struct job *j;
	size_t i, nh = 0;
	int ret;

	/* slots_apply() takes a host's share once, over its run of slots */
	if (!hosts_together(sl, n) ||
	    !slots_free(s, r, sl, n, r->gpus ? r->gpus : 1))
		return -EINVAL;
	ret = sch_submit(s, r, t, ticket);
	if (ret)
		return ret;
	j = &s->job[*ticket - 1];
	qremove(s, (uint32_t)(*ticket - 1));
	memcpy(j->slot, sl, n * sizeof(*sl));
	j->nslots = n;
	for (i = 0; i < n; i++)
		if ((!i || sl[i].host != sl[i - 1].host) && nh < s->nh)
			s->pick[nh++] = sl[i].host;
	ret = start(s, j, gang_span(s->gang, s->pick, nh), t);
	/* the caller placed it: nothing for the next step to report */
	s->ndec = 0;
	/* a host that went down before it was held: lost as if after */
	for (i = 0; !ret && i < n && !j->lost; i++)
		if (!s->up[sl[i].host])
			lose(s, (uint32_t)(*ticket - 1));
	return ret;
}

static struct job *job_of(struct sch *s, uint64_t ticket)
{
	if (!ticket || ticket > s->njob)
		return NULL;
	return &s->job[ticket - 1];
}

int sch_cancel(struct sch *s, uint64_t ticket, double t)
{
	struct job *j = job_of(s, ticket);

	if (!j || j->st == J_DONE)
		return -ENOENT;
	if (j->st == J_QUEUED)
		qremove(s, (uint32_t)(ticket - 1));
	else
		stop(s, j, t);
	gang_wait_drop(s->gang, &j->gw);
	j->st = J_DONE;
	return 0;
}

int sch_finish(struct sch *s, uint64_t ticket, double t)
{
	struct job *j = job_of(s, ticket);
	struct prd_job pj;

	if (!j || j->st != J_RUN)
		return -ENOENT;
	stop(s, j, t);
	j->st = J_DONE;
	pj = prd_of(j);
	/* a sample lost to memory only weakens later predictions */
	(void)prd_learn(s->hist, &pj, j->work);
	return 0;
}

/* Host h's GPUs into or out of the live counts. */
static void host_count(struct sch *s, size_t h, int sign)
{
	unsigned int i;

	for (i = 0; i < s->h[h].gpus; i++) {
		unsigned int f = s->v.gfree[s->goff[h] + i];

		s->gcnt[f] += sign;
		s->free_milli += sign * (int64_t)f;
	}
	s->cntw[s->v.whole[h]] += sign;
	s->cap_milli += sign * (int64_t)s->h[h].gpus * SCH_MILLI;
}

int sch_host_down(struct sch *s, uint32_t h, double t)
{
	size_t i, k;

	(void)t;
	if (h >= s->nh)
		return -ENOENT;
	if (!s->up[h])
		return 0;
	host_count(s, h, -1);
	s->up[h] = false;
	for (i = 0; i < s->nrun; i++) {
		struct job *j = &s->job[s->run[i]];

		for (k = 0; k < j->nslots && !j->lost; k++)
			if (j->slot[k].host == h)
				lose(s, s->run[i]);
	}
	return 0;
}

int sch_host_up(struct sch *s, uint32_t h, double t)
{
	(void)t;
	if (h >= s->nh)
		return -ENOENT;
	if (s->up[h])
		return 0;
	s->up[h] = true;
	host_count(s, h, 1);
	return 0;
}

static int rail_set(struct sch *s, uint32_t h, unsigned int r, bool down)
{
	if (h >= s->nh || r >= s->h[h].rails)
		return -ENOENT;
	if (down)
		s->rdown[h] |= 1ull << r;
	else
		s->rdown[h] &= ~(1ull << r);
	return 0;
}

int sch_rail_down(struct sch *s, uint32_t h, unsigned int r)
{
	return rail_set(s, h, r, true);
}

int sch_rail_up(struct sch *s, uint32_t h, unsigned int r)
{
	return rail_set(s, h, r, false);
}

int sch_info(const struct sch *s, uint64_t ticket, struct sch_info *i)
{
	const struct job *j;

	if (!ticket || ticket > s->njob)
		return -ENOENT;
	j = &s->job[ticket - 1];
	*i = (struct sch_info){
		.queued = j->st == J_QUEUED, .running = j->st == J_RUN,
		.submit = j->submit, .first_start = j->first_start,
		.predicted = j->pred, .level = j->level,
		.feasible = j->feasible,
		.nhosts = j->k, .preemptions = j->preempts,
		.attained = j->attained,
		.gang_waited = j->gw.waited,
		.gang_expired = j->gw.expired,
	};
	if (j->st == J_RUN)
		i->attained += (double)j->milli / SCH_MILLI *
				(s->now - j->start);
	return 0;
}

size_t sch_first_fit(const struct sch *s, uint64_t ticket,
		     const uint32_t **hosts)
{
	if (!ticket || ticket > s->njob)
		return 0;
	*hosts = s->job[ticket - 1].alt;
	return s->job[ticket - 1].nalt;
}

void sch_stats(const struct sch *s, struct sch_stats *st)
{
	st->milli_cap = s->cap_milli;
	st->milli_used = s->cap_milli - s->free_milli;
	st->queued = s->nq;
	st->running = s->nrun;
}

static int layout(struct sch *s)
{
	uint32_t *lvl;
	size_t h;
	int ret;

	for (h = 0; h < s->nh; h++) {
		if (s->h[h].gpus > MAXG || s->h[h].rails > SCH_MAX_RAILS)
			return -EINVAL;
		s->goff[h] = s->ngpu;
		s->ngpu += s->h[h].gpus;
		s->all_milli += (uint64_t)s->h[h].gpus * SCH_MILLI;
		s->roff[h] = s->nrail;
		s->nrail += s->h[h].rails;
		if (s->h[h].gpus > s->maxg)
			s->maxg = s->h[h].gpus;
		if (s->h[h].cpu > s->maxcpu)
			s->maxcpu = s->h[h].cpu;
		if (s->h[h].model >= SCH_MODELS)
			return -EINVAL;
	}
	lvl = calloc(s->nh * s->c.nlevels + 1, sizeof(*lvl));
	if (!lvl)
		return -ENOMEM;
	for (h = 0; h < s->nh; h++)
		memcpy(lvl + h * s->c.nlevels, s->h[h].lvl,
		       s->c.nlevels * sizeof(*lvl));
	ret = gang_new(lvl, s->nh, s->c.nlevels, &s->gang);
	free(lvl);
	return ret;
}

static int alloc_views(struct sch *s)
{
	struct view *v[2] = { &s->v, &s->rv };
	size_t h, i, k;

	for (k = 0; k < 2; k++) {
		v[k]->gfree = calloc(s->ngpu + 1, sizeof(*v[k]->gfree));
		v[k]->whole = calloc(s->nh, 1);
		v[k]->nicfree = calloc(s->nrail + 1, sizeof(*v[k]->nicfree));
		v[k]->cpufree = calloc(s->nh, sizeof(*v[k]->cpufree));
		v[k]->memfree = calloc(s->nh, sizeof(*v[k]->memfree));
		if (!v[k]->gfree || !v[k]->whole || !v[k]->nicfree ||
		    !v[k]->cpufree || !v[k]->memfree)
			return -ENOMEM;
	}
	for (h = 0; h < s->nh; h++) {
		for (i = 0; i < s->h[h].gpus; i++)
			s->v.gfree[s->goff[h] + i] = SCH_MILLI;
		s->v.whole[h] = (uint8_t)s->h[h].gpus;
		for (i = 0; i < s->h[h].rails; i++)
			s->v.nicfree[s->roff[h] + i] = s->h[h].nic;
		s->v.cpufree[h] = s->h[h].cpu ? s->h[h].cpu : UINT32_MAX;
		s->v.memfree[h] = s->h[h].mem ? s->h[h].mem : UINT32_MAX;
		s->up[h] = true;
		host_count(s, h, 1);
	}
	return 0;
}

/* A copy of per-group values v[0..n), or NULL. */
static uint64_t *dup_groups(const uint64_t *v, size_t n)
{
	uint64_t *d = malloc((n + 1) * sizeof(*d));

	if (d)
		memcpy(d, v, n * sizeof(*d));
	return d;
}

int sch_new(const struct sch_host *h, size_t n, const struct sch_config *c,
	    struct sch **out)
{
	struct sch *s;
	int ret = -ENOMEM;

	if (!n || !c->nlevels || c->nlevels > SCH_MAX_LEVELS ||
	    (unsigned int)c->policy >= SCH_NPOLICIES)
		return -EINVAL;
	s = calloc(1, sizeof(*s));
	if (!s)
		return -ENOMEM;
	s->c = *c;
	s->nh = n;
	s->h = malloc(n * sizeof(*s->h));
	s->goff = calloc(n, sizeof(*s->goff));
	s->roff = calloc(n, sizeof(*s->roff));
	s->up = calloc(n, sizeof(*s->up));
	s->rdown = calloc(n, sizeof(*s->rdown));
	s->cand = calloc(n + 1, sizeof(*s->cand));
	s->pick = calloc(n + 1, sizeof(*s->pick));
	s->resv = calloc(n, 1);
	s->inuse = calloc(n, 1);
	for (s->nmemo = 2; s->nmemo < 2 * n; s->nmemo *= 2)
		;
	s->memo = calloc(s->nmemo, sizeof(*s->memo));
	s->waste = calloc(FRG_TYPES, sizeof(*s->waste));
	s->gused = calloc(c->ngroups + 1, sizeof(*s->gused));
	s->want = calloc(c->ngroups + 1, sizeof(*s->want));
	if (!s->h || !s->goff || !s->roff || !s->up || !s->rdown || !s->cand ||
	    !s->pick || !s->resv || !s->inuse || !s->gused || !s->want ||
	    !s->memo || !s->waste || prd_new(&s->hist))
		goto out;
	memcpy(s->h, h, n * sizeof(*h));
	s->c.quota = s->c.borrow = s->c.lend = NULL;
	if (c->quota) {
		if (!(s->quota = dup_groups(c->quota, c->ngroups)) ||
		    (c->borrow &&
		     !(s->borrow = dup_groups(c->borrow, c->ngroups))) ||
		    (c->lend && !(s->lend = dup_groups(c->lend, c->ngroups))))
			goto out;
	} else {
		s->c.ngroups = 0;
	}
	if ((ret = layout(s)) || (ret = alloc_views(s)))
		goto out;
	*out = s;
	return 0;
out:
	sch_free(s);
	return ret;
}

void sch_free(struct sch *s)
{
	size_t i;

	if (!s)
		return;
	free(s->waste);
	for (i = 0; i < s->njob; i++) {
		free(s->job[i].slot);
		free(s->job[i].alt);
		free((char *)s->job[i].r.name);
	}
	free(s->job);
	free(s->v.gfree);
	free(s->v.whole);
	free(s->v.nicfree);
	free(s->v.cpufree);
	free(s->v.memfree);
	free(s->rv.gfree);
	free(s->rv.whole);
	free(s->rv.nicfree);
	free(s->rv.cpufree);
	free(s->rv.memfree);
	free(s->q);
	free(s->run);
	free(s->pend);
	free(s->lost);
	free(s->gused);
	free(s->want);
	free(s->usr);
	prd_free(s->hist);
	free(s->dec);
	gang_free(s->gang);
	free(s->cand);
	free(s->pick);
	free(s->resv);
	free(s->inuse);
	free(s->memo);
	free(s->ends);
	free(s->vict);
	free(s->quota);
	free(s->borrow);
	free(s->lend);
	free(s->goff);
	free(s->roff);
	free(s->up);
	free(s->rdown);
	free(s->h);
	free(s);
}
