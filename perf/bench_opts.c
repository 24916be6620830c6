/* SPDX-License-Identifier: BSD-3-Clause */
/* podwire-bench's options (bench_opts.h). */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "bench_opts.h"
#include "bench_pkt.h"

struct bench_opts opt = {
    .size = 64,
    .flows = 1,
    .macs = 1,
    .queues = 1,
    .duration = 10,
    .warmup = 1,
    .ndr_trial = 5,
    .ndr_resolution = 0.01,
    .ring = 1024,
    .gap_ms = 50,
};

static void usage(const char *prog)
{
	fprintf(stderr,
		"usage: %s [EAL options] -- [options]\n"
		"  every ethdev (e.g. --vdev net_virtio_user0,path=SOCK,mac=MAC) is one pod\n"
		"  --memif SOCK[,mac=MAC]  one more pod: podwire-bench's own memif client of\n"
		"                    the memif server on SOCK (no net_memif: frames are\n"
		"                    written and read in the shared buffers); repeatable\n"
		"  --vhost SOCK[,mac=MAC][,packed][,server]  one more pod: podwire-bench's\n"
		"                    own vhost-user frontend (the driver side, as virtio-user)\n"
		"                    of the vhost-user server on SOCK (server: listens there\n"
		"                    for a client-role switch port): split (or packed) rings\n"
		"                    of --ring descriptors, frames written and read in the\n"
		"                    shared buffers; repeatable; not with --reconnect or\n"
		"                    --events\n"
		"  --size N|imix     frame length in bytes (%u..%u, no FCS) or simple IMIX "
		"(default 64)\n"
		"  --flows N         UDP flows per pod and queue (default 1)\n"
		"  --queues N        queue pairs per pod (default 1, at most %u; memif: 8):\n"
		"                    a --memif pod makes N rings each way, an ethdev pod\n"
		"                    sets up N (net_virtio_user: give it queues=N). Each\n"
		"                    queue sends flows of its own (its own source address)\n"
		"                    and each flow is checked: lost, duplicated, out of order\n"
		"  --macs N          source MACs per pod, the pod's own MAC first (default 1)\n"
		"  --rate PPS        aggregate offered rate, all pods together (default: full "
		"speed)\n"
		"  --duration SEC    measured time (default 10)\n"
		"  --warmup SEC      unmeasured traffic first, for learning (default 1)\n"
		"  --ring N          rx and tx descriptors per port (default 1024)\n"
		"  --ndr             search the no-drop (NDR) and 0.5%%-drop (PDR) rates, then\n"
		"                    measure at the NDR; --rate is the top of the search\n"
		"  --trial SEC       duration of one search trial (default 5)\n"
		"  --resolution F    search resolution, a fraction of the top rate (default 0.01)\n"
		"  --json            JSON on stdout instead of the summary\n"
		"  --reconnect       a pod whose link goes down removes its device and probes\n"
		"                    it again until the link is up (a --memif pod connects\n"
		"                    again; virtio-user with server=1 reconnects by itself\n"
		"                    and is only watched)\n"
		"  --events FILE     JSON lines, as they happen: the pods, link changes, and\n"
		"                    each direction's gaps in received traffic, wall-clock ns\n"
		"  --gap-ms MS       a direction silent for longer is a gap (default 50)\n"
		"  SIGUSR2 (with --events) sets a mark: each direction's first frame sent\n"
		"  after it is logged when it arrives. SIGUSR1 ends the measurement early;\n"
		"  it is reported as usual\n",
		prog, BENCH_PKT_MIN_LEN, BENCH_PKT_MAX_LEN, BENCH_MAX_QUEUES);
}

static int parse_double(const char *name, const char *s, double min, double *out)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(s, &end);
	if (errno != 0 || end == s || *end != '\0' || !(v >= min) || isinf(v)) {
		fprintf(stderr, "podwire-bench: %s \"%s\": expected a number >= %g\n", name, s,
			min);
		return -EINVAL;
	}
	*out = v;
	return 0;
}

static int parse_uint(const char *name, const char *s, unsigned long min, unsigned long max,
		      unsigned long *out)
{
	char *end;
	unsigned long v;

	errno = 0;
	v = strtoul(s, &end, 10);
	if (errno != 0 || end == s || *end != '\0' || s[0] == '-' || v < min || v > max) {
		fprintf(stderr, "podwire-bench: %s \"%s\": expected an integer in %lu..%lu\n", name,
			s, min, max);
		return -EINVAL;
	}
	*out = v;
	return 0;
}

int bench_opts_parse(int argc, char **argv)
{
	static const struct option lo[] = {
	    {"size", required_argument, NULL, 's'},
	    {"flows", required_argument, NULL, 'f'},
	    {"macs", required_argument, NULL, 'm'},
	    {"rate", required_argument, NULL, 'r'},
	    {"duration", required_argument, NULL, 'd'},
	    {"warmup", required_argument, NULL, 'w'},
	    {"ring", required_argument, NULL, 'R'},
	    {"ndr", no_argument, NULL, 'n'},
	    {"trial", required_argument, NULL, 't'},
	    {"resolution", required_argument, NULL, 'e'},
	    {"json", no_argument, NULL, 'j'},
	    {"reconnect", no_argument, NULL, 'c'},
	    {"events", required_argument, NULL, 'E'},
	    {"gap-ms", required_argument, NULL, 'g'},
	    {"memif", required_argument, NULL, 'M'},
	    {"queues", required_argument, NULL, 'q'},
	    {"vhost", required_argument, NULL, 'V'},
	    {"help", no_argument, NULL, 'h'},
	    {NULL, 0, NULL, 0},
	};
	unsigned long u;
	int c;

	while ((c = getopt_long(argc, argv, "h", lo, NULL)) != -1) {
		switch (c) {
		case 's':
			if (bench_size_parse(optarg, &opt.size) < 0) {
				fprintf(stderr,
					"podwire-bench: --size \"%s\": expected %u..%u or "
					"\"imix\"\n",
					optarg, BENCH_PKT_MIN_LEN, BENCH_PKT_MAX_LEN);
				return -EINVAL;
			}
			break;
		case 'f':
			if (parse_uint("--flows", optarg, 1, 65535, &u) < 0)
				return -EINVAL;
			opt.flows = (unsigned int)u;
			break;
		case 'm':
			if (parse_uint("--macs", optarg, 1, 65536, &u) < 0)
				return -EINVAL;
			opt.macs = (unsigned int)u;
			break;
		case 'r':
			if (parse_double("--rate", optarg, 0, &opt.rate) < 0)
				return -EINVAL;
			break;
		case 'd':
			if (parse_double("--duration", optarg, 0.1, &opt.duration) < 0)
				return -EINVAL;
			break;
		case 'w':
			if (parse_double("--warmup", optarg, 0, &opt.warmup) < 0)
				return -EINVAL;
			break;
		case 'R':
			if (parse_uint("--ring", optarg, 64, 32768, &u) < 0)
				return -EINVAL;
			opt.ring = (uint16_t)u;
			break;
		case 'n':
			opt.ndr = true;
			break;
		case 't':
			if (parse_double("--trial", optarg, 0.1, &opt.ndr_trial) < 0)
				return -EINVAL;
			break;
		case 'e':
			if (parse_double("--resolution", optarg, 0.0001, &opt.ndr_resolution) < 0)
				return -EINVAL;
			break;
		case 'j':
			opt.json = true;
			break;
		case 'c':
			opt.reconnect = true;
			break;
		case 'E':
			opt.events = optarg;
			break;
		case 'g':
			if (parse_double("--gap-ms", optarg, 0.01, &opt.gap_ms) < 0)
				return -EINVAL;
			break;
		case 'q':
			if (parse_uint("--queues", optarg, 1, BENCH_MAX_QUEUES, &u) < 0)
				return -EINVAL;
			opt.queues = (uint16_t)u;
			break;
		case 'M':
			if (opt.n_memif == MAX_PODS) {
				fprintf(stderr, "podwire-bench: --memif: at most %d pods\n",
					MAX_PODS);
				return -EINVAL;
			}
			opt.memif[opt.n_memif++] = optarg;
			break;
		case 'V':
			if (opt.n_vhost == MAX_PODS) {
				fprintf(stderr, "podwire-bench: --vhost: at most %d pods\n",
					MAX_PODS);
				return -EINVAL;
			}
			opt.vhost[opt.n_vhost++] = optarg;
			break;
		default:
			usage(argv[0]);
			return -EINVAL;
		}
	}
	if (opt.n_vhost > 0 && (opt.reconnect || opt.events != NULL)) {
		fprintf(stderr, "podwire-bench: --reconnect and --events do not work with --vhost "
				"pods (they are not re-opened); give those pods as --vdev "
				"net_virtio_user<i>,path=SOCK instead\n");
		return -EINVAL;
	}
	if (optind < argc) {
		fprintf(stderr, "podwire-bench: unexpected argument \"%s\"\n", argv[optind]);
		return -EINVAL;
	}
	return 0;
}
