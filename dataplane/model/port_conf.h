/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * What a port is made from (the API request, the state file), plain data,
 * and the one parser used for both, so both accept exactly the same
 * things. Which fields a port takes depends on its kind (model/port.h).
 */
#ifndef PODWIRE_MODEL_PORT_CONF_H
#define PODWIRE_MODEL_PORT_CONF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <cjson/cJSON.h>

#include "api.h"

enum port_role {
	PORT_ROLE_SERVER, /* podwired creates the socket */
	PORT_ROLE_CLIENT, /* podwired connects to the pod's socket */
};

/* The port.create fields a kind takes besides name, network, mac, mtu. */
enum port_field {
	PORT_FIELD_SOCKET = 1 << 0, /* socket, and mode (server|client) */
	PORT_FIELD_SECRET = 1 << 1, /* memif secret */
	PORT_FIELD_IFACE = 1 << 2,  /* a kernel interface */
	PORT_FIELD_PCI = 1 << 3,    /* a PCI address */
	PORT_FIELD_QUEUES = 1 << 4, /* queue pairs (default 1) */
	PORT_FIELD_IO = 1 << 5,	    /* "io": how a kernel interface is read (veth) */
	PORT_FIELD_OL = 1 << 6,	    /* offloads: on (default) or off */
	PORT_FIELD_RINGS = 1 << 7,  /* "rings": whose code moves vhost-user rings */
};

/* Rate limits (policer/), per direction: what the port's pod sends
 * (in) and what podwired sends it (out). */
enum port_dir { PORT_DIR_IN, PORT_DIR_OUT, PORT_DIRS };

struct port_rate {
	uint64_t rate;	/* frames/s, or bits/s with bits; 0: no limit */
	uint64_t burst; /* frames, or bytes with bits */
	bool bits;
};

struct port_conf {
	char name[API_NAME_MAX + 1];
	char network[API_NAME_MAX + 1];
	char type[16];
	char socket[API_SOCKET_PATH_MAX + 1];
	char secret[API_SECRET_MAX + 1];
	char iface[API_IFNAME_MAX + 1];
	char pci[16]; /* domain:bus:device.function */
	char io[8];   /* API_IO_PACKET or API_IO_XDP; "": the kind's default */
	enum port_role role;
	uint8_t mac[6];
	uint16_t mtu;
	/* Limits and port security (bridges): see API_F_* in api.h. */
	bool port_security;
	bool flood_limit_set; /* else its network's applies */
	uint8_t n_allowed;
	uint8_t allowed[API_ALLOWED_MACS_MAX][6];
	uint32_t mac_limit;
	uint32_t flood_limit;
	uint16_t tx_retries;
	uint8_t queues; /* queue pairs (1 for kinds without PORT_FIELD_QUEUES) */
	/* Rx queue q pinned on the worker of core rxq_pin[q] - 1; 0: not. */
	uint16_t rxq_pin[API_QUEUES_MAX];
	/* "offloads": false (kinds with PORT_FIELD_OL): the port offers none,
	 * as before they existed. */
	bool no_offloads;
	/* "rings": "podwire" (kinds with PORT_FIELD_RINGS): podwired's own
	 * rings instead of librte_vhost's data path (the default). */
	bool own_rings;
	struct port_rate rate[PORT_DIRS];
};

/*
 * Fills c from a port.create object, validating every field against what
 * the registered kind named by "type" takes. A missing MAC is generated
 * (locally administered). check_dirs: also require the socket directory
 * to exist (and be writable for server mode).
 * Returns 0, or an API error code with msg and *field set.
 */
int port_conf_parse(const cJSON *obj, bool check_dirs, struct port_conf *c, char *msg, size_t len,
		    const char **field);

/* A rate limit's fields as named in a request: port.create's
 * rate_in_pps..., policer.set's pps, bps, burst. */
struct port_rate_names {
	const char *pps, *bps, *burst;
};
extern const struct port_rate_names port_rate_fields[PORT_DIRS];

/*
 * Reads the rate limit of direction d from obj (fields named by names;
 * absent ones are absent) into r, for a port of MTU mtu (a burst of bytes
 * holds its largest frame). *given: whether obj has any of them. A rate
 * of 0 is no limit. Ranges were checked by api_check_params. Returns 0,
 * or API_ERR_INVALID_PARAMS with msg (naming what, the field and the fix)
 * and *field set.
 */
int port_rate_parse(const cJSON *obj, const struct port_rate_names *names, uint16_t mtu,
		    const char *what, struct port_rate *r, bool *given, char *msg, size_t len,
		    const char **field);

/* The persistent fields of c as a JSON object (secret included or not). */
cJSON *port_conf_to_json(const struct port_conf *c, bool with_secret);

#endif
