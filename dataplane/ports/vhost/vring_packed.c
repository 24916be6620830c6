/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Packed virtqueues (VIRTIO_F_RING_PACKED, virtio 1.1 section 2.7) of
 * podwired's own vhost-user rings; the contract is vring.h's.
 *
 * One ring of descriptors serves both directions: the driver makes a
 * descriptor available by writing its flags with AVAIL equal to its wrap
 * counter and USED the opposite; the device hands a buffer back by
 * writing one descriptor (the buffer id, the length written) at its own
 * used position with AVAIL = USED = its wrap counter, and moves on by as
 * many slots as the buffer took. The driver writes a chain's first flags
 * last, so one acquire load of them orders every other read of the chain;
 * the device does the same in reverse (a batch's first used flags last,
 * with a release store), so the driver sees a batch whole or not at all.
 *
 * Every descriptor is copied once into a local and only the copy is used:
 * the guest may rewrite the ring at any moment. Buffer ids are only
 * echoed back (used positions come from the slots chains took, not from
 * ids), so an id in range twice in flight harms the driver alone and is
 * not checked; one out of range breaks the ring.
 *
 * The device's own event suppression (device_event: whether the guest
 * kicks) is port.c's: podwired polls and never needs a kick.
 */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <rte_atomic.h>
#include <rte_memcpy.h>
#include <rte_prefetch.h>

#include "ports/vhost/vring.h"

#define PK_F_AVAIL (1u << VRING_PACKED_DESC_F_AVAIL)
#define PK_F_USED  (1u << VRING_PACKED_DESC_F_USED)
/* Pieces of guest memory one transmitted frame may be written to: a
 * guest's receive chain of 19 page-sized descriptors (Linux's "big
 * packets") or a 9000-byte frame in 1.5 KiB mergeable buffers fit. */
#define PK_TX_SEGS 64
/* Used descriptors gathered before they are written out. */
#define PK_USED_MAX 128
/* A received frame larger than this is a bad chain: no negotiated
 * feature of this path (no TSO) lets a guest send more. */
#define PK_RX_MAX_LEN 65535u

enum pk_res {
	PK_NONE,   /* no chain available */
	PK_OK,	   /* a chain, translated */
	PK_BAD,	   /* a chain that fails the checks: to be handed back unused */
	PK_FULL,   /* a chain whose pieces do not fit the room left */
	PK_BROKEN, /* the ring is broken (vring_broken called) */
};

struct pk_chain {
	uint16_t id;
	uint16_t n_desc; /* slots the chain takes in the ring */
	uint64_t len;	 /* bytes of its buffers (receive: after the header) */
};

/* A used descriptor to write: where, and what. */
struct pk_used {
	uint16_t slot;
	uint16_t id;
	uint16_t flags;
	uint32_t len;
};

static inline bool pk_avail(uint16_t flags, bool wrap)
{
	return !!(flags & PK_F_AVAIL) == wrap && !!(flags & PK_F_USED) != wrap;
}

static inline void pk_advance(uint16_t *slot, bool *wrap, uint16_t n, uint16_t size)
{
	uint32_t s = (uint32_t)*slot + n;

	if (s >= size) {
		s -= size;
		*wrap = !*wrap;
	}
	*slot = (uint16_t)s;
}

/* One descriptor copied out of guest memory: after the barrier the
 * compiler cannot go back to the guest's copy for a field. */
static inline void pk_read_desc(struct vring_packed_desc *d, const struct vring_packed_desc *g)
{
	*d = *g;
	rte_compiler_barrier();
}

/* Checks one buffer descriptor (the copy d) and appends its host pieces
 * to seg; *skip bytes at the front (the virtio-net header on a receive
 * chain) are checked but left out. */
static __rte_always_inline enum pk_res pk_buf(const struct vhost_vq *vq,
					      const struct vring_packed_desc *d, bool writable,
					      uint32_t *skip, struct dp_seg *seg, uint16_t *n_seg,
					      uint16_t max, uint64_t *len)
{
	uint64_t addr = d->addr;
	uint32_t l = d->len;

	if (unlikely(!!(d->flags & VRING_DESC_F_WRITE) != writable))
		return PK_BAD;
	if (!writable && unlikely(*skip != 0)) {
		uint32_t h = RTE_MIN(*skip, l);

		/* The header is not read, but it must be guest memory all the
		 * same: a chain pointing outside is bad whatever part does. */
		if (vring_gpa(vq->mem, addr, h) == NULL) {
			struct dp_seg tmp[VRING_MAX_REGIONS];
			uint16_t nt = 0;

			if (!vring_translate(vq->mem, addr, h, tmp, &nt, VRING_MAX_REGIONS))
				return PK_BAD;
		}
		*skip -= h;
		addr += h;
		l -= h;
	}
	if (likely(*n_seg < max)) {
		/* The common case: the whole buffer in one region. */
		uint8_t *p = vring_gpa(vq->mem, addr, l);

		if (likely(p != NULL)) {
			if (l != 0) {
				seg[*n_seg].data = p;
				seg[*n_seg].len = l;
				(*n_seg)++;
			}
			*len += l;
			return PK_OK;
		}
	}
	if (!vring_translate(vq->mem, addr, l, seg, n_seg, max)) {
		/* Out of room is not the guest's fault when the pieces are
		 * guest memory: the caller decides (vring_gpa of the part
		 * left tells apart only roughly; a bad address is bad). */
		return *n_seg >= max ? PK_FULL : PK_BAD;
	}
	*len += l;
	return PK_OK;
}

/* An indirect table: len/16 descriptors, consecutive (no NEXT in a
 * packed table), none indirect itself. */
static __rte_always_inline enum pk_res pk_indirect(const struct vhost_vq *vq,
						   const struct vring_packed_desc *d, bool writable,
						   uint32_t *skip, struct dp_seg *seg,
						   uint16_t *n_seg, uint16_t max, uint64_t *len)
{
	const struct vring_packed_desc *t;
	uint32_t n = d->len / sizeof(*t);

	if (unlikely(!(vq->feat & VRING_F_INDIRECT) || d->len == 0 || d->len % sizeof(*t) != 0 ||
		     n > VRING_MAX_INDIRECT))
		return PK_BAD;
	/* A table must lie whole within one region: no driver splits one
	 * and reading it in pieces would cost every frame a check. */
	t = (const struct vring_packed_desc *)vring_gpa(vq->mem, d->addr, d->len);
	/* Entries are read as descriptors: a table not aligned to their
	 * 8-byte address field is refused (no driver makes one). */
	if (unlikely(t == NULL || ((uintptr_t)t & 7) != 0))
		return PK_BAD;
	for (uint32_t i = 0; i < n; i++) {
		struct vring_packed_desc e;
		enum pk_res r;

		pk_read_desc(&e, &t[i]);
		if (unlikely(e.flags & VRING_DESC_F_INDIRECT))
			return PK_BAD;
		/* DPDK 22.11's virtio driver fills its transmit tables with
		 * WRITE on every entry (vring_desc_init_indirect_packed) and
		 * never clears it: on a chain podwired only reads, the flag
		 * is ignored (reading a buffer the guest offered for writing
		 * hurts no one); a receive chain still needs it. */
		if (!writable)
			e.flags &= (uint16_t)~VRING_DESC_F_WRITE;
		r = pk_buf(vq, &e, writable, skip, seg, n_seg, max, len);
		if (unlikely(r != PK_OK))
			return r;
	}
	return PK_OK;
}

/* Takes the chain at (slot, wrap) if the driver made one available: its
 * buffers' pieces appended to seg, its id and length in c. A chain that
 * fails the checks is still walked to its end (its id and size are
 * needed to hand it back); one that does not end within the ring's size,
 * or an id out of range, breaks the ring. */
static __rte_always_inline enum pk_res pk_take(struct vhost_vq *vq, uint16_t slot, bool wrap,
					       bool writable, uint32_t skip, struct dp_seg *seg,
					       uint16_t *n_seg, uint16_t max, struct pk_chain *c)
{
	const struct vring_packed_desc *ring = vq->desc_packed;
	enum pk_res res = PK_OK;
	uint16_t n = 0, n0 = *n_seg;
	struct vring_packed_desc d;

	if (!pk_avail(__atomic_load_n(&ring[slot].flags, __ATOMIC_ACQUIRE), wrap))
		return PK_NONE;
	c->len = 0;
	for (;;) {
		pk_read_desc(&d, &ring[slot]);
		n++;
		if (res == PK_OK) {
			if (d.flags & VRING_DESC_F_INDIRECT) {
				/* Indirect: the chain's only descriptor. */
				if (unlikely(n != 1 || (d.flags & VRING_DESC_F_NEXT)))
					res = PK_BAD;
				else
					res = pk_indirect(vq, &d, writable, &skip, seg, n_seg, max,
							  &c->len);
			} else {
				res = pk_buf(vq, &d, writable, &skip, seg, n_seg, max, &c->len);
			}
		}
		if (!(d.flags & VRING_DESC_F_NEXT))
			break;
		if (unlikely(n == vq->size)) {
			vring_broken(vq,
				     "packed ring: a chain longer than the ring (%u descriptors)",
				     vq->size, 0);
			return PK_BROKEN;
		}
		slot = slot + 1 == vq->size ? 0 : slot + 1;
	}
	if (unlikely(d.id >= vq->size)) {
		vring_broken(vq, "packed ring: buffer id %u, the ring has %u", d.id, vq->size);
		return PK_BROKEN;
	}
	c->id = d.id;
	c->n_desc = n;
	if (res != PK_OK)
		*n_seg = n0;
	return res;
}

/* Writes used descriptors: ids and lengths first, then every flags but
 * the first, then the first with a release store: the driver, which
 * reads from the first, sees the batch whole. */
static void pk_publish(struct vhost_vq *vq, const struct pk_used *u, uint16_t n)
{
	struct vring_packed_desc *ring = vq->desc_packed;

	if (n == 0)
		return;
	for (uint16_t i = 0; i < n; i++) {
		ring[u[i].slot].id = u[i].id;
		ring[u[i].slot].len = u[i].len;
	}
	rte_atomic_thread_fence(__ATOMIC_RELEASE);
	for (uint16_t i = 1; i < n; i++)
		__atomic_store_n(&ring[u[i].slot].flags, u[i].flags, __ATOMIC_RELAXED);
	__atomic_store_n(&ring[u[0].slot].flags, u[0].flags, __ATOMIC_RELEASE);
}

/* Records the used descriptor of a chain at the device's used position
 * and moves that on by the slots the chain took. */
static inline void pk_use(struct vhost_vq *vq, struct pk_used *u, uint16_t id, uint16_t n_desc,
			  uint32_t len)
{
	u->slot = vq->last_used;
	u->id = id;
	u->len = len;
	/* WRITE with a length: without it the length is reserved and a
	 * driver may ignore it (virtio 1.1, 2.7.4). */
	u->flags = (uint16_t)((vq->used_wrap ? (PK_F_AVAIL | PK_F_USED) : 0) |
			      (len != 0 ? VRING_DESC_F_WRITE : 0));
	pk_advance(&vq->last_used, &vq->used_wrap, n_desc, vq->size);
}

/* The ring position as a number that grows by one a slot, modulo twice
 * the size: the wrap counter starts at 1, so a lap with it 0 is the
 * second half. */
static inline uint32_t pk_lin(uint16_t slot, bool wrap, uint16_t size)
{
	return slot + (wrap ? 0u : size);
}

/* Signals the guest after used descriptors from (old_slot, old_wrap) up
 * to the current used position were published, as its event suppression
 * structure asks: ENABLE always, DISABLE never, DESC (EVENT_IDX only)
 * when the descriptor it names -- a slot and the wrap counter the device
 * has when it writes there -- was among those just written. */
static void pk_signal(struct vhost_vq *vq, uint16_t old_slot, bool old_wrap)
{
	const volatile struct vring_packed_desc_event *ev = vq->driver_event;
	uint32_t two = 2u * vq->size, o, d_new, d_ev;
	uint16_t flags, off_wrap;

	/* The used flags must be visible before the driver's event flags
	 * are read (a store then a load: only a full fence orders them), or
	 * a driver that enables events after seeing nothing waits forever. */
	rte_atomic_thread_fence(__ATOMIC_SEQ_CST);
	flags = ev->flags;
	if (flags == VRING_PACKED_EVENT_FLAG_DISABLE)
		return;
	if (flags == VRING_PACKED_EVENT_FLAG_DESC && (vq->feat & VRING_F_EVENT_IDX)) {
		off_wrap = ev->off_wrap;
		/* An offset no driver writes: signal (a call too many costs
		 * the guest an interrupt; one too few could stall it). */
		if ((off_wrap & 0x7fff) < vq->size) {
			o = pk_lin(old_slot, old_wrap, vq->size);
			d_new = (pk_lin(vq->last_used, vq->used_wrap, vq->size) + two - o) % two;
			d_ev =
			    (pk_lin(off_wrap & 0x7fff, off_wrap >> 15, vq->size) + two - o) % two;
			if (d_ev >= d_new)
				return;
		}
	}
	vring_call(vq);
}

static inline bool pk_is_broken(const struct vhost_vq *vq)
{
	return unlikely(__atomic_load_n(vq->broken, __ATOMIC_RELAXED) != 0);
}

uint16_t vring_packed_rx(struct vhost_vq *vq, struct dp_frame *f, uint16_t n)
{
	uint16_t got = 0, held0 = vq->n_held;

	if (pk_is_broken(vq))
		return 0;
	n = RTE_MIN(n, (uint16_t)(VRING_MAX_HELD - vq->n_held));
	while (vq->n_held < VRING_MAX_HELD && got < n) {
		struct dp_frame *fr = &f[got];
		struct pk_chain c;
		enum pk_res r;

		fr->n_seg = 0;
		r = pk_take(vq, vq->last_avail, vq->avail_wrap, false, vq->hdr_len, fr->seg,
			    &fr->n_seg, DP_FRAME_SEGS, &c);
		if (r == PK_NONE)
			break;
		if (unlikely(r == PK_BROKEN))
			return 0;
		pk_advance(&vq->last_avail, &vq->avail_wrap, c.n_desc, vq->size);
		vq->held[vq->n_held].id = c.id;
		vq->held[vq->n_held].n_desc = c.n_desc;
		vq->n_held++;
		/* More pieces than a frame has (PK_FULL), a header longer than
		 * the chain, an empty frame: handed back unused. */
		if (unlikely(r != PK_OK || c.len == 0 || c.len > PK_RX_MAX_LEN)) {
			vq->st.bad_desc++;
			continue;
		}
		fr->len = (uint32_t)c.len;
		fr->hdr_len = 0;
		rte_prefetch0(fr->seg[0].data);
		got++;
	}
	/* Only bad chains: a worker releases only after frames, so they go
	 * back now; else a guest whose every chain fails would fill held and
	 * stall its ring, and a lone bad chain would wait for the next good
	 * frame. */
	if (unlikely(got == 0 && held0 == 0 && vq->n_held != 0))
		vring_packed_rx_release(vq);
	return got;
}

void vring_packed_rx_release(struct vhost_vq *vq)
{
	struct pk_used u[VRING_MAX_HELD];
	uint16_t old_slot = vq->last_used;
	bool old_wrap = vq->used_wrap;

	if (vq->n_held == 0)
		return;
	/* A broken ring is the control thread's to end: nothing more is
	 * written into it. */
	if (pk_is_broken(vq)) {
		vq->n_held = 0;
		return;
	}
	for (uint16_t i = 0; i < vq->n_held; i++)
		pk_use(vq, &u[i], vq->held[i].id, vq->held[i].n_desc, 0);
	pk_publish(vq, u, vq->n_held);
	vq->n_held = 0;
	pk_signal(vq, old_slot, old_wrap);
}

/* Writes src (n bytes) at the cursor (piece *p, offset *po) of seg. */
static inline void pk_put(const struct dp_seg *seg, uint16_t *p, uint32_t *po, const uint8_t *src,
			  uint32_t n)
{
	while (n != 0) {
		uint32_t k = RTE_MIN(n, seg[*p].len - *po);

		rte_memcpy((uint8_t *)(uintptr_t)seg[*p].data + *po, src, k);
		src += k;
		n -= k;
		*po += k;
		if (*po == seg[*p].len) {
			(*p)++;
			*po = 0;
		}
	}
}

/* Copies one frame as forwarded (dp_frame f with strip, or mbuf m) to
 * the cursor of seg. */
static __rte_always_inline void pk_copy(const struct dp_seg *seg, uint16_t *p, uint32_t *po,
					const struct dp_frame *f, uint8_t strip,
					const struct rte_mbuf *m, uint32_t len)
{
	uint32_t off = 0, mo = 0;

	while (off < len) {
		uint8_t *dst = (uint8_t *)(uintptr_t)seg[*p].data + *po;
		uint32_t k = RTE_MIN(len - off, seg[*p].len - *po);

		if (f != NULL) {
			dp_frame_read(f, strip, off, dst, k);
		} else {
			/* Mbuf segments against guest pieces. */
			for (uint32_t left = k; left != 0;) {
				uint32_t j;

				while (mo == m->data_len) {
					m = m->next;
					mo = 0;
				}
				j = RTE_MIN(left, (uint32_t)m->data_len - mo);
				rte_memcpy(dst, rte_pktmbuf_mtod_offset(m, const uint8_t *, mo), j);
				dst += j;
				mo += j;
				left -= j;
			}
		}
		off += k;
		*po += k;
		if (*po == seg[*p].len) {
			(*p)++;
			*po = 0;
		}
	}
}

/* Both transmit paths: f (with strip) or m. */
static __rte_always_inline uint16_t pk_tx(struct vhost_vq *vq, struct dp_frame *const *f,
					  const uint8_t *strip, struct rte_mbuf *const *m,
					  uint16_t n)
{
	const bool mrg = vq->feat & VRING_F_MRG_RXBUF;
	uint16_t old_slot = vq->last_used, nu = 0, sent = 0, bad = 0;
	struct pk_used used[PK_USED_MAX];
	bool old_wrap = vq->used_wrap;
	struct dp_seg seg[PK_TX_SEGS];
	struct pk_chain ch[PK_TX_SEGS];

	if (pk_is_broken(vq))
		return 0;
	while (sent < n) {
		const struct dp_frame *fr = f != NULL ? f[sent] : NULL;
		const struct rte_mbuf *mb = m != NULL ? m[sent] : NULL;
		uint8_t st = fr != NULL && strip != NULL ? strip[sent] : 0;
		uint32_t flen = fr != NULL ? dp_frame_out_len(fr, st) : rte_pktmbuf_pkt_len(mb);
		uint64_t need = (uint64_t)vq->hdr_len + flen, cap = 0;
		uint16_t ns = 0, nc = 0, slot = vq->last_avail, p = 0;
		bool wrap = vq->avail_wrap, drop = false;
		uint32_t scanned = 0, po = 0, left;
		uint8_t hdr[32]; /* 12 today; 20 with hash reports */

		if (sent + 1 < n) {
			if (f != NULL)
				rte_prefetch0(f[sent + 1]->seg[0].data);
			else
				rte_prefetch0(rte_pktmbuf_mtod(m[sent + 1], void *));
		}
		/* Room for every chain this frame may take and the bad ones
		 * handed back on the way (flushed again below if need be). */
		if (nu > PK_USED_MAX - PK_TX_SEGS - 1) {
			pk_publish(vq, used, nu);
			nu = 0;
		}
		while (cap < need) {
			struct pk_chain c;
			enum pk_res r;

			if (nu + nc + 1 > PK_USED_MAX) {
				pk_publish(vq, used, nu);
				nu = 0;
			}
			r = pk_take(vq, slot, wrap, true, 0, seg, &ns, PK_TX_SEGS, &c);
			if (r == PK_NONE)
				goto out; /* the frame waits for buffers */
			if (unlikely(r == PK_BROKEN)) {
				/* Nothing more is written: the ring is the control
				 * thread's to end. */
				return sent;
			}
			if (r == PK_FULL && nc != 0) {
				/* Good buffers, too many pieces for one frame. */
				drop = true;
				break;
			}
			if (unlikely(r != PK_OK || c.len == 0)) {
				/* A bad chain goes back unused. Mergeable buffers
				 * taken for this frame before it go back unused too
				 * (len 0, which every driver drops as too short): the
				 * used ring must keep the driver's order (IN_ORDER),
				 * and a bad buffer among a frame's num_buffers would be
				 * read as part of it. The frame tries the next ones. */
				vq->st.bad_desc++;
				bad++;
				for (uint16_t j = 0; j < nc; j++)
					pk_use(vq, &used[nu++], ch[j].id, ch[j].n_desc, 0);
				pk_use(vq, &used[nu++], c.id, c.n_desc, 0);
				vq->last_avail = vq->last_used;
				vq->avail_wrap = vq->used_wrap;
				slot = vq->last_avail;
				wrap = vq->avail_wrap;
				nc = 0;
				ns = 0;
				cap = 0;
				scanned = 0;
				/* A guest posting bad chains as fast as they go
				 * back would keep the worker here: the frames wait
				 * for the next call. */
				if (unlikely(bad >= VRING_MAX_HELD))
					goto out;
				continue;
			}
			ch[nc++] = c;
			cap += c.len;
			scanned += c.n_desc;
			pk_advance(&slot, &wrap, c.n_desc, vq->size);
			/* Without MRG_RXBUF a frame goes in one chain. One too
			 * small is left where it is, for the next frame (it may
			 * fit that; handing it back empty would only make the
			 * guest post it again) and the frame is dropped. With
			 * MRG_RXBUF a frame that could not fit even the whole
			 * ring, or more chains than pieces, is dropped. */
			if (cap < need && (!mrg || scanned >= vq->size || nc == PK_TX_SEGS)) {
				drop = true;
				break;
			}
		}
		if (unlikely(drop)) {
			vq->st.too_long++;
			sent++;
			continue;
		}
		/* The virtio-net header: no offload asked, and with
		 * MRG_RXBUF the count of buffers the frame took. */
		memset(hdr, 0, sizeof(hdr));
		if (mrg && vq->hdr_len >= sizeof(struct virtio_net_hdr_mrg_rxbuf)) {
			uint16_t nb = nc;

			memcpy(hdr + offsetof(struct virtio_net_hdr_mrg_rxbuf, num_buffers), &nb,
			       sizeof(nb));
		}
		pk_put(seg, &p, &po, hdr, vq->hdr_len);
		pk_copy(seg, &p, &po, fr, st, mb, flen);
		left = (uint32_t)need;
		for (uint16_t j = 0; j < nc; j++) {
			uint32_t l = (uint32_t)RTE_MIN((uint64_t)left, ch[j].len);

			pk_use(vq, &used[nu++], ch[j].id, ch[j].n_desc, l);
			left -= l;
		}
		vq->last_avail = vq->last_used;
		vq->avail_wrap = vq->used_wrap;
		sent++;
	}
out:
	if (sent == 0 && n != 0)
		vq->st.no_buffers++;
	pk_publish(vq, used, nu);
	if (vq->last_used != old_slot || vq->used_wrap != old_wrap)
		pk_signal(vq, old_slot, old_wrap);
	return sent;
}

uint16_t vring_packed_tx_frames(struct vhost_vq *vq, struct dp_frame *const *f,
				const uint8_t *strip, uint16_t n)
{
	return pk_tx(vq, f, strip, NULL, n);
}

uint16_t vring_packed_tx_mbufs(struct vhost_vq *vq, struct rte_mbuf *const *m, uint16_t n)
{
	return pk_tx(vq, NULL, NULL, m, n);
}
