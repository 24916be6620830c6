/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * pcapng blocks into a byte buffer, for a stream that cannot block.
 *
 * DPDK's librte_pcapng formats each packet (rte_pcapng_copy: the Enhanced
 * Packet Block with its direction flags, from an mbuf). What DPDK 22.11
 * cannot do for podwire is written here: its writer names interfaces only
 * after ethdevs (rte_pcapng_add_interface came in 23.11, and most podwire
 * ports are no ethdev), maps interfaces through an array of
 * RTE_MAX_ETHPORTS indexed by ethdev id, has no packet comments (23.11)
 * and writes with blocking write()/writev() that may stop half-way
 * through a block on a socket. So: section, interface and statistics
 * blocks, the interface id and a comment added to librte_pcapng's packet
 * block, all appended to a buffer that the capture sends when it can.
 */
#ifndef PODWIRE_CAPTURE_PCAPNG_H
#define PODWIRE_CAPTURE_PCAPNG_H

#include <stddef.h>
#include <stdint.h>

#include <rte_mbuf.h>

/* Bytes waiting to be sent: data[off, len). */
struct capbuf {
	uint8_t *data;
	size_t off, len, cap;
};

/* Appends n bytes; -ENOMEM leaves b as it was. */
int capbuf_add(struct capbuf *b, const void *p, size_t n);
void capbuf_free(struct capbuf *b);
static inline size_t capbuf_pending(const struct capbuf *b)
{
	return b->len - b->off;
}

/* The Section Header Block. */
int pcapng_section(struct capbuf *b, const char *hardware, const char *os, const char *app);
/* An Interface Description Block: Ethernet, nanosecond timestamps. */
int pcapng_interface(struct capbuf *b, const char *name, const char *description, uint32_t snaplen);
/* The Enhanced Packet Block librte_pcapng made in epb (rte_pcapng_copy),
 * for interface ifid, with the frame's length on the wire, its time (ns
 * since the epoch) and a comment (NULL for none). The time is ours: 22.11
 * converts TSC to time from a base taken at its first call and moved
 * forward in whole seconds, with an unsigned difference, so a frame
 * stamped before that base (captured on a worker, formatted a moment
 * later) gets a time 2^64 cycles away. */
int pcapng_packet(struct capbuf *b, const struct rte_mbuf *epb, uint32_t ifid, uint32_t orig_len,
		  uint64_t ts_ns, const char *comment);
/* An Interface Statistics Block; times in ns since the epoch. */
int pcapng_stats(struct capbuf *b, uint32_t ifid, uint64_t now_ns, uint64_t start_ns,
		 uint64_t end_ns, uint64_t received, uint64_t dropped, const char *comment);

#endif
