/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * What a vhost-user frontend hands podwired, checked before librte_vhost
 * maps or uses it. librte_vhost maps each region's fd as told and its own
 * thread reads the rings in it while it handles the next messages: a
 * region longer than its file, or a file the pod shrinks afterwards,
 * faults (SIGBUS) in podwired. A file on another filesystem (FUSE) could
 * stall whoever touches it. So only regular tmpfs and hugetlbfs files,
 * as long as claimed, sealed against shrinking when they take seals
 * (memfds); what cannot be sealed is left to the SIGBUS guard.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/magic.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statfs.h>

#include "model/port.h"
#include "ports/vhost/vhost.h"

_Static_assert(sizeof(struct vhost_fe_msg) ==
		   12 + VHOST_MSG_PAYLOAD + 4 * VHOST_MSG_MAX_REGIONS + 4,
	       "struct vhost_fe_msg must match librte_vhost's struct vhu_msg_context");

/* [a, a + an) and [b, b + bn) share a byte; neither wraps (checked). */
static bool overlap(uint64_t a, uint64_t an, uint64_t b, uint64_t bn)
{
	return a < b + bn && b < a + an;
}

static int check_region(const struct vhost_fe_region *r, int fd, unsigned int i, char *why,
			size_t len)
{
	uint64_t end = r->mmap_offset + r->memory_size;
	struct statfs sfs;
	struct stat st;
	int seals;

	if (r->memory_size == 0 || end < r->mmap_offset ||
	    r->guest_phys_addr + r->memory_size < r->guest_phys_addr ||
	    r->userspace_addr + r->memory_size < r->userspace_addr) {
		snprintf(why, len,
			 "region %u: size %#llx with offset %#llx or its addresses is empty or "
			 "wraps",
			 i, (unsigned long long)r->memory_size, (unsigned long long)r->mmap_offset);
		return -EINVAL;
	}
	/* Seals exist only on tmpfs and hugetlbfs files: asking for them
	 * first sorts out every other file without calling into its
	 * filesystem (fstatfs on a FUSE file would wait on its daemon). */
	seals = fcntl(fd, F_GET_SEALS);
	if (seals < 0 || fstatfs(fd, &sfs) != 0 ||
	    ((unsigned long)sfs.f_type != TMPFS_MAGIC &&
	     (unsigned long)sfs.f_type != HUGETLBFS_MAGIC) ||
	    fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
		snprintf(why, len,
			 "region %u: its fd is not a memfd, tmpfs or hugetlbfs file (a file on "
			 "another filesystem could stall podwired)",
			 i);
		return -EINVAL;
	}
	/* A file that still takes seals (a memfd made with
	 * MFD_ALLOW_SEALING) is sealed: the size checked below stays. Files
	 * that do not (hugetlbfs files of --single-file-segments pods) can
	 * still shrink: the SIGBUS guard is for them. */
	if (!(seals & (F_SEAL_SHRINK | F_SEAL_SEAL)) &&
	    fcntl(fd, F_ADD_SEALS, F_SEAL_SHRINK) != 0) {
		snprintf(why, len, "region %u cannot be sealed against shrinking (%s)", i,
			 strerror(errno));
		return -EINVAL;
	}
	if (fstat(fd, &st) != 0 || (uint64_t)st.st_size < end) {
		snprintf(why, len,
			 "region %u: the file is %lld bytes, less than offset %#llx + size %#llx",
			 i, (long long)st.st_size, (unsigned long long)r->mmap_offset,
			 (unsigned long long)r->memory_size);
		return -EINVAL;
	}
	return 0;
}

static int check_mem_table(const struct vhost_fe_msg *m, char *why, size_t len)
{
	uint32_t n = m->payload.memory.nregions;
	struct vhost_fe_region r[VHOST_MSG_MAX_REGIONS];

	if (n == 0 || n > VHOST_MSG_MAX_REGIONS || m->fd_num != (int)n) {
		snprintf(why, len, "SET_MEM_TABLE with %u regions and %d fds (1 to %d, one each)",
			 n, m->fd_num, VHOST_MSG_MAX_REGIONS);
		return -EINVAL;
	}
	/* The message is packed: its regions may sit unaligned. */
	memcpy(r, (const uint8_t *)m + offsetof(struct vhost_fe_msg, payload.memory.regions),
	       n * sizeof(r[0]));
	for (unsigned int i = 0; i < n; i++) {
		int rc = check_region(&r[i], m->fds[i], i, why, len);

		if (rc != 0)
			return rc;
		for (unsigned int j = 0; j < i; j++) {
			if (overlap(r[i].guest_phys_addr, r[i].memory_size, r[j].guest_phys_addr,
				    r[j].memory_size) ||
			    overlap(r[i].userspace_addr, r[i].memory_size, r[j].userspace_addr,
				    r[j].memory_size)) {
				snprintf(why, len, "regions %u and %u overlap", j, i);
				return -EINVAL;
			}
		}
	}
	return 0;
}

/* The vring a vring message names is one of the port's: librte_vhost
 * makes (and keeps for the connection) any ring up to 255 a frontend
 * names, and sends on none podwired does not poll. */
static int check_vring(const struct vhost_fe_msg *m, unsigned int n_vrings, char *why, size_t len)
{
	const uint8_t *payload = (const uint8_t *)m + offsetof(struct vhost_fe_msg, payload);
	uint64_t u64;
	uint32_t idx;

	switch (m->request) {
	case VHOST_REQ_SET_VRING_KICK:
	case VHOST_REQ_SET_VRING_CALL:
	case VHOST_REQ_SET_VRING_ERR:
		memcpy(&u64, payload, sizeof(u64));
		idx = (uint32_t)(u64 & VHOST_MSG_VRING_IDX_MASK);
		break;
	case VHOST_REQ_SET_VRING_NUM:
	case VHOST_REQ_SET_VRING_ADDR:
	case VHOST_REQ_SET_VRING_BASE:
	case VHOST_REQ_GET_VRING_BASE:
	case VHOST_REQ_SET_VRING_ENABLE:
		/* struct vhost_vring_state and vhost_vring_addr: the index
		 * first. */
		memcpy(&idx, payload, sizeof(idx));
		break;
	default:
		return 0;
	}
	if (idx < n_vrings)
		return 0;
	snprintf(why, len,
		 "vring %u, but the port offers %u queue pair(s) (vrings 0-%u): give the pod "
		 "queues=%u at most, or the port more queues",
		 idx, n_vrings / 2, n_vrings - 1, n_vrings / 2);
	return -EINVAL;
}

int vhost_check_msg(const struct vhost_fe_msg *m, unsigned int n_vrings, char *why, size_t len)
{
	if (check_vring(m, n_vrings, why, len) != 0)
		return -EINVAL;
	switch (m->request) {
	case VHOST_REQ_SET_MEM_TABLE:
		return check_mem_table(m, why, len);
	case VHOST_REQ_SET_VRING_KICK:
	case VHOST_REQ_SET_VRING_CALL:
	case VHOST_REQ_SET_VRING_ERR:
		if (m->fd_num > 1 || (m->fd_num == 1 && !port_fd_is_eventfd(m->fds[0]))) {
			snprintf(why, len, "a vring kick, call or error fd that is not an eventfd");
			return -EINVAL;
		}
		return 0;
	case VHOST_REQ_SET_LOG_BASE:
	case VHOST_REQ_SET_LOG_FD:
		snprintf(why, len, "a dirty log (live migration), which podwired does not offer");
		return -EINVAL;
	case VHOST_REQ_GET_INFLIGHT_FD:
	case VHOST_REQ_SET_INFLIGHT_FD:
		snprintf(why, len, "inflight memory, which podwired does not offer");
		return -EINVAL;
	case VHOST_REQ_SET_SLAVE_REQ_FD:
	case VHOST_REQ_IOTLB_MSG:
	case VHOST_REQ_CRYPTO_CREATE_SESS:
	case VHOST_REQ_CRYPTO_CLOSE_SESS:
	case VHOST_REQ_POSTCOPY_ADVISE:
	case VHOST_REQ_POSTCOPY_LISTEN:
	case VHOST_REQ_POSTCOPY_END:
		snprintf(why, len, "request %u, for a feature podwired does not offer", m->request);
		return -EINVAL;
	default:
		return 0;
	}
}
