/* SPDX-License-Identifier: BSD-3-Clause */
#include "datapath/worker.h"
#include "model/network.h"
#include "model/publish.h"

static unsigned int fail_next;

void model_view_fail_next(unsigned int n)
{
	fail_next = n;
}

struct view *model_view_build(const struct port *skip)
{
	struct dp_port *ports[PW_MAX_PORTS];
	unsigned int workers_of[PW_MAX_PORTS];
	struct network *net;
	struct view *v;

	if (fail_next != 0) {
		fail_next--;
		return NULL;
	}
	v = view_alloc(n_workers);
	if (v == NULL)
		return NULL;
	TAILQ_FOREACH (net, &network_all, next) {
		struct port *p;
		uint16_t k = 0;

		TAILQ_FOREACH (p, &net->ports, net_next) {
			if (p == skip)
				continue;
			ports[k] = &p->dp;
			workers_of[k++] = p->worker;
		}
		if (k != 0 && view_add_net(v, (enum dp_net_mode)net->mode, net->vlan,
					   net->mac_limit, ports, workers_of, k) != 0) {
			view_free(v);
			return NULL;
		}
	}
	return v;
}
