/* SPDX-License-Identifier: BSD-3-Clause */
/* system.info: what this podwired is, and the API version clients check. */
#include <dirent.h>
#include <malloc.h>
#include <stdio.h>
#include <time.h>
#include <unistd.h>

#include <rte_cycles.h>
#include <rte_eal.h>
#include <rte_malloc.h>

#include "api/registry.h"
#include "core/config.h"
#include "datapath/forward.h"
#include "model/json.h"
#include "model/network.h"

/* The port.create fields behind each enum port_field bit, in the order a
 * usage line lists them. */
static const struct {
	unsigned int bit;
	const char *name;
} field_names[] = {
    {PORT_FIELD_SOCKET, API_F_SOCKET}, {PORT_FIELD_SOCKET, API_F_MODE},
    {PORT_FIELD_SECRET, API_F_SECRET}, {PORT_FIELD_IFACE, API_F_IFACE},
    {PORT_FIELD_PCI, API_F_PCI},       {PORT_FIELD_QUEUES, API_F_QUEUES},
    {PORT_FIELD_IO, API_F_IO},	       {PORT_FIELD_OL, API_F_OFFLOADS},
    {PORT_FIELD_RINGS, API_F_RINGS},
};

static cJSON *kinds_json(void)
{
	cJSON *a = cJSON_CreateArray();

	for (unsigned int i = 0; i < port_kind_count(); i++) {
		const struct port_ops *k = port_kind_at(i);
		cJSON *o = cJSON_CreateObject(), *f;

		cJSON_AddStringToObject(o, API_F_NAME, k->kind);
		cJSON_AddStringToObject(o, API_R_SUMMARY, k->summary);
		f = cJSON_AddArrayToObject(o, API_R_FIELDS);
		for (unsigned int b = 0; b < RTE_DIM(field_names); b++)
			if (k->fields & field_names[b].bit)
				cJSON_AddItemToArray(f, cJSON_CreateString(field_names[b].name));
		cJSON_AddBoolToObject(o, API_R_UPLINK, k->uplink);
		cJSON_AddItemToArray(a, o);
	}
	return a;
}

static unsigned int fd_count(void)
{
	DIR *d = opendir("/proc/self/fd");
	unsigned int n = 0;

	while (d != NULL && readdir(d) != NULL)
		n++;
	if (d != NULL)
		closedir(d);
	/* ".", ".." and the directory's own fd */
	return n >= 3 ? n - 3 : 0;
}

static cJSON *memory_json(void)
{
	struct mallinfo2 mi = mallinfo2();
	cJSON *o = cJSON_CreateObject();
	uint64_t dpdk = 0, allocs = 0;

	for (int s = 0; s < (int)rte_socket_count(); s++) {
		struct rte_malloc_socket_stats st;

		if (rte_malloc_get_socket_stats(rte_socket_id_by_idx((unsigned int)s), &st) == 0) {
			dpdk += st.heap_allocsz_bytes;
			allocs += st.alloc_count;
		}
	}
	cJSON_AddNumberToObject(o, API_R_HEAP_BYTES, (double)(mi.uordblks + mi.hblkhd));
	cJSON_AddNumberToObject(o, API_R_DPDK_HEAP_BYTES, (double)dpdk);
	cJSON_AddNumberToObject(o, API_R_DPDK_ALLOCS, (double)allocs);
	cJSON_AddNumberToObject(o, API_R_FDS, fd_count());
	return o;
}

static cJSON *h_system_info(const cJSON *params, struct api_err *err)
{
	cJSON *o = cJSON_CreateObject();
	char version[16];

	(void)params, (void)err;
	snprintf(version, sizeof(version), "%d.%d", API_VERSION_MAJOR, API_VERSION_MINOR);
	cJSON_AddStringToObject(o, API_R_VERSION, PODWIRE_VERSION);
	cJSON_AddStringToObject(o, API_R_API_VERSION, version);
	cJSON_AddNumberToObject(o, API_R_PID, getpid());
	cJSON_AddStringToObject(o, API_F_SOCKET, pw_cfg.socket);
	cJSON_AddStringToObject(o, API_R_STATE_DIR, pw_cfg.state_dir);
	cJSON_AddNumberToObject(o, API_R_MAIN_CORE, pw_cfg.main_core);
	cJSON_AddNumberToObject(o, API_R_UPTIME, (double)(time(NULL) - pw_start_time));
	cJSON_AddNumberToObject(o, API_R_TSC_HZ, (double)rte_get_tsc_hz());
	cJSON_AddStringToObject(o, API_R_RUNTIME_DIR, rte_eal_get_runtime_dir());
	cJSON_AddNumberToObject(o, API_R_NETWORKS, network_count());
	cJSON_AddNumberToObject(o, API_R_PORTS, port_count());
	cJSON_AddNumberToObject(o, API_R_MAC_ENTRIES, mac_table_count(l2_macs));
	cJSON_AddNumberToObject(o, API_R_MAC_AGING, pw_cfg.mac_aging_sec);
	cJSON_AddBoolToObject(o, API_R_READY, true);
	cJSON_AddItemToObject(o, API_R_WORKERS, workers_json(true));
	cJSON_AddItemToObject(o, API_R_KINDS, kinds_json());
	cJSON_AddItemToObject(o, API_R_MEMORY, memory_json());
	return o;
}

API_HANDLER(SYSTEM_INFO, h_system_info)
