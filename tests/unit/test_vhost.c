/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Unit tests of what podwired checks in a vhost-user frontend's messages
 * before librte_vhost acts on them (ports/vhost/check.c): every way a
 * memory table can be wrong, fds of the wrong kind, messages for features
 * podwired does not offer.
 */
#include <errno.h>
#include <fcntl.h>
#include <stddef.h>
#include <sys/eventfd.h>
#include <sys/mman.h>
#include <unistd.h>

#include "ports/vhost/vhost.h"
#include "unit.h"

static char why[256];

#define REFUSED(m, words)                                                                          \
	do {                                                                                       \
		why[0] = '\0';                                                                     \
		ASSERT_INT_EQ(vhost_check_msg((m), why, sizeof(why)), -EINVAL);                    \
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
					    .userspace_addr = 0x7f0000000000ULL + ((uint64_t)i << 20),
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
	ASSERT_INT_EQ(vhost_check_msg(&m, why, sizeof(why)), 0);
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
	ASSERT_INT_EQ(vhost_check_msg(&m, why, sizeof(why)), 0);
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
	ASSERT_INT_EQ(vhost_check_msg(&m, why, sizeof(why)), 0);
	close(m.fds[0]);
	m.fd_num = 0;
	ASSERT_INT_EQ(vhost_check_msg(&m, why, sizeof(why)), 0);
	close(p[0]);
	close(p[1]);
	m.request = VHOST_REQ_SET_LOG_BASE;
	REFUSED(&m, "dirty log");
	m.request = VHOST_REQ_SET_INFLIGHT_FD;
	REFUSED(&m, "inflight");
	m.request = VHOST_REQ_POSTCOPY_ADVISE;
	REFUSED(&m, "does not offer");
	m.request = VHOST_REQ_SET_FEATURES;
	ASSERT_INT_EQ(vhost_check_msg(&m, why, sizeof(why)), 0);
}

int main(void)
{
	static const struct unit_test tests[] = {
	    {"message layout is librte_vhost's", test_layout},
	    {"a good memory table passes and is sealed", test_good_table_is_sealed},
	    {"sizes, offsets, overlaps, counts", test_bad_tables},
	    {"device files, directories, shrunk files", test_bad_files},
	    {"vring fds, unoffered features", test_other_messages},
	    {NULL, NULL},
	};

	return unit_run("vhost", tests);
}
