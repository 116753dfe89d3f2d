// SPDX-License-Identifier: MIT
/*
 * One log line per call, written with a single fprintf so lines from the
 * server, relay and main threads never interleave within a line.
 */
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>

#include "log.h"

/* Switched once, after the daemon detached, while threads log. */
static atomic_bool use_syslog;

void poold_log_syslog(bool on)
{
	if (on && !use_syslog)
		openlog("ibpoold", LOG_PID, LOG_DAEMON);
	use_syslog = on;
}

void poold_log(int prio, const char *fmt, ...)
{
	char msg[1024];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (use_syslog)
		syslog(prio, "%s", msg);
	else if (getenv("JOURNAL_STREAM"))
		fprintf(stderr, "<%d>%s\n", prio, msg);
	else
		fprintf(stderr, "ibpoold: %s\n", msg);
}
