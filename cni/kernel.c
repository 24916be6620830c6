/* SPDX-License-Identifier: BSD-3-Clause */
/* iftype kernel: the pod's veth end, moved and configured. See kernel.h. */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <ifaddrs.h>
#include <net/if.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "kernel.h"
#include "link.h"
#include "validate.h"

#define ALIAS_PREFIX "podwire:"

static void alias_of(const struct attach *a, char *buf, size_t len)
{
	snprintf(buf, len, ALIAS_PREFIX "%s", a->port);
}

/* Opens the pod's netns. A missing one is the runtime's error (3). */
static int ns_open(const char *path, struct cni_error *err)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		cni_fail(err, errno == ENOENT ? CNI_ERR_CONTAINER : CNI_ERR_IO,
			 "cannot open the pod's network namespace %s (CNI_NETNS): %s", path,
			 strerror(errno));
	return fd;
}

/*
 * Runs the calling thread in netns target until ns_leave(*orig). The
 * plugin is one thread; IPAM runs before or after, never in between, so
 * it always starts in the node's namespace.
 */
static int ns_enter(int target, const char *path, int *orig, struct cni_error *err)
{
	*orig = open("/proc/thread-self/ns/net", O_RDONLY | O_CLOEXEC);
	if (*orig < 0)
		return cni_fail(err, CNI_ERR_IO, "cannot open our own network namespace: %s",
				strerror(errno));
	if (setns(target, CLONE_NEWNET) != 0) {
		int e = errno;

		close(*orig);
		*orig = -1;
		return cni_fail(err, e == EINVAL ? CNI_ERR_CONTAINER : CNI_ERR_IO,
				"cannot enter the pod's network namespace %s: %s%s", path,
				strerror(e),
				e == EINVAL ? " (is CNI_NETNS a network namespace?)" : "");
	}
	return 0;
}

static void ns_leave(int orig)
{
	/* Staying in the pod's namespace would run IPAM and every later step
	 * there: better to stop at once. */
	if (setns(orig, CLONE_NEWNET) != 0) {
		fprintf(stderr, "podwire: cannot return to the node's network namespace: %s\n",
			strerror(errno));
		abort();
	}
	close(orig);
}

/* "10.0.0.2/24" or "fd00::2/64": family, address and prefix length. */
static int parse_cidr(const char *text, int *family, unsigned char addr[16], unsigned int *plen)
{
	char buf[INET6_ADDRSTRLEN + 8], *slash, *end;
	unsigned long n;

	snprintf(buf, sizeof(buf), "%s", text);
	slash = strchr(buf, '/');
	if (slash == NULL)
		return -1;
	*slash = '\0';
	*family = strchr(buf, ':') != NULL ? AF_INET6 : AF_INET;
	if (inet_pton(*family, buf, addr) != 1)
		return -1;
	n = strtoul(slash + 1, &end, 10);
	if (end == slash + 1 || *end != '\0' || n > (*family == AF_INET ? 32u : 128u))
		return -1;
	*plen = (unsigned int)n;
	return 0;
}

static int parse_ip(const char *text, int family, unsigned char addr[16])
{
	return text != NULL && inet_pton(family, text, addr) == 1 ? 0 : -1;
}

/* The index in result's interfaces of a's pod interface, or -1. */
static int our_index(const struct attach *a, const cJSON *result)
{
	const cJSON *i;
	int k = 0;

	cJSON_ArrayForEach (i, cJSON_GetObjectItemCaseSensitive(result, "interfaces")) {
		const char *sandbox = api_get_str(i, "sandbox", "");

		if (strcmp(api_get_str(i, "name", ""), a->ifname) == 0 &&
		    (sandbox[0] == '\0' || strcmp(sandbox, a->netns) == 0) &&
		    (sandbox[0] != '\0' || a->netns[0] == '\0'))
			return k;
		k++;
	}
	return -1;
}

/* The gateway of our first IP of family, for routes that name none. */
static int our_gateway(const cJSON *result, int index, int family, unsigned char gw[16])
{
	const cJSON *ip;

	cJSON_ArrayForEach (ip, cJSON_GetObjectItemCaseSensitive(result, "ips")) {
		int f;
		unsigned char addr[16];
		unsigned int plen;

		if (api_get_int(ip, "interface", -1) != index ||
		    parse_cidr(api_get_str(ip, "address", ""), &f, addr, &plen) != 0 || f != family)
			continue;
		return parse_ip(api_get_str(ip, "gateway", NULL), family, gw);
	}
	return -1;
}

/* In the pod's namespace: addresses, then routes (a gateway must be on a
 * prefix one of the addresses brought). */
static int configure_ips(const struct attach *a, const cJSON *result, struct cni_error *err)
{
	const cJSON *ip, *rt;
	int index = our_index(a, result);
	char msg[512];

	cJSON_ArrayForEach (ip, cJSON_GetObjectItemCaseSensitive(result, "ips")) {
		const char *text = api_get_str(ip, "address", "");
		unsigned char addr[16];
		unsigned int plen;
		int family, rc;

		if (api_get_int(ip, "interface", -1) != index)
			continue;
		if (parse_cidr(text, &family, addr, &plen) != 0)
			return cni_fail(err, PW_ERR_IPAM,
					"the IPAM plugin's address \"%s\" is not in CIDR form "
					"(10.0.0.2/24); check its config",
					text);
		rc = link_addr_add(a->ifname, family, addr, plen, msg, sizeof(msg));
		if (rc != 0)
			return cni_fail(err, CNI_ERR_IO, "pod %s: cannot add %s: %s",
					a->containerid, text, msg);
	}
	cJSON_ArrayForEach (rt, cJSON_GetObjectItemCaseSensitive(result, "routes")) {
		const char *dst = api_get_str(rt, "dst", ""),
			   *gw_text = api_get_str(rt, "gw", NULL);
		unsigned char net[16], gw[16];
		unsigned int plen;
		int family, rc, have_gw;

		if (parse_cidr(dst, &family, net, &plen) != 0)
			return cni_fail(
			    err, PW_ERR_IPAM,
			    "a route of the IPAM result has \"dst\" \"%s\", not in CIDR "
			    "form; check the IPAM config's routes",
			    dst);
		if (gw_text != NULL)
			have_gw = parse_ip(gw_text, family, gw) == 0;
		else
			have_gw = our_gateway(result, index, family, gw) == 0;
		if (gw_text != NULL && !have_gw)
			return cni_fail(err, PW_ERR_IPAM,
					"route to %s: \"gw\" \"%s\" is not an address of the same "
					"family; check the IPAM config's routes",
					dst, gw_text);
		rc = link_route_add(a->ifname, family, net, plen, have_gw ? gw : NULL, msg,
				    sizeof(msg));
		if (rc == -EEXIST)
			return cni_fail(err, CNI_ERR_IO,
					"pod %s already has a route to %s (through another "
					"interface?); leave the route out of this network's IPAM "
					"config, or out of the other's",
					a->containerid, dst);
		if (rc != 0)
			return cni_fail(err, CNI_ERR_IO, "pod %s: cannot add the route to %s: %s",
					a->containerid, dst, msg);
	}
	return 0;
}

int kernel_attach(const struct attach *a, const char *peer, const char *mac, long mtu,
		  const cJSON *result, struct cni_error *err)
{
	char alias[API_NAME_MAX + sizeof(ALIAS_PREFIX)], msg[512];
	uint8_t mac_bytes[6];
	int ns, orig, rc;

	if (mac[0] != '\0' && validate_mac("mac", mac, mac_bytes, msg, sizeof(msg)) != 0)
		return cni_fail(err, CNI_ERR_CONFIG, "%s", msg);
	ns = ns_open(a->netns, err);
	if (ns < 0)
		return -1;
	alias_of(a, alias, sizeof(alias));
	/* Renamed on the way in: the pod's name may be taken here, and
	 * podwired's name for it may be taken there. */
	rc = link_move(peer, ns, a->ifname, alias, msg, sizeof(msg));
	if (rc != 0) {
		close(ns);
		if (rc == -EEXIST)
			return cni_fail(err, CNI_ERR_CONTAINER,
					"the pod's network namespace %s already has an interface "
					"%s; give this network another CNI_IFNAME (e.g. net1)",
					a->netns, a->ifname);
		return cni_fail(err, CNI_ERR_IO,
				"cannot move podwired's veth end %s into %s as %s: %s", peer,
				a->netns, a->ifname, msg);
	}
	if (ns_enter(ns, a->netns, &orig, err) != 0) {
		close(ns);
		return -1;
	}
	close(ns);
	rc = link_configure(a->ifname, mac[0] != '\0' ? mac_bytes : NULL, (unsigned int)mtu, msg,
			    sizeof(msg));
	if (rc != 0)
		cni_fail(err, CNI_ERR_IO, "pod %s: %s", a->containerid, msg);
	else
		rc = configure_ips(a, result, err);
	ns_leave(orig);
	return rc == 0 ? 0 : -1;
}

/* Whether the interface has addr/plen of family. */
static bool has_addr(const struct ifaddrs *list, const char *ifname, int family,
		     const unsigned char addr[16], unsigned int plen)
{
	for (const struct ifaddrs *i = list; i != NULL; i = i->ifa_next) {
		const void *have, *mask;
		unsigned int bits = 0;
		size_t alen = family == AF_INET ? 4 : 16;

		if (i->ifa_addr == NULL || i->ifa_addr->sa_family != family ||
		    strcmp(i->ifa_name, ifname) != 0)
			continue;
		if (family == AF_INET) {
			have = &((const struct sockaddr_in *)(const void *)i->ifa_addr)->sin_addr;
			mask = i->ifa_netmask
				   ? &((const struct sockaddr_in *)(const void *)i->ifa_netmask)
					  ->sin_addr
				   : NULL;
		} else {
			have = &((const struct sockaddr_in6 *)(const void *)i->ifa_addr)->sin6_addr;
			mask = i->ifa_netmask
				   ? &((const struct sockaddr_in6 *)(const void *)i->ifa_netmask)
					  ->sin6_addr
				   : NULL;
		}
		for (size_t b = 0; mask != NULL && b < alen; b++)
			bits += (unsigned int)__builtin_popcount(((const unsigned char *)mask)[b]);
		if (memcmp(have, addr, alen) == 0 && bits == plen)
			return true;
	}
	return false;
}

static int check_in_ns(const struct attach *a, const char *mac, long mtu, const cJSON *result,
		       struct cni_error *err)
{
	char alias[API_NAME_MAX + sizeof(ALIAS_PREFIX)], msg[512], have_mac[18];
	struct link_info info;
	struct ifaddrs *addrs = NULL;
	const cJSON *ip;
	int index = our_index(a, result), rc = 0;

	if (link_get(a->ifname, &info, msg, sizeof(msg)) != 0)
		return cni_fail(err, PW_ERR_CHECK,
				"the pod's network namespace %s has no interface %s; re-add the "
				"pod's network",
				a->netns, a->ifname);
	alias_of(a, alias, sizeof(alias));
	format_mac(info.mac, have_mac);
	if (strcmp(info.alias, alias) != 0)
		return cni_fail(err, PW_ERR_CHECK,
				"interface %s in %s is not podwire's (its alias is \"%s\", not "
				"\"%s\"); re-add the pod's network",
				a->ifname, a->netns, info.alias, alias);
	if (mac[0] != '\0' && strcasecmp(have_mac, mac) != 0)
		return cni_fail(err, PW_ERR_CHECK,
				"interface %s in %s has MAC %s, podwired's port %s has %s; re-add "
				"the pod's network",
				a->ifname, a->netns, have_mac, a->port, mac);
	if (mtu > 0 && info.mtu != (unsigned int)mtu)
		return cni_fail(err, PW_ERR_CHECK,
				"interface %s in %s has MTU %u, the config says %ld; re-add the "
				"pod's network",
				a->ifname, a->netns, info.mtu, mtu);
	if (!(info.flags & IFF_UP))
		return cni_fail(err, PW_ERR_CHECK,
				"interface %s in %s is down; re-add the pod's network", a->ifname,
				a->netns);
	if (index < 0)
		return 0; /* check_prev says prevResult lacks it */
	if (getifaddrs(&addrs) != 0)
		return cni_fail(err, CNI_ERR_IO, "cannot list the addresses in %s: %s", a->netns,
				strerror(errno));
	cJSON_ArrayForEach (ip, cJSON_GetObjectItemCaseSensitive(result, "ips")) {
		const char *text = api_get_str(ip, "address", "");
		unsigned char addr[16];
		unsigned int plen;
		int family;

		if (api_get_int(ip, "interface", -1) != index ||
		    parse_cidr(text, &family, addr, &plen) != 0)
			continue;
		if (!has_addr(addrs, a->ifname, family, addr, plen)) {
			rc = cni_fail(err, PW_ERR_CHECK,
				      "interface %s in %s lacks the address %s that ADD gave it; "
				      "re-add the pod's network",
				      a->ifname, a->netns, text);
			break;
		}
	}
	freeifaddrs(addrs);
	return rc;
}

int kernel_check(const struct attach *a, const char *mac, long mtu, const cJSON *result,
		 struct cni_error *err)
{
	int ns = ns_open(a->netns, err), orig, rc;

	if (ns < 0)
		return -1;
	rc = ns_enter(ns, a->netns, &orig, err);
	close(ns);
	if (rc != 0)
		return -1;
	rc = check_in_ns(a, mac, mtu, result, err);
	ns_leave(orig);
	return rc;
}

void kernel_remove(const struct attach *a)
{
	char alias[API_NAME_MAX + sizeof(ALIAS_PREFIX)], msg[512];
	struct cni_error ignored;
	struct link_info info;
	int ns, orig;

	if (a->netns[0] == '\0' || access(a->netns, F_OK) != 0)
		return; /* the pod's namespace went, and the pair with it */
	ns = ns_open(a->netns, &ignored);
	if (ns < 0)
		return;
	if (ns_enter(ns, a->netns, &orig, &ignored) != 0) {
		close(ns);
		return;
	}
	close(ns);
	alias_of(a, alias, sizeof(alias));
	if (link_get(a->ifname, &info, msg, sizeof(msg)) == 0 && strcmp(info.alias, alias) == 0 &&
	    link_delete(info.ifindex, msg, sizeof(msg)) != 0 &&
	    strstr(msg, strerror(ENODEV)) == NULL)
		fprintf(stderr, "podwire: cannot delete %s in %s: %s\n", a->ifname, a->netns, msg);
	ns_leave(orig);
}

void kernel_host_mac(const struct attach *a, char mac[18])
{
	struct link_info info;
	char msg[256];

	mac[0] = '\0';
	if (link_get(a->host_iface, &info, msg, sizeof(msg)) == 0)
		format_mac(info.mac, mac);
}
