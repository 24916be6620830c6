/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * What a memif pod writes in the memory it shares with podwired: ring
 * indices, flags and descriptors, for podwired as server and as client.
 * The input is the shared region itself (plus a few bytes choosing the
 * role and podwired's starting indices); podwired receives from it, reads
 * every frame it accepts to the last byte, gives the slots back, and
 * sends into it. The region is exactly as large as claimed and
 * AddressSanitizer watches its ends: a descriptor checked too loosely is a
 * read or write outside it.
 */
#include "fuzz.h"

#include "datapath/frame.h"
#include "datapath/stats.h"
#include "memif/memif.h"
#include "ports/memif/port.h"

#define LOG2   4
#define SLOTS  (1u << LOG2)
#define RINGB  512 /* >= memif_ring_bytes(LOG2), a multiple of 64 */
#define BUF    256
#define REGION (2 * RINGB + 2 * SLOTS * BUF)
#define HEADER 8 /* role, then podwired's own indices */

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static uint8_t scratch[65536];
	struct port_counters ctr[1];
	struct dp_frame fr[32], *frp[32];
	uint8_t strip[32] = {0};
	struct memif_port mp;
	struct memif_conn *c;
	struct dp_port dp;
	uint8_t *mem;
	bool server;
	uint16_t n;

	if (size < HEADER + 1)
		return 0;
	server = data[0] & 1;
	mem = malloc(REGION); /* exactly the region: ASan guards its ends */
	c = aligned_alloc(64, RTE_ALIGN_CEIL(sizeof(*c), 64));
	if (mem == NULL || c == NULL)
		abort();
	memset(mem, 0, REGION);
	memcpy(mem, data + HEADER, RTE_MIN(size - HEADER, (size_t)REGION));
	memset(c, 0, sizeof(*c));
	memset(&mp, 0, sizeof(mp));
	memset(&dp, 0, sizeof(dp));
	memset(ctr, 0, sizeof(ctr));
	c->server = server;
	c->n_rx = c->n_tx = 1;
	c->n_regions = 1;
	c->region[0].base = mem;
	c->region[0].size = c->region[0].mapped_len = REGION;
	c->buf_size = server ? MEMIF_MAX_BUFFER : BUF;
	for (int k = 0; k < 2; k++) {
		struct memif_qring *q = k == 0 ? &c->rx[0] : &c->tx[0];

		/* Server: receives s2m (at 0), sends m2s; client: the reverse. */
		q->ring = (struct memif_ring *)(mem + ((k == 0) == server ? 0 : RINGB));
		q->log2 = LOG2;
		q->size = SLOTS;
		q->mask = SLOTS - 1;
		q->kick_fd = -1;
		q->buf_offset = 2 * RINGB + (uint32_t)k * SLOTS * BUF;
		q->buf_size = BUF;
		q->ring->flags |= MEMIF_RING_FLAG_MASK_INT; /* no kicks here */
	}
	/* podwired's own view of where it is, from the input. */
	c->rx[0].last = c->rx[0].released = (uint16_t)(data[1] | data[2] << 8);
	c->rx[0].posted = (uint16_t)(c->rx[0].last + (data[3] % (SLOTS + 1)));
	c->tx[0].last = (uint16_t)(data[4] | data[5] << 8);
	mp.conn = mp.cur = c;
	dp.priv = &mp;
	dp.link_up = true;
	/* tx counts frames per queue (no EAL here for stats_init). */
	if (stats_queues[0] == NULL)
		stats_queues[0] =
		    calloc((size_t)PW_MAX_PORTS * PW_MAX_QUEUES, sizeof(struct queue_counters));

	for (int round = 0; round < 2; round++) {
		n = memif_rx_frames(&dp, 0, fr, 32, ctr);
		for (uint16_t i = 0; i < n; i++) {
			/* What forwarding does with a frame: read it all. */
			uint32_t len =
			    RTE_MIN(dp_frame_out_len(&fr[i], 0), (uint32_t)sizeof(scratch));

			dp_frame_read(&fr[i], 0, 0, scratch, len);
			if (fr[i].len >= 16) {
				strip[i] = 0;
				len =
				    RTE_MIN(dp_frame_out_len(&fr[i], 1), (uint32_t)sizeof(scratch));
				dp_frame_read(&fr[i], 1, 0, scratch, len);
			}
			frp[i] = &fr[i];
		}
		/* And sends them back the other way, as a bridge might. */
		if (n > 0)
			memif_tx_frames(&dp, 0, frp, strip, n);
		memif_rx_release(&dp, 0);
		/* The pod moves its indices again (a byte from the input). */
		if (size > HEADER + REGION + round) {
			c->rx[0].ring->head += data[HEADER + REGION + round];
			c->tx[0].ring->tail += data[HEADER + REGION + round];
		}
	}
	free(mem);
	free(c);
	return 0;
}
