/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Unit tests of what podwired checks in a vhost-user frontend's messages
 * before librte_vhost acts on them (ports/vhost/check.c): every way a
 * memory table can be wrong, fds of the wrong kind, messages for features
 * podwired does not offer. And the SIGBUS guard they share with memif:
 * owners, faults outside, EAL's handler before and after it.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdbool.h>
#include <stddef.h>
#include <sys/eventfd.h>
#include <sys/mman.h>
#include <unistd.h>

#include <setjmp.h>
#include <signal.h>

#include "ports/guard.h"
#include "ports/vhost/vhost.h"
#include "unit.h"

static char why[256];

#define REFUSED(m, words)                                                                          \
	do {                                                                                       \
		why[0] = '\0';                                                                     \
		ASSERT_INT_EQ(vhost_check_msg((m), 2, why, sizeof(why)), -EINVAL);                 \
		ASSERT_CONTAINS(why, (words));                                                     \
	} while (0)

static int memfd(size_t size, unsigned int flags)
{
	int fd = memfd_create("vhost-test", flags);

	CU_ASSERT_FATAL(fd >= 0 && ftruncate(fd, (off_t)size) == 0);
	return fd;
}

/* A table of n regions of 1 MiB each, one memfd each, side by side. */
static void table(struct vhost_fe_msg *m, unsigned int n)
{
	memset(m, 0, sizeof(*m));
	m->request = VHOST_REQ_SET_MEM_TABLE;
	m->payload.memory.nregions = n;
	m->fd_num = (int)n;
	for (unsigned int i = 0; i < n; i++) {
		struct vhost_fe_region r = {.guest_phys_addr = (uint64_t)i << 20,
					    .memory_size = 1 << 20,
					    .userspace_addr =
						0x7f0000000000ULL + ((uint64_t)i << 20),
					    .mmap_offset = 0};

		memcpy(&m->payload.memory.regions[i], &r, sizeof(r));
		m->fds[i] = memfd(1 << 20, MFD_ALLOW_SEALING);
	}
}

static void untable(struct vhost_fe_msg *m)
{
	for (int i = 0; i < m->fd_num; i++)
		if (m->fds[i] >= 0)
			close(m->fds[i]);
}

static void set(struct vhost_fe_msg *m, unsigned int i, uint64_t gpa, uint64_t size, uint64_t ua,
		uint64_t off)
{
	struct vhost_fe_region r = {gpa, size, ua, off};

	memcpy(&m->payload.memory.regions[i], &r, sizeof(r));
}

static void test_layout(void)
{
	ASSERT_INT_EQ(offsetof(struct vhost_fe_msg, payload), 12);
	ASSERT_INT_EQ(offsetof(struct vhost_fe_msg, payload.memory.regions), 20);
	ASSERT_INT_EQ(offsetof(struct vhost_fe_msg, fds), 12 + 632);
	ASSERT_INT_EQ(offsetof(struct vhost_fe_msg, fd_num), 12 + 632 + 32);
}

static void test_good_table_is_sealed(void)
{
	struct vhost_fe_msg m;

	table(&m, 3);
	ASSERT_INT_EQ(vhost_check_msg(&m, 2, why, sizeof(why)), 0);
	/* Sealed: the pod can no longer take its pages back. */
	for (unsigned int i = 0; i < 3; i++) {
		CU_ASSERT(fcntl(m.fds[i], F_GET_SEALS) & F_SEAL_SHRINK);
		CU_ASSERT(ftruncate(m.fds[i], 4096) != 0);
	}
	untable(&m);
}

static void test_bad_tables(void)
{
	struct vhost_fe_msg m;

	table(&m, 2);
	set(&m, 1, 1 << 20, 2 << 20, 0x7f0000100000ULL, 0);
	REFUSED(&m, "less than offset");
	set(&m, 1, 1 << 20, 1 << 20, 0x7f0000100000ULL, 4096);
	REFUSED(&m, "less than offset");
	set(&m, 1, 1 << 20, 1 << 20, 0x7f0000100000ULL, UINT64_MAX - 4095);
	REFUSED(&m, "wraps");
	set(&m, 1, 1 << 20, 0, 0x7f0000100000ULL, 0);
	REFUSED(&m, "empty");
	set(&m, 1, UINT64_MAX - 4095, 1 << 20, 0x7f0000100000ULL, 0);
	REFUSED(&m, "wraps");
	/* Overlaps, guest-physical then frontend addresses. */
	set(&m, 1, 4096, 4096, 0x7f0000100000ULL, 0);
	REFUSED(&m, "regions 0 and 1 overlap");
	set(&m, 1, 1 << 20, 4096, 0x7f0000000000ULL + 8192, 0);
	REFUSED(&m, "regions 0 and 1 overlap");
	set(&m, 1, 1 << 20, 1 << 20, 0x7f0000100000ULL, 0);
	ASSERT_INT_EQ(vhost_check_msg(&m, 2, why, sizeof(why)), 0);
	/* Counts. */
	m.payload.memory.nregions = 0;
	REFUSED(&m, "SET_MEM_TABLE with 0 regions");
	m.payload.memory.nregions = 9;
	REFUSED(&m, "SET_MEM_TABLE with 9 regions");
	m.payload.memory.nregions = 1;
	REFUSED(&m, "1 regions and 2 fds");
	m.payload.memory.nregions = 2;
	untable(&m);
}

static void test_bad_files(void)
{
	struct vhost_fe_msg m;
	int keep;

	table(&m, 1);
	keep = m.fds[0];
	m.fds[0] = open("/dev/zero", O_RDWR);
	REFUSED(&m, "not a memfd, tmpfs or hugetlbfs file");
	close(m.fds[0]);
	m.fds[0] = open("/", O_RDONLY | O_DIRECTORY);
	REFUSED(&m, "not a memfd, tmpfs or hugetlbfs file");
	close(m.fds[0]);
	/* A memfd sealed against more seals but able to shrink is the
	 * guard's; one already shrunk is refused. */
	m.fds[0] = memfd(4096, MFD_ALLOW_SEALING);
	CU_ASSERT(fcntl(m.fds[0], F_ADD_SEALS, F_SEAL_SEAL) == 0);
	REFUSED(&m, "the file is 4096 bytes");
	close(m.fds[0]);
	m.fds[0] = keep;
	untable(&m);
}

static void test_other_messages(void)
{
	struct vhost_fe_msg m;
	int p[2];

	memset(&m, 0, sizeof(m));
	CU_ASSERT_FATAL(pipe(p) == 0);
	m.request = VHOST_REQ_SET_VRING_CALL;
	m.fd_num = 1;
	m.fds[0] = p[1];
	REFUSED(&m, "not an eventfd");
	m.fds[0] = eventfd(0, 0);
	ASSERT_INT_EQ(vhost_check_msg(&m, 2, why, sizeof(why)), 0);
	close(m.fds[0]);
	m.fd_num = 0;
	ASSERT_INT_EQ(vhost_check_msg(&m, 2, why, sizeof(why)), 0);
	close(p[0]);
	close(p[1]);
	m.request = VHOST_REQ_SET_LOG_BASE;
	REFUSED(&m, "dirty log");
	m.request = VHOST_REQ_SET_INFLIGHT_FD;
	REFUSED(&m, "inflight");
	m.request = VHOST_REQ_POSTCOPY_ADVISE;
	REFUSED(&m, "does not offer");
	m.request = VHOST_REQ_SET_FEATURES;
	ASSERT_INT_EQ(vhost_check_msg(&m, 2, why, sizeof(why)), 0);
}

/* Every vring message names one of the 2N rings of the N pairs a port
 * offers: librte_vhost would make any of 256 on the frontend's word. */
static void test_vring_index(void)
{
	static const uint32_t by_state[] = {VHOST_REQ_SET_VRING_NUM, VHOST_REQ_SET_VRING_ADDR,
					    VHOST_REQ_SET_VRING_BASE, VHOST_REQ_GET_VRING_BASE,
					    VHOST_REQ_SET_VRING_ENABLE};
	static const uint32_t by_u64[] = {VHOST_REQ_SET_VRING_KICK, VHOST_REQ_SET_VRING_CALL,
					  VHOST_REQ_SET_VRING_ERR};
	struct vhost_fe_msg m;

	for (unsigned int n = 1; n <= PW_MAX_QUEUES; n *= 2) {
		for (unsigned int i = 0; i < RTE_DIM(by_state); i++) {
			memset(&m, 0, sizeof(m));
			m.request = by_state[i];
			for (uint32_t idx = 0; idx < 2 * n; idx++) {
				memcpy(m.payload.raw, &idx, sizeof(idx));
				ASSERT_INT_EQ(vhost_check_msg(&m, 2 * n, why, sizeof(why)), 0);
			}
			for (uint32_t idx = 2 * n; idx < 2 * n + 2; idx++) {
				memcpy(m.payload.raw, &idx, sizeof(idx));
				why[0] = '\0';
				ASSERT_INT_EQ(vhost_check_msg(&m, 2 * n, why, sizeof(why)),
					      -EINVAL);
				ASSERT_CONTAINS(why, "queue pair(s)");
			}
			/* The whole index counts, not its low byte. */
			uint32_t far = 0x100;

			memcpy(m.payload.raw, &far, sizeof(far));
			ASSERT_INT_EQ(vhost_check_msg(&m, 2 * n, why, sizeof(why)), -EINVAL);
		}
		for (unsigned int i = 0; i < RTE_DIM(by_u64); i++) {
			memset(&m, 0, sizeof(m));
			m.request = by_u64[i];
			for (uint64_t idx = 0; idx < 2 * n + 2; idx++) {
				/* "No fd" in bit 8 leaves the ring in the low byte. */
				uint64_t u64 = idx | VHOST_MSG_VRING_NOFD;

				memcpy(m.payload.raw, &u64, sizeof(u64));
				ASSERT_INT_EQ(vhost_check_msg(&m, 2 * n, why, sizeof(why)),
					      idx < 2 * n ? 0 : -EINVAL);
			}
		}
	}
	/* Not a vring message: its first word is no index. */
	memset(&m, 0, sizeof(m));
	m.request = VHOST_REQ_SET_FEATURES;
	m.payload.u64 = 1ULL << 30;
	ASSERT_INT_EQ(vhost_check_msg(&m, 2, why, sizeof(why)), 0);
}

/* Workers spread over the pairs the guest receives on, the same one each
 * while they stay; never one it did not enable. */
static void test_txq_pick(void)
{
	ASSERT_INT_EQ(vhost_txq_pick(0x1, 0), 0);
	ASSERT_INT_EQ(vhost_txq_pick(0x1, 5), 0);
	ASSERT_INT_EQ(vhost_txq_pick(0x3, 0), 0);
	ASSERT_INT_EQ(vhost_txq_pick(0x3, 1), 1);
	ASSERT_INT_EQ(vhost_txq_pick(0x3, 2), 0);
	ASSERT_INT_EQ(vhost_txq_pick(0x5, 1), 2);
	ASSERT_INT_EQ(vhost_txq_pick(0x8000, 3), 15);
	for (uint32_t on = 1; on < 1U << PW_MAX_QUEUES; on++) {
		unsigned int hits[PW_MAX_QUEUES] = {0}, n = (unsigned int)__builtin_popcount(on);

		for (uint16_t w = 0; w < PW_MAX_WORKERS; w++) {
			uint16_t q = vhost_txq_pick((uint16_t)on, w);

			CU_ASSERT_FATAL(q < PW_MAX_QUEUES && (on & (1U << q)));
			hits[q]++;
		}
		/* Evenly: workers w and w + n share a pair. */
		for (unsigned int q = 0; q < PW_MAX_QUEUES; q++)
			if (on & (1U << q))
				CU_ASSERT(hits[q] == PW_MAX_WORKERS / n ||
					  hits[q] == PW_MAX_WORKERS / n + 1);
	}
}

/* ---- offloads ---------------------------------------------------------------------- */

static void test_offloads_cleared(void)
{
	struct rte_mbuf m[3], *pkts[3] = {&m[0], &m[1], &m[2]};

	memset(m, 0, sizeof(m));
	/* What librte_vhost makes of a header asking for TSO with checksum. */
	m[0].ol_flags = RTE_MBUF_F_TX_TCP_SEG | RTE_MBUF_F_TX_IPV4 | RTE_MBUF_F_TX_TCP_CKSUM |
			RTE_MBUF_F_RX_L4_CKSUM_GOOD | RTE_MBUF_F_RX_LRO;
	m[0].l2_len = 14;
	m[0].l3_len = 20;
	m[0].l4_len = 20;
	m[0].tso_segsz = 1;
	m[1].ol_flags = RTE_MBUF_F_TX_UDP_SEG | RTE_MBUF_F_TX_TUNNEL_VXLAN;
	m[2].ol_flags = RTE_MBUF_F_RX_VLAN; /* not an offload request: kept */
	m[2].vlan_tci = 5;
	vhost_clear_offloads(pkts, 3);
	ASSERT_INT_EQ(m[0].ol_flags, 0);
	ASSERT_INT_EQ(m[0].tx_offload, 0);
	ASSERT_INT_EQ(m[1].ol_flags, 0);
	ASSERT_INT_EQ(m[2].ol_flags, RTE_MBUF_F_RX_VLAN);
	ASSERT_INT_EQ(m[2].vlan_tci, 5);
}

/* A guest that negotiated host offloads: its checksum and TCP
 * segmentation requests stay, anything else goes (the frame then asks
 * for nothing). */
static void test_offloads_kept(void)
{
	struct rte_mbuf m[4], *pkts[4] = {&m[0], &m[1], &m[2], &m[3]};
	const uint64_t tso = RTE_MBUF_F_TX_TCP_SEG | RTE_MBUF_F_TX_IPV6 | RTE_MBUF_F_TX_TCP_CKSUM;

	memset(m, 0, sizeof(m));
	m[0].ol_flags = tso;
	m[0].l2_len = 14;
	m[0].l3_len = 40;
	m[0].l4_len = 32;
	m[0].tso_segsz = 1440;
	m[1].ol_flags = RTE_MBUF_F_TX_UDP_CKSUM | RTE_MBUF_F_TX_IPV4;
	m[1].l2_len = 18;
	m[1].l3_len = 20;
	/* A UFO header (UDP_SEG) and SCTP's CRC: not carried. */
	m[2].ol_flags = RTE_MBUF_F_TX_UDP_SEG | RTE_MBUF_F_TX_IPV4;
	m[2].l2_len = 14;
	m[2].tso_segsz = 1000;
	m[3].ol_flags = RTE_MBUF_F_TX_SCTP_CKSUM | RTE_MBUF_F_TX_IPV4 | RTE_MBUF_F_RX_VLAN;
	m[3].l2_len = 14;
	vhost_keep_offloads(pkts, 4);
	ASSERT_INT_EQ(m[0].ol_flags, tso);
	ASSERT_INT_EQ(m[0].tso_segsz, 1440);
	ASSERT_INT_EQ(m[0].l4_len, 32);
	ASSERT_INT_EQ(m[1].ol_flags, RTE_MBUF_F_TX_UDP_CKSUM | RTE_MBUF_F_TX_IPV4);
	ASSERT_INT_EQ(m[1].l2_len, 18);
	ASSERT_INT_EQ(m[2].ol_flags, 0);
	ASSERT_INT_EQ(m[2].tx_offload, 0);
	ASSERT_INT_EQ(m[3].ol_flags, RTE_MBUF_F_RX_VLAN);
	ASSERT_INT_EQ(m[3].tx_offload, 0);
}

/* ---- the SIGBUS guard ------------------------------------------------------------------ */

static int faults_a, faults_b;
static void fault_a(void *owner)
{
	faults_a += owner == &faults_a;
}
static void fault_b(void *owner)
{
	faults_b += owner == &faults_b;
}

/* A mapping whose pages the "pod" takes away at once. */
static volatile uint8_t *lost_mapping(size_t len, int *fd)
{
	volatile uint8_t *m;

	*fd = memfd_create("unit-guard", MFD_CLOEXEC);
	CU_ASSERT_FATAL(*fd >= 0 && ftruncate(*fd, (off_t)len) == 0);
	m = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, *fd, 0);
	CU_ASSERT_FATAL(m != MAP_FAILED);
	CU_ASSERT_FATAL(ftruncate(*fd, 0) == 0);
	return m;
}

/* EAL's handler while it maps a hugepage: siglongjmp back to its caller. */
static sigjmp_buf eal_env;
static int eal_faults;
static void eal_like(int sig)
{
	(void)sig;
	eal_faults++;
	siglongjmp(eal_env, 1);
}

static void test_guard(void)
{
	size_t page = (size_t)sysconf(_SC_PAGESIZE);
	struct sigaction eal = {.sa_handler = eal_like}, saved;
	volatile uint8_t *a, *b, *x;
	int fa, fb, fx;

	a = lost_mapping(2 * page, &fa);
	b = lost_mapping(page, &fb);
	x = lost_mapping(page, &fx);
	/* EAL's handler was there first: faults outside the pods' memory
	 * still reach it. */
	sigemptyset(&eal.sa_mask);
	CU_ASSERT_FATAL(sigaction(SIGBUS, &eal, &saved) == 0);
	ASSERT_INT_EQ(guard_init(), 0);
	ASSERT_INT_EQ(guard_add((void *)a, 2 * page, fault_a, &faults_a), 0);
	ASSERT_INT_EQ(guard_add((void *)b, page, fault_b, &faults_b), 0);
	ASSERT_INT_EQ(a[page + 5], 0); /* faults: zeroed, owner a told, once */
	ASSERT_INT_EQ(a[5], 0);
	ASSERT_INT_EQ(faults_a, 1);
	ASSERT_INT_EQ(faults_b, 0);
	if (sigsetjmp(eal_env, 1) == 0)
		(void)x[0];
	ASSERT_INT_EQ(eal_faults, 1);
	/* EAL's moment: it saves the guard, installs its own, puts the
	 * guard back. Meanwhile the guard leaves EAL's in place. */
	{
		struct sigaction guard;

		CU_ASSERT_FATAL(sigaction(SIGBUS, &eal, &guard) == 0);
		ASSERT_INT_EQ(guard_add((void *)b, page, fault_b, &faults_b), 0);
		if (sigsetjmp(eal_env, 1) == 0)
			(void)x[0];
		ASSERT_INT_EQ(eal_faults, 2);
		CU_ASSERT_FATAL(sigaction(SIGBUS, &guard, NULL) == 0);
	}
	ASSERT_INT_EQ(b[0], 0);
	ASSERT_INT_EQ(faults_b, 1);
	ASSERT_INT_EQ(eal_faults, 2);
	/* The default action put back in its place: installed again. */
	signal(SIGBUS, SIG_DFL);
	ASSERT_INT_EQ(guard_init(), 0);
	{
		struct sigaction cur;

		CU_ASSERT(sigaction(SIGBUS, NULL, &cur) == 0 && (cur.sa_flags & SA_SIGINFO));
	}
	signal(SIGBUS, SIG_DFL);
	CU_ASSERT_FATAL(sigaction(SIGBUS, &eal, NULL) == 0);
	ASSERT_INT_EQ(guard_init(), 0); /* over EAL's: left alone */
	{
		struct sigaction cur;

		CU_ASSERT(sigaction(SIGBUS, NULL, &cur) == 0 && cur.sa_handler == eal_like);
	}
	guard_del_owner(&faults_a);
	guard_del_owner(&faults_b);
	CU_ASSERT(sigaction(SIGBUS, &saved, NULL) == 0);
	munmap((void *)a, 2 * page);
	munmap((void *)b, page);
	munmap((void *)x, page);
	close(fa);
	close(fb);
	close(fx);
}

static void call_fail(void *owner)
{
	__atomic_store_n((volatile int *)owner, 1, __ATOMIC_RELEASE);
}

/* Is efd readable within ms? */
static bool signalled_within(int efd, int ms)
{
	struct pollfd p = {.fd = efd, .events = POLLIN};

	return poll(&p, 1, ms) == 1;
}

static bool failed_within(volatile int *flag, int ms)
{
	for (; ms > 0; ms -= 5) {
		if (__atomic_load_n(flag, __ATOMIC_ACQUIRE))
			return true;
		usleep(5000);
	}
	return __atomic_load_n(flag, __ATOMIC_ACQUIRE) != 0;
}

/* call.c: a signal on podwired's eventfd reaches the frontend's; a
 * frontend eventfd made blocking and full fails its owner only, and the
 * forwarding thread goes on for the others. */
static void test_call_forwarding(void)
{
	static volatile int ok_failed, bad_failed;
	uint64_t one = 1, full = 0xfffffffffffffffeULL, v;
	int good = eventfd(0, EFD_NONBLOCK), bad = eventfd(0, 0), good_mine, bad_mine, ours_g,
	    ours_b;
	struct vhost_call *cg, *cb;

	CU_ASSERT_FATAL(good >= 0 && bad >= 0);
	CU_ASSERT_FATAL(vhost_call_start() == 0);
	CU_ASSERT(write(bad, &full, sizeof(full)) == sizeof(full));
	/* call.c takes the fds; we keep duplicates to look at them. */
	good_mine = dup(good);
	bad_mine = dup(bad);
	cg = vhost_call_add(good, call_fail, (void *)&ok_failed, &ours_g);
	cb = vhost_call_add(bad, call_fail, (void *)&bad_failed, &ours_b);
	CU_ASSERT_FATAL(cg != NULL && cb != NULL);
	CU_ASSERT(fcntl(ours_g, F_GETFL) & O_NONBLOCK);
	CU_ASSERT(write(ours_g, &one, sizeof(one)) == sizeof(one));
	CU_ASSERT(signalled_within(good_mine, 1000));
	CU_ASSERT(read(good_mine, &v, sizeof(v)) == sizeof(v) && v == 1);
	/* The full one fails its owner, and only it. */
	CU_ASSERT(write(ours_b, &one, sizeof(one)) == sizeof(one));
	CU_ASSERT(failed_within(&bad_failed, 2000));
	CU_ASSERT(write(ours_g, &one, sizeof(one)) == sizeof(one));
	CU_ASSERT(signalled_within(good_mine, 1000));
	CU_ASSERT(!ok_failed);
	/* Deleted: its fds are closed by the thread, nothing forwarded. */
	vhost_call_del(cg);
	vhost_call_del(cb);
	vhost_call_del(NULL);
	CU_ASSERT(read(good_mine, &v, sizeof(v)) == sizeof(v));
	CU_ASSERT(write(ours_g, &one, sizeof(one)) == sizeof(one));
	CU_ASSERT(!signalled_within(good_mine, 100));
	close(ours_g);
	close(ours_b);
	close(good_mine);
	close(bad_mine);
}

int main(void)
{
	static const struct unit_test tests[] = {
	    {"message layout is librte_vhost's", test_layout},
	    {"a good memory table passes and is sealed", test_good_table_is_sealed},
	    {"sizes, offsets, overlaps, counts", test_bad_tables},
	    {"device files, directories, shrunk files", test_bad_files},
	    {"vring fds, unoffered features", test_other_messages},
	    {"vring indexes: the port's queue pairs only", test_vring_index},
	    {"tx queue pairs: enabled ones, spread over workers", test_txq_pick},
	    {"offload requests are cleared after dequeue", test_offloads_cleared},
	    {"offload requests a guest may make are kept", test_offloads_kept},
	    {"SIGBUS guard: owners, faults elsewhere, EAL's handler", test_guard},
	    {"call eventfds: forwarded, a blocking one fails its owner only", test_call_forwarding},
	    {NULL, NULL},
	};

	return unit_run("vhost", tests);
}
