/* SPDX-License-Identifier: BSD-3-Clause */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <limits.h>
#include <stdbool.h>
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

			if (cap > max) {
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

int json_file_read(const char *path, size_t max, cJSON **doc, char *msg, size_t len)
{
	const char *end = NULL;
	struct stat st;
	size_t n;
	char *text;
	int rc;

	*doc = NULL;
	if (stat(path, &st) == 0 && S_ISDIR(st.st_mode)) {
		snprintf(msg, len, "%s is a directory", path);
		return -EISDIR;
	}
	if (stat(path, &st) == 0 && !S_ISREG(st.st_mode)) {
		snprintf(msg, len, "%s is not a regular file", path);
		return -EFBIG;
	}
	rc = file_read(path, max, &text, &n);
	if (rc == -EFBIG) {
		snprintf(msg, len, "%s is larger than %zu KiB", path, max >> 10);
		return rc;
	}
	if (rc != 0) {
		snprintf(msg, len, "%s %s", path, rc == -ENOENT ? "does not exist" : strerror(-rc));
		return rc == -ENOENT ? rc : rc == -EACCES ? rc : -EIO;
	}
	/* Trailing bytes after the document mean a damaged file. */
	*doc = cJSON_ParseWithLengthOpts(text, n, &end, false);
	while (*doc != NULL && end < text + n && isspace((unsigned char)*end))
		end++;
	if (*doc != NULL && end != text + n) {
		cJSON_Delete(*doc);
		*doc = NULL;
	}
	if (*doc == NULL) {
		const char *err = cJSON_GetErrorPtr();
		long at = end != NULL					  ? end - text
			  : err != NULL && err >= text && err <= text + n ? err - text
									  : 0;

		snprintf(msg, len, "%s is not valid JSON (near byte %ld)", path, at);
		free(text);
		return -EBADMSG;
	}
	free(text);
	return 0;
}

int file_read_json(const char *path, cJSON **doc)
{
	char msg[PATH_MAX + 64];

	return json_file_read(path, 1 << 20, doc, msg, sizeof(msg));
}

static int write_all(int fd, const char *text, size_t n)
{
	size_t off = 0;

	while (off < n) {
		ssize_t w = write(fd, text + off, n - off);

		if (w < 0 && errno == EINTR)
			continue;
		if (w < 0)
			return -errno;
		off += (size_t)w;
	}
	return 0;
}

static void fsync_dir_of(const char *path)
{
	char buf[PATH_MAX];
	int dfd;

	snprintf(buf, sizeof(buf), "%s", path);
	dfd = open(dirname(buf), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dfd >= 0) {
		fsync(dfd);
		close(dfd);
	}
}

/* Writes through tmp, which must be in path's directory. */
static int write_via(const char *path, const char *tmp, const cJSON *doc, mode_t mode, gid_t gid,
		     char *msg, size_t len)
{
	char *text = cJSON_Print(doc);
	int fd = -1, rc;
	size_t n;

	if (text == NULL) {
		snprintf(msg, len, "cannot write %s: out of memory", path);
		return -ENOMEM;
	}
	/* tmp is created here, never an existing file opened: a symlink
	 * planted at tmp (the directory may be shared, with a pod for
	 * podwire.json) is not followed, and a file there is not written
	 * through. What a crash left at tmp is removed (a symlink itself,
	 * not what it points to) and tmp made anew; anything still there
	 * after that is an error. */
	fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, mode);
	if (fd < 0 && errno == EEXIST && unlink(tmp) == 0)
		fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, mode);
	if (fd < 0 && (errno == EEXIST || errno == EISDIR)) {
		rc = -errno;
		snprintf(msg, len,
			 "cannot write %s: its temporary file %s cannot be made (%s); remove what "
			 "is there",
			 path, tmp, strerror(-rc));
		free(text);
		return rc;
	}
	if (fd < 0) {
		rc = -errno;
		goto fail;
	}
	n = strlen(text);
	text[n++] = '\n'; /* replaces the NUL; n counts it */
	rc = write_all(fd, text, n);
	/* open() applied the umask, and a file left by a crash may have
	 * another mode: the mode asked for is the one wanted (secrets 0600). */
	if (rc == 0 && (fchmod(fd, mode) != 0 ||
			(gid != (gid_t)-1 && fchown(fd, (uid_t)-1, gid) != 0) || fsync(fd) != 0))
		rc = -errno;
	if (close(fd) != 0 && rc == 0)
		rc = -errno;
	fd = -1;
	if (rc == 0 && rename(tmp, path) != 0)
		rc = -errno;
	if (rc != 0)
		goto fail;
	fsync_dir_of(path);
	free(text);
	return 0;
fail:
	if (fd >= 0)
		close(fd);
	unlink(tmp);
	free(text);
	snprintf(msg, len,
		 "cannot write %s: %s; check that its directory is writable and the filesystem "
		 "has space",
		 path, strerror(-rc));
	return rc;
}

int json_file_write(const char *path, const cJSON *doc, mode_t mode, gid_t gid, char *msg,
		    size_t len)
{
	char tmp[PATH_MAX];

	/* The pid keeps concurrent writers (CNI invocations) apart. */
	if ((size_t)snprintf(tmp, sizeof(tmp), "%s.tmp.%d", path, (int)getpid()) >= sizeof(tmp)) {
		snprintf(msg, len, "cannot write %s: the path is too long", path);
		return -ENAMETOOLONG;
	}
	return write_via(path, tmp, doc, mode, gid, msg, len);
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

int state_file_write(const char *dir, const char *name, const cJSON *doc, char *msg, size_t len)
{
	char path[PATH_MAX], tmp[PATH_MAX + 8], why[PATH_MAX + 256];
	int rc;

	/* One writer per state dir (podwired's instance lock): a fixed temp
	 * name, so a crash leaves at most one behind, replaced next time. */
	snprintf(path, sizeof(path), "%s/%s", dir, name);
	snprintf(tmp, sizeof(tmp), "%s.tmp", path);
	rc = write_via(path, tmp, doc, 0600, (gid_t)-1, why, sizeof(why));
	if (rc != 0)
		snprintf(msg, len, "state: %s", why);
	return rc;
}

int state_file_read(const char *dir, const char *name, cJSON **doc, char *msg, size_t len)
{
	char path[PATH_MAX], why[PATH_MAX + 256];
	int rc;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	rc = json_file_read(path, 64 << 20, doc, why, sizeof(why));
	if (rc != 0 && rc != -ENOENT)
		snprintf(msg, len, "state: %s%s", why,
			 rc == -EBADMSG ? "; move it aside to start empty" : "");
	return rc;
}
