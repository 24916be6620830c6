/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * CreateNetwork, DeleteNetwork (and AllocateNetwork, FreeNetwork, which
 * dockerd sends only to global-scope drivers, answered per the spec).
 *
 * `docker network create -d podwire -o KEY=VALUE` options arrive in
 * Options["com.docker.network.generic"] as strings:
 *   podwire.network=NAME   use (or create) this podwired network, so that
 *                          Docker containers and Kubernetes pods share it
 *   podwire.vlan=ID        its VLAN (1-4094), when the driver creates it
 *   podwire.mode=bridge|xconnect
 *   podwire.iftype=kernel|vhost-user|memif
 *   podwire.queues=N       queue pairs (1-16) of each DPDK container's port
 *                          (vhost-user: virtio-user queues=N; memif: up to N
 *                          rings); an endpoint's own podwire.queues wins
 *   podwire.rate=pps=N[,burst=N] | bps=N[,burst=N]  rate limits of each
 *                          container's port, both directions (N: digits,
 *                          optionally k, m, g); podwire.rate.ingress (what
 *                          the container sends), podwire.rate.egress (what
 *                          it receives) set one; an endpoint's own win
 *   podwire.acl=LIST, podwire.acl.ingress=LIST, podwire.acl.egress=LIST
 *                          an access list the operator made (podwirectl acl
 *                          set) attached to the podwired network (every
 *                          port of it); the create is refused when it does
 *                          not exist; detached when the network goes
 *   podwire.offloads=on|off  vhost-user only: off, its ports offer the
 *                          containers no checksum or TSO offload
 *   com.docker.network.driver.mtu=N
 * Any other podwire.* option is refused.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "driver.h"
#include "validate.h"

#define GENERIC_OPTIONS "com.docker.network.generic"
#define OPT_NETWORK	"podwire.network"
#define OPT_VLAN	"podwire.vlan"
#define OPT_MODE	"podwire.mode"
#define OPT_IFTYPE	"podwire.iftype"
#define OPT_OFFLOADS	"podwire.offloads"
#define OPT_MTU		"com.docker.network.driver.mtu"

struct net_opts {
	const char *network;
	long vlan; /* -1: not given */
	const char *mode;
	enum dk_iftype iftype;
	long mtu;
	unsigned int queues; /* 0: not given */
	int offloads;	     /* -1: not given, else 0 (off) or 1 (on) */
	const char *rate[2]; /* podwire.rate*: ingress, egress; NULL: not given */
	const char *acl[2];  /* podwire.acl*: ingress, egress; NULL: not given */
};

/* A decimal number in [lo, hi], or -1 for anything else. */
static long number(const char *s, long lo, long hi)
{
	char *end;
	long v;

	if (s[0] < '0' || s[0] > '9')
		return -1;
	v = strtol(s, &end, 10);
	return *end == '\0' && v >= lo && v <= hi ? v : -1;
}

static int parse_opts(const cJSON *options, struct net_opts *o, struct dk_err *err)
{
	const cJSON *generic = cJSON_GetObjectItemCaseSensitive(options, GENERIC_OPTIONS), *it;
	char msg[256];

	memset(o, 0, sizeof(*o));
	o->vlan = -1;
	o->mtu = API_MTU_DEFAULT;
	o->offloads = -1;
	if (generic != NULL && !cJSON_IsObject(generic) && !cJSON_IsNull(generic)) {
		dk_fail(err, 400, "Options.%s must be an object of option strings",
			GENERIC_OPTIONS);
		return -1;
	}
	cJSON_ArrayForEach (it, generic) {
		const char *k = it->string, *v = cJSON_GetStringValue(it);

		if (strncmp(k, "podwire.", 8) != 0 && strcmp(k, OPT_MTU) != 0)
			continue; /* dockerd's own options */
		if (v == NULL) {
			dk_fail(err, 400, "option %s must be a string", k);
			return -1;
		}
		if (strcmp(k, OPT_NETWORK) == 0) {
			if (validate_name("network", v, msg, sizeof(msg)) != 0) {
				dk_fail(err, 500, "option %s: %s", k, msg);
				return -1;
			}
			o->network = v;
		} else if (strcmp(k, OPT_VLAN) == 0) {
			o->vlan = number(v, 1, API_VLAN_MAX);
			if (o->vlan < 0) {
				dk_fail(err, 500, "option %s: \"%s\" is not a VLAN id; give 1-%d",
					k, v, API_VLAN_MAX);
				return -1;
			}
		} else if (strcmp(k, OPT_MODE) == 0) {
			if (strcmp(v, API_NET_BRIDGE) != 0 && strcmp(v, API_NET_XCONNECT) != 0) {
				dk_fail(
				    err, 500,
				    "option %s: \"%s\" is not a mode; give bridge (MAC learning) "
				    "or xconnect (exactly two containers)",
				    k, v);
				return -1;
			}
			o->mode = v;
		} else if (strcmp(k, OPT_IFTYPE) == 0) {
			if (strcmp(v, "kernel") == 0)
				o->iftype = DK_IF_KERNEL;
			else if (strcmp(v, API_PORT_VHOST) == 0)
				o->iftype = DK_IF_VHOST;
			else if (strcmp(v, API_PORT_MEMIF) == 0)
				o->iftype = DK_IF_MEMIF;
			else {
				dk_fail(
				    err, 500,
				    "option %s: \"%s\" is not an interface type; give kernel (an "
				    "ordinary eth0), vhost-user or memif (DPDK containers)",
				    k, v);
				return -1;
			}
		} else if (strcmp(k, DK_OPT_QUEUES) == 0) {
			o->queues = dk_queues_parse(v);
			if (o->queues == 0) {
				dk_fail(
				    err, 500,
				    "option %s: \"%s\" is not a number of queue pairs; give 1-%d",
				    k, v, API_QUEUES_MAX);
				return -1;
			}
		} else if (strcmp(k, OPT_OFFLOADS) == 0) {
			if (strcmp(v, "on") == 0)
				o->offloads = 1;
			else if (strcmp(v, "off") == 0)
				o->offloads = 0;
			else {
				dk_fail(err, 500,
					"option %s: \"%s\" is neither on nor off; give on (the "
					"default: checksum and TSO offloads offered) or off",
					k, v);
				return -1;
			}
		} else if (dk_acl_dir(k) >= 0) {
			if (dk_acl_name_check("option", k, v, err) != 0)
				return -1;
			o->acl[dk_acl_dir(k)] = v;
		} else if (dk_rate_dirs(k) != 0) {
			if (dk_rate_parse("option", k, v, err) != 0)
				return -1;
			for (int d = 0; d < 2; d++)
				if (dk_rate_dirs(k) & 1u << d)
					o->rate[d] = v;
		} else if (strcmp(k, OPT_MTU) == 0) {
			o->mtu = number(v, API_MTU_MIN, API_MTU_MAX);
			if (o->mtu < 0) {
				dk_fail(err, 500, "option %s: \"%s\" is not an MTU; give %d-%d", k,
					v, API_MTU_MIN, API_MTU_MAX);
				return -1;
			}
		} else {
			dk_fail(
			    err, 500,
			    "unknown option %s; podwire takes %s, %s, %s, %s, %s, %s, %s, %s, %s, "
			    "%s, %s, %s and %s (see podwire-docker --help)",
			    k, OPT_NETWORK, OPT_VLAN, OPT_MODE, OPT_IFTYPE, DK_OPT_QUEUES,
			    OPT_OFFLOADS, DK_OPT_RATE, DK_OPT_RATE_IN, DK_OPT_RATE_OUT, DK_OPT_ACL,
			    DK_OPT_ACL_IN, DK_OPT_ACL_OUT, OPT_MTU);
			return -1;
		}
	}
	/* The options come in any order: iftype is known only now. */
	if (o->queues != 0 && o->iftype == DK_IF_KERNEL) {
		dk_fail(
		    err, 500,
		    "option %s applies to DPDK containers (%s vhost-user or memif); a kernel "
		    "interface (the default iftype) has one queue pair: leave %s out or give %s",
		    DK_OPT_QUEUES, OPT_IFTYPE, DK_OPT_QUEUES, OPT_IFTYPE);
		return -1;
	}
	/* Only a vhost-user port negotiates offloads with its container;
	 * podwired refuses "offloads" for the other kinds, so say it here,
	 * before anything is made. */
	if (o->offloads >= 0 && o->iftype != DK_IF_VHOST) {
		dk_fail(err, 500,
			"option %s applies to vhost-user networks (%s vhost-user), whose ports "
			"negotiate offloads with the container; this network's iftype is %s: "
			"leave %s out or give %s vhost-user",
			OPT_OFFLOADS, OPT_IFTYPE, dk_iftype_name(o->iftype), OPT_OFFLOADS,
			OPT_IFTYPE);
		return -1;
	}
	return 0;
}

int dk_acl_dir(const char *k)
{
	if (strcmp(k, DK_OPT_ACL) == 0 || strcmp(k, DK_OPT_ACL_IN) == 0)
		return 0;
	return strcmp(k, DK_OPT_ACL_OUT) == 0 ? 1 : -1;
}

int dk_acl_name_check(const char *what, const char *opt, const char *v, struct dk_err *err)
{
	char msg[256];

	if (validate_name("list", v, msg, sizeof(msg)) != 0) {
		dk_fail(err, 500, "%s %s: %s", what, opt, msg);
		return -1;
	}
	return 0;
}

static cJSON *acl_params(const char *name, const char *port, const char *network, int d)
{
	cJSON *p = cJSON_CreateObject();

	cJSON_AddStringToObject(p, API_F_NAME, name);
	if (port != NULL)
		cJSON_AddStringToObject(p, API_F_PORT, port);
	else
		cJSON_AddStringToObject(p, API_F_NETWORK, network);
	cJSON_AddStringToObject(p, API_F_DIRECTION, d == 0 ? API_DIR_INGRESS : API_DIR_EGRESS);
	return p;
}

int dk_acl_attach(const char acl[2][API_NAME_MAX + 1], const char *port, const char *network,
		  const char *what, struct dk_err *err)
{
	static const char *const opts[2] = {DK_OPT_ACL_IN, DK_OPT_ACL_OUT};
	struct pw_error pe;

	for (int d = 0; d < 2; d++) {
		if (acl[d][0] == '\0')
			continue;
		if (pw_call(API_NAME(ACL_ATTACH), acl_params(acl[d], port, network, d), NULL,
			    &pe) == 0)
			continue;
		/* All or nothing: the ingress list attached goes again. */
		if (d == 1 && acl[0][0] != '\0')
			pw_call(API_NAME(ACL_DETACH), acl_params(acl[0], port, network, 0), NULL,
				&pe);
		dk_fail(err, 500, "%s %s=%s: podwired refused to attach list \"%s\": %s", what,
			opts[d], acl[d], acl[d], pe.message);
		return -1;
	}
	return 0;
}

void dk_acl_detach(const char acl[2][API_NAME_MAX + 1], const char *port, const char *network)
{
	struct pw_error pe;

	for (int d = 0; d < 2; d++)
		if (acl[d][0] != '\0' &&
		    pw_call(API_NAME(ACL_DETACH), acl_params(acl[d], port, network, d), NULL,
			    &pe) != 0 &&
		    pe.code != API_ERR_NOT_FOUND)
			dk_log("list \"%s\" stays attached to %s \"%s\": %s", acl[d],
			       port != NULL ? "port" : "network", port != NULL ? port : network,
			       pe.message);
}

unsigned int dk_rate_dirs(const char *k)
{
	if (strcmp(k, DK_OPT_RATE) == 0)
		return 3;
	if (strcmp(k, DK_OPT_RATE_IN) == 0)
		return 1;
	return strcmp(k, DK_OPT_RATE_OUT) == 0 ? 2 : 0;
}

int dk_rate_parse(const char *what, const char *opt, const char *v, struct dk_err *err)
{
	static const char *const api[3] = {API_F_RATE_IN_PPS, API_F_RATE_IN_BPS,
					   API_F_RATE_IN_BURST};
	static const char *const key[3] = {"pps", "bps", "burst"};
	char msg[512], name[96];
	long n[3];

	if (strlen(v) >= DK_RATE_MAX) {
		dk_fail(err, 500, "%s %s: \"%.64s...\" is too long; give e.g. pps=10000,burst=100",
			what, opt, v);
		return -1;
	}
	if (validate_rate_spec(opt, v, &n[0], &n[1], &n[2], msg, sizeof(msg)) != 0) {
		dk_fail(err, 500, "%s %s", what, msg);
		return -1;
	}
	if (n[0] >= 0 && n[1] >= 0) {
		dk_fail(err, 500,
			"%s %s: \"%s\" gives both pps and bps; a limit counts frames or bits, "
			"give one of them",
			what, opt, v);
		return -1;
	}
	if (n[0] < 0 && n[1] < 0) {
		dk_fail(err, 500,
			"%s %s: \"%s\" gives no rate; give pps=N (frames/s) or bps=N "
			"(bits/s), e.g. pps=10000,burst=100 or bps=100m",
			what, opt, v);
		return -1;
	}
	for (int k = 0; k < 3; k++) {
		const struct api_field *f = api_param_find(API_M_PORT_CREATE, api[k]);

		snprintf(name, sizeof(name), "%s", key[k]);
		if (n[k] >= 0 && f != NULL &&
		    api_field_check_int(f, name, n[k], msg, sizeof(msg)) != 0) {
			dk_fail(err, 500, "%s %s: \"%s\": %s", what, opt, v, msg);
			return -1;
		}
	}
	return 0;
}

void dk_rate_params(cJSON *p, const char rate[2][DK_RATE_MAX])
{
	static const char *const api[2][3] = {
	    {API_F_RATE_IN_PPS, API_F_RATE_IN_BPS, API_F_RATE_IN_BURST},
	    {API_F_RATE_OUT_PPS, API_F_RATE_OUT_BPS, API_F_RATE_OUT_BURST}};
	char msg[512];
	long n[3];

	for (int d = 0; d < 2; d++) {
		/* Checked by dk_rate_parse when the option was given. */
		if (rate[d][0] == '\0' ||
		    validate_rate_spec("rate", rate[d], &n[0], &n[1], &n[2], msg, sizeof(msg)) != 0)
			continue;
		for (int k = 0; k < 3; k++)
			if (n[k] >= 0)
				cJSON_AddNumberToObject(p, api[d][k], (double)n[k]);
	}
}

unsigned int dk_queues_parse(const char *v)
{
	long q = number(v, 1, API_QUEUES_MAX);

	return q < 0 ? 0 : (unsigned int)q;
}

/* The gateway of IPv4Data/IPv6Data[0] without its prefix length. */
static int gateway(const cJSON *req, const char *field, char *out, struct dk_err *err)
{
	const cJSON *data = cJSON_GetObjectItemCaseSensitive(req, field), *first, *gw;
	char *slash;

	out[0] = '\0';
	if (data == NULL || cJSON_IsNull(data))
		return 0;
	if (!cJSON_IsArray(data)) {
		dk_fail(err, 400, "%s must be an array of address pools", field);
		return -1;
	}
	first = cJSON_GetArrayItem(data, 0);
	if (first == NULL)
		return 0;
	if (!cJSON_IsObject(first)) {
		dk_fail(err, 400, "%s[0] must be an object with Pool and Gateway", field);
		return -1;
	}
	gw = cJSON_GetObjectItemCaseSensitive(first, "Gateway");
	if (gw == NULL || (cJSON_IsString(gw) && gw->valuestring[0] == '\0'))
		return 0;
	if (!cJSON_IsString(gw) || strlen(gw->valuestring) >= DK_ADDR_MAX) {
		dk_fail(err, 400, "%s[0].Gateway must be an address in CIDR form", field);
		return -1;
	}
	snprintf(out, DK_ADDR_MAX, "%s", gw->valuestring);
	slash = strchr(out, '/');
	if (slash != NULL)
		*slash = '\0';
	return 0;
}

/* The podwired network: used when it exists (with the VLAN and mode
 * asked, if asked), created otherwise. *created says which. */
static int pw_network(const struct net_opts *o, const char *name, bool *created, struct dk_err *err)
{
	cJSON *p = cJSON_CreateObject(), *list = NULL, *it;
	struct pw_error pe;

	*created = false;
	if (pw_call(API_NAME(NETWORK_LIST), NULL, &list, &pe) != 0) {
		cJSON_Delete(p);
		dk_fail(err, 500, "podwired: %s", pe.message);
		return -1;
	}
	cJSON_ArrayForEach (it, cJSON_GetObjectItemCaseSensitive(list, API_R_NETWORKS)) {
		long vlan = api_get_int(it, API_F_VLAN, 0);
		const char *mode = api_get_str(it, API_F_MODE, API_NET_BRIDGE);

		if (strcmp(api_get_str(it, API_F_NAME, ""), name) != 0)
			continue;
		if (o->vlan >= 0 && vlan != o->vlan)
			dk_fail(
			    err, 500,
			    "option podwire.vlan: podwired network \"%s\" exists with VLAN %ld, "
			    "not %ld; leave podwire.vlan out or name another network",
			    name, vlan, o->vlan);
		else if (o->mode != NULL && strcmp(mode, o->mode) != 0)
			dk_fail(
			    err, 500,
			    "option podwire.mode: podwired network \"%s\" exists in mode %s, not "
			    "%s; leave podwire.mode out or name another network",
			    name, mode, o->mode);
		cJSON_Delete(list);
		cJSON_Delete(p);
		return err->status != 0 ? -1 : 0;
	}
	cJSON_Delete(list);
	cJSON_AddStringToObject(p, API_F_NAME, name);
	if (o->mode != NULL)
		cJSON_AddStringToObject(p, API_F_MODE, o->mode);
	if (o->vlan > 0)
		cJSON_AddNumberToObject(p, API_F_VLAN, (double)o->vlan);
	if (pw_call(API_NAME(NETWORK_CREATE), p, NULL, &pe) != 0) {
		dk_fail(err, 500, "podwired refused to create network \"%s\": %s", name,
			pe.message);
		return -1;
	}
	*created = true;
	return 0;
}

/* A failed create: the podwired network goes if the driver made it. */
static void pw_network_undo(const struct dk_network *n)
{
	cJSON *p;
	struct pw_error pe;

	if (!n->created)
		return;
	p = cJSON_CreateObject();
	cJSON_AddStringToObject(p, API_F_NAME, n->pw_network);
	pw_call(API_NAME(NETWORK_DELETE), p, NULL, &pe);
}

cJSON *h_create_network(const cJSON *req, struct dk_err *err)
{
	const char *id = dk_req_id(req, "NetworkID", err);
	const cJSON *options = cJSON_GetObjectItemCaseSensitive(req, "Options");
	struct dk_network n;
	struct net_opts o;
	char msg[512];

	if (id == NULL)
		return NULL;
	if (options != NULL && !cJSON_IsObject(options) && !cJSON_IsNull(options))
		return dk_fail(err, 400, "Options must be an object");
	if (store_network(id) != NULL)
		return dk_fail(err, 500, "network %.12s exists already; remove it first", id);
	memset(&n, 0, sizeof(n));
	if (parse_opts(options, &o, err) != 0 || gateway(req, "IPv4Data", n.gateway4, err) != 0 ||
	    gateway(req, "IPv6Data", n.gateway6, err) != 0)
		return NULL;
	snprintf(n.id, sizeof(n.id), "%s", id);
	if (o.network != NULL)
		snprintf(n.pw_network, sizeof(n.pw_network), "%s", o.network);
	else
		snprintf(n.pw_network, sizeof(n.pw_network), "docker-%.12s", id);
	n.iftype = o.iftype;
	n.mtu = (int)o.mtu;
	n.queues = o.queues != 0 ? o.queues : 1;
	n.no_offloads = o.offloads == 0;
	for (int d = 0; d < 2; d++)
		snprintf(n.rate[d], sizeof(n.rate[d]), "%s", o.rate[d] != NULL ? o.rate[d] : "");
	for (int d = 0; d < 2; d++)
		snprintf(n.acl[d], sizeof(n.acl[d]), "%s", o.acl[d] != NULL ? o.acl[d] : "");
	if (pw_network(&o, n.pw_network, &n.created, err) != 0)
		return NULL;
	/* The lists exist (the operator's): a name that is not is refused
	 * here rather than leaving a network without the filter it asked for. */
	if (dk_acl_attach(n.acl, NULL, n.pw_network, "option", err) != 0) {
		pw_network_undo(&n);
		return NULL;
	}
	if (store_network_add(&n) == NULL || store_save(msg, sizeof(msg)) != 0) {
		struct dk_network *added = store_network(id);

		if (added != NULL)
			store_network_del(added);
		dk_acl_detach(n.acl, NULL, n.pw_network);
		pw_network_undo(&n);
		return dk_fail(err, 500, "network %.12s: cannot record it: %s", id, msg);
	}
	dk_log(
	    "network %.12s: podwired network \"%s\" (%s), iftype %s, mtu %d, queues %u%s%s%s%s%s",
	    id, n.pw_network, n.created ? "created" : "existing", dk_iftype_name(n.iftype), n.mtu,
	    n.queues, n.no_offloads ? ", offloads off" : "", n.acl[0][0] ? ", acl in " : "",
	    n.acl[0], n.acl[1][0] ? ", acl out " : "", n.acl[1]);
	return cJSON_CreateObject();
}

cJSON *h_delete_network(const cJSON *req, struct dk_err *err)
{
	struct dk_network *n = dk_need_network(req, err);
	cJSON *p, *got = NULL;
	struct pw_error pe;
	char msg[512];

	if (n == NULL)
		return NULL;
	if (store_endpoints_of(n->id) != 0)
		return dk_fail(err, 500,
			       "network %.12s still has %u endpoints; remove its containers first",
			       n->id, store_endpoints_of(n->id));
	/* Its lists first: the podwired network may stay (not the driver's,
	 * or used by others), and must not keep the filter of a network that
	 * is gone. */
	dk_acl_detach(n->acl, NULL, n->pw_network);
	/* A network the driver made goes with it, unless others (pods of the
	 * CNI plugin, ports made by hand) still use it. */
	if (n->created) {
		p = cJSON_CreateObject();
		cJSON_AddStringToObject(p, API_F_NETWORK, n->pw_network);
		if (pw_call(API_NAME(PORT_LIST), p, &got, &pe) != 0) {
			if (pe.code != API_ERR_NOT_FOUND)
				return dk_fail(err, 500, "network %.12s: podwired: %s", n->id,
					       pe.message);
		} else if (cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(got, API_R_PORTS)) !=
			   0) {
			dk_log("network %.12s: podwired network \"%s\" kept: other ports use it",
			       n->id, n->pw_network);
		} else {
			p = cJSON_CreateObject();
			cJSON_AddStringToObject(p, API_F_NAME, n->pw_network);
			if (pw_call(API_NAME(NETWORK_DELETE), p, NULL, &pe) != 0 &&
			    pe.code != API_ERR_NOT_FOUND) {
				cJSON_Delete(got);
				return dk_fail(err, 500,
					       "network %.12s: podwired refused to delete network "
					       "\"%s\": %s",
					       n->id, n->pw_network, pe.message);
			}
		}
		cJSON_Delete(got);
	}
	dk_log("network %.12s removed", n->id);
	store_network_del(n);
	if (store_save(msg, sizeof(msg)) != 0)
		return dk_fail(err, 500, "network removed, but %s", msg);
	return cJSON_CreateObject();
}

/* Global scope only: dockerd does not send these to a local driver; the
 * answers are the spec's. */
cJSON *h_allocate_network(const cJSON *req, struct dk_err *err)
{
	cJSON *r;

	if (dk_req_id(req, "NetworkID", err) == NULL)
		return NULL;
	r = cJSON_CreateObject();
	cJSON_AddObjectToObject(r, "Options");
	return r;
}

cJSON *h_free_network(const cJSON *req, struct dk_err *err)
{
	if (dk_req_id(req, "NetworkID", err) == NULL)
		return NULL;
	return cJSON_CreateObject();
}

struct dk_network *dk_need_network(const cJSON *req, struct dk_err *err)
{
	const char *id = dk_req_id(req, "NetworkID", err);
	struct dk_network *n;

	if (id == NULL)
		return NULL;
	n = store_network(id);
	if (n == NULL)
		dk_fail(err, 500,
			"network %.12s is not a podwire network this driver knows; `docker network "
			"ls` lists the networks",
			id);
	return n;
}
