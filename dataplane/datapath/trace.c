/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Trace, the worker's side: the decisions taken for a traced frame, one
 * record each, in the worker's own buffer (see observe.h). The verdict at
 * each destination is what the worker knows when it decides: a port whose
 * link is down, or whose MTU the frame exceeds, drops it there; a full
 * ring is only known when the frame is sent (`stats` counts it).
 */
#include <string.h>

#include <rte_cycles.h>
#include <rte_ether.h>

#include "datapath/burst.h"
#include "datapath/observe.h"

struct trace_buf *trace_bufs[PW_MAX_WORKERS];
volatile int32_t trace_quota;

/* A record for one more frame, or NULL when the quota or the buffer is
 * used up. */
static struct trace_rec *trace_claim(unsigned int wid)
{
	struct trace_buf *b = trace_bufs[wid];

	if (b == NULL || b->n >= TRACE_MAX ||
	    __atomic_load_n(&trace_quota, __ATOMIC_RELAXED) <= 0 ||
	    __atomic_fetch_sub(&trace_quota, 1, __ATOMIC_RELAXED) <= 0)
		return NULL;
	return &b->rec[b->n];
}

/* Publishes the record trace_claim gave. */
static void trace_commit(unsigned int wid)
{
	struct trace_buf *b = trace_bufs[wid];

	__atomic_store_n(&b->n, b->n + 1, __ATOMIC_RELEASE);
}

static void rec_header(struct trace_rec *r, const struct dp_port *in, const uint8_t *hdr,
		       uint32_t hlen, uint32_t len)
{
	memset(r, 0, sizeof(*r));
	r->tsc = rte_rdtsc();
	r->len = len;
	r->in_port = in->idx;
	r->drop = DROP_MAX;
	if (hlen >= RTE_ETHER_HDR_LEN + 4 && hdr[12] == 0x81 && hdr[13] == 0x00) {
		r->tagged = 1;
		r->tag = (uint16_t)(((hdr[14] << 8) | hdr[15]) & 0xfff);
		memcpy(r->hdr, hdr, 12);
		memcpy(r->hdr + 12, hdr + 16, 2);
	} else {
		memcpy(r->hdr, hdr, RTE_MIN(hlen, (uint32_t)sizeof(r->hdr)));
	}
}

/* What happens to the frame at port idx. */
static uint8_t verdict(const struct view *v, uint16_t idx, uint32_t out_len)
{
	const struct dp_port *p = v->ports[idx];

	if (p == NULL || !p->link_up)
		return DROP_LINK_DOWN;
	if (out_len > p->max_frame)
		return DROP_MTU;
	return DROP_MAX;
}

static void rec_out(const struct view *v, struct trace_rec *r, uint16_t idx, uint32_t out_len)
{
	r->n_dst++;
	if (r->n_out == TRACE_MAX_OUT)
		return;
	r->out[r->n_out].port = idx;
	r->out[r->n_out++].verdict = verdict(v, idx, out_len);
}

/* What the decision looked up for frame i: a learned port, a flood (a
 * group address or an unknown one), the cross-connect's peer, or nothing
 * (dropped before the decision). */
static uint8_t lookup_of(const struct dp_burst *b, uint16_t i)
{
	uint8_t flood = b->hdr[i][0] & 1 ? TRACE_FLOOD_GROUP : TRACE_FLOOD_UNKNOWN;

	if (b->net->mode == DP_NET_XCONNECT)
		return TRACE_XCONNECT;
	if (!dp_is_drop(b->dst[i]))
		return b->dst[i] == DP_FLOOD ? flood : TRACE_LEARNED;
	switch (dp_drop_reason(b->dst[i])) {
	case DROP_SAME_PORT: /* the lookup found the ingress port */
		return TRACE_LEARNED;
	case DROP_FLOOD_LIMIT: /* a flood over the limit, or with nowhere to go */
	case DROP_NO_ROUTE:
		return flood;
	default:
		return TRACE_NO_LOOKUP;
	}
}

void trace_burst(unsigned int wid, const struct view *v, const struct dp_burst *b)
{
	const struct dp_net *net = b->net;

	for (uint16_t i = 0; i < b->n; i++) {
		struct trace_rec *r = trace_claim(wid);
		uint32_t out_len = b->len[i] - 4u * b->strip[i];
		uint16_t dst = b->dst[i];

		if (r == NULL)
			return;
		rec_header(r, b->in, b->hdr[i], b->hlen[i], b->len[i]);
		r->strip = b->strip[i];
		r->note = b->noted ? b->note[i] : 0;
		r->lookup = b->hlen[i] != 0 ? lookup_of(b, i) : TRACE_NO_LOOKUP;
		if (dp_is_drop(dst)) {
			r->drop = (uint8_t)dp_drop_reason(dst);
		} else if (dst == DP_FLOOD) {
			for (uint16_t k = 0; k < net->n_ports; k++)
				if (net->ports[k] != b->in->idx)
					rec_out(v, r, net->ports[k], out_len);
		} else {
			rec_out(v, r, dst, out_len);
		}
		trace_commit(wid);
	}
}
