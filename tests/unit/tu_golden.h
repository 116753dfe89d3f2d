/* SPDX-License-Identifier: MIT */
/* Golden values of an engine's whole output, for the unit suites. */
#ifndef GPUAWARE_TU_GOLDEN_H
#define GPUAWARE_TU_GOLDEN_H

#include <stddef.h>
#include <stdint.h>

#include "routing/lft.h"

/*
 * FNV-1a over everything an engine hands OpenSM: every LFT entry, and with
 * VL data the VL count, every used (SLID, DLID) path SL and every SL2VL
 * entry of every switch port pair and of a CA port.  Golden values of
 * these pin an engine's output while its code changes.
 */
uint64_t tu_tables_hash(const struct rt_tables *t);

/*
 * Record what t hashes, xz-compressed, to path; 0 or a negative errno.  Then
 * tu_golden_diff() compares tables with it: 0 when they are the same, 1
 * with the first entry that differs in msg (switch and LID, path SL,
 * SL2VL entry: the value now and as recorded), a negative errno when
 * the recording cannot be read (msg says so).
 */
int tu_golden_record(const struct rt_tables *t, const char *path);
int tu_golden_diff(const struct rt_tables *t, const char *path, char *msg,
		   size_t len);

/*
 * Assert that t hashes to want.  Else print what it hashes to, what, and
 * the first entry that differs from the recording of want in
 * $TU_GOLDEN_DIR (tests/data/golden)/<want in hex>.xz.  With
 * TU_GOLDEN_RECORD set, t is recorded there under its own hash first.
 */
void tu_golden(const struct rt_tables *t, uint64_t want, const char *what);

#endif
