/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * podwire-bench's own vhost-user frontend: a pod that drives a switch's
 * vhost-user port as a guest's virtio-net driver would (the side DPDK's
 * net_virtio_user is), without the virtio PMD: split or packed virtqueues in one
 * shared memfd, frames written straight into the transmit buffers and
 * read straight from the receive buffers, no mbuf and no copy.
 *
 * Why: through net_virtio_user the generator's one core spent its time in
 * the virtio PMD and the mbuf pool and topped out near the forwarder's
 * pace at 64 B (podwired's worker ~74% busy): the generator, not the
 * switch, set the figure. As bench_memif.h for memif.
 *
 * The peer is the switch under test, trusted as such: it is expected to
 * use the transmit ring's descriptors in the order they were made
 * available (librte_vhost and podwired do), and what it writes is checked
 * only so that a broken switch is reported, not survived. Nothing is
 * kicked and nothing waits for a call: the switch polls, and so do we.
 */
#ifndef PODWIRE_BENCH_VHOST_H
#define PODWIRE_BENCH_VHOST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The virtio-net header in front of every frame with VIRTIO_F_VERSION_1
 * (struct virtio_net_hdr_mrg_rxbuf), zero: no offloads. */
#define BENCH_VHOST_NET_HDR 12u

struct bench_vhost;

/* Connects to the vhost-user server listening on path (a switch's port)
 * and sets up nq queue pairs (VIRTIO_NET_F_MQ beyond one) of split rings
 * of ring_size descriptors (a power of two), buffers of buf_size bytes
 * (the virtio-net header and the largest frame, whole). A socket that
 * does not accept yet (not there, or not listening) is tried again for
 * up to wait_ms. flags: BENCH_VHOST_SERVER listens on path instead and
 * waits up to wait_ms for the switch (a client-role port) to connect;
 * BENCH_VHOST_PACKED makes packed rings (VIRTIO_F_RING_PACKED) instead of
 * split ones. Returns the pod, or NULL with why in err. */
enum {
	BENCH_VHOST_SERVER = 1u << 0,
	BENCH_VHOST_PACKED = 1u << 1,
};
struct bench_vhost *bench_vhost_open(const char *path, unsigned int flags, uint16_t ring_size,
				     uint32_t buf_size, uint16_t nq, unsigned int wait_ms,
				     char *err, size_t err_len);
/* Hangs up (the switch sees the device go) and frees the memory. */
void bench_vhost_close(struct bench_vhost *v);

/* As bench_memif_tx_slots/_commit, on queue pair q's transmit ring: up
 * to n free buffers (each at its frame, after the virtio-net header,
 * room for buf_size - BENCH_VHOST_NET_HDR bytes) and their tags (0 at
 * first, the caller's after); bench_vhost_tx_commit makes the first k
 * available, with frames of len[i] bytes, in one store of the avail
 * index. */
uint16_t bench_vhost_tx_slots(struct bench_vhost *v, uint16_t q, uint8_t **buf, uint64_t **tag,
			      uint16_t n);
void bench_vhost_tx_commit(struct bench_vhost *v, uint16_t q, const uint16_t *len, uint16_t k);

/* Up to n frames the switch wrote on queue pair q's receive ring (at
 * their frames, after the virtio-net header, and their lengths without
 * it; 0 for one the switch got wrong); valid until bench_vhost_rx_done
 * posts their buffers again. Returns how many, or -1 once the switch
 * broke the protocol (why in bench_vhost_error). */
int bench_vhost_rx(struct bench_vhost *v, uint16_t q, const uint8_t **buf, uint32_t *len,
		   uint16_t n);
void bench_vhost_rx_done(struct bench_vhost *v, uint16_t q);

/* The first protocol breach seen on the rings, or NULL. */
const char *bench_vhost_error(const struct bench_vhost *v);

#endif
