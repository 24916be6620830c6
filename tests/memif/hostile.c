/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * memif-hostile: a memif peer that speaks the control protocol and then
 * misbehaves in one chosen way, for the smoke tests of podwired's memif.
 *
 *   memif-hostile [--server] [--secret S] [--wait MS] SOCKET MODE
 *
 * As a client (default) it connects to SOCKET, where podwired listens;
 * with --server it listens there and waits for podwired, a client-role
 * port, to connect. MODE "good" ("srv-good" with --server) is a
 * well-behaved peer: it connects, sends one 60-byte frame, waits until
 * podwired has taken it and prints "connected" ("hold" then stays until
 * killed or --wait passes). Every other mode breaks one rule (see
 * run_client and run_server; "hangupK" and "srv-hangupK" leave after the
 * K-th step of the handshake; "flap" connects and leaves in a loop;
 * "mem-peer" and "mem-total" hand over more memory than podwired's caps;
 * "seconds" connects in a loop to a port another peer holds).
 * The tool then waits up to --wait ms (default 8000) for podwired to end
 * the connection and prints what it saw: "disconnected: REASON" (podwired
 * said why), "closed" (podwired hung up), or "still connected". It exits
 * 0 when podwired ended the connection or the mode was good, 1 otherwise.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "memif/memif.h"

#define LOG2	  8
#define NSLOTS	  (1u << LOG2)
#define BUF	  2048
#define RINGBYTES 4224 /* memif_ring_bytes(8), rounded up to 64 */

static const char *secret = "";
static int wait_ms = 8000;
static bool server_role;

struct peer {
	int fd;
	int region_fd;
	uint8_t *mem;
	uint64_t size;
	struct memif_ring *s2m, *m2s;
	int efd[2];
	uint16_t s2m_head, m2s_last;	   /* client side */
	uint16_t srv_last_rx, srv_last_tx; /* server side (podwired is the client) */
	uint8_t srv_log2;
	struct memif_ring *srv_s2m, *srv_m2s;
	uint8_t *srv_base;
	uint64_t srv_size;
};

static void die(const char *what)
{
	fprintf(stderr, "memif-hostile: %s: %s\n", what, strerror(errno));
	exit(2);
}

static int send_msg(int fd, const struct memif_msg *m, size_t len, const int *fds, int nfd)
{
	char ctl[CMSG_SPACE(4 * sizeof(int))];
	struct iovec iov = {.iov_base = (void *)m, .iov_len = len};
	struct msghdr mh = {.msg_iov = &iov, .msg_iovlen = 1};

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
	return sendmsg(fd, &mh, MSG_NOSIGNAL) == (ssize_t)len ? 0 : -1;
}

static int send1(int fd, const struct memif_msg *m, int pass)
{
	return send_msg(fd, m, sizeof(*m), &pass, pass >= 0 ? 1 : 0);
}

/* Waits up to ms for a message; 1 got one (fd, if any, into *got_fd), 0
 * timed out, -1 the peer closed. */
static int recv_msg(int fd, struct memif_msg *m, int ms, int *got_fd)
{
	struct pollfd p = {.fd = fd, .events = POLLIN};
	char ctl[CMSG_SPACE(sizeof(int))];
	struct iovec iov = {.iov_base = m, .iov_len = sizeof(*m)};
	struct msghdr mh = {
	    .msg_iov = &iov, .msg_iovlen = 1, .msg_control = ctl, .msg_controllen = sizeof(ctl)};
	struct cmsghdr *cm;
	ssize_t r;

	if (got_fd != NULL)
		*got_fd = -1;
	if (poll(&p, 1, ms) <= 0)
		return 0;
	r = recvmsg(fd, &mh, 0);
	if (r <= 0)
		return -1;
	cm = CMSG_FIRSTHDR(&mh);
	if (cm != NULL && cm->cmsg_type == SCM_RIGHTS && got_fd != NULL)
		memcpy(got_fd, CMSG_DATA(cm), sizeof(int));
	return 1;
}

/* The end: prints how podwired ended it. */
static int outcome(int fd, bool expect_end)
{
	struct memif_msg m;
	char reason[MEMIF_REASON_LEN + 1];
	long left = wait_ms;

	while (left > 0) {
		int rc = recv_msg(fd, &m, 100, NULL);

		left -= 100;
		if (rc < 0) {
			printf("closed\n");
			return expect_end ? 0 : 1;
		}
		if (rc > 0 && m.type == MEMIF_MSG_DISCONNECT) {
			memif_field_str(m.disconnect.reason, sizeof(m.disconnect.reason), reason,
					sizeof(reason));
			printf("disconnected: %s\n", reason);
			return expect_end ? 0 : 1;
		}
	}
	printf("still connected\n");
	return expect_end ? 1 : 0;
}

/* ---- as a client ------------------------------------------------------------- */

static void make_memory(struct peer *p, bool sealable)
{
	p->size = 2 * RINGBYTES + 2 * NSLOTS * BUF;
	p->region_fd = memfd_create("hostile", sealable ? MFD_ALLOW_SEALING : 0);
	if (p->region_fd < 0 || ftruncate(p->region_fd, (off_t)p->size) != 0)
		die("memfd");
	if (sealable)
		fcntl(p->region_fd, F_ADD_SEALS, F_SEAL_SHRINK);
	p->mem = mmap(NULL, p->size, PROT_READ | PROT_WRITE, MAP_SHARED, p->region_fd, 0);
	if (p->mem == MAP_FAILED)
		die("mmap");
	p->s2m = (struct memif_ring *)p->mem;
	p->m2s = (struct memif_ring *)(p->mem + RINGBYTES);
	p->s2m->cookie = p->m2s->cookie = MEMIF_COOKIE;
	p->efd[0] = eventfd(0, EFD_NONBLOCK);
	p->efd[1] = eventfd(0, EFD_NONBLOCK);
}

static uint32_t buf_off(int ring, uint16_t slot)
{
	return 2 * RINGBYTES + ((uint32_t)ring * NSLOTS + (slot % NSLOTS)) * BUF;
}

static int connect_to(const char *path)
{
	struct sockaddr_un sa = {.sun_family = AF_UNIX};
	int fd = socket(AF_UNIX, SOCK_SEQPACKET, 0);

	snprintf(sa.sun_path, sizeof(sa.sun_path), "%s", path);
	if (fd < 0 || connect(fd, (struct sockaddr *)&sa, sizeof(sa)) != 0)
		die("connect");
	return fd;
}

/* The handshake, step by step; stop_after: 0 hang up after HELLO, 1
 * after INIT, 2 after the region, 3 and 4 after the rings, 5 after
 * CONNECT; -1 goes through. Returns 0 connected, 1 hung up as asked, -1
 * podwired ended it. */
static int handshake(struct peer *p, const char *path, int stop_after)
{
	struct memif_msg m;
	int step = 0;

	p->fd = connect_to(path);
	if (recv_msg(p->fd, &m, 2000, NULL) != 1 || m.type != MEMIF_MSG_HELLO)
		return -1;
	if (stop_after == step++)
		return 1;
	memif_msg_init(&m, 0, secret, "hostile");
	send1(p->fd, &m, -1);
	if (stop_after == step++)
		return 1;
	memif_msg_add_region(&m, 0, p->size);
	send1(p->fd, &m, p->region_fd);
	if (stop_after == step++)
		return 1;
	memif_msg_add_ring(&m, true, 0, 0, 0, LOG2);
	send1(p->fd, &m, p->efd[0]);
	if (stop_after == step++)
		return 1;
	memif_msg_add_ring(&m, false, 0, 0, RINGBYTES, LOG2);
	send1(p->fd, &m, p->efd[1]);
	if (stop_after == step++)
		return 1;
	memif_msg_connect(&m, MEMIF_MSG_CONNECT, "hostile");
	send1(p->fd, &m, -1);
	if (stop_after == step++)
		return 1;
	for (int acks = 0; acks < 4;) {
		if (recv_msg(p->fd, &m, 2000, NULL) != 1 || m.type == MEMIF_MSG_DISCONNECT)
			return -1;
		acks += m.type == MEMIF_MSG_ACK;
	}
	if (recv_msg(p->fd, &m, 2000, NULL) != 1 || m.type != MEMIF_MSG_CONNECTED)
		return -1;
	/* Post every m2s buffer for podwired to fill. */
	for (uint16_t s = 0; s < NSLOTS; s++)
		memif_desc_post(&p->m2s->desc[s], 0, buf_off(1, s), BUF);
	p->m2s->flags = MEMIF_RING_FLAG_MASK_INT;
	__atomic_store_n(&p->m2s->head, NSLOTS, __ATOMIC_RELEASE);
	return 0;
}

/* One s2m frame of len bytes in the next slot, with desc d as given. */
static void put_frame(struct peer *p, struct memif_desc d, bool publish)
{
	uint8_t *b = p->mem + buf_off(0, p->s2m_head);

	memset(b, 0, 64);
	memset(b, 0xff, 6);	   /* broadcast */
	b[6] = 0x02, b[11] = 0x77; /* 02:00:00:00:00:77 */
	b[12] = 0x08;
	memcpy(&p->s2m->desc[p->s2m_head % NSLOTS], &d, sizeof(d));
	p->s2m_head++;
	if (publish)
		__atomic_store_n(&p->s2m->head, p->s2m_head, __ATOMIC_RELEASE);
}

static struct memif_desc good_desc(struct peer *p, uint32_t len)
{
	struct memif_desc d = {.region = 0, .length = len, .offset = buf_off(0, p->s2m_head)};

	return d;
}

/* Sends bad frames until podwired gives up on us. */
static int bad_frames(struct peer *p, struct memif_desc (*make)(struct peer *p))
{
	for (int i = 0; i < 256; i++) {
		uint16_t tail = __atomic_load_n(&p->s2m->tail, __ATOMIC_ACQUIRE);

		if ((uint16_t)(p->s2m_head - tail) >= NSLOTS - 2) {
			usleep(1000);
			continue;
		}
		put_frame(p, make(p), true);
		usleep(200);
	}
	return outcome(p->fd, true);
}

static struct memif_desc d_region(struct peer *p)
{
	struct memif_desc d = good_desc(p, 60);

	d.region = 7;
	return d;
}

static struct memif_desc d_offset(struct peer *p)
{
	struct memif_desc d = good_desc(p, 60);

	d.offset = (uint32_t)p->size - 30; /* the frame runs past the region */
	return d;
}

static struct memif_desc d_len0(struct peer *p)
{
	return good_desc(p, 0);
}

static struct memif_desc d_lenbig(struct peer *p)
{
	struct memif_desc d = good_desc(p, 60);

	d.length = 0x7fffffff;
	return d;
}

static struct memif_desc d_chain(struct peer *p)
{
	struct memif_desc d = good_desc(p, 60);

	d.flags = MEMIF_DESC_FLAG_NEXT; /* every frame goes on, forever */
	return d;
}

/* ---- as a server, podwired the client ---------------------------------------- */

static int accept_on(const char *path)
{
	struct sockaddr_un sa = {.sun_family = AF_UNIX};
	int fd = socket(AF_UNIX, SOCK_SEQPACKET, 0), c;

	snprintf(sa.sun_path, sizeof(sa.sun_path), "%s", path);
	unlink(path);
	if (fd < 0 || bind(fd, (struct sockaddr *)&sa, sizeof(sa)) != 0 || listen(fd, 1) != 0)
		die("listen");
	c = accept(fd, NULL, NULL);
	if (c < 0)
		die("accept");
	close(fd);
	return c;
}

/* Takes podwired's INIT, region, two rings and CONNECT, answering each as
 * a server does unless hostile says otherwise; maps its region. Returns 0
 * once CONNECTED is sent (connected says whether to send it). */
static int serve(struct peer *p, const char *mode)
{
	struct memif_msg m;
	int fd, n = 0, stop = -1;

	/* srv-hangupK: gone after the K-th message of podwired's handshake
	 * (0: before saying hello; 6: right after saying connected). */
	if (sscanf(mode, "srv-hangup%d", &stop) == 1 && stop == 0)
		return 1;
	memif_msg_hello(&m, "hostile");
	if (strcmp(mode, "srv-version") == 0)
		m.hello.min_version = m.hello.max_version = 0x100;
	if (strcmp(mode, "srv-log2") == 0)
		m.hello.max_log2_ring_size = 0;
	if (strcmp(mode, "srv-hello-fd") == 0)
		send1(p->fd, &m, p->efd[0] = eventfd(0, 0));
	else
		send1(p->fd, &m, -1);
	while (recv_msg(p->fd, &m, 3000, &fd) == 1) {
		if (m.type == MEMIF_MSG_DISCONNECT)
			return -1;
		if (++n == stop)
			return 1;
		if (strcmp(mode, "srv-early-connected") == 0 && m.type == MEMIF_MSG_INIT) {
			memif_msg_connect(&m, MEMIF_MSG_CONNECTED, "hostile");
			send1(p->fd, &m, -1);
			return -1;
		}
		if (m.type == MEMIF_MSG_ADD_REGION) {
			p->srv_size = m.add_region.size;
			p->srv_base =
			    mmap(NULL, p->srv_size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
			if (p->srv_base == MAP_FAILED)
				die("mmap podwired's region");
			p->region_fd = fd;
		} else if (m.type == MEMIF_MSG_ADD_RING) {
			struct memif_ring *r =
			    (struct memif_ring *)(p->srv_base + m.add_ring.offset);

			if (m.add_ring.flags & MEMIF_RING_FLAG_S2M)
				p->srv_s2m = r;
			else
				p->srv_m2s = r;
			p->srv_log2 = m.add_ring.log2_ring_size;
		}
		if (m.type == MEMIF_MSG_CONNECT) {
			if (strcmp(mode, "srv-extra-ack") == 0) {
				memif_msg_simple(&m, MEMIF_MSG_ACK);
				send1(p->fd, &m, -1);
			}
			/* As a server does: both rings start from zero. */
			p->srv_s2m->head = p->srv_s2m->tail = 0;
			p->srv_m2s->head = p->srv_m2s->tail = 0;
			p->srv_s2m->flags = MEMIF_RING_FLAG_MASK_INT;
			memif_msg_connect(&m, MEMIF_MSG_CONNECTED, "hostile");
			send1(p->fd, &m, -1);
			return stop == 6 ? 1 : 0;
		}
		memif_msg_simple(&m, MEMIF_MSG_ACK);
		send1(p->fd, &m, -1);
	}
	return -1;
}

/* As a server, sends one frame to podwired: fills the next m2s buffer it
 * posted. */
static void serve_frame(struct peer *p, uint32_t len)
{
	uint16_t size = (uint16_t)(1u << p->srv_log2), slot;
	struct memif_desc d;
	uint8_t *b;

	for (int i = 0;
	     i < 200 && __atomic_load_n(&p->srv_m2s->head, __ATOMIC_ACQUIRE) == p->srv_last_rx; i++)
		usleep(10000);
	slot = p->srv_last_rx;
	d = memif_desc_read(&p->srv_m2s->desc[slot & (size - 1)]);
	b = p->srv_base + d.offset;
	memset(b, 0, 64);
	memset(b, 0xff, 6);
	b[6] = 0x02, b[11] = 0x78;
	b[12] = 0x08;
	memif_desc_fill(&p->srv_m2s->desc[slot & (size - 1)], len, false);
	p->srv_last_rx++;
	__atomic_store_n(&p->srv_m2s->tail, p->srv_last_rx, __ATOMIC_RELEASE);
}

static int run_server(const char *path, const char *mode)
{
	struct peer p = {.region_fd = -1, .efd = {-1, -1}};
	int rc;

	p.fd = accept_on(path);
	if (strcmp(mode, "srv-silent") == 0)
		return outcome(p.fd, true); /* says nothing, not even hello */
	rc = serve(&p, mode);
	if (rc == 1) {
		printf("hung up (%s)\n", mode);
		return 0; /* the process ends: every fd closes */
	}
	if (rc != 0)
		return outcome(p.fd, true);
	if (strcmp(mode, "srv-good") == 0) {
		uint16_t size;

		serve_frame(&p, 60);
		/* Said once podwired has taken the frame: it posts its buffer
		 * again, and a whole ring of them is out. */
		size = (uint16_t)(1u << p.srv_log2);
		for (int i = 0;
		     i < 1000 && (uint16_t)(__atomic_load_n(&p.srv_m2s->head, __ATOMIC_ACQUIRE) -
					    p.srv_last_rx) != size;
		     i++)
			usleep(10000);
		printf("connected\n");
		fflush(stdout);
		return outcome(p.fd, false);
	}
	if (strcmp(mode, "srv-tail-jump") == 0) {
		/* m2s tail past every buffer podwired posted. */
		usleep(100000);
		__atomic_store_n(
		    &p.srv_m2s->tail,
		    (uint16_t)(__atomic_load_n(&p.srv_m2s->head, __ATOMIC_ACQUIRE) + 100),
		    __ATOMIC_RELEASE);
	} else if (strcmp(mode, "srv-badlen") == 0) {
		for (int i = 0; i < 256; i++) {
			serve_frame(&p, 60000); /* more than the buffer podwired posted */
			usleep(500);
		}
	} else if (strcmp(mode, "srv-s2m-tail") == 0) {
		/* s2m tail ahead of podwired's head: seen when it sends. */
		__atomic_store_n(&p.srv_s2m->tail, 77, __ATOMIC_RELEASE);
	} else if (strcmp(mode, "srv-extra-ack") != 0) {
		fprintf(stderr, "memif-hostile: unknown server mode %s\n", mode);
		return 2;
	}
	return outcome(p.fd, true);
}

/* ---- the client modes ------------------------------------------------------------- */

/* Messages that break the rules before the handshake is done. */
static int early(struct peer *p, const char *path, const char *mode)
{
	struct memif_msg m;
	int fds[2];

	p->fd = connect_to(path);
	if (recv_msg(p->fd, &m, 2000, NULL) != 1)
		return 2;
	memif_msg_init(&m, 0, secret, "hostile");
	if (strcmp(mode, "version") == 0)
		m.init.version = 0x0100;
	else if (strcmp(mode, "secret") == 0)
		memcpy(m.init.secret, "not-the-secret", 14);
	else if (strcmp(mode, "id") == 0)
		m.init.id = 42;
	else if (strcmp(mode, "mode") == 0)
		m.init.mode = MEMIF_MODE_IP;
	else if (strcmp(mode, "connect-first") == 0)
		memif_msg_connect(&m, MEMIF_MSG_CONNECT, "hostile");
	else if (strcmp(mode, "region-first") == 0)
		memif_msg_add_region(&m, 0, p->size);
	else if (strcmp(mode, "ack") == 0)
		memif_msg_simple(&m, MEMIF_MSG_ACK);
	else if (strcmp(mode, "unknown-type") == 0)
		m.type = 99;
	if (strcmp(mode, "short-msg") == 0)
		return send_msg(p->fd, &m, 64, NULL, 0), outcome(p->fd, true);
	if (strcmp(mode, "long-msg") == 0) {
		char big[200] = {0};

		memcpy(big, &m, sizeof(m));
		return send_msg(p->fd, (void *)big, sizeof(big), NULL, 0), outcome(p->fd, true);
	}
	if (strcmp(mode, "init-fd") == 0)
		return send1(p->fd, &m, p->efd[0]), outcome(p->fd, true);
	if (strcmp(mode, "two-fds") == 0) {
		send1(p->fd, &m, -1);
		memif_msg_add_region(&m, 0, p->size);
		fds[0] = p->region_fd, fds[1] = p->efd[0];
		return send_msg(p->fd, &m, sizeof(m), fds, 2), outcome(p->fd, true);
	}
	send1(p->fd, &m, strcmp(mode, "region-first") == 0 ? p->region_fd : -1);
	if (strcmp(mode, "dup-init") == 0) {
		memif_msg_init(&m, 0, secret, "hostile");
		send1(p->fd, &m, -1);
	}
	return outcome(p->fd, true);
}

/* After a good INIT: one bad region or ring, or CONNECT too early. */
static int setup(struct peer *p, const char *path, const char *mode)
{
	struct memif_msg m;
	int pipefd[2], fd = p->region_fd;
	uint64_t size = p->size;
	uint16_t index = 0;

	p->fd = connect_to(path);
	if (recv_msg(p->fd, &m, 2000, NULL) != 1)
		return 2;
	memif_msg_init(&m, 0, secret, "hostile");
	send1(p->fd, &m, -1);
	if (strcmp(mode, "connect-norings") == 0) {
		memif_msg_connect(&m, MEMIF_MSG_CONNECT, "hostile");
		return send1(p->fd, &m, -1), outcome(p->fd, true);
	}
	if (strcmp(mode, "region-big") == 0)
		size = 2ull << 30;
	else if (strcmp(mode, "region-index") == 0)
		index = 5;
	else if (strcmp(mode, "region-nofd") == 0)
		fd = -1;
	else if (strcmp(mode, "region-notmem") == 0)
		fd = open("/proc/self/exe", O_RDONLY); /* a file on disk, or a pipe */
	else if (strcmp(mode, "region-pipe") == 0)
		fd = pipe(pipefd) == 0 ? pipefd[0] : -1;
	else if (strcmp(mode, "region-short") == 0)
		size = p->size * 4;
	else if (strcmp(mode, "region-unsealable") == 0) {
		struct peer q = {0};

		make_memory(&q, false);
		fd = q.region_fd;
	}
	memif_msg_add_region(&m, index, size);
	send1(p->fd, &m, fd);
	memif_msg_add_ring(&m, true, 0, 0, 0, LOG2);
	if (strcmp(mode, "ring-region") == 0)
		m.add_ring.region = 3;
	else if (strcmp(mode, "ring-offset") == 0)
		m.add_ring.offset = (uint32_t)p->size - 64;
	else if (strcmp(mode, "ring-log2") == 0)
		m.add_ring.log2_ring_size = 15;
	if (strcmp(mode, "ring-nofd") == 0)
		send1(p->fd, &m, -1);
	else if (strcmp(mode, "ring-notevent") == 0)
		send1(p->fd, &m, pipe(pipefd) == 0 ? pipefd[1] : -1);
	else
		send1(p->fd, &m, p->efd[0]);
	if (strcmp(mode, "bad-cookie") == 0) {
		memif_msg_add_ring(&m, false, 0, 0, RINGBYTES, LOG2);
		send1(p->fd, &m, p->efd[1]);
		p->s2m->cookie = 0;
		memif_msg_connect(&m, MEMIF_MSG_CONNECT, "hostile");
		send1(p->fd, &m, -1);
	}
	return outcome(p->fd, true);
}

static long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* "flap": for --wait ms, connects and leaves at once (after the hello,
 * if podwired says it within 20 ms), again and again. Prints how many
 * tries there were, how many podwired greeted (a handshake it began) and
 * how many the kernel refused (the backlog was full: podwired was not
 * taking connections). */
static int flap(const char *path)
{
	struct sockaddr_un sa = {.sun_family = AF_UNIX};
	long end = now_ms() + wait_ms, tries = 0, greeted = 0, refused = 0;
	struct memif_msg m;

	snprintf(sa.sun_path, sizeof(sa.sun_path), "%s", path);
	while (now_ms() < end) {
		int fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_NONBLOCK, 0);

		if (fd < 0)
			die("socket");
		tries++;
		if (connect(fd, (struct sockaddr *)&sa, sizeof(sa)) != 0) {
			if (errno != EAGAIN)
				die("connect");
			refused++;
		} else if (recv_msg(fd, &m, 20, NULL) == 1 && m.type == MEMIF_MSG_HELLO) {
			greeted++;
		}
		close(fd);
		usleep(2000);
	}
	printf("flap: %ld tries, %ld greeted, %ld refused by the kernel\n", tries, greeted,
	       refused);
	return 0;
}

/* "seconds": for --wait ms, connects again and again while another peer
 * holds the port; each must be told, first thing, that the port is
 * taken. Prints "refused N of N: REASON" (the last reason). */
static int seconds(const char *path)
{
	long end = now_ms() + wait_ms, tries = 0, refused = 0;
	char reason[MEMIF_REASON_LEN + 1] = "";
	struct memif_msg m;

	while (now_ms() < end) {
		int fd = connect_to(path);

		tries++;
		if (recv_msg(fd, &m, 2000, NULL) == 1 && m.type == MEMIF_MSG_DISCONNECT) {
			memif_field_str(m.disconnect.reason, sizeof(m.disconnect.reason), reason,
					sizeof(reason));
			refused++;
		}
		close(fd);
		usleep(5000);
	}
	printf("refused %ld of %ld: %s\n", refused, tries, reason);
	return refused == tries ? 0 : 1;
}

/* "mem-peer": two regions of 10 MiB (past a 16 MiB cap per peer);
 * "mem-total": one of 15 MiB (past a 20 MiB cap of all peers when
 * others hold more than 5). Real, sealed memfds of that size: the cap,
 * not a file check, must be what refuses them. */
static int memory(struct peer *p, const char *path, const char *mode)
{
	bool two = strcmp(mode, "mem-peer") == 0;
	uint64_t size = (two ? 10ull : 15ull) << 20;
	struct memif_msg m;

	p->fd = connect_to(path);
	if (recv_msg(p->fd, &m, 2000, NULL) != 1)
		return 2;
	memif_msg_init(&m, 0, secret, "hostile");
	send1(p->fd, &m, -1);
	for (uint16_t i = 0; i < (two ? 2 : 1); i++) {
		int fd = memfd_create("hostile-big", MFD_ALLOW_SEALING);

		if (fd < 0 || ftruncate(fd, (off_t)size) != 0)
			die("memfd");
		fcntl(fd, F_ADD_SEALS, F_SEAL_SHRINK);
		memif_msg_add_region(&m, i, size);
		send1(p->fd, &m, fd);
		close(fd);
	}
	return outcome(p->fd, true);
}

/* Whether word is one of the space-separated words of list. */
static bool in_list(const char *word, const char *list)
{
	size_t n = strlen(word);

	for (const char *w = list; (w = strstr(w, word)) != NULL; w += n)
		if ((w == list || w[-1] == ' ') && (w[n] == ' ' || w[n] == '\0'))
			return true;
	return false;
}

static int run_client(const char *path, const char *mode)
{
	struct peer p = {.fd = -1};
	int rc, stop = -1;

	make_memory(&p, true);
	if (sscanf(mode, "hangup%d", &stop) == 1) {
		rc = handshake(&p, path, stop);
		printf("hung up after step %d\n", stop);
		return rc >= 0 ? 0 : 1;
	}
	if (in_list(mode, "version secret id mode connect-first region-first ack unknown-type "
			  "short-msg long-msg init-fd two-fds dup-init"))
		return early(&p, path, mode);
	if (strncmp(mode, "region-", 7) == 0 || strncmp(mode, "ring-", 5) == 0 ||
	    strcmp(mode, "connect-norings") == 0 || strcmp(mode, "bad-cookie") == 0)
		return setup(&p, path, mode);
	if (strncmp(mode, "mem-", 4) == 0)
		return memory(&p, path, mode);
	if (strcmp(mode, "flap") == 0)
		return flap(path);
	if (strcmp(mode, "seconds") == 0)
		return seconds(path);
	if (strcmp(mode, "silent") == 0) {
		p.fd = connect_to(path);
		return outcome(p.fd, true);
	}
	rc = handshake(&p, path, -1);
	if (rc != 0) {
		printf("handshake refused\n");
		return strcmp(mode, "second") == 0 ? 0 : 1;
	}
	if (strcmp(mode, "good") == 0 || strcmp(mode, "hold") == 0) {
		put_frame(&p, good_desc(&p, 60), true);
		/* Said once podwired has taken the frame (gave its slot back),
		 * so that a peer leaving at once does not race its own frame. */
		for (int i = 0;
		     i < 1000 && __atomic_load_n(&p.s2m->tail, __ATOMIC_ACQUIRE) != p.s2m_head; i++)
			usleep(10000);
		printf("connected\n");
		fflush(stdout);
		/* "hold" stays until podwired ends it or --wait passes. */
		return outcome(p.fd, false);
	}
	if (strcmp(mode, "truncate") == 0) {
		/* The region is sealed: the kernel refuses to shrink it. */
		rc = ftruncate(p.region_fd, 4096);
		printf("truncate %s\n", rc == 0 ? "worked" : strerror(errno));
		return rc == 0 ? 1 : outcome(p.fd, false);
	}
	if (strcmp(mode, "desc-region") == 0)
		return bad_frames(&p, d_region);
	if (strcmp(mode, "desc-offset") == 0)
		return bad_frames(&p, d_offset);
	if (strcmp(mode, "desc-len0") == 0)
		return bad_frames(&p, d_len0);
	if (strcmp(mode, "desc-lenbig") == 0)
		return bad_frames(&p, d_lenbig);
	if (strcmp(mode, "chain-forever") == 0)
		return bad_frames(&p, d_chain);
	if (strcmp(mode, "head-jump") == 0) {
		__atomic_store_n(&p.s2m->head, (uint16_t)(p.s2m_head + 5000), __ATOMIC_RELEASE);
		return outcome(p.fd, true);
	}
	if (strcmp(mode, "m2s-badpost") == 0) {
		/* Buffers posted for podwired to fill, past the region's end. */
		for (uint16_t s = 0; s < NSLOTS; s++)
			memif_desc_post(&p.m2s->desc[s], 0, (uint32_t)p.size - 16, BUF);
		return outcome(p.fd, true);
	}
	if (strcmp(mode, "kick-block") == 0) {
		uint64_t full = 0xfffffffffffffffeull;

		/* Ask for kicks, then make the eventfd block: its description is
		 * shared with podwired's copy. */
		p.m2s->flags = 0;
		fcntl(p.efd[1], F_SETFL, 0);
		if (write(p.efd[1], &full, sizeof(full)) != sizeof(full))
			die("saturate the eventfd");
		return outcome(p.fd, true);
	}
	fprintf(stderr, "memif-hostile: unknown mode %s\n", mode);
	return 2;
}

int main(int argc, char **argv)
{
	int i = 1;

	for (; i < argc && argv[i][0] == '-'; i++) {
		if (strcmp(argv[i], "--server") == 0)
			server_role = true;
		else if (strcmp(argv[i], "--secret") == 0 && i + 1 < argc)
			secret = argv[++i];
		else if (strcmp(argv[i], "--wait") == 0 && i + 1 < argc)
			wait_ms = atoi(argv[++i]);
		else
			break;
	}
	if (argc - i != 2) {
		fprintf(stderr,
			"usage: memif-hostile [--server] [--secret S] [--wait MS] SOCKET MODE\n");
		return 2;
	}
	setvbuf(stdout, NULL, _IOLBF, 0);
	return server_role ? run_server(argv[i], argv[i + 1]) : run_client(argv[i], argv[i + 1]);
}
