/* SPDX-License-Identifier: BSD-3-Clause */
/* Unit tests of cni/result.c (versions, result shapes) and cni/devinfo.c
 * (device-info, podwire.json, EAL vdev strings). */
#include "devinfo.h"
#include "result.h"
#include "unit.h"

static cJSON *parse(const char *json)
{
	cJSON *o = cJSON_Parse(json);

	unit_check(o != NULL, __LINE__, __FILE__, "test JSON does not parse: %s", json);
	return o;
}

static const char *str_at(const cJSON *o, const char *path)
{
	/* path: "ips.0.address" */
	char buf[128], *save = NULL, *tok;
	const cJSON *cur = o;

	snprintf(buf, sizeof(buf), "%s", path);
	for (tok = strtok_r(buf, ".", &save); tok != NULL && cur != NULL;
	     tok = strtok_r(NULL, ".", &save))
		cur = cJSON_IsArray(cur) ? cJSON_GetArrayItem(cur, atoi(tok))
					 : cJSON_GetObjectItemCaseSensitive(cur, tok);
	if (cJSON_IsNumber(cur)) {
		static char num[32];

		snprintf(num, sizeof(num), "%g", cur->valuedouble);
		return num;
	}
	return cJSON_IsString(cur) ? cur->valuestring : cur == NULL ? "(missing)" : "(other)";
}

static bool has(const cJSON *o, const char *path)
{
	return strcmp(str_at(o, path), "(missing)") != 0;
}

static void test_versions(void)
{
	ASSERT_INT_EQ(cni_version_supported("0.3.0"), 1);
	ASSERT_INT_EQ(cni_version_supported("0.3.1"), 1);
	ASSERT_INT_EQ(cni_version_supported("0.4.0"), 1);
	ASSERT_INT_EQ(cni_version_supported("1.0.0"), 1);
	ASSERT_INT_EQ(cni_version_supported("1.1.0"), 1);
	ASSERT_INT_EQ(cni_version_supported("0.2.0"), 0);
	ASSERT_INT_EQ(cni_version_supported("1.1"), 0);
	ASSERT_INT_EQ(cni_version_supported(NULL), 0);
	ASSERT_INT_EQ(cni_version_cmp("0.4.0", "1.0.0") < 0, 1);
	ASSERT_INT_EQ(cni_version_cmp("1.10.0", "1.9.0") > 0, 1);
	ASSERT_INT_EQ(cni_version_cmp("1.1.0", "1.1.0"), 0);
	ASSERT_INT_EQ(cni_version_cmp("junk", "0.1.0") < 0, 1);
}

static const struct result_iface iface = {.name = "net1",
					  .mac = "02:00:00:00:00:01",
					  .sandbox = "/var/run/netns/p1",
					  .socket_path = "/run/podwire/pods/1a2b3c4d/vhost.sock",
					  .mtu = 9000};

/* host-local in 0.4.0 shape: ips carry "version". */
static const char ipam_040[] =
    "{\"cniVersion\":\"0.4.0\",\"ips\":[{\"version\":\"4\",\"address\":\"10.1.0.5/24\","
    "\"gateway\":\"10.1.0.1\"},{\"version\":\"6\",\"address\":\"fd00::5/64\"}],"
    "\"routes\":[{\"dst\":\"0.0.0.0/0\",\"gw\":\"10.1.0.1\",\"mtu\":1400}],"
    "\"dns\":{\"nameservers\":[\"10.1.0.53\"]}}";

static void test_normalize(void)
{
	struct cni_error err = {0};
	cJSON *in = parse(ipam_040), *n = result_normalize(in, "ipam", &err);

	ASSERT_INT_EQ(n != NULL, 1);
	ASSERT_STR_EQ(str_at(n, "ips.0.address"), "10.1.0.5/24");
	ASSERT_INT_EQ(has(n, "ips.0.version"), 0);
	ASSERT_STR_EQ(str_at(n, "dns.nameservers.0"), "10.1.0.53");
	cJSON_Delete(n);
	cJSON_Delete(in);

	in = parse("{\"ips\":[{\"gateway\":\"10.0.0.1\"}]}");
	ASSERT_INT_EQ(result_normalize(in, "the IPAM plugin's result", &err) == NULL, 1);
	ASSERT_INT_EQ(err.code, CNI_ERR_DECODE);
	ASSERT_CONTAINS(err.msg,
			"the IPAM plugin's result: an entry of \"ips\" has no \"address\"");
	cJSON_Delete(in);
	in = parse("{\"ips\":{}}");
	ASSERT_INT_EQ(result_normalize(in, "prevResult", &err) == NULL, 1);
	ASSERT_CONTAINS(err.msg, "prevResult: \"ips\" must be an array");
	cJSON_Delete(in);
}

static cJSON *merged(void)
{
	struct cni_error err = {0};
	cJSON *in = parse(ipam_040), *n = result_normalize(in, "ipam", &err);
	cJSON *m = result_merge(NULL, n, &iface);

	cJSON_Delete(in);
	cJSON_Delete(n);
	return m;
}

static void test_shape_1_1(void)
{
	cJSON *m = merged(), *r = result_shape(m, "1.1.0");

	ASSERT_STR_EQ(str_at(r, "cniVersion"), "1.1.0");
	ASSERT_STR_EQ(str_at(r, "interfaces.0.name"), "net1");
	ASSERT_STR_EQ(str_at(r, "interfaces.0.mac"), "02:00:00:00:00:01");
	ASSERT_STR_EQ(str_at(r, "interfaces.0.sandbox"), "/var/run/netns/p1");
	ASSERT_STR_EQ(str_at(r, "interfaces.0.socketPath"),
		      "/run/podwire/pods/1a2b3c4d/vhost.sock");
	ASSERT_STR_EQ(str_at(r, "interfaces.0.mtu"), "9000");
	ASSERT_STR_EQ(str_at(r, "ips.0.interface"), "0");
	ASSERT_STR_EQ(str_at(r, "ips.1.address"), "fd00::5/64");
	ASSERT_INT_EQ(has(r, "ips.0.version"), 0);
	ASSERT_STR_EQ(str_at(r, "routes.0.mtu"), "1400");
	ASSERT_STR_EQ(str_at(r, "dns.nameservers.0"), "10.1.0.53");
	cJSON_Delete(r);
	cJSON_Delete(m);
}

static void test_shape_1_0(void)
{
	cJSON *m = merged(), *r = result_shape(m, "1.0.0");

	ASSERT_STR_EQ(str_at(r, "cniVersion"), "1.0.0");
	ASSERT_STR_EQ(str_at(r, "interfaces.0.name"), "net1");
	/* Fields of 1.1.0 are not shown to older readers. */
	ASSERT_INT_EQ(has(r, "interfaces.0.socketPath"), 0);
	ASSERT_INT_EQ(has(r, "interfaces.0.mtu"), 0);
	ASSERT_INT_EQ(has(r, "routes.0.mtu"), 0);
	ASSERT_STR_EQ(str_at(r, "routes.0.gw"), "10.1.0.1");
	ASSERT_INT_EQ(has(r, "ips.0.version"), 0);
	cJSON_Delete(r);
	cJSON_Delete(m);
}

static void test_shape_0_x(void)
{
	static const char *const old[] = {"0.3.0", "0.3.1", "0.4.0"};

	for (int i = 0; i < 3; i++) {
		cJSON *m = merged(), *r = result_shape(m, old[i]);

		ASSERT_STR_EQ(str_at(r, "cniVersion"), old[i]);
		ASSERT_STR_EQ(str_at(r, "ips.0.version"), "4");
		ASSERT_STR_EQ(str_at(r, "ips.1.version"), "6");
		ASSERT_STR_EQ(str_at(r, "ips.0.address"), "10.1.0.5/24");
		ASSERT_STR_EQ(str_at(r, "ips.0.gateway"), "10.1.0.1");
		ASSERT_STR_EQ(str_at(r, "ips.0.interface"), "0");
		/* "version" leads, as in 0.x results. */
		ASSERT_STR_EQ(cJSON_GetArrayItem(r->child ? cJSON_GetObjectItem(r, "ips") : NULL, 0)
				  ->child->string,
			      "version");
		ASSERT_INT_EQ(has(r, "interfaces.0.socketPath"), 0);
		cJSON_Delete(r);
		cJSON_Delete(m);
	}
}

/* A plugin later in a chain keeps what came before it. */
static void test_merge_prev(void)
{
	struct cni_error err = {0};
	cJSON *prev = parse("{\"cniVersion\":\"0.4.0\",\"interfaces\":[{\"name\":\"eth0\"}],"
			    "\"ips\":[{\"version\":\"4\",\"address\":\"192.168.9.2/24\","
			    "\"interface\":0}],\"dns\":{\"domain\":\"example\"}}");
	cJSON *pn = result_normalize(prev, "prevResult", &err);
	cJSON *ipam = parse("{\"ips\":[{\"address\":\"10.1.0.7/24\"}]}");
	cJSON *m = result_merge(pn, ipam, &iface), *r = result_shape(m, "1.1.0");

	ASSERT_STR_EQ(str_at(r, "interfaces.0.name"), "eth0");
	ASSERT_STR_EQ(str_at(r, "interfaces.1.name"), "net1");
	ASSERT_STR_EQ(str_at(r, "ips.0.address"), "192.168.9.2/24");
	ASSERT_STR_EQ(str_at(r, "ips.0.interface"), "0");
	ASSERT_STR_EQ(str_at(r, "ips.1.address"), "10.1.0.7/24");
	ASSERT_STR_EQ(str_at(r, "ips.1.interface"), "1");
	ASSERT_STR_EQ(str_at(r, "dns.domain"), "example");
	cJSON_Delete(r);
	cJSON_Delete(m);
	cJSON_Delete(ipam);
	cJSON_Delete(pn);
	cJSON_Delete(prev);

	/* No IPAM: a layer 2 result, interface only. */
	m = result_merge(NULL, NULL, &iface);
	r = result_shape(m, "1.1.0");
	ASSERT_STR_EQ(str_at(r, "interfaces.0.name"), "net1");
	ASSERT_INT_EQ(cJSON_GetArraySize(cJSON_GetObjectItem(r, "ips")), 0);
	cJSON_Delete(r);
	cJSON_Delete(m);
}

static void test_error_object(void)
{
	struct cni_error err;
	cJSON *e;

	cni_fail(&err, CNI_ERR_TRY_AGAIN, "podwired at %s is down", "/run/x.sock");
	e = result_error("0.4.0", &err);
	ASSERT_STR_EQ(str_at(e, "cniVersion"), "0.4.0");
	ASSERT_STR_EQ(str_at(e, "code"), "11");
	ASSERT_STR_EQ(str_at(e, "msg"), "podwired at /run/x.sock is down");
	ASSERT_INT_EQ(has(e, "details"), 0);
	cJSON_Delete(e);
}

static void attach_for(struct attach *a, enum cni_iftype t, const char *mode)
{
	memset(a, 0, sizeof(*a));
	snprintf(a->containerid, sizeof(a->containerid), "c1");
	snprintf(a->ifname, sizeof(a->ifname), "net1");
	snprintf(a->port, sizeof(a->port), "pw-1a2b3c4d-net1");
	snprintf(a->pod_socket, sizeof(a->pod_socket), "/var/run/podwire/1a2b3c4d/%s",
		 t == IFTYPE_MEMIF ? "memif.sock" : "vhost.sock");
	snprintf(a->socket, sizeof(a->socket), "/run/podwire/pods/1a2b3c4d/x.sock");
	a->iftype = t;
	snprintf(a->mode, sizeof(a->mode), "%s", mode);
}

static void test_devinfo(void)
{
	char vdev[256], msg[256];
	struct attach a;
	cJSON *d;

	attach_for(&a, IFTYPE_VHOST, "client");
	d = devinfo_build(&a);
	ASSERT_STR_EQ(str_at(d, "type"), "vhost-user");
	ASSERT_STR_EQ(str_at(d, "version"), "1.1.0");
	ASSERT_STR_EQ(str_at(d, "vhost-user.mode"), "client");
	/* the path the pod sees, not the host's */
	ASSERT_STR_EQ(str_at(d, "vhost-user.path"), "/var/run/podwire/1a2b3c4d/vhost.sock");
	ASSERT_INT_EQ(devinfo_vdev(d, "02:00:00:00:00:01", 0, vdev, sizeof(vdev), msg, sizeof(msg)),
		      0);
	ASSERT_STR_EQ(vdev, "net_virtio_user0,path=/var/run/podwire/1a2b3c4d/vhost.sock,"
			    "mac=02:00:00:00:00:01,server=0");
	cJSON_Delete(d);

	attach_for(&a, IFTYPE_VHOST, "server");
	d = devinfo_build(&a);
	ASSERT_INT_EQ(devinfo_vdev(d, NULL, 1, vdev, sizeof(vdev), msg, sizeof(msg)), 0);
	ASSERT_STR_EQ(vdev, "net_virtio_user1,path=/var/run/podwire/1a2b3c4d/vhost.sock,server=1");
	cJSON_Delete(d);

	attach_for(&a, IFTYPE_MEMIF, "slave");
	d = devinfo_build(&a);
	ASSERT_STR_EQ(str_at(d, "type"), "memif");
	ASSERT_STR_EQ(str_at(d, "memif.role"), "slave");
	ASSERT_STR_EQ(str_at(d, "memif.mode"), "ethernet");
	ASSERT_INT_EQ(devinfo_vdev(d, "02:00:00:00:00:02", 0, vdev, sizeof(vdev), msg, sizeof(msg)),
		      0);
	ASSERT_STR_EQ(vdev, "net_memif0,role=client,socket=/var/run/podwire/1a2b3c4d/memif.sock,"
			    "socket-abstract=no,mac=02:00:00:00:00:02");
	cJSON_Delete(d);

	attach_for(&a, IFTYPE_MEMIF, "master");
	d = devinfo_build(&a);
	ASSERT_INT_EQ(devinfo_vdev(d, NULL, 0, vdev, sizeof(vdev), msg, sizeof(msg)), 0);
	ASSERT_CONTAINS(vdev, "net_memif0,role=server,");
	cJSON_Delete(d);

	/* A memif secret goes into the device-info and the vdev. */
	attach_for(&a, IFTYPE_MEMIF, "slave");
	snprintf(a.secret, sizeof(a.secret), "0123456789abcdef0123");
	d = devinfo_build(&a);
	ASSERT_STR_EQ(str_at(d, "memif.secret"), "0123456789abcdef0123");
	ASSERT_INT_EQ(devinfo_vdev(d, NULL, 0, vdev, sizeof(vdev), msg, sizeof(msg)), 0);
	ASSERT_STR_EQ(vdev, "net_memif0,role=client,socket=/var/run/podwire/1a2b3c4d/memif.sock,"
			    "socket-abstract=no,secret=0123456789abcdef0123");
	cJSON_Delete(d);
	/* One net_memif cannot take (too long; a ',' would end the devarg). */
	d = parse("{\"type\":\"memif\",\"memif\":{\"role\":\"slave\",\"path\":\"/x\","
		  "\"secret\":\"a,b\"}}");
	ASSERT_INT_EQ(devinfo_vdev(d, NULL, 0, vdev, sizeof(vdev), msg, sizeof(msg)), -1);
	ASSERT_CONTAINS(msg, "memif \"secret\" must be 1-23 characters");
	cJSON_Delete(d);
	d = parse("{\"type\":\"memif\",\"memif\":{\"role\":\"slave\",\"path\":\"/x\","
		  "\"secret\":\"123456789012345678901234\"}}");
	ASSERT_INT_EQ(devinfo_vdev(d, NULL, 0, vdev, sizeof(vdev), msg, sizeof(msg)), -1);
	cJSON_Delete(d);

	d = parse(
	    "{\"type\":\"pci\",\"version\":\"1.1.0\",\"pci\":{\"pci-address\":\"0000:01:02.2\"}}");
	ASSERT_INT_EQ(devinfo_vdev(d, NULL, 0, vdev, sizeof(vdev), msg, sizeof(msg)), -1);
	ASSERT_CONTAINS(msg, "device type \"pci\" has no DPDK vdev");
	cJSON_Delete(d);
	d = parse(
	    "{\"type\":\"memif\",\"memif\":{\"role\":\"slave\",\"path\":\"/x\",\"mode\":\"ip\"}}");
	ASSERT_INT_EQ(devinfo_vdev(d, NULL, 0, vdev, sizeof(vdev), msg, sizeof(msg)), -1);
	ASSERT_CONTAINS(msg, "memif \"mode\" is \"ip\"");
	cJSON_Delete(d);
}

/* DEL removes the device-info file only when it is podwire's for the
 * attachment: the path is the runtime's, and a device plugin or another
 * CNI plugin may have written there. */
static void test_devinfo_remove(void)
{
	char dir[64], other[128], text[256];
	struct cni_error err;
	struct attach a;
	cJSON *d;
	FILE *f;

	CU_ASSERT_FATAL(unit_tmpdir(dir, sizeof(dir)));
	attach_for(&a, IFTYPE_VHOST, "client");
	snprintf(a.devinfo, sizeof(a.devinfo), "%s/cni/pod-net1-device.json", dir);
	/* Podwire's own file: removed; gone already: fine. */
	d = devinfo_build(&a);
	ASSERT_INT_EQ(devinfo_write(a.devinfo, d, &err), 0);
	cJSON_Delete(d);
	ASSERT_INT_EQ(devinfo_remove(&a), 0);
	CU_ASSERT(access(a.devinfo, F_OK) != 0);
	ASSERT_INT_EQ(devinfo_remove(&a), 0);
	/* Podwire's with entries added (a later version's): still podwire's. */
	d = devinfo_build(&a);
	cJSON_AddStringToObject(cJSON_GetObjectItem(d, "vhost-user"), "secret", "s3");
	ASSERT_INT_EQ(devinfo_write(a.devinfo, d, &err), 0);
	cJSON_Delete(d);
	ASSERT_INT_EQ(devinfo_remove(&a), 0);
	CU_ASSERT(access(a.devinfo, F_OK) != 0);
	/* Another device's at the same path (a device plugin's VF, another
	 * socket, not JSON): left as it is. */
	static const char *const foreign[] = {
	    "{\"type\":\"pci\",\"version\":\"1.1.0\",\"pci\":{\"pci-address\":\"0000:01:02.2\"}}\n",
	    "{\"type\":\"vhost-user\",\"version\":\"1.1.0\",\"vhost-user\":{\"mode\":\"client\","
	    "\"path\":\"/var/run/other/vhost.sock\"}}\n",
	    "written by someone else\n",
	};
	for (size_t i = 0; i < sizeof(foreign) / sizeof(foreign[0]); i++) {
		f = fopen(a.devinfo, "w");
		CU_ASSERT_FATAL(f != NULL);
		fputs(foreign[i], f);
		fclose(f);
		ASSERT_INT_EQ(devinfo_remove(&a), 1);
		f = fopen(a.devinfo, "r");
		CU_ASSERT_FATAL(f != NULL);
		text[fread(text, 1, sizeof(text) - 1, f)] = '\0';
		fclose(f);
		ASSERT_STR_EQ(text, foreign[i]);
	}
	unlink(a.devinfo);
	/* A symlink to a file like podwire's: neither is removed. */
	snprintf(other, sizeof(other), "%s/elsewhere.json", dir);
	d = devinfo_build(&a);
	ASSERT_INT_EQ(devinfo_write(other, d, &err), 0);
	cJSON_Delete(d);
	CU_ASSERT_FATAL(symlink(other, a.devinfo) == 0);
	ASSERT_INT_EQ(devinfo_remove(&a), 1);
	CU_ASSERT(access(other, F_OK) == 0);
	CU_ASSERT(access(a.devinfo, F_OK) == 0);
	unit_rmtree(dir);
}

static void test_podwire_json(void)
{
	cJSON *m = merged(), *pj;
	struct attach a;

	attach_for(&a, IFTYPE_VHOST, "client");
	pj = podwire_json_build(&a, "02:00:00:00:00:01", 9000, m);
	ASSERT_STR_EQ(str_at(pj, "socket"), "/var/run/podwire/1a2b3c4d/vhost.sock");
	ASSERT_STR_EQ(str_at(pj, "hostSocket"), "/run/podwire/pods/1a2b3c4d/x.sock");
	ASSERT_STR_EQ(str_at(pj, "mode"), "client");
	ASSERT_STR_EQ(str_at(pj, "mac"), "02:00:00:00:00:01");
	ASSERT_STR_EQ(str_at(pj, "mtu"), "9000");
	ASSERT_STR_EQ(str_at(pj, "ips.0"), "10.1.0.5/24");
	ASSERT_STR_EQ(str_at(pj, "ips.1"), "fd00::5/64");
	ASSERT_STR_EQ(str_at(pj, "gateway"), "10.1.0.1");
	ASSERT_STR_EQ(str_at(pj, "routes.0.dst"), "0.0.0.0/0");
	ASSERT_STR_EQ(str_at(pj, "vdev"), "net_virtio_user0,path=/var/run/podwire/1a2b3c4d/"
					  "vhost.sock,mac=02:00:00:00:00:01,server=0");
	ASSERT_STR_EQ(str_at(pj, "eal.0"), "--vdev=net_virtio_user0,path=/var/run/podwire/1a2b3c4d/"
					   "vhost.sock,mac=02:00:00:00:00:01,server=0");
	ASSERT_STR_EQ(str_at(pj, "eal.1"), "--single-file-segments");
	ASSERT_STR_EQ(str_at(pj, "deviceInfo.vhost-user.mode"), "client");
	cJSON_Delete(pj);
	cJSON_Delete(m);
}

/* "queues": in device-info (when > 1), podwire.json, virtio-user's
 * vdev; memif has no devarg for it. */
static void test_queues(void)
{
	char vdev[256], msg[256];
	cJSON *m = merged(), *d, *pj;
	struct attach a;

	attach_for(&a, IFTYPE_VHOST, "client");
	a.queues = 2;
	d = devinfo_build(&a);
	ASSERT_STR_EQ(str_at(d, "vhost-user.queues"), "2");
	ASSERT_INT_EQ(devinfo_queues(d), 2);
	ASSERT_INT_EQ(devinfo_vdev(d, NULL, 0, vdev, sizeof(vdev), msg, sizeof(msg)), 0);
	ASSERT_STR_EQ(vdev, "net_virtio_user0,path=/var/run/podwire/1a2b3c4d/vhost.sock,server=0,"
			    "queues=2");
	cJSON_Delete(d);
	pj = podwire_json_build(&a, "02:00:00:00:00:01", 1500, m);
	ASSERT_STR_EQ(str_at(pj, "queues"), "2");
	ASSERT_STR_EQ(str_at(pj, "deviceInfo.vhost-user.queues"), "2");
	ASSERT_CONTAINS(str_at(pj, "vdev"), ",server=0,queues=2");
	cJSON_Delete(pj);

	attach_for(&a, IFTYPE_MEMIF, "slave");
	a.queues = 16;
	d = devinfo_build(&a);
	ASSERT_STR_EQ(str_at(d, "memif.queues"), "16");
	ASSERT_INT_EQ(devinfo_vdev(d, NULL, 0, vdev, sizeof(vdev), msg, sizeof(msg)), 0);
	ASSERT_STR_EQ(vdev, "net_memif0,role=client,socket=/var/run/podwire/1a2b3c4d/memif.sock,"
			    "socket-abstract=no");
	cJSON_Delete(d);

	/* One queue pair: no key (the spec's objects as they were), 1 in
	 * podwire.json. */
	attach_for(&a, IFTYPE_VHOST, "client");
	a.queues = 1;
	d = devinfo_build(&a);
	ASSERT_INT_EQ(has(d, "vhost-user.queues"), 0);
	ASSERT_INT_EQ(devinfo_queues(d), 1);
	cJSON_Delete(d);
	pj = podwire_json_build(&a, "02:00:00:00:00:01", 1500, m);
	ASSERT_STR_EQ(str_at(pj, "queues"), "1");
	cJSON_Delete(pj);

	/* A device-info a runtime or person wrote wrong. */
	static const char *const bad[] = {"0", "17", "\"2\"", "1.5", "-1"};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		char json[256];

		snprintf(json, sizeof(json),
			 "{\"type\":\"vhost-user\",\"vhost-user\":{\"mode\":\"client\","
			 "\"path\":\"/x\",\"queues\":%s}}",
			 bad[i]);
		d = parse(json);
		ASSERT_INT_EQ(devinfo_queues(d), -1);
		ASSERT_INT_EQ(devinfo_vdev(d, NULL, 0, vdev, sizeof(vdev), msg, sizeof(msg)), -1);
		ASSERT_CONTAINS(msg,
				"the \"vhost-user\" device's \"queues\" must be an integer 1-16");
		cJSON_Delete(d);
	}
	cJSON_Delete(m);
}

static void attach_pci(struct attach *a)
{
	memset(a, 0, sizeof(*a));
	snprintf(a->containerid, sizeof(a->containerid), "c1");
	snprintf(a->ifname, sizeof(a->ifname), "net2");
	snprintf(a->cni_name, sizeof(a->cni_name), "sriov-a");
	snprintf(a->port, sizeof(a->port), "pw-1a2b3c4e-net2");
	a->iftype = IFTYPE_PCI;
	snprintf(a->physnet, sizeof(a->physnet), "physnet2");
	snprintf(a->pci, sizeof(a->pci), "0000:01:10.2");
	snprintf(a->pf_pci, sizeof(a->pf_pci), "0000:01:00.0");
	snprintf(a->vfio, sizeof(a->vfio), "/dev/vfio/11");
}

/* The spec's pci type: the VF and its PF, nothing else we cannot stand by. */
static void test_devinfo_pci(void)
{
	char vdev[64], msg[256];
	struct attach a;
	cJSON *d, *pci;

	attach_pci(&a);
	d = devinfo_build(&a);
	ASSERT_STR_EQ(str_at(d, "type"), "pci");
	ASSERT_STR_EQ(str_at(d, "version"), "1.1.0");
	ASSERT_STR_EQ(str_at(d, "pci.pci-address"), "0000:01:10.2");
	ASSERT_STR_EQ(str_at(d, "pci.pf-pci-address"), "0000:01:00.0");
	pci = cJSON_GetObjectItem(d, "pci");
	ASSERT_INT_EQ(cJSON_GetArraySize(pci), 2);
	ASSERT_INT_EQ(cJSON_GetArraySize(d), 3);
	ASSERT_INT_EQ(devinfo_vdev(d, NULL, 0, vdev, sizeof(vdev), msg, sizeof(msg)), -1);
	cJSON_Delete(d);

	/* No PF known: the optional key is left out, not written empty. */
	a.pf_pci[0] = '\0';
	d = devinfo_build(&a);
	ASSERT_INT_EQ(has(d, "pci.pf-pci-address"), 0);
	cJSON_Delete(d);
}

static void test_result_pci(void)
{
	struct cni_error err = {0};
	const struct result_iface vf = {.name = "net2",
					.mac = "02:00:00:00:00:05",
					.sandbox = "/var/run/netns/p1",
					.pci_id = "0000:01:10.2"};
	cJSON *in = parse(ipam_040), *n = result_normalize(in, "ipam", &err);
	cJSON *m = result_merge(NULL, n, &vf), *r = result_shape(m, "1.1.0"), *pj;
	struct attach a;

	ASSERT_STR_EQ(str_at(r, "interfaces.0.name"), "net2");
	ASSERT_STR_EQ(str_at(r, "interfaces.0.pciID"), "0000:01:10.2");
	ASSERT_STR_EQ(str_at(r, "interfaces.0.mac"), "02:00:00:00:00:05");
	ASSERT_INT_EQ(has(r, "interfaces.0.socketPath"), 0);
	ASSERT_INT_EQ(has(r, "interfaces.0.mtu"), 0);
	ASSERT_STR_EQ(str_at(r, "ips.0.address"), "10.1.0.5/24");
	cJSON_Delete(r);
	/* pciID came with 1.1.0. */
	r = result_shape(m, "1.0.0");
	ASSERT_INT_EQ(has(r, "interfaces.0.pciID"), 0);
	ASSERT_STR_EQ(str_at(r, "interfaces.0.name"), "net2");
	cJSON_Delete(r);

	attach_pci(&a);
	pj = podwire_json_build(&a, "02:00:00:00:00:05", 0, m);
	ASSERT_STR_EQ(str_at(pj, "iftype"), "pci");
	ASSERT_STR_EQ(str_at(pj, "physnet"), "physnet2");
	ASSERT_STR_EQ(str_at(pj, "pci"), "0000:01:10.2");
	ASSERT_STR_EQ(str_at(pj, "pfPci"), "0000:01:00.0");
	ASSERT_STR_EQ(str_at(pj, "vfioDevice"), "/dev/vfio/11");
	ASSERT_STR_EQ(str_at(pj, "mac"), "02:00:00:00:00:05");
	ASSERT_STR_EQ(str_at(pj, "eal.0"), "--allow=0000:01:10.2");
	ASSERT_INT_EQ(has(pj, "vdev"), 0);
	ASSERT_INT_EQ(has(pj, "socket"), 0);
	ASSERT_INT_EQ(has(pj, "mtu"), 0);
	ASSERT_INT_EQ(has(pj, "port"), 0);
	ASSERT_STR_EQ(str_at(pj, "ips.0"), "10.1.0.5/24");
	ASSERT_STR_EQ(str_at(pj, "deviceInfo.pci.pci-address"), "0000:01:10.2");
	cJSON_Delete(pj);
	cJSON_Delete(m);
	cJSON_Delete(n);
	cJSON_Delete(in);
}

/* iftype kernel: the host end listed first (no sandbox), the pod's
 * interface with its sandbox and the IPs; no device-info, no EAL args. */
static void test_result_kernel(void)
{
	struct cni_error err = {0};
	const struct result_iface k = {.name = "eth0",
				       .mac = "02:00:00:00:00:06",
				       .sandbox = "/var/run/netns/p1",
				       .mtu = 1400,
				       .host_name = "pwk1a2b3c4f",
				       .host_mac = "0a:00:00:00:00:07"};
	cJSON *in = parse(ipam_040), *n = result_normalize(in, "ipam", &err);
	cJSON *m = result_merge(NULL, n, &k), *r = result_shape(m, "1.1.0"), *pj;
	struct attach a;

	ASSERT_STR_EQ(str_at(r, "interfaces.0.name"), "pwk1a2b3c4f");
	ASSERT_STR_EQ(str_at(r, "interfaces.0.mac"), "0a:00:00:00:00:07");
	ASSERT_INT_EQ(has(r, "interfaces.0.sandbox"), 0);
	ASSERT_STR_EQ(str_at(r, "interfaces.1.name"), "eth0");
	ASSERT_STR_EQ(str_at(r, "interfaces.1.sandbox"), "/var/run/netns/p1");
	ASSERT_STR_EQ(str_at(r, "interfaces.1.mac"), "02:00:00:00:00:06");
	ASSERT_STR_EQ(str_at(r, "interfaces.1.mtu"), "1400");
	ASSERT_INT_EQ(has(r, "interfaces.1.socketPath"), 0);
	ASSERT_STR_EQ(str_at(r, "ips.0.address"), "10.1.0.5/24");
	ASSERT_STR_EQ(str_at(r, "ips.0.interface"), "1");
	cJSON_Delete(r);

	memset(&a, 0, sizeof(a));
	snprintf(a.containerid, sizeof(a.containerid), "c1");
	snprintf(a.ifname, sizeof(a.ifname), "eth0");
	snprintf(a.port, sizeof(a.port), "pw-1a2b3c4f-eth0");
	snprintf(a.network, sizeof(a.network), "net");
	snprintf(a.host_iface, sizeof(a.host_iface), "pwk1a2b3c4f");
	a.iftype = IFTYPE_KERNEL;
	ASSERT_INT_EQ(devinfo_build(&a) == NULL, 1);
	pj = podwire_json_build(&a, "02:00:00:00:00:06", 1400, m);
	ASSERT_STR_EQ(str_at(pj, "iftype"), "kernel");
	ASSERT_STR_EQ(str_at(pj, "hostIface"), "pwk1a2b3c4f");
	ASSERT_STR_EQ(str_at(pj, "port"), "pw-1a2b3c4f-eth0");
	ASSERT_STR_EQ(str_at(pj, "mtu"), "1400");
	ASSERT_STR_EQ(str_at(pj, "ips.0"), "10.1.0.5/24");
	ASSERT_INT_EQ(has(pj, "deviceInfo"), 0);
	ASSERT_INT_EQ(has(pj, "eal"), 0);
	ASSERT_INT_EQ(has(pj, "vdev"), 0);
	ASSERT_INT_EQ(has(pj, "socket"), 0);
	cJSON_Delete(pj);
	cJSON_Delete(m);
	cJSON_Delete(n);
	cJSON_Delete(in);
}

int main(void)
{
	static const struct unit_test tests[] = {
	    {"versions: supported and ordered", test_versions},
	    {"normalize: any version in, bad results named", test_normalize},
	    {"shape 1.1.0: mtu, socketPath, route fields", test_shape_1_1},
	    {"shape 1.0.0: no 1.1.0 fields, no ip version", test_shape_1_0},
	    {"shape 0.3.0/0.3.1/0.4.0: ip version first", test_shape_0_x},
	    {"merge: prevResult chaining and layer 2", test_merge_prev},
	    {"error object", test_error_object},
	    {"device-info and vdev strings", test_devinfo},
	    {"device-info removed only when podwire's", test_devinfo_remove},
	    {"podwire.json", test_podwire_json},
	    {"queues: device-info, podwire.json, vdev", test_queues},
	    {"device-info of a VF (type pci)", test_devinfo_pci},
	    {"result and podwire.json of a VF: pciID, no socket", test_result_pci},
	    {"result and podwire.json of a kernel interface: host end, no device-info",
	     test_result_kernel},
	    {NULL, NULL},
	};

	return unit_run("cni_result", tests);
}
