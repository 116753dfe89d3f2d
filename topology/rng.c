// SPDX-License-Identifier: MIT
/* splitmix64: small, seedable, the same stream on every platform. */
#include "rng.h"

uint64_t rng_next(uint64_t *s)
{
	uint64_t z = (*s += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

uint32_t rng_below(uint64_t *s, uint32_t n)
{
	return (uint32_t)((rng_next(s) >> 32) * n >> 32);
}
