/* SPDX-License-Identifier: MIT */
/* Golden values of an engine's whole output, for the unit suites. */
#ifndef GPUAWARE_TU_GOLDEN_H
#define GPUAWARE_TU_GOLDEN_H

#include <stdint.h>

#include "routing/lft.h"

/*
 * FNV-1a over everything an engine hands OpenSM: every LFT entry, and with
 * VL data the VL count, every used (SLID, DLID) path SL and every SL2VL
 * entry of every switch port pair and of a CA port.  Golden values of
 * these pin an engine's output while its code changes.
 */
uint64_t tu_tables_hash(const struct rt_tables *t);

/* Assert that t hashes to want; else print what it hashes to and what. */
void tu_golden(const struct rt_tables *t, uint64_t want, const char *what);

#endif
