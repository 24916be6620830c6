/* SPDX-License-Identifier: BSD-3-Clause */
/* Unit tests of cni/netconf.c: the CNI environment and network config. */
#include <errno.h>

#include "netconf.h"
#include "podwired_client.h"
#include "unit.h"

/* Environments of a runtime, as "K=V" lists. */
#define ENV_ADD                                                                                    \
	"CNI_COMMAND=ADD", "CNI_CONTAINERID=3f6940ab5ab4", "CNI_NETNS=/var/run/netns/p1",          \
	    "CNI_IFNAME=net1", "CNI_PATH=/opt/cni/bin"

static struct cni_env env_add;

static int parse_env(char *const envp[], struct cni_env *env, struct cni_error *err)
{
	memset(err, 0, sizeof(*err));
	return cni_env_parse(envp, env, err);
}

static int parse(const char *json, const struct cni_env *env, struct netconf *c,
		 struct cni_error *err)
{
	memset(err, 0, sizeof(*err));
	return netconf_parse(json, strlen(json), env, c, err);
}

/* Parses a config expected to fail, and checks the code and message. */
static void expect_bad(const char *json, int code, const char *needle)
{
	struct cni_error err;
	struct netconf c;

	ASSERT_INT_EQ(parse(json, &env_add, &c, &err), -1);
	ASSERT_INT_EQ(err.code, code);
	ASSERT_CONTAINS(err.msg, needle);
	ASSERT_INT_EQ(c.root == NULL, 1);
}

static void test_env_ok(void)
{
	char *const envp[] = {"HOME=/root", ENV_ADD,
			      "CNI_ARGS=IgnoreUnknown=1;MAC=02:AA:bb:00:00:01", NULL};
	struct cni_error err;
	struct cni_env env;

	ASSERT_INT_EQ(parse_env(envp, &env, &err), 0);
	ASSERT_INT_EQ(env.cmd, CMD_ADD);
	ASSERT_STR_EQ(env.containerid, "3f6940ab5ab4");
	ASSERT_STR_EQ(env.ifname, "net1");
	ASSERT_STR_EQ(env.path, "/opt/cni/bin");
	ASSERT_STR_EQ(env.args_mac, "02:aa:bb:00:00:01");
}

static void test_env_missing(void)
{
	static const char *const vars[] = {"CNI_CONTAINERID", "CNI_NETNS", "CNI_IFNAME",
					   "CNI_PATH"};
	char *const all[] = {ENV_ADD, NULL};
	struct cni_error err;
	struct cni_env env;

	/* Each variable ADD needs, left out in turn. */
	for (size_t v = 0; v < sizeof(vars) / sizeof(vars[0]); v++) {
		char *envp[8];
		int k = 0;

		for (int i = 0; all[i] != NULL; i++)
			if (strncmp(all[i], vars[v], strlen(vars[v])) != 0)
				envp[k++] = all[i];
		envp[k] = NULL;
		ASSERT_INT_EQ(parse_env(envp, &env, &err), -1);
		ASSERT_INT_EQ(err.code, CNI_ERR_ENV);
		ASSERT_CONTAINS(err.msg, vars[v]);
		ASSERT_CONTAINS(err.msg, "is not set");
	}
	{
		char *const envp[] = {"CNI_CONTAINERID=x", NULL};

		ASSERT_INT_EQ(parse_env(envp, &env, &err), -1);
		ASSERT_INT_EQ(err.code, CNI_ERR_ENV);
		ASSERT_CONTAINS(err.msg, "CNI_COMMAND is not set");
	}
	{
		/* DEL does without a netns; VERSION without anything. */
		char *const del[] = {"CNI_COMMAND=DEL", "CNI_CONTAINERID=c1", "CNI_IFNAME=net1",
				     "CNI_PATH=/x", NULL};
		char *const version[] = {"CNI_COMMAND=VERSION", NULL};

		ASSERT_INT_EQ(parse_env(del, &env, &err), 0);
		ASSERT_INT_EQ(parse_env(version, &env, &err), 0);
		ASSERT_INT_EQ(env.cmd, CMD_VERSION);
	}
}

static void test_env_bad_values(void)
{
	char *const cmd[] = {"CNI_COMMAND=FROB", NULL};
	char *const cid[] = {"CNI_COMMAND=DEL", "CNI_CONTAINERID=-abc", "CNI_IFNAME=net1",
			     "CNI_PATH=/x", NULL};
	char *const ifn[] = {"CNI_COMMAND=DEL", "CNI_CONTAINERID=abc",
			     "CNI_IFNAME=net1234567890abc", "CNI_PATH=/x", NULL};
	char *const slash[] = {"CNI_COMMAND=DEL", "CNI_CONTAINERID=abc", "CNI_IFNAME=a/b",
			       "CNI_PATH=/x", NULL};
	char *const mac[] = {"CNI_COMMAND=DEL",
			     "CNI_CONTAINERID=abc",
			     "CNI_IFNAME=net1",
			     "CNI_PATH=/x",
			     "CNI_ARGS=MAC=01:00:00:00:00:01",
			     NULL};
	struct cni_error err;
	struct cni_env env;

	ASSERT_INT_EQ(parse_env(cmd, &env, &err), -1);
	ASSERT_CONTAINS(err.msg, "CNI_COMMAND \"FROB\" is not known");
	ASSERT_INT_EQ(parse_env(cid, &env, &err), -1);
	ASSERT_CONTAINS(err.msg, "CNI_CONTAINERID \"-abc\" has '-' at offset 0");
	ASSERT_INT_EQ(parse_env(ifn, &env, &err), -1);
	ASSERT_CONTAINS(err.msg, "is 16 bytes, the limit is 15");
	ASSERT_INT_EQ(parse_env(slash, &env, &err), -1);
	ASSERT_CONTAINS(err.msg, "CNI_IFNAME \"a/b\"");
	ASSERT_INT_EQ(parse_env(mac, &env, &err), -1);
	ASSERT_INT_EQ(err.code, CNI_ERR_ENV);
	ASSERT_CONTAINS(err.msg, "multicast");
}

static void test_defaults(void)
{
	struct cni_error err;
	struct netconf c;

	ASSERT_INT_EQ(parse("{\"cniVersion\":\"1.1.0\",\"name\":\"net-a\",\"type\":\"podwire\"}",
			    &env_add, &c, &err),
		      0);
	ASSERT_STR_EQ(c.cni_version, "1.1.0");
	ASSERT_STR_EQ(c.network, "net-a"); /* the CNI name when "network" is absent */
	ASSERT_INT_EQ(c.vlan, -1);
	ASSERT_INT_EQ(c.iftype, IFTYPE_VHOST);
	ASSERT_STR_EQ(c.mode, "client");
	ASSERT_INT_EQ(c.pod_creates_socket, 0);
	ASSERT_INT_EQ(c.mtu, 1500);
	ASSERT_STR_EQ(c.mac, "");
	ASSERT_STR_EQ(c.socket_dir, CNI_DEFAULT_SOCKET_DIR);
	ASSERT_STR_EQ(c.pod_socket_dir, CNI_DEFAULT_SOCKET_DIR);
	ASSERT_STR_EQ(c.podwired_socket, PODWIRE_DEFAULT_SOCKET);
	ASSERT_STR_EQ(c.data_dir, CNI_DEFAULT_DATA_DIR);
	ASSERT_INT_EQ(c.socket_gid, 0);
	ASSERT_INT_EQ(c.ipam == NULL, 1);
	ASSERT_STR_EQ(c.devinfo_file, "");
	netconf_free(&c);
}

static void test_full(void)
{
	static const char json[] =
	    "{\"cniVersion\":\"0.4.0\",\"name\":\"n\",\"type\":\"podwire\",\"network\":\"fast\","
	    "\"vlan\":100,\"iftype\":\"memif\",\"mode\":\"master\",\"mtu\":9000,"
	    "\"mac\":\"02:00:00:00:00:01\",\"socketDir\":\"/run/pw/\","
	    "\"podSocketDir\":\"/var/run/podwire\",\"podwiredSocket\":\"/run/pw.sock\","
	    "\"dataDir\":\"/tmp/x\",\"socketGroup\":0,"
	    "\"ipam\":{\"type\":\"host-local\",\"subnet\":\"10.1.0.0/24\"},"
	    "\"runtimeConfig\":{\"CNIDeviceInfoFile\":\"/var/run/k8s.cni.cncf.io/devinfo/cni/"
	    "x-net1-device.json\",\"mac\":\"02:00:00:00:00:03\"},"
	    "\"prevResult\":{\"interfaces\":[]}}";
	char *const envp[] = {ENV_ADD, "CNI_ARGS=MAC=02:00:00:00:00:02", NULL};
	struct cni_error err;
	struct cni_env env;
	struct netconf c;

	ASSERT_INT_EQ(parse_env(envp, &env, &err), 0);
	ASSERT_INT_EQ(parse(json, &env, &c, &err), 0);
	ASSERT_STR_EQ(c.network, "fast");
	ASSERT_INT_EQ(c.vlan, 100);
	ASSERT_INT_EQ(c.iftype, IFTYPE_MEMIF);
	ASSERT_STR_EQ(c.mode, "master");
	ASSERT_INT_EQ(c.pod_creates_socket, 1);
	ASSERT_INT_EQ(c.mtu, 9000);
	/* runtimeConfig beats CNI_ARGS, which beats the config. */
	ASSERT_STR_EQ(c.mac, "02:00:00:00:00:03");
	ASSERT_STR_EQ(c.socket_dir, "/run/pw"); /* trailing '/' dropped */
	ASSERT_STR_EQ(c.pod_socket_dir, "/var/run/podwire");
	ASSERT_STR_EQ(c.podwired_socket, "/run/pw.sock");
	ASSERT_STR_EQ(c.data_dir, "/tmp/x");
	ASSERT_STR_EQ(c.ipam_type, "host-local");
	ASSERT_CONTAINS(c.devinfo_file, "/devinfo/cni/x-net1-device.json");
	ASSERT_INT_EQ(c.prev_result != NULL, 1);
	netconf_free(&c);

	/* Without runtimeConfig's, CNI_ARGS' MAC wins over the config's. */
	ASSERT_INT_EQ(
	    parse("{\"cniVersion\":\"1.0.0\",\"name\":\"n\",\"mac\":\"02:00:00:00:00:01\"}", &env,
		  &c, &err),
	    0);
	ASSERT_STR_EQ(c.mac, "02:00:00:00:00:02");
	netconf_free(&c);
}

static void test_pci(void)
{
	static const char json[] =
	    "{\"cniVersion\":\"1.1.0\",\"name\":\"sriov a\",\"type\":\"podwire\","
	    "\"iftype\":\"pci\",\"physnet\":\"physnet2\",\"vlan\":0,\"spoofChk\":\"on\","
	    "\"trust\":\"off\",\"runtimeConfig\":{\"mac\":\"02:00:00:00:00:03\"}}";
	char *const envp[] = {ENV_ADD, "CNI_ARGS=MAC=02:00:00:00:00:02", NULL};
	struct cni_error err;
	struct cni_env env;
	struct netconf c;

	/* The least a pci config needs; a name that is no podwired network
	 * name is fine, there is no network. */
	ASSERT_INT_EQ(parse("{\"cniVersion\":\"1.1.0\",\"name\":\"my net\",\"iftype\":\"pci\","
			    "\"physnet\":\"physnet2\"}",
			    &env_add, &c, &err),
		      0);
	ASSERT_INT_EQ(c.iftype, IFTYPE_PCI);
	ASSERT_STR_EQ(iftype_name(c.iftype), "pci");
	ASSERT_STR_EQ(c.physnet, "physnet2");
	ASSERT_STR_EQ(c.network, "");
	ASSERT_INT_EQ(c.vlan, -1);
	ASSERT_INT_EQ(c.spoof_chk, -1);
	ASSERT_INT_EQ(c.trust, -1);
	ASSERT_INT_EQ(c.mtu, 0);
	ASSERT_STR_EQ(c.mac, "");
	netconf_free(&c);

	ASSERT_INT_EQ(parse_env(envp, &env, &err), 0);
	ASSERT_INT_EQ(parse(json, &env, &c, &err), 0);
	ASSERT_INT_EQ(c.vlan, 0); /* 0: the VF's VLAN is cleared */
	ASSERT_INT_EQ(c.spoof_chk, 1);
	ASSERT_INT_EQ(c.trust, 0);
	ASSERT_STR_EQ(c.mac, "02:00:00:00:00:03"); /* runtimeConfig beats CNI_ARGS */
	netconf_free(&c);

	/* Other iftypes leave the VF settings unset. */
	ASSERT_INT_EQ(parse("{\"cniVersion\":\"1.1.0\",\"name\":\"n\"}", &env_add, &c, &err), 0);
	ASSERT_STR_EQ(c.physnet, "");
	ASSERT_INT_EQ(c.spoof_chk, -1);
	netconf_free(&c);

	ASSERT_INT_EQ(iftype_parse("pci", &c.iftype), 0);
	ASSERT_INT_EQ(c.iftype, IFTYPE_PCI);
	ASSERT_INT_EQ(iftype_parse("memif", &c.iftype), 0);
	ASSERT_INT_EQ(c.iftype, IFTYPE_MEMIF);
	ASSERT_INT_EQ(iftype_parse("tap", &c.iftype), -1);
}

static void test_pci_bad(void)
{
#define PCI(extra) "{\"cniVersion\":\"1.1.0\",\"name\":\"n\",\"iftype\":\"pci\"" extra "}"
#define PN	   ",\"physnet\":\"physnet2\""
	expect_bad(PCI(""), CNI_ERR_CONFIG,
		   "\"physnet\" is missing; iftype \"pci\" takes a VF from a physical network");
	expect_bad(PCI(",\"physnet\":\"\""), CNI_ERR_CONFIG, "\"physnet\": physnet name is empty");
	expect_bad(PCI(",\"physnet\":\"phys net\""), CNI_ERR_CONFIG,
		   "\"physnet\": physnet name \"phys net\" has character ' '");
	expect_bad(PCI(",\"physnet\":2"), CNI_ERR_CONFIG, "\"physnet\" must be a string");
	expect_bad(PCI(PN ",\"vlan\":4095"), CNI_ERR_CONFIG,
		   "\"vlan\" is 4095, it must be 0-4094 (VLAN id); set on the VF through its PF, "
		   "0 for none");
	expect_bad(PCI(PN ",\"vlan\":-2"), CNI_ERR_CONFIG, "\"vlan\" is -2, it must be 0-4094");
	expect_bad(PCI(PN ",\"vlan\":\"10\""), CNI_ERR_CONFIG, "\"vlan\" must be an integer");
	expect_bad(PCI(PN ",\"spoofChk\":true"), CNI_ERR_CONFIG,
		   "\"spoofChk\" is true; give \"on\" or \"off\" (as in sriov-cni)");
	expect_bad(PCI(PN ",\"trust\":\"yes\""), CNI_ERR_CONFIG,
		   "\"trust\" is \"yes\"; give \"on\" or \"off\"");
	/* Fields of the socket iftypes are refused, with their value. */
	expect_bad(PCI(PN ",\"mode\":\"client\""), CNI_ERR_FIELD,
		   "\"mode\": \"client\" does not apply to iftype \"pci\": a VF has no socket");
	expect_bad(PCI(PN ",\"mtu\":9000"), CNI_ERR_FIELD,
		   "\"mtu\": 9000 does not apply to iftype \"pci\": the pod's DPDK app sets");
	expect_bad(PCI(PN ",\"network\":\"fast\""), CNI_ERR_FIELD,
		   "\"network\": \"fast\" does not apply to iftype \"pci\"");
	/* ... and the VF's fields on the socket iftypes. */
	expect_bad("{\"cniVersion\":\"1.1.0\",\"name\":\"n\"" PN "}", CNI_ERR_FIELD,
		   "\"physnet\": \"physnet2\" does not apply to iftype \"vhost-user\": it "
		   "configures an SR-IOV VF (iftype \"pci\")");
	expect_bad("{\"cniVersion\":\"1.1.0\",\"name\":\"n\",\"iftype\":\"memif\","
		   "\"spoofChk\":\"off\"}",
		   CNI_ERR_FIELD, "\"spoofChk\": \"off\" does not apply to iftype \"memif\"");
	expect_bad("{\"cniVersion\":\"1.1.0\",\"name\":\"n\",\"trust\":\"on\"}", CNI_ERR_FIELD,
		   "\"trust\": \"on\" does not apply");
	/* A VF still takes the MAC rules of the other iftypes. */
	expect_bad(PCI(PN ",\"runtimeConfig\":{\"mac\":\"03:00:00:00:00:01\"}"), CNI_ERR_CONFIG,
		   "is a multicast");
#undef PN
#undef PCI
}

/* iftype kernel: one queue pair, no socket fields, the guards as usual. */
static void test_kernel(void)
{
#define K(extra) "{\"cniVersion\":\"1.1.0\",\"name\":\"n\",\"iftype\":\"kernel\"" extra "}"
	struct cni_error err;
	struct netconf c;

	ASSERT_INT_EQ(parse(K(",\"mtu\":1400,\"queues\":1,\"macLimit\":5"), &env_add, &c, &err), 0);
	ASSERT_INT_EQ(c.iftype, IFTYPE_KERNEL);
	ASSERT_STR_EQ(iftype_name(c.iftype), "kernel");
	ASSERT_STR_EQ(iftype_port_type(c.iftype), API_PORT_VETH);
	ASSERT_STR_EQ(iftype_port_type(IFTYPE_MEMIF), API_PORT_MEMIF);
	ASSERT_INT_EQ(c.mtu, 1400);
	ASSERT_INT_EQ(c.queues, 1);
	ASSERT_INT_EQ(c.mac_limit, 5);
	ASSERT_INT_EQ(c.port_security, 1);
	ASSERT_STR_EQ(c.mode, "");
	ASSERT_STR_EQ(c.network, "n");
	netconf_free(&c);
	ASSERT_INT_EQ(parse(K(""), &env_add, &c, &err), 0);
	ASSERT_INT_EQ(c.mtu, API_MTU_DEFAULT);
	netconf_free(&c);
	ASSERT_INT_EQ(iftype_parse("kernel", &c.iftype), 0);
	ASSERT_INT_EQ(c.iftype, IFTYPE_KERNEL);

	expect_bad(K(",\"queues\":2"), CNI_ERR_FIELD,
		   "\"queues\": 2 does not apply to iftype \"kernel\": a pod's kernel interface "
		   "has one queue pair");
	expect_bad(K(",\"queues\":17"), CNI_ERR_CONFIG, "\"queues\" is 17");
	expect_bad(K(",\"mode\":\"server\""), CNI_ERR_FIELD,
		   "\"mode\": \"server\" does not apply to iftype \"kernel\": a kernel interface "
		   "has no socket");
	expect_bad(K(",\"podSocketDir\":\"/x\""), CNI_ERR_FIELD,
		   "\"podSocketDir\": \"/x\" does not apply to iftype \"kernel\"");
	expect_bad(K(",\"physnet\":\"p\""), CNI_ERR_FIELD,
		   "\"physnet\": \"p\" does not apply to iftype \"kernel\"");
	expect_bad(K(",\"mtu\":20"), CNI_ERR_CONFIG, "\"mtu\" is 20");
	expect_bad("{\"cniVersion\":\"1.1.0\",\"name\":\"n\",\"iftype\":\"tap\"}", CNI_ERR_CONFIG,
		   "or \"kernel\" (an ordinary interface, for a pod without DPDK)");
#undef K
}

/* portSecurity, allowedMacs, macLimit, floodLimit. */
/* rateLimit: per direction pps or bps and a burst, checked against
 * port.create's ranges; nothing given is -1. */
static void test_rate_limit(void)
{
	struct cni_error err;
	struct netconf c;

	ASSERT_INT_EQ(parse("{\"cniVersion\":\"1.1.0\",\"name\":\"n\"}", &env_add, &c, &err), 0);
	for (int d = 0; d < 2; d++)
		for (int k = 0; k < 3; k++)
			ASSERT_INT_EQ(c.rate[d][k], -1);
	netconf_free(&c);
	ASSERT_INT_EQ(parse("{\"cniVersion\":\"1.1.0\",\"name\":\"n\",\"rateLimit\":{\"ingress\":"
			    "{\"pps\":10000,\"burst\":100},\"egress\":{\"bps\":100000000}}}",
			    &env_add, &c, &err),
		      0);
	ASSERT_INT_EQ(c.rate[0][0], 10000);
	ASSERT_INT_EQ(c.rate[0][1], -1);
	ASSERT_INT_EQ(c.rate[0][2], 100);
	ASSERT_INT_EQ(c.rate[1][0], -1);
	ASSERT_INT_EQ(c.rate[1][1], 100000000);
	ASSERT_INT_EQ(c.rate[1][2], -1);
	netconf_free(&c);
#define R(extra) "{\"cniVersion\":\"1.1.0\",\"name\":\"n\",\"rateLimit\":" extra "}"
	expect_bad(R("5"), CNI_ERR_CONFIG, "\"rateLimit\" must be an object");
	expect_bad(R("{\"inbound\":{\"pps\":5}}"), CNI_ERR_CONFIG,
		   "\"rateLimit\": unknown direction \"inbound\"");
	expect_bad(R("{\"ingress\":{\"pps\":-5}}"), CNI_ERR_CONFIG,
		   "\"rateLimit.ingress\": \"pps\" is -5, it must be 0-1000000000 (frames/s)");
	expect_bad(R("{\"egress\":{\"bps\":2000000000000}}"), CNI_ERR_CONFIG,
		   "\"rateLimit.egress\": \"bps\" is 2000000000000, it must be");
	expect_bad(R("{\"ingress\":{\"pps\":5,\"bps\":5}}"), CNI_ERR_CONFIG,
		   "\"rateLimit.ingress\" gives both \"pps\" and \"bps\"");
	expect_bad(R("{\"ingress\":{\"burst\":5}}"), CNI_ERR_CONFIG,
		   "\"rateLimit.ingress\" gives no rate");
	expect_bad(R("{\"ingress\":{\"pps\":5,\"size\":5}}"), CNI_ERR_CONFIG,
		   "unknown key \"size\"");
	expect_bad(R("{\"ingress\":{\"pps\":\"5\"}}"), CNI_ERR_CONFIG,
		   "\"pps\" must be an integer");
#undef R
	expect_bad("{\"cniVersion\":\"1.1.0\",\"name\":\"n\",\"iftype\":\"pci\",\"physnet\":\"p\","
		   "\"rateLimit\":{\"ingress\":{\"pps\":5}}}",
		   CNI_ERR_FIELD, "\"rateLimit\"");
}

/* acl: the pod's own lists; the shape is checked here, the rules by
 * podwired at ADD. */
static void test_acl(void)
{
	char name[PW_ACL_NAME_MAX];
	struct cni_error err;
	struct netconf c;

	ASSERT_INT_EQ(parse("{\"cniVersion\":\"1.1.0\",\"name\":\"n\"}", &env_add, &c, &err), 0);
	CU_ASSERT_PTR_NULL(c.acl[0]);
	CU_ASSERT_PTR_NULL(c.acl[1]);
	netconf_free(&c);
	ASSERT_INT_EQ(parse("{\"cniVersion\":\"1.1.0\",\"name\":\"n\",\"acl\":{\"egress\":"
			    "{\"default\":\"permit\",\"rules\":[{\"action\":\"deny\",\"proto\":"
			    "\"icmp\"}]}}}",
			    &env_add, &c, &err),
		      0);
	CU_ASSERT_PTR_NULL(c.acl[0]);
	CU_ASSERT_PTR_NOT_NULL_FATAL(c.acl[1]);
	CU_ASSERT_STRING_EQUAL(
	    cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(c.acl[1], "default")), "permit");
	ASSERT_INT_EQ(cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(c.acl[1], "rules")), 1);
	netconf_free(&c);
	podwired_acl_name("pw-0000002a-eth0", 0, name);
	CU_ASSERT_STRING_EQUAL(name, "pw-0000002a-eth0-in");
	podwired_acl_name("pw-0000002a-eth0", 1, name);
	CU_ASSERT_STRING_EQUAL(name, "pw-0000002a-eth0-out");
#define A(extra) "{\"cniVersion\":\"1.1.0\",\"name\":\"n\",\"acl\":" extra "}"
	expect_bad(A("[]"), CNI_ERR_CONFIG, "\"acl\" must be an object");
	expect_bad(A("{\"inbound\":{}}"), CNI_ERR_CONFIG, "\"acl\": unknown direction \"inbound\"");
	expect_bad(A("{\"ingress\":5}"), CNI_ERR_CONFIG, "\"acl.ingress\" must be an object");
	expect_bad(A("{\"ingress\":{\"default\":\"drop\"}}"), CNI_ERR_CONFIG,
		   "\"acl.ingress.default\" must be \"deny\" or \"permit\"");
	expect_bad(A("{\"egress\":{\"rules\":{}}}"), CNI_ERR_CONFIG,
		   "\"acl.egress.rules\" must be an array");
	expect_bad(A("{\"egress\":{\"rule\":[]}}"), CNI_ERR_CONFIG,
		   "\"acl.egress\": unknown key \"rule\"");
#undef A
	expect_bad("{\"cniVersion\":\"1.1.0\",\"name\":\"n\",\"iftype\":\"pci\",\"physnet\":\"p\","
		   "\"acl\":{\"ingress\":{}}}",
		   CNI_ERR_FIELD, "\"acl\"");
}

static void test_guards(void)
{
	struct cni_error err;
	struct netconf c;

	/* Left out: secured, podwired's limits. */
	ASSERT_INT_EQ(parse("{\"cniVersion\":\"1.1.0\",\"name\":\"n\"}", &env_add, &c, &err), 0);
	ASSERT_INT_EQ(c.port_security, 1);
	ASSERT_STR_EQ(c.allowed_macs, "");
	ASSERT_INT_EQ(c.mac_limit, -1);
	ASSERT_INT_EQ(c.flood_limit, -1);
	netconf_free(&c);
	ASSERT_INT_EQ(parse("{\"cniVersion\":\"1.1.0\",\"name\":\"n\",\"portSecurity\":false,"
			    "\"macLimit\":256,\"floodLimit\":0}",
			    &env_add, &c, &err),
		      0);
	ASSERT_INT_EQ(c.port_security, 0);
	ASSERT_STR_EQ(c.allowed_macs, "");
	ASSERT_INT_EQ(c.mac_limit, 256);
	ASSERT_INT_EQ(c.flood_limit, 0);
	netconf_free(&c);
	ASSERT_INT_EQ(parse("{\"cniVersion\":\"1.1.0\",\"name\":\"n\",\"portSecurity\":true,"
			    "\"allowedMacs\":[\"02:00:00:00:00:01\",\"02:00:00:00:00:02\"]}",
			    &env_add, &c, &err),
		      0);
	ASSERT_INT_EQ(c.port_security, 1);
	ASSERT_STR_EQ(c.allowed_macs, "02:00:00:00:00:01,02:00:00:00:00:02");
	netconf_free(&c);
#define G(extra) "{\"cniVersion\":\"1.1.0\",\"name\":\"n\"," extra "}"
	expect_bad(G("\"portSecurity\":\"off\""), CNI_ERR_CONFIG,
		   "\"portSecurity\" must be true or false");
	expect_bad(G("\"allowedMacs\":\"02:00:00:00:00:01\""), CNI_ERR_CONFIG,
		   "\"allowedMacs\" must be an array");
	expect_bad(G("\"allowedMacs\":[\"02:00:00:00:00:01\",7]"), CNI_ERR_CONFIG,
		   "\"allowedMacs\" holds a non-string");
	expect_bad(G("\"allowedMacs\":[\"nonsense\"]"), CNI_ERR_CONFIG, "\"allowedMacs\"");
	expect_bad(G("\"portSecurity\":false,\"allowedMacs\":[\"02:00:00:00:00:01\"]"),
		   CNI_ERR_CONFIG, "\"allowedMacs\" applies with port security only");
	expect_bad(G("\"allowedMacs\":[\"02:00:00:00:00:01\",\"02:00:00:00:00:01\"]"),
		   CNI_ERR_CONFIG, "\"allowedMacs\" lists 02:00:00:00:00:01 twice");
	expect_bad(
	    G("\"allowedMacs\":[\"02:00:00:00:00:01\",\"02:00:00:00:00:02\",\"02:00:00:00:00:03\","
	      "\"02:00:00:00:00:04\",\"02:00:00:00:00:05\",\"02:00:00:00:00:06\","
	      "\"02:00:00:00:00:07\",\"02:00:00:00:00:08\",\"02:00:00:00:00:09\"]"),
	    CNI_ERR_CONFIG, "\"allowedMacs\" lists more than 8 MACs");
	expect_bad(G("\"macLimit\":0"), CNI_ERR_CONFIG,
		   "\"macLimit\" is 0, it must be 1-65536 (MACs); MACs the port may have learned");
	expect_bad(G("\"macLimit\":\"64\""), CNI_ERR_CONFIG, "\"macLimit\"");
	expect_bad(G("\"floodLimit\":-5"), CNI_ERR_CONFIG,
		   "\"floodLimit\" is -5, it must be 0-10000000 (frames/s); ");
	expect_bad(G("\"floodLimit\":-5"), CNI_ERR_CONFIG, "0 for no limit");
	/* queues: 1 when not given; a VF's queues are its own. */
	ASSERT_INT_EQ(parse("{\"cniVersion\":\"1.1.0\",\"name\":\"n\"}", &env_add, &c, &err), 0);
	ASSERT_INT_EQ(c.queues, 1);
	netconf_free(&c);
	expect_bad(G("\"queues\":\"2\""), CNI_ERR_CONFIG,
		   "\"queues\" must be an integer (1-16 (queue pairs); vhost-user: queue pairs");
	expect_bad(G("\"queues\":2.5"), CNI_ERR_CONFIG, "\"queues\" must be an integer");
	expect_bad(G("\"iftype\":\"pci\",\"physnet\":\"p\",\"queues\":2"), CNI_ERR_FIELD,
		   "\"queues\": 2 does not apply to iftype \"pci\": a VF's queues are the VF's "
		   "own");
	/* A VF is not on a podwired bridge. */
	expect_bad(G("\"iftype\":\"pci\",\"physnet\":\"p\",\"macLimit\":5"), CNI_ERR_FIELD,
		   "\"macLimit\"");
	/* offloads: on unless false, vhost-user only. */
	ASSERT_INT_EQ(parse("{\"cniVersion\":\"1.1.0\",\"name\":\"n\"}", &env_add, &c, &err), 0);
	CU_ASSERT(!c.no_offloads);
	netconf_free(&c);
	ASSERT_INT_EQ(parse("{\"cniVersion\":\"1.1.0\",\"name\":\"n\",\"offloads\":false}",
			    &env_add, &c, &err),
		      0);
	CU_ASSERT(c.no_offloads);
	netconf_free(&c);
	expect_bad(G("\"offloads\":\"no\""), CNI_ERR_CONFIG, "\"offloads\" must be true or false");
	expect_bad(G("\"iftype\":\"memif\",\"offloads\":false"), CNI_ERR_FIELD,
		   "\"offloads\": false does not apply to iftype \"memif\": only vhost-user ports");
#undef G
}

static void test_json_and_version(void)
{
	expect_bad("{\"cniVersion\":\"1.1.0\",", CNI_ERR_DECODE, "not valid JSON");
	expect_bad("[1,2]", CNI_ERR_DECODE, "must be a JSON object");
	expect_bad("{\"name\":\"n\"}", CNI_ERR_VERSION, "\"cniVersion\" is missing");
	expect_bad("{\"cniVersion\":\"0.2.0\",\"name\":\"n\"}", CNI_ERR_VERSION,
		   "\"cniVersion\" \"0.2.0\" is not supported; use one of 0.3.0");
	expect_bad("{\"cniVersion\":1,\"name\":\"n\"}", CNI_ERR_CONFIG,
		   "\"cniVersion\" must be a string");
	expect_bad("{\"cniVersion\":\"1.1.0\"}", CNI_ERR_CONFIG, "\"name\" is missing");
}

static void test_bad_fields(void)
{
#define CONF(extra) "{\"cniVersion\":\"1.1.0\",\"name\":\"n\"," extra "}"
	expect_bad(CONF("\"iftype\":\"tap\""), CNI_ERR_CONFIG,
		   "\"iftype\" is \"tap\"; use \"vhost-user\" (for a virtio-user app), \"memif\", "
		   "\"pci\"");
	expect_bad(CONF("\"mode\":\"master\""), CNI_ERR_CONFIG,
		   "\"mode\" is \"master\", not a vhost-user mode; use \"client\"");
	expect_bad(CONF("\"iftype\":\"memif\",\"mode\":\"client\""), CNI_ERR_CONFIG,
		   "not a memif role; use \"slave\"");
	expect_bad(CONF("\"mac\":\"02:00:00:00:00\""), CNI_ERR_CONFIG,
		   "\"mac\": MAC \"02:00:00:00:00\" is not of the form");
	expect_bad(CONF("\"runtimeConfig\":{\"mac\":\"03:00:00:00:00:01\"}"), CNI_ERR_CONFIG,
		   "runtimeConfig \"mac\": MAC \"03:00:00:00:00:01\" is a multicast");
	expect_bad(CONF("\"mtu\":9001"), CNI_ERR_CONFIG,
		   "\"mtu\" is 9001, it must be 68-9000 (bytes); the largest frame payload");
	expect_bad(CONF("\"mtu\":\"1500\""), CNI_ERR_CONFIG,
		   "\"mtu\" must be an integer (68-9000 (bytes); ");
	expect_bad(CONF("\"vlan\":4095"), CNI_ERR_CONFIG,
		   "\"vlan\" is 4095, it must be 0-4094 (VLAN id); 0 for none");
	expect_bad(CONF("\"network\":\"a b\""), CNI_ERR_CONFIG,
		   "\"network\": network name \"a b\"");
	expect_bad("{\"cniVersion\":\"1.1.0\",\"name\":\"my net\"}", CNI_ERR_CONFIG,
		   "\"network\" is not set and the CNI network name \"my net\"");
	expect_bad(CONF("\"socketDir\":\"run/pods\""), CNI_ERR_CONFIG,
		   "\"socketDir\" is \"run/pods\", a relative path");
	expect_bad(CONF("\"socketDir\":\"/run/../pods\""), CNI_ERR_CONFIG, "without \"..\"");
	expect_bad(CONF("\"podwiredSocket\":\"pw.sock\""), CNI_ERR_CONFIG,
		   "\"podwiredSocket\": socket path \"pw.sock\" is relative");
	expect_bad(CONF("\"socketGroup\":\"no-such-group-pw\""), CNI_ERR_CONFIG,
		   "\"socketGroup\": group \"no-such-group-pw\" does not exist");
	expect_bad(CONF("\"ipam\":{\"subnet\":\"10.0.0.0/8\"}"), CNI_ERR_CONFIG,
		   "\"ipam\" has no \"type\"");
	expect_bad(CONF("\"ipam\":{\"type\":\"../x\"}"), CNI_ERR_CONFIG,
		   "\"ipam.type\" is \"../x\"; give the plain name");
	expect_bad(CONF("\"ipam\":\"host-local\""), CNI_ERR_CONFIG, "\"ipam\" must be an object");
	expect_bad(CONF("\"runtimeConfig\":{\"CNIDeviceInfoFile\":\"rel/x.json\"}"), CNI_ERR_CONFIG,
		   "\"CNIDeviceInfoFile\" is \"rel/x.json\"");
	expect_bad(CONF("\"prevResult\":[]"), CNI_ERR_CONFIG, "\"prevResult\" must be an object");
#undef CONF
}

/* socketDir/<8 hex>/vhost.sock must fit in 107 bytes: the limit is 87. */
static void test_socket_dir_length(void)
{
	char dir[120], json[400];
	struct cni_error err;
	struct netconf c;

	memset(dir, 'd', sizeof(dir));
	dir[0] = '/';
	dir[CNI_SOCKET_DIR_MAX] = '\0';
	ASSERT_INT_EQ(CNI_SOCKET_DIR_MAX, 87);
	snprintf(json, sizeof(json),
		 "{\"cniVersion\":\"1.1.0\",\"name\":\"n\",\"socketDir\":\"%s\"}", dir);
	ASSERT_INT_EQ(parse(json, &env_add, &c, &err), 0);
	netconf_free(&c);

	dir[CNI_SOCKET_DIR_MAX] = 'd';
	dir[CNI_SOCKET_DIR_MAX + 1] = '\0';
	snprintf(json, sizeof(json),
		 "{\"cniVersion\":\"1.1.0\",\"name\":\"n\",\"socketDir\":\"%s\"}", dir);
	expect_bad(json, CNI_ERR_CONFIG, "\"socketDir\" is 88 bytes, the limit is 87");
	snprintf(json, sizeof(json),
		 "{\"cniVersion\":\"1.1.0\",\"name\":\"n\",\"podSocketDir\":\"%s\"}", dir);
	expect_bad(json, CNI_ERR_CONFIG, "\"podSocketDir\" is 88 bytes");
}

static void test_verbs_need(void)
{
	char *const check_env[] = {"CNI_COMMAND=CHECK", "CNI_CONTAINERID=c", "CNI_NETNS=/n",
				   "CNI_IFNAME=net1",	"CNI_PATH=/x",	     NULL};
	char *const gc_env[] = {"CNI_COMMAND=GC", "CNI_PATH=/x", NULL};
	struct cni_error err;
	struct cni_env env;
	struct netconf c;

	ASSERT_INT_EQ(parse_env(check_env, &env, &err), 0);
	ASSERT_INT_EQ(parse("{\"cniVersion\":\"0.3.1\",\"name\":\"n\"}", &env, &c, &err), -1);
	ASSERT_CONTAINS(err.msg, "CHECK needs cniVersion 0.4.0 or later");
	ASSERT_INT_EQ(parse("{\"cniVersion\":\"1.0.0\",\"name\":\"n\"}", &env, &c, &err), -1);
	ASSERT_CONTAINS(err.msg, "CHECK needs \"prevResult\"");

	ASSERT_INT_EQ(parse_env(gc_env, &env, &err), 0);
	ASSERT_INT_EQ(parse("{\"cniVersion\":\"1.0.0\",\"name\":\"n\"}", &env, &c, &err), -1);
	ASSERT_INT_EQ(err.code, CNI_ERR_VERSION);
	ASSERT_INT_EQ(parse("{\"cniVersion\":\"1.1.0\",\"name\":\"n\"}", &env, &c, &err), -1);
	ASSERT_CONTAINS(err.msg, "GC needs \"cni.dev/valid-attachments\"");
	ASSERT_INT_EQ(parse("{\"cniVersion\":\"1.1.0\",\"name\":\"n\",\"cni.dev/attachments\":"
			    "[{\"containerID\":\"a\",\"ifname\":\"net1\"}]}",
			    &env, &c, &err),
		      0);
	ASSERT_INT_EQ(cJSON_GetArraySize(c.valid_attachments), 1);
	netconf_free(&c);
	ASSERT_INT_EQ(
	    parse("{\"cniVersion\":\"1.1.0\",\"name\":\"n\",\"cni.dev/valid-attachments\":"
		  "[{\"containerID\":\"a\"}]}",
		  &env, &c, &err),
	    -1);
	ASSERT_CONTAINS(err.msg, "needs string \"containerID\" and \"ifname\"");
}

/* Each integer of the config that is a podwired field under the config's
 * name, at each bound of the API table's range: the bound taken, one
 * beyond refused, naming the config's field and the range. */
static void test_api_ranges(void)
{
	static const struct {
		const char *cni;
		const char *iftype;
		enum api_method m;
		const char *api;
	} map[] = {
	    {"mtu", "vhost-user", API_M_PORT_CREATE, API_F_MTU},
	    {"mtu", "memif", API_M_PORT_CREATE, API_F_MTU},
	    {"macLimit", "vhost-user", API_M_PORT_CREATE, API_F_MAC_LIMIT},
	    {"floodLimit", "memif", API_M_PORT_CREATE, API_F_FLOOD_LIMIT},
	    {"vlan", "vhost-user", API_M_NETWORK_CREATE, API_F_VLAN},
	    {"vlan", "pci", API_M_VF_ALLOC, API_F_VLAN},
	    {"queues", "vhost-user", API_M_PORT_CREATE, API_F_QUEUES},
	    {"queues", "memif", API_M_PORT_CREATE, API_F_QUEUES},
	};
	char json[512], want[160];
	struct cni_error err;
	struct netconf c;

	for (size_t i = 0; i < sizeof(map) / sizeof(map[0]); i++) {
		const struct api_field *f = api_param_find(map[i].m, map[i].api);
		const char *extra = strcmp(map[i].iftype, "pci") == 0 ? ",\"physnet\":\"p\"" : "";

		CU_ASSERT_PTR_NOT_NULL_FATAL(f);
		for (int b = 0; b < 4; b++) {
			long v = b == 0	  ? f->min - 1
				 : b == 1 ? f->min
				 : b == 2 ? f->max
					  : f->max + 1;
			long got;
			int rc;

			snprintf(json, sizeof(json),
				 "{\"cniVersion\":\"1.1.0\",\"name\":\"n\",\"iftype\":\"%s\"%s,"
				 "\"%s\":%ld}",
				 map[i].iftype, extra, map[i].cni, v);
			rc = parse(json, &env_add, &c, &err);
			if (b == 1 || b == 2) {
				unit_check(rc == 0, __LINE__, __FILE__, "%s: %s", json, err.msg);
				got = strcmp(map[i].cni, "mtu") == 0	    ? c.mtu
				      : strcmp(map[i].cni, "macLimit") == 0 ? c.mac_limit
				      : strcmp(map[i].cni, "vlan") == 0	    ? c.vlan
				      : strcmp(map[i].cni, "queues") == 0   ? c.queues
									    : c.flood_limit;
				unit_check(got == v, __LINE__, __FILE__, "%s: got %ld", json, got);
				netconf_free(&c);
				continue;
			}
			unit_check(rc == -1 && err.code == CNI_ERR_CONFIG, __LINE__, __FILE__,
				   "%s taken", json);
			snprintf(want, sizeof(want), "\"%s\" is %ld, it must be %ld-%ld (%s)",
				 map[i].cni, v, f->min, f->max, f->unit);
			ASSERT_CONTAINS(err.msg, want);
		}
	}
}

static void test_peek_version(void)
{
	char v[16];

	ASSERT_STR_EQ(netconf_peek_version("{\"cniVersion\":\"0.4.0\"}", 22, v, sizeof(v)),
		      "0.4.0");
	ASSERT_STR_EQ(netconf_peek_version("{\"cniVersion\":\"9.9.9\"}", 22, v, sizeof(v)),
		      "1.1.0");
	ASSERT_STR_EQ(netconf_peek_version("junk", 4, v, sizeof(v)), "1.1.0");
}

int main(void)
{
	static const struct unit_test tests[] = {
	    {"env: ADD with CNI_ARGS MAC", test_env_ok},
	    {"env: each required variable missing", test_env_missing},
	    {"env: bad command, container id, ifname, MAC", test_env_bad_values},
	    {"config: defaults", test_defaults},
	    {"config: every field; MAC precedence", test_full},
	    {"config: iftype pci", test_pci},
	    {"config: iftype pci, bad and misplaced fields", test_pci_bad},
	    {"config: port security and limits", test_guards},
	    {"config: rateLimit", test_rate_limit},
	    {"config: acl", test_acl},
	    {"config: iftype kernel, and fields that do not apply", test_kernel},
	    {"config: bad JSON and versions", test_json_and_version},
	    {"config: bad fields name the field and the fix", test_bad_fields},
	    {"config: port fields take the API table's ranges", test_api_ranges},
	    {"config: socketDir length limit 87", test_socket_dir_length},
	    {"config: CHECK and GC requirements", test_verbs_need},
	    {"peek version", test_peek_version},
	    {NULL, NULL},
	};
	char *const envp[] = {ENV_ADD, NULL};
	struct cni_error err;

	if (cni_env_parse(envp, &env_add, &err) != 0) {
		fprintf(stderr, "%s\n", err.msg);
		return 2;
	}
	return unit_run("cni_netconf", tests);
}
