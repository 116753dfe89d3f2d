// SPDX-License-Identifier: MIT
/* --print-host's [host NAME] section from a list of RDMA ports. */
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <string.h>

#include "config.h"
#include "hostsec.h"

void pool_host_name(const char *raw, char *buf, size_t len)
{
	size_t i;

	for (i = 0; raw[i] && raw[i] != '.' && i + 1 < len; i++)
		buf[i] = tolower((unsigned char)raw[i]);
	buf[i] = '\0';
}

int pool_host_section(FILE *out, const char *name,
		      const struct pool_rdma_port *p, size_t n)
{
	size_t i, nib = 0;

	fprintf(out, "; RDMA ports of %s, from libibverbs\n", name);
	for (i = 0; i < n; i++) {
		if (p[i].err) {
			fprintf(out, "; %s: cannot open: %s\n", p[i].dev,
				strerror(p[i].err));
			continue;
		}
		fprintf(out, "; %s port %u: guid 0x%016" PRIx64 " lid %u state %s link %s\n",
			p[i].dev, p[i].port, p[i].guid, p[i].lid, p[i].state,
			p[i].ethernet ? "Ethernet" : "InfiniBand");
		nib += !p[i].ethernet;
	}
	if (!nib)
		return -ENOENT;
	if (nib > POOL_MAX_HCAS)
		fprintf(out, "; %zu InfiniBand ports: the config takes the first %d\n",
			nib, POOL_MAX_HCAS);
	fprintf(out, "[host %s]\ngpus = 0            ; fill in: GPUs in this host, 1..%d\ngpu_type = unknown  ; fill in: H100, A100, ...\nhca = ",
		name, POOL_MAX_GPUS);
	for (i = 0, nib = 0; i < n && nib < POOL_MAX_HCAS; i++) {
		if (p[i].err || p[i].ethernet)
			continue;
		fprintf(out, "%s0x%016" PRIx64, nib ? ", " : "", p[i].guid);
		nib++;
	}
	fprintf(out, "\n");
	return 0;
}
