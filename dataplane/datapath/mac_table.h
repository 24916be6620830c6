/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * MAC learning table shared by every bridge network: key (network, MAC),
 * value the port index. Workers learn and look up; the control thread ages
 * and flushes.
 *
 * Readers take no lock: each bucket has a sequence counter (seqlock) that
 * writers bump around changes, and readers retry on a change. Writers (a
 * new or moved MAC, aging, flushes) serialise on one spinlock; they are
 * rare compared with lookups, and a known MAC on its known port costs a
 * read and, at most once per second, one store of the timestamp.
 */
#ifndef PODWIRE_MAC_TABLE_H
#define PODWIRE_MAC_TABLE_H

#include <stdint.h>

#define MAC_TABLE_MISS UINT16_MAX

struct mac_table;

/* capacity: entries wanted; rounded up. Returns NULL on allocation failure.
 * The bucket hash is seeded from the kernel's randomness, per table: where
 * a MAC lands differs from one start of podwired to the next. */
struct mac_table *mac_table_create(uint32_t capacity);
/* The same with a given seed: the same seed, the same placement (tests). */
struct mac_table *mac_table_create_seeded(uint32_t capacity, uint64_t seed);
/* The two buckets mac of net may live in (tests, diagnostics). */
void mac_table_buckets(const struct mac_table *t, uint16_t net, const uint8_t mac[6],
		       uint32_t b[2]);
void mac_table_free(struct mac_table *t);

enum mac_learn_result {
	MAC_LEARN_KNOWN = 0, /* same port, only the timestamp refreshed */
	MAC_LEARN_NEW,
	MAC_LEARN_MOVED,
	MAC_LEARN_FULL,	 /* both buckets full: the port's own oldest entry there was replaced */
	MAC_LEARN_LIMIT, /* not learned: the port or network is at its limit, or both
			    buckets are full of other ports' entries */
	MAC_LEARN_OWNED, /* not moved: it is another port's own MAC */
};

/* Learns mac on port at time now (seconds). Any thread. A port holds at
 * most port_limit entries and a network net_limit (0: no limit); a port
 * only ever replaces its own entries. */
enum mac_learn_result mac_table_learn(struct mac_table *t, uint16_t net, const uint8_t mac[6],
				      uint16_t port, uint32_t now, uint32_t port_limit,
				      uint32_t net_limit);

/* Learns one of port's own MACs (its configured MAC, or one it is
 * allowed): never refused for a limit, never moved by another port's
 * ordinary learning, never replaced; where both buckets are full it
 * replaces the oldest learned (not own) entry of any port. A port has a
 * handful at most, so the limits stay meaningful. */
enum mac_learn_result mac_table_learn_own(struct mac_table *t, uint16_t net, const uint8_t mac[6],
					  uint16_t port, uint32_t now);

/* Looks up n MACs of one network; ports[i] is the port or MAC_TABLE_MISS.
 * Any thread, lock-free. */
void mac_table_lookup_bulk(const struct mac_table *t, uint16_t net, const uint8_t *const macs[],
			   unsigned int n, uint16_t ports[]);

/* Removes entries not seen for max_age seconds; returns how many. */
unsigned int mac_table_age(struct mac_table *t, uint32_t now, uint32_t max_age);
/* Removes every entry on port, or of net; returns how many. */
unsigned int mac_table_flush_port(struct mac_table *t, uint16_t port);
unsigned int mac_table_flush_net(struct mac_table *t, uint16_t net);

unsigned int mac_table_count(const struct mac_table *t);
/* Entries learned on a port, or in a network. */
unsigned int mac_table_port_count(const struct mac_table *t, uint16_t port);
unsigned int mac_table_net_count(const struct mac_table *t, uint16_t net);

typedef void (*mac_table_walk_cb)(uint16_t net, const uint8_t mac[6], uint16_t port, uint32_t seen,
				  void *arg);
/* Calls cb for each entry (of net, or all when net is UINT16_MAX).
 * Control thread only; entries may change under it. */
void mac_table_walk(const struct mac_table *t, uint16_t net, mac_table_walk_cb cb, void *arg);

#endif
