/* SPDX-License-Identifier: BSD-3-Clause */
/* podwire-bench's options: what they are, their defaults, and parsing
 * them (after the EAL's) with a clear refusal naming the bad one. */
#ifndef PODWIRE_BENCH_OPTS_H
#define PODWIRE_BENCH_OPTS_H

#include <stdbool.h>
#include <stdint.h>

#define MAX_PODS	 1024
#define BENCH_MAX_QUEUES 16u

struct bench_opts {
	uint16_t size;	    /* 0 = IMIX */
	unsigned int flows; /* per queue */
	unsigned int macs;
	uint16_t queues; /* queue pairs per pod */
	double rate;	 /* aggregate offered pps; 0 = as fast as possible */
	double duration;
	double warmup;
	bool ndr;
	double ndr_trial;
	double ndr_resolution; /* fraction of the top rate */
	bool json;
	uint16_t ring;
	bool reconnect;
	const char *events;
	double gap_ms;
	/* --memif SOCKET[,mac=MAC]: pods of podwire-bench's own memif client. */
	const char *memif[MAX_PODS];
	uint16_t n_memif;
	/* --vhost SOCKET[,mac=MAC]: pods of podwire-bench's own vhost-user frontend. */
	const char *vhost[MAX_PODS];
	uint16_t n_vhost;
};

extern struct bench_opts opt;

/* Parses argv (argv[0] the program) into opt; 0, or -EINVAL with the
 * reason on stderr. */
int bench_opts_parse(int argc, char **argv);

#endif
