/* SPDX-License-Identifier: BSD-3-Clause */
/* memif control messages: their checks and builders (memif/memif.h). */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "memif/memif.h"

static const char *const names[MEMIF_MSG_TYPE_COUNT] = {
    [MEMIF_MSG_NONE] = "none",
    [MEMIF_MSG_ACK] = "ack",
    [MEMIF_MSG_HELLO] = "hello",
    [MEMIF_MSG_INIT] = "init",
    [MEMIF_MSG_ADD_REGION] = "add-region",
    [MEMIF_MSG_ADD_RING] = "add-ring",
    [MEMIF_MSG_CONNECT] = "connect",
    [MEMIF_MSG_CONNECTED] = "connected",
    [MEMIF_MSG_DISCONNECT] = "disconnect",
};

const char *memif_msg_name(uint16_t type)
{
	return type < MEMIF_MSG_TYPE_COUNT ? names[type] : "unknown";
}

void memif_field_str(const uint8_t *field, size_t size, char *out, size_t out_len)
{
	size_t n = 0;

	for (size_t i = 0; i < size && field[i] != '\0' && n + 1 < out_len; i++)
		out[n++] = field[i] >= ' ' && field[i] <= '~' ? (char)field[i] : '?';
	if (out_len > 0)
		out[n] = '\0';
}

static int refuse(int rc, char *why, size_t len, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

static int refuse(int rc, char *why, size_t len, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(why, len, fmt, ap);
	va_end(ap);
	return rc;
}

int memif_srv_expects(enum memif_srv_state st, uint16_t type, char *why, size_t len)
{
	bool ok;

	if (type == MEMIF_MSG_DISCONNECT)
		return 0;
	switch (st) {
	case MEMIF_SRV_WAIT_INIT:
		ok = type == MEMIF_MSG_INIT;
		break;
	case MEMIF_SRV_WAIT_SETUP:
		ok = type == MEMIF_MSG_ADD_REGION || type == MEMIF_MSG_ADD_RING ||
		     type == MEMIF_MSG_CONNECT;
		break;
	default:
		ok = false;
	}
	if (ok)
		return 0;
	return refuse(-EPROTO, why, len, "%s message (type %u) out of order: waiting for %s",
		      memif_msg_name(type), type,
		      st == MEMIF_SRV_WAIT_INIT	   ? "init"
		      : st == MEMIF_SRV_WAIT_SETUP ? "add-region, add-ring or connect"
						   : "nothing but disconnect");
}

int memif_cli_expects(enum memif_cli_state st, unsigned int acks_left, uint16_t type, char *why,
		      size_t len)
{
	uint16_t want = st == MEMIF_CLI_WAIT_HELLO	 ? MEMIF_MSG_HELLO
			: st == MEMIF_CLI_WAIT_ACKS	 ? MEMIF_MSG_ACK
			: st == MEMIF_CLI_WAIT_CONNECTED ? MEMIF_MSG_CONNECTED
							 : MEMIF_MSG_NONE;

	if (type == MEMIF_MSG_DISCONNECT || (type == want && want != MEMIF_MSG_NONE))
		return 0;
	return refuse(-EPROTO, why, len, "%s message (type %u) out of order: waiting for %s%s",
		      memif_msg_name(type), type,
		      want == MEMIF_MSG_NONE ? "nothing but disconnect" : memif_msg_name(want),
		      st == MEMIF_CLI_WAIT_ACKS && acks_left > 1 ? " (more to come)" : "");
}

int memif_check_init(const struct memif_msg_init *m, uint32_t id, const char *secret, char *why,
		     size_t len)
{
	uint8_t ours[MEMIF_SECRET_LEN];
	bool theirs_empty = m->secret[0] == '\0';

	if (m->version != MEMIF_VERSION)
		return refuse(-EPROTO, why, len,
			      "peer speaks memif version %u.%u; podwired speaks 2.0 only",
			      m->version >> 8, m->version & 0xff);
	if (m->id != id)
		return refuse(
		    -EPROTO, why, len,
		    "peer asks for interface id %u; this port is id %u (net_memif: id=%u)", m->id,
		    id, id);
	if (m->mode != MEMIF_MODE_ETHERNET)
		return refuse(
		    -EPROTO, why, len,
		    "peer asks for interface mode %u; podwired speaks ethernet mode (0) only",
		    m->mode);
	/* The whole field is compared, NUL padding included: a 24-byte
	 * secret fills it. */
	memset(ours, 0, sizeof(ours));
	if (secret != NULL)
		memcpy(ours, secret, strnlen(secret, sizeof(ours)));
	if (memcmp(ours, m->secret, sizeof(ours)) != 0)
		return refuse(-EACCES, why, len, "%s",
			      ours[0] == '\0' ? "peer sent a secret; the port has none"
			      : theirs_empty  ? "peer sent no secret; the port has one"
					      : "peer sent the wrong secret");
	return 0;
}

int memif_check_add_region(const struct memif_msg_add_region *m, const struct memif_offer *o,
			   char *why, size_t len)
{
	if (m->index != o->n_regions)
		return refuse(-EPROTO, why, len, "region %u added where region %u was due",
			      m->index, o->n_regions);
	if (m->index >= MEMIF_MAX_REGIONS)
		return refuse(-EPROTO, why, len, "region %u: podwired takes at most %u regions",
			      m->index, MEMIF_MAX_REGIONS);
	if (m->size == 0 || m->size > MEMIF_MAX_REGION_BYTES)
		return refuse(-EPROTO, why, len,
			      "region %u is %llu bytes; podwired takes 1 byte to %llu MiB",
			      m->index, (unsigned long long)m->size,
			      (unsigned long long)(MEMIF_MAX_REGION_BYTES >> 20));
	return 0;
}

int memif_check_add_ring(const struct memif_msg_add_ring *m, const struct memif_offer *o, char *why,
			 size_t len)
{
	bool s2m = m->flags & MEMIF_RING_FLAG_S2M;
	const char *dir = s2m ? "s2m" : "m2s";

	if (m->flags & ~MEMIF_RING_FLAG_S2M)
		return refuse(-EPROTO, why, len, "%s ring %u: unknown flags 0x%x", dir, m->index,
			      m->flags);
	if (m->index != o->n_rings[s2m])
		return refuse(-EPROTO, why, len, "%s ring %u added where ring %u was due", dir,
			      m->index, o->n_rings[s2m]);
	if (m->index >= MEMIF_MAX_QUEUE_PAIRS)
		return refuse(-EPROTO, why, len, "%s ring %u: podwired takes at most %u per way",
			      dir, m->index, MEMIF_MAX_QUEUE_PAIRS);
	if (m->log2_ring_size < 1 || m->log2_ring_size > MEMIF_MAX_LOG2_RING)
		return refuse(-EPROTO, why, len,
			      "%s ring %u: size 2^%u; podwired takes 2^1 to 2^%u", dir, m->index,
			      m->log2_ring_size, MEMIF_MAX_LOG2_RING);
	if (m->private_hdr_size != 0)
		return refuse(-EPROTO, why, len,
			      "%s ring %u: a private header of %u bytes; podwired takes none", dir,
			      m->index, m->private_hdr_size);
	if (m->region >= o->n_regions)
		return refuse(-EPROTO, why, len,
			      "%s ring %u is in region %u, which was never added", dir, m->index,
			      m->region);
	if (m->offset % 8 != 0)
		return refuse(-EPROTO, why, len, "%s ring %u: offset %u is not 8-byte aligned", dir,
			      m->index, m->offset);
	if ((uint64_t)m->offset + memif_ring_bytes(m->log2_ring_size) > o->region_size[m->region])
		return refuse(-EPROTO, why, len,
			      "%s ring %u: %llu bytes at offset %u pass the end of region %u (%llu "
			      "bytes)",
			      dir, m->index,
			      (unsigned long long)memif_ring_bytes(m->log2_ring_size), m->offset,
			      m->region, (unsigned long long)o->region_size[m->region]);
	return 0;
}

int memif_check_connect(const struct memif_offer *o, char *why, size_t len)
{
	if (o->n_rings[0] == 0 || o->n_rings[1] == 0)
		return refuse(
		    -EPROTO, why, len,
		    "connect with %u m2s and %u s2m rings; at least one each way is needed",
		    o->n_rings[0], o->n_rings[1]);
	return 0;
}

int memif_check_hello(const struct memif_msg_hello *m, uint8_t want_log2, uint8_t *log2, char *why,
		      size_t len)
{
	if (m->min_version > MEMIF_VERSION || m->max_version < MEMIF_VERSION)
		return refuse(-EPROTO, why, len,
			      "peer speaks memif versions %u.%u to %u.%u; podwired speaks 2.0",
			      m->min_version >> 8, m->min_version & 0xff, m->max_version >> 8,
			      m->max_version & 0xff);
	if (m->max_log2_ring_size < 1)
		return refuse(-EPROTO, why, len, "peer takes rings of at most 2^%u slots",
			      m->max_log2_ring_size);
	*log2 = want_log2 < m->max_log2_ring_size ? want_log2 : m->max_log2_ring_size;
	return 0;
}

void memif_offer_add_region(struct memif_offer *o, const struct memif_msg_add_region *m)
{
	o->region_size[o->n_regions++] = m->size;
	o->mapped += m->size;
}

void memif_offer_add_ring(struct memif_offer *o, const struct memif_msg_add_ring *m)
{
	o->n_rings[(m->flags & MEMIF_RING_FLAG_S2M) != 0]++;
}

static void put_str(uint8_t *field, size_t size, const char *s)
{
	size_t n = s != NULL ? strnlen(s, size) : 0;

	memset(field, 0, size);
	if (n != 0)
		memcpy(field, s, n);
}

static void clear(struct memif_msg *m, uint16_t type)
{
	memset(m, 0, sizeof(*m));
	m->type = type;
}

void memif_msg_hello(struct memif_msg *m, const char *name)
{
	clear(m, MEMIF_MSG_HELLO);
	put_str(m->hello.name, sizeof(m->hello.name), name);
	m->hello.min_version = MEMIF_VERSION;
	m->hello.max_version = MEMIF_VERSION;
	m->hello.max_region = MEMIF_MAX_REGIONS - 1;
	m->hello.max_m2s_ring = MEMIF_MAX_QUEUE_PAIRS - 1;
	m->hello.max_s2m_ring = MEMIF_MAX_QUEUE_PAIRS - 1;
	m->hello.max_log2_ring_size = MEMIF_MAX_LOG2_RING;
}

void memif_msg_init(struct memif_msg *m, uint32_t id, const char *secret, const char *name)
{
	clear(m, MEMIF_MSG_INIT);
	m->init.version = MEMIF_VERSION;
	m->init.id = id;
	m->init.mode = MEMIF_MODE_ETHERNET;
	put_str(m->init.secret, sizeof(m->init.secret), secret);
	put_str(m->init.name, sizeof(m->init.name), name);
}

void memif_msg_add_region(struct memif_msg *m, uint16_t index, uint64_t size)
{
	clear(m, MEMIF_MSG_ADD_REGION);
	m->add_region.index = index;
	m->add_region.size = size;
}

void memif_msg_add_ring(struct memif_msg *m, bool s2m, uint16_t index, uint16_t region,
			uint32_t offset, uint8_t log2)
{
	clear(m, MEMIF_MSG_ADD_RING);
	m->add_ring.flags = s2m ? MEMIF_RING_FLAG_S2M : 0;
	m->add_ring.index = index;
	m->add_ring.region = region;
	m->add_ring.offset = offset;
	m->add_ring.log2_ring_size = log2;
}

void memif_msg_simple(struct memif_msg *m, uint16_t type)
{
	clear(m, type);
}

void memif_msg_connect(struct memif_msg *m, uint16_t type, const char *name)
{
	clear(m, type);
	put_str(m->connect.name, sizeof(m->connect.name), name);
}

void memif_msg_disconnect(struct memif_msg *m, uint32_t code, const char *reason)
{
	clear(m, MEMIF_MSG_DISCONNECT);
	m->disconnect.code = code;
	put_str(m->disconnect.reason, sizeof(m->disconnect.reason) - 1, reason);
}
