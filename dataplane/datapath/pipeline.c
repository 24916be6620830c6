/* SPDX-License-Identifier: BSD-3-Clause */
/* The chain of stages every burst passes through (see burst.h). */
#include <errno.h>
#include <string.h>

#include "datapath/burst.h"
#include "datapath/observe.h"
#include "datapath/worker.h"

/* Stages modules registered, per point; written before the workers start
 * and only read by them. */
static const struct dp_stage *stages[DP_STAGE_POINTS][DP_STAGES_MAX];
static unsigned int n_stages[DP_STAGE_POINTS];

int dp_stage_register(enum dp_stage_point at, const struct dp_stage *s)
{
	unsigned int i;

	if ((unsigned int)at >= DP_STAGE_POINTS || s == NULL || s->run == NULL)
		return -EINVAL;
	if (n_stages[at] == DP_STAGES_MAX)
		return -ENOSPC;
	/* After every stage of its order or lower. */
	for (i = n_stages[at]; i > 0 && stages[at][i - 1]->order > s->order; i--)
		stages[at][i] = stages[at][i - 1];
	stages[at][i] = s;
	n_stages[at]++;
	return 0;
}

void dp_stage_unregister(const struct dp_stage *s)
{
	for (unsigned int at = 0; at < DP_STAGE_POINTS; at++)
		for (unsigned int i = 0; i < n_stages[at]; i++)
			if (stages[at][i] == s) {
				memmove(&stages[at][i], &stages[at][i + 1],
					(n_stages[at] - i - 1) * sizeof(stages[at][0]));
				n_stages[at]--;
				i--;
			}
}

/* Egress stages, by order, and the dp_port.egress bit each was given. */
static const struct dp_egress_stage *egress[DP_STAGES_MAX];
static uint8_t egress_bit[DP_STAGES_MAX];
static unsigned int n_egress;

int dp_egress_register(const struct dp_egress_stage *s)
{
	uint8_t used = 0, bit = 1;
	unsigned int i;

	if (s == NULL || s->run == NULL)
		return -EINVAL;
	if (n_egress == DP_STAGES_MAX)
		return -ENOSPC;
	for (i = 0; i < n_egress; i++)
		used |= egress_bit[i];
	while (used & bit)
		bit <<= 1;
	for (i = n_egress; i > 0 && egress[i - 1]->order > s->order; i--) {
		egress[i] = egress[i - 1];
		egress_bit[i] = egress_bit[i - 1];
	}
	egress[i] = s;
	egress_bit[i] = bit;
	n_egress++;
	return bit;
}

void dp_egress_unregister(const struct dp_egress_stage *s)
{
	for (unsigned int i = 0; i < n_egress; i++)
		if (egress[i] == s) {
			memmove(&egress[i], &egress[i + 1], (n_egress - i - 1) * sizeof(egress[0]));
			memmove(&egress_bit[i], &egress_bit[i + 1],
				(n_egress - i - 1) * sizeof(egress_bit[0]));
			n_egress--;
			i--;
		}
}

uint16_t dp_egress_run(struct worker *w, const struct view *v, struct dp_port *p,
		       struct rte_mbuf **m, struct dp_frame **f, uint8_t *strip, uint16_t n)
{
	uint8_t on = p->egress;

	for (unsigned int i = 0; i < n_egress && n != 0; i++)
		if (on & egress_bit[i])
			n = egress[i]->run(w, v, p, m, f, strip, n);
	return n;
}

static inline void run_stages(struct worker *w, const struct view *v, struct dp_burst *b,
			      enum dp_stage_point at)
{
	for (unsigned int i = 0; i < n_stages[at] && b->n_fwd != 0; i++)
		stages[at][i]->run(w, v, b);
}

/* A watched port's burst, decided: captured as received (each frame
 * tagged with its drop, if any) and traced. What is captured and traced
 * of a frame without an mbuf is its private header copy: the bytes that
 * were decided on and are forwarded. */
static void __rte_noinline observe_in(struct worker *w, const struct view *v, struct dp_burst *b)
{
	struct dp_port *in = b->in;

	dp_burst_headers(b);
	if (in->observe & DP_OBS_CAP_RX) {
		uint8_t why[PW_BURST];

		dp_burst_why(b, why);
		if (b->frames)
			capture_frames(w->id, in, b->fp, NULL, b->n, CAPTURE_IN, why);
		else
			capture_mbufs(w->id, in, b->pkts, b->n, CAPTURE_IN, why);
	}
	if (in->observe & DP_OBS_TRACE)
		trace_burst(w->id, v, b);
}

static __rte_always_inline void chain(struct worker *w, const struct view *v, struct dp_burst *b)
{
	dp_stage_input(w, v, b);
	run_stages(w, v, b, DP_STAGE_INGRESS);
	if (likely(b->n_fwd != 0)) {
		if (b->net->mode == DP_NET_XCONNECT)
			xconnect_decide(w, v, b);
		else
			l2_bridge_decide(w, v, b);
	}
	run_stages(w, v, b, DP_STAGE_FORWARD);
	if (unlikely(b->in->observe & (DP_OBS_CAP_RX | DP_OBS_TRACE)))
		observe_in(w, v, b);
	dp_stage_output(w, v, b);
}

/* A burst of n frames received on in, of the sort frames says, through
 * the chain. */
static __rte_always_inline void run_burst(struct worker *w, const struct view *v,
					  struct dp_port *in, struct dp_burst *b, uint16_t n,
					  bool frames)
{
	if (unlikely(n == 0 || n > PW_BURST))
		return;
	b->in = in;
	b->net = v->nets[in->idx];
	b->n = n;
	b->frames = frames;
	b->hdr_copied = !frames; /* an mbuf's header is where it is */
	b->noted = false;
	chain(w, v, b);
}

void dp_input_mbufs(struct worker *w, const struct view *v, struct dp_port *in,
		    struct rte_mbuf **pkts, uint16_t n)
{
	struct dp_burst b;

	b.pkts = pkts;
	run_burst(w, v, in, &b, n, false);
}

void dp_input_frames(struct worker *w, const struct view *v, struct dp_port *in, struct dp_frame *f,
		     uint16_t n)
{
	struct dp_burst b;

	b.f = f;
	run_burst(w, v, in, &b, n, true);
}
