/* SPDX-License-Identifier: BSD-3-Clause */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

#include "model/port_conf.h"
#include "validate.h"

static int fail(const char **field, const char *name, int code)
{
	*field = name;
	return code;
}

static int parse_type(const char *type, const char *const known[], struct port_conf *c, char *msg,
		      size_t len)
{
	char list[128] = "";
	size_t off = 0;

	for (int i = 0; known[i] != NULL; i++) {
		if (strcmp(known[i], type) == 0) {
			snprintf(c->type, sizeof(c->type), "%s", type);
			return 0;
		}
		off += snprintf(list + off, sizeof(list) - off, "%s%s", i ? ", " : "", known[i]);
		if (off >= sizeof(list))
			break;
	}
	snprintf(msg, len, "port \"%s\": unknown type \"%s\"; use one of: %s", c->name, type, list);
	return -EINVAL;
}

static bool type_has_socket(const char *type)
{
	return strcmp(type, API_PORT_VHOST) == 0 || strcmp(type, API_PORT_MEMIF) == 0;
}

/* "iface" for af_xdp and af_packet, "pci" for pci, neither for the rest. */
static int parse_device(const cJSON *obj, struct port_conf *c, const char *what, char *msg,
			size_t len, const char **field)
{
	const char *iface = api_get_str(obj, API_F_IFACE, NULL);
	const char *pci = api_get_str(obj, API_F_PCI, NULL);
	bool wants_iface =
	    strcmp(c->type, API_PORT_AF_XDP) == 0 || strcmp(c->type, API_PORT_AF_PACKET) == 0;
	bool wants_pci = strcmp(c->type, API_PORT_PCI) == 0;

	if (wants_iface && iface == NULL) {
		snprintf(msg, len,
			 "%s: type %s needs \"iface\", the kernel interface it sends "
			 "and receives on (e.g. eth1)",
			 what, c->type);
		return fail(field, API_F_IFACE, API_ERR_INVALID_PARAMS);
	}
	if (!wants_iface && iface != NULL) {
		snprintf(msg, len,
			 "%s: \"iface\" applies to af_xdp and af_packet ports; leave it out "
			 "for type %s",
			 what, c->type);
		return fail(field, API_F_IFACE, API_ERR_INVALID_PARAMS);
	}
	if (iface != NULL) {
		if (validate_ifname(what, iface, msg, len) != 0)
			return fail(field, API_F_IFACE, API_ERR_INVALID_PARAMS);
		snprintf(c->iface, sizeof(c->iface), "%s", iface);
	}
	if (wants_pci && pci == NULL) {
		snprintf(msg, len,
			 "%s: a pci port needs \"pci\", the address of a device bound to "
			 "vfio-pci (e.g. 0000:01:10.2)",
			 what);
		return fail(field, API_F_PCI, API_ERR_INVALID_PARAMS);
	}
	if (!wants_pci && pci != NULL) {
		snprintf(msg, len, "%s: \"pci\" applies to pci ports; leave it out for type %s",
			 what, c->type);
		return fail(field, API_F_PCI, API_ERR_INVALID_PARAMS);
	}
	if (pci != NULL && validate_pci_addr(what, pci, c->pci, msg, len) != 0)
		return fail(field, API_F_PCI, API_ERR_INVALID_PARAMS);
	return 0;
}

int port_conf_parse(const cJSON *obj, const char *const known_types[], bool check_dirs,
		    struct port_conf *c, char *msg, size_t len, const char **field)
{
	const char *name = api_get_str(obj, API_F_NAME, "");
	const char *net = api_get_str(obj, API_F_NETWORK, "");
	const char *type = api_get_str(obj, API_F_TYPE, "");
	const char *sock = api_get_str(obj, API_F_SOCKET, NULL);
	const char *mode = api_get_str(obj, API_F_MODE, API_ROLE_SERVER);
	const char *mac = api_get_str(obj, API_F_MAC, NULL);
	const char *secret = api_get_str(obj, API_F_SECRET, NULL);
	long mtu = api_get_int(obj, API_F_MTU, API_MTU_DEFAULT);
	char what[96];
	int rc;

	memset(c, 0, sizeof(*c));
	/* Types and unknown fields first, so that the state file is held to
	 * exactly what the API accepts. */
	rc = api_check_params(API_M_PORT_CREATE, obj, msg, len, field);
	if (rc != 0)
		return rc;
	if (validate_name("port", name, msg, len) != 0)
		return fail(field, API_F_NAME, API_ERR_INVALID_PARAMS);
	snprintf(c->name, sizeof(c->name), "%s", name);
	snprintf(what, sizeof(what), "port \"%s\"", name);
	if (validate_name("network", net, msg, len) != 0)
		return fail(field, API_F_NETWORK, API_ERR_INVALID_PARAMS);
	snprintf(c->network, sizeof(c->network), "%s", net);
	if (parse_type(type, known_types, c, msg, len) != 0)
		return fail(field, API_F_TYPE, API_ERR_INVALID_PARAMS);

	if (strcmp(mode, API_ROLE_SERVER) == 0) {
		c->role = PORT_ROLE_SERVER;
	} else if (strcmp(mode, API_ROLE_CLIENT) == 0) {
		c->role = PORT_ROLE_CLIENT;
	} else {
		snprintf(msg, len,
			 "%s: mode \"%s\" is not valid; use \"server\" (podwired "
			 "creates the socket) or \"client\" (podwired connects to it)",
			 what, mode);
		return fail(field, API_F_MODE, API_ERR_INVALID_PARAMS);
	}

	if (type_has_socket(c->type)) {
		if (sock == NULL) {
			snprintf(msg, len,
				 "%s: type %s needs \"socket\", an absolute path of "
				 "at most %d bytes",
				 what, c->type, API_SOCKET_PATH_MAX);
			return fail(field, API_F_SOCKET, API_ERR_INVALID_PARAMS);
		}
		if (validate_socket_path_shape(what, sock, msg, len) != 0)
			return fail(field, API_F_SOCKET, API_ERR_INVALID_PARAMS);
		if (check_dirs) {
			rc =
			    validate_socket_path(what, sock, c->role == PORT_ROLE_SERVER, msg, len);
			if (rc == -ENOENT || rc == -EACCES || rc == -ENOTDIR)
				return fail(field, API_F_SOCKET, API_ERR_PATH);
			if (rc != 0)
				return fail(field, API_F_SOCKET, API_ERR_INVALID_PARAMS);
		}
		snprintf(c->socket, sizeof(c->socket), "%s", sock);
	} else if (sock != NULL) {
		snprintf(msg, len, "%s: type %s has no socket; leave \"socket\" out", what,
			 c->type);
		return fail(field, API_F_SOCKET, API_ERR_INVALID_PARAMS);
	} else if (api_get_str(obj, API_F_MODE, NULL) != NULL) {
		snprintf(msg, len,
			 "%s: \"mode\" applies to vhost-user and memif ports; leave it "
			 "out for type %s",
			 what, c->type);
		return fail(field, API_F_MODE, API_ERR_INVALID_PARAMS);
	}
	rc = parse_device(obj, c, what, msg, len, field);
	if (rc != 0)
		return rc;

	if (mac != NULL) {
		if (validate_mac(what, mac, c->mac, msg, len) != 0)
			return fail(field, API_F_MAC, API_ERR_INVALID_PARAMS);
	} else {
		if (getrandom(c->mac, sizeof(c->mac), 0) != sizeof(c->mac)) {
			snprintf(msg, len, "%s: cannot generate a MAC: %s", what, strerror(errno));
			return fail(field, API_F_MAC, API_ERR_INTERNAL);
		}
		c->mac[0] = (c->mac[0] & 0xfc) | 0x02; /* unicast, locally administered */
	}

	if (validate_mtu(what, mtu, msg, len) != 0)
		return fail(field, API_F_MTU, API_ERR_INVALID_PARAMS);
	c->mtu = (uint16_t)mtu;

	if (secret != NULL) {
		if (strcmp(c->type, API_PORT_MEMIF) != 0) {
			snprintf(msg, len,
				 "%s: \"secret\" applies to memif ports only; leave it "
				 "out for type %s",
				 what, c->type);
			return fail(field, API_F_SECRET, API_ERR_INVALID_PARAMS);
		}
		if (strlen(secret) == 0 || strlen(secret) > API_SECRET_MAX ||
		    strpbrk(secret, ",=") != NULL) {
			snprintf(msg, len,
				 "%s: memif secret must be 1-%d characters without ',' "
				 "or '='",
				 what, API_SECRET_MAX);
			return fail(field, API_F_SECRET, API_ERR_INVALID_PARAMS);
		}
		snprintf(c->secret, sizeof(c->secret), "%s", secret);
	}
	return 0;
}

cJSON *port_conf_to_json(const struct port_conf *c, bool with_secret)
{
	cJSON *o = cJSON_CreateObject();
	char mac[18];

	format_mac(c->mac, mac);
	cJSON_AddStringToObject(o, API_F_NAME, c->name);
	cJSON_AddStringToObject(o, API_F_NETWORK, c->network);
	cJSON_AddStringToObject(o, API_F_TYPE, c->type);
	if (c->socket[0] != '\0')
		cJSON_AddStringToObject(o, API_F_SOCKET, c->socket);
	if (c->socket[0] != '\0')
		cJSON_AddStringToObject(
		    o, API_F_MODE, c->role == PORT_ROLE_SERVER ? API_ROLE_SERVER : API_ROLE_CLIENT);
	if (c->iface[0] != '\0')
		cJSON_AddStringToObject(o, API_F_IFACE, c->iface);
	if (c->pci[0] != '\0')
		cJSON_AddStringToObject(o, API_F_PCI, c->pci);
	cJSON_AddStringToObject(o, API_F_MAC, mac);
	cJSON_AddNumberToObject(o, API_F_MTU, c->mtu);
	if (with_secret && c->secret[0] != '\0')
		cJSON_AddStringToObject(o, API_F_SECRET, c->secret);
	return o;
}

int state_file_write(const char *dir, const char *name, const cJSON *doc, char *msg, size_t len)
{
	char path[512], tmp[520];
	char *text = cJSON_Print(doc);
	size_t n, off = 0;
	int fd, dfd, rc;

	if (text == NULL) {
		snprintf(msg, len, "state: out of memory");
		return -ENOMEM;
	}
	snprintf(path, sizeof(path), "%s/%s", dir, name);
	snprintf(tmp, sizeof(tmp), "%s.tmp", path);
	fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	if (fd < 0)
		goto err;
	/* A temp file left by a crash may have another mode: secrets stay 0600. */
	if (fchmod(fd, 0600) != 0)
		goto err_close;
	n = strlen(text);
	while (off < n) {
		ssize_t w = write(fd, text + off, n - off);

		if (w < 0 && errno == EINTR)
			continue;
		if (w < 0)
			goto err_close;
		off += (size_t)w;
	}
	if (fsync(fd) != 0)
		goto err_close;
	close(fd);
	if (rename(tmp, path) != 0)
		goto err;
	dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dfd >= 0) {
		fsync(dfd);
		close(dfd);
	}
	free(text);
	return 0;
err_close:
	close(fd);
err:
	rc = -errno;
	snprintf(msg, len, "state: cannot write %s: %s; check that %s is writable", path,
		 strerror(errno), dir);
	unlink(tmp);
	free(text);
	return rc;
}

int json_file_read(const char *path, size_t max, cJSON **doc, char *msg, size_t len)
{
	const char *end = NULL;
	struct stat st;
	char *text;
	ssize_t r;
	int fd, rc;

	*doc = NULL;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		rc = -errno;
		snprintf(msg, len, "%s %s", path, rc == -ENOENT ? "does not exist" : strerror(-rc));
		return rc;
	}
	if (fstat(fd, &st) != 0 || S_ISDIR(st.st_mode)) {
		snprintf(msg, len, "%s is a directory", path);
		close(fd);
		return -EISDIR;
	}
	if (!S_ISREG(st.st_mode) || (size_t)st.st_size > max) {
		snprintf(msg, len, "%s is not a regular file of at most %zu MiB", path, max >> 20);
		close(fd);
		return -EFBIG;
	}
	text = calloc(1, (size_t)st.st_size + 1);
	r = text ? read(fd, text, (size_t)st.st_size) : -1;
	close(fd);
	if (r != st.st_size) {
		snprintf(msg, len, "cannot read %s", path);
		free(text);
		return -EIO;
	}
	/* Trailing bytes after the document mean a damaged file. */
	*doc = cJSON_ParseWithLengthOpts(text, (size_t)st.st_size, &end, false);
	while (*doc != NULL && end < text + st.st_size && isspace((unsigned char)*end))
		end++;
	if (*doc != NULL && end != text + st.st_size) {
		cJSON_Delete(*doc);
		*doc = NULL;
	}
	if (*doc == NULL) {
		const char *err = cJSON_GetErrorPtr();
		long at = end != NULL						   ? end - text
			  : err != NULL && err >= text && err <= text + st.st_size ? err - text
										   : 0;

		snprintf(msg, len, "%s is not valid JSON (near byte %ld)", path, at);
		free(text);
		return -EBADMSG;
	}
	free(text);
	return 0;
}

int state_file_read(const char *dir, const char *name, cJSON **doc, char *msg, size_t len)
{
	char path[512], why[768];
	int rc;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	rc = json_file_read(path, 64 << 20, doc, why, sizeof(why));
	if (rc != 0 && rc != -ENOENT)
		snprintf(msg, len, "state: %s%s", why,
			 rc == -EBADMSG ? "; move it aside to start empty" : "");
	return rc;
}
