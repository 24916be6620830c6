/* SPDX-License-Identifier: BSD-3-Clause */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>

#include "model/port.h"
#include "model/port_conf.h"
#include "validate.h"

/* Names the field at fault and passes the error code through. */
static int field_error(const char **field, const char *name, int code)
{
	*field = name;
	return code;
}

static const struct port_ops *parse_type(const char *type, struct port_conf *c, char *msg,
					 size_t len)
{
	const struct port_ops *k = port_kind_find(type);
	char list[256];

	if (k != NULL) {
		snprintf(c->type, sizeof(c->type), "%s", type);
		return k;
	}
	port_kind_names(list, sizeof(list));
	snprintf(msg, len, "port \"%s\": unknown type \"%s\"; use one of: %s", c->name, type, list);
	return NULL;
}

/* "io": "packet" or "xdp", for the kinds that take it. */
static int parse_io(const cJSON *obj, const struct port_ops *kind, struct port_conf *c,
		    const char *what, char *msg, size_t len, const char **field)
{
	const char *io = api_get_str(obj, API_F_IO, NULL);

	if (io == NULL)
		return 0;
	if (!(kind->fields & PORT_FIELD_IO)) {
		snprintf(msg, len, "%s: \"io\" applies to %s ports; leave it out for type %s", what,
			 port_kind_names_with(PORT_FIELD_IO), c->type);
		return field_error(field, API_F_IO, API_ERR_INVALID_PARAMS);
	}
	if (strcmp(io, API_IO_PACKET) != 0 && strcmp(io, API_IO_XDP) != 0) {
		snprintf(msg, len,
			 "%s: \"io\" is \"%s\"; use \"" API_IO_PACKET
			 "\" (AF_PACKET, offloads on) or \"" API_IO_XDP "\" (AF_XDP)",
			 what, io);
		return field_error(field, API_F_IO, API_ERR_INVALID_PARAMS);
	}
	snprintf(c->io, sizeof(c->io), "%s", io);
	return 0;
}

/* "rings": "podwire" or "librte", for the kinds that take it. */
static int parse_rings(const cJSON *obj, const struct port_ops *kind, struct port_conf *c,
		       const char *what, char *msg, size_t len, const char **field)
{
	const char *rings = api_get_str(obj, API_F_RINGS, NULL);

	if (rings == NULL)
		return 0;
	if (!(kind->fields & PORT_FIELD_RINGS)) {
		snprintf(msg, len, "%s: \"rings\" applies to %s ports; leave it out for type %s",
			 what, port_kind_names_with(PORT_FIELD_RINGS), c->type);
		return field_error(field, API_F_RINGS, API_ERR_INVALID_PARAMS);
	}
	if (strcmp(rings, API_RINGS_PODWIRE) != 0 && strcmp(rings, API_RINGS_LIBRTE) != 0) {
		snprintf(msg, len,
			 "%s: \"rings\" is \"%s\"; use \"" API_RINGS_PODWIRE
			 "\" (podwired's own vhost-user rings) or \"" API_RINGS_LIBRTE
			 "\" (librte_vhost's data path, the default)",
			 what, rings);
		return field_error(field, API_F_RINGS, API_ERR_INVALID_PARAMS);
	}
	c->own_rings = strcmp(rings, API_RINGS_PODWIRE) == 0;
	return 0;
}

/* "iface" and "pci" for the kinds that take them, neither for the rest. */
static int parse_device(const cJSON *obj, const struct port_ops *kind, struct port_conf *c,
			const char *what, char *msg, size_t len, const char **field)
{
	const char *iface = api_get_str(obj, API_F_IFACE, NULL);
	const char *pci = api_get_str(obj, API_F_PCI, NULL);
	bool wants_iface = (kind->fields & PORT_FIELD_IFACE) != 0;
	bool wants_pci = (kind->fields & PORT_FIELD_PCI) != 0;

	if (wants_iface && iface == NULL) {
		snprintf(msg, len,
			 "%s: type %s needs \"iface\", the kernel interface it sends "
			 "and receives on (e.g. eth1)",
			 what, c->type);
		return field_error(field, API_F_IFACE, API_ERR_INVALID_PARAMS);
	}
	if (!wants_iface && iface != NULL) {
		snprintf(msg, len, "%s: \"iface\" applies to %s ports; leave it out for type %s",
			 what, port_kind_names_with(PORT_FIELD_IFACE), c->type);
		return field_error(field, API_F_IFACE, API_ERR_INVALID_PARAMS);
	}
	if (iface != NULL) {
		if (validate_ifname(what, iface, msg, len) != 0)
			return field_error(field, API_F_IFACE, API_ERR_INVALID_PARAMS);
		snprintf(c->iface, sizeof(c->iface), "%s", iface);
	}
	if (wants_pci && pci == NULL) {
		snprintf(msg, len,
			 "%s: a pci port needs \"pci\", the address of a device bound to "
			 "vfio-pci (e.g. 0000:01:10.2)",
			 what);
		return field_error(field, API_F_PCI, API_ERR_INVALID_PARAMS);
	}
	if (!wants_pci && pci != NULL) {
		snprintf(msg, len, "%s: \"pci\" applies to %s ports; leave it out for type %s",
			 what, port_kind_names_with(PORT_FIELD_PCI), c->type);
		return field_error(field, API_F_PCI, API_ERR_INVALID_PARAMS);
	}
	if (pci != NULL && validate_pci_addr(what, pci, c->pci, msg, len) != 0)
		return field_error(field, API_F_PCI, API_ERR_INVALID_PARAMS);
	if (parse_io(obj, kind, c, what, msg, len, field) != 0)
		return API_ERR_INVALID_PARAMS;
	return parse_rings(obj, kind, c, what, msg, len, field);
}

/* "02:..:01,02:..:02" into c->allowed. */
static int parse_allowed(const char *list, struct port_conf *c, const char *what, char *msg,
			 size_t len)
{
	char buf[API_ALLOWED_MACS_MAX * 20], *save = NULL, *tok, where[128];

	if (strlen(list) >= sizeof(buf)) {
		snprintf(msg, len, "%s: \"allowed_macs\" is too long; give at most %d MACs", what,
			 API_ALLOWED_MACS_MAX);
		return -EINVAL;
	}
	snprintf(buf, sizeof(buf), "%s", list);
	for (tok = strtok_r(buf, ",", &save); tok != NULL; tok = strtok_r(NULL, ",", &save)) {
		if (c->n_allowed == API_ALLOWED_MACS_MAX) {
			snprintf(msg, len, "%s: \"allowed_macs\" lists more than %d MACs", what,
				 API_ALLOWED_MACS_MAX);
			return -EINVAL;
		}
		snprintf(where, sizeof(where), "%s: \"allowed_macs\"", what);
		if (validate_mac(where, tok, c->allowed[c->n_allowed], msg, len) != 0)
			return -EINVAL;
		for (uint8_t i = 0; i < c->n_allowed; i++)
			if (memcmp(c->allowed[i], c->allowed[c->n_allowed], 6) == 0) {
				snprintf(msg, len,
					 "%s: \"allowed_macs\" lists %s twice; list each once",
					 what, tok);
				return -EINVAL;
			}
		c->n_allowed++;
	}
	if (c->n_allowed == 0) {
		snprintf(msg, len,
			 "%s: \"allowed_macs\" is empty; list MACs such as 02:00:00:00:00:01 or "
			 "leave it out",
			 what);
		return -EINVAL;
	}
	return 0;
}

/* Port security and the limits. A pod port given a MAC is secured unless
 * told otherwise; an uplink never is (frames of many hosts cross it). */
/* "Q:CORE,..." into c->rxq_pin: each queue once, below what the port
 * has, on a core that runs a worker when workers are known. */
static int parse_pins(const char *list, const struct port_ops *kind, struct port_conf *c,
		      const char *what, char *msg, size_t len)
{
	unsigned int max_q = kind->max_rxq != 0 ? kind->max_rxq : c->queues;
	const char *s = list;

	while (*s != '\0') {
		char *end;
		unsigned long q = strtoul(s, &end, 10), core;

		if (end == s || *end != ':') {
			snprintf(msg, len,
				 "%s: \"rxq_pins\" \"%s\" is not QUEUE:CORE[,QUEUE:CORE...]; "
				 "e.g. \"0:1,1:2\"",
				 what, list);
			return -1;
		}
		s = end + 1;
		core = strtoul(s, &end, 10);
		if (end == s || (*end != ',' && *end != '\0') || core > 1023) {
			snprintf(msg, len,
				 "%s: \"rxq_pins\" \"%s\": a core is a number 0-1023 after "
				 "the ':'",
				 what, list);
			return -1;
		}
		if (q >= max_q) {
			snprintf(msg, len,
				 "%s: \"rxq_pins\" names queue %lu, but the port has %u (0-%u); "
				 "give \"queues\" or pin a queue it has",
				 what, q, max_q, max_q - 1);
			return -1;
		}
		if (c->rxq_pin[q] != 0) {
			snprintf(msg, len, "%s: \"rxq_pins\" pins queue %lu twice; pin it once",
				 what, q);
			return -1;
		}
		c->rxq_pin[q] = (uint16_t)(core + 1);
		s = *end == ',' ? end + 1 : end;
	}
	return 0;
}

static int parse_guards(const cJSON *obj, const struct port_ops *kind, bool mac_given,
			struct port_conf *c, const char *what, char *msg, size_t len,
			const char **field)
{
	const cJSON *sec = cJSON_GetObjectItemCaseSensitive(obj, API_F_PORT_SECURITY);
	const char *allowed = api_get_str(obj, API_F_ALLOWED_MACS, NULL);
	/* An uplink's learning is bounded by its network's limit only, and
	 * its floods (a physical network's ARP) are not limited unless asked.
	 * The ranges were checked by api_check_params, against api.c's table. */
	long mac_limit = api_get_int(obj, API_F_MAC_LIMIT,
				     kind->uplink ? API_PORT_MAC_LIMIT_MAX : API_PORT_MAC_LIMIT);
	long tx_retries = api_get_int(obj, API_F_TX_RETRIES, API_TX_RETRIES);
	const cJSON *flood = cJSON_GetObjectItemCaseSensitive(obj, API_F_FLOOD_LIMIT);
	const cJSON *offloads = cJSON_GetObjectItemCaseSensitive(obj, API_F_OFFLOADS);

	c->port_security = sec != NULL ? cJSON_IsTrue(sec) : mac_given && !kind->uplink;
	if (kind->uplink && c->port_security) {
		snprintf(msg, len,
			 "%s: an uplink carries many hosts' frames and has no port security; "
			 "leave \"port_security\" out",
			 what);
		return field_error(field, API_F_PORT_SECURITY, API_ERR_INVALID_PARAMS);
	}
	if (allowed != NULL && !c->port_security) {
		snprintf(msg, len,
			 "%s: \"allowed_macs\" applies with port security only, which is off "
			 "here (%s); leave \"allowed_macs\" out, or give a MAC and port security",
			 what,
			 kind->uplink  ? "an uplink"
			 : sec != NULL ? "\"port_security\" is false"
				       : "the port has no MAC");
		return field_error(field, API_F_ALLOWED_MACS, API_ERR_INVALID_PARAMS);
	}
	if (allowed != NULL && parse_allowed(allowed, c, what, msg, len) != 0)
		return field_error(field, API_F_ALLOWED_MACS, API_ERR_INVALID_PARAMS);
	c->mac_limit = (uint32_t)mac_limit;
	c->tx_retries = (uint16_t)tx_retries;
	if (cJSON_GetObjectItemCaseSensitive(obj, API_F_QUEUES) != NULL &&
	    !(kind->fields & PORT_FIELD_QUEUES)) {
		snprintf(msg, len,
			 "%s: \"queues\" applies to %s ports only; leave it out for type %s", what,
			 port_kind_names_with(PORT_FIELD_QUEUES), c->type);
		return field_error(field, API_F_QUEUES, API_ERR_INVALID_PARAMS);
	}
	c->queues = (uint8_t)api_get_int(obj, API_F_QUEUES, 1);
	if (kind->max_rxq != 0 && c->queues > kind->max_rxq) {
		snprintf(msg, len, "%s: \"queues\" is %u, but a %s port has at most %u queue pairs",
			 what, c->queues, c->type, kind->max_rxq);
		return field_error(field, API_F_QUEUES, API_ERR_INVALID_PARAMS);
	}
	if (api_get_str(obj, API_F_RXQ_PINS, NULL) != NULL &&
	    parse_pins(api_get_str(obj, API_F_RXQ_PINS, ""), kind, c, what, msg, len) != 0)
		return field_error(field, API_F_RXQ_PINS, API_ERR_INVALID_PARAMS);
	if (offloads != NULL && !(kind->fields & PORT_FIELD_OL)) {
		snprintf(msg, len,
			 "%s: \"offloads\" applies to %s ports only; leave it out for type %s",
			 what, port_kind_names_with(PORT_FIELD_OL), c->type);
		return field_error(field, API_F_OFFLOADS, API_ERR_INVALID_PARAMS);
	}
	c->no_offloads = offloads != NULL && !cJSON_IsTrue(offloads);
	if (flood != NULL) {
		c->flood_limit = (uint32_t)flood->valuedouble;
		c->flood_limit_set = true;
	} else if (kind->uplink) {
		c->flood_limit = 0;
		c->flood_limit_set = true;
	}
	return 0;
}

const struct port_rate_names port_rate_fields[PORT_DIRS] = {
    [PORT_DIR_IN] = {API_F_RATE_IN_PPS, API_F_RATE_IN_BPS, API_F_RATE_IN_BURST},
    [PORT_DIR_OUT] = {API_F_RATE_OUT_PPS, API_F_RATE_OUT_BPS, API_F_RATE_OUT_BURST},
};

int port_rate_parse(const cJSON *obj, const struct port_rate_names *names, uint16_t mtu,
		    const char *what, struct port_rate *r, bool *given, char *msg, size_t len,
		    const char **field)
{
	const cJSON *pps = cJSON_GetObjectItemCaseSensitive(obj, names->pps);
	const cJSON *bps = cJSON_GetObjectItemCaseSensitive(obj, names->bps);
	const cJSON *burst = cJSON_GetObjectItemCaseSensitive(obj, names->burst);
	/* A tagged frame of the MTU: a byte burst below it passes no such
	 * frame ever. */
	uint64_t frame = (uint64_t)mtu + 18, rate;

	memset(r, 0, sizeof(*r));
	*given = pps != NULL || bps != NULL || burst != NULL;
	if (pps != NULL && bps != NULL) {
		snprintf(msg, len,
			 "%s: \"%s\" and \"%s\" are both given; a limit counts frames or bits, "
			 "give one of them",
			 what, names->pps, names->bps);
		return field_error(field, names->bps, API_ERR_INVALID_PARAMS);
	}
	if (pps == NULL && bps == NULL) {
		if (burst == NULL)
			return 0;
		snprintf(msg, len,
			 "%s: \"%s\" is given without a rate; give \"%s\" (frames/s) or \"%s\" "
			 "(bits/s) too",
			 what, names->burst, names->pps, names->bps);
		return field_error(field, names->burst, API_ERR_INVALID_PARAMS);
	}
	r->bits = bps != NULL;
	rate = (uint64_t)api_number_to_long((r->bits ? bps : pps)->valuedouble);
	if (rate == 0) {
		if (burst == NULL)
			return 0; /* no limit */
		snprintf(msg, len,
			 "%s: \"%s\" is 0, which means no limit, yet \"%s\" is given; give a "
			 "rate above 0, or leave \"%s\" out",
			 what, r->bits ? names->bps : names->pps, names->burst, names->burst);
		return field_error(field, names->burst, API_ERR_INVALID_PARAMS);
	}
	r->rate = rate;
	if (burst != NULL) {
		r->burst = (uint64_t)api_number_to_long(burst->valuedouble);
		if (r->bits && r->burst < frame) {
			snprintf(msg, len,
				 "%s: \"%s\" is %" PRIu64 " bytes, less than the port's largest "
				 "frame (%" PRIu64 " bytes: MTU %u, Ethernet header and VLAN tag), "
				 "which could then never pass; give at least %" PRIu64,
				 what, names->burst, r->burst, frame, mtu, frame);
			return field_error(field, names->burst, API_ERR_INVALID_PARAMS);
		}
		return 0;
	}
	/* 100 ms of the rate: a pod is a process the kernel schedules, and
	 * one that shares its core sends in clumps some milliseconds apart;
	 * a smaller bucket would overflow in the gaps and hold it well below
	 * its rate. (OVS's default, 8 Mbit, is 80 ms at 100 Mbit/s.) At
	 * least a burst of frames, or two of the largest. */
	if (r->bits)
		r->burst = RTE_MAX(rate / 80, 2 * frame);
	else
		r->burst = RTE_MAX(rate / 10, (uint64_t)32);
	r->burst = RTE_MIN(r->burst, (uint64_t)API_RATE_BURST_MAX);
	return 0;
}

int port_conf_parse(const cJSON *obj, bool check_dirs, struct port_conf *c, char *msg, size_t len,
		    const char **field)
{
	const struct port_ops *kind;
	const char *name = api_get_str(obj, API_F_NAME, "");
	const char *net = api_get_str(obj, API_F_NETWORK, "");
	const char *type = api_get_str(obj, API_F_TYPE, "");
	const char *sock = api_get_str(obj, API_F_SOCKET, NULL);
	const char *mode = api_get_str(obj, API_F_MODE, API_ROLE_SERVER);
	const char *mac = api_get_str(obj, API_F_MAC, NULL);
	const char *secret = api_get_str(obj, API_F_SECRET, NULL);
	long mtu = api_get_int(obj, API_F_MTU, API_MTU_DEFAULT);
	char what[96];
	int rc;

	memset(c, 0, sizeof(*c));
	/* Types, unknown fields and ranges first (api.c's table), so that the
	 * state file is held to exactly what the API accepts. */
	rc = api_check_params(API_M_PORT_CREATE, obj, msg, len, field);
	if (rc != 0)
		return rc;
	if (validate_name("port", name, msg, len) != 0)
		return field_error(field, API_F_NAME, API_ERR_INVALID_PARAMS);
	snprintf(c->name, sizeof(c->name), "%s", name);
	snprintf(what, sizeof(what), "port \"%s\"", name);
	if (validate_name("network", net, msg, len) != 0)
		return field_error(field, API_F_NETWORK, API_ERR_INVALID_PARAMS);
	snprintf(c->network, sizeof(c->network), "%s", net);
	kind = parse_type(type, c, msg, len);
	if (kind == NULL)
		return field_error(field, API_F_TYPE, API_ERR_INVALID_PARAMS);

	if (strcmp(mode, API_ROLE_SERVER) == 0) {
		c->role = PORT_ROLE_SERVER;
	} else if (strcmp(mode, API_ROLE_CLIENT) == 0) {
		c->role = PORT_ROLE_CLIENT;
	} else {
		snprintf(msg, len,
			 "%s: mode \"%s\" is not valid; use \"server\" (podwired "
			 "creates the socket) or \"client\" (podwired connects to it)",
			 what, mode);
		return field_error(field, API_F_MODE, API_ERR_INVALID_PARAMS);
	}

	if (kind->fields & PORT_FIELD_SOCKET) {
		if (sock == NULL) {
			snprintf(msg, len,
				 "%s: type %s needs \"socket\", an absolute path of "
				 "at most %d bytes",
				 what, c->type, API_SOCKET_PATH_MAX);
			return field_error(field, API_F_SOCKET, API_ERR_INVALID_PARAMS);
		}
		if (validate_socket_path_shape(what, sock, msg, len) != 0)
			return field_error(field, API_F_SOCKET, API_ERR_INVALID_PARAMS);
		if (check_dirs) {
			rc =
			    validate_socket_path(what, sock, c->role == PORT_ROLE_SERVER, msg, len);
			if (rc == -ENOENT || rc == -EACCES || rc == -ENOTDIR)
				return field_error(field, API_F_SOCKET, API_ERR_PATH);
			if (rc != 0)
				return field_error(field, API_F_SOCKET, API_ERR_INVALID_PARAMS);
		}
		snprintf(c->socket, sizeof(c->socket), "%s", sock);
	} else if (sock != NULL) {
		snprintf(msg, len, "%s: type %s has no socket; leave \"socket\" out", what,
			 c->type);
		return field_error(field, API_F_SOCKET, API_ERR_INVALID_PARAMS);
	} else if (api_get_str(obj, API_F_MODE, NULL) != NULL) {
		snprintf(msg, len, "%s: \"mode\" applies to %s ports; leave it out for type %s",
			 what, port_kind_names_with(PORT_FIELD_SOCKET), c->type);
		return field_error(field, API_F_MODE, API_ERR_INVALID_PARAMS);
	}
	rc = parse_device(obj, kind, c, what, msg, len, field);
	if (rc != 0)
		return rc;

	if (mac != NULL) {
		if (validate_mac(what, mac, c->mac, msg, len) != 0)
			return field_error(field, API_F_MAC, API_ERR_INVALID_PARAMS);
	} else {
		if (getrandom(c->mac, sizeof(c->mac), 0) != sizeof(c->mac)) {
			snprintf(msg, len, "%s: cannot generate a MAC: %s", what, strerror(errno));
			return field_error(field, API_F_MAC, API_ERR_INTERNAL);
		}
		c->mac[0] = (c->mac[0] & 0xfc) | 0x02; /* unicast, locally administered */
	}

	c->mtu = (uint16_t)mtu; /* in range: api_check_params */
	for (int d = 0; d < PORT_DIRS; d++) {
		bool given;

		rc = port_rate_parse(obj, &port_rate_fields[d], c->mtu, what, &c->rate[d], &given,
				     msg, len, field);
		if (rc != 0)
			return rc;
	}

	if (secret != NULL) {
		if (!(kind->fields & PORT_FIELD_SECRET)) {
			snprintf(msg, len,
				 "%s: \"secret\" applies to %s ports only; leave it "
				 "out for type %s",
				 what, port_kind_names_with(PORT_FIELD_SECRET), c->type);
			return field_error(field, API_F_SECRET, API_ERR_INVALID_PARAMS);
		}
		if (strlen(secret) == 0 || strlen(secret) > API_SECRET_MAX ||
		    strpbrk(secret, ",=") != NULL) {
			snprintf(msg, len,
				 "%s: memif secret must be 1-%d characters without ',' "
				 "or '='",
				 what, API_SECRET_MAX);
			return field_error(field, API_F_SECRET, API_ERR_INVALID_PARAMS);
		}
		snprintf(c->secret, sizeof(c->secret), "%s", secret);
	}
	return parse_guards(obj, kind, mac != NULL, c, what, msg, len, field);
}

cJSON *port_conf_to_json(const struct port_conf *c, bool with_secret)
{
	cJSON *o = cJSON_CreateObject();
	char mac[18];

	format_mac(c->mac, mac);
	cJSON_AddStringToObject(o, API_F_NAME, c->name);
	cJSON_AddStringToObject(o, API_F_NETWORK, c->network);
	cJSON_AddStringToObject(o, API_F_TYPE, c->type);
	if (c->socket[0] != '\0')
		cJSON_AddStringToObject(o, API_F_SOCKET, c->socket);
	if (c->socket[0] != '\0')
		cJSON_AddStringToObject(
		    o, API_F_MODE, c->role == PORT_ROLE_SERVER ? API_ROLE_SERVER : API_ROLE_CLIENT);
	if (c->iface[0] != '\0')
		cJSON_AddStringToObject(o, API_F_IFACE, c->iface);
	if (c->pci[0] != '\0')
		cJSON_AddStringToObject(o, API_F_PCI, c->pci);
	if (c->io[0] != '\0')
		cJSON_AddStringToObject(o, API_F_IO, c->io);
	cJSON_AddStringToObject(o, API_F_MAC, mac);
	cJSON_AddNumberToObject(o, API_F_MTU, c->mtu);
	if (with_secret && c->secret[0] != '\0')
		cJSON_AddStringToObject(o, API_F_SECRET, c->secret);
	cJSON_AddBoolToObject(o, API_F_PORT_SECURITY, c->port_security);
	if (c->n_allowed != 0) {
		char list[API_ALLOWED_MACS_MAX * 18 + 1] = "";

		for (uint8_t i = 0; i < c->n_allowed; i++) {
			format_mac(c->allowed[i], mac);
			snprintf(list + strlen(list), sizeof(list) - strlen(list), "%s%s",
				 i ? "," : "", mac);
		}
		cJSON_AddStringToObject(o, API_F_ALLOWED_MACS, list);
	}
	cJSON_AddNumberToObject(o, API_F_MAC_LIMIT, c->mac_limit);
	if (c->flood_limit_set)
		cJSON_AddNumberToObject(o, API_F_FLOOD_LIMIT, c->flood_limit);
	cJSON_AddNumberToObject(o, API_F_TX_RETRIES, c->tx_retries);
	if (c->queues > 1)
		cJSON_AddNumberToObject(o, API_F_QUEUES, c->queues);
	if (c->no_offloads)
		cJSON_AddFalseToObject(o, API_F_OFFLOADS);
	if (c->own_rings)
		cJSON_AddStringToObject(o, API_F_RINGS, API_RINGS_PODWIRE);
	for (int d = 0; d < PORT_DIRS; d++) {
		const struct port_rate *r = &c->rate[d];
		const struct port_rate_names *f = &port_rate_fields[d];

		if (r->rate == 0)
			continue;
		cJSON_AddNumberToObject(o, r->bits ? f->bps : f->pps, (double)r->rate);
		cJSON_AddNumberToObject(o, f->burst, (double)r->burst);
	}
	{
		char pins[API_RXQ_PINS_LEN + 1] = "";
		size_t off = 0;

		for (unsigned int q = 0; q < API_QUEUES_MAX && off < sizeof(pins); q++)
			if (c->rxq_pin[q] != 0)
				off += (size_t)snprintf(pins + off, sizeof(pins) - off, "%s%u:%u",
							off ? "," : "", q, c->rxq_pin[q] - 1U);
		if (off != 0)
			cJSON_AddStringToObject(o, API_F_RXQ_PINS, pins);
	}
	return o;
}
