/* SPDX-License-Identifier: MIT */
/*
 * Where a new allocation goes on the pool's hosts (pool_alloc()'s
 * policy): whole GPUs on the fewest, cheapest hosts; a share of one GPU
 * or an HCA alone packed against fragmentation.  Reads what the hosts
 * hold; pool.c keeps that and changes it.
 */
#ifndef GPUAWARE_POOL_PICK_H
#define GPUAWARE_POOL_PICK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "config.h"
#include "frag.h"

/* The pool's units and the types its callers and the policy share. */
#define POOL_MILLI 1000		/* a whole GPU in milli-GPUs */
/*
 * An HCA's RDMA bandwidth in the unit of the traces' rdma column
 * (trace.h): percent of one HCA.  Every HCA holds POOL_RDMA_CAP.
 */
#define POOL_RDMA_CAP 100
#define POOL_NO_GPU UINT16_MAX	/* a ref naming an HCA only (rdma alone) */

/* The HCA port a GPU sends through, as the cost oracle gets it. */
struct pool_port {
	const char *host;
	unsigned int rail;	/* index into the host's hca list */
	const struct pool_hca *hca;
	size_t index;		/* the host's, into the config's hosts */
};

/*
 * The cost oracle: path from the client host to port.  Sets *dlid (the
 * LID the client should address) and *load (higher is worse); returns 0,
 * or a negative errno when the port cannot be reached (its GPUs are then
 * not offered).  The daemon's answers with the least-loaded of the port's
 * 2^LMC LIDs and that path's load.
 */
typedef int (*pool_cost_fn)(void *ctx, const char *client,
			    const struct pool_port *port, uint32_t *dlid,
			    double *load);

/*
 * What the cost oracle will answer, cheaply: 0 with *load no more than
 * the load it would give port now, or the negative errno it would
 * return, exactly when it would (a GPU's reachability is never guessed).
 */
typedef int (*pool_bound_fn)(void *ctx, const char *client,
			     const struct pool_port *port, double *load);

/* The oracle pool_alloc() asks; bound NULL: cost is asked of every port. */
struct pool_oracle {
	pool_cost_fn cost;
	pool_bound_fn bound;
	void *ctx;
};

/*
 * A GPU of an allocation, or a share of one: milli 1..POOL_MILLI - 1 of
 * it; 0 the whole GPU.  Given to pool_grant()/pool_replace(), gpu
 * POOL_NO_GPU names the HCA (host, rail) an allocation of RDMA
 * bandwidth alone takes.
 */
struct pool_gpu_ref {
	uint32_t host;		/* index into the config's hosts */
	unsigned int gpu;
	unsigned int rail;
	uint32_t dlid;
	unsigned int milli;
};

/* An operator's word on a host (pool_set_host(), pool.h). */
enum pool_host_state {
	POOL_HOST_UP,
	POOL_HOST_DRAIN,
	POOL_HOST_FAIL,
	POOL_HOST_NSTATES,
};

/* What one host holds now. */
struct pick_host {
	enum pool_host_state state;	/* the operator's word */
	unsigned int nfree;		/* GPUs with nothing out */
	uint64_t owner[POOL_MAX_GPUS];	/* allocation holding it whole, or 0 */
	uint16_t used[POOL_MAX_GPUS];	/* milli out, POOL_MILLI when whole */
	uint16_t rdma[POOL_MAX_HCAS];	/* per HCA, of POOL_RDMA_CAP */
};

/* The pool's holdings as the policy reads them; all borrowed. */
struct pick_view {
	const struct pool_config *cfg;
	const struct pick_host *hosts;	/* per config host */
	/* per host, bit g: GPU g held or shared; dense, for the scan */
	const uint64_t *held;
	const struct frg_mix *fgd;	/* the allocations' shapes */
};

/*
 * pick_gpus()'s scratch, kept between calls: big enough to hold every
 * free GPU.  *s NULL to start; grown for nhosts hosts and nfree free
 * GPUs: 0 or -ENOMEM.  Owned by the caller, freed by pick_scratch_free().
 */
struct pick_scratch;
int pick_scratch(struct pick_scratch **s, size_t nhosts, unsigned int nfree);
void pick_scratch_free(struct pick_scratch *s);

/*
 * ngpus whole GPUs for client, behind HCAs with rdma free, into gpus
 * (host, gpu, rail, dlid), as pool_alloc() documents it (lazily with
 * o->bound, and again exhaustively when the oracle breaks its bound);
 * nfree the free GPUs, for the message.  0, or -ENOSPC with err.
 */
int pick_gpus(const struct pick_view *v, struct pick_scratch *s,
	      const char *client, const struct pool_oracle *o,
	      unsigned int ngpus, unsigned int rdma, unsigned int nfree,
	      struct pool_gpu_ref *gpus, char *err, size_t len);

/*
 * A share of milli of one GPU (milli 0: rdma of an HCA alone, gpu
 * POOL_NO_GPU) for client into *r: 0, -ENOSPC with err, -ENOMEM.
 */
int pick_spot(const struct pick_view *v, const char *client,
	      const struct pool_oracle *o, unsigned int milli,
	      unsigned int rdma, struct pool_gpu_ref *r, char *err,
	      size_t len);

/* pool_share_best() and pool_port_best() (pool.h) on v. */
bool pick_share_best(const struct pick_view *v, size_t h, unsigned int milli,
		     unsigned int rdma, uint64_t skip, unsigned int *gpu,
		     double *key);
bool pick_port_best(const struct pick_view *v, size_t h, unsigned int rdma,
		    uint64_t skip, unsigned int *rail, double *key);

#endif
