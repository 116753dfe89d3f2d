/* SPDX-License-Identifier: MIT */
/*
 * The generic engine: up*-down* over breadth-first ranks from a central
 * root per switch component.  Routes any fabric deadlock-free on one VL.
 */
#ifndef GPUAWARE_UPDOWN_H
#define GPUAWARE_UPDOWN_H

#include "../engine.h"

/*
 * Fits any fabric, with no recogniser: the fallback (engine.h).  detail
 * names the roots chosen; returns 0 or a negative errno.
 */
extern const struct rt_engine rt_updown_engine;

#endif
