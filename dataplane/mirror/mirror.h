/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Port mirroring, the control side: named mirrors, each copying the
 * frames of 1-16 ports (ingress, egress or both) to one destination
 * port, which while it is one takes no part in its network (it receives
 * the copies and nothing else; what it sends is dropped and counted).
 * A port may be copied by up to MIRROR_PER_PORT mirrors per direction;
 * a destination is the destination of one mirror and is copied by none,
 * so that copies never make copies. The workers' side is tap.h. Control
 * thread (ctl_lock held), like the model.
 */
#ifndef PODWIRE_MIRROR_MIRROR_H
#define PODWIRE_MIRROR_MIRROR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/queue.h>

#include "api.h"
#include "mirror/tap.h"
#include "model/port.h"

#define MIRROR_PORTS_MAX 16 /* ports one mirror copies */

struct mirror {
	char name[API_NAME_MAX + 1];
	uint8_t dirs;  /* enum mirror_dir bits */
	uint16_t slot; /* its counters in mirror_ctr */
	struct port *to;
	uint16_t n_ports;
	struct port *ports[MIRROR_PORTS_MAX];
	struct mirror_counters base; /* the slot's counters when it was made */
	struct acl_named *acl;	     /* selects what is copied; NULL: everything */
	char acl_name[API_NAME_MAX + 1];
	TAILQ_ENTRY(mirror) next;
};

TAILQ_HEAD(mirror_list, mirror);
extern struct mirror_list mirror_all;

/* What mirror.create asks, as the API names it. */
struct mirror_req {
	const char *name;
	const char *ports;     /* "a,b" */
	const char *direction; /* ingress, egress, both; NULL or "": both */
	const char *to;
	const char *acl; /* an access list's name; NULL or "": copy everything */
};

/*
 * Makes and starts a mirror. Refused: nothing changed, -errno, *code an
 * API error code, *field the parameter at fault (or NULL) and msg naming
 * the object and the fix.
 */
int mirror_create(const struct mirror_req *r, struct mirror **out, int *code, const char **field,
		  char *msg, size_t len);
/* Stops and frees m: no worker copies for it once this returns. 0, or
 * -ENOMEM (the view could not be built: m stays as it was; msg says so). */
int mirror_delete(struct mirror *m, char *msg, size_t len);
struct mirror *mirror_find(const char *name);
unsigned int mirror_count(void);
/* The mirror's counters, summed over the workers. */
void mirror_counts(const struct mirror *m, struct mirror_counters *out);
/* Whether a mirror selects with list name (acl_user_fn: acl.del refuses
 * it then); buf names the mirror. */
bool mirror_uses_acl(const char *name, char *buf, size_t len);
/* "ingress", "egress" or "both". */
const char *mirror_dir_name(uint8_t dirs);
/* The mirrored ports' names, comma separated, into buf. */
void mirror_ports_text(const struct mirror *m, char *buf, size_t len);

/*
 * Port p is going (NOTIFY_PORT_DELETED: out of the datapath already): a
 * mirror sending to it is removed, a mirror copying it copies the rest of
 * its ports (removed with the last); each said in the log. Returns
 * whether any mirror changed.
 */
bool mirror_port_gone(const struct port *p);
/* Every mirror goes, and with them every port's mirror state (shutdown,
 * tests): no view is built, nothing is saved. */
void mirror_remove_all(void);

/* mirror_api.c: watches port deletions and restores the mirrors saved in
 * dir/mirrors.json, which every change rewrites (dir NULL: no file, for
 * tests). The "mirror" module's init; mirror_stop its fini. */
int mirror_start(const char *dir);
void mirror_stop(void);

#endif
