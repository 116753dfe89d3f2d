/* SPDX-License-Identifier: MIT */
/*
 * GPU-cluster job traces for the scheduler's replay: readers for a plain
 * CSV and the two Alibaba traces as published, a seeded Philly-shaped
 * generator, and a trace's statistics.
 */
#ifndef GPUAWARE_POOL_TRACE_H
#define GPUAWARE_POOL_TRACE_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

enum trc_format {
	TRC_FMT_AUTO,		/* from the header line */
	TRC_FMT_PLAIN,		/* submit,gpus,runtime[,user,class,limit,milli...] */
	TRC_FMT_ALI2023,	/* alibaba-gpu-v2023-pods.csv */
	TRC_FMT_ALI2025,	/* alibaba-gpu-v2025-disaggregated.csv */
};

/* Why a data row of a trace is not a job (counted, never silently). */
enum trc_skip {
	TRC_SKIP_UNSCHEDULED,	/* never ran: no scheduled time (2023 Pending) */
	TRC_SKIP_NO_GPU,	/* asks no pool resource (no GPU and no RDMA) */
	TRC_SKIP_BEFORE_WINDOW,	/* running before the trace began: arrival
				 * and run time unknown (2025, NaN creation) */
	TRC_SKIP_GPU_ONLY,	/* RDMA only, dropped by TRC_OPT_GPU_ONLY */
	TRC_SKIP_COUNT
};

/* Job flags. */
#define TRC_JOB_CENSORED	0x1u	/* still running when the trace ended:
					 * runtime is a lower bound */
#define TRC_JOB_PRESENT		0x2u	/* running before the trace began, kept
					 * by TRC_OPT_KEEP_PRESENT: submit 0,
					 * runtime from the window's start */
#define TRC_JOB_CN		0x4u	/* 2025 role CN: a CPU host that uses
					 * GPUs elsewhere over RDMA; HN has it
					 * clear */
#define TRC_JOB_UNSCHEDULED	0x8u	/* never ran (2023 Pending), kept by
					 * TRC_OPT_ALL_PODS: runtime 0 */

/* Reader options (flags of struct trc_read_opts). */
#define TRC_OPT_GPU_ONLY	0x1u	/* drop rows that ask no GPU */
#define TRC_OPT_KEEP_PRESENT	0x2u	/* keep jobs running before the window */
#define TRC_OPT_ALL_PODS	0x4u	/* 2023: keep the pods that ask CPU or
					 * memory only and those never
					 * scheduled, as FGD's packing
					 * measure takes them all */

/*
 * One job.  Times are seconds; submit counts from the trace's first kept
 * submit.  A job asks gpus GPUs, each at milli thousandths (1000 = whole,
 * less only for fractional pods, then gpus is 1): gpus * milli / 1000
 * GPU-equivalents.  user, name and cls index the trace's strings (0 is "":
 * not given), for run-time prediction per user, name and size.
 */
struct trc_job {
	double submit;		/* s from the first submit */
	double runtime;		/* true run time, s (>= 0) */
	double limit;		/* user's time limit, s; 0: none given */
	uint32_t id;		/* the number ending the pod's or instance's
				 * name, a plain CSV's id, else the data
				 * row's number (1-based) */
	uint32_t gpus;		/* whole GPUs asked, summed over hosts; 0 for
				 * an RDMA-only request */
	uint16_t milli;		/* per-GPU share, 1..1000 */
	uint16_t rdma;		/* share of an RDMA NIC in percent, 0: none */
	uint16_t hosts;		/* host count the trace fixes, 0: free */
	uint16_t per_host;	/* GPUs per host the trace fixes, 0: free */
	uint32_t user;		/* trc_trace.strs index */
	uint32_t name;		/* job name or app, trc_trace.strs index */
	uint32_t cls;		/* class: LS, BE, Burstable, Guaranteed or a
				 * plain CSV's; trc_trace.strs index */
	uint32_t flags;		/* TRC_JOB_* */
	uint32_t cpu;		/* milli-cores asked (2023), 0: not given */
	uint32_t mem;		/* memory asked, MiB (2023), 0: not given */
	uint32_t spec;		/* GPU models allowed, "A|B" (2023's
				 * gpu_spec), trc_trace.strs index; 0 any */
};

/* What a reader saw: data rows, and those it did not make jobs, by why. */
struct trc_read_stats {
	size_t rows;
	size_t skipped[TRC_SKIP_COUNT];
	size_t censored;	/* jobs with TRC_JOB_CENSORED */
	size_t present;		/* jobs with TRC_JOB_PRESENT */
};

/*
 * A trace: jobs sorted by submit (stable: ties keep file order), and the
 * interned strings they index.  The trace owns everything; trc_free().
 */
struct trc_trace {
	struct trc_job *jobs;
	size_t njobs;
	char **strs;		/* strs[0] is "" */
	size_t nstrs;
	enum trc_format fmt;
	struct trc_read_stats rs;
	void *intern;		/* private: the string index */
};

struct trc_read_opts {
	enum trc_format fmt;	/* TRC_FMT_AUTO: detect from the header */
	uint32_t flags;		/* TRC_OPT_* */
};

/* One GPU node of a cluster (alibaba-gpu-v2023-nodes.csv). */
struct trc_node {
	char *name;
	char *model;		/* GPU model, "" if not given */
	uint32_t gpus;
	uint32_t cpu;		/* milli-cores, 0: not given */
	uint32_t mem;		/* MiB, 0: not given */
	unsigned int mi;	/* model's index in trc_cluster.models + 1;
				 * 0 for "" */
};

#define TRC_MAX_MODELS 63	/* distinct GPU models of a node list */

/* A node list; owns its nodes and their strings; trc_cluster_free(). */
struct trc_cluster {
	struct trc_node *nodes;
	size_t n;
	size_t gpus;		/* sum over the nodes */
	char **models;		/* distinct GPU models, first-seen order;
				 * borrowed from the nodes */
	size_t nmodels;
};

/*
 * Read a trace from path into *t (zeroed first; the caller frees it with
 * trc_free(), also after an error).  opts may be NULL (auto, no flags).
 * Returns 0, or a negative errno with "FILE:LINE: what" in err: -EINVAL
 * bad input (unknown header, bad number, missing field), -ENOENT etc.
 * from fopen, -ENOMEM.
 */
int trc_read(const char *path, const struct trc_read_opts *opts,
	     struct trc_trace *t, char *err, size_t errlen);

/* Same from an open stream; name is used in messages. */
int trc_read_stream(FILE *in, const char *name,
		    const struct trc_read_opts *opts, struct trc_trace *t,
		    char *err, size_t errlen);

/* The format a header line names, or TRC_FMT_AUTO if none. */
enum trc_format trc_detect(const char *header);

/* "plain", "alibaba2023", "alibaba2025"; and back (-1 if unknown). */
const char *trc_format_name(enum trc_format f);
int trc_format_parse(const char *s, enum trc_format *f);

/* A skip reason's name for reports ("unscheduled", "no_gpu", ...). */
const char *trc_skip_name(enum trc_skip r);

/*
 * Write t as a plain CSV with the header
 * submit,gpus,runtime,user,class,limit,milli,hosts,per_host,name,rdma,id,
 * cpu_milli,memory_mib,gpu_spec,flags; trc_read() with the options t
 * was read with gives the same jobs back (times to the millisecond),
 * and with fewer options skips what the source format would.  Returns
 * 0, -EINVAL (a string with a comma, quote or line break) or -EIO.
 */
int trc_write_plain(const struct trc_trace *t, FILE *out);

/* Intern s into t; returns its index, or a negative errno. */
int64_t trc_intern(struct trc_trace *t, const char *s);

/* The string a job's user, name or cls index names. */
const char *trc_str(const struct trc_trace *t, uint32_t idx);

void trc_free(struct trc_trace *t);

/*
 * Read a node list (sn,cpu_milli,memory_mib,gpu,model header; sn and
 * gpu needed) into *c (zeroed first; trc_cluster_free() after, also
 * after an error).  Nodes with no GPU are kept (gpus 0).  Errors as
 * trc_read(); more than TRC_MAX_MODELS models is -EINVAL.
 */
int trc_read_nodes(const char *path, struct trc_cluster *c, char *err,
		   size_t errlen);
int trc_read_nodes_stream(FILE *in, const char *name, struct trc_cluster *c,
			  char *err, size_t errlen);
void trc_cluster_free(struct trc_cluster *c);

/*
 * The models a pod's gpu_spec ("A|B", as 2023's) allows, as a mask over
 * c's: bit mi of each node model it names; 0 for "" (any); bit 0 alone
 * when it names none of them (only nodes without a model would do).
 */
uint64_t trc_spec_mask(const struct trc_cluster *c, const char *spec);

/* A GPU-count mix: jobs of gpus GPUs make share of the jobs. */
struct trc_mix {
	uint32_t gpus;		/* above 8: a multiple of 8 (whole hosts) */
	double share;		/* > 0; the shares are normalised */
};

/* The Philly-shaped generator's parameters. */
struct trc_gen_opts {
	size_t jobs;		/* N > 0 */
	double load;		/* offered load, > 0 */
	uint32_t gpus;		/* capacity the load refers to, > 0 */
	uint64_t seed;
	uint32_t users;		/* distinct users, Zipf-drawn; 0: 100 */
	const char *runtimes;	/* philly-2017-runtimes.csv */
	const struct trc_mix *mix;	/* GPU counts; NULL: trc_philly_mix() */
	size_t nmix;
};

/*
 * Generate a Philly-shaped trace into *t (trc_free() after): N jobs whose
 * run times are drawn from the real Philly run times in o->runtimes (zero
 * run times left out of the pool: docs/traces.md), GPU counts from the
 * published Philly mix or o->mix (more than 8 GPUs are gangs of whole
 * 8-GPU hosts: hosts and per_host set, else 0), users Zipf-like
 * ("u1".."uN", user k is strs index k), no name or class, time limits
 * uniform in 2..5x the run time, ids 1..N,
 * Poisson arrivals whose rate gives the offered load o->load on o->gpus
 * GPUs (load = sum of GPU-seconds / (gpus x span of arrivals), exactly
 * for the drawn jobs: the arrivals are scaled to it).  The same options
 * give the same trace.  Returns 0 or a negative errno with err set.
 */
int trc_gen_philly(const struct trc_gen_opts *o, struct trc_trace *t,
		   char *err, size_t errlen);

/* The published Philly mix the generator draws from by default, *n
 * entries; static storage (sources: docs/traces.md). */
const struct trc_mix *trc_philly_mix(size_t *n);

/* GPU-count classes of a trace's statistics: 0, 1, 2, 3-4, 5-8, ... */
#define TRC_NSIZE 10

/* A trace's statistics, from trc_stats(). */
struct trc_stats {
	size_t jobs;
	struct trc_read_stats rs;
	size_t fractional;	/* jobs with milli < 1000 */
	size_t multi_host;	/* jobs with hosts > 1 */
	size_t size_jobs[TRC_NSIZE];	/* jobs by GPUs: 0, 1, 2, 3-4, 5-8,
					 * 9-16, 17-32, 33-64, 65-128, more */
	double gpus_mean;	/* in GPU-equivalents (milli counted) */
	uint32_t gpus_median, gpus_max;
	double rt_median, rt_mean, rt_p99, rt_max;	/* s */
	double span;		/* last submit - first submit, s */
	double gpu_seconds;	/* sum of GPU-equivalents x runtime */
	uint32_t capacity;	/* GPUs the load refers to; 0: none given */
	double load;		/* gpu_seconds / (capacity x span); 0 if
				 * capacity or span is 0 */
	size_t users;		/* distinct users given */
};

/* The lower bound of size class i (0, 1, 2, 3, 5, 9, ...). */
uint32_t trc_size_lo(unsigned i);

/* Statistics of t; capacity 0 leaves load 0.  Returns 0 or -ENOMEM. */
int trc_stats(const struct trc_trace *t, uint32_t capacity,
	      struct trc_stats *s);

#endif
