/* SPDX-License-Identifier: MIT */
/*
 * The monotonic clock every module times and waits by: durations and
 * deadlines, never dates.
 */
#ifndef GPUAWARE_MONOTIME_H
#define GPUAWARE_MONOTIME_H

#include <stdint.h>
#include <time.h>

/* Seconds on CLOCK_MONOTONIC. */
double mono_s(void);

/* Whole milliseconds on CLOCK_MONOTONIC. */
int64_t mono_ms(void);

/*
 * t plus ms, and CLOCK_MONOTONIC now plus ms: the deadlines
 * pthread_cond_timedwait() takes on a condition variable of that clock.
 */
struct timespec mono_add_ms(struct timespec t, unsigned int ms);
struct timespec mono_deadline(unsigned int ms);

#endif
