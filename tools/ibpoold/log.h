/* SPDX-License-Identifier: MIT */
/*
 * ibpoold's log: lines on stderr, with the "<N>" priority prefix when
 * systemd's journal reads them (JOURNAL_STREAM set), or to syslog once
 * the daemon has detached.  Safe from any thread.
 */
#ifndef GPUAWARE_POOL_LOG_H
#define GPUAWARE_POOL_LOG_H

#include <stdbool.h>
#include <syslog.h>

/* From here on log to syslog (true) or stderr (false, the start). */
void poold_log_syslog(bool on);

/* One line at priority prio (LOG_ERR, LOG_WARNING, LOG_INFO, ...). */
__attribute__((format(printf, 2, 3)))
void poold_log(int prio, const char *fmt, ...);

#endif
