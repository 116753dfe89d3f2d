// SPDX-License-Identifier: MIT
/* Table walks and fabrics for the unit suites. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
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

struct fabric *tu_radix_tree(unsigned int r, unsigned int levels)
{
	struct gen_fattree ft;
	struct gen_opts o;
	struct fabric *f = NULL;
	char err[256];

	gen_opts_init(&o);
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

		j = gen_rng_next(&seed) % i;
		t = m->host[i - 1];
		m->host[i - 1] = m->host[j];
		m->host[j] = t;
	}
	nbusy = m->nhost * busy / 100;
	for (j = 0; j < njobs && j < TU_MAX_JOBS && at < nbusy; j++) {
		size_t size = 2 + gen_rng_next(&seed) % (2 * nbusy / njobs);

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
