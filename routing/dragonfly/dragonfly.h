/* SPDX-License-Identifier: MIT */
/*
 * Dragonfly engine: minimal local-global-local routes on two VLs, the
 * extra LMC LIDs of every port through intermediate groups (Valiant) and
 * failed global cables routed round through a third group, on the same
 * two VLs.
 */
#ifndef GPUAWARE_RT_DRAGONFLY_H
#define GPUAWARE_RT_DRAGONFLY_H

#include "../engine.h"

/*
 * The engine's route() takes df_recognise()'s df_info (dflyrec.h).
 * jobs (NULL or empty for none, else built for f) picks each job LID's
 * global cable, entry and exit switches and Valiant class for its job's
 * own loads; without, the tables are those of no jobs.  On
 * success t->vl and t->own_vl hold the SL and VL tables (released with
 * t); detail says how many pairs go through a third group and why.
 * *use as the torus engine's says it (torus.h).
 * Returns 0, -ENOMEM, -ENOTSUP when a switch has no route to a LID with
 * at most two global hops, or -ELOOP when routes round failed local
 * cables close a credit loop (detail says which).
 */
extern const struct rt_engine rt_dragonfly_engine;

#endif
