/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A list as a selector (acl.h): verdicts without counting or sessions,
 * for a filtered mirror; and the hook that keeps a list a mirror uses
 * from being deleted under it.
 */
#include <rte_common.h>
#include <rte_mbuf.h>

#include "acl/acl.h"

/* As stage.c: enough of a frame for its L2-L4 headers (a tag, IPv6 with
 * extension headers, TCP). */
#define SELECT_KEY_BYTES 192

void acl_select(const struct acl_list *l, struct rte_mbuf *const *m, uint16_t n, bool *permit)
{
	struct acl_key keys[RTE_MAX(PW_BURST, 64)];
	const struct acl_key *kp[RTE_DIM(keys)];
	uint32_t res[RTE_DIM(keys)];

	for (uint16_t from = 0; from < n; from += RTE_DIM(keys)) {
		uint16_t k = RTE_MIN((uint16_t)(n - from), (uint16_t)RTE_DIM(keys));

		for (uint16_t i = 0; i < k; i++) {
			const struct rte_mbuf *b = m[from + i];
			uint32_t want = RTE_MIN(b->pkt_len, (uint32_t)SELECT_KEY_BYTES);
			uint8_t buf[SELECT_KEY_BYTES];
			const uint8_t *p;

			if (likely(b->data_len >= want))
				p = rte_pktmbuf_mtod(b, const uint8_t *);
			else
				p = rte_pktmbuf_read(b, 0, want, buf);
			acl_key_make(&keys[i], p, want);
			kp[i] = &keys[i];
		}
		acl_list_classify(l, kp, res, k);
		for (uint16_t i = 0; i < k; i++) {
			uint8_t act = res[i] == l->n_rules ? l->dflt : l->rules[res[i]].action;

			permit[from + i] = act != ACL_DENY;
		}
	}
}

static acl_user_fn user_fn;

void acl_user_register(acl_user_fn fn)
{
	user_fn = fn;
}

bool acl_used_by(const char *name, char *buf, size_t len)
{
	return user_fn != NULL && user_fn(name, buf, len);
}
