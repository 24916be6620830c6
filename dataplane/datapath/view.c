/* SPDX-License-Identifier: BSD-3-Clause */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <rte_malloc.h>

#include "datapath/view.h"
#include "daemon/log.h"
#include "model/network.h"
#include "datapath/worker.h"

struct dp_view *volatile dp_current;
struct rte_rcu_qsbr *dp_qsbr;
struct mac_table *dp_macs;
volatile uint32_t dp_clock;

static void view_free(struct dp_view *v)
{
	if (v == NULL)
		return;
	for (unsigned int i = 0; i < PW_MAX_PORTS; i++) {
		/* Networks are shared by their ports: free on first sight. */
		struct dp_net *n = v->nets[i];

		if (n == NULL)
			continue;
		for (unsigned int j = i; j < PW_MAX_PORTS; j++)
			if (v->nets[j] == n)
				v->nets[j] = NULL;
		free(n);
	}
	for (unsigned int w = 0; w < PW_MAX_WORKERS; w++)
		free(v->poll[w]);
	free(v);
}

static struct dp_view *view_build(void)
{
	struct dp_view *v = calloc(1, sizeof(*v));
	struct network *net;
	struct port *p;

	if (v == NULL)
		return NULL;
	memset(v->xc_peer, 0xff, sizeof(v->xc_peer));
	for (unsigned int w = 0; w < n_workers; w++) {
		v->poll[w] = calloc(PW_MAX_PORTS, sizeof(uint16_t));
		if (v->poll[w] == NULL)
			goto fail;
	}
	TAILQ_FOREACH (net, &network_all, next) {
		struct dp_net *dn;
		struct port *first = NULL;
		uint16_t k = 0;

		if (net->n_ports == 0)
			continue;
		dn = calloc(1, sizeof(*dn) + net->n_ports * sizeof(uint16_t));
		if (dn == NULL)
			goto fail;
		dn->mode = net->mode;
		dn->vlan = net->vlan;
		TAILQ_FOREACH (p, &net->ports, net_next) {
			dn->ports[k++] = p->idx;
			v->ports[p->idx] = p;
			v->nets[p->idx] = dn;
			v->poll[p->worker][v->n_poll[p->worker]++] = p->idx;
			if (net->mode == NET_XCONNECT) {
				if (first == NULL) {
					first = p;
				} else if (v->xc_peer[first->idx] == UINT16_MAX) {
					v->xc_peer[first->idx] = p->idx;
					v->xc_peer[p->idx] = first->idx;
				}
			}
		}
		dn->n_ports = k;
	}
	return v;
fail:
	view_free(v);
	return NULL;
}

void dp_wait(void)
{
	rte_rcu_qsbr_synchronize(dp_qsbr, RTE_QSBR_THRID_INVALID);
}

int dp_publish(void)
{
	struct dp_view *old = dp_current, *v = view_build();

	if (v == NULL) {
		PW_LOG(ERR, main, "out of memory building the datapath view; keeping the old one");
		return -ENOMEM;
	}
	__atomic_store_n(&dp_current, v, __ATOMIC_RELEASE);
	dp_wait();
	view_free(old);
	return 0;
}

int dp_init(unsigned int nw, uint32_t mac_capacity)
{
	size_t sz = rte_rcu_qsbr_get_memsize(nw);

	dp_qsbr = rte_zmalloc("pw_qsbr", sz, RTE_CACHE_LINE_SIZE);
	if (dp_qsbr == NULL || rte_rcu_qsbr_init(dp_qsbr, nw) != 0)
		return -ENOMEM;
	dp_macs = mac_table_create(mac_capacity);
	if (dp_macs == NULL)
		return -ENOMEM;
	n_workers = nw;
	dp_current = view_build();
	return dp_current == NULL ? -ENOMEM : 0;
}

void dp_fini(void)
{
	view_free(dp_current);
	dp_current = NULL;
	mac_table_free(dp_macs);
	dp_macs = NULL;
	rte_free(dp_qsbr);
	dp_qsbr = NULL;
}
