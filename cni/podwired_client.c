/* SPDX-License-Identifier: BSD-3-Clause */
#include <stdio.h>
#include <string.h>

#include "podwired_client.h"

struct pw_client *podwired_connect(const char *socket, int timeout_ms, struct cni_error *err)
{
	struct pw_error pe;
	struct pw_client *c = pw_client_connect(socket, timeout_ms, &pe);

	char *hint;

	if (c != NULL)
		return c;
	/* The client library's hint is podwirectl's (--socket); give ours. */
	hint = strstr(pe.message, "; ");
	if (hint != NULL)
		*hint = '\0';
	cni_fail(err, CNI_ERR_TRY_AGAIN,
		 "%s; start podwired, or set \"podwiredSocket\" to the socket it listens on",
		 pe.message);
	return NULL;
}

int podwired_call(struct pw_client *c, const char *method, cJSON *params, cJSON **result,
		  struct pw_error *pe, struct cni_error *err)
{
	struct pw_error local;
	cJSON *res = NULL;

	if (pe == NULL)
		pe = &local;
	if (pw_client_call(c, method, params, &res, pe) == 0) {
		if (result != NULL)
			*result = res;
		else
			cJSON_Delete(res);
		return 0;
	}
	if (result != NULL)
		*result = NULL;
	/* Code 0: the transport failed; podwired may be restarting. */
	if (pe->code == 0 || pe->code == API_ERR_NOT_READY)
		return cni_fail(err, CNI_ERR_TRY_AGAIN, "%s", pe->message);
	return cni_fail(err, PW_ERR_PODWIRED, "podwired refused %s: %s", method, pe->message);
}

int podwired_port_get(struct pw_client *c, const char *name, cJSON **port, struct cni_error *err)
{
	cJSON *params = cJSON_CreateObject();
	struct pw_error pe;

	cJSON_AddStringToObject(params, API_F_NAME, name);
	if (podwired_call(c, API_NAME(PORT_GET), params, port, &pe, err) == 0)
		return 1;
	return pe.code == API_ERR_NOT_FOUND ? 0 : -1;
}

bool podwired_port_is(const cJSON *p, const char *socket, const char *iface)
{
	return strcmp(api_get_str(p, API_F_SOCKET, ""), socket) == 0 &&
	       strcmp(api_get_str(p, API_F_IFACE, ""), iface) == 0;
}

int podwired_port_delete(struct pw_client *c, const char *port, const char *socket,
			 const char *iface, struct cni_error *err)
{
	cJSON *p = NULL, *params;
	struct pw_error pe;
	int rc = podwired_port_get(c, port, &p, err);

	if (rc <= 0)
		return rc;
	rc = podwired_port_is(p, socket, iface) ? 0 : 1;
	cJSON_Delete(p);
	if (rc != 0)
		return 0; /* someone else's port by that name: not ours to delete */
	params = cJSON_CreateObject();
	cJSON_AddStringToObject(params, API_F_NAME, port);
	if (podwired_call(c, API_NAME(PORT_DELETE), params, NULL, &pe, err) != 0 &&
	    pe.code != API_ERR_NOT_FOUND)
		return -1;
	return 0;
}

static int ensure_network(struct pw_client *c, const struct netconf *conf, struct cni_error *err)
{
	cJSON *params = cJSON_CreateObject();
	struct pw_error pe;

	cJSON_AddStringToObject(params, API_F_NAME, conf->network);
	if (conf->vlan > 0)
		cJSON_AddNumberToObject(params, API_F_VLAN, (double)conf->vlan);
	/* A concurrent ADD may create it first; that is as good. */
	if (podwired_call(c, API_NAME(NETWORK_CREATE), params, NULL, &pe, err) != 0 &&
	    pe.code != API_ERR_EXISTS)
		return -1;
	return 0;
}

/* The network must have the VLAN the config asks for. */
static int check_vlan(struct pw_client *c, const struct netconf *conf, struct cni_error *err)
{
	cJSON *res = NULL;
	const cJSON *n;
	int rc = 0;

	if (conf->vlan < 0)
		return 0;
	if (podwired_call(c, API_NAME(NETWORK_LIST), NULL, &res, NULL, err) != 0)
		return -1;
	cJSON_ArrayForEach (n, cJSON_GetObjectItemCaseSensitive(res, API_R_NETWORKS)) {
		long vlan = api_get_int(n, API_F_VLAN, 0);

		if (strcmp(api_get_str(n, API_F_NAME, ""), conf->network) != 0 ||
		    vlan == conf->vlan)
			continue;
		rc = cni_fail(err, CNI_ERR_CONFIG,
			      "\"vlan\" is %ld but podwired network \"%s\" already exists with "
			      "VLAN %ld; use the same \"vlan\" in every config of network \"%s\", "
			      "or another \"network\"",
			      conf->vlan, conf->network, vlan, conf->network);
	}
	cJSON_Delete(res);
	return rc;
}

static cJSON *port_params(const struct netconf *conf, const struct attach *a, const char *mac)
{
	cJSON *p = cJSON_CreateObject();

	cJSON_AddStringToObject(p, API_F_NAME, a->port);
	cJSON_AddStringToObject(p, API_F_NETWORK, conf->network);
	cJSON_AddStringToObject(p, API_F_TYPE, iftype_port_type(a->iftype));
	if (a->iftype == IFTYPE_KERNEL) {
		/* podwired makes the pair and keeps this end; the plugin moves
		 * the other (veth.peer) into the pod. */
		cJSON_AddStringToObject(p, API_F_IFACE, a->host_iface);
	} else {
		cJSON_AddStringToObject(p, API_F_SOCKET, a->socket);
		/* podwired's mode is its own side: it serves the socket when the
		 * pod does not create it. */
		cJSON_AddStringToObject(p, API_F_MODE,
					a->pod_creates_socket ? API_ROLE_CLIENT : API_ROLE_SERVER);
	}
	if (mac[0] != '\0')
		cJSON_AddStringToObject(p, API_F_MAC, mac);
	if (a->secret[0] != '\0')
		cJSON_AddStringToObject(p, API_F_SECRET, a->secret);
	cJSON_AddNumberToObject(p, API_F_MTU, (double)conf->mtu);
	cJSON_AddBoolToObject(p, API_F_PORT_SECURITY, conf->port_security);
	if (conf->allowed_macs[0] != '\0')
		cJSON_AddStringToObject(p, API_F_ALLOWED_MACS, conf->allowed_macs);
	if (conf->mac_limit != -1)
		cJSON_AddNumberToObject(p, API_F_MAC_LIMIT, (double)conf->mac_limit);
	if (conf->flood_limit != -1)
		cJSON_AddNumberToObject(p, API_F_FLOOD_LIMIT, (double)conf->flood_limit);
	/* Only when asked: a podwired older than API 1.6 takes the rest. */
	if (a->queues > 1)
		cJSON_AddNumberToObject(p, API_F_QUEUES, a->queues);
	/* Likewise: offloads are on unless turned off, and a podwired that
	 * has no "offloads" takes a request without it. */
	if (conf->no_offloads)
		cJSON_AddFalseToObject(p, API_F_OFFLOADS);
	/* "rateLimit" (API 1.8): only when given. */
	for (int d = 0; d < 2; d++)
		for (int k = 0; k < 3; k++) {
			static const char *const api[2][3] = {
			    {API_F_RATE_IN_PPS, API_F_RATE_IN_BPS, API_F_RATE_IN_BURST},
			    {API_F_RATE_OUT_PPS, API_F_RATE_OUT_BPS, API_F_RATE_OUT_BURST}};

			if (conf->rate[d][k] >= 0)
				cJSON_AddNumberToObject(p, api[d][k], (double)conf->rate[d][k]);
		}
	return p;
}

int podwired_port_create(struct pw_client *c, const struct netconf *conf, const struct attach *a,
			 char mac[18], struct cni_error *err)
{
	cJSON *res = NULL;
	struct pw_error pe;

	if (check_vlan(c, conf, err) != 0)
		return -1;
	for (int attempt = 0; attempt < 3; attempt++) {
		if (podwired_call(c, API_NAME(PORT_CREATE), port_params(conf, a, mac), &res, &pe,
				  err) == 0) {
			snprintf(mac, 18, "%s", api_get_str(res, API_F_MAC, mac));
			cJSON_Delete(res);
			return 0;
		}
		if (pe.code == API_ERR_NOT_FOUND && strcmp(pe.field, API_F_NETWORK) == 0) {
			if (ensure_network(c, conf, err) != 0)
				return -1;
			continue;
		}
		if (pe.code == API_ERR_EXISTS && strcmp(pe.field, API_F_NAME) == 0) {
			cJSON *old = NULL;
			int same, rc = podwired_port_get(c, a->port, &old, err);

			if (rc < 0)
				return -1;
			same = rc == 1 && podwired_port_is(old, a->socket, a->host_iface);
			cJSON_Delete(old);
			if (rc == 1 && !same)
				return cni_fail(
				    err, PW_ERR_PODWIRED,
				    "podwired already has a port \"%s\" on another "
				    "socket or interface; it is not podwire's, delete it "
				    "(podwirectl port del %s) or move it",
				    a->port, a->port);
			/* Ours from an earlier attachment of this slot: replace it. */
			if (rc == 1 &&
			    podwired_port_delete(c, a->port, a->socket, a->host_iface, err) != 0)
				return -1;
			continue;
		}
		return -1;
	}
	return -1;
}

/* ---- the pod's own access lists ("acl") ------------------------------------- */

static const char *const acl_dirs[2] = {API_DIR_INGRESS, API_DIR_EGRESS};

int podwired_acl_apply(struct pw_client *c, const struct netconf *conf, const struct attach *a,
		       struct cni_error *err)
{
	for (int d = 0; d < 2; d++) {
		const cJSON *dflt, *rules;
		char name[PW_ACL_NAME_MAX];
		struct pw_error pe;
		cJSON *p;

		if (conf->acl[d] == NULL)
			continue;
		podwired_acl_name(a->port, d, name);
		p = cJSON_CreateObject();
		cJSON_AddStringToObject(p, API_F_NAME, name);
		dflt = cJSON_GetObjectItemCaseSensitive(conf->acl[d], API_F_DEFAULT);
		if (cJSON_IsString(dflt))
			cJSON_AddStringToObject(p, API_F_DEFAULT, dflt->valuestring);
		rules = cJSON_GetObjectItemCaseSensitive(conf->acl[d], API_F_RULES);
		cJSON_AddItemToObject(p, API_F_RULES,
				      rules ? cJSON_Duplicate(rules, true) : cJSON_CreateArray());
		if (podwired_call(c, API_NAME(ACL_SET), p, NULL, &pe, err) != 0) {
			/* A bad rule is the config's: podwired's message names
			 * the rule (from 0) and its field. */
			if (pe.code == API_ERR_INVALID_PARAMS || pe.code == API_ERR_RESOURCE)
				return cni_fail(err, CNI_ERR_CONFIG, "\"acl.%s\": %s", acl_dirs[d],
						pe.message);
			if (pe.code == API_ERR_NO_METHOD)
				return cni_fail(
				    err, PW_ERR_PODWIRED,
				    "\"acl\" needs podwired with access lists (API 1.8); "
				    "upgrade podwired or remove \"acl\"");
			return -1;
		}
		p = cJSON_CreateObject();
		cJSON_AddStringToObject(p, API_F_NAME, name);
		cJSON_AddStringToObject(p, API_F_PORT, a->port);
		cJSON_AddStringToObject(p, API_F_DIRECTION, acl_dirs[d]);
		if (podwired_call(c, API_NAME(ACL_ATTACH), p, NULL, &pe, err) != 0)
			return -1;
	}
	return 0;
}

int podwired_acl_remove(struct pw_client *c, const char *port, struct cni_error *err)
{
	int rc = 0;

	for (int d = 0; d < 2; d++) {
		char name[PW_ACL_NAME_MAX];
		struct cni_error ignored;
		struct pw_error pe;
		cJSON *p = cJSON_CreateObject();

		podwired_acl_name(port, d, name);
		/* Deleting the port detached them; a port that stays (its
		 * deletion pending) must not keep them either. */
		cJSON_AddStringToObject(p, API_F_NAME, name);
		cJSON_AddStringToObject(p, API_F_PORT, port);
		podwired_call(c, API_NAME(ACL_DETACH), p, NULL, &pe, &ignored);
		p = cJSON_CreateObject();
		cJSON_AddStringToObject(p, API_F_NAME, name);
		if (podwired_call(c, API_NAME(ACL_DEL), p, NULL, &pe, err) != 0 &&
		    pe.code != API_ERR_NOT_FOUND && pe.code != API_ERR_NO_METHOD)
			rc = -1;
	}
	return rc;
}

int podwired_acl_check(struct pw_client *c, const struct netconf *conf, const struct attach *a,
		       struct cni_error *err)
{
	cJSON *res = NULL;
	int rc = 0;

	if (conf->acl[0] == NULL && conf->acl[1] == NULL)
		return 0;
	if (podwired_call(c, API_NAME(ACL_LIST), NULL, &res, NULL, err) != 0)
		return -1;
	for (int d = 0; d < 2 && rc == 0; d++) {
		char name[PW_ACL_NAME_MAX];
		const cJSON *l, *at;
		bool found = false, attached = false;

		if (conf->acl[d] == NULL)
			continue;
		podwired_acl_name(a->port, d, name);
		cJSON_ArrayForEach (l, cJSON_GetObjectItemCaseSensitive(res, API_R_LISTS)) {
			if (strcmp(api_get_str(l, API_F_NAME, ""), name) != 0)
				continue;
			found = true;
			cJSON_ArrayForEach (at,
					    cJSON_GetObjectItemCaseSensitive(l, API_R_ATTACHMENTS))
				if (strcmp(api_get_str(at, API_F_PORT, ""), a->port) == 0 &&
				    strcmp(api_get_str(at, API_F_DIRECTION, ""), acl_dirs[d]) == 0)
					attached = true;
		}
		if (!found || !attached)
			rc =
			    cni_fail(err, PW_ERR_CHECK,
				     "access list \"%s\" (\"acl.%s\") %s; re-add the pod's network",
				     name, acl_dirs[d],
				     !found ? "is missing from podwired"
					    : "is not attached to the pod's port");
	}
	cJSON_Delete(res);
	return rc;
}
