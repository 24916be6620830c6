/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Named lists, their attachments and what each port applies; acl.json.
 * Control thread, under ctl_lock.
 *
 * Every change recomputes each port's struct acl_port from the
 * attachments (apply): a port whose lists changed gets a new one, stored
 * with one pointer store, and the old ones (and any list replaced) are
 * freed after view_wait(), so a worker sees the old lists or the new,
 * never a mix. A replaced list's counters end with it: acl.show adds
 * what its versions counted into replaced_hits.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/queue.h>

#include "acl/acl.h"
#include "acl/session.h"
#include "api.h"
#include "core/config.h"
#include "core/log.h"
#include "core/loop.h"
#include "core/module.h"
#include "core/notify.h"
#include "datapath/view.h"
#include "datapath/worker.h"
#include "files.h"
#include "model/network.h"
#include "model/port.h"

PW_LOG_TYPE("acl");

#define ACL_FILE       "acl.json"
#define ACL_FILE_VER   1
#define ACL_ATTACH_MAX 4096

struct acl_named {
	char name[API_NAME_MAX + 1];
	uint16_t id;
	struct acl_list *cur;
	uint64_t replaced_hits; /* rule and default hits of the versions replaced */
	uint64_t replaced_sess; /* their session hits */
	uint64_t replaces;
	TAILQ_ENTRY(acl_named) next;
};

struct attach {
	struct acl_named *a;
	bool net; /* target is a network, else a port */
	uint8_t dir;
	char target[API_NAME_MAX + 1];
};

static TAILQ_HEAD(, acl_named) lists = TAILQ_HEAD_INITIALIZER(lists);
static unsigned int n_lists;
static struct attach att[ACL_ATTACH_MAX];
static unsigned int n_att;

static const char *const dir_names[2] = {"ingress", "egress"};

/* Session idle timeouts in seconds: TCP, UDP, other (acl.timeouts). */
static uint32_t tmo[ACL_TMO_N] = {ACL_SESSION_TCP_S, ACL_SESSION_UDP_S, ACL_SESSION_OTHER_S};
static const char *const tmo_names[ACL_TMO_N] = {API_F_TCP, API_F_UDP, API_F_OTHER};

void acl_timeouts_get(uint32_t t[ACL_TMO_N])
{
	memcpy(t, tmo, sizeof(tmo));
}

void acl_timeouts_set(const uint32_t t[ACL_TMO_N])
{
	memcpy(tmo, t, sizeof(tmo));
	acl_session_timeouts(tmo[ACL_TMO_TCP], tmo[ACL_TMO_UDP], tmo[ACL_TMO_OTHER]);
}

struct acl_named *acl_find(const char *name)
{
	struct acl_named *a;

	TAILQ_FOREACH (a, &lists, next)
		if (strcmp(a->name, name) == 0)
			return a;
	return NULL;
}

static struct acl_named *find_id(uint16_t id)
{
	struct acl_named *a;

	TAILQ_FOREACH (a, &lists, next)
		if (a->id == id)
			return a;
	return NULL;
}

static const struct acl_list *attached(bool net, const char *target, unsigned int d)
{
	for (unsigned int i = 0; i < n_att; i++)
		if (att[i].net == net && att[i].dir == d && strcmp(att[i].target, target) == 0)
			return att[i].a->cur;
	return NULL;
}

static bool has_out(const struct acl_port *ap)
{
	return ap != NULL && (ap->list[ACL_OUT][0] != NULL || ap->list[ACL_OUT][1] != NULL);
}

/* Retires a compiled list: its counters go to the name's totals. After
 * the grace period. */
static void retire(struct acl_named *a, struct acl_list *l)
{
	if (l == NULL)
		return;
	if (a != NULL) {
		for (uint32_t r = 0; r <= l->n_rules; r++)
			a->replaced_hits += acl_list_hits(l, r);
		a->replaced_sess += acl_list_hits(l, l->n_rules + 1);
	}
	acl_list_free(l);
}

/*
 * Gives every port (but skip, which is going) the struct acl_port its
 * attachments make, then waits a grace period and frees what workers
 * no longer see: old acl_ports, and old (a list replaced, with its
 * name's totals to update; or a list deleted, a NULL).
 */
static void apply(const struct port *skip, struct acl_named *a, struct acl_list *old)
{
	static bool net_out[PW_MAX_NETWORKS];
	static struct acl_port *gone[PW_MAX_PORTS];
	unsigned int n_gone = 0;
	uint8_t bit = (uint8_t)acl_egress_bit();
	bool changed = old != NULL;
	struct network *n;
	struct port *p;

	memset(net_out, 0, sizeof(net_out));
	for (unsigned int i = 0; i < n_att; i++) {
		if (att[i].dir != ACL_OUT)
			continue;
		if (att[i].net) {
			n = network_find(att[i].target);
			if (n != NULL)
				net_out[n->idx % PW_MAX_NETWORKS] = true;
		} else {
			p = port_find(att[i].target);
			if (p != NULL && p->net != NULL)
				net_out[p->net->idx % PW_MAX_NETWORKS] = true;
		}
	}
	TAILQ_FOREACH (p, &port_all, next) {
		struct acl_port want, *cur = p->dp.acl, *use;
		bool any = false;

		if (p == skip)
			continue;
		memset(&want, 0, sizeof(want));
		for (unsigned int d = 0; d < 2; d++) {
			want.list[d][0] = p->net != NULL ? attached(true, p->net->name, d) : NULL;
			want.list[d][1] = attached(false, p->conf.name, d);
			any |= want.list[d][0] != NULL || want.list[d][1] != NULL;
		}
		for (unsigned int d = 0; d < 2; d++)
			for (unsigned int k = 0; k < 2; k++) {
				const struct acl_list *l = want.list[!d][k];

				want.sessions[d] |= l != NULL && l->reflect;
			}
		want.to_mbufs = want.list[ACL_IN][0] != NULL || want.list[ACL_IN][1] != NULL ||
				(p->net != NULL && net_out[p->net->idx % PW_MAX_NETWORKS]);
		if (!any && !want.to_mbufs) {
			use = NULL;
		} else if (cur != NULL && memcmp(cur, &want, sizeof(want)) == 0) {
			use = cur;
		} else {
			use = malloc(sizeof(*use));
			if (use == NULL) {
				LOG(ERR,
				    "port \"%s\": no memory for its access lists; they stay as "
				    "they were",
				    p->conf.name);
				use = cur;
			} else {
				memcpy(use, &want, sizeof(want));
			}
		}
		if (use != cur) {
			if (cur != NULL)
				gone[n_gone++] = cur;
			p->dp.acl = use;
			changed = true;
		}
		if (!has_out(use) && (p->dp.egress & bit)) {
			p->dp.egress &= (uint8_t)~bit;
			changed = true;
		}
	}
	/* Nothing a worker reads changed (a port made where no list
	 * applies): no grace period to wait for. */
	if (changed)
		view_wait();
	/* Only now: every burst that may send to these ports has seen
	 * to_mbufs (stage.c). */
	TAILQ_FOREACH (p, &port_all, next)
		if (p != skip && has_out(p->dp.acl))
			p->dp.egress |= bit;
	for (unsigned int i = 0; i < n_gone; i++)
		free(gone[i]);
	retire(a, old);
}

const struct acl_list *acl_current(const struct acl_named *a)
{
	return a->cur;
}

static uint16_t new_id(void)
{
	for (uint32_t id = 1; id < 0xffff; id++)
		if (find_id((uint16_t)id) == NULL)
			return (uint16_t)id;
	return 0;
}

int acl_set(const char *name, enum acl_action dflt, const struct acl_rule *rules, uint32_t n,
	    bool *replaced, char *msg, size_t len)
{
	struct acl_named *a = acl_find(name);
	struct acl_list *l, *old;
	bool made = false;

	*replaced = a != NULL;
	if (a == NULL) {
		if (n_lists >= ACL_LISTS_MAX) {
			snprintf(msg, len,
				 "list \"%s\": there are %u lists already, the limit; delete "
				 "one first",
				 name, n_lists);
			return -ENOSPC;
		}
		a = calloc(1, sizeof(*a));
		if (a == NULL) {
			snprintf(msg, len, "list \"%s\": no memory", name);
			return -ENOMEM;
		}
		snprintf(a->name, sizeof(a->name), "%s", name);
		a->id = new_id();
		made = true;
	}
	l = acl_list_build(rules, n, dflt, a->id, n_workers, msg, len);
	if (l == NULL) {
		if (made)
			free(a);
		return -ENOMEM;
	}
	old = a->cur;
	a->cur = l;
	if (made) {
		TAILQ_INSERT_TAIL(&lists, a, next);
		n_lists++;
		return 0;
	}
	a->replaces++;
	apply(NULL, a, old);
	return 0;
}

static int where(const struct acl_named *a, char *buf, size_t len)
{
	for (unsigned int i = 0; i < n_att; i++)
		if (att[i].a == a) {
			snprintf(buf, len, "%s \"%s\" %s", att[i].net ? "network" : "port",
				 att[i].target, dir_names[att[i].dir]);
			return 1;
		}
	return 0;
}

int acl_del(const char *name, char *msg, size_t len)
{
	struct acl_named *a = acl_find(name);
	char w[160];

	if (a == NULL) {
		snprintf(msg, len,
			 "list \"%s\" does not exist; `podwirectl acl list` shows the lists", name);
		return -ENOENT;
	}
	if (where(a, w, sizeof(w))) {
		snprintf(msg, len,
			 "list \"%s\" is attached to %s; detach it first (`podwirectl acl "
			 "detach %s ...`)",
			 name, w, name);
		return -EBUSY;
	}
	if (acl_used_by(name, w, sizeof(w))) {
		snprintf(msg, len, "list \"%s\" selects the frames of %s; delete that first", name,
			 w);
		return -EBUSY;
	}
	TAILQ_REMOVE(&lists, a, next);
	n_lists--;
	apply(NULL, NULL, a->cur);
	free(a);
	return 0;
}

/* The place named: a port or a network that exists. */
static int place(const char *port, const char *net, char *msg, size_t len)
{
	if ((port == NULL) == (net == NULL)) {
		snprintf(msg, len, "give exactly one of \"port\" and \"network\"");
		return -EINVAL;
	}
	if (port != NULL && port_find(port) == NULL) {
		snprintf(msg, len,
			 "port \"%s\" does not exist; `podwirectl port list` shows the ports",
			 port);
		return -ENOENT;
	}
	if (net != NULL && network_find(net) == NULL) {
		snprintf(msg, len,
			 "network \"%s\" does not exist; `podwirectl network list` shows them",
			 net);
		return -ENOENT;
	}
	return 0;
}

int acl_attach(const char *name, const char *port, const char *net, enum acl_dir d, char *msg,
	       size_t len)
{
	struct acl_named *a = acl_find(name);
	const char *target = port != NULL ? port : net;
	int rc;

	if (a == NULL) {
		snprintf(msg, len,
			 "list \"%s\" does not exist; make it first with `podwirectl acl set "
			 "%s ...`",
			 name, name);
		return -ENOENT;
	}
	rc = place(port, net, msg, len);
	if (rc != 0)
		return rc;
	for (unsigned int i = 0; i < n_att; i++)
		if (att[i].net == (net != NULL) && att[i].dir == d &&
		    strcmp(att[i].target, target) == 0) {
			if (att[i].a == a)
				return 0;
			snprintf(msg, len, "%s \"%s\" %s has list \"%s\" already; detach it first",
				 net != NULL ? "network" : "port", target, dir_names[d],
				 att[i].a->name);
			return -EEXIST;
		}
	if (n_att == ACL_ATTACH_MAX) {
		snprintf(msg, len, "%u attachments already, the limit; detach some first", n_att);
		return -ENOSPC;
	}
	att[n_att].a = a;
	att[n_att].net = net != NULL;
	att[n_att].dir = (uint8_t)d;
	snprintf(att[n_att].target, sizeof(att[n_att].target), "%s", target);
	n_att++;
	apply(NULL, NULL, NULL);
	return 0;
}

int acl_detach(const char *name, const char *port, const char *net, int d, char *msg, size_t len)
{
	const char *target = port != NULL ? port : net;
	unsigned int k = 0, gone = 0;

	if ((port == NULL) == (net == NULL)) {
		snprintf(msg, len, "give exactly one of \"port\" and \"network\"");
		return -EINVAL;
	}
	for (unsigned int i = 0; i < n_att; i++) {
		if (strcmp(att[i].a->name, name) == 0 && att[i].net == (net != NULL) &&
		    strcmp(att[i].target, target) == 0 && (d < 0 || att[i].dir == d)) {
			gone++;
			continue;
		}
		att[k++] = att[i];
	}
	n_att = k;
	if (gone == 0) {
		snprintf(msg, len,
			 "list \"%s\" is not attached to %s \"%s\"%s%s; `podwirectl acl list` "
			 "shows where lists are",
			 name, net != NULL ? "network" : "port", target, d < 0 ? "" : " ",
			 d < 0 ? "" : dir_names[d]);
		return -ENOENT;
	}
	apply(NULL, NULL, NULL);
	return 0;
}

/* ---- JSON ------------------------------------------------------------------- */

static cJSON *attachments_json(const struct acl_named *a)
{
	cJSON *arr = cJSON_CreateArray();

	for (unsigned int i = 0; i < n_att; i++) {
		cJSON *o;

		if (att[i].a != a)
			continue;
		o = cJSON_CreateObject();
		cJSON_AddStringToObject(o, att[i].net ? API_F_NETWORK : API_F_PORT, att[i].target);
		cJSON_AddStringToObject(o, API_F_DIRECTION, dir_names[att[i].dir]);
		cJSON_AddItemToArray(arr, o);
	}
	return arr;
}

cJSON *acl_list_all_json(void)
{
	cJSON *arr = cJSON_CreateArray();
	struct acl_named *a;

	TAILQ_FOREACH (a, &lists, next) {
		cJSON *o = cJSON_CreateObject();

		cJSON_AddStringToObject(o, API_F_NAME, a->name);
		cJSON_AddStringToObject(o, API_F_DEFAULT,
					acl_action_name((enum acl_action)a->cur->dflt));
		cJSON_AddNumberToObject(o, API_F_RULES, a->cur->n_rules);
		cJSON_AddItemToObject(o, API_R_ATTACHMENTS, attachments_json(a));
		cJSON_AddItemToArray(arr, o);
	}
	return arr;
}

cJSON *acl_show_json(const struct acl_named *a, uint32_t first, uint32_t count)
{
	const struct acl_list *l = a->cur;
	cJSON *o = cJSON_CreateObject(), *rules = cJSON_CreateArray();

	cJSON_AddStringToObject(o, API_F_NAME, a->name);
	cJSON_AddStringToObject(o, API_F_DEFAULT, acl_action_name((enum acl_action)l->dflt));
	for (uint32_t i = first; i < l->n_rules && i - first < count; i++) {
		cJSON *r = acl_rule_to_json(&l->rules[i]);

		cJSON_AddNumberToObject(r, API_R_INDEX, i);
		cJSON_AddNumberToObject(r, API_R_HITS, (double)acl_list_hits(l, i));
		cJSON_AddItemToArray(rules, r);
	}
	cJSON_AddItemToObject(o, API_F_RULES, rules);
	cJSON_AddNumberToObject(o, API_R_RULES_TOTAL, l->n_rules);
	cJSON_AddNumberToObject(o, API_R_DEFAULT_HITS, (double)acl_list_hits(l, l->n_rules));
	cJSON_AddNumberToObject(o, API_R_SESSION_HITS,
				(double)(acl_list_hits(l, l->n_rules + 1) + a->replaced_sess));
	cJSON_AddNumberToObject(o, API_R_REPLACED_HITS, (double)a->replaced_hits);
	cJSON_AddNumberToObject(o, API_R_REPLACES, (double)a->replaces);
	cJSON_AddItemToObject(o, API_R_ATTACHMENTS, attachments_json(a));
	return o;
}

void acl_hits_each(acl_hits_fn fn, void *ctx)
{
	struct acl_named *a;
	char rule[16];

	TAILQ_FOREACH (a, &lists, next) {
		for (uint32_t i = 0; i < a->cur->n_rules; i++) {
			snprintf(rule, sizeof(rule), "%u", i);
			fn(a->name, rule, acl_list_hits(a->cur, i), ctx);
		}
		fn(a->name, "default", acl_list_hits(a->cur, a->cur->n_rules), ctx);
	}
}

void acl_note_describe(uint32_t note, char *buf, size_t len)
{
	const struct acl_named *a = find_id((uint16_t)(note >> 16));
	uint32_t r = note & 0xffff;

	if (note == ACL_NOTE_SESSION) {
		snprintf(buf, len, "a permit+reflect session (lists skipped)");
		return;
	}
	if (note == 0 || a == NULL) {
		snprintf(buf, len, "%s", note == 0 ? "" : "a list since deleted");
		return;
	}
	if (r == ACL_NOTE_DEFAULT)
		snprintf(buf, len, "list \"%s\" default: %s", a->name,
			 acl_action_name((enum acl_action)a->cur->dflt));
	else if (r < a->cur->n_rules)
		snprintf(buf, len, "list \"%s\" rule %u: %s", a->name, r,
			 acl_action_name((enum acl_action)a->cur->rules[r].action));
	else
		snprintf(buf, len, "list \"%s\" rule %u (of a version since replaced)", a->name, r);
}

/* ---- acl.json ---------------------------------------------------------------- */

int acl_state_save(char *msg, size_t len)
{
	cJSON *doc, *arr, *atts, *o;
	struct acl_named *a;
	int rc;

	if (pw_cfg.state_dir[0] == '\0')
		return 0;
	doc = cJSON_CreateObject();
	cJSON_AddNumberToObject(doc, "version", ACL_FILE_VER);
	arr = cJSON_AddArrayToObject(doc, "lists");
	TAILQ_FOREACH (a, &lists, next) {
		cJSON *o = cJSON_CreateObject(), *rules = cJSON_AddArrayToObject(o, API_F_RULES);

		cJSON_AddStringToObject(o, API_F_NAME, a->name);
		cJSON_AddStringToObject(o, API_F_DEFAULT,
					acl_action_name((enum acl_action)a->cur->dflt));
		for (uint32_t i = 0; i < a->cur->n_rules; i++)
			cJSON_AddItemToArray(rules, acl_rule_to_json(&a->cur->rules[i]));
		cJSON_AddItemToArray(arr, o);
	}
	o = cJSON_AddObjectToObject(doc, "timeouts");
	for (int i = 0; i < ACL_TMO_N; i++)
		cJSON_AddNumberToObject(o, tmo_names[i], tmo[i]);
	atts = cJSON_AddArrayToObject(doc, "attachments");
	for (unsigned int i = 0; i < n_att; i++) {
		cJSON *o = cJSON_CreateObject();

		cJSON_AddStringToObject(o, API_F_NAME, att[i].a->name);
		cJSON_AddStringToObject(o, att[i].net ? API_F_NETWORK : API_F_PORT, att[i].target);
		cJSON_AddStringToObject(o, API_F_DIRECTION, dir_names[att[i].dir]);
		cJSON_AddItemToArray(atts, o);
	}
	rc = state_file_write(pw_cfg.state_dir, ACL_FILE, doc, msg, len);
	cJSON_Delete(doc);
	if (rc != 0)
		LOG(ERR, "%s", msg);
	return rc;
}

/* Lists and attachments of acl.json. A list or attachment that is no
 * longer valid is logged and left out; a file that cannot be read stops
 * podwired (nothing may overwrite it). Attachments to ports not there
 * (yet) are kept: they apply when the port is made. */
static int restore(void)
{
	static struct acl_rule rules[ACL_RULES_MAX];
	cJSON *doc = NULL;
	const cJSON *o;
	char msg[1024];
	int rc;

	if (pw_cfg.state_dir[0] == '\0')
		return 0;
	rc = state_file_read(pw_cfg.state_dir, ACL_FILE, &doc, msg, sizeof(msg));
	if (rc == -ENOENT)
		return 0;
	if (rc != 0) {
		fprintf(stderr, "podwired: %s\n", msg);
		return rc;
	}
	cJSON_ArrayForEach (o, cJSON_GetObjectItemCaseSensitive(doc, "lists")) {
		const char *name = api_get_str(o, API_F_NAME, "");
		const char *field;
		enum acl_action dflt;
		uint32_t n;
		bool rep;

		if (name[0] == '\0' || strlen(name) > API_NAME_MAX ||
		    acl_action_parse(api_get_str(o, API_F_DEFAULT, ""), &dflt) != 0 ||
		    dflt == ACL_REFLECT) {
			LOG(ERR, "%s/%s: a list without a good name or default is left out",
			    pw_cfg.state_dir, ACL_FILE);
			continue;
		}
		if (acl_rules_parse(cJSON_GetObjectItemCaseSensitive(o, API_F_RULES), rules, &n,
				    msg, sizeof(msg), &field) != 0 ||
		    acl_set(name, dflt, rules, n, &rep, msg, sizeof(msg)) != 0)
			LOG(ERR, "%s/%s: list \"%s\" left out: %s", pw_cfg.state_dir, ACL_FILE,
			    name, msg);
	}
	cJSON_ArrayForEach (o, cJSON_GetObjectItemCaseSensitive(doc, "attachments")) {
		struct acl_named *a = acl_find(api_get_str(o, API_F_NAME, ""));
		const char *port = api_get_str(o, API_F_PORT, NULL);
		const char *net = api_get_str(o, API_F_NETWORK, NULL);
		const char *dir = api_get_str(o, API_F_DIRECTION, "");
		const char *target = port != NULL ? port : net;

		if (a == NULL || (port == NULL) == (net == NULL) || n_att == ACL_ATTACH_MAX ||
		    strlen(target) > API_NAME_MAX ||
		    (strcmp(dir, dir_names[0]) != 0 && strcmp(dir, dir_names[1]) != 0)) {
			LOG(ERR,
			    "%s/%s: an attachment naming no list, place or direction is left out",
			    pw_cfg.state_dir, ACL_FILE);
			continue;
		}
		att[n_att].a = a;
		att[n_att].net = net != NULL;
		att[n_att].dir = strcmp(dir, dir_names[0]) == 0 ? ACL_IN : ACL_OUT;
		snprintf(att[n_att].target, sizeof(att[n_att].target), "%s", target);
		n_att++;
	}
	/* Timeouts out of range are left at their defaults. */
	o = cJSON_GetObjectItemCaseSensitive(doc, "timeouts");
	if (cJSON_IsObject(o)) {
		uint32_t t[ACL_TMO_N];

		acl_timeouts_get(t);
		for (int i = 0; i < ACL_TMO_N; i++) {
			const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, tmo_names[i]);

			if (cJSON_IsNumber(v) && v->valuedouble >= 1 &&
			    v->valuedouble <= API_ACL_TIMEOUT_MAX)
				t[i] = (uint32_t)v->valuedouble;
			else if (v != NULL)
				LOG(ERR, "%s/%s: timeout \"%s\" out of range, the default stays",
				    pw_cfg.state_dir, ACL_FILE, tmo_names[i]);
		}
		acl_timeouts_set(t);
	}
	cJSON_Delete(doc);
	apply(NULL, NULL, NULL);
	LOG(INFO, "restored %u access lists and %u attachments from %s/%s", n_lists, n_att,
	    pw_cfg.state_dir, ACL_FILE);
	return 0;
}

/* ---- events and the module ---------------------------------------------------- */

/* NOTIFY_PORT_ADDING: a port's lists (its network's, or its own from
 * the state) are in place before the view that has it is published, so
 * its first frame meets them. */
static void port_adding(const void *arg, void *ctx)
{
	(void)arg, (void)ctx;
	apply(NULL, NULL, NULL);
}

/* A port going: its attachments go (saved), the others' to_mbufs are
 * recomputed, and its sessions are forgotten once no worker sees it. */
static void port_deleted(const void *arg, void *ctx)
{
	const struct port *p = arg;
	struct port *mp = (struct port *)(uintptr_t)p;
	struct acl_port *ap = p->dp.acl;
	unsigned int k = 0, gone = 0;
	char msg[512];

	(void)ctx;
	for (unsigned int i = 0; i < n_att; i++) {
		if (!att[i].net && strcmp(att[i].target, p->conf.name) == 0) {
			gone++;
			continue;
		}
		att[k++] = att[i];
	}
	n_att = k;
	mp->dp.acl = NULL;
	mp->dp.egress &= (uint8_t)~acl_egress_bit();
	apply(p, NULL, NULL);
	if (ap != NULL)
		view_wait(); /* apply may have had nothing else to wait for */
	free(ap);
	acl_sessions_flush_port(p->dp.idx);
	if (gone != 0)
		acl_state_save(msg, sizeof(msg));
}

static int acl_init(void)
{
	int rc;

	rc = acl_sessions_init(n_workers, pw_cfg.acl_sessions);
	if (rc != 0) {
		fprintf(stderr, "podwired: cannot make the permit+reflect session tables: %s\n",
			strerror(-rc));
		return rc;
	}
	if (notify_subscribe(NOTIFY_PORT_ADDING, port_adding, NULL) != 0 ||
	    notify_subscribe(NOTIFY_PORT_DELETED, port_deleted, NULL) != 0) {
		fprintf(stderr, "podwired: out of memory starting the access lists\n");
		return -ENOMEM;
	}
	pthread_mutex_lock(&ctl_lock);
	rc = restore();
	pthread_mutex_unlock(&ctl_lock);
	return rc;
}

static void acl_fini(void)
{
	struct acl_named *a;
	struct port *p;
	uint8_t bit = (uint8_t)acl_egress_bit();

	notify_unsubscribe(NOTIFY_PORT_ADDING, port_adding, NULL);
	notify_unsubscribe(NOTIFY_PORT_DELETED, port_deleted, NULL);
	pthread_mutex_lock(&ctl_lock);
	n_att = 0;
	TAILQ_FOREACH (p, &port_all, next)
		p->dp.egress &= (uint8_t)~bit;
	apply(NULL, NULL, NULL); /* every port's acl_port goes */
	while ((a = TAILQ_FIRST(&lists)) != NULL) {
		TAILQ_REMOVE(&lists, a, next);
		acl_list_free(a->cur);
		free(a);
	}
	n_lists = 0;
	pthread_mutex_unlock(&ctl_lock);
	acl_sessions_fini();
}

PW_MODULE(acl, acl_init, acl_fini, "model");
