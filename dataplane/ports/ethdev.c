/* SPDX-License-Identifier: BSD-3-Clause */
#include <dirent.h>
#include <linux/if_xdp.h>
#include <stddef.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include <rte_bus_vdev.h>
#include <rte_ethdev.h>

#include "core/log.h"
#include "ports/ethdev.h"

PW_LOG_TYPE("uplink");

int ethdev_vdev_create(const char *prefix, const char *args, uint16_t *port_id, char *name,
		       size_t name_len)
{
	static unsigned int seq;

	snprintf(name, name_len, "%s%u", prefix, seq++);
	if (rte_vdev_init(name, args) != 0)
		return -EIO;
	if (rte_eth_dev_get_port_by_name(name, port_id) != 0) {
		rte_vdev_uninit(name);
		return -EIO;
	}
	return 0;
}

void ethdev_vdev_destroy(uint16_t port_id, const char *name)
{
	rte_eth_dev_close(port_id);
	rte_vdev_uninit(name);
}

int ethdev_configure(uint16_t port_id, uint16_t ring, struct rte_mempool *pool)
{
	int sock = (int)rte_eth_dev_socket_id(port_id);
	unsigned int s = sock < 0 ? 0 : (unsigned int)sock;
	struct rte_eth_conf conf;
	int rc;

	memset(&conf, 0, sizeof(conf));
	rc = rte_eth_dev_configure(port_id, 1, 1, &conf);
	if (rc == 0)
		rc = rte_eth_rx_queue_setup(port_id, 0, ring, s, NULL, pool);
	if (rc == 0)
		rc = rte_eth_tx_queue_setup(port_id, 0, ring, s, NULL);
	return rc > 0 ? -rc : rc;
}

int ethdev_start(uint16_t port_id, uint16_t ring, struct rte_mempool *pool)
{
	int rc = ethdev_configure(port_id, ring, pool);

	if (rc == 0)
		rc = rte_eth_dev_start(port_id);
	return rc > 0 ? -rc : rc;
}

bool ethdev_link_up(uint16_t port_id, bool *known)
{
	struct rte_eth_link link;

	*known = rte_eth_link_get_nowait(port_id, &link) == 0;
	return *known && link.link_status == RTE_ETH_LINK_UP;
}

unsigned int ethdev_sockets(int domain, int *fds, unsigned int max)
{
	DIR *dir = opendir("/proc/self/fd");
	struct dirent *e;
	unsigned int n = 0;

	while (dir != NULL && n < max && (e = readdir(dir)) != NULL) {
		int fd = atoi(e->d_name), dom;
		socklen_t dl = sizeof(dom);

		if (e->d_name[0] != '.' && fd != dirfd(dir) &&
		    getsockopt(fd, SOL_SOCKET, SO_DOMAIN, &dom, &dl) == 0 && dom == domain)
			fds[n++] = fd;
	}
	if (dir != NULL)
		closedir(dir);
	return n;
}

#ifndef AF_XDP
#define AF_XDP 44
#endif

/* What net_af_xdp leaves open: AF_XDP sockets, and the XDP program's and
 * the XSK map's fds (libxdp 1.3). */
static bool fd_is_xdp(int fd)
{
	char path[64], link[64];
	int dom;
	socklen_t len = sizeof(dom);
	ssize_t n;

	if (getsockopt(fd, SOL_SOCKET, SO_DOMAIN, &dom, &len) == 0)
		return dom == AF_XDP;
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	n = readlink(path, link, sizeof(link) - 1);
	if (n <= 0)
		return false;
	link[n] = '\0';
	return strcmp(link, "anon_inode:bpf-map") == 0 || strcmp(link, "anon_inode:bpf-prog") == 0;
}

/* The open fds that fd_is_xdp, at most max. */
static unsigned int xdp_fds(int *fds, unsigned int max)
{
	DIR *dir = opendir("/proc/self/fd");
	struct dirent *e;
	unsigned int n = 0;

	while (dir != NULL && n < max && (e = readdir(dir)) != NULL) {
		int fd = atoi(e->d_name);

		if (e->d_name[0] != '.' && fd != dirfd(dir) && fd_is_xdp(fd))
			fds[n++] = fd;
	}
	if (dir != NULL)
		closedir(dir);
	return n;
}

int ethdev_xsks_track(int (*start)(void *arg), void *arg, struct ethdev_xsks *x)
{
	int before[ETHDEV_MAX_SOCKETS], after[ETHDEV_MAX_SOCKETS];
	unsigned int n_before = xdp_fds(before, RTE_DIM(before)), n_after;
	int rc = start(arg);

	n_after = xdp_fds(after, RTE_DIM(after));
	x->n = 0;
	for (unsigned int i = 0; i < n_after && x->n < ETHDEV_MAX_XSKS; i++) {
		unsigned int j = 0;
		struct stat st;

		while (j < n_before && before[j] != after[i])
			j++;
		if (j == n_before && fstat(after[i], &st) == 0) {
			x->ino[x->n] = st.st_ino;
			x->fd[x->n++] = after[i];
		}
	}
	return rc;
}

void ethdev_xsks_close(struct ethdev_xsks *x, const char *what)
{
	for (int i = 0; i < x->n; i++) {
		struct stat st;

		if (fstat(x->fd[i], &st) == 0 && st.st_ino == x->ino[i] && fd_is_xdp(x->fd[i])) {
			LOG(DEBUG, "%s: closing AF_XDP fd %d the driver left open", what, x->fd[i]);
			close(x->fd[i]);
		}
	}
	x->n = 0;
}

uint64_t ethdev_xsks_drops(const struct ethdev_xsks *x)
{
	uint64_t sum = 0;

	for (int i = 0; i < x->n; i++) {
		struct xdp_statistics st;
		socklen_t len = sizeof(st);

		/* x also holds the XDP program's and map's fds: those fail. */
		if (getsockopt(x->fd[i], SOL_XDP, XDP_STATISTICS, &st, &len) != 0)
			continue;
		/* rx_ring_full: the rx ring podwired reads was full. rx_dropped:
		 * no buffer in the fill ring podwired refills (or a frame larger
		 * than one), so both mean podwired fell behind. Not counted:
		 * rx_fill_ring_empty_descs counts the kernel's failed looks at
		 * an empty fill ring, not frames (copy mode counts such a frame
		 * in rx_dropped too), and the invalid_descs are podwired's bad
		 * descriptors. An older kernel's shorter struct lacks
		 * rx_ring_full. */
		sum += st.rx_dropped;
		if (len >= offsetof(struct xdp_statistics, rx_ring_full) + sizeof(st.rx_ring_full))
			sum += st.rx_ring_full;
	}
	return sum;
}
