// SPDX-License-Identifier: MIT
/*
 * --print-host's [host NAME] section from a list of RDMA ports, and
 * --print-config's whole pool config from a fabric.
 */
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <string.h>

#include "config.h"
#include "hostsec.h"

#define NAME_LEN 256

void pool_host_name(const char *raw, char *buf, size_t len)
{
	size_t i;

	for (i = 0; raw[i] && raw[i] != '.' && i + 1 < len; i++)
		buf[i] = tolower((unsigned char)raw[i]);
	buf[i] = '\0';
}

/* A host's gpus and gpu_type, to fill in where not known (0, NULL). */
static void gpu_lines(FILE *out, unsigned int gpus, const char *type)
{
	if (gpus)
		fprintf(out, "gpus = %u\n", gpus);
	else
		fprintf(out, "gpus = 0            ; fill in: GPUs in this host, 1..%d\n",
			POOL_MAX_GPUS);
	if (type)
		fprintf(out, "gpu_type = %s\n", type);
	else
		fprintf(out, "gpu_type = unknown  ; fill in: H100, A100, ...\n");
}

int pool_host_section(FILE *out, const char *name,
		      const struct pool_rdma_port *p, size_t n)
{
	size_t i, nib = 0;

	fprintf(out, "; RDMA ports of %s, from libibverbs\n", name);
	for (i = 0; i < n; i++) {
		if (p[i].open_err) {
			fprintf(out, "; %s: cannot open: %s\n", p[i].device,
				strerror(p[i].open_err));
			continue;
		}
		fprintf(out, "; %s port %u: guid 0x%016" PRIx64 " lid %u state %s link %s\n",
			p[i].device, p[i].port, p[i].guid, p[i].lid, p[i].state,
			p[i].ethernet ? "Ethernet" : "InfiniBand");
		nib += !p[i].ethernet;
	}
	if (!nib)
		return -ENOENT;
	if (nib > POOL_MAX_HCAS)
		fprintf(out, "; %zu InfiniBand ports: the config takes the first %d\n",
			nib, POOL_MAX_HCAS);
	fprintf(out, "[host %s]\n", name);
	gpu_lines(out, 0, NULL);
	fprintf(out, "hca = ");
	for (i = 0, nib = 0; i < n && nib < POOL_MAX_HCAS; i++) {
		if (p[i].open_err || p[i].ethernet)
			continue;
		fprintf(out, "%s0x%016" PRIx64, nib ? ", " : "", p[i].guid);
		nib++;
	}
	fprintf(out, "\n");
	return 0;
}

static void pool_section(FILE *out, const struct pool_gen *g)
{
	fprintf(out, "; ibpoold's pool configuration (ibpoold(8)), written by\n; ibpoold --print-config from %s.\n",
		g->source);
	if (!g->gpus || !g->gpu_type)
		fprintf(out, "; Fill in each host's gpus and gpu_type (or give --gpus\n; and --gpu-type); remove the hosts that are no GPU hosts.\n");
	fprintf(out, "[pool]\n; socket = /run/gpuaware/pool.sock\n; state_dir = /var/lib/gpuaware\n; sm_socket = /run/gpuaware/sm.sock\n");
	if (g->group)
		fprintf(out, "group = %s\n", g->group);
	else
		fprintf(out, "; Slurm's PrologSlurmctld and EpilogSlurmctld run as SlurmUser\n; (slurm on Debian): its group may start and end jobs.\n; group = slurm\n");
}

/*
 * CA n's host name in the config's form into host; false: none, or one
 * that [host NAME] does not take (a description "gpu01:mlx5_0"), which
 * would make the whole file one ibpoold refuses.
 */
static bool host_of(const struct fabric *f, uint32_t n, char *host)
{
	char raw[NAME_LEN];

	if (fab_is_sw(f, n) || !fab_host_name(f, n, raw, sizeof(raw)))
		return false;
	pool_host_name(raw, host, NAME_LEN);
	return pool_host_name_valid(host);
}

/* The hca list of host name: the linked ports of its CAs, from node v. */
static void hca_list(FILE *out, const struct fabric *f, uint32_t v,
		     const char *name)
{
	char host[NAME_LEN];
	unsigned int p, k = 0, skipped = 0;
	uint32_t n;

	fprintf(out, "hca = ");
	for (n = v; n < f->nnodes; n++) {
		if (!host_of(f, n, host) || strcmp(host, name))
			continue;
		for (p = 1; p <= f->nodes[n].nports; p++) {
			if (fab_port(f, n, p)->peer == FAB_NONE)
				continue;
			if (k == POOL_MAX_HCAS) {
				skipped++;
				continue;
			}
			fprintf(out, "%s0x%016" PRIx64, k++ ? ", " : "",
				fab_port(f, n, p)->guid);
		}
	}
	fprintf(out, "\n");
	if (skipped)
		fprintf(out, "; %u more linked ports left out: the config takes %d\n",
			skipped, POOL_MAX_HCAS);
}

/* Whether CA v is the first of its host name's with a linked port. */
static bool first_of_host(const struct fabric *f, uint32_t v,
			  const char *name)
{
	char host[NAME_LEN];
	uint32_t n;

	for (n = 0; n < v; n++)
		if (host_of(f, n, host) && !strcmp(host, name) &&
		    fab_cabled_port(f, n))
			return false;
	return true;
}

size_t pool_config_print(FILE *out, const struct fabric *f,
			 const struct pool_gen *g)
{
	char host[NAME_LEN];
	size_t hosts = 0;
	uint32_t v;

	pool_section(out, g);
	for (v = 0; v < f->nnodes; v++) {
		if (fab_is_sw(f, v))
			continue;
		if (!host_of(f, v, host)) {
			fprintf(out, "; CA 0x%016" PRIx64 ": no host name (letters, digits, '-', '_') in its node description\n",
				f->nodes[v].guid);
			continue;
		}
		if (!fab_cabled_port(f, v)) {
			fprintf(out, "; CA 0x%016" PRIx64 " of %s: no linked port\n",
				f->nodes[v].guid, host);
			continue;
		}
		if (!first_of_host(f, v, host))
			continue;
		fprintf(out, "\n[host %s]\n", host);
		gpu_lines(out, g->gpus, g->gpu_type);
		hca_list(out, f, v, host);
		hosts++;
	}
	return hosts;
}
