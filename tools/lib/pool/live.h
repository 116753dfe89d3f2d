/* SPDX-License-Identifier: MIT */
/*
 * ibpoold's live source: the fabric, its LFTs, PathRecords and PerfMgt
 * counters through the shared reader (tools/lib/livefab), turned into fabric
 * views.  One handle per process; its own lock serialises the MADs of
 * the main thread (discovery, counters) and the server thread (path
 * records), and the server thread never waits on it.
 */
#ifndef GPUAWARE_POOL_LIVE_H
#define GPUAWARE_POOL_LIVE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "view.h"

struct pool_live;

/* Open the local port (ca NULL: the first CA; port 0: its first active). */
int pool_live_open(const char *ca, unsigned int port, struct pool_live **out,
		   char *err, size_t len);
void pool_live_close(struct pool_live *l);

/*
 * Discover the fabric and read every switch's LFT into a new view (*out,
 * the caller's; it asks l for path records, so l must outlive it).
 * Main thread.
 */
int pool_live_view(struct pool_live *l, struct pool_view **out, char *err,
		   size_t len);

/*
 * Read every switch's LFT again (no discovery) and compare with v's, v
 * from the latest pool_live_view(): 1 when an entry differs or v is not
 * the latest discovery's (the caller should make a new view), 0, or a
 * negative errno.  Main thread; v's tables never change, so no lock on v.
 */
int pool_live_lfts_changed(struct pool_live *l, const struct pool_view *v,
			   char *err, size_t len);

/*
 * One counter sample; with the previous one, each switch port's transmit
 * rate over its link rate goes into v->meas (v from the latest
 * pool_live_view(), else nothing is set).  Returns 1 when links came or
 * went since the last discovery (the caller should make a new view), 0,
 * or a negative errno.  Main thread; the caller holds v's lock only
 * around pool_live_apply().
 */
int pool_live_sample(struct pool_live *l, char *err, size_t len);
void pool_live_apply(struct pool_live *l, struct pool_view *v);

#endif
