/* SPDX-License-Identifier: MIT */
/* Helpers the file loaders share: bounded number parsing, array growth. */
#ifndef GPUAWARE_TEXTIO_H
#define GPUAWARE_TEXTIO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

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
