/* SPDX-License-Identifier: BSD-3-Clause */
/* RTM_SETLINK with IFLA_VFINFO_LIST over a raw netlink socket. */
#include <errno.h>
#include <net/if.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include <linux/if_link.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>

#include "sriov/netlink.h"

struct nl_req {
	struct nlmsghdr nh;
	struct ifinfomsg ifi;
	char attrs[512];
};

bool sriov_vf_conf_empty(const struct sriov_vf_conf *c)
{
	return c->vlan < 0 && !c->set_mac && c->spoofchk < 0 && c->trust < 0;
}

static struct rtattr *attr_put(struct nl_req *r, unsigned short type, const void *data, size_t len)
{
	struct rtattr *a = (struct rtattr *)((char *)r + NLMSG_ALIGN(r->nh.nlmsg_len));

	a->rta_type = type;
	a->rta_len = (unsigned short)RTA_LENGTH(len);
	if (len > 0)
		memcpy(RTA_DATA(a), data, len);
	r->nh.nlmsg_len = NLMSG_ALIGN(r->nh.nlmsg_len) + RTA_ALIGN(a->rta_len);
	return a;
}

static void attr_end(struct nl_req *r, struct rtattr *nest)
{
	nest->rta_len = (unsigned short)((char *)r + r->nh.nlmsg_len - (char *)nest);
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

int sriov_nl_set_vf(const char *pf, int vf, const struct sriov_vf_conf *c, char *msg, size_t len)
{
	struct sockaddr_nl sa = {.nl_family = AF_NETLINK};
	struct nl_req req = {0};
	struct rtattr *list, *info;
	char buf[4096];
	unsigned int ifindex = if_nametoindex(pf);
	int one = 1, fd, rc;
	ssize_t n;

	if (ifindex == 0) {
		snprintf(msg, len, "PF %s has no kernel netdev", pf);
		return -ENODEV;
	}
	req.nh.nlmsg_len = NLMSG_LENGTH(sizeof(req.ifi));
	req.nh.nlmsg_type = RTM_SETLINK;
	req.nh.nlmsg_flags = NLM_F_REQUEST | NLM_F_ACK;
	req.nh.nlmsg_seq = 1;
	req.ifi.ifi_family = AF_UNSPEC;
	req.ifi.ifi_index = (int)ifindex;
	list = attr_put(&req, IFLA_VFINFO_LIST, NULL, 0);
	info = attr_put(&req, IFLA_VF_INFO, NULL, 0);
	if (c->set_mac) {
		struct ifla_vf_mac m = {.vf = (__u32)vf};

		memcpy(m.mac, c->mac, 6);
		attr_put(&req, IFLA_VF_MAC, &m, sizeof(m));
	}
	if (c->vlan >= 0) {
		struct ifla_vf_vlan v = {.vf = (__u32)vf, .vlan = (__u32)c->vlan};

		attr_put(&req, IFLA_VF_VLAN, &v, sizeof(v));
	}
	if (c->spoofchk >= 0) {
		struct ifla_vf_spoofchk s = {.vf = (__u32)vf, .setting = (__u32)c->spoofchk};

		attr_put(&req, IFLA_VF_SPOOFCHK, &s, sizeof(s));
	}
	if (c->trust >= 0) {
		struct ifla_vf_trust t = {.vf = (__u32)vf, .setting = (__u32)c->trust};

		attr_put(&req, IFLA_VF_TRUST, &t, sizeof(t));
	}
	attr_end(&req, info);
	attr_end(&req, list);

	fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_ROUTE);
	if (fd < 0) {
		rc = -errno;
		snprintf(msg, len, "PF %s: cannot open a netlink socket: %s", pf, strerror(errno));
		return rc;
	}
	setsockopt(fd, SOL_NETLINK, NETLINK_EXT_ACK, &one, sizeof(one));
	setsockopt(fd, SOL_NETLINK, NETLINK_CAP_ACK, &one, sizeof(one));
	if (sendto(fd, &req, req.nh.nlmsg_len, 0, (struct sockaddr *)&sa, sizeof(sa)) < 0) {
		rc = -errno;
		snprintf(msg, len, "PF %s: netlink send failed: %s", pf, strerror(errno));
		close(fd);
		return rc;
	}
	n = recv(fd, buf, sizeof(buf), 0);
	if (n < (ssize_t)(sizeof(struct nlmsghdr) + sizeof(struct nlmsgerr)) ||
	    ((const struct nlmsghdr *)buf)->nlmsg_type != NLMSG_ERROR) {
		rc = n < 0 ? -errno : -EIO;
		snprintf(msg, len, "PF %s: no netlink answer: %s", pf, strerror(-rc));
	} else {
		const struct nlmsghdr *nh = (const struct nlmsghdr *)buf;
		const char *why = ext_ack_msg(nh, (size_t)n);

		rc = ((const struct nlmsgerr *)NLMSG_DATA(nh))->error;
		if (rc != 0)
			snprintf(msg, len, "the kernel refused VF %d settings on PF %s: %s%s%s%s",
				 vf, pf, strerror(-rc), why ? " (" : "", why ? why : "",
				 why ? ")" : "");
	}
	close(fd);
	return rc;
}
