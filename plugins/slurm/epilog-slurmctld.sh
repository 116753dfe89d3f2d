#!/bin/sh
# SPDX-License-Identifier: MIT
# EpilogSlurmctld hook: tells ibpoold a job ended (it releases the job's
# GPU allocations).  Always exits 0, logging trouble to syslog and to
# slurm-hooks.conf's log file.
"$(dirname "$0")/notify.sh" job.end ||
	logger -t gpuaware "epilog: $(dirname "$0")/notify.sh failed"
exit 0
