/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * memif's control channel, on podwired's control thread (core/loop.h):
 * the server's listening socket, the client's connection attempts, the
 * handshake in both roles, mapping the peer's regions (server) or making
 * podwired's own (client), and tearing a connection down.
 *
 * The peer is untrusted. Every message must be exactly 128 bytes with at
 * most one fd, in the order the protocol gives, within a deadline; every
 * field is checked (memif/memif.h); a region fd must be a memfd or a tmpfs or
 * hugetlbfs file, at least as large as claimed and sealed against
 * shrinking, so the peer can neither stall podwired in a page fault nor
 * make it fault past the end of the file. Anything else ends that
 * connection, and only that one, with a log line saying why.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/magic.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include <rte_common.h>

#include "core/loop.h"
#include "core/log.h"
#include "datapath/worker.h"
#include "ports/memif/port.h"

PW_LOG_TYPE("memif");

/* podwired's interface id on every port (net_memif's default, id=0). */
#define MEMIF_ID 0

struct memif_config memif_cfg = {
    .backoff_max_ms = 5000,
    .peer_max_bytes = 512ull << 20,
    .total_max_bytes = 4096ull << 20,
};

/* What every peer's regions take of podwired's address space, as mapped
 * (a client-role port's own memory is podwired's, not a peer's). */
static uint64_t memif_mapped_total;

uint64_t memif_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

/* ---- log lines a peer could make without end ---------------------------------- */

/* Whether a line may go out now (one per MEMIF_LOG_INTERVAL_MS); *note
 * then says how many were left out since the last. */
static bool log_gate(struct memif_log_gate *g, char *note, size_t len)
{
	uint64_t now = memif_now_ms();

	note[0] = '\0';
	if (now < g->next_ms) {
		g->left_out++;
		return false;
	}
	if (g->left_out != 0)
		snprintf(note, len, " (%llu similar line(s) left out in the last %d s)",
			 (unsigned long long)g->left_out, MEMIF_LOG_INTERVAL_MS / 1000);
	g->left_out = 0;
	g->next_ms = now + MEMIF_LOG_INTERVAL_MS;
	return true;
}

/* A line about a connection of a port whose peer may be flapping: said
 * every time until MEMIF_FLAP_QUIET flaps in a row, then rate-limited. */
#define CONN_LOG(mp, level, fmt, ...)                                                              \
	do {                                                                                       \
		char note_[96] = "";                                                               \
		if ((mp)->flaps < MEMIF_FLAP_QUIET ||                                              \
		    log_gate(&(mp)->flap_log, note_, sizeof(note_)))                               \
			PORT_LOG((mp)->port, level, fmt "%s", ##__VA_ARGS__, note_);               \
	} while (0)

/* ---- connections ------------------------------------------------------------- */

static void conn_on_event(void *arg, uint32_t events);

static struct memif_conn *conn_new(struct memif_port *mp, int fd, bool server)
{
	struct memif_conn *c =
	    aligned_alloc(RTE_CACHE_LINE_SIZE, RTE_ALIGN_CEIL(sizeof(*c), RTE_CACHE_LINE_SIZE));

	if (c == NULL)
		return NULL;
	memset(c, 0, sizeof(*c));
	c->mp = mp;
	c->fd = fd;
	c->server = server;
	c->state = MEMIF_CONN_HANDSHAKE;
	c->bad_window_ms = memif_now_ms();
	c->deadline_ms = c->bad_window_ms + MEMIF_HANDSHAKE_MS;
	for (unsigned int i = 0; i < MEMIF_MAX_REGIONS; i++)
		c->region[i].fd = -1;
	for (unsigned int i = 0; i < MEMIF_MAX_QUEUE_PAIRS; i++)
		c->rx[i].kick_fd = c->tx[i].kick_fd = -1;
	c->watch = loop_watch_add(fd, EPOLLIN, conn_on_event, c);
	if (c->watch == NULL) {
		free(c);
		return NULL;
	}
	mp->cur = c;
	return c;
}

static void conn_free(struct memif_conn *c)
{
	loop_watch_del(c->watch);
	if (c->fd >= 0)
		close(c->fd);
	for (unsigned int i = 0; i < MEMIF_MAX_REGIONS; i++) {
		if (c->region[i].base != NULL) {
			memif_guard_del(c->region[i].base);
			munmap(c->region[i].base, c->region[i].mapped_len);
			if (c->server)
				memif_mapped_total -= c->region[i].mapped_len;
		}
		if (c->region[i].fd >= 0)
			close(c->region[i].fd);
	}
	for (unsigned int i = 0; i < MEMIF_MAX_QUEUE_PAIRS; i++) {
		if (c->rx[i].kick_fd >= 0)
			close(c->rx[i].kick_fd);
		if (c->tx[i].kick_fd >= 0)
			close(c->tx[i].kick_fd);
	}
	free(c);
}

void memif_conn_close(struct memif_port *mp, const char *why, bool send)
{
	struct memif_conn *c = mp->cur;
	struct port *p = mp->port;
	char backoff[128] = "";
	bool was_up, flapped;
	uint64_t now;

	if (c == NULL)
		return;
	was_up = mp->conn == c;
	now = memif_now_ms();
	/* A connection that lasted is the end of a streak; one that did not
	 * (refused, broken, gone within MEMIF_FLAP_MS) adds to it. */
	flapped = !was_up || now - c->up_ms < MEMIF_FLAP_MS;
	mp->flaps = flapped ? mp->flaps + 1 : 0;
	mp->backoff_ms = memif_flap_backoff_ms(
	    mp->flaps, RTE_MIN((unsigned int)MEMIF_BACKOFF_MIN_MS, memif_cfg.backoff_max_ms),
	    memif_cfg.backoff_max_ms);
	mp->next_try_ms = now + mp->backoff_ms;
	if (mp->backoff_ms != 0)
		snprintf(backoff, sizeof(backoff),
			 "; %u connection(s) in a row ended within %d ms: the next is %s in %u ms",
			 mp->flaps, MEMIF_FLAP_MS,
			 p->conf.role == PORT_ROLE_SERVER ? "taken" : "made", mp->backoff_ms);
	if (was_up) {
		/* Workers stop at the link; after a grace period none is inside
		 * the rings, and only then does the memory go. */
		__atomic_store_n(&p->dp.link_up, false, __ATOMIC_RELEASE);
		view_wait();
		mp->conn = NULL;
		__atomic_store_n(&p->dp.rxq_on, 0, __ATOMIC_RELEASE);
		memif_kick_del(c);
		mp->disconnects++;
		CONN_LOG(mp, INFO, "peer \"%s\" disconnected, link down: %s%s", c->peer, why,
			 backoff);
	} else {
		CONN_LOG(mp, NOTICE, "connection with %s closed before it was up: %s%s",
			 c->peer[0] ? c->peer : "a peer", why, backoff);
	}
	snprintf(mp->last_reason, sizeof(mp->last_reason), "%s", why);
	/* The peer hears why only once the log says it: a peer (or a test)
	 * that looks in the log after being refused finds the reason there. */
	if (send) {
		struct memif_msg m;

		memif_msg_disconnect(&m, 1, why);
		memif_msg_send(c->fd, &m, -1);
	}
	mp->cur = NULL;
	conn_free(c);
	/* A server backs off by not taking connections: a peer's connect
	 * waits in the listening socket's backlog until then (and past the
	 * backlog, the kernel refuses it), so a peer in a loop costs podwired
	 * one handshake per back-off, not one per try. */
	if (p->conf.role == PORT_ROLE_SERVER && mp->backoff_ms != 0 && mp->listen_watch != NULL) {
		loop_watch_del(mp->listen_watch);
		mp->listen_watch = NULL;
	}
}

/* The handshake is over: workers may use c. -1 with why when it cannot
 * be (nothing was published then). */
static int conn_up(struct memif_conn *c, char *why, size_t len)
{
	struct memif_port *mp = c->mp;
	int rc = memif_kick_add(c);

	if (rc != 0) {
		snprintf(why, len, "cannot set up interrupts for the peer: %s", strerror(-rc));
		return -1;
	}
	c->state = MEMIF_CONN_UP;
	c->up_ms = memif_now_ms();
	mp->connects++;
	c->tx_shared = c->n_tx < n_workers;
	for (uint16_t k = 0; k < c->n_tx; k++)
		rte_spinlock_init(&c->tx[k].lock);
	__atomic_store_n(&mp->conn, c, __ATOMIC_RELEASE);
	/* Each ring the peer gave is a queue of its own; the control
	 * thread polls those (model: port_queues_check). */
	__atomic_store_n(&mp->port->dp.rxq_on,
			 (uint16_t)((1u << RTE_MIN(c->n_rx, mp->port->dp.n_rxq)) - 1),
			 __ATOMIC_RELEASE);
	__atomic_store_n(&mp->port->dp.link_up, true, __ATOMIC_RELEASE);
	CONN_LOG(mp, INFO, "peer \"%s\" connected as %s, %u queue pair(s), rings of %u, link up",
		 c->peer, c->server ? "client" : "server", c->n_rx, c->rx[0].size);
	return 0;
}

/* ---- checks of what the peer hands over ----------------------------------------- */

/* Maps a region the peer sent, after the checks that keep a mapping safe
 * to touch from a worker. */
static int region_map(struct memif_conn *c, struct memif_region *r, int fd, uint16_t index,
		      uint64_t size, char *why, size_t len)
{
	uint64_t mapped_len, peer_mapped = 0;
	struct statfs sfs;
	struct stat st;
	int seals;

	/* Seals exist only on tmpfs and hugetlbfs files: asking for them
	 * first sorts out every other file without calling into its
	 * filesystem (fstatfs on a FUSE file would wait on its daemon). */
	seals = fcntl(fd, F_GET_SEALS);
	if (seals < 0 || fstatfs(fd, &sfs) != 0 ||
	    ((unsigned long)sfs.f_type != TMPFS_MAGIC &&
	     (unsigned long)sfs.f_type != HUGETLBFS_MAGIC)) {
		snprintf(why, len,
			 "region %u: its fd is not a memfd, tmpfs or hugetlbfs file (a file on "
			 "another filesystem could stall podwired)",
			 index);
		return -EINVAL;
	}
	if (!(seals & F_SEAL_SHRINK) && fcntl(fd, F_ADD_SEALS, F_SEAL_SHRINK) != 0) {
		snprintf(why, len,
			 "region %u cannot be sealed against shrinking (%s); make it with "
			 "memfd_create(MFD_ALLOW_SEALING)",
			 index, strerror(errno));
		return -EINVAL;
	}
	/* Sealed now: the size checked stays the size. */
	if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || (uint64_t)st.st_size < size) {
		snprintf(why, len, "region %u: the file is %lld bytes, less than the %llu claimed",
			 index, (long long)st.st_size, (unsigned long long)size);
		return -EINVAL;
	}
	/* hugetlbfs maps and unmaps whole huge pages only. */
	mapped_len = RTE_ALIGN_CEIL(size, (uint64_t)sfs.f_bsize);
	for (unsigned int i = 0; i < index; i++)
		peer_mapped += c->region[i].mapped_len;
	if (memif_check_memory(index, mapped_len, peer_mapped, memif_cfg.peer_max_bytes,
			       memif_mapped_total, memif_cfg.total_max_bytes, why, len) != 0)
		return -ENOMEM;
	r->base = mmap(NULL, mapped_len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (r->base == MAP_FAILED) {
		r->base = NULL;
		snprintf(why, len, "region %u: cannot map %llu bytes: %s", index,
			 (unsigned long long)size, strerror(errno));
		return -EINVAL;
	}
	r->mapped_len = mapped_len;
	memif_mapped_total += mapped_len;
	r->size = size;
	if (memif_guard_add(r->base, r->mapped_len, c) != 0) {
		snprintf(why, len, "region %u: no room to guard its mapping; see the log", index);
		/* conn_free unmaps it; the fd is still the caller's, which
		 * closes it: the region must not hold it too, or it would be
		 * closed twice, the second time perhaps as another thread's
		 * newly opened file. */
		return -EINVAL;
	}
	r->fd = fd;
	return 0;
}

static void qring_set(struct memif_qring *q, struct memif_ring *ring, uint8_t log2, int kick_fd)
{
	q->ring = ring;
	q->log2 = log2;
	q->size = (uint16_t)(1u << log2);
	q->mask = (uint16_t)(q->size - 1);
	q->kick_fd = kick_fd;
}

/* ---- the server's side -------------------------------------------------------- */

static int ack(struct memif_conn *c, char *why, size_t len)
{
	struct memif_msg m;

	memif_msg_simple(&m, MEMIF_MSG_ACK);
	if (memif_msg_send(c->fd, &m, -1) == 0)
		return 0;
	snprintf(why, len, "the peer hung up before podwired could answer (%s)", strerror(errno));
	return -1;
}

/* Handles one message from a client. Returns 0, or -1 with why (the fd,
 * if any, is closed or kept by then). */
static int server_msg(struct memif_conn *c, const struct memif_msg *m, int fd, char *why,
		      size_t len)
{
	const struct port *p = c->mp->port;
	struct memif_msg out;

	if (memif_srv_expects(c->srv, m->type, why, len) != 0)
		goto fail;
	if (fd >= 0 && m->type != MEMIF_MSG_ADD_REGION && m->type != MEMIF_MSG_ADD_RING) {
		snprintf(why, len, "%s message carried an fd", memif_msg_name(m->type));
		goto fail;
	}
	switch (m->type) {
	case MEMIF_MSG_INIT:
		if (memif_check_init(&m->init, MEMIF_ID, p->conf.secret, why, len) != 0)
			goto fail;
		memif_field_str(m->init.name, sizeof(m->init.name), c->peer, sizeof(c->peer));
		c->srv = MEMIF_SRV_WAIT_SETUP;
		return ack(c, why, len);
	case MEMIF_MSG_ADD_REGION: {
		uint16_t i = m->add_region.index;

		if (fd < 0) {
			snprintf(why, len, "add-region %u came without its fd", i);
			goto fail;
		}
		if (memif_check_add_region(&m->add_region, &c->offer, why, len) != 0 ||
		    region_map(c, &c->region[i], fd, i, m->add_region.size, why, len) != 0)
			goto fail;
		memif_offer_add_region(&c->offer, &m->add_region);
		c->n_regions = c->offer.n_regions;
		return ack(c, why, len);
	}
	case MEMIF_MSG_ADD_RING: {
		const struct memif_msg_add_ring *ar = &m->add_ring;
		bool s2m = ar->flags & MEMIF_RING_FLAG_S2M;

		if (fd < 0 || !port_fd_is_eventfd(fd)) {
			snprintf(why, len, "add-ring %u came without an eventfd", ar->index);
			goto fail;
		}
		if (memif_check_add_ring(ar, &c->offer, why, len) != 0)
			goto fail;
		/* The server receives what runs s2m and sends m2s. */
		qring_set(s2m ? &c->rx[ar->index] : &c->tx[ar->index],
			  (struct memif_ring *)(c->region[ar->region].base + ar->offset),
			  ar->log2_ring_size, fd);
		memif_offer_add_ring(&c->offer, ar);
		return ack(c, why, len);
	}
	case MEMIF_MSG_CONNECT:
		if (memif_check_connect(&c->offer, why, len) != 0)
			return -1;
		c->n_rx = c->offer.n_rings[1];
		c->n_tx = c->offer.n_rings[0];
		for (uint16_t k = 0; k < c->n_rx || k < c->n_tx; k++) {
			const struct memif_ring *bad =
			    k < c->n_rx && c->rx[k].ring->cookie != MEMIF_COOKIE   ? c->rx[k].ring
			    : k < c->n_tx && c->tx[k].ring->cookie != MEMIF_COOKIE ? c->tx[k].ring
										   : NULL;

			if (bad != NULL) {
				snprintf(why, len, "ring %u has no memif cookie", k);
				return -1;
			}
		}
		c->buf_size = MEMIF_MAX_BUFFER;
		memif_server_rings_init(c);
		memif_msg_connect(&out, MEMIF_MSG_CONNECTED, p->conf.name);
		if (memif_msg_send(c->fd, &out, -1) != 0) {
			snprintf(why, len, "the peer hung up before podwired could answer (%s)",
				 strerror(errno));
			return -1;
		}
		c->srv = MEMIF_SRV_CONNECTED;
		return conn_up(c, why, len);
	default: /* DISCONNECT */
		memif_field_str(m->disconnect.reason, sizeof(m->disconnect.reason), why, len);
		if (why[0] == '\0')
			snprintf(why, len, "the peer disconnected");
		return -1;
	}
fail:
	/* Every path that kept the fd returned before. */
	if (fd >= 0)
		close(fd);
	return -1;
}

static bool peer_gone(int fd)
{
	struct pollfd pfd = {.fd = fd, .events = POLLIN | POLLRDHUP};

	return poll(&pfd, 1, 0) == 1 && (pfd.revents & (POLLHUP | POLLRDHUP | POLLERR)) != 0;
}

static void server_on_accept(void *arg, uint32_t events)
{
	struct memif_port *mp = arg;
	struct memif_msg m;
	int fd;

	(void)events;
	/* A bounded number per event (the rest come with the next), and none
	 * once the port backs off. */
	for (int i = 0; i < 16 && mp->listen_watch != NULL; i++) {
		char note[96];

		fd = accept4(mp->listen_fd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
		if (fd < 0)
			break;
		if (peer_gone(fd)) {
			/* It left while it waited in the backlog (the port was
			 * backing off): nothing to greet, nothing to count. */
			close(fd);
			continue;
		}
		if (mp->cur != NULL) {
			/* One peer per port: the one there keeps it, undisturbed. */
			memif_msg_disconnect(&m, 1,
					     "this interface already has a peer; one at a time");
			memif_msg_send(fd, &m, -1);
			close(fd);
			mp->refused++;
			if (log_gate(&mp->refuse_log, note, sizeof(note)))
				PORT_LOG(mp->port, NOTICE,
					 "a second peer was turned away: already %s with \"%s\" "
					 "(%llu turned away so far)%s",
					 mp->conn != NULL ? "connected" : "connecting",
					 mp->cur->peer[0] ? mp->cur->peer : "a peer",
					 (unsigned long long)mp->refused, note);
			continue;
		}
		if (conn_new(mp, fd, true) == NULL) {
			close(fd);
			continue;
		}
		mp->cur->srv = MEMIF_SRV_WAIT_INIT;
		memif_msg_hello(&m, mp->port->conf.name);
		if (memif_msg_send(fd, &m, -1) != 0)
			memif_conn_close(mp, "cannot greet the peer", false);
	}
}

int memif_listen(struct memif_port *mp, char *msg, size_t len)
{
	struct sockaddr_un sa = {.sun_family = AF_UNIX};
	const struct port *p = mp->port;

	snprintf(sa.sun_path, sizeof(sa.sun_path), "%s", p->conf.socket);
	mp->listen_fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (mp->listen_fd < 0 || bind(mp->listen_fd, (struct sockaddr *)&sa, sizeof(sa)) != 0) {
		snprintf(msg, len, "port \"%s\": cannot listen on %s: %s; check the directory",
			 p->conf.name, p->conf.socket, strerror(errno));
		memif_unlisten(mp);
		return -EIO;
	}
	if (listen(mp->listen_fd, 4) != 0) {
		snprintf(msg, len, "port \"%s\": cannot listen on %s: %s", p->conf.name,
			 p->conf.socket, strerror(errno));
		memif_unlisten(mp);
		unlink(p->conf.socket); /* bind made it */
		return -EIO;
	}
	mp->listen_watch = loop_watch_add(mp->listen_fd, EPOLLIN, server_on_accept, mp);
	if (mp->listen_watch == NULL) {
		snprintf(msg, len, "port \"%s\": cannot watch %s", p->conf.name, p->conf.socket);
		memif_unlisten(mp);
		unlink(p->conf.socket);
		return -EIO;
	}
	return 0;
}

/* The back-off is over: connections are taken again (the first waits in
 * the backlog, if any). */
static void memif_listen_resume(struct memif_port *mp)
{
	mp->listen_watch = loop_watch_add(mp->listen_fd, EPOLLIN, server_on_accept, mp);
	if (mp->listen_watch == NULL)
		PORT_LOG(mp->port, ERR, "cannot watch %s again; trying at the next tick",
			 mp->port->conf.socket);
}

void memif_unlisten(struct memif_port *mp)
{
	loop_watch_del(mp->listen_watch);
	mp->listen_watch = NULL;
	if (mp->listen_fd >= 0)
		close(mp->listen_fd);
	mp->listen_fd = -1;
}

/* ---- the client's side -------------------------------------------------------- */

/* podwired's own memory for one queue pair of 2^log2 slots, laid out as
 * l: a sealed memfd holding the s2m ring, the m2s ring, then the buffers
 * of each. */
static int client_memory(struct memif_conn *c, const struct memif_client_layout *l, uint8_t log2,
			 char *why, size_t len)
{
	uint64_t size = l->size;
	struct memif_region *r = &c->region[0];

	r->fd = memif_client_memfd("podwire-memif", size);
	if (r->fd < 0) {
		snprintf(why, len, "cannot make the shared memory: %s", strerror(errno));
		return -1;
	}
	r->base = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, r->fd, 0);
	if (r->base == MAP_FAILED) {
		r->base = NULL;
		snprintf(why, len, "cannot map the shared memory: %s", strerror(errno));
		return -1;
	}
	r->size = r->mapped_len = size;
	c->n_regions = 1;
	/* The pod holds this fd too. */
	if (memif_guard_add(r->base, size, c) != 0) {
		snprintf(why, len, "no room to guard the shared memory; see the log");
		return -1;
	}
	c->n_tx = c->n_rx = l->n_pairs;
	/* The client sends on s2m and receives on m2s. */
	for (uint16_t k = 0; k < l->n_pairs; k++) {
		qring_set(&c->tx[k],
			  (struct memif_ring *)(r->base + memif_client_ring_off(l, true, k)), log2,
			  eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC));
		qring_set(&c->rx[k],
			  (struct memif_ring *)(r->base + memif_client_ring_off(l, false, k)), log2,
			  eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC));
		if (c->tx[k].kick_fd < 0 || c->rx[k].kick_fd < 0) {
			snprintf(why, len, "cannot make eventfds: %s", strerror(errno));
			return -1;
		}
		c->tx[k].buf_offset = memif_client_buf_off(l, true, k);
		c->rx[k].buf_offset = memif_client_buf_off(l, false, k);
		c->tx[k].buf_size = c->rx[k].buf_size = MEMIF_CLIENT_BUFFER;
	}
	c->buf_size = MEMIF_CLIENT_BUFFER;
	memif_client_rings_init(c);
	return 0;
}

/* After HELLO: everything the client has to say, at once; the server
 * answers each but CONNECT with an ACK. */
static int client_setup(struct memif_conn *c, const struct memif_msg_hello *h, char *why,
			size_t len)
{
	const struct port *p = c->mp->port;
	struct memif_client_layout l;
	int s2m_efd[MEMIF_MAX_QUEUE_PAIRS], m2s_efd[MEMIF_MAX_QUEUE_PAIRS];
	uint16_t pairs;
	uint8_t log2;

	if (memif_check_hello(h, MEMIF_CLIENT_LOG2_RING, &log2, why, len) != 0)
		return -1;
	/* The port's queue pairs, as many as the server takes (its HELLO
	 * gives the highest ring index it accepts each way). */
	pairs =
	    RTE_MIN((uint16_t)RTE_MAX(p->conf.queues, (uint8_t)1), (uint16_t)MEMIF_MAX_QUEUE_PAIRS);
	pairs = RTE_MIN(pairs, (uint16_t)(h->max_s2m_ring + 1));
	pairs = RTE_MIN(pairs, (uint16_t)(h->max_m2s_ring + 1));
	l = memif_client_layout_n(log2, MEMIF_CLIENT_BUFFER, pairs);
	if (client_memory(c, &l, log2, why, len) != 0)
		return -1;
	memif_field_str(h->name, sizeof(h->name), c->peer, sizeof(c->peer));
	for (uint16_t k = 0; k < pairs; k++) {
		s2m_efd[k] = c->tx[k].kick_fd;
		m2s_efd[k] = c->rx[k].kick_fd;
	}
	if (memif_client_announce_n(c->fd, MEMIF_ID, p->conf.secret, p->conf.name, c->region[0].fd,
				    &l, log2, s2m_efd, m2s_efd) != 0) {
		snprintf(why, len, "cannot talk to the peer: %s", strerror(errno));
		return -1;
	}
	c->acks_left = 2 + 2u * pairs; /* init, the region, each ring */
	c->cli = MEMIF_CLI_WAIT_ACKS;
	return 0;
}

static int client_msg(struct memif_conn *c, const struct memif_msg *m, int fd, char *why,
		      size_t len)
{
	if (fd >= 0) {
		close(fd);
		snprintf(why, len, "%s message carried an fd", memif_msg_name(m->type));
		return -1;
	}
	if (memif_cli_expects(c->cli, c->acks_left, m->type, why, len) != 0)
		return -1;
	switch (m->type) {
	case MEMIF_MSG_HELLO:
		return client_setup(c, &m->hello, why, len);
	case MEMIF_MSG_ACK:
		if (--c->acks_left == 0)
			c->cli = MEMIF_CLI_WAIT_CONNECTED;
		return 0;
	case MEMIF_MSG_CONNECTED:
		memif_client_rings_post(c);
		c->cli = MEMIF_CLI_CONNECTED;
		return conn_up(c, why, len);
	default: /* DISCONNECT */
		memif_field_str(m->disconnect.reason, sizeof(m->disconnect.reason), why, len);
		if (why[0] == '\0')
			snprintf(why, len, "the peer disconnected");
		return -1;
	}
}

/* Whether the server at the other end of fd is podwired itself. */
static bool peer_is_self(int fd)
{
	struct ucred cred;
	socklen_t len = sizeof(cred);

	return getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &len) == 0 && cred.pid == getpid();
}

void memif_client_try(struct memif_port *mp)
{
	struct sockaddr_un sa = {.sun_family = AF_UNIX};
	const struct port *p = mp->port;
	char why[320];
	int fd = -1, pfd, rc;

	if (mp->cur != NULL || memif_now_ms() < mp->next_try_ms)
		return;
	/* The pod's directory is the pod's: what is at the path is checked,
	 * and connected to through the descriptor checked, so that it cannot
	 * be swapped in between. */
	pfd = open(p->conf.socket, O_PATH | O_NOFOLLOW | O_CLOEXEC);
	if (pfd < 0) {
		snprintf(why, sizeof(why), "cannot connect to %s: %s", p->conf.socket,
			 strerror(errno));
		goto fail;
	}
	if (port_check_client_socket(p, pfd, why, sizeof(why)) != 0) {
		close(pfd);
		goto fail;
	}
	snprintf(sa.sun_path, sizeof(sa.sun_path), "/proc/self/fd/%d", pfd);
	fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	rc = fd >= 0 ? connect(fd, (struct sockaddr *)&sa, sizeof(sa)) : -1;
	snprintf(why, sizeof(why), "cannot connect to %s: %s", p->conf.socket, strerror(errno));
	close(pfd);
	if (rc == 0 && peer_is_self(fd)) {
		snprintf(why, sizeof(why),
			 "%s leads to podwired itself (another port's socket); podwired connects "
			 "only to the pod's",
			 p->conf.socket);
		rc = -1;
	}
	if (rc == 0 && conn_new(mp, fd, false) != NULL) {
		mp->cur->cli = MEMIF_CLI_WAIT_HELLO;
		return;
	}
	if (fd >= 0)
		close(fd);
fail:
	/* Said once, not every try. */
	if (strcmp(why, mp->last_reason) != 0) {
		PORT_LOG(p, INFO, "%s; trying again", why);
		snprintf(mp->last_reason, sizeof(mp->last_reason), "%s", why);
	}
	mp->backoff_ms = mp->backoff_ms == 0
			     ? MEMIF_BACKOFF_MIN_MS
			     : RTE_MIN(2 * mp->backoff_ms, (unsigned int)MEMIF_BACKOFF_MAX_MS);
	mp->next_try_ms = memif_now_ms() + mp->backoff_ms;
}

/* ---- events and housekeeping ------------------------------------------------------ */

static void conn_on_event(void *arg, uint32_t events)
{
	struct memif_conn *c = arg;
	struct memif_port *mp = c->mp;
	char why[160] = "";

	/* A bounded number per event: a chatty peer cannot hold the thread. */
	for (int i = 0; i < 64; i++) {
		struct memif_msg m;
		int fd, rc = memif_msg_recv(c->fd, &m, &fd, why, sizeof(why));

		if (rc == 0)
			break;
		if (rc < 0 || (c->server ? server_msg(c, &m, fd, why, sizeof(why))
					 : client_msg(c, &m, fd, why, sizeof(why))) != 0) {
			/* Tell a peer that broke a rule; one that left hears nothing. */
			memif_conn_close(mp, why, rc > 0);
			return;
		}
	}
	/* Whatever it said last was read above. */
	if (events & (EPOLLHUP | EPOLLERR))
		memif_conn_close(mp, "the peer hung up", false);
}

void memif_conn_check(struct memif_port *mp)
{
	struct memif_conn *c = mp->cur;
	uint64_t now;
	char why[160];

	if (c == NULL) {
		if (mp->port->conf.role == PORT_ROLE_CLIENT)
			memif_client_try(mp);
		else if (mp->listen_watch == NULL && mp->listen_fd >= 0 &&
			 memif_now_ms() >= mp->next_try_ms)
			memif_listen_resume(mp);
		return;
	}
	now = memif_now_ms();
	if (__atomic_load_n(&c->broken, __ATOMIC_ACQUIRE) == 2) {
		snprintf(why, sizeof(why), "the peer broke a ring: %s", c->broken_why);
		memif_conn_close(mp, why, true);
	} else if (c->state != MEMIF_CONN_UP) {
		if (now > c->deadline_ms)
			memif_conn_close(mp, "the handshake did not finish within 5 s", true);
	} else if (c->bad_desc - c->bad_seen >= MEMIF_BAD_DESC_LIMIT) {
		snprintf(why, sizeof(why), "the peer sent %llu bad descriptors within %u ms",
			 (unsigned long long)(c->bad_desc - c->bad_seen),
			 (unsigned int)(now - c->bad_window_ms));
		memif_conn_close(mp, why, true);
	} else if (c->kick_failed) {
		memif_conn_close(mp, "a kick of the peer's eventfd would have blocked", true);
	} else if (now - c->bad_window_ms >= MEMIF_BAD_DESC_WINDOW_MS) {
		/* A few bad frames now and then are dropped and counted; a
		 * peer making MEMIF_BAD_DESC_LIMIT within one window is cut. */
		c->bad_seen = c->bad_desc;
		c->bad_window_ms = now;
	}
}
