/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Uplink kind pci: a VF (or a whole NIC) bound to vfio-pci, probed into
 * the datapath by PCI address. Nothing is probed at start-up (see main.c);
 * the device is released back to vfio-pci when its last port goes.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <rte_dev.h>
#include <rte_ethdev.h>

#include "ports/uplink.h"
#include "sriov/sriov.h"

static int pci_open(struct port *p, uint16_t *port_id, char *vdev, size_t vdev_len, char *driver,
		    size_t driver_len, char *msg, size_t len)
{
	char drv[64] = "";
	int rc = sriov_pci_driver(p->conf.pci, drv, sizeof(drv));

	vdev[0] = '\0';
	(void)vdev_len;
	if (rc == -ENOENT) {
		snprintf(msg, len, "port \"%s\": there is no PCI device %s; see \"lspci -D\"",
			 p->conf.name, p->conf.pci);
		return -ENOENT;
	}
	if (rc != 0 || strcmp(drv, "vfio-pci") != 0) {
		snprintf(msg, len,
			 "port \"%s\": PCI device %s is bound to %s, not vfio-pci; bind it "
			 "first (\"podwirectl vf alloc\" for a VF of a physnet, or "
			 "dpdk-devbind.py -b vfio-pci %s)",
			 p->conf.name, p->conf.pci, drv[0] != '\0' ? drv : "no driver",
			 p->conf.pci);
		return -EINVAL;
	}
	if (rte_dev_probe(p->conf.pci) != 0 ||
	    rte_eth_dev_get_port_by_name(p->conf.pci, port_id) != 0) {
		snprintf(msg, len,
			 "port \"%s\": DPDK could not probe %s; see podwired's log (is the "
			 "IOMMU on, and the device not held by another process?)",
			 p->conf.name, p->conf.pci);
		rte_eal_hotplug_remove("pci", p->conf.pci);
		return -EIO;
	}
	{
		struct rte_eth_dev_info info;

		snprintf(driver, driver_len, "pci (%s)",
			 rte_eth_dev_info_get(*port_id, &info) == 0 ? info.driver_name : "?");
	}
	return 0;
}

static void pci_close(const char *vdev, const char *device)
{
	(void)vdev;
	rte_eal_hotplug_remove("pci", device);
}

UPLINK_KIND(pci, API_PORT_PCI, PORT_FIELD_PCI,
	    "uplink on a PCI device bound to vfio-pci (an SR-IOV VF or a NIC)", pci_open, pci_close,
	    NULL, NULL)
