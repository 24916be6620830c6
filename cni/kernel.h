/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * iftype kernel: a pod without DPDK gets the container end of a veth pair
 * podwired made (port kind veth, veth.peer in port.get), moved into its
 * network namespace as CNI_IFNAME and configured there over rtnetlink:
 * MAC, MTU, up, IPAM's addresses and routes. The interface carries the
 * alias "podwire:<port>", so that what the plugin removes from a pod is
 * only ever its own.
 *
 * There is no device-info file for it: the Device Information
 * Specification's types are pci, vdpa, vhost-user and memif, and a kernel
 * interface is found by its name like any other.
 */
#ifndef PODWIRE_CNI_KERNEL_H
#define PODWIRE_CNI_KERNEL_H

#include <cjson/cJSON.h>

#include "errors.h"
#include "record.h"

/*
 * Moves peer (podwired's container end, in our namespace) into a's netns
 * as a->ifname with mac ("xx:..", "" to keep its own) and mtu, brings it
 * up and gives it the IPs of result (the internal, 1.1.0-shaped result)
 * that point at a->ifname, and result's routes. On failure the interface
 * may be left in the netns: kernel_remove, or deleting the port (podwired
 * deletes the pair), takes it away.
 */
int kernel_attach(const struct attach *a, const char *peer, const char *mac, long mtu,
		  const cJSON *result, struct cni_error *err);

/*
 * CHECK: a->ifname is in a's netns, is ours (alias), up, with mac, mtu
 * and every IP of result (prevResult, any version) that points at it.
 */
int kernel_check(const struct attach *a, const char *mac, long mtu, const cJSON *result,
		 struct cni_error *err);

/* Deletes a->ifname from a's netns when it is ours (its alias names a's
 * port); nothing when the netns or the interface is gone. Best effort:
 * for when podwired could not delete the pair. */
void kernel_remove(const struct attach *a);

/* The MAC of the veth's host end in our namespace into mac ("" when it
 * cannot be read), for the result's host interface. */
void kernel_host_mac(const struct attach *a, char mac[18]);

#endif
