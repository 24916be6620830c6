/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * What a DPDK container's endpoint has on the host besides its podwired
 * port: a directory under the socket dir (<socket-dir>/<endpoint id, 12
 * digits>/) with the socket podwired serves and podwire.json, and the
 * placeholder interface dockerd moves into the container (one end of a
 * veth pair whose other end stays, down, in the host).
 *
 * How the app finds its own socket without knowing any Docker id: dockerd
 * gives the placeholder the endpoint's MAC and addresses; `podwire-vdev
 * --docker` reads the container's interfaces and takes the podwire.json
 * whose MAC and address both match one of them. Another container's files
 * never match (its MAC and address differ), so none is used by mistake.
 */
#include <errno.h>
#include <net/if.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "driver.h"
#include "files.h"
#include "link.h"
#include "validate.h"
#include "vdev.h"

#define PODWIRE_JSON "podwire.json"
#define ALIAS_PREFIX "podwire-docker:"

const char *dpdk_socket_name(enum dk_iftype t)
{
	return t == DK_IF_MEMIF ? "memif.sock" : "vhost.sock";
}

/* The device-info object (NPWG Device Information Specification 1.1.0)
 * of the container's side, with the path the container sees: podwired
 * serves the socket, the container is the client (slave). */
static cJSON *device_info(const struct dk_endpoint *e, const char *path)
{
	bool memif = e->iftype == DK_IF_MEMIF;
	cJSON *info = devinfo_socket(memif, memif ? "slave" : "client", path, e->secret);

	devinfo_set_queues(info, e->queues);
	return info;
}

int dpdk_endpoint_files(const struct dk_network *n, struct dk_endpoint *e, const cJSON *port,
			struct dk_err *err)
{
	char path[DK_PATH_MAX + 32], file[DK_PATH_MAX + 32], msg[512], alias[64], other[16];
	cJSON *doc, *ips;
	uint8_t mac[6];
	int rc;

	(void)port;
	snprintf(path, sizeof(path), "%s/%.12s/%s", dk_cfg.container_socket_dir, e->id,
		 dpdk_socket_name(e->iftype));
	doc = cJSON_CreateObject();
	cJSON_AddStringToObject(doc, "endpointID", e->id);
	cJSON_AddStringToObject(doc, "networkID", n->id);
	cJSON_AddStringToObject(doc, "mac", e->mac);
	ips = cJSON_AddArrayToObject(doc, "ips");
	if (e->addr4[0] != '\0')
		cJSON_AddItemToArray(ips, cJSON_CreateString(e->addr4));
	if (e->addr6[0] != '\0')
		cJSON_AddItemToArray(ips, cJSON_CreateString(e->addr6));
	cJSON_AddNumberToObject(doc, "mtu", n->mtu);
	/* As the CNI plugin's podwire.json: the app configures as many rx
	 * and tx queues (podwire-vdev --queues). */
	cJSON_AddNumberToObject(doc, "queues", e->queues);
	cJSON_AddStringToObject(doc, "socket", path);
	if (e->secret[0] != '\0')
		cJSON_AddStringToObject(doc, "secret", e->secret);
	cJSON_AddItemToObject(doc, "deviceInfo", device_info(e, path));
	snprintf(file, sizeof(file), "%s/" PODWIRE_JSON, e->dir);
	rc = json_file_write(file, doc, 0640, (gid_t)-1, msg, sizeof(msg));
	cJSON_Delete(doc);
	if (rc != 0) {
		dk_fail(err, 500, "endpoint %.12s: %s", e->id, msg);
		return -1;
	}
	/* The placeholder: no traffic, only the identity dockerd gives it. A
	 * veth pair (not every kernel has dummy interfaces): the container
	 * gets pwp<id>, pwq<id> stays down in the host and goes with it. */
	snprintf(e->iface, sizeof(e->iface), "pwp%.12s", e->id);
	snprintf(other, sizeof(other), "pwq%.12s", e->id);
	validate_mac("endpoint", e->mac, mac, msg, sizeof(msg));
	rc = link_veth_create(other, e->iface, (unsigned int)n->mtu, mac, msg, sizeof(msg));
	if (rc == 0) {
		snprintf(alias, sizeof(alias), ALIAS_PREFIX "%.12s", e->id);
		rc = link_set_up(e->iface, alias, msg, sizeof(msg));
		if (rc != 0)
			link_delete(if_nametoindex(other), alias, sizeof(alias));
	}
	if (rc != 0) {
		dk_fail(err, 500, "endpoint %.12s: placeholder interface: %s", e->id, msg);
		return -1;
	}
	return 0;
}

void endpoint_host_cleanup(const struct dk_endpoint *e)
{
	char file[DK_PATH_MAX + 32], alias[64], have[64], msg[256];
	unsigned int idx;

	/* The placeholder is back in the host's namespace after Leave (dockerd
	 * moves it out again); in a namespace that went, it went too (with
	 * its pair). Only ours (by alias) is deleted, and its pair with it. */
	snprintf(alias, sizeof(alias), ALIAS_PREFIX "%.12s", e->id);
	if (e->iftype != DK_IF_KERNEL && e->iface[0] != '\0' &&
	    (idx = if_nametoindex(e->iface)) != 0 &&
	    link_alias(e->iface, have, sizeof(have)) == 0 && strcmp(have, alias) == 0 &&
	    link_delete(idx, msg, sizeof(msg)) != 0)
		dk_log("endpoint %.12s: %s", e->id, msg);
	if (e->dir[0] == '\0')
		return;
	snprintf(file, sizeof(file), "%s/" PODWIRE_JSON, e->dir);
	unlink(file);
	/* podwired removes its socket with the port; one left by a podwired
	 * that could not be asked is removed here. */
	snprintf(file, sizeof(file), "%s/%s", e->dir, dpdk_socket_name(e->iftype));
	unlink(file);
	if (rmdir(e->dir) != 0 && errno != ENOENT)
		dk_log("endpoint %.12s: cannot remove %s: %s", e->id, e->dir, strerror(errno));
}
