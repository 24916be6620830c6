/* SPDX-License-Identifier: BSD-3-Clause */
/* The VF pools' API handlers (vf_api.c) and what they need from the rest
 * of podwired, given at start-up rather than included: sriov/ stays free
 * of DPDK and of the model. */
#ifndef PODWIRE_SRIOV_VF_API_H
#define PODWIRE_SRIOV_VF_API_H

/* The name of the port using PCI address pci, or NULL. */
typedef const char *(*vf_api_user_fn)(const char *pci);
void vf_api_set_user_lookup(vf_api_user_fn fn);

/* Re-reads the VF allocations saved under state_dir (vfs.json) and logs
 * the pools; the pools themselves were found by options_parse. */
void vf_api_restore(const char *state_dir);

#endif
