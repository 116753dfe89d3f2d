// SPDX-License-Identifier: MIT
/*
 * The routing core (route.c): the engine table's names, a forced engine
 * that does not fit, and every engine's balance whatever order discovery
 * found the fabric in.
 */
#include <errno.h>
#include <stdbool.h>
#include <string.h>

#include "tu.h"
#include "tu_route.h"
#include "routing/route.h"
#include "routing/verify.h"
#include "topology/gen.h"

/*
 * RT_ENGINE_NAMES, what every help text lists, names each engine once
 * and nothing else: split at ", " and " or ", every word parses, and
 * every id up to the first without an engine ("?") is a word: an engine
 * added to the table but not to the list fails here.
 */
static void test_engine_names(void)
{
	char list[] = RT_ENGINE_NAMES, *w, *save;
	bool seen[16] = { false };
	enum rt_engine_id id;
	unsigned int n = 0;

	for (w = strtok_r(list, ", ", &save); w; w = strtok_r(NULL, ", ", &save)) {
		if (!strcmp(w, "or"))
			continue;
		CU_ASSERT_FATAL(!rt_engine_parse(w, &id));
		CU_ASSERT_FATAL(id < sizeof(seen) / sizeof(seen[0]));
		CU_ASSERT(!seen[id]);
		seen[id] = true;
		n++;
	}
	for (id = RT_ENGINE_AUTO; strcmp(rt_engine_name(id), "?"); id++)
		CU_ASSERT(id < n && seen[id]);
	CU_ASSERT_EQUAL(id, n);
	CU_ASSERT_STRING_EQUAL(rt_engine_name(RT_ENGINE_AUTO), "auto");
	CU_ASSERT_STRING_EQUAL(rt_engine_name(RT_ENGINE_FATTREE), "fattree");
	CU_ASSERT_STRING_EQUAL(rt_engine_name(RT_ENGINE_UPDOWN), "updown");
	CU_ASSERT_STRING_EQUAL(rt_engine_name(RT_ENGINE_TORUS), "torus");
	CU_ASSERT_STRING_EQUAL(rt_engine_name(RT_ENGINE_DRAGONFLY), "dragonfly");
	CU_ASSERT_STRING_EQUAL(rt_engine_name(RT_ENGINE_DRAGONFLY + 1), "?");
}

static void test_forced_mismatch(void)
{
	struct gen_torus tor;
	struct gen_opts o;
	struct fabric *f;
	struct rt_tables t;
	struct rt_summary s;
	enum rt_engine_id id;
	char err[256];

	gen_opts_init(&o);
	gen_torus_init(&tor, false);
	CU_ASSERT_FATAL(!gen_torus(&tor, &o, &f, err, sizeof(err)));
	CU_ASSERT_FATAL(!fab_assign_lids(f, 0));
	CU_ASSERT_EQUAL(rt_route(f, RT_ENGINE_FATTREE, NULL, &t, &s), -ENOTSUP);
	CU_ASSERT_PTR_NOT_NULL(strstr(s.detail, "not a fat-tree"));
	rt_tables_release(&t);
	fab_free(f);
	CU_ASSERT(!rt_engine_parse("updown", &id) && id == RT_ENGINE_UPDOWN);
	CU_ASSERT(!rt_engine_parse("torus", &id) && id == RT_ENGINE_TORUS);
	CU_ASSERT_EQUAL(rt_engine_parse("ftree", &id), -EINVAL);
	CU_ASSERT_EQUAL(rt_engine_parse(NULL, &id), -EINVAL);
}

/* Tori, dragonflies and up*-down*, shuffled the same way. */
static void test_shuffled_others(void)
{
	struct gen_torus tor;
	struct gen_dragonfly df;
	struct gen_opts o;
	struct fabric *f;
	char err[256];

	gen_opts_init(&o);
	gen_torus_init(&tor, true);
	tor.hosts = 2;
	CU_ASSERT_FATAL(!gen_torus(&tor, &o, &f, err, sizeof(err)));
	CU_ASSERT_FATAL(!fab_assign_lids(f, 0));
	tu_shuffled_like(f, RT_ENGINE_AUTO, 0, 1e-9, "torus");
	tu_shuffled_like(f, RT_ENGINE_UPDOWN, 0, 1e-9, "updown on a torus");
	fab_free(f);
	gen_torus_init(&tor, false);
	CU_ASSERT_FATAL(!gen_torus(&tor, &o, &f, err, sizeof(err)));
	CU_ASSERT_FATAL(!fab_assign_lids(f, 0));
	tu_shuffled_like(f, RT_ENGINE_AUTO, 0, 1e-9, "mesh");
	fab_free(f);
	gen_dragonfly_init(&df, false);
	CU_ASSERT_FATAL(!gen_dragonfly(&df, &o, &f, err, sizeof(err)));
	CU_ASSERT_FATAL(!fab_assign_lids(f, 0));
	tu_shuffled_like(f, RT_ENGINE_AUTO, 0, 1e-9, "dragonfly");
	/* up*-down* has no structure to follow: its root's search order */
	tu_shuffled_like(f, RT_ENGINE_UPDOWN, 0, 0.3, "updown on a dragonfly");
	fab_free(f);
	gen_dragonfly_init(&df, true);
	CU_ASSERT_FATAL(!gen_dragonfly(&df, &o, &f, err, sizeof(err)));
	CU_ASSERT_FATAL(!fab_assign_lids(f, 0));
	/* leaf-spine choices follow port order: not yet shuffle-proof */
	tu_shuffled_like(f, RT_ENGINE_AUTO, 0, 0.1, "dragonfly+");
	fab_free(f);
}

TU_SUITE(route,
	 { "engine names", test_engine_names },
	 { "forced engine that does not fit", test_forced_mismatch },
	 { "shuffled tori, dragonflies, updown", test_shuffled_others })
