/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * podwire-bench's own memif client: a pod that speaks memif (protocol
 * 2.0, client role, one or more queue pairs) without DPDK's net_memif, so that the
 * generator writes its frames straight into the buffers it shares with the
 * switch and reads them there, with no mbuf and no copy in between.
 *
 * Why: net_memif copies every frame into and out of mbufs on the
 * generator's side too; on this machine's one generator core it made the
 * generator, not the switch under test, the limit at 64 B (about 15 Mpps
 * whatever the switch). A faster generator lets the switches' own costs
 * show in throughput.
 *
 * The peer is the switch under test, trusted as such: indices it moves are
 * checked only so that a broken switch is reported, not survived.
 */
#ifndef PODWIRE_BENCH_MEMIF_H
#define PODWIRE_BENCH_MEMIF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct bench_memif;

/* Connects to the memif server listening on path and completes the
 * handshake (interface id 0, no secret), with rings of 2^log2 slots and
 * buffers of buf_size bytes, each frame in one buffer. Returns the pod,
 * or NULL with why in err.
 *
 * A switch that is there but not serving us yet is tried again, with a
 * back-off, for up to wait_ms (0: one try): a socket not listening yet,
 * or a switch that refuses or hangs up before CONNECTED (no socket at
 * all is said at once: a wrong path, most likely).
 * A memif server may refuse an interface it does not serve yet, and
 * clients are the side that tries again (VPP's and libmemif's do):
 * DPDK 22.11's net_memif listens from the probe of its device but
 * answers an INIT with "ID not found" until the port is started (its
 * DISABLED flag, cleared in dev_start), which takes testpmd 100-200 ms
 * here, more on a fresh machine. A reply that does not suit us (HELLO)
 * or a switch that says nothing (5 s) is not tried again. On success err
 * says what was refused before, or is empty. */
struct bench_memif *bench_memif_open(const char *path, uint8_t log2, uint32_t buf_size,
				     unsigned int wait_ms, char *err, size_t err_len);
/* The same with nq queue pairs (1 to MEMIF_MAX_QUEUE_PAIRS): nq rings
 * each way, all in one region. A switch whose HELLO offers fewer is
 * refused (no retry), as is a region larger than a switch maps. */
struct bench_memif *bench_memif_open_queues(const char *path, uint8_t log2, uint32_t buf_size,
					    uint16_t nq, unsigned int wait_ms, char *err,
					    size_t err_len);
void bench_memif_close(struct bench_memif *m);

/* Every call below names one queue pair q (0 .. nq - 1); each pair's
 * rings are independent, and frames sent on one pair's s2m ring keep
 * their order. */

/* Sending on q: up to n free slots' buffers (buf_size bytes each) into
 * buf, and each slot's tag into tag: 0 at first, then whatever the
 * caller keeps there (say, which headers the buffer holds: a slot's
 * buffer is always the same, and the switch only reads it); returns how
 * many. Then bench_memif_tx_commit gives the first k of them, filled with
 * len[i] bytes, to the switch. */
uint16_t bench_memif_tx_slots(struct bench_memif *m, uint16_t q, uint8_t **buf, uint64_t **tag,
			      uint16_t n);
void bench_memif_tx_commit(struct bench_memif *m, uint16_t q, const uint16_t *len, uint16_t k);

/* Receiving on q: up to n frames the switch wrote (buffers and lengths);
 * they stay valid until bench_memif_rx_done, which gives the buffers
 * back. Returns how many, or -1 once the switch broke the protocol (why
 * in bench_memif_error). */
int bench_memif_rx(struct bench_memif *m, uint16_t q, const uint8_t **buf, uint32_t *len,
		   uint16_t n);
void bench_memif_rx_done(struct bench_memif *m, uint16_t q);

/* Whether the switch is still connected, never blocking: false once it
 * hung up (killed, say) or said DISCONNECT, and from then on. Whatever
 * else it sends once connected is read and ignored. The shared memory is
 * the pod's own: a departed switch leaves it mapped, and the pod is
 * closed (bench_memif_close) when the caller chooses, from its own
 * thread, so nothing is unmapped under a burst. */
bool bench_memif_up(struct bench_memif *m);

/* The first protocol breach seen on the rings, or NULL. */
const char *bench_memif_error(const struct bench_memif *m);

#endif
