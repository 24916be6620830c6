/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Line-delimited JSON-RPC over a unix socket, non-blocking, many clients.
 * A bad request gets an error answer and affects nobody else; a line over
 * 1 MiB, a request ended by a hang-up instead of a newline, or one left
 * unfinished for 10 s is answered once with an error and the client is
 * disconnected; a request is run only once its line is whole, so a client
 * that goes away mid-request changes nothing.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/queue.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "api/registry.h"
#include "api/server.h"
#include "core/log.h"
#include "core/loop.h"

PW_LOG_TYPE("api");

/* A request begun and not ended by a newline within this long is refused. */
#define PARTIAL_TIMEOUT_MS 10000

struct client {
	int fd;
	struct loop_watch *watch;
	char *in;
	size_t in_len, in_cap;
	char *out;
	size_t out_len, out_off;
	bool closing;
	uint64_t last_ms;	  /* last byte in or out */
	uint64_t partial_since;	  /* when the unfinished request in `in` began */
	api_takeover_fn takeover; /* set by the handler being run */
	void *takeover_arg;
	TAILQ_ENTRY(client) next; /* in srv.clients */
};

/* The client whose request is being handled, for a takeover. */
static struct client *current;

static struct {
	int fd;
	struct loop_watch *watch;
	char path[108];
	TAILQ_HEAD(, client) clients;
	unsigned int n_clients;
} srv = {.fd = -1, .clients = TAILQ_HEAD_INITIALIZER(srv.clients)};

static uint64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

/* Runs method m's handler; its result is checked against what api.h
 * declares, so a field no client knows of is caught where it is made. */
static cJSON *call(enum api_method m, const cJSON *id, const cJSON *params)
{
	api_handler_fn fn = api_handler(m);
	struct api_err err = {0};
	char why[512];
	cJSON *result;

	if (fn == NULL) /* start-up refuses this; never call through NULL */
		return api_error_new(id, API_ERR_INTERNAL, "method has no handler", NULL);
	result = fn(params, &err);
	/* What mirrors the model (CDI specs) catches up with the request as
	 * it ended, rollbacks included, before the client hears of it. */
	api_after_request();
	if (result == NULL) {
		LOG(INFO, "%s refused: %s", api_methods[m].name, err.msg);
		return api_error_new(id, err.code ? err.code : API_ERR_INTERNAL, err.msg,
				     err.field);
	}
	if (api_check_result(m, result, why, sizeof(why)) != 0)
		LOG(ERR, "result of %s does not match control/api.h: %s", api_methods[m].name, why);
	return api_result_new(id, result);
}

char *api_server_handle_line(const char *line, size_t len)
{
	char msg[1024] = "";
	const char *field = NULL;
	const cJSON *id, *method, *params;
	cJSON *req, *resp;
	int code = 0, m;
	char *text;

	req = cJSON_ParseWithLength(line, len);
	if (req == NULL) {
		resp = api_error_new(
		    NULL, API_ERR_PARSE,
		    "request is not valid JSON; send one JSON-RPC 2.0 object per line", NULL);
		goto out;
	}
	id = cJSON_GetObjectItemCaseSensitive(req, "id");
	method = cJSON_GetObjectItemCaseSensitive(req, "method");
	params = cJSON_GetObjectItemCaseSensitive(req, "params");
	if (!cJSON_IsObject(req) ||
	    !cJSON_IsString(cJSON_GetObjectItemCaseSensitive(req, "jsonrpc")) ||
	    strcmp(cJSON_GetObjectItemCaseSensitive(req, "jsonrpc")->valuestring, "2.0") != 0 ||
	    !cJSON_IsString(method)) {
		resp = api_error_new(id, API_ERR_INVALID_REQUEST,
				     "not a JSON-RPC 2.0 request; it needs \"jsonrpc\":\"2.0\", "
				     "\"method\" and \"id\"",
				     NULL);
		goto out;
	}
	m = api_method_lookup(method->valuestring);
	if (m < 0) {
		snprintf(msg, sizeof(msg),
			 "unknown method \"%.64s\"; `podwirectl --help` lists "
			 "what the daemon offers",
			 method->valuestring);
		resp = api_error_new(id, API_ERR_NO_METHOD, msg, NULL);
		goto out;
	}
	code = api_check_params((enum api_method)m, params, msg, sizeof(msg), &field);
	if (code != 0) {
		resp = api_error_new(id, code, msg, field);
		goto out;
	}
	resp = call((enum api_method)m, id, params);
out:
	text = cJSON_PrintUnformatted(resp);
	cJSON_Delete(resp);
	cJSON_Delete(req);
	return text;
}

/* Closes c now; c itself is freed with its watch, once the epoll batch
 * being dispatched is done: a client evicted to make room for a new one
 * may have an event of its own later in the same batch, which the loop
 * drops (the watch is dead) and which must not name freed memory or the
 * new client allocated there. */
static void client_close(struct client *c)
{
	TAILQ_REMOVE(&srv.clients, c, next);
	srv.n_clients--;
	loop_watch_del_release(c->watch, free);
	c->watch = NULL;
	close(c->fd);
	c->fd = -1;
	free(c->in);
	free(c->out);
	c->in = c->out = NULL;
}

static void client_queue(struct client *c, const char *text)
{
	size_t n = strlen(text);
	char *o = realloc(c->out, c->out_len + n + 1);

	if (o == NULL) {
		c->closing = true;
		return;
	}
	memcpy(o + c->out_len, text, n);
	o[c->out_len + n] = '\n';
	c->out = o;
	c->out_len += n + 1;
}

/* Answers a request that cannot be read with an error, and ends the
 * connection once the answer is out. */
static void client_refuse(struct client *c, const char *why)
{
	cJSON *e = api_error_new(NULL, API_ERR_INVALID_REQUEST, why, NULL);
	char *t = cJSON_PrintUnformatted(e);

	if (t != NULL)
		client_queue(c, t);
	free(t);
	cJSON_Delete(e);
	c->in_len = 0;
	c->closing = true;
}

/* Writes what it can; returns false when the client is gone. */
static bool client_flush(struct client *c)
{
	while (c->out_off < c->out_len) {
		ssize_t w = send(c->fd, c->out + c->out_off, c->out_len - c->out_off,
				 MSG_NOSIGNAL | MSG_DONTWAIT);

		if (w < 0 && errno == EINTR)
			continue;
		if (w < 0 && errno == EAGAIN)
			break;
		if (w < 0)
			return false;
		c->out_off += (size_t)w;
	}
	if (c->out_off == c->out_len) {
		c->out_off = c->out_len = 0;
		if (c->closing)
			return false;
	}
	loop_watch_mod(c->watch, EPOLLIN | (c->out_len ? EPOLLOUT : 0));
	return true;
}

static void client_process(struct client *c)
{
	size_t start = 0;

	for (size_t i = 0; i < c->in_len && !c->closing; i++) {
		char *resp;

		if (c->in[i] != '\n')
			continue;
		if (i - start > API_MAX_LINE) {
			client_refuse(c, "request line longer than 1 MiB; closing");
			return;
		}
		if (i > start) {
			current = c;
			resp = api_server_handle_line(c->in + start, i - start);
			current = NULL;
			if (resp != NULL)
				client_queue(c, resp);
			free(resp);
		}
		start = i + 1;
		/* The connection is a stream now: no more requests on it. */
		if (c->takeover != NULL)
			return;
	}
	if (c->closing)
		return;
	memmove(c->in, c->in + start, c->in_len - start);
	c->in_len -= start;
	if (c->in_len > API_MAX_LINE) {
		client_refuse(c, "request line longer than 1 MiB; closing");
		return;
	}
	/* The clock of an unfinished request starts with its first byte. */
	if (c->in_len == 0)
		c->partial_since = 0;
	else if (start != 0 || c->partial_since == 0)
		c->partial_since = now_ms();
}

static bool client_read(struct client *c)
{
	for (;;) {
		ssize_t r;

		if (c->in_cap - c->in_len < 4096) {
			size_t cap = c->in_cap ? c->in_cap * 2 : 8192;
			char *n = realloc(c->in, cap);

			if (n == NULL)
				return false;
			c->in = n;
			c->in_cap = cap;
		}
		r = recv(c->fd, c->in + c->in_len, c->in_cap - c->in_len, MSG_DONTWAIT);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0 && errno == EAGAIN)
			return true;
		if (r == 0 && c->in_len != 0) {
			/* Half-closed with a request not ended: it is not run. */
			client_refuse(c, "the request did not end with a newline; end each "
					 "JSON-RPC request with \\n");
			return true;
		}
		if (r <= 0)
			return false;
		c->last_ms = now_ms();
		c->in_len += (size_t)r;
		client_process(c);
		if (c->closing || c->takeover != NULL)
			return true;
	}
}

/* The client idle longest (nothing unanswered, nothing unread), or NULL. */
static struct client *longest_idle(void)
{
	struct client *c, *best = NULL;

	TAILQ_FOREACH (c, &srv.clients, next)
		if (c->in_len == 0 && c->out_len == 0 && !c->closing &&
		    (best == NULL || c->last_ms < best->last_ms))
			best = c;
	return best;
}

static void client_on_event(void *arg, uint32_t events);

/* The listening socket's watch. */
static void accept_clients(void *arg, uint32_t events)
{
	(void)arg;
	(void)events;
	for (;;) {
		int fd = accept4(srv.fd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
		struct client *c;

		if (fd < 0)
			return;
		if (srv.n_clients >= API_SERVER_CLIENTS_MAX) {
			c = longest_idle();
			if (c == NULL) {
				LOG(WARNING, "%u API clients, all busy; refusing one",
				    srv.n_clients);
				close(fd);
				continue;
			}
			LOG(NOTICE, "%u API clients: closing the one idle longest", srv.n_clients);
			client_close(c);
		}
		c = calloc(1, sizeof(*c));
		if (c == NULL) {
			close(fd);
			continue;
		}
		c->fd = fd;
		c->last_ms = now_ms();
		c->watch = loop_watch_add(fd, EPOLLIN, client_on_event, c);
		if (c->watch == NULL) {
			close(fd);
			free(c);
			continue;
		}
		TAILQ_INSERT_TAIL(&srv.clients, c, next);
		srv.n_clients++;
	}
}

int api_server_take_connection(api_takeover_fn fn, void *arg)
{
	if (current == NULL)
		return -ENOTCONN;
	current->takeover = fn;
	current->takeover_arg = arg;
	return 0;
}

void api_server_keep_connection(void)
{
	if (current != NULL)
		current->takeover = NULL;
}

/* Hands c's socket and unsent answer to its taker and forgets c (freed
 * with its watch, after the batch). The watch goes first: the taker
 * watches the same socket. */
static void client_hand_over(struct client *c)
{
	TAILQ_REMOVE(&srv.clients, c, next);
	srv.n_clients--;
	loop_watch_del_release(c->watch, free);
	c->watch = NULL;
	c->takeover(c->takeover_arg, c->fd, c->out + c->out_off, c->out_len - c->out_off);
	c->fd = -1;
	free(c->in);
	free(c->out);
	c->in = c->out = NULL;
}

/* A client's watch: the loop calls it only while c is open. */
static void client_on_event(void *arg, uint32_t events)
{
	struct client *c = arg;

	if ((events & EPOLLIN) && !client_read(c)) {
		client_close(c);
		return;
	}
	if (c->takeover != NULL) {
		client_hand_over(c);
		return;
	}
	if (!client_flush(c) || (events & (EPOLLHUP | EPOLLERR) && c->out_len == 0))
		client_close(c);
}

void api_server_housekeeping(void)
{
	uint64_t now = now_ms();
	struct client *c, *tmp;

	for (c = TAILQ_FIRST(&srv.clients); c != NULL; c = tmp) {
		tmp = TAILQ_NEXT(c, next);
		if (c->partial_since == 0 || now - c->partial_since < PARTIAL_TIMEOUT_MS)
			continue;
		client_refuse(c, "the request was not ended by a newline within 10 s; end each "
				 "JSON-RPC request with \\n");
		if (!client_flush(c))
			client_close(c);
	}
}

int api_server_open(const char *path, gid_t gid)
{
	struct sockaddr_un sa = {.sun_family = AF_UNIX};

	snprintf(srv.path, sizeof(srv.path), "%s", path);
	snprintf(sa.sun_path, sizeof(sa.sun_path), "%s", path);
	srv.fd = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	unlink(path); /* checked at start-up: no live daemon owns it */
	if (srv.fd < 0 || bind(srv.fd, (struct sockaddr *)&sa, sizeof(sa)) != 0 ||
	    chmod(path, 0660) != 0 || (gid != (gid_t)-1 && chown(path, 0, gid) != 0) ||
	    listen(srv.fd, 64) != 0 ||
	    (srv.watch = loop_watch_add(srv.fd, EPOLLIN, accept_clients, NULL)) == NULL) {
		LOG(ERR, "cannot serve the API on %s: %s", path, strerror(errno));
		fprintf(stderr, "podwired: cannot serve the API on %s: %s\n", path,
			strerror(errno));
		return -errno;
	}
	return 0;
}

void api_server_close(void)
{
	while (!TAILQ_EMPTY(&srv.clients))
		client_close(TAILQ_FIRST(&srv.clients));
	loop_watch_del(srv.watch);
	srv.watch = NULL;
	if (srv.fd >= 0) {
		close(srv.fd);
		unlink(srv.path);
		srv.fd = -1;
	}
}
