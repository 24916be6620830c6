/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A fake sysfs tree with two SR-IOV PFs, and a "fake kernel" that acts on
 * the writes a driver-binding tool makes (unbind, driver_override, bind,
 * drivers_probe) the way the PCI core would. Used by the unit tests (in
 * process, through sriov_set_write_hook) and by tests/sriov/fake_sysfs.sh
 * (as a process serving FIFOs). The layout is described in fake_sysfs.sh.
 */
#ifndef PODWIRE_FAKE_KERNEL_H
#define PODWIRE_FAKE_KERNEL_H

#include <stdbool.h>

#define FK_MAX_LIST 16

struct fk_opts {
	bool no_vfio;			    /* no bus/pci/drivers/vfio-pci */
	bool fifos;			    /* bind/unbind/drivers_probe are FIFOs */
	const char *no_iommu[FK_MAX_LIST];  /* VFs (PCI addresses) without iommu_group */
	const char *netdev_up[FK_MAX_LIST]; /* VFs whose netdev is up */
	unsigned int n_no_iommu, n_netdev_up;
};

/* Builds the tree under root (an existing, empty directory). 0 or -errno. */
int fk_create(const char *root, const struct fk_opts *o);

/*
 * What the kernel does after value was written to path (a file under
 * root, possibly reached through symlinks): journals "<file> <value>" to
 * root/fake_kernel.journal (file relative to root, symlinks resolved,
 * value without its trailing newline) and re-points driver links for
 * bind, unbind and drivers_probe. Returns 0, or the -errno the kernel's
 * write would fail with (-ENODEV: no such device or not bound there).
 */
int fk_write(const char *root, const char *path, const char *value);

/* Serves the FIFOs and watches the driver_override files of a tree made
 * with fifos = true, until SIGTERM/SIGINT. Writes root/fake_kernel.pid
 * once ready and removes it on exit. Returns 0 or -errno. */
int fk_serve(const char *root);

#endif
