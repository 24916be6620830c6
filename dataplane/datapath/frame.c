/* SPDX-License-Identifier: BSD-3-Clause */
/* Frames without mbufs made into mbufs (see frame.h). */
#include "datapath/frame.h"

struct rte_mbuf *dp_frame_to_mbuf_max(const struct dp_frame *f, uint8_t strip,
				      struct rte_mempool *pool, uint32_t max)
{
	uint32_t len = RTE_MIN(dp_frame_out_len(f, strip), max), off = 0;
	struct rte_mbuf *head = NULL, *tail = NULL;

	while (off < len) {
		struct rte_mbuf *m = rte_pktmbuf_alloc(pool);
		uint32_t k;

		if (unlikely(m == NULL)) {
			rte_pktmbuf_free(head);
			return NULL;
		}
		k = RTE_MIN(len - off, (uint32_t)rte_pktmbuf_tailroom(m));
		dp_frame_read(f, strip, off, rte_pktmbuf_mtod(m, uint8_t *), k);
		m->data_len = (uint16_t)k;
		if (head == NULL) {
			head = m;
		} else {
			tail->next = m;
			head->nb_segs++;
		}
		head->pkt_len += k;
		tail = m;
		off += k;
	}
	return head;
}

struct rte_mbuf *dp_frame_to_mbuf(const struct dp_frame *f, uint8_t strip, struct rte_mempool *pool)
{
	return dp_frame_to_mbuf_max(f, strip, pool, UINT32_MAX);
}
