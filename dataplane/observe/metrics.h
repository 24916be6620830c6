/* SPDX-License-Identifier: BSD-3-Clause */
/* Prometheus metrics over HTTP (libmicrohttpd): podwired --metrics ADDR:PORT. */
#ifndef PODWIRE_OBSERVE_METRICS_H
#define PODWIRE_OBSERVE_METRICS_H

#include <stddef.h>
#include <sys/socket.h>

/* "127.0.0.1:9469", "[::1]:9469" into sa; -EINVAL with msg saying what is
 * wrong and what to give. Needs no EAL: options check it at once. */
int metrics_addr_parse(const char *text, struct sockaddr_storage *sa, char *msg, size_t len);
/* Serves /metrics on addr from a thread of its own; 0, or -errno with the
 * reason printed. */
int metrics_start(const char *addr);
void metrics_stop(void);

#endif
