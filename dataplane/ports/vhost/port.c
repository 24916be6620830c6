/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * vhost-user ports on librte_vhost directly. Server role: podwired creates
 * the socket and the pod's virtio-user connects. Client role: podwired
 * connects to the pod's socket and librte_vhost reconnects when the pod
 * restarts.
 *
 * Queues: a port offers `queues` pairs (VIRTIO_NET_F_MQ; GET_QUEUE_NUM is
 * answered here, librte_vhost 22.11 would say 128); the guest enables
 * those it uses, and may change that while it runs (a virtio-net
 * driver's MQ_VQ_PAIRS_SET). Rx queue q is the guest's transmit vring
 * 2q + 1, polled only while enabled (dp.rxq_on); on transmit each worker
 * takes one of the pairs whose receive vring 2q is enabled (tx_on).
 *
 * The link follows the device and queue pair 0: up while the device runs
 * with both of pair 0's vrings enabled. Pair 0 is the one a guest cannot
 * give up (MQ_VQ_PAIRS_SET names 1 pair at least): a guest that goes
 * from 2 pairs to 1 is still there and its traffic moves to pair 0,
 * while one whose pair 0 goes is stopping or resetting its device, and
 * frames for it are dropped as link down (counted) rather than left
 * to fill rings nobody reads.
 *
 * The frontend is untrusted. Every message it sends is seen here first
 * (pre_msg_handle, check.c) and refused before librte_vhost maps or uses
 * anything wrong; a port has one frontend at a time; a frontend that
 * comes and goes in a loop is held off and its log lines are few. Its
 * memory is under the SIGBUS guard (ports/guard.h) while mapped: a fault
 * in it, in a worker's burst or on librte_vhost's thread, ends that
 * connection only.
 */
#include <errno.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <rte_mbuf.h>
#include <rte_vhost.h>

#include "core/log.h"
#include "datapath/stats.h"
#include "model/port.h"
#include "offload/offload.h"
#include "ports/guard.h"
#include "ports/vhost/vhost.h"
#include "ports/vhost/vring.h"

PW_LOG_TYPE("vhost");

/* Queue pair q's vrings: the guest's receive ring, which podwired
 * enqueues into, and its transmit ring, which podwired dequeues from. */
#define VHOST_RXQ(q) (2 * (q))
#define VHOST_TXQ(q) (2 * (q) + 1)

/* A frontend whose connections end before it brings the device up is
 * refused new ones for a while, doubling up to the cap (server role;
 * librte_vhost paces the client role's reconnections itself). */
#define VHOST_BACKOFF_MIN_MS 50
#define VHOST_BACKOFF_MAX_MS 2000
/* Connection log lines per port and window; the rest are counted. */
#define VHOST_LOG_BURST	    5
#define VHOST_LOG_WINDOW_MS 10000
/* The rings whose call eventfds podwired forwards: every ring of the
 * pairs a port offers (librte_vhost writes a call eventfd only in a
 * burst on its ring, and podwired bursts on all of them). */
#define VHOST_CALL_RINGS VHOST_MAX_VRINGS

/* Why a connection is broken: the control thread ends it. */
enum vhost_broken {
	VHOST_BROKEN_NO,
	VHOST_BROKEN_SIGBUS, /* its memory lost pages (the SIGBUS guard) */
	VHOST_BROKEN_CALL,   /* its call eventfd would block (call.c) */
	VHOST_BROKEN_RINGS,  /* podwired's rings could not go on (rings_why) */
};

struct vhost_priv {
	/* First: podwired's own rings (rings.c), which the workers find
	 * through dp.priv. Used while rings_on. */
	struct vhost_rings *rings;
	/* The running device is on podwired's rings (else librte_vhost's
	 * data path); and a message is being handled with them stopped. */
	bool rings_on;
	bool rings_paused;
	char rings_why[160];
	volatile int vid; /* the running device the datapath uses, -1 none */
	/* Queue pairs whose receive vring the guest enabled, while vid
	 * runs: workers send on these (vhost_txq_pick). */
	volatile uint16_t tx_on;
	/* The running device's guest negotiated a host offload: what
	 * librte_vhost dequeues may carry requests (vhost_keep_offloads). */
	volatile bool rx_ol;
	struct port *port;
	bool registered;
	/* An enum vhost_broken, set by the SIGBUS guard (any thread) or the
	 * call forwarding thread; the control thread ends the connection. */
	volatile uint32_t broken;
	/* The rest: librte_vhost's thread and the control thread, under
	 * map_lock. */
	int conn_vid;	   /* the frontend's connection, in any state; -1 none */
	bool conn_refused; /* a message of this connection was refused */
	bool conn_ran;	   /* this connection brought the device up */
	uint32_t vring_on; /* its vrings librte_vhost says are ready, by index */
	uint64_t features; /* the running device's negotiated features, 0 none */
	uint64_t connects, disconnects, refused_connections, refused_messages, faults;
	char last_reason[160];
	/* The connection's call eventfds, forwarded by call.c. */
	struct vhost_call *call[VHOST_CALL_RINGS];
	/* Back-off (server role). */
	unsigned int backoff_ms;
	uint64_t quiet_until_ms;
	/* Log rate limit. */
	uint64_t log_window_ms;
	unsigned int log_lines, log_dropped;
};

/* Callbacks run on librte_vhost's thread; they find ports by socket path.
 * The map is the only state they share with the control thread. */
static pthread_mutex_t map_lock = PTHREAD_MUTEX_INITIALIZER;
static struct vhost_priv *map[PW_MAX_PORTS];

static uint64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

static struct vhost_priv *map_find_vid(int vid)
{
	char path[PATH_MAX];

	if (rte_vhost_get_ifname(vid, path, sizeof(path)) != 0)
		return NULL;
	for (unsigned int i = 0; i < PW_MAX_PORTS; i++)
		if (map[i] != NULL && strcmp(map[i]->port->conf.socket, path) == 0)
			return map[i];
	return NULL;
}

/* The vrings of the queue pairs vid's port offers (a port being deleted:
 * one pair's, its connection ends anyway). */
static unsigned int vrings_of(int vid)
{
	struct vhost_priv *v;
	unsigned int n = 2;

	pthread_mutex_lock(&map_lock);
	v = map_find_vid(vid);
	if (v != NULL)
		n = 2U * v->port->dp.n_rxq;
	pthread_mutex_unlock(&map_lock);
	return n;
}

/* A log line about v's frontend, at most VHOST_LOG_BURST per window: a
 * frontend in a loop must not fill the log. map_lock held. */
static void __rte_format_printf(3, 4)
    conn_log(struct vhost_priv *v, uint32_t level, const char *fmt, ...)
{
	uint64_t now = now_ms();
	char line[320];
	va_list ap;

	if (now - v->log_window_ms >= VHOST_LOG_WINDOW_MS) {
		if (v->log_dropped != 0)
			PORT_LOG(
			    v->port, WARNING,
			    "%u more lines about its frontend were not logged in the last %u s",
			    v->log_dropped, VHOST_LOG_WINDOW_MS / 1000);
		v->log_window_ms = now;
		v->log_lines = 0;
		v->log_dropped = 0;
	}
	if (v->log_lines >= VHOST_LOG_BURST) {
		v->log_dropped++;
		return;
	}
	v->log_lines++;
	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	rte_log(level, pw_log_type, "%s: port \"%s\": %s\n", pw_log_name, v->port->conf.name, line);
}

/* ---- what the frontend sends ---------------------------------------------------- */

static void msg_close_fds(struct vhost_fe_msg *m)
{
	for (int i = 0; i < m->fd_num && i < VHOST_MSG_MAX_REGIONS; i++) {
		if (m->fds[i] >= 0)
			close(m->fds[i]);
		m->fds[i] = -1;
	}
	m->fd_num = 0;
}

/* librte_vhost refuses features it did not offer too, but says why only
 * in its own log: this puts the reason where `port show` finds it. */
static bool features_offered(int vid, const struct vhost_fe_msg *m, char *why, size_t len)
{
	uint64_t offered, asked;
	char path[PATH_MAX];

	if (m->request != VHOST_REQ_SET_FEATURES)
		return true;
	memcpy(&asked, (const uint8_t *)m + offsetof(struct vhost_fe_msg, payload.u64),
	       sizeof(asked));
	if (rte_vhost_get_ifname(vid, path, sizeof(path)) != 0 ||
	    rte_vhost_driver_get_features(path, &offered) != 0 || (asked & ~offered) == 0)
		return true;
	snprintf(why, len, "SET_FEATURES asks for %#llx, features podwired does not offer",
		 (unsigned long long)(asked & ~offered));
	return false;
}

/* Forwarding thread, call.c's lock held: the frontend's call eventfd
 * would block; the control thread ends the connection. */
static void vhost_call_failed(void *owner)
{
	struct vhost_priv *v = owner;

	__atomic_store_n(&v->port->dp.link_up, false, __ATOMIC_RELEASE);
	__atomic_store_n(&v->broken, VHOST_BROKEN_CALL, __ATOMIC_RELEASE);
}

/* map_lock held. */
static void calls_del(struct vhost_priv *v)
{
	for (unsigned int q = 0; q < VHOST_CALL_RINGS; q++) {
		vhost_call_del(v->call[q]);
		v->call[q] = NULL;
	}
}

/* SET_VRING_CALL: librte_vhost gets an eventfd of podwired's own in place
 * of the frontend's, which call.c takes and writes (see call.c for why).
 * false with why filled when that cannot be done. */
static bool swap_call_fd(int vid, struct vhost_fe_msg *m, char *why, size_t len)
{
	uint64_t u64;
	unsigned int q;
	struct vhost_priv *v;
	bool ok = true;

	if (m->request != VHOST_REQ_SET_VRING_CALL)
		return true;
	memcpy(&u64, (const uint8_t *)m + offsetof(struct vhost_fe_msg, payload.u64), sizeof(u64));
	q = (unsigned int)(u64 & VHOST_MSG_VRING_IDX_MASK);
	/* check.c refused rings beyond the port's already. */
	if (q >= VHOST_CALL_RINGS)
		return true;
	pthread_mutex_lock(&map_lock);
	v = map_find_vid(vid);
	if (v != NULL && v->conn_vid == vid) {
		vhost_call_del(v->call[q]);
		v->call[q] = NULL;
		if (!(u64 & VHOST_MSG_VRING_NOFD) && m->fd_num == 1) {
			int ours;

			v->call[q] = vhost_call_add(m->fds[0], vhost_call_failed, v, &ours);
			if (v->call[q] != NULL) {
				m->fds[0] = ours; /* theirs is call.c's now */
			} else {
				snprintf(why, len, "podwired could not forward its call eventfd");
				ok = false;
			}
		}
	}
	pthread_mutex_unlock(&map_lock);
	return ok;
}

/* GET_QUEUE_NUM: the pairs the port offers. librte_vhost 22.11 answers
 * 128 whatever the port (rte_vhost_driver_set_max_queue_num came in
 * 23.07); a frontend that asks sets up no more than it is told. */
static enum rte_vhost_msg_result answer_queue_num(struct vhost_fe_msg *m, unsigned int n_vrings)
{
	uint64_t pairs = n_vrings / 2;

	msg_close_fds(m);
	memcpy((uint8_t *)m + offsetof(struct vhost_fe_msg, payload.u64), &pairs, sizeof(pairs));
	m->size = sizeof(pairs);
	return RTE_VHOST_MSG_RESULT_REPLY;
}

/* ---- podwired's own rings (rings.c) -------------------------------------------- */

static const struct port_ops vhost_port_ops;

/* Requests librte_vhost handles without touching what podwired's rings
 * took from it: the rings run on meanwhile. Any other stops them first. */
static bool msg_keeps_rings(uint32_t request)
{
	switch (request) {
	case VHOST_REQ_GET_FEATURES:
	case VHOST_REQ_GET_PROTOCOL_FEATURES:
	case VHOST_REQ_GET_QUEUE_NUM:
	case VHOST_REQ_SEND_RARP:
	case VHOST_REQ_NET_SET_MTU:
	case VHOST_REQ_GET_STATUS:
		return true;
	default:
		return false;
	}
}

/* Whose code moves the rings of the device vid starts: podwired's own
 * when the port asks for them ("rings": "podwire"), unless the guest
 * negotiated what only librte_vhost's carries or its rings fail
 * podwired's checks; else librte_vhost's (the default: at 64-512 B it
 * is still the faster, perf/README.md). The
 * port's link is down and no worker uses its ops (destroy_device waited
 * a grace period, or it never ran): they change here. map_lock held. */
static void rings_choose(struct vhost_priv *v, int vid)
{
	const struct dp_port_ops *ops = &vhost_port_ops.dp;
	uint64_t f = 0;
	char why[160];

	v->rings_on = false;
	v->rings_paused = false;
	if (v->port->conf.own_rings && rte_vhost_get_negotiated_features(vid, &f) == 0) {
		if (!vhost_rings_fit(f)) {
			conn_log(v, RTE_LOG_INFO,
				 "the guest negotiated host offloads: librte_vhost's data path "
				 "carries its frames");
		} else if (vhost_rings_start(v->rings, vid, v->port->dp.n_rxq, why, sizeof(why)) !=
			   0) {
			conn_log(v, RTE_LOG_WARNING,
				 "podwired's rings refused (%s): librte_vhost's data path instead",
				 why);
		} else {
			v->rings_on = true;
			ops = f & (1ULL << VIRTIO_F_RING_PACKED) ? &vhost_rings_packed_ops
								 : &vhost_rings_split_ops;
			/* The rings hand the guest frames without requests:
			 * tx.c segments and checksums first. */
			__atomic_store_n(&v->port->dp.tx_ol, 0, __ATOMIC_RELEASE);
		}
	}
	__atomic_store_n(&v->port->dp.ops, ops, __ATOMIC_RELEASE);
}

/* Before librte_vhost handles a message that may change the rings (their
 * memory, addresses, indexes, call fds): the workers leave them and their
 * indexes go back to librte_vhost. librte_vhost's thread. */
static void rings_pause(int vid, uint32_t request)
{
	struct vhost_priv *v;
	bool wait = false;

	if (msg_keeps_rings(request))
		return;
	pthread_mutex_lock(&map_lock);
	v = map_find_vid(vid);
	if (v != NULL && v->conn_vid == vid && v->rings_on && !v->rings_paused) {
		vhost_rings_pause(v->rings);
		v->rings_paused = true;
		wait = true;
	}
	pthread_mutex_unlock(&map_lock);
	if (!wait)
		return;
	/* The port stays while its connection's message is handled
	 * (unregistering waits for librte_vhost's thread). */
	view_wait();
	pthread_mutex_lock(&map_lock);
	if (v->rings_on && v->rings_paused)
		vhost_rings_stop(v->rings, vid);
	pthread_mutex_unlock(&map_lock);
}

/* After librte_vhost handled it: the rings are taken again as they are
 * now. A device whose rings now fail the checks cannot go back to
 * librte_vhost's path while it runs (the ops change only with the link
 * down): its connection ends. */
static void rings_resume(int vid)
{
	struct vhost_priv *v;
	char why[160];

	pthread_mutex_lock(&map_lock);
	v = map_find_vid(vid);
	if (v != NULL && v->conn_vid == vid && v->rings_paused) {
		v->rings_paused = false;
		if (v->rings_on && v->vid == vid &&
		    vhost_rings_start(v->rings, vid, v->port->dp.n_rxq, why, sizeof(why)) != 0) {
			snprintf(v->rings_why, sizeof(v->rings_why), "%s", why);
			__atomic_store_n(&v->port->dp.link_up, false, __ATOMIC_RELEASE);
			__atomic_store_n(&v->broken, VHOST_BROKEN_RINGS, __ATOMIC_RELEASE);
		}
	}
	pthread_mutex_unlock(&map_lock);
}

static enum rte_vhost_msg_result pre_msg(int vid, void *msg)
{
	struct vhost_fe_msg *m = msg;
	unsigned int n_vrings = vrings_of(vid);
	struct vhost_priv *v;
	char why[140];

	if (vhost_check_msg(m, n_vrings, why, sizeof(why)) == 0 &&
	    features_offered(vid, m, why, sizeof(why)) && swap_call_fd(vid, m, why, sizeof(why))) {
		if (m->request == VHOST_REQ_GET_QUEUE_NUM)
			return answer_queue_num(m, n_vrings);
		rings_pause(vid, m->request);
		/* librte_vhost unmaps the memory it had before it maps the new
		 * table: the guard lets go of it first (post_msg takes the new
		 * one). All rings are locked meanwhile: no worker touches it. */
		if (m->request == VHOST_REQ_SET_MEM_TABLE) {
			pthread_mutex_lock(&map_lock);
			v = map_find_vid(vid);
			if (v != NULL)
				guard_del_owner(v);
			pthread_mutex_unlock(&map_lock);
		}
		return RTE_VHOST_MSG_RESULT_NOT_HANDLED;
	}
	/* librte_vhost closes the fds of a message only when it handles it:
	 * a refused one's are ours to close. Without a reply asked for, the
	 * error ends the connection; a frontend asking for one would be
	 * told and could go on, so it is not asked for. */
	msg_close_fds(m);
	m->flags &= ~VHOST_MSG_NEED_REPLY;
	pthread_mutex_lock(&map_lock);
	v = map_find_vid(vid);
	if (v != NULL) {
		v->refused_messages++;
		v->conn_refused = true;
		snprintf(v->last_reason, sizeof(v->last_reason), "refused: %s", why);
		conn_log(v, RTE_LOG_WARNING, "frontend refused: %s", why);
	}
	pthread_mutex_unlock(&map_lock);
	return RTE_VHOST_MSG_RESULT_ERR;
}

/* Async-signal-safe: the guard calls it on the thread that faulted. */
static void vhost_fault(void *owner)
{
	struct vhost_priv *v = owner;

	__atomic_store_n(&v->port->dp.link_up, false, __ATOMIC_RELEASE);
	__atomic_store_n(&v->broken, VHOST_BROKEN_SIGBUS, __ATOMIC_RELEASE);
}

/* The memory librte_vhost has just mapped goes under the guard. */
static enum rte_vhost_msg_result post_msg(int vid, void *msg)
{
	const struct vhost_fe_msg *m = msg;
	enum rte_vhost_msg_result rc = RTE_VHOST_MSG_RESULT_NOT_HANDLED;
	struct rte_vhost_memory *mem = NULL;
	struct vhost_priv *v;

	if (m->request != VHOST_REQ_SET_MEM_TABLE) {
		rings_resume(vid);
		return rc;
	}
	pthread_mutex_lock(&map_lock);
	v = map_find_vid(vid);
	if (v != NULL && rte_vhost_get_mem_table(vid, &mem) == 0) {
		guard_del_owner(v);
		for (uint32_t i = 0; i < mem->nregions; i++) {
			if (guard_add(mem->regions[i].mmap_addr, mem->regions[i].mmap_size,
				      vhost_fault, v) != 0) {
				/* Unguarded memory is not used: the connection ends. */
				guard_del_owner(v);
				v->conn_refused = true;
				snprintf(v->last_reason, sizeof(v->last_reason),
					 "no room to guard its memory (SIGBUS guard full)");
				conn_log(v, RTE_LOG_ERR, "%s", v->last_reason);
				((struct vhost_fe_msg *)msg)->flags &= ~VHOST_MSG_NEED_REPLY;
				rc = RTE_VHOST_MSG_RESULT_ERR;
				break;
			}
		}
	}
	pthread_mutex_unlock(&map_lock);
	free(mem);
	if (rc != RTE_VHOST_MSG_RESULT_ERR)
		rings_resume(vid);
	return rc;
}

static const struct rte_vhost_user_extern_ops extern_ops = {
    .pre_msg_handle = pre_msg,
    .post_msg_handle = post_msg,
};

/* ---- librte_vhost's callbacks ------------------------------------------------- */

static int new_connection(int vid)
{
	struct vhost_priv *v;
	uint64_t now = now_ms();
	int rc = -1;

	pthread_mutex_lock(&map_lock);
	v = map_find_vid(vid);
	if (v == NULL)
		goto out;
	if (v->conn_vid >= 0) {
		/* One frontend per port: a second one would take the port's
		 * traffic from the first. */
		v->refused_connections++;
		conn_log(v, RTE_LOG_WARNING,
			 "a second frontend connected while one is there: refused");
		goto out;
	}
	if (v->port->conf.role == PORT_ROLE_CLIENT) {
		char why[sizeof(v->last_reason)];

		/* librte_vhost connected by path on its own; what is at the
		 * path now is what it reached, but for a swap in between. A
		 * path already gone is let through: a pod may unlink its
		 * socket once it accepted (seen in test_vhost_hostile, whose
		 * tool does), and nothing is there to lead elsewhere. */
		int bad = port_check_client_socket(v->port, -1, why, sizeof(why));

		if (bad != 0 && bad != -ENOENT) {
			v->refused_connections++;
			snprintf(v->last_reason, sizeof(v->last_reason), "%s", why);
			conn_log(v, RTE_LOG_WARNING, "%s: refused", why);
			goto out;
		}
	}
	if (now < v->quiet_until_ms) {
		v->refused_connections++;
		conn_log(v, RTE_LOG_WARNING,
			 "frontend reconnected %u ms after a connection that never came up: "
			 "refused for %u ms",
			 (unsigned int)(now - (v->quiet_until_ms - v->backoff_ms)), v->backoff_ms);
		goto out;
	}
	if (rte_vhost_extern_callback_register(vid, &extern_ops, NULL) != 0) {
		conn_log(v, RTE_LOG_ERR, "cannot watch the frontend's messages: refused");
		goto out;
	}
	calls_del(v); /* none: the last connection's went with it */
	v->conn_vid = vid;
	v->vring_on = 0;
	v->conn_refused = false;
	v->conn_ran = false;
	v->connects++;
	conn_log(v, RTE_LOG_INFO, "frontend connected (vid %d)", vid);
	rc = 0;
out:
	pthread_mutex_unlock(&map_lock);
	return rc;
}

/* The connection is gone (librte_vhost unmaps its memory next). map_lock
 * held. */
static void conn_gone(struct vhost_priv *v)
{
	v->conn_vid = -1;
	v->vring_on = 0;
	v->disconnects++;
	if (!v->conn_refused)
		snprintf(v->last_reason, sizeof(v->last_reason), "%s",
			 v->conn_ran ? "the frontend left"
				     : "the frontend left before the device came up");
	if (v->conn_ran) {
		v->backoff_ms = 0;
		return;
	}
	v->backoff_ms = v->backoff_ms == 0
			    ? VHOST_BACKOFF_MIN_MS
			    : RTE_MIN(v->backoff_ms * 2, (unsigned int)VHOST_BACKOFF_MAX_MS);
	if (v->port->conf.role == PORT_ROLE_SERVER)
		v->quiet_until_ms = now_ms() + v->backoff_ms;
}

static void destroy_connection(int vid)
{
	struct vhost_priv *v;

	pthread_mutex_lock(&map_lock);
	v = map_find_vid(vid);
	if (v != NULL && v->conn_vid == vid) {
		/* librte_vhost unmaps the memory next. */
		guard_del_owner(v);
		calls_del(v);
		conn_gone(v);
		conn_log(v, RTE_LOG_INFO, "frontend gone: %s", v->last_reason);
	}
	pthread_mutex_unlock(&map_lock);
}

/* What workers see of v's device: the rx queues they poll (bit q: the
 * guest's transmit vring 2q + 1 is ready), the pairs they send on (its
 * receive vring 2q), and the link (see the top of this file). Queue 0
 * stays marked even with no device: the link, which needs its vring,
 * decides whether it is polled, and a port of one pair is polled from
 * the moment its link is up, with no new view to wait for. A worker
 * may still act on the old values for a burst: librte_vhost checks a
 * ring's state under its lock and moves nothing on a disabled one.
 * map_lock held. true when the queues changed. */
static bool queues_publish(struct vhost_priv *v)
{
	struct port *p = v->port;
	uint16_t rx = 1, tx = 0, old_rx = p->dp.rxq_on, old_tx = v->tx_on;
	bool up;

	if (v->vid >= 0)
		for (uint16_t q = 0; q < p->dp.n_rxq; q++) {
			if (v->vring_on & (1U << VHOST_RXQ(q)))
				tx |= (uint16_t)(1U << q);
			if (q != 0 && (v->vring_on & (1U << VHOST_TXQ(q))))
				rx |= (uint16_t)(1U << q);
		}
	up = (tx & 1) != 0 && (v->vring_on & (1U << VHOST_TXQ(0))) != 0 &&
	     __atomic_load_n(&v->broken, __ATOMIC_ACQUIRE) == 0;
	if (!up)
		__atomic_store_n(&p->dp.link_up, false, __ATOMIC_RELEASE);
	__atomic_store_n(&v->tx_on, tx, __ATOMIC_RELEASE);
	__atomic_store_n(&p->dp.rxq_on, rx, __ATOMIC_RELEASE);
	if (up)
		__atomic_store_n(&p->dp.link_up, true, __ATOMIC_RELEASE);
	return rx != old_rx || tx != old_tx;
}

/* What the guest of vid (-1: none) negotiated decides what podwired
 * hands it (dp.tx_ol: librte_vhost's enqueue writes any request into the
 * guest's header, negotiated or not, so tx.c must know exactly) and
 * whether its frames may carry requests. A guest cannot change its
 * features while its device runs (librte_vhost refuses), so this is
 * done when it starts and stops. The virtio spec has GUEST_TSO4/6
 * depend on GUEST_CSUM (a segment's checksum is partial): a frontend
 * that took one without the other gets no segmentation. map_lock held. */
static void offloads_publish(struct vhost_priv *v, int vid)
{
	uint64_t f = 0;
	uint8_t tx_ol = 0;

	if (vid >= 0 && !v->port->conf.no_offloads &&
	    rte_vhost_get_negotiated_features(vid, &f) != 0)
		f = 0;
	if (f & (1ULL << VIRTIO_NET_F_GUEST_CSUM)) {
		tx_ol |= OFFLOAD_CSUM;
		if (f & (1ULL << VIRTIO_NET_F_GUEST_TSO4))
			tx_ol |= OFFLOAD_TSO4;
		if (f & (1ULL << VIRTIO_NET_F_GUEST_TSO6))
			tx_ol |= OFFLOAD_TSO6;
	}
	v->features = f;
	__atomic_store_n(&v->port->dp.tx_ol, tx_ol, __ATOMIC_RELEASE);
	__atomic_store_n(&v->rx_ol, (f & VHOST_HOST_OFFLOADS) != 0, __ATOMIC_RELEASE);
}

static int new_device(int vid)
{
	struct vhost_priv *v;

	pthread_mutex_lock(&map_lock);
	v = map_find_vid(vid);
	if (v != NULL && v->conn_vid == vid && !v->broken) {
		unsigned int n = RTE_MIN(rte_vhost_get_vring_num(vid), 2U * v->port->dp.n_rxq);

		/* We poll: the guest need not kick us. Rings are set up
		 * before the device runs (virtio-user, QEMU); one set up
		 * later keeps the guest's kicks, which cost it only. */
		for (unsigned int r = 0; r < n; r++)
			rte_vhost_enable_guest_notification(vid, (uint16_t)r, 0);
		offloads_publish(v, vid);
		rings_choose(v, vid);
		v->vid = vid;
		v->conn_ran = true;
		v->last_reason[0] = '\0';
		queues_publish(v);
		PORT_LOG(v->port, INFO,
			 "peer connected (vid %d), link %s, queue pairs enabled: rx %#x tx %#x of "
			 "%u, rings: %s",
			 vid, v->port->dp.link_up ? "up" : "down", v->port->dp.rxq_on, v->tx_on,
			 v->port->dp.n_rxq, v->rings_on ? API_RINGS_PODWIRE : API_RINGS_LIBRTE);
	} else {
		v = NULL;
	}
	pthread_mutex_unlock(&map_lock);
	return v != NULL ? 0 : -1;
}

static void destroy_device(int vid)
{
	struct vhost_priv *v;

	pthread_mutex_lock(&map_lock);
	v = map_find_vid(vid);
	if (v != NULL && v->vid == vid) {
		v->vid = -1;
		queues_publish(v);
		offloads_publish(v, -1);
		PORT_LOG(v->port, INFO, "peer gone, link down");
	} else {
		v = NULL;
	}
	pthread_mutex_unlock(&map_lock);
	/* librte_vhost frees the rings when we return; the vhost contract is
	 * that no burst on this vid is in flight by then. It does not hold the
	 * queue locks here (see its GET_VRING_BASE note), so waiting is safe. */
	if (v != NULL) {
		view_wait();
		/* No worker is in the rings: their indexes go back to
		 * librte_vhost, which reports them next (GET_VRING_BASE). */
		pthread_mutex_lock(&map_lock);
		if (v->rings_on && !v->rings_paused)
			vhost_rings_stop(v->rings, vid);
		v->rings_on = false;
		v->rings_paused = false;
		pthread_mutex_unlock(&map_lock);
		/* librte_vhost unmaps next (unregistering the driver does so
		 * without a destroy_connection). */
		guard_del_owner(v);
	}
}

/* A vring became ready (set up and enabled) or stopped being: at the
 * handshake, before new_device, and whenever the guest changes its
 * queues. librte_vhost holds every ring's lock here. */
static int vring_state_changed(int vid, uint16_t queue, int enable)
{
	struct vhost_priv *v;

	pthread_mutex_lock(&map_lock);
	v = map_find_vid(vid);
	if (v != NULL && v->conn_vid == vid && queue < 2U * v->port->dp.n_rxq) {
		if (enable)
			v->vring_on |= 1U << queue;
		else
			v->vring_on &= ~(1U << queue);
		if (v->vid == vid && queues_publish(v))
			conn_log(v, RTE_LOG_INFO,
				 "queue pairs enabled: rx %#x tx %#x of %u, link %s",
				 v->port->dp.rxq_on, v->tx_on, v->port->dp.n_rxq,
				 v->port->dp.link_up ? "up" : "down");
	}
	pthread_mutex_unlock(&map_lock);
	return 0;
}

static const struct rte_vhost_device_ops vhost_ops = {
    .new_device = new_device,
    .destroy_device = destroy_device,
    .vring_state_changed = vring_state_changed,
    .new_connection = new_connection,
    .destroy_connection = destroy_connection,
};

/* ---- the kind ------------------------------------------------------------------- */

/* What podwired does not offer: offloads offload/ does not carry (UFO is
 * IP fragmentation, not segmentation; ECN on super-frames; the legacy
 * catch-all GSO), every offload on a port with "offloads": false, and
 * none of the protocol features that hand podwired more fds or memory
 * (dirty log, inflight, back-end channel, postcopy, host notifiers,
 * crypto, config space). */
static const uint64_t vhost_no_features =
    1ULL << VIRTIO_NET_F_GSO | 1ULL << VIRTIO_NET_F_HOST_ECN | 1ULL << VIRTIO_NET_F_HOST_UFO |
    1ULL << VIRTIO_NET_F_GUEST_ECN | 1ULL << VIRTIO_NET_F_GUEST_UFO;
static const uint64_t vhost_offload_features = VHOST_HOST_OFFLOADS | VHOST_GUEST_OFFLOADS;
static const uint64_t vhost_no_protocol_features =
    1ULL << VHOST_USER_PROTOCOL_F_LOG_SHMFD | 1ULL << VHOST_USER_PROTOCOL_F_SLAVE_REQ |
    1ULL << VHOST_USER_PROTOCOL_F_CRYPTO_SESSION | 1ULL << VHOST_USER_PROTOCOL_F_PAGEFAULT |
    1ULL << VHOST_USER_PROTOCOL_F_CONFIG | 1ULL << VHOST_USER_PROTOCOL_F_SLAVE_SEND_FD |
    1ULL << VHOST_USER_PROTOCOL_F_HOST_NOTIFIER | 1ULL << VHOST_USER_PROTOCOL_F_INFLIGHT_SHMFD;

/* Registers and starts p's socket with librte_vhost. */
static int vhost_start(struct port *p, struct vhost_priv *v, char *msg, size_t len)
{
	/* Without RTE_VHOST_USER_NET_COMPLIANT_OL_FLAGS: librte_vhost's dequeue
	 * then turns the guest's header into the TX requests offload/ reads
	 * (its "legacy" flags), not into RX checksum status. */
	uint64_t flags = p->conf.role == PORT_ROLE_CLIENT ? RTE_VHOST_USER_CLIENT : 0, proto;
	uint64_t no = vhost_no_features | (p->conf.no_offloads ? vhost_offload_features : 0);

	if (rte_vhost_driver_register(p->conf.socket, flags) != 0) {
		snprintf(msg, len,
			 "port \"%s\": cannot register vhost-user socket %s; check "
			 "the directory and that no other port uses it",
			 p->conf.name, p->conf.socket);
		return -EIO;
	}
	v->registered = true;
	if (rte_vhost_driver_disable_features(p->conf.socket, no) != 0 ||
	    rte_vhost_driver_get_protocol_features(p->conf.socket, &proto) != 0 ||
	    rte_vhost_driver_set_protocol_features(p->conf.socket,
						   proto & ~vhost_no_protocol_features) != 0 ||
	    rte_vhost_driver_callback_register(p->conf.socket, &vhost_ops) != 0 ||
	    rte_vhost_driver_start(p->conf.socket) != 0) {
		snprintf(msg, len,
			 "port \"%s\": cannot start vhost-user on %s (%s); check that "
			 "the directory is writable",
			 p->conf.name, p->conf.socket,
			 p->conf.role == PORT_ROLE_SERVER ? "bind failed" : "setup failed");
		return -EIO;
	}
	return 0;
}

/* Ends the connection and the socket with it, and starts again: what
 * librte_vhost offers to end one connection from outside. */
static void vhost_restart(struct port *p, struct vhost_priv *v)
{
	char msg[256];

	if (v->registered && rte_vhost_driver_unregister(p->conf.socket) != 0)
		PORT_LOG(p, WARNING, "unregistering %s failed", p->conf.socket);
	v->registered = false;
	pthread_mutex_lock(&map_lock);
	guard_del_owner(v);
	calls_del(v);
	if (v->conn_vid >= 0)
		conn_gone(v);
	pthread_mutex_unlock(&map_lock);
	__atomic_store_n(&v->broken, 0, __ATOMIC_RELEASE);
	if (vhost_start(p, v, msg, sizeof(msg)) != 0)
		PORT_LOG(p, ERR, "after ending its frontend's connection: %s", msg);
}

/* Control thread, every housekeeping tick. */
static void vhost_poll_link(struct port *p)
{
	struct vhost_priv *v = p->dp.priv;
	uint32_t broken = __atomic_load_n(&v->broken, __ATOMIC_ACQUIRE);
	const char *ring_why = vhost_rings_broken(v->rings);

	if (broken == VHOST_BROKEN_NO && ring_why != NULL) {
		/* A worker found a ring no valid driver makes. */
		pthread_mutex_lock(&map_lock);
		snprintf(v->rings_why, sizeof(v->rings_why), "%s", ring_why);
		pthread_mutex_unlock(&map_lock);
		broken = VHOST_BROKEN_RINGS;
	}
	if (broken == VHOST_BROKEN_NO)
		return;
	pthread_mutex_lock(&map_lock);
	v->conn_refused = true; /* conn_gone keeps the reason below */
	pthread_mutex_unlock(&map_lock);
	vhost_restart(p, v);
	vhost_rings_reset(v->rings);
	/* Said once the socket is back: a frontend told to try again can. */
	pthread_mutex_lock(&map_lock);
	if (broken == VHOST_BROKEN_SIGBUS)
		v->faults++;
	if (broken == VHOST_BROKEN_RINGS)
		snprintf(v->last_reason, sizeof(v->last_reason),
			 "its vring: %.120s: connection ended", v->rings_why);
	else
		snprintf(v->last_reason, sizeof(v->last_reason), "%s",
			 broken == VHOST_BROKEN_SIGBUS
			     ? "its memory lost pages under podwired (SIGBUS): connection ended"
			     : "its vring call eventfd would block podwired (made blocking and "
			       "full): connection ended");
	PORT_LOG(p, WARNING, "frontend: %s", v->last_reason);
	pthread_mutex_unlock(&map_lock);
}

static int vhost_create(struct port *p, char *msg, size_t len)
{
	struct vhost_priv *v;
	int rc;

	if (guard_init() != 0) {
		snprintf(msg, len, "port \"%s\": cannot install the SIGBUS guard", p->conf.name);
		return -EIO;
	}
	if (vhost_call_start() != 0) {
		snprintf(msg, len,
			 "port \"%s\": cannot start the thread that signals guests; see the log",
			 p->conf.name);
		return -EIO;
	}
	if (p->conf.role == PORT_ROLE_SERVER) {
		rc = port_clear_stale_socket(p, msg, len);
		if (rc != 0)
			return rc;
	} else {
		char why[320];

		/* A pod could plant a link to another port's socket in its
		 * directory (two networks joined): checked now, and again at
		 * each connection librte_vhost makes by path. */
		rc = port_check_client_socket(p, -1, why, sizeof(why));
		if (rc != 0 && rc != -ENOENT) {
			snprintf(msg, len, "port \"%s\": %s", p->conf.name, why);
			return rc;
		}
	}
	/* Queue 0, polled once the link is up; the others once the guest
	 * enables them (queues_publish). */
	p->dp.rxq_on = 1;
	v = calloc(1, sizeof(*v));
	if (v == NULL) {
		snprintf(msg, len, "port \"%s\": out of memory", p->conf.name);
		return -ENOMEM;
	}
	v->vid = -1;
	v->conn_vid = -1;
	v->port = p;
	v->rings = vhost_rings_new(&v->tx_on);
	if (v->rings == NULL) {
		free(v);
		snprintf(msg, len, "port \"%s\": out of memory", p->conf.name);
		return -ENOMEM;
	}
	p->dp.priv = v;
	pthread_mutex_lock(&map_lock);
	map[p->dp.idx] = v;
	pthread_mutex_unlock(&map_lock);
	rc = vhost_start(p, v, msg, len);
	if (rc != 0)
		p->ops->destroy(p);
	return rc;
}

static void vhost_destroy(struct port *p)
{
	struct vhost_priv *v = p->dp.priv;

	if (v == NULL)
		return;
	/* Unregistering disconnects the peer (destroy_device runs here) and,
	 * in server role, removes the socket file. */
	if (v->registered && rte_vhost_driver_unregister(p->conf.socket) != 0)
		PORT_LOG(p, WARNING, "unregistering %s failed", p->conf.socket);
	pthread_mutex_lock(&map_lock);
	map[p->dp.idx] = NULL;
	calls_del(v);
	pthread_mutex_unlock(&map_lock);
	guard_del_owner(v);
	if (p->conf.role == PORT_ROLE_SERVER)
		unlink(p->conf.socket);
	vhost_rings_free(v->rings);
	free(v);
	p->dp.priv = NULL;
}

/* The offload features, as QEMU's virtio-net-pci properties name them. */
static const struct {
	unsigned int bit;
	const char *name;
} offload_names[] = {
    {VIRTIO_NET_F_CSUM, "csum"},
    {VIRTIO_NET_F_GUEST_CSUM, "guest_csum"},
    {VIRTIO_NET_F_HOST_TSO4, "host_tso4"},
    {VIRTIO_NET_F_HOST_TSO6, "host_tso6"},
    {VIRTIO_NET_F_GUEST_TSO4, "guest_tso4"},
    {VIRTIO_NET_F_GUEST_TSO6, "guest_tso6"},
};

static void vhost_to_json(const struct port *p, cJSON *obj)
{
	struct vhost_priv *v = p->dp.priv;
	cJSON *o = cJSON_AddObjectToObject(obj, API_R_VHOST);

	pthread_mutex_lock(&map_lock);
	cJSON_AddStringToObject(o, API_R_STATE,
				v->vid >= 0			   ? "connected"
				: v->conn_vid >= 0		   ? "handshake"
				: p->conf.role == PORT_ROLE_SERVER ? "listening"
								   : "connecting");
	cJSON_AddNumberToObject(o, API_R_CONNECTS, (double)v->connects);
	cJSON_AddNumberToObject(o, API_R_DISCONNECTS, (double)v->disconnects);
	cJSON_AddNumberToObject(o, API_R_REFUSED_CONNS, (double)v->refused_connections);
	cJSON_AddNumberToObject(o, API_R_REFUSED_MSGS, (double)v->refused_messages);
	cJSON_AddNumberToObject(o, API_R_FAULTS, (double)v->faults);
	cJSON_AddStringToObject(o, API_R_LAST_DISCONNECT, v->last_reason);
	if (v->vid >= 0) {
		cJSON *ol;

		cJSON_AddStringToObject(o, API_R_RINGS_ACTIVE,
					v->rings_on ? API_RINGS_PODWIRE : API_RINGS_LIBRTE);
		if (v->rings_on) {
			struct vring_stats st;

			vhost_rings_stats(v->rings, &st);
			cJSON_AddNumberToObject(o, API_R_TOO_LONG, (double)st.too_long);
		}
		ol = cJSON_AddArrayToObject(o, API_R_NEGOTIATED);

		for (unsigned int i = 0; i < RTE_DIM(offload_names); i++)
			if (v->features & (1ULL << offload_names[i].bit))
				cJSON_AddItemToArray(ol, cJSON_CreateString(offload_names[i].name));
	}
	pthread_mutex_unlock(&map_lock);
}

static uint16_t vhost_rx(struct dp_port *p, uint16_t q, struct rte_mbuf **pkts, uint16_t n,
			 struct port_counters *ctr)
{
	const struct vhost_priv *v = p->priv;
	int vid = v->vid;
	uint16_t got;

	RTE_SET_USED(ctr);
	/* A view a moment old may still name a queue the guest disabled. */
	if (unlikely(vid < 0 || v->broken || !(p->rxq_on & (1U << q))))
		return 0;
	got = rte_vhost_dequeue_burst(vid, VHOST_TXQ(q), pw_mbuf_pool, pkts, n);
	if (v->rx_ol)
		vhost_keep_offloads(pkts, got);
	else
		vhost_clear_offloads(pkts, got);
	return got;
}

static uint16_t vhost_tx(struct dp_port *p, uint16_t w, struct rte_mbuf **pkts, uint16_t n)
{
	const struct vhost_priv *v = p->priv;
	int vid = v->vid;
	uint16_t on = v->tx_on, q, sent;

	if (unlikely(vid < 0 || v->broken || on == 0))
		return 0;
	/* librte_vhost locks the ring: workers may share a pair. */
	q = vhost_txq_pick(on, w);
	sent = rte_vhost_enqueue_burst(vid, VHOST_RXQ(q), pkts, n);
	stats_queue(w, p->idx, q)->tx_packets += sent;
	/* The guest has its copy. */
	rte_pktmbuf_free_bulk(pkts, sent);
	return sent;
}

static const struct port_ops vhost_port_ops = {
    .kind = API_PORT_VHOST,
    .summary = "pod interface over vhost-user (librte_vhost); the pod runs virtio-user",
    .fields = PORT_FIELD_SOCKET | PORT_FIELD_QUEUES | PORT_FIELD_OL | PORT_FIELD_RINGS,
    .tx_locks_itself = true,
    .create = vhost_create,
    .destroy = vhost_destroy,
    .poll_link = vhost_poll_link,
    .to_json = vhost_to_json,
    .dp = {.rx_burst = vhost_rx, .tx_burst = vhost_tx},
};

PORT_KIND(vhost_port_ops)
