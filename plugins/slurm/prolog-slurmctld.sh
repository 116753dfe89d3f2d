#!/bin/sh
# SPDX-License-Identifier: MIT
# PrologSlurmctld hook: tells ibpoold a job starts on its nodes, so the
# routing can favour it.  Always exits 0: a pool daemon that is down is
# logged (syslog, slurm-hooks.conf's log file), never a reason to fail
# the job.
"$(dirname "$0")/notify.sh" job.start ||
	logger -t gpuaware "prolog: $(dirname "$0")/notify.sh failed"
exit 0
