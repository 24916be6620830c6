/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * What belongs to whom across threads and event batches: an API client
 * evicted while an event of its is still to be handled in the same
 * epoll batch is freed only after the batch, and making a worker's state
 * leaves the calling thread's worker id alone. EAL runs without
 * hugepages.
 */
#include <errno.h>
#include <pthread.h>
#include <sys/epoll.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/un.h>

#include <limits.h>

#include <rte_malloc.h>

#include "api/server.h"
#include "core/loop.h"
#include "datapath/observe.h"
#include "dp_harness.h"

/* ---- API server: eviction with the evicted client's event pending ---------- */

/* Runs the control loop until nothing is ready: each batch dispatched in
 * order, then the housekeeping that follows a batch. */
static unsigned int pump(int timeout_ms)
{
	unsigned int total = 0;
	int n;

	while ((n = loop_run_once(timeout_ms)) > 0) {
		api_server_housekeeping();
		total += (unsigned int)n;
		timeout_ms = 0;
	}
	return total;
}

static int client_connect(const char *path)
{
	struct sockaddr_un sa = {.sun_family = AF_UNIX};
	int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);

	snprintf(sa.sun_path, sizeof(sa.sun_path), "%s", path);
	if (fd >= 0 && connect(fd, (struct sockaddr *)&sa, sizeof(sa)) != 0) {
		close(fd);
		return -1;
	}
	return fd;
}

/* What the server sent to fd so far (waits up to wait_ms for something):
 * the text, "" for nothing, "closed" for a connection closed with nothing
 * (a unix socket closed with unread data resets its peer). */
static void client_answer(int fd, char *buf, size_t len, int wait_ms)
{
	struct timeval tv = {.tv_sec = 0, .tv_usec = wait_ms * 1000};
	ssize_t r;

	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	r = recv(fd, buf, len - 1, 0);
	if (r > 0)
		buf[r] = '\0';
	else
		snprintf(buf, len, "%s", r == 0 || errno == ECONNRESET ? "closed" : "");
}

/*
 * The table full, a new client arrives and the client idle longest sends a
 * request in the same moment: one epoll batch holds the listening socket
 * first and the idle client's data second. Accepting evicts the idle
 * client; its event, still in the batch, must find it (closed, not freed)
 * rather than freed memory (ASan: heap-use-after-free before the fix).
 */
static void test_evicted_client_with_event_pending(void)
{
	const unsigned int max = API_SERVER_CLIENTS_MAX;
	struct rlimit rl;
	char path[108], buf[4096];
	int *fds = calloc(max, sizeof(int)), idle, fresh;
	unsigned int n = 0;

	CU_ASSERT_FATAL(fds != NULL);
	/* Both ends of every client: twice the table, and some. */
	getrlimit(RLIMIT_NOFILE, &rl);
	if (rl.rlim_max < 2 * max + 64) {
		fprintf(stderr, "SKIP: needs %u open files, the hard limit is %llu\n", 2 * max + 64,
			(unsigned long long)rl.rlim_max);
		free(fds);
		return;
	}
	rl.rlim_cur = 2 * max + 64;
	CU_ASSERT_FATAL(setrlimit(RLIMIT_NOFILE, &rl) == 0);
	snprintf(path, sizeof(path), "/tmp/pwunit-api-%d.sock", (int)getpid());
	CU_ASSERT_FATAL(loop_init() == 0);
	CU_ASSERT_FATAL(api_server_open(path, (gid_t)-1) == 0);

	/* The first client is the one idle longest. */
	fds[n] = client_connect(path);
	CU_ASSERT_FATAL(fds[n] >= 0);
	n++;
	pump(100);
	usleep(5000);
	/* The rest, a listen backlog's worth at a time. */
	while (n < max) {
		for (unsigned int k = 0; k < 32 && n < max; k++, n++) {
			fds[n] = client_connect(path);
			CU_ASSERT_FATAL(fds[n] >= 0);
		}
		pump(0);
	}
	pump(10);
	idle = fds[0];

	/* The new client's connection is ready before the idle client's
	 * request: epoll lists them in that order, in one batch. */
	fresh = client_connect(path);
	CU_ASSERT_FATAL(fresh >= 0);
	CU_ASSERT(send(fresh, "fresh\n", 6, MSG_NOSIGNAL) == 6);
	CU_ASSERT(send(idle, "idle\n", 5, MSG_NOSIGNAL) == 5);
	ASSERT_INT_EQ(loop_run_once(1000), 2);
	api_server_housekeeping();
	/* The idle client's event went to nobody else: the new client (whose
	 * memory may be the evicted one's, reused) is read in the next batch,
	 * not in this one, where it had no event. */
	client_answer(fresh, buf, sizeof(buf), 50);
	ASSERT_STR_EQ(buf, "");
	/* The idle client was closed, its request unread. */
	client_answer(idle, buf, sizeof(buf), 1000);
	ASSERT_STR_EQ(buf, "closed");
	/* The new one is served. */
	pump(100);
	client_answer(fresh, buf, sizeof(buf), 1000);
	ASSERT_CONTAINS(buf, "not valid JSON");
	/* And so is every other. */
	CU_ASSERT(send(fds[max - 1], "last\n", 5, MSG_NOSIGNAL) == 5);
	pump(100);
	client_answer(fds[max - 1], buf, sizeof(buf), 1000);
	ASSERT_CONTAINS(buf, "not valid JSON");

	for (unsigned int i = 0; i < max; i++)
		close(fds[i]);
	close(fresh);
	pump(100);
	api_server_close();
	free(fds);
}

/* ---- worker_new and the calling thread's worker id ---------------------------- */

static void *thread_worker_id(void *arg)
{
	*(unsigned int *)arg = RTE_PER_LCORE(dp_worker_id);
	return NULL;
}

/* Making a worker's state says nothing about the thread that makes it:
 * podwired's main thread made every worker and was left with the last
 * one's id (and a port kind's drops it captured went to that worker's
 * single-producer ring). */
static void test_worker_new_keeps_callers_id(void)
{
	unsigned int before = RTE_PER_LCORE(dp_worker_id), other = 0;
	struct worker *w = worker_new(3, 0, pw_mbuf_pool);
	pthread_t t;

	CU_ASSERT_FATAL(w != NULL);
	ASSERT_INT_EQ(RTE_PER_LCORE(dp_worker_id), before);
	rte_free(w);
	/* A thread that is no worker has no worker's id. */
	CU_ASSERT_FATAL(pthread_create(&t, NULL, thread_worker_id, &other) == 0);
	pthread_join(t, NULL);
	ASSERT_INT_EQ(other, DP_NO_WORKER);
}

int main(void)
{
	static const struct unit_test tests[] = {
	    {"API client evicted with an event pending", test_evicted_client_with_event_pending},
	    {"worker_new keeps the caller's worker id", test_worker_new_keeps_callers_id},
	    {NULL, NULL},
	};
	int rc;

	dp_harness_init(1);
	rc = unit_run("ownership", tests);
	dp_harness_fini();
	return rc;
}
