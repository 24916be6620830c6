/* SPDX-License-Identifier: BSD-3-Clause */
#include <errno.h>
#include <stdio.h>

#include <pcap/pcap.h>
#include <rte_bpf.h>
#include <rte_errno.h>
#include <rte_malloc.h>

#include "capture/filter.h"

int capture_filter_load(const char *expr, uint32_t snaplen, struct rte_bpf **out,
			uint64_t (**jit)(void *), char *msg, size_t len)
{
	pcap_t *pcap = pcap_open_dead(DLT_EN10MB, (int)snaplen);
	struct rte_bpf_prm *prm;
	struct rte_bpf_jit j = {0};
	struct bpf_program prog;
	struct rte_bpf *bpf;

	if (pcap == NULL) {
		snprintf(msg, len, "filter: libpcap could not start; out of memory");
		return -ENOMEM;
	}
	if (pcap_compile(pcap, &prog, expr, 1, PCAP_NETMASK_UNKNOWN) != 0) {
		snprintf(msg, len,
			 "filter \"%.200s\": %s; give a tcpdump expression such as \"udp port "
			 "53\" or \"ether host 02:00:00:00:00:0a\" (man pcap-filter)",
			 expr, pcap_geterr(pcap));
		pcap_close(pcap);
		return -EINVAL;
	}
	prm = rte_bpf_convert(&prog);
	pcap_freecode(&prog);
	pcap_close(pcap);
	if (prm == NULL) {
		snprintf(msg, len, "filter \"%.200s\": DPDK cannot run it (%s); try a simpler one",
			 expr, rte_strerror(rte_errno));
		return -EINVAL;
	}
	bpf = rte_bpf_load(prm);
	rte_free(prm);
	if (bpf == NULL) {
		snprintf(msg, len, "filter \"%.200s\": DPDK refused the program (%s)", expr,
			 rte_strerror(rte_errno));
		return -EINVAL;
	}
	*jit = rte_bpf_get_jit(bpf, &j) == 0 ? j.func : NULL;
	*out = bpf;
	return 0;
}
