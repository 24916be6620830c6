/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * podwired's memif port, shared by the files of ports/memif/: port.c (the
 * kind), ctl.c (the control channel, on the control thread), ring.c (the
 * datapath, on workers), kick.c (eventfd kicks, on a thread of their
 * own) and limits.c (podwired's limits on a peer). The protocol itself is
 * libpwmemif's (memif/memif.h). The pod on the other side is untrusted:
 * everything read from its messages or its memory is checked before use.
 *
 * Roles: podwired as server ("master") takes the pod's memory and rings;
 * it receives on s2m rings and sends on m2s rings. As client ("slave") it
 * owns the memory: it receives on m2s and sends on s2m.
 */
#ifndef PODWIRE_PORTS_MEMIF_PORT_H
#define PODWIRE_PORTS_MEMIF_PORT_H

#include <stdbool.h>
#include <stdint.h>

#include <rte_spinlock.h>

#include "datapath/view.h"
#include "memif/memif.h"
#include "model/port.h"
#include "ports/memif/config.h"

/* podwired as client: its rings and buffers. */
#define MEMIF_CLIENT_LOG2_RING 10
#define MEMIF_CLIENT_BUFFER    2048
/* Handshake deadline, and client reconnection backoff bounds (a socket
 * not there yet). */
#define MEMIF_HANDSHAKE_MS   5000
#define MEMIF_BACKOFF_MIN_MS 100
#define MEMIF_BACKOFF_MAX_MS 2000
/* A connection that ends before it is up, or within MEMIF_FLAP_MS of it,
 * is a flap; after n in a row the port waits memif_flap_backoff_ms(n)
 * (at most memif_cfg.backoff_max_ms) before it takes (server) or makes
 * (client) the next connection. From
 * the MEMIF_FLAP_QUIET-th in a row on, lines about the port's connections
 * are logged once per MEMIF_LOG_INTERVAL_MS, as are second peers turned
 * away. */
#define MEMIF_FLAP_MS	      500
#define MEMIF_FLAP_QUIET      3
#define MEMIF_LOG_INTERVAL_MS 10000
/* Bad descriptors within a window that get a peer disconnected. */
#define MEMIF_BAD_DESC_LIMIT	 64
#define MEMIF_BAD_DESC_WINDOW_MS 1000

struct memif_region {
	uint8_t *base;	     /* NULL: not mapped */
	uint64_t size;	     /* as the peer claimed: what descriptors are checked against */
	uint64_t mapped_len; /* size rounded up to the file's page size (hugetlbfs) */
	int fd;
};

/* One ring, as podwired uses it. Datapath fields are written only by the
 * worker that uses the ring (rx: the port's worker; tx: under the port's
 * tx lock). */
struct memif_qring {
	struct memif_ring *ring; /* in shared memory */
	uint16_t size, mask;
	uint8_t log2;
	/* rx: next slot to read; tx: next slot to write. */
	uint16_t last;
	/* rx, server: slots read but not yet given back (tail). client rx:
	 * the head posted so far. */
	uint16_t released;
	uint16_t posted;
	/* Server: the peer's head as last read and checked, read again only
	 * when what it promised runs short of a burst. The head's line is
	 * the one the pod writes most: a deep ring is drained without a miss
	 * on it per burst. (A client reads the tail every time: a server
	 * that moves it wrongly is seen at once.) */
	uint16_t seen;
	/* client: this ring's buffers, private (the peer's writes to a
	 * descriptor's region or offset are never believed). */
	uint32_t buf_offset;
	uint16_t buf_size;
	int kick_fd;		       /* the eventfd of this ring; -1 when none */
	volatile uint8_t kick_pending; /* set by a worker, cleared by the kicker */
	/* tx, when the peer gave fewer rings than podwired has workers
	 * (memif_conn.tx_shared): the workers that share it take turns. */
	rte_spinlock_t lock;
} __rte_cache_aligned;

enum memif_conn_state {
	MEMIF_CONN_HANDSHAKE,
	MEMIF_CONN_UP,
};

struct memif_port;

/* One connection to a peer: made by ctl.c, read by workers while the
 * port's link is up, torn down only after the link is down and a grace
 * period has passed. */
struct memif_conn {
	/* Datapath. */
	bool server;
	/* Fewer tx rings than workers: worker w sends on ring w % n_tx, and
	 * those sharing one take its lock. Otherwise every worker has a
	 * ring of its own and takes no lock. */
	bool tx_shared;
	uint16_t n_rx, n_tx;
	uint16_t buf_size; /* largest segment podwired accepts from the peer */
	uint32_t max_frame;
	uint16_t n_regions;
	struct memif_region region[MEMIF_MAX_REGIONS];
	struct memif_qring rx[MEMIF_MAX_QUEUE_PAIRS];
	struct memif_qring tx[MEMIF_MAX_QUEUE_PAIRS];
	/* Written by the worker, read by the control thread. */
	volatile uint64_t bad_desc;
	/* A ring is in a state no valid peer makes, or the peer's memory
	 * failed under us: 0 no, 1 being recorded, 2 recorded (broken_why). */
	volatile uint32_t broken;
	volatile uint32_t kick_failed;
	char broken_why[96];

	/* Control. */
	struct memif_port *mp;
	enum memif_conn_state state;
	enum memif_srv_state srv;
	enum memif_cli_state cli;
	unsigned int acks_left;
	struct memif_offer offer;
	int fd; /* the control socket */
	struct loop_watch *watch;
	uint64_t deadline_ms;
	uint64_t up_ms;		/* when it came up */
	uint64_t bad_seen;	/* bad_desc at the start of this window */
	uint64_t bad_window_ms; /* when the window started */
	char peer[MEMIF_NAME_LEN + 1];
	struct memif_conn *kick_next; /* kick.c's list */
} __rte_cache_aligned;

/* A memif port's private state (port->dp.priv). */
struct memif_port {
	struct port *port;
	/* The connection in any state (handshake or up), control thread. */
	struct memif_conn *cur;
	/* The connection workers use; set before the link goes up, cleared
	 * after it went down and a grace period passed. */
	struct memif_conn *volatile conn;
	/* Server: the listening socket. */
	int listen_fd;
	struct loop_watch *listen_watch;
	/* Client: when to try again. Server: when to take connections
	 * again, while backing off (listen_watch is NULL then). */
	uint64_t next_try_ms;
	unsigned int backoff_ms;
	unsigned int flaps; /* in a row (MEMIF_FLAP_MS) */
	/* For port show. */
	uint64_t connects, disconnects;
	uint64_t refused; /* second peers turned away */
	char last_reason[320];
	/* Rate limits of log lines (MEMIF_LOG_INTERVAL_MS). */
	struct memif_log_gate {
		uint64_t next_ms;
		uint64_t left_out;
	} flap_log, refuse_log;
};

uint64_t memif_now_ms(void);

/* limits.c. Whether podwired may map bytes more (region index, rounded as
 * mapped): this peer has peer_mapped of at most peer_max, all peers
 * all_mapped of at most all_max. -ENOMEM with why naming the limit and
 * its option. */
int memif_check_memory(uint16_t index, uint64_t bytes, uint64_t peer_mapped, uint64_t peer_max,
		       uint64_t all_mapped, uint64_t all_max, char *why, size_t len);
/* How long a port waits after the n-th flap in a row (n >= 1):
 * min_ms doubled for each flap after the first, at most max_ms. */
unsigned int memif_flap_backoff_ms(unsigned int n, unsigned int min_ms, unsigned int max_ms);

/* ctl.c, control thread. */
int memif_listen(struct memif_port *mp, char *msg, size_t len);
void memif_unlisten(struct memif_port *mp);
void memif_client_try(struct memif_port *mp);
/* Ends mp's connection (if any): link down, grace period, then every
 * mapping and fd goes. send: tell the peer why. */
void memif_conn_close(struct memif_port *mp, const char *why, bool send);
/* Housekeeping: handshake deadlines, peers that misbehave, reconnects. */
void memif_conn_check(struct memif_port *mp);

/* Marks c broken with why (a constant string): the datapath stops using
 * it at once, the control thread ends it. Async-signal-safe. */
void memif_conn_mark_broken(struct memif_conn *c, const char *why);

/* guard.c: a SIGBUS inside a registered mapping (the pod took pages away
 * under it) replaces the mapping with zeroed memory and marks c broken
 * instead of ending podwired. Control thread. */
int memif_guard_init(void);
int memif_guard_add(void *base, size_t len, struct memif_conn *c);
void memif_guard_del(void *base);

/* ring.c, workers: the port's burst functions (struct dp_port_ops). */
uint16_t memif_rx_frames(struct dp_port *p, uint16_t q, struct dp_frame *f, uint16_t n,
			 struct port_counters *ctr);
void memif_rx_release(struct dp_port *p, uint16_t q);
uint16_t memif_tx_frames(struct dp_port *p, uint16_t w, struct dp_frame *const *f,
			 const uint8_t *strip, uint16_t n);
uint16_t memif_tx_burst(struct dp_port *p, uint16_t w, struct rte_mbuf **pkts, uint16_t n);
/* Client: lays out and clears its rings before the handshake, and posts
 * the m2s buffers once connected. */
void memif_client_rings_init(struct memif_conn *c);
void memif_client_rings_post(struct memif_conn *c);
/* Server: resets the rings the peer gave before saying CONNECTED. */
void memif_server_rings_init(struct memif_conn *c);

/* kick.c. */
int memif_kick_start(void);
/* Kicks c's tx rings from now on (its eventfds are duplicated: c may be
 * freed once memif_kick_del returns). 0 or a negative errno. */
int memif_kick_add(struct memif_conn *c);
/* Stops kicking c; never waits for the kicker. */
void memif_kick_del(struct memif_conn *c);
/* Workers: ask for a kick of r (only when the peer wants interrupts). */
void memif_kick_request(struct memif_qring *r);

#endif
