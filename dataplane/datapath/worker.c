/* SPDX-License-Identifier: BSD-3-Clause */
#include <errno.h>
#include <string.h>
#include <sys/prctl.h>
#include <time.h>

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

/* Polls one queue: receives, forwards, flushes what filled up. Returns
 * the frames it received. */
static inline unsigned int poll_queue(struct worker *w, const struct view *v, struct dp_port *p,
				      uint16_t q, struct rte_mbuf **pkts)
{
	/* Read once: a vhost-user port's kind changes its ops when a guest
	 * connects (its own rings or librte_vhost's), and the release must
	 * go to the ops that received. */
	const struct dp_port_ops *ops = __atomic_load_n(&p->ops, __ATOMIC_ACQUIRE);
	uint16_t n;

	if (ops->rx_frames != NULL) {
		n = ops->rx_frames(p, q, w->frames, PW_BURST, w->ctr);
		if (n == 0)
			return 0;
		dp_input_frames(w, v, p, w->frames, n);
		ops->rx_release(p, q);
	} else {
		n = ops->rx_burst(p, q, pkts, PW_BURST, w->ctr);
		if (n == 0)
			return 0;
		dp_input_mbufs(w, v, p, pkts, n);
	}
	/* Buffers that hold a burst's worth leave now, while the frames are
	 * in cache and their peer is not held up by the polling of every
	 * other queue. Thin ones (a burst spread over many pods) wait for
	 * the end of the turn and leave together with what later bursts
	 * add: one vhost call per frame would cost more than the frame. */
	if (w->n_ready != 0)
		txbuf_flush_full(w, v);
	return n;
}

/* An idle worker's nap (--idle-sleep-max): after WORKER_IDLE_TURNS empty
 * turns in a row it sleeps 1 us, then twice as long each empty turn up
 * to the maximum; the first turn that finds a frame ends it. While
 * asleep it is offline for the view's grace periods, so a publish does
 * not wait for it. */
#define WORKER_IDLE_TURNS 64

static void worker_nap(struct worker *w, struct worker_counters *wc)
{
	struct timespec ts;

	if (++w->empty_turns < WORKER_IDLE_TURNS)
		return;
	w->nap_us = w->nap_us == 0 ? 1 : RTE_MIN(w->nap_us * 2, w->nap_max_us);
	ts.tv_sec = w->nap_us / 1000000;
	ts.tv_nsec = (long)(w->nap_us % 1000000) * 1000;
	rte_rcu_qsbr_thread_offline(view_qsbr, w->id);
	nanosleep(&ts, NULL);
	rte_rcu_qsbr_thread_online(view_qsbr, w->id);
	wc->sleeps++;
	wc->sleep_us += w->nap_us;
}

static int worker_main(void *arg)
{
	struct worker *w = arg;
	struct worker_counters *wc = &stats_workers[w->id];
	struct rte_mbuf *pkts[PW_BURST];
	uint64_t t0, t1;

	RTE_PER_LCORE(dp_worker_id) = w->id;
	/* A nap of a few microseconds must not become the kernel's default
	 * 50 us of timer slack. */
	if (w->nap_max_us != 0)
		prctl(PR_SET_TIMERSLACK, 1000UL, 0, 0, 0);
	rte_rcu_qsbr_thread_register(view_qsbr, w->id);
	rte_rcu_qsbr_thread_online(view_qsbr, w->id);
	LOG(INFO, "worker %u polling on lcore %u (cpu %u)", w->id, w->lcore, w->cpu);
	t0 = rte_rdtsc();
	while (likely(!w->stop)) {
		const struct view *v = __atomic_load_n(&view_current, __ATOMIC_ACQUIRE);
		const struct dp_poll *poll = v->poll[w->id];
		uint32_t n_poll = v->n_poll[w->id];
		uint64_t mark = t0;
		unsigned int got = 0;

		w->now = t0;
		for (uint32_t i = 0; i < n_poll; i++) {
			struct dp_port *p = v->ports[poll[i].port];
			uint16_t q = poll[i].q;
			unsigned int n;

			if (!p->link_up)
				continue;
			n = poll_queue(w, v, p, q, pkts);
			if (n == 0)
				continue;
			got += n;
			/* What the queue cost, the empty polls before it
			 * included: one clock read per burst received. */
			t1 = rte_rdtsc();
			struct queue_counters *qc = stats_queue(w->id, poll[i].port, q);
			qc->rx_packets += n;
			qc->rx_cycles += t1 - mark;
			mark = t1;
		}
		if (w->n_dirty != 0)
			txbuf_flush_all(w, v);
		/* Past this point this worker holds nothing from v. */
		rte_rcu_qsbr_quiescent(view_qsbr, w->id);
		if (got != 0) {
			w->empty_turns = 0;
			w->nap_us = 0;
		} else if (w->nap_max_us != 0) {
			worker_nap(w, wc);
		}
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
	return worker_new_cpu(id, lcore, lcore, pool);
}

struct worker *worker_new_cpu(unsigned int id, unsigned int lcore, unsigned int cpu,
			      struct rte_mempool *pool)
{
	struct worker *w = rte_zmalloc_socket("pw_worker", sizeof(*w), RTE_CACHE_LINE_SIZE,
					      rte_lcore_to_socket_id(lcore));

	if (w == NULL)
		return NULL;
	w->id = id;
	w->lcore = lcore;
	w->cpu = cpu;
	w->ctr = stats_ports[id];
	w->pool = pool;
	/* The caller's own worker id is its own business (worker_main, or a
	 * test driving a worker by hand, sets it): podwired's main thread,
	 * which makes every worker, is none of them. */
	return w;
}

int workers_start(const unsigned int *cpus, unsigned int n, struct rte_mempool *pool,
		  uint32_t nap_max_us)
{
	/* Worker i runs on EAL lcore i + 1, which the daemon's --lcores
	 * maps to cpus[i] (the main lcore is 0). */
	for (unsigned int i = 0; i < n; i++) {
		workers[i] = worker_new_cpu(i, i + 1, cpus[i], pool);
		if (workers[i] == NULL)
			return -ENOMEM;
		workers[i]->nap_max_us = nap_max_us;
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
