/* SPDX-License-Identifier: MIT */
/*
 * The job table to every SM: a relay (relay.h) per SM endpoint, so a
 * master and its standbys all hold the pool's jobs and a standby that
 * takes over routes for them at once.  Each relay keeps its own SM in
 * step and is up or down on its own.
 */
#ifndef GPUAWARE_POOL_FANOUT_H
#define GPUAWARE_POOL_FANOUT_H

#include <stddef.h>

#include <json-c/json.h>

#include "relay.h"
#include "tools/lib/pool/config.h"

#define POOLD_FANOUT_MAX POOL_CFG_SMS_MAX

struct poold_fanout;

/*
 * A relay for each of the n (1..POOLD_FANOUT_MAX) SM endpoints, with
 * poold_relay_start()'s owner, munge and interval_ms (all copied).
 * Returns 0 or a negative errno (then none runs).
 */
int poold_fanout_start(const char *const *sms, size_t n, const char *owner,
		       const char *munge, unsigned int interval_ms,
		       struct poold_fanout **out);

/*
 * The whole job table (consumed, also on a NULL fanout or an error) to
 * every SM, each relay its own copy.  Returns 0, or -ENOMEM with no SM's
 * table changed.
 */
int poold_fanout_post(struct poold_fanout *f, json_object *jobs);

/*
 * All SMs at once: up and synced when every one is, the fewest tables
 * sent, the first SM's generation, the most jobs refused, the first
 * refusal and error prefixed by its endpoint when there are several.
 */
void poold_fanout_status(struct poold_fanout *f,
			 struct poold_relay_status *st);

/*
 * Whether an SM refused job (poold_relay_refused(), up to ms for all):
 * the first refusal in msg, prefixed by its endpoint when there are
 * several SMs.
 */
bool poold_fanout_refused(struct poold_fanout *f, const char *job,
			  unsigned int ms, char *msg, size_t len);

/* The SMs: how many, and SM i's endpoint and relay. */
size_t poold_fanout_count(const struct poold_fanout *f);
const char *poold_fanout_endpoint(const struct poold_fanout *f, size_t i);
struct poold_relay *poold_fanout_relay(const struct poold_fanout *f,
				       size_t i);

/* Stop every relay, free; NULL is a no-op. */
void poold_fanout_stop(struct poold_fanout *f);

#endif
