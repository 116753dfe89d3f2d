// SPDX-License-Identifier: MIT
/*
 * Load generator for ibpoold's socket: N client threads, each on its own
 * connection, send one request, wait for its reply, and repeat for a
 * fixed time.  "place" sends placement queries; "alloc" sends alloc and
 * release pairs (each thread for its own client host), "share" the same
 * of GPUS milli-GPUs each; "list" job.list,
 * the floor of the socket itself.  Prints requests per second and
 * latency percentiles.
 * usage: poold-load SOCKET place|alloc|share|list CLIENTS SECONDS [GPUS [PER_HOST]]
 */
#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "topology/monotime.h"

#define MAX_SAMPLES (1 << 22)	/* per thread */

struct worker {
	pthread_t th;
	unsigned int no;
	double *lat;		/* seconds, one per request */
	size_t n;
	uint64_t pairs;		/* alloc mode: alloc + release pairs */
	uint64_t errors;
	char first_error[256];
};

static const char *sock_path, *mode;
static unsigned int gpus = 32, per_host = 8;
static double stop_at;

static int dial(void)
{
	struct sockaddr_un a = { .sun_family = AF_UNIX };
	int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);

	if (fd < 0)
		return -errno;
	snprintf(a.sun_path, sizeof(a.sun_path), "%s", sock_path);
	if (connect(fd, (struct sockaddr *)&a, sizeof(a))) {
		close(fd);
		return -errno;
	}
	return fd;
}

/* Send line, read one reply line into buf; its latency in *lat. */
static int ask(int fd, const char *line, char *buf, size_t len, double *lat)
{
	size_t n = strlen(line), got = 0;
	double t0 = mono_s();
	ssize_t r;

	while (n) {
		r = write(fd, line, n);
		if (r <= 0)
			return -EIO;
		line += r;
		n -= r;
	}
	for (;;) {
		if (got + 1 >= len)
			return -EMSGSIZE;
		r = read(fd, buf + got, len - 1 - got);
		if (r <= 0)
			return -EIO;
		got += r;
		if (buf[got - 1] == '\n')
			break;
	}
	buf[got] = '\0';
	*lat = mono_s() - t0;
	return 0;
}

static void record(struct worker *w, double lat, const char *reply)
{
	if (w->n < MAX_SAMPLES)
		w->lat[w->n++] = lat;
	if (!strncmp(reply, "{\"ok\":true", 10))
		return;
	if (!w->errors++)
		snprintf(w->first_error, sizeof(w->first_error), "%s", reply);
}

static void *run(void *arg)
{
	struct worker *w = arg;
	char req[256], buf[65536], *id;
	double lat;
	int fd = dial();

	if (fd < 0) {
		w->errors++;
		snprintf(w->first_error, sizeof(w->first_error), "connect: %s",
			 strerror(-fd));
		return NULL;
	}
	while (mono_s() < stop_at) {
		if (strcmp(mode, "alloc") && strcmp(mode, "share")) {
			if (!strcmp(mode, "place"))
				snprintf(req, sizeof(req), "{\"op\":\"place\",\"gpus\":%u,\"gpus_per_host\":%u}\n",
					 gpus, per_host);
			else
				snprintf(req, sizeof(req), "{\"op\":\"job.list\"}\n");
			if (ask(fd, req, buf, sizeof(buf), &lat))
				break;
			record(w, lat, buf);
			continue;
		}
		snprintf(req, sizeof(req), "{\"op\":\"alloc\",\"client\":\"node%04u\",\"%s\":%u}\n",
			 w->no + 1, strcmp(mode, "share") ? "gpus" : "gpu_milli",
			 gpus);
		if (ask(fd, req, buf, sizeof(buf), &lat))
			break;
		record(w, lat, buf);
		id = strstr(buf, "\"id\":\"");
		if (!id)
			continue;
		snprintf(req, sizeof(req), "{\"op\":\"release\",\"id\":\"%.*s\"}\n",
			 (int)strcspn(id + 6, "\""), id + 6);
		if (ask(fd, req, buf, sizeof(buf), &lat))
			break;
		record(w, lat, buf);
		w->pairs++;
	}
	close(fd);
	return NULL;
}

static int cmp_dbl(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

int main(int argc, char **argv)
{
	unsigned int nw, i;
	double secs, t0, el;
	struct worker *w;
	double *all;
	size_t n = 0, k;
	uint64_t pairs = 0, errors = 0;

	if (argc < 5 || argc > 7 ||
	    (strcmp(argv[2], "place") && strcmp(argv[2], "alloc") &&
	     strcmp(argv[2], "list") && strcmp(argv[2], "share"))) {
		fprintf(stderr, "usage: poold-load SOCKET place|alloc|share|list CLIENTS SECONDS [GPUS [PER_HOST]]\n");
		return 2;
	}
	sock_path = argv[1];
	mode = argv[2];
	nw = strtoul(argv[3], NULL, 10);
	secs = strtod(argv[4], NULL);
	if (argc > 5)
		gpus = strtoul(argv[5], NULL, 10);
	if (argc > 6)
		per_host = strtoul(argv[6], NULL, 10);
	if (!nw || nw > 64 || secs <= 0 || !gpus || !per_host) {
		fprintf(stderr, "poold-load: bad arguments\n");
		return 2;
	}
	w = calloc(nw, sizeof(*w));
	if (!w)
		return 1;
	t0 = mono_s();
	stop_at = t0 + secs;
	for (i = 0; i < nw; i++) {
		w[i].no = i;
		w[i].lat = malloc(MAX_SAMPLES * sizeof(double));
		if (!w[i].lat || pthread_create(&w[i].th, NULL, run, &w[i])) {
			fprintf(stderr, "poold-load: cannot start thread %u\n", i);
			return 1;
		}
	}
	for (i = 0; i < nw; i++) {
		pthread_join(w[i].th, NULL);
		n += w[i].n;
	}
	el = mono_s() - t0;
	all = malloc((n + 1) * sizeof(*all));
	if (!all)
		return 1;
	for (i = 0, k = 0; i < nw; i++) {
		memcpy(all + k, w[i].lat, w[i].n * sizeof(double));
		k += w[i].n;
		pairs += w[i].pairs;
		errors += w[i].errors;
		if (w[i].errors)
			fprintf(stderr, "poold-load: client %u: %" PRIu64 " errors, first: %s\n",
				i, w[i].errors, w[i].first_error);
		free(w[i].lat);
	}
	qsort(all, n, sizeof(*all), cmp_dbl);
	printf("%s: %u clients, %.1f s: %zu requests, %.0f requests/s",
	       mode, nw, el, n, n / el);
	if (!strcmp(mode, "alloc") || !strcmp(mode, "share"))
		printf(", %" PRIu64 " alloc+release pairs, %.0f pairs/s", pairs,
		       pairs / el);
	printf(", p50 %.3f ms, p99 %.3f ms, max %.3f ms, %" PRIu64 " errors\n",
	       n ? all[n / 2] * 1e3 : 0, n ? all[n * 99 / 100] * 1e3 : 0,
	       n ? all[n - 1] * 1e3 : 0, errors);
	free(all);
	free(w);
	return errors || !n ? 1 : 0;
}
