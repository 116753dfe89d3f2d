/* SPDX-License-Identifier: MIT */
/*
 * Management routes: the switches' own routes (MADs from port 0, which
 * ride the data VLs) held to the up*-down* order the data keeps.
 */
#ifndef GPUAWARE_MGMT_H
#define GPUAWARE_MGMT_H

#include <stdbool.h>
#include <stdint.h>

#include "../lft.h"

/*
 * Every switch's route to every LID, on tables whose data (with
 * t->vl NULL: one VL) climbs then descends in the order key (per switch
 * index; a hop to a greater key, or an equal key and a greater index,
 * goes up).  Only the LIDs of switches d with dsw[d] (every LID with
 * dsw NULL) are looked at: the caller vouches that every switch's route
 * to the others already is up* then down*, without holes.  Entries whose
 * route already is up* then down* stay, so the data's routes do; the
 * others, and holes, take a neighbour whose route is, downwards where
 * one goes only down, else upwards.  Where none is, the data's route
 * to a hub (the most cabled switch with hosts) is taken, for every LID
 * before any other escape, when the LID's fills so close no cycle with
 * those kept before; then routes towards a
 * neighbour that has one are kept only when they close no cycle with
 * the escapes kept before them and every turn an up*-down* route may
 * take, so none with the routes from all switches (CA LIDs first, then
 * switch LIDs; first the route of each switch with hosts on its own,
 * then the rest breadth first, a layer at a time; from a layer that
 * would close one on, only through turns kept routes already take),
 * else the entries are RT_NO_PATH; last, for a switch LID a switch with
 * hosts still has no route to, each such switch's route along any hub's
 * way that closes no cycle.  Where a switch with hosts is left without
 * a route to a switch LID, all of the escapes run again from their start
 * with up to 16 hubs tried per LID (the most cabled switches with hosts
 * first), and the run that leaves fewer such holes is kept.  As for
 * rt_fill_unrouted(), switches with hosts get none of those to CA
 * LIDs.  Returns the number of entries changed, or -ENOMEM.
 */
long rt_mgmt_updown(struct rt_tables *t, const uint32_t *key,
		    const bool *dsw);

/*
 * After rt_mgmt_updown(), with t->vl NULL, where a switch with hosts
 * still has no route to a switch LID on the one VL: the switch LIDs some
 * switch has none to get one on a VL of their own.  Per such LID,
 * breadth first from the switches that reach it, each switch without a
 * route takes a neighbour's that arrives, on the lowest of VLs 1-3
 * where the route and the LID's switch's answers to the switch's hosts
 * (which leave on the request's SL) close no cycle with the routes kept
 * on that VL before (cdg.h); else it stays RT_NO_PATH.  That switch's
 * packets to the LID, and its hosts', take the SL of that VL; every
 * other packet keeps SL 0 and its route, so the data's layer is as it
 * was.  When one is kept, t->vl (t->own_vl) says so: 2 to 4 VLs,
 * switch_sl.  Dead entries of those LIDs (routes that arrive nowhere)
 * become RT_NO_PATH.  Only VLs below t->fab->vls (when known) are
 * taken: with one, nothing changes and the holes stay.  Returns the
 * number of switches' routes put on VLs of their own, or -ENOMEM.
 */
long rt_mgmt_vl1(struct rt_tables *t);

#endif
