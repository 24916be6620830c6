/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * podwire-docker's protocol calls: what dockerd POSTs, decoded and
 * handled by the driver's own dispatch (docker/http.c, included whole),
 * against a podwired that agrees to everything and interfaces that are
 * only pretended (no kernel state is touched). The input is a sequence of
 * calls, each one byte for the call (its index in the route table), two
 * bytes of body length (little endian) and the body, so that a run can
 * create a network, then an endpoint, join it, and so on; the driver's
 * records start empty for each input. A second mode (first byte 0xff)
 * reads the rest as the driver's own state file.
 */
#include <ftw.h>
#include <sys/stat.h>

#include "fuzz.h"
#include "link.h"

#include "../../docker/http.c"

struct dk_config dk_cfg = {
    .podwired_timeout_ms = 1000,
    .gc_interval_sec = 10,
    .gc_grace_sec = 120,
};

void dk_log(const char *fmt, ...)
{
	(void)fmt;
}

/* podwired, agreeing: what the driver reads from its answers. */
int pw_call(const char *method, cJSON *params, cJSON **result, struct pw_error *pe)
{
	cJSON *r = cJSON_CreateObject();

	memset(pe, 0, sizeof(*pe));
	if (strcmp(method, API_NAME(NETWORK_CREATE)) == 0 &&
	    strcmp(api_get_str(params, API_F_NAME, ""), "refused") == 0) {
		pe->code = API_ERR_RESOURCE;
		snprintf(pe->message, sizeof(pe->message), "refused");
		cJSON_Delete(params);
		cJSON_Delete(r);
		return -1;
	}
	if (strcmp(method, API_NAME(NETWORK_LIST)) == 0) {
		cJSON *n = cJSON_CreateObject();

		cJSON_AddStringToObject(n, API_F_NAME, "shared");
		cJSON_AddNumberToObject(n, API_F_VLAN, 5);
		cJSON_AddStringToObject(n, API_F_MODE, API_NET_BRIDGE);
		cJSON_AddItemToArray(cJSON_AddArrayToObject(r, API_R_NETWORKS), n);
	} else if (strcmp(method, API_NAME(PORT_CREATE)) == 0 ||
		   strcmp(method, API_NAME(PORT_GET)) == 0) {
		cJSON *v = cJSON_AddObjectToObject(r, API_R_VETH);

		cJSON_AddStringToObject(r, API_F_NAME, api_get_str(params, API_F_NAME, "x"));
		cJSON_AddStringToObject(r, API_F_LINK, "up");
		cJSON_AddStringToObject(v, API_R_PEER, "pwcfuzz");
	} else if (strcmp(method, API_NAME(PORT_LIST)) == 0) {
		cJSON_AddArrayToObject(r, API_R_PORTS);
	}
	cJSON_Delete(params);
	if (result != NULL)
		*result = r;
	else
		cJSON_Delete(r);
	return 0;
}

int pw_port_delete(const char *name, struct pw_error *pe)
{
	(void)name;
	memset(pe, 0, sizeof(*pe));
	return 0;
}

/* Interfaces, pretended. */
int link_veth_create(const char *host, const char *peer, unsigned int mtu, const uint8_t *mac,
		     char *msg, size_t len)
{
	(void)host, (void)peer, (void)mtu, (void)mac, (void)msg, (void)len;
	return 0;
}

int link_delete(unsigned int ifindex, char *msg, size_t len)
{
	(void)ifindex, (void)msg, (void)len;
	return 0;
}

int link_set_up(const char *name, const char *alias, char *msg, size_t len)
{
	(void)name, (void)alias, (void)msg, (void)len;
	return 0;
}

int link_alias(const char *name, char *buf, size_t len)
{
	(void)name, (void)buf, (void)len;
	return -1;
}

static int rm_one(const char *path, const struct stat *st, int flag, struct FTW *f)
{
	(void)st, (void)flag;
	if (f->level > 0)
		remove(path);
	return 0;
}

/* The records, and the endpoint directories a run left. */
static void forget_all(void)
{
	nftw(dk_cfg.socket_dir, rm_one, 16, FTW_DEPTH | FTW_PHYS);
	while (store_endpoint_count() > 0)
		store_endpoint_del(store_endpoint_at(0));
	while (store_network_count() > 0)
		store_network_del(store_network_at(0));
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const size_t n_routes = sizeof(routes) / sizeof(routes[0]);
	char msg[512];

	if (dk_cfg.state_dir[0] == '\0') {
		snprintf(dk_cfg.state_dir, sizeof(dk_cfg.state_dir), "%s/state", fuzz_dir());
		snprintf(dk_cfg.socket_dir, sizeof(dk_cfg.socket_dir), "%s/sockets", fuzz_dir());
		snprintf(dk_cfg.container_socket_dir, sizeof(dk_cfg.container_socket_dir), "%s",
			 dk_cfg.socket_dir);
		mkdir(dk_cfg.state_dir, 0700);
		mkdir(dk_cfg.socket_dir, 0700);
	}
	forget_all();
	if (size >= 1 && data[0] == 0xff) {
		fuzz_file("state/state.json", data + 1, size - 1);
		store_load(msg, sizeof(msg));
		forget_all();
		return 0;
	}
	while (size >= 3) {
		const struct route *rt = &routes[data[0] % n_routes];
		size_t len = (size_t)data[1] | (size_t)data[2] << 8;
		struct body b = {0};
		struct dk_err err = {0};
		cJSON *resp;

		data += 3;
		size -= 3;
		if (len > size)
			len = size;
		b.buf = malloc(len + 1);
		if (b.buf == NULL)
			abort();
		memcpy(b.buf, data, len);
		b.len = len;
		resp = dispatch(rt, &b, &err);
		/* An answer is an object, or an error with a status and a text. */
		if (resp == NULL && (err.status < 400 || err.msg[0] == '\0'))
			abort();
		cJSON_Delete(resp);
		free(b.buf);
		data += len;
		size -= len;
	}
	forget_all();
	return 0;
}
