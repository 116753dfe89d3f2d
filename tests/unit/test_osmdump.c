// SPDX-License-Identifier: MIT
/*
 * OpenSM dump loaders against dumps OpenSM 3.3.23 wrote under ibsim
 * (tests/data/osm-*), and against broken copies of them.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "routing/lftdump.h"
#include "topology/netfile.h"
#include "topology/osmdump.h"
#include "tu.h"
#include "tu_route.h"

#define DATA "tests/data/"

static const char *const fixtures[] = {
	"osm-2sw-minhop", "osm-2sw-lmc1", "osm-ft2-ftree", "osm-ring5-qos",
};

#define NFIX (sizeof(fixtures) / sizeof(fixtures[0]))

static char *path(const char *dir, const char *file)
{
	static char buf[512];

	snprintf(buf, sizeof(buf), DATA "%s/%s", dir, file);
	return buf;
}

/* Whole file as a string (caller frees), NULL when unreadable. */
static char *slurp(const char *p)
{
	FILE *in = fopen(p, "r");
	char *s = NULL;
	long len;

	if (!in)
		return NULL;
	if (fseek(in, 0, SEEK_END) == 0 && (len = ftell(in)) >= 0 &&
	    fseek(in, 0, SEEK_SET) == 0 && (s = calloc(len + 1, 1)) &&
	    fread(s, 1, len, in) != (size_t)len) {
		free(s);
		s = NULL;
	}
	fclose(in);
	return s;
}

/* Copy of text with line n (1-based) replaced by repl (NULL drops it). */
static char *edit_line(const char *text, unsigned int n, const char *repl)
{
	size_t len = strlen(text) + (repl ? strlen(repl) : 0) + 2;
	char *out = calloc(len, 1), *o = out;
	const char *s = text, *e;
	unsigned int i;

	if (!out)
		return NULL;
	for (i = 1; *s; i++, s = e) {
		e = strchr(s, '\n');
		e = e ? e + 1 : s + strlen(s);
		if (i != n) {
			memcpy(o, s, e - s);
			o += e - s;
		} else if (repl) {
			o += sprintf(o, "%s\n", repl);
		}
	}
	return out;
}

/* Line n of text without its newline (caller frees). */
static char *get_line(const char *text, unsigned int n)
{
	const char *s = text, *e;
	unsigned int i;

	for (i = 1; i < n && s; i++) {
		s = strchr(s, '\n');
		if (s)
			s++;
	}
	if (!s || !*s)
		return NULL;
	e = strchr(s, '\n');
	return strndup(s, e ? (size_t)(e - s) : strlen(s));
}

/* Number of the first line containing needle, 0 if none. */
static unsigned int find_line(const char *text, const char *needle)
{
	const char *hit = strstr(text, needle), *s;
	unsigned int n = 1;

	if (!hit)
		return 0;
	for (s = text; s < hit; s++)
		n += *s == '\n';
	return n;
}

/* Replace the first "from" in line n by "to". */
static char *subst_line(const char *text, unsigned int n, const char *from,
			const char *to)
{
	char *line = get_line(text, n), *hit, *nl, *out = NULL;

	if (!line || !(hit = strstr(line, from)))
		goto out;
	nl = calloc(strlen(line) + strlen(to) + 1, 1);
	if (!nl)
		goto out;
	memcpy(nl, line, hit - line);
	strcat(nl, to);
	strcat(nl, hit + strlen(from));
	out = edit_line(text, n, nl);
	free(nl);
out:
	free(line);
	return out;
}

static int subnet_str(const char *text, struct fabric **f, char *err,
		      size_t len)
{
	FILE *in = fmemopen((void *)text, strlen(text), "r");
	int ret;

	if (!in)
		return -errno;
	ret = osmdump_load_stream(in, "subnet", f, err, len);
	fclose(in);
	return ret;
}

static int lfts_str(const char *text, struct fabric *f, struct rt_tables *t,
		    char *err, size_t len)
{
	FILE *in = fmemopen((void *)text, strlen(text), "r");
	int ret;

	if (!in)
		return -errno;
	ret = lftdump_load_stream(in, "lfts", f, t, err, len);
	fclose(in);
	return ret;
}

static int sl2vl_str(const char *text, const struct rt_tables *t,
		     struct rt_vl **vl, char *err, size_t len)
{
	FILE *in = fmemopen((void *)text, strlen(text), "r");
	int ret;

	if (!in)
		return -errno;
	ret = lftdump_load_sl2vl_stream(in, "sl2vl", t, vl, err, len);
	fclose(in);
	return ret;
}

/* err starts with "name:line:" and mentions what. */
static void expect_err(const char *err, const char *name, unsigned int line,
		       const char *what)
{
	char pre[64];

	snprintf(pre, sizeof(pre), "%s:%u: ", name, line);
	if (strncmp(err, pre, strlen(pre)) || !strstr(err, what))
		fprintf(stderr, "\n  got '%s', want '%s...%s'\n", err, pre,
			what);
	CU_ASSERT_NSTRING_EQUAL(err, pre, strlen(pre));
	CU_ASSERT_PTR_NOT_NULL(strstr(err, what));
}

static uint32_t by_guid(const struct fabric *f, uint64_t guid)
{
	uint32_t n;

	for (n = 0; n < f->nnodes; n++)
		if (f->nodes[n].guid == guid)
			return n;
	return FAB_NONE;
}

/* The dump shows the cabling, GUIDs and names the net file gave ibsim. */
static void same_fabric(const struct fabric *net, const struct fabric *d)
{
	uint32_t n, m;
	unsigned int p;

	CU_ASSERT_EQUAL(d->nnodes, net->nnodes);
	CU_ASSERT_EQUAL(d->nsw, net->nsw);
	CU_ASSERT_EQUAL(d->nca, net->nca);
	CU_ASSERT_EQUAL(fab_sw_links(d), fab_sw_links(net));
	for (n = 0; n < net->nnodes; n++) {
		const struct fab_node *a = &net->nodes[n], *b;

		m = by_guid(d, a->guid);
		CU_ASSERT_NOT_EQUAL_FATAL(m, FAB_NONE);
		b = &d->nodes[m];
		CU_ASSERT_EQUAL(b->type, a->type);
		CU_ASSERT_EQUAL(b->nports, a->nports);
		CU_ASSERT_STRING_EQUAL(b->desc, a->desc);
		for (p = 1; p <= a->nports; p++) {
			const struct fab_port *x = fab_port(net, n, p);
			const struct fab_port *y = fab_port(d, m, p);

			if (x->peer == FAB_NONE) {
				CU_ASSERT_EQUAL(y->peer, FAB_NONE);
				continue;
			}
			CU_ASSERT_NOT_EQUAL_FATAL(y->peer, FAB_NONE);
			CU_ASSERT_EQUAL(d->nodes[y->peer].guid,
					net->nodes[x->peer].guid);
			CU_ASSERT_EQUAL(y->peer_port, x->peer_port);
			/* ibsim links are 4x SDR unless the file says. */
			CU_ASSERT_EQUAL(y->width, 4);
			CU_ASSERT_EQUAL(y->speed, 25);
			if (a->type == FAB_CA)
				CU_ASSERT_EQUAL(y->guid, x->guid);
		}
	}
}

/* Every switch and linked CA port has a LID, and no two share one. */
static void lids_unique(const struct fabric *f)
{
	unsigned int max = fab_max_lid(f), p, l;
	unsigned char *used = calloc(max + 1, 1);
	size_t n;

	CU_ASSERT_PTR_NOT_NULL_FATAL(used);
	for (n = 0; n < f->nnodes; n++) {
		for (p = 0; p <= f->nodes[n].nports; p++) {
			const struct fab_port *fp = fab_port(f, n, p);

			if (p == 0 && !fab_is_sw(f, n))
				continue;
			if (p > 0 && fab_is_sw(f, n))
				continue;
			if (p > 0 && fp->peer == FAB_NONE)
				continue;
			CU_ASSERT(fp->lid > 0);
			for (l = 0; l < (1u << fp->lmc); l++) {
				CU_ASSERT_FALSE(used[fp->lid + l]);
				used[fp->lid + l] = 1;
			}
		}
	}
	free(used);
}

static void test_subnet(void)
{
	char err[256];
	size_t i;

	for (i = 0; i < NFIX; i++) {
		struct fabric *net = NULL, *d = NULL;
		int ret;

		ret = fab_load_net(path(fixtures[i], "net"), &net, err,
				   sizeof(err));
		if (ret)
			fprintf(stderr, "\n  %s\n", err);
		CU_ASSERT_EQUAL_FATAL(ret, 0);
		ret = osmdump_load(path(fixtures[i], "opensm-subnet.lst"), &d,
				   err, sizeof(err));
		if (ret)
			fprintf(stderr, "\n  %s\n", err);
		CU_ASSERT_EQUAL_FATAL(ret, 0);
		same_fabric(net, d);
		lids_unique(d);
		fab_free(net);
		fab_free(d);
	}
}

static int load_pair(const char *dir, struct fabric **f, struct rt_tables *t)
{
	char err[256];
	int ret;

	ret = osmdump_load(path(dir, "opensm-subnet.lst"), f, err,
			   sizeof(err));
	if (!ret)
		ret = lftdump_load(path(dir, "opensm-lfts.dump"), *f, t, err,
				   sizeof(err));
	if (ret)
		fprintf(stderr, "\n  %s\n", err);
	return ret;
}

static void test_lfts(void)
{
	size_t i;

	for (i = 0; i < NFIX; i++) {
		struct fabric *f = NULL;
		struct rt_tables t;
		unsigned int lid, p, routed = 0;
		uint32_t s, n;

		CU_ASSERT_EQUAL_FATAL(load_pair(fixtures[i], &f, &t), 0);
		CU_ASSERT_EQUAL(t.nsw, f->nsw);
		CU_ASSERT_EQUAL(t.top, fab_max_lid(f));
		/* OpenSM delivers locally: own LID on port 0, CAs on
		 * the port their cable is on. */
		for (n = 0; n < f->nnodes; n++) {
			if (fab_is_sw(f, n)) {
				lid = fab_port(f, n, 0)->lid;
				CU_ASSERT_EQUAL(rt_lft(&t, t.node_sw[n])[lid],
						0);
				continue;
			}
			for (p = 1; p <= f->nodes[n].nports; p++) {
				const struct fab_port *cp = fab_port(f, n, p);
				const uint8_t *row;

				if (cp->peer == FAB_NONE)
					continue;
				row = rt_lft(&t, t.node_sw[cp->peer]);
				for (lid = cp->lid;
				     lid < cp->lid + (1u << cp->lmc); lid++)
					CU_ASSERT_EQUAL(row[lid], cp->peer_port);
			}
		}
		/* Every switch reaches every CA LID through the tables. */
		for (s = 0; s < t.nsw; s++)
			for (lid = 1; lid <= t.top; lid++) {
				n = t.lid_node[lid];
				if (n == FAB_NONE || fab_is_sw(f, n))
					continue;
				CU_ASSERT(tu_reaches(&t, s, lid));
				routed++;
			}
		CU_ASSERT(routed >= t.nsw * f->nca);
		rt_tables_release(&t);
		fab_free(f);
	}
}

static void test_lmc(void)
{
	struct fabric *f0 = NULL, *f1 = NULL;
	struct rt_tables t0, t1;
	uint32_t n;

	CU_ASSERT_EQUAL_FATAL(load_pair("osm-2sw-minhop", &f0, &t0), 0);
	CU_ASSERT_EQUAL_FATAL(load_pair("osm-2sw-lmc1", &f1, &t1), 0);
	for (n = 0; n < f1->nnodes; n++) {
		const struct fab_port *a = fab_lid_port(f0, n, 1);
		const struct fab_port *b = fab_lid_port(f1, n, 1);

		CU_ASSERT_EQUAL(f0->nodes[n].guid, f1->nodes[n].guid);
		CU_ASSERT_EQUAL(a->lmc, 0);
		CU_ASSERT_EQUAL(b->lmc, fab_is_sw(f1, n) ? 0 : 1);
		if (!fab_is_sw(f1, n)) {
			CU_ASSERT_EQUAL(b->lid % 2, 0);
			CU_ASSERT_EQUAL(t1.lid_node[b->lid + 1], n);
			CU_ASSERT_EQUAL(t1.lid_port[b->lid + 1], 1);
		}
	}
	CU_ASSERT(t1.top > t0.top);
	/* Same cabling and GUIDs; the LIDs of the two sweeps differ, so
	 * one sweep's tables must not load onto the other's subnet. */
	{
		char err[256];
		struct rt_tables x;

		CU_ASSERT_NOT_EQUAL(lftdump_load(path("osm-2sw-minhop",
						      "opensm-lfts.dump"),
						 f1, &x, err, sizeof(err)), 0);
		CU_ASSERT_PTR_NOT_NULL(strstr(err, "opensm-lfts.dump:"));
	}
	rt_tables_release(&t0);
	rt_tables_release(&t1);
	fab_free(f0);
	fab_free(f1);
}

static void test_sl2vl(void)
{
	const char *dir = "osm-ring5-qos";
	char err[256], *text, *line;
	struct fabric *f = NULL;
	struct rt_tables t;
	struct rt_vl *vl = NULL;
	unsigned int in, out, v[16], sl, ln;
	uint32_t s = 0, n;

	CU_ASSERT_EQUAL_FATAL(load_pair(dir, &f, &t), 0);
	CU_ASSERT_EQUAL_FATAL(lftdump_load_sl2vl(path(dir, "opensm-sl2vl.dump"),
						 &t, &vl, err, sizeof(err)), 0);
	t.vl = vl;
	CU_ASSERT_EQUAL(vl->path_sl(&t, 1, 2), 0);
	CU_ASSERT(vl->nvl >= 1 && vl->nvl <= 15);
	/* Rows read back as the file prints them, in the first block. */
	text = slurp(path(dir, "opensm-sl2vl.dump"));
	CU_ASSERT_PTR_NOT_NULL_FATAL(text);
	line = get_line(text, 1);
	CU_ASSERT_PTR_NOT_NULL_FATAL(line);
	CU_ASSERT_EQUAL(strncmp(line, "Switch 0x", 9), 0);
	n = by_guid(f, strtoull(line + 9, NULL, 16));
	CU_ASSERT_NOT_EQUAL_FATAL(n, FAB_NONE);
	s = t.node_sw[n];
	free(line);
	for (ln = 4; (line = get_line(text, ln)) && line[0] != '#'; ln++) {
		CU_ASSERT_EQUAL(sscanf(line, "%u %u : %u %u %u %u %u %u %u %u %u %u %u %u %u %u %u %u",
				       &in, &out, &v[0], &v[1], &v[2], &v[3],
				       &v[4], &v[5], &v[6], &v[7], &v[8], &v[9],
				       &v[10], &v[11], &v[12], &v[13], &v[14],
				       &v[15]), 18);
		for (sl = 0; sl < 16; sl++)
			CU_ASSERT_EQUAL(vl->sl2vl(&t, s, in, out, sl), v[sl]);
		if (fab_port(f, n, in)->peer != FAB_NONE)
			CU_ASSERT(v[0] < vl->nvl);
		free(line);
	}
	free(line);
	CU_ASSERT(ln > 4);
	/* Port 0 has no cable, so OpenSM lists no rows into it. */
	CU_ASSERT_EQUAL(vl->sl2vl(&t, s, 1, 0, 0), 15);
	CU_ASSERT_EQUAL(vl->sl2vl(&t, s, 1, f->nodes[n].nports + 1, 0), 15);
	t.vl = NULL;
	lftdump_vl_free(vl);
	vl = NULL;

	/* SL 0 on VL 3 between two linked ports makes four VLs. */
	{
		unsigned int row = find_line(text, "1   2   :");
		char *mod = edit_line(text, row,
				      "1   2   : 3  1  2  3  4  5  6  7  0  1  2  3  4  5  6  7");

		CU_ASSERT_EQUAL_FATAL(sl2vl_str(mod, &t, &vl, err,
						sizeof(err)), 0);
		CU_ASSERT_EQUAL(vl->nvl, 4);
		lftdump_vl_free(vl);
		vl = NULL;
		free(mod);
		mod = subst_line(text, row, ": 0  1", ": 16 1");
		CU_ASSERT_NOT_EQUAL(sl2vl_str(mod, &t, &vl, err, sizeof(err)),
				    0);
		CU_ASSERT_PTR_NULL(vl);
		expect_err(err, "sl2vl", row, "bad VL '16'");
		free(mod);
		mod = subst_line(text, 1, "Switch 0x0", "Switch 0x9");
		CU_ASSERT_NOT_EQUAL(sl2vl_str(mod, &t, &vl, err, sizeof(err)),
				    0);
		expect_err(err, "sl2vl", 1, "unknown switch");
		free(mod);
		mod = edit_line(text, row, "1   9   : 0  1  2  3  4  5  6  7  0  1  2  3  4  5  6  7");
		CU_ASSERT_NOT_EQUAL(sl2vl_str(mod, &t, &vl, err, sizeof(err)),
				    0);
		expect_err(err, "sl2vl", row, "bad port");
		free(mod);
	}
	free(text);
	rt_tables_release(&t);
	fab_free(f);
}

/* Broken copies of a real subnet.lst fail with the right line. */
static void test_subnet_errors(void)
{
	char err[256], *text, *mod;
	struct fabric *f = NULL;
	unsigned int n, last = 0;
	size_t len;

	text = slurp(path("osm-2sw-minhop", "opensm-subnet.lst"));
	CU_ASSERT_PTR_NOT_NULL_FATAL(text);
	len = strlen(text);
	for (n = 0; n < len; n++)
		last += text[n] == '\n';

	/* Cut in the middle of the last line. */
	mod = strndup(text, len - 40);
	CU_ASSERT_EQUAL(subnet_str(mod, &f, err, sizeof(err)), -EINVAL);
	CU_ASSERT_PTR_NULL(f);
	expect_err(err, "subnet", last, "truncated line");
	free(mod);

	/* Cut after a whole line: Hca4's own view of its link is gone. */
	mod = edit_line(text, last, NULL);
	CU_ASSERT_EQUAL(subnet_str(mod, &f, err, sizeof(err)), -EINVAL);
	n = find_line(text, "PN:02 } { CA Ports:02 SystemGUID:0000000000100009");
	CU_ASSERT(n > 0);
	expect_err(err, "subnet", n, "listed from one end only");
	free(mod);

	/* Switch1 says its port 3 goes to Switch2 port 5; Switch2 lists
	 * port 5 going to Switch1 port 5. */
	n = find_line(text, "{Switch1} LID:0001 PN:03 } { SW");
	mod = subst_line(text, n, "{Switch2} LID:0003 PN:03",
			 "{Switch2} LID:0003 PN:05");
	CU_ASSERT_EQUAL(subnet_str(mod, &f, err, sizeof(err)), -EINVAL);
	CU_ASSERT_PTR_NOT_NULL(strstr(err, "disagrees"));
	free(mod);

	mod = subst_line(text, n, "PN:03", "PN:09");
	CU_ASSERT_EQUAL(subnet_str(mod, &f, err, sizeof(err)), -EINVAL);
	expect_err(err, "subnet", n, "bad port 9");
	free(mod);

	mod = subst_line(text, n, "PN:03", "PN:zz");
	CU_ASSERT_EQUAL(subnet_str(mod, &f, err, sizeof(err)), -EINVAL);
	expect_err(err, "subnet", n, "bad PN: 'zz'");
	free(mod);

	mod = subst_line(text, n, "LID:0001", "LID:c000");
	CU_ASSERT_EQUAL(subnet_str(mod, &f, err, sizeof(err)), -ERANGE);
	expect_err(err, "subnet", n, "out of range");
	free(mod);

	/* Hca3 (LID 5, on Switch1 port 2) claims Hca1's LID 2, from both
	 * of its lines. */
	{
		char *m2;
		unsigned int h3 = find_line(text, "{Hca3} LID:0005 PN:01 } { SW");
		unsigned int s2 = find_line(text, "PN:02 } { CA Ports:02 SystemGUID:0000000000100006");

		m2 = subst_line(text, h3, "{Hca3} LID:0005", "{Hca3} LID:0002");
		mod = subst_line(m2, s2, "{Hca3} LID:0005", "{Hca3} LID:0002");
		CU_ASSERT_EQUAL(subnet_str(mod, &f, err, sizeof(err)),
				-EINVAL);
		expect_err(err, "subnet", s2, "LID 0x0002 of 0x0000000000100006[1] is taken on line 1");
		free(m2);
		free(mod);
	}

	/* The same node must look the same on every line. */
	mod = subst_line(text, n, "Ports:08", "Ports:09");
	CU_ASSERT_EQUAL(subnet_str(mod, &f, err, sizeof(err)), -EINVAL);
	expect_err(err, "subnet", n, "differs from line");
	free(mod);

	mod = edit_line(text, n, "{ SW Ports:08 garbage");
	CU_ASSERT_EQUAL(subnet_str(mod, &f, err, sizeof(err)), -EINVAL);
	expect_err(err, "subnet", n, "bad SystemGUID:");
	free(mod);

	CU_ASSERT_EQUAL(subnet_str("\n\n", &f, err, sizeof(err)), -EINVAL);
	CU_ASSERT_PTR_NOT_NULL(strstr(err, "no links"));
	CU_ASSERT_EQUAL(osmdump_load(DATA "no-such-dir/x", &f, err,
				     sizeof(err)), -ENOENT);
	free(text);
}

/* Broken copies of a real lfts.dump fail with the right line. */
static void test_lfts_errors(void)
{
	char err[256], *text, *mod;
	struct fabric *f = NULL;
	struct rt_tables t;
	unsigned int n, last = 0;
	size_t len;

	CU_ASSERT_EQUAL_FATAL(osmdump_load(path("osm-2sw-minhop",
						"opensm-subnet.lst"), &f, err,
					   sizeof(err)), 0);
	text = slurp(path("osm-2sw-minhop", "opensm-lfts.dump"));
	CU_ASSERT_PTR_NOT_NULL_FATAL(text);
	len = strlen(text);
	for (n = 0; n < len; n++)
		last += text[n] == '\n';

	CU_ASSERT_EQUAL(lfts_str(text, f, &t, err, sizeof(err)), 0);
	rt_tables_release(&t);

	n = find_line(text, "0x0004 003");
	CU_ASSERT(n > 1);
	mod = subst_line(text, n, " 003 ", " x ");
	CU_ASSERT_EQUAL(lfts_str(mod, f, &t, err, sizeof(err)), -EINVAL);
	expect_err(err, "lfts", n, "bad port 'x'");
	free(mod);

	mod = subst_line(text, n, " 003 ", " 009 ");
	CU_ASSERT_EQUAL(lfts_str(mod, f, &t, err, sizeof(err)), -EINVAL);
	expect_err(err, "lfts", n, "bad port '9'");
	free(mod);

	mod = subst_line(text, n, "0x0004", "0x0007");
	CU_ASSERT_EQUAL(lfts_str(mod, f, &t, err, sizeof(err)), -ERANGE);
	expect_err(err, "lfts", n, "out of range");
	free(mod);

	mod = subst_line(text, n, "0x0004", "0x0002");
	CU_ASSERT_EQUAL(lfts_str(mod, f, &t, err, sizeof(err)), -EINVAL);
	expect_err(err, "lfts", n, "out of order");
	free(mod);

	/* Comment names a port that does not own the LID. */
	mod = subst_line(text, n, "0x0000000000100004", "0x0000000000100007");
	CU_ASSERT_EQUAL(lfts_str(mod, f, &t, err, sizeof(err)), -EINVAL);
	CU_ASSERT_PTR_NOT_NULL(strstr(err, "LID 0x0004 belongs to"));
	free(mod);

	mod = subst_line(text, 1, "guid 0x0000000000200000",
			 "guid 0x0000000000200009");
	CU_ASSERT_EQUAL(lfts_str(mod, f, &t, err, sizeof(err)), -ENOENT);
	expect_err(err, "lfts", 1, "unknown switch GUID 0x0000000000200009");
	free(mod);

	mod = subst_line(text, 1, "switch Lid 1", "switch Lid 2");
	CU_ASSERT_EQUAL(lfts_str(mod, f, &t, err, sizeof(err)), -EINVAL);
	expect_err(err, "lfts", 1, "has LID 2 here");
	free(mod);

	/* Drop the first table's trailer: the second header finds it
	 * open; drop the last one: the file ends inside a table. */
	n = find_line(text, "lids dumped");
	mod = edit_line(text, n, NULL);
	CU_ASSERT_EQUAL(lfts_str(mod, f, &t, err, sizeof(err)), -EINVAL);
	expect_err(err, "lfts", n, "not terminated");
	free(mod);
	mod = edit_line(text, last, NULL);
	CU_ASSERT_EQUAL(lfts_str(mod, f, &t, err, sizeof(err)), -EINVAL);
	expect_err(err, "lfts", last - 1, "truncated table");
	free(mod);
	mod = strndup(text, len - 3);
	CU_ASSERT_EQUAL(lfts_str(mod, f, &t, err, sizeof(err)), -EINVAL);
	expect_err(err, "lfts", last, "truncated line");
	free(mod);

	/* Only the first switch's table: the second one is missing. */
	mod = strndup(text, strstr(text, "lids dumped\n") - text + 12);
	CU_ASSERT_EQUAL(lfts_str(mod, f, &t, err, sizeof(err)), -ENOENT);
	CU_ASSERT_PTR_NOT_NULL(strstr(err, "no table for switch"));
	free(mod);

	mod = subst_line(text, last, "6 lids", "5 lids");
	CU_ASSERT_EQUAL(lfts_str(mod, f, &t, err, sizeof(err)), -EINVAL);
	expect_err(err, "lfts", last, "trailer says 5");
	free(mod);

	free(text);
	fab_free(f);
}

TU_SUITE(osmdump,
	 { "subnet matches net file", test_subnet },
	 { "lfts deliver", test_lfts },
	 { "lmc from lfts", test_lmc },
	 { "sl2vl", test_sl2vl },
	 { "subnet errors", test_subnet_errors },
	 { "lfts errors", test_lfts_errors })
