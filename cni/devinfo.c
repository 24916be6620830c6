/* SPDX-License-Identifier: BSD-3-Clause */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "devinfo.h"
#include "files.h"

cJSON *devinfo_build(const struct attach *a)
{
	cJSON *o = cJSON_CreateObject(), *d;
	bool memif = a->iftype == IFTYPE_MEMIF;

	cJSON_AddStringToObject(o, "type", iftype_name(a->iftype));
	cJSON_AddStringToObject(o, "version", DEVINFO_VERSION);
	d = cJSON_AddObjectToObject(o, iftype_name(a->iftype));
	if (a->iftype == IFTYPE_PCI) {
		/* Of the spec's optional keys only the PF applies: the VF is
		 * bound to vfio-pci (no vhost-net exception path, no RDMA
		 * device) and podwired does not run the PF in switchdev mode
		 * (no representor). */
		cJSON_AddStringToObject(d, "pci-address", a->pci);
		if (a->pf_pci[0] != '\0')
			cJSON_AddStringToObject(d, "pf-pci-address", a->pf_pci);
		return o;
	}
	cJSON_AddStringToObject(d, memif ? "role" : "mode", a->mode);
	cJSON_AddStringToObject(d, "path", a->pod_socket);
	if (memif)
		cJSON_AddStringToObject(d, "mode", "ethernet");
	return o;
}

int devinfo_vdev(const cJSON *info, const char *mac, unsigned int index, char *buf, size_t len,
		 char *msg, size_t msglen)
{
	const char *type = api_get_str(info, "type", "");
	const cJSON *d = cJSON_GetObjectItemCaseSensitive(info, type);
	const char *path = api_get_str(d, "path", NULL);
	char macarg[32] = "";
	int n;

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
		n = snprintf(buf, len, "net_virtio_user%u,path=%s%s,server=%d", index, path, macarg,
			     strcmp(mode, "server") == 0);
	} else {
		const char *role = api_get_str(d, "role", "");
		const char *mode = api_get_str(d, "mode", "ethernet");

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
		/* DPDK 22.11 calls the memif master "server" and the slave "client". */
		n = snprintf(buf, len, "net_memif%u,role=%s,socket=%s,socket-abstract=no%s", index,
			     strcmp(role, "master") == 0 ? "server" : "client", path, macarg);
	}
	if (n < 0 || (size_t)n >= len) {
		snprintf(msg, msglen, "the vdev argument for %s is too long", path);
		return -1;
	}
	return 0;
}

cJSON *podwire_json_build(const struct attach *a, const char *mac, long mtu, const cJSON *result)
{
	cJSON *o = cJSON_CreateObject(), *info = devinfo_build(a), *ips, *eal;
	const cJSON *ifs = cJSON_GetObjectItemCaseSensitive(result, "interfaces"), *i;
	const cJSON *routes = cJSON_GetObjectItemCaseSensitive(result, "routes");
	const cJSON *dns = cJSON_GetObjectItemCaseSensitive(result, "dns");
	const char *gateway = NULL;
	char vdev[512], msg[256], arg[600];
	int index = -1, k = 0;

	cJSON_ArrayForEach (i, ifs) {
		if (strcmp(api_get_str(i, "name", ""), a->ifname) == 0)
			index = k;
		k++;
	}
	cJSON_AddNumberToObject(o, "version", 1);
	cJSON_AddStringToObject(o, "containerID", a->containerid);
	cJSON_AddStringToObject(o, "ifname", a->ifname);
	cJSON_AddStringToObject(o, "cniNetwork", a->cni_name);
	cJSON_AddStringToObject(o, "iftype", iftype_name(a->iftype));
	if (a->iftype == IFTYPE_PCI) {
		/* The app drives the VF itself: it needs the address and the
		 * VFIO group's node, which the pod must be given (see README). */
		cJSON_AddStringToObject(o, "physnet", a->physnet);
		cJSON_AddStringToObject(o, "pci", a->pci);
		cJSON_AddStringToObject(o, "pfPci", a->pf_pci);
		cJSON_AddStringToObject(o, "vfioDevice", a->vfio);
		if (mac[0] != '\0')
			cJSON_AddStringToObject(o, "mac", mac);
	} else {
		cJSON_AddStringToObject(o, "network", a->network);
		cJSON_AddStringToObject(o, "port", a->port);
		cJSON_AddStringToObject(o, a->iftype == IFTYPE_MEMIF ? "role" : "mode", a->mode);
		cJSON_AddStringToObject(o, "socket", a->pod_socket);
		cJSON_AddStringToObject(o, "hostSocket", a->socket);
		cJSON_AddStringToObject(o, "mac", mac);
		cJSON_AddNumberToObject(o, "mtu", (double)mtu);
	}
	ips = cJSON_AddArrayToObject(o, "ips");
	cJSON_ArrayForEach (i, cJSON_GetObjectItemCaseSensitive(result, "ips")) {
		if (api_get_int(i, "interface", -1) != index)
			continue;
		cJSON_AddItemToArray(ips, cJSON_CreateString(api_get_str(i, "address", "")));
		if (gateway == NULL)
			gateway = api_get_str(i, "gateway", NULL);
	}
	if (gateway != NULL)
		cJSON_AddStringToObject(o, "gateway", gateway);
	cJSON_AddItemToObject(o, "routes",
			      cJSON_IsArray(routes) ? cJSON_Duplicate(routes, true)
						    : cJSON_CreateArray());
	cJSON_AddItemToObject(
	    o, "dns", cJSON_IsObject(dns) ? cJSON_Duplicate(dns, true) : cJSON_CreateObject());
	if (a->iftype == IFTYPE_PCI) {
		eal = cJSON_AddArrayToObject(o, "eal");
		snprintf(arg, sizeof(arg), "--allow=%s", a->pci);
		cJSON_AddItemToArray(eal, cJSON_CreateString(arg));
	} else if (devinfo_vdev(info, mac, 0, vdev, sizeof(vdev), msg, sizeof(msg)) == 0) {
		cJSON_AddStringToObject(o, "vdev", vdev);
		eal = cJSON_AddArrayToObject(o, "eal");
		snprintf(arg, sizeof(arg), "--vdev=%s", vdev);
		cJSON_AddItemToArray(eal, cJSON_CreateString(arg));
		/* vhost-user takes few memory regions; one file per segment fits. */
		if (a->iftype == IFTYPE_VHOST)
			cJSON_AddItemToArray(eal, cJSON_CreateString("--single-file-segments"));
	}
	cJSON_AddItemToObject(o, "deviceInfo", info);
	return o;
}

int devinfo_write(const char *path, const cJSON *info, struct cni_error *err)
{
	char dir[PATH_MAX];
	char *slash;
	int rc;

	snprintf(dir, sizeof(dir), "%s", path);
	slash = strrchr(dir, '/');
	if (slash != NULL && slash != dir) {
		*slash = '\0';
		rc = mkdir_parents(dir, 0755);
		if (rc != 0)
			return cni_fail(err, PW_ERR_FILES,
					"cannot create %s for the device-info file "
					"(runtimeConfig.CNIDeviceInfoFile): %s",
					dir, strerror(-rc));
	}
	return cni_write_json(path, info, 0644, (gid_t)-1, err);
}
