/* SPDX-License-Identifier: MIT */
/*
 * ibpoold's metrics in Prometheus' text format, served on the TCP
 * listener as GET /metrics (sm/server.h): the pool, the relay, the
 * journal's syncs, the requests per operation and the link loads.
 */
#ifndef GPUAWARE_POOL_METRICS_H
#define GPUAWARE_POOL_METRICS_H

#include <stddef.h>

struct poold;

/*
 * The sm_server_config http callback; ctx is the struct poold.  GET
 * /metrics gives the page, other paths -ENOENT.  Takes the pool's lock
 * for the state it reads.
 */
int poold_metrics_http(void *ctx, const char *path, char **body,
		       size_t *len);

#endif
