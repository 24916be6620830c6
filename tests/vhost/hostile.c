/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * vhost-hostile: a vhost-user frontend (what a pod's virtio-user is) that
 * speaks the protocol on podwired's server socket and then misbehaves in
 * one chosen way, for the smoke tests of podwired's vhost-user ports.
 *
 *   vhost-hostile [--server] [--wait MS] SOCKET MODE
 *
 * With --server it listens on SOCKET and takes the connection of a
 * client-role port (podwired connects, and reconnects after each end).
 * MODE "good" is a well-behaved frontend: it brings both rings up, sends
 * one frame, waits until podwired has taken it, prints "connected" and
 * leaves ("hold" stays until --wait passes). Every other mode breaks one
 * rule (see the table at the end); "hangupK" leaves after the K-th step
 * of the handshake. The tool then waits up to --wait ms (default 3000)
 * for podwired to end the connection and prints "closed" (podwired hung
 * up) or "still connected" (podwired let it go on; a mode whose harm
 * librte_vhost drops frame by frame). "call-wait" prints whether
 * podwired signalled each ring's call eventfd. The "rx-*" modes post
 * broken buffers on the receive ring (the ring podwired writes), print
 * "armed" (the test then sends frames to the tool's MAC, learnt from its
 * first frame), the outcome and the used entries ("rx used N id:len..").
 * "base-resume" stops both rings (GET_VRING_BASE), prints whether the
 * indexes podwired gives back are where the rings are ("handed back"),
 * restarts them from there and prints whether frames are taken again
 * ("resumed"). It exits 0 unless the mode could
 * not be run (2) or podwired offered an offload it must not (1).
 *
 * --offloads negotiates the host offloads podwired offers (CSUM,
 * HOST_TSO4/6; exits 3 when it offers none). The "ol-*" modes send 8 TCP
 * or UDP frames of 1000 bytes to --to MAC, each with a virtio-net header
 * asking for something (see ol_modes), and print "sent N" once podwired
 * has taken them.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/falloc.h>
#include <linux/virtio_net.h>
#include <linux/virtio_ring.h>
#include <poll.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

/* The protocol (vhost-user specification). */
enum {
	GET_FEATURES = 1,
	SET_FEATURES = 2,
	SET_OWNER = 3,
	SET_MEM_TABLE = 5,
	SET_LOG_BASE = 6,
	SET_VRING_NUM = 8,
	SET_VRING_ADDR = 9,
	SET_VRING_BASE = 10,
	GET_VRING_BASE = 11,
	SET_VRING_KICK = 12,
	SET_VRING_CALL = 13,
	SET_INFLIGHT_FD = 32,
};
#define VERSION	   0x1
#define REPLY_MASK (1u << 2)

struct region {
	uint64_t gpa, size, uaddr, offset;
};

struct msg {
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
			struct region r[9];
		} mem;
		struct {
			uint64_t size, offset;
		} log;
		uint8_t raw[640];
	} p;
} __attribute__((packed));

#define HDR    12 /* struct msg up to the payload */
#define QSIZE  256
#define BUF    2048
#define MEMSZ  (2u << 20)
#define HUGESZ (2u << 20)
/* Ring q's parts, in the region: desc, avail, used; buffers after. */
#define DESC_OFF(q)   ((q)*0x6000u)
#define AVAIL_OFF(q)  ((q)*0x6000u + 0x1000u)
#define USED_OFF(q)   ((q)*0x6000u + 0x2000u)
#define BUF_OFF(q, i) (0x10000u + ((q)*QSIZE + (i) % QSIZE) * BUF)
#define NETHDR	      12 /* virtio_net_hdr_mrg_rxbuf: VERSION_1 */

static int wait_ms = 3000;
static bool server_role;
static bool offloads;				 /* --offloads */
static uint8_t to_mac[6] = {2, 0, 0, 0, 0xc, 1}; /* --to */
#define OL_FRAMES 8
#define OL_LEN	  1000 /* bytes of each ol-* frame */
#define HOST_OFFLOADS                                                                              \
	(1ULL << VIRTIO_NET_F_CSUM | 1ULL << VIRTIO_NET_F_HOST_TSO4 |                              \
	 1ULL << VIRTIO_NET_F_HOST_TSO6)

struct fe {
	int sock;
	int memfd;
	uint8_t *mem;
	size_t size;	   /* what is mapped here */
	uint64_t features; /* what podwired offered */
	struct vring_desc *desc[2];
	struct vring_avail *avail[2];
	struct vring_used *used[2];
	uint16_t next[2]; /* next avail index */
	int kick[2], call[2];
};

static void die(const char *what)
{
	fprintf(stderr, "vhost-hostile: %s: %s\n", what, strerror(errno));
	exit(2);
}

static void sleep_ms(int ms)
{
	struct timespec ts = {.tv_sec = ms / 1000, .tv_nsec = (long)(ms % 1000) * 1000000};

	nanosleep(&ts, NULL);
}

/* 0 sent, -1 podwired has closed. */
static int send_fds(struct fe *f, uint32_t req, const void *payload, uint32_t size, const int *fds,
		    int nfd)
{
	struct msg m = {.request = req, .flags = VERSION, .size = size};
	char ctl[CMSG_SPACE(9 * sizeof(int))];
	struct iovec iov = {.iov_base = &m, .iov_len = HDR + size};
	struct msghdr mh = {.msg_iov = &iov, .msg_iovlen = 1};

	if (size > sizeof(m.p))
		size = sizeof(m.p);
	memcpy(&m.p, payload, size);
	if (nfd > 0) {
		struct cmsghdr *cm;

		memset(ctl, 0, sizeof(ctl));
		mh.msg_control = ctl;
		mh.msg_controllen = CMSG_SPACE(nfd * sizeof(int));
		cm = CMSG_FIRSTHDR(&mh);
		cm->cmsg_level = SOL_SOCKET;
		cm->cmsg_type = SCM_RIGHTS;
		cm->cmsg_len = CMSG_LEN(nfd * sizeof(int));
		memcpy(CMSG_DATA(cm), fds, nfd * sizeof(int));
	}
	return sendmsg(f->sock, &mh, MSG_NOSIGNAL) == (ssize_t)iov.iov_len ? 0 : -1;
}

static int send_u64(struct fe *f, uint32_t req, uint64_t v)
{
	return send_fds(f, req, &v, 8, NULL, 0);
}

static int send_state(struct fe *f, uint32_t req, uint32_t index, uint32_t num)
{
	uint32_t s[2] = {index, num};

	return send_fds(f, req, s, 8, NULL, 0);
}

/* A reply's u64; -1 when podwired closed or said nothing. */
static int reply_u64(struct fe *f, uint64_t *v)
{
	struct pollfd p = {.fd = f->sock, .events = POLLIN};
	struct msg m;
	ssize_t r;

	if (poll(&p, 1, 2000) <= 0)
		return -1;
	r = recv(f->sock, &m, sizeof(m), 0);
	if (r < HDR + 8 || !(m.flags & REPLY_MASK))
		return -1;
	*v = m.p.u64;
	return 0;
}

/* Has podwired closed the connection? Waits up to ms. */
static bool closed_within(struct fe *f, int ms)
{
	for (int left = ms; left >= 0; left -= 20) {
		struct pollfd p = {.fd = f->sock, .events = POLLIN};
		char b[sizeof(struct msg)];

		if (poll(&p, 1, 20) > 0) {
			ssize_t r = recv(f->sock, b, sizeof(b), MSG_DONTWAIT);

			if (r == 0 || (r < 0 && errno != EAGAIN))
				return true;
		}
	}
	return false;
}

static int outcome(struct fe *f)
{
	printf(closed_within(f, wait_ms) ? "closed\n" : "still connected\n");
	return 0;
}

/* Connects to podwired's socket or, with --server, listens there and
 * takes podwired's (a client-role port) connection, within 10 s. */
static void connect_to(struct fe *f, const char *path)
{
	struct sockaddr_un sa = {.sun_family = AF_UNIX};
	struct pollfd p;
	int l;

	snprintf(sa.sun_path, sizeof(sa.sun_path), "%s", path);
	if (!server_role) {
		f->sock = socket(AF_UNIX, SOCK_STREAM, 0);
		if (f->sock < 0 || connect(f->sock, (struct sockaddr *)&sa, sizeof(sa)) != 0)
			die("connect");
		return;
	}
	unlink(path);
	l = socket(AF_UNIX, SOCK_STREAM, 0);
	if (l < 0 || bind(l, (struct sockaddr *)&sa, sizeof(sa)) != 0 || listen(l, 1) != 0)
		die("listen");
	p = (struct pollfd){.fd = l, .events = POLLIN};
	if (poll(&p, 1, 10000) != 1) {
		errno = ETIMEDOUT;
		die("podwired did not connect");
	}
	f->sock = accept(l, NULL, NULL);
	if (f->sock < 0)
		die("accept");
	/* One connection: podwired's next attempt finds nobody listening.
	 * (The file stays: podwired checks it has its one link, and may do
	 * so after it connected.) */
	close(l);
}

/* Memory: a memfd (flags for memfd_create) of file bytes, mapped whole. */
static void make_memory(struct fe *f, unsigned int flags, size_t file)
{
	f->memfd = memfd_create("vhost-hostile", flags);
	if (f->memfd < 0 || ftruncate(f->memfd, (off_t)file) != 0)
		die("memfd");
	f->size = file;
	f->mem = mmap(NULL, file, PROT_READ | PROT_WRITE, MAP_SHARED, f->memfd, 0);
	if (f->mem == MAP_FAILED)
		die("mmap");
	memset(f->mem, 0, 0x10000);
	for (int q = 0; q < 2; q++) {
		f->desc[q] = (struct vring_desc *)(f->mem + DESC_OFF(q));
		f->avail[q] = (struct vring_avail *)(f->mem + AVAIL_OFF(q));
		f->used[q] = (struct vring_used *)(f->mem + USED_OFF(q));
		f->kick[q] = eventfd(0, EFD_NONBLOCK);
		f->call[q] = eventfd(0, EFD_NONBLOCK);
	}
}

static uint64_t gpa(const struct fe *f, uint64_t off)
{
	return (uint64_t)(uintptr_t)f->mem + off;
}

/* The region the memfd is: guest-physical = frontend address = ours. */
static int mem_table(struct fe *f, uint64_t size, uint64_t offset)
{
	struct {
		uint32_t n, pad;
		struct region r;
	} t = {1, 0, {gpa(f, 0), size, gpa(f, 0), offset}};

	return send_fds(f, SET_MEM_TABLE, &t, sizeof(t), &f->memfd, 1);
}

static int vring_addr(struct fe *f, int q, uint64_t desc, uint64_t avail, uint64_t used)
{
	struct {
		uint32_t index, flags;
		uint64_t desc, used, avail, log;
	} a = {(uint32_t)q, 0, desc, used, avail, 0};

	return send_fds(f, SET_VRING_ADDR, &a, sizeof(a), NULL, 0);
}

static int vring_setup(struct fe *f, int q)
{
	return send_state(f, SET_VRING_NUM, q, QSIZE) || send_state(f, SET_VRING_BASE, q, 0) ||
	       vring_addr(f, q, gpa(f, DESC_OFF(q)), gpa(f, AVAIL_OFF(q)), gpa(f, USED_OFF(q)));
}

static int vring_fds(struct fe *f, int q)
{
	uint64_t i = (uint64_t)q;

	return send_fds(f, SET_VRING_KICK, &i, 8, &f->kick[q], 1) ||
	       send_fds(f, SET_VRING_CALL, &i, 8, &f->call[q], 1);
}

static uint64_t wanted(const struct fe *f)
{
	return f->features & (1ULL << 32 /* VERSION_1 */ | 1ULL << VIRTIO_RING_F_INDIRECT_DESC |
			      (offloads ? HOST_OFFLOADS : 0));
}

/* Handshake up to step stop (hangupK stops after step K); -1 all of it.
 * Returns 0 when done, 1 stopped as asked, -1 podwired closed. */
static int handshake(struct fe *f, int stop, uint64_t want)
{
	int step = 0;

	if (stop == step++)
		return 1;
	if (send_u64(f, GET_FEATURES, 0) != 0 || reply_u64(f, &f->features) != 0)
		return -1;
	if (stop == step++)
		return 1;
	if (send_u64(f, SET_OWNER, 0) != 0)
		return -1;
	if (stop == step++)
		return 1;
	if (send_u64(f, SET_FEATURES, want != 0 ? want : wanted(f)) != 0)
		return -1;
	if (stop == step++)
		return 1;
	if (mem_table(f, f->size, 0) != 0)
		return -1;
	if (stop == step++)
		return 1;
	for (int q = 0; q < 2; q++) {
		if (vring_setup(f, q) != 0)
			return -1;
		if (stop == step++)
			return 1;
		if (vring_fds(f, q) != 0)
			return -1;
		if (stop == step++)
			return 1;
	}
	return 0;
}

/* A 60-byte frame with a zeroed virtio-net header, in buffer i of the
 * transmit ring (1). It is addressed to its own source: podwired counts
 * it and drops it (same_port), so no pod's ring is filled by a mode that
 * makes librte_vhost take the same frame again and again. */
static void frame_at(struct fe *f, uint16_t i)
{
	static const uint8_t eth[14] = {2, 0, 0, 0, 0xc, 1, 2, 0, 0, 0, 0xc, 1, 0x88, 0xb5};
	uint8_t *b = f->mem + BUF_OFF(1, i);

	memset(b, 0, NETHDR + 60);
	memcpy(b + NETHDR, eth, sizeof(eth));
}

/* Publishes descriptor head on the transmit ring. */
static void post(struct fe *f, uint16_t head)
{
	f->avail[1]->ring[f->next[1] % QSIZE] = head;
	__atomic_store_n(&f->avail[1]->idx, ++f->next[1], __ATOMIC_RELEASE);
}

static void send_frame(struct fe *f)
{
	uint16_t i = f->next[1] % QSIZE;

	frame_at(f, i);
	f->desc[1][i] = (struct vring_desc){gpa(f, BUF_OFF(1, i)), NETHDR + 60, 0, 0};
	post(f, i);
}

/* Until podwired has used n frames of the transmit ring. */
static bool used_reaches(struct fe *f, uint16_t n, int ms)
{
	for (; ms > 0; ms -= 10) {
		if ((uint16_t)(__atomic_load_n(&f->used[1]->idx, __ATOMIC_ACQUIRE) - n) < 0x8000)
			return true;
		sleep_ms(10);
	}
	return false;
}

/* Full handshake, then one good frame taken: the device is up. */
static int up(struct fe *f, const char *path, unsigned int memflags)
{
	connect_to(f, path);
	make_memory(f, memflags, memflags & MFD_HUGETLB ? HUGESZ : MEMSZ);
	if (handshake(f, -1, 0) != 0)
		die("handshake");
	send_frame(f);
	if (!used_reaches(f, f->next[1], 5000)) {
		errno = ETIMEDOUT;
		die("podwired did not take the first frame");
	}
	return 0;
}

/* Connect, ask for the offer, set wanted features, then stop: for modes
 * that break the memory table. */
static void before_mem(struct fe *f, const char *path, unsigned int memflags, size_t file)
{
	connect_to(f, path);
	make_memory(f, memflags, file);
	if (send_u64(f, GET_FEATURES, 0) != 0 || reply_u64(f, &f->features) != 0 ||
	    send_u64(f, SET_OWNER, 0) != 0 || send_u64(f, SET_FEATURES, wanted(f)) != 0)
		die("handshake");
}

/* After a memory table: the rings, which librte_vhost then reads. */
static int rest(struct fe *f)
{
	return vring_setup(f, 0) || vring_fds(f, 0) || vring_setup(f, 1) || vring_fds(f, 1);
}

/* n buffers for podwired to fill, on the receive ring (0). */
static void rx_buffers(struct fe *f, uint16_t n)
{
	for (uint16_t k = 0; k < n; k++) {
		uint16_t i = f->next[0] % QSIZE;

		f->desc[0][i] =
		    (struct vring_desc){gpa(f, BUF_OFF(0, i)), BUF, VRING_DESC_F_WRITE, 0};
		f->avail[0]->ring[i] = i;
		f->next[0]++;
	}
	__atomic_store_n(&f->avail[0]->idx, f->next[0], __ATOMIC_RELEASE);
}

static void drain(int efd)
{
	uint64_t v;

	while (read(efd, &v, sizeof(v)) == sizeof(v))
		;
}

/* Is the call eventfd efd signalled within ms? */
static bool waited_call(int efd, int ms)
{
	struct pollfd p = {.fd = efd, .events = POLLIN};

	return poll(&p, 1, ms) == 1;
}

/* Bad frames: make fills descriptor slots from i and returns the head. */
static int bad_frames(struct fe *f, uint16_t (*make)(struct fe *f, uint16_t i))
{
	for (int k = 0; k < 8; k++)
		post(f, make(f, (uint16_t)(f->next[1] % QSIZE)));
	sleep_ms(300);
	send_frame(f);
	return outcome(f);
}

static uint16_t d_loop(struct fe *f, uint16_t i)
{
	frame_at(f, i);
	f->desc[1][i] =
	    (struct vring_desc){gpa(f, BUF_OFF(1, i)), NETHDR + 60, VRING_DESC_F_NEXT, i};
	return i;
}

static uint16_t d_long(struct fe *f, uint16_t i)
{
	/* Every slot chained to the next, around the ring and back. */
	for (uint16_t k = 0; k < QSIZE; k++)
		f->desc[1][k] = (struct vring_desc){gpa(f, BUF_OFF(1, k)), 8, VRING_DESC_F_NEXT,
						    (uint16_t)((k + 1) % QSIZE)};
	return i;
}

static uint16_t d_next_out(struct fe *f, uint16_t i)
{
	frame_at(f, i);
	f->desc[1][i] =
	    (struct vring_desc){gpa(f, BUF_OFF(1, i)), NETHDR + 60, VRING_DESC_F_NEXT, 60000};
	return i;
}

static uint16_t d_addr_out(struct fe *f, uint16_t i)
{
	f->desc[1][i] = (struct vring_desc){gpa(f, 0) + (64ULL << 30), NETHDR + 60, 0, 0};
	return i;
}

static uint16_t d_addr_edge(struct fe *f, uint16_t i)
{
	/* Starts inside the region, ends past it. */
	f->desc[1][i] = (struct vring_desc){gpa(f, f->size - 20), NETHDR + 60, 0, 0};
	return i;
}

static uint16_t d_len0(struct fe *f, uint16_t i)
{
	f->desc[1][i] = (struct vring_desc){gpa(f, BUF_OFF(1, i)), 0, 0, 0};
	return i;
}

static uint16_t d_lenhuge(struct fe *f, uint16_t i)
{
	frame_at(f, i);
	f->desc[1][i] = (struct vring_desc){gpa(f, BUF_OFF(1, i)), 0xffffffffu, 0, 0};
	return i;
}

static uint16_t d_short(struct fe *f, uint16_t i)
{
	/* Shorter than the virtio-net header. */
	f->desc[1][i] = (struct vring_desc){gpa(f, BUF_OFF(1, i)), 4, 0, 0};
	return i;
}

/* Indirect tables live in the buffer of slot i + 128. */
static uint16_t d_ind_out(struct fe *f, uint16_t i)
{
	f->desc[1][i] =
	    (struct vring_desc){gpa(f, 0) + (64ULL << 30), 16 * 4, VRING_DESC_F_INDIRECT, 0};
	return i;
}

static uint16_t d_ind_bad(struct fe *f, uint16_t i)
{
	struct vring_desc *t = (struct vring_desc *)(f->mem + BUF_OFF(1, i + 128));

	frame_at(f, i);
	t[0] = (struct vring_desc){gpa(f, 0) + (64ULL << 30), NETHDR + 60, VRING_DESC_F_NEXT, 1};
	t[1] = (struct vring_desc){gpa(f, BUF_OFF(1, i)), NETHDR + 60, VRING_DESC_F_NEXT, 0};
	f->desc[1][i] =
	    (struct vring_desc){gpa(f, BUF_OFF(1, i + 128)), 16 * 2, VRING_DESC_F_INDIRECT, 0};
	return i;
}

static uint16_t d_ind_len(struct fe *f, uint16_t i)
{
	/* A table longer than the region. */
	f->desc[1][i] =
	    (struct vring_desc){gpa(f, BUF_OFF(1, i + 128)), 0xfffffff0u, VRING_DESC_F_INDIRECT, 0};
	return i;
}

static uint16_t d_ind_nested(struct fe *f, uint16_t i)
{
	struct vring_desc *t = (struct vring_desc *)(f->mem + BUF_OFF(1, i + 128));

	t[0] = (struct vring_desc){gpa(f, BUF_OFF(1, i + 128)), 16, VRING_DESC_F_INDIRECT, 0};
	f->desc[1][i] =
	    (struct vring_desc){gpa(f, BUF_OFF(1, i + 128)), 16, VRING_DESC_F_INDIRECT, 0};
	return i;
}

static uint16_t d_head_out(struct fe *f, uint16_t i)
{
	(void)f;
	return (uint16_t)(i + 5000);
}

/* Offload requests in every field of the virtio-net header. */
static uint16_t d_offload(struct fe *f, uint16_t i)
{
	struct virtio_net_hdr_v1 *h = (struct virtio_net_hdr_v1 *)(f->mem + BUF_OFF(1, i));

	frame_at(f, i);
	h->flags = VIRTIO_NET_HDR_F_NEEDS_CSUM | VIRTIO_NET_HDR_F_DATA_VALID;
	h->gso_type = VIRTIO_NET_HDR_GSO_TCPV4 | VIRTIO_NET_HDR_GSO_ECN;
	h->hdr_len = 54;
	h->gso_size = 1;
	h->csum_start = 14;
	h->csum_offset = 6;
	h->num_buffers = 7;
	f->desc[1][i] = (struct vring_desc){gpa(f, BUF_OFF(1, i)), NETHDR + 60, 0, 0};
	return i;
}

/* ---- the receive ring, which podwired writes (rx-* modes) ------------------------- */

/* Publishes descriptor head on the receive ring. */
static void rx_post(struct fe *f, uint16_t head)
{
	f->avail[0]->ring[f->next[0] % QSIZE] = head;
	__atomic_store_n(&f->avail[0]->idx, ++f->next[0], __ATOMIC_RELEASE);
}

/* Buffer i of the receive ring filled with a pattern, to see whether
 * podwired wrote it. */
#define RX_MARK 0xa5
static void rx_mark(struct fe *f, uint16_t i)
{
	memset(f->mem + BUF_OFF(0, i), RX_MARK, BUF);
}

static bool rx_written(const struct fe *f, uint16_t i)
{
	const uint8_t *b = f->mem + BUF_OFF(0, i);

	for (int k = 0; k < BUF; k++)
		if (b[k] != RX_MARK)
			return true;
	return false;
}

static uint16_t r_addr_out(struct fe *f, uint16_t i)
{
	f->desc[0][i] = (struct vring_desc){gpa(f, 0) + (64ULL << 30), BUF, VRING_DESC_F_WRITE, 0};
	return i;
}

static uint16_t r_addr_edge(struct fe *f, uint16_t i)
{
	/* Starts inside the region, ends past it. */
	f->desc[0][i] = (struct vring_desc){gpa(f, f->size - 100), BUF, VRING_DESC_F_WRITE, 0};
	return i;
}

static uint16_t r_readonly(struct fe *f, uint16_t i)
{
	/* A buffer the device may only read, posted to be written. */
	rx_mark(f, i);
	f->desc[0][i] = (struct vring_desc){gpa(f, BUF_OFF(0, i)), BUF, 0, 0};
	return i;
}

static uint16_t r_short(struct fe *f, uint16_t i)
{
	/* Shorter than the virtio-net header. */
	f->desc[0][i] = (struct vring_desc){gpa(f, BUF_OFF(0, i)), 4, VRING_DESC_F_WRITE, 0};
	return i;
}

static uint16_t r_loop(struct fe *f, uint16_t i)
{
	/* 64 bytes each time round, to itself: never enough for a frame. */
	f->desc[0][i] = (struct vring_desc){gpa(f, BUF_OFF(0, i)), 64,
					    VRING_DESC_F_WRITE | VRING_DESC_F_NEXT, i};
	return i;
}

static uint16_t r_next_out(struct fe *f, uint16_t i)
{
	f->desc[0][i] = (struct vring_desc){gpa(f, BUF_OFF(0, i)), 64,
					    VRING_DESC_F_WRITE | VRING_DESC_F_NEXT, 60000};
	return i;
}

static uint16_t r_head_out(struct fe *f, uint16_t i)
{
	f->desc[0][i] = (struct vring_desc){gpa(f, BUF_OFF(0, i)), BUF, VRING_DESC_F_WRITE, 0};
	return (uint16_t)(i + 5000);
}

/* Indirect tables live in the buffer of slot i + 128. */
static uint16_t r_ind_out(struct fe *f, uint16_t i)
{
	f->desc[0][i] =
	    (struct vring_desc){gpa(f, 0) + (64ULL << 30), 16 * 4, VRING_DESC_F_INDIRECT, 0};
	return i;
}

static uint16_t r_ind_nested(struct fe *f, uint16_t i)
{
	struct vring_desc *t = (struct vring_desc *)(f->mem + BUF_OFF(0, i + 128));

	t[0] = (struct vring_desc){gpa(f, BUF_OFF(0, i + 128)), 16, VRING_DESC_F_INDIRECT, 0};
	f->desc[0][i] =
	    (struct vring_desc){gpa(f, BUF_OFF(0, i + 128)), 16, VRING_DESC_F_INDIRECT, 0};
	return i;
}

static uint16_t r_ind_loop(struct fe *f, uint16_t i)
{
	/* An indirect table whose entries chain back to the first. */
	struct vring_desc *t = (struct vring_desc *)(f->mem + BUF_OFF(0, i + 128));

	t[0] = (struct vring_desc){gpa(f, BUF_OFF(0, i)), 32,
				   VRING_DESC_F_WRITE | VRING_DESC_F_NEXT, 1};
	t[1] = (struct vring_desc){gpa(f, BUF_OFF(0, i)), 32,
				   VRING_DESC_F_WRITE | VRING_DESC_F_NEXT, 0};
	f->desc[0][i] =
	    (struct vring_desc){gpa(f, BUF_OFF(0, i + 128)), 16 * 2, VRING_DESC_F_INDIRECT, 0};
	return i;
}

static const struct {
	const char *mode;
	uint16_t (*make)(struct fe *f, uint16_t i);
} rx_modes[] = {
    {"rx-addr-out", r_addr_out}, {"rx-addr-edge", r_addr_edge}, {"rx-readonly", r_readonly},
    {"rx-short", r_short},	 {"rx-loop", r_loop},		{"rx-next-out", r_next_out},
    {"rx-head-out", r_head_out}, {"rx-ind-out", r_ind_out},	{"rx-ind-nested", r_ind_nested},
    {"rx-ind-loop", r_ind_loop},
};

/* Eight broken buffers on the receive ring (or, with make NULL, eight
 * good ones and an avail index far ahead); "armed" tells the test to
 * send us frames. Then: whether podwired ended the connection, how many
 * entries it used and with what length, and (rx-readonly) whether it
 * wrote a buffer it may only read. */
static int rx_attack(struct fe *f, uint16_t (*make)(struct fe *f, uint16_t i))
{
	uint16_t first = f->next[0] % QSIZE, used;

	if (make != NULL) {
		for (int k = 0; k < 8; k++)
			rx_post(f, make(f, (uint16_t)(f->next[0] % QSIZE)));
	} else {
		rx_buffers(f, 8);
		f->next[0] = (uint16_t)(f->next[0] + 30000);
		__atomic_store_n(&f->avail[0]->idx, f->next[0], __ATOMIC_RELEASE);
	}
	printf("armed\n");
	outcome(f);
	used = __atomic_load_n(&f->used[0]->idx, __ATOMIC_ACQUIRE);
	printf("rx used %u", used);
	for (uint16_t k = 0; k < used && k < 8; k++)
		printf(" %u:%u", f->used[0]->ring[k].id, f->used[0]->ring[k].len);
	printf("\n");
	if (make == r_readonly)
		printf(rx_written(f, first) ? "read-only buffer written\n"
					    : "read-only buffer untouched\n");
	return 0;
}

/* ---- the rings' indexes handed back (base-resume) --------------------------------- */

/* GET_VRING_BASE stops ring q; the index podwired hands back. */
static int vring_base(struct fe *f, int q, uint32_t *num)
{
	uint64_t v;

	if (send_state(f, GET_VRING_BASE, (uint32_t)q, 0) != 0 || reply_u64(f, &v) != 0)
		return -1;
	*num = (uint32_t)(v >> 32);
	return 0;
}

/* What a frontend does to stop and restart its device (QEMU on a guest's
 * driver reset, or to move it): both rings stopped with GET_VRING_BASE,
 * which must give back where podwired is, then set up again from there.
 * Frames sent after must be taken. */
static int base_resume(struct fe *f)
{
	uint32_t base[2];

	for (int k = 0; k < 8; k++)
		send_frame(f);
	if (!used_reaches(f, f->next[1], 5000)) {
		printf("frames not taken before the stop\n");
		return 0;
	}
	for (int q = 0; q < 2; q++)
		if (vring_base(f, q, &base[q]) != 0) {
			printf("closed at GET_VRING_BASE %d\n", q);
			return 0;
		}
	printf("base rx %u want %u, tx %u want %u: %s\n", base[0], f->next[0], base[1], f->next[1],
	       base[0] == f->next[0] && base[1] == f->next[1] ? "handed back" : "wrong");
	for (int q = 0; q < 2; q++)
		if (send_state(f, SET_VRING_NUM, q, QSIZE) != 0 ||
		    send_state(f, SET_VRING_BASE, q, f->next[q]) != 0 ||
		    vring_addr(f, q, gpa(f, DESC_OFF(q)), gpa(f, AVAIL_OFF(q)),
			       gpa(f, USED_OFF(q))) != 0 ||
		    vring_fds(f, q) != 0) {
			printf("closed while restarting\n");
			return 0;
		}
	for (int k = 0; k < 8; k++)
		send_frame(f);
	printf(used_reaches(f, f->next[1], 5000) ? "resumed\n" : "not resumed\n");
	return 0;
}

/* ---- offload requests (ol-* modes) ------------------------------------------------ */

static uint16_t csum16(const uint8_t *p, size_t n)
{
	uint32_t s = 0;

	for (size_t i = 0; i + 1 < n; i += 2)
		s += (uint32_t)(p[i] << 8 | p[i + 1]);
	while (s >> 16)
		s = (s & 0xffff) + (s >> 16);
	return (uint16_t)~s;
}

/* An OL_LEN-byte IPv4 frame to to_mac carrying L4 protocol proto (TCP: a
 * 20-byte header, ACK), with a zeroed virtio-net header before it, in
 * buffer i of the transmit ring. Returns the header. */
static struct virtio_net_hdr_v1 *ol_frame(struct fe *f, uint16_t i, uint8_t proto)
{
	uint8_t *b = f->mem + BUF_OFF(1, i), *e = b + NETHDR, *ip = e + 14, *l4 = ip + 20;
	uint16_t tot = OL_LEN - 14;

	memset(b, 0, NETHDR + OL_LEN);
	memcpy(e, to_mac, 6);
	memcpy(e + 6, (const uint8_t[6]){2, 0, 0, 0, 0xc, 1}, 6);
	e[12] = 0x08;
	ip[0] = 0x45;
	ip[2] = (uint8_t)(tot >> 8);
	ip[3] = (uint8_t)tot;
	ip[8] = 64;
	ip[9] = proto;
	memcpy(ip + 12, (const uint8_t[8]){10, 99, 0, 1, 10, 99, 0, 2}, 8);
	{
		uint16_t c = csum16(ip, 20);

		ip[10] = (uint8_t)(c >> 8);
		ip[11] = (uint8_t)c;
	}
	l4[0] = 0x30; /* ports 12345 -> 80 */
	l4[1] = 0x39;
	l4[3] = 80;
	if (proto == 6) {
		l4[12] = 5 << 4;
		l4[13] = 0x10;
	} else if (proto == 17) {
		l4[4] = (uint8_t)((tot - 20) >> 8);
		l4[5] = (uint8_t)(tot - 20);
	}
	for (int k = 40; k < tot; k++)
		ip[k] = (uint8_t)k;
	f->desc[1][i] = (struct vring_desc){gpa(f, BUF_OFF(1, i)), NETHDR + OL_LEN, 0, 0};
	return (struct virtio_net_hdr_v1 *)b;
}

static void ol_csum(struct virtio_net_hdr_v1 *h, uint16_t start, uint16_t off)
{
	h->flags = VIRTIO_NET_HDR_F_NEEDS_CSUM;
	h->csum_start = start;
	h->csum_offset = off;
}

static void ol_gso(struct virtio_net_hdr_v1 *h, uint8_t type, uint16_t size, uint16_t hdr_len)
{
	h->gso_type = type;
	h->gso_size = size;
	h->hdr_len = hdr_len;
}

/* A valid request: checksum, and segments of 100 bytes (10 of the 946). */
static void ol_plain(struct fe *f, uint16_t i)
{
	struct virtio_net_hdr_v1 *h = ol_frame(f, i, 6);

	ol_csum(h, 34, 16);
	ol_gso(h, VIRTIO_NET_HDR_GSO_TCPV4, 100, 54);
}

/* A checksum request only. */
static void ol_csum_only(struct fe *f, uint16_t i)
{
	ol_csum(ol_frame(f, i, 6), 34, 16);
}

static void ol_gso0(struct fe *f, uint16_t i)
{
	struct virtio_net_hdr_v1 *h = ol_frame(f, i, 6);

	ol_csum(h, 34, 16);
	ol_gso(h, VIRTIO_NET_HDR_GSO_TCPV4, 0, 54);
}

static void ol_csum_out(struct fe *f, uint16_t i)
{
	ol_csum(ol_frame(f, i, 6), 5000, 16);
}

static void ol_csum_field(struct fe *f, uint16_t i)
{
	ol_csum(ol_frame(f, i, 6), 34, 900);
}

/* hdr_len says 2000 bytes of headers in a 1000-byte frame. */
static void ol_hdr_len(struct fe *f, uint16_t i)
{
	struct virtio_net_hdr_v1 *h = ol_frame(f, i, 6);

	ol_csum(h, 34, 16);
	ol_gso(h, VIRTIO_NET_HDR_GSO_TCPV4, 1448, 2000);
}

/* TCP segmentation of a UDP datagram. */
static void ol_gso_udp(struct fe *f, uint16_t i)
{
	struct virtio_net_hdr_v1 *h = ol_frame(f, i, 17);

	ol_csum(h, 34, 6);
	ol_gso(h, VIRTIO_NET_HDR_GSO_TCPV4, 1448, 42);
}

/* TCPv6 segmentation of an IPv4 frame. */
static void ol_gso_v6(struct fe *f, uint16_t i)
{
	struct virtio_net_hdr_v1 *h = ol_frame(f, i, 6);

	ol_csum(h, 34, 16);
	ol_gso(h, VIRTIO_NET_HDR_GSO_TCPV6, 1448, 54);
}

/* A TCP header that says it is 0 bytes long (data offset 0). */
static void ol_thl0(struct fe *f, uint16_t i)
{
	struct virtio_net_hdr_v1 *h = ol_frame(f, i, 6);

	f->mem[BUF_OFF(1, i) + NETHDR + 14 + 20 + 12] = 0;
	ol_csum(h, 34, 16);
	ol_gso(h, VIRTIO_NET_HDR_GSO_TCPV4, 100, 34);
}

/* UFO, which podwired does not offer. */
static void ol_ufo(struct fe *f, uint16_t i)
{
	struct virtio_net_hdr_v1 *h = ol_frame(f, i, 17);

	ol_csum(h, 34, 6);
	ol_gso(h, VIRTIO_NET_HDR_GSO_UDP, 1448, 42);
}

/* SCTP's CRC at its offset (8). */
static void ol_sctp(struct fe *f, uint16_t i)
{
	ol_csum(ol_frame(f, i, 132), 34, 8);
}

/* ECN on a segmentation request (GUEST_ECN/HOST_ECN not offered). */
static void ol_ecn(struct fe *f, uint16_t i)
{
	struct virtio_net_hdr_v1 *h = ol_frame(f, i, 6);

	ol_csum(h, 34, 16);
	ol_gso(h, VIRTIO_NET_HDR_GSO_TCPV4 | VIRTIO_NET_HDR_GSO_ECN, 1448, 54);
}

static const struct {
	const char *mode;
	void (*make)(struct fe *f, uint16_t i);
} ol_modes[] = {
    {"ol-plain", ol_plain},
    {"ol-csum", ol_csum_only},
    {"ol-gso0", ol_gso0},
    {"ol-csum-out", ol_csum_out},
    {"ol-csum-field", ol_csum_field},
    {"ol-hdr-len", ol_hdr_len},
    {"ol-gso-udp", ol_gso_udp},
    {"ol-gso-v6", ol_gso_v6},
    {"ol-ufo", ol_ufo},
    {"ol-sctp", ol_sctp},
    {"ol-ecn", ol_ecn},
    {"ol-thl0", ol_thl0},
};

static int ol_send(struct fe *f, void (*make)(struct fe *f, uint16_t i))
{
	for (int k = 0; k < OL_FRAMES; k++) {
		uint16_t i = f->next[1] % QSIZE;

		make(f, i);
		post(f, i);
	}
	if (!used_reaches(f, f->next[1], 5000)) {
		errno = ETIMEDOUT;
		die("podwired did not take the frames");
	}
	printf("sent %d\n", OL_FRAMES);
	return 0;
}

static bool is(const char *mode, const char *name)
{
	return strcmp(mode, name) == 0;
}

static const struct {
	const char *mode;
	uint16_t (*make)(struct fe *f, uint16_t i);
} frame_modes[] = {
    {"desc-loop", d_loop},	   {"desc-long", d_long},	    {"desc-next-out", d_next_out},
    {"desc-addr-out", d_addr_out}, {"desc-addr-edge", d_addr_edge}, {"desc-len0", d_len0},
    {"desc-lenhuge", d_lenhuge},   {"desc-short", d_short},	    {"ind-out", d_ind_out},
    {"ind-bad", d_ind_bad},	   {"ind-len", d_ind_len},	    {"ind-nested", d_ind_nested},
    {"head-out", d_head_out},	   {"offload", d_offload},
};

/* Memory-table modes: the table sent, then the rings (which librte_vhost
 * would read from the table's memory). */
static int bad_table(const char *path, const char *mode)
{
	struct fe f = {0};
	int fds[9];

	if (is(mode, "region-big")) {
		/* The file is one page; the region claims 2 MiB, rings past
		 * the page. */
		before_mem(&f, path, MFD_ALLOW_SEALING, MEMSZ);
		if (ftruncate(f.memfd, 4096) != 0)
			die("shrink");
		mem_table(&f, MEMSZ, 0);
	} else if (is(mode, "region-offset")) {
		before_mem(&f, path, MFD_ALLOW_SEALING, MEMSZ);
		mem_table(&f, MEMSZ, 4096);
	} else if (is(mode, "region-wrap")) {
		before_mem(&f, path, MFD_ALLOW_SEALING, MEMSZ);
		mem_table(&f, MEMSZ, UINT64_MAX - 4095);
	} else if (is(mode, "region-zero")) {
		before_mem(&f, path, MFD_ALLOW_SEALING, MEMSZ);
		mem_table(&f, 0, 0);
	} else if (is(mode, "region-devzero") || is(mode, "region-dir") ||
		   is(mode, "region-pipe")) {
		int p[2];

		before_mem(&f, path, MFD_ALLOW_SEALING, MEMSZ);
		if (is(mode, "region-pipe")) {
			if (pipe(p) != 0)
				die("pipe");
			fds[0] = p[0];
		} else {
			fds[0] = is(mode, "region-dir") ? open("/", O_RDONLY | O_DIRECTORY)
							: open("/dev/zero", O_RDWR);
		}
		struct {
			uint32_t n, pad;
			struct region r;
		} t = {1, 0, {gpa(&f, 0), MEMSZ, gpa(&f, 0), 0}};
		send_fds(&f, SET_MEM_TABLE, &t, sizeof(t), fds, 1);
	} else if (is(mode, "region-overlap") || is(mode, "region-overlap-ua")) {
		int fd2 = memfd_create("second", MFD_ALLOW_SEALING);
		bool ua = is(mode, "region-overlap-ua");
		struct {
			uint32_t n, pad;
			struct region r[2];
		} t = {2, 0, {{0}}};

		before_mem(&f, path, MFD_ALLOW_SEALING, MEMSZ);
		t.r[0] = (struct region){gpa(&f, 0), MEMSZ, gpa(&f, 0), 0};
		t.r[1] = (struct region){gpa(&f, 0) + (ua ? (8ULL << 30) : 4096), MEMSZ,
					 gpa(&f, 0) + (ua ? 4096 : (8ULL << 30)), 0};
		if (fd2 < 0 || ftruncate(fd2, MEMSZ) != 0)
			die("memfd");
		fds[0] = f.memfd;
		fds[1] = fd2;
		send_fds(&f, SET_MEM_TABLE, &t, sizeof(t), fds, 2);
	} else if (is(mode, "region-count")) {
		struct {
			uint32_t n, pad;
			struct region r[9];
		} t = {9, 0, {{0}}};

		before_mem(&f, path, MFD_ALLOW_SEALING, MEMSZ);
		for (int i = 0; i < 9; i++) {
			t.r[i] = (struct region){(uint64_t)i << 30, 4096, (uint64_t)i << 30, 0};
			fds[i] = f.memfd;
		}
		send_fds(&f, SET_MEM_TABLE, &t, sizeof(t), fds, 8);
	} else if (is(mode, "region-nofd")) {
		struct {
			uint32_t n, pad;
			struct region r;
		} t = {1, 0, {0, MEMSZ, 0, 0}};

		before_mem(&f, path, MFD_ALLOW_SEALING, MEMSZ);
		t.r = (struct region){gpa(&f, 0), MEMSZ, gpa(&f, 0), 0};
		send_fds(&f, SET_MEM_TABLE, &t, sizeof(t), NULL, 0);
	} else {
		return -1;
	}
	rest(&f);
	return outcome(&f);
}

static int run(const char *path, const char *mode)
{
	struct fe f = {0};
	int rc;

	if (bad_table(path, mode) == 0)
		return 0;
	for (size_t k = 0; k < sizeof(ol_modes) / sizeof(ol_modes[0]); k++)
		if (is(mode, ol_modes[k].mode)) {
			up(&f, path, MFD_ALLOW_SEALING);
			if (offloads && !(f.features & HOST_OFFLOADS)) {
				printf("no host offload offered: %#llx\n",
				       (unsigned long long)f.features);
				return 3;
			}
			return ol_send(&f, ol_modes[k].make);
		}
	for (size_t k = 0; k < sizeof(frame_modes) / sizeof(frame_modes[0]); k++)
		if (is(mode, frame_modes[k].mode)) {
			up(&f, path, MFD_ALLOW_SEALING);
			return bad_frames(&f, frame_modes[k].make);
		}
	if (is(mode, "good") || is(mode, "hold")) {
		up(&f, path, MFD_ALLOW_SEALING);
		printf("connected\n");
		if (is(mode, "hold"))
			return outcome(&f);
		return 0;
	}
	if (strncmp(mode, "hangup", 6) == 0) {
		connect_to(&f, path);
		make_memory(&f, MFD_ALLOW_SEALING, MEMSZ);
		rc = handshake(&f, atoi(mode + 6), 1ULL << 32);
		printf(rc == 1 ? "hung up\n" : "closed\n");
		return 0;
	}
	if (is(mode, "truncate") || is(mode, "truncate-noseal") || is(mode, "hugetlb-truncate") ||
	    is(mode, "hugetlb-punch")) {
		/* A sealable memfd (podwired seals it), one that takes no
		 * seals, a huge page one; then it shrinks the file, or punches
		 * its page out, under podwired and keeps sending. */
		bool huge = strncmp(mode, "hugetlb", 7) == 0;

		up(&f, path, huge ? MFD_HUGETLB : is(mode, "truncate") ? MFD_ALLOW_SEALING : 0);
		if (is(mode, "hugetlb-punch"))
			rc = fallocate(f.memfd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, 0,
				       (off_t)f.size);
		else
			rc = ftruncate(f.memfd, 0);
		printf("truncate: %s\n", rc == 0 ? "worked" : strerror(errno));
		if (rc == 0) {
			/* Our own view of it is gone too. */
			munmap(f.mem, f.size);
		} else {
			send_frame(&f);
		}
		return outcome(&f);
	}
	if (is(mode, "truncate-handshake")) {
		/* A memfd that takes no seals, shrunk between the memory
		 * table and the rings: librte_vhost's own thread reads the
		 * rings while it handles SET_VRING_ADDR. */
		before_mem(&f, path, 0, MEMSZ);
		mem_table(&f, MEMSZ, 0);
		sleep_ms(100);
		rc = ftruncate(f.memfd, 0);
		printf("truncate: %s\n", rc == 0 ? "worked" : strerror(errno));
		rest(&f);
		return outcome(&f);
	}
	if (is(mode, "ring-out")) {
		/* Ring addresses outside every region. */
		before_mem(&f, path, MFD_ALLOW_SEALING, MEMSZ);
		mem_table(&f, MEMSZ, 0);
		for (int q = 0; q < 2; q++) {
			send_state(&f, SET_VRING_NUM, q, QSIZE);
			send_state(&f, SET_VRING_BASE, q, 0);
			vring_addr(&f, q, gpa(&f, 0) + (64ULL << 30), gpa(&f, MEMSZ - 8),
				   gpa(&f, 0) - 4096);
			vring_fds(&f, q);
		}
		return outcome(&f);
	}
	if (is(mode, "ring-num")) {
		before_mem(&f, path, MFD_ALLOW_SEALING, MEMSZ);
		mem_table(&f, MEMSZ, 0);
		send_state(&f, SET_VRING_NUM, 0, 60000);
		send_state(&f, SET_VRING_NUM, 1, 3);
		rest(&f);
		return outcome(&f);
	}
	for (size_t k = 0; k < sizeof(rx_modes) / sizeof(rx_modes[0]); k++)
		if (is(mode, rx_modes[k].mode)) {
			up(&f, path, MFD_ALLOW_SEALING);
			return rx_attack(&f, rx_modes[k].make);
		}
	if (is(mode, "rx-avail-jump")) {
		up(&f, path, MFD_ALLOW_SEALING);
		return rx_attack(&f, NULL);
	}
	if (is(mode, "base-resume")) {
		up(&f, path, MFD_ALLOW_SEALING);
		return base_resume(&f);
	}
	if (is(mode, "avail-jump")) {
		up(&f, path, MFD_ALLOW_SEALING);
		f.next[1] = (uint16_t)(f.next[1] + 30000);
		__atomic_store_n(&f.avail[1]->idx, f.next[1], __ATOMIC_RELEASE);
		return outcome(&f);
	}
	if (is(mode, "used-write")) {
		/* The frontend scribbles over the rings podwired writes. */
		up(&f, path, MFD_ALLOW_SEALING);
		for (int k = 0; k < 200; k++) {
			f.used[1]->idx = (uint16_t)(k * 7919);
			f.used[0]->idx = (uint16_t)(k * 104729);
			f.used[1]->ring[k % QSIZE].id = 0xffffffff;
			f.used[1]->ring[k % QSIZE].len = 0xffffffff;
			send_frame(&f);
			sleep_ms(5);
		}
		return outcome(&f);
	}
	if (is(mode, "features")) {
		/* Every feature bit, offered or not. */
		connect_to(&f, path);
		make_memory(&f, MFD_ALLOW_SEALING, MEMSZ);
		send_u64(&f, GET_FEATURES, 0);
		reply_u64(&f, &f.features);
		send_u64(&f, SET_OWNER, 0);
		send_u64(&f, SET_FEATURES, ~0ULL);
		mem_table(&f, MEMSZ, 0);
		rest(&f);
		return outcome(&f);
	}
	if (is(mode, "features-offload") || is(mode, "features-no-offload")) {
		/* Offloads podwired never offers (UFO, ECN, the legacy GSO
		 * bit), or with "no-offload" (a port whose "offloads" is
		 * false) none at all, asked for anyway. */
		uint64_t never = 1ULL << VIRTIO_NET_F_GSO | 1ULL << VIRTIO_NET_F_HOST_UFO |
				 1ULL << VIRTIO_NET_F_HOST_ECN | 1ULL << VIRTIO_NET_F_GUEST_UFO |
				 1ULL << VIRTIO_NET_F_GUEST_ECN;

		if (is(mode, "features-no-offload"))
			never |= HOST_OFFLOADS | 1ULL << VIRTIO_NET_F_GUEST_CSUM |
				 1ULL << VIRTIO_NET_F_GUEST_TSO4 | 1ULL << VIRTIO_NET_F_GUEST_TSO6;
		connect_to(&f, path);
		make_memory(&f, MFD_ALLOW_SEALING, MEMSZ);
		send_u64(&f, GET_FEATURES, 0);
		reply_u64(&f, &f.features);
		if (f.features & never) {
			/* An offer of one of them is a failure of podwired's. */
			printf("offered: %#llx\n", (unsigned long long)f.features);
			return 1;
		}
		send_u64(&f, SET_OWNER, 0);
		send_u64(&f, SET_FEATURES,
			 wanted(&f) | 1ULL << VIRTIO_NET_F_GSO | 1ULL << VIRTIO_NET_F_HOST_UFO |
			     (is(mode, "features-no-offload")
				  ? 1ULL << VIRTIO_NET_F_HOST_TSO4 | 1ULL << VIRTIO_NET_F_CSUM
				  : 0));
		mem_table(&f, MEMSZ, 0);
		rest(&f);
		return outcome(&f);
	}
	if (is(mode, "memtable-again") || is(mode, "memtable-again-big")) {
		/* A new table while the device runs: the same memory again, or
		 * a region longer than its file. */
		up(&f, path, MFD_ALLOW_SEALING);
		if (is(mode, "memtable-again-big")) {
			int fd2 = memfd_create("again", MFD_ALLOW_SEALING);
			struct {
				uint32_t n, pad;
				struct region r;
			} t = {1, 0, {gpa(&f, 0), MEMSZ, gpa(&f, 0), 0}};

			if (fd2 < 0 || ftruncate(fd2, 4096) != 0)
				die("memfd");
			send_fds(&f, SET_MEM_TABLE, &t, sizeof(t), &fd2, 1);
		} else {
			mem_table(&f, MEMSZ, 0);
		}
		for (int k = 0; k < 20; k++) {
			send_frame(&f);
			sleep_ms(10);
		}
		return outcome(&f);
	}
	if (is(mode, "out-of-order")) {
		/* Rings before memory, kicks before rings, features last. */
		connect_to(&f, path);
		make_memory(&f, MFD_ALLOW_SEALING, MEMSZ);
		vring_fds(&f, 0);
		vring_addr(&f, 0, gpa(&f, DESC_OFF(0)), gpa(&f, AVAIL_OFF(0)),
			   gpa(&f, USED_OFF(0)));
		send_state(&f, SET_VRING_NUM, 1, QSIZE);
		vring_fds(&f, 1);
		vring_addr(&f, 1, gpa(&f, DESC_OFF(1)), gpa(&f, AVAIL_OFF(1)),
			   gpa(&f, USED_OFF(1)));
		mem_table(&f, MEMSZ, 0);
		send_u64(&f, SET_FEATURES, 1ULL << 32);
		send_state(&f, GET_VRING_BASE, 0, 0);
		send_u64(&f, SET_OWNER, 0);
		return outcome(&f);
	}
	if (is(mode, "flood")) {
		/* Messages as fast as the socket takes them. */
		connect_to(&f, path);
		make_memory(&f, MFD_ALLOW_SEALING, MEMSZ);
		for (int k = 0; k < 20000; k++)
			if (send_state(&f, SET_VRING_NUM, k & 1, QSIZE) != 0)
				break;
		return outcome(&f);
	}
	if (is(mode, "fd-flood")) {
		/* An fd with every message that takes none. */
		connect_to(&f, path);
		make_memory(&f, MFD_ALLOW_SEALING, MEMSZ);
		for (int k = 0; k < 2000; k++)
			if (send_fds(&f, SET_OWNER, &(uint64_t){0}, 8, &f.memfd, 1) != 0)
				break;
		return outcome(&f);
	}
	if (is(mode, "unknown")) {
		connect_to(&f, path);
		make_memory(&f, MFD_ALLOW_SEALING, MEMSZ);
		send_u64(&f, 99, 0);
		send_u64(&f, 0, 0);
		return outcome(&f);
	}
	if (is(mode, "bad-size")) {
		/* A header claiming more payload than any message has. */
		struct msg m = {.request = SET_FEATURES, .flags = VERSION, .size = 100000};

		connect_to(&f, path);
		if (send(f.sock, &m, HDR + 8, MSG_NOSIGNAL) < 0)
			die("send");
		return outcome(&f);
	}
	if (is(mode, "log-base") || is(mode, "inflight") || is(mode, "call-pipe")) {
		/* Inflight: size, offset, 2 queues of QSIZE (librte_vhost
		 * refuses other queue counts before podwired sees them, and
		 * keeps the fd: see the notes). */
		uint64_t v[4] = {MEMSZ, 0, 2 | (uint64_t)QSIZE << 16, 0};
		int p[2];

		before_mem(&f, path, MFD_ALLOW_SEALING, MEMSZ);
		mem_table(&f, MEMSZ, 0);
		if (is(mode, "call-pipe")) {
			if (pipe(p) != 0)
				die("pipe");
			send_fds(&f, SET_VRING_CALL, &(uint64_t){0}, 8, &p[1], 1);
		} else {
			send_fds(&f, is(mode, "log-base") ? SET_LOG_BASE : SET_INFLIGHT_FD, v,
				 is(mode, "log-base") ? 16 : 20, &f.memfd, 1);
		}
		rest(&f);
		return outcome(&f);
	}
	if (is(mode, "call-fd-full") || is(mode, "call-wait")) {
		/* Interrupts wanted on both rings (their flags stay 0: no
		 * VRING_AVAIL_F_NO_INTERRUPT), buffers to receive into. */
		up(&f, path, MFD_ALLOW_SEALING);
		rx_buffers(&f, 64);
		for (int q = 0; q < 2; q++)
			drain(f.call[q]);
		if (is(mode, "call-fd-full")) {
			/* Our call eventfds made blocking and full: whoever
			 * writes them next blocks. */
			for (int q = 0; q < 2; q++) {
				uint64_t full = 0xfffffffffffffffeULL;

				if (fcntl(f.call[q], F_SETFL, 0) != 0 ||
				    write(f.call[q], &full, sizeof(full)) != sizeof(full))
					die("filling the call eventfd");
			}
			printf("armed\n");
			send_frame(&f);
			return outcome(&f);
		}
		/* A frame taken from our transmit ring, then frames sent to
		 * us (the test sends them once it reads "armed"): podwired
		 * signals each ring's call eventfd. */
		send_frame(&f);
		printf(waited_call(f.call[1], 2000) ? "tx call signalled\n"
						    : "tx call: no interrupt\n");
		printf("armed\n");
		printf(waited_call(f.call[0], wait_ms) ? "rx call signalled\n"
						       : "rx call: no interrupt\n");
		return 0;
	}
	fprintf(stderr, "vhost-hostile: unknown mode %s\n", mode);
	return 2;
}

int main(int argc, char **argv)
{
	int i = 1;

	for (; i < argc && argv[i][0] == '-'; i++) {
		if (strcmp(argv[i], "--wait") == 0 && i + 1 < argc)
			wait_ms = atoi(argv[++i]);
		else if (strcmp(argv[i], "--server") == 0)
			server_role = true;
		else if (strcmp(argv[i], "--offloads") == 0)
			offloads = true;
		else if (strcmp(argv[i], "--to") == 0 && i + 1 < argc &&
			 sscanf(argv[i + 1], "%hhx:%hhx:%hhx:%hhx:%hhx:%hhx", &to_mac[0],
				&to_mac[1], &to_mac[2], &to_mac[3], &to_mac[4], &to_mac[5]) == 6)
			i++;
		else
			break;
	}
	if (argc - i != 2) {
		fprintf(stderr,
			"usage: vhost-hostile [--server] [--wait MS] [--offloads] [--to MAC] "
			"SOCKET MODE\n");
		return 2;
	}
	setvbuf(stdout, NULL, _IOLBF, 0);
	return run(argv[i], argv[i + 1]);
}
