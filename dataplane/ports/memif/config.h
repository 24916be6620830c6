/* SPDX-License-Identifier: BSD-3-Clause */
/* memif's settings from podwired's options, set once by daemon/main.c
 * before any port is made; the defaults stand otherwise. */
#ifndef PODWIRE_MEMIF_CONFIG_H
#define PODWIRE_MEMIF_CONFIG_H

#include <stdint.h>

struct memif_config {
	/* Longest wait after a peer's short connections in a row (see
	 * MEMIF_FLAP_MS); 0: no back-off. */
	unsigned int backoff_max_ms;
	/* What a peer's regions may take of podwired's memory, as mapped
	 * (hugetlbfs rounds up to its pages): one peer's, and all together. */
	uint64_t peer_max_bytes;
	uint64_t total_max_bytes;
};

extern struct memif_config memif_cfg;

#endif
