/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Unit tests of podwired's packed virtqueues (ports/vhost/vring_packed.c)
 * against a synthetic driver in ordinary memory, no EAL: frames of 60,
 * 1514 and 9000 bytes both ways through chains and indirect tables over
 * several laps of rings of 256 and 1000 slots (not a power of two),
 * mergeable buffers on and off, event suppression counted on an eventfd,
 * and what a hostile driver can write. Ends with a printed (not asserted)
 * cost per frame.
 */
#include <stdlib.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include <rte_cycles.h>

#include "datapath/frame.h"
#include "ports/vhost/vring.h"
#include "unit.h"

#define GPA0	0x40000000ull
#define SLOT_B	(12u * 1024)		       /* guest buffer bytes of one buffer id */
#define TABLE_B (VRING_MAX_INDIRECT * 16 + 64) /* its indirect table */
#define F_AVAIL (1u << VRING_PACKED_DESC_F_AVAIL)
#define F_USED	(1u << VRING_PACKED_DESC_F_USED)
#define HDR	12u

/* One descriptor the driver posts: offset into the id's buffer area. */
struct tdesc {
	uint32_t off;
	uint32_t len;
	bool write;
};

struct drv {
	uint16_t size;
	struct vring_packed_desc *ring;
	uint16_t av, us, seq;
	bool avw, usw;
	uint32_t inflight;
	uint16_t ndesc[VRING_MAX_SIZE];
	uint8_t *mem;
	uint64_t mem_size;
	struct vring_mem vm;
	struct vring_packed_desc_event drv_ev, dev_ev;
	uint32_t broken;
	char why[256];
	struct vhost_vq vq;
};

static struct drv *drv_new(uint16_t size, uint16_t feat)
{
	struct drv *d = calloc(1, sizeof(*d));

	CU_ASSERT_FATAL(d != NULL);
	d->size = size;
	d->ring = calloc(size, sizeof(*d->ring));
	d->mem_size = (uint64_t)size * (SLOT_B + TABLE_B) + 4096;
	d->mem = calloc(1, d->mem_size);
	CU_ASSERT_FATAL(d->ring != NULL && d->mem != NULL);
	d->avw = d->usw = true;
	d->vm.n = 1;
	d->vm.r[0] = (struct vring_region){.gpa = GPA0, .size = d->mem_size, .hva = d->mem};
	d->vq.desc_packed = d->ring;
	d->vq.driver_event = &d->drv_ev;
	d->vq.device_event = &d->dev_ev;
	d->vq.mem = &d->vm;
	d->vq.size = size;
	d->vq.feat = feat | VRING_F_PACKED;
	d->vq.hdr_len = HDR;
	d->vq.avail_wrap = d->vq.used_wrap = true;
	d->vq.callfd = eventfd(0, EFD_NONBLOCK);
	CU_ASSERT_FATAL(d->vq.callfd >= 0);
	d->vq.broken = &d->broken;
	d->vq.broken_why = d->why;
	d->vq.broken_why_len = sizeof(d->why);
	rte_spinlock_init(&d->vq.lock);
	return d;
}

/* Guest memory as two regions adjacent in guest-physical space, the
 * boundary through the middle of buffer id 5's area: frames there come
 * in (and go out through) two pieces. */
static void drv_split(struct drv *d)
{
	uint64_t cut = 5ull * SLOT_B + 700;

	d->vm.n = 2;
	d->vm.r[0].size = cut;
	d->vm.r[1] = (struct vring_region){
	    .gpa = GPA0 + cut, .size = d->mem_size - cut, .hva = d->mem + cut};
}

static void drv_free(struct drv *d)
{
	close(d->vq.callfd);
	free(d->ring);
	free(d->mem);
	free(d);
}

static uint64_t buf_gpa(const struct drv *d, uint16_t id)
{
	(void)d;
	return GPA0 + (uint64_t)id * SLOT_B;
}

static uint8_t *buf_hva(const struct drv *d, uint16_t id)
{
	return d->mem + (uint64_t)id * SLOT_B;
}

static uint64_t table_gpa(const struct drv *d, uint16_t id)
{
	return GPA0 + (uint64_t)d->size * SLOT_B + (uint64_t)id * TABLE_B;
}

static uint64_t calls(struct drv *d)
{
	uint64_t v = 0;

	if (read(d->vq.callfd, &v, sizeof(v)) != sizeof(v))
		return 0;
	return v;
}

static uint16_t next_slot(const struct drv *d, uint16_t s, bool *w)
{
	if (++s == d->size) {
		s = 0;
		*w = !*w;
	}
	return s;
}

/* Posts a chain (or an indirect table of it) as a driver does: the
 * head's flags last. Returns the buffer id. */
static uint16_t drv_post(struct drv *d, const struct tdesc *c, unsigned int n, bool indirect)
{
	uint16_t id = d->seq++ % d->size, nd = indirect ? 1 : (uint16_t)n, s = d->av,
		 head_flags = 0;
	bool w = d->avw;

	CU_ASSERT_FATAL(d->inflight + nd <= d->size);
	if (indirect) {
		struct vring_packed_desc *t =
		    (struct vring_packed_desc *)(d->mem + (table_gpa(d, id) - GPA0));

		for (unsigned int i = 0; i < n; i++)
			t[i] = (struct vring_packed_desc){.addr = buf_gpa(d, id) + c[i].off,
							  .len = c[i].len,
							  .flags =
							      c[i].write ? VRING_DESC_F_WRITE : 0};
	}
	for (uint16_t i = 0; i < nd; i++) {
		uint16_t fl = (w ? F_AVAIL : F_USED) | (i + 1 < nd ? VRING_DESC_F_NEXT : 0);

		if (indirect) {
			d->ring[s].addr = table_gpa(d, id);
			d->ring[s].len = n * 16;
			fl |= VRING_DESC_F_INDIRECT;
		} else {
			d->ring[s].addr = buf_gpa(d, id) + c[i].off;
			d->ring[s].len = c[i].len;
			fl |= c[i].write ? VRING_DESC_F_WRITE : 0;
		}
		d->ring[s].id = id;
		if (i == 0)
			head_flags = fl;
		else
			d->ring[s].flags = fl;
		s = next_slot(d, s, &w);
	}
	__atomic_store_n(&d->ring[d->av].flags, head_flags, __ATOMIC_RELEASE);
	d->ndesc[id] = nd;
	d->av = s;
	d->avw = w;
	d->inflight += nd;
	return id;
}

/* The next used descriptor, if the device wrote one. */
static bool drv_reap(struct drv *d, uint16_t *id, uint32_t *len)
{
	uint16_t fl = __atomic_load_n(&d->ring[d->us].flags, __ATOMIC_ACQUIRE);

	*id = 0;
	*len = 0;
	if (!!(fl & F_AVAIL) != d->usw || !!(fl & F_USED) != d->usw)
		return false;
	*id = d->ring[d->us].id;
	*len = d->ring[d->us].len;
	/* A length counts only with WRITE (virtio 1.1, 2.7.4). */
	ASSERT_INT_EQ(!!(fl & VRING_DESC_F_WRITE), *len != 0);
	CU_ASSERT_FATAL(*id < d->size);
	for (uint16_t i = 0; i < d->ndesc[*id]; i++)
		d->us = next_slot(d, d->us, &d->usw);
	d->inflight -= d->ndesc[*id];
	return true;
}

static uint8_t pat(uint32_t k, uint32_t j)
{
	return (uint8_t)(k * 7 + j * 13 + (j >> 8));
}

/* ---- the guest transmits (vring_packed_rx) ------------------------------------ */

enum layout { L_HDR_OWN, L_HDR_SHARED, L_CHAIN_1K, L_INDIRECT, L_HDR_SPLIT, L_N };

/* The chain for a frame of len bytes laid out at the id's buffer: the
 * header then the frame, contiguous in guest memory, cut as layout says. */
static unsigned int rx_chain(enum layout l, uint32_t len, struct tdesc *c)
{
	uint32_t total = HDR + len, off = 0;
	unsigned int n = 0;

	switch (l) {
	case L_HDR_OWN:
		c[n++] = (struct tdesc){0, HDR, false};
		c[n++] = (struct tdesc){HDR, len, false};
		return n;
	case L_HDR_SHARED:
		c[n++] = (struct tdesc){0, total, false};
		return n;
	case L_HDR_SPLIT:
		c[n++] = (struct tdesc){0, 8, false};
		c[n++] = (struct tdesc){8, total - 8, false};
		return n;
	default:
		while (off < total) {
			uint32_t k = RTE_MIN(1024u, total - off);

			c[n++] = (struct tdesc){off, k, false};
			off += k;
		}
		return n;
	}
}

static void frame_bytes(const struct dp_frame *f, uint8_t *out)
{
	uint32_t o = 0;

	for (uint16_t s = 0; s < f->n_seg; s++) {
		memcpy(out + o, f->seg[s].data, f->seg[s].len);
		o += f->seg[s].len;
	}
}

static void rx_laps(uint16_t size, uint16_t feat, bool split)
{
	static const uint32_t lens[] = {60, 1514, 9000, 60, 60, 1514};
	struct drv *d = drv_new(size, feat);
	uint32_t posted = 0, received = 0, reaped = 0, want = 3u * size + 7;
	uint16_t ids[VRING_MAX_SIZE];
	uint8_t got[9100];
	struct dp_frame f[32];

	if (split)
		drv_split(d);
	while (reaped < want) {
		/* Post what fits. */
		while (posted < want) {
			uint32_t len = lens[posted % RTE_DIM(lens)];
			enum layout l = (enum layout)(posted % L_N);
			struct tdesc c[16];
			unsigned int n = rx_chain(l, len, c);
			uint16_t id;

			if (l == L_INDIRECT && !(feat & VRING_F_INDIRECT))
				l = L_CHAIN_1K;
			if (d->inflight + (l == L_INDIRECT ? 1 : n) > size)
				break;
			id = (uint16_t)(d->seq % size);
			memset(buf_hva(d, id), 0xee, HDR);
			for (uint32_t j = 0; j < len; j++)
				buf_hva(d, id)[HDR + j] = pat(posted, j);
			ids[posted % size] = drv_post(d, c, n, l == L_INDIRECT);
			posted++;
		}
		uint16_t k = vring_packed_rx(&d->vq, f, 32);

		CU_ASSERT_FATAL(k > 0);
		for (uint16_t i = 0; i < k; i++, received++) {
			uint32_t len = lens[received % RTE_DIM(lens)];

			ASSERT_INT_EQ(f[i].len, len);
			ASSERT_INT_EQ(f[i].hdr_len, 0);
			frame_bytes(&f[i], got);
			for (uint32_t j = 0; j < len; j++)
				if (got[j] != pat(received, j)) {
					ASSERT_INT_EQ(got[j], pat(received, j));
					break;
				}
		}
		vring_packed_rx_release(&d->vq);
		uint16_t id;
		uint32_t ulen;

		while (drv_reap(d, &id, &ulen)) {
			ASSERT_INT_EQ(id, ids[reaped % size]);
			ASSERT_INT_EQ(ulen, 0);
			reaped++;
		}
	}
	ASSERT_INT_EQ(received, want);
	ASSERT_INT_EQ(d->vq.st.bad_desc, 0);
	ASSERT_INT_EQ(d->broken, 0);
	ASSERT_INT_EQ(d->inflight, 0);
	drv_free(d);
}

static void test_rx_laps(void)
{
	rx_laps(256, VRING_F_INDIRECT, false);
	rx_laps(1000, VRING_F_INDIRECT, false);
	rx_laps(1000, 0, false);
	rx_laps(256, VRING_F_INDIRECT, true);
}

/* ---- the guest receives (vring_packed_tx_*) ----------------------------------- */

enum tlayout { T_ONE, T_HDR_1K, T_INDIRECT, T_N };

static unsigned int tx_chain(enum tlayout l, struct tdesc *c)
{
	unsigned int n = 0;

	switch (l) {
	case T_ONE:
		c[n++] = (struct tdesc){0, 9100, true};
		return n;
	default:
		c[n++] = (struct tdesc){0, HDR, true};
		for (uint32_t off = HDR; off < HDR + 9 * 1024; off += 1024)
			c[n++] = (struct tdesc){off, 1024, true};
		return n;
	}
}

/* A frame of len bytes in up to three pieces of src, as a receiving port
 * hands it over; with a private header copy when priv. */
static void make_frame(struct dp_frame *f, uint8_t *src, uint32_t k, uint32_t len, bool priv)
{
	uint32_t cut1 = len / 3, cut2 = 2 * len / 3;

	for (uint32_t j = 0; j < len; j++)
		src[j] = pat(k, j);
	memset(f, 0, sizeof(*f));
	f->len = len;
	f->seg[0] = (struct dp_seg){src, cut1};
	f->seg[1] = (struct dp_seg){src + cut1, cut2 - cut1};
	f->seg[2] = (struct dp_seg){src + cut2, len - cut2};
	f->n_seg = 3;
	if (priv) {
		dp_frame_header(f);
		f->hdr[0] ^= 0xff; /* what was decided on, not what the pod has now */
	}
}

/* What the guest must receive for frame k. */
static uint32_t expect(uint32_t k, uint32_t len, bool priv, bool strip, uint8_t *out)
{
	uint32_t o = 0;

	for (uint32_t j = 0; j < len; j++) {
		if (strip && j >= 12 && j < 16)
			continue;
		out[o++] = pat(k, j) ^ (priv && j == 0 ? 0xff : 0);
	}
	return o;
}

static void tx_laps(uint16_t size, uint16_t feat, bool split)
{
	static const uint32_t lens[] = {60, 1514, 9000, 64, 1514};
	const bool mrg = feat & VRING_F_MRG_RXBUF;
	struct drv *d = drv_new(size, feat);
	uint32_t want = 3u * size + 5, sent = 0, checked = 0, posted = 0;
	static uint8_t src[8][9100], exp[9100], got[9100];
	struct dp_frame fr[8], *fp[8];
	uint8_t strip[8];

	if (split)
		drv_split(d);
	while (checked < want) {
		/* Post receive buffers: whole frames' chains, or 1.5 KiB
		 * mergeable buffers (some as chains of two). */
		for (;;) {
			struct tdesc c[16];
			unsigned int n;
			bool ind = false;

			if (mrg) {
				n = 0;
				if (posted % 3 == 2) {
					c[n++] = (struct tdesc){0, 700, true};
					c[n++] = (struct tdesc){700, 836, true};
				} else {
					c[n++] = (struct tdesc){0, 1536, true};
				}
			} else {
				enum tlayout l = (enum tlayout)(posted % T_N);

				n = tx_chain(l, c);
				ind = l == T_INDIRECT && (feat & VRING_F_INDIRECT);
			}
			if (d->inflight + (ind ? 1 : n) > size)
				break;
			drv_post(d, c, n, ind);
			posted++;
		}
		uint16_t b = (uint16_t)RTE_MIN(8u, want - sent), k;

		for (uint16_t i = 0; i < b; i++) {
			uint32_t fk = sent + i;

			make_frame(&fr[i], src[i], fk, lens[fk % RTE_DIM(lens)], fk % 4 == 1);
			strip[i] = fk % 5 == 3;
			fp[i] = &fr[i];
		}
		k = vring_packed_tx_frames(&d->vq, fp, strip, b);
		uint32_t before = checked;

		sent += k;
		/* Reap and check in order. */
		uint16_t id;
		uint32_t ulen;

		while (drv_reap(d, &id, &ulen)) {
			uint32_t fk = checked, len = lens[fk % RTE_DIM(lens)];
			uint32_t el = expect(fk, len, fk % 4 == 1, fk % 5 == 3, exp), o = 0;
			uint16_t nb = 1;

			CU_ASSERT_FATAL(ulen >= HDR);
			for (uint32_t j = 0; j < HDR; j++)
				if (j != 10 && j != 11)
					ASSERT_INT_EQ(buf_hva(d, id)[j], 0);
			memcpy(&nb, buf_hva(d, id) + 10, 2);
			if (!mrg) {
				ASSERT_INT_EQ(nb, 0);
				nb = 1;
			}
			memcpy(got, buf_hva(d, id) + HDR, ulen - HDR);
			o = ulen - HDR;
			for (uint16_t m = 1; m < nb; m++) {
				CU_ASSERT_FATAL(drv_reap(d, &id, &ulen));
				CU_ASSERT_FATAL(o + ulen <= sizeof(got));
				memcpy(got + o, buf_hva(d, id), ulen);
				o += ulen;
			}
			ASSERT_INT_EQ(o, el);
			CU_ASSERT(memcmp(got, exp, el) == 0);
			checked++;
		}
		/* Something moves every round, or the test ends here. */
		CU_ASSERT_FATAL(k > 0 || checked > before);
	}
	ASSERT_INT_EQ(d->vq.st.bad_desc, 0);
	ASSERT_INT_EQ(d->vq.st.too_long, 0);
	ASSERT_INT_EQ(d->broken, 0);
	drv_free(d);
}

static void test_tx_laps(void)
{
	tx_laps(256, VRING_F_INDIRECT, false);
	tx_laps(1000, VRING_F_INDIRECT, false);
	tx_laps(256, VRING_F_MRG_RXBUF, false);
	tx_laps(1000, VRING_F_MRG_RXBUF | VRING_F_INDIRECT, false);
	tx_laps(256, VRING_F_INDIRECT, true);
	tx_laps(256, VRING_F_MRG_RXBUF, true);
}

/* ---- mbufs ------------------------------------------------------------------ */

/* An mbuf chain in plain memory (no pool: the ring only reads data). */
static void test_tx_mbufs(void)
{
	static const uint32_t lens[] = {60, 1514, 9000};
	struct drv *d = drv_new(256, VRING_F_MRG_RXBUF);
	static uint8_t data[9000], got[9100];
	struct rte_mbuf *mb = aligned_alloc(RTE_CACHE_LINE_SIZE, 3 * sizeof(struct rte_mbuf));

	CU_ASSERT_FATAL(mb != NULL);
	for (unsigned int r = 0; r < 3 * 256; r++) {
		uint32_t len = lens[r % 3], cut = len / 2, o = 0, ulen;
		struct rte_mbuf *m = mb;
		uint16_t id, nb;

		memset(mb, 0, 3 * sizeof(*mb));
		for (uint32_t j = 0; j < len; j++)
			data[j] = pat(r, j);
		/* Two segments, the second's data not at its buffer's start. */
		mb[0].buf_addr = data;
		mb[0].data_len = (uint16_t)cut;
		mb[0].pkt_len = len;
		mb[0].nb_segs = 2;
		mb[0].next = &mb[1];
		mb[1].buf_addr = data + cut - 7;
		mb[1].data_off = 7;
		mb[1].data_len = (uint16_t)(len - cut);
		while (d->inflight < 256)
			drv_post(d, &(struct tdesc){0, 1536, true}, 1, false);
		ASSERT_INT_EQ(vring_packed_tx_mbufs(&d->vq, &m, 1), 1);
		CU_ASSERT_FATAL(drv_reap(d, &id, &ulen));
		memcpy(&nb, buf_hva(d, id) + 10, 2);
		ASSERT_INT_EQ(nb, (HDR + len + 1535) / 1536);
		memcpy(got, buf_hva(d, id) + HDR, ulen - HDR);
		o = ulen - HDR;
		for (uint16_t k = 1; k < nb; k++) {
			CU_ASSERT_FATAL(drv_reap(d, &id, &ulen));
			memcpy(got + o, buf_hva(d, id), ulen);
			o += ulen;
		}
		ASSERT_INT_EQ(o, len);
		CU_ASSERT(memcmp(got, data, len) == 0);
	}
	free(mb);
	drv_free(d);
}

/* ---- event suppression ---------------------------------------------------------- */

static void post_rx(struct drv *d, unsigned int n)
{
	for (unsigned int i = 0; i < n; i++)
		drv_post(d, &(struct tdesc){0, HDR + 60, false}, 1, false);
}

/* Receives and releases up to n frames; returns the calls made. */
static uint64_t rx_release(struct drv *d, uint16_t n)
{
	struct dp_frame f[VRING_MAX_HELD];
	uint16_t id;
	uint32_t len;

	ASSERT_INT_EQ(vring_packed_rx(&d->vq, f, n), n);
	vring_packed_rx_release(&d->vq);
	while (drv_reap(d, &id, &len))
		;
	return calls(d);
}

static void test_events(void)
{
	struct drv *d = drv_new(256, VRING_F_EVENT_IDX);

	/* ENABLE: a call a release; DISABLE: none. */
	d->drv_ev.flags = VRING_PACKED_EVENT_FLAG_ENABLE;
	post_rx(d, 8);
	ASSERT_INT_EQ(rx_release(d, 4), 1);
	ASSERT_INT_EQ(rx_release(d, 4), 1);
	d->drv_ev.flags = VRING_PACKED_EVENT_FLAG_DISABLE;
	post_rx(d, 8);
	ASSERT_INT_EQ(rx_release(d, 8), 0);
	ASSERT_INT_EQ(d->vq.st.calls, 2);
	/* DESC: at the used descriptor the driver names, once. Used is at
	 * 16 (wrap 1); ask for 21: batches 16-19 no, 20-23 yes, 24-27 no. */
	d->drv_ev.flags = VRING_PACKED_EVENT_FLAG_DESC;
	d->drv_ev.off_wrap = 20 | 1u << 15; /* the first slot not written */
	post_rx(d, 12);
	ASSERT_INT_EQ(rx_release(d, 4), 0);
	d->drv_ev.off_wrap = 21 | 1u << 15;
	ASSERT_INT_EQ(rx_release(d, 4), 1);
	ASSERT_INT_EQ(rx_release(d, 4), 0);
	/* In the next lap (wrap 0): slot 3. Used at 28: nothing until the
	 * batch that writes slot 3 of the second lap. */
	d->drv_ev.off_wrap = 3;
	for (unsigned int i = 0; i < (256 - 28) / 4; i++) {
		post_rx(d, 4);
		ASSERT_INT_EQ(rx_release(d, 4), 0);
	}
	post_rx(d, 8);
	ASSERT_INT_EQ(rx_release(d, 2), 0); /* slots 0, 1 of lap 2 */
	ASSERT_INT_EQ(rx_release(d, 2), 1); /* 2, 3 */
	ASSERT_INT_EQ(rx_release(d, 4), 0);
	/* A batch of chains of three descriptors that passes over the
	 * named slot without writing there still calls. */
	d->drv_ev.off_wrap = 13;
	for (unsigned int i = 0; i < 2; i++) {
		struct tdesc c[3] = {{0, HDR, false}, {HDR, 30, false}, {HDR + 30, 30, false}};

		drv_post(d, c, 3, false);
	}
	ASSERT_INT_EQ(rx_release(d, 2), 1); /* slots 8 and 11, to 14 */
	/* Without EVENT_IDX, DESC means nothing: every release calls. */
	d->vq.feat &= (uint16_t)~VRING_F_EVENT_IDX;
	d->drv_ev.off_wrap = 200;
	post_rx(d, 4);
	ASSERT_INT_EQ(rx_release(d, 4), 1);
	/* The transmit side signals the same way. */
	d->drv_ev.flags = VRING_PACKED_EVENT_FLAG_DISABLE;
	{
		struct drv *t = drv_new(256, 0);
		static uint8_t src[64];
		struct dp_frame fr, *fp = &fr;
		uint16_t id;
		uint32_t len;

		make_frame(&fr, src, 0, 60, false);
		drv_post(t, &(struct tdesc){0, 1536, true}, 1, false);
		drv_post(t, &(struct tdesc){0, 1536, true}, 1, false);
		t->drv_ev.flags = VRING_PACKED_EVENT_FLAG_DISABLE;
		ASSERT_INT_EQ(vring_packed_tx_frames(&t->vq, &fp, NULL, 1), 1);
		ASSERT_INT_EQ(calls(t), 0);
		t->drv_ev.flags = VRING_PACKED_EVENT_FLAG_ENABLE;
		ASSERT_INT_EQ(vring_packed_tx_frames(&t->vq, &fp, NULL, 1), 1);
		ASSERT_INT_EQ(calls(t), 1);
		/* Nothing sent, nothing to signal. */
		ASSERT_INT_EQ(vring_packed_tx_frames(&t->vq, &fp, NULL, 1), 0);
		ASSERT_INT_EQ(calls(t), 0);
		ASSERT_INT_EQ(t->vq.st.no_buffers, 1);
		while (drv_reap(t, &id, &len))
			;
		drv_free(t);
	}
	drv_free(d);
}

/* ---- a hostile driver ---------------------------------------------------------- */

/* Receives what is there; returns the frames. */
static uint16_t rx_all(struct drv *d, struct dp_frame *f)
{
	return vring_packed_rx(&d->vq, f, 32);
}

/* Posts a bad chain then a good one (60 bytes of pattern 9): only the
 * good one's frame comes; both ids come back. */
static void rx_bad_then_good(struct drv *d, const char *what)
{
	struct dp_frame f[32];
	uint8_t got[64];
	uint16_t id, ids = 0;
	uint32_t len;
	uint64_t bad = d->vq.st.bad_desc;

	uint16_t good = (uint16_t)(d->seq % d->size);
	for (uint32_t j = 0; j < 60; j++)
		buf_hva(d, good)[HDR + j] = pat(9, j);
	drv_post(d, &(struct tdesc){0, HDR + 60, false}, 1, false);
	ASSERT_INT_EQ(rx_all(d, f), 1);
	ASSERT_INT_EQ(f[0].len, 60);
	frame_bytes(&f[0], got);
	CU_ASSERT(got[59] == pat(9, 59));
	ASSERT_INT_EQ(d->vq.st.bad_desc, bad + 1);
	ASSERT_INT_EQ(d->broken, 0);
	vring_packed_rx_release(&d->vq);
	while (drv_reap(d, &id, &len)) {
		ASSERT_INT_EQ(len, 0);
		ids++;
	}
	ASSERT_INT_EQ(ids, 2);
	ASSERT_INT_EQ(d->inflight, 0);
	if (d->vq.st.bad_desc != bad + 1)
		fprintf(stderr, "  case: %s\n", what);
}

static void test_rx_hostile(void)
{
	struct drv *d = drv_new(256, VRING_F_INDIRECT);
	struct vring_packed_desc *t;
	struct tdesc c[20];
	uint16_t id;

	/* A buffer outside the guest's memory (its header or its frame). */
	d->vm.r[0].size -= 4096; /* the last page is out */
	id = (uint16_t)(d->seq % d->size);
	drv_post(d, (struct tdesc[]){{0, HDR, false}, {0, 60, false}}, 2, false);
	d->ring[(d->av + d->size - 1) % d->size].addr = GPA0 + d->vm.r[0].size - 30;
	rx_bad_then_good(d, "frame outside");
	drv_post(d, &(struct tdesc){0, HDR + 60, false}, 1, false);
	d->ring[(d->av + d->size - 1) % d->size].addr = 0x1000;
	rx_bad_then_good(d, "header outside");
	(void)id;
	/* A device-writable descriptor in a transmit chain. */
	drv_post(d, (struct tdesc[]){{0, HDR, false}, {HDR, 60, true}}, 2, false);
	rx_bad_then_good(d, "writable");
	/* The header longer than the chain; more pieces than a frame has. */
	drv_post(d, &(struct tdesc){0, 8, false}, 1, false);
	rx_bad_then_good(d, "short");
	for (unsigned int i = 0; i < 20; i++)
		c[i] = (struct tdesc){i * 100, 100, false};
	drv_post(d, c, 20, false);
	rx_bad_then_good(d, "20 pieces");
	/* Indirect: a length not a multiple of 16, more entries than
	 * allowed, a nested table, the feature not negotiated. */
	for (unsigned int i = 0; i < 20; i++)
		c[i] = (struct tdesc){i * 100, 100, false};
	id = drv_post(d, c, 2, true);
	d->ring[(d->av + d->size - 1) % d->size].len = 20;
	rx_bad_then_good(d, "indirect len 20");
	id = drv_post(d, c, 2, true);
	d->ring[(d->av + d->size - 1) % d->size].len = (VRING_MAX_INDIRECT + 1) * 16;
	rx_bad_then_good(d, "indirect 65");
	id = drv_post(d, c, 2, true);
	t = (struct vring_packed_desc *)(d->mem + (table_gpa(d, id) - GPA0));
	t[1].flags |= VRING_DESC_F_INDIRECT;
	rx_bad_then_good(d, "nested");
	d->vq.feat = VRING_F_PACKED;
	drv_post(d, c, 2, true);
	rx_bad_then_good(d, "indirect not negotiated");
	ASSERT_INT_EQ(d->vq.st.bad_desc, 9);
	drv_free(d);

	/* Rewritten after the device read it: the frame and the id handed
	 * back are what was read. */
	d = drv_new(1000, 0);
	{
		struct dp_frame f[4];
		uint16_t s = d->av, rid;
		uint32_t len;

		id = drv_post(d, &(struct tdesc){0, HDR + 60, false}, 1, false);
		ASSERT_INT_EQ(rx_all(d, f), 1);
		d->ring[s].id = 999;
		d->ring[s].addr = 0x1000;
		d->ring[s].len = 5;
		ASSERT_INT_EQ(f[0].len, 60);
		CU_ASSERT(f[0].seg[0].data == buf_hva(d, id) + HDR);
		vring_packed_rx_release(&d->vq);
		CU_ASSERT_FATAL(drv_reap(d, &rid, &len));
		ASSERT_INT_EQ(rid, id);
		ASSERT_INT_EQ(d->broken, 0);
	}
	drv_free(d);

	/* A burst of bad chains only: handed back at once, without a
	 * release (a worker releases only after frames), and never enough
	 * to stall the ring: 3 laps of them, then a good frame. */
	d = drv_new(256, 0);
	{
		struct dp_frame f[32];
		uint16_t rid;
		uint32_t len;

		for (unsigned int i = 0; i < 3 * 256; i++) {
			drv_post(d, &(struct tdesc){0, 8, false}, 1, false);
			ASSERT_INT_EQ(rx_all(d, f), 0);
			ASSERT_INT_EQ(d->vq.n_held, 0);
			CU_ASSERT_FATAL(drv_reap(d, &rid, &len));
			ASSERT_INT_EQ(len, 0);
		}
		ASSERT_INT_EQ(d->vq.st.bad_desc, 3 * 256);
		drv_post(d, &(struct tdesc){0, HDR + 60, false}, 1, false);
		ASSERT_INT_EQ(rx_all(d, f), 1);
	}
	drv_free(d);

	/* A descriptor that looks used (AVAIL = USED = the wrap counter) is
	 * not available, whatever else it holds. */
	d = drv_new(1000, 0);
	{
		struct dp_frame f[4];

		d->ring[0] = (struct vring_packed_desc){GPA0, HDR + 60, 0, F_AVAIL | F_USED};
		ASSERT_INT_EQ(rx_all(d, f), 0);
		ASSERT_INT_EQ(d->vq.last_avail, 0);
		ASSERT_INT_EQ(d->vq.n_held, 0);
	}
	drv_free(d);

	/* A buffer id out of range breaks the ring. */
	d = drv_new(1000, 0);
	{
		struct dp_frame f[4];

		drv_post(d, &(struct tdesc){0, HDR + 60, false}, 1, false);
		d->ring[0].id = 1000;
		ASSERT_INT_EQ(rx_all(d, f), 0);
		ASSERT_INT_EQ(d->broken, 2);
		ASSERT_CONTAINS(d->why, "buffer id 1000");
		ASSERT_INT_EQ(rx_all(d, f), 0);
	}
	drv_free(d);

	/* A chain longer than the ring: every slot available, every one
	 * with NEXT. The walk stops at the ring's size. */
	d = drv_new(256, 0);
	{
		struct dp_frame f[4];

		for (unsigned int i = 0; i < 256; i++)
			d->ring[i] = (struct vring_packed_desc){GPA0, HDR + 60, 0,
								F_AVAIL | VRING_DESC_F_NEXT};
		ASSERT_INT_EQ(rx_all(d, f), 0);
		ASSERT_INT_EQ(d->broken, 2);
		ASSERT_CONTAINS(d->why, "longer than the ring");
	}
	drv_free(d);
}

static void test_tx_hostile(void)
{
	static uint8_t src[9100], exp[9100];
	struct dp_frame fr, *fp = &fr;
	struct drv *d = drv_new(256, 0);
	uint16_t id, bad_id;
	uint32_t len;

	/* A read-only descriptor in a receive chain goes back unused; the
	 * frame goes into the next chain. */
	make_frame(&fr, src, 3, 1514, false);
	bad_id = drv_post(d, (struct tdesc[]){{0, HDR, true}, {HDR, 2000, false}}, 2, false);
	id = drv_post(d, &(struct tdesc){0, 2000, true}, 1, false);
	ASSERT_INT_EQ(vring_packed_tx_frames(&d->vq, &fp, NULL, 1), 1);
	ASSERT_INT_EQ(d->vq.st.bad_desc, 1);
	CU_ASSERT_FATAL(drv_reap(d, &bad_id, &len));
	ASSERT_INT_EQ(len, 0);
	CU_ASSERT_FATAL(drv_reap(d, &id, &len));
	ASSERT_INT_EQ(len, HDR + 1514);
	expect(3, 1514, false, false, exp);
	CU_ASSERT(memcmp(buf_hva(d, id) + HDR, exp, 1514) == 0);
	/* Without MRG_RXBUF a chain too small: the frame dropped (and sent),
	 * the chain left for the next frame, which fits. */
	id = drv_post(d, &(struct tdesc){0, 1000, true}, 1, false);
	ASSERT_INT_EQ(vring_packed_tx_frames(&d->vq, &fp, NULL, 1), 1);
	ASSERT_INT_EQ(d->vq.st.too_long, 1);
	CU_ASSERT(!drv_reap(d, &id, &len));
	make_frame(&fr, src, 4, 60, false);
	ASSERT_INT_EQ(vring_packed_tx_frames(&d->vq, &fp, NULL, 1), 1);
	CU_ASSERT_FATAL(drv_reap(d, &id, &len));
	ASSERT_INT_EQ(len, HDR + 60);
	/* Outside the guest's memory. */
	drv_post(d, &(struct tdesc){0, 2000, true}, 1, false);
	d->ring[(d->av + d->size - 1) % d->size].addr = GPA0 + d->mem_size - 100;
	id = drv_post(d, &(struct tdesc){0, 2000, true}, 1, false);
	ASSERT_INT_EQ(vring_packed_tx_frames(&d->vq, &fp, NULL, 1), 1);
	ASSERT_INT_EQ(d->vq.st.bad_desc, 2);
	CU_ASSERT_FATAL(drv_reap(d, &bad_id, &len));
	ASSERT_INT_EQ(len, 0);
	CU_ASSERT_FATAL(drv_reap(d, &id, &len));
	ASSERT_INT_EQ(len, HDR + 60);
	ASSERT_INT_EQ(d->broken, 0);
	drv_free(d);

	/* With MRG_RXBUF, a bad buffer after one taken for a frame: both go
	 * back unused (no bad buffer among a frame's num_buffers) and the
	 * frame goes into the next ones. */
	d = drv_new(256, VRING_F_MRG_RXBUF);
	make_frame(&fr, src, 5, 9000, false);
	drv_post(d, &(struct tdesc){0, 1536, true}, 1, false);
	drv_post(d, &(struct tdesc){0, 1536, false}, 1, false);
	for (unsigned int i = 0; i < 5; i++)
		drv_post(d, &(struct tdesc){0, 1536, true}, 1, false);
	/* Not enough yet: the frame waits, nothing is used but the two
	 * handed back. */
	ASSERT_INT_EQ(vring_packed_tx_frames(&d->vq, &fp, NULL, 1), 0);
	ASSERT_INT_EQ(d->vq.st.bad_desc, 1);
	for (unsigned int i = 0; i < 2; i++) {
		CU_ASSERT_FATAL(drv_reap(d, &id, &len));
		ASSERT_INT_EQ(len, 0);
	}
	CU_ASSERT(!drv_reap(d, &id, &len));
	drv_post(d, &(struct tdesc){0, 1536, true}, 1, false);
	ASSERT_INT_EQ(vring_packed_tx_frames(&d->vq, &fp, NULL, 1), 1);
	{
		uint32_t o = 0;
		uint16_t nb;

		expect(5, 9000, false, false, exp);
		for (unsigned int i = 0; i < 6; i++) {
			CU_ASSERT_FATAL(drv_reap(d, &id, &len));
			if (i == 0) {
				memcpy(&nb, buf_hva(d, id) + 10, 2);
				ASSERT_INT_EQ(nb, 6);
				CU_ASSERT(memcmp(buf_hva(d, id) + HDR, exp, len - HDR) == 0);
				o = len - HDR;
			} else {
				CU_ASSERT(memcmp(buf_hva(d, id), exp + o, len) == 0);
				o += len;
			}
		}
		ASSERT_INT_EQ(o, 9000);
	}
	/* A ring that could never hold the frame: dropped, too_long, not
	 * waited for forever. */
	drv_free(d);
	d = drv_new(4, VRING_F_MRG_RXBUF);
	for (unsigned int i = 0; i < 4; i++)
		drv_post(d, &(struct tdesc){0, 1536, true}, 1, false);
	ASSERT_INT_EQ(vring_packed_tx_frames(&d->vq, &fp, NULL, 1), 1);
	ASSERT_INT_EQ(d->vq.st.too_long, 1);
	CU_ASSERT(!drv_reap(d, &id, &len));
	drv_free(d);
	/* A ring of bad chains only: a call hands back a bounded number
	 * (VRING_MAX_HELD) and returns; the frame waits. */
	d = drv_new(256, 0);
	for (unsigned int i = 0; i < 200; i++)
		drv_post(d, &(struct tdesc){0, 2000, false}, 1, false);
	ASSERT_INT_EQ(vring_packed_tx_frames(&d->vq, &fp, NULL, 1), 0);
	ASSERT_INT_EQ(d->vq.st.bad_desc, VRING_MAX_HELD);
	ASSERT_INT_EQ(vring_packed_tx_frames(&d->vq, &fp, NULL, 1), 0);
	ASSERT_INT_EQ(d->vq.st.bad_desc, 2 * VRING_MAX_HELD);
	for (unsigned int i = 0; i < 2 * VRING_MAX_HELD; i++) {
		CU_ASSERT_FATAL(drv_reap(d, &id, &len));
		ASSERT_INT_EQ(len, 0);
	}
	CU_ASSERT(!drv_reap(d, &id, &len));
	drv_free(d);
	/* An id out of range on the receive ring breaks it. */
	d = drv_new(256, 0);
	drv_post(d, &(struct tdesc){0, 2000, true}, 1, false);
	d->ring[0].id = 300;
	ASSERT_INT_EQ(vring_packed_tx_frames(&d->vq, &fp, NULL, 1), 0);
	ASSERT_INT_EQ(d->broken, 2);
	drv_free(d);
}

/* A driver writing garbage: random flags, addresses about the edges of
 * its memory, lengths, ids, tables. Whatever happens, every segment
 * handed over lies within guest memory and nothing is written outside
 * it (a canary past the region's end), and the ring never hangs. */
static void test_garbage(void)
{
	uint64_t x = 0x9e3779b97f4a7c15ull;
	unsigned int broken = 0, frames = 0;

	for (unsigned int round = 0; round < 400; round++) {
		struct drv *d =
		    drv_new(round % 2 ? 256 : 7,
			    (uint16_t)(round % 4 < 2 ? VRING_F_INDIRECT
						     : VRING_F_MRG_RXBUF | VRING_F_INDIRECT));
		uint64_t lim = d->mem_size - 4096; /* the last page: canary */
		struct dp_frame f[32], *fp[32];
		static uint8_t src[32][64];

		d->vm.r[0].size = lim;
		memset(d->mem + lim, 0xa5, 4096);
		for (unsigned int i = 0; i < 32; i++) {
			make_frame(&f[i], src[i], i, 60, false);
			fp[i] = &f[i];
		}
		for (unsigned int it = 0; it < 50 && d->broken == 0; it++) {
			struct vring_packed_desc *t;
			uint16_t k;

			for (unsigned int i = 0; i < d->size * 2u; i++) {
				struct vring_packed_desc *g = &d->ring[i % d->size];
				uint64_t r;

				x ^= x << 13, x ^= x >> 7, x ^= x << 17;
				r = x;
				g->addr = GPA0 + (r % 3 == 0 ? lim - (r >> 8) % 9000
							     : (r >> 8) % (lim + 64));
				g->len =
				    (uint32_t)((r >> 24) % 3 == 0 ? (r >> 32) : (r >> 32) % 9100);
				g->id = (uint16_t)((r >> 40) % (d->size + (r % 50 == 0)));
				g->flags = (uint16_t)(r >> 48) &
					   (VRING_DESC_F_NEXT | VRING_DESC_F_WRITE |
					    ((r >> 20) % 8 == 0 ? VRING_DESC_F_INDIRECT : 0) |
					    F_AVAIL | F_USED);
			}
			/* Tables of garbage too. */
			t = (struct vring_packed_desc *)(d->mem + (uint64_t)d->size * SLOT_B);
			for (unsigned int i = 0; i < VRING_MAX_INDIRECT; i++) {
				t[i].addr = GPA0 + (x >> (i % 16)) % (lim + 64);
				t[i].len = (uint32_t)(x >> (i % 24)) % 3000;
				t[i].flags = (uint16_t)(x >> i);
			}
			if (x % 4 == 0)
				d->ring[x % d->size] = (struct vring_packed_desc){
				    table_gpa(d, 0), (uint32_t)(x >> 20) % 1100, 0,
				    (uint16_t)(VRING_DESC_F_INDIRECT | (x & 1 ? F_AVAIL : F_USED))};
			k = vring_packed_rx(&d->vq, f, 32);
			for (uint16_t i = 0; i < k; i++) {
				uint32_t sum = 0;

				for (uint16_t s = 0; s < f[i].n_seg; s++) {
					CU_ASSERT_FATAL(f[i].seg[s].data >= d->mem &&
							f[i].seg[s].data + f[i].seg[s].len <=
							    d->mem + lim);
					sum += f[i].seg[s].len;
				}
				ASSERT_INT_EQ(sum, f[i].len);
			}
			frames += k;
			vring_packed_rx_release(&d->vq);
			for (unsigned int i = 0; i < 32; i++)
				make_frame(&f[i], src[i], i, 60, false);
			vring_packed_tx_frames(&d->vq, fp, NULL, 32);
		}
		broken += d->broken != 0;
		for (unsigned int i = 0; i < 4096; i++)
			if (d->mem[lim + i] != 0xa5) {
				CU_FAIL("written past guest memory");
				break;
			}
		drv_free(d);
	}
	/* Both outcomes happened: frames got through, rings broke. */
	CU_ASSERT(frames > 0);
	CU_ASSERT(broken > 0);
	printf("\n  garbage: %u frames received, %u of 400 rings broken\n", frames, broken);
}

/* ---- cost ---------------------------------------------------------------------- */

static void test_bench(void)
{
	const unsigned int rounds = 20000, burst = 32;
	struct drv *d = drv_new(256, 0), *t = drv_new(256, VRING_F_MRG_RXBUF);
	static uint8_t src[32][64];
	struct dp_frame f[32], fr[32], *fp[32];
	uint64_t rx_c = 0, tx_c = 0, c0;
	uint16_t id;
	uint32_t len;

	/* A polling guest (testpmd) keeps calls off: count the ring only. */
	d->drv_ev.flags = t->drv_ev.flags = VRING_PACKED_EVENT_FLAG_DISABLE;
	for (unsigned int i = 0; i < burst; i++) {
		make_frame(&fr[i], src[i], i, 64, false);
		/* One piece, as a receiving port mostly hands frames over. */
		fr[i].seg[0].len = 64;
		fr[i].n_seg = 1;
		fp[i] = &fr[i];
	}
	for (unsigned int r = 0; r < rounds; r++) {
		post_rx(d, burst);
		for (unsigned int i = 0; i < burst; i++)
			drv_post(t, &(struct tdesc){0, 1536, true}, 1, false);
		c0 = rte_rdtsc();
		if (vring_packed_rx(&d->vq, f, burst) != burst)
			CU_FAIL_FATAL("rx short");
		vring_packed_rx_release(&d->vq);
		rx_c += rte_rdtsc() - c0;
		c0 = rte_rdtsc();
		if (vring_packed_tx_frames(&t->vq, fp, NULL, burst) != burst)
			CU_FAIL_FATAL("tx short");
		tx_c += rte_rdtsc() - c0;
		while (drv_reap(d, &id, &len))
			;
		while (drv_reap(t, &id, &len))
			;
	}
	printf("\n  packed ring, 64 B, bursts of %u: rx+release %.1f cycles/frame, "
	       "tx %.1f cycles/frame (printed, not asserted)\n",
	       burst, (double)rx_c / (rounds * burst), (double)tx_c / (rounds * burst));
	drv_free(d);
	drv_free(t);
}

int main(void)
{
	static const struct unit_test tests[] = {
	    {"rx: 60-9000 B, chains, indirect, two regions, laps of 256 and 1000", test_rx_laps},
	    {"tx frames: 60-9000 B, strip, private header, MRG on/off, laps", test_tx_laps},
	    {"tx mbufs: two segments, MRG_RXBUF", test_tx_mbufs},
	    {"events: ENABLE, DISABLE, DESC across laps", test_events},
	    {"rx: a hostile driver", test_rx_hostile},
	    {"tx: a hostile driver", test_tx_hostile},
	    {"a driver writing garbage", test_garbage},
	    {"cost per frame (printed)", test_bench},
	    {NULL, NULL},
	};

	return unit_run("vring_packed", tests);
}
