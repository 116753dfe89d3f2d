/* SPDX-License-Identifier: MIT */
/*
 * The pool config ibpoold writes for its admin: --print-host's [host
 * NAME] section from a machine's RDMA ports (main.c reads them from
 * libibverbs; no libibverbs here, so the tests feed it made-up ports),
 * and --print-config's whole file from a fabric.
 */
#ifndef GPUAWARE_POOL_HOSTSEC_H
#define GPUAWARE_POOL_HOSTSEC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "topology/fabric.h"

/* One port of a device, or a device that could not be opened (open_err). */
struct pool_rdma_port {
	const char *device;	/* its name, borrowed */
	int open_err;		/* nonzero: errno of opening device; no port */
	unsigned int port;
	uint64_t guid;		/* port GUID (GID index 0's low half) */
	unsigned int lid;
	const char *state;	/* "ACTIVE", "DOWN", ...; borrowed */
	bool ethernet;		/* link layer Ethernet (RoCE): not an hca */
};

/*
 * The config's form of a host name: up to the first dot, lower case,
 * into buf (len > 0).
 */
void pool_host_name(const char *raw, char *buf, size_t len);

/*
 * To out: a comment line per entry of p (n of them, in device order),
 * then "[host name]" with gpus = 0 and gpu_type = unknown to fill in and
 * hca = the InfiniBand ports' GUIDs in order (rail i = entry i; beyond
 * POOL_MAX_HCAS left out with a comment).  Returns 0, or -ENOENT with
 * only the comments written when no port is InfiniBand.
 */
int pool_host_section(FILE *out, const char *name,
		      const struct pool_rdma_port *p, size_t n);

/* What --print-config cannot learn from the fabric. */
struct pool_gen {
	const char *source;	/* the fabric's, for the header */
	unsigned int gpus;	/* per host; 0: left to fill in */
	const char *gpu_type;	/* NULL: left to fill in */
	const char *group;	/* [pool] group; NULL: a commented hint */
};

/*
 * To out: a pool config for f: a [pool] section (the defaults as
 * comments), then a [host NAME] section for each host name of f's CAs
 * (the first word of their node descriptions, in the config's form), in
 * fabric order, its hca = the linked ports' GUIDs of its CAs (rails in
 * node, then port order; beyond POOL_MAX_HCAS left out with a comment).
 * CAs without a name or a linked port are comments.  Returns how many
 * hosts it wrote.
 */
size_t pool_config_print(FILE *out, const struct fabric *f,
			 const struct pool_gen *g);

#endif
