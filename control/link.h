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

/* For the CNI plugin's kernel interfaces (iftype kernel), which it moves
 * into a pod's namespace and configures there. */

/* Moves interface name into the network namespace netns_fd (an open
 * /var/run/netns/X or /proc/PID/ns/net), renamed new_name on the way (so
 * that neither name has to be free in the other namespace), with alias
 * (NULL: none). -EEXIST when new_name is taken there. */
int link_move(const char *name, int netns_fd, const char *new_name, const char *alias, char *msg,
	      size_t len);
/* Sets the interface's MAC (NULL: unchanged) and MTU (0: unchanged), then
 * brings it up. */
int link_configure(const char *name, const uint8_t *mac, unsigned int mtu, char *msg, size_t len);
/* Adds an address (AF_INET: 4 bytes, AF_INET6: 16) with its prefix length;
 * the kernel adds the prefix route with it. IPv6 addresses skip duplicate
 * address detection: IPAM made them unique, and a tentative address
 * cannot be used for a while. */
int link_addr_add(const char *name, int family, const void *addr, unsigned int prefixlen, char *msg,
		  size_t len);
/* What link_get reads of an interface. */
struct link_info {
	unsigned int ifindex;
	unsigned int flags; /* IFF_UP, ... */
	unsigned int mtu;
	uint8_t mac[6];
	char alias[128]; /* "" when none */
	char kind[16];	 /* "veth", ...; "" when the kernel gives none */
};
/* Reads the interface name over rtnetlink (sysfs shows the namespace it
 * was mounted in, not the caller's). -ENODEV when there is none. */
int link_get(const char *name, struct link_info *info, char *msg, size_t len);
/* Adds a route to dst/dst_len (dst_len 0: the default route) through gw
 * (NULL: on the link) out of the interface, in the main table. */
int link_route_add(const char *name, int family, const void *dst, unsigned int dst_len,
		   const void *gw, char *msg, size_t len);

#endif
