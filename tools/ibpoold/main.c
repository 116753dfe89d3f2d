// SPDX-License-Identifier: MIT
/*
 * ibpoold: the GPU pool daemon.  Loads the config, the fabric view and
 * the journaled state, serves the pool socket on the server thread,
 * syncs the journal for the replies waiting on the commit thread, relays
 * jobs to the plugin on the relay thread, and runs the timers (lease
 * expiry, compaction) on the main thread until SIGTERM or SIGINT.
 */
#include <endian.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <libgen.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <infiniband/verbs.h>

#include "log.h"
#include "metrics.h"
#include "ops.h"
#include "sm/client.h"
#include "sm/durable.h"
#include "tools/lib/cli/cli.h"
#include "tools/lib/pool/hostsec.h"
#include "tools/lib/pool/live.h"
#include "topology/monotime.h"
#include "topology/textio.h"

#define PROG "ibpoold"
#define TICK_MS 1000	/* expiry and compaction check */

struct args {
	const char *config;
	const char *net;	/* offline source; NULL: live */
	const char *ca;		/* live: local CA, NULL the first */
	unsigned int port;	/* live: its port, 0 the first active */
	unsigned int lmc;
	enum rt_engine_id engine;
	bool daemon;
	const char *pid_file;
	bool print_host;
	bool print_config;
	struct pool_gen gen;	/* --print-config's --gpus ... */
};

enum {
	O_GPUS = CLI_LONG_ONLY,
	O_GPU_TYPE,
	O_GROUP,
};

/* The one option table: getopt_long's and --help's. */
static const struct cli_opt opts[] = {
	{ "config", 1, 'c', 0, "FILE", "the pool configuration (INI)" },
	{ "net", 1, 'n', 0, "FILE", "offline: route this ibsim net file instead of reading the live fabric" },
	{ "lmc", 1, 'l', 0, "N", "offline: LIDs per CA port are 2^N, 0-7 (0)" },
	{ "engine", 1, 'e', 0, "NAME", "offline: " RT_ENGINE_NAMES " (auto)" },
	{ "Ca", 1, 'C', 0, "CA", "live: local CA to read the fabric through (the first)" },
	{ "Port", 1, 'P', 0, "PORT", "live: its port (the first active)" },
	{ "daemon", 0, 'd', 0, NULL, "detach once serving; log to syslog" },
	{ "pid-file", 1, 'p', 0, "FILE", "with --daemon: write the pid there" },
	{ "print-host", 0, 'H', 0, NULL, "print this machine's [host] section from its RDMA ports and exit" },
	{ "print-config", 0, 'G', 0, NULL, "print a pool.conf with a [host] section per host of the fabric (--net or live) and exit" },
	{ "gpus", 1, O_GPUS, 0, "N", "with --print-config: GPUs per host, 1-64 (to fill in)" },
	{ "gpu-type", 1, O_GPU_TYPE, 0, "TYPE", "with --print-config: the hosts' gpu_type (to fill in)" },
	{ "group", 1, O_GROUP, 0, "GROUP", "with --print-config: [pool] group, e.g. slurm (else a commented hint)" },
	{ "help", 0, 'h', 0, NULL, "show this help" },
	{ "version", 0, 'V', 0, NULL, "print the version and exit" },
};

#define NOPTS (sizeof(opts) / sizeof(opts[0]))
CLI_TABLE_FITS(opts);

static void usage(FILE *out)
{
	size_t i;

	fprintf(out, "Usage: " PROG " -c FILE [options]\n       " PROG " --print-host\n       " PROG " --print-config [--net FILE | --Ca CA --Port PORT] [--gpus N] [--gpu-type TYPE] [--group GROUP]\n\nOptions:\n");
	for (i = 0; i < NOPTS; i++)
		cli_help_opt(out, &opts[i], 24, NULL);
	fprintf(out, "\nExamples:\n  " PROG " -c /etc/gpuaware/pool.conf\n  " PROG " -c pool.conf --net ibsim-configs/ft2-small.net --lmc 1\n  " PROG " --print-host >> /etc/gpuaware/pool.conf\n  " PROG " --print-config --gpus 8 --gpu-type H100 --group slurm > /etc/gpuaware/pool.conf\n");
}

/* A value --print-config writes as it is: one word, no comment in it. */
static bool plain_word(const char *s)
{
	return *s && !s[strcspn(s, " \t\r\n;#=[]")];
}

static int parse(int argc, char **argv, struct args *a)
{
	const struct cli_opt *o;
	struct cli_parser p;
	unsigned long long v;
	const char *bad;
	int c;

	cli_parser_init(&p, opts, NOPTS);
	while ((c = cli_next(&p, argc, argv, &o, &bad)) != -1) {
		switch (c) {
		case 'c':
			a->config = optarg;
			break;
		case 'n':
			a->net = optarg;
			break;
		case 'l':
			if (cli_uint(optarg, 10, 7, &v))
				return cli_usage(PROG, NULL,
						 "bad LMC '%s' (0-7)", optarg);
			a->lmc = v;
			break;
		case 'e':
			if (rt_engine_parse(optarg, &a->engine))
				return cli_usage(PROG, NULL,
						 "unknown engine '%s'", optarg);
			break;
		case 'C':
			a->ca = optarg;
			break;
		case 'P':
			if (cli_uint(optarg, 10, FAB_MAX_PORTS, &v) || !v)
				return cli_usage(PROG, NULL, "bad port '%s'",
						 optarg);
			a->port = v;
			break;
		case 'd':
			a->daemon = true;
			break;
		case 'p':
			a->pid_file = optarg;
			break;
		case 'H':
			a->print_host = true;
			break;
		case 'G':
			a->print_config = true;
			break;
		case O_GPUS:
			if (cli_uint(optarg, 10, POOL_MAX_GPUS, &v) || !v)
				return cli_usage(PROG, NULL,
						 "bad GPU count '%s' (1-%d)",
						 optarg, POOL_MAX_GPUS);
			a->gen.gpus = v;
			break;
		case O_GPU_TYPE:
			a->gen.gpu_type = optarg;
			break;
		case O_GROUP:
			a->gen.group = optarg;
			break;
		case 'h':
			usage(stdout);
			exit(0);
		case 'V':
			cli_version(stdout, PROG);
			exit(0);
		case ':':
			return cli_usage(PROG, NULL,
					 "option '%s' needs an argument", bad);
		default:
			return cli_usage(PROG, NULL, "unknown option '%s'",
					 bad);
		}
	}
	if (optind != argc)
		return cli_usage(PROG, NULL, "unexpected argument '%s'",
				 argv[optind]);
	if (!a->config && !a->print_host && !a->print_config)
		return cli_usage(PROG, NULL, "-c FILE is required");
	if ((a->gen.gpus || a->gen.gpu_type || a->gen.group) &&
	    !a->print_config)
		return cli_usage(PROG, NULL, "--gpus, --gpu-type and --group go with --print-config");
	if (a->gen.gpu_type && !plain_word(a->gen.gpu_type))
		return cli_usage(PROG, NULL, "bad GPU type '%s'",
				 a->gen.gpu_type);
	if (a->gen.group && !plain_word(a->gen.group))
		return cli_usage(PROG, NULL, "bad group '%s'", a->gen.group);
	if ((a->lmc || a->engine != RT_ENGINE_AUTO) && !a->net)
		return cli_usage(PROG, NULL, "--lmc and --engine need --net: the live fabric has its own");
	if ((a->ca || a->port) && a->net)
		return cli_usage(PROG, NULL, "--Ca and --Port read the live fabric, not --net");
	return 0;
}

/* --- --print-host --- */

static const char *port_state(enum ibv_port_state s)
{
	switch (s) {
	case IBV_PORT_ACTIVE:
		return "ACTIVE";
	case IBV_PORT_INIT:
		return "INIT";
	case IBV_PORT_ARMED:
		return "ARMED";
	case IBV_PORT_DOWN:
		return "DOWN";
	default:
		return "other";
	}
}

/* Device i's ports appended to *v (*n of them, room for *cap). */
static int read_ports(struct ibv_device *dev, struct pool_rdma_port **v,
		      size_t *n, size_t *cap)
{
	struct ibv_context *ctx = ibv_open_device(dev);
	struct pool_rdma_port x = { .device = ibv_get_device_name(dev) };
	struct ibv_device_attr da;
	struct ibv_port_attr pa;
	union ibv_gid gid;
	int ret = 0;

	if (!ctx || ibv_query_device(ctx, &da)) {
		x.open_err = errno ? errno : EIO;
		da.phys_port_cnt = 0;
		ret = tio_grow((void **)v, cap, *n + 1, sizeof(**v));
		if (!ret)
			(*v)[(*n)++] = x;
	}
	for (x.port = 1; !ret && x.port <= da.phys_port_cnt; x.port++) {
		if (ibv_query_port(ctx, x.port, &pa) ||
		    ibv_query_gid(ctx, x.port, 0, &gid))
			continue;
		memcpy(&x.guid, gid.raw + 8, 8);
		x.guid = be64toh(x.guid);
		x.lid = pa.lid;
		x.state = port_state(pa.state);
		x.ethernet = pa.link_layer == IBV_LINK_LAYER_ETHERNET;
		ret = tio_grow((void **)v, cap, *n + 1, sizeof(**v));
		if (!ret)
			(*v)[(*n)++] = x;
	}
	if (ctx)
		ibv_close_device(ctx);
	return ret;
}

/*
 * This machine's RDMA ports as a [host] section (hostsec.h); with no
 * RDMA device or no InfiniBand port it says so and returns 1.
 */
static int print_host(void)
{
	struct pool_rdma_port *v = NULL;
	struct ibv_device **list;
	char raw[256], name[256];
	size_t n = 0, cap = 0;
	int ndev, i, ret = 0;

	list = ibv_get_device_list(&ndev);
	if (!list || !ndev) {
		fprintf(stderr, PROG ": no RDMA device found%s%s\n",
			list ? "" : ": ", list ? "" : strerror(errno));
		if (list)
			ibv_free_device_list(list);
		return 1;
	}
	if (gethostname(raw, sizeof(raw)))
		snprintf(raw, sizeof(raw), "HOSTNAME");
	raw[sizeof(raw) - 1] = '\0';
	pool_host_name(raw, name, sizeof(name));
	for (i = 0; !ret && i < ndev; i++)
		ret = read_ports(list[i], &v, &n, &cap);
	if (ret)
		fprintf(stderr, PROG ": out of memory\n");
	else if ((ret = pool_host_section(stdout, name, v, n)))
		fprintf(stderr, PROG ": no InfiniBand port found\n");
	ibv_free_device_list(list);
	free(v);
	return ret ? 1 : 0;
}

/* The fabric: --net routed here, or the live one (*live then). */
static int open_view(const struct args *a, struct pool_live **live,
		     struct pool_view **view, char *err, size_t len)
{
	int ret;

	if (a->net)
		return pool_view_offline(a->net, a->lmc, a->engine, view, err,
					 len);
	ret = pool_live_open(a->ca, a->port, live, err, len);
	return ret ? ret : pool_live_view(*live, view, err, len);
}

/* --- --print-config --- */

/* A pool config for the fabric (hostsec.h); 1 when it has no host. */
static int print_config(struct args *a)
{
	struct pool_live *live = NULL;
	struct pool_view *view = NULL;
	char err[1024];
	int ret;

	ret = open_view(a, &live, &view, err, sizeof(err));
	if (ret) {
		fprintf(stderr, PROG ": %s\n", err);
		goto out;
	}
	a->gen.source = view->source;
	if (!pool_config_print(stdout, view->fab, &a->gen)) {
		fprintf(stderr, PROG ": %s: no CA with a host name\n",
			view->source);
		ret = -ENOENT;
	}
out:
	pool_view_free(view);
	pool_live_close(live);
	return ret ? 1 : 0;
}

/* --- process --- */

/*
 * Detach: fork, setsid, fork again.  The first parent waits on a pipe
 * until the daemon says it serves (a byte) or failed (EOF), so the
 * command's exit status tells the start's outcome.  Returns the write
 * end in the daemon, never returns in the parents.
 */
static int detach(void)
{
	int fd[2];
	char c;
	pid_t pid;

	if (pipe(fd)) {
		poold_log(LOG_ERR, "pipe: %s", strerror(errno));
		exit(1);
	}
	pid = fork();
	if (pid < 0) {
		poold_log(LOG_ERR, "fork: %s", strerror(errno));
		exit(1);
	}
	if (pid > 0) {
		close(fd[1]);
		exit(read(fd[0], &c, 1) == 1 ? 0 : 1);
	}
	close(fd[0]);
	if (setsid() < 0)
		exit(1);
	pid = fork();
	if (pid < 0)
		exit(1);
	if (pid > 0)
		_exit(0);
	if (chdir("/"))
		exit(1);
	umask(022);
	return fd[1];
}

/* The daemon serves: release the waiting parent, leave the terminal. */
static void detached(int ready)
{
	int null = open("/dev/null", O_RDWR);

	poold_log_syslog(true);
	if (null >= 0) {
		dup2(null, 0);
		dup2(null, 1);
		dup2(null, 2);
		if (null > 2)
			close(null);
	}
	if (write(ready, "", 1) != 1)
		poold_log(LOG_WARNING, "could not tell the parent we serve");
	close(ready);
}

/* Replaced whole, never written through a symlink or into a FIFO. */
static int write_pid(const char *path)
{
	const char *step;
	char buf[32];
	int n = snprintf(buf, sizeof(buf), "%ld\n", (long)getpid());
	int ret = sm_replace_path(path, buf, n, 0644, &step);

	if (ret)
		poold_log(LOG_ERR, "%s: %s: %s", path, step, strerror(-ret));
	return ret;
}

/*
 * Each allocation the state gives GPUs the config lacks, once at start:
 * they are kept until an admin drops them (docs/ibpoold.md, orphans).
 */
static void log_orphans(const struct pool *pool)
{
	const struct pool_alloc *a;
	char gpus[256];
	size_t i, g, n = pool_orphans(pool, &g);
	unsigned int k;
	int o;

	for (i = 0; i < pool_nallocs(pool); i++) {
		a = pool_alloc_at(pool, i);
		for (k = 0, o = 0, *gpus = '\0'; k < a->nlost; k++)
			if (o >= 0 && (size_t)o < sizeof(gpus))
				o += snprintf(gpus + o, sizeof(gpus) - o, "%s%s gpu %u",
					      k ? ", " : "", a->lost[k].host,
					      a->lost[k].gpu);
		if (a->nlost)
			poold_log(LOG_WARNING, "orphans: allocation %" PRIu64 " (client %s, uid %u%s%s) names GPUs the config does not have: %s",
				  a->id, a->client, (unsigned int)a->uid,
				  *a->job ? ", job " : "", a->job, gpus);
	}
	if (n)
		poold_log(LOG_WARNING, "orphans: %zu allocations hold %zu GPUs the config does not have; they are kept (not offered) until their leases end, the config has them again, or root runs 'ibpoolroute orphans --drop'",
			  n, g);
}

/* The socket's directory, created 0755 when missing: clients reach it. */
static int socket_dir(const char *path)
{
	char *copy = strdup(path), *dir;
	int ret = 0;

	if (!copy)
		return -ENOMEM;
	dir = dirname(copy);
	if (mkdir(dir, 0755) && errno != EEXIST) {
		ret = -errno;
		poold_log(LOG_ERR, "%s: %s", dir, strerror(errno));
	}
	free(copy);
	return ret;
}

static void server_log(void *ctx, const char *msg)
{
	(void)ctx;
	poold_log(LOG_NOTICE, "client: %s", msg);
}

/*
 * The plugins' routings that reached the switches, from their state:
 * the sum over the SMs that answer (only a master routes, so a new
 * routing or a takeover changes it), or -1 when none does (then the
 * routing is taken as unchanged).  Not routed_generation: that is the
 * job table's, and stays the same when the SM routes again because a
 * cable came or went.
 */
static int64_t routings(const struct pool_config *cfg)
{
	json_object *req = json_object_new_object(), *reply;
	char err[256];
	int64_t n = -1;
	size_t i;

	if (!req || sm_json_add(req, "op", json_object_new_string("state")))
		goto out;
	for (i = 0; i < cfg->nsms; i++) {
		reply = NULL;
		if (!sm_call_as(cfg->sms[i], cfg->munge_socket, req, &reply,
				1000, err, sizeof(err)) &&
		    json_object_get_boolean(json_object_object_get(reply,
								   "ok")))
			n = (n < 0 ? 0 : n) + json_object_get_int64(
				json_object_object_get(reply, "routings"));
		json_object_put(reply);
	}
out:
	json_object_put(req);
	return n;
}

/*
 * A new discovery and LFTs in place of the view: 0, or -1 (logged) with
 * the last view kept.
 */
static int refresh(struct poold *d, struct pool_live *live, const char *why)
{
	struct pool_view *v, *old;
	char err[512], kept[128];
	int ret;

	if (pool_live_view(live, &v, err, sizeof(err))) {
		poold_refresh_failed(d, err, kept, sizeof(kept));
		poold_log(LOG_WARNING, "fabric refresh (%s): %s; keeping %s",
			  why, err, kept);
		return -1;
	}
	ret = poold_swap_view(d, v, &old, err, sizeof(err));
	if (ret) {
		poold_refresh_failed(d, err, kept, sizeof(kept));
		poold_log(LOG_WARNING, "fabric refresh (%s): %s; keeping %s",
			  why, err, kept);
	} else
		poold_log(LOG_INFO, "fabric refreshed (%s): %zu switches, %zu CAs, LMC %u",
			  why, v->fab->nsw, v->fab->nca, v->lmc);
	pool_view_free(old);
	return ret ? -1 : 0;
}

/* What the telemetry remembers between runs. */
struct tele {
	int64_t routed;		/* the plugin's routings, -1: no plugin */
	double next_lft;	/* no plugin: when to read the LFTs again */
};

/*
 * Without the plugin no state tells of a new routing (an SM's reroute
 * with no link change): every lft_check_s the switches' LFTs are read
 * again and a new view made when one entry differs.  True when it did.
 */
static bool lft_check(struct poold *d, struct pool_live *live,
		      struct tele *tl)
{
	unsigned int s = d->cfg->lft_check_s;
	char err[512];
	int ret;

	if (!s || mono_s() < tl->next_lft)
		return false;
	tl->next_lft = mono_s() + s;
	/* The main thread alone swaps the view: no lock to read it here. */
	ret = pool_live_lfts_changed(live, d->view, err, sizeof(err));
	if (ret < 0)
		poold_log(LOG_WARNING, "LFT check: %s", err);
	if (ret <= 0)
		return false;
	refresh(d, live, "LFTs changed");
	return true;
}

/*
 * Live telemetry: counters into link loads, and a new view when links
 * came or went or the SM routed again (tried again next time when the
 * discovery failed, say in the middle of the SM's sweep).
 */
static void telemetry(struct poold *d, struct pool_live *live,
		      struct tele *tl)
{
	int64_t n = routings(d->cfg);
	char err[512];
	int ret;

	if (n >= 0 && tl->routed >= 0 && n != tl->routed) {
		if (!refresh(d, live, "the SM routed again"))
			tl->routed = n;
		return;
	}
	if (n >= 0)
		tl->routed = n;
	if (n < 0 && lft_check(d, live, tl))
		return;
	ret = pool_live_sample(live, err, sizeof(err));
	if (ret < 0) {
		poold_log(LOG_WARNING, "counters: %s", err);
		return;
	}
	if (ret > 0) {
		refresh(d, live, "links came or went");
		return;
	}
	pthread_mutex_lock(&d->lock);
	pool_live_apply(live, d->view);
	pthread_mutex_unlock(&d->lock);
}

/* A failed journal sync: the state is ahead of the disk, stop (exit 1). */
static void commit_failed(void *ctx, const char *msg)
{
	(void)ctx;
	poold_log(LOG_ERR, "journal: %s; stopping", msg);
	kill(getpid(), SIGTERM);
}

/*
 * Serve until SIGTERM or SIGINT; timers on this thread: expiry and
 * compaction every second, live telemetry every telemetry_interval_ms.
 */
static void serve(struct poold *d, struct pool_live *live,
		  const sigset_t *sigs)
{
	unsigned int ms = d->cfg->telemetry_interval_ms;
	struct timespec ts;
	double next_tick = mono_s(), next_tele = mono_s(), t, wait;
	struct tele tl = {
		.routed = live ? routings(d->cfg) : -1,
		.next_lft = mono_s() + d->cfg->lft_check_s,
	};
	siginfo_t si;
	int sig;

	for (;;) {
		t = mono_s();
		if (t >= next_tick) {
			poold_tick(d, false);
			next_tick = t + TICK_MS / 1000.0;
		}
		if (live && t >= next_tele) {
			telemetry(d, live, &tl);
			next_tele = mono_s() + ms / 1000.0;
		}
		wait = next_tick - mono_s();
		if (live && next_tele - mono_s() < wait)
			wait = next_tele - mono_s();
		if (wait < 0.001)
			wait = 0.001;
		ts.tv_sec = (time_t)wait;
		ts.tv_nsec = (long)((wait - ts.tv_sec) * 1e9);
		sig = sigtimedwait(sigs, &si, &ts);
		if (sig == SIGTERM || sig == SIGINT) {
			poold_log(LOG_INFO, "%s: stopping",
				  sig == SIGTERM ? "SIGTERM" : "SIGINT");
			return;
		}
	}
}

static int run(const struct args *a)
{
	struct sm_server_config sc = { 0 };
	struct pool_config cfg;
	struct pool_view *view = NULL;
	struct pool_live *live = NULL;
	struct poold_fanout *relay = NULL;
	struct poold_commit *commit = NULL;
	struct pool *pool = NULL;
	struct poold d = { 0 };
	char err[1024], tcp[SM_ADDR_LEN];
	sigset_t sigs;
	int ready = -1, ret;

	ret = pool_config_load(a->config, &cfg, err, sizeof(err));
	if (ret) {
		poold_log(LOG_ERR, "%s", err);
		return 1;
	}
	if (a->daemon)
		ready = detach();
	/* Threads inherit the mask: signals reach the main thread only. */
	sigemptyset(&sigs);
	sigaddset(&sigs, SIGTERM);
	sigaddset(&sigs, SIGINT);
	pthread_sigmask(SIG_BLOCK, &sigs, NULL);
	signal(SIGPIPE, SIG_IGN);

	ret = open_view(a, &live, &view, err, sizeof(err));
	if (ret) {
		poold_log(LOG_ERR, "%s", err);
		goto out_view;
	}
	poold_log(LOG_INFO, "fabric: %s: %s, engine %s, %zu switches, %zu CAs, LMC %u",
		  view->source, view->route.topology, view->route.engine,
		  view->fab->nsw, view->fab->nca, view->lmc);
	ret = pool_new(&cfg, &pool);
	if (ret) {
		poold_log(LOG_ERR, "out of memory");
		goto out_view;
	}
	if (mkdir(cfg.state_dir, 0750) && errno != EEXIST) {
		ret = -errno;
		poold_log(LOG_ERR, "%s: %s", cfg.state_dir, strerror(errno));
		goto out_pool;
	}
	ret = pool_open_state(pool, cfg.state_dir, time(NULL), err,
			      sizeof(err));
	if (ret) {
		poold_log(LOG_ERR, "%s", err);
		goto out_pool;
	}
	if (*pool_state_note(pool))
		poold_log(LOG_WARNING, "journal: %s", pool_state_note(pool));
	log_orphans(pool);
	pool_group_commit(pool);
	ret = poold_fanout_start((const char *const *)cfg.sms, cfg.nsms,
				cfg.sm_owner, cfg.munge_socket,
				cfg.telemetry_interval_ms, &relay);
	if (ret) {
		poold_log(LOG_ERR, "relay thread: %s", strerror(-ret));
		goto out_pool;
	}
	ret = poold_init(&d, &cfg, pool, view, relay, err, sizeof(err));
	if (ret) {
		poold_log(LOG_ERR, "%s", err);
		goto out_relay;
	}
	ret = poold_commit_start(pool, commit_failed, NULL, &commit);
	if (ret) {
		poold_log(LOG_ERR, "commit thread: %s", strerror(-ret));
		goto out_ops;
	}
	d.commit = commit;
	ret = poold_metrics_start(&d, &d.metrics);
	if (ret) {
		poold_log(LOG_ERR, "metrics thread: %s", strerror(-ret));
		goto out_ops;
	}
	ret = socket_dir(cfg.socket);
	if (ret)
		goto out_ops;
	sc.path = cfg.socket;
	sc.tcp = cfg.tcp;
	sc.munge_socket = cfg.munge_socket;
	sc.group = cfg.group ? cfg.gid : SM_NO_GROUP;
	/* who may connect is the mode's; then each operation checks the peer */
	sc.mode = cfg.socket_mode;
	sc.handler = poold_handle;
	sc.http = poold_metrics_http;
	sc.ctx = &d;
	sc.log = server_log;
	ret = sm_server_start(&sc, &d.srv, err, sizeof(err));
	if (ret) {
		poold_log(LOG_ERR, "%s", err);
		goto out_ops;
	}
	if (a->pid_file && (ret = write_pid(a->pid_file)))
		goto out_srv;
	sm_server_tcp_name(d.srv, tcp, sizeof(tcp));
	if (cfg.tcp && !cfg.tcp_loopback)
		poold_log(LOG_WARNING, "tcp %s is reachable from other hosts: anyone there can read the pool, its jobs and the fabric; changes need a MUNGE credential",
			  tcp);
	poold_log(LOG_INFO, "serving %s%s%s%s: %zu hosts, %zu allocations, %zu jobs, state in %s",
		  cfg.socket, *tcp ? " and tcp " : "", tcp,
		  *tcp ? " (reads; changes in a MUNGE credential)" : "",
		  cfg.nhosts, pool_nallocs(pool), pool_njobs(pool),
		  cfg.state_dir);
	if (ready >= 0) {
		detached(ready);
		ready = -1;
	}
	serve(&d, live, &sigs);
	ret = 0;
	if (a->pid_file)
		unlink(a->pid_file);
out_srv:
	/* The waiting replies go out first; later ones sync on their own. */
	poold_commit_stop(commit);
	poold_metrics_stop(d.metrics);
	sm_server_stop(d.srv);
out_ops:
	/*
	 * The relay stops after the server: no post reaches a freed relay.
	 * A final compaction that fails (a broken journal) exits 1.
	 */
	if (!ret && poold_tick(&d, true))
		ret = -EIO;
	poold_commit_free(commit);
	poold_metrics_stop(d.metrics);
	poold_metrics_free(d.metrics);
	poold_release(&d);
out_relay:
	poold_fanout_stop(relay);
out_pool:
	pool_free(pool);
out_view:
	pool_view_free(d.view ? d.view : view);
	pool_live_close(live);
	pool_config_release(&cfg);
	return ret ? 1 : 0;
}

/*
 * path against the working directory, which the daemon leaves (chdir
 * "/") before it reads --net and writes --pid-file: malloc'ed, or NULL.
 */
static char *absolute(const char *path)
{
	char *cwd, *abs = NULL;

	if (*path == '/')
		return strdup(path);
	cwd = getcwd(NULL, 0);
	if (cwd && asprintf(&abs, "%s/%s", cwd, path) < 0)
		abs = NULL;
	free(cwd);
	return abs;
}

int main(int argc, char **argv)
{
	struct args a = { .engine = RT_ENGINE_AUTO };
	char *net = NULL, *pid = NULL;
	int ret;

	ret = parse(argc, argv, &a);
	if (ret)
		return ret;
	if (a.print_host)
		return print_host();
	if (a.print_config)
		return print_config(&a);
	if ((a.net && !(a.net = net = absolute(a.net))) ||
	    (a.pid_file && !(a.pid_file = pid = absolute(a.pid_file)))) {
		fprintf(stderr, PROG ": %s\n", strerror(errno));
		ret = 1;
	} else {
		ret = run(&a);
	}
	free(net);
	free(pid);
	return ret;
}
