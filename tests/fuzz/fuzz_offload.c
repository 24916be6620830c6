/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Offload requests as a kernel, a guest or librte_vhost hands them over
 * (dataplane/offload): a frame and its virtio-net header, or raw mbuf
 * metadata, made fit for an egress of random capabilities and size. The
 * input is
 *   byte 0     bits 0-1 how the frame is held: 0 one mbuf (a chain when
 *              larger than one), 1 a chain of exactly sized malloc'd
 *              buffers (AddressSanitizer watches every end), 2 a chain of
 *              mbufs; bit 2 shared (a second reference: fix copies);
 *              bits 3-4 the metadata: 0 from the virtio-net header, 1 raw
 *              then offload_check, 2 raw straight to offload_fix; bit 5
 *              mbufs' data at odd addresses (UBSan checks alignment)
 *   byte 1     the egress's capabilities (low 4 bits)
 *   bytes 2-3  its largest frame (60 + n % 9100)
 *   bytes 4-5  where chains are cut (1 + n)
 *   byte 6     room in out[] (0 to 255)
 *   bytes 7-16 a virtio-net header, or raw metadata: flags selector (2
 *              bytes), tso_segsz (2), l2_len, l3_len, l4_len
 *   then       the frame
 * Every frame offload_fix makes must fit the egress (a super-frame it
 * takes: each of its segments), be a well-formed mbuf, and ask only for
 * what the egress takes; those it completed must carry L4 checksums that
 * verify; every mbuf goes back to the pool.
 */
#include <netinet/in.h>

#include <rte_eal.h>
#include <rte_mbuf.h>

#include "fuzz.h"
#include "offload/offload.h"
#include "../unit/ref_csum.h"

#define HDR 17

static struct rte_mempool *pool;
static char run_dir[256];

/* EAL's runtime directory, empty with --no-shconf, goes with the process. */
static void remove_run_dir(void)
{
	rmdir(run_dir);
}

static void init(void)
{
	char prefix[64];
	char *argv[] = {"fuzz",
			"--no-huge",
			"-m",
			"128",
			"--no-pci",
			"--no-shconf",
			"--no-telemetry",
			"--file-prefix",
			prefix,
			"-l",
			"0",
			"--log-level=*:crit",
			NULL};

	snprintf(prefix, sizeof(prefix), "pwfuzz-%d", (int)getpid());
	if (rte_eal_init((int)RTE_DIM(argv) - 1, argv) < 0)
		abort();
	snprintf(run_dir, sizeof(run_dir), "%s", rte_eal_get_runtime_dir());
	atexit(remove_run_dir);
	pool = rte_pktmbuf_pool_create("fuzz_mbufs", 8191, 0, 0, RTE_MBUF_DEFAULT_BUF_SIZE,
				       SOCKET_ID_ANY);
	if (pool == NULL)
		abort();
}

/* A malloc'd buffer and its shared info (opaque) go together. */
static void ext_free(void *addr, void *opaque)
{
	free(addr);
	free(opaque);
}

/* frame as an mbuf (see the header for how). NULL when the pool is out. */
static struct rte_mbuf *make(const uint8_t *frame, uint32_t len, unsigned int how, uint32_t cut,
			     bool odd)
{
	struct rte_mbuf *head = NULL, *tail = NULL;
	uint32_t off = 0;

	if (how == 0)
		cut = (uint32_t)RTE_MBUF_DEFAULT_DATAROOM;
	/* At most 512 pieces: the pool is shared with what is made. */
	cut = RTE_MAX(cut, (len + 511) / 512);
	do {
		struct rte_mbuf *x = rte_pktmbuf_alloc(pool);
		uint32_t n =
		    RTE_MIN(len - off, RTE_MIN(cut, (uint32_t)RTE_MBUF_DEFAULT_DATAROOM - 1));

		if (x == NULL) {
			rte_pktmbuf_free(head);
			return NULL;
		}
		if (odd)
			x->data_off++;
		if (how == 1 && n > 0) {
			struct rte_mbuf_ext_shared_info *sh = malloc(sizeof(*sh));
			uint8_t *b = malloc(n);

			if (sh == NULL || b == NULL)
				abort();
			memcpy(b, frame + off, n);
			sh->free_cb = ext_free;
			sh->fcb_opaque = sh;
			rte_mbuf_ext_refcnt_set(sh, 1);
			rte_pktmbuf_attach_extbuf(x, b, 0, (uint16_t)n, sh);
			x->data_off = 0;
			x->data_len = (uint16_t)n;
		} else {
			memcpy(rte_pktmbuf_append(x, (uint16_t)n), frame + off, n);
		}
		x->pkt_len = n;
		off += n;
		if (head == NULL) {
			head = tail = x;
		} else {
			tail->next = x;
			tail = x;
			head->nb_segs++;
			head->pkt_len += n;
		}
	} while (off < len);
	return head;
}

/* Raw metadata: any mix of the request flags, one IP version flag or
 * both or none. */
static void raw_meta(struct rte_mbuf *m, const uint8_t *d)
{
	static const uint64_t bits[] = {
	    RTE_MBUF_F_TX_TCP_CKSUM, RTE_MBUF_F_TX_UDP_CKSUM, RTE_MBUF_F_TX_SCTP_CKSUM,
	    RTE_MBUF_F_TX_TCP_SEG,   RTE_MBUF_F_TX_UDP_SEG,   RTE_MBUF_F_TX_IP_CKSUM,
	    RTE_MBUF_F_TX_IPV4,	     RTE_MBUF_F_TX_IPV6,
	};
	uint16_t sel = (uint16_t)(d[0] | d[1] << 8);

	/* RTE_MBUF_F_EXTERNAL stays: the buffer is malloc'd. */
	m->ol_flags &= ~(OFFLOAD_MBUF_FLAGS | RTE_MBUF_F_TX_IPV4 | RTE_MBUF_F_TX_IPV6);
	for (unsigned int i = 0; i < RTE_DIM(bits); i++)
		if (sel & (1u << i))
			m->ol_flags |= bits[i];
	/* L4 mask values are a field, not bits: TCP|UDP is SCTP's. */
	m->tso_segsz = (uint16_t)(d[2] | d[3] << 8);
	m->l2_len = d[4];
	m->l3_len = d[5];
	m->l4_len = d[6];
}

/* A frame made with its checksum complete: the L4 checksum verifies. */
static void check_l4(const uint8_t *f, uint32_t len, uint32_t l2, uint32_t l3, int proto)
{
	uint8_t ph[40] = {0};
	uint32_t l4len, s;

	/* The IP header's length: a frame may run on after it. */
	if ((f[l2] >> 4) == 4)
		l4len = (uint32_t)(f[l2 + 2] << 8 | f[l2 + 3]) - l3;
	else
		l4len = (uint32_t)(f[l2 + 4] << 8 | f[l2 + 5]);
	if (l2 + l3 + l4len > len)
		abort();
	if ((f[l2] >> 4) == 4) {
		memcpy(ph, f + l2 + 12, 8);
		ph[9] = (uint8_t)proto;
		ph[10] = (uint8_t)(l4len >> 8), ph[11] = (uint8_t)l4len;
		s = ref_sum(ph, 12, 0);
	} else {
		memcpy(ph, f + l2 + 8, 32);
		ph[34] = (uint8_t)(l4len >> 8), ph[35] = (uint8_t)l4len;
		ph[39] = (uint8_t)proto;
		s = ref_sum(ph, 40, 0);
	}
	if (ref_sum(f + l2 + l3, l4len, s) != 0xffff)
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static uint8_t flat[65536];
	struct rte_mbuf *m, *out[255];
	struct virtio_net_hdr vh, back;
	unsigned int how, meta;
	uint32_t caps, max_frame, cut, len;
	uint64_t asked;
	uint16_t max;
	bool shared;
	int n;

	if (pool == NULL)
		init();
	if (size < HDR + 14 || size - HDR > UINT16_MAX)
		return 0;
	how = data[0] & 3;
	if (how == 3)
		how = 0;
	shared = (data[0] & 4) != 0;
	meta = (data[0] >> 3) & 3;
	caps = data[1] & OFFLOAD_ALL;
	max_frame = 60 + (uint32_t)(data[2] | data[3] << 8) % 9100;
	cut = 1 + (uint32_t)(data[4] | data[5] << 8);
	max = data[6];
	len = (uint32_t)(size - HDR);
	m = make(data + HDR, len, how, cut, (data[0] & 32) != 0);
	if (m == NULL)
		abort();
	if (meta == 0) {
		memcpy(&vh, data + 7, sizeof(vh));
		if (offload_from_vnet(m, &vh) != 0 && (m->ol_flags & OFFLOAD_MBUF_FLAGS) != 0)
			abort();
	} else {
		raw_meta(m, data + 7);
		if (meta == 1 && offload_check(m) != 0 && (m->ol_flags & OFFLOAD_MBUF_FLAGS) != 0)
			abort();
	}
	offload_to_vnet(m, &back);
	(void)offload_needs(m);
	(void)offload_wire_len(m);
	asked = m->ol_flags & OFFLOAD_MBUF_FLAGS;
	/* Shared as a flood shares it: every segment has a reference more. */
	if (shared)
		for (struct rte_mbuf *s = m; s != NULL; s = s->next)
			rte_mbuf_refcnt_update(s, 1);
	n = offload_fix(m, caps, max_frame, pool, out, max);
	if (n <= 0)
		rte_pktmbuf_free(m);
	if (shared)
		rte_pktmbuf_free(m);
	for (int i = 0; i < n; i++) {
		struct rte_mbuf *o = out[i];
		uint32_t segs = 0, bytes = 0;

		for (struct rte_mbuf *s = o; s != NULL; s = s->next)
			segs++, bytes += s->data_len;
		if (offload_wire_len(o) > max_frame || bytes != o->pkt_len || segs != o->nb_segs)
			abort();
		if ((offload_needs(o) & ~caps) != 0)
			abort();
		/* A checksum or segmentation request done here, checked by
		 * other means than the code's. */
		if (asked != 0 && (o->ol_flags & OFFLOAD_MBUF_FLAGS) == 0 &&
		    o->pkt_len <= sizeof(flat) && (asked & RTE_MBUF_F_TX_IP_CKSUM) == 0) {
			const uint8_t *f = rte_pktmbuf_read(o, 0, o->pkt_len, flat);
			int proto =
			    (asked & (RTE_MBUF_F_TX_TCP_SEG | RTE_MBUF_F_TX_UDP_SEG))
				? ((asked & RTE_MBUF_F_TX_TCP_SEG) ? IPPROTO_TCP : IPPROTO_UDP)
			    : (asked & RTE_MBUF_F_TX_L4_MASK) == RTE_MBUF_F_TX_TCP_CKSUM
				? IPPROTO_TCP
				: IPPROTO_UDP;

			check_l4(f, o->pkt_len, o->l2_len, o->l3_len, proto);
		}
		rte_pktmbuf_free(o);
	}
	if (rte_mempool_avail_count(pool) != pool->size)
		abort();
	return 0;
}
