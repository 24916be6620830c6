/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * iftype pci: the plugin's side of podwired's VF pools (vf.alloc,
 * vf.release, vf.list). podwired owns the pools and the drivers; the
 * plugin only borrows a VF for an attachment, under the owner
 * "<containerID>/<ifname>", and gives it back.
 */
#ifndef PODWIRE_CNI_VF_H
#define PODWIRE_CNI_VF_H

#include <stdbool.h>

#include <cjson/cJSON.h>

#include "client.h"
#include "errors.h"
#include "netconf.h"
#include "record.h"

/* The driver podwired binds a lent VF to. */
#define VF_DRIVER "vfio-pci"

/* True for a PCI address in the spec's BDF form "dddd:bb:dd.f" (hex). */
bool pci_addr_valid(const char *s);

/* vf.alloc's params for attachment a of config conf; mac "" for none. */
cJSON *vf_alloc_params(const struct netconf *conf, const struct attach *a, const char *mac);

/*
 * Turns podwired's refusal of vf.alloc into a CNI error naming the config
 * field and the fix: an unknown physnet or a refused vlan, mac, spoofChk
 * or trust is the config's fault (7); no free VF (API_ERR_RESOURCE on field
 * physnet), or podwired unreachable or not ready, is worth retrying (11);
 * anything else, e.g. vfio-pci not loaded, is podwired's (100, with its
 * message, which names the fix). Returns -1.
 */
int vf_alloc_error(const struct pw_error *pe, const struct netconf *conf, struct cni_error *err);

/*
 * Takes a VF of conf's physnet for a (owner a's containerID/ifname): on
 * success a->pci, a->pf_pci and a->vfio are filled and mac (in: the MAC
 * to set, "" for none) holds the VF's MAC when podwired reports one.
 */
int vf_alloc(struct pw_client *c, const struct netconf *conf, struct attach *a, char mac[18],
	     struct cni_error *err);

/* Gives back every VF lent to owner. 0 also when none is. */
int vf_release(struct pw_client *c, const char *owner, struct cni_error *err);

/*
 * The VF with PCI address pci in podwired's pools (physnet may be "" for
 * every physnet): 1 and *vf (a copy the caller frees), 0 when podwired
 * knows no such VF, -1 on error.
 */
int vf_find(struct pw_client *c, const char *physnet, const char *pci, cJSON **vf,
	    struct cni_error *err);

/* Every VF of physnet as a new array (NULL with err on failure). */
cJSON *vf_list(struct pw_client *c, const char *physnet, struct cni_error *err);

#endif
