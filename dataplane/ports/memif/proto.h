/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The memif wire format, version 2.0, as FD.io VPP, libmemif and DPDK's
 * net_memif speak it. Written from the protocol's description: a control
 * channel of fixed 128-byte messages on a SOCK_SEQPACKET unix socket (at
 * most one fd each, by SCM_RIGHTS), and rings of 16-byte descriptors in
 * memory the client owns. The client ("slave") writes ring heads, the
 * server ("master") writes tails; indices run free in 16 bits.
 */
#ifndef PODWIRE_MEMIF_PROTO_H
#define PODWIRE_MEMIF_PROTO_H

#include <stdint.h>

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

#endif
