/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * memif's datapath: frames in and out of the shared rings, for both roles.
 *
 * The peer can write its memory at any moment. So: every index it moves is
 * checked to lie within the ring before anything is read; every descriptor
 * is read once, into a private copy, and its region, offset and length are
 * checked against what podwired mapped before a byte is touched; a frame
 * whose descriptors fail is dropped and counted (bad_desc), and a ring in
 * a state no valid peer makes marks the connection broken, which stops
 * this side at once and gets the peer disconnected by the control thread.
 *
 * Ownership: the client writes heads, the server tails; both are free
 * running 16-bit counters. A producer publishes descriptors with a
 * release store of its index; a consumer reads the index with an acquire
 * load before the descriptors.
 */
#include <stdio.h>
#include <string.h>

#include <rte_atomic.h>
#include <rte_lcore.h>
#include <rte_mbuf.h>
#include <rte_prefetch.h>

#include "datapath/frame.h"
#include "datapath/stats.h"
#include "ports/memif/port.h"

static inline struct memif_conn *conn_of(struct dp_port *p)
{
	struct memif_conn *c =
	    __atomic_load_n(&((struct memif_port *)p->priv)->conn, __ATOMIC_ACQUIRE);

	return likely(c != NULL && __atomic_load_n(&c->broken, __ATOMIC_RELAXED) == 0) ? c : NULL;
}

/* broken goes 0 -> 1 for the one who found it (several workers and the
 * SIGBUS guard may at once), who writes why and then sets 2: the control
 * thread reads why only at 2. Any non-zero value stops the datapath. */
static bool broken_claim(struct memif_conn *c)
{
	uint32_t working = 0;

	return __atomic_compare_exchange_n(&c->broken, &working, 1, false, __ATOMIC_ACQ_REL,
					   __ATOMIC_RELAXED);
}

void memif_conn_mark_broken(struct memif_conn *c, const char *why)
{
	size_t i = 0;

	if (!broken_claim(c))
		return;
	/* No stdio: this may run in a signal handler. */
	for (; why[i] != '\0' && i + 1 < sizeof(c->broken_why); i++)
		c->broken_why[i] = why[i];
	c->broken_why[i] = '\0';
	__atomic_store_n(&c->broken, 2, __ATOMIC_RELEASE);
}

/* Stops using c: a ring is in a state no valid peer makes. */
static void __rte_noinline conn_broken(struct memif_conn *c, const char *fmt, unsigned int a,
				       unsigned int b)
{
	if (__atomic_load_n(&c->broken, __ATOMIC_RELAXED) != 0 || !broken_claim(c))
		return;
	snprintf(c->broken_why, sizeof(c->broken_why), fmt, a, b);
	__atomic_store_n(&c->broken, 2, __ATOMIC_RELEASE);
}

/* The peer's buffer at region/offset of length bytes, or NULL when any of
 * it lies outside what podwired mapped. */
static inline uint8_t *seg_ptr(const struct memif_conn *c, const struct memif_desc *d,
			       uint32_t length)
{
	const struct memif_region *r;

	if (unlikely(d->region >= c->n_regions || length == 0 || length > c->buf_size))
		return NULL;
	r = &c->region[d->region];
	if (unlikely((uint64_t)d->offset + length > r->size))
		return NULL;
	return r->base + d->offset;
}

/* The client's own buffer of slot in ring r. */
static inline uint8_t *own_buf(const struct memif_conn *c, const struct memif_qring *r,
			       uint16_t slot)
{
	return c->region[0].base + r->buf_offset + (uint32_t)(slot & r->mask) * r->buf_size;
}

/* ---- receive -------------------------------------------------------------- */

/* Reads up to n frames from ring r: avail slots are published. For the
 * server a descriptor names the peer's buffer; for the client the buffer
 * is podwired's own, whatever the descriptor says. */
static uint16_t rx_ring(struct memif_conn *c, struct memif_qring *r, uint16_t avail,
			struct dp_frame *f, uint16_t n, struct port_counters *pc)
{
	uint16_t got = 0;

	/* The descriptors' lines are asked for together, four slots a line,
	 * before the first is read. */
	for (uint16_t i = 0; i < RTE_MIN(avail, n); i++) {
		uint16_t slot = (uint16_t)(r->last + i) & r->mask;

		if (memif_desc_line_start(i, slot))
			rte_prefetch0(&r->ring->desc[slot]);
	}
	/* The descriptors only, each frame's first line prefetched: the
	 * worker reads the headers (datapath/frame.h) once the lines are in. */
	while (avail != 0 && got < n) {
		struct dp_frame *fr = &f[got];
		uint16_t descs = 0;
		bool bad = false, more;

		fr->len = 0;
		fr->n_seg = 0;
		fr->hdr_len = 0;
		do {
			uint16_t slot = r->last;
			struct memif_desc d = memif_desc_read(&r->ring->desc[slot & r->mask]);
			uint8_t *ptr;

			r->last++;
			avail--;
			descs++;
			more = d.flags & MEMIF_DESC_FLAG_NEXT;
			if (c->server) {
				ptr = seg_ptr(c, &d, d.length);
			} else {
				ptr = d.length != 0 && d.length <= r->buf_size ? own_buf(c, r, slot)
									       : NULL;
			}
			if (unlikely(ptr == NULL || fr->n_seg == DP_FRAME_SEGS)) {
				bad = true;
				continue;
			}
			if (fr->n_seg == 0)
				rte_prefetch0(ptr);
			fr->seg[fr->n_seg].data = ptr;
			fr->seg[fr->n_seg++].len = d.length;
			fr->len += d.length;
		} while (more && avail != 0);
		/* A chain goes on past what the peer published: it never ends. */
		if (unlikely(bad || more)) {
			/* The frame is one drop; the descriptors it wasted are
			 * what gets a peer cut off (a chain that never ends
			 * is as many bad descriptors as it has). */
			pc->drops[DROP_BAD_DESC]++;
			c->bad_desc += descs;
			continue;
		}
		got++;
	}
	return got;
}

uint16_t memif_rx_frames(struct dp_port *p, uint16_t q, struct dp_frame *f, uint16_t n,
			 struct port_counters *ctr)
{
	struct memif_conn *c = conn_of(p);
	struct memif_qring *r;
	uint16_t avail;

	/* A view older than this connection may name a ring it lacks. */
	if (unlikely(c == NULL || q >= c->n_rx))
		return 0;
	r = &c->rx[q];
	/* Server: what the head last promised; it is read again only when
	 * that is short of the burst (port.h: seen). */
	avail = (uint16_t)(r->seen - r->last);
	if (c->server && avail < n) {
		uint16_t head = __atomic_load_n(&r->ring->head, __ATOMIC_ACQUIRE);

		avail = memif_ring_count(head, r->last, r->size);
		if (unlikely(avail == MEMIF_RING_BAD)) {
			conn_broken(c, "s2m ring head %u is more than a ring ahead of %u", head,
				    r->last);
			return 0;
		}
		r->seen = head;
	} else if (!c->server) {
		uint16_t tail = __atomic_load_n(&r->ring->tail, __ATOMIC_ACQUIRE);

		avail = memif_ring_count(tail, r->last, (uint16_t)(r->posted - r->last));
		if (unlikely(avail == MEMIF_RING_BAD)) {
			conn_broken(c, "m2s ring tail %u passed the head %u podwired posted", tail,
				    r->posted);
			return 0;
		}
	}
	return rx_ring(c, r, avail, f, n, &ctr[p->idx]);
}

/* Gives back the slots read by the last rx_frames: the server moves the
 * tail; the client posts its buffers again and moves the head. */
void memif_rx_release(struct dp_port *p, uint16_t q)
{
	struct memif_conn *c =
	    __atomic_load_n(&((struct memif_port *)p->priv)->conn, __ATOMIC_ACQUIRE);
	struct memif_qring *r;

	if (unlikely(c == NULL || q >= c->n_rx))
		return;
	r = &c->rx[q];
	if (r->released == r->last)
		return;
	if (!c->server) {
		for (uint16_t s = r->released; s != r->last; s++)
			memif_desc_post(&r->ring->desc[s & r->mask], 0,
					r->buf_offset + (uint32_t)(s & r->mask) * r->buf_size,
					r->buf_size);
		r->posted += (uint16_t)(r->last - r->released);
		__atomic_store_n(&r->ring->head, r->posted, __ATOMIC_RELEASE);
	} else {
		__atomic_store_n(&r->ring->tail, r->last, __ATOMIC_RELEASE);
	}
	r->released = r->last;
}

/* ---- transmit ------------------------------------------------------------------ */

/* The ring worker w sends on: its own when the peer gave enough. */
static inline uint16_t tx_ring_of(const struct memif_conn *c, uint16_t w)
{
	return c->n_tx > 1 ? (uint16_t)(w % c->n_tx) : 0;
}

/* How many slots the sender may fill, at least want when there are: for
 * the server, what the peer posted (its head read again only when what
 * it last promised is short of want); for the client, what the peer gave
 * back. MEMIF_RING_BAD when the peer's index is impossible. */
static inline uint16_t tx_room(struct memif_conn *c, struct memif_qring *r, uint16_t want)
{
	if (c->server) {
		uint16_t room = (uint16_t)(r->seen - r->last), head;

		if (room >= want)
			return room;
		head = __atomic_load_n(&r->ring->head, __ATOMIC_ACQUIRE);
		room = memif_ring_count(head, r->last, r->size);
		if (unlikely(room == MEMIF_RING_BAD))
			conn_broken(c, "m2s ring head %u is more than a ring ahead of %u", head,
				    r->last);
		else
			r->seen = head;
		return room;
	} else {
		uint16_t tail = __atomic_load_n(&r->ring->tail, __ATOMIC_ACQUIRE);
		uint16_t used = memif_ring_count(r->last, tail, r->size);

		if (unlikely(used == MEMIF_RING_BAD)) {
			conn_broken(c, "s2m ring tail %u is ahead of the head %u", tail, r->last);
			return MEMIF_RING_BAD;
		}
		return (uint16_t)(r->size - used);
	}
}

/* Where the next len bytes of a frame go, in slot (its k-th): the server
 * fills the peer's posted buffer (checked), the client its own. Sets
 * *cap to the buffer's size; NULL when the peer posted a bad one. */
static inline uint8_t *tx_slot(struct memif_conn *c, struct memif_qring *r, uint16_t slot,
			       uint32_t *cap)
{
	if (c->server) {
		struct memif_desc d = memif_desc_read(&r->ring->desc[slot & r->mask]);
		uint8_t *ptr = seg_ptr(c, &d, d.length);

		*cap = d.length;
		return ptr;
	}
	*cap = r->buf_size;
	return own_buf(c, r, slot);
}

/* Most slots one frame may take: 9018 bytes in the smallest buffers a
 * peer may post (MEMIF_MIN_BUFFER) take 71. */
#define TX_CHAIN_MAX 128

/* Slots looked up ahead of a burst's copies: one per frame of a burst. */
#define TX_AHEAD 32

/* The next slots' buffers, looked up before anything is copied. The
 * buffers are the peer's, last touched by its core: fetched one by one,
 * each copy would wait for its line in turn; asked for together, the
 * misses overlap. A server's descriptors are read once, here. */
struct tx_ahead {
	uint16_t first; /* the slot of dst[0] */
	uint16_t n;
	uint8_t *dst[TX_AHEAD]; /* NULL: the peer posted a bad buffer */
	uint32_t cap[TX_AHEAD];
};

static inline void tx_look_ahead(struct memif_conn *c, struct memif_qring *r, uint16_t k,
				 struct tx_ahead *a)
{
	a->first = r->last;
	a->n = RTE_MIN(k, (uint16_t)TX_AHEAD);
	/* The server reads the peer's descriptors and then writes them:
	 * their lines are asked for with intent to write, once. */
	for (uint16_t i = 0; c->server && i < a->n; i++) {
		uint16_t slot = (uint16_t)(a->first + i) & r->mask;

		if (memif_desc_line_start(i, slot))
			memif_prefetch_write(&r->ring->desc[slot]);
	}
	for (uint16_t i = 0; i < a->n; i++) {
		a->dst[i] = tx_slot(c, r, (uint16_t)(a->first + i), &a->cap[i]);
		if (likely(a->dst[i] != NULL))
			memif_prefetch_write(a->dst[i]);
	}
}

/* The descriptor of a filled slot: the server sets the length and flags
 * of the buffer the peer posted; the client describes its own buffer. */
static inline void tx_desc(struct memif_conn *c, struct memif_qring *r, uint16_t slot, uint32_t len,
			   bool more)
{
	struct memif_desc *d = &r->ring->desc[slot & r->mask];

	if (c->server)
		memif_desc_fill(d, len, more);
	else
		memif_desc_post_frame(
		    d, 0, r->buf_offset + (uint32_t)(slot & r->mask) * r->buf_size, len, more);
}

/* Writes one frame of len bytes, read by copy(src, off, dst, n), into the
 * ring from r->last on; at most room slots. Returns the slots used, 0 when
 * it does not fit, or MEMIF_RING_BAD when the peer posted a bad buffer.
 * Descriptors are written only once the whole frame fits: a frame that
 * does not leaves the peer's posted buffers as they were. */
static inline __attribute__((always_inline)) uint16_t
tx_one(struct memif_conn *c, struct memif_qring *r, const struct tx_ahead *a, uint16_t room,
       uint32_t len,
       void (*copy)(const void *src, uint8_t strip, uint32_t off, uint8_t *dst, uint32_t n),
       const void *src, uint8_t strip)
{
	uint32_t lens[TX_CHAIN_MAX];
	uint32_t off = 0;
	uint16_t used = 0, j = (uint16_t)(r->last - a->first);

	/* Most frames: one slot, already looked up; no chain to build. */
	if (likely(j < a->n && room != 0 && len != 0 && len <= a->cap[j] && a->dst[j] != NULL)) {
		copy(src, strip, 0, a->dst[j], len);
		tx_desc(c, r, r->last, len, false);
		return 1;
	}
	while (off < len) {
		uint16_t slot = (uint16_t)(r->last + used);
		uint32_t cap, k;
		uint8_t *dst;

		j = (uint16_t)(slot - a->first);
		if (used == room || used == TX_CHAIN_MAX)
			return 0;
		if (likely(j < a->n)) {
			dst = a->dst[j];
			cap = a->cap[j];
		} else {
			dst = tx_slot(c, r, slot, &cap);
		}
		if (unlikely(dst == NULL)) {
			conn_broken(
			    c, "m2s slot %u: the peer posted a buffer outside its regions (%u)",
			    slot, cap);
			return MEMIF_RING_BAD;
		}
		k = RTE_MIN(cap, len - off);
		copy(src, strip, off, dst, k);
		off += k;
		lens[used++] = k;
	}
	for (uint16_t i = 0; i < used; i++)
		tx_desc(c, r, (uint16_t)(r->last + i), lens[i], i + 1 < used);
	return used;
}

/* Publishes what was written and kicks a peer that asked for interrupts. */
static inline void tx_publish(struct memif_conn *c, struct memif_qring *r)
{
	if (c->server)
		__atomic_store_n(&r->ring->tail, r->last, __ATOMIC_RELEASE);
	else
		__atomic_store_n(&r->ring->head, r->last, __ATOMIC_RELEASE);
	/* A peer going to sleep clears MASK_INT and then looks at the ring
	 * again; we moved the index and now look at its flag. Without a full
	 * fence between the store and the load, both could miss the other
	 * and the peer would sleep on a frame (a Dekker pair). */
	rte_atomic_thread_fence(__ATOMIC_SEQ_CST);
	if (unlikely(
		!(__atomic_load_n(&r->ring->flags, __ATOMIC_RELAXED) & MEMIF_RING_FLAG_MASK_INT)))
		memif_kick_request(r);
}

static void copy_frame(const void *src, uint8_t strip, uint32_t off, uint8_t *dst, uint32_t n)
{
	const struct dp_frame *f = src;

	/* Most frames: one segment into one slot, untagged on the way; the
	 * header from the private copy when a decision was made on it. */
	if (likely(off == 0 && strip == 0 && f->n_seg == 1 && n == f->len)) {
		if (f->hdr_len == 0) {
			rte_memcpy(dst, f->seg[0].data, n);
			return;
		}
		if (likely(f->hdr_len == DP_FRAME_HDR_MAX)) {
			memcpy(dst, f->hdr, DP_FRAME_HDR_MAX);
			rte_memcpy(dst + DP_FRAME_HDR_MAX, f->seg[0].data + DP_FRAME_HDR_MAX,
				   n - DP_FRAME_HDR_MAX);
			return;
		}
	}
	dp_frame_read(f, strip, off, dst, n);
}

/* What a burst of n frames needs before its copies, for memif_tx_frames
 * and memif_tx_burst alike: the connection, the ring, its room and the
 * slots looked up ahead. NULL when nothing can be sent (no connection, or
 * the peer's index is impossible). */
static inline struct memif_qring *tx_begin(struct dp_port *p, uint16_t w, uint16_t n,
					   struct memif_conn **cp, uint16_t *room,
					   struct tx_ahead *a)
{
	struct memif_conn *c = conn_of(p);
	struct memif_qring *r;

	if (unlikely(c == NULL))
		return NULL;
	r = &c->tx[tx_ring_of(c, w)];
	if (c->tx_shared)
		rte_spinlock_lock(&r->lock);
	*room = tx_room(c, r, n);
	if (unlikely(*room == MEMIF_RING_BAD)) {
		if (c->tx_shared)
			rte_spinlock_unlock(&r->lock);
		return NULL;
	}
	tx_look_ahead(c, r, RTE_MIN(*room, n), a);
	*cp = c;
	return r;
}

/* Publishes what was written (if anything), lets go of the ring, and
 * counts the frames on the ring's queue. */
static inline void tx_end(struct dp_port *p, uint16_t w, struct memif_conn *c,
			  struct memif_qring *r, uint16_t sent)
{
	if (sent != 0)
		tx_publish(c, r);
	if (c->tx_shared)
		rte_spinlock_unlock(&r->lock);
	stats_queue(w, p->idx, (uint16_t)(r - c->tx))->tx_packets += sent;
}

uint16_t memif_tx_frames(struct dp_port *p, uint16_t w, struct dp_frame *const *f,
			 const uint8_t *strip, uint16_t n)
{
	struct memif_conn *c;
	struct tx_ahead a;
	uint16_t room, sent = 0;
	struct memif_qring *r = tx_begin(p, w, n, &c, &room, &a);

	if (unlikely(r == NULL))
		return 0;
	for (; sent < n; sent++) {
		uint16_t used = tx_one(c, r, &a, room, dp_frame_out_len(f[sent], strip[sent]),
				       copy_frame, f[sent], strip[sent]);

		if (used == 0 || used == MEMIF_RING_BAD)
			break;
		r->last = (uint16_t)(r->last + used);
		room = (uint16_t)(room - used);
	}
	tx_end(p, w, c, r, sent);
	return sent;
}

static void copy_mbuf(const void *src, uint8_t strip, uint32_t off, uint8_t *dst, uint32_t n)
{
	const struct rte_mbuf *m = src;

	(void)strip;
	/* A chain shorter than its pkt_len (a bug elsewhere) is read up to
	 * its end and no further: the rest of the slot is zeroes. */
	while (m != NULL && off >= m->data_len) {
		off -= m->data_len;
		m = m->next;
	}
	while (n != 0 && m != NULL) {
		uint32_t k = RTE_MIN(n, (uint32_t)m->data_len - off);

		memcpy(dst, rte_pktmbuf_mtod_offset(m, const uint8_t *, off), k);
		dst += k;
		n -= k;
		off = 0;
		m = m->next;
	}
	if (unlikely(n != 0))
		memset(dst, 0, n);
}

uint16_t memif_tx_burst(struct dp_port *p, uint16_t w, struct rte_mbuf **pkts, uint16_t n)
{
	struct memif_conn *c;
	struct tx_ahead a;
	uint16_t room, sent = 0;
	struct memif_qring *r = tx_begin(p, w, n, &c, &room, &a);

	if (unlikely(r == NULL))
		return 0;
	for (; sent < n; sent++) {
		uint16_t used =
		    tx_one(c, r, &a, room, pkts[sent]->pkt_len, copy_mbuf, pkts[sent], 0);

		if (used == 0 || used == MEMIF_RING_BAD)
			break;
		r->last = (uint16_t)(r->last + used);
		room = (uint16_t)(room - used);
	}
	tx_end(p, w, c, r, sent);
	/* The peer has its copy. */
	rte_pktmbuf_free_bulk(pkts, sent);
	return sent;
}

/* ---- ring set-up, control thread, before the link goes up ------------------ */

void memif_client_rings_init(struct memif_conn *c)
{
	for (uint16_t k = 0; k < c->n_tx; k++) {
		struct memif_qring *r = &c->tx[k];

		memset(r->ring, 0, memif_ring_bytes(r->log2));
		r->ring->cookie = MEMIF_COOKIE;
	}
	for (uint16_t k = 0; k < c->n_rx; k++) {
		struct memif_qring *r = &c->rx[k];

		memset(r->ring, 0, memif_ring_bytes(r->log2));
		r->ring->cookie = MEMIF_COOKIE;
	}
}

void memif_client_rings_post(struct memif_conn *c)
{
	/* The server reset every index when it took CONNECT. */
	for (uint16_t k = 0; k < c->n_tx; k++) {
		c->tx[k].last = 0;
		__atomic_store_n(&c->tx[k].ring->head, 0, __ATOMIC_RELAXED);
	}
	for (uint16_t k = 0; k < c->n_rx; k++) {
		struct memif_qring *r = &c->rx[k];

		/* We poll: no kicks wanted on what we receive. */
		r->ring->flags = MEMIF_RING_FLAG_MASK_INT;
		for (uint16_t s = 0; s < r->size; s++)
			memif_desc_post(&r->ring->desc[s], 0,
					r->buf_offset + (uint32_t)s * r->buf_size, r->buf_size);
		r->last = r->released = 0;
		r->posted = r->size;
		__atomic_store_n(&r->ring->head, r->posted, __ATOMIC_RELEASE);
	}
}

void memif_server_rings_init(struct memif_conn *c)
{
	for (uint16_t k = 0; k < c->n_rx; k++) {
		struct memif_qring *r = &c->rx[k];

		__atomic_store_n(&r->ring->head, 0, __ATOMIC_RELAXED);
		__atomic_store_n(&r->ring->tail, 0, __ATOMIC_RELAXED);
		/* We poll: no kicks wanted on what we receive. */
		r->ring->flags = MEMIF_RING_FLAG_MASK_INT;
		r->last = r->released = r->seen = 0;
	}
	for (uint16_t k = 0; k < c->n_tx; k++) {
		struct memif_qring *r = &c->tx[k];

		__atomic_store_n(&r->ring->head, 0, __ATOMIC_RELAXED);
		__atomic_store_n(&r->ring->tail, 0, __ATOMIC_RELEASE);
		r->last = r->seen = 0;
	}
}
