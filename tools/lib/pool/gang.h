/* SPDX-License-Identifier: MIT */
/*
 * Multi-host jobs (gangs) on the fabric's tree for the scheduler core:
 * which hosts a gang takes, the running gangs' load on each group's
 * uplinks, and the rule by which a gang waits for a lower level.
 */
#ifndef GPUAWARE_POOL_GANG_H
#define GPUAWARE_POOL_GANG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define GANG_MAX_LEVELS 8

struct gang;

/*
 * The tree of n hosts: lvl[h * levels + l] is host h's group at level l
 * (0 its leaf; groups numbered per level), copied.  0 with *out,
 * -EINVAL (more than GANG_MAX_LEVELS levels, a level with more than
 * 2^24 groups) or -ENOMEM; gang_free() releases it.
 */
int gang_new(const uint32_t *lvl, size_t n, unsigned int levels,
	     struct gang **out);
void gang_free(struct gang *g);

/* Lowest level at which hosts h[0..n) share a group (levels: none). */
unsigned int gang_span(const struct gang *g, const uint32_t *h, size_t n);

/*
 * The uplink load: gang_load_clear() empties it, gang_load_add() counts
 * host h of a running gang placed at level behind the uplinks of each
 * group it crosses below that level.
 */
void gang_load_clear(struct gang *g);
void gang_load_add(struct gang *g, uint32_t h, unsigned int level);

/*
 * What a gang on hosts h[0..n) would load: over the groups they cross
 * below the level they span, each group's uplink load (theirs added)
 * as a share of its hosts, summed.
 */
double gang_cost(const struct gang *g, const uint32_t *h, size_t n);

/*
 * k hosts out of the candidates ok[0..n) (in index order; whole[h] the
 * whole GPUs free on host h) into out, sorted: the lowest level with a
 * group of k candidates, of its groups the one whose uplinks the gang
 * loads least, then best fit; inside, pods and leaves filled fullest
 * first.  first: the first k candidates instead.  Returns 0 with *lvl
 * the level spanned and *feasible the lowest level with room, or -1
 * when fewer than k are candidates.
 */
int gang_pick(struct gang *g, const uint32_t *ok, size_t n,
	      const uint8_t *whole, size_t k, bool first, uint32_t *out,
	      unsigned int *lvl, unsigned int *feasible);

/* A queued gang's wait for a placement at a lower level (gang_wait). */
struct gang_wait {
	bool waiting, decided, expired;
	unsigned int level;	/* waited for */
	uint32_t group;		/* of level */
	double from, until, waited;
};

enum gang_verdict {
	GANG_GO,		/* start now */
	GANG_WAIT,		/* keep waiting */
	GANG_ASK,		/* not decided yet: does waiting pay? */
};

/*
 * Gang w could start at t at level lvl: whether it keeps waiting
 * (lower level not reached and time left), starts, or is to be decided
 * (once per gang) with gang_wait_pays().
 */
enum gang_verdict gang_wait_check(struct gang *g, struct gang_wait *w,
				  unsigned int lvl, double t);

/*
 * Whether waiting pays: the gang's remaining run time x the slowdown it
 * saves (now - then) exceeds the wait until at; if so w waits from t
 * up to limit s for level tl, the group of host h.
 */
bool gang_wait_pays(struct gang *g, struct gang_wait *w, double run,
		    double now, double then, double at, double t,
		    double limit, unsigned int tl, uint32_t h);

/* w leaves the queue (cancelled) while it waits. */
void gang_wait_drop(struct gang *g, struct gang_wait *w);

/* Gangs waiting now. */
size_t gang_waiting(const struct gang *g);

/* The hosts of waiting w's group marked in resv (1, else 0). */
void gang_wait_hold(const struct gang *g, const struct gang_wait *w,
		    uint8_t *resv);

#endif
