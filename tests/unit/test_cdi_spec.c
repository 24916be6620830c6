/* SPDX-License-Identifier: BSD-3-Clause */
/* CDI spec documents (dataplane/cdi/spec.c): the minimum-version rule,
 * the name rules, the whole-document check, and which ports become
 * devices. */
#include "cdi/spec.h"
#include "unit.h"

static cJSON *parse(const char *text)
{
	cJSON *d = cJSON_Parse(text);

	unit_check(d != NULL, __LINE__, __FILE__, "test JSON does not parse: %s", text);
	return d;
}

static void test_min_version(void)
{
	static const struct {
		const char *doc, *want;
	} cases[] = {
	    {"{\"kind\":\"a.io/"
	     "bc\",\"devices\":[{\"name\":\"x\",\"containerEdits\":{\"env\":[\"A=1\"]}}]}",
	     "0.3.0"},
	    {"{\"kind\":\"a.io/bc\",\"devices\":[{\"name\":\"x\",\"containerEdits\":{\"mounts\":"
	     "[{\"hostPath\":\"h\",\"containerPath\":\"/c\",\"type\":\"tmpfs\"}]}}]}",
	     "0.4.0"},
	    {"{\"kind\":\"a.io/"
	     "bc\",\"devices\":[{\"name\":\"0x\",\"containerEdits\":{\"env\":[\"A=1\"]}}]}",
	     "0.5.0"},
	    {"{\"kind\":\"a.io/"
	     "bc\",\"devices\":[{\"name\":\"x\",\"containerEdits\":{\"deviceNodes\":"
	     "[{\"path\":\"/dev/x\",\"hostPath\":\"/d/x\"}]}}]}",
	     "0.5.0"},
	    {"{\"kind\":\"a.io/"
	     "b.c\",\"devices\":[{\"name\":\"x\",\"containerEdits\":{\"env\":[\"A=1\"]}}]}",
	     "0.6.0"},
	    {"{\"kind\":\"a.io/bc\",\"annotations\":{},\"devices\":[]}", "0.6.0"},
	    {"{\"kind\":\"a.io/bc\",\"containerEdits\":{\"additionalGids\":[5]},\"devices\":[]}",
	     "0.7.0"},
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		cJSON *d = parse(cases[i].doc);

		ASSERT_STR_EQ(cdi_min_version(d), cases[i].want);
		cJSON_Delete(d);
	}
}

static void test_names(void)
{
	char msg[512];

	ASSERT_INT_EQ(cdi_check_device_name("pod-a", msg, sizeof(msg)), 0);
	ASSERT_INT_EQ(cdi_check_device_name("0000-01-10.2", msg, sizeof(msg)), 0);
	ASSERT_INT_EQ(cdi_check_device_name("a", msg, sizeof(msg)), 0);
	ASSERT_INT_EQ(cdi_check_device_name("x.", msg, sizeof(msg)), -EINVAL);
	ASSERT_CONTAINS(msg, "\"x.\" is not a CDI device name");
	ASSERT_INT_EQ(cdi_check_device_name("0000:01:10.2", msg, sizeof(msg)), -EINVAL);
	ASSERT_INT_EQ(cdi_check_device_name("", msg, sizeof(msg)), -EINVAL);
	ASSERT_INT_EQ(cdi_check_kind("podwire.io/port", msg, sizeof(msg)), 0);
	ASSERT_INT_EQ(cdi_check_kind("podwire.io/x", msg, sizeof(msg)),
		      -EINVAL); /* CDI 0.5 panics */
	ASSERT_INT_EQ(cdi_check_kind("podwire.io/a.b", msg, sizeof(msg)), -EINVAL);
	ASSERT_INT_EQ(cdi_check_kind("port", msg, sizeof(msg)), -EINVAL);
	ASSERT_INT_EQ(cdi_check_kind("-bad.io/port", msg, sizeof(msg)), -EINVAL);
	ASSERT_CONTAINS(msg, "is not a DNS subdomain");
}

static void test_check_spec(void)
{
	static const struct {
		const char *doc, *why;
	} bad[] = {
	    {"{\"cdiVersion\":\"0.3.0\",\"kind\":\"a.io/bc\",\"devices\":[]}", "no device"},
	    {"{\"cdiVersion\":\"0.9.0\",\"kind\":\"a.io/bc\",\"devices\":[]}", "not a released"},
	    {"{\"cdiVersion\":\"0.3.0\",\"kind\":\"a.io/bc\",\"devices\":[{\"name\":\"0x\","
	     "\"containerEdits\":{\"env\":[\"A=1\"]}}]}",
	     "older than the fields used need (0.5.0)"},
	    {"{\"cdiVersion\":\"0.5.0\",\"kind\":\"a.io/bc\",\"devices\":[{\"name\":\"x\","
	     "\"containerEdits\":{}}]}",
	     "empty containerEdits"},
	    {"{\"cdiVersion\":\"0.5.0\",\"kind\":\"a.io/bc\",\"devices\":[{\"name\":\"x\","
	     "\"containerEdits\":{\"env\":[\"noequals\"]}}]}",
	     "is not \"NAME=value\""},
	    {"{\"cdiVersion\":\"0.5.0\",\"kind\":\"a.io/bc\",\"devices\":[{\"name\":\"x\","
	     "\"containerEdits\":{\"env\":[\"A=1\"]},\"extra\":1}]}",
	     "unknown member \"extra\""},
	    {"{\"cdiVersion\":\"0.5.0\",\"kind\":\"a.io/bc\",\"devices\":[{\"name\":\"x\","
	     "\"containerEdits\":{\"env\":[\"A=1\"]}},{\"name\":\"x\",\"containerEdits\":{\"env\":"
	     "[\"A=1\"]}}]}",
	     "is there twice"},
	    {"{\"cdiVersion\":\"0.5.0\",\"kind\":\"a.io/bc\",\"devices\":[{\"name\":\"x\","
	     "\"containerEdits\":{\"mounts\":[{\"hostPath\":\"h\"}]}}]}",
	     "needs \"hostPath\" and \"containerPath\""},
	};
	char msg[512];

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		cJSON *d = parse(bad[i].doc);

		ASSERT_INT_EQ(cdi_check_spec(d, msg, sizeof(msg)), -EINVAL);
		ASSERT_CONTAINS(msg, bad[i].why);
		cJSON_Delete(d);
	}
}

static void test_ports(void)
{
	const struct cdi_port ports[] = {
	    {"pod-a", false, true, "/run/p/a/vhost.sock", "02:00:00:00:00:0a"},
	    {"pod-b", true, false, "/run/p/b/memif.sock", "02:00:00:00:00:0b"},
	    {"s1", false, true, "/run/p/shared/1.sock", "02:00:00:00:00:01"},
	    {"s2", false, true, "/run/p/shared/2.sock", "02:00:00:00:00:02"},
	    {"c", false, true, "/other/a/c.sock", "02:00:00:00:00:03"},
	    {"bad.", false, true, "/run/p/x/x.sock", "02:00:00:00:00:04"},
	};
	cJSON *skipped = cJSON_CreateArray(), *doc;
	char msg[512], *text;

	doc = cdi_port_spec(ports, 6, skipped);
	ASSERT_INT_EQ(cdi_check_spec(doc, msg, sizeof(msg)), 0);
	ASSERT_INT_EQ(cJSON_GetArraySize(cJSON_GetObjectItem(doc, "devices")), 2);
	ASSERT_INT_EQ(cJSON_GetArraySize(skipped), 4);
	text = cJSON_PrintUnformatted(skipped);
	ASSERT_CONTAINS(text, "also holds port");
	ASSERT_CONTAINS(text, "has the name of port");
	ASSERT_CONTAINS(text, "is not a CDI device name");
	cJSON_free(text);
	text = cJSON_PrintUnformatted(doc);
	ASSERT_CONTAINS(text, "\"cdiVersion\":\"0.4.0\"");
	ASSERT_CONTAINS(text, "PODWIRE_VDEV=--vdev=net_virtio_user0,path=/var/run/podwire/a/"
			      "vhost.sock,mac=02:00:00:00:00:0a,server=0 --single-file-segments");
	ASSERT_CONTAINS(text, "net_memif0,role=server,socket=/var/run/podwire/b/memif.sock");
	cJSON_free(text);
	cJSON_Delete(doc);
	/* No device: no document (a CDI spec needs one). */
	ASSERT_INT_EQ(cdi_port_spec(ports, 0, skipped) == NULL, 1);
	cJSON_Delete(skipped);
}

static void test_vfs(void)
{
	const struct cdi_vf vfs[] = {
	    {"0000:01:10.2", "0000:01:00.0", "physnet2", 1, "/dev/vfio/11"},
	    {"0000:01:10.4", "0000:01:00.0", "-bad", 0, "/dev/vfio/12"},
	    {"0000:01:10.6", "0000:01:00.0", "physnet2", 3, ""}};
	cJSON *skipped = cJSON_CreateArray(), *doc = cdi_vf_spec(vfs, 3, "/dev", skipped);
	char msg[512], *text = cJSON_PrintUnformatted(doc);

	ASSERT_INT_EQ(cdi_check_spec(doc, msg, sizeof(msg)), 0);
	ASSERT_CONTAINS(text, "\"name\":\"0000-01-10.2\"");
	ASSERT_CONTAINS(text, "\"name\":\"physnet2-1\"");
	ASSERT_CONTAINS(text, "PCIDEVICE_PODWIRE_IO_PHYSNET2=0000:01:10.2");
	ASSERT_NOT_CONTAINS(text, "hostPath\":\"/dev"); /* /dev itself: no hostPath */
	ASSERT_INT_EQ(cJSON_GetArraySize(skipped), 2);	/* -bad-0 alias, no IOMMU group */
	cJSON_free(text);
	cJSON_Delete(doc);
	doc = cdi_vf_spec(vfs, 1, "/tmp/fake", skipped);
	text = cJSON_PrintUnformatted(doc);
	ASSERT_CONTAINS(text, "\"hostPath\":\"/tmp/fake/vfio/11\"");
	ASSERT_STR_EQ(cJSON_GetStringValue(cJSON_GetObjectItem(doc, "cdiVersion")), "0.5.0");
	cJSON_free(text);
	cJSON_Delete(doc);
	cJSON_Delete(skipped);
}

int main(void)
{
	static const struct unit_test tests[] = {
	    {"minimum version per field", test_min_version},
	    {"name rules", test_names},
	    {"whole-document check", test_check_spec},
	    {"ports: devices and what is left out", test_ports},
	    {"VFs: names, variables, hostPath", test_vfs},
	    {NULL, NULL},
	};

	return unit_run("cdi_spec", tests);
}
