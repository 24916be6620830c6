/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Compiled lists: a librte_acl context over struct acl_key, one category,
 * rule i at priority n - i (the first matching rule wins) with userdata
 * i + 1 (0 is librte_acl's "no match": the default). Lists of at most
 * ACL_LINEAR_MAX rules are scanned rule by rule instead (acl_rule_match,
 * the same semantics): for a handful of rules that is cheaper than the
 * trie's walk of the 56-byte key.
 */
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_acl.h>
#include <rte_byteorder.h>
#include <rte_malloc.h>

#include "acl/acl.h"
#include "core/log.h"

PW_LOG_TYPE("acl");

enum {
	F_PROTO,
	F_L3,
	F_FLAGS,
	F_VLAN,
	F_SPORT,
	F_DPORT,
	F_ETHERTYPE,
	F_SMAC_LO,
	F_SMAC_HI,
	F_DMAC_HI,
	F_DMAC_LO,
	F_PAD,
	F_SRC,	    /* 4 words */
	F_DST = 16, /* 4 words */
	F_NUM = 20
};

RTE_ACL_RULE_DEF(acl_trie_rule, F_NUM);

#define DEF(t, sz, f, in, off)                                                                     \
	{                                                                                          \
		.type = RTE_ACL_FIELD_TYPE_##t, .size = sz, .field_index = f, .input_index = in,   \
		.offset = off                                                                      \
	}

/* librte_acl reads the first field as one byte, then the key 4 bytes per
 * input index: the fields of one index fill its 4 bytes (a pad field
 * where they would not). */
static const struct rte_acl_field_def key_defs[F_NUM] = {
    DEF(BITMASK, 1, F_PROTO, 0, offsetof(struct acl_key, proto)),
    DEF(BITMASK, 1, F_L3, 1, offsetof(struct acl_key, l3)),
    DEF(BITMASK, 1, F_FLAGS, 1, offsetof(struct acl_key, tcp_flags)),
    DEF(RANGE, 2, F_VLAN, 1, offsetof(struct acl_key, vlan)),
    DEF(RANGE, 2, F_SPORT, 2, offsetof(struct acl_key, sport)),
    DEF(RANGE, 2, F_DPORT, 2, offsetof(struct acl_key, dport)),
    DEF(RANGE, 2, F_ETHERTYPE, 3, offsetof(struct acl_key, ethertype)),
    DEF(BITMASK, 2, F_SMAC_LO, 3, offsetof(struct acl_key, smac_lo)),
    DEF(BITMASK, 4, F_SMAC_HI, 4, offsetof(struct acl_key, smac_hi)),
    DEF(BITMASK, 4, F_DMAC_HI, 5, offsetof(struct acl_key, dmac_hi)),
    DEF(BITMASK, 2, F_DMAC_LO, 6, offsetof(struct acl_key, dmac_lo)),
    DEF(BITMASK, 2, F_PAD, 6, offsetof(struct acl_key, pad1)),
    DEF(MASK, 4, F_SRC + 0, 7, offsetof(struct acl_key, src) + 0),
    DEF(MASK, 4, F_SRC + 1, 8, offsetof(struct acl_key, src) + 4),
    DEF(MASK, 4, F_SRC + 2, 9, offsetof(struct acl_key, src) + 8),
    DEF(MASK, 4, F_SRC + 3, 10, offsetof(struct acl_key, src) + 12),
    DEF(MASK, 4, F_DST + 0, 11, offsetof(struct acl_key, dst) + 0),
    DEF(MASK, 4, F_DST + 1, 12, offsetof(struct acl_key, dst) + 4),
    DEF(MASK, 4, F_DST + 2, 13, offsetof(struct acl_key, dst) + 8),
    DEF(MASK, 4, F_DST + 3, 14, offsetof(struct acl_key, dst) + 12),
};

_Static_assert(sizeof(struct acl_key) == 60, "the key's layout is the trie's");

static uint32_t be32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

/* The prefix's bits that fall in word w (0-3), as librte_acl's MASK
 * field takes them (a length). */
static uint32_t word_len(uint8_t len, int w)
{
	int l = (int)len - 32 * w;

	return l <= 0 ? 0 : l >= 32 ? 32 : (uint32_t)l;
}

static void trie_rule(const struct acl_rule *r, uint32_t i, uint32_t n, struct acl_trie_rule *t)
{
	struct rte_acl_field *f = t->field;
	uint8_t l3 = 0, l3m = 0;

	memset(t, 0, sizeof(*t));
	t->data.category_mask = 1;
	t->data.priority = (int32_t)(n - i);
	t->data.userdata = i + 1;
	if (r->has_proto) {
		f[F_PROTO].value.u8 = r->proto;
		f[F_PROTO].mask_range.u8 = 0xff;
	}
	if (r->has_proto || r->has_src || r->has_dst || r->has_sport || r->has_dport ||
	    r->has_flags) {
		l3 |= ACL_L3_IP;
		l3m |= ACL_L3_IP;
	}
	if (r->has_src || r->has_dst) {
		l3m |= ACL_L3_V6;
		l3 |= r->v6 ? ACL_L3_V6 : 0;
	}
	if (r->has_sport || r->has_dport || r->has_flags) {
		l3 |= ACL_L3_PORTS;
		l3m |= ACL_L3_PORTS;
	}
	f[F_L3].value.u8 = l3;
	f[F_L3].mask_range.u8 = l3m;
	if (r->has_flags) {
		f[F_FLAGS].value.u8 = r->flags;
		f[F_FLAGS].mask_range.u8 = r->flags_mask;
	}
	f[F_ETHERTYPE].value.u16 = r->has_ethertype ? r->ethertype : 0;
	f[F_ETHERTYPE].mask_range.u16 = r->has_ethertype ? r->ethertype : 0xffff;
	f[F_VLAN].value.u16 = r->has_vlan ? r->vlan : 0;
	f[F_VLAN].mask_range.u16 = r->has_vlan ? r->vlan : 0xffff;
	f[F_SPORT].value.u16 = r->has_sport ? r->sport[0] : 0;
	f[F_SPORT].mask_range.u16 = r->has_sport ? r->sport[1] : 0xffff;
	f[F_DPORT].value.u16 = r->has_dport ? r->dport[0] : 0;
	f[F_DPORT].mask_range.u16 = r->has_dport ? r->dport[1] : 0xffff;
	if (r->has_smac) {
		f[F_SMAC_HI].value.u32 = be32(r->smac);
		f[F_SMAC_HI].mask_range.u32 = UINT32_MAX;
		f[F_SMAC_LO].value.u16 = (uint16_t)(r->smac[4] << 8 | r->smac[5]);
		f[F_SMAC_LO].mask_range.u16 = UINT16_MAX;
	}
	if (r->has_dmac) {
		f[F_DMAC_HI].value.u32 = be32(r->dmac);
		f[F_DMAC_HI].mask_range.u32 = UINT32_MAX;
		f[F_DMAC_LO].value.u16 = (uint16_t)(r->dmac[4] << 8 | r->dmac[5]);
		f[F_DMAC_LO].mask_range.u16 = UINT16_MAX;
	}
	for (int w = 0; w < 4; w++) {
		if (r->has_src) {
			f[F_SRC + w].value.u32 = be32(r->src + 4 * w);
			f[F_SRC + w].mask_range.u32 = word_len(r->src_len, w);
		}
		if (r->has_dst) {
			f[F_DST + w].value.u32 = be32(r->dst + 4 * w);
			f[F_DST + w].mask_range.u32 = word_len(r->dst_len, w);
		}
	}
}

static struct rte_acl_ctx *trie_build(const struct acl_rule *rules, uint32_t n, char *msg,
				      size_t len)
{
	static unsigned int seq;
	struct rte_acl_config cfg = {.num_categories = 1, .num_fields = F_NUM};
	char name[RTE_ACL_NAMESIZE];
	struct rte_acl_param prm = {
	    .name = name,
	    .socket_id = SOCKET_ID_ANY,
	    .rule_size = RTE_ACL_RULE_SZ(F_NUM),
	    .max_rule_num = n,
	};
	struct acl_trie_rule *t;
	struct rte_acl_ctx *ctx;
	int rc;

	snprintf(name, sizeof(name), "pwacl%u", seq++);
	t = calloc(n, sizeof(*t));
	ctx = rte_acl_create(&prm);
	if (t == NULL || ctx == NULL) {
		free(t);
		rte_acl_free(ctx);
		snprintf(msg, len, "no memory for a classifier of %u rules", n);
		return NULL;
	}
	for (uint32_t i = 0; i < n; i++)
		trie_rule(&rules[i], i, n, &t[i]);
	rc = rte_acl_add_rules(ctx, (const struct rte_acl_rule *)t, n);
	free(t);
	memcpy(cfg.defs, key_defs, sizeof(key_defs));
	if (rc == 0)
		rc = rte_acl_build(ctx, &cfg);
	if (rc != 0) {
		rte_acl_free(ctx);
		snprintf(msg, len,
			 "librte_acl cannot build a classifier of %u rules (%s); use fewer "
			 "rules or merge them into prefixes and port ranges",
			 n, strerror(-rc));
		return NULL;
	}
	return ctx;
}

struct acl_list *acl_list_build(const struct acl_rule *rules, uint32_t n, enum acl_action dflt,
				uint16_t id, unsigned int n_workers, char *msg, size_t len)
{
	struct acl_list *l = calloc(1, sizeof(*l));

	if (l == NULL || n > ACL_RULES_MAX)
		goto nomem;
	l->n_rules = n;
	l->id = id;
	l->dflt = (uint8_t)dflt;
	l->rules = malloc((n + 1) * sizeof(*rules));
	if (l->rules == NULL)
		goto nomem;
	memcpy(l->rules, rules, n * sizeof(*rules));
	for (uint32_t i = 0; i < n; i++)
		l->reflect |= rules[i].action == ACL_REFLECT;
	for (unsigned int w = 0; w < n_workers && w < PW_MAX_WORKERS; w++) {
		l->hits[w] =
		    rte_zmalloc("acl_hits", (n + 2) * sizeof(uint64_t), RTE_CACHE_LINE_SIZE);
		if (l->hits[w] == NULL)
			goto nomem;
	}
	if (n > ACL_LINEAR_MAX) {
		l->ctx = trie_build(rules, n, msg, len);
		if (l->ctx == NULL) {
			acl_list_free(l);
			return NULL;
		}
	}
	return l;
nomem:
	acl_list_free(l);
	snprintf(msg, len, "no memory for a list of %u rules", n);
	return NULL;
}

void acl_list_free(struct acl_list *l)
{
	if (l == NULL)
		return;
	rte_acl_free(l->ctx);
	for (unsigned int w = 0; w < PW_MAX_WORKERS; w++)
		rte_free(l->hits[w]);
	free(l->rules);
	free(l);
}

void acl_list_classify(const struct acl_list *l, const struct acl_key *const *keys, uint32_t *res,
		       uint32_t n)
{
	if (l->ctx != NULL) {
		rte_acl_classify(l->ctx, (const uint8_t **)(uintptr_t)keys, res, n, 1);
		for (uint32_t i = 0; i < n; i++)
			res[i] = res[i] == 0 ? l->n_rules : res[i] - 1;
		return;
	}
	for (uint32_t i = 0; i < n; i++) {
		uint32_t r = 0;

		while (r < l->n_rules && !acl_rule_match(&l->rules[r], keys[i]))
			r++;
		res[i] = r;
	}
}

uint64_t acl_list_hits(const struct acl_list *l, uint32_t i)
{
	uint64_t s = 0;

	for (unsigned int w = 0; w < PW_MAX_WORKERS; w++)
		if (l->hits[w] != NULL)
			s += l->hits[w][i];
	return s;
}
