/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * podwire-vdev: prints the DPDK EAL arguments for a pod's podwire
 * interfaces, so that `dpdk-testpmd $(podwire-vdev FILE) -- ...` works.
 *
 * FILE is any of: a device-info file (NPWG Device Information Spec), the
 * podwire.json the CNI plugin writes in the attachment directory, or the
 * Multus network-status annotation (a JSON array, or the downward API's
 * annotations file holding it). With no FILE, the environment a CDI device
 * of podwired gave the container (PODWIRE_DEVINFO_PORT_<NAME>, see
 * dataplane/cdi/spec.c).
 */
#include <arpa/inet.h>
#include <errno.h>
#include <getopt.h>
#include <glob.h>
#include <ifaddrs.h>
#include <linux/if_packet.h>
#include <net/if.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "devinfo.h"
#include "files.h"
#include "validate.h"

#define NETWORK_STATUS_KEY "k8s.v1.cni.cncf.io/network-status="
#define DOCKER_DIR	   "/run/podwire/docker"

struct opts {
	const char *iface;     /* only this interface */
	const char *container; /* only podwire.json of this container (id prefix) */
	const char *mac;       /* MAC for a device whose file has none */
	bool vdev_only;
	bool queues; /* print the queue count instead */
	unsigned int n_virtio, n_memif, printed;
	int min_queues;	 /* of the devices printed; 0 before the first */
	char out[16384]; /* printed only when every file was understood */
	size_t len;
};

static void usage(FILE *f)
{
	fprintf(
	    f,
	    "usage: podwire-vdev [--vdev-only|--queues] [--interface NAME] [--container ID] [--mac "
	    "MAC] "
	    "[FILE...]\n"
	    "Prints the EAL arguments (--vdev=..., --single-file-segments for virtio-user)\n"
	    "for the vhost-user and memif devices described in FILE: a device-info file,\n"
	    "a podwire.json, or the Multus network-status annotation (JSON, or the\n"
	    "downward API annotations file). Example:\n"
	    "  dpdk-testpmd $(podwire-vdev /etc/podinfo/annotations) --in-memory -- -i\n"
	    "With no FILE: the ports a CDI device podwire.io/port=NAME gave the container\n"
	    "(its PODWIRE_DEVINFO_PORT_* variables), e.g.\n"
	    "  podman run --device podwire.io/port=pod-a IMAGE sh -c 'dpdk-testpmd "
	    "$(podwire-vdev) ...'\n"
	    "  --vdev-only       print only the vdev values, one per line\n"
	    "  --interface NAME  only the device of this pod interface (e.g. net1)\n"
	    "  --container ID    only podwire.json files of this container (an id prefix, such\n"
	    "                    as the hostname podman and docker give); with a glob over\n"
	    "                    the whole socket directory, picks the container's own\n"
	    "  --mac MAC         MAC for devices whose file does not give one\n"
	    "  --queues          print only the number of rx and tx queues the app should\n"
	    "                    configure: the fewest queue pairs any of the devices offers\n"
	    "                    (\"queues\" of its device-info; virtio-user gets queues=N in\n"
	    "                    its vdev, memif has no such devarg: its rings are the\n"
	    "                    app's queues), e.g.\n"
	    "                    Q=$(podwire-vdev --queues F); dpdk-testpmd $(podwire-vdev F) \\\n"
	    "                      -- --rxq $Q --txq $Q\n"
	    "  --docker [DIR]    in a Docker container on a podwire network (iftype vhost-user\n"
	    "                    or memif): the podwire.json files under DIR (default\n"
	    "                    " DOCKER_DIR ") whose MAC and address are this\n"
	    "                    container's own, as Docker gave them to its interfaces;\n"
	    "                    no FILE needed: dpdk-testpmd $(podwire-vdev --docker) -- ...\n");
}

/* Undoes Go's strconv.Quote, which the downward API uses for values. */
static char *unquote(const char *s)
{
	size_t n = strlen(s);
	char *out = malloc(n + 1), *o = out;

	if (out == NULL || s[0] != '"')
		goto bad;
	for (s++; *s != '"'; s++) {
		if (*s == '\0')
			goto bad;
		if (*s != '\\') {
			*o++ = *s;
			continue;
		}
		s++;
		switch (*s) {
		case 'n':
			*o++ = '\n';
			break;
		case 't':
			*o++ = '\t';
			break;
		case '"':
		case '\\':
		case '/':
			*o++ = *s;
			break;
		default:
			goto bad; /* \u and friends do not occur in network-status */
		}
	}
	*o = '\0';
	return out;
bad:
	free(out);
	return NULL;
}

static cJSON *parse_file(const char *path)
{
	char *buf, *line, *text;
	size_t len;
	cJSON *doc;
	int rc = file_read(path, 4 << 20, &buf, &len);

	if (rc != 0) {
		fprintf(stderr, "podwire-vdev: cannot read %s: %s\n", path, strerror(-rc));
		return NULL;
	}
	doc = cJSON_ParseWithLength(buf, len);
	if (doc != NULL) {
		free(buf);
		return doc;
	}
	for (line = strtok(buf, "\n"); line != NULL; line = strtok(NULL, "\n")) {
		if (strncmp(line, NETWORK_STATUS_KEY, strlen(NETWORK_STATUS_KEY)) != 0)
			continue;
		text = unquote(line + strlen(NETWORK_STATUS_KEY));
		doc = text ? cJSON_Parse(text) : NULL;
		free(text);
		break;
	}
	free(buf);
	if (doc == NULL)
		fprintf(stderr,
			"podwire-vdev: %s is neither JSON nor an annotations file with %.*s; give "
			"a device-info file, a podwire.json or the network-status annotation\n",
			path, (int)strlen(NETWORK_STATUS_KEY) - 1, NETWORK_STATUS_KEY);
	return doc;
}

/* Prints one device. Returns 0, or -1 after a message. */
static int emit(struct opts *o, const char *path, const cJSON *info, const char *mac)
{
	bool memif = strcmp(api_get_str(info, "type", ""), "memif") == 0;
	char vdev[512], msg[256], clean[18];
	uint8_t bytes[6];
	int n;

	/* network-status MACs may come with spaces around them. */
	while (mac != NULL && *mac == ' ')
		mac++;
	if ((mac == NULL || mac[0] == '\0') && o->mac != NULL)
		mac = o->mac;
	if (mac != NULL && mac[0] != '\0') {
		snprintf(clean, sizeof(clean), "%.17s", mac);
		if (validate_mac("podwire-vdev", clean, bytes, msg, sizeof(msg)) != 0) {
			fprintf(stderr, "podwire-vdev: %s: %s\n", path, msg);
			return -1;
		}
		format_mac(bytes, clean);
		mac = clean;
	}
	if (devinfo_vdev(info, mac, memif ? o->n_memif : o->n_virtio, vdev, sizeof(vdev), msg,
			 sizeof(msg)) != 0) {
		fprintf(stderr, "podwire-vdev: %s: %s\n", path, msg);
		return -1;
	}
	if (memif)
		o->n_memif++;
	else
		o->n_virtio++;
	/* devinfo_vdev checked it is 1-API_QUEUES_MAX. */
	if (o->min_queues == 0 || devinfo_queues(info) < o->min_queues)
		o->min_queues = devinfo_queues(info);
	n = snprintf(o->out + o->len, sizeof(o->out) - o->len,
		     o->vdev_only ? "%s%s" : "%s--vdev=%s",
		     o->printed ? (o->vdev_only ? "\n" : " ") : "", vdev);
	if (n < 0 || (size_t)n >= sizeof(o->out) - o->len) {
		o->out[o->len] = '\0';
		fprintf(stderr, "podwire-vdev: too many devices\n");
		return -1;
	}
	o->len += (size_t)n;
	o->printed++;
	return 0;
}

static int from_doc(struct opts *o, const char *path, const cJSON *doc)
{
	const cJSON *e, *info;
	int before = (int)o->printed;

	if (cJSON_IsArray(doc)) { /* network-status */
		cJSON_ArrayForEach (e, doc) {
			const char *type;

			info = cJSON_GetObjectItemCaseSensitive(e, "device-info");
			type = api_get_str(info, "type", "");
			if (strcmp(type, "vhost-user") != 0 && strcmp(type, "memif") != 0)
				continue;
			if (o->iface && strcmp(api_get_str(e, "interface", ""), o->iface) != 0)
				continue;
			if (emit(o, path, info, api_get_str(e, "mac", NULL)) != 0)
				return -1;
		}
	} else if ((info = cJSON_GetObjectItemCaseSensitive(doc, "deviceInfo")) != NULL) {
		if (o->iface && strcmp(api_get_str(doc, "ifname", ""), o->iface) != 0)
			return 0;
		if (o->container && strncmp(api_get_str(doc, "containerID", ""), o->container,
					    strlen(o->container)) != 0)
			return 0;
		/* A VF (iftype pci) is no vdev: its podwire.json's "eal" has
		 * --allow=<pci>. Skipped, so that a glob over a pod with VFs
		 * and sockets still gives the sockets' vdevs. */
		if (strcmp(api_get_str(info, "type", ""), "pci") == 0)
			return 0;
		if (emit(o, path, info, api_get_str(doc, "mac", NULL)) != 0)
			return -1;
	} else if (cJSON_IsString(cJSON_GetObjectItemCaseSensitive(doc, "type"))) {
		if (emit(o, path, doc, NULL) != 0)
			return -1;
	} else {
		fprintf(stderr,
			"podwire-vdev: %s is not a device-info file, a podwire.json or a "
			"network-status list\n",
			path);
		return -1;
	}
	if ((int)o->printed == before && cJSON_IsArray(doc))
		fprintf(stderr, "podwire-vdev: %s lists no vhost-user or memif device%s%s\n", path,
			o->iface ? " for interface " : "", o->iface ? o->iface : "");
	return 0;
}

#define ENV_DEVINFO "PODWIRE_DEVINFO_PORT_"
#define ENV_MAC	    "PODWIRE_MAC_PORT_"

static int by_name(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The ports of the container's CDI devices, in the order of their
 * variables' names (a container's environment has no other order). */
static int from_env(struct opts *o)
{
	extern char **environ;
	size_t n = 0, cap = 0;
	char **vars = NULL;
	int rc = 0;

	for (char **e = environ; *e != NULL; e++) {
		if (strncmp(*e, ENV_DEVINFO, strlen(ENV_DEVINFO)) != 0)
			continue;
		if (n == cap) {
			char **more = realloc(vars, (cap = cap ? 2 * cap : 8) * sizeof(*vars));

			if (more == NULL) {
				free(vars);
				fprintf(stderr, "podwire-vdev: out of memory\n");
				return 1;
			}
			vars = more;
		}
		vars[n++] = *e;
	}
	if (n > 0)
		qsort(vars, n, sizeof(*vars), by_name);
	for (size_t i = 0; i < n && rc == 0; i++) {
		const char *eq = strchr(vars[i], '=');
		char what[160], macvar[160];
		cJSON *info = cJSON_Parse(eq + 1);

		snprintf(what, sizeof(what), "$%.*s", (int)(eq - vars[i]), vars[i]);
		snprintf(macvar, sizeof(macvar), "%s%.*s", ENV_MAC,
			 (int)(eq - vars[i] - strlen(ENV_DEVINFO)), vars[i] + strlen(ENV_DEVINFO));
		if (!cJSON_IsObject(info)) {
			fprintf(stderr, "podwire-vdev: %s is not a device-info JSON object\n",
				what);
			rc = 1;
		} else if (emit(o, what, info, getenv(macvar)) != 0) {
			rc = 1;
		}
		cJSON_Delete(info);
	}
	free(vars);
	if (rc == 0 && n == 0) {
		fprintf(stderr,
			"podwire-vdev: no FILE given and no %s* variable: give a "
			"device-info file or podwire.json, or run the container with "
			"--device podwire.io/port=NAME\n",
			ENV_DEVINFO);
		rc = 1;
	}
	return rc;
}

/* Whether this network namespace has an interface with MAC mac and one
 * of the addresses of ips (CIDR strings) on that same interface. */
static bool is_mine(const struct ifaddrs *all, const char *mac, const cJSON *ips)
{
	for (const struct ifaddrs *l = all; l != NULL; l = l->ifa_next) {
		const struct sockaddr_ll *ll = (const struct sockaddr_ll *)l->ifa_addr;
		char have[18];

		if (ll == NULL || ll->sll_family != AF_PACKET || ll->sll_halen != 6)
			continue;
		format_mac(ll->sll_addr, have);
		if (strcasecmp(have, mac) != 0)
			continue;
		for (const struct ifaddrs *a = all; a != NULL; a = a->ifa_next) {
			char addr[INET6_ADDRSTRLEN];
			const cJSON *ip;
			const void *raw;

			if (a->ifa_addr == NULL || strcmp(a->ifa_name, l->ifa_name) != 0 ||
			    (a->ifa_addr->sa_family != AF_INET &&
			     a->ifa_addr->sa_family != AF_INET6))
				continue;
			raw =
			    a->ifa_addr->sa_family == AF_INET
				? (const void *)&((const struct sockaddr_in *)a->ifa_addr)->sin_addr
				: (const void *)&((const struct sockaddr_in6 *)a->ifa_addr)
				      ->sin6_addr;
			inet_ntop(a->ifa_addr->sa_family, raw, addr, sizeof(addr));
			cJSON_ArrayForEach (ip, ips) {
				const char *s = cJSON_GetStringValue(ip);
				size_t n = strlen(addr);

				if (s != NULL && strncmp(s, addr, n) == 0 &&
				    (s[n] == '/' || s[n] == '\0'))
					return true;
			}
		}
	}
	return false;
}

/* --docker: every podwire.json under dir that is this container's own. */
static int from_docker(struct opts *o, const char *dir)
{
	struct ifaddrs *ifs = NULL;
	char pattern[4096];
	glob_t g;
	int rc = 0;

	if (getifaddrs(&ifs) != 0) {
		fprintf(stderr, "podwire-vdev: cannot list this container's interfaces: %s\n",
			strerror(errno));
		return 1;
	}
	snprintf(pattern, sizeof(pattern), "%s/*/podwire.json", dir);
	if (glob(pattern, 0, NULL, &g) != 0)
		g.gl_pathc = 0;
	for (size_t i = 0; i < g.gl_pathc && rc == 0; i++) {
		cJSON *doc = parse_file(g.gl_pathv[i]);

		if (doc != NULL && is_mine(ifs, api_get_str(doc, "mac", ""),
					   cJSON_GetObjectItemCaseSensitive(doc, "ips")))
			rc = from_doc(o, g.gl_pathv[i], doc) != 0 ? 1 : 0;
		cJSON_Delete(doc);
	}
	if (rc == 0 && o->printed == 0) {
		fprintf(stderr,
			"podwire-vdev: none of the %zu podwire.json files under %s has this "
			"container's MAC and address; is the container on a podwire network with "
			"podwire.iftype vhost-user or memif, and does it mount %s (-v %s:%s)?\n",
			g.gl_pathc, dir, dir, DOCKER_DIR, dir);
		rc = 1;
	}
	if (g.gl_pathc > 0)
		globfree(&g);
	freeifaddrs(ifs);
	return rc;
}

int main(int argc, char **argv)
{
	static const struct option longopts[] = {{"vdev-only", no_argument, NULL, 'v'},
						 {"interface", required_argument, NULL, 'i'},
						 {"mac", required_argument, NULL, 'm'},
						 {"queues", no_argument, NULL, 'q'},
						 {"container", required_argument, NULL, 'c'},
						 {"docker", optional_argument, NULL, 'd'},
						 {"help", no_argument, NULL, 'h'},
						 {NULL, 0, NULL, 0}};
	const char *docker = NULL;
	struct opts o = {0}; /* (one run per process; the fuzz harness runs many) */
	int c, rc = 0;

	while ((c = getopt_long(argc, argv, "vi:m:c:h", longopts, NULL)) != -1) {
		switch (c) {
		case 'd':
			docker = optarg != NULL ? optarg : DOCKER_DIR;
			break;
		case 'v':
			o.vdev_only = true;
			break;
		case 'q':
			o.queues = true;
			break;
		case 'i':
			o.iface = optarg;
			break;
		case 'm':
			o.mac = optarg;
			break;
		case 'c':
			o.container = optarg[0] ? optarg : NULL;
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			usage(stderr);
			return 2;
		}
	}
	if (docker != NULL)
		rc = from_docker(&o, docker);
	else if (optind >= argc)
		rc = from_env(&o);
	for (int i = optind; i < argc && rc == 0; i++) {
		cJSON *doc = parse_file(argv[i]);

		rc = doc == NULL || from_doc(&o, argv[i], doc) != 0 ? 1 : 0;
		cJSON_Delete(doc);
	}
	if (rc == 0 && o.printed == 0) {
		fprintf(stderr, "podwire-vdev: no vhost-user or memif device found\n");
		rc = 1;
	}
	if (rc != 0)
		return rc;
	if (o.queues) {
		printf("%d\n", o.min_queues);
		return 0;
	}
	/* vhost-user maps the app's memory in few regions: one file per segment. */
	printf("%s%s\n", o.out, !o.vdev_only && o.n_virtio > 0 ? " --single-file-segments" : "");
	return 0;
}
