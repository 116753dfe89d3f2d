// SPDX-License-Identifier: MIT
/* TCP endpoints: "[ADDR:]PORT" to a socket address and back. */
#include <arpa/inet.h>
#include <errno.h>
#include <netdb.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "endpoint.h"

int sm_tcp_parse(const char *str, struct sockaddr_storage *a,
		 socklen_t *alen)
{
	struct sockaddr_in6 *v6 = (struct sockaddr_in6 *)a;
	struct sockaddr_in *v4 = (struct sockaddr_in *)a;
	const char *port = strrchr(str, ':'), *host = str;
	char buf[INET6_ADDRSTRLEN];
	size_t n;
	unsigned long v;
	char *end;

	memset(a, 0, sizeof(*a));
	if (!port) {
		port = str;
		host = "127.0.0.1";
		n = strlen(host);
	} else {
		n = port++ - str;
	}
	if (*host == '[') {
		/* "[v6]:": the brackets must close right before the colon */
		if (n < 2 || host[n - 1] != ']')
			return -EINVAL;
		host++;
		n -= 2;
	}
	if (!n || n >= sizeof(buf) || *port < '0' || *port > '9')
		return -EINVAL;
	errno = 0;
	v = strtoul(port, &end, 10);
	if (errno || *end || v > 65535)
		return -EINVAL;
	memcpy(buf, host, n);
	buf[n] = '\0';
	if (host == str + 1 && inet_pton(AF_INET6, buf, &v6->sin6_addr) == 1) {
		v6->sin6_family = AF_INET6;
		v6->sin6_port = htons(v);
		*alen = sizeof(*v6);
		return 0;
	}
	if (host != str + 1 && inet_pton(AF_INET, buf, &v4->sin_addr) == 1) {
		v4->sin_family = AF_INET;
		v4->sin_port = htons(v);
		*alen = sizeof(*v4);
		return 0;
	}
	return -EINVAL;
}

/*
 * s as HOST:PORT: the host into host (hlen bytes), *port at its digits.
 * 0, or -EINVAL when s is not that.
 */
static int split_host(const char *s, char *host, size_t hlen,
		      const char **port)
{
	const char *colon = strrchr(s, ':');
	size_t n = colon ? (size_t)(colon - s) : 0, d;

	if (!n || n >= hlen || *s == '[')
		return -EINVAL;
	d = strspn(colon + 1, "0123456789");
	if (!d || d > 5 || colon[1 + d] || atoi(colon + 1) > 65535)
		return -EINVAL;
	memcpy(host, s, n);
	host[n] = '\0';
	*port = colon + 1;
	return 0;
}

bool sm_tcp_valid(const char *s)
{
	struct sockaddr_storage a;
	const char *port;
	char host[256];
	socklen_t al;

	return !sm_tcp_parse(s, &a, &al) ||
	       !split_host(s, host, sizeof(host), &port);
}

int sm_tcp_resolve(const char *str, struct sockaddr_storage *a,
		   socklen_t *alen, char *err, size_t len)
{
	struct addrinfo hints = {
		.ai_family = AF_UNSPEC,
		.ai_socktype = SOCK_STREAM,
		.ai_flags = AI_NUMERICSERV,
	};
	struct addrinfo *res;
	const char *port;
	char host[256];
	int ret;

	if (!sm_tcp_parse(str, a, alen))
		return 0;
	if (split_host(str, host, sizeof(host), &port)) {
		snprintf(err, len, "%s: not [ADDR:]PORT or HOST:PORT", str);
		return -EINVAL;
	}
	ret = getaddrinfo(host, port, &hints, &res);
	if (ret) {
		snprintf(err, len, "%s: %s: %s", str, host, gai_strerror(ret));
		return -EHOSTUNREACH;
	}
	memcpy(a, res->ai_addr, res->ai_addrlen);
	*alen = res->ai_addrlen;
	freeaddrinfo(res);
	return 0;
}

bool sm_tcp_loopback(const struct sockaddr_storage *a)
{
	const struct sockaddr_in6 *v6 = (const struct sockaddr_in6 *)a;
	const struct sockaddr_in *v4 = (const struct sockaddr_in *)a;
	const uint8_t *b = v6->sin6_addr.s6_addr;

	if (a->ss_family == AF_INET)
		return (ntohl(v4->sin_addr.s_addr) >> 24) == 127;
	if (a->ss_family != AF_INET6)
		return false;
	return IN6_IS_ADDR_LOOPBACK(&v6->sin6_addr) ||
	       (IN6_IS_ADDR_V4MAPPED(&v6->sin6_addr) && b[12] == 127);
}

void sm_tcp_name(const struct sockaddr_storage *a, char *buf, size_t len)
{
	const struct sockaddr_in6 *v6 = (const struct sockaddr_in6 *)a;
	const struct sockaddr_in *v4 = (const struct sockaddr_in *)a;
	char h[INET6_ADDRSTRLEN] = "?";

	if (a->ss_family == AF_INET6) {
		inet_ntop(AF_INET6, &v6->sin6_addr, h, sizeof(h));
		snprintf(buf, len, "[%s]:%u", h, ntohs(v6->sin6_port));
	} else {
		inet_ntop(AF_INET, &v4->sin_addr, h, sizeof(h));
		snprintf(buf, len, "%s:%u", h, ntohs(v4->sin_port));
	}
}
