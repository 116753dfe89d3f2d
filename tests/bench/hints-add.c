// SPDX-License-Identifier: MIT
/*
 * hints-add DIR [JOBS] [HOSTS]: JOBS (4,096) hints.add requests of HOSTS
 * (16) hosts each, one at a time, into a table saved in DIR, as a relay
 * keeping a full plugin in step does.  Prints "jobs seconds last-ms": the
 * whole run, and the mean of the last 256 adds in ms.
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "sm/hints.h"

static double now(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec + t.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
	int jobs = argc > 2 ? atoi(argv[2]) : SM_HINTS_MAX_JOBS;
	int hosts = argc > 3 ? atoi(argv[3]) : 16;
	double t0, tl = 0;
	struct sm_hints *h;
	struct sm_error e;
	json_object *req;
	char line[64];
	int i, k;

	if (argc < 2 || argc > 4 || jobs < 1 || hosts < 1) {
		fprintf(stderr, "usage: hints-add DIR [JOBS] [HOSTS]\n");
		return 2;
	}
	if (sm_hints_new(argv[1], NULL, NULL, &h))
		return 1;
	t0 = now();
	for (i = 0; i < jobs; i++) {
		json_object *job = json_object_new_object();
		json_object *hs = json_object_new_array();

		for (k = 0; k < hosts; k++) {
			snprintf(line, sizeof(line), "gpu%05d", i * hosts + k);
			json_object_array_add(hs, json_object_new_string(line));
		}
		snprintf(line, sizeof(line), "job%d", i);
		json_object_object_add(job, "id", json_object_new_string(line));
		json_object_object_add(job, "hosts", hs);
		req = json_object_new_object();
		json_object_object_add(req, "job", job);
		if (i == jobs - 256 || (jobs < 256 && !i))
			tl = now();
		if (sm_hints_add(h, req, NULL, &e)) {
			fprintf(stderr, "hints-add: job %d: %s\n", i, e.msg);
			return 1;
		}
		json_object_put(req);
	}
	printf("%d %.2f %.2f\n", jobs, now() - t0,
	       (now() - tl) * 1e3 / (jobs < 256 ? jobs : 256));
	sm_hints_free(h);
	return 0;
}
