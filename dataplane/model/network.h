/* SPDX-License-Identifier: BSD-3-Clause */
/* Networks: L2 bridge domains (MAC learning) or cross-connects (2 ports). */
#ifndef PODWIRE_NETWORK_H
#define PODWIRE_NETWORK_H

#include <stdint.h>
#include <sys/queue.h>

#include "api.h"
#include "model/port.h"

#define PW_MAX_NETWORKS 4096

enum net_mode { NET_BRIDGE, NET_XCONNECT };

struct network {
	char name[API_NAME_MAX + 1];
	enum net_mode mode;
	uint16_t vlan; /* 0: untagged */
	uint16_t idx;
	unsigned int n_ports;
	struct port_list ports;
	TAILQ_ENTRY(network) next;
};

TAILQ_HEAD(network_list, network);
extern struct network_list network_all;

struct network *network_find(const char *name);
unsigned int network_count(void);
/* Creates a network; on failure *code and msg say why. */
int network_create(const char *name, enum net_mode mode, uint16_t vlan, struct network **out,
		   int *code, char *msg, size_t len);
/* Fails with API_ERR_IN_USE while the network has ports. */
int network_delete(struct network *n, int *code, char *msg, size_t len);
const char *network_mode_name(enum net_mode m);
cJSON *network_to_json(const struct network *n);

#endif
