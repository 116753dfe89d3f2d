// SPDX-License-Identifier: MIT
/*
 * FGD's fragmentation and best fit's room left on one host, worked out
 * by hand.
 */
#include "tu.h"
#include "tools/lib/pool/frag.h"

/* Add n requests of r's type to m. */
static void add(struct frg_mix *m, struct frg_req r, unsigned int n)
{
	while (n--)
		frg_mix_add(m, &r);
}

/*
 * A host of model 1 with GPUs free 1000, 1000, 500, 0 (2,500 milli) and
 * 8 cores.  One GPU (seen once): two GPUs hold it, the 500 is lost to
 * it.  A share of 600 (once): the same.  Two GPUs of model 2 (twice):
 * the host cannot take them, all 2,500 lost.  CPU only (three times):
 * it uses no GPU, all lost.  (500 + 500 + 2 x 2500 + 3 x 2500) / 7.
 */
static void test_amount(void)
{
	static struct frg_mix m;
	const uint16_t g[] = { 1000, 1000, 500, 0 };
	struct frg_host h = { .g = g, .n = 4, .cpu = 8000, .model = 1 };

	memset(&m, 0, sizeof(m));
	CU_ASSERT_DOUBLE_EQUAL(frg_amount(&m, &h), 0, 1e-12);
	add(&m, (struct frg_req){ .gpus = 1, .cpu = 1000 }, 1);
	add(&m, (struct frg_req){ .milli = 600, .cpu = 1000 }, 1);
	add(&m, (struct frg_req){ .gpus = 2, .models = 1u << 2 }, 2);
	add(&m, (struct frg_req){ .cpu = 500 }, 3);
	CU_ASSERT_EQUAL(m.nt, 4);
	CU_ASSERT_EQUAL(m.n, 7);
	CU_ASSERT_DOUBLE_EQUAL(frg_amount(&m, &h), 13500 / 7.0, 1e-9);
	h.cpu = 900;		/* now short of CPU for the first two as well */
	CU_ASSERT_DOUBLE_EQUAL(frg_amount(&m, &h), 2500, 1e-9);
}

/*
 * A share of 400 on GPUs free 1000, 500, 300, the workload's shares
 * being 500: before, only the 300 is lost.  On GPU 0 (600 left) still
 * only the 300: +0; on GPU 1 (100 left) the 100 too: +100; GPU 2 cannot
 * hold it.  FGD takes GPU 0, best fit the fullest that holds it, GPU 1.
 */
static void test_share(void)
{
	static struct frg_mix m;
	const uint16_t g[] = { 1000, 500, 300 };
	struct frg_host h = { .g = g, .n = 3, .cpu = FRG_NOCPU };
	struct frg_req r = { .milli = 400 };
	int gpu;

	memset(&m, 0, sizeof(m));
	add(&m, (struct frg_req){ .milli = 500 }, 1);
	CU_ASSERT_DOUBLE_EQUAL(frg_score(&m, &h, &r, &gpu), 0, 1e-9);
	CU_ASSERT_EQUAL(gpu, 0);
	CU_ASSERT_EQUAL(frg_best_gpu(&h, 400), 1);
	CU_ASSERT_EQUAL(frg_best_gpu(&h, 1001), -1);
	CU_ASSERT_DOUBLE_EQUAL(frg_left(&h, &r, 1, 8, 0), 0.1, 1e-12);
}

/*
 * Two GPUs and 3 cores on GPUs free 1000, 1000, 1000, 400 and 4 cores,
 * the workload one GPU with 2 cores: before, the 400 is lost; after, 1
 * core is left, too few: all 1,400 lost, +1,000.  Best fit: with no CPU
 * modelled, the whole GPUs left (1); with it, 1,400 of 8 GPUs' milli
 * and 1 of 8 cores, 0.175 + 0.125.
 */
static void test_whole(void)
{
	static struct frg_mix m;
	const uint16_t g[] = { 1000, 1000, 1000, 400 };
	struct frg_host h = { .g = g, .n = 4, .cpu = 4000 };
	struct frg_req r = { .gpus = 2, .cpu = 3000 };
	int gpu;

	memset(&m, 0, sizeof(m));
	add(&m, (struct frg_req){ .gpus = 1, .cpu = 2000 }, 1);
	CU_ASSERT_DOUBLE_EQUAL(frg_score(&m, &h, &r, &gpu), 1000, 1e-9);
	CU_ASSERT_EQUAL(gpu, -1);
	CU_ASSERT_DOUBLE_EQUAL(frg_left(&h, &r, -1, 8, 8000), 0.3, 1e-12);
	h.cpu = FRG_NOCPU;
	CU_ASSERT_DOUBLE_EQUAL(frg_score(&m, &h, &r, &gpu), 0, 1e-9);
	CU_ASSERT_DOUBLE_EQUAL(frg_left(&h, &r, -1, 8, 8000), 1, 1e-12);
}

/*
 * Types seen 5, 1, 3, 1 times (10): 80 % keeps the 5 and the 3 (8, 80
 * %); 81 % the first 1 as well; 100 % all.
 */
static void test_trim(void)
{
	static struct frg_mix m;
	const unsigned int n[] = { 5, 1, 3, 1 };
	unsigned int i;

	memset(&m, 0, sizeof(m));
	for (i = 0; i < 4; i++)
		add(&m, (struct frg_req){ .milli = 100 * (i + 1) }, n[i]);
	frg_mix_trim(&m, 100);
	CU_ASSERT_EQUAL(m.nt, 4);
	CU_ASSERT_EQUAL(m.n, 10);
	CU_ASSERT_EQUAL(m.t[0].milli, 100);
	CU_ASSERT_EQUAL(m.t[1].milli, 300);
	CU_ASSERT_EQUAL(m.t[2].milli, 200);
	CU_ASSERT_EQUAL(m.t[3].milli, 400);
	frg_mix_trim(&m, 81);
	CU_ASSERT_EQUAL(m.nt, 3);
	CU_ASSERT_EQUAL(m.n, 9);
	frg_mix_trim(&m, 80);	/* of the 9 left: 7.2, the 5 and the 3 */
	CU_ASSERT_EQUAL(m.nt, 2);
	CU_ASSERT_EQUAL(m.n, 8);
}

/*
 * FGD's points: 50 for no growth, 100 sigmoid(-f / 1000) truncated
 * (26.89 for +1000, 73.11 for -1000); +39 is 49.03, +41 48.98.  A share
 * of 10 on GPUs free 1000, 500 against shares of 600: the 500 is lost
 * before; on GPU 0 still (+0), on GPU 1 10 less (-10).  Both score 50
 * points: the first, GPU 0, is taken and its +0 returned.
 */
static void test_points(void)
{
	static struct frg_mix m;
	const uint16_t g[] = { 1000, 500 };
	struct frg_host h = { .g = g, .n = 2, .cpu = FRG_NOCPU };
	struct frg_req r = { .milli = 10 };
	int gpu;

	CU_ASSERT_EQUAL(frg_points(0), 50);
	CU_ASSERT_EQUAL(frg_points(1000), 26);
	CU_ASSERT_EQUAL(frg_points(-1000), 73);
	CU_ASSERT_EQUAL(frg_points(39), 49);
	CU_ASSERT_EQUAL(frg_points(41), 48);
	CU_ASSERT_EQUAL(frg_points(1e9), 0);
	CU_ASSERT_EQUAL(frg_points(-1e9), 100);
	memset(&m, 0, sizeof(m));
	add(&m, (struct frg_req){ .milli = 600 }, 1);
	CU_ASSERT_DOUBLE_EQUAL(frg_score(&m, &h, &r, &gpu), 0, 1e-9);
	CU_ASSERT_EQUAL(gpu, 0);
}

/* The mix keeps FRG_TYPES types; later new ones are not counted. */
static void test_full(void)
{
	static struct frg_mix m;
	unsigned int i;

	memset(&m, 0, sizeof(m));
	for (i = 1; i <= FRG_TYPES + 5; i++)
		add(&m, (struct frg_req){ .milli = i }, 2);
	CU_ASSERT_EQUAL(m.nt, FRG_TYPES);
	CU_ASSERT_EQUAL(m.n, 2 * FRG_TYPES);
	CU_ASSERT_EQUAL(m.t[FRG_TYPES - 1].milli, FRG_TYPES);
	CU_ASSERT_EQUAL(m.t[0].n, 2);
}

/*
 * The CPU a free GPU needs: of test_amount()'s mix, the GPU types ask
 * 1000 + 1000 + 2 x 0 milli-cores for 1000 + 600 + 2 x 2000 milli; the
 * CPU-only type is left out.  An empty mix, or one of CPU only, asks 0.
 */
static void test_mix_cpu(void)
{
	static struct frg_mix m;

	memset(&m, 0, sizeof(m));
	CU_ASSERT_DOUBLE_EQUAL(frg_mix_cpu(&m), 0, 1e-12);
	add(&m, (struct frg_req){ .cpu = 500 }, 3);
	CU_ASSERT_DOUBLE_EQUAL(frg_mix_cpu(&m), 0, 1e-12);
	add(&m, (struct frg_req){ .gpus = 1, .cpu = 1000 }, 1);
	add(&m, (struct frg_req){ .milli = 600, .cpu = 1000 }, 1);
	add(&m, (struct frg_req){ .gpus = 2, .models = 1u << 2 }, 2);
	CU_ASSERT_DOUBLE_EQUAL(frg_mix_cpu(&m), 2000 / 5600.0, 1e-12);
}

/*
 * Four whole GPUs free, 4 milli-cores needed per GPU milli.  With 16
 * cores none is stranded; a GPU and 8 cores taken leave 3 GPUs and 8
 * cores, enough for 2: one stranded (+1).  A GPU and no CPU: +0.  With
 * 4 cores, 3 are stranded; a share of 500 taken leaves 3,500 milli, 2
 * stranded (-1).  A host that does not model CPU, or a mix that asks
 * none: 0.
 */
static void test_strand(void)
{
	const uint16_t g[4] = { 1000, 1000, 1000, 1000 };
	struct frg_host h = { .g = g, .n = 4, .cpu = 16000 };
	struct frg_req r = { .gpus = 1, .cpu = 8000 };

	CU_ASSERT_EQUAL(frg_strand(&h, &r, 4), 1);
	CU_ASSERT_EQUAL(frg_strand(&h, &r, 0), 0);
	r.cpu = 0;
	CU_ASSERT_EQUAL(frg_strand(&h, &r, 4), 0);
	h.cpu = 4000;
	r = (struct frg_req){ .milli = 500 };
	CU_ASSERT_EQUAL(frg_strand(&h, &r, 4), -1);
	h.cpu = FRG_NOCPU;
	CU_ASSERT_EQUAL(frg_strand(&h, &r, 4), 0);
}

TU_SUITE(frag,
	 { "fragmentation by hand", test_amount },
	 { "a share: FGD's GPU and best fit's", test_share },
	 { "whole GPUs and CPU", test_whole },
	 { "the mix's types bounded", test_full },
	 { "typical types by popularity", test_trim },
	 { "FGD's points", test_points },
	 { "the CPU a GPU needs", test_mix_cpu },
	 { "GPUs stranded without CPU", test_strand })
