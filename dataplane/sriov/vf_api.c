/* SPDX-License-Identifier: BSD-3-Clause */
/* vf.list, vf.alloc, vf.release: the SR-IOV VF pools (vf_pool.c) over the
 * API. Validation happens here; vf_pool changes nothing when it fails.
 * And the "sriov" module (core/module.h), which restores the allocations.
 * No DPDK, no model: what holds a VF is asked of the others
 * (NOTIFY_PCI_USER, core/notify.h). */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "api/registry.h"
#include "core/config.h"
#include "core/log.h"
#include "core/loop.h"
#include "core/module.h"
#include "core/notify.h"
#include "sriov/vf_pool.h"
#include "validate.h"

PW_LOG_TYPE("sriov");

/* Re-reads the VF allocations saved under the state dir (vfs.json) and
 * logs the pools; the pools themselves were found by options_parse. */
static int sriov_init(void)
{
	pthread_mutex_lock(&ctl_lock);
	vf_pool_restore(pw_cfg.state_dir);
	vf_pool_refresh();
	for (unsigned int i = 0; i < vf_pool_physnet_count(); i++) {
		const struct vf_physnet *p = vf_pool_physnet(i);
		unsigned int n[3] = {0, 0, 0};

		for (unsigned int j = 0; j < vf_pool_entry_count(); j++)
			if (vf_pool_entry(j)->physnet == i)
				n[vf_pool_entry(j)->state]++;
		LOG(NOTICE, "physnet %s: %u PF(s), %u VF(s) free, %u used, %u unavailable", p->name,
		    p->n_pfs, n[VF_FREE], n[VF_USED], n[VF_UNAVAILABLE]);
	}
	pthread_mutex_unlock(&ctl_lock);
	return 0;
}

/* After the model, which answers NOTIFY_PCI_USER for the pci ports that
 * hold a VF (and came before the pools at every start so far). */
PW_MODULE(sriov, sriov_init, NULL, "model");

static cJSON *vf_json(const struct vf_entry *e)
{
	cJSON *o = cJSON_CreateObject();

	cJSON_AddStringToObject(o, API_F_PCI, e->vf.pci);
	cJSON_AddStringToObject(o, API_R_PF, e->vf.pf);
	cJSON_AddNumberToObject(o, API_R_VF_INDEX, e->vf.vf_index);
	cJSON_AddStringToObject(o, API_R_DRIVER, e->vf.driver);
	if (e->vf.iommu_group >= 0)
		cJSON_AddNumberToObject(o, API_R_IOMMU_GROUP, e->vf.iommu_group);
	else
		cJSON_AddNullToObject(o, API_R_IOMMU_GROUP);
	cJSON_AddStringToObject(o, API_R_NETDEV, e->vf.netdev);
	cJSON_AddStringToObject(o, API_R_STATE, vf_state_name(e->state));
	cJSON_AddStringToObject(o, API_F_OWNER, e->state == VF_USED ? e->owner : "");
	cJSON_AddStringToObject(o, API_R_REASON, e->reason);
	return o;
}

static cJSON *physnet_json(unsigned int i)
{
	const struct vf_physnet *p = vf_pool_physnet(i);
	cJSON *o = cJSON_CreateObject(), *pfs, *vfs;
	unsigned int n[3] = {0, 0, 0}, total = 0;

	cJSON_AddStringToObject(o, API_F_PHYSNET, p->name);
	pfs = cJSON_CreateArray();
	for (unsigned int j = 0; j < p->n_pfs; j++) {
		cJSON *f = cJSON_CreateObject();

		cJSON_AddStringToObject(f, API_R_PF, p->pfs[j].pf);
		cJSON_AddStringToObject(f, API_F_PCI, p->pfs[j].pf_pci);
		cJSON_AddNumberToObject(f, API_R_FIRST_VF, p->pfs[j].first);
		cJSON_AddNumberToObject(f, API_R_LAST_VF, p->pfs[j].last);
		cJSON_AddItemToArray(pfs, f);
	}
	vfs = cJSON_CreateArray();
	for (unsigned int j = 0; j < vf_pool_entry_count(); j++) {
		const struct vf_entry *e = vf_pool_entry(j);

		if (e->physnet != i)
			continue;
		total++;
		n[e->state]++;
		cJSON_AddItemToArray(vfs, vf_json(e));
	}
	cJSON_AddNumberToObject(o, API_R_TOTAL, total);
	cJSON_AddNumberToObject(o, API_R_FREE, n[VF_FREE]);
	cJSON_AddNumberToObject(o, API_R_USED, n[VF_USED]);
	cJSON_AddNumberToObject(o, API_R_UNAVAILABLE, n[VF_UNAVAILABLE]);
	cJSON_AddItemToObject(o, API_R_PFS, pfs);
	cJSON_AddItemToObject(o, API_R_VFS, vfs);
	return o;
}

static void not_configured(const char *physnet, char *msg, size_t len)
{
	size_t off = (size_t)snprintf(msg, len, "physnet \"%s\" is not configured; ", physnet);

	if (vf_pool_physnet_count() == 0) {
		snprintf(msg + off, len - off,
			 "podwired has no physnets: start it with --physnets %s:PF", physnet);
		return;
	}
	off += (size_t)snprintf(msg + off, len - off, "podwired knows");
	for (unsigned int i = 0; i < vf_pool_physnet_count() && off < len; i++)
		off += (size_t)snprintf(msg + off, len - off, "%s %s", i ? "," : "",
					vf_pool_physnet(i)->name);
	if (off < len)
		snprintf(msg + off, len - off, " (see --physnets)");
}

static cJSON *h_vf_list(const cJSON *params, struct api_err *err)
{
	char *msg = err->msg;
	size_t len = sizeof(err->msg);
	int *code = &err->code;
	const char **field = &err->field;
	const char *name = api_get_str(params, API_F_PHYSNET, NULL);
	int only = -1;
	cJSON *o, *a;

	if (name != NULL && (only = vf_pool_physnet_find(name)) < 0) {
		not_configured(name, msg, len);
		*code = API_ERR_NOT_FOUND;
		*field = API_F_PHYSNET;
		return NULL;
	}
	vf_pool_refresh();
	o = cJSON_CreateObject();
	a = cJSON_AddArrayToObject(o, API_R_PHYSNETS);
	for (unsigned int i = 0; i < vf_pool_physnet_count(); i++)
		if (only < 0 || (unsigned int)only == i)
			cJSON_AddItemToArray(a, physnet_json(i));
	return o;
}

/* An owner is an opaque key (CNI: containerID/ifname): printable ASCII. */
static int check_owner(const char *owner, char *msg, size_t len)
{
	size_t n = strlen(owner);

	if (n == 0 || n > VF_OWNER_MAX) {
		snprintf(msg, len, "owner is %zu bytes; give 1-%d, e.g. \"<containerID>/<ifname>\"",
			 n, VF_OWNER_MAX);
		return -EINVAL;
	}
	for (size_t i = 0; i < n; i++) {
		if (owner[i] <= ' ' || owner[i] > '~') {
			snprintf(msg, len,
				 "owner \"%s\" has a space or control character at offset %zu; "
				 "use printable characters without spaces",
				 owner, i);
			return -EINVAL;
		}
	}
	return 0;
}

static cJSON *h_vf_alloc(const cJSON *params, struct api_err *err)
{
	char *msg = err->msg;
	size_t len = sizeof(err->msg);
	int *code = &err->code;
	const char **field = &err->field;
	const char *physnet = api_get_str(params, API_F_PHYSNET, "");
	const char *owner = api_get_str(params, API_F_OWNER, "");
	const char *mac = api_get_str(params, API_F_MAC, NULL);
	struct sriov_vf_conf conf = {.vlan = -1, .spoofchk = -1, .trust = -1};
	const struct vf_entry *e;
	char obj[128], dev[64];
	cJSON *o;
	int rc;

	snprintf(obj, sizeof(obj), "vf.alloc in physnet \"%.60s\"", physnet);
	if (vf_pool_physnet_find(physnet) < 0) {
		not_configured(physnet, msg, len);
		*code = API_ERR_NOT_FOUND;
		*field = API_F_PHYSNET;
		return NULL;
	}
	if (check_owner(owner, msg, len) != 0) {
		*code = API_ERR_INVALID_PARAMS;
		*field = API_F_OWNER;
		return NULL;
	}
	if (cJSON_GetObjectItemCaseSensitive(params, API_F_VLAN) != NULL) {
		long vlan = api_get_int(params, API_F_VLAN, 0);

		if (validate_vlan(obj, vlan, msg, len) != 0) {
			*code = API_ERR_INVALID_PARAMS;
			*field = API_F_VLAN;
			return NULL;
		}
		conf.vlan = (int)vlan;
	}
	if (mac != NULL) {
		if (validate_mac(obj, mac, conf.mac, msg, len) != 0) {
			*code = API_ERR_INVALID_PARAMS;
			*field = API_F_MAC;
			return NULL;
		}
		conf.set_mac = true;
	}
	if (cJSON_GetObjectItemCaseSensitive(params, API_F_SPOOFCHK) != NULL)
		conf.spoofchk = api_get_bool(params, API_F_SPOOFCHK, true);
	if (cJSON_GetObjectItemCaseSensitive(params, API_F_TRUST) != NULL)
		conf.trust = api_get_bool(params, API_F_TRUST, false);

	rc = vf_pool_alloc(physnet, owner, &conf, &e, msg, len);
	if (rc != 0) {
		*code = rc == -ENOENT	   ? API_ERR_NOT_FOUND
			: rc == -ECANCELED ? API_ERR_INTERNAL
					   : API_ERR_RESOURCE;
		*field = rc == -ENOENT || rc == -ENOSPC ? API_F_PHYSNET : NULL;
		return NULL;
	}
	LOG(NOTICE, "VF %s (PF %s VF %d, physnet %s) bound to vfio-pci for %s; %s", e->vf.pci,
	    e->vf.pf, e->vf.vf_index, physnet, owner, e->vf_config);
	o = cJSON_CreateObject();
	cJSON_AddStringToObject(o, API_F_PCI, e->vf.pci);
	cJSON_AddStringToObject(o, API_R_PF, e->vf.pf);
	cJSON_AddStringToObject(o, API_R_PF_PCI, e->vf.pf_pci);
	cJSON_AddNumberToObject(o, API_R_VF_INDEX, e->vf.vf_index);
	cJSON_AddStringToObject(o, API_F_PHYSNET, physnet);
	cJSON_AddStringToObject(o, API_F_OWNER, e->owner);
	cJSON_AddStringToObject(o, API_R_DRIVER, e->vf.driver);
	cJSON_AddStringToObject(o, API_R_ORIGINAL_DRIVER, e->orig_driver);
	if (e->vf.iommu_group >= 0)
		cJSON_AddNumberToObject(o, API_R_IOMMU_GROUP, e->vf.iommu_group);
	else
		cJSON_AddNullToObject(o, API_R_IOMMU_GROUP);
	sriov_vfio_device(&e->vf, dev, sizeof(dev));
	cJSON_AddStringToObject(o, API_R_VFIO_DEVICE, dev);
	vf_entry_conf_json(e, o, true);
	return o;
}

static void released_json(const struct vf_entry *e, void *arg)
{
	cJSON *o = cJSON_CreateObject();

	cJSON_AddStringToObject(o, API_F_PCI, e->vf.pci);
	cJSON_AddStringToObject(o, API_R_PF, e->vf.pf);
	cJSON_AddNumberToObject(o, API_R_VF_INDEX, e->vf.vf_index);
	cJSON_AddStringToObject(o, API_F_PHYSNET, vf_pool_physnet(e->physnet)->name);
	cJSON_AddStringToObject(o, API_F_OWNER, e->owner);
	cJSON_AddStringToObject(o, API_R_DRIVER, e->vf.driver);
	cJSON_AddItemToArray(arg, o);
	LOG(NOTICE, "VF %s released by %s, back on %s", e->vf.pci, e->owner,
	    e->vf.driver[0] ? e->vf.driver : "no driver");
}

static cJSON *h_vf_release(const cJSON *params, struct api_err *err)
{
	char *msg = err->msg;
	size_t len = sizeof(err->msg);
	int *code = &err->code;
	const char **field = &err->field;
	const char *pci = api_get_str(params, API_F_PCI, NULL);
	const char *owner = api_get_str(params, API_F_OWNER, NULL);
	char norm[SRIOV_PCI_LEN];
	cJSON *o, *a;
	int rc;

	if ((pci == NULL) == (owner == NULL))
		return api_fail(err, API_ERR_INVALID_PARAMS, pci ? API_F_OWNER : API_F_PCI,
				"vf.release: give exactly one of \"pci\" (one VF) or \"owner\" "
				"(every VF it holds)");
	if (pci != NULL) {
		if (validate_pci_addr("vf.release", pci, norm, msg, len) != 0) {
			*code = API_ERR_INVALID_PARAMS;
			*field = API_F_PCI;
			return NULL;
		}
		pci = norm;
	} else if (check_owner(owner, msg, len) != 0) {
		*code = API_ERR_INVALID_PARAMS;
		*field = API_F_OWNER;
		return NULL;
	}
	/* Unbinding a VF DPDK holds open would block in the kernel until the
	 * port closes it: the port goes first. */
	for (unsigned int i = 0; i < vf_pool_entry_count(); i++) {
		const struct vf_entry *e = vf_pool_entry(i);
		const char *user;

		if (e->state != VF_USED ||
		    (pci != NULL ? strcmp(e->vf.pci, pci) : strcmp(e->owner, owner)) != 0)
			continue;
		user = NULL;
		notify_publish(NOTIFY_PCI_USER,
			       &(struct notify_pci_user){.pci = e->vf.pci, .user = &user});
		if (user != NULL)
			return api_fail(err, API_ERR_IN_USE, pci ? API_F_PCI : API_F_OWNER,
					"VF %s is used by port \"%s\"; delete the port first "
					"(`podwirectl port del %s`)",
					e->vf.pci, user, user);
	}
	a = cJSON_CreateArray();
	rc = vf_pool_release(pci, owner, released_json, a, msg, len);
	if (rc != 0) {
		cJSON_Delete(a);
		*code = rc == -ECANCELED ? API_ERR_INTERNAL : API_ERR_RESOURCE;
		*field = NULL;
		return NULL;
	}
	o = cJSON_CreateObject();
	cJSON_AddItemToObject(o, API_R_RELEASED, a);
	return o;
}

API_HANDLER(VF_LIST, h_vf_list)
API_HANDLER(VF_ALLOC, h_vf_alloc)
API_HANDLER(VF_RELEASE, h_vf_release)
