// SPDX-License-Identifier: MIT
/*
 * Placement and topology export on generated fabrics: grouping by leaf
 * and pod, rail-optimized units, scoring with busy and loaded hosts, the
 * hop-distance fallback on a torus, Slurm and Kubernetes text.
 */
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "tu.h"
#include "routing/collsim.h"
#include "routing/route.h"
#include "sm/proto.h"
#include "tools/lib/pool/hostlist.h"
#include "tools/lib/pool/place.h"
#include "tools/lib/pool/placemodel.h"
#include "tools/lib/pool/swname.h"
#include "tools/lib/pool/topoexport.h"
#include "topology/gen.h"
#include "topology/netfile.h"

static struct fabric *xgft(unsigned int levels, const unsigned int *down,
			   const unsigned int *up)
{
	struct gen_fattree ft = { .levels = levels, .parallel = 1 };
	struct fabric *f = NULL;
	struct gen_opts o;
	char err[256];

	gen_opts_init(&o);
	memcpy(ft.down, down, levels * sizeof(*down));
	memcpy(ft.up, up, (levels - 1) * sizeof(*up));
	CU_ASSERT_FATAL(!gen_fattree(&ft, &o, &f, err, sizeof(err)));
	return f;
}

/* What an export wrote, into a string the caller frees. */
static char *exported(const struct pool_tree *t, enum pool_export_format fmt)
{
	char *buf = NULL, err[256];
	size_t n = 0;
	FILE *m = open_memstream(&buf, &n);

	CU_ASSERT_FATAL(m != NULL);
	CU_ASSERT_EQUAL(pool_export_text(t, fmt, m, NULL, err, sizeof(err)), 0);
	fclose(m);
	return buf;
}

/* The host tree of f, groups named after their switches' descriptions. */
static int named_tree(const struct fabric *f, struct pool_tree *t)
{
	char **names, err[256];
	int ret;

	CU_ASSERT_EQUAL_FATAL(pool_swname_build(f, NULL, &names), 0);
	ret = pool_tree_build(f, names, t, err, sizeof(err));
	pool_swname_free(names, f->nnodes);
	return ret;
}

/*
 * XGFT(3; 2,2,2; 2,2): hosts 2k-1, 2k on leaf k-1; level-1 switches join
 * leaves pairwise (0-1, 2-3) into pods; the cores join the pods.  So
 * four leaf groups, two pods named after their first spine, a root
 * named after the first core; a lost cable renames nothing else.
 */
static void test_export_tree(void)
{
	static const unsigned int down[] = { 2, 2, 2 }, up[] = { 2, 2 };
	struct fabric *f = xgft(3, down, up);
	struct pool_tree t;
	char *s;
	size_t n;

	CU_ASSERT_EQUAL_FATAL(named_tree(f, &t), 0);
	CU_ASSERT(t.fattree);
	CU_ASSERT_EQUAL(t.nhosts, 8);
	CU_ASSERT_EQUAL_FATAL(t.nlevels, 3);
	CU_ASSERT_EQUAL(t.ngroups[0], 4);
	CU_ASSERT_EQUAL(t.ngroups[1], 2);
	CU_ASSERT_EQUAL(t.ngroups[2], 1);
	CU_ASSERT_EQUAL(pool_tree_host(&t, "NODE0003"), 2);
	CU_ASSERT_EQUAL(pool_tree_host(&t, "node0009"), -1);
	s = exported(&t, POOL_EXPORT_SLURM_TREE);
	CU_ASSERT_STRING_EQUAL(s,
		"SwitchName=leaf-p0-0 Nodes=node[0001-0002]\n"
		"SwitchName=leaf-p0-1 Nodes=node[0003-0004]\n"
		"SwitchName=leaf-p1-0 Nodes=node[0005-0006]\n"
		"SwitchName=leaf-p1-1 Nodes=node[0007-0008]\n"
		"SwitchName=spine-p0-0 Switches=leaf-p0-[0-1]\n"
		"SwitchName=spine-p1-0 Switches=leaf-p1-[0-1]\n"
		"SwitchName=core-0 Switches=spine-p0-0,spine-p1-0\n");
	free(s);
	/* tier 0 nearest the host; the root, one value everywhere, left out */
	s = exported(&t, POOL_EXPORT_K8S_LABELS);
	CU_ASSERT_PTR_NOT_NULL(strstr(s,
		"node0001 fabric.topograph.run/tier-0=leaf-p0-0 fabric.topograph.run/tier-1=spine-p0-0\n"));
	CU_ASSERT_PTR_NOT_NULL(strstr(s,
		"node0006 fabric.topograph.run/tier-0=leaf-p1-0 fabric.topograph.run/tier-1=spine-p1-0\n"));
	CU_ASSERT_PTR_NULL(strstr(s, "tier-2"));
	free(s);
	s = exported(&t, POOL_EXPORT_SLURM_BLOCK);
	CU_ASSERT_STRING_EQUAL(s,
		"BlockName=leaf-p0-0 Nodes=node[0001-0002]\n"
		"BlockName=leaf-p0-1 Nodes=node[0003-0004]\n"
		"BlockName=leaf-p1-0 Nodes=node[0005-0006]\n"
		"BlockName=leaf-p1-1 Nodes=node[0007-0008]\n"
		"BlockSizes=2,4,8\n");
	free(s);
	s = exported(&t, POOL_EXPORT_KUEUE);
	CU_ASSERT_PTR_NOT_NULL(strstr(s, "kind: Topology\n"));
	CU_ASSERT_PTR_NOT_NULL(strstr(s,
		"  levels:\n"
		"  - nodeLabel: \"fabric.topograph.run/tier-1\"\n"
		"  - nodeLabel: \"fabric.topograph.run/tier-0\"\n"
		"  - nodeLabel: \"kubernetes.io/hostname\"\n"));
	free(s);
	pool_tree_release(&t);

	/* a host whose cable is out is no part of the topology */
	for (n = 0; n < f->nnodes; n++)
		if (!strcmp(f->nodes[n].desc, "node0008 mlx5_0"))
			CU_ASSERT_EQUAL(fab_unlink(f, n, 1), 0);
	CU_ASSERT_EQUAL_FATAL(named_tree(f, &t), 0);
	CU_ASSERT_EQUAL(t.nhosts, 7);
	CU_ASSERT_EQUAL(pool_tree_host(&t, "node0008"), -1);
	s = exported(&t, POOL_EXPORT_SLURM_TREE);
	CU_ASSERT_PTR_NOT_NULL(strstr(s, "SwitchName=leaf-p1-1 Nodes=node0007\n"));
	free(s);
	pool_tree_release(&t);
	fab_free(f);
}

/*
 * Without switch names, groups are named by node GUID; a pod whose
 * spines are all gone is its leaf's group one level up, named after the
 * leaf with the level appended, so no name is given twice.
 */
static void test_export_guid(void)
{
	static const unsigned int down[] = { 2, 2, 2 }, up[] = { 1, 2 };
	struct fabric *f = xgft(3, down, up);
	struct pool_tree t;
	char err[256], *s, want[64];
	size_t n;
	uint32_t sw = FAB_NONE;
	unsigned int p;

	for (n = 0; n < f->nnodes; n++)
		if (!strcmp(f->nodes[n].desc, "spine-p0-0"))
			sw = n;
	CU_ASSERT_FATAL(sw != FAB_NONE);
	/* the pod's only spine unlinked from its leaves */
	for (p = 1; p <= f->nodes[sw].nports; p++)
		if (fab_port(f, sw, p)->peer != FAB_NONE &&
		    strstr(f->nodes[fab_port(f, sw, p)->peer].desc, "leaf"))
			CU_ASSERT_EQUAL(fab_unlink(f, sw, p), 0);
	CU_ASSERT_EQUAL_FATAL(pool_tree_build(f, NULL, &t, err, sizeof(err)),
			      0);
	s = exported(&t, POOL_EXPORT_SLURM_TREE);
	for (n = 0; n < f->nnodes; n++) {
		if (strcmp(f->nodes[n].desc, "leaf-p0-0"))
			continue;
		snprintf(want, sizeof(want), "SwitchName=0x%016" PRIx64 "-t1 ",
			 f->nodes[n].guid);
		CU_ASSERT_PTR_NOT_NULL(strstr(s, want));
		snprintf(want, sizeof(want), "SwitchName=0x%016" PRIx64 " ",
			 f->nodes[n].guid);
		CU_ASSERT_PTR_NOT_NULL(strstr(s, want));
	}
	free(s);
	pool_tree_release(&t);
	fab_free(f);
}

/* The names issue 24 saw copied into other programs' configs. */
static const char *const hostile[] = {
	"h[1-100]", "ALL,h08=x;#", "$(touch${IFS}/tmp/PWNX)", "-rf",
	"a&b'c\\d", "a-b-c-d", "h\xff", "ALL", "ALL.-x..y",
};

#define NHOSTILE (sizeof(hostile) / sizeof(hostile[0]))

/* s is a name of rule: lower case only with lower, _ only with under. */
static bool fits(const char *s, bool lower, bool under, size_t max)
{
	size_t i, n = strlen(s);

	if (!n || n > max || !isalnum((unsigned char)s[0]) ||
	    !isalnum((unsigned char)s[n - 1]))
		return false;
	for (i = 0; i < n; i++)
		if (!(isalnum((unsigned char)s[i]) || s[i] == '.' ||
		      s[i] == '-' || (under && s[i] == '_')) ||
		    (lower && isupper((unsigned char)s[i])))
			return false;
	return true;
}

/* "KEY=LIST" of a Slurm line: every name of the list fits Slurm's rule. */
static size_t slurm_list(const char *tok, const char *key)
{
	char **names, err[256];
	size_t n, i, k = strlen(key);

	CU_ASSERT_FATAL(!strncmp(tok, key, k) && tok[k] == '=');
	CU_ASSERT_EQUAL_FATAL(pool_hostlist_expand(tok + k + 1, 100, &names,
						   &n, err, sizeof(err)), 0);
	for (i = 0; i < n; i++) {
		CU_ASSERT(fits(names[i], false, true, 253));
		CU_ASSERT(strcasecmp(names[i], "ALL"));
	}
	pool_hostlist_free(names, n);
	return n;
}

static const char *as_of(json_object *ren, const char *kind, const char *name)
{
	json_object *x;
	size_t i;

	for (i = 0; i < json_object_array_length(ren); i++) {
		x = json_object_array_get_idx(ren, i);
		if (!strcmp(json_object_get_string(json_object_object_get(x, "kind")), kind) &&
		    !strcmp(json_object_get_string(json_object_object_get(x, "name")), name))
			return json_object_get_string(json_object_object_get(x, "as"));
	}
	return "";
}

/* Export fmt of t: its text, the renamed array into *ren. */
static char *exported_ren(const struct pool_tree *t,
			  enum pool_export_format fmt, json_object **ren)
{
	char *buf = NULL, err[256];
	size_t n = 0;
	FILE *m = open_memstream(&buf, &n);

	*ren = json_object_new_array();
	CU_ASSERT_FATAL(m != NULL && *ren != NULL);
	CU_ASSERT_EQUAL(pool_export_text(t, fmt, m, *ren, err, sizeof(err)),
			0);
	fclose(m);
	return buf;
}

/*
 * Hosts and a switch named by hostile NodeDescriptions: every format
 * writes names its target reads as one name, says which it changed, and
 * the JSON stays valid UTF-8.
 */
static void test_export_hostile(void)
{
	static const unsigned int down[] = { 3, 2, 2 }, up[] = { 2, 2 };
	struct fabric *f = xgft(3, down, up);
	char *s, *line, *tok, *save, *save2, err[256];
	json_object *ren, *o, *back;
	struct sm_error e;
	struct pool_tree t;
	size_t n, k = 0, hosts = 0;

	for (n = 0; n < f->nnodes; n++) {
		if (fab_is_sw(f, n) ? strcmp(f->nodes[n].desc, "leaf-p0-0") :
		    k == NHOSTILE)
			continue;
		free(f->nodes[n].desc);
		f->nodes[n].desc = strdup(fab_is_sw(f, n) ? "rack=1;# x" :
					  hostile[k++]);
	}
	CU_ASSERT_EQUAL_FATAL(k, NHOSTILE);
	CU_ASSERT_EQUAL_FATAL(named_tree(f, &t), 0);
	CU_ASSERT_EQUAL_FATAL(t.nhosts, 12);

	s = exported_ren(&t, POOL_EXPORT_SLURM_TREE, &ren);
	CU_ASSERT_PTR_NULL(strstr(s, "rack"));
	for (line = strtok_r(s, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		tok = strtok_r(line, " ", &save2);
		CU_ASSERT_EQUAL(slurm_list(tok, "SwitchName"), 1);
		tok = strtok_r(NULL, " ", &save2);
		CU_ASSERT_FATAL(tok != NULL);
		if (!strncmp(tok, "Nodes=", 6))
			hosts += slurm_list(tok, "Nodes");
		else
			slurm_list(tok, "Switches");
		CU_ASSERT_PTR_NULL(strtok_r(NULL, " ", &save2));
	}
	CU_ASSERT_EQUAL(hosts, 12);
	CU_ASSERT_STRING_EQUAL(as_of(ren, "host", "h[1-100]"), "h-1-100");
	CU_ASSERT_STRING_EQUAL(as_of(ren, "host", "ALL,h08=x;#"), "ALL-h08-x");
	CU_ASSERT_STRING_EQUAL(as_of(ren, "host", "$(touch${IFS}/tmp/PWNX)"),
			       "touch--IFS--tmp-PWNX");
	CU_ASSERT_STRING_EQUAL(as_of(ren, "host", "-rf"), "rf");
	CU_ASSERT_STRING_EQUAL(as_of(ren, "host", "h\\xff"), "h");
	/* meets a-b-c-d, which is kept: the changed one gets the hash */
	CU_ASSERT_EQUAL(strlen(as_of(ren, "host", "a&b'c\\d")), 16);
	CU_ASSERT_STRING_EQUAL(as_of(ren, "host", "a-b-c-d"), "");
	CU_ASSERT_EQUAL(strncmp(as_of(ren, "host", "ALL"), "ALL-", 4), 0);
	CU_ASSERT_STRING_EQUAL(as_of(ren, "host", "ALL.-x..y"), "");
	/* switch names were checked already (swname.h): GUIDs instead */
	CU_ASSERT_EQUAL(json_object_array_length(ren), 7);
	free(s);
	json_object_put(ren);

	s = exported_ren(&t, POOL_EXPORT_K8S_LABELS, &ren);
	for (line = strtok_r(s, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		tok = strtok_r(line, " ", &save2);
		CU_ASSERT(fits(tok, true, false, 253));
		CU_ASSERT(!strstr(tok, "..") && !strstr(tok, ".-") &&
			  !strstr(tok, "-."));
		while ((tok = strtok_r(NULL, " ", &save2))) {
			CU_ASSERT_FATAL(strchr(tok, '=') != NULL);
			CU_ASSERT(fits(strchr(tok, '=') + 1, false, true, 63));
		}
	}
	CU_ASSERT_STRING_EQUAL(as_of(ren, "host", "ALL,h08=x;#"), "all-h08-x");
	/* DNS labels: a dot only between letters or digits */
	CU_ASSERT_STRING_EQUAL(as_of(ren, "host", "ALL.-x..y"), "all--x--y");
	free(s);
	json_object_put(ren);

	/* YAML: double-quoted strings with nothing to escape */
	s = exported_ren(&t, POOL_EXPORT_SLURM_YAML, &ren);
	CU_ASSERT_PTR_NULL(strchr(s, '\\'));
	CU_ASSERT_PTR_NULL(strstr(s, "#\""));
	CU_ASSERT_PTR_NULL(strchr(s, '\xff'));
	free(s);
	json_object_put(ren);

	o = json_object_new_object();
	CU_ASSERT_EQUAL_FATAL(pool_export_json(&t, o), 0);
	s = strdup(json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN));
	CU_ASSERT_EQUAL(sm_proto_parse_object(s, strlen(s), 1 << 20, &back,
					      &e), 0);
	CU_ASSERT_PTR_NOT_NULL(strstr(s, "\"h\\\\xff\""));
	json_object_put(back);
	json_object_put(o);
	free(s);
	(void)err;
	pool_tree_release(&t);
	fab_free(f);
}

/* A node-name-map file with text; its path, a temporary the caller removes. */
static char *map_file(const char *text)
{
	char *path = strdup("/tmp/tu-nodemap.XXXXXX");
	int fd;

	CU_ASSERT_FATAL(path != NULL);
	fd = mkstemp(path);
	CU_ASSERT_FATAL(fd >= 0);
	CU_ASSERT_FATAL(write(fd, text, strlen(text)) == (ssize_t)strlen(text));
	close(fd);
	return path;
}

/*
 * Names: the map first, then a description no other switch has, then
 * the GUID; a map line that is not `GUID "NAME"` with a usable name is
 * refused with its line.
 */
static void test_switch_names(void)
{
	static const unsigned int down[] = { 2, 2 }, up[] = { 2 };
	struct fabric *f = xgft(2, down, up);
	struct pool_swname_map m;
	char err[256], *path, **names, guid[20], text[128];
	uint32_t l0 = FAB_NONE, l1 = FAB_NONE, n;

	for (n = 0; n < f->nnodes; n++) {
		if (!strcmp(f->nodes[n].desc, "leaf-0"))
			l0 = n;
		if (!strcmp(f->nodes[n].desc, "leaf-1"))
			l1 = n;
	}
	CU_ASSERT_FATAL(l0 != FAB_NONE && l1 != FAB_NONE);
	snprintf(guid, sizeof(guid), "0x%016" PRIx64, f->nodes[l0].guid);
	path = map_file("# switches\n\n");
	CU_ASSERT_EQUAL_FATAL(pool_swname_map_load(path, &m, err, sizeof(err)), 0);
	CU_ASSERT_EQUAL(m.n, 0);
	unlink(path);
	free(path);
	CU_ASSERT_EQUAL_FATAL(pool_swname_build(f, &m, &names), 0);
	CU_ASSERT_STRING_EQUAL(names[l0], "leaf-0");
	pool_swname_free(names, f->nnodes);

	/* two switches with one description: both by GUID */
	free(f->nodes[l1].desc);
	f->nodes[l1].desc = strdup("leaf-0");
	CU_ASSERT_EQUAL_FATAL(pool_swname_build(f, NULL, &names), 0);
	CU_ASSERT_STRING_EQUAL(names[l0], guid);
	pool_swname_free(names, f->nnodes);

	/* the map wins, comments and blanks allowed */
	snprintf(text, sizeof(text), "# ib\n  %s  \"ib-leaf.01\"  # rack 1\n",
		 guid);
	path = map_file(text);
	CU_ASSERT_EQUAL_FATAL(pool_swname_map_load(path, &m, err, sizeof(err)), 0);
	unlink(path);
	free(path);
	CU_ASSERT_EQUAL(m.n, 1);
	CU_ASSERT_EQUAL_FATAL(pool_swname_build(f, &m, &names), 0);
	CU_ASSERT_STRING_EQUAL(names[l0], "ib-leaf.01");
	pool_swname_free(names, f->nnodes);
	pool_swname_map_release(&m);

	path = map_file("0x1 \"ok\"\n0x2 \"bad name\"\n");
	CU_ASSERT_EQUAL(pool_swname_map_load(path, &m, err, sizeof(err)),
			-EINVAL);
	CU_ASSERT_PTR_NOT_NULL(strstr(err, ":2: name 'bad name' is not"));
	unlink(path);
	free(path);
	path = map_file("0x1 \"a\"\nzz \"b\"\n");
	CU_ASSERT_EQUAL(pool_swname_map_load(path, &m, err, sizeof(err)),
			-EINVAL);
	CU_ASSERT_PTR_NOT_NULL(strstr(err, ":2: expected a node GUID"));
	unlink(path);
	free(path);
	path = map_file("0x1 \"a\"\n0x1 \"b\"\n");
	CU_ASSERT_EQUAL(pool_swname_map_load(path, &m, err, sizeof(err)),
			-EINVAL);
	CU_ASSERT_PTR_NOT_NULL(strstr(err, "GUID 0x0000000000000001 named twice"));
	unlink(path);
	free(path);
	CU_ASSERT(pool_swname_valid("a"));
	CU_ASSERT(!pool_swname_valid("-a"));
	CU_ASSERT(!pool_swname_valid("a;b"));
	CU_ASSERT(!pool_swname_valid(""));
	fab_free(f);
}

/*
 * Rail-optimized, 2 SUs of 2 hosts with 2 rails, one spine group: a
 * host's two HCAs sit on its SU's two rail leaves, which therefore form
 * one level-0 group per SU; the spines join the SUs.
 */
static void test_export_rail(void)
{
	struct gen_rail r;
	struct gen_opts o;
	struct fabric *f = NULL;
	struct pool_tree t;
	char err[256], *s;

	gen_rail_init(&r);
	r.sus = 2;
	r.hosts_per_su = 2;
	r.rails = 2;
	r.spines = 2;
	gen_opts_init(&o);
	CU_ASSERT_FATAL(!gen_rail(&r, &o, &f, err, sizeof(err)));
	CU_ASSERT_EQUAL_FATAL(named_tree(f, &t), 0);
	CU_ASSERT_EQUAL(t.nhosts, 4);
	s = exported(&t, POOL_EXPORT_SLURM_TREE);
	CU_ASSERT_STRING_EQUAL(s,
		"SwitchName=leaf-su0-r0 Nodes=node[0001-0002]\n"
		"SwitchName=leaf-su1-r0 Nodes=node[0003-0004]\n"
		"SwitchName=spine-0 Switches=leaf-su0-r0,leaf-su1-r0\n");
	free(s);
	pool_tree_release(&t);
	fab_free(f);
}

/*
 * The GPU exports on XGFT(3; 2,2,2; 2,2)'s 8 hosts, 6 configured (and
 * ghost01, off the fabric): hosts alike share a line, a GPU type Slurm
 * cannot take goes untyped, one GPU is one device file; unbound, no GPUs
 * to write.
 */
static void test_export_gpus(void)
{
	static const unsigned int down[] = { 2, 2, 2 }, up[] = { 2, 2 };
	static const char *const kind[][3] = {
		{ "node0001", "4", "H100" }, { "node0002", "4", "H100" },
		{ "node0003", "4", "H100" }, { "node0004", "4", "H100" },
		{ "node0005", "1", "A100 80GB" }, { "node0006", "4", "A100" },
		{ "node0007", "8", "H100" }, { "ghost01", "2", "H100" },
	};
	char path[] = "/tmp/tu-gpus-XXXXXX", err[512], *s, *buf = NULL;
	struct fabric *f = xgft(3, down, up);
	struct pool_config c;
	struct pool_tree t;
	json_object *o, *h;
	size_t i, n = 0;
	FILE *out;
	int fd;

	CU_ASSERT_EQUAL_FATAL(named_tree(f, &t), 0);
	out = open_memstream(&buf, &n);
	CU_ASSERT_EQUAL(pool_export_text(&t, POOL_EXPORT_SLURM_GRES, out, NULL,
					 err, sizeof(err)), -EINVAL);
	fclose(out);
	free(buf);
	fd = mkstemp(path);
	CU_ASSERT_FATAL(fd >= 0);
	out = fdopen(fd, "w");
	for (i = 0; i < sizeof(kind) / sizeof(kind[0]); i++)
		fprintf(out, "[host %s]\ngpus=%s\ngpu_type=%s\nhca=%s mlx5_0\n",
			kind[i][0], kind[i][1], kind[i][2], kind[i][0]);
	fclose(out);
	CU_ASSERT_EQUAL_FATAL(pool_config_load(path, &c, err, sizeof(err)), 0);
	unlink(path);
	CU_ASSERT_EQUAL_FATAL(pool_tree_bind(&t, &c), 0);
	s = exported(&t, POOL_EXPORT_SLURM_GRES);
	CU_ASSERT_STRING_EQUAL(s,
		"# gres.conf for Slurm 22.05 and later: 10 shards a GPU (100 milli-GPUs each)\n"
		"# File= are NVIDIA's device names: change them for other GPUs\n"
		"# slurm.conf: GresTypes=gpu,shard\n"
		"# slurm.conf: NodeName=node0005 Gres=gpu:1,shard:10\n"
		"# slurm.conf: NodeName=node0006 Gres=gpu:A100:4,shard:40\n"
		"# slurm.conf: NodeName=node[0001-0004] Gres=gpu:H100:4,shard:40\n"
		"# slurm.conf: NodeName=node0007 Gres=gpu:H100:8,shard:80\n"
		"NodeName=node0005 Name=gpu Count=1 File=/dev/nvidia0\n"
		"NodeName=node0005 Name=shard Count=10\n"
		"NodeName=node0006 Name=gpu Type=A100 Count=4 File=/dev/nvidia[0-3]\n"
		"NodeName=node0006 Name=shard Count=40\n"
		"NodeName=node[0001-0004] Name=gpu Type=H100 Count=4 File=/dev/nvidia[0-3]\n"
		"NodeName=node[0001-0004] Name=shard Count=40\n"
		"NodeName=node0007 Name=gpu Type=H100 Count=8 File=/dev/nvidia[0-7]\n"
		"NodeName=node0007 Name=shard Count=80\n");
	free(s);
	s = exported(&t, POOL_EXPORT_K8S_HAMI);
	CU_ASSERT_STRING_EQUAL(s,
		"{\n  \"nodeconfig\": [\n"
		"    {\"name\": \"node0001\", \"devicesplitcount\": 10, \"devicememoryscaling\": 1, \"devicecorescaling\": 1, \"migstrategy\": \"none\"},\n"
		"    {\"name\": \"node0002\", \"devicesplitcount\": 10, \"devicememoryscaling\": 1, \"devicecorescaling\": 1, \"migstrategy\": \"none\"},\n"
		"    {\"name\": \"node0003\", \"devicesplitcount\": 10, \"devicememoryscaling\": 1, \"devicecorescaling\": 1, \"migstrategy\": \"none\"},\n"
		"    {\"name\": \"node0004\", \"devicesplitcount\": 10, \"devicememoryscaling\": 1, \"devicecorescaling\": 1, \"migstrategy\": \"none\"},\n"
		"    {\"name\": \"node0005\", \"devicesplitcount\": 10, \"devicememoryscaling\": 1, \"devicecorescaling\": 1, \"migstrategy\": \"none\"},\n"
		"    {\"name\": \"node0006\", \"devicesplitcount\": 10, \"devicememoryscaling\": 1, \"devicecorescaling\": 1, \"migstrategy\": \"none\"},\n"
		"    {\"name\": \"node0007\", \"devicesplitcount\": 10, \"devicememoryscaling\": 1, \"devicecorescaling\": 1, \"migstrategy\": \"none\"}\n"
		"  ]\n}\n");
	free(s);
	o = json_object_new_object();
	CU_ASSERT_EQUAL_FATAL(pool_export_json(&t, o), 0);
	CU_ASSERT_FATAL(json_object_object_get_ex(o, "hosts", &h));
	CU_ASSERT_EQUAL_FATAL(json_object_array_length(h), 8);
	s = strdup(json_object_to_json_string_ext(
		json_object_array_get_idx(h, 6), JSON_C_TO_STRING_PLAIN));
	CU_ASSERT_PTR_NOT_NULL(strstr(s, "\"host\":\"node0007\""));
	CU_ASSERT_PTR_NOT_NULL(strstr(s, "\"gpus\":8,\"shares\":80"));
	free(s);
	/* node0008 has no configuration: no GPUs said */
	CU_ASSERT_FALSE(json_object_object_get_ex(
		json_object_array_get_idx(h, 7), "gpus", NULL));
	json_object_put(o);
	pool_config_release(&c);
	pool_tree_release(&t);
	fab_free(f);
}

static struct pool_config cfg;
static struct pool *pool;

/* A pool with every host of f, gpus GPUs each behind its port GUID. */
static void pool_on(const struct fabric *f, unsigned int gpus)
{
	char path[] = "/tmp/place-cfg-XXXXXX", err[512], name[64];
	int fd = mkstemp(path);
	FILE *out;
	size_t n;

	CU_ASSERT_FATAL(fd >= 0);
	out = fdopen(fd, "w");
	for (n = 0; n < f->nnodes; n++) {
		if (fab_is_sw(f, n))
			continue;
		fab_host_name(f, n, name, sizeof(name));
		fprintf(out, "[host %s]\ngpus=%u\ngpu_type=x\nhca=0x%llx\n",
			name, gpus,
			(unsigned long long)fab_port(f, n, 1)->guid);
	}
	fclose(out);
	CU_ASSERT_EQUAL_FATAL(pool_config_load(path, &cfg, err, sizeof(err)), 0);
	unlink(path);
	CU_ASSERT_EQUAL_FATAL(pool_new(&cfg, &pool), 0);
}

static void pool_off(void)
{
	pool_free(pool);
	pool_config_release(&cfg);
}

/* Oracle that reaches only the host named by ctx. */
static int only(void *ctx, const char *client, const struct pool_port *port,
		uint32_t *dlid, double *load)
{
	(void)client;
	*dlid = 1;
	*load = 0;
	return strcmp(port->host, ctx) ? -EHOSTUNREACH : 0;
}

/* Make host name lose n of its GPUs. */
static void busy(const char *name, unsigned int n)
{
	struct pool_request rq = { .uid = 1, .client = "c", .ngpus = n,
				   .now = 0 };
	struct pool_oracle o = { only, NULL, (void *)name };
	const struct pool_alloc *a;
	char err[256];

	CU_ASSERT_EQUAL(pool_alloc(pool, &rq, &o, &a, err, sizeof(err)), 0);
}

/* The placement's hosts are config hosts first .. first + n - 1. */
static void expect_run(const struct pool_placement *pl, uint32_t first,
		       size_t n)
{
	size_t i;

	CU_ASSERT_EQUAL_FATAL(pl->nhosts, n);
	for (i = 0; i < n; i++)
		CU_ASSERT_EQUAL(pl->hosts[i], first + i);
}

/*
 * 4-ary 3-tree: 64 hosts, host k (0-based) on leaf k / 4, pods of four
 * leaves (16 hosts).  Config order is fabric order, so config host k is
 * node k + 1.
 */
static void test_place_tree(void)
{
	struct gen_fattree ft;
	struct gen_opts o;
	struct fabric *f = NULL;
	struct pool_placement pl;
	struct pool_tree t;
	double load[64] = { 0 };
	char err[256];
	int i;

	gen_opts_init(&o);
	CU_ASSERT_FATAL(!gen_fattree_kary(&ft, 4, 3, err, sizeof(err)));
	CU_ASSERT_FATAL(!gen_fattree(&ft, &o, &f, err, sizeof(err)));
	CU_ASSERT_EQUAL_FATAL(pool_tree_build(f, NULL, &t, err, sizeof(err)), 0);
	CU_ASSERT_EQUAL_FATAL(t.nlevels, 3);
	CU_ASSERT_EQUAL(t.ngroups[0], 16);
	CU_ASSERT_EQUAL(t.ngroups[1], 4);
	pool_on(f, 8);

	/* all free: the first leaf */
	CU_ASSERT_EQUAL(pool_place(pool, &cfg, &t, 32, 8, load, &pl, err,
				   sizeof(err)), 0);
	expect_run(&pl, 0, 4);
	CU_ASSERT_EQUAL(pl.span, 0);
	CU_ASSERT_EQUAL(pl.groups, 1);
	pool_placement_release(&pl);

	/*
	 * A leaf without load stops the search only while no load is
	 * below 0: one is, on leaf 4, which then wins.
	 */
	for (i = 12; i < 16; i++)
		load[i] = -1;
	CU_ASSERT_EQUAL(pool_place(pool, &cfg, &t, 32, 8, load, &pl, err,
				   sizeof(err)), 0);
	expect_run(&pl, 12, 4);
	CU_ASSERT_EQUAL(pl.load, -4);
	pool_placement_release(&pl);
	for (i = 12; i < 16; i++)
		load[i] = 0;

	/* node0002 short of GPUs, leaf 2 loaded: leaf 1 */
	busy("node0002", 1);
	for (i = 8; i < 12; i++)
		load[i] = 1;
	CU_ASSERT_EQUAL(pool_place(pool, &cfg, &t, 32, 8, load, &pl, err,
				   sizeof(err)), 0);
	expect_run(&pl, 4, 4);
	pool_placement_release(&pl);

	/* leaf 1 loaded too: the least loaded full leaf is leaf 3 */
	for (i = 4; i < 8; i++)
		load[i] = 1;
	CU_ASSERT_EQUAL(pool_place(pool, &cfg, &t, 32, 8, load, &pl, err,
				   sizeof(err)), 0);
	expect_run(&pl, 12, 4);
	CU_ASSERT_EQUAL(pl.load, 0);
	pool_placement_release(&pl);

	/*
	 * 6 hosts fit no leaf: one pod.  Pod 0 can do two leaves but only
	 * with load (leaf 3 whole, two loaded hosts of leaf 1); pod 1 takes
	 * leaf 4 whole and two hosts of leaf 5 without any.
	 */
	CU_ASSERT_EQUAL(pool_place(pool, &cfg, &t, 48, 8, load, &pl, err,
				   sizeof(err)), 0);
	expect_run(&pl, 16, 6);
	CU_ASSERT_EQUAL(pl.span, 1);
	CU_ASSERT_EQUAL(pl.groups, 2);
	pool_placement_release(&pl);

	/* the last host asks for 8 too; 7 free still fit 4 per host */
	CU_ASSERT_EQUAL(pool_place(pool, &cfg, &t, 6, 4, NULL, &pl, err,
				   sizeof(err)), 0);
	expect_run(&pl, 0, 2);
	pool_placement_release(&pl);

	/* all 64 hosts whole: node0002 is one short */
	CU_ASSERT_EQUAL(pool_place(pool, &cfg, &t, 512, 8, load, &pl, err,
				   sizeof(err)), -ENOSPC);
	CU_ASSERT_STRING_EQUAL(err, "64 hosts with 8 free GPUs needed, 63 have them");
	CU_ASSERT_PTR_NULL(pl.hosts);
	/* 63 hosts span the whole tree */
	CU_ASSERT_EQUAL(pool_place(pool, &cfg, &t, 504, 8, load, &pl, err,
				   sizeof(err)), 0);
	CU_ASSERT_EQUAL(pl.nhosts, 63);
	CU_ASSERT_EQUAL(pl.span, 2);
	CU_ASSERT_EQUAL(pl.groups, 16);
	CU_ASSERT_EQUAL(pl.load, 8);
	pool_placement_release(&pl);
	CU_ASSERT_EQUAL(pool_place(pool, &cfg, &t, 8, 0, NULL, &pl, err,
				   sizeof(err)), -EINVAL);

	pool_off();
	pool_tree_release(&t);
	fab_free(f);
}

/* 4x4 torus, one host per switch: hop distance instead of levels. */
static void test_place_torus(void)
{
	struct pool_placement pl;
	struct gen_torus gt;
	struct gen_opts o;
	struct fabric *f = NULL;
	struct pool_tree t;
	char err[256], *s;
	size_t i;

	gen_opts_init(&o);
	gen_torus_init(&gt, true);
	gt.ndims = 2;
	CU_ASSERT_FATAL(!gen_torus(&gt, &o, &f, err, sizeof(err)));
	CU_ASSERT_EQUAL_FATAL(named_tree(f, &t), 0);
	CU_ASSERT(!t.fattree);
	CU_ASSERT_EQUAL_FATAL(t.nlevels, 2);
	CU_ASSERT_EQUAL(t.ngroups[0], 16);
	CU_ASSERT_EQUAL(t.ngroups[1], 1);
	/* every switch has hosts: the fabric is named after one, "-t1" */
	s = exported(&t, POOL_EXPORT_SLURM_TREE);
	CU_ASSERT_PTR_NOT_NULL(strstr(s, "SwitchName=sw-0-0 Nodes=node0001\n"));
	CU_ASSERT_PTR_NOT_NULL(strstr(s, "\nSwitchName=sw-0-0-t1 Switches=sw-0-[0-3],"));
	free(s);
	pool_on(f, 4);

	/* a switch and its four neighbours: one hop from the centre */
	CU_ASSERT_EQUAL(pool_place(pool, &cfg, &t, 20, 4, NULL, &pl, err,
				   sizeof(err)), 0);
	CU_ASSERT_EQUAL(pl.nhosts, 5);
	CU_ASSERT_EQUAL(pl.span, 1);
	CU_ASSERT_EQUAL(pl.groups, 5);
	CU_ASSERT_EQUAL(pl.hosts[0], 0);
	pool_placement_release(&pl);

	/* the first centre's host busy: still one hop, elsewhere */
	busy("node0001", 1);
	CU_ASSERT_EQUAL(pool_place(pool, &cfg, &t, 20, 4, NULL, &pl, err,
				   sizeof(err)), 0);
	CU_ASSERT_EQUAL(pl.nhosts, 5);
	CU_ASSERT_EQUAL(pl.span, 1);
	for (i = 0; i < pl.nhosts; i++)
		CU_ASSERT_NOT_EQUAL(pl.hosts[i], 0);
	pool_placement_release(&pl);
	/* six hosts need a second ring */
	CU_ASSERT_EQUAL(pool_place(pool, &cfg, &t, 24, 4, NULL, &pl, err,
				   sizeof(err)), 0);
	CU_ASSERT_EQUAL(pl.span, 2);
	pool_placement_release(&pl);

	pool_off();
	pool_tree_release(&t);
	fab_free(f);
}

/*
 * The new job (hosts of pl) and the running jobs on t: ring and
 * all-to-all per job, as the placement model runs them, into ring and
 * a2a (room for 1 + nrun).
 */
static void model_run(const struct rt_tables *t, const struct pool_placement *pl,
		      const struct rt_job_spec *run, size_t nrun,
		      double *ring, double *a2a)
{
	struct cs_opts o = { .pattern = CS_RING };
	const char *hosts[64];
	struct rt_job_spec sp[8];
	struct cs_result r;
	struct rt_jobs js;
	char err[256];
	size_t i;

	CU_ASSERT_FATAL(pl->nhosts <= 64 && nrun < 8);
	for (i = 0; i < pl->nhosts; i++)
		hosts[i] = cfg.hosts[pl->hosts[i]].name;
	sp[0] = (struct rt_job_spec){ "new", 1, hosts, pl->nhosts };
	memcpy(sp + 1, run, nrun * sizeof(*run));
	CU_ASSERT_FATAL(!rt_jobs_build(&js, t->fab, sp, nrun + 1, err,
				       sizeof(err)));
	CU_ASSERT_FATAL(!cs_run(t, &js, &o, &r));
	memcpy(ring, r.bw, (nrun + 1) * sizeof(*ring));
	cs_result_release(&r);
	o.pattern = CS_ALLTOALL;
	o.rounds = RT_GUARD_ROUNDS;
	CU_ASSERT_FATAL(!cs_run(t, &js, &o, &r));
	memcpy(a2a, r.bw, (nrun + 1) * sizeof(*a2a));
	cs_result_release(&r);
	rt_jobs_release(&js);
}

/*
 * Where pool_place_model() puts a job of ngpus, gpus per host, beside the
 * running jobs: never slower for it than compact, nor for any of them;
 * compact itself unless it says otherwise.  Returns whether it moved.
 */
static bool expect_model(const struct pool_tree *tr, const struct rt_tables *t,
			 unsigned int ngpus, unsigned int gpus,
			 const struct rt_job_spec *run, size_t nrun)
{
	struct pool_model m = { t, run, nrun };
	double r0[8], a0[8], r1[8], a1[8];
	struct pool_placement pc, pm;
	struct pool_model_score sc;
	char err[256];
	size_t i;
	bool moved;

	CU_ASSERT_FATAL(!pool_place(pool, &cfg, tr, ngpus, gpus, NULL, &pc,
				    err, sizeof(err)));
	CU_ASSERT_FATAL(!pool_place_model(pool, &cfg, tr, ngpus, gpus, NULL,
					  &m, &pm, &sc, err, sizeof(err)));
	CU_ASSERT(sc.modelled);
	CU_ASSERT(sc.candidates > 1);
	CU_ASSERT_EQUAL_FATAL(pm.nhosts, pc.nhosts);
	moved = memcmp(pm.hosts, pc.hosts, pc.nhosts * sizeof(*pc.hosts));
	CU_ASSERT_EQUAL(moved, !sc.compact);
	model_run(t, &pc, run, nrun, r0, a0);
	model_run(t, &pm, run, nrun, r1, a1);
	CU_ASSERT(r1[0] + a1[0] >= r0[0] + a0[0] - 1e-9);
	CU_ASSERT(!moved || r1[0] + a1[0] > r0[0] + a0[0]);
	CU_ASSERT_DOUBLE_EQUAL(sc.compact_ring, r0[0], 1e-9);
	CU_ASSERT_DOUBLE_EQUAL(sc.a2a, a1[0], 1e-9);
	for (i = 1; i <= nrun; i++) {
		CU_ASSERT(r1[i] >= r0[i] - 1e-9);
		CU_ASSERT(a1[i] >= a0[i] - 1e-9);
	}
	pool_placement_release(&pc);
	pool_placement_release(&pm);
	return moved;
}

/*
 * Placement on the model: a 6x6 torus with 2 hosts a switch, two jobs
 * running; jobs of 3 to 12 hosts placed beside them are never slower
 * than compact would make them, nor the running ones, and on some sizes
 * the model moves them.  Without tables it is pool_place(), and a job
 * that fits one switch is not modelled.
 */
static void test_place_model(void)
{
	static const char *const a[] = { "node0001", "node0002", "node0003",
		"node0004", "node0013", "node0014", "node0015", "node0016" };
	static const char *const b[] = { "node0005", "node0006", "node0019",
		"node0020", "node0031", "node0032" };
	const struct rt_job_spec run[] = { { "a", 1, a, 8 }, { "b", 1, b, 6 } };
	struct pool_model none = { NULL, run, 2 };
	struct pool_placement pl, pc;
	struct pool_model_score sc;
	struct rt_summary sum;
	struct gen_torus gt;
	struct rt_tables t;
	struct gen_opts o;
	struct fabric *f = NULL;
	struct pool_tree tr;
	unsigned int n, moved = 0;
	char err[256];

	gen_opts_init(&o);
	gen_torus_init(&gt, true);
	gt.ndims = 2;
	gt.dim[0] = gt.dim[1] = 6;
	gt.hosts = 2;
	CU_ASSERT_FATAL(!gen_torus(&gt, &o, &f, err, sizeof(err)));
	CU_ASSERT_FATAL(!fab_assign_lids(f, 0));
	CU_ASSERT_FATAL(!rt_route(f, RT_ENGINE_AUTO, NULL, &t, &sum));
	CU_ASSERT_EQUAL_FATAL(pool_tree_build(f, NULL, &tr, err, sizeof(err)), 0);
	pool_on(f, 4);
	for (n = 0; n < 8; n++)
		busy(a[n], 4);
	for (n = 0; n < 6; n++)
		busy(b[n], 4);
	for (n = 3; n <= 12; n++)
		moved += expect_model(&tr, &t, 4 * n, 4, run, 2);
	fprintf(stderr, "placement model: %u of 10 sizes moved\n", moved);
	CU_ASSERT(moved > 0);

	CU_ASSERT_FATAL(!pool_place(pool, &cfg, &tr, 24, 4, NULL, &pc, err,
				    sizeof(err)));
	CU_ASSERT_FATAL(!pool_place_model(pool, &cfg, &tr, 24, 4, NULL, &none,
					  &pl, &sc, err, sizeof(err)));
	CU_ASSERT(!sc.modelled && sc.compact);
	CU_ASSERT(!memcmp(pl.hosts, pc.hosts, pc.nhosts * sizeof(*pc.hosts)));
	pool_placement_release(&pl);
	pool_placement_release(&pc);
	none.t = &t;
	CU_ASSERT_FATAL(!pool_place_model(pool, &cfg, &tr, 8, 4, NULL, &none,
					  &pl, &sc, err, sizeof(err)));
	CU_ASSERT_EQUAL(pl.groups, 1);
	CU_ASSERT(!sc.modelled);
	pool_placement_release(&pl);

	pool_off();
	pool_tree_release(&tr);
	rt_tables_release(&t);
	fab_free(f);
}

/* CA node of f whose port 1 has guid, or whose description is desc. */
static bool has_port(const struct fabric *f, const struct pool_hca *h)
{
	size_t n;

	for (n = 0; n < f->nnodes; n++)
		if (!fab_is_sw(f, n) &&
		    (h->desc ? !strcmp(f->nodes[n].desc, h->desc) :
		     fab_port(f, n, 1)->guid == h->guid))
			return true;
	return false;
}

/*
 * The sample config of ibsim-configs against its fabric: every HCA it
 * names exists, the export is the 2-level tree of four leaves under one
 * spine layer, and 32 GPUs at 4 per host fill two leaves.
 */
static void test_sample(void)
{
	struct pool_placement pl;
	struct fabric *f = NULL;
	struct pool_tree t;
	char err[512], *s;
	size_t h;

	CU_ASSERT_EQUAL_FATAL(fab_load_net("ibsim-configs/ft2-tiny.net", &f,
					   err, sizeof(err)), 0);
	CU_ASSERT_EQUAL_FATAL(pool_config_load("ibsim-configs/pool-ft2-tiny.conf",
					       &cfg, err, sizeof(err)), 0);
	CU_ASSERT_EQUAL(cfg.nhosts, 16);
	for (h = 0; h < cfg.nhosts; h++)
		CU_ASSERT(has_port(f, &cfg.hosts[h].hca[0]));
	CU_ASSERT_PTR_NOT_NULL(cfg.hosts[15].hca[0].desc);
	CU_ASSERT_EQUAL_FATAL(pool_new(&cfg, &pool), 0);
	CU_ASSERT_EQUAL_FATAL(named_tree(f, &t), 0);
	s = exported(&t, POOL_EXPORT_SLURM_TREE);
	CU_ASSERT_STRING_EQUAL(s,
		"SwitchName=leaf-1 Nodes=h[01-04]\n"
		"SwitchName=leaf-2 Nodes=h[05-08]\n"
		"SwitchName=leaf-3 Nodes=h[09-12]\n"
		"SwitchName=leaf-4 Nodes=h[13-16]\n"
		"SwitchName=spine-1 Switches=leaf-[1-4]\n");
	free(s);
	CU_ASSERT_EQUAL(pool_place(pool, &cfg, &t, 32, 4, NULL, &pl, err,
				   sizeof(err)), 0);
	expect_run(&pl, 0, 8);
	CU_ASSERT_EQUAL(pl.span, 1);
	CU_ASSERT_EQUAL(pl.groups, 2);
	pool_placement_release(&pl);
	pool_off();
	pool_tree_release(&t);
	fab_free(f);
}

TU_SUITE(pool_place,
	 { "export fat-tree", test_export_tree },
	 { "export names by GUID", test_export_guid },
	 { "export hostile names", test_export_hostile },
	 { "switch names", test_switch_names },
	 { "export rail-optimized", test_export_rail },
	 { "export GPUs: Slurm GRES, HAMi", test_export_gpus },
	 { "place on a fat-tree", test_place_tree },
	 { "place on a torus", test_place_torus },
	 { "place on the collectives model", test_place_model },
	 { "sample config on ft2-tiny", test_sample })
