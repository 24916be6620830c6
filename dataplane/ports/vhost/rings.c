/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A vhost-user port on podwired's own rings (vring.h): what the port
 * (port.c, on librte_vhost's thread) takes from librte_vhost when a
 * guest's device starts, what it hands back when it stops, and the
 * port's datapath ops while it runs on them.
 *
 * librte_vhost still owns the connection: it negotiates, maps the
 * guest's memory, translates the rings' addresses and answers
 * GET_VRING_BASE. podwired takes a snapshot of those (memory regions,
 * ring addresses, indexes) while no worker uses the rings, runs the
 * rings from it, and writes the indexes back (rte_vhost_set_vring_base)
 * before librte_vhost reports or changes anything: port.c stops the
 * rings before every message that could move them (and before the
 * device stops) and starts them again after.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_prefetch.h>
#include <rte_vhost.h>

#include "datapath/stats.h"
#include "ports/vhost/vhost.h"
#include "ports/vhost/vring.h"

/* Queue pair q: the guest's receive vring 2q (podwired writes) and its
 * transmit vring 2q + 1 (podwired reads). */
struct vhost_rings {
	/* What the workers check first: the rings are set up and usable. */
	volatile bool live;
	bool packed;
	uint16_t n_pairs;
	/* A ring in a state no valid driver makes (vring_broken): 0, 1 while
	 * the finder writes why, 2 once why can be read. */
	volatile uint32_t broken;
	char why[160];
	const volatile uint16_t *tx_on; /* port.c's: the pairs whose receive vring is on */
	struct vring_mem mem;
	struct vhost_vq rx[PW_MAX_QUEUES]; /* the guest's transmit vrings */
	struct vhost_vq tx[PW_MAX_QUEUES]; /* the guest's receive vrings */
	/* rx[q].st.bad_desc and tx[q].st.bad_desc already in the port's drops
	 * (the rings' counters live as long as the port). */
	uint64_t bad_told[PW_MAX_QUEUES];
	uint64_t bad_told_tx[PW_MAX_QUEUES];
};

struct vhost_rings *vhost_rings_new(const volatile uint16_t *tx_on)
{
	struct vhost_rings *r =
	    aligned_alloc(RTE_CACHE_LINE_SIZE, RTE_ALIGN_CEIL(sizeof(*r), RTE_CACHE_LINE_SIZE));

	if (r == NULL)
		return NULL;
	memset(r, 0, sizeof(*r));
	r->tx_on = tx_on;
	return r;
}

void vhost_rings_free(struct vhost_rings *r)
{
	free(r);
}

/* Features a guest may have negotiated for podwired's rings to carry its
 * frames: no host offloads (the frames without mbufs carry no requests;
 * librte_vhost's path turns them into mbuf flags) and no IOMMU (addresses
 * would be I/O virtual ones). */
bool vhost_rings_fit(uint64_t features)
{
	return (features & (VHOST_HOST_OFFLOADS | 1ULL << VIRTIO_F_IOMMU_PLATFORM)) == 0;
}

void vhost_rings_reset(struct vhost_rings *r)
{
	r->live = false;
	__atomic_store_n(&r->broken, 0, __ATOMIC_RELEASE);
}

bool vhost_rings_live(const struct vhost_rings *r)
{
	return r->live;
}

const char *vhost_rings_broken(struct vhost_rings *r)
{
	return __atomic_load_n(&r->broken, __ATOMIC_ACQUIRE) == 2 ? r->why : NULL;
}

void vhost_rings_stats(const struct vhost_rings *r, struct vring_stats *sum)
{
	memset(sum, 0, sizeof(*sum));
	for (uint16_t q = 0; q < PW_MAX_QUEUES; q++)
		for (int d = 0; d < 2; d++) {
			const struct vring_stats *s = d == 0 ? &r->rx[q].st : &r->tx[q].st;

			sum->bad_desc += s->bad_desc;
			sum->too_long += s->too_long;
			sum->calls += s->calls;
			sum->no_buffers += s->no_buffers;
		}
}

/* Whether [p, p + len) lies within the guest's memory as mapped. */
static bool in_guest(const struct vring_mem *m, const void *p, uint64_t len)
{
	uintptr_t a = (uintptr_t)p;

	for (uint32_t i = 0; i < m->n; i++) {
		uintptr_t b = (uintptr_t)m->r[i].hva;

		if (a - b < m->r[i].size && len <= m->r[i].size - (a - b))
			return true;
	}
	return false;
}

/* Vring idx of vid into vq, from what librte_vhost has. */
static int vq_take(struct vhost_rings *r, struct vhost_vq *vq, int vid, uint16_t idx, uint16_t feat,
		   uint16_t hdr_len, char *why, size_t len)
{
	struct rte_vhost_vring vr;
	uint16_t avail, used;
	uint64_t ring_len, drv_len, dev_len;

	memset(vq, 0, offsetof(struct vhost_vq, lock));
	rte_spinlock_init(&vq->lock);
	vq->callfd = -1;
	vq->mem = &r->mem;
	vq->broken = &r->broken;
	vq->broken_why = r->why;
	vq->broken_why_len = sizeof(r->why);
	if (rte_vhost_get_vhost_vring(vid, idx, &vr) != 0 || vr.desc == NULL)
		return 0; /* not set up: no queue uses it (queues_publish) */
	if (rte_vhost_get_vring_base(vid, idx, &avail, &used) != 0) {
		snprintf(why, len, "vring %u: no base index", idx);
		return -EINVAL;
	}
	if (vr.size == 0 || vr.size > VRING_MAX_SIZE ||
	    (!(feat & VRING_F_PACKED) && (vr.size & (vr.size - 1)) != 0)) {
		snprintf(why, len, "vring %u: size %u", idx, vr.size);
		return -EINVAL;
	}
	/* librte_vhost translated the rings whole; checked again here, as
	 * podwired reads them without it. */
	if (feat & VRING_F_PACKED) {
		ring_len = (uint64_t)vr.size * sizeof(struct vring_packed_desc);
		drv_len = dev_len = sizeof(struct vring_packed_desc_event);
	} else {
		ring_len = (uint64_t)vr.size * sizeof(struct vring_desc);
		drv_len = sizeof(struct vring_avail) + (uint64_t)vr.size * 2 + 2;
		dev_len = sizeof(struct vring_used) +
			  (uint64_t)vr.size * sizeof(struct vring_used_elem) + 2;
	}
	if (!in_guest(&r->mem, vr.desc, ring_len) || !in_guest(&r->mem, vr.avail, drv_len) ||
	    !in_guest(&r->mem, vr.used, dev_len)) {
		snprintf(why, len, "vring %u lies outside the guest's memory", idx);
		return -EINVAL;
	}
	vq->desc = vr.desc;
	vq->avail = vr.avail;
	vq->used = vr.used;
	vq->size = vr.size;
	vq->feat = feat;
	vq->hdr_len = hdr_len;
	vq->callfd = vr.callfd;
	if (feat & VRING_F_PACKED) {
		vq->last_avail = avail & 0x7fff;
		vq->avail_wrap = (avail >> 15) & 1;
		vq->last_used = used & 0x7fff;
		vq->used_wrap = (used >> 15) & 1;
		if (vq->last_avail >= vr.size || vq->last_used >= vr.size) {
			snprintf(why, len, "vring %u: base index beyond its size %u", idx, vr.size);
			return -EINVAL;
		}
	} else {
		vq->last_avail = avail;
		vq->last_used = used;
	}
	return 0;
}

static void vq_give(const struct vhost_vq *vq, int vid, uint16_t idx)
{
	if (vq->size == 0)
		return;
	if (vq->feat & VRING_F_PACKED)
		rte_vhost_set_vring_base(vid, idx,
					 (uint16_t)(vq->last_avail | vq->avail_wrap << 15),
					 (uint16_t)(vq->last_used | vq->used_wrap << 15));
	else
		rte_vhost_set_vring_base(vid, idx, vq->last_avail, vq->last_used);
}

int vhost_rings_start(struct vhost_rings *r, int vid, uint16_t n_pairs, char *why, size_t len)
{
	struct rte_vhost_memory *mem = NULL;
	uint64_t f = 0;
	uint16_t feat = 0, hdr_len;
	int rc = 0;

	r->live = false;
	if (rte_vhost_get_negotiated_features(vid, &f) != 0 ||
	    rte_vhost_get_mem_table(vid, &mem) != 0) {
		snprintf(why, len, "librte_vhost has no features or memory for the device");
		return -EINVAL;
	}
	if (mem->nregions > VRING_MAX_REGIONS) {
		snprintf(why, len, "%u memory regions", mem->nregions);
		free(mem);
		return -EINVAL;
	}
	r->mem.n = mem->nregions;
	for (uint32_t i = 0; i < mem->nregions; i++) {
		r->mem.r[i].gpa = mem->regions[i].guest_phys_addr;
		r->mem.r[i].size = mem->regions[i].size;
		r->mem.r[i].hva = (uint8_t *)(uintptr_t)mem->regions[i].host_user_addr;
	}
	free(mem);
	if (f & (1ULL << VIRTIO_F_RING_PACKED))
		feat |= VRING_F_PACKED;
	if (f & (1ULL << VIRTIO_RING_F_EVENT_IDX))
		feat |= VRING_F_EVENT_IDX;
	if (f & (1ULL << VIRTIO_RING_F_INDIRECT_DESC))
		feat |= VRING_F_INDIRECT;
	if (f & (1ULL << VIRTIO_NET_F_MRG_RXBUF))
		feat |= VRING_F_MRG_RXBUF;
	if (f & (1ULL << VIRTIO_F_IN_ORDER))
		feat |= VRING_F_IN_ORDER;
	hdr_len = f & (1ULL << VIRTIO_F_VERSION_1 | 1ULL << VIRTIO_NET_F_MRG_RXBUF)
		      ? sizeof(struct virtio_net_hdr_mrg_rxbuf)
		      : sizeof(struct virtio_net_hdr);
	r->packed = (feat & VRING_F_PACKED) != 0;
	r->n_pairs = RTE_MIN(n_pairs, (uint16_t)PW_MAX_QUEUES);
	__atomic_store_n(&r->broken, 0, __ATOMIC_RELEASE);
	for (uint16_t q = 0; q < PW_MAX_QUEUES; q++) {
		r->rx[q].size = 0;
		r->tx[q].size = 0;
	}
	for (uint16_t q = 0; q < r->n_pairs && rc == 0; q++) {
		rc = vq_take(r, &r->tx[q], vid, (uint16_t)(2 * q), feat, hdr_len, why, len);
		if (rc == 0)
			rc = vq_take(r, &r->rx[q], vid, (uint16_t)(2 * q + 1), feat, hdr_len, why,
				     len);
	}
	if (rc != 0) {
		for (uint16_t q = 0; q < PW_MAX_QUEUES; q++) {
			r->rx[q].size = 0;
			r->tx[q].size = 0;
		}
		return rc;
	}
	__atomic_store_n(&r->live, true, __ATOMIC_RELEASE);
	return 0;
}

void vhost_rings_pause(struct vhost_rings *r)
{
	__atomic_store_n(&r->live, false, __ATOMIC_RELEASE);
}

void vhost_rings_stop(struct vhost_rings *r, int vid)
{
	r->live = false;
	for (uint16_t q = 0; q < r->n_pairs; q++) {
		vq_give(&r->tx[q], vid, (uint16_t)(2 * q));
		vq_give(&r->rx[q], vid, (uint16_t)(2 * q + 1));
	}
}

/* ---- the workers' side ---------------------------------------------------------- */

static inline struct vhost_rings *rings_of(const struct dp_port *p)
{
	/* vhost_priv (port.c) starts with its rings. */
	return *(struct vhost_rings *const *)p->priv;
}

/* The receive ring of queue q, or NULL when the rings are not to be used. */
static inline struct vhost_vq *rx_vq(struct dp_port *p, uint16_t q)
{
	struct vhost_rings *r = rings_of(p);

	if (unlikely(!r->live || r->broken != 0 || !(p->rxq_on & (1U << q)) || r->rx[q].size == 0))
		return NULL;
	return &r->rx[q];
}

/* Chains a guest's ring made podwired hand back: counted with the port's
 * drops once per burst that found any. */
static inline void count_bad(struct vhost_rings *r, uint16_t q, struct dp_port *p,
			     struct port_counters *ctr)
{
	uint64_t bad = r->rx[q].st.bad_desc;
	/* The receive ring's of the same pair too (written by whichever
	 * worker sends, under its lock; a word read is whole). */
	uint64_t bad_tx = __atomic_load_n(&r->tx[q].st.bad_desc, __ATOMIC_RELAXED);

	if (unlikely(bad != r->bad_told[q])) {
		ctr[p->idx].drops[DROP_BAD_DESC] += bad - r->bad_told[q];
		r->bad_told[q] = bad;
	}
	if (unlikely(bad_tx != r->bad_told_tx[q])) {
		ctr[p->idx].drops[DROP_BAD_DESC] += bad_tx - r->bad_told_tx[q];
		r->bad_told_tx[q] = bad_tx;
	}
}

/* Lines of a received frame asked for beyond the first, which the ring
 * code asks for: a 64-byte frame behind its 12-byte virtio-net header
 * ends on the next line, and the copy to its destination waited for that
 * line (the generator's core wrote it) in every frame. */
#define RX_PREFETCH_LINES 4

static inline void prefetch_frames(const struct dp_frame *f, uint16_t n)
{
	for (uint16_t i = 0; i < n; i++) {
		unsigned int lines = 0;

		for (uint16_t s = 0; s < f[i].n_seg && lines < RX_PREFETCH_LINES; s++) {
			uintptr_t a =
			    RTE_ALIGN_FLOOR((uintptr_t)f[i].seg[s].data, RTE_CACHE_LINE_SIZE);
			uintptr_t end = (uintptr_t)f[i].seg[s].data + f[i].seg[s].len;

			/* The first line of the first piece is asked for already. */
			for (a += s == 0 ? RTE_CACHE_LINE_SIZE : 0;
			     a < end && lines < RX_PREFETCH_LINES;
			     a += RTE_CACHE_LINE_SIZE, lines++)
				rte_prefetch0((const void *)a);
		}
	}
}

static uint16_t split_rx(struct dp_port *p, uint16_t q, struct dp_frame *f, uint16_t n,
			 struct port_counters *ctr)
{
	struct vhost_vq *vq = rx_vq(p, q);
	uint16_t got;

	if (vq == NULL)
		return 0;
	got = vring_split_rx(vq, f, n);
	/* The worker releases only after frames: chains that all failed
	 * go back to the guest now. */
	if (unlikely(got == 0 && vq->n_held != 0))
		vring_split_rx_release(vq);
	prefetch_frames(f, got);
	count_bad(rings_of(p), q, p, ctr);
	return got;
}

static uint16_t packed_rx(struct dp_port *p, uint16_t q, struct dp_frame *f, uint16_t n,
			  struct port_counters *ctr)
{
	struct vhost_vq *vq = rx_vq(p, q);
	uint16_t got;

	if (vq == NULL)
		return 0;
	got = vring_packed_rx(vq, f, n);
	if (unlikely(got == 0 && vq->n_held != 0))
		vring_packed_rx_release(vq);
	prefetch_frames(f, got);
	count_bad(rings_of(p), q, p, ctr);
	return got;
}

/* Called only after an rx that returned frames, in the same grace
 * period: the rings are still the ones received from. */
static void split_release(struct dp_port *p, uint16_t q)
{
	vring_split_rx_release(&rings_of(p)->rx[q]);
}

static void packed_release(struct dp_port *p, uint16_t q)
{
	vring_packed_rx_release(&rings_of(p)->rx[q]);
}

/* The transmit ring worker w uses (vhost_txq_pick), or NULL. */
static inline struct vhost_vq *tx_vq(struct dp_port *p, uint16_t w, uint16_t *q)
{
	struct vhost_rings *r = rings_of(p);
	uint16_t on = *r->tx_on;

	if (unlikely(!r->live || r->broken != 0 || on == 0))
		return NULL;
	*q = vhost_txq_pick(on, w);
	return r->tx[*q].size != 0 ? &r->tx[*q] : NULL;
}

static __rte_always_inline uint16_t tx_any(struct dp_port *p, uint16_t w, struct dp_frame *const *f,
					   const uint8_t *strip, struct rte_mbuf **m, uint16_t n,
					   bool packed)
{
	uint16_t q = 0, sent;
	struct vhost_vq *vq = tx_vq(p, w, &q);

	if (vq == NULL)
		return 0;
	/* Workers may share a pair: one at a time, per burst. */
	rte_spinlock_lock(&vq->lock);
	if (m != NULL)
		sent = packed ? vring_packed_tx_mbufs(vq, m, n) : vring_split_tx_mbufs(vq, m, n);
	else
		sent = packed ? vring_packed_tx_frames(vq, f, strip, n)
			      : vring_split_tx_frames(vq, f, strip, n);
	rte_spinlock_unlock(&vq->lock);
	stats_queue(w, p->idx, q)->tx_packets += sent;
	if (m != NULL)
		rte_pktmbuf_free_bulk(m, sent); /* the guest has its copy */
	return sent;
}

static uint16_t split_tx_frames(struct dp_port *p, uint16_t w, struct dp_frame *const *f,
				const uint8_t *strip, uint16_t n)
{
	return tx_any(p, w, f, strip, NULL, n, false);
}

static uint16_t split_tx_burst(struct dp_port *p, uint16_t w, struct rte_mbuf **m, uint16_t n)
{
	return tx_any(p, w, NULL, NULL, m, n, false);
}

static uint16_t packed_tx_frames(struct dp_port *p, uint16_t w, struct dp_frame *const *f,
				 const uint8_t *strip, uint16_t n)
{
	return tx_any(p, w, f, strip, NULL, n, true);
}

static uint16_t packed_tx_burst(struct dp_port *p, uint16_t w, struct rte_mbuf **m, uint16_t n)
{
	return tx_any(p, w, NULL, NULL, m, n, true);
}

const struct dp_port_ops vhost_rings_split_ops = {
    .rx_frames = split_rx,
    .rx_release = split_release,
    .tx_frames = split_tx_frames,
    .tx_burst = split_tx_burst,
};

const struct dp_port_ops vhost_rings_packed_ops = {
    .rx_frames = packed_rx,
    .rx_release = packed_release,
    .tx_frames = packed_tx_frames,
    .tx_burst = packed_tx_burst,
};
