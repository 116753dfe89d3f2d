// SPDX-License-Identifier: MIT
/*
 * The routing report analyze, route and verify share: infiniband-diags
 * style "key : value" lines, or one JSON object with the same fields.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <string.h>
#include <sys/resource.h>

#include <json-c/json.h>

#include "report.h"

/* Fabric counts the report shows, beyond the verifier's. */
struct counts {
	size_t ports;		/* linked CA ports */
	size_t links;		/* switch-to-switch cables */
	unsigned int lmc;	/* widest CA LMC */
};

static void count(const struct fabric *f, struct counts *c)
{
	unsigned int p;
	size_t n;

	memset(c, 0, sizeof(*c));
	c->links = fab_sw_links(f);
	for (n = 0; n < f->nnodes; n++) {
		if (fab_is_sw(f, n))
			continue;
		for (p = 1; p <= f->nodes[n].nports; p++) {
			const struct fab_port *cp = fab_port(f, n, p);

			if (cp->peer == FAB_NONE)
				continue;
			c->ports++;
			if (cp->lmc > c->lmc)
				c->lmc = cp->lmc;
		}
	}
}

static double peak_mib(void)
{
	struct rusage ru;

	if (getrusage(RUSAGE_SELF, &ru))
		return 0;
	return ru.ru_maxrss / 1024.0;	/* Linux reports KiB */
}

/* The switch node behind verifier switch index s, FAB_NONE if none. */
static uint32_t sw_node(const struct rt_tables *t, uint32_t s)
{
	return s < t->nsw ? t->sw_node[s] : FAB_NONE;
}

bool pr_live_ok(const struct pr_live *r)
{
	return !r->inactive && !r->no_path && !r->vl_drops && !r->missing;
}

static bool live_ok(const struct pr_result *r)
{
	return !r->live || pr_live_ok(r->live);
}

/* Append ", what" (the first time "FAIL (what") to buf when cond holds. */
static void why(char *buf, size_t len, size_t *n, bool cond,
		const char *what)
{
	if (cond && *n < len)
		*n += snprintf(buf + *n, len - *n, "%s%s",
			       *n ? ", " : "FAIL (", what);
}

/* What the switches' own routes add to the CDG, or why not checked. */
static const char *mgmt_deps(const struct vf_report *vr, char *buf,
			     size_t len)
{
	if (!vr->cdg_checked)
		return "dependencies not checked";
	if (vr->cdg_cycle)
		return "dependencies not checked (credit loop without them)";
	if (!vr->mgmt_cdg)
		return "dependencies not checked (no path SLs for switches)";
	snprintf(buf, len, "%" PRIu64 " more dependencies", vr->mgmt_edges);
	return buf;
}

/* "ok", or "FAIL (" the reasons ")" in buf. */
static const char *verdict(const struct pr_result *r, char *buf, size_t len)
{
	const struct vf_report *vr = r->vr;
	const struct pr_live *lv = r->live;
	size_t n = 0;

	why(buf, len, &n, vr->unreachable, "unreachable pairs");
	why(buf, len, &n, vr->cdg_checked && vr->cdg_cycle, "credit loop");
	why(buf, len, &n, vr->mgmt_loops, "switch routes that loop");
	why(buf, len, &n, vr->cdg_checked && vr->mgmt_cycle,
	    "credit loop through switch routes");
	why(buf, len, &n, lv && lv->inactive, "inactive ports");
	why(buf, len, &n, lv && lv->no_path, "pairs without a PathRecord");
	why(buf, len, &n, lv && lv->vl_drops,
	    "SLs mapped onto a VL the port lacks");
	why(buf, len, &n, lv && lv->missing, "tables not read");
	if (!n)
		return "ok";
	if (n < len)
		snprintf(buf + n, len - n, ")");
	return buf;
}

__attribute__((format(printf, 3, 4)))
static void line(FILE *out, const char *key, const char *fmt, ...)
{
	va_list ap;

	fprintf(out, "%-12s: ", key);
	va_start(ap, fmt);
	vfprintf(out, fmt, ap);
	va_end(ap);
	fputc('\n', out);
}

static void sl_list(uint16_t sls, char *buf, size_t len)
{
	unsigned int sl;
	size_t n = 0;

	*buf = '\0';
	for (sl = 0; sl < 16 && n < len; sl++)
		if (sls & 1u << sl)
			n += snprintf(buf + n, len - n, "%s%u", n ? "," : "",
				      sl);
}

static double rate(uint64_t n, double seconds)
{
	return seconds > 0 ? n / seconds : 0;
}

/* What verify read, in place of the dump file lines. */
static void text_live(FILE *out, const struct pr_live *lv,
		      const struct rt_tables *t)
{
	char sls[48];

	sl_list(lv->sl_mask, sls, sizeof(sls));
	line(out, "read", "live from the switches: LFTs up to each LinearFDBTop (%" PRIu32 " below LID %u), %" PRIu64 " SL2VL tables, %" PRIu64 " SMPs in %.2f s (%u in flight, %" PRIu64 " sent again)",
	     lv->short_lft, t->top, lv->sl2vl_tables, lv->smps,
	     lv->smp_seconds, lv->smp_window, lv->smps_resent);
	if (lv->no_sl_map)
		line(out, "SL2VL", "%" PRIu64 " ports without SL mapping (every SL on VL 0)",
		     lv->no_sl_map);
	line(out, "path SLs", "from the SA at LID %u: %" PRIu64 " PathRecord %s in %.2f s (%.0f/s) for %" PRIu64 " of %" PRIu64 " pairs%s, SLs %s, %" PRIu64 " pairs without a path",
	     lv->sm_lid, lv->sa_queries,
	     lv->sa_table ? "GetTables" : "queries", lv->sa_seconds,
	     rate(lv->sa_queries, lv->sa_seconds), lv->sa_pairs, lv->pairs,
	     lv->sa_table_cut ? " (GetTable answers came cut)" : "",
	     *sls ? sls : "none", lv->no_path);
	if (lv->inactive)
		line(out, "inactive", "%" PRIu64 " linked ports not Active",
		     lv->inactive);
	if (lv->vl_drops)
		line(out, "VL drops", "%" PRIu64 " SL2VL entries in use send onto a VL the port lacks",
		     lv->vl_drops);
	if (lv->missing)
		line(out, "not read", "%" PRIu64 " lookups of tables or path SLs not read",
		     lv->missing);
	if (*lv->first)
		line(out, "live problem", "%s", lv->first);
}

/* One line per job and the shared links, under --jobs. */
static void text_jobs(FILE *out, const struct pr_result *r)
{
	const struct rt_jobs *js = r->jobs;
	char key[64];
	unsigned int j;

	if (r->jobs_routed)
		line(out, "job routing", "%s", r->route->jobs);
	if (r->jobs_routed && r->route->modelled) {
		const struct rt_model *a = &r->route->with;
		const struct rt_model *b = &r->route->without;

		line(out, "job model", "%s kept; ring %.3f / %.3f (worst %.3f / %.3f), all-to-all %.3f / %.3f (worst %.3f / %.3f), NCCL all-to-all %.3f / %.3f (worst %.3f / %.3f) with / without the job routing",
		     r->route->jobs_kept ? "job routing" : "routing without jobs",
		     a->ring, b->ring, a->ring_worst, b->ring_worst, a->a2a,
		     b->a2a, a->a2a_worst, b->a2a_worst, a->nccl, b->nccl,
		     a->nccl_worst, b->nccl_worst);
	}
	for (j = 0; j < js->njobs; j++) {
		snprintf(key, sizeof(key), "job %s", js->job[j].id);
		line(out, key, "%u hosts (%u CA ports), weight %u, max own link load %" PRIu64 " (no routing below %" PRIu64 ")",
		     js->job[j].hosts, js->job[j].ports, js->job[j].weight,
		     r->jobload->max[j], r->jobload->bound[j]);
	}
	line(out, "shared links", "%" PRIu64 " of %" PRIu64 " directed switch links with job-own traffic carry two or more jobs",
	     r->jobload->shared, r->jobload->used);
}

static void text(FILE *out, const struct pr_result *r)
{
	const struct fabric *f = r->tables->fab;
	const struct vf_report *vr = r->vr;
	const struct rt_summary *rs = r->route;
	struct counts c;
	char why[160], deps[64];
	uint32_t n;

	count(f, &c);
	line(out, "source", "%s", r->source);
	line(out, "fabric", "%zu switches, %zu CAs (%zu ports), %zu switch links",
	     f->nsw, f->nca, c.ports, c.links);
	line(out, "LIDs", "1-%u (LMC %u)", r->tables->top, c.lmc);
	if (rs) {
		if (*rs->detail)
			line(out, "topology", "%s (%s)", rs->topology,
			     rs->detail);
		else
			line(out, "topology", "%s", rs->topology);
		line(out, "engine", "%s", rs->engine);
		if (rs->seconds >= 0.001)
			line(out, "route time", "%.3f s (then %.3f s checking it)",
			     rs->seconds, rs->check_seconds);
		else
			line(out, "route time", "%.0f us (then %.0f us checking it)",
			     rs->seconds * 1e6, rs->check_seconds * 1e6);
	}
	if (r->live)
		text_live(out, r->live, r->tables);
	else if (r->sl2vl)
		line(out, "SL2VL", "%s (path SL 0 for every pair)", r->sl2vl);
	else if (r->tables->vl)
		line(out, "SL2VL", "the engine's path SLs and SL2VL (%u data VLs)",
		     r->tables->vl->nvl);
	else
		line(out, "SL2VL", "none (every path on VL 0)");
	line(out, "pairs", "%" PRIu64 " (unreachable %" PRIu64 ", holes %" PRIu64 ", loops %" PRIu64 ", disconnected %" PRIu64 ")",
	     vr->pairs, vr->unreachable, vr->holes, vr->loops,
	     vr->disconnected);
	line(out, "switch LIDs", "%" PRIu64 " pairs (unreachable %" PRIu64 ", management traffic only)",
	     vr->sw_pairs, vr->sw_unreachable);
	if (vr->mgmt_cycle)
		line(out, "mgmt routes", "%" PRIu64 " pairs (unreachable %" PRIu64 ", loops %" PRIu64 "), credit loop on VL %u (%" PRIu64 " more dependencies)",
		     vr->mgmt_pairs, vr->mgmt_unreachable, vr->mgmt_loops,
		     vr->mgmt_cycle_vl, vr->mgmt_edges);
	else
		line(out, "mgmt routes", "%" PRIu64 " pairs (unreachable %" PRIu64 ", loops %" PRIu64 "), %s",
		     vr->mgmt_pairs, vr->mgmt_unreachable, vr->mgmt_loops,
		     mgmt_deps(vr, deps, sizeof(deps)));
	if (vr->answer_cycle)
		line(out, "switch answers", "credit loop on VL %u (on the requests' SLs)",
		     vr->answer_cycle_vl);
	n = sw_node(r->tables, vr->mgmt_bad.sw);
	if (vr->mgmt_loops && n != FAB_NONE)
		line(out, "mgmt loop at", "LID %u to LID %u, switch 0x%016" PRIx64 " ('%s') port %u",
		     vr->mgmt_bad.slid, vr->mgmt_bad.dlid, f->nodes[n].guid,
		     f->nodes[n].desc, vr->mgmt_bad.port);
	else if (vr->mgmt_cycle && n != FAB_NONE)
		line(out, "mgmt loop at", "switch 0x%016" PRIx64 " ('%s') port %u",
		     f->nodes[n].guid, f->nodes[n].desc, vr->mgmt_bad.port);
	n = sw_node(r->tables, vr->bad.sw);
	if (vr->unreachable && n != FAB_NONE)
		line(out, "first bad", "LID %u to LID %u, at switch 0x%016" PRIx64 " ('%s') port %u",
		     vr->bad.slid, vr->bad.dlid, f->nodes[n].guid,
		     f->nodes[n].desc, vr->bad.port);
	line(out, "max hops", "%" PRIu32, vr->max_hops);
	if (!vr->cdg_checked)
		line(out, "credit loops", "not checked");
	else if (vr->cdg_cycle)
		line(out, "credit loops", "cycle on VL %u (%u VL%s, %" PRIu64 " dependencies)",
		     vr->cycle_vl, vr->nvl, vr->nvl == 1 ? "" : "s",
		     vr->cdg_edges);
	else
		line(out, "credit loops", "none (%u VL%s, %" PRIu64 " dependencies)",
		     vr->nvl, vr->nvl == 1 ? "" : "s", vr->cdg_edges);
	if (vr->cdg_cycle && !vr->unreachable && n != FAB_NONE)
		line(out, "loop at", "switch 0x%016" PRIx64 " ('%s') port %u",
		     f->nodes[n].guid, f->nodes[n].desc, vr->bad.port);
	line(out, "all-to-all", "max %" PRIu64 ", mean %.2f, max/mean %.3f (per level %.3f)",
	     vr->efi_max, vr->efi_mean, vr->efi_ratio,
	     vr->efi_class_ratio);
	if (r->jobs)
		text_jobs(out, r);
	if (vr->ebb_perms)
		line(out, "eBB", "%.3f (%u permutations, seed %" PRIu64 ")",
		     vr->ebb, vr->ebb_perms, r->vo->seed);
	else
		line(out, "eBB", "not measured (--perms 0)");
	line(out, "peak memory", "%.1f MiB", peak_mib());
	line(out, "status", "%s", verdict(r, why, sizeof(why)));
}

/* Doubles with a fixed number of digits, not %.17g noise. */
static json_object *jdouble(double v, int digits)
{
	char buf[64];

	snprintf(buf, sizeof(buf), "%.*f", digits, v);
	return json_object_new_double_s(v, buf);
}

static json_object *jguid(uint64_t g)
{
	char buf[24];

	snprintf(buf, sizeof(buf), "0x%016" PRIx64, g);
	return json_object_new_string(buf);
}

static json_object *jswitch(const struct fabric *f, uint32_t n,
			    unsigned int port)
{
	json_object *o = json_object_new_object();

	if (!o)
		return NULL;
	json_object_object_add(o, "guid", jguid(f->nodes[n].guid));
	json_object_object_add(o, "name",
			       json_object_new_string(f->nodes[n].desc));
	json_object_object_add(o, "port", json_object_new_int(port));
	return o;
}

/* The failing switch-sourced pair or a link on their cycle, or NULL. */
static json_object *jmgmt_bad(const struct fabric *f,
			      const struct rt_tables *t,
			      const struct vf_report *vr)
{
	uint32_t n = sw_node(t, vr->mgmt_bad.sw);
	json_object *x;

	if ((!vr->mgmt_loops && !vr->mgmt_cycle) || n == FAB_NONE)
		return NULL;
	x = jswitch(f, n, vr->mgmt_bad.port);
	if (x && vr->mgmt_bad.dlid) {
		json_object_object_add(x, "slid",
			json_object_new_int(vr->mgmt_bad.slid));
		json_object_object_add(x, "dlid",
			json_object_new_int(vr->mgmt_bad.dlid));
	}
	return x;
}

static json_object *jlive(const struct pr_live *lv)
{
	json_object *o = json_object_new_object(), *sls;
	unsigned int sl;

	if (!o)
		return NULL;
	sls = json_object_new_array();
	for (sl = 0; sls && sl < 16; sl++)
		if (lv->sl_mask & 1u << sl)
			json_object_array_add(sls, json_object_new_int(sl));
#define ADD(k, v) json_object_object_add(o, k, v)
	ADD("ca", lv->ca ? json_object_new_string(lv->ca) : NULL);
	ADD("port", json_object_new_uint64(lv->port));
	ADD("sm_lid", json_object_new_uint64(lv->sm_lid));
	ADD("smps", json_object_new_uint64(lv->smps));
	ADD("smp_seconds", jdouble(lv->smp_seconds, 3));
	ADD("smp_window", json_object_new_uint64(lv->smp_window));
	ADD("smps_resent", json_object_new_uint64(lv->smps_resent));
	ADD("sl2vl_tables", json_object_new_uint64(lv->sl2vl_tables));
	ADD("no_sl_mapping_ports", json_object_new_uint64(lv->no_sl_map));
	ADD("lft_top_below_max_lid", json_object_new_uint64(lv->short_lft));
	ADD("sa_mode", json_object_new_string(lv->sa_table ? "table" : "pair"));
	ADD("sa_table_cut", json_object_new_boolean(lv->sa_table_cut));
	ADD("sa_queries", json_object_new_uint64(lv->sa_queries));
	ADD("sa_seconds", jdouble(lv->sa_seconds, 3));
	ADD("pairs", json_object_new_uint64(lv->pairs));
	ADD("sa_pairs", json_object_new_uint64(lv->sa_pairs));
	ADD("path_sls", sls);
	ADD("inactive_ports", json_object_new_uint64(lv->inactive));
	ADD("no_path_pairs", json_object_new_uint64(lv->no_path));
	ADD("vl_drops", json_object_new_uint64(lv->vl_drops));
	ADD("missing", json_object_new_uint64(lv->missing));
	ADD("first_problem", *lv->first ? json_object_new_string(lv->first) :
		NULL);
#undef ADD
	return o;
}

static json_object *jmodel_one(const struct rt_model *m)
{
	json_object *o = json_object_new_object();

	if (!o)
		return NULL;
	json_object_object_add(o, "ring", jdouble(m->ring, 4));
	json_object_object_add(o, "ring_worst", jdouble(m->ring_worst, 4));
	json_object_object_add(o, "alltoall", jdouble(m->a2a, 4));
	json_object_object_add(o, "alltoall_worst", jdouble(m->a2a_worst, 4));
	json_object_object_add(o, "nccl_alltoall", jdouble(m->nccl, 4));
	json_object_object_add(o, "nccl_alltoall_worst",
			       jdouble(m->nccl_worst, 4));
	return o;
}

/* The guard's scores, as the SM's state names them; null without. */
static json_object *jmodel(const struct rt_summary *rs)
{
	json_object *o;

	if (!rs->modelled || !(o = json_object_new_object()))
		return NULL;
	json_object_object_add(o, "kept", json_object_new_string(
		rs->jobs_kept ? "jobs" : "without jobs"));
	json_object_object_add(o, "with", jmodel_one(&rs->with));
	json_object_object_add(o, "without", jmodel_one(&rs->without));
	return o;
}

static json_object *jjobs(const struct pr_result *r)
{
	const struct rt_jobs *js = r->jobs;
	const struct vf_jobload *jl = r->jobload;
	json_object *a = json_object_new_array(), *o;
	unsigned int j;

	for (j = 0; a && j < js->njobs; j++) {
		o = json_object_new_object();
		if (!o)
			break;
		json_object_object_add(o, "id",
				       json_object_new_string(js->job[j].id));
		json_object_object_add(o, "hosts",
				       json_object_new_uint64(js->job[j].hosts));
		json_object_object_add(o, "ca_ports",
				       json_object_new_uint64(js->job[j].ports));
		json_object_object_add(o, "weight",
				       json_object_new_uint64(js->job[j].weight));
		json_object_object_add(o, "max_link_load",
				       json_object_new_uint64(jl->max[j]));
		json_object_object_add(o, "load_bound",
				       json_object_new_uint64(jl->bound[j]));
		json_object_array_add(a, o);
	}
	return a;
}

static json_object *jobject(const struct pr_result *r)
{
	const struct fabric *f = r->tables->fab;
	const struct vf_report *vr = r->vr;
	const struct rt_summary *rs = r->route;
	json_object *o = json_object_new_object(), *x;
	uint32_t n = sw_node(r->tables, vr->bad.sw);
	struct counts c;

	if (!o)
		return NULL;
	count(f, &c);
#define ADD(k, v) json_object_object_add(o, k, v)
	ADD("source", json_object_new_string(r->source));
	ADD("switches", json_object_new_uint64(f->nsw));
	ADD("cas", json_object_new_uint64(f->nca));
	ADD("ca_ports", json_object_new_uint64(c.ports));
	ADD("switch_links", json_object_new_uint64(c.links));
	ADD("max_lid", json_object_new_uint64(r->tables->top));
	ADD("lmc", json_object_new_uint64(c.lmc));
	if (rs) {
		ADD("topology", json_object_new_string(rs->topology));
		ADD("topology_detail", json_object_new_string(rs->detail));
		ADD("engine", json_object_new_string(rs->engine));
		ADD("route_seconds", jdouble(rs->seconds, 6));
		ADD("check_seconds", jdouble(rs->check_seconds, 6));
	}
	ADD("sl2vl", r->sl2vl ? json_object_new_string(r->sl2vl) : NULL);
	if (r->live)
		ADD("live", jlive(r->live));
	ADD("pairs", json_object_new_uint64(vr->pairs));
	ADD("unreachable", json_object_new_uint64(vr->unreachable));
	ADD("holes", json_object_new_uint64(vr->holes));
	ADD("loops", json_object_new_uint64(vr->loops));
	ADD("disconnected", json_object_new_uint64(vr->disconnected));
	ADD("switch_lid_pairs", json_object_new_uint64(vr->sw_pairs));
	ADD("switch_lid_unreachable",
	    json_object_new_uint64(vr->sw_unreachable));
	x = NULL;
	if (vr->unreachable && n != FAB_NONE) {
		x = jswitch(f, n, vr->bad.port);
		if (x) {
			json_object_object_add(x, "slid",
				json_object_new_int(vr->bad.slid));
			json_object_object_add(x, "dlid",
				json_object_new_int(vr->bad.dlid));
		}
	}
	ADD("first_bad", x);
	ADD("mgmt_pairs", json_object_new_uint64(vr->mgmt_pairs));
	ADD("mgmt_unreachable", json_object_new_uint64(vr->mgmt_unreachable));
	ADD("mgmt_loops", json_object_new_uint64(vr->mgmt_loops));
	ADD("mgmt_credit_loops", json_object_new_boolean(vr->mgmt_cycle));
	ADD("mgmt_loop_vl", vr->mgmt_cycle ?
		json_object_new_int(vr->mgmt_cycle_vl) : NULL);
	ADD("answer_credit_loops", json_object_new_boolean(vr->answer_cycle));
	ADD("mgmt_cdg_checked", json_object_new_boolean(vr->mgmt_cdg));
	ADD("mgmt_cdg_edges", json_object_new_uint64(vr->mgmt_edges));
	ADD("mgmt_first_bad", jmgmt_bad(f, r->tables, vr));
	ADD("max_hops", json_object_new_uint64(vr->max_hops));
	ADD("cdg_checked", json_object_new_boolean(vr->cdg_checked));
	ADD("credit_loops", json_object_new_boolean(vr->cdg_checked &&
						    vr->cdg_cycle));
	ADD("loop_vl", vr->cdg_cycle ? json_object_new_int(vr->cycle_vl) :
		NULL);
	ADD("loop_at", vr->cdg_cycle && !vr->unreachable && n != FAB_NONE ?
		jswitch(f, n, vr->bad.port) : NULL);
	ADD("vls", json_object_new_uint64(vr->nvl));
	ADD("cdg_edges", json_object_new_uint64(vr->cdg_edges));
	ADD("efi_max", json_object_new_uint64(vr->efi_max));
	ADD("efi_mean", jdouble(vr->efi_mean, 2));
	ADD("efi_ratio", jdouble(vr->efi_ratio, 3));
	ADD("efi_level_ratio", jdouble(vr->efi_class_ratio, 3));
	if (r->jobs) {
		ADD("jobs", jjobs(r));
		if (r->jobs_routed) {
			ADD("job_routing",
			    json_object_new_string(r->route->jobs));
			ADD("job_model", jmodel(r->route));
		}
		ADD("job_links", json_object_new_uint64(r->jobload->used));
		ADD("shared_links", json_object_new_uint64(r->jobload->shared));
	}
	ADD("ebb", vr->ebb_perms ? jdouble(vr->ebb, 4) : NULL);
	ADD("ebb_permutations", json_object_new_uint64(vr->ebb_perms));
	ADD("seed", json_object_new_uint64(r->vo->seed));
	ADD("peak_memory_mib", jdouble(peak_mib(), 1));
	ADD("ok", json_object_new_boolean(vf_ok(vr) && live_ok(r)));
#undef ADD
	return o;
}

int pr_report(FILE *out, const struct pr_result *r, bool json)
{
	json_object *o;
	int ret = 0;

	if (!json) {
		text(out, r);
		return ferror(out) ? -EIO : 0;
	}
	o = jobject(r);
	if (!o)
		return -ENOMEM;
	if (fprintf(out, "%s\n", json_object_to_json_string_ext(o,
			JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_SPACED |
			JSON_C_TO_STRING_NOSLASHESCAPE)) < 0)
		ret = -EIO;
	json_object_put(o);
	return ret;
}

int pr_report_written(int ret, char *err, size_t len)
{
	if (!ret && fflush(stdout))
		ret = -errno;
	if (ret)
		snprintf(err, len, "cannot write the report: %s",
			 strerror(-ret));
	return ret;
}
