/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Command line and configuration file. Each setting is declared once, in
 * the table below: its long option, its configuration-file key (the
 * option's name with '_' for '-'), its argument, its help line and where
 * it goes. The built-in defaults make a working daemon with no file.
 */
#include <errno.h>
#include <getopt.h>
#include <grp.h>
#include <sched.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "api.h"
#include "core/config.h"
#include "daemon/daemon.h"
#include "core/log.h"
#include "files.h"
#include "observe/metrics.h"
#include "sriov/sriov.h"
#include "sriov/vf_pool.h"

enum opt_type {
	OPT_STR,     /* a string into a char array */
	OPT_INT,     /* an integer in [min, max] (an int) */
	OPT_U32,     /* an integer in [min, max] (a uint32_t) */
	OPT_CORES,   /* a core list: "1" or "1-3,5" */
	OPT_LEVEL,   /* a log level name, checked now */
	OPT_CONFIG,  /* --config FILE: read before the other options */
	OPT_HELP,    /* --help */
	OPT_VERSION, /* --version */
};

struct opt_desc {
	const char *name;    /* long option; the config key swaps '-' for '_' */
	const char *metavar; /* NULL: takes no argument */
	enum opt_type type;
	size_t offset, size; /* where in struct pw_config */
	long min, max;
	const char *help;
	bool cli_only;
};

#define AT(field) offsetof(struct pw_config, field), sizeof(((struct pw_config *)0)->field)

static const struct opt_desc opts[] = {
    {"config", "FILE", OPT_CONFIG, 0, 0, 0, 0, "JSON configuration file (see README)", true},
    {"main-core", "N", OPT_INT, AT(main_core), 0, 1023, "control thread core (default 0)"},
    {"worker-cores", "LIST", OPT_CORES, AT(worker_cores), 0, 1023,
     "worker cores, e.g. 1 or 1-3,5 (default: all others)"},
    {"socket", "PATH", OPT_STR, AT(socket), 0, 0,
     "API socket (default " PODWIRE_DEFAULT_SOCKET ")"},
    {"socket-group", "NAME", OPT_STR, AT(socket_group), 0, 0,
     "group owning the API socket (mode 0660)"},
    {"state-dir", "DIR", OPT_STR, AT(state_dir), 0, 0,
     "saved networks and ports (default " PODWIRE_DEFAULT_STATE_DIR ")"},
    {"log-level", "LEVEL", OPT_LEVEL, AT(log_level), 0, 0,
     "error, warning, notice, info or debug (default info)"},
    {"mac-table-size", "N", OPT_U32, AT(mac_capacity), 64, 1 << 24,
     "MAC table entries, all networks (default 65536)"},
    {"mac-aging-sec", "N", OPT_U32, AT(mac_aging_sec), 1, 86400,
     "forget a MAC unseen this long (default 300)"},
    {"mbufs", "N", OPT_U32, AT(mbufs), 2048, 1 << 22, "packet buffers (default 32768)"},
    {"physnets", "LIST", OPT_STR, AT(physnets), 0, 0,
     "SR-IOV VF pools: physnet:PF[#first-last],... e.g.\n"
     "                         physnet2:enp1s0f0,physnet3:enp1s0f1#0-7"},
    {"sysfs-root", "DIR", OPT_STR, AT(sysfs_root), 0, 0,
     "where sysfs is (default /sys; tests use a fake tree)"},
    {"cdi-dir", "DIR", OPT_STR, AT(cdi_dir), 0, 0,
     "CDI spec files for podman/containerd (default /var/run/cdi;\n"
     "                         \"\" writes none)"},
    {"dev-root", "DIR", OPT_STR, AT(dev_root), 0, 0,
     "where device nodes are (default /dev; tests use a fake tree)"},
    {"metrics", "ADDR:PORT", OPT_STR, AT(metrics), 0, 0,
     "serve Prometheus metrics at http://ADDR:PORT/metrics\n"
     "                         (default: off), e.g. 127.0.0.1:9469"},
    {"memif-backoff-max-ms", "N", OPT_U32, AT(memif_backoff_max_ms), 0, 600000,
     "longest wait before podwired takes or makes the next connection\n"
     "                         of a memif port whose peer keeps connecting and\n"
     "                         dropping (default 5000; 0: no back-off)"},
    {"memif-peer-memory-mb", "N", OPT_U32, AT(memif_peer_memory_mb), 1, 1 << 20,
     "MiB of shared memory one memif peer may have podwired\n"
     "                         map (default 512)"},
    {"memif-total-memory-mb", "N", OPT_U32, AT(memif_total_memory_mb), 1, 1 << 24,
     "MiB all memif peers together may have podwired map\n"
     "                         (default 4096)"},
    {"idle-sleep-max", "US", OPT_U32, AT(idle_sleep_max_us), 0, 100000,
     "an idle worker sleeps, longer each empty turn, up to this many\n"
     "                         microseconds, and polls again at once when frames\n"
     "                         come (default 0: never sleeps)"},
    {"veth-io", "packet|xdp", OPT_STR, AT(veth_io), 0, 0,
     "how veth ports that name no \"io\" read their host end: packet (AF_PACKET,\n"
     "                         offloads on; default) or xdp (AF_XDP, offloads off)"},
    {"rebalance", "on|off", OPT_STR, AT(rebalance), 0, 0,
     "move rx queues between workers by measured load (default off)"},
    {"rebalance-interval", "S", OPT_U32, AT(rebalance_interval_s), 1, 86400,
     "seconds between rebalancing checks (default 60)"},
    {"rebalance-threshold", "PCT", OPT_U32, AT(rebalance_threshold_pct), 1, 100,
     "rebalance only when the busiest worker is this busy (default 70)"},
    {"rebalance-improvement", "PCT", OPT_U32, AT(rebalance_improvement_pct), 1, 100,
     "and a new placement cuts the busiest-idlest gap by this share\n"
     "                         (default 25)"},
    {"acl-sessions", "N", OPT_U32, AT(acl_sessions), 64, 1 << 24,
     "permit+reflect sessions each worker may hold (default 131072)"},
    {"help", NULL, OPT_HELP, 0, 0, 0, 0, "this text", true},
    {"version", NULL, OPT_VERSION, 0, 0, 0, 0, "podwired's version", true},
};
#define N_OPTS (sizeof(opts) / sizeof(opts[0]))

/* Where each setting came from ("--physnets", or "FILE: \"physnets\""),
 * for messages about its value found later. */
static char origin[N_OPTS][96];
/* Worker cores were given (file or command line): none is dropped then. */
static bool cores_given;

static void usage(FILE *f)
{
	fprintf(f,
		"Usage: podwired [OPTIONS]\nDPDK userspace datapath for container networking.\n\n");
	for (size_t i = 0; i < N_OPTS; i++) {
		char left[64];

		snprintf(left, sizeof(left), "--%s%s%s", opts[i].name, opts[i].metavar ? " " : "",
			 opts[i].metavar ? opts[i].metavar : "");
		fprintf(f, "  %-22s %s\n", left, opts[i].help);
	}
	fprintf(f, "\nEvery option but --config, --help and --version is also a key of the\n"
		   "configuration file, with '_' for '-': {\"worker_cores\": \"1\"}.\n");
}

static void config_keys(char *buf, size_t len)
{
	size_t off = 0;

	for (size_t i = 0; i < N_OPTS && off < len; i++) {
		if (opts[i].cli_only)
			continue;
		off += (size_t)snprintf(buf + off, len - off, "%s", off ? ", " : "");
		for (const char *c = opts[i].name; *c != '\0' && off + 1 < len; c++)
			buf[off++] = *c == '-' ? '_' : *c;
		buf[off < len ? off : len - 1] = '\0';
	}
}

static int parse_long(const char *what, const char *s, long lo, long hi, long *out)
{
	char *end;

	errno = 0;
	*out = strtol(s, &end, 10);
	if (errno != 0 || end == s || *end != '\0' || *out < lo || *out > hi) {
		fprintf(stderr, "podwired: %s: \"%s\" is not a number in %ld-%ld\n", what, s, lo,
			hi);
		return -EINVAL;
	}
	return 0;
}

/* "1", "1-3,5" into cores; rejects duplicates and the main core later. */
static int parse_core_list(const char *what, const char *s, struct pw_config *c)
{
	char buf[256], *save = NULL, *tok;
	long lo, hi;

	snprintf(buf, sizeof(buf), "%s", s);
	c->n_worker_cores = 0;
	for (tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		char *dash = strchr(tok, '-');

		if (dash) {
			*dash = '\0';
			if (parse_long(what, tok, 0, 1023, &lo) ||
			    parse_long(what, dash + 1, lo, 1023, &hi))
				return -EINVAL;
		} else {
			if (parse_long(what, tok, 0, 1023, &lo))
				return -EINVAL;
			hi = lo;
		}
		for (long i = lo; i <= hi; i++) {
			if (c->n_worker_cores == PW_MAX_WORKERS) {
				fprintf(stderr, "podwired: %s: more than %d cores\n", what,
					PW_MAX_WORKERS);
				return -EINVAL;
			}
			for (unsigned int j = 0; j < c->n_worker_cores; j++) {
				if (c->worker_cores[j] == (unsigned int)i) {
					fprintf(stderr,
						"podwired: %s: core %ld is listed twice; "
						"list each core once\n",
						what, i);
					return -EINVAL;
				}
			}
			c->worker_cores[c->n_worker_cores++] = (unsigned int)i;
		}
	}
	if (c->n_worker_cores == 0) {
		fprintf(stderr, "podwired: %s: empty core list; give e.g. 1 or 1-3\n", what);
		return -EINVAL;
	}
	return 0;
}

/*
 * Stores one setting. what names it in messages ("--mbufs" or
 * "FILE: \"mbufs\""); text is the command line's string; num is set when
 * the configuration file gave a JSON number instead.
 */
static int apply(const struct opt_desc *o, const char *what, const char *text, const double *num,
		 struct pw_config *c)
{
	char *dst = (char *)c + o->offset;
	char buf[32];
	uint32_t level;
	long v;

	if ((o->type == OPT_INT || o->type == OPT_U32) && num != NULL) {
		if (!api_number_is_long(*num)) {
			fprintf(stderr, "podwired: %s: %g is not an integer\n", what, *num);
			return -EINVAL;
		}
		snprintf(buf, sizeof(buf), "%ld", (long)*num);
		text = buf;
	}
	switch (o->type) {
	case OPT_INT:
	case OPT_U32:
		if (parse_long(what, text, o->min, o->max, &v) != 0)
			return -EINVAL;
		if (o->type == OPT_INT)
			*(int *)(void *)dst = (int)v;
		else
			*(uint32_t *)(void *)dst = (uint32_t)v;
		return 0;
	case OPT_CORES:
		cores_given = true;
		return parse_core_list(what, text, c);
	case OPT_LEVEL:
		if (pw_log_level_parse(text, &level) != 0) {
			fprintf(stderr,
				"podwired: %s: unknown level \"%s\"; use error, warning, notice, "
				"info or debug\n",
				what, text);
			return -EINVAL;
		}
		/* stored as given */
		__attribute__((fallthrough));
	case OPT_STR:
		if (strlen(text) >= o->size) {
			fprintf(stderr, "podwired: %s: \"%s\" is longer than %zu bytes\n", what,
				text, o->size - 1);
			return -EINVAL;
		}
		memcpy(dst, text, strlen(text) + 1);
		return 0;
	default:
		return -EINVAL;
	}
}

/* Reads a JSON object from path; prints why not and returns NULL. */
static cJSON *read_config_object(const char *path)
{
	char why[768], keys[512];
	cJSON *doc;
	int rc = json_file_read(path, 1 << 20, &doc, why, sizeof(why));

	if (rc != 0) {
		fprintf(stderr, "podwired: --config: %s; %s\n", why,
			rc == -EBADMSG ? "fix the file" : "give the path of a JSON file");
		return NULL;
	}
	if (!cJSON_IsObject(doc)) {
		config_keys(keys, sizeof(keys));
		fprintf(stderr,
			"podwired: --config: %s must hold a JSON object such as "
			"{\"worker_cores\": \"1\"}; keys: %s\n",
			path, keys);
		cJSON_Delete(doc);
		return NULL;
	}
	return doc;
}

static const struct opt_desc *find_key(const char *key)
{
	for (size_t i = 0; i < N_OPTS; i++) {
		const char *a = opts[i].name, *b = key;

		if (opts[i].cli_only)
			continue;
		while (*a != '\0' && (*a == *b || (*a == '-' && *b == '_')))
			a++, b++;
		if (*a == '\0' && *b == '\0')
			return &opts[i];
	}
	return NULL;
}

/* The configuration file: the same settings as the long options. */
static int load_config_file(const char *path, struct pw_config *c)
{
	cJSON *doc = read_config_object(path);
	const cJSON *v;
	char keys[512];
	int rc = 0;

	if (doc == NULL)
		return -EINVAL;
	cJSON_ArrayForEach (v, doc) {
		const struct opt_desc *o = find_key(v->string);
		bool number = o != NULL && (o->type == OPT_INT || o->type == OPT_U32);
		char what[128];

		snprintf(what, sizeof(what), "%.80s: \"%.40s\"", path, v->string);
		if (o == NULL || (number ? !cJSON_IsNumber(v) : !cJSON_IsString(v))) {
			config_keys(keys, sizeof(keys));
			fprintf(stderr,
				"podwired: %s: %s; keys: %s (see the configuration reference in "
				"README.md)\n",
				what,
				o == NULL ? "unknown key"
				: number  ? "must be a number"
					  : "must be a string",
				keys);
			rc = -EINVAL;
			break;
		}
		if (apply(o, what, v->valuestring, number ? &v->valuedouble : NULL, c) != 0) {
			rc = -EINVAL;
			break;
		}
		snprintf(origin[o - opts], sizeof(origin[0]), "%.95s", what);
	}
	cJSON_Delete(doc);
	return rc;
}

/* The core must be one this process may run on. */
static int check_core(const char *what, unsigned int core)
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
	fprintf(stderr, "podwired: %s: core %u is not available here; available cores: %s\n", what,
		core, avail);
	return -EINVAL;
}

static const char *origin_of(const char *name)
{
	for (size_t i = 0; i < N_OPTS; i++)
		if (strcmp(opts[i].name, name) == 0)
			return origin[i];
	return name;
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
			origin_of("sysfs-root"), c->sysfs_root);
		return -EINVAL;
	}
	sriov_set_root(c->sysfs_root);
	if (vf_pool_configure(c->physnets, msg, sizeof(msg)) != 0) {
		fprintf(stderr, "podwired: %s: %s\n", origin_of("physnets"), msg);
		return -EINVAL;
	}
	return 0;
}

/* The CDI directory is made now, so that a start-up that cannot write
 * the specs fails with the fix rather than running without them. */
static int check_cdi(struct pw_config *c)
{
	struct stat st;
	int rc;

	if (c->dev_root[0] != '/' || stat(c->dev_root, &st) != 0 || !S_ISDIR(st.st_mode)) {
		fprintf(stderr,
			"podwired: %s: \"%s\" is not an absolute path of a directory; give "
			"where device nodes are (/dev)\n",
			origin_of("dev-root"), c->dev_root);
		return -EINVAL;
	}
	if (c->cdi_dir[0] == '\0')
		return 0;
	if (c->cdi_dir[0] != '/') {
		fprintf(stderr,
			"podwired: %s: \"%s\" is not an absolute path; give one (/var/run/cdi, "
			"/etc/cdi) or \"\" to write no CDI specs\n",
			origin_of("cdi-dir"), c->cdi_dir);
		return -EINVAL;
	}
	rc = mkdir_parents(c->cdi_dir, 0755);
	if (rc == 0 && access(c->cdi_dir, W_OK) != 0)
		rc = -errno;
	if (rc != 0) {
		fprintf(stderr,
			"podwired: %s: cannot write to %s: %s; give a writable directory or \"\" "
			"to write no CDI specs\n",
			origin_of("cdi-dir"), c->cdi_dir, strerror(-rc));
		return -EINVAL;
	}
	return 0;
}

/* What the settings mean together, once all are read. */
static int check_settings(struct pw_config *c)
{
	/* Default workers: every online core but the main one. */
	if (!cores_given) {
		unsigned int n = 0;

		for (unsigned int i = 0; i < c->n_worker_cores; i++)
			if ((int)c->worker_cores[i] != c->main_core)
				c->worker_cores[n++] = c->worker_cores[i];
		c->n_worker_cores = n;
	}
	for (unsigned int i = 0; i < c->n_worker_cores; i++) {
		/* Allowed for tests and small machines: that worker then
		 * shares its CPU with the API, housekeeping and librte_vhost's
		 * threads, and forwards slower while they run. */
		if ((int)c->worker_cores[i] == c->main_core)
			fprintf(stderr,
				"podwired: warning: --worker-cores: worker %u runs on main core "
				"%d, beside the control thread; give it a core of its own for "
				"steady forwarding\n",
				i, c->main_core);
	}
	if (strcmp(c->veth_io, "packet") != 0 && strcmp(c->veth_io, "xdp") != 0) {
		fprintf(stderr, "podwired: %s: \"%s\" is neither packet nor xdp\n",
			origin_of("veth-io"), c->veth_io);
		return -EINVAL;
	}
	if (strcmp(c->rebalance, "on") != 0 && strcmp(c->rebalance, "off") != 0) {
		fprintf(stderr, "podwired: %s: \"%s\" is neither on nor off\n",
			origin_of("rebalance"), c->rebalance);
		return -EINVAL;
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
	if (check_cdi(c) != 0)
		return -EINVAL;
	if (c->metrics[0] != '\0') {
		struct sockaddr_storage sa;
		char msg[256];

		if (metrics_addr_parse(c->metrics, &sa, msg, sizeof(msg)) != 0) {
			fprintf(stderr, "podwired: %s: %s\n", origin_of("metrics"), msg);
			return -EINVAL;
		}
	}
	return check_physnets(c);
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
	snprintf(c->cdi_dir, sizeof(c->cdi_dir), "/var/run/cdi");
	snprintf(c->dev_root, sizeof(c->dev_root), "/dev");
	c->socket_gid = (gid_t)-1;
	c->mac_capacity = 65536;
	c->mac_aging_sec = 300;
	c->mbufs = 32768;
	c->memif_backoff_max_ms = 5000;
	c->memif_peer_memory_mb = 512;
	c->memif_total_memory_mb = 4096;
	snprintf(c->rebalance, sizeof(c->rebalance), "off");
	snprintf(c->veth_io, sizeof(c->veth_io), "packet");
	c->rebalance_interval_s = 60;
	c->rebalance_threshold_pct = 70;
	c->rebalance_improvement_pct = 25;
	c->acl_sessions = 131072;
	for (long i = 0; i < ncpu && c->n_worker_cores < PW_MAX_WORKERS; i++)
		c->worker_cores[c->n_worker_cores++] = (unsigned int)i;
	for (size_t i = 0; i < N_OPTS; i++)
		snprintf(origin[i], sizeof(origin[i]), "--%s", opts[i].name);
	cores_given = false;
}

int options_parse(int argc, char **argv, struct pw_config *c)
{
	struct option longopts[N_OPTS + 1];
	int o;

	memset(longopts, 0, sizeof(longopts));
	for (size_t i = 0; i < N_OPTS; i++) {
		longopts[i].name = opts[i].name;
		longopts[i].has_arg = opts[i].metavar ? required_argument : no_argument;
		longopts[i].val = 256 + (int)i;
	}
	set_defaults(c);
	/* The file first, so command-line options override it: a pass of its
	 * own, through getopt, so --config FILE and --config=FILE both count. */
	opterr = 0;
	optind = 1;
	while ((o = getopt_long(argc, argv, "", longopts, NULL)) != -1)
		if (o >= 256 && opts[o - 256].type == OPT_CONFIG &&
		    load_config_file(optarg, c) != 0)
			return -EINVAL;
	opterr = 1;
	optind = 1;
	while ((o = getopt_long(argc, argv, "", longopts, NULL)) != -1) {
		const struct opt_desc *d =
		    o >= 256 && o < 256 + (int)N_OPTS ? &opts[o - 256] : NULL;
		char what[64];

		if (d == NULL) {
			usage(stderr);
			return -EINVAL;
		}
		snprintf(what, sizeof(what), "--%s", d->name);
		switch (d->type) {
		case OPT_CONFIG:
			break;
		case OPT_HELP:
			usage(stdout);
			return 1;
		case OPT_VERSION:
			printf("podwired %s\n", PODWIRE_VERSION);
			return 1;
		default:
			if (apply(d, what, optarg, NULL, c) != 0)
				return -EINVAL;
			snprintf(origin[d - opts], sizeof(origin[0]), "%.63s", what);
		}
	}
	if (optind < argc) {
		fprintf(stderr, "podwired: unexpected argument \"%s\"\n", argv[optind]);
		return -EINVAL;
	}
	return check_settings(c);
}
