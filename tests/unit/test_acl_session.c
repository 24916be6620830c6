/* SPDX-License-Identifier: BSD-3-Clause */
/* Unit tests of dataplane/acl/session.c: no EAL; a fake clock of 1000
 * ticks per second, so 1 tick is 1 ms. */
#include <pthread.h>
#include <stdint.h>
#include <string.h>

#include <rte_cycles.h>

#include "acl/session.h"
#include "unit.h"

#define HZ 1000u
#define S  (uint64_t) HZ /* one second of ticks */

static void init(unsigned int nw, uint32_t max)
{
	ASSERT_INT_EQ(acl_sessions_init(nw, max), 0);
	acl_sessions_clock(HZ);
}

/* A TCP/UDP flow of index i: 10.i.i.i:(1024 + i % 50000) -> 192.168.x.y:80. */
static struct acl_flow flow4(uint32_t i, uint8_t proto, uint16_t port, uint8_t dir)
{
	struct acl_flow f = {.v6 = 0, .proto = proto, .port = port, .dir = dir};

	f.src[0] = 10;
	f.src[1] = (uint8_t)(i >> 16);
	f.src[2] = (uint8_t)(i >> 8);
	f.src[3] = (uint8_t)i;
	f.dst[0] = 192;
	f.dst[1] = 168;
	f.dst[2] = (uint8_t)(i >> 24);
	f.dst[3] = 7;
	f.sport = (uint16_t)(1024 + i % 50000);
	f.dport = 80;
	return f;
}

static struct acl_flow flow6(uint32_t i, uint8_t proto, uint16_t port, uint8_t dir)
{
	struct acl_flow f = {.v6 = 1, .proto = proto, .port = port, .dir = dir};

	f.src[0] = 0xfd;
	f.dst[0] = 0xfd;
	f.dst[1] = 1;
	memcpy(&f.src[12], &i, 4);
	f.dst[15] = 1;
	f.sport = (uint16_t)(1024 + i % 50000);
	f.dport = 443;
	return f;
}

/* The reply to f as it is seen: addresses and ports swapped, on the same
 * port in the other direction. */
static struct acl_flow reply_of(struct acl_flow f)
{
	struct acl_flow r = f;

	memcpy(r.src, f.dst, 16);
	memcpy(r.dst, f.src, 16);
	r.sport = f.dport;
	r.dport = f.sport;
	r.dir = f.dir == ACL_SESSION_INGRESS ? ACL_SESSION_EGRESS : ACL_SESSION_INGRESS;
	return r;
}

static bool reply(unsigned int w, struct acl_flow f, uint64_t now)
{
	return acl_session_reply(w, &f, now);
}

static void check_reverse_rule(struct acl_flow f)
{
	struct acl_flow r = reply_of(f), x;
	uint64_t t = 1000;

	ASSERT_INT_EQ(reply(0, r, t), false); /* nothing recorded yet */
	ASSERT_INT_EQ(acl_session_add(0, &f, t), 0);
	ASSERT_INT_EQ(reply(0, r, t), true);
	/* The flow itself, either way, is not its own reply. */
	ASSERT_INT_EQ(reply(0, f, t), false);
	x = f;
	x.dir = r.dir;
	ASSERT_INT_EQ(reply(0, x, t), false);
	/* The reverse tuple in the same direction as recorded. */
	x = r;
	x.dir = f.dir;
	ASSERT_INT_EQ(reply(0, x, t), false);
	/* Another port. */
	x = r;
	x.port++;
	ASSERT_INT_EQ(reply(0, x, t), false);
	/* Another protocol, port, address. */
	x = r;
	x.proto = f.proto == 6 ? 17 : 6;
	ASSERT_INT_EQ(reply(0, x, t), false);
	x = r;
	x.dport++;
	ASSERT_INT_EQ(reply(0, x, t), false);
	x = r;
	x.sport++;
	ASSERT_INT_EQ(reply(0, x, t), false);
	x = r;
	x.src[3] ^= 1;
	ASSERT_INT_EQ(reply(0, x, t), false);
	x = r;
	x.dst[f.v6 ? 15 : 0] ^= 0x40;
	ASSERT_INT_EQ(reply(0, x, t), false);
	/* The other family with the same bytes. */
	x = r;
	x.v6 = !f.v6;
	ASSERT_INT_EQ(reply(0, x, t), false);
}

static void test_reverse_v4(void)
{
	init(1, 1024);
	check_reverse_rule(flow4(1, 6, 3, ACL_SESSION_INGRESS));
	check_reverse_rule(flow4(2, 17, 3, ACL_SESSION_EGRESS));
	check_reverse_rule(flow4(3, 132, 9, ACL_SESSION_INGRESS));
	acl_sessions_fini();
}

static void test_reverse_v6(void)
{
	init(1, 1024);
	check_reverse_rule(flow6(1, 6, 3, ACL_SESSION_INGRESS));
	check_reverse_rule(flow6(2, 17, 5, ACL_SESSION_EGRESS));
	acl_sessions_fini();
}

/* An IPv4 flow's bytes past the fourth of src and dst are not its own. */
static void test_v4_ignores_rest(void)
{
	struct acl_flow f = flow4(7, 17, 1, ACL_SESSION_INGRESS), r;

	init(1, 1024);
	memset(&f.src[4], 0xee, 12);
	ASSERT_INT_EQ(acl_session_add(0, &f, 10), 0);
	r = reply_of(flow4(7, 17, 1, ACL_SESSION_INGRESS));
	memset(&r.dst[4], 0x11, 12);
	ASSERT_INT_EQ(reply(0, r, 10), true);
	acl_sessions_fini();
}

/* ICMP: per address pair; the identifier and type do not matter. */
static void test_icmp(void)
{
	struct acl_flow f = flow4(1, 1, 2, ACL_SESSION_INGRESS), r;

	init(1, 1024);
	f.sport = 8 << 8; /* whatever the classifier puts there */
	f.dport = 77;
	ASSERT_INT_EQ(acl_session_add(0, &f, 10), 0);
	r = reply_of(f);
	r.sport = 0;
	r.dport = 1234;
	ASSERT_INT_EQ(reply(0, r, 10), true);
	r.src[3] ^= 1;
	ASSERT_INT_EQ(reply(0, r, 10), false);
	f = flow6(1, 58, 2, ACL_SESSION_EGRESS);
	ASSERT_INT_EQ(acl_session_add(0, &f, 10), 0);
	r = reply_of(f);
	r.sport = 99;
	ASSERT_INT_EQ(reply(0, r, 10), true);
	r.dir = f.dir;
	ASSERT_INT_EQ(reply(0, r, 10), false);
	acl_sessions_fini();
}

/* Each protocol class ends after its idle timeout (at exactly the timeout
 * still live), counted from the last frame either way. */
static uint64_t clock_now; /* the tests' clock never goes back */

static void check_timeout(uint8_t proto, uint64_t tmo)
{
	struct acl_flow f = flow4(proto, proto, 1, ACL_SESSION_INGRESS);
	struct acl_flow r = reply_of(f);
	uint64_t t0 = clock_now;

	ASSERT_INT_EQ(acl_session_add(0, &f, t0), 0);
	/* A reply refreshes. */
	ASSERT_INT_EQ(reply(0, r, t0 + tmo), true);
	ASSERT_INT_EQ(reply(0, r, t0 + 2 * tmo), true);
	/* A forward frame refreshes. */
	ASSERT_INT_EQ(acl_session_add(0, &f, t0 + 3 * tmo), 0);
	ASSERT_INT_EQ(reply(0, r, t0 + 4 * tmo), true);
	/* Idle one tick too long. */
	ASSERT_INT_EQ(reply(0, r, t0 + 5 * tmo + 1), false);
	/* And the forward flow records it anew. */
	ASSERT_INT_EQ(acl_session_add(0, &f, t0 + 6 * tmo), 0);
	ASSERT_INT_EQ(reply(0, r, t0 + 6 * tmo + 1), true);
	clock_now = t0 + 6 * tmo + 1;
}

static void test_timeouts(void)
{
	struct acl_session_stats st;
	struct acl_flow f, r;

	init(1, 1024);
	clock_now = 5000;
	check_timeout(47, 60 * S);
	check_timeout(1, 60 * S);
	check_timeout(17, 120 * S);
	check_timeout(6, 3600 * S);
	/* Each recorded twice (again after it ended); the last one live. */
	acl_sessions_stats_at(0, clock_now, &st);
	ASSERT_INT_EQ(st.created, 8);
	ASSERT_INT_EQ(st.live, 1);
	ASSERT_INT_EQ(st.expired, 7);

	/* Changed: at once, for sessions already recorded. */
	f = flow4(100, 6, 1, ACL_SESSION_INGRESS);
	r = reply_of(f);
	ASSERT_INT_EQ(acl_session_add(0, &f, clock_now), 0);
	ASSERT_INT_EQ(reply(0, r, clock_now + 100 * S), true);
	acl_session_timeouts(10, 20, 30);
	ASSERT_INT_EQ(reply(0, r, clock_now + 100 * S + 10 * S), true);
	ASSERT_INT_EQ(reply(0, r, clock_now + 100 * S + 20 * S + 1), false);
	clock_now += 200 * S;
	check_timeout(6, 10 * S);
	check_timeout(17, 20 * S);
	check_timeout(2, 30 * S);
	/* 0 reads as 1 s. */
	acl_session_timeouts(0, 0, 0);
	check_timeout(6, 1 * S);
	acl_sessions_fini();
}

/* The bound: no more than max live sessions; refused ones counted; ended
 * ones make room. */
static void test_bound_full(void)
{
	struct acl_session_stats st;
	struct acl_flow f;
	const uint32_t max = 1024;
	unsigned int refused = 0;
	uint64_t t = 1000;

	init(2, max);
	for (uint32_t i = 0; i < max; i++) {
		f = flow4(i, 17, 1, ACL_SESSION_INGRESS);
		ASSERT_INT_EQ(acl_session_add(0, &f, t), 0);
	}
	/* Recorded ones are refreshed, not refused. */
	f = flow4(5, 17, 1, ACL_SESSION_INGRESS);
	ASSERT_INT_EQ(acl_session_add(0, &f, t + 1), 0);
	for (uint32_t i = max; i < max + 100; i++) {
		f = flow4(i, 17, 1, ACL_SESSION_INGRESS);
		ASSERT_INT_EQ(acl_session_add(0, &f, t + 1), -ENOSPC);
		ASSERT_INT_EQ(reply(0, reply_of(f), t + 1), false);
	}
	acl_sessions_stats_at(0, t + 1, &st);
	ASSERT_INT_EQ(st.live, max);
	ASSERT_INT_EQ(st.created, max);
	ASSERT_INT_EQ(st.full, 100);
	ASSERT_INT_EQ(st.expired, 0);
	/* The other worker's table is its own. */
	f = flow4(max, 17, 1, ACL_SESSION_INGRESS);
	ASSERT_INT_EQ(acl_session_add(1, &f, t + 1), 0);
	acl_sessions_stats_at(1, t + 1, &st);
	ASSERT_INT_EQ(st.live, 1);
	ASSERT_INT_EQ(st.full, 0);
	/* Worker 0's all end (UDP: 120 s idle); new ones take their place,
	 * as many as the bound, each found by its reply. Where the table's
	 * entries are all taken, the owner sweeps 256 of them for ended ones:
	 * a flow may be refused while ended ones remain beyond; its next
	 * frame (here a tick later: the sweep's pause) finds room. */
	t += 121 * S;
	for (uint32_t i = 2 * max; i < 3 * max; i++) {
		unsigned int tries = 0;

		f = flow4(i, 17, 1, ACL_SESSION_INGRESS);
		while (acl_session_add(0, &f, t + tries) == -ENOSPC && tries < max / 256)
			tries++;
		ASSERT_INT_EQ(reply(0, reply_of(f), t + tries), true);
		refused += tries;
	}
	t += max / 256;
	for (uint32_t i = 2 * max; i < 3 * max; i++)
		ASSERT_INT_EQ(reply(1, reply_of(flow4(i, 17, 1, ACL_SESSION_INGRESS)), t), true);
	for (uint32_t i = 0; i < max; i++)
		ASSERT_INT_EQ(reply(0, reply_of(flow4(i, 17, 1, ACL_SESSION_INGRESS)), t), false);
	f = flow4(9 * max, 17, 1, ACL_SESSION_INGRESS);
	ASSERT_INT_EQ(acl_session_add(0, &f, t), -ENOSPC);
	acl_sessions_stats_at(0, t, &st);
	ASSERT_INT_EQ(st.live, max);
	ASSERT_INT_EQ(st.created, 2 * max);
	ASSERT_INT_EQ(st.expired, max);
	ASSERT_INT_EQ(st.full, 101 + refused);
	unit_check(refused < max / 16, __LINE__, __FILE__, "%u refused", refused);
	acl_sessions_fini();
}

/* A full table of live sessions refuses a flood of new flows at the cost
 * of a lookup: the sweep for ended ones does not run on every refusal. */
static void test_full_flood(void)
{
	struct acl_session_stats st;
	struct acl_flow f;
	const uint32_t max = 4096;

	init(1, max);
	for (uint32_t i = 0; i < max; i++) {
		f = flow4(i, 6, 1, ACL_SESSION_INGRESS);
		ASSERT_INT_EQ(acl_session_add(0, &f, 10), 0);
	}
	for (uint32_t i = max; i < 20 * max; i++) {
		f = flow4(i, 6, 1, ACL_SESSION_INGRESS);
		if (acl_session_add(0, &f, 10 + (i & 1)) != -ENOSPC)
			ASSERT_INT_EQ(i, -1);
	}
	acl_sessions_stats_at(0, 11, &st);
	ASSERT_INT_EQ(st.full, 19 * max);
	ASSERT_INT_EQ(st.live, max);
	acl_sessions_fini();
}

/* Flows that differ in few bits (a scan, a flood from one address, one
 * pod's connections) spread: the default bound's worth fill one table
 * without a refusal, with any seed (each init draws one). Without the
 * hash's final mixing, some seeds refused flows from a third full. */
static struct acl_flow structured(unsigned int kind, uint32_t i)
{
	struct acl_flow f = {.proto = 6, .port = (uint16_t)kind};

	switch (kind % 4) {
	case 0: /* one address pair, every port pair */
		f = flow4(0, 17, 1, ACL_SESSION_INGRESS);
		f.sport = (uint16_t)i;
		f.dport = (uint16_t)(i >> 16);
		break;
	case 1: /* IPv6 destinations in a row */
		f = flow6(0, 6, 2, ACL_SESSION_EGRESS);
		memcpy(&f.dst[12], &i, 4);
		break;
	case 2: /* IPv4 destinations in a row, one port */
		memcpy(f.dst, &i, 4);
		f.dport = 80;
		break;
	default: /* source address and ports from one counter */
		f.proto = 17;
		memcpy(f.src, &i, 4);
		memcpy(f.dst, &kind, 4);
		f.sport = (uint16_t)i;
		f.dport = (uint16_t)(i >> 16);
		break;
	}
	return f;
}

static void test_structured_keys(void)
{
	struct acl_session_stats st;
	struct acl_flow f;

	for (unsigned int run = 0; run < 24; run++) {
		init(1, 0);
		for (uint32_t i = 0; i < ACL_SESSIONS_DEFAULT_MAX; i++) {
			f = structured(run, i);
			if (acl_session_add(0, &f, 10) != 0) {
				ASSERT_INT_EQ(i, -1);
				break;
			}
		}
		acl_sessions_stats_at(0, 10, &st);
		ASSERT_INT_EQ(st.live, ACL_SESSIONS_DEFAULT_MAX);
		ASSERT_INT_EQ(st.full, 0);
		f = structured(run, 4242);
		ASSERT_INT_EQ(reply(0, reply_of(f), 10), true);
		acl_sessions_fini();
	}
}

static void test_flush_port(void)
{
	struct acl_session_stats st;
	struct acl_flow a = flow4(1, 6, 3, ACL_SESSION_INGRESS);
	struct acl_flow b = flow6(1, 6, 4, ACL_SESSION_INGRESS);

	init(2, 1024);
	ASSERT_INT_EQ(acl_session_add(0, &a, 10), 0);
	ASSERT_INT_EQ(acl_session_add(1, &b, 10), 0);
	acl_sessions_flush_port(3);
	ASSERT_INT_EQ(reply(0, reply_of(a), 11), false);
	ASSERT_INT_EQ(reply(1, reply_of(a), 11), false);
	ASSERT_INT_EQ(reply(0, reply_of(b), 11), true);
	acl_sessions_stats_at(0, 11, &st);
	ASSERT_INT_EQ(st.live, 0);
	ASSERT_INT_EQ(st.expired, 1);
	/* The index's next port records its own. */
	ASSERT_INT_EQ(acl_session_add(0, &a, 12), 0);
	ASSERT_INT_EQ(reply(1, reply_of(a), 12), true);
	acl_sessions_stats_at(0, 12, &st);
	ASSERT_INT_EQ(st.live, 1);
	ASSERT_INT_EQ(st.created, 2);
	acl_sessions_fini();
}

/* Whatever bytes a frame brings are a key: recorded ones are found by
 * their reply, the rest are not. */
static void test_any_bytes(void)
{
	uint64_t x = 0x243F6A8885A308D3ull;
	static struct acl_flow fl[2000];

	init(3, 4096);
	for (unsigned int i = 0; i < (sizeof(fl) / sizeof(fl[0])); i++) {
		uint8_t *p = (uint8_t *)&fl[i];

		for (unsigned int j = 0; j < sizeof(fl[i]); j++) {
			x ^= x << 13;
			x ^= x >> 7;
			x ^= x << 17;
			p[j] = (uint8_t)x;
		}
		if (i % 2 == 0)
			ASSERT_INT_EQ(acl_session_add(i % 3, &fl[i], 10), 0);
	}
	for (unsigned int i = 0; i < (sizeof(fl) / sizeof(fl[0])); i++) {
		/* reply_of's direction: 0 and non-zero, as the table reads it. */
		ASSERT_INT_EQ(reply((i + 1) % 3, reply_of(fl[i]), 10), i % 2 == 0);
	}
	acl_sessions_fini();
}

/* The bulk calls say what the single ones say, flow by flow. */
static void test_bulk(void)
{
	static struct acl_flow fl[200], rp[200];
	const struct acl_flow *p[ACL_SESSION_BULK];
	uint64_t hits, want;

	init(2, 64 + 32);
	for (unsigned int i = 0; i < 200; i++) {
		fl[i] = i % 3 ? flow4(i, 6, 1, ACL_SESSION_INGRESS)
			      : flow6(i, 17, 2, ACL_SESSION_EGRESS);
		rp[i] = reply_of(fl[i]);
	}
	/* Worker 0 records the even ones, 64 then 32: its bound is 96. */
	for (unsigned int i = 0; i < 64; i++)
		p[i] = &fl[2 * i];
	ASSERT_INT_EQ(acl_session_add_bulk(0, p, 64, 10), 0);
	for (unsigned int i = 0; i < 40; i++)
		p[i] = &fl[128 + 2 * (i % 36)];
	/* 36 new ones, of which the last 4 find no room, then 4 recorded
	 * ones again (refreshed, not refused). */
	ASSERT_INT_EQ(acl_session_add_bulk(0, p, 40, 10), 0xfull << 32);
	/* Worker 1 asks for replies of all, 64 at a time. */
	for (unsigned int base = 0; base < 192; base += 64) {
		want = 0;
		for (unsigned int i = 0; i < 64; i++) {
			unsigned int f = base + i;

			p[i] = &rp[f];
			if (f % 2 == 0 && f < 128 + 2 * 32)
				want |= 1ull << i;
			ASSERT_INT_EQ(reply(1, rp[f], 10), (want >> i) & 1);
		}
		acl_session_reply_bulk(1, p, 64, 10, &hits);
		ASSERT_INT_EQ(hits, want);
		acl_session_reply_bulk(0, p, 64, 10, &hits);
		ASSERT_INT_EQ(hits, want);
		/* The flows themselves are no replies. */
		for (unsigned int i = 0; i < 64; i++)
			p[i] = &fl[base + i];
		acl_session_reply_bulk(1, p, 64, 10, &hits);
		ASSERT_INT_EQ(hits, 0);
	}
	/* Ended: none. Nothing, too many, or no such worker: none. */
	for (unsigned int i = 0; i < 64; i++)
		p[i] = &rp[2 * i];
	acl_session_reply_bulk(1, p, 64, 10 + 3601 * S, &hits);
	ASSERT_INT_EQ(hits, 0);
	acl_session_reply_bulk(1, p, 0, 10, &hits);
	ASSERT_INT_EQ(hits, 0);
	acl_session_reply_bulk(1, p, ACL_SESSION_BULK + 1, 10, &hits);
	ASSERT_INT_EQ(hits, 0);
	acl_session_reply_bulk(2, p, 1, 10, &hits);
	ASSERT_INT_EQ(hits, 0);
	ASSERT_INT_EQ(acl_session_add_bulk(0, p, 0, 10), 0);
	ASSERT_INT_EQ(acl_session_add_bulk(2, p, 3, 10), 7);
	acl_sessions_fini();
}

/* Without EAL (rte_get_tsc_hz() is 0) the TSC is measured: timeouts are
 * seconds, not ticks. */
static void test_real_clock(void)
{
	struct acl_flow f = flow4(1, 17, 1, ACL_SESSION_INGRESS);
	uint64_t t = rte_rdtsc();

	ASSERT_INT_EQ(acl_sessions_init(1, 16), 0);
	ASSERT_INT_EQ(acl_session_add(0, &f, t), 0);
	/* 1 s later: live (120 s for UDP); 121 s later: ended. The TSC runs
	 * at 0.1 .. 10 GHz. */
	ASSERT_INT_EQ(reply(0, reply_of(f), t + 1000000000ull), true);
	ASSERT_INT_EQ(reply(0, reply_of(f), t + 1000000000ull + 1300000000000ull), false);
	acl_sessions_fini();
}

static void test_init_bounds(void)
{
	ASSERT_INT_EQ(acl_sessions_init(0, 10), -EINVAL);
	ASSERT_INT_EQ(acl_sessions_init(65, 10), -EINVAL);
	ASSERT_INT_EQ(acl_sessions_init(1, ACL_SESSIONS_MAX + 1), -EINVAL);
	/* Nothing made: lookups and adds refuse, stats are zero. */
	struct acl_flow f = flow4(1, 6, 1, 0);
	struct acl_session_stats st = {.live = 7};

	ASSERT_INT_EQ(acl_session_add(0, &f, 1), -ENOSPC);
	ASSERT_INT_EQ(reply(0, f, 1), false);
	acl_sessions_stats_at(0, 1, &st);
	ASSERT_INT_EQ(st.live, 0);
	acl_sessions_fini();
	acl_sessions_fini();
	init(1, 1);
	ASSERT_INT_EQ(acl_session_add(0, &f, 1), 0);
	f.sport++;
	ASSERT_INT_EQ(acl_session_add(0, &f, 1), -ENOSPC);
	acl_sessions_fini();
}

/* ---- an owner writing while another worker reads ------------------------- */

/* Keys of the churn: flow i is (A(i), B(i)); the reader also asks for
 * (A(i), B(i + 1)), made of two recorded keys' halves, never recorded: a
 * torn read of an entry moving from one key to the next would match it. */
static struct acl_flow churn(uint32_t i, bool torn)
{
	struct acl_flow f = {.v6 = 1, .proto = 17, .port = 1, .dir = ACL_SESSION_INGRESS};
	uint32_t j = torn ? i + 1 : i;

	memset(f.src, 0xa0, 16);
	memset(f.dst, 0xb0, 16);
	memcpy(&f.src[0], &i, 4);
	memcpy(&f.src[12], &i, 4);
	memcpy(&f.dst[0], &j, 4);
	memcpy(&f.dst[12], &j, 4);
	f.sport = (uint16_t)i;
	f.dport = (uint16_t)j;
	return f;
}

#define PINNED	 64
#define CHURN_TS 2000 /* UDP timeout, ticks */

static struct {
	uint64_t clock;	  /* the fake TSC, advanced by the owner */
	uint32_t started; /* churn keys whose add has begun: [0, started) */
	bool stop;
	uint64_t lookups, hits, bad_torn, bad_unknown, bad_pinned, bad_never, bad_ended;
} race;

static void *owner_thread(void *arg)
{
	(void)arg;
	for (uint32_t i = 0; i < 3000000; i++) {
		uint64_t now = __atomic_add_fetch(&race.clock, 1, __ATOMIC_RELAXED);
		struct acl_flow f = churn(i, false);

		/* The pinned (TCP) sessions stay live: refreshed often. */
		if (i % 1000 == 0)
			for (uint32_t p = 0; p < PINNED; p++) {
				struct acl_flow pf = flow4(p, 6, 2, ACL_SESSION_EGRESS);

				acl_session_add(0, &pf, now);
			}
		__atomic_store_n(&race.started, i + 1, __ATOMIC_RELEASE);
		acl_session_add(0, &f, now);
	}
	__atomic_store_n(&race.stop, true, __ATOMIC_RELEASE);
	return NULL;
}

static void *reader_thread(void *arg)
{
	uint64_t x = 88172645463325252ull;

	(void)arg;
	while (!__atomic_load_n(&race.stop, __ATOMIC_ACQUIRE)) {
		uint32_t started = __atomic_load_n(&race.started, __ATOMIC_ACQUIRE);
		uint64_t now = __atomic_load_n(&race.clock, __ATOMIC_RELAXED);
		uint32_t i, p;
		bool hit;

		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		/* A recent churn key (live or ended), its torn twin, or one
		 * about to be recorded (found only if recorded by then). */
		i = started + 64 - (uint32_t)(x % 4160);
		if (i > UINT32_MAX - 64)
			i = (uint32_t)(x % 64); /* early on */
		hit = reply(1, reply_of(churn(i, false)), now);
		race.hits += hit;
		if (hit && i >= __atomic_load_n(&race.started, __ATOMIC_ACQUIRE))
			race.bad_unknown++;
		if (reply(1, reply_of(churn(i, true)), now))
			race.bad_torn++;
		/* Ended long ago (left the window above 4096 keys ago, idle
		 * 2000 ticks since): its entry is being reused for new flows;
		 * half of its old key with the new one's time would match. */
		if (started > 12288 &&
		    reply(1, reply_of(churn(started - 8192 - (uint32_t)(x % 4096), false)), now))
			race.bad_ended++;
		/* Never recorded: another port. */
		if (reply(1, reply_of(flow4((uint32_t)x % PINNED, 6, 3, ACL_SESSION_EGRESS)), now))
			race.bad_never++;
		/* Pinned: there all along. */
		p = (uint32_t)(x >> 32) % PINNED;
		if (!reply(1, reply_of(flow4(p, 6, 2, ACL_SESSION_EGRESS)), now))
			race.bad_pinned++;
		race.lookups += 5;
	}
	return NULL;
}

static void test_concurrent(void)
{
	struct acl_session_stats st;
	pthread_t o, r;

	init(2, 4096);
	acl_session_timeouts(3600, CHURN_TS / HZ, 60);
	memset(&race, 0, sizeof(race));
	race.clock = 1;
	for (uint32_t p = 0; p < PINNED; p++) {
		struct acl_flow pf = flow4(p, 6, 2, ACL_SESSION_EGRESS);

		ASSERT_INT_EQ(acl_session_add(0, &pf, 1), 0);
	}
	ASSERT_INT_EQ(pthread_create(&r, NULL, reader_thread, NULL), 0);
	ASSERT_INT_EQ(pthread_create(&o, NULL, owner_thread, NULL), 0);
	pthread_join(o, NULL);
	pthread_join(r, NULL);
	printf("\n    %llu lookups, %llu churn hits; table: ", (unsigned long long)race.lookups,
	       (unsigned long long)race.hits);
	acl_sessions_stats_at(0, race.clock, &st);
	printf("live %llu created %llu expired %llu full %llu\n", (unsigned long long)st.live,
	       (unsigned long long)st.created, (unsigned long long)st.expired,
	       (unsigned long long)st.full);
	ASSERT_INT_EQ(race.bad_torn, 0);
	ASSERT_INT_EQ(race.bad_ended, 0);
	ASSERT_INT_EQ(race.bad_unknown, 0);
	ASSERT_INT_EQ(race.bad_never, 0);
	ASSERT_INT_EQ(race.bad_pinned, 0);
	/* The churn did churn: entries were reused in place many times. */
	unit_check(st.expired > 1000000, __LINE__, __FILE__, "expired %llu",
		   (unsigned long long)st.expired);
	unit_check(race.hits > 0, __LINE__, __FILE__, "no churn key was ever found");
	acl_sessions_fini();
}

/* The same on a table of 16 entries whose sessions last 8 ticks: every
 * add reuses an entry that just ended, while the reader asks for flows
 * that just ended: a key read half before and half after its entry was
 * reused, or with the new flow's time, would match. */
static void *small_owner(void *arg)
{
	(void)arg;
	for (uint32_t i = 0; i < 4000000; i++) {
		uint64_t now = __atomic_add_fetch(&race.clock, 1, __ATOMIC_RELAXED);
		struct acl_flow f = churn(i, false);

		__atomic_store_n(&race.started, i + 1, __ATOMIC_RELEASE);
		acl_session_add(0, &f, now);
	}
	__atomic_store_n(&race.stop, true, __ATOMIC_RELEASE);
	return NULL;
}

static void *small_reader(void *arg)
{
	uint64_t x = 88172645463325252ull;

	(void)arg;
	while (!__atomic_load_n(&race.stop, __ATOMIC_ACQUIRE)) {
		uint32_t started = __atomic_load_n(&race.started, __ATOMIC_ACQUIRE);
		uint64_t now = __atomic_load_n(&race.clock, __ATOMIC_RELAXED);
		uint32_t i;

		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		if (started < 64)
			continue;
		/* Added at about started - 12 - k, idle since: ended. */
		i = started - 12 - (uint32_t)(x % 4);
		if (reply(1, reply_of(churn(i, false)), now))
			race.bad_ended++;
		if (reply(1, reply_of(churn(i + 6, true)), now))
			race.bad_torn++;
		race.lookups += 2;
	}
	return NULL;
}

static void test_concurrent_small(void)
{
	pthread_t o, r;

	ASSERT_INT_EQ(acl_sessions_init(2, 16), 0);
	acl_sessions_clock(8); /* timeouts of 1 s: 8 ticks */
	acl_session_timeouts(1, 1, 1);
	memset(&race, 0, sizeof(race));
	race.clock = 1;
	ASSERT_INT_EQ(pthread_create(&r, NULL, small_reader, NULL), 0);
	ASSERT_INT_EQ(pthread_create(&o, NULL, small_owner, NULL), 0);
	pthread_join(o, NULL);
	pthread_join(r, NULL);
	printf("\n    %llu lookups ", (unsigned long long)race.lookups);
	ASSERT_INT_EQ(race.bad_ended, 0);
	ASSERT_INT_EQ(race.bad_torn, 0);
	acl_sessions_fini();
}

int main(void)
{
	static const struct unit_test tests[] = {
	    {"reverse match, IPv4", test_reverse_v4},
	    {"reverse match, IPv6", test_reverse_v6},
	    {"IPv4 keys are 4 bytes", test_v4_ignores_rest},
	    {"ICMP per address pair", test_icmp},
	    {"idle timeouts per protocol", test_timeouts},
	    {"bound, full counter, reuse", test_bound_full},
	    {"full table under a flood", test_full_flood},
	    {"structured keys spread", test_structured_keys},
	    {"flush a port", test_flush_port},
	    {"any bytes are a key", test_any_bytes},
	    {"bulk calls", test_bulk},
	    {"TSC measured without EAL", test_real_clock},
	    {"init bounds", test_init_bounds},
	    {"owner writes, another reads", test_concurrent},
	    {"owner reuses, another reads", test_concurrent_small},
	    {NULL, NULL},
	};

	return unit_run("acl_session", tests);
}
