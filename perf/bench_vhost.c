/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * podwire-bench's vhost-user frontend (bench_vhost.h). One memfd holds,
 * for each queue pair q, its receive vring (2q) and its transmit vring
 * (2q + 1) (descriptors, avail and used rings, each on pages of its
 * own), then each ring's ring_size buffers. It is mapped at the same
 * address the switch is told it is at, both as the frontend's addresses
 * (the rings') and as guest-physical ones (the descriptors'): one region,
 * guest-physical = our virtual.
 *
 * Descriptor d of a ring always points at the ring's buffer d, and on the
 * transmit ring avail slot s always names descriptor s: a frame costs its
 * stamp, and a burst one store of the avail index (a descriptor's length
 * is written only when it changes). On the receive ring every buffer is
 * posted from the start, and given back, in bulk, by the ids the switch
 * used.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* memfd_create */
#endif
#include <errno.h>
#include <fcntl.h>
#include <linux/virtio_config.h>
#include <linux/virtio_net.h>
#include <linux/virtio_ring.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include <rte_prefetch.h>

#include "bench_vhost.h"

/* The vhost-user protocol (its specification, "Front-end message types"). */
enum {
	VU_GET_FEATURES = 1,
	VU_SET_FEATURES = 2,
	VU_SET_OWNER = 3,
	VU_SET_MEM_TABLE = 5,
	VU_SET_VRING_NUM = 8,
	VU_SET_VRING_ADDR = 9,
	VU_SET_VRING_BASE = 10,
	VU_SET_VRING_KICK = 12,
	VU_SET_VRING_CALL = 13,
	VU_GET_PROTOCOL_FEATURES = 15,
	VU_SET_PROTOCOL_FEATURES = 16,
	VU_GET_QUEUE_NUM = 17,
	VU_SET_VRING_ENABLE = 18,
};
#define VU_VERSION	       0x1u
#define VU_REPLY	       0x4u
#define VU_F_PROTOCOL_FEATURES 30
#define VU_PROTOCOL_F_MQ       0
#define VU_HDR		       12u /* request, flags, size */
#define VU_MAX_QUEUE_PAIRS     128u
#define VU_REPLY_MS	       5000
#define VU_RETRY_MS	       20

struct vu_msg {
	uint32_t request, flags, size;
	union {
		uint64_t u64;
		struct {
			uint32_t index, num;
		} state;
		struct {
			uint32_t index, flags;
			uint64_t desc, used, avail, log;
		} addr;
		struct {
			uint32_t n, pad;
			uint64_t gpa, size, uaddr, offset;
		} mem;
	} p;
} __attribute__((packed));

/* One ring and what the frontend keeps of it. */
struct vq {
	struct vring_desc *desc;
	struct vring_avail *avail;
	struct vring_used *used;
	uint8_t *buf;	    /* buffer d at buf + d * buf_size */
	uint16_t avail_idx; /* next avail slot to publish */
	uint16_t used_last; /* next used slot to read */
	uint16_t used_seen; /* the used index as last read */
	uint16_t rx_from;   /* receive: used slots read but not yet posted again */
	int kick, call;
};

struct bench_vhost {
	int sock, memfd;
	uint8_t *mem;
	uint64_t size;
	uint32_t buf_size;
	uint16_t ring_size, mask, nq;
	uint8_t log2;
	bool packed; /* packed rings (desc: struct vring_packed_desc; avail and
		      * used: the driver's and the device's event areas) */
	const char *error;
	uint64_t *tag;	/* per transmit descriptor, nq * ring_size */
	struct vq vq[]; /* 2 * nq: receive 2q, transmit 2q + 1 */
};

static uint64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

static uint64_t page_up(uint64_t x)
{
	return (x + 4095) & ~4095ull;
}

/* One ring's bytes: descriptors, avail, used, each from a page. */
static uint64_t ring_bytes(uint16_t n)
{
	return page_up(16ull * n) + page_up(6 + 2ull * n) + page_up(6 + 8ull * n);
}

/* 0 sent; -errno. fd < 0: none passed. */
static int vu_send(struct bench_vhost *v, uint32_t req, const void *payload, uint32_t size, int fd)
{
	struct vu_msg m = {.request = req, .flags = VU_VERSION, .size = size};
	char ctl[CMSG_SPACE(sizeof(int))];
	struct iovec iov = {.iov_base = &m, .iov_len = VU_HDR + size};
	struct msghdr mh = {.msg_iov = &iov, .msg_iovlen = 1};

	memcpy(&m.p, payload, size);
	if (fd >= 0) {
		struct cmsghdr *cm;

		memset(ctl, 0, sizeof(ctl));
		mh.msg_control = ctl;
		mh.msg_controllen = sizeof(ctl);
		cm = CMSG_FIRSTHDR(&mh);
		cm->cmsg_level = SOL_SOCKET;
		cm->cmsg_type = SCM_RIGHTS;
		cm->cmsg_len = CMSG_LEN(sizeof(int));
		memcpy(CMSG_DATA(cm), &fd, sizeof(int));
	}
	return sendmsg(v->sock, &mh, MSG_NOSIGNAL) == (ssize_t)iov.iov_len ? 0 : -errno;
}

static int vu_send_u64(struct bench_vhost *v, uint32_t req, uint64_t x)
{
	return vu_send(v, req, &x, sizeof(x), -1);
}

static int vu_send_state(struct bench_vhost *v, uint32_t req, uint32_t index, uint32_t num)
{
	uint32_t s[2] = {index, num};

	return vu_send(v, req, s, sizeof(s), -1);
}

/* Asks req and reads its u64 answer. 0, or -errno with why in err. */
static int vu_get_u64(struct bench_vhost *v, uint32_t req, const char *what, uint64_t *out,
		      char *err, size_t err_len)
{
	struct pollfd p = {.fd = v->sock, .events = POLLIN};
	struct vu_msg m;
	ssize_t r;
	int rc = vu_send_u64(v, req, 0);

	if (rc < 0) {
		snprintf(err, err_len, "asking for %s: %s", what, strerror(-rc));
		return rc;
	}
	if (poll(&p, 1, VU_REPLY_MS) != 1) {
		snprintf(err, err_len, "the switch did not answer for %s in %d ms", what,
			 VU_REPLY_MS);
		return -ETIMEDOUT;
	}
	r = recv(v->sock, &m, sizeof(m), 0);
	if (r == 0) {
		snprintf(err, err_len, "the switch hung up when asked for %s", what);
		return -ECONNRESET;
	}
	if (r < (ssize_t)(VU_HDR + 8) || m.request != req || !(m.flags & VU_REPLY) || m.size != 8) {
		snprintf(err, err_len, "the switch's answer for %s is malformed", what);
		return -EPROTO;
	}
	*out = m.p.u64;
	return 0;
}

/* Packed rings: the wrap counter that goes with free-running index idx
 * (1 on the first lap: the ring size divides 2^16 an even number of
 * times, so a uint16_t index keeps it right), and the flags of a
 * descriptor made available, or used by the switch, on that lap. */
static inline bool packed_wrap(const struct bench_vhost *v, uint16_t idx)
{
	return ((idx >> v->log2) & 1) == 0;
}

static inline uint16_t packed_avail_flags(const struct bench_vhost *v, uint16_t idx)
{
	return packed_wrap(v, idx) ? 1u << VRING_PACKED_DESC_F_AVAIL
				   : 1u << VRING_PACKED_DESC_F_USED;
}

static inline bool packed_used(const struct bench_vhost *v, const struct vring_packed_desc *d,
			       uint16_t idx)
{
	uint16_t f = __atomic_load_n(&d->flags, __ATOMIC_ACQUIRE);
	uint16_t both = 1u << VRING_PACKED_DESC_F_AVAIL | 1u << VRING_PACKED_DESC_F_USED;

	return (f & both) == (packed_wrap(v, idx) ? both : 0);
}

static inline struct vring_packed_desc *pdesc(const struct vq *vq, uint16_t pos)
{
	return &((struct vring_packed_desc *)vq->desc)[pos];
}

/* A packed ring at start: the switch asked not to notify us; every
 * receive buffer made available, on the first lap. */
static void packed_init(struct bench_vhost *v, struct vq *vq, bool rx)
{
	((struct vring_packed_desc_event *)vq->avail)->flags = VRING_PACKED_EVENT_FLAG_DISABLE;
	for (uint16_t d = 0; rx && d < v->ring_size; d++)
		*pdesc(vq, d) = (struct vring_packed_desc){
		    .addr = (uint64_t)(uintptr_t)(vq->buf + (uint64_t)d * v->buf_size),
		    .len = v->buf_size,
		    .id = d,
		    .flags = VRING_DESC_F_WRITE | packed_avail_flags(v, d)};
	if (rx)
		vq->avail_idx = v->ring_size;
}

/* The memory: a memfd on hugepages when the machine has them free (fewer
 * TLB misses on either side), else on ordinary pages; sealed against
 * resizing, since the switch maps it; populated, so no page is faulted
 * in while measuring. */
static int make_memory(struct bench_vhost *v)
{
	uint64_t rings = (uint64_t)v->nq * 2 * ring_bytes(v->ring_size);
	uint64_t bufs = (uint64_t)v->nq * 2 * v->ring_size * v->buf_size;
	uint64_t huge = 2ull << 20;
	uint8_t *p;

	v->size = (rings + bufs + huge - 1) & ~(huge - 1);
	v->memfd =
	    memfd_create("podwire-bench-vhost", MFD_CLOEXEC | MFD_ALLOW_SEALING | MFD_HUGETLB);
	if (v->memfd >= 0 && ftruncate(v->memfd, (off_t)v->size) == 0) {
		v->mem = mmap(NULL, v->size, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_POPULATE,
			      v->memfd, 0);
		if (v->mem == MAP_FAILED)
			v->mem = NULL;
	}
	if (v->mem == NULL) {
		if (v->memfd >= 0)
			close(v->memfd);
		v->memfd = memfd_create("podwire-bench-vhost", MFD_CLOEXEC | MFD_ALLOW_SEALING);
		if (v->memfd < 0 || ftruncate(v->memfd, (off_t)v->size) != 0)
			return -errno;
		v->mem = mmap(NULL, v->size, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_POPULATE,
			      v->memfd, 0);
		if (v->mem == MAP_FAILED) {
			v->mem = NULL;
			return -errno;
		}
	}
	/* Best effort: hugetlbfs seals since Linux 4.16. */
	(void)fcntl(v->memfd, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_SEAL);
	memset(v->mem, 0, rings);
	p = v->mem;
	for (uint16_t i = 0; i < 2 * v->nq; i++) {
		struct vq *vq = &v->vq[i];

		vq->desc = (struct vring_desc *)p;
		p += page_up(16ull * v->ring_size);
		vq->avail = (struct vring_avail *)p;
		p += page_up(6 + 2ull * v->ring_size);
		vq->used = (struct vring_used *)p;
		p += page_up(6 + 8ull * v->ring_size);
	}
	for (uint16_t i = 0; i < 2 * v->nq; i++) {
		struct vq *vq = &v->vq[i];
		bool rx = i % 2 == 0;

		vq->buf = p;
		p += (uint64_t)v->ring_size * v->buf_size;
		if (v->packed) {
			packed_init(v, vq, rx);
			goto fds;
		}
		/* We poll: the switch need not call us. */
		vq->avail->flags = VRING_AVAIL_F_NO_INTERRUPT;
		for (uint16_t d = 0; d < v->ring_size; d++) {
			vq->desc[d].addr =
			    (uint64_t)(uintptr_t)(vq->buf + (uint64_t)d * v->buf_size);
			vq->desc[d].len = rx ? v->buf_size : BENCH_VHOST_NET_HDR;
			vq->desc[d].flags = rx ? VRING_DESC_F_WRITE : 0;
			vq->avail->ring[d] = d;
		}
	fds:
		vq->kick = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
		vq->call = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
		if (vq->kick < 0 || vq->call < 0)
			return -errno;
	}
	v->tag = calloc((size_t)v->nq * v->ring_size, sizeof(*v->tag));
	return v->tag == NULL ? -ENOMEM : 0;
}

/* The frontend's side of the set-up, as virtio-user does it, on a
 * connected v->sock. 0, or -errno with why in err. */
static int handshake(struct bench_vhost *v, char *err, size_t err_len)
{
	uint64_t offered, want, proto = 0, nq = 1;
	int rc;

	rc = vu_get_u64(v, VU_GET_FEATURES, "its features", &offered, err, err_len);
	if (rc < 0)
		return rc;
	if (!(offered & 1ull << VIRTIO_F_VERSION_1)) {
		snprintf(err, err_len, "the switch does not offer VIRTIO_F_VERSION_1");
		return -ENOTSUP;
	}
	/* No offloads, no mergeable buffers (each frame fits one buffer),
	 * no event index (nobody is notified): version 1 and, to enable the
	 * rings explicitly, protocol features; MQ beyond one pair. */
	want = 1ull << VIRTIO_F_VERSION_1;
	if (v->packed) {
		if (!(offered & 1ull << VIRTIO_F_RING_PACKED)) {
			snprintf(err, err_len,
				 "the switch does not offer packed rings (VIRTIO_F_RING_PACKED); "
				 "drop \"packed\"");
			return -ENOTSUP;
		}
		want |= 1ull << VIRTIO_F_RING_PACKED;
	}
	if (v->nq > 1) {
		if (!(offered & 1ull << VIRTIO_NET_F_MQ) ||
		    !(offered & 1ull << VU_F_PROTOCOL_FEATURES)) {
			snprintf(
			    err, err_len,
			    "the switch offers no multiqueue (VIRTIO_NET_F_MQ); lower --queues");
			return -ENOTSUP;
		}
		want |= 1ull << VIRTIO_NET_F_MQ;
	}
	if ((rc = vu_send_u64(v, VU_SET_OWNER, 0)) < 0)
		goto io;
	if (offered & 1ull << VU_F_PROTOCOL_FEATURES) {
		want |= 1ull << VU_F_PROTOCOL_FEATURES;
		rc = vu_get_u64(v, VU_GET_PROTOCOL_FEATURES, "its protocol features", &proto, err,
				err_len);
		if (rc < 0)
			return rc;
		proto &= v->nq > 1 ? 1ull << VU_PROTOCOL_F_MQ : 0;
		if (v->nq > 1 && proto == 0) {
			snprintf(
			    err, err_len,
			    "the switch offers no multiqueue protocol feature; lower --queues");
			return -ENOTSUP;
		}
		if ((rc = vu_send_u64(v, VU_SET_PROTOCOL_FEATURES, proto)) < 0)
			goto io;
		if (proto != 0) {
			rc = vu_get_u64(v, VU_GET_QUEUE_NUM, "its queue count", &nq, err, err_len);
			if (rc < 0)
				return rc;
			if (nq < v->nq) {
				snprintf(
				    err, err_len,
				    "the switch takes at most %llu queue pair(s), not %u; lower "
				    "--queues",
				    (unsigned long long)nq, v->nq);
				return -EINVAL;
			}
		}
	}
	if ((rc = vu_send_u64(v, VU_SET_FEATURES, want)) < 0)
		goto io;
	{
		struct {
			uint32_t n, pad;
			uint64_t gpa, size, uaddr, offset;
		} t = {1, 0, (uint64_t)(uintptr_t)v->mem, v->size, (uint64_t)(uintptr_t)v->mem, 0};

		if ((rc = vu_send(v, VU_SET_MEM_TABLE, &t, sizeof(t), v->memfd)) < 0)
			goto io;
	}
	for (uint32_t i = 0; i < 2u * v->nq; i++) {
		struct vq *vq = &v->vq[i];
		struct {
			uint32_t index, flags;
			uint64_t desc, used, avail, log;
		} a = {i,
		       0,
		       (uint64_t)(uintptr_t)vq->desc,
		       (uint64_t)(uintptr_t)vq->used,
		       (uint64_t)(uintptr_t)vq->avail,
		       0};
		uint64_t idx = i;

		if ((rc = vu_send(v, VU_SET_VRING_CALL, &idx, 8, vq->call)) < 0 ||
		    (rc = vu_send_state(v, VU_SET_VRING_NUM, i, v->ring_size)) < 0 ||
		    /* Packed: the driver's wrap counter starts at 1. */
		    (rc = vu_send_state(v, VU_SET_VRING_BASE, i, v->packed ? 1u << 15 : 0)) < 0 ||
		    (rc = vu_send(v, VU_SET_VRING_ADDR, &a, sizeof(a), -1)) < 0 ||
		    (rc = vu_send(v, VU_SET_VRING_KICK, &idx, 8, vq->kick)) < 0)
			goto io;
	}
	/* Without protocol features a ring is enabled by its kick. */
	if (want & 1ull << VU_F_PROTOCOL_FEATURES)
		for (uint32_t i = 0; i < 2u * v->nq; i++)
			if ((rc = vu_send_state(v, VU_SET_VRING_ENABLE, i, 1)) < 0)
				goto io;
	return 0;
io:
	snprintf(err, err_len, "cannot talk to the switch: %s", strerror(-rc));
	return rc;
}

/* The server role: listens on sa and takes the switch's connection (its
 * port the vhost-user client, as OVS's dpdkvhostuserclient), within
 * wait_ms. 0, or -errno with why in err. */
static int accept_switch(struct bench_vhost *v, const struct sockaddr_un *sa, unsigned int wait_ms,
			 char *err, size_t err_len)
{
	struct pollfd p;
	int l, rc;

	unlink(sa->sun_path);
	l = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (l < 0 || bind(l, (const struct sockaddr *)sa, sizeof(*sa)) != 0 || listen(l, 1) != 0) {
		rc = -errno;
		snprintf(err, err_len, "listening: %s", strerror(-rc));
		if (l >= 0)
			close(l);
		return rc;
	}
	p = (struct pollfd){.fd = l, .events = POLLIN};
	if (poll(&p, 1, (int)wait_ms) != 1) {
		snprintf(err, err_len, "the switch did not connect in %u ms", wait_ms);
		rc = -ETIMEDOUT;
	} else {
		v->sock = accept4(l, NULL, NULL, SOCK_CLOEXEC);
		rc = v->sock < 0 ? -errno : 0;
		if (rc < 0)
			snprintf(err, err_len, "accept: %s", strerror(-rc));
	}
	/* One connection: the socket goes, as with virtio-user's. */
	close(l);
	unlink(sa->sun_path);
	return rc;
}

struct bench_vhost *bench_vhost_open(const char *path, unsigned int flags, uint16_t ring_size,
				     uint32_t buf_size, uint16_t nq, unsigned int wait_ms,
				     char *err, size_t err_len)
{
	struct sockaddr_un sa = {.sun_family = AF_UNIX};
	struct bench_vhost *v;
	uint64_t start = now_ms();
	int rc;

	err[0] = '\0';
	if (nq < 1 || nq > VU_MAX_QUEUE_PAIRS) {
		snprintf(err, err_len, "%u queue pairs: take 1 to %u", nq, VU_MAX_QUEUE_PAIRS);
		return NULL;
	}
	if (ring_size < 2 || ring_size > 32768 || (ring_size & (ring_size - 1)) != 0) {
		snprintf(err, err_len, "rings of %u descriptors: split rings take a power of two",
			 ring_size);
		return NULL;
	}
	if (strlen(path) >= sizeof(sa.sun_path)) {
		snprintf(err, err_len, "socket path longer than %zu bytes",
			 sizeof(sa.sun_path) - 1);
		return NULL;
	}
	v = calloc(1, sizeof(*v) + 2u * nq * sizeof(v->vq[0]));
	if (v == NULL) {
		snprintf(err, err_len, "out of memory");
		return NULL;
	}
	v->sock = v->memfd = -1;
	v->nq = nq;
	v->ring_size = ring_size;
	v->mask = (uint16_t)(ring_size - 1);
	v->log2 = (uint8_t)__builtin_ctz(ring_size);
	v->buf_size = buf_size;
	v->packed = flags & BENCH_VHOST_PACKED;
	for (uint16_t i = 0; i < 2 * nq; i++)
		v->vq[i].kick = v->vq[i].call = -1;
	rc = make_memory(v);
	if (rc < 0) {
		snprintf(err, err_len, "shared memory of %llu bytes: %s",
			 (unsigned long long)v->size, strerror(-rc));
		goto fail;
	}
	strcpy(sa.sun_path, path);
	if ((flags & BENCH_VHOST_SERVER) && accept_switch(v, &sa, wait_ms, err, err_len) < 0)
		goto fail;
	while (v->sock < 0) {
		v->sock = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
		if (v->sock < 0) {
			snprintf(err, err_len, "socket: %s", strerror(errno));
			goto fail;
		}
		if (connect(v->sock, (const struct sockaddr *)&sa, sizeof(sa)) == 0)
			break;
		rc = errno;
		close(v->sock);
		v->sock = -1;
		/* A switch still starting: its socket not there or not
		 * listening yet. */
		if ((rc != ENOENT && rc != ECONNREFUSED) || now_ms() - start >= wait_ms) {
			snprintf(err, err_len, "connect: %s", strerror(rc));
			goto fail;
		}
		usleep(VU_RETRY_MS * 1000);
	}
	if (handshake(v, err, err_len) < 0)
		goto fail;
	/* Every receive buffer, posted for the switch to fill (packed rings:
	 * already, by packed_init). */
	for (uint16_t q = 0; !v->packed && q < nq; q++) {
		struct vq *rx = &v->vq[2 * q];

		rx->avail_idx = ring_size;
		__atomic_store_n(&rx->avail->idx, rx->avail_idx, __ATOMIC_RELEASE);
	}
	return v;
fail:
	bench_vhost_close(v);
	return NULL;
}

void bench_vhost_close(struct bench_vhost *v)
{
	if (v == NULL)
		return;
	if (v->sock >= 0)
		close(v->sock);
	if (v->mem != NULL)
		munmap(v->mem, v->size);
	if (v->memfd >= 0)
		close(v->memfd);
	for (uint16_t i = 0; i < 2 * v->nq; i++) {
		if (v->vq[i].kick >= 0)
			close(v->vq[i].kick);
		if (v->vq[i].call >= 0)
			close(v->vq[i].call);
	}
	free(v->tag);
	free(v);
}

uint16_t bench_vhost_tx_slots(struct bench_vhost *v, uint16_t q, uint8_t **buf, uint64_t **tag,
			      uint16_t n)
{
	struct vq *vq = &v->vq[2 * q + 1];
	uint16_t inflight = (uint16_t)(vq->avail_idx - vq->used_seen), room;

	if (v->packed && inflight + n > v->ring_size) {
		/* The switch marks each descriptor used in place. */
		while (inflight != 0 &&
		       packed_used(v, pdesc(vq, vq->used_seen & v->mask), vq->used_seen)) {
			vq->used_seen++;
			inflight--;
		}
	}
	/* The switch's used index is read only when what we knew of is
	 * used up: its line is the one it writes most. */
	if (!v->packed && inflight + n > v->ring_size) {
		uint16_t used = __atomic_load_n(&vq->used->idx, __ATOMIC_ACQUIRE);

		if ((uint16_t)(used - vq->used_seen) > inflight) {
			if (v->error == NULL)
				v->error = "the switch moved the transmit ring's used index past "
					   "what was made available";
			return 0;
		}
		vq->used_seen = used;
		inflight = (uint16_t)(vq->avail_idx - used);
	}
	room = (uint16_t)(v->ring_size - inflight);
	if (n > room)
		n = room;
	for (uint16_t i = 0; i < n; i++) {
		uint16_t d = (uint16_t)(vq->avail_idx + i) & v->mask;

		buf[i] = vq->buf + (uint64_t)d * v->buf_size + BENCH_VHOST_NET_HDR;
		tag[i] = &v->tag[(size_t)q * v->ring_size + d];
		rte_prefetch0_write(buf[i]);
		if ((d & 3) == 0 || i == 0)
			rte_prefetch0_write(&vq->desc[d]);
	}
	return n;
}

void bench_vhost_tx_commit(struct bench_vhost *v, uint16_t q, const uint16_t *len, uint16_t k)
{
	struct vq *vq = &v->vq[2 * q + 1];

	if (k == 0)
		return;
	if (v->packed) {
		/* All but the first made available, then the first, last: the
		 * switch reads the descriptors in order from there. */
		for (uint16_t i = k; i-- > 0;) {
			uint16_t idx = (uint16_t)(vq->avail_idx + i), s = idx & v->mask;
			struct vring_packed_desc *d = pdesc(vq, s);

			d->addr = (uint64_t)(uintptr_t)(vq->buf + (uint64_t)s * v->buf_size);
			d->len = BENCH_VHOST_NET_HDR + len[i];
			d->id = s;
			__atomic_store_n(&d->flags, packed_avail_flags(v, idx),
					 i == 0 ? __ATOMIC_RELEASE : __ATOMIC_RELAXED);
		}
		vq->avail_idx = (uint16_t)(vq->avail_idx + k);
		return;
	}
	for (uint16_t i = 0; i < k; i++) {
		struct vring_desc *d = &vq->desc[(uint16_t)(vq->avail_idx + i) & v->mask];
		uint32_t l = BENCH_VHOST_NET_HDR + len[i];

		/* The switch reads the line: written only when it changes. */
		if (d->len != l)
			d->len = l;
	}
	vq->avail_idx = (uint16_t)(vq->avail_idx + k);
	__atomic_store_n(&vq->avail->idx, vq->avail_idx, __ATOMIC_RELEASE);
}

int bench_vhost_rx(struct bench_vhost *v, uint16_t q, const uint8_t **buf, uint32_t *len,
		   uint16_t n)
{
	struct vq *vq = &v->vq[2 * q];
	uint16_t ready = (uint16_t)(vq->used_seen - vq->used_last), got = 0;

	if (v->packed) {
		while (got < n && vq->used_last != vq->avail_idx) {
			const struct vring_packed_desc *d = pdesc(vq, vq->used_last & v->mask);
			uint32_t l;

			if (!packed_used(v, d, vq->used_last))
				break;
			if (d->id >= v->ring_size) {
				if (v->error == NULL)
					v->error = "the switch used a receive buffer id we never "
						   "posted";
				return -1;
			}
			l = d->len;
			buf[got] = vq->buf + (uint64_t)d->id * v->buf_size + BENCH_VHOST_NET_HDR;
			rte_prefetch0(buf[got]);
			len[got++] = l > BENCH_VHOST_NET_HDR && l <= v->buf_size
					 ? l - BENCH_VHOST_NET_HDR
					 : 0;
			vq->used_last++;
		}
		return got;
	}
	if (ready < n) {
		uint16_t used = __atomic_load_n(&vq->used->idx, __ATOMIC_ACQUIRE);

		if ((uint16_t)(used - vq->used_last) > (uint16_t)(vq->avail_idx - vq->used_last)) {
			if (v->error == NULL)
				v->error =
				    "the switch moved the receive ring's used index past the "
				    "buffers posted";
			return -1;
		}
		vq->used_seen = used;
		ready = (uint16_t)(used - vq->used_last);
	}
	if (ready > n)
		ready = n;
	for (uint16_t i = 0; i < ready; i++) {
		const struct vring_used_elem *e =
		    &vq->used->ring[(uint16_t)(vq->used_last + i) & v->mask];
		uint32_t id = e->id, l = e->len;

		if (id >= v->ring_size) {
			if (v->error == NULL)
				v->error = "the switch used a receive descriptor we never posted";
			return -1;
		}
		buf[got] = vq->buf + (uint64_t)id * v->buf_size + BENCH_VHOST_NET_HDR;
		rte_prefetch0(buf[got]);
		/* A frame in one buffer, after its header: anything else is
		 * the switch's error, counted by the caller as a bad frame. */
		len[got++] =
		    l > BENCH_VHOST_NET_HDR && l <= v->buf_size ? l - BENCH_VHOST_NET_HDR : 0;
	}
	vq->used_last = (uint16_t)(vq->used_last + ready);
	return got;
}

void bench_vhost_rx_done(struct bench_vhost *v, uint16_t q)
{
	struct vq *vq = &v->vq[2 * q];

	if (vq->rx_from == vq->used_last)
		return;
	if (v->packed) {
		uint16_t k = (uint16_t)(vq->used_last - vq->rx_from);

		/* Given back in the order used, the first last (as on transmit). */
		for (uint16_t i = k; i-- > 0;) {
			uint16_t idx = (uint16_t)(vq->avail_idx + i);
			struct vring_packed_desc *d = pdesc(vq, idx & v->mask);
			uint16_t id = pdesc(vq, (uint16_t)(vq->rx_from + i) & v->mask)->id;

			d->addr = (uint64_t)(uintptr_t)(vq->buf + (uint64_t)id * v->buf_size);
			d->len = v->buf_size;
			d->id = id;
			__atomic_store_n(&d->flags, VRING_DESC_F_WRITE | packed_avail_flags(v, idx),
					 i == 0 ? __ATOMIC_RELEASE : __ATOMIC_RELAXED);
		}
		vq->avail_idx = (uint16_t)(vq->avail_idx + k);
		vq->rx_from = vq->used_last;
		return;
	}
	/* The buffers just read go back, in the order the switch used them
	 * (its own, most often: then the avail slots already say so). */
	for (uint16_t u = vq->rx_from; u != vq->used_last; u++) {
		uint16_t id = (uint16_t)vq->used->ring[u & v->mask].id;
		uint16_t *slot = &vq->avail->ring[vq->avail_idx & v->mask];

		if (*slot != id)
			*slot = id;
		vq->avail_idx++;
	}
	vq->rx_from = vq->used_last;
	__atomic_store_n(&vq->avail->idx, vq->avail_idx, __ATOMIC_RELEASE);
}

const char *bench_vhost_error(const struct bench_vhost *v)
{
	return v->error;
}
