/* SPDX-License-Identifier: BSD-3-Clause */
/* Unit tests of cni/vf.c: what the plugin asks podwired's VF pools for,
 * and how their refusals become CNI errors. */
#include "files.h"
#include "unit.h"
#include "vf.h"

#define ENV_ADD                                                                                    \
	"CNI_COMMAND=ADD", "CNI_CONTAINERID=3f6940ab5ab4", "CNI_NETNS=/var/run/netns/p1",          \
	    "CNI_IFNAME=net2", "CNI_PATH=/opt/cni/bin"

static struct cni_env env_add;

static void conf_parse(const char *json, struct netconf *c)
{
	struct cni_error err = {0};
	int rc = netconf_parse(json, strlen(json), &env_add, c, &err);

	unit_check(rc == 0, __LINE__, __FILE__, "config does not parse: %s", err.msg);
}

static void test_pci_addr(void)
{
	ASSERT_INT_EQ(pci_addr_valid("0000:01:10.2"), 1);
	ASSERT_INT_EQ(pci_addr_valid("0000:af:1f.7"), 1);
	ASSERT_INT_EQ(pci_addr_valid("0000:AF:1F.7"), 1);
	ASSERT_INT_EQ(pci_addr_valid("01:10.2"), 0);	  /* no domain */
	ASSERT_INT_EQ(pci_addr_valid("0000:01:10.8"), 0); /* function 0-7 */
	ASSERT_INT_EQ(pci_addr_valid("0000:01:10:2"), 0);
	ASSERT_INT_EQ(pci_addr_valid("0000:01:10.2 "), 0);
	ASSERT_INT_EQ(pci_addr_valid("0000:0g:10.2"), 0);
	ASSERT_INT_EQ(pci_addr_valid(""), 0);
	ASSERT_INT_EQ(pci_addr_valid(NULL), 0);
}

static void test_owner(void)
{
	char owner[VF_OWNER_MAX];

	vf_owner("3f6940ab5ab4", "net2", owner);
	ASSERT_STR_EQ(owner, "3f6940ab5ab4/net2");
}

static void test_alloc_params(void)
{
	struct netconf c;
	struct attach a;
	cJSON *p;

	conf_parse("{\"cniVersion\":\"1.1.0\",\"name\":\"n\",\"iftype\":\"pci\","
		   "\"physnet\":\"physnet2\"}",
		   &c);
	attach_init(&a, &c, &env_add, 0x1a2b3c4d);
	/* Only what the config sets: podwired leaves the rest as the PF has it. */
	p = vf_alloc_params(&c, &a, "");
	ASSERT_STR_EQ(api_get_str(p, "physnet", ""), "physnet2");
	ASSERT_STR_EQ(api_get_str(p, "owner", ""), "3f6940ab5ab4/net2");
	ASSERT_INT_EQ(cJSON_GetArraySize(p), 2);
	cJSON_Delete(p);
	netconf_free(&c);

	conf_parse("{\"cniVersion\":\"1.1.0\",\"name\":\"n\",\"iftype\":\"pci\","
		   "\"physnet\":\"physnet3\",\"vlan\":0,\"spoofChk\":\"off\",\"trust\":\"on\"}",
		   &c);
	attach_init(&a, &c, &env_add, 0x1a2b3c4d);
	p = vf_alloc_params(&c, &a, "02:00:00:00:00:07");
	ASSERT_STR_EQ(api_get_str(p, "physnet", ""), "physnet3");
	ASSERT_INT_EQ(api_get_int(p, "vlan", -1), 0);
	ASSERT_STR_EQ(api_get_str(p, "mac", ""), "02:00:00:00:00:07");
	ASSERT_INT_EQ(cJSON_IsFalse(cJSON_GetObjectItem(p, "spoof_check")), 1);
	ASSERT_INT_EQ(cJSON_IsTrue(cJSON_GetObjectItem(p, "trust")), 1);
	cJSON_Delete(p);
	/* The attachment of a VF has a directory but no socket. */
	ASSERT_STR_EQ(a.socket, "");
	ASSERT_STR_EQ(a.physnet, "physnet3");
	netconf_free(&c);
}

/* podwired's refusal (code, field, message) -> CNI code and message. */
static void expect_map(int code, const char *field, const char *msg, int cni_code,
		       const char *needle)
{
	struct pw_error pe = {.code = code};
	struct cni_error err = {0};
	struct netconf c;

	snprintf(pe.field, sizeof(pe.field), "%s", field);
	snprintf(pe.message, sizeof(pe.message), "%s", msg);
	conf_parse("{\"cniVersion\":\"1.1.0\",\"name\":\"n\",\"iftype\":\"pci\","
		   "\"physnet\":\"physnet2\",\"runtimeConfig\":{\"mac\":\"02:00:00:00:00:01\"}}",
		   &c);
	ASSERT_INT_EQ(vf_alloc_error(&pe, &c, &err), -1);
	ASSERT_INT_EQ(err.code, cni_code);
	ASSERT_CONTAINS(err.msg, needle);
	ASSERT_CONTAINS(err.msg, msg); /* podwired's own words stay */
	netconf_free(&c);
}

static void test_alloc_errors(void)
{
	expect_map(API_ERR_NOT_FOUND, "physnet",
		   "physnet \"physnet2\" is not configured; podwired knows physnet3",
		   CNI_ERR_CONFIG, "\"physnet\": physnet \"physnet2\" is not configured");
	expect_map(API_ERR_INVALID_PARAMS, "physnet", "bad name", CNI_ERR_CONFIG, "\"physnet\": ");
	expect_map(API_ERR_INVALID_PARAMS, "owner", "owner is 300 bytes; give 1-127", CNI_ERR_ENV,
		   "podwired refuses CNI_CONTAINERID/CNI_IFNAME as the owner of a VF");
	expect_map(API_ERR_RESOURCE, "physnet", "all 4 VFs are lent", CNI_ERR_TRY_AGAIN,
		   "physnet \"physnet2\" has no free VF (podwired: all 4 VFs are lent); the "
		   "runtime's retry succeeds once a pod gives one back");
	/* podwired's other resource errors name no field: not worth a retry. */
	expect_map(API_ERR_RESOURCE, "", "the vfio-pci driver is not loaded", PW_ERR_PODWIRED,
		   "podwired refused to lend a VF of physnet \"physnet2\"");
	expect_map(API_ERR_INVALID_PARAMS, "vlan", "VLAN id 5000", CNI_ERR_CONFIG,
		   "\"vlan\" was refused by podwired for a VF of physnet \"physnet2\"");
	expect_map(API_ERR_INVALID_PARAMS, "mac", "multicast", CNI_ERR_CONFIG,
		   "runtimeConfig \"mac\" was refused");
	expect_map(API_ERR_INVALID_PARAMS, "spoof_check", "not supported", CNI_ERR_CONFIG,
		   "\"spoofChk\" was refused");
	expect_map(API_ERR_INVALID_PARAMS, "trust", "not supported", CNI_ERR_CONFIG,
		   "\"trust\" was refused");
	expect_map(0, "", "cannot connect to podwired", CNI_ERR_TRY_AGAIN, "; retry");
	expect_map(API_ERR_NOT_READY, "", "starting", CNI_ERR_TRY_AGAIN, "now: starting");
	expect_map(API_ERR_INTERNAL, "", "vfio-pci bind did not take", PW_ERR_PODWIRED,
		   "podwired refused to lend a VF of physnet \"physnet2\"");
}

/* A VF attachment's record keeps its VF; its pending entry releases by owner. */
static void test_record_and_pending(void)
{
	char dir[128], path[256];
	struct cni_error err = {0};
	struct netconf c;
	struct attach a, b;
	cJSON *e = NULL;

	ASSERT_INT_EQ(unit_tmpdir(dir, sizeof(dir)), 1);
	conf_parse("{\"cniVersion\":\"1.1.0\",\"name\":\"n\",\"iftype\":\"pci\","
		   "\"physnet\":\"physnet2\"}",
		   &c);
	attach_init(&a, &c, &env_add, 0x1a2b3c4d);
	snprintf(a.pci, sizeof(a.pci), "0000:01:10.2");
	snprintf(a.pf_pci, sizeof(a.pf_pci), "0000:01:00.0");
	snprintf(a.vfio, sizeof(a.vfio), "/dev/vfio/11");
	ASSERT_INT_EQ(record_write(dir, &a, &err), 0);
	ASSERT_INT_EQ(record_read(dir, 0x1a2b3c4d, &b, &err), 1);
	ASSERT_INT_EQ(b.iftype, IFTYPE_PCI);
	ASSERT_STR_EQ(b.physnet, "physnet2");
	ASSERT_STR_EQ(b.pci, "0000:01:10.2");
	ASSERT_STR_EQ(b.pf_pci, "0000:01:00.0");
	ASSERT_STR_EQ(b.vfio, "/dev/vfio/11");
	ASSERT_STR_EQ(b.port, "pw-1a2b3c4d-net2");
	attach_free(&b);

	ASSERT_INT_EQ(pending_exists(dir, a.port), 0);
	ASSERT_INT_EQ(pending_add(dir, &a, &err), 0);
	ASSERT_INT_EQ(pending_exists(dir, a.port), 1);
	snprintf(path, sizeof(path), "%s/pending/%s.json", dir, a.port);
	ASSERT_INT_EQ(file_read_json(path, &e), 0);
	ASSERT_STR_EQ(api_get_str(e, "vfOwner", ""), "3f6940ab5ab4/net2");
	ASSERT_STR_EQ(api_get_str(e, "pci", ""), "0000:01:10.2");
	cJSON_Delete(e);
	netconf_free(&c);
	unit_rmtree(dir);
}

int main(void)
{
	static const struct unit_test tests[] = {
	    {"PCI addresses in BDF form", test_pci_addr},
	    {"owner is containerID/ifname", test_owner},
	    {"vf.alloc params: only what the config sets", test_alloc_params},
	    {"vf.alloc refusals become CNI errors", test_alloc_errors},
	    {"record and pending entry of a VF attachment", test_record_and_pending},
	    {NULL, NULL},
	};
	char *const envp[] = {ENV_ADD, NULL};
	struct cni_error err;

	if (cni_env_parse(envp, &env_add, &err) != 0) {
		fprintf(stderr, "%s\n", err.msg);
		return 2;
	}
	return unit_run("cni_vf", tests);
}
