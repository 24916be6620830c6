/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * libpwmemif: the memif protocol, as podwired's memif port and
 * podwire-bench's memif client both speak it. The whole public interface
 * is this header: the wire format, the checks of what a peer sends, the
 * messages' builders, the control socket's I/O, and the rings' index and
 * descriptor helpers. No DPDK and nothing of podwired's: the library
 * links into podwired, podwire-bench and the test tools alike. The ring
 * helpers run per frame on both datapaths, so they are inline here.
 *
 * The memif wire format, version 2.0, as FD.io VPP, libmemif and DPDK's
 * net_memif speak it. Written from the protocol's description: a control
 * channel of fixed 128-byte messages on a SOCK_SEQPACKET unix socket (at
 * most one fd each, by SCM_RIGHTS), and rings of 16-byte descriptors in
 * memory the client owns. The client ("slave") writes ring heads, the
 * server ("master") writes tails; indices run free in 16 bits.
 */
#ifndef PODWIRE_MEMIF_H
#define PODWIRE_MEMIF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#define MEMIF_COOKIE	    0x3E31F20u
#define MEMIF_VERSION	    ((2 << 8) | 0)
#define MEMIF_NAME_LEN	    32
#define MEMIF_SECRET_LEN    24
#define MEMIF_MSG_SIZE	    128
#define MEMIF_MAX_LOG2_RING 14
#define MEMIF_REASON_LEN    96

enum memif_msg_type {
	MEMIF_MSG_NONE,
	MEMIF_MSG_ACK,
	MEMIF_MSG_HELLO,      /* server -> client, first */
	MEMIF_MSG_INIT,	      /* client -> server: version, id, mode, secret */
	MEMIF_MSG_ADD_REGION, /* client -> server, with the region's fd */
	MEMIF_MSG_ADD_RING,   /* client -> server, with the ring's eventfd */
	MEMIF_MSG_CONNECT,    /* client -> server, last */
	MEMIF_MSG_CONNECTED,  /* server -> client */
	MEMIF_MSG_DISCONNECT, /* either way, with a reason */
	MEMIF_MSG_TYPE_COUNT,
};

enum memif_mode { MEMIF_MODE_ETHERNET, MEMIF_MODE_IP, MEMIF_MODE_PUNT_INJECT };

struct __attribute__((packed)) memif_msg_hello {
	uint8_t name[MEMIF_NAME_LEN];
	uint16_t min_version;
	uint16_t max_version;
	uint16_t max_region; /* highest region index */
	uint16_t max_m2s_ring;
	uint16_t max_s2m_ring;
	uint8_t max_log2_ring_size;
};

struct __attribute__((packed)) memif_msg_init {
	uint16_t version;
	uint32_t id;
	uint8_t mode;
	uint8_t secret[MEMIF_SECRET_LEN];
	uint8_t name[MEMIF_NAME_LEN];
};

struct __attribute__((packed)) memif_msg_add_region {
	uint16_t index;
	uint64_t size;
};

#define MEMIF_RING_FLAG_S2M 1 /* add_ring: the ring runs client -> server */

struct __attribute__((packed)) memif_msg_add_ring {
	uint16_t flags;
	uint16_t index;
	uint16_t region;
	uint32_t offset;
	uint8_t log2_ring_size;
	uint16_t private_hdr_size;
};

struct __attribute__((packed)) memif_msg_name {
	uint8_t name[MEMIF_NAME_LEN];
};

struct __attribute__((packed)) memif_msg_disconnect {
	uint32_t code;
	uint8_t reason[MEMIF_REASON_LEN];
};

struct __attribute__((packed)) memif_msg {
	uint16_t type;
	union {
		struct memif_msg_hello hello;
		struct memif_msg_init init;
		struct memif_msg_add_region add_region;
		struct memif_msg_add_ring add_ring;
		struct memif_msg_name connect, connected;
		struct memif_msg_disconnect disconnect;
		uint8_t raw[MEMIF_MSG_SIZE - 2];
	};
};

_Static_assert(sizeof(struct memif_msg) == MEMIF_MSG_SIZE, "memif messages are 128 bytes");

#define MEMIF_DESC_FLAG_NEXT 1 /* the frame goes on in the next slot */

/* Naturally aligned: the same layout packed or not. */
struct memif_desc {
	uint16_t flags;
	uint16_t region;
	uint32_t length;
	uint32_t offset;
	uint32_t metadata;
};

_Static_assert(sizeof(struct memif_desc) == 16, "memif descriptors are 16 bytes");
_Static_assert(__builtin_offsetof(struct memif_desc, offset) == 8, "memif descriptor layout");

#define MEMIF_RING_FLAG_MASK_INT 1 /* the receiver polls: no eventfd kick wanted */

/* A ring: the producer's index and the consumer's on their own cache
 * lines, then the descriptors. */
struct memif_ring {
	uint32_t cookie;
	uint16_t flags;
	uint16_t head;
	uint8_t pad0[64 - 8];
	uint16_t tail;
	uint8_t pad1[64 - 2];
	struct memif_desc desc[];
};

_Static_assert(sizeof(struct memif_ring) == 128, "the memif ring header is 128 bytes");

static inline uint64_t memif_ring_bytes(uint8_t log2_size)
{
	return sizeof(struct memif_ring) + sizeof(struct memif_desc) * ((uint64_t)1 << log2_size);
}

/* ---- rings: index arithmetic and descriptor access -------------------------
 * Indices are free-running 16-bit counters. */

/* A client's memory for n queue pairs, as podwired and podwire-bench lay
 * it out in one region: the s2m rings, the m2s rings (each rounded up to
 * a cache line), then 2^log2 buffers of buf_size for each ring, s2m
 * rings' first. With one pair: s2m ring, m2s ring, s2m buffers, m2s
 * buffers. */
struct memif_client_layout {
	uint32_t ring_bytes; /* each ring; pair 0's m2s ring starts here */
	uint32_t s2m_buf;    /* where pair 0's rings' buffers start */
	uint32_t m2s_buf;
	uint64_t size;	    /* the whole region */
	uint64_t ring_bufs; /* the bytes of one ring's buffers */
	uint16_t n_pairs;
};

static inline struct memif_client_layout memif_client_layout_n(uint8_t log2, uint32_t buf_size,
							       uint16_t n_pairs)
{
	struct memif_client_layout l;

	l.n_pairs = n_pairs;
	l.ring_bufs = ((uint64_t)1 << log2) * buf_size;
	l.ring_bytes = (uint32_t)((memif_ring_bytes(log2) + 63) & ~(uint64_t)63);
	l.s2m_buf = 2u * n_pairs * l.ring_bytes;
	l.m2s_buf = (uint32_t)(l.s2m_buf + n_pairs * l.ring_bufs);
	l.size = l.m2s_buf + n_pairs * l.ring_bufs;
	return l;
}

static inline struct memif_client_layout memif_client_layout(uint8_t log2, uint32_t buf_size)
{
	return memif_client_layout_n(log2, buf_size, 1);
}

/* Where ring k (s2m or m2s) of layout l is, and its buffers. */
static inline uint32_t memif_client_ring_off(const struct memif_client_layout *l, bool s2m,
					     uint16_t k)
{
	return (uint32_t)(((s2m ? 0u : l->n_pairs) + k) * l->ring_bytes);
}

static inline uint32_t memif_client_buf_off(const struct memif_client_layout *l, bool s2m,
					    uint16_t k)
{
	return (uint32_t)((s2m ? l->s2m_buf : l->m2s_buf) + k * l->ring_bufs);
}

/* Not a count: the peer's index is impossible. */
#define MEMIF_RING_BAD UINT16_MAX

/* How far ahead is of behind, in slots, when that is at most limit (a ring
 * size never exceeds 2^14, so the answer never collides with
 * MEMIF_RING_BAD); MEMIF_RING_BAD otherwise. Wraps correctly. */
static inline uint16_t memif_ring_count(uint16_t ahead, uint16_t behind, uint16_t limit)
{
	uint16_t n = (uint16_t)(ahead - behind);

	return n <= limit ? n : MEMIF_RING_BAD;
}

/* Whether a run of descriptors being prefetched needs a line fetched at
 * its i-th slot: the run's first, and each that starts a cache line (a
 * 64-byte line holds four 16-byte descriptors). */
static inline bool memif_desc_line_start(uint16_t i, uint16_t slot)
{
	return i == 0 || (slot & 3) == 0;
}

/* Reads a descriptor the peer may be rewriting, once, as two 8-byte loads
 * the compiler may not repeat: every check and use is of this copy. */
static inline struct memif_desc memif_desc_read(const struct memif_desc *d)
{
	const uint64_t *w = (const uint64_t *)(const void *)d;
	uint64_t v[2] = {__atomic_load_n(&w[0], __ATOMIC_RELAXED),
			 __atomic_load_n(&w[1], __ATOMIC_RELAXED)};
	struct memif_desc out;

	memcpy(&out, v, sizeof(out));
	return out;
}

/* A descriptor written whole (the client's): region, offset, length, flags. */
static inline void memif_desc_post_frame(struct memif_desc *d, uint16_t region, uint32_t offset,
					 uint32_t length, bool more)
{
	struct memif_desc v = {.flags = more ? MEMIF_DESC_FLAG_NEXT : 0,
			       .region = region,
			       .length = length,
			       .offset = offset};

	memcpy(d, &v, sizeof(v));
}

/* An empty buffer posted for the peer to fill. */
static inline void memif_desc_post(struct memif_desc *d, uint16_t region, uint32_t offset,
				   uint32_t length)
{
	memif_desc_post_frame(d, region, offset, length, false);
}

/* The server filled the peer's posted buffer with length bytes. */
static inline void memif_desc_fill(struct memif_desc *d, uint32_t length, bool more)
{
	d->length = length;
	d->flags = more ? MEMIF_DESC_FLAG_NEXT : 0;
}

/* ---- prefetching a line about to be written ---------------------------------
 * DPDK's build flags (-march=corei7) keep the compiler from emitting
 * PREFETCHW, so DPDK's write prefetch becomes a read prefetch: the line
 * arrives shared and the store that follows still waits for the other
 * cores to give it up. Where the peer's core last touched the line (memif
 * buffers and descriptors), that wait is most of what a frame costs. The
 * CPU is asked once, at start-up, whether it has PREFETCHW (CPUID
 * 0x80000001, ECX bit 8). */

extern bool memif_have_prefetchw;

static inline void memif_prefetch_write(const void *p)
{
#if defined(__x86_64__)
	if (__builtin_expect(memif_have_prefetchw, 1)) {
		__asm__ volatile("prefetchw %0" : : "m"(*(const volatile char *)p));
		return;
	}
	/* A read prefetch (PREFETCHT0), as DPDK's. */
	__asm__ volatile("prefetcht0 %0" : : "m"(*(const volatile char *)p));
#else
	__builtin_prefetch(p, 1, 3);
#endif
}

/* ---- control messages: checks and builders ----------------------------------
 * Pure functions (no sockets): each check returns 0, or a negative errno
 * with why saying what was wrong, in words for the log. */

/* What the checks accept from one peer, and what HELLO offers. */
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
 * fd is the caller's to check, and what mapping it costs. */
int memif_check_add_region(const struct memif_msg_add_region *m, const struct memif_offer *o,
			   char *why, size_t len);
/* ADD_RING: the next index of its direction, within the queue pairs; a
 * known region holding the whole ring, aligned; a ring size podwired
 * takes; no private header. */
int memif_check_add_ring(const struct memif_msg_add_ring *m, const struct memif_offer *o, char *why,
			 size_t len);
/* CONNECT: at least one ring each way. */
int memif_check_connect(const struct memif_offer *o, char *why, size_t len);
/* HELLO, as a client: it offers version 2.0 and room for one queue pair
 * of rings of log2 size want_log2 (lowered to what it allows: *log2). */
int memif_check_hello(const struct memif_msg_hello *m, uint8_t want_log2, uint8_t *log2, char *why,
		      size_t len);

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

/* ---- the control socket: whole messages, fds passed with them ---------------- */

/* Sends m with pass_fd (-1: none), never blocking (a peer that does not
 * read its socket does not get to hold us up). 0, or -1 with errno. */
int memif_msg_send(int fd, const struct memif_msg *m, int pass_fd);

/* Receives one message and the fd it carried (-1: none), never blocking;
 * fds arrive close-on-exec. Returns 1, 0 when nothing is there, or -1
 * with why when the peer is gone or broke a rule (a message not 128
 * bytes, more than one fd: any fd it sent is closed then). */
int memif_msg_recv(int fd, struct memif_msg *m, int *fd_out, char *why, size_t len);

/* A client's shared memory: a memfd of size bytes, sealed so that it can
 * neither shrink nor grow and keeps its seals (a server may insist on
 * F_SEAL_SHRINK). The fd, or -1 with errno. */
int memif_client_memfd(const char *name, uint64_t size);

/* The client's side of the handshake once HELLO is accepted, all at once:
 * INIT (id, secret, name), the region laid out as l, the s2m and m2s
 * rings of 2^log2 slots with their eventfds, CONNECT. The server answers
 * each but CONNECT with an ACK, then says CONNECTED. 0, or -1 with errno. */
int memif_client_announce(int fd, uint32_t id, const char *secret, const char *name, int region_fd,
			  const struct memif_client_layout *l, uint8_t log2, int s2m_efd,
			  int m2s_efd);
/* The same for l->n_pairs queue pairs: s2m_efd[k] and m2s_efd[k] are
 * ring k's eventfds. The server answers 2 + 2 * n_pairs ACKs. */
int memif_client_announce_n(int fd, uint32_t id, const char *secret, const char *name,
			    int region_fd, const struct memif_client_layout *l, uint8_t log2,
			    const int *s2m_efd, const int *m2s_efd);

#endif
