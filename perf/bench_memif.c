/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * podwire-bench's memif client (bench_memif.h). One region holds both
 * rings and every buffer: s2m ring, m2s ring, then 2^log2 buffers for
 * each. The client owns the memory and writes both heads: on s2m it
 * publishes frames, on m2s it posts empty buffers for the switch to fill;
 * the switch moves the tails. The memory is a sealed memfd (the switch
 * may insist on F_SEAL_SHRINK, as podwired does), populated up front so
 * that no page is faulted in while measuring.
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
#include <unistd.h>

#include "bench_memif.h"
#include "datapath/prefetch.h"
#include "ports/memif/msg.h"
#include "ports/memif/proto.h"
#include "ports/memif/ring.h"
#include "ports/memif/sock.h"

#define HANDSHAKE_MS 5000

struct bench_memif {
	int sock;
	int region_fd;
	int efd[2]; /* s2m, m2s: the interrupt eventfds the protocol asks for */
	uint8_t *mem;
	struct memif_client_layout l; /* where the rings and buffers are in mem */
	struct memif_ring *s2m, *m2s;
	uint32_t buf_size;
	uint64_t *tag; /* one per s2m slot, the caller's */
	uint16_t ring_size, mask;
	uint16_t s2m_head; /* next slot to publish */
	uint16_t s2m_tail; /* as last read: slots the switch has taken */
	uint16_t m2s_last; /* next slot to read */
	uint16_t m2s_head; /* posted so far */
	uint16_t m2s_tail; /* as last read: slots the switch has filled */
	const char *error;
	bool gone; /* the switch hung up or said DISCONNECT */
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
	if (got_fd >= 0)
		close(got_fd);
	return rc == 1 ? 0 : rc == 0 ? -ETIMEDOUT : -ECONNRESET;
}

/* Waits for a message of type want; a DISCONNECT's reason, or what came
 * instead, goes into err. */
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
	} else {
		snprintf(err, err_len, "got %s, expected %s", memif_msg_name(msg->type),
			 memif_msg_name(want));
	}
	return -EPROTO;
}

static int make_memory(struct bench_memif *m, uint8_t log2, uint32_t buf_size)
{
	m->l = memif_client_layout(log2, buf_size);
	m->ring_size = (uint16_t)(1u << log2);
	m->mask = (uint16_t)(m->ring_size - 1);
	m->tag = calloc(m->ring_size, sizeof(*m->tag));
	if (m->tag == NULL)
		return -ENOMEM;
	m->buf_size = buf_size;
	m->region_fd = memif_client_memfd("podwire-bench", m->l.size);
	if (m->region_fd < 0)
		return -errno;
	m->mem = mmap(NULL, m->l.size, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_POPULATE,
		      m->region_fd, 0);
	if (m->mem == MAP_FAILED) {
		m->mem = NULL;
		return -errno;
	}
	m->s2m = (struct memif_ring *)m->mem;
	m->m2s = (struct memif_ring *)(m->mem + m->l.ring_bytes);
	m->s2m->cookie = m->m2s->cookie = MEMIF_COOKIE;
	/* We poll: the switch need not kick us. */
	m->m2s->flags = MEMIF_RING_FLAG_MASK_INT;
	m->efd[0] = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
	m->efd[1] = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
	return m->efd[0] < 0 || m->efd[1] < 0 ? -errno : 0;
}

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
	if (memif_client_announce(m->sock, 0, "", "podwire-bench", m->region_fd, &m->l, log2,
				  m->efd[0], m->efd[1]) != 0) {
		snprintf(err, err_len, "cannot talk to the switch: %s", strerror(errno));
		return -EIO;
	}
	/* INIT, the region and the two rings are each acknowledged. */
	for (int i = 0; i < 4; i++)
		if ((rc = expect(m, MEMIF_MSG_ACK, &msg, err, err_len)) < 0)
			return rc;
	return expect(m, MEMIF_MSG_CONNECTED, &msg, err, err_len);
}

struct bench_memif *bench_memif_open(const char *path, uint8_t log2, uint32_t buf_size, char *err,
				     size_t err_len)
{
	struct sockaddr_un sa = {.sun_family = AF_UNIX};
	struct bench_memif *m = calloc(1, sizeof(*m));
	int rc;

	if (m == NULL) {
		snprintf(err, err_len, "out of memory");
		return NULL;
	}
	m->sock = m->region_fd = m->efd[0] = m->efd[1] = -1;
	if (log2 < 1 || log2 > MEMIF_MAX_LOG2_RING || buf_size < MEMIF_MIN_BUFFER ||
	    buf_size > MEMIF_MAX_BUFFER) {
		snprintf(err, err_len, "rings of 2^%u slots of %u bytes: out of range", log2,
			 buf_size);
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
			 (unsigned long long)m->l.size, strerror(-rc));
		goto fail;
	}
	strcpy(sa.sun_path, path);
	m->sock = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);
	if (m->sock < 0 || connect(m->sock, (struct sockaddr *)&sa, sizeof(sa)) != 0) {
		snprintf(err, err_len, "connect: %s", strerror(errno));
		goto fail;
	}
	if (handshake(m, log2, err, err_len) < 0)
		goto fail;
	/* Every m2s buffer, posted for the switch to fill. */
	for (uint16_t s = 0; s < m->ring_size; s++)
		memif_desc_post(&m->m2s->desc[s], 0, slot_buf(m, m->l.m2s_buf, s), buf_size);
	m->m2s_head = m->ring_size;
	__atomic_store_n(&m->m2s->head, m->m2s_head, __ATOMIC_RELEASE);
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
		munmap(m->mem, m->l.size);
	for (int i = 0; i < 2; i++)
		if (m->efd[i] >= 0)
			close(m->efd[i]);
	if (m->region_fd >= 0)
		close(m->region_fd);
	free(m->tag);
	free(m);
}

uint16_t bench_memif_tx_slots(struct bench_memif *m, uint8_t **buf, uint64_t **tag, uint16_t n)
{
	uint16_t used = (uint16_t)(m->s2m_head - m->s2m_tail), room;

	/* The switch's tail is read only when what we knew of is used up. */
	if (used + n > m->ring_size) {
		uint16_t tail = __atomic_load_n(&m->s2m->tail, __ATOMIC_ACQUIRE);

		if (memif_ring_count(m->s2m_head, tail, m->ring_size) == MEMIF_RING_BAD) {
			if (m->error == NULL)
				m->error = "the switch moved the s2m tail past our head";
			return 0;
		}
		m->s2m_tail = tail;
		used = (uint16_t)(m->s2m_head - tail);
	}
	room = (uint16_t)(m->ring_size - used);
	if (n > room)
		n = room;
	/* The switch's core read these lines last: they are asked for, with
	 * intent to write, all at once before the caller writes any. */
	for (uint16_t i = 0; i < n; i++) {
		uint16_t s = (uint16_t)(m->s2m_head + i) & m->mask;

		buf[i] = m->mem + slot_buf(m, m->l.s2m_buf, s);
		tag[i] = &m->tag[s];
		dp_prefetch_write(buf[i]);
		if (memif_desc_line_start(i, s))
			dp_prefetch_write(&m->s2m->desc[s]);
	}
	return n;
}

void bench_memif_tx_commit(struct bench_memif *m, const uint16_t *len, uint16_t k)
{
	for (uint16_t i = 0; i < k; i++) {
		uint16_t s = (uint16_t)(m->s2m_head + i) & m->mask;

		memif_desc_post(&m->s2m->desc[s], 0, slot_buf(m, m->l.s2m_buf, s), len[i]);
	}
	m->s2m_head = (uint16_t)(m->s2m_head + k);
	if (k != 0)
		__atomic_store_n(&m->s2m->head, m->s2m_head, __ATOMIC_RELEASE);
}

int bench_memif_rx(struct bench_memif *m, const uint8_t **buf, uint32_t *len, uint16_t n)
{
	uint16_t avail = (uint16_t)(m->m2s_tail - m->m2s_last), got = 0;

	/* The switch's tail is read again only when what it last said is
	 * short of a burst: its line is the one the switch writes most. */
	if (avail < n) {
		uint16_t tail = __atomic_load_n(&m->m2s->tail, __ATOMIC_ACQUIRE);

		avail = memif_ring_count(tail, m->m2s_last, (uint16_t)(m->m2s_head - m->m2s_last));
		if (avail == MEMIF_RING_BAD) {
			if (m->error == NULL)
				m->error =
				    "the switch moved the m2s tail past the buffers we posted";
			return -1;
		}
		m->m2s_tail = tail;
	}
	if (avail > n)
		avail = n;
	/* Descriptors (written again by bench_memif_rx_done) and the lines
	 * of the frames, all asked for before any is read. */
	for (uint16_t i = 0; i < avail; i++) {
		uint16_t s = (uint16_t)(m->m2s_last + i) & m->mask;

		if (memif_desc_line_start(i, s))
			dp_prefetch_write(&m->m2s->desc[s]);
		rte_prefetch0(m->mem + slot_buf(m, m->l.m2s_buf, s));
	}
	while (avail != 0) {
		uint16_t s = m->m2s_last & m->mask;
		uint32_t l = m->m2s->desc[s].length;

		m->m2s_last++;
		avail--;
		/* One buffer per frame: a chain or an overlong length is the
		 * switch's error, counted by the caller as a bad frame. */
		if (m->m2s->desc[s].flags & MEMIF_DESC_FLAG_NEXT || l > m->buf_size)
			l = 0;
		buf[got] = m->mem + slot_buf(m, m->l.m2s_buf, s);
		len[got++] = l;
	}
	return got;
}

void bench_memif_rx_done(struct bench_memif *m)
{
	/* Slots up to m2s_last are read: their buffers go back as posted,
	 * whole descriptors (the switch may have written more than the
	 * length and flags it owns). */
	for (uint16_t s = m->m2s_head; s != (uint16_t)(m->m2s_last + m->ring_size); s++) {
		uint16_t k = s & m->mask;

		memif_desc_post(&m->m2s->desc[k], 0, slot_buf(m, m->l.m2s_buf, k), m->buf_size);
	}
	if (m->m2s_head != (uint16_t)(m->m2s_last + m->ring_size)) {
		m->m2s_head = (uint16_t)(m->m2s_last + m->ring_size);
		__atomic_store_n(&m->m2s->head, m->m2s_head, __ATOMIC_RELEASE);
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
