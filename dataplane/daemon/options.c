/* SPDX-License-Identifier: BSD-3-Clause */
/* Command line and configuration file. The built-in defaults make a
 * working daemon with no file at all. */
#include <errno.h>
#include <getopt.h>
#include <grp.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "api.h"
#include "model/port_conf.h"
#include "daemon/config.h"
#include "sriov/sriov.h"
#include "sriov/vf_pool.h"

static void usage(FILE *f)
{
	fprintf(f,
		"Usage: podwired [OPTIONS]\n"
		"DPDK userspace datapath for container networking.\n\n"
		"  --config FILE        JSON configuration file (see README)\n"
		"  --main-core N        control thread core (default 0)\n"
		"  --worker-cores LIST  worker cores, e.g. 1 or 1-3,5 (default: all others)\n"
		"  --socket PATH        API socket (default %s)\n"
		"  --socket-group NAME  group owning the API socket (mode 0660)\n"
		"  --state-dir DIR      saved networks and ports (default %s)\n"
		"  --log-level LEVEL    error, warning, notice, info or debug (default info)\n"
		"  --physnets LIST      SR-IOV VF pools: physnet:PF[#first-last],... e.g.\n"
		"                       physnet2:enp1s0f0,physnet3:enp1s0f1#0-7\n"
		"  --sysfs-root DIR     where sysfs is (default /sys; tests use a fake tree)\n"
		"  --help, --version\n",
		PODWIRE_DEFAULT_SOCKET, PODWIRE_DEFAULT_STATE_DIR);
}

static int parse_int(const char *opt, const char *s, long lo, long hi, long *out)
{
	char *end;

	errno = 0;
	*out = strtol(s, &end, 10);
	if (errno != 0 || end == s || *end != '\0' || *out < lo || *out > hi) {
		fprintf(stderr, "podwired: %s: \"%s\" is not a number in %ld-%ld\n", opt, s, lo,
			hi);
		return -EINVAL;
	}
	return 0;
}

/* "1", "1-3,5" into cores; rejects duplicates and the main core later. */
static int parse_core_list(const char *opt, const char *s, struct pw_config *c)
{
	char buf[256], *save = NULL, *tok;
	long lo, hi;

	snprintf(buf, sizeof(buf), "%s", s);
	c->n_worker_cores = 0;
	for (tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		char *dash = strchr(tok, '-');

		if (dash) {
			*dash = '\0';
			if (parse_int(opt, tok, 0, 1023, &lo) ||
			    parse_int(opt, dash + 1, lo, 1023, &hi))
				return -EINVAL;
		} else {
			if (parse_int(opt, tok, 0, 1023, &lo))
				return -EINVAL;
			hi = lo;
		}
		for (long i = lo; i <= hi; i++) {
			if (c->n_worker_cores == PW_MAX_WORKERS) {
				fprintf(stderr, "podwired: %s: more than %d cores\n", opt,
					PW_MAX_WORKERS);
				return -EINVAL;
			}
			for (unsigned int j = 0; j < c->n_worker_cores; j++) {
				if (c->worker_cores[j] == (unsigned int)i) {
					fprintf(stderr,
						"podwired: %s: core %ld is listed twice; "
						"list each core once\n",
						opt, i);
					return -EINVAL;
				}
			}
			c->worker_cores[c->n_worker_cores++] = (unsigned int)i;
		}
	}
	if (c->n_worker_cores == 0) {
		fprintf(stderr, "podwired: %s: empty core list; give e.g. 1 or 1-3\n", opt);
		return -EINVAL;
	}
	return 0;
}

/* The core must be one this process may run on. */
static int check_core(const char *opt, unsigned int core)
{
	cpu_set_t set;
	char avail[256] = "";
	size_t off = 0;

	if (sched_getaffinity(0, sizeof(set), &set) != 0 ||
	    (core < CPU_SETSIZE && CPU_ISSET(core, &set)))
		return 0;
	for (int i = 0; i < CPU_SETSIZE && off < sizeof(avail) - 8; i++)
		if (CPU_ISSET(i, &set))
			off += (size_t)snprintf(avail + off, sizeof(avail) - off, "%s%d",
						off ? "," : "", i);
	fprintf(stderr, "podwired: %s: core %u is not available here; available cores: %s\n", opt,
		core, avail);
	return -EINVAL;
}

static int set_str(char *dst, size_t size, const char *opt, const char *val)
{
	if (strlen(val) >= size) {
		fprintf(stderr, "podwired: %s: \"%s\" is longer than %zu bytes\n", opt, val,
			size - 1);
		return -EINVAL;
	}
	memcpy(dst, val, strlen(val) + 1);
	return 0;
}

static const char config_keys[] = "main_core, worker_cores, socket, socket_group, state_dir, "
				  "log_level, mac_table_size, mac_aging_sec, mbufs, physnets, "
				  "sysfs_root";

/* Which option set --physnets and --sysfs-root, for messages. */
static char physnets_opt[96] = "--physnets", sysfs_opt[96] = "--sysfs-root";

/* Reads a JSON object from path; prints why not and returns NULL. */
static cJSON *read_config_object(const char *path)
{
	char why[768];
	cJSON *doc;
	int rc = json_file_read(path, 1 << 20, &doc, why, sizeof(why));

	if (rc != 0) {
		fprintf(stderr, "podwired: --config: %s; %s\n", why,
			rc == -EBADMSG ? "fix the file" : "give the path of a JSON file");
		return NULL;
	}
	if (!cJSON_IsObject(doc)) {
		fprintf(stderr,
			"podwired: --config: %s must hold a JSON object such as "
			"{\"worker_cores\": \"1\"}; keys: %s\n",
			path, config_keys);
		cJSON_Delete(doc);
		return NULL;
	}
	return doc;
}

/* The configuration file: the same keys as the long options, with '_'. */
static int load_config_file(const char *path, struct pw_config *c)
{
	const cJSON *v;
	cJSON *doc = read_config_object(path);
	int rc;

	if (doc == NULL)
		return -EINVAL;
	rc = -EINVAL;
	cJSON_ArrayForEach (v, doc) {
		char opt[80];

		snprintf(opt, sizeof(opt), "%s: \"%s\"", path, v->string);
		if (strcmp(v->string, "main_core") == 0 && cJSON_IsNumber(v)) {
			c->main_core = (int)v->valuedouble;
		} else if (strcmp(v->string, "worker_cores") == 0 && cJSON_IsString(v)) {
			if (parse_core_list(opt, v->valuestring, c))
				goto out;
		} else if (strcmp(v->string, "socket") == 0 && cJSON_IsString(v)) {
			if (set_str(c->socket, sizeof(c->socket), opt, v->valuestring))
				goto out;
		} else if (strcmp(v->string, "socket_group") == 0 && cJSON_IsString(v)) {
			if (set_str(c->socket_group, sizeof(c->socket_group), opt, v->valuestring))
				goto out;
		} else if (strcmp(v->string, "state_dir") == 0 && cJSON_IsString(v)) {
			if (set_str(c->state_dir, sizeof(c->state_dir), opt, v->valuestring))
				goto out;
		} else if (strcmp(v->string, "log_level") == 0 && cJSON_IsString(v)) {
			if (set_str(c->log_level, sizeof(c->log_level), opt, v->valuestring))
				goto out;
		} else if (strcmp(v->string, "physnets") == 0 && cJSON_IsString(v)) {
			if (set_str(c->physnets, sizeof(c->physnets), opt, v->valuestring))
				goto out;
			snprintf(physnets_opt, sizeof(physnets_opt), "%.95s", opt);
		} else if (strcmp(v->string, "sysfs_root") == 0 && cJSON_IsString(v)) {
			if (set_str(c->sysfs_root, sizeof(c->sysfs_root), opt, v->valuestring))
				goto out;
			snprintf(sysfs_opt, sizeof(sysfs_opt), "%.95s", opt);
		} else if (strcmp(v->string, "mac_table_size") == 0 && cJSON_IsNumber(v) &&
			   v->valuedouble >= 64 && v->valuedouble <= (1 << 24)) {
			c->mac_capacity = (uint32_t)v->valuedouble;
		} else if (strcmp(v->string, "mac_aging_sec") == 0 && cJSON_IsNumber(v) &&
			   v->valuedouble >= 1 && v->valuedouble <= 86400) {
			c->mac_aging_sec = (uint32_t)v->valuedouble;
		} else if (strcmp(v->string, "mbufs") == 0 && cJSON_IsNumber(v) &&
			   v->valuedouble >= 2048 && v->valuedouble <= (1 << 22)) {
			c->mbufs = (uint32_t)v->valuedouble;
		} else {
			fprintf(stderr,
				"podwired: %s: unknown key or bad value; keys: %s "
				"(see the configuration reference in README.md)\n",
				opt, config_keys);
			goto out;
		}
	}
	rc = 0;
out:
	cJSON_Delete(doc);
	return rc;
}

/* The SR-IOV pools are discovered now, so a bad --physnets stops the
 * start-up before EAL. */
static int check_physnets(struct pw_config *c)
{
	char msg[1024];
	struct stat st;

	if (stat(c->sysfs_root, &st) != 0 || !S_ISDIR(st.st_mode)) {
		fprintf(stderr,
			"podwired: %s: %s is not a directory; give where sysfs is mounted "
			"(/sys)\n",
			sysfs_opt, c->sysfs_root);
		return -EINVAL;
	}
	sriov_set_root(c->sysfs_root);
	if (vf_pool_configure(c->physnets, msg, sizeof(msg)) != 0) {
		fprintf(stderr, "podwired: %s: %s\n", physnets_opt, msg);
		return -EINVAL;
	}
	return 0;
}

static void set_defaults(struct pw_config *c)
{
	long ncpu = sysconf(_SC_NPROCESSORS_ONLN);

	memset(c, 0, sizeof(*c));
	c->main_core = 0;
	snprintf(c->socket, sizeof(c->socket), "%s", PODWIRE_DEFAULT_SOCKET);
	snprintf(c->state_dir, sizeof(c->state_dir), "%s", PODWIRE_DEFAULT_STATE_DIR);
	snprintf(c->log_level, sizeof(c->log_level), "info");
	snprintf(c->sysfs_root, sizeof(c->sysfs_root), "/sys");
	c->socket_gid = (gid_t)-1;
	c->mac_capacity = 65536;
	c->mac_aging_sec = 300;
	c->mbufs = 32768;
	for (long i = 0; i < ncpu && c->n_worker_cores < PW_MAX_WORKERS; i++)
		c->worker_cores[c->n_worker_cores++] = (unsigned int)i;
}

int options_parse(int argc, char **argv, struct pw_config *c)
{
	enum {
		O_CONFIG = 256,
		O_MAIN,
		O_WORKERS,
		O_SOCKET,
		O_GROUP,
		O_STATE,
		O_LOG,
		O_PHYSNETS,
		O_SYSFS,
		O_HELP,
		O_VERSION
	};
	static const struct option opts[] = {
	    {"config", required_argument, NULL, O_CONFIG},
	    {"main-core", required_argument, NULL, O_MAIN},
	    {"worker-cores", required_argument, NULL, O_WORKERS},
	    {"socket", required_argument, NULL, O_SOCKET},
	    {"socket-group", required_argument, NULL, O_GROUP},
	    {"state-dir", required_argument, NULL, O_STATE},
	    {"log-level", required_argument, NULL, O_LOG},
	    {"physnets", required_argument, NULL, O_PHYSNETS},
	    {"sysfs-root", required_argument, NULL, O_SYSFS},
	    {"help", no_argument, NULL, O_HELP},
	    {"version", no_argument, NULL, O_VERSION},
	    {NULL, 0, NULL, 0},
	};
	bool workers_given = false;
	long v;
	int o;

	set_defaults(c);
	/* The file first, so command-line options override it. */
	for (int i = 1; i < argc - 1; i++)
		if (strcmp(argv[i], "--config") == 0 && load_config_file(argv[i + 1], c) != 0)
			return -EINVAL;
	optind = 1;
	while ((o = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		switch (o) {
		case O_CONFIG:
			break;
		case O_MAIN:
			if (parse_int("--main-core", optarg, 0, 1023, &v))
				return -EINVAL;
			c->main_core = (int)v;
			break;
		case O_WORKERS:
			if (parse_core_list("--worker-cores", optarg, c))
				return -EINVAL;
			workers_given = true;
			break;
		case O_SOCKET:
			if (set_str(c->socket, sizeof(c->socket), "--socket", optarg))
				return -EINVAL;
			break;
		case O_GROUP:
			if (set_str(c->socket_group, sizeof(c->socket_group), "--socket-group",
				    optarg))
				return -EINVAL;
			break;
		case O_STATE:
			if (set_str(c->state_dir, sizeof(c->state_dir), "--state-dir", optarg))
				return -EINVAL;
			break;
		case O_LOG:
			if (set_str(c->log_level, sizeof(c->log_level), "--log-level", optarg))
				return -EINVAL;
			break;
		case O_PHYSNETS:
			if (set_str(c->physnets, sizeof(c->physnets), "--physnets", optarg))
				return -EINVAL;
			snprintf(physnets_opt, sizeof(physnets_opt), "--physnets");
			break;
		case O_SYSFS:
			if (set_str(c->sysfs_root, sizeof(c->sysfs_root), "--sysfs-root", optarg))
				return -EINVAL;
			snprintf(sysfs_opt, sizeof(sysfs_opt), "--sysfs-root");
			break;
		case O_HELP:
			usage(stdout);
			return 1;
		case O_VERSION:
			printf("podwired %s\n", PODWIRE_VERSION);
			return 1;
		default:
			usage(stderr);
			return -EINVAL;
		}
	}
	if (optind < argc) {
		fprintf(stderr, "podwired: unexpected argument \"%s\"\n", argv[optind]);
		return -EINVAL;
	}
	/* Default workers: every online core but the main one. */
	if (!workers_given) {
		unsigned int n = 0;

		for (unsigned int i = 0; i < c->n_worker_cores; i++)
			if ((int)c->worker_cores[i] != c->main_core)
				c->worker_cores[n++] = c->worker_cores[i];
		c->n_worker_cores = n;
	}
	for (unsigned int i = 0; i < c->n_worker_cores; i++) {
		if ((int)c->worker_cores[i] == c->main_core) {
			fprintf(stderr,
				"podwired: --worker-cores: core %d is the main core; "
				"pick another main core with --main-core\n",
				c->main_core);
			return -EINVAL;
		}
	}
	if (c->n_worker_cores == 0) {
		fprintf(stderr,
			"podwired: no worker core left besides main core %d; "
			"give --worker-cores\n",
			c->main_core);
		return -EINVAL;
	}
	if (check_core("--main-core", (unsigned int)c->main_core) != 0)
		return -EINVAL;
	for (unsigned int i = 0; i < c->n_worker_cores; i++)
		if (check_core("--worker-cores", c->worker_cores[i]) != 0)
			return -EINVAL;
	if (c->socket[0] != '/' || strlen(c->socket) > API_SOCKET_PATH_MAX) {
		fprintf(stderr,
			"podwired: --socket: \"%s\" must be an absolute path of at most "
			"%d bytes\n",
			c->socket, API_SOCKET_PATH_MAX);
		return -EINVAL;
	}
	if (c->socket_group[0] != '\0') {
		struct group *g = getgrnam(c->socket_group);

		if (g == NULL) {
			fprintf(stderr,
				"podwired: --socket-group: no group \"%s\"; create it or "
				"leave the option out\n",
				c->socket_group);
			return -EINVAL;
		}
		c->socket_gid = g->gr_gid;
	}
	return check_physnets(c);
}
