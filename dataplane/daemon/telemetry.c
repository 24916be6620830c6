/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Counters in DPDK telemetry (dpdk-telemetry.py, or the socket under
 * /var/run/dpdk/<prefix>/): /podwire/ports and /podwire/port_stats,NAME.
 * Telemetry callbacks run on DPDK's telemetry thread; they take
 * ctl_lock, which the control thread holds while it changes anything.
 */
#include <string.h>

#include <rte_telemetry.h>

#include "daemon/daemon.h"
#include "datapath/stats.h"
#include "model/port.h"

static int tel_ports(const char *cmd, const char *params, struct rte_tel_data *d)
{
	struct port *p;

	RTE_SET_USED(cmd);
	RTE_SET_USED(params);
	rte_tel_data_start_array(d, RTE_TEL_STRING_VAL);
	pthread_mutex_lock(&ctl_lock);
	TAILQ_FOREACH (p, &port_all, next)
		rte_tel_data_add_array_string(d, p->conf.name);
	pthread_mutex_unlock(&ctl_lock);
	return 0;
}

static int tel_port_stats(const char *cmd, const char *params, struct rte_tel_data *d)
{
	struct port_counters c;
	struct port *p;

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
	pthread_mutex_unlock(&ctl_lock);
	return 0;
}

void telemetry_init(void)
{
	rte_telemetry_register_cmd("/podwire/ports", tel_ports, "Returns the port names.");
	rte_telemetry_register_cmd("/podwire/port_stats", tel_port_stats,
				   "Returns a port's counters. Parameters: port name");
}
