/* SPDX-License-Identifier: BSD-3-Clause */
/* iftype pci: VFs borrowed from podwired's pools. */
#include <ctype.h>
#include <stdio.h>
#include <string.h>

#include "vf.h"

bool pci_addr_valid(const char *s)
{
	/* dddd:bb:dd.f */
	static const char shape[] = "xxxx:xx:xx.x";

	if (s == NULL || strlen(s) != sizeof(shape) - 1)
		return false;
	for (size_t i = 0; shape[i] != '\0'; i++)
		if (shape[i] == 'x' ? !isxdigit((unsigned char)s[i]) : s[i] != shape[i])
			return false;
	return s[11] >= '0' && s[11] <= '7';
}

cJSON *vf_alloc_params(const struct netconf *conf, const struct attach *a, const char *mac)
{
	cJSON *p = cJSON_CreateObject();
	char owner[VF_OWNER_MAX];

	vf_owner(a->containerid, a->ifname, owner);
	cJSON_AddStringToObject(p, API_F_PHYSNET, conf->physnet);
	cJSON_AddStringToObject(p, API_F_OWNER, owner);
	if (conf->vlan >= 0)
		cJSON_AddNumberToObject(p, API_F_VLAN, (double)conf->vlan);
	if (mac != NULL && mac[0] != '\0')
		cJSON_AddStringToObject(p, API_F_MAC, mac);
	if (conf->spoof_chk >= 0)
		cJSON_AddBoolToObject(p, API_F_SPOOFCHK, conf->spoof_chk);
	if (conf->trust >= 0)
		cJSON_AddBoolToObject(p, API_F_TRUST, conf->trust);
	return p;
}

/* Where the MAC came from, for messages: the last that was set wins. */
static const char *mac_source(const struct netconf *conf)
{
	const cJSON *rc = cJSON_GetObjectItemCaseSensitive(conf->root, "runtimeConfig");

	if (cJSON_IsString(cJSON_GetObjectItemCaseSensitive(rc, "mac")))
		return "runtimeConfig \"mac\"";
	return "the MAC (\"mac\" or CNI_ARGS MAC=)";
}

int vf_alloc_error(const struct pw_error *pe, const struct netconf *conf, struct cni_error *err)
{
	const char *f = pe->field;

	if (pe->code == 0 || pe->code == API_ERR_NOT_READY)
		return cni_fail(err, CNI_ERR_TRY_AGAIN,
				"podwired could not lend a VF of physnet \"%s\" now: %s; retry",
				conf->physnet, pe->message);
	/* podwired's message lists the physnets it has. */
	if (strcmp(f, API_F_PHYSNET) == 0 &&
	    (pe->code == API_ERR_NOT_FOUND || pe->code == API_ERR_INVALID_PARAMS))
		return cni_fail(err, CNI_ERR_CONFIG, "\"physnet\": %s", pe->message);
	/* The owner is made of CNI_CONTAINERID and CNI_IFNAME. */
	if (strcmp(f, API_F_OWNER) == 0 && pe->code == API_ERR_INVALID_PARAMS)
		return cni_fail(err, CNI_ERR_ENV,
				"podwired refuses CNI_CONTAINERID/CNI_IFNAME as the owner of a VF: "
				"%s",
				pe->message);
	/* No free VF (podwired names the physnet): a pod leaving gives one
	 * back, so the runtime's retry may succeed. Other resource errors
	 * (vfio-pci not loaded, a bind the kernel refused) need a person. */
	if (pe->code == API_ERR_RESOURCE && strcmp(f, API_F_PHYSNET) == 0)
		return cni_fail(err, CNI_ERR_TRY_AGAIN,
				"physnet \"%s\" has no free VF (podwired: %s); the runtime's "
				"retry succeeds once a pod gives one back",
				conf->physnet, pe->message);
	if (pe->code == API_ERR_INVALID_PARAMS || pe->code == API_ERR_NOT_FOUND) {
		const char *name = strcmp(f, API_F_VLAN) == 0	    ? "\"vlan\""
				   : strcmp(f, API_F_MAC) == 0	    ? mac_source(conf)
				   : strcmp(f, API_F_SPOOFCHK) == 0 ? "\"spoofChk\""
				   : strcmp(f, API_F_TRUST) == 0    ? "\"trust\""
								    : NULL;

		if (name != NULL)
			return cni_fail(err, CNI_ERR_CONFIG,
					"%s was refused by podwired for a VF of physnet \"%s\": "
					"%s",
					name, conf->physnet, pe->message);
	}
	return cni_fail(err, PW_ERR_PODWIRED, "podwired refused to lend a VF of physnet \"%s\": %s",
			conf->physnet, pe->message);
}

int vf_release(struct pw_client *c, const char *owner, struct cni_error *err)
{
	cJSON *params = cJSON_CreateObject(), *res = NULL;
	struct pw_error pe;

	cJSON_AddStringToObject(params, API_F_OWNER, owner);
	if (pw_client_call(c, API_NAME(VF_RELEASE), params, &res, &pe) == 0 ||
	    pe.code == API_ERR_NOT_FOUND) {
		cJSON_Delete(res);
		return 0;
	}
	if (pe.code == 0 || pe.code == API_ERR_NOT_READY)
		return cni_fail(err, CNI_ERR_TRY_AGAIN, "%s", pe.message);
	return cni_fail(err, PW_ERR_PODWIRED, "podwired refused to release the VF of %s: %s", owner,
			pe.message);
}

int vf_alloc(struct pw_client *c, const struct netconf *conf, struct attach *a, char mac[18],
	     struct cni_error *err)
{
	char owner[VF_OWNER_MAX];
	struct pw_error pe;
	cJSON *res = NULL;
	const char *pci, *pf;

	vf_owner(a->containerid, a->ifname, owner);
	if (pw_client_call(c, API_NAME(VF_ALLOC), vf_alloc_params(conf, a, mac), &res, &pe) != 0)
		return vf_alloc_error(&pe, conf, err);
	pci = api_get_str(res, API_F_PCI, "");
	pf = api_get_str(res, API_R_PF_PCI, "");
	/* Kept before checking, so that the rollback releases it by owner
	 * whatever podwired answered. */
	snprintf(a->pci, sizeof(a->pci), "%s", pci);
	snprintf(a->pf_pci, sizeof(a->pf_pci), "%s", pf);
	snprintf(a->vfio, sizeof(a->vfio), "%s", api_get_str(res, API_R_VFIO_DEVICE, ""));
	if (api_get_str(res, API_F_MAC, "")[0] != '\0')
		snprintf(mac, 18, "%s", api_get_str(res, API_F_MAC, ""));
	if (!pci_addr_valid(pci) || (pf[0] != '\0' && !pci_addr_valid(pf)) ||
	    strcmp(api_get_str(res, API_R_DRIVER, VF_DRIVER), VF_DRIVER) != 0) {
		cni_fail(err, PW_ERR_PODWIRED,
			 "podwired lent %s a VF it describes as pci \"%.32s\", pf_pci \"%.32s\", "
			 "driver \"%.32s\"; expected PCI addresses dddd:bb:dd.f and driver %s",
			 owner, pci, pf, api_get_str(res, API_R_DRIVER, ""), VF_DRIVER);
		cJSON_Delete(res);
		return -1;
	}
	cJSON_Delete(res);
	return 0;
}

/* Appends to out a copy of every object under node that describes a VF:
 * one with a string "pci" and a number "vf_index". */
static void collect_vfs(const cJSON *node, cJSON *out)
{
	const cJSON *child;

	if (cJSON_IsObject(node) &&
	    cJSON_IsString(cJSON_GetObjectItemCaseSensitive(node, API_F_PCI)) &&
	    cJSON_IsNumber(cJSON_GetObjectItemCaseSensitive(node, API_R_VF_INDEX))) {
		cJSON_AddItemToArray(out, cJSON_Duplicate(node, true));
		return;
	}
	cJSON_ArrayForEach (child, node)
		collect_vfs(child, out);
}

cJSON *vf_list(struct pw_client *c, const char *physnet, struct cni_error *err)
{
	cJSON *params = NULL, *res = NULL, *out;
	struct pw_error pe;

	if (physnet != NULL && physnet[0] != '\0') {
		params = cJSON_CreateObject();
		cJSON_AddStringToObject(params, API_F_PHYSNET, physnet);
	}
	if (pw_client_call(c, API_NAME(VF_LIST), params, &res, &pe) != 0) {
		if (pe.code == 0 || pe.code == API_ERR_NOT_READY)
			cni_fail(err, CNI_ERR_TRY_AGAIN, "%s", pe.message);
		else
			cni_fail(err, PW_ERR_PODWIRED, "podwired refused vf.list: %s", pe.message);
		return NULL;
	}
	out = cJSON_CreateArray();
	collect_vfs(res, out);
	cJSON_Delete(res);
	return out;
}

int vf_find(struct pw_client *c, const char *physnet, const char *pci, cJSON **vf,
	    struct cni_error *err)
{
	cJSON *all = vf_list(c, physnet, err), *v;

	*vf = NULL;
	if (all == NULL)
		return -1;
	cJSON_ArrayForEach (v, all) {
		if (strcasecmp(api_get_str(v, API_F_PCI, ""), pci) == 0) {
			*vf = cJSON_DetachItemViaPointer(all, v);
			break;
		}
	}
	cJSON_Delete(all);
	return *vf != NULL;
}
