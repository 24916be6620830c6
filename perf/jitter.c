/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * podwire-jitter: how much of a core the machine takes away. It spins on
 * one CPU reading the TSC and counts the gaps between two reads longer
 * than 5, 20 and 100 microseconds (the CPU was taken by an interrupt, the
 * kernel, another task or, in a VM, the hypervisor). No forwarder can
 * deliver every frame faster than such gaps on its core or the
 * generator's, so the suite records this next to its latency figures.
 *
 *   podwire-jitter CPU [SECONDS]     (JSON on stdout)
 */
#include <errno.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <x86intrin.h>

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* TSC ticks per microsecond, measured against CLOCK_MONOTONIC. */
static double tsc_per_us(void)
{
	double t0 = now_s(), t1;
	uint64_t c0 = __rdtsc(), c1;

	do
		t1 = now_s();
	while (t1 - t0 < 0.1);
	c1 = __rdtsc();
	return (double)(c1 - c0) / ((t1 - t0) * 1e6);
}

int main(int argc, char **argv)
{
	static const unsigned int limits_us[] = {5, 20, 100};
	uint64_t gaps[3] = {0}, stalled = 0, max_gap = 0, last, end;
	double seconds = 1, per_us;
	cpu_set_t set;
	char *e;
	long cpu;

	if (argc < 2 || argc > 3) {
		fprintf(stderr, "usage: podwire-jitter CPU [SECONDS]\n");
		return 2;
	}
	errno = 0;
	cpu = strtol(argv[1], &e, 10);
	if (errno != 0 || *e != '\0' || cpu < 0 || cpu >= CPU_SETSIZE) {
		fprintf(stderr, "podwire-jitter: CPU \"%s\": give a CPU number (0-%d)\n", argv[1],
			CPU_SETSIZE - 1);
		return 2;
	}
	if (argc == 3 && ((seconds = strtod(argv[2], &e)) <= 0 || *e != '\0' || seconds > 3600)) {
		fprintf(stderr, "podwire-jitter: SECONDS \"%s\": give a number in (0, 3600]\n",
			argv[2]);
		return 2;
	}
	CPU_ZERO(&set);
	CPU_SET((int)cpu, &set);
	if (sched_setaffinity(0, sizeof(set), &set) != 0) {
		fprintf(stderr, "podwire-jitter: cannot run on CPU %ld: %s\n", cpu,
			errno == EINVAL ? "no such CPU" : "sched_setaffinity failed");
		return 1;
	}
	per_us = tsc_per_us();
	last = __rdtsc();
	end = last + (uint64_t)(seconds * 1e6 * per_us);
	while (last < end) {
		uint64_t t = __rdtsc(), d = t - last;

		if (d > (uint64_t)(limits_us[0] * per_us)) {
			stalled += d;
			for (unsigned int i = 0; i < 3; i++)
				gaps[i] += d > (uint64_t)(limits_us[i] * per_us);
			if (d > max_gap)
				max_gap = d;
		}
		last = t;
	}
	printf("{\"cpu\": %ld, \"seconds\": %g, \"gaps_over_5us\": %lu, \"gaps_over_20us\": %lu, "
	       "\"gaps_over_100us\": %lu, \"stalled_fraction\": %.6f, \"max_gap_us\": %.1f}\n",
	       cpu, seconds, (unsigned long)gaps[0], (unsigned long)gaps[1], (unsigned long)gaps[2],
	       (double)stalled / (seconds * 1e6 * per_us), (double)max_gap / per_us);
	return 0;
}
