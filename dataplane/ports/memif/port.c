/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The memif port kind: podwire's own memif (see port.h), ethernet mode,
 * filesystem sockets, podwired as server (it listens, the pod connects)
 * or as client (it connects to the pod's socket and reconnects with
 * backoff). Frames from a memif pod are forwarded without mbufs: to
 * another memif pod they are copied once, ring to ring.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/log.h"
#include "ports/memif/port.h"

PW_LOG_TYPE("memif");

static int memif_create(struct port *p, char *msg, size_t len)
{
	struct memif_port *mp;
	int rc;

	if (memif_kick_start() != 0 || memif_guard_init() != 0) {
		snprintf(
		    msg, len,
		    "port \"%s\": cannot start memif's kick thread or SIGBUS guard; see the log",
		    p->conf.name);
		return -EIO;
	}
	/* No ring until a peer brings them (ctl.c: conn_up). */
	p->dp.rxq_on = 0;
	if (p->conf.role == PORT_ROLE_SERVER) {
		rc = port_clear_stale_socket(p, msg, len);
		if (rc != 0)
			return rc;
	}
	mp = calloc(1, sizeof(*mp));
	if (mp == NULL) {
		snprintf(msg, len, "port \"%s\": out of memory", p->conf.name);
		return -ENOMEM;
	}
	mp->port = p;
	mp->listen_fd = -1;
	p->dp.priv = mp;
	if (p->conf.role == PORT_ROLE_SERVER) {
		rc = memif_listen(mp, msg, len);
		if (rc != 0) {
			free(mp);
			p->dp.priv = NULL;
			return rc;
		}
	} else {
		/* The pod's socket may not be there yet: that is not an error,
		 * the port connects when it appears. */
		memif_client_try(mp);
	}
	return 0;
}

static void memif_destroy(struct port *p)
{
	struct memif_port *mp = p->dp.priv;

	if (mp == NULL)
		return;
	memif_conn_close(mp, "the port is deleted", true);
	if (p->conf.role == PORT_ROLE_SERVER) {
		memif_unlisten(mp);
		unlink(p->conf.socket);
	}
	free(mp);
	p->dp.priv = NULL;
}

static void memif_poll_link(struct port *p)
{
	memif_conn_check(p->dp.priv);
}

static void memif_to_json(const struct port *p, cJSON *obj)
{
	const struct memif_port *mp = p->dp.priv;
	const struct memif_conn *c = mp->cur;
	cJSON *o = cJSON_AddObjectToObject(obj, API_R_MEMIF);
	uint64_t mapped = 0;

	cJSON_AddStringToObject(o, API_R_STATE,
				c != NULL && c->state == MEMIF_CONN_UP ? "connected"
				: c != NULL			       ? "handshake"
				: p->conf.role == PORT_ROLE_CLIENT     ? "connecting"
				: mp->listen_watch == NULL	       ? "backing-off"
								       : "listening");
	cJSON_AddStringToObject(o, API_R_PEER, c != NULL ? c->peer : "");
	cJSON_AddNumberToObject(o, API_R_QUEUE_PAIRS,
				c != NULL && c->state == MEMIF_CONN_UP ? c->n_rx : 0);
	cJSON_AddNumberToObject(o, API_R_RING_SIZE,
				c != NULL && c->state == MEMIF_CONN_UP ? c->rx[0].size : 0);
	for (unsigned int i = 0; c != NULL && i < c->n_regions; i++)
		mapped += c->region[i].size;
	cJSON_AddNumberToObject(o, API_R_REGIONS, c != NULL ? c->n_regions : 0);
	cJSON_AddNumberToObject(o, API_R_MAPPED_BYTES, (double)mapped);
	cJSON_AddNumberToObject(o, API_R_CONNECTS, (double)mp->connects);
	cJSON_AddNumberToObject(o, API_R_DISCONNECTS, (double)mp->disconnects);
	cJSON_AddStringToObject(o, API_R_LAST_DISCONNECT, mp->last_reason);
	cJSON_AddNumberToObject(o, API_R_REFUSED, (double)mp->refused);
	cJSON_AddNumberToObject(o, API_R_FLAPS, mp->flaps);
	cJSON_AddNumberToObject(o, API_R_BACKOFF_MS, mp->backoff_ms);
}

static const struct port_ops memif_port_ops = {
    .kind = API_PORT_MEMIF,
    .summary = "pod interface over memif (podwire's own: shared memory, ethernet mode, "
	       "frames copied once memif to memif)",
    .fields = PORT_FIELD_SOCKET | PORT_FIELD_SECRET | PORT_FIELD_QUEUES,
    .tx_locks_itself = true,
    .max_rxq = MEMIF_MAX_QUEUE_PAIRS,
    .create = memif_create,
    .destroy = memif_destroy,
    .poll_link = memif_poll_link,
    .to_json = memif_to_json,
    .dp = {.rx_frames = memif_rx_frames,
	   .rx_release = memif_rx_release,
	   .tx_frames = memif_tx_frames,
	   .tx_burst = memif_tx_burst},
};

PORT_KIND(memif_port_ops)
