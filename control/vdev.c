/* SPDX-License-Identifier: BSD-3-Clause */
/* Device-info objects and EAL --vdev values, shared by the CNI plugin,
 * podwired's CDI specs and podwire-vdev (see vdev.h). */
#include <stdio.h>
#include <string.h>

#include "api.h"
#include "vdev.h"

cJSON *devinfo_socket(bool memif, const char *pod_mode, const char *path, const char *secret)
{
	const char *type = memif ? "memif" : "vhost-user";
	cJSON *o = cJSON_CreateObject(), *d;

	cJSON_AddStringToObject(o, "type", type);
	cJSON_AddStringToObject(o, "version", DEVINFO_VERSION);
	d = cJSON_AddObjectToObject(o, type);
	cJSON_AddStringToObject(d, memif ? "role" : "mode", pod_mode);
	cJSON_AddStringToObject(d, "path", path);
	if (memif)
		cJSON_AddStringToObject(d, "mode", "ethernet");
	if (memif && secret != NULL && secret[0] != '\0')
		cJSON_AddStringToObject(d, "secret", secret);
	return o;
}

void devinfo_set_queues(cJSON *info, unsigned int queues)
{
	cJSON *d = cJSON_GetObjectItemCaseSensitive(info, api_get_str(info, "type", ""));

	if (queues > 1 && cJSON_IsObject(d))
		cJSON_AddNumberToObject(d, "queues", queues);
}

int devinfo_queues(const cJSON *info)
{
	const cJSON *d = cJSON_GetObjectItemCaseSensitive(info, api_get_str(info, "type", ""));
	const cJSON *q = cJSON_GetObjectItemCaseSensitive(d, "queues");

	if (q == NULL)
		return 1;
	if (!cJSON_IsNumber(q) || !api_number_is_long(q->valuedouble) || q->valuedouble < 1 ||
	    q->valuedouble > API_QUEUES_MAX)
		return -1;
	return (int)q->valuedouble;
}

cJSON *devinfo_pci(const char *pci, const char *pf_pci)
{
	cJSON *o = cJSON_CreateObject(), *d;

	cJSON_AddStringToObject(o, "type", "pci");
	cJSON_AddStringToObject(o, "version", DEVINFO_VERSION);
	d = cJSON_AddObjectToObject(o, "pci");
	/* Of the spec's optional keys only the PF applies: the VF is bound to
	 * vfio-pci (no vhost-net exception path, no RDMA device) and podwired
	 * does not run the PF in switchdev mode (no representor). */
	cJSON_AddStringToObject(d, "pci-address", pci);
	if (pf_pci != NULL && pf_pci[0] != '\0')
		cJSON_AddStringToObject(d, "pf-pci-address", pf_pci);
	return o;
}

int devinfo_vdev(const cJSON *info, const char *mac, unsigned int index, char *buf, size_t len,
		 char *msg, size_t msglen)
{
	const char *type = api_get_str(info, "type", "");
	const cJSON *d = cJSON_GetObjectItemCaseSensitive(info, type);
	const char *path = api_get_str(d, "path", NULL);
	char macarg[32] = "", qarg[24] = "";
	int n, queues;

	if (mac != NULL && mac[0] != '\0')
		snprintf(macarg, sizeof(macarg), ",mac=%s", mac);
	if (strcmp(type, "vhost-user") != 0 && strcmp(type, "memif") != 0) {
		snprintf(msg, msglen,
			 "device type \"%s\" has no DPDK vdev; podwire-vdev knows "
			 "\"vhost-user\" and \"memif\"",
			 type);
		return -1;
	}
	if (!cJSON_IsObject(d) || path == NULL || path[0] != '/') {
		snprintf(msg, msglen, "the \"%s\" device has no absolute \"%s\".\"path\"", type,
			 type);
		return -1;
	}
	queues = devinfo_queues(info);
	if (queues < 0) {
		snprintf(msg, msglen,
			 "the \"%s\" device's \"queues\" must be an integer 1-%d (the queue "
			 "pairs its port offers)",
			 type, API_QUEUES_MAX);
		return -1;
	}
	if (strcmp(type, "vhost-user") == 0) {
		const char *mode = api_get_str(d, "mode", "");

		/* mode is the pod's side: "server" means the app creates the socket. */
		if (strcmp(mode, "client") != 0 && strcmp(mode, "server") != 0) {
			snprintf(msg, msglen,
				 "vhost-user \"mode\" is \"%s\"; expected \"client\" or "
				 "\"server\"",
				 mode);
			return -1;
		}
		/* virtio-user's queues= is the most queue pairs it negotiates;
		 * the app still configures how many it uses (--rxq/--txq). */
		if (queues > 1)
			snprintf(qarg, sizeof(qarg), ",queues=%d", queues);
		n = snprintf(buf, len, "net_virtio_user%u,path=%s%s,server=%d%s", index, path,
			     macarg, strcmp(mode, "server") == 0, qarg);
	} else {
		const char *role = api_get_str(d, "role", "");
		const char *mode = api_get_str(d, "mode", "ethernet");
		const char *secret = api_get_str(d, "secret", NULL);
		char secretarg[48] = "";

		if (strcmp(role, "slave") != 0 && strcmp(role, "master") != 0) {
			snprintf(msg, msglen,
				 "memif \"role\" is \"%s\"; expected \"slave\" or "
				 "\"master\"",
				 role);
			return -1;
		}
		if (strcmp(mode, "ethernet") != 0) {
			snprintf(msg, msglen,
				 "memif \"mode\" is \"%s\"; DPDK's net_memif speaks "
				 "\"ethernet\" only",
				 mode);
			return -1;
		}
		/* net_memif keeps at most 23 bytes of secret=, and a devarg ends
		 * at ',' or '='. */
		if (secret != NULL &&
		    (secret[0] == '\0' || strlen(secret) > 23 || strpbrk(secret, ",= ") != NULL)) {
			snprintf(msg, msglen,
				 "memif \"secret\" must be 1-23 characters without ',', '=' or "
				 "spaces (DPDK's net_memif takes no other)");
			return -1;
		}
		if (secret != NULL)
			snprintf(secretarg, sizeof(secretarg), ",secret=%s", secret);
		/* DPDK 22.11 calls the memif master "server" and the slave "client". */
		n = snprintf(buf, len, "net_memif%u,role=%s,socket=%s,socket-abstract=no%s%s",
			     index, strcmp(role, "master") == 0 ? "server" : "client", path, macarg,
			     secretarg);
	}
	if (n < 0 || (size_t)n >= len) {
		snprintf(msg, msglen, "the vdev argument for %s is too long", path);
		return -1;
	}
	return 0;
}

int devinfo_eal_args(const char *vdev, bool memif, char *buf, size_t len)
{
	int n = snprintf(buf, len, "--vdev=%s%s", vdev, memif ? "" : " --single-file-segments");

	return n < 0 || (size_t)n >= len ? -1 : 0;
}
