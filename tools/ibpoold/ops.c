// SPDX-License-Identifier: MIT
/*
 * The pool socket's operations.  Each checks its fields, takes the lock,
 * calls the pool (which writes a change to the journal), and builds the
 * reply, which waits until the journal is durable up to that point
 * (group commit): nothing is acknowledged, or shown, that a restart
 * could lose.  Allocation loads are charged per directed link along the
 * client-GPU paths, both ways, taken back on release, and recomputed
 * after expiries, job ends and a new view.
 */
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "log.h"
#include "ops.h"
#include "sm/hints.h"
#include "tools/lib/pool/hostlist.h"
#include "tools/lib/pool/placemodel.h"
#include "tools/lib/pool/swname.h"
#include "tools/lib/pool/topoexport.h"
#include "topology/monotime.h"

/* qsort_r/bsearch key: a name against a config host index. */
static int cmp_name(const void *key, const void *elem, void *cfg)
{
	const struct pool_config *c = cfg;

	return strcasecmp(key, c->hosts[*(const uint32_t *)elem].name);
}

static int cmp_host(const void *a, const void *b, void *cfg)
{
	const struct pool_config *c = cfg;

	return cmp_name(c->hosts[*(const uint32_t *)a].name, b, cfg);
}

static long cfg_host(const struct poold *d, const char *name)
{
	size_t lo = 0, hi = d->cfg->nhosts, mid;
	int c;

	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		c = cmp_name(name, &d->byname[mid], (void *)d->cfg);
		if (!c)
			return d->byname[mid];
		if (c < 0)
			hi = mid;
		else
			lo = mid + 1;
	}
	return -1;
}

/*
 * The client's ports, rail by rail: a configured host's HCAs in config
 * order (those the fabric has), else the fabric's CAs of that host name.
 */
static size_t client_ports(const struct poold *d, const char *client,
			   uint32_t *idx)
{
	long h = cfg_host(d, client), x;
	size_t k = 0;
	unsigned int r;

	if (h >= 0) {
		for (r = 0; r < d->cfg->hosts[h].nhca; r++) {
			x = d->port[d->hoff[h] + r];
			if (x >= 0)
				idx[k++] = x;
		}
		if (k)
			return k;
	}
	return pool_view_host_ports(d->view, client, idx, POOL_MAX_HCAS);
}

/* What the cost oracle asks from: the daemon and the client's ports. */
struct oracle {
	const struct poold *d;
	uint32_t client_port[POOL_MAX_HCAS];	/* client_ports()'s */
	size_t nclient_ports;
};

/* The client's port the path to port's rail starts from. */
static uint32_t client_src(const struct oracle *o,
			   const struct pool_port *port)
{
	return o->client_port[port->rail % o->nclient_ports];
}

static int oracle(void *ctx, const char *client, const struct pool_port *port,
		  uint32_t *dlid, double *load)
{
	const struct oracle *o = ctx;
	struct pool_path f, r;
	long dst = o->d->port[o->d->hoff[port->index] + port->rail];
	int ret;

	(void)client;
	if (dst < 0)
		return dst;
	ret = pool_view_choose(o->d->view, client_src(o, port), dst, &f, &r);
	if (ret)
		return ret;
	*dlid = f.dlid;
	*load = pool_view_pair_cost(o->d->view, &f, &r);
	return 0;
}

/* pool_alloc()'s cheap lower bound of what oracle() answers. */
static int bound(void *ctx, const char *client, const struct pool_port *port,
		 double *load)
{
	const struct oracle *o = ctx;
	long dst = o->d->port[o->d->hoff[port->index] + port->rail];

	(void)client;
	if (dst < 0)
		return dst;
	return pool_view_bound(o->d->view, client_src(o, port), dst, load);
}

/* Both paths of GPU (or HCA) x; -errno when the fabric lost them. */
static int gpu_paths(const struct poold *d, const struct pool_gpu_ref *x,
		     const uint32_t *cp, size_t ncp,
		     uint32_t *src, uint32_t *dst, struct pool_path *f,
		     struct pool_path *r)
{
	long port = d->port[d->hoff[x->host] + x->rail];

	if (port < 0)
		return port;
	if (!ncp)
		return -ENOENT;
	*src = cp[x->rail % ncp];
	*dst = port;
	return pool_view_pair(d->view, *src, *dst, x->dlid, f, r);
}

static void charge(struct poold *d, const struct pool_alloc *a, double w)
{
	uint32_t cp[POOL_MAX_HCAS], src, dst;
	struct pool_path f, r;
	size_t ncp = client_ports(d, a->client, cp);
	unsigned int g;

	for (g = 0; g <= a->ngpus; g++) {
		const struct pool_gpu_ref *x = g < a->ngpus ? &a->gpus[g] :
					       a->has_port ? &a->port : NULL;

		if (x && !gpu_paths(d, x, cp, ncp, &src, &dst, &f, &r)) {
			pool_view_charge(d->view, &f, w);
			pool_view_charge(d->view, &r, w);
		}
	}
}

static void fabric_hosts(struct poold *d, time_t now);
static void schedule(struct poold *d);
static size_t expire(struct poold *d);

static void fresh_loads(struct poold *d)
{
	size_t i;

	if (!d->loads_stale)
		return;
	pool_view_clear_alloc(d->view);
	for (i = 0; i < pool_nallocs(d->pool); i++)
		charge(d, pool_alloc_at(d->pool, i), 1);
	d->loads_stale = false;
}

static json_object *jobs_json(const struct poold *d, bool for_hints)
{
	json_object *arr = json_object_new_array(), *o, *h;
	size_t i, k, n;

	if (!arr)
		return NULL;
	for (i = 0; i < pool_njobs(d->pool); i++) {
		const struct pool_job *jb = pool_job_at(d->pool, i);

		o = json_object_new_object();
		h = json_object_new_array();
		if (!o || !h || json_object_array_add(arr, o)) {
			json_object_put(o);
			json_object_put(h);
			goto out_put;
		}
		if (sm_json_add(o, for_hints ? "id" : "job",
				json_object_new_string(jb->id)) ||
		    sm_json_add(o, "hosts", h))
			goto out_put;
		for (k = 0; k < jb->nhosts; k++)
			if (json_object_array_add(h,
				json_object_new_string(jb->hosts[k])))
				goto out_put;
		if (for_hints)
			continue;
		h = json_object_new_array();
		if (sm_json_add(o, "allocs", h))
			goto out_put;
		for (n = 0; n < pool_nallocs(d->pool); n++) {
			const struct pool_alloc *a = pool_alloc_at(d->pool, n);
			char id[24];

			snprintf(id, sizeof(id), "%" PRIu64, a->id);
			if (!strcmp(a->job, jb->id) &&
			    json_object_array_add(h, json_object_new_string(id)))
				goto out_put;
		}
	}
	return arr;
out_put:
	json_object_put(arr);
	return NULL;
}

static void post_jobs(struct poold *d)
{
	json_object *jobs;

	if (!d->relay)
		return;
	jobs = jobs_json(d, true);
	if (!jobs || poold_fanout_post(d->relay, jobs))
		poold_log(LOG_ERR, "relay: out of memory, the plugin's job table is behind");
}

/*
 * Configured HCA i (host h, rail r) in view: its port, or -errno with
 * the reason logged.  One found by description must be the only CA with
 * it and on the port it was first found on: a host's root can give its
 * CA another host's description and take that host's GPUs.
 */
static long find_hca(struct poold *d, const struct pool_view *view,
		     size_t h, unsigned int r, size_t i)
{
	const struct pool_hca *x = &d->cfg->hosts[h].hca[r];
	const char *host = d->cfg->hosts[h].name;
	uint64_t seen[2], pin = d->pin[i];
	long e = pool_view_hca(view, x, &d->pin[i], seen);

	if (e == -EEXIST)
		poold_log(LOG_ERR, "host %s rail %u: CAs 0x%016" PRIx64 " and 0x%016" PRIx64 " are both described '%s' (one spoofed?): its GPUs are not offered; configure the HCA by port GUID (ibpoold --print-host)",
			  host, r, seen[0], seen[1], x->desc);
	else if (e == -EPERM)
		poold_log(LOG_ERR, "host %s rail %u: the CA described '%s' is now port 0x%016" PRIx64 ", it was 0x%016" PRIx64 ": refused (a spoofed description, or a new HCA: configure it by port GUID, or restart ibpoold to take it)",
			  host, r, x->desc, seen[0], pin);
	else if (e < 0 && x->desc)
		poold_log(LOG_WARNING, "host %s rail %u: %s '%s': its GPUs are not offered",
			  host, r, e == -ENOLINK ? "no cabled port on" : "no CA",
			  x->desc);
	else if (e < 0)
		poold_log(LOG_WARNING, "host %s rail %u: port 0x%016" PRIx64 " %s: its GPUs are not offered",
			  host, r, x->guid, e == -ENOLINK ? "is not cabled" :
			  "is not in the fabric");
	return e;
}

/*
 * Make view d's: the host tree and every configured HCA's port in it,
 * loads charged again.  On error d keeps its view.
 */
static int bind_view(struct poold *d, struct pool_view *view, char *err,
		     size_t len)
{
	const struct pool_config *cfg = d->cfg;
	struct pool_tree tree;
	char **names;
	unsigned int r;
	size_t h;
	int ret;

	ret = pool_swname_build(view->fab, &d->names, &names);
	if (ret) {
		snprintf(err, len, "out of memory");
		return ret;
	}
	ret = pool_tree_build(view->fab, names, &tree, err, len);
	pool_swname_free(names, view->fab->nnodes);
	if (ret)
		return ret;
	ret = pool_tree_bind(&tree, cfg);
	if (ret) {
		snprintf(err, len, "out of memory");
		pool_tree_release(&tree);
		return ret;
	}
	pool_tree_release(&d->tree);
	d->tree = tree;
	d->view = view;
	d->nhcas = 0;
	for (h = 0; h < cfg->nhosts; h++) {
		d->hoff[h] = d->nhcas;
		for (r = 0; r < cfg->hosts[h].nhca; r++) {
			d->port[d->nhcas] = find_hca(d, view, h, r, d->nhcas);
			d->nhcas++;
		}
	}
	d->loads_stale = true;
	fresh_loads(d);
	d->view_at = d->now(NULL);
	d->refresh_failed = 0;
	return 0;
}

void poold_iso_time(time_t t, char *buf, size_t len)
{
	struct tm tm;

	gmtime_r(&t, &tm);
	strftime(buf, len, "%Y-%m-%dT%H:%M:%SZ", &tm);
}

void poold_refresh_failed(struct poold *d, const char *err, char *msg,
			  size_t len)
{
	char at[32];

	pthread_mutex_lock(&d->lock);
	d->refresh_failed++;
	d->refresh_err_at = d->now(NULL);
	snprintf(d->refresh_err, sizeof(d->refresh_err), "%s", err);
	poold_iso_time(d->view_at, at, sizeof(at));
	snprintf(msg, len, "the view of %s, %lld s old, %u refresh%s failed in a row",
		 at, (long long)(d->refresh_err_at - d->view_at),
		 d->refresh_failed, d->refresh_failed > 1 ? "es" : "");
	pthread_mutex_unlock(&d->lock);
}

int poold_init(struct poold *d, const struct pool_config *cfg,
	       struct pool *pool, struct pool_view *view,
	       struct poold_fanout *relay, char *err, size_t len)
{
	size_t h, n = 0;
	int ret;

	memset(d, 0, sizeof(*d));
	d->cfg = cfg;
	d->pool = pool;
	d->relay = relay;
	d->now = time;
	for (h = 0; h < cfg->nhosts; h++)
		n += cfg->hosts[h].nhca;
	d->port = calloc(n + 1, sizeof(*d->port));
	d->pin = calloc(n + 1, sizeof(*d->pin));
	d->hoff = calloc(cfg->nhosts + 1, sizeof(*d->hoff));
	d->byname = calloc(cfg->nhosts + 1, sizeof(*d->byname));
	if (!d->port || !d->pin || !d->hoff || !d->byname) {
		snprintf(err, len, "out of memory");
		ret = -ENOMEM;
		goto out_free;
	}
	for (h = 0; h < POOLD_NOPS; h++)
		pool_hist_init(&d->opstat[h].time);
	for (h = 0; h < cfg->nhosts; h++)
		d->byname[h] = h;
	qsort_r(d->byname, cfg->nhosts, sizeof(*d->byname), cmp_host,
		(void *)cfg);
	if (cfg->node_name_map) {
		ret = pool_swname_map_load(cfg->node_name_map, &d->names, err,
					   len);
		if (ret)
			goto out_free;
	}
	ret = bind_view(d, view, err, len);
	if (ret)
		goto out_free;
	ret = poold_queue_new(cfg, pool, &d->tree, &d->queue);
	if (ret) {
		snprintf(err, len, "queue: %s", strerror(-ret));
		pool_tree_release(&d->tree);
		goto out_free;
	}
	fabric_hosts(d, pool_clock(pool));
	pthread_mutex_init(&d->lock, NULL);
	post_jobs(d);
	return 0;
out_free:
	for (h = 0; h < POOLD_NOPS; h++)
		pool_hist_destroy(&d->opstat[h].time);
	pool_swname_map_release(&d->names);
	free(d->byname);
	free(d->hoff);
	free(d->pin);
	free(d->port);
	return ret;
}

int poold_swap_view(struct poold *d, struct pool_view *view,
		    struct pool_view **old, char *err, size_t len)
{
	int ret;

	pthread_mutex_lock(&d->lock);
	*old = d->view;
	ret = bind_view(d, view, err, len);
	if (ret) {
		*old = view;
	} else {
		fabric_hosts(d, d->now(NULL));
		schedule(d);
	}
	pthread_mutex_unlock(&d->lock);
	return ret;
}

void poold_release(struct poold *d)
{
	size_t h;

	pool_tree_release(&d->tree);
	pool_swname_map_release(&d->names);
	poold_queue_free(d->queue);
	json_object_put(d->events);
	for (h = 0; h < POOLD_NOPS; h++)
		pool_hist_destroy(&d->opstat[h].time);
	pthread_mutex_destroy(&d->lock);
	free(d->byname);
	free(d->hoff);
	free(d->pin);
	free(d->port);
}

/* --- the queue --- */

static int alloc_fields(const struct poold *d, const struct pool_alloc *a,
			json_object *o);

/*
 * A host is up to the fabric while one of its HCAs is in it; the GPUs
 * behind one that is not are lost all the same.
 */
static void fabric_hosts(struct poold *d, time_t now)
{
	unsigned int r;
	size_t h;
	bool down, gone;

	for (h = 0; h < d->cfg->nhosts; h++) {
		down = true;
		for (r = 0; r < d->cfg->hosts[h].nhca; r++) {
			gone = d->port[d->hoff[h] + r] < 0;
			poold_queue_rail(d->queue, h, r, gone);
			down &= gone;
		}
		poold_queue_fabric(d->queue, h, down, now);
	}
}

static uint32_t grant_dlid(void *ctx, const char *client, uint32_t h,
			   unsigned int rail)
{
	struct oracle o = { .d = ctx };
	const struct pool_host_cfg *c = &o.d->cfg->hosts[h];
	struct pool_port port = { .host = c->name, .rail = rail,
				  .hca = &c->hca[rail], .index = h };
	uint32_t dlid = 0;
	double load;

	o.nclient_ports = client_ports(o.d, client, o.client_port);
	if (!o.nclient_ports || oracle(&o, client, &port, &dlid, &load))
		return 0;
	return dlid;
}

static int add_ticket(json_object *o, const char *k, uint64_t t)
{
	char buf[24];

	if (!t)
		return json_object_object_add(o, k, NULL) ? -ENOMEM : 0;
	snprintf(buf, sizeof(buf), "%" PRIu64, t);
	return sm_json_add(o, k, json_object_new_string(buf));
}

/* An event, kept in d->events until the journal holds its cause. */
static void queue_event(void *ctx, const char *kind, uint64_t ticket,
			uid_t uid, const struct pool_alloc *a, uint64_t id,
			time_t deadline)
{
	struct poold *d = ctx;
	json_object *ev = json_object_new_object(), *al = NULL;

	if (!strcmp(kind, "lost"))
		d->lost++;
	if (!d->events)
		d->events = json_object_new_array();
	if (a)
		al = json_object_new_object();
	if (!ev || !d->events || (a && (!al || alloc_fields(d, a, al))) ||
	    sm_json_add(ev, "event", json_object_new_string(kind)) ||
	    add_ticket(ev, "ticket", ticket) || add_ticket(ev, "id", id) ||
	    sm_json_add(ev, "uid", json_object_new_int64(uid)) ||
	    (deadline && sm_json_add(ev, "deadline",
				     json_object_new_int64(deadline))) ||
	    (al && sm_json_add(ev, "alloc", json_object_get(al))) ||
	    json_object_array_add(d->events, json_object_get(ev)))
		poold_log(LOG_ERR, "event %s of allocation %" PRIu64 ": out of memory; watchers miss it",
			  kind, id);
	json_object_put(al);
	json_object_put(ev);
	d->loads_stale = true;
}

/* Send the events once the journal holds what they report. */
static void publish(struct poold *d)
{
	json_object *ev = d->events;
	char err[512];
	size_t i;

	d->events = NULL;
	if (!ev)
		return;
	if (pool_sync(d->pool, err, sizeof(err)))
		poold_log(LOG_ERR, "journal: %s; events not sent", err);
	else
		for (i = 0; d->srv && i < json_object_array_length(ev); i++)
			if (sm_server_publish(d->srv,
					      json_object_array_get_idx(ev, i)))
				poold_log(LOG_ERR, "watch: out of memory; watchers miss an event");
	json_object_put(ev);
}

/* Let the scheduler decide now, and tell the watchers. */
static void schedule(struct poold *d)
{
	static const struct poold_queue_ops qops = { grant_dlid, queue_event,
						     NULL };
	struct poold_queue_ops o = qops;
	char err[256];
	int ret;

	o.ctx = d;
	fresh_loads(d);
	ret = poold_queue_run(d->queue, d->now(NULL), &o, err, sizeof(err));
	if (ret)
		d->changes++;
	d->changes += d->events ? json_object_array_length(d->events) : 0;
	publish(d);
}

/* Expire leases, an "expired" event for each; how many. */
static size_t expire(struct poold *d)
{
	time_t now = d->now(NULL);
	size_t i;

	for (i = 0; i < pool_nallocs(d->pool); i++) {
		const struct pool_alloc *a = pool_alloc_at(d->pool, i);

		if (a->expires <= now)
			queue_event(d, "expired", a->req ? a->req->ticket : 0,
				    a->uid, NULL, a->id, 0);
	}
	return pool_expire(d->pool, now);
}

int poold_tick(struct poold *d, bool force)
{
	char err[512];
	size_t n;
	int ret = 0;

	pthread_mutex_lock(&d->lock);
	n = expire(d);
	if (n) {
		poold_log(LOG_INFO, "%zu lease%s expired", n, n > 1 ? "s" : "");
		d->loads_stale = true;
	}
	schedule(d);
	if (force || d->changes >= POOLD_COMPACT_RECORDS) {
		ret = pool_compact(d->pool, err, sizeof(err));
		if (ret)
			poold_log(LOG_ERR, "compaction: %s", err);
		else
			d->changes = 0;
	}
	pthread_mutex_unlock(&d->lock);
	return ret;
}

/* --- replies --- */

static int add_str(json_object *o, const char *k, const char *v)
{
	return sm_json_add(o, k, json_object_new_string(v));
}

static int add_int(json_object *o, const char *k, int64_t v)
{
	return sm_json_add(o, k, json_object_new_int64(v));
}

/* A JSON null (sm_json_add() takes NULL for a failed allocation). */
static int add_null(json_object *o, const char *k)
{
	return json_object_object_add(o, k, NULL) ? -ENOMEM : 0;
}

/* "fe80:0000:0000:0000:0002:c903:0000:0002": prefix and port GUID. */
static void gid_string(uint64_t prefix, uint64_t guid, char *buf, size_t len)
{
	snprintf(buf, len, "%04x:%04x:%04x:%04x:%04x:%04x:%04x:%04x",
		 (unsigned int)(prefix >> 48) & 0xffff,
		 (unsigned int)(prefix >> 32) & 0xffff,
		 (unsigned int)(prefix >> 16) & 0xffff,
		 (unsigned int)prefix & 0xffff,
		 (unsigned int)(guid >> 48) & 0xffff,
		 (unsigned int)(guid >> 32) & 0xffff,
		 (unsigned int)(guid >> 16) & 0xffff,
		 (unsigned int)guid & 0xffff);
}

/* GPU (or share, or the HCA of RDMA bandwidth alone) x with its path. */
static json_object *gpu_json(const struct poold *d,
			     const struct pool_gpu_ref *x, const uint32_t *cp,
			     size_t ncp)
{
	const struct pool_view *v = d->view;
	json_object *o = json_object_new_object(), *path, *names;
	struct pool_path_attr at;
	struct pool_path f, r;
	uint32_t src = 0, dst = 0;
	char buf[64], name[96];
	unsigned int i;
	int ret = -ENOMEM;

	if (!o)
		return NULL;
	if (add_str(o, "host", d->cfg->hosts[x->host].name) ||
	    (x->gpu != POOL_NO_GPU && add_int(o, "gpu", x->gpu)) ||
	    (x->milli && add_int(o, "milli", x->milli)) ||
	    add_int(o, "rail", x->rail) || add_int(o, "dlid", x->dlid))
		goto out_put;
	if (gpu_paths(d, x, cp, ncp, &src, &dst, &f, &r)) {
		/* The fabric changed under the allocation: say so. */
		if (add_null(o, "path"))
			goto out_put;
		return o;
	}
	snprintf(buf, sizeof(buf), "0x%016" PRIx64, v->fab->ports[dst].guid);
	if (add_str(o, "port_guid", buf))
		goto out_put;
	gid_string(v->subnet_prefix, v->fab->ports[dst].guid, buf, sizeof(buf));
	pool_view_attr(v, src, &f, &at);
	if (add_str(o, "gid", buf) ||
	    (at.sl == POOL_SL_UNKNOWN ? add_null(o, "sl") :
	     add_int(o, "sl", at.sl)) ||
	    add_int(o, "mtu", at.mtu) ||
	    sm_json_add(o, "rate", json_object_new_double(at.rate)))
		goto out_put;
	path = json_object_new_array();
	if (sm_json_add(o, "path", path))
		goto out_put;
	names = json_object_new_array();
	if (sm_json_add(o, "path_names", names))
		goto out_put;
	for (i = 0; i < f.n; i++) {
		if (pool_view_is_ca_link(v, f.link[i]))
			continue;
		pool_view_hop(v, f.link[i], buf, sizeof(buf));
		if (json_object_array_add(path, json_object_new_string(buf)))
			goto out_put;
		pool_view_hop_name(v, f.link[i], name, sizeof(name));
		if (json_object_array_add(names, json_object_new_string(name)))
			goto out_put;
	}
	if (sm_json_add(o, "load", json_object_new_double(pool_view_pair_cost(v, &f, &r))))
		goto out_put;
	ret = 0;
out_put:
	if (ret) {
		json_object_put(o);
		return NULL;
	}
	return o;
}

/* The allocation's fields into o. */
static int alloc_fields(const struct poold *d, const struct pool_alloc *a,
			json_object *o)
{
	uint32_t cp[POOL_MAX_HCAS];
	size_t ncp = client_ports(d, a->client, cp);
	json_object *gpus;
	char id[24];
	unsigned int g;

	snprintf(id, sizeof(id), "%" PRIu64, a->id);
	if (add_str(o, "id", id) || add_str(o, "client", a->client) ||
	    add_str(o, "job", a->job) || add_int(o, "uid", a->uid) ||
	    add_int(o, "expires", a->expires))
		return -ENOMEM;
	if (a->rdma && add_int(o, "rdma", a->rdma))
		return -ENOMEM;
	if (a->has_port && sm_json_add(o, "port", gpu_json(d, &a->port, cp,
							    ncp)))
		return -ENOMEM;
	gpus = json_object_new_array();
	if (sm_json_add(o, "gpus", gpus))
		return -ENOMEM;
	for (g = 0; g < a->ngpus; g++) {
		json_object *x = gpu_json(d, &a->gpus[g], cp, ncp);

		/* json-c would add a NULL as a JSON null */
		if (!x || json_object_array_add(gpus, x)) {
			json_object_put(x);
			return -ENOMEM;
		}
	}
	return 0;
}

/* A pool error as a protocol error. */
static int op_error(struct sm_error *e, int ret, const char *msg)
{
	enum sm_err code;

	switch (ret) {
	case -ENOSPC:
		code = SM_ERR_POOL_FULL;
		break;
	case -EINVAL:
		code = SM_ERR_BAD_REQUEST;
		break;
	case -ENOENT:
		code = SM_ERR_NOT_FOUND;
		break;
	case -EPERM:
		code = SM_ERR_FORBIDDEN;
		break;
	default:
		code = SM_ERR_INTERNAL;
	}
	return sm_error_set(e, code, "%s", msg);
}

static int get_id(json_object *req, uint64_t *id, struct sm_error *e)
{
	const char *s = NULL;
	char *end;
	int ret;

	ret = sm_get_string(req, "id", true, &s, e);
	if (ret)
		return ret;
	errno = 0;
	*id = strtoull(s, &end, 10);
	if (!isdigit((unsigned char)*s) || *end || errno || !*id)
		return sm_error_set(e, SM_ERR_BAD_REQUEST, "field 'id' must be an allocation id, not '%s'", s);
	return 0;
}

/* --- operations --- */

/*
 * Milli-GPUs uid's allocations hold and its queued requests wait for:
 * a share counts as its milli, so four 250-milli shares are one GPU;
 * a queue is no way around the cap, every ticket is a grant to come.
 */
static uint64_t held_by(const struct poold *d, uid_t uid)
{
	uint64_t n = 0;
	size_t i, j;

	for (i = 0; i < pool_nallocs(d->pool); i++) {
		const struct pool_alloc *a = pool_alloc_at(d->pool, i);

		if (a->uid != uid)
			continue;
		for (j = 0; j < a->ngpus; j++)
			n += a->gpus[j].milli ? a->gpus[j].milli : POOL_MILLI;
	}
	for (i = 0; i < pool_nqueued(d->pool); i++) {
		const struct pool_queued *q = pool_queued_at(d->pool, i);

		if (q->uid == uid)
			n += q->milli ? q->milli : (uint64_t)q->ngpus * POOL_MILLI;
	}
	return n;
}

/* m milli-GPUs as GPUs, "2" or "1.25", in buf. */
static const char *gpus_str(uint64_t m, char *buf, size_t len)
{
	size_t n;

	if (!(m % POOL_MILLI)) {
		snprintf(buf, len, "%" PRIu64, m / POOL_MILLI);
		return buf;
	}
	snprintf(buf, len, "%" PRIu64 ".%03u", m / POOL_MILLI,
		 (unsigned int)(m % POOL_MILLI));
	n = strlen(buf);
	while (buf[n - 1] == '0')
		buf[--n] = '\0';
	return buf;
}

/*
 * The per-uid caps ([pool] max_lease_s, max_gpus_per_uid) on a lease
 * of lease_s (0: the default) and milli more milli-GPUs; root has none.
 */
static int check_caps(const struct poold *d, uid_t uid, uint64_t milli,
		      int64_t lease_s, struct sm_error *e)
{
	const struct pool_config *c = d->cfg;
	char hs[32], ms[32];
	uint64_t held;

	if (!uid)
		return 0;
	if (lease_s > c->max_lease_s)
		return sm_error_set(e, SM_ERR_FORBIDDEN, "a lease of %" PRId64 " s is longer than uid %u may have ([pool] max_lease_s = %u)",
				    lease_s, (unsigned int)uid, c->max_lease_s);
	if (!milli || !c->max_gpus_per_uid)
		return 0;
	held = held_by(d, uid);
	if (held + milli > (uint64_t)c->max_gpus_per_uid * POOL_MILLI)
		return sm_error_set(e, SM_ERR_FORBIDDEN, "uid %u holds or waits for %s GPUs and may hold %u ([pool] max_gpus_per_uid): %s more is too many",
				    (unsigned int)uid,
				    gpus_str(held, hs, sizeof(hs)),
				    c->max_gpus_per_uid,
				    gpus_str(milli, ms, sizeof(ms)));
	return 0;
}

/*
 * Who may run an operation.  A TCP peer has no credentials to own an
 * allocation by or to check against the group: it only reads.
 */
enum access {
	READ,			/* anyone who can connect, TCP included */
	OWN,			/* a change the peer's uid owns: Unix only */
	GROUP,			/* root or the configured group only */
	ROOT,			/* root only (Unix, or a MUNGE credential) */
};

struct op {
	const char *name;
	enum access access;
	const char *const *fields;
	int (*fn)(struct poold *d, const struct sm_peer *p, json_object *req,
		  json_object *reply, struct sm_error *e);
};

/* Optional boolean field k: 0 with *v (false when absent). */
static int get_bool(json_object *req, const char *k, bool *v,
		    struct sm_error *e)
{
	json_object *x;

	*v = false;
	if (!json_object_object_get_ex(req, k, &x))
		return 0;
	if (!json_object_is_type(x, json_type_boolean))
		return sm_error_set(e, SM_ERR_BAD_REQUEST, "field '%s' must be true or false", k);
	*v = json_object_get_boolean(x);
	return 0;
}

static const struct pool_alloc *granted(const struct poold *d,
					uint64_t ticket)
{
	size_t i = pool_nallocs(d->pool);

	while (i--) {
		const struct pool_alloc *a = pool_alloc_at(d->pool, i);

		if (a->req && a->req->ticket == ticket)
			return a;
	}
	return NULL;
}

/*
 * Queue the request (alloc with queue, submit) and let the scheduler
 * decide at once: the reply is the allocation when it was granted now,
 * else the ticket.
 */
static int enqueue(struct poold *d, const struct sm_peer *p,
		   json_object *req, json_object *reply, struct sm_error *e,
		   const struct pool_request *rq, unsigned int hosts,
		   unsigned int per)
{
	struct pool_queued r = { .uid = p->uid, .ngpus = rq->ngpus,
				 .milli = rq->milli, .rdma = rq->rdma,
				 .hosts = hosts, .per_host = per };
	const struct pool_alloc *a;
	int64_t lease = 0, limit = 0;
	uint64_t ticket;
	char msg[256];
	int ret;

	if ((ret = sm_get_string(req, "client", true,
				 (const char **)&r.client, e)) ||
	    (ret = sm_get_int(req, "lease_s", false, 1, POOL_CFG_LEASE_MAX,
			      &lease, e)) ||
	    (ret = sm_get_int(req, "limit_s", false, 1, POOL_CFG_LEASE_MAX,
			      &limit, e)) ||
	    (ret = sm_get_string(req, "job", false, (const char **)&r.job,
				 e)) ||
	    (ret = sm_get_string(req, "class", false, (const char **)&r.cls,
				 e)) ||
	    (ret = sm_get_string(req, "group", false,
				 (const char **)&r.group, e)) ||
	    (ret = sm_get_string(req, "name", false, (const char **)&r.name,
				 e)))
		return ret;
	if (!client_ports(d, r.client, (uint32_t[POOL_MAX_HCAS]){ 0 }))
		return sm_error_set(e, SM_ERR_UNKNOWN_HOST, "client '%s' has no cabled port in the fabric",
				    r.client);
	r.lease_s = lease;
	r.limit_s = limit;
	expire(d);
	if ((ret = check_caps(d, p->uid, r.milli ? r.milli :
				   (uint64_t)r.ngpus * POOL_MILLI, lease, e)))
		return ret;
	ret = poold_queue_submit(d->queue, &r, d->now(NULL), &ticket, msg,
				 sizeof(msg));
	if (ret)
		return op_error(e, ret, msg);
	d->changes++;
	queue_event(d, "queued", ticket, p->uid, NULL, 0, 0);
	schedule(d);
	a = granted(d, ticket);
	if (add_ticket(reply, "ticket", ticket) ||
	    sm_json_add(reply, "queued", json_object_new_boolean(!a)))
		return -ENOMEM;
	return a ? alloc_fields(d, a, reply) : 0;
}

static int op_submit(struct poold *d, const struct sm_peer *p,
		     json_object *req, json_object *reply, struct sm_error *e)
{
	struct pool_request rq = { 0 };
	int64_t gpus, hosts, per;
	int ret;

	if ((ret = sm_get_int(req, "gpus", true, 1,
			      (int64_t)d->cfg->nhosts * POOL_MAX_GPUS, &gpus,
			      e)) ||
	    (ret = sm_get_int(req, "hosts", true, 1, d->cfg->nhosts, &hosts,
			      e)) ||
	    (ret = sm_get_int(req, "gpus_per_host", true, 1, POOL_MAX_GPUS,
			      &per, e)))
		return ret;
	if (per * (hosts - 1) >= gpus || per * hosts < gpus)
		return sm_error_set(e, SM_ERR_BAD_REQUEST, "%" PRId64 " GPUs do not make %" PRId64 " hosts of %" PRId64 " (the last one may have fewer)",
				    gpus, hosts, per);
	rq.ngpus = gpus;
	return enqueue(d, p, req, reply, e, &rq, hosts, per);
}

static int op_cancel(struct poold *d, const struct sm_peer *p,
		     json_object *req, json_object *reply, struct sm_error *e)
{
	const char *s = NULL;
	uid_t owner;
	uint64_t t;
	char msg[256], *end;
	int ret;

	if ((ret = sm_get_string(req, "ticket", true, &s, e)))
		return ret;
	errno = 0;
	t = strtoull(s, &end, 10);
	if (!isdigit((unsigned char)*s) || *end || errno || !t)
		return sm_error_set(e, SM_ERR_BAD_REQUEST, "field 'ticket' must be a ticket number, not '%s'", s);
	owner = pool_queued_find(d->pool, t) ?
		pool_queued_find(d->pool, t)->uid : p->uid;
	ret = poold_queue_cancel(d->queue, t, p->uid, d->now(NULL), msg,
				 sizeof(msg));
	if (ret)
		return op_error(e, ret, msg);
	d->changes++;
	queue_event(d, "cancelled", t, owner, NULL, 0, 0);
	schedule(d);
	return add_ticket(reply, "ticket", t);
}

static int op_queue_list(struct poold *d, const struct sm_peer *p,
			 json_object *req, json_object *reply,
			 struct sm_error *e)
{
	json_object *arr = json_object_new_array(), *o;
	size_t i;

	(void)p;
	(void)req;
	(void)e;
	if (sm_json_add(reply, "queue", arr))
		return -ENOMEM;
	for (i = 0; i < pool_nqueued(d->pool); i++) {
		const struct pool_queued *q = pool_queued_at(d->pool, i);

		o = json_object_new_object();
		if (json_object_array_add(arr, o)) {
			json_object_put(o);
			return -ENOMEM;
		}
		if (add_ticket(o, "ticket", q->ticket) ||
		    add_int(o, "uid", q->uid) ||
		    add_str(o, "client", q->client) ||
		    add_int(o, "gpus", q->ngpus) ||
		    (q->milli && add_int(o, "gpu_milli", q->milli)) ||
		    (q->rdma && add_int(o, "rdma", q->rdma)) ||
		    add_int(o, "hosts", q->hosts) ||
		    add_str(o, "class", q->cls) ||
		    add_str(o, "group", q->group) ||
		    add_str(o, "name", q->name) ||
		    add_str(o, "job", q->job) ||
		    add_int(o, "submit", q->submit))
			return -ENOMEM;
	}
	return 0;
}

static const char *const event_kinds[] = {
	"queued", "cancelled", "granted", "preempt-notice", "preempted",
	"lost", "replaced", "requeued", "revoked", "expired", NULL
};

/* Whether s is one of the NULL-terminated list, or a decimal id. */
static bool good_value(const char *s, const char *const *kinds)
{
	size_t i;

	if (kinds) {
		for (i = 0; kinds[i]; i++)
			if (!strcmp(s, kinds[i]))
				return true;
		return false;
	}
	for (i = 0; isdigit((unsigned char)s[i]); i++)
		;
	return i && !s[i] && i <= 20;
}

/*
 * Request field key (an array of strings, each one of kinds, or an id
 * when kinds is NULL) into clause as member as; absent: nothing.
 */
static int watch_list(json_object *req, const char *key,
		      const char *const *kinds, const char *as,
		      json_object *clause, struct sm_error *e)
{
	json_object *arr = NULL, *v;
	size_t i;

	if (sm_get_array(req, key, false, &arr, e))
		return -EINVAL;
	if (!arr)
		return 0;
	for (i = 0; i < json_object_array_length(arr); i++) {
		v = json_object_array_get_idx(arr, i);
		if (!json_object_is_type(v, json_type_string) ||
		    !good_value(json_object_get_string(v), kinds))
			return sm_error_set(e, SM_ERR_BAD_REQUEST, "field '%s': '%s' is not %s",
					    key, json_object_get_string(v),
					    kinds ? "an event" : "a ticket or allocation id");
	}
	return sm_json_add(clause, as, json_object_get(arr));
}

/* Clause c into filter f when it has a member (f owns it), else dropped. */
static int add_clause(json_object *f, json_object *c)
{
	if (!json_object_object_length(c)) {
		json_object_put(c);
		return 0;
	}
	if (json_object_array_add(f, c)) {
		json_object_put(c);
		return -ENOMEM;
	}
	return 0;
}

/* {"uid":["u"]} into f when u >= 0. */
static int add_uid(json_object *f, int64_t u)
{
	json_object *c = json_object_new_object(), *arr;
	char buf[24];

	snprintf(buf, sizeof(buf), "%" PRId64, u);
	arr = json_object_new_array();
	if (u < 0 || !c || !arr ||
	    json_object_array_add(arr, json_object_new_string(buf))) {
		json_object_put(arr);
		json_object_put(c);
		return u < 0 ? 0 : -ENOMEM;
	}
	return sm_json_add(c, "uid", arr) ? -ENOMEM : add_clause(f, c);
}

/*
 * The watcher's filter (sm_server_watch()) from the request: events,
 * uid or mine (the caller's uid), tickets or ids (either matches);
 * *out NULL when it asks for every event.
 */
static int watch_filter(const struct sm_peer *p, json_object *req,
			json_object **out, struct sm_error *e)
{
	json_object *f = json_object_new_array(), *kind, *who;
	int64_t u = -1;
	bool me = false;
	int ret = -ENOMEM;

	kind = json_object_new_object();
	who = json_object_new_object();
	if (!f || !kind || !who)
		goto out_put;
	if ((ret = get_bool(req, "mine", &me, e)) ||
	    (ret = sm_get_int(req, "uid", false, 0, UINT32_MAX, &u, e)) ||
	    (ret = watch_list(req, "events", event_kinds, "event", kind, e)) ||
	    (ret = watch_list(req, "tickets", NULL, "ticket", who, e)) ||
	    (ret = watch_list(req, "ids", NULL, "id", who, e)))
		goto out_put;
	if (me && u >= 0) {
		ret = sm_error_set(e, SM_ERR_BAD_REQUEST, "fields 'mine' and 'uid' exclude each other");
		goto out_put;
	}
	ret = add_clause(f, kind);
	kind = NULL;
	if (!ret)
		ret = add_clause(f, who);
	who = NULL;
	if (!ret)
		ret = add_uid(f, me ? (int64_t)p->uid : u);
	if (!ret && json_object_array_length(f)) {
		*out = f;
		f = NULL;
	}
out_put:
	json_object_put(kind);
	json_object_put(who);
	json_object_put(f);
	return ret;
}

static int op_watch(struct poold *d, const struct sm_peer *p,
		    json_object *req, json_object *reply, struct sm_error *e)
{
	json_object *filter = NULL;
	int ret;

	ret = watch_filter(p, req, &filter, e);
	if (ret)
		return ret;
	if (!d->srv) {
		json_object_put(filter);
		return sm_error_set(e, SM_ERR_INTERNAL, "this server cannot stream events");
	}
	if (sm_server_watch(d->srv, p->ticket, filter))
		return sm_error_set(e, SM_ERR_INTERNAL, "this server cannot stream events");
	return sm_json_add(reply, "watching", json_object_new_boolean(true));
}

/*
 * host.drain, host.fail and host.resume, by an operator (root): the op
 * names the state.
 */
static int op_host(struct poold *d, const struct sm_peer *p,
		   json_object *req, json_object *reply, struct sm_error *e)
{
	const char *name, *op = sm_proto_op(req);
	enum pool_host_state st = POOL_HOST_UP;
	char msg[256];
	long h;
	int ret;

	(void)p;
	if (!strcmp(op, "host.drain"))
		st = POOL_HOST_DRAIN;
	else if (!strcmp(op, "host.fail"))
		st = POOL_HOST_FAIL;
	if ((ret = sm_get_string(req, "host", true, &name, e)))
		return ret;
	h = cfg_host(d, name);
	if (h < 0)
		return sm_error_set(e, SM_ERR_UNKNOWN_HOST, "no [host %s] in the config", name);
	ret = pool_set_host(d->pool, h, st, d->now(NULL), msg, sizeof(msg));
	if (ret)
		return op_error(e, ret, msg);
	d->changes++;
	poold_queue_oper(d->queue, h, d->now(NULL));
	poold_log(LOG_NOTICE, "host %s %s by root", d->cfg->hosts[h].name,
		  pool_host_state_name(st));
	schedule(d);
	return add_str(reply, "host", d->cfg->hosts[h].name) ||
	       add_str(reply, "state", pool_host_state_name(
				poold_queue_host(d->queue, h))) ? -ENOMEM : 0;
}

static int op_alloc(struct poold *d, const struct sm_peer *p,
		    json_object *req, json_object *reply, struct sm_error *e)
{
	struct oracle o = { .d = d };
	const struct pool_oracle orc = { oracle, bound, &o };
	struct pool_request rq = { .uid = p->uid, .job = NULL };
	const struct pool_alloc *a;
	int64_t gpus = 0, lease = 0, milli = 0, rdma = 0;
	char msg[256];
	bool queue;
	int ret;

	if ((ret = get_bool(req, "queue", &queue, e)) ||
	    (ret = sm_get_int(req, "gpu_milli", false, 1, POOL_MILLI, &milli,
			      e)) ||
	    (ret = sm_get_int(req, "rdma", false, 1, POOL_RDMA_CAP, &rdma,
			      e)) ||
	    (ret = sm_get_int(req, "gpus", !milli && !rdma, 1,
			      (int64_t)d->cfg->nhosts * POOL_MAX_GPUS, &gpus,
			      e)))
		return ret;
	if (milli && gpus > 1)
		return sm_error_set(e, SM_ERR_BAD_REQUEST, "field 'gpu_milli' is a share of one GPU: 'gpus' must be 1 or absent, not %" PRId64,
				    gpus);
	rq.ngpus = milli ? 0 : gpus;
	rq.milli = milli;
	rq.rdma = rdma;
	if (queue)
		return enqueue(d, p, req, reply, e, &rq, 0, 0);
	if ((ret = sm_get_string(req, "client", true, &rq.client, e)) ||
	    (ret = sm_get_int(req, "lease_s", false, 1, POOL_CFG_LEASE_MAX,
			      &lease, e)) ||
	    (ret = sm_get_string(req, "job", false, &rq.job, e)))
		return ret;
	if (pool_expire(d->pool, d->now(NULL)))
		d->loads_stale = true;
	if ((ret = check_caps(d, p->uid, milli ? milli : gpus * POOL_MILLI,
			      lease, e)))
		return ret;
	o.nclient_ports = client_ports(d, rq.client, o.client_port);
	if (!o.nclient_ports)
		return sm_error_set(e, SM_ERR_UNKNOWN_HOST, "client '%s' has no cabled port in the fabric",
				    rq.client);
	rq.lease_s = lease;
	rq.now = d->now(NULL);
	if (expire(d))
		d->loads_stale = true;
	fresh_loads(d);
	ret = pool_alloc(d->pool, &rq, &orc, &a, msg, sizeof(msg));
	if (ret)
		return op_error(e, ret, msg);
	d->changes++;
	charge(d, a, 1);
	return alloc_fields(d, a, reply);
}

static int op_release(struct poold *d, const struct sm_peer *p,
		      json_object *req, json_object *reply, struct sm_error *e)
{
	const struct pool_alloc *a;
	time_t now = d->now(NULL);
	char msg[256];
	uint64_t id;
	int ret;

	if ((ret = get_id(req, &id, e)))
		return ret;
	if (expire(d))
		d->loads_stale = true;
	/*
	 * Take the allocation's own charge back rather than charge every
	 * other one again: loads are whole numbers, so exactly the same.
	 */
	a = d->loads_stale ? NULL : pool_alloc_find(d->pool, id);
	if (a)
		charge(d, a, -1);
	ret = pool_release(d->pool, id, p->uid, now, msg, sizeof(msg));
	if (ret && a)
		charge(d, a, 1);
	if (ret)
		return op_error(e, ret, msg);
	d->changes++;
	schedule(d);
	return sm_json_add(reply, "id", json_object_get(json_object_object_get(req, "id")));
}

static int op_renew(struct poold *d, const struct sm_peer *p,
		    json_object *req, json_object *reply, struct sm_error *e)
{
	int64_t lease = 0;
	char msg[256];
	uint64_t id;
	int ret;

	if ((ret = get_id(req, &id, e)) ||
	    (ret = sm_get_int(req, "lease_s", false, 1, POOL_CFG_LEASE_MAX,
			      &lease, e)))
		return ret;
	if ((ret = check_caps(d, p->uid, 0, lease, e)))
		return ret;
	ret = pool_renew(d->pool, id, p->uid, lease, d->now(NULL), msg,
			 sizeof(msg));
	if (ret)
		return op_error(e, ret, msg);
	d->changes++;
	return alloc_fields(d, pool_alloc_find(d->pool, id), reply);
}

static int op_alloc_list(struct poold *d, const struct sm_peer *p,
			 json_object *req, json_object *reply,
			 struct sm_error *e)
{
	json_object *arr = json_object_new_array(), *o;
	size_t i;

	(void)p;
	(void)req;
	(void)e;
	if (sm_json_add(reply, "allocs", arr))
		return -ENOMEM;
	if (expire(d))
		d->loads_stale = true;
	fresh_loads(d);
	for (i = 0; i < pool_nallocs(d->pool); i++) {
		o = json_object_new_object();
		if (json_object_array_add(arr, o)) {
			json_object_put(o);
			return -ENOMEM;
		}
		if (alloc_fields(d, pool_alloc_at(d->pool, i), o))
			return -ENOMEM;
	}
	return 0;
}

/* Load on a host's own cables, both ways: what placement weighs. */
static double host_load(const struct poold *d, size_t h)
{
	const struct pool_view *v = d->view;
	const struct fabric *f = v->fab;
	double s = 0;
	unsigned int r;
	long x;

	for (r = 0; r < d->cfg->hosts[h].nhca; r++) {
		x = d->port[d->hoff[h] + r];
		if (x < 0)
			continue;
		s += v->alloc[x] + v->meas[x];
		x = fab_port(f, f->ports[x].peer, f->ports[x].peer_port) -
		    f->ports;
		s += v->alloc[x] + v->meas[x];
	}
	return s;
}

/* The running jobs as the collectives model takes them (hosts borrowed). */
static struct rt_job_spec *running_jobs(const struct poold *d, size_t *n)
{
	struct rt_job_spec *sp;
	size_t i;

	*n = pool_njobs(d->pool);
	sp = calloc(*n + 1, sizeof(*sp));
	for (i = 0; sp && i < *n; i++) {
		const struct pool_job *j = pool_job_at(d->pool, i);

		sp[i] = (struct rt_job_spec){ .id = j->id, .weight = 1,
			.hosts = (const char *const *)j->hosts,
			.nhosts = j->nhosts };
	}
	return sp;
}

/* What the model made of the placement, under the reply's score. */
static int add_model(json_object *score, const struct pool_model_score *sc)
{
	json_object *m;

	if (!sc->modelled)
		return 0;
	m = json_object_new_object();
	if (sm_json_add(score, "model", m) ||
	    sm_json_add(m, "placement", json_object_new_string(
		sc->compact ? "compact" : "model")) ||
	    add_int(m, "candidates", sc->candidates) ||
	    sm_json_add(m, "ring", json_object_new_double(sc->ring)) ||
	    sm_json_add(m, "alltoall", json_object_new_double(sc->a2a)) ||
	    sm_json_add(m, "compact_ring",
			json_object_new_double(sc->compact_ring)) ||
	    sm_json_add(m, "compact_alltoall",
			json_object_new_double(sc->compact_a2a)))
		return -ENOMEM;
	return 0;
}

static int op_place(struct poold *d, const struct sm_peer *p,
		    json_object *req, json_object *reply, struct sm_error *e)
{
	struct pool_model m = { .t = &d->view->rt };
	struct pool_model_score sc;
	struct pool_placement pl;
	json_object *hosts, *score;
	struct rt_job_spec *run;
	int64_t gpus, per;
	char msg[256];
	double *load;
	size_t i;
	int ret;

	(void)p;
	if ((ret = sm_get_int(req, "gpus", true, 1,
			      (int64_t)d->cfg->nhosts * POOL_MAX_GPUS, &gpus,
			      e)) ||
	    (ret = sm_get_int(req, "gpus_per_host", true, 1, POOL_MAX_GPUS,
			      &per, e)))
		return ret;
	load = calloc(d->cfg->nhosts + 1, sizeof(*load));
	run = running_jobs(d, &m.nrunning);
	if (!load || !run) {
		free(load);
		free(run);
		return -ENOMEM;
	}
	m.running = run;
	fresh_loads(d);
	for (i = 0; i < d->cfg->nhosts; i++)
		load[i] = host_load(d, i);
	ret = pool_place_model(d->pool, d->cfg, &d->tree, gpus, per, load, &m,
			       &pl, &sc, msg, sizeof(msg));
	free(load);
	free(run);
	/* more hosts than the pool has is no full pool: a bad request */
	if (ret == -ENOSPC && (gpus + per - 1) / per > (int64_t)d->cfg->nhosts)
		ret = -EINVAL;
	if (ret)
		return op_error(e, ret, msg);
	ret = -ENOMEM;
	hosts = json_object_new_array();
	score = json_object_new_object();
	if (sm_json_add(reply, "hosts", hosts) ||
	    sm_json_add(reply, "score", score))
		goto out_release;
	for (i = 0; i < pl.nhosts; i++)
		if (json_object_array_add(hosts, json_object_new_string(
				d->cfg->hosts[pl.hosts[i]].name)))
			goto out_release;
	if (add_int(score, d->tree.fattree ? "level" : "hops", pl.span) ||
	    add_int(score, "leaves", pl.groups) ||
	    sm_json_add(score, "load", json_object_new_double(pl.load)) ||
	    add_model(score, &sc))
		goto out_release;
	ret = 0;
out_release:
	pool_placement_release(&pl);
	return ret;
}

/* Job ids as the plugin's hint table takes them, so the relay can. */
static int check_job_id(const char *id, struct sm_error *e)
{
	size_t n = strlen(id);

	if (sm_hints_id_valid(id))
		return 0;
	if (!n || n > SM_HINTS_ID_MAX)
		return sm_error_set(e, SM_ERR_BAD_REQUEST, "field 'job' must be 1..%d characters",
				    SM_HINTS_ID_MAX);
	return sm_error_set(e, SM_ERR_BAD_REQUEST, "job '%s': only " SM_HINTS_ID_CHARS " are allowed",
			    id);
}

static int cmp_caseless(const void *a, const void *b)
{
	return strcasecmp(*(char *const *)a, *(char *const *)b);
}

/* A host of hosts (n) listed twice, case aside, or NULL; -ENOMEM. */
static int twice(char *const *hosts, size_t n, const char **dup)
{
	char **s = malloc((n ? n : 1) * sizeof(*s));
	size_t i;

	*dup = NULL;
	if (!s)
		return -ENOMEM;
	memcpy(s, hosts, n * sizeof(*s));
	qsort(s, n, sizeof(*s), cmp_caseless);
	for (i = 1; i < n && !*dup; i++)
		if (!strcasecmp(s[i - 1], s[i]))
			*dup = s[i];
	free(s);
	return 0;
}

/*
 * job.start's hosts into *hosts (*n): the "hosts" array (strings
 * borrowed from req, *names NULL) or the "nodelist" expression (a job
 * whose names do not fit in a line; *names the expansion to free).
 */
static int job_hosts(const char *job, json_object *req, char ***hosts,
		     size_t *n, char ***names, struct sm_error *e)
{
	json_object *arr = NULL, *x;
	const char *list = NULL;
	char err[200];
	size_t i;
	int ret;

	*names = NULL;
	if ((ret = sm_get_array(req, "hosts", false, &arr, e)) ||
	    (ret = sm_get_string(req, "nodelist", false, &list, e)))
		return ret;
	if (!arr == !list)
		return sm_error_set(e, SM_ERR_BAD_REQUEST, "job '%s': give 'hosts' or 'nodelist', one of them", job);
	if (list) {
		ret = pool_hostlist_expand(list, POOL_HOSTLIST_MAX, names, n,
					   err, sizeof(err));
		if (ret == -ENOMEM)
			return ret;
		if (ret)
			return sm_error_set(e, SM_ERR_BAD_REQUEST, "job '%s': field 'nodelist': %s", job,
					    ret == -E2BIG ? "more than 65536 hosts" : err);
		*hosts = *names;
		return 0;
	}
	*n = json_object_array_length(arr);
	*hosts = calloc(*n ? *n : 1, sizeof(**hosts));
	if (!*hosts)
		return -ENOMEM;
	for (i = 0; i < *n; i++) {
		x = json_object_array_get_idx(arr, i);
		if (!json_object_is_type(x, json_type_string))
			return sm_error_set(e, SM_ERR_BAD_REQUEST, "job '%s': hosts[%zu] must be a string", job, i);
		(*hosts)[i] = (char *)json_object_get_string(x);
	}
	return 0;
}

static int op_job_start(struct poold *d, const struct sm_peer *p,
			json_object *req, json_object *reply,
			struct sm_error *e)
{
	char msg[256], **hosts = NULL, **names = NULL;
	const char *job, *dup;
	size_t i, n = 0;
	int ret;

	(void)p;
	if ((ret = sm_get_string(req, "job", true, &job, e)) ||
	    (ret = check_job_id(job, e)))
		return ret;
	ret = job_hosts(job, req, &hosts, &n, &names, e);
	if (ret)
		goto out_free;
	if (!n) {
		ret = sm_error_set(e, SM_ERR_BAD_REQUEST, "job '%s': field 'hosts' must not be empty", job);
		goto out_free;
	}
	for (i = 0; i < n; i++)
		if (pool_tree_host(&d->tree, hosts[i]) < 0) {
			ret = sm_error_set(e, SM_ERR_UNKNOWN_HOST, "job '%s': unknown host '%s'", job, hosts[i]);
			goto out_free;
		}
	ret = twice(hosts, n, &dup);
	if (!ret && dup)
		ret = sm_error_set(e, SM_ERR_BAD_REQUEST, "job '%s': host '%s' listed twice", job, dup);
	if (ret)
		goto out_free;
	ret = pool_job_start(d->pool, job, hosts, n, d->now(NULL), msg,
			     sizeof(msg));
	if (!ret)
		ret = pool_sync(d->pool, msg, sizeof(msg));
	if (ret) {
		ret = op_error(e, ret, msg);
		goto out_free;
	}
	d->changes++;
	d->loads_stale = true;
	post_jobs(d);
	ret = add_str(reply, "job", job);
out_free:
	if (names)
		pool_hostlist_free(names, n);
	else
		free(hosts);
	return ret;
}

/*
 * A started job the plugin refuses (unknown there, its id another
 * owner's), or a table it refuses whole (too many jobs), is still the
 * pool's, but its reply says why it is not routed, so the Slurm hook
 * logs it.  Waits, without the lock but on the server thread, for the
 * relay's round (POOLD_REFUSAL_WAIT_MS at most for all SMs, none while
 * the plugin is down).
 */
static int routing_refused(struct poold *d, json_object *req,
			   json_object *reply)
{
	const char *job = json_object_get_string(json_object_object_get(req,
									"job"));
	char msg[256];

	if (!d->relay || !poold_fanout_refused(d->relay, job,
					       POOLD_REFUSAL_WAIT_MS, msg,
					       sizeof(msg)))
		return 0;
	return add_str(reply, "routing_refused", msg);
}

static int op_job_end(struct poold *d, const struct sm_peer *p,
		      json_object *req, json_object *reply,
		      struct sm_error *e)
{
	const char *job;
	char msg[256];
	int ret;

	(void)p;
	if ((ret = sm_get_string(req, "job", true, &job, e)))
		return ret;
	ret = pool_job_end(d->pool, job, d->now(NULL), msg, sizeof(msg));
	if (!ret)
		ret = pool_sync(d->pool, msg, sizeof(msg));
	if (ret)
		return op_error(e, ret, msg);
	d->changes++;
	d->loads_stale = true;
	post_jobs(d);
	schedule(d);
	return add_str(reply, "job", job);
}

static int op_job_list(struct poold *d, const struct sm_peer *p,
		       json_object *req, json_object *reply,
		       struct sm_error *e)
{
	(void)p;
	(void)req;
	(void)e;
	return sm_json_add(reply, "jobs", jobs_json(d, false));
}

static int op_export(struct poold *d, const struct sm_peer *p,
		     json_object *req, json_object *reply, struct sm_error *e)
{
	json_object *renamed = json_object_new_array();
	enum pool_export_format f;
	char *buf = NULL, why[512];
	const char *fmt;
	size_t n = 0;
	FILE *m;
	int ret;

	(void)p;
	if (!renamed)
		return -ENOMEM;
	if ((ret = sm_get_string(req, "format", true, &fmt, e)))
		goto out_put;
	if (pool_export_parse(fmt, &f)) {
		ret = sm_error_set(e, SM_ERR_BAD_REQUEST, "field 'format' must be " POOL_EXPORT_FORMATS ", not '%s'",
				   fmt);
		goto out_put;
	}
	m = open_memstream(&buf, &n);
	ret = m ? pool_export_text(&d->tree, f, m, renamed, why, sizeof(why)) :
		  -ENOMEM;
	if (m && fclose(m) && !ret)
		ret = -ENOMEM;
	if (ret == -EEXIST)
		ret = sm_error_set(e, SM_ERR_BAD_REQUEST, "%s export: %s", fmt,
				   why);
	if (!ret && (add_str(reply, "format", fmt) ||
		     add_str(reply, "text", buf)))
		ret = -ENOMEM;
	free(buf);
	if (!ret) {
		ret = sm_json_add(reply, "renamed", renamed);
		renamed = NULL;
	}
out_put:
	json_object_put(renamed);
	return ret ? ret : pool_export_json(&d->tree, reply);
}

static int add_relay(json_object *o, const struct poold_relay_status *st)
{
	return sm_json_add(o, "up", json_object_new_boolean(st->up)) ||
	       sm_json_add(o, "synced", json_object_new_boolean(st->synced)) ||
	       add_int(o, "sent", st->sent) ||
	       add_int(o, "generation", st->generation) ||
	       add_int(o, "refused", st->refused) ||
	       add_str(o, "refusal", st->refusal) ||
	       add_str(o, "error", st->error) ? -ENOMEM : 0;
}

/* Each SM the relay feeds, with its endpoint: "sms" under rel. */
static int add_relay_sms(struct poold_fanout *f, json_object *rel)
{
	json_object *sms = json_object_new_array(), *o;
	struct poold_relay_status st;
	size_t i;

	if (sm_json_add(rel, "sms", sms))
		return -ENOMEM;
	for (i = 0; i < poold_fanout_count(f); i++) {
		o = json_object_new_object();
		if (json_object_array_add(sms, o)) {
			json_object_put(o);
			return -ENOMEM;
		}
		poold_relay_status(poold_fanout_relay(f, i), &st);
		if (add_str(o, "endpoint", poold_fanout_endpoint(f, i)) ||
		    add_relay(o, &st))
			return -ENOMEM;
	}
	return 0;
}

/* The view's age and the refreshes failed since (caller holds lock). */
static int add_refresh(const struct poold *d, json_object *fab)
{
	char at[32], err_at[32] = "";
	time_t now = d->now(NULL);

	poold_iso_time(d->view_at, at, sizeof(at));
	if (d->refresh_err_at)
		poold_iso_time(d->refresh_err_at, err_at, sizeof(err_at));
	return add_str(fab, "view_at", at) ||
	       add_int(fab, "view_age_s", now > d->view_at ? now - d->view_at
							  : 0) ||
	       add_int(fab, "refresh_failures", d->refresh_failed) ||
	       add_str(fab, "refresh_error", d->refresh_err) ||
	       add_str(fab, "refresh_error_at", err_at);
}

/* "orphans": {"allocs", "gpus"}: what pool.orphans would list. */
static int add_orphans(struct poold *d, json_object *reply)
{
	json_object *o = json_object_new_object();
	size_t g, n = pool_orphans(d->pool, &g);

	return sm_json_add(reply, "orphans", o) || add_int(o, "allocs", n) ||
	       add_int(o, "gpus", g) ? -ENOMEM : 0;
}

static int op_status(struct poold *d, const struct sm_peer *p,
		     json_object *req, json_object *reply, struct sm_error *e)
{
	const struct pool_view *v = d->view;
	json_object *fab, *hosts, *h, *rel;
	struct poold_relay_status st;
	unsigned int gpus = 0, nfree = 0, fr, g, shared;
	size_t i, missing = 0;

	(void)p;
	(void)req;
	(void)e;
	if (expire(d))
		d->loads_stale = true;
	hosts = json_object_new_array();
	if (sm_json_add(reply, "hosts", hosts))
		return -ENOMEM;
	for (i = 0; i < d->cfg->nhosts; i++) {
		const struct pool_host_cfg *c = &d->cfg->hosts[i];

		fr = pool_free_gpus(d->pool, i);
		for (g = 0, shared = 0; g < c->gpus; g++)
			shared += pool_gpu_used(d->pool, i, g) &&
				  !pool_gpu_owner(d->pool, i, g);
		gpus += c->gpus;
		nfree += fr;
		h = json_object_new_object();
		if (json_object_array_add(hosts, h)) {
			json_object_put(h);
			return -ENOMEM;
		}
		if (add_str(h, "host", c->name) ||
		    add_str(h, "gpu_type", c->gpu_type) ||
		    add_int(h, "gpus", c->gpus) || add_int(h, "free", fr) ||
		    add_int(h, "shared", shared) ||
		    add_str(h, "state", pool_host_state_name(
				    poold_queue_host(d->queue, i))))
			return -ENOMEM;
	}
	for (i = 0; i < d->nhcas; i++)
		missing += d->port[i] < 0;
	fab = json_object_new_object();
	if (add_int(reply, "gpus", gpus) || add_int(reply, "free", nfree) ||
	    add_int(reply, "allocs", pool_nallocs(d->pool)) ||
	    add_int(reply, "queued", pool_nqueued(d->pool)) ||
	    add_int(reply, "jobs", pool_njobs(d->pool)) ||
	    sm_json_add(reply, "fabric", fab) ||
	    add_str(fab, "source", v->source) ||
	    add_str(fab, "topology", v->route.topology) ||
	    add_str(fab, "engine", v->route.engine) ||
	    add_int(fab, "lmc", v->lmc) ||
	    add_int(fab, "switches", v->fab->nsw) ||
	    add_int(fab, "cas", v->fab->nca) ||
	    add_int(fab, "hcas_missing", missing) || add_refresh(d, fab) ||
	    add_orphans(d, reply))
		return -ENOMEM;
	if (!d->relay)
		return add_null(reply, "relay");
	poold_fanout_status(d->relay, &st);
	rel = json_object_new_object();
	if (sm_json_add(reply, "relay", rel) || add_relay(rel, &st))
		return -ENOMEM;
	return add_relay_sms(d->relay, rel);
}

/* An allocation's orphaned GPUs (pool.h) as pool.orphans lists them. */
static int orphan_json(const struct pool_alloc *a, json_object *arr)
{
	json_object *o = json_object_new_object(), *g, *x;
	char id[24];
	unsigned int k;

	if (!o || json_object_array_add(arr, o)) {
		json_object_put(o);
		return -ENOMEM;
	}
	snprintf(id, sizeof(id), "%" PRIu64, a->id);
	g = json_object_new_array();
	if (add_str(o, "id", id) || add_str(o, "client", a->client) ||
	    add_str(o, "job", a->job) || add_int(o, "uid", a->uid) ||
	    add_int(o, "expires", a->expires) ||
	    add_int(o, "gpus_held", a->ngpus) || sm_json_add(o, "gpus", g))
		return -ENOMEM;
	for (k = 0; k < a->nlost; k++) {
		x = json_object_new_object();
		if (!x || json_object_array_add(g, x)) {
			json_object_put(x);
			return -ENOMEM;
		}
		if (add_str(x, "host", a->lost[k].host) ||
		    add_int(x, "gpu", a->lost[k].gpu))
			return -ENOMEM;
	}
	return 0;
}

/*
 * pool.orphans: the allocations whose GPUs the config no longer has;
 * with "drop": true (root only) those GPUs are forgotten, journaled.
 */
static int op_orphans(struct poold *d, const struct sm_peer *p,
		      json_object *req, json_object *reply,
		      struct sm_error *e)
{
	json_object *drop = json_object_object_get(req, "drop"), *arr;
	const struct pool_alloc *a;
	char msg[256];
	size_t i, n;
	int ret = 0;

	if (drop && !json_object_is_type(drop, json_type_boolean))
		return sm_error_set(e, SM_ERR_BAD_REQUEST,
				    "field 'drop' must be true or false");
	drop = drop && json_object_get_boolean(drop) ? drop : NULL;
	if (drop && p->uid != 0)
		return sm_error_set(e, SM_ERR_FORBIDDEN, "pool.orphans drop needs root (uid %u)",
				    (unsigned int)p->uid);
	if (pool_expire(d->pool, d->now(NULL)))
		d->loads_stale = true;
	arr = json_object_new_array();
	if (sm_json_add(reply, "orphans", arr))
		return -ENOMEM;
	for (i = 0; !ret && i < pool_nallocs(d->pool); i++) {
		a = pool_alloc_at(d->pool, i);
		if (a->nlost)
			ret = orphan_json(a, arr);
	}
	if (ret || !drop)
		return ret;
	ret = pool_orphans_drop(d->pool, d->now(NULL), &n, msg, sizeof(msg));
	if (ret)
		return op_error(e, ret, msg);
	poold_log(LOG_NOTICE, "pool.orphans: uid 0 dropped %zu orphaned GPUs",
		  n);
	d->changes++;
	d->loads_stale = true;
	return add_int(reply, "dropped", n);
}

#define FIELDS(...) (const char *const[]){ "op", __VA_ARGS__, NULL }

static const struct op ops[] = {
	{ "pool.status", READ, FIELDS(NULL), op_status },
	{ "alloc", OWN, FIELDS("client", "gpus", "gpu_milli", "rdma",
			       "lease_s", "job", "queue", "class", "group",
			       "name", "limit_s"),
	  op_alloc },
	{ "submit", OWN, FIELDS("client", "gpus", "hosts", "gpus_per_host",
				"lease_s", "job", "class", "group", "name",
				"limit_s"),
	  op_submit },
	{ "cancel", OWN, FIELDS("ticket"), op_cancel },
	{ "queue.list", READ, FIELDS(NULL), op_queue_list },
	{ "watch", READ, FIELDS("events", "mine", "uid", "tickets", "ids"),
	  op_watch },
	{ "host.drain", ROOT, FIELDS("host"), op_host },
	{ "host.fail", ROOT, FIELDS("host"), op_host },
	{ "host.resume", ROOT, FIELDS("host"), op_host },
	{ "release", OWN, FIELDS("id"), op_release },
	{ "renew", OWN, FIELDS("id", "lease_s"), op_renew },
	{ "alloc.list", READ, FIELDS(NULL), op_alloc_list },
	{ "place", READ, FIELDS("gpus", "gpus_per_host"), op_place },
	{ "job.start", GROUP, FIELDS("job", "hosts", "nodelist"),
	  op_job_start },
	{ "job.end", GROUP, FIELDS("job"), op_job_end },
	{ "job.list", READ, FIELDS(NULL), op_job_list },
	{ "topology.export", READ, FIELDS("format"), op_export },
	{ "pool.orphans", OWN, FIELDS("drop"), op_orphans },
};

_Static_assert(sizeof(ops) / sizeof(ops[0]) == POOLD_NOPS,
	       "POOLD_NOPS counts the operations");

const char *poold_op_name(size_t i)
{
	return ops[i].name;
}

/*
 * *reply goes once the journal is durable up to seq, the changes written
 * when it was built: now when it already is, else through the commit
 * thread, else after a sync here.
 */
static int hold(struct poold *d, const struct sm_peer *p, uint64_t seq,
		json_object **reply)
{
	char err[512];

	if (seq <= pool_durable(d->pool))
		return 0;
	if (d->commit && d->srv &&
	    !poold_commit_queue(d->commit, d->srv, p->ticket, *reply)) {
		*reply = NULL;
		return SM_DEFERRED;
	}
	if (!pool_sync(d->pool, err, sizeof(err)))
		return 0;
	poold_log(LOG_ERR, "journal: %s", err);
	json_object_put(*reply);
	*reply = sm_reply_error(SM_ERR_INTERNAL, "journal: %s", err);
	return *reply ? 0 : -ENOMEM;
}

int poold_handle(void *ctx, const struct sm_peer *p, json_object *req,
		 json_object **reply)
{
	struct poold *d = ctx;
	const char *name = sm_proto_op(req);
	const struct op *op = NULL;
	struct poold_opstat *st;
	struct sm_error e;
	uint64_t seq;
	double t;
	size_t i;
	int ret;

	for (i = 0; i < sizeof(ops) / sizeof(ops[0]); i++)
		if (!strcmp(ops[i].name, name))
			op = &ops[i];
	if (!op) {
		*reply = sm_reply_error(SM_ERR_UNKNOWN_OP, "unknown op '%s'",
					name);
		return *reply ? 0 : -ENOMEM;
	}
	if (op->access != READ && p->remote && !p->munge) {
		*reply = sm_reply_error(SM_ERR_FORBIDDEN, "%s over TCP: no credentials; send it in a MUNGE credential, or use the Unix socket",
					name);
		return *reply ? 0 : -ENOMEM;
	}
	if (op->access == ROOT && p->uid != 0) {
		*reply = sm_reply_error(SM_ERR_FORBIDDEN, "%s needs root (uid %u)",
					name, (unsigned int)p->uid);
		return *reply ? 0 : -ENOMEM;
	}
	if (op->access != READ && !p->may_connect) {
		*reply = sm_reply_error(SM_ERR_FORBIDDEN, "%s over TCP: uid %u could not open the pool socket (socket_mode %04o), so it may not change the pool over TCP either",
					name, (unsigned int)p->uid,
					d->cfg->socket_mode);
		return *reply ? 0 : -ENOMEM;
	}
	if (op->access == GROUP && !p->may_write) {
		/* Slurm's hooks run as SlurmUser: say what to set. */
		if (d->cfg->group)
			*reply = sm_reply_error(SM_ERR_FORBIDDEN, "%s needs root or the group '%s' (uid %u is in neither)",
						name, d->cfg->group,
						(unsigned int)p->uid);
		else
			*reply = sm_reply_error(SM_ERR_FORBIDDEN, "%s needs root or [pool] group, which is not set (uid %u; for Slurm's hooks, SlurmUser's group: group = slurm on Debian)",
						name, (unsigned int)p->uid);
		return *reply ? 0 : -ENOMEM;
	}
	if (sm_check_fields(req, op->fields, &e)) {
		*reply = sm_reply_from_error(&e);
		return *reply ? 0 : -ENOMEM;
	}
	*reply = sm_reply_ok();
	if (!*reply)
		return -ENOMEM;
	t = mono_s();
	pthread_mutex_lock(&d->lock);
	if (expire(d))
		d->loads_stale = true;
	ret = op->fn(d, p, req, *reply, &e);
	/* leases that ended, a ticket queued or cancelled: tell, decide */
	if (d->events)
		schedule(d);
	seq = pool_seq(d->pool);
	pthread_mutex_unlock(&d->lock);
	if (!ret && op->fn == op_job_start)
		ret = routing_refused(d, req, *reply);
	st = &d->opstat[op - ops];
	pool_hist_add(&st->time, mono_s() - t);
	/* under the lock: the metrics thread reads them */
	pthread_mutex_lock(&d->lock);
	if (ret)
		st->err++;
	else
		st->ok++;
	pthread_mutex_unlock(&d->lock);
	if (ret == -ENOMEM) {
		json_object_put(*reply);
		*reply = NULL;
		return ret;
	}
	/* the client is told; whoever runs the daemon needs to know too */
	if (ret && e.code == SM_ERR_INTERNAL)
		poold_log(LOG_ERR, "%s: %s", name, e.msg);
	if (ret) {
		/* a refusal too reflects the state (a GPU held, an id gone) */
		json_object_put(*reply);
		*reply = sm_reply_from_error(&e);
		if (!*reply)
			return -ENOMEM;
	}
	/* a watcher's reply must go before the events it is sent */
	if (op->fn == op_watch)
		return 0;
	return hold(d, p, seq, reply);
}
