// SPDX-License-Identifier: MIT
/*
 * The replay's numbers for traces small enough to schedule by hand: one
 * host of 4 GPUs, three jobs, every measure worked out in the comments.
 */
#include <string.h>

#include "tu.h"
#include "tools/lib/pool/replay.h"

static char empty[] = "", u1[] = "u1", u2[] = "u2";
static char *strs[] = { empty, u1, u2 };

static const struct sch_host host4 = { .gpus = 4, .rails = 1, .nic = 100 };

static void trace_of(struct trc_trace *t, struct trc_job *j, size_t n)
{
	memset(t, 0, sizeof(*t));
	t->jobs = j;
	t->njobs = n;
	t->strs = strs;
	t->nstrs = 3;
}

static void run_at(enum sch_policy p, const struct trc_trace *t,
		   const struct sch_host *h, size_t nh, double restart,
		   struct rpl_result *r)
{
	struct rpl_opts o = { .trace = t, .hosts = h, .nhosts = nh,
			      .nlevels = 1, .policy = p, .restart = restart };
	char err[256];

	CU_ASSERT_EQUAL_FATAL(rpl_run(&o, r, err, sizeof(err)), 0);
}

/* Preemption free of cost. */
static void run(enum sch_policy p, const struct trc_trace *t,
		const struct sch_host *h, size_t nh, struct rpl_result *r)
{
	run_at(p, t, h, nh, 0, r);
}

/*
 * EASY: J1 (4 GPUs, 100 s) runs from 0.  J2 (2 GPUs, 50 s) and J3 (2
 * GPUs, 30 s) find no GPU free and start when J1 ends at 100: JCTs 100,
 * 140, 110; waits 0, 90, 80; bounded slowdowns 1, 2.8, 11/3.  Makespan
 * 150 against a bound of 560 GPU-s / 4 = 140; 560 GPU-s allocated of
 * 4 x 150.  No GPU idles while a job that fits waits.  Users: u1 ran J1
 * and J2 (240 s for 150 s of work: 1.6), u2 J3 (110 / 30).
 */
static void test_easy_by_hand(void)
{
	struct trc_job j[3] = {
		{ .submit = 0, .runtime = 100, .limit = 200, .gpus = 4,
		  .milli = 1000, .user = 1 },
		{ .submit = 10, .runtime = 50, .limit = 100, .gpus = 2,
		  .milli = 1000, .user = 1 },
		{ .submit = 20, .runtime = 30, .limit = 60, .gpus = 2,
		  .milli = 1000, .user = 2 },
	};
	double rho1 = 1.6, rho2 = 110.0 / 30;
	struct trc_trace t;
	struct rpl_result r;

	trace_of(&t, j, 3);
	run(SCH_EASY, &t, &host4, 1, &r);
	CU_ASSERT_EQUAL(r.done, 3);
	CU_ASSERT_DOUBLE_EQUAL(r.jct.mean, 350.0 / 3, 1e-9);
	CU_ASSERT_DOUBLE_EQUAL(r.jct.median, 110, 1e-9);
	CU_ASSERT_DOUBLE_EQUAL(r.jct.p99, 140, 1e-9);
	CU_ASSERT_DOUBLE_EQUAL(r.wait.mean, 170.0 / 3, 1e-9);
	CU_ASSERT_DOUBLE_EQUAL(r.wait.median, 80, 1e-9);
	CU_ASSERT_DOUBLE_EQUAL(r.wait.p99, 90, 1e-9);
	CU_ASSERT_DOUBLE_EQUAL(r.bsld, (1 + 2.8 + 110.0 / 30) / 3, 1e-9);
	CU_ASSERT_DOUBLE_EQUAL(r.makespan, 150, 1e-9);
	CU_ASSERT_DOUBLE_EQUAL(r.bound, 140, 1e-9);
	CU_ASSERT_DOUBLE_EQUAL(r.util, 560.0 / 600, 1e-9);
	CU_ASSERT_DOUBLE_EQUAL(r.idle_wait, 0, 1e-9);
	CU_ASSERT_DOUBLE_EQUAL(r.ftf_max, rho2, 1e-9);
	CU_ASSERT_DOUBLE_EQUAL(r.ftf_jain, (rho1 + rho2) * (rho1 + rho2) /
				(2 * (rho1 * rho1 + rho2 * rho2)), 1e-9);
	CU_ASSERT_EQUAL(r.preemptions, 0);
	rpl_result_release(&r);
}

/*
 * FIFO against EASY: J1 (2 GPUs, 100 s), J2 (4 GPUs, 10 s), J3 (1 GPU,
 * 10 s), all at 0.  FIFO: J2 blocks J3 while 2 GPUs idle for 100 s
 * (200 GPU-s idle while J3, which fits, waits); J2 runs 100-110, J3
 * 110-120: JCTs 100, 110, 120.  EASY backfills J3 at 0 (its limit, 20,
 * ends before J2's reservation at 200): JCTs 100, 110, 10, and only J2,
 * which fits nowhere, waits.
 */
static void test_fifo_idle_wait(void)
{
	struct trc_job j[3] = {
		{ .runtime = 100, .limit = 200, .gpus = 2, .milli = 1000,
		  .user = 1 },
		{ .runtime = 10, .limit = 20, .gpus = 4, .milli = 1000,
		  .user = 1 },
		{ .runtime = 10, .limit = 20, .gpus = 1, .milli = 1000,
		  .user = 1 },
	};
	struct trc_trace t;
	struct rpl_result r;

	trace_of(&t, j, 3);
	run(SCH_FIFO, &t, &host4, 1, &r);
	CU_ASSERT_DOUBLE_EQUAL(r.jct.mean, 110, 1e-9);
	CU_ASSERT_DOUBLE_EQUAL(r.idle_wait, 200.0 / 3600, 1e-9);
	CU_ASSERT_DOUBLE_EQUAL(r.idle_wait_pct, 100 * 200.0 / (4 * 120), 1e-9);
	CU_ASSERT_DOUBLE_EQUAL(r.makespan, 120, 1e-9);
	rpl_result_release(&r);
	run(SCH_EASY, &t, &host4, 1, &r);
	CU_ASSERT_DOUBLE_EQUAL(r.jct.mean, 220.0 / 3, 1e-9);
	CU_ASSERT_DOUBLE_EQUAL(r.idle_wait, 0, 1e-9);
	CU_ASSERT_DOUBLE_EQUAL(r.makespan, 110, 1e-9);
	rpl_result_release(&r);
}

/*
 * Tiresias preempts and the replay resumes: J1 (1 GPU, 5000 s) alone
 * from 0; J2 (1 GPU, 100 s) at 10 waits in the same queue until J1 has
 * an hour of GPU time (3600) and drops a queue: J2 runs 3600-3700, J1
 * resumes with its 1400 s left and ends at 5100.  JCTs 5100 and 3690.
 * With a restart of 60 s J1 has 1400 + 60 s to go and ends at 5160.
 * srpt (no history: least attained first) lets J2 preempt J1 only once
 * J1's 1 x its run time exceeds 2 x J2's 0 plus J1's restart (60
 * GPU-s): at the first re-sort, 300 s; J2 runs 300-400, J1 ends at
 * 400 + 4700 + 60.  The arrivals span 0-10, one GPU busy throughout:
 * utilisation over them 100 %.  Mean run time (the floor of the mean
 * JCT) 2550.
 */
static void test_resume(void)
{
	static const struct sch_host h1 = { .gpus = 1 };
	struct trc_job j[2] = {
		{ .runtime = 5000, .gpus = 1, .milli = 1000, .user = 1 },
		{ .submit = 10, .runtime = 100, .gpus = 1, .milli = 1000,
		  .user = 2 },
	};
	struct trc_trace t;
	struct rpl_result r;

	trace_of(&t, j, 2);
	run(SCH_TIRESIAS, &t, &h1, 1, &r);
	CU_ASSERT_EQUAL(r.done, 2);
	CU_ASSERT_EQUAL(r.preemptions, 1);
	CU_ASSERT_DOUBLE_EQUAL(r.jct.mean, (5100 + 3690) / 2.0, 1e-6);
	CU_ASSERT_DOUBLE_EQUAL(r.makespan, 5100, 1e-6);
	rpl_result_release(&r);
	run_at(SCH_TIRESIAS, &t, &h1, 1, 60, &r);
	CU_ASSERT_EQUAL(r.preemptions, 1);
	CU_ASSERT_DOUBLE_EQUAL(r.jct.mean, (5160 + 3690) / 2.0, 1e-6);
	CU_ASSERT_DOUBLE_EQUAL(r.makespan, 5160, 1e-6);
	CU_ASSERT_DOUBLE_EQUAL(r.util_arrivals, 1, 1e-9);
	CU_ASSERT_DOUBLE_EQUAL(r.run_mean, 2550, 1e-9);
	rpl_result_release(&r);
	run_at(SCH_SRPT, &t, &h1, 1, 60, &r);
	CU_ASSERT_EQUAL(r.preemptions, 1);
	CU_ASSERT_DOUBLE_EQUAL(r.jct.mean, (5160 + 390) / 2.0, 1e-6);
	rpl_result_release(&r);
}

static void run_fails(const struct trc_trace *t, const struct sch_host *h,
		      size_t nh, const struct rpl_fail *f, size_t nf,
		      double ckpt, enum rpl_recover rec, struct rpl_result *r)
{
	struct rpl_opts o = { .trace = t, .hosts = h, .nhosts = nh,
			      .nlevels = 1, .policy = SCH_EASY,
			      .restart = 10, .fail = f, .nfail = nf,
			      .ckpt = ckpt, .recover = rec };
	char err[256];

	CU_ASSERT_EQUAL_FATAL(rpl_run(&o, r, err, sizeof(err)), 0);
}

/*
 * A host failure under EASY, two hosts of 4 GPUs, restart 10 s, no
 * checkpoints: J1 and J2 (4 GPUs, 100 s) start at 0, J1 on host 0 (the
 * first of equals).  Host 0 fails at 30: J1 is lost, no room elsewhere,
 * requeued at the head; its 30 s (120 GPU-s) are redone.  J3 (8 GPUs,
 * 10 s) arrives at 40 with host 0 down: it waits, as it fits once the
 * host is back.  At 80 host 0 is: J1 runs 80 + 100 + 10 = 190.  J2 ends
 * at 100, J3 runs 190-200.  JCTs 190, 100, 160 (mean 150); waits 90, 0,
 * 150 (mean 80).
 */
static void test_fail_requeue(void)
{
	static const struct sch_host h2[2] = { { .gpus = 4 }, { .gpus = 4 } };
	static const struct rpl_fail f[2] = { { 30, 0, false },
					      { 80, 0, true } };
	struct trc_job j[3] = {
		{ .runtime = 100, .limit = 200, .gpus = 4, .milli = 1000,
		  .user = 1 },
		{ .runtime = 100, .limit = 200, .gpus = 4, .milli = 1000,
		  .user = 1 },
		{ .submit = 40, .runtime = 10, .limit = 20, .gpus = 8,
		  .milli = 1000, .user = 2 },
	};
	struct trc_trace t;
	struct rpl_result r;

	trace_of(&t, j, 3);
	run_fails(&t, h2, 2, f, 2, 0, RPL_RECOVER_AUTO, &r);
	CU_ASSERT_EQUAL(r.done, 3);
	CU_ASSERT_EQUAL(r.refused, 0);
	CU_ASSERT_EQUAL(r.failures, 1);
	CU_ASSERT_EQUAL(r.jobs_hit, 1);
	CU_ASSERT_EQUAL(r.hits, 1);
	CU_ASSERT_EQUAL(r.requeued, 1);
	CU_ASSERT_EQUAL(r.replaced, 0);
	CU_ASSERT_DOUBLE_EQUAL(r.lost_gpuh, 120.0 / 3600, 1e-9);
	CU_ASSERT_DOUBLE_EQUAL(r.jct.mean, 150, 1e-9);
	CU_ASSERT_DOUBLE_EQUAL(r.jct.p99, 190, 1e-9);
	CU_ASSERT_DOUBLE_EQUAL(r.wait.mean, 80, 1e-9);
	CU_ASSERT_DOUBLE_EQUAL(r.makespan, 200, 1e-9);
	rpl_result_release(&r);
}

/*
 * Replaced: J1 (4 GPUs, 100 s) on host 0 and J2 (4 GPUs, 20 s) on host
 * 1 from 0; J2 ends at 20.  Host 0 fails at 30 for good: J1's GPUs are
 * replaced on host 1 at once; a checkpoint every 20 s of work kept 20 s,
 * 10 s (40 GPU-s) are lost, and it pays its restart of 10: it ends at
 * 30 + 80 + 10 = 120.  JCTs 120 and 20.  EASY as Slurm does it requeues
 * J1 instead, and it starts again at once on host 1: the same times.
 */
static void test_fail_replace(void)
{
	static const struct sch_host h2[2] = { { .gpus = 4 }, { .gpus = 4 } };
	static const struct rpl_fail f = { 30, 0, false };
	struct trc_job j[2] = {
		{ .runtime = 100, .limit = 200, .gpus = 4, .milli = 1000,
		  .user = 1 },
		{ .runtime = 20, .limit = 40, .gpus = 4, .milli = 1000,
		  .user = 1 },
	};
	struct trc_trace t;
	struct rpl_result r;

	trace_of(&t, j, 2);
	run_fails(&t, h2, 2, &f, 1, 20, RPL_RECOVER_REPLACE, &r);
	CU_ASSERT_EQUAL(r.done, 2);
	CU_ASSERT_EQUAL(r.jobs_hit, 1);
	CU_ASSERT_EQUAL(r.replaced, 1);
	CU_ASSERT_EQUAL(r.requeued, 0);
	CU_ASSERT_DOUBLE_EQUAL(r.lost_gpuh, 40.0 / 3600, 1e-9);
	CU_ASSERT_DOUBLE_EQUAL(r.jct.mean, 70, 1e-9);
	CU_ASSERT_DOUBLE_EQUAL(r.makespan, 120, 1e-9);
	rpl_result_release(&r);
	run_fails(&t, h2, 2, &f, 1, 20, RPL_RECOVER_AUTO, &r);
	CU_ASSERT_EQUAL(r.done, 2);
	CU_ASSERT_EQUAL(r.replaced, 0);
	CU_ASSERT_EQUAL(r.requeued, 1);
	CU_ASSERT_DOUBLE_EQUAL(r.lost_gpuh, 40.0 / 3600, 1e-9);
	CU_ASSERT_DOUBLE_EQUAL(r.jct.mean, 70, 1e-9);
	rpl_result_release(&r);
}

/*
 * Seeded failures: one job of 1000 s on two hosts failing every 100 s
 * on average, down 10 s, a checkpoint every 50 s.  Hit for sure (no
 * failure on its host for 1000 s: e^-10), it finishes, the same way
 * twice from one seed; each hit loses under 50 s of its one GPU.
 */
static void test_fail_mtbf(void)
{
	static const struct sch_host h2[2] = { { .gpus = 1 }, { .gpus = 1 } };
	struct trc_job j = { .runtime = 1000, .limit = 2000, .gpus = 1,
			     .milli = 1000, .user = 1 };
	struct rpl_opts o = { .hosts = h2, .nhosts = 2, .nlevels = 1,
			      .policy = SCH_EASY, .mtbf = 100, .repair = 10,
			      .ckpt = 50, .seed = 3 };
	struct rpl_result a, b;
	struct trc_trace t;
	char err[256];

	trace_of(&t, &j, 1);
	o.trace = &t;
	CU_ASSERT_EQUAL_FATAL(rpl_run(&o, &a, err, sizeof(err)), 0);
	CU_ASSERT_EQUAL_FATAL(rpl_run(&o, &b, err, sizeof(err)), 0);
	CU_ASSERT_EQUAL(a.done, 1);
	CU_ASSERT(a.failures >= a.hits && a.hits > 0);
	CU_ASSERT_EQUAL(a.hits, a.replaced + a.requeued);
	CU_ASSERT(a.lost_gpuh > 0 && a.lost_gpuh < a.hits * 50.0 / 3600);
	CU_ASSERT(a.jct.mean > 1000);
	CU_ASSERT_EQUAL(a.failures, b.failures);
	CU_ASSERT_EQUAL(a.hits, b.hits);
	CU_ASSERT_DOUBLE_EQUAL(a.jct.mean, b.jct.mean, 1e-9);
	rpl_result_release(&a);
	rpl_result_release(&b);
}

/*
 * RDMA bandwidth alone holds no GPU: a failure that hits it loses no
 * GPU-hours (before, such a job counted as one GPU).  One host, one HCA;
 * the job (50 % of the HCA, 100 s) is hit at 30 and requeued.
 */
static void test_fail_no_gpu(void)
{
	static const struct sch_host h1 = { .rails = 1, .nic = 100 };
	static const struct rpl_fail f[2] = { { 30, 0, false },
					      { 40, 0, true } };
	struct trc_job j = { .runtime = 100, .limit = 200, .milli = 1000,
			     .rdma = 50, .user = 1 };
	struct trc_trace t;
	struct rpl_result r;

	trace_of(&t, &j, 1);
	run_fails(&t, &h1, 1, f, 2, 0, RPL_RECOVER_AUTO, &r);
	CU_ASSERT_EQUAL(r.done, 1);
	CU_ASSERT_EQUAL(r.jobs_hit, 1);
	CU_ASSERT_DOUBLE_EQUAL(r.lost_gpuh, 0, 1e-12);
	rpl_result_release(&r);
}

/*
 * A job no host can take (more CPU than any has) waits for good; with
 * seeded failures on 32 hosts, each down most of the time, some host is
 * nearly always down.  The replay still ends once the other job is
 * done: no failure is drawn while nothing runs and nothing is left to
 * arrive (before, it ran on while any host was down).
 */
static void test_fail_quiet_end(void)
{
	struct sch_host h[32];
	struct trc_job j[2] = {
		{ .runtime = 100, .limit = 200, .gpus = 1, .milli = 1000,
		  .user = 1, .cpu = 500 },
		{ .submit = 1, .runtime = 100, .limit = 200, .gpus = 1,
		  .milli = 1000, .user = 2, .cpu = 5000 },
	};
	struct rpl_opts o = { .hosts = h, .nhosts = 32, .nlevels = 1,
			      .policy = SCH_EASY, .mtbf = 1000,
			      .repair = 10000, .ckpt = 50, .seed = 5 };
	struct trc_trace t;
	struct rpl_result r;
	char err[256];
	size_t i;

	for (i = 0; i < 32; i++)
		h[i] = (struct sch_host){ .gpus = 1, .cpu = 1000 };
	trace_of(&t, j, 2);
	o.trace = &t;
	CU_ASSERT_EQUAL_FATAL(rpl_run(&o, &r, err, sizeof(err)), 0);
	CU_ASSERT_EQUAL(r.done, 1);
	rpl_result_release(&r);
}

/*
 * A host a script takes down for good stays down, whatever its seeded
 * failures do: an 8-GPU job on two hosts of 4 never starts once host 0
 * is scripted down at 0 (before, a seeded repair brought it back).
 */
static void test_fail_script_holds(void)
{
	static const struct sch_host h2[2] = { { .gpus = 4 }, { .gpus = 4 } };
	static const struct rpl_fail f = { 0, 0, false };
	struct trc_job j = { .submit = 1, .runtime = 10, .limit = 20,
			     .gpus = 8, .milli = 1000, .user = 1 };
	struct rpl_opts o = { .hosts = h2, .nhosts = 2, .nlevels = 1,
			      .policy = SCH_EASY, .mtbf = 5, .repair = 5,
			      .fail = &f, .nfail = 1, .seed = 7 };
	struct trc_trace t;
	struct rpl_result r;
	char err[256];

	trace_of(&t, &j, 1);
	o.trace = &t;
	CU_ASSERT_EQUAL_FATAL(rpl_run(&o, &r, err, sizeof(err)), 0);
	CU_ASSERT_EQUAL(r.done, 0);
	rpl_result_release(&r);
}

struct arrivals {
	unsigned int n, gpus;
};

static void count_arrival(void *ctx, const struct sch_req *r)
{
	struct arrivals *a = ctx;

	a->n++;
	a->gpus += r->gpus;
}

/*
 * FGD's measure on two hosts of 2 GPUs: 1 GPU goes to host 0, 2 GPUs to
 * host 1, the next 2 GPUs fit nowhere (refused): 5 GPUs have arrived for
 * 4 (three requests, the refused one too), and one is unallocated (25 %).
 */
static void test_frag(void)
{
	static const struct sch_host h2[2] = { { .gpus = 2 }, { .gpus = 2 } };
	struct trc_job j[4] = {
		{ .gpus = 1, .milli = 1000, .runtime = 9 },
		{ .submit = 1, .gpus = 2, .milli = 1000, .runtime = 9 },
		{ .submit = 2, .gpus = 2, .milli = 1000, .runtime = 9 },
		{ .submit = 3, .gpus = 1, .milli = 1000, .runtime = 9 },
	};
	struct arrivals a = { 0 };
	struct rpl_opts o = { .hosts = h2, .nhosts = 2, .nlevels = 1,
			      .policy = SCH_BESTFIT, .arrive = count_arrival,
			      .arrive_ctx = &a };
	struct trc_trace t;
	double un = 0;
	size_t refused = 0;
	char err[256];

	trace_of(&t, j, 4);
	o.trace = &t;
	CU_ASSERT_EQUAL(rpl_frag(&o, &un, &refused, err, sizeof(err)), 0);
	CU_ASSERT_DOUBLE_EQUAL(un, 25, 1e-9);
	CU_ASSERT_EQUAL(refused, 1);
	CU_ASSERT_EQUAL(a.n, 3);
	CU_ASSERT_EQUAL(a.gpus, 5);
}

/*
 * CPU in FGD's measure: two hosts of 2 GPUs and 8 cores; in trace order
 * a CPU-only pod takes all of host 0's cores (best fit: the hosts tie,
 * the first), so of the four 1-GPU pods of a core each host 1 takes two
 * and two are refused: 4 GPUs arrived for 4, 2 unallocated (50 %).  A
 * seeded shuffle gives the same figures twice.
 */
static void test_frag_cpu(void)
{
	static const struct sch_host h2[2] = {
		{ .gpus = 2, .cpu = 8000 }, { .gpus = 2, .cpu = 8000 },
	};
	struct trc_job j[5] = {
		{ .milli = 1000, .cpu = 8000 },
		{ .gpus = 1, .milli = 1000, .cpu = 1000 },
		{ .gpus = 1, .milli = 1000, .cpu = 1000 },
		{ .gpus = 1, .milli = 1000, .cpu = 1000 },
		{ .gpus = 1, .milli = 1000, .cpu = 1000 },
	};
	struct rpl_opts o = { .hosts = h2, .nhosts = 2, .nlevels = 1,
			      .policy = SCH_BESTFIT };
	struct trc_trace t;
	double un = 0, un2 = 0;
	size_t refused = 0, refused2 = 0;
	char err[256];

	trace_of(&t, j, 5);
	o.trace = &t;
	CU_ASSERT_EQUAL(rpl_frag(&o, &un, &refused, err, sizeof(err)), 0);
	CU_ASSERT_DOUBLE_EQUAL(un, 50, 1e-9);
	CU_ASSERT_EQUAL(refused, 2);
	o.seed = 7;
	CU_ASSERT_EQUAL(rpl_frag(&o, &un, &refused, err, sizeof(err)), 0);
	CU_ASSERT_EQUAL(rpl_frag(&o, &un2, &refused2, err, sizeof(err)), 0);
	CU_ASSERT_DOUBLE_EQUAL(un, un2, 1e-9);
	CU_ASSERT_EQUAL(refused, refused2);
}

TU_SUITE(replay,
	 { "easy by hand", test_easy_by_hand },
	 { "fifo idles while a fitting job waits", test_fifo_idle_wait },
	 { "preempted work resumes, its restart charged", test_resume },
	 { "fragmentation at capacity", test_frag },
	 { "fragmentation with CPU", test_frag_cpu },
	 { "a failed host's job requeued, work redone",
	   test_fail_requeue },
	 { "a failed host's job replaced from its checkpoint",
	   test_fail_replace },
	 { "seeded failures, the same twice", test_fail_mtbf },
	 { "failures: RDMA alone loses no GPU-hours", test_fail_no_gpu },
	 { "failures: the run ends when nothing can start", test_fail_quiet_end },
	 { "failures: a scripted down holds", test_fail_script_holds })
