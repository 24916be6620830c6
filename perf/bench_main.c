/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * podwire-bench: N pods in one process. Every ethdev the EAL creates
 * (--vdev net_virtio_user..., net_memif...) is one pod; each pod sends
 * stamped UDP frames from its own MAC(s) to the other pods through the
 * datapath under test, and counts and times what comes back. Everything
 * runs on the main lcore, so the generator costs one core.
 *
 *   podwire-bench [EAL options] -- [--size N|imix] [--flows N] [--macs N]
 *       [--queues N] [--rate PPS] [--duration SEC] [--ndr] [--json]
 *       [--reconnect] [--events FILE] [--gap-ms MS]
 *
 * With --queues N each pod has N queue pairs, and each queue sends flows
 * of its own: every flow (source pod, queue, destination pod) is checked
 * for frames lost, duplicated or out of order, whichever of the switch's
 * workers carry which queue.
 *
 * With --reconnect the pods outlive their switch: a pod whose link goes
 * down re-opens its device (a --memif pod: connects again) until it is
 * up again (bench_outage.h), and
 * --events logs, as they happen, link changes and every gap in the
 * traffic of each direction, with wall-clock times that a script can set
 * beside its own (a restart of the switch). SIGUSR2 sets a mark (say,
 * "the switch restarts now"): for each direction, the first frame sent
 * after the mark that arrives is logged. SIGUSR1 ends the measurement
 * early and reports it as usual.
 *
 * This file: the pods' set-up, their frames and the traffic loop. The
 * options are in bench_opts.c, re-opening pods and --events in
 * bench_events.c, the results in bench_report.c, the shared state in
 * bench.h.
 */
#include <errno.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_cycles.h>
#include <rte_dev.h>
#include <rte_eal.h>
#include <rte_ethdev.h>
#include <rte_lcore.h>
#include <rte_malloc.h>
#include <rte_mbuf.h>

#include "bench.h"
#include "bench_memif.h"
#include "bench_opts.h"
#include "bench_vhost.h"

/* The run's state, for the signal handler: signals carry no argument. */
static struct bench_ctx *signal_ctx;

static void on_signal(int sig)
{
	struct bench_ctx *ctx = signal_ctx;

	if (sig == SIGUSR1)
		ctx->stop_measuring = 1;
	else if (sig == SIGUSR2)
		ctx->mark_wanted = 1;
	else
		ctx->quit = 1;
}

/* Configures and starts a pod's port; quiet: a failure is expected (a
 * device re-opened while its switch is still away) and not reported. */
int bench_port_setup(struct bench_ctx *ctx, uint16_t port, bool quiet)
{
	struct rte_eth_conf conf = {0};
	struct rte_eth_dev_info info;
	/* The driver may round both ring sizes; ask for the same. */
	uint16_t nrx = opt.ring;
	uint16_t ntx = nrx;
	int rc;

	rc = rte_eth_dev_info_get(port, &info);
	if (rc < 0)
		goto err;
	/* Pods that outlive their switch take link interrupts, as testpmd
	 * does: virtio-user as the vhost-user server moves its interrupt
	 * from socket to socket as it reconnects, and unregisters it only
	 * when stopped with them on (otherwise closing it leaves EAL's
	 * interrupt thread a closed descriptor, and it panics). */
	if (ctx->watch_links && info.dev_flags != NULL && (*info.dev_flags & RTE_ETH_DEV_INTR_LSC))
		conf.intr_conf.lsc = 1;
	if (info.max_rx_queues < ctx->nq || info.max_tx_queues < ctx->nq) {
		if (!quiet)
			fprintf(stderr,
				"podwire-bench: port %u (%s) has at most %u rx and %u tx "
				"queues, not --queues %u: give its device queues=%u "
				"(net_virtio_user) or lower --queues\n",
				port, info.device ? rte_dev_name(info.device) : "?",
				info.max_rx_queues, info.max_tx_queues, ctx->nq, ctx->nq);
		return -EINVAL;
	}
	rc = rte_eth_dev_configure(port, ctx->nq, ctx->nq, &conf);
	if (rc < 0)
		goto err;
	rc = rte_eth_dev_adjust_nb_rx_tx_desc(port, &nrx, &ntx);
	if (rc < 0)
		goto err;
	if (opt.size > 1518) {
		uint16_t mtu = (uint16_t)(opt.size - BENCH_FCS_LEN - 14);

		if (rte_eth_dev_set_mtu(port, mtu) < 0)
			fprintf(stderr,
				"podwire-bench: port %u (%s): cannot set MTU %u, frames "
				"may be dropped\n",
				port, info.device ? rte_dev_name(info.device) : "?", mtu);
	}
	for (uint16_t q = 0; q < ctx->nq; q++) {
		rc = rte_eth_rx_queue_setup(port, q, nrx, rte_eth_dev_socket_id(port), NULL,
					    ctx->pool);
		if (rc < 0)
			goto err;
		rc = rte_eth_tx_queue_setup(port, q, ntx, rte_eth_dev_socket_id(port), NULL);
		if (rc < 0)
			goto err;
	}
	rc = rte_eth_dev_start(port);
	if (rc < 0)
		goto err;
	return 0;
err:
	if (!quiet)
		fprintf(stderr, "podwire-bench: port %u: setup failed: %s\n", port,
			rte_strerror(-rc));
	return rc;
}

/* The k-th source MAC of a pod: its own for k = 0, then locally
 * administered addresses that carry the pod and k. */
static void pod_mac(struct bench_ctx *ctx, uint16_t pod, unsigned int k, uint8_t mac[6])
{
	if (k == 0) {
		memcpy(mac, ctx->pods[pod].mac.addr_bytes, 6);
		return;
	}
	mac[0] = 0x06;
	mac[1] = (uint8_t)(pod >> 8);
	mac[2] = (uint8_t)pod;
	mac[3] = (uint8_t)(k >> 16);
	mac[4] = (uint8_t)(k >> 8);
	mac[5] = (uint8_t)k;
}

static void rotation_reset(struct pod_queue *pd)
{
	pd->dst_i = pd->flow_i = pd->imix_i = 0;
	pd->mac_i = 0;
}

static void rotation_next(struct bench_ctx *ctx, struct pod_queue *pd)
{
	if (++pd->imix_i == BENCH_IMIX_PERIOD)
		pd->imix_i = 0;
	if (++pd->dst_i < ctx->npods - 1)
		return;
	pd->dst_i = 0;
	if (++pd->mac_i < opt.macs)
		return;
	pd->mac_i = 0;
	if (++pd->flow_i == opt.flows)
		pd->flow_i = 0;
}

/* Writes the next frame of pod p's queue q into buf (its destination is
 * returned, its length without FCS in *out_len): its headers from the
 * queue's template, then the stamp. tag (NULL: none) remembers which headers buf holds: a
 * buffer of our own that already holds this frame's headers (a memif
 * slot, last filled one ring ago) gets only the stamp. Inlined into each
 * sender, as frame_received into each receiver: as calls, with their
 * spills, they cost the memif generator 13% of its rate (58-60 -> 66-69
 * Mpps through one cross-connect). */
static __rte_always_inline uint16_t frame_write(struct bench_ctx *ctx, uint16_t p, uint16_t q,
						uint8_t *buf, uint64_t now, uint16_t *out_len,
						uint64_t *tag)
{
	struct pod_queue *pd = &ctx->pods[p].q[q];
	uint16_t len = opt.size ? opt.size : bench_imix_len(pd->imix_i);
	uint16_t dst = (uint16_t)(p + 1 + pd->dst_i);
	struct dir *d;
	struct bench_stamp s;
	const uint8_t *dmac, *smac = ctx->pods[p].mac.addr_bytes;
	uint8_t smac_k[6], dmac_k[6];

	if (dst >= ctx->npods)
		dst = (uint16_t)(dst - ctx->npods);
	dmac = ctx->pods[dst].mac.addr_bytes;
	d = bench_dir(ctx, p, q, dst);
	*out_len = (uint16_t)(len - BENCH_FCS_LEN);
	/* What the headers depend on; bit 63 set: never 0, the empty tag. (A
	 * tagged buffer is a slot of one queue's ring: q never changes.) */
	uint64_t key = 1ull << 63 | (uint64_t)len << 44 | (uint64_t)dst << 32 |
		       (uint64_t)pd->mac_i << 16 | pd->flow_i;

	if (tag == NULL || *tag != key) {
		/* Destinations rotate over the peers' MACs too: they learned
		 * them when the peers sent from them. */
		if (pd->mac_i != 0) {
			pod_mac(ctx, dst, pd->mac_i, dmac_k);
			pod_mac(ctx, p, pd->mac_i, smac_k);
			dmac = dmac_k;
			smac = smac_k;
		}
		bench_pkt_fill(buf, len, &pd->tmpl, dmac, smac, bench_pod_ip(dst),
			       (uint16_t)(1024 + pd->flow_i));
		if (tag != NULL)
			*tag = key;
	}
	s = (struct bench_stamp){.src_pod = p, .dst_pod = dst, .seq = d->seq_tx++, .tsc = now};
	bench_stamp_write(buf, &s);
	rotation_next(ctx, pd);
	return dst;
}

static uint16_t frame_next(struct bench_ctx *ctx, uint16_t p, uint16_t q, struct rte_mbuf *m,
			   uint64_t now)
{
	uint16_t len, dst = frame_write(ctx, p, q, rte_pktmbuf_mtod(m, uint8_t *), now, &len, NULL);

	m->data_len = len;
	m->pkt_len = len;
	return dst;
}

/* The rings of a pod of our own, a --memif or a --vhost one: chosen once
 * per burst. */
static inline uint16_t own_tx_slots(struct pod *pd, uint16_t q, uint8_t **buf, uint64_t **tag,
				    uint16_t n)
{
	return pd->vhost != NULL ? bench_vhost_tx_slots(pd->vhost, q, buf, tag, n)
				 : bench_memif_tx_slots(pd->memif, q, buf, tag, n);
}

static inline void own_tx_commit(struct pod *pd, uint16_t q, const uint16_t *len, uint16_t k)
{
	if (pd->vhost != NULL)
		bench_vhost_tx_commit(pd->vhost, q, len, k);
	else
		bench_memif_tx_commit(pd->memif, q, len, k);
}

/* pod_send for a pod of our own (memif or vhost-user): frames are built
 * in the ring's buffers, as many as there is room for. At a set rate what does not fit
 * is built anyway, in a scratch buffer, and counted as lost and refused
 * (its destination is known only once built); at full speed it is not
 * built. */
static unsigned int own_pod_send(struct bench_ctx *ctx, uint16_t p, uint16_t q, unsigned int n,
				 bool count, bool keep)
{
	static uint8_t scratch[BENCH_PKT_MAX_LEN];
	struct pod *pd = &ctx->pods[p];
	uint8_t *buf[BURST];
	uint64_t *tag[BURST];
	uint16_t len[BURST];
	uint64_t now = rte_rdtsc();
	uint16_t k = own_tx_slots(pd, q, buf, tag, (uint16_t)n);

	for (uint16_t i = 0; i < k; i++) {
		uint16_t dst = frame_write(ctx, p, q, buf[i], now, &len[i], tag[i]);

		if (count)
			bench_dir(ctx, p, q, dst)->tx++;
	}
	own_tx_commit(pd, q, len, k);
	for (unsigned int i = k; !keep && i < n; i++) {
		uint16_t l, dst = frame_write(ctx, p, q, scratch, now, &l, NULL);

		if (count) {
			bench_dir(ctx, p, q, dst)->tx++;
			bench_dir(ctx, p, q, dst)->refused++;
		}
	}
	if (count) {
		pd->tx += keep ? k : n;
		pd->tx_full += n - k;
	}
	return n;
}

/* The most frames pod p moves at a time (bench.h). */
static inline unsigned int pod_burst(const struct pod *pd)
{
	return pd->own_memif || pd->vhost != NULL ? BURST : ETH_BURST;
}

/* Sends up to n new frames from queue q of pod p; returns the number
 * offered. At a set rate (keep = false) what a full ring refuses is
 * dropped and counted as lost (and refused: it never reached the switch):
 * the forwarder did not take the offered load. At full speed (keep =
 * true) it is kept and sent first next time, so the pods go as fast as
 * the forwarder takes frames and nothing is built twice. */
static unsigned int pod_send(struct bench_ctx *ctx, uint16_t p, uint16_t q, unsigned int n,
			     bool count, bool keep)
{
	struct rte_mbuf **m;
	struct pod *pd = &ctx->pods[p];
	struct pod_queue *pq = &pd->q[q];
	uint64_t now;
	uint16_t sent, total;

	if (n > pod_burst(pd))
		n = pod_burst(pd);
	if (!pd->present)
		return n; /* its device is being re-opened: its share is skipped */
	if (pd->memif != NULL || pd->vhost != NULL)
		return own_pod_send(ctx, p, q, n, count, keep); /* reads the clock itself */
	now = rte_rdtsc();
	if (pq->npend > 0)
		n = 0; /* the ring was full a moment ago: retry those first */
	if (n > 0) {
		if (rte_pktmbuf_alloc_bulk(ctx->pool, pq->pend, n) < 0)
			return 0;
		for (unsigned int i = 0; i < n; i++) {
			uint16_t dst = frame_next(ctx, p, q, pq->pend[i], now);

			pq->pend_dst[i] = dst;
			if (count)
				bench_dir(ctx, p, q, dst)->tx++;
		}
		pq->npend = (uint16_t)n;
	}
	total = pq->npend;
	m = pq->pend;
	sent = rte_eth_tx_burst(pd->port, q, m, total);
	if (count) {
		pd->tx += keep ? sent : total;
		pd->tx_full += total - sent;
	}
	if (sent == total || !keep) {
		if (sent < total) {
			for (uint16_t i = sent; count && i < total; i++)
				bench_dir(ctx, p, q, pq->pend_dst[i])->refused++;
			rte_pktmbuf_free_bulk(&m[sent], total - sent);
		}
		pq->npend = 0;
	} else if (sent > 0) {
		memmove(m, &m[sent], sizeof(m[0]) * (total - sent));
		memmove(pq->pend_dst, &pq->pend_dst[sent],
			sizeof(pq->pend_dst[0]) * (total - sent));
		pq->npend = (uint16_t)(total - sent);
	}
	return n;
}

/* Drops the frames of pod p still waiting to be sent (at the end of a
 * run, or when its device goes), and takes them out of the per-flow
 * counts they were added to. */
void bench_pod_pending_drop(struct bench_ctx *ctx, uint16_t p, bool count)
{
	for (uint16_t q = 0; q < ctx->nq; q++) {
		struct pod_queue *pq = &ctx->pods[p].q[q];

		for (uint16_t i = 0; count && i < pq->npend; i++)
			bench_dir(ctx, p, q, pq->pend_dst[i])->tx--;
		if (pq->npend > 0)
			rte_pktmbuf_free_bulk(pq->pend, pq->npend);
		pq->npend = 0;
	}
}

static void pending_drop(struct bench_ctx *ctx, bool count)
{
	for (uint16_t p = 0; p < ctx->npods; p++)
		bench_pod_pending_drop(ctx, p, count);
}

/* Marks n sequence numbers from seq as not received yet in a flow's
 * window: they were skipped (lost so far, or still on their way). */
static void seen_clear(uint64_t *seen, uint32_t seq, uint32_t n)
{
	if (n >= BENCH_SEEN_BITS) {
		memset(seen, 0, BENCH_SEEN_WORDS * sizeof(*seen));
		return;
	}
	for (uint32_t i = 0; i < n; i++, seq++)
		seen[(seq / 64) % BENCH_SEEN_WORDS] &= ~(1ull << (seq % 64));
}

/* Counts and times one frame that pod p received: len bytes in all (no
 * FCS), the first seg_len of them at buf. */
static __rte_always_inline void frame_received(struct bench_ctx *ctx, uint16_t p,
					       const uint8_t *buf, uint32_t seg_len, uint32_t len,
					       uint64_t now, struct bench_hist *hist)
{
	struct bench_stamp s;
	struct dir *d;
	uint64_t from, *word, bit;
	uint32_t idx;
	int32_t ahead;

	if (bench_stamp_read(buf, seg_len, &s) < 0 || s.src_pod >= ctx->npods ||
	    s.src_queue >= ctx->nq) {
		ctx->pods[p].bad++;
		return;
	}
	if (s.dst_pod != p) {
		/* Flooded (destination not learned) or misrouted. */
		ctx->pods[p].misdelivered++;
		return;
	}
	idx = bench_dir_idx(ctx, s.src_pod, s.src_queue, p);
	d = &ctx->dirs[idx];
	/* Serial-number arithmetic: sequence numbers wrap. */
	if ((int32_t)(s.seq - d->seq_start) < 0) {
		/* Sent before this trial began: neither counted nor timed. */
		d->stale++;
		return;
	}
	word = &ctx->seen[(size_t)idx * BENCH_SEEN_WORDS + (s.seq / 64) % BENCH_SEEN_WORDS];
	bit = 1ull << (s.seq % 64);
	ahead = (int32_t)(s.seq - d->seq_rx_next);
	if (ahead >= 0) {
		/* The next one, or later: those skipped are not here yet. */
		if (ahead > 0)
			seen_clear(&ctx->seen[(size_t)idx * BENCH_SEEN_WORDS], d->seq_rx_next,
				   (uint32_t)ahead);
		d->seq_rx_next = s.seq + 1;
	} else if ((uint32_t)-ahead > BENCH_SEEN_BITS) {
		/* Later than the window reaches: whether it came before
		 * cannot be told. */
		d->out_of_order++;
		d->unchecked++;
	} else if (*word & bit) {
		d->duplicates++;
		return;
	} else {
		d->out_of_order++;
	}
	*word |= bit;
	if (ctx->gap_ticks != 0 && bench_gap_rx(&d->last_rx, now, ctx->gap_ticks, &from))
		bench_gap_seen(ctx, s.src_pod, s.src_queue, p, from, now, s.tsc);
	if (d->mark_tsc != 0 && s.tsc > d->mark_tsc)
		bench_mark_reached(ctx, s.src_pod, s.src_queue, p, now, s.tsc);
	d->rx++;
	/* Bytes of Ethernet frames with their FCS, as the frame size. */
	d->rx_bytes += len + BENCH_FCS_LEN;
	ctx->pods[p].rx++;
	ctx->pods[p].rx_bytes += len + BENCH_FCS_LEN;
	bench_hist_add(hist, bench_ticks_ns(ctx, now - s.tsc));
}

/* One burst from queue q of a pod of our own (memif or vhost-user);
 * returns how many. */
static int own_pod_recv(struct bench_ctx *ctx, uint16_t p, uint16_t q, bool count,
			struct bench_hist *hist)
{
	struct pod *pd = &ctx->pods[p];
	const uint8_t *buf[BURST];
	uint32_t len[BURST];
	int n = pd->vhost != NULL ? bench_vhost_rx(pd->vhost, q, buf, len, BURST)
				  : bench_memif_rx(pd->memif, q, buf, len, BURST);
	uint64_t now;

	if (n <= 0)
		return 0;
	now = rte_rdtsc();
	for (int i = 0; count && i < n; i++)
		frame_received(ctx, p, buf[i], len[i], len[i], now, hist);
	if (pd->vhost != NULL)
		bench_vhost_rx_done(pd->vhost, q);
	else
		bench_memif_rx_done(pd->memif, q);
	return n;
}

/* One burst from queue q of an ethdev pod; returns how many. */
static int eth_pod_recv(struct bench_ctx *ctx, uint16_t p, uint16_t q, bool count,
			struct bench_hist *hist)
{
	struct rte_mbuf *m[ETH_BURST];
	uint64_t now;
	uint16_t n;

	n = rte_eth_rx_burst(ctx->pods[p].port, q, m, ETH_BURST);
	if (n == 0)
		return 0;
	now = rte_rdtsc();
	for (uint16_t i = 0; count && i < n; i++)
		frame_received(ctx, p, rte_pktmbuf_mtod(m[i], const uint8_t *),
			       rte_pktmbuf_data_len(m[i]), rte_pktmbuf_pkt_len(m[i]), now, hist);
	rte_pktmbuf_free_bulk(m, n);
	return n;
}

/* Receives on every queue of pod p. A queue that gives a full burst is
 * read again, up to two bursts per queue the pods send on: the switch
 * picks the queue it delivers on (a worker's own), so one of ours may
 * get what all the sender's queues sent, and must keep ahead of them, or
 * its ring fills and the switch drops and retries (with --queues 2 and
 * one bounded read per queue, 300,000 tx_full drops in 2 s, and 10%
 * more of the worker's cycles per frame, 2026-11-28). */
static void pod_recv(struct bench_ctx *ctx, uint16_t p, bool count, struct bench_hist *hist)
{
	struct pod *pd = &ctx->pods[p];
	int burst = (int)pod_burst(pd);

	if (!pd->present)
		return;
	for (uint16_t q = 0; q < ctx->nq; q++)
		for (uint16_t k = 0; k < 2 * ctx->nq; k++) {
			int n = pd->memif != NULL || pd->vhost != NULL
				    ? own_pod_recv(ctx, p, q, count, hist)
				    : eth_pod_recv(ctx, p, q, count, hist);

			if (n < burst)
				break;
		}
}

/* Receives on every pod for ms milliseconds: frames still in flight. */
static void drain(struct bench_ctx *ctx, unsigned int ms, bool count, struct bench_hist *hist)
{
	uint64_t end = rte_rdtsc() + rte_get_tsc_hz() / 1000 * ms;
	uint64_t now;

	while ((now = rte_rdtsc()) < end) {
		for (uint16_t p = 0; p < ctx->npods; p++)
			pod_recv(ctx, p, count, hist);
		bench_links_service(ctx, now);
	}
}

/* Each pod sends one frame from each of its MACs to each peer, so that a
 * learning bridge knows every address before anything is measured. */
static void learn(struct bench_ctx *ctx)
{
	for (uint16_t p = 0; p < ctx->npods; p++) {
		unsigned int n = (unsigned int)(ctx->npods - 1) * opt.macs;

		for (uint16_t q = 0; q < ctx->nq; q++)
			rotation_reset(&ctx->pods[p].q[q]);
		/* From queue 0: the switch learns a MAC from any queue. */
		while (n > 0) {
			unsigned int k = RTE_MIN(n, pod_burst(&ctx->pods[p]));

			pod_send(ctx, p, 0, k, false, false);
			n -= k;
			drain(ctx, 1, false, NULL);
		}
	}
	drain(ctx, 200, false, NULL);
}

static void counters_reset(struct bench_ctx *ctx)
{
	for (uint16_t p = 0; p < ctx->npods; p++) {
		ctx->pods[p].tx = ctx->pods[p].tx_full = ctx->pods[p].rx = ctx->pods[p].rx_bytes =
		    0;
		ctx->pods[p].misdelivered = ctx->pods[p].bad = 0;
	}
	for (uint32_t i = 0; i < bench_n_dirs(ctx); i++) {
		struct dir *d = &ctx->dirs[i];

		d->tx = d->rx = d->rx_bytes = d->out_of_order = 0;
		d->stale = d->refused = d->duplicates = d->unchecked = 0;
		d->seq_start = d->seq_rx_next = d->seq_tx;
	}
	memset(ctx->seen, 0, sizeof(*ctx->seen) * BENCH_SEEN_WORDS * bench_n_dirs(ctx));
}

/* Offers rate pps (0 = as fast as possible), spread evenly over the pods
 * and their queues, for seconds; counts only when count is set. Each pod
 * sends, then receives, in turn: every loop visits every pod once, so
 * with many pods the generator neither polls 128 receive queues per burst
 * sent nor lets one pod's ring overflow while it serves the others. */
static void offer(struct bench_ctx *ctx, double rate, double seconds, bool count,
		  struct bench_hist *hist)
{
	uint64_t hz = rte_get_tsc_hz(), start = rte_rdtsc(), end = start + (uint64_t)(seconds * hz);
	uint64_t offered = 0, now;
	/* At a set rate, the pod and queue whose turn it is to send. */
	uint16_t next = 0, next_q = 0;

	ctx->counting = count;
	while (!ctx->quit && !ctx->stop_measuring && (now = rte_rdtsc()) < end) {
		for (uint16_t p = 0; p < ctx->npods; p++) {
			if (rate <= 0) {
				for (uint16_t q = 0; q < ctx->nq; q++)
					pod_send(ctx, p, q, BURST, count, true);
			} else {
				double due = (double)(rte_rdtsc() - start) / (double)hz * rate -
					     (double)offered;

				/* What is due goes out from the pods' queues in
				 * turn, so every queue offers the same share. */
				if (due >= 1) {
					offered += pod_send(
					    ctx, next, next_q,
					    due >= BURST ? BURST : (unsigned int)due, count, false);
					if (++next_q == ctx->nq) {
						next_q = 0;
						next =
						    (uint16_t)(next + 1 == ctx->npods ? 0
										      : next + 1);
					}
				}
			}
			pod_recv(ctx, p, count, hist);
		}
		bench_links_service(ctx, now);
	}
	pending_drop(ctx, count);
}

static int run_trial(struct bench_ctx *ctx, double rate, double seconds, struct trial *t)
{
	uint64_t t0, t1;

	memset(t, 0, sizeof(*t));
	bench_hist_reset(&t->hist);
	counters_reset(ctx);
	t0 = rte_rdtsc();
	offer(ctx, rate, seconds, true, &t->hist);
	t1 = rte_rdtsc();
	/* What is still in the rings arrives late but is not lost. */
	drain(ctx, 100, true, &t->hist);
	if (ctx->quit)
		return -EINTR;
	t->seconds = (double)(t1 - t0) / (double)rte_get_tsc_hz();
	for (uint16_t p = 0; p < ctx->npods; p++) {
		t->tx += ctx->pods[p].tx;
		t->tx_full += ctx->pods[p].tx_full;
		t->rx += ctx->pods[p].rx;
		t->rx_bytes += ctx->pods[p].rx_bytes;
		t->misdelivered += ctx->pods[p].misdelivered;
		t->bad += ctx->pods[p].bad;
	}
	for (uint32_t i = 0; i < bench_n_dirs(ctx); i++) {
		const struct dir *d = &ctx->dirs[i];

		t->out_of_order += d->out_of_order;
		t->stale += d->stale;
		t->refused += d->refused;
		t->duplicates += d->duplicates;
		t->unchecked += d->unchecked;
		t->undelivered += bench_dir_undelivered(d);
	}
	return 0;
}

/* What each trial of an NDR search runs with (bench_ndr_pdr's arg). */
struct ndr_arg {
	struct bench_ctx *ctx;
	struct trial *t;
};

static int ndr_trial(double rate, double *loss, void *arg)
{
	const struct ndr_arg *a = arg;
	struct trial *t = a->t;
	int rc = run_trial(a->ctx, rate, opt.ndr_trial, t);

	if (rc < 0)
		return rc;
	*loss = bench_loss_of(t->tx, t->rx);
	if (!opt.json)
		printf("  trial %.0f pps: loss %.4f%%\n", rate, *loss * 100);
	return 0;
}

static int run(struct bench_ctx *ctx)
{
	struct bench_ndr_result ndr_res;
	struct trial *t;
	double rate = opt.rate;
	int rc;

	t = rte_zmalloc("bench_trial", sizeof(*t), 0);
	if (t == NULL)
		return -ENOMEM;
	learn(ctx);
	if (opt.warmup > 0)
		offer(ctx, opt.rate, opt.warmup, false, NULL);
	drain(ctx, 100, false, NULL);
	if (opt.ndr) {
		struct bench_ndr_conf conf = {.max_trials = 40};

		if (rate <= 0) {
			/* The top of the search: what the generator offers at full speed. */
			rc = run_trial(ctx, 0, opt.ndr_trial, t);
			if (rc < 0)
				goto out;
			rate = (double)t->tx / t->seconds;
		}
		conf.max_rate = rate;
		conf.min_rate = rate * opt.ndr_resolution;
		conf.resolution = rate * opt.ndr_resolution;
		rc = bench_ndr_pdr(&conf, ndr_trial, &(struct ndr_arg){.ctx = ctx, .t = t},
				   &ndr_res);
		if (rc < 0)
			goto out;
		rate = ndr_res.ndr_pps;
	}
	ctx->offered_pps = rate;
	bench_event(ctx, "measure", bench_wall_now(), ", \"duration_s\": %g, \"rate_pps\": %.0f",
		    opt.duration, rate);
	/* On stderr too: a script may read the switch's counters over just
	 * the measured window (perf/suite.sh does). */
	fprintf(stderr, "podwire-bench: measuring for %g s\n", opt.duration);
	rc = run_trial(ctx, rate, opt.duration, t);
	bench_event(ctx, "end", bench_wall_now(), ", \"measured_s\": %.6f", t->seconds);
	if (rc < 0)
		goto out;
	if (opt.json)
		bench_print_json(ctx, t, opt.ndr ? &ndr_res : NULL);
	else
		bench_print_summary(ctx, t, opt.ndr ? &ndr_res : NULL);
	fflush(stdout);
out:
	if (rc == -EINTR)
		fprintf(stderr, "podwire-bench: interrupted\n");
	rte_free(t);
	return rc;
}

/* Each queue's headers for pod p, from its MAC (known by now). */
static void pod_templates(struct bench_ctx *ctx, uint16_t p)
{
	struct bench_pkt_hdr h = {.dst_port = BENCH_UDP_DST_PORT};

	memcpy(h.src_mac, ctx->pods[p].mac.addr_bytes, 6);
	for (uint16_t q = 0; q < ctx->nq; q++) {
		h.src_ip = bench_pod_queue_ip(p, q);
		bench_pkt_tmpl_init(&ctx->pods[p].q[q].tmpl, &h);
	}
}

/* A --memif SOCK[,mac=MAC] pod: connected, its rings the size of --ring
 * (a power of two here), buffers that hold the largest frame whole. */
static int memif_pod_open(struct bench_ctx *ctx, uint16_t p, const char *arg)
{
	struct pod *pd = &ctx->pods[p];
	char path[256];
	const char *mac = strstr(arg, ",mac=");
	size_t plen = mac != NULL ? (size_t)(mac - arg) : strlen(arg);
	uint32_t frame = (opt.size == 0 ? 1518u : opt.size) - BENCH_FCS_LEN;
	uint32_t buf_size = RTE_MAX(2048u, RTE_ALIGN_CEIL(frame, 64u));

	if (plen == 0 || plen >= sizeof(path)) {
		fprintf(stderr, "podwire-bench: --memif \"%s\": expected SOCKET[,mac=MAC]\n", arg);
		return -EINVAL;
	}
	if (!rte_is_power_of_2(opt.ring)) {
		fprintf(stderr, "podwire-bench: --ring %u: memif rings take a power of two\n",
			opt.ring);
		return -EINVAL;
	}
	memcpy(path, arg, plen);
	path[plen] = '\0';
	pd->own_memif = true;
	pd->memif_buf_size = buf_size;
	pd->devargs = strdup(path);
	if (pd->devargs == NULL)
		return -ENOMEM;
	snprintf(pd->name, sizeof(pd->name), "memif%u", p);
	if (mac != NULL) {
		if (rte_ether_unformat_addr(mac + 5, &pd->mac) < 0) {
			fprintf(stderr,
				"podwire-bench: --memif %s: mac \"%s\": expected "
				"xx:xx:xx:xx:xx:xx\n",
				path, mac + 5);
			return -EINVAL;
		}
	} else {
		/* 02:62:65:00:hi:lo: locally administered, one per pod. */
		pd->mac = (struct rte_ether_addr){{0x02, 0x62, 0x65, 0, p >> 8, p & 0xff}};
	}
	return bench_pod_memif_connect(ctx, p, false);
}

/* A switch started just before the generator may take a while to serve
 * its vhost-user sockets (testpmd's appear once it has probed them). */
#define BENCH_VHOST_START_MS 10000

/* A --vhost SOCK[,mac=MAC][,packed][,server] pod: connected (or, with
 * server, connected to), its split (or packed) rings of --ring descriptors (a power of two),
 * buffers that hold the virtio-net header and the largest frame whole. */
static int vhost_pod_open(struct bench_ctx *ctx, uint16_t p, const char *arg)
{
	struct pod *pd = &ctx->pods[p];
	char copy[512], err[512], *save = NULL, *path, *kv;
	uint32_t frame = (opt.size == 0 ? 1518u : opt.size) - BENCH_FCS_LEN;
	/* Buffers an odd number of cache lines apart: at a power-of-two
	 * stride (2048) every buffer's first line falls in the same few
	 * cache sets, and the switch, which reads and writes them, misses. */
	uint32_t buf_size = RTE_ALIGN_CEIL(frame + BENCH_VHOST_NET_HDR, 64u) | 64u;
	unsigned int flags = 0;
	bool mac = false;

	snprintf(copy, sizeof(copy), "%s", arg);
	path = strtok_r(copy, ",", &save);
	if (path == NULL || arg[0] == ',' || strlen(arg) >= sizeof(copy)) {
		fprintf(
		    stderr,
		    "podwire-bench: --vhost \"%s\": expected SOCKET[,mac=MAC][,packed][,server]\n",
		    arg);
		return -EINVAL;
	}
	while ((kv = strtok_r(NULL, ",", &save)) != NULL) {
		if (strcmp(kv, "server") == 0) {
			flags |= BENCH_VHOST_SERVER;
		} else if (strcmp(kv, "packed") == 0) {
			flags |= BENCH_VHOST_PACKED;
		} else if (strncmp(kv, "mac=", 4) == 0) {
			if (rte_ether_unformat_addr(kv + 4, &pd->mac) < 0) {
				fprintf(stderr,
					"podwire-bench: --vhost %s: mac \"%s\": expected "
					"xx:xx:xx:xx:xx:xx\n",
					path, kv + 4);
				return -EINVAL;
			}
			mac = true;
		} else {
			fprintf(stderr,
				"podwire-bench: --vhost %s: \"%s\": expected mac=MAC, packed or "
				"server\n",
				path, kv);
			return -EINVAL;
		}
	}
	pd->devargs = strdup(path);
	if (pd->devargs == NULL)
		return -ENOMEM;
	snprintf(pd->name, sizeof(pd->name), "vhost%u", p);
	/* 02:62:65:00:hi:lo: locally administered, one per pod. */
	if (!mac)
		pd->mac = (struct rte_ether_addr){{0x02, 0x62, 0x65, 0, p >> 8, p & 0xff}};
	pd->vhost = bench_vhost_open(path, flags, opt.ring, buf_size, ctx->nq, BENCH_VHOST_START_MS,
				     err, sizeof(err));
	if (pd->vhost == NULL) {
		fprintf(stderr, "podwire-bench: --vhost %s: %s\n", path, err);
		return -EIO;
	}
	pd->present = true;
	return 0;
}

/* A switch started just before the generator may take a while to serve
 * its memif sockets (bench_memif_open): testpmd's first pool on a fresh
 * machine takes seconds. */
#define BENCH_MEMIF_START_MS 10000

int bench_pod_memif_connect(struct bench_ctx *ctx, uint16_t p, bool reopen)
{
	struct pod *pd = &ctx->pods[p];
	char err[512];

	pd->memif = bench_memif_open_queues(pd->devargs, (uint8_t)rte_log2_u32(opt.ring),
					    pd->memif_buf_size, ctx->nq,
					    reopen ? 0 : BENCH_MEMIF_START_MS, err, sizeof(err));
	if (pd->memif == NULL) {
		if (!reopen)
			fprintf(stderr, "podwire-bench: --memif %s: %s\n", pd->devargs, err);
		return -EIO;
	}
	if (!reopen && err[0] != '\0')
		fprintf(stderr, "podwire-bench: --memif %s: %s\n", pd->devargs, err);
	pd->present = true;
	return 0;
}

int main(int argc, char **argv)
{
	unsigned int nb_mbufs, room;
	struct bench_ctx run_ctx = {0}, *ctx = &run_ctx;
	uint16_t port;
	int rc, n;

	n = rte_eal_init(argc, argv);
	if (n < 0) {
		fprintf(stderr, "podwire-bench: EAL init failed: %s\n", rte_strerror(rte_errno));
		return 1;
	}
	argc -= n;
	argv += n;
	argv[0] = (char *)"podwire-bench";
	rc = bench_opts_parse(argc, argv);
	if (rc < 0)
		goto out;
	signal_ctx = ctx;
	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	signal(SIGUSR1, on_signal);
	signal(SIGUSR2, on_signal);
	/* A device closed after its backend died still says goodbye on the
	 * dead socket (virtio-user's vhost-user messages). */
	signal(SIGPIPE, SIG_IGN);
	ctx->tsc_ns = 1e9 / (double)rte_get_tsc_hz();
	ctx->tsc_ns_q32 = (uint64_t)(ctx->tsc_ns * 4294967296.0 + 0.5);

	ctx->npods = (uint16_t)(rte_eth_dev_count_avail() + opt.n_memif + opt.n_vhost);
	if (ctx->npods < 2 || ctx->npods > MAX_PODS) {
		fprintf(stderr,
			"podwire-bench: %u pods: need 2..%d, one per --vdev (e.g. "
			"--vdev net_virtio_user0,path=SOCK,mac=MAC), --memif or --vhost\n",
			ctx->npods, MAX_PODS);
		rc = -EINVAL;
		goto out;
	}
	ctx->nq = opt.queues;
	ctx->pods = rte_zmalloc("bench_pods", sizeof(*ctx->pods) * ctx->npods, 0);
	ctx->pq = rte_zmalloc("bench_queues", sizeof(*ctx->pq) * ctx->npods * ctx->nq, 0);
	ctx->dirs = rte_zmalloc("bench_dirs", sizeof(*ctx->dirs) * bench_n_dirs(ctx), 0);
	/* Written per frame but not by the switch: ordinary memory. */
	ctx->seen = calloc((size_t)bench_n_dirs(ctx) * BENCH_SEEN_WORDS, sizeof(*ctx->seen));
	/* Room for the largest frame plus what drivers add to the MTU (VLAN tags). */
	room = (opt.size == 0 ? 1518u : opt.size) + RTE_PKTMBUF_HEADROOM + 64;
	if (room < RTE_MBUF_DEFAULT_BUF_SIZE)
		room = RTE_MBUF_DEFAULT_BUF_SIZE;
	nb_mbufs = ctx->npods * ctx->nq * (2u * opt.ring + 2 * BURST) + 4096;
	ctx->pool = rte_pktmbuf_pool_create("bench_pool", nb_mbufs, 256, 0, (uint16_t)room,
					    (int)rte_socket_id());
	if (ctx->pods == NULL || ctx->pq == NULL || ctx->dirs == NULL || ctx->seen == NULL ||
	    ctx->pool == NULL) {
		fprintf(stderr,
			"podwire-bench: out of memory for %u pods of %u queue(s) (%u mbufs of "
			"%u bytes); lower --ring or --queues, or add hugepages\n",
			ctx->npods, ctx->nq, nb_mbufs, room);
		rc = -ENOMEM;
		goto out;
	}
	if (opt.events != NULL) {
		ctx->events = fopen(opt.events, "a");
		if (ctx->events == NULL) {
			fprintf(stderr, "podwire-bench: --events %s: %s\n", opt.events,
				strerror(errno));
			rc = -errno;
			goto out;
		}
	}
	ctx->watch_links = opt.reconnect || opt.events != NULL;
	if (ctx->watch_links) {
		uint64_t ms = rte_get_tsc_hz() / 1000;

		ctx->gap_ticks = (uint64_t)(opt.gap_ms * (double)ms);
		ctx->reopen_conf = (struct bench_reopen_conf){
		    .poll = 5 * ms,
		    .quiet = 100 * ms,
		    .retry_min = 10 * ms,
		    .retry_max = 50 * ms,
		    .open_timeout = 3000 * ms,
		};
	}
	for (uint16_t p = 0; p < ctx->npods; p++)
		ctx->pods[p].q = &ctx->pq[p * ctx->nq];
	n = 0;
	RTE_ETH_FOREACH_DEV(port)
	{
		ctx->pods[n].port = port;
		ctx->pods[n].present = true;
		rc = bench_pod_identify(ctx, (uint16_t)n);
		if (rc < 0)
			goto out;
		rte_eth_macaddr_get(port, &ctx->pods[n].mac);
		pod_templates(ctx, (uint16_t)n);
		rc = bench_port_setup(ctx, port, false);
		if (rc < 0)
			goto out;
		n++;
	}
	for (uint16_t i = 0; i < opt.n_memif; i++, n++) {
		rc = memif_pod_open(ctx, (uint16_t)n, opt.memif[i]);
		if (rc < 0)
			goto out;
		rc = bench_pod_identify(ctx, (uint16_t)n);
		if (rc < 0)
			goto out;
		pod_templates(ctx, (uint16_t)n);
	}
	for (uint16_t i = 0; i < opt.n_vhost; i++, n++) {
		rc = vhost_pod_open(ctx, (uint16_t)n, opt.vhost[i]);
		if (rc < 0)
			goto out;
		pod_templates(ctx, (uint16_t)n);
	}
	/* The DUT sees the link once the frontend is up; give it a moment. */
	rte_delay_ms(500);
	rc = run(ctx);
out:
	if (ctx->pods != NULL)
		for (uint16_t p = 0; p < ctx->npods; p++) {
			if (ctx->pods[p].own_memif) {
				bench_memif_close(ctx->pods[p].memif);
			} else if (ctx->pods[p].vhost != NULL) {
				if (bench_vhost_error(ctx->pods[p].vhost) != NULL)
					fprintf(stderr, "podwire-bench: --vhost %s: %s\n",
						ctx->pods[p].devargs,
						bench_vhost_error(ctx->pods[p].vhost));
				bench_vhost_close(ctx->pods[p].vhost);
			} else if (ctx->pods[p].present) {
				rte_eth_dev_stop(ctx->pods[p].port);
				rte_eth_dev_close(ctx->pods[p].port);
			}
			free(ctx->pods[p].devargs);
		}
	if (ctx->events != NULL)
		fclose(ctx->events);
	free(ctx->seen);
	rte_free(ctx->dirs);
	rte_free(ctx->pq);
	rte_free(ctx->pods);
	rte_mempool_free(ctx->pool);
	rte_eal_cleanup();
	return rc < 0 ? 1 : 0;
}
