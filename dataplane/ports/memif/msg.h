/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * memif control messages: building them, and checking every one a peer
 * sends against what was negotiated so far, before podwired acts on it.
 * Pure functions (no sockets, no DPDK): each check returns 0, or a
 * negative errno with why saying what was wrong, in words for the log.
 */
#ifndef PODWIRE_MEMIF_MSG_H
#define PODWIRE_MEMIF_MSG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "ports/memif/proto.h"

/* What podwired accepts from one peer. */
#define MEMIF_MAX_REGIONS      16
#define MEMIF_MAX_QUEUE_PAIRS  8
#define MEMIF_MAX_REGION_BYTES (1ull << 30) /* 1 GiB */
#define MEMIF_MIN_BUFFER       128	    /* smallest buffer a peer may post */
#define MEMIF_MAX_BUFFER       65535

/* What a server has accepted so far from its client. */
struct memif_offer {
	uint16_t n_regions;
	uint64_t region_size[MEMIF_MAX_REGIONS];
	uint64_t mapped;     /* sum of region_size */
	uint16_t n_rings[2]; /* [0] server -> client (m2s), [1] client -> server (s2m) */
};

/* The server's side of the handshake: which message it waits for. */
enum memif_srv_state {
	MEMIF_SRV_WAIT_INIT,  /* HELLO sent */
	MEMIF_SRV_WAIT_SETUP, /* INIT accepted: regions, rings, then CONNECT */
	MEMIF_SRV_CONNECTED,  /* CONNECTED sent */
};

/* The client's side: HELLO, then an ACK for each of its messages but
 * CONNECT, then CONNECTED. */
enum memif_cli_state {
	MEMIF_CLI_WAIT_HELLO,
	MEMIF_CLI_WAIT_ACKS,
	MEMIF_CLI_WAIT_CONNECTED,
	MEMIF_CLI_CONNECTED,
};

const char *memif_msg_name(uint16_t type);

/* Whether a server in state st takes a message of this type (DISCONNECT
 * always is); -EPROTO with why otherwise. */
int memif_srv_expects(enum memif_srv_state st, uint16_t type, char *why, size_t len);
/* The same for a client; acks_left is how many ACKs it still waits for. */
int memif_cli_expects(enum memif_cli_state st, unsigned int acks_left, uint16_t type, char *why,
		      size_t len);

/* INIT: version 2.0 exactly, the interface id, ethernet mode, the secret
 * (both empty, or equal). -EPROTO or -EACCES (secret). */
int memif_check_init(const struct memif_msg_init *m, uint32_t id, const char *secret, char *why,
		     size_t len);
/* ADD_REGION: the next index, a size within MEMIF_MAX_REGION_BYTES. The
 * fd is the caller's to check, and the memory (memif_check_memory). */
int memif_check_add_region(const struct memif_msg_add_region *m, const struct memif_offer *o,
			   char *why, size_t len);
/* ADD_RING: the next index of its direction, within the queue pairs; a
 * known region holding the whole ring, aligned; a ring size podwired
 * takes; no private header. */
int memif_check_add_ring(const struct memif_msg_add_ring *m, const struct memif_offer *o, char *why,
			 size_t len);
/* Whether podwired may map bytes more (region index, rounded as mapped):
 * this peer has peer_mapped of at most peer_max, all peers all_mapped of
 * at most all_max. -ENOMEM with why naming the limit and its option. */
int memif_check_memory(uint16_t index, uint64_t bytes, uint64_t peer_mapped, uint64_t peer_max,
		       uint64_t all_mapped, uint64_t all_max, char *why, size_t len);
/* CONNECT: at least one ring each way. */
int memif_check_connect(const struct memif_offer *o, char *why, size_t len);
/* HELLO, as a client: it offers version 2.0 and room for one queue pair
 * of rings of log2 size want_log2 (lowered to what it allows: *log2). */
int memif_check_hello(const struct memif_msg_hello *m, uint8_t want_log2, uint8_t *log2, char *why,
		      size_t len);

/* How long a port waits after the n-th flap in a row (n >= 1):
 * min_ms doubled for each flap after the first, at most max_ms. */
unsigned int memif_flap_backoff_ms(unsigned int n, unsigned int min_ms, unsigned int max_ms);

/* Records an accepted ADD_REGION / ADD_RING in o. */
void memif_offer_add_region(struct memif_offer *o, const struct memif_msg_add_region *m);
void memif_offer_add_ring(struct memif_offer *o, const struct memif_msg_add_ring *m);

/* Builders: each fills all 128 bytes. Names and reasons are cut to fit
 * and NUL-padded. */
void memif_msg_hello(struct memif_msg *m, const char *name);
void memif_msg_init(struct memif_msg *m, uint32_t id, const char *secret, const char *name);
void memif_msg_add_region(struct memif_msg *m, uint16_t index, uint64_t size);
void memif_msg_add_ring(struct memif_msg *m, bool s2m, uint16_t index, uint16_t region,
			uint32_t offset, uint8_t log2);
void memif_msg_simple(struct memif_msg *m, uint16_t type);		      /* ACK */
void memif_msg_connect(struct memif_msg *m, uint16_t type, const char *name); /* (DIS)CONNECT(ED) */
void memif_msg_disconnect(struct memif_msg *m, uint32_t code, const char *reason);

/* A NUL-terminated, printable copy of a fixed-size name field. */
void memif_field_str(const uint8_t *field, size_t size, char *out, size_t out_len);

#endif
