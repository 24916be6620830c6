/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The remote driver protocol over HTTP, served by libmicrohttpd on the
 * plugin's unix socket: POST /Plugin.Activate, /NetworkDriver.<Call>,
 * JSON in and out. dockerd sends no Content-Type, keeps connections alive
 * and uses several at once; one thread serves them all and the handlers
 * take turns under dk_lock with the garbage collector. A body that is not a JSON object is answered
 * 400 and an unknown call 404, both with {"Err": ...}; a call that cannot
 * be done 500 with {"Err": ...}; nothing changes on any error.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <microhttpd.h>

#include "driver.h"
#include "http.h"

#define BODY_MAX (1 << 20)

struct body {
	char *buf;
	size_t len, cap;
	bool too_big;
};

static cJSON *h_activate(const cJSON *req, struct dk_err *err)
{
	cJSON *r = cJSON_CreateObject(), *a = cJSON_AddArrayToObject(r, "Implements");

	(void)req;
	(void)err;
	cJSON_AddItemToArray(a, cJSON_CreateString("NetworkDriver"));
	return r;
}

static cJSON *h_capabilities(const cJSON *req, struct dk_err *err)
{
	cJSON *r = cJSON_CreateObject();

	(void)req;
	(void)err;
	/* IP addresses are managed per node, and a podwired network reaches
	 * other nodes only through uplinks the operator sets up. */
	cJSON_AddStringToObject(r, "Scope", "local");
	cJSON_AddStringToObject(r, "ConnectivityScope", "local");
	return r;
}

/* Plain notifications: the answer is {} whatever they carry. */
static cJSON *h_discover(const cJSON *req, struct dk_err *err)
{
	const cJSON *t = cJSON_GetObjectItemCaseSensitive(req, "DiscoveryType");

	if (!cJSON_IsNumber(t))
		return dk_fail(err, 400, "DiscoveryType must be a number");
	return cJSON_CreateObject();
}

static const struct route {
	const char *url;
	dk_handler handler;
	bool body_optional; /* dockerd posts no payload */
} routes[] = {
    {"/Plugin.Activate", h_activate, true},
    {"/NetworkDriver.GetCapabilities", h_capabilities, true},
    {"/NetworkDriver.CreateNetwork", h_create_network, false},
    {"/NetworkDriver.DeleteNetwork", h_delete_network, false},
    {"/NetworkDriver.AllocateNetwork", h_allocate_network, false},
    {"/NetworkDriver.FreeNetwork", h_free_network, false},
    {"/NetworkDriver.CreateEndpoint", h_create_endpoint, false},
    {"/NetworkDriver.DeleteEndpoint", h_delete_endpoint, false},
    {"/NetworkDriver.EndpointOperInfo", h_endpoint_info, false},
    {"/NetworkDriver.Join", h_join, false},
    {"/NetworkDriver.Leave", h_leave, false},
    {"/NetworkDriver.ProgramExternalConnectivity", h_program_external, false},
    {"/NetworkDriver.RevokeExternalConnectivity", h_revoke_external, false},
    {"/NetworkDriver.DiscoverNew", h_discover, false},
    {"/NetworkDriver.DiscoverDelete", h_discover, false},
};

cJSON *dk_fail(struct dk_err *err, int status, const char *fmt, ...)
{
	va_list ap;

	err->status = status;
	va_start(ap, fmt);
	vsnprintf(err->msg, sizeof(err->msg), fmt, ap);
	va_end(ap);
	return NULL;
}

const char *dk_req_str(const cJSON *req, const char *field, size_t max, struct dk_err *err)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(req, field);

	if (v == NULL || cJSON_IsNull(v)) {
		dk_fail(err, 400, "%s is missing", field);
		return NULL;
	}
	if (!cJSON_IsString(v) || strlen(v->valuestring) > max) {
		dk_fail(err, 400, "%s must be a string of at most %zu bytes", field, max);
		return NULL;
	}
	return v->valuestring;
}

const char *dk_req_id(const cJSON *req, const char *field, struct dk_err *err)
{
	const char *id = dk_req_str(req, field, DK_ID_MAX, err);
	size_t n;

	if (id == NULL)
		return NULL;
	n = strlen(id);
	if (n < DK_ID_SHORT || strspn(id, "0123456789abcdef") != n) {
		dk_fail(err, 400,
			"%s \"%.64s\" is not an id as dockerd makes them (%d-%d hex digits)", field,
			id, DK_ID_SHORT, DK_ID_MAX);
		return NULL;
	}
	return id;
}

static enum MHD_Result reply(struct MHD_Connection *c, unsigned int status, cJSON *doc)
{
	char *text = cJSON_PrintUnformatted(doc);
	struct MHD_Response *r;
	enum MHD_Result ret;

	cJSON_Delete(doc);
	if (text == NULL)
		return MHD_NO;
	r = MHD_create_response_from_buffer(strlen(text), text, MHD_RESPMEM_MUST_FREE);
	if (r == NULL) {
		free(text);
		return MHD_NO;
	}
	MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE, DK_MEDIA_TYPE);
	ret = MHD_queue_response(c, status, r);
	MHD_destroy_response(r);
	return ret;
}

static enum MHD_Result reply_err(struct MHD_Connection *c, const struct dk_err *err)
{
	cJSON *doc = cJSON_CreateObject();

	cJSON_AddStringToObject(doc, "Err", err->msg);
	return reply(c, (unsigned int)err->status, doc);
}

static const struct route *route_find(const char *url)
{
	for (size_t i = 0; i < sizeof(routes) / sizeof(routes[0]); i++)
		if (strcmp(routes[i].url, url) == 0)
			return &routes[i];
	return NULL;
}

/* Decodes the body and runs the call's handler. */
static cJSON *dispatch(const struct route *rt, const struct body *b, struct dk_err *err)
{
	cJSON *req = NULL, *resp;
	size_t i = 0;

	while (i < b->len &&
	       (b->buf[i] == ' ' || b->buf[i] == '\n' || b->buf[i] == '\r' || b->buf[i] == '\t'))
		i++;
	if (b->too_big)
		return dk_fail(err, 400, "the request body is larger than %d bytes", BODY_MAX);
	if (i == b->len) {
		if (!rt->body_optional)
			return dk_fail(err, 400, "the request has no body; %s takes a JSON object",
				       rt->url + 1);
	} else {
		const char *end = NULL;

		req = cJSON_ParseWithLengthOpts(b->buf, b->len, &end, false);
		if (req == NULL)
			return dk_fail(
			    err, 400,
			    "the request body is not JSON (error near byte %zu); %s takes "
			    "a JSON object",
			    (size_t)(end != NULL ? end - b->buf : 0), rt->url + 1);
		if (!cJSON_IsObject(req) && !(rt->body_optional && cJSON_IsNull(req))) {
			cJSON_Delete(req);
			return dk_fail(err, 400, "the request body must be a JSON object");
		}
	}
	if (req == NULL)
		req = cJSON_CreateObject();
	pthread_mutex_lock(&dk_lock);
	resp = rt->handler(req, err);
	pthread_mutex_unlock(&dk_lock);
	cJSON_Delete(req);
	return resp;
}

static enum MHD_Result on_request(void *cls, struct MHD_Connection *c, const char *url,
				  const char *method, const char *version, const char *upload,
				  size_t *upload_size, void **con_cls)
{
	struct body *b = *con_cls;
	const struct route *rt;
	struct dk_err err = {0};
	struct timespec t0, t1;
	cJSON *resp;
	enum MHD_Result ret;

	(void)cls;
	(void)version;
	if (b == NULL) {
		b = calloc(1, sizeof(*b));
		*con_cls = b;
		return b != NULL ? MHD_YES : MHD_NO;
	}
	if (*upload_size != 0) {
		if (!b->too_big && b->len + *upload_size > BODY_MAX) {
			b->too_big = true;
		} else if (!b->too_big) {
			if (b->len + *upload_size + 1 > b->cap) {
				size_t cap = (b->len + *upload_size + 1) * 2;
				char *nb = realloc(b->buf, cap);

				if (nb == NULL)
					return MHD_NO;
				b->buf = nb;
				b->cap = cap;
			}
			memcpy(b->buf + b->len, upload, *upload_size);
			b->len += *upload_size;
		}
		*upload_size = 0;
		return MHD_YES;
	}
	rt = route_find(url);
	if (rt == NULL) {
		/* dockerd takes 404 as "not implemented" and carries on. */
		dk_fail(&err, 404, "podwire-docker does not implement %s", url);
		return reply_err(c, &err);
	}
	if (strcmp(method, "POST") != 0) {
		dk_fail(&err, 405, "%s takes POST, not %s", url, method);
		return reply_err(c, &err);
	}
	clock_gettime(CLOCK_MONOTONIC, &t0);
	resp = dispatch(rt, b, &err);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	if (dk_cfg.verbose || resp == NULL)
		dk_log("%s -> %d%s%s (%.1f ms)", url, resp != NULL ? 200 : err.status,
		       resp != NULL ? "" : ": ", resp != NULL ? "" : err.msg,
		       (double)(t1.tv_sec - t0.tv_sec) * 1e3 +
			   (double)(t1.tv_nsec - t0.tv_nsec) / 1e6);
	ret = resp != NULL ? reply(c, MHD_HTTP_OK, resp) : reply_err(c, &err);
	return ret;
}

static void on_completed(void *cls, struct MHD_Connection *c, void **con_cls,
			 enum MHD_RequestTerminationCode why)
{
	struct body *b = *con_cls;

	(void)cls;
	(void)c;
	(void)why;
	if (b != NULL) {
		free(b->buf);
		free(b);
	}
	*con_cls = NULL;
}

static void mhd_log(void *cls, const char *fmt, va_list ap)
{
	char line[512];

	(void)cls;
	vsnprintf(line, sizeof(line), fmt, ap);
	line[strcspn(line, "\n")] = '\0';
	dk_log("http: %s", line);
}

struct MHD_Daemon *http_start(int listen_fd)
{
	/* One polling thread: handlers take turns under dk_lock anyway, and
	 * each answers fast (podwired calls are bounded by a timeout). */
	return MHD_start_daemon(MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_AUTO | MHD_USE_ERROR_LOG,
				0, NULL, NULL, on_request, NULL, MHD_OPTION_EXTERNAL_LOGGER,
				mhd_log, NULL, MHD_OPTION_LISTEN_SOCKET, listen_fd,
				MHD_OPTION_NOTIFY_COMPLETED, on_completed, NULL, MHD_OPTION_END);
}

void http_stop(struct MHD_Daemon *d)
{
	if (d != NULL)
		MHD_stop_daemon(d);
}
