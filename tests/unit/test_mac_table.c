/* SPDX-License-Identifier: BSD-3-Clause */
/* Unit tests of dataplane/mac_table.c: no EAL, no hugepages. */
#include <pthread.h>
#include <stdint.h>
#include <string.h>

#include "datapath/mac_table.h"
#include "unit.h"

/* Distinct unicast MACs from an index, spread over all six bytes so that
 * consecutive indexes do not share a pattern the hash might like. */
static void make_mac(uint32_t i, uint8_t mac[6])
{
	uint32_t x = i * 2654435761u;

	mac[0] = 0x02;
	mac[1] = (uint8_t)(i >> 24);
	mac[2] = (uint8_t)(i >> 16);
	mac[3] = (uint8_t)(i >> 8);
	mac[4] = (uint8_t)i;
	mac[5] = (uint8_t)(x >> 24);
}

static uint16_t lookup1(const struct mac_table *t, uint16_t net, const uint8_t mac[6])
{
	const uint8_t *macs[1] = {mac};
	uint16_t port = 0x5a5a;

	mac_table_lookup_bulk(t, net, macs, 1, &port);
	return port;
}

/* Everything one walk saw. */
#define WALK_MAX 4096
struct walk_rec {
	uint16_t net;
	uint8_t mac[6];
	uint16_t port;
	uint32_t seen;
};
struct walk_log {
	unsigned int n;
	unsigned int overflow;
	struct walk_rec r[WALK_MAX];
};

static void walk_cb(uint16_t net, const uint8_t mac[6], uint16_t port, uint32_t seen, void *arg)
{
	struct walk_log *w = arg;

	if (w->n == WALK_MAX) {
		w->overflow++;
		return;
	}
	w->r[w->n].net = net;
	memcpy(w->r[w->n].mac, mac, 6);
	w->r[w->n].port = port;
	w->r[w->n].seen = seen;
	w->n++;
}

static const struct walk_rec *walk_find(const struct walk_log *w, uint16_t net,
					const uint8_t mac[6])
{
	for (unsigned int i = 0; i < w->n; i++)
		if (w->r[i].net == net && memcmp(w->r[i].mac, mac, 6) == 0)
			return &w->r[i];
	return NULL;
}

/* The seen time the table holds for (net, mac), or -1 if absent. */
static int64_t seen_of(const struct mac_table *t, uint16_t net, const uint8_t mac[6])
{
	static struct walk_log w;
	const struct walk_rec *r;

	w.n = 0;
	w.overflow = 0;
	mac_table_walk(t, net, walk_cb, &w);
	r = walk_find(&w, net, mac);
	return r != NULL ? (int64_t)r->seen : -1;
}

static void test_create_free(void)
{
	struct mac_table *t = mac_table_create(100);
	uint8_t m[6];

	CU_ASSERT_PTR_NOT_NULL_FATAL(t);
	ASSERT_INT_EQ(mac_table_count(t), 0);
	make_mac(1, m);
	ASSERT_INT_EQ(lookup1(t, 0, m), MAC_TABLE_MISS);
	mac_table_free(t);
	mac_table_free(NULL); /* must be accepted */
}

static void test_learn_new_known_moved(void)
{
	struct mac_table *t = mac_table_create(1024);
	uint8_t a[6], b[6];

	CU_ASSERT_PTR_NOT_NULL_FATAL(t);
	make_mac(10, a);
	make_mac(11, b);

	ASSERT_INT_EQ(mac_table_learn(t, 0, a, 3, 100, 0, 0), MAC_LEARN_NEW);
	ASSERT_INT_EQ(mac_table_count(t), 1);
	ASSERT_INT_EQ(lookup1(t, 0, a), 3);
	ASSERT_INT_EQ(seen_of(t, 0, a), 100);

	/* Same port, same second: nothing changes. */
	ASSERT_INT_EQ(mac_table_learn(t, 0, a, 3, 100, 0, 0), MAC_LEARN_KNOWN);
	ASSERT_INT_EQ(mac_table_count(t), 1);

	/* Same port later: known, timestamp refreshed. */
	ASSERT_INT_EQ(mac_table_learn(t, 0, a, 3, 105, 0, 0), MAC_LEARN_KNOWN);
	ASSERT_INT_EQ(seen_of(t, 0, a), 105);
	ASSERT_INT_EQ(mac_table_count(t), 1);

	/* Another port: moved, one entry, new port and time. */
	ASSERT_INT_EQ(mac_table_learn(t, 0, a, 4, 106, 0, 0), MAC_LEARN_MOVED);
	ASSERT_INT_EQ(mac_table_count(t), 1);
	ASSERT_INT_EQ(lookup1(t, 0, a), 4);
	ASSERT_INT_EQ(seen_of(t, 0, a), 106);
	ASSERT_INT_EQ(mac_table_learn(t, 0, a, 4, 107, 0, 0), MAC_LEARN_KNOWN);

	/* And back. */
	ASSERT_INT_EQ(mac_table_learn(t, 0, a, 3, 108, 0, 0), MAC_LEARN_MOVED);
	ASSERT_INT_EQ(lookup1(t, 0, a), 3);

	/* A second MAC is independent. */
	ASSERT_INT_EQ(lookup1(t, 0, b), MAC_TABLE_MISS);
	ASSERT_INT_EQ(mac_table_learn(t, 0, b, 4, 109, 0, 0), MAC_LEARN_NEW);
	ASSERT_INT_EQ(mac_table_count(t), 2);
	ASSERT_INT_EQ(lookup1(t, 0, a), 3);
	ASSERT_INT_EQ(lookup1(t, 0, b), 4);
	mac_table_free(t);
}

/*
 * A table asked for 6 entries has the smallest size, two buckets of three,
 * so every key hashes to the same pair: once six MACs are in, a seventh
 * must replace the least recently seen of all of them.
 */
/* A full bucket pair: a port may replace its own oldest entry there,
 * never another port's. */
static void test_full_evicts_own_oldest(void)
{
	static const uint32_t when[6] = {50, 20, 70, 10, 40, 60};
	struct mac_table *t = mac_table_create(6);
	uint8_t m[9][6];

	CU_ASSERT_PTR_NOT_NULL_FATAL(t);
	for (int i = 0; i < 9; i++)
		make_mac(100 + (uint32_t)i, m[i]);
	/* Ports 1 and 2 own three entries each. */
	for (int i = 0; i < 6; i++)
		ASSERT_INT_EQ(mac_table_learn(t, 0, m[i], (uint16_t)(i % 2 + 1), when[i], 0, 0),
			      MAC_LEARN_NEW);
	ASSERT_INT_EQ(mac_table_count(t), 6);
	ASSERT_INT_EQ(mac_table_port_count(t, 1), 3);
	ASSERT_INT_EQ(mac_table_port_count(t, 2), 3);

	/* A move in a full table replaces nothing. */
	ASSERT_INT_EQ(mac_table_learn(t, 0, m[0], 2, 50, 0, 0), MAC_LEARN_MOVED);
	ASSERT_INT_EQ(mac_table_count(t), 6);
	ASSERT_INT_EQ(mac_table_port_count(t, 1), 2);
	ASSERT_INT_EQ(mac_table_port_count(t, 2), 4);

	/* Port 3 owns nothing here: it learns nothing, and evicts nobody. */
	ASSERT_INT_EQ(mac_table_learn(t, 0, m[6], 3, 80, 0, 0), MAC_LEARN_LIMIT);
	ASSERT_INT_EQ(mac_table_count(t), 6);
	ASSERT_INT_EQ(lookup1(t, 0, m[6]), MAC_TABLE_MISS);
	for (int i = 0; i < 6; i++)
		CU_ASSERT(lookup1(t, 0, m[i]) != MAC_TABLE_MISS);

	/* Port 2 replaces its own oldest: m[3] (10), not port 1's m[1] (20). */
	ASSERT_INT_EQ(mac_table_learn(t, 0, m[7], 2, 90, 0, 0), MAC_LEARN_FULL);
	ASSERT_INT_EQ(lookup1(t, 0, m[3]), MAC_TABLE_MISS);
	ASSERT_INT_EQ(lookup1(t, 0, m[1]), 2);
	ASSERT_INT_EQ(lookup1(t, 0, m[7]), 2);
	ASSERT_INT_EQ(mac_table_count(t), 6);
	ASSERT_INT_EQ(mac_table_port_count(t, 2), 4);

	/* After a flush frees slots, learning is NEW again, nothing evicted. */
	ASSERT_INT_EQ(mac_table_flush_port(t, 1), 2);
	ASSERT_INT_EQ(mac_table_count(t), 4);
	ASSERT_INT_EQ(mac_table_port_count(t, 1), 0);
	ASSERT_INT_EQ(mac_table_learn(t, 0, m[8], 3, 91, 0, 0), MAC_LEARN_NEW);
	ASSERT_INT_EQ(mac_table_count(t), 5);
	ASSERT_INT_EQ(mac_table_net_count(t, 0), 5);
	mac_table_free(t);
}

/* A port's own MACs (mac_table_learn_own): learned past every limit,
 * placed even where both buckets are full of other ports' entries, never
 * replaced or moved by another port's ordinary learning. And a refusal
 * for the port limit after an own entry was picked for replacement
 * leaves the counts as they were. */
static void test_own_macs(void)
{
	struct mac_table *t = mac_table_create(6);
	uint8_t m[10][6];

	CU_ASSERT_PTR_NOT_NULL_FATAL(t);
	for (int i = 0; i < 10; i++)
		make_mac(300 + (uint32_t)i, m[i]);
	/* An uplink (port 1) fills the only bucket pair and the network's
	 * limit of 6. */
	for (int i = 0; i < 6; i++)
		ASSERT_INT_EQ(mac_table_learn(t, 0, m[i], 1, 10 + (uint32_t)i, 0, 6),
			      MAC_LEARN_NEW);
	ASSERT_INT_EQ(mac_table_learn(t, 0, m[6], 2, 20, 64, 6), MAC_LEARN_LIMIT);
	/* Pod 2's own MAC still gets in: the uplink's oldest (m[0]) gives way. */
	ASSERT_INT_EQ(mac_table_learn_own(t, 0, m[6], 2, 20), MAC_LEARN_FULL);
	ASSERT_INT_EQ(lookup1(t, 0, m[6]), 2);
	ASSERT_INT_EQ(lookup1(t, 0, m[0]), MAC_TABLE_MISS);
	ASSERT_INT_EQ(mac_table_port_count(t, 1), 5);
	ASSERT_INT_EQ(mac_table_port_count(t, 2), 1);
	ASSERT_INT_EQ(mac_table_count(t), 6);
	/* Known now: refreshed, nothing else. */
	ASSERT_INT_EQ(mac_table_learn_own(t, 0, m[6], 2, 21), MAC_LEARN_KNOWN);
	ASSERT_INT_EQ(mac_table_count(t), 6);
	/* The uplink replaces its own oldest, never the pod's MAC, however old. */
	ASSERT_INT_EQ(mac_table_learn(t, 0, m[7], 1, 90, 0, 0), MAC_LEARN_FULL);
	ASSERT_INT_EQ(lookup1(t, 0, m[6]), 2);
	ASSERT_INT_EQ(lookup1(t, 0, m[1]), MAC_TABLE_MISS);
	/* A frame from the pod's MAC arriving on the uplink does not move it. */
	ASSERT_INT_EQ(mac_table_learn(t, 0, m[6], 1, 95, 0, 0), MAC_LEARN_OWNED);
	ASSERT_INT_EQ(lookup1(t, 0, m[6]), 2);
	ASSERT_INT_EQ(mac_table_port_count(t, 1), 5);
	/* The rightful owner moving (a pod restarted on another port) does. */
	ASSERT_INT_EQ(mac_table_learn_own(t, 0, m[6], 3, 96), MAC_LEARN_MOVED);
	ASSERT_INT_EQ(lookup1(t, 0, m[6]), 3);
	ASSERT_INT_EQ(mac_table_port_count(t, 2), 0);
	ASSERT_INT_EQ(mac_table_port_count(t, 3), 1);
	/* Port 1 has 5 entries; with a limit of 1 now, a new MAC in the full
	 * pair would replace its own oldest, but the limit refuses it: the
	 * entry stays and so do the counts. */
	ASSERT_INT_EQ(mac_table_learn(t, 0, m[8], 1, 97, 1, 0), MAC_LEARN_LIMIT);
	ASSERT_INT_EQ(mac_table_port_count(t, 1), 5);
	ASSERT_INT_EQ(mac_table_count(t), 6);
	ASSERT_INT_EQ(mac_table_net_count(t, 0), 6);
	ASSERT_INT_EQ(mac_table_flush_port(t, 1), 5);
	ASSERT_INT_EQ(mac_table_count(t), 1);
	mac_table_free(t);
}

/* Per-port and per-network limits: beyond them nothing new is learned,
 * known MACs stay known, and a port cannot move a MAC in past its limit. */
static void test_limits(void)
{
	struct mac_table *t = mac_table_create(4096);
	uint8_t m[200][6];

	CU_ASSERT_PTR_NOT_NULL_FATAL(t);
	for (int i = 0; i < 200; i++)
		make_mac(0x5000 + (uint32_t)i, m[i]);
	for (int i = 0; i < 64; i++)
		ASSERT_INT_EQ(mac_table_learn(t, 1, m[i], 4, 10, 64, 0), MAC_LEARN_NEW);
	ASSERT_INT_EQ(mac_table_learn(t, 1, m[64], 4, 10, 64, 0), MAC_LEARN_LIMIT);
	ASSERT_INT_EQ(mac_table_learn(t, 1, m[3], 4, 11, 64, 0), MAC_LEARN_KNOWN);
	ASSERT_INT_EQ(mac_table_port_count(t, 4), 64);
	ASSERT_INT_EQ(lookup1(t, 1, m[64]), MAC_TABLE_MISS);
	/* Port 5 learns on; then cannot take port 4's MAC past its limit. */
	for (int i = 100; i < 110; i++)
		ASSERT_INT_EQ(mac_table_learn(t, 1, m[i], 5, 10, 10, 0), MAC_LEARN_NEW);
	ASSERT_INT_EQ(mac_table_learn(t, 1, m[0], 5, 12, 10, 0), MAC_LEARN_LIMIT);
	ASSERT_INT_EQ(lookup1(t, 1, m[0]), 4);
	ASSERT_INT_EQ(mac_table_port_count(t, 4), 64);
	/* Under its limit the move happens, and the counts follow. */
	ASSERT_INT_EQ(mac_table_learn(t, 1, m[0], 5, 12, 11, 0), MAC_LEARN_MOVED);
	ASSERT_INT_EQ(mac_table_port_count(t, 4), 63);
	ASSERT_INT_EQ(mac_table_port_count(t, 5), 11);
	/* The network's limit: 74 entries; a third port learns nothing new. */
	ASSERT_INT_EQ(mac_table_net_count(t, 1), 74);
	ASSERT_INT_EQ(mac_table_learn(t, 1, m[150], 6, 10, 64, 74), MAC_LEARN_LIMIT);
	ASSERT_INT_EQ(mac_table_learn(t, 1, m[150], 6, 10, 64, 75), MAC_LEARN_NEW);
	/* Another network has its own count. */
	ASSERT_INT_EQ(mac_table_learn(t, 2, m[150], 6, 10, 64, 1), MAC_LEARN_NEW);
	ASSERT_INT_EQ(mac_table_net_count(t, 2), 1);
	/* Aging and flushing keep the counts right. */
	ASSERT_INT_EQ(mac_table_flush_net(t, 2), 1);
	ASSERT_INT_EQ(mac_table_port_count(t, 6), 1);
	ASSERT_INT_EQ(mac_table_age(t, 20, 5), 75);
	ASSERT_INT_EQ(mac_table_count(t), 0);
	ASSERT_INT_EQ(mac_table_port_count(t, 4), 0);
	ASSERT_INT_EQ(mac_table_net_count(t, 1), 0);
	mac_table_free(t);
}

static void test_lookup_bulk(void)
{
	struct mac_table *t = mac_table_create(256);
	uint8_t m[64][6];
	const uint8_t *macs[64];
	uint16_t ports[64];

	CU_ASSERT_PTR_NOT_NULL_FATAL(t);
	for (uint32_t i = 0; i < 64; i++) {
		make_mac(1000 + i, m[i]);
		macs[i] = m[i];
	}
	/* Even indexes are learned, odd ones are not. */
	for (uint32_t i = 0; i < 64; i += 2)
		ASSERT_INT_EQ(mac_table_learn(t, 5, m[i], (uint16_t)(200 + i), 1, 0, 0),
			      MAC_LEARN_NEW);

	memset(ports, 0x5a, sizeof(ports));
	mac_table_lookup_bulk(t, 5, macs, 64, ports);
	for (unsigned int i = 0; i < 64; i++)
		ASSERT_INT_EQ(ports[i], i % 2 == 0 ? 200 + i : MAC_TABLE_MISS);

	/* A burst that is all misses, and one that starts in the middle. */
	memset(ports, 0x5a, sizeof(ports));
	mac_table_lookup_bulk(t, 6, macs, 32, ports);
	for (unsigned int i = 0; i < 32; i++)
		ASSERT_INT_EQ(ports[i], MAC_TABLE_MISS);
	memset(ports, 0x5a, sizeof(ports));
	mac_table_lookup_bulk(t, 5, macs + 31, 3, ports);
	ASSERT_INT_EQ(ports[0], MAC_TABLE_MISS);
	ASSERT_INT_EQ(ports[1], 232);
	ASSERT_INT_EQ(ports[2], MAC_TABLE_MISS);
	ASSERT_INT_EQ(ports[3], 0x5a5a); /* n respected */
	mac_table_free(t);
}

static void test_same_mac_two_networks(void)
{
	struct mac_table *t = mac_table_create(64);
	uint8_t m[6];

	CU_ASSERT_PTR_NOT_NULL_FATAL(t);
	make_mac(77, m);
	ASSERT_INT_EQ(mac_table_learn(t, 1, m, 5, 10, 0, 0), MAC_LEARN_NEW);
	ASSERT_INT_EQ(lookup1(t, 2, m), MAC_TABLE_MISS);
	ASSERT_INT_EQ(mac_table_learn(t, 2, m, 7, 10, 0, 0), MAC_LEARN_NEW);
	ASSERT_INT_EQ(mac_table_count(t), 2);
	ASSERT_INT_EQ(lookup1(t, 1, m), 5);
	ASSERT_INT_EQ(lookup1(t, 2, m), 7);
	ASSERT_INT_EQ(lookup1(t, 0, m), MAC_TABLE_MISS);
	ASSERT_INT_EQ(lookup1(t, 3, m), MAC_TABLE_MISS);

	/* A move in one network is not a move in the other. */
	ASSERT_INT_EQ(mac_table_learn(t, 1, m, 6, 11, 0, 0), MAC_LEARN_MOVED);
	ASSERT_INT_EQ(lookup1(t, 1, m), 6);
	ASSERT_INT_EQ(lookup1(t, 2, m), 7);
	ASSERT_INT_EQ(seen_of(t, 2, m), 10);

	/* Network 0 and the largest usable id are distinct too. */
	ASSERT_INT_EQ(mac_table_learn(t, 0, m, 9, 12, 0, 0), MAC_LEARN_NEW);
	ASSERT_INT_EQ(mac_table_learn(t, UINT16_MAX - 1, m, 10, 12, 0, 0), MAC_LEARN_NEW);
	ASSERT_INT_EQ(lookup1(t, 0, m), 9);
	ASSERT_INT_EQ(lookup1(t, UINT16_MAX - 1, m), 10);
	ASSERT_INT_EQ(lookup1(t, 1, m), 6);
	ASSERT_INT_EQ(mac_table_count(t), 4);

	ASSERT_INT_EQ(mac_table_flush_net(t, 1), 1);
	ASSERT_INT_EQ(lookup1(t, 1, m), MAC_TABLE_MISS);
	ASSERT_INT_EQ(lookup1(t, 2, m), 7);
	ASSERT_INT_EQ(lookup1(t, 0, m), 9);
	mac_table_free(t);
}

static void test_age(void)
{
	struct mac_table *t = mac_table_create(64);
	uint8_t a[6], b[6], c[6], d[6];

	CU_ASSERT_PTR_NOT_NULL_FATAL(t);
	make_mac(1, a);
	make_mac(2, b);
	make_mac(3, c);
	make_mac(4, d);
	mac_table_learn(t, 0, a, 1, 100, 0, 0);
	mac_table_learn(t, 0, b, 2, 150, 0, 0);
	mac_table_learn(t, 1, c, 3, 200, 0, 0);
	mac_table_learn(t, 0, d, 4, 100, 0, 0);
	mac_table_learn(t, 0, d, 4, 190, 0, 0); /* refreshed: young again */
	ASSERT_INT_EQ(mac_table_count(t), 4);

	/* Nothing is 1000 seconds old. */
	ASSERT_INT_EQ(mac_table_age(t, 205, 1000), 0);
	ASSERT_INT_EQ(mac_table_count(t), 4);

	/* a is 105 s old; b 55, c 5, d 15 stay. */
	ASSERT_INT_EQ(mac_table_age(t, 205, 60), 1);
	ASSERT_INT_EQ(mac_table_count(t), 3);
	ASSERT_INT_EQ(lookup1(t, 0, a), MAC_TABLE_MISS);
	ASSERT_INT_EQ(lookup1(t, 0, b), 2);
	ASSERT_INT_EQ(lookup1(t, 1, c), 3);
	ASSERT_INT_EQ(lookup1(t, 0, d), 4);

	/* Ten seconds on, b is 65 s old. */
	ASSERT_INT_EQ(mac_table_age(t, 215, 60), 1);
	ASSERT_INT_EQ(lookup1(t, 0, b), MAC_TABLE_MISS);
	ASSERT_INT_EQ(lookup1(t, 0, d), 4);
	ASSERT_INT_EQ(mac_table_age(t, 215, 60), 0);
	ASSERT_INT_EQ(mac_table_count(t), 2);

	/* Close to the limit: 59 s old stays, 61 s old goes. */
	mac_table_learn(t, 0, a, 1, 1000, 0, 0);
	mac_table_learn(t, 0, b, 2, 1002, 0, 0);
	ASSERT_INT_EQ(mac_table_age(t, 1061, 60), 3); /* a, c and d */
	ASSERT_INT_EQ(lookup1(t, 0, a), MAC_TABLE_MISS);
	ASSERT_INT_EQ(lookup1(t, 0, b), 2);
	ASSERT_INT_EQ(mac_table_count(t), 1);

	/* A learned port is back to NEW after aging. */
	ASSERT_INT_EQ(mac_table_learn(t, 0, a, 1, 1062, 0, 0), MAC_LEARN_NEW);
	ASSERT_INT_EQ(mac_table_count(t), 2);
	mac_table_free(t);
}

/* The clock is 32-bit seconds: ages are computed modulo 2^32. */
static void test_age_across_clock_wrap(void)
{
	struct mac_table *t = mac_table_create(64);
	uint8_t a[6], b[6], c[6];

	CU_ASSERT_PTR_NOT_NULL_FATAL(t);
	make_mac(1, a);
	make_mac(2, b);
	make_mac(3, c);
	mac_table_learn(t, 0, a, 1, UINT32_MAX - 255, 0, 0); /* 266 s old at now = 10 */
	mac_table_learn(t, 0, b, 2, UINT32_MAX - 7, 0, 0);   /* 18 s old */
	mac_table_learn(t, 0, c, 3, 2, 0, 0);		     /* 8 s old */

	ASSERT_INT_EQ(mac_table_age(t, 10, 20), 1);
	ASSERT_INT_EQ(lookup1(t, 0, a), MAC_TABLE_MISS);
	ASSERT_INT_EQ(lookup1(t, 0, b), 2);
	ASSERT_INT_EQ(lookup1(t, 0, c), 3);

	ASSERT_INT_EQ(mac_table_age(t, 20, 20), 1); /* b is now 28 s old */
	ASSERT_INT_EQ(lookup1(t, 0, b), MAC_TABLE_MISS);
	ASSERT_INT_EQ(lookup1(t, 0, c), 3);
	ASSERT_INT_EQ(mac_table_count(t), 1);

	/* Before the wrap, looking across it the other way. */
	mac_table_learn(t, 0, a, 1, UINT32_MAX - 5, 0, 0);
	ASSERT_INT_EQ(mac_table_age(t, UINT32_MAX, 20), 1); /* c: 2 is ~2^32 s "old" */
	ASSERT_INT_EQ(lookup1(t, 0, a), 1);
	ASSERT_INT_EQ(lookup1(t, 0, c), MAC_TABLE_MISS);
	mac_table_free(t);
}

static void test_flush_port_and_net(void)
{
	struct mac_table *t = mac_table_create(256);
	uint8_t m[3][3][6];
	unsigned int n;

	CU_ASSERT_PTR_NOT_NULL_FATAL(t);
	/* Networks 0-2, ports 1-3, one MAC per pair; port p is on every net. */
	for (uint16_t net = 0; net < 3; net++)
		for (uint16_t p = 1; p <= 3; p++) {
			make_mac(500u + net * 10u + p, m[net][p - 1]);
			ASSERT_INT_EQ(mac_table_learn(t, net, m[net][p - 1], p, 1, 0, 0),
				      MAC_LEARN_NEW);
		}
	ASSERT_INT_EQ(mac_table_count(t), 9);

	ASSERT_INT_EQ(mac_table_flush_port(t, 42), 0);
	ASSERT_INT_EQ(mac_table_flush_net(t, 42), 0);
	ASSERT_INT_EQ(mac_table_count(t), 9);

	ASSERT_INT_EQ(mac_table_flush_port(t, 2), 3);
	ASSERT_INT_EQ(mac_table_count(t), 6);
	for (uint16_t net = 0; net < 3; net++)
		for (uint16_t p = 1; p <= 3; p++)
			ASSERT_INT_EQ(lookup1(t, net, m[net][p - 1]), p == 2 ? MAC_TABLE_MISS : p);

	n = mac_table_flush_net(t, 1);
	ASSERT_INT_EQ(n, 2);
	ASSERT_INT_EQ(mac_table_count(t), 4);
	for (uint16_t net = 0; net < 3; net++)
		for (uint16_t p = 1; p <= 3; p++)
			ASSERT_INT_EQ(lookup1(t, net, m[net][p - 1]),
				      (p == 2 || net == 1) ? MAC_TABLE_MISS : p);

	ASSERT_INT_EQ(mac_table_flush_net(t, 0), 2);
	ASSERT_INT_EQ(mac_table_flush_port(t, 3), 1);
	ASSERT_INT_EQ(mac_table_count(t), 1);
	ASSERT_INT_EQ(lookup1(t, 2, m[2][0]), 1);
	mac_table_free(t);
}

static void test_walk(void)
{
	static struct walk_log w;
	struct mac_table *t = mac_table_create(128);
	uint8_t m[20][6];

	CU_ASSERT_PTR_NOT_NULL_FATAL(t);
	w.n = 0;
	mac_table_walk(t, UINT16_MAX, walk_cb, &w);
	ASSERT_INT_EQ(w.n, 0);

	/* MAC i: network i % 3, port 30 + i, seen 1000 + i. */
	for (uint32_t i = 0; i < 20; i++) {
		make_mac(9000 + i, m[i]);
		mac_table_learn(t, (uint16_t)(i % 3), m[i], (uint16_t)(30 + i), 1000 + i, 0, 0);
	}

	w.n = 0;
	mac_table_walk(t, UINT16_MAX, walk_cb, &w);
	ASSERT_INT_EQ(w.n, 20);
	ASSERT_INT_EQ(w.overflow, 0);
	for (uint32_t i = 0; i < 20; i++) {
		const struct walk_rec *r = walk_find(&w, (uint16_t)(i % 3), m[i]);

		CU_ASSERT_PTR_NOT_NULL(r);
		if (r == NULL)
			continue;
		ASSERT_INT_EQ(r->port, 30 + i);
		ASSERT_INT_EQ(r->seen, 1000 + i);
	}
	/* Each entry once. */
	for (unsigned int i = 0; i < w.n; i++)
		for (unsigned int j = i + 1; j < w.n; j++)
			CU_ASSERT(
			    !(w.r[i].net == w.r[j].net && memcmp(w.r[i].mac, w.r[j].mac, 6) == 0));

	/* One network: MACs 1, 4, ..., 19. */
	w.n = 0;
	mac_table_walk(t, 1, walk_cb, &w);
	ASSERT_INT_EQ(w.n, 7);
	for (unsigned int i = 0; i < w.n; i++) {
		ASSERT_INT_EQ(w.r[i].net, 1);
		ASSERT_INT_EQ((w.r[i].port - 30) % 3, 1);
	}
	w.n = 0;
	mac_table_walk(t, 9, walk_cb, &w);
	ASSERT_INT_EQ(w.n, 0);
	mac_table_free(t);
}

/*
 * Learns four times the capacity: the count never exceeds the slots the
 * table can have (capacity rounded up to a power-of-two number of 3-entry
 * buckets), every MAC just learned is found, and afterwards every MAC
 * still present is found on its own port and count agrees with a walk.
 */
static void test_fill_past_capacity(void)
{
	enum { CAP = 1000, N = 4 * CAP };
	static uint8_t m[N][6];
	static const uint8_t *macs[N];
	static uint16_t ports[N];
	static struct walk_log w;
	struct mac_table *t = mac_table_create(CAP);
	unsigned int nb = 2, slots, news = 0, fulls = 0, hits = 0, bad_count = 0, bad_find = 0;

	CU_ASSERT_PTR_NOT_NULL_FATAL(t);
	while (nb * 3 < CAP)
		nb <<= 1;
	slots = nb * 3;

	for (uint32_t i = 0; i < N; i++) {
		enum mac_learn_result r;

		make_mac(0x10000 + i, m[i]);
		macs[i] = m[i];
		r = mac_table_learn(t, 7, m[i], 9, i, 0, 0);
		news += r == MAC_LEARN_NEW;
		fulls += r == MAC_LEARN_FULL;
		if (mac_table_count(t) > slots)
			bad_count++;
		if (lookup1(t, 7, m[i]) != 9)
			bad_find++;
	}
	ASSERT_INT_EQ(news + fulls, N);
	ASSERT_INT_EQ(bad_count, 0);
	ASSERT_INT_EQ(bad_find, 0);
	ASSERT_INT_EQ(mac_table_count(t), news);
	CU_ASSERT(mac_table_count(t) <= slots);
	/* The table holds at least what was asked for. */
	CU_ASSERT(mac_table_count(t) >= CAP);
	CU_ASSERT(fulls > 0);

	for (unsigned int i = 0; i < N; i += 32)
		mac_table_lookup_bulk(t, 7, macs + i, 32, ports + i);
	for (unsigned int i = 0; i < N; i++) {
		if (ports[i] == MAC_TABLE_MISS)
			continue;
		hits++;
		ASSERT_INT_EQ(ports[i], 9);
	}
	ASSERT_INT_EQ(hits, mac_table_count(t));
	/* The most recent MACs were the last to be evicted: the last one is in. */
	ASSERT_INT_EQ(ports[N - 1], 9);

	w.n = 0;
	mac_table_walk(t, UINT16_MAX, walk_cb, &w);
	ASSERT_INT_EQ(w.n, mac_table_count(t));

	/* Another network sees none of it. */
	mac_table_lookup_bulk(t, 8, macs, 32, ports);
	for (unsigned int i = 0; i < 32; i++)
		ASSERT_INT_EQ(ports[i], MAC_TABLE_MISS);

	/* Aging everything empties it. */
	ASSERT_INT_EQ(mac_table_age(t, N + 10, 5), hits);
	ASSERT_INT_EQ(mac_table_count(t), 0);
	mac_table_free(t);
}

/*
 * Concurrency: one thread learns and moves MACs while another looks them up
 * in bursts. MAC i is only ever assigned ports i * PORTS_PER_MAC + k, so a
 * lookup that returns a port of another MAC (or a half-written entry) is
 * caught. Bounded by the writer's iteration count; no sleeps.
 */
#define PORTS_PER_MAC 4

struct race {
	struct mac_table *t;
	uint16_t net;
	unsigned int nmacs;
	uint8_t (*m)[6];
	unsigned int writer_iters;
	bool evict; /* small table: evictions and flushes allowed */
	bool done;  /* writer finished (atomic access) */
	unsigned long lookups;
	unsigned long hits, misses, wrong_port;
	unsigned long learn_bad; /* writer saw a result it should not */
};

static uint32_t xorshift(uint32_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 17;
	*s ^= *s << 5;
	return *s;
}

static void *race_writer(void *arg)
{
	struct race *r = arg;
	uint32_t seed = 12345;

	for (unsigned int it = 0; it < r->writer_iters; it++) {
		unsigned int i = xorshift(&seed) % r->nmacs;
		uint16_t port = (uint16_t)(i * PORTS_PER_MAC + xorshift(&seed) % PORTS_PER_MAC);
		enum mac_learn_result res = mac_table_learn(r->t, r->net, r->m[i], port, it, 0, 0);

		if (!r->evict && res != MAC_LEARN_KNOWN && res != MAC_LEARN_MOVED)
			r->learn_bad++;
		if (r->evict && it % 997 == 0)
			mac_table_flush_port(r->t, port);
		if (r->evict && it % 1999 == 0)
			mac_table_age(r->t, it, 50);
	}
	__atomic_store_n(&r->done, true, __ATOMIC_RELEASE);
	return NULL;
}

static void *race_reader(void *arg)
{
	struct race *r = arg;
	const uint8_t *macs[64];
	uint16_t ports[64];
	unsigned long rounds = 0;

	for (unsigned int i = 0; i < r->nmacs; i++)
		macs[i] = r->m[i];
	/* At least 1000 rounds, the last one started after the writer ended. */
	for (;;) {
		bool writer_done = __atomic_load_n(&r->done, __ATOMIC_ACQUIRE);

		for (unsigned int off = 0; off < r->nmacs; off += 32) {
			unsigned int n = r->nmacs - off < 32 ? r->nmacs - off : 32;

			mac_table_lookup_bulk(r->t, r->net, macs + off, n, ports + off);
		}
		for (unsigned int i = 0; i < r->nmacs; i++) {
			if (ports[i] == MAC_TABLE_MISS)
				r->misses++;
			else if (ports[i] / PORTS_PER_MAC != i)
				r->wrong_port++;
			else
				r->hits++;
		}
		r->lookups += r->nmacs;
		rounds++;
		if (writer_done && rounds >= 1000)
			break;
	}
	return NULL;
}

static void run_race(struct race *r)
{
	pthread_t w, rd;

	CU_ASSERT_FATAL(pthread_create(&rd, NULL, race_reader, r) == 0);
	CU_ASSERT_FATAL(pthread_create(&w, NULL, race_writer, r) == 0);
	pthread_join(w, NULL);
	pthread_join(rd, NULL);
}

/* Moves only, in a roomy table: every lookup hits, on a port of that MAC. */
static void test_concurrent_moves(void)
{
	static uint8_t m[64][6];
	struct race r = {.net = 3, .nmacs = 64, .m = m, .writer_iters = 400000};

	r.t = mac_table_create(4096);
	CU_ASSERT_PTR_NOT_NULL_FATAL(r.t);
	for (unsigned int i = 0; i < r.nmacs; i++) {
		make_mac(0x300 + i, m[i]);
		ASSERT_INT_EQ(
		    mac_table_learn(r.t, r.net, m[i], (uint16_t)(i * PORTS_PER_MAC), 0, 0, 0),
		    MAC_LEARN_NEW);
	}
	run_race(&r);
	ASSERT_INT_EQ(r.learn_bad, 0);
	ASSERT_INT_EQ(r.wrong_port, 0);
	ASSERT_INT_EQ(r.misses, 0);
	ASSERT_INT_EQ(r.hits, r.lookups);
	CU_ASSERT(r.lookups > 0);
	ASSERT_INT_EQ(mac_table_count(r.t), r.nmacs);
	mac_table_free(r.t);
}

/*
 * Sixteen MACs in a six-entry table: slots keep changing from one MAC to
 * another (evictions, flushes, aging), the case the per-bucket sequence
 * counter exists for. Misses are expected; a wrong port is not.
 */
static void test_concurrent_evictions(void)
{
	static uint8_t m[16][6];
	struct race r = {.net = 4, .nmacs = 16, .m = m, .writer_iters = 2000000, .evict = true};

	r.t = mac_table_create(6);
	CU_ASSERT_PTR_NOT_NULL_FATAL(r.t);
	for (unsigned int i = 0; i < r.nmacs; i++)
		make_mac(0x400 + i, m[i]);
	run_race(&r);
	ASSERT_INT_EQ(r.wrong_port, 0);
	/* The last round ran on the final table, which holds 1 to 6 MACs. */
	CU_ASSERT(mac_table_count(r.t) >= 1 && mac_table_count(r.t) <= 6);
	CU_ASSERT(r.hits > 0);
	CU_ASSERT(r.misses > 0);
	mac_table_free(r.t);
}

/* ---- the hash is seeded: placement differs per table ------------------------ */

static unsigned int same_placement(const struct mac_table *a, const struct mac_table *b,
				   unsigned int n)
{
	unsigned int same = 0;

	for (uint32_t i = 0; i < n; i++) {
		uint8_t mac[6];
		uint32_t ba[2], bb[2];

		make_mac(i, mac);
		mac_table_buckets(a, 7, mac, ba);
		mac_table_buckets(b, 7, mac, bb);
		same += ba[0] == bb[0] && ba[1] == bb[1];
	}
	return same;
}

static void test_seeded_placement(void)
{
	struct mac_table *a = mac_table_create_seeded(4096, 1);
	struct mac_table *a2 = mac_table_create_seeded(4096, 1);
	struct mac_table *b = mac_table_create_seeded(4096, 2);
	struct mac_table *r1 = mac_table_create(4096), *r2 = mac_table_create(4096);

	CU_ASSERT_FATAL(a != NULL && a2 != NULL && b != NULL && r1 != NULL && r2 != NULL);
	/* 2048 buckets: by chance a MAC keeps its pair 1 time in 4 million. */
	ASSERT_INT_EQ(same_placement(a, a2, 1000), 1000);
	CU_ASSERT(same_placement(a, b, 1000) < 10);
	CU_ASSERT(same_placement(r1, r2, 1000) < 10);
	mac_table_free(a), mac_table_free(a2), mac_table_free(b);
	mac_table_free(r1), mac_table_free(r2);
}

/* MACs that fill both buckets of victim in t, the way a pod without port
 * security would pick them: three whose first bucket is the victim's
 * first, three whose first is its second. */
static unsigned int colliding_set(const struct mac_table *t, const uint8_t victim[6],
				  uint8_t out[6][6])
{
	uint32_t vb[2];
	unsigned int got[2] = {0, 0}, n = 0;

	mac_table_buckets(t, 0, victim, vb);
	for (uint32_t i = 1; i < 1000000 && n < 6; i++) {
		uint8_t mac[6];
		uint32_t b[2];

		make_mac(i, mac);
		mac[0] = 0x06;
		mac_table_buckets(t, 0, mac, b);
		for (int j = 0; j < 2; j++)
			if (b[0] == vb[j] && got[j] < 3) {
				got[j]++;
				memcpy(out[n++], mac, 6);
			}
	}
	return n;
}

/* A set of MACs computed to keep the gateway out of one table keeps it out
 * of no other: the next start of podwired draws another hash. */
static void test_precomputed_collisions_do_not_carry(void)
{
	static const uint8_t gw[6] = {0x02, 0x00, 0x00, 0x00, 0x00, 0x01};
	struct mac_table *t = mac_table_create_seeded(64, 11);
	uint8_t set[6][6];
	unsigned int missed = 0;

	CU_ASSERT_FATAL(t != NULL);
	ASSERT_INT_EQ(colliding_set(t, gw, set), 6);
	/* In the table it was computed for, it works: the gateway's buckets
	 * are full of the attacker's entries, and it is not learned. */
	for (int i = 0; i < 6; i++)
		ASSERT_INT_EQ(mac_table_learn(t, 0, set[i], 1, 100, 0, 0), MAC_LEARN_NEW);
	ASSERT_INT_EQ(mac_table_learn(t, 0, gw, 2, 100, 0, 0), MAC_LEARN_LIMIT);
	ASSERT_INT_EQ(lookup1(t, 0, gw), MAC_TABLE_MISS);
	mac_table_free(t);
	/* In tables with other seeds, the same set does not. */
	for (uint64_t seed = 12; seed < 12 + 20; seed++) {
		t = mac_table_create_seeded(64, seed);
		CU_ASSERT_FATAL(t != NULL);
		for (int i = 0; i < 6; i++)
			mac_table_learn(t, 0, set[i], 1, 100, 0, 0);
		if (mac_table_learn(t, 0, gw, 2, 100, 0, 0) == MAC_LEARN_LIMIT ||
		    lookup1(t, 0, gw) != 2)
			missed++;
		mac_table_free(t);
	}
	ASSERT_INT_EQ(missed, 0);
}

int main(void)
{
	static const struct unit_test tests[] = {
	    {"create and free", test_create_free},
	    {"learn: new, known, moved", test_learn_new_known_moved},
	    {"learn: a full table evicts the port's own oldest", test_full_evicts_own_oldest},
	    {"learn: own MACs past limits, never crowded out or moved", test_own_macs},
	    {"learn: per-port and per-network limits", test_limits},
	    {"lookup_bulk: hits and misses", test_lookup_bulk},
	    {"same MAC in two networks is isolated", test_same_mac_two_networks},
	    {"age removes only old entries", test_age},
	    {"age across the 32-bit clock wrap", test_age_across_clock_wrap},
	    {"flush_port and flush_net", test_flush_port_and_net},
	    {"walk", test_walk},
	    {"fill past capacity", test_fill_past_capacity},
	    {"concurrent moves and bulk lookups", test_concurrent_moves},
	    {"concurrent evictions and bulk lookups", test_concurrent_evictions},
	    {"the hash is seeded per table", test_seeded_placement},
	    {"precomputed collisions do not carry to another seed",
	     test_precomputed_collisions_do_not_carry},
	    {NULL, NULL},
	};

	return unit_run("mac_table", tests);
}
