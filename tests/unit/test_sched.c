// SPDX-License-Identifier: MIT
/*
 * The scheduler core on small clusters whose schedules are worked out by
 * hand: each test says what must happen and why.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "tu.h"
#include "tools/lib/pool/sched.h"

/*
 * Hosts of gpus GPUs, per_leaf to a leaf, per_pod leaves to a pod, one
 * tree above (three levels).
 */
static struct sch *cluster(enum sch_policy p, size_t n, unsigned int gpus,
			   unsigned int per_leaf, unsigned int per_pod,
			   void (*tweak)(struct sch_config *))
{
	struct sch_host h[16];
	struct sch_config c;
	struct sch *s = NULL;
	size_t i;

	CU_ASSERT_FATAL(n <= 16);
	for (i = 0; i < n; i++)
		h[i] = (struct sch_host){
			.gpus = gpus, .rails = 1, .nic = 100,
			.lvl = { i / per_leaf, i / per_leaf / per_pod, 0 },
		};
	sch_config_default(&c, p);
	c.nlevels = 3;
	if (tweak)
		tweak(&c);
	CU_ASSERT_EQUAL_FATAL(sch_new(h, n, &c, &s), 0);
	return s;
}

static uint64_t submit(struct sch *s, double t, unsigned int gpus,
		       unsigned int milli, double limit)
{
	struct sch_req r = { .gpus = gpus, .milli = milli, .limit = limit,
			     .runtime = limit };
	uint64_t k = 0;

	CU_ASSERT_EQUAL_FATAL(sch_submit(s, &r, t, &k), 0);
	return k;
}

static uint64_t submit_req(struct sch *s, double t, const struct sch_req *r)
{
	uint64_t k = 0;

	CU_ASSERT_EQUAL_FATAL(sch_submit(s, r, t, &k), 0);
	return k;
}

/*
 * Step at t and spell the decisions: S<ticket>[host.gpu ...] starts
 * (host/rail for NIC share alone), N<ticket>@deadline notices, P
 * preempted, L lost, R<ticket>[...] replaced, Q requeued;
 * space-separated.
 */
static const char *step(struct sch *s, double t)
{
	static char out[512];
	const struct sch_dec *d;
	size_t n, i, k, at = 0;

	CU_ASSERT_EQUAL_FATAL(sch_step(s, t, &d, &n), 0);
	out[0] = '\0';
	for (i = 0; i < n; i++) {
		static const char act[] = "SNPLRQ";

		at += snprintf(out + at, sizeof(out) - at, "%s%c%llu",
			       i ? " " : "", act[d[i].act],
			       (unsigned long long)d[i].ticket);
		if (d[i].act == SCH_NOTICE)
			at += snprintf(out + at, sizeof(out) - at, "@%g",
				       d[i].deadline);
		if (!d[i].nslots)
			continue;
		at += snprintf(out + at, sizeof(out) - at, "[");
		for (k = 0; k < d[i].nslots; k++) {
			const struct sch_slot *x = &d[i].slot[k];
			bool nic = x->gpu == SCH_NO_GPU;

			at += snprintf(out + at, sizeof(out) - at, "%s%u%c%u",
				       k ? " " : "", x->host, nic ? '/' : '.',
				       nic ? x->rail : x->gpu);
		}
		at += snprintf(out + at, sizeof(out) - at, "]");
	}
	return out;
}

/*
 * EASY: A holds host 0 until 100; gang B (both hosts) is the head and
 * reserves both hosts at 100.  C fits on host 1 now but its limit runs
 * past 100: it would delay B, so it waits.  D ends by 50: it backfills.
 */
static void test_backfill(void)
{
	struct sch *s = cluster(SCH_EASY, 2, 4, 2, 1, NULL);

	submit(s, 0, 4, 0, 100);	/* A */
	submit(s, 0, 8, 0, 100);	/* B */
	submit(s, 0, 2, 0, 200);	/* C */
	submit(s, 0, 2, 0, 50);		/* D */
	CU_ASSERT_STRING_EQUAL(step(s, 0), "S1[0.0 0.1 0.2 0.3] S4[1.0 1.1]");
	CU_ASSERT_EQUAL(sch_finish(s, 4, 50), 0);
	CU_ASSERT_STRING_EQUAL(step(s, 50), "");
	CU_ASSERT_EQUAL(sch_finish(s, 1, 100), 0);
	CU_ASSERT_STRING_EQUAL(step(s, 100),
			       "S2[0.0 0.1 0.2 0.3 1.0 1.1 1.2 1.3]");
	CU_ASSERT_EQUAL(sch_finish(s, 2, 150), 0);
	CU_ASSERT_STRING_EQUAL(step(s, 150), "S3[0.0 0.1]");
	sch_free(s);
}

/* fifo: the head blocks; D, which EASY backfills, waits. */
static void test_fifo(void)
{
	struct sch *s = cluster(SCH_FIFO, 2, 4, 2, 1, NULL);

	submit(s, 0, 4, 0, 100);
	submit(s, 0, 8, 0, 100);
	submit(s, 0, 2, 0, 50);
	CU_ASSERT_STRING_EQUAL(step(s, 0), "S1[0.0 0.1 0.2 0.3]");
	sch_finish(s, 1, 100);
	CU_ASSERT_STRING_EQUAL(step(s, 100),
			       "S2[0.0 0.1 0.2 0.3 1.0 1.1 1.2 1.3]");
	sch_free(s);
}

static void grace30(struct sch_config *c)
{
	c->grace = 30;
}

/*
 * Class preemption with grace: best-effort L holds the host; H (class 2)
 * arrives at 10: L gets a notice for 40, keeps running until then, and
 * H starts when L stops.  A best-effort job never preempts H.
 */
static void test_preempt_grace(void)
{
	struct sch *s = cluster(SCH_PRIORITY, 1, 4, 1, 1, grace30);
	struct sch_req lo = { .gpus = 4, .cls = 0, .limit = 1000 };
	struct sch_req hi = { .gpus = 2, .cls = 2, .limit = 1000 };
	struct sch_info in;

	submit_req(s, 0, &lo);
	CU_ASSERT_STRING_EQUAL(step(s, 0), "S1[0.0 0.1 0.2 0.3]");
	submit_req(s, 10, &hi);
	CU_ASSERT_STRING_EQUAL(step(s, 10), "N1@40");
	CU_ASSERT_DOUBLE_EQUAL(sch_next(s, 10), 40, 1e-9);
	CU_ASSERT_STRING_EQUAL(step(s, 20), "");
	CU_ASSERT_STRING_EQUAL(step(s, 40), "P1 S2[0.0 0.1]");
	CU_ASSERT_EQUAL(sch_info(s, 1, &in), 0);
	CU_ASSERT(in.queued);
	CU_ASSERT_EQUAL(in.preemptions, 1);
	CU_ASSERT_DOUBLE_EQUAL(in.attained, 4 * 40, 1e-9);
	/* a lower class never preempts: the BE job waits for H */
	submit_req(s, 41, &lo);
	CU_ASSERT_STRING_EQUAL(step(s, 41), "");
	sch_finish(s, 2, 50);
	CU_ASSERT_STRING_EQUAL(step(s, 50), "S1[0.0 0.1 0.2 0.3]");
	sch_free(s);
}

static const uint64_t quota[2] = { 4000, 4000 };

static void quota4(struct sch_config *c)
{
	c->quota = quota;
	c->ngroups = 2;
	c->grace = 10;
}

/*
 * Quotas of 4 GPUs per group on one 8-GPU host.  Group 1 borrows the
 * idle half; group 0 then asks for its own 4: group 1's job is noticed
 * and stopped, group 0's starts.  Group 0 asking beyond its quota
 * reclaims nothing.
 */
static void test_quota(void)
{
	struct sch *s = cluster(SCH_EASY, 1, 8, 1, 1, quota4);
	struct sch_req b = { .gpus = 8, .group = 1, .limit = 1000 };
	struct sch_req a = { .gpus = 4, .group = 0, .limit = 1000 };
	struct sch_req big = { .gpus = 6, .group = 0, .limit = 1000 };

	submit_req(s, 0, &b);
	CU_ASSERT_STRING_EQUAL(step(s, 0), "S1[0.0 0.1 0.2 0.3 0.4 0.5 0.6 0.7]");
	submit_req(s, 5, &big);
	CU_ASSERT_STRING_EQUAL(step(s, 5), "");
	sch_cancel(s, 2, 6);
	submit_req(s, 6, &a);
	CU_ASSERT_STRING_EQUAL(step(s, 6), "N1@16");
	CU_ASSERT_STRING_EQUAL(step(s, 16), "P1 S3[0.0 0.1 0.2 0.3]");
	/* group 1's job waits for the whole host again */
	CU_ASSERT_STRING_EQUAL(step(s, 17), "");
	sch_free(s);
}

static const uint64_t borrow2[2] = { 2000, UINT64_MAX };
static const uint64_t lend2[2] = { UINT64_MAX, 2000 };

static void borrow_limit(struct sch_config *c)
{
	quota4(c);
	c->borrow = borrow2;
}

static void lend_limit(struct sch_config *c)
{
	quota4(c);
	c->lend = lend2;
}

/* Group 0 asks four jobs of 2 GPUs at 0. */
static void four_twos(struct sch *s)
{
	struct sch_req a = { .gpus = 2, .group = 0, .limit = 1000 };
	int i;

	for (i = 0; i < 4; i++)
		submit_req(s, 0, &a);
}

/*
 * Under a limit, three of four_twos() start at 0 and the fourth waits;
 * group 1's job of one GPU, behind it, starts at 1.
 */
static void three_start(struct sch *s)
{
	struct sch_req b = { .gpus = 1, .group = 1, .limit = 1000 };

	four_twos(s);
	CU_ASSERT_STRING_EQUAL(step(s, 0), "S1[0.0 0.1] S2[0.2 0.3] S3[0.4 0.5]");
	submit_req(s, 1, &b);
	CU_ASSERT_STRING_EQUAL(step(s, 1), "S5[0.6]");
}

/*
 * Kueue's borrowingLimit: quotas of 4 GPUs on one 8-GPU host, group 0
 * may borrow 2.  Of its four jobs of 2 GPUs three start (4 its own, 2
 * borrowed); the fourth would borrow 4 and waits without blocking
 * group 1's job behind it.  When job 1 ends, group 0 borrows 2 again:
 * the fourth starts.  Without the limit all four start at once.
 */
static void test_borrow_limit(void)
{
	struct sch *s = cluster(SCH_EASY, 1, 8, 1, 1, borrow_limit);

	three_start(s);
	sch_finish(s, 1, 100);
	CU_ASSERT_STRING_EQUAL(step(s, 100), "S4[0.0 0.1]");
	sch_free(s);
	s = cluster(SCH_EASY, 1, 8, 1, 1, quota4);
	four_twos(s);
	CU_ASSERT_STRING_EQUAL(step(s, 0),
			       "S1[0.0 0.1] S2[0.2 0.3] S3[0.4 0.5] S4[0.6 0.7]");
	sch_free(s);
}

/*
 * Kueue's lendingLimit: group 1 lends at most 2 of its 4 GPUs.  Group
 * 0's third job borrows those 2; its fourth would take 2 more of group
 * 1's idle quota and waits, so group 1's job starts on them at 1.  When
 * group 1 asks for 2 GPUs more (its quota: 4), the borrowed job 3 is
 * noticed and stopped after its grace, and group 1's runs there: job 4,
 * ahead in the queue, does not borrow what group 1 reclaims.
 */
static void test_lend_limit(void)
{
	struct sch *s = cluster(SCH_EASY, 1, 8, 1, 1, lend_limit);
	struct sch_req b2 = { .gpus = 2, .group = 1, .limit = 1000 };

	three_start(s);
	submit_req(s, 2, &b2);
	CU_ASSERT_STRING_EQUAL(step(s, 2), "N3@12");
	CU_ASSERT_STRING_EQUAL(step(s, 12), "P3 S6[0.4 0.5]");
	CU_ASSERT_STRING_EQUAL(step(s, 13), "");
	sch_free(s);
}

static void halflife100(struct sch_config *c)
{
	c->fair_halflife = 100;
	c->w_age = 0;
	c->w_size = 0;
}

/*
 * Fair share: user 1 ran 2 GPUs for 50 s (100 GPU-seconds); with a
 * half-life of 100 s that is 50 at 150 and 12.5 at 350.  Then users 1
 * and 2 ask alike: user 2, who used nothing, goes first.
 */
static void test_fairshare(void)
{
	struct sch *s = cluster(SCH_PRIORITY, 1, 2, 1, 1, halflife100);
	struct sch_req r1 = { .user = 1, .gpus = 2, .limit = 100 };
	struct sch_req r2 = { .user = 2, .gpus = 2, .limit = 100 };

	submit_req(s, 0, &r1);
	CU_ASSERT_STRING_EQUAL(step(s, 0), "S1[0.0 0.1]");
	sch_finish(s, 1, 50);
	CU_ASSERT_DOUBLE_EQUAL(sch_usage(s, 1, 50), 100, 1e-9);
	CU_ASSERT_DOUBLE_EQUAL(sch_usage(s, 1, 150), 50, 1e-9);
	CU_ASSERT_DOUBLE_EQUAL(sch_usage(s, 1, 350), 12.5, 1e-9);
	CU_ASSERT_DOUBLE_EQUAL(sch_usage(s, 2, 350), 0, 1e-9);
	submit_req(s, 60, &r1);
	submit_req(s, 60, &r2);
	CU_ASSERT_STRING_EQUAL(step(s, 60), "S3[0.0 0.1]");
	sch_free(s);
}

static void las100(struct sch_config *c)
{
	c->las_thresh[0] = 100;
	c->las_thresh[1] = 1000;
}

/*
 * Tiresias: A runs alone from 0; B arrives at 50, both in the first
 * queue, so B waits (no run time is known, none preempts its peer).  At
 * 100 A has 100 GPU-seconds and drops to the second queue: B preempts
 * it at once.
 */
static void test_tiresias(void)
{
	struct sch *s = cluster(SCH_TIRESIAS, 1, 1, 1, 1, las100);
	struct sch_info in;

	submit(s, 0, 1, 0, 0);
	CU_ASSERT_STRING_EQUAL(step(s, 0), "S1[0.0]");
	submit(s, 50, 1, 0, 0);
	CU_ASSERT_STRING_EQUAL(step(s, 50), "");
	CU_ASSERT_DOUBLE_EQUAL(sch_next(s, 50), 100, 1e-9);
	CU_ASSERT_STRING_EQUAL(step(s, 100), "P1 S2[0.0]");
	CU_ASSERT_EQUAL(sch_info(s, 1, &in), 0);
	CU_ASSERT_DOUBLE_EQUAL(in.attained, 100, 1e-9);
	/* B reaches 100 too at 200: both in queue 1, A (earlier) first */
	CU_ASSERT_DOUBLE_EQUAL(sch_next(s, 100), 200, 1e-9);
	CU_ASSERT_STRING_EQUAL(step(s, 200), "");
	sch_free(s);
}

/*
 * Placement: 8 hosts of 8 GPUs, 2 to a leaf, 2 leaves to a pod.  With
 * one GPU taken on host 0, a 16-GPU job goes to leaf 1 (one leaf,
 * level 0), where first fit takes hosts 1 and 2 across two leaves.  An
 * 8-GPU job then takes host 1 (best fit, the leaf already in use), and a
 * 24-GPU job fits no leaf: only pod 1 holds three free hosts; it fills
 * leaf 2 and takes the first host of leaf 3 (level 1).
 */
static void test_placement(void)
{
	struct sch *s = cluster(SCH_EASY, 8, 8, 2, 2, NULL);
	struct sch_req j16 = { .gpus = 16 };
	uint32_t h[8];
	unsigned int lvl;

	submit(s, 0, 1, 0, 10);
	CU_ASSERT_STRING_EQUAL(step(s, 0), "S1[0.0]");
	CU_ASSERT_EQUAL(sch_preview(s, &j16, SCH_PLACE_FIRST, h, 8, &lvl), 2);
	CU_ASSERT(h[0] == 1 && h[1] == 2 && lvl == 1);
	CU_ASSERT_EQUAL(sch_preview(s, &j16, SCH_PLACE_TREE, h, 8, &lvl), 2);
	CU_ASSERT(h[0] == 2 && h[1] == 3 && lvl == 0);
	submit(s, 1, 8, 0, 10);
	submit(s, 1, 24, 0, 10);
	CU_ASSERT_STRING_EQUAL(step(s, 1),
			       "S2[1.0 1.1 1.2 1.3 1.4 1.5 1.6 1.7] "
			       "S3[4.0 4.1 4.2 4.3 4.4 4.5 4.6 4.7 5.0 5.1 5.2 5.3 5.4 5.5 5.6 5.7 6.0 6.1 6.2 6.3 6.4 6.5 6.6 6.7]");
	sch_free(s);
}

/* 16 hosts of 8 GPUs: leaves of 2 hosts, pods of 4 leaves, one tree. */
static struct sch *tree16(void (*tweak)(struct sch_config *))
{
	return cluster(SCH_EASY, 16, 8, 2, 4, tweak);
}

/* Hold a request of hosts x gpus GPUs on hosts h[], whole hosts. */
static void hold(struct sch *s, const uint32_t *h, unsigned int hosts,
		 unsigned int gpus, double limit)
{
	struct sch_req r = { .gpus = hosts * gpus, .limit = limit,
			     .hosts = hosts > 1 ? hosts : 0,
			     .per_host = hosts > 1 ? gpus : 0 };
	struct sch_slot sl[64];
	unsigned int i, g, n = 0;
	uint64_t k;

	for (i = 0; i < hosts; i++)
		for (g = 0; g < gpus; g++)
			sl[n++] = (struct sch_slot){ .host = h[i],
						     .gpu = (uint16_t)g,
						     .milli = SCH_MILLI };
	CU_ASSERT_EQUAL_FATAL(sch_hold(s, &r, sl, n, 0, &k), 0);
}

/*
 * Pod 0 holds hosts 1 and 2 (leaves 0 and 1), pod 1 hosts 4-7 free:
 * a gang of 3 hosts has room only in pod 1 (first fit would take 0, 3
 * and 4, across both pods).  Pod 1's leaves of 2 free hosts take none
 * of it alone: the first leaf whole, then one host of the other.
 */
static void test_gang_pod(void)
{
	struct sch *s = cluster(SCH_EASY, 8, 8, 2, 2, NULL);
	struct sch_req g3 = { .gpus = 24 };
	static const uint32_t busy[] = { 1, 2 };
	uint32_t h[8];
	unsigned int lvl;

	hold(s, busy, 1, 8, 100);
	hold(s, busy + 1, 1, 8, 100);
	CU_ASSERT_EQUAL(sch_preview(s, &g3, SCH_PLACE_FIRST, h, 8, &lvl), 3);
	CU_ASSERT(h[0] == 0 && h[1] == 3 && h[2] == 4 && lvl == 2);
	CU_ASSERT_EQUAL(sch_preview(s, &g3, SCH_PLACE_TREE, h, 8, &lvl), 3);
	CU_ASSERT(h[0] == 4 && h[1] == 5 && h[2] == 6 && lvl == 1);
	sch_free(s);
}

/*
 * Both pods have 6 free hosts in the same shape (leaves of 2, 1, 1, 2
 * free) but a running gang spans leaves 1 and 2 of pod 0, so their
 * uplinks carry its traffic; single-host jobs hold hosts 10 and 12 of
 * pod 1.  A gang of 3 hosts fits neither leaf: it goes to pod 1, whose
 * half-free leaves' uplinks nobody loads (best fit alone, on a tie of
 * free hosts, would take pod 0).
 */
static void test_gang_links(void)
{
	struct sch *s = tree16(NULL);
	static const uint32_t gang[] = { 2, 4 }, one[] = { 10, 12 };
	struct sch_req g3 = { .gpus = 24 };
	uint32_t h[8];
	unsigned int lvl;

	hold(s, gang, 2, 8, 100);
	hold(s, one, 1, 8, 100);
	hold(s, one + 1, 1, 8, 100);
	CU_ASSERT_EQUAL(sch_preview(s, &g3, SCH_PLACE_TREE, h, 8, &lvl), 3);
	CU_ASSERT(h[0] == 8 && h[1] == 9 && h[2] == 11 && lvl == 1);
	sch_free(s);
}

static void wait_200(struct sch_config *c)
{
	c->gang_wait = 200;
}

static void wait_50(struct sch_config *c)
{
	c->gang_wait = 50;
}

/*
 * Pod 0 (hosts 0-3) runs a job on host 0 until 100 (its limit), pod 1
 * (4-7) jobs on 4-6 until 1000.  A gang of 4 hosts fits now only across
 * both pods (1-3 and 7); at 100 pod 0 holds it.  The count model: now
 * 4 (leaves 0, 1, 3 and both pods crossed), in pod 0 3; the gain, its
 * 1000 s limit x 1, pays for the 100 s.  With gang_wait 200 it waits:
 * when host 0 frees at 100 it takes pod 0; when it does not, the wait
 * expires at 200 and it starts across the pods.  With gang_wait 50 the
 * 100 s wait is out of bounds: it starts at once.
 */
static void test_gang_wait(void)
{
	static const uint32_t busy[] = { 0, 4, 5, 6 };
	const char *across = "S5[1.0 1.1 1.2 1.3 1.4 1.5 1.6 1.7 "
			     "2.0 2.1 2.2 2.3 2.4 2.5 2.6 2.7 "
			     "3.0 3.1 3.2 3.3 3.4 3.5 3.6 3.7 "
			     "7.0 7.1 7.2 7.3 7.4 7.5 7.6 7.7]";
	struct sch_info in;
	struct sch *s;
	int run;

	for (run = 0; run < 3; run++) {
		s = cluster(SCH_EASY, 8, 8, 2, 2, run < 2 ? wait_200 : wait_50);
		hold(s, busy, 1, 8, 100);
		hold(s, busy + 1, 1, 8, 1000);
		hold(s, busy + 2, 1, 8, 1000);
		hold(s, busy + 3, 1, 8, 1000);
		submit(s, 0, 32, 0, 1000);
		if (run == 2) {
			CU_ASSERT_STRING_EQUAL(step(s, 0), across);
			sch_free(s);
			continue;
		}
		CU_ASSERT_STRING_EQUAL(step(s, 0), "");
		CU_ASSERT_EQUAL(sch_next(s, 0), 200);
		if (run == 0) {
			CU_ASSERT_EQUAL(sch_finish(s, 1, 100), 0);
			CU_ASSERT_STRING_EQUAL(step(s, 100),
				"S5[0.0 0.1 0.2 0.3 0.4 0.5 0.6 0.7 "
				"1.0 1.1 1.2 1.3 1.4 1.5 1.6 1.7 "
				"2.0 2.1 2.2 2.3 2.4 2.5 2.6 2.7 "
				"3.0 3.1 3.2 3.3 3.4 3.5 3.6 3.7]");
		} else {
			CU_ASSERT_STRING_EQUAL(step(s, 150), "");
			CU_ASSERT_STRING_EQUAL(step(s, 200), across);
		}
		CU_ASSERT_EQUAL(sch_info(s, 5, &in), 0);
		CU_ASSERT_EQUAL(in.gang_expired, run == 1);
		CU_ASSERT_EQUAL(in.gang_waited, run ? 200 : 100);
		CU_ASSERT_EQUAL(in.level, run ? 2 : 1);
		sch_free(s);
	}
}

/*
 * Packing a share of 500 when host 0's GPU 0 has 600 free (a 400 share
 * runs there): best fit takes it (100 left, useless to both shapes
 * seen); FGD takes GPU 1, which adds no fragmentation.
 */
static void test_fgd(void)
{
	enum sch_policy p[2] = { SCH_BESTFIT, SCH_FGD };
	const char *want[2] = { "S2[0.0]", "S2[0.1]" };
	int i;

	for (i = 0; i < 2; i++) {
		struct sch *s = cluster(p[i], 2, 2, 2, 1, NULL);

		submit(s, 0, 0, 400, 10);
		CU_ASSERT_STRING_EQUAL(step(s, 0), "S1[0.0]");
		submit(s, 1, 0, 500, 10);
		CU_ASSERT_STRING_EQUAL(step(s, 1), want[i]);
		sch_free(s);
	}
}

/*
 * As test_fgd(), FGD told to expect shares of 100 only: every GPU serves
 * them before and after either choice (+0 each), so best fit breaks the
 * tie and takes GPU 0; the 400 and 500 submitted are not counted.
 */
static void test_fgd_expect(void)
{
	struct sch *s = cluster(SCH_FGD, 2, 2, 2, 1, NULL);
	struct sch_req r = { .milli = 100 };

	sch_expect(s, &r);
	sch_expect_end(s, 100);
	submit(s, 0, 0, 400, 10);
	CU_ASSERT_STRING_EQUAL(step(s, 0), "S1[0.0]");
	submit(s, 1, 0, 500, 10);
	CU_ASSERT_STRING_EQUAL(step(s, 1), "S2[0.0]");
	sch_free(s);
}

/*
 * Prediction: user 3's job "train" ran 100 s once, "eval" 10 s; their
 * next ones are predicted so, and the shorter predicted goes first
 * although it came later.
 */
static void test_predicted(void)
{
	struct sch *s = cluster(SCH_PREDICTED, 1, 1, 1, 1, NULL);
	struct sch_req tr = { .user = 3, .gpus = 1, .name = "train" };
	struct sch_req ev = { .user = 3, .gpus = 1, .name = "eval" };
	struct sch_info in;

	submit_req(s, 0, &tr);
	CU_ASSERT_STRING_EQUAL(step(s, 0), "S1[0.0]");
	sch_finish(s, 1, 100);
	submit_req(s, 100, &ev);
	CU_ASSERT_STRING_EQUAL(step(s, 100), "S2[0.0]");
	sch_finish(s, 2, 110);
	submit_req(s, 110, &tr);
	submit_req(s, 110, &ev);
	CU_ASSERT_EQUAL(sch_info(s, 3, &in), 0);
	CU_ASSERT_DOUBLE_EQUAL(in.predicted, 100, 1e-6);
	CU_ASSERT_STRING_EQUAL(step(s, 110), "S4[0.0]");
	sch_free(s);
}

static const struct sch_req lg = { .user = 3, .gpus = 1, .name = "long" };
static const struct sch_req sh = { .user = 3, .gpus = 1, .name = "short" };

/*
 * User 3's history on an idle GPU: "long" ran 1000 s from 0, "short"
 * 10 s from 1000 (tickets 1 and 2).
 */
static void srpt_history(struct sch *s)
{
	submit_req(s, 0, &lg);
	CU_ASSERT_STRING_EQUAL(step(s, 0), "S1[0.0]");
	sch_finish(s, 1, 1000);
	submit_req(s, 1000, &sh);
	CU_ASSERT_STRING_EQUAL(step(s, 1000), "S2[0.0]");
	sch_finish(s, 2, 1010);
}

static void restart10(struct sch_config *c)
{
	c->restart = 10;
	c->starve = 0;
}

/*
 * srpt: user 3's "long" ran 1000 s, "short" 10 s, user 4's "mid" 500 s
 * (each alone).  A
 * long one runs from 1510; at 1600 (910 s to go) a mid one does not
 * preempt it (910 < 2 x 500 + its restart of 10), a short one does
 * (910 > 2 x 10 + 10).  The long one resumes at 1610 with 910 + 10 s to
 * go and ends at 2530: its 1010 s of wall time less the restart teach
 * 1000 s again, not 1005 (the geometric mean with 1010).
 */
static void test_srpt(void)
{
	struct sch *s = cluster(SCH_SRPT, 1, 1, 1, 1, restart10);
	struct sch_req md = { .user = 4, .gpus = 1, .name = "mid" };
	struct sch_info in;

	srpt_history(s);
	submit_req(s, 1010, &md);	/* 4's history: 500 s */
	CU_ASSERT_STRING_EQUAL(step(s, 1010), "S3[0.0]");
	sch_finish(s, 3, 1510);
	submit_req(s, 1510, &lg);
	CU_ASSERT_STRING_EQUAL(step(s, 1510), "S4[0.0]");
	submit_req(s, 1600, &md);
	CU_ASSERT_STRING_EQUAL(step(s, 1600), "");
	CU_ASSERT_EQUAL(sch_cancel(s, 5, 1600), 0);
	submit_req(s, 1600, &sh);
	CU_ASSERT_STRING_EQUAL(step(s, 1600), "P4 S6[0.0]");
	sch_finish(s, 6, 1610);
	CU_ASSERT_STRING_EQUAL(step(s, 1610), "S4[0.0]");
	CU_ASSERT_EQUAL(sch_info(s, 4, &in), 0);
	CU_ASSERT_EQUAL(in.preemptions, 1);
	sch_finish(s, 4, 1610 + 920);
	submit_req(s, 2530, &lg);
	CU_ASSERT_EQUAL(sch_info(s, 7, &in), 0);
	CU_ASSERT_DOUBLE_EQUAL(in.predicted, 1000, 1e-6);
	sch_free(s);
}

/*
 * srpt, past its prediction: a long one runs from 2000 and at 3005 has
 * run 5 s past its 1000; a short one preempts it (1005 GPU-s attained
 * against 2 x 10 + 10).  The long one's restart does not make it look
 * 5 + 10 s from done: past its prediction it is measured by what it
 * attained (1005), so a mid one (500) queued at 3006 goes first when
 * the short one ends.
 */
static void test_srpt_overrun(void)
{
	struct sch *s = cluster(SCH_SRPT, 1, 1, 1, 1, restart10);
	struct sch_req md = { .user = 4, .gpus = 1, .name = "mid" };

	srpt_history(s);
	submit_req(s, 1010, &md);
	CU_ASSERT_STRING_EQUAL(step(s, 1010), "S3[0.0]");
	sch_finish(s, 3, 1510);
	submit_req(s, 2000, &lg);
	CU_ASSERT_STRING_EQUAL(step(s, 2000), "S4[0.0]");
	submit_req(s, 3005, &sh);
	CU_ASSERT_STRING_EQUAL(step(s, 3005), "P4 S5[0.0]");
	submit_req(s, 3006, &md);
	CU_ASSERT_STRING_EQUAL(step(s, 3006), "");
	sch_finish(s, 5, 3015);
	CU_ASSERT_STRING_EQUAL(step(s, 3015), "S6[0.0]");
	sch_free(s);
}

static void starve100(struct sch_config *c)
{
	c->restart = 10;
	c->starve = 100;
	c->recalc = 10;
}

/*
 * srpt's age bound of 100 s: a "long" one (1000 s) queues at 2000
 * behind a short one (10 s) that runs; short ones keep coming every
 * 10 s and each goes ahead.  At 2100 the long one has waited its bound:
 * it goes first and takes the GPU from the younger short one; once
 * started, no short one preempts it.
 */
static void test_srpt_starve(void)
{
	struct sch *s = cluster(SCH_SRPT, 1, 1, 1, 1, starve100);
	char want[32];
	uint64_t k, l;
	double t;

	srpt_history(s);
	k = submit_req(s, 2000, &sh);
	l = submit_req(s, 2000, &lg);
	snprintf(want, sizeof(want), "S%llu[0.0]", (unsigned long long)k);
	CU_ASSERT_STRING_EQUAL(step(s, 2000), want);
	for (t = 2010; t < 2100; t += 10) {
		sch_finish(s, k, t);
		k = submit_req(s, t, &sh);
		snprintf(want, sizeof(want), "S%llu[0.0]",
			 (unsigned long long)k);
		CU_ASSERT_STRING_EQUAL(step(s, t), want);
	}
	submit_req(s, 2100, &sh);	/* the one from 2090 still runs */
	snprintf(want, sizeof(want), "P%llu S%llu[0.0]",
		 (unsigned long long)k, (unsigned long long)l);
	CU_ASSERT_STRING_EQUAL(step(s, 2100), want);
	submit_req(s, 2110, &sh);
	CU_ASSERT_STRING_EQUAL(step(s, 2110), "");
	CU_ASSERT_STRING_EQUAL(step(s, 2500), "");
	sch_free(s);
}

/* sjf knows run times: the shortest first, then the next. */
static void test_sjf(void)
{
	struct sch *s = cluster(SCH_SJF, 1, 1, 1, 1, NULL);

	submit(s, 0, 1, 0, 300);
	submit(s, 0, 1, 0, 100);
	submit(s, 0, 1, 0, 200);
	CU_ASSERT_STRING_EQUAL(step(s, 0), "S2[0.0]");
	sch_finish(s, 2, 100);
	CU_ASSERT_STRING_EQUAL(step(s, 100), "S3[0.0]");
	sch_free(s);
}

/*
 * Continuity: leaves of 3 hosts; a 2-host job on hosts 0 and 1 loses
 * host 1: host 2, in the same leaf, replaces it.  Then host 2 goes too
 * with no room left in the leaf: the job is queued again at the head,
 * ahead of a job that came earlier.
 */
static void test_continuity(void)
{
	struct sch *s = cluster(SCH_EASY, 6, 2, 3, 1, NULL);

	submit(s, 0, 4, 0, 100);
	CU_ASSERT_STRING_EQUAL(step(s, 0), "S1[0.0 0.1 1.0 1.1]");
	CU_ASSERT_EQUAL(sch_host_down(s, 1, 10), 0);
	CU_ASSERT_DOUBLE_EQUAL(sch_next(s, 10), 10, 1e-9);
	CU_ASSERT_STRING_EQUAL(step(s, 10), "L1 R1[0.0 0.1 2.0 2.1]");
	submit(s, 11, 6, 0, 100);	/* hosts 3, 4, 5 */
	submit(s, 11, 4, 0, 100);	/* waits */
	CU_ASSERT_STRING_EQUAL(step(s, 11), "S2[3.0 3.1 4.0 4.1 5.0 5.1]");
	CU_ASSERT_EQUAL(sch_host_down(s, 2, 20), 0);
	CU_ASSERT_STRING_EQUAL(step(s, 20), "L1 Q1");
	CU_ASSERT_EQUAL(sch_host_up(s, 1, 30), 0);
	CU_ASSERT_EQUAL(sch_host_up(s, 2, 30), 0);
	CU_ASSERT_STRING_EQUAL(step(s, 30), "S1[0.0 0.1 1.0 1.1]");
	sch_free(s);
}

/*
 * A job requeued when its host went down reloads its checkpoint as a
 * preempted one does: user 3's "long" runs on host 0 from 0, host 1 is
 * busy; host 0 goes down at 100 and the job is queued again; it starts
 * at 200 when the host is back and ends at 1110 (900 s to go and its
 * restart of 10).  The history learns 100 + 900 = 1000 s of work, not
 * the 1010 s of wall time.
 */
static void test_requeue_restart(void)
{
	struct sch *s = cluster(SCH_PREDICTED, 2, 1, 1, 1, restart10);
	struct sch_req other = { .user = 4, .gpus = 1, .name = "other" };
	struct sch_info in;

	submit_req(s, 0, &lg);
	submit_req(s, 0, &other);
	CU_ASSERT_STRING_EQUAL(step(s, 0), "S1[0.0] S2[1.0]");
	CU_ASSERT_EQUAL(sch_host_down(s, 0, 100), 0);
	CU_ASSERT_STRING_EQUAL(step(s, 100), "L1 Q1");
	CU_ASSERT_EQUAL(sch_host_up(s, 0, 200), 0);
	CU_ASSERT_STRING_EQUAL(step(s, 200), "S1[0.0]");
	CU_ASSERT_EQUAL(sch_finish(s, 1, 1110), 0);
	submit_req(s, 1110, &lg);
	CU_ASSERT_EQUAL(sch_info(s, 3, &in), 0);
	CU_ASSERT_DOUBLE_EQUAL(in.predicted, 1000, 1e-6);
	sch_free(s);
}

/* Two hosts of 2 GPUs with the CPU (milli-cores) and GPU models given. */
static struct sch *cpu_cluster(enum sch_policy p, uint32_t cpu0,
			       uint32_t cpu1, unsigned int model0,
			       unsigned int model1)
{
	struct sch_host h[2] = {
		{ .gpus = 2, .cpu = cpu0, .mem = 65536, .model = model0 },
		{ .gpus = 2, .cpu = cpu1, .mem = 65536, .model = model1 },
	};
	struct sch_config c;
	struct sch *s = NULL;

	sch_config_default(&c, p);
	CU_ASSERT_EQUAL_FATAL(sch_new(h, 2, &c, &s), 0);
	return s;
}

/*
 * Host 0 (model 1) of 2 GPUs and 8 cores, where A, B and C must run: A
 * takes a GPU and 6 cores; B asks a GPU and 4 cores: a GPU is free but
 * 2 cores are, so B waits, while C (a GPU, 2 cores) starts on that GPU.
 * A share asking more memory than any host has waits; a caller cannot
 * hold more cores than a host has.  When A ends its cores come back and
 * B starts.
 */
static void test_cpu_refused(void)
{
	struct sch *s = cpu_cluster(SCH_BESTFIT, 8000, 8000, 1, 2);
	struct sch_req a = { .gpus = 1, .cpu = 6000 };
	struct sch_req b = { .gpus = 1, .cpu = 4000 };
	struct sch_req c = { .gpus = 1, .cpu = 2000 };
	struct sch_req m = { .milli = 100, .mem = 70000 };
	struct sch_req big = { .gpus = 1, .cpu = 9000 };
	struct sch_slot sl = { .host = 1, .gpu = 0, .milli = SCH_MILLI };
	uint64_t ka, kb, k;

	a.models = b.models = c.models = 1u << 1;	/* host 0 only */
	ka = submit_req(s, 0, &a);
	CU_ASSERT_STRING_EQUAL(step(s, 0), "S1[0.0]");
	kb = submit_req(s, 1, &b);
	CU_ASSERT_STRING_EQUAL(step(s, 1), "");
	submit_req(s, 2, &m);
	CU_ASSERT_STRING_EQUAL(step(s, 2), "");
	submit_req(s, 3, &c);
	CU_ASSERT_STRING_EQUAL(step(s, 3), "S4[0.1]");
	/* nor may a caller place more CPU on host 1 than it has */
	CU_ASSERT_EQUAL(sch_hold(s, &big, &sl, 1, 3, &k), -EINVAL);
	CU_ASSERT_EQUAL(sch_finish(s, ka, 4), 0);
	CU_ASSERT_STRING_EQUAL(step(s, 4), "S2[0.0]");
	CU_ASSERT_EQUAL(kb, 2);
	sch_free(s);
}

/*
 * Host 0 has 16 cores, host 1 64, 2 GPUs each; the workload is pods of
 * a GPU and 12 cores.  Best fit (GPUs and CPU left, as shares of the
 * largest host's): host 0 leaves 1000/2000 + 4000/64000 = 0.5625, host 1
 * 0.5 + 52000/64000 = 1.3125: host 0.  FGD: on host 0 the GPU left has 4
 * cores, too few for the typical pod, so its 1000 milli become
 * fragmentation (+1000); on host 1 the typical pod still fits (+0):
 * host 1.
 */
static void test_fgd_cpu(void)
{
	enum sch_policy p[2] = { SCH_BESTFIT, SCH_FGD };
	const char *want[2] = { "S1[0.0]", "S1[1.0]" };
	struct sch_req r = { .gpus = 1, .cpu = 12000 };
	int i;

	for (i = 0; i < 2; i++) {
		struct sch *s = cpu_cluster(p[i], 16000, 64000, 0, 0);

		submit_req(s, 0, &r);
		CU_ASSERT_STRING_EQUAL(step(s, 0), want[i]);
		sch_free(s);
	}
}

/*
 * Hosts of 4 GPUs, host 0 with 16 cores, host 1 with 64; the workload
 * is pods of a GPU and 4 cores.  A pod of a GPU and 8 cores: on either
 * host the typical pod still fits after it (FGD +0 both), and best fit
 * takes the fuller host 0 (room left 3000/4000 + 8000/64000 against
 * 0.75 + 56000/64000), so bestfit and fgd do; but there 3 GPUs are left
 * with 8 cores, enough for 2 typical pods: one GPU stranded.  fgdcpu
 * strands none on host 1 and takes it.
 */
static void test_fgdcpu(void)
{
	enum sch_policy p[3] = { SCH_BESTFIT, SCH_FGD, SCH_FGDCPU };
	const char *want[3] = { "S1[0.0]", "S1[0.0]", "S1[1.0]" };
	struct sch_host h[2] = {
		{ .gpus = 4, .cpu = 16000, .mem = 65536 },
		{ .gpus = 4, .cpu = 64000, .mem = 65536 },
	};
	struct sch_req typ = { .gpus = 1, .cpu = 4000 };
	struct sch_req r = { .gpus = 1, .cpu = 8000 };
	struct sch_config c;
	int i;

	for (i = 0; i < 3; i++) {
		struct sch *s = NULL;

		sch_config_default(&c, p[i]);
		CU_ASSERT_EQUAL_FATAL(sch_new(h, 2, &c, &s), 0);
		sch_expect(s, &typ);
		sch_expect_end(s, 100);
		submit_req(s, 0, &r);
		CU_ASSERT_STRING_EQUAL(step(s, 0), want[i]);
		sch_free(s);
	}
}

/*
 * Two hosts of one GPU, no CPU modelled; submitted so far: shares of
 * 500 (4), 680 (4) and 320 (2, the last the request placed).  Host 0
 * holds a 500, host 1 is free.  A 320 on host 0 leaves 180 that no
 * share fits: 180 unused, where 500 left expected 60 (a 500 fills it 4
 * times in 6, a 320 leaves 180 the other 2): +120.  On host 1 it leaves
 * 680: a 680 fills it (4 in 10), a 500 leaves 180 (4), a 320 leaves 360
 * that another 320 brings to 40 (2): +80.  fgdfill takes host 1.  FGD:
 * on host 0 the fragmentation goes from 200 (the 680s' 40 % of 500) to
 * 180, on host 1 it stays 0: both score 50 points, and best fit, as
 * bestfit, takes the fuller host 0.
 */
static void test_fgdfill(void)
{
	enum sch_policy p[3] = { SCH_BESTFIT, SCH_FGD, SCH_FGDFILL };
	const char *want[3] = { "S11[0.0]", "S11[0.0]", "S11[1.0]" };
	struct sch_host h[2] = { { .gpus = 1 }, { .gpus = 1 } };
	struct sch_req r = { .milli = 320 };
	struct sch_slot sl = { .host = 0, .gpu = 0, .milli = 500 };
	unsigned int seen[9] = { 500, 500, 500, 500, 680, 680, 680, 680, 320 };
	struct sch_config c;
	uint64_t k;
	int i, n;

	for (i = 0; i < 3; i++) {
		struct sch *s = NULL;

		sch_config_default(&c, p[i]);
		CU_ASSERT_EQUAL_FATAL(sch_new(h, 2, &c, &s), 0);
		for (n = 0; n < 9; n++) {
			struct sch_req x = { .milli = seen[n] };

			k = submit_req(s, 0, &x);
			CU_ASSERT_EQUAL(sch_cancel(s, k, 0), 0);
		}
		CU_ASSERT_EQUAL(sch_hold(s, &(struct sch_req){ .milli = 500 },
					 &sl, 1, 0, &k), 0);
		submit_req(s, 1, &r);
		CU_ASSERT_STRING_EQUAL(step(s, 1), want[i]);
		sch_free(s);
	}
}

/*
 * GPU models: host 0 is model 1, host 1 model 2.  A pod for model 2
 * goes to host 1 although best fit would take the fuller host 0; one for
 * a model no host has never starts; one for either model takes host 0.
 */
static void test_gpu_model(void)
{
	struct sch *s = cpu_cluster(SCH_BESTFIT, 0, 0, 1, 2);
	struct sch_req any = { .gpus = 1 };
	struct sch_req v2 = { .gpus = 1, .models = 1u << 2 };
	struct sch_req none = { .gpus = 1, .models = 1u << 3 };
	struct sch_req both = { .gpus = 1, .models = 1u << 1 | 1u << 2 };

	submit_req(s, 0, &any);
	CU_ASSERT_STRING_EQUAL(step(s, 0), "S1[0.0]");
	submit_req(s, 1, &v2);
	CU_ASSERT_STRING_EQUAL(step(s, 1), "S2[1.0]");
	submit_req(s, 2, &none);
	CU_ASSERT_STRING_EQUAL(step(s, 2), "");
	submit_req(s, 3, &both);
	CU_ASSERT_STRING_EQUAL(step(s, 3), "S4[0.1]");
	sch_free(s);
}

/*
 * Classes preempt downwards only: a BE pod (class 0) blocked by an LS
 * one (class 3) waits and no notice goes out; an LS pod blocked by a BE
 * one has it noticed.
 */
static void test_ls_never_for_be(void)
{
	struct sch *s = cluster(SCH_PRIORITY, 1, 2, 1, 1, NULL);
	struct sch_req ls = { .gpus = 2, .cls = 3, .limit = 100 };
	struct sch_req be = { .gpus = 2, .cls = 0, .limit = 100 };
	uint64_t k;

	k = submit_req(s, 0, &ls);
	CU_ASSERT_STRING_EQUAL(step(s, 0), "S1[0.0 0.1]");
	submit_req(s, 1, &be);
	CU_ASSERT_STRING_EQUAL(step(s, 1), "");
	CU_ASSERT_EQUAL(sch_finish(s, k, 2), 0);
	CU_ASSERT_STRING_EQUAL(step(s, 2), "S2[0.0 0.1]");
	submit_req(s, 3, &ls);
	CU_ASSERT_STRING_EQUAL(step(s, 3), "N2@63");
	sch_free(s);
}

/* Requests that can never fit are refused, not queued forever. */
static void test_refuse(void)
{
	struct sch *s = cluster(SCH_EASY, 2, 4, 2, 1, NULL);
	struct sch_req r = { .gpus = 9 };
	uint64_t k;

	CU_ASSERT_EQUAL(sch_submit(s, &r, 0, &k), -EINVAL);
	r = (struct sch_req){ .cls = SCH_CLASSES, .gpus = 1 };
	CU_ASSERT_EQUAL(sch_submit(s, &r, 0, &k), -EINVAL);
	r = (struct sch_req){ .gpus = 0 };
	CU_ASSERT_EQUAL(sch_submit(s, &r, 0, &k), -EINVAL);
	CU_ASSERT_EQUAL(sch_cancel(s, 7, 0), -ENOENT);
	sch_free(s);
}

/*
 * A group number past the 2^24 a level may hold is refused, the largest
 * too (its count of groups, one more, would wrap to 0).
 */
static void test_group_ids(void)
{
	static const uint32_t bad[] = { 1u << 24, UINT32_MAX };
	struct sch_host h = { .gpus = 1 };
	struct sch_config c;
	struct sch *s = NULL;
	size_t i;

	sch_config_default(&c, SCH_FIFO);
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		h.lvl[0] = bad[i];
		CU_ASSERT_EQUAL(sch_new(&h, 1, &c, &s), -EINVAL);
	}
	h.lvl[0] = 5;
	CU_ASSERT_EQUAL_FATAL(sch_new(&h, 1, &c, &s), 0);
	sch_free(s);
}

/*
 * Issue 25 (sharing): every GPU busy, a request of NIC share alone
 * still starts (it needs no GPU); one over the host's NIC waits.
 */
static void test_nic_only(void)
{
	struct sch *s = cluster(SCH_FIFO, 1, 2, 1, 1, NULL);
	const struct sch_req nic = { .nic = 60, .limit = 10 };

	submit(s, 0, 2, 0, 100);
	CU_ASSERT_STRING_EQUAL(step(s, 0), "S1[0.0 0.1]");
	submit_req(s, 1, &nic);
	CU_ASSERT_STRING_EQUAL(step(s, 1), "S2[0/0]");
	submit_req(s, 2, &nic);
	CU_ASSERT_STRING_EQUAL(step(s, 2), "");
	CU_ASSERT_EQUAL(sch_finish(s, 2, 3), 0);
	CU_ASSERT_STRING_EQUAL(step(s, 3), "S3[0/0]");
	sch_free(s);
}

/*
 * A hold's share of a rail is taken once over its host's run of slots:
 * slots of hosts 0, 1, 0 would take host 0's rail twice (and give back
 * more than was ever free), so they are refused; the same slots by
 * host are held.
 */
static void test_hold_hosts_together(void)
{
	struct sch *s = cluster(SCH_FIFO, 2, 2, 2, 1, NULL);
	const struct sch_req r = { .gpus = 3, .milli = SCH_MILLI, .nic = 60,
				   .limit = 10 };
	const struct sch_slot mixed[3] = {
		{ .host = 0, .gpu = 0, .milli = SCH_MILLI },
		{ .host = 1, .gpu = 0, .milli = SCH_MILLI },
		{ .host = 0, .gpu = 1, .milli = SCH_MILLI },
	}, sorted[3] = {
		{ .host = 0, .gpu = 0, .milli = SCH_MILLI },
		{ .host = 0, .gpu = 1, .milli = SCH_MILLI },
		{ .host = 1, .gpu = 0, .milli = SCH_MILLI },
	};
	uint64_t k;

	CU_ASSERT_EQUAL(sch_hold(s, &r, mixed, 3, 0, &k), -EINVAL);
	CU_ASSERT_EQUAL(sch_hold(s, &r, sorted, 3, 0, &k), 0);
	sch_free(s);
}

/* One host of gpus GPUs behind rails NICs of 100, whatever fits starts. */
static struct sch *nic_host(unsigned int gpus, unsigned int rails)
{
	struct sch_host h = { .gpus = gpus, .rails = rails, .nic = 100 };
	struct sch_config c;
	struct sch *s = NULL;

	sch_config_default(&c, SCH_BESTFIT);
	CU_ASSERT_EQUAL_FATAL(sch_new(&h, 1, &c, &s), 0);
	return s;
}

/*
 * Issue 25 (sharing): the pool places NIC share on one rail (HCA), so
 * the scheduler does.  Two rails 60 out: 80 of the host's 200 are
 * free, but on neither rail; it waits for one, and goes there.
 */
static void test_nic_per_rail(void)
{
	struct sch *s = nic_host(2, 2);
	const struct sch_req n60 = { .nic = 60, .limit = 10 },
			     n80 = { .nic = 80, .limit = 10 };

	submit_req(s, 0, &n60);
	submit_req(s, 0, &n60);
	CU_ASSERT_STRING_EQUAL(step(s, 0), "S1[0/0] S2[0/1]");
	submit_req(s, 1, &n80);
	CU_ASSERT_STRING_EQUAL(step(s, 1), "");
	CU_ASSERT_EQUAL(sch_finish(s, 2, 2), 0);
	CU_ASSERT_STRING_EQUAL(step(s, 2), "S3[0/1]");
	sch_free(s);
}

/*
 * Issue 25 (sharing): GPUs with NIC share send through rails that have
 * it, as the pool places them.  GPUs 0-1 behind rail 0, 2-3 behind rail
 * 1; rail 0 has 30 free: one GPU with 50 goes behind rail 1 (not GPU 0,
 * the lowest free), two with 40 cannot (one GPU is left behind rail 1),
 * a share with 40 goes on GPU 3.
 */
static void test_nic_gpu_rail(void)
{
	struct sch *s = nic_host(4, 2);
	const struct sch_req n70 = { .nic = 70, .limit = 10 },
			     g50 = { .gpus = 1, .nic = 50, .limit = 10 },
			     g40 = { .gpus = 2, .nic = 40, .limit = 10 },
			     m40 = { .milli = 500, .nic = 40, .limit = 10 };

	submit_req(s, 0, &n70);
	CU_ASSERT_STRING_EQUAL(step(s, 0), "S1[0/0]");
	submit_req(s, 1, &g50);
	CU_ASSERT_STRING_EQUAL(step(s, 1), "S2[0.2]");
	submit_req(s, 2, &g40);
	CU_ASSERT_STRING_EQUAL(step(s, 2), "");
	submit_req(s, 3, &m40);
	CU_ASSERT_STRING_EQUAL(step(s, 3), "S4[0.3]");
	/* rail 0 free again: the two GPUs behind it */
	CU_ASSERT_EQUAL(sch_finish(s, 1, 4), 0);
	CU_ASSERT_STRING_EQUAL(step(s, 4), "S3[0.0 0.1]");
	sch_free(s);
}

/*
 * Issue 25 (continuity): a rail lost takes no NIC share, nor do the
 * GPUs behind it with some; back, it does again.
 */
static void test_nic_rail_lost(void)
{
	struct sch *s = nic_host(2, 2);
	const struct sch_req n60 = { .nic = 60, .limit = 10 },
			     g10 = { .gpus = 1, .nic = 10, .limit = 10 };
	struct sch_slot sl = { .host = 0, .gpu = SCH_NO_GPU, .rail = 2 };
	uint64_t k;

	CU_ASSERT_EQUAL(sch_rail_down(s, 0, 2), -ENOENT);
	CU_ASSERT_EQUAL(sch_rail_down(s, 1, 0), -ENOENT);
	CU_ASSERT_EQUAL(sch_hold(s, &n60, &sl, 1, 0, &k), -EINVAL);
	CU_ASSERT_EQUAL(sch_rail_down(s, 0, 0), 0);
	submit_req(s, 0, &n60);
	submit_req(s, 0, &n60);
	submit_req(s, 0, &g10);
	CU_ASSERT_STRING_EQUAL(step(s, 0), "S1[0/1] S3[0.1]");
	CU_ASSERT_EQUAL(sch_rail_up(s, 0, 0), 0);
	CU_ASSERT_STRING_EQUAL(step(s, 1), "S2[0/0]");
	sch_free(s);
}

TU_SUITE(sched,
	 { "backfill keeps the head's reservation", test_backfill },
	 { "fifo", test_fifo },
	 { "preemption with grace", test_preempt_grace },
	 { "quota borrowed and reclaimed", test_quota },
	 { "a group borrows up to its borrowing limit", test_borrow_limit },
	 { "a group lends up to its lending limit", test_lend_limit },
	 { "fair-share decay", test_fairshare },
	 { "tiresias demotion", test_tiresias },
	 { "placement at the lowest level", test_placement },
	 { "gang under one pod, not two", test_gang_pod },
	 { "gang away from loaded uplinks", test_gang_links },
	 { "gang waits, bounded", test_gang_wait },
	 { "fgd against best fit", test_fgd },
	 { "fgd's expected workload", test_fgd_expect },
	 { "predicted run times", test_predicted },
	 { "sjf", test_sjf },
	 { "srpt: a short job preempts, the restart counts", test_srpt },
	 { "a job requeued after a host loss pays its restart",
	   test_requeue_restart },
	 { "srpt: an aged job is not starved", test_srpt_starve },
	 { "srpt: past its prediction, by what it attained", test_srpt_overrun },
	 { "continuity", test_continuity },
	 { "refused", test_refuse },
	 { "refused for CPU, GPUs free", test_cpu_refused },
	 { "fgd weighs CPU, best fit does not", test_fgd_cpu },
	 { "fgdcpu strands no GPU where fgd does", test_fgdcpu },
	 { "fgdfill leaves no gap no share fits where fgd does", test_fgdfill },
	 { "gpu model constraint", test_gpu_model },
	 { "LS never preempted for BE", test_ls_never_for_be },
	 { "group numbers bounded", test_group_ids },
	 { "NIC share alone with every GPU busy", test_nic_only },
	 { "NIC share on one rail, not the host's sum", test_nic_per_rail },
	 { "a hold's slots by host", test_hold_hosts_together },
	 { "GPUs with NIC share behind rails that have it",
	   test_nic_gpu_rail },
	 { "a lost rail's NIC share is not placed", test_nic_rail_lost })
