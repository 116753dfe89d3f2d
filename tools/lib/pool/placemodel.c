// SPDX-License-Identifier: MIT
/*
 * Scoring placement candidates on the collectives model: the new job is
 * listed first, so a running job sharing a host with it is the one left
 * out of the model, never the job being placed.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "placemodel.h"
#include "routing/collsim.h"
#include "routing/route.h"

/* One candidate's run: every job's ring and all-to-all, by job id. */
struct run {
	struct rt_jobs js;
	struct cs_result ring, a2a;
};

static void run_release(struct run *r)
{
	cs_result_release(&r->ring);
	cs_result_release(&r->a2a);
	rt_jobs_release(&r->js);
}

/* A running job that shares a host with the new one is left out. */
static void quiet(void *ctx, const char *msg)
{
	(void)ctx;
	(void)msg;
}

/*
 * The new job on candidate pl, then the running jobs' hosts the
 * fabric has (a host list per job in hosts, room for all of them).
 */
static int specs_of(const struct pool_config *cfg, const struct pool_tree *t,
		    const struct pool_model *m,
		    const struct pool_placement *pl, struct rt_job_spec *sp,
		    const char **hosts)
{
	size_t i, k, at = 0, n = 1;

	sp[0] = (struct rt_job_spec){ .id = "\x01placing", .weight = 1,
				      .hosts = hosts, .nhosts = pl->nhosts };
	for (i = 0; i < pl->nhosts; i++)
		hosts[at++] = cfg->hosts[pl->hosts[i]].name;
	for (i = 0; i < m->nrunning; i++) {
		const struct rt_job_spec *r = &m->running[i];

		sp[n] = *r;
		sp[n].hosts = hosts + at;
		sp[n].nhosts = 0;
		for (k = 0; k < r->nhosts; k++)
			if (pool_tree_host(t, r->hosts[k]) >= 0) {
				hosts[at++] = r->hosts[k];
				sp[n].nhosts++;
			}
		n += sp[n].nhosts > 0;
	}
	return (int)n;
}

static int run_one(const struct pool_config *cfg, const struct pool_tree *t,
		   const struct pool_model *m,
		   const struct pool_placement *pl, struct run *r)
{
	struct cs_opts o = { .pattern = CS_RING };
	struct rt_job_spec *sp;
	const char **hosts;
	size_t total = pl->nhosts, i;
	char err[256];
	int ret = -ENOMEM, n;

	memset(r, 0, sizeof(*r));
	for (i = 0; i < m->nrunning; i++)
		total += m->running[i].nhosts;
	sp = calloc(m->nrunning + 1, sizeof(*sp));
	hosts = calloc(total + 1, sizeof(*hosts));
	if (!sp || !hosts)
		goto out;
	n = specs_of(cfg, t, m, pl, sp, hosts);
	ret = rt_jobs_build_drop(&r->js, m->t->fab, sp, n, quiet, NULL, err,
				 sizeof(err));
	if (ret)
		goto out;
	ret = cs_run(m->t, &r->js, &o, &r->ring);
	o.pattern = CS_ALLTOALL;
	o.rounds = RT_GUARD_ROUNDS;
	if (!ret)
		ret = cs_run(m->t, &r->js, &o, &r->a2a);
out:
	free(sp);
	free(hosts);
	return ret;
}

/* Job index of id in r, or r->js.njobs when it was left out there. */
static uint32_t find(const struct run *r, const char *id)
{
	uint32_t j;

	for (j = 0; j < r->js.njobs && strcmp(r->js.job[j].id, id); j++)
		;
	return j;
}

/* Whether no running job of base is slower in r. */
static bool spares_others(const struct run *r, const struct run *base)
{
	uint32_t j, k;

	for (j = 1; j < base->js.njobs; j++) {
		k = find(r, base->js.job[j].id);
		if (k == r->js.njobs)
			continue;
		if (r->ring.bw[k] < base->ring.bw[j] - 1e-9 ||
		    r->a2a.bw[k] < base->a2a.bw[j] - 1e-9)
			return false;
	}
	return true;
}

/* The winner among the n candidates c, 0 (compact) on ties. */
static int choose(const struct pool_config *cfg, const struct pool_tree *t,
		  const struct pool_model *m, struct pool_placement *c,
		  size_t n, size_t *best, struct pool_model_score *sc)
{
	struct run base, r;
	double bv;
	size_t i;
	int ret = run_one(cfg, t, m, &c[0], &base);

	*best = 0;
	if (ret)
		goto out;
	sc->compact_ring = sc->ring = base.ring.bw[0];
	sc->compact_a2a = sc->a2a = base.a2a.bw[0];
	bv = sc->ring + sc->a2a;
	for (i = 1; i < n && !ret; i++) {
		ret = run_one(cfg, t, m, &c[i], &r);
		if (!ret && r.ring.bw[0] + r.a2a.bw[0] > bv + 1e-9 &&
		    spares_others(&r, &base)) {
			*best = i;
			sc->ring = r.ring.bw[0];
			sc->a2a = r.a2a.bw[0];
			bv = sc->ring + sc->a2a;
		}
		run_release(&r);
	}
out:
	run_release(&base);
	return ret;
}

int pool_place_model(const struct pool *p, const struct pool_config *cfg,
		     const struct pool_tree *t, unsigned int ngpus,
		     unsigned int gpus_per_host, const double *load,
		     const struct pool_model *m, struct pool_placement *out,
		     struct pool_model_score *sc, char *err, size_t len)
{
	struct pool_placement c[POOL_PLACE_CANDS];
	struct pool_model_score dummy;
	size_t n, best = 0, i;
	int ret;

	if (!sc)
		sc = &dummy;
	memset(sc, 0, sizeof(*sc));
	memset(out, 0, sizeof(*out));
	ret = pool_place_cands(p, cfg, t, ngpus, gpus_per_host, load, c,
			       m && m->t ? POOL_PLACE_CANDS : 1, &n, err, len);
	if (ret)
		return ret;
	if (n > 1 && c[0].groups > 1) {
		ret = choose(cfg, t, m, c, n, &best, sc);
		if (ret) {
			snprintf(err, len, "placement model: out of memory");
			goto out;
		}
		sc->modelled = true;
		sc->candidates = n;
	}
	sc->compact = best == 0;
	*out = c[best];
	memset(&c[best], 0, sizeof(c[best]));
out:
	for (i = 0; i < n; i++)
		pool_placement_release(&c[i]);
	return ret;
}
