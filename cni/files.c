/* SPDX-License-Identifier: BSD-3-Clause */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "files.h"

int file_read(const char *path, size_t max, char **buf, size_t *len)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	size_t cap = 4096, n = 0;
	char *b;

	*buf = NULL;
	*len = 0;
	if (fd < 0)
		return -errno;
	b = malloc(cap + 1);
	for (;;) {
		ssize_t r;

		if (b == NULL) {
			close(fd);
			return -ENOMEM;
		}
		if (n == cap) {
			char *nb;

			if (cap >= max) {
				free(b);
				close(fd);
				return -EFBIG;
			}
			cap *= 2;
			nb = realloc(b, cap + 1);
			if (nb == NULL)
				free(b);
			b = nb;
			continue;
		}
		r = read(fd, b + n, cap - n);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			int e = errno;

			free(b);
			close(fd);
			return -e;
		}
		if (r == 0)
			break;
		n += (size_t)r;
	}
	close(fd);
	if (n > max) {
		free(b);
		return -EFBIG;
	}
	b[n] = '\0';
	*buf = b;
	*len = n;
	return 0;
}

int file_read_json(const char *path, cJSON **doc)
{
	char *buf;
	size_t len;
	int rc = file_read(path, 1 << 20, &buf, &len);

	*doc = NULL;
	if (rc != 0)
		return rc;
	*doc = cJSON_ParseWithLength(buf, len);
	free(buf);
	return *doc != NULL ? 0 : -EINVAL;
}

int file_write_json(const char *path, const cJSON *doc, mode_t mode, gid_t gid,
		    struct cni_error *err)
{
	char tmp[PATH_MAX];
	char *text = cJSON_Print(doc);
	size_t len, off = 0;
	int fd, e;

	if (text == NULL)
		return cni_fail(err, PW_ERR_FILES, "cannot write %s: out of memory", path);
	if ((size_t)snprintf(tmp, sizeof(tmp), "%s.tmp.%d", path, (int)getpid()) >= sizeof(tmp)) {
		free(text);
		return cni_fail(err, PW_ERR_FILES, "cannot write %s: the path is too long", path);
	}
	fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, mode);
	if (fd < 0)
		goto fail;
	len = strlen(text);
	text[len++] = '\n'; /* replaces the NUL; len counts it */
	while (off < len) {
		ssize_t w = write(fd, text + off, len - off);

		if (w < 0 && errno == EINTR)
			continue;
		if (w < 0)
			goto fail;
		off += (size_t)w;
	}
	/* open() applied the umask; the mode asked for is the one wanted. */
	if (fchmod(fd, mode) != 0 || (gid != (gid_t)-1 && fchown(fd, (uid_t)-1, gid) != 0))
		goto fail;
	if (close(fd) != 0) {
		fd = -1;
		goto fail;
	}
	fd = -1;
	if (rename(tmp, path) != 0)
		goto fail;
	free(text);
	return 0;
fail:
	e = errno;
	if (fd >= 0)
		close(fd);
	unlink(tmp);
	free(text);
	return cni_fail(err, PW_ERR_FILES,
			"cannot write %s: %s; check that its directory is "
			"writable by root and the filesystem has space",
			path, strerror(e));
}

int mkdir_parents(const char *path, mode_t mode)
{
	char buf[PATH_MAX];
	size_t n = strlen(path);

	if (n == 0 || n >= sizeof(buf))
		return -ENAMETOOLONG;
	memcpy(buf, path, n + 1);
	for (char *p = buf + 1;; p++) {
		if (*p == '/' || *p == '\0') {
			char c = *p;

			*p = '\0';
			if (mkdir(buf, mode) != 0 && errno != EEXIST)
				return -errno;
			*p = c;
			if (c == '\0')
				break;
		}
	}
	return 0;
}
