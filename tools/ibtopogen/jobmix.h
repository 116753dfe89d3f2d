/* SPDX-License-Identifier: MIT */
/* ibtopogen's jobs mode: seeded random job mixes for a fabric file. */
#ifndef GPUAWARE_JOBMIX_H
#define GPUAWARE_JOBMIX_H

/* argv[0] is "jobs"; returns ibtopogen's exit code (0, 1 I/O, 2 usage). */
int jobmix_main(int argc, char **argv);

#endif
