/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Per-attachment records under dataDir, so that DEL and GC can undo an
 * attachment without podwired's help, and so that ports left behind while
 * podwired was down are removed when it is back ("pending" entries).
 *
 * An attachment (containerID, ifname) hashes to a slot, 8 hex digits that
 * name its socket directory, its podwired port and its record. Colliding
 * attachments take the next free slot; records say whose a slot is.
 *
 *   dataDir/<slot>.json            the record
 *   dataDir/<slot>.lock            flock()ed while a verb works on the slot
 *   dataDir/pending/<port>.json    a port to delete once podwired answers
 *   socketDir/<slot>/              the pod's socket and podwire.json
 */
#ifndef PODWIRE_CNI_RECORD_H
#define PODWIRE_CNI_RECORD_H

#include <stdbool.h>
#include <stdint.h>

#include <cjson/cJSON.h>

#include "client.h"
#include "netconf.h"

/* How many slots after its hash an attachment may land in. */
#define RECORD_PROBE 16
#define PORT_PREFIX  "pw-"
/* iftype kernel: the host end of the veth pair, "pwk" and the slot. */
#define KERNEL_IFACE_PREFIX "pwk"
#define KERNEL_IFACE_MAX    16 /* IFNAMSIZ */
#define PODWIRE_JSON	    "podwire.json"

struct attach {
	uint32_t slot;
	char containerid[CNI_CONTAINERID_MAX + 1];
	char ifname[CNI_IFNAME_MAX + 1];
	char cni_name[256]; /* the CNI network the record belongs to */
	char netns[PATH_MAX];
	char args[4096];
	char port[API_NAME_MAX + 1];
	char network[API_NAME_MAX + 1];
	char podwired[API_SOCKET_PATH_MAX + 1];
	char dir[PATH_MAX];			  /* host side */
	char socket[API_SOCKET_PATH_MAX + 1];	  /* host side */
	char pod_socket[API_SOCKET_PATH_MAX + 1]; /* as the pod sees it */
	char devinfo[PATH_MAX];			  /* "" when none was asked for */
	enum cni_iftype iftype;
	char mode[8];
	/* memif: what the pod must present (INIT), made per ADD; "" else. */
	char secret[API_SECRET_MAX + 1];
	bool pod_creates_socket;
	unsigned int queues; /* queue pairs of the port (config "queues"), 1 by default */
	char ipam_type[256]; /* "" without IPAM */
	cJSON *conf;	     /* the ADD's config, for IPAM DEL from GC; owned */
	/* iftype pci: the VF podwired lent this attachment ("" until it has).
	 * There is no port and no socket; port only names pending entries. */
	char physnet[API_NAME_MAX + 1];
	char pci[CNI_PCI_ADDR_MAX];
	char pf_pci[CNI_PCI_ADDR_MAX];
	char vfio[64]; /* /dev/vfio/<iommu group> */
	/* iftype kernel: the veth's host end, podwired's port's "iface" ("" for
	 * the other iftypes). With the socket path it tells our port from
	 * another of the same name. There is no socket; the container end is
	 * named ifname in netns. */
	char host_iface[KERNEL_IFACE_MAX];
};

/* The owner podwired records for an attachment's VF: "<containerID>/<ifname>". */
#define VF_OWNER_MAX (CNI_CONTAINERID_MAX + 1 + CNI_IFNAME_MAX + 1)
void vf_owner(const char *containerid, const char *ifname, char out[VF_OWNER_MAX]);

uint32_t record_hash(const char *containerid, const char *ifname);

/* Fills a's names (port, directories, sockets) for slot from the config
 * and the environment. */
void attach_init(struct attach *a, const struct netconf *c, const struct cni_env *env,
		 uint32_t slot);
void attach_free(struct attach *a);

/*
 * Finds the slot of (containerid, ifname) and locks it. Returns 1 with
 * *a filled from the record, 0 when there is no record (then, if for_add,
 * *a->slot is a free slot, locked), or -1. *lock_fd is the lock to pass to
 * record_unlock (-1 when nothing is locked).
 */
int record_find(const char *data_dir, const char *containerid, const char *ifname, bool for_add,
		struct attach *a, int *lock_fd, struct cni_error *err);

/* Locks one slot, blocking (or not, with nonblock: returns -2 when busy).
 * Returns the lock fd, or -1 with err filled. */
int record_lock(const char *data_dir, uint32_t slot, bool nonblock, struct cni_error *err);
/* Releases a lock; with drop, removes the lock file first (the slot's
 * record is gone). */
void record_unlock(const char *data_dir, uint32_t slot, int fd, bool drop);

/* 1 and a filled, 0 when there is no record, -1 on a broken one. */
int record_read(const char *data_dir, uint32_t slot, struct attach *a, struct cni_error *err);
int record_write(const char *data_dir, const struct attach *a, struct cni_error *err);
void record_remove(const char *data_dir, uint32_t slot);
bool record_exists(const char *data_dir, uint32_t slot);

/* Calls fn for every slot that has a record (unlocked; fn locks). */
int record_each(const char *data_dir, int (*fn)(uint32_t slot, void *arg), void *arg);

/* Remembers that a's port must be deleted from podwired later (for
 * iftype pci: that its VF must be released). */
int pending_add(const char *data_dir, const struct attach *a, struct cni_error *err);

/* True when a pending entry for port (an attachment's port name) is left. */
bool pending_exists(const char *data_dir, const char *port);

/*
 * Deletes from podwired (c) the ports that pending entries for this
 * podwired name, and removes their directories. held_slot is a slot the
 * caller already holds (its entries are handled without locking), or -1.
 * Best effort: an entry that cannot be handled now stays.
 */
void pending_reconcile(const char *data_dir, struct pw_client *c, const char *podwired,
		       int64_t held_slot);

/* The veth host end of slot (iftype kernel), "pwk1a2b3c4d". */
void kernel_iface_name(uint32_t slot, char out[KERNEL_IFACE_MAX]);

/* Slot of a podwire port name ("pw-1a2b3c4d-net1"), or -1. */
int64_t port_name_slot(const char *name);

/* Removes what the plugin put in an attachment directory, then the
 * directory. Returns 0, or -1 when something else is left in it. */
int attach_dir_remove(const char *dir);

#endif
