/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * What a pod's DPDK app is told about its interface: the device-info file
 * (NPWG Device Information Specification 1.1.0) and podwire.json in the
 * attachment directory, both with the paths the pod sees, and the EAL
 * --vdev argument derived from them (shared with podwire-vdev).
 */
#ifndef PODWIRE_CNI_DEVINFO_H
#define PODWIRE_CNI_DEVINFO_H

#include <stddef.h>

#include <cjson/cJSON.h>

#include "errors.h"
#include "record.h"
#include "vdev.h"

/* {"type":"vhost-user","version":"1.1.0","vhost-user":{"mode":..,"path":..}}
 * or the memif equivalent, for a's pod-side socket; for iftype pci
 * {"type":"pci","version":"1.1.0","pci":{"pci-address":VF,"pf-pci-address":PF}}.
 * NULL for iftype kernel: the specification has no type for a kernel
 * interface (its types are pci, vdpa, vhost-user and memif). */
cJSON *devinfo_build(const struct attach *a);

/* podwire.json: the attachment as the pod should use it. result is the
 * internal (1.1.0-shaped) result, for IPs, routes and DNS. */
cJSON *podwire_json_build(const struct attach *a, const char *mac, long mtu, const cJSON *result);

/* Writes the device-info file, creating its directory: 0644, or 0600
 * when it holds a memif secret. */
int devinfo_write(const char *path, const cJSON *info, struct cni_error *err);

/* Removes a's device-info file if it is the one podwire wrote for a: a
 * regular file (not a symlink) of a's type whose entries for the device
 * are devinfo_build(a)'s (more entries are allowed). The path comes
 * from the runtime (Multus), and a device plugin or another CNI plugin
 * may have written there since: what is not podwire's is left, and
 * said so on stderr. 0: removed or already gone; 1: left. */
int devinfo_remove(const struct attach *a);

#endif
