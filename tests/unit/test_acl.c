/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Unit tests of access lists (dataplane/acl/): rules parsed and refused
 * with the rule's index, field and fix; keys made from frames; the
 * librte_acl trie agreeing with the rules' plain semantics on random
 * lists and frames; lists applied on a bridge (ingress, egress, network
 * and port lists, memif-style frames made mbufs) with their counters;
 * a replace; and the classification cost at 10, 1,000 and 10,000 rules
 * (printed). EAL runs without hugepages.
 */
#include <rte_cycles.h>

#include "acl/acl.h"
#include "acl/session.h"
#include "dp_sinks.h"

static struct acl_rule rules[ACL_RULES_MAX];

/* Parses text (a JSON array); returns the rc, msg and field. */
static int parse(const char *text, uint32_t *n, char *msg, size_t len, const char **field)
{
	cJSON *arr = cJSON_Parse(text);
	int rc;

	CU_ASSERT_FATAL(arr != NULL);
	rc = acl_rules_parse(arr, rules, n, msg, len, field);
	cJSON_Delete(arr);
	return rc;
}

static void refused(const char *text, const char *want_field, const char *want_msg)
{
	const char *field = NULL;
	char msg[1024] = "";
	uint32_t n;

	ASSERT_INT_EQ(parse(text, &n, msg, sizeof(msg), &field), -EINVAL);
	ASSERT_STR_EQ(field, want_field);
	ASSERT_CONTAINS(msg, want_msg);
}

static void test_parse_refusals(void)
{
	refused("[{\"action\":\"permit\"},{\"action\":\"deny\",\"src\":\"10.0.0.1/8\"}]", "src",
		"rule 1: \"src\" 10.0.0.1/8 has host bits set; use 10.0.0.0/8");
	refused("[{\"action\":\"deny\",\"dst\":\"fd00::1/64\"}]", "dst", "use fd00::/64");
	refused("[{\"action\":\"deny\",\"proto\":\"tcp\",\"dport\":\"200-100\"}]", "dport",
		"rule 0: \"dport\" 200-100 is upside down; use \"100-200\"");
	refused("[{\"action\":\"deny\",\"proto\":\"tcpp\"}]", "proto", "is not a protocol");
	refused("[{\"action\":\"deny\",\"proto\":300}]", "proto", "is not a protocol");
	refused("[{\"action\":\"deny\",\"dport\":22}]", "dport",
		"needs \"proto\" tcp, udp or sctp");
	refused("[{\"action\":\"deny\",\"proto\":\"icmp\",\"sport\":22}]", "sport",
		"needs \"proto\"");
	refused("[{\"action\":\"deny\",\"proto\":\"udp\",\"tcp_flags\":\"SYN\"}]", "tcp_flags",
		"needs \"proto\": \"tcp\"");
	refused("[{\"action\":\"deny\",\"proto\":\"tcp\",\"tcp_flags\":\"SYN,FOO\"}]", "tcp_flags",
		"FOO is not a TCP flag");
	refused("[{\"action\":\"maybe\"}]", "action", "must be \"permit\", \"deny\"");
	refused("[{\"src\":\"10.0.0.0/8\"}]", "action", "rule 0: \"action\" is required");
	refused("[{\"action\":\"deny\",\"color\":1}]", "rules", "\"color\" is not a rule field");
	refused("[{\"action\":\"deny\",\"src\":\"10.0.0.0/8\",\"dst\":\"fd00::/8\"}]", "dst",
		"give both of one family");
	refused("[{\"action\":\"deny\",\"ethertype\":\"0x0806\",\"src\":\"10.0.0.0/8\"}]",
		"ethertype", "is not IP");
	refused("[{\"action\":\"deny\",\"ethertype\":\"0x86dd\",\"src\":\"10.0.0.0/8\"}]",
		"ethertype", "use 0x0800");
	refused("[{\"action\":\"deny\",\"vlan\":4096}]", "vlan", "0-4095 or \"untagged\"");
	refused("[{\"action\":\"deny\",\"src_mac\":\"02:00:00:00:00\"}]", "src_mac", "a MAC");
	refused("[{\"action\":\"deny\",\"src\":\"10.0.0.0/33\"}]", "src", "length must be 0-32");
	refused("[1]", "action", "rule 0 must be an object");
}

static void test_parse_too_many(void)
{
	cJSON *arr = cJSON_CreateArray();
	const char *field = NULL;
	char msg[512];
	uint32_t n;

	for (int i = 0; i <= ACL_RULES_MAX; i++) {
		cJSON *r = cJSON_CreateObject();

		cJSON_AddStringToObject(r, "action", "deny");
		cJSON_AddItemToArray(arr, r);
	}
	ASSERT_INT_EQ(acl_rules_parse(arr, rules, &n, msg, sizeof(msg), &field), -EINVAL);
	ASSERT_CONTAINS(msg, "has 16385 rules, the limit is 16384");
	ASSERT_STR_EQ(field, "rules");
	cJSON_Delete(cJSON_DetachItemFromArray(arr, 0));
	ASSERT_INT_EQ(acl_rules_parse(arr, rules, &n, msg, sizeof(msg), &field), 0);
	ASSERT_INT_EQ(n, ACL_RULES_MAX);
	cJSON_Delete(arr);
}

/* Every field parses, and what acl_rule_to_json gives parses back to the
 * same rule. */
static void test_parse_round_trip(void)
{
	const char *text =
	    "[{\"action\":\"permit+reflect\",\"src_mac\":\"02:00:00:00:00:0a\","
	    "\"dst_mac\":\"02:00:00:00:00:0B\",\"ethertype\":\"0x0800\",\"vlan\":7,"
	    "\"src\":\"10.1.0.0/"
	    "16\",\"dst\":\"10.2.3.4\",\"proto\":\"tcp\",\"sport\":\"1000-2000\","
	    "\"dport\":22,\"tcp_flags\":\"SYN,!ACK\"},"
	    "{\"action\":\"deny\",\"vlan\":\"untagged\",\"src\":\"fd00:1::/32\",\"proto\":58},"
	    "{\"action\":\"permit\",\"proto\":\"udp\",\"tcp_flags\":null}]";
	static struct acl_rule again[4];
	const char *field = NULL;
	char msg[512];
	uint32_t n, m;
	cJSON *arr;

	/* null is no flag string: refused, naming it */
	ASSERT_INT_EQ(parse(text, &n, msg, sizeof(msg), &field), -EINVAL);
	ASSERT_STR_EQ(field, "tcp_flags");
	text = "[{\"action\":\"permit+reflect\",\"src_mac\":\"02:00:00:00:00:0a\","
	       "\"dst_mac\":\"02:00:00:00:00:0B\",\"ethertype\":\"0x0800\",\"vlan\":7,"
	       "\"src\":\"10.1.0.0/"
	       "16\",\"dst\":\"10.2.3.4\",\"proto\":\"tcp\",\"sport\":\"1000-2000\","
	       "\"dport\":22,\"tcp_flags\":\"SYN,!ACK\"},"
	       "{\"action\":\"deny\",\"vlan\":\"untagged\",\"src\":\"fd00:1::/32\",\"proto\":58},"
	       "{\"action\":\"permit\",\"proto\":\"udp\",\"sport\":\"53\"}]";
	ASSERT_INT_EQ(parse(text, &n, msg, sizeof(msg), &field), 0);
	ASSERT_INT_EQ(n, 3);
	ASSERT_INT_EQ(rules[0].action, ACL_REFLECT);
	ASSERT_INT_EQ(rules[0].flags, 0x02);
	ASSERT_INT_EQ(rules[0].flags_mask, 0x12);
	ASSERT_INT_EQ(rules[0].vlan, 8);
	ASSERT_INT_EQ(rules[0].dst_len, 32);
	ASSERT_INT_EQ(rules[1].v6, 1);
	ASSERT_INT_EQ(rules[1].vlan, 0);
	ASSERT_INT_EQ(rules[2].sport[0], 53);
	ASSERT_INT_EQ(rules[2].sport[1], 53);
	arr = cJSON_CreateArray();
	for (uint32_t i = 0; i < n; i++)
		cJSON_AddItemToArray(arr, acl_rule_to_json(&rules[i]));
	ASSERT_INT_EQ(acl_rules_parse(arr, again, &m, msg, sizeof(msg), &field), 0);
	cJSON_Delete(arr);
	ASSERT_INT_EQ(m, n);
	CU_ASSERT(memcmp(again, rules, n * sizeof(rules[0])) == 0);
}

/* ---- frames and keys ------------------------------------------------------------ */

/* A frame: Ethernet (with a tag when vlan >= 0), then IPv4 (v6 false)
 * or IPv6 with proto and ports; returns its length. */
static uint32_t ip_frame(uint8_t *b, int vlan, bool v6, uint8_t proto, uint16_t sport,
			 uint16_t dport, uint8_t flags, const uint8_t *src, const uint8_t *dst)
{
	uint32_t o = 12;

	memset(b, 0, 128);
	memcpy(b, "\x02\x00\x00\x00\x00\x0b\x02\x00\x00\x00\x00\x0a", 12);
	if (vlan >= 0) {
		b[o++] = 0x81, b[o++] = 0;
		b[o++] = (uint8_t)(vlan >> 8), b[o++] = (uint8_t)vlan;
	}
	if (v6) {
		b[o++] = 0x86, b[o++] = 0xdd;
		b[o] = 0x60;
		b[o + 6] = proto;
		memcpy(b + o + 8, src, 16);
		memcpy(b + o + 24, dst, 16);
		o += 40;
	} else {
		b[o++] = 0x08, b[o++] = 0;
		b[o] = 0x45;
		b[o + 9] = proto;
		memcpy(b + o + 12, src, 4);
		memcpy(b + o + 16, dst, 4);
		o += 20;
	}
	b[o] = (uint8_t)(sport >> 8), b[o + 1] = (uint8_t)sport;
	b[o + 2] = (uint8_t)(dport >> 8), b[o + 3] = (uint8_t)dport;
	b[o + 12] = 0x50;
	b[o + 13] = flags;
	return RTE_MAX(o + 20, 60u);
}

static void test_keys(void)
{
	static const uint8_t s4[4] = {10, 1, 2, 3}, d4[4] = {10, 9, 8, 7};
	static const uint8_t s6[16] = {0xfd, 0, 0, 1, [15] = 1}, d6[16] = {0xfd, 0, 0, 2, [15] = 2};
	uint8_t b[128];
	struct acl_key k;
	uint32_t len;

	len = ip_frame(b, -1, false, 6, 1234, 22, 0x02, s4, d4);
	acl_key_make(&k, b, len);
	ASSERT_INT_EQ(k.l3, ACL_L3_IP | ACL_L3_PORTS);
	ASSERT_INT_EQ(k.proto, 6);
	ASSERT_INT_EQ(rte_be_to_cpu_16(k.sport), 1234);
	ASSERT_INT_EQ(rte_be_to_cpu_16(k.dport), 22);
	ASSERT_INT_EQ(k.tcp_flags, 2);
	ASSERT_INT_EQ(k.vlan, 0);
	ASSERT_INT_EQ(rte_be_to_cpu_16(k.ethertype), 0x0800);
	CU_ASSERT(memcmp(k.src, s4, 4) == 0 && k.src[1] == 0);
	/* tagged IPv6 UDP */
	len = ip_frame(b, 100, true, 17, 53, 5353, 0, s6, d6);
	acl_key_make(&k, b, len);
	ASSERT_INT_EQ(rte_be_to_cpu_16(k.vlan), 101);
	ASSERT_INT_EQ(k.l3, ACL_L3_IP | ACL_L3_V6 | ACL_L3_PORTS);
	ASSERT_INT_EQ(rte_be_to_cpu_16(k.dport), 5353);
	CU_ASSERT(memcmp(k.dst, d6, 16) == 0);
	/* a later IPv4 fragment: no ports */
	len = ip_frame(b, -1, false, 6, 1234, 22, 0x02, s4, d4);
	b[14 + 7] = 10;
	acl_key_make(&k, b, len);
	ASSERT_INT_EQ(k.l3, ACL_L3_IP);
	ASSERT_INT_EQ(k.sport, 0);
	/* IPv6 with a hop-by-hop header before TCP */
	len = ip_frame(b, -1, true, 0, 0, 0, 0, s6, d6);
	memmove(b + 62, b + 54, 40);
	memset(b + 54, 0, 8);
	b[54] = 6; /* next: TCP; length 0: 8 bytes */
	b[62] = 0x12, b[63] = 0x34, b[64] = 0, b[65] = 80;
	acl_key_make(&k, b, len + 8);
	ASSERT_INT_EQ(k.proto, 6);
	ASSERT_INT_EQ(k.l3, ACL_L3_IP | ACL_L3_V6 | ACL_L3_PORTS);
	ASSERT_INT_EQ(rte_be_to_cpu_16(k.dport), 80);
	/* ARP: no L3 */
	b[12] = 0x08, b[13] = 0x06;
	acl_key_make(&k, b, 60);
	ASSERT_INT_EQ(k.l3, 0);
	ASSERT_INT_EQ(rte_be_to_cpu_16(k.ethertype), 0x0806);
	/* a truncated IPv4 header: not IP */
	len = ip_frame(b, -1, false, 6, 1, 2, 0, s4, d4);
	acl_key_make(&k, b, 14 + 19);
	ASSERT_INT_EQ(k.l3, 0);
}

/* ---- the trie agrees with the plain semantics ------------------------------------ */

static uint32_t rnd_state = 12345;

static uint32_t rnd(void)
{
	rnd_state = rnd_state * 1103515245u + 12345u;
	return rnd_state >> 8;
}

/* A random frame from a small universe of values, so rules hit. */
static uint32_t rnd_frame(uint8_t *b)
{
	uint8_t s[16] = {0}, d[16] = {0};
	bool v6 = rnd() % 2;
	static const uint8_t protos[] = {6, 17, 1, 58, 132};
	uint32_t len;

	for (int i = 0; i < 16; i++) {
		s[i] = (uint8_t)(i < 2 ? 10 : rnd() % 4);
		d[i] = (uint8_t)(i < 2 ? 10 : rnd() % 4);
	}
	len = ip_frame(b, rnd() % 3 == 0 ? (int)(rnd() % 4) : -1, v6, protos[rnd() % 5],
		       (uint16_t)(rnd() % 8 * 1000), (uint16_t)(rnd() % 8 * 1000), (uint8_t)rnd(),
		       s, d);
	b[11] = (uint8_t)(rnd() % 3);
	b[5] = (uint8_t)(rnd() % 3);
	if (rnd() % 8 == 0) {
		uint32_t off = b[12] == 0x81 ? 16 : 12;

		b[off] = 0x08, b[off + 1] = 0x06; /* ARP */
	}
	return len;
}

/* A random rule made from a random frame's fields, some of them. */
static void rnd_rule(struct acl_rule *r)
{
	uint8_t b[128];
	struct acl_key k;

	acl_key_make(&k, b, rnd_frame(b));
	memset(r, 0, sizeof(*r));
	r->action = (uint8_t)(rnd() % 3);
	if (rnd() % 5 == 0) {
		r->has_smac = 1;
		memcpy(r->smac, k.smac_hi, 4);
		memcpy(r->smac + 4, k.smac_lo, 2);
	}
	if (rnd() % 6 == 0) {
		r->has_ethertype = 1;
		r->ethertype = rte_be_to_cpu_16(k.ethertype);
	}
	if (rnd() % 5 == 0) {
		r->has_vlan = 1;
		r->vlan = rte_be_to_cpu_16(k.vlan);
	}
	if (!(k.l3 & ACL_L3_IP))
		return;
	r->v6 = (k.l3 & ACL_L3_V6) != 0;
	if (rnd() % 2) {
		r->has_src = 1;
		r->src_len = (uint8_t)(rnd() % (r->v6 ? 129 : 33));
		memcpy(r->src, k.src, 16);
		for (unsigned int bit = r->src_len; bit < 128; bit++)
			r->src[bit / 8] &= (uint8_t) ~(0x80 >> (bit % 8));
	}
	if (rnd() % 2) {
		r->has_dst = 1;
		r->dst_len = (uint8_t)(rnd() % (r->v6 ? 129 : 33));
		memcpy(r->dst, k.dst, 16);
		for (unsigned int bit = r->dst_len; bit < 128; bit++)
			r->dst[bit / 8] &= (uint8_t) ~(0x80 >> (bit % 8));
	}
	if (rnd() % 2) {
		r->has_proto = 1;
		r->proto = k.proto;
		if ((k.l3 & ACL_L3_PORTS) && rnd() % 2) {
			uint16_t a = (uint16_t)(rnd() % 8000), c = (uint16_t)(rnd() % 8000);

			r->has_dport = 1;
			r->dport[0] = RTE_MIN(a, c);
			r->dport[1] = RTE_MAX(a, c);
		}
		if ((k.l3 & ACL_L3_PORTS) && rnd() % 3 == 0) {
			r->has_sport = 1;
			r->sport[0] = r->sport[1] = rte_be_to_cpu_16(k.sport);
		}
		if (k.proto == 6 && rnd() % 3 == 0) {
			r->has_flags = 1;
			r->flags_mask = (uint8_t)rnd();
			r->flags = k.tcp_flags & r->flags_mask;
		}
	}
}

static void test_trie_agrees(void)
{
	static struct acl_key keys[4096];
	const struct acl_key *kp[PW_BURST];
	uint32_t res[PW_BURST];
	char msg[256];
	unsigned int sizes[] = {1, 5, 40, 300};
	unsigned int wrong = 0, matched = 0;

	for (unsigned int s = 0; s < RTE_DIM(sizes); s++) {
		uint32_t n = sizes[s];
		struct acl_list *l;

		for (uint32_t i = 0; i < n; i++)
			rnd_rule(&rules[i]);
		l = acl_list_build(rules, n, ACL_DENY, 1, 1, msg, sizeof(msg));
		CU_ASSERT_FATAL(l != NULL);
		CU_ASSERT((l->ctx != NULL) == (n > ACL_LINEAR_MAX));
		for (unsigned int i = 0; i < RTE_DIM(keys); i++) {
			uint8_t b[128];

			acl_key_make(&keys[i], b, rnd_frame(b));
		}
		for (unsigned int i = 0; i < RTE_DIM(keys); i += PW_BURST) {
			for (unsigned int j = 0; j < PW_BURST; j++)
				kp[j] = &keys[i + j];
			acl_list_classify(l, kp, res, PW_BURST);
			for (unsigned int j = 0; j < PW_BURST; j++) {
				uint32_t want = 0;

				while (want < n && !acl_rule_match(&rules[want], kp[j]))
					want++;
				wrong += res[j] != want;
				matched += want < n;
			}
		}
		acl_list_free(l);
	}
	ASSERT_INT_EQ(wrong, 0);
	/* the test means something: most frames hit some rule */
	CU_ASSERT(matched > RTE_DIM(keys));
}

/* ---- lists on a bridge -------------------------------------------------------------- */

static struct rte_mbuf *mbuf_of(const uint8_t *b, uint32_t len)
{
	struct rte_mbuf *m = rte_pktmbuf_alloc(pw_mbuf_pool);

	CU_ASSERT_FATAL(m != NULL);
	memcpy(rte_pktmbuf_append(m, (uint16_t)len), b, len);
	return m;
}

static void set_list(const char *name, const char *text, enum acl_action dflt)
{
	char msg[512];
	uint32_t n;
	const char *field;
	bool rep;

	ASSERT_INT_EQ(parse(text, &n, msg, sizeof(msg), &field), 0);
	ASSERT_INT_EQ(acl_set(name, dflt, rules, n, &rep, msg, sizeof(msg)), 0);
}

static uint64_t show_num(const char *name, const char *field, int rule)
{
	cJSON *o = acl_show_json(acl_find(name), 0, ACL_RULES_MAX);
	const cJSON *v =
	    rule < 0 ? cJSON_GetObjectItem(o, field)
		     : cJSON_GetObjectItem(
			   cJSON_GetArrayItem(cJSON_GetObjectItem(o, "rules"), rule), field);
	uint64_t x = cJSON_IsNumber(v) ? (uint64_t)v->valuedouble : UINT64_MAX;

	cJSON_Delete(o);
	return x;
}

static void test_bridge(void)
{
	static const uint8_t s4[4] = {10, 0, 0, 1}, d4[4] = {10, 0, 0, 2};
	struct network *n = dp_net("aclnet", NET_BRIDGE, 0);
	struct port *a = dp_port("acla", n, "sink", A), *b = dp_port("aclb", n, "sink", B);
	uint8_t f[128];
	char msg[512];
	uint32_t len;

	/* b learned */
	send1(b, dp_frame(BCAST, B, 0, 60, 0));
	set_list("in",
		 "[{\"action\":\"deny\",\"proto\":\"tcp\",\"dport\":22},"
		 "{\"action\":\"permit\",\"proto\":\"tcp\"}]",
		 ACL_DENY);
	ASSERT_INT_EQ(acl_attach("in", "acla", NULL, ACL_IN, msg, sizeof(msg)), 0);
	CU_ASSERT(a->dp.acl != NULL && b->dp.acl == NULL);
	ASSERT_INT_EQ(acl_attach("in", "acla", NULL, ACL_IN, msg, sizeof(msg)), 0); /* again: ok */
	ASSERT_INT_EQ(acl_attach("nope", "acla", NULL, ACL_IN, msg, sizeof(msg)), -ENOENT);
	ASSERT_INT_EQ(acl_attach("in", "ghost", NULL, ACL_IN, msg, sizeof(msg)), -ENOENT);
	ASSERT_CONTAINS(msg, "port \"ghost\" does not exist");
	sink_clear(b);
	len = ip_frame(f, -1, false, 6, 1000, 22, 2, s4, d4);
	send1(a, mbuf_of(f, len)); /* denied by rule 0 */
	len = ip_frame(f, -1, false, 6, 1000, 80, 2, s4, d4);
	send1(a, mbuf_of(f, len)); /* permitted by rule 1 */
	len = ip_frame(f, -1, false, 17, 1000, 80, 2, s4, d4);
	send1(a, mbuf_of(f, len)); /* the default: deny */
	ASSERT_INT_EQ(sink_of(b)->n, 1);
	ASSERT_INT_EQ(dp_counters(a).drops[DROP_ACL_DENY], 2);
	ASSERT_INT_EQ(show_num("in", "hits", 0), 1);
	ASSERT_INT_EQ(show_num("in", "hits", 1), 1);
	ASSERT_INT_EQ(show_num("in", "default_hits", -1), 1);
	/* deleting an attached list is refused */
	ASSERT_INT_EQ(acl_del("in", msg, sizeof(msg)), -EBUSY);
	ASSERT_CONTAINS(msg, "attached to port \"acla\" ingress");
	/* a replace: the old version's counters end, summed in replaced_hits */
	set_list("in", "[{\"action\":\"permit\"}]", ACL_DENY);
	ASSERT_INT_EQ(show_num("in", "replaced_hits", -1), 3);
	ASSERT_INT_EQ(show_num("in", "replaces", -1), 1);
	len = ip_frame(f, -1, false, 6, 1000, 22, 2, s4, d4);
	send1(a, mbuf_of(f, len));
	ASSERT_INT_EQ(sink_of(b)->n, 2);
	ASSERT_INT_EQ(show_num("in", "hits", 0), 1);
	/* a network's egress list: a's frames to b denied there, counted on b */
	set_list("out", "[{\"action\":\"deny\",\"dst\":\"10.0.0.2\"}]", ACL_PERMIT);
	ASSERT_INT_EQ(acl_attach("out", NULL, "aclnet", ACL_OUT, msg, sizeof(msg)), 0);
	CU_ASSERT(b->dp.acl != NULL && b->dp.acl->to_mbufs);
	CU_ASSERT(b->dp.egress & acl_egress_bit());
	ASSERT_INT_EQ(acl_attach("in", NULL, "aclnet", ACL_OUT, msg, sizeof(msg)), -EEXIST);
	send1(a, mbuf_of(f, len));
	ASSERT_INT_EQ(sink_of(b)->n, 2);
	ASSERT_INT_EQ(dp_counters(b).drops[DROP_ACL_DENY], 1);
	ASSERT_INT_EQ(show_num("out", "hits", 0), 1);
	/* frames without mbufs from a are made mbufs and decided the same */
	{
		struct dp_frame fr;
		uint32_t cuts[2] = {20, 0};

		len = ip_frame(f, -1, false, 6, 1000, 22, 2, s4, (const uint8_t[]){10, 0, 0, 3});
		make_frame(&fr, f, len, cuts);
		frames_in(a, &fr, 1);
		ASSERT_INT_EQ(show_num("in", "hits", 0), 3);
		ASSERT_INT_EQ(show_num("out", "default_hits", -1), 1);
	}
	ASSERT_INT_EQ(acl_detach("out", NULL, "aclnet", -1, msg, sizeof(msg)), 0);
	CU_ASSERT(b->dp.acl == NULL);
	CU_ASSERT(!(b->dp.egress & acl_egress_bit()));
	ASSERT_INT_EQ(acl_detach("out", NULL, "aclnet", -1, msg, sizeof(msg)), -ENOENT);
	ASSERT_INT_EQ(acl_detach("in", "acla", NULL, ACL_IN, msg, sizeof(msg)), 0);
	CU_ASSERT(a->dp.acl == NULL);
	ASSERT_INT_EQ(acl_del("in", msg, sizeof(msg)), 0);
	ASSERT_INT_EQ(acl_del("out", msg, sizeof(msg)), 0);
	CU_ASSERT(acl_find("in") == NULL);
	sink_clear(a), sink_clear(b);
	destroy(a), destroy(b);
	destroy_net(n);
}

/* ---- permit+reflect through the stages, a burst at a time ------------------------ */

/* a's pod opens 20 UDP flows in one burst of 32 (12 frames repeat
 * flows); b answers with a burst where every other frame is the reply
 * of one of them (the others: flows a never opened, frames not IP):
 * exactly the replies reach a, in order, each a session hit of a's
 * egress list; the rest are denied there. The stage looks the
 * burst up and records it with the bulk calls: this is what they must
 * keep of the one-by-one semantics. */
static void test_reflect_burst(void)
{
	static const uint8_t s4[4] = {10, 0, 0, 1}, d4[4] = {10, 0, 0, 2};
	struct network *n = dp_net("aclrf", NET_BRIDGE, 0);
	struct port *a = dp_port("aclrfa", n, "sink", A), *b = dp_port("aclrfb", n, "sink", B);
	struct acl_session_stats st0, st1;
	struct rte_mbuf *m[PW_BURST];
	uint8_t f[128];
	char msg[512];
	uint32_t len;

	/* The harness starts no module: the tables are this test's, on the
	 * worker's clock (the harness leaves it still). */
	ASSERT_INT_EQ(acl_sessions_init(1, 0), 0);
	workers[0]->now = rte_rdtsc();
	send1(b, dp_frame(BCAST, B, 0, 60, 0));
	send1(a, dp_frame(BCAST, A, 0, 60, 0));
	set_list("rfin", "[{\"action\":\"permit+reflect\",\"proto\":\"udp\"}]", ACL_DENY);
	set_list("rfout", "[{\"action\":\"deny\",\"proto\":\"icmp\"}]", ACL_DENY);
	ASSERT_INT_EQ(acl_attach("rfin", "aclrfa", NULL, ACL_IN, msg, sizeof(msg)), 0);
	ASSERT_INT_EQ(acl_attach("rfout", "aclrfa", NULL, ACL_OUT, msg, sizeof(msg)), 0);
	acl_sessions_stats_at(0, workers[0]->now, &st0);
	sink_clear(a), sink_clear(b);
	for (int i = 0; i < PW_BURST; i++) {
		len = ip_frame(f, -1, false, 17, (uint16_t)(1000 + i % 20), 53, 0, s4, d4);
		m[i] = mbuf_of(f, len);
	}
	dp_harness_input(a, m, PW_BURST);
	ASSERT_INT_EQ(sink_of(b)->n, PW_BURST);
	acl_sessions_stats_at(0, workers[0]->now, &st1);
	ASSERT_INT_EQ(st1.created - st0.created, 20);
	ASSERT_INT_EQ(st1.live - st0.live, 20);
	for (int i = 0; i < PW_BURST; i++) {
		/* even: the reply of flow i / 2; odd: a flow a never opened */
		uint16_t dport = (uint16_t)(i % 2 == 0 ? 1000 + i / 2 : 3000 + i);

		len = ip_frame(f, -1, false, 17, 53, dport, 0, d4, s4);
		memcpy(f, "\x02\x00\x00\x00\x00\x0a\x02\x00\x00\x00\x00\x0b", 12);
		if (i % 4 == 3) /* not IP: no session to look up, so a gap in the flows */
			f[12] = 0x88, f[13] = 0xb5;
		m[i] = mbuf_of(f, len);
	}
	dp_harness_input(b, m, PW_BURST);
	ASSERT_INT_EQ(sink_of(a)->n, PW_BURST / 2);
	for (int i = 0; i < sink_of(a)->n; i++) {
		const uint8_t *p = rte_pktmbuf_mtod(sink_of(a)->got[i], const uint8_t *);

		ASSERT_INT_EQ(p[14 + 20 + 2] << 8 | p[14 + 20 + 3], 1000 + i);
	}
	ASSERT_INT_EQ(dp_counters(a).drops[DROP_ACL_DENY], PW_BURST / 2);
	ASSERT_INT_EQ(show_num("rfout", "session_hits", -1), PW_BURST / 2);
	ASSERT_INT_EQ(show_num("rfout", "default_hits", -1), PW_BURST / 2);
	ASSERT_INT_EQ(acl_detach("rfin", "aclrfa", NULL, -1, msg, sizeof(msg)), 0);
	ASSERT_INT_EQ(acl_detach("rfout", "aclrfa", NULL, -1, msg, sizeof(msg)), 0);
	ASSERT_INT_EQ(acl_del("rfin", msg, sizeof(msg)), 0);
	ASSERT_INT_EQ(acl_del("rfout", msg, sizeof(msg)), 0);
	sink_clear(a), sink_clear(b);
	destroy(a), destroy(b);
	destroy_net(n);
	acl_sessions_fini();
}

/* ---- a pod rewriting its frame after the decision ------------------------------- */

/* The pod's shared buffer, and where its frame's destination port is. */
static uint8_t pod_buf[128];
static uint32_t pod_dport_off;

/* A stage after the decision that does what a hostile memif pod may do
 * at any moment: rewrite the frame in its shared memory. */
static void rewrite(struct worker *w, const struct view *v, struct dp_burst *b)
{
	(void)w, (void)v, (void)b;
	pod_buf[pod_dport_off] = 0;
	pod_buf[pod_dport_off + 1] = 22;
}

static const struct dp_stage rewrite_stage = {.name = "hostile", .run = rewrite};

/* The frame forwarded is the one decided on: with a list, a rewrite
 * after the decision reaches no one; without one (no copy, as before
 * lists), the same rewrite is what the destination gets, which is why
 * the copy is made. */
static void test_rewrite_after_decision(void)
{
	static const uint8_t s4[4] = {10, 0, 0, 1}, d4[4] = {10, 0, 0, 2};
	struct network *n = dp_net("aclrw", NET_BRIDGE, 0);
	struct port *a = dp_port("aclrwa", n, "sink", A), *b = dp_port("aclrwb", n, "sink", B);
	uint32_t cuts[2] = {0, 0}, len;
	const uint8_t *got;
	struct dp_frame fr;
	char msg[512];

	send1(b, dp_frame(BCAST, B, 0, 60, 0));
	CU_ASSERT_FATAL(dp_stage_register(DP_STAGE_FORWARD, &rewrite_stage) == 0);
	set_list("rw", "[{\"action\":\"deny\",\"proto\":\"tcp\",\"dport\":22}]", ACL_PERMIT);
	ASSERT_INT_EQ(acl_attach("rw", "aclrwa", NULL, ACL_IN, msg, sizeof(msg)), 0);
	for (int with = 1; with >= 0; with--) {
		sink_clear(b);
		len = ip_frame(pod_buf, -1, false, 6, 1000, 80, 2, s4, d4);
		pod_dport_off = 14 + 20 + 2;
		make_frame(&fr, pod_buf, len, cuts);
		frames_in(a, &fr, 1);
		ASSERT_INT_EQ(sink_of(b)->n, 1);
		if (sink_of(b)->n != 1)
			break;
		got = rte_pktmbuf_mtod(sink_of(b)->got[0], const uint8_t *);
		/* with the list: port 80 as decided; without: the rewrite */
		ASSERT_INT_EQ(got[pod_dport_off + 1], with ? 80 : 22);
		if (with)
			ASSERT_INT_EQ(acl_detach("rw", "aclrwa", NULL, -1, msg, sizeof(msg)), 0);
	}
	dp_stage_unregister(&rewrite_stage);
	ASSERT_INT_EQ(acl_del("rw", msg, sizeof(msg)), 0);
	sink_clear(a), sink_clear(b);
	destroy(a), destroy(b);
	destroy_net(n);
}

/* ---- cost ------------------------------------------------------------------------------ */

/* Cycles per frame to classify bursts of 32 at 10, 1,000 and 10,000
 * rules that all miss but the last (permit at the end), as the benchmark
 * cells have them: printed, not asserted. */
static void test_cost(void)
{
	static const unsigned int sizes[] = {1, 4, 10, 1000, 10000};
	static struct acl_key keys[PW_BURST];
	const struct acl_key *kp[PW_BURST];
	uint32_t res[PW_BURST];
	char msg[256];

	for (unsigned int i = 0; i < PW_BURST; i++) {
		uint8_t b[128];
		static const uint8_t s4[4] = {10, 0, 0, 1}, d4[4] = {10, 0, 1, 2};

		acl_key_make(&keys[i], b,
			     ip_frame(b, -1, false, 17, 1000, (uint16_t)(i + 1), 0, s4, d4));
		kp[i] = &keys[i];
	}
	for (unsigned int s = 0; s < RTE_DIM(sizes); s++) {
		uint32_t n = sizes[s];
		struct acl_list *l;
		uint64_t t0, t1, tb0;
		unsigned int rounds = 20000;

		for (uint32_t i = 0; i + 1 < n; i++) {
			memset(&rules[i], 0, sizeof(rules[i]));
			rules[i].action = ACL_DENY;
			rules[i].has_dst = 1;
			rules[i].dst_len = 32;
			rules[i].dst[0] = 192, rules[i].dst[1] = 168;
			rules[i].dst[2] = (uint8_t)(i >> 8), rules[i].dst[3] = (uint8_t)i;
			rules[i].has_proto = 1;
			rules[i].proto = 17;
			rules[i].has_dport = 1;
			rules[i].dport[0] = rules[i].dport[1] = (uint16_t)(i % 1000 + 1);
		}
		memset(&rules[n - 1], 0, sizeof(rules[0]));
		rules[n - 1].action = ACL_PERMIT;
		tb0 = rte_rdtsc();
		l = acl_list_build(rules, n, ACL_DENY, 1, 1, msg, sizeof(msg));
		CU_ASSERT_FATAL(l != NULL);
		t0 = rte_rdtsc();
		for (unsigned int r = 0; r < rounds; r++)
			acl_list_classify(l, kp, res, PW_BURST);
		t1 = rte_rdtsc();
		ASSERT_INT_EQ(res[0], n - 1);
		printf("\n  acl: %5u rules (%s): %.1f cycles/frame, built in %.1f ms", n,
		       l->ctx != NULL ? "trie" : "linear",
		       (double)(t1 - t0) / ((double)rounds * PW_BURST),
		       (double)(t0 - tb0) * 1000.0 / (double)rte_get_tsc_hz());
		acl_list_free(l);
	}
	putchar('\n');
}

int main(void)
{
	static const struct unit_test tests[] = {
	    {"acl: bad rules refused with index, field and fix", test_parse_refusals},
	    {"acl: a list over the limit is refused", test_parse_too_many},
	    {"acl: rules parse and print back the same", test_parse_round_trip},
	    {"acl: keys from frames", test_keys},
	    {"acl: the trie agrees with the rules' semantics", test_trie_agrees},
	    {"acl: lists on a bridge: ingress, egress, network, frames, replace", test_bridge},
	    {"acl: a pod's rewrite after the decision reaches no one", test_rewrite_after_decision},
	    {"acl: permit+reflect a burst at a time: replies only, in order", test_reflect_burst},
	    {"acl: classification cost", test_cost},
	    {NULL, NULL},
	};
	int rc;

	dp_harness_init(1);
	rc = unit_run("acl", tests);
	dp_harness_fini();
	return rc;
}
