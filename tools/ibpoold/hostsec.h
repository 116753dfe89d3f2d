/* SPDX-License-Identifier: MIT */
/*
 * --print-host's output: a machine's RDMA ports, as main.c reads them
 * from libibverbs, written as a [host NAME] section of the pool config.
 * No libibverbs here, so the tests feed it made-up ports.
 */
#ifndef GPUAWARE_POOL_HOSTSEC_H
#define GPUAWARE_POOL_HOSTSEC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* One port of a device, or a device that could not be opened (err). */
struct pool_rdma_port {
	const char *dev;	/* device name, borrowed */
	int err;		/* nonzero: errno of opening dev; no port */
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

#endif
