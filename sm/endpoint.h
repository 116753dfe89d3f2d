/* SPDX-License-Identifier: MIT */
/*
 * TCP endpoints as the server listens on them and the client dials them:
 * "[ADDR:]PORT" parsed (a client's ADDR may be a host name), named and
 * judged local or not.
 */
#ifndef GPUAWARE_SM_ENDPOINT_H
#define GPUAWARE_SM_ENDPOINT_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/socket.h>

#define SM_ADDR_LEN 64		/* "[v6 address]:port" and its '\0' */

/*
 * A TCP endpoint "[ADDR:]PORT": ADDR a numeric IPv4 address or a
 * bracketed IPv6 one ("[::1]"), 127.0.0.1 when left out; PORT 0..65535.
 * Returns 0 with *a and *alen set, or -EINVAL.
 */
int sm_tcp_parse(const char *s, struct sockaddr_storage *a, socklen_t *alen);

/*
 * For clients: as sm_tcp_parse(), and ADDR may also be a host name
 * ("HOST:PORT"), resolved by getaddrinfo() (which may wait on DNS), the
 * first address it gives.  Returns 0, -EINVAL for a bad endpoint or
 * -EHOSTUNREACH for a name that does not resolve, with err saying why.
 */
int sm_tcp_resolve(const char *s, struct sockaddr_storage *a, socklen_t *alen,
		   char *err, size_t len);

/* Whether s is an endpoint sm_tcp_resolve() may take (nothing resolved). */
bool sm_tcp_valid(const char *s);

/* Whether a reaches this host only (127.0.0.0/8, ::1, mapped 127/8). */
bool sm_tcp_loopback(const struct sockaddr_storage *a);

/* a as "ADDR:PORT" ("[ADDR]:PORT" for IPv6) into buf. */
void sm_tcp_name(const struct sockaddr_storage *a, char *buf, size_t len);

#endif
