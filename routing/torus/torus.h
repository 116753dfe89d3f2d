/* SPDX-License-Identifier: MIT */
/*
 * Torus and mesh engine: minimal dimension-order routing with a dateline
 * VL per ring, detours around failed cables and switches on a second VL
 * layer, and the path SL / SL2VL tables that make it deadlock-free.
 */
#ifndef GPUAWARE_RT_TORUS_H
#define GPUAWARE_RT_TORUS_H

#include "../engine.h"

/*
 * The engine's route() takes tor_recognise()'s tor_info (torusrec.h).
 * jobs (NULL or empty for none, else built for f) picks each job LID's
 * ties and parallel cables for its job's own loads; without, the tables
 * are those of no jobs.  On success t->vl and t->own_vl hold the SL and
 * VL tables (released with t).  detail gets what a log line needs: VLs,
 * detoured pairs.
 * *use (use may be NULL): "" without jobs, "planned", or "none (too
 * many jobs x ports)" past RT_JOBPLAN_MAX.
 * Returns 0, -ENOMEM, -ENOTSUP (more than three rings that need a
 * dateline) or -ELOOP (the detours need more than four VLs).
 */
extern const struct rt_engine rt_torus_engine;

#endif
