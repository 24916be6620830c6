/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Unit tests of ports/doorbell.c: a write to a pod's eventfd is bounded
 * whatever the pod did to it (cleared O_NONBLOCK and filled the counter),
 * and reaches an eventfd that can take it.
 */
#include <signal.h>
#include <stdint.h>
#include <sys/eventfd.h>
#include <time.h>
#include <unistd.h>

#include "ports/doorbell.h"
#include "unit.h"

static timer_t guard;

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* A counter that can take it: one write, the counter is 1. */
static void test_ring_delivers(void)
{
	int fd = eventfd(0, EFD_NONBLOCK);
	uint64_t v = 0;

	CU_ASSERT_FATAL(fd >= 0);
	CU_ASSERT(doorbell_ring(guard, fd));
	ASSERT_INT_EQ(read(fd, &v, sizeof(v)), (int)sizeof(v));
	ASSERT_INT_EQ(v, 1);
	close(fd);
}

/* A blocking eventfd whose counter is full: the write would wait for a
 * reader forever; the doorbell gives up after its timeout. */
static void test_ring_bounded(void)
{
	int fd = eventfd(0, 0);
	uint64_t full = UINT64_MAX - 1;
	double t0, took;

	CU_ASSERT_FATAL(fd >= 0);
	ASSERT_INT_EQ(write(fd, &full, sizeof(full)), (int)sizeof(full));
	t0 = now_s();
	CU_ASSERT(!doorbell_ring(guard, fd));
	took = now_s() - t0;
	/* One timeout (20 ms), with room for a slow machine; without the
	 * guard the call never returns and the test runner's timeout ends
	 * the test. */
	CU_ASSERT(took < 2.0);
	/* Again: the timer was disarmed and rearms. */
	CU_ASSERT(!doorbell_ring(guard, fd));
	close(fd);
}

int main(void)
{
	static const struct unit_test tests[] = {
	    {"doorbell: delivers to an eventfd that takes it", test_ring_delivers},
	    {"doorbell: a write a pod made block is given up", test_ring_bounded},
	    {NULL, NULL},
	};

	if (doorbell_signal_init(SIGRTMIN + 6) != 0 || doorbell_timer(SIGRTMIN + 6, &guard) != 0) {
		perror("doorbell");
		return 2;
	}
	return unit_run("doorbell", tests);
}
