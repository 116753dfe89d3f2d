// SPDX-License-Identifier: MIT
/*
 * Hashes of whole routings and the golden checks on them.  The hash
 * reads one stream of bytes (tu_golden.h says which); a recording is
 * that stream, xz-compressed, after a line giving the tables' shape, so a
 * golden check that fails can name the first entry that moved.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tu.h"
#include "tu_golden.h"

#define GOLDEN_DIR "tests/data/golden"

/* The parts of the stream, in order, for naming an entry. */
enum part { LFT, NVL, PATH_SL, SL2VL };

/*
 * Where the hashed bytes also go: into a recording, or against a
 * recorded stream until the first entry that differs, which diff
 * describes ("" while none did).
 */
struct sink {
	const struct rt_tables *t;
	uint64_t h;
	FILE *rec;		/* NULL: not recording */
	const uint8_t *ref;	/* NULL: not comparing */
	size_t nref, pos;
	char *diff;
	size_t len;
};

static uint64_t fnv(uint64_t h, const void *p, size_t n)
{
	const uint8_t *b = p;

	while (n--)
		h = (h ^ *b++) * 0x100000001b3ull;
	return h;
}

static const char *sw_desc(const struct rt_tables *t, uint32_t sw)
{
	const char *d = t->fab->nodes[t->sw_node[sw]].desc;

	return d ? d : "";
}

/*
 * Name entry j of what put() got (a..d say where it is), now and as
 * recorded; an LFT row's entry j is LID j.
 */
static void describe(struct sink *k, enum part part, const unsigned int *at,
		     size_t j, unsigned int now, unsigned int was)
{
	const struct rt_tables *t = k->t;

	switch (part) {
	case LFT:
		snprintf(k->diff, k->len, "switch %u (%s, GUID 0x%016" PRIx64 ") LID %zu: port %u, recorded %u",
			 at[0], sw_desc(t, at[0]),
			 t->fab->nodes[t->sw_node[at[0]]].guid, j, now, was);
		break;
	case NVL:
		snprintf(k->diff, k->len, "data VLs: %u, recorded %u", now,
			 was);
		break;
	case PATH_SL:
		snprintf(k->diff, k->len, "path SL of LID %u to LID %u: %u, recorded %u",
			 at[0], at[1], now, was);
		break;
	case SL2VL:
		if (at[0] == FAB_NONE)
			snprintf(k->diff, k->len, "SL2VL of a CA port, SL %u: VL %u, recorded %u",
				 at[3], now, was);
		else
			snprintf(k->diff, k->len, "SL2VL of switch %u (%s) in port %u out port %u, SL %u: VL %u, recorded %u",
				 at[0], sw_desc(t, at[0]), at[1], at[2],
				 at[3], now, was);
		break;
	}
}

/* n bytes of the stream, entry part at (a, b, c, d). */
static void put(struct sink *k, const void *p, size_t n, enum part part,
		unsigned int a, unsigned int b, unsigned int c, unsigned int d)
{
	const unsigned int at[4] = { a, b, c, d };
	const uint8_t *x = p, *y;
	unsigned int now, was;
	size_t j;

	k->h = fnv(k->h, p, n);
	if (k->rec)
		fwrite(p, 1, n, k->rec);
	if (!k->ref || *k->diff)
		return;
	if (k->pos + n > k->nref) {
		snprintf(k->diff, k->len, "the recording ends %zu bytes in, before the rest of these tables",
			 k->nref);
		return;
	}
	y = k->ref + k->pos;
	k->pos += n;
	if (!memcmp(x, y, n))
		return;
	if (part == NVL) {
		memcpy(&now, x, sizeof(now));
		memcpy(&was, y, sizeof(was));
		describe(k, part, at, 0, now, was);
		return;
	}
	for (j = 0; x[j] == y[j]; j++)
		;
	describe(k, part, at, j, x[j], y[j]);
}

static void put_sl2vl(struct sink *k)
{
	const struct rt_tables *t = k->t;
	unsigned int in, out, sl, np;
	uint32_t sw;
	uint8_t vl;

	for (sw = 0; sw < t->nsw; sw++) {
		np = t->fab->nodes[t->sw_node[sw]].nports;
		for (in = 0; in <= np; in++)
			for (out = 0; out <= np; out++)
				for (sl = 0; sl < 16; sl++) {
					vl = t->vl->sl2vl(t, sw, in, out, sl);
					put(k, &vl, 1, SL2VL, sw, in, out, sl);
				}
	}
	for (sl = 0; sl < 16; sl++) {
		vl = t->vl->sl2vl(t, FAB_NONE, 0, 1, sl);
		put(k, &vl, 1, SL2VL, FAB_NONE, 0, 1, sl);
	}
}

/* The whole stream through k. */
static void stream(struct sink *k)
{
	const struct rt_tables *t = k->t;
	unsigned int a, b;
	uint32_t sw;
	uint8_t sl;

	k->h = 0xcbf29ce484222325ull;
	for (sw = 0; sw < t->nsw; sw++)
		put(k, rt_lft(t, sw), t->top + 1, LFT, sw, 0, 0, 0);
	if (!t->vl)
		return;
	put(k, &t->vl->nvl, sizeof(t->vl->nvl), NVL, 0, 0, 0, 0);
	for (a = 1; a <= t->top; a++)
		for (b = 1; b <= t->top; b++) {
			if (t->lid_node[a] == FAB_NONE ||
			    t->lid_node[b] == FAB_NONE)
				continue;
			sl = t->vl->path_sl(t, a, b);
			put(k, &sl, 1, PATH_SL, a, b, 0, 0);
		}
	put_sl2vl(k);
}

uint64_t tu_tables_hash(const struct rt_tables *t)
{
	struct sink k = { .t = t };

	stream(&k);
	return k.h;
}

/* The shape line a recording starts with. */
static void shape(const struct rt_tables *t, char *buf, size_t len)
{
	snprintf(buf, len, "gpuaware golden 1: %u switches, top LID %u, %u VLs\n",
		 t->nsw, t->top, t->vl ? t->vl->nvl : 0);
}

int tu_golden_record(const struct rt_tables *t, const char *path)
{
	struct sink k = { .t = t };
	char cmd[4096], head[128];
	int ret;

	snprintf(cmd, sizeof(cmd), "xz -9 > '%s'", path);
	k.rec = popen(cmd, "w");
	if (!k.rec)
		return -errno;
	shape(t, head, sizeof(head));
	fputs(head, k.rec);
	stream(&k);
	ret = ferror(k.rec) ? -EIO : 0;
	if (pclose(k.rec) && !ret)
		ret = -EIO;
	return ret;
}

/* path's recording, unzipped, into a malloc'd *buf; 0 or -errno. */
static int slurp(const char *path, uint8_t **buf, size_t *n)
{
	char cmd[4096];
	size_t cap = 1 << 16, got;
	uint8_t *p;
	FILE *in;
	int ret = 0;

	snprintf(cmd, sizeof(cmd), "xz -dc '%s' 2>/dev/null", path);
	*buf = malloc(cap);
	*n = 0;
	in = *buf ? popen(cmd, "r") : NULL;
	if (!in) {
		free(*buf);
		return -ENOMEM;
	}
	while ((got = fread(*buf + *n, 1, cap - *n, in)) > 0) {
		*n += got;
		if (*n < cap)
			continue;
		p = realloc(*buf, cap *= 2);
		if (!p) {
			ret = -ENOMEM;
			break;
		}
		*buf = p;
	}
	if (pclose(in) && !ret)
		ret = -EIO;
	if (ret)
		free(*buf);
	return ret;
}

int tu_golden_diff(const struct rt_tables *t, const char *path, char *msg,
		   size_t len)
{
	struct sink k = { .t = t, .diff = msg, .len = len };
	char head[128];
	size_t hl, rl;
	uint8_t *buf;
	int ret;

	*msg = '\0';
	ret = slurp(path, &buf, &k.nref);
	if (ret) {
		snprintf(msg, len, "%s: cannot read the recording", path);
		return ret;
	}
	shape(t, head, sizeof(head));
	hl = strlen(head);
	if (k.nref < hl || memcmp(buf, head, hl)) {
		for (rl = 0; rl < k.nref && buf[rl] != '\n'; rl++)
			;
		snprintf(msg, len, "recorded: %.*s; these: %.*s", (int)rl,
			 (char *)buf, (int)hl - 1, head);
		ret = 1;
		goto out;
	}
	k.ref = buf + hl;
	k.nref -= hl;
	stream(&k);
	if (!*msg && k.pos < k.nref)
		snprintf(msg, len, "the recording holds %zu bytes more than these tables",
			 k.nref - k.pos);
	ret = *msg ? 1 : 0;
out:
	free(buf);
	return ret;
}

/* Where the recording of tables hashing to h lives. */
static void golden_path(uint64_t h, char *buf, size_t len)
{
	const char *dir = getenv("TU_GOLDEN_DIR");

	snprintf(buf, len, "%s/%016" PRIx64 ".xz", dir ? dir : GOLDEN_DIR, h);
}

void tu_golden(const struct rt_tables *t, uint64_t want, const char *what)
{
	uint64_t h = tu_tables_hash(t);
	char path[4096], msg[512];

	if (getenv("TU_GOLDEN_RECORD")) {
		golden_path(h, path, sizeof(path));
		CU_ASSERT(!tu_golden_record(t, path));
	}
	CU_ASSERT_EQUAL(h, want);
	golden_path(want, path, sizeof(path));
	if (h == want) {
		/* so a failure later on can say where */
		CU_ASSERT(!access(path, R_OK));
		if (access(path, R_OK))
			fprintf(stderr, "golden %#" PRIx64 " (%s) has no recording %s: record it with TU_GOLDEN_RECORD=1\n",
				want, what, path);
		return;
	}
	fprintf(stderr, "golden %#" PRIx64 ", want %#" PRIx64 ": %s\n", h, want,
		what);
	if (tu_golden_diff(t, path, msg, sizeof(msg)) > 0)
		fprintf(stderr, "  first difference: %s\n", msg);
	else
		fprintf(stderr, "  no recording to compare with: %s\n", msg);
}
