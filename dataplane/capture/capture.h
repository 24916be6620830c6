/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Captures, the control thread's side. A capture copies the frames of up
 * to 16 ports (datapath/observe.h) and streams them as pcapng on the API
 * connection that asked for it, after the answer to capture.start. It
 * ends when its count or duration is reached, when a port goes, or when
 * its client half-closes the connection (then its statistics blocks are
 * sent first) or goes away (then nothing more is sent). Every call is on
 * the control thread.
 */
#ifndef PODWIRE_CAPTURE_CAPTURE_H
#define PODWIRE_CAPTURE_CAPTURE_H

#include <stddef.h>
#include <stdint.h>

#include <cjson/cJSON.h>

#include "datapath/observe.h"
#include "model/port.h"

struct capture;

struct capture_req {
	struct port *ports[CAPTURE_MAX_IFS];
	unsigned int n_ports;
	uint8_t dirs; /* CAPTURE_IN | CAPTURE_OUT */
	uint64_t count;
	uint32_t duration; /* seconds, 0: none */
	uint32_t snaplen;
	const char *filter; /* "" for none */
};

/* Makes a capture (filter, pool, rings): 0, -EINVAL with msg naming the
 * filter's fault, or -ENOMEM with msg. Nothing is watched yet. */
int capture_create(const struct capture_req *r, struct capture **out, char *msg, size_t len);
/* Frees a capture that capture_start never started. */
void capture_discard(struct capture *c);
/* Starts it: the ports' frames are copied from now on; the stream goes to
 * the connection given to capture_takeover. */
void capture_start(struct capture *c);
/* The api_takeover_fn of capture.start: arg is the capture. */
void capture_takeover(void *arg, int fd, const char *unsent, size_t len);

int capture_id(const struct capture *c);
/* capture.list's entries. */
cJSON *capture_list_json(void);

#endif
