/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * podwire-bench's pods that outlive their switch (--reconnect) and what
 * --events logs: link changes, gaps in each direction's traffic, marks
 * (SIGUSR2) and the first frame after each, in wall-clock nanoseconds.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <rte_cycles.h>
#include <rte_dev.h>
#include <rte_devargs.h>
#include <rte_ethdev.h>

#include "bench.h"
#include "bench_memif.h"
#include "bench_opts.h"

uint64_t bench_ticks_ns(const struct bench_ctx *ctx, uint64_t ticks)
{
	/* Fixed point, 32 fraction bits: every received frame goes through
	 * here, and a conversion to double and back costs more. */
	return (uint64_t)(((unsigned __int128)ticks * ctx->tsc_ns_q32) >> 32);
}

/* Wall-clock time of TSC t (<= now_tsc), read now: only the difference
 * goes through the TSC rate, so a rate off by a little errs by little. */
static uint64_t wall_ns(const struct bench_ctx *ctx, uint64_t t, uint64_t now_tsc,
			uint64_t now_wall)
{
	return t <= now_tsc ? now_wall - bench_ticks_ns(ctx, now_tsc - t) : now_wall;
}

uint64_t bench_wall_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

void bench_event(const struct bench_ctx *ctx, const char *name, uint64_t t_ns, const char *fmt, ...)
{
	va_list ap;

	if (ctx->events == NULL)
		return;
	fprintf(ctx->events, "{\"event\": \"%s\", \"t_ns\": %" PRIu64, name, t_ns);
	va_start(ap, fmt);
	vfprintf(ctx->events, fmt, ap);
	va_end(ap);
	fputs("}\n", ctx->events);
	fflush(ctx->events);
}

/* A mark: from now on, each direction's first frame sent after it is
 * logged when it arrives (the time a restarted switch took to carry that
 * direction again, when the mark was set as it restarted). */
void bench_mark_take(struct bench_ctx *ctx)
{
	uint64_t t = rte_rdtsc();

	ctx->marks++;
	for (uint16_t a = 0; a < ctx->npods; a++)
		for (uint16_t q = 0; q < ctx->nq; q++)
			for (uint16_t b = 0; b < ctx->npods; b++)
				bench_dir(ctx, a, q, b)->mark_tsc = a == b ? 0 : t;
	bench_event(ctx, "mark", bench_wall_now(), ", \"mark\": %u", ctx->marks);
}

/* The queue of a flow in an event, when pods have more than one. */
static const char *queue_field(const struct bench_ctx *ctx, uint16_t q, char *buf, size_t len)
{
	buf[0] = '\0';
	if (ctx->nq > 1)
		snprintf(buf, len, ", \"queue\": %u", q);
	return buf;
}

/* The first frame of flow src (queue q) -> dst sent after the mark
 * arrived at now; it was sent at TSC sent. */
void bench_mark_reached(struct bench_ctx *ctx, uint16_t src, uint16_t q, uint16_t dst, uint64_t now,
			uint64_t sent)
{
	struct dir *d = bench_dir(ctx, src, q, dst);
	uint64_t t = rte_rdtsc(), w = bench_wall_now();
	char qf[24];

	bench_event(ctx, "resumed", wall_ns(ctx, now, t, w),
		    ", \"mark\": %u, \"src\": %u, \"dst\": %u%s, \"sent_ns\": %" PRIu64
		    ", \"rx_ns\": %" PRIu64 ", \"after_mark_ms\": %.3f",
		    ctx->marks, src, dst, queue_field(ctx, q, qf, sizeof(qf)),
		    wall_ns(ctx, sent, t, w), wall_ns(ctx, now, t, w),
		    (double)bench_ticks_ns(ctx, now - d->mark_tsc) / 1e6);
	d->mark_tsc = 0;
}

/* Flow src (queue q) -> dst was silent from TSC from to now; its frame
 * that ended the gap was sent at TSC sent. */
void bench_gap_seen(struct bench_ctx *ctx, uint16_t src, uint16_t q, uint16_t dst, uint64_t from,
		    uint64_t now, uint64_t sent)
{
	uint64_t t = rte_rdtsc(), w = bench_wall_now();
	char qf[24];

	bench_dir(ctx, src, q, dst)->gaps++;
	bench_event(ctx, "gap", wall_ns(ctx, now, t, w),
		    ", \"src\": %u, \"dst\": %u%s, \"from_ns\": %" PRIu64 ", \"to_ns\": %" PRIu64
		    ", \"sent_ns\": %" PRIu64 ", \"gap_ms\": %.3f",
		    src, dst, queue_field(ctx, q, qf, sizeof(qf)), wall_ns(ctx, from, t, w),
		    wall_ns(ctx, now, t, w), wall_ns(ctx, sent, t, w),
		    (double)bench_ticks_ns(ctx, now - from) / 1e6);
}

/* The pod's device goes: its port is stopped and the device removed
 * (which closes the port), as an application closes an interface whose
 * backend left. */
static void pod_close(struct bench_ctx *ctx, uint16_t p)
{
	struct pod *pd = &ctx->pods[p];
	struct rte_eth_dev_info info;
	int rc = -ENODEV;

	bench_pod_pending_drop(ctx, p, ctx->counting);
	pd->present = false;
	if (pd->own_memif) {
		/* Its memory is its own: unmapped here, between bursts. */
		bench_memif_close(pd->memif);
		pd->memif = NULL;
		return;
	}
	rte_eth_dev_stop(pd->port);
	if (rte_eth_dev_info_get(pd->port, &info) == 0 && info.device != NULL)
		rc = rte_dev_remove(info.device);
	if (rc < 0) {
		fprintf(stderr, "podwire-bench: pod %u (%s): cannot remove the device: %s\n", p,
			pd->name, rte_strerror(-rc));
		rte_eth_dev_close(pd->port);
	}
}

/* Probes the pod's device again from the arguments it was first given
 * and starts it with its MAC; 0, or a negative errno with nothing left
 * behind (its switch is not back yet, most often). */
static int pod_open(struct bench_ctx *ctx, uint16_t p)
{
	struct pod *pd = &ctx->pods[p];
	struct rte_eth_dev_info info;
	uint16_t port;
	int rc;

	if (pd->own_memif)
		return bench_pod_memif_connect(ctx, p, true);
	rc = rte_dev_probe(pd->devargs);
	if (rc < 0)
		return rc;
	rc = rte_eth_dev_get_port_by_name(pd->name, &port);
	if (rc < 0)
		return rc;
	pd->port = port;
	/* A device given no MAC makes up a new one when probed. */
	rte_eth_dev_default_mac_addr_set(port, &pd->mac);
	rc = bench_port_setup(ctx, port, true);
	if (rc == 0) {
		pd->present = true;
		return 0;
	}
	rte_eth_dev_stop(port);
	if (rte_eth_dev_info_get(port, &info) != 0 || info.device == NULL ||
	    rte_dev_remove(info.device) != 0)
		rte_eth_dev_close(port);
	return rc;
}

static void pod_watch(struct bench_ctx *ctx, uint16_t p, uint64_t now)
{
	struct pod *pd = &ctx->pods[p];
	struct bench_reopen *r = &pd->ro;
	struct rte_eth_link link;
	enum bench_reopen_event ev;
	bool up;

	switch (bench_reopen_next(r, now)) {
	case BENCH_REOPEN_NOTHING:
		break;
	case BENCH_REOPEN_CHECK:
		if (pd->own_memif)
			up = pd->memif != NULL && bench_memif_up(pd->memif);
		else
			up = rte_eth_link_get_nowait(pd->port, &link) == 0 &&
			     link.link_status == RTE_ETH_LINK_UP;
		ev = bench_reopen_link(r, &ctx->reopen_conf, now, up);
		if (ev == BENCH_REOPEN_WENT_DOWN)
			bench_event(ctx, "link_down", bench_wall_now(),
				    ", \"pod\": %u, \"device\": \"%s\"", p, pd->name);
		else if (ev == BENCH_REOPEN_CAME_UP)
			bench_event(ctx, "link_up", bench_wall_now(),
				    ", \"pod\": %u, \"device\": \"%s\", \"down_ms\": %.3f, "
				    "\"open_attempts\": %u",
				    p, pd->name,
				    (double)bench_ticks_ns(ctx, now - r->down_at) / 1e6,
				    r->attempts);
		break;
	case BENCH_REOPEN_CLOSE:
		pod_close(ctx, p);
		bench_reopen_closed(r, &ctx->reopen_conf, rte_rdtsc());
		break;
	case BENCH_REOPEN_OPEN:
		bench_reopen_opened(r, &ctx->reopen_conf, rte_rdtsc(), pod_open(ctx, p) == 0);
		break;
	}
}

/* Every millisecond or so: the pods' links (--reconnect, --events). */
void bench_links_service(struct bench_ctx *ctx, uint64_t now)
{
	if (!ctx->watch_links || now < ctx->next_link_service)
		return;
	ctx->next_link_service = now + rte_get_tsc_hz() / 1000;
	if (ctx->mark_wanted) {
		ctx->mark_wanted = 0;
		bench_mark_take(ctx);
	}
	for (uint16_t p = 0; p < ctx->npods; p++)
		pod_watch(ctx, p, now);
}

/* An ethdev pod's device name and arguments, for re-opening it, and
 * whether its driver reconnects by itself (virtio-user as the vhost-user
 * server). */
static int ethdev_identify(struct pod *pd, bool *self)
{
	const struct rte_devargs *da = NULL;
	struct rte_eth_dev_info info;
	const char *args = "";

	if (rte_eth_dev_get_name_by_port(pd->port, pd->name) != 0 ||
	    rte_eth_dev_info_get(pd->port, &info) != 0 || info.device == NULL ||
	    (da = rte_dev_devargs(info.device)) == NULL) {
		fprintf(stderr,
			"podwire-bench: port %u: no device arguments to re-open it with; "
			"--reconnect and --events need pods given as --vdev or --memif\n",
			pd->port);
		return -ENODEV;
	}
	if (da->args != NULL)
		args = da->args;
	pd->devargs = malloc(strlen(da->name) + strlen(args) + 2);
	if (pd->devargs == NULL)
		return -ENOMEM;
	sprintf(pd->devargs, "%s%s%s", da->name, args[0] ? "," : "", args);
	/* "server=1" among the arguments: the pod is the vhost-user server
	 * and takes its switch's new connection itself. */
	if (strncmp(da->name, "net_virtio_user", 15) == 0) {
		char copy[1024], *save = NULL;

		snprintf(copy, sizeof(copy), "%s", args);
		for (char *kv = strtok_r(copy, ",", &save); kv != NULL;
		     kv = strtok_r(NULL, ",", &save))
			if (strcmp(kv, "server=1") == 0)
				*self = true;
	}
	rte_eth_macaddr_get(pd->port, &pd->mac);
	return 0;
}

/* What re-opening pod p takes (a --memif pod has its name, socket and MAC
 * already), and its line in --events. */
int bench_pod_identify(struct bench_ctx *ctx, uint16_t p)
{
	struct pod *pd = &ctx->pods[p];
	bool self = !opt.reconnect;
	char mac[RTE_ETHER_ADDR_FMT_SIZE];
	int rc;

	if (!ctx->watch_links)
		return 0;
	if (!pd->own_memif && (rc = ethdev_identify(pd, &self)) < 0)
		return rc;
	bench_reopen_init(&pd->ro, self, rte_rdtsc());
	bench_mac_str(&pd->mac, mac, sizeof(mac));
	bench_event(ctx, "pod", bench_wall_now(),
		    ", \"pod\": %u, \"device\": \"%s\", \"mac\": \"%s\", \"reconnects_itself\": %s",
		    p, pd->name, mac, self ? "true" : "false");
	return 0;
}
