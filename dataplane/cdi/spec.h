/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * CDI (Container Device Interface) spec documents for podwired's devices,
 * built from plain descriptions: no DPDK, no model, so the unit tests and
 * the writer (cdi.c) share them. One document per kind:
 *
 *   podwire.io/port=NAME       a vhost-user or memif port: its socket
 *                              directory, hugetlbfs, where the socket is and
 *                              the EAL --vdev (the string podwire-vdev prints)
 *   podwire.io/vf=BDF, =PHYSNET-N   an allocated VF: /dev/vfio/vfio and its
 *                              group's node, hugetlbfs, PCIDEVICE_* variables
 *   podwire.io/hugepages=default    hugetlbfs alone
 *
 * Names follow the spec's rules and cdiVersion is the lowest version that
 * has every field used, so that older runtimes (podman 4.3: CDI 0.5)
 * load the documents. What cannot be a device is listed, with the reason,
 * in a "skipped" array for `podwirectl cdi list`.
 */
#ifndef PODWIRE_CDI_SPEC_H
#define PODWIRE_CDI_SPEC_H

#include <stdbool.h>
#include <stddef.h>

#include <cjson/cJSON.h>

#define CDI_VENDOR	    "podwire.io"
#define CDI_CLASS_PORT	    "port"
#define CDI_CLASS_VF	    "vf"
#define CDI_CLASS_HUGEPAGES "hugepages"
#define CDI_KIND_COUNT	    3
/* Where a port's socket directory appears in the container: under this,
 * by the directory's own name (the CNI plugin's podSocketDir default). */
#define CDI_POD_DIR	  "/var/run/podwire"
#define CDI_HUGEPAGES_DIR "/dev/hugepages"
#define CDI_VFIO_NODE	  "/dev/vfio/vfio"

/* The file a kind is written to: "podwire.io-port.json". */
void cdi_file_name(const char *cls, char *buf, size_t len);

/* A pod port, as the host sees it. */
struct cdi_port {
	const char *name;
	bool memif;
	bool server;	    /* podwired creates the socket; the pod connects */
	const char *socket; /* absolute host path */
	const char *mac;    /* the pod's MAC, "02:00:00:00:00:0a" */
};

/* An allocated VF (bound to vfio-pci). */
struct cdi_vf {
	const char *pci, *pf_pci, *physnet;
	unsigned int pos;      /* its place in its physnet's pool, from 0 */
	const char *vfio_node; /* its group's node as the container sees it */
};

/*
 * The documents of each kind; NULL when the kind has no device (a CDI spec
 * must have one). Devices that cannot be made are appended to skipped as
 * {"object": ..., "reason": ...}. dev_root is where the host's device
 * nodes are ("/dev"; tests give a fake tree).
 */
cJSON *cdi_port_spec(const struct cdi_port *ports, unsigned int n, cJSON *skipped);
cJSON *cdi_vf_spec(const struct cdi_vf *vfs, unsigned int n, const char *dev_root, cJSON *skipped);
cJSON *cdi_hugepages_spec(void);

/* The lowest cdiVersion carrying every field spec uses (the spec's
 * minimum-version table): "0.3.0" to "0.7.0". */
const char *cdi_min_version(const cJSON *spec);

/* Name rules. 0, or -EINVAL with msg naming the name and the fix. */
int cdi_check_device_name(const char *name, char *msg, size_t len);
int cdi_check_kind(const char *kind, char *msg, size_t len);

/*
 * Checks a whole document against the spec: cdiVersion a known version
 * not below cdi_min_version, kind, at least one device, device names valid
 * and unique, every device with edits, env "NAME=value", mounts and nodes
 * with their required paths, no unknown member. 0 or -EINVAL with msg.
 */
int cdi_check_spec(const cJSON *spec, char *msg, size_t len);

/* An environment variable name from prefix and a free-form name:
 * upper case, every character but [A-Z0-9] as '_'. */
void cdi_env_name(const char *prefix, const char *name, char *buf, size_t len);

#endif
