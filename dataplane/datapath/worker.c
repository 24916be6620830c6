/* SPDX-License-Identifier: BSD-3-Clause */
#include <errno.h>
#include <string.h>

#include <rte_cycles.h>
#include <rte_launch.h>
#include <rte_lcore.h>
#include <rte_malloc.h>

#include "daemon/log.h"
#include "model/network.h"
#include "datapath/worker.h"

struct worker *workers[PW_MAX_WORKERS];
unsigned int n_workers;

void port_send(struct worker *w, const struct dp_view *v, uint16_t idx, struct rte_mbuf **pkts,
	       uint16_t n)
{
	struct port_counters *c = &w->ctr[idx];
	struct port *p = v->ports[idx];
	uint64_t bytes = 0;
	uint16_t sent;

	if (unlikely(p == NULL || !p->link_up)) {
		if (p != NULL)
			c->drops[DROP_LINK_DOWN] += n;
		rte_pktmbuf_free_bulk(pkts, n);
		return;
	}
	for (uint16_t i = 0; i < n; i++)
		bytes += pkts[i]->pkt_len;
	if (p->tx_shared)
		rte_spinlock_lock(&p->tx_lock);
	sent = p->ops->tx_burst(p, pkts, n);
	if (p->tx_shared)
		rte_spinlock_unlock(&p->tx_lock);
	if (unlikely(sent < n)) {
		for (uint16_t i = sent; i < n; i++)
			bytes -= pkts[i]->pkt_len;
		c->drops[DROP_TX_FULL] += n - sent;
		rte_pktmbuf_free_bulk(&pkts[sent], n - sent);
	}
	c->tx_packets += sent;
	c->tx_bytes += bytes;
}

static inline void txb_flush(struct worker *w, const struct dp_view *v, uint16_t idx)
{
	struct tx_buffer *b = &w->txb[idx];
	uint16_t n = b->n;

	b->n = 0;
	port_send(w, v, idx, b->pkts, n);
}

void txb_add(struct worker *w, const struct dp_view *v, uint16_t out, struct rte_mbuf *m)
{
	struct tx_buffer *b = &w->txb[out];
	const struct port *p = v->ports[out];

	if (unlikely(m->pkt_len > p->max_frame)) {
		w->ctr[out].drops[DROP_MTU]++;
		rte_pktmbuf_free(m);
		return;
	}
	if (!b->queued) {
		b->queued = true;
		w->dirty[w->n_dirty++] = out;
	}
	b->pkts[b->n++] = m;
	if (unlikely(b->n == TXB_SIZE))
		txb_flush(w, v, out);
}

void txb_flush_all(struct worker *w, const struct dp_view *v)
{
	for (uint16_t i = 0; i < w->n_dirty; i++) {
		struct tx_buffer *b = &w->txb[w->dirty[i]];

		b->queued = false;
		if (b->n != 0)
			txb_flush(w, v, w->dirty[i]);
	}
	w->n_dirty = 0;
}

void txb_flush_full(struct worker *w, const struct dp_view *v)
{
	uint16_t k = 0;

	for (uint16_t i = 0; i < w->n_dirty; i++) {
		uint16_t idx = w->dirty[i];
		struct tx_buffer *b = &w->txb[idx];

		if (b->n >= TXB_FLUSH_MIN)
			txb_flush(w, v, idx);
		if (b->n != 0)
			w->dirty[k++] = idx;
		else
			b->queued = false;
	}
	w->n_dirty = k;
}

static int worker_main(void *arg)
{
	struct worker *w = arg;
	struct worker_counters *wc = &stats_workers[w->id];
	struct rte_mbuf *pkts[PW_BURST];
	uint64_t t0, t1;

	rte_rcu_qsbr_thread_register(dp_qsbr, w->id);
	rte_rcu_qsbr_thread_online(dp_qsbr, w->id);
	PW_LOG(INFO, worker, "worker %u polling on lcore %u", w->id, w->lcore);
	t0 = rte_rdtsc();
	while (likely(!w->stop)) {
		const struct dp_view *v = __atomic_load_n(&dp_current, __ATOMIC_ACQUIRE);
		const uint16_t *poll = v->poll[w->id];
		unsigned int got = 0;

		for (uint16_t i = 0; i < v->n_poll[w->id]; i++) {
			struct port *p = v->ports[poll[i]];
			const struct dp_net *net = v->nets[poll[i]];
			uint16_t n;

			if (!p->link_up)
				continue;
			n = p->ops->rx_burst(p, pkts, PW_BURST);
			if (n == 0)
				continue;
			got += n;
			if (net->mode == NET_XCONNECT)
				xconnect_input(w, v, p, pkts, n);
			else
				l2_bridge_input(w, v, p, net, pkts, n);
			/* Buffers that hold a burst's worth leave now, while the
			 * frames are in cache and their peer is not held up by the
			 * polling of every other port. Thin ones (a burst spread
			 * over many pods) wait for the end of the turn and leave
			 * together with what later bursts add: one vhost call per
			 * frame would cost more than the frame. */
			if (w->n_dirty != 0)
				txb_flush_full(w, v);
		}
		if (w->n_dirty != 0)
			txb_flush_all(w, v);
		/* Past this point this worker holds nothing from v. */
		rte_rcu_qsbr_quiescent(dp_qsbr, w->id);
		t1 = rte_rdtsc();
		if (got != 0)
			wc->busy_cycles += t1 - t0;
		else
			wc->idle_cycles += t1 - t0;
		wc->loops++;
		t0 = t1;
	}
	rte_rcu_qsbr_thread_offline(dp_qsbr, w->id);
	rte_rcu_qsbr_thread_unregister(dp_qsbr, w->id);
	return 0;
}

int workers_start(const unsigned int *lcores, unsigned int n)
{
	for (unsigned int i = 0; i < n; i++) {
		struct worker *w = rte_zmalloc_socket("pw_worker", sizeof(*w), RTE_CACHE_LINE_SIZE,
						      rte_lcore_to_socket_id(lcores[i]));

		if (w == NULL)
			return -ENOMEM;
		w->id = i;
		w->lcore = lcores[i];
		w->ctr = stats_ports[i];
		workers[i] = w;
	}
	n_workers = n;
	for (unsigned int i = 0; i < n; i++)
		if (rte_eal_remote_launch(worker_main, workers[i], workers[i]->lcore) != 0)
			return -EBUSY;
	return 0;
}

void workers_stop(void)
{
	for (unsigned int i = 0; i < n_workers; i++)
		if (workers[i] != NULL)
			workers[i]->stop = true;
	rte_eal_mp_wait_lcore();
	for (unsigned int i = 0; i < n_workers; i++) {
		rte_free(workers[i]);
		workers[i] = NULL;
	}
}

unsigned int worker_pick(void)
{
	unsigned int load[PW_MAX_WORKERS] = {0}, best = 0;
	struct port *p;

	TAILQ_FOREACH (p, &port_all, next)
		load[p->worker]++;
	for (unsigned int i = 1; i < n_workers; i++)
		if (load[i] < load[best])
			best = i;
	return best;
}
