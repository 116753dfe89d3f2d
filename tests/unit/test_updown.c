// SPDX-License-Identifier: MIT
/* The up*-down* engine: any fabric, deadlock-free on one VL. */
#include "tu.h"
#include "tu_route.h"
#include "routing/route.h"
#include "routing/verify.h"
#include "topology/gen.h"

static void test_updown_any(void)
{
	struct gen_torus tor;
	struct gen_dragonfly df;
	struct gen_opts o;
	struct fabric *f;
	struct rt_summary s;
	struct vf_report r;
	char err[256];

	gen_opts_init(&o);
	gen_torus_init(&tor, true);
	CU_ASSERT_FATAL(!gen_torus(&tor, &o, &f, err, sizeof(err)));
	CU_ASSERT_FATAL(!fab_assign_lids(f, 0));
	CU_ASSERT_FATAL(!tu_route_check(f, RT_ENGINE_AUTO, &r, &s));
	CU_ASSERT_STRING_EQUAL(s.engine, "torus");
	CU_ASSERT_STRING_EQUAL(s.topology, "torus");
	CU_ASSERT(vf_ok(&r) && r.cdg_checked && !r.cdg_cycle);
	CU_ASSERT_FATAL(!tu_route_check(f, RT_ENGINE_UPDOWN, &r, &s));
	CU_ASSERT_STRING_EQUAL(s.engine, "updown");
	CU_ASSERT(vf_ok(&r) && r.cdg_checked && !r.cdg_cycle);
	fab_free(f);

	gen_dragonfly_init(&df, false);
	o.drop = 0.05;
	o.seed = 4;
	CU_ASSERT_FATAL(!gen_dragonfly(&df, &o, &f, err, sizeof(err)));
	CU_ASSERT_FATAL(!fab_assign_lids(f, 1));
	CU_ASSERT_FATAL(!tu_route_check(f, RT_ENGINE_UPDOWN, &r, &s));
	CU_ASSERT(vf_ok(&r) && r.cdg_checked && !r.cdg_cycle);
	fab_free(f);

	/* the generic engine on a tree is still correct */
	f = tu_tree(4, 3, 0.05, 9, 0);
	CU_ASSERT_FATAL(!tu_route_check(f, RT_ENGINE_UPDOWN, &r, &s));
	CU_ASSERT(vf_ok(&r) && !r.cdg_cycle);
	fab_free(f);
}

TU_SUITE(updown,
	 { "updown routes torus and dragonfly", test_updown_any })
