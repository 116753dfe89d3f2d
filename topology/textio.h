/* SPDX-License-Identifier: MIT */
/*
 * Helpers the file loaders share: "FILE:LINE: message" errors (and the
 * bare message for the pool's), reading
 * OpenSM's dump files, bounded number parsing, array growth.
 */
#ifndef GPUAWARE_TEXTIO_H
#define GPUAWARE_TEXTIO_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* Write "name:line: " and the message into err; returns ret. */
__attribute__((format(printf, 6, 0)))
int tio_verror(char *err, size_t len, const char *name, unsigned int line,
	       int ret, const char *fmt, va_list ap);

/* The message alone into err, for errors of no file; returns ret. */
__attribute__((format(printf, 4, 5)))
int tio_err(char *err, size_t len, int ret, const char *fmt, ...);

/* Where a loader is in its input, and where its messages go; borrowed. */
struct tio_where {
	const char *name;	/* the input, as messages name it */
	unsigned int line;	/* the line being read, from 1 */
	char *err;		/* the caller's message buffer */
	size_t errlen;
};

/* tio_verror() at w: every loader's one error path. */
__attribute__((format(printf, 3, 4)))
int tio_fail(const struct tio_where *w, int ret, const char *fmt, ...);

/*
 * Call fn(ctx, text) for each non-blank line of an OpenSM dump, newline
 * removed, w->line counting lines read.  OpenSM ends every line, so a
 * last line without a newline is a cut file.  Returns 0, fn's first
 * non-zero return, or a negative errno with w->err filled ("truncated
 * line", "read error").
 */
int tio_dump_lines(FILE *in, struct tio_where *w,
		   int (*fn)(void *ctx, char *text), void *ctx);

/*
 * Hex (tio_hex) or decimal (tio_dec) digits at *s, at most max: on
 * success *v holds the value and *s points past the digits.  False, with
 * *s unchanged, when there is no digit or the value exceeds max.
 */
bool tio_hex(const char **s, uint64_t max, uint64_t *v);
bool tio_dec(const char **s, unsigned long max, unsigned long *v);

/*
 * Make *arr (of *cap elements of size bytes) hold at least need, doubling;
 * new elements are zeroed.  Returns 0 or -ENOMEM (*arr untouched).
 */
int tio_grow(void **arr, size_t *cap, size_t need, size_t size);

#endif
