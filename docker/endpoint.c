/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * CreateEndpoint, DeleteEndpoint, EndpointOperInfo, Join, Leave,
 * ProgramExternalConnectivity, RevokeExternalConnectivity.
 *
 * An endpoint is a podwired port on the network's podwired network and
 * the kernel interface dockerd moves into the container: for kernel
 * containers the container end of the port's veth pair; for DPDK
 * containers a placeholder (a dummy interface) carrying the MAC and
 * addresses Docker gave, by which the app finds its socket (podwire-vdev
 * --docker). Each step of CreateEndpoint is undone when a later one fails.
 *
 * Endpoint options (`docker run --network name=NET,driver-opt=K=V`, or
 * `docker network connect --driver-opt K=V`) arrive as strings at the top
 * of CreateEndpoint's Options, beside dockerd's own:
 *   podwire.queues=N   queue pairs (1-16) of this DPDK container's port,
 *                      instead of its network's podwire.queues
 *   podwire.rate, podwire.rate.ingress, podwire.rate.egress  its port's
 *                      rate limits, instead of its network's (network.c)
 *   podwire.acl, podwire.acl.ingress, podwire.acl.egress  an operator's
 *                      access list attached to its port (beside its
 *                      network's); refused when the list does not exist
 * Any other podwire.* endpoint option is refused.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>

#include "driver.h"
#include "validate.h"

/* The endpoint the request names, on the network it names. */
static struct dk_endpoint *need_endpoint(const cJSON *req, struct dk_network **net,
					 struct dk_err *err)
{
	struct dk_network *n = dk_need_network(req, err);
	const char *id;
	struct dk_endpoint *e;

	if (n == NULL)
		return NULL;
	id = dk_req_id(req, "EndpointID", err);
	if (id == NULL)
		return NULL;
	e = store_endpoint(id);
	if (e == NULL || strcmp(e->network_id, n->id) != 0) {
		dk_fail(err, 500,
			"endpoint %.12s does not exist on network %.12s; `docker network inspect` "
			"lists its containers",
			id, n->id);
		return NULL;
	}
	if (net != NULL)
		*net = n;
	return e;
}

/* Interface.{Address, AddressIPv6, MacAddress} of CreateEndpoint. */
static int parse_interface(const cJSON *req, struct dk_endpoint *e, bool *mac_given,
			   struct dk_err *err)
{
	const cJSON *ifc = cJSON_GetObjectItemCaseSensitive(req, "Interface");
	static const char *const fields[] = {"Address", "AddressIPv6", "MacAddress"};
	char *const dst[] = {e->addr4, e->addr6, e->mac};
	const size_t cap[] = {sizeof(e->addr4), sizeof(e->addr6), sizeof(e->mac)};
	char msg[256];
	uint8_t mac[6];

	*mac_given = false;
	if (ifc == NULL || cJSON_IsNull(ifc))
		return 0;
	if (!cJSON_IsObject(ifc)) {
		dk_fail(err, 400,
			"Interface must be an object with Address, AddressIPv6, MacAddress");
		return -1;
	}
	for (unsigned int i = 0; i < 3; i++) {
		const cJSON *v = cJSON_GetObjectItemCaseSensitive(ifc, fields[i]);

		if (v == NULL || cJSON_IsNull(v))
			continue;
		if (!cJSON_IsString(v) || strlen(v->valuestring) >= cap[i]) {
			dk_fail(err, 400, "Interface.%s must be a string of at most %zu bytes",
				fields[i], cap[i] - 1);
			return -1;
		}
		snprintf(dst[i], cap[i], "%s", v->valuestring);
	}
	if (e->mac[0] != '\0') {
		if (validate_mac("Interface.MacAddress", e->mac, mac, msg, sizeof(msg)) != 0) {
			dk_fail(err, 400, "%s", msg);
			return -1;
		}
		format_mac(mac, e->mac);
		*mac_given = true;
	}
	return 0;
}

static int random_mac(char out[18])
{
	uint8_t mac[6];

	if (getrandom(mac, sizeof(mac), 0) != sizeof(mac))
		return -1;
	mac[0] = (uint8_t)((mac[0] & 0xfc) | 0x02); /* unicast, locally administered */
	format_mac(mac, out);
	return 0;
}

/* memif: the container's own secret, which podwired asks of it; 20 hex
 * digits (DPDK's net_memif keeps 23 bytes of secret=). */
static int random_secret(char *out, size_t len)
{
	uint8_t r[10];

	if (len < 2 * sizeof(r) + 1 || getrandom(r, sizeof(r), 0) != sizeof(r))
		return -1;
	for (size_t i = 0; i < sizeof(r); i++)
		snprintf(out + 2 * i, len - 2 * i, "%02x", r[i]);
	return 0;
}

/* The endpoint's podwire.* options; e->queues is the network's unless
 * the endpoint gives its own. */
static int parse_options(const cJSON *opts, const struct dk_network *n, struct dk_endpoint *e,
			 struct dk_err *err)
{
	const cJSON *it;

	e->queues = n->queues != 0 ? n->queues : 1;
	memcpy(e->rate, n->rate, sizeof(e->rate));
	cJSON_ArrayForEach (it, opts) {
		const char *k = it->string, *v = cJSON_GetStringValue(it);

		if (strncmp(k, "podwire.", 8) != 0)
			continue; /* dockerd's own (port mappings, sysctls, ...) */
		if (strcmp(k, DK_OPT_QUEUES) != 0 && dk_rate_dirs(k) == 0 && dk_acl_dir(k) < 0) {
			dk_fail(
			    err, 500,
			    "unknown endpoint option %s; podwire takes %s (docker run --network "
			    "name=NET,driver-opt=%s=N), %s, %s, %s, %s, %s and %s; network "
			    "options go to docker network create -o",
			    k, DK_OPT_QUEUES, DK_OPT_QUEUES, DK_OPT_RATE, DK_OPT_RATE_IN,
			    DK_OPT_RATE_OUT, DK_OPT_ACL, DK_OPT_ACL_IN, DK_OPT_ACL_OUT);
			return -1;
		}
		if (v == NULL) {
			dk_fail(err, 400, "endpoint option %s must be a string", k);
			return -1;
		}
		if (dk_acl_dir(k) >= 0) {
			if (dk_acl_name_check("endpoint option", k, v, err) != 0)
				return -1;
			snprintf(e->acl[dk_acl_dir(k)], sizeof(e->acl[0]), "%s", v);
			continue;
		}
		if (dk_rate_dirs(k) != 0) {
			if (dk_rate_parse("endpoint option", k, v, err) != 0)
				return -1;
			for (int d = 0; d < 2; d++)
				if (dk_rate_dirs(k) & 1u << d)
					snprintf(e->rate[d], sizeof(e->rate[d]), "%s", v);
			continue;
		}
		e->queues = dk_queues_parse(v);
		if (e->queues == 0) {
			dk_fail(err, 500,
				"endpoint option %s: \"%s\" is not a number of queue pairs; give "
				"1-%d",
				k, v, API_QUEUES_MAX);
			return -1;
		}
		if (n->iftype == DK_IF_KERNEL) {
			dk_fail(err, 500,
				"endpoint option %s applies to DPDK containers, and network %.12s "
				"gives kernel interfaces (one queue pair); leave it out, or use a "
				"network made with -o podwire.iftype=vhost-user or memif",
				k, n->id);
			return -1;
		}
	}
	return 0;
}

static cJSON *port_params(const struct dk_network *n, const struct dk_endpoint *e)
{
	cJSON *p = cJSON_CreateObject();
	char sock[DK_PATH_MAX + 16];

	cJSON_AddStringToObject(p, API_F_NAME, e->port);
	cJSON_AddStringToObject(p, API_F_NETWORK, n->pw_network);
	cJSON_AddStringToObject(p, API_F_MAC, e->mac);
	cJSON_AddNumberToObject(p, API_F_MTU, n->mtu);
	if (e->iftype == DK_IF_KERNEL) {
		cJSON_AddStringToObject(p, API_F_TYPE, API_PORT_VETH);
		cJSON_AddStringToObject(p, API_F_IFACE, e->host_iface);
	} else {
		snprintf(sock, sizeof(sock), "%s/%s", e->dir, dpdk_socket_name(e->iftype));
		cJSON_AddStringToObject(p, API_F_TYPE, dk_iftype_name(e->iftype));
		cJSON_AddStringToObject(p, API_F_SOCKET, sock);
		if (e->secret[0] != '\0')
			cJSON_AddStringToObject(p, API_F_SECRET, e->secret);
		/* Only when asked: a podwired older than API 1.6 takes the rest. */
		if (e->queues > 1)
			cJSON_AddNumberToObject(p, API_F_QUEUES, e->queues);
		/* Likewise only when off; podwired refuses the field for memif. */
		if (e->iftype == DK_IF_VHOST && n->no_offloads)
			cJSON_AddFalseToObject(p, API_F_OFFLOADS);
	}
	dk_rate_params(p, e->rate);
	return p;
}

cJSON *h_create_endpoint(const cJSON *req, struct dk_err *err)
{
	struct dk_network *n = dk_need_network(req, err);
	const cJSON *opts = cJSON_GetObjectItemCaseSensitive(req, "Options");
	struct dk_endpoint e;
	struct pw_error pe;
	cJSON *port = NULL, *r, *ifc;
	const char *id;
	bool mac_given;
	char msg[512];

	if (n == NULL || (id = dk_req_id(req, "EndpointID", err)) == NULL)
		return NULL;
	if (opts != NULL && !cJSON_IsObject(opts) && !cJSON_IsNull(opts))
		return dk_fail(err, 400, "Options must be an object");
	if (store_endpoint(id) != NULL)
		return dk_fail(err, 500, "endpoint %.12s exists already", id);
	memset(&e, 0, sizeof(e));
	if (parse_interface(req, &e, &mac_given, err) != 0 || parse_options(opts, n, &e, err) != 0)
		return NULL;
	if (!mac_given && random_mac(e.mac) != 0)
		return dk_fail(err, 500, "endpoint %.12s: cannot make a MAC address", id);
	snprintf(e.id, sizeof(e.id), "%s", id);
	snprintf(e.network_id, sizeof(e.network_id), "%s", n->id);
	snprintf(e.port, sizeof(e.port), "docker-%.12s", id);
	e.iftype = n->iftype;
	e.created = time(NULL);
	if (e.iftype == DK_IF_MEMIF && random_secret(e.secret, sizeof(e.secret)) != 0)
		return dk_fail(err, 500, "endpoint %.12s: cannot make a memif secret", id);
	if (e.iftype == DK_IF_KERNEL) {
		snprintf(e.host_iface, sizeof(e.host_iface), "pwd%.12s", id);
	} else {
		snprintf(e.dir, sizeof(e.dir), "%.200s/%.12s", dk_cfg.socket_dir, id);
		if (mkdir(e.dir, 0750) != 0 && errno != EEXIST)
			return dk_fail(err, 500,
				       "endpoint %.12s: cannot make directory %s: %s; check "
				       "podwire-docker --socket-dir",
				       id, e.dir, strerror(errno));
	}
	if (pw_call(API_NAME(PORT_CREATE), port_params(n, &e), &port, &pe) != 0) {
		endpoint_host_cleanup(&e);
		return dk_fail(err, 500, "endpoint %.12s: podwired refused port \"%s\": %s", id,
			       e.port, pe.message);
	}
	if (e.iftype == DK_IF_KERNEL) {
		const cJSON *veth = cJSON_GetObjectItemCaseSensitive(port, API_R_VETH);

		snprintf(e.iface, sizeof(e.iface), "%s", api_get_str(veth, API_R_PEER, ""));
		if (e.iface[0] == '\0')
			dk_fail(err, 500,
				"endpoint %.12s: podwired made port \"%s\" without a veth; is "
				"podwired older than this driver?",
				id, e.port);
	} else {
		dpdk_endpoint_files(n, &e, port, err);
	}
	cJSON_Delete(port);
	/* The container's own lists, on its port beside its network's; a
	 * list that does not exist fails the endpoint (and the container's
	 * start) rather than leave it unfiltered. Deleting the port below
	 * detaches them again. */
	if (err->status == 0)
		dk_acl_attach(e.acl, e.port, NULL, "endpoint option", err);
	if (err->status == 0 && store_endpoint_add(&e) == NULL)
		dk_fail(err, 500, "endpoint %.12s: out of memory", id);
	if (err->status == 0 && store_save(msg, sizeof(msg)) != 0) {
		store_endpoint_del(store_endpoint(id));
		dk_fail(err, 500, "endpoint %.12s: cannot record it: %s", id, msg);
	}
	if (err->status != 0) {
		pw_port_delete(e.port, &pe);
		endpoint_host_cleanup(&e);
		return NULL;
	}
	dk_log("endpoint %.12s on network %.12s: port %s, interface %s, mac %s, queues %u", id,
	       n->id, e.port, e.iface, e.mac, e.queues);
	/* A field dockerd sent must come back empty (else it rolls back). */
	r = cJSON_CreateObject();
	ifc = cJSON_AddObjectToObject(r, "Interface");
	if (!mac_given)
		cJSON_AddStringToObject(ifc, "MacAddress", e.mac);
	return r;
}

int endpoint_remove(struct dk_endpoint *e, struct dk_err *err)
{
	struct pw_error pe;
	char msg[512];

	/* Deleting the port detaches them too; explicitly, so that a port
	 * podwired cannot delete now carries no filter of a gone endpoint. */
	dk_acl_detach(e->acl, e->port, NULL);
	if (pw_port_delete(e->port, &pe) != 0) {
		dk_fail(err, 500,
			"endpoint %.12s: podwired could not delete port \"%s\": %s; try again",
			e->id, e->port, pe.message);
		return -1;
	}
	endpoint_host_cleanup(e);
	dk_log("endpoint %.12s removed (port %s)", e->id, e->port);
	store_endpoint_del(e);
	if (store_save(msg, sizeof(msg)) != 0) {
		dk_fail(err, 500, "endpoint removed, but %s", msg);
		return -1;
	}
	return 0;
}

cJSON *h_delete_endpoint(const cJSON *req, struct dk_err *err)
{
	struct dk_endpoint *e = need_endpoint(req, NULL, err);

	if (e == NULL || endpoint_remove(e, err) != 0)
		return NULL;
	return cJSON_CreateObject();
}

cJSON *h_endpoint_info(const cJSON *req, struct dk_err *err)
{
	struct dk_endpoint *e = need_endpoint(req, NULL, err);
	cJSON *r, *v, *p, *port = NULL;
	struct pw_error pe;

	if (e == NULL)
		return NULL;
	r = cJSON_CreateObject();
	v = cJSON_AddObjectToObject(r, "Value");
	cJSON_AddStringToObject(v, "podwire.port", e->port);
	cJSON_AddStringToObject(v, "podwire.iftype", dk_iftype_name(e->iftype));
	cJSON_AddStringToObject(v, "podwire.interface", e->iface);
	if (e->iftype != DK_IF_KERNEL)
		cJSON_AddNumberToObject(v, DK_OPT_QUEUES, e->queues);
	if (e->dir[0] != '\0')
		cJSON_AddStringToObject(v, "podwire.dir", e->dir);
	/* dockerd fails a container start on an error here: podwired being
	 * away is no reason, it is reported as the link. */
	p = cJSON_CreateObject();
	cJSON_AddStringToObject(p, API_F_NAME, e->port);
	if (pw_call(API_NAME(PORT_GET), p, &port, &pe) == 0)
		cJSON_AddStringToObject(v, "podwire.link", api_get_str(port, API_F_LINK, "?"));
	else
		cJSON_AddStringToObject(v, "podwire.link", "unknown (podwired did not answer)");
	cJSON_Delete(port);
	return r;
}

cJSON *h_join(const cJSON *req, struct dk_err *err)
{
	struct dk_network *n;
	struct dk_endpoint *e = need_endpoint(req, &n, err);
	const cJSON *opts = cJSON_GetObjectItemCaseSensitive(req, "Options");
	char old[DK_PATH_MAX], msg[512];
	const char *sandbox;
	cJSON *r, *name;
	time_t was;

	if (e == NULL || (sandbox = dk_req_str(req, "SandboxKey", DK_PATH_MAX - 1, err)) == NULL)
		return NULL;
	if (opts != NULL && !cJSON_IsObject(opts) && !cJSON_IsNull(opts))
		return dk_fail(err, 400, "Options must be an object");
	if (sandbox[0] != '/')
		return dk_fail(err, 400, "SandboxKey \"%s\" must be an absolute path", sandbox);
	snprintf(old, sizeof(old), "%s", e->sandbox);
	snprintf(e->sandbox, sizeof(e->sandbox), "%s", sandbox);
	e->sandbox_seen = false;
	was = e->created;
	e->created = time(NULL);
	if (store_save(msg, sizeof(msg)) != 0) {
		snprintf(e->sandbox, sizeof(e->sandbox), "%s", old);
		e->created = was;
		return dk_fail(err, 500, "endpoint %.12s: cannot record the join: %s", e->id, msg);
	}
	r = cJSON_CreateObject();
	name = cJSON_AddObjectToObject(r, "InterfaceName");
	cJSON_AddStringToObject(name, "SrcName", e->iface);
	cJSON_AddStringToObject(name, "DstPrefix", "eth");
	if (n->gateway4[0] != '\0')
		cJSON_AddStringToObject(r, "Gateway", n->gateway4);
	if (n->gateway6[0] != '\0')
		cJSON_AddStringToObject(r, "GatewayIPv6", n->gateway6);
	/* Without a gateway dockerd would add a NIC on docker_gwbridge. */
	cJSON_AddBoolToObject(r, "DisableGatewayService",
			      n->gateway4[0] == '\0' && n->gateway6[0] == '\0');
	return r;
}

cJSON *h_leave(const cJSON *req, struct dk_err *err)
{
	struct dk_endpoint *e = need_endpoint(req, NULL, err);
	char old[DK_PATH_MAX], msg[512];

	if (e == NULL)
		return NULL;
	snprintf(old, sizeof(old), "%s", e->sandbox);
	e->sandbox[0] = '\0';
	e->sandbox_seen = false;
	e->created = time(NULL); /* the grace period starts again */
	if (store_save(msg, sizeof(msg)) != 0) {
		snprintf(e->sandbox, sizeof(e->sandbox), "%s", old);
		return dk_fail(err, 500, "endpoint %.12s: cannot record the leave: %s", e->id, msg);
	}
	return cJSON_CreateObject();
}

/* podwire networks have no NAT and publish no ports: nothing to program,
 * but the endpoint must be one of ours. */
cJSON *h_program_external(const cJSON *req, struct dk_err *err)
{
	return need_endpoint(req, NULL, err) == NULL ? NULL : cJSON_CreateObject();
}

cJSON *h_revoke_external(const cJSON *req, struct dk_err *err)
{
	return need_endpoint(req, NULL, err) == NULL ? NULL : cJSON_CreateObject();
}
