/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Unit tests of forwarding: the L2 bridge (learning, flooding, VLAN
 * handling, drops), the cross-connect, and the uplink VLAN demultiplexer
 * and tagger, over real networks and ports of the model. Pods are null
 * ports, or "sink" ports (below) that keep what they are sent so the
 * frames can be read back; the uplink is a ring-backed ethdev (net_ring).
 * EAL runs without hugepages.
 */
#include <rte_bus_vdev.h>
#include <rte_cycles.h>
#include <rte_eth_ring.h>
#include <rte_ethdev.h>
#include <rte_malloc.h>
#include <rte_ring.h>

#include "dp_sinks.h"
#include "ports/uplink.h"

/* ---- an uplink kind over two rte_rings: rx is what "the wire" sends us,
 * tx what we put on it ---------------------------------------------------- */

static struct rte_ring *wire_in, *wire_out;
/* A device of two queues (a port with "queues" 2 or more gets it):
 * wire_q_in[q] feeds rx queue q, tx queue q fills wire_q_out[q]. */
static struct rte_ring *wire_q_in[2], *wire_q_out[2];

static int ring_open(struct port *p, uint16_t *port_id, char *vdev, size_t vdev_len, char *driver,
		     size_t driver_len, char *msg, size_t len)
{
	static unsigned int seq;
	int id;

	(void)msg, (void)len;
	snprintf(vdev, vdev_len, "net_ring_unit%u", seq++);
	if (p->dp.n_rxq > 1)
		id = rte_eth_from_rings(vdev, wire_q_in, 2, wire_q_out, 2, SOCKET_ID_ANY);
	else
		id = rte_eth_from_rings(vdev, &wire_in, 1, &wire_out, 1, SOCKET_ID_ANY);
	if (id < 0)
		return -EIO;
	*port_id = (uint16_t)id;
	snprintf(driver, driver_len, "ring");
	return 0;
}

static void ring_close(const char *vdev, const char *device)
{
	(void)device;
	rte_vdev_uninit(vdev);
}

UPLINK_KIND(ring_uplink, "ring_uplink", PORT_FIELD_IFACE, "test: an uplink over rte_rings",
	    ring_open, ring_close, NULL, NULL)

static struct port *uplink_port_q(const char *name, struct network *n, uint8_t queues)
{
	struct port_conf c;
	struct port *p = NULL;
	char msg[512];
	int code;

	memset(&c, 0, sizeof(c));
	snprintf(c.name, sizeof(c.name), "%s", name);
	snprintf(c.network, sizeof(c.network), "%s", n->name);
	snprintf(c.type, sizeof(c.type), "ring_uplink");
	snprintf(c.iface, sizeof(c.iface), queues > 1 ? "wire2q" : "wire0");
	c.mtu = 1500;
	c.queues = queues;
	if (port_create(&c, n, &p, &code, msg, sizeof(msg)) != 0)
		unit_check(false, __LINE__, __FILE__, "uplink %s: %s", name, msg);
	else
		p->ops->poll_link(p); /* housekeeping's job in podwired */
	return p;
}

static struct port *uplink_port(const char *name, struct network *n)
{
	return uplink_port_q(name, n, 1);
}

/* ---- the bridge ------------------------------------------------------------ */

static void test_learn_and_flood(void)
{
	struct network *n = dp_net("br", NET_BRIDGE, 0);
	struct port *a = dp_port("a", n, "sink", A), *b = dp_port("b", n, "sink", B),
		    *c = dp_port("c", n, "sink", C);

	/* A to an unknown B: flooded to B and C, A's MAC learned on a. */
	send1(a, dp_frame(B, A, 0, 60, 1));
	ASSERT_INT_EQ(sink_of(b)->n, 1);
	ASSERT_INT_EQ(sink_of(c)->n, 1);
	ASSERT_INT_EQ(sink_of(a)->n, 0);
	/* B answers A: A is known, so only a gets it; B is learned. */
	send1(b, dp_frame(A, B, 0, 60, 2));
	ASSERT_INT_EQ(sink_of(a)->n, 1);
	ASSERT_INT_EQ(sink_of(c)->n, 1);
	/* A to B again: now unicast, C sees nothing more. */
	send1(a, dp_frame(B, A, 0, 60, 3));
	ASSERT_INT_EQ(sink_of(b)->n, 2);
	ASSERT_INT_EQ(sink_of(c)->n, 1);
	/* The frame arrives whole: payload bytes as sent. */
	ASSERT_INT_EQ(rte_pktmbuf_mtod(sink_of(b)->got[1], uint8_t *)[20], 3);
	/* Broadcast goes to every other port. */
	send1(c, dp_frame(BCAST, C, 0, 60, 4));
	ASSERT_INT_EQ(sink_of(a)->n, 2);
	ASSERT_INT_EQ(sink_of(b)->n, 3);
	ASSERT_INT_EQ(sink_of(c)->n, 1);
	/* Counters agree: a received 2 frames, sent 2; b sent 3. */
	ASSERT_INT_EQ(dp_counters(a).rx_packets, 2);
	ASSERT_INT_EQ(dp_counters(a).tx_packets, 2);
	ASSERT_INT_EQ(dp_counters(b).tx_packets, 3);
	ASSERT_INT_EQ(dp_counters(c).rx_packets, 1);
	destroy(a), destroy(b), destroy(c);
	destroy_net(n);
}

static void test_bridge_drops(void)
{
	struct network *n = dp_net("br2", NET_BRIDGE, 0);
	struct port *a = dp_port("a2", n, "sink", A), *b = dp_port("b2", n, "null", B);
	struct rte_mbuf *runt;

	/* A frame to A learned on a, sent back in on a: same_port. */
	send1(a, dp_frame(B, A, 0, 60, 0));
	send1(a, dp_frame(A, X, 0, 60, 0));
	/* X was learned on a too; a frame to A from a is dropped. */
	ASSERT_INT_EQ(dp_counters(a).drops[DROP_SAME_PORT], 1);
	/* Shorter than an Ethernet header. */
	runt = rte_pktmbuf_alloc(pw_mbuf_pool);
	CU_ASSERT_FATAL(rte_pktmbuf_append(runt, 10) != NULL);
	send1(a, runt);
	ASSERT_INT_EQ(dp_counters(a).drops[DROP_RUNT], 1);
	/* Larger than the ingress port's MTU. */
	send1(a, dp_frame(B, A, 0, 1515, 0));
	ASSERT_INT_EQ(dp_counters(a).drops[DROP_MTU], 1);
	/* Tagged on a network without a VLAN. */
	send1(a, dp_frame(B, A, 7, 60, 0));
	ASSERT_INT_EQ(dp_counters(a).drops[DROP_VLAN], 1);
	/* To a port whose link is down: counted there. */
	b->dp.link_up = false;
	send1(a, dp_frame(B, A, 0, 60, 0));
	ASSERT_INT_EQ(dp_counters(b).drops[DROP_LINK_DOWN], 1);
	b->dp.link_up = true;
	destroy(b);
	/* Alone on the network: nowhere to flood. */
	send1(a, dp_frame(BCAST, A, 0, 60, 0));
	ASSERT_INT_EQ(dp_counters(a).drops[DROP_NO_ROUTE], 1);
	ASSERT_INT_EQ(sink_of(a)->n, 0);
	destroy(a);
	destroy_net(n);
}

static void test_bridge_vlan(void)
{
	struct network *n = dp_net("v10", NET_BRIDGE, 10);
	struct port *a = dp_port("a3", n, "sink", A), *b = dp_port("b3", n, "sink", B);

	/* Pod ports are access ports: a frame tagged with the network's own
	 * VLAN is accepted and leaves untagged, another tag is dropped. */
	send1(a, dp_frame(B, A, 10, 60, 5));
	ASSERT_INT_EQ(sink_of(b)->n, 1);
	ASSERT_INT_EQ(vlan_of(sink_of(b)->got[0]), 0);
	ASSERT_INT_EQ(rte_pktmbuf_pkt_len(sink_of(b)->got[0]), 60);
	send1(a, dp_frame(B, A, 11, 60, 5));
	ASSERT_INT_EQ(sink_of(b)->n, 1);
	ASSERT_INT_EQ(dp_counters(a).drops[DROP_VLAN], 1);
	/* Untagged is the normal case. */
	send1(a, dp_frame(B, A, 0, 60, 5));
	ASSERT_INT_EQ(sink_of(b)->n, 2);
	destroy(a), destroy(b);
	destroy_net(n);
}

/* Two networks never see each other's frames, even with the same MACs. */
static void test_bridge_isolation(void)
{
	struct network *n1 = dp_net("iso1", NET_BRIDGE, 0), *n2 = dp_net("iso2", NET_BRIDGE, 0);
	struct port *a1 = dp_port("a1", n1, "sink", A), *b1 = dp_port("b1", n1, "sink", B);
	struct port *a2 = dp_port("a2i", n2, "sink", A), *b2 = dp_port("b2i", n2, "sink", B);

	send1(a1, dp_frame(BCAST, A, 0, 60, 0));
	send1(b1, dp_frame(A, B, 0, 60, 0));
	ASSERT_INT_EQ(sink_of(b1)->n, 1);
	ASSERT_INT_EQ(sink_of(a1)->n, 1);
	ASSERT_INT_EQ(sink_of(a2)->n, 0);
	ASSERT_INT_EQ(sink_of(b2)->n, 0);
	/* B learned in n1 is unknown in n2: flooded there, within n2. */
	send1(a2, dp_frame(B, A, 0, 60, 0));
	ASSERT_INT_EQ(sink_of(b2)->n, 1);
	ASSERT_INT_EQ(sink_of(b1)->n, 1);
	destroy(a1), destroy(b1), destroy(a2), destroy(b2);
	destroy_net(n1), destroy_net(n2);
}

/* ---- port security, learning limits, flood limit ------------------------------ */

static struct port *guarded_port(const char *name, struct network *n, const char *mac,
				 bool security, uint32_t mac_limit, uint32_t flood)
{
	struct port *p = dp_port(name, n, "sink", mac);

	p->conf.port_security = security;
	p->conf.mac_limit = mac_limit;
	p->conf.flood_limit = flood;
	p->conf.flood_limit_set = true;
	port_guards_apply(p, n);
	return p;
}

static void test_port_security(void)
{
	struct network *n = dp_net("sec", NET_BRIDGE, 0);
	struct port *a = guarded_port("seca", n, A, true, 64, 0);
	struct port *b = guarded_port("secb", n, B, false, 64, 0);

	/* a may send from its own MAC only: another source is dropped, and
	 * is not learned. */
	send1(a, dp_frame(B, A, 0, 60, 1));
	ASSERT_INT_EQ(sink_of(b)->n, 1);
	send1(a, dp_frame(B, X, 0, 60, 2));
	ASSERT_INT_EQ(sink_of(b)->n, 1);
	ASSERT_INT_EQ(dp_counters(a).drops[DROP_SPOOFED_SRC], 1);
	ASSERT_INT_EQ(mac_table_port_count(l2_macs, a->dp.idx), 1);
	/* An allowed extra MAC passes. */
	a->dp.allowed[0] = dp_mac_word((const uint8_t[]){2, 0, 0, 0, 0, 0x99});
	a->dp.n_allowed = 1;
	send1(a, dp_frame(B, X, 0, 60, 3));
	ASSERT_INT_EQ(sink_of(b)->n, 2);
	ASSERT_INT_EQ(mac_table_port_count(l2_macs, a->dp.idx), 2);
	/* b is not secured: any source goes. */
	send1(b, dp_frame(A, C, 0, 60, 4));
	ASSERT_INT_EQ(sink_of(a)->n, 1);
	sink_clear(a), sink_clear(b);
	destroy(a), destroy(b);
	destroy_net(n);
}

/* A port sending from more MACs than its limit: the rest are not learned
 * (counted), its frames still flow, other ports' entries stay. */
static void test_learn_limit(void)
{
	struct network *n = dp_net("lim", NET_BRIDGE, 0);
	struct port *a = guarded_port("lima", n, A, false, 4, 0);
	struct port *b = guarded_port("limb", n, B, false, 64, 0);
	char src[18];

	send1(b, dp_frame(BCAST, B, 0, 60, 0));
	for (int i = 0; i < 10; i++) {
		snprintf(src, sizeof(src), "02:00:00:00:aa:%02x", i);
		send1(a, dp_frame(B, src, 0, 60, 0));
	}
	ASSERT_INT_EQ(mac_table_port_count(l2_macs, a->dp.idx), 4);
	ASSERT_INT_EQ(dp_counters(a).learn_limit, 6);
	ASSERT_INT_EQ(sink_of(b)->n, 10);
	ASSERT_INT_EQ(mac_table_port_count(l2_macs, b->dp.idx), 1);
	sink_clear(a), sink_clear(b);
	destroy(a), destroy(b);
	destroy_net(n);
}

/* A port without port security (an uplink) seeing many MACs fills the
 * network's quota; a secured pod's own MAC is still learned, so frames to
 * it stay unicast, and the uplink cannot take that MAC over. */
static void test_no_crowding_out(void)
{
	struct net_conf nc = {.mode = NET_BRIDGE, .mac_limit = 4};
	struct network *n = NULL;
	struct port *u, *a, *b;
	char src[18], msg[256];
	int code;

	snprintf(nc.name, sizeof(nc.name), "crowd");
	ASSERT_INT_EQ(network_create(&nc, &n, &code, msg, sizeof(msg)), 0);
	u = guarded_port("cru", n, C, false, 0, 0);
	a = guarded_port("cra", n, A, true, 64, 0);
	b = guarded_port("crb", n, B, true, 64, 0);
	for (int i = 0; i < 4; i++) {
		snprintf(src, sizeof(src), "02:00:00:00:bb:%02x", i);
		send1(u, dp_frame(BCAST, src, 0, 60, 0));
	}
	ASSERT_INT_EQ(mac_table_net_count(l2_macs, n->idx), 4);
	send1(u, dp_frame(BCAST, "02:00:00:00:bb:99", 0, 60, 0));
	ASSERT_INT_EQ(dp_counters(u).learn_limit, 1);
	/* a and b are learned all the same, and talk unicast. */
	send1(a, dp_frame(B, A, 0, 60, 0));
	send1(b, dp_frame(A, B, 0, 60, 0));
	ASSERT_INT_EQ(dp_counters(b).learn_limit, 0);
	sink_clear(a), sink_clear(b), sink_clear(u);
	send1(a, dp_frame(B, A, 0, 60, 0));
	ASSERT_INT_EQ(sink_of(b)->n, 1);
	ASSERT_INT_EQ(sink_of(u)->n, 0);
	/* A frame from a's MAC coming in on the uplink does not move it. */
	send1(u, dp_frame(BCAST, A, 0, 60, 0));
	sink_clear(a), sink_clear(b), sink_clear(u);
	send1(b, dp_frame(A, B, 0, 60, 0));
	ASSERT_INT_EQ(sink_of(a)->n, 1);
	ASSERT_INT_EQ(sink_of(u)->n, 0);
	sink_clear(a), sink_clear(b), sink_clear(u);
	destroy(a), destroy(b), destroy(u);
	destroy_net(n);
}

/* A full ring is tried again up to tx_retries times; a try that sends
 * nothing ends it; what is left is dropped as tx_full, all counted. */
static void test_tx_retries(void)
{
	struct network *n = dp_net("rt", NET_BRIDGE, 0);
	struct port *a = guarded_port("rta", n, A, false, 64, 0);
	struct port *b = guarded_port("rtb", n, B, false, 64, 0);
	struct rte_mbuf *burst[32];
	struct sink *s = sink_of(b);

	b->conf.tx_retries = API_TX_RETRIES;
	port_guards_apply(b, n);
	send1(b, dp_frame(BCAST, B, 0, 60, 0)); /* learned: a's frames to B are unicast */
	sink_clear(a);
	/* A peer draining as we go: 10 frames a call, 32 sent in 4 calls. */
	s->per_call = 10, s->room = 1000, s->calls = 0;
	for (int i = 0; i < 32; i++)
		burst[i] = dp_frame(B, A, 0, 60, (uint8_t)i);
	dp_harness_input(a, burst, 32);
	ASSERT_INT_EQ(s->n, 32);
	ASSERT_INT_EQ(s->calls, 4);
	ASSERT_INT_EQ(dp_counters(b).tx_retries, 3);
	ASSERT_INT_EQ(dp_counters(b).drops[DROP_TX_FULL], 0);
	sink_clear(b);
	/* A stalled peer: 10 frames, then nothing; one retry, no more. */
	s->room = 10, s->calls = 0;
	for (int i = 0; i < 32; i++)
		burst[i] = dp_frame(B, A, 0, 60, (uint8_t)i);
	dp_harness_input(a, burst, 32);
	ASSERT_INT_EQ(s->n, 10);
	ASSERT_INT_EQ(s->calls, 2);
	ASSERT_INT_EQ(dp_counters(b).tx_retries, 4);
	ASSERT_INT_EQ(dp_counters(b).drops[DROP_TX_FULL], 22);
	sink_clear(b);
	/* tx_retries 0: no retry at all. */
	b->conf.tx_retries = 0;
	port_guards_apply(b, n);
	s->room = 1000, s->calls = 0;
	for (int i = 0; i < 32; i++)
		burst[i] = dp_frame(B, A, 0, 60, (uint8_t)i);
	dp_harness_input(a, burst, 32);
	ASSERT_INT_EQ(s->n, 10);
	ASSERT_INT_EQ(s->calls, 1);
	ASSERT_INT_EQ(dp_counters(b).drops[DROP_TX_FULL], 44);
	s->per_call = 0;
	sink_clear(a), sink_clear(b);
	destroy(a), destroy(b);
	destroy_net(n);
}

/* Floods beyond the port's rate are dropped; known unicast never is. */
static void test_flood_limit(void)
{
	struct network *n = dp_net("fl", NET_BRIDGE, 0);
	struct port *a = guarded_port("fla", n, A, false, 64, 100);
	struct port *b = guarded_port("flb", n, B, false, 64, 0);
	struct port *c, *d, *e;
	uint64_t passed;

	/* The worker's clock stands still here. Two ports: a flood has one
	 * possible destination and amplifies nothing, so the limit never
	 * applies (testpmd's io loop with default peer MACs). */
	workers[0]->now = rte_get_tsc_hz() * 1000;
	for (int i = 0; i < 250; i++)
		send1(a, dp_frame(BCAST, A, 0, 60, 0));
	ASSERT_INT_EQ(sink_of(b)->n, 250);
	ASSERT_INT_EQ(dp_counters(a).drops[DROP_FLOOD_LIMIT], 0);
	sink_clear(b);
	/* Nor with more ports whose links are down: they take no copy. */
	c = guarded_port("flc", n, C, false, 64, 0);
	d = guarded_port("fld", n, "02:00:00:00:00:0d", false, 64, 0);
	e = guarded_port("fle", n, "02:00:00:00:00:0e", false, 64, 0);
	c->dp.link_up = d->dp.link_up = e->dp.link_up = false;
	for (int i = 0; i < 250; i++)
		send1(a, dp_frame(X, A, 0, 60, 0));
	ASSERT_INT_EQ(sink_of(b)->n, 250);
	ASSERT_INT_EQ(dp_counters(a).drops[DROP_FLOOD_LIMIT], 0);
	sink_clear(b);

	/* Three live ports: each flood makes one copy more than a unicast
	 * frame; 100/s allows a burst of 100 of them (a second's worth), no
	 * more at once. */
	c->dp.link_up = true;
	for (int i = 0; i < 300; i++)
		send1(a, dp_frame(BCAST, A, 0, 60, 0));
	ASSERT_INT_EQ(sink_of(b)->n, 100);
	ASSERT_INT_EQ(sink_of(c)->n, 100);
	ASSERT_INT_EQ(dp_counters(a).drops[DROP_FLOOD_LIMIT], 200);
	/* Half a second later, half a second's worth more. */
	workers[0]->now += rte_get_tsc_hz() / 2;
	for (int i = 0; i < 100; i++)
		send1(a, dp_frame(BCAST, A, 0, 60, 0));
	passed = sink_of(b)->n;
	ASSERT_INT_EQ(passed, 150);
	ASSERT_INT_EQ(dp_counters(a).drops[DROP_FLOOD_LIMIT], 400 - passed);
	sink_clear(b), sink_clear(c);
	/* Five live ports: a flood costs three tokens; a second later the
	 * bucket is full again (100) and 33 floods pass. */
	d->dp.link_up = e->dp.link_up = true;
	workers[0]->now += rte_get_tsc_hz();
	for (int i = 0; i < 100; i++)
		send1(a, dp_frame(BCAST, A, 0, 60, 0));
	ASSERT_INT_EQ(sink_of(b)->n, 33);
	ASSERT_INT_EQ(sink_of(e)->n, 33);
	sink_clear(b), sink_clear(c), sink_clear(d), sink_clear(e);
	/* Known unicast is not limited. */
	workers[0]->now += rte_get_tsc_hz();
	send1(b, dp_frame(A, B, 0, 60, 0));
	passed = dp_counters(a).drops[DROP_FLOOD_LIMIT];
	for (int i = 0; i < 200; i++)
		send1(a, dp_frame(B, A, 0, 60, 0));
	ASSERT_INT_EQ(sink_of(b)->n, 200);
	ASSERT_INT_EQ(dp_counters(a).drops[DROP_FLOOD_LIMIT], passed);
	sink_clear(a), sink_clear(b);
	destroy(a), destroy(b), destroy(c), destroy(d), destroy(e);
	destroy_net(n);
}

/* ---- tx buffers -------------------------------------------------------------- */

/* What the tx buffers of one destination should have sent: a model of
 * txbuf.h's rules, against which the datapath is checked. */
struct txmodel {
	uint16_t pend, sent;
	uint8_t fill[SINK_MAX]; /* the frames' fills, in the order they must leave */
};

static void txmodel_send(struct txmodel *t)
{
	t->sent = (uint16_t)(t->sent + t->pend);
	t->pend = 0;
}

/* One rx burst of k frames from a, frame i to dst[to[i]], as the worker
 * loop runs it (look: the look after the burst; end: the end of the
 * turn after it), and the model's account of it; then what each port
 * got is checked against the model. */
static void txbuf_step(struct port *a, struct port *const *dst, struct txmodel *t,
		       const uint8_t *to, uint16_t k, uint8_t *seq, bool look, bool end)
{
	struct rte_mbuf *m[PW_BURST];
	uint16_t ones = 0;
	bool direct;

	for (uint16_t i = 0; i < k; i++) {
		ones += to[i];
		m[i] = dp_frame(to[i] ? C : B, A, 0, 60, (uint8_t)(*seq + i));
		CU_ASSERT_FATAL(m[i] != NULL);
	}
	/* A burst all to one port with nothing buffered for it: one send. */
	direct = (ones == 0 || ones == k) && t[to[0]].pend == 0;
	dp_input_mbufs(workers[0], view_current, &a->dp, m, k);
	for (uint16_t i = 0; i < k; i++) {
		struct txmodel *x = &t[to[i]];

		x->fill[x->sent + x->pend] = (*seq)++;
		if (direct)
			x->sent++;
		else if (++x->pend == TXBUF_SIZE)
			txmodel_send(x);
	}
	if (look) {
		txbuf_flush_full(workers[0], view_current);
		for (int d = 0; d < 2; d++)
			if (t[d].pend >= TXBUF_FLUSH_MIN)
				txmodel_send(&t[d]);
	}
	if (end) {
		txbuf_flush_all(workers[0], view_current);
		txmodel_send(&t[0]), txmodel_send(&t[1]);
	}
	for (int d = 0; d < 2; d++)
		ASSERT_INT_EQ(sink_of(dst[d])->n, t[d].sent);
}

/* After each rx burst the buffers holding TXBUF_FLUSH_MIN frames or more
 * leave, thinner ones wait for the end of the turn, a buffer that reaches
 * TXBUF_SIZE leaves at once (and may fill again before the next look), a
 * burst all to one port with nothing buffered for it leaves in one call;
 * frames leave in order. */
static void test_txbuf_flush(void)
{
	struct network *n = dp_net("br", NET_BRIDGE, 0);
	struct port *a = dp_port("a", n, "sink", A), *b = dp_port("b", n, "sink", B),
		    *c = dp_port("c", n, "sink", C);
	struct port *dst[2] = {b, c};
	struct txmodel t[2];
	uint8_t seq = 0, to[PW_BURST];

	send1(b, dp_frame(A, B, 0, 60, 0));
	send1(c, dp_frame(A, C, 0, 60, 0));
	sink_clear(a), sink_clear(b), sink_clear(c);
	memset(t, 0, sizeof(t));
	/* b to exactly TXBUF_FLUSH_MIN (it goes), c to one less (it waits),
	 * over as many bursts as that takes. */
	for (uint16_t nb = 0, nc = 0; nb < TXBUF_FLUSH_MIN;) {
		uint16_t k = 0;

		while (k < PW_BURST && (nb < TXBUF_FLUSH_MIN || nc < TXBUF_FLUSH_MIN - 1)) {
			if (nb < TXBUF_FLUSH_MIN && (k % 2 == 0 || nc >= TXBUF_FLUSH_MIN - 1))
				to[k++] = 0, nb++;
			else
				to[k++] = 1, nc++;
		}
		txbuf_step(a, dst, t, to, k, &seq, true, false);
	}
	ASSERT_INT_EQ(sink_of(b)->n, TXBUF_FLUSH_MIN);
	ASSERT_INT_EQ(sink_of(c)->n, 0);
	for (uint16_t r = 0; r < 14; r++) {
		/* Rounds 4-6: full bursts mostly to b, no look in between. */
		bool bulk = r >= 4 && r <= 6;
		uint16_t k = bulk ? PW_BURST : (uint16_t)(1 + (r * 13) % PW_BURST);

		for (uint16_t i = 0; i < k; i++)
			to[i] = bulk ? (i % 8 == 7) : ((i + r) % 3 == 0);
		txbuf_step(a, dst, t, to, k, &seq, !bulk, r % 5 == 2);
	}
	txbuf_flush_all(workers[0], view_current);
	for (int d = 0; d < 2; d++) {
		txmodel_send(&t[d]);
		ASSERT_INT_EQ(sink_of(dst[d])->n, t[d].sent);
		for (uint16_t i = 0; i < t[d].sent; i++)
			ASSERT_INT_EQ(rte_pktmbuf_mtod(sink_of(dst[d])->got[i], uint8_t *)[20],
				      t[d].fill[i]);
	}
	destroy(a), destroy(b), destroy(c);
	destroy_net(n);
}

/* ---- the cross-connect ----------------------------------------------------- */

static void test_xconnect(void)
{
	struct network *n = dp_net("xc", NET_XCONNECT, 0);
	struct port *a = dp_port("xa", n, "sink", A), *b;
	struct rte_mbuf *burst[3];

	/* Alone: no peer. */
	send1(a, dp_frame(B, A, 0, 60, 0));
	ASSERT_INT_EQ(dp_counters(a).drops[DROP_NO_ROUTE], 1);
	b = dp_port("xb", n, "sink", B);
	/* Every frame goes to the peer, whatever its destination, in order;
	 * one too large for the ingress MTU is dropped there, the rest kept. */
	burst[0] = dp_frame(X, A, 0, 60, 1);
	burst[1] = dp_frame(BCAST, A, 0, 1600, 2);
	burst[2] = dp_frame(C, A, 7, 64, 3);
	dp_harness_input(a, burst, 3);
	ASSERT_INT_EQ(sink_of(b)->n, 2);
	ASSERT_INT_EQ(rte_pktmbuf_mtod(sink_of(b)->got[0], uint8_t *)[30], 1);
	ASSERT_INT_EQ(rte_pktmbuf_mtod(sink_of(b)->got[1], uint8_t *)[30], 3);
	/* A cross-connect is a wire: tags pass untouched. */
	ASSERT_INT_EQ(vlan_of(sink_of(b)->got[1]), 7);
	ASSERT_INT_EQ(dp_counters(a).drops[DROP_MTU], 1);
	ASSERT_INT_EQ(dp_counters(b).tx_packets, 2);
	/* The other direction. */
	send1(b, dp_frame(A, B, 0, 60, 9));
	ASSERT_INT_EQ(sink_of(a)->n, 1);
	destroy(a), destroy(b);
	destroy_net(n);
}

/* A frame of len bytes (any length, even under a header), filled with
 * fill. */
static struct rte_mbuf *raw_frame(uint16_t len, uint8_t fill)
{
	struct rte_mbuf *m = rte_pktmbuf_alloc(pw_mbuf_pool);

	CU_ASSERT_FATAL(m != NULL);
	memset(rte_pktmbuf_append(m, len), fill, len);
	return m;
}

/* A cross-connect is a wire, but not for frames shorter than an Ethernet
 * header: those are dropped (runt) on the ingress port, the others keep
 * their order. */
static void test_xconnect_runts(void)
{
	struct network *n = dp_net("xcr", NET_XCONNECT, 0);
	struct port *a = dp_port("xra", n, "sink", A), *b = dp_port("xrb", n, "sink", B);
	struct rte_mbuf *burst[4];

	burst[0] = raw_frame(13, 1);
	burst[1] = dp_frame(X, A, 0, 60, 2);
	burst[2] = raw_frame(0, 3);
	burst[3] = raw_frame(14, 4);
	dp_harness_input(a, burst, 4);
	ASSERT_INT_EQ(dp_counters(a).drops[DROP_RUNT], 2);
	ASSERT_INT_EQ(sink_of(b)->n, 2);
	ASSERT_INT_EQ(rte_pktmbuf_pkt_len(sink_of(b)->got[0]), 60);
	ASSERT_INT_EQ(rte_pktmbuf_pkt_len(sink_of(b)->got[1]), 14);
	sink_clear(b);
	destroy(a), destroy(b);
	destroy_net(n);
}

/* ---- the uplink demultiplexer and tagger ------------------------------------ */

/* What the uplink device received from "the wire": fed to its rx ring. */
static void wire_send(struct rte_mbuf *m)
{
	CU_ASSERT_FATAL(m != NULL);
	CU_ASSERT_FATAL(rte_ring_enqueue(wire_in, m) == 0);
}

/* Polls queue q of an uplink port once, as a worker does, forwarding
 * what it gives; returns how many. */
static uint16_t poll_queue(struct port *p, uint16_t q)
{
	struct rte_mbuf *pkts[PW_BURST];
	uint16_t n = p->dp.ops->rx_burst(&p->dp, q, pkts, PW_BURST, workers[0]->ctr);

	if (n != 0)
		dp_harness_input(p, pkts, n);
	return n;
}

static void poll_port(struct port *p)
{
	poll_queue(p, 0);
}

static struct rte_mbuf *wire_recv(void)
{
	void *m = NULL;

	return rte_ring_dequeue(wire_out, &m) == 0 ? m : NULL;
}

static void test_uplink_vlans(void)
{
	struct network *red = dp_net("red", NET_BRIDGE, 100), *blue = dp_net("blue", NET_BRIDGE, 0);
	struct port *ur = uplink_port("up-red", red), *ub = uplink_port("up-blue", blue);
	struct port *pr = dp_port("pod-red", red, "sink", A),
		    *pb = dp_port("pod-blue", blue, "sink", B);
	struct rte_mbuf *m;

	CU_ASSERT_FATAL(ur != NULL && ub != NULL);
	/* One device, both ports on one worker. */
	ASSERT_INT_EQ(ur->rxq[0].worker, ub->rxq[0].worker);
	CU_ASSERT(ur->rxq_fixed && ub->rxq_fixed);
	/* A pod's frame leaves tagged with its network's VLAN... */
	send1(pr, dp_frame(X, A, 0, 60, 1));
	m = wire_recv();
	CU_ASSERT_FATAL(m != NULL);
	ASSERT_INT_EQ(vlan_of(m), 100);
	ASSERT_INT_EQ(rte_pktmbuf_pkt_len(m), 64);
	rte_pktmbuf_free(m);
	/* ...and untagged for a network without one. */
	send1(pb, dp_frame(X, B, 0, 60, 2));
	m = wire_recv();
	CU_ASSERT_FATAL(m != NULL);
	ASSERT_INT_EQ(vlan_of(m), 0);
	rte_pktmbuf_free(m);

	/* From the wire: the tag picks the network and is removed; polling
	 * either port of the device hands each frame to its own port. */
	wire_send(dp_frame(A, X, 100, 60, 3));
	wire_send(dp_frame(B, X, 0, 60, 4));
	wire_send(dp_frame(A, X, 200, 60, 5)); /* no network has VLAN 200 */
	poll_port(ub);
	poll_port(ur);
	ASSERT_INT_EQ(sink_of(pr)->n, 1);
	ASSERT_INT_EQ(vlan_of(sink_of(pr)->got[0]), 0);
	ASSERT_INT_EQ(rte_pktmbuf_mtod(sink_of(pr)->got[0], uint8_t *)[30], 3);
	ASSERT_INT_EQ(sink_of(pb)->n, 1);
	/* The unknown VLAN is a named drop, counted on the port that polled. */
	ASSERT_INT_EQ(dp_counters(ub).drops[DROP_UNKNOWN_VLAN], 1);
	ASSERT_INT_EQ(dp_counters(ur).drops[DROP_UNKNOWN_VLAN], 0);
	ASSERT_INT_EQ(dp_counters(ub).drops[DROP_TX_FULL], 0);

	/* More frames for red than its stash holds while blue is polled:
	 * the excess is stash_full on red, not lost silently. */
	for (int i = 0; i < 3 * PW_BURST; i++)
		wire_send(dp_frame(A, X, 100, 60, 6));
	for (int i = 0; i < 3; i++)
		poll_port(ub);
	ASSERT_INT_EQ(dp_counters(ur).drops[DROP_STASH_FULL], PW_BURST);
	for (int i = 0; i < 3; i++)
		poll_port(ur);
	ASSERT_INT_EQ(sink_of(pr)->n, 1 + 2 * PW_BURST);

	sink_clear(pr), sink_clear(pb);
	destroy(pr), destroy(pb), destroy(ur), destroy(ub);
	destroy_net(red), destroy_net(blue);
}

/* Frames under 60 bytes leave an uplink padded with zeroes (a VF takes a
 * runt for a malicious driver), tagged or not; a flooded frame is padded
 * in a copy, the pods' copies stay as they were. */
static void test_uplink_pad(void)
{
	struct network *red = dp_net("padr", NET_BRIDGE, 100),
		       *blue = dp_net("padb", NET_BRIDGE, 0);
	struct port *ur = uplink_port("pad-up-red", red), *ub = uplink_port("pad-up-blue", blue);
	struct port *pr = dp_port("pad-red", red, "sink", A),
		    *pb = dp_port("pad-blue", blue, "sink", B),
		    *pb2 = dp_port("pad-blue2", blue, "sink", C);
	struct rte_mbuf *m;
	uint8_t buf[64];
	const uint8_t *out;

	CU_ASSERT_FATAL(ur != NULL && ub != NULL);
	send1(pr, dp_frame(X, A, 0, 42, 0x5a));
	m = wire_recv();
	CU_ASSERT_FATAL(m != NULL);
	ASSERT_INT_EQ(vlan_of(m), 100);
	ASSERT_INT_EQ(rte_pktmbuf_pkt_len(m), 60);
	out = rte_pktmbuf_read(m, 0, 60, buf);
	CU_ASSERT_FATAL(out != NULL);
	ASSERT_INT_EQ(out[45], 0x5a);
	ASSERT_INT_EQ(out[46], 0);
	ASSERT_INT_EQ(out[59], 0);
	rte_pktmbuf_free(m);
	/* Flooded (unknown unicast) to the uplink and another pod. */
	send1(pb, dp_frame(X, B, 0, 42, 0x77));
	m = wire_recv();
	CU_ASSERT_FATAL(m != NULL);
	ASSERT_INT_EQ(rte_pktmbuf_pkt_len(m), 60);
	out = rte_pktmbuf_read(m, 0, 60, buf);
	CU_ASSERT_FATAL(out != NULL);
	ASSERT_INT_EQ(out[41], 0x77);
	ASSERT_INT_EQ(out[42], 0);
	rte_pktmbuf_free(m);
	ASSERT_INT_EQ(sink_of(pb2)->n, 1);
	ASSERT_INT_EQ(rte_pktmbuf_pkt_len(sink_of(pb2)->got[0]), 42);
	ASSERT_INT_EQ(rte_mbuf_refcnt_read(sink_of(pb2)->got[0]), 1);
	/* 60 bytes and more: as they were. */
	send1(pb, dp_frame(X, B, 0, 61, 1));
	m = wire_recv();
	CU_ASSERT_FATAL(m != NULL);
	ASSERT_INT_EQ(rte_pktmbuf_pkt_len(m), 61);
	rte_pktmbuf_free(m);
	sink_clear(pr), sink_clear(pb), sink_clear(pb2);
	destroy(pr), destroy(pb), destroy(pb2), destroy(ur), destroy(ub);
	destroy_net(red), destroy_net(blue);
}

/* A frame that cannot be tagged (no mbuf for the copy a flood needs) is
 * dropped as no_mbuf on the uplink port, not as tx_full. */
static void test_uplink_tag_no_mbuf(void)
{
	struct network *red = dp_net("red2", NET_BRIDGE, 100);
	struct port *ur = uplink_port("up-red2", red), *pa = dp_port("pa", red, "sink", A),
		    *pb = dp_port("pb", red, "null", B);
	struct rte_mbuf *hold[8192], *m;
	unsigned int n = 0;

	/* A broadcast shares its mbuf between the destinations, so tagging it
	 * for the uplink needs a copy; take every free mbuf first. */
	m = dp_frame(BCAST, A, 0, 60, 1);
	CU_ASSERT_FATAL(m != NULL);
	while (n < RTE_DIM(hold) && (hold[n] = rte_pktmbuf_alloc(pw_mbuf_pool)) != NULL)
		n++;
	send1(pa, m);
	rte_pktmbuf_free_bulk(hold, n);
	ASSERT_INT_EQ(dp_counters(ur).drops[DROP_NO_MBUF], 1);
	ASSERT_INT_EQ(dp_counters(ur).drops[DROP_TX_FULL], 0);
	ASSERT_INT_EQ(dp_counters(ur).tx_packets, 0);
	ASSERT_INT_EQ(dp_counters(pb).tx_packets, 1);
	CU_ASSERT(wire_recv() == NULL);
	destroy(pa), destroy(pb), destroy(ur);
	destroy_net(red);
}

/* Nor can a short frame that needs a copy to be padded: no_mbuf on the
 * uplink, the other destination's reference untouched. */
static void test_uplink_pad_no_mbuf(void)
{
	struct network *blue = dp_net("padnm", NET_BRIDGE, 0);
	struct port *ub = uplink_port("up-padnm", blue), *pa = dp_port("padnm-a", blue, "sink", A),
		    *pb = dp_port("padnm-b", blue, "sink", B);
	struct rte_mbuf *hold[8192], *m;
	unsigned int n = 0;

	m = dp_frame(BCAST, A, 0, 42, 1);
	CU_ASSERT_FATAL(m != NULL);
	while (n < RTE_DIM(hold) && (hold[n] = rte_pktmbuf_alloc(pw_mbuf_pool)) != NULL)
		n++;
	send1(pa, m);
	rte_pktmbuf_free_bulk(hold, n);
	ASSERT_INT_EQ(dp_counters(ub).drops[DROP_NO_MBUF], 1);
	ASSERT_INT_EQ(dp_counters(ub).tx_packets, 0);
	CU_ASSERT(wire_recv() == NULL);
	ASSERT_INT_EQ(sink_of(pb)->n, 1);
	ASSERT_INT_EQ(rte_mbuf_refcnt_read(sink_of(pb)->got[0]), 1);
	ASSERT_INT_EQ(rte_pktmbuf_pkt_len(sink_of(pb)->got[0]), 42);
	sink_clear(pb);
	destroy(pa), destroy(pb), destroy(ub);
	destroy_net(blue);
}

/* Uplinks lock their device's queue themselves: the datapath takes no
 * second, per-port lock for them (pods on shared ports still get one). */
static void test_uplink_one_lock(void)
{
	struct network *n = dp_net("lk", NET_BRIDGE, 0);
	unsigned int saved = n_workers;
	struct port *u, *p;

	n_workers = 2; /* as podwired with two workers: tx may be shared */
	workers[1] = worker_new(1, 0, pw_mbuf_pool);
	u = uplink_port("up-lk", n);
	p = dp_port("pod-lk", n, "null", A);
	CU_ASSERT(u != NULL && !u->dp.tx_shared);
	CU_ASSERT(p != NULL && p->dp.tx_shared);
	/* The device has one tx queue for two workers: it locks it itself. */
	{
		cJSON *j = cJSON_CreateObject(), *up;

		u->ops->to_json(u, j);
		up = cJSON_GetObjectItem(j, API_R_UPLINK);
		ASSERT_INT_EQ(cJSON_GetObjectItem(up, API_R_TX_QUEUES)->valueint, 1);
		CU_ASSERT(cJSON_IsTrue(cJSON_GetObjectItem(up, API_R_TX_LOCKED)));
		cJSON_Delete(j);
	}
	destroy(u), destroy(p);
	destroy_net(n);
	rte_free(workers[1]);
	workers[1] = NULL;
	n_workers = saved;
}

/* A device of two queues, two networks on it, two workers: every port
 * has both queues, queue q of both on one worker and the two queues on
 * different workers; a frame from device queue q comes out of its port's
 * queue q (the other port's poll of queue q stashes it there, never in
 * queue 1-q's stash, which another worker reads); each worker sends on
 * its own tx queue, without a lock. */
static void test_uplink_queues(void)
{
	struct network *red = dp_net("qred", NET_BRIDGE, 100),
		       *blue = dp_net("qblue", NET_BRIDGE, 0);
	unsigned int saved = n_workers;
	struct port *ur, *ub, *pr, *pb;
	struct rte_mbuf *m, *out[4];
	cJSON *j, *up;

	n_workers = 2;
	workers[1] = worker_new(1, 0, pw_mbuf_pool);
	/* The harness counts for one worker: worker 1's queue counters. */
	stats_queues[1] =
	    rte_zmalloc(NULL, sizeof(struct queue_counters) * PW_MAX_PORTS * PW_MAX_QUEUES, 0);
	CU_ASSERT_FATAL(stats_queues[1] != NULL);
	ur = uplink_port_q("qup-red", red, 2);
	/* Asks 4: has the device's 2, as every port of the device. */
	ub = uplink_port_q("qup-blue", blue, 4);
	pr = dp_port("qpod-red", red, "sink", A);
	pb = dp_port("qpod-blue", blue, "sink", B);
	CU_ASSERT_FATAL(ur != NULL && ub != NULL && pr != NULL && pb != NULL);
	ASSERT_INT_EQ(ur->dp.n_rxq, 2);
	ASSERT_INT_EQ(ub->dp.n_rxq, 2);
	ASSERT_INT_EQ(ub->dp.rxq_on, 3);
	ASSERT_INT_EQ(ur->rxq[0].worker, ub->rxq[0].worker);
	ASSERT_INT_EQ(ur->rxq[1].worker, ub->rxq[1].worker);
	CU_ASSERT(ur->rxq[0].worker != ur->rxq[1].worker);
	CU_ASSERT(ur->rxq_fixed && ub->rxq_fixed);

	/* Red's frames on device queue 1, polled through blue's queue 1:
	 * stashed for red's queue 1; red's queue 0 has none of them. */
	for (uint8_t i = 0; i < 3; i++)
		CU_ASSERT_FATAL(rte_ring_enqueue(wire_q_in[1], dp_frame(A, X, 100, 60, i)) == 0);
	CU_ASSERT_FATAL(rte_ring_enqueue(wire_q_in[0], dp_frame(B, X, 0, 60, 9)) == 0);
	ASSERT_INT_EQ(poll_queue(ub, 1), 0);
	ASSERT_INT_EQ(poll_queue(ur, 0), 0); /* device queue 0: blue's frame stashed */
	ASSERT_INT_EQ(sink_of(pr)->n, 0);
	ASSERT_INT_EQ(poll_queue(ur, 1), 3);
	ASSERT_INT_EQ(sink_of(pr)->n, 3);
	for (uint8_t i = 0; i < 3; i++) /* in the order the device gave them */
		ASSERT_INT_EQ(rte_pktmbuf_mtod(sink_of(pr)->got[i], uint8_t *)[30], i);
	ASSERT_INT_EQ(poll_queue(ub, 1), 0);
	ASSERT_INT_EQ(poll_queue(ub, 0), 1);
	ASSERT_INT_EQ(sink_of(pb)->n, 1);

	/* Worker w sends on tx queue w, with no lock. */
	for (uint16_t w = 0; w < 2; w++) {
		m = dp_frame(X, B, 0, 60, (uint8_t)(20 + w));
		CU_ASSERT_FATAL(m != NULL);
		ASSERT_INT_EQ(ub->dp.ops->tx_burst(&ub->dp, w, &m, 1), 1);
		ASSERT_INT_EQ(rte_ring_dequeue_burst(wire_q_out[w], (void **)out, 4, NULL), 1);
		ASSERT_INT_EQ(rte_pktmbuf_mtod(out[0], uint8_t *)[30], 20 + w);
		rte_pktmbuf_free(out[0]);
		ASSERT_INT_EQ(rte_ring_count(wire_q_out[1 - w]), 0);
		/* Counted on the queue it went out of. */
		ASSERT_INT_EQ(stats_queue(w, ub->dp.idx, w)->tx_packets, 1);
	}
	j = cJSON_CreateObject();
	ub->ops->to_json(ub, j);
	up = cJSON_GetObjectItem(j, API_R_UPLINK);
	ASSERT_INT_EQ(cJSON_GetObjectItem(up, API_R_TX_QUEUES)->valueint, 2);
	CU_ASSERT(cJSON_IsFalse(cJSON_GetObjectItem(up, API_R_TX_LOCKED)));
	cJSON_Delete(j);

	sink_clear(pr), sink_clear(pb);
	destroy(pr), destroy(pb), destroy(ur), destroy(ub);
	destroy_net(red), destroy_net(blue);
	rte_free(workers[1]);
	workers[1] = NULL;
	rte_free(stats_queues[1]);
	stats_queues[1] = NULL;
	n_workers = saved;
}

int main(void)
{
	static const struct unit_test tests[] = {
	    {"bridge: learning, unknown unicast, broadcast", test_learn_and_flood},
	    {"bridge: drops by reason", test_bridge_drops},
	    {"bridge: VLAN of the network accepted, others dropped", test_bridge_vlan},
	    {"bridge: networks are isolated", test_bridge_isolation},
	    {"xconnect: a wire between two ports", test_xconnect},
	    {"xconnect: runts dropped, the rest in order", test_xconnect_runts},
	    {"bridge: port security", test_port_security},
	    {"bridge: learning limit", test_learn_limit},
	    {"bridge: an uplink cannot crowd out a pod's own MAC", test_no_crowding_out},
	    {"bridge: flood limit", test_flood_limit},
	    {"tx retries: bounded, ended by a try that sends nothing", test_tx_retries},
	    {"tx buffers: full ones after each burst, thin ones at the end of the turn",
	     test_txbuf_flush},
	    {"uplink: tag on egress, demultiplex on ingress, named drops", test_uplink_vlans},
	    {"uplink: a frame that cannot be tagged is no_mbuf", test_uplink_tag_no_mbuf},
	    {"uplink: frames under 60 bytes padded", test_uplink_pad},
	    {"uplink: a frame that cannot be padded is no_mbuf", test_uplink_pad_no_mbuf},
	    {"uplink: one tx lock per burst", test_uplink_one_lock},
	    {"uplink: two queues, stashed per queue, a tx queue per worker", test_uplink_queues},
	    {NULL, NULL},
	};

	int rc;

	dp_harness_init(1);
	wire_in = rte_ring_create("wire_in", 4096, SOCKET_ID_ANY, RING_F_SP_ENQ | RING_F_SC_DEQ);
	wire_out = rte_ring_create("wire_out", 4096, SOCKET_ID_ANY, RING_F_SP_ENQ | RING_F_SC_DEQ);
	for (int q = 0; q < 2; q++) {
		char name[32];

		snprintf(name, sizeof(name), "wire_q_in%d", q);
		wire_q_in[q] =
		    rte_ring_create(name, 512, SOCKET_ID_ANY, RING_F_SP_ENQ | RING_F_SC_DEQ);
		snprintf(name, sizeof(name), "wire_q_out%d", q);
		wire_q_out[q] =
		    rte_ring_create(name, 512, SOCKET_ID_ANY, RING_F_SP_ENQ | RING_F_SC_DEQ);
		if (wire_q_in[q] == NULL || wire_q_out[q] == NULL)
			return 2;
	}
	if (wire_in == NULL || wire_out == NULL)
		return 2;
	rc = unit_run("forwarding", tests);
	dp_harness_fini();
	return rc;
}
