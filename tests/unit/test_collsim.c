// SPDX-License-Identifier: MIT
/*
 * The collectives model: max-min rates with known answers, and ring and
 * all-to-all bandwidths on a hand-made fabric worked out by hand.
 */
#include <math.h>
#include <string.h>

#include "tu.h"
#include "routing/collsim.h"
#include "routing/route.h"

#define NEAR(a, b) (fabs((a) - (b)) < 1e-9)

static void test_shared_link(void)
{
	const uint32_t off[] = { 0, 1, 2 }, lnk[] = { 0, 0 };
	double rate[2];

	CU_ASSERT_FATAL(!cs_maxmin(2, off, lnk, 1, rate));
	CU_ASSERT(NEAR(rate[0], 0.5));
	CU_ASSERT(NEAR(rate[1], 0.5));
}

/*
 * f0 and f1 share link 0; f1, f2 and f3 share link 1, which holds f1 to a
 * third: link 0 gives f0 the two thirds f1 cannot take.  Without f3, f1
 * rises to a half and f0 falls to a half.
 */
static void test_bottleneck_freed(void)
{
	const uint32_t off[] = { 0, 1, 3, 4, 5 }, lnk[] = { 0, 0, 1, 1, 1 };
	double rate[4];

	CU_ASSERT_FATAL(!cs_maxmin(4, off, lnk, 2, rate));
	CU_ASSERT(NEAR(rate[0], 2.0 / 3));
	CU_ASSERT(NEAR(rate[1], 1.0 / 3));
	CU_ASSERT(NEAR(rate[2], 1.0 / 3));
	CU_ASSERT(NEAR(rate[3], 1.0 / 3));
	CU_ASSERT_FATAL(!cs_maxmin(3, off, lnk, 2, rate));
	CU_ASSERT(NEAR(rate[0], 0.5));
	CU_ASSERT(NEAR(rate[1], 0.5));
	CU_ASSERT(NEAR(rate[2], 0.5));
}

/* A long flow over three links, each shared with one short flow. */
static void test_parking_lot(void)
{
	const uint32_t off[] = { 0, 3, 4, 5, 6 }, lnk[] = { 0, 1, 2, 0, 1, 2 };
	double rate[4];
	int i;

	CU_ASSERT_FATAL(!cs_maxmin(4, off, lnk, 3, rate));
	for (i = 0; i < 4; i++)
		CU_ASSERT(NEAR(rate[i], 0.5));
}

/* Flows over no link run at line rate; links used by none are fine. */
static void test_empty(void)
{
	const uint32_t off[] = { 0, 0, 1 }, lnk[] = { 5 };
	double rate[2];

	CU_ASSERT_FATAL(!cs_maxmin(2, off, lnk, 8, rate));
	CU_ASSERT(NEAR(rate[0], 1));
	CU_ASSERT(NEAR(rate[1], 1));
}

/*
 * Two switches joined by one cable, hosts a1 a2 a3 on the first and b1 b2
 * b3 on the second, routed up/down.
 */
static struct fabric *pair(bool two)
{
	struct fabric *f = fab_new();

	CU_ASSERT_FATAL(f != NULL);
	CU_ASSERT_FATAL(fab_add_node(f, FAB_SW, 5, 0x10, "s1") == 0);
	CU_ASSERT_FATAL(fab_add_node(f, FAB_SW, 5, 0x20, "s2") == 1);
	CU_ASSERT_FATAL(fab_add_node(f, FAB_CA, 1, 0x11, "a1 hca") == 2);
	CU_ASSERT_FATAL(fab_add_node(f, FAB_CA, 1, 0x12, "a2 hca") == 3);
	CU_ASSERT_FATAL(fab_add_node(f, FAB_CA, 1, 0x21, "b1 hca") == 4);
	CU_ASSERT_FATAL(fab_add_node(f, FAB_CA, 1, 0x22, "b2 hca") == 5);
	CU_ASSERT_FATAL(fab_add_node(f, FAB_CA, 1, 0x13, "a3 hca") == 6);
	CU_ASSERT_FATAL(fab_add_node(f, FAB_CA, 1, 0x23, "b3 hca") == 7);
	CU_ASSERT_FATAL(!fab_link(f, 0, 1, 1, 1, 4, 250));
	CU_ASSERT_FATAL(!fab_link(f, 0, 2, 2, 1, 4, 250));
	CU_ASSERT_FATAL(!fab_link(f, 0, 3, 3, 1, 4, 250));
	CU_ASSERT_FATAL(!fab_link(f, 1, 2, 4, 1, 4, 250));
	CU_ASSERT_FATAL(!fab_link(f, 1, 3, 5, 1, 4, 250));
	CU_ASSERT_FATAL(!fab_link(f, 0, 4, 6, 1, 4, 250));
	CU_ASSERT_FATAL(!fab_link(f, 1, 4, 7, 1, 4, 250));
	if (two)
		CU_ASSERT_FATAL(!fab_link(f, 0, 5, 1, 5, 4, 250));
	CU_ASSERT_FATAL(!fab_assign_lids(f, 0));
	return f;
}

struct pair_run {
	struct fabric *f;
	struct rt_tables t;
	struct rt_jobs js;
	struct rt_summary sum;
};

static void pair_start(struct pair_run *p, const struct rt_job_spec *sp,
		       size_t n, bool two)
{
	char err[256];

	p->f = pair(two);
	CU_ASSERT_FATAL(!rt_route(p->f, RT_ENGINE_UPDOWN, NULL, &p->t,
				  &p->sum));
	CU_ASSERT_FATAL(!rt_jobs_build(&p->js, p->f, sp, n, err,
				       sizeof(err)));
}

static void pair_end(struct pair_run *p)
{
	rt_jobs_release(&p->js);
	rt_tables_release(&p->t);
	fab_free(p->f);
}

static double run(struct pair_run *p, enum cs_pattern pat, unsigned int j)
{
	struct cs_opts o = { .pattern = pat };
	struct cs_result r;
	double bw;

	CU_ASSERT_FATAL(!cs_run(&p->t, &p->js, &o, &r));
	CU_ASSERT_EQUAL(r.lost, 0);
	bw = r.bw[j];
	cs_result_release(&r);
	return bw;
}

/*
 * With links asked for, the cable's two directions each carry n ring
 * flows a round, and a host's own link one.
 */
static void expect_cable(const struct pair_run *p, double n)
{
	struct cs_opts o = { .pattern = CS_RING, .links = true };
	struct cs_result r;

	CU_ASSERT_FATAL(!cs_run(&p->t, &p->js, &o, &r));
	CU_ASSERT_PTR_NOT_NULL_FATAL(r.link);
	CU_ASSERT(NEAR(r.link[p->f->nodes[0].port0 + 1], n));
	CU_ASSERT(NEAR(r.link[p->f->nodes[1].port0 + 1], n));
	CU_ASSERT(NEAR(r.link[p->f->nodes[2].port0 + 1], 1));
	cs_result_release(&r);
}

/* Two jobs, each with a host on both sides: their rings share the cable. */
static void test_two_rings(void)
{
	static const char *const h1[] = { "a1", "b1" }, *const h2[] = { "a2", "b2" };
	const struct rt_job_spec sp[] = {
		{ "j1", 1, h1, 2 }, { "j2", 1, h2, 2 },
	};
	struct pair_run p;

	pair_start(&p, sp, 2, false);
	CU_ASSERT(NEAR(run(&p, CS_RING, 0), 0.5));
	expect_cable(&p, 2);
	CU_ASSERT(NEAR(run(&p, CS_RING, 1), 0.5));
	CU_ASSERT(NEAR(run(&p, CS_ALLTOALL, 0), 0.5));
	pair_end(&p);
	/* alone, a job has the cable to itself */
	pair_start(&p, sp, 1, false);
	CU_ASSERT(NEAR(run(&p, CS_RING, 0), 1));
	pair_end(&p);
}

/*
 * One job listed a1 b1 a2 b2, its hosts not grouped by switch.  NCCL's
 * ring keeps rank order (a1 b1 a2 b2 a1): two flows each way over the
 * one cable, half line rate; listed a1 a2 b1 b2 it crosses once each way
 * at line rate.  The pairwise all-to-all's shifts 1 and 3 put two flows
 * on the cable each way, shift 2 none: 3 rounds in 2 + 1 + 2 time units.
 * NCCL's all-to-all puts all four a -> b flows on the cable at once, a
 * quarter each (a host's other flows take the rest of its link): 0.25
 * times 3 peers.
 */
static void test_ring_rank_order(void)
{
	static const char *const h[] = { "a1", "b1", "a2", "b2" };
	static const char *const g[] = { "a1", "a2", "b1", "b2" };
	const struct rt_job_spec sp = { "j", 1, h, 4 }, sg = { "j", 1, g, 4 };
	struct pair_run p;
	uint32_t nx[4];

	pair_start(&p, &sp, 1, false);
	CU_ASSERT_FATAL(!cs_ring_next(&p.js, 0, nx));
	CU_ASSERT(nx[0] == 1 && nx[1] == 2 && nx[2] == 3 && nx[3] == 0);
	CU_ASSERT(NEAR(run(&p, CS_RING, 0), 0.5));
	expect_cable(&p, 2);
	CU_ASSERT(NEAR(run(&p, CS_ALLTOALL, 0), 0.6));
	CU_ASSERT(NEAR(run(&p, CS_NCCL_ALLTOALL, 0), 0.75));
	pair_end(&p);
	pair_start(&p, &sg, 1, false);
	CU_ASSERT(NEAR(run(&p, CS_RING, 0), 1));
	expect_cable(&p, 1);
	CU_ASSERT(NEAR(run(&p, CS_NCCL_ALLTOALL, 0), 0.75));
	pair_end(&p);
}

/*
 * NCCL's all-to-all.  a1 a2 b1: the cable carries the two flows into b1
 * each way, as b1's own links do, a half each: times 2 peers, line rate.
 * Two jobs a1 b1 and a2 b2 share the cable: a half each, one peer.
 */
static void test_nccl_alltoall(void)
{
	static const char *const h[] = { "a1", "a2", "b1" };
	static const char *const h1[] = { "a1", "b1" }, *const h2[] = { "a2", "b2" };
	const struct rt_job_spec sp = { "j", 1, h, 3 };
	const struct rt_job_spec two[] = { { "j1", 1, h1, 2 }, { "j2", 1, h2, 2 } };
	struct cs_opts o = { .pattern = CS_NCCL_ALLTOALL };
	struct cs_result r;
	struct pair_run p;

	pair_start(&p, &sp, 1, false);
	CU_ASSERT_FATAL(!cs_run(&p.t, &p.js, &o, &r));
	CU_ASSERT(NEAR(r.bw[0], 1));
	CU_ASSERT_EQUAL(r.flows, 6);
	CU_ASSERT_EQUAL(r.rounds, 1);
	cs_result_release(&r);
	pair_end(&p);
	pair_start(&p, two, 2, false);
	CU_ASSERT_FATAL(!cs_run(&p.t, &p.js, &o, &r));
	CU_ASSERT(NEAR(r.bw[0], 0.5) && NEAR(r.bw[1], 0.5));
	CU_ASSERT(NEAR(r.mean, 0.5) && NEAR(r.worst, 0.5));
	cs_result_release(&r);
	pair_end(&p);
}

/*
 * Hosts with two HCAs run one ring per rail: h1's first port to h2's
 * first, h1's second to h2's second, and back; h3's single port has no
 * partner on the second rail.
 */
static void test_ring_rails(void)
{
	static const char *const h[] = { "h1", "h2", "h3" };
	const struct rt_job_spec sp = { "j", 1, h, 3 };
	struct fabric *f = fab_new();
	struct rt_jobs js;
	uint32_t nx[5], k;
	char err[128];

	CU_ASSERT_FATAL(f != NULL);
	CU_ASSERT_FATAL(fab_add_node(f, FAB_SW, 6, 0x10, "s1") == 0);
	CU_ASSERT_FATAL(fab_add_node(f, FAB_CA, 1, 0x11, "h1 mlx5_0") == 1);
	CU_ASSERT_FATAL(fab_add_node(f, FAB_CA, 1, 0x12, "h1 mlx5_1") == 2);
	CU_ASSERT_FATAL(fab_add_node(f, FAB_CA, 1, 0x21, "h2 mlx5_0") == 3);
	CU_ASSERT_FATAL(fab_add_node(f, FAB_CA, 1, 0x22, "h2 mlx5_1") == 4);
	CU_ASSERT_FATAL(fab_add_node(f, FAB_CA, 1, 0x31, "h3 mlx5_0") == 5);
	for (k = 1; k <= 5; k++)
		CU_ASSERT_FATAL(!fab_link(f, 0, k, k, 1, 4, 250));
	CU_ASSERT_FATAL(!fab_assign_lids(f, 0));
	CU_ASSERT_FATAL(!rt_jobs_build(&js, f, &sp, 1, err, sizeof(err)));
	CU_ASSERT_FATAL(js.rank_off[1] == 5);
	CU_ASSERT_FATAL(!cs_ring_next(&js, 0, nx));
	CU_ASSERT(nx[0] == 2 && nx[2] == 4 && nx[4] == 0);
	CU_ASSERT(nx[1] == 3 && nx[3] == 1);
	rt_jobs_release(&js);
	fab_free(f);
}

/* A hole in the tables: the flow is lost and its job gets nothing. */
static void test_lost(void)
{
	static const char *const h[] = { "a1", "b1" };
	const struct rt_job_spec sp = { "j", 1, h, 2 };
	struct cs_opts o = { .pattern = CS_RING };
	struct cs_result r;
	struct pair_run p;
	unsigned int lid;

	pair_start(&p, &sp, 1, false);
	lid = fab_port(p.f, 4, 1)->lid;
	rt_lft(&p.t, p.t.node_sw[0])[lid] = RT_NO_PATH;
	CU_ASSERT_FATAL(!cs_run(&p.t, &p.js, &o, &r));
	CU_ASSERT_EQUAL(r.lost, 1);
	CU_ASSERT_EQUAL(r.flows, 2);
	CU_ASSERT(NEAR(r.bw[0], 0));
	CU_ASSERT(NEAR(r.worst, 0));
	cs_result_release(&r);
	pair_end(&p);
}

/* The same seed gives the same answer; rounds can be capped. */
static void test_rounds(void)
{
	static const char *const h[] = { "a1", "b1", "a2", "b2" };
	const struct rt_job_spec sp = { "j", 1, h, 4 };
	struct cs_opts o = { .pattern = CS_ALLTOALL, .rounds = 1 };
	struct cs_result r;
	struct pair_run p;

	pair_start(&p, &sp, 1, false);
	CU_ASSERT_FATAL(!cs_run(&p.t, &p.js, &o, &r));
	CU_ASSERT_EQUAL(r.rounds, 1);
	CU_ASSERT_EQUAL(r.flows, 4);
	CU_ASSERT(NEAR(r.bw[0], 0.5) || NEAR(r.bw[0], 1));
	CU_ASSERT_EQUAL(r.active, 1);
	cs_result_release(&r);
	pair_end(&p);
}

/* Every job runs as many rounds as the largest job has shifts. */
static void test_rounds_largest(void)
{
	static const char *const h1[] = { "a1", "b1" };
	static const char *const h2[] = { "a2", "b2", "a3", "b3" };
	const struct rt_job_spec sp[] = {
		{ "small", 1, h1, 2 }, { "large", 1, h2, 4 },
	};
	struct cs_opts o = { .pattern = CS_ALLTOALL, .seed = 7 };
	struct cs_result r;
	struct pair_run p;

	pair_start(&p, sp, 2, false);
	CU_ASSERT_FATAL(!cs_run(&p.t, &p.js, &o, &r));
	CU_ASSERT_EQUAL(r.rounds, 3);
	CU_ASSERT_EQUAL(r.flows, 3 * (2 + 4));
	CU_ASSERT_EQUAL(r.active, 2);
	CU_ASSERT(r.worst <= r.mean);
	cs_result_release(&r);
	pair_end(&p);
}

/*
 * Alignments run at once, their flows walked once, give what cs_run()
 * gives seed by seed; a floor over one alignment's figure stops there.
 */
static void test_alignments(void)
{
	static const char *const h1[] = { "a1", "b1" };
	static const char *const h2[] = { "a2", "b2", "a3", "b3" };
	const struct rt_job_spec sp[] = {
		{ "small", 1, h1, 2 }, { "large", 1, h2, 4 },
	};
	static const uint64_t seed[] = { 7, 8, 9, 100 };
	double bw[4 * 2], mean[4], worst[4], floor[4 * 2] = { 0 };
	struct cs_opts o = { .pattern = CS_ALLTOALL, .rounds = 2 };
	struct cs_result r;
	struct pair_run p;
	unsigned int k;

	pair_start(&p, sp, 2, false);
	CU_ASSERT_EQUAL_FATAL(cs_alignments(&p.t, &p.js, 2, seed, 4, NULL, bw,
					    mean, worst), 4);
	for (k = 0; k < 4; k++) {
		o.seed = seed[k];
		CU_ASSERT_FATAL(!cs_run(&p.t, &p.js, &o, &r));
		CU_ASSERT(r.bw[0] == bw[2 * k] && r.bw[1] == bw[2 * k + 1]);
		CU_ASSERT(r.mean == mean[k] && r.worst == worst[k]);
		cs_result_release(&r);
	}
	floor[2 * 2 + 1] = bw[2 * 2 + 1] + 1e-6;
	CU_ASSERT_EQUAL(cs_alignments(&p.t, &p.js, 2, seed, 4, floor, bw,
				      mean, worst), 2);
	floor[2 * 2 + 1] = bw[2 * 2 + 1];
	CU_ASSERT_EQUAL(cs_alignments(&p.t, &p.js, 2, seed, 4, floor, bw,
				      mean, worst), 4);
	pair_end(&p);
}

/*
 * The oracle routes by round over any shortest path: with a second cable
 * between the switches, two rings that the tables put on one cable each
 * get their own when every job's flows are known, and never do better
 * knowing only their own.
 */
static void test_oracle(void)
{
	static const char *const h1[] = { "a1", "b1" }, *const h2[] = { "a2", "b2" };
	const struct rt_job_spec sp[] = {
		{ "j1", 1, h1, 2 }, { "j2", 1, h2, 2 },
	};
	struct cs_opts o = { .pattern = CS_RING, .oracle = CS_ORACLE_ALL };
	struct cs_result all, own;
	struct pair_run p;

	pair_start(&p, sp, 2, true);
	CU_ASSERT_FATAL(!cs_run(&p.t, &p.js, &o, &all));
	CU_ASSERT(NEAR(all.mean, 1) && NEAR(all.worst, 1));
	CU_ASSERT_EQUAL(all.lost, 0);
	o.oracle = CS_ORACLE_OWN;
	CU_ASSERT_FATAL(!cs_run(&p.t, &p.js, &o, &own));
	CU_ASSERT(own.mean <= all.mean + 1e-9);
	cs_result_release(&all);
	cs_result_release(&own);
	o.pattern = CS_ALLTOALL;
	o.oracle = CS_ORACLE_ALL;
	CU_ASSERT_FATAL(!cs_run(&p.t, &p.js, &o, &all));
	CU_ASSERT(NEAR(all.mean, 1));
	cs_result_release(&all);
	pair_end(&p);
}

static void test_pattern_names(void)
{
	enum cs_pattern p;

	CU_ASSERT(!cs_pattern_parse("ring", &p) && p == CS_RING);
	CU_ASSERT(!cs_pattern_parse("alltoall", &p) && p == CS_ALLTOALL);
	CU_ASSERT(!cs_pattern_parse("nccl-alltoall", &p) &&
		  p == CS_NCCL_ALLTOALL);
	CU_ASSERT(cs_pattern_parse("allreduce", &p) < 0);
	CU_ASSERT_STRING_EQUAL(cs_pattern_name(CS_ALLTOALL), "alltoall");
}

TU_SUITE(collsim,
	 { "shared link halves two flows", test_shared_link },
	 { "a bottleneck freed raises the rest", test_bottleneck_freed },
	 { "parking lot", test_parking_lot },
	 { "flows without links", test_empty },
	 { "two rings share a cable", test_two_rings },
	 { "rings in rank order, not by leaf", test_ring_rank_order },
	 { "NCCL all-to-all: every peer at once", test_nccl_alltoall },
	 { "a ring per rail", test_ring_rails },
	 { "a lost flow stops its job", test_lost },
	 { "capped rounds", test_rounds },
	 { "rounds of the largest job", test_rounds_largest },
	 { "alignments at once, as one by one", test_alignments },
	 { "oracle: every job's rounds known", test_oracle },
	 { "pattern names", test_pattern_names })
