/* SPDX-License-Identifier: BSD-3-Clause */
/* Unit tests of dataplane/port_conf.c: port.create parsing, the JSON form
 * of a port, limits at their bounds (the state file: test_state_file.c). */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <rte_log.h>

#include "dp_harness.h"
#include "files.h"
#include "model/network.h"
#include "model/port.h"
#include "model/port_conf.h"
#include "model/port_failed.h"
#include "model/state.h"
#include "unit.h"
#include "validate.h"

static char tmp[64]; /* scratch directory, made by main */

/* A valid vhost-user server port in tmp, as parsed JSON. */
static cJSON *vhost_obj(void)
{
	cJSON *o = cJSON_CreateObject();
	char sock[128];

	snprintf(sock, sizeof(sock), "%s/pod1.sock", tmp);
	cJSON_AddStringToObject(o, "name", "pod1-net1");
	cJSON_AddStringToObject(o, "network", "net1");
	cJSON_AddStringToObject(o, "type", "vhost-user");
	cJSON_AddStringToObject(o, "socket", sock);
	return o;
}

static void set_str(cJSON *o, const char *k, const char *v)
{
	cJSON_DeleteItemFromObjectCaseSensitive(o, k);
	if (v != NULL)
		cJSON_AddStringToObject(o, k, v);
}

static void set_num(cJSON *o, const char *k, double v)
{
	cJSON_DeleteItemFromObjectCaseSensitive(o, k);
	cJSON_AddNumberToObject(o, k, v);
}

static int parse(const cJSON *o, bool check_dirs, struct port_conf *c, char *msg, size_t len,
		 const char **field)
{
	*field = NULL;
	msg[0] = '\0';
	return port_conf_parse(o, check_dirs, c, msg, len, field);
}

static void test_vhost_server(void)
{
	struct port_conf c;
	cJSON *o = vhost_obj();
	char msg[512], sock[128];
	const char *field;

	snprintf(sock, sizeof(sock), "%s/pod1.sock", tmp);
	set_str(o, "mode", "server");
	set_str(o, "mac", "02:00:00:AB:cd:01");
	set_num(o, "mtu", 9000);
	ASSERT_INT_EQ(parse(o, true, &c, msg, sizeof(msg), &field), 0);
	ASSERT_STR_EQ(c.name, "pod1-net1");
	ASSERT_STR_EQ(c.network, "net1");
	ASSERT_STR_EQ(c.type, "vhost-user");
	ASSERT_STR_EQ(c.socket, sock);
	ASSERT_STR_EQ(c.secret, "");
	ASSERT_INT_EQ(c.role, PORT_ROLE_SERVER);
	CU_ASSERT(memcmp(c.mac, (const uint8_t[6]){2, 0, 0, 0xab, 0xcd, 1}, 6) == 0);
	ASSERT_INT_EQ(c.mtu, 9000);

	/* Defaults: server mode, MTU 1500. */
	set_str(o, "mode", NULL);
	set_str(o, "mtu", NULL);
	ASSERT_INT_EQ(parse(o, true, &c, msg, sizeof(msg), &field), 0);
	ASSERT_INT_EQ(c.role, PORT_ROLE_SERVER);
	ASSERT_INT_EQ(c.mtu, API_MTU_DEFAULT);
	ASSERT_INT_EQ(c.mtu, 1500);
	cJSON_Delete(o);
}

static void test_vhost_client(void)
{
	struct port_conf c;
	cJSON *o = vhost_obj();
	char msg[512];
	const char *field;

	set_str(o, "mode", "client");
	set_num(o, "mtu", 68);
	ASSERT_INT_EQ(parse(o, true, &c, msg, sizeof(msg), &field), 0);
	ASSERT_INT_EQ(c.role, PORT_ROLE_CLIENT);
	ASSERT_INT_EQ(c.mtu, 68);
	ASSERT_STR_EQ(c.type, "vhost-user");
	cJSON_Delete(o);
}

static void test_memif_secret(void)
{
	struct port_conf c;
	cJSON *o = vhost_obj();
	char msg[512], secret[API_SECRET_MAX + 1];
	const char *field;

	set_str(o, "type", "memif");
	set_str(o, "secret", "s3cret");
	ASSERT_INT_EQ(parse(o, true, &c, msg, sizeof(msg), &field), 0);
	ASSERT_STR_EQ(c.type, "memif");
	ASSERT_STR_EQ(c.secret, "s3cret");

	/* Exactly the limit. */
	memset(secret, 'k', API_SECRET_MAX);
	secret[API_SECRET_MAX] = '\0';
	set_str(o, "secret", secret);
	ASSERT_INT_EQ(parse(o, true, &c, msg, sizeof(msg), &field), 0);
	ASSERT_STR_EQ(c.secret, secret);

	/* The secret is optional. */
	set_str(o, "secret", NULL);
	ASSERT_INT_EQ(parse(o, true, &c, msg, sizeof(msg), &field), 0);
	ASSERT_STR_EQ(c.secret, "");
	cJSON_Delete(o);
}

static void test_null_port(void)
{
	struct port_conf c;
	cJSON *o = cJSON_Parse("{\"name\":\"n0\",\"network\":\"net1\",\"type\":\"null\"}");
	char msg[512];
	const char *field;

	CU_ASSERT_PTR_NOT_NULL_FATAL(o);
	ASSERT_INT_EQ(parse(o, true, &c, msg, sizeof(msg), &field), 0);
	ASSERT_STR_EQ(c.type, "null");
	ASSERT_STR_EQ(c.socket, "");
	ASSERT_INT_EQ(c.mtu, 1500);

	/* A socket on a null port is a mistake worth reporting. */
	set_str(o, "socket", "/tmp/x.sock");
	ASSERT_INT_EQ(parse(o, false, &c, msg, sizeof(msg), &field), API_ERR_INVALID_PARAMS);
	ASSERT_STR_EQ(field, "socket");
	ASSERT_CONTAINS(msg, "port \"n0\"");
	ASSERT_CONTAINS(msg, "type null has no socket");

	/* Nor a mode: there is nothing to connect. */
	cJSON_DeleteItemFromObject(o, "socket");
	set_str(o, "mode", "client");
	ASSERT_INT_EQ(parse(o, false, &c, msg, sizeof(msg), &field), API_ERR_INVALID_PARAMS);
	ASSERT_STR_EQ(field, "mode");
	ASSERT_CONTAINS(msg, "\"mode\" applies to vhost-user and memif ports; leave it out");
	cJSON_Delete(o);
}

static bool is_unicast_local(const uint8_t m[6])
{
	return (m[0] & 0x01) == 0 && (m[0] & 0x02) == 0x02;
}

static void test_generated_mac(void)
{
	enum { N = 8 };
	struct port_conf c[N];
	cJSON *o = vhost_obj();
	char msg[512];
	const char *field;

	for (int i = 0; i < N; i++) {
		ASSERT_INT_EQ(parse(o, true, &c[i], msg, sizeof(msg), &field), 0);
		unit_check(is_unicast_local(c[i].mac), __LINE__, __FILE__,
			   "generated MAC %02x:%02x:... is not unicast, locally administered",
			   c[i].mac[0], c[i].mac[1]);
	}
	/* Random: any two differ (a clash is 1 in 2^46 per pair). */
	for (int i = 0; i < N; i++)
		for (int j = i + 1; j < N; j++)
			CU_ASSERT(memcmp(c[i].mac, c[j].mac, 6) != 0);
	/* And the generated MAC is one validate_mac accepts. */
	{
		char text[18];
		uint8_t back[6];

		format_mac(c[0].mac, text);
		ASSERT_INT_EQ(validate_mac("x", text, back, msg, sizeof(msg)), 0);
	}
	cJSON_Delete(o);
}

/* One bad input: what to change in a good vhost-user object, and what the
 * parser must say. */
struct bad_case {
	const char *key;
	const char *str; /* new string value; NULL: remove the key */
	bool is_num;
	double num;
	const char *type; /* also set "type" (NULL: keep vhost-user) */
	const char *drop; /* also remove this key */
	bool check_dirs;
	int code;
	const char *field;
	const char *says[3]; /* substrings of the message */
};

static void run_bad(const struct bad_case *b, int line)
{
	struct port_conf c;
	cJSON *o = vhost_obj();
	char msg[512];
	const char *field;
	int rc;

	if (b->type != NULL)
		set_str(o, "type", b->type);
	if (b->drop != NULL)
		set_str(o, b->drop, NULL);
	if (b->is_num)
		set_num(o, b->key, b->num);
	else
		set_str(o, b->key, b->str);
	rc = parse(o, b->check_dirs, &c, msg, sizeof(msg), &field);
	unit_check(rc == b->code, line, __FILE__, "%s=\"%s\": code %d, expected %d (%s)", b->key,
		   b->str ? b->str : "(none)", rc, b->code, msg);
	unit_check(field != NULL && strcmp(field, b->field) == 0, line, __FILE__,
		   "%s=\"%s\": field \"%s\", expected \"%s\"", b->key, b->str ? b->str : "(none)",
		   field ? field : "(null)", b->field);
	for (int i = 0; i < 3 && b->says[i] != NULL; i++)
		unit_check(strstr(msg, b->says[i]) != NULL, line, __FILE__,
			   "%s=\"%s\": message \"%s\" should contain \"%s\"", b->key,
			   b->str ? b->str : "(none)", msg, b->says[i]);
	cJSON_Delete(o);
}

#define BAD(...) run_bad(&(const struct bad_case){__VA_ARGS__}, __LINE__)
#define INV	 API_ERR_INVALID_PARAMS
#define P	 "port \"pod1-net1\""

static void test_bad_name_network_type_mode(void)
{
	char long_name[API_NAME_MAX + 2];

	memset(long_name, 'n', API_NAME_MAX + 1);
	long_name[API_NAME_MAX + 1] = '\0';

	BAD(.key = "name", .str = NULL, .code = INV, .field = "name",
	    .says = {"field \"name\" is required", "at most 63 bytes"});
	BAD(.key = "name", .str = "", .code = INV, .field = "name", .says = {"port name is empty"});
	BAD(.key = "name", .str = "pod 1", .code = INV, .field = "name",
	    .says = {"port name \"pod 1\"", "use only"});
	BAD(.key = "name", .str = "-pod", .code = INV, .field = "name",
	    .says = {"starts with '-'"});
	BAD(.key = "name", .str = long_name, .code = INV, .field = "name",
	    .says = {"the limit is 63"});
	BAD(.key = "name", .is_num = true, .num = 5, .code = INV, .field = "name");

	BAD(.key = "network", .str = NULL, .code = INV, .field = "network",
	    .says = {"field \"network\" is required"});
	BAD(.key = "network", .str = "net/1", .code = INV, .field = "network",
	    .says = {"network name \"net/1\"", "'/'"});
	BAD(.key = "network", .str = long_name, .code = INV, .field = "network",
	    .says = {P, "\"network\" is 64 bytes", "the limit is 63"});

	BAD(.key = "type", .str = "tap", .code = INV, .field = "type",
	    .says = {P ": unknown type \"tap\"", "use one of: vhost-user, memif, null"});
	BAD(.key = "type", .str = NULL, .code = INV, .field = "type",
	    .says = {"field \"type\" is required", "vhost-user"});
	BAD(.key = "type", .str = "Vhost-User", .code = INV, .field = "type");
	BAD(.key = "type", .str = "vhost", .code = INV, .field = "type");

	BAD(.key = "mode", .str = "listen", .code = INV, .field = "mode",
	    .says = {P, "mode \"listen\" is not valid", "\"server\""});
	BAD(.key = "mode", .str = "", .code = INV, .field = "mode");
	BAD(.key = "mode", .str = "Server", .code = INV, .field = "mode");
}

/* The message lists exactly the registered kinds, from the registry. */
static void test_bad_type_lists_known(void)
{
	struct port_conf c;
	cJSON *o = vhost_obj();
	char msg[512], names[256];
	const char *field;

	set_str(o, "type", "tap");
	ASSERT_INT_EQ(port_conf_parse(o, false, &c, msg, sizeof(msg), &field), INV);
	ASSERT_STR_EQ(field, "type");
	port_kind_names(names, sizeof(names));
	for (unsigned int i = 0; i < port_kind_count(); i++)
		ASSERT_CONTAINS(names, port_kind_at(i)->kind);
	ASSERT_CONTAINS(msg, "unknown type \"tap\"; use one of: ");
	ASSERT_CONTAINS(msg, names);
	cJSON_Delete(o);
}

static void test_bad_socket(void)
{
	char too_long[256], exact[256], missing[128], file[128], dotdot[128];
	size_t n;
	int fd;

	n = (size_t)snprintf(too_long, sizeof(too_long), "%s/", tmp);
	while (n < API_SOCKET_PATH_MAX + 1)
		too_long[n++] = 's';
	too_long[n] = '\0';
	snprintf(exact, sizeof(exact), "%.*s", API_SOCKET_PATH_MAX, too_long);
	snprintf(missing, sizeof(missing), "%s/no/such/dir/p.sock", tmp);
	snprintf(file, sizeof(file), "%s/plain-file", tmp);
	snprintf(dotdot, sizeof(dotdot), "%s/../p.sock", tmp);
	fd = open(file, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	CU_ASSERT_FATAL(fd >= 0);
	close(fd);

	BAD(.key = "socket", .str = NULL, .code = INV, .field = "socket",
	    .says = {P, "type vhost-user needs \"socket\"", "at most 107 bytes"});
	BAD(.key = "socket", .str = NULL, .type = "memif", .code = INV, .field = "socket",
	    .says = {"type memif needs \"socket\""});
	BAD(.key = "socket", .str = "run/p.sock", .code = INV, .field = "socket",
	    .says = {P, "is relative"});
	BAD(.key = "socket", .str = "", .code = INV, .field = "socket", .says = {"is relative"});
	BAD(.key = "socket", .str = too_long, .code = INV, .field = "socket",
	    .says = {P, "is 108 bytes", "the limit is 107"});
	BAD(.key = "socket", .str = too_long, .check_dirs = true, .code = INV, .field = "socket",
	    .says = {"the limit is 107"});
	BAD(.key = "socket", .is_num = true, .num = 1, .code = INV, .field = "socket");

	/* The directory only matters when asked to check it. */
	BAD(.key = "socket", .str = missing, .check_dirs = true, .code = API_ERR_PATH,
	    .field = "socket", .says = {P, "no/such/dir does not exist", "create it first"});
	BAD(.key = "socket", .str = missing, .type = "memif", .check_dirs = true,
	    .code = API_ERR_PATH, .field = "socket");
	BAD(.key = "socket", .str = file, .check_dirs = true, .code = INV, .field = "socket",
	    .says = {"exists and is not a socket"});
	BAD(.key = "socket", .str = dotdot, .check_dirs = true, .code = INV, .field = "socket",
	    .says = {"contains \"..\""});
	{
		struct port_conf c;
		cJSON *o = vhost_obj();
		char msg[512];
		const char *field;

		set_str(o, "socket", missing);
		ASSERT_INT_EQ(parse(o, false, &c, msg, sizeof(msg), &field), 0);
		ASSERT_STR_EQ(c.socket, missing);
		set_str(o, "socket", exact);
		ASSERT_INT_EQ(parse(o, true, &c, msg, sizeof(msg), &field), 0);
		ASSERT_STR_EQ(c.socket, exact);
		ASSERT_INT_EQ(strlen(c.socket), 107);
		cJSON_Delete(o);
	}
	unlink(file);
}

static void test_bad_mac_mtu_secret(void)
{
	BAD(.key = "mac", .str = "02:00:00:00:00", .code = INV, .field = "mac",
	    .says = {P, "MAC \"02:00:00:00:00\"", "aa:bb:cc:dd:ee:ff"});
	BAD(.key = "mac", .str = "01:00:5e:00:00:01", .code = INV, .field = "mac",
	    .says = {P, "multicast"});
	BAD(.key = "mac", .str = "00:00:00:00:00:00", .code = INV, .field = "mac",
	    .says = {"not usable"});
	BAD(.key = "mac", .str = "02:00:00:00:00:01 ", .code = INV, .field = "mac");

	BAD(.key = "mtu", .is_num = true, .num = 67, .code = INV, .field = "mtu",
	    .says = {P, "\"mtu\" is 67", "it must be 68-9000 (bytes)"});
	BAD(.key = "mtu", .is_num = true, .num = 9001, .code = INV, .field = "mtu",
	    .says = {"port.create: " P ": \"mtu\" is 9001, it must be 68-9000 (bytes)"});
	BAD(.key = "mtu", .is_num = true, .num = -1, .code = INV, .field = "mtu");
	BAD(.key = "mtu", .is_num = true, .num = 65536 + 1500, .code = INV, .field = "mtu");

	BAD(.key = "secret", .str = "s3cret", .code = INV, .field = "secret",
	    .says = {P, "applies to memif ports only", "vhost-user"});
	BAD(.key = "secret", .str = "s3cret", .type = "null", .drop = "socket", .code = INV,
	    .field = "secret", .says = {"memif ports only"});
	BAD(.key = "secret", .str = "0123456789abcdefghijklmno", .type = "memif", .code = INV,
	    .field = "secret", .says = {P, "\"secret\" is 25 bytes", "the limit is 24"});
	BAD(.key = "secret", .str = "a,b", .type = "memif", .code = INV, .field = "secret",
	    .says = {"without ','"});
	BAD(.key = "secret", .str = "a=b", .type = "memif", .code = INV, .field = "secret");
	BAD(.key = "secret", .str = "", .type = "memif", .code = INV, .field = "secret");
}

/* Parses a literal port.create object and checks the verdict. */
static void check_json(const char *json, int code, const char *want_field, const char *says,
		       int line)
{
	struct port_conf c;
	cJSON *o = cJSON_Parse(json);
	char msg[512] = "";
	const char *field = NULL;
	int rc;

	CU_ASSERT_PTR_NOT_NULL_FATAL(o);
	rc = port_conf_parse(o, false, &c, msg, sizeof(msg), &field);
	unit_check(rc == code, line, __FILE__, "%s: code %d, expected %d (%s)", json, rc, code,
		   msg);
	if (want_field != NULL)
		unit_check(field != NULL && strcmp(field, want_field) == 0, line, __FILE__,
			   "%s: field %s, expected %s", json, field ? field : "(null)", want_field);
	if (says != NULL)
		unit_check(strstr(msg, says) != NULL, line, __FILE__,
			   "%s: message \"%s\" should contain \"%s\"", json, msg, says);
	cJSON_Delete(o);
}

#define UPL(json, code, field, says) check_json(json, code, field, says, __LINE__)
#define J(rest)			     "{\"name\":\"up\",\"network\":\"n\"," rest "}"

static void test_uplink_fields(void)
{
	struct port_conf c;
	const char *field;
	char msg[512];
	cJSON *o;

	UPL(J("\"type\":\"af_xdp\",\"iface\":\"eth1\""), 0, NULL, NULL);
	UPL(J("\"type\":\"af_xdp\""), INV, "iface", "type af_xdp needs \"iface\"");
	UPL(J("\"type\":\"af_packet\""), INV, "iface", "type af_packet needs \"iface\"");
	UPL(J("\"type\":\"af_xdp\",\"iface\":\"\""), INV, "iface", "1-15 characters");
	UPL(J("\"type\":\"af_xdp\",\"iface\":\"a-very-long-ifname\""), INV, "iface",
	    "port \"up\": \"iface\" is 18 bytes, the limit is 15");
	UPL(J("\"type\":\"af_xdp\",\"iface\":\"a/b\""), INV, "iface", "without '/'");
	UPL(J("\"type\":\"af_xdp\",\"iface\":\"..\""), INV, "iface", NULL);
	UPL(J("\"type\":\"af_xdp\",\"iface\":\"eth1\",\"socket\":\"/tmp/x.sock\""), INV, "socket",
	    "type af_xdp has no socket");
	UPL(J("\"type\":\"af_xdp\",\"iface\":\"eth1\",\"mode\":\"client\""), INV, "mode",
	    "leave it out for type af_xdp");
	UPL(J("\"type\":\"af_xdp\",\"iface\":\"eth1\",\"pci\":\"0000:01:00.0\""), INV, "pci",
	    "applies to pci ports");
	UPL(J("\"type\":\"af_xdp\",\"iface\":\"eth1\",\"secret\":\"s\""), INV, "secret",
	    "memif ports only");
	UPL(J("\"type\":\"vhost-user\",\"socket\":\"/tmp/x.sock\",\"iface\":\"eth1\""), INV,
	    "iface", "applies to af_xdp, af_packet and veth ports");
	UPL(J("\"type\":\"pci\""), INV, "pci", "a pci port needs \"pci\"");
	UPL(J("\"type\":\"pci\",\"pci\":\"1:2:3\""), INV, "pci", "such as 0000:01:10.2");
	UPL(J("\"type\":\"pci\",\"pci\":\"0000:01:20.0\""), INV, "pci", "not valid");
	UPL(J("\"type\":\"pci\",\"pci\":\"0000:01:10.8\""), INV, "pci", NULL);
	UPL(J("\"type\":\"pci\",\"pci\":\"0000:01:10.2x\""), INV, "pci", NULL);
	UPL(J("\"type\":\"pci\",\"pci\":\"0000:01:10.2\",\"iface\":\"e\""), INV, "iface", NULL);
	UPL(J("\"type\":\"pci\",\"pci\":7"), INV, "pci", "must be a string");
	/* "io": how a veth reads its host end; veth ports only. */
	UPL(J("\"type\":\"veth\",\"iface\":\"h1\",\"io\":\"xdp\""), 0, NULL, NULL);
	UPL(J("\"type\":\"veth\",\"iface\":\"h1\",\"io\":\"packet\""), 0, NULL, NULL);
	UPL(J("\"type\":\"veth\",\"iface\":\"h1\",\"io\":\"tap\""), INV, "io",
	    "port \"up\": \"io\" is \"tap\"; use \"packet\" (AF_PACKET, offloads on) or \"xdp\"");
	UPL(J("\"type\":\"veth\",\"iface\":\"h1\",\"io\":1"), INV, "io", "must be a string");
	UPL(J("\"type\":\"af_xdp\",\"iface\":\"eth1\",\"io\":\"xdp\""), INV, "io",
	    "\"io\" applies to veth ports; leave it out for type af_xdp");

	/* The short form gets its domain; hex is kept lower case. */
	o = cJSON_Parse(J("\"type\":\"pci\",\"pci\":\"3B:02.7\""));
	ASSERT_INT_EQ(port_conf_parse(o, false, &c, msg, sizeof(msg), &field), 0);
	ASSERT_STR_EQ(c.pci, "0000:3b:02.7");
	cJSON_Delete(o);
}

static void check_same(const struct port_conf *a, const struct port_conf *b, int line)
{
	unit_check(memcmp(a->name, b->name, sizeof(a->name)) == 0, line, __FILE__,
		   "name \"%s\" != \"%s\"", a->name, b->name);
	unit_check(memcmp(a->network, b->network, sizeof(a->network)) == 0, line, __FILE__,
		   "network \"%s\" != \"%s\"", a->network, b->network);
	unit_check(memcmp(a->type, b->type, sizeof(a->type)) == 0, line, __FILE__,
		   "type \"%s\" != \"%s\"", a->type, b->type);
	unit_check(memcmp(a->socket, b->socket, sizeof(a->socket)) == 0, line, __FILE__,
		   "socket \"%s\" != \"%s\"", a->socket, b->socket);
	unit_check(memcmp(a->secret, b->secret, sizeof(a->secret)) == 0, line, __FILE__,
		   "secret \"%s\" != \"%s\"", a->secret, b->secret);
	unit_check(a->role == b->role, line, __FILE__, "role %d != %d", a->role, b->role);
	unit_check(memcmp(a->mac, b->mac, sizeof(a->mac)) == 0, line, __FILE__, "mac differs");
	unit_check(a->mtu == b->mtu, line, __FILE__, "mtu %u != %u", a->mtu, b->mtu);
	unit_check(strcmp(a->iface, b->iface) == 0, line, __FILE__, "iface \"%s\" != \"%s\"",
		   a->iface, b->iface);
	unit_check(strcmp(a->pci, b->pci) == 0, line, __FILE__, "pci \"%s\" != \"%s\"", a->pci,
		   b->pci);
	unit_check(strcmp(a->io, b->io) == 0, line, __FILE__, "io \"%s\" != \"%s\"", a->io, b->io);
}

static void round_trip(const char *json, int line)
{
	struct port_conf a, b;
	char msg[512], text[1024], sock[128];
	const char *field;
	cJSON *o, *j;
	int rc;

	/* "@" stands for the scratch directory. */
	snprintf(sock, sizeof(sock), "%s/rt.sock", tmp);
	snprintf(text, sizeof(text), "%s", json);
	{
		char *at = strchr(text, '@');

		if (at != NULL) {
			char rest[1024];

			snprintf(rest, sizeof(rest), "%s", at + 1);
			snprintf(at, sizeof(text) - (size_t)(at - text), "%s%s", sock, rest);
		}
	}
	o = cJSON_Parse(text);
	CU_ASSERT_PTR_NOT_NULL_FATAL(o);
	rc = parse(o, true, &a, msg, sizeof(msg), &field);
	unit_check(rc == 0, line, __FILE__, "%s: %s", text, msg);
	j = port_conf_to_json(&a, true);
	CU_ASSERT_PTR_NOT_NULL_FATAL(j);
	/* Through text, as the state file stores it. */
	{
		char *s = cJSON_Print(j);

		cJSON_Delete(j);
		j = cJSON_Parse(s);
		free(s);
		CU_ASSERT_PTR_NOT_NULL_FATAL(j);
	}
	memset(&b, 0x5a, sizeof(b));
	rc = parse(j, true, &b, msg, sizeof(msg), &field);
	unit_check(rc == 0, line, __FILE__, "re-parse of %s: %s", text, msg);
	check_same(&a, &b, line);
	cJSON_Delete(o);
	cJSON_Delete(j);
}

/* allowed_macs: only with port security, each MAC once. */
static void test_allowed_macs(void)
{
#define NUL(rest) "{\"name\":\"p\",\"network\":\"n\",\"type\":\"null\"," rest "}"
	UPL(NUL("\"mac\":\"02:00:00:00:00:01\",\"allowed_macs\":\"02:00:00:00:00:02,"
		"02:00:00:00:00:03\""),
	    0, NULL, NULL);
	UPL(NUL("\"mac\":\"02:00:00:00:00:01\",\"port_security\":false,"
		"\"allowed_macs\":\"02:00:00:00:00:02\""),
	    INV, "allowed_macs", "\"port_security\" is false");
	UPL(NUL("\"allowed_macs\":\"02:00:00:00:00:02\""), INV, "allowed_macs",
	    "the port has no MAC");
	UPL(NUL("\"mac\":\"02:00:00:00:00:01\",\"allowed_macs\":\"02:00:00:00:00:02,"
		"02:00:00:00:00:02\""),
	    INV, "allowed_macs", "lists 02:00:00:00:00:02 twice");
	UPL(J("\"type\":\"af_packet\",\"iface\":\"lo\",\"allowed_macs\":\"02:00:00:00:00:02\""),
	    INV, "allowed_macs", "an uplink");
#undef NUL
}

static void test_to_json_round_trip(void)
{
	round_trip("{\"name\":\"a\",\"network\":\"n\",\"type\":\"vhost-user\",\"socket\":\"@\"}",
		   __LINE__);
	round_trip("{\"name\":\"pod1-net1\",\"network\":\"net.1\",\"type\":\"vhost-user\","
		   "\"socket\":\"@\",\"mode\":\"client\",\"mac\":\"02:AA:bb:00:00:09\","
		   "\"mtu\":9000}",
		   __LINE__);
	round_trip("{\"name\":\"m1\",\"network\":\"n\",\"type\":\"memif\",\"socket\":\"@\","
		   "\"secret\":\"0123456789abcdefghijklmn\",\"mtu\":68}",
		   __LINE__);
	round_trip("{\"name\":\"z\",\"network\":\"n\",\"type\":\"null\"}", __LINE__);
	round_trip("{\"name\":\"u\",\"network\":\"n\",\"type\":\"af_xdp\",\"iface\":\"eth1\"}",
		   __LINE__);
	round_trip("{\"name\":\"u\",\"network\":\"n\",\"type\":\"af_packet\",\"iface\":\"e\","
		   "\"mtu\":9000}",
		   __LINE__);
	round_trip("{\"name\":\"v\",\"network\":\"n\",\"type\":\"veth\",\"iface\":\"h1\","
		   "\"io\":\"xdp\"}",
		   __LINE__);
	round_trip("{\"name\":\"u\",\"network\":\"n\",\"type\":\"pci\",\"pci\":\"0000:3b:02.7\"}",
		   __LINE__);
}

static void test_to_json_fields(void)
{
	struct port_conf c;
	cJSON *o = vhost_obj(), *j;
	char msg[512];
	const char *field;

	set_str(o, "type", "memif");
	set_str(o, "secret", "hunter2");
	set_str(o, "mac", "02:00:00:00:00:0A");
	set_str(o, "mode", "client");
	set_num(o, "mtu", 2000);
	ASSERT_INT_EQ(parse(o, true, &c, msg, sizeof(msg), &field), 0);

	j = port_conf_to_json(&c, true);
	ASSERT_STR_EQ(api_get_str(j, "name", NULL), "pod1-net1");
	ASSERT_STR_EQ(api_get_str(j, "network", NULL), "net1");
	ASSERT_STR_EQ(api_get_str(j, "type", NULL), "memif");
	ASSERT_STR_EQ(api_get_str(j, "socket", NULL), c.socket);
	ASSERT_STR_EQ(api_get_str(j, "mode", NULL), "client");
	ASSERT_STR_EQ(api_get_str(j, "mac", NULL), "02:00:00:00:00:0a");
	ASSERT_INT_EQ(api_get_int(j, "mtu", -1), 2000);
	ASSERT_STR_EQ(api_get_str(j, "secret", NULL), "hunter2");
	/* It is a valid port.create request as far as the API goes. */
	ASSERT_INT_EQ(api_check_params(API_M_PORT_CREATE, j, msg, sizeof(msg), &field), 0);
	cJSON_Delete(j);

	/* Without the secret: not in any member, not in the text. */
	j = port_conf_to_json(&c, false);
	CU_ASSERT_PTR_NULL(cJSON_GetObjectItemCaseSensitive(j, "secret"));
	{
		char *s = cJSON_PrintUnformatted(j);

		ASSERT_NOT_CONTAINS(s, "hunter2");
		free(s);
	}
	{
		struct port_conf b;

		ASSERT_INT_EQ(parse(j, true, &b, msg, sizeof(msg), &field), 0);
		ASSERT_STR_EQ(b.secret, "");
		ASSERT_STR_EQ(b.socket, c.socket);
		CU_ASSERT(memcmp(b.mac, c.mac, 6) == 0);
	}
	cJSON_Delete(j);

	/* A null port has no socket member. */
	set_str(o, "type", "null");
	set_str(o, "socket", NULL);
	set_str(o, "secret", NULL);
	set_str(o, "mode", NULL);
	ASSERT_INT_EQ(parse(o, true, &c, msg, sizeof(msg), &field), 0);
	j = port_conf_to_json(&c, true);
	CU_ASSERT_PTR_NULL(cJSON_GetObjectItemCaseSensitive(j, "socket"));
	CU_ASSERT_PTR_NULL(cJSON_GetObjectItemCaseSensitive(j, "secret"));
	CU_ASSERT_PTR_NULL(cJSON_GetObjectItemCaseSensitive(j, "mode"));
	cJSON_Delete(j);
	cJSON_Delete(o);
}

static void test_limits_at_bounds(void)
{
	static const struct {
		bool port;
		const char *field;
		long min, max;
	} lim[] = {
	    {true, "mtu", 68, 9000},
	    {true, "mac_limit", 1, 65536},
	    {true, "flood_limit", 0, 10000000},
	    {true, "tx_retries", 0, 64},
	    {false, "vlan", 0, 4094},
	    {false, "mac_limit", 1, 16777216},
	    {false, "flood_limit", 0, 10000000},
	};
	char msg[512], want[128];
	const char *field;

	for (size_t i = 0; i < sizeof(lim) / sizeof(lim[0]); i++) {
		const long v[] = {lim[i].min - 1, lim[i].min, lim[i].max, lim[i].max + 1};

		for (int b = 0; b < 4; b++) {
			cJSON *o = cJSON_Parse(lim[i].port ? "{\"name\":\"p\",\"network\":\"n\","
							     "\"type\":\"null\"}"
							   : "{\"name\":\"n\"}");
			struct port_conf pc;
			struct net_conf nc;
			long got;
			int rc;

			set_num(o, lim[i].field, (double)v[b]);
			msg[0] = '\0';
			field = NULL;
			rc = lim[i].port ? port_conf_parse(o, false, &pc, msg, sizeof(msg), &field)
					 : net_conf_parse(o, &nc, msg, sizeof(msg), &field);
			if (b == 1 || b == 2) {
				unit_check(rc == 0, __LINE__, __FILE__, "%s %s=%ld: %s",
					   lim[i].port ? "port" : "network", lim[i].field, v[b],
					   msg);
				if (lim[i].port)
					got = strcmp(lim[i].field, "mtu") == 0 ? pc.mtu
					      : strcmp(lim[i].field, "mac_limit") == 0
						  ? (long)pc.mac_limit
					      : strcmp(lim[i].field, "tx_retries") == 0
						  ? pc.tx_retries
						  : (long)pc.flood_limit;
				else
					got = strcmp(lim[i].field, "vlan") == 0 ? nc.vlan
					      : strcmp(lim[i].field, "mac_limit") == 0
						  ? (long)nc.mac_limit
						  : (long)nc.flood_limit;
				unit_check(got == v[b], __LINE__, __FILE__, "%s=%ld read as %ld",
					   lim[i].field, v[b], got);
			} else {
				unit_check(rc == API_ERR_INVALID_PARAMS, __LINE__, __FILE__,
					   "%s=%ld taken", lim[i].field, v[b]);
				unit_check(field != NULL && strcmp(field, lim[i].field) == 0,
					   __LINE__, __FILE__, "field %s",
					   field ? field : "(null)");
				snprintf(want, sizeof(want), "\"%s\" is %ld, it must be %ld-%ld",
					 lim[i].field, v[b], lim[i].min, lim[i].max);
				ASSERT_CONTAINS(msg, want);
				ASSERT_CONTAINS(msg, lim[i].port ? "port \"p\"" : "network \"n\"");
			}
			cJSON_Delete(o);
		}
	}
}

int main(void)
{
	static const struct unit_test tests[] = {
	    {"vhost-user server", test_vhost_server},
	    {"vhost-user client", test_vhost_client},
	    {"memif with secret", test_memif_secret},
	    {"null port without socket", test_null_port},
	    {"generated MAC", test_generated_mac},
	    {"bad name, network, type, mode", test_bad_name_network_type_mode},
	    {"unknown type lists the known ones", test_bad_type_lists_known},
	    {"bad socket", test_bad_socket},
	    {"bad mac, mtu, secret", test_bad_mac_mtu_secret},
	    {"uplink fields: iface, pci", test_uplink_fields},
	    {"allowed_macs: with port security only, each once", test_allowed_macs},
	    {"to_json round trip", test_to_json_round_trip},
	    {"to_json fields and secret hiding", test_to_json_fields},
	    {"limits at their bounds, network and port", test_limits_at_bounds},
	    {NULL, NULL},
	};
	int rc;

	/* EAL without hugepages: the state file test restores real ports. */
	dp_harness_init(1);
	rc = unit_run_in_tmpdir("port_conf", tests, tmp, sizeof(tmp));
	dp_harness_fini();
	return rc;
}
