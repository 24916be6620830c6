/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * What a pod's DPDK app is told about a vhost-user or memif socket, shared
 * by every writer and reader of it: the CNI plugin (device-info files,
 * podwire.json), podwired's CDI specs (environment) and podwire-vdev. One
 * builder of the device-info object and one maker of the EAL --vdev value,
 * so all of them agree by construction.
 */
#ifndef PODWIRE_VDEV_H
#define PODWIRE_VDEV_H

#include <stdbool.h>
#include <stddef.h>

#include <cjson/cJSON.h>

#define DEVINFO_VERSION "1.1.0"

/*
 * The device-info object (NPWG Device Information Specification 1.1.0) of
 * a socket as the pod sees it: {"type":"vhost-user","version":"1.1.0",
 * "vhost-user":{"mode":M,"path":P}} or {"type":"memif",...,"memif":
 * {"role":R,"path":P,"mode":"ethernet"}}. pod_mode is the pod's side:
 * vhost-user "client" or "server", memif "slave" or "master". secret
 * (memif; NULL or "": none) goes into the memif object as "secret", a
 * podwire extension: the pod's app must present it (net_memif secret=).
 */
cJSON *devinfo_socket(bool memif, const char *pod_mode, const char *path, const char *secret);

/*
 * Adds "queues": queues to info's device object when queues > 1: the
 * queue pairs the port offers the pod. Like "secret", a podwire extension
 * (the spec's vhost-user and memif objects have no queue count); absent
 * means 1. The pod's app uses up to that many: virtio-user takes it as
 * queues=N (devinfo_vdev adds it), net_memif has no such devarg and asks
 * for as many rings as the app configures rx/tx queues.
 */
void devinfo_set_queues(cJSON *info, unsigned int queues);

/* The queue pairs of info's device: its "queues", 1 when absent; -1 when
 * it is not an integer 1-API_QUEUES_MAX. */
int devinfo_queues(const cJSON *info);

/* {"type":"pci","version":"1.1.0","pci":{"pci-address":VF,"pf-pci-address":PF}}
 * for a VF (pf_pci may be NULL or ""). */
cJSON *devinfo_pci(const char *pci, const char *pf_pci);

/*
 * The EAL --vdev value for a device-info object: net_virtio_user<index> or
 * net_memif<index> with the socket, the pod's side, mac (may be NULL or
 * "") and the memif secret if the object has one, and virtio-user's
 * queues=N when the object has "queues" (memif: none, see
 * devinfo_set_queues). Returns 0, or -1 with a message in msg when info
 * is not a vhost-user or memif device-info object.
 */
int devinfo_vdev(const cJSON *info, const char *mac, unsigned int index, char *buf, size_t len,
		 char *msg, size_t msglen);

/* The EAL arguments that go with one vdev of type memif or not:
 * "--vdev=V" and, for virtio-user (vhost-user maps the app's memory in few
 * regions), " --single-file-segments". What podwire-vdev prints for one. */
int devinfo_eal_args(const char *vdev, bool memif, char *buf, size_t len);

#endif
