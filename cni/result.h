/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * CNI versions and results. Internally a result is kept in the 1.1.0
 * shape; it is converted from whatever version an IPAM plugin or a
 * prevResult used, and shaped for the version the config asks for.
 */
#ifndef PODWIRE_CNI_RESULT_H
#define PODWIRE_CNI_RESULT_H

#include <stdbool.h>

#include <cjson/cJSON.h>

#include "errors.h"

/* The versions VERSION reports, oldest first; NULL-terminated. */
extern const char *const cni_versions[];
#define CNI_VERSION_LATEST "1.1.0"

/* True when the plugin speaks this spec version. */
bool cni_version_supported(const char *v);
/* <0, 0, >0 like strcmp, comparing MAJOR.MINOR.PATCH numerically; an
 * unparsable version sorts first. */
int cni_version_cmp(const char *a, const char *b);

/* The interface this plugin adds to a result. */
struct result_iface {
	const char *name; /* CNI_IFNAME */
	const char *mac;
	const char *sandbox; /* CNI_NETNS */
	const char *socket_path;
	const char *pci_id; /* iftype pci: the VF's PCI address */
	long mtu;
	/* iftype kernel: the veth's host end, listed before the pod's
	 * interface as the spec's host-side interface (no sandbox); NULL
	 * for the other iftypes. */
	const char *host_name;
	const char *host_mac;
};

/*
 * Converts a result of any supported version (an IPAM answer or a
 * prevResult) into the internal 1.1.0 shape: a new object the caller owns,
 * or NULL with err filled when it is malformed. what names it in messages.
 */
cJSON *result_normalize(const cJSON *in, const char *what, struct cni_error *err);

/*
 * Builds the internal result of an ADD: prev's interfaces and IPs (may be
 * NULL), then ours (the host end first when there is one), with the IPAM answer's ips (may be NULL)
 * pointing at our interface. Routes and DNS come from the IPAM answer when it has them, else from
 * prev. Takes neither argument.
 */
cJSON *result_merge(const cJSON *prev, const cJSON *ipam, const struct result_iface *iface);

/* The internal result shaped for the version: "version" on each IP before
 * 1.0.0, interface mtu/socketPath/pciID and the newer route fields only from
 * 1.1.0 on. A new object. */
cJSON *result_shape(const cJSON *internal, const char *version);

/* The error object printed on stdout. */
cJSON *result_error(const char *version, const struct cni_error *err);

#endif
