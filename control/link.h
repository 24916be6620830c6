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

#include <linux/netlink.h>
#include <linux/rtnetlink.h>

/* One rtnetlink link request (also the SR-IOV VF settings of
 * dataplane/sriov/netlink.c): header, ifinfomsg, attributes. */
struct nl_req {
	struct nlmsghdr nh;
	struct ifinfomsg ifi;
	char attrs[1024];
};

/* Starts r: type, NLM_F_REQUEST | NLM_F_ACK | flags, family AF_UNSPEC. */
void nl_req_init(struct nl_req *r, unsigned short type, unsigned short flags);
/* Appends an attribute (data may be NULL for a nest); returns it. */
struct rtattr *nl_attr_put(struct nl_req *r, unsigned short type, const void *data, size_t len);
/* Closes a nest opened by nl_attr_put(r, type, NULL, 0). */
void nl_attr_end(struct nl_req *r, struct rtattr *nest);
/* Sends r and reads the kernel's acknowledgement: 0, or -errno with msg
 * "WHAT: ..." when the socket fails, or "REFUSED: reason (the kernel's
 * extended-ack text)" when the kernel says no. */
int nl_transact(struct nl_req *r, const char *what, const char *refused, char *msg, size_t len);

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
