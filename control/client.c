/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Blocking JSON-RPC client for podwired: one request line out, one response
 * line back. The socket is used with MSG_DONTWAIT behind poll() so a single
 * deadline bounds the whole call, including a daemon that stops reading.
 */
#include <errno.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "api.h"
#include "client.h"

static int handshake(struct pw_client *c, struct pw_error *err);

struct pw_client {
	int fd; /* -1 once the stream is out of sync and unusable */
	int timeout_ms;
	int next_id;
	char path[sizeof(((struct sockaddr_un *)0)->sun_path)];
	char *buf; /* bytes received and not yet consumed */
	size_t len;
	size_t cap;
};

static void set_error(struct pw_error *err, int code, const char *field, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

static void set_error(struct pw_error *err, int code, const char *field, const char *fmt, ...)
{
	va_list ap;

	if (err == NULL)
		return;
	err->code = code;
	snprintf(err->field, sizeof(err->field), "%s", field ? field : "");
	va_start(ap, fmt);
	vsnprintf(err->message, sizeof(err->message), fmt, ap);
	va_end(ap);
}

static const char *connect_hint(int e)
{
	switch (e) {
	case ENOENT:
	case ECONNREFUSED:
		return "; is podwired running? (start it, or pass --socket PATH)";
	case EACCES:
	case EPERM:
		return "; run as root, or as a member of the socket's group (podwired "
		       "--socket-group GROUP)";
	case ENOTSOCK:
		return "; the path is not a socket (pass --socket PATH)";
	default:
		return "";
	}
}

static long long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* Waits for events until the deadline (-1: none). Returns 1 when ready,
 * 0 on timeout, or -errno. */
static int wait_fd(int fd, short events, long long deadline)
{
	struct pollfd pfd = {.fd = fd, .events = events};
	int timeout, n;

	for (;;) {
		timeout = -1;
		if (deadline >= 0) {
			long long left = deadline - now_ms();

			if (left <= 0)
				return 0;
			timeout = left > 0x7fffffff ? 0x7fffffff : (int)left;
		}
		n = poll(&pfd, 1, timeout);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		if (n == 0)
			return 0;
		/* Let send/recv report POLLERR/POLLHUP with a precise errno. */
		return 1;
	}
}

struct pw_client *pw_client_connect(const char *path, int timeout_ms, struct pw_error *err)
{
	struct sockaddr_un sa = {.sun_family = AF_UNIX};
	struct pw_client *c;
	size_t plen;
	int fd, e;

	if (path == NULL || path[0] == '\0') {
		set_error(err, 0, NULL, "no podwired socket path given; pass --socket PATH");
		return NULL;
	}
	plen = strlen(path);
	if (plen > API_SOCKET_PATH_MAX) {
		set_error(
		    err, 0, NULL,
		    "podwired socket path %s is %zu bytes, the limit is %d; use a shorter path",
		    path, plen, API_SOCKET_PATH_MAX);
		return NULL;
	}
	memcpy(sa.sun_path, path, plen + 1);

	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0) {
		set_error(err, 0, NULL, "cannot create a unix socket: %s", strerror(errno));
		return NULL;
	}
	if (connect(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0) {
		e = errno;
		/* An interrupted connect completes in the background; wait for it. */
		if (e == EINTR) {
			socklen_t sl = sizeof(e);

			e = 0;
			if (wait_fd(fd, POLLOUT, -1) < 0 ||
			    getsockopt(fd, SOL_SOCKET, SO_ERROR, &e, &sl) < 0)
				e = errno;
		}
		if (e != 0) {
			set_error(err, 0, NULL, "cannot connect to podwired at %s: %s%s", path,
				  strerror(e), connect_hint(e));
			close(fd);
			return NULL;
		}
	}

	c = calloc(1, sizeof(*c));
	if (c == NULL) {
		set_error(err, 0, NULL, "cannot connect to podwired at %s: out of memory", path);
		close(fd);
		return NULL;
	}
	c->fd = fd;
	c->timeout_ms = timeout_ms > 0 ? timeout_ms : 0;
	c->next_id = 1;
	memcpy(c->path, path, plen + 1);
	if (handshake(c, err) != 0) {
		pw_client_close(c);
		return NULL;
	}
	return c;
}

void pw_client_close(struct pw_client *c)
{
	if (c == NULL)
		return;
	if (c->fd >= 0)
		close(c->fd);
	free(c->buf);
	free(c);
}

/* After a timeout or a short read the next line may belong to the previous
 * request, so the connection is dropped instead of risking a mismatch. */
static void client_break(struct pw_client *c)
{
	if (c->fd >= 0)
		close(c->fd);
	c->fd = -1;
	c->len = 0;
}

static int send_all(struct pw_client *c, const char *method, const char *data, size_t len,
		    long long deadline, struct pw_error *err)
{
	while (len > 0) {
		ssize_t n = send(c->fd, data, len, MSG_NOSIGNAL | MSG_DONTWAIT);

		if (n >= 0) {
			data += n;
			len -= (size_t)n;
			continue;
		}
		if (errno == EINTR)
			continue;
		if (errno == EAGAIN || errno == EWOULDBLOCK) {
			int r = wait_fd(c->fd, POLLOUT, deadline);

			if (r > 0)
				continue;
			if (r == 0)
				set_error(err, 0, NULL,
					  "podwired at %s did not accept %s within %d ms; is it "
					  "stuck? (check its log, or raise --timeout)",
					  c->path, method, c->timeout_ms);
			else
				set_error(err, 0, NULL, "cannot send %s to podwired at %s: %s",
					  method, c->path, strerror(-r));
			return -1;
		}
		set_error(err, 0, NULL, "cannot send %s to podwired at %s: %s%s", method, c->path,
			  strerror(errno),
			  errno == EPIPE ? "; podwired closed the connection, check its log" : "");
		return -1;
	}
	return 0;
}

/* Reads until a newline. Returns the line length (newline excluded, the
 * newline replaced by NUL) or -1. */
static ssize_t recv_line(struct pw_client *c, const char *method, long long deadline,
			 struct pw_error *err)
{
	size_t scanned = 0;

	for (;;) {
		/* (memchr of nothing is not done: c->buf may still be NULL.) */
		char *nl =
		    c->len > scanned ? memchr(c->buf + scanned, '\n', c->len - scanned) : NULL;
		ssize_t n;

		if (nl != NULL) {
			*nl = '\0';
			return nl - c->buf;
		}
		scanned = c->len;
		if (c->len >= API_MAX_LINE) {
			set_error(err, 0, NULL,
				  "podwired at %s answered %s with a line longer than %d bytes; "
				  "check that %s is a podwired socket",
				  c->path, method, API_MAX_LINE, c->path);
			return -1;
		}
		if (c->cap - c->len < 4096 && c->cap < API_MAX_LINE) {
			size_t cap = c->cap ? c->cap * 2 : 16384;
			char *b;

			if (cap > API_MAX_LINE)
				cap = API_MAX_LINE;
			b = realloc(c->buf, cap);
			if (b == NULL) {
				set_error(err, 0, NULL, "reading the answer to %s: out of memory",
					  method);
				return -1;
			}
			c->buf = b;
			c->cap = cap;
		}
		n = recv(c->fd, c->buf + c->len, c->cap - c->len, MSG_DONTWAIT);
		if (n > 0) {
			c->len += (size_t)n;
			continue;
		}
		if (n == 0) {
			set_error(err, 0, NULL,
				  "podwired at %s closed the connection before answering %s; check "
				  "its log",
				  c->path, method);
			return -1;
		}
		if (errno == EINTR)
			continue;
		if (errno == EAGAIN || errno == EWOULDBLOCK) {
			int r = wait_fd(c->fd, POLLIN, deadline);

			if (r > 0)
				continue;
			if (r == 0)
				set_error(err, 0, NULL,
					  "podwired at %s did not answer %s within %d ms; is it "
					  "stuck? (check its log, or raise --timeout)",
					  c->path, method, c->timeout_ms);
			else
				set_error(err, 0, NULL, "waiting for podwired at %s: %s", c->path,
					  strerror(-r));
			return -1;
		}
		set_error(err, 0, NULL, "cannot read the answer to %s from podwired at %s: %s",
			  method, c->path, strerror(errno));
		return -1;
	}
}

/* Turns a parsed response into a result or an error. Returns 0 or -1. */
static int parse_response(struct pw_client *c, const char *method, cJSON *resp, int id,
			  cJSON **result, struct pw_error *err)
{
	const cJSON *rid = cJSON_GetObjectItemCaseSensitive(resp, "id");
	const cJSON *e = cJSON_GetObjectItemCaseSensitive(resp, "error");

	if (!cJSON_IsObject(resp)) {
		set_error(err, 0, NULL,
			  "podwired at %s answered %s with something other than a JSON object",
			  c->path, method);
		return -1;
	}
	/* A request the daemon could not parse is answered with a null id. */
	if (!(cJSON_IsNumber(rid) && rid->valuedouble == id) &&
	    !(cJSON_IsNull(rid) && cJSON_IsObject(e))) {
		set_error(err, 0, NULL,
			  "podwired at %s answered %s with the wrong id; is another client sharing "
			  "the connection?",
			  c->path, method);
		client_break(c);
		return -1;
	}
	if (cJSON_IsObject(e)) {
		const cJSON *data = cJSON_GetObjectItemCaseSensitive(e, "data");
		const char *msg = api_get_str(e, "message", NULL);
		long code = api_get_int(e, "code", API_ERR_INTERNAL);

		/* Code 0 means a transport error to callers; keep them apart. */
		if (code == 0)
			code = API_ERR_INTERNAL;
		set_error(err, (int)code, api_get_str(data, "field", NULL), "%s",
			  msg ? msg : "podwired reported an error without a message");
		return -1;
	}
	*result = cJSON_DetachItemFromObjectCaseSensitive(resp, "result");
	if (*result == NULL) {
		set_error(err, 0, NULL,
			  "podwired at %s answered %s with neither \"result\" nor \"error\"",
			  c->path, method);
		return -1;
	}
	return 0;
}

int pw_client_call(struct pw_client *c, const char *method, cJSON *params, cJSON **result,
		   struct pw_error *err)
{
	long long deadline = -1;
	cJSON *req, *resp;
	char *text, *line_out;
	size_t len;
	ssize_t line;
	int id, ret;

	*result = NULL;
	if (c == NULL || method == NULL) {
		cJSON_Delete(params);
		set_error(err, 0, NULL, "no connection to podwired; connect first");
		return -1;
	}
	if (c->fd < 0) {
		cJSON_Delete(params);
		set_error(err, 0, NULL,
			  "the connection to podwired at %s failed earlier; reconnect", c->path);
		return -1;
	}
	if (c->timeout_ms > 0)
		deadline = now_ms() + c->timeout_ms;

	id = c->next_id++;
	if (c->next_id <= 0)
		c->next_id = 1;
	req = api_request_new(id, method, params);
	text = cJSON_PrintUnformatted(req);
	cJSON_Delete(req);
	if (text == NULL) {
		set_error(err, 0, NULL, "cannot encode the %s request: out of memory", method);
		return -1;
	}
	/* cJSON escapes control characters, so the only newline is ours. */
	len = strlen(text);
	if (len + 1 > API_MAX_LINE) {
		set_error(
		    err, 0, NULL,
		    "the %s request is %zu bytes, the limit is %d; send fewer or shorter values",
		    method, len + 1, API_MAX_LINE);
		free(text);
		return -1;
	}
	line_out = realloc(text, len + 2);
	if (line_out == NULL) {
		set_error(err, 0, NULL, "cannot encode the %s request: out of memory", method);
		free(text);
		return -1;
	}
	line_out[len] = '\n';
	ret = send_all(c, method, line_out, len + 1, deadline, err);
	free(line_out);
	if (ret < 0) {
		client_break(c);
		return -1;
	}

	line = recv_line(c, method, deadline, err);
	if (line < 0) {
		client_break(c);
		return -1;
	}
	resp = cJSON_ParseWithLength(c->buf, (size_t)line);
	/* Keep whatever followed the line for the next call. */
	c->len -= (size_t)line + 1;
	memmove(c->buf, c->buf + line + 1, c->len);
	if (resp == NULL) {
		set_error(err, 0, NULL,
			  "podwired at %s answered %s with invalid JSON; check that %s is a "
			  "podwired socket",
			  c->path, method, c->path);
		client_break(c);
		return -1;
	}
	ret = parse_response(c, method, resp, id, result, err);
	cJSON_Delete(resp);
	return ret;
}

int pw_client_take_stream(struct pw_client *c, char **rest, size_t *len)
{
	int fd = c->fd;

	*rest = c->len != 0 ? c->buf : NULL;
	*len = c->len;
	if (*rest == NULL)
		free(c->buf);
	free(c);
	return fd;
}

/* A daemon of a newer major API version may give fields other meanings:
 * refuse it, saying what to upgrade. One without api_version is 1.0. */
static int handshake(struct pw_client *c, struct pw_error *err)
{
	cJSON *info = NULL;
	const char *v;
	int major = 1, minor = 0;

	if (pw_client_call(c, API_NAME(SYSTEM_INFO), NULL, &info, err) != 0)
		return -1;
	v = api_get_str(info, API_R_API_VERSION, NULL);
	if (v != NULL && api_version_parse(v, &major, &minor) != 0)
		major = -1;
	if (major < 0 || major > API_VERSION_MAJOR) {
		set_error(err, API_ERR_VERSION, API_R_API_VERSION,
			  "podwired at %s (podwire %s) speaks API version %s; this client (podwire "
			  "%s) understands %d.x only: upgrade the client to podwire %s",
			  c->path, api_get_str(info, API_R_VERSION, "?"), v, PODWIRE_VERSION,
			  API_VERSION_MAJOR, api_get_str(info, API_R_VERSION, "?"));
		cJSON_Delete(info);
		return -1;
	}
	cJSON_Delete(info);
	return 0;
}
