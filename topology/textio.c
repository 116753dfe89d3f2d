// SPDX-License-Identifier: MIT
/* Error lines, dump reading, number parsing and array growth for the loaders. */
#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "textio.h"

int tio_verror(char *err, size_t len, const char *name, unsigned int line,
	       int ret, const char *fmt, va_list ap)
{
	int n = snprintf(err, len, "%s:%u: ", name, line);

	if (n >= 0 && (size_t)n < len)
		vsnprintf(err + n, len - n, fmt, ap);
	return ret;
}

int tio_err(char *err, size_t len, int ret, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(err, len, fmt, ap);
	va_end(ap);
	return ret;
}

int tio_fail(const struct tio_where *w, int ret, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	ret = tio_verror(w->err, w->errlen, w->name, w->line, ret, fmt, ap);
	va_end(ap);
	return ret;
}

int tio_dump_lines(FILE *in, struct tio_where *w,
		   int (*fn)(void *ctx, char *text), void *ctx)
{
	char *buf = NULL;
	size_t cap = 0;
	ssize_t n;
	int ret = 0;

	while (!ret && (n = getline(&buf, &cap, in)) > 0) {
		w->line++;
		if (buf[n - 1] != '\n') {
			ret = tio_fail(w, -EINVAL, "truncated line");
			break;
		}
		buf[n - 1] = '\0';
		if (buf[strspn(buf, " \t")])
			ret = fn(ctx, buf);
	}
	if (!ret && !feof(in))
		ret = tio_fail(w, errno ? -errno : -EIO, "read error: %s",
			       strerror(errno ? errno : EIO));
	free(buf);
	return ret;
}

bool tio_hex(const char **s, uint64_t max, uint64_t *v)
{
	const char *p = *s;
	uint64_t x = 0;
	unsigned int d;

	if (!isxdigit((unsigned char)*p))
		return false;
	for (; isxdigit((unsigned char)*p); p++) {
		d = isdigit((unsigned char)*p) ? *p - '0' :
			tolower((unsigned char)*p) - 'a' + 10;
		if (x > (max - d) / 16)
			return false;
		x = x * 16 + d;
	}
	*s = p;
	*v = x;
	return true;
}

bool tio_dec(const char **s, unsigned long max, unsigned long *v)
{
	const char *p = *s;
	unsigned long x = 0;

	if (!isdigit((unsigned char)*p))
		return false;
	for (; isdigit((unsigned char)*p); p++) {
		if (x > (max - (*p - '0')) / 10)
			return false;
		x = x * 10 + (*p - '0');
	}
	*s = p;
	*v = x;
	return true;
}

int tio_grow(void **arr, size_t *cap, size_t need, size_t size)
{
	size_t n = *cap ? *cap : 64;
	void *p;

	if (need <= *cap)
		return 0;
	while (n < need)
		n *= 2;
	p = realloc(*arr, n * size);
	if (!p)
		return -ENOMEM;
	memset((char *)p + *cap * size, 0, (n - *cap) * size);
	*arr = p;
	*cap = n;
	return 0;
}
