// SPDX-License-Identifier: MIT
/*
 * ibtopogen jobs: a seeded random job mix for a fabric, as the hint
 * socket's JSON, with hosts scattered the way a busy scheduler leaves them.
 */
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "jobmix.h"
#include "tools/lib/cli/cli.h"
#include "topology/rng.h"
#include "topology/netfile.h"

#define HOST_LEN 256
#define SIZE_SPREAD 16.0	/* largest job over smallest, before rounding */

struct mix {
	const char *net, *output;
	unsigned int lo, hi;
	unsigned int smin, smax;	/* hosts per job, 0: fill 75-100 % */
	uint64_t seed;
	unsigned int frag;	/* longest run of neighbouring hosts */
	char **host;		/* distinct host names, node order; owned */
	uint32_t nhost;
	uint32_t *perm;		/* hosts in placement order */
	uint32_t *size;		/* per job */
	unsigned int njobs;
};

/* The one option table: getopt_long's and --help's. */
static const struct cli_opt opts[] = {
	{ "net", 1, 'n', 0, "FILE", "fabric whose hosts the jobs take" },
	{ "jobs", 1, 'J', 0, "MIN-MAX", "number of jobs, drawn uniformly (4-16)" },
	{ "seed", 1, 's', 0, "N", "seed of the mix (0)" },
	{ "fragment", 1, 'f', 0, "N", "hosts kept together: runs of 1 to N neighbours (4)" },
	{ "sizes", 1, 'z', 0, "MIN-MAX", "hosts per job, log-uniform (default: 75-100 % of the hosts busy)" },
	{ "output", 1, 'o', 0, "FILE", "write the JSON to FILE (default stdout)" },
	{ "help", 0, 'h', 0, NULL, "show this help" },
	{ "version", 0, 'V', 0, NULL, "print the version and exit" },
};

#define NOPTS (sizeof(opts) / sizeof(opts[0]))
CLI_TABLE_FITS(opts);

static void usage(FILE *out)
{
	size_t i;

	fprintf(out, "Usage: ibtopogen jobs --net FILE [--jobs MIN-MAX] [--seed N] [-o FILE]\n\n");
	for (i = 0; i < NOPTS; i++)
		cli_help_opt(out, &opts[i], 19, NULL);
}

static double unit(uint64_t *x)
{
	return (rng_next(x) >> 11) * (1.0 / 9007199254740992.0);
}

static int parse(struct mix *m, int argc, char **argv, char *err, size_t len)
{
	const struct cli_opt *o;
	unsigned long long v;
	struct cli_parser p;
	const char *bad;
	int c;

	m->lo = 4;
	m->hi = 16;
	m->frag = 4;
	optind = 1;
	cli_parser_init(&p, opts, NOPTS);
	while ((c = cli_next(&p, argc, argv, &o, &bad)) != -1) {
		switch (c) {
		case 'n': m->net = optarg; break;
		case 'o': m->output = optarg; break;
		case 's':
			if (cli_uint(optarg, 10, UINT64_MAX, &v)) {
				snprintf(err, len, "bad seed '%s'", optarg);
				return -EINVAL;
			}
			m->seed = v;
			break;
		case 'f':
			if (cli_uint(optarg, 10, UINT_MAX, &v) || !v) {
				snprintf(err, len, "bad --fragment '%s' (1 or more)",
					 optarg);
				return -EINVAL;
			}
			m->frag = v;
			break;
		case 'z':
			if (sscanf(optarg, "%u-%u%c", &m->smin, &m->smax,
				   &(char){ 0 }) != 2 || !m->smin ||
			    m->smax < m->smin) {
				snprintf(err, len, "bad --sizes '%s' (MIN-MAX, 1 or more)",
					 optarg);
				return -EINVAL;
			}
			break;
		case 'J':
			if (sscanf(optarg, "%u-%u", &m->lo, &m->hi) != 2 &&
			    sscanf(optarg, "%u", &m->lo) == 1)
				m->hi = m->lo;
			if (!m->lo || m->hi < m->lo) {
				snprintf(err, len, "bad --jobs '%s' (MIN-MAX, 1 or more)",
					 optarg);
				return -EINVAL;
			}
			break;
		case 'h':
			usage(stdout);
			exit(0);
		case 'V':
			cli_version(stdout, "ibtopogen");
			exit(0);
		case ':':
			snprintf(err, len, "option '%s' needs an argument",
				 bad);
			return -EINVAL;
		default:
			snprintf(err, len, "unknown option '%s'", bad);
			return -EINVAL;
		}
	}
	if (optind < argc || !m->net) {
		snprintf(err, len, optind < argc ? "unexpected argument" :
			 "jobs needs --net FILE");
		return -EINVAL;
	}
	return 0;
}

/* A CA's host name and node, for sorting out a host's other HCAs. */
struct named {
	char *name;
	uint32_t node;
};

static int cmp_name(const void *a, const void *b)
{
	const struct named *x = a, *y = b;
	int c = strcmp(x->name, y->name);

	return c ? c : (x->node > y->node) - (x->node < y->node);
}

static int cmp_node(const void *a, const void *b)
{
	const struct named *x = a, *y = b;

	return (x->node > y->node) - (x->node < y->node);
}

/* Distinct host names of f's CAs, by first node (a host's HCAs once). */
static int hosts(struct mix *m, const struct fabric *f)
{
	struct named *v = calloc(f->nca ? f->nca : 1, sizeof(*v));
	char buf[HOST_LEN];
	uint32_t n, k = 0, i;
	int ret = -ENOMEM;

	m->host = calloc(f->nca ? f->nca : 1, sizeof(*m->host));
	if (!v || !m->host)
		goto out;
	for (n = 0; n < f->nnodes; n++) {
		if (fab_is_sw(f, n))
			continue;
		fab_host_name(f, n, buf, sizeof(buf));
		v[k].node = n;
		if (!(v[k++].name = strdup(buf)))
			goto out;
	}
	qsort(v, k, sizeof(*v), cmp_name);
	for (i = 0, n = 0; i < k; i++)
		if (!n || strcmp(v[n - 1].name, v[i].name)) {
			struct named t = v[n];

			v[n++] = v[i];
			v[i] = t;
		}
	qsort(v, n, sizeof(*v), cmp_node);
	for (i = 0; i < n; i++) {
		m->host[i] = v[i].name;
		v[i].name = NULL;
	}
	m->nhost = n;
	ret = 0;
out:
	for (i = 0; v && i < k; i++)
		free(v[i].name);
	free(v);
	return ret;
}

/*
 * Placement order: runs of 1..m->frag neighbouring hosts, the runs
 * shuffled, so jobs get a few hosts together and the rest scattered.
 */
static int place(struct mix *m, uint64_t *x)
{
	uint32_t *start = malloc((m->nhost + 1) * sizeof(*start));
	uint32_t *ord = malloc((m->nhost + 1) * sizeof(*ord));
	uint32_t nf = 0, i, k = 0, j;
	int ret = -ENOMEM;

	m->perm = malloc((m->nhost ? m->nhost : 1) * sizeof(*m->perm));
	if (!start || !ord || !m->perm)
		goto out;
	for (i = 0; i < m->nhost; i += 1 + rng_below(x, m->frag)) {
		ord[nf] = nf;
		start[nf++] = i;
	}
	start[nf] = m->nhost;
	for (i = nf; i > 1; i--) {
		uint32_t t, r = rng_below(x, i);

		t = ord[i - 1];
		ord[i - 1] = ord[r];
		ord[r] = t;
	}
	for (i = 0; i < nf; i++)
		for (j = start[ord[i]]; j < start[ord[i] + 1]; j++)
			m->perm[k++] = j;
	ret = 0;
out:
	free(start);
	free(ord);
	return ret;
}

/* --sizes: each job log-uniform in [smin, smax], while hosts last. */
static void sized(struct mix *m, uint64_t *x)
{
	double span = log((double)m->smax / m->smin);
	uint32_t j, left = m->nhost;

	for (j = 0; j < m->njobs && left; j++) {
		m->size[j] = (uint32_t)lround(m->smin * exp(unit(x) * span));
		if (m->size[j] > left)
			m->size[j] = left;
		left -= m->size[j];
	}
	m->njobs = j;
}

/* Job sizes: log-uniform spread, 75 to 100 % of the hosts busy. */
static int sizes(struct mix *m, uint64_t *x)
{
	double *w, sum = 0, busy;
	uint32_t j, left;

	m->njobs = m->lo + rng_below(x, m->hi - m->lo + 1);
	if (m->njobs > m->nhost)
		m->njobs = m->nhost;
	w = malloc((m->njobs ? m->njobs : 1) * sizeof(*w));
	m->size = calloc(m->njobs ? m->njobs : 1, sizeof(*m->size));
	if (!w || !m->size) {
		free(w);
		return -ENOMEM;
	}
	if (m->smin) {
		sized(m, x);
		free(w);
		return 0;
	}
	for (j = 0; j < m->njobs; j++)
		sum += w[j] = exp(unit(x) * log(SIZE_SPREAD));
	busy = m->nhost * (0.75 + 0.25 * unit(x)) - m->njobs;
	left = m->nhost;
	for (j = 0; j < m->njobs; j++) {
		m->size[j] = 1 + (uint32_t)(busy * w[j] / sum);
		if (m->size[j] > left)
			m->size[j] = left;
		left -= m->size[j];
	}
	free(w);
	return 0;
}

static void json_str(FILE *out, const char *s)
{
	fputc('"', out);
	for (; *s; s++)
		if (*s == '"' || *s == '\\')
			fprintf(out, "\\%c", *s);
		else if ((unsigned char)*s < 0x20)
			fprintf(out, "\\u%04x", *s);
		else
			fputc(*s, out);
	fputc('"', out);
}

/* Most jobs weigh 1; one in four 2, 5 or 10. */
static int write_mix(const struct mix *m, FILE *out, uint64_t *x)
{
	static const unsigned int heavy[] = { 2, 5, 10 };
	uint32_t j, i, k = 0;

	fprintf(out, "{\"jobs\":[");
	for (j = 0; j < m->njobs; j++) {
		unsigned int w = rng_below(x, 4) ? 1 : heavy[rng_below(x, 3)];

		fprintf(out, "%s\n {\"id\":\"j%u\",\"weight\":%u,\"hosts\":[",
			j ? "," : "", j + 1, w);
		for (i = 0; i < m->size[j]; i++, k++) {
			fputs(i ? "," : "", out);
			json_str(out, m->host[m->perm[k]]);
		}
		fprintf(out, "]}");
	}
	fprintf(out, "\n]}\n");
	return ferror(out) ? -EIO : 0;
}

static int run(struct mix *m, char *err, size_t len)
{
	struct fabric *f = NULL;
	uint64_t x = m->seed;
	FILE *out = stdout;
	int ret;

	if (fab_load_net(m->net, &f, err, len))
		return -EINVAL;
	ret = hosts(m, f);
	if (!ret)
		ret = place(m, &x);
	if (!ret)
		ret = sizes(m, &x);
	if (ret)
		goto out;
	if (m->output && !(out = fopen(m->output, "w"))) {
		ret = -errno;
		snprintf(err, len, "%s: %s", m->output, strerror(errno));
		goto out;
	}
	ret = write_mix(m, out, &x);
	if ((out != stdout ? fclose(out) : fflush(out)) && !ret)
		ret = -EIO;
	if (ret)
		snprintf(err, len, "writing %s: %s",
			 m->output ? m->output : "stdout", strerror(-ret));
out:
	if (ret == -ENOMEM)
		snprintf(err, len, "out of memory");
	fab_free(f);
	return ret;
}

int jobmix_main(int argc, char **argv)
{
	struct mix m = { 0 };
	char err[512] = "";
	uint32_t i;
	int ret = parse(&m, argc, argv, err, sizeof(err));

	if (ret)
		return cli_usage("ibtopogen", "jobs", "%s", err);
	ret = run(&m, err, sizeof(err));
	if (ret)
		fprintf(stderr, "ibtopogen: %s\n", err);
	for (i = 0; i < m.nhost; i++)
		free(m.host[i]);
	free(m.host);
	free(m.perm);
	free(m.size);
	return !ret ? 0 : ret == -ENOMEM || ret == -EIO ? 1 : 2;
}
