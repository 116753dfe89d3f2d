// SPDX-License-Identifier: MIT
/*
 * verify: check the routing that is really in the fabric.  Discovers it,
 * reads every switch's LFT and SL2VL tables and every CA port's SL2VL,
 * asks the SA for the path SL of every CA LID pair (or a sample), then
 * runs the verifier.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "ibpoolroute.h"
#include "report.h"
#include "tools/lib/livefab/lfsa.h"
#include "tools/lib/livefab/livefab.h"
#include "topology/monotime.h"
#include "topology/rng.h"

#define NSL 16
#define VL_DROP 15		/* VL15 carries SMPs only: data is dropped */

/* One stored path SL: the SL, or one of these. */
#define SL_UNASKED 0xff		/* no query made (a port's own LIDs) */
#define SL_NOPATH 0xfe		/* the SA answered without a PathRecord */
#define SL_QUEUED 0xfd		/* picked for --sample, not yet answered */

#define SA_WINDOW 8		/* SA queries in flight */

/*
 * Progress lines: on a terminal every TTY_EVERY seconds; elsewhere only
 * once a run has taken LONG_RUN seconds, then every LOG_EVERY.
 */
#define TTY_EVERY 1.0
#define LONG_RUN 5.0
#define LOG_EVERY 10.0

struct progress {
	enum pr_progress mode;
	bool tty;
	double start;		/* the run's start */
	double phase_start;	/* the phase's, for the time left */
	double last;		/* the last line, 0 for none */
};

/* Where the SA queries stand: the next one, and how many are done. */
struct sa_walk {
	uint32_t i, j;		/* next source / pair (CA LID indices) */
	uint32_t stop;		/* sources: the one to stop at */
	uint64_t pick_next;	/* next --sample pick */
	uint64_t done, total;
	const char *what;	/* "sources" or "pairs", for progress */
	bool probe;		/* auto's first GetTable: no progress line */
};

/*
 * Everything verify reads, owned and freed by live_release(); f and t
 * belong to v, rep.ca points into the options.
 */
struct live {
	struct lf *v;
	const struct fabric *f;
	struct rt_tables *t;
	struct rt_vl vl;
	uint32_t *comp;		/* fabric node -> cabled component */
	bool *counted;		/* SL2VL slots already reported as dropping */
	/* path SLs of CA LID pairs:
	 * pair_sl[ca_index[slid] * nlid + ca_index[dlid]] */
	uint32_t *ca_index;	/* LID -> CA LID index, FAB_NONE for others */
	uint32_t *lid_of;	/* CA LID index -> LID */
	uint32_t nlid;
	uint8_t *pair_sl;
	uint32_t (*pick)[2];	/* --sample: the pairs, as CA LID indices */
	uint64_t npick;
	struct sa_walk w;
	struct progress pg;
	struct pr_live rep;
};

static const char *node_name(const struct live *l, uint32_t n)
{
	return l->f->nodes[n].desc;
}

/* Record the first live problem for the report; later ones only count. */
__attribute__((format(printf, 2, 3)))
static void problem(struct live *l, const char *fmt, ...)
{
	va_list ap;

	if (*l->rep.first)
		return;
	va_start(ap, fmt);
	vsnprintf(l->rep.first, sizeof(l->rep.first), fmt, ap);
	va_end(ap);
}

static uint32_t comp_root(uint32_t *c, uint32_t n)
{
	while (c[n] != n)
		n = c[n] = c[c[n]];
	return n;
}

/* Cabled components, so a pair the cabling does not join is not asked. */
static int build_comps(struct live *l)
{
	const struct fabric *f = l->f;
	uint32_t n, a, b;
	size_t i;

	l->comp = malloc((f->nnodes ? f->nnodes : 1) * sizeof(*l->comp));
	if (!l->comp)
		return -ENOMEM;
	for (n = 0; n < f->nnodes; n++)
		l->comp[n] = n;
	for (n = 0; n < f->nnodes; n++)
		for (i = 1; i <= f->nodes[n].nports; i++) {
			uint32_t peer = fab_port(f, n, i)->peer;

			if (peer == FAB_NONE)
				continue;
			a = comp_root(l->comp, n);
			b = comp_root(l->comp, peer);
			if (a != b)
				l->comp[a] = b;
		}
	for (n = 0; n < f->nnodes; n++)
		l->comp[n] = comp_root(l->comp, n);
	return 0;
}

/* Linked ports not Active, in node and port order, before anything else. */
static void check_active(struct live *l)
{
	const struct fabric *f = l->f;
	unsigned int p;
	uint32_t n;

	for (n = 0; n < f->nnodes; n++)
		for (p = 1; p <= f->nodes[n].nports; p++) {
			if (fab_port(f, n, p)->peer == FAB_NONE ||
			    lf_port_active(l->v, n, p))
				continue;
			l->rep.inactive++;
			problem(l, "port %u of 0x%016" PRIx64 " ('%s') is linked but not Active",
				p, f->nodes[n].guid, node_name(l, n));
		}
}

static int read_switches(struct live *l, char *err, size_t len)
{
	const struct lf_stats *st = lf_stats(l->v);
	double t0 = mono_s();
	int ret;

	ret = lf_read_lfts(l->v, err, len);
	if (!ret)
		ret = lf_read_sl2vl(l->v, err, len);
	l->rep.smp_seconds = mono_s() - t0;
	l->rep.smps = st->smps;
	l->rep.smps_resent = st->smps_resent;
	l->rep.sl2vl_tables = st->sl2vl_tables;
	l->rep.no_sl_map = st->no_sl_map;
	l->rep.short_lft = st->short_lft;
	return ret;
}

/* Index every LID of every linked CA port. */
static int index_ca_lids(struct live *l)
{
	const struct fabric *f = l->f;
	unsigned int lid;
	uint32_t k = 0;

	l->ca_index = malloc((l->t->top + 1) * sizeof(*l->ca_index));
	l->lid_of = malloc((l->t->top + 1) * sizeof(*l->lid_of));
	if (!l->ca_index || !l->lid_of)
		return -ENOMEM;
	for (lid = 0; lid <= l->t->top; lid++) {
		uint32_t n = l->t->lid_node[lid];

		l->ca_index[lid] = FAB_NONE;
		if (!lid || n == FAB_NONE || fab_is_sw(f, n) ||
		    fab_port(f, n, l->t->lid_port[lid])->peer == FAB_NONE)
			continue;
		l->ca_index[lid] = k;
		l->lid_of[k++] = lid;
	}
	l->nlid = k;
	l->pair_sl = malloc(k ? (size_t)k * k : 1);
	if (!l->pair_sl)
		return -ENOMEM;
	memset(l->pair_sl, SL_UNASKED, (size_t)k * k);
	return 0;
}

static bool joined(const struct live *l, unsigned int a, unsigned int b)
{
	return l->comp[l->t->lid_node[a]] == l->comp[l->t->lid_node[b]];
}

static bool same_port(const struct live *l, unsigned int a, unsigned int b)
{
	return l->t->lid_node[a] == l->t->lid_node[b] &&
	       l->t->lid_port[a] == l->t->lid_port[b];
}

/* Whether verify asks about CA LID indices i, j: joined, not one port. */
static bool wanted(const struct live *l, uint32_t i, uint32_t j)
{
	unsigned int a = l->lid_of[i], b = l->lid_of[j];

	return !same_port(l, a, b) && joined(l, a, b);
}

/* Whether lines are shown at all by now, and whether one is due. */
static bool pg_on(const struct progress *p, double t)
{
	if (p->mode == PR_PROGRESS_OFF)
		return false;
	return p->mode == PR_PROGRESS_ON || p->tty || t - p->start >= LONG_RUN;
}

static bool pg_due(const struct progress *p, double t)
{
	double every = p->tty ? TTY_EVERY : LOG_EVERY;

	return pg_on(p, t) && (!p->last || t - p->last >= every);
}

/* A phase begins: one line when progress lines are on. */
static void pg_phase(struct progress *p, const char *what)
{
	double t = mono_s();

	p->phase_start = t;
	if (!pg_on(p, t))
		return;
	fprintf(stderr, "verify: %s (%.0f s)\n", what, t - p->start);
	p->last = t;
}

/*
 * "verify: NAME: DONE of TOTAL UNIT" when due; with last, the phase's
 * final line whenever lines are on.
 */
static void pg_count(struct progress *p, const char *name, const char *unit,
		     uint64_t done, uint64_t total, bool last)
{
	double t = mono_s(), left;

	if (!total || !(last ? pg_on(p, t) : pg_due(p, t)))
		return;
	left = done ? (t - p->phase_start) * (total - done) / done : 0;
	fprintf(stderr, "verify: %s: %" PRIu64 " of %" PRIu64 " %s (%.0f%%), %.0f s, about %.0f s left\n",
		name, done, total, unit, 100.0 * done / total, t - p->start,
		left);
	p->last = t;
}

/* lf_read_lfts() and lf_read_sl2vl() as they go, each timed from its first. */
static void pg_read(void *ctx, const char *what, size_t done, size_t total)
{
	struct progress *p = ctx;

	if (done == 1)
		p->phase_start = mono_s();
	pg_count(p, what, "read", done, total, done == total);
}

static uint8_t *sl_at(struct live *l, uint32_t i, uint32_t j)
{
	return &l->pair_sl[(size_t)i * l->nlid + j];
}

/* A pair asked about that the SA has no path for. */
static void no_path(struct live *l, uint32_t i, uint32_t j)
{
	*sl_at(l, i, j) = SL_NOPATH;
	l->rep.no_path++;
	l->rep.sa_pairs++;
	problem(l, "the SA has no PathRecord from LID %u to LID %u",
		l->lid_of[i], l->lid_of[j]);
}

/* One record: its SL for a pair verify asks about, the rest ignored. */
static int sa_rec(void *ctx, const struct lf_sa_query *q, unsigned int slid,
		  unsigned int dlid, const struct lf_path *p)
{
	struct live *l = ctx;
	unsigned int sl = p->sl & (NSL - 1);
	uint32_t i, j;
	uint8_t *v;

	(void)q;
	if (slid > l->t->top || dlid > l->t->top)
		return 0;
	i = l->ca_index[slid];
	j = l->ca_index[dlid];
	if (i == FAB_NONE || j == FAB_NONE || !wanted(l, i, j))
		return 0;
	v = sl_at(l, i, j);
	if (*v < NSL)
		return 0;	/* a second path: the first is the one used */
	*v = sl;
	l->rep.sl_mask |= 1u << sl;
	l->rep.sa_pairs++;
	return 0;
}

static int sa_done(void *ctx, const struct lf_sa_query *q, int status)
{
	struct live *l = ctx;

	if (status && q->dlid)
		no_path(l, l->ca_index[q->slid], l->ca_index[q->dlid]);
	l->w.done++;
	if (!l->w.probe)
		pg_count(&l->pg, "path SLs", l->w.what, l->w.done, l->w.total,
			 false);
	return 0;
}

/* A GetTable per CA LID. */
static bool next_source(void *ctx, struct lf_sa_query *q)
{
	struct live *l = ctx;

	if (l->w.i >= l->w.stop)
		return false;
	*q = (struct lf_sa_query){ .slid = l->lid_of[l->w.i++] };
	return true;
}

/* A Get per pair verify asks about. */
static bool next_pair(void *ctx, struct lf_sa_query *q)
{
	struct live *l = ctx;

	for (; l->w.i < l->nlid; l->w.i++, l->w.j = 0)
		for (; l->w.j < l->nlid; l->w.j++)
			if (wanted(l, l->w.i, l->w.j)) {
				*q = (struct lf_sa_query){
					.slid = l->lid_of[l->w.i],
					.dlid = l->lid_of[l->w.j++],
				};
				return true;
			}
	return false;
}

static bool next_pick(void *ctx, struct lf_sa_query *q)
{
	struct live *l = ctx;

	if (l->w.pick_next >= l->npick)
		return false;
	*q = (struct lf_sa_query){
		.slid = l->lid_of[l->pick[l->w.pick_next][0]],
		.dlid = l->lid_of[l->pick[l->w.pick_next][1]],
	};
	l->w.pick_next++;
	return true;
}

static uint64_t count_pairs(const struct live *l)
{
	uint64_t n = 0;
	uint32_t i, j;

	for (i = 0; i < l->nlid; i++)
		for (j = 0; j < l->nlid; j++)
			n += wanted(l, i, j);
	return n;
}

/*
 * --sample: n distinct pairs verify asks about, drawn with the --seed;
 * fewer than all, else the caller asks about every pair.
 */
static int pick_pairs(struct live *l, uint64_t n, uint64_t seed)
{
	uint64_t rng = seed;
	uint32_t i, j;
	uint8_t *v;

	l->pick = malloc(n * sizeof(*l->pick));
	if (!l->pick)
		return -ENOMEM;
	while (l->npick < n) {
		i = rng_below(&rng, l->nlid);
		j = rng_below(&rng, l->nlid);
		v = sl_at(l, i, j);
		if (*v != SL_UNASKED || !wanted(l, i, j))
			continue;
		*v = SL_QUEUED;
		l->pick[l->npick][0] = i;
		l->pick[l->npick++][1] = j;
	}
	return 0;
}

/*
 * After a full run per source: every pair was asked, and those the SA
 * left out have no path.
 */
static void tables_missing(struct live *l)
{
	uint32_t i, j;

	for (i = 0; i < l->nlid; i++)
		for (j = 0; j < l->nlid; j++)
			if (*sl_at(l, i, j) == SL_UNASKED && wanted(l, i, j))
				no_path(l, i, j);
}

static int sa_walk(struct live *l, struct lf_sa *sa,
		   bool (*next)(void *, struct lf_sa_query *),
		   const char *what, uint64_t total, char *err, size_t len)
{
	const struct lf_sa_ops ops = { .next = next, .rec = sa_rec,
				       .done = sa_done, .ctx = l };
	int ret;

	l->w.total = total;
	l->w.what = what;
	ret = lf_sa_run(sa, &ops, err, len);
	if (!ret && !l->w.probe)
		pg_count(&l->pg, "path SLs", what, l->w.done, total, true);
	return ret;
}

/* GetTables for sources from on; the ones before were asked already. */
static int sa_tables(struct live *l, struct lf_sa *sa, uint32_t from,
		     char *err, size_t len)
{
	int ret;

	l->rep.sa_table = true;
	l->w = (struct sa_walk){ .i = from, .stop = l->nlid, .done = from };
	ret = sa_walk(l, sa, next_source, "sources", l->nlid, err, len);
	l->rep.sa_queries = l->w.done;
	if (!ret)
		tables_missing(l);
	return ret;
}

static int sa_pairs(struct live *l, struct lf_sa *sa, char *err, size_t len)
{
	int ret;

	l->w = (struct sa_walk){ 0 };
	ret = sa_walk(l, sa, next_pair, "pairs", l->rep.pairs, err, len);
	l->rep.sa_queries = l->w.done;
	return ret;
}

/*
 * auto: the first source's GetTable; 1 when it came whole with paths.
 * An answer cut short (umad2sim without RMPP), refused or empty is
 * forgotten: 0, and every pair goes to Gets instead.
 */
static int sa_probe(struct live *l, struct lf_sa *sa, char *err, size_t len)
{
	int ret;

	l->w = (struct sa_walk){ .stop = 1, .probe = true };
	ret = sa_walk(l, sa, next_source, "sources", 1, err, len);
	if (ret == -EMSGSIZE)
		l->rep.sa_table_cut = true;
	else if (ret)
		return ret;
	if (!ret && l->rep.sa_pairs)
		return 1;
	memset(l->pair_sl, SL_UNASKED, (size_t)l->nlid * l->nlid);
	l->rep.sl_mask = 0;
	l->rep.sa_pairs = 0;
	return 0;
}

static int ask_sa(struct live *l, struct lf_sa *sa, enum pr_sa mode,
		  char *err, size_t len)
{
	int ret;

	if (l->npick) {
		l->w = (struct sa_walk){ 0 };
		ret = sa_walk(l, sa, next_pick, "pairs", l->npick, err, len);
		l->rep.sa_queries = l->w.done;
		return ret;
	}
	if (mode == PR_SA_PAIR)
		return sa_pairs(l, sa, err, len);
	if (mode == PR_SA_TABLE)
		return sa_tables(l, sa, 0, err, len);
	ret = sa_probe(l, sa, err, len);
	if (ret > 0)
		return sa_tables(l, sa, 1, err, len);
	return ret ? ret : sa_pairs(l, sa, err, len);
}

/* The SA's SL for every pair of CA LIDs the cabling joins, or a sample. */
static int query_sa(struct live *l, const struct pr_opts *o, char *err,
		    size_t len)
{
	struct lf_sa *sa = NULL;
	double t0;
	int ret;

	if (lf_sm_lid(l->v, &l->rep.sm_lid)) {
		snprintf(err, len, "no SM LID on the local port: is an SM running?");
		return -EIO;
	}
	l->rep.pairs = count_pairs(l);
	if (o->sample && o->sample < l->rep.pairs &&
	    pick_pairs(l, o->sample, o->vf.seed)) {
		snprintf(err, len, "out of memory");
		return -ENOMEM;
	}
	ret = lf_sa_open(&sa, l->v, SA_WINDOW, err, len);
	if (ret)
		return ret;
	pg_phase(&l->pg, "asking the SA for path SLs");
	t0 = mono_s();
	ret = ask_sa(l, sa, o->sa, err, len);
	l->rep.sa_seconds = mono_s() - t0;
	lf_sa_close(sa);
	return ret;
}

static struct live *live_of(const struct rt_tables *t)
{
	return t->vl->ctx;
}

static uint8_t cb_path_sl(const struct rt_tables *t, unsigned int slid,
			  unsigned int dlid)
{
	struct live *l = live_of(t);
	const uint32_t *ix = l->ca_index;
	uint8_t v = SL_UNASKED;

	if (slid <= t->top && dlid <= t->top && ix[slid] != FAB_NONE &&
	    ix[dlid] != FAB_NONE)
		v = l->pair_sl[(size_t)ix[slid] * l->nlid + ix[dlid]];
	if (v == SL_NOPATH || (l->npick && v == SL_UNASKED))
		return 0;	/* counted as no_path already; not sampled */
	if (v == SL_UNASKED) {
		l->rep.missing++;
		problem(l, "no path SL known for LID %u to LID %u", slid, dlid);
		return 0;
	}
	return v;
}

static void not_read(struct live *l, uint32_t n, unsigned int in,
		     unsigned int out)
{
	l->rep.missing++;
	if (fab_is_sw(l->f, n))
		problem(l, "SL2VL in %u out %u of switch 0x%016" PRIx64 " ('%s') was not read",
			in, out, l->f->nodes[n].guid, node_name(l, n));
	else
		problem(l, "SL2VL of CA 0x%016" PRIx64 " ('%s') port %u was not read",
			l->f->nodes[n].guid, node_name(l, n), out);
}

/*
 * Node n's VL for SL sl leaving at port out (for a switch, having come in
 * at port in; a CA sends through its own table), -1 when not read; *slot
 * gets the entry's index for check_drop().
 */
static int vl_entry(struct live *l, uint32_t n, unsigned int in,
		    unsigned int out, unsigned int sl, size_t *slot)
{
	int vl = lf_sl2vl(l->v, n, in, out, sl, slot);

	if (vl >= 0)
		return vl;
	not_read(l, n, in, out);
	return -1;
}

static uint8_t cb_sl2vl(const struct rt_tables *t, uint32_t sw,
			unsigned int in, unsigned int out, unsigned int sl)
{
	struct live *l = live_of(t);
	size_t slot;
	int vl;

	if (sw >= t->nsw) {
		l->rep.missing++;
		problem(l, "SL2VL asked of an unknown switch %" PRIu32, sw);
		return 0;
	}
	vl = vl_entry(l, t->sw_node[sw], in, out, sl, &slot);
	return vl >= 0 ? vl : 0;
}

/* Count entry slot once if it puts data on VL 15 or a VL port out lacks. */
static void check_drop(struct live *l, uint32_t n, unsigned int in,
		       unsigned int out, unsigned int sl, unsigned int vl,
		       size_t slot)
{
	if ((vl != VL_DROP && vl < lf_oper_vls(l->v, n, out)) ||
	    l->counted[slot])
		return;
	l->counted[slot] = true;
	l->rep.vl_drops++;
	if (fab_is_sw(l->f, n))
		problem(l, "switch 0x%016" PRIx64 " ('%s') sends SL %u from port %u out of port %u on VL %u, which that port does not carry",
			l->f->nodes[n].guid, node_name(l, n), sl, in, out, vl);
	else
		problem(l, "CA 0x%016" PRIx64 " ('%s') port %u sends SL %u on VL %u, which that port does not carry",
			l->f->nodes[n].guid, node_name(l, n), out, sl, vl);
}

static void check_hop(struct live *l, uint32_t n, unsigned int in,
		      unsigned int out, unsigned int sl)
{
	size_t slot;
	int vl = vl_entry(l, n, in, out, sl, &slot);

	if (vl >= 0)
		check_drop(l, n, in, out, sl, vl, slot);
}

/*
 * Follow slid -> dlid through the LFTs with the SL the SA gave and check
 * the VL of every hop, the source CA's included.  Here, not in the
 * verifier's callbacks, because only here is every SL a real one.
 * Broken paths are left to the verifier.
 */
static void check_path(struct live *l, unsigned int slid, unsigned int dlid,
		       unsigned int sl)
{
	const struct fabric *f = l->f;
	uint32_t n = l->t->lid_node[slid], hops;
	unsigned int in = 0, out = l->t->lid_port[slid];
	const struct fab_port *fp;

	for (hops = 0; hops <= l->t->nsw + 1; hops++) {
		check_hop(l, n, in, out, sl);
		fp = fab_port(f, n, out);
		if (fp->peer == FAB_NONE || !fab_is_sw(f, fp->peer))
			return;
		n = fp->peer;
		in = fp->peer_port;
		out = rt_lft(l->t, l->t->node_sw[n])[dlid];
		if (!out || out > f->nodes[n].nports)
			return;
	}
}

static void check_paths(struct live *l)
{
	uint32_t i, j;
	uint8_t v;

	for (i = 0; i < l->nlid; i++)
		for (j = 0; j < l->nlid; j++) {
			v = l->pair_sl[(size_t)i * l->nlid + j];
			if (v < NSL)
				check_path(l, l->lid_of[i], l->lid_of[j], v);
		}
}

/* --jobs: their own loads on the tables read from the switches. */
static int job_loads(struct live *l, const struct pr_opts *o,
		     struct rt_jobs *js, struct vf_jobload *jl,
		     struct pr_result *res, char *err, size_t len)
{
	int ret;

	if (!o->jobs)
		return 0;
	ret = pr_jobs_load(o->jobs, l->t->fab, js, err, len);
	if (ret)
		return ret;
	ret = vf_jobload(l->t, js, jl);
	if (ret) {
		rt_jobs_release(js);
		snprintf(err, len, "job loads: %s", strerror(-ret));
		return ret;
	}
	res->jobs = js;
	res->jobload = jl;
	return 0;
}

static int check(struct live *l, const struct pr_opts *o, char *err,
		 size_t len)
{
	struct pr_result res = { .source = l->rep.source, .sl2vl = "live",
				 .live = &l->rep };
	struct vf_jobload jl;
	struct rt_jobs js;
	struct vf_opts vo = o->vf;
	struct vf_report vr;
	int ret, code = PR_ERR;

	/* Credit loops need every pair's SL: a sample has not got them. */
	if (l->npick)
		vo.skip_cdg = true;
	l->vl = (struct rt_vl){ .nvl = 1, .path_sl = cb_path_sl,
				.sl2vl = cb_sl2vl, .ctx = l };
	l->t->vl = &l->vl;
	pg_phase(&l->pg, "checking the routing");
	ret = vf_check(l->t, &vo, &vr);
	if (ret) {
		snprintf(err, len, "verifier: %s", strerror(-ret));
		return PR_ERR;
	}
	check_paths(l);
	if (job_loads(l, o, &js, &jl, &res, err, len))
		return PR_ERR;
	res.tables = l->t;
	res.vo = &vo;
	res.vr = &vr;
	ret = pr_report(stdout, &res, o->json);
	if (pr_report_written(ret, err, len))
		goto out;
	code = vf_ok(&vr) && pr_live_ok(&l->rep) ? PR_OK : PR_BAD;
out:
	if (res.jobs) {
		vf_jobload_release(&jl);
		rt_jobs_release(&js);
	}
	return code;
}

static void live_release(struct live *l)
{
	if (l->t)
		l->t->vl = NULL;
	free(l->counted);
	free(l->pick);
	free(l->pair_sl);
	free(l->lid_of);
	free(l->ca_index);
	free(l->comp);
	lf_close(l->v);
}

int pr_verify(const struct pr_opts *o, char *err, size_t len)
{
	struct live l;
	int code = PR_ERR;

	memset(&l, 0, sizeof(l));
	l.rep.ca = o->ca;
	l.pg = (struct progress){ .mode = o->progress, .start = mono_s(),
				  .tty = isatty(STDERR_FILENO) };
	if (lf_open(&l.v, o->ca, o->ca_port, err, len))
		return PR_ERR;
	pg_phase(&l.pg, "discovering the fabric");
	if (lf_discover(l.v, err, len))
		goto out;
	l.f = lf_fabric(l.v);
	l.t = lf_tables(l.v);
	l.rep.port = lf_local_port(l.v);
	snprintf(l.rep.source, sizeof(l.rep.source), "%s", lf_source(l.v));
	check_active(&l);
	pg_phase(&l.pg, "reading LFTs and SL2VL tables");
	lf_set_progress(l.v, pg_read, &l.pg);
	lf_set_smp_window(l.v, o->smp_window);
	l.rep.smp_window = o->smp_window;
	if (read_switches(&l, err, len))
		goto out;
	l.counted = calloc(lf_sl2vl_slots(l.v) + 1, sizeof(*l.counted));
	if (!l.counted || build_comps(&l) || index_ca_lids(&l)) {
		snprintf(err, len, "out of memory");
		goto out;
	}
	if (query_sa(&l, o, err, len))
		goto out;
	code = check(&l, o, err, len);
out:
	live_release(&l);
	return code;
}
