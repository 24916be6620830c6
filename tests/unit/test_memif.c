/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Unit tests of podwire's memif: the wire layout, every check of every
 * message a peer sends (each bad field of each), the handshake order in
 * both roles, and ring index arithmetic across wrap-around.
 */
#include <errno.h>
#include <stddef.h>

#include "ports/memif/msg.h"
#include "ports/memif/ring.h"
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
	REFUSED(memif_check_add_region(&r, &o, why, sizeof(why)), -EPROTO, "per peer");
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

int main(void)
{
	static const struct unit_test tests[] = {
	    {"wire layout", test_layout},
	    {"message builders", test_builders},
	    {"init: version, id, mode, secret", test_init},
	    {"add-region: index, size, totals", test_add_region},
	    {"add-ring: every field", test_add_ring},
	    {"connect and hello", test_connect_and_hello},
	    {"server: message order", test_server_order},
	    {"client: message order", test_client_order},
	    {"ring counts across wrap-around", test_ring_count},
	    {"descriptors read once, written whole", test_desc_access},
	    {NULL, NULL},
	};

	return unit_run("memif", tests);
}
