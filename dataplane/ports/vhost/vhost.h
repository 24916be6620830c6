/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * vhost-user ports (librte_vhost): what the files of ports/vhost/ share.
 * port.c is the kind and librte_vhost's callbacks; check.c looks at what
 * a frontend sends before librte_vhost acts on it; call.c signals the
 * frontend's call eventfds from a thread of its own, so that a frontend
 * that makes one block never holds up a worker. The frontend is a pod:
 * untrusted, like a memif peer.
 */
#ifndef PODWIRE_VHOST_H
#define PODWIRE_VHOST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <linux/virtio_net.h>
#include <rte_branch_prediction.h>
#include <rte_mbuf.h>

#include "core/limits.h"

/* The vhost-user message as librte_vhost 22.11 hands it to
 * pre_msg_handle (its struct vhu_msg_context, lib/vhost/vhost_user.h):
 * the header, the payload union (632 bytes: its largest member is the
 * crypto session), then the fds that came with it. Only the fields read
 * here are spelled out. */
#define VHOST_MSG_MAX_REGIONS 8
#define VHOST_MSG_PAYLOAD     632
#define VHOST_MSG_NEED_REPLY  (1u << 3)
/* SET_VRING_KICK/CALL/ERR's u64: the ring, and "no fd" (polling). */
#define VHOST_MSG_VRING_IDX_MASK 0xffULL
#define VHOST_MSG_VRING_NOFD	 (1ULL << 8)

struct vhost_fe_region {
	uint64_t guest_phys_addr;
	uint64_t memory_size;
	uint64_t userspace_addr;
	uint64_t mmap_offset;
};

struct vhost_fe_msg {
	uint32_t request;
	uint32_t flags;
	uint32_t size;
	union {
		uint64_t u64;
		struct {
			uint32_t nregions;
			uint32_t padding;
			struct vhost_fe_region regions[VHOST_MSG_MAX_REGIONS];
		} memory;
		uint8_t raw[VHOST_MSG_PAYLOAD];
	} payload;
	int fds[VHOST_MSG_MAX_REGIONS];
	int fd_num;
} __attribute__((packed));

/* Front-end requests (the vhost-user specification's numbers). */
enum vhost_req {
	VHOST_REQ_GET_FEATURES = 1,
	VHOST_REQ_SET_FEATURES = 2,
	VHOST_REQ_SET_MEM_TABLE = 5,
	VHOST_REQ_SET_LOG_BASE = 6,
	VHOST_REQ_SET_LOG_FD = 7,
	VHOST_REQ_SET_VRING_NUM = 8,
	VHOST_REQ_SET_VRING_ADDR = 9,
	VHOST_REQ_SET_VRING_BASE = 10,
	VHOST_REQ_GET_VRING_BASE = 11,
	VHOST_REQ_SET_VRING_KICK = 12,
	VHOST_REQ_SET_VRING_CALL = 13,
	VHOST_REQ_SET_VRING_ERR = 14,
	VHOST_REQ_GET_PROTOCOL_FEATURES = 15,
	VHOST_REQ_GET_QUEUE_NUM = 17,
	VHOST_REQ_SET_VRING_ENABLE = 18,
	VHOST_REQ_SEND_RARP = 19,
	VHOST_REQ_NET_SET_MTU = 20,
	VHOST_REQ_SET_SLAVE_REQ_FD = 21,
	VHOST_REQ_IOTLB_MSG = 22,
	VHOST_REQ_CRYPTO_CREATE_SESS = 26,
	VHOST_REQ_CRYPTO_CLOSE_SESS = 27,
	VHOST_REQ_POSTCOPY_ADVISE = 28,
	VHOST_REQ_POSTCOPY_LISTEN = 29,
	VHOST_REQ_POSTCOPY_END = 30,
	VHOST_REQ_GET_INFLIGHT_FD = 31,
	VHOST_REQ_SET_INFLIGHT_FD = 32,
	VHOST_REQ_GET_STATUS = 40,
};

/* A port's queue pair q is the guest's receive vring 2q (podwired
 * enqueues into it) and its transmit vring 2q + 1 (podwired dequeues). */
#define VHOST_MAX_VRINGS (2 * PW_MAX_QUEUES)

/*
 * Checks a message before librte_vhost handles it: 0 to let it through,
 * or -EINVAL with why filled (what the frontend did, for `port list`).
 * Vring messages: the ring is one of the n_vrings of the queue pairs the
 * port offers (librte_vhost would make any of 256 on the frontend's
 * word). SET_MEM_TABLE: every region's fd is a regular file on tmpfs or
 * hugetlbfs as long as the region claims (sealed against shrinking where
 * the file takes seals), at most 8 regions, none overlapping another in
 * guest-physical or frontend addresses. Messages for what podwired does
 * not offer (dirty log, inflight, postcopy, IOTLB, crypto, back-end
 * channel) are refused. Vring kick/call fds must be eventfds. The caller
 * closes the fds when it refuses. Any thread.
 */
int vhost_check_msg(const struct vhost_fe_msg *m, unsigned int n_vrings, char *why, size_t len);

/* call.c: the frontend's call eventfds are written by a thread of their
 * own, never by a worker (a frontend can make its eventfd block). */
struct vhost_call;
/* Starts the forwarding thread once. Control thread. 0 or -errno. */
int vhost_call_start(void);
/* Forwards every signal on *ours (set here: an eventfd for librte_vhost,
 * which owns it) to theirs, which this takes (closed when the entry is
 * deleted; left to the caller on failure, NULL). A write to theirs that
 * would block calls fail(owner) on the forwarding thread, with a lock
 * held: it must only mark owner. Any thread. */
struct vhost_call *vhost_call_add(int theirs, void (*fail)(void *owner), void *owner, int *ours);
/* Stops forwarding; never waits for the forwarding thread. NULL is fine.
 * Any thread. */
void vhost_call_del(struct vhost_call *c);

/* rings.c: a port on podwired's own rings (vring.h), while its guest's
 * device runs. Control thread (librte_vhost's) unless said. */
struct vhost_rings;
struct dp_port_ops;
struct vring_stats;
/* tx_on: the port's map of the pairs whose receive vring is on (read by
 * workers). NULL when out of memory. */
struct vhost_rings *vhost_rings_new(const volatile uint16_t *tx_on);
void vhost_rings_free(struct vhost_rings *r);
/* Whether a guest that negotiated features can be carried by them. */
bool vhost_rings_fit(uint64_t features);
/* Takes vid's rings of n_pairs queue pairs from librte_vhost (memory,
 * addresses, indexes) and makes them live. No worker may be using them
 * (the port's link down, or a grace period since vhost_rings_stop).
 * 0, or -EINVAL with why filled. */
int vhost_rings_start(struct vhost_rings *r, int vid, uint16_t n_pairs, char *why, size_t len);
/* Workers stop using the rings: they find them not live from their next
 * burst on. Any thread. */
void vhost_rings_pause(struct vhost_rings *r);
/* Hands the rings' indexes back to librte_vhost, which reports them
 * (GET_VRING_BASE) or goes on from them. Only once no worker is in them:
 * paused (or the link down) and a grace period (view_wait) since. */
void vhost_rings_stop(struct vhost_rings *r, int vid);
bool vhost_rings_live(const struct vhost_rings *r);
/* Forgets that a ring broke, once the connection that broke it ended
 * (no worker is in the rings). */
void vhost_rings_reset(struct vhost_rings *r);
/* Why a ring broke (a state no valid driver makes), or NULL. Any thread. */
const char *vhost_rings_broken(struct vhost_rings *r);
void vhost_rings_stats(const struct vhost_rings *r, struct vring_stats *sum);
extern const struct dp_port_ops vhost_rings_split_ops, vhost_rings_packed_ops;

/* The offload features a port offers unless its "offloads" is false:
 * the guest's requests podwired takes (HOST), and those it may make of
 * the guest (GUEST). */
#define VHOST_HOST_OFFLOADS                                                                        \
	(1ULL << VIRTIO_NET_F_CSUM | 1ULL << VIRTIO_NET_F_HOST_TSO4 |                              \
	 1ULL << VIRTIO_NET_F_HOST_TSO6)
#define VHOST_GUEST_OFFLOADS                                                                       \
	(1ULL << VIRTIO_NET_F_GUEST_CSUM | 1ULL << VIRTIO_NET_F_GUEST_TSO4 |                       \
	 1ULL << VIRTIO_NET_F_GUEST_TSO6)

/* Offload requests a guest that negotiated no host offload could still
 * make stop at its port (librte_vhost does not parse its header then;
 * this is the belt to that): nothing podwired sends on, to an uplink or
 * another guest, asks a NIC or a guest for work nobody checked. Workers,
 * after every dequeue; tested only when set. */
#define VHOST_OL_FLAGS                                                                             \
	(RTE_MBUF_F_TX_OFFLOAD_MASK | RTE_MBUF_F_RX_IP_CKSUM_MASK | RTE_MBUF_F_RX_L4_CKSUM_MASK |  \
	 RTE_MBUF_F_RX_LRO)

static inline void vhost_clear_offloads(struct rte_mbuf **pkts, uint16_t n)
{
	for (uint16_t i = 0; i < n; i++) {
		struct rte_mbuf *m = pkts[i];

		if (unlikely((m->ol_flags & VHOST_OL_FLAGS) | m->tx_offload)) {
			m->ol_flags &= ~VHOST_OL_FLAGS;
			m->tx_offload = 0;
		}
	}
}

/* The requests a guest that negotiated host offloads may make, as
 * librte_vhost's dequeue ("legacy" flags) sets them: TCP or UDP checksum,
 * TCP segmentation, and where the headers are. Anything else it sets
 * (SCTP's CRC, whose field offset is all it checks; UDP segmentation from
 * a UFO header, which podwired does not offer and which means IP
 * fragments, not offload/'s UDP segments) is no request podwired
 * carries: the frame goes on without any, as a guest that asked for
 * nothing (an over-MTU one is dropped as such). offload_check at ingress
 * judges the rest. Workers, after every dequeue. */
#define VHOST_OL_KEEP                                                                              \
	(RTE_MBUF_F_TX_TCP_CKSUM | RTE_MBUF_F_TX_UDP_CKSUM | RTE_MBUF_F_TX_TCP_SEG |               \
	 RTE_MBUF_F_TX_IPV4 | RTE_MBUF_F_TX_IPV6)

static inline void vhost_keep_offloads(struct rte_mbuf **pkts, uint16_t n)
{
	for (uint16_t i = 0; i < n; i++) {
		struct rte_mbuf *m = pkts[i];
		uint64_t f = m->ol_flags & VHOST_OL_FLAGS;
		uint64_t l4 = f & RTE_MBUF_F_TX_L4_MASK;

		if (likely(f == 0))
			continue;
		if (unlikely((f & ~VHOST_OL_KEEP) != 0 || l4 == RTE_MBUF_F_TX_SCTP_CKSUM)) {
			m->ol_flags &= ~VHOST_OL_FLAGS;
			m->tx_offload = 0;
		}
	}
}

/* The queue pair worker w sends on, of those the guest receives on (bit
 * q of on; on != 0): the (w % how many)th. Workers spread over the
 * guest's queues and each keeps to one while they stay, so its frames
 * leave in order; the map is one word, read once per burst. */
static inline uint16_t vhost_txq_pick(uint16_t on, uint16_t w)
{
	unsigned int k = w % (unsigned int)__builtin_popcount(on);

	while (k-- != 0)
		on &= (uint16_t)(on - 1);
	return (uint16_t)__builtin_ctz(on);
}

#endif
