/* SPDX-License-Identifier: MIT */
/*
 * The project's seeded random numbers (splitmix64): the generators, the
 * verifier's permutations, the flow model's rounds and the tools' mixes
 * draw from it, so a seed gives the same run everywhere.
 */
#ifndef GPUAWARE_RNG_H
#define GPUAWARE_RNG_H

#include <stdint.h>

/* The next number from state *s. */
uint64_t rng_next(uint64_t *s);

/* Uniform in [0, n) from state *s; n > 0. */
uint32_t rng_below(uint64_t *s, uint32_t n);

#endif
