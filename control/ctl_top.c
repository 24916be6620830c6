/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * podwirectl top: rates from two stats.get snapshots an interval apart,
 * per port (frames and Mbit/s each way, drops by reason, the kernel's
 * drops on the way in) and per worker
 * (busy %, naps). With --queues (or r on a terminal) also per rx queue,
 * from two queue.list snapshots: its worker's core, frames per second and
 * its load. On a terminal it redraws in place until q or Ctrl-C; else it
 * prints plain tables, one per interval, --count times (default once).
 */
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>

#include "api.h"
#include "client.h"
#include "ctl.h"

static volatile sig_atomic_t stop;
static struct termios saved;
static bool raw;

static void on_signal(int sig)
{
	(void)sig;
	stop = 1;
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static double num(const cJSON *o, const char *field)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, field);

	return cJSON_IsNumber(v) ? v->valuedouble : 0;
}

static const cJSON *find_named(const cJSON *arr, const char *name)
{
	const cJSON *e;

	cJSON_ArrayForEach (e, arr)
		if (strcmp(api_get_str(e, API_F_NAME, ""), name) == 0)
			return e;
	return NULL;
}

/* A rate, never negative (counters cleared in between read as 0). */
static double rate(double now, double before, double dt)
{
	return now > before ? (now - before) / dt : 0;
}

/* The queue named by port and number in a queue.list result. */
static const cJSON *find_queue(const cJSON *list, const char *port, double q)
{
	const cJSON *e;

	cJSON_ArrayForEach (e, cJSON_GetObjectItemCaseSensitive(list, API_R_QUEUES))
		if (strcmp(api_get_str(e, API_F_PORT, ""), port) == 0 && num(e, API_F_QUEUE) == q)
			return e;
	return NULL;
}

/* Per rx queue: its worker's core, its frames per second over the
 * refresh, and its load as podwired measures it (over the balancer's
 * window). Queues no pod enabled are left out: nothing polls them. */
static void render_queues(const cJSON *qa, const cJSON *qb, double dt)
{
	const cJSON *e;
	int shown = 0, off = 0;

	printf("\n%-20s %5s %6s %12s %7s  (load over the last %.0f s)\n", "PORT", "QUEUE", "WORKER",
	       "RX-PPS", "BUSY", num(qb, API_R_WINDOW));
	cJSON_ArrayForEach (e, cJSON_GetObjectItemCaseSensitive(qb, API_R_QUEUES)) {
		const char *port = api_get_str(e, API_F_PORT, "?");
		const cJSON *before = find_queue(qa, port, num(e, API_F_QUEUE));
		char busy[16] = "-";

		if (!cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(e, API_F_ENABLED))) {
			off++;
			continue;
		}
		if (num(qb, API_R_WINDOW) > 0)
			snprintf(busy, sizeof(busy), "%.1f%%", num(e, API_R_BUSY_PCT));
		if (before != NULL)
			printf("%-20s %5.0f %6.0f %12.0f %7s%s\n", port, num(e, API_F_QUEUE),
			       num(e, API_F_WORKER),
			       rate(num(e, API_R_RX_TOTAL), num(before, API_R_RX_TOTAL), dt), busy,
			       cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(e, API_R_PINNED))
				   ? "  pinned"
				   : "");
		else
			printf("%-20s %5.0f %6.0f %12s %7s  (new)\n", port, num(e, API_F_QUEUE),
			       num(e, API_F_WORKER), "-", busy);
		shown++;
	}
	if (shown == 0)
		printf("(no rx queue is enabled)\n");
	if (off > 0)
		printf("(%d rx queue%s no pod enabled: `podwirectl queue list` shows them)\n", off,
		       off == 1 ? "" : "s");
}

static void render(const cJSON *a, const cJSON *b, const cJSON *qa, const cJSON *qb, double dt,
		   double interval, bool tty)
{
	const cJSON *ports = cJSON_GetObjectItemCaseSensitive(b, API_R_PORTS);
	const cJSON *wa = cJSON_GetObjectItemCaseSensitive(a, API_R_WORKERS);
	const cJSON *wb = cJSON_GetObjectItemCaseSensitive(b, API_R_WORKERS);
	const cJSON *p, *w;
	char clock[16];
	time_t t = time(NULL);
	int i = 0;

	strftime(clock, sizeof(clock), "%H:%M:%S", localtime(&t));
	if (tty)
		fputs("\033[H\033[2J", stdout);
	printf("podwirectl top: rates over %.1f s (every %.1f s)%s  %s\n\n", dt, interval,
	       tty ? (qb != NULL ? ", r: hide rx queues, q to quit" : ", r: rx queues, q to quit")
		   : "",
	       clock);
	printf("%-20s %12s %10s %12s %10s %10s %10s  %s\n", "PORT", "RX-PPS", "RX-MBIT/S", "TX-PPS",
	       "TX-MBIT/S", "DROPS/S", "KDROPS/S", "DROPS/S BY REASON");
	cJSON_ArrayForEach (p, ports) {
		const char *name = api_get_str(p, API_F_NAME, "?");
		const cJSON *q = find_named(cJSON_GetObjectItemCaseSensitive(a, API_R_PORTS), name);
		const cJSON *d, *da;
		double drops = 0;
		char reasons[256] = "", kdrops[16] = "-";
		size_t off = 0;

		if (q == NULL) {
			printf("%-20s %12s %10s %12s %10s %10s %10s  (new)\n", name, "-", "-", "-",
			       "-", "-", "-");
			continue;
		}
		/* Frames the kernel dropped before podwired saw them; "-" for
		 * kinds that read through no kernel socket. */
		if (cJSON_IsNumber(cJSON_GetObjectItemCaseSensitive(p, API_R_KERNEL_DROPS)))
			snprintf(kdrops, sizeof(kdrops), "%.0f",
				 rate(num(p, API_R_KERNEL_DROPS), num(q, API_R_KERNEL_DROPS), dt));
		da = cJSON_GetObjectItemCaseSensitive(q, API_R_DROPS);
		cJSON_ArrayForEach (d, cJSON_GetObjectItemCaseSensitive(p, API_R_DROPS)) {
			double r =
			    rate(cJSON_IsNumber(d) ? d->valuedouble : 0, num(da, d->string), dt);

			drops += r;
			if (r > 0 && off < sizeof(reasons))
				off += (size_t)snprintf(reasons + off, sizeof(reasons) - off,
							"%s%s=%.0f", off ? " " : "", d->string, r);
		}
		printf("%-20s %12.0f %10.1f %12.0f %10.1f %10.0f %10s  %s\n", name,
		       rate(num(p, API_R_RX_PACKETS), num(q, API_R_RX_PACKETS), dt),
		       rate(num(p, API_R_RX_BYTES), num(q, API_R_RX_BYTES), dt) * 8 / 1e6,
		       rate(num(p, API_R_TX_PACKETS), num(q, API_R_TX_PACKETS), dt),
		       rate(num(p, API_R_TX_BYTES), num(q, API_R_TX_BYTES), dt) * 8 / 1e6, drops,
		       kdrops, reasons);
	}
	if (qb != NULL)
		render_queues(qa, qb, dt);
	printf("\n%-8s %6s %7s %10s\n", "WORKER", "LCORE", "BUSY", "SLEEPS/S");
	cJSON_ArrayForEach (w, wb) {
		const cJSON *v = cJSON_GetArrayItem(wa, i);
		double busy = num(w, API_R_BUSY_CYCLES) - num(v, API_R_BUSY_CYCLES);
		double idle = num(w, API_R_IDLE_CYCLES) - num(v, API_R_IDLE_CYCLES);
		char pct[16] = "-";

		if (busy + idle > 0 && busy >= 0)
			snprintf(pct, sizeof(pct), "%.1f%%", 100 * busy / (busy + idle));
		printf("%-8d %6.0f %7s %10.0f\n", i, num(w, API_R_LCORE), pct,
		       rate(num(w, API_R_SLEEPS), num(v, API_R_SLEEPS), dt));
		i++;
	}
	fflush(stdout);
}

static void restore_tty(void)
{
	if (raw)
		tcsetattr(STDIN_FILENO, TCSANOW, &saved);
	raw = false;
}

/* Waits secs, or less when q is typed (returns true) or a signal came;
 * r flips *queues. */
static bool wait_or_quit(double secs, bool *queues)
{
	double end = now_s() + secs;

	while (!stop) {
		double left = end - now_s();
		struct pollfd pfd = {.fd = STDIN_FILENO, .events = POLLIN};
		char ch;

		if (left <= 0)
			return false;
		if (poll(&pfd, raw ? 1 : 0, (int)(left * 1000) + 1) > 0 &&
		    read(STDIN_FILENO, &ch, 1) == 1) {
			if (ch == 'q' || ch == 'Q')
				return true;
			/* Shown from the next refresh on: a rate needs two. */
			if (ch == 'r' || ch == 'R')
				*queues = !*queues;
		}
	}
	return true;
}

int ctl_top(const char *sock, int timeout_ms, int argc, char **argv)
{
	bool tty = isatty(STDOUT_FILENO);
	double interval = 1;
	long count = tty ? 0 : 1;
	struct sigaction sa = {.sa_handler = on_signal};
	struct pw_error err = {0};
	struct pw_client *c;
	cJSON *prev = NULL, *cur = NULL, *qprev = NULL, *qcur = NULL;
	bool queues = false;
	double t_prev = 0;
	int ret = CTL_EXIT_OK;

	for (int i = 0; i < argc; i++) {
		char *end = NULL;

		if (i + 1 < argc && strcmp(argv[i], "--interval") == 0) {
			interval = strtod(argv[++i], &end);
			if (*end != '\0' || !(interval >= 0.1 && interval <= 3600)) {
				fprintf(stderr,
					"podwirectl: error: top: --interval \"%s\": give seconds, "
					"0.1-3600\n",
					argv[i]);
				return CTL_EXIT_USAGE;
			}
		} else if (i + 1 < argc && strcmp(argv[i], "--count") == 0) {
			count = strtol(argv[++i], &end, 10);
			if (*end != '\0' || count < 1) {
				fprintf(stderr,
					"podwirectl: error: top: --count \"%s\": give a number of "
					"refreshes, 1 or more\n",
					argv[i]);
				return CTL_EXIT_USAGE;
			}
		} else if (strcmp(argv[i], "--queues") == 0) {
			queues = true;
		} else {
			fprintf(stderr,
				"podwirectl: error: top: unknown argument \"%s\"\n\nUsage: "
				"podwirectl top %s\n",
				argv[i], CTL_TOP_ARGS);
			return CTL_EXIT_USAGE;
		}
	}
	c = pw_client_connect(sock, timeout_ms, &err);
	if (c == NULL) {
		fprintf(stderr, "podwirectl: error: %s\n", err.message);
		return CTL_EXIT_TRANSPORT;
	}
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	if (tty && isatty(STDIN_FILENO) && tcgetattr(STDIN_FILENO, &saved) == 0) {
		struct termios t = saved;

		t.c_lflag &= (tcflag_t) ~(ICANON | ECHO);
		t.c_cc[VMIN] = 0;
		t.c_cc[VTIME] = 0;
		raw = tcsetattr(STDIN_FILENO, TCSANOW, &t) == 0;
	}
	for (long n = 0; !stop && (count == 0 || n < count);) {
		double t;

		if (pw_client_call(c, API_NAME(STATS_GET), NULL, &cur, &err) != 0) {
			fprintf(stderr, "podwirectl: error: %s\n", err.message);
			ret = err.code == 0 ? CTL_EXIT_TRANSPORT : CTL_EXIT_DAEMON;
			break;
		}
		if (queues && pw_client_call(c, API_NAME(QUEUE_LIST), NULL, &qcur, &err) != 0) {
			fprintf(stderr, "podwirectl: error: %s\n", err.message);
			ret = err.code == 0 ? CTL_EXIT_TRANSPORT : CTL_EXIT_DAEMON;
			break;
		}
		t = now_s();
		if (prev != NULL) {
			render(prev, cur, qprev, qcur, t - t_prev, interval, tty);
			n++;
			if (!tty && (count == 0 || n < count))
				putchar('\n');
		}
		cJSON_Delete(prev);
		prev = cur;
		cur = NULL;
		cJSON_Delete(qprev);
		qprev = qcur;
		qcur = NULL;
		t_prev = t;
		if ((count == 0 || n < count) && wait_or_quit(interval, &queues))
			break;
	}
	restore_tty();
	cJSON_Delete(prev);
	cJSON_Delete(cur);
	cJSON_Delete(qprev);
	pw_client_close(c);
	return ret;
}
