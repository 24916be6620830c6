/* SPDX-License-Identifier: BSD-3-Clause */
/* Unit tests of perf/bench_memif.c's connection: podwire-bench's memif
 * client against a scripted server in a child process that is not
 * serving yet the way DPDK 22.11's net_memif is not (a socket not
 * listening, "ID not found" until its port is started, a hang-up), then
 * serves; and against no socket or one that will never suit it. */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>

#include "bench_memif.h"
#include "memif/memif.h"
#include "unit.h"

#define LOG2 6 /* 64 slots */
#define BUF  2048

/* What the server does with one connection. */
enum act {
	SERVE,	     /* the whole handshake, then waits for the client to leave */
	REFUSE_ID,   /* HELLO; on INIT, DISCONNECT "ID not found" and close (net_memif before start)
		      */
	HANG_UP,     /* HELLO; on INIT, close */
	SMALL_RINGS, /* HELLO offering rings of at most 2^2 slots: never suits us */
};

struct script {
	unsigned int deaf_ms; /* bound but not listening for this long */
	enum act acts[8];     /* one per connection; the last repeats */
	unsigned int n_acts;
};

struct server {
	pid_t pid;
	int conns; /* read end: "L" once listening, then "c" per connection accepted */
};

static char dir[64], path[96];

static uint64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

static void recv_one(int fd, struct memif_msg *m)
{
	char why[128];
	int got = -1;
	struct pollfd p = {.fd = fd, .events = POLLIN};

	memset(m, 0, sizeof(*m));
	if (poll(&p, 1, 5000) == 1 && memif_msg_recv(fd, m, &got, why, sizeof(why)) == 1 &&
	    got >= 0)
		close(got);
}

static void act_on(int fd, enum act a)
{
	struct memif_msg m;

	memif_msg_hello(&m, "fake");
	if (a == SMALL_RINGS)
		m.hello.max_log2_ring_size = 2;
	memif_msg_send(fd, &m, -1);
	recv_one(fd, &m); /* INIT */
	switch (a) {
	case REFUSE_ID:
		memif_msg_disconnect(&m, 0, "ID not found");
		memif_msg_send(fd, &m, -1);
		return;
	case HANG_UP:
		return;
	case SMALL_RINGS:
		recv_one(fd, &m); /* what a client that went on would send */
		return;
	case SERVE:
		break;
	}
	for (int i = 0; i < 4; i++) {
		memif_msg_simple(&m, MEMIF_MSG_ACK);
		memif_msg_send(fd, &m, -1);
		recv_one(fd, &m); /* ADD_REGION, ADD_RING x2, CONNECT */
	}
	memif_msg_connect(&m, MEMIF_MSG_CONNECTED, "fake");
	memif_msg_send(fd, &m, -1);
	recv_one(fd, &m); /* the client's DISCONNECT when it closes */
}

static void server_main(const struct script *s, int conns)
{
	struct sockaddr_un sa = {.sun_family = AF_UNIX};
	int lfd, fd;

	snprintf(sa.sun_path, sizeof(sa.sun_path), "%s", path);
	lfd = socket(AF_UNIX, SOCK_SEQPACKET, 0);
	if (lfd < 0 || bind(lfd, (struct sockaddr *)&sa, sizeof(sa)) != 0)
		_exit(2);
	usleep(s->deaf_ms * 1000);
	if (listen(lfd, 1) != 0 || write(conns, "L", 1) != 1)
		_exit(2);
	for (unsigned int i = 0;; i++) {
		fd = accept(lfd, NULL, NULL);
		if (fd < 0)
			_exit(2);
		if (write(conns, "c", 1) != 1)
			_exit(2);
		act_on(fd, s->acts[i < s->n_acts ? i : s->n_acts - 1]);
		close(fd);
	}
}

static struct server server_start(const struct script *s)
{
	struct server sv = {.pid = -1, .conns = -1};
	int p[2];

	unlink(path);
	CU_ASSERT_FATAL(pipe2(p, O_CLOEXEC) == 0);
	sv.pid = fork();
	CU_ASSERT_FATAL(sv.pid >= 0);
	if (sv.pid == 0) {
		close(p[0]);
		server_main(s, p[1]);
	}
	close(p[1]);
	sv.conns = p[0];
	return sv;
}

/* Waits until the server listens. */
static void server_listening(struct server *sv)
{
	char c = 0;

	CU_ASSERT_FATAL(read(sv->conns, &c, 1) == 1 && c == 'L');
}

/* Stops the server; returns how many connections it accepted. */
static int server_stop(struct server *sv)
{
	char b[64];
	ssize_t r;
	int n = 0;

	kill(sv->pid, SIGKILL);
	waitpid(sv->pid, NULL, 0);
	while ((r = read(sv->conns, b, sizeof(b))) > 0)
		for (ssize_t i = 0; i < r; i++)
			n += b[i] == 'c';
	close(sv->conns);
	unlink(path);
	return n;
}

/* The socket of a switch starting: not listening, then twice "ID not
 * found", then a hang-up, then served. Before bench_memif_open tried
 * again, the first refusal ended it. */
static void test_waits_for_a_starting_switch(void)
{
	static const struct script s = {
	    .deaf_ms = 100, .acts = {REFUSE_ID, REFUSE_ID, HANG_UP, SERVE}, .n_acts = 4};
	struct server sv = server_start(&s);
	struct stat st;
	char err[512];
	uint64_t t0, took;
	struct bench_memif *m;

	/* Bound, not listening yet (no socket at all is not waited for). */
	for (int i = 0; i < 5000 && stat(path, &st) != 0; i++)
		usleep(1000);
	t0 = now_ms();
	m = bench_memif_open(path, LOG2, BUF, 5000, err, sizeof(err));
	took = now_ms() - t0;

	unit_check(m != NULL, __LINE__, __FILE__, "not connected: %s", err);
	if (m != NULL) {
		CU_ASSERT_TRUE(bench_memif_up(m));
		ASSERT_CONTAINS(err, "the switch was not serving it yet");
	}
	bench_memif_close(m);
	ASSERT_INT_EQ(server_stop(&sv), 4);
	unit_check(took < 2000, __LINE__, __FILE__, "took %llu ms", (unsigned long long)took);
}

/* Refusals and hang-ups count as "not serving yet" only while the wait
 * lasts: then the error names the first and the last. */
static void test_gives_up_after_the_wait(void)
{
	static const struct script s = {.acts = {REFUSE_ID}, .n_acts = 1};
	struct server sv = server_start(&s);
	char err[512];
	uint64_t t0, took;
	struct bench_memif *m;
	int conns;

	server_listening(&sv);
	t0 = now_ms();
	m = bench_memif_open(path, LOG2, BUF, 300, err, sizeof(err));
	took = now_ms() - t0;

	CU_ASSERT_PTR_NULL(m);
	bench_memif_close(m);
	conns = server_stop(&sv);
	ASSERT_CONTAINS(err, "not served after");
	ASSERT_CONTAINS(err, "(the first: the switch disconnected: ID not found)");
	unit_check(conns >= 3 && took >= 300 && took < 1500, __LINE__, __FILE__,
		   "%d connections in %llu ms", conns, (unsigned long long)took);
}

/* No wait (the outage loop, which has its own back-off): one try, and the
 * switch's reason, not "Broken pipe" (the rest of the announce hits the
 * socket it closed) nor "connection reset" (it closed before reading it
 * all). */
static void test_no_wait_is_one_try(void)
{
	static const struct script s = {.acts = {REFUSE_ID}, .n_acts = 1};
	struct server sv = server_start(&s);
	char err[512];
	struct bench_memif *m;

	server_listening(&sv);
	m = bench_memif_open(path, LOG2, BUF, 0, err, sizeof(err));
	CU_ASSERT_PTR_NULL(m);
	bench_memif_close(m);
	ASSERT_INT_EQ(server_stop(&sv), 1);
	ASSERT_STR_EQ(err, "the switch disconnected: ID not found");
}

/* No socket: a wrong path, most likely, said at once. */
static void test_no_socket_is_said_at_once(void)
{
	char err[512];
	uint64_t t0 = now_ms();
	struct bench_memif *m;

	unlink(path);
	m = bench_memif_open(path, LOG2, BUF, 5000, err, sizeof(err));
	CU_ASSERT_PTR_NULL(m);
	CU_ASSERT_TRUE(now_ms() - t0 < 1000);
	bench_memif_close(m);
	ASSERT_STR_EQ(err, "connect: No such file or directory");
}

/* A switch whose HELLO will never suit us is not asked again. */
static void test_unsuitable_switch_is_not_retried(void)
{
	static const struct script s = {.acts = {SMALL_RINGS}, .n_acts = 1};
	struct server sv = server_start(&s);
	char err[512];
	uint64_t t0;
	struct bench_memif *m;

	server_listening(&sv);
	t0 = now_ms();
	m = bench_memif_open(path, LOG2, BUF, 5000, err, sizeof(err));
	CU_ASSERT_PTR_NULL(m);
	CU_ASSERT_TRUE(now_ms() - t0 < 1000);
	bench_memif_close(m);
	ASSERT_INT_EQ(server_stop(&sv), 1);
	ASSERT_CONTAINS(err, "lower --ring");
}

int main(void)
{
	static const struct unit_test tests[] = {
	    {"a starting switch: deaf, refusing, hanging up, then serving",
	     test_waits_for_a_starting_switch},
	    {"refused for longer than the wait: the error names the first and last",
	     test_gives_up_after_the_wait},
	    {"no wait: one try, the switch's reason", test_no_wait_is_one_try},
	    {"no socket: said at once", test_no_socket_is_said_at_once},
	    {"a switch that never suits is not retried", test_unsuitable_switch_is_not_retried},
	    {NULL, NULL},
	};
	int rc;

	signal(SIGPIPE, SIG_IGN);
	if (!unit_tmpdir(dir, sizeof(dir)))
		return 2;
	snprintf(path, sizeof(path), "%s/memif.sock", dir);
	rc = unit_run("bench_memif", tests);
	unit_rmtree(dir);
	return rc;
}
