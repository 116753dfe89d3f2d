// SPDX-License-Identifier: MIT
/* Table walks and fabrics for the unit suites. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tu.h"
#include "tu_route.h"
#include "topology/gen.h"
#include "topology/rng.h"

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

struct fabric *tu_radix_tree(unsigned int r, unsigned int levels)
{
	return tu_radix_degraded(r, levels, 0, 0, 0);
}

struct fabric *tu_radix_degraded(unsigned int r, unsigned int levels,
				 double drop, unsigned int switches,
				 uint64_t seed)
{
	struct gen_fattree ft;
	struct gen_opts o;
	struct fabric *f = NULL;
	char err[256];

	gen_opts_init(&o);
	o.drop = drop;
	o.drop_switches = switches;
	o.seed = seed;
	CU_ASSERT_FATAL(!gen_fattree_radix(&ft, r, levels, err, sizeof(err)));
	CU_ASSERT_FATAL(!gen_fattree(&ft, &o, &f, err, sizeof(err)));
	CU_ASSERT_FATAL(!fab_assign_lids(f, 0));
	return f;
}

struct fabric *tu_rail(void)
{
	struct gen_rail r = { .sus = 2, .hosts_per_su = 8, .rails = 4,
			      .spines = 4, .spine_groups = 1, .parallel = 1 };
	struct gen_opts o;
	struct fabric *f = NULL;
	char err[256];

	gen_opts_init(&o);
	CU_ASSERT_FATAL(!gen_rail(&r, &o, &f, err, sizeof(err)));
	CU_ASSERT_FATAL(!fab_assign_lids(f, 0));
	return f;
}

static void mix_hosts(struct tu_mix *m, const struct fabric *f)
{
	size_t n, i;

	m->name = calloc(f->nca, sizeof(*m->name));
	m->host = calloc(f->nca, sizeof(*m->host));
	CU_ASSERT_FATAL(m->name && m->host);
	for (n = 0; n < f->nnodes; n++) {
		if (fab_is_sw(f, n))
			continue;
		fab_host_name(f, n, m->name[m->nhost], TU_NAME_LEN);
		for (i = 0; i < m->nhost; i++)
			if (!strcmp(m->name[i], m->name[m->nhost]))
				break;
		if (i == m->nhost)
			m->nhost++;
	}
}

void tu_mix_make(struct tu_mix *m, const struct fabric *f,
		 unsigned int njobs, uint64_t seed, unsigned int busy)
{
	size_t i, j, at = 0, nbusy;

	memset(m, 0, sizeof(*m));
	mix_hosts(m, f);
	for (i = 0; i < m->nhost; i++)
		m->host[i] = m->name[i];
	for (i = m->nhost; i > 1; i--) {
		const char *t;

		j = rng_next(&seed) % i;
		t = m->host[i - 1];
		m->host[i - 1] = m->host[j];
		m->host[j] = t;
	}
	nbusy = m->nhost * busy / 100;
	for (j = 0; j < njobs && j < TU_MAX_JOBS && at < nbusy; j++) {
		size_t size = 2 + rng_next(&seed) % (2 * nbusy / njobs);

		if (size > nbusy - at || j + 1 == njobs)
			size = nbusy - at;
		snprintf(m->id[j], sizeof(m->id[j]), "j%zu", j + 1);
		m->spec[j] = (struct rt_job_spec){ .id = m->id[j],
			.weight = 1 + j % 3, .hosts = m->host + at,
			.nhosts = size };
		at += size;
	}
	m->njobs = j;
}

void tu_mix_free(struct tu_mix *m)
{
	free(m->name);
	free(m->host);
}

void tu_mix_jobs(const struct tu_mix *m, const struct fabric *f,
		 struct rt_jobs *js)
{
	char err[256];

	CU_ASSERT_FATAL(!rt_jobs_build(js, f, m->spec, m->njobs, err,
				       sizeof(err)));
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

/* A random permutation of 0..n-1 into a (n entries). */
static void tu_perm(uint32_t *a, uint32_t n, uint64_t *s)
{
	uint32_t i, j, x;

	for (i = 0; i < n; i++)
		a[i] = i;
	for (i = n; i > 1; i--) {
		j = rng_below(s, i);
		x = a[i - 1];
		a[i - 1] = a[j];
		a[j] = x;
	}
}

struct fabric *tu_shuffled(const struct fabric *f, uint64_t seed,
			   unsigned int lmc)
{
	size_t nl = f->nnodes * (FAB_MAX_PORTS + 1);
	struct fabric *g = fab_new();
	uint32_t *order = calloc(f->nnodes + 1, sizeof(*order));
	uint32_t *at = calloc(f->nnodes + 1, sizeof(*at));
	uint32_t *sw = calloc(f->nnodes + 1, sizeof(*sw));
	uint32_t *gp = calloc(f->nnodes + 1, sizeof(*gp));
	uint32_t *rank = calloc(f->nnodes + 1, sizeof(*rank));
	uint32_t *lid = calloc(nl + 1, sizeof(*lid));
	uint32_t *lp = calloc(nl + 1, sizeof(*lp));
	uint8_t *pmap = calloc(f->nports + 1, 1);
	uint32_t n, m, nsw = 0, k, nlid = 0;
	uint32_t perm[FAB_MAX_PORTS];
	unsigned int p;

	CU_ASSERT_FATAL(g && order && at && sw && gp && rank && lid && lp &&
			pmap);
	tu_perm(order, f->nnodes, &seed);
	/* switch GUIDs: the same set, dealt out anew */
	for (n = 0; n < f->nnodes; n++)
		if (fab_is_sw(f, n)) {
			rank[n] = nsw;
			sw[nsw++] = n;
		}
	tu_perm(gp, nsw, &seed);
	for (m = 0; m < f->nnodes; m++) {
		const struct fab_node *nd = &f->nodes[order[m]];
		bool is_sw = nd->type == FAB_SW;
		uint64_t guid = is_sw ? f->nodes[sw[gp[rank[order[m]]]]].guid :
					nd->guid;

		CU_ASSERT_FATAL(fab_add_node(g, nd->type, nd->nports, guid,
					     nd->desc) == (int)m);
		g->nodes[m].sysguid = is_sw ? guid : nd->sysguid;
		tu_perm(perm, nd->nports, &seed);
		for (p = 1; p <= nd->nports; p++) {
			pmap[nd->port0 + p] = is_sw ? perm[p - 1] + 1 : p;
			fab_port(g, m, pmap[nd->port0 + p])->guid =
				fab_port(f, order[m], p)->guid;
		}
		if (is_sw)
			fab_port(g, m, 0)->guid = guid;
		at[order[m]] = m;
	}
	for (n = 0; n < f->nnodes; n++)
		for (p = 1; p <= f->nodes[n].nports; p++) {
			const struct fab_port *fp = fab_port(f, n, p);

			if (fp->peer == FAB_NONE || fp->peer < n ||
			    (fp->peer == n && fp->peer_port < p))
				continue;
			CU_ASSERT_FATAL(!fab_link(g, at[n],
				pmap[f->nodes[n].port0 + p], at[fp->peer],
				pmap[f->nodes[fp->peer].port0 + fp->peer_port],
				fp->width, fp->speed));
		}
	/* LIDs: switch port 0 and linked CA ports, dealt in random order */
	for (m = 0; m < g->nnodes; m++) {
		if (fab_is_sw(g, m)) {
			lid[nlid++] = m * (FAB_MAX_PORTS + 1);
			continue;
		}
		for (p = 1; p <= g->nodes[m].nports; p++)
			if (fab_port(g, m, p)->peer != FAB_NONE)
				lid[nlid++] = m * (FAB_MAX_PORTS + 1) + p;
	}
	tu_perm(lp, nlid, &seed);
	for (k = 0; k < nlid; k++) {
		uint32_t x = lid[lp[k]];
		struct fab_port *fp = fab_port(g, x / (FAB_MAX_PORTS + 1),
					       x % (FAB_MAX_PORTS + 1));

		fp->lid = (k + 1) << lmc;
		fp->lmc = x % (FAB_MAX_PORTS + 1) ? lmc : 0;
	}
	free(order);
	free(at);
	free(sw);
	free(gp);
	free(rank);
	free(lid);
	free(lp);
	free(pmap);
	return g;
}

int tu_route_check(struct fabric *f, enum rt_engine_id id, struct vf_report *r,
		   struct rt_summary *s)
{
	struct vf_opts o = { .ebb_perms = 400, .seed = 1 };
	struct rt_tables t;
	int ret;

	ret = rt_route(f, id, NULL, &t, s);
	if (!ret)
		ret = vf_check(&t, &o, r);
	rt_tables_release(&t);
	return ret;
}

void tu_shuffled_like(const struct fabric *f, enum rt_engine_id id,
		      unsigned int lmc, double tol, const char *what)
{
	struct rt_summary s0, s;
	struct vf_report r0, r;
	uint64_t seed;

	CU_ASSERT_FATAL(!tu_route_check((struct fabric *)f, id, &r0, &s0));
	CU_ASSERT(vf_ok(&r0) && r0.cdg_checked && !r0.cdg_cycle);
	for (seed = 1; seed <= 3; seed++) {
		struct fabric *g = tu_shuffled(f, seed * 0x9e37, lmc);

		CU_ASSERT_FATAL(!tu_route_check(g, id, &r, &s));
		CU_ASSERT_STRING_EQUAL(s.engine, s0.engine);
		CU_ASSERT(vf_ok(&r) && r.cdg_checked && !r.cdg_cycle);
		CU_ASSERT_EQUAL(r.pairs, r0.pairs);
		CU_ASSERT(r.efi_class_ratio <= r0.efi_class_ratio * (1 + tol));
		CU_ASSERT(r.ebb >= r0.ebb - 0.02);
		if (r.efi_class_ratio > r0.efi_class_ratio * (1 + tol) ||
		    r.ebb < r0.ebb - 0.02)
			fprintf(stderr, "%s seed %llu: per level %.3f (was %.3f), eBB %.3f (was %.3f)\n",
				what, (unsigned long long)seed,
				r.efi_class_ratio, r0.efi_class_ratio, r.ebb,
				r0.ebb);
		fab_free(g);
	}
}
