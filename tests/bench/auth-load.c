// SPDX-License-Identifier: MIT
/*
 * Load generator for requests as clients send them, one connection each
 * (sm_call_as(): ibpoolroute, the relay): N threads for a fixed time on
 * a Unix socket or a TCP endpoint, over TCP in a MUNGE credential when
 * munged answers.  "read" sends job.list, "write" job.start and job.end
 * pairs (each thread its own job on its own host).  Prints requests per
 * second and latency percentiles.
 * usage: auth-load ENDPOINT MUNGE_SOCKET read|write CLIENTS SECONDS [HOST...]
 */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "sm/client.h"
#include "sm/proto.h"
#include "topology/monotime.h"

#define MAX_SAMPLES (1 << 20)	/* per thread */

struct worker {
	pthread_t th;
	unsigned int no;
	double *lat;		/* seconds, one per request */
	size_t n;
	unsigned long errors;
	char first_error[256];
};

static const char *endpoint, *munge, *host_of[64];
static unsigned int nhosts;
static bool write_mode;
static double stop_at;

/* The i-th request of worker w. */
static json_object *request(const struct worker *w, size_t i)
{
	json_object *r = json_object_new_object(), *h;
	char job[32];

	if (!write_mode) {
		sm_json_add(r, "op", json_object_new_string("job.list"));
		return r;
	}
	snprintf(job, sizeof(job), "load-%u", w->no);
	sm_json_add(r, "op", json_object_new_string(i % 2 ? "job.end" :
						       "job.start"));
	sm_json_add(r, "job", json_object_new_string(job));
	if (i % 2)
		return r;
	h = json_object_new_array();
	json_object_array_add(h, json_object_new_string(
		host_of[w->no % nhosts]));
	sm_json_add(r, "hosts", h);
	return r;
}

static void *run(void *arg)
{
	struct worker *w = arg;
	json_object *req, *reply;
	char err[256];
	double t;
	size_t i;
	int ret;

	for (i = 0; w->n < MAX_SAMPLES && mono_s() < stop_at; i++) {
		req = request(w, i);
		t = mono_s();
		ret = sm_call_as(endpoint, munge, req, &reply, 5000, err,
				 sizeof(err));
		json_object_put(req);
		if (!ret && !json_object_get_boolean(
				json_object_object_get(reply, "ok"))) {
			snprintf(err, sizeof(err), "%s",
				 json_object_to_json_string(reply));
			ret = -EPROTO;
		}
		json_object_put(reply);
		if (ret) {
			if (!w->errors++)
				snprintf(w->first_error,
					 sizeof(w->first_error), "%s", err);
			continue;
		}
		w->lat[w->n++] = mono_s() - t;
	}
	return NULL;
}

static int cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

int main(int argc, char **argv)
{
	unsigned int clients, i;
	struct worker *w;
	unsigned long errors = 0;
	double secs, t0, el, *all;
	size_t n = 0, k;

	if (argc < 6 || (strcmp(argv[3], "read") && strcmp(argv[3], "write"))) {
		fprintf(stderr, "usage: auth-load ENDPOINT MUNGE_SOCKET read|write CLIENTS SECONDS [HOST...]\n");
		return 2;
	}
	endpoint = argv[1];
	munge = argv[2];
	write_mode = !strcmp(argv[3], "write");
	clients = atoi(argv[4]);
	secs = atof(argv[5]);
	for (i = 6; i < (unsigned int)argc && nhosts < 64; i++)
		host_of[nhosts++] = argv[i];
	if (!clients || secs <= 0 || (write_mode && !nhosts)) {
		fprintf(stderr, "auth-load: CLIENTS and SECONDS > 0, HOSTs for write\n");
		return 2;
	}
	w = calloc(clients, sizeof(*w));
	for (i = 0; w && i < clients; i++) {
		w[i].no = i;
		w[i].lat = malloc(MAX_SAMPLES * sizeof(double));
		if (!w[i].lat)
			return 1;
	}
	if (!w)
		return 1;
	t0 = mono_s();
	stop_at = t0 + secs;
	for (i = 0; i < clients; i++)
		pthread_create(&w[i].th, NULL, run, &w[i]);
	for (i = 0; i < clients; i++) {
		pthread_join(w[i].th, NULL);
		n += w[i].n;
		errors += w[i].errors;
	}
	el = mono_s() - t0;
	all = malloc((n + 1) * sizeof(*all));
	if (!all)
		return 1;
	for (i = 0, k = 0; i < clients; i++) {
		memcpy(all + k, w[i].lat, w[i].n * sizeof(double));
		k += w[i].n;
	}
	qsort(all, n, sizeof(*all), cmp);
	printf("%.0f %.3f %.3f %lu\n", n / el, n ? all[n / 2] * 1e3 : 0,
	       n ? all[n * 99 / 100] * 1e3 : 0, errors);
	for (i = 0; i < clients; i++)
		if (w[i].errors) {
			fprintf(stderr, "auth-load: %s\n", w[i].first_error);
			break;
		}
	for (i = 0; i < clients; i++)
		free(w[i].lat);
	free(w);
	free(all);
	return errors ? 1 : 0;
}
