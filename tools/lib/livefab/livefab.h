/* SPDX-License-Identifier: MIT */
/*
 * The live fabric as the tools see it through libibnetdisc and libibmad:
 * discovery into a struct fabric, the switches' LFTs and SL2VL tables by
 * directed route, the SA's PathRecords.
 */
#ifndef GPUAWARE_LIVEFAB_H
#define GPUAWARE_LIVEFAB_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "routing/lft.h"
#include "tools/lib/livefab/lfcounters.h"

/*
 * One local port and what was read through it.  Not thread safe: libibmad
 * keeps global state (its default port, timeouts, transaction IDs), and
 * umad2sim hands each management class to one open port per process, so a
 * process uses one handle from one thread.
 */
struct lf;

/* What the reads cost, for reports; counts grow over the handle's life. */
struct lf_stats {
	uint64_t smps;		/* SMP Gets: LFT blocks, SL2VL tables */
	uint64_t smps_resent;	/* of them sent again, unanswered in time */
	uint64_t sa_queries;	/* PathRecord Gets */
	uint64_t sl2vl_tables;	/* SL2VL tables read */
	uint64_t no_sl_map;	/* ports without SL mapping: all on VL 0 */
	uint32_t short_lft;	/* switches with LinearFDBTop below the top LID */
	double discover_seconds;	/* the last lf_discover() */
};

/*
 * Error-returning calls put one line (no newline) into err and return a
 * negative errno.  ca NULL means the first CA, port 0 its first active
 * port.  Nothing is sent until lf_discover().  *out is owned by the
 * caller and released with lf_close().
 */
int lf_open(struct lf **out, const char *ca, unsigned int port, char *err,
	    size_t len);
void lf_close(struct lf *v);

/*
 * Discover the fabric again, dropping everything read before: the fabric,
 * tables and tables' LID maps are rebuilt, LFT rows all RT_NO_PATH and
 * every SL2VL entry unread.  The MAD port is closed during discovery
 * (ibnetdisc opens its own) and reopened after.
 */
int lf_discover(struct lf *v, char *err, size_t len);

/*
 * The discovered fabric and its tables, owned by v and valid until the
 * next lf_discover() or lf_close().  Fabric node indices follow
 * ibnetdisc's node list; the caller may set the tables' vl.
 */
const struct fabric *lf_fabric(const struct lf *v);
struct rt_tables *lf_tables(struct lf *v);

/* The CA as asked, NULL for the first. */
const char *lf_ca_name(const struct lf *v);
/* "live fabric via 'DESC' port N", and the local port number used. */
const char *lf_source(const struct lf *v);
unsigned int lf_local_port(const struct lf *v);
const struct lf_stats *lf_stats(const struct lf *v);

/* PortInfo of node n's port p as discovery saw it: state Active. */
bool lf_port_active(const struct lf *v, uint32_t n, unsigned int p);
/* Data VLs the port operates (PortInfo:OperVLs); 1 when unknown. */
unsigned int lf_oper_vls(const struct lf *v, uint32_t n, unsigned int p);

/*
 * fn is called as the reads below go, after each SMP answered, with
 * what is read ("LFT blocks", "SL2VL tables"), how many are done and of
 * how many: for progress lines.  NULL, the default, for none; ctx is the
 * caller's.
 */
void lf_set_progress(struct lf *v,
		     void (*fn)(void *ctx, const char *what, size_t done,
				size_t total),
		     void *ctx);

/*
 * SMPs in flight during the reads below, 1 to LF_WIN_MAX (64); default
 * LF_SMP_WINDOW.  A Get unanswered in time is sent again (three times);
 * one never answered fails the read, naming it.
 */
#define LF_SMP_WINDOW 8
void lf_set_smp_window(struct lf *v, unsigned int window);

/* Every switch's LFT, up to its LinearFDBTop, into the tables. */
int lf_read_lfts(struct lf *v, char *err, size_t len);

/*
 * The SL2VL table of every pair of linked switch ports and of every
 * linked CA port.  A port that refuses it and does not claim SL mapping
 * sends every SL on VL 0 (IBA); any other failure is an error.
 */
int lf_read_sl2vl(struct lf *v, char *err, size_t len);

/*
 * The VL node n maps SL sl to when sending out of port out, having
 * received on port in (switches; a CA's in is ignored).  -ENOENT when that
 * table was not read, -EINVAL out of range.  With slot non-NULL it gets a
 * dense index below lf_sl2vl_slots(), for callers' per-entry state.
 */
int lf_sl2vl(const struct lf *v, uint32_t n, unsigned int in,
	     unsigned int out, unsigned int sl, size_t *slot);
size_t lf_sl2vl_slots(const struct lf *v);

/* The SM's LID as the local port knows it: -EIO when none is set. */
int lf_sm_lid(struct lf *v, unsigned int *lid);

/* A PathRecord's fields; mtu and rate in the IBA's encodings. */
struct lf_path {
	unsigned int sl;
	unsigned int mtu;	/* 1 256, 2 512, 3 1024, 4 2048, 5 4096 */
	unsigned int rate;	/* e.g. 2 2.5, 3 10, 6 30, 7 40 Gb/s */
};

/*
 * A PathRecord Get for (slid, dlid) from the SA at the SM's LID: 0 with
 * *p, -ENOENT when the SA answers with an error status, -EPROTO for a
 * record of another pair, another negative errno when it does not answer.
 */
int lf_path_record(struct lf *v, unsigned int slid, unsigned int dlid,
		   struct lf_path *p);

/*
 * A PathRecord query's record (rec: its 64 bytes, zeroed by the caller)
 * for SLID slid and, unless dlid is 0, DLID dlid: their fields set, the
 * component mask returned.
 */
uint64_t lf_path_encode(uint8_t *rec, unsigned int slid, unsigned int dlid);

/* One PathRecord as the SA sends it (rec: its 64 bytes) decoded. */
void lf_path_decode(const uint8_t *rec, unsigned int *slid,
		    unsigned int *dlid, struct lf_path *p);

/*
 * One sample of PortXmitData and PortXmitWait of every switch port cabled
 * to a switch or CA, from each switch's PMA at its LID: ClassPortInfo,
 * then PortCounters per port and PortCountersExtended where ClassPortInfo
 * offers it.  A switch that does not answer goes into s->fail, its links
 * out of the sample, and the sweep goes on.  *s is the caller's, freed with
 * lf_sample_release(); returns 0 or -ENOMEM.
 */
int lf_read_counters(struct lf *v, struct lf_sample *s, char *err,
		     size_t len);

#endif
