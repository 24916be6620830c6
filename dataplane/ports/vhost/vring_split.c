/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Split virtqueues of podwired's own vhost-user rings (vring.h has the
 * contract and the threat model).
 *
 * The guest writes avail->idx, avail->ring[], the descriptors and
 * used_event (avail->ring[size]); the device (podwired) writes used->idx
 * and used->ring[]. Every value the guest writes is read once, into a
 * local, and checked there: an index against the ring, a descriptor's
 * buffer against the guest's memory, a chain's length against the ring's
 * size. A burst reads avail->idx once (acquire: the entries and
 * descriptors it covers are read after it) and publishes its used
 * entries with one release store of used->idx.
 */
#include <string.h>

#include <rte_atomic.h>
#include <rte_memcpy.h>
#include <rte_prefetch.h>

#include "ports/vhost/vring.h"

/* Buffers of one chain on a guest's receive ring that a frame may fill
 * (Linux's "big packets" mode posts 19 per chain). */
#define SPLIT_TX_SEGS 64
/* Chains one frame may take with MRG_RXBUF (9000 bytes in the smallest
 * buffers Linux posts, 1518, take 6). */
#define SPLIT_TX_CHAINS 32
/* Chains a transmit burst hands back unused before it stops: what a
 * guest that posts nothing but bad chains costs the worker. */
#define SPLIT_TX_BAD_MAX 64
/* Descriptors of one chain in the ring's table (and the ring's size, if
 * smaller): drivers use 19 at most (Linux: MAX_SKB_FRAGS + 2), and empty
 * descriptors in a loop would otherwise cost up to 32768 reads a chain. */
#define SPLIT_CHAIN_MAX 128
/* A received frame at most: the largest MTU virtio-net offers (16 bits)
 * with its Ethernet header and a tag. Guests that send larger (TSO) get
 * librte_vhost's path (port.c); anything larger here is a hostile chain
 * that would cost the worker a copy of up to its whole memory. */
#define SPLIT_FRAME_MAX (UINT16_MAX + 18u)

/* A descriptor as read once: every check and use is of this copy. */
struct split_desc {
	uint64_t addr;
	uint32_t len;
	uint16_t flags;
	uint16_t next;
};

static inline struct split_desc desc_read(const struct vring_desc *d)
{
	const volatile struct vring_desc *v = d;
	struct split_desc c;

	c.addr = v->addr;
	c.len = v->len;
	c.flags = v->flags;
	c.next = v->next;
	return c;
}

/* How many entries the guest made available since last_avail (read
 * once, acquire), or -1 when that is more than the ring holds: no valid
 * driver gets there. */
static inline int avail_count(struct vhost_vq *vr)
{
	uint16_t idx = __atomic_load_n(&vr->avail->idx, __ATOMIC_ACQUIRE);
	uint16_t count = (uint16_t)(idx - vr->last_avail);

	if (unlikely(count > vr->size)) {
		vring_broken(vr, "split ring: avail idx %u is more than a ring ahead of %u", idx,
			     vr->last_avail);
		return -1;
	}
	return count;
}

/* The head id of avail entry last_avail + i (read once), or -1 when it
 * is no descriptor of the ring (the connection is then broken). */
static inline int avail_head(struct vhost_vq *vr, uint16_t i)
{
	const volatile uint16_t *ring = vr->avail->ring;
	uint16_t id = ring[(uint16_t)(vr->last_avail + i) & (vr->size - 1)];

	if (unlikely(id >= vr->size)) {
		vring_broken(vr, "split ring: avail entry names descriptor %u of a ring of %u", id,
			     vr->size);
		return -1;
	}
	return id;
}

/* Walks the chain at head, appending its buffers (translated, checked
 * whole) to seg[*n_seg..max): for a guest's transmit ring (write false:
 * every descriptor device-readable), the first skip bytes left out; for
 * its receive ring (write true: every descriptor device-writable). Stops
 * at the end of the chain or once *cap reaches need. False when a
 * descriptor fails a check: the chain is then not to be used. */
static inline bool chain_walk(const struct vhost_vq *vr, uint16_t head, bool write, uint32_t skip,
			      uint32_t need, struct dp_seg *seg, uint16_t *n_seg, uint16_t max,
			      uint32_t *cap)
{
	const struct vring_desc *tab = vr->desc;
	uint32_t tab_n = vr->size;
	uint32_t left = RTE_MIN(tab_n, (uint32_t)SPLIT_CHAIN_MAX);
	uint16_t i = head;
	bool indirect = false;

	for (;;) {
		struct split_desc d;

		/* A chain longer than that loops, or costs more than any
		 * driver's chain. */
		if (unlikely(left-- == 0))
			return false;
		d = desc_read(&tab[i]);
		if (d.flags & VRING_DESC_F_INDIRECT) {
			if (unlikely(!(vr->feat & VRING_F_INDIRECT) || indirect ||
				     (d.flags & VRING_DESC_F_NEXT) || d.len == 0 ||
				     d.len % sizeof(struct vring_desc) != 0 ||
				     d.len > VRING_MAX_INDIRECT * sizeof(struct vring_desc)))
				return false;
			tab = (const struct vring_desc *)vring_gpa(vr->mem, d.addr, d.len);
			/* Entries are read as descriptors: a table not aligned
			 * to their 8-byte address field is refused (no driver
			 * makes one). */
			if (unlikely(tab == NULL || ((uintptr_t)tab & 7) != 0))
				return false;
			rte_prefetch0(tab);
			tab_n = left = d.len / sizeof(struct vring_desc);
			i = 0;
			indirect = true;
			continue;
		}
		if (unlikely(!!(d.flags & VRING_DESC_F_WRITE) != write))
			return false;
		if (skip != 0) {
			/* The virtio-net header, in this descriptor or its own:
			 * not read, but it must be the guest's memory too. */
			struct dp_seg hs[VRING_MAX_REGIONS];
			uint32_t k = RTE_MIN(skip, d.len);
			uint16_t hn = 0;

			if (unlikely(
				!vring_translate(vr->mem, d.addr, k, hs, &hn, VRING_MAX_REGIONS)))
				return false;
			d.addr += k;
			d.len -= k;
			skip -= k;
		}
		if (unlikely(d.len > UINT32_MAX - *cap ||
			     !vring_translate(vr->mem, d.addr, d.len, seg, n_seg, max)))
			return false;
		*cap += d.len;
		if (!(d.flags & VRING_DESC_F_NEXT) || *cap >= need)
			return skip == 0;
		i = d.next;
		if (unlikely(i >= tab_n))
			return false;
	}
}

/* Tells the guest about used entries up to new_used, if it asked:
 * with EVENT_IDX when used_event lies in (signalled, new_used]; else
 * unless it set NO_INTERRUPT. */
static inline void split_signal(struct vhost_vq *vr, uint16_t new_used)
{
	bool call;

	/* The used idx store must be visible before the guest's wishes are
	 * read, or a guest that just re-enabled interrupts and found nothing
	 * new would sleep through these entries (store-load: a full fence,
	 * once a burst). */
	rte_atomic_thread_fence(__ATOMIC_SEQ_CST);
	if (vr->feat & VRING_F_EVENT_IDX) {
		const volatile uint16_t *ring = vr->avail->ring;
		uint16_t ev = ring[vr->size];
		uint16_t old = vr->signalled_used;

		call = !vr->signalled_valid ||
		       (uint16_t)(new_used - ev - 1) < (uint16_t)(new_used - old);
		vr->signalled_used = new_used;
		vr->signalled_valid = true;
	} else {
		const volatile uint16_t *flags = &vr->avail->flags;

		call = !(*flags & VRING_AVAIL_F_NO_INTERRUPT);
	}
	if (call)
		vring_call(vr);
}

static inline void used_put(struct vhost_vq *vr, uint16_t slot, uint16_t id, uint32_t len)
{
	struct vring_used_elem *e = &vr->used->ring[slot & (vr->size - 1)];

	e->id = id;
	e->len = len;
}

/* ---- the guest's transmit ring --------------------------------------------- */

uint16_t vring_split_rx(struct vhost_vq *vr, struct dp_frame *f, uint16_t n)
{
	uint16_t heads[VRING_MAX_HELD];
	uint16_t got = 0, take;
	int count;

	n = RTE_MIN(n, (uint16_t)(VRING_MAX_HELD - vr->n_held));
	count = avail_count(vr);
	if (count <= 0 || n == 0)
		return 0;
	take = RTE_MIN((uint16_t)count, n);
	rte_prefetch0(&vr->avail->ring[vr->last_avail & (vr->size - 1)]);
	for (uint16_t i = 0; i < take; i++) {
		int id = avail_head(vr, i);

		if (unlikely(id < 0))
			return 0;
		heads[i] = (uint16_t)id;
		rte_prefetch0(&vr->desc[id]);
	}
	for (uint16_t i = 0; i < take; i++) {
		struct dp_frame *fr = &f[got];
		uint32_t len = 0;

		fr->n_seg = 0;
		fr->hdr_len = 0;
		vr->held[vr->n_held].id = heads[i];
		vr->held[vr->n_held++].n_desc = 1;
		if (unlikely(!chain_walk(vr, heads[i], false, vr->hdr_len, UINT32_MAX, fr->seg,
					 &fr->n_seg, DP_FRAME_SEGS, &len) ||
			     len == 0 || len > SPLIT_FRAME_MAX)) {
			vr->st.bad_desc++;
			continue;
		}
		fr->len = len;
		rte_prefetch0(fr->seg[0].data);
		got++;
	}
	vr->last_avail = (uint16_t)(vr->last_avail + take);
	return got;
}

void vring_split_rx_release(struct vhost_vq *vr)
{
	uint16_t used = vr->last_used;

	if (vr->n_held == 0)
		return;
	for (uint16_t i = 0; i < vr->n_held; i++)
		used_put(vr, (uint16_t)(used + i), vr->held[i].id, 0);
	used = (uint16_t)(used + vr->n_held);
	vr->n_held = 0;
	vr->last_used = used;
	__atomic_store_n(&vr->used->idx, used, __ATOMIC_RELEASE);
	split_signal(vr, used);
}

/* ---- the guest's receive ring ---------------------------------------------- */

/* Copies n bytes of the frame from its offset off into dst. */
typedef void (*split_copy_fn)(const void *src, uint8_t strip, uint32_t off, uint8_t *dst,
			      uint32_t n);

static inline void copy_frame(const void *src, uint8_t strip, uint32_t off, uint8_t *dst,
			      uint32_t n)
{
	dp_frame_read(src, strip, off, dst, n);
}

static inline void copy_mbuf(const void *src, uint8_t strip, uint32_t off, uint8_t *dst, uint32_t n)
{
	const struct rte_mbuf *m = src;

	(void)strip;
	while (m != NULL && off >= m->data_len) {
		off -= m->data_len;
		m = m->next;
	}
	while (n != 0 && m != NULL) {
		uint32_t k = RTE_MIN(n, (uint32_t)m->data_len - off);

		rte_memcpy(dst, rte_pktmbuf_mtod_offset(m, const uint8_t *, off), k);
		dst += k;
		n -= k;
		off = 0;
		m = m->next;
	}
	/* A chain shorter than its pkt_len (a bug elsewhere) leaves zeroes,
	 * not whatever the guest had there. */
	if (n != 0)
		memset(dst, 0, n);
}

/* One chain taken for the frame being written. */
struct tx_chain {
	uint16_t id;
	uint16_t n_seg;
	uint32_t cap;
	struct dp_seg seg[SPLIT_TX_SEGS];
};

/* Writes the header then bytes [off, off + len) of the frame into the
 * chain c, from its start. */
static inline void chain_fill(struct tx_chain *c, const uint8_t *hdr, uint32_t hdr_n,
			      split_copy_fn copy, const void *src, uint8_t strip, uint32_t off,
			      uint32_t len)
{
	uint8_t *d0 = (uint8_t *)(uintptr_t)c->seg[0].data;

	/* Most chains are one buffer that takes it all. */
	if (likely(c->seg[0].len >= hdr_n + len)) {
		if (hdr_n != 0)
			memcpy(d0, hdr, hdr_n);
		copy(src, strip, off, d0 + hdr_n, len);
		return;
	}
	for (uint16_t s = 0; hdr_n + len != 0; s++) {
		uint8_t *d = (uint8_t *)(uintptr_t)c->seg[s].data;
		uint32_t room = c->seg[s].len, k;

		if (hdr_n != 0) {
			k = RTE_MIN(hdr_n, room);
			memcpy(d, hdr, k);
			hdr += k;
			hdr_n -= k;
			d += k;
			room -= k;
		}
		k = RTE_MIN(len, room);
		if (k != 0) {
			copy(src, strip, off, d, k);
			off += k;
			len -= k;
		}
	}
}

/* Copies up to n frames (src[i]: dp_frames, or mbufs when mbuf) into
 * chains of the guest's receive ring; see vring_split_tx_frames. */
static __rte_always_inline uint16_t split_tx(struct vhost_vq *vr, const void *const *src,
					     const uint8_t *strip, uint16_t n, bool mbuf)
{
	struct tx_chain ch[SPLIT_TX_CHAINS];
	uint16_t head[VRING_MAX_HELD];
	const bool mrg = vr->feat & VRING_F_MRG_RXBUF;
	const uint16_t hdr_len = vr->hdr_len;
	const split_copy_fn copy = mbuf ? copy_mbuf : copy_frame;
	uint16_t used = vr->last_used, avail_pos = 0, sent = 0, n_head, n_bad = 0;
	int count = avail_count(vr);

	if (unlikely(count <= 0)) {
		vr->st.no_buffers += count == 0 && n != 0;
		return 0;
	}
	/* The heads a burst of one chain a frame takes, read (once) and
	 * their descriptors asked for together; more are read as needed. */
	n_head = (uint16_t)RTE_MIN(count, RTE_MIN(n, VRING_MAX_HELD));
	rte_prefetch0(&vr->avail->ring[vr->last_avail & (vr->size - 1)]);
	for (uint16_t i = 0; i < n_head; i++) {
		int id = avail_head(vr, i);

		if (unlikely(id < 0))
			return 0;
		head[i] = (uint16_t)id;
		rte_prefetch0(&vr->desc[id]);
	}
	for (; sent < n; sent++) {
		uint8_t st = strip != NULL ? strip[sent] : 0;
		uint32_t out = mbuf ? rte_pktmbuf_pkt_len((const struct rte_mbuf *)src[sent])
				    : dp_frame_out_len(src[sent], st);
		uint32_t need = hdr_len + out, put = 0;
		uint16_t pos_good = 0, used_good = 0, n_ch = 0;
		uint64_t bad_good = 0;
		bool fits = false;

		/* Chains until the frame fits: with MRG_RXBUF as many as it
		 * takes, else one. A chain that fails a check goes back with
		 * len 0, ahead of the frame's (a mergeable guest reads a
		 * frame's buffers as consecutive used entries). */
		while (avail_pos < count && n_ch < SPLIT_TX_CHAINS && n_bad < SPLIT_TX_BAD_MAX) {
			struct tx_chain *c = &ch[n_ch];
			int id = avail_pos < n_head ? head[avail_pos] : avail_head(vr, avail_pos);

			if (unlikely(id < 0))
				return 0;
			c->id = (uint16_t)id;
			c->n_seg = 0;
			c->cap = 0;
			avail_pos++;
			/* The header goes whole into the first chain. */
			if (unlikely(!chain_walk(vr, c->id, true, 0, need - put, c->seg, &c->n_seg,
						 SPLIT_TX_SEGS, &c->cap) ||
				     c->cap == 0 || (n_ch == 0 && c->cap < hdr_len))) {
				vr->st.bad_desc++;
				n_bad++;
				used_put(vr, used++, c->id, 0);
				continue;
			}
			if (n_ch == 0) {
				/* Where to come back to if the frame does not
				 * go: the bad chains before it are handed back
				 * all the same. */
				pos_good = (uint16_t)(avail_pos - 1);
				used_good = used;
				bad_good = vr->st.bad_desc;
			}
			n_ch++;
			put += RTE_MIN(c->cap, need - put);
			if (put == need || !mrg) {
				fits = put == need;
				break;
			}
		}
		if (unlikely(!fits)) {
			/* The frame's good chains stay posted (bad ones met
			 * after the first are handed back when met again). */
			if (n_ch != 0) {
				avail_pos = pos_good;
				used = used_good;
				vr->st.bad_desc = bad_good;
			}
			if (n_ch == SPLIT_TX_CHAINS || (!mrg && n_ch == 1)) {
				/* Larger than the buffers this guest posts: dropped.
				 * Its chain rather stays posted for the next frame
				 * than comes back empty, which a guest counts as an
				 * error (Linux: rx_length_errors) and reposts. */
				vr->st.too_long++;
				continue;
			}
			/* Out of posted chains (or of patience with bad ones):
			 * the frame and the rest wait. */
			vr->st.no_buffers += avail_pos == count;
			break;
		}
		/* The header (num_buffers: 1 without MRG_RXBUF, as virtio 1.x
		 * wants), then the frame across the chains. */
		{
			struct virtio_net_hdr_mrg_rxbuf h;
			uint32_t off = 0, left = need;

			memset(&h, 0, sizeof(h));
			h.num_buffers = n_ch;
			for (uint16_t k = 0; k < n_ch; k++) {
				uint32_t take = RTE_MIN(ch[k].cap, left);
				uint32_t hn = k == 0 ? hdr_len : 0;

				chain_fill(&ch[k], (const uint8_t *)&h, hn, copy, src[sent], st,
					   off, take - hn);
				used_put(vr, used++, ch[k].id, take);
				off += take - hn;
				left -= take;
			}
		}
	}
	vr->last_avail = (uint16_t)(vr->last_avail + avail_pos);
	if (used != vr->last_used) {
		vr->last_used = used;
		__atomic_store_n(&vr->used->idx, used, __ATOMIC_RELEASE);
		split_signal(vr, used);
	}
	return sent;
}

uint16_t vring_split_tx_frames(struct vhost_vq *vr, struct dp_frame *const *f, const uint8_t *strip,
			       uint16_t n)
{
	return split_tx(vr, (const void *const *)f, strip, n, false);
}

uint16_t vring_split_tx_mbufs(struct vhost_vq *vr, struct rte_mbuf *const *m, uint16_t n)
{
	return split_tx(vr, (const void *const *)m, NULL, n, true);
}
