// SPDX-License-Identifier: MIT
/*
 * The hint socket inside OpenSM: requests are served on the sm/ server's
 * thread, accepted changes wake a kicker thread that asks OpenSM for a
 * reroute at most once per interval, and the routing thread reads the
 * table through snapshots.  OpenSM's threads never wait on a client.
 */
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "../../sm/hints.h"
#include "../../sm/server.h"
#include "../../topology/monotime.h"
#include "gahints.h"

/*
 * A name the fabric knows a CA by, and the node it names: what every
 * name of one host shares, so that aliases are seen to be one host.
 */
struct alias {
	char *name;	/* a host name or a canonical port GUID; owned */
	uint32_t node;	/* the CA it names; then, from host_of(), its host's */
	bool guid;	/* a port GUID, not a host name */
};

/*
 * A sweep the plugin refused: its code and why, the table generation and
 * reroutes it answered, and the engine OpenSM routed with instead ("" for
 * none).
 */
struct refusal {
	bool set;
	char code[8];
	char why[400];
	uint64_t generation, reroutes;
	char fallback[32];
};

struct ga_hints {
	struct ga_cfg cfg;
	struct ga_hints_ops ops;
	struct sm_hints *tbl;
	struct sm_server *srv;

	pthread_mutex_t lock;	/* everything below */
	pthread_cond_t wake;
	pthread_t kicker;
	bool kicker_up, stop, pending;
	bool unrouted;		/* kicked, no routing begun since */
	struct timespec last_kick;
	uint64_t kicks;		/* reroutes sent to OpenSM */
	uint64_t sweep_kicks;	/* kicks before this sweep's routing */
	/* host names and CA port GUIDs of the last fabric, sorted; owned */
	struct alias *names;
	size_t nnames;
	bool have_fabric;
	struct ga_hints_routing handed, live;
	bool have_handed, have_live;
	struct refusal refused, shown;	/* this sweep's, the one state shows */
	uint64_t sweep_gen;	/* table generation this sweep routes for */
	uint64_t routings;	/* of ours that reached the switches */
	/* the routing thread's alone: the lines last said of jobs left
	 * out, owned, NULL: none */
	char *dropped;
};

__attribute__((format(printf, 3, 4)))
static void say(const struct ga_hints *h, bool error, const char *fmt, ...)
{
	char buf[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	h->ops.log(h->ops.ctx, error, buf);
}

static int cmp_alias(const void *a, const void *b)
{
	const struct alias *x = a, *y = b;

	return strcmp(x->name, y->name);
}

/* By name, then node: of a name's aliases the first CA's comes first. */
static int cmp_alias_node(const void *a, const void *b)
{
	const struct alias *x = a, *y = b;
	int c = strcmp(x->name, y->name);

	return c ? c : (x->node > y->node) - (x->node < y->node);
}

static const struct alias *find_alias(const struct alias *names, size_t n,
				      const char *host)
{
	const struct alias key = { .name = (char *)host };

	return n ? bsearch(&key, names, n, sizeof(*names), cmp_alias) : NULL;
}

/*
 * Before the first sweep nothing is known of the fabric: hosts are taken
 * as they come, and those the fabric lacks are left out when routing.
 * After, a host is the first CA of its name, whichever alias names it.
 */
static long host_id(void *ctx, const char *host)
{
	struct ga_hints *h = ctx;
	const struct alias *a;
	long id = SM_HOST_ANY;

	pthread_mutex_lock(&h->lock);
	if (h->have_fabric) {
		a = find_alias(h->names, h->nnames, host);
		id = a ? (long)a->node : SM_HOST_UNKNOWN;
	}
	pthread_mutex_unlock(&h->lock);
	return id;
}

static void free_names(struct alias *names, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		free(names[i].name);
	free(names);
}

static int add_alias(struct alias *names, size_t *n, const char *name,
		     uint32_t node, bool guid)
{
	names[*n].name = strdup(name);
	if (!names[*n].name)
		return -ENOMEM;
	names[*n].node = node;
	names[*n].guid = guid;
	(*n)++;
	return 0;
}

/* CA v's names: its host name and its ports' GUIDs. */
static int ca_aliases(const struct fabric *f, uint32_t v, struct alias *names,
		      size_t *n)
{
	char name[SM_HINTS_HOST_MAX + 1], guid[20];
	unsigned int p;
	int ret = 0;

	if (fab_host_name(f, v, name, sizeof(name)))
		ret = add_alias(names, n, name, v, false);
	for (p = 1; p <= f->nodes[v].nports && !ret; p++) {
		snprintf(guid, sizeof(guid), "0x%016" PRIx64,
			 fab_port(f, v, p)->guid);
		ret = add_alias(names, n, guid, v, true);
	}
	return ret;
}

/*
 * A port GUID names the host of its CA: the node its host name has (the
 * first CA of that name), the CA itself when it has no name.
 */
static void host_of(const struct fabric *f, struct alias *names, size_t n)
{
	char name[SM_HINTS_HOST_MAX + 1];
	const struct alias *a;
	size_t i;

	for (i = 0; i < n; i++) {
		if (!names[i].guid ||
		    !fab_host_name(f, names[i].node, name, sizeof(name)))
			continue;
		a = find_alias(names, n, name);
		if (a && !a->guid)
			names[i].node = a->node;
	}
}

/*
 * Names of f's CAs with their hosts (the first CA of each host name),
 * sorted by name, duplicates gone.
 */
static int fabric_names(const struct fabric *f, struct alias **out,
			size_t *nout)
{
	struct alias *names = calloc(2 * f->nports + 1, sizeof(*names));
	size_t n = 0, i, j;
	uint32_t v;
	int ret = 0;

	if (!names)
		return -ENOMEM;
	for (v = 0; v < f->nnodes && !ret; v++)
		if (!fab_is_sw(f, v))
			ret = ca_aliases(f, v, names, &n);
	if (ret) {
		free_names(names, n);
		return ret;
	}
	qsort(names, n, sizeof(*names), cmp_alias_node);
	for (i = j = 0; i < n; i++) {
		if (j && !strcmp(names[j - 1].name, names[i].name)) {
			free(names[i].name);
		} else {
			names[j++] = names[i];
		}
	}
	host_of(f, names, j);
	*out = names;
	*nout = j;
	return 0;
}

/* Ask for a reroute; the number of the kick that will answer it. */
static uint64_t mark_pending(struct ga_hints *h)
{
	uint64_t ticket;

	pthread_mutex_lock(&h->lock);
	h->pending = true;
	ticket = h->kicks + 1;
	pthread_cond_signal(&h->wake);
	pthread_mutex_unlock(&h->lock);
	return ticket;
}

/*
 * Changes are coalesced: the first after a quiet spell reroutes at once,
 * those within the interval after a reroute wait for its end and then
 * make one.  A reroute asked now is answered by kick number kicks + 1.
 */
static void *kicker(void *arg)
{
	struct ga_hints *h = arg;
	struct timespec due;

	pthread_mutex_lock(&h->lock);
	while (!h->stop) {
		if (!h->pending) {
			pthread_cond_wait(&h->wake, &h->lock);
			continue;
		}
		due = mono_add_ms(h->last_kick, h->cfg.hints_interval_ms);
		if (pthread_cond_timedwait(&h->wake, &h->lock, &due) !=
		    ETIMEDOUT || h->stop)
			continue;
		h->pending = false;
		h->unrouted = true;
		h->kicks++;
		h->last_kick = mono_deadline(0);
		pthread_mutex_unlock(&h->lock);
		h->ops.kick(h->ops.ctx);
		pthread_mutex_lock(&h->lock);
	}
	pthread_mutex_unlock(&h->lock);
	return NULL;
}

static int add_u64(json_object *o, const char *k, uint64_t v)
{
	return sm_json_add(o, k, json_object_new_uint64(v));
}

/* JSON null: json-c's NULL, which sm_json_add() takes for no memory. */
static int add_null(json_object *o, const char *k)
{
	return json_object_object_add(o, k, NULL) ? -ENOMEM : 0;
}

/* {"with": a, "without": b} under key k of o. */
static int add_pair(json_object *o, const char *k, double a, double b)
{
	json_object *p = json_object_new_object();
	int ret;

	if (!p)
		return -ENOMEM;
	ret = sm_json_add(p, "with", json_object_new_double(a));
	ret = ret ? ret : sm_json_add(p, "without", json_object_new_double(b));
	if (ret) {
		json_object_put(p);
		return ret;
	}
	return sm_json_add(o, k, p);
}

/* What the guard saw: the jobs' collectives with and without them. */
static int add_model(json_object *r, const struct ga_hints_routing *x)
{
	const struct rt_model *a = &x->with, *b = &x->without;
	json_object *m;
	int ret;

	if (!x->modelled)
		return add_null(r, "job_model");
	m = json_object_new_object();
	if (!m)
		return -ENOMEM;
	ret = sm_json_add(m, "kept", json_object_new_string(
		x->jobs_kept ? "jobs" : "without jobs"));
	ret = ret ? ret : add_pair(m, "ring", a->ring, b->ring);
	ret = ret ? ret : add_pair(m, "ring_worst", a->ring_worst,
				   b->ring_worst);
	ret = ret ? ret : add_pair(m, "alltoall", a->a2a, b->a2a);
	ret = ret ? ret : add_pair(m, "alltoall_worst", a->a2a_worst,
				   b->a2a_worst);
	ret = ret ? ret : add_pair(m, "nccl_alltoall", a->nccl, b->nccl);
	ret = ret ? ret : add_pair(m, "nccl_alltoall_worst", a->nccl_worst,
				   b->nccl_worst);
	if (ret) {
		json_object_put(m);
		return ret;
	}
	return sm_json_add(r, "job_model", m);
}

static int add_routing(json_object *r, const struct ga_hints_routing *x)
{
	json_object *q;
	int ret;

	ret = sm_json_add(r, "topology", json_object_new_string(x->topology));
	ret = ret ? ret : sm_json_add(r, "engine",
				      json_object_new_string(x->engine));
	ret = ret ? ret : sm_json_add(r, "route_ms",
				      json_object_new_double(x->ms));
	ret = ret ? ret : add_u64(r, "vls", x->nvl);
	ret = ret ? ret : add_u64(r, "jobs_routed", x->jobs);
	ret = ret ? ret : sm_json_add(r, "job_routing",
				      json_object_new_string(x->job_routing));
	ret = ret ? ret : add_model(r, x);
	if (ret || !x->checked)
		return ret ? ret : add_null(r, "quality");
	q = json_object_new_object();
	if (!q)
		return -ENOMEM;
	ret = add_u64(q, "pairs", x->pairs);
	ret = ret ? ret : add_u64(q, "unreachable", x->unreachable);
	ret = ret ? ret : sm_json_add(q, "credit_loops",
				      json_object_new_boolean(x->credit_loop));
	ret = ret ? ret : add_u64(q, "max_hops", x->max_hops);
	ret = ret ? ret : add_u64(q, "efi_max", x->efi_max);
	ret = ret ? ret : sm_json_add(q, "efi_max_mean",
				      json_object_new_double(x->efi_ratio));
	if (ret) {
		json_object_put(q);
		return ret;
	}
	return sm_json_add(r, "quality", q);
}

/* "refused": the last sweep's refusal while no routing of ours followed. */
static int add_refusal(json_object *r, const struct refusal *x)
{
	json_object *o;
	int ret;

	if (!x->set)
		return add_null(r, "refused");
	o = json_object_new_object();
	if (!o)
		return -ENOMEM;
	ret = sm_json_add(o, "code", json_object_new_string(x->code));
	ret = ret ? ret : sm_json_add(o, "message",
				      json_object_new_string(x->why));
	ret = ret ? ret : add_u64(o, "generation", x->generation);
	ret = ret ? ret : add_u64(o, "reroutes", x->reroutes);
	ret = ret ? ret : x->fallback[0] ?
	      sm_json_add(o, "fallback", json_object_new_string(x->fallback)) :
	      add_null(o, "fallback");
	if (ret) {
		json_object_put(o);
		return ret;
	}
	return sm_json_add(r, "refused", o);
}

/*
 * The state request: what is in the switches (routed_generation, null
 * before the first routing arrived there) against the table now.
 */
static json_object *state_reply(struct ga_hints *h)
{
	const struct sm_hints_snap *s = sm_hints_snapshot(h->tbl);
	json_object *r = sm_reply_ok();
	struct ga_hints_routing live;
	struct refusal refused;
	bool have, pending;
	uint64_t routings;
	int ret;

	pthread_mutex_lock(&h->lock);
	live = h->live;
	have = h->have_live;
	pending = h->pending || h->unrouted;
	routings = h->routings;
	refused = h->shown;
	pthread_mutex_unlock(&h->lock);
	ret = r ? add_u64(r, "hints_generation", s->generation) : -ENOMEM;
	ret = ret ? ret : add_u64(r, "routings", routings);
	ret = ret ? ret : add_u64(r, "jobs", s->njobs);
	ret = ret ? ret : have ? add_u64(r, "routed_generation",
					    live.generation) :
				 add_null(r, "routed_generation");
	ret = ret ? ret : sm_json_add(r, "reroute_pending",
				      json_object_new_boolean(pending));
	if (!ret && h->ops.sm_state)
		ret = sm_json_add(r, "sm_state", json_object_new_string(
			h->ops.sm_state(h->ops.ctx)));
	if (!ret)
		ret = add_refusal(r, &refused);
	if (!ret && have)
		ret = add_u64(r, "reroutes_routed", live.reroutes);
	if (!ret && have)
		ret = add_routing(r, &live);
	sm_hints_put(s);
	if (ret) {
		json_object_put(r);
		return NULL;
	}
	return r;
}

static bool ok_reply(json_object *reply)
{
	json_object *ok;

	return json_object_object_get_ex(reply, "ok", &ok) &&
	       json_object_get_boolean(ok);
}

/* reroute: merged into a pending one; the reply names the table now. */
static json_object *reroute_reply(struct ga_hints *h,
				  const struct sm_peer *p)
{
	const struct sm_hints_snap *s;
	json_object *r;
	uint64_t ticket;

	if (!p->may_write)
		return sm_reply_error(SM_ERR_FORBIDDEN,
				      "reroute: uid %u may not change the routing (root or group %s)",
				      (unsigned int)p->uid,
				      h->cfg.hints_group_name[0] ?
				      h->cfg.hints_group_name : "none");
	ticket = mark_pending(h);
	s = sm_hints_snapshot(h->tbl);
	r = sm_reply_ok();
	if (r && (add_u64(r, "hints_generation", s->generation) ||
		  add_u64(r, "reroute", ticket))) {
		json_object_put(r);
		r = NULL;
	}
	sm_hints_put(s);
	return r;
}

/* The message of an internal error reply (a table not saved), or NULL. */
static const char *internal_error(json_object *reply)
{
	json_object *e, *c, *m;

	if (!json_object_object_get_ex(reply, "error", &e) ||
	    !json_object_object_get_ex(e, "code", &c) ||
	    strcmp(json_object_get_string(c), sm_err_code(SM_ERR_INTERNAL)) ||
	    !json_object_object_get_ex(e, "message", &m))
		return NULL;
	return json_object_get_string(m);
}

static int handle(void *ctx, const struct sm_peer *p, json_object *req,
		  json_object **reply)
{
	static const char *const only_op[] = { "op", NULL };
	struct ga_hints *h = ctx;
	const char *op = sm_proto_op(req);
	bool state = !strcmp(op, "state"), reroute = !strcmp(op, "reroute");
	struct sm_error e;
	int ret;

	if ((state || reroute) && sm_check_fields(req, only_op, &e)) {
		*reply = sm_reply_from_error(&e);
		return *reply ? 0 : -ENOMEM;
	}
	if (state || reroute) {
		*reply = state ? state_reply(h) : reroute_reply(h, p);
		return *reply ? 0 : -ENOMEM;
	}
	ret = sm_hints_serve(h->tbl, req, p->may_write, reply);
	if (ret == -EOPNOTSUPP) {
		*reply = sm_reply_error(SM_ERR_UNKNOWN_OP,
					"unknown op '%s': this socket serves hints.set, hints.add, hints.remove, hints.get, state and reroute",
					op);
		return *reply ? 0 : -ENOMEM;
	}
	if (!ret && strcmp(op, "hints.get") && ok_reply(*reply))
		mark_pending(h);
	/* the client is told; the SM's operator must be too */
	if (!ret && internal_error(*reply))
		say(h, true, "ERR GA35: %s refused: %s", op,
		    internal_error(*reply));
	return ret;
}

static void server_log(void *ctx, const char *msg)
{
	say(ctx, false, "hint socket: %s", msg);
}

/* mkdir -p with mode for the missing parts; existing ones are kept. */
static int make_dirs(const char *path, mode_t mode)
{
	char buf[PATH_MAX], *p, c;

	if (snprintf(buf, sizeof(buf), "%s", path) >= (int)sizeof(buf))
		return -ENAMETOOLONG;
	for (p = buf + 1; ; p++) {
		if (*p && *p != '/')
			continue;
		c = *p;
		*p = '\0';
		if (mkdir(buf, mode) && errno != EEXIST)
			return -errno;
		if (!c)
			return 0;
		*p = c;
	}
}

static int socket_dir(const char *sock)
{
	char dir[sizeof(((struct ga_cfg *)0)->hints_socket)], *slash;

	snprintf(dir, sizeof(dir), "%s", sock);
	slash = strrchr(dir, '/');
	if (!slash || slash == dir)
		return 0;
	*slash = '\0';
	return make_dirs(dir, 0755);
}

/*
 * The table, kept in the state directory; when that cannot be made the
 * table lives in memory only (said once), rather than refusing every
 * change.
 */
static int open_table(struct ga_hints *h)
{
	char err[512];
	int ret = make_dirs(h->cfg.hints_dir, 0750);

	if (ret) {
		say(h, true, "ERR GA30: cannot create the hint state directory %s: %s; job tables are kept in memory only",
		    h->cfg.hints_dir, strerror(-ret));
		return sm_hints_new(NULL, host_id, h, &h->tbl);
	}
	ret = sm_hints_new(h->cfg.hints_dir, host_id, h, &h->tbl);
	if (ret)
		return ret;
	ret = sm_hints_load(h->tbl, h->cfg.hints_dir, err, sizeof(err));
	/* -EINVAL: a bad file, whose valid jobs loaded (err says which) */
	if (ret == -EINVAL)
		say(h, true, "ERR GA31: %s", err);
	else if (ret)
		say(h, true, "ERR GA31: %s; starting with no jobs", err);
	return 0;
}

static int start_server(struct ga_hints *h, char *err, size_t len)
{
	struct sm_server_config sc = {
		.path = h->cfg.hints_socket,
		.group = h->cfg.hints_group,
		.handler = handle,
		.ctx = h,
		.log = server_log,
		.tcp = h->cfg.hints_tcp[0] ? h->cfg.hints_tcp : NULL,
		.munge_socket = h->cfg.munge_socket,
	};
	int ret = socket_dir(h->cfg.hints_socket);

	if (ret) {
		snprintf(err, len, "cannot create the directory of %s: %s",
			 h->cfg.hints_socket, strerror(-ret));
		return ret;
	}
	return sm_server_start(&sc, &h->srv, err, len);
}

int ga_hints_start(const struct ga_cfg *cfg, const struct ga_hints_ops *ops,
		   struct ga_hints **out, char *err, size_t len)
{
	struct ga_hints *h = calloc(1, sizeof(*h));
	pthread_condattr_t ca;
	int ret = -ENOMEM;

	*out = NULL;
	if (!h) {
		snprintf(err, len, "out of memory");
		return ret;
	}
	h->cfg = *cfg;
	h->ops = *ops;
	pthread_mutex_init(&h->lock, NULL);
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&h->wake, &ca);
	pthread_condattr_destroy(&ca);
	ret = open_table(h);
	if (ret) {
		snprintf(err, len, "out of memory");
		goto out_free;
	}
	ret = -pthread_create(&h->kicker, NULL, kicker, h);
	if (ret) {
		snprintf(err, len, "cannot start the reroute thread: %s",
			 strerror(-ret));
		goto out_free;
	}
	h->kicker_up = true;
	ret = start_server(h, err, len);
	if (ret)
		goto out_free;
	*out = h;
	return 0;
out_free:
	ga_hints_stop(h);
	return ret;
}

void ga_hints_stop(struct ga_hints *h)
{
	if (!h)
		return;
	if (h->srv)
		sm_server_stop(h->srv);
	if (h->kicker_up) {
		pthread_mutex_lock(&h->lock);
		h->stop = true;
		pthread_cond_signal(&h->wake);
		pthread_mutex_unlock(&h->lock);
		pthread_join(h->kicker, NULL);
	}
	if (h->tbl)
		sm_hints_free(h->tbl);
	free_names(h->names, h->nnames);
	free(h->dropped);
	pthread_cond_destroy(&h->wake);
	pthread_mutex_destroy(&h->lock);
	free(h);
}

/*
 * The hosts of job j that names has, into hosts[], each host once: a
 * table taken before the fabric was known may name one by its name and
 * a port GUID.  stamp[node] == mark: the host is in already.  How many.
 */
static size_t present(const struct sm_job *j, const struct alias *names,
		      size_t n, uint32_t *stamp, uint32_t mark,
		      const char **hosts)
{
	const struct alias *a;
	size_t i, k = 0;

	for (i = 0; i < j->nhosts; i++) {
		a = find_alias(names, n, j->hosts[i]);
		if (!a || stamp[a->node] == mark)
			continue;
		stamp[a->node] = mark;
		hosts[k++] = j->hosts[i];
	}
	return k;
}

/*
 * Jobs share hosts as cons_tres places them: normal, said, no error;
 * said once, not at every sweep, while the same jobs are left out.
 */
struct drops {
	char *msgs;		/* owned: one line each, '\n'-ended */
	size_t len;
	bool nomem;
};

static void dropped(void *ctx, const char *msg)
{
	struct drops *d = ctx;
	size_t n = strlen(msg);
	char *m = realloc(d->msgs, d->len + n + 2);

	if (!m) {
		d->nomem = true;
		return;
	}
	d->msgs = m;
	memcpy(m + d->len, msg, n);
	m[d->len + n] = '\n';
	m[d->len + n + 1] = '\0';
	d->len += n + 1;
}

/* d's lines (consumed) said unless they are those said last. */
static void say_drops(struct ga_hints *h, struct drops *d)
{
	const char *l, *e;

	if (!d->nomem && (d->msgs ? h->dropped && !strcmp(d->msgs, h->dropped)
				  : !h->dropped)) {
		free(d->msgs);
		return;
	}
	for (l = d->msgs; l && *l; l = e + 1) {
		e = strchr(l, '\n');
		say(h, false, "%.*s", (int)(e - l), l);
	}
	free(h->dropped);
	/* lines cut short by a failed allocation are said again next time */
	h->dropped = d->nomem ? NULL : d->msgs;
	if (d->nomem)
		free(d->msgs);
}

static int build_jobs(struct ga_hints *h, const struct sm_hints_snap *s,
		      const struct fabric *f, const struct alias *names,
		      size_t n, struct rt_jobs *js, char *err, size_t len)
{
	struct rt_job_spec *spec = calloc(s->njobs + 1, sizeof(*spec));
	uint32_t *stamp = calloc(f->nnodes + 1, sizeof(*stamp));
	struct drops d = { 0 };
	const char **hosts;
	size_t i, k, total = 0, nspec = 0;
	int ret = -ENOMEM;

	for (i = 0; i < s->njobs; i++)
		total += s->jobs[i].nhosts;
	hosts = calloc(total + 1, sizeof(*hosts));
	if (!spec || !hosts || !stamp) {
		snprintf(err, len, "out of memory");
		goto out;
	}
	for (i = 0, total = 0; i < s->njobs; i++) {
		k = present(&s->jobs[i], names, n, stamp, i + 1,
			    hosts + total);
		if (!k)
			continue;
		spec[nspec].id = s->jobs[i].id;
		spec[nspec].weight = s->jobs[i].weight;
		spec[nspec].hosts = hosts + total;
		spec[nspec].nhosts = k;
		nspec++;
		total += k;
	}
	ret = nspec ? rt_jobs_build_drop(js, f, spec, nspec, dropped, &d, err,
					 len) : 0;
	say_drops(h, &d);
	if (!ret && nspec && !js->njobs)
		rt_jobs_release(js);
	else if (!ret && nspec)
		ret = 1;
out:
	free(stamp);
	free(spec);
	free(hosts);
	return ret;
}

int ga_hints_jobs(struct ga_hints *h, const struct fabric *f,
		  struct rt_jobs *js, uint64_t *gen, char *err, size_t len)
{
	const struct sm_hints_snap *s;
	struct alias *names, *old;
	size_t n, nold;
	int ret = fabric_names(f, &names, &n);

	if (ret) {
		snprintf(err, len, "out of memory");
		return ret;
	}
	s = sm_hints_snapshot(h->tbl);
	*gen = s->generation;
	pthread_mutex_lock(&h->lock);
	h->sweep_gen = s->generation;
	pthread_mutex_unlock(&h->lock);
	ret = s->njobs ? build_jobs(h, s, f, names, n, js, err, len) : 0;
	if (!s->njobs) {
		free(h->dropped);
		h->dropped = NULL;
	}
	sm_hints_put(s);
	pthread_mutex_lock(&h->lock);
	old = h->names;
	nold = h->nnames;
	h->names = names;
	h->nnames = n;
	h->have_fabric = true;
	pthread_mutex_unlock(&h->lock);
	free_names(old, nold);
	return ret;
}

void ga_hints_sweep_begin(struct ga_hints *h)
{
	const struct sm_hints_snap *s = sm_hints_snapshot(h->tbl);

	pthread_mutex_lock(&h->lock);
	h->sweep_gen = s->generation;
	h->refused.set = false;
	h->have_handed = false;
	h->unrouted = false;
	h->sweep_kicks = h->kicks;
	pthread_mutex_unlock(&h->lock);
	sm_hints_put(s);
}

size_t ga_hints_table_jobs(struct ga_hints *h)
{
	const struct sm_hints_snap *s = sm_hints_snapshot(h->tbl);
	size_t n = s->njobs;

	sm_hints_put(s);
	return n;
}

void ga_hints_tcp_name(struct ga_hints *h, char *buf, size_t len)
{
	sm_server_tcp_name(h->srv, buf, len);
}

uint64_t ga_hints_reroutes(struct ga_hints *h)
{
	uint64_t n;

	pthread_mutex_lock(&h->lock);
	n = h->kicks;
	pthread_mutex_unlock(&h->lock);
	return n;
}

void ga_hints_routed(struct ga_hints *h, const struct ga_hints_routing *r)
{
	pthread_mutex_lock(&h->lock);
	h->handed = *r;
	h->handed.reroutes = h->sweep_kicks;
	h->have_handed = true;
	pthread_mutex_unlock(&h->lock);
}

void ga_hints_refused(struct ga_hints *h, const char *line)
{
	struct refusal *r = &h->refused;
	const char *colon = strstr(line, ": ");
	size_t n = colon ? (size_t)(colon - line) : 0;

	/* "ERR GA01: why" -> "GA01", "why" */
	if (n > 4 && !strncmp(line, "ERR ", 4) && n - 4 < sizeof(r->code)) {
		memcpy(r->code, line + 4, n - 4);
		r->code[n - 4] = '\0';
		line = colon + 2;
	} else {
		snprintf(r->code, sizeof(r->code), "?");
	}
	pthread_mutex_lock(&h->lock);
	snprintf(r->why, sizeof(r->why), "%.*s", (int)strcspn(line, "\n"),
		 line);
	r->generation = h->sweep_gen;
	r->reroutes = h->sweep_kicks;
	r->set = true;
	pthread_mutex_unlock(&h->lock);
}

void ga_hints_in_switches(struct ga_hints *h, bool ok, const char *engine)
{
	pthread_mutex_lock(&h->lock);
	h->live = h->handed;
	h->have_live = ok && h->have_handed;
	h->routings += h->have_live;
	h->have_handed = false;
	if (h->have_live) {
		h->shown.set = false;
	} else if (h->refused.set) {
		h->shown = h->refused;
		snprintf(h->shown.fallback, sizeof(h->shown.fallback), "%s",
			 engine ? engine : "");
	}
	pthread_mutex_unlock(&h->lock);
}
