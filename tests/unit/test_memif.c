/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Unit tests of podwire's memif: the wire layout, every check of every
 * message a peer sends (each bad field of each), the handshake order in
 * both roles, ring index arithmetic across wrap-around, the datapath's
 * checks of every descriptor field against what was negotiated (on rings
 * in plain memory, no EAL), and the SIGBUS guard.
 */
#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

#include "datapath/frame.h"
#include "datapath/stats.h"
#include "memif/memif.h"
#include "ports/memif/port.h"
#include "unit.h"

static char why[256];

#define REFUSED(call, rc, words)                                                                   \
	do {                                                                                       \
		why[0] = '\0';                                                                     \
		ASSERT_INT_EQ((call), (rc));                                                       \
		ASSERT_CONTAINS(why, (words));                                                     \
	} while (0)

/* ---- the wire ---------------------------------------------------------------- */

static void test_layout(void)
{
	/* Offsets from the protocol: a message is a 16-bit type then the
	 * packed body; a ring has head and tail on their own cache lines. */
	ASSERT_INT_EQ(sizeof(struct memif_msg), 128);
	ASSERT_INT_EQ(offsetof(struct memif_msg, hello.min_version), 2 + 32);
	ASSERT_INT_EQ(offsetof(struct memif_msg, hello.max_log2_ring_size), 2 + 42);
	ASSERT_INT_EQ(offsetof(struct memif_msg, init.id), 4);
	ASSERT_INT_EQ(offsetof(struct memif_msg, init.mode), 8);
	ASSERT_INT_EQ(offsetof(struct memif_msg, init.secret), 9);
	ASSERT_INT_EQ(offsetof(struct memif_msg, init.name), 33);
	ASSERT_INT_EQ(offsetof(struct memif_msg, add_region.size), 4);
	ASSERT_INT_EQ(offsetof(struct memif_msg, add_ring.index), 4);
	ASSERT_INT_EQ(offsetof(struct memif_msg, add_ring.region), 6);
	ASSERT_INT_EQ(offsetof(struct memif_msg, add_ring.offset), 8);
	ASSERT_INT_EQ(offsetof(struct memif_msg, add_ring.log2_ring_size), 12);
	ASSERT_INT_EQ(offsetof(struct memif_msg, add_ring.private_hdr_size), 13);
	ASSERT_INT_EQ(offsetof(struct memif_msg, disconnect.reason), 6);
	ASSERT_INT_EQ(sizeof(struct memif_desc), 16);
	ASSERT_INT_EQ(offsetof(struct memif_desc, length), 4);
	ASSERT_INT_EQ(offsetof(struct memif_desc, offset), 8);
	ASSERT_INT_EQ(offsetof(struct memif_ring, head), 6);
	ASSERT_INT_EQ(offsetof(struct memif_ring, tail), 64);
	ASSERT_INT_EQ(offsetof(struct memif_ring, desc), 128);
	ASSERT_INT_EQ(memif_ring_bytes(10), 128 + 16 * 1024);
}

static void test_builders(void)
{
	struct memif_msg m;
	char out[40];

	memif_msg_hello(&m, "podwired");
	ASSERT_INT_EQ(m.type, MEMIF_MSG_HELLO);
	ASSERT_INT_EQ(m.hello.min_version, 0x200);
	ASSERT_INT_EQ(m.hello.max_version, 0x200);
	ASSERT_INT_EQ(m.hello.max_m2s_ring, MEMIF_MAX_QUEUE_PAIRS - 1);
	ASSERT_INT_EQ(m.hello.max_log2_ring_size, 14);
	memif_field_str(m.hello.name, sizeof(m.hello.name), out, sizeof(out));
	ASSERT_STR_EQ(out, "podwired");
	/* A 40-byte name is cut to the 32 bytes of the field, no NUL needed. */
	memif_msg_init(&m, 7, "s3cret", "0123456789012345678901234567890123456789");
	ASSERT_INT_EQ(m.init.version, 0x200);
	ASSERT_INT_EQ(m.init.id, 7);
	ASSERT_INT_EQ(m.init.mode, MEMIF_MODE_ETHERNET);
	memif_field_str(m.init.name, sizeof(m.init.name), out, sizeof(out));
	ASSERT_STR_EQ(out, "01234567890123456789012345678901");
	memif_msg_add_ring(&m, true, 1, 0, 4096, 10);
	ASSERT_INT_EQ(m.add_ring.flags, MEMIF_RING_FLAG_S2M);
	ASSERT_INT_EQ(m.add_ring.offset, 4096);
	memif_msg_disconnect(&m, 3,
			     "a reason longer than the field can hold, repeated: a reason "
			     "longer than the field can hold, repeated");
	/* The reason always ends in a NUL. */
	ASSERT_INT_EQ(m.disconnect.reason[MEMIF_REASON_LEN - 1], 0);
	/* Bytes of the field not printable come out as '?'. */
	m.disconnect.reason[0] = 0x07;
	memif_field_str(m.disconnect.reason, 8, out, sizeof(out));
	ASSERT_STR_EQ(out, "? reason");
}

/* ---- INIT -------------------------------------------------------------------------- */

static struct memif_msg_init good_init(const char *secret)
{
	struct memif_msg m;

	memif_msg_init(&m, 0, secret, "pod");
	return m.init;
}

static void test_init(void)
{
	struct memif_msg_init i = good_init(NULL);
	char full[25] = "abcdefghijklmnopqrstuvwx"; /* 24 bytes: fills the field */

	ASSERT_INT_EQ(memif_check_init(&i, 0, "", why, sizeof(why)), 0);
	ASSERT_INT_EQ(memif_check_init(&i, 0, NULL, why, sizeof(why)), 0);
	i.version = 0x100;
	REFUSED(memif_check_init(&i, 0, "", why, sizeof(why)), -EPROTO, "version 1.0");
	i.version = 0x201;
	REFUSED(memif_check_init(&i, 0, "", why, sizeof(why)), -EPROTO, "2.0 only");
	i = good_init(NULL);
	i.id = 3;
	REFUSED(memif_check_init(&i, 0, "", why, sizeof(why)), -EPROTO, "interface id 3");
	i = good_init(NULL);
	i.mode = MEMIF_MODE_IP;
	REFUSED(memif_check_init(&i, 0, "", why, sizeof(why)), -EPROTO, "ethernet");
	i = good_init("abc");
	REFUSED(memif_check_init(&i, 0, "", why, sizeof(why)), -EACCES, "the port has none");
	i = good_init(NULL);
	REFUSED(memif_check_init(&i, 0, "abc", why, sizeof(why)), -EACCES, "sent no secret");
	i = good_init("abd");
	REFUSED(memif_check_init(&i, 0, "abc", why, sizeof(why)), -EACCES, "wrong secret");
	i = good_init("abcd");
	REFUSED(memif_check_init(&i, 0, "abc", why, sizeof(why)), -EACCES, "wrong secret");
	i = good_init("abc");
	ASSERT_INT_EQ(memif_check_init(&i, 0, "abc", why, sizeof(why)), 0);
	i = good_init(full);
	ASSERT_INT_EQ(memif_check_init(&i, 0, full, why, sizeof(why)), 0);
	i.secret[23] = 'y';
	REFUSED(memif_check_init(&i, 0, full, why, sizeof(why)), -EACCES, "wrong secret");
}

/* ---- regions and rings ---------------------------------------------------------------- */

static struct memif_msg_add_region region(uint16_t index, uint64_t size)
{
	struct memif_msg m;

	memif_msg_add_region(&m, index, size);
	return m.add_region;
}

static struct memif_msg_add_ring ring(bool s2m, uint16_t index, uint16_t reg, uint32_t offset,
				      uint8_t log2)
{
	struct memif_msg m;

	memif_msg_add_ring(&m, s2m, index, reg, offset, log2);
	return m.add_ring;
}

static void test_add_region(void)
{
	struct memif_offer o = {0};
	struct memif_msg_add_region r = region(0, 1 << 20);

	ASSERT_INT_EQ(memif_check_add_region(&r, &o, why, sizeof(why)), 0);
	memif_offer_add_region(&o, &r);
	r = region(0, 4096);
	REFUSED(memif_check_add_region(&r, &o, why, sizeof(why)), -EPROTO, "region 1 was due");
	r = region(2, 4096);
	REFUSED(memif_check_add_region(&r, &o, why, sizeof(why)), -EPROTO, "region 1 was due");
	r = region(1, 0);
	REFUSED(memif_check_add_region(&r, &o, why, sizeof(why)), -EPROTO, "is 0 bytes");
	r = region(1, MEMIF_MAX_REGION_BYTES + 1);
	REFUSED(memif_check_add_region(&r, &o, why, sizeof(why)), -EPROTO, "1024 MiB");
	r = region(1, MEMIF_MAX_REGION_BYTES);
	ASSERT_INT_EQ(memif_check_add_region(&r, &o, why, sizeof(why)), 0);
	memif_offer_add_region(&o, &r);
	r = region(2, MEMIF_MAX_REGION_BYTES);
	ASSERT_INT_EQ(memif_check_add_region(&r, &o, why, sizeof(why)), 0);
	/* Past the count: region 16 of a peer that sent 16 small ones. */
	memset(&o, 0, sizeof(o));
	for (uint16_t i = 0; i < MEMIF_MAX_REGIONS; i++) {
		r = region(i, 4096);
		ASSERT_INT_EQ(memif_check_add_region(&r, &o, why, sizeof(why)), 0);
		memif_offer_add_region(&o, &r);
	}
	r = region(MEMIF_MAX_REGIONS, 4096);
	REFUSED(memif_check_add_region(&r, &o, why, sizeof(why)), -EPROTO, "at most 16 regions");
}

static void test_memory_caps(void)
{
	const uint64_t mib = 1 << 20;

	ASSERT_INT_EQ(memif_check_memory(0, 16 * mib, 0, 16 * mib, 0, 20 * mib, why, sizeof(why)),
		      0);
	REFUSED(memif_check_memory(1, 10 * mib, 10 * mib, 16 * mib, 10 * mib, 20 * mib, why,
				   sizeof(why)),
		-ENOMEM,
		"region 1: 20 MiB would pass the 16 MiB a peer may map (podwired "
		"--memif-peer-memory-mb)");
	REFUSED(memif_check_memory(0, 15 * mib, 0, 16 * mib, 8 * mib, 20 * mib, why, sizeof(why)),
		-ENOMEM,
		"15 MiB more would pass the 20 MiB all peers may map (podwired "
		"--memif-total-memory-mb)");
	/* Up to the byte, and no wrap-around near the top. */
	ASSERT_INT_EQ(memif_check_memory(0, 4 * mib, 16 * mib, 20 * mib, 16 * mib, 20 * mib, why,
					 sizeof(why)),
		      0);
	REFUSED(memif_check_memory(0, 1, 20 * mib, 20 * mib, 0, UINT64_MAX / 2, why, sizeof(why)),
		-ENOMEM, "a peer may map");
}

static void test_add_ring(void)
{
	struct memif_offer o = {0};
	struct memif_msg_add_region r = region(0, 65536);
	struct memif_msg_add_ring g;

	memif_offer_add_region(&o, &r);
	g = ring(true, 0, 0, 0, 10);
	ASSERT_INT_EQ(memif_check_add_ring(&g, &o, why, sizeof(why)), 0);
	memif_offer_add_ring(&o, &g);
	/* The other direction counts on its own. */
	g = ring(false, 0, 0, 16512, 10);
	ASSERT_INT_EQ(memif_check_add_ring(&g, &o, why, sizeof(why)), 0);
	g = ring(true, 0, 0, 0, 10);
	REFUSED(memif_check_add_ring(&g, &o, why, sizeof(why)), -EPROTO, "ring 1 was due");
	g = ring(true, 1, 0, 0, 10);
	g.flags |= 4;
	REFUSED(memif_check_add_ring(&g, &o, why, sizeof(why)), -EPROTO, "unknown flags");
	g = ring(true, 1, 0, 0, 0);
	REFUSED(memif_check_add_ring(&g, &o, why, sizeof(why)), -EPROTO, "size 2^0");
	g = ring(true, 1, 0, 0, 15);
	REFUSED(memif_check_add_ring(&g, &o, why, sizeof(why)), -EPROTO, "size 2^15");
	g = ring(true, 1, 0, 0, 10);
	g.private_hdr_size = 8;
	REFUSED(memif_check_add_ring(&g, &o, why, sizeof(why)), -EPROTO, "private header");
	g = ring(true, 1, 1, 0, 10);
	REFUSED(memif_check_add_ring(&g, &o, why, sizeof(why)), -EPROTO, "never added");
	g = ring(true, 1, 0, 12, 10);
	REFUSED(memif_check_add_ring(&g, &o, why, sizeof(why)), -EPROTO, "not 8-byte aligned");
	/* A ring of 2^10 takes 16512 bytes: it fits exactly at 65536 - 16512,
	 * not 8 bytes later, nor where offset + size wraps 32 bits. */
	g = ring(true, 1, 0, 65536 - 16512, 10);
	ASSERT_INT_EQ(memif_check_add_ring(&g, &o, why, sizeof(why)), 0);
	g = ring(true, 1, 0, 65536 - 16512 + 8, 10);
	REFUSED(memif_check_add_ring(&g, &o, why, sizeof(why)), -EPROTO,
		"pass the end of region 0");
	g = ring(true, 1, 0, 0xfffffff8u, 10);
	REFUSED(memif_check_add_ring(&g, &o, why, sizeof(why)), -EPROTO, "pass the end");
	/* More queue pairs than podwired takes. */
	o.n_rings[1] = MEMIF_MAX_QUEUE_PAIRS;
	g = ring(true, MEMIF_MAX_QUEUE_PAIRS, 0, 0, 10);
	REFUSED(memif_check_add_ring(&g, &o, why, sizeof(why)), -EPROTO, "at most 8 per way");
}

static void test_connect_and_hello(void)
{
	struct memif_offer o = {0};
	struct memif_msg m;
	uint8_t log2 = 0;

	REFUSED(memif_check_connect(&o, why, sizeof(why)), -EPROTO, "0 m2s and 0 s2m");
	o.n_rings[1] = 1;
	REFUSED(memif_check_connect(&o, why, sizeof(why)), -EPROTO, "0 m2s and 1 s2m");
	o.n_rings[0] = 1;
	ASSERT_INT_EQ(memif_check_connect(&o, why, sizeof(why)), 0);

	memif_msg_hello(&m, "srv");
	ASSERT_INT_EQ(memif_check_hello(&m.hello, 10, &log2, why, sizeof(why)), 0);
	ASSERT_INT_EQ(log2, 10);
	m.hello.max_log2_ring_size = 8;
	ASSERT_INT_EQ(memif_check_hello(&m.hello, 10, &log2, why, sizeof(why)), 0);
	ASSERT_INT_EQ(log2, 8);
	m.hello.max_log2_ring_size = 0;
	REFUSED(memif_check_hello(&m.hello, 10, &log2, why, sizeof(why)), -EPROTO, "2^0");
	memif_msg_hello(&m, "srv");
	m.hello.min_version = 0x201;
	m.hello.max_version = 0x300;
	REFUSED(memif_check_hello(&m.hello, 10, &log2, why, sizeof(why)), -EPROTO, "2.1 to 3.0");
	m.hello.min_version = 0x100;
	m.hello.max_version = 0x100;
	REFUSED(memif_check_hello(&m.hello, 10, &log2, why, sizeof(why)), -EPROTO, "1.0 to 1.0");
	m.hello.max_version = 0x200;
	ASSERT_INT_EQ(memif_check_hello(&m.hello, 10, &log2, why, sizeof(why)), 0);
}

/* ---- order ----------------------------------------------------------------------------- */

static void test_server_order(void)
{
	for (uint16_t t = 0; t < MEMIF_MSG_TYPE_COUNT + 2; t++) {
		bool init = t == MEMIF_MSG_INIT,
		     setup = t == MEMIF_MSG_ADD_REGION || t == MEMIF_MSG_ADD_RING ||
			     t == MEMIF_MSG_CONNECT,
		     disc = t == MEMIF_MSG_DISCONNECT;

		ASSERT_INT_EQ(memif_srv_expects(MEMIF_SRV_WAIT_INIT, t, why, sizeof(why)),
			      init || disc ? 0 : -EPROTO);
		ASSERT_INT_EQ(memif_srv_expects(MEMIF_SRV_WAIT_SETUP, t, why, sizeof(why)),
			      setup || disc ? 0 : -EPROTO);
		ASSERT_INT_EQ(memif_srv_expects(MEMIF_SRV_CONNECTED, t, why, sizeof(why)),
			      disc ? 0 : -EPROTO);
	}
	REFUSED(memif_srv_expects(MEMIF_SRV_WAIT_INIT, MEMIF_MSG_CONNECT, why, sizeof(why)),
		-EPROTO, "connect message (type 6) out of order: waiting for init");
	REFUSED(memif_srv_expects(MEMIF_SRV_CONNECTED, 99, why, sizeof(why)), -EPROTO,
		"unknown message (type 99)");
}

static void test_client_order(void)
{
	ASSERT_INT_EQ(memif_cli_expects(MEMIF_CLI_WAIT_HELLO, 0, MEMIF_MSG_HELLO, why, sizeof(why)),
		      0);
	REFUSED(memif_cli_expects(MEMIF_CLI_WAIT_HELLO, 0, MEMIF_MSG_ACK, why, sizeof(why)),
		-EPROTO, "waiting for hello");
	ASSERT_INT_EQ(memif_cli_expects(MEMIF_CLI_WAIT_ACKS, 3, MEMIF_MSG_ACK, why, sizeof(why)),
		      0);
	REFUSED(memif_cli_expects(MEMIF_CLI_WAIT_ACKS, 3, MEMIF_MSG_CONNECTED, why, sizeof(why)),
		-EPROTO, "(more to come)");
	ASSERT_INT_EQ(
	    memif_cli_expects(MEMIF_CLI_WAIT_CONNECTED, 0, MEMIF_MSG_CONNECTED, why, sizeof(why)),
	    0);
	REFUSED(memif_cli_expects(MEMIF_CLI_WAIT_CONNECTED, 0, MEMIF_MSG_HELLO, why, sizeof(why)),
		-EPROTO, "waiting for connected");
	REFUSED(memif_cli_expects(MEMIF_CLI_CONNECTED, 0, MEMIF_MSG_ACK, why, sizeof(why)), -EPROTO,
		"nothing but disconnect");
	for (int st = MEMIF_CLI_WAIT_HELLO; st <= MEMIF_CLI_CONNECTED; st++)
		ASSERT_INT_EQ(memif_cli_expects(st, 1, MEMIF_MSG_DISCONNECT, why, sizeof(why)), 0);
}

/* ---- rings ------------------------------------------------------------------------------ */

static void test_flap_backoff(void)
{
	ASSERT_INT_EQ(memif_flap_backoff_ms(0, 100, 5000), 0);
	ASSERT_INT_EQ(memif_flap_backoff_ms(1, 100, 5000), 100);
	ASSERT_INT_EQ(memif_flap_backoff_ms(2, 100, 5000), 200);
	ASSERT_INT_EQ(memif_flap_backoff_ms(6, 100, 5000), 3200);
	ASSERT_INT_EQ(memif_flap_backoff_ms(7, 100, 5000), 5000);
	/* However long the streak: no overflow past the cap. */
	ASSERT_INT_EQ(memif_flap_backoff_ms(40, 100, 5000), 5000);
	ASSERT_INT_EQ(memif_flap_backoff_ms(4000000000u, 100, 5000), 5000);
	ASSERT_INT_EQ(memif_flap_backoff_ms(3, 0, 0), 0);
	ASSERT_INT_EQ(memif_flap_backoff_ms(4000000000u, 0, 5000), 0);
	ASSERT_INT_EQ(memif_flap_backoff_ms(3, 20, 20), 20);
}

static void test_ring_count(void)
{
	ASSERT_INT_EQ(memif_ring_count(10, 10, 1024), 0);
	ASSERT_INT_EQ(memif_ring_count(1034, 10, 1024), 1024);
	ASSERT_INT_EQ(memif_ring_count(1035, 10, 1024), MEMIF_RING_BAD);
	/* Across the 16-bit wrap. */
	ASSERT_INT_EQ(memif_ring_count(2, 65534, 1024), 4);
	ASSERT_INT_EQ(memif_ring_count(1020, 65534, 1024), 1022);
	ASSERT_INT_EQ(memif_ring_count(1022, 65534, 1024), 1024);
	ASSERT_INT_EQ(memif_ring_count(1023, 65534, 1024), MEMIF_RING_BAD);
	/* An index behind the other (a peer moving it back) is never a count. */
	ASSERT_INT_EQ(memif_ring_count(5, 10, 1024), MEMIF_RING_BAD);
	ASSERT_INT_EQ(memif_ring_count(65535, 0, 16384), MEMIF_RING_BAD);
	/* A whole ring of the largest size still counts. */
	ASSERT_INT_EQ(memif_ring_count(16384, 0, 16384), 16384);
	for (uint32_t base = 0; base < 65536; base += 4099)
		for (uint16_t k = 0; k <= 64; k++)
			ASSERT_INT_EQ(memif_ring_count((uint16_t)(base + k), (uint16_t)base, 64),
				      k);
}

static void test_desc_access(void)
{
	struct memif_desc ring[2] __attribute__((aligned(16)));
	struct memif_desc d;

	memif_desc_post(&ring[0], 2, 4096, 2048);
	d = memif_desc_read(&ring[0]);
	ASSERT_INT_EQ(d.region, 2);
	ASSERT_INT_EQ(d.offset, 4096);
	ASSERT_INT_EQ(d.length, 2048);
	ASSERT_INT_EQ(d.flags, 0);
	memif_desc_fill(&ring[0], 60, true);
	d = memif_desc_read(&ring[0]);
	ASSERT_INT_EQ(d.length, 60);
	ASSERT_INT_EQ(d.flags, MEMIF_DESC_FLAG_NEXT);
	/* The copy stays what it was when the shared one changes. */
	ring[0].length = 9999;
	ASSERT_INT_EQ(d.length, 60);
	memif_desc_post_frame(&ring[1], 0, 128, 64, false);
	d = memif_desc_read(&ring[1]);
	ASSERT_INT_EQ(d.offset, 128);
	ASSERT_INT_EQ(d.length, 64);
}

/* ---- the datapath on a fake connection ------------------------------------------------ */

/* One queue pair laid out as a pod would: region 0 holds the s2m ring,
 * the m2s ring, then RX_BUFS buffers of BUF bytes. */
#define T_LOG2	5
#define T_SLOTS (1u << T_LOG2)
#define T_BUF	256
#define T_RING	2048 /* > memif_ring_bytes(T_LOG2), a multiple of 64 */

struct fake {
	struct memif_port mp;
	struct memif_conn *c;
	struct dp_port dp;
	struct port_counters ctr[1];
	uint8_t *mem;
	size_t size;
	struct memif_ring *s2m, *m2s;
};

static struct fake *fake_new(bool server)
{
	struct fake *f = calloc(1, sizeof(*f));

	/* tx counts frames per queue (no EAL here for stats_init). */
	if (stats_queues[0] == NULL)
		stats_queues[0] =
		    calloc((size_t)PW_MAX_PORTS * PW_MAX_QUEUES, sizeof(struct queue_counters));
	f->size = 2 * T_RING + 2 * T_SLOTS * T_BUF;
	f->mem = aligned_alloc(4096, f->size);
	memset(f->mem, 0, f->size);
	f->c = aligned_alloc(64, RTE_ALIGN_CEIL(sizeof(*f->c), 64));
	memset(f->c, 0, sizeof(*f->c));
	f->s2m = (struct memif_ring *)f->mem;
	f->m2s = (struct memif_ring *)(f->mem + T_RING);
	f->c->server = server;
	f->c->n_rx = f->c->n_tx = 1;
	f->c->n_regions = 1;
	f->c->region[0].base = f->mem;
	f->c->region[0].size = f->size;
	f->c->buf_size = server ? MEMIF_MAX_BUFFER : T_BUF;
	f->c->max_frame = 9018;
	for (int k = 0; k < 2; k++) {
		struct memif_qring *q = k == 0 ? &f->c->rx[0] : &f->c->tx[0];

		/* Server: receives s2m, sends m2s. Client: the other way. */
		q->ring = (k == 0) == server ? f->s2m : f->m2s;
		q->log2 = T_LOG2;
		q->size = T_SLOTS;
		q->mask = T_SLOTS - 1;
		q->kick_fd = -1;
		q->buf_offset = 2 * T_RING + (uint32_t)k * T_SLOTS * T_BUF;
		q->buf_size = T_BUF;
		q->ring->flags = MEMIF_RING_FLAG_MASK_INT;
	}
	f->mp.conn = f->c;
	f->mp.cur = f->c;
	f->dp.priv = &f->mp;
	f->dp.link_up = true;
	return f;
}

static void fake_free(struct fake *f)
{
	free(f->mem);
	free(f->c);
	free(f);
}

/* The pod (client) puts a frame of len bytes at buffer slot, flags as given. */
static void pod_put(struct fake *f, uint16_t slot, struct memif_desc d)
{
	f->s2m->desc[slot & (T_SLOTS - 1)] = d;
}

static struct memif_desc good(uint16_t slot, uint32_t len)
{
	struct memif_desc d = {.region = 0,
			       .offset = 2 * T_RING + (uint32_t)(slot & (T_SLOTS - 1)) * T_BUF,
			       .length = len};
	return d;
}

/* rx as server of what the pod published up to head; returns frames. */
static uint16_t server_rx(struct fake *f, uint16_t head, struct dp_frame *fr)
{
	__atomic_store_n(&f->s2m->head, head, __ATOMIC_RELEASE);
	return memif_rx_frames(&f->dp, 0, fr, 32, f->ctr);
}

static void test_rx_checks(void)
{
	static const struct {
		const char *what;
		struct memif_desc d;
	} bad[] = {
	    {"region index never added", {.region = 1, .offset = 2 * T_RING, .length = 60}},
	    {"offset past the region", {.offset = 2 * T_RING + 2 * T_SLOTS * T_BUF, .length = 60}},
	    {"offset + length past the region",
	     {.offset = 2 * T_RING + 2 * T_SLOTS * T_BUF - 30, .length = 60}},
	    {"offset + length wrapping 32 bits", {.offset = 0xffffff00u, .length = 0x200}},
	    {"length 0", {.offset = 2 * T_RING, .length = 0}},
	    {"length over the buffer size", {.offset = 0, .length = MEMIF_MAX_BUFFER + 1}},
	};
	struct dp_frame fr[32];

	for (unsigned int i = 0; i < RTE_DIM(bad); i++) {
		struct fake *f = fake_new(true);
		uint16_t n;

		/* A bad frame between two good ones: only it is dropped. */
		pod_put(f, 0, good(0, 60));
		pod_put(f, 1, bad[i].d);
		pod_put(f, 2, good(2, 70));
		memset(f->mem + 2 * T_RING + 2 * T_BUF, 0xab, 70);
		n = server_rx(f, 3, fr);
		if (n != 2 || f->ctr[0].drops[DROP_BAD_DESC] != 1 || f->c->bad_desc != 1)
			printf("\n    %s: %u frames, %llu dropped", bad[i].what, n,
			       (unsigned long long)f->ctr[0].drops[DROP_BAD_DESC]);
		ASSERT_INT_EQ(n, 2);
		ASSERT_INT_EQ(f->ctr[0].drops[DROP_BAD_DESC], 1);
		ASSERT_INT_EQ(fr[0].len, 60);
		ASSERT_INT_EQ(fr[1].len, 70);
		ASSERT_INT_EQ(fr[1].seg[0].data[69], 0xab);
		CU_ASSERT(f->c->broken == 0);
		/* Every slot is given back, the bad one too. */
		memif_rx_release(&f->dp, 0);
		ASSERT_INT_EQ(f->s2m->tail, 3);
		fake_free(f);
	}
}

static void test_rx_chains(void)
{
	struct fake *f = fake_new(true);
	struct dp_frame fr[32];
	struct memif_desc d;
	uint16_t n;

	/* A 3-segment chain is one frame of the three lengths. */
	for (uint16_t s = 0; s < 3; s++) {
		d = good(s, s < 2 ? T_BUF : 10);
		d.flags = s < 2 ? MEMIF_DESC_FLAG_NEXT : 0;
		pod_put(f, s, d);
	}
	n = server_rx(f, 3, fr);
	ASSERT_INT_EQ(n, 1);
	ASSERT_INT_EQ(fr[0].n_seg, 3);
	ASSERT_INT_EQ(fr[0].len, 2 * T_BUF + 10);
	memif_rx_release(&f->dp, 0);
	/* A chain that goes on past what the pod published: dropped, and
	 * each of its descriptors counts against the pod. */
	for (uint16_t s = 3; s < 8; s++) {
		d = good(s, 60);
		d.flags = MEMIF_DESC_FLAG_NEXT;
		pod_put(f, s, d);
	}
	n = server_rx(f, 8, fr);
	ASSERT_INT_EQ(n, 0);
	ASSERT_INT_EQ(f->ctr[0].drops[DROP_BAD_DESC], 1);
	ASSERT_INT_EQ(f->c->bad_desc, 5);
	memif_rx_release(&f->dp, 0);
	ASSERT_INT_EQ(f->s2m->tail, 8);
	fake_free(f);

	/* More segments than a frame may have (DP_FRAME_SEGS), all published:
	 * dropped whole, the frame after it is fine. */
	f = fake_new(true);
	for (uint16_t s = 0; s <= DP_FRAME_SEGS; s++) {
		d = good(s, 60);
		d.flags = s < DP_FRAME_SEGS ? MEMIF_DESC_FLAG_NEXT : 0;
		pod_put(f, s, d);
	}
	pod_put(f, DP_FRAME_SEGS + 1, good(DP_FRAME_SEGS + 1, 61));
	n = server_rx(f, DP_FRAME_SEGS + 2, fr);
	ASSERT_INT_EQ(n, 1);
	ASSERT_INT_EQ(fr[0].len, 61);
	ASSERT_INT_EQ(f->ctr[0].drops[DROP_BAD_DESC], 1);
	ASSERT_INT_EQ(f->c->bad_desc, DP_FRAME_SEGS + 1);
	fake_free(f);
}

static void test_rx_indices(void)
{
	struct fake *f = fake_new(true);
	struct dp_frame fr[32];

	/* A head more than a ring ahead: the connection is broken, nothing
	 * is read, and the datapath stops using it. */
	ASSERT_INT_EQ(server_rx(f, T_SLOTS + 1, fr), 0);
	ASSERT_INT_EQ(f->c->broken, 2);
	ASSERT_CONTAINS(f->c->broken_why, "more than a ring ahead");
	__atomic_store_n(&f->s2m->head, 1, __ATOMIC_RELEASE);
	pod_put(f, 0, good(0, 60));
	ASSERT_INT_EQ(memif_rx_frames(&f->dp, 0, fr, 32, f->ctr), 0);
	fake_free(f);

	/* Across the 16-bit wrap of the indices. */
	f = fake_new(true);
	f->c->rx[0].last = f->c->rx[0].released = f->c->rx[0].seen = 65530;
	for (uint16_t s = 65530; s != 4; s++)
		pod_put(f, s, good(s, 60));
	ASSERT_INT_EQ(server_rx(f, 4, fr), 10);
	memif_rx_release(&f->dp, 0);
	ASSERT_INT_EQ(f->s2m->tail, 4);
	fake_free(f);

	/* The head is read again only when what it last promised is short
	 * of the burst asked for: here the second burst comes from what the
	 * first read said, and only the third reads (and refuses) the
	 * impossible head the pod wrote in between. */
	f = fake_new(true);
	for (uint16_t s = 0; s < T_SLOTS; s++)
		pod_put(f, s, good(s, 60));
	__atomic_store_n(&f->s2m->head, T_SLOTS, __ATOMIC_RELEASE);
	ASSERT_INT_EQ(memif_rx_frames(&f->dp, 0, fr, T_SLOTS / 2, f->ctr), T_SLOTS / 2);
	__atomic_store_n(&f->s2m->head, 2 * T_SLOTS + 1, __ATOMIC_RELEASE);
	ASSERT_INT_EQ(memif_rx_frames(&f->dp, 0, fr, T_SLOTS / 2, f->ctr), T_SLOTS / 2);
	ASSERT_INT_EQ(f->c->broken, 0);
	ASSERT_INT_EQ(memif_rx_frames(&f->dp, 0, fr, T_SLOTS / 2, f->ctr), 0);
	ASSERT_INT_EQ(f->c->broken, 2);
	ASSERT_CONTAINS(f->c->broken_why, "more than a ring ahead");
	fake_free(f);

	/* Client role: a tail (the server's) past the head podwired posted. */
	f = fake_new(false);
	f->c->rx[0].posted = 8;
	__atomic_store_n(&f->m2s->tail, 9, __ATOMIC_RELEASE);
	ASSERT_INT_EQ(memif_rx_frames(&f->dp, 0, fr, 32, f->ctr), 0);
	ASSERT_INT_EQ(f->c->broken, 2);
	ASSERT_CONTAINS(f->c->broken_why, "passed the head");
	fake_free(f);
}

/* A frame of len bytes, one segment, in private memory. */
static void frame_of(struct dp_frame *fr, uint8_t *buf, uint32_t len)
{
	memset(fr, 0, sizeof(*fr));
	fr->len = len;
	fr->n_seg = 1;
	fr->seg[0].data = buf;
	fr->seg[0].len = len;
	fr->hdr_len = (uint16_t)RTE_MIN(len, (uint32_t)DP_FRAME_HDR_MAX);
	memcpy(fr->hdr, buf, fr->hdr_len);
}

static void test_tx_server(void)
{
	static uint8_t data[3000];
	struct fake *f = fake_new(true);
	struct dp_frame fr, *frp = &fr;
	uint8_t strip = 0;
	struct memif_desc d;

	for (unsigned int i = 0; i < sizeof(data); i++)
		data[i] = (uint8_t)i;
	/* The pod posted 3 buffers of T_BUF in its m2s ring. */
	for (uint16_t s = 0; s < 3; s++) {
		d = good(s, T_BUF);
		d.offset += T_SLOTS * T_BUF;
		f->m2s->desc[s] = d;
	}
	__atomic_store_n(&f->m2s->head, 3, __ATOMIC_RELEASE);
	/* A frame of 4 buffers does not fit: not sent, and the pod's posted
	 * descriptors are as they were (lengths not cut to what was copied). */
	frame_of(&fr, data, 4 * T_BUF);
	ASSERT_INT_EQ(memif_tx_frames(&f->dp, 0, &frp, &strip, 1), 0);
	for (uint16_t s = 0; s < 3; s++) {
		ASSERT_INT_EQ(f->m2s->desc[s].length, T_BUF);
		ASSERT_INT_EQ(f->m2s->desc[s].flags, 0);
	}
	ASSERT_INT_EQ(f->m2s->tail, 0);
	/* One of 2.5 buffers fits: a chain of three, the data in order. */
	frame_of(&fr, data, 2 * T_BUF + 100);
	ASSERT_INT_EQ(memif_tx_frames(&f->dp, 0, &frp, &strip, 1), 1);
	ASSERT_INT_EQ(f->m2s->tail, 3);
	ASSERT_INT_EQ(f->m2s->desc[0].flags, MEMIF_DESC_FLAG_NEXT);
	ASSERT_INT_EQ(f->m2s->desc[2].flags, 0);
	ASSERT_INT_EQ(f->m2s->desc[2].length, 100);
	CU_ASSERT(memcmp(f->mem + f->m2s->desc[2].offset, data + 2 * T_BUF, 100) == 0);
	fake_free(f);

	/* A buffer posted outside the region breaks the connection; nothing
	 * is written anywhere. */
	f = fake_new(true);
	d = good(0, T_BUF);
	d.offset = (uint32_t)f->size - 16;
	f->m2s->desc[0] = d;
	__atomic_store_n(&f->m2s->head, 1, __ATOMIC_RELEASE);
	frame_of(&fr, data, 60);
	ASSERT_INT_EQ(memif_tx_frames(&f->dp, 0, &frp, &strip, 1), 0);
	ASSERT_INT_EQ(f->c->broken, 2);
	ASSERT_CONTAINS(f->c->broken_why, "outside its regions");
	ASSERT_INT_EQ(f->m2s->tail, 0);
	fake_free(f);
}

/* ---- the SIGBUS guard ------------------------------------------------------------------ */

static void test_sigbus_guard(void)
{
	long page = sysconf(_SC_PAGESIZE);
	struct memif_conn *c = aligned_alloc(64, RTE_ALIGN_CEIL(sizeof(*c), 64));
	int fd = memfd_create("unit-guard", MFD_CLOEXEC);
	volatile uint8_t *m;

	memset(c, 0, sizeof(*c));
	CU_ASSERT_FATAL(fd >= 0 && ftruncate(fd, 2 * page) == 0);
	m = mmap(NULL, 2 * (size_t)page, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	CU_ASSERT_FATAL(m != MAP_FAILED);
	m[page] = 7;
	ASSERT_INT_EQ(memif_guard_init(), 0);
	ASSERT_INT_EQ(memif_guard_add((void *)m, 2 * (size_t)page, c), 0);
	/* The pod takes the pages away: the next touch would be SIGBUS. */
	CU_ASSERT_FATAL(ftruncate(fd, 0) == 0);
	ASSERT_INT_EQ(m[page], 0); /* zeroed memory now, and podwired goes on */
	m[page] = 9;		   /* writable too, and private */
	ASSERT_INT_EQ(m[page], 9);
	ASSERT_INT_EQ(c->broken, 2);
	ASSERT_CONTAINS(c->broken_why, "SIGBUS");
	memif_guard_del((void *)m);
	munmap((void *)m, 2 * (size_t)page);
	close(fd);
	free(c);
}

int main(void)
{
	static const struct unit_test tests[] = {
	    {"wire layout", test_layout},
	    {"message builders", test_builders},
	    {"init: version, id, mode, secret", test_init},
	    {"add-region: index, size, totals", test_add_region},
	    {"memory: one peer's and all peers' caps", test_memory_caps},
	    {"add-ring: every field", test_add_ring},
	    {"connect and hello", test_connect_and_hello},
	    {"server: message order", test_server_order},
	    {"client: message order", test_client_order},
	    {"flap back-off: doubled, capped", test_flap_backoff},
	    {"ring counts across wrap-around", test_ring_count},
	    {"descriptors read once, written whole", test_desc_access},
	    {"rx: every bad descriptor field drops its frame only", test_rx_checks},
	    {"rx: chains, unterminated and too long", test_rx_chains},
	    {"rx: impossible indices break the connection; wrap-around", test_rx_indices},
	    {"tx as server: a frame that does not fit changes nothing", test_tx_server},
	    {"SIGBUS in a pod's memory: zeroed, broken, podwired lives", test_sigbus_guard},
	    {NULL, NULL},
	};

	return unit_run("memif", tests);
}
