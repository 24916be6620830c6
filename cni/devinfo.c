/* SPDX-License-Identifier: BSD-3-Clause */
#include <errno.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "devinfo.h"
#include "files.h"

cJSON *devinfo_build(const struct attach *a)
{
	if (a->iftype == IFTYPE_PCI)
		return devinfo_pci(a->pci, a->pf_pci);
	if (a->iftype == IFTYPE_KERNEL)
		return NULL;
	cJSON *info = devinfo_socket(a->iftype == IFTYPE_MEMIF, a->mode, a->pod_socket, a->secret);

	devinfo_set_queues(info, a->queues);
	return info;
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
	} else if (a->iftype == IFTYPE_KERNEL) {
		/* For people and tools: the pod itself sees an ordinary ifname. */
		cJSON_AddStringToObject(o, "network", a->network);
		cJSON_AddStringToObject(o, "port", a->port);
		cJSON_AddStringToObject(o, "hostIface", a->host_iface);
		cJSON_AddStringToObject(o, "mac", mac);
		cJSON_AddNumberToObject(o, "mtu", (double)mtu);
	} else {
		cJSON_AddStringToObject(o, "network", a->network);
		cJSON_AddStringToObject(o, "port", a->port);
		cJSON_AddStringToObject(o, a->iftype == IFTYPE_MEMIF ? "role" : "mode", a->mode);
		cJSON_AddStringToObject(o, "socket", a->pod_socket);
		cJSON_AddStringToObject(o, "hostSocket", a->socket);
		if (a->secret[0] != '\0')
			cJSON_AddStringToObject(o, "secret", a->secret);
		cJSON_AddStringToObject(o, "mac", mac);
		cJSON_AddNumberToObject(o, "mtu", (double)mtu);
		/* The queue pairs the port offers: the app configures as many rx
		 * and tx queues to use them all (memif has no devarg for it). */
		cJSON_AddNumberToObject(o, "queues", a->queues > 1 ? a->queues : 1);
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
	if (a->iftype == IFTYPE_KERNEL) {
		/* no EAL arguments, no device-info: see devinfo_build */
	} else if (a->iftype == IFTYPE_PCI) {
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
	if (info != NULL)
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
	/* A memif secret is for root (Multus) and the pod, not every host
	 * user. */
	return cni_write_json(
	    path, info,
	    api_get_str(cJSON_GetObjectItemCaseSensitive(info, "memif"), "secret", NULL) != NULL
		? 0600
		: 0644,
	    (gid_t)-1, err);
}

/* Every entry of want is in have with the same value. */
static bool entries_within(const cJSON *want, const cJSON *have)
{
	const cJSON *w;

	if (!cJSON_IsObject(want) || !cJSON_IsObject(have))
		return false;
	cJSON_ArrayForEach (w, want) {
		const cJSON *h = cJSON_GetObjectItemCaseSensitive(have, w->string);

		if (h == NULL || !cJSON_Compare(w, h, true))
			return false;
	}
	return true;
}

int devinfo_remove(const struct attach *a)
{
	cJSON *want, *have = NULL;
	const char *type;
	char msg[PATH_MAX + 64];
	struct stat st;
	bool ours;
	int rc;

	if (a->devinfo[0] == '\0')
		return 0;
	rc = lstat(a->devinfo, &st);
	if (rc != 0 && errno == ENOENT)
		return 0;
	want = devinfo_build(a);
	type = api_get_str(want, "type", "");
	ours = rc == 0 && S_ISREG(st.st_mode) &&
	       json_file_read(a->devinfo, 1 << 20, &have, msg, sizeof(msg)) == 0 &&
	       strcmp(api_get_str(have, "type", ""), type) == 0 &&
	       entries_within(cJSON_GetObjectItemCaseSensitive(want, type),
			      cJSON_GetObjectItemCaseSensitive(have, type));
	cJSON_Delete(want);
	cJSON_Delete(have);
	if (ours && (unlink(a->devinfo) == 0 || errno == ENOENT))
		return 0;
	fprintf(stderr,
		"podwire: %s/%s: device-info file %s is not the one podwire wrote (%s); left "
		"in place\n",
		a->containerid, a->ifname, a->devinfo,
		ours ? strerror(errno) : "another device's, or changed since");
	return 1;
}
