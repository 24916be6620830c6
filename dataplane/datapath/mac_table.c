/* SPDX-License-Identifier: BSD-3-Clause */
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include <rte_common.h>
#include <rte_prefetch.h>
#include <rte_spinlock.h>

#include "datapath/mac_table.h"

#define ENTRIES_PER_BUCKET 3

struct mac_entry {
	uint64_t key; /* 0: empty; else (net + 1) << 48 | MAC */
	uint16_t port;
	uint16_t pad;
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
	uint32_t mask;
	uint32_t bits;
	uint32_t count;
	rte_spinlock_t lock;
};

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
	b[0] = (uint32_t)((key * 0x9E3779B97F4A7C15ull) >> (64 - t->bits));
	b[1] = (uint32_t)((key * 0xC2B2AE3D27D4EB4Full) >> (64 - t->bits));
	if (b[1] == b[0])
		b[1] ^= 1;
}

struct mac_table *mac_table_create(uint32_t capacity)
{
	struct mac_table *t = calloc(1, sizeof(*t));
	uint32_t nb = 2;

	if (t == NULL)
		return NULL;
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
	rte_spinlock_init(&t->lock);
	return t;
}

void mac_table_free(struct mac_table *t)
{
	if (t == NULL)
		return;
	free(t->buckets);
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

static struct mac_entry *free_slot_locked(struct mac_table *t, const uint32_t bk[2],
					  struct mac_bucket **bucket, bool *evicted)
{
	struct mac_entry *oldest = NULL;

	*evicted = false;
	for (int j = 0; j < 2; j++) {
		struct mac_bucket *b = &t->buckets[bk[j]];

		for (int i = 0; i < ENTRIES_PER_BUCKET; i++) {
			if (b->e[i].key == 0) {
				*bucket = b;
				return &b->e[i];
			}
			if (oldest == NULL || b->e[i].seen < oldest->seen) {
				oldest = &b->e[i];
				*bucket = b;
			}
		}
	}
	*evicted = true;
	return oldest;
}

enum mac_learn_result mac_table_learn(struct mac_table *t, uint16_t net, const uint8_t mac[6],
				      uint16_t port, uint32_t now)
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

		if (bucket_find(cb, key, &cur) && cur.port == port) {
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

	rte_spinlock_lock(&t->lock);
	e = find_locked(t, bk, key, &b);
	if (e != NULL) {
		res = e->port == port ? MAC_LEARN_KNOWN : MAC_LEARN_MOVED;
	} else {
		e = free_slot_locked(t, bk, &b, &evicted);
		res = evicted ? MAC_LEARN_FULL : MAC_LEARN_NEW;
		if (!evicted)
			t->count++;
	}
	write_begin(b);
	e->port = port;
	e->seen = now;
	e->key = key;
	write_end(b);
	rte_spinlock_unlock(&t->lock);
	return res;
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
				write_begin(bu);
				bu->e[i].key = 0;
				write_end(bu);
				t->count--;
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
