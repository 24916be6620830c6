/* SPDX-License-Identifier: BSD-3-Clause */
/* Capture, the worker's side: filter, copy, hand over. See observe.h. */
#include <string.h>

#include <rte_bpf.h>
#include <rte_cycles.h>
#include <rte_ring.h>

#include "datapath/observe.h"

RTE_DEFINE_PER_LCORE(unsigned int, dp_worker_id) = DP_NO_WORKER;

/* The filter's verdict on an mbuf: 0 is "not taken". */
static inline uint64_t filter_mbuf(const struct dp_capture *c, struct rte_mbuf *m)
{
	if (c->jit != NULL)
		return c->jit(m);
	return rte_bpf_exec(c->filter, m);
}

/* The filter's verdict on a frame as it sits in its segments: the
 * program reads packets through mbufs (its loads are rte_pktmbuf_read),
 * so each segment is shown to it as an mbuf header on the stack. */
static uint64_t __rte_noinline filter_frame(const struct dp_capture *c, const struct dp_frame *f)
{
	struct rte_mbuf m[DP_FRAME_SEGS];

	memset(m, 0, sizeof(struct rte_mbuf) * f->n_seg);
	for (uint16_t s = 0; s < f->n_seg; s++) {
		m[s].buf_addr = (void *)(uintptr_t)f->seg[s].data;
		m[s].data_len = (uint16_t)f->seg[s].len;
		m[s].next = s + 1 < f->n_seg ? &m[s + 1] : NULL;
	}
	m[0].pkt_len = f->len;
	m[0].nb_segs = f->n_seg;
	return filter_mbuf(c, &m[0]);
}

static inline void meta_set(struct rte_mbuf *r, uint64_t tsc, uint32_t orig_len,
			    const struct dp_port *p, enum capture_dir dir, const uint8_t *why,
			    uint16_t i)
{
	struct capture_meta *cm = capture_meta(r);

	cm->tsc = tsc;
	cm->orig_len = orig_len;
	cm->iface = p->capture_if;
	cm->dir = (uint8_t)dir;
	cm->drop = why == NULL ? DROP_MAX : why[i];
}

/* The capture of p for direction dir, or NULL (the bits may have been
 * cleared, or the pointer, since the caller tested them). */
static inline const struct dp_capture *capture_of(const struct dp_port *p, enum capture_dir dir)
{
	const struct dp_capture *c = p->capture;

	return c != NULL && (c->dirs & dir) ? c : NULL;
}

void capture_copy_mbufs(unsigned int wid, const struct dp_port *p, struct rte_mbuf *const *pkts,
			uint16_t n, enum capture_dir dir, const uint8_t *why, struct rte_mbuf **rec)
{
	const struct dp_capture *c = capture_of(p, dir);
	struct capture_ctr *ctr;
	uint64_t tsc;

	memset(rec, 0, n * sizeof(*rec));
	if (c == NULL)
		return;
	ctr = &c->ctr[wid].ifs[p->capture_if];
	tsc = rte_rdtsc();
	for (uint16_t i = 0; i < n; i++) {
		struct rte_mbuf *r;

		if ((c->jit != NULL || c->filter != NULL) && filter_mbuf(c, pkts[i]) == 0)
			continue;
		ctr->matched++;
		r = rte_pktmbuf_copy(pkts[i], c->pool, 0, c->snaplen);
		if (unlikely(r == NULL)) {
			ctr->skipped++;
			continue;
		}
		meta_set(r, tsc, pkts[i]->pkt_len, p, dir, why, i);
		rec[i] = r;
	}
}

void capture_copy_frames(unsigned int wid, const struct dp_port *p, struct dp_frame *const *f,
			 const uint8_t *strip, uint16_t n, enum capture_dir dir, const uint8_t *why,
			 struct rte_mbuf **rec)
{
	const struct dp_capture *c = capture_of(p, dir);
	bool filtered;
	struct capture_ctr *ctr;
	uint64_t tsc;

	memset(rec, 0, n * sizeof(*rec));
	if (c == NULL)
		return;
	filtered = c->jit != NULL || c->filter != NULL;
	ctr = &c->ctr[wid].ifs[p->capture_if];
	tsc = rte_rdtsc();
	for (uint16_t i = 0; i < n; i++) {
		uint8_t s = strip != NULL ? strip[i] : 0;
		struct rte_mbuf *r;

		/* A frame that loses its tag is filtered as it leaves: from
		 * the copy (which is then the cost of a frame not taken). */
		if (filtered && s == 0 && filter_frame(c, f[i]) == 0)
			continue;
		r = dp_frame_to_mbuf_max(f[i], s, c->pool, c->snaplen);
		if (filtered && s != 0 && r != NULL && filter_mbuf(c, r) == 0) {
			rte_pktmbuf_free(r);
			continue;
		}
		ctr->matched++;
		if (unlikely(r == NULL)) {
			ctr->skipped++;
			continue;
		}
		meta_set(r, tsc, dp_frame_out_len(f[i], s), p, dir, why, i);
		rec[i] = r;
	}
}

void capture_mark(struct rte_mbuf **rec, uint16_t from, uint16_t n, enum drop_reason why)
{
	for (uint16_t i = from; i < n; i++)
		if (rec[i] != NULL)
			capture_meta(rec[i])->drop = (uint8_t)why;
}

void capture_push(unsigned int wid, const struct dp_port *p, struct rte_mbuf **rec, uint16_t n)
{
	const struct dp_capture *c = p->capture;
	struct rte_mbuf *q[CAPTURE_BATCH];
	uint16_t k = 0, done;

	if (c == NULL) /* cleared since the copies: nobody drains them now */
		goto free_all;
	for (uint16_t i = 0; i < n; i++)
		if (rec[i] != NULL)
			q[k++] = rec[i];
	if (k == 0)
		return;
	done = (uint16_t)rte_ring_sp_enqueue_burst(c->ring[wid], (void **)q, k, NULL);
	if (unlikely(done < k)) {
		c->ctr[wid].ifs[p->capture_if].skipped += k - done;
		rte_pktmbuf_free_bulk(q + done, k - done);
	}
	return;
free_all:
	for (uint16_t i = 0; i < n; i++)
		rte_pktmbuf_free(rec[i]);
}

void capture_mbufs(unsigned int wid, const struct dp_port *p, struct rte_mbuf *const *pkts,
		   uint16_t n, enum capture_dir dir, const uint8_t *why)
{
	struct rte_mbuf *rec[CAPTURE_BATCH];

	while (n != 0) {
		uint16_t k = RTE_MIN(n, (uint16_t)CAPTURE_BATCH);

		capture_copy_mbufs(wid, p, pkts, k, dir, why, rec);
		capture_push(wid, p, rec, k);
		pkts += k;
		why = why != NULL ? why + k : NULL;
		n -= k;
	}
}

void capture_frames(unsigned int wid, const struct dp_port *p, struct dp_frame *const *f,
		    const uint8_t *strip, uint16_t n, enum capture_dir dir, const uint8_t *why)
{
	struct rte_mbuf *rec[CAPTURE_BATCH];

	while (n != 0) {
		uint16_t k = RTE_MIN(n, (uint16_t)CAPTURE_BATCH);

		capture_copy_frames(wid, p, f, strip, k, dir, why, rec);
		capture_push(wid, p, rec, k);
		f += k;
		strip = strip != NULL ? strip + k : NULL;
		why = why != NULL ? why + k : NULL;
		n -= k;
	}
}
