/* SPDX-License-Identifier: BSD-3-Clause */
/* Unit tests of control/validate.c. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdint.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include "api.h"
#include "unit.h"
#include "validate.h"

#define OBJ "port \"pod1-net1\""

static char tmp[64]; /* scratch directory, made by main */

static void test_name_ok(void)
{
	static const char *const good[] = {"a",	    "Z",   "9",	 "pod1-net1", "A.b_c-9",
					   "net.0", "x--", "a.", NULL};
	char name[API_NAME_MAX + 1];
	char msg[256];

	for (int i = 0; good[i] != NULL; i++) {
		strcpy(msg, "untouched");
		ASSERT_INT_EQ(validate_name("port", good[i], msg, sizeof(msg)), 0);
	}
	/* Exactly the limit. */
	memset(name, 'a', API_NAME_MAX);
	name[API_NAME_MAX] = '\0';
	ASSERT_INT_EQ(strlen(name), 63);
	ASSERT_INT_EQ(validate_name("network", name, msg, sizeof(msg)), 0);
}

static void test_name_empty(void)
{
	char msg[256] = "";

	ASSERT_INT_EQ(validate_name("network", "", msg, sizeof(msg)), -EINVAL);
	ASSERT_CONTAINS(msg, "network name is empty");
	ASSERT_CONTAINS(msg, "1-63");
	ASSERT_CONTAINS(msg, "[A-Za-z0-9._-]");

	msg[0] = '\0';
	ASSERT_INT_EQ(validate_name("port", NULL, msg, sizeof(msg)), -EINVAL);
	ASSERT_CONTAINS(msg, "port name is empty");
}

static void test_name_too_long(void)
{
	char name[API_NAME_MAX + 3];
	char msg[256] = "";

	memset(name, 'b', API_NAME_MAX + 1);
	name[API_NAME_MAX + 1] = '\0';
	ASSERT_INT_EQ(validate_name("port", name, msg, sizeof(msg)), -EINVAL);
	ASSERT_CONTAINS(msg, "port name");
	ASSERT_CONTAINS(msg, "is 64 bytes");
	ASSERT_CONTAINS(msg, "the limit is 63");
	ASSERT_CONTAINS(msg, "bbbbbbbbbb"); /* the start of the name, to recognise it */

	memset(name, 'b', API_NAME_MAX + 2);
	name[API_NAME_MAX + 2] = '\0';
	ASSERT_INT_EQ(validate_name("port", name, msg, sizeof(msg)), -EINVAL);
	ASSERT_CONTAINS(msg, "is 65 bytes");
}

static void test_name_bad_chars(void)
{
	static const struct {
		const char *name;
		const char *shown; /* the character, as the message shows it */
		const char *where;
	} bad[] = {
	    {"pod 1", "' '", "offset 3"},   {"pod/1", "'/'", "offset 3"},
	    {"a:b", "':'", "offset 1"},	    {"x,y", "','", "offset 1"},
	    {"eth0\n", "'\n'", "offset 4"}, {"$net", "'$'", "offset 0"},
	    {"a\"b", "'\"'", "offset 1"},   {"pod=1", "'='", "offset 3"},
	};
	char msg[256];

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		msg[0] = '\0';
		ASSERT_INT_EQ(validate_name("port", bad[i].name, msg, sizeof(msg)), -EINVAL);
		ASSERT_CONTAINS(msg, "port name");
		ASSERT_CONTAINS(msg, bad[i].shown);
		ASSERT_CONTAINS(msg, bad[i].where);
		ASSERT_CONTAINS(msg, "use only [A-Za-z0-9._-]");
	}
	/* A byte outside ASCII. */
	ASSERT_INT_EQ(validate_name("network", "caf\xc3\xa9", msg, sizeof(msg)), -EINVAL);
	ASSERT_CONTAINS(msg, "offset 3");
}

static void test_name_leading(void)
{
	char msg[256] = "";

	ASSERT_INT_EQ(validate_name("port", "-pod", msg, sizeof(msg)), -EINVAL);
	ASSERT_CONTAINS(msg, "port name \"-pod\" starts with '-'");
	ASSERT_CONTAINS(msg, "start with a letter or digit");
	ASSERT_INT_EQ(validate_name("network", ".net", msg, sizeof(msg)), -EINVAL);
	ASSERT_CONTAINS(msg, "network name \".net\" starts with '.'");
	ASSERT_INT_EQ(validate_name("network", ".", msg, sizeof(msg)), -EINVAL);
	ASSERT_INT_EQ(validate_name("network", "..", msg, sizeof(msg)), -EINVAL);
}

static void check_mac_ok(const char *text, const uint8_t want[6])
{
	uint8_t mac[6] = {0};
	char msg[256] = "";
	int rc = validate_mac(OBJ, text, mac, msg, sizeof(msg));

	unit_check(rc == 0, __LINE__, __FILE__, "validate_mac(\"%s\") = %d (%s)", text, rc, msg);
	unit_check(memcmp(mac, want, 6) == 0, __LINE__, __FILE__,
		   "validate_mac(\"%s\") gave %02x:%02x:%02x:%02x:%02x:%02x", text, mac[0], mac[1],
		   mac[2], mac[3], mac[4], mac[5]);
}

static void test_mac_good(void)
{
	check_mac_ok("02:00:00:00:00:01", (const uint8_t[6]){0x02, 0, 0, 0, 0, 0x01});
	check_mac_ok("de:ad:be:ef:12:34", (const uint8_t[6]){0xde, 0xad, 0xbe, 0xef, 0x12, 0x34});
	check_mac_ok("02:AB:Cd:eF:00:1F", (const uint8_t[6]){0x02, 0xab, 0xcd, 0xef, 0x00, 0x1f});
	check_mac_ok("02-00-5E-10-20-fe", (const uint8_t[6]){0x02, 0x00, 0x5e, 0x10, 0x20, 0xfe});
	/* Zero in the first byte is fine when the rest is not. */
	check_mac_ok("00:00:00:00:00:01", (const uint8_t[6]){0, 0, 0, 0, 0, 0x01});
	check_mac_ok("fe:ff:ff:ff:ff:ff", (const uint8_t[6]){0xfe, 0xff, 0xff, 0xff, 0xff, 0xff});
}

static void test_mac_multicast_zero(void)
{
	static const char *const mcast[] = {"01:00:5e:00:00:01", "ff:ff:ff:ff:ff:ff",
					    "33:33:00:00:00:01", "03:00:00:00:00:00", NULL};
	uint8_t mac[6];
	char msg[256];

	for (int i = 0; mcast[i] != NULL; i++) {
		msg[0] = '\0';
		ASSERT_INT_EQ(validate_mac(OBJ, mcast[i], mac, msg, sizeof(msg)), -EINVAL);
		ASSERT_CONTAINS(msg, OBJ);
		ASSERT_CONTAINS(msg, mcast[i]);
		ASSERT_CONTAINS(msg, "multicast");
		ASSERT_CONTAINS(msg, "use a unicast one");
	}
	msg[0] = '\0';
	ASSERT_INT_EQ(validate_mac(OBJ, "00:00:00:00:00:00", mac, msg, sizeof(msg)), -EINVAL);
	ASSERT_CONTAINS(msg, OBJ);
	ASSERT_CONTAINS(msg, "00:00:00:00:00:00 is not usable");
	ASSERT_CONTAINS(msg, "leave it out");
	ASSERT_INT_EQ(validate_mac(OBJ, "00-00-00-00-00-00", mac, msg, sizeof(msg)), -EINVAL);
	ASSERT_CONTAINS(msg, "not usable");
}

static void test_mac_malformed(void)
{
	static const char *const bad[] = {
	    "",
	    "02",
	    "02:00:00:00:00",
	    "02:00:00:00:00:",
	    "02:00:00:00:00:0",
	    "02:00:00:00:00:001",
	    "02:00:00:00:00:01:",
	    "02:00:00:00:00:01 ",
	    "02:00:00:00:00:01:07",
	    " 02:00:00:00:00:01",
	    "2:00:00:00:00:01",
	    "02:0:00:00:00:001",
	    "02::00:00:00:00:01",
	    "02.00.00.00.00.01",
	    "02 00 00 00 00 01",
	    "020000000001",
	    "0200.0000.0001",
	    "02:00:00:00:00:0g",
	    "g2:00:00:00:00:01",
	    "02:00:00:00:00:01x",
	    "0x:00:00:00:00:01",
	    NULL,
	};
	uint8_t mac[6];
	char msg[256];

	for (int i = 0; bad[i] != NULL; i++) {
		char quoted[64];
		int rc;

		msg[0] = '\0';
		rc = validate_mac(OBJ, bad[i], mac, msg, sizeof(msg));
		unit_check(rc == -EINVAL, __LINE__, __FILE__,
			   "validate_mac(\"%s\") = %d, want -EINVAL", bad[i], rc);
		snprintf(quoted, sizeof(quoted), "MAC \"%s\"", bad[i]);
		ASSERT_CONTAINS(msg, quoted);
		ASSERT_CONTAINS(msg, OBJ);
		ASSERT_CONTAINS(msg, "aa:bb:cc:dd:ee:ff");
	}
}

static void test_format_mac(void)
{
	static const uint8_t m[6] = {0xae, 0xab, 0x0c, 0x00, 0xff, 0x01};
	uint8_t back[6];
	char buf[32], msg[128];

	memset(buf, 'X', sizeof(buf));
	format_mac(m, buf);
	ASSERT_STR_EQ(buf, "ae:ab:0c:00:ff:01");
	ASSERT_INT_EQ(buf[18], 'X'); /* 18 bytes written, no more */

	/* What format_mac prints, validate_mac reads back. */
	ASSERT_INT_EQ(validate_mac(OBJ, buf, back, msg, sizeof(msg)), 0);
	CU_ASSERT(memcmp(back, m, 6) == 0);
}

/* Builds tmp + "/" + a name padded with 'x' so the whole path is total bytes. */
static void path_of_len(char *out, size_t total)
{
	size_t n = (size_t)snprintf(out, 512, "%s/", tmp);

	while (n < total)
		out[n++] = 'x';
	out[n] = '\0';
}

static void test_socket_relative(void)
{
	char msg[256] = "";

	ASSERT_INT_EQ(validate_socket_path(OBJ, "run/pod.sock", 0, msg, sizeof(msg)), -EINVAL);
	ASSERT_CONTAINS(msg, OBJ);
	ASSERT_CONTAINS(msg, "\"run/pod.sock\" is relative");
	ASSERT_CONTAINS(msg, "give an absolute path");
	ASSERT_INT_EQ(validate_socket_path(OBJ, "./pod.sock", 1, msg, sizeof(msg)), -EINVAL);
	ASSERT_CONTAINS(msg, "is relative");
	ASSERT_INT_EQ(validate_socket_path(OBJ, "", 0, msg, sizeof(msg)), -EINVAL);
	ASSERT_CONTAINS(msg, "is relative");
}

static void test_socket_length(void)
{
	char path[512], msg[256] = "";

	path_of_len(path, API_SOCKET_PATH_MAX);
	ASSERT_INT_EQ(strlen(path), 107);
	strcpy(msg, "untouched");
	ASSERT_INT_EQ(validate_socket_path(OBJ, path, 1, msg, sizeof(msg)), 0);

	path_of_len(path, API_SOCKET_PATH_MAX + 1);
	ASSERT_INT_EQ(strlen(path), 108);
	ASSERT_INT_EQ(validate_socket_path(OBJ, path, 1, msg, sizeof(msg)), -EINVAL);
	ASSERT_CONTAINS(msg, OBJ);
	ASSERT_CONTAINS(msg, "is 108 bytes");
	ASSERT_CONTAINS(msg, "the limit is 107");

	path_of_len(path, 300);
	ASSERT_INT_EQ(validate_socket_path(OBJ, path, 0, msg, sizeof(msg)), -EINVAL);
	ASSERT_CONTAINS(msg, "is 300 bytes");
}

static void test_socket_dotdot_and_dir(void)
{
	char path[512], msg[256] = "";

	snprintf(path, sizeof(path), "%s/../pod.sock", tmp);
	ASSERT_INT_EQ(validate_socket_path(OBJ, path, 0, msg, sizeof(msg)), -EINVAL);
	ASSERT_CONTAINS(msg, OBJ);
	ASSERT_CONTAINS(msg, "contains \"..\"");
	ASSERT_CONTAINS(msg, path);

	snprintf(path, sizeof(path), "%s/..", tmp);
	ASSERT_INT_EQ(validate_socket_path(OBJ, path, 0, msg, sizeof(msg)), -EINVAL);
	ASSERT_CONTAINS(msg, "contains \"..\"");

	/* ".." inside a file name is only a name. */
	snprintf(path, sizeof(path), "%s/..pod.sock", tmp);
	ASSERT_INT_EQ(validate_socket_path(OBJ, path, 0, msg, sizeof(msg)), 0);
	snprintf(path, sizeof(path), "%s/pod..sock", tmp);
	ASSERT_INT_EQ(validate_socket_path(OBJ, path, 0, msg, sizeof(msg)), 0);

	snprintf(path, sizeof(path), "%s/", tmp);
	ASSERT_INT_EQ(validate_socket_path(OBJ, path, 0, msg, sizeof(msg)), -EINVAL);
	ASSERT_CONTAINS(msg, "names a directory");
	ASSERT_CONTAINS(msg, "add a file name");
	ASSERT_INT_EQ(validate_socket_path(OBJ, "/", 0, msg, sizeof(msg)), -EINVAL);
	ASSERT_CONTAINS(msg, "names a directory");
}

/* A socket directly in "/": the directory is "/", not "". */
static void test_socket_in_root(void)
{
	char path[64], msg[256] = "";
	struct stat st;

	snprintf(path, sizeof(path), "/pwunit-%d-absent.sock", (int)getpid());
	CU_ASSERT_FATAL(stat(path, &st) != 0);
	ASSERT_INT_EQ(validate_socket_path(OBJ, path, 0, msg, sizeof(msg)), 0);
}

static void test_socket_missing_dir(void)
{
	char path[256], dir[128], msg[256] = "";

	snprintf(dir, sizeof(dir), "%s/nope", tmp);
	snprintf(path, sizeof(path), "%s/pod.sock", dir);
	ASSERT_INT_EQ(validate_socket_path(OBJ, path, 0, msg, sizeof(msg)), -ENOENT);
	ASSERT_CONTAINS(msg, OBJ);
	ASSERT_CONTAINS(msg, dir);
	ASSERT_CONTAINS(msg, "does not exist");
	ASSERT_CONTAINS(msg, "create it first");
	ASSERT_INT_EQ(validate_socket_path(OBJ, path, 1, msg, sizeof(msg)), -ENOENT);

	/* Once the directory is made, the same path is fine. */
	CU_ASSERT_FATAL(mkdir(dir, 0700) == 0);
	ASSERT_INT_EQ(validate_socket_path(OBJ, path, 1, msg, sizeof(msg)), 0);
	CU_ASSERT(rmdir(dir) == 0);
}

static void test_socket_existing_file(void)
{
	char sub[256], path[128], msg[256] = "";
	int fd;

	snprintf(path, sizeof(path), "%s/regular", tmp);
	fd = open(path, O_WRONLY | O_CREAT | O_EXCL, 0600);
	CU_ASSERT_FATAL(fd >= 0);
	close(fd);
	ASSERT_INT_EQ(validate_socket_path(OBJ, path, 0, msg, sizeof(msg)), -EEXIST);
	ASSERT_CONTAINS(msg, OBJ);
	ASSERT_CONTAINS(msg, path);
	ASSERT_CONTAINS(msg, "exists and is not a socket");
	ASSERT_CONTAINS(msg, "remove it or pick another path");

	/* A file where the directory should be. */
	snprintf(sub, sizeof(sub), "%s/pod.sock", path);
	ASSERT_INT_EQ(validate_socket_path(OBJ, sub, 0, msg, sizeof(msg)), -ENOTDIR);
	ASSERT_CONTAINS(msg, "is not a directory");
	CU_ASSERT(unlink(path) == 0);

	/* A directory in the way is not a socket either. */
	CU_ASSERT_FATAL(mkdir(path, 0700) == 0);
	ASSERT_INT_EQ(validate_socket_path(OBJ, path, 0, msg, sizeof(msg)), -EEXIST);
	CU_ASSERT(rmdir(path) == 0);
}

/* A stale socket (left by a previous run) may be replaced. */
static void test_socket_existing_socket(void)
{
	struct sockaddr_un sa = {.sun_family = AF_UNIX};
	char msg[256] = "";
	int fd = socket(AF_UNIX, SOCK_STREAM, 0);

	CU_ASSERT_FATAL(fd >= 0);
	snprintf(sa.sun_path, sizeof(sa.sun_path), "%s/stale.sock", tmp);
	CU_ASSERT_FATAL(bind(fd, (struct sockaddr *)&sa, sizeof(sa)) == 0);
	close(fd);
	ASSERT_INT_EQ(validate_socket_path(OBJ, sa.sun_path, 1, msg, sizeof(msg)), 0);
	unlink(sa.sun_path);
}

/* Root passes every permission check, so this can only be seen as a user. */
static void test_socket_unwritable_dir(void)
{
	char path[256], dir[128], msg[256] = "";

	if (geteuid() == 0) {
		CU_PASS("running as root: directory permissions do not apply");
		return;
	}
	snprintf(dir, sizeof(dir), "%s/ro", tmp);
	snprintf(path, sizeof(path), "%s/pod.sock", dir);
	CU_ASSERT_FATAL(mkdir(dir, 0500) == 0);
	ASSERT_INT_EQ(validate_socket_path(OBJ, path, 1, msg, sizeof(msg)), -EACCES);
	ASSERT_CONTAINS(msg, dir);
	ASSERT_CONTAINS(msg, "not writable");
	ASSERT_INT_EQ(validate_socket_path(OBJ, path, 0, msg, sizeof(msg)), 0);
	rmdir(dir);
}

static void test_vlan(void)
{
	static const long good[] = {0, 1, 100, 4094};
	static const long bad[] = {-1, 4095, 4096, 65535, LONG_MAX, LONG_MIN};
	char msg[256], want[32];

	for (size_t i = 0; i < sizeof(good) / sizeof(good[0]); i++)
		ASSERT_INT_EQ(validate_vlan("network \"n1\"", good[i], msg, sizeof(msg)), 0);
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		msg[0] = '\0';
		ASSERT_INT_EQ(validate_vlan("network \"n1\"", bad[i], msg, sizeof(msg)), -EINVAL);
		snprintf(want, sizeof(want), "VLAN id %ld ", bad[i]);
		ASSERT_CONTAINS(msg, "network \"n1\"");
		ASSERT_CONTAINS(msg, want);
		ASSERT_CONTAINS(msg, "give 1-4094, or 0 for none");
	}
}

/* Messages are cut to the buffer, never overrun it. */
static void test_message_truncation(void)
{
	char msg[16];

	memset(msg, 'X', sizeof(msg));
	ASSERT_INT_EQ(validate_vlan(OBJ, -1, msg, 8), -EINVAL);
	ASSERT_INT_EQ(strlen(msg), 7);
	ASSERT_INT_EQ(msg[8], 'X');
}

int main(void)
{
	static const struct unit_test tests[] = {
	    {"name: good names, 63 bytes", test_name_ok},
	    {"name: empty", test_name_empty},
	    {"name: 64 bytes is too long", test_name_too_long},
	    {"name: bad characters", test_name_bad_chars},
	    {"name: leading '-' or '.'", test_name_leading},
	    {"mac: good, uppercase, '-' separators", test_mac_good},
	    {"mac: multicast and zero rejected", test_mac_multicast_zero},
	    {"mac: malformed and trailing junk", test_mac_malformed},
	    {"format_mac", test_format_mac},
	    {"socket: relative", test_socket_relative},
	    {"socket: 107 bytes ok, 108 rejected", test_socket_length},
	    {"socket: '..' and trailing '/'", test_socket_dotdot_and_dir},
	    {"socket: in /", test_socket_in_root},
	    {"socket: missing directory", test_socket_missing_dir},
	    {"socket: existing regular file", test_socket_existing_file},
	    {"socket: existing socket", test_socket_existing_socket},
	    {"socket: unwritable directory (non-root only)", test_socket_unwritable_dir},
	    {"vlan", test_vlan},
	    {"messages fit the buffer", test_message_truncation},
	    {NULL, NULL},
	};
	return unit_run_in_tmpdir("validate", tests, tmp, sizeof(tmp));
}
