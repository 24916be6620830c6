/* SPDX-License-Identifier: BSD-3-Clause */
/* A VF's VLAN, MAC, spoof check and trust, set through its PF's kernel
 * netdev with rtnetlink (what `ip link set PF vf N ...` does). */
#ifndef PODWIRE_SRIOV_NETLINK_H
#define PODWIRE_SRIOV_NETLINK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct sriov_vf_conf {
	int vlan;     /* 0-4094; -1: leave as is */
	bool set_mac; /* mac below is to be set */
	uint8_t mac[6];
	int spoofchk; /* 0, 1; -1: leave as is */
	int trust;    /* 0, 1; -1: leave as is */
};

/* Nothing in c is to be set. */
bool sriov_vf_conf_empty(const struct sriov_vf_conf *c);

/*
 * One RTM_SETLINK on pf carrying IFLA_VFINFO_LIST for VF vf. Returns 0, or
 * -errno with the kernel's reason (its extended ack when it gives one) in
 * msg. -ENODEV: pf is not a kernel netdev here.
 */
int sriov_nl_set_vf(const char *pf, int vf, const struct sriov_vf_conf *c, char *msg, size_t len);

#endif
