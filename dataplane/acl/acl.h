/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Access lists: named, ordered lists of rules over a frame's L2-L4 fields
 * with an action each (permit, deny, permit+reflect) and a default,
 * attached to a port's ingress or egress or to a network (all its ports).
 *
 * A list is parsed and checked as a whole (acl_rules_parse: an error
 * names the rule's index, its field and the fix), then compiled into a
 * struct acl_list: a librte_acl trie over one key per frame (struct
 * acl_key), or a linear scan of the rules for short lists (cheaper there:
 * see ACL_LINEAR_MAX). Compiled lists are immutable; a replace compiles
 * the new one beside the old, publishes it, waits a grace period and
 * frees the old (acl/list.c), so no frame is ever matched against half a
 * list.
 *
 * Evaluation on a port, per direction: first a session check (a reply
 * of a flow a permit+reflect rule let through the other way passes),
 * then the network's list, then the port's own; a frame passes only if
 * every list it meets permits it, and a list that denies ends it there
 * (the next list does not see it, and counts nothing).
 */
#ifndef PODWIRE_ACL_ACL_H
#define PODWIRE_ACL_ACL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <cjson/cJSON.h>

#include "core/limits.h"

/* Rules in one list. librte_acl builds 10,000 rules of the key below in
 * about 0.25 s (unit-acl); a build holds the control thread, so the
 * bound keeps a replace well under a second. */
#define ACL_RULES_MAX 16384
/* Lists of at most this many rules are scanned rule by rule: measured
 * cheaper than the trie's walk of the 60-byte key (see acl/classify.c). */
#define ACL_LINEAR_MAX 4
#define ACL_LISTS_MAX  1024

enum acl_action { ACL_PERMIT, ACL_DENY, ACL_REFLECT };

/* What the key says of layer 3 (bits of acl_key.l3). */
enum acl_l3 {
	ACL_L3_IP = 1,	  /* IPv4 or IPv6 */
	ACL_L3_V6 = 2,	  /* IPv6 */
	ACL_L3_PORTS = 4, /* TCP, UDP or SCTP with its ports (not a later fragment) */
};

/*
 * One frame's fields, as rules match them: laid out for librte_acl (its
 * first field one byte alone, then groups of 4 bytes each filled), multi-byte fields in network
 * order (rules hold host order, as librte_acl wants). IPv4 addresses sit in src[0]/dst[0], the
 * other words 0. A field absent from the frame is 0.
 */
struct acl_key {
	uint8_t proto; /* IP protocol (IPv6: after extension headers) */
	uint8_t pad0[3];
	uint8_t l3;	   /* enum acl_l3 bits */
	uint8_t tcp_flags; /* TCP: FIN 0x01 .. CWR 0x80 */
	uint16_t vlan;	   /* 0: untagged; else the tag's VID + 1 */
	uint16_t sport, dport;
	uint16_t ethertype; /* after one 802.1Q tag */
	uint8_t smac_lo[2], smac_hi[4], dmac_hi[4], dmac_lo[2];
	uint16_t pad1;
	uint32_t src[4], dst[4];
} __attribute__((aligned(4)));

/* A rule as checked: each field with its "given" bit. */
struct acl_rule {
	uint8_t action; /* enum acl_action */
	uint8_t has_smac : 1, has_dmac : 1, has_ethertype : 1, has_vlan : 1, has_src : 1,
	    has_dst : 1, has_proto : 1, has_sport : 1;
	uint8_t has_dport : 1, has_flags : 1, v6 : 1; /* v6: the prefixes are IPv6 */
	uint8_t proto;
	uint8_t smac[6], dmac[6];
	uint16_t ethertype;
	uint16_t vlan; /* 0: untagged; else VID + 1 (as the key) */
	uint8_t src_len, dst_len;
	uint8_t flags, flags_mask;
	uint16_t sport[2], dport[2]; /* ranges, inclusive */
	uint8_t src[16], dst[16];    /* network order */
};

/* Fills the key of a frame from its first len bytes (len may be all of
 * it or as much as is contiguous; at least the headers for L4 fields).
 * Datapath. */
void acl_key_make(struct acl_key *k, const uint8_t *p, uint32_t len);

/* Whether r matches k: the semantics, in plain code (the linear scan
 * and the tests' reference). */
bool acl_rule_match(const struct acl_rule *r, const struct acl_key *k);

/*
 * Parses a list's rules (a JSON array of rule objects, as acl.set takes
 * them) into rules[] (room for ACL_RULES_MAX). 0 with *n set, or
 * -EINVAL with msg naming the rule's index, its field and the fix
 * (`rule 3: "src" 10.0.0.1/8 has host bits set; use 10.0.0.0/8`) and
 * *field the field's name.
 */
int acl_rules_parse(const cJSON *arr, struct acl_rule *rules, uint32_t *n, char *msg, size_t len,
		    const char **field);
/* One rule as acl.show and acl.json give it (what acl_rules_parse takes). */
cJSON *acl_rule_to_json(const struct acl_rule *r);
const char *acl_action_name(enum acl_action a);
int acl_action_parse(const char *s, enum acl_action *a);

/* ---- compiled lists (classify.c) ------------------------------------------ */

/* A list as the datapath uses it. Immutable but for the counters: per
 * worker, hits[w][i] for rule i, [n_rules] the default's, [n_rules + 1]
 * frames a session let through without this list. */
struct acl_list {
	struct rte_acl_ctx *ctx; /* NULL: a linear scan of rules[] */
	uint32_t n_rules;
	uint16_t id;  /* the named list's id (trace) */
	uint8_t dflt; /* enum acl_action of the default */
	bool reflect; /* some rule is permit+reflect */
	struct acl_rule *rules;
	uint64_t *hits[PW_MAX_WORKERS];
};

/* Builds a list of n rules (copied) for n_workers; NULL with msg when
 * memory or librte_acl refuse. Control thread. */
struct acl_list *acl_list_build(const struct acl_rule *rules, uint32_t n, enum acl_action dflt,
				uint16_t id, unsigned int n_workers, char *msg, size_t len);
void acl_list_free(struct acl_list *l);
/* For each of n keys, the index of the first rule matching it, or
 * l->n_rules when none does (the default). Datapath. */
void acl_list_classify(const struct acl_list *l, const struct acl_key *const *keys, uint32_t *res,
		       uint32_t n);
/* The hits of rule i (n_rules: the default; n_rules + 1: sessions),
 * summed over workers. Control thread. */
uint64_t acl_list_hits(const struct acl_list *l, uint32_t i);

/* ---- what a port applies (stage.c, list.c) --------------------------------- */

enum acl_dir { ACL_IN, ACL_OUT };

/* Hung off dp_port.acl; immutable once published. */
struct acl_port {
	/* Per direction: the network's list, then the port's (NULL: none). */
	const struct acl_list *list[2][2];
	/* Per direction: whether to look up sessions (a list of the other
	 * direction has a permit+reflect rule). */
	bool sessions[2];
	/* Frames without mbufs received here become mbufs before anything
	 * is decided (some port of the network filters its egress, or this
	 * port its ingress): see stage.c. */
	bool to_mbufs;
};

/* What trace shows of a frame's decision: a code the stage leaves in
 * dp_burst.policy[] (list id << 16 | rule index, or the two below), and
 * the words for it. */
#define ACL_NOTE_DEFAULT 0xfffe
#define ACL_NOTE_SESSION 0xfffd
void acl_note_describe(uint32_t note, char *buf, size_t len);

/* The bit of dp_port.egress the egress stage was given (stage.c). */
int acl_egress_bit(void);

/* ---- named lists and attachments (list.c), control thread --------------- */

struct acl_named;
struct port;

/* A list by name, NULL when there is none. */
struct acl_named *acl_find(const char *name);
/* Creates or replaces (atomically) the list name with n rules; 0, or
 * -errno with msg (nothing changed). *replaced says which. */
int acl_set(const char *name, enum acl_action dflt, const struct acl_rule *rules, uint32_t n,
	    bool *replaced, char *msg, size_t len);
/* Deletes a list; -EBUSY (msg says where it is attached) while attached. */
int acl_del(const char *name, char *msg, size_t len);
/* Attaches list name to a port or a network (exactly one of port, net)
 * in direction d. -ENOENT, -EEXIST (that place has a list), -ENOSPC. */
int acl_attach(const char *name, const char *port, const char *net, enum acl_dir d, char *msg,
	       size_t len);
/* Detaches it (d < 0: both directions); -ENOENT when it was not there. */
int acl_detach(const char *name, const char *port, const char *net, int d, char *msg, size_t len);
/* acl.list's and acl.show's objects. */
cJSON *acl_list_all_json(void);
cJSON *acl_show_json(const struct acl_named *a, uint32_t first, uint32_t count);
/* Saves acl.json; 0 or -errno with msg. */
int acl_state_save(char *msg, size_t len);

/* Session idle timeouts, seconds (1 .. API_ACL_TIMEOUT_MAX), by protocol:
 * set applies them at once (and is what acl.json keeps). Control thread. */
enum { ACL_TMO_TCP, ACL_TMO_UDP, ACL_TMO_OTHER, ACL_TMO_N };
void acl_timeouts_get(uint32_t t[ACL_TMO_N]);
void acl_timeouts_set(const uint32_t t[ACL_TMO_N]);
/* The compiled list a name stands for now: replaced by acl.set (the old
 * one freed after a grace period, view_wait), so a worker loads it once
 * per burst and keeps it no longer. list.c. */
const struct acl_list *acl_current(const struct acl_named *a);

/* ---- a list as a selector (select.c) --------------------------------------- */

struct rte_mbuf;

/*
 * For each of n mbufs, whether list l permits it (a permit or
 * permit+reflect rule, or a permit default): what a filtered mirror
 * copies. Only a verdict: it counts no hits (a list's counters say what
 * its attachments decided, not what a mirror looked at) and makes no
 * sessions. Datapath.
 */
void acl_select(const struct acl_list *l, struct rte_mbuf *const *m, uint16_t n, bool *permit);

/* Who besides attachments uses a list by name (a filtered mirror): fn
 * writes into buf what uses name ("mirror \"m1\"") and returns true, or
 * returns false. acl_del refuses a list in use. Control thread; one user
 * module (mirror/ registers it: acl/ may not include mirror/). */
typedef bool (*acl_user_fn)(const char *name, char *buf, size_t len);
void acl_user_register(acl_user_fn fn);
bool acl_used_by(const char *name, char *buf, size_t len);

/* For metrics: calls fn for each list's rules and default. */
typedef void (*acl_hits_fn)(const char *list, const char *rule, uint64_t hits, void *ctx);
void acl_hits_each(acl_hits_fn fn, void *ctx);

#endif
