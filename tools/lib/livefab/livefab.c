// SPDX-License-Identifier: MIT
/*
 * The live fabric through one local port: ibnetdisc discovery turned into
 * a struct fabric, LFT and SL2VL reads by directed route, SA PathRecords.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <infiniband/ibnetdisc.h>
#include <infiniband/mad.h>
#include <infiniband/umad.h>

#include "livefab.h"
#include "lfwin.h"
#include "topology/monotime.h"

#define NSL 16

/*
 * SMPs: the first wait for an answer (OpenSM's default transaction
 * timeout), doubling each time, and how often a Get is sent in all.
 */
#define SMP_WAIT_MS 200
#define SMP_TRIES 4

/* One stored SL2VL entry: the VL, or UNREAD for a table nobody read. */
#define VLE_VL 0x0f
#define VLE_UNREAD 0x20

/* PathRecord component mask bits (IBA 1.3 table 209, PathRecord). */
#define PR_COMP_DLID (1ull << 4)
#define PR_COMP_SLID (1ull << 5)

/*
 * PathRecord bytes libibmad 44 has no field for (IBA 1.3 table 209):
 * selector in the top two bits, the MTU or rate code below.
 */
#define PR_MTU_BYTE 54
#define PR_RATE_BYTE 55
#define PR_CODE_MASK 0x3f

/* PortInfo:CapabilityMask IsSLMappingSupported. */
#define CAP_SL_MAP (1u << 4)

#define PORT_ACTIVE 4		/* PortInfo:PortState */

/* PerfMgt ClassPortInfo:CapabilityMask (IBA 1.3 table 231). */
#define PM_CAP_EXT_WIDTH (1u << 9)	/* PortCountersExtended */
#define PM_CAP_EXT_NOIETF (1u << 10)	/* the same, no IETF counters */
#define PM_CAP_XMIT_WAIT (1u << 12)	/* PortXmitWait counts */

/* A node's GUID and fabric index, sorted by GUID to find link peers. */
struct gidx {
	uint64_t guid;
	uint32_t node;		/* its fabric index */
};

/*
 * Everything read through one port, owned and freed by lf_close();
 * node[] points into ibnd.
 */
struct lf {
	char ca[UMAD_CA_NAME_LEN];	/* "" for the first CA */
	unsigned int port;		/* as asked, 0 for the first active */
	struct ibmad_port *mad;
	ibnd_fabric_t *ibnd;
	struct fabric *f;
	struct rt_tables t;
	ibnd_node_t **node;	/* fabric node -> its ibnd node */
	struct gidx *byguid;
	size_t nnodes;
	/*
	 * SL2VL entries: node n's at vle + vle_off[n]; a switch's are
	 * ((in * (nports + 1)) + out) * NSL + sl, a CA's port * NSL + sl.
	 */
	uint8_t *vle;
	size_t *vle_off;
	size_t nvle;
	ib_portid_t sa_addr;	/* the SA's address, lid 0 until resolved */
	unsigned int local_port;
	char source[128];
	struct lf_stats stats;
	void (*progress)(void *ctx, const char *what, size_t done,
			 size_t total);
	void *pctx;
	unsigned int smp_window;	/* SMPs in flight */
};

static const char *node_name(const struct lf *v, uint32_t n)
{
	return v->f->nodes[n].desc;
}

int lf_open(struct lf **out, const char *ca, unsigned int port, char *err,
	    size_t len)
{
	struct lf *v;

	if (ca && strlen(ca) >= sizeof(v->ca)) {
		snprintf(err, len, "CA name '%s' is too long", ca);
		return -ENAMETOOLONG;
	}
	v = calloc(1, sizeof(*v));
	if (!v) {
		snprintf(err, len, "out of memory");
		return -ENOMEM;
	}
	if (ca)
		strcpy(v->ca, ca);
	v->port = port;
	v->smp_window = LF_SMP_WINDOW;
	*out = v;
	return 0;
}

/* Drop what one discovery built; the MAD port stays. */
static void forget(struct lf *v)
{
	v->t.vl = NULL;
	rt_tables_release(&v->t);
	memset(&v->t, 0, sizeof(v->t));
	free(v->vle);
	free(v->vle_off);
	free(v->byguid);
	free(v->node);
	fab_free(v->f);
	if (v->ibnd)
		ibnd_destroy_fabric(v->ibnd);
	v->vle = NULL;
	v->vle_off = NULL;
	v->nvle = 0;
	v->byguid = NULL;
	v->node = NULL;
	v->nnodes = 0;
	v->f = NULL;
	v->ibnd = NULL;
	memset(&v->sa_addr, 0, sizeof(v->sa_addr));
}

/* The management classes of our MAD port. */
static const int lf_classes[] = {
	IB_SMI_CLASS, IB_SMI_DIRECT_CLASS, IB_SA_CLASS, IB_PERFORMANCE_CLASS
};

/*
 * Close the MAD port, its agents unregistered first: the kernel drops
 * them with the file, but umad2sim frees one agent per closed file, so
 * under ibsim each refresh would leak three of its 32 agent slots and
 * discovery fail after about five (ibnetdisc's own ports still leak
 * two a discovery there: docs/ibpoold.md).
 */
static void close_mad(struct lf *v)
{
	size_t i;
	int agent;

	if (!v->mad)
		return;
	for (i = 0; i < sizeof(lf_classes) / sizeof(lf_classes[0]); i++) {
		agent = mad_rpc_class_agent(v->mad, lf_classes[i]);
		if (agent >= 0)
			umad_unregister(mad_rpc_portid(v->mad), agent);
	}
	mad_rpc_close_port(v->mad);
	v->mad = NULL;
}

void lf_close(struct lf *v)
{
	if (!v)
		return;
	forget(v);
	close_mad(v);
	free(v);
}

static const char *ca_or_first(const struct lf *v)
{
	return *v->ca ? v->ca : "the first CA";
}

/*
 * Discovery first: ibnetdisc opens and closes a port of its own, and
 * umad2sim delivers each management class to one open port per process.
 */
static int open_port(struct lf *v, char *err, size_t len)
{
	int classes[sizeof(lf_classes) / sizeof(lf_classes[0])];
	char *ca = *v->ca ? v->ca : NULL;
	ibnd_config_t cfg;

	memcpy(classes, lf_classes, sizeof(classes));
	close_mad(v);
	memset(&cfg, 0, sizeof(cfg));
	v->ibnd = ibnd_discover_fabric(ca, v->port, NULL, &cfg);
	if (!v->ibnd) {
		snprintf(err, len, "fabric discovery through %s port %u failed",
			 ca_or_first(v), v->port);
		return -EIO;
	}
	v->mad = mad_rpc_open_port(ca, v->port, classes,
				   sizeof(classes) / sizeof(classes[0]));
	if (!v->mad) {
		snprintf(err, len, "cannot open %s port %u: %s",
			 ca_or_first(v), v->port, strerror(errno));
		return -ENODEV;
	}
	v->local_port = v->ibnd->from_portnum;
	snprintf(v->source, sizeof(v->source), "live fabric via '%s' port %u",
		 v->ibnd->from_node ? v->ibnd->from_node->nodedesc : "?",
		 v->local_port);
	return 0;
}

static int cmp_gidx(const void *a, const void *b)
{
	const struct gidx *x = a, *y = b;

	return x->guid < y->guid ? -1 : x->guid > y->guid;
}

static uint32_t find_node(const struct lf *v, uint64_t guid)
{
	struct gidx key = { .guid = guid }, *hit;

	hit = bsearch(&key, v->byguid, v->nnodes, sizeof(key), cmp_gidx);
	return hit ? hit->node : FAB_NONE;
}

/* A PortInfo field ibnetdisc cached; libibmad's getters only read. */
static unsigned int pi_field(const ibnd_port_t *p, enum MAD_FIELDS f)
{
	return mad_get_field((void *)p->info, 0, f);
}

/* Active width in lanes and per-lane rate in 100 Mb/s, 0 when unknown. */
static void port_rate(const ibnd_port_t *p, unsigned int *w,
		      unsigned int *sp)
{
	static const struct {
		unsigned int code, val;
	} widths[] = { { 1, 1 }, { 2, 4 }, { 4, 8 }, { 8, 12 }, { 16, 2 } },
	  speeds[] = { { 1, 25 }, { 2, 50 }, { 4, 100 } },
	  exts[] = { { 1, 140 }, { 2, 250 }, { 4, 500 }, { 8, 1000 } };
	unsigned int c, i;

	*w = *sp = 0;
	c = pi_field(p, IB_PORT_LINK_WIDTH_ACTIVE_F);
	for (i = 0; i < sizeof(widths) / sizeof(widths[0]); i++)
		if (widths[i].code == c)
			*w = widths[i].val;
	c = pi_field(p, IB_PORT_LINK_SPEED_ACTIVE_F);
	for (i = 0; i < sizeof(speeds) / sizeof(speeds[0]); i++)
		if (speeds[i].code == c)
			*sp = speeds[i].val;
	c = pi_field(p, IB_PORT_LINK_SPEED_EXT_ACTIVE_F);
	for (i = 0; i < sizeof(exts) / sizeof(exts[0]); i++)
		if (exts[i].code == c)
			*sp = exts[i].val;
}

static int add_node(struct lf *v, ibnd_node_t *nd, char *err, size_t len)
{
	struct fabric *f = v->f;
	enum fab_type type;
	unsigned int p;
	int n;

	if (nd->type != IB_NODE_SWITCH && nd->type != IB_NODE_CA) {
		snprintf(err, len, "node 0x%016" PRIx64 " ('%s') is a router: not supported",
			 nd->guid, nd->nodedesc);
		return -ENOTSUP;
	}
	type = nd->type == IB_NODE_SWITCH ? FAB_SW : FAB_CA;
	if (nd->numports < 1 || nd->numports > FAB_MAX_PORTS) {
		snprintf(err, len, "node 0x%016" PRIx64 " has %d ports",
			 nd->guid, nd->numports);
		return -EINVAL;
	}
	n = fab_add_node(f, type, nd->numports, nd->guid, nd->nodedesc);
	if (n < 0) {
		snprintf(err, len, "cannot add node: %s", strerror(-n));
		return n;
	}
	f->nodes[n].sysguid = mad_get_field64(nd->info, 0,
					      IB_NODE_SYSTEM_GUID_F);
	for (p = type == FAB_SW ? 0 : 1; p <= (unsigned int)nd->numports;
	     p++) {
		const ibnd_port_t *ip = nd->ports[p];
		struct fab_port *fp = fab_port(f, n, p);

		if (!ip || (type == FAB_SW && p))
			continue;
		fp->guid = ip->guid;
		fp->lid = ip->base_lid;
		fp->lmc = type == FAB_SW ? 0 : ip->lmc;
	}
	v->node[n] = nd;
	v->byguid[n] = (struct gidx){ nd->guid, n };
	return 0;
}

static int add_links(struct lf *v, uint32_t n, char *err, size_t len)
{
	const ibnd_node_t *nd = v->node[n];
	unsigned int p, w, sp;
	uint32_t m;
	int ret;

	for (p = 1; p <= (unsigned int)nd->numports; p++) {
		const ibnd_port_t *ip = nd->ports[p], *rp;

		if (!ip || !(rp = ip->remoteport))
			continue;
		m = find_node(v, rp->node->guid);
		if (m == FAB_NONE || rp->portnum < 1 ||
		    rp->portnum > v->f->nodes[m].nports) {
			snprintf(err, len, "port 0x%016" PRIx64 "[%u] links to an unknown port",
				 nd->guid, p);
			return -EINVAL;
		}
		port_rate(ip, &w, &sp);
		ret = fab_link(v->f, n, p, m, rp->portnum, w, sp);
		if (ret) {
			snprintf(err, len, "cannot link 0x%016" PRIx64 "[%u]: %s",
				 nd->guid, p, strerror(-ret));
			return ret;
		}
	}
	return 0;
}

/* The fabric graph of what ibnetdisc found, LIDs as the SM set them. */
static int build_fabric(struct lf *v, char *err, size_t len)
{
	ibnd_node_t *nd;
	size_t i;
	int ret;

	for (nd = v->ibnd->nodes; nd; nd = nd->next)
		v->nnodes++;
	v->f = fab_new();
	v->node = calloc(v->nnodes ? v->nnodes : 1, sizeof(*v->node));
	v->byguid = calloc(v->nnodes ? v->nnodes : 1, sizeof(*v->byguid));
	if (!v->f || !v->node || !v->byguid) {
		snprintf(err, len, "out of memory");
		return -ENOMEM;
	}
	for (nd = v->ibnd->nodes; nd; nd = nd->next)
		if ((ret = add_node(v, nd, err, len)))
			return ret;
	qsort(v->byguid, v->nnodes, sizeof(*v->byguid), cmp_gidx);
	for (i = 1; i < v->nnodes; i++)
		if (v->byguid[i].guid == v->byguid[i - 1].guid) {
			snprintf(err, len, "node GUID 0x%016" PRIx64 " seen twice",
				 v->byguid[i].guid);
			return -EINVAL;
		}
	for (i = 0; i < v->nnodes; i++)
		if ((ret = add_links(v, i, err, len)))
			return ret;
	ret = rt_tables_init(&v->t, v->f);
	if (ret)
		snprintf(err, len, "out of memory");
	return ret;
}

/* Room for every SL2VL entry of the fabric, all unread. */
static int alloc_sl2vl(struct lf *v)
{
	const struct fabric *f = v->f;
	size_t n, total = 0;

	v->vle_off = malloc((f->nnodes ? f->nnodes : 1) * sizeof(*v->vle_off));
	if (!v->vle_off)
		return -ENOMEM;
	for (n = 0; n < f->nnodes; n++) {
		size_t np1 = f->nodes[n].nports + 1;

		v->vle_off[n] = total;
		total += (fab_is_sw(f, n) ? np1 * np1 : np1) * NSL;
	}
	v->vle = malloc(total ? total : 1);
	if (!v->vle)
		return -ENOMEM;
	memset(v->vle, VLE_UNREAD, total);
	v->nvle = total;
	return 0;
}

int lf_discover(struct lf *v, char *err, size_t len)
{
	double t0 = mono_s();
	int ret;

	forget(v);
	ret = open_port(v, err, len);
	if (!ret)
		ret = build_fabric(v, err, len);
	if (!ret && (ret = alloc_sl2vl(v)))
		snprintf(err, len, "out of memory");
	v->stats.discover_seconds = mono_s() - t0;
	return ret;
}

const struct fabric *lf_fabric(const struct lf *v)
{
	return v->f;
}

struct rt_tables *lf_tables(struct lf *v)
{
	return &v->t;
}

const char *lf_ca_name(const struct lf *v)
{
	return *v->ca ? v->ca : NULL;
}

const char *lf_source(const struct lf *v)
{
	return v->source;
}

unsigned int lf_local_port(const struct lf *v)
{
	return v->local_port;
}

const struct lf_stats *lf_stats(const struct lf *v)
{
	return &v->stats;
}

static const ibnd_port_t *nd_port(const struct lf *v, uint32_t n,
				  unsigned int p)
{
	if (!v->node || n >= v->nnodes || p > (unsigned int)v->node[n]->numports)
		return NULL;
	return v->node[n]->ports[p];
}

bool lf_port_active(const struct lf *v, uint32_t n, unsigned int p)
{
	const ibnd_port_t *ip = nd_port(v, n, p);

	return ip && pi_field(ip, IB_PORT_STATE_F) == PORT_ACTIVE;
}

unsigned int lf_oper_vls(const struct lf *v, uint32_t n, unsigned int p)
{
	const ibnd_port_t *ip = nd_port(v, n, p);
	unsigned int ov;

	if (!ip)
		return 1;
	ov = pi_field(ip, IB_PORT_OPER_VLS_F);
	if (ov >= 5)
		return 15;
	return ov ? 1u << (ov - 1) : 1;
}

/*
 * A directed route that enters CA n at port p: through the switch it is
 * cabled to, so each port of a multi-port CA answers for itself.
 */
static int ca_route(const struct lf *v, uint32_t n, unsigned int p,
		    ib_portid_t *id)
{
	const struct fab_port *fp = fab_port(v->f, n, p);

	if (!fab_is_sw(v->f, fp->peer)) {
		*id = v->node[n]->path_portid;
		return 0;
	}
	*id = v->node[fp->peer]->path_portid;
	if (id->lid || id->drpath.cnt + 1 >= IB_SUBNET_PATH_HOPS_MAX)
		return -E2BIG;
	id->drpath.p[++id->drpath.cnt] = fp->peer_port;
	return 0;
}

/*
 * One read of many SMPs (LFT blocks, SL2VL tables) through the window:
 * requests by tag, a cursor over them, answers stored as they come.
 */
struct smp_read {
	struct lf *v;
	const char *what;	/* for progress lines */
	uint64_t total, done;
	/* the cursor: LFT block b of switch s; SL2VL of node n, in, out */
	uint32_t b, s, n;
	unsigned int in, out;
	uint32_t nblocks;	/* LFT: the most blocks of a switch */
};

/* An LFT tag: block, switch. */
#define LFT_TAG(b, s) ((uint64_t)(b) << 32 | (s))

/* An SL2VL tag: node, a CA's port or a switch's in and out. */
#define SL2VL_TAG(n, in, out) ((uint64_t)(n) << 32 | (in) << 8 | (out))

/* The highest LID switch s's LFT is read to. */
static unsigned int lft_top(const struct lf *v, uint32_t s)
{
	ibnd_node_t *nd = v->node[v->t.sw_node[s]];
	unsigned int fdbtop = mad_get_field(nd->switchinfo, 0,
					    IB_SW_LINEAR_FDB_TOP_F);

	return fdbtop < v->t.top ? fdbtop : v->t.top;
}

/* A directed-route SMP Get of attr, mod to id into umad. */
static int smp_build(struct lf *v, const ib_portid_t *to, unsigned int attr,
		     unsigned int mod, uint64_t trid, void *umad)
{
	ib_portid_t id = *to;
	ib_rpc_t rpc;

	memset(&rpc, 0, sizeof(rpc));
	rpc.mgtclass = IB_SMI_DIRECT_CLASS;
	rpc.method = IB_MAD_METHOD_GET;
	rpc.attr.id = attr;
	rpc.attr.mod = mod;
	rpc.datasz = IB_SMP_DATA_SIZE;
	rpc.dataoffs = IB_SMP_DATA_OFFS;
	rpc.mkey = smp_mkey_get(v->mad);
	rpc.trid = trid;
	id.sl = 0;
	id.qp = 0;
	v->stats.smps++;
	return mad_build_pkt(umad, &rpc, &id, NULL, NULL) < 0 ? -EINVAL : 0;
}

/* An answer's status, the direction bit left out. */
static unsigned int smp_status(uint8_t *mad)
{
	return mad_get_field(mad, 0, IB_DRSMP_STATUS_F);
}

static void progress(struct lf *v, const char *what, size_t done,
		     size_t total)
{
	if (v->progress)
		v->progress(v->pctx, what, done, total);
}

static void smp_done(struct smp_read *r)
{
	r->done++;
	progress(r->v, r->what, r->done, r->total);
}

static bool lft_next(void *ctx, uint64_t *tag)
{
	struct smp_read *r = ctx;

	/* block by block over the switches: the window spreads over them */
	for (; r->b < r->nblocks; r->b++, r->s = 0)
		for (; r->s < r->v->t.nsw; r->s++)
			if (r->b <= lft_top(r->v, r->s) / 64) {
				*tag = LFT_TAG(r->b, r->s++);
				return true;
			}
	return false;
}

static int lft_build(void *ctx, uint64_t tag, uint64_t trid, void *umad,
		     char *err, size_t len)
{
	struct smp_read *r = ctx;
	uint32_t n = r->v->t.sw_node[(uint32_t)tag];
	int ret = smp_build(r->v, &r->v->node[n]->path_portid,
			    IB_ATTR_LINEARFORWTBL, tag >> 32, trid, umad);

	if (ret)
		snprintf(err, len, "cannot build an LFT Get");
	return ret;
}

static void lft_fail(struct smp_read *r, uint64_t tag, const char *why,
		     char *err, size_t len)
{
	uint32_t n = r->v->t.sw_node[(uint32_t)tag];

	snprintf(err, len, "cannot read LFT block %u of switch 0x%016" PRIx64 " ('%s'): %s",
		 (unsigned int)(tag >> 32), r->v->node[n]->guid,
		 node_name(r->v, n), why);
}

static void lft_lost(void *ctx, uint64_t tag, char *err, size_t len)
{
	lft_fail(ctx, tag, "no answer", err, len);
}

static int lft_answer(void *ctx, uint64_t tag, uint8_t *mad, int mlen,
		      char *err, size_t len)
{
	struct smp_read *r = ctx;
	uint32_t s = (uint32_t)tag;
	unsigned int b = tag >> 32, top = lft_top(r->v, s), i, lid;
	uint8_t *row = rt_lft(&r->v->t, s);
	char why[32];

	if (smp_status(mad) || mlen < IB_SMP_DATA_OFFS + 64) {
		snprintf(why, sizeof(why), "MAD status 0x%x", smp_status(mad));
		lft_fail(r, tag, why, err, len);
		return -EPROTO;
	}
	for (i = 0; i < 64 && (lid = b * 64 + i) <= top; i++)
		row[lid] = mad[IB_SMP_DATA_OFFS + i];
	smp_done(r);
	return 0;
}

/* The window over the MAD port's directed-route SMP agent. */
static int smp_run(struct lf *v, const struct lf_win_ops *ops, char *err,
		   size_t len)
{
	struct lf_win w;
	int ret, agent = mad_rpc_class_agent(v->mad, IB_SMI_DIRECT_CLASS);

	if (agent < 0) {
		snprintf(err, len, "no directed-route SMP agent on the local port");
		return -ENODEV;
	}
	if (lf_win_init(&w, mad_rpc_portid(v->mad), agent, v->smp_window,
			SMP_WAIT_MS, SMP_TRIES)) {
		snprintf(err, len, "out of memory");
		return -ENOMEM;
	}
	ret = lf_win_run(&w, ops, err, len);
	v->stats.smps_resent += w.resent;
	lf_win_release(&w);
	return ret;
}

void lf_set_progress(struct lf *v,
		     void (*fn)(void *ctx, const char *what, size_t done,
				size_t total),
		     void *ctx)
{
	v->progress = fn;
	v->pctx = ctx;
}

void lf_set_smp_window(struct lf *v, unsigned int window)
{
	v->smp_window = window;
}

int lf_read_lfts(struct lf *v, char *err, size_t len)
{
	struct smp_read r = { .v = v, .what = "LFT blocks" };
	const struct lf_win_ops ops = {
		.next = lft_next, .build = lft_build, .answer = lft_answer,
		.lost = lft_lost, .ctx = &r,
	};
	uint32_t s;

	for (s = 0; s < v->t.nsw; s++) {
		if (lft_top(v, s) < v->t.top)
			v->stats.short_lft++;
		r.total += lft_top(v, s) / 64 + 1;
		if (lft_top(v, s) / 64 + 1 > r.nblocks)
			r.nblocks = lft_top(v, s) / 64 + 1;
	}
	return smp_run(v, &ops, err, len);
}

static void store_sl2vl(uint8_t *e, uint64_t map)
{
	unsigned int sl;

	for (sl = 0; sl < NSL; sl++)
		e[sl] = map >> (60 - 4 * sl) & VLE_VL;
}

static bool has_sl_map(const ibnd_port_t *p)
{
	return p && pi_field(p, IB_PORT_CAPMASK_F) & CAP_SL_MAP;
}

/* Whether switch n's table in, out is one to read: both ports linked. */
static bool sw_pair(const struct lf *v, uint32_t n, unsigned int in,
		    unsigned int out)
{
	return fab_port(v->f, n, in)->peer != FAB_NONE &&
	       fab_port(v->f, n, out)->peer != FAB_NONE;
}

/*
 * The next table from the cursor on: a switch's for each pair of linked
 * ports (in, out), a CA's for each linked port (in 0, out the port).
 */
static bool sl2vl_next(void *ctx, uint64_t *tag)
{
	struct smp_read *r = ctx;
	const struct fabric *f = r->v->f;
	unsigned int np;

	for (; r->n < f->nnodes; r->n++, r->in = 0, r->out = 0) {
		np = f->nodes[r->n].nports;
		if (!fab_is_sw(f, r->n)) {
			while (++r->out <= np)
				if (fab_port(f, r->n, r->out)->peer != FAB_NONE) {
					*tag = SL2VL_TAG(r->n, 0, r->out);
					return true;
				}
			continue;
		}
		if (!r->in)
			r->in = 1;
		for (; r->in <= np; r->in++, r->out = 0)
			while (++r->out <= np)
				if (sw_pair(r->v, r->n, r->in, r->out)) {
					*tag = SL2VL_TAG(r->n, r->in, r->out);
					return true;
				}
	}
	return false;
}

static uint8_t *sl2vl_entry(const struct lf *v, uint64_t tag)
{
	uint32_t n = tag >> 32;
	unsigned int in = tag >> 8 & 0xff, out = tag & 0xff;
	size_t np1 = v->f->nodes[n].nports + 1;

	return v->vle + v->vle_off[n] + ((size_t)in * np1 + out) * NSL;
}

static int sl2vl_build(void *ctx, uint64_t tag, uint64_t trid, void *umad,
		       char *err, size_t len)
{
	struct smp_read *r = ctx;
	uint32_t n = tag >> 32;
	ib_portid_t id;
	int ret;

	if (fab_is_sw(r->v->f, n))
		return smp_build(r->v, &r->v->node[n]->path_portid,
				 IB_ATTR_SLVL_TABLE, tag & 0xffff, trid, umad);
	ret = ca_route(r->v, n, tag & 0xff, &id);
	if (!ret)
		ret = smp_build(r->v, &id, IB_ATTR_SLVL_TABLE, 0, trid, umad);
	if (ret)
		snprintf(err, len, "cannot read SL2VL of CA 0x%016" PRIx64 " ('%s') port %u: %s",
			 r->v->node[n]->guid, node_name(r->v, n),
			 (unsigned int)(tag & 0xff),
			 ret == -E2BIG ? "no directed route" :
					 "cannot build the Get");
	return ret;
}

static void sl2vl_fail(struct smp_read *r, uint64_t tag, const char *why,
		       char *err, size_t len)
{
	uint32_t n = tag >> 32;

	if (fab_is_sw(r->v->f, n))
		snprintf(err, len, "cannot read SL2VL in %u out %u of switch 0x%016" PRIx64 " ('%s'): %s",
			 (unsigned int)(tag >> 8 & 0xff),
			 (unsigned int)(tag & 0xff), r->v->node[n]->guid,
			 node_name(r->v, n), why);
	else
		snprintf(err, len, "cannot read SL2VL of CA 0x%016" PRIx64 " ('%s') port %u: %s",
			 r->v->node[n]->guid, node_name(r->v, n),
			 (unsigned int)(tag & 0xff), why);
}

static void sl2vl_lost(void *ctx, uint64_t tag, char *err, size_t len)
{
	sl2vl_fail(ctx, tag, "no answer", err, len);
}

/*
 * One table stored.  A port that refuses the attribute and does not
 * claim SL mapping sends every SL on VL 0, as the IBA says; any other
 * failure is an error.
 */
static int sl2vl_answer(void *ctx, uint64_t tag, uint8_t *mad, int mlen,
			char *err, size_t len)
{
	struct smp_read *r = ctx;
	uint32_t n = tag >> 32;
	ibnd_node_t *nd = r->v->node[n];
	uint8_t *e = sl2vl_entry(r->v, tag);
	unsigned int st = smp_status(mad);
	char why[32];

	if (st && !has_sl_map(nd->ports[fab_is_sw(r->v->f, n) ? 0 :
							      tag & 0xff])) {
		memset(e, 0, NSL);
		r->v->stats.no_sl_map++;
	} else if (st || mlen < IB_SMP_DATA_OFFS + 8) {
		snprintf(why, sizeof(why), "MAD status 0x%x", st);
		sl2vl_fail(r, tag, why, err, len);
		return -EPROTO;
	} else {
		store_sl2vl(e, mad_get_field64(mad + IB_SMP_DATA_OFFS, 0,
					       IB_SLTOVL_MAPPING_TABLE_F));
		r->v->stats.sl2vl_tables++;
	}
	smp_done(r);
	return 0;
}

int lf_read_sl2vl(struct lf *v, char *err, size_t len)
{
	struct smp_read r = { .v = v, .what = "SL2VL tables" };
	const struct lf_win_ops ops = {
		.next = sl2vl_next, .build = sl2vl_build,
		.answer = sl2vl_answer, .lost = sl2vl_lost, .ctx = &r,
	};
	uint64_t tag;

	while (sl2vl_next(&r, &tag))
		r.total++;
	r.n = 0;
	r.in = 0;
	r.out = 0;
	return smp_run(v, &ops, err, len);
}

int lf_sl2vl(const struct lf *v, uint32_t n, unsigned int in,
	     unsigned int out, unsigned int sl, size_t *slot)
{
	unsigned int np;
	size_t i;

	if (!v->f || n >= v->f->nnodes)
		return -EINVAL;
	np = v->f->nodes[n].nports;
	if (in > np || out > np || sl >= NSL)
		return -EINVAL;
	if (fab_is_sw(v->f, n))
		i = v->vle_off[n] + ((size_t)in * (np + 1) + out) * NSL + sl;
	else
		i = v->vle_off[n] + (size_t)out * NSL + sl;
	if (v->vle[i] & VLE_UNREAD)
		return -ENOENT;
	if (slot)
		*slot = i;
	return v->vle[i] & VLE_VL;
}

size_t lf_sl2vl_slots(const struct lf *v)
{
	return v->nvle;
}

int lf_sm_lid(struct lf *v, unsigned int *lid)
{
	if (!v->sa_addr.lid && (!v->mad ||
			   ib_resolve_smlid_via(&v->sa_addr, 0, v->mad) ||
			   !v->sa_addr.lid)) {
		memset(&v->sa_addr, 0, sizeof(v->sa_addr));
		return -EIO;
	}
	*lid = v->sa_addr.lid;
	return 0;
}

/* One pair through libibmad's agent, for a few; lfsa.h asks in bulk. */
int lf_path_record(struct lf *v, unsigned int slid, unsigned int dlid,
		   struct lf_path *p)
{
	uint8_t buf[IB_SA_DATA_SIZE];
	unsigned int lid, s, d;
	ib_rpc_v1_t rpc;

	if (lf_sm_lid(v, &lid))
		return -EIO;
	memset(&rpc, 0, sizeof(rpc));
	rpc.mgtclass = IB_SA_CLASS | IB_MAD_RPC_VERSION1;
	rpc.method = IB_MAD_METHOD_GET;
	rpc.attr.id = IB_SA_ATTR_PATHRECORD;
	rpc.datasz = IB_SA_DATA_SIZE;
	rpc.dataoffs = IB_SA_DATA_OFFS;
	rpc.trid = mad_trid();
	memset(buf, 0, sizeof(buf));
	rpc.mask = lf_path_encode(buf, slid, dlid);
	v->stats.sa_queries++;
	if (!mad_rpc_rmpp(v->mad, (ib_rpc_t *)&rpc, &v->sa_addr, NULL, buf))
		return rpc.error ? -rpc.error : -ENOENT;
	lf_path_decode(buf, &s, &d, p);
	return s == slid && d == dlid ? 0 : -EPROTO;
}

uint64_t lf_path_encode(uint8_t *rec, unsigned int slid, unsigned int dlid)
{
	mad_set_field(rec, 0, IB_SA_PR_SLID_F, slid);
	if (!dlid)
		return PR_COMP_SLID;
	mad_set_field(rec, 0, IB_SA_PR_DLID_F, dlid);
	return PR_COMP_SLID | PR_COMP_DLID;
}

void lf_path_decode(const uint8_t *rec, unsigned int *slid,
		    unsigned int *dlid, struct lf_path *p)
{
	uint8_t *r = (uint8_t *)rec;	/* mad_get_field takes no const */

	*slid = mad_get_field(r, 0, IB_SA_PR_SLID_F);
	*dlid = mad_get_field(r, 0, IB_SA_PR_DLID_F);
	p->sl = mad_get_field(r, 0, IB_SA_PR_SL_F);
	p->mtu = rec[PR_MTU_BYTE] & PR_CODE_MASK;
	p->rate = rec[PR_RATE_BYTE] & PR_CODE_MASK;
}

/* A PerfMgt Get of attr for port (0: the class) of the switch at id. */
static int pma_get(struct lf *v, ib_portid_t *id, unsigned int port,
		   unsigned int attr, uint8_t *buf, struct lf_sample *s)
{
	s->queries++;
	memset(buf, 0, IB_MAD_SIZE);
	return pma_query_via(buf, id, port, 0, attr, v->mad) ? 0 : -EIO;
}

/*
 * Switch n's linked ports into s->c from s->n on; on failure they are
 * taken out again, so a switch is in a sample whole or not at all.
 */
static int read_switch_counters(struct lf *v, uint32_t n,
				struct lf_sample *s)
{
	const struct fabric *f = v->f;
	uint8_t buf[IB_MAD_SIZE];
	size_t first = s->n;
	unsigned int cap, p;
	ib_portid_t id;
	int ret;

	memset(&id, 0, sizeof(id));
	id.lid = fab_port(f, n, 0)->lid;
	if (!id.lid)
		return -EADDRNOTAVAIL;
	ret = pma_get(v, &id, 0, CLASS_PORT_INFO, buf, s);
	if (ret)
		return ret;
	cap = mad_get_field(buf, 0, IB_CPI_CAPMASK_F);
	for (p = 1; p <= f->nodes[n].nports; p++) {
		const struct fab_port *fp = fab_port(f, n, p);
		struct lf_ctr *c = &s->c[s->n];

		if (fp->peer == FAB_NONE)
			continue;
		ret = pma_get(v, &id, p, IB_GSI_PORT_COUNTERS, buf, s);
		if (ret)
			goto out_drop;
		*c = (struct lf_ctr){
			.guid = f->nodes[n].guid,
			.peer_guid = f->nodes[fp->peer].guid,
			.node = n, .peer = fp->peer,
			.port = p, .peer_port = fp->peer_port,
			.xmit_data = mad_get_field(buf, 0, IB_PC_XMT_BYTES_F),
			.xmit_wait = mad_get_field(buf, 0, IB_PC_XMT_WAIT_F),
		};
		if (!(cap & PM_CAP_XMIT_WAIT))
			c->flags |= LF_CTR_NO_WAIT;
		if (cap & (PM_CAP_EXT_WIDTH | PM_CAP_EXT_NOIETF)) {
			ret = pma_get(v, &id, p, IB_GSI_PORT_COUNTERS_EXT, buf,
				      s);
			if (ret)
				goto out_drop;
			c->xmit_data = mad_get_field64(buf, 0,
						       IB_PC_EXT_XMT_BYTES_F);
			c->flags |= LF_CTR_EXT;
		}
		c->read_at = mono_s();
		s->n++;
	}
	return 0;
out_drop:
	s->n = first;
	return ret;
}

int lf_read_counters(struct lf *v, struct lf_sample *s, char *err,
		     size_t len)
{
	const struct fabric *f = v->f;
	size_t links = 0, n;
	unsigned int p;
	double t0 = mono_s();
	int ret;

	memset(s, 0, sizeof(*s));
	if (!f) {
		snprintf(err, len, "no fabric discovered");
		return -EINVAL;
	}
	for (n = 0; n < f->nnodes; n++)
		for (p = 1; fab_is_sw(f, n) && p <= f->nodes[n].nports; p++)
			links += fab_port(f, n, p)->peer != FAB_NONE;
	s->c = calloc(links + 1, sizeof(*s->c));
	s->fail = calloc(f->nsw + 1, sizeof(*s->fail));
	if (!s->c || !s->fail) {
		lf_sample_release(s);
		snprintf(err, len, "out of memory");
		return -ENOMEM;
	}
	for (n = 0; n < f->nnodes; n++) {
		if (!fab_is_sw(f, n))
			continue;
		ret = read_switch_counters(v, n, s);
		if (ret)
			s->fail[s->nfail++] = (struct lf_ctr_fail){
				.guid = f->nodes[n].guid, .node = n,
				.err = ret,
			};
	}
	lf_sample_sort(s);
	s->seconds = mono_s() - t0;
	return 0;
}
