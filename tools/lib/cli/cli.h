/* SPDX-License-Identifier: MIT */
/*
 * What the three tools' command lines share: one option table that
 * drives both getopt_long and --help, whole-string numbers, --version,
 * one-line usage errors and what to check when a socket refuses.
 * Tables and the strings in them are the caller's, borrowed for the
 * parser's life.
 */
#ifndef GPUAWARE_CLI_H
#define GPUAWARE_CLI_H

#include <getopt.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#define CLI_MAX_OPTS 128
#define CLI_LONG_ONLY 256	/* vals from here on have no short form */

/* A tool's table past CLI_MAX_OPTS would lose its last options silently. */
#define CLI_TABLE_FITS(opts) \
	_Static_assert(sizeof(opts) / sizeof((opts)[0]) <= CLI_MAX_OPTS, \
		       "option table longer than CLI_MAX_OPTS")

/* One option: its getopt_long entry and its --help line. */
struct cli_opt {
	const char *name;	/* long name, without the dashes */
	int has_arg;		/* 1: takes an argument */
	int val;		/* short letter, or CLI_LONG_ONLY and up */
	unsigned int mask;	/* the tool's bits: which commands take it */
	const char *arg_name;	/* the argument's name in --help, or NULL */
	const char *help;
};

/* getopt_long's tables built from a cli_opt table, and where it stands. */
struct cli_parser {
	const struct cli_opt *opts;
	size_t n;
	struct option lopts[CLI_MAX_OPTS + 1];
	char sopts[3 * CLI_MAX_OPTS + 2];
	char word[8];		/* "-x" of a bad short option */
};

/* Build p's tables for opts[0..n), n at most CLI_MAX_OPTS. */
void cli_parser_init(struct cli_parser *p, const struct cli_opt *opts,
		     size_t n);

/*
 * The next option of argv (getopt_long, from optind, which the caller
 * resets for a new argv): its val with *o its entry, -1 after the last
 * option, '?' for an unknown one and ':' for one missing its argument,
 * with *bad the word to name in the message.
 */
int cli_next(struct cli_parser *p, int argc, char **argv,
	     const struct cli_opt **o, const char **bad);

/* The entry of val, or NULL. */
const struct cli_opt *cli_find(const struct cli_opt *opts, size_t n,
			       int val);

/*
 * o's --help line: "  -x, --name ARG" (four spaces for a long-only
 * option) padded to width, a space, the help, then tail (NULL: none) and
 * a newline.
 */
void cli_help_opt(FILE *out, const struct cli_opt *o, int width,
		  const char *tail);

/*
 * s as a whole number in base (0: C's prefixes) without sign or
 * blanks: 0 with *v, -EINVAL when it is none, -ERANGE above max.
 */
int cli_uint(const char *s, int base, unsigned long long max,
	     unsigned long long *v);

/* "prog (gpuaware) VERSION": the project's one version, the Makefile's. */
void cli_version(FILE *out, const char *prog);

/*
 * A usage error, on one line of stderr: "prog: message (try 'prog
 * --help')", or 'prog cmd --help' with cmd.  Returns 2, the exit code.
 */
__attribute__((format(printf, 3, 4)))
int cli_usage(const char *prog, const char *cmd, const char *fmt, ...);

/* Whose socket a client failed to reach. */
enum cli_peer {
	CLI_PEER_SM,		/* the plugin's hint socket, in OpenSM */
	CLI_PEER_POOLD,		/* ibpoold's pool socket */
};

/*
 * What to check when connecting to peer's socket failed with -err
 * (ENOENT, ECONNREFUSED, EACCES, ETIMEDOUT), over TCP or not: one
 * sentence naming the setting to look at, or NULL for other errors.
 */
const char *cli_socket_hint(int err, enum cli_peer peer, bool tcp);

#endif
