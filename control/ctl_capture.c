/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * podwirectl capture: asks podwired for capture.start and copies the
 * pcapng stream that follows the answer to a file or stdout, block by
 * block, so what is written is always a whole, readable file. Ctrl-C (or
 * SIGTERM) asks podwired to end the capture: it sends its last frames and
 * the statistics blocks, then closes; a second Ctrl-C quits at once.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include "api.h"
#include "client.h"
#include "ctl.h"
#include "ctl_table.h"

static volatile sig_atomic_t interrupted;

static void on_signal(int sig)
{
	(void)sig;
	interrupted++;
}

static int usage_err(cJSON *params, const char *fmt, const char *a)
{
	cJSON_Delete(params);
	fprintf(stderr, "podwirectl: error: capture: ");
	fprintf(stderr, fmt, a);
	fprintf(stderr, "\n\nUsage: podwirectl capture %s\n", CTL_CAPTURE_ARGS);
	return CTL_EXIT_USAGE;
}

/* Writes all of it; -errno on failure. */
static int write_all(int fd, const uint8_t *p, size_t n)
{
	while (n != 0) {
		ssize_t w = write(fd, p, n);

		if (w < 0 && errno == EINTR)
			continue;
		if (w < 0)
			return -errno;
		p += w;
		n -= (size_t)w;
	}
	return 0;
}

struct stream {
	uint8_t *buf;
	size_t len, cap;
	uint64_t frames, bytes, skipped;
	uint64_t if_frames[API_CAPTURE_PORTS];
	unsigned int n_if;
	bool section;
};

static uint32_t u32(const uint8_t *p)
{
	uint32_t v;

	memcpy(&v, p, 4);
	return v;
}

/* The skipped count of an Interface Statistics Block (isb_ifdrop). */
static uint64_t isb_drops(const uint8_t *b, uint32_t len)
{
	uint32_t off = 20;

	while (off + 4 <= len - 4) {
		uint16_t code, olen;
		uint64_t v;

		memcpy(&code, b + off, 2);
		memcpy(&olen, b + off + 2, 2);
		if (code == 0)
			break;
		if (code == 5 && olen == 8) {
			memcpy(&v, b + off + 4, 8);
			return v;
		}
		off += 4 + ((olen + 3u) & ~3u);
	}
	return 0;
}

/* Writes every whole block in s to out. -EPROTO when the stream is not
 * pcapng, -errno when out fails. */
static int blocks_out(struct stream *s, int out)
{
	size_t off = 0;
	int rc = 0;

	while (s->len - off >= 12) {
		const uint8_t *b = s->buf + off;
		uint32_t type = u32(b), len = u32(b + 4);

		if (!s->section && (type != 0x0A0D0D0A || u32(b + 8) != 0x1A2B3C4D))
			return -EPROTO;
		if (len < 12 || len % 4 != 0 || len > (64u << 20))
			return -EPROTO;
		if (s->len - off < len)
			break;
		s->section = true;
		if (type == 1)
			s->n_if++;
		if (type == 6) {
			uint32_t ifid = u32(b + 8);

			s->frames++;
			s->bytes += u32(b + 20);
			if (ifid < API_CAPTURE_PORTS)
				s->if_frames[ifid]++;
		}
		if (type == 5)
			s->skipped += isb_drops(b, len);
		rc = write_all(out, b, len);
		if (rc != 0)
			break;
		off += len;
	}
	memmove(s->buf, s->buf + off, s->len - off);
	s->len -= off;
	return rc;
}

static int stream_add(struct stream *s, const void *p, size_t n)
{
	if (s->len + n > s->cap) {
		size_t cap = s->cap ? s->cap : 1 << 20;
		uint8_t *b;

		while (cap < s->len + n)
			cap *= 2;
		b = realloc(s->buf, cap);
		if (b == NULL)
			return -ENOMEM;
		s->buf = b;
		s->cap = cap;
	}
	memcpy(s->buf + s->len, p, n);
	s->len += n;
	return 0;
}

/* The output: "-" is stdout. A file that exists is truncated only once
 * podwired has accepted the capture; one made here is removed when it
 * refuses, so a refused capture leaves everything as it was. */
static int open_out(const char *path, bool *created)
{
	int fd;

	*created = false;
	if (strcmp(path, "-") == 0)
		return STDOUT_FILENO;
	fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
	if (fd >= 0) {
		*created = true;
		return fd;
	}
	if (errno == EEXIST)
		fd = open(path, O_WRONLY | O_CLOEXEC);
	return fd;
}

int ctl_capture(const char *sock, int timeout_ms, int argc, char **argv)
{
	cJSON *params = cJSON_CreateObject();
	char ports[API_CAPTURE_PORTS * 80] = "";
	size_t n_ports = 0, off = 0;
	cJSON *result = NULL;
	const char *path = NULL;
	struct pw_error err = {0};
	struct stream s = {0};
	struct sigaction sa = {.sa_handler = on_signal};
	struct pw_client *c;
	bool created, quiet = false, asked = false;
	char *rest = NULL;
	size_t rest_len = 0;
	int fd, out, ret = CTL_EXIT_OK, rc = 0;
	struct stat st;

	for (int i = 0; i < argc; i++) {
		static const struct {
			const char *name, *field;
			bool number;
		} opts[] = {{"--direction", API_F_DIRECTION, false},
			    {"--count", API_F_COUNT, true},
			    {"--duration", API_F_DURATION, true},
			    {"--snaplen", API_F_SNAPLEN, true},
			    {"--filter", API_F_FILTER, false}};
		const char *a = argv[i];
		bool known = false;

		if (strcmp(a, "-w") == 0 || strcmp(a, "--write") == 0) {
			if (i + 1 >= argc)
				return usage_err(params, "%s needs a FILE (or - for stdout)", a);
			path = argv[++i];
			continue;
		}
		if (strcmp(a, "-q") == 0 || strcmp(a, "--quiet") == 0) {
			quiet = true;
			continue;
		}
		for (size_t k = 0; k < sizeof(opts) / sizeof(opts[0]); k++) {
			char *end;
			long v;

			if (strcmp(a, opts[k].name) != 0)
				continue;
			known = true;
			if (i + 1 >= argc)
				return usage_err(params, "%s needs a value", a);
			a = argv[++i];
			if (!opts[k].number) {
				cJSON_AddStringToObject(params, opts[k].field, a);
				break;
			}
			errno = 0;
			v = strtol(a, &end, 10);
			if (errno != 0 || end == a || *end != '\0' || v < INT_MIN || v > INT_MAX)
				return usage_err(params, "\"%s\" is not a number", a);
			cJSON_AddNumberToObject(params, opts[k].field, (double)v);
			break;
		}
		if (known)
			continue;
		if (a[0] == '-' && a[1] != '\0')
			return usage_err(params, "unknown option \"%s\"", a);
		if (strchr(a, ',') != NULL || off + strlen(a) + 2 > sizeof(ports))
			return usage_err(params, "\"%s\": give each PORT as a word of its own", a);
		off +=
		    (size_t)snprintf(ports + off, sizeof(ports) - off, "%s%s", off ? "," : "", a);
		n_ports++;
	}
	if (n_ports == 0)
		return usage_err(params, "%sname at least one PORT", "");
	cJSON_AddStringToObject(params, API_F_PORTS, ports);
	if (path == NULL)
		return usage_err(params, "%s-w FILE is required (- for stdout)", "");
	out = open_out(path, &created);
	if (out < 0) {
		fprintf(stderr,
			"podwirectl: error: capture: -w %s: cannot write it: %s; give a path in a "
			"directory you may write, or - for stdout\n",
			path, strerror(errno));
		cJSON_Delete(params);
		return CTL_EXIT_USAGE;
	}
	c = pw_client_connect(sock, timeout_ms, &err);
	if (c == NULL || pw_client_call(c, API_NAME(CAPTURE_START), params, &result, &err) != 0) {
		if (c == NULL)
			cJSON_Delete(params);
		pw_client_close(c);
		fprintf(stderr, "podwirectl: error: %s\n", err.message);
		if (created)
			unlink(path);
		if (out != STDOUT_FILENO)
			close(out);
		return err.code == 0 ? CTL_EXIT_TRANSPORT : CTL_EXIT_DAEMON;
	}
	/* A regular file is emptied; a device (/dev/null) or a FIFO is not. */
	if (!created && out != STDOUT_FILENO && fstat(out, &st) == 0 && S_ISREG(st.st_mode) &&
	    ftruncate(out, 0) != 0) {
		fprintf(stderr, "podwirectl: error: capture: -w %s: %s\n", path, strerror(errno));
		return CTL_EXIT_USAGE;
	}
	if (!quiet) {
		const cJSON *p;

		fprintf(stderr, "podwirectl: capture %ld on", api_get_int(result, API_R_ID, 0));
		cJSON_ArrayForEach (p, cJSON_GetObjectItemCaseSensitive(result, API_F_PORTS))
			fprintf(stderr, " %s", api_get_str(p, API_F_NAME, "?"));
		fprintf(stderr, " (%s%s%s) to %s; Ctrl-C to stop\n",
			api_get_str(result, API_F_DIRECTION, ""),
			api_get_str(result, API_F_FILTER, "")[0] ? ", filter " : "",
			api_get_str(result, API_F_FILTER, ""), path);
	}
	cJSON_Delete(result);
	fd = pw_client_take_stream(c, &rest, &rest_len);
	if (rest != NULL && stream_add(&s, rest, rest_len) != 0)
		rc = -ENOMEM;
	free(rest);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);
	while (rc == 0) {
		struct pollfd pfd = {.fd = fd, .events = POLLIN};
		uint8_t buf[65536];
		ssize_t n;

		rc = blocks_out(&s, out);
		if (rc != 0)
			break;
		if (interrupted > 1)
			break;
		if (interrupted && !asked) {
			/* The end of our side: podwired finishes the capture. */
			shutdown(fd, SHUT_WR);
			asked = true;
		}
		if (poll(&pfd, 1, -1) < 0 && errno != EINTR) {
			rc = -errno;
			break;
		}
		n = recv(fd, buf, sizeof(buf), MSG_DONTWAIT);
		if (n == 0)
			break;
		if (n < 0) {
			if (errno == EINTR || errno == EAGAIN)
				continue;
			rc = -errno;
			break;
		}
		rc = stream_add(&s, buf, (size_t)n);
	}
	close(fd);
	if (rc == -EPROTO) {
		fprintf(stderr, "podwirectl: error: capture: podwired sent something that is not "
				"pcapng; check its log\n");
		ret = CTL_EXIT_DAEMON;
	} else if (rc == -EPIPE && out == STDOUT_FILENO) {
		/* The reader of stdout went away (head, a closed tshark): done. */
	} else if (rc != 0) {
		fprintf(stderr, "podwirectl: error: capture: %s: %s\n", path, strerror(-rc));
		ret = CTL_EXIT_DAEMON;
	}
	if (out != STDOUT_FILENO && close(out) != 0 && ret == CTL_EXIT_OK) {
		fprintf(stderr, "podwirectl: error: capture: %s: %s\n", path, strerror(errno));
		ret = CTL_EXIT_DAEMON;
	}
	if (!quiet)
		fprintf(stderr,
			"podwirectl: %llu frames (%llu bytes) captured on %u interface(s); %llu "
			"not captured (capture ring full)\n",
			(unsigned long long)s.frames, (unsigned long long)s.bytes, s.n_if,
			(unsigned long long)s.skipped);
	free(s.buf);
	return ret;
}

/* capture.list: what each running capture has done. */
void ctl_print_capture_list(const cJSON *result)
{
	const cJSON *c, *p, *all = ctl_member(result, API_R_CAPTURES);

	if (cJSON_GetArraySize(all) == 0)
		printf("no capture is running\n");
	cJSON_ArrayForEach (c, all) {
		printf("capture %ld: %s, snaplen %ld, filter \"%s\", %.0f s: %llu frames matched, "
		       "%llu skipped (ring full), %llu written (%llu bytes)\n",
		       api_get_int(c, API_R_ID, 0), ctl_str(c, API_F_DIRECTION),
		       api_get_int(c, API_F_SNAPLEN, 0), api_get_str(c, API_F_FILTER, ""),
		       ctl_member(c, API_R_SECONDS) ? ctl_member(c, API_R_SECONDS)->valuedouble : 0,
		       ctl_u64(ctl_member(c, API_R_MATCHED)), ctl_u64(ctl_member(c, API_R_SKIPPED)),
		       ctl_u64(ctl_member(c, API_R_WRITTEN)),
		       ctl_u64(ctl_member(c, API_R_WRITTEN_BYTES)));
		cJSON_ArrayForEach (p, ctl_member(c, API_F_PORTS))
			printf("  interface %ld: %s (%s, network %s): %llu matched, %llu skipped\n",
			       api_get_int(p, API_R_INTERFACE, 0), ctl_str(p, API_F_NAME),
			       ctl_str(p, API_R_KIND), ctl_str(p, API_F_NETWORK),
			       ctl_u64(ctl_member(p, API_R_MATCHED)),
			       ctl_u64(ctl_member(p, API_R_SKIPPED)));
	}
}
