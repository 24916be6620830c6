/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Kernel network interfaces over rtnetlink, shared by podwired (the veth
 * port kind) and the Docker driver (placeholder interfaces of DPDK
 * containers): create a veth pair or a dummy, delete, bring up, alias,
 * checksum and segmentation offloads off. Every call acts in the calling
 * thread's network namespace and returns 0 or -errno with msg naming the
 * interface and the kernel's reason.
 */
#ifndef PODWIRE_LINK_H
#define PODWIRE_LINK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* A veth pair host <-> peer, one rx and one tx queue each (as AF_XDP on
 * a veth needs), both of mtu; peer gets mac (NULL: the kernel's). */
int link_veth_create(const char *host, const char *peer, unsigned int mtu, const uint8_t *mac,
		     char *msg, size_t len);
/* Deletes the interface with this index (a veth takes its peer along).
 * -ENODEV when it is gone already. */
int link_delete(unsigned int ifindex, char *msg, size_t len);
/* Sets the interface up, and its alias (ifalias) when alias is not NULL. */
int link_set_up(const char *name, const char *alias, char *msg, size_t len);
/* Turns off tx checksumming, TSO, GSO and GRO: frames leave as they are
 * on the wire, whole and with their checksums, as a DPDK peer needs. */
int link_offloads_off(const char *name, char *msg, size_t len);
/* The interface's alias into buf ("" when none). 0 or -errno. */
int link_alias(const char *name, char *buf, size_t len);
/* Whether name is a veth (its driver, as ethtool says). */
bool link_is_veth(const char *name);

#endif
