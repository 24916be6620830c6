/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * podwire-placement: how far apart two CPUs are, as the time one cache
 * line takes to go from one to the other and back. Two threads, one on
 * each CPU, hand a counter to each other ROUNDTRIPS times.
 *
 * Why: this VM's two vCPUs move between placements on the host. In one a
 * round trip takes ~55 ns; in the other ~320 ns, and every memif or
 * vhost-user frame, which crosses between the generator's core and the
 * forwarder's twice, costs 3-4 times as much, whatever the forwarder.
 * perf/suite.sh probes before and after each measurement and measures
 * again what ran in the slow placement, so that compared runs are made
 * under the same conditions.
 *
 *   podwire-placement CPU_A CPU_B [ROUNDTRIPS]     (JSON on stdout)
 */
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static uint64_t line[8] __attribute__((aligned(64)));
static long trips = 100000;

static int pin(long cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET((int)cpu, &set);
	return pthread_setaffinity_np(pthread_self(), sizeof(set), &set);
}

/* Waits for odd values and answers with the next even one. */
static void *answer(void *arg)
{
	long cpu = (long)arg;

	if (pin(cpu) != 0) {
		__atomic_store_n(&line[1], 2, __ATOMIC_RELEASE);
		return NULL;
	}
	__atomic_store_n(&line[1], 1, __ATOMIC_RELEASE);
	for (long i = 0; i < trips; i++) {
		while (__atomic_load_n(&line[0], __ATOMIC_ACQUIRE) != (uint64_t)(2 * i + 1))
			;
		__atomic_store_n(&line[0], (uint64_t)(2 * i + 2), __ATOMIC_RELEASE);
	}
	return NULL;
}

static int parse_long(const char *what, const char *s, long min, long max, long *out)
{
	char *e;

	errno = 0;
	*out = strtol(s, &e, 10);
	if (errno != 0 || e == s || *e != '\0' || *out < min || *out > max) {
		fprintf(stderr, "podwire-placement: %s \"%s\": give an integer in %ld..%ld\n", what,
			s, min, max);
		return -1;
	}
	return 0;
}

int main(int argc, char **argv)
{
	struct timespec t0, t1;
	long a, b;
	pthread_t th;
	uint64_t ready;
	double ns;

	if (argc < 3 || argc > 4) {
		fprintf(stderr, "usage: podwire-placement CPU_A CPU_B [ROUNDTRIPS]\n");
		return 2;
	}
	if (parse_long("CPU_A", argv[1], 0, CPU_SETSIZE - 1, &a) < 0 ||
	    parse_long("CPU_B", argv[2], 0, CPU_SETSIZE - 1, &b) < 0 ||
	    (argc == 4 && parse_long("ROUNDTRIPS", argv[3], 1, 100000000, &trips) < 0))
		return 2;
	if (a == b) {
		fprintf(stderr, "podwire-placement: CPU_A and CPU_B are both %ld: give two CPUs\n",
			a);
		return 2;
	}
	if (pin(a) != 0) {
		fprintf(stderr, "podwire-placement: cannot run on CPU %ld\n", a);
		return 1;
	}
	if (pthread_create(&th, NULL, answer, (void *)b) != 0) {
		fprintf(stderr, "podwire-placement: cannot start a thread\n");
		return 1;
	}
	/* line[1]: 1 once the other thread runs on CPU_B, 2 if it cannot. */
	while ((ready = __atomic_load_n(&line[1], __ATOMIC_ACQUIRE)) == 0)
		;
	if (ready == 2) {
		pthread_join(th, NULL);
		fprintf(stderr, "podwire-placement: cannot run on CPU %ld\n", b);
		return 1;
	}
	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (long i = 0; i < trips; i++) {
		__atomic_store_n(&line[0], (uint64_t)(2 * i + 1), __ATOMIC_RELEASE);
		while (__atomic_load_n(&line[0], __ATOMIC_ACQUIRE) != (uint64_t)(2 * i + 2))
			;
	}
	clock_gettime(CLOCK_MONOTONIC, &t1);
	pthread_join(th, NULL);
	ns = (double)(t1.tv_sec - t0.tv_sec) * 1e9 + (double)(t1.tv_nsec - t0.tv_nsec);
	printf("{\"cpus\": [%ld, %ld], \"round_trips\": %ld, \"round_trip_ns\": %.1f}\n", a, b,
	       trips, ns / (double)trips);
	return 0;
}
