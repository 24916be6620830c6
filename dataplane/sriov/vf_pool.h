/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * SR-IOV VF pools per physical network: what sriov-network-device-plugin
 * and sriov-cni do, inside podwired. --physnets maps each physnet to PFs
 * (optionally a VF range of each); vf_pool_alloc takes a free VF, binds it
 * to vfio-pci and sets its VLAN/MAC/spoof check/trust through the PF;
 * vf_pool_release gives it back to its original driver. Allocations are
 * saved in <state dir>/vfs.json after every change and re-read (and
 * checked against sysfs) at start-up.
 *
 * One pool per process, used from the control thread only. No DPDK here.
 */
#ifndef PODWIRE_VF_POOL_H
#define PODWIRE_VF_POOL_H

#include <stdbool.h>
#include <stddef.h>

#include <cjson/cJSON.h>

#include "sriov/netlink.h"
#include "sriov/sriov.h"

#define VF_POOL_FILE	     "vfs.json"
#define VF_POOL_MAX_PHYSNETS 16
#define VF_POOL_MAX_PFS	     8 /* per physnet */
#define VF_POOL_MAX_VFS	     1024
#define VF_PHYSNET_MAX	     63
#define VF_OWNER_MAX	     127

enum vf_state { VF_FREE, VF_USED, VF_UNAVAILABLE };

/* A PF of a physnet and the VF numbers of it in the pool. */
struct vf_pf_range {
	char pf[SRIOV_IFNAME_LEN];
	char pf_pci[SRIOV_PCI_LEN];
	int first, last; /* -1, -1: every VF (parse); resolved by configure */
};

struct vf_physnet {
	char name[VF_PHYSNET_MAX + 1];
	struct vf_pf_range pfs[VF_POOL_MAX_PFS];
	unsigned int n_pfs;
};

struct vf_entry {
	struct sriov_vf vf;
	unsigned int physnet; /* index into the physnets */
	enum vf_state state;
	char reason[256]; /* why VF_UNAVAILABLE (or a warning on a used VF) */
	/* When used: */
	char owner[VF_OWNER_MAX + 1];
	char orig_driver[SRIOV_DRV_LEN];
	struct sriov_vf_conf conf;
	char vf_config[160]; /* what became of conf: applied, skipped, none */
};

/*
 * Parses "physnet2:enp1s0f0,physnet3:enp1s0f1#0-7" (a physnet may list
 * several PFs; #A-B limits a PF to VFs A..B, #A to VF A). Syntax only.
 * Returns 0 and the physnets, or -EINVAL with a message naming the bad
 * part and the fix.
 */
int vf_pool_parse(const char *spec, struct vf_physnet *out, unsigned int max, unsigned int *n,
		  char *msg, size_t len);

/*
 * Parses spec and discovers its PFs and VFs under sriov_root(), replacing
 * the pool (empty spec: no pool). Fails with -EINVAL and a message for an
 * unknown PF, a PF without SR-IOV, a range beyond its VFs, a PF in two
 * physnets; the pool is then empty.
 */
int vf_pool_configure(const char *spec, char *msg, size_t len);

/* Empties the pool (allocations are kept in the state file). */
void vf_pool_fini(void);

/* Warnings and notices go to the podwire.sriov log (core/log.h). Every
 * change of the allocations (each save of vfs.json, written or not)
 * publishes NOTIFY_VF_POOL_CHANGED (core/notify.h), for what mirrors them
 * (CDI specs). */

/*
 * How VF settings reach the PF; default sriov_nl_set_vf. Tests replace it.
 * Returning -ENODEV means "the PF has no kernel netdev": settings skipped.
 */
typedef int (*vf_pool_config_fn)(const char *pf, int vf, const struct sriov_vf_conf *c, char *msg,
				 size_t len);
void vf_pool_set_config_fn(vf_pool_config_fn fn);

/*
 * Re-reads state_dir/vfs.json (absent: no allocations). A VF still bound
 * to vfio-pci stays allocated to its owner; anything inconsistent (VF gone
 * from the physnets, rebound to another driver, bad record) is logged and
 * dropped, and the file rewritten. Later changes are saved to state_dir.
 * Returns the number of allocations kept, or -errno when the file is
 * unreadable or not JSON (logged; the file is then left alone).
 */
int vf_pool_restore(const char *state_dir);

/* Physnets and VFs, in configuration order. vf_pool_refresh re-reads
 * every VF's driver, IOMMU group and netdev and recomputes states. */
unsigned int vf_pool_physnet_count(void);
const struct vf_physnet *vf_pool_physnet(unsigned int i);
int vf_pool_physnet_find(const char *name);
unsigned int vf_pool_entry_count(void);
const struct vf_entry *vf_pool_entry(unsigned int i);
void vf_pool_refresh(void);

/* Adds e's requested settings (vlan, mac, spoof_check, trust) and
 * vf_config to o; nulls: unset ones as null (API) or left out (state). */
void vf_entry_conf_json(const struct vf_entry *e, cJSON *o, bool nulls);

/*
 * Takes the first free VF of physnet for owner: binds it to vfio-pci,
 * applies conf through the PF, saves the state. On failure nothing changed
 * (the binding is rolled back) and: -ENOENT unknown physnet, -ENOSPC no
 * free VF, -ENOPKG vfio-pci not loaded, -ECANCELED the state could not be
 * saved, another -errno when a sysfs step or the kernel refused; msg says
 * which, and the fix. On success *out is the entry (valid until the next
 * change of the pool).
 */
int vf_pool_alloc(const char *physnet, const char *owner, const struct sriov_vf_conf *conf,
		  const struct vf_entry **out, char *msg, size_t len);

/*
 * Releases the VF at pci, or (pci NULL) every VF owner holds: resets the
 * VF settings it applied, gives the VF back to its original driver, saves
 * the state. cb is called with each released entry (before it is marked
 * free). Releasing what is not allocated is success with no call. Returns
 * 0, -ECANCELED (released, state not saved) or the -errno of a VF that
 * could not leave vfio-pci (it stays allocated; others are released).
 */
int vf_pool_release(const char *pci, const char *owner,
		    void (*cb)(const struct vf_entry *e, void *arg), void *arg, char *msg,
		    size_t len);

const char *vf_state_name(enum vf_state s);

#endif
