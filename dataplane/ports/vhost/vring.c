/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * What podwired's split and packed vhost-user rings share (vring.h).
 */
#include <stdio.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include "ports/vhost/vring.h"

void __rte_noinline vring_broken(struct vhost_vq *vr, const char *fmt, unsigned int a,
				 unsigned int b)
{
	uint32_t working = 0;

	/* 0 -> 1 for the first who finds it, who writes why, then 2: the
	 * control thread reads why only at 2 (memif does the same). */
	if (__atomic_load_n(vr->broken, __ATOMIC_RELAXED) != 0 ||
	    !__atomic_compare_exchange_n(vr->broken, &working, 1, false, __ATOMIC_ACQ_REL,
					 __ATOMIC_RELAXED))
		return;
	if (vr->broken_why != NULL)
		snprintf(vr->broken_why, vr->broken_why_len, fmt, a, b);
	__atomic_store_n(vr->broken, 2, __ATOMIC_RELEASE);
}

void vring_call(struct vhost_vq *vr)
{
	uint64_t one = 1;

	if (vr->callfd < 0)
		return;
	/* call.c made this eventfd non-blocking and drains it: a write that
	 * fails (the counter full) loses nothing the guest needs. */
	if (write(vr->callfd, &one, sizeof(one)) == sizeof(one))
		vr->st.calls++;
}
