/* SPDX-License-Identifier: BSD-3-Clause */
/* podwire-bench's results: JSON or a summary, per pod and direction. */
#include <inttypes.h>
#include <stdio.h>

#include <rte_cycles.h>
#include <rte_ether.h>

#include "bench.h"
#include "bench_opts.h"

void bench_mac_str(const struct rte_ether_addr *a, char *buf, size_t len)
{
	rte_ether_format_addr(buf, (uint16_t)len, a);
}

double bench_loss_of(uint64_t tx, uint64_t rx)
{
	return tx == 0 || rx >= tx ? 0 : (double)(tx - rx) / (double)tx;
}

/* Direction a -> b over all its queues' flows. */
static struct dir dir_sum(const struct bench_ctx *ctx, uint16_t a, uint16_t b, uint64_t *lost)
{
	struct dir sum = {0};

	*lost = 0;
	for (uint16_t q = 0; q < ctx->nq; q++) {
		const struct dir *d = bench_dir(ctx, a, q, b);

		sum.tx += d->tx;
		sum.rx += d->rx;
		sum.rx_bytes += d->rx_bytes;
		sum.refused += d->refused;
		sum.out_of_order += d->out_of_order;
		sum.duplicates += d->duplicates;
		sum.gaps += d->gaps;
		*lost += bench_dir_undelivered(d);
	}
	return sum;
}

void bench_print_json(const struct bench_ctx *ctx, const struct trial *t,
		      const struct bench_ndr_result *ndr)
{
	const struct bench_hist *h = &t->hist;
	double s = t->seconds > 0 ? t->seconds : 1;
	bool first = true;
	char mac[RTE_ETHER_ADDR_FMT_SIZE];

	printf("{\n  \"pods\": %u,\n", ctx->npods);
	if (opt.size)
		printf("  \"frame_size\": %u,\n", opt.size);
	else
		printf("  \"frame_size\": \"imix\",\n");
	printf("  \"flows_per_pod\": %u,\n  \"macs_per_pod\": %u,\n  \"queues\": %u,\n", opt.flows,
	       opt.macs, ctx->nq);
	/* offered_pps: the rate of this measurement (the NDR with --ndr); 0 = full speed. */
	printf("  \"target_pps\": %.0f,\n  \"offered_pps\": %.0f,\n  \"duration_s\": %.6f,\n",
	       opt.rate, ctx->offered_pps, t->seconds);
	printf("  \"tx_packets\": %" PRIu64 ",\n  \"tx_ring_full\": %" PRIu64 ",\n", t->tx,
	       t->tx_full);
	printf("  \"rx_packets\": %" PRIu64 ",\n  \"rx_bytes\": %" PRIu64 ",\n", t->rx,
	       t->rx_bytes);
	printf("  \"lost\": %" PRIu64 ",\n  \"loss\": %.9f,\n", t->tx > t->rx ? t->tx - t->rx : 0,
	       bench_loss_of(t->tx, t->rx));
	printf("  \"misdelivered\": %" PRIu64 ",\n  \"foreign\": %" PRIu64
	       ",\n  \"out_of_order\": %" PRIu64 ",\n  \"stale\": %" PRIu64 ",\n",
	       t->misdelivered, t->bad, t->out_of_order, t->stale);
	/* Per flow, summed: refused at the source by a full ring (never
	 * reached the switch), taken by the switch and never delivered,
	 * delivered twice, and late beyond the duplicate check's window. */
	printf("  \"refused\": %" PRIu64 ",\n  \"undelivered\": %" PRIu64
	       ",\n  \"duplicates\": %" PRIu64 ",\n  \"unchecked\": %" PRIu64 ",\n",
	       t->refused, t->undelivered, t->duplicates, t->unchecked);
	printf("  \"tx_mpps\": %.6f,\n  \"rx_mpps\": %.6f,\n  \"rx_gbps\": %.6f,\n",
	       (double)t->tx / s / 1e6, (double)t->rx / s / 1e6, (double)t->rx_bytes * 8 / s / 1e9);
	printf("  \"latency_ns\": {\"samples\": %" PRIu64 ", \"min\": %" PRIu64
	       ", \"avg\": %.1f, \"p50\": %" PRIu64 ", \"p99\": %" PRIu64 ", \"p999\": %" PRIu64
	       ", \"max\": %" PRIu64 "},\n",
	       h->count, h->count ? h->min : 0, bench_hist_mean(h), bench_hist_percentile(h, 0.5),
	       bench_hist_percentile(h, 0.99), bench_hist_percentile(h, 0.999), h->max);
	printf("  \"per_pod\": [");
	for (uint16_t p = 0; p < ctx->npods; p++) {
		const struct pod *pd = &ctx->pods[p];

		bench_mac_str(&pd->mac, mac, sizeof(mac));
		printf(
		    "%s\n    {\"pod\": %u, \"port\": %u, \"mac\": \"%s\", \"tx_packets\": %" PRIu64
		    ", \"rx_packets\": %" PRIu64 ", \"rx_mpps\": %.6f, \"rx_gbps\": %.6f",
		    p ? "," : "", p, pd->port, mac, pd->tx, pd->rx, (double)pd->rx / s / 1e6,
		    (double)pd->rx_bytes * 8 / s / 1e9);
		if (ctx->watch_links)
			printf(", \"device\": \"%s\", \"link_downs\": %" PRIu64
			       ", \"reopens\": %" PRIu64 ", \"open_attempts\": %" PRIu64,
			       pd->name, pd->ro.downs, pd->ro.reopens, pd->ro.opens);
		printf("}");
	}
	printf("\n  ],\n  \"directions\": [");
	for (uint16_t a = 0; a < ctx->npods; a++)
		for (uint16_t b = 0; b < ctx->npods; b++) {
			uint64_t lost;
			const struct dir d = dir_sum(ctx, a, b, &lost);

			if (d.tx == 0)
				continue;
			printf("%s\n    {\"src\": %u, \"dst\": %u, \"tx_packets\": %" PRIu64
			       ", \"rx_packets\": %" PRIu64 ", \"loss\": %.9f, \"rx_mpps\": %.6f, "
			       "\"rx_gbps\": %.6f, \"refused\": %" PRIu64 ", \"lost\": %" PRIu64
			       ", \"out_of_order\": %" PRIu64 ", \"duplicates\": %" PRIu64,
			       first ? "" : ",", a, b, d.tx, d.rx, bench_loss_of(d.tx, d.rx),
			       (double)d.rx / s / 1e6, (double)d.rx_bytes * 8 / s / 1e9, d.refused,
			       lost, d.out_of_order, d.duplicates);
			/* Each queue's flow: lost counts frames the switch took. */
			for (uint16_t q = 0; ctx->nq > 1 && q < ctx->nq; q++) {
				const struct dir *dq = bench_dir(ctx, a, q, b);

				printf("%s{\"queue\": %u, \"tx_packets\": %" PRIu64
				       ", \"rx_packets\": %" PRIu64 ", \"refused\": %" PRIu64
				       ", \"lost\": %" PRIu64 ", \"out_of_order\": %" PRIu64
				       ", \"duplicates\": %" PRIu64 "}%s",
				       q == 0 ? ",\n     \"queues\": [" : ", ", q, dq->tx, dq->rx,
				       dq->refused, bench_dir_undelivered(dq), dq->out_of_order,
				       dq->duplicates, q + 1 == ctx->nq ? "]" : "");
			}
			printf("}");
			first = false;
		}
	printf("\n  ]");
	if (ctx->watch_links) {
		uint64_t gaps = 0;

		for (uint32_t i = 0; i < bench_n_dirs(ctx); i++)
			gaps += ctx->dirs[i].gaps;
		printf(",\n  \"gaps\": %" PRIu64 ", \"gap_ms\": %g", gaps, opt.gap_ms);
	}
	if (ndr != NULL)
		printf(",\n  \"ndr\": {\"ndr_pps\": %.0f, \"ndr_loss\": %.9f, \"pdr_pps\": %.0f, "
		       "\"pdr_loss\": %.9f, \"pdr_threshold\": %g, \"trials\": %u, "
		       "\"trial_s\": %g, \"resolution\": %g}",
		       ndr->ndr_pps, ndr->ndr_loss, ndr->pdr_pps, ndr->pdr_loss, BENCH_PDR_LOSS,
		       ndr->trials, opt.ndr_trial, opt.ndr_resolution);
	printf("\n}\n");
}

void bench_print_summary(const struct bench_ctx *ctx, const struct trial *t,
			 const struct bench_ndr_result *ndr)
{
	const struct bench_hist *h = &t->hist;
	double s = t->seconds > 0 ? t->seconds : 1;

	printf("podwire-bench: %u pods, ", ctx->npods);
	if (opt.size)
		printf("%u-byte frames", opt.size);
	else
		printf("IMIX frames (mean %.1f bytes)", bench_size_mean(0));
	printf(", %u queue(s) per pod, %u flows per queue and %u MACs per pod, ", ctx->nq,
	       opt.flows, opt.macs);
	if (opt.rate > 0)
		printf("offered %.0f pps\n", opt.rate);
	else
		printf("full speed\n");
	if (ndr != NULL)
		printf("NDR %.3f Mpps (loss %.6f%%), PDR(%.1f%%) %.3f Mpps (loss %.4f%%), %u "
		       "trials of %g s\n",
		       ndr->ndr_pps / 1e6, ndr->ndr_loss * 100, BENCH_PDR_LOSS * 100,
		       ndr->pdr_pps / 1e6, ndr->pdr_loss * 100, ndr->trials, opt.ndr_trial);
	printf("%.2f s: tx %" PRIu64 " (%.3f Mpps, %" PRIu64 " refused by a full ring), rx %" PRIu64
	       " (%.3f Mpps, %.3f Gbit/s), loss %.4f%%\n",
	       t->seconds, t->tx, (double)t->tx / s / 1e6, t->tx_full, t->rx,
	       (double)t->rx / s / 1e6, (double)t->rx_bytes * 8 / s / 1e9,
	       bench_loss_of(t->tx, t->rx) * 100);
	if (t->misdelivered || t->bad || t->out_of_order || t->stale || t->duplicates)
		printf("misdelivered (flooded) %" PRIu64 ", foreign %" PRIu64
		       ", out of order %" PRIu64 ", duplicates %" PRIu64
		       ", from an earlier trial %" PRIu64 "\n",
		       t->misdelivered, t->bad, t->out_of_order, t->duplicates, t->stale);
	printf("flows: %" PRIu64 " refused by a full ring at the source, %" PRIu64
	       " taken by the switch and never delivered\n",
	       t->refused, t->undelivered);
	printf("latency us: min %.2f avg %.2f p50 %.2f p99 %.2f p99.9 %.2f max %.2f (%" PRIu64
	       " samples)\n",
	       h->count ? (double)h->min / 1e3 : 0, bench_hist_mean(h) / 1e3,
	       (double)bench_hist_percentile(h, 0.5) / 1e3,
	       (double)bench_hist_percentile(h, 0.99) / 1e3,
	       (double)bench_hist_percentile(h, 0.999) / 1e3, (double)h->max / 1e3, h->count);
	for (uint16_t p = 0; ctx->watch_links && p < ctx->npods; p++) {
		const struct pod *pd = &ctx->pods[p];
		uint64_t gaps = 0;

		for (uint16_t a = 0; a < ctx->npods; a++)
			for (uint16_t q = 0; q < ctx->nq; q++)
				gaps += bench_dir(ctx, a, q, p)->gaps;
		printf("  pod %u (%s): link down %" PRIu64 " times, re-opened %" PRIu64
		       " times in %" PRIu64 " attempts; %" PRIu64 " gaps over %g ms received\n",
		       p, pd->name, pd->ro.downs, pd->ro.reopens, pd->ro.opens, gaps, opt.gap_ms);
	}
	if (ctx->npods <= 16)
		for (uint16_t a = 0; a < ctx->npods; a++)
			for (uint16_t b = 0; b < ctx->npods; b++) {
				uint64_t lost;
				const struct dir d = dir_sum(ctx, a, b, &lost);

				if (d.tx == 0)
					continue;
				printf("  pod %u -> pod %u: tx %" PRIu64 " rx %" PRIu64
				       " (%.3f Mpps, %.3f Gbit/s) loss %.4f%%\n",
				       a, b, d.tx, d.rx, (double)d.rx / s / 1e6,
				       (double)d.rx_bytes * 8 / s / 1e9,
				       bench_loss_of(d.tx, d.rx) * 100);
				for (uint16_t q = 0; ctx->nq > 1 && q < ctx->nq; q++) {
					const struct dir *dq = bench_dir(ctx, a, q, b);

					printf("    queue %u: tx %" PRIu64 " rx %" PRIu64
					       " refused %" PRIu64 " lost %" PRIu64
					       " out of order %" PRIu64 " duplicates %" PRIu64 "\n",
					       q, dq->tx, dq->rx, dq->refused,
					       bench_dir_undelivered(dq), dq->out_of_order,
					       dq->duplicates);
				}
			}
}
