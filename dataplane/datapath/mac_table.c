/* SPDX-License-Identifier: BSD-3-Clause */
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>

#include <rte_common.h>
#include <rte_prefetch.h>
#include <rte_random.h>
#include <rte_spinlock.h>

#include "mac_table.h"

#define ENTRIES_PER_BUCKET 3

struct mac_entry {
	uint64_t key; /* 0: empty; else (net + 1) << 48 | MAC */
	uint16_t port;
	uint16_t own; /* the port's configured MAC (mac_table_learn_own) */
	uint32_t seen;
};

/* One cache line: a sequence counter and three entries. */
struct mac_bucket {
	uint32_t seq; /* odd while a writer changes the bucket */
	uint32_t pad[3];
	struct mac_entry e[ENTRIES_PER_BUCKET];
} __rte_cache_aligned;

struct mac_table {
	struct mac_bucket *buckets;
	/* The bucket hash's multipliers (odd), drawn per table: with fixed
	 * ones a pod could compute MACs that fill a victim's (the gateway's)
	 * two buckets and keep it from ever being learned. Multiply-shift
	 * with a random odd multiplier makes two given keys collide with
	 * probability at most 2/buckets, whatever they are. */
	uint64_t mul[2];
	uint32_t mask;
	uint32_t bits;
	uint32_t count;
	rte_spinlock_t lock;
	/* Entries per port and per network (index + 1 of the key's top bits
	 * minus one), kept by writers under the lock. */
	uint32_t *per_port;
	uint32_t *per_net;
};

#define MAC_TABLE_IDS 65536 /* ports and networks are 16-bit indices */

static inline uint64_t mac_key(uint16_t net, const uint8_t m[6])
{
	return (uint64_t)(net + 1) << 48 | (uint64_t)m[0] << 40 | (uint64_t)m[1] << 32 |
	       (uint64_t)m[2] << 24 | (uint64_t)m[3] << 16 | (uint64_t)m[4] << 8 | m[5];
}

static inline void key_mac(uint64_t key, uint8_t m[6])
{
	for (int i = 0; i < 6; i++)
		m[i] = (uint8_t)(key >> (40 - 8 * i));
}

static inline void bucket_pair(const struct mac_table *t, uint64_t key, uint32_t b[2])
{
	b[0] = (uint32_t)((key * t->mul[0]) >> (64 - t->bits));
	b[1] = (uint32_t)((key * t->mul[1]) >> (64 - t->bits));
	if (b[1] == b[0])
		b[1] ^= 1;
}

static uint64_t splitmix64(uint64_t *s)
{
	uint64_t z = (*s += 0x9E3779B97F4A7C15ull);

	z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
	z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
	return z ^ (z >> 31);
}

struct mac_table *mac_table_create(uint32_t capacity)
{
	uint64_t seed;

	/* The kernel's randomness: a pod cannot guess it from the start time
	 * (rte_rand's own seed is the TSC); rte_rand when it is not there. */
	if (getrandom(&seed, sizeof(seed), GRND_NONBLOCK) != (ssize_t)sizeof(seed))
		seed = rte_rand();
	return mac_table_create_seeded(capacity, seed);
}

struct mac_table *mac_table_create_seeded(uint32_t capacity, uint64_t seed)
{
	struct mac_table *t = calloc(1, sizeof(*t));
	uint32_t nb = 2;

	if (t == NULL)
		return NULL;
	t->mul[0] = splitmix64(&seed) | 1;
	do
		t->mul[1] = splitmix64(&seed) | 1;
	while (t->mul[1] == t->mul[0]);
	while (nb * ENTRIES_PER_BUCKET < capacity && nb < (1u << 24))
		nb <<= 1;
	t->bits = (uint32_t)__builtin_ctz(nb);
	t->mask = nb - 1;
	t->buckets = aligned_alloc(RTE_CACHE_LINE_SIZE, nb * sizeof(struct mac_bucket));
	if (t->buckets == NULL) {
		free(t);
		return NULL;
	}
	memset(t->buckets, 0, nb * sizeof(struct mac_bucket));
	t->per_port = calloc(MAC_TABLE_IDS, sizeof(uint32_t));
	t->per_net = calloc(MAC_TABLE_IDS, sizeof(uint32_t));
	if (t->per_port == NULL || t->per_net == NULL) {
		mac_table_free(t);
		return NULL;
	}
	rte_spinlock_init(&t->lock);
	return t;
}

void mac_table_free(struct mac_table *t)
{
	if (t == NULL)
		return;
	free(t->buckets);
	free(t->per_port);
	free(t->per_net);
	free(t);
}

/* Lock-free read of one bucket: the entry for key, copied out. */
static bool bucket_find(const struct mac_bucket *b, uint64_t key, struct mac_entry *out)
{
	uint32_t s;
	bool found;

	do {
		while ((s = __atomic_load_n(&b->seq, __ATOMIC_ACQUIRE)) & 1)
			rte_pause();
		found = false;
		for (int i = 0; i < ENTRIES_PER_BUCKET; i++) {
			if (b->e[i].key == key) {
				*out = b->e[i];
				found = true;
				break;
			}
		}
		__atomic_thread_fence(__ATOMIC_ACQUIRE);
	} while (__atomic_load_n(&b->seq, __ATOMIC_RELAXED) != s);
	return found;
}

static inline void write_begin(struct mac_bucket *b)
{
	__atomic_store_n(&b->seq, b->seq + 1, __ATOMIC_RELAXED);
	__atomic_thread_fence(__ATOMIC_RELEASE);
}

static inline void write_end(struct mac_bucket *b)
{
	__atomic_store_n(&b->seq, b->seq + 1, __ATOMIC_RELEASE);
}

static struct mac_entry *find_locked(struct mac_table *t, const uint32_t bk[2], uint64_t key,
				     struct mac_bucket **bucket)
{
	for (int j = 0; j < 2; j++) {
		struct mac_bucket *b = &t->buckets[bk[j]];

		for (int i = 0; i < ENTRIES_PER_BUCKET; i++)
			if (b->e[i].key == key) {
				*bucket = b;
				return &b->e[i];
			}
	}
	return NULL;
}

/* A free slot for key, or else the oldest entry that may give way: for
 * a port's ordinary learning, one of its own learned entries (a port may
 * replace its own entries, never another's: a pod sending from many MACs
 * cannot push other pods out); for a port's own MAC, any learned entry
 * (an own MAC always has a place). Own entries never give way. NULL when
 * nothing can. */
static struct mac_entry *free_slot_locked(struct mac_table *t, const uint32_t bk[2], uint16_t port,
					  bool own, struct mac_bucket **bucket, bool *evicted)
{
	struct mac_entry *oldest = NULL;

	*evicted = false;
	for (int j = 0; j < 2; j++) {
		struct mac_bucket *b = &t->buckets[bk[j]];

		for (int i = 0; i < ENTRIES_PER_BUCKET; i++) {
			const struct mac_entry *e = &b->e[i];

			if (e->key == 0) {
				*bucket = b;
				return &b->e[i];
			}
			if (!e->own && (own || e->port == port) &&
			    (oldest == NULL || e->seen < oldest->seen)) {
				oldest = &b->e[i];
				*bucket = b;
			}
		}
	}
	*evicted = oldest != NULL;
	return oldest;
}

static inline uint16_t key_net(uint64_t key)
{
	return (uint16_t)((key >> 48) - 1);
}

/* Counts an entry in or out of its port's and network's totals. */
static inline void count_locked(struct mac_table *t, const struct mac_entry *e, int d)
{
	t->per_port[e->port] += (uint32_t)d;
	t->per_net[key_net(e->key)] += (uint32_t)d;
	t->count += (uint32_t)d;
}

static enum mac_learn_result learn(struct mac_table *t, uint16_t net, const uint8_t mac[6],
				   uint16_t port, uint32_t now, uint32_t port_limit,
				   uint32_t net_limit, bool own)
{
	uint64_t key = mac_key(net, mac);
	enum mac_learn_result res;
	struct mac_bucket *b = NULL;
	struct mac_entry cur, *e;
	uint32_t bk[2];
	bool evicted;

	bucket_pair(t, key, bk);
	for (int j = 0; j < 2; j++) {
		struct mac_bucket *cb = &t->buckets[bk[j]];

		if (bucket_find(cb, key, &cur) && cur.port == port && cur.own >= own) {
			if (cur.seen != now) {
				/* A racing writer may drop this refresh; aging then
				 * removes an entry a second early at worst. */
				for (int i = 0; i < ENTRIES_PER_BUCKET; i++)
					if (cb->e[i].key == key)
						cb->e[i].seen = now;
			}
			return MAC_LEARN_KNOWN;
		}
	}

	/* Over its limit, a port learns nothing new: checked before the lock
	 * too, so a pod flooding new source MACs does not make every frame
	 * take it. */
	if (port_limit != 0 && __atomic_load_n(&t->per_port[port], __ATOMIC_RELAXED) >= port_limit)
		return MAC_LEARN_LIMIT;
	rte_spinlock_lock(&t->lock);
	e = find_locked(t, bk, key, &b);
	if (e != NULL) {
		if (e->port == port) {
			res = MAC_LEARN_KNOWN;
		} else if (e->own && !own) {
			/* Another port's configured MAC: a frame from it elsewhere
			 * (a loop, a spoofer on a port without port security)
			 * does not take it away. */
			rte_spinlock_unlock(&t->lock);
			return MAC_LEARN_OWNED;
		} else {
			res = MAC_LEARN_MOVED;
			count_locked(t, e, -1);
		}
	} else if (net_limit != 0 && t->per_net[net] >= net_limit) {
		e = NULL;
		res = MAC_LEARN_LIMIT;
	} else {
		e = free_slot_locked(t, bk, port, own, &b, &evicted);
		res = e == NULL ? MAC_LEARN_LIMIT : evicted ? MAC_LEARN_FULL : MAC_LEARN_NEW;
		if (e != NULL && evicted)
			count_locked(t, e, -1);
	}
	if (e == NULL ||
	    (port_limit != 0 && res != MAC_LEARN_KNOWN && t->per_port[port] >= port_limit)) {
		/* What was taken out of the counts stays where it was. */
		if (e != NULL && (res == MAC_LEARN_MOVED || res == MAC_LEARN_FULL))
			count_locked(t, e, +1);
		rte_spinlock_unlock(&t->lock);
		return MAC_LEARN_LIMIT;
	}
	write_begin(b);
	e->port = port;
	e->own = own;
	e->seen = now;
	e->key = key;
	write_end(b);
	if (res != MAC_LEARN_KNOWN)
		count_locked(t, e, +1);
	rte_spinlock_unlock(&t->lock);
	return res;
}

enum mac_learn_result mac_table_learn(struct mac_table *t, uint16_t net, const uint8_t mac[6],
				      uint16_t port, uint32_t now, uint32_t port_limit,
				      uint32_t net_limit)
{
	return learn(t, net, mac, port, now, port_limit, net_limit, false);
}

enum mac_learn_result mac_table_learn_own(struct mac_table *t, uint16_t net, const uint8_t mac[6],
					  uint16_t port, uint32_t now)
{
	return learn(t, net, mac, port, now, 0, 0, true);
}

void mac_table_buckets(const struct mac_table *t, uint16_t net, const uint8_t mac[6], uint32_t b[2])
{
	bucket_pair(t, mac_key(net, mac), b);
}

void mac_table_lookup_bulk(const struct mac_table *t, uint16_t net, const uint8_t *const macs[],
			   unsigned int n, uint16_t ports[])
{
	uint64_t keys[n];
	uint32_t bk[n][2];
	struct mac_entry e;

	for (unsigned int i = 0; i < n; i++) {
		keys[i] = mac_key(net, macs[i]);
		bucket_pair(t, keys[i], bk[i]);
		rte_prefetch0(&t->buckets[bk[i][0]]);
	}
	for (unsigned int i = 0; i < n; i++) {
		ports[i] = MAC_TABLE_MISS;
		if (bucket_find(&t->buckets[bk[i][0]], keys[i], &e) ||
		    bucket_find(&t->buckets[bk[i][1]], keys[i], &e))
			ports[i] = e.port;
	}
}

typedef bool (*entry_pred)(const struct mac_entry *e, uint64_t a, uint64_t b);

/* Scans without the lock (the table is 2 MiB by default, and workers that
 * learn a new MAC must not wait for a whole scan); locks per removal and
 * checks the entry again under the lock. */
static unsigned int remove_if(struct mac_table *t, entry_pred pred, uint64_t a, uint64_t b)
{
	unsigned int removed = 0;

	for (uint32_t k = 0; k <= t->mask; k++) {
		struct mac_bucket *bu = &t->buckets[k];

		for (int i = 0; i < ENTRIES_PER_BUCKET; i++) {
			struct mac_entry e = bu->e[i];

			if (e.key == 0 || !pred(&e, a, b))
				continue;
			rte_spinlock_lock(&t->lock);
			if (bu->e[i].key != 0 && pred(&bu->e[i], a, b)) {
				count_locked(t, &bu->e[i], -1);
				write_begin(bu);
				bu->e[i].key = 0;
				write_end(bu);
				removed++;
			}
			rte_spinlock_unlock(&t->lock);
		}
	}
	return removed;
}

static bool is_old(const struct mac_entry *e, uint64_t now, uint64_t max_age)
{
	return (uint32_t)((uint32_t)now - e->seen) >= (uint32_t)max_age;
}

static bool on_port(const struct mac_entry *e, uint64_t port, uint64_t unused)
{
	RTE_SET_USED(unused);
	return e->port == port;
}

static bool in_net(const struct mac_entry *e, uint64_t net, uint64_t unused)
{
	RTE_SET_USED(unused);
	return (e->key >> 48) == net + 1;
}

unsigned int mac_table_age(struct mac_table *t, uint32_t now, uint32_t max_age)
{
	return remove_if(t, is_old, now, max_age);
}

unsigned int mac_table_flush_port(struct mac_table *t, uint16_t port)
{
	return remove_if(t, on_port, port, 0);
}

unsigned int mac_table_flush_net(struct mac_table *t, uint16_t net)
{
	return remove_if(t, in_net, net, 0);
}

unsigned int mac_table_count(const struct mac_table *t)
{
	return __atomic_load_n(&t->count, __ATOMIC_RELAXED);
}

unsigned int mac_table_port_count(const struct mac_table *t, uint16_t port)
{
	return __atomic_load_n(&t->per_port[port], __ATOMIC_RELAXED);
}

unsigned int mac_table_net_count(const struct mac_table *t, uint16_t net)
{
	return __atomic_load_n(&t->per_net[net], __ATOMIC_RELAXED);
}

void mac_table_walk(const struct mac_table *t, uint16_t net, mac_table_walk_cb cb, void *arg)
{
	for (uint32_t k = 0; k <= t->mask; k++) {
		const struct mac_bucket *bu = &t->buckets[k];

		for (int i = 0; i < ENTRIES_PER_BUCKET; i++) {
			struct mac_entry e = bu->e[i];
			uint8_t mac[6];

			if (e.key == 0)
				continue;
			if (net != UINT16_MAX && (e.key >> 48) != (uint64_t)net + 1)
				continue;
			key_mac(e.key, mac);
			cb((uint16_t)((e.key >> 48) - 1), mac, e.port, e.seen, arg);
		}
	}
}
