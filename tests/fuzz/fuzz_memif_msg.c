/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * memif control messages a peer sends, in whatever order: the input is a
 * sequence of 128-byte messages, each run through the checks podwired
 * makes before acting on one, in the role the first byte picks (server:
 * hello sent, then init, regions, rings, connect; client: hello, acks,
 * connected), keeping what was accepted as podwired does.
 */
#include "fuzz.h"

#include "memif/memif.h"

static void as_server(const struct memif_msg *m, size_t n)
{
	enum memif_srv_state st = MEMIF_SRV_WAIT_INIT;
	struct memif_offer offer;
	char why[256], peer[MEMIF_NAME_LEN + 1];

	memset(&offer, 0, sizeof(offer));
	for (size_t i = 0; i < n; i++) {
		if (memif_srv_expects(st, m[i].type, why, sizeof(why)) != 0)
			return;
		switch (m[i].type) {
		case MEMIF_MSG_INIT:
			if (memif_check_init(&m[i].init, 0, (i & 1) ? "s3cret" : NULL, why,
					     sizeof(why)) != 0)
				return;
			memif_field_str(m[i].init.name, sizeof(m[i].init.name), peer, sizeof(peer));
			st = MEMIF_SRV_WAIT_SETUP;
			break;
		case MEMIF_MSG_ADD_REGION:
			if (memif_check_add_region(&m[i].add_region, &offer, why, sizeof(why)) != 0)
				return;
			memif_offer_add_region(&offer, &m[i].add_region);
			break;
		case MEMIF_MSG_ADD_RING:
			if (memif_check_add_ring(&m[i].add_ring, &offer, why, sizeof(why)) != 0)
				return;
			memif_offer_add_ring(&offer, &m[i].add_ring);
			break;
		case MEMIF_MSG_CONNECT:
			if (memif_check_connect(&offer, why, sizeof(why)) != 0)
				return;
			st = MEMIF_SRV_CONNECTED;
			break;
		default: /* DISCONNECT */
			memif_field_str(m[i].disconnect.reason, sizeof(m[i].disconnect.reason), why,
					sizeof(why));
			return;
		}
	}
}

static void as_client(const struct memif_msg *m, size_t n)
{
	enum memif_cli_state st = MEMIF_CLI_WAIT_HELLO;
	unsigned int acks = 0;
	char why[256];
	uint8_t log2;

	for (size_t i = 0; i < n; i++) {
		if (memif_cli_expects(st, acks, m[i].type, why, sizeof(why)) != 0)
			return;
		switch (m[i].type) {
		case MEMIF_MSG_HELLO:
			if (memif_check_hello(&m[i].hello, 10, &log2, why, sizeof(why)) != 0)
				return;
			acks = 4;
			st = MEMIF_CLI_WAIT_ACKS;
			break;
		case MEMIF_MSG_ACK:
			if (--acks == 0)
				st = MEMIF_CLI_WAIT_CONNECTED;
			break;
		case MEMIF_MSG_CONNECTED:
			st = MEMIF_CLI_CONNECTED;
			break;
		default:
			return;
		}
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	size_t n = size > 0 ? (size - 1) / sizeof(struct memif_msg) : 0;
	struct memif_msg *m;

	if (n == 0)
		return 0;
	m = malloc(n * sizeof(*m));
	if (m == NULL)
		abort();
	memcpy(m, data + 1, n * sizeof(*m));
	if (data[0] & 1)
		as_client(m, n);
	else
		as_server(m, n);
	free(m);
	return 0;
}
