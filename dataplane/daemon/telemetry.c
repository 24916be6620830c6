/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Counters in DPDK telemetry (dpdk-telemetry.py, or the socket under
 * /var/run/dpdk/<prefix>/): /podwire/ports[,FROM] and
 * /podwire/port_stats,NAME.
 * Telemetry callbacks run on DPDK's telemetry thread; they take
 * ctl_lock, which the control thread holds while it changes anything.
 */
#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <rte_telemetry.h>

#include "core/loop.h"
#include "core/module.h"
#include "daemon/daemon.h"
#include "datapath/stats.h"
#include "model/port.h"
#include "model/port_stats.h"

/* A telemetry array holds at most RTE_TEL_MAX_ARRAY_ENTRIES (512) values
 * and drops the rest with -ENOSPC; podwired has up to PW_MAX_PORTS ports.
 * So the names come a page at a time: {"total": N, "from": F, "ports":
 * [names F..F+511], "next": F+512 while more remain}; the parameter is F
 * (0 when absent). */
#define TEL_PORTS_PAGE RTE_TEL_MAX_ARRAY_ENTRIES

static int tel_ports(const char *cmd, const char *params, struct rte_tel_data *d)
{
	unsigned long from = 0, i = 0;
	struct rte_tel_data *names;
	struct port *p;
	int rc = 0;

	RTE_SET_USED(cmd);
	if (params != NULL && params[0] != '\0') {
		char *end;

		errno = 0;
		from = strtoul(params, &end, 10);
		if (errno != 0 || *end != '\0' || !isdigit((unsigned char)params[0]))
			return -EINVAL;
	}
	names = rte_tel_data_alloc();
	if (names == NULL)
		return -ENOMEM;
	rte_tel_data_start_array(names, RTE_TEL_STRING_VAL);
	pthread_mutex_lock(&ctl_lock);
	TAILQ_FOREACH (p, &port_all, next) {
		if (i >= from && i - from < TEL_PORTS_PAGE && rc >= 0)
			rc = rte_tel_data_add_array_string(names, p->conf.name);
		i++;
	}
	pthread_mutex_unlock(&ctl_lock);
	if (rc < 0) { /* a page holds what it is sized for: not expected */
		rte_tel_data_free(names);
		return rc;
	}
	rte_tel_data_start_dict(d);
	rte_tel_data_add_dict_u64(d, "total", i);
	rte_tel_data_add_dict_u64(d, "from", from);
	rte_tel_data_add_dict_container(d, "ports", names, 0);
	if (from < i && i - from > TEL_PORTS_PAGE)
		rte_tel_data_add_dict_u64(d, "next", from + TEL_PORTS_PAGE);
	return 0;
}

static int tel_port_stats(const char *cmd, const char *params, struct rte_tel_data *d)
{
	struct port_counters c;
	struct port *p;
	uint64_t kd;

	RTE_SET_USED(cmd);
	if (params == NULL)
		return -EINVAL;
	pthread_mutex_lock(&ctl_lock);
	p = port_find(params);
	if (p == NULL) {
		pthread_mutex_unlock(&ctl_lock);
		return -ENOENT;
	}
	stats_port_sum(p->dp.idx, &c);
	rte_tel_data_start_dict(d);
	rte_tel_data_add_dict_string(d, "link", p->dp.link_up ? "up" : "down");
	rte_tel_data_add_dict_u64(d, "rx_packets", c.rx_packets);
	rte_tel_data_add_dict_u64(d, "rx_bytes", c.rx_bytes);
	rte_tel_data_add_dict_u64(d, "tx_packets", c.tx_packets);
	rte_tel_data_add_dict_u64(d, "tx_bytes", c.tx_bytes);
	for (int r = 0; r < DROP_MAX; r++)
		rte_tel_data_add_dict_u64(d, drop_names[r], c.drops[r]);
	rte_tel_data_add_dict_u64(d, "learn_limit", c.learn_limit);
	rte_tel_data_add_dict_u64(d, "tx_retries", c.tx_retries);
	if (port_kernel_drops(p, &kd))
		rte_tel_data_add_dict_u64(d, "kernel_drops", kd);
	pthread_mutex_unlock(&ctl_lock);
	return 0;
}

/* The "telemetry" module. DPDK's telemetry thread, up since EAL, may call
 * these at once: they read the model under ctl_lock. DPDK cannot forget a
 * command; ports gone leave them answering with none. */
static int telemetry_init(void)
{
	rte_telemetry_register_cmd(
	    "/podwire/ports", tel_ports,
	    "Returns port names, 512 from FROM: total, from, ports, next (if "
	    "more). Parameters: int FROM, default 0");
	rte_telemetry_register_cmd("/podwire/port_stats", tel_port_stats,
				   "Returns a port's counters. Parameters: port name");
	return 0;
}

PW_MODULE(telemetry, telemetry_init, NULL, "model");
