/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * vhost-user rings of podwired's own: librte_vhost negotiates, maps the
 * guest's memory and handles reconnects (port.c); the workers move the
 * virtqueues themselves, split (vring_split.c) and packed
 * (vring_packed.c), copying a frame once, descriptor to descriptor, with
 * no mbuf: a guest's transmit ring gives struct dp_frame (datapath/frame.h)
 * whose segments lie in guest memory, and a guest's receive ring takes
 * frames (copied from dp_frames or from mbufs) straight into the buffers
 * the guest posted.
 *
 * The guest is untrusted, like a memif peer: it can write its memory at
 * any moment. So every index it moves is checked against the ring before
 * anything is read; every descriptor is read once into a private copy
 * and its buffer translated and bounds-checked (whole within the mapped
 * regions) before a byte is touched; chains are bounded (at most the
 * ring's size in descriptors, an indirect table at most VRING_MAX_INDIRECT
 * entries, not nested, a received frame at most DP_FRAME_SEGS segments);
 * a chain that fails is handed back to the guest unused (len 0) and
 * counted (bad_desc), and a ring in a state no valid driver makes (an
 * index more than the ring's size ahead, a buffer id out of range or
 * already in flight) marks the connection broken: the datapath stops at
 * once and the control thread ends the connection. Pages the guest takes
 * away are the SIGBUS guard's (ports/guard.h).
 *
 * Who runs what: a receive ring (the guest's transmit vring) is read by
 * the one worker polling its queue; a transmit ring (the guest's receive
 * vring) may be written by several workers, one at a time, under
 * vring.lock (one lock per burst). The control thread (librte_vhost's
 * thread, port.c) sets a ring up only while no worker can use it (the
 * port's link down, a grace period passed) and reads its indexes back
 * for librte_vhost the same way.
 */
#ifndef PODWIRE_VHOST_VRING_H
#define PODWIRE_VHOST_VRING_H

#include <stdbool.h>
#include <stdint.h>

#include <linux/virtio_net.h>
#include <linux/virtio_ring.h>
#include <rte_branch_prediction.h>
#include <rte_common.h>
#include <rte_mbuf.h>
#include <rte_spinlock.h>

#include "datapath/frame.h"

/* Guest memory regions (vhost-user allows 8). */
#define VRING_MAX_REGIONS 8
/* Entries of one indirect descriptor table. */
#define VRING_MAX_INDIRECT 64
/* Ring sizes: a power of two up to the virtio limit. */
#define VRING_MAX_SIZE 32768
/* Chains received and not yet released (one burst's worth). */
#define VRING_MAX_HELD 64

/* One region of the guest's memory as librte_vhost mapped it: guest
 * physical addresses [gpa, gpa + size) are at host address hva. */
struct vring_region {
	uint64_t gpa;
	uint64_t size;
	uint8_t *hva;
};

struct vring_mem {
	uint32_t n;
	struct vring_region r[VRING_MAX_REGIONS];
};

/* The host address of guest buffer [gpa, gpa + len) when it lies whole
 * within one region, else NULL (a buffer spanning two regions adjacent
 * in guest-physical space: vring_translate, below). */
static inline uint8_t *vring_gpa(const struct vring_mem *m, uint64_t gpa, uint64_t len)
{
	for (uint32_t i = 0; i < m->n; i++) {
		const struct vring_region *r = &m->r[i];

		if (gpa - r->gpa < r->size && len <= r->size - (gpa - r->gpa))
			return r->hva + (gpa - r->gpa);
	}
	return NULL;
}

/* Appends the host pieces of guest buffer [gpa, gpa + len) to seg[*n..]
 * (a buffer may span regions adjacent in guest-physical space); false
 * when any byte of it lies outside the guest's memory or more than max
 * pieces would be needed. len 0 appends nothing. */
static inline bool vring_translate(const struct vring_mem *m, uint64_t gpa, uint32_t len,
				   struct dp_seg *seg, uint16_t *n, uint16_t max)
{
	while (len != 0) {
		const struct vring_region *r = NULL;
		uint64_t k;

		for (uint32_t i = 0; i < m->n; i++)
			if (gpa - m->r[i].gpa < m->r[i].size) {
				r = &m->r[i];
				break;
			}
		if (unlikely(r == NULL || *n >= max))
			return false;
		k = RTE_MIN((uint64_t)len, r->size - (gpa - r->gpa));
		seg[*n].data = r->hva + (gpa - r->gpa);
		seg[*n].len = (uint32_t)k;
		(*n)++;
		gpa += k;
		len -= (uint32_t)k;
	}
	return true;
}

/* Counters a ring keeps for its port (the worker that owns the ring
 * writes them; `port show` adds them up). */
struct vring_stats {
	uint64_t bad_desc;   /* chains handed back unused: a descriptor failed the checks */
	uint64_t too_long;   /* frames larger than the guest's posted buffers (dropped) */
	uint64_t calls;	     /* call eventfd writes */
	uint64_t no_buffers; /* transmit bursts that found no buffer posted */
};

/* What a ring needs from the negotiated features. */
enum vring_feat {
	VRING_F_PACKED = 1 << 0,    /* VIRTIO_F_RING_PACKED */
	VRING_F_EVENT_IDX = 1 << 1, /* VIRTIO_RING_F_EVENT_IDX */
	VRING_F_INDIRECT = 1 << 2,  /* VIRTIO_RING_F_INDIRECT_DESC */
	VRING_F_MRG_RXBUF = 1 << 3, /* VIRTIO_NET_F_MRG_RXBUF */
	VRING_F_IN_ORDER = 1 << 4,  /* VIRTIO_F_IN_ORDER */
};

/* A chain received and not yet released: its head (split) or buffer id
 * (packed), and how many descriptors it took in the ring (packed). */
struct vring_held {
	uint16_t id;
	uint16_t n_desc;
};

struct vhost_vq {
	/* The ring in host addresses (librte_vhost translated them; port.c
	 * checked each lies within the guest's memory). */
	union {
		struct vring_desc *desc;
		struct vring_packed_desc *desc_packed;
	};
	union {
		struct vring_avail *avail;
		struct vring_packed_desc_event *driver_event;
	};
	union {
		struct vring_used *used;
		struct vring_packed_desc_event *device_event;
	};
	const struct vring_mem *mem;
	uint16_t size;	  /* a power of two (split); any up to 32768 (packed) */
	uint16_t feat;	  /* enum vring_feat */
	uint16_t hdr_len; /* the virtio-net header in front of every frame: 12, or 10 */
	/* Where the device is: split: free-running avail and used indexes;
	 * packed: the slot and its wrap counter, for reading (avail) and
	 * writing (used) descriptors. As librte_vhost's rte_vhost_get/
	 * set_vring_base encode them (packed: bit 15 the wrap counter). */
	uint16_t last_avail;
	uint16_t last_used;
	bool avail_wrap;
	bool used_wrap;
	/* Split: the used index the guest was last signalled at (EVENT_IDX). */
	uint16_t signalled_used;
	bool signalled_valid;
	int callfd; /* the guest's call eventfd (podwired's own, see call.c), -1 none */
	/* Set when the ring is in a state no valid driver makes; why names it. */
	volatile uint32_t *broken;
	char *broken_why;
	size_t broken_why_len;
	/* Receive rings: chains between vring_*_rx and vring_*_rx_release. */
	uint16_t n_held;
	struct vring_held held[VRING_MAX_HELD];
	/* Transmit rings: several workers, one at a time. */
	rte_spinlock_t lock;
	struct vring_stats st;
} __rte_cache_aligned;

/* Marks the ring's connection broken (first caller only): a state no
 * valid driver makes. Any worker. */
void vring_broken(struct vhost_vq *vr, const char *fmt, unsigned int a, unsigned int b);

/* Split rings (vring_split.c). Receive: up to n frames of the guest's
 * transmit ring into f (the virtio-net header left out; f's segments
 * point into guest memory), held until vring_split_rx_release hands the
 * chains back (used, len 0) and signals the guest if it asked. */
uint16_t vring_split_rx(struct vhost_vq *vr, struct dp_frame *f, uint16_t n);
void vring_split_rx_release(struct vhost_vq *vr);
/* Transmit: copies up to n frames (strip[i]: without their VLAN tag,
 * dp_frame_read's sense) into buffers the guest posted on its receive
 * ring, each after a virtio-net header of zeros (num_buffers set with
 * MRG_RXBUF), publishes them and signals the guest if it asked. Returns
 * how many went (the rest: no buffer posted; a frame larger than the
 * buffers can hold is dropped and counted too_long, and counts as sent).
 * Caller holds vr->lock. */
uint16_t vring_split_tx_frames(struct vhost_vq *vr, struct dp_frame *const *f, const uint8_t *strip,
			       uint16_t n);
/* The same from mbufs (their data; the caller frees those sent). */
uint16_t vring_split_tx_mbufs(struct vhost_vq *vr, struct rte_mbuf *const *m, uint16_t n);

/* Packed rings (vring_packed.c): the same contracts. */
uint16_t vring_packed_rx(struct vhost_vq *vr, struct dp_frame *f, uint16_t n);
void vring_packed_rx_release(struct vhost_vq *vr);
uint16_t vring_packed_tx_frames(struct vhost_vq *vr, struct dp_frame *const *f,
				const uint8_t *strip, uint16_t n);
uint16_t vring_packed_tx_mbufs(struct vhost_vq *vr, struct rte_mbuf *const *m, uint16_t n);

/* Signals the guest through callfd (a write of 1 to the eventfd; it
 * never blocks: call.c owns the guest's own fd). */
void vring_call(struct vhost_vq *vr);

#endif
