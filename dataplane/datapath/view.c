/* SPDX-License-Identifier: BSD-3-Clause */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <rte_malloc.h>

#include "datapath/view.h"

struct view *volatile view_current;
struct rte_rcu_qsbr *view_qsbr;

/* The empty view is static: publishing it needs no memory. */
static struct view view_empty;

void view_free(struct view *v)
{
	if (v == NULL || v == &view_empty)
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

struct view *view_alloc(void)
{
	struct view *v = calloc(1, sizeof(*v));

	if (v == NULL)
		return NULL;
	memset(v->xc_peer, 0xff, sizeof(v->xc_peer));
	return v;
}

int view_add_poll(struct view *v, unsigned int w, uint16_t port, uint16_t q)
{
	if (w >= PW_MAX_WORKERS)
		return -EINVAL;
	if (v->n_poll[w] == v->poll_cap[w]) {
		uint32_t cap = v->poll_cap[w] != 0 ? v->poll_cap[w] * 2 : 16;
		struct dp_poll *np = realloc(v->poll[w], cap * sizeof(*np));

		if (np == NULL)
			return -ENOMEM;
		v->poll[w] = np;
		v->poll_cap[w] = cap;
	}
	v->poll[w][v->n_poll[w]++] = (struct dp_poll){.port = port, .q = q};
	return 0;
}

int view_add_net(struct view *v, enum dp_net_mode mode, uint16_t vlan, uint32_t mac_limit,
		 struct dp_port *const *ports, uint16_t n)
{
	struct dp_net *dn = calloc(1, sizeof(*dn) + n * sizeof(uint16_t));

	if (dn == NULL)
		return -ENOMEM;
	dn->mode = (uint16_t)mode;
	dn->vlan = vlan;
	dn->mac_limit = mac_limit;
	dn->n_ports = n;
	for (uint16_t k = 0; k < n; k++) {
		uint16_t idx = ports[k]->idx;

		dn->ports[k] = idx;
		v->ports[idx] = ports[k];
		v->nets[idx] = dn;
	}
	/* A cross-connect joins its first two ports. */
	if (mode == DP_NET_XCONNECT && n >= 2) {
		v->xc_peer[dn->ports[0]] = dn->ports[1];
		v->xc_peer[dn->ports[1]] = dn->ports[0];
	}
	return 0;
}

void view_wait(void)
{
	rte_rcu_qsbr_synchronize(view_qsbr, RTE_QSBR_THRID_INVALID);
}

void view_publish(struct view *v)
{
	struct view *old = view_current;

	__atomic_store_n(&view_current, v, __ATOMIC_RELEASE);
	view_wait();
	view_free(old);
}

void view_publish_empty(void)
{
	view_publish(&view_empty);
}

int view_init(unsigned int n_workers)
{
	size_t sz = rte_rcu_qsbr_get_memsize(n_workers);

	view_qsbr = rte_zmalloc("pw_qsbr", sz, RTE_CACHE_LINE_SIZE);
	if (view_qsbr == NULL || rte_rcu_qsbr_init(view_qsbr, n_workers) != 0)
		return -ENOMEM;
	memset(view_empty.xc_peer, 0xff, sizeof(view_empty.xc_peer));
	view_current = &view_empty;
	return 0;
}

void view_fini(void)
{
	view_free(view_current);
	view_current = NULL;
	rte_free(view_qsbr);
	view_qsbr = NULL;
}
