// SPDX-License-Identifier: MIT
/*
 * Where simulate and map take a routing from: a fabric file routed here,
 * OpenSM's dumps, or the LFTs read from the live switches; with the
 * jobs of --jobs built for that fabric.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "ibpoolroute.h"
#include "routing/lftdump.h"
#include "topology/netfile.h"
#include "topology/osmdump.h"

int pr_source_route(struct pr_source *s, const struct pr_opts *o,
		    bool jobs, struct rt_tables *t, struct rt_summary *sum,
		    char *err, size_t len)
{
	int ret;

	s->fab->vls = o->vls;
	ret = rt_route(s->fab, o->engine, jobs && s->have_jobs ? &s->jobs :
		       NULL, t, sum);

	if (ret == -ENOTSUP)
		snprintf(err, len, "%s: engine %s does not fit: %s", s->name,
			 rt_engine_name(o->engine), sum->detail);
	else if (ret && ret != -EIO)
		snprintf(err, len, "%s: routing failed: %s", s->name,
			 strerror(-ret));
	/* -EIO: the tables lose pairs; what uses them says so */
	return ret == -EIO ? 0 : ret;
}

static int from_net(struct pr_source *s, const struct pr_opts *o,
		    bool route_jobs, char *err, size_t len)
{
	int ret;

	s->name = o->net;
	if (fab_load_net(o->net, &s->fab, err, len))
		return -EINVAL;
	ret = fab_assign_lids(s->fab, o->lmc);
	if (ret) {
		snprintf(err, len, "%s: cannot assign LIDs with LMC %u: %s",
			 o->net, o->lmc, strerror(-ret));
		return ret;
	}
	if (o->jobs && (ret = pr_jobs_load(o->jobs, s->fab, &s->jobs, err, len)))
		return ret;
	s->have_jobs = o->jobs != NULL;
	s->jobs.search_moves = o->search_moves;
	s->have_tables = s->routed = true;
	return pr_source_route(s, o, route_jobs, &s->tables, &s->summary, err,
			       len);
}

static int from_dump(struct pr_source *s, const struct pr_opts *o,
		     char *err, size_t len)
{
	char path[4096];

	s->name = o->dump;
	snprintf(path, sizeof(path), "%s/opensm-subnet.lst", o->dump);
	if (osmdump_load(path, &s->fab, err, len))
		return -EINVAL;
	snprintf(path, sizeof(path), "%s/opensm-lfts.dump", o->dump);
	s->have_tables = true;
	return lftdump_load(path, s->fab, &s->tables, err, len) ? -EINVAL : 0;
}

/* The fabric and tables stay the handle's: t is a copy of its struct. */
static int from_live(struct pr_source *s, const struct pr_opts *o,
		     char *err, size_t len)
{
	int ret;

	if ((ret = lf_open(&s->live, o->ca, o->ca_port, err, len)) ||
	    (ret = lf_discover(s->live, err, len)) ||
	    (ret = lf_read_lfts(s->live, err, len)))
		return ret;
	s->name = lf_source(s->live);
	s->fab = (struct fabric *)lf_fabric(s->live);
	s->tables = *lf_tables(s->live);
	return 0;
}

int pr_source_open(struct pr_source *s, const struct pr_opts *o,
		   bool route_jobs, char *err, size_t len)
{
	int ret;

	memset(s, 0, sizeof(*s));
	if (o->net)
		return from_net(s, o, route_jobs, err, len);
	ret = o->dump ? from_dump(s, o, err, len) : from_live(s, o, err, len);
	if (!ret && o->jobs &&
	    !(ret = pr_jobs_load(o->jobs, s->fab, &s->jobs, err, len)))
		s->have_jobs = true;
	return ret;
}

void pr_source_close(struct pr_source *s)
{
	if (s->have_tables)
		rt_tables_release(&s->tables);
	if (s->have_jobs)
		rt_jobs_release(&s->jobs);
	if (s->live)
		lf_close(s->live);
	else
		fab_free(s->fab);
	memset(s, 0, sizeof(*s));
}
