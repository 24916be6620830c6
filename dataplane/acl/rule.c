/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Rules: what a frame's key is (acl_key_make), when a rule matches it
 * (acl_rule_match: the semantics in plain code, which the trie must
 * agree with), and the rules' JSON, checked as a whole so that a bad
 * list changes nothing.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <rte_byteorder.h>

#include "acl/acl.h"
#include "api.h"

/* ---- keys ------------------------------------------------------------------- */

static inline uint16_t rd16(const uint8_t *p)
{
	return (uint16_t)(p[0] << 8 | p[1]);
}

/* Whether proto carries ports in its first 4 bytes, and how many bytes
 * its header needs before rules may look at it. */
static inline uint32_t l4_need(uint8_t proto)
{
	switch (proto) {
	case 6:
		return 20; /* TCP: flags at 13 */
	case 17:
		return 8;
	case 132:
		return 12; /* SCTP */
	default:
		return 0;
	}
}

/* IPv6 extension headers skipped to find the protocol: hop-by-hop,
 * routing, destination options and fragment, at most this many (a frame
 * with more keeps the last header's number as its protocol). */
#define V6_EXT_MAX 8

void acl_key_make(struct acl_key *k, const uint8_t *p, uint32_t len)
{
	uint32_t off = 14, l4 = 0;
	uint16_t et;
	bool later = false;

	memset(k, 0, sizeof(*k));
	if (len < 14)
		return;
	memcpy(k->dmac_hi, p, 4);
	memcpy(k->dmac_lo, p + 4, 2);
	memcpy(k->smac_hi, p + 6, 4);
	memcpy(k->smac_lo, p + 10, 2);
	et = rd16(p + 12);
	if (et == 0x8100 && len >= 18) {
		k->vlan = rte_cpu_to_be_16((uint16_t)((rd16(p + 14) & 0xfff) + 1));
		et = rd16(p + 16);
		off = 18;
	}
	k->ethertype = rte_cpu_to_be_16(et);
	if (et == 0x0800 && len >= off + 20 && (p[off] >> 4) == 4) {
		uint32_t ihl = (p[off] & 0xfu) * 4;

		if (ihl < 20 || len < off + ihl)
			return;
		k->l3 = ACL_L3_IP;
		k->proto = p[off + 9];
		memcpy(&k->src[0], p + off + 12, 4);
		memcpy(&k->dst[0], p + off + 16, 4);
		later = (rd16(p + off + 6) & 0x1fff) != 0;
		l4 = off + ihl;
	} else if (et == 0x86dd && len >= off + 40 && (p[off] >> 4) == 6) {
		uint8_t nh = p[off + 6];

		k->l3 = ACL_L3_IP | ACL_L3_V6;
		memcpy(k->src, p + off + 8, 16);
		memcpy(k->dst, p + off + 24, 16);
		l4 = off + 40;
		for (int i = 0; i < V6_EXT_MAX; i++) {
			if (nh != 0 && nh != 43 && nh != 60 && nh != 44)
				break;
			if (len < l4 + 8)
				break;
			if (nh == 44) {
				later |= (rd16(p + l4 + 2) & 0xfff8) != 0;
				nh = p[l4];
				l4 += 8;
			} else {
				uint8_t next = p[l4];

				l4 += (p[l4 + 1] + 1u) * 8;
				nh = next;
			}
		}
		k->proto = nh;
	} else {
		return;
	}
	if (!later && l4_need(k->proto) != 0 && len >= l4 + l4_need(k->proto)) {
		k->l3 |= ACL_L3_PORTS;
		memcpy(&k->sport, p + l4, 2);
		memcpy(&k->dport, p + l4 + 2, 2);
		if (k->proto == 6)
			k->tcp_flags = p[l4 + 13];
	}
}

/* Whether the first len bits of a and b agree. */
static bool prefix_eq(const uint8_t *a, const uint8_t *b, unsigned int len)
{
	unsigned int whole = len / 8, rest = len % 8;

	if (memcmp(a, b, whole) != 0)
		return false;
	return rest == 0 || ((a[whole] ^ b[whole]) & (uint8_t)(0xff << (8 - rest))) == 0;
}

bool acl_rule_match(const struct acl_rule *r, const struct acl_key *k)
{
	uint16_t v;

	if (r->has_smac &&
	    (memcmp(r->smac, k->smac_hi, 4) != 0 || memcmp(r->smac + 4, k->smac_lo, 2) != 0))
		return false;
	if (r->has_dmac &&
	    (memcmp(r->dmac, k->dmac_hi, 4) != 0 || memcmp(r->dmac + 4, k->dmac_lo, 2) != 0))
		return false;
	if (r->has_ethertype && rte_be_to_cpu_16(k->ethertype) != r->ethertype)
		return false;
	if (r->has_vlan && rte_be_to_cpu_16(k->vlan) != r->vlan)
		return false;
	if ((r->has_proto || r->has_src || r->has_dst || r->has_sport || r->has_dport ||
	     r->has_flags) &&
	    !(k->l3 & ACL_L3_IP))
		return false;
	if ((r->has_src || r->has_dst) && !!(k->l3 & ACL_L3_V6) != r->v6)
		return false;
	if (r->has_proto && k->proto != r->proto)
		return false;
	if (r->has_src && !prefix_eq(r->src, (const uint8_t *)k->src, r->src_len))
		return false;
	if (r->has_dst && !prefix_eq(r->dst, (const uint8_t *)k->dst, r->dst_len))
		return false;
	if ((r->has_sport || r->has_dport || r->has_flags) && !(k->l3 & ACL_L3_PORTS))
		return false;
	v = rte_be_to_cpu_16(k->sport);
	if (r->has_sport && (v < r->sport[0] || v > r->sport[1]))
		return false;
	v = rte_be_to_cpu_16(k->dport);
	if (r->has_dport && (v < r->dport[0] || v > r->dport[1]))
		return false;
	if (r->has_flags && (k->tcp_flags & r->flags_mask) != r->flags)
		return false;
	return true;
}

/* ---- JSON ------------------------------------------------------------------- */

static const struct {
	const char *name;
	uint8_t num;
} protos[] = {{"icmp", 1}, {"igmp", 2}, {"tcp", 6},	{"udp", 17},  {"gre", 47},
	      {"esp", 50}, {"ah", 51},	{"icmpv6", 58}, {"ospf", 89}, {"sctp", 132}};

static const char *const flag_names[8] = {"FIN", "SYN", "RST", "PSH", "ACK", "URG", "ECE", "CWR"};

const char *acl_action_name(enum acl_action a)
{
	return a == ACL_DENY ? "deny" : a == ACL_REFLECT ? "permit+reflect" : "permit";
}

int acl_action_parse(const char *s, enum acl_action *a)
{
	if (strcmp(s, "permit") == 0)
		*a = ACL_PERMIT;
	else if (strcmp(s, "deny") == 0)
		*a = ACL_DENY;
	else if (strcmp(s, "permit+reflect") == 0)
		*a = ACL_REFLECT;
	else
		return -EINVAL;
	return 0;
}

/* Where a parse failed: the rule's index and field, for the message. */
struct ctx {
	uint32_t idx;
	const char *field;
	char *msg;
	size_t len;
};

static int bad(struct ctx *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int bad(struct ctx *c, const char *fmt, ...)
{
	int n = snprintf(c->msg, c->len, "rule %u: \"%s\" ", c->idx, c->field);
	va_list ap;

	va_start(ap, fmt);
	if (n >= 0 && (size_t)n < c->len)
		vsnprintf(c->msg + n, c->len - (size_t)n, fmt, ap);
	va_end(ap);
	return -EINVAL;
}

static int parse_mac(struct ctx *c, const cJSON *v, uint8_t *mac)
{
	unsigned int b[6];
	char end;

	if (!cJSON_IsString(v) || sscanf(v->valuestring, "%2x:%2x:%2x:%2x:%2x:%2x%c", &b[0], &b[1],
					 &b[2], &b[3], &b[4], &b[5], &end) != 6)
		return bad(c, "must be a MAC such as \"02:00:00:00:00:01\"");
	for (int i = 0; i < 6; i++)
		mac[i] = (uint8_t)b[i];
	return 0;
}

/* A number from a JSON number, or a string in decimal or 0x hex. */
static int parse_num(const cJSON *v, long *out)
{
	char *end;

	if (cJSON_IsNumber(v)) {
		if (!api_number_is_long(v->valuedouble))
			return -EINVAL;
		*out = (long)v->valuedouble;
		return 0;
	}
	if (!cJSON_IsString(v) || v->valuestring[0] == '\0')
		return -EINVAL;
	errno = 0;
	*out = strtol(v->valuestring, &end, 0);
	return errno != 0 || *end != '\0' ? -EINVAL : 0;
}

static int parse_prefix(struct ctx *c, const cJSON *v, uint8_t *addr, uint8_t *plen, int *v6)
{
	char buf[64], *slash, fix[INET6_ADDRSTRLEN];
	long len;
	int af;

	if (!cJSON_IsString(v) || strlen(v->valuestring) >= sizeof(buf))
		return bad(c, "must be an address or prefix such as \"10.0.0.0/8\" or "
			      "\"fd00::/64\"");
	snprintf(buf, sizeof(buf), "%s", v->valuestring);
	slash = strchr(buf, '/');
	if (slash != NULL)
		*slash = '\0';
	memset(addr, 0, 16);
	if (inet_pton(AF_INET, buf, addr) == 1)
		af = AF_INET;
	else if (inet_pton(AF_INET6, buf, addr) == 1)
		af = AF_INET6;
	else
		return bad(c, "%s is not an IPv4 or IPv6 address; give e.g. \"10.0.0.0/8\"",
			   v->valuestring);
	len = af == AF_INET ? 32 : 128;
	if (slash != NULL) {
		char *end;
		long max = len;

		len = strtol(slash + 1, &end, 10);
		if (slash[1] == '\0' || *end != '\0' || len < 0 || len > max)
			return bad(c, "%s: the prefix length must be 0-%ld", v->valuestring, max);
	}
	for (long bit = len; bit < (af == AF_INET ? 32 : 128); bit++)
		if (addr[bit / 8] & (0x80 >> (bit % 8))) {
			uint8_t m[16];

			memcpy(m, addr, 16);
			for (long b = len; b < 128; b++)
				m[b / 8] &= (uint8_t) ~(0x80 >> (b % 8));
			inet_ntop(af, m, fix, sizeof(fix));
			return bad(c, "%s has host bits set; use %s/%ld", v->valuestring, fix, len);
		}
	*plen = (uint8_t)len;
	*v6 = af == AF_INET6;
	return 0;
}

static int parse_range(struct ctx *c, const cJSON *v, uint16_t *r)
{
	long a, b;

	if (cJSON_IsString(v) && strchr(v->valuestring + 1, '-') != NULL) {
		char *end, *dash = strchr(v->valuestring + 1, '-');

		errno = 0;
		a = strtol(v->valuestring, &end, 10);
		if (end != dash || v->valuestring[0] == '-')
			return bad(c, "%s is not a port or a range such as \"1024-65535\"",
				   v->valuestring);
		b = strtol(dash + 1, &end, 10);
		if (*end != '\0' || dash[1] == '\0' || errno != 0)
			return bad(c, "%s is not a port or a range such as \"1024-65535\"",
				   v->valuestring);
	} else if (parse_num(v, &a) == 0) {
		b = a;
	} else {
		return bad(c, "must be a port (0-65535) or a range such as \"1024-65535\"");
	}
	if (a < 0 || a > 65535 || b < 0 || b > 65535)
		return bad(c, "%ld-%ld: ports are 0-65535", a, b);
	if (a > b)
		return bad(c, "%ld-%ld is upside down; use \"%ld-%ld\"", a, b, b, a);
	r[0] = (uint16_t)a;
	r[1] = (uint16_t)b;
	return 0;
}

static int parse_proto(struct ctx *c, const cJSON *v, uint8_t *proto)
{
	long n;

	if (cJSON_IsString(v))
		for (size_t i = 0; i < RTE_DIM(protos); i++)
			if (strcasecmp(v->valuestring, protos[i].name) == 0) {
				*proto = protos[i].num;
				return 0;
			}
	if (parse_num(v, &n) != 0 || n < 0 || n > 255)
		return bad(c,
			   "%s%s%s is not a protocol; give a number 0-255 or one of tcp, udp, "
			   "icmp, icmpv6, sctp, gre, esp, ah, igmp, ospf",
			   cJSON_IsString(v) ? "\"" : "",
			   cJSON_IsString(v) ? v->valuestring : "a value",
			   cJSON_IsString(v) ? "\"" : "");
	*proto = (uint8_t)n;
	return 0;
}

/* "SYN,!ACK" (set, and clear) or "VALUE/MASK" in numbers. */
static int parse_flags(struct ctx *c, const cJSON *v, uint8_t *val, uint8_t *mask)
{
	char buf[128], *save = NULL, *tok;
	long a, b;

	if (!cJSON_IsString(v) || strlen(v->valuestring) >= sizeof(buf))
		return bad(c, "must be flags such as \"SYN,!ACK\" or \"0x02/0x12\"");
	snprintf(buf, sizeof(buf), "%s", v->valuestring);
	if (strchr(buf, '/') != NULL) {
		char *slash = strchr(buf, '/'), *end;

		*slash = '\0';
		a = strtol(buf, &end, 0);
		if (*end != '\0' || buf[0] == '\0')
			return bad(c, "%s: VALUE/MASK must be numbers such as \"0x02/0x12\"",
				   v->valuestring);
		b = strtol(slash + 1, &end, 0);
		if (*end != '\0' || slash[1] == '\0' || a < 0 || a > 255 || b < 0 || b > 255)
			return bad(c, "%s: VALUE/MASK must be numbers 0-255 such as \"0x02/0x12\"",
				   v->valuestring);
		if ((a & ~b) != 0)
			return bad(c, "%s sets bits outside its mask; use \"0x%02lx/0x%02lx\"",
				   v->valuestring, a & b, b);
		*val = (uint8_t)a;
		*mask = (uint8_t)b;
		return 0;
	}
	*val = *mask = 0;
	for (tok = strtok_r(buf, ",", &save); tok != NULL; tok = strtok_r(NULL, ",", &save)) {
		bool neg = tok[0] == '!';
		int f;

		for (f = 0; f < 8; f++)
			if (strcasecmp(tok + neg, flag_names[f]) == 0)
				break;
		if (f == 8)
			return bad(c,
				   "%s is not a TCP flag; use FIN, SYN, RST, PSH, ACK, URG, ECE, "
				   "CWR, each with ! for \"not set\", comma separated",
				   tok);
		*mask |= (uint8_t)(1 << f);
		if (!neg)
			*val |= (uint8_t)(1 << f);
	}
	if (*mask == 0)
		return bad(c, "names no flag; give e.g. \"SYN,!ACK\"");
	return 0;
}

static int parse_rule(struct ctx *c, const cJSON *o, struct acl_rule *r)
{
	const cJSON *f;
	int src_v6 = -1, dst_v6 = -1, v6 = 0;
	enum acl_action a;
	long n;

	memset(r, 0, sizeof(*r));
	c->field = "action";
	if (!cJSON_IsObject(o)) {
		snprintf(c->msg, c->len,
			 "rule %u must be an object such as {\"action\": \"permit\"}", c->idx);
		return -EINVAL;
	}
	cJSON_ArrayForEach (f, o) {
		c->field = f->string;
		if (strcmp(f->string, "action") == 0) {
			if (!cJSON_IsString(f) || acl_action_parse(f->valuestring, &a) != 0)
				return bad(c, "must be \"permit\", \"deny\" or \"permit+reflect\"");
			r->action = (uint8_t)a;
		} else if (strcmp(f->string, "src_mac") == 0) {
			if (parse_mac(c, f, r->smac) != 0)
				return -EINVAL;
			r->has_smac = 1;
		} else if (strcmp(f->string, "dst_mac") == 0) {
			if (parse_mac(c, f, r->dmac) != 0)
				return -EINVAL;
			r->has_dmac = 1;
		} else if (strcmp(f->string, "ethertype") == 0) {
			if (parse_num(f, &n) != 0 || n < 0 || n > 0xffff)
				return bad(c, "must be an EtherType 0-0xffff such as \"0x0806\"");
			if (n == 0x8100)
				return bad(c, "0x8100 is the VLAN tag; rules see the EtherType "
					      "after it: match the tag with \"vlan\"");
			r->ethertype = (uint16_t)n;
			r->has_ethertype = 1;
		} else if (strcmp(f->string, "vlan") == 0) {
			if (cJSON_IsString(f) && strcmp(f->valuestring, "untagged") == 0) {
				r->vlan = 0;
			} else if (parse_num(f, &n) == 0 && n >= 0 && n <= 4095) {
				r->vlan = (uint16_t)(n + 1);
			} else {
				return bad(c, "must be a VLAN id 0-4095 or \"untagged\"");
			}
			r->has_vlan = 1;
		} else if (strcmp(f->string, "src") == 0) {
			if (parse_prefix(c, f, r->src, &r->src_len, &src_v6) != 0)
				return -EINVAL;
			r->has_src = 1;
		} else if (strcmp(f->string, "dst") == 0) {
			if (parse_prefix(c, f, r->dst, &r->dst_len, &dst_v6) != 0)
				return -EINVAL;
			r->has_dst = 1;
		} else if (strcmp(f->string, "proto") == 0) {
			if (parse_proto(c, f, &r->proto) != 0)
				return -EINVAL;
			r->has_proto = 1;
		} else if (strcmp(f->string, "sport") == 0) {
			if (parse_range(c, f, r->sport) != 0)
				return -EINVAL;
			r->has_sport = 1;
		} else if (strcmp(f->string, "dport") == 0) {
			if (parse_range(c, f, r->dport) != 0)
				return -EINVAL;
			r->has_dport = 1;
		} else if (strcmp(f->string, "tcp_flags") == 0) {
			if (parse_flags(c, f, &r->flags, &r->flags_mask) != 0)
				return -EINVAL;
			r->has_flags = 1;
		} else {
			return bad(c, "is not a rule field; rules take action, src_mac, dst_mac, "
				      "ethertype, vlan, src, dst, proto, sport, dport, tcp_flags");
		}
	}
	c->field = "action";
	if (cJSON_GetObjectItemCaseSensitive(o, "action") == NULL)
		return bad(c, "is required: \"permit\", \"deny\" or \"permit+reflect\"");
	if (src_v6 >= 0 && dst_v6 >= 0 && src_v6 != dst_v6) {
		c->field = "dst";
		return bad(c, "is IPv%d but \"src\" is IPv%d; give both of one family",
			   dst_v6 ? 6 : 4, src_v6 ? 6 : 4);
	}
	v6 = src_v6 > 0 || dst_v6 > 0;
	r->v6 = (uint8_t)v6;
	if ((r->has_sport || r->has_dport) &&
	    (!r->has_proto || (r->proto != 6 && r->proto != 17 && r->proto != 132))) {
		c->field = r->has_sport ? "sport" : "dport";
		return bad(c, "needs \"proto\" tcp, udp or sctp: ports belong to those");
	}
	if (r->has_flags && (!r->has_proto || r->proto != 6)) {
		c->field = "tcp_flags";
		return bad(c, "needs \"proto\": \"tcp\"");
	}
	if (r->has_ethertype && (r->has_src || r->has_dst || r->has_proto) &&
	    r->ethertype != 0x0800 && r->ethertype != 0x86dd) {
		c->field = "ethertype";
		return bad(c,
			   "0x%04x is not IP, but the rule matches IP fields; drop \"ethertype\" "
			   "or use 0x0800/0x86dd",
			   r->ethertype);
	}
	if (r->has_ethertype && (r->has_src || r->has_dst) &&
	    r->ethertype != (v6 ? 0x86dd : 0x0800)) {
		c->field = "ethertype";
		return bad(c,
			   "0x%04x does not carry the IPv%d addresses the rule gives; use 0x%04x",
			   r->ethertype, v6 ? 6 : 4, v6 ? 0x86dd : 0x0800);
	}
	return 0;
}

/* The field's name as a string that outlives the request (c.field may
 * point into it); "rules" for a name that is no rule field. */
static const char *field_name(const char *f)
{
	static const char *const names[] = {"action", "src_mac", "dst_mac",  "ethertype",
					    "vlan",   "src",	 "dst",	     "proto",
					    "sport",  "dport",	 "tcp_flags"};

	for (size_t i = 0; f != NULL && i < RTE_DIM(names); i++)
		if (strcmp(f, names[i]) == 0)
			return names[i];
	return "rules";
}

int acl_rules_parse(const cJSON *arr, struct acl_rule *rules, uint32_t *n, char *msg, size_t len,
		    const char **field)
{
	struct ctx c = {.msg = msg, .len = len};
	const cJSON *o;
	int size;

	*field = "rules";
	if (!cJSON_IsArray(arr)) {
		snprintf(msg, len, "\"rules\" must be an array of rule objects");
		return -EINVAL;
	}
	size = cJSON_GetArraySize(arr);
	if (size > ACL_RULES_MAX) {
		snprintf(msg, len,
			 "\"rules\" has %d rules, the limit is %d; split the list or "
			 "merge rules into prefixes and port ranges",
			 size, ACL_RULES_MAX);
		return -EINVAL;
	}
	*n = 0;
	cJSON_ArrayForEach (o, arr) {
		c.idx = *n;
		if (parse_rule(&c, o, &rules[*n]) != 0) {
			*field = field_name(c.field);
			return -EINVAL;
		}
		(*n)++;
	}
	return 0;
}

static void add_range(cJSON *o, const char *name, const uint16_t *r)
{
	char buf[16];

	if (r[0] == r[1])
		snprintf(buf, sizeof(buf), "%u", r[0]);
	else
		snprintf(buf, sizeof(buf), "%u-%u", r[0], r[1]);
	cJSON_AddStringToObject(o, name, buf);
}

static void add_prefix(cJSON *o, const char *name, const uint8_t *a, uint8_t len, bool v6)
{
	char buf[INET6_ADDRSTRLEN + 8];
	size_t k;

	inet_ntop(v6 ? AF_INET6 : AF_INET, a, buf, sizeof(buf));
	k = strlen(buf);
	snprintf(buf + k, sizeof(buf) - k, "/%u", len);
	cJSON_AddStringToObject(o, name, buf);
}

cJSON *acl_rule_to_json(const struct acl_rule *r)
{
	cJSON *o = cJSON_CreateObject();
	char buf[64];

	cJSON_AddStringToObject(o, "action", acl_action_name((enum acl_action)r->action));
	if (r->has_smac) {
		snprintf(buf, sizeof(buf), "%02x:%02x:%02x:%02x:%02x:%02x", r->smac[0], r->smac[1],
			 r->smac[2], r->smac[3], r->smac[4], r->smac[5]);
		cJSON_AddStringToObject(o, "src_mac", buf);
	}
	if (r->has_dmac) {
		snprintf(buf, sizeof(buf), "%02x:%02x:%02x:%02x:%02x:%02x", r->dmac[0], r->dmac[1],
			 r->dmac[2], r->dmac[3], r->dmac[4], r->dmac[5]);
		cJSON_AddStringToObject(o, "dst_mac", buf);
	}
	if (r->has_ethertype) {
		snprintf(buf, sizeof(buf), "0x%04x", r->ethertype);
		cJSON_AddStringToObject(o, "ethertype", buf);
	}
	if (r->has_vlan) {
		if (r->vlan == 0)
			snprintf(buf, sizeof(buf), "untagged");
		else
			snprintf(buf, sizeof(buf), "%u", r->vlan - 1u);
		cJSON_AddStringToObject(o, "vlan", buf);
	}
	if (r->has_src)
		add_prefix(o, "src", r->src, r->src_len, r->v6);
	if (r->has_dst)
		add_prefix(o, "dst", r->dst, r->dst_len, r->v6);
	if (r->has_proto) {
		const char *name = NULL;

		for (size_t i = 0; i < RTE_DIM(protos); i++)
			if (protos[i].num == r->proto)
				name = protos[i].name;
		if (name == NULL) {
			snprintf(buf, sizeof(buf), "%u", r->proto);
			name = buf;
		}
		cJSON_AddStringToObject(o, "proto", name);
	}
	if (r->has_sport)
		add_range(o, "sport", r->sport);
	if (r->has_dport)
		add_range(o, "dport", r->dport);
	if (r->has_flags) {
		snprintf(buf, sizeof(buf), "0x%02x/0x%02x", r->flags, r->flags_mask);
		cJSON_AddStringToObject(o, "tcp_flags", buf);
	}
	return o;
}
