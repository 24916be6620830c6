/* SPDX-License-Identifier: BSD-3-Clause */
/* Networks: L2 bridge domains (MAC learning) or cross-connects (2 ports). */
#ifndef PODWIRE_MODEL_NETWORK_H
#define PODWIRE_MODEL_NETWORK_H

#include <stdint.h>
#include <sys/queue.h>

#include "api.h"
#include "datapath/view.h"
#include "model/port.h"

#define PW_MAX_NETWORKS 4096

/* A network's mode is what the datapath does with it. */
enum net_mode { NET_BRIDGE = DP_NET_BRIDGE, NET_XCONNECT = DP_NET_XCONNECT };

/* What a network is made from (the API request, the state file). */
struct net_conf {
	char name[API_NAME_MAX + 1];
	enum net_mode mode;
	uint16_t vlan;	      /* 0: untagged */
	uint32_t mac_limit;   /* MACs it may learn */
	uint32_t flood_limit; /* its ports' default, frames/s; 0: none */
};

struct network {
	char name[API_NAME_MAX + 1];
	enum net_mode mode;
	uint16_t vlan; /* 0: untagged */
	uint32_t mac_limit;
	uint32_t flood_limit;
	uint16_t idx;
	unsigned int n_ports;
	struct port_list ports;
	TAILQ_ENTRY(network) next;
};

TAILQ_HEAD(network_list, network);
extern struct network_list network_all;

struct network *network_find(const char *name);
unsigned int network_count(void);
/* Fills c from a network.create object (the API's or the state file's:
 * one parser for both). 0, or an API error code with msg and *field. */
int net_conf_parse(const cJSON *obj, struct net_conf *c, char *msg, size_t len, const char **field);
/* The persistent fields of n, as the state file keeps them. */
cJSON *net_conf_to_json(const struct network *n);
/* Creates a network; on failure *code and msg say why. */
int network_create(const struct net_conf *c, struct network **out, int *code, char *msg,
		   size_t len);
/* Fails with API_ERR_IN_USE while the network has ports. */
int network_delete(struct network *n, int *code, char *msg, size_t len);
const char *network_mode_name(enum net_mode m);
struct api_err;
/* The network named name, or NULL with err saying so (field: which
 * request field named it). */
struct network *network_need(const char *name, struct api_err *err, const char *field);
cJSON *network_to_json(const struct network *n);

#endif
