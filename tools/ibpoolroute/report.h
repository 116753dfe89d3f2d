/* SPDX-License-Identifier: MIT */
/*
 * ibpoolroute's routing report, the one analyze, route and verify print,
 * and the live findings verify adds to it.
 */
#ifndef GPUAWARE_IBPOOLROUTE_REPORT_H
#define GPUAWARE_IBPOOLROUTE_REPORT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "routing/jobload.h"
#include "routing/route.h"
#include "routing/verify.h"

/*
 * What verify read from the live fabric and what it found beyond the
 * verifier: counts, timings and the first problem, for the report.
 */
struct pr_live {
	const char *ca;		/* -C as given (borrowed), NULL for the first */
	unsigned int port;	/* local port used */
	char source[128];
	unsigned int sm_lid;
	uint64_t smps;		/* SMPs sent: LFT blocks and SL2VL tables */
	uint64_t smps_resent;	/* of them, sent again: unanswered in time */
	unsigned int smp_window;	/* SMPs in flight */
	double smp_seconds;
	bool sa_table;		/* GetTables per source, else Gets per pair */
	bool sa_table_cut;	/* GetTable answers came cut: asked per pair */
	uint64_t sa_queries;	/* PathRecord GetTables or Gets answered */
	double sa_seconds;
	uint64_t pairs;		/* CA LID pairs the cabling joins */
	uint64_t sa_pairs;	/* of those, pairs asked about */
	uint16_t sl_mask;	/* bit per SL the SA handed out */
	uint64_t sl2vl_tables;	/* read from switches and CAs */
	uint64_t no_sl_map;	/* ports without SL mapping: all on VL 0 */
	uint32_t short_lft;	/* switches whose LinearFDBTop is below the top LID */
	/* problems: any of these fails the check */
	uint64_t inactive;	/* linked ports not Active */
	uint64_t no_path;	/* joined CA LID pairs without a PathRecord */
	uint64_t vl_drops;	/* SL2VL entries in use onto a VL the port lacks */
	uint64_t missing;	/* lookups of data that was not read */
	char first[256];	/* the first problem, "" for none */
};

/* True when the live data shows none of pr_live's problems. */
bool pr_live_ok(const struct pr_live *r);

/* What a routing check found, for pr_report(); all borrowed. */
struct pr_result {
	const char *source;		/* dump directory or fabric file */
	const struct rt_tables *tables;	/* tables->fab is the fabric */
	const struct rt_summary *route;	/* NULL when not routed here */
	const char *sl2vl;		/* SL2VL file used, NULL for none */
	const struct vf_opts *vo;
	const struct vf_report *vr;
	const struct pr_live *live;	/* verify only, else NULL */
	const struct rt_jobs *jobs;	/* --jobs, else NULL */
	bool jobs_routed;		/* route used them (not --measure-only) */
	const struct vf_jobload *jobload; /* their loads, with jobs */
};

/* Print r as aligned "key : value" lines or as one JSON object. */
int pr_report(FILE *out, const struct pr_result *r, bool json);

/*
 * A report printed to stdout with result ret (0 or a negative errno):
 * flushed, 0, or the error with "cannot write the report: why" in err.
 * The one way analyze, route, verify and counters end their output.
 */
int pr_report_written(int ret, char *err, size_t len);

#endif
