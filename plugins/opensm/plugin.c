// SPDX-License-Identifier: MIT
/*
 * The OpenSM entry point: an event plugin whose create() registers the
 * external routing engine "gpuaware" and routes each heavy sweep with it.
 */
#define FILE_ID OSM_FILE_EVENT_PLUGIN_C

#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <opensm/osm_event_plugin.h>
#include <opensm/osm_file_ids.h>
#include <opensm/osm_log.h>
#include <opensm/osm_opensm.h>
#include <opensm/osm_version.h>

#include "../../routing/route.h"
#include "../../topology/monotime.h"
#include "../../routing/verify.h"
#include "export.h"
#include "gaconfig.h"
#include "gahints.h"
#include "import.h"
#include "gametrics.h"
#include "takeover.h"
#include "vl.h"

/*
 * OpenSM skips a plugin whose osm_version differs from its own, and the
 * structures plugins/opensm/ touches move between releases (3.3.24
 * inserted max_rate_enum into osm_subn_opt_t, so osm_subn_t and
 * osm_opensm_t moved behind it): a build is for the one release whose
 * headers it includes, and only releases the plugin's uses of OpenSM
 * were checked against are listed.  A new one is added after reading its
 * headers and routing-engine calls.  Upstream master at fa74b98 is
 * 3.3.24's headers and version string.
 */
#ifndef OSM_VERSION
#error "<opensm/osm_version.h> no longer defines OSM_VERSION"
#endif
#define GA_OSM_BUILT_FOR OSM_VERSION
#define GA_OSM_IS(v) (__builtin_strcmp(OSM_VERSION, "OpenSM " v) == 0)
_Static_assert(GA_OSM_IS("3.3.23") || GA_OSM_IS("3.3.24"),
	       "OpenSM headers are " OSM_VERSION
	       ", not a release the plugin was checked against: check it against them first");

#define GA_ENGINE_NAME "gpuaware"

/*
 * OSM_LOG prefixes the C function; a fixed "gpuaware:" prefix lets users
 * grep the log for the plugin, and the codes grep back to this file.
 */
#define GA_LOG(log, level, fmt, ...) do {				\
		ga_metrics_count(fmt);					\
		if (osm_log_is_active_v2(log, level, FILE_ID))		\
			osm_log_v2(log, level, FILE_ID,			\
				   GA_ENGINE_NAME ": " fmt, ##__VA_ARGS__); \
	} while (0)

/*
 * The plugin context, shared by the event plugin and the routing engine.
 * sweep and tables live from build_lid_matrices to the end of
 * ucast_build_fwd_tables of the same sweep; the switch pointers never
 * longer.  Installed tables and their fabric stay until OpenSM reports
 * the unicast routing done (the hop tables are written then) or the
 * next routing begins, whichever comes first.
 */
struct ga_ctx {
	osm_opensm_t *osm;	/* borrowed: OpenSM outlives the plugin */
	struct ga_cfg cfg;
	struct ga_sweep sweep;
	struct rt_tables tables;
	bool routed;		/* tables hold this sweep's routing */
	bool hops_due;		/* installed; hop tables not yet written */
	struct rt_summary sum;
	struct ga_vl live;	/* SLs and SL2VL of the tables last installed */
	double t_start, t_import, t_route;	/* wall seconds */
	double cpu_start;	/* this thread's CPU seconds */
	struct ga_hints *hints;	/* the job-hint socket, NULL when off */
	struct rt_jobs jobs;	/* this sweep's, when have_jobs */
	bool have_jobs;
	uint64_t hints_gen;	/* generation of the table routed for */
	struct ga_hints_routing done;	/* what state will report */
	struct ga_metrics metrics;	/* for [metrics] textfile, mlock */
	/* the sweeper's, the state manager's and the kicker's writes */
	pthread_mutex_t mlock;
	struct ga_takeover takeover;	/* LFTs read back at a first sweep */
};

/* Seconds of CPU this thread used. */
static double cpu_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return ts.tv_sec + ts.tv_nsec * 1e-9;
}

static void drop_sweep(struct ga_ctx *c)
{
	if (c->routed)
		rt_tables_release(&c->tables);
	c->routed = false;
	c->hops_due = false;
	if (c->have_jobs)
		rt_jobs_release(&c->jobs);
	c->have_jobs = false;
	ga_sweep_release(&c->sweep);
}

/*
 * The textfile metrics, when configured: after each routing, made or
 * failed, once OpenSM's unicast routing is done (the engine it used),
 * when the SM's state changes and after the hint table changed.  A file
 * that cannot be written is logged; routing goes on.  Takes mlock.
 */
static void write_metrics(struct ga_ctx *c)
{
	char err[512];
	int ret = 0;

	pthread_mutex_lock(&c->mlock);
	c->metrics.role = ga_takeover_state(c->osm);
	c->metrics.table = c->hints != NULL;
	c->metrics.table_jobs = c->hints ? ga_hints_table_jobs(c->hints) : 0;
	if (c->cfg.metrics_textfile[0])
		ret = ga_metrics_write(c->cfg.metrics_textfile, &c->metrics,
				       err, sizeof(err));
	pthread_mutex_unlock(&c->mlock);
	if (ret)
		GA_LOG(&c->osm->log, OSM_LOG_ERROR,
			"ERR GA41: metrics textfile not written: %s\n", err);
}

/* After each routing, made or failed: its numbers into the metrics. */
static void publish(struct ga_ctx *c, bool ok)
{
	struct ga_metrics *m = &c->metrics;

	pthread_mutex_lock(&c->mlock);
	m->last_s = mono_s() - c->t_start;
	m->seconds += m->last_s;
	if (ok) {
		m->ok++;
		m->last = c->done;
		m->have = true;
	} else {
		m->failed++;
	}
	m->reroutes = c->hints ? ga_hints_reroutes(c->hints) : 0;
	pthread_mutex_unlock(&c->mlock);
	write_metrics(c);
}

/* Give up on this sweep's routing. */
static int refuse(struct ga_ctx *c)
{
	drop_sweep(c);
	publish(c, false);
	return -1;
}

/*
 * An ERR line for a sweep the plugin does not route: logged, and kept
 * for the hint socket's state, which names it beside the engine OpenSM
 * falls back to.
 */
__attribute__((format(printf, 2, 3)))
static void say_refusal(struct ga_ctx *c, const char *fmt, ...)
{
	char line[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	ga_metrics_count(line);
	GA_LOG(&c->osm->log, OSM_LOG_ERROR, "%s", line);
	if (c->hints)
		ga_hints_refused(c->hints, line);
}

static void route_error(struct ga_ctx *c, int ret)
{
	const char *why = c->sum.detail[0] ? c->sum.detail : "no detail";

	if (ret == -ENOTSUP)
		say_refusal(c,
			"ERR GA01: engine '%s' does not fit this fabric (%s): %s\n",
			rt_engine_name(c->cfg.engine),
			c->sum.topology[0] ? c->sum.topology : "unknown", why);
	else if (ret == -EIO)
		say_refusal(c,
			"ERR GA02: routing with '%s' lost a connected pair, tables refused: %s\n",
			c->sum.engine[0] ? c->sum.engine :
			rt_engine_name(c->cfg.engine), why);
	else
		say_refusal(c, "ERR GA03: routing failed: %s (%s)\n",
			    strerror(-ret), why);
}

/*
 * A routing on several VLs is only deadlock-free when OpenSM programs the
 * SL2VL tables (QoS on) and every port runs that many VLs.  Say what to
 * change; the fabric meanwhile gets up*-down* on VL 0, never a routing
 * that can deadlock.
 */
static bool vls_usable(struct ga_ctx *c)
{
	const osm_subn_t *subn = &c->osm->subn;
	osm_log_t *log = &c->osm->log;
	unsigned int have = ga_vl_available(subn);

	if (!subn->opt.qos) {
		GA_LOG(log, OSM_LOG_ERROR,
			"ERR GA23: %s routing needs %u data VLs, but QoS is off so OpenSM programs no SL2VL: set 'qos TRUE' in opensm.conf; routing up*-down* on VL 0 until then\n",
			c->sum.topology, c->sum.nvl);
		return false;
	}
	if (have < c->sum.nvl) {
		GA_LOG(log, OSM_LOG_ERROR,
			"ERR GA24: %s routing needs %u data VLs, but the ports run only %u (VLCap and max_op_vls %u): raise max_op_vls in opensm.conf to %u or more if the hardware allows; routing up*-down* on VL 0 until then\n",
			c->sum.topology, c->sum.nvl, have,
			subn->opt.max_op_vls, c->sum.nvl >= 4 ? 3 : 2);
		return false;
	}
	return true;
}

/*
 * The job set of this sweep from the hint table.  A host several jobs
 * share routes with the first of them (rt_jobs_build()), the rest routed;
 * routing goes on without jobs only when the set cannot be built at all
 * (out of memory, said in the log).
 */
static void sweep_jobs(struct ga_ctx *c)
{
	char err[256];
	int ret;

	if (!c->hints)
		return;
	ret = ga_hints_jobs(c->hints, c->sweep.fab, &c->jobs, &c->hints_gen,
			    err, sizeof(err));
	if (ret < 0)
		GA_LOG(&c->osm->log, OSM_LOG_ERROR,
			"ERR GA33: cannot route for the job table (generation %" PRIu64 "): %s; routing without jobs\n",
			c->hints_gen, err);
	c->have_jobs = ret > 0;
	c->jobs.search_moves = c->cfg.job_search_moves;
}

static const struct rt_jobs *jobs_of(const struct ga_ctx *c)
{
	return c->have_jobs ? &c->jobs : NULL;
}

static int route_one_vl(struct ga_ctx *c)
{
	char topo[sizeof(c->sum.topology)];

	memcpy(topo, c->sum.topology, sizeof(topo));
	rt_tables_release(&c->tables);
	if (rt_route(c->sweep.fab, RT_ENGINE_UPDOWN, jobs_of(c), &c->tables,
		     &c->sum))
		return -EIO;
	memcpy(c->sum.topology, topo, sizeof(topo));
	return 0;
}

/* Import the subnet and route it. */
static int ga_build_lid_matrices(void *context)
{
	struct ga_ctx *c = context;
	double t;
	int ret;

	/* Left over only if OpenSM skipped our second callback. */
	drop_sweep(c);
	if (c->takeover.cleared)
		ga_takeover_done(&c->takeover, c->osm);
	if (c->hints)
		ga_hints_sweep_begin(c->hints);
	memset(&c->sum, 0, sizeof(c->sum));
	c->t_start = mono_s();
	c->cpu_start = cpu_s();
	ret = ga_import(&c->osm->subn, &c->sweep);
	if (ret) {
		say_refusal(c, "ERR GA04: cannot import the subnet: %s\n",
			    strerror(-ret));
		publish(c, false);
		return -1;
	}
	t = mono_s();
	c->t_import = t - c->t_start;
	/* an engine leaves out what it can do without rather than fail here */
	c->sweep.fab->vls = c->osm->subn.opt.qos ?
			    ga_vl_available(&c->osm->subn) : 1;
	sweep_jobs(c);
	ret = rt_route(c->sweep.fab, c->cfg.engine, jobs_of(c), &c->tables,
		       &c->sum);
	if (!ret && c->sum.nvl > 1 && !vls_usable(c))
		ret = route_one_vl(c);
	c->t_route = mono_s() - t;
	if (ret) {
		rt_tables_release(&c->tables);
		route_error(c, ret);
		drop_sweep(c);
		publish(c, false);
		return -1;
	}
	c->routed = true;
	return 0;
}

/*
 * The verifier's one-line summary; false when it finds a lost pair, a
 * credit loop, or a switch's own route that loops or closes a credit
 * loop, which rt_route() should have made impossible.
 */
static bool check_quality(struct ga_ctx *c)
{
	struct vf_opts o = { 0 };
	struct vf_report r;
	osm_log_t *log = &c->osm->log;
	double t = mono_s();
	char ebb[32] = "not measured";
	char lost[128] = "0 unreachable pairs";
	int ret;

	if (c->cfg.verbosity >= GA_DEBUG)
		o.ebb_perms = VF_DEFAULT_PERMS;
	ret = vf_check(&c->tables, &o, &r);
	if (ret) {
		GA_LOG(log, OSM_LOG_ERROR,
			"ERR GA06: cannot run the verifier: %s\n",
			strerror(-ret));
		return true;
	}
	if (r.ebb_perms)
		snprintf(ebb, sizeof(ebb), "%.3f (%u perms)", r.ebb,
			 r.ebb_perms);
	c->done.checked = true;
	c->done.pairs = r.pairs;
	c->done.unreachable = r.unreachable;
	c->done.credit_loop = r.cdg_cycle;
	c->done.max_hops = r.max_hops;
	c->done.efi_max = r.efi_max;
	c->done.efi_ratio = r.efi_ratio;
	GA_LOG(log, OSM_LOG_INFO,
		"quality: %" PRIu64 " pairs, %" PRIu64 " unreachable (%" PRIu64 " holes, %" PRIu64 " loops), %" PRIu64 " disconnected by cabling, %" PRIu64 " of %" PRIu64 " switch-LID pairs unreachable, switch routes %" PRIu64 " of %" PRIu64 " unreachable (%" PRIu64 " loops), max %u hops, %s on %u VL(s), EFI max %" PRIu64 " (%.2fx mean, %.2fx per level), eBB %s, verified in %.1f ms\n",
		r.pairs, r.unreachable, r.holes, r.loops, r.disconnected,
		r.sw_unreachable, r.sw_pairs, r.mgmt_unreachable,
		r.mgmt_pairs, r.mgmt_loops, r.max_hops,
		!r.cdg_checked ? "CDG not checked" :
		r.cdg_cycle ? "CREDIT LOOP" :
		r.mgmt_cycle ? "CREDIT LOOP through switch routes" :
		"no credit loop", r.nvl,
		r.efi_max, r.efi_ratio, r.efi_class_ratio, ebb,
		(mono_s() - t) * 1e3);
	if (r.answer_cycle)
		GA_LOG(log, OSM_LOG_INFO,
			"WRN GA44: the switches' answers to CA ports' requests, on the requests' SLs, close a credit loop on VL %u (management traffic only)\n",
			r.answer_cycle_vl);
	if (vf_ok(&r))
		return true;
	if (r.unreachable)
		snprintf(lost, sizeof(lost), "%" PRIu64 " unreachable pairs (first LID %u -> %u at switch %u port %u)",
			 r.unreachable, r.bad.slid, r.bad.dlid, r.bad.sw,
			 r.bad.port);
	say_refusal(c,
		"ERR GA07: the verifier rejects the tables: %s%s%s%s\n", lost,
		r.cdg_cycle ? ", credit loop" : "",
		r.mgmt_loops ? ", switch routes that loop" : "",
		r.mgmt_cycle ? ", credit loop through switch routes" : "");
	return false;
}

/*
 * The guard's choice: the jobs' collectives on the model with the
 * routing for them and without, as fractions of line rate.
 */
static void log_model(struct ga_ctx *c)
{
	const struct rt_model *a = &c->sum.with, *b = &c->sum.without;

	GA_LOG(&c->osm->log, OSM_LOG_INFO,
		"%s for %u jobs: on the collectives model ring %.3f / %.3f (worst %.3f / %.3f), all-to-all %.3f / %.3f (worst %.3f / %.3f), NCCL all-to-all %.3f / %.3f (worst %.3f / %.3f) of line rate with / without the job routing, %u routings tried, modelled in %.1f ms\n",
		c->sum.jobs_kept ? "job routing kept" :
		"routing without jobs kept (the job routing is no faster)",
		c->jobs.njobs, a->ring, b->ring, a->ring_worst,
		b->ring_worst, a->a2a, b->a2a, a->a2a_worst, b->a2a_worst,
		a->nccl, b->nccl, a->nccl_worst, b->nccl_worst, c->sum.tries,
		c->sum.model_seconds * 1e3);
}

/*
 * Wall time says what OpenSM waited; on a loaded host the CPU time of the
 * routing thread is what the plugin itself cost.
 */
static void log_summary(struct ga_ctx *c)
{
	double ms = (mono_s() - c->t_start) * 1e3;
	double cpu = (cpu_s() - c->cpu_start) * 1e3;
	const struct fabric *f = c->sweep.fab;
	osm_log_t *log = &c->osm->log;

	GA_LOG(log, OSM_LOG_INFO,
		"topology %s, engine %s: %zu switches, %zu CAs, %zu switch links (%u left out), top LID %u, %u data VL%s, routed in %.1f ms (%.1f ms CPU)\n",
		c->sum.topology, c->sum.engine, f->nsw, f->nca,
		fab_sw_links(f), c->sweep.dropped, c->tables.top, c->sum.nvl,
		c->sum.nvl > 1 ? "s" : "", ms, cpu);
	if (c->sum.detail[0])
		GA_LOG(log, OSM_LOG_INFO, "recogniser: %s\n", c->sum.detail);
	if (c->sum.modelled)
		log_model(c);
	if (c->cfg.verbosity < GA_VERBOSE)
		return;
	GA_LOG(log, OSM_LOG_VERBOSE,
		"import %.1f ms, recognise+route %.1f ms (core: %.1f ms routing, %.1f ms checking)\n",
		c->t_import * 1e3, c->t_route * 1e3, c->sum.seconds * 1e3,
		c->sum.check_seconds * 1e3);
}

/*
 * CA ports' routes to switch LIDs the routing left without one, where
 * every one it could give would close a credit loop: never silently,
 * since PerfMgr and the diagnostics reach switches by LID.  Not an
 * error: the tables are sound and installed.
 */
static void log_switch_lids(struct ga_ctx *c)
{
	if (!c->sum.sw_unreachable)
		return;
	GA_LOG(&c->osm->log, OSM_LOG_INFO,
		"WRN GA43: %" PRIu64 " of %" PRIu64 " CA-to-switch-LID pairs have no route (%s found none free of credit loops on its VLs): PerfMgr, perfquery and ibqueryerrors from those hosts do not reach those switches\n",
		c->sum.sw_unreachable, c->sum.sw_pairs, c->sum.engine);
}

/*
 * What this routing was, for the metrics and the hint socket's state
 * request.
 */
static void note_routing(struct ga_ctx *c)
{
	struct ga_hints_routing *d = &c->done;

	d->generation = c->hints_gen;
	snprintf(d->topology, sizeof(d->topology), "%s", c->sum.topology);
	snprintf(d->engine, sizeof(d->engine), "%s", c->sum.engine);
	d->nvl = c->sum.nvl;
	d->jobs = c->have_jobs ? c->jobs.njobs : 0;
	snprintf(d->job_routing, sizeof(d->job_routing), "%s", c->sum.jobs);
	d->modelled = c->sum.modelled;
	d->jobs_kept = c->sum.jobs_kept;
	d->with = c->sum.with;
	d->without = c->sum.without;
	d->ms = (mono_s() - c->t_start) * 1e3;
	if (c->hints)
		ga_hints_routed(c->hints, d);
}

/* Hand this sweep's tables to OpenSM, which pushes the changed blocks. */
static int ga_build_fwd_tables(void *context)
{
	struct ga_ctx *c = context;
	osm_log_t *log = &c->osm->log;
	int ret;

	memset(&c->done, 0, sizeof(c->done));
	if (!c->routed) {
		say_refusal(c,
			"ERR GA08: no routing from this sweep to install\n");
		return -1;
	}
	if (c->cfg.verbosity >= GA_NORMAL)
		log_summary(c);
	log_switch_lids(c);
	if (c->cfg.verbosity >= GA_VERBOSE && !check_quality(c))
		return refuse(c);
	ret = ga_export_lfts(&c->sweep, &c->tables);
	if (ret) {
		say_refusal(c, "ERR GA09: cannot install the tables: %s\n",
			    strerror(-ret));
		return refuse(c);
	}
	if (ga_takeover_compare(&c->takeover, c->osm))
		GA_LOG(log, OSM_LOG_INFO,
			"first sweep as master: LFTs read back from %u switches (%u blocks); %u blocks differ from this routing and are sent, %u are kept as the switches hold them\n",
			c->takeover.nsw, c->takeover.asked, c->takeover.differ,
			c->takeover.same);
	/* OpenSM programs SL2VL after the LFTs: both change in one sweep. */
	ret = ga_vl_swap(&c->live, &c->tables);
	if (ret) {
		say_refusal(c, "ERR GA25: cannot keep the SL tables: %s\n",
			    strerror(-ret));
		return refuse(c);
	}
	note_routing(c);
	ga_sweep_forget_switches(&c->sweep);
	c->hops_due = true;
	publish(c, true);
	return 0;
}

/*
 * The hop tables of the routing just installed.  OpenSM reads them only
 * after the unicast routing is done (multicast trees, dumps), so they
 * are written then and the switches get their LFTs without waiting for
 * them.  OpenSM allocates a row per switch and LID the first time, which
 * costs a page fault per few rows.
 */
static void write_hops(struct ga_ctx *c)
{
	osm_log_t *log = &c->osm->log;
	double t = mono_s();
	int ret;

	CL_PLOCK_EXCL_ACQUIRE(&c->osm->lock);
	ret = ga_export_hops(&c->osm->subn, &c->tables);
	CL_PLOCK_RELEASE(&c->osm->lock);
	if (ret < 0)
		GA_LOG(log, OSM_LOG_ERROR,
			"ERR GA05: cannot fill the hop tables: %s; multicast trees may miss switches\n",
			strerror(-ret));
	else if (ret > 0)
		GA_LOG(log, OSM_LOG_ERROR,
			"ERR GA42: %d routed switches left the subnet before their hop tables were written\n",
			ret);
	else if (c->cfg.verbosity >= GA_VERBOSE)
		GA_LOG(log, OSM_LOG_VERBOSE,
			"hop tables written after the LFTs in %.1f ms\n",
			(mono_s() - t) * 1e3);
}

/* The SA's hot path, once per PathRecord: a table lookup under a lock. */
static uint8_t ga_path_sl(void *context, uint8_t hint, const ib_net16_t slid,
			  const ib_net16_t dlid)
{
	struct ga_ctx *c = context;

	return ga_vl_path_sl(&c->live, hint, cl_ntoh16(slid),
			     cl_ntoh16(dlid));
}

static void ga_update_sl2vl(void *context, osm_physp_t *port, uint8_t in,
			    uint8_t out, ib_slvl_table_t *t)
{
	struct ga_ctx *c = context;

	ga_vl_sl2vl(&c->live, port, in, out, t);
}

static int ga_setup(struct osm_routing_engine *re, struct osm_opensm *osm)
{
	(void)osm;
	/* re->context already holds the context given at registration. */
	re->build_lid_matrices = ga_build_lid_matrices;
	re->ucast_build_fwd_tables = ga_build_fwd_tables;
	re->path_sl = ga_path_sl;
	re->update_sl2vl = ga_update_sl2vl;
	return 0;
}

static const external_routing_engine_module_t ga_module = {
	.name = GA_ENGINE_NAME,
	.setup = ga_setup,
};

/*
 * A reroute as the console's: OpenSM recomputes the routing without a
 * new discovery and sends the LFT blocks that changed.  The metrics show
 * the new table now: a standby never routes, and an alert reads its
 * table's size.
 */
static void kick(void *ctx)
{
	struct ga_ctx *c = ctx;

	c->osm->subn.force_reroute = TRUE;
	osm_opensm_sweep(c->osm);
	write_metrics(c);
}

static void hints_log(void *ctx, bool error, const char *msg)
{
	struct ga_ctx *c = ctx;

	ga_metrics_count(msg);
	GA_LOG(&c->osm->log, error ? OSM_LOG_ERROR : OSM_LOG_INFO, "%s\n",
		msg);
}

static const char *sm_state(void *ctx)
{
	struct ga_ctx *c = ctx;

	return ga_takeover_state(c->osm);
}

/* The hint socket is optional: without it the plugin routes as before. */
static void start_hints(struct ga_ctx *c)
{
	const struct ga_hints_ops ops = { kick, hints_log, c, sm_state };
	char err[256], tcp[64];

	if (!c->cfg.hints_socket[0])
		return;
	if (ga_hints_start(&c->cfg, &ops, &c->hints, err, sizeof(err))) {
		GA_LOG(&c->osm->log, OSM_LOG_ERROR,
			"ERR GA32: no job-hint socket at %s: %s; routing without job hints\n",
			c->cfg.hints_socket, err);
		return;
	}
	ga_hints_tcp_name(c->hints, tcp, sizeof(tcp));
	GA_LOG(&c->osm->log, OSM_LOG_INFO,
		"job-hint socket %s%s%s%s (state in %s, reroutes at most every %u ms)\n",
		c->cfg.hints_socket, *tcp ? " and tcp " : "", tcp,
		*tcp ? " (changes in a MUNGE credential)" : "",
		c->cfg.hints_dir, c->cfg.hints_interval_ms);
}

static void cfg_log(void *ctx, enum ga_cfg_level lvl, const char *msg)
{
	struct ga_ctx *c = ctx;

	ga_metrics_count(msg);
	GA_LOG(&c->osm->log, lvl == GA_CFG_ERROR ? OSM_LOG_ERROR :
		OSM_LOG_INFO, "%s\n", msg);
}

static void *ga_create(struct osm_opensm *osm)
{
	const char *path = osm->subn.opt.event_plugin_options;
	struct ga_ctx *c = calloc(1, sizeof(*c));

	if (!c) {
		GA_LOG(&osm->log, OSM_LOG_ERROR,
			"ERR GA20: out of memory\n");
		return NULL;
	}
	c->osm = osm;
	if (pthread_mutex_init(&c->mlock, NULL))
		goto out_free;
	if (ga_vl_init(&c->live))
		goto out_mlock;
	ga_cfg_load(&c->cfg, path, cfg_log, c);
	/*
	 * Last step: once registered, OpenSM keeps our setup pointer, so
	 * create() must not fail (and have the library unloaded) after it.
	 */
	if (osm_register_external_routing_engine(osm, &ga_module, c) !=
	    CL_SUCCESS) {
		GA_LOG(&osm->log, OSM_LOG_ERROR,
			"ERR GA21: cannot register routing engine '%s'\n",
			GA_ENGINE_NAME);
		ga_vl_release(&c->live);
		pthread_mutex_destroy(&c->mlock);
		free(c);
		return NULL;
	}
	GA_LOG(&osm->log, OSM_LOG_INFO,
		"routing engine '%s' registered (plugin built for %s, engine %s, verbosity %s)\n",
		GA_ENGINE_NAME, GA_OSM_BUILT_FOR, rt_engine_name(c->cfg.engine),
		ga_verbosity_name(c->cfg.verbosity));
	start_hints(c);
	return c;

out_mlock:
	pthread_mutex_destroy(&c->mlock);
out_free:
	GA_LOG(&osm->log, OSM_LOG_ERROR,
		"ERR GA22: cannot set up the plugin's locks\n");
	free(c);
	return NULL;
}

static void ga_delete(void *data)
{
	struct ga_ctx *c = data;

	if (!c)
		return;
	ga_hints_stop(c->hints);
	drop_sweep(c);
	ga_takeover_done(&c->takeover, c->osm);
	ga_vl_release(&c->live);
	pthread_mutex_destroy(&c->mlock);
	free(c);
}

/*
 * OpenSM reports the unicast routing done after waiting for every LFT
 * block it sent; a block that failed left subnet_initialization_error
 * set (the heavy sweep reports done all the same), and then the switches
 * may hold older blocks.  Discovery done is when a first master sweep
 * reads the LFTs back.  Both on the state manager's own thread, before
 * OpenSM builds the multicast trees (which read the hop tables).
 */
static void ga_report(void *data, osm_epi_event_id_t id, void *event)
{
	struct ga_ctx *c = data;
	const struct osm_routing_engine *used;

	(void)event;
	if (!c)
		return;
	if (id == OSM_EVENT_ID_HEAVY_SWEEP_DONE)
		ga_takeover_read(&c->takeover, c->osm);
	/* a standby never routes: its role is written when it changes */
	if (id == OSM_EVENT_ID_STATE_CHANGE)
		write_metrics(c);
	if (id != OSM_EVENT_ID_UCAST_ROUTING_DONE)
		return;
	ga_takeover_done(&c->takeover, c->osm);
	if (c->hops_due)
		write_hops(c);
	drop_sweep(c);
	used = c->osm->routing_engine_used;
	pthread_mutex_lock(&c->mlock);
	snprintf(c->metrics.engine_used, sizeof(c->metrics.engine_used), "%s",
		 used && used->name ? used->name : "");
	pthread_mutex_unlock(&c->mlock);
	write_metrics(c);
	if (c->hints)
		ga_hints_in_switches(c->hints,
				     !c->osm->subn.subnet_initialization_error,
				     c->metrics.engine_used[0] ?
				     c->metrics.engine_used : NULL);
}

osm_event_plugin_t osm_event_plugin = {
	.osm_version = OSM_VERSION,
	.create = ga_create,
	.delete = ga_delete,
	.report = ga_report,
};
