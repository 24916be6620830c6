/* SPDX-License-Identifier: BSD-3-Clause */
/* pcapng blocks (https://www.ietf.org/archive/id/draft-ietf-opsawg-pcapng-01.html). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "capture/pcapng.h"

enum {
	BLOCK_SECTION = 0x0A0D0D0A,
	BLOCK_INTERFACE = 1,
	BLOCK_STATS = 5,
	BLOCK_PACKET = 6,
	OPT_END = 0,
	OPT_COMMENT = 1,
	SHB_HARDWARE = 2,
	SHB_OS = 3,
	SHB_USERAPPL = 4,
	IF_NAME = 2,
	IF_DESCRIPTION = 3,
	IF_TSRESOL = 9,
	ISB_STARTTIME = 2,
	ISB_ENDTIME = 3,
	ISB_IFRECV = 4,
	ISB_IFDROP = 5,
	LINKTYPE_ETHERNET = 1,
	/* The packet block's fixed part: type, length, interface,
	 * timestamp (2), captured and original lengths. */
	EPB_HEAD = 28,
};

/* Room for n more bytes without moving what is there afterwards. */
static int capbuf_reserve(struct capbuf *b, size_t n)
{
	if (b->len + n > b->cap) {
		size_t cap = b->cap != 0 ? b->cap : 65536;
		uint8_t *d;

		/* Sent bytes are dropped before the buffer grows. */
		if (b->off != 0) {
			memmove(b->data, b->data + b->off, b->len - b->off);
			b->len -= b->off;
			b->off = 0;
		}
		while (b->len + n > cap)
			cap *= 2;
		if (cap != b->cap) {
			d = realloc(b->data, cap);
			if (d == NULL)
				return -ENOMEM;
			b->data = d;
			b->cap = cap;
		}
	}
	return 0;
}

int capbuf_add(struct capbuf *b, const void *p, size_t n)
{
	if (capbuf_reserve(b, n) != 0)
		return -ENOMEM;
	memcpy(b->data + b->len, p, n);
	b->len += n;
	return 0;
}

void capbuf_free(struct capbuf *b)
{
	free(b->data);
	memset(b, 0, sizeof(*b));
}

/* A block being built: its bytes, then written whole. */
struct block {
	uint8_t buf[1024];
	size_t len;
};

static void put(struct block *k, const void *p, size_t n)
{
	/* (An empty option has no bytes, and p may then be NULL.) */
	if (n != 0 && k->len + n <= sizeof(k->buf))
		memcpy(k->buf + k->len, p, n);
	k->len += n;
}

static void put32(struct block *k, uint32_t v)
{
	put(k, &v, 4);
}

static void put_opt(struct block *k, uint16_t code, const void *p, uint16_t n)
{
	static const uint8_t pad[4];

	put(k, &code, 2);
	put(k, &n, 2);
	put(k, p, n);
	put(k, pad, (4 - n % 4) % 4);
}

static void put_str(struct block *k, uint16_t code, const char *s)
{
	size_t n = s != NULL ? strlen(s) : 0;

	if (n != 0)
		put_opt(k, code, s, (uint16_t)RTE_MIN(n, (size_t)256));
}

/* Ends the options, sets both lengths and appends the block. */
static int finish(struct capbuf *b, struct block *k)
{
	uint32_t total;

	put_opt(k, OPT_END, NULL, 0);
	total = (uint32_t)k->len + 4;
	put32(k, total);
	if (k->len > sizeof(k->buf))
		return -E2BIG;
	memcpy(k->buf + 4, &total, 4);
	return capbuf_add(b, k->buf, k->len);
}

int pcapng_section(struct capbuf *b, const char *hardware, const char *os, const char *app)
{
	struct block k = {.len = 0};
	uint16_t major = 1, minor = 0;
	uint64_t section_len = UINT64_MAX; /* not known: a stream */

	put32(&k, BLOCK_SECTION);
	put32(&k, 0);
	put32(&k, 0x1A2B3C4D);
	put(&k, &major, 2);
	put(&k, &minor, 2);
	put(&k, &section_len, 8);
	put_str(&k, SHB_HARDWARE, hardware);
	put_str(&k, SHB_OS, os);
	put_str(&k, SHB_USERAPPL, app);
	return finish(b, &k);
}

int pcapng_interface(struct capbuf *b, const char *name, const char *description, uint32_t snaplen)
{
	struct block k = {.len = 0};
	uint16_t linktype = LINKTYPE_ETHERNET, reserved = 0;
	uint8_t tsresol = 9; /* nanoseconds, as librte_pcapng stamps packets */

	put32(&k, BLOCK_INTERFACE);
	put32(&k, 0);
	put(&k, &linktype, 2);
	put(&k, &reserved, 2);
	put32(&k, snaplen);
	put_str(&k, IF_NAME, name);
	put_str(&k, IF_DESCRIPTION, description);
	put_opt(&k, IF_TSRESOL, &tsresol, 1);
	return finish(b, &k);
}

int pcapng_packet(struct capbuf *b, const struct rte_mbuf *epb, uint32_t ifid, uint32_t orig_len,
		  uint64_t ts_ns, const char *comment)
{
	uint32_t len = rte_pktmbuf_pkt_len(epb), type, total;
	uint8_t head[EPB_HEAD];
	struct block k = {.len = 0};
	size_t start = b->len;
	uint32_t pos = 0, end = len - 4;
	const struct rte_mbuf *s;

	/* librte_pcapng's block: fixed part, data, its options (flags,
	 * queue), and the length again, last. */
	const void *h = len < EPB_HEAD + 4 ? NULL : rte_pktmbuf_read(epb, 0, EPB_HEAD, head);

	if (h == NULL)
		return -EINVAL;
	/* rte_pktmbuf_read copies only when the bytes are not contiguous. */
	if (h != head)
		memcpy(head, h, EPB_HEAD);
	memcpy(&type, head, 4);
	if (type != BLOCK_PACKET)
		return -EINVAL;
	if (comment != NULL)
		put_str(&k, OPT_COMMENT, comment);
	put_opt(&k, OPT_END, NULL, 0);
	total = len + (uint32_t)k.len;
	if (capbuf_reserve(b, total) != 0)
		return -ENOMEM;
	start = b->len;
	memcpy(head + 4, &total, 4);
	memcpy(head + 8, &ifid, 4);
	memcpy(head + 12, (uint32_t[]){(uint32_t)(ts_ns >> 32)}, 4);
	memcpy(head + 16, (uint32_t[]){(uint32_t)ts_ns}, 4);
	memcpy(head + 24, &orig_len, 4);
	if (capbuf_add(b, head, EPB_HEAD) != 0)
		return -ENOMEM;
	/* Then its bytes up to the trailing length, segment by segment. */
	for (s = epb; s != NULL && pos < end; pos += s->data_len, s = s->next) {
		uint32_t from = RTE_MAX(pos, (uint32_t)EPB_HEAD),
			 to = RTE_MIN(pos + s->data_len, end);

		if (from < to &&
		    capbuf_add(b, rte_pktmbuf_mtod_offset(s, const uint8_t *, from - pos),
			       to - from) != 0)
			goto fail;
	}
	put32(&k, total);
	if (capbuf_add(b, k.buf, k.len) != 0)
		goto fail;
	return 0;
fail:
	b->len = start;
	return -ENOMEM;
}

int pcapng_stats(struct capbuf *b, uint32_t ifid, uint64_t now_ns, uint64_t start_ns,
		 uint64_t end_ns, uint64_t received, uint64_t dropped, const char *comment)
{
	struct block k = {.len = 0};
	uint32_t hi = (uint32_t)(now_ns >> 32), lo = (uint32_t)now_ns;

	put32(&k, BLOCK_STATS);
	put32(&k, 0);
	put32(&k, ifid);
	put32(&k, hi);
	put32(&k, lo);
	put_str(&k, OPT_COMMENT, comment);
	put_opt(&k, ISB_STARTTIME, (uint32_t[]){(uint32_t)(start_ns >> 32), (uint32_t)start_ns}, 8);
	put_opt(&k, ISB_ENDTIME, (uint32_t[]){(uint32_t)(end_ns >> 32), (uint32_t)end_ns}, 8);
	put_opt(&k, ISB_IFRECV, &received, 8);
	put_opt(&k, ISB_IFDROP, &dropped, 8);
	return finish(b, &k);
}
