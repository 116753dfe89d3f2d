// SPDX-License-Identifier: MIT
/* Bounded number parsing and array growth for the loaders. */
#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "textio.h"

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
