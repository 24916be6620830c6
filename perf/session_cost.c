/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * podwire-sessioncost: what permit+reflect sessions cost per frame (issue
 * 25), podwired's tables (dataplane/acl/session.c) beside DPDK's rte_hash
 * with RTE_HASH_EXTRA_FLAGS_RW_CONCURRENCY_LF, the other lock-free design
 * the lead's brief allowed, at the same number of flows.
 *
 * One thread, W worker tables; every flow recorded by worker 0, so a reply
 * asked by worker 1 first misses its own table (as a reply polled by the
 * other pod's worker does). Operations over the flows in a random order
 * (spread over the tables' memory: cache and TLB misses as in a busy
 * worker, not one hot line), in cycles per operation:
 *
 *   add new       a flow recorded, into a fresh table (pages faulted in);
 *   add again     the same flow's next frame (a refresh);
 *   add reuse     a flow recorded where ended ones wait (after a flush);
 *   reply own     the reply, recorded in the asking worker's table;
 *   reply other   the reply, recorded in another worker's table;
 *   reply miss    a frame that is no reply (every table asked);
 *   bulk32        acl_session_reply_bulk, 32 replies a call;
 *   add again bulk32  acl_session_add_bulk, 32 recorded flows a call.
 *
 * rte_hash has no refresh or reuse in place (an ended key must be deleted
 * and its slot freed after an RCU grace period), so only its add, its
 * lookups and its bulk lookup (32 keys a call, its best case) are timed,
 * with keys made beforehand (its cost understated by the key's making).
 *
 * Both kinds of tables are made, filled and asked side by side, in slices
 * of 1024 operations of each kind in turn (a machine shared with other
 * work sees both alike); a figure is the median over all slices of all
 * rounds, with the 10th and 90th percentiles.
 *
 *   podwire-sessioncost [EAL options] -- [--flows N] [--workers W]
 *                       [--rounds R]
 * e.g. podwire-sessioncost -l 1 -m 128 --in-memory --no-pci -- --flows 100000
 */
#include <getopt.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_common.h>
#include <rte_cycles.h>
#include <rte_eal.h>
#include <rte_errno.h>
#include <rte_hash.h>
#include <rte_hash_crc.h>
#include <rte_random.h>

#include "acl/session.h"

enum op {
	OP_ADD_NEW,
	OP_ADD_AGAIN,
	OP_ADD_REUSE,
	OP_REPLY_OWN,
	OP_REPLY_OTHER,
	OP_REPLY_MISS,
	OP_BULK_OWN,
	OP_BULK_OTHER,
	OP_ADD_BULK,
	OP_H_ADD,
	OP_H_OWN,
	OP_H_OTHER,
	OP_H_MISS,
	OP_H_BULK_OWN,
	OP_MAX
};

static const char *const op_name[OP_MAX] = {
    "sessions: add new",    "sessions: add again",     "sessions: add reuse",
    "sessions: reply own",  "sessions: reply other",   "sessions: reply miss",
    "sessions: bulk32 own", "sessions: bulk32 other",  "sessions: add again bulk32",
    "rte_hash LF: add",	    "rte_hash LF: own",	       "rte_hash LF: other",
    "rte_hash LF: miss",    "rte_hash LF: bulk32 own",
};

#define MAX_ROUNDS 64u
#define BULK	   32u

static uint32_t n_flows = 100000, n_workers = 2, n_rounds = 7;
static struct acl_flow *fwd, *rep, *stranger, *fwd_s, *rep_s, *stranger_s;
static uint8_t (*hkey)[40], (*hmiss)[40], (*hkey_s)[40], (*hmiss_s)[40];
static uint32_t *order;
static uint64_t sink;

static void flow_random(struct acl_flow *f)
{
	uint64_t a = rte_rand(), b = rte_rand();

	memset(f, 0, sizeof(*f));
	f->proto = 6;
	f->port = 1;
	f->dir = ACL_SESSION_INGRESS;
	memcpy(f->src, &a, 4);
	memcpy(f->dst, (uint8_t *)&a + 4, 4);
	f->sport = (uint16_t)b;
	f->dport = (uint16_t)(b >> 16);
}

static struct acl_flow reverse(const struct acl_flow *f)
{
	struct acl_flow r = *f;

	memcpy(r.src, f->dst, 16);
	memcpy(r.dst, f->src, 16);
	r.sport = f->dport;
	r.dport = f->sport;
	r.dir = ACL_SESSION_EGRESS;
	return r;
}

/* rte_hash's key: the recorded flow's bytes, as a reply would build them. */
static void hash_key(const struct acl_flow *f, uint8_t k[40])
{
	memset(k, 0, 40);
	memcpy(k, f->src, 16);
	memcpy(k + 16, f->dst, 16);
	memcpy(k + 32, &f->sport, 2);
	memcpy(k + 34, &f->dport, 2);
	memcpy(k + 36, &f->port, 2);
	k[38] = f->proto;
	k[39] = f->dir;
}

/* The flows in a random order, twice over, read in that order (as a
 * worker reads its burst's flows, from memory in cache: what is timed is
 * the tables'): each operation of a slice starts at its own place
 * (op * n_flows / OP_MAX), so that none finds the table lines of the one
 * before it in the cache. */
static void shuffle(void)
{
	for (uint32_t i = n_flows - 1; i > 0; i--) {
		uint32_t j = (uint32_t)rte_rand_max(i + 1), t = order[i];

		order[i] = order[j];
		order[j] = t;
	}
	for (uint32_t i = 0; i < 2 * n_flows; i++) {
		uint32_t k = order[i % n_flows];

		fwd_s[i] = fwd[k];
		rep_s[i] = rep[k];
		stranger_s[i] = stranger[k];
		memcpy(hkey_s[i], hkey[k], 40);
		memcpy(hmiss_s[i], hmiss[k], 40);
	}
}

/* Slices of SLICE operations, each timed on its own: a preempted slice is
 * an outlier of the median, not a share of an average. */
#define SLICE	   1024u
#define MAX_SLICES (MAX_ROUNDS * (ACL_SESSIONS_DEFAULT_MAX / SLICE + 1))

static double *res[OP_MAX];
static uint32_t n_res[OP_MAX];

#define TIMED(op, from, body)                                                                      \
	do {                                                                                       \
		uint64_t t0_ = rte_rdtsc_precise();                                                \
		for (uint32_t i_ = (from); i_ < (from) + SLICE; i_++) {                            \
			uint32_t k = i_ + (op) * (n_flows / OP_MAX);                               \
			body;                                                                      \
		}                                                                                  \
		res[op][n_res[op]++] = (double)(rte_rdtsc_precise() - t0_) / SLICE;                \
	} while (0)

static struct rte_hash *h[64];

/* Whether the tables got 2 MiB pages (session.c asks with madvise). */
static void print_thp(void)
{
	FILE *f = fopen("/proc/self/smaps_rollup", "r");
	char line[256];

	while (f != NULL && fgets(line, sizeof(line), f) != NULL)
		if (strncmp(line, "AnonHugePages:", 14) == 0)
			printf("sessions' tables filled: %s", line);
	if (f != NULL)
		fclose(f);
}

static int tables_make(unsigned int r)
{
	if (acl_sessions_init(n_workers, 0) != 0)
		return -1;
	for (unsigned int w = 0; w < n_workers; w++) {
		char name[32];
		struct rte_hash_parameters p = {
		    .name = name,
		    .entries = ACL_SESSIONS_DEFAULT_MAX,
		    .key_len = 40,
		    .hash_func = rte_hash_crc,
		    .hash_func_init_val = (uint32_t)rte_rand(),
		    .socket_id = SOCKET_ID_ANY,
		    .extra_flag = RTE_HASH_EXTRA_FLAGS_RW_CONCURRENCY_LF,
		};

		snprintf(name, sizeof(name), "sc%u_%u", r, w);
		h[w] = rte_hash_create(&p);
		if (h[w] == NULL) {
			fprintf(stderr, "podwire-sessioncost: rte_hash_create: %s\n",
				rte_strerror(rte_errno));
			return -1;
		}
	}
	return 0;
}

static void tables_free(void)
{
	acl_sessions_fini();
	for (unsigned int w = 0; w < n_workers; w++) {
		rte_hash_free(h[w]);
		h[w] = NULL;
	}
}

/* One round: both kinds of tables made, filled and asked, slice by slice,
 * alternating between them. */
static int one_round(unsigned int r)
{
	uint64_t now = rte_rdtsc();
	struct acl_session_stats st;
	uint32_t n = n_flows - n_flows % SLICE;

	if (tables_make(r) != 0)
		return -1;
	shuffle();
	for (uint32_t s = 0; s < n; s += SLICE) {
		TIMED(OP_ADD_NEW, s, sink += (uint64_t)acl_session_add(0, &fwd_s[k], now));
		TIMED(OP_H_ADD, s,
		      sink +=
		      (uint64_t)rte_hash_add_key_data(h[0], hkey_s[k], (void *)(uintptr_t)k));
	}
	if (r == 0)
		print_thp();
	shuffle();
	for (uint32_t s = 0; s < n; s += SLICE) {
		TIMED(OP_ADD_AGAIN, s, sink += (uint64_t)acl_session_add(0, &fwd_s[k], now));
		TIMED(OP_REPLY_OWN, s, sink += acl_session_reply(0, &rep_s[k], now));
		TIMED(OP_H_OWN, s, {
			void *d;
			sink += (uint64_t)rte_hash_lookup_data(h[0], hkey_s[k], &d);
		});
		if (n_workers > 1) {
			TIMED(OP_REPLY_OTHER, s, sink += acl_session_reply(1, &rep_s[k], now));
			TIMED(OP_H_OTHER, s, {
				void *d;
				int v = rte_hash_lookup_data(h[1], hkey_s[k], &d);
				for (unsigned int w = 0; v < 0 && w < n_workers; w++)
					if (w != 1)
						v = rte_hash_lookup_data(h[w], hkey_s[k], &d);
				sink += (uint64_t)v;
			});
		}
		TIMED(OP_REPLY_MISS, s, sink += acl_session_reply(0, &stranger_s[k], now));
		TIMED(OP_H_MISS, s, {
			void *d;
			for (unsigned int w = 0; w < n_workers; w++)
				sink += (uint64_t)rte_hash_lookup_data(h[w], hmiss_s[k], &d);
		});
		{
			uint64_t t0 = rte_rdtsc_precise();

			for (uint32_t i = s; i < s + SLICE; i += BULK) {
				const struct acl_flow *fl[BULK];

				for (unsigned int j = 0; j < BULK; j++)
					fl[j] = &fwd_s[i + j + OP_ADD_BULK * (n_flows / OP_MAX)];
				sink += acl_session_add_bulk(0, fl, BULK, now);
			}
			res[OP_ADD_BULK][n_res[OP_ADD_BULK]++] =
			    (double)(rte_rdtsc_precise() - t0) / SLICE;
		}
		for (unsigned int b = 0; b < (n_workers > 1 ? 2u : 1u); b++) {
			enum op op = b ? OP_BULK_OTHER : OP_BULK_OWN;
			uint64_t t0 = rte_rdtsc_precise();

			for (uint32_t i = s; i < s + SLICE; i += BULK) {
				const struct acl_flow *fl[BULK];
				uint64_t hits;

				for (unsigned int j = 0; j < BULK; j++)
					fl[j] = &rep_s[i + j + op * (n_flows / OP_MAX)];
				acl_session_reply_bulk(b, fl, BULK, now, &hits);
				sink += hits;
			}
			res[op][n_res[op]++] = (double)(rte_rdtsc_precise() - t0) / SLICE;
		}
		{
			uint64_t t0 = rte_rdtsc_precise();

			for (uint32_t i = s; i < s + SLICE; i += BULK) {
				const void *keys[BULK];
				void *d[BULK];
				uint64_t hits = 0;

				for (unsigned int j = 0; j < BULK; j++)
					keys[j] =
					    hkey_s[i + j + OP_H_BULK_OWN * (n_flows / OP_MAX)];
				rte_hash_lookup_bulk_data(h[0], keys, BULK, &hits, d);
				sink += hits;
			}
			res[OP_H_BULK_OWN][n_res[OP_H_BULK_OWN]++] =
			    (double)(rte_rdtsc_precise() - t0) / SLICE;
		}
	}
	/* Every session ended (its port deleted): recorded again in place. */
	acl_sessions_flush_port(1);
	shuffle();
	for (uint32_t s = 0; s < n; s += SLICE)
		TIMED(OP_ADD_REUSE, s, sink += (uint64_t)acl_session_add(0, &fwd_s[k], now));
	acl_sessions_stats_at(0, now, &st);
	tables_free();
	if (st.live != n || st.full != 0) {
		fprintf(stderr, "podwire-sessioncost: %llu live, %llu full: expected %u, 0\n",
			(unsigned long long)st.live, (unsigned long long)st.full, n);
		return -1;
	}
	return 0;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

static int parse(int argc, char **argv)
{
	static const struct option opts[] = {{"flows", required_argument, NULL, 'f'},
					     {"workers", required_argument, NULL, 'w'},
					     {"rounds", required_argument, NULL, 'r'},
					     {NULL, 0, NULL, 0}};
	int c;

	while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		unsigned long v = optarg ? strtoul(optarg, NULL, 0) : 0;

		if (c == 'f' && v >= BULK && v <= ACL_SESSIONS_DEFAULT_MAX)
			n_flows = (uint32_t)v;
		else if (c == 'w' && v >= 1 && v <= 64)
			n_workers = (uint32_t)v;
		else if (c == 'r' && v >= 1 && v <= MAX_ROUNDS)
			n_rounds = (uint32_t)v;
		else {
			fprintf(stderr,
				"usage: podwire-sessioncost [EAL options] -- [--flows %u..%u] "
				"[--workers 1..64] [--rounds 1..%u]\n",
				BULK, ACL_SESSIONS_DEFAULT_MAX, MAX_ROUNDS);
			return -1;
		}
	}
	return 0;
}

int main(int argc, char **argv)
{
	int n = rte_eal_init(argc, argv);

	if (n < 0) {
		fprintf(stderr, "podwire-sessioncost: rte_eal_init: %s\n", rte_strerror(rte_errno));
		return 1;
	}
	argv[n] = argv[0];
	if (parse(argc - n, argv + n) != 0)
		return 1;
	fwd = calloc(n_flows, sizeof(*fwd));
	rep = calloc(n_flows, sizeof(*rep));
	stranger = calloc(n_flows, sizeof(*stranger));
	hkey = calloc(n_flows, sizeof(*hkey));
	hmiss = calloc(n_flows, sizeof(*hmiss));
	order = calloc(n_flows, sizeof(*order));
	fwd_s = calloc(2 * (size_t)n_flows, sizeof(*fwd_s));
	rep_s = calloc(2 * (size_t)n_flows, sizeof(*rep_s));
	stranger_s = calloc(2 * (size_t)n_flows, sizeof(*stranger_s));
	hkey_s = calloc(2 * (size_t)n_flows, sizeof(*hkey_s));
	hmiss_s = calloc(2 * (size_t)n_flows, sizeof(*hmiss_s));
	if (fwd == NULL || rep == NULL || stranger == NULL || hkey == NULL || hmiss == NULL ||
	    order == NULL || fwd_s == NULL || rep_s == NULL || stranger_s == NULL ||
	    hkey_s == NULL || hmiss_s == NULL)
		return 1;
	for (uint32_t i = 0; i < n_flows; i++) {
		flow_random(&fwd[i]);
		rep[i] = reverse(&fwd[i]);
		flow_random(&stranger[i]);
		hash_key(&fwd[i], hkey[i]);
		hash_key(&stranger[i], hmiss[i]);
		order[i] = i;
	}
	printf("podwire-sessioncost: %u flows, %u worker tables, %u rounds, TSC %.2f GHz\n",
	       n_flows, n_workers, n_rounds, rte_get_tsc_hz() / 1e9);
	for (unsigned int op = 0; op < OP_MAX; op++) {
		res[op] = calloc(MAX_SLICES, sizeof(double));
		if (res[op] == NULL)
			return 1;
	}
	for (unsigned int r = 0; r < n_rounds; r++)
		if (one_round(r) != 0)
			return 1;
	printf("%-26s %8s %8s %8s  (cycles per operation, over %u slices of %u)\n", "", "median",
	       "p10", "p90", n_res[OP_ADD_NEW], SLICE);
	for (unsigned int op = 0; op < OP_MAX; op++) {
		uint32_t m = n_res[op];

		if (m == 0)
			continue;
		qsort(res[op], m, sizeof(double), cmp_double);
		printf("%-26s %8.1f %8.1f %8.1f\n", op_name[op], res[op][m / 2], res[op][m / 10],
		       res[op][m * 9 / 10]);
	}
	rte_eal_cleanup();
	return sink == 42 ? 2 : 0;
}
