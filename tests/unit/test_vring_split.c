/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Unit tests of podwired's split virtqueues (ports/vhost/vring_split.c)
 * against a synthetic guest in ordinary memory: two regions adjacent in
 * guest-physical space (apart in the host, so a buffer across the seam
 * takes two pieces), a driver that posts descriptor chains and reads the
 * used ring. Frames byte-exact and in order through every layout a
 * driver uses; each hostile ring state with its outcome; signalling
 * counted on an eventfd; a guest rewriting a descriptor while the device
 * reads it. Ends with cycles per frame (printed, not asserted).
 */
#include <pthread.h>
#include <stdlib.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include <rte_cycles.h>

#include "datapath/frame.h"
#include "ports/vhost/vring.h"
#include "unit.h"

#define RSIZE	 256
#define REG_SIZE (4u << 20)
#define GPA0	 0x100000ull
#define RING_GPA GPA0
/* Buffers start after the rings; the seam between the regions lies at
 * GPA0 + REG_SIZE. */
#define BUF_GPA (GPA0 + 0x10000)

struct guest {
	uint8_t *host[2];
	struct vring_mem mem;
	struct vhost_vq vq;
	volatile uint32_t broken;
	char why[128];
	uint64_t next_buf; /* bump allocator, guest-physical */
	uint16_t next_desc;
	uint16_t avail_idx;
	uint16_t used_seen;
	int efd;
};

static struct guest g;

static uint8_t *hva(uint64_t gpa)
{
	return vring_gpa(&g.mem, gpa, 1);
}

static uint64_t calls_taken(void)
{
	uint64_t v = 0;

	if (read(g.efd, &v, sizeof(v)) != sizeof(v))
		return 0;
	return v;
}

static void guest_init(uint16_t feat, uint16_t hdr_len, uint16_t start_idx)
{
	for (int i = 0; i < 2; i++) {
		if (g.host[i] == NULL)
			g.host[i] = aligned_alloc(4096, REG_SIZE);
		memset(g.host[i], 0xee, REG_SIZE);
	}
	if (g.efd <= 0)
		g.efd = eventfd(0, EFD_NONBLOCK);
	g.mem.n = 2;
	g.mem.r[0] = (struct vring_region){GPA0, REG_SIZE, g.host[0]};
	g.mem.r[1] = (struct vring_region){GPA0 + REG_SIZE, REG_SIZE, g.host[1]};
	memset(&g.vq, 0, sizeof(g.vq));
	g.vq.desc = (struct vring_desc *)hva(RING_GPA);
	g.vq.avail = (struct vring_avail *)hva(RING_GPA + 16 * RSIZE);
	g.vq.used = (struct vring_used *)hva(RING_GPA + 0x8000);
	memset(g.vq.desc, 0, 16 * RSIZE);
	memset(g.vq.avail, 0, 6 + 2 * RSIZE);
	memset(g.vq.used, 0, 6 + 8 * RSIZE);
	g.vq.mem = &g.mem;
	g.vq.size = RSIZE;
	g.vq.feat = feat;
	g.vq.hdr_len = hdr_len;
	g.vq.last_avail = g.vq.last_used = start_idx;
	g.vq.avail->idx = g.vq.used->idx = start_idx;
	g.vq.callfd = g.efd;
	g.broken = 0;
	g.why[0] = '\0';
	g.vq.broken = &g.broken;
	g.vq.broken_why = g.why;
	g.vq.broken_why_len = sizeof(g.why);
	rte_spinlock_init(&g.vq.lock);
	g.next_buf = BUF_GPA;
	g.next_desc = 0;
	g.avail_idx = g.used_seen = start_idx;
	calls_taken();
}

static uint64_t buf_alloc(uint32_t len)
{
	uint64_t gpa = g.next_buf;

	g.next_buf += RTE_ALIGN_CEIL(len, 64);
	return gpa;
}

/* A buffer across the seam of the two regions, len bytes. */
static uint64_t buf_at_seam(uint32_t len)
{
	return GPA0 + REG_SIZE - len / 2;
}

/* Copies len bytes to/from guest memory at gpa (which may cross the seam). */
static void gput(uint64_t gpa, const uint8_t *src, uint32_t len)
{
	for (uint32_t i = 0; i < len; i++)
		*hva(gpa + i) = src[i];
}

static void gget(uint64_t gpa, uint8_t *dst, uint32_t len)
{
	for (uint32_t i = 0; i < len; i++)
		dst[i] = *hva(gpa + i);
}

struct d {
	uint64_t addr;
	uint32_t len;
	uint16_t flags; /* NEXT is added between entries by post() */
};

/* Writes descriptors into table tab (the ring's when NULL) at slot, chained. */
static uint16_t write_chain(struct vring_desc *tab, uint16_t slot, const struct d *ds, int n)
{
	uint16_t first = slot;

	for (int i = 0; i < n; i++) {
		struct vring_desc *v = &tab[slot];
		uint16_t next = (uint16_t)(slot + 1);

		v->addr = ds[i].addr;
		v->len = ds[i].len;
		v->flags = ds[i].flags | (i + 1 < n ? VRING_DESC_F_NEXT : 0);
		v->next = next;
		slot = next;
	}
	return first;
}

static void avail_push(uint16_t head)
{
	g.vq.avail->ring[g.avail_idx & (RSIZE - 1)] = head;
	g.avail_idx++;
	__atomic_store_n(&g.vq.avail->idx, g.avail_idx, __ATOMIC_RELEASE);
}

/* Posts a chain in the ring's table; its head. */
static uint16_t post(const struct d *ds, int n)
{
	uint16_t head;

	if (g.next_desc + n > RSIZE)
		g.next_desc = 0;
	head = write_chain(g.vq.desc, g.next_desc, ds, n);
	g.next_desc = (uint16_t)(g.next_desc + n);
	avail_push(head);
	return head;
}

/* Posts a chain through an indirect table of n entries. */
static uint16_t post_indirect(const struct d *ds, int n)
{
	uint64_t tab = buf_alloc(16 * (uint32_t)n);
	struct d ind = {tab, 16 * (uint32_t)n, VRING_DESC_F_INDIRECT};

	write_chain((struct vring_desc *)hva(tab), 0, ds, n);
	return post(&ind, 1);
}

static bool used_next(uint16_t *id, uint32_t *len)
{
	uint16_t idx = __atomic_load_n(&g.vq.used->idx, __ATOMIC_ACQUIRE);
	struct vring_used_elem *e;

	if (idx == g.used_seen)
		return false;
	e = &g.vq.used->ring[g.used_seen++ & (RSIZE - 1)];
	*id = (uint16_t)e->id;
	*len = e->len;
	return true;
}

static void pattern(uint8_t *p, uint32_t len, uint32_t seed)
{
	for (uint32_t i = 0; i < len; i++)
		p[i] = (uint8_t)(seed * 131 + i * 7 + (i >> 8));
}

static bool frame_equals(const struct dp_frame *f, const uint8_t *want, uint32_t len)
{
	static uint8_t got[16384];

	if (f->len != len)
		return false;
	dp_frame_read(f, 0, 0, got, len);
	return memcmp(got, want, len) == 0;
}

/* ---- the guest's transmit ring ------------------------------------------------ */

enum layout { L_SHARED, L_OWN_HDR, L_CHAINED, L_INDIRECT, L_SEAM };

/* Posts frame (len bytes) with a 12-byte header as layout says; returns the head. */
static uint16_t post_tx_frame(const uint8_t *frame, uint32_t len, enum layout l)
{
	uint8_t hdr[12] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12};
	struct d ds[16];
	int n = 0;

	if (l == L_SHARED || l == L_SEAM) {
		uint64_t b = l == L_SEAM ? buf_at_seam(len + 12) : buf_alloc(len + 12);

		gput(b, hdr, 12);
		gput(b + 12, frame, len);
		ds[n++] = (struct d){b, len + 12, 0};
	} else {
		uint64_t h = buf_alloc(12);
		uint32_t chunk = l == L_OWN_HDR ? len : 1024, off = 0;

		gput(h, hdr, 12);
		ds[n++] = (struct d){h, 12, 0};
		while (off < len) {
			uint32_t k = RTE_MIN(chunk, len - off);
			uint64_t b = buf_alloc(k);

			gput(b, frame + off, k);
			ds[n++] = (struct d){b, k, 0};
			off += k;
		}
	}
	return l == L_INDIRECT ? post_indirect(ds, n) : post(ds, n);
}

static void test_rx_frames(void)
{
	static const uint32_t lens[] = {60, 1514, 9000};
	static uint8_t frame[3 * 5][9000];
	/* Buffers across the seam all overlap it: one frame there, the last. */
	enum layout ls[] = {L_SHARED, L_OWN_HDR, L_CHAINED, L_INDIRECT};

	for (uint16_t start = 0; start < 2; start++) {
		struct dp_frame f[32];
		uint16_t heads[16], id = 0, got, k = 0;
		uint32_t len = 0;

		/* The second round starts where the indexes wrap. */
		guest_init(VRING_F_INDIRECT, 12, start ? 65530 : 0);
		for (unsigned int li = 0; li < RTE_DIM(ls); li++)
			for (unsigned int i = 0; i < RTE_DIM(lens); i++) {
				/* 9000 B in 1 KiB pieces through a chain is 10 segments. */
				pattern(frame[k], lens[i], k);
				heads[k] = post_tx_frame(frame[k], lens[i], ls[li]);
				k++;
			}
		pattern(frame[k], 9000, k);
		heads[k] = post_tx_frame(frame[k], 9000, L_SEAM);
		k++;
		got = vring_split_rx(&g.vq, f, 32);
		ASSERT_INT_EQ(got, k);
		ASSERT_INT_EQ(g.vq.st.bad_desc, 0);
		for (uint16_t j = 0; j < got; j++) {
			CU_ASSERT(frame_equals(&f[j], frame[j], j + 1 == got ? 9000 : lens[j % 3]));
			ASSERT_INT_EQ(f[j].hdr_len, 0);
		}
		/* Nothing is given back before the release. */
		ASSERT_INT_EQ(g.vq.used->idx, g.used_seen);
		vring_split_rx_release(&g.vq);
		for (uint16_t j = 0; j < k; j++) {
			CU_ASSERT_FATAL(used_next(&id, &len));
			ASSERT_INT_EQ(id, heads[j]);
			ASSERT_INT_EQ(len, 0);
		}
		CU_ASSERT(!used_next(&id, &len));
		ASSERT_INT_EQ(g.broken, 0);
	}
}

static void test_rx_burst_limit(void)
{
	uint8_t frame[60];
	struct dp_frame f[VRING_MAX_HELD];

	guest_init(0, 12, 0);
	pattern(frame, 60, 1);
	for (int i = 0; i < 100; i++)
		post_tx_frame(frame, 60, L_SHARED);
	ASSERT_INT_EQ(vring_split_rx(&g.vq, f, 10), 10);
	ASSERT_INT_EQ(vring_split_rx(&g.vq, f, VRING_MAX_HELD), VRING_MAX_HELD - 10);
	vring_split_rx_release(&g.vq);
	ASSERT_INT_EQ(g.vq.used->idx, VRING_MAX_HELD);
	ASSERT_INT_EQ(vring_split_rx(&g.vq, f, VRING_MAX_HELD), 100 - VRING_MAX_HELD);
	vring_split_rx_release(&g.vq);
	ASSERT_INT_EQ(g.vq.used->idx, 100);
	ASSERT_INT_EQ(vring_split_rx(&g.vq, f, VRING_MAX_HELD), 0);
}

/* One bad chain between two good ones: the bad one is counted, comes back
 * with len 0 in its place, and the good ones go through. */
static void rx_bad_case(const char *what, uint16_t feat, void (*post_bad)(void))
{
	uint8_t frame[100];
	struct dp_frame f[4];
	uint16_t h0, h2, id;
	uint32_t len = 0;

	guest_init(feat, 12, 0);
	pattern(frame, 100, 3);
	h0 = post_tx_frame(frame, 100, L_SHARED);
	post_bad();
	h2 = post_tx_frame(frame, 100, L_OWN_HDR);
	ASSERT_INT_EQ(vring_split_rx(&g.vq, f, 4), 2);
	if (g.vq.st.bad_desc != 1)
		fprintf(stderr, "case %s: bad_desc %" PRIu64 "\n", what, g.vq.st.bad_desc);
	ASSERT_INT_EQ(g.vq.st.bad_desc, 1);
	CU_ASSERT(frame_equals(&f[0], frame, 100));
	CU_ASSERT(frame_equals(&f[1], frame, 100));
	vring_split_rx_release(&g.vq);
	CU_ASSERT(used_next(&id, &len) && id == h0 && len == 0);
	CU_ASSERT(used_next(&id, &len) && len == 0); /* the bad one */
	CU_ASSERT(used_next(&id, &len) && id == h2 && len == 0);
	ASSERT_INT_EQ(g.broken, 0);
}

static void bad_outside(void)
{
	struct d ds[] = {{0x1000, 100, 0}};

	post(ds, 1);
}

static void bad_past_end(void)
{
	struct d ds[] = {{GPA0 + 2 * REG_SIZE - 50, 112, 0}};

	post(ds, 1);
}

static void bad_huge_len(void)
{
	struct d ds[] = {{BUF_GPA, 0xfffffff0u, 0}};

	post(ds, 1);
}

static void bad_hdr_outside(void)
{
	struct d ds[] = {{0x10, 12, 0}, {buf_alloc(100), 100, 0}};

	post(ds, 2);
}

static void bad_loop(void)
{
	/* Two descriptors pointing at each other. */
	uint64_t b = buf_alloc(100);
	uint16_t s = g.next_desc;

	g.vq.desc[s] = (struct vring_desc){b, 100, VRING_DESC_F_NEXT, (uint16_t)(s + 1)};
	g.vq.desc[s + 1] = (struct vring_desc){b, 100, VRING_DESC_F_NEXT, s};
	g.next_desc = (uint16_t)(s + 2);
	avail_push(s);
}

/* A loop of empty descriptors: no segment limit ends it, only the
 * bound on the chain's length. */
static void bad_loop_empty(void)
{
	uint16_t s = g.next_desc;

	g.vq.desc[s] =
	    (struct vring_desc){buf_alloc(112), 112, VRING_DESC_F_NEXT, (uint16_t)(s + 1)};
	g.vq.desc[s + 1] = (struct vring_desc){BUF_GPA, 0, VRING_DESC_F_NEXT, (uint16_t)(s + 2)};
	g.vq.desc[s + 2] = (struct vring_desc){BUF_GPA, 0, VRING_DESC_F_NEXT, (uint16_t)(s + 1)};
	g.next_desc = (uint16_t)(s + 3);
	avail_push(s);
}

static void bad_next_out_of_range(void)
{
	uint16_t s = g.next_desc;

	g.vq.desc[s] = (struct vring_desc){buf_alloc(100), 100, VRING_DESC_F_NEXT, RSIZE};
	g.next_desc = (uint16_t)(s + 1);
	avail_push(s);
}

static void bad_writable(void)
{
	struct d ds[] = {{buf_alloc(12), 12, 0}, {buf_alloc(100), 100, VRING_DESC_F_WRITE}};

	post(ds, 2);
}

static void bad_zero_len(void)
{
	struct d ds[] = {{buf_alloc(12), 12, 0}, {buf_alloc(100), 0, 0}};

	post(ds, 2);
}

static void bad_header_only(void)
{
	struct d ds[] = {{buf_alloc(12), 12, 0}};

	post(ds, 1);
}

static void bad_short_header(void)
{
	struct d ds[] = {{buf_alloc(8), 8, 0}};

	post(ds, 1);
}

static void bad_too_large(void)
{
	struct d ds[DP_FRAME_SEGS + 1];

	/* 65554 bytes: one more than a 65535-byte MTU's frame with a tag. */
	ds[0] = (struct d){buf_alloc(12), 12, 0};
	for (int i = 1; i <= DP_FRAME_SEGS; i++)
		ds[i] = (struct d){buf_alloc(4096), i == 1 ? 4096 + 18 + 1 : 4096, 0};
	post(ds, DP_FRAME_SEGS + 1);
}

static void bad_ind_len(void)
{
	struct d ds[] = {{buf_alloc(20), 20, VRING_DESC_F_INDIRECT}};

	post(ds, 1);
}

static void bad_ind_too_long(void)
{
	struct d in[VRING_MAX_INDIRECT + 1];

	for (int i = 0; i < VRING_MAX_INDIRECT + 1; i++)
		in[i] = (struct d){buf_alloc(20), 20, 0};
	post_indirect(in, VRING_MAX_INDIRECT + 1);
}

static void bad_ind_nested(void)
{
	uint64_t inner = buf_alloc(16);
	struct d in[] = {{buf_alloc(112), 112, 0}, {inner, 16, VRING_DESC_F_INDIRECT}};

	write_chain((struct vring_desc *)hva(inner), 0, (struct d[]){{buf_alloc(100), 100, 0}}, 1);
	post_indirect(in, 2);
}

static void bad_ind_next(void)
{
	uint64_t tab = buf_alloc(16);
	struct d ds[] = {{tab, 16, VRING_DESC_F_INDIRECT}, {buf_alloc(100), 100, 0}};

	write_chain((struct vring_desc *)hva(tab), 0, (struct d[]){{buf_alloc(112), 112, 0}}, 1);
	post(ds, 2);
}

static void bad_ind_table_outside(void)
{
	struct d ds[] = {{0x2000, 32, VRING_DESC_F_INDIRECT}};

	post(ds, 1);
}

static void bad_ind_loop(void)
{
	uint64_t tab = buf_alloc(32);
	struct vring_desc *t = (struct vring_desc *)hva(tab);
	uint64_t b = buf_alloc(112);
	struct d ds[] = {{tab, 32, VRING_DESC_F_INDIRECT}};

	t[0] = (struct vring_desc){b, 112, VRING_DESC_F_NEXT, 1};
	t[1] = (struct vring_desc){b, 112, VRING_DESC_F_NEXT, 0};
	post(ds, 1);
}

static void bad_too_many_segs(void)
{
	struct d ds[DP_FRAME_SEGS + 2];

	ds[0] = (struct d){buf_alloc(12), 12, 0};
	for (int i = 1; i < DP_FRAME_SEGS + 2; i++)
		ds[i] = (struct d){buf_alloc(10), 10, 0};
	post(ds, DP_FRAME_SEGS + 2);
}

static void test_rx_hostile_chains(void)
{
	rx_bad_case("addr outside memory", 0, bad_outside);
	rx_bad_case("buffer past the end", 0, bad_past_end);
	rx_bad_case("length that wraps", 0, bad_huge_len);
	rx_bad_case("header outside memory", 0, bad_hdr_outside);
	rx_bad_case("loop", 0, bad_loop);
	rx_bad_case("loop of empty descriptors", 0, bad_loop_empty);
	rx_bad_case("next out of range", 0, bad_next_out_of_range);
	rx_bad_case("writable descriptor", 0, bad_writable);
	rx_bad_case("zero-length data", 0, bad_zero_len);
	rx_bad_case("header only", 0, bad_header_only);
	rx_bad_case("shorter than the header", 0, bad_short_header);
	rx_bad_case("too many segments", 0, bad_too_many_segs);
	rx_bad_case("larger than 65553 bytes", 0, bad_too_large);
	rx_bad_case("indirect not negotiated", 0, bad_ind_next);
	rx_bad_case("indirect len not 16n", VRING_F_INDIRECT, bad_ind_len);
	rx_bad_case("indirect too long", VRING_F_INDIRECT, bad_ind_too_long);
	rx_bad_case("indirect nested", VRING_F_INDIRECT, bad_ind_nested);
	rx_bad_case("indirect with NEXT", VRING_F_INDIRECT, bad_ind_next);
	rx_bad_case("indirect table outside", VRING_F_INDIRECT, bad_ind_table_outside);
	rx_bad_case("indirect loop", VRING_F_INDIRECT, bad_ind_loop);
}

/* The largest frame a guest without TSO sends (65535-byte MTU, tag) goes. */
static void test_rx_largest(void)
{
	struct d ds[DP_FRAME_SEGS + 1];
	struct dp_frame f[1];

	guest_init(0, 12, 0);
	ds[0] = (struct d){buf_alloc(12), 12, 0};
	for (int i = 1; i <= DP_FRAME_SEGS; i++)
		ds[i] = (struct d){buf_alloc(4200), i == 1 ? 4096 + 17 : 4096, 0};
	post(ds, DP_FRAME_SEGS + 1);
	ASSERT_INT_EQ(vring_split_rx(&g.vq, f, 1), 1);
	ASSERT_INT_EQ(f[0].len, 65553);
	ASSERT_INT_EQ(f[0].n_seg, DP_FRAME_SEGS);
	vring_split_rx_release(&g.vq);
}

static void test_rx_broken(void)
{
	uint8_t frame[60];
	struct dp_frame f[4];
	uint8_t frame2[60];

	/* avail idx more than a ring ahead. */
	guest_init(0, 12, 100);
	__atomic_store_n(&g.vq.avail->idx, (uint16_t)(100 + RSIZE + 1), __ATOMIC_RELEASE);
	ASSERT_INT_EQ(vring_split_rx(&g.vq, f, 4), 0);
	ASSERT_INT_EQ(g.broken, 2);
	ASSERT_CONTAINS(g.why, "avail idx");
	/* Exactly a ring ahead is valid. */
	guest_init(0, 12, 100);
	pattern(frame, 60, 2);
	for (int i = 0; i < RSIZE; i++)
		post_tx_frame(frame, 60, L_SHARED);
	ASSERT_INT_EQ(vring_split_rx(&g.vq, f, 4), 4);
	ASSERT_INT_EQ(g.broken, 0);
	/* avail idx behind: as far ahead as 65535 entries. */
	guest_init(0, 12, 100);
	__atomic_store_n(&g.vq.avail->idx, 99, __ATOMIC_RELEASE);
	ASSERT_INT_EQ(vring_split_rx(&g.vq, f, 4), 0);
	ASSERT_INT_EQ(g.broken, 2);
	/* A head that names no descriptor. */
	guest_init(0, 12, 0);
	pattern(frame2, 60, 4);
	post_tx_frame(frame2, 60, L_SHARED);
	avail_push(RSIZE);
	ASSERT_INT_EQ(vring_split_rx(&g.vq, f, 4), 0);
	ASSERT_INT_EQ(g.broken, 2);
	ASSERT_CONTAINS(g.why, "descriptor 256");
	/* Once broken, nothing is published. */
	ASSERT_INT_EQ(g.vq.used->idx, 0);
}

/* The guest rewrites a descriptor's length between a valid value and
 * one reaching past its memory while the device reads the chain over and
 * over: each frame the device returns is the valid one, whole. */
static volatile bool flip_stop;

static void *flipper(void *arg)
{
	volatile uint32_t *len = arg;

	while (!flip_stop) {
		*len = 112;
		*len = 0x7ffffff0u;
	}
	return NULL;
}

static void test_rx_rewritten(void)
{
	uint8_t frame[100];
	struct dp_frame f[1];
	pthread_t t;
	uint16_t head;
	uint64_t good = 0, bad = 0;

	guest_init(0, 12, 0);
	pattern(frame, 100, 5);
	head = post_tx_frame(frame, 100, L_SHARED);
	flip_stop = false;
	CU_ASSERT_FATAL(pthread_create(&t, NULL, flipper, &g.vq.desc[head].len) == 0);
	for (int i = 0; i < 200000; i++) {
		if (vring_split_rx(&g.vq, f, 1) == 1) {
			ASSERT_INT_EQ(f[0].len, 100);
			ASSERT_INT_EQ(f[0].n_seg, 1);
			CU_ASSERT(f[0].seg[0].len == 100);
			good++;
		} else {
			bad++;
		}
		vring_split_rx_release(&g.vq);
		avail_push(head);
	}
	flip_stop = true;
	pthread_join(t, NULL);
	ASSERT_INT_EQ(g.vq.st.bad_desc, bad);
	ASSERT_INT_EQ(g.broken, 0);
	printf("\n  rewritten descriptor: %" PRIu64 " frames whole, %" PRIu64 " refused\n", good,
	       bad);
	/* After the device read it, a rewrite changes nothing it holds. */
	guest_init(0, 12, 0);
	head = post_tx_frame(frame, 100, L_SHARED);
	ASSERT_INT_EQ(vring_split_rx(&g.vq, f, 1), 1);
	g.vq.desc[head].addr = 0x10;
	g.vq.desc[head].len = 0x7ffffff0u;
	g.vq.avail->ring[0] = 7;
	CU_ASSERT(frame_equals(&f[0], frame, 100));
	vring_split_rx_release(&g.vq);
	ASSERT_INT_EQ(g.vq.used->ring[0].id, head);
}

/* ---- the guest's receive ring ------------------------------------------------ */

/* Posts n receive chains of segs buffers of blen bytes each. */
static void post_rx_bufs(int n, int segs, uint32_t blen, bool indirect)
{
	for (int i = 0; i < n; i++) {
		struct d ds[8];

		for (int s = 0; s < segs; s++)
			ds[s] = (struct d){buf_alloc(blen), blen, VRING_DESC_F_WRITE};
		if (indirect)
			post_indirect(ds, segs);
		else
			post(ds, segs);
	}
}

/* Reads the next frame the device wrote: its chains' bytes after the
 * header, concatenated (mrg: num_buffers chains). Returns the frame's
 * length, -1 when a used entry is missing; num_buffers in *nb. */
static int guest_recv(uint8_t *out, uint16_t hdr_len, bool mrg, uint16_t *nb, uint8_t *hdr)
{
	uint16_t id, bufs = 1;
	uint32_t len, total = 0;

	for (uint16_t b = 0; b < bufs; b++) {
		const struct vring_desc *tab = g.vq.desc;
		uint32_t left, off = 0;
		uint16_t i;

		if (!used_next(&id, &len))
			return -1;
		if (b == 0 && len == 0)
			return 0;
		left = len;
		i = id;
		if (tab[i].flags & VRING_DESC_F_INDIRECT) {
			tab = (const struct vring_desc *)hva(tab[i].addr);
			i = 0;
		}
		while (left != 0) {
			uint32_t k = RTE_MIN(left, tab[i].len);
			uint8_t tmp[16384];

			gget(tab[i].addr, tmp, k);
			for (uint32_t j = 0; j < k; j++, off++) {
				if (b == 0 && off < hdr_len)
					hdr[off] = tmp[j];
				else
					out[total++] = tmp[j];
			}
			left -= k;
			i = tab[i].next;
		}
		if (b == 0 && mrg) {
			memcpy(&bufs, hdr + 10, 2);
			*nb = bufs;
		}
	}
	return (int)total;
}

static void mk_frame(struct dp_frame *f, uint8_t *data, uint32_t len, uint32_t seed, uint16_t segs)
{
	uint32_t per = (len + segs - 1) / segs, off = 0;

	pattern(data, len, seed);
	memset(f, 0, sizeof(*f));
	f->len = len;
	while (off < len) {
		uint32_t k = RTE_MIN(per, len - off);

		f->seg[f->n_seg].data = data + off;
		f->seg[f->n_seg++].len = k;
		off += k;
	}
}

static void tx_case(uint16_t feat, uint16_t hdr_len, int segs, uint32_t blen, bool indirect)
{
	static const uint32_t lens[] = {60, 1514, 9000};
	static uint8_t data[3][9000], got[16384];
	struct dp_frame fr[3];
	struct dp_frame *fp[3] = {&fr[0], &fr[1], &fr[2]};
	bool mrg = feat & VRING_F_MRG_RXBUF;
	uint16_t n = mrg || (uint32_t)segs * blen >= 9000u + hdr_len ? 3 : 2;

	guest_init(feat, hdr_len, 65534);
	for (int i = 0; i < 3; i++)
		mk_frame(&fr[i], data[i], lens[i], 10 + i, (uint16_t)(1 + i * 3));
	post_rx_bufs(mrg ? 12 : 3, segs, blen, indirect);
	ASSERT_INT_EQ(vring_split_tx_frames(&g.vq, fp, NULL, n), n);
	ASSERT_INT_EQ(g.vq.st.bad_desc, 0);
	for (uint16_t i = 0; i < n; i++) {
		uint8_t hdr[12];
		uint16_t nb = 0;
		int len = guest_recv(got, hdr_len, mrg, &nb, hdr);

		ASSERT_INT_EQ(len, lens[i]);
		CU_ASSERT(memcmp(got, data[i], lens[i]) == 0);
		for (int k = 0; k < 10; k++)
			ASSERT_INT_EQ(hdr[k], 0);
		if (hdr_len == 12) {
			uint16_t want =
			    mrg ? (uint16_t)((lens[i] + hdr_len + segs * blen - 1) / (segs * blen))
				: 1;

			memcpy(&nb, hdr + 10, 2);
			ASSERT_INT_EQ(nb, want);
		}
	}
	if (n == 2)
		ASSERT_INT_EQ(g.vq.st.too_long, 0);
}

static void test_tx_layouts(void)
{
	/* No MRG_RXBUF: one chain of one buffer, of a header and a buffer,
	 * of four; through an indirect table; a 10-byte header. */
	tx_case(0, 12, 1, 1526, false);
	tx_case(0, 12, 1, 9100, false);
	tx_case(0, 12, 4, 2400, false);
	tx_case(VRING_F_INDIRECT, 12, 4, 2400, true);
	tx_case(0, 10, 3, 4096, false);
	/* MRG_RXBUF: a frame across chains (9000 B in 1536-byte buffers: 6). */
	tx_case(VRING_F_MRG_RXBUF, 12, 1, 1536, false);
	tx_case(VRING_F_MRG_RXBUF, 12, 2, 768, false);
	tx_case(VRING_F_MRG_RXBUF | VRING_F_INDIRECT, 12, 2, 2048, true);
}

static void test_tx_header_own_buffer(void)
{
	static uint8_t data[1514], got[2048];
	struct dp_frame fr, *fp = &fr;
	struct d ds[] = {{buf_alloc(12), 12, VRING_DESC_F_WRITE},
			 {buf_at_seam(1514), 1514, VRING_DESC_F_WRITE}};
	uint8_t hdr[12];
	uint16_t nb;

	guest_init(0, 12, 0);
	ds[0].addr = buf_alloc(12);
	post(ds, 2);
	mk_frame(&fr, data, 1514, 7, 2);
	ASSERT_INT_EQ(vring_split_tx_frames(&g.vq, &fp, NULL, 1), 1);
	ASSERT_INT_EQ(guest_recv(got, 12, false, &nb, hdr), 1514);
	CU_ASSERT(memcmp(got, data, 1514) == 0);
}

static void test_tx_strip_and_private_header(void)
{
	static uint8_t data[200], got[256], want[200];
	struct dp_frame fr, *fp = &fr;
	const uint8_t strip = 1;
	uint8_t hdr[12];
	uint16_t nb;

	guest_init(0, 12, 0);
	post_rx_bufs(2, 1, 1526, false);
	mk_frame(&fr, data, 200, 9, 3);
	dp_frame_header(&fr);
	fr.hdr[0] = 0x42; /* the forwarded header is the private copy */
	ASSERT_INT_EQ(vring_split_tx_frames(&g.vq, &fp, &strip, 1), 1);
	ASSERT_INT_EQ(guest_recv(got, 12, false, &nb, hdr), 196);
	dp_frame_read(&fr, 1, 0, want, 196);
	CU_ASSERT(memcmp(got, want, 196) == 0);
	ASSERT_INT_EQ(got[0], 0x42);
	CU_ASSERT(memcmp(got + 12, data + 16, 184) == 0);
}

static void test_tx_mbufs(void)
{
	static uint8_t b0[2048], b1[9000], b2[2048], want[9100], got[16384];
	struct rte_mbuf m[3], *mp[2];
	uint8_t hdr[12];
	uint16_t nb;

	memset(m, 0, sizeof(m));
	pattern(want, 9060, 77);
	/* A one-segment mbuf of 60 bytes and a chain of two (9000 B). */
	m[0].buf_addr = b0;
	m[0].data_off = 128;
	m[0].data_len = 60;
	m[0].pkt_len = 60;
	m[0].nb_segs = 1;
	memcpy(b0 + 128, want, 60);
	m[1].buf_addr = b1;
	m[1].data_off = 0;
	m[1].data_len = 8000;
	m[1].pkt_len = 9000;
	m[1].nb_segs = 2;
	m[1].next = &m[2];
	memcpy(b1, want + 60, 8000);
	m[2].buf_addr = b2;
	m[2].data_off = 64;
	m[2].data_len = 1000;
	memcpy(b2 + 64, want + 8060, 1000);
	mp[0] = &m[0];
	mp[1] = &m[1];
	guest_init(VRING_F_MRG_RXBUF, 12, 0);
	post_rx_bufs(10, 1, 2048, false);
	ASSERT_INT_EQ(vring_split_tx_mbufs(&g.vq, mp, 2), 2);
	ASSERT_INT_EQ(guest_recv(got, 12, true, &nb, hdr), 60);
	CU_ASSERT(memcmp(got, want, 60) == 0);
	ASSERT_INT_EQ(nb, 1);
	ASSERT_INT_EQ(guest_recv(got, 12, true, &nb, hdr), 9000);
	CU_ASSERT(memcmp(got, want + 60, 9000) == 0);
	ASSERT_INT_EQ(nb, 5);
}

static void test_tx_short_of_buffers(void)
{
	static uint8_t data[4][1514], got[2048];
	struct dp_frame fr[4], *fp[4];
	uint8_t hdr[12];
	uint16_t nb;

	for (int i = 0; i < 4; i++) {
		mk_frame(&fr[i], data[i], 1514, 20 + i, 1);
		fp[i] = &fr[i];
	}
	/* No MRG_RXBUF: 2 chains for 4 frames. */
	guest_init(0, 12, 0);
	post_rx_bufs(2, 1, 1526, false);
	ASSERT_INT_EQ(vring_split_tx_frames(&g.vq, fp, NULL, 4), 2);
	ASSERT_INT_EQ(g.vq.st.no_buffers, 1);
	ASSERT_INT_EQ(g.vq.used->idx, 2);
	post_rx_bufs(2, 1, 1526, false);
	ASSERT_INT_EQ(vring_split_tx_frames(&g.vq, fp + 2, NULL, 2), 2);
	for (int i = 0; i < 4; i++) {
		ASSERT_INT_EQ(guest_recv(got, 12, false, &nb, hdr), 1514);
		CU_ASSERT(memcmp(got, data[i], 1514) == 0);
	}
	/* MRG_RXBUF: 3 buffers of 1024 hold one frame (2 buffers), not the
	 * second: the third stays posted, nothing of the frame is written. */
	guest_init(VRING_F_MRG_RXBUF, 12, 0);
	post_rx_bufs(3, 1, 1024, false);
	ASSERT_INT_EQ(vring_split_tx_frames(&g.vq, fp, NULL, 2), 1);
	ASSERT_INT_EQ(g.vq.used->idx, 2);
	ASSERT_INT_EQ(g.vq.last_avail, 2);
	post_rx_bufs(1, 1, 1024, false);
	ASSERT_INT_EQ(vring_split_tx_frames(&g.vq, fp + 1, NULL, 1), 1);
	for (int i = 0; i < 2; i++) {
		ASSERT_INT_EQ(guest_recv(got, 12, true, &nb, hdr), 1514);
		CU_ASSERT(memcmp(got, data[i], 1514) == 0);
		ASSERT_INT_EQ(nb, 2);
	}
	/* Nothing posted at all. */
	guest_init(0, 12, 0);
	ASSERT_INT_EQ(vring_split_tx_frames(&g.vq, fp, NULL, 4), 0);
	ASSERT_INT_EQ(g.vq.used->idx, 0);
	ASSERT_INT_EQ(calls_taken(), 0);
}

static void test_tx_too_long(void)
{
	static uint8_t big[9000], small[100], got[2048];
	struct dp_frame fr[2], *fp[2] = {&fr[0], &fr[1]};
	uint8_t hdr[12];
	uint16_t nb;

	/* No MRG_RXBUF, 1526-byte buffers: a 9000 B frame is dropped and
	 * counted, the chain stays posted and takes the next frame. */
	guest_init(0, 12, 0);
	post_rx_bufs(1, 1, 1526, false);
	mk_frame(&fr[0], big, 9000, 1, 1);
	mk_frame(&fr[1], small, 100, 2, 1);
	ASSERT_INT_EQ(vring_split_tx_frames(&g.vq, fp, NULL, 2), 2);
	ASSERT_INT_EQ(g.vq.st.too_long, 1);
	ASSERT_INT_EQ(g.vq.used->idx, 1);
	ASSERT_INT_EQ(guest_recv(got, 12, false, &nb, hdr), 100);
	CU_ASSERT(memcmp(got, small, 100) == 0);
}

/* A bad chain on the receive ring comes back with len 0 before the frame's
 * chains, which are the next good ones. */
static void tx_bad_case(const char *what, uint16_t feat, void (*post_bad)(void))
{
	static uint8_t data[1514], got[2048];
	struct dp_frame fr, *fp = &fr;
	uint16_t id = 0, nb = 0;
	uint32_t len = 0;
	uint8_t hdr[12];
	bool mrg = feat & VRING_F_MRG_RXBUF;

	guest_init(feat, 12, 0);
	mk_frame(&fr, data, 1514, 30, 2);
	/* Mergeable: a good chain too small for the frame, then the bad one,
	 * then good ones. Else the bad one first. */
	if (mrg)
		post_rx_bufs(1, 1, 1024, false);
	post_bad();
	post_rx_bufs(2, 1, 1526, false);
	ASSERT_INT_EQ(vring_split_tx_frames(&g.vq, &fp, NULL, 1), 1);
	if (g.vq.st.bad_desc != 1)
		fprintf(stderr, "case %s: bad_desc %" PRIu64 "\n", what, g.vq.st.bad_desc);
	ASSERT_INT_EQ(g.vq.st.bad_desc, 1);
	ASSERT_INT_EQ(g.vq.st.too_long, 0);
	/* The bad entry first, then the frame's. */
	CU_ASSERT(used_next(&id, &len) && id == g.vq.avail->ring[mrg ? 1 : 0] && len == 0);
	if (mrg) {
		ASSERT_INT_EQ(g.vq.used->ring[1].id, g.vq.avail->ring[0]);
		ASSERT_INT_EQ(g.vq.used->ring[1].len, 1024);
		ASSERT_INT_EQ(g.vq.used->ring[2].id, g.vq.avail->ring[2]);
		ASSERT_INT_EQ(g.vq.used->ring[2].len, 1514 + 12 - 1024);
	} else {
		ASSERT_INT_EQ(g.vq.used->ring[1].id, g.vq.avail->ring[1]);
		ASSERT_INT_EQ(g.vq.used->ring[1].len, 1514 + 12);
	}
	ASSERT_INT_EQ(guest_recv(got, 12, mrg, &nb, hdr), 1514);
	CU_ASSERT(memcmp(got, data, 1514) == 0);
	if (mrg)
		ASSERT_INT_EQ(nb, 2);
}

static void tbad_readonly(void)
{
	struct d ds[] = {{buf_alloc(1526), 1526, 0}};

	post(ds, 1);
}

static void tbad_outside(void)
{
	struct d ds[] = {{0x3000, 1526, VRING_DESC_F_WRITE}};

	post(ds, 1);
}

static void tbad_zero(void)
{
	struct d ds[] = {{buf_alloc(64), 0, VRING_DESC_F_WRITE}};

	post(ds, 1);
}

static void tbad_loop(void)
{
	uint64_t b = buf_alloc(64);
	uint16_t s = g.next_desc;

	g.vq.desc[s] =
	    (struct vring_desc){b, 1, VRING_DESC_F_NEXT | VRING_DESC_F_WRITE, (uint16_t)(s + 1)};
	g.vq.desc[s + 1] = (struct vring_desc){b, 1, VRING_DESC_F_NEXT | VRING_DESC_F_WRITE, s};
	g.next_desc = (uint16_t)(s + 2);
	avail_push(s);
}

static void tbad_loop_empty(void)
{
	uint16_t s = g.next_desc;

	g.vq.desc[s] = (struct vring_desc){BUF_GPA, 0, VRING_DESC_F_NEXT | VRING_DESC_F_WRITE,
					   (uint16_t)(s + 1)};
	g.vq.desc[s + 1] =
	    (struct vring_desc){BUF_GPA, 0, VRING_DESC_F_NEXT | VRING_DESC_F_WRITE, s};
	g.next_desc = (uint16_t)(s + 2);
	avail_push(s);
}

static void test_tx_hostile_chains(void)
{
	tx_bad_case("read-only buffer", VRING_F_MRG_RXBUF, tbad_readonly);
	tx_bad_case("outside memory", VRING_F_MRG_RXBUF, tbad_outside);
	tx_bad_case("zero-length chain", VRING_F_MRG_RXBUF, tbad_zero);
	tx_bad_case("loop", VRING_F_MRG_RXBUF, tbad_loop);
	tx_bad_case("loop of empty descriptors", VRING_F_MRG_RXBUF, tbad_loop_empty);
	tx_bad_case("read-only buffer, no mrg", 0, tbad_readonly);
	tx_bad_case("outside memory, no mrg", 0, tbad_outside);
	tx_bad_case("zero-length chain, no mrg", 0, tbad_zero);
	tx_bad_case("loop, no mrg", 0, tbad_loop);
}

/* A guest posting nothing but bad chains: a burst hands back at most 64
 * and stops (bounded work), the frame waits for a good chain. */
static void test_tx_bad_only(void)
{
	static uint8_t data[60], got[128];
	struct dp_frame fr, *fp = &fr;
	uint8_t hdr[12];
	uint16_t nb;

	guest_init(0, 12, 0);
	mk_frame(&fr, data, 60, 50, 1);
	for (int i = 0; i < 100; i++)
		tbad_outside();
	ASSERT_INT_EQ(vring_split_tx_frames(&g.vq, &fp, NULL, 1), 0);
	ASSERT_INT_EQ(g.vq.st.bad_desc, 64);
	ASSERT_INT_EQ(g.vq.used->idx, 64);
	ASSERT_INT_EQ(g.vq.st.no_buffers, 0);
	ASSERT_INT_EQ(vring_split_tx_frames(&g.vq, &fp, NULL, 1), 0);
	ASSERT_INT_EQ(g.vq.st.bad_desc, 100);
	ASSERT_INT_EQ(g.vq.used->idx, 100);
	ASSERT_INT_EQ(g.vq.st.no_buffers, 1);
	post_rx_bufs(1, 1, 1526, false);
	ASSERT_INT_EQ(vring_split_tx_frames(&g.vq, &fp, NULL, 1), 1);
	g.used_seen = 100;
	ASSERT_INT_EQ(guest_recv(got, 12, false, &nb, hdr), 60);
	CU_ASSERT(memcmp(got, data, 60) == 0);
}

/* Empty descriptors ahead of a buffer: up to 128 descriptors a chain. */
static void test_tx_long_chain(void)
{
	static uint8_t data[60], got[128];
	struct dp_frame fr, *fp = &fr;
	struct d ds[130];
	uint8_t hdr[12];
	uint16_t nb;

	mk_frame(&fr, data, 60, 51, 1);
	for (int n = 128; n <= 129; n++) {
		guest_init(0, 12, 0);
		for (int i = 0; i + 1 < n; i++)
			ds[i] = (struct d){BUF_GPA, 0, VRING_DESC_F_WRITE};
		ds[n - 1] = (struct d){buf_alloc(128), 128, VRING_DESC_F_WRITE};
		post(ds, n);
		ASSERT_INT_EQ(vring_split_tx_frames(&g.vq, &fp, NULL, 1), n == 128);
		ASSERT_INT_EQ(g.vq.st.bad_desc, n != 128);
		ASSERT_INT_EQ(guest_recv(got, 12, false, &nb, hdr), n == 128 ? 60 : 0);
	}
}

static void test_tx_broken(void)
{
	static uint8_t data[60];
	struct dp_frame fr, *fp = &fr;

	mk_frame(&fr, data, 60, 1, 1);
	guest_init(0, 12, 0);
	__atomic_store_n(&g.vq.avail->idx, RSIZE + 1, __ATOMIC_RELEASE);
	ASSERT_INT_EQ(vring_split_tx_frames(&g.vq, &fp, NULL, 1), 0);
	ASSERT_INT_EQ(g.broken, 2);
	guest_init(0, 12, 0);
	avail_push(RSIZE + 3);
	ASSERT_INT_EQ(vring_split_tx_frames(&g.vq, &fp, NULL, 1), 0);
	ASSERT_INT_EQ(g.broken, 2);
	ASSERT_INT_EQ(g.vq.used->idx, 0);
}

/* The receive side: the guest flips a posted buffer's address between
 * two valid buffers and its length between valid and past its memory:
 * each frame lands whole in one buffer, or its chain comes back empty. */
static void *flipper_addr(void *arg)
{
	volatile struct vring_desc *d = arg;

	while (!flip_stop) {
		d->addr = BUF_GPA;
		d->len = 0x7ffffff0u;
		d->addr = BUF_GPA + 4096;
		d->len = 1526;
	}
	return NULL;
}

static void test_tx_rewritten(void)
{
	static uint8_t data[1514], a[1526], b[1526];
	struct dp_frame fr, *fp = &fr;
	uint64_t whole = 0, empty = 0;
	struct d ds[] = {{BUF_GPA, 1526, VRING_DESC_F_WRITE}};
	pthread_t t;

	guest_init(0, 12, 0);
	g.vq.callfd = -1;
	mk_frame(&fr, data, 1514, 40, 1);
	post(ds, 1);
	flip_stop = false;
	CU_ASSERT_FATAL(pthread_create(&t, NULL, flipper_addr, &g.vq.desc[0]) == 0);
	for (int i = 0; i < 100000; i++) {
		uint16_t id = 1;
		uint32_t len = 1;

		memset(hva(BUF_GPA), 0, 1526);
		memset(hva(BUF_GPA + 4096), 0, 1526);
		uint16_t sent = vring_split_tx_frames(&g.vq, &fp, NULL, 1);

		/* An empty chain is the one posted: the frame waits. */
		if (!used_next(&id, &len)) {
			CU_FAIL("no used entry");
			break;
		}
		ASSERT_INT_EQ(id, 0);
		ASSERT_INT_EQ(sent, len != 0);
		gget(BUF_GPA, a, 1526);
		gget(BUF_GPA + 4096, b, 1526);
		avail_push(0);
		if (len == 0) {
			empty++;
			continue;
		}
		ASSERT_INT_EQ(len, 1526);
		/* One buffer holds the frame whole, the other is untouched. */
		CU_ASSERT((memcmp(a + 12, data, 1514) == 0 && b[12] == 0 && b[1525] == 0) ||
			  (memcmp(b + 12, data, 1514) == 0 && a[12] == 0 && a[1525] == 0));
		whole++;
	}
	flip_stop = true;
	pthread_join(t, NULL);
	ASSERT_INT_EQ(g.vq.st.bad_desc, empty);
	ASSERT_INT_EQ(g.broken, 0);
	printf("\n  rewritten descriptor: %" PRIu64 " frames whole, %" PRIu64 " chains refused\n",
	       whole, empty);
}

/* ---- signalling --------------------------------------------------------------- */

static void test_signal(void)
{
	uint8_t frame[60];
	struct dp_frame f[8], *fp = &f[0];
	volatile uint16_t *used_event;

	pattern(frame, 60, 1);
	/* Without EVENT_IDX: a call per burst unless NO_INTERRUPT. */
	guest_init(0, 12, 0);
	calls_taken();
	post_tx_frame(frame, 60, L_SHARED);
	ASSERT_INT_EQ(vring_split_rx(&g.vq, f, 8), 1);
	vring_split_rx_release(&g.vq);
	ASSERT_INT_EQ(calls_taken(), 1);
	g.vq.avail->flags = VRING_AVAIL_F_NO_INTERRUPT;
	post_tx_frame(frame, 60, L_SHARED);
	ASSERT_INT_EQ(vring_split_rx(&g.vq, f, 8), 1);
	vring_split_rx_release(&g.vq);
	ASSERT_INT_EQ(calls_taken(), 0);
	/* An empty release calls nobody. */
	g.vq.avail->flags = 0;
	vring_split_rx_release(&g.vq);
	ASSERT_INT_EQ(calls_taken(), 0);

	/* EVENT_IDX: the first publish signals (nothing signalled yet); then
	 * only when used_event lies in (old, new]. */
	guest_init(VRING_F_EVENT_IDX, 12, 0);
	used_event = &g.vq.avail->ring[RSIZE];
	g.vq.avail->flags = VRING_AVAIL_F_NO_INTERRUPT; /* ignored with EVENT_IDX */
	*used_event = 0;
	for (int i = 0; i < 3; i++)
		post_tx_frame(frame, 60, L_SHARED);
	ASSERT_INT_EQ(vring_split_rx(&g.vq, f, 8), 3);
	vring_split_rx_release(&g.vq); /* used 0 -> 3 */
	ASSERT_INT_EQ(calls_taken(), 1);
	*used_event = 2; /* already passed: no call */
	post_tx_frame(frame, 60, L_SHARED);
	ASSERT_INT_EQ(vring_split_rx(&g.vq, f, 8), 1);
	vring_split_rx_release(&g.vq); /* 3 -> 4 */
	ASSERT_INT_EQ(calls_taken(), 0);
	*used_event = 5; /* wants a call once entry 5 is used (idx passes 5) */
	post_tx_frame(frame, 60, L_SHARED);
	ASSERT_INT_EQ(vring_split_rx(&g.vq, f, 8), 1);
	vring_split_rx_release(&g.vq); /* 4 -> 5 */
	ASSERT_INT_EQ(calls_taken(), 0);
	post_tx_frame(frame, 60, L_SHARED);
	post_tx_frame(frame, 60, L_SHARED);
	ASSERT_INT_EQ(vring_split_rx(&g.vq, f, 8), 2);
	vring_split_rx_release(&g.vq); /* 5 -> 7 */
	ASSERT_INT_EQ(calls_taken(), 1);
	ASSERT_INT_EQ(g.vq.st.calls, 2);

	/* The transmit side the same way. */
	guest_init(VRING_F_EVENT_IDX, 12, 0);
	used_event = &g.vq.avail->ring[RSIZE];
	mk_frame(&f[0], frame, 60, 1, 1);
	post_rx_bufs(4, 1, 1526, false);
	*used_event = 0;
	ASSERT_INT_EQ(vring_split_tx_frames(&g.vq, &fp, NULL, 1), 1); /* first: call */
	ASSERT_INT_EQ(calls_taken(), 1);
	*used_event = 0;
	ASSERT_INT_EQ(vring_split_tx_frames(&g.vq, &fp, NULL, 1), 1); /* 1 -> 2: passed */
	ASSERT_INT_EQ(calls_taken(), 0);
	*used_event = 2;
	ASSERT_INT_EQ(vring_split_tx_frames(&g.vq, &fp, NULL, 1), 1); /* 2 -> 3 */
	ASSERT_INT_EQ(calls_taken(), 1);
	guest_init(0, 12, 0);
	post_rx_bufs(2, 1, 1526, false);
	ASSERT_INT_EQ(vring_split_tx_frames(&g.vq, &fp, NULL, 1), 1);
	ASSERT_INT_EQ(calls_taken(), 1);
	g.vq.avail->flags = VRING_AVAIL_F_NO_INTERRUPT;
	ASSERT_INT_EQ(vring_split_tx_frames(&g.vq, &fp, NULL, 1), 1);
	ASSERT_INT_EQ(calls_taken(), 0);
}

/* ---- cost ------------------------------------------------------------------------ */

static void test_cycles(void)
{
	enum { BURST = 32, ROUNDS = 20000 };
	static uint8_t data[BURST][1514];
	struct dp_frame f[BURST], *fp[BURST];
	uint32_t sizes[] = {60, 1514};

	for (unsigned int s = 0; s < RTE_DIM(sizes); s++) {
		uint32_t len = sizes[s];
		uint64_t t_rx = 0, t_tx = 0, n_rx = 0, n_tx = 0;
		uint16_t heads[BURST];

		/* rx: the same BURST chains, posted again each round. */
		guest_init(0, 12, 0);
		g.vq.callfd = -1;
		for (int i = 0; i < BURST; i++)
			heads[i] = post_tx_frame(data[i], len, L_SHARED);
		for (int r = 0; r < ROUNDS; r++) {
			uint64_t t0 = rte_rdtsc();
			uint16_t got = vring_split_rx(&g.vq, f, BURST);

			vring_split_rx_release(&g.vq);
			t_rx += rte_rdtsc() - t0;
			n_rx += got;
			for (int i = 0; i < BURST; i++)
				avail_push(heads[i]);
		}
		ASSERT_INT_EQ(n_rx, (uint64_t)BURST * ROUNDS);
		/* tx: frames from memory of their own into 1526-byte buffers. */
		guest_init(0, 12, 0);
		g.vq.callfd = -1;
		for (int i = 0; i < BURST; i++) {
			mk_frame(&f[i], data[i], len, (uint32_t)i, 1);
			fp[i] = &f[i];
		}
		post_rx_bufs(BURST, 1, 1526, false);
		for (int i = 0; i < BURST; i++)
			heads[i] = (uint16_t)i;
		for (int r = 0; r < ROUNDS; r++) {
			uint64_t t0 = rte_rdtsc();
			uint16_t sent = vring_split_tx_frames(&g.vq, fp, NULL, BURST);

			t_tx += rte_rdtsc() - t0;
			n_tx += sent;
			for (int i = 0; i < BURST; i++)
				avail_push(heads[i]);
		}
		ASSERT_INT_EQ(n_tx, (uint64_t)BURST * ROUNDS);
		printf("\n  %4u B: rx+release %.1f cycles/frame, tx %.1f cycles/frame", len,
		       (double)t_rx / (double)n_rx, (double)t_tx / (double)n_tx);
	}
	printf("\n");
}

int main(void)
{
	static const struct unit_test tests[] = {
	    {"rx: 60/1514/9000 B, every layout, across wrap-around", test_rx_frames},
	    {"rx: bursts held up to VRING_MAX_HELD", test_rx_burst_limit},
	    {"rx: each bad chain refused alone", test_rx_hostile_chains},
	    {"rx: the largest frame", test_rx_largest},
	    {"rx: impossible indexes break the ring", test_rx_broken},
	    {"rx: a guest rewriting a descriptor", test_rx_rewritten},
	    {"tx: 60/1514/9000 B, every layout, mrg on and off", test_tx_layouts},
	    {"tx: header in its own buffer, frame across the seam", test_tx_header_own_buffer},
	    {"tx: VLAN strip and the private header", test_tx_strip_and_private_header},
	    {"tx: mbufs, one segment and a chain", test_tx_mbufs},
	    {"tx: short of buffers", test_tx_short_of_buffers},
	    {"tx: too long without mrg", test_tx_too_long},
	    {"tx: each bad chain refused alone", test_tx_hostile_chains},
	    {"tx: only bad chains: bounded, handed back", test_tx_bad_only},
	    {"tx: a chain of 128 descriptors, not 129", test_tx_long_chain},
	    {"tx: impossible indexes break the ring", test_tx_broken},
	    {"tx: a guest rewriting a descriptor", test_tx_rewritten},
	    {"signalling: event idx, no interrupt", test_signal},
	    {"cycles per frame (printed)", test_cycles},
	    {NULL, NULL},
	};

	return unit_run("vring_split", tests);
}
