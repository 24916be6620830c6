/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * podwire-bench's memif client (bench_memif.h). One region holds every
 * ring and every buffer: for each queue pair q its s2m ring and its m2s
 * ring, then for each q 2^log2 buffers for its s2m ring and as many for
 * its m2s ring (with one pair: memif_client_layout, as podwired's client
 * lays it out). The client owns the memory and writes both heads: on s2m
 * it publishes frames, on m2s it posts empty buffers for the switch to
 * fill; the switch moves the tails. The memory is a sealed memfd (the
 * switch may insist on F_SEAL_SHRINK, as podwired does), populated up
 * front so that no page is faulted in while measuring.
 */
#include <errno.h>
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

#include <rte_prefetch.h>

#include "bench_memif.h"
#include "memif/memif.h"

#define HANDSHAKE_MS 5000
/* A switch that is not serving us yet is tried again after 10 ms, then
 * 20, 40, ... up to 200 ms: a server that comes up within a few hundred
 * ms (testpmd's, see bench_memif_open) is found soon after, and one that
 * takes seconds is not asked 100 times a second. */
#define RETRY_MIN_MS 10
#define RETRY_MAX_MS 200

/* One queue pair: its two rings, where their buffers start in the
 * region, and the indices the client keeps. */
struct bench_memif_qp {
	struct memif_ring *s2m, *m2s;
	uint32_t ring_off[2]; /* s2m, m2s: where the rings are in the region */
	uint32_t s2m_buf, m2s_buf;
	int efd[2];	   /* s2m, m2s: the interrupt eventfds the protocol asks for */
	uint64_t *tag;	   /* one per s2m slot, the caller's */
	uint16_t s2m_head; /* next slot to publish */
	uint16_t s2m_tail; /* as last read: slots the switch has taken */
	uint16_t m2s_last; /* next slot to read */
	uint16_t m2s_head; /* posted so far */
	uint16_t m2s_tail; /* as last read: slots the switch has filled */
};

struct bench_memif {
	int sock;
	int region_fd;
	uint8_t *mem;
	uint64_t size; /* of the region */
	uint32_t buf_size;
	uint16_t ring_size, mask;
	uint16_t nq;
	const char *error;
	bool gone; /* the switch hung up or said DISCONNECT */
	struct bench_memif_qp qp[];
};

/* The offset in mem of slot s's buffer, in the buffers starting at base:
 * a slot's buffer is always the same one. */
static inline uint32_t slot_buf(const struct bench_memif *m, uint32_t base, uint16_t s)
{
	return base + (uint32_t)(s & m->mask) * m->buf_size;
}

/* The next message, within ms; an fd passed along is closed (a server
 * sends none). 0, -ETIMEDOUT, or -ECONNRESET with why in err. */
static int recv_msg(int fd, struct memif_msg *m, int ms, char *err, size_t err_len)
{
	struct pollfd p = {.fd = fd, .events = POLLIN};
	int got_fd, rc;

	if (poll(&p, 1, ms) <= 0)
		return -ETIMEDOUT;
	rc = memif_msg_recv(fd, m, &got_fd, err, err_len);
	/* A server that closes before reading all we sent resets the
	 * connection, and the reset is reported before what it had sent
	 * (a DISCONNECT with its reason): once it is reported, the rest
	 * can be read. */
	if (rc < 0 && errno == ECONNRESET) {
		char again[8];

		if (memif_msg_recv(fd, m, &got_fd, again, sizeof(again)) == 1)
			rc = 1;
	}
	if (got_fd >= 0)
		close(got_fd);
	return rc == 1 ? 0 : rc == 0 ? -ETIMEDOUT : -ECONNRESET;
}

/* Waits for a message of type want; a DISCONNECT's reason, or what came
 * instead, goes into err. -ETIMEDOUT, -ECONNRESET (the switch hung up),
 * -ECONNREFUSED (it said DISCONNECT) or -EPROTO (it said something else). */
static int expect(struct bench_memif *m, uint16_t want, struct memif_msg *msg, char *err,
		  size_t err_len)
{
	char reason[MEMIF_REASON_LEN + 1], why[128] = "";
	int rc = recv_msg(m->sock, msg, HANDSHAKE_MS, why, sizeof(why));

	if (rc < 0) {
		snprintf(err, err_len, "waiting for %s: %s", memif_msg_name(want),
			 why[0] != '\0' ? why : strerror(-rc));
		return rc;
	}
	if (msg->type == want)
		return 0;
	if (msg->type == MEMIF_MSG_DISCONNECT) {
		memif_field_str(msg->disconnect.reason, sizeof(msg->disconnect.reason), reason,
				sizeof(reason));
		snprintf(err, err_len, "the switch disconnected: %s", reason);
		return -ECONNREFUSED;
	} else {
		snprintf(err, err_len, "got %s, expected %s", memif_msg_name(msg->type),
			 memif_msg_name(want));
	}
	return -EPROTO;
}

/* The rings' shared words as a new connection expects them: a switch
 * that refused an earlier try may have read them, none may have moved
 * them, but nothing of a refused try is kept. */
static void rings_reset(struct bench_memif *m)
{
	for (uint16_t q = 0; q < m->nq; q++) {
		struct bench_memif_qp *qp = &m->qp[q];

		qp->s2m->head = qp->s2m->tail = qp->m2s->head = qp->m2s->tail = 0;
		qp->s2m->cookie = qp->m2s->cookie = MEMIF_COOKIE;
		qp->s2m->flags = 0;
		/* We poll: the switch need not kick us. */
		qp->m2s->flags = MEMIF_RING_FLAG_MASK_INT;
	}
}

/* The region's size for nq queue pairs; 0 when it is more than a switch
 * maps (MEMIF_MAX_REGION_BYTES) or than descriptors' 32-bit offsets reach. */
static uint64_t region_bytes(uint16_t nq, uint8_t log2, uint32_t buf_size)
{
	struct memif_client_layout l = memif_client_layout(log2, buf_size);
	uint64_t size = (uint64_t)nq * l.size;

	return size <= MEMIF_MAX_REGION_BYTES && size <= UINT32_MAX ? size : 0;
}

static int make_memory(struct bench_memif *m, uint8_t log2, uint32_t buf_size)
{
	struct memif_client_layout l = memif_client_layout(log2, buf_size);
	uint64_t bufs = (uint64_t)l.m2s_buf - l.s2m_buf; /* one ring's buffers */
	uint32_t rings = 2u * m->nq * l.ring_bytes;

	m->size = region_bytes(m->nq, log2, buf_size);
	m->ring_size = (uint16_t)(1u << log2);
	m->mask = (uint16_t)(m->ring_size - 1);
	m->buf_size = buf_size;
	m->region_fd = memif_client_memfd("podwire-bench", m->size);
	if (m->region_fd < 0)
		return -errno;
	m->mem =
	    mmap(NULL, m->size, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_POPULATE, m->region_fd, 0);
	if (m->mem == MAP_FAILED) {
		m->mem = NULL;
		return -errno;
	}
	for (uint16_t q = 0; q < m->nq; q++) {
		struct bench_memif_qp *qp = &m->qp[q];

		qp->ring_off[0] = 2u * q * l.ring_bytes;
		qp->ring_off[1] = qp->ring_off[0] + l.ring_bytes;
		qp->s2m = (struct memif_ring *)(m->mem + qp->ring_off[0]);
		qp->m2s = (struct memif_ring *)(m->mem + qp->ring_off[1]);
		qp->s2m_buf = (uint32_t)(rings + 2u * q * bufs);
		qp->m2s_buf = (uint32_t)(qp->s2m_buf + bufs);
		qp->tag = calloc(m->ring_size, sizeof(*qp->tag));
		qp->efd[0] = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
		qp->efd[1] = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
		if (qp->tag == NULL)
			return -ENOMEM;
		if (qp->efd[0] < 0 || qp->efd[1] < 0)
			return -errno;
	}
	return 0;
}

/* INIT, the region, every ring with its eventfd (s2m ones first), CONNECT,
 * all at once: as memif_client_announce, for nq queue pairs. The switch
 * answers each but CONNECT with an ACK. 0, or -1 with errno. */
static int announce(struct bench_memif *m, uint8_t log2)
{
	struct memif_msg msg;

	memif_msg_init(&msg, 0, "", "podwire-bench");
	if (memif_msg_send(m->sock, &msg, -1) != 0)
		return -1;
	memif_msg_add_region(&msg, 0, m->size);
	if (memif_msg_send(m->sock, &msg, m->region_fd) != 0)
		return -1;
	for (int dir = 0; dir < 2; dir++)
		for (uint16_t q = 0; q < m->nq; q++) {
			memif_msg_add_ring(&msg, dir == 0, q, 0, m->qp[q].ring_off[dir], log2);
			if (memif_msg_send(m->sock, &msg, m->qp[q].efd[dir]) != 0)
				return -1;
		}
	memif_msg_connect(&msg, MEMIF_MSG_CONNECT, "podwire-bench");
	return memif_msg_send(m->sock, &msg, -1);
}

/* The client's side of the handshake on a connected m->sock. 0; as
 * expect(), or -EINVAL (the switch's HELLO does not suit us). */
static int handshake(struct bench_memif *m, uint8_t log2, char *err, size_t err_len)
{
	struct memif_msg msg;
	uint8_t agreed;
	int rc;

	rc = expect(m, MEMIF_MSG_HELLO, &msg, err, err_len);
	if (rc < 0)
		return rc;
	rc = memif_check_hello(&msg.hello, log2, &agreed, err, err_len);
	if (rc < 0)
		return rc;
	if (agreed != log2) {
		snprintf(err, err_len, "the switch takes rings of at most 2^%u slots; lower --ring",
			 agreed);
		return -EINVAL;
	}
	if (msg.hello.max_s2m_ring + 1u < m->nq || msg.hello.max_m2s_ring + 1u < m->nq) {
		snprintf(err, err_len,
			 "the switch takes at most %u queue pair(s) (%u s2m and %u m2s rings), "
			 "not %u; lower --queues",
			 (msg.hello.max_s2m_ring < msg.hello.max_m2s_ring
			      ? msg.hello.max_s2m_ring
			      : msg.hello.max_m2s_ring) +
			     1u,
			 msg.hello.max_s2m_ring + 1u, msg.hello.max_m2s_ring + 1u, m->nq);
		return -EINVAL;
	}
	if (announce(m, log2) != 0) {
		int e = errno;

		/* A switch that refuses INIT says why and hangs up before it
		 * reads the rest (DPDK's net_memif): the rest fails with EPIPE,
		 * and the reason may still be waiting for us. */
		if (e == EPIPE || e == ECONNRESET) {
			if (expect(m, MEMIF_MSG_ACK, &msg, err, err_len) == -ECONNREFUSED)
				return -ECONNREFUSED;
			snprintf(err, err_len, "cannot talk to the switch: %s", strerror(e));
			return -ECONNRESET;
		}
		snprintf(err, err_len, "cannot talk to the switch: %s", strerror(e));
		return -EIO;
	}
	/* INIT, the region and each ring are acknowledged. */
	for (int i = 0; i < 2 + 2 * m->nq; i++)
		if ((rc = expect(m, MEMIF_MSG_ACK, &msg, err, err_len)) < 0)
			return rc;
	return expect(m, MEMIF_MSG_CONNECTED, &msg, err, err_len);
}

static uint64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

/* One connection and handshake on a new m->sock. 0; -EAGAIN when the
 * switch is there but not serving us yet (bench_memif_open); another
 * negative errno otherwise. Why in err. */
static int try_open(struct bench_memif *m, const struct sockaddr_un *sa, uint8_t log2, char *err,
		    size_t err_len)
{
	int rc;

	rings_reset(m);
	m->sock = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);
	if (m->sock < 0) {
		snprintf(err, err_len, "socket: %s", strerror(errno));
		return -errno;
	}
	if (connect(m->sock, (const struct sockaddr *)sa, sizeof(*sa)) != 0) {
		int e = errno;

		/* Bound but not listening yet, or its backlog full: a switch
		 * still starting. No socket at all is more likely a wrong
		 * path than a switch a moment away: said at once. */
		snprintf(err, err_len, "connect: %s", strerror(e));
		return e == ECONNREFUSED || e == EAGAIN ? -EAGAIN : -e;
	}
	rc = handshake(m, log2, err, err_len);
	return rc == -ECONNREFUSED || rc == -ECONNRESET ? -EAGAIN : rc;
}

struct bench_memif *bench_memif_open(const char *path, uint8_t log2, uint32_t buf_size,
				     unsigned int wait_ms, char *err, size_t err_len)
{
	return bench_memif_open_queues(path, log2, buf_size, 1, wait_ms, err, err_len);
}

struct bench_memif *bench_memif_open_queues(const char *path, uint8_t log2, uint32_t buf_size,
					    uint16_t nq, unsigned int wait_ms, char *err,
					    size_t err_len)
{
	struct sockaddr_un sa = {.sun_family = AF_UNIX};
	struct bench_memif *m;
	char why[256], first[256] = "";
	uint64_t start, elapsed, delay = RETRY_MIN_MS;
	unsigned int tries;
	int rc;

	err[0] = '\0';
	if (nq < 1 || nq > MEMIF_MAX_QUEUE_PAIRS) {
		snprintf(err, err_len, "%u queue pairs: memif takes 1 to %u", (unsigned int)nq,
			 (unsigned int)MEMIF_MAX_QUEUE_PAIRS);
		return NULL;
	}
	m = calloc(1, sizeof(*m) + nq * sizeof(m->qp[0]));
	if (m == NULL) {
		snprintf(err, err_len, "out of memory");
		return NULL;
	}
	m->nq = nq;
	m->sock = m->region_fd = -1;
	for (uint16_t q = 0; q < nq; q++)
		m->qp[q].efd[0] = m->qp[q].efd[1] = -1;
	if (log2 < 1 || log2 > MEMIF_MAX_LOG2_RING || buf_size < MEMIF_MIN_BUFFER ||
	    buf_size > MEMIF_MAX_BUFFER) {
		snprintf(err, err_len, "rings of 2^%u slots of %u bytes: out of range", log2,
			 buf_size);
		goto fail;
	}
	if (region_bytes(nq, log2, buf_size) == 0) {
		snprintf(err, err_len,
			 "%u queue pair(s) of rings of 2^%u slots of %u bytes need %.0f MiB of "
			 "shared memory; a memif switch maps at most %llu MiB: lower --ring or "
			 "--queues",
			 nq, log2, buf_size,
			 (double)nq * (double)memif_client_layout(log2, buf_size).size / 1048576,
			 MEMIF_MAX_REGION_BYTES >> 20);
		goto fail;
	}
	if (strlen(path) >= sizeof(sa.sun_path)) {
		snprintf(err, err_len, "socket path longer than %zu bytes",
			 sizeof(sa.sun_path) - 1);
		goto fail;
	}
	rc = make_memory(m, log2, buf_size);
	if (rc < 0) {
		snprintf(err, err_len, "shared memory of %llu bytes: %s",
			 (unsigned long long)m->size, strerror(-rc));
		goto fail;
	}
	strcpy(sa.sun_path, path);
	start = now_ms();
	for (tries = 1;; tries++) {
		rc = try_open(m, &sa, log2, why, sizeof(why));
		if (rc == 0)
			break;
		if (tries == 1)
			snprintf(first, sizeof(first), "%s", why);
		elapsed = now_ms() - start;
		if (rc != -EAGAIN || elapsed >= wait_ms) {
			if (tries == 1)
				snprintf(err, err_len, "%s", why);
			else
				snprintf(err, err_len,
					 "not served after %u tries in %.1f s (the first: %s): %s",
					 tries, (double)elapsed / 1000, first, why);
			goto fail;
		}
		close(m->sock);
		m->sock = -1;
		usleep(
		    (useconds_t)((delay < wait_ms - elapsed ? delay : wait_ms - elapsed) * 1000));
		delay = delay * 2 < RETRY_MAX_MS ? delay * 2 : RETRY_MAX_MS;
	}
	if (tries > 1)
		snprintf(
		    err, err_len,
		    "the switch was not serving it yet (%s): connected at try %u, after %.2f s",
		    first, tries, (double)(now_ms() - start) / 1000);
	/* Every m2s buffer, posted for the switch to fill. */
	for (uint16_t q = 0; q < nq; q++) {
		struct bench_memif_qp *qp = &m->qp[q];

		for (uint16_t s = 0; s < m->ring_size; s++)
			memif_desc_post(&qp->m2s->desc[s], 0, slot_buf(m, qp->m2s_buf, s),
					buf_size);
		qp->m2s_head = m->ring_size;
		__atomic_store_n(&qp->m2s->head, qp->m2s_head, __ATOMIC_RELEASE);
	}
	return m;
fail:
	bench_memif_close(m);
	return NULL;
}

void bench_memif_close(struct bench_memif *m)
{
	if (m == NULL)
		return;
	if (m->sock >= 0 && !m->gone) {
		struct memif_msg msg;

		memif_msg_disconnect(&msg, 0, "podwire-bench is done");
		memif_msg_send(m->sock, &msg, -1);
	}
	if (m->sock >= 0)
		close(m->sock);
	if (m->mem != NULL)
		munmap(m->mem, m->size);
	for (uint16_t q = 0; q < m->nq; q++) {
		for (int i = 0; i < 2; i++)
			if (m->qp[q].efd[i] >= 0)
				close(m->qp[q].efd[i]);
		free(m->qp[q].tag);
	}
	if (m->region_fd >= 0)
		close(m->region_fd);
	free(m);
}

uint16_t bench_memif_tx_slots(struct bench_memif *m, uint16_t q, uint8_t **buf, uint64_t **tag,
			      uint16_t n)
{
	struct bench_memif_qp *qp = &m->qp[q];
	uint16_t used = (uint16_t)(qp->s2m_head - qp->s2m_tail), room;

	/* The switch's tail is read only when what we knew of is used up. */
	if (used + n > m->ring_size) {
		uint16_t tail = __atomic_load_n(&qp->s2m->tail, __ATOMIC_ACQUIRE);

		if (memif_ring_count(qp->s2m_head, tail, m->ring_size) == MEMIF_RING_BAD) {
			if (m->error == NULL)
				m->error = "the switch moved the s2m tail past our head";
			return 0;
		}
		qp->s2m_tail = tail;
		used = (uint16_t)(qp->s2m_head - tail);
	}
	room = (uint16_t)(m->ring_size - used);
	if (n > room)
		n = room;
	/* The switch's core read these lines last: they are asked for, with
	 * intent to write, all at once before the caller writes any. */
	for (uint16_t i = 0; i < n; i++) {
		uint16_t s = (uint16_t)(qp->s2m_head + i) & m->mask;

		buf[i] = m->mem + slot_buf(m, qp->s2m_buf, s);
		tag[i] = &qp->tag[s];
		memif_prefetch_write(buf[i]);
		if (memif_desc_line_start(i, s))
			memif_prefetch_write(&qp->s2m->desc[s]);
	}
	return n;
}

void bench_memif_tx_commit(struct bench_memif *m, uint16_t q, const uint16_t *len, uint16_t k)
{
	struct bench_memif_qp *qp = &m->qp[q];

	for (uint16_t i = 0; i < k; i++) {
		uint16_t s = (uint16_t)(qp->s2m_head + i) & m->mask;

		memif_desc_post(&qp->s2m->desc[s], 0, slot_buf(m, qp->s2m_buf, s), len[i]);
	}
	qp->s2m_head = (uint16_t)(qp->s2m_head + k);
	if (k != 0)
		__atomic_store_n(&qp->s2m->head, qp->s2m_head, __ATOMIC_RELEASE);
}

int bench_memif_rx(struct bench_memif *m, uint16_t q, const uint8_t **buf, uint32_t *len,
		   uint16_t n)
{
	struct bench_memif_qp *qp = &m->qp[q];
	uint16_t avail = (uint16_t)(qp->m2s_tail - qp->m2s_last), got = 0;

	/* The switch's tail is read again only when what it last said is
	 * short of a burst: its line is the one the switch writes most. */
	if (avail < n) {
		uint16_t tail = __atomic_load_n(&qp->m2s->tail, __ATOMIC_ACQUIRE);

		avail =
		    memif_ring_count(tail, qp->m2s_last, (uint16_t)(qp->m2s_head - qp->m2s_last));
		if (avail == MEMIF_RING_BAD) {
			if (m->error == NULL)
				m->error =
				    "the switch moved the m2s tail past the buffers we posted";
			return -1;
		}
		qp->m2s_tail = tail;
	}
	if (avail > n)
		avail = n;
	/* Descriptors (written again by bench_memif_rx_done) and the lines
	 * of the frames, all asked for before any is read. */
	for (uint16_t i = 0; i < avail; i++) {
		uint16_t s = (uint16_t)(qp->m2s_last + i) & m->mask;

		if (memif_desc_line_start(i, s))
			memif_prefetch_write(&qp->m2s->desc[s]);
		rte_prefetch0(m->mem + slot_buf(m, qp->m2s_buf, s));
	}
	while (avail != 0) {
		uint16_t s = qp->m2s_last & m->mask;
		uint32_t l = qp->m2s->desc[s].length;

		qp->m2s_last++;
		avail--;
		/* One buffer per frame: a chain or an overlong length is the
		 * switch's error, counted by the caller as a bad frame. */
		if (qp->m2s->desc[s].flags & MEMIF_DESC_FLAG_NEXT || l > m->buf_size)
			l = 0;
		buf[got] = m->mem + slot_buf(m, qp->m2s_buf, s);
		len[got++] = l;
	}
	return got;
}

void bench_memif_rx_done(struct bench_memif *m, uint16_t q)
{
	struct bench_memif_qp *qp = &m->qp[q];

	/* Slots up to m2s_last are read: their buffers go back as posted,
	 * whole descriptors (the switch may have written more than the
	 * length and flags it owns). */
	for (uint16_t s = qp->m2s_head; s != (uint16_t)(qp->m2s_last + m->ring_size); s++) {
		uint16_t k = s & m->mask;

		memif_desc_post(&qp->m2s->desc[k], 0, slot_buf(m, qp->m2s_buf, k), m->buf_size);
	}
	if (qp->m2s_head != (uint16_t)(qp->m2s_last + m->ring_size)) {
		qp->m2s_head = (uint16_t)(qp->m2s_last + m->ring_size);
		__atomic_store_n(&qp->m2s->head, qp->m2s_head, __ATOMIC_RELEASE);
	}
}

bool bench_memif_up(struct bench_memif *m)
{
	struct pollfd p = {.fd = m->sock, .events = POLLIN};
	struct memif_msg msg;
	char why[128];
	int fd;

	while (!m->gone && poll(&p, 1, 0) == 1) {
		int rc = p.revents & (POLLHUP | POLLERR)
			     ? -1
			     : memif_msg_recv(m->sock, &msg, &fd, why, sizeof(why));

		if (rc == 0)
			break;
		if (rc == 1 && fd >= 0)
			close(fd);
		if (rc < 0 || msg.type == MEMIF_MSG_DISCONNECT)
			m->gone = true;
	}
	return !m->gone;
}

const char *bench_memif_error(const struct bench_memif *m)
{
	return m->error;
}
