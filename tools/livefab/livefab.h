/* SPDX-License-Identifier: MIT */
/*
 * The live fabric as the tools see it through libibnetdisc and libibmad:
 * discovery into a struct fabric, the switches' LFTs and SL2VL tables by
 * directed route, the SA's PathRecords.
 */
#ifndef GPUAWARE_IBVIEW_H
#define GPUAWARE_IBVIEW_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "routing/lft.h"
#include "tools/livefab/lfcounters.h"

/*
 * One local port and what was read through it.  Not thread safe: libibmad
 * keeps global state (its default port, timeouts, transaction IDs), and
 * umad2sim hands each management class to one open port per process, so a
 * process uses one handle from one thread.
 */
struct ibv;

/* What the reads cost, for reports; counts grow over the handle's life. */
struct ibv_stats {
	uint64_t smps;		/* SMP Gets: LFT blocks, SL2VL tables */
	uint64_t sa_queries;	/* PathRecord Gets */
	uint64_t sl2vl_tables;	/* SL2VL tables read */
	uint64_t no_sl_map;	/* ports without SL mapping: all on VL 0 */
	uint32_t short_lft;	/* switches with LinearFDBTop below the top LID */
	double discover_seconds;	/* the last ibv_discover() */
};

/*
 * Error-returning calls put one line (no newline) into err and return a
 * negative errno.  ca NULL means the first CA, port 0 its first active
 * port.  Nothing is sent until ibv_discover().  *out is owned by the
 * caller and released with ibv_close().
 */
int ibv_open(struct ibv **out, const char *ca, unsigned int port, char *err,
	     size_t len);
void ibv_close(struct ibv *v);

/*
 * Discover the fabric again, dropping everything read before: the fabric,
 * tables and tables' LID maps are rebuilt, LFT rows all RT_NO_PATH and
 * every SL2VL entry unread.  The MAD port is closed during discovery
 * (ibnetdisc opens its own) and reopened after.
 */
int ibv_discover(struct ibv *v, char *err, size_t len);

/*
 * The discovered fabric and its tables, owned by v and valid until the
 * next ibv_discover() or ibv_close().  Fabric node indices follow
 * ibnetdisc's node list; the caller may set the tables' vl.
 */
const struct fabric *ibv_fabric(const struct ibv *v);
struct rt_tables *ibv_tables(struct ibv *v);

/* "live fabric via 'DESC' port N", and the local port number used. */
const char *ibv_source(const struct ibv *v);
unsigned int ibv_local_port(const struct ibv *v);
const struct ibv_stats *ibv_stats(const struct ibv *v);

/* PortInfo of node n's port p as discovery saw it: state Active. */
bool ibv_port_active(const struct ibv *v, uint32_t n, unsigned int p);
/* Data VLs the port operates (PortInfo:OperVLs); 1 when unknown. */
unsigned int ibv_oper_vls(const struct ibv *v, uint32_t n, unsigned int p);

/* Every switch's LFT, up to its LinearFDBTop, into the tables. */
int ibv_read_lfts(struct ibv *v, char *err, size_t len);

/*
 * The SL2VL table of every pair of linked switch ports and of every
 * linked CA port.  A port that refuses it and does not claim SL mapping
 * sends every SL on VL 0 (IBA); any other failure is an error.
 */
int ibv_read_sl2vl(struct ibv *v, char *err, size_t len);

/*
 * The VL node n maps SL sl to when sending out of port out, having
 * received on port in (switches; a CA's in is ignored).  -ENOENT when that
 * table was not read, -EINVAL out of range.  With slot non-NULL it gets a
 * dense index below ibv_sl2vl_slots(), for callers' per-entry state.
 */
int ibv_sl2vl(const struct ibv *v, uint32_t n, unsigned int in,
	      unsigned int out, unsigned int sl, size_t *slot);
size_t ibv_sl2vl_slots(const struct ibv *v);

/* The SM's LID as the local port knows it: -EIO when none is set. */
int ibv_sm_lid(struct ibv *v, unsigned int *lid);

/* A PathRecord's fields; mtu and rate in the IBA's encodings. */
struct ibv_path {
	unsigned int sl;
	unsigned int mtu;	/* 1 256, 2 512, 3 1024, 4 2048, 5 4096 */
	unsigned int rate;	/* e.g. 2 2.5, 3 10, 6 30, 7 40 Gb/s */
};

/*
 * A PathRecord Get for (slid, dlid) from the SA at the SM's LID: 0 with
 * *p, -ENOENT when the SA answers with an error status, -EPROTO for a
 * record of another pair, another negative errno when it does not answer.
 */
int ibv_path_record(struct ibv *v, unsigned int slid, unsigned int dlid,
		    struct ibv_path *p);

/*
 * One sample of PortXmitData and PortXmitWait of every switch port cabled
 * to a switch or CA, from each switch's PMA at its LID: ClassPortInfo,
 * then PortCounters per port and PortCountersExtended where ClassPortInfo
 * offers it.  A switch that does not answer goes into s->fail, its links
 * out of the sample, and the sweep goes on.  *s is the caller's, freed with
 * ibv_sample_release(); returns 0 or -ENOMEM.
 */
int ibv_read_counters(struct ibv *v, struct ibv_sample *s, char *err,
		      size_t len);

#endif
