/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Capture, the worker's side (datapath/capture.c) and the pcapng blocks
 * (capture/pcapng.c): what a capture sees of received, sent and dropped
 * frames, a libpcap filter run through rte_bpf, a full ring skipping and
 * counting, and blocks whose lengths a reader can walk.
 */
#include <rte_bpf.h>
#include <rte_pcapng.h>
#include <rte_ring.h>

#include "capture/filter.h"
#include "capture/pcapng.h"
#include "datapath/observe.h"
#include "dp_harness.h"

#define A "02:00:00:00:00:0a"
#define B "02:00:00:00:00:0b"
#define U "02:00:00:00:00:77"

static struct dp_capture cap;
static struct capture_wctr wctr[1];

static void cap_setup(uint8_t dirs, unsigned int ring_size)
{
	static int n;
	char name[32];

	memset(&cap, 0, sizeof(cap));
	memset(wctr, 0, sizeof(wctr));
	snprintf(name, sizeof(name), "cap_pool%d", n);
	cap.pool = rte_pktmbuf_pool_create(
	    name, 1023, 0, RTE_ALIGN(sizeof(struct capture_meta), RTE_MBUF_PRIV_ALIGN),
	    RTE_MBUF_DEFAULT_BUF_SIZE, SOCKET_ID_ANY);
	snprintf(name, sizeof(name), "cap_ring%d", n++);
	cap.ring[0] =
	    rte_ring_create(name, ring_size, SOCKET_ID_ANY, RING_F_SP_ENQ | RING_F_SC_DEQ);
	CU_ASSERT_FATAL(cap.pool != NULL && cap.ring[0] != NULL);
	cap.dirs = dirs;
	cap.snaplen = 100;
	cap.ctr = wctr;
}

static void cap_teardown(void)
{
	struct rte_mbuf *m;

	while (rte_ring_sc_dequeue(cap.ring[0], (void **)&m) == 0)
		rte_pktmbuf_free(m);
	rte_ring_free(cap.ring[0]);
	rte_mempool_free(cap.pool);
	rte_bpf_destroy(cap.filter);
}

static void watch(struct port *p, uint16_t iface)
{
	p->dp.capture_if = iface;
	p->dp.capture = &cap;
	p->dp.observe = (uint8_t)((cap.dirs & CAPTURE_IN ? DP_OBS_CAP_RX : 0) |
				  (cap.dirs & CAPTURE_OUT ? DP_OBS_CAP_TX : 0));
}

static void unwatch(struct port *p)
{
	p->dp.observe = 0;
	p->dp.capture = NULL;
}

/* The next copy on the ring, NULL when none. */
static struct rte_mbuf *next_copy(void)
{
	struct rte_mbuf *m;

	return rte_ring_sc_dequeue(cap.ring[0], (void **)&m) == 0 ? m : NULL;
}

static void send1(struct port *p, struct rte_mbuf *m)
{
	CU_ASSERT_FATAL(m != NULL);
	dp_harness_input(p, &m, 1);
}

static void destroy(struct port *p)
{
	char msg[256];

	unwatch(p);
	CU_ASSERT(port_destroy(p, msg, sizeof(msg)) == 0);
}

static void destroy_net(struct network *n)
{
	char msg[256];
	int code;

	CU_ASSERT(network_delete(n, &code, msg, sizeof(msg)) == 0);
}

static void test_rx_tx_drops(void)
{
	struct network *n = dp_net("capnet", NET_BRIDGE, 0);
	struct port *a = dp_port("cap-a", n, "null", A), *b = dp_port("cap-b", n, "null", B);
	struct rte_mbuf *m;
	const struct capture_meta *cm;

	cap_setup(CAPTURE_IN | CAPTURE_OUT, 1024);
	watch(a, 0);
	watch(b, 1);
	/* A to B (unknown, flooded to b): captured in at a, out at b. */
	send1(a, dp_frame(B, A, 0, 300, 7));
	m = next_copy();
	CU_ASSERT_FATAL(m != NULL);
	cm = capture_meta(m);
	ASSERT_INT_EQ(cm->iface, 0);
	ASSERT_INT_EQ(cm->dir, CAPTURE_IN);
	ASSERT_INT_EQ(cm->drop, DROP_MAX);
	ASSERT_INT_EQ(cm->orig_len, 300);
	/* snaplen 100: the copy is cut, the original length kept. */
	ASSERT_INT_EQ(rte_pktmbuf_pkt_len(m), 100);
	ASSERT_INT_EQ(rte_pktmbuf_mtod(m, uint8_t *)[50], 7);
	rte_pktmbuf_free(m);
	m = next_copy();
	CU_ASSERT_FATAL(m != NULL);
	ASSERT_INT_EQ(capture_meta(m)->iface, 1);
	ASSERT_INT_EQ(capture_meta(m)->dir, CAPTURE_OUT);
	ASSERT_INT_EQ(capture_meta(m)->drop, DROP_MAX);
	rte_pktmbuf_free(m);
	CU_ASSERT(next_copy() == NULL);
	/* Tagged on a network without VLAN: captured once, marked. */
	send1(a, dp_frame(B, A, 5, 60, 0));
	m = next_copy();
	CU_ASSERT_FATAL(m != NULL);
	ASSERT_INT_EQ(capture_meta(m)->drop, DROP_VLAN);
	ASSERT_INT_EQ(capture_meta(m)->dir, CAPTURE_IN);
	rte_pktmbuf_free(m);
	CU_ASSERT(next_copy() == NULL);
	/* To b whose link is down: in at a (delivered there), out at b
	 * marked link_down. */
	b->dp.link_up = false;
	send1(a, dp_frame(B, A, 0, 60, 0));
	m = next_copy();
	CU_ASSERT_FATAL(m != NULL);
	ASSERT_INT_EQ(capture_meta(m)->drop, DROP_MAX);
	rte_pktmbuf_free(m);
	m = next_copy();
	CU_ASSERT_FATAL(m != NULL);
	ASSERT_INT_EQ(capture_meta(m)->iface, 1);
	ASSERT_INT_EQ(capture_meta(m)->drop, DROP_LINK_DOWN);
	rte_pktmbuf_free(m);
	b->dp.link_up = true;
	ASSERT_INT_EQ(wctr[0].ifs[0].matched, 3);
	ASSERT_INT_EQ(wctr[0].ifs[1].matched, 2);
	/* Nobody watching: nothing copied. */
	unwatch(a);
	unwatch(b);
	send1(a, dp_frame(B, A, 0, 60, 0));
	CU_ASSERT(next_copy() == NULL);
	cap_teardown();
	destroy(a), destroy(b);
	destroy_net(n);
}

static void test_filter_and_full_ring(void)
{
	struct network *n = dp_net("capnet2", NET_BRIDGE, 0);
	struct port *a = dp_port("cap-c", n, "null", A), *b = dp_port("cap-d", n, "null", B);
	char msg[512];
	struct rte_mbuf *m;
	unsigned int got = 0;

	/* A bad expression: libpcap's reason, and what to give. */
	CU_ASSERT(capture_filter_load("ether dts " B, 100, &cap.filter, &cap.jit, msg,
				      sizeof(msg)) == -EINVAL);
	ASSERT_CONTAINS(msg, "filter \"ether dts");
	ASSERT_CONTAINS(msg, "tcpdump expression");
	cap_setup(CAPTURE_IN, 8);
	CU_ASSERT_FATAL(
	    capture_filter_load("ether dst " B, 100, &cap.filter, &cap.jit, msg, sizeof(msg)) == 0);
	watch(a, 0);
	send1(a, dp_frame(U, A, 0, 60, 0)); /* not taken: no copy */
	send1(a, dp_frame(B, A, 0, 60, 0));
	while ((m = next_copy()) != NULL) {
		ASSERT_INT_EQ(rte_pktmbuf_mtod(m, uint8_t *)[5], 0x0b);
		rte_pktmbuf_free(m);
		got++;
	}
	ASSERT_INT_EQ(got, 1);
	ASSERT_INT_EQ(wctr[0].ifs[0].matched, 1);
	/* A ring of 7 slots and 10 frames taken: 3 skipped, counted; the
	 * frames themselves are forwarded all the same. */
	for (int i = 0; i < 10; i++)
		send1(a, dp_frame(B, A, 0, 60, 0));
	ASSERT_INT_EQ(wctr[0].ifs[0].matched, 11);
	ASSERT_INT_EQ(wctr[0].ifs[0].skipped, 3);
	ASSERT_INT_EQ(dp_counters(b).tx_packets, 12); /* and the flood to U */
	cap_teardown();
	cap.filter = NULL;
	destroy(a), destroy(b);
	destroy_net(n);
}

/* Walks blocks: each length a multiple of 4, equal at both ends. */
static unsigned int walk(const struct capbuf *b, uint32_t want_type)
{
	unsigned int n = 0;

	for (size_t off = b->off; off < b->len;) {
		uint32_t type, len, tail;

		memcpy(&type, b->data + off, 4);
		memcpy(&len, b->data + off + 4, 4);
		CU_ASSERT_FATAL(len % 4 == 0 && len >= 12 && off + len <= b->len);
		memcpy(&tail, b->data + off + len - 4, 4);
		ASSERT_INT_EQ(tail, len);
		n += type == want_type;
		off += len;
	}
	return n;
}

static void test_pcapng_blocks(void)
{
	struct capbuf b = {0};
	struct rte_mempool *mp = rte_pktmbuf_pool_create(
	    "epb_pool", 63, 0, 0, RTE_PKTMBUF_HEADROOM + rte_pcapng_mbuf_size(1500), SOCKET_ID_ANY);
	struct rte_mbuf *m = dp_frame(B, A, 0, 61, 9), *e;
	uint32_t v;

	CU_ASSERT_FATAL(mp != NULL && m != NULL);
	CU_ASSERT(pcapng_section(&b, "x86_64", "Linux", "podwired test") == 0);
	CU_ASSERT(pcapng_interface(&b, "pod-a", "podwire vhost-user port on network n", 128) == 0);
	e = rte_pcapng_copy(0, 0, m, mp, UINT32_MAX, 0, RTE_PCAPNG_DIRECTION_IN);
	CU_ASSERT_FATAL(e != NULL);
	CU_ASSERT(pcapng_packet(&b, e, 3, 1000, 1700000000123456789ull, "dropped: tx_full") == 0);
	CU_ASSERT(pcapng_stats(&b, 0, 1, 2, 3, 10, 4, "end") == 0);
	ASSERT_INT_EQ(walk(&b, 0x0A0D0D0A), 1);
	ASSERT_INT_EQ(walk(&b, 1), 1);
	ASSERT_INT_EQ(walk(&b, 6), 1);
	ASSERT_INT_EQ(walk(&b, 5), 1);
	/* The packet block: our interface id, length on the wire, time. */
	for (size_t off = 0; off < b.len;) {
		uint32_t type, len;

		memcpy(&type, b.data + off, 4);
		memcpy(&len, b.data + off + 4, 4);
		if (type == 6) {
			memcpy(&v, b.data + off + 8, 4);
			ASSERT_INT_EQ(v, 3);
			memcpy(&v, b.data + off + 24, 4);
			ASSERT_INT_EQ(v, 1000);
			memcpy(&v, b.data + off + 20, 4);
			ASSERT_INT_EQ(v, 61);
			memcpy(&v, b.data + off + 12, 4);
			ASSERT_INT_EQ(v, (uint32_t)(1700000000123456789ull >> 32));
			CU_ASSERT(memmem(b.data + off, len, "dropped: tx_full", 16) != NULL);
		}
		off += len;
	}
	rte_pktmbuf_free(e);
	rte_pktmbuf_free(m);
	rte_mempool_free(mp);
	capbuf_free(&b);
}

int main(void)
{
	static const struct unit_test tests[] = {
	    {"capture: in, out and dropped frames, tagged", test_rx_tx_drops},
	    {"capture: a libpcap filter; a full ring skips and counts", test_filter_and_full_ring},
	    {"capture: pcapng blocks", test_pcapng_blocks},
	    {NULL, NULL},
	};
	int rc;

	dp_harness_init(1);
	rc = unit_run("capture", tests);
	dp_harness_fini();
	return rc;
}
