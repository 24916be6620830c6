/* SPDX-License-Identifier: BSD-3-Clause */
/* The plugin's calls to podwired, with podwired's errors turned into CNI
 * errors: unreachable or not ready is "try again later" (11), a refusal is
 * PW_ERR_PODWIRED with podwired's own message. */
#ifndef PODWIRE_CNI_PODWIRED_H
#define PODWIRE_CNI_PODWIRED_H

#include <stdbool.h>
#include <stdio.h>

#include <cjson/cJSON.h>

#include "client.h"
#include "netconf.h"
#include "record.h"

struct pw_client *podwired_connect(const char *socket, int timeout_ms, struct cni_error *err);

/* One call; 0 with *result (may be NULL to discard), or -1. pe (may be
 * NULL) receives podwired's error. */
int podwired_call(struct pw_client *c, const char *method, cJSON *params, cJSON **result,
		  struct pw_error *pe, struct cni_error *err);

/*
 * Creates a's port on its network, creating the network (with the
 * config's VLAN) when it does not exist, and replacing a port of the same
 * name on the same socket (left behind by an attachment of this slot).
 * mac: the MAC to ask for ("" lets podwired choose); on success it holds
 * the port's MAC.
 */
int podwired_port_create(struct pw_client *c, const struct netconf *conf, const struct attach *a,
			 char mac[18], struct cni_error *err);

/* Deletes a port if it exists and is ours: on that socket, with that
 * "iface" (a veth's host end; "" for the socket kinds). 0 also when it is
 * gone already. */
int podwired_port_delete(struct pw_client *c, const char *port, const char *socket,
			 const char *iface, struct cni_error *err);

/* Whether podwired's port p (port.get's answer) is the one of that socket
 * and iface. */
bool podwired_port_is(const cJSON *p, const char *socket, const char *iface);

/* 1 and *port when it exists, 0 when not, -1 on error. */
int podwired_port_get(struct pw_client *c, const char *name, cJSON **port, struct cni_error *err);

/* The pod's own access list of direction d (0 ingress, 1 egress) on port:
 * "<port>-in" or "<port>-out". */
#define PW_ACL_NAME_MAX (API_NAME_MAX + 1)
static inline void podwired_acl_name(const char *port, int d, char out[PW_ACL_NAME_MAX])
{
	/* Port names are at most 27 characters (record.c): these fit. */
	snprintf(out, PW_ACL_NAME_MAX, "%.*s-%s", API_NAME_MAX - 4, port, d == 0 ? "in" : "out");
}

/* ADD: makes the pod's lists of "acl" (acl.set) and attaches them to a's
 * port. A list podwired refuses fails with podwired's message (the rule
 * and field) under the config's field name; what was made stays for
 * podwired_acl_remove. */
int podwired_acl_apply(struct pw_client *c, const struct netconf *conf, const struct attach *a,
		       struct cni_error *err);

/* Detaches and deletes port's lists; 0 also when they do not exist. */
int podwired_acl_remove(struct pw_client *c, const char *port, struct cni_error *err);

/* CHECK: each list "acl" asks for exists and is attached to a's port. */
int podwired_acl_check(struct pw_client *c, const struct netconf *conf, const struct attach *a,
		       struct cni_error *err);

#endif
