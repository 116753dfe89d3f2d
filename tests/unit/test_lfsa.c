// SPDX-License-Identifier: MIT
/* SA answer parsing on made-up MADs: whole GetTables, cut ones, errors, Gets. */
#include <errno.h>
#include <string.h>

#include <infiniband/mad.h>

#include "tu.h"
#include "tools/lib/livefab/lfsa.h"

#define REC 64
#define MAXREC 8
#define RMPP_FLAGS_BYTE 26
#define PAY_EXTRA 20		/* SA header bytes after the RMPP header */
#define SEG_DATA 200		/* record bytes an SA RMPP segment carries */

static uint8_t mad[IB_SA_DATA_OFFS + MAXREC * REC];

/* Records seen by got(). */
static struct {
	unsigned int slid[MAXREC], dlid[MAXREC];
	struct lf_path p[MAXREC];
	int n, stop_at;
} seen;

static int got(void *ctx, unsigned int slid, unsigned int dlid,
	       const struct lf_path *p)
{
	(void)ctx;
	if (seen.n == seen.stop_at)
		return -ECANCELED;
	seen.slid[seen.n] = slid;
	seen.dlid[seen.n] = dlid;
	seen.p[seen.n++] = *p;
	return 0;
}

/* An answer with n records from LID 1 to LIDs 10.., record i on SL i. */
static size_t answer(unsigned int method, int n)
{
	uint8_t *r;
	int i;

	memset(mad, 0, sizeof(mad));
	memset(&seen, 0, sizeof(seen));
	seen.stop_at = -1;
	mad_set_field(mad, 0, IB_MAD_METHOD_F, method);
	mad_set_field(mad, 0, IB_MAD_RESPONSE_F, 1);
	mad_set_field(mad, 0, IB_MAD_MGMTCLASS_F, IB_SA_CLASS);
	mad_set_field(mad, 0, IB_MAD_ATTRID_F, IB_SA_ATTR_PATHRECORD);
	mad_set_field(mad, 0, IB_SA_ATTROFFS_F, REC / 8);
	for (i = 0; i < n; i++) {
		r = mad + IB_SA_DATA_OFFS + i * REC;
		mad_set_field(r, 0, IB_SA_PR_SLID_F, 1);
		mad_set_field(r, 0, IB_SA_PR_DLID_F, 10 + i);
		mad_set_field(r, 0, IB_SA_PR_SL_F, i);
		r[54] = 0x80 | 4;	/* selector "exactly", MTU 2048 */
		r[55] = 0x80 | 7;	/* 40 Gb/s */
	}
	return IB_SA_DATA_OFFS + n * REC;
}

/*
 * A GetTable answer as the kernel reassembles it: the RMPP header of its
 * first segment, LAST too when it is the only one, and the PayloadLength
 * Linux gives it, the SA header's tail counted once per segment.
 */
static size_t table(int n)
{
	size_t len = answer(IB_MAD_METHOD_GET_TABLE, n);
	int segs = n * REC > SEG_DATA ? (n * REC + SEG_DATA - 1) / SEG_DATA : 1;

	mad[RMPP_FLAGS_BYTE] = segs == 1 ? 0x07 : 0x03;	/* active, first, last */
	mad_set_field(mad, 0, IB_SA_RMPP_LEN_F, n * REC + segs * PAY_EXTRA);
	return len;
}

static void test_table(void)
{
	size_t len = table(5);
	int i;

	CU_ASSERT_EQUAL(lf_sa_parse(mad, len, got, NULL), 5);
	CU_ASSERT_EQUAL_FATAL(seen.n, 5);
	for (i = 0; i < 5; i++) {
		CU_ASSERT_EQUAL(seen.slid[i], 1);
		CU_ASSERT_EQUAL(seen.dlid[i], 10u + i);
		CU_ASSERT_EQUAL(seen.p[i].sl, (unsigned int)i);
		CU_ASSERT_EQUAL(seen.p[i].mtu, 4);
		CU_ASSERT_EQUAL(seen.p[i].rate, 7);
	}
	/* One segment padded to a whole MAD: its PayloadLength counts. */
	table(1);
	CU_ASSERT_EQUAL(lf_sa_parse(mad, IB_SA_DATA_OFFS + 3 * REC, got, NULL),
			1);
	/* No payload length: the records are what arrived. */
	len = table(3);
	mad_set_field(mad, 0, IB_SA_RMPP_LEN_F, 0);
	CU_ASSERT_EQUAL(lf_sa_parse(mad, len, got, NULL), 3);
	/* An empty table is an answer, not an error. */
	len = table(0);
	CU_ASSERT_EQUAL(lf_sa_parse(mad, len, got, NULL), 0);
	CU_ASSERT_EQUAL(seen.n, 0);
}

/* One segment of a longer answer, as umad2sim alone hands it over. */
static void test_cut(void)
{
	size_t len = answer(IB_MAD_METHOD_GET_TABLE, 3);

	mad[RMPP_FLAGS_BYTE] = 0x01;	/* active only: never reassembled */
	CU_ASSERT_EQUAL(lf_sa_parse(mad, len, got, NULL), -EMSGSIZE);
	CU_ASSERT_EQUAL(seen.n, 0);
	/* The first segment of several, as a client without RMPP gets it. */
	table(8);
	CU_ASSERT_EQUAL(lf_sa_parse(mad, IB_MAD_SIZE, got, NULL), -EMSGSIZE);
	CU_ASSERT_EQUAL(seen.n, 0);
	/* One segment whose payload length is beyond what arrived. */
	len = table(3);
	mad_set_field(mad, 0, IB_SA_RMPP_LEN_F, 8 * REC + PAY_EXTRA);
	CU_ASSERT_EQUAL(lf_sa_parse(mad, len, got, NULL), -EMSGSIZE);
	CU_ASSERT_EQUAL(seen.n, 0);
}

static void test_get(void)
{
	size_t len = answer(IB_MAD_METHOD_GET, 1);

	CU_ASSERT_EQUAL(lf_sa_parse(mad, len, got, NULL), 1);
	CU_ASSERT(seen.n == 1 && seen.dlid[0] == 10 && seen.p[0].sl == 0);
	/* On hardware the record comes in a whole MAD, zeros after it. */
	answer(IB_MAD_METHOD_GET, 1);
	CU_ASSERT_EQUAL(lf_sa_parse(mad, IB_MAD_SIZE, got, NULL), 1);
	CU_ASSERT(seen.n == 1 && seen.slid[0] == 1 && seen.dlid[0] == 10);
	/* An error status: no such path. */
	len = answer(IB_MAD_METHOD_GET, 0);
	mad_set_field(mad, 0, IB_MAD_STATUS_F, 0x0300);
	CU_ASSERT_EQUAL(lf_sa_parse(mad, len, got, NULL), -ENOENT);
	/* Busy is no answer: the query is asked again. */
	mad_set_field(mad, 0, IB_MAD_STATUS_F, 0x0001);
	CU_ASSERT_EQUAL(lf_sa_parse(mad, len, got, NULL), -EBUSY);
}

static void test_bad(void)
{
	size_t len = answer(IB_MAD_METHOD_GET, 1);

	mad_set_field(mad, 0, IB_MAD_RESPONSE_F, 0);
	CU_ASSERT_EQUAL(lf_sa_parse(mad, len, got, NULL), -EPROTO);
	len = answer(IB_MAD_METHOD_GET, 1);
	mad_set_field(mad, 0, IB_MAD_ATTRID_F, IB_SA_ATTR_NODERECORD);
	CU_ASSERT_EQUAL(lf_sa_parse(mad, len, got, NULL), -EPROTO);
	len = answer(IB_MAD_METHOD_GET, 1);
	mad_set_field(mad, 0, IB_SA_ATTROFFS_F, 4);	/* 32-byte records */
	CU_ASSERT_EQUAL(lf_sa_parse(mad, len, got, NULL), -EPROTO);
	CU_ASSERT_EQUAL(lf_sa_parse(mad, IB_SA_DATA_OFFS - 1, got, NULL),
			-EPROTO);
	CU_ASSERT_EQUAL(seen.n, 0);
}

/* The callback's non-zero return ends the walk with it. */
static void test_stop(void)
{
	size_t len = table(5);

	seen.stop_at = 2;
	CU_ASSERT_EQUAL(lf_sa_parse(mad, len, got, NULL), -ECANCELED);
	CU_ASSERT_EQUAL(seen.n, 2);
}

TU_SUITE(lfsa,
	 { "whole GetTable", test_table },
	 { "cut GetTable", test_cut },
	 { "Get and error status", test_get },
	 { "not a PathRecord answer", test_bad },
	 { "callback stops", test_stop });
