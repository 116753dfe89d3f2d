/* SPDX-License-Identifier: MIT */
/*
 * ibpoolroute's private face: the parsed command line every subcommand
 * gets, and the one report analyze and route both print.
 */
#ifndef GPUAWARE_IBPOOLROUTE_H
#define GPUAWARE_IBPOOLROUTE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "routing/route.h"
#include "routing/verify.h"

/* Exit codes, as infiniband-diags use them. */
enum {
	PR_OK = 0,		/* the routing checks out */
	PR_BAD = 1,		/* it does not */
	PR_ERR = 2,		/* usage, input or internal error */
};

/* Strings point into argv. */
struct pr_opts {
	const char *dir;	/* analyze: dump directory */
	const char *net;	/* route: fabric file */
	enum rt_engine_id engine;
	unsigned int lmc;
	bool ext_lids;		/* route: LIDs past 0xbfff, for scale runs */
	bool json;
	struct vf_opts vf;
};

/*
 * Subcommands return an exit code; on PR_ERR err holds one line (no
 * program name, no newline) that main prints.
 */
int pr_analyze(const struct pr_opts *o, char *err, size_t len);
int pr_route(const struct pr_opts *o, char *err, size_t len);

/* What a routing check found, for pr_report(); all borrowed. */
struct pr_result {
	const char *source;		/* dump directory or fabric file */
	const struct rt_tables *t;	/* t->fab is the fabric */
	const struct rt_summary *route;	/* NULL when not routed here */
	const char *sl2vl;		/* SL2VL file used, NULL for none */
	const struct vf_opts *vo;
	const struct vf_report *vr;
};

/* Print r as aligned "key : value" lines or as one JSON object. */
int pr_report(FILE *out, const struct pr_result *r, bool json);

#endif
