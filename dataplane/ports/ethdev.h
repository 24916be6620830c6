/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * What every ethdev-backed port kind shares (uplinks, and any kind made
 * from a DPDK PMD): a vdev under a name never used before, one queue pair
 * configured and started, link polling, and teardown. Control thread.
 */
#ifndef PODWIRE_PORTS_ETHDEV_H
#define PODWIRE_PORTS_ETHDEV_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <sys/types.h>

#include <rte_mempool.h>

/* Makes vdev "<prefix><n>" with args, n fresh each time: the name of a
 * closed device may linger in DPDK, so names are never reused. 0 with
 * *port_id and name filled, or -EIO (the PMD's reason is in the log). */
int ethdev_vdev_create(const char *prefix, const char *args, uint16_t *port_id, char *name,
		       size_t name_len);
/* Closes the ethdev and removes the vdev (stop it first if started). */
void ethdev_vdev_destroy(uint16_t port_id, const char *name);

/* Configures one rx and one tx queue of ring descriptors (rx buffers from
 * pool). 0 or a negative errno. */
int ethdev_configure(uint16_t port_id, uint16_t ring, struct rte_mempool *pool);
/* ethdev_configure, then start. 0 or a negative errno. */
int ethdev_start(uint16_t port_id, uint16_t ring, struct rte_mempool *pool);

/* The link as the PMD reports it, without waiting. false when unknown. */
bool ethdev_link_up(uint16_t port_id, bool *known);

/* The open sockets of address family domain (AF_PACKET, AF_XDP), at most
 * max, into fds; returns how many. PMDs do not say which sockets they
 * make, so workarounds for DPDK 22.11 find them this way. */
#define ETHDEV_MAX_SOCKETS 1024
unsigned int ethdev_sockets(int domain, int *fds, unsigned int max);

/* AF_XDP sockets, XDP program and XSK map fds a device made when it
 * started: net_af_xdp of DPDK 22.11 (with libxdp 1.3) leaves them open on
 * close (the queue stays taken until the socket is closed, and the other
 * two leak one fd each per device). */
#define ETHDEV_MAX_XSKS 40 /* 16 queues: a socket each, a program, maps */
struct ethdev_xsks {
	int n;
	int fd[ETHDEV_MAX_XSKS];
	ino_t ino[ETHDEV_MAX_XSKS]; /* the fd may be closed and reused by a fixed driver */
};
/* Calls start(arg) and records in x the AF_XDP fds that appeared
 * meanwhile. Returns what start returned. */
int ethdev_xsks_track(int (*start)(void *arg), void *arg, struct ethdev_xsks *x);
/* After the device is closed: closes the fds of x it left open. */
void ethdev_xsks_close(struct ethdev_xsks *x, const char *what);
/* Frames the kernel dropped on their way into the AF_XDP sockets of x
 * because podwired had not emptied the rx ring or refilled the fill ring
 * (XDP_STATISTICS rx_ring_full + rx_dropped), summed over the sockets,
 * since they were made: the kernel never resets these. Control thread. */
uint64_t ethdev_xsks_drops(const struct ethdev_xsks *x);

#endif
