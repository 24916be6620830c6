/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The network configuration (the CNI environment is env.c's). Everything
 * is checked here, before the plugin touches podwired, IPAM or a file, so
 * that a bad config changes nothing; each message names the field and the
 * fix.
 */
#include <ctype.h>
#include <errno.h>
#include <grp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "netconf.h"
#include "result.h"
#include "validate.h"

/* ---- config fields ------------------------------------------------------ */

static const cJSON *field(const cJSON *obj, const char *name)
{
	return cJSON_GetObjectItemCaseSensitive(obj, name);
}

/* A string field: 1 when present, 0 when absent (or null), -1 on a type error. */
static int get_str(const cJSON *obj, const char *where, const char *name, const char **out,
		   const char *help, struct cni_error *err)
{
	const cJSON *v = field(obj, name);

	*out = NULL;
	if (v == NULL || cJSON_IsNull(v))
		return 0;
	if (!cJSON_IsString(v))
		return cni_fail(err, CNI_ERR_CONFIG, "%s\"%s\" must be a string (%s)", where, name,
				help);
	*out = v->valuestring;
	return 1;
}

static int get_int(const cJSON *obj, const char *name, long *out, const char *help,
		   struct cni_error *err)
{
	const cJSON *v = field(obj, name);

	if (v == NULL || cJSON_IsNull(v))
		return 0;
	if (!cJSON_IsNumber(v) || !api_number_is_long(v->valuedouble))
		return cni_fail(err, CNI_ERR_CONFIG, "\"%s\" must be an integer (%s)", name, help);
	*out = (long)v->valuedouble;
	return 1;
}

/*
 * An integer of the config that podwired takes as api (a field of method
 * m) under the config's name: checked against the API table's range, so
 * the plugin refuses what podwired would, before it changes anything, and
 * names the field as the config does. 1 when present, 0 when absent (out
 * untouched), -1 on an error.
 */
static int get_api_int(const cJSON *obj, const char *name, enum api_method m, const char *api,
		       long *out, struct cni_error *err)
{
	const struct api_field *f = api_param_find(m, api);
	char what[64], hint[512], msg[512];
	int rc;

	if (f == NULL || f->type != API_T_INT)
		return cni_fail(err, CNI_ERR_CONFIG, "\"%s\": %s has no integer \"%s\"", name,
				api_methods[m].name, api);
	snprintf(hint, sizeof(hint), "%ld-%ld (%s); %s", f->min, f->max, f->unit, f->help);
	rc = get_int(obj, name, out, hint, err);
	if (rc <= 0)
		return rc;
	snprintf(what, sizeof(what), "\"%s\"", name);
	if (api_field_check_int(f, what, *out, msg, sizeof(msg)) != 0)
		return cni_fail(err, CNI_ERR_CONFIG, "%s", msg);
	return 1;
}

/* An absolute directory without "..", copied without trailing slashes. */
static int get_dir(const cJSON *obj, const char *name, const char *dflt, char *out, size_t max,
		   const char *why, struct cni_error *err)
{
	const char *v;
	size_t n;
	int rc = get_str(obj, "", name, &v, "an absolute directory path", err);

	if (rc < 0)
		return -1;
	if (rc == 0)
		v = dflt;
	n = strlen(v);
	while (n > 1 && v[n - 1] == '/')
		n--;
	if (v[0] != '/')
		return cni_fail(err, CNI_ERR_CONFIG,
				"\"%s\" is \"%s\", a relative path; give an absolute directory",
				name, v);
	if (n == 1)
		return cni_fail(err, CNI_ERR_CONFIG,
				"\"%s\" is \"/\"; give a directory of its own, such as %s", name,
				dflt);
	if (strstr(v, "/../") != NULL || (n >= 3 && strncmp(v + n - 3, "/..", 3) == 0))
		return cni_fail(err, CNI_ERR_CONFIG, "\"%s\" is \"%s\"; give a path without \"..\"",
				name, v);
	if (n >= max)
		return cni_fail(err, CNI_ERR_CONFIG, "\"%s\" is %zu bytes, the limit is %zu%s",
				name, n, max - 1, why);
	memcpy(out, v, n);
	out[n] = '\0';
	return 0;
}

#define XSTR(x)	 XSTR_(x)
#define XSTR_(x) #x
static const char *const socket_dir_why =
    ": each pod's socket is <dir>/<8 hex digits>/vhost.sock and a unix socket path holds "
    "at most " XSTR(API_SOCKET_PATH_MAX) " bytes; use a shorter directory";

static int parse_mac(const char *where, const char *text, char out[18], struct cni_error *err)
{
	uint8_t mac[6];
	char msg[512];

	if (validate_mac(where, text, mac, msg, sizeof(msg)) != 0)
		return cni_fail(err, CNI_ERR_CONFIG, "%s", msg);
	format_mac(mac, out);
	return 0;
}

static int parse_group(const cJSON *root, gid_t *gid, struct cni_error *err)
{
	const cJSON *v = field(root, "socketGroup");
	struct group grp, *res = NULL;
	char buf[4096];
	int rc;

	*gid = 0;
	if (v == NULL || cJSON_IsNull(v))
		return 0;
	if (cJSON_IsNumber(v)) {
		if (v->valuedouble < 0 || v->valuedouble > 4294967294.0 ||
		    v->valuedouble != (double)(long)v->valuedouble)
			return cni_fail(
			    err, CNI_ERR_CONFIG,
			    "\"socketGroup\" %g is not a group id; give a group name or "
			    "a number 0-4294967294",
			    v->valuedouble);
		*gid = (gid_t)v->valuedouble;
		return 0;
	}
	if (!cJSON_IsString(v) || v->valuestring[0] == '\0')
		return cni_fail(
		    err, CNI_ERR_CONFIG,
		    "\"socketGroup\" must be a group name or id (the group that may use "
		    "the pods' socket directories)");
	rc = getgrnam_r(v->valuestring, &grp, buf, sizeof(buf), &res);
	if (res == NULL)
		return cni_fail(
		    err, CNI_ERR_CONFIG,
		    "\"socketGroup\": group \"%s\" does not exist on this node%s%s; create "
		    "it (groupadd %s) or name another",
		    v->valuestring, rc ? ": " : "", rc ? strerror(rc) : "", v->valuestring);
	*gid = res->gr_gid;
	return 0;
}

static int parse_iftype(const cJSON *root, struct netconf *c, struct cni_error *err)
{
	const char *type;

	if (get_str(root, "", "iftype", &type, "\"vhost-user\", \"memif\", \"pci\" or \"kernel\"",
		    err) < 0)
		return -1;
	if (type == NULL || strcmp(type, API_PORT_VHOST) == 0)
		c->iftype = IFTYPE_VHOST;
	else if (strcmp(type, API_PORT_MEMIF) == 0)
		c->iftype = IFTYPE_MEMIF;
	else if (strcmp(type, API_PORT_PCI) == 0)
		c->iftype = IFTYPE_PCI;
	else if (strcmp(type, CNI_IFTYPE_KERNEL) == 0)
		c->iftype = IFTYPE_KERNEL;
	else
		return cni_fail(
		    err, CNI_ERR_CONFIG,
		    "\"iftype\" is \"%s\"; use \"vhost-user\" (for a virtio-user app), "
		    "\"memif\", \"pci\" (an SR-IOV VF of a \"physnet\", handed to the pod) or "
		    "\"kernel\" (an ordinary interface, for a pod without DPDK)",
		    type);
	return 0;
}

/*
 * A field that means something for other iftypes but not this one. It is
 * refused (code 2, unsupported field, with its value as the spec asks)
 * rather than ignored, so that a config copied from another iftype does
 * not silently do less than it says.
 */
static int refuse(const cJSON *root, const struct netconf *c, const char *name, const char *why,
		  struct cni_error *err)
{
	const cJSON *v = field(root, name);
	char *text;

	if (v == NULL || cJSON_IsNull(v))
		return 0;
	text = cJSON_PrintUnformatted(v);
	cni_fail(err, CNI_ERR_FIELD, "\"%s\": %.64s does not apply to iftype \"%s\": %s; remove it",
		 name, text ? text : "?", iftype_name(c->iftype), why);
	free(text);
	return -1;
}

/* spoofChk and trust take sriov-cni's values, so that its configs carry over. */
static int get_on_off(const cJSON *root, const char *name, const char *what, int *out,
		      struct cni_error *err)
{
	const cJSON *v = field(root, name);

	*out = -1;
	if (v == NULL || cJSON_IsNull(v))
		return 0;
	if (cJSON_IsString(v) && strcmp(v->valuestring, "on") == 0)
		*out = 1;
	else if (cJSON_IsString(v) && strcmp(v->valuestring, "off") == 0)
		*out = 0;
	else {
		char *text = cJSON_PrintUnformatted(v);

		cni_fail(err, CNI_ERR_CONFIG,
			 "\"%s\" is %.64s; give \"on\" or \"off\" (as in sriov-cni): %s, or "
			 "leave it out to keep the PF's setting",
			 name, text ? text : "?", what);
		free(text);
		return -1;
	}
	return 0;
}

/* "rateLimit": the pod's port's policers, checked against port.create's
 * rate_in_* and rate_out_* ranges; the daemon checks the rest (a byte
 * burst below the largest frame) at ADD. */
static int parse_rate_limit(const cJSON *root, struct netconf *c, struct cni_error *err)
{
	static const char *const dirs[2] = {"ingress", "egress"};
	static const char *const keys[3] = {"pps", "bps", "burst"};
	static const char *const api[2][3] = {
	    {API_F_RATE_IN_PPS, API_F_RATE_IN_BPS, API_F_RATE_IN_BURST},
	    {API_F_RATE_OUT_PPS, API_F_RATE_OUT_BPS, API_F_RATE_OUT_BURST}};
	const cJSON *rl = field(root, "rateLimit"), *item;

	for (int d = 0; d < 2; d++)
		for (int k = 0; k < 3; k++)
			c->rate[d][k] = -1;
	if (rl == NULL || cJSON_IsNull(rl))
		return 0;
	if (!cJSON_IsObject(rl))
		return cni_fail(err, CNI_ERR_CONFIG,
				"\"rateLimit\" must be an object such as {\"ingress\": {\"pps\": "
				"10000, \"burst\": 1000}, \"egress\": {\"bps\": 100000000}}");
	cJSON_ArrayForEach (item, rl) {
		int d = strcmp(item->string, dirs[0]) == 0   ? 0
			: strcmp(item->string, dirs[1]) == 0 ? 1
							     : -1;
		const cJSON *v;

		if (d < 0)
			return cni_fail(err, CNI_ERR_CONFIG,
					"\"rateLimit\": unknown direction \"%s\"; use \"ingress\" "
					"(what the pod sends) and/or \"egress\" (what it receives)",
					item->string);
		if (!cJSON_IsObject(item))
			return cni_fail(err, CNI_ERR_CONFIG,
					"\"rateLimit.%s\" must be an object: {\"pps\": N} or "
					"{\"bps\": N}, and \"burst\": N",
					dirs[d]);
		cJSON_ArrayForEach (v, item) {
			int k = 0;

			while (k < 3 && strcmp(v->string, keys[k]) != 0)
				k++;
			if (k == 3)
				return cni_fail(
				    err, CNI_ERR_CONFIG,
				    "\"rateLimit.%s\": unknown key \"%s\"; the keys are "
				    "pps (frames/s), bps (bits/s) and burst (frames or bytes)",
				    dirs[d], v->string);
			if (get_api_int(item, keys[k], API_M_PORT_CREATE, api[d][k], &c->rate[d][k],
					err) < 0) {
				char msg[sizeof(err->msg)];

				snprintf(msg, sizeof(msg), "%s", err->msg);
				return cni_fail(err, CNI_ERR_CONFIG, "\"rateLimit.%s\": %s",
						dirs[d], msg);
			}
		}
		if (c->rate[d][0] >= 0 && c->rate[d][1] >= 0)
			return cni_fail(err, CNI_ERR_CONFIG,
					"\"rateLimit.%s\" gives both \"pps\" and \"bps\"; a limit "
					"counts frames or bits, give one of them",
					dirs[d]);
		if (c->rate[d][0] < 0 && c->rate[d][1] < 0)
			return cni_fail(err, CNI_ERR_CONFIG,
					"\"rateLimit.%s\" gives no rate; give \"pps\" (frames/s) "
					"or \"bps\" (bits/s), or leave \"%s\" out",
					dirs[d], dirs[d]);
	}
	return 0;
}

/* "acl": the pod's own lists. The shape is checked here; the rules are
 * acl.set's and podwired checks them at ADD (its error names the rule and
 * field), so that the plugin and podwired cannot disagree on them. */
static int parse_acl(const cJSON *root, struct netconf *c, struct cni_error *err)
{
	const cJSON *acl = field(root, "acl"), *item, *v;

	c->acl[0] = c->acl[1] = NULL;
	if (acl == NULL || cJSON_IsNull(acl))
		return 0;
	if (!cJSON_IsObject(acl))
		return cni_fail(err, CNI_ERR_CONFIG,
				"\"acl\" must be an object such as {\"ingress\": {\"default\": "
				"\"deny\", \"rules\": [{\"action\": \"permit\", \"proto\": "
				"\"tcp\", \"dport\": 80}]}}");
	cJSON_ArrayForEach (item, acl) {
		int d = strcmp(item->string, API_DIR_INGRESS) == 0  ? 0
			: strcmp(item->string, API_DIR_EGRESS) == 0 ? 1
								    : -1;

		if (d < 0)
			return cni_fail(err, CNI_ERR_CONFIG,
					"\"acl\": unknown direction \"%s\"; use \"ingress\" "
					"(what the pod sends) and/or \"egress\" (what it receives)",
					item->string);
		if (!cJSON_IsObject(item))
			return cni_fail(err, CNI_ERR_CONFIG,
					"\"acl.%s\" must be an object: {\"default\": \"deny\" or "
					"\"permit\", \"rules\": [...]}",
					item->string);
		cJSON_ArrayForEach (v, item) {
			if (strcmp(v->string, API_F_DEFAULT) == 0) {
				const char *s = cJSON_GetStringValue(v);

				if (s == NULL ||
				    (strcmp(s, "deny") != 0 && strcmp(s, "permit") != 0))
					return cni_fail(err, CNI_ERR_CONFIG,
							"\"acl.%s.default\" must be \"deny\" or "
							"\"permit\"",
							item->string);
			} else if (strcmp(v->string, API_F_RULES) == 0) {
				if (!cJSON_IsArray(v))
					return cni_fail(
					    err, CNI_ERR_CONFIG,
					    "\"acl.%s.rules\" must be an array of rules "
					    "(see `podwirectl acl set`)",
					    item->string);
				if (cJSON_GetArraySize(v) > API_ACL_RULES_MAX)
					return cni_fail(err, CNI_ERR_CONFIG,
							"\"acl.%s.rules\" has %d rules, more than "
							"%d",
							item->string, cJSON_GetArraySize(v),
							API_ACL_RULES_MAX);
			} else {
				return cni_fail(err, CNI_ERR_CONFIG,
						"\"acl.%s\": unknown key \"%s\"; the keys are "
						"\"default\" and \"rules\"",
						item->string, v->string);
			}
		}
		c->acl[d] = item;
	}
	return 0;
}

/* portSecurity, allowedMacs, macLimit, floodLimit: podwired's port
 * security and limits for the pod's port. */
static int parse_guards(const cJSON *root, struct netconf *c, struct cni_error *err)
{
	const cJSON *sec = field(root, "portSecurity"), *allowed = field(root, "allowedMacs"), *m;
	char msg[512];
	uint8_t mac[6];
	size_t off = 0;
	int n = 0;

	/* The pod is told its MAC (podwire.json, device-info, podwire-vdev's
	 * --vdev): it has no other to send from, so the port is secured
	 * unless the config says otherwise. */
	c->port_security = true;
	c->mac_limit = -1;
	c->flood_limit = -1;
	if (sec != NULL && !cJSON_IsNull(sec)) {
		if (!cJSON_IsBool(sec))
			return cni_fail(
			    err, CNI_ERR_CONFIG,
			    "\"portSecurity\" must be true or false (false: the pod may "
			    "send from any source MAC, e.g. a pod that is itself a switch)");
		c->port_security = cJSON_IsTrue(sec);
	}
	if (allowed != NULL && !cJSON_IsNull(allowed)) {
		if (!cJSON_IsArray(allowed))
			return cni_fail(err, CNI_ERR_CONFIG,
					"\"allowedMacs\" must be an array of MAC strings such as "
					"[\"02:00:00:00:00:01\"]");
		if (!c->port_security && cJSON_GetArraySize(allowed) > 0)
			return cni_fail(err, CNI_ERR_CONFIG,
					"\"allowedMacs\" applies with port security only, and "
					"\"portSecurity\" is false; leave one of them out");
		cJSON_ArrayForEach (m, allowed) {
			if (!cJSON_IsString(m) || validate_mac("\"allowedMacs\"", m->valuestring,
							       mac, msg, sizeof(msg)) != 0)
				return cni_fail(
				    err, CNI_ERR_CONFIG, "%s",
				    cJSON_IsString(m) ? msg : "\"allowedMacs\" holds a non-string");
			if (strstr(c->allowed_macs, m->valuestring) != NULL)
				return cni_fail(err, CNI_ERR_CONFIG,
						"\"allowedMacs\" lists %s twice; list each once",
						m->valuestring);
			if (++n > API_ALLOWED_MACS_MAX)
				return cni_fail(err, CNI_ERR_CONFIG,
						"\"allowedMacs\" lists more than %d MACs",
						API_ALLOWED_MACS_MAX);
			off +=
			    (size_t)snprintf(c->allowed_macs + off, sizeof(c->allowed_macs) - off,
					     "%s%s", off ? "," : "", m->valuestring);
		}
	}
	/* The pod's port's port.create fields, under the config's names. */
	if (get_api_int(root, "macLimit", API_M_PORT_CREATE, API_F_MAC_LIMIT, &c->mac_limit, err) <
		0 ||
	    get_api_int(root, "floodLimit", API_M_PORT_CREATE, API_F_FLOOD_LIMIT, &c->flood_limit,
			err) < 0)
		return -1;
	if (parse_rate_limit(root, c, err) != 0)
		return -1;
	return parse_acl(root, c, err);
}

/* iftype pci: the VF pool and what podwired sets on the VF through its PF. */
static int parse_pci(const cJSON *root, struct netconf *c, struct cni_error *err)
{
	const char *physnet;
	char msg[512];
	long vlan = -1;

	if (refuse(root, c, "network",
		   "a VF is not on a podwired network; \"physnet\" names its pool", err) != 0 ||
	    refuse(root, c, "mode", "a VF has no socket", err) != 0 ||
	    refuse(root, c, "portSecurity", "a VF's is \"spoofChk\"", err) != 0 ||
	    refuse(root, c, "allowedMacs", "a VF's source check is \"spoofChk\"", err) != 0 ||
	    refuse(root, c, "macLimit", "a VF is not on a podwired bridge", err) != 0 ||
	    refuse(root, c, "floodLimit", "a VF is not on a podwired bridge", err) != 0 ||
	    refuse(root, c, "rateLimit", "a VF's frames do not pass through podwired", err) != 0 ||
	    refuse(root, c, "acl", "a VF's frames do not pass through podwired", err) != 0 ||
	    refuse(root, c, "mtu", "the pod's DPDK app sets the VF's MTU itself", err) != 0 ||
	    refuse(root, c, "queues",
		   "a VF's queues are the VF's own, the pod's DPDK app sets up as many as it "
		   "needs (testpmd --rxq/--txq)",
		   err) != 0)
		return -1;
	if (get_str(root, "", "physnet", &physnet,
		    "a physical network named in podwired's --physnets", err) < 0)
		return -1;
	if (physnet == NULL)
		return cni_fail(err, CNI_ERR_CONFIG,
				"\"physnet\" is missing; iftype \"pci\" takes a VF from a physical "
				"network: name one of podwired's --physnets (podwirectl vf list "
				"shows them)");
	if (validate_name("physnet", physnet, msg, sizeof(msg)) != 0)
		return cni_fail(err, CNI_ERR_CONFIG, "\"physnet\": %s", msg);
	snprintf(c->physnet, sizeof(c->physnet), "%s", physnet);
	/* The VF's VLAN: vf.alloc's "vlan". */
	if (get_api_int(root, "vlan", API_M_VF_ALLOC, API_F_VLAN, &vlan, err) < 0)
		return -1;
	c->vlan = vlan;
	if (get_on_off(root, "spoofChk", "the PF's spoof check of frames the VF sends",
		       &c->spoof_chk, err) != 0 ||
	    get_on_off(root, "trust", "whether the PF trusts the VF (promiscuous, MAC changes)",
		       &c->trust, err) != 0)
		return -1;
	c->network[0] = '\0';
	c->mode[0] = '\0';
	c->mtu = 0;
	return 0;
}

/* iftype kernel: a veth pair with one queue pair and no socket. "mtu" is
 * the pod interface's and the port's; the guards are podwired's, as for
 * the socket kinds. */
static int parse_kernel(const cJSON *root, struct netconf *c, struct cni_error *err)
{
	long mtu = API_MTU_DEFAULT, queues = 1;

	if (refuse(root, c, "mode",
		   "a kernel interface has no socket, so no vhost-user mode or memif role",
		   err) != 0 ||
	    refuse(root, c, "podSocketDir", "a kernel interface has no socket for the pod to see",
		   err) != 0)
		return -1;
	if (get_api_int(root, "mtu", API_M_PORT_CREATE, API_F_MTU, &mtu, err) < 0 ||
	    get_api_int(root, "queues", API_M_PORT_CREATE, API_F_QUEUES, &queues, err) < 0)
		return -1;
	if (queues != 1)
		return cni_fail(
		    err, CNI_ERR_FIELD,
		    "\"queues\": %ld does not apply to iftype \"kernel\": a pod's "
		    "kernel interface has one queue pair (podwired's veth port); remove "
		    "\"queues\", or use iftype \"vhost-user\" or \"memif\" for more",
		    queues);
	c->mtu = mtu;
	c->mode[0] = '\0';
	c->pod_creates_socket = false;
	return parse_guards(root, c, err);
}

static int parse_iface(const cJSON *root, struct netconf *c, struct cni_error *err)
{
	const char *mode;
	long mtu = API_MTU_DEFAULT;
	static const char *const why_vf = "it configures an SR-IOV VF (iftype \"pci\")";

	if (c->iftype == IFTYPE_PCI)
		return 0; /* parse_pci did it all */
	if (refuse(root, c, "physnet", why_vf, err) != 0 ||
	    refuse(root, c, "spoofChk", why_vf, err) != 0 ||
	    refuse(root, c, "trust", why_vf, err) != 0)
		return -1;
	if (c->iftype == IFTYPE_KERNEL)
		return parse_kernel(root, c, err);
	if (get_str(root, "", "mode", &mode, "the pod's side of the socket", err) < 0)
		return -1;
	if (c->iftype == IFTYPE_VHOST) {
		if (mode == NULL || strcmp(mode, "client") == 0)
			c->pod_creates_socket = false;
		else if (strcmp(mode, "server") == 0)
			c->pod_creates_socket = true;
		else
			return cni_fail(
			    err, CNI_ERR_CONFIG,
			    "\"mode\" is \"%s\", not a vhost-user mode; use \"client\" "
			    "(podwired creates the socket, the pod connects; the default) "
			    "or \"server\" (the pod creates it)",
			    mode);
		snprintf(c->mode, sizeof(c->mode), "%s",
			 c->pod_creates_socket ? "server" : "client");
	} else {
		if (mode == NULL || strcmp(mode, "slave") == 0)
			c->pod_creates_socket = false;
		else if (strcmp(mode, "master") == 0)
			c->pod_creates_socket = true;
		else
			return cni_fail(
			    err, CNI_ERR_CONFIG,
			    "\"mode\" is \"%s\", not a memif role; use \"slave\" (podwired "
			    "creates the socket, the pod connects; the default) or "
			    "\"master\" (the pod creates it)",
			    mode);
		snprintf(c->mode, sizeof(c->mode), "%s",
			 c->pod_creates_socket ? "master" : "slave");
	}

	if (get_api_int(root, "mtu", API_M_PORT_CREATE, API_F_MTU, &mtu, err) < 0)
		return -1;
	c->mtu = mtu;
	/* The pod's app learns it from device-info, podwire.json and
	 * podwire-vdev (virtio-user queues=N). */
	if (get_api_int(root, "queues", API_M_PORT_CREATE, API_F_QUEUES, &c->queues, err) < 0)
		return -1;
	if (c->iftype != IFTYPE_VHOST &&
	    refuse(root, c, "offloads", "only vhost-user ports negotiate offloads", err) != 0)
		return -1;
	if (field(root, "offloads") != NULL && !cJSON_IsNull(field(root, "offloads"))) {
		if (!cJSON_IsBool(field(root, "offloads")))
			return cni_fail(err, CNI_ERR_CONFIG,
					"\"offloads\" must be true or false (false: the pod's "
					"virtio-user is offered no checksum or TSO offload)");
		c->no_offloads = cJSON_IsFalse(field(root, "offloads"));
	}
	return parse_guards(root, c, err);
}

static int parse_network(const cJSON *root, struct netconf *c, struct cni_error *err)
{
	const char *net;
	char msg[512];
	long vlan = -1;

	if (c->iftype == IFTYPE_PCI)
		return parse_pci(root, c, err);
	if (get_str(root, "", "network", &net, "a podwired network name", err) < 0)
		return -1;
	if (net == NULL) {
		if (validate_name("network", c->name, msg, sizeof(msg)) != 0)
			return cni_fail(err, CNI_ERR_CONFIG,
					"\"network\" is not set and the CNI network name \"%s\" is "
					"not a podwired network name; set \"network\" to 1-%d "
					"characters of [A-Za-z0-9._-]",
					c->name, API_NAME_MAX);
		net = c->name;
	} else if (validate_name("network", net, msg, sizeof(msg)) != 0) {
		return cni_fail(err, CNI_ERR_CONFIG, "\"network\": %s", msg);
	}
	snprintf(c->network, sizeof(c->network), "%.*s", API_NAME_MAX, net);
	/* The network's VLAN, when the plugin creates it: network.create's. */
	if (get_api_int(root, "vlan", API_M_NETWORK_CREATE, API_F_VLAN, &vlan, err) < 0)
		return -1;
	c->vlan = vlan;
	return 0;
}

static int parse_paths(const cJSON *root, struct netconf *c, struct cni_error *err)
{
	const char *sock;
	char msg[512];

	if (get_dir(root, "socketDir", CNI_DEFAULT_SOCKET_DIR, c->socket_dir, sizeof(c->socket_dir),
		    socket_dir_why, err) != 0)
		return -1;
	if (get_dir(root, "podSocketDir", c->socket_dir, c->pod_socket_dir,
		    sizeof(c->pod_socket_dir), socket_dir_why, err) != 0)
		return -1;
	if (get_dir(root, "dataDir", CNI_DEFAULT_DATA_DIR, c->data_dir, sizeof(c->data_dir) - 64,
		    "", err) != 0)
		return -1;
	if (get_str(root, "", "podwiredSocket", &sock, "the path of podwired's API socket", err) <
	    0)
		return -1;
	if (sock == NULL)
		sock = PODWIRE_DEFAULT_SOCKET;
	if (validate_socket_path_shape("\"podwiredSocket\"", sock, msg, sizeof(msg)) != 0)
		return cni_fail(err, CNI_ERR_CONFIG, "%s", msg);
	snprintf(c->podwired_socket, sizeof(c->podwired_socket), "%s", sock);
	return parse_group(root, &c->socket_gid, err);
}

static int parse_ipam(const cJSON *root, struct netconf *c, struct cni_error *err)
{
	const cJSON *ipam = field(root, "ipam");
	const char *type;

	c->ipam = NULL;
	if (ipam == NULL || cJSON_IsNull(ipam))
		return 0;
	if (!cJSON_IsObject(ipam))
		return cni_fail(
		    err, CNI_ERR_CONFIG,
		    "\"ipam\" must be an object such as {\"type\": \"host-local\", ...}");
	if (ipam->child == NULL)
		return 0; /* "ipam": {} means layer 2 only, as in other plugins */
	if (get_str(ipam, "ipam.", "type", &type, "the IPAM plugin's name", err) < 0)
		return -1;
	if (type == NULL || type[0] == '\0')
		return cni_fail(
		    err, CNI_ERR_CONFIG,
		    "\"ipam\" has no \"type\"; name the IPAM plugin, e.g. \"host-local\", "
		    "or leave \"ipam\" out for layer 2 only");
	if (strchr(type, '/') != NULL || strcmp(type, ".") == 0 || strcmp(type, "..") == 0 ||
	    strlen(type) >= sizeof(c->ipam_type))
		return cni_fail(err, CNI_ERR_CONFIG,
				"\"ipam.type\" is \"%s\"; give the plain name of a plugin in "
				"CNI_PATH, e.g. \"host-local\"",
				type);
	snprintf(c->ipam_type, sizeof(c->ipam_type), "%s", type);
	c->ipam = ipam;
	return 0;
}

static int parse_runtime(const cJSON *root, const struct cni_env *env, struct netconf *c,
			 struct cni_error *err)
{
	const cJSON *rc = field(root, "runtimeConfig");
	const char *mac, *file;

	if (get_str(root, "", "mac", &mac, "a unicast MAC such as 02:00:00:00:00:01", err) < 0)
		return -1;
	if (mac != NULL && parse_mac("\"mac\"", mac, c->mac, err) != 0)
		return -1;
	if (env->args_mac[0] != '\0')
		snprintf(c->mac, sizeof(c->mac), "%s", env->args_mac);
	if (rc == NULL || cJSON_IsNull(rc))
		return 0;
	if (!cJSON_IsObject(rc))
		return cni_fail(err, CNI_ERR_CONFIG, "\"runtimeConfig\" must be an object");
	if (get_str(rc, "runtimeConfig.", "mac", &mac, "a unicast MAC", err) < 0)
		return -1;
	if (mac != NULL && parse_mac("runtimeConfig \"mac\"", mac, c->mac, err) != 0)
		return -1;
	if (get_str(rc, "runtimeConfig.", "CNIDeviceInfoFile", &file,
		    "the absolute path of the device-info file to write", err) < 0)
		return -1;
	if (file != NULL) {
		size_t n = strlen(file);

		if (file[0] != '/' || n < 2 || file[n - 1] == '/' || strstr(file, "/../") != NULL)
			return cni_fail(err, CNI_ERR_CONFIG,
					"runtimeConfig \"CNIDeviceInfoFile\" is \"%s\"; it must be "
					"an absolute file path without \"..\"",
					file);
		if (n >= sizeof(c->devinfo_file) - 16)
			return cni_fail(
			    err, CNI_ERR_CONFIG,
			    "runtimeConfig \"CNIDeviceInfoFile\" is %zu bytes, the limit "
			    "is %zu",
			    n, sizeof(c->devinfo_file) - 17);
		snprintf(c->devinfo_file, sizeof(c->devinfo_file), "%s", file);
	}
	return 0;
}

static int parse_gc(const cJSON *root, struct netconf *c, struct cni_error *err)
{
	const cJSON *v = field(root, "cni.dev/valid-attachments"), *a;

	/* The 1.1.0 text named it cni.dev/attachments; runtimes send both. */
	if (v == NULL)
		v = field(root, "cni.dev/attachments");
	if (v == NULL)
		return cni_fail(err, CNI_ERR_CONFIG,
				"GC needs \"cni.dev/valid-attachments\", the list of attachments "
				"to keep; without it nothing can be told stale");
	if (!cJSON_IsArray(v))
		return cni_fail(err, CNI_ERR_CONFIG,
				"\"cni.dev/valid-attachments\" must be an array of "
				"{\"containerID\": ..., \"ifname\": ...}");
	cJSON_ArrayForEach (a, v) {
		if (!cJSON_IsString(field(a, "containerID")) || !cJSON_IsString(field(a, "ifname")))
			return cni_fail(err, CNI_ERR_CONFIG,
					"every entry of \"cni.dev/valid-attachments\" needs string "
					"\"containerID\" and \"ifname\"");
	}
	c->valid_attachments = v;
	return 0;
}

static int parse_root(const struct cni_env *env, struct netconf *c, struct cni_error *err)
{
	const cJSON *root = c->root;
	const char *v, *name;

	if (get_str(root, "", "cniVersion", &v, "a CNI spec version such as \"1.1.0\"", err) < 0)
		return -1;
	if (v == NULL)
		return cni_fail(err, CNI_ERR_VERSION,
				"\"cniVersion\" is missing; set it to one of 0.3.0, 0.3.1, 0.4.0, "
				"1.0.0, 1.1.0");
	if (!cni_version_supported(v))
		return cni_fail(err, CNI_ERR_VERSION,
				"\"cniVersion\" \"%s\" is not supported; use one of 0.3.0, 0.3.1, "
				"0.4.0, 1.0.0, 1.1.0",
				v);
	snprintf(c->cni_version, sizeof(c->cni_version), "%s", v);
	if (env->cmd == CMD_CHECK && cni_version_cmp(v, "0.4.0") < 0)
		return cni_fail(err, CNI_ERR_VERSION,
				"CHECK needs cniVersion 0.4.0 or later, the config says %s", v);
	if ((env->cmd == CMD_GC || env->cmd == CMD_STATUS) && cni_version_cmp(v, "1.1.0") < 0)
		return cni_fail(err, CNI_ERR_VERSION,
				"%s needs cniVersion 1.1.0 or later, the config says %s",
				env->command, v);

	if (get_str(root, "", "name", &name, "the network's name", err) < 0)
		return -1;
	if (name == NULL || name[0] == '\0')
		return cni_fail(err, CNI_ERR_CONFIG, "\"name\" is missing; name the network");
	if (strlen(name) >= sizeof(c->name))
		return cni_fail(err, CNI_ERR_CONFIG, "\"name\" is %zu bytes, the limit is %zu",
				strlen(name), sizeof(c->name) - 1);
	snprintf(c->name, sizeof(c->name), "%s", name);
	return 0;
}

int netconf_parse(const char *text, size_t len, const struct cni_env *env, struct netconf *c,
		  struct cni_error *err)
{
	const cJSON *prev;

	memset(c, 0, sizeof(*c));
	c->vlan = -1;
	c->queues = 1;
	c->spoof_chk = -1;
	c->trust = -1;
	c->root = cJSON_ParseWithLength(text, len);
	if (c->root == NULL) {
		const char *at = cJSON_GetErrorPtr();
		size_t off = at != NULL && at >= text && at <= text + len ? (size_t)(at - text) : 0;

		return cni_fail(err, CNI_ERR_DECODE,
				"the network config on stdin is not valid JSON (error near byte "
				"%zu of %zu); check the network's config file or "
				"NetworkAttachmentDefinition",
				off, len);
	}
	if (!cJSON_IsObject(c->root)) {
		netconf_free(c);
		return cni_fail(err, CNI_ERR_DECODE,
				"the network config on stdin must be a JSON object");
	}
	if (parse_root(env, c, err) != 0 || parse_iftype(c->root, c, err) != 0 ||
	    parse_network(c->root, c, err) != 0 || parse_iface(c->root, c, err) != 0 ||
	    parse_paths(c->root, c, err) != 0 || parse_ipam(c->root, c, err) != 0 ||
	    parse_runtime(c->root, env, c, err) != 0 ||
	    (env->cmd == CMD_GC && parse_gc(c->root, c, err) != 0))
		goto fail;
	c->timeout_ms = 10000;
	prev = field(c->root, "prevResult");
	if (prev != NULL && !cJSON_IsNull(prev)) {
		if (!cJSON_IsObject(prev)) {
			cni_fail(err, CNI_ERR_CONFIG, "\"prevResult\" must be an object");
			goto fail;
		}
		c->prev_result = prev;
	}
	if (env->cmd == CMD_CHECK && c->prev_result == NULL) {
		cni_fail(err, CNI_ERR_CONFIG,
			 "CHECK needs \"prevResult\", the result of the ADD being checked");
		goto fail;
	}
	return 0;
fail:
	netconf_free(c);
	return -1;
}

void netconf_free(struct netconf *c)
{
	if (c == NULL)
		return;
	cJSON_Delete(c->root);
	c->root = NULL;
}

const char *netconf_peek_version(const char *text, size_t len, char *buf, size_t buflen)
{
	cJSON *root = cJSON_ParseWithLength(text, len);
	const char *v = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(root, "cniVersion"));

	snprintf(buf, buflen, "%s", v != NULL && cni_version_supported(v) ? v : CNI_VERSION_LATEST);
	cJSON_Delete(root);
	return buf;
}

const char *iftype_name(enum cni_iftype t)
{
	switch (t) {
	case IFTYPE_MEMIF:
		return API_PORT_MEMIF;
	case IFTYPE_PCI:
		return API_PORT_PCI;
	case IFTYPE_KERNEL:
		return CNI_IFTYPE_KERNEL;
	default:
		return API_PORT_VHOST;
	}
}

const char *iftype_port_type(enum cni_iftype t)
{
	return t == IFTYPE_KERNEL ? API_PORT_VETH : iftype_name(t);
}

int iftype_parse(const char *name, enum cni_iftype *t)
{
	if (strcmp(name, API_PORT_MEMIF) == 0)
		*t = IFTYPE_MEMIF;
	else if (strcmp(name, API_PORT_PCI) == 0)
		*t = IFTYPE_PCI;
	else if (strcmp(name, API_PORT_VHOST) == 0)
		*t = IFTYPE_VHOST;
	else if (strcmp(name, CNI_IFTYPE_KERNEL) == 0)
		*t = IFTYPE_KERNEL;
	else
		return -1;
	return 0;
}
