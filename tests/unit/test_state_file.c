/* SPDX-License-Identifier: BSD-3-Clause */
/* Unit tests of the state file (model/state.c): written atomically with its
 * mode, read back, refused when missing, corrupt, unwritable or looser
 * than the API, values beyond the API table's bounds named. */
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

static char tmp[64]; /* scratch directory, made by main */

/* Names in dir other than "." and "..", comma-separated, into out. */
static int list_dir(const char *dir, char *out, size_t len)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	int n = 0;

	out[0] = '\0';
	if (d == NULL)
		return -1;
	while ((e = readdir(d)) != NULL) {
		if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
			continue;
		snprintf(out + strlen(out), len - strlen(out), "%s%s", n ? "," : "", e->d_name);
		n++;
	}
	closedir(d);
	return n;
}

static cJSON *sample_state(const char *port_name)
{
	cJSON *doc = cJSON_CreateObject(), *ports = cJSON_AddArrayToObject(doc, "ports");
	cJSON *p = cJSON_CreateObject();

	cJSON_AddNumberToObject(doc, "version", 1);
	cJSON_AddStringToObject(p, "name", port_name);
	cJSON_AddStringToObject(p, "secret", "hunter2");
	cJSON_AddNumberToObject(p, "mtu", 1500);
	cJSON_AddItemToArray(ports, p);
	return doc;
}

static void test_state_round_trip(void)
{
	char dir[128], path[256], names[256], msg[512] = "";
	cJSON *doc = sample_state("p1"), *doc2 = sample_state("p2"), *back = NULL;
	struct stat st;
	mode_t old;

	snprintf(dir, sizeof(dir), "%s/state", tmp);
	snprintf(path, sizeof(path), "%s/state.json", dir);
	CU_ASSERT_FATAL(mkdir(dir, 0700) == 0);

	/* With no umask, the mode is exactly what the code asks for. */
	old = umask(0);
	ASSERT_INT_EQ(state_file_write(dir, "state.json", doc, msg, sizeof(msg)), 0);
	umask(old);
	CU_ASSERT_FATAL(stat(path, &st) == 0);
	ASSERT_INT_EQ(st.st_mode & 07777, 0600);
	CU_ASSERT(S_ISREG(st.st_mode));
	ASSERT_INT_EQ(list_dir(dir, names, sizeof(names)), 1);
	ASSERT_STR_EQ(names, "state.json");

	ASSERT_INT_EQ(state_file_read(dir, "state.json", &back, msg, sizeof(msg)), 0);
	CU_ASSERT_FATAL(back != NULL);
	CU_ASSERT(cJSON_Compare(doc, back, true));
	cJSON_Delete(back);

	/* A second write replaces the first, still one file, still 0600. It
	 * is a new file renamed over the old one: a reader that had the old
	 * one open still sees it whole. */
	{
		struct stat before;
		char *old_text = cJSON_Print(doc), got[1024] = "";
		int fd = open(path, O_RDONLY);
		ssize_t r;

		CU_ASSERT_FATAL(fd >= 0);
		CU_ASSERT_FATAL(fstat(fd, &before) == 0);
		old = umask(0);
		ASSERT_INT_EQ(state_file_write(dir, "state.json", doc2, msg, sizeof(msg)), 0);
		umask(old);
		r = pread(fd, got, sizeof(got) - 1, 0);
		CU_ASSERT(r > 0);
		/* The shared writer ends the file with a newline. */
		CU_ASSERT(r > 0 && got[r - 1] == '\n');
		if (r > 0)
			got[r - 1] = '\0';
		ASSERT_STR_EQ(got, old_text);
		CU_ASSERT_FATAL(stat(path, &st) == 0);
		CU_ASSERT(st.st_ino != before.st_ino);
		close(fd);
		free(old_text);
	}
	ASSERT_INT_EQ(state_file_read(dir, "state.json", &back, msg, sizeof(msg)), 0);
	CU_ASSERT_FATAL(back != NULL);
	CU_ASSERT(cJSON_Compare(doc2, back, true));
	CU_ASSERT(!cJSON_Compare(doc, back, true));
	cJSON_Delete(back);
	ASSERT_INT_EQ(list_dir(dir, names, sizeof(names)), 1);
	CU_ASSERT_FATAL(stat(path, &st) == 0);
	ASSERT_INT_EQ(st.st_mode & 07777, 0600);

	cJSON_Delete(doc);
	cJSON_Delete(doc2);
	unit_rmtree(dir);
}

static void test_state_missing(void)
{
	cJSON *doc = (cJSON *)1;
	char msg[512] = "";

	ASSERT_INT_EQ(state_file_read(tmp, "absent.json", &doc, msg, sizeof(msg)), -ENOENT);
	CU_ASSERT_PTR_NULL(doc);
}

static void write_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	CU_ASSERT_FATAL(f != NULL);
	fputs(text, f);
	fclose(f);
}

/* The state file is held to what the API accepts: wrong types and path
 * shapes are refused even when directories are not checked (restore). */
static void test_restore_is_strict(void)
{
	static const char *const bad[][2] = {
	    {"{\"name\":\"p\",\"network\":\"n\",\"type\":\"vhost-user\","
	     "\"socket\":\"/tmp/x.sock\",\"mtu\":\"9000\"}",
	     "mtu"},
	    {"{\"name\":\"p\",\"network\":\"n\",\"type\":\"vhost-user\","
	     "\"socket\":\"/tmp/x.sock\",\"mtu\":1500.5}",
	     "mtu"},
	    {"{\"name\":\"p\",\"network\":\"n\",\"type\":\"vhost-user\","
	     "\"socket\":\"/tmp/x.sock\",\"mac\":5}",
	     "mac"},
	    {"{\"name\":\"p\",\"network\":\"n\",\"type\":\"vhost-user\","
	     "\"socket\":\"/tmp/../etc/p.sock\"}",
	     "socket"},
	    {"{\"name\":\"p\",\"network\":\"n\",\"type\":\"vhost-user\","
	     "\"socket\":\"/tmp/\"}",
	     "socket"},
	    {"{\"name\":\"p\",\"network\":\"n\",\"type\":\"vhost-user\","
	     "\"socket\":\"/tmp/x.sock\",\"colour\":\"red\"}",
	     "colour"},
	};
	struct port_conf c;
	const char *field;
	char msg[512];

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		cJSON *o = cJSON_Parse(bad[i][0]);

		CU_ASSERT_PTR_NOT_NULL_FATAL(o);
		field = NULL;
		msg[0] = '\0';
		ASSERT_INT_EQ(port_conf_parse(o, false, &c, msg, sizeof(msg), &field),
			      API_ERR_INVALID_PARAMS);
		CU_ASSERT_PTR_NOT_NULL_FATAL(field);
		ASSERT_STR_EQ(field, bad[i][1]);
		cJSON_Delete(o);
	}
}

/* A temp file left by a crash with a looser mode must not loosen the
 * state file, which holds memif secrets. */
static void test_state_stale_tmp_mode(void)
{
	char path[128], msg[512];
	cJSON *doc = cJSON_Parse("{\"ports\":[]}");
	struct stat st;
	int fd;

	snprintf(path, sizeof(path), "%s/st.json.tmp", tmp);
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	CU_ASSERT_FATAL(fd >= 0);
	fchmod(fd, 0644);
	close(fd);
	ASSERT_INT_EQ(state_file_write(tmp, "st.json", doc, msg, sizeof(msg)), 0);
	snprintf(path, sizeof(path), "%s/st.json", tmp);
	CU_ASSERT_FATAL(stat(path, &st) == 0);
	ASSERT_INT_EQ(st.st_mode & 0777, 0600);
	unlink(path);
	cJSON_Delete(doc);
}

static void test_state_corrupt(void)
{
	static const char *const bad[] = {"{\"ports\": [",	     "",  "not json", "{\"a\":}",
					  "{\"ports\":[]} trailing", NULL};
	char path[128], msg[512];
	cJSON *doc;

	snprintf(path, sizeof(path), "%s/corrupt.json", tmp);
	for (int i = 0; bad[i] != NULL; i++) {
		write_file(path, bad[i]);
		msg[0] = '\0';
		doc = (cJSON *)1;
		ASSERT_INT_EQ(state_file_read(tmp, "corrupt.json", &doc, msg, sizeof(msg)),
			      -EBADMSG);
		CU_ASSERT_PTR_NULL(doc);
		ASSERT_CONTAINS(msg, path);
		ASSERT_CONTAINS(msg, "is not valid JSON");
		ASSERT_CONTAINS(msg, "move it aside");
	}
	unlink(path);

	/* A directory where the file should be: an error with a message. */
	snprintf(path, sizeof(path), "%s/isdir.json", tmp);
	CU_ASSERT_FATAL(mkdir(path, 0700) == 0);
	msg[0] = '\0';
	doc = (cJSON *)1;
	CU_ASSERT(state_file_read(tmp, "isdir.json", &doc, msg, sizeof(msg)) < 0);
	CU_ASSERT(state_file_read(tmp, "isdir.json", &doc, msg, sizeof(msg)) != -ENOENT);
	CU_ASSERT_PTR_NULL(doc);
	ASSERT_CONTAINS(msg, path);
	rmdir(path);
}

/* Tests run as root, so permissions cannot make a directory unwritable;
 * a directory that does not exist can. */
static void test_state_unwritable(void)
{
	char dir[128], names[256], msg[512] = "";
	cJSON *doc = sample_state("p1");
	int rc;

	snprintf(dir, sizeof(dir), "%s/no/such/dir", tmp);
	rc = state_file_write(dir, "state.json", doc, msg, sizeof(msg));
	CU_ASSERT(rc < 0);
	ASSERT_INT_EQ(rc, -ENOENT);
	ASSERT_CONTAINS(msg, "cannot write");
	ASSERT_CONTAINS(msg, dir);
	ASSERT_CONTAINS(msg, "state.json");
	ASSERT_CONTAINS(msg, "is writable");

	/* The target is a directory: rename fails, the temp file is removed. */
	{
		char d[128], target[192];

		snprintf(d, sizeof(d), "%s/st2", tmp);
		snprintf(target, sizeof(target), "%s/state.json", d);
		CU_ASSERT_FATAL(mkdir(d, 0700) == 0);
		CU_ASSERT_FATAL(mkdir(target, 0700) == 0);
		msg[0] = '\0';
		rc = state_file_write(d, "state.json", doc, msg, sizeof(msg));
		CU_ASSERT(rc < 0);
		ASSERT_CONTAINS(msg, target);
		ASSERT_INT_EQ(list_dir(d, names, sizeof(names)), 1);
		ASSERT_STR_EQ(names, "state.json");
		unit_rmtree(d);
	}
	cJSON_Delete(doc);
}

/* The limits of a network or port, at each bound, through net_conf_parse
 * and port_conf_parse: both hold what they read to api.c's table. */

/*
 * A state file with values at and beyond the bounds: those within are
 * restored as written; each beyond is refused with a log line naming the
 * file, the entry and the field with its range, and the port is kept as
 * failed with that reason. Nothing else is made.
 */
static void test_state_file_ranges(void)
{
	static const char *const text =
	    "{\"version\":2,\"networks\":["
	    "{\"name\":\"rn-max\",\"vlan\":4094,\"mac_limit\":16777216,\"flood_limit\":10000000},"
	    "{\"name\":\"rn-min\",\"vlan\":0,\"mac_limit\":1,\"flood_limit\":0},"
	    "{\"name\":\"rn-big\",\"mac_limit\":16777217},"
	    "{\"name\":\"rn-neg\",\"vlan\":-1}],"
	    "\"ports\":["
	    "{\"name\":\"rp-min\",\"network\":\"rn-min\",\"type\":\"null\",\"mtu\":68,"
	    "\"mac_limit\":1,\"tx_retries\":0,\"flood_limit\":0},"
	    "{\"name\":\"rp-max\",\"network\":\"rn-max\",\"type\":\"null\",\"mtu\":9000,"
	    "\"mac_limit\":65536,\"tx_retries\":64,\"flood_limit\":10000000},"
	    "{\"name\":\"rp-mtu\",\"network\":\"rn-min\",\"type\":\"null\",\"mtu\":9001},"
	    "{\"name\":\"rp-mtu-low\",\"network\":\"rn-min\",\"type\":\"null\",\"mtu\":67},"
	    "{\"name\":\"rp-retries\",\"network\":\"rn-max\",\"type\":\"null\",\"tx_retries\":65},"
	    "{\"name\":\"rp-macs\",\"network\":\"rn-max\",\"type\":\"null\",\"mac_limit\":0}]}";
	static const char *const refused[][2] = {
	    {"network \"rn-big\"", "\"mac_limit\" is 16777217, it must be 1-16777216 (MACs)"},
	    {"network \"rn-neg\"", "\"vlan\" is -1, it must be 0-4094 (VLAN id)"},
	    {"port \"rp-mtu\"", "\"mtu\" is 9001, it must be 68-9000 (bytes)"},
	    {"port \"rp-mtu-low\"", "\"mtu\" is 67, it must be 68-9000 (bytes)"},
	    {"port \"rp-retries\"", "\"tx_retries\" is 65, it must be 0-64 (tries)"},
	    {"port \"rp-macs\"", "\"mac_limit\" is 0, it must be 1-65536 (MACs)"},
	};
	char dir[128], path[256], want[512], log[8192] = "";
	struct network *lo, *hi;
	struct port *pmin, *pmax;
	FILE *logf = tmpfile();
	size_t n;

	CU_ASSERT_PTR_NOT_NULL_FATAL(logf);
	snprintf(dir, sizeof(dir), "%s/ranges", tmp);
	snprintf(path, sizeof(path), "%s/state.json", dir);
	CU_ASSERT_FATAL(mkdir(dir, 0700) == 0);
	write_file(path, text);
	state_set_dir(dir);
	rte_openlog_stream(logf);
	ASSERT_INT_EQ(state_restore(), -EIO);
	rte_openlog_stream(NULL);
	rewind(logf);
	n = fread(log, 1, sizeof(log) - 1, logf);
	log[n] = '\0';
	fclose(logf);

	/* Within the bounds: as written. */
	lo = network_find("rn-min");
	hi = network_find("rn-max");
	CU_ASSERT_PTR_NOT_NULL_FATAL(lo);
	CU_ASSERT_PTR_NOT_NULL_FATAL(hi);
	ASSERT_INT_EQ(lo->vlan, 0);
	ASSERT_INT_EQ(lo->mac_limit, 1);
	ASSERT_INT_EQ(lo->flood_limit, 0);
	ASSERT_INT_EQ(hi->vlan, 4094);
	ASSERT_INT_EQ(hi->mac_limit, 16777216);
	ASSERT_INT_EQ(hi->flood_limit, 10000000);
	pmin = port_find("rp-min");
	pmax = port_find("rp-max");
	CU_ASSERT_PTR_NOT_NULL_FATAL(pmin);
	CU_ASSERT_PTR_NOT_NULL_FATAL(pmax);
	ASSERT_INT_EQ(pmin->conf.mtu, 68);
	ASSERT_INT_EQ(pmin->conf.mac_limit, 1);
	ASSERT_INT_EQ(pmin->conf.tx_retries, 0);
	ASSERT_INT_EQ(pmin->conf.flood_limit, 0);
	ASSERT_INT_EQ(pmax->conf.mtu, 9000);
	ASSERT_INT_EQ(pmax->conf.mac_limit, 65536);
	ASSERT_INT_EQ(pmax->conf.tx_retries, 64);
	ASSERT_INT_EQ(pmax->conf.flood_limit, 10000000);

	/* Beyond: refused, each named with the file and the field's range. */
	CU_ASSERT_PTR_NULL(network_find("rn-big"));
	CU_ASSERT_PTR_NULL(network_find("rn-neg"));
	ASSERT_INT_EQ(network_count(), 2);
	ASSERT_INT_EQ(port_count(), 2);
	for (size_t i = 0; i < sizeof(refused) / sizeof(refused[0]); i++) {
		char lines[sizeof(log)], head[320], *save = NULL, *line;
		bool found = false;

		/* One line names the file, the entry, the field and its range. */
		snprintf(head, sizeof(head), "restoring %s: ", path);
		snprintf(want, sizeof(want), "%s: %s", refused[i][0], refused[i][1]);
		memcpy(lines, log, sizeof(lines));
		for (line = strtok_r(lines, "\n", &save); line != NULL && !found;
		     line = strtok_r(NULL, "\n", &save))
			found = strstr(line, head) != NULL && strstr(line, want) != NULL;
		unit_check(found, __LINE__, __FILE__, "no line of the log says \"%s...%s\"", head,
			   want);
		if (strncmp(refused[i][0], "port", 4) == 0) {
			char name[32];
			const struct port_failed *f;

			snprintf(name, sizeof(name), "%.*s", (int)strlen(refused[i][0]) - 7,
				 refused[i][0] + 6);
			f = port_failed_find(name);
			unit_check(f != NULL, __LINE__, __FILE__, "%s not kept as failed", name);
			if (f != NULL)
				ASSERT_CONTAINS(f->reason, refused[i][1]);
		}
	}

	{
		char msg[256];
		int code;

		ASSERT_INT_EQ(port_destroy(pmin, msg, sizeof(msg)), 0);
		ASSERT_INT_EQ(port_destroy(pmax, msg, sizeof(msg)), 0);
		port_failed_delete_all();
		ASSERT_INT_EQ(network_delete(lo, &code, msg, sizeof(msg)), 0);
		ASSERT_INT_EQ(network_delete(hi, &code, msg, sizeof(msg)), 0);
	}
	unit_rmtree(dir);
}

int main(void)
{
	static const struct unit_test tests[] = {
	    {"state file round trip, mode, no temp file", test_state_round_trip},
	    {"state file missing", test_state_missing},
	    {"state file corrupt", test_state_corrupt},
	    {"restore is as strict as the API", test_restore_is_strict},
	    {"stale temp file does not loosen the mode", test_state_stale_tmp_mode},
	    {"state file unwritable", test_state_unwritable},
	    {"state file: values beyond the bounds named", test_state_file_ranges},
	    {NULL, NULL},
	};
	int rc;

	/* EAL without hugepages: the tests restore real ports. */
	dp_harness_init(1);
	rc = unit_run_in_tmpdir("state_file", tests, tmp, sizeof(tmp));
	dp_harness_fini();
	return rc;
}
