// SPDX-License-Identifier: MIT
/* Reads the plugin's INI file with iniparser and checks every key in it. */
#include <ctype.h>
#include <errno.h>
#include <grp.h>
#include <inttypes.h>
#include <limits.h>
#include <stdbool.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

#include <iniparser/iniparser.h>

#include "../../sm/endpoint.h"
#include "gaconfig.h"

struct out {
	ga_cfg_log_fn log;
	void *ctx;
	const char *path;
};

__attribute__((format(printf, 3, 4)))
static void say(const struct out *o, enum ga_cfg_level lvl,
		const char *fmt, ...)
{
	char buf[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	o->log(o->ctx, lvl, buf);
}

static const char *const verb_names[] = {
	[GA_QUIET] = "quiet",
	[GA_NORMAL] = "normal",
	[GA_VERBOSE] = "verbose",
	[GA_DEBUG] = "debug",
};

#define NVERB (sizeof(verb_names) / sizeof(verb_names[0]))

const char *ga_verbosity_name(enum ga_verbosity v)
{
	return (unsigned int)v < NVERB ? verb_names[v] : "?";
}

void ga_cfg_defaults(struct ga_cfg *c)
{
	memset(c, 0, sizeof(*c));
	c->engine = RT_ENGINE_AUTO;
	c->verbosity = GA_NORMAL;
	snprintf(c->hints_socket, sizeof(c->hints_socket), "%s",
		 GA_HINTS_SOCKET);
	snprintf(c->hints_dir, sizeof(c->hints_dir), "%s", GA_HINTS_DIR);
	c->hints_interval_ms = GA_HINTS_INTERVAL_MS;
	c->hints_group = GA_NO_GROUP;
}

/* An absolute path that fits buf, or "" (socket only: off). */
static int set_path(char *buf, size_t len, const char *v, bool may_be_empty)
{
	size_t n = strlen(v);

	if ((!n && !may_be_empty) || (n && v[0] != '/') || n >= len)
		return -EINVAL;
	memcpy(buf, v, n + 1);
	return 0;
}

static int set_socket(struct ga_cfg *c, const char *v)
{
	return set_path(c->hints_socket, sizeof(c->hints_socket), v, true);
}

/* The hint service's TCP endpoint, as the sm/ server listens on it. */
static int set_tcp(struct ga_cfg *c, const char *v)
{
	struct sockaddr_storage a;
	socklen_t al;

	if (strlen(v) >= sizeof(c->hints_tcp) || (*v && sm_tcp_parse(v, &a, &al)))
		return -EINVAL;
	memcpy(c->hints_tcp, v, strlen(v) + 1);
	return 0;
}

static const char *show_tcp(const struct ga_cfg *c)
{
	return c->hints_tcp[0] ? c->hints_tcp : "(off)";
}

static int set_munge(struct ga_cfg *c, const char *v)
{
	return set_path(c->munge_socket, sizeof(c->munge_socket), v, true);
}

static const char *show_munge(const struct ga_cfg *c)
{
	return c->munge_socket[0] ? c->munge_socket : "(munge's default)";
}

static int set_textfile(struct ga_cfg *c, const char *v)
{
	return set_path(c->metrics_textfile, sizeof(c->metrics_textfile), v,
			true);
}

static const char *show_textfile(const struct ga_cfg *c)
{
	return c->metrics_textfile[0] ? c->metrics_textfile : "(off)";
}

static int set_dir(struct ga_cfg *c, const char *v)
{
	return set_path(c->hints_dir, sizeof(c->hints_dir), v, false);
}

static int set_interval(struct ga_cfg *c, const char *v)
{
	char *end;
	unsigned long ms;

	errno = 0;
	ms = strtoul(v, &end, 10);
	if (!*v || *end || errno || ms > 600000 || v[0] == '-')
		return -EINVAL;
	c->hints_interval_ms = ms;
	return 0;
}

/* A group that exists now; its gid is what SO_PEERCRED is checked with. */
static int set_group(struct ga_cfg *c, const char *v)
{
	struct group *g;

	if (!*v || strlen(v) >= sizeof(c->hints_group_name))
		return -EINVAL;
	g = getgrnam(v);
	if (!g)
		return -ENOENT;
	c->hints_group = g->gr_gid;
	memcpy(c->hints_group_name, v, strlen(v) + 1);
	return 0;
}

static const char *show_socket(const struct ga_cfg *c)
{
	return c->hints_socket[0] ? c->hints_socket : "(off)";
}

static const char *show_dir(const struct ga_cfg *c)
{
	return c->hints_dir;
}

static const char *show_interval(const struct ga_cfg *c)
{
	static char buf[16];

	snprintf(buf, sizeof(buf), "%u", c->hints_interval_ms);
	return buf;
}

static const char *show_group(const struct ga_cfg *c)
{
	return c->hints_group_name[0] ? c->hints_group_name : "(root only)";
}

static int set_verbosity(struct ga_cfg *c, const char *v)
{
	unsigned int i;

	if (v[0] >= '0' && v[0] < '0' + (int)NVERB && !v[1]) {
		c->verbosity = v[0] - '0';
		return 0;
	}
	for (i = 0; i < NVERB; i++) {
		if (!strcasecmp(v, verb_names[i])) {
			c->verbosity = i;
			return 0;
		}
	}
	return -EINVAL;
}

static int set_engine(struct ga_cfg *c, const char *v)
{
	enum rt_engine_id id;
	char low[32];
	size_t i;

	for (i = 0; v[i] && i < sizeof(low) - 1; i++)
		low[i] = tolower((unsigned char)v[i]);
	if (v[i])
		return -EINVAL;
	low[i] = '\0';
	if (rt_engine_parse(low, &id))
		return -EINVAL;
	c->engine = id;
	return 0;
}

/* A count of search moves, 0 to RT_JOB_SEARCH_MAX, into *out. */
static int parse_moves(const char *v, uint64_t *out)
{
	unsigned long long n;
	char *end;

	errno = 0;
	n = strtoull(v, &end, 10);
	if (!*v || *end || errno || n > RT_JOB_SEARCH_MAX || v[0] == '-')
		return -EINVAL;
	*out = n;
	return 0;
}

static const char *show_count(uint64_t n)
{
	static char buf[24];

	snprintf(buf, sizeof(buf), "%" PRIu64, n);
	return buf;
}

static int set_moves(struct ga_cfg *c, const char *v)
{
	return parse_moves(v, &c->job_search_moves);
}

static const char *show_moves(const struct ga_cfg *c)
{
	return show_count(c->job_search_moves);
}

static const char *show_engine(const struct ga_cfg *c)
{
	return rt_engine_name(c->engine);
}

static const char *show_verbosity(const struct ga_cfg *c)
{
	return ga_verbosity_name(c->verbosity);
}

/* Every key the file may hold, spelled as iniparser stores it. */
struct key {
	const char *name;
	const char *expect;	/* for the error message */
	/* Leaves c as it was when v is bad. */
	int (*set)(struct ga_cfg *c, const char *v);
	const char *(*show)(const struct ga_cfg *c);
};

static const struct key keys[] = {
	{ "routing:engine", RT_ENGINE_NAMES, set_engine,
	  show_engine },
	{ "routing:job_search_moves",
	  "entries, 0 (the default budget) to 100000000", set_moves,
	  show_moves },
	{ "log:verbosity", "0-3, quiet, normal, verbose or debug",
	  set_verbosity, show_verbosity },
	{ "hints:socket", "an absolute socket path of at most 107 bytes, or empty for none",
	  set_socket, show_socket },
	{ "hints:state_dir", "an absolute directory path", set_dir,
	  show_dir },
	{ "hints:min_interval_ms", "milliseconds, 0-600000", set_interval,
	  show_interval },
	{ "hints:group", "the name of an existing group", set_group,
	  show_group },
	{ "hints:tcp", "[ADDR:]PORT (ADDR numeric, 127.0.0.1 when left out), or empty for none",
	  set_tcp, show_tcp },
	{ "hints:munge_socket", "an absolute socket path of at most 107 bytes, or empty for munge's default",
	  set_munge, show_munge },
	{ "metrics:textfile", "an absolute file path of at most 255 bytes, or empty for none",
	  set_textfile, show_textfile },
};

#define NKEYS (sizeof(keys) / sizeof(keys[0]))

/*
 * Keys of earlier releases: the job policies and the background
 * refinement gave way to the collective search, whose routing is kept
 * only when it wins on the collectives model.
 */
static const char *const retired[] = {
	"routing:job_policy",
	"routing:job_refine_moves",
};

static bool is_retired(const char *k)
{
	size_t i;

	for (i = 0; i < sizeof(retired) / sizeof(retired[0]); i++)
		if (!strcmp(retired[i], k))
			return true;
	return false;
}

static bool known_section(const char *s, size_t len)
{
	size_t i;

	for (i = 0; i < NKEYS; i++)
		if (!strncmp(keys[i].name, s, len) && keys[i].name[len] == ':')
			return true;
	return false;
}

static void check_entry(struct ga_cfg *c, const struct out *o, const char *k,
			const char *v)
{
	const char *colon = strchr(k, ':');
	size_t i;

	if (!colon) {
		if (!known_section(k, strlen(k)))
			say(o, GA_CFG_WARN,
			    "WRN GA14: %s: unknown section [%s] ignored",
			    o->path, k);
		return;
	}
	for (i = 0; i < NKEYS; i++)
		if (!strcmp(keys[i].name, k))
			break;
	if (i == NKEYS) {
		if (colon == k)
			say(o, GA_CFG_WARN,
			    "WRN GA15: %s: key '%s' outside any section ignored",
			    o->path, colon + 1);
		else if (is_retired(k))
			say(o, GA_CFG_WARN,
			    "WRN GA40: %s: key '%s' is no longer used (the job routing is kept only where it wins on the collectives model), ignored",
			    o->path, k);
		else if (known_section(k, colon - k))
			say(o, GA_CFG_WARN,
			    "WRN GA16: %s: unknown key '%s' ignored",
			    o->path, k);
		return;
	}
	if (keys[i].set(c, v ? v : ""))
		say(o, GA_CFG_ERROR,
		    "ERR GA10: %s: bad value '%s' for key %s (expected %s), using the default '%s'",
		    o->path, v ? v : "", k, keys[i].expect, keys[i].show(c));
}

/*
 * iniparser reports syntax errors through one process-wide callback with
 * no context; the plugin loads its file once, from OpenSM's main thread,
 * so a static buffer holding the first message is enough.
 */
static char ini_err[256];

__attribute__((format(printf, 1, 2)))
static int ini_errback(const char *fmt, ...)
{
	va_list ap;
	char *p;

	if (ini_err[0])
		return 0;
	va_start(ap, fmt);
	vsnprintf(ini_err, sizeof(ini_err), fmt, ap);
	va_end(ap);
	for (p = ini_err; *p; p++)
		if (*p == '\n' || *p == '\t')
			*p = ' ';
	while (p > ini_err && p[-1] == ' ')
		*--p = '\0';
	return 0;
}

void ga_cfg_load(struct ga_cfg *c, const char *path, ga_cfg_log_fn log,
		 void *ctx)
{
	struct out o = { log, ctx, path && *path ? path : GA_CFG_DEFAULT_PATH };
	dictionary *d;
	struct stat st;
	ssize_t i;

	ga_cfg_defaults(c);
	if (stat(o.path, &st)) {
		if (errno == ENOENT)
			say(&o, GA_CFG_INFO,
			    "no config file %s, using defaults", o.path);
		else
			say(&o, GA_CFG_ERROR,
			    "ERR GA11: cannot read config file %s: %s, using defaults",
			    o.path, strerror(errno));
		return;
	}
	/* A FIFO or device would block OpenSM's start-up. */
	if (!S_ISREG(st.st_mode)) {
		say(&o, GA_CFG_ERROR,
		    "ERR GA12: config file %s is not a regular file, using defaults",
		    o.path);
		return;
	}
	ini_err[0] = '\0';
	iniparser_set_error_callback(ini_errback);
	d = iniparser_load(o.path);
	iniparser_set_error_callback(NULL);
	if (!d) {
		say(&o, GA_CFG_ERROR,
		    "ERR GA13: cannot parse config file %s (%s), using defaults",
		    o.path, ini_err[0] ? ini_err : "no reason given");
		return;
	}
	for (i = 0; i < d->size; i++)
		if (d->key[i])
			check_entry(c, &o, d->key[i], d->val[i]);
	iniparser_freedict(d);
}
