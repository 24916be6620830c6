/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * What the runtime hands the plugin: the CNI_* environment and the network
 * configuration on stdin, parsed and validated in full before anything is
 * changed on the node.
 */
#ifndef PODWIRE_CNI_NETCONF_H
#define PODWIRE_CNI_NETCONF_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include <cjson/cJSON.h>

#include "api.h"
#include "errors.h"

#define CNI_DEFAULT_SOCKET_DIR "/run/podwire/pods"
#define CNI_DEFAULT_DATA_DIR   "/var/lib/cni/podwire"
#define CNI_IFNAME_MAX	       API_IFNAME_MAX
#define CNI_CONTAINERID_MAX    256
/* Each attachment gets socketDir/<8 hex digits>/<socket name>; both socket
 * names are this long, so the directory may use what is left of sun_path. */
#define CNI_SOCKET_NAME_LEN 10 /* "vhost.sock", "memif.sock" */
#define CNI_SOCKET_DIR_MAX  (API_SOCKET_PATH_MAX - 1 - 8 - 1 - CNI_SOCKET_NAME_LEN)

enum cni_cmd { CMD_ADD, CMD_DEL, CMD_CHECK, CMD_STATUS, CMD_GC, CMD_VERSION };

/* vhost-user and memif: a podwired port behind a socket. pci: an SR-IOV VF
 * of a physnet, bound to vfio-pci and handed whole to the pod. kernel: an
 * ordinary interface for a pod without DPDK, the container end of a veth
 * pair podwired makes (port kind veth), moved into the pod's netns. */
enum cni_iftype { IFTYPE_VHOST, IFTYPE_MEMIF, IFTYPE_PCI, IFTYPE_KERNEL };

#define CNI_IFTYPE_KERNEL "kernel"

/* A PCI address "dddd:bb:dd.f" and its NUL, with room to spare. */
#define CNI_PCI_ADDR_MAX 32

struct cni_env {
	enum cni_cmd cmd;
	const char *command;
	const char *containerid; /* NULL when not given */
	const char *netns;
	const char *ifname;
	const char *args;
	const char *path;
	char args_mac[18]; /* MAC= of CNI_ARGS, "" when absent */
};

struct netconf {
	cJSON *root; /* the whole parsed config; owned */
	char cni_version[16];
	char name[256];			/* the CNI network name */
	char network[API_NAME_MAX + 1]; /* podwired network; "" for pci */
	long vlan;			/* -1: not given */
	enum cni_iftype iftype;
	/* mode (vhost-user) or role (memif) in device-info terms: the pod's
	 * side. vhost-user "client" / memif "slave": podwired creates the socket. */
	char mode[8];
	bool pod_creates_socket;
	long mtu;
	char mac[18]; /* "" when podwired should pick one */
	/* Port security and limits (vhost-user, memif): port security is on
	 * unless the config says false; a limit of -1 is podwired's default. */
	bool port_security;
	char allowed_macs[API_ALLOWED_MACS_MAX * 18]; /* "m1,m2", "" when none */
	long mac_limit;
	long flood_limit;
	/* Queue pairs the pod's port offers (port.create "queues"), 1-16;
	 * 1 when not given. vhost-user and memif only. */
	long queues;
	/* "offloads": false (vhost-user): the port offers the pod no checksum
	 * or segmentation offload (port.create "offloads"). */
	bool no_offloads;
	/* "rateLimit": {"ingress": {"pps"|"bps": N, "burst": N}, "egress":
	 * {...}}: podwired's policers on the pod's port (ingress: what the pod
	 * sends; egress: what it receives). Per direction pps, bps, burst,
	 * -1 when not given. */
	long rate[2][3];
	/* "acl": {"ingress": {"default": "deny"|"permit", "rules": [...]},
	 * "egress": {...}}: the pod's own access lists (acl.set's default and
	 * rules, checked by podwired at ADD), kept as podwired lists named
	 * "<port>-in" and "<port>-out" attached to the pod's port. Per
	 * direction (ingress: what the pod sends) the object inside root, NULL
	 * when not given. */
	const cJSON *acl[2];
	char socket_dir[CNI_SOCKET_DIR_MAX + 1];
	char pod_socket_dir[CNI_SOCKET_DIR_MAX + 1];
	char podwired_socket[API_SOCKET_PATH_MAX + 1];
	char data_dir[PATH_MAX];
	/* iftype pci only. vlan above is then the VF's VLAN. */
	char physnet[API_NAME_MAX + 1]; /* the VF pool, a name from podwired's --physnets */
	int spoof_chk;			/* -1: leave as it is, 0: "off", 1: "on" */
	int trust;			/* the same */
	gid_t socket_gid;
	int timeout_ms;
	const cJSON *ipam; /* NULL: no IPAM (layer 2 only) */
	char ipam_type[256];
	char devinfo_file[PATH_MAX];	/* runtimeConfig.CNIDeviceInfoFile, or "" */
	const cJSON *prev_result;	/* NULL when absent */
	const cJSON *valid_attachments; /* GC: array of {containerID, ifname} */
};

/*
 * Reads the CNI_* variables from envp (NULL-terminated "K=V" strings) and
 * checks that those the command needs are there and well-formed. The
 * strings point into envp.
 */
int cni_env_parse(char *const envp[], struct cni_env *env, struct cni_error *err);

/*
 * Parses and validates the config (text of len bytes) for the command in
 * env. On success conf->root owns the parsed document (free with
 * netconf_free). Every message names the field and the fix.
 */
int netconf_parse(const char *text, size_t len, const struct cni_env *env, struct netconf *conf,
		  struct cni_error *err);
void netconf_free(struct netconf *conf);

/* Just the cniVersion of a config, for error objects of configs that fail
 * to parse further; "1.1.0" when it cannot be had. */
const char *netconf_peek_version(const char *text, size_t len, char *buf, size_t buflen);

const char *iftype_name(enum cni_iftype t);
/* The podwired port kind (port.create "type") of an iftype: iftype kernel
 * is a veth port, the others have the iftype's name. */
const char *iftype_port_type(enum cni_iftype t);
/* The iftype named name ("vhost-user", "memif", "pci", "kernel"): 0, or -1. */
int iftype_parse(const char *name, enum cni_iftype *t);

#endif
