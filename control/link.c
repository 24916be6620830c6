/* SPDX-License-Identifier: BSD-3-Clause */
/* rtnetlink requests (links, addresses, routes) and ethtool
 * ioctls on kernel interfaces. See link.h. */
#include <errno.h>
#include <net/if.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <unistd.h>

#include <linux/ethtool.h>
#include <linux/if_link.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>
#include <linux/sockios.h>
#include <linux/veth.h>

#include "link.h"

struct rtattr *nl_attr_put(struct nl_req *r, unsigned short type, const void *data, size_t len)
{
	struct rtattr *a = (struct rtattr *)((char *)r + NLMSG_ALIGN(r->nh.nlmsg_len));

	a->rta_type = type;
	a->rta_len = (unsigned short)RTA_LENGTH(len);
	if (len > 0)
		memcpy(RTA_DATA(a), data, len);
	r->nh.nlmsg_len = NLMSG_ALIGN(r->nh.nlmsg_len) + RTA_ALIGN(a->rta_len);
	return a;
}

static void attr_str(struct nl_req *r, unsigned short type, const char *s)
{
	nl_attr_put(r, type, s, strlen(s) + 1);
}

static void attr_u32(struct nl_req *r, unsigned short type, uint32_t v)
{
	nl_attr_put(r, type, &v, sizeof(v));
}

void nl_attr_end(struct nl_req *r, struct rtattr *nest)
{
	nest->rta_len = (unsigned short)((char *)r + r->nh.nlmsg_len - (char *)nest);
}

void nl_req_init(struct nl_req *r, unsigned short type, unsigned short flags)
{
	memset(r, 0, sizeof(*r));
	r->nh.nlmsg_len = NLMSG_LENGTH(sizeof(r->ifi));
	r->nh.nlmsg_type = type;
	r->nh.nlmsg_flags = NLM_F_REQUEST | NLM_F_ACK | flags;
	r->nh.nlmsg_seq = 1;
	r->ifi.ifi_family = AF_UNSPEC;
}

/* The kernel's extended-ack text after an error, if any. */
static const char *ext_ack_msg(const struct nlmsghdr *nh, size_t n)
{
	const struct nlmsgerr *e = NLMSG_DATA(nh);
	size_t off = sizeof(*nh) + sizeof(*e);
	const struct rtattr *a;

	if (!(nh->nlmsg_flags & NLM_F_ACK_TLVS))
		return NULL;
	if (!(nh->nlmsg_flags & NLM_F_CAPPED))
		off += e->msg.nlmsg_len - sizeof(e->msg);
	for (a = (const struct rtattr *)((const char *)nh + off);
	     (const char *)a + sizeof(*a) <= (const char *)nh + n && a->rta_len >= sizeof(*a);
	     a = (const struct rtattr *)((const char *)a + RTA_ALIGN(a->rta_len)))
		if (a->rta_type == NLMSGERR_ATTR_MSG)
			return RTA_DATA(a);
	return NULL;
}

int nl_transact(struct nl_req *r, const char *what, const char *refused, char *msg, size_t len)
{
	struct sockaddr_nl sa = {.nl_family = AF_NETLINK};
	char buf[4096];
	int one = 1, fd, rc;
	ssize_t n;

	fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_ROUTE);
	if (fd < 0) {
		rc = -errno;
		snprintf(msg, len, "%s: cannot open a netlink socket: %s", what, strerror(errno));
		return rc;
	}
	setsockopt(fd, SOL_NETLINK, NETLINK_EXT_ACK, &one, sizeof(one));
	setsockopt(fd, SOL_NETLINK, NETLINK_CAP_ACK, &one, sizeof(one));
	if (sendto(fd, r, r->nh.nlmsg_len, 0, (struct sockaddr *)&sa, sizeof(sa)) < 0) {
		rc = -errno;
		snprintf(msg, len, "%s: netlink send failed: %s", what, strerror(errno));
		close(fd);
		return rc;
	}
	n = recv(fd, buf, sizeof(buf), 0);
	if (n < (ssize_t)(sizeof(struct nlmsghdr) + sizeof(struct nlmsgerr)) ||
	    ((const struct nlmsghdr *)buf)->nlmsg_type != NLMSG_ERROR) {
		rc = n < 0 ? -errno : -EIO;
		snprintf(msg, len, "%s: no netlink answer: %s", what, strerror(-rc));
	} else {
		const struct nlmsghdr *nh = (const struct nlmsghdr *)buf;
		const char *why = ext_ack_msg(nh, (size_t)n);

		rc = ((const struct nlmsgerr *)NLMSG_DATA(nh))->error;
		if (rc != 0)
			snprintf(msg, len, "%s: %s%s%s%s", refused, strerror(-rc), why ? " (" : "",
				 why ? why : "", why ? ")" : "");
	}
	close(fd);
	return rc;
}

/* nl_transact for an interface: "interface NAME: the kernel refused to
 * ACTION it: ...". */
static int nl_talk(struct nl_req *r, const char *name, const char *action, char *msg, size_t len)
{
	char what[64], refused[128];

	snprintf(what, sizeof(what), "interface %s", name);
	snprintf(refused, sizeof(refused), "interface %s: the kernel refused to %s it", name,
		 action);
	return nl_transact(r, what, refused, msg, len);
}

static int check_name(const char *name, char *msg, size_t len)
{
	if (name[0] != '\0' && strlen(name) < IFNAMSIZ)
		return 0;
	snprintf(msg, len, "interface name \"%s\" must be 1-%d bytes", name, IFNAMSIZ - 1);
	return -EINVAL;
}

int link_veth_create(const char *host, const char *peer, unsigned int mtu, const uint8_t *mac,
		     char *msg, size_t len)
{
	struct nl_req r;
	struct rtattr *info, *data, *p;
	struct ifinfomsg peer_ifi = {.ifi_family = AF_UNSPEC};
	int rc = check_name(host, msg, len);

	if (rc == 0)
		rc = check_name(peer, msg, len);
	if (rc != 0)
		return rc;
	nl_req_init(&r, RTM_NEWLINK, NLM_F_CREATE | NLM_F_EXCL);
	attr_str(&r, IFLA_IFNAME, host);
	attr_u32(&r, IFLA_MTU, mtu);
	attr_u32(&r, IFLA_NUM_TX_QUEUES, 1);
	attr_u32(&r, IFLA_NUM_RX_QUEUES, 1);
	info = nl_attr_put(&r, IFLA_LINKINFO, NULL, 0);
	attr_str(&r, IFLA_INFO_KIND, "veth");
	data = nl_attr_put(&r, IFLA_INFO_DATA, NULL, 0);
	/* VETH_INFO_PEER carries an ifinfomsg, then the peer's attributes. */
	p = nl_attr_put(&r, VETH_INFO_PEER, &peer_ifi, sizeof(peer_ifi));
	attr_str(&r, IFLA_IFNAME, peer);
	attr_u32(&r, IFLA_MTU, mtu);
	attr_u32(&r, IFLA_NUM_TX_QUEUES, 1);
	attr_u32(&r, IFLA_NUM_RX_QUEUES, 1);
	if (mac != NULL)
		nl_attr_put(&r, IFLA_ADDRESS, mac, 6);
	nl_attr_end(&r, p);
	nl_attr_end(&r, data);
	nl_attr_end(&r, info);
	return nl_talk(&r, host, "create", msg, len);
}

int link_delete(unsigned int ifindex, char *msg, size_t len)
{
	struct nl_req r;
	char what[32];

	snprintf(what, sizeof(what), "#%u", ifindex);
	nl_req_init(&r, RTM_DELLINK, 0);
	r.ifi.ifi_index = (int)ifindex;
	return nl_talk(&r, what, "delete", msg, len);
}

int link_set_up(const char *name, const char *alias, char *msg, size_t len)
{
	unsigned int ifindex = if_nametoindex(name);
	struct nl_req r;

	if (ifindex == 0) {
		snprintf(msg, len, "interface %s does not exist", name);
		return -ENODEV;
	}
	nl_req_init(&r, RTM_SETLINK, 0);
	r.ifi.ifi_index = (int)ifindex;
	r.ifi.ifi_flags = IFF_UP;
	r.ifi.ifi_change = IFF_UP;
	if (alias != NULL)
		attr_str(&r, IFLA_IFALIAS, alias);
	return nl_talk(&r, name, "set up", msg, len);
}

static int ethtool(int fd, const char *name, void *cmd)
{
	struct ifreq ifr;

	memset(&ifr, 0, sizeof(ifr));
	snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "%s", name);
	ifr.ifr_data = cmd;
	return ioctl(fd, SIOCETHTOOL, &ifr);
}

int link_offloads_off(const char *name, char *msg, size_t len)
{
	/* The legacy per-feature commands: each names one feature group, and
	 * turning tx checksumming off also drops what depends on it (TSO). */
	static const unsigned int cmds[] = {ETHTOOL_STXCSUM, ETHTOOL_STSO, ETHTOOL_SGSO,
					    ETHTOOL_SGRO};
	int fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0), rc = 0;

	if (fd < 0) {
		rc = -errno;
		snprintf(msg, len, "interface %s: cannot open a socket: %s", name, strerror(errno));
		return rc;
	}
	for (size_t i = 0; i < sizeof(cmds) / sizeof(cmds[0]) && rc == 0; i++) {
		struct ethtool_value v = {.cmd = cmds[i], .data = 0};

		if (ethtool(fd, name, &v) != 0 && errno != EOPNOTSUPP) {
			rc = -errno;
			snprintf(msg, len,
				 "interface %s: cannot turn offloads off (ethtool command %#x): %s",
				 name, cmds[i], strerror(errno));
		}
	}
	close(fd);
	return rc;
}

int link_alias(const char *name, char *buf, size_t len)
{
	char path[64];
	FILE *f;
	size_t n;

	buf[0] = '\0';
	if (check_name(name, buf, len) != 0 || strchr(name, '/') != NULL)
		return -EINVAL;
	snprintf(path, sizeof(path), "/sys/class/net/%s/ifalias", name);
	f = fopen(path, "r");
	if (f == NULL)
		return -errno;
	n = fread(buf, 1, len - 1, f);
	fclose(f);
	buf[n] = '\0';
	while (n > 0 && buf[n - 1] == '\n')
		buf[--n] = '\0';
	return 0;
}

bool link_is_veth(const char *name)
{
	struct ethtool_drvinfo info = {.cmd = ETHTOOL_GDRVINFO};
	int fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	bool veth;

	if (fd < 0)
		return false;
	veth = ethtool(fd, name, &info) == 0 && strcmp(info.driver, "veth") == 0;
	close(fd);
	return veth;
}

int link_move(const char *name, int netns_fd, const char *new_name, const char *alias, char *msg,
	      size_t len)
{
	unsigned int ifindex = if_nametoindex(name);
	struct nl_req r;
	int rc = check_name(new_name, msg, len);

	if (rc != 0)
		return rc;
	if (ifindex == 0) {
		snprintf(msg, len, "interface %s does not exist", name);
		return -ENODEV;
	}
	nl_req_init(&r, RTM_NEWLINK, 0);
	r.ifi.ifi_index = (int)ifindex;
	attr_u32(&r, IFLA_NET_NS_FD, (uint32_t)netns_fd);
	attr_str(&r, IFLA_IFNAME, new_name);
	if (alias != NULL)
		attr_str(&r, IFLA_IFALIAS, alias);
	return nl_talk(&r, name, "move", msg, len);
}

int link_configure(const char *name, const uint8_t *mac, unsigned int mtu, char *msg, size_t len)
{
	unsigned int ifindex = if_nametoindex(name);
	struct nl_req r;

	if (ifindex == 0) {
		snprintf(msg, len, "interface %s does not exist", name);
		return -ENODEV;
	}
	nl_req_init(&r, RTM_NEWLINK, 0);
	r.ifi.ifi_index = (int)ifindex;
	r.ifi.ifi_flags = IFF_UP;
	r.ifi.ifi_change = IFF_UP;
	if (mac != NULL)
		nl_attr_put(&r, IFLA_ADDRESS, mac, 6);
	if (mtu != 0)
		attr_u32(&r, IFLA_MTU, mtu);
	return nl_talk(&r, name, "configure", msg, len);
}

/* Starts r as a request whose fixed header is hdr (an ifaddrmsg or an
 * rtmsg, in place of the ifinfomsg: nl_req's storage holds either). */
static void nl_req_init_hdr(struct nl_req *r, unsigned short type, unsigned short flags,
			    const void *hdr, size_t hdr_len)
{
	nl_req_init(r, type, flags);
	memset(&r->ifi, 0, sizeof(r->ifi));
	memcpy(&r->ifi, hdr, hdr_len);
	r->nh.nlmsg_len = NLMSG_LENGTH(hdr_len);
}

static int family_len(int family)
{
	return family == AF_INET ? 4 : family == AF_INET6 ? 16 : 0;
}

int link_addr_add(const char *name, int family, const void *addr, unsigned int prefixlen, char *msg,
		  size_t len)
{
	unsigned int ifindex = if_nametoindex(name);
	int alen = family_len(family);
	struct ifaddrmsg ifa = {.ifa_family = (unsigned char)family,
				.ifa_prefixlen = (unsigned char)prefixlen,
				.ifa_index = ifindex};
	struct nl_req r;

	if (ifindex == 0) {
		snprintf(msg, len, "interface %s does not exist", name);
		return -ENODEV;
	}
	if (alen == 0 || prefixlen > (unsigned int)alen * 8) {
		snprintf(msg, len, "interface %s: address family %d, prefix length %u", name,
			 family, prefixlen);
		return -EINVAL;
	}
	if (family == AF_INET6)
		ifa.ifa_flags = IFA_F_NODAD;
	nl_req_init_hdr(&r, RTM_NEWADDR, NLM_F_CREATE | NLM_F_EXCL, &ifa, sizeof(ifa));
	nl_attr_put(&r, IFA_LOCAL, addr, (size_t)alen);
	nl_attr_put(&r, IFA_ADDRESS, addr, (size_t)alen);
	return nl_talk(&r, name, "add an address to", msg, len);
}

int link_route_add(const char *name, int family, const void *dst, unsigned int dst_len,
		   const void *gw, char *msg, size_t len)
{
	unsigned int ifindex = if_nametoindex(name);
	int alen = family_len(family);
	struct rtmsg rtm = {.rtm_family = (unsigned char)family,
			    .rtm_dst_len = (unsigned char)dst_len,
			    .rtm_table = RT_TABLE_MAIN,
			    .rtm_protocol = RTPROT_BOOT,
			    .rtm_scope = gw != NULL ? RT_SCOPE_UNIVERSE : RT_SCOPE_LINK,
			    .rtm_type = RTN_UNICAST};
	struct nl_req r;

	if (ifindex == 0) {
		snprintf(msg, len, "interface %s does not exist", name);
		return -ENODEV;
	}
	if (alen == 0 || dst_len > (unsigned int)alen * 8) {
		snprintf(msg, len, "interface %s: route family %d, prefix length %u", name, family,
			 dst_len);
		return -EINVAL;
	}
	nl_req_init_hdr(&r, RTM_NEWROUTE, NLM_F_CREATE | NLM_F_EXCL, &rtm, sizeof(rtm));
	if (dst_len > 0)
		nl_attr_put(&r, RTA_DST, dst, (size_t)alen);
	if (gw != NULL)
		nl_attr_put(&r, RTA_GATEWAY, gw, (size_t)alen);
	attr_u32(&r, RTA_OIF, ifindex);
	return nl_talk(&r, name, "add a route through", msg, len);
}

static void parse_linkinfo(const struct rtattr *nest, struct link_info *info)
{
	const struct rtattr *a = RTA_DATA(nest);
	int n = (int)RTA_PAYLOAD(nest);

	for (; RTA_OK(a, n); a = RTA_NEXT(a, n))
		if (a->rta_type == IFLA_INFO_KIND)
			snprintf(info->kind, sizeof(info->kind), "%.*s", (int)RTA_PAYLOAD(a),
				 (const char *)RTA_DATA(a));
}

int link_get(const char *name, struct link_info *info, char *msg, size_t len)
{
	struct sockaddr_nl sa = {.nl_family = AF_NETLINK};
	unsigned int ifindex = if_nametoindex(name);
	/* A link's answer carries its statistics too. */
	char buf[32768] __attribute__((aligned(NLMSG_ALIGNTO)));
	const struct nlmsghdr *nh = (const struct nlmsghdr *)buf;
	const struct rtattr *a;
	struct nl_req r;
	int fd, rc = 0, n;
	ssize_t got;

	memset(info, 0, sizeof(*info));
	if (ifindex == 0) {
		snprintf(msg, len, "interface %s does not exist", name);
		return -ENODEV;
	}
	nl_req_init(&r, RTM_GETLINK, 0);
	r.nh.nlmsg_flags = NLM_F_REQUEST;
	r.ifi.ifi_index = (int)ifindex;
	fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_ROUTE);
	if (fd < 0) {
		rc = -errno;
		snprintf(msg, len, "interface %s: cannot open a netlink socket: %s", name,
			 strerror(errno));
		return rc;
	}
	if (sendto(fd, &r, r.nh.nlmsg_len, 0, (struct sockaddr *)&sa, sizeof(sa)) < 0 ||
	    (got = recv(fd, buf, sizeof(buf), 0)) < 0) {
		rc = -errno;
		snprintf(msg, len, "interface %s: netlink: %s", name, strerror(errno));
		close(fd);
		return rc;
	}
	close(fd);
	if (!NLMSG_OK(nh, (size_t)got) || nh->nlmsg_type != RTM_NEWLINK) {
		rc = NLMSG_OK(nh, (size_t)got) && nh->nlmsg_type == NLMSG_ERROR
			 ? ((const struct nlmsgerr *)NLMSG_DATA(nh))->error
			 : -EIO;
		snprintf(msg, len, "interface %s: the kernel did not describe it: %s", name,
			 strerror(rc < 0 ? -rc : EIO));
		return rc < 0 ? rc : -EIO;
	}
	info->ifindex = ifindex;
	info->flags = ((const struct ifinfomsg *)NLMSG_DATA(nh))->ifi_flags;
	a = IFLA_RTA(NLMSG_DATA(nh));
	n = (int)IFLA_PAYLOAD(nh);
	for (; RTA_OK(a, n); a = RTA_NEXT(a, n)) {
		if (a->rta_type == IFLA_ADDRESS && RTA_PAYLOAD(a) == 6)
			memcpy(info->mac, RTA_DATA(a), 6);
		else if (a->rta_type == IFLA_MTU && RTA_PAYLOAD(a) == 4)
			memcpy(&info->mtu, RTA_DATA(a), 4);
		else if (a->rta_type == IFLA_IFALIAS)
			snprintf(info->alias, sizeof(info->alias), "%.*s", (int)RTA_PAYLOAD(a),
				 (const char *)RTA_DATA(a));
		else if (a->rta_type == IFLA_LINKINFO)
			parse_linkinfo(a, info);
	}
	return 0;
}
