/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * /metrics in the Prometheus text exposition format (version 0.0.4),
 * served by libmicrohttpd on its own thread: `podwired --metrics
 * ADDR:PORT`. Each scrape reads the model under ctl_lock, as telemetry
 * does, and the workers' counters as stats.get does.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <microhttpd.h>
#include <rte_cycles.h>

#include "acl/acl.h"
#include "acl/session.h"
#include "api.h"
#include "core/config.h"
#include "core/loop.h"
#include "core/log.h"
#include "core/module.h"
#include "datapath/forward.h"
#include "datapath/stats.h"
#include "datapath/worker.h"
#include "mirror/mirror.h"
#include "model/network.h"
#include "model/port_stats.h"
#include "model/queue.h"
#include "observe/metrics.h"
#include "sriov/vf_pool.h"

PW_LOG_TYPE("metrics");

static struct MHD_Daemon *mhd;

int metrics_addr_parse(const char *text, struct sockaddr_storage *sa, char *msg, size_t len)
{
	char host[64];
	const char *colon = strrchr(text, ':');
	char *end;
	long port;

	memset(sa, 0, sizeof(*sa));
	if (colon == NULL || colon == text || (size_t)(colon - text) >= sizeof(host)) {
		snprintf(msg, len,
			 "\"%s\" is not ADDR:PORT; give e.g. 127.0.0.1:9469, 0.0.0.0:9469 or "
			 "[::1]:9469",
			 text);
		return -EINVAL;
	}
	memcpy(host, text, (size_t)(colon - text));
	host[colon - text] = '\0';
	errno = 0;
	port = strtol(colon + 1, &end, 10);
	if (errno != 0 || end == colon + 1 || *end != '\0' || port < 1 || port > 65535) {
		snprintf(msg, len, "\"%s\": port \"%s\" is not a number in 1-65535", text,
			 colon + 1);
		return -EINVAL;
	}
	if (host[0] == '[' && host[strlen(host) - 1] == ']') {
		struct sockaddr_in6 *s6 = (struct sockaddr_in6 *)sa;

		host[strlen(host) - 1] = '\0';
		s6->sin6_family = AF_INET6;
		s6->sin6_port = htons((uint16_t)port);
		if (inet_pton(AF_INET6, host + 1, &s6->sin6_addr) == 1)
			return 0;
	} else {
		struct sockaddr_in *s4 = (struct sockaddr_in *)sa;

		s4->sin_family = AF_INET;
		s4->sin_port = htons((uint16_t)port);
		if (inet_pton(AF_INET, host, &s4->sin_addr) == 1)
			return 0;
	}
	snprintf(msg, len,
		 "\"%s\": \"%s\" is not an IP address; give a numeric one such as 127.0.0.1 or "
		 "[::1] (0.0.0.0: every interface)",
		 text, host);
	return -EINVAL;
}

/* The page being written. */
struct page {
	char *buf;
	size_t len, cap;
	bool oom;
};

static void __attribute__((format(printf, 2, 3))) out(struct page *pg, const char *fmt, ...)
{
	va_list ap;
	int n;

	for (;;) {
		size_t room = pg->cap - pg->len;

		va_start(ap, fmt);
		n = vsnprintf(pg->buf + pg->len, room, fmt, ap);
		va_end(ap);
		if (n < 0) {
			pg->oom = true;
			return;
		}
		if ((size_t)n < room) {
			pg->len += (size_t)n;
			return;
		}
		char *b = realloc(pg->buf, pg->cap * 2 + (size_t)n);

		if (b == NULL) {
			pg->oom = true;
			return;
		}
		pg->buf = b;
		pg->cap = pg->cap * 2 + (size_t)n;
	}
}

static void head(struct page *pg, const char *name, const char *type, const char *help)
{
	out(pg, "# HELP %s %s\n# TYPE %s %s\n", name, help, name, type);
}

/* A label value with \, " and newline escaped. */
static const char *esc(char *buf, size_t len, const char *s)
{
	size_t o = 0;

	for (; *s != '\0' && o + 3 < len; s++) {
		if (*s == '\\' || *s == '"') {
			buf[o++] = '\\';
			buf[o++] = *s;
		} else if (*s == '\n') {
			buf[o++] = '\\';
			buf[o++] = 'n';
		} else {
			buf[o++] = *s;
		}
	}
	buf[o] = '\0';
	return buf;
}

/* The labels of a port: port, network, kind. */
static void port_labels(char *buf, size_t len, const struct port *p)
{
	char a[160], b[160];

	snprintf(buf, len, "port=\"%s\",network=\"%s\",kind=\"%s\"",
		 esc(a, sizeof(a), p->conf.name), esc(b, sizeof(b), p->net->name), p->ops->kind);
}

enum port_value { PV_RX_PKTS, PV_RX_BYTES, PV_TX_PKTS, PV_TX_BYTES, PV_RETRIES, PV_LEARN };

static const struct {
	const char *name, *help;
} port_metrics[] = {
    [PV_RX_PKTS] = {"podwire_port_rx_packets_total", "Frames received from the port."},
    [PV_RX_BYTES] = {"podwire_port_rx_bytes_total", "Bytes received from the port."},
    [PV_TX_PKTS] = {"podwire_port_tx_packets_total", "Frames sent to the port."},
    [PV_TX_BYTES] = {"podwire_port_tx_bytes_total", "Bytes sent to the port."},
    [PV_RETRIES] = {"podwire_port_tx_retries_total",
		    "Times a full ring of the port was tried again."},
    [PV_LEARN] = {"podwire_port_learn_limit_total",
		  "Source MACs from the port not learned: a learning limit was reached."},
};

static uint64_t port_value(const struct port_counters *c, enum port_value v)
{
	switch (v) {
	case PV_RX_PKTS:
		return c->rx_packets;
	case PV_RX_BYTES:
		return c->rx_bytes;
	case PV_TX_PKTS:
		return c->tx_packets;
	case PV_TX_BYTES:
		return c->tx_bytes;
	case PV_RETRIES:
		return c->tx_retries;
	default:
		return c->learn_limit;
	}
}

/* The rate limits configured (policer/), one series per port and
 * direction that has one; what they dropped is podwire_port_drops_total
 * {reason="policed"}. */
/* One series per limited port and direction: the rate (burst false) or
 * its burst, with the unit each takes. */
static void write_rate_series(struct page *pg, const char *name, bool burst)
{
	static const char *const dir[PORT_DIRS] = {"ingress", "egress"};
	char l[512];
	struct port *p;

	TAILQ_FOREACH (p, &port_all, next)
		for (int d = 0; d < PORT_DIRS; d++) {
			const struct port_rate *r = &p->conf.rate[d];
			const char *unit =
			    r->bits ? (burst ? "bytes" : "bps") : (burst ? "frames" : "pps");

			if (r->rate == 0)
				continue;
			port_labels(l, sizeof(l), p);
			out(pg, "%s{%s,direction=\"%s\",unit=\"%s\"} %llu\n", name, l, dir[d], unit,
			    (unsigned long long)(burst ? r->burst : r->rate));
		}
}

static void write_rates(struct page *pg)
{
	head(pg, "podwire_port_rate_limit", "gauge",
	     "A port's rate limit: frames/s (unit=\"pps\") or bits/s (unit=\"bps\"); ingress is "
	     "what its pod sends, egress what it receives.");
	write_rate_series(pg, "podwire_port_rate_limit", false);
	head(pg, "podwire_port_rate_limit_burst", "gauge",
	     "The burst of a port's rate limit: frames (unit=\"frames\") or bytes "
	     "(unit=\"bytes\").");
	write_rate_series(pg, "podwire_port_rate_limit_burst", true);
}

static void write_ports(struct page *pg)
{
	struct port_counters *c = calloc(PW_MAX_PORTS, sizeof(*c));
	char l[512];
	struct port *p;

	if (c == NULL) {
		pg->oom = true;
		return;
	}
	TAILQ_FOREACH (p, &port_all, next)
		stats_port_sum(p->dp.idx, &c[p->dp.idx]);
	for (unsigned int m = 0; m < RTE_DIM(port_metrics); m++) {
		head(pg, port_metrics[m].name, "counter", port_metrics[m].help);
		TAILQ_FOREACH (p, &port_all, next) {
			port_labels(l, sizeof(l), p);
			out(pg, "%s{%s} %llu\n", port_metrics[m].name, l,
			    (unsigned long long)port_value(&c[p->dp.idx], (enum port_value)m));
		}
	}
	head(pg, "podwire_port_drops_total", "counter",
	     "Frames not delivered, counted on one port under one reason.");
	TAILQ_FOREACH (p, &port_all, next) {
		port_labels(l, sizeof(l), p);
		for (int r = 0; r < DROP_MAX; r++)
			out(pg, "podwire_port_drops_total{%s,reason=\"%s\"} %llu\n", l,
			    drop_names[r], (unsigned long long)c[p->dp.idx].drops[r]);
	}
	/* Only for kinds that read through a kernel socket (veth, af_xdp):
	 * elsewhere there is nothing the kernel could drop. */
	head(pg, "podwire_port_kernel_drops_total", "counter",
	     "Frames the kernel dropped on their way to podwired: the port's socket or ring was "
	     "full.");
	TAILQ_FOREACH (p, &port_all, next) {
		uint64_t kd;

		if (!port_kernel_drops(p, &kd))
			continue;
		port_labels(l, sizeof(l), p);
		out(pg, "podwire_port_kernel_drops_total{%s} %llu\n", l, (unsigned long long)kd);
	}
	head(pg, "podwire_port_link_up", "gauge", "1 when the port's link is up, else 0.");
	TAILQ_FOREACH (p, &port_all, next) {
		port_labels(l, sizeof(l), p);
		out(pg, "podwire_port_link_up{%s} %d\n", l, p->dp.link_up ? 1 : 0);
	}
	head(pg, "podwire_port_macs_learned", "gauge", "MAC addresses learned on the port now.");
	TAILQ_FOREACH (p, &port_all, next) {
		port_labels(l, sizeof(l), p);
		out(pg, "podwire_port_macs_learned{%s} %u\n", l,
		    mac_table_port_count(l2_macs, p->dp.idx));
	}
	write_rates(pg);
	free(c);
}

/* The labels of rx queue q of p on worker w: the port's, the queue, and
 * the worker as the worker series name it (index, and its core). */
static void queue_labels(char *buf, size_t len, const struct port *p, uint16_t q, unsigned int w)
{
	char l[512];

	port_labels(l, sizeof(l), p);
	snprintf(buf, len, "%s,queue=\"%u\",worker=\"%u\",lcore=\"%u\"", l, q, w, workers[w]->cpu);
}

enum queue_value { QV_RX_PKTS, QV_RX_CYCLES, QV_TX_PKTS };

static const struct {
	const char *name, *help;
} queue_metrics[] = {
    [QV_RX_PKTS] = {"podwire_rxq_packets_total",
		    "Frames received on the port's rx queue, by the worker that polled them."},
    [QV_RX_CYCLES] = {"podwire_rxq_busy_cycles_total",
		      "TSC cycles of the worker's polls of the rx queue that found frames "
		      "(forwarding included); divide by podwire_tsc_hz for seconds."},
    [QV_TX_PKTS] = {"podwire_txq_packets_total",
		    "Frames sent on the port's tx queue by the worker, for kinds that count per "
		    "queue."},
};

static uint64_t queue_value(const volatile struct queue_counters *c, enum queue_value v)
{
	return v == QV_RX_PKTS ? c->rx_packets : v == QV_RX_CYCLES ? c->rx_cycles : c->tx_packets;
}

/* Per queue and worker: the workers' own counters, not sums, so a queue
 * that moved shows what each worker did with it. A queue's series are
 * those of the worker polling it now and of any worker that counted on
 * it; a tx queue's, those of the workers that sent on it. */
static void write_queues(struct page *pg)
{
	char l[640];
	struct port *p;

	for (unsigned int m = 0; m < RTE_DIM(queue_metrics); m++) {
		head(pg, queue_metrics[m].name, "counter", queue_metrics[m].help);
		TAILQ_FOREACH (p, &port_all, next)
			for (uint16_t q = 0; q < PW_MAX_QUEUES; q++)
				for (unsigned int w = 0; w < n_workers; w++) {
					uint64_t v = queue_value(stats_queue(w, p->dp.idx, q),
								 (enum queue_value)m);
					bool polls = q < p->dp.n_rxq && p->rxq[q].worker == w;

					if (v == 0 && (m == QV_TX_PKTS || !polls))
						continue;
					queue_labels(l, sizeof(l), p, q, w);
					out(pg, "%s{%s} %llu\n", queue_metrics[m].name, l,
					    (unsigned long long)v);
				}
	}
	head(pg, "podwire_rxq_enabled", "gauge",
	     "1 when the pod enabled the rx queue (only enabled queues are polled), else 0; "
	     "labelled with the worker that polls it.");
	TAILQ_FOREACH (p, &port_all, next)
		for (uint16_t q = 0; q < p->dp.n_rxq; q++) {
			queue_labels(l, sizeof(l), p, q, p->rxq[q].worker);
			out(pg, "podwire_rxq_enabled{%s} %u\n", l, (queue_enabled(p) >> q) & 1U);
		}
	head(pg, "podwire_rxq_pinned", "gauge",
	     "1 when the rx queue is pinned on its worker (queue pin, rxq_pins), else 0.");
	TAILQ_FOREACH (p, &port_all, next)
		for (uint16_t q = 0; q < p->dp.n_rxq; q++) {
			queue_labels(l, sizeof(l), p, q, p->rxq[q].worker);
			out(pg, "podwire_rxq_pinned{%s} %d\n", l, p->rxq[q].pinned ? 1 : 0);
		}
}

static void write_networks(struct page *pg)
{
	struct network *n;
	char a[160];

	head(pg, "podwire_network_mac_entries", "gauge",
	     "MAC addresses learned on the network now.");
	TAILQ_FOREACH (n, &network_all, next)
		out(pg, "podwire_network_mac_entries{network=\"%s\",mode=\"%s\"} %u\n",
		    esc(a, sizeof(a), n->name), network_mode_name(n->mode),
		    mac_table_net_count(l2_macs, n->idx));
	head(pg, "podwire_network_ports", "gauge", "Ports on the network.");
	TAILQ_FOREACH (n, &network_all, next)
		out(pg, "podwire_network_ports{network=\"%s\",mode=\"%s\"} %u\n",
		    esc(a, sizeof(a), n->name), network_mode_name(n->mode), n->n_ports);
}

static void write_workers(struct page *pg)
{
	static const char *const names[] = {
	    "podwire_worker_busy_cycles_total", "podwire_worker_idle_cycles_total",
	    "podwire_worker_sleeps_total", "podwire_worker_sleep_seconds_total"};
	static const char *const help[] = {
	    "TSC cycles of loop turns that moved frames.",
	    "TSC cycles of loop turns that found nothing.",
	    "Naps an idle worker took (--idle-sleep-max).",
	    "Time the worker's naps asked for (a nap may last longer)."};

	for (int k = 0; k < 4; k++) {
		head(pg, names[k], "counter", help[k]);
		for (unsigned int w = 0; w < n_workers; w++) {
			struct worker_counters c;

			stats_worker_get(w, &c);
			/* lcore: the CPU, as stats.get and podwirectl show it (a
			 * worker's EAL lcore id is its index + 1). */
			out(pg, "%s{worker=\"%u\",lcore=\"%u\"} ", names[k], w, workers[w]->cpu);
			if (k == 3)
				out(pg, "%.6f\n", (double)c.sleep_us / 1e6);
			else
				out(pg, "%llu\n",
				    (unsigned long long)(k == 0	  ? c.busy_cycles
							 : k == 1 ? c.idle_cycles
								  : c.sleeps));
		}
	}
	head(pg, "podwire_tsc_hz", "gauge", "TSC cycles per second, to turn cycles into time.");
	out(pg, "podwire_tsc_hz %llu\n", (unsigned long long)rte_get_tsc_hz());
}

static void write_vfs(struct page *pg)
{
	static const enum vf_state states[] = {VF_FREE, VF_USED, VF_UNAVAILABLE};
	unsigned int np = vf_pool_physnet_count();

	head(pg, "podwire_vf_pool_vfs", "gauge", "SR-IOV VFs of a physnet's pool, by state.");
	for (unsigned int i = 0; i < np; i++) {
		for (unsigned int s = 0; s < RTE_DIM(states); s++) {
			unsigned int n = 0;

			for (unsigned int e = 0; e < vf_pool_entry_count(); e++)
				if (vf_pool_entry(e)->physnet == i &&
				    vf_pool_entry(e)->state == states[s])
					n++;
			out(pg, "podwire_vf_pool_vfs{physnet=\"%s\",state=\"%s\"} %u\n",
			    vf_pool_physnet(i)->name, vf_state_name(states[s]), n);
		}
	}
}

/* Port mirroring: per mirror, copies the destination took and frames not
 * copied there. */
static void write_mirrors(struct page *pg)
{
	static const char *const names[] = {"podwire_mirror_copies_total",
					    "podwire_mirror_dropped_total"};
	static const char *const help[] = {
	    "Frames a mirror copied to its destination port.",
	    "Frames a mirror did not copy: its destination was full or down, or no mbuf."};
	const struct mirror *m;
	char a[160], b[160];

	for (int k = 0; k < 2; k++) {
		head(pg, names[k], "counter", help[k]);
		TAILQ_FOREACH (m, &mirror_all, next) {
			struct mirror_counters c;

			mirror_counts(m, &c);
			out(pg, "%s{mirror=\"%s\",to=\"%s\"} %llu\n", names[k],
			    esc(a, sizeof(a), m->name), esc(b, sizeof(b), m->to->conf.name),
			    (unsigned long long)(k == 0 ? c.copies : c.dropped));
		}
	}
}

static void acl_hit(const char *list, const char *rule, uint64_t hits, void *ctx)
{
	char a[160];

	out(ctx, "podwire_acl_rule_hits_total{list=\"%s\",rule=\"%s\"} %llu\n",
	    esc(a, sizeof(a), list), rule, (unsigned long long)hits);
}

/* Scans each worker's table (about 1 ms per 100,000 sessions). */
static void write_acl_sessions(struct page *pg)
{
	struct acl_session_stats st[PW_MAX_WORKERS];

	for (unsigned int w = 0; w < n_workers; w++)
		acl_sessions_stats(w, &st[w]);
	head(pg, "podwire_acl_sessions", "gauge",
	     "permit+reflect sessions a worker holds that are not yet idle past their timeout.");
	for (unsigned int w = 0; w < n_workers; w++)
		out(pg, "podwire_acl_sessions{worker=\"%u\",lcore=\"%u\"} %llu\n", w,
		    workers[w]->cpu, (unsigned long long)st[w].live);
	head(pg, "podwire_acl_sessions_full_total", "counter",
	     "permit+reflect sessions a worker could not record: its table was full "
	     "(podwired --acl-sessions).");
	for (unsigned int w = 0; w < n_workers; w++)
		out(pg, "podwire_acl_sessions_full_total{worker=\"%u\",lcore=\"%u\"} %llu\n", w,
		    workers[w]->cpu, (unsigned long long)st[w].full);
}

static void write_acls(struct page *pg)
{
	head(pg, "podwire_acl_rule_hits_total", "counter",
	     "Frames an access list's rule decided (rule=\"default\": no rule matched), since the "
	     "list was last set.");
	acl_hits_each(acl_hit, pg);
	write_acl_sessions(pg);
}

/* The whole page, malloc'd; NULL when memory is short. */
static char *metrics_page(size_t *len)
{
	struct page pg = {.cap = 65536};

	pg.buf = malloc(pg.cap);
	if (pg.buf == NULL)
		return NULL;
	head(&pg, "podwire_build_info", "gauge", "podwired's version; always 1.");
	out(&pg, "podwire_build_info{version=\"%s\",api_version=\"%d.%d\"} 1\n", PODWIRE_VERSION,
	    API_VERSION_MAJOR, API_VERSION_MINOR);
	head(&pg, "podwire_start_time_seconds", "gauge", "When podwired started, Unix time.");
	out(&pg, "podwire_start_time_seconds %lld\n", (long long)pw_start_time);
	pthread_mutex_lock(&ctl_lock);
	write_ports(&pg);
	write_queues(&pg);
	write_networks(&pg);
	write_workers(&pg);
	write_vfs(&pg);
	write_mirrors(&pg);
	write_acls(&pg);
	pthread_mutex_unlock(&ctl_lock);
	if (pg.oom) {
		free(pg.buf);
		return NULL;
	}
	*len = pg.len;
	return pg.buf;
}

static enum MHD_Result reply(struct MHD_Connection *conn, unsigned int status, char *body,
			     size_t len, const char *type)
{
	struct MHD_Response *r = MHD_create_response_from_buffer(len, body, MHD_RESPMEM_MUST_FREE);
	enum MHD_Result rc;

	if (r == NULL) {
		free(body);
		return MHD_NO;
	}
	MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE, type);
	rc = MHD_queue_response(conn, status, r);
	MHD_destroy_response(r);
	return rc;
}

static enum MHD_Result on_request(void *cls, struct MHD_Connection *conn, const char *url,
				  const char *method, const char *version, const char *data,
				  size_t *data_len, void **state)
{
	size_t len = 0;
	char *body;

	(void)cls;
	(void)version;
	(void)data;
	(void)data_len;
	(void)state;
	if (strcmp(method, "GET") != 0 && strcmp(method, "HEAD") != 0) {
		body = strdup("only GET /metrics is served\n");
		return reply(conn, MHD_HTTP_METHOD_NOT_ALLOWED, body, body ? strlen(body) : 0,
			     "text/plain");
	}
	if (strcmp(url, "/metrics") != 0) {
		body = strdup("podwired serves /metrics\n");
		return reply(conn, MHD_HTTP_NOT_FOUND, body, body ? strlen(body) : 0, "text/plain");
	}
	body = metrics_page(&len);
	if (body == NULL) {
		body = strdup("out of memory\n");
		return reply(conn, MHD_HTTP_INTERNAL_SERVER_ERROR, body, body ? strlen(body) : 0,
			     "text/plain");
	}
	return reply(conn, MHD_HTTP_OK, body, len, "text/plain; version=0.0.4; charset=utf-8");
}

int metrics_start(const char *addr)
{
	struct sockaddr_storage sa;
	char msg[256];
	unsigned int flags = MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_ERROR_LOG;

	if (metrics_addr_parse(addr, &sa, msg, sizeof(msg)) != 0) {
		fprintf(stderr, "podwired: --metrics: %s\n", msg);
		return -EINVAL;
	}
	if (sa.ss_family == AF_INET6)
		flags |= MHD_USE_IPv6;
	mhd = MHD_start_daemon(flags, 0, NULL, NULL, on_request, NULL, MHD_OPTION_SOCK_ADDR,
			       (struct sockaddr *)&sa, MHD_OPTION_CONNECTION_LIMIT, 64U,
			       MHD_OPTION_CONNECTION_TIMEOUT, 10U, MHD_OPTION_END);
	if (mhd == NULL) {
		fprintf(stderr,
			"podwired: --metrics: cannot serve HTTP on %s: %s; is the port taken "
			"(another podwired, another exporter)?\n",
			addr, strerror(errno));
		return -EADDRINUSE;
	}
	LOG(NOTICE, "Prometheus metrics on http://%s/metrics", addr);
	return 0;
}

void metrics_stop(void)
{
	if (mhd != NULL)
		MHD_stop_daemon(mhd);
	mhd = NULL;
}

/* The "metrics" module: --metrics ADDR:PORT, or nothing. */
static int metrics_init(void)
{
	return pw_cfg.metrics[0] != '\0' ? metrics_start(pw_cfg.metrics) : 0;
}

/* Its thread reads the model and the pools under ctl_lock: it starts once
 * they are restored, and stops (the fini of those that started later run
 * first) before the ports go. metrics_stop waits for that thread, so it
 * runs without ctl_lock. */
PW_MODULE(metrics, metrics_init, metrics_stop, "model", "sriov");
