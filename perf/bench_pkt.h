/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * podwire-bench frames: Ethernet + IPv4 + UDP, and a stamp in the UDP
 * payload (magic, sequence number, TSC) that the receiver reads back to
 * count and time each frame; the source and destination pods are in the
 * IPv4 addresses (bench_pod_ip), and the queue a frame left on in the
 * source address's last byte (bench_pod_queue_ip). No EAL needed.
 *
 * Frame sizes are Ethernet frame lengths with the FCS, as RFC 2544 counts
 * them (64 ... 1518, jumbo up to 9000): a frame of size S is S - 4 bytes
 * in the mbuf, since virtual ports carry no FCS. (testpmd's "64 bytes"
 * is the mbuf length: the same frames as --size 68 here.)
 */
#ifndef PODWIRE_BENCH_PKT_H
#define PODWIRE_BENCH_PKT_H

#include <stddef.h>
#include <stdint.h>

#define BENCH_MAGIC	0x70774263u /* "pwBc" */
#define BENCH_HDR_LEN	42u	    /* Ethernet 14 + IPv4 20 + UDP 8 */
#define BENCH_STAMP_LEN 16u
#define BENCH_FCS_LEN	4u
/* Frame sizes, FCS included. */
#define BENCH_PKT_MIN_LEN  64u
#define BENCH_PKT_MAX_LEN  9000u
#define BENCH_UDP_DST_PORT 4791u
#define BENCH_IMIX_PERIOD  12u

struct bench_pkt_hdr {
	uint8_t dst_mac[6];
	uint8_t src_mac[6];
	uint32_t src_ip; /* host order */
	uint32_t dst_ip;
	uint16_t src_port;
	uint16_t dst_port;
};

struct bench_stamp {
	uint16_t src_pod;
	uint16_t dst_pod;
	uint16_t src_queue; /* read only: from the source address */
	uint32_t seq;
	uint64_t tsc;
};

/* Writes the Ethernet, IPv4 (with its checksum) and UDP headers of a frame
 * of size bytes (FCS included) into buf, which holds size - BENCH_FCS_LEN
 * bytes; the payload is left as it is. Returns 0, or -EINVAL when size is
 * outside BENCH_PKT_MIN/MAX_LEN. */
int bench_pkt_build(uint8_t *buf, size_t size, const struct bench_pkt_hdr *h);

/* The headers one pod sends, prepared once so that a frame costs a copy
 * and a few stores (bench_pkt_fill) instead of a build: the fields that
 * vary per frame are patched, and the IPv4 checksum is finished from the
 * sum of the fields that do not. */
struct bench_pkt_tmpl {
	uint8_t hdr[BENCH_HDR_LEN];
	uint32_t ip_sum; /* IPv4 header words without length, destination, checksum */
};

/* Prepares t from h's source MAC, source IP and destination port. */
void bench_pkt_tmpl_init(struct bench_pkt_tmpl *t, const struct bench_pkt_hdr *h);

/* Writes the same headers as bench_pkt_build(buf, size, h) would, for an
 * h whose source IP and destination port are the template's; size must
 * already be valid (BENCH_PKT_MIN/MAX_LEN). */
void bench_pkt_fill(uint8_t *buf, size_t size, const struct bench_pkt_tmpl *t,
		    const uint8_t dst_mac[6], const uint8_t src_mac[6], uint32_t dst_ip,
		    uint16_t src_port);

/* The IPv4 address of pod n: 10.<n high byte>.<n low byte>.1. */
static inline uint32_t bench_pod_ip(uint16_t pod)
{
	return (10u << 24) | ((uint32_t)pod << 8) | 1u;
}

/* The source address of pod n's queue q (0..253): 10.<n>.<q + 1>, so
 * that each queue's flows are flows of their own, as a NIC's RSS would
 * see them, and its frames say which queue they left on. Queue 0's is
 * the pod's address. */
static inline uint32_t bench_pod_queue_ip(uint16_t pod, uint16_t q)
{
	return bench_pod_ip(pod) + q;
}

/* The Internet checksum of len bytes (len even), as stored in the header. */
uint16_t bench_ipv4_cksum(const void *hdr, size_t len);

/* Writes s->seq and s->tsc after the headers of a frame built by
 * bench_pkt_build (the pods are already in its addresses). */
void bench_stamp_write(uint8_t *frame, const struct bench_stamp *s);

/* Reads the stamp of a received frame of len bytes (as in the mbuf), and
 * the pods and source queue from its addresses. Returns 0, -EMSGSIZE
 * when the frame is too short to hold one, -EBADMSG when it is not a
 * podwire-bench frame (not IPv4/UDP to BENCH_UDP_DST_PORT, or bad magic). */
int bench_stamp_read(const uint8_t *frame, size_t len, struct bench_stamp *s);

/* Parses a frame size option: a number in BENCH_PKT_MIN/MAX_LEN, or
 * "imix" (stored as 0). Returns 0 or -EINVAL. */
int bench_size_parse(const char *s, uint16_t *size);

/* The length of the i-th frame of a simple IMIX stream: 64, 594 and 1518
 * bytes in the proportions 7:4:1, interleaved over BENCH_IMIX_PERIOD. */
uint16_t bench_imix_len(uint64_t i);

/* Mean frame size of a stream of the given size (0 = IMIX), FCS included. */
double bench_size_mean(uint16_t size);

#endif
