// SPDX-License-Identifier: MIT
/* The tools' shared command-line conventions. */
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

void cli_parser_init(struct cli_parser *p, const struct cli_opt *opts,
		     size_t n)
{
	char *sp = p->sopts;
	size_t i;

	memset(p, 0, sizeof(*p));
	p->opts = opts;
	p->n = n < CLI_MAX_OPTS ? n : CLI_MAX_OPTS;
	*sp++ = ':';	/* report a missing argument as ':' */
	for (i = 0; i < p->n; i++) {
		p->lopts[i] = (struct option){ opts[i].name, opts[i].has_arg,
					       NULL, opts[i].val };
		if (opts[i].val >= CLI_LONG_ONLY)
			continue;
		*sp++ = opts[i].val;
		if (opts[i].has_arg)
			*sp++ = ':';
	}
	*sp = '\0';
}

const struct cli_opt *cli_find(const struct cli_opt *opts, size_t n,
			       int val)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (opts[i].val == val)
			return &opts[i];
	return NULL;
}

int cli_next(struct cli_parser *p, int argc, char **argv,
	     const struct cli_opt **o, const char **bad)
{
	int c;

	opterr = 0;
	optopt = 0;
	c = getopt_long(argc, argv, p->sopts, p->lopts, NULL);
	*o = NULL;
	*bad = NULL;
	if (c == '?' || c == ':') {
		/* an unknown letter in a cluster ("-vz") is not a whole word */
		if (c == '?' && optopt > 0 && optopt < CLI_LONG_ONLY) {
			p->word[0] = '-';
			p->word[1] = optopt;
			p->word[2] = '\0';
			*bad = p->word;
		} else {
			*bad = argv[optind - 1];
		}
		return c;
	}
	if (c != -1)
		*o = cli_find(p->opts, p->n, c);
	return c;
}

void cli_help_opt(FILE *out, const struct cli_opt *o, int width,
		  const char *tail)
{
	char left[64];

	if (o->val < CLI_LONG_ONLY)
		snprintf(left, sizeof(left), "-%c, --%s%s%s", o->val, o->name,
			 o->arg_name ? " " : "", o->arg_name ? o->arg_name : "");
	else
		snprintf(left, sizeof(left), "    --%s%s%s", o->name,
			 o->arg_name ? " " : "", o->arg_name ? o->arg_name : "");
	fprintf(out, "  %-*s %s%s\n", width, left, o->help, tail ? tail : "");
}

int cli_uint(const char *s, int base, unsigned long long max,
	     unsigned long long *v)
{
	char *end;

	if (*s < '0' || *s > '9')
		return -EINVAL;
	errno = 0;
	*v = strtoull(s, &end, base);
	if (*end || end == s)
		return -EINVAL;
	if (errno == ERANGE || *v > max)
		return -ERANGE;
	return errno ? -EINVAL : 0;
}

#ifndef GPUAWARE_VERSION
#error "GPUAWARE_VERSION comes from the Makefile's VERSION"
#endif

void cli_version(FILE *out, const char *prog)
{
	fprintf(out, "%s (gpuaware) %s\n", prog, GPUAWARE_VERSION);
}

int cli_usage(const char *prog, const char *cmd, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "%s: ", prog);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, " (try '%s%s%s --help')\n", prog, cmd ? " " : "",
		cmd ? cmd : "");
	return 2;
}

const char *cli_socket_hint(int err, enum cli_peer peer, bool tcp)
{
	bool sm = peer == CLI_PEER_SM;

	switch (err) {
	case ENOENT:
		return sm ? "is OpenSM running with the gpuaware plugin (event_plugin_name gpuaware)? Its socket is [hints] socket in /etc/opensm/gpuaware.conf; --socket names another" :
			    "is ibpoold running? Its socket is [pool] socket in its config; --socket or $GPUAWARE_POOL_SOCKET names another";
	case ECONNREFUSED:
		if (tcp)
			return "nothing listens on that port: ibpoold's [pool] tcp names the one it serves";
		return sm ? "nobody listens on it: OpenSM or its plugin stopped and left the socket file; start OpenSM again" :
			    "nobody listens on it: ibpoold stopped and left the socket file; start ibpoold again";
	case EACCES:
		return sm ? "the socket is mode 0660: run as root or as a member of the group [hints] group names in /etc/opensm/gpuaware.conf" :
			    "the socket's mode is [pool] socket_mode (0660 by default) in ibpoold's config: run as root or as a member of its [pool] group";
	case ETIMEDOUT:
		return sm ? "OpenSM's plugin did not answer in time: it may be busy routing; --timeout MS waits longer" :
			    "ibpoold did not answer in time: is it stopped (SIGSTOP) or its host overloaded?";
	default:
		return NULL;
	}
}
