// SPDX-License-Identifier: MIT
/*
 * ibpoold's config: iniparser parses, this file checks every section and
 * key and finds the line of a bad one for the message.
 */
#include <ctype.h>
#include <errno.h>
#include <grp.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <iniparser/iniparser.h>

#include "config.h"
#include "swname.h"
#include "sm/client.h"
#include "sm/endpoint.h"
#include "sm/hints.h"
#include "topology/textio.h"

#define HOST_PREFIX "host"

struct ld {
	const char *path;
	dictionary *d;
	struct pool_config *c;
	char *err;
	size_t len;
};

/* s without leading and trailing blanks, lower-cased, into buf. */
static void norm(const char *s, size_t l, char *buf, size_t cap)
{
	size_t i = 0;

	while (l && isspace((unsigned char)*s)) {
		s++;
		l--;
	}
	while (l && isspace((unsigned char)s[l - 1]))
		l--;
	for (; i < l && i + 1 < cap; i++)
		buf[i] = tolower((unsigned char)s[i]);
	buf[i] = '\0';
}

/*
 * Scan the file's lines as iniparser reads them, calling fn(ctx, sec,
 * key, line) per section header (key NULL) and per key; sec and key are
 * stripped and lower-cased.  Only messages and the check for repeats
 * need this: the values come from iniparser.
 */
static void scan(const char *path,
		 void (*fn)(void *ctx, const char *sec, const char *key,
			    unsigned int line), void *ctx)
{
	char cur[512] = "", name[512];
	FILE *in = fopen(path, "r");
	char *buf = NULL, *p, *q;
	unsigned int n = 0;
	size_t cap = 0;

	if (!in)
		return;
	while (getline(&buf, &cap, in) > 0) {
		n++;
		p = buf + strspn(buf, " \t");
		if (*p == '[' && (q = strchr(p, ']'))) {
			norm(p + 1, q - p - 1, cur, sizeof(cur));
			fn(ctx, cur, NULL, n);
		} else if ((q = strchr(p, '=')) && *p != ';' && *p != '#') {
			norm(p, q - p, name, sizeof(name));
			fn(ctx, cur, name, n);
		}
	}
	free(buf);
	fclose(in);
}

struct where {
	const char *sec, *key;
	unsigned int line;
};

static void where_cb(void *ctx, const char *sec, const char *key,
		     unsigned int line)
{
	struct where *w = ctx;

	if (!strcmp(sec, w->sec) && (key && w->key ? !strcmp(key, w->key) :
				     !key && !w->key))
		w->line = line;
}

/*
 * Line of key in section sec, or of the section header when key is NULL:
 * the last one (iniparser keeps the last value), 0 when not found.
 */
static unsigned int find_line(const char *path, const char *sec,
			      const char *key)
{
	struct where w = { sec, key, 0 };

	scan(path, where_cb, &w);
	return w.line;
}

static unsigned int count_lines(const char *path)
{
	unsigned int n = 0;
	FILE *in = fopen(path, "r");
	int ch;

	if (!in)
		return 0;
	while ((ch = getc(in)) != EOF)
		n += ch == '\n';
	fclose(in);
	return n;
}

/* "FILE:LINE: [sec] key: message"; sec NULL for the whole file. */
__attribute__((format(printf, 5, 6)))
static int fail(struct ld *l, const char *sec, const char *key, int ret,
		const char *fmt, ...)
{
	unsigned int line = sec ? find_line(l->path, sec, key) : 0;
	char msg[384];
	va_list ap;

	if (sec && key && !line)
		line = find_line(l->path, sec, NULL);
	if (!sec)
		line = count_lines(l->path);
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (!sec)
		snprintf(l->err, l->len, "%s:%u: %s", l->path, line, msg);
	else
		snprintf(l->err, l->len, "%s:%u: [%s]%s%s: %s", l->path, line,
			 sec, key ? " " : "", key ? key : "", msg);
	return ret;
}

static int parse_uint(const char *v, unsigned long lo, unsigned long hi,
		      unsigned long *out)
{
	const char *p = v;

	if (!tio_dec(&p, hi, out) || *p || *out < lo)
		return -EINVAL;
	return 0;
}

static int set_str(char **dst, const char *v)
{
	char *s = strdup(v);

	if (!s)
		return -ENOMEM;
	free(*dst);
	*dst = s;
	return 0;
}

static void free_sms(struct pool_config *c)
{
	size_t i;

	for (i = 0; i < c->nsms; i++)
		free(c->sms[i]);
	free(c->sms);
	c->sms = NULL;
	c->nsms = 0;
}

/* Whether e is an SM endpoint: an absolute path or tcp:ENDPOINT. */
static bool sm_endpoint(const char *e)
{
	size_t pl = strlen(SM_TCP_PREFIX);

	return *e == '/' || (!strncmp(e, SM_TCP_PREFIX, pl) &&
			     sm_tcp_valid(e + pl));
}

/* sm_socket: endpoints separated by blanks or commas, kept in order. */
static int sm_sockets(struct ld *l, const char *v)
{
	struct pool_config *c = l->c;
	char *copy = strdup(v), *tok, *save = NULL;
	int ret = 0;

	if (!copy)
		return -ENOMEM;
	free_sms(c);
	c->sms = calloc(POOL_CFG_SMS_MAX, sizeof(*c->sms));
	if (!c->sms)
		ret = -ENOMEM;
	for (tok = strtok_r(copy, " \t,", &save); !ret && tok;
	     tok = strtok_r(NULL, " \t,", &save)) {
		if (!sm_endpoint(tok))
			ret = fail(l, "pool", "sm_socket", -EINVAL,
				   "'%s' is neither an absolute path nor tcp:HOST:PORT",
				   tok);
		else if (c->nsms == POOL_CFG_SMS_MAX)
			ret = fail(l, "pool", "sm_socket", -EINVAL,
				   "more than %d SM endpoints",
				   POOL_CFG_SMS_MAX);
		else if (!(c->sms[c->nsms++] = strdup(tok)))
			ret = -ENOMEM;
	}
	if (!ret && !c->nsms)
		ret = fail(l, "pool", "sm_socket", -EINVAL, "no SM endpoint");
	free(copy);
	return ret ? ret : set_str(&c->sm_socket, v);
}

static int pool_key(struct ld *l, const char *key, const char *v)
{
	struct pool_config *c = l->c;
	unsigned long n;
	struct group *gr;

	if (!strcmp(key, "sm_socket"))
		return sm_sockets(l, v);
	if (!strcmp(key, "socket") || !strcmp(key, "state_dir") ||
	    !strcmp(key, "node_name_map") || !strcmp(key, "munge_socket")) {
		if (*v != '/')
			return fail(l, "pool", key, -EINVAL,
				    "'%s' is not an absolute path", v);
		return set_str(!strcmp(key, "socket") ? &c->socket :
			       !strcmp(key, "munge_socket") ? &c->munge_socket :
			       !strcmp(key, "node_name_map") ?
			       &c->node_name_map : &c->state_dir, v);
	}
	if (!strcmp(key, "sm_owner")) {
		if (!sm_hints_id_valid(v))
			return fail(l, "pool", key, -EINVAL,
				    "'%s' is not 1..%d of " SM_HINTS_ID_CHARS,
				    v, SM_HINTS_ID_MAX);
		return set_str(&c->sm_owner, v);
	}
	if (!strcmp(key, "telemetry_interval_ms")) {
		if (parse_uint(v, POOL_CFG_TELEMETRY_MIN,
			       POOL_CFG_TELEMETRY_MAX, &n))
			return fail(l, "pool", key, -EINVAL,
				    "'%s' is not a number of milliseconds in %d..%d",
				    v, POOL_CFG_TELEMETRY_MIN,
				    POOL_CFG_TELEMETRY_MAX);
		c->telemetry_interval_ms = n;
		return 0;
	}
	if (!strcmp(key, "lft_check_s")) {
		if (parse_uint(v, 0, POOL_CFG_LFT_CHECK_MAX, &n))
			return fail(l, "pool", key, -EINVAL,
				    "'%s' is not 0 (off) or a number of seconds in 1..%d",
				    v, POOL_CFG_LFT_CHECK_MAX);
		c->lft_check_s = n;
		return 0;
	}
	if (!strcmp(key, "socket_mode")) {
		if (strcmp(v, "0600") && strcmp(v, "0660") && strcmp(v, "0666"))
			return fail(l, "pool", key, -EINVAL,
				    "'%s' is not 0600, 0660 or 0666", v);
		c->socket_mode = strtoul(v, NULL, 8);
		return 0;
	}
	if (!strcmp(key, "max_lease_s")) {
		if (parse_uint(v, 1, POOL_CFG_LEASE_MAX, &n))
			return fail(l, "pool", key, -EINVAL,
				    "'%s' is not a number of seconds in 1..%d",
				    v, POOL_CFG_LEASE_MAX);
		c->max_lease_s = n;
		return 0;
	}
	if (!strcmp(key, "max_gpus_per_uid")) {
		if (parse_uint(v, 0, POOL_CFG_UID_GPUS_MAX, &n))
			return fail(l, "pool", key, -EINVAL,
				    "'%s' is not 0 (no cap) or a number of GPUs in 1..%d",
				    v, POOL_CFG_UID_GPUS_MAX);
		c->max_gpus_per_uid = n;
		return 0;
	}
	if (!strcmp(key, "lease_default_s")) {
		if (parse_uint(v, 1, POOL_CFG_LEASE_MAX, &n))
			return fail(l, "pool", key, -EINVAL,
				    "'%s' is not a number of seconds in 1..%d",
				    v, POOL_CFG_LEASE_MAX);
		c->lease_default_s = n;
		return 0;
	}
	if (!strcmp(key, "tcp")) {
		struct sockaddr_storage a;
		socklen_t al;

		if (sm_tcp_parse(v, &a, &al))
			return fail(l, "pool", key, -EINVAL,
				    "'%s' is not [ADDR:]PORT (ADDR numeric IPv4 or [IPv6], 127.0.0.1 when left out; PORT 0..65535)",
				    v);
		c->tcp_loopback = sm_tcp_loopback(&a);
		return set_str(&c->tcp, v);
	}
	if (!strcmp(key, "group")) {
		errno = 0;
		gr = getgrnam(v);
		if (!gr)
			return fail(l, "pool", key, errno ? -errno : -ENOENT,
				    "unknown group '%s'", v);
		c->gid = gr->gr_gid;
		return set_str(&c->group, v);
	}
	return fail(l, "pool", key, -EINVAL, "unknown key");
}

static bool name_ok(const char *s, size_t n)
{
	size_t i;

	if (!n || n > POOL_CFG_NAME_MAX)
		return false;
	for (i = 0; i < n; i++)
		if (!isalnum((unsigned char)s[i]) && !strchr("._-", s[i]))
			return false;
	return true;
}

/* "a,b,c": class names, lowest first. */
static int sched_classes(struct ld *l, const char *v)
{
	struct pool_sched_cfg *c = &l->c->sched;
	const char *p = v, *q;

	for (;; p = q + 1) {
		q = p + strcspn(p, ",");
		p += strspn(p, " \t");
		if (c->nclasses == SCH_CLASSES || !name_ok(p, q - p))
			return fail(l, "sched", "classes", -EINVAL,
				    "'%s' is not 1..%d names of letters, digits, '.', '-', '_', lowest first",
				    v, SCH_CLASSES);
		c->classes[c->nclasses] = strndup(p, q - p);
		if (!c->classes[c->nclasses++])
			return -ENOMEM;
		if (!*q)
			return 0;
	}
}

/*
 * One "GROUP:GPUS" of a list at *p: the name's length into *len, the
 * GPUs into *n, *p past the comma; 1 at the list's end, 0 more to come,
 * -EINVAL when malformed.
 */
static int group_pair(const char **p, size_t *len, unsigned long *n)
{
	const char *q = *p + strcspn(*p, ","), *colon;
	char num[16];

	*p += strspn(*p, " \t");
	colon = memchr(*p, ':', q - *p);
	if (!colon || !name_ok(*p, colon - *p) ||
	    q - colon - 1 >= (long)sizeof(num))
		return -EINVAL;
	snprintf(num, sizeof(num), "%.*s", (int)(q - colon - 1), colon + 1);
	if (parse_uint(num, 0, UINT32_MAX / SCH_MILLI, n))
		return -EINVAL;
	*len = colon - *p;
	return *q ? 0 : 1;
}

/* Index of the group named name[0..len) among c's first n, or n. */
static size_t group_index(const struct pool_sched_cfg *c, const char *name,
			  size_t len, size_t n)
{
	size_t g;

	for (g = 0; g < n; g++)
		if (strlen(c->groups[g]) == len &&
		    !strncmp(c->groups[g], name, len))
			break;
	return g;
}

/* "GROUP:GPUS,...": the groups' quotas. */
static int sched_quota(struct ld *l, const char *v)
{
	struct pool_sched_cfg *c = &l->c->sched;
	const char *p = v, *name;
	unsigned long n;
	size_t len;
	int end;

	c->groups = calloc(POOL_CFG_GROUPS_MAX, sizeof(*c->groups));
	c->quota = calloc(POOL_CFG_GROUPS_MAX, sizeof(*c->quota));
	if (!c->groups || !c->quota)
		return -ENOMEM;
	for (;; p = name + len + strcspn(name + len, ",") + 1) {
		name = p;
		if (c->ngroups == POOL_CFG_GROUPS_MAX ||
		    (end = group_pair(&name, &len, &n)) < 0 ||
		    group_index(c, name, len, c->ngroups) < c->ngroups)
			goto bad;
		c->quota[c->ngroups] = n;
		c->groups[c->ngroups] = strndup(name, len);
		if (!c->groups[c->ngroups++])
			return -ENOMEM;
		if (end)
			return 0;
	}
bad:
	return fail(l, "sched", "quota", -EINVAL,
		    "'%s' is not GROUP:GPUS[,GROUP:GPUS...], each group once (at most %d groups)",
		    v, POOL_CFG_GROUPS_MAX);
}

/*
 * key (borrowing_limit or lending_limit), "GROUP:GPUS,..." over the
 * quota's groups, into *out (the groups it does not name: no limit).
 */
static int sched_limit(struct ld *l, const char *key, unsigned int **out)
{
	struct pool_sched_cfg *c = &l->c->sched;
	char ik[64];
	const char *v, *p, *name;
	unsigned long n;
	size_t len, g;
	int end;

	snprintf(ik, sizeof(ik), "sched:%s", key);
	v = iniparser_getstring(l->d, ik, NULL);
	if (!v)
		return 0;
	*out = malloc((c->ngroups + 1) * sizeof(**out));
	if (!*out)
		return -ENOMEM;
	for (g = 0; g < c->ngroups; g++)
		(*out)[g] = POOL_CFG_NO_LIMIT;
	for (p = v;; p = name + len + strcspn(name + len, ",") + 1) {
		name = p;
		if ((end = group_pair(&name, &len, &n)) < 0)
			goto bad;
		g = group_index(c, name, len, c->ngroups);
		if (g == c->ngroups || (*out)[g] != POOL_CFG_NO_LIMIT)
			goto bad;
		(*out)[g] = n;
		if (end)
			return 0;
	}
bad:
	return fail(l, "sched", key, -EINVAL,
		    "'%s' is not GROUP:GPUS[,GROUP:GPUS...] of the quota's groups, each once",
		    v);
}

/* "W0,W1,...": each class's weight, lowest first, numbers >= 0. */
static int sched_weights(struct ld *l, const char *v)
{
	struct pool_sched_cfg *c = &l->c->sched;
	const char *p = v;
	char *end;
	double w;

	for (c->nclass_weights = 0;; p = end + 1) {
		w = strtod(p, &end);
		if (c->nclass_weights == SCH_CLASSES || end == p ||
		    !(w >= 0) || (*end && *end != ','))
			return fail(l, "sched", "class_weights", -EINVAL,
				    "'%s' is not 1..%d numbers >= 0, lowest class first",
				    v, SCH_CLASSES);
		c->class_weights[c->nclass_weights++] = w;
		if (!*end)
			return 0;
	}
}

static int sched_yesno(struct ld *l, const char *key, const char *v,
		       bool *out)
{
	if (!strcmp(v, "yes") || !strcmp(v, "true") || !strcmp(v, "1"))
		*out = true;
	else if (!strcmp(v, "no") || !strcmp(v, "false") || !strcmp(v, "0"))
		*out = false;
	else
		return fail(l, "sched", key, -EINVAL, "'%s' is not yes or no",
			    v);
	return 0;
}

static int sched_secs(struct ld *l, const char *key, const char *v,
		      unsigned int *out)
{
	unsigned long n;

	if (parse_uint(v, 0, POOL_CFG_LEASE_MAX, &n))
		return fail(l, "sched", key, -EINVAL,
			    "'%s' is not a number of seconds in 0..%d", v,
			    POOL_CFG_LEASE_MAX);
	*out = n;
	return 0;
}

/* A [sched] key; default_class is checked once classes are known. */
static int sched_key(struct ld *l, const char *key, const char *v)
{
	struct pool_sched_cfg *c = &l->c->sched;
	char *end;

	if (!strcmp(key, "policy")) {
		if (sch_policy_parse(v, &c->policy) || c->policy == SCH_SJF)
			return fail(l, "sched", key, -EINVAL,
				    "'%s' is not fifo, priority, easy, predicted, tiresias, bestfit, fgd, fgdcpu, fgdfill or srpt",
				    v);
		return 0;
	}
	if (!strcmp(key, "grace_s"))
		return sched_secs(l, key, v, &c->grace_s);
	if (!strcmp(key, "starve_s"))
		return sched_secs(l, key, v, &c->starve_s);
	if (!strcmp(key, "restart_s"))
		return sched_secs(l, key, v, &c->restart_s);
	if (!strcmp(key, "gang_wait_s"))
		return sched_secs(l, key, v, &c->gang_wait_s);
	if (!strcmp(key, "preempt"))
		return sched_yesno(l, key, v, &c->preempt);
	if (!strcmp(key, "classes"))
		return sched_classes(l, v);
	if (!strcmp(key, "quota"))
		return sched_quota(l, v);
	if (!strcmp(key, "class_weight")) {
		c->class_weight = strtod(v, &end);
		if (!*v || *end || !(c->class_weight >= 0))
			return fail(l, "sched", key, -EINVAL,
				    "'%s' is not a number >= 0", v);
		return 0;
	}
	if (!strcmp(key, "class_weights"))
		return sched_weights(l, v);
	if (!strcmp(key, "default_class") || !strcmp(key, "borrowing_limit") ||
	    !strcmp(key, "lending_limit"))
		return 0;
	return fail(l, "sched", key, -EINVAL, "unknown key");
}

/*
 * default_class names one of classes, class_weights weigh them all, the
 * limits name the quota's groups.
 */
static int sched_default(struct ld *l)
{
	struct pool_sched_cfg *c = &l->c->sched;
	const char *v = iniparser_getstring(l->d, "sched:default_class", NULL);
	unsigned int i, n = c->nclasses ? c->nclasses : 1;
	int ret;

	if ((ret = sched_limit(l, "borrowing_limit", &c->borrow)) ||
	    (ret = sched_limit(l, "lending_limit", &c->lend)))
		return ret;
	for (i = 0; c->lend && i < c->ngroups; i++)
		if (c->lend[i] != POOL_CFG_NO_LIMIT && c->lend[i] > c->quota[i])
			return fail(l, "sched", "lending_limit", -EINVAL,
				    "group %s lends %u GPUs of a quota of %u",
				    c->groups[i], c->lend[i], c->quota[i]);
	if (c->nclass_weights && c->nclass_weights != n)
		return fail(l, "sched", "class_weights", -EINVAL,
			    "%u weights for %u classes", c->nclass_weights,
			    n);
	if (!v)
		return 0;
	for (i = 0; i < c->nclasses; i++)
		if (!strcmp(c->classes[i], v)) {
			c->default_class = i;
			return 0;
		}
	return fail(l, "sched", "default_class", -EINVAL,
		    "'%s' is not one of the classes", v);
}

/* One entry of an hca list: "0x..." port GUID or a node description. */
static int parse_hca(struct pool_hca *h, const char *s, size_t n)
{
	const char *p;
	uint64_t g;

	while (n && isspace((unsigned char)*s)) {
		s++;
		n--;
	}
	while (n && isspace((unsigned char)s[n - 1]))
		n--;
	if (!n)
		return -EINVAL;
	if (n > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
		p = s + 2;
		if (!tio_hex(&p, UINT64_MAX, &g) || p != s + n || !g)
			return -EINVAL;
		h->guid = g;
		return 0;
	}
	h->desc = strndup(s, n);
	return h->desc ? 0 : -ENOMEM;
}

static int host_hcas(struct ld *l, const char *sec, struct pool_host_cfg *h,
		     const char *v)
{
	const char *p = v, *q;
	int ret;

	h->hca = calloc(POOL_MAX_HCAS, sizeof(*h->hca));
	if (!h->hca)
		return -ENOMEM;
	for (;; p = q + 1) {
		q = strchr(p, ',');
		if (!q)
			q = p + strlen(p);
		if (h->nhca == POOL_MAX_HCAS)
			return fail(l, sec, "hca", -EINVAL,
				    "more than %d HCA ports", POOL_MAX_HCAS);
		ret = parse_hca(&h->hca[h->nhca], p, q - p);
		if (ret == -EINVAL)
			return fail(l, sec, "hca", ret,
				    "entry %u '%.*s' is neither a port GUID 0x1..0xffffffffffffffff nor a node description",
				    h->nhca + 1, (int)(q - p), p);
		if (ret)
			return ret;
		h->nhca++;
		if (!*q)
			return 0;
	}
}

bool pool_host_name_valid(const char *name)
{
	return *name &&
	       strspn(name, "abcdefghijklmnopqrstuvwxyz0123456789.-_") ==
	       strlen(name);
}

static int host_section(struct ld *l, const char *sec,
			struct pool_host_cfg *h)
{
	static const char *const need[] = { "gpus", "gpu_type", "hca" };
	const char *name = sec + strlen(HOST_PREFIX), *v;
	char key[600];
	unsigned long n;
	size_t i;
	int ret;

	name += strspn(name, " \t");
	if (!pool_host_name_valid(name))
		return fail(l, sec, NULL, -EINVAL,
			    "expected [host NAME] with a host name of letters, digits, '.', '-', '_'");
	h->name = strdup(name);
	if (!h->name)
		return -ENOMEM;
	for (i = 0; i < sizeof(need) / sizeof(need[0]); i++) {
		snprintf(key, sizeof(key), "%s:%s", sec, need[i]);
		if (!iniparser_getstring(l->d, key, NULL))
			return fail(l, sec, need[i], -EINVAL,
				    "required key missing");
	}
	snprintf(key, sizeof(key), "%s:gpus", sec);
	v = iniparser_getstring(l->d, key, NULL);
	if (parse_uint(v, 1, POOL_MAX_GPUS, &n))
		return fail(l, sec, "gpus", -EINVAL,
			    "'%s' is not a GPU count in 1..%d", v,
			    POOL_MAX_GPUS);
	h->gpus = n;
	snprintf(key, sizeof(key), "%s:gpu_type", sec);
	v = iniparser_getstring(l->d, key, NULL);
	if (!*v)
		return fail(l, sec, "gpu_type", -EINVAL, "empty");
	ret = set_str(&h->gpu_type, v);
	if (ret)
		return ret;
	snprintf(key, sizeof(key), "%s:accelerator_domain", sec);
	v = iniparser_getstring(l->d, key, NULL);
	if (v && !pool_swname_valid(v))
		return fail(l, sec, "accelerator_domain", -EINVAL,
			    "'%s' is not 1..%d of A-Z a-z 0-9 - _ . starting and ending with a letter or digit",
			    v, POOL_SWNAME_MAX);
	if (v && (ret = set_str(&h->domain, v)))
		return ret;
	snprintf(key, sizeof(key), "%s:hca", sec);
	return host_hcas(l, sec, h, iniparser_getstring(l->d, key, NULL));
}

static bool host_section_name(const char *s)
{
	size_t l = strlen(HOST_PREFIX);

	return !strncmp(s, HOST_PREFIX, l) &&
	       (!s[l] || s[l] == ' ' || s[l] == '\t');
}

static int unknown_section(struct ld *l, const char *sec)
{
	return fail(l, sec, NULL, -EINVAL,
		    "unknown section (expected [pool], [sched] or [host NAME])");
}

/* Every key of every section is one this file knows. */
static int check_keys(struct ld *l)
{
	static const char *const host_keys[] = { "gpus", "gpu_type", "hca",
						 "accelerator_domain" };
	char sec[512];
	const char *k, *colon;
	ssize_t i;
	size_t j;
	int ret;

	for (i = 0; i < l->d->size; i++) {
		k = l->d->key[i];
		if (!k || !(colon = strchr(k, ':')))
			continue;
		snprintf(sec, sizeof(sec), "%.*s", (int)(colon - k), k);
		if (colon == k)
			return fail(l, "", colon + 1, -EINVAL,
				    "key outside any section");
		if (!strcmp(sec, "pool") || !strcmp(sec, "sched")) {
			ret = (sec[0] == 'p' ? pool_key : sched_key)(l,
				colon + 1, l->d->val[i] ? l->d->val[i] : "");
			if (ret)
				return ret;
			continue;
		}
		if (!host_section_name(sec))
			return unknown_section(l, sec);
		for (j = 0; j < sizeof(host_keys) / sizeof(host_keys[0]); j++)
			if (!strcmp(colon + 1, host_keys[j]))
				break;
		if (j == sizeof(host_keys) / sizeof(host_keys[0]))
			return fail(l, sec, colon + 1, -EINVAL, "unknown key");
	}
	return 0;
}

/* Section headers and keys as the file spells them, with their lines. */
struct seen_one {
	char *sec, *key;	/* key NULL for a header */
	unsigned int line;
};

struct seen {
	struct seen_one *v;
	size_t n, cap;
	int ret;
};

static void seen_cb(void *ctx, const char *sec, const char *key,
		    unsigned int line)
{
	struct seen *s = ctx;

	if (s->ret || (s->ret = tio_grow((void **)&s->v, &s->cap, s->n + 1,
					 sizeof(*s->v))))
		return;
	s->v[s->n].sec = strdup(sec);
	s->v[s->n].key = key ? strdup(key) : NULL;
	s->v[s->n].line = line;
	if (!s->v[s->n].sec || (key && !s->v[s->n].key))
		s->ret = -ENOMEM;
	s->n++;
}

static int cmp_seen(const void *a, const void *b)
{
	const struct seen_one *x = a, *y = b;
	int c = strcmp(x->sec, y->sec);

	if (!c)
		c = strcmp(x->key ? x->key : "", y->key ? y->key : "");
	if (!c && !x->key != !y->key)
		c = x->key ? 1 : -1;
	return c ? c : (x->line > y->line) - (x->line < y->line);
}

/*
 * iniparser merges a repeated section or key silently (the last value
 * wins): refuse the first repeat in the file.  One scan, sorted.
 */
static int check_repeats(struct ld *l)
{
	struct seen s = { 0 };
	size_t i, first = SIZE_MAX;
	int ret;

	scan(l->path, seen_cb, &s);
	ret = s.ret;
	if (!ret)
		qsort(s.v, s.n, sizeof(*s.v), cmp_seen);
	for (i = 1; !ret && i < s.n; i++)
		if (!strcmp(s.v[i].sec, s.v[i - 1].sec) &&
		    !s.v[i].key == !s.v[i - 1].key &&
		    (!s.v[i].key || !strcmp(s.v[i].key, s.v[i - 1].key)) &&
		    (first == SIZE_MAX || s.v[i].line < s.v[first].line))
			first = i;
	if (!ret && first != SIZE_MAX)
		ret = fail(l, s.v[first].sec, s.v[first].key, -EINVAL,
			   "repeated (first at line %u)",
			   s.v[first - 1].line);
	for (i = 0; i < s.n; i++) {
		free(s.v[i].sec);
		free(s.v[i].key);
	}
	free(s.v);
	return ret;
}

struct ref {
	uint64_t guid;
	const char *desc;
	size_t host;
};

static int cmp_ref(const void *a, const void *b)
{
	const struct ref *x = a, *y = b;

	if (x->desc || y->desc) {
		int c = strcmp(x->desc ? x->desc : "", y->desc ? y->desc : "");

		if (c)
			return c;
	} else if (x->guid != y->guid) {
		return x->guid < y->guid ? -1 : 1;
	}
	return x->host < y->host ? -1 : x->host > y->host;
}

/* No port is named twice, within or across hosts. */
static int check_unique(struct ld *l)
{
	struct pool_config *c = l->c;
	struct ref *r;
	size_t n = 0, i, h, a;
	char sec[512];
	int ret = 0;

	for (h = 0; h < c->nhosts; h++)
		n += c->hosts[h].nhca;
	r = calloc(n + 1, sizeof(*r));
	if (!r)
		return -ENOMEM;
	for (n = 0, h = 0; h < c->nhosts; h++)
		for (a = 0; a < c->hosts[h].nhca; a++) {
			r[n].guid = c->hosts[h].hca[a].guid;
			r[n].desc = c->hosts[h].hca[a].desc;
			r[n++].host = h;
		}
	qsort(r, n, sizeof(*r), cmp_ref);
	for (i = 1; i < n; i++) {
		if ((r[i].desc || r[i - 1].desc) ?
		    !r[i].desc || !r[i - 1].desc ||
		    strcmp(r[i].desc, r[i - 1].desc) :
		    r[i].guid != r[i - 1].guid)
			continue;
		snprintf(sec, sizeof(sec), HOST_PREFIX " %s",
			 c->hosts[r[i].host].name);
		if (r[i].desc)
			ret = fail(l, sec, "hca", -EEXIST,
				   "node description '%s' already given for host %s",
				   r[i].desc, c->hosts[r[i - 1].host].name);
		else
			ret = fail(l, sec, "hca", -EEXIST,
				   "port GUID 0x%016llx already given for host %s",
				   (unsigned long long)r[i].guid,
				   c->hosts[r[i - 1].host].name);
		break;
	}
	free(r);
	return ret;
}

/* Sections: [pool] and [host NAME] only; fills c->hosts. */
static int sections(struct ld *l)
{
	int nsec = iniparser_getnsec(l->d), i, ret;
	const char *s;

	l->c->hosts = calloc(nsec + 1, sizeof(*l->c->hosts));
	if (!l->c->hosts)
		return -ENOMEM;
	for (i = 0; i < nsec; i++) {
		s = iniparser_getsecname(l->d, i);
		if (!strcmp(s, "pool") || !strcmp(s, "sched"))
			continue;
		if (!host_section_name(s))
			return unknown_section(l, s);
		ret = host_section(l, s, &l->c->hosts[l->c->nhosts++]);
		if (ret)
			return ret;
	}
	if (!l->c->nhosts)
		return fail(l, NULL, NULL, -EINVAL, "no [host NAME] section");
	return 0;
}

/* The default lease beyond the cap: at the default's line if it is set. */
static int lease_cap_error(struct ld *l)
{
	const struct pool_config *c = l->c;

	if (iniparser_find_entry(l->d, "pool:lease_default_s"))
		return fail(l, "pool", "lease_default_s", -EINVAL,
			    "%u s is longer than max_lease_s (%u s)",
			    c->lease_default_s, c->max_lease_s);
	return fail(l, "pool", "max_lease_s", -EINVAL,
		    "%u s is shorter than lease_default_s (%u s by default)",
		    c->max_lease_s, c->lease_default_s);
}

static int defaults(struct pool_config *c)
{
	memset(c, 0, sizeof(*c));
	c->telemetry_interval_ms = POOL_CFG_TELEMETRY_MS;
	c->lft_check_s = POOL_CFG_LFT_CHECK_S;
	c->socket_mode = POOL_CFG_SOCKET_MODE;
	c->lease_default_s = POOL_CFG_LEASE_S;
	c->sched.policy = SCH_FIFO;
	c->sched.grace_s = POOL_CFG_GRACE_S;
	c->sched.restart_s = POOL_CFG_RESTART_S;
	c->sched.class_weight = -1;
	c->max_lease_s = POOL_CFG_LEASE_MAX;
	c->socket = strdup(POOL_CFG_SOCKET);
	c->state_dir = strdup(POOL_CFG_STATE_DIR);
	c->sm_socket = strdup(POOL_CFG_SM_SOCKET);
	c->sm_owner = strdup(POOL_CFG_SM_OWNER);
	c->sms = calloc(1, sizeof(*c->sms));
	if (c->sms && (c->sms[0] = strdup(POOL_CFG_SM_SOCKET)))
		c->nsms = 1;
	return c->socket && c->state_dir && c->sm_socket && c->sm_owner &&
	       c->nsms ? 0 : -ENOMEM;
}

/*
 * iniparser reports syntax errors through one process-wide callback with
 * no context: keep its first message.  Loading happens once, at start-up,
 * before any thread exists.
 */
static char ini_msg[256];

__attribute__((format(printf, 1, 2)))
static int ini_error(const char *fmt, ...)
{
	va_list ap;

	if (!ini_msg[0]) {
		va_start(ap, fmt);
		vsnprintf(ini_msg, sizeof(ini_msg), fmt, ap);
		va_end(ap);
		ini_msg[strcspn(ini_msg, "\n")] = '\0';
	}
	return 0;
}

int pool_config_load(const char *path, struct pool_config *c, char *err,
		     size_t len)
{
	struct ld l = { .path = path, .c = c, .err = err, .len = len };
	struct stat st;
	int ret;

	ret = defaults(c);
	if (ret)
		goto out_nomem;
	if (stat(path, &st)) {
		ret = -errno;
		snprintf(err, len, "%s:0: %s", path, strerror(errno));
		goto out_release;
	}
	/* A FIFO would block start-up; a directory cannot be parsed. */
	if (!S_ISREG(st.st_mode)) {
		ret = -EINVAL;
		snprintf(err, len, "%s:0: not a regular file", path);
		goto out_release;
	}
	ini_msg[0] = '\0';
	iniparser_set_error_callback(ini_error);
	l.d = iniparser_load(path);
	iniparser_set_error_callback(NULL);
	if (!l.d) {
		ret = -EINVAL;
		snprintf(err, len, "%s:0: cannot parse: %s", path,
			 ini_msg[0] ? ini_msg : "no reason given");
		goto out_release;
	}
	ret = check_repeats(&l);
	if (!ret)
		ret = check_keys(&l);
	if (!ret)
		ret = sched_default(&l);
	if (!ret)
		ret = sections(&l);
	if (!ret)
		ret = check_unique(&l);
	if (!ret && c->lease_default_s > c->max_lease_s)
		ret = lease_cap_error(&l);
	iniparser_freedict(l.d);
	if (!ret)
		return 0;
	if (ret != -ENOMEM)
		goto out_release;
out_nomem:
	snprintf(err, len, "%s: out of memory", path);
out_release:
	pool_config_release(c);
	return ret;
}

void pool_config_release(struct pool_config *c)
{
	size_t h, a;

	for (h = 0; h < c->nhosts; h++) {
		struct pool_host_cfg *hc = &c->hosts[h];

		for (a = 0; a < hc->nhca; a++)
			free(hc->hca[a].desc);
		free(hc->hca);
		free(hc->name);
		free(hc->gpu_type);
		free(hc->domain);
	}
	free(c->hosts);
	free(c->socket);
	free(c->state_dir);
	free(c->sm_socket);
	free_sms(c);
	free(c->munge_socket);
	free(c->sm_owner);
	free(c->group);
	free(c->tcp);
	free(c->node_name_map);
	for (h = 0; h < c->sched.nclasses; h++)
		free(c->sched.classes[h]);
	for (h = 0; h < c->sched.ngroups; h++)
		free(c->sched.groups[h]);
	free(c->sched.groups);
	free(c->sched.quota);
	free(c->sched.borrow);
	free(c->sched.lend);
	memset(c, 0, sizeof(*c));
}
