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

#include "link.h"
#include "sriov/netlink.h"

bool sriov_vf_conf_empty(const struct sriov_vf_conf *c)
{
	return c->vlan < 0 && !c->set_mac && c->spoofchk < 0 && c->trust < 0;
}

int sriov_nl_set_vf(const char *pf, int vf, const struct sriov_vf_conf *c, char *msg, size_t len)
{
	struct nl_req req;
	struct rtattr *list, *info;
	char what[64], refused[128];
	unsigned int ifindex = if_nametoindex(pf);

	if (ifindex == 0) {
		snprintf(msg, len, "PF %s has no kernel netdev", pf);
		return -ENODEV;
	}
	nl_req_init(&req, RTM_SETLINK, 0);
	req.ifi.ifi_index = (int)ifindex;
	list = nl_attr_put(&req, IFLA_VFINFO_LIST, NULL, 0);
	info = nl_attr_put(&req, IFLA_VF_INFO, NULL, 0);
	if (c->set_mac) {
		struct ifla_vf_mac m = {.vf = (__u32)vf};

		memcpy(m.mac, c->mac, 6);
		nl_attr_put(&req, IFLA_VF_MAC, &m, sizeof(m));
	}
	if (c->vlan >= 0) {
		struct ifla_vf_vlan v = {.vf = (__u32)vf, .vlan = (__u32)c->vlan};

		nl_attr_put(&req, IFLA_VF_VLAN, &v, sizeof(v));
	}
	if (c->spoofchk >= 0) {
		struct ifla_vf_spoofchk s = {.vf = (__u32)vf, .setting = (__u32)c->spoofchk};

		nl_attr_put(&req, IFLA_VF_SPOOFCHK, &s, sizeof(s));
	}
	if (c->trust >= 0) {
		struct ifla_vf_trust t = {.vf = (__u32)vf, .setting = (__u32)c->trust};

		nl_attr_put(&req, IFLA_VF_TRUST, &t, sizeof(t));
	}
	nl_attr_end(&req, info);
	nl_attr_end(&req, list);

	snprintf(what, sizeof(what), "PF %s", pf);
	snprintf(refused, sizeof(refused), "the kernel refused VF %d settings on PF %s", vf, pf);
	return nl_transact(&req, what, refused, msg, len);
}
