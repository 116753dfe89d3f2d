// SPDX-License-Identifier: MIT
/*
 * Job sets: from host names and GUIDs, errors, hosts jobs share, rank
 * order; and the job-own load metric.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tu.h"
#include "tu_route.h"
#include "routing/jobload.h"
#include "routing/route.h"
#include "topology/gen.h"

static struct rt_job_spec spec(const char *id, unsigned int weight,
			       const char *const *hosts, size_t n)
{
	return (struct rt_job_spec){ .id = id, .weight = weight,
				     .hosts = hosts, .nhosts = n };
}

/* Each bad input gives its errno and a message naming what is wrong. */
static void expect_error(const struct fabric *f,
			 const struct rt_job_spec *sp, size_t n, int want,
			 const char *says)
{
	struct rt_jobs js;
	char err[256];

	CU_ASSERT_EQUAL(rt_jobs_build(&js, f, sp, n, err, sizeof(err)), want);
	CU_ASSERT_PTR_NOT_NULL(strstr(err, says));
	CU_ASSERT_PTR_NULL(js.job);
	CU_ASSERT_PTR_NULL(js.node_job);
}

static void test_build_errors(void)
{
	/* job j1 holds hosts 0 and 1; the second job is each case */
	static const struct {
		const char *id;
		unsigned int weight;
		const char *host;	/* NULL: host 1 */
		int ret;
		const char *says;
	} cases[] = {
		{ "j2", 1, "nosuchhost", -ENOENT,
		  "job 'j2': unknown host 'nosuchhost'" },
		{ "j2", 1, "0xdeadbeef", -ENOENT, "no CA port has GUID 0xdeadbeef" },
		{ "j1", 1, NULL, -EEXIST, "job 'j1' given twice" },
		{ "j2", 0, NULL, -EINVAL, "job 'j2': weight 0 not in 1-1000" },
		{ "j2", 1001, NULL, -EINVAL, "weight 1001" },
		{ "", 1, NULL, -EINVAL, "job 2: empty id" },
	};
	struct fabric *f = tu_tree(4, 2, 0, 0, 0);
	struct rt_job_spec sp[2];
	const char *a[2], *b[1];
	struct tu_mix m;
	size_t i;

	tu_mix_make(&m, f, 0, 0, 0);
	a[0] = m.name[0];
	a[1] = m.name[1];
	sp[0] = spec("j1", 1, a, 2);
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		b[0] = cases[i].host ? cases[i].host : m.name[1];
		sp[1] = spec(cases[i].id, cases[i].weight, b, 1);
		expect_error(f, sp, 2, cases[i].ret, cases[i].says);
	}
	tu_mix_free(&m);
	fab_free(f);
}

/* A GUID names its host; a host holds all its HCAs; twice is once. */
static void test_build_hosts(void)
{
	struct gen_fattree ft;
	struct gen_opts o;
	struct fabric *f = NULL;
	struct rt_job_spec sp;
	struct rt_jobs js;
	const char *h[3];
	char err[256], guid[24], name[TU_NAME_LEN];
	uint32_t n, first = FAB_NONE, cnt = 0;

	gen_opts_init(&o);
	o.hcas = 2;
	CU_ASSERT_FATAL(!gen_fattree_kary(&ft, 4, 2, err, sizeof(err)));
	CU_ASSERT_FATAL(!gen_fattree(&ft, &o, &f, err, sizeof(err)));
	for (n = 0; first == FAB_NONE && n < f->nnodes; n++)
		if (!fab_is_sw(f, n))
			first = n;
	fab_host_name(f, first, name, sizeof(name));
	snprintf(guid, sizeof(guid), "0x%llx",
		 (unsigned long long)fab_port(f, first, 1)->guid);
	h[0] = guid;
	h[1] = name;
	h[2] = name;
	sp = spec("one", 7, h, 3);
	CU_ASSERT_FATAL(!rt_jobs_build(&js, f, &sp, 1, err, sizeof(err)));
	for (n = 0; n < f->nnodes; n++)
		cnt += js.node_job[n] == 0;
	CU_ASSERT_EQUAL(cnt, 2);
	CU_ASSERT_EQUAL(js.job[0].hosts, 1);
	CU_ASSERT_EQUAL(js.job[0].ports, 2);
	CU_ASSERT_EQUAL(js.job[0].weight, 7);
	CU_ASSERT_STRING_EQUAL(js.job[0].id, "one");
	rt_jobs_release(&js);
	fab_free(f);
}

struct drops {
	unsigned int n;
	char last[512];
};

static void note_drop(void *ctx, const char *msg)
{
	struct drops *d = ctx;

	d->n++;
	snprintf(d->last, sizeof(d->last), "%s", msg);
}

/*
 * Jobs sharing a host (here named by a GUID of it) are all accepted: the
 * host is routed with the first job naming it, the later jobs on their
 * other hosts, and a job left with none of its own is left out and said.
 * The strict build takes the same set.
 */
static void test_build_shared(void)
{
	struct fabric *f = tu_tree(4, 2, 0, 0, 0);
	const char *a[2], *b[2], *c[1], *x[1];
	struct rt_job_spec sp[4];
	struct drops d = { 0 };
	struct rt_jobs js;
	char err[256], guid[24], want[512];
	uint32_t n1, n2, n3, n;
	unsigned int cnt = 0;
	struct tu_mix m;

	tu_mix_make(&m, f, 0, 0, 0);
	n1 = tu_ca_named(f, m.name[1], guid);
	n2 = tu_ca_named(f, m.name[2], NULL);
	n3 = tu_ca_named(f, m.name[3], NULL);
	a[0] = m.name[0];
	a[1] = m.name[1];
	b[0] = m.name[2];
	b[1] = guid;		/* j1's host: stays j1's */
	c[0] = m.name[3];
	x[0] = m.name[1];	/* only j1's host: no host of its own */
	sp[0] = spec("j1", 1, a, 2);
	sp[1] = spec("j2", 1, b, 2);
	sp[2] = spec("j3", 2, c, 1);
	sp[3] = spec("j4", 1, x, 1);
	CU_ASSERT_FATAL(!rt_jobs_build(&js, f, sp, 4, err, sizeof(err)));
	CU_ASSERT_EQUAL(js.njobs, 3);
	rt_jobs_release(&js);
	CU_ASSERT_FATAL(!rt_jobs_build_drop(&js, f, sp, 4, note_drop, &d, err,
					    sizeof(err)));
	CU_ASSERT_EQUAL(d.n, 1);
	snprintf(want, sizeof(want),
		 "job 'j4' has no host of its own: its hosts route with job 'j1'");
	CU_ASSERT_STRING_EQUAL(d.last, want);
	CU_ASSERT_EQUAL_FATAL(js.njobs, 3);
	CU_ASSERT_STRING_EQUAL(js.job[1].id, "j2");
	CU_ASSERT_EQUAL(js.job[1].hosts, 1);
	CU_ASSERT_STRING_EQUAL(js.job[2].id, "j3");
	CU_ASSERT_EQUAL(js.job[2].weight, 2);
	CU_ASSERT_EQUAL(js.node_job[n1], 0);
	CU_ASSERT_EQUAL(js.node_job[n2], 1);
	CU_ASSERT_EQUAL(js.node_job[n3], 2);
	for (n = 0; n < f->nnodes; n++)
		cnt += js.node_job[n] != RT_JOB_NONE;
	CU_ASSERT_EQUAL(cnt, 4);
	CU_ASSERT_STRING_EQUAL(err, "");
	/* the shared host is a rank of its first job only */
	CU_ASSERT_EQUAL_FATAL(js.rank_off[3], 4);
	CU_ASSERT_EQUAL(js.rank_off[1], 2);
	CU_ASSERT_EQUAL(js.rank[1].node, n1);
	CU_ASSERT_EQUAL(js.rank[2].node, n2);
	CU_ASSERT_EQUAL(js.rank[3].node, n3);
	rt_jobs_release(&js);

	/* other errors still fail the whole set */
	c[0] = "nosuchhost";
	CU_ASSERT_EQUAL(rt_jobs_build_drop(&js, f, sp, 4, note_drop, &d, err,
					   sizeof(err)), -ENOENT);
	tu_mix_free(&m);
	fab_free(f);
}

/*
 * Ranks are the hosts' linked CA ports in the order the hosts were
 * listed, a host named twice once, each HCA of a host in node order.
 */
static void test_build_ranks(void)
{
	struct gen_fattree ft;
	struct gen_opts o;
	struct fabric *f = NULL;
	struct rt_job_spec sp[2];
	const char *a[4], *b[1];
	uint32_t hca[4][2], n;
	struct rt_jobs js;
	char err[256], name[4][TU_NAME_LEN];
	unsigned int k = 0, i;

	gen_opts_init(&o);
	o.hcas = 2;
	CU_ASSERT_FATAL(!gen_fattree_kary(&ft, 4, 2, err, sizeof(err)));
	CU_ASSERT_FATAL(!gen_fattree(&ft, &o, &f, err, sizeof(err)));
	CU_ASSERT_FATAL(!fab_assign_lids(f, 0));
	/* the first four hosts, each with its two HCAs in node order */
	for (n = 0; n < f->nnodes && k < 8; n++) {
		if (fab_is_sw(f, n))
			continue;
		fab_host_name(f, n, name[k / 2], TU_NAME_LEN);
		hca[k / 2][k % 2] = n;
		k++;
	}
	a[0] = name[3];
	a[1] = name[0];
	a[2] = name[3];
	a[3] = name[2];
	b[0] = name[1];
	sp[0] = spec("j1", 1, a, 4);
	sp[1] = spec("j2", 1, b, 1);
	CU_ASSERT_FATAL(!rt_jobs_build(&js, f, sp, 2, err, sizeof(err)));
	CU_ASSERT_EQUAL_FATAL(js.rank_off[1], 6);
	CU_ASSERT_EQUAL_FATAL(js.rank_off[2], 8);
	for (i = 0; i < 6; i++) {
		static const unsigned int host[] = { 3, 3, 0, 0, 2, 2 };

		CU_ASSERT_EQUAL(js.rank[i].node, hca[host[i]][i % 2]);
		CU_ASSERT_EQUAL(js.rank[i].port, 1);
	}
	CU_ASSERT_EQUAL(js.rank[6].node, hca[1][0]);
	CU_ASSERT_EQUAL(js.rank[7].node, hca[1][1]);
	rt_jobs_release(&js);
	fab_free(f);
}

/* A port GUID of a CA without a host name is that CA alone. */
static void test_build_nameless(void)
{
	struct fabric *f = tu_tree(4, 2, 0, 0, 0);
	struct rt_job_spec sp[2];
	const char *a[1], *b[1];
	char err[256], ga[24], gb[24];
	uint32_t n, x = FAB_NONE, y = FAB_NONE;
	struct rt_jobs js;

	for (n = 0; n < f->nnodes && y == FAB_NONE; n++) {
		if (fab_is_sw(f, n))
			continue;
		free(f->nodes[n].desc);
		f->nodes[n].desc = strdup("");
		CU_ASSERT_FATAL(f->nodes[n].desc != NULL);
		if (x == FAB_NONE)
			x = n;
		else
			y = n;
	}
	snprintf(ga, sizeof(ga), "0x%llx",
		 (unsigned long long)fab_port(f, x, 1)->guid);
	snprintf(gb, sizeof(gb), "0x%llx",
		 (unsigned long long)fab_port(f, y, 1)->guid);
	a[0] = ga;
	b[0] = gb;
	sp[0] = spec("j1", 1, a, 1);
	sp[1] = spec("j2", 1, b, 1);
	CU_ASSERT_FATAL(!rt_jobs_build(&js, f, sp, 2, err, sizeof(err)));
	CU_ASSERT_EQUAL(js.node_job[x], 0);
	CU_ASSERT_EQUAL(js.node_job[y], 1);
	CU_ASSERT_EQUAL(js.job[0].hosts, 1);
	rt_jobs_release(&js);
	fab_free(f);
}

/* The loads of jobs sp on t are max0 (of the first), used and shared. */
static void expect_load(const struct rt_tables *t, const struct fabric *f,
			const struct rt_job_spec *sp, size_t n, uint64_t max0,
			uint64_t bound0, uint64_t used, uint64_t shared)
{
	struct vf_jobload jl;
	struct rt_jobs js;
	char err[256];

	CU_ASSERT_FATAL(!rt_jobs_build(&js, f, sp, n, err, sizeof(err)));
	CU_ASSERT_FATAL(!vf_jobload(t, &js, &jl));
	CU_ASSERT_EQUAL(jl.njobs, n);
	CU_ASSERT_EQUAL(jl.max[0], max0);
	CU_ASSERT_EQUAL(jl.bound[0], bound0);
	CU_ASSERT_EQUAL(jl.used, used);
	CU_ASSERT_EQUAL(jl.shared, shared);
	vf_jobload_release(&jl);
	rt_jobs_release(&js);
}

/*
 * Loads by hand on a 4-ary 2-tree routed without jobs (d-mod-k: host i
 * of a leaf is reached through spine i).  Hosts 0-3 are on leaf 0, 4-7
 * on leaf 1, 8-11 on leaf 2.
 */
static void test_jobload(void)
{
	struct fabric *f = tu_tree(4, 2, 0, 0, 0);
	struct rt_job_spec sp[2];
	struct rt_summary s;
	struct rt_tables t;
	struct tu_mix m;
	const char *a[8], *b[2];
	unsigned int i;

	tu_mix_make(&m, f, 0, 0, 0);
	CU_ASSERT_FATAL(!rt_route(f, RT_ENGINE_AUTO, NULL, &t, &s));
	a[0] = m.name[0];
	a[1] = m.name[4];
	a[2] = m.name[1];
	a[3] = m.name[5];
	/* 0 <-> 4: one route each way over spine 0, four directed links */
	sp[0] = spec("a", 1, a, 2);
	expect_load(&t, f, sp, 1, 1, 1, 4, 0);
	/* 0, 1 <-> 4, 5: two sources per destination on each link */
	sp[0] = spec("a", 1, a, 4);
	expect_load(&t, f, sp, 1, 2, 1, 8, 0);
	/* and b = 1 <-> 8: 1 -> 8 climbs leaf 0 to spine 0 as 0 -> 4 does */
	b[0] = m.name[1];
	b[1] = m.name[8];
	sp[0] = spec("a", 1, a, 2);
	sp[1] = spec("b", 1, b, 2);
	expect_load(&t, f, sp, 2, 1, 1, 7, 1);
	/* leaves 0 and 1 whole: 4 x 4 routes each way over 4 links, 4 each */
	for (i = 0; i < 8; i++)
		a[i] = m.name[i];
	sp[0] = spec("a", 1, a, 8);
	expect_load(&t, f, sp, 1, 4, 4, 16, 0);
	rt_tables_release(&t);
	tu_mix_free(&m);
	fab_free(f);
}

TU_SUITE(jobs,
	 { "job set errors", test_build_errors },
	 { "job set hosts and GUIDs", test_build_hosts },
	 { "job set takes jobs sharing a host", test_build_shared },
	 { "job set: GUIDs of nameless CAs", test_build_nameless },
	 { "job set: ranks in host list order", test_build_ranks },
	 { "job-own loads", test_jobload })
