/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Port kinds and helpers for the forwarding unit tests (test_forwarding.c,
 * test_frames.c, test_stages.c): "sink" ports keep the mbufs they are
 * sent, "fsink" ports take frames without mbufs as memif does, so that
 * what the datapath sent can be read back.
 */
#ifndef PODWIRE_DP_SINKS_H
#define PODWIRE_DP_SINKS_H

#include "dp_harness.h"

/* ---- a port kind that keeps what it is sent ------------------------------ */

#define SINK_MAX 256

struct sink {
	uint16_t n;
	/* A ring that takes at most per_call frames a call, and only while
	 * room lasts (0: no such limits); calls counts tx calls. */
	uint16_t per_call, room, calls;
	struct rte_mbuf *got[SINK_MAX];
};

static inline int sink_create(struct port *p, char *msg, size_t len)
{
	(void)msg, (void)len;
	p->dp.priv = calloc(1, sizeof(struct sink));
	p->dp.link_up = true;
	return p->dp.priv != NULL ? 0 : -ENOMEM;
}

static inline void sink_clear(struct port *p)
{
	struct sink *s = p->dp.priv;

	rte_pktmbuf_free_bulk(s->got, s->n);
	s->n = 0;
}

static inline void sink_destroy(struct port *p)
{
	sink_clear(p);
	free(p->dp.priv);
}

static uint16_t sink_rx(struct dp_port *p, uint16_t q, struct rte_mbuf **pkts, uint16_t n,
			struct port_counters *ctr)
{
	(void)p, (void)q, (void)pkts, (void)n, (void)ctr;
	return 0;
}

static uint16_t sink_tx(struct dp_port *p, uint16_t w, struct rte_mbuf **pkts, uint16_t n)
{
	(void)w;
	struct sink *s = p->priv;
	uint16_t k = 0;

	s->calls++;
	while (k < n && s->n < SINK_MAX && (s->per_call == 0 || (k < s->per_call && s->room > 0))) {
		s->got[s->n++] = pkts[k++];
		if (s->per_call != 0)
			s->room--;
	}
	return k;
}

static const struct port_ops sink_ops = {
    .kind = "sink",
    .summary = "test: keeps what it is sent",
    .create = sink_create,
    .destroy = sink_destroy,
    .dp = {.rx_burst = sink_rx, .tx_burst = sink_tx},
};
PORT_KIND(sink_ops)

static inline struct sink *sink_of(struct port *p)
{
	return p->dp.priv;
}

static inline void destroy(struct port *p)
{
	char msg[256];

	ASSERT_INT_EQ(port_destroy(p, msg, sizeof(msg)), 0);
}

static inline void destroy_net(struct network *n)
{
	char msg[256];
	int code;

	ASSERT_INT_EQ(network_delete(n, &code, msg, sizeof(msg)), 0);
}

#define A     "02:00:00:00:00:0a"
#define B     "02:00:00:00:00:0b"
#define C     "02:00:00:00:00:0c"
#define X     "02:00:00:00:00:99"
#define BCAST "ff:ff:ff:ff:ff:ff"

static inline void send1(struct port *p, struct rte_mbuf *m)
{
	CU_ASSERT_FATAL(m != NULL);
	dp_harness_input(p, &m, 1);
}

static inline uint16_t vlan_of(const struct rte_mbuf *m)
{
	const struct rte_ether_hdr *eth = rte_pktmbuf_mtod(m, const struct rte_ether_hdr *);

	if (eth->ether_type != rte_cpu_to_be_16(RTE_ETHER_TYPE_VLAN))
		return 0;
	return rte_be_to_cpu_16(((const struct rte_vlan_hdr *)(eth + 1))->vlan_tci) & 0xfff;
}

/* ---- a port kind that takes frames without mbufs, as memif does ------------ */

#define FSINK_MAX 8
#define FSINK_BUF 10000

struct fsink {
	uint16_t n, room;
	uint32_t len[FSINK_MAX];
	uint8_t data[FSINK_MAX][FSINK_BUF];
};

static inline int fsink_create(struct port *p, char *msg, size_t len)
{
	struct fsink *s = calloc(1, sizeof(*s));

	(void)msg, (void)len;
	if (s == NULL)
		return -ENOMEM;
	s->room = FSINK_MAX;
	p->dp.priv = s;
	p->dp.link_up = true;
	return 0;
}

static inline void fsink_destroy(struct port *p)
{
	free(p->dp.priv);
}

/* When set, the next frame an fsink takes flips this port's link, as the
 * vhost-user or memif control thread may at any moment. */
static struct port *fsink_flip;
static bool fsink_flip_to;

static uint16_t fsink_tx_frames(struct dp_port *p, uint16_t w, struct dp_frame *const *f,
				const uint8_t *strip, uint16_t n)
{
	(void)w;
	struct fsink *s = p->priv;
	uint16_t k = 0;

	if (fsink_flip != NULL) {
		fsink_flip->dp.link_up = fsink_flip_to;
		fsink_flip = NULL;
	}

	for (; k < n && s->n < s->room; k++) {
		s->len[s->n] = dp_frame_out_len(f[k], strip[k]);
		dp_frame_read(f[k], strip[k], 0, s->data[s->n], s->len[s->n]);
		s->n++;
	}
	return k;
}

static uint16_t fsink_tx_burst(struct dp_port *p, uint16_t w, struct rte_mbuf **pkts, uint16_t n)
{
	(void)p, (void)w, (void)pkts, (void)n;
	return 0;
}

static const struct port_ops fsink_ops = {
    .kind = "fsink",
    .summary = "test: takes frames without mbufs",
    .create = fsink_create,
    .destroy = fsink_destroy,
    .dp = {.rx_burst = sink_rx, .tx_burst = fsink_tx_burst, .tx_frames = fsink_tx_frames},
};
PORT_KIND(fsink_ops)

static inline struct fsink *fsink_of(struct port *p)
{
	return p->dp.priv;
}

/* A frame in "shared memory" buf, cut into segments of the given lengths,
 * as a receiving kind hands it over: no private header yet. */
static inline void make_frame(struct dp_frame *f, const uint8_t *buf, uint32_t len,
			      const uint32_t *cuts)
{
	uint32_t off = 0;

	memset(f, 0, sizeof(*f));
	for (uint16_t s = 0; off < len; s++) {
		uint32_t k = cuts[s] != 0 && cuts[s] < len - off ? cuts[s] : len - off;

		f->seg[s].data = buf + off;
		f->seg[s].len = k;
		f->n_seg = (uint16_t)(s + 1);
		off += k;
	}
	f->len = len;
}

static inline void fill_frame(uint8_t *buf, uint32_t len, const char *dst, const char *src,
			      uint16_t vlan)
{
	struct rte_ether_hdr *eth = (struct rte_ether_hdr *)buf;

	for (uint32_t i = 0; i < len; i++)
		buf[i] = (uint8_t)(i * 7 + 3);
	rte_ether_unformat_addr(dst, &eth->dst_addr);
	rte_ether_unformat_addr(src, &eth->src_addr);
	if (vlan != 0) {
		eth->ether_type = rte_cpu_to_be_16(RTE_ETHER_TYPE_VLAN);
		((struct rte_vlan_hdr *)(eth + 1))->vlan_tci = rte_cpu_to_be_16(vlan);
		((struct rte_vlan_hdr *)(eth + 1))->eth_proto = rte_cpu_to_be_16(0x0800);
	} else {
		eth->ether_type = rte_cpu_to_be_16(0x0800);
	}
}

static inline void frames_in(struct port *p, struct dp_frame *f, uint16_t n)
{
	const struct view *v = view_current;

	dp_input_frames(workers[0], v, &p->dp, f, n);
	txbuf_flush_all(workers[0], v);
}

#endif
