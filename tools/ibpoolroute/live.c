// SPDX-License-Identifier: MIT
/*
 * verify: check the routing that is really in the fabric.  Discovers it,
 * reads every switch's LFT and SL2VL tables and every CA port's SL2VL,
 * asks the SA for the path SL of every CA LID pair, then runs the verifier.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <infiniband/ibnetdisc.h>
#include <infiniband/mad.h>
#include <infiniband/umad.h>

#include "ibpoolroute.h"

#define NSL 16
#define VL_DROP 15		/* VL15 carries SMPs only: data is dropped */

/*
 * One stored SL2VL entry: the VL in the low bits, or UNREAD for a table
 * nobody read; COUNTED marks an entry already reported as dropping.
 */
#define VLE_VL 0x0f
#define VLE_UNREAD 0x20
#define VLE_COUNTED 0x40

/* One stored path SL: the SL, or one of these. */
#define SL_UNASKED 0xff		/* no query made (a port's own LIDs) */
#define SL_NOPATH 0xfe		/* the SA answered without a PathRecord */

/* PathRecord component mask bits (IBA 1.3 table 209, PathRecord). */
#define PR_COMP_DLID (1ull << 4)
#define PR_COMP_SLID (1ull << 5)

/* PortInfo:CapabilityMask IsSLMappingSupported. */
#define CAP_SL_MAP (1u << 4)

#define PORT_ACTIVE 4		/* PortInfo:PortState */

/* A node's GUID and fabric index, sorted by GUID to find link peers. */
struct gidx {
	uint64_t guid;
	uint32_t n;
};

/*
 * Everything verify reads, owned and freed by live_release(); node[]
 * points into nd, rep.ca into the options.
 */
struct live {
	struct ibmad_port *mad;
	ibnd_fabric_t *nd;
	struct fabric *f;
	struct rt_tables t;
	struct rt_vl vl;
	ibnd_node_t **node;	/* fabric node -> its ibnd node */
	struct gidx *byguid;
	size_t nnodes;
	uint32_t *comp;		/* fabric node -> cabled component */
	/*
	 * SL2VL entries: node n's at vle + vle_off[n]; a switch's are
	 * ((in * (nports + 1)) + out) * NSL + sl, a CA's port * NSL + sl.
	 */
	uint8_t *vle;
	size_t *vle_off;
	/* path SLs of CA LID pairs: sl[lix[slid] * nlid + lix[dlid]] */
	uint32_t *lix;		/* LID -> CA LID index, FAB_NONE for others */
	uint32_t *lid_of;	/* CA LID index -> LID */
	uint32_t nlid;
	uint8_t *sl;
	struct pr_live rep;
};

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

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

/*
 * Discovery first: ibnetdisc opens and closes a port of its own, and
 * umad2sim delivers each management class to one open port per process.
 */
static int open_port(struct live *l, const struct pr_opts *o, char *ca,
		     char *err, size_t len)
{
	int classes[] = { IB_SMI_CLASS, IB_SMI_DIRECT_CLASS, IB_SA_CLASS };
	ibnd_config_t cfg;

	memset(&cfg, 0, sizeof(cfg));
	l->nd = ibnd_discover_fabric(ca, o->ca_port, NULL, &cfg);
	if (!l->nd) {
		snprintf(err, len, "fabric discovery through %s port %u failed",
			 ca ? ca : "the first CA", o->ca_port);
		return -EIO;
	}
	l->mad = mad_rpc_open_port(ca, o->ca_port, classes, 3);
	if (!l->mad) {
		snprintf(err, len, "cannot open %s port %u: %s",
			 ca ? ca : "the first CA", o->ca_port, strerror(errno));
		return -ENODEV;
	}
	l->rep.port = l->nd->from_portnum;
	snprintf(l->rep.source, sizeof(l->rep.source),
		 "live fabric via '%s' port %u",
		 l->nd->from_node ? l->nd->from_node->nodedesc : "?",
		 l->rep.port);
	return 0;
}

static int cmp_gidx(const void *a, const void *b)
{
	const struct gidx *x = a, *y = b;

	return x->guid < y->guid ? -1 : x->guid > y->guid;
}

static uint32_t find_node(const struct live *l, uint64_t guid)
{
	struct gidx key = { .guid = guid }, *hit;

	hit = bsearch(&key, l->byguid, l->nnodes, sizeof(key), cmp_gidx);
	return hit ? hit->n : FAB_NONE;
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

static int add_node(struct live *l, ibnd_node_t *nd, char *err, size_t len)
{
	struct fabric *f = l->f;
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
	l->node[n] = nd;
	l->byguid[n] = (struct gidx){ nd->guid, n };
	return 0;
}

static int add_links(struct live *l, uint32_t n, char *err, size_t len)
{
	const ibnd_node_t *nd = l->node[n];
	unsigned int p, w, sp;
	uint32_t m;
	int ret;

	for (p = 1; p <= (unsigned int)nd->numports; p++) {
		const ibnd_port_t *ip = nd->ports[p], *rp;

		if (!ip || !(rp = ip->remoteport))
			continue;
		m = find_node(l, rp->node->guid);
		if (m == FAB_NONE || rp->portnum < 1 ||
		    rp->portnum > l->f->nodes[m].nports) {
			snprintf(err, len, "port 0x%016" PRIx64 "[%u] links to an unknown port",
				 nd->guid, p);
			return -EINVAL;
		}
		if (pi_field(ip, IB_PORT_STATE_F) != PORT_ACTIVE) {
			l->rep.inactive++;
			problem(l, "port %u of 0x%016" PRIx64 " ('%s') is linked but not Active",
				p, nd->guid, node_name(l, n));
		}
		port_rate(ip, &w, &sp);
		ret = fab_link(l->f, n, p, m, rp->portnum, w, sp);
		if (ret) {
			snprintf(err, len, "cannot link 0x%016" PRIx64 "[%u]: %s",
				 nd->guid, p, strerror(-ret));
			return ret;
		}
	}
	return 0;
}

/* The fabric graph of what ibnetdisc found, LIDs as the SM set them. */
static int build_fabric(struct live *l, char *err, size_t len)
{
	ibnd_node_t *nd;
	size_t i;
	int ret;

	for (nd = l->nd->nodes; nd; nd = nd->next)
		l->nnodes++;
	l->f = fab_new();
	l->node = calloc(l->nnodes ? l->nnodes : 1, sizeof(*l->node));
	l->byguid = calloc(l->nnodes ? l->nnodes : 1, sizeof(*l->byguid));
	if (!l->f || !l->node || !l->byguid) {
		snprintf(err, len, "out of memory");
		return -ENOMEM;
	}
	for (nd = l->nd->nodes; nd; nd = nd->next)
		if ((ret = add_node(l, nd, err, len)))
			return ret;
	qsort(l->byguid, l->nnodes, sizeof(*l->byguid), cmp_gidx);
	for (i = 1; i < l->nnodes; i++)
		if (l->byguid[i].guid == l->byguid[i - 1].guid) {
			snprintf(err, len, "node GUID 0x%016" PRIx64 " seen twice",
				 l->byguid[i].guid);
			return -EINVAL;
		}
	for (i = 0; i < l->nnodes; i++)
		if ((ret = add_links(l, i, err, len)))
			return ret;
	ret = rt_tables_init(&l->t, l->f);
	if (ret)
		snprintf(err, len, "out of memory");
	return ret;
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

static int smp_get(struct live *l, ib_portid_t *to, unsigned int attr,
		   unsigned int mod, uint8_t *buf, int *status)
{
	ib_portid_t id = *to;

	*status = 0;
	l->rep.smps++;
	memset(buf, 0, IB_SMP_DATA_SIZE);
	if (smp_query_status_via(buf, &id, attr, mod, 0, status, l->mad))
		return 0;
	return *status ? -EPROTO : -ETIMEDOUT;
}

static const char *smp_error(int ret, int status, char *buf, size_t len)
{
	if (ret == -EPROTO)
		snprintf(buf, len, "MAD status 0x%x", status);
	else
		snprintf(buf, len, "no answer");
	return buf;
}

/* Switch s's LFT, blocks up to its LinearFDBTop; LIDs above it drop. */
static int read_lft(struct live *l, uint32_t s, char *err, size_t len)
{
	uint32_t n = l->t.sw_node[s];
	ibnd_node_t *nd = l->node[n];
	uint8_t buf[IB_SMP_DATA_SIZE], *row = rt_lft(&l->t, s);
	unsigned int fdbtop, top, b, i, lid;
	int ret, status;
	char why[32];

	fdbtop = mad_get_field(nd->switchinfo, 0, IB_SW_LINEAR_FDB_TOP_F);
	top = fdbtop < l->t.top ? fdbtop : l->t.top;
	if (fdbtop < l->t.top)
		l->rep.short_lft++;
	for (b = 0; b <= top / 64; b++) {
		ret = smp_get(l, &nd->path_portid, IB_ATTR_LINEARFORWTBL, b,
			      buf, &status);
		if (ret) {
			snprintf(err, len, "cannot read LFT block %u of switch 0x%016" PRIx64 " ('%s'): %s",
				 b, nd->guid, node_name(l, n),
				 smp_error(ret, status, why, sizeof(why)));
			return ret;
		}
		for (i = 0; i < 64 && (lid = b * 64 + i) <= top; i++)
			row[lid] = buf[i];
	}
	return 0;
}

static void store_sl2vl(uint8_t *e, uint64_t map)
{
	unsigned int sl;

	for (sl = 0; sl < NSL; sl++)
		e[sl] = map >> (60 - 4 * sl) & VLE_VL;
}

/*
 * One SL2VL table into e.  A port that refuses the attribute and does not
 * claim SL mapping sends every SL on VL 0, as the IBA says; any other
 * failure is an error.
 */
static int read_one_sl2vl(struct live *l, ib_portid_t *to, unsigned int mod,
			  bool sl_map, uint8_t *e, int *status)
{
	uint8_t buf[IB_SMP_DATA_SIZE];
	int ret;

	ret = smp_get(l, to, IB_ATTR_SLVL_TABLE, mod, buf, status);
	if (ret == -EPROTO && !sl_map) {
		memset(e, 0, NSL);
		l->rep.no_sl_map++;
		return 0;
	}
	if (ret)
		return ret;
	store_sl2vl(e, mad_get_field64(buf, 0, IB_SLTOVL_MAPPING_TABLE_F));
	l->rep.sl2vl_tables++;
	return 0;
}

static bool has_sl_map(const ibnd_port_t *p)
{
	return p && pi_field(p, IB_PORT_CAPMASK_F) & CAP_SL_MAP;
}

/* Switch n's tables for every pair of linked ports. */
static int read_sw_sl2vl(struct live *l, uint32_t n, char *err, size_t len)
{
	const struct fabric *f = l->f;
	ibnd_node_t *nd = l->node[n];
	unsigned int np = f->nodes[n].nports, in, out;
	bool sl_map = has_sl_map(nd->ports[0]);
	int ret, status;
	char why[32];

	for (in = 1; in <= np; in++) {
		if (fab_port(f, n, in)->peer == FAB_NONE)
			continue;
		for (out = 1; out <= np; out++) {
			uint8_t *e = l->vle + l->vle_off[n] +
				     ((size_t)in * (np + 1) + out) * NSL;

			if (fab_port(f, n, out)->peer == FAB_NONE)
				continue;
			ret = read_one_sl2vl(l, &nd->path_portid,
					     in << 8 | out, sl_map, e, &status);
			if (ret) {
				snprintf(err, len, "cannot read SL2VL in %u out %u of switch 0x%016" PRIx64 " ('%s'): %s",
					 in, out, nd->guid, node_name(l, n),
					 smp_error(ret, status, why,
						   sizeof(why)));
				return ret;
			}
		}
	}
	return 0;
}

/*
 * A directed route that enters CA n at port p: through the switch it is
 * cabled to, so each port of a multi-port CA answers for itself.
 */
static int ca_route(const struct live *l, uint32_t n, unsigned int p,
		    ib_portid_t *id)
{
	const struct fab_port *fp = fab_port(l->f, n, p);

	if (!fab_is_sw(l->f, fp->peer)) {
		*id = l->node[n]->path_portid;
		return 0;
	}
	*id = l->node[fp->peer]->path_portid;
	if (id->lid || id->drpath.cnt + 1 >= IB_SUBNET_PATH_HOPS_MAX)
		return -E2BIG;
	id->drpath.p[++id->drpath.cnt] = fp->peer_port;
	return 0;
}

static int read_ca_sl2vl(struct live *l, uint32_t n, char *err, size_t len)
{
	ibnd_node_t *nd = l->node[n];
	ib_portid_t id;
	unsigned int p;
	int ret, status = 0;
	char why[32];

	for (p = 1; p <= l->f->nodes[n].nports; p++) {
		if (fab_port(l->f, n, p)->peer == FAB_NONE)
			continue;
		ret = ca_route(l, n, p, &id);
		if (!ret)
			ret = read_one_sl2vl(l, &id, 0, has_sl_map(nd->ports[p]),
					     l->vle + l->vle_off[n] + p * NSL,
					     &status);
		if (ret) {
			snprintf(err, len, "cannot read SL2VL of CA 0x%016" PRIx64 " ('%s') port %u: %s",
				 nd->guid, node_name(l, n), p,
				 ret == -E2BIG ? "no directed route" :
				 smp_error(ret, status, why, sizeof(why)));
			return ret;
		}
	}
	return 0;
}

static int read_switches(struct live *l, char *err, size_t len)
{
	const struct fabric *f = l->f;
	size_t n, total = 0;
	double t0 = now();
	uint32_t s;
	int ret;

	l->vle_off = malloc((f->nnodes ? f->nnodes : 1) * sizeof(*l->vle_off));
	if (!l->vle_off)
		goto oom;
	for (n = 0; n < f->nnodes; n++) {
		size_t np1 = f->nodes[n].nports + 1;

		l->vle_off[n] = total;
		total += (fab_is_sw(f, n) ? np1 * np1 : np1) * NSL;
	}
	l->vle = malloc(total ? total : 1);
	if (!l->vle)
		goto oom;
	memset(l->vle, VLE_UNREAD, total);
	for (s = 0; s < l->t.nsw; s++)
		if ((ret = read_lft(l, s, err, len)))
			return ret;
	for (n = 0; n < f->nnodes; n++) {
		ret = fab_is_sw(f, n) ? read_sw_sl2vl(l, n, err, len) :
					read_ca_sl2vl(l, n, err, len);
		if (ret)
			return ret;
	}
	l->rep.smp_seconds = now() - t0;
	return 0;
oom:
	snprintf(err, len, "out of memory");
	return -ENOMEM;
}

/* Index every LID of every linked CA port. */
static int index_ca_lids(struct live *l)
{
	const struct fabric *f = l->f;
	unsigned int lid;
	uint32_t k = 0;

	l->lix = malloc((l->t.top + 1) * sizeof(*l->lix));
	l->lid_of = malloc((l->t.top + 1) * sizeof(*l->lid_of));
	if (!l->lix || !l->lid_of)
		return -ENOMEM;
	for (lid = 0; lid <= l->t.top; lid++) {
		uint32_t n = l->t.lid_node[lid];

		l->lix[lid] = FAB_NONE;
		if (!lid || n == FAB_NONE || fab_is_sw(f, n) ||
		    fab_port(f, n, l->t.lid_port[lid])->peer == FAB_NONE)
			continue;
		l->lix[lid] = k;
		l->lid_of[k++] = lid;
	}
	l->nlid = k;
	l->sl = malloc(k ? (size_t)k * k : 1);
	if (!l->sl)
		return -ENOMEM;
	memset(l->sl, SL_UNASKED, (size_t)k * k);
	return 0;
}

/*
 * PathRecord Get for one (SLID, DLID): 0 with *sl, -ENOENT when the SA
 * answers with an error status, another negative errno when it does not
 * answer.  A Get, not one GetTable per source: umad2sim (ibsim) has no
 * RMPP and cuts an SA answer at its first MAD.
 */
static int path_query(struct live *l, ib_portid_t *sm, unsigned int slid,
		      unsigned int dlid, unsigned int *sl)
{
	uint8_t buf[IB_SA_DATA_SIZE];
	ib_rpc_v1_t rpc;

	memset(&rpc, 0, sizeof(rpc));
	rpc.mgtclass = IB_SA_CLASS | IB_MAD_RPC_VERSION1;
	rpc.method = IB_MAD_METHOD_GET;
	rpc.attr.id = IB_SA_ATTR_PATHRECORD;
	rpc.mask = PR_COMP_SLID | PR_COMP_DLID;
	rpc.datasz = IB_SA_DATA_SIZE;
	rpc.dataoffs = IB_SA_DATA_OFFS;
	rpc.trid = mad_trid();
	memset(buf, 0, sizeof(buf));
	mad_set_field(buf, 0, IB_SA_PR_SLID_F, slid);
	mad_set_field(buf, 0, IB_SA_PR_DLID_F, dlid);
	l->rep.sa_queries++;
	if (!mad_rpc_rmpp(l->mad, (ib_rpc_t *)&rpc, sm, NULL, buf))
		return rpc.error ? -rpc.error : -ENOENT;
	if (mad_get_field(buf, 0, IB_SA_PR_SLID_F) != slid ||
	    mad_get_field(buf, 0, IB_SA_PR_DLID_F) != dlid)
		return -EPROTO;
	*sl = mad_get_field(buf, 0, IB_SA_PR_SL_F);
	return 0;
}

static bool joined(const struct live *l, unsigned int a, unsigned int b)
{
	return l->comp[l->t.lid_node[a]] == l->comp[l->t.lid_node[b]];
}

static bool same_port(const struct live *l, unsigned int a, unsigned int b)
{
	return l->t.lid_node[a] == l->t.lid_node[b] &&
	       l->t.lid_port[a] == l->t.lid_port[b];
}

/* The SA's SL for every pair of CA LIDs the cabling joins. */
static int query_sa(struct live *l, char *err, size_t len)
{
	ib_portid_t sm;
	uint32_t i, j;
	unsigned int sl, a, b;
	double t0;
	int ret;

	memset(&sm, 0, sizeof(sm));
	if (ib_resolve_smlid_via(&sm, 0, l->mad) || !sm.lid) {
		snprintf(err, len, "no SM LID on the local port: is an SM running?");
		return -EIO;
	}
	l->rep.sm_lid = sm.lid;
	t0 = now();
	for (i = 0; i < l->nlid; i++)
		for (j = 0; j < l->nlid; j++) {
			a = l->lid_of[i];
			b = l->lid_of[j];
			if (same_port(l, a, b) || !joined(l, a, b))
				continue;
			ret = path_query(l, &sm, a, b, &sl);
			if (ret == -ENOENT) {
				l->sl[(size_t)i * l->nlid + j] = SL_NOPATH;
				l->rep.no_path++;
				problem(l, "the SA has no PathRecord from LID %u to LID %u",
					a, b);
				continue;
			}
			if (ret) {
				snprintf(err, len, "PathRecord LID %u to LID %u from the SA at LID %u: %s",
					 a, b, sm.lid, strerror(-ret));
				return ret;
			}
			l->sl[(size_t)i * l->nlid + j] = sl & (NSL - 1);
			l->rep.sls |= 1u << (sl & (NSL - 1));
		}
	l->rep.sa_seconds = now() - t0;
	return 0;
}

static struct live *live_of(const struct rt_tables *t)
{
	return t->vl->ctx;
}

static uint8_t cb_path_sl(const struct rt_tables *t, unsigned int slid,
			  unsigned int dlid)
{
	struct live *l = live_of(t);
	uint8_t v = SL_UNASKED;

	if (slid <= t->top && dlid <= t->top && l->lix[slid] != FAB_NONE &&
	    l->lix[dlid] != FAB_NONE)
		v = l->sl[(size_t)l->lix[slid] * l->nlid + l->lix[dlid]];
	if (v == SL_NOPATH)
		return 0;	/* counted as no_path already */
	if (v == SL_UNASKED) {
		l->rep.missing++;
		problem(l, "no path SL known for LID %u to LID %u", slid, dlid);
		return 0;
	}
	return v;
}

/* Data VLs port p of node n operates (PortInfo:OperVLs). */
static unsigned int oper_vls(const struct live *l, uint32_t n, unsigned int p)
{
	const ibnd_port_t *ip = l->node[n]->ports[p];
	unsigned int ov;

	if (!ip)
		return 1;
	ov = pi_field(ip, IB_PORT_OPER_VLS_F);
	if (ov >= 5)
		return 15;
	return ov ? 1u << (ov - 1) : 1;
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
 * Node n's entry for SL sl leaving at port out (for a switch, having come
 * in at port in; a CA sends through its own table), NULL when not read.
 */
static uint8_t *vl_entry(struct live *l, uint32_t n, unsigned int in,
			 unsigned int out, unsigned int sl)
{
	unsigned int np = l->f->nodes[n].nports;
	uint8_t *e;

	if (in > np || out > np || sl >= NSL)
		e = NULL;
	else if (fab_is_sw(l->f, n))
		e = l->vle + l->vle_off[n] +
		    ((size_t)in * (np + 1) + out) * NSL + sl;
	else
		e = l->vle + l->vle_off[n] + (size_t)out * NSL + sl;
	if (e && !(*e & VLE_UNREAD))
		return e;
	not_read(l, n, in, out);
	return NULL;
}

static uint8_t cb_sl2vl(const struct rt_tables *t, uint32_t sw,
			unsigned int in, unsigned int out, unsigned int sl)
{
	struct live *l = live_of(t);
	uint8_t *e;

	if (sw >= t->nsw) {
		l->rep.missing++;
		problem(l, "SL2VL asked of an unknown switch %" PRIu32, sw);
		return 0;
	}
	e = vl_entry(l, t->sw_node[sw], in, out, sl);
	return e ? *e & VLE_VL : 0;
}

/* Count entry e once if it puts data on VL 15 or a VL port out lacks. */
static void check_drop(struct live *l, uint32_t n, unsigned int in,
		       unsigned int out, unsigned int sl, uint8_t *e)
{
	unsigned int vl = *e & VLE_VL;

	if ((vl != VL_DROP && vl < oper_vls(l, n, out)) ||
	    (*e & VLE_COUNTED))
		return;
	*e |= VLE_COUNTED;
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
	uint8_t *e = vl_entry(l, n, in, out, sl);

	if (e)
		check_drop(l, n, in, out, sl, e);
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
	uint32_t n = l->t.lid_node[slid], hops;
	unsigned int in = 0, out = l->t.lid_port[slid];
	const struct fab_port *fp;

	for (hops = 0; hops <= l->t.nsw + 1; hops++) {
		check_hop(l, n, in, out, sl);
		fp = fab_port(f, n, out);
		if (fp->peer == FAB_NONE || !fab_is_sw(f, fp->peer))
			return;
		n = fp->peer;
		in = fp->peer_port;
		out = rt_lft(&l->t, l->t.node_sw[n])[dlid];
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
			v = l->sl[(size_t)i * l->nlid + j];
			if (v < NSL)
				check_path(l, l->lid_of[i], l->lid_of[j], v);
		}
}

bool pr_live_ok(const struct pr_live *r)
{
	return !r->inactive && !r->no_path && !r->vl_drops && !r->missing;
}

/* --jobs: their own loads on the tables read from the switches. */
static int job_loads(struct live *l, const struct pr_opts *o,
		     struct rt_jobs *js, struct vf_jobload *jl,
		     struct pr_result *res, char *err, size_t len)
{
	int ret;

	if (!o->jobs)
		return 0;
	ret = pr_jobs_load(o->jobs, l->t.fab, js, err, len);
	if (ret)
		return ret;
	ret = vf_jobload(&l->t, js, jl);
	if (ret) {
		rt_jobs_release(js);
		snprintf(err, len, "job loads: %s", strerror(-ret));
		return ret;
	}
	res->jobs = js;
	res->jl = jl;
	return 0;
}

static int check(struct live *l, const struct pr_opts *o, char *err,
		 size_t len)
{
	struct pr_result res = { .source = l->rep.source, .sl2vl = "live",
				 .live = &l->rep };
	struct vf_jobload jl;
	struct rt_jobs js;
	struct vf_report vr;
	int ret, code = PR_ERR;

	l->vl = (struct rt_vl){ .nvl = 1, .path_sl = cb_path_sl,
				.sl2vl = cb_sl2vl, .ctx = l };
	l->t.vl = &l->vl;
	ret = vf_check(&l->t, &o->vf, &vr);
	if (ret) {
		snprintf(err, len, "verifier: %s", strerror(-ret));
		return PR_ERR;
	}
	check_paths(l);
	if (job_loads(l, o, &js, &jl, &res, err, len))
		return PR_ERR;
	res.t = &l->t;
	res.vo = &o->vf;
	res.vr = &vr;
	ret = pr_report(stdout, &res, o->json);
	if (!ret && fflush(stdout))
		ret = -errno;
	if (ret) {
		snprintf(err, len, "cannot write the report: %s",
			 strerror(-ret));
		goto out;
	}
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
	l->t.vl = NULL;
	rt_tables_release(&l->t);
	free(l->sl);
	free(l->lid_of);
	free(l->lix);
	free(l->vle);
	free(l->vle_off);
	free(l->comp);
	free(l->byguid);
	free(l->node);
	fab_free(l->f);
	if (l->nd)
		ibnd_destroy_fabric(l->nd);
	if (l->mad)
		mad_rpc_close_port(l->mad);
}

int pr_verify(const struct pr_opts *o, char *err, size_t len)
{
	char ca[UMAD_CA_NAME_LEN] = "";
	struct live l;
	int code = PR_ERR;

	memset(&l, 0, sizeof(l));
	if (o->ca && strlen(o->ca) >= sizeof(ca)) {
		snprintf(err, len, "CA name '%s' is too long", o->ca);
		return PR_ERR;
	}
	if (o->ca)
		strcpy(ca, o->ca);
	l.rep.ca = o->ca;
	if (open_port(&l, o, o->ca ? ca : NULL, err, len) ||
	    build_fabric(&l, err, len) || read_switches(&l, err, len))
		goto out;
	if (build_comps(&l) || index_ca_lids(&l)) {
		snprintf(err, len, "out of memory");
		goto out;
	}
	if (query_sa(&l, err, len))
		goto out;
	code = check(&l, o, err, len);
out:
	live_release(&l);
	return code;
}
