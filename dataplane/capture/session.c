/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A capture's life: made by capture.start, started once its connection is
 * handed over, then every millisecond its workers' rings are drained into
 * pcapng blocks (librte_pcapng formats each packet) and what the client
 * can take is sent, without ever blocking the control thread. A client
 * slower than the ports leaves the blocks waiting; past OUT_MAX the rings
 * are left to fill, and the workers skip and count what does not fit.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/queue.h>
#include <sys/socket.h>
#include <sys/timerfd.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include <rte_bpf.h>
#include <rte_cycles.h>
#include <rte_malloc.h>
#include <rte_pcapng.h>
#include <rte_ring.h>

#include "api.h"
#include "capture/capture.h"
#include "capture/filter.h"
#include "capture/pcapng.h"
#include "core/loop.h"
#include "core/log.h"
#include "core/module.h"
#include "datapath/worker.h"
#include "model/network.h"

PW_LOG_TYPE("capture");

#define RING_SIZE     2048	 /* per worker */
#define MBUF_DATA     2048	 /* bytes per copy mbuf; larger frames take a chain */
#define FRAME_MAX     9216	 /* no frame podwired forwards is longer */
#define OUT_MAX	      (8u << 20) /* bytes waiting for the client before rings fill */
#define DRAIN_BURST   64
#define TICK_NS	      1000000	  /* drain and send every millisecond */
#define CLOSE_WAIT_NS 10000000000 /* a finished capture's client gets 10 s to read */

enum state { CAP_NEW, CAP_RUNNING, CAP_CLOSING };

struct cap_port {
	char name[API_NAME_MAX + 1];
	struct port *port; /* compared, never followed once the port may be gone */
};

struct capture {
	struct dp_capture dp; /* what workers see */
	int id;
	enum state state;
	unsigned int n_ports;
	struct cap_port ports[CAPTURE_MAX_IFS];
	uint64_t count;
	uint32_t duration;
	char filter[512];
	struct rte_mempool *epb_pool; /* librte_pcapng's packet blocks */
	uint64_t ctl_skipped[CAPTURE_MAX_IFS];
	int fd, tfd;
	struct loop_watch *fd_watch, *tick_watch;
	struct capbuf out;
	uint64_t written, written_bytes;
	uint64_t start_ns, start_mono, close_by;
	uint64_t base_tsc, base_ns; /* TSC to time: a TSC and the time then */
	TAILQ_ENTRY(capture) next;
};

static TAILQ_HEAD(, capture) captures = TAILQ_HEAD_INITIALIZER(captures);
static int next_id = 1;

static uint64_t now_ns(clockid_t clk)
{
	struct timespec ts;

	clock_gettime(clk, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

int capture_id(const struct capture *c)
{
	return c->id;
}

static void capture_free(struct capture *c)
{
	struct rte_mbuf *m[DRAIN_BURST];

	loop_watch_del(c->fd_watch);
	loop_watch_del(c->tick_watch);
	if (c->tfd >= 0)
		close(c->tfd);
	if (c->fd >= 0)
		close(c->fd);
	for (unsigned int w = 0; w < PW_MAX_WORKERS; w++) {
		unsigned int n;

		if (c->dp.ring[w] == NULL)
			continue;
		while ((n = rte_ring_sc_dequeue_burst(c->dp.ring[w], (void **)m, DRAIN_BURST,
						      NULL)) != 0)
			rte_pktmbuf_free_bulk(m, n);
		rte_ring_free(c->dp.ring[w]);
	}
	rte_mempool_free(c->dp.pool);
	rte_mempool_free(c->epb_pool);
	rte_bpf_destroy(c->dp.filter);
	rte_free(c->dp.ctr);
	capbuf_free(&c->out);
	free(c);
}

void capture_discard(struct capture *c)
{
	if (c != NULL)
		capture_free(c);
}

int capture_create(const struct capture_req *r, struct capture **out, char *msg, size_t len)
{
	uint32_t snap = RTE_MIN(r->snaplen, (uint32_t)FRAME_MAX);
	struct capture *c = calloc(1, sizeof(*c));
	char name[RTE_MEMZONE_NAMESIZE];
	unsigned int nw = n_workers;
	int rc;

	if (c == NULL) {
		snprintf(msg, len, "capture: out of memory");
		return -ENOMEM;
	}
	c->id = next_id++;
	c->fd = c->tfd = -1;
	c->dp.dirs = r->dirs;
	c->dp.snaplen = r->snaplen;
	c->count = r->count;
	c->duration = r->duration;
	snprintf(c->filter, sizeof(c->filter), "%s", r->filter);
	c->n_ports = r->n_ports;
	for (unsigned int i = 0; i < r->n_ports; i++) {
		snprintf(c->ports[i].name, sizeof(c->ports[i].name), "%s", r->ports[i]->conf.name);
		c->ports[i].port = r->ports[i];
	}
	if (r->filter[0] != '\0') {
		rc = capture_filter_load(r->filter, snap, &c->dp.filter, &c->dp.jit, msg, len);
		if (rc != 0) {
			capture_free(c);
			return rc;
		}
	}
	c->dp.ctr =
	    rte_zmalloc("pw_capture_ctr", nw * sizeof(struct capture_wctr), RTE_CACHE_LINE_SIZE);
	snprintf(name, sizeof(name), "pwcap%d", c->id);
	c->dp.pool = rte_pktmbuf_pool_create(
	    name, nw * RING_SIZE + 512, 64,
	    RTE_ALIGN(sizeof(struct capture_meta), RTE_MBUF_PRIV_ALIGN),
	    (uint16_t)(RTE_PKTMBUF_HEADROOM + RTE_MIN(snap, (uint32_t)MBUF_DATA)), rte_socket_id());
	snprintf(name, sizeof(name), "pwcap%d_epb", c->id);
	c->epb_pool = rte_pktmbuf_pool_create(
	    name, 2 * DRAIN_BURST, 0, 0,
	    (uint16_t)(RTE_PKTMBUF_HEADROOM + rte_pcapng_mbuf_size(snap)), rte_socket_id());
	for (unsigned int w = 0; w < nw && c->dp.pool != NULL; w++) {
		snprintf(name, sizeof(name), "pwcap%d_w%u", c->id, w);
		c->dp.ring[w] = rte_ring_create(name, RING_SIZE, rte_socket_id(),
						RING_F_SP_ENQ | RING_F_SC_DEQ);
		if (c->dp.ring[w] == NULL)
			break;
	}
	if (c->dp.ctr == NULL || c->dp.pool == NULL || c->epb_pool == NULL ||
	    c->dp.ring[nw - 1] == NULL) {
		snprintf(msg, len,
			 "capture: no hugepage memory for its buffers (about %u MiB); stop "
			 "another capture or give podwired more hugepages",
			 (nw * RING_SIZE + 512) * (MBUF_DATA + 256) >> 20);
		capture_free(c);
		return -ENOMEM;
	}
	*out = c;
	return 0;
}

/* Stops the workers copying: afterwards no worker holds anything of c. */
static void detach(struct capture *c)
{
	bool any = false;

	for (unsigned int i = 0; i < c->n_ports; i++) {
		struct port *p = port_find(c->ports[i].name);

		if (p == NULL || p != c->ports[i].port || p->dp.capture != &c->dp)
			continue;
		__atomic_store_n(&p->dp.observe,
				 (uint8_t)(p->dp.observe & ~(DP_OBS_CAP_RX | DP_OBS_CAP_TX)),
				 __ATOMIC_RELEASE);
		__atomic_store_n(&p->dp.capture, NULL, __ATOMIC_RELEASE);
		any = true;
	}
	if (any)
		view_wait();
}

void capture_start(struct capture *c)
{
	uint8_t bits = (uint8_t)((c->dp.dirs & CAPTURE_IN ? DP_OBS_CAP_RX : 0) |
				 (c->dp.dirs & CAPTURE_OUT ? DP_OBS_CAP_TX : 0));

	for (unsigned int i = 0; i < c->n_ports; i++) {
		struct port *p = c->ports[i].port;

		p->dp.capture_if = (uint16_t)i;
		__atomic_store_n(&p->dp.capture, &c->dp, __ATOMIC_RELEASE);
		__atomic_store_n(&p->dp.observe, (uint8_t)(p->dp.observe | bits), __ATOMIC_RELEASE);
	}
	c->state = CAP_RUNNING;
	c->base_tsc = rte_rdtsc();
	c->start_ns = c->base_ns = now_ns(CLOCK_REALTIME);
	c->start_mono = now_ns(CLOCK_MONOTONIC);
	TAILQ_INSERT_TAIL(&captures, c, next);
	LOG(INFO, "capture %d started on %u port(s)%s%s", c->id, c->n_ports,
	    c->filter[0] ? ", filter " : "", c->filter);
}

/* Frames of one interface, summed over the workers and the control
 * thread's own skips. */
static void if_counts(const struct capture *c, unsigned int i, uint64_t *matched, uint64_t *skipped)
{
	*matched = 0;
	*skipped = c->ctl_skipped[i];
	for (unsigned int w = 0; w < n_workers; w++) {
		const volatile struct capture_ctr *k = &c->dp.ctr[w].ifs[i];

		*matched += k->matched;
		*skipped += k->skipped;
	}
}

/* A worker's TSC stamp as ns since the epoch (a stamp may be a little
 * older than the base: the difference is signed). */
static uint64_t tsc_to_ns(const struct capture *c, uint64_t tsc)
{
	__int128 d = (__int128)(int64_t)(tsc - c->base_tsc) * 1000000000;

	return c->base_ns + (uint64_t)(int64_t)(d / (__int128)rte_get_tsc_hz());
}

/* Moves the rings' copies into pcapng blocks, up to the count; with all,
 * whatever the client has not taken yet. */
static void drain(struct capture *c, bool all)
{
	struct rte_mbuf *m[DRAIN_BURST];

	for (unsigned int w = 0; w < n_workers; w++) {
		unsigned int n;

		while ((all || capbuf_pending(&c->out) < OUT_MAX) &&
		       (n = rte_ring_sc_dequeue_burst(c->dp.ring[w], (void **)m, DRAIN_BURST,
						      NULL)) != 0) {
			for (unsigned int i = 0; i < n; i++) {
				const struct capture_meta *cm = capture_meta(m[i]);
				struct rte_mbuf *e = NULL;
				char comment[64];

				if (c->count != 0 && c->written >= c->count)
					goto done; /* past the count: not written */
				e = rte_pcapng_copy(
				    cm->iface, 0, m[i], c->epb_pool, UINT32_MAX, cm->tsc,
				    cm->dir == CAPTURE_IN ? RTE_PCAPNG_DIRECTION_IN
							  : RTE_PCAPNG_DIRECTION_OUT);
				if (cm->drop < DROP_MAX)
					snprintf(comment, sizeof(comment), "dropped: %s",
						 drop_names[cm->drop]);
				if (e == NULL ||
				    pcapng_packet(&c->out, e, cm->iface, cm->orig_len,
						  tsc_to_ns(c, cm->tsc),
						  cm->drop < DROP_MAX ? comment : NULL) != 0) {
					LOG(DEBUG, "capture %d: a copy could not be formatted (%s)",
					    c->id, e == NULL ? "no buffer" : "pcapng");
					c->ctl_skipped[cm->iface]++;
					goto done;
				}
				c->written++;
			done:
				rte_pktmbuf_free(e);
			}
			rte_pktmbuf_free_bulk(m, n);
		}
	}
}

/* Sends what the client can take now. -EPIPE once it is gone. */
static int flush(struct capture *c)
{
	while (capbuf_pending(&c->out) != 0) {
		ssize_t n = send(c->fd, c->out.data + c->out.off, capbuf_pending(&c->out),
				 MSG_NOSIGNAL | MSG_DONTWAIT);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
			return 0;
		if (n <= 0)
			return -EPIPE;
		c->out.off += (size_t)n;
		c->written_bytes += (uint64_t)n;
	}
	c->out.off = c->out.len = 0;
	return 0;
}

static void capture_end(struct capture *c)
{
	LOG(INFO, "capture %d ended: %llu frames, %llu bytes sent", c->id,
	    (unsigned long long)c->written, (unsigned long long)c->written_bytes);
	TAILQ_REMOVE(&captures, c, next);
	capture_free(c);
}

/* The client went away: nothing more is sent. */
static void client_gone(struct capture *c)
{
	if (c->state == CAP_RUNNING)
		detach(c);
	LOG(INFO, "capture %d: its client went away", c->id);
	capture_end(c);
}

/* The capture is over (count, duration, a port gone, or the client asked):
 * the last copies and the statistics go out, then the connection closes. */
static void finish(struct capture *c, const char *why)
{
	uint64_t end = now_ns(CLOCK_REALTIME);

	detach(c);
	drain(c, true);
	for (unsigned int i = 0; i < c->n_ports; i++) {
		uint64_t matched, skipped;
		char comment[128];

		if_counts(c, i, &matched, &skipped);
		snprintf(comment, sizeof(comment), "%s; %llu frames not captured: ring full", why,
			 (unsigned long long)skipped);
		pcapng_stats(&c->out, i, end, c->start_ns, end, matched, skipped, comment);
	}
	c->state = CAP_CLOSING;
	c->close_by = now_ns(CLOCK_MONOTONIC) + CLOSE_WAIT_NS;
	LOG(INFO, "capture %d finishing: %s", c->id, why);
}

/* A port of the capture was deleted (or replaced by one of its name). */
static const char *port_gone(const struct capture *c)
{
	for (unsigned int i = 0; i < c->n_ports; i++) {
		struct port *p = port_find(c->ports[i].name);

		if (p == NULL || p != c->ports[i].port || p->dp.capture != &c->dp)
			return c->ports[i].name;
	}
	return NULL;
}

static void on_tick(void *arg, uint32_t events)
{
	struct capture *c = arg;
	uint64_t ticks;
	const char *gone;

	RTE_SET_USED(events);
	if (read(c->tfd, &ticks, sizeof(ticks)) < 0 && errno != EAGAIN)
		LOG(DEBUG, "capture %d: timer: %s", c->id, strerror(errno));
	if (c->state == CAP_RUNNING) {
		drain(c, false);
		if (c->count != 0 && c->written >= c->count)
			finish(c, "count reached");
		else if (c->duration != 0 &&
			 now_ns(CLOCK_MONOTONIC) - c->start_mono >= c->duration * 1000000000ull)
			finish(c, "duration reached");
		else if ((gone = port_gone(c)) != NULL)
			finish(c, "a port was deleted");
	}
	if (flush(c) != 0) {
		client_gone(c);
		return;
	}
	if (c->state == CAP_CLOSING &&
	    (capbuf_pending(&c->out) == 0 || now_ns(CLOCK_MONOTONIC) > c->close_by))
		capture_end(c);
}

/* The client's side of the connection: it sends nothing; a half-close
 * asks for the end, a hang-up is its end. */
static void on_client(void *arg, uint32_t events)
{
	struct capture *c = arg;
	char buf[256];
	ssize_t n;

	if (events & (EPOLLHUP | EPOLLERR)) {
		client_gone(c);
		return;
	}
	n = recv(c->fd, buf, sizeof(buf), MSG_DONTWAIT);
	if (n > 0 || (n < 0 && (errno == EAGAIN || errno == EINTR)))
		return;
	if (n < 0) {
		client_gone(c);
		return;
	}
	/* End of its input: it wants the capture to end; it still reads. */
	loop_watch_del(c->fd_watch);
	c->fd_watch = NULL;
	if (c->state == CAP_RUNNING)
		finish(c, "stopped by the client");
}

void capture_takeover(void *arg, int fd, const char *unsent, size_t len)
{
	struct capture *c = arg;
	struct itimerspec its = {.it_interval = {0, TICK_NS}, .it_value = {0, TICK_NS}};
	char hw[128], os[160], app[64], desc[160];
	struct utsname u;

	c->fd = fd;
	if (uname(&u) != 0)
		memset(&u, 0, sizeof(u));
	snprintf(hw, sizeof(hw), "%s", u.machine);
	snprintf(os, sizeof(os), "%.64s %.64s", u.sysname, u.release);
	snprintf(app, sizeof(app), "podwired %s", PODWIRE_VERSION);
	if (capbuf_add(&c->out, unsent, len) != 0 || pcapng_section(&c->out, hw, os, app) != 0)
		goto fail;
	for (unsigned int i = 0; i < c->n_ports; i++) {
		const struct port *p = c->ports[i].port;

		snprintf(desc, sizeof(desc), "podwire %s port on network %s", p->ops->kind,
			 p->net->name);
		if (pcapng_interface(&c->out, c->ports[i].name, desc,
				     RTE_MIN(c->dp.snaplen, (uint32_t)API_SNAPLEN_MAX)) != 0)
			goto fail;
	}
	c->tfd = timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC);
	if (c->tfd < 0 || timerfd_settime(c->tfd, 0, &its, NULL) != 0)
		goto fail;
	c->tick_watch = loop_watch_add(c->tfd, EPOLLIN, on_tick, c);
	c->fd_watch = loop_watch_add(fd, EPOLLIN | EPOLLRDHUP, on_client, c);
	if (c->tick_watch == NULL || c->fd_watch == NULL)
		goto fail;
	capture_start(c);
	return;
fail:
	LOG(ERR, "capture %d: cannot start its stream: %s", c->id, strerror(errno));
	capture_free(c);
}

cJSON *capture_list_json(void)
{
	cJSON *a = cJSON_CreateArray();
	struct capture *c;

	TAILQ_FOREACH (c, &captures, next) {
		cJSON *o = cJSON_CreateObject(), *ports;
		uint64_t all_m = 0, all_s = 0;

		cJSON_AddNumberToObject(o, API_R_ID, c->id);
		ports = cJSON_AddArrayToObject(o, API_F_PORTS);
		for (unsigned int i = 0; i < c->n_ports; i++) {
			cJSON *p = cJSON_CreateObject();
			const struct port *pp = port_find(c->ports[i].name);
			uint64_t m, s;

			if_counts(c, i, &m, &s);
			all_m += m;
			all_s += s;
			cJSON_AddStringToObject(p, API_F_NAME, c->ports[i].name);
			cJSON_AddNumberToObject(p, API_R_INTERFACE, i);
			cJSON_AddStringToObject(p, API_R_KIND, pp != NULL ? pp->ops->kind : "");
			cJSON_AddStringToObject(p, API_F_NETWORK, pp != NULL ? pp->net->name : "");
			cJSON_AddNumberToObject(p, API_R_MATCHED, (double)m);
			cJSON_AddNumberToObject(p, API_R_SKIPPED, (double)s);
			cJSON_AddItemToArray(ports, p);
		}
		cJSON_AddStringToObject(o, API_F_DIRECTION,
					c->dp.dirs == (CAPTURE_IN | CAPTURE_OUT) ? API_DIR_BOTH
					: c->dp.dirs == CAPTURE_IN		 ? API_DIR_RX
										 : API_DIR_TX);
		cJSON_AddStringToObject(o, API_F_FILTER, c->filter);
		cJSON_AddNumberToObject(o, API_F_SNAPLEN, c->dp.snaplen);
		cJSON_AddNumberToObject(o, API_R_MATCHED, (double)all_m);
		cJSON_AddNumberToObject(o, API_R_SKIPPED, (double)all_s);
		cJSON_AddNumberToObject(o, API_R_WRITTEN, (double)c->written);
		cJSON_AddNumberToObject(o, API_R_WRITTEN_BYTES, (double)c->written_bytes);
		cJSON_AddNumberToObject(o, API_R_SECONDS,
					(double)(now_ns(CLOCK_MONOTONIC) - c->start_mono) /
					    1000000000.0);
		cJSON_AddItemToArray(a, o);
	}
	return a;
}

/* The "capture" module: nothing to start. At a stop, before the ports and
 * the workers go, each capture ends as when its duration is reached: the
 * workers stop copying, its statistics go out as far as the client's
 * socket takes them now, and its rings and pools are freed. */
static void capture_fini(void)
{
	struct capture *c;

	pthread_mutex_lock(&ctl_lock);
	while ((c = TAILQ_FIRST(&captures)) != NULL) {
		if (c->state == CAP_RUNNING)
			finish(c, "podwired stopped");
		if (flush(c) != 0)
			LOG(DEBUG, "capture %d: its client went away", c->id);
		capture_end(c);
	}
	pthread_mutex_unlock(&ctl_lock);
}

PW_MODULE(capture, NULL, capture_fini, "model");
