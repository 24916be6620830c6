/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * How podwired's parts are wired together: a model change that cannot
 * publish its view leaves nothing freed under the workers, options and
 * config keys (--config=FILE, --log-level checked before EAL), and the
 * registries (every API method one handler, results as api.h declares
 * them, port kinds that do not fit) that refuse to start rather than drop
 * what does not fit. EAL runs without hugepages.
 */
#include <errno.h>
#include <sched.h>
#include <sys/wait.h>

#include "api/registry.h"
#include "api/server.h"
#include "core/config.h"
#include "core/notify.h"
#include "daemon/daemon.h"
#include "dp_harness.h"
#include "model/publish.h"
#include "model/state.h"

static char tmp[64];

/* ---- a port delete that cannot build the new view --------------------- */

static void test_delete_when_view_cannot_be_built(void)
{
	struct network *n = dp_net("rv", NET_BRIDGE, 0);
	struct port *a = dp_port("rva", n, "null", "02:00:00:00:01:01");
	struct port *b = dp_port("rvb", n, "null", "02:00:00:00:01:02");
	uint16_t idx = a->dp.idx;
	char msg[256] = "";

	CU_ASSERT_FATAL(view_current->ports[idx] == &a->dp);
	model_view_fail_next(1);
	/* Refused, and nothing changed: the port is registered, whole, and the
	 * view workers read still holds it (it was never freed under them). */
	ASSERT_INT_EQ(port_destroy(a, msg, sizeof(msg)), -ENOMEM);
	ASSERT_CONTAINS(msg, "port \"rva\"");
	ASSERT_CONTAINS(msg, "try again");
	CU_ASSERT(port_find("rva") == a);
	CU_ASSERT(port_by_idx(idx) == a);
	CU_ASSERT(view_current->ports[idx] == &a->dp);
	ASSERT_INT_EQ(n->n_ports, 2);
	ASSERT_STR_EQ(a->conf.name, "rva");
	/* Every port of the view is one of the registry's. */
	for (unsigned int i = 0; i < PW_MAX_PORTS; i++)
		if (view_current->ports[i] != NULL)
			CU_ASSERT(port_by_idx((uint16_t)i) != NULL &&
				  &port_by_idx((uint16_t)i)->dp == view_current->ports[i]);
	/* With memory back, the delete goes through. */
	ASSERT_INT_EQ(port_destroy(a, msg, sizeof(msg)), 0);
	CU_ASSERT(port_find("rva") == NULL);
	CU_ASSERT(view_current->ports[idx] == NULL);
	ASSERT_INT_EQ(port_destroy(b, msg, sizeof(msg)), 0);
	{
		int code;

		ASSERT_INT_EQ(network_delete(n, &code, msg, sizeof(msg)), 0);
	}
}

/* A port whose creation cannot publish leaves nothing behind. */
static void test_create_when_view_cannot_be_built(void)
{
	struct network *n = dp_net("rc", NET_BRIDGE, 0);
	unsigned int before = port_count();
	struct port_conf c;
	struct port *p = NULL;
	char msg[256];
	int code;

	memset(&c, 0, sizeof(c));
	snprintf(c.name, sizeof(c.name), "rcp");
	snprintf(c.network, sizeof(c.network), "rc");
	snprintf(c.type, sizeof(c.type), API_PORT_NULL);
	c.mtu = 1500;
	model_view_fail_next(1);
	ASSERT_INT_EQ(port_create(&c, n, &p, &code, msg, sizeof(msg)), -ENOMEM);
	ASSERT_INT_EQ(code, API_ERR_RESOURCE);
	CU_ASSERT(p == NULL);
	CU_ASSERT(port_find("rcp") == NULL);
	ASSERT_INT_EQ(port_count(), before);
	ASSERT_INT_EQ(n->n_ports, 0);
	ASSERT_INT_EQ(network_delete(n, &code, msg, sizeof(msg)), 0);
}

/* ---- the model's events (core/notify.h) --------------------------------- */

static char events[512];

static void on_event(const void *arg, void *ctx)
{
	size_t n = strlen(events);

	snprintf(events + n, sizeof(events) - n, "%s%s%s", n ? " " : "", (const char *)ctx,
		 arg != NULL ? ((const struct port *)arg)->conf.name : "");
}

/* What mirrors the model (CDI specs) hears of each port made and deleted
 * and of each save of the state; what sets up a port's policy before its
 * first frame hears of it before it is published, and of a create rolled
 * back (the view could not be built) as a delete. */
static void test_model_events(void)
{
	struct network *n = dp_net("ev", NET_BRIDGE, 0);
	struct port *a, *b;
	struct port_conf c;
	struct port *p = NULL;
	char msg[256];
	int code;

	events[0] = '\0';
	ASSERT_INT_EQ(notify_subscribe(NOTIFY_PORT_CREATED, on_event, "+"), 0);
	ASSERT_INT_EQ(notify_subscribe(NOTIFY_PORT_DELETED, on_event, "-"), 0);
	ASSERT_INT_EQ(notify_subscribe(NOTIFY_STATE_SAVED, on_event, "saved"), 0);
	ASSERT_INT_EQ(notify_subscribe(NOTIFY_PORT_ADDING, on_event, "~"), 0);
	a = dp_port("eva", n, "null", "02:00:00:00:02:01");
	b = dp_port("evb", n, "null", "02:00:00:00:02:02");
	memset(&c, 0, sizeof(c));
	snprintf(c.name, sizeof(c.name), "evc");
	snprintf(c.network, sizeof(c.network), "ev");
	snprintf(c.type, sizeof(c.type), API_PORT_NULL);
	c.mtu = 1500;
	model_view_fail_next(1);
	ASSERT_INT_EQ(port_create(&c, n, &p, &code, msg, sizeof(msg)), -ENOMEM);
	ASSERT_INT_EQ(state_save(msg, sizeof(msg)), 0);
	ASSERT_INT_EQ(port_destroy(a, msg, sizeof(msg)), 0);
	ASSERT_INT_EQ(port_destroy(b, msg, sizeof(msg)), 0);
	ASSERT_STR_EQ(events, "~eva +eva ~evb +evb ~evc -evc saved -eva -evb");
	notify_unsubscribe(NOTIFY_PORT_ADDING, on_event, "~");
	notify_unsubscribe(NOTIFY_PORT_CREATED, on_event, "+");
	notify_unsubscribe(NOTIFY_PORT_DELETED, on_event, "-");
	notify_unsubscribe(NOTIFY_STATE_SAVED, on_event, "saved");
	ASSERT_INT_EQ(network_delete(n, &code, msg, sizeof(msg)), 0);
}

/* ---- options ------------------------------------------------------------ */

/* options_parse checks that cores exist for this process: EAL pinned the
 * test to one core, so parse with every online core allowed again. */
static int parse(int argc, char **argv, struct pw_config *c)
{
	cpu_set_t saved, all;
	int rc;

	CPU_ZERO(&all);
	for (long i = 0; i < sysconf(_SC_NPROCESSORS_ONLN); i++)
		CPU_SET((int)i, &all);
	sched_getaffinity(0, sizeof(saved), &saved);
	sched_setaffinity(0, sizeof(all), &all);
	rc = options_parse(argc, argv, c);
	sched_setaffinity(0, sizeof(saved), &saved);
	return rc;
}

static void write_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	CU_ASSERT_FATAL(f != NULL);
	fputs(text, f);
	fclose(f);
}

static void test_config_with_equals(void)
{
	char path[128], arg[160];
	struct pw_config c;

	snprintf(path, sizeof(path), "%s/conf.json", tmp);
	write_file(path, "{\"mbufs\": 4096, \"mac_aging_sec\": 42}");
	{
		char *argv[] = {"podwired", "--main-core", "0",	 "--worker-cores",
				"1",	    "--config",	   path, NULL};

		ASSERT_INT_EQ(parse(7, argv, &c), 0);
		ASSERT_INT_EQ(c.mbufs, 4096);
		ASSERT_INT_EQ(c.mac_aging_sec, 42);
	}
	/* The same file given as --config=FILE is read too. */
	snprintf(arg, sizeof(arg), "--config=%s", path);
	{
		char *argv[] = {"podwired", "--main-core", "0", "--worker-cores", "1", arg, NULL};

		ASSERT_INT_EQ(parse(6, argv, &c), 0);
		ASSERT_INT_EQ(c.mbufs, 4096);
		ASSERT_INT_EQ(c.mac_aging_sec, 42);
	}
	/* The command line wins over the file, in either order. */
	{
		char *argv[] = {"podwired", "--mbufs",	      "8192", arg, "--main-core",
				"0",	    "--worker-cores", "1",    NULL};

		ASSERT_INT_EQ(parse(8, argv, &c), 0);
		ASSERT_INT_EQ(c.mbufs, 8192);
		ASSERT_INT_EQ(c.mac_aging_sec, 42);
	}
	/* A bad file is refused whichever form names it. */
	write_file(path, "{\"mbufs\": 10}");
	{
		char *argv[] = {"podwired", "--main-core", "0", "--worker-cores", "1", arg, NULL};

		ASSERT_INT_EQ(parse(6, argv, &c), -EINVAL);
	}
}

/* Every option is a config key too, and the other way round. */
static void test_option_and_key_agree(void)
{
	char path[128], arg[160];
	struct pw_config c;

	snprintf(path, sizeof(path), "%s/keys.json", tmp);
	write_file(path, "{\"main_core\": 0, \"worker_cores\": \"1\", \"mac_table_size\": 128,"
			 " \"log_level\": \"debug\", \"state_dir\": \"/tmp/x\"}");
	snprintf(arg, sizeof(arg), "--config=%s", path);
	{
		char *argv[] = {"podwired", arg, NULL};

		ASSERT_INT_EQ(parse(2, argv, &c), 0);
		ASSERT_INT_EQ(c.mac_capacity, 128);
		ASSERT_STR_EQ(c.log_level, "debug");
		ASSERT_STR_EQ(c.state_dir, "/tmp/x");
		ASSERT_INT_EQ(c.n_worker_cores, 1);
	}
	{
		char *argv[] = {"podwired", "--mac-table-size", "256", "--main-core",
				"0",	    "--worker-cores",	"1",   NULL};

		ASSERT_INT_EQ(parse(7, argv, &c), 0);
		ASSERT_INT_EQ(c.mac_capacity, 256);
	}
}

/* The level is checked with the other options, before EAL starts. */
static void test_log_level_checked_early(void)
{
	struct pw_config c;
	char *argv[] = {"podwired", "--main-core", "0",	    "--worker-cores",
			"1",	    "--log-level", "bogus", NULL};
	char *good[] = {"podwired", "--main-core", "0",	      "--worker-cores",
			"1",	    "--log-level", "warning", NULL};

	ASSERT_INT_EQ(parse(7, argv, &c), -EINVAL);
	ASSERT_INT_EQ(parse(7, good, &c), 0);
	ASSERT_STR_EQ(c.log_level, "warning");
}

/* ---- registries ------------------------------------------------------------ */

static void test_every_method_has_one_handler(void)
{
	char msg[512] = "";

	ASSERT_INT_EQ(api_registry_check(msg, sizeof(msg)), 0);
	for (int m = 0; m < API_METHOD_COUNT; m++)
		CU_ASSERT(api_handler((enum api_method)m) != NULL);
	ASSERT_INT_EQ(port_kinds_check(msg, sizeof(msg)), 0);
}

static cJSON *h_other(const cJSON *params, struct api_err *err)
{
	(void)params, (void)err;
	return cJSON_CreateObject();
}

/* In a child, so the registry of the other tests stays whole: a second
 * handler for a method, or none, is caught by the check, and a request
 * for such a method gets an error answer instead of a call through NULL. */
static void test_registry_catches_gaps_and_doubles(void)
{
	pid_t pid = fork();
	int status;

	CU_ASSERT_FATAL(pid >= 0);
	if (pid == 0) {
		char msg[512] = "", *resp;
		int bad = 0;

#define CHECK(cond)                                                                                \
	do {                                                                                       \
		if (!(cond)) {                                                                     \
			fprintf(stderr, "line %d: %s (msg: %s)\n", __LINE__, #cond, msg);          \
			bad = 1;                                                                   \
		}                                                                                  \
	} while (0)

		api_register(API_M_PORT_LIST, h_other, "test_daemon_wiring.c");
		CHECK(api_registry_check(msg, sizeof(msg)) == -EINVAL);
		CHECK(strstr(msg, "port.list has 2 handlers") != NULL);
		CHECK(strstr(msg, "test_daemon_wiring.c") != NULL);
		CHECK(api_handler(API_M_PORT_LIST) == NULL);
		resp = api_server_handle_line(
		    "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"port.list\"}", 47);
		CHECK(resp != NULL && strstr(resp, "\"error\"") != NULL);
		free(resp);
		api_unregister(API_M_PORT_LIST);
		CHECK(api_registry_check(msg, sizeof(msg)) == -EINVAL);
		CHECK(strstr(msg, "port.list") != NULL && strstr(msg, "no handler") != NULL);
		resp = api_server_handle_line(
		    "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"port.list\"}", 47);
		CHECK(resp != NULL && strstr(resp, "\"error\"") != NULL);
		free(resp);
		_exit(bad ? 1 : 0);
#undef CHECK
	}
	CU_ASSERT_FATAL(waitpid(pid, &status, 0) == pid);
	CU_ASSERT(WIFEXITED(status) && WEXITSTATUS(status) == 0);
}

/* Kinds past the registry's size, or twice, are a start-up error. */
static void test_kind_registry_overflow(void)
{
	static struct port_ops extra[PORT_KINDS_MAX];
	static char names[PORT_KINDS_MAX][16];
	pid_t pid = fork();
	int status;

	CU_ASSERT_FATAL(pid >= 0);
	if (pid == 0) {
		char msg[256] = "";
		int bad = 0;

		port_kind_register(port_kind_at(0)); /* twice */
		bad |= port_kinds_check(msg, sizeof(msg)) != -EINVAL;
		bad |= strstr(msg, "registered twice") == NULL;
		for (int i = 0; i < PORT_KINDS_MAX; i++) {
			snprintf(names[i], sizeof(names[i]), "extra%d", i);
			extra[i].kind = names[i];
			port_kind_register(&extra[i]);
		}
		bad |= port_kinds_check(msg, sizeof(msg)) != -EINVAL;
		bad |= strstr(msg, "does not fit") == NULL;
		_exit(bad ? 1 : 0);
	}
	CU_ASSERT_FATAL(waitpid(pid, &status, 0) == pid);
	CU_ASSERT(WIFEXITED(status) && WEXITSTATUS(status) == 0);
}

/* Every method's result matches what control/api.h declares. */
static void test_results_match_declarations(void)
{
	static const char *const calls[] = {
	    "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"system.info\"}",
	    "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"network.create\",\"params\":{\"name\":"
	    "\"rr\"}}",
	    "{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"port.create\",\"params\":{\"name\":\"rrp\","
	    "\"network\":\"rr\",\"type\":\"null\"}}",
	    "{\"jsonrpc\":\"2.0\",\"id\":4,\"method\":\"port.get\",\"params\":{\"name\":\"rrp\"}}",
	    "{\"jsonrpc\":\"2.0\",\"id\":5,\"method\":\"port.list\"}",
	    "{\"jsonrpc\":\"2.0\",\"id\":6,\"method\":\"network.list\"}",
	    "{\"jsonrpc\":\"2.0\",\"id\":7,\"method\":\"stats.get\"}",
	    "{\"jsonrpc\":\"2.0\",\"id\":8,\"method\":\"stats.clear\"}",
	    "{\"jsonrpc\":\"2.0\",\"id\":9,\"method\":\"mac.list\",\"params\":{\"network\":\"rr\"}"
	    "}",
	    "{\"jsonrpc\":\"2.0\",\"id\":10,\"method\":\"vf.list\"}",
	    "{\"jsonrpc\":\"2.0\",\"id\":11,\"method\":\"port.delete\",\"params\":{\"name\":"
	    "\"rrp\"}}",
	    "{\"jsonrpc\":\"2.0\",\"id\":12,\"method\":\"network.delete\",\"params\":{\"name\":"
	    "\"rr\"}}",
	};

	for (size_t i = 0; i < RTE_DIM(calls); i++) {
		char *resp = api_server_handle_line(calls[i], strlen(calls[i]));
		cJSON *r = cJSON_Parse(resp), *req = cJSON_Parse(calls[i]);
		const cJSON *result = cJSON_GetObjectItem(r, "result");
		int m = api_method_lookup(api_get_str(req, "method", ""));
		char why[256] = "";

		unit_check(result != NULL, __LINE__, __FILE__, "%s: %s", calls[i], resp);
		if (result != NULL)
			unit_check(api_check_result((enum api_method)m, result, why, sizeof(why)) ==
				       0,
				   __LINE__, __FILE__, "%s: %s", calls[i], why);
		cJSON_Delete(r);
		cJSON_Delete(req);
		free(resp);
	}
}

int main(void)
{
	static const struct unit_test tests[] = {
	    {"port delete when the view cannot be built", test_delete_when_view_cannot_be_built},
	    {"port create when the view cannot be built", test_create_when_view_cannot_be_built},
	    {"the model's events", test_model_events},
	    {"--config=FILE is read like --config FILE", test_config_with_equals},
	    {"every option is a config key and back", test_option_and_key_agree},
	    {"--log-level checked before EAL", test_log_level_checked_early},
	    {"every API method has one handler", test_every_method_has_one_handler},
	    {"registry catches missing and double handlers",
	     test_registry_catches_gaps_and_doubles},
	    {"kind registry overflow is an error", test_kind_registry_overflow},
	    {"results match api.h", test_results_match_declarations},
	    {NULL, NULL},
	};
	int rc;

	if (!unit_tmpdir(tmp, sizeof(tmp)))
		return 2;
	dp_harness_init(1);
	state_set_dir(tmp);
	rc = unit_run("daemon_wiring", tests);
	dp_harness_fini();
	unit_rmtree(tmp);
	return rc;
}
