/* SPDX-License-Identifier: BSD-3-Clause */
#include <errno.h>
#include <string.h>

#include <rte_cycles.h>
#include <rte_launch.h>
#include <rte_lcore.h>
#include <rte_malloc.h>

#include "core/log.h"
#include "datapath/burst.h"
#include "datapath/observe.h"
#include "datapath/worker.h"

PW_LOG_TYPE("worker");

struct worker *workers[PW_MAX_WORKERS];
unsigned int n_workers;

static int worker_main(void *arg)
{
	struct worker *w = arg;
	struct worker_counters *wc = &stats_workers[w->id];
	struct rte_mbuf *pkts[PW_BURST];
	uint64_t t0, t1;

	RTE_PER_LCORE(dp_worker_id) = w->id;
	rte_rcu_qsbr_thread_register(view_qsbr, w->id);
	rte_rcu_qsbr_thread_online(view_qsbr, w->id);
	LOG(INFO, "worker %u polling on lcore %u", w->id, w->lcore);
	t0 = rte_rdtsc();
	while (likely(!w->stop)) {
		const struct view *v = __atomic_load_n(&view_current, __ATOMIC_ACQUIRE);
		const uint16_t *poll = v->poll[w->id];
		unsigned int got = 0;

		w->now = t0;
		for (uint16_t i = 0; i < v->n_poll[w->id]; i++) {
			struct dp_port *p = v->ports[poll[i]];
			uint16_t n;

			if (!p->link_up)
				continue;
			if (p->ops->rx_frames != NULL) {
				n = p->ops->rx_frames(p, w->frames, PW_BURST, w->ctr);
				if (n == 0)
					continue;
				got += n;
				dp_input_frames(w, v, p, w->frames, n);
				p->ops->rx_release(p);
				if (w->n_dirty != 0)
					txbuf_flush_full(w, v);
				continue;
			}
			n = p->ops->rx_burst(p, pkts, PW_BURST, w->ctr);
			if (n == 0)
				continue;
			got += n;
			dp_input_mbufs(w, v, p, pkts, n);
			/* Buffers that hold a burst's worth leave now, while the
			 * frames are in cache and their peer is not held up by the
			 * polling of every other port. Thin ones (a burst spread
			 * over many pods) wait for the end of the turn and leave
			 * together with what later bursts add: one vhost call per
			 * frame would cost more than the frame. */
			if (w->n_dirty != 0)
				txbuf_flush_full(w, v);
		}
		if (w->n_dirty != 0)
			txbuf_flush_all(w, v);
		/* Past this point this worker holds nothing from v. */
		rte_rcu_qsbr_quiescent(view_qsbr, w->id);
		t1 = rte_rdtsc();
		if (got != 0)
			wc->busy_cycles += t1 - t0;
		else
			wc->idle_cycles += t1 - t0;
		wc->loops++;
		t0 = t1;
	}
	rte_rcu_qsbr_thread_offline(view_qsbr, w->id);
	rte_rcu_qsbr_thread_unregister(view_qsbr, w->id);
	return 0;
}

struct worker *worker_new(unsigned int id, unsigned int lcore, struct rte_mempool *pool)
{
	struct worker *w = rte_zmalloc_socket("pw_worker", sizeof(*w), RTE_CACHE_LINE_SIZE,
					      rte_lcore_to_socket_id(lcore));

	if (w == NULL)
		return NULL;
	w->id = id;
	w->lcore = lcore;
	w->ctr = stats_ports[id];
	w->pool = pool;
	/* The caller's own worker id is its own business (worker_main, or a
	 * test driving a worker by hand, sets it): podwired's main thread,
	 * which makes every worker, is none of them. */
	return w;
}

int workers_start(const unsigned int *lcores, unsigned int n, struct rte_mempool *pool)
{
	for (unsigned int i = 0; i < n; i++) {
		workers[i] = worker_new(i, lcores[i], pool);
		if (workers[i] == NULL)
			return -ENOMEM;
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
