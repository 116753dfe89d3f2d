// SPDX-License-Identifier: MIT
/*
 * Test-only: the live switches' LFTs and every SL2VL table as livefab
 * reads them, with a given number of SMPs in flight, one entry a line,
 * sorted by the caller: "GUID LID PORT" as tests/ibsim/lib.sh's
 * lfts_pairs prints OpenSM's dump, "sl2vl GUID IN OUT SL VL".
 * usage: lfdump WINDOW (an ibsim client: umad2sim preloaded)
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

#include "tools/lib/livefab/livefab.h"

static void lfts(const struct fabric *f, const struct rt_tables *t)
{
	unsigned int lid;
	uint32_t s;
	uint8_t p;

	for (s = 0; s < t->nsw; s++)
		for (lid = 1; lid <= t->top; lid++)
			if ((p = rt_lft(t, s)[lid]) != RT_NO_PATH)
				printf("0x%016" PRIx64 " 0x%04x %u\n",
				       f->nodes[t->sw_node[s]].guid, lid, p);
}

static void sl2vl(const struct lf *v, const struct fabric *f)
{
	unsigned int in, out, sl, np;
	uint32_t n;
	int vl;

	for (n = 0; n < f->nnodes; n++) {
		np = f->nodes[n].nports;
		/* a CA's table is by its port alone: in 0 */
		for (in = 0; in <= (fab_is_sw(f, n) ? np : 0); in++)
			for (out = 1; out <= np; out++)
				for (sl = 0; sl < 16; sl++) {
					vl = lf_sl2vl(v, n, in, out, sl, NULL);
					if (vl >= 0)
						printf("sl2vl 0x%016" PRIx64 " %u %u %u %d\n",
						       f->nodes[n].guid,
						       in, out, sl, vl);
				}
	}
}

int main(int argc, char **argv)
{
	const struct lf_stats *st;
	struct lf *v;
	char err[512];
	int ret;

	if (argc != 2) {
		fprintf(stderr, "usage: lfdump WINDOW\n");
		return 2;
	}
	if (lf_open(&v, NULL, 0, err, sizeof(err)))
		goto fail;
	lf_set_smp_window(v, (unsigned int)atoi(argv[1]));
	if ((ret = lf_discover(v, err, sizeof(err))) ||
	    (ret = lf_read_lfts(v, err, sizeof(err))) ||
	    (ret = lf_read_sl2vl(v, err, sizeof(err)))) {
		lf_close(v);
		goto fail;
	}
	lfts(lf_fabric(v), lf_tables(v));
	sl2vl(v, lf_fabric(v));
	st = lf_stats(v);
	fprintf(stderr, "lfdump: %" PRIu64 " SMPs, %" PRIu64 " sent again\n",
		st->smps, st->smps_resent);
	lf_close(v);
	return 0;
fail:
	fprintf(stderr, "lfdump: %s\n", err);
	return 1;
}
