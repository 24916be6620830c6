/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * SR-IOV at the sysfs level: PF and VF discovery, and binding a VF to
 * vfio-pci (and back) the way the SR-IOV network operator does. Every
 * access goes through one root prefix (--sysfs-root, default /sys), so
 * tests run it against a fake tree. No DPDK here: unit-testable.
 *
 * Not thread-safe; podwired calls it from the control thread only.
 */
#ifndef PODWIRE_SRIOV_H
#define PODWIRE_SRIOV_H

#include <stdbool.h>
#include <stddef.h>

#define SRIOV_PCI_LEN	 16 /* "0000:01:10.2" and its NUL */
#define SRIOV_IFNAME_LEN 16 /* IFNAMSIZ */
#define SRIOV_DRV_LEN	 64
#define SRIOV_VFIO	 "vfio-pci"

struct sriov_pf {
	char name[SRIOV_IFNAME_LEN]; /* its netdev, as configured */
	char pci[SRIOV_PCI_LEN];
	int totalvfs, numvfs;
};

struct sriov_vf {
	char pci[SRIOV_PCI_LEN];
	char pf[SRIOV_IFNAME_LEN];
	char pf_pci[SRIOV_PCI_LEN];
	int vf_index;
	/* Refreshed from sysfs by sriov_vf_refresh: */
	char driver[SRIOV_DRV_LEN];    /* "" when unbound */
	int iommu_group;	       /* -1: none */
	char netdev[SRIOV_IFNAME_LEN]; /* "" when it has none */
	bool netdev_up;
};

/* The sysfs root, "/sys" until set. root is copied; trailing '/' dropped. */
void sriov_set_root(const char *root);
const char *sriov_root(void);

/*
 * Called after every successful write under the root with the full path
 * and the value; a non-zero return (-errno) makes the write fail. For tests
 * that emulate the kernel in process. NULL: none.
 */
typedef int (*sriov_write_hook_t)(const char *path, const char *value);
void sriov_set_write_hook(sriov_write_hook_t hook);

/* How long a bind, unbind or probe may take to show in the driver link
 * (the kernel acts synchronously; a test's fake kernel may not). */
void sriov_set_timeout_ms(unsigned int ms);

/* Reads root/rel without its trailing newline. 0 or -errno. */
int sriov_read(const char *rel, char *buf, size_t len);
/* Writes value to root/rel in one write(2). 0 or -errno. */
int sriov_write(const char *rel, const char *value);
/* The last component of the link root/rel points to. 0 or -errno. */
int sriov_readlink_base(const char *rel, char *buf, size_t len);

/*
 * The PF whose netdev is name. Returns 0, or -ENODEV (no such netdev),
 * -ENOTSUP (not a PCI device, or no SR-IOV), with a message naming the PF
 * and the fix in msg.
 */
int sriov_pf_get(const char *name, struct sriov_pf *pf, char *msg, size_t len);

/* VF number index of pf (its virtfn<index> link), refreshed. 0 or -errno
 * with msg. */
int sriov_vf_get(const struct sriov_pf *pf, int index, struct sriov_vf *vf, char *msg, size_t len);

/* Re-reads a VF's driver, IOMMU group and netdev. 0 or -ENOENT (gone). */
int sriov_vf_refresh(struct sriov_vf *vf);

/* The driver bdf is bound to: 0 and its name ("" when unbound), or -ENOENT
 * when root/bus/pci/devices/<bdf> does not exist. */
int sriov_pci_driver(const char *bdf, char *drv, size_t len);

/* vfio's unsafe noiommu mode is on: devices need no IOMMU group. */
bool sriov_noiommu(void);
/* The vfio-pci driver is loaded (root/bus/pci/drivers/vfio-pci exists). */
bool sriov_vfio_loaded(void);

/*
 * Binds vf to vfio-pci: unbind from its driver, driver_override =
 * vfio-pci, bind, clear the override, verify. On success 0, vf refreshed
 * and its former driver in orig ("" when it had none). On failure the
 * former driver is restored and -errno returned with a message naming the
 * VF, the step and the fix (-ENOENT: vfio-pci not loaded; -ENXIO: no IOMMU
 * group; -EBUSY: already on vfio-pci; -EIO: a step did not take effect).
 */
int sriov_bind_vfio(struct sriov_vf *vf, char *orig, size_t olen, char *msg, size_t len);

/*
 * Gives vf back to orig: unbind from vfio-pci, clear the override, and
 * (orig not "") drivers_probe, then verify. 0, or -errno with msg; the VF
 * is then in whatever state the failed step left it (see vf->driver).
 */
int sriov_restore_driver(struct sriov_vf *vf, const char *orig, char *msg, size_t len);

/* The VF's IOMMU group device: "/dev/vfio/<group>", or
 * "/dev/vfio/noiommu-<group>" in noiommu mode; "" without a group. */
void sriov_vfio_device(const struct sriov_vf *vf, char *buf, size_t len);

#endif
