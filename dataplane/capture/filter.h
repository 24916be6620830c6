/* SPDX-License-Identifier: BSD-3-Clause */
/* Capture filters: tcpdump expressions compiled by libpcap, converted to
 * eBPF and loaded (jitted where it can be) by DPDK's librte_bpf. */
#ifndef PODWIRE_CAPTURE_FILTER_H
#define PODWIRE_CAPTURE_FILTER_H

#include <stddef.h>
#include <stdint.h>

struct rte_bpf;

/* Compiles expr for Ethernet frames of up to snaplen bytes. 0 with *out
 * and *jit (NULL when DPDK has no JIT here), or -EINVAL with msg saying
 * what libpcap found wrong and the fix. */
int capture_filter_load(const char *expr, uint32_t snaplen, struct rte_bpf **out,
			uint64_t (**jit)(void *), char *msg, size_t len);

#endif
