// SPDX-License-Identifier: MIT
/*
 * analyze: check the routing OpenSM dumped; route: route a fabric file
 * offline.  Both end in the same verifier run and report.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "ibpoolroute.h"
#include "report.h"
#include "routing/lftdump.h"
#include "topology/netfile.h"
#include "topology/osmdump.h"

/* Verify t (and the jobs' loads) and print the report; the exit code. */
static int check(const struct pr_opts *o, struct pr_result *res,
		 const struct rt_tables *t, char *err, size_t len)
{
	struct vf_jobload jl;
	struct vf_report vr;
	int ret;

	ret = vf_check(t, &o->vf, &vr);
	if (!ret && res->jobs)
		ret = vf_jobload(t, res->jobs, &jl);
	if (ret) {
		snprintf(err, len, "verifier: %s", strerror(-ret));
		return PR_ERR;
	}
	res->tables = t;
	res->vo = &o->vf;
	res->vr = &vr;
	res->jobload = res->jobs ? &jl : NULL;
	ret = pr_report(stdout, res, o->json);
	if (res->jobs)
		vf_jobload_release(&jl);
	if (pr_report_written(ret, err, len))
		return PR_ERR;
	return vf_ok(&vr) ? PR_OK : PR_BAD;
}

static void dump_path(char *buf, size_t len, const char *dir,
		      const char *file)
{
	snprintf(buf, len, "%s/%s", dir, file);
}

/* --jobs for f into js, res->jobs pointing at it; 0 or -errno. */
static int jobs(const struct pr_opts *o, const struct fabric *f,
		struct rt_jobs *js, struct pr_result *res, char *err,
		size_t len)
{
	int ret;

	if (!o->jobs)
		return 0;
	ret = pr_jobs_load(o->jobs, f, js, err, len);
	if (ret)
		return ret;
	js->search_moves = o->search_moves;
	res->jobs = js;
	return 0;
}

int pr_analyze(const struct pr_opts *o, char *err, size_t len)
{
	struct pr_result res = { .source = o->dir };
	struct fabric *f = NULL;
	struct rt_jobs js = { 0 };
	struct rt_tables t;
	struct rt_vl *vl = NULL;
	char path[4096];
	int code = PR_ERR;

	memset(&t, 0, sizeof(t));
	dump_path(path, sizeof(path), o->dir, "opensm-subnet.lst");
	if (osmdump_load(path, &f, err, len))
		return PR_ERR;
	dump_path(path, sizeof(path), o->dir, "opensm-lfts.dump");
	if (lftdump_load(path, f, &t, err, len))
		goto out;
	if (jobs(o, f, &js, &res, err, len))
		goto out;
	/* OpenSM writes the SL2VL dump only with QoS or a VL engine. */
	dump_path(path, sizeof(path), o->dir, "opensm-sl2vl.dump");
	if (!access(path, F_OK)) {
		if (lftdump_load_sl2vl(path, &t, &vl, err, len))
			goto out;
		t.vl = vl;
		res.sl2vl = "opensm-sl2vl.dump";
	} else if (errno != ENOENT) {
		snprintf(err, len, "%s: %s", path, strerror(errno));
		goto out;
	}
	code = check(o, &res, &t, err, len);
out:
	t.vl = NULL;
	lftdump_vl_free(vl);
	rt_jobs_release(&js);
	rt_tables_release(&t);
	fab_free(f);
	return code;
}

int pr_route(const struct pr_opts *o, char *err, size_t len)
{
	struct pr_result res = { .source = o->net };
	struct rt_summary sum;
	struct fabric *f = NULL;
	struct rt_jobs js = { 0 };
	struct rt_tables t;
	int ret, code = PR_ERR;

	memset(&t, 0, sizeof(t));
	if (fab_load_net(o->net, &f, err, len))
		return PR_ERR;
	ret = fab_assign_lids_upto(f, o->lmc, o->ext_lids ? FAB_MAX_LID_EXT :
							  FAB_MAX_LID);
	if (ret) {
		snprintf(err, len, "%s: cannot assign LIDs with LMC %u: %s",
			 o->net, o->lmc, strerror(-ret));
		goto out;
	}
	if (jobs(o, f, &js, &res, err, len))
		goto out;
	res.jobs_routed = res.jobs && !o->jobs_unrouted;
	f->vls = o->vls;
	ret = rt_route(f, o->engine, res.jobs_routed ? res.jobs : NULL, &t,
		       &sum);
	if (ret == -ENOTSUP) {
		snprintf(err, len, "%s: engine %s does not fit: %s", o->net,
			 rt_engine_name(o->engine), sum.detail);
		goto out;
	}
	/* -EIO: the tables lose pairs; the report shows which. */
	if (ret && ret != -EIO) {
		snprintf(err, len, "%s: routing failed: %s", o->net,
			 strerror(-ret));
		goto out;
	}
	res.route = &sum;
	code = check(o, &res, &t, err, len);
	if (code == PR_OK && ret)
		code = PR_BAD;
out:
	rt_jobs_release(&js);
	rt_tables_release(&t);
	fab_free(f);
	return code;
}
