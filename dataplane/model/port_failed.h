/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Ports the state file holds that podwired could not make at start-up (a
 * socket directory gone, a device missing). They are kept: listed with
 * the reason, written back to the state file as they were read, and tried
 * again at the next start, until an operator deletes them. Dropping them
 * would lose a pod's network for good at the next save. Control thread.
 */
#ifndef PODWIRE_MODEL_PORT_FAILED_H
#define PODWIRE_MODEL_PORT_FAILED_H

#include <sys/queue.h>

#include <cjson/cJSON.h>

#include "model/port_conf.h"

struct port_failed {
	/* As parsed; when the entry did not parse, only name, network and
	 * type (as far as they are strings). */
	struct port_conf conf;
	cJSON *saved; /* the state file's entry, written back unchanged */
	char reason[256];
	TAILQ_ENTRY(port_failed) next;
};

TAILQ_HEAD(port_failed_list, port_failed);
extern struct port_failed_list port_failed_all;

/* Keeps the state file's entry (copied) with why it failed; conf is its
 * parsed form, or NULL when it did not parse. 0 or -ENOMEM. */
int port_failed_add(const cJSON *entry, const struct port_conf *conf, const char *reason);
struct port_failed *port_failed_find(const char *name);
/* The failed port with this socket path, or NULL. */
struct port_failed *port_failed_by_socket(const char *path);
/* The first failed port on network net, or NULL. */
struct port_failed *port_failed_on(const char *net);
/* Forgets f: an operator deleted it. */
void port_failed_delete(struct port_failed *f);
/* At shutdown. */
void port_failed_delete_all(void);
/* f as port.list shows it: its configuration, link "failed", the reason. */
cJSON *port_failed_json(const struct port_failed *f);

#endif
