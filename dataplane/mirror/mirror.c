/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Mirrors: checked, made, and published to the workers (see mirror.h and
 * tap.h). Every change rebuilds each port's struct mirror_port from the
 * list of mirrors, stores the new ones, waits a grace period and frees
 * the old: no burst ever sees half a change. A port that becomes (or
 * stops being) a destination also changes the view (model/publish.c
 * takes it out of its network), published in the same step.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "acl/acl.h"
#include "core/log.h"
#include "datapath/forward.h"
#include "datapath/worker.h"
#include "mirror/mirror.h"
#include "model/network.h"
#include "model/publish.h"
#include "validate.h"

PW_LOG_TYPE("mirror");

struct mirror_list mirror_all = TAILQ_HEAD_INITIALIZER(mirror_all);
static unsigned int n_mirrors;
static bool slot_used[MIRROR_MAX];

struct mirror *mirror_find(const char *name)
{
	struct mirror *m;

	TAILQ_FOREACH (m, &mirror_all, next)
		if (strcmp(m->name, name) == 0)
			return m;
	return NULL;
}

unsigned int mirror_count(void)
{
	return n_mirrors;
}

const char *mirror_dir_name(uint8_t dirs)
{
	return dirs == MIRROR_IN    ? API_DIR_INGRESS
	       : dirs == MIRROR_OUT ? API_DIR_EGRESS
				    : API_DIR_BOTH;
}

void mirror_ports_text(const struct mirror *m, char *buf, size_t len)
{
	size_t off = 0;

	buf[0] = '\0';
	for (uint16_t i = 0; i < m->n_ports && off < len; i++)
		off += (size_t)snprintf(buf + off, len - off, "%s%s", i ? "," : "",
					m->ports[i]->conf.name);
}

static void slot_sum(uint16_t slot, struct mirror_counters *out)
{
	out->copies = out->dropped = 0;
	for (unsigned int w = 0; w < n_workers; w++) {
		out->copies += mirror_ctr[w].c[slot].copies;
		out->dropped += mirror_ctr[w].c[slot].dropped;
	}
}

void mirror_counts(const struct mirror *m, struct mirror_counters *out)
{
	slot_sum(m->slot, out);
	out->copies -= m->base.copies;
	out->dropped -= m->base.dropped;
}

static bool copies_port(const struct mirror *m, const struct port *p)
{
	for (uint16_t i = 0; i < m->n_ports; i++)
		if (m->ports[i] == p)
			return true;
	return false;
}

/* The mirror whose destination p is, or NULL. */
static struct mirror *sending_to(const struct port *p)
{
	struct mirror *m;

	TAILQ_FOREACH (m, &mirror_all, next)
		if (m->to == p)
			return m;
	return NULL;
}

/* A mirror copying p, or NULL. */
static struct mirror *copying(const struct port *p)
{
	struct mirror *m;

	TAILQ_FOREACH (m, &mirror_all, next)
		if (copies_port(m, p))
			return m;
	return NULL;
}

/* Mirrors copying p in direction dir. */
static unsigned int taps_on(const struct port *p, uint8_t dir)
{
	const struct mirror *m;
	unsigned int n = 0;

	TAILQ_FOREACH (m, &mirror_all, next)
		n += (m->dirs & dir) && copies_port(m, p);
	return n;
}

/* What workers should see of p now: NULL when no mirror touches it;
 * *fail set when memory is short. */
static struct mirror_port *port_state(const struct port *p, bool *fail)
{
	struct mirror_port mp = {.dst = sending_to(p) != NULL};
	const struct mirror *m;
	struct mirror_port *out;

	TAILQ_FOREACH (m, &mirror_all, next) {
		struct mirror_tap t = {.to = m->to->dp.idx, .slot = m->slot, .acl = m->acl};

		if (!copies_port(m, p))
			continue;
		if ((m->dirs & MIRROR_IN) && mp.n_in < MIRROR_PER_PORT)
			mp.in[mp.n_in++] = t;
		if ((m->dirs & MIRROR_OUT) && mp.n_out < MIRROR_PER_PORT)
			mp.out[mp.n_out++] = t;
	}
	if (!mp.dst && mp.n_in == 0 && mp.n_out == 0)
		return NULL;
	out = malloc(sizeof(*out));
	if (out == NULL) {
		*fail = true;
		return NULL;
	}
	*out = mp;
	return out;
}

/*
 * Publishes what the mirror list says to every port but skip (a port
 * being deleted: out of the datapath, its state simply goes). With
 * best_effort (a port is going and cannot be kept), a port whose state
 * cannot be allocated loses its mirrors rather than keep stale ones;
 * otherwise -ENOMEM changes nothing.
 */
static int apply(const struct port *skip, bool best_effort)
{
	static struct mirror_port *want[PW_MAX_PORTS], *old[PW_MAX_PORTS];
	static bool was_dst[PW_MAX_PORTS];
	struct view *v = NULL;
	bool short_any = false, dst_change = false;
	struct port *p;

	/* Every port's want[] is set (the arrays outlive the call), so that
	 * a failure frees exactly what this call made. */
	TAILQ_FOREACH (p, &port_all, next) {
		uint16_t i = p->dp.idx;
		bool is_short = false;

		want[i] = p == skip ? NULL : port_state(p, &is_short);
		if (is_short && best_effort)
			LOG(ERR, "port \"%s\": out of memory: its mirrors stop copying it",
			    p->conf.name);
		short_any |= is_short;
		was_dst[i] = p->dp.mirror_dst;
		if (p != skip && (want[i] != NULL && want[i]->dst) != p->dp.mirror_dst)
			dst_change = true;
	}
	if (short_any && !best_effort) {
		TAILQ_FOREACH (p, &port_all, next)
			free(want[p->dp.idx]);
		return -ENOMEM;
	}
	if (dst_change) {
		TAILQ_FOREACH (p, &port_all, next)
			p->dp.mirror_dst = want[p->dp.idx] != NULL && want[p->dp.idx]->dst;
		v = model_view_build(skip);
		if (v == NULL) {
			TAILQ_FOREACH (p, &port_all, next) {
				p->dp.mirror_dst = was_dst[p->dp.idx];
				free(want[p->dp.idx]);
			}
			/* Nothing changed. (A deletion never gets here: it
			 * changes no remaining port's role.) */
			return -ENOMEM;
		}
	}
	TAILQ_FOREACH (p, &port_all, next) {
		struct mirror_port *mp = want[p->dp.idx];

		old[p->dp.idx] = p->dp.mirror;
		p->dp.mirror = mp;
		if (mp != NULL && mp->n_out != 0)
			p->dp.egress |= mirror_egress_bit;
		else
			p->dp.egress &= (uint8_t)~mirror_egress_bit;
		/* A destination's ring full for a moment drops copies at
		 * once: tries again would hold up the mirrored ports. */
		if (p->dp.mirror_dst != was_dst[p->dp.idx])
			p->dp.tx_retries = p->dp.mirror_dst ? 0 : p->conf.tx_retries;
	}
	if (v != NULL)
		view_publish(v); /* waits, as view_wait */
	else
		view_wait();
	TAILQ_FOREACH (p, &port_all, next) {
		free(old[p->dp.idx]);
		/* MACs it had learned would still name it: it has none now. */
		if (p->dp.mirror_dst && !was_dst[p->dp.idx])
			mac_table_flush_port(l2_macs, p->dp.idx);
	}
	return 0;
}

static int fail(int *code, const char **field, int c, const char *f)
{
	*code = c;
	*field = f;
	return c == API_ERR_RESOURCE ? -ENOSPC : c == API_ERR_NOT_FOUND ? -ENOENT : -EINVAL;
}

/* m->ports from "a,b": 1-16 distinct existing ports, none m->to, none a
 * destination, none copied by MIRROR_PER_PORT mirrors already. */
static int parse_ports(struct mirror *m, const char *list, int *code, const char **field, char *msg,
		       size_t len)
{
	char buf[MIRROR_PORTS_MAX * (API_NAME_MAX + 1) + 1], *save = NULL, *name;

	if (strlen(list) >= sizeof(buf)) {
		snprintf(msg, len, "mirror \"%s\": \"ports\" is too long; name 1-%d ports", m->name,
			 MIRROR_PORTS_MAX);
		return fail(code, field, API_ERR_INVALID_PARAMS, API_F_PORTS);
	}
	snprintf(buf, sizeof(buf), "%s", list);
	for (name = strtok_r(buf, ",", &save); name != NULL; name = strtok_r(NULL, ",", &save)) {
		struct port *p = port_find(name);
		const struct mirror *o;

		if (m->n_ports == MIRROR_PORTS_MAX) {
			snprintf(
			    msg, len,
			    "mirror \"%s\": \"ports\" names more than %d ports; copy at most %d "
			    "with one mirror, or make another",
			    m->name, MIRROR_PORTS_MAX, MIRROR_PORTS_MAX);
			return fail(code, field, API_ERR_INVALID_PARAMS, API_F_PORTS);
		}
		if (p == NULL) {
			snprintf(
			    msg, len,
			    "mirror \"%s\": port \"%s\" does not exist; `podwirectl port list` "
			    "shows the ports",
			    m->name, name);
			return fail(code, field, API_ERR_NOT_FOUND, API_F_PORTS);
		}
		if (copies_port(m, p)) {
			snprintf(
			    msg, len,
			    "mirror \"%s\": port \"%s\" is named twice in \"ports\"; name each "
			    "port once",
			    m->name, name);
			return fail(code, field, API_ERR_INVALID_PARAMS, API_F_PORTS);
		}
		if (p == m->to) {
			snprintf(msg, len,
				 "mirror \"%s\": port \"%s\" is both copied and the destination "
				 "(\"to\"); copy other ports, or send the copies elsewhere",
				 m->name, name);
			return fail(code, field, API_ERR_INVALID_PARAMS, API_F_PORTS);
		}
		o = sending_to(p);
		if (o != NULL) {
			snprintf(msg, len,
				 "mirror \"%s\": port \"%s\" is the destination of mirror \"%s\", "
				 "which receives copies only; delete that mirror first, or copy "
				 "other ports",
				 m->name, name, o->name);
			return fail(code, field, API_ERR_IN_USE, API_F_PORTS);
		}
		for (uint8_t d = MIRROR_IN; d <= MIRROR_OUT; d <<= 1)
			if ((m->dirs & d) && taps_on(p, d) >= MIRROR_PER_PORT) {
				snprintf(msg, len,
					 "mirror \"%s\": port \"%s\" is already copied (%s) by %d "
					 "mirrors, the most a port may be; delete one of them "
					 "(`podwirectl mirror list`)",
					 m->name, name, mirror_dir_name(d), MIRROR_PER_PORT);
				return fail(code, field, API_ERR_RESOURCE, API_F_PORTS);
			}
		m->ports[m->n_ports++] = p;
	}
	if (m->n_ports == 0) {
		snprintf(msg, len,
			 "mirror \"%s\": \"ports\" names no port; give the ports to copy, e.g. "
			 "\"pod-a,pod-b\"",
			 m->name);
		return fail(code, field, API_ERR_INVALID_PARAMS, API_F_PORTS);
	}
	return 0;
}

/* m->to from r->to and m->dirs from r->direction. */
static int parse_to_dir(struct mirror *m, const struct mirror_req *r, int *code, const char **field,
			char *msg, size_t len)
{
	const char *dir = r->direction != NULL && r->direction[0] != '\0' ? r->direction : "both";
	const struct mirror *o;

	if (strcmp(dir, API_DIR_INGRESS) == 0) {
		m->dirs = MIRROR_IN;
	} else if (strcmp(dir, API_DIR_EGRESS) == 0) {
		m->dirs = MIRROR_OUT;
	} else if (strcmp(dir, API_DIR_BOTH) == 0) {
		m->dirs = MIRROR_IN | MIRROR_OUT;
	} else {
		snprintf(msg, len,
			 "mirror \"%s\": direction \"%.32s\" is not ingress (what the ports "
			 "send), egress (what they receive) or both",
			 m->name, dir);
		return fail(code, field, API_ERR_INVALID_PARAMS, API_F_DIRECTION);
	}
	if (r->to == NULL || r->to[0] == '\0') {
		snprintf(
		    msg, len,
		    "mirror \"%s\": \"to\" is missing; name the port the copies go to (a pod's "
		    "vhost-user, memif or veth port, or an uplink)",
		    m->name);
		return fail(code, field, API_ERR_INVALID_PARAMS, API_F_TO);
	}
	m->to = port_find(r->to);
	if (m->to == NULL) {
		snprintf(msg, len,
			 "mirror \"%s\": port \"%s\" (\"to\") does not exist; `podwirectl port "
			 "list` shows the ports",
			 m->name, r->to);
		return fail(code, field, API_ERR_NOT_FOUND, API_F_TO);
	}
	o = sending_to(m->to);
	if (o != NULL) {
		snprintf(msg, len,
			 "mirror \"%s\": port \"%s\" is already the destination of mirror \"%s\"; "
			 "a port takes one mirror's copies: delete that mirror, or give another "
			 "port",
			 m->name, r->to, o->name);
		return fail(code, field, API_ERR_IN_USE, API_F_TO);
	}
	o = copying(m->to);
	if (o != NULL) {
		snprintf(msg, len,
			 "mirror \"%s\": port \"%s\" is copied by mirror \"%s\"; a destination "
			 "may not be copied itself (copies would make copies): give another port",
			 m->name, r->to, o->name);
		return fail(code, field, API_ERR_IN_USE, API_F_TO);
	}
	return 0;
}

/* m->acl from r->acl: an existing list, or none. */
static int parse_acl(struct mirror *m, const char *name, int *code, const char **field, char *msg,
		     size_t len)
{
	if (name == NULL || name[0] == '\0')
		return 0;
	m->acl = acl_find(name);
	if (m->acl == NULL) {
		snprintf(msg, len,
			 "mirror \"%s\": access list \"%.64s\" (\"acl\") does not exist; make it "
			 "first (`podwirectl acl set %.64s ...`), or leave \"acl\" out to copy "
			 "every frame",
			 m->name, name, name);
		return fail(code, field, API_ERR_NOT_FOUND, API_F_ACL);
	}
	snprintf(m->acl_name, sizeof(m->acl_name), "%s", name);
	return 0;
}

bool mirror_uses_acl(const char *name, char *buf, size_t len)
{
	const struct mirror *m;

	TAILQ_FOREACH (m, &mirror_all, next)
		if (m->acl != NULL && strcmp(m->acl_name, name) == 0) {
			snprintf(buf, len, "mirror \"%s\" (`podwirectl mirror del %s`)", m->name,
				 m->name);
			return true;
		}
	return false;
}

int mirror_create(const struct mirror_req *r, struct mirror **out, int *code, const char **field,
		  char *msg, size_t len)
{
	struct mirror *m;
	uint16_t slot;
	int rc;

	*field = NULL;
	if (validate_name("mirror", r->name, msg, len) != 0)
		return fail(code, field, API_ERR_INVALID_PARAMS, API_F_NAME);
	if (mirror_find(r->name) != NULL) {
		snprintf(msg, len,
			 "mirror \"%s\" exists; delete it first (`podwirectl mirror del %s`) or "
			 "choose another name",
			 r->name, r->name);
		return fail(code, field, API_ERR_EXISTS, API_F_NAME);
	}
	for (slot = 0; slot < MIRROR_MAX && slot_used[slot]; slot++)
		;
	if (slot == MIRROR_MAX) {
		snprintf(msg, len,
			 "mirror \"%s\": there are %d mirrors, the most podwired runs; "
			 "delete one first",
			 r->name, MIRROR_MAX);
		return fail(code, field, API_ERR_RESOURCE, NULL);
	}
	m = calloc(1, sizeof(*m));
	if (m == NULL) {
		snprintf(msg, len, "mirror \"%s\": out of memory", r->name);
		return fail(code, field, API_ERR_RESOURCE, NULL);
	}
	snprintf(m->name, sizeof(m->name), "%s", r->name);
	rc = parse_to_dir(m, r, code, field, msg, len);
	if (rc == 0)
		rc = parse_ports(m, r->ports != NULL ? r->ports : "", code, field, msg, len);
	if (rc == 0)
		rc = parse_acl(m, r->acl, code, field, msg, len);
	if (rc != 0) {
		free(m);
		return rc;
	}
	m->slot = slot;
	slot_sum(slot, &m->base);
	slot_used[slot] = true;
	TAILQ_INSERT_TAIL(&mirror_all, m, next);
	n_mirrors++;
	if (apply(NULL, false) != 0) {
		TAILQ_REMOVE(&mirror_all, m, next);
		n_mirrors--;
		slot_used[slot] = false;
		free(m);
		snprintf(msg, len, "mirror \"%s\": out of memory publishing it to the datapath",
			 r->name);
		return fail(code, field, API_ERR_RESOURCE, NULL);
	}
	mirror_ports_text(m, msg, len);
	LOG(INFO, "mirror \"%s\": copies %s of %s to port \"%s\"%s%s%s", m->name,
	    m->dirs == (MIRROR_IN | MIRROR_OUT) ? "what goes in and out"
	    : m->dirs == MIRROR_IN		? "what comes in (ingress)"
						: "what goes out (egress)",
	    msg, m->to->conf.name, m->acl != NULL ? ", what access list \"" : "", m->acl_name,
	    m->acl != NULL ? "\" permits" : "");
	msg[0] = '\0';
	if (out != NULL)
		*out = m;
	return 0;
}

/* Out of the list; the caller applies. */
static void unlink_mirror(struct mirror *m)
{
	TAILQ_REMOVE(&mirror_all, m, next);
	n_mirrors--;
}

static void free_mirror(struct mirror *m)
{
	slot_used[m->slot] = false;
	free(m);
}

int mirror_delete(struct mirror *m, char *msg, size_t len)
{
	unlink_mirror(m);
	if (apply(NULL, false) != 0) {
		TAILQ_INSERT_TAIL(&mirror_all, m, next);
		n_mirrors++;
		snprintf(msg, len,
			 "mirror \"%s\": out of memory building the datapath without it; it is "
			 "kept, try again",
			 m->name);
		return -ENOMEM;
	}
	LOG(INFO, "mirror \"%s\": deleted", m->name);
	/* No worker counts on its slot any more. */
	free_mirror(m);
	return 0;
}

bool mirror_port_gone(const struct port *p)
{
	struct mirror *m, *tmp, *gone[MIRROR_MAX];
	unsigned int n_gone = 0;
	bool changed = false;

	for (m = TAILQ_FIRST(&mirror_all); m != NULL; m = tmp) {
		uint16_t k = 0;
		bool had = false;

		tmp = TAILQ_NEXT(m, next);
		if (m->to == p) {
			LOG(NOTICE,
			    "mirror \"%s\": its destination, port \"%s\", is deleted: the mirror "
			    "is "
			    "removed",
			    m->name, p->conf.name);
			unlink_mirror(m);
			gone[n_gone++] = m;
			changed = true;
			continue;
		}
		for (uint16_t i = 0; i < m->n_ports; i++) {
			if (m->ports[i] == p)
				had = true;
			else
				m->ports[k++] = m->ports[i];
		}
		if (!had)
			continue;
		changed = true;
		m->n_ports = k;
		if (k == 0) {
			LOG(NOTICE,
			    "mirror \"%s\": port \"%s\", the last it copied, is deleted: the "
			    "mirror "
			    "is removed",
			    m->name, p->conf.name);
			unlink_mirror(m);
			gone[n_gone++] = m;
		} else {
			LOG(NOTICE,
			    "mirror \"%s\": port \"%s\" is deleted: it copies %u port(s) now",
			    m->name, p->conf.name, k);
		}
	}
	if (!changed)
		return false;
	/* The port is out of the view already. No other port's role
	 * changes (a destination copies nothing, so only its own mirror
	 * goes with it), so no view is built: only pointers change, and a
	 * port whose new state cannot be allocated loses its mirrors rather
	 * than keep copying to the deleted port's index. */
	apply(p, true);
	for (unsigned int i = 0; i < n_gone; i++)
		free_mirror(gone[i]);
	return true;
}

void mirror_remove_all(void)
{
	static struct mirror_port *old[PW_MAX_PORTS];
	struct mirror *m;
	struct port *p;

	while ((m = TAILQ_FIRST(&mirror_all)) != NULL) {
		unlink_mirror(m);
		free_mirror(m);
	}
	if (apply(NULL, false) == 0)
		return;
	/* No memory for the view that gives destinations back to their
	 * networks (at shutdown they go anyway): no copies at least. */
	TAILQ_FOREACH (p, &port_all, next) {
		old[p->dp.idx] = p->dp.mirror;
		p->dp.mirror = NULL;
		p->dp.egress &= (uint8_t)~mirror_egress_bit;
	}
	view_wait();
	TAILQ_FOREACH (p, &port_all, next) {
		free(old[p->dp.idx]);
		old[p->dp.idx] = NULL;
	}
}
