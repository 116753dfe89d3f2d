// SPDX-License-Identifier: MIT
/* ibtopogen: generate fat-tree, rail, torus, mesh and dragonfly fabrics as
 * ibsim net files, OpenSM's torus-2QoS.conf for a torus or mesh, and job
 * mixes for a fabric (jobmix.c). */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "jobmix.h"
#include "tools/lib/cli/cli.h"
#include "topology/fabric.h"
#include "topology/gen.h"
#include "topology/netfile.h"

#define PROG "ibtopogen"

enum {
	T_FT = 1 << 0,
	T_RAIL = 1 << 1,
	T_TORUS = 1 << 2,
	T_MESH = 1 << 3,
	T_DF = 1 << 4,
	T_GRID = T_TORUS | T_MESH,
	T_ALL = T_FT | T_RAIL | T_GRID | T_DF,
};

enum {
	O_WIDTH = CLI_LONG_ONLY, O_SPEED, O_HCAS, O_CA_PORTS, O_PARALLEL, O_SEED,
	O_DROP, O_FAIL_LINK, O_DROP_SWITCHES, O_FAIL_SWITCH, O_DROP_HOSTS,
	O_SHUFFLE, O_LEVELS, O_K, O_RADIX, O_HOSTS_PER_LEAF, O_LEAVES,
	O_SPINES, O_DOWN, O_UP, O_SUS, O_HOSTS_PER_SU, O_RAILS,
	O_SPINE_GROUPS, O_CORES, O_DIMS, O_WRAP, O_HOSTS_PER_SWITCH,
	O_SW_PER_GROUP, O_GLOBAL, O_GROUPS, O_ARRANGEMENT, O_PLUS, O_DROP_GLOBAL,
	O_DROP_LOCAL, O_TORUS2QOS, O_END,
};

/* The one option table: getopt_long's and --help's; mask: T_* taking it. */
static const struct cli_opt opts[] = {
	{ "output", 1, 'o', T_ALL, "FILE", "write the net file to FILE (default stdout)" },
	{ "verbose", 0, 'v', T_ALL, NULL, "print node and cable counts to stderr" },
	{ "help", 0, 'h', T_ALL, NULL, "show this help" },
	{ "version", 0, 'V', T_ALL, NULL, "print the version and exit" },
	{ "width", 1, O_WIDTH, T_ALL, "N", "link width in lanes: 1, 2, 4, 8, 12 (4)" },
	{ "speed", 1, O_SPEED, T_ALL, "N", "lane rate in 100 Mb/s: 25|50|100|140|250|500|1000 (250)" },
	{ "hcas", 1, O_HCAS, T_ALL & ~T_RAIL, "N", "HCAs per host, all on the host's switch (1)" },
	{ "ca-ports", 1, O_CA_PORTS, T_ALL, "N", "ports per HCA, only port 1 cabled (1)" },
	{ "parallel", 1, O_PARALLEL, T_FT | T_RAIL | T_GRID, "N", "cables per switch pair and direction (1)" },
	{ "seed", 1, O_SEED, T_ALL, "N", "seed of the random degradations (0)" },
	{ "drop", 1, O_DROP, T_ALL, "F", "remove fraction F of the switch cables" },
	{ "fail-link", 1, O_FAIL_LINK, T_ALL, "A:B|N", "remove cable A-B, or N random ones (repeatable)" },
	{ "drop-switches", 1, O_DROP_SWITCHES, T_ALL, "K", "omit K random switches without hosts" },
	{ "fail-switch", 1, O_FAIL_SWITCH, T_ALL, "NAME", "omit switch NAME (repeatable)" },
	{ "drop-hosts", 1, O_DROP_HOSTS, T_ALL, "F", "omit fraction F of the hosts" },
	{ "shuffle-ports", 1, O_SHUFFLE, T_ALL, "SEED", "permute port numbers of every switch" },
	{ "levels", 1, O_LEVELS, T_FT, "L", "switch levels, 2..4 (2)" },
	{ "k", 1, O_K, T_FT, "K", "k-ary n-tree of --levels levels (K^L hosts)" },
	{ "radix", 1, O_RADIX, T_FT, "R", "folded Clos of radix-R switches (default 8)" },
	{ "hosts-per-leaf", 1, O_HOSTS_PER_LEAF, T_FT, "H", "hosts per leaf (default: non-blocking)" },
	{ "leaves", 1, O_LEAVES, T_FT | T_DF, "N", "leaves (dragonfly --plus: per group, 4)" },
	{ "spines", 1, O_SPINES, T_FT | T_RAIL | T_DF, "N", "spines (rail 32; --plus: per group, 4)" },
	{ "down", 1, O_DOWN, T_FT, "M1,..", "XGFT: child switches per level-1.. switch" },
	{ "up", 1, O_UP, T_FT, "W0,..", "XGFT: parent switches per level-0.. switch" },
	{ "sus", 1, O_SUS, T_RAIL, "N", "scalable units (4)" },
	{ "hosts-per-su", 1, O_HOSTS_PER_SU, T_RAIL, "N", "hosts per scalable unit (32)" },
	{ "rails", 1, O_RAILS, T_RAIL, "N", "HCAs per host = rail leaves per SU (8)" },
	{ "spine-groups", 1, O_SPINE_GROUPS, T_RAIL, "G", "rail r's leaves use spine group r mod G (1)" },
	{ "cores", 1, O_CORES, T_RAIL, "N", "cores, each cabled to every spine (0)" },
	{ "dims", 1, O_DIMS, T_GRID, "XxY[xZ]", "switches per dimension (4x4x4)" },
	{ "wrap", 1, O_WRAP, T_GRID, "1,1,0", "wrap per dimension (torus: all, mesh: none)" },
	{ "torus2qos", 1, O_TORUS2QOS, T_GRID, "FILE", "also write OpenSM's torus-2QoS.conf for it to FILE" },
	{ "hosts-per-switch", 1, O_HOSTS_PER_SWITCH, T_GRID | T_DF, "N", "hosts per switch or leaf (1; dragonfly 2, 4)" },
	{ "switches-per-group", 1, O_SW_PER_GROUP, T_DF, "A", "switches per group (4)" },
	{ "global-links", 1, O_GLOBAL, T_DF, "H", "global cables per switch or spine (2)" },
	{ "groups", 1, O_GROUPS, T_DF, "G", "groups, 2..A*H+1 (A*H+1)" },
	{ "arrangement", 1, O_ARRANGEMENT, T_DF, "absolute|relative", "global cable arrangement (absolute)" },
	{ "plus", 0, O_PLUS, T_DF, NULL, "Dragonfly+: leaf/spine groups" },
	{ "drop-global", 1, O_DROP_GLOBAL, T_DF, "F", "remove fraction F of the global cables" },
	{ "drop-local", 1, O_DROP_LOCAL, T_DF, "F", "remove fraction F of the local cables" },
};

#define NOPTS (sizeof(opts) / sizeof(opts[0]))
CLI_TABLE_FITS(opts);
#define LISTMAX (GEN_MAX_LEVELS - 1)

static const struct {
	const char *name;
	unsigned int type;
} types[] = {
	{ "fattree", T_FT }, { "rail", T_RAIL }, { "torus", T_TORUS },
	{ "mesh", T_MESH }, { "dragonfly", T_DF },
};

#define NTYPES (sizeof(types) / sizeof(types[0]))

/* Everything the command line says; numbers not given stay 0. */
struct cli {
	unsigned int type;
	const char *output;
	const char *torus2qos;
	bool verbose;
	struct gen_opts go;
	const char **fail_link, **fail_switch;
	unsigned int levels, k, radix, hpl, leaves, spines, parallel;
	unsigned int down[GEN_MAX_LEVELS], up[GEN_MAX_LEVELS];
	unsigned int ndown, nup;
	unsigned int sus, hps, rails, groups_sp, cores;
	unsigned int dims[GEN_MAX_DIMS], ndims, wrap[GEN_MAX_DIMS], nwrap;
	unsigned int hpsw, swpg, global, groups;
	const char *arrangement;
	bool plus;
	double drop_global, drop_local;
	bool given[O_END];
};

/* A usage error: one line pointing to --help, exit 2. */
__attribute__((format(printf, 1, 2), noreturn))
static void die(const char *fmt, ...)
{
	char msg[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	exit(cli_usage(PROG, NULL, "%s", msg));
}

static bool common(unsigned int m)
{
	return (m & T_FT) && (m & T_GRID) && (m & T_DF);
}

static void usage(FILE *out)
{
	static const char *const sect[] = {
		"Common", "fattree", "rail", "torus, mesh", "dragonfly",
	};
	static const unsigned int mask[] = {
		T_ALL, T_FT, T_RAIL, T_GRID, T_DF,
	};
	size_t i, j;

	fputs("Usage: ibtopogen fattree|rail|torus|mesh|dragonfly [options] [-o FILE]\n"
	      "       ibtopogen jobs --net FILE [options] (see jobs --help)\n"
	      "Write a generated fabric as an ibsim net file, or a random job mix\n"
	      "for one as JSON.\n", out);
	for (j = 0; j < sizeof(sect) / sizeof(sect[0]); j++) {
		fprintf(out, "\n%s options:\n", sect[j]);
		for (i = 0; i < NOPTS; i++)
			if (common(opts[i].mask) == !j &&
			    (opts[i].mask & mask[j]))
				cli_help_opt(out, &opts[i], 30, NULL);
	}
	fputs("\nExamples:\n"
	      "  ibtopogen fattree --leaves 8 --hosts-per-leaf 4 --spines 4\n"
	      "  ibtopogen fattree --radix 16 --levels 3 --drop 0.05 --seed 7\n"
	      "  ibtopogen rail --sus 4 --hosts-per-su 32 --rails 8 --spines 16 --parallel 2\n"
	      "  ibtopogen torus --dims 4x4x4 --fail-link sw-0-0-0:sw-1-0-0\n"
	      "  ibtopogen torus --dims 8x8x8 --hosts-per-switch 2 -o t.net --torus2qos torus-2QoS.conf\n"
	      "  ibtopogen dragonfly --switches-per-group 4 --global-links 2 -o df.net\n"
	      "  ibtopogen jobs --net df.net --jobs 4-16 --seed 3 -o jobs.json\n",
	      out);
}

/* Far above any sane size, far below overflow in products of two. */
#define NUM_MAX (1u << 24)

/* s as a number (C's 0x and 0 prefixes) at most max, else exit. */
static uint64_t num_max(const char *name, const char *s, uint64_t max)
{
	unsigned long long v;
	int ret = cli_uint(s, 0, max, &v);

	if (ret == -ERANGE)
		die("--%s: %s is too large", name, s);
	if (ret)
		die("--%s: '%s' is not a number", name, s);
	return v;
}

static unsigned int num(const char *name, const char *s)
{
	return num_max(name, s, NUM_MAX);
}

static uint64_t num64(const char *name, const char *s)
{
	return num_max(name, s, UINT64_MAX);
}

static double frac(const char *name, const char *s)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(s, &end);
	if (errno || end == s || *end || !(v >= 0 && v < 1))
		die("--%s must be a fraction in [0, 1), not '%s'", name, s);
	return v;
}

/* "4,4,4" or "4x4x4" into v[0..max-1]; returns the count. */
static unsigned int list(const char *name, const char *s, unsigned int *v,
			 unsigned int max)
{
	char buf[128], *tok, *save;
	unsigned int n = 0;

	if (strlen(s) >= sizeof(buf))
		die("--%s: list too long", name);
	strcpy(buf, s);
	for (tok = strtok_r(buf, ",x", &save); tok;
	     tok = strtok_r(NULL, ",x", &save)) {
		if (n == max)
			die("--%s takes at most %u values", name, max);
		v[n++] = num(name, tok);
	}
	if (!n)
		die("--%s needs a value", name);
	return n;
}

static void set(struct cli *c, const struct cli_opt *o, const char *arg)
{
	const char *nm = o->name;

	switch (o->val) {
	case 'o': c->output = arg; break;
	case 'v': c->verbose = true; break;
	case O_WIDTH: c->go.width = num(nm, arg); break;
	case O_SPEED: c->go.speed = num(nm, arg); break;
	case O_HCAS: c->go.hcas = num(nm, arg); break;
	case O_CA_PORTS: c->go.ca_ports = num(nm, arg); break;
	case O_PARALLEL: c->parallel = num(nm, arg); break;
	case O_SEED: c->go.seed = num64(nm, arg); break;
	case O_DROP: c->go.drop = frac(nm, arg); break;
	case O_FAIL_LINK:
		if (strchr(arg, ':'))
			c->fail_link[c->go.nfail_link++] = arg;
		else
			c->go.fail_links += num(nm, arg);
		break;
	case O_DROP_SWITCHES: c->go.drop_switches = num(nm, arg); break;
	case O_FAIL_SWITCH: c->fail_switch[c->go.nfail_switch++] = arg; break;
	case O_DROP_HOSTS: c->go.drop_hosts = frac(nm, arg); break;
	case O_SHUFFLE:
		c->go.shuffle = true;
		c->go.shuffle_seed = num64(nm, arg);
		break;
	case O_LEVELS: c->levels = num(nm, arg); break;
	case O_K: c->k = num(nm, arg); break;
	case O_RADIX: c->radix = num(nm, arg); break;
	case O_HOSTS_PER_LEAF: c->hpl = num(nm, arg); break;
	case O_LEAVES: c->leaves = num(nm, arg); break;
	case O_SPINES: c->spines = num(nm, arg); break;
	case O_DOWN: c->ndown = list(nm, arg, c->down, LISTMAX); break;
	case O_UP: c->nup = list(nm, arg, c->up, LISTMAX); break;
	case O_SUS: c->sus = num(nm, arg); break;
	case O_HOSTS_PER_SU: c->hps = num(nm, arg); break;
	case O_RAILS: c->rails = num(nm, arg); break;
	case O_SPINE_GROUPS: c->groups_sp = num(nm, arg); break;
	case O_CORES: c->cores = num(nm, arg); break;
	case O_DIMS: c->ndims = list(nm, arg, c->dims, GEN_MAX_DIMS); break;
	case O_WRAP: c->nwrap = list(nm, arg, c->wrap, GEN_MAX_DIMS); break;
	case O_HOSTS_PER_SWITCH: c->hpsw = num(nm, arg); break;
	case O_SW_PER_GROUP: c->swpg = num(nm, arg); break;
	case O_GLOBAL: c->global = num(nm, arg); break;
	case O_GROUPS: c->groups = num(nm, arg); break;
	case O_ARRANGEMENT: c->arrangement = arg; break;
	case O_PLUS: c->plus = true; break;
	case O_DROP_GLOBAL: c->drop_global = frac(nm, arg); break;
	case O_DROP_LOCAL: c->drop_local = frac(nm, arg); break;
	case O_TORUS2QOS: c->torus2qos = arg; break;
	}
}

static void parse(struct cli *c, int argc, char **argv)
{
	const char *tname = argv[1], *bad;
	const struct cli_opt *o;
	struct cli_parser p;
	size_t i;
	int ch;

	cli_parser_init(&p, opts, NOPTS);
	for (i = 0; i < NTYPES; i++)
		if (!strcmp(tname, types[i].name))
			c->type = types[i].type;
	if (!c->type) {
		if (!strcmp(tname, "-h") || !strcmp(tname, "--help")) {
			usage(stdout);
			exit(0);
		}
		if (!strcmp(tname, "-V") || !strcmp(tname, "--version")) {
			cli_version(stdout, PROG);
			exit(0);
		}
		die("unknown fabric type '%s'", tname);
	}
	c->fail_link = calloc(argc, sizeof(*c->fail_link));
	c->fail_switch = calloc(argc, sizeof(*c->fail_switch));
	if (!c->fail_link || !c->fail_switch) {
		fputs(PROG ": out of memory\n", stderr);
		exit(1);
	}
	while ((ch = cli_next(&p, argc - 1, argv + 1, &o, &bad)) != -1) {
		if (ch == '?')
			die("unknown option '%s'", bad);
		if (ch == ':')
			die("option '%s' needs an argument", bad);
		if (ch == 'h') {
			usage(stdout);
			exit(0);
		}
		if (ch == 'V') {
			cli_version(stdout, PROG);
			exit(0);
		}
		if (!(o->mask & c->type))
			die("--%s does not apply to %s", o->name, tname);
		c->given[ch] = true;
		set(c, o, optarg);
	}
	if (optind < argc - 1)
		die("unexpected argument '%s'", argv[optind + 1]);
	c->go.fail_link = c->fail_link;
	c->go.fail_switch = c->fail_switch;
}

/* An option's value if given, else the default d. */
#define pick(c, opt, field, d) ((c)->given[opt] ? (c)->field : (d))

static int make_fattree(struct cli *c, struct fabric **f, char *err,
			size_t len)
{
	unsigned int L = pick(c, O_LEVELS, levels, 2), s;
	unsigned int P = pick(c, O_PARALLEL, parallel, 1);
	bool lvs = c->given[O_LEAVES] || c->given[O_SPINES];
	bool xg = c->given[O_DOWN] || c->given[O_UP];
	struct gen_fattree ft;
	int ret = 0;

	if (c->given[O_K] + c->given[O_RADIX] + lvs + xg > 1)
		die("use one of --k, --radix, --leaves/--spines, --down/--up");
	if (L < 2 || L > GEN_MAX_LEVELS)
		die("--levels must be 2..%u", GEN_MAX_LEVELS);
	if (c->given[O_K]) {
		ret = gen_fattree_kary(&ft, c->k, L, err, len);
	} else if (lvs) {
		if (L != 2)
			die("--leaves/--spines describe 2 levels; use --down/--up for more");
		if (!c->given[O_LEAVES] || !c->given[O_SPINES])
			die("--leaves and --spines go together");
		memset(&ft, 0, sizeof(ft));
		ft.levels = 2;
		ft.down[1] = c->leaves;
		ft.up[0] = c->spines;
		ft.down[0] = c->spines * P;
	} else if (xg) {
		if (c->ndown != L - 1 || c->nup != L - 1)
			die("--down and --up need %u values each for --levels %u",
			    L - 1, L);
		memset(&ft, 0, sizeof(ft));
		ft.levels = L;
		for (s = 0; s + 1 < L; s++) {
			ft.down[s + 1] = c->down[s];
			ft.up[s] = c->up[s];
		}
		ft.down[0] = c->up[0] * P;
	} else {
		ret = gen_fattree_radix(&ft, pick(c, O_RADIX, radix, 8), L,
					err, len);
	}
	if (ret)
		return ret;
	ft.parallel = P;
	if (c->given[O_HOSTS_PER_LEAF])
		ft.down[0] = c->hpl;
	return gen_fattree(&ft, &c->go, f, err, len);
}

static int make_rail(struct cli *c, struct fabric **f, char *err, size_t len)
{
	struct gen_rail r;

	gen_rail_init(&r);
	r.sus = pick(c, O_SUS, sus, r.sus);
	r.hosts_per_su = pick(c, O_HOSTS_PER_SU, hps, r.hosts_per_su);
	r.rails = pick(c, O_RAILS, rails, r.rails);
	r.spines = pick(c, O_SPINES, spines, r.spines);
	r.spine_groups = pick(c, O_SPINE_GROUPS, groups_sp, r.spine_groups);
	r.cores = c->cores;
	r.parallel = pick(c, O_PARALLEL, parallel, r.parallel);
	return gen_rail(&r, &c->go, f, err, len);
}

/* The torus or mesh; *t keeps its shape for the torus-2QoS.conf. */
static int make_torus(struct cli *c, struct gen_torus *t, struct fabric **f,
		      char *err, size_t len)
{
	unsigned int d;

	gen_torus_init(t, c->type == T_TORUS);
	if (c->given[O_DIMS]) {
		t->ndims = c->ndims;
		for (d = 0; d < c->ndims; d++) {
			t->dim[d] = c->dims[d];
			t->wrap[d] = c->type == T_TORUS;
		}
	}
	if (c->given[O_WRAP]) {
		if (c->nwrap != t->ndims)
			die("--wrap needs %u values, one per dimension",
			    t->ndims);
		for (d = 0; d < t->ndims; d++) {
			if (c->wrap[d] > 1)
				die("--wrap values must be 0 or 1");
			t->wrap[d] = c->wrap[d];
		}
	}
	t->hosts = pick(c, O_HOSTS_PER_SWITCH, hpsw, t->hosts);
	t->parallel = pick(c, O_PARALLEL, parallel, t->parallel);
	return gen_torus(t, &c->go, f, err, len);
}

static int make_dragonfly(struct cli *c, struct fabric **f, char *err,
			  size_t len)
{
	struct gen_dragonfly d;

	if (c->plus && c->given[O_SW_PER_GROUP])
		die("--switches-per-group does not apply to --plus: use --leaves and --spines");
	if (!c->plus && (c->given[O_LEAVES] || c->given[O_SPINES]))
		die("--leaves and --spines need --plus");
	gen_dragonfly_init(&d, c->plus);
	d.hosts = pick(c, O_HOSTS_PER_SWITCH, hpsw, d.hosts);
	if (c->plus)
		d.switches = pick(c, O_LEAVES, leaves, d.switches);
	else
		d.switches = pick(c, O_SW_PER_GROUP, swpg, d.switches);
	d.spines = pick(c, O_SPINES, spines, d.spines);
	d.global = pick(c, O_GLOBAL, global, d.global);
	d.groups = c->groups;
	if (c->given[O_ARRANGEMENT]) {
		if (!strcmp(c->arrangement, "absolute") ||
		    !strcmp(c->arrangement, "consecutive"))
			d.arrangement = GEN_DF_ABSOLUTE;
		else if (!strcmp(c->arrangement, "relative"))
			d.arrangement = GEN_DF_RELATIVE;
		else
			die("--arrangement must be absolute or relative");
	}
	d.drop_global = c->drop_global;
	d.drop_local = c->drop_local;
	return gen_dragonfly(&d, &c->go, f, err, len);
}

/*
 * OpenSM's torus-2QoS engine (torus-2QoS.conf(5)) always sees three
 * dimensions, absent ones of radix 1, and takes a radix-2 ring for a mesh
 * with two cables per switch pair.  It learns the coordinates from a seed:
 * one switch and its cables to the +1 neighbour in every dimension, to the
 * -1 neighbour as well in rings of radix 4, whose 4-loops are ambiguous.
 */
#define T2Q_DIMS 3
#define T2Q_SEEDS 2		/* OpenSM uses the first whose switches all exist */
#define T2Q_PORTGROUP 16	/* OpenSM's default portgroup_max_ports */

_Static_assert(GEN_MAX_DIMS <= T2Q_DIMS, "torus-2QoS has three dimensions");

struct t2q_seed {
	unsigned int coord[T2Q_DIMS];
	uint32_t common_sw;	/* node index of the seed's common switch */
	/* its +1 and -1 neighbour per dimension; FAB_NONE unused */
	uint32_t neighbour[T2Q_DIMS][2];
};

/* What the torus-2QoS.conf writer needs; points into main's state. */
struct t2q {
	const struct gen_torus *t;
	const struct gen_opts *o;
	const struct fabric *f;
	struct t2q_seed seed[T2Q_SEEDS];
	size_t nseed;
};

static unsigned int t2q_radix(const struct gen_torus *t, unsigned int d)
{
	return d < t->ndims ? t->dim[d] : 1;
}

static bool t2q_ring(const struct gen_torus *t, unsigned int d)
{
	return d < t->ndims && t->wrap[d] && t->dim[d] > 2;
}

static bool cabled(const struct fabric *f, uint32_t a, uint32_t b)
{
	unsigned int p;

	for (p = 1; p <= f->nodes[a].nports; p++)
		if (fab_port(f, a, p)->peer == b)
			return true;
	return false;
}

/* The switch one step (+1 or -1) from seed s along d, if a cable joins. */
static uint32_t t2q_step(const struct t2q *q, const struct t2q_seed *s,
			 unsigned int d, int step)
{
	unsigned int n[T2Q_DIMS], r = q->t->dim[d];
	uint32_t nb;

	if (!t2q_ring(q->t, d) && step > 0 && s->coord[d] + 1 == r)
		return FAB_NONE;
	memcpy(n, s->coord, sizeof(n));
	n[d] = (s->coord[d] + r + step) % r;
	nb = gen_torus_switch(q->f, q->t, n);
	return nb != FAB_NONE && cabled(q->f, s->common_sw, nb) ? nb : FAB_NONE;
}

/* Whether one of the seeds found so far uses switch n. */
static bool t2q_taken(const struct t2q *q, uint32_t n)
{
	const struct t2q_seed *s;
	unsigned int d;

	for (s = q->seed; s < q->seed + q->nseed; s++) {
		if (s->common_sw == n)
			return true;
		for (d = 0; d < T2Q_DIMS; d++)
			if (s->neighbour[d][0] == n || s->neighbour[d][1] == n)
				return true;
	}
	return false;
}

/* Whether the switch at s->coord seeds, sharing no switch with q's seeds. */
static bool t2q_try(const struct t2q *q, struct t2q_seed *s)
{
	unsigned int d, k;

	s->common_sw = gen_torus_switch(q->f, q->t, s->coord);
	if (s->common_sw == FAB_NONE || t2q_taken(q, s->common_sw))
		return false;
	for (d = 0; d < T2Q_DIMS; d++) {
		s->neighbour[d][0] = s->neighbour[d][1] = FAB_NONE;
		if (t2q_radix(q->t, d) < 2)
			continue;
		for (k = 0; k < 2; k++) {
			if (k && (!t2q_ring(q->t, d) || q->t->dim[d] != 4))
				break;
			s->neighbour[d][k] = t2q_step(q, s, d, k ? -1 : 1);
			if (s->neighbour[d][k] == FAB_NONE ||
			    t2q_taken(q, s->neighbour[d][k]))
				return false;
		}
	}
	return true;
}

/*
 * Up to T2Q_SEEDS disjoint seeds, each the first in GUID order that fits.
 * Only the generated fabric counts: failed switches and cables are avoided.
 */
static void t2q_seeds(struct t2q *q)
{
	struct t2q_seed *s;
	uint32_t i, x, n = 1;
	unsigned int d;

	for (d = 0; d < q->t->ndims; d++)
		n *= q->t->dim[d];
	while (q->nseed < T2Q_SEEDS) {
		s = &q->seed[q->nseed];
		for (i = 0; i < n; i++) {
			memset(s, 0, sizeof(*s));
			for (x = i, d = 0; d < q->t->ndims; x /= q->t->dim[d++])
				s->coord[d] = x % q->t->dim[d];
			if (t2q_try(q, s))
				break;
		}
		if (i == n)
			return;
		q->nseed++;
	}
}

/* "torus 4 4 4", "mesh 4 4 2", "torus 4 4 8M", "torus 8 8 1". */
static void t2q_size(FILE *out, const struct gen_torus *t)
{
	bool torus = false;
	unsigned int d, r;

	for (d = 0; d < t->ndims; d++)
		torus |= t->wrap[d];
	fputs(torus ? "torus" : "mesh", out);
	for (d = 0; d < T2Q_DIMS; d++) {
		r = t2q_radix(t, d);
		fprintf(out, " %u%s", r,
			torus && r > 1 && !t->wrap[d] ? "M" : "");
	}
	fputc('\n', out);
}

/*
 * Host ports plus port 0 share a port group, as do the cables to one
 * neighbour (both cables of a radix-2 ring).
 */
static unsigned int t2q_portgroup(const struct gen_torus *t,
				  const struct gen_opts *o)
{
	unsigned int need = t->hosts * o->hcas + 1, d, pg;

	for (d = 0; d < t->ndims; d++) {
		pg = t->parallel * (t->wrap[d] && t->dim[d] == 2 ? 2 : 1);
		if (pg > need)
			need = pg;
	}
	return need;
}

/*
 * The datelines put each seed switch at its own coordinates, so OpenSM's
 * coordinates are the switch names' and every seed yields the same ones.
 */
static void t2q_seed_out(FILE *out, const struct t2q *q,
			 const struct t2q_seed *s)
{
	static const char axis[T2Q_DIMS] = { 'x', 'y', 'z' };
	const struct fab_node *a = &q->f->nodes[s->common_sw], *b;
	unsigned int d, k;

	for (d = 0; d < T2Q_DIMS; d++)
		for (k = 0; k < 2; k++) {
			if (s->neighbour[d][k] == FAB_NONE)
				continue;
			b = &q->f->nodes[s->neighbour[d][k]];
			fprintf(out, "%c%c_link 0x%016" PRIx64 " 0x%016" PRIx64 "\t# %s -> %s\n",
				axis[d], k ? 'm' : 'p', a->guid, b->guid,
				a->desc, b->desc);
		}
	for (d = 0; d < T2Q_DIMS; d++)
		if (s->coord[d])
			fprintf(out, "%c_dateline -%u\n", axis[d], s->coord[d]);
}

static int t2q_write(FILE *out, const void *ctx)
{
	const struct t2q *q = ctx;
	unsigned int pg = t2q_portgroup(q->t, q->o);
	size_t i;

	fputs("# torus-2QoS.conf(5) for OpenSM's torus-2QoS routing engine, written by\n"
	      "# ibtopogen with the net file; OpenSM reads it from its torus_config path.\n",
	      out);
	t2q_size(out, q->t);
	if (pg > T2Q_PORTGROUP)
		fprintf(out, "portgroup_max_ports %u\n", pg);
	for (i = 0; i < q->nseed; i++) {
		if (i)
			fputs("next_seed\n", out);
		t2q_seed_out(out, q, &q->seed[i]);
	}
	return ferror(out) ? -EIO : 0;
}

static int net_write(FILE *out, const void *ctx)
{
	return fab_write_net(ctx, out);
}

/* fn(ctx) into path, or stdout when path is NULL; 0, or 1 saying why. */
static int write_out(const char *path, int (*fn)(FILE *, const void *),
		     const void *ctx)
{
	FILE *out = stdout;
	int ret;

	if (path) {
		out = fopen(path, "w");
		if (!out) {
			fprintf(stderr, "ibtopogen: %s: %s\n", path,
				strerror(errno));
			return 1;
		}
	}
	ret = fn(out, ctx);
	if ((out != stdout ? fclose(out) : fflush(out)) && !ret)
		ret = -EIO;
	if (ret) {
		fprintf(stderr, "ibtopogen: writing %s: %s\n",
			path ? path : "stdout", strerror(-ret));
		return 1;
	}
	return 0;
}

int main(int argc, char **argv)
{
	struct cli c;
	struct gen_torus t;
	struct t2q q;
	struct fabric *f = NULL;
	char err[256] = "";
	int ret;

	if (argc < 2)
		die("no fabric type given");
	if (!strcmp(argv[1], "jobs"))
		return jobmix_main(argc - 1, argv + 1);
	memset(&c, 0, sizeof(c));
	gen_opts_init(&c.go);
	parse(&c, argc, argv);
	switch (c.type) {
	case T_FT: ret = make_fattree(&c, &f, err, sizeof(err)); break;
	case T_RAIL: ret = make_rail(&c, &f, err, sizeof(err)); break;
	case T_DF: ret = make_dragonfly(&c, &f, err, sizeof(err)); break;
	default: ret = make_torus(&c, &t, &f, err, sizeof(err)); break;
	}
	if (ret) {
		fprintf(stderr, "ibtopogen: %s\n",
			*err ? err : strerror(-ret));
		ret = ret == -ENOMEM || ret == -EIO ? 1 : 2;
		goto out;
	}
	if (c.torus2qos) {
		memset(&q, 0, sizeof(q));
		q.t = &t;
		q.o = &c.go;
		q.f = f;
		t2q_seeds(&q);
		if (!q.nseed) {
			fprintf(stderr, "ibtopogen: --torus2qos: no switch has the cables a torus-2QoS seed needs\n");
			ret = 2;
			goto out;
		}
	}
	if (c.verbose)
		fprintf(stderr, "ibtopogen: %zu switches, %zu CAs, %zu switch cables\n",
			f->nsw, f->nca, fab_sw_links(f));
	ret = write_out(c.output, net_write, f);
	if (!ret && c.torus2qos)
		ret = write_out(c.torus2qos, t2q_write, &q);
out:
	fab_free(f);
	free(c.fail_link);
	free(c.fail_switch);
	return ret;
}
