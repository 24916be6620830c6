/* SPDX-License-Identifier: BSD-3-Clause */
#include <ctype.h>
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "api.h"
#include "validate.h"

int validate_name(const char *what, const char *name, char *msg, size_t len)
{
	size_t n = name ? strlen(name) : 0;

	if (n == 0) {
		snprintf(msg, len, "%s name is empty; give 1-%d characters of [A-Za-z0-9._-]", what,
			 API_NAME_MAX);
		return -EINVAL;
	}
	if (n > API_NAME_MAX) {
		snprintf(msg, len, "%s name \"%.20s...\" is %zu bytes, the limit is %d", what, name,
			 n, API_NAME_MAX);
		return -EINVAL;
	}
	for (size_t i = 0; i < n; i++) {
		char c = name[i];
		int ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
			 (c >= '0' && c <= '9') || c == '.' || c == '_' || c == '-';

		if (!ok) {
			snprintf(msg, len,
				 "%s name \"%s\" has character '%c' at offset %zu; "
				 "use only [A-Za-z0-9._-]",
				 what, name, c, i);
			return -EINVAL;
		}
	}
	if (name[0] == '-' || name[0] == '.' || name[0] == '_') {
		snprintf(msg, len, "%s name \"%s\" starts with '%c'; start with a letter or digit",
			 what, name, name[0]);
		return -EINVAL;
	}
	return 0;
}

static int hexval(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

int validate_mac(const char *obj, const char *text, uint8_t mac[6], char *msg, size_t len)
{
	const char *p = text;
	int zero = 1;

	for (int i = 0; i < 6; i++) {
		int hi = hexval(p[0]), lo = hi < 0 ? -1 : hexval(p[1]);

		if (hi < 0 || lo < 0 || (i < 5 && p[2] != ':' && p[2] != '-') ||
		    (i == 5 && p[2] != '\0'))
			goto bad;
		mac[i] = (uint8_t)(hi << 4 | lo);
		zero &= mac[i] == 0;
		p += 3;
	}
	if (mac[0] & 1) {
		snprintf(msg, len,
			 "%s: MAC \"%s\" is a multicast address; use a unicast one "
			 "(first byte even, e.g. 02:...)",
			 obj, text);
		return -EINVAL;
	}
	if (zero) {
		snprintf(msg, len,
			 "%s: MAC 00:00:00:00:00:00 is not usable; give a unicast "
			 "MAC or leave it out to have one generated",
			 obj);
		return -EINVAL;
	}
	return 0;
bad:
	snprintf(msg, len, "%s: MAC \"%s\" is not of the form aa:bb:cc:dd:ee:ff", obj, text);
	return -EINVAL;
}

int validate_socket_path_shape(const char *obj, const char *path, char *msg, size_t len)
{
	size_t n = strlen(path);

	if (path[0] != '/') {
		snprintf(msg, len, "%s: socket path \"%s\" is relative; give an absolute path", obj,
			 path);
		return -EINVAL;
	}
	if (n > API_SOCKET_PATH_MAX) {
		snprintf(msg, len,
			 "%s: socket path is %zu bytes, the limit is %d; "
			 "use a shorter directory or name",
			 obj, n, API_SOCKET_PATH_MAX);
		return -EINVAL;
	}
	if (strstr(path, "/../") != NULL || (n >= 3 && strcmp(path + n - 3, "/..") == 0)) {
		snprintf(msg, len, "%s: socket path \"%s\" contains \"..\"; give a plain path", obj,
			 path);
		return -EINVAL;
	}
	if (path[n - 1] == '/') {
		snprintf(msg, len, "%s: socket path \"%s\" names a directory; add a file name", obj,
			 path);
		return -EINVAL;
	}
	return 0;
}

int validate_socket_path(const char *obj, const char *path, int need_write, char *msg, size_t len)
{
	char dir[4096];
	struct stat st;
	char *slash;
	int rc = validate_socket_path_shape(obj, path, msg, len);

	if (rc != 0)
		return rc;
	snprintf(dir, sizeof(dir), "%s", path);
	slash = strrchr(dir, '/');
	if (slash == dir)
		slash[1] = '\0';
	else
		*slash = '\0';
	if (stat(dir, &st) != 0) {
		snprintf(msg, len, "%s: socket directory %s does not exist; create it first", obj,
			 dir);
		return -ENOENT;
	}
	if (!S_ISDIR(st.st_mode)) {
		snprintf(msg, len,
			 "%s: %s is not a directory, so it cannot hold the socket; "
			 "pick another path",
			 obj, dir);
		return -ENOTDIR;
	}
	if (need_write && access(dir, W_OK | X_OK) != 0) {
		snprintf(msg, len,
			 "%s: socket directory %s is not writable by podwired; "
			 "fix its permissions",
			 obj, dir);
		return -EACCES;
	}
	if (stat(path, &st) == 0 && !S_ISSOCK(st.st_mode)) {
		snprintf(msg, len,
			 "%s: %s exists and is not a socket; remove it or pick "
			 "another path",
			 obj, path);
		return -EEXIST;
	}
	return 0;
}

int validate_vlan(const char *obj, long vlan, char *msg, size_t len)
{
	if (vlan < 0 || vlan > API_VLAN_MAX) {
		snprintf(msg, len, "%s: VLAN id %ld is out of range; give 1-%d, or 0 for none", obj,
			 vlan, API_VLAN_MAX);
		return -EINVAL;
	}
	return 0;
}

void format_mac(const uint8_t mac[6], char *buf)
{
	snprintf(buf, 18, "%02x:%02x:%02x:%02x:%02x:%02x", mac[0], mac[1], mac[2], mac[3], mac[4],
		 mac[5]);
}

int validate_ifname(const char *obj, const char *name, char *msg, size_t len)
{
	size_t n = strlen(name);

	if (n == 0 || n > API_IFNAME_MAX || strcmp(name, ".") == 0 || strcmp(name, "..") == 0 ||
	    strpbrk(name, "/: \t\n") != NULL) {
		snprintf(msg, len,
			 "%s: interface name \"%s\" is not valid; give 1-%d characters "
			 "without '/', ':' or spaces, as \"ip link\" shows it",
			 obj, name, API_IFNAME_MAX);
		return -EINVAL;
	}
	return 0;
}

int validate_pci_addr(const char *obj, const char *text, char *out, char *msg, size_t len)
{
	unsigned int dom = 0, bus, dev, fn;
	char tail;

	bool full = strlen(text) == 12;

	if (!full)
		dom = 0;
	if ((full && sscanf(text, "%4x:%2x:%2x.%1x%c", &dom, &bus, &dev, &fn, &tail) == 4) ||
	    (strlen(text) == 7 && sscanf(text, "%2x:%2x.%1x%c", &bus, &dev, &fn, &tail) == 3)) {
		if (dev <= 0x1f && fn <= 7 &&
		    strspn(text, "0123456789abcdefABCDEF:.") == strlen(text)) {
			snprintf(out, 13, "%04x:%02x:%02x.%x", dom, bus, dev, fn);
			return 0;
		}
	}
	snprintf(msg, len,
		 "%s: PCI address \"%s\" is not valid; give domain:bus:device.function "
		 "such as 0000:01:10.2 (see \"lspci -D\")",
		 obj, text);
	return -EINVAL;
}

int validate_si_number(const char *obj, const char *what, const char *text, long *out, char *msg,
		       size_t len)
{
	long mult = 1, v;
	char *end;

	errno = 0;
	v = strtol(text, &end, 10);
	if (end == text || isspace((unsigned char)text[0]) || text[0] == '+') {
		snprintf(msg, len, "%s: %s \"%s\" is not a number; give e.g. 10000 or 100m", obj,
			 what, text);
		return -EINVAL;
	}
	switch (*end) {
	case 'k':
	case 'K':
		mult = 1000;
		end++;
		break;
	case 'm':
	case 'M':
		mult = 1000000;
		end++;
		break;
	case 'g':
	case 'G':
		mult = 1000000000;
		end++;
		break;
	default:
		break;
	}
	if (*end != '\0') {
		snprintf(msg, len,
			 "%s: %s \"%s\" is not a number; give digits with an optional k, m or g "
			 "(thousands, millions, billions), e.g. 100m",
			 obj, what, text);
		return -EINVAL;
	}
	if (errno == ERANGE || __builtin_mul_overflow(v, mult, out)) {
		snprintf(msg, len, "%s: %s \"%s\" is out of range", obj, what, text);
		return -EINVAL;
	}
	return 0;
}

int validate_rate_spec(const char *obj, const char *spec, long *pps, long *bps, long *burst,
		       char *msg, size_t len)
{
	char buf[128], *save = NULL, *tok;

	*pps = *bps = *burst = -1;
	if (strlen(spec) >= sizeof(buf) || spec[0] == '\0') {
		snprintf(msg, len,
			 "%s: rate \"%.64s\" is not pps=N[,burst=N] or bps=N[,burst=N]; e.g. "
			 "pps=10000,burst=100 or bps=100m",
			 obj, spec);
		return -EINVAL;
	}
	snprintf(buf, sizeof(buf), "%s", spec);
	for (tok = strtok_r(buf, ",", &save); tok != NULL; tok = strtok_r(NULL, ",", &save)) {
		char *eq = strchr(tok, '=');
		long *dst;

		if (eq == NULL) {
			snprintf(msg, len,
				 "%s: rate \"%s\": \"%s\" is not KEY=VALUE; use pps=N or bps=N, "
				 "and burst=N",
				 obj, spec, tok);
			return -EINVAL;
		}
		*eq = '\0';
		if (strcmp(tok, "pps") == 0) {
			dst = pps;
		} else if (strcmp(tok, "bps") == 0) {
			dst = bps;
		} else if (strcmp(tok, "burst") == 0) {
			dst = burst;
		} else {
			snprintf(
			    msg, len,
			    "%s: rate \"%s\": unknown key \"%s\"; the keys are pps (frames/s), "
			    "bps (bits/s) and burst (frames or bytes)",
			    obj, spec, tok);
			return -EINVAL;
		}
		if (*dst != -1) {
			snprintf(msg, len, "%s: rate \"%s\" gives %s twice; give it once", obj,
				 spec, tok);
			return -EINVAL;
		}
		if (validate_si_number(obj, tok, eq + 1, dst, msg, len) != 0)
			return -EINVAL;
		if (*dst < 0) {
			snprintf(msg, len, "%s: rate \"%s\": %s is %ld; give 0 or more", obj, spec,
				 tok, *dst);
			return -EINVAL;
		}
	}
	return 0;
}
