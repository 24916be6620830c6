/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * podwire-docker: start-up, options, the plugin socket, signals. dockerd
 * finds the driver by its socket in /run/docker/plugins/ (name: podwire),
 * so `docker network create -d podwire` reaches it.
 */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "driver.h"
#include "files.h"
#include "http.h"

struct dk_config dk_cfg = {
    .plugin_socket = "/run/docker/plugins/podwire.sock",
    .podwired_socket = PODWIRE_DEFAULT_SOCKET,
    .state_dir = "/var/lib/podwire-docker",
    .socket_dir = "/run/podwire/docker",
    .container_socket_dir = "",
    .podwired_timeout_ms = 10000,
    .gc_interval_sec = 10,
    .gc_grace_sec = 120,
};

void dk_log(const char *fmt, ...)
{
	char line[2048];
	struct timespec ts;
	struct tm tm;
	va_list ap;

	clock_gettime(CLOCK_REALTIME, &ts);
	localtime_r(&ts.tv_sec, &tm);
	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	fprintf(stderr, "%02d:%02d:%02d.%03ld podwire-docker: %s\n", tm.tm_hour, tm.tm_min,
		tm.tm_sec, ts.tv_nsec / 1000000, line);
}

static void usage(FILE *f)
{
	fprintf(
	    f,
	    "usage: podwire-docker [OPTIONS]\n"
	    "Docker network driver for podwired (libnetwork remote driver protocol).\n"
	    "  --socket PATH            plugin socket dockerd finds (default %s)\n"
	    "  --podwired-socket PATH   podwired's API socket (default %s)\n"
	    "  --state-dir DIR          the driver's records (default %s)\n"
	    "  --socket-dir DIR         DPDK containers' socket directories on the host\n"
	    "                           (default %s; containers mount it)\n"
	    "  --container-socket-dir DIR  where containers mount --socket-dir (default: the "
	    "same)\n"
	    "  --podwired-timeout MS    limit of one podwired call (default %d)\n"
	    "  --gc-interval SEC        how often stale endpoints are looked for (default %d)\n"
	    "  --gc-grace SEC           an endpoint no container joined for this long is stale\n"
	    "                           (default %d)\n"
	    "  --verbose                log every call\n"
	    "Network options (docker network create -d podwire -o KEY=VALUE):\n"
	    "  podwire.network=NAME     podwired network to use or create (default docker-<id>)\n"
	    "  podwire.vlan=ID          its VLAN, 1-4094\n"
	    "  podwire.mode=bridge|xconnect\n"
	    "  podwire.iftype=kernel|vhost-user|memif  containers' interface (default kernel)\n"
	    "  podwire.queues=N         queue pairs of DPDK containers' ports, 1-16 (default 1)\n"
	    "  podwire.offloads=on|off  vhost-user: checksum and TSO offloads offered to the\n"
	    "                           containers (default on)\n"
	    "  podwire.rate=pps=N[,burst=N] | bps=N[,burst=N]  rate limit of each container's\n"
	    "                           port, both ways (N: digits and an optional k, m, g);\n"
	    "                           podwire.rate.ingress: what it sends, .egress: receives\n"
	    "  podwire.acl=LIST         an access list (podwirectl acl set) on the network's\n"
	    "                           ingress; podwire.acl.ingress, podwire.acl.egress\n"
	    "  com.docker.network.driver.mtu=N\n"
	    "Endpoint options (docker run --network name=NET,driver-opt=KEY=VALUE):\n"
	    "  podwire.queues=N         this container's queue pairs (default: the network's)\n"
	    "  podwire.rate, podwire.rate.ingress, podwire.rate.egress  its own rate limits\n"
	    "  podwire.acl, podwire.acl.ingress, podwire.acl.egress  a list on its own port\n",
	    dk_cfg.plugin_socket, dk_cfg.podwired_socket, dk_cfg.state_dir, dk_cfg.socket_dir,
	    dk_cfg.podwired_timeout_ms, dk_cfg.gc_interval_sec, dk_cfg.gc_grace_sec);
}

static int set_path(char *dst, const char *opt, const char *v, size_t max)
{
	if (v[0] != '/' || strlen(v) >= max) {
		fprintf(stderr,
			"podwire-docker: %s \"%s\": give an absolute path of at most %zu bytes\n",
			opt, v, max - 1);
		return -1;
	}
	snprintf(dst, DK_PATH_MAX, "%s", v);
	return 0;
}

static int set_int(int *dst, const char *opt, const char *v, int lo, int hi)
{
	char *end;
	long n = strtol(v, &end, 10);

	if (*v == '\0' || *end != '\0' || n < lo || n > hi) {
		fprintf(stderr, "podwire-docker: %s \"%s\": give a number %d-%d\n", opt, v, lo, hi);
		return -1;
	}
	*dst = (int)n;
	return 0;
}

static int parse_args(int argc, char **argv)
{
	static const struct option opts[] = {{"socket", required_argument, NULL, 's'},
					     {"podwired-socket", required_argument, NULL, 'p'},
					     {"state-dir", required_argument, NULL, 'd'},
					     {"socket-dir", required_argument, NULL, 'D'},
					     {"container-socket-dir", required_argument, NULL, 'C'},
					     {"podwired-timeout", required_argument, NULL, 't'},
					     {"gc-interval", required_argument, NULL, 'g'},
					     {"gc-grace", required_argument, NULL, 'G'},
					     {"verbose", no_argument, NULL, 'v'},
					     {"help", no_argument, NULL, 'h'},
					     {"version", no_argument, NULL, 'V'},
					     {NULL, 0, NULL, 0}};
	struct sockaddr_un sa;
	int c, rc = 0;

	while (rc == 0 && (c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		switch (c) {
		case 's':
			rc =
			    set_path(dk_cfg.plugin_socket, "--socket", optarg, sizeof(sa.sun_path));
			break;
		case 'p':
			rc = set_path(dk_cfg.podwired_socket, "--podwired-socket", optarg,
				      API_SOCKET_PATH_MAX + 1);
			break;
		case 'd':
			rc = set_path(dk_cfg.state_dir, "--state-dir", optarg, DK_PATH_MAX);
			break;
		/* <dir>/<12 digits>/vhost.sock must fit a unix socket path. */
		case 'D':
			rc = set_path(dk_cfg.socket_dir, "--socket-dir", optarg,
				      API_SOCKET_PATH_MAX - 24);
			break;
		case 'C':
			rc = set_path(dk_cfg.container_socket_dir, "--container-socket-dir", optarg,
				      API_SOCKET_PATH_MAX - 24);
			break;
		case 't':
			rc = set_int(&dk_cfg.podwired_timeout_ms, "--podwired-timeout", optarg, 100,
				     600000);
			break;
		case 'g':
			rc = set_int(&dk_cfg.gc_interval_sec, "--gc-interval", optarg, 1, 3600);
			break;
		case 'G':
			rc = set_int(&dk_cfg.gc_grace_sec, "--gc-grace", optarg, 1, 86400);
			break;
		case 'v':
			dk_cfg.verbose = true;
			break;
		case 'h':
			usage(stdout);
			exit(0);
		case 'V':
			printf("podwire-docker %s\n", PODWIRE_VERSION);
			exit(0);
		default:
			usage(stderr);
			return -1;
		}
	}
	if (rc == 0 && optind < argc) {
		fprintf(stderr, "podwire-docker: unexpected argument \"%s\"\n", argv[optind]);
		rc = -1;
	}
	if (dk_cfg.container_socket_dir[0] == '\0')
		snprintf(dk_cfg.container_socket_dir, DK_PATH_MAX, "%s", dk_cfg.socket_dir);
	return rc;
}

/* The plugin socket, taking over one left by a driver that died (nobody
 * answers on it) but never one in use. */
static int listen_plugin_socket(void)
{
	struct sockaddr_un sa = {.sun_family = AF_UNIX};
	char dir[DK_PATH_MAX], *slash;
	struct stat st;
	int fd;

	/* parse_args checked that it fits. */
	memcpy(sa.sun_path, dk_cfg.plugin_socket, strlen(dk_cfg.plugin_socket) + 1);
	snprintf(dir, sizeof(dir), "%s", dk_cfg.plugin_socket);
	slash = strrchr(dir, '/');
	if (slash != NULL && slash != dir) {
		*slash = '\0';
		if (mkdir_parents(dir, 0755) != 0) {
			fprintf(stderr, "podwire-docker: cannot make %s: %s\n", dir,
				strerror(errno));
			return -1;
		}
	}
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -1;
	if (lstat(sa.sun_path, &st) == 0) {
		if (!S_ISSOCK(st.st_mode)) {
			fprintf(stderr,
				"podwire-docker: %s exists and is not a socket; remove it\n",
				sa.sun_path);
			close(fd);
			return -1;
		}
		if (connect(fd, (struct sockaddr *)&sa, sizeof(sa)) == 0) {
			fprintf(stderr,
				"podwire-docker: another driver serves %s; stop it or give "
				"--socket another path\n",
				sa.sun_path);
			close(fd);
			return -1;
		}
		close(fd);
		unlink(sa.sun_path);
		fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
		if (fd < 0)
			return -1;
	}
	if (bind(fd, (struct sockaddr *)&sa, sizeof(sa)) != 0 || chmod(sa.sun_path, 0660) != 0 ||
	    listen(fd, 128) != 0) {
		fprintf(stderr, "podwire-docker: cannot listen on %s: %s\n", sa.sun_path,
			strerror(errno));
		close(fd);
		return -1;
	}
	return fd;
}

int main(int argc, char **argv)
{
	struct MHD_Daemon *http;
	char msg[1024];
	pthread_t gc;
	sigset_t set;
	int fd, sig;

	if (parse_args(argc, argv) != 0)
		return 2;
	signal(SIGPIPE, SIG_IGN);
	sigemptyset(&set);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGTERM);
	/* Before any thread starts: only sigwait below sees them. */
	pthread_sigmask(SIG_BLOCK, &set, NULL);
	if (mkdir_parents(dk_cfg.state_dir, 0700) != 0 ||
	    mkdir_parents(dk_cfg.socket_dir, 0755) != 0) {
		fprintf(stderr, "podwire-docker: cannot make %s or %s: %s\n", dk_cfg.state_dir,
			dk_cfg.socket_dir, strerror(errno));
		return 1;
	}
	if (store_load(msg, sizeof(msg)) != 0) {
		fprintf(stderr, "podwire-docker: %s\n", msg);
		return 1;
	}
	fd = listen_plugin_socket();
	if (fd < 0)
		return 1;
	http = http_start(fd);
	if (http == NULL) {
		fprintf(stderr, "podwire-docker: libmicrohttpd cannot serve %s\n",
			dk_cfg.plugin_socket);
		unlink(dk_cfg.plugin_socket);
		return 1;
	}
	if (pthread_create(&gc, NULL, gc_thread, NULL) != 0) {
		fprintf(stderr, "podwire-docker: cannot start the garbage collector\n");
		http_stop(http);
		unlink(dk_cfg.plugin_socket);
		return 1;
	}
	dk_log("serving %s (%u networks, %u endpoints); podwired at %s", dk_cfg.plugin_socket,
	       store_network_count(), store_endpoint_count(), dk_cfg.podwired_socket);
	while (sigwait(&set, &sig) != 0)
		;
	dk_log("signal %d: stopping", sig);
	/* Records stay: a restarted driver answers for them. */
	http_stop(http);
	close(fd);
	unlink(dk_cfg.plugin_socket);
	return 0;
}
