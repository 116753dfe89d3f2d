/* SPDX-License-Identifier: MIT */
/*
 * How a host's free GPUs serve a workload: FGD's fragmentation (Weng et
 * al., ATC'23) and best fit's room left, for one host and one request.
 * No scheduler state: a host is what it has free, the workload a mix.
 */
#ifndef GPUAWARE_POOL_FRAG_H
#define GPUAWARE_POOL_FRAG_H

#include <stddef.h>
#include <stdint.h>

#define FRG_MILLI 1000		/* one whole GPU */
#define FRG_MAXG 64		/* GPUs one host may hold */
#define FRG_TYPES 128		/* request types a mix counts */
#define FRG_NOCPU UINT32_MAX	/* a host that does not model CPU */
#define FRG_SURE 0.05		/* frg_waste(): shares this often fill a gap surely */

/*
 * A host: g[0..n) the milli free on each of its GPUs (the caller's),
 * cpu its milli-cores free (FRG_NOCPU: not modelled, never short), model
 * its GPU model (0 none).
 */
struct frg_host {
	const uint16_t *g;
	unsigned int n;
	uint32_t cpu;
	unsigned int model;
};

/*
 * A request on one host: gpus whole GPUs, or (gpus 0) a share of milli
 * of one GPU, or neither (CPU only); cpu milli-cores; models a mask of
 * the GPU models it takes (bit m: model m), 0 any.
 */
struct frg_req {
	unsigned int gpus, milli;
	uint32_t cpu;
	uint64_t models;
};

/* A request type: gpus GPUs with milli free each, cpu, models; seen n times. */
struct frg_type {
	unsigned int milli, gpus;
	uint32_t cpu;
	uint64_t models;
	uint64_t n;
};

/* The workload's request types; n all requests counted. */
struct frg_mix {
	struct frg_type t[FRG_TYPES];
	size_t nt;
	uint64_t n;
};

/*
 * Count one request of r's type (a type past FRG_TYPES is not counted).
 * A CPU-only type counts too, as FGD's: it can use none of the GPUs.
 */
void frg_mix_add(struct frg_mix *m, const struct frg_req *r);

/*
 * Keep the most popular types that make pct % of the requests counted
 * (FGD's typical requests: 95 %), the first of equals first; m->n then
 * counts the requests of the types kept.
 */
void frg_mix_trim(struct frg_mix *m, double pct);

/*
 * FGD's fragmentation of h: the free milli that m's types cannot use,
 * weighed by how often each is seen.  A type h cannot take (model, CPU,
 * too few GPUs with room, a CPU-only type) cannot use any; one it can
 * take cannot use the GPUs with less free than its share.  0 for an
 * empty mix.
 */
double frg_amount(const struct frg_mix *m, const struct frg_host *h);

/*
 * The fragmentation r adds on h (h->n <= FRG_MAXG, r fits).  For a
 * share, *gpu is the GPU with the most frg_points() (the first of
 * equals) and the result what it adds, else *gpu is -1.
 */
double frg_score(const struct frg_mix *m, const struct frg_host *h,
		 const struct frg_req *r, int *gpu);

/*
 * FGD's points for adding fragmentation f, as its Kubernetes plugin
 * scores: 100 sigmoid(-f / 1000) as an integer, 0..100.  Growths that
 * differ by less than about 40 milli (near 0) score alike.
 */
int frg_points(double f);

/*
 * The milli-cores m's GPU types ask per milli of GPU, weighed by how
 * often each is seen: the CPU a free GPU needs to be of use.  0 when
 * they ask none (CPU-only types are left out).
 */
double frg_mix_cpu(const struct frg_mix *m);

/*
 * The whole GPUs r strands on h: how many more of h's free GPUs its
 * free CPU cannot serve at cpg milli-cores per GPU milli
 * (frg_mix_cpu()) once r is placed, fewer if negative.  0 where h does
 * not model CPU or cpg is 0.
 */
int frg_strand(const struct frg_host *h, const struct frg_req *r, double cpg);

/* Of h's GPUs, the fullest that holds a share of milli, or -1. */
int frg_best_gpu(const struct frg_host *h, unsigned int milli);

/*
 * Best fit's measure of putting r on h, GPU gpu for a share: the room
 * left.  Where h models CPU, as FGD's best fit: its GPUs' and CPU's
 * free, each a share of the largest host's (maxg GPUs, maxcpu
 * milli-cores), weighed alike; else the whole GPUs left, or the share
 * left on gpu.
 */
double frg_left(const struct frg_host *h, const struct frg_req *r, int gpu,
		unsigned int maxg, uint32_t maxcpu);

/*
 * The milli of a GPU's free g that will stay unused, expected, for each
 * g into w[0..FRG_MILLI]: the shares of m that fit g and ask at most
 * cpu milli-cores fill it, each as often as it is seen, until none
 * fits; a gap that shares of less than FRG_SURE of the requests fit is
 * filled only that fraction of the time.  A whole GPU (w[FRG_MILLI])
 * wastes nothing: whole-GPU requests take it.
 */
void frg_waste(const struct frg_mix *m, uint32_t cpu, double *w);

#endif
