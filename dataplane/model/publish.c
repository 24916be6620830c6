/* SPDX-License-Identifier: BSD-3-Clause */
#include "datapath/worker.h"
#include "model/network.h"
#include "model/publish.h"
#include "model/queue.h"

static unsigned int fail_next;

void model_view_fail_next(unsigned int n)
{
	fail_next = n;
}

struct view *model_view_build(const struct port *skip)
{
	struct dp_port *ports[PW_MAX_PORTS];
	struct network *net;
	struct view *v;

	if (fail_next != 0) {
		fail_next--;
		return NULL;
	}
	v = view_alloc();
	if (v == NULL)
		return NULL;
	TAILQ_FOREACH (net, &network_all, next) {
		struct port *p;
		uint16_t k = 0;

		TAILQ_FOREACH (p, &net->ports, net_next) {
			/* Read once: what is polled is what is marked (the
			 * kind may change it meanwhile; queue_tick sees it). */
			uint16_t on = queue_enabled(p);

			if (p == skip)
				continue;
			/* A mirror's destination (mirror/) receives the copies
			 * and nothing else: it is a network of its own, so no
			 * flood reaches it and no MAC learned on it is found
			 * (the bridge looks only at ports of the frame's own
			 * network); it is still polled, and the mirror stage
			 * drops and counts what it sends. */
			if (unlikely(p->dp.mirror_dst)) {
				struct dp_port *alone = &p->dp;

				if (view_add_net(v, (enum dp_net_mode)net->mode, net->vlan,
						 net->mac_limit, &alone, 1) != 0)
					goto fail;
			} else {
				ports[k++] = &p->dp;
			}
			p->rxq_published = on;
			/* Only the queues the peer enabled are polled. */
			for (uint16_t q = 0; q < p->dp.n_rxq; q++)
				if ((on & (1u << q)) && !p->rxq[q].moving &&
				    view_add_poll(v, p->rxq[q].worker, p->dp.idx, q) != 0)
					goto fail;
		}
		if (k != 0 && view_add_net(v, (enum dp_net_mode)net->mode, net->vlan,
					   net->mac_limit, ports, k) != 0)
			goto fail;
	}
	return v;
fail:
	/* Marks that match nothing: the next queue_tick builds again. */
	TAILQ_FOREACH (net, &network_all, next) {
		struct port *p;

		TAILQ_FOREACH (p, &net->ports, net_next)
			p->rxq_published = (uint16_t)~queue_enabled(p);
	}
	view_free(v);
	return NULL;
}
