/* SPDX-License-Identifier: BSD-3-Clause */
/* CNI versions, and results converted between their versions' shapes. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "result.h"

const char *const cni_versions[] = {"0.3.0", "0.3.1", "0.4.0", "1.0.0", "1.1.0", NULL};

/* Fields that appeared in 1.1.0; older readers may reject them. */
static const char *const iface_fields_1_1[] = {"mtu", "socketPath", "pciID", NULL};
static const char *const route_fields_1_1[] = {"mtu", "advmss", "priority", "table", "scope", NULL};

bool cni_version_supported(const char *v)
{
	for (int i = 0; v != NULL && cni_versions[i] != NULL; i++)
		if (strcmp(v, cni_versions[i]) == 0)
			return true;
	return false;
}

static bool version_parse(const char *v, long out[3])
{
	char *end;

	for (int i = 0; i < 3; i++) {
		if (v == NULL || *v < '0' || *v > '9')
			return false;
		out[i] = strtol(v, &end, 10);
		if (i < 2 && *end != '.')
			return false;
		v = end + 1;
		if (i == 2 && *end != '\0')
			return false;
	}
	return true;
}

int cni_version_cmp(const char *a, const char *b)
{
	long va[3], vb[3];
	bool oka = version_parse(a, va), okb = version_parse(b, vb);

	if (!oka || !okb)
		return (int)oka - (int)okb;
	for (int i = 0; i < 3; i++)
		if (va[i] != vb[i])
			return va[i] < vb[i] ? -1 : 1;
	return 0;
}

/* Copies an array of objects, checking each is an object. */
static cJSON *copy_objects(const cJSON *arr, const char *what, const char *name,
			   struct cni_error *err)
{
	const cJSON *item;

	if (arr == NULL || cJSON_IsNull(arr))
		return cJSON_CreateArray();
	if (!cJSON_IsArray(arr)) {
		cni_fail(err, CNI_ERR_DECODE, "%s: \"%s\" must be an array of objects", what, name);
		return NULL;
	}
	cJSON_ArrayForEach (item, arr) {
		if (!cJSON_IsObject(item)) {
			cni_fail(err, CNI_ERR_DECODE,
				 "%s: every member of \"%s\" must be an object", what, name);
			return NULL;
		}
	}
	return cJSON_Duplicate(arr, true);
}

cJSON *result_normalize(const cJSON *in, const char *what, struct cni_error *err)
{
	cJSON *out, *ips, *ifs, *routes, *ip;
	const cJSON *dns;

	if (!cJSON_IsObject(in)) {
		cni_fail(err, CNI_ERR_DECODE, "%s: not a JSON object", what);
		return NULL;
	}
	out = cJSON_CreateObject();
	ifs = copy_objects(cJSON_GetObjectItemCaseSensitive(in, "interfaces"), what, "interfaces",
			   err);
	ips = ifs ? copy_objects(cJSON_GetObjectItemCaseSensitive(in, "ips"), what, "ips", err)
		  : NULL;
	routes =
	    ips ? copy_objects(cJSON_GetObjectItemCaseSensitive(in, "routes"), what, "routes", err)
		: NULL;
	if (routes == NULL) {
		cJSON_Delete(ifs);
		cJSON_Delete(ips);
		cJSON_Delete(out);
		return NULL;
	}
	cJSON_AddItemToObject(out, "interfaces", ifs);
	cJSON_AddItemToObject(out, "ips", ips);
	cJSON_AddItemToObject(out, "routes", routes);
	cJSON_ArrayForEach (ip, ips) {
		const cJSON *addr = cJSON_GetObjectItemCaseSensitive(ip, "address");

		if (!cJSON_IsString(addr) || strchr(addr->valuestring, '/') == NULL) {
			cJSON_Delete(out);
			cni_fail(err, CNI_ERR_DECODE,
				 "%s: an entry of \"ips\" has no \"address\" in CIDR form", what);
			return NULL;
		}
		/* 1.0.0 dropped "version": it is implied by the address. */
		cJSON_DeleteItemFromObjectCaseSensitive(ip, "version");
	}
	dns = cJSON_GetObjectItemCaseSensitive(in, "dns");
	if (cJSON_IsObject(dns) && dns->child != NULL)
		cJSON_AddItemToObject(out, "dns", cJSON_Duplicate(dns, true));
	return out;
}

cJSON *result_merge(const cJSON *prev, const cJSON *ipam, const struct result_iface *iface)
{
	cJSON *out = cJSON_CreateObject(), *ifs, *ips, *i, *ours;
	const cJSON *routes = NULL, *dns = NULL, *ip;
	int index;

	ifs = prev ? cJSON_Duplicate(cJSON_GetObjectItemCaseSensitive(prev, "interfaces"), true)
		   : NULL;
	ips = prev ? cJSON_Duplicate(cJSON_GetObjectItemCaseSensitive(prev, "ips"), true) : NULL;
	if (!cJSON_IsArray(ifs)) {
		cJSON_Delete(ifs);
		ifs = cJSON_CreateArray();
	}
	if (!cJSON_IsArray(ips)) {
		cJSON_Delete(ips);
		ips = cJSON_CreateArray();
	}
	if (iface->host_name != NULL && iface->host_name[0] != '\0') {
		cJSON *host = cJSON_CreateObject();

		cJSON_AddStringToObject(host, "name", iface->host_name);
		if (iface->host_mac != NULL && iface->host_mac[0] != '\0')
			cJSON_AddStringToObject(host, "mac", iface->host_mac);
		if (iface->mtu > 0)
			cJSON_AddNumberToObject(host, "mtu", (double)iface->mtu);
		cJSON_AddItemToArray(ifs, host);
	}
	index = cJSON_GetArraySize(ifs);
	ours = cJSON_CreateObject();
	cJSON_AddStringToObject(ours, "name", iface->name);
	if (iface->mac != NULL && iface->mac[0] != '\0')
		cJSON_AddStringToObject(ours, "mac", iface->mac);
	if (iface->mtu > 0)
		cJSON_AddNumberToObject(ours, "mtu", (double)iface->mtu);
	if (iface->sandbox != NULL && iface->sandbox[0] != '\0')
		cJSON_AddStringToObject(ours, "sandbox", iface->sandbox);
	if (iface->socket_path != NULL && iface->socket_path[0] != '\0')
		cJSON_AddStringToObject(ours, "socketPath", iface->socket_path);
	if (iface->pci_id != NULL && iface->pci_id[0] != '\0')
		cJSON_AddStringToObject(ours, "pciID", iface->pci_id);
	cJSON_AddItemToArray(ifs, ours);

	cJSON_ArrayForEach (ip, cJSON_GetObjectItemCaseSensitive(ipam, "ips")) {
		i = cJSON_Duplicate(ip, true);
		cJSON_DeleteItemFromObjectCaseSensitive(i, "interface");
		cJSON_AddNumberToObject(i, "interface", index);
		cJSON_AddItemToArray(ips, i);
	}
	cJSON_AddItemToObject(out, "interfaces", ifs);
	cJSON_AddItemToObject(out, "ips", ips);

	routes = cJSON_GetObjectItemCaseSensitive(ipam, "routes");
	if (cJSON_GetArraySize(routes) == 0)
		routes = cJSON_GetObjectItemCaseSensitive(prev, "routes");
	cJSON_AddItemToObject(out, "routes",
			      cJSON_IsArray(routes) ? cJSON_Duplicate(routes, true)
						    : cJSON_CreateArray());
	dns = cJSON_GetObjectItemCaseSensitive(ipam, "dns");
	if (!cJSON_IsObject(dns) || dns->child == NULL)
		dns = cJSON_GetObjectItemCaseSensitive(prev, "dns");
	if (cJSON_IsObject(dns) && dns->child != NULL)
		cJSON_AddItemToObject(out, "dns", cJSON_Duplicate(dns, true));
	return out;
}

static void drop_fields(cJSON *arr, const char *const fields[])
{
	cJSON *o;

	cJSON_ArrayForEach (o, arr)
		for (int i = 0; fields[i] != NULL; i++)
			cJSON_DeleteItemFromObjectCaseSensitive(o, fields[i]);
}

cJSON *result_shape(const cJSON *internal, const char *version)
{
	cJSON *out = cJSON_CreateObject(), *ifs, *ips, *routes;
	const cJSON *dns = cJSON_GetObjectItemCaseSensitive(internal, "dns");

	cJSON_AddStringToObject(out, "cniVersion", version);
	ifs = cJSON_Duplicate(cJSON_GetObjectItemCaseSensitive(internal, "interfaces"), true);
	ips = cJSON_Duplicate(cJSON_GetObjectItemCaseSensitive(internal, "ips"), true);
	routes = cJSON_Duplicate(cJSON_GetObjectItemCaseSensitive(internal, "routes"), true);
	if (cni_version_cmp(version, "1.1.0") < 0) {
		drop_fields(ifs, iface_fields_1_1);
		drop_fields(routes, route_fields_1_1);
	}
	if (cni_version_cmp(version, "1.0.0") < 0) {
		for (int i = 0; i < cJSON_GetArraySize(ips); i++) {
			cJSON *ip = cJSON_GetArrayItem(ips, i), *n = cJSON_CreateObject(), *c;
			const char *a =
			    cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(ip, "address"));

			/* "version" came first in 0.x results; keep that order. */
			cJSON_AddStringToObject(n, "version", a && strchr(a, ':') ? "6" : "4");
			while ((c = ip->child) != NULL) {
				cJSON_DetachItemViaPointer(ip, c);
				cJSON_AddItemToObject(n, c->string, c);
			}
			cJSON_ReplaceItemInArray(ips, i, n);
		}
	}
	if (ifs != NULL && cJSON_GetArraySize(ifs) > 0)
		cJSON_AddItemToObject(out, "interfaces", ifs);
	else
		cJSON_Delete(ifs);
	cJSON_AddItemToObject(out, "ips", ips ? ips : cJSON_CreateArray());
	if (routes != NULL && cJSON_GetArraySize(routes) > 0)
		cJSON_AddItemToObject(out, "routes", routes);
	else
		cJSON_Delete(routes);
	cJSON_AddItemToObject(
	    out, "dns", cJSON_IsObject(dns) ? cJSON_Duplicate(dns, true) : cJSON_CreateObject());
	return out;
}

cJSON *result_error(const char *version, const struct cni_error *err)
{
	cJSON *o = cJSON_CreateObject();

	cJSON_AddStringToObject(o, "cniVersion", version ? version : CNI_VERSION_LATEST);
	cJSON_AddNumberToObject(o, "code", err->code);
	cJSON_AddStringToObject(o, "msg", err->msg);
	if (err->details[0] != '\0')
		cJSON_AddStringToObject(o, "details", err->details);
	return o;
}
