/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * permit+reflect sessions (session.h): one table per worker, written only
 * by its worker, read by all without locks.
 *
 * Why not rte_hash with RTE_HASH_EXTRA_FLAGS_RW_CONCURRENCY_LF: measured
 * by podwire-sessioncost (perf/session_cost.c: 100,000 flows, 2 worker
 * tables, cycles per frame, median of 679 slices, EPYC VM shared with
 * other work; its cost without making its key):
 *
 *                              these tables    rte_hash LF
 *   reply, in own table             540            291
 *   reply, in the other table       574            555
 *   no reply (both tables)          342            321
 *   add (new flow)                  249            158
 *   refresh (flow recorded)         580              -
 *   bulk of 32, per flow        218 (both tables)  116 (one table)
 *   bulk refresh of 32              147              -
 *
 * rte_hash finds a key in the caller's own table faster (its cuckoo
 * moves keep its buckets full: half the bucket lines of these, so more
 * of them stay in cache); where the reply is in another worker's table (the usual
 * case: replies come in on the worker polling the other pod) or is none,
 * the two are even, and per burst (the _bulk calls) within 2x while
 * asking every table. What rte_hash cannot give at any price: reuse of an
 * ended session in place by its owner (rte_hash frees a key slot through
 * delete plus an RCU grace period, an rte_rcu_qsbr reclaim on every
 * worker's path), a refresh stored by whichever worker saw the reply (its
 * data is written only through its writer), the end of a port's sessions
 * without a walk, and a keyed hash (rte_hash_crc with a random seed is
 * linear: flows that collide under one seed collide under all).
 *
 * The table: an array of entries (64 bytes, one cache line: the key, a
 * sequence counter, the last time it was used, the port's generation)
 * and an index of buckets (64 bytes: 8 slots of a 32-bit signature and an
 * entry number). A key may live in two buckets (chosen by two hashes);
 * new keys go to the emptier one; nothing ever moves, so a live session
 * stays where a reader looks for it all its life. Buckets are sized for
 * at most half their slots used at the bound, so a flow finds room unless
 * the table is full (16 bytes of buckets per session, 80 bytes in all;
 * at a quarter, lookups at 100,000 flows cost ~18% more). A lookup costs
 * the hash, two bucket lines (for every worker's table: replies try all,
 * their buckets prefetched together) and one entry line per signature
 * hit.
 *
 * Readers and the owner: the entry's sequence counter is odd while the
 * owner writes its key (a new session, or an ended one reused in place);
 * a reader reads the counter (acquire), the key, then the counter again
 * after a read barrier and believes the key only if the two are equal and
 * even. A bucket slot is only a hint (which entry to look at): the key
 * read under the counter decides. Entries are never freed while the
 * tables exist, so a stale slot points at valid memory. The key of a live
 * session is never rewritten (only ended ones are reused), so a reader
 * never misses one because of a writer, and cannot see half of two keys.
 *
 * Refreshing: a hit stores the frame's TSC in the entry's `last` with a
 * plain store, from whichever worker saw it, and only when it moved by
 * more than ~1 ms (no line written back and forth per frame). Two workers
 * storing at once both store "about now": whichever lands, the session
 * lives from about now. A reader's store may land on an entry its owner
 * reused meanwhile for a new flow (the old one ended by the owner's clock
 * but not by the reader's slightly older one): the new flow then looks
 * started a burst earlier, no more.
 *
 * Ended sessions: idle past the timeout of their protocol class (global,
 * read at each check, so a change applies at once), or of a port whose
 * generation moved on (acl_sessions_flush_port: the control thread only
 * bumps the port's generation; the owner stays the only writer). The
 * owner takes free entries while there are any (a recorded flow's next
 * frame reads only the entry its signature names); when they run out it
 * reuses an ended entry it finds in the new flow's two buckets, else
 * sweeps the next 256 (from a cursor going round) to free ended ones, and
 * after a sweep that finds none it does neither for ~1 ms, so a flood of
 * new flows against a full table of live sessions costs two bucket reads
 * per frame, not a scan. So `full` may count a flow refused while ended
 * sessions remain beyond that window, in a table whose entries are all
 * taken; the flow's next frame tries again (the next window).
 *
 * Hostile flows: any 40 bytes of key are a key. The bucket hashes are
 * Thorup's pair-multiply-shift with random 64-bit multipliers drawn at
 * init from the kernel: two distinct keys share a bucket with
 * probability about 2/buckets whatever they are, so nobody can aim flows
 * at one bucket without the multipliers; the sums are then mixed (a
 * bijection: no new collisions) so that flows in a row do not fill buckets
 * in step. (A CRC with a random seed would not do: CRC is linear, so two
 * keys that collide under one seed collide under all.) Probes are
 * bounded: 2 buckets of 8 slots.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/random.h>
#include <time.h>

#include <rte_branch_prediction.h>
#include <rte_common.h>
#include <rte_cycles.h>
#include <rte_pause.h>
#include <rte_prefetch.h>
#include <rte_random.h>

#include "acl/session.h"
#include "core/limits.h"
#include "core/log.h"

PW_LOG_TYPE("acl");

#define SLOTS	    8
#define KEY_V6	    0x01
#define KEY_EGRESS  0x02
#define KEY_FREE    0x80 /* an entry on the free list: matches no lookup */
#define HASH_WORDS  10	 /* 40 bytes of key in 32-bit words */
#define SWEEP_SLICE 256	 /* entries a sweep looks at, at most */
#define SWEEP_STOCK 8	 /* ended ones it frees, at most */
#define PORT_IDS    65536

enum sess_class { CLASS_TCP, CLASS_UDP, CLASS_OTHER, CLASS_MAX };

union sess_key {
	struct {
		uint8_t src[16], dst[16];
		uint16_t sport, dport;
		uint16_t port;
		uint8_t proto;
		uint8_t flags; /* KEY_V6, KEY_EGRESS, KEY_FREE */
	};
	uint64_t q[5];
	uint32_t w[HASH_WORDS];
};

struct sess_entry {
	uint32_t seq;  /* odd while the owner writes the key */
	uint32_t gen;  /* the port's generation when recorded */
	uint64_t last; /* TSC of the last frame either way; any worker stores */
	union sess_key key;
	uint32_t slot; /* owner: bucket * SLOTS + slot index */
	uint32_t next; /* owner: free list */
} __rte_aligned(64);

struct sess_bucket {
	uint32_t sig[SLOTS]; /* 0: empty */
	uint32_t idx[SLOTS];
} __rte_aligned(64);

struct sess_table {
	/* Read by every worker. */
	struct sess_bucket *b;
	struct sess_entry *e;
	/* The owner's; top is read by the stats scan. */
	uint32_t top;  /* entries handed out so far: [0, top) */
	uint32_t free; /* free list head, UINT32_MAX: none */
	uint64_t sweep_after;
	uint32_t cursor;
	/* Counters: the owner writes, the control thread reads. */
	uint64_t created, expired, full;
} __rte_cache_aligned;

struct sess_hash {
	uint32_t b[2];
	uint32_t sig;
};

static struct {
	struct sess_table *t;
	unsigned int n;
	uint32_t max;
	uint32_t bits; /* log2 of buckets per table */
	uint64_t mul[2][HASH_WORDS + 1];
	uint64_t hz;
	uint64_t gran;		 /* the least change of `last` worth a store */
	uint64_t tmo[CLASS_MAX]; /* ticks; the control thread stores, workers load */
	uint32_t tmo_s[CLASS_MAX];
	uint32_t *port_gen; /* per port index; the control thread bumps */
} S;

static inline enum sess_class key_class(uint8_t proto)
{
	return proto == 6 ? CLASS_TCP : proto == 17 ? CLASS_UDP : CLASS_OTHER;
}

/* f's key; reverse: the key of the flow f replies to. */
static inline void key_make(union sess_key *k, const struct acl_flow *f, bool reverse)
{
	unsigned int alen = f->v6 ? 16 : 4;
	bool egress = f->dir != ACL_SESSION_INGRESS;

	memset(k, 0, sizeof(*k));
	memcpy(reverse ? k->dst : k->src, f->src, alen);
	memcpy(reverse ? k->src : k->dst, f->dst, alen);
	k->proto = f->proto;
	/* ICMP: the reply's type differs from the request's, and the
	 * identifier is not a port; per protocol and address pair. */
	if (f->proto != 1 && f->proto != 58) {
		k->sport = reverse ? f->dport : f->sport;
		k->dport = reverse ? f->sport : f->dport;
	}
	k->port = f->port;
	k->flags = (uint8_t)((f->v6 ? KEY_V6 : 0) | ((egress != reverse) ? KEY_EGRESS : 0));
}

/* MurmurHash3's 64-bit finaliser: every input bit reaches every output
 * bit. */
static inline uint64_t mix64(uint64_t x)
{
	x ^= x >> 33;
	x *= 0xff51afd7ed558ccdull;
	x ^= x >> 33;
	x *= 0xc4ceb9fe1a85ec53ull;
	return x ^ (x >> 33);
}

static inline void key_hash(const union sess_key *k, struct sess_hash *h)
{
	uint64_t s0 = S.mul[0][HASH_WORDS], s1 = S.mul[1][HASH_WORDS];

	/* The top bits of b + sum((a_2i + w_2i+1) * (a_2i+1 + w_2i)) mod 2^64
	 * are a 2-universal hash of the 32-bit words w_i, for any key, with
	 * random 64-bit a_i and b (Thorup, "High speed hashing for integers
	 * and strings": pair-multiply-shift; half the multiplications of
	 * Dietzfelbinger's vector multiply-shift). */
	for (unsigned int i = 0; i < HASH_WORDS; i += 2) {
		s0 += (S.mul[0][i] + k->w[i + 1]) * (S.mul[0][i + 1] + k->w[i]);
		s1 += (S.mul[1][i] + k->w[i + 1]) * (S.mul[1][i + 1] + k->w[i]);
	}
	/* Then mixed: the sums of flows that differ in one field (a port
	 * scan, consecutive addresses) step through an arithmetic
	 * progression, whose top bits fill two buckets in step; with some
	 * multipliers, choices of two then overflowed at a third of the
	 * slots used. A bijection keeps distinct sums distinct. */
	s0 = mix64(s0);
	s1 = mix64(s1);
	h->b[0] = (uint32_t)(s0 >> (64 - S.bits));
	h->b[1] = (uint32_t)(s1 >> (64 - S.bits));
	if (h->b[1] == h->b[0])
		h->b[1] ^= 1;
	/* The signature only saves entry reads; bits below the buckets'. */
	h->sig = (uint32_t)(s0 >> 16) ^ (uint32_t)(s1 >> 32);
	if (h->sig == 0)
		h->sig = 1;
}

static inline bool key_eq(const union sess_key *a, const union sess_key *b)
{
	return ((a->q[0] ^ b->q[0]) | (a->q[1] ^ b->q[1]) | (a->q[2] ^ b->q[2]) |
		(a->q[3] ^ b->q[3]) | (a->q[4] ^ b->q[4])) == 0;
}

/* Whether an entry with this key, generation and last use has ended. */
static inline bool ended(const union sess_key *k, uint32_t gen, uint64_t last, uint64_t now)
{
	uint64_t tmo = __atomic_load_n(&S.tmo[key_class(k->proto)], __ATOMIC_RELAXED);

	return gen != __atomic_load_n(&S.port_gen[k->port], __ATOMIC_RELAXED) ||
	       (int64_t)(now - last) > (int64_t)tmo;
}

/* Any worker may store it (a reply's refresh): read it as such. */
static inline uint64_t last_of(const struct sess_entry *e)
{
	return __atomic_load_n(&e->last, __ATOMIC_RELAXED);
}

static inline void refresh(struct sess_entry *e, uint64_t last, uint64_t now)
{
	if ((int64_t)(now - last) > (int64_t)S.gran)
		__atomic_store_n(&e->last, now, __ATOMIC_RELAXED);
}

/* ---- owner's writes ---------------------------------------------------------- */

static inline void write_begin(struct sess_entry *e)
{
	__atomic_store_n(&e->seq, e->seq + 1, __ATOMIC_RELAXED);
	rte_smp_wmb();
}

static inline void write_end(struct sess_entry *e)
{
	rte_smp_wmb();
	__atomic_store_n(&e->seq, e->seq + 1, __ATOMIC_RELAXED);
}

static inline void entry_set(struct sess_entry *e, const union sess_key *k, uint32_t gen,
			     uint64_t now)
{
	write_begin(e);
	e->key = *k;
	e->gen = gen;
	__atomic_store_n(&e->last, now, __ATOMIC_RELAXED);
	write_end(e);
}

/* Frees ended sessions among the next SWEEP_SLICE entries from the cursor
 * (SWEEP_STOCK of them at most): their slots emptied, the entries to the
 * free list. A full table of live sessions is not looked at again for
 * ~1 ms. */
static void sweep(struct sess_table *t, uint64_t now)
{
	unsigned int found = 0;

	for (unsigned int n = 0; n < SWEEP_SLICE && n < t->top && found < SWEEP_STOCK; n++) {
		uint32_t i = t->cursor;
		struct sess_entry *e = &t->e[i];

		t->cursor = i + 1 == t->top ? 0 : i + 1;
		if (e->key.flags & KEY_FREE || !ended(&e->key, e->gen, last_of(e), now))
			continue;
		__atomic_store_n(&t->b[e->slot / SLOTS].sig[e->slot % SLOTS], 0, __ATOMIC_RELAXED);
		write_begin(e);
		e->key.flags |= KEY_FREE;
		write_end(e);
		e->next = t->free;
		t->free = i;
		t->expired++;
		found++;
	}
	if (found == 0)
		t->sweep_after = now + S.gran;
}

static uint32_t entry_alloc(struct sess_table *t, uint64_t now)
{
	uint32_t i;

	if (t->free == UINT32_MAX && t->top < S.max)
		return t->top++;
	if (t->free == UINT32_MAX && (int64_t)(now - t->sweep_after) >= 0)
		sweep(t, now);
	i = t->free;
	if (i != UINT32_MAX)
		t->free = t->e[i].next;
	return i;
}

/* An ended session's entry in the two buckets of h, or NULL. */
static struct sess_entry *victim_find(struct sess_table *t, const struct sess_hash *h, uint64_t now)
{
	for (unsigned int j = 0; j < 2; j++) {
		const struct sess_bucket *b = &t->b[h->b[j]];

		for (unsigned int s = 0; s < SLOTS; s++) {
			struct sess_entry *e = &t->e[b->idx[s]];

			if (b->sig[s] != 0 && ended(&e->key, e->gen, last_of(e), now))
				return e;
		}
	}
	return NULL;
}

static int add_hashed(struct sess_table *t, const union sess_key *k, const struct sess_hash *h,
		      uint64_t now)
{
	uint32_t empty[2] = {UINT32_MAX, UINT32_MAX}, used[2] = {0, 0};
	struct sess_entry *victim;
	uint32_t gen, i, slot;

	gen = __atomic_load_n(&S.port_gen[k->port], __ATOMIC_RELAXED);
	/* The flow itself: entries are read only where the signature says
	 * (a recorded flow's next frame, the common case, reads one). */
	for (unsigned int j = 0; j < 2; j++) {
		const struct sess_bucket *b = &t->b[h->b[j]];

		for (unsigned int s = 0; s < SLOTS; s++) {
			struct sess_entry *e;

			if (b->sig[s] == 0) {
				if (empty[j] == UINT32_MAX)
					empty[j] = h->b[j] * SLOTS + s;
				continue;
			}
			used[j]++;
			if (b->sig[s] != h->sig)
				continue;
			e = &t->e[b->idx[s]];
			if (!key_eq(&e->key, k))
				continue;
			if (!ended(&e->key, e->gen, last_of(e), now)) {
				refresh(e, last_of(e), now);
				return 0;
			}
			victim = e; /* the same flow again, after it ended */
			goto reuse;
		}
	}
	/* A new flow: a free entry in the emptier bucket (two choices keep
	 * the fullest bucket near the mean); where entries or slots run out,
	 * an ended session in the flow's buckets is reused in place. */
	slot = used[1] < used[0] || empty[0] == UINT32_MAX ? empty[1] : empty[0];
	if (slot != UINT32_MAX && (t->free != UINT32_MAX || t->top < S.max)) {
		i = entry_alloc(t, now);
		goto fresh;
	}
	/* Not while the last sweep found the table full of live sessions: a
	 * flood of new flows then costs their buckets, not their entries. */
	victim = (int64_t)(now - t->sweep_after) < 0 ? NULL : victim_find(t, h, now);
	if (victim != NULL) {
	reuse:
		entry_set(victim, k, gen, now);
		__atomic_store_n(&t->b[victim->slot / SLOTS].sig[victim->slot % SLOTS], h->sig,
				 __ATOMIC_RELEASE);
		t->expired++;
		t->created++;
		return 0;
	}
	if (slot == UINT32_MAX || (i = entry_alloc(t, now)) == UINT32_MAX) {
		t->full++;
		return -ENOSPC;
	}
fresh:
	entry_set(&t->e[i], k, gen, now);
	t->e[i].slot = slot;
	/* The entry first, then its slot: a reader that finds the slot finds
	 * the key (and checks it anyway). */
	__atomic_store_n(&t->b[slot / SLOTS].idx[slot % SLOTS], i, __ATOMIC_RELAXED);
	__atomic_store_n(&t->b[slot / SLOTS].sig[slot % SLOTS], h->sig, __ATOMIC_RELEASE);
	t->created++;
	return 0;
}

int acl_session_add(unsigned int w, const struct acl_flow *f, uint64_t now)
{
	struct sess_hash h;
	union sess_key k;

	if (unlikely(w >= S.n))
		return -ENOSPC;
	key_make(&k, f, false);
	key_hash(&k, &h);
	return add_hashed(&S.t[w], &k, &h, now);
}

uint64_t acl_session_add_bulk(unsigned int w, const struct acl_flow *const f[], unsigned int n,
			      uint64_t now)
{
	union sess_key k[ACL_SESSION_BULK];
	struct sess_hash h[ACL_SESSION_BULK];
	struct sess_table *t;
	uint64_t refused = 0;

	if (unlikely(w >= S.n || n > ACL_SESSION_BULK))
		return n >= 64 ? UINT64_MAX : (1ull << n) - 1;
	t = &S.t[w];
	/* As acl_session_reply_bulk: the buckets of all, their entries, then
	 * the adds in the flows' order. */
	for (unsigned int i = 0; i < n; i++) {
		key_make(&k[i], f[i], false);
		key_hash(&k[i], &h[i]);
		rte_prefetch0(&t->b[h[i].b[0]]);
		rte_prefetch0(&t->b[h[i].b[1]]);
	}
	for (unsigned int i = 0; i < n; i++)
		for (unsigned int j = 0; j < 2; j++) {
			const struct sess_bucket *b = &t->b[h[i].b[j]];

			for (unsigned int s = 0; s < SLOTS; s++)
				if (b->sig[s] == h[i].sig)
					rte_prefetch0(&t->e[b->idx[s]]);
		}
	for (unsigned int i = 0; i < n; i++)
		if (add_hashed(t, &k[i], &h[i], now) != 0)
			refused |= 1ull << i;
	return refused;
}

/* ---- readers ------------------------------------------------------------------- */

/* The live entry of k in t, or NULL. Any thread. */
static inline struct sess_entry *table_find(const struct sess_table *t, const union sess_key *k,
					    const struct sess_hash *h, uint64_t now, uint64_t *last)
{
	for (unsigned int j = 0; j < 2; j++) {
		const struct sess_bucket *b = &t->b[h->b[j]];

		for (unsigned int s = 0; s < SLOTS; s++) {
			struct sess_entry *e;
			uint32_t seq, gen;
			bool eq;

			if (__atomic_load_n(&b->sig[s], __ATOMIC_ACQUIRE) != h->sig)
				continue;
			e = &t->e[__atomic_load_n(&b->idx[s], __ATOMIC_RELAXED)];
			seq = __atomic_load_n(&e->seq, __ATOMIC_ACQUIRE);
			if (seq & 1)
				continue; /* being written: a flow not yet (or no longer) live */
			eq = key_eq(&e->key, k);
			gen = e->gen;
			*last = __atomic_load_n(&e->last, __ATOMIC_RELAXED);
			rte_smp_rmb();
			if (__atomic_load_n(&e->seq, __ATOMIC_RELAXED) != seq || !eq)
				continue;
			/* A key is in one slot at most: this is it, live or not. */
			return ended(k, gen, *last, now) ? NULL : e;
		}
	}
	return NULL;
}

bool acl_session_reply(unsigned int w, const struct acl_flow *f, uint64_t now)
{
	struct sess_entry *e;
	struct sess_hash h;
	union sess_key k;
	uint64_t last;

	if (unlikely(w >= S.n))
		return false;
	key_make(&k, f, true);
	key_hash(&k, &h);
	/* Every table's two buckets are wanted unless the caller's hits. */
	for (unsigned int i = 0; i < S.n; i++) {
		rte_prefetch0(&S.t[i].b[h.b[0]]);
		rte_prefetch0(&S.t[i].b[h.b[1]]);
	}
	e = table_find(&S.t[w], &k, &h, now, &last);
	for (unsigned int i = 0; e == NULL && i < S.n; i++)
		if (i != w)
			e = table_find(&S.t[i], &k, &h, now, &last);
	if (e == NULL)
		return false;
	refresh(e, last, now);
	return true;
}

void acl_session_reply_bulk(unsigned int w, const struct acl_flow *const f[], unsigned int n,
			    uint64_t now, uint64_t *hits)
{
	union sess_key k[ACL_SESSION_BULK];
	struct sess_hash h[ACL_SESSION_BULK];
	uint64_t last, found = 0;

	if (unlikely(w >= S.n || n > ACL_SESSION_BULK)) {
		*hits = 0;
		return;
	}
	/* Three passes, so that the misses of one flow overlap those of the
	 * others: every table's two buckets of every flow, then the entries
	 * their signatures name, then the look-ups proper, in cache. */
	for (unsigned int i = 0; i < n; i++) {
		key_make(&k[i], f[i], true);
		key_hash(&k[i], &h[i]);
		for (unsigned int t = 0; t < S.n; t++) {
			rte_prefetch0(&S.t[t].b[h[i].b[0]]);
			rte_prefetch0(&S.t[t].b[h[i].b[1]]);
		}
	}
	for (unsigned int i = 0; i < n; i++)
		for (unsigned int t = 0; t < S.n; t++)
			for (unsigned int j = 0; j < 2; j++) {
				const struct sess_bucket *b = &S.t[t].b[h[i].b[j]];

				for (unsigned int s = 0; s < SLOTS; s++)
					if (__atomic_load_n(&b->sig[s], __ATOMIC_RELAXED) ==
					    h[i].sig)
						rte_prefetch0(&S.t[t].e[__atomic_load_n(
						    &b->idx[s], __ATOMIC_RELAXED)]);
			}
	for (unsigned int i = 0; i < n; i++) {
		struct sess_entry *e = table_find(&S.t[w], &k[i], &h[i], now, &last);

		for (unsigned int t = 0; e == NULL && t < S.n; t++)
			if (t != w)
				e = table_find(&S.t[t], &k[i], &h[i], now, &last);
		if (e != NULL) {
			refresh(e, last, now);
			found |= 1ull << i;
		}
	}
	*hits = found;
}

/* ---- control thread ------------------------------------------------------------ */

static void tmo_apply(void)
{
	for (unsigned int c = 0; c < CLASS_MAX; c++) {
		unsigned __int128 ticks = (unsigned __int128)S.tmo_s[c] * S.hz;

		/* Compared as signed differences: keep below 2^62. */
		if (ticks > ((uint64_t)1 << 62))
			ticks = (uint64_t)1 << 62;
		__atomic_store_n(&S.tmo[c], (uint64_t)ticks, __ATOMIC_RELAXED);
	}
	S.gran = S.hz >> 10;
}

void acl_session_timeouts(uint32_t tcp_s, uint32_t udp_s, uint32_t other_s)
{
	S.tmo_s[CLASS_TCP] = tcp_s ? tcp_s : 1;
	S.tmo_s[CLASS_UDP] = udp_s ? udp_s : 1;
	S.tmo_s[CLASS_OTHER] = other_s ? other_s : 1;
	tmo_apply();
}

void acl_sessions_clock(uint64_t tsc_hz)
{
	S.hz = tsc_hz;
	tmo_apply();
}

void acl_sessions_flush_port(uint16_t port)
{
	if (S.port_gen != NULL)
		__atomic_store_n(&S.port_gen[port], S.port_gen[port] + 1, __ATOMIC_RELEASE);
}

void acl_sessions_stats_at(unsigned int w, uint64_t now, struct acl_session_stats *out)
{
	const struct sess_table *t;
	uint64_t live = 0, ended_now = 0;
	uint32_t top;

	memset(out, 0, sizeof(*out));
	if (w >= S.n)
		return;
	t = &S.t[w];
	/* The owner may change entries meanwhile: a count, not a snapshot. */
	top = __atomic_load_n(&t->top, __ATOMIC_ACQUIRE);
	for (uint32_t i = 0; i < top; i++) {
		const struct sess_entry *e = &t->e[i];
		union sess_key k = e->key;

		if (k.flags & KEY_FREE)
			continue;
		if (ended(&k, e->gen, last_of(e), now))
			ended_now++;
		else
			live++;
	}
	out->live = live;
	out->created = __atomic_load_n(&t->created, __ATOMIC_RELAXED);
	out->expired = __atomic_load_n(&t->expired, __ATOMIC_RELAXED) + ended_now;
	out->full = __atomic_load_n(&t->full, __ATOMIC_RELAXED);
}

void acl_sessions_stats(unsigned int w, struct acl_session_stats *out)
{
	acl_sessions_stats_at(w, rte_rdtsc(), out);
}

static void *zmap(size_t len)
{
	void *p = mmap(NULL, len, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);

	if (p == MAP_FAILED)
		return NULL;
	/* Lookups land anywhere in 12 MiB per table: 2 MiB pages where the
	 * kernel gives them (transparent huge pages, even in "madvise"
	 * mode), or a TLB miss per lookup. */
	madvise(p, len, MADV_HUGEPAGE);
	return p;
}

/* EAL's TSC frequency; measured if EAL has none (not started yet): with 0,
 * every session would end at once. */
static uint64_t tsc_hz(void)
{
	struct timespec a, b;
	uint64_t t0, t1, ns;

	if (rte_get_tsc_hz() != 0)
		return rte_get_tsc_hz();
	clock_gettime(CLOCK_MONOTONIC_RAW, &a);
	t0 = rte_rdtsc();
	do
		clock_gettime(CLOCK_MONOTONIC_RAW, &b);
	while ((b.tv_sec - a.tv_sec) * 1000000000ll + (b.tv_nsec - a.tv_nsec) < 10000000);
	t1 = rte_rdtsc();
	ns = (uint64_t)((b.tv_sec - a.tv_sec) * 1000000000ll + (b.tv_nsec - a.tv_nsec));
	return (uint64_t)((unsigned __int128)(t1 - t0) * 1000000000u / ns);
}

static uint32_t buckets_for(uint32_t max)
{
	uint32_t nb = 2;

	/* At most half the slots used when the table is full: with two
	 * choices the fullest of 32768 buckets then holds about 4 + 3.4
	 * (ln ln m / ln 2) of 8 (no refusal in 700 fills of 131072 flows of
	 * four kinds of structure). */
	while ((uint64_t)nb * SLOTS < 2ull * max)
		nb <<= 1;
	return nb;
}

int acl_sessions_init(unsigned int n_workers, uint32_t max_per_worker)
{
	uint64_t seed[2 * (HASH_WORDS + 1)];
	uint32_t nb;

	if (max_per_worker == 0)
		max_per_worker = ACL_SESSIONS_DEFAULT_MAX;
	if (n_workers == 0 || n_workers > PW_MAX_WORKERS || max_per_worker > ACL_SESSIONS_MAX) {
		LOG(ERR,
		    "sessions: %u workers of %u sessions each is out of range (1..%u workers, "
		    "at most %u sessions each)",
		    n_workers, max_per_worker, PW_MAX_WORKERS, ACL_SESSIONS_MAX);
		return -EINVAL;
	}
	acl_sessions_fini();
	nb = buckets_for(max_per_worker);
	S.n = n_workers;
	S.max = max_per_worker;
	S.bits = (uint32_t)__builtin_ctz(nb);
	/* The kernel's randomness: rte_rand's seed is the TSC, guessable. */
	if (getrandom(seed, sizeof(seed), GRND_NONBLOCK) != (ssize_t)sizeof(seed))
		for (unsigned int i = 0; i < RTE_DIM(seed); i++)
			seed[i] = rte_rand();
	memcpy(S.mul, seed, sizeof(S.mul));
	S.t = aligned_alloc(RTE_CACHE_LINE_SIZE, n_workers * sizeof(*S.t));
	S.port_gen = zmap(PORT_IDS * sizeof(*S.port_gen));
	if (S.t == NULL || S.port_gen == NULL)
		goto nomem;
	memset(S.t, 0, n_workers * sizeof(*S.t));
	for (unsigned int w = 0; w < n_workers; w++) {
		/* Zero pages until written: an unused table costs nothing. */
		S.t[w].b = zmap((size_t)nb * sizeof(struct sess_bucket));
		S.t[w].e = zmap((size_t)max_per_worker * sizeof(struct sess_entry));
		S.t[w].free = UINT32_MAX;
		if (S.t[w].b == NULL || S.t[w].e == NULL)
			goto nomem;
	}
	S.tmo_s[CLASS_TCP] = ACL_SESSION_TCP_S;
	S.tmo_s[CLASS_UDP] = ACL_SESSION_UDP_S;
	S.tmo_s[CLASS_OTHER] = ACL_SESSION_OTHER_S;
	acl_sessions_clock(tsc_hz());
	return 0;
nomem:
	LOG(ERR, "sessions: cannot reserve %u workers' tables of %u sessions (%zu bytes each)",
	    n_workers, max_per_worker,
	    (size_t)nb * sizeof(struct sess_bucket) +
		(size_t)max_per_worker * sizeof(struct sess_entry));
	acl_sessions_fini();
	return -ENOMEM;
}

void acl_sessions_fini(void)
{
	uint32_t nb = S.bits ? 1u << S.bits : 0;

	for (unsigned int w = 0; S.t != NULL && w < S.n; w++) {
		if (S.t[w].b != NULL)
			munmap(S.t[w].b, (size_t)nb * sizeof(struct sess_bucket));
		if (S.t[w].e != NULL)
			munmap(S.t[w].e, (size_t)S.max * sizeof(struct sess_entry));
	}
	free(S.t);
	if (S.port_gen != NULL)
		munmap(S.port_gen, PORT_IDS * sizeof(*S.port_gen));
	memset(&S, 0, sizeof(S));
}
